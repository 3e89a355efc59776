"""Thread profiling of one Spark job (seed 000, 5.3.1): run it under JFR with
the SimProf plugin, read the recording, and keep the executor threads'
call-stack snapshots, tasks and counters as tables (docs/simprof.md,
"Profile tables")."""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from . import jvm

TSV_TABLES = ("samples", "stacks", "methods", "tasks", "counters")


def read_export(export_dir: Path) -> dict[str, pd.DataFrame]:
    """The tab-separated tables JfrExport wrote, typed."""
    t = {name: pd.read_csv(Path(export_dir) / f"{name}.tsv", sep="\t", keep_default_na=False,
                           dtype={"thread": str, "name": str, "event": str})
         for name in TSV_TABLES}
    if t["samples"].empty or t["counters"].empty:
        raise ValueError(f"the recording in {export_dir} holds no call-stack samples or no executor-thread "
                         "counters: was the SimProf plugin loaded (spark.plugins)?")
    return t


def executor_only(tables: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Keep the snapshots of executor threads (those that ran tasks), and the
    stacks and methods they use; ids are renumbered densely in first-use order
    so that equal recordings give equal tables."""
    tasks = tables["tasks"]
    threads = np.unique(tasks["java_tid"].to_numpy())
    s = tables["samples"]
    s = s[s["java_tid"].isin(threads)].sort_values(["time_ns", "java_tid"], kind="stable").reset_index(drop=True)
    old_stacks = pd.unique(s["stack"])
    stack_map = pd.Series(np.arange(len(old_stacks)), index=old_stacks)
    frames = tables["stacks"]
    frames = frames[frames["stack"].isin(old_stacks)].copy()
    frames["stack"] = stack_map[frames["stack"]].to_numpy()
    frames = frames.sort_values(["stack", "depth"]).reset_index(drop=True)
    old_methods = pd.unique(frames["method"])
    method_map = pd.Series(np.arange(len(old_methods)), index=old_methods)
    frames["method"] = method_map[frames["method"]].to_numpy()
    names = tables["methods"].set_index("method")["name"]
    methods = pd.DataFrame({"method": np.arange(len(old_methods)), "name": names[old_methods].to_numpy()})
    s = s.assign(stack=stack_map[s["stack"]].to_numpy())
    return {"samples": s, "stacks": frames, "methods": methods,
            "tasks": tasks.sort_values(["time_ns", "java_tid"], kind="stable").reset_index(drop=True),
            "counters": tables["counters"][tables["counters"]["java_tid"].isin(threads)]
            .sort_values(["java_tid", "time_ns"]).reset_index(drop=True)}


def profile_job(jar: Path, job: str, data: Path, work_dir: Path, *, partitions: int, arg: str, cores: int,
                driver_memory: str, profile: dict, log: Path, timeout_s: int) -> tuple[dict, dict]:
    """Run ``job`` profiled; return (its run record, the executor tables)."""
    run = jvm.run_job(jar, job, data, work_dir, partitions=partitions, arg=arg, cores=cores,
                      driver_memory=driver_memory, profile=profile, log=log, timeout_s=timeout_s)
    with tempfile.TemporaryDirectory(dir=work_dir) as tmp:
        jvm.export_recording(jar, work_dir / "recording.jfr", Path(tmp))
        tables = executor_only(read_export(Path(tmp)))
    truncated = tables["stacks"].groupby("stack")["truncated"].max()
    run["stacks_truncated"] = float(truncated.mean()) if len(truncated) else 0.0
    run["recording_bytes"] = (work_dir / "recording.jfr").stat().st_size
    return run, tables
