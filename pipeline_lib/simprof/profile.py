"""Thread profiling of one Spark job (seed 000, 5.3.1): run it under JFR with
the SimProf plugin, read the recording, and keep the executor threads'
call-stack snapshots, tasks and counters as tables (docs/simprof.md,
"Profile tables")."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from . import emulated as em
from . import jvm, perf, units

TSV_TABLES = ("samples", "stacks", "methods", "tasks", "counters")
TABLES = (*TSV_TABLES, "perf")               # a profile's tables (run.PROFILE_TABLES: their columns)
PERF_COLUMNS = ["time_ns", "os_tid", "java_tid", *perf.EVENTS, *em.MODEL_COUNTS]


def read_export(export_dir: Path) -> dict[str, pd.DataFrame]:
    """The tab-separated tables JfrExport wrote, typed."""
    t = {name: pd.read_csv(Path(export_dir) / f"{name}.tsv", sep="\t", keep_default_na=False,
                           dtype={"thread": str, "name": str, "event": str, "frame_type": str})
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


def executor_perf(table: pd.DataFrame, counters: pd.DataFrame) -> pd.DataFrame:
    """The perf sampler's reads of the threads that ran tasks, with their Java
    ids and every event column (-1 for events this mode did not count), then
    the emulated mode's model counts (-1 in the other modes)."""
    t = units.perf_series(table, counters)
    for col in [*perf.EVENTS, *em.MODEL_COUNTS]:
        if col not in t:
            t[col] = -1
    return t[PERF_COLUMNS].sort_values(["java_tid", "time_ns"], kind="stable", ignore_index=True)


def _change(t: pd.Series, v: pd.Series, a: float, b: float) -> float:
    return float(np.diff(np.interp([a, b], t.to_numpy(np.float64), v.to_numpy(np.float64)))[0])


def thread_cpu(perf_table: pd.DataFrame, counters: pd.DataFrame) -> pd.DataFrame:
    """Per executor thread (``java_tid``) the perf sampler counted: the CPU
    seconds of its task clock (``kernel_s``) and those the JVM reported
    (``jvm_s``), over the span both watched it.

    On a virtual machine the two differ by the steal time: the task clock
    runs while the thread holds a virtual CPU, the hypervisor's time
    included, while the thread CPU clock the JVM reads leaves out the time
    the hypervisor took (the kernel's paravirtual steal accounting), so
    ``kernel_s`` exceeds ``jvm_s`` on a host whose neighbours are busy.
    Steal falls on every thread alike; each thread's share of the executor
    CPU time is the same by either clock when the sampler follows the right
    threads."""
    rows = []
    for tid, p in perf_table.groupby("java_tid"):
        c = counters[(counters["java_tid"] == tid) & (counters["cpu_ns"] >= 0)]
        if len(c) < 2:
            continue
        a = max(p["time_ns"].min(), c["time_ns"].min())
        b = min(p["time_ns"].max(), c["time_ns"].max())
        if b > a:
            rows.append({"java_tid": tid, "kernel_s": _change(p["time_ns"], p["task_clock_ns"], a, b) / 1e9,
                         "jvm_s": _change(c["time_ns"], c["cpu_ns"], a, b) / 1e9})
    return pd.DataFrame(rows, columns=["java_tid", "kernel_s", "jvm_s"])


def cpu_agreement(perf_table: pd.DataFrame, counters: pd.DataFrame) -> float | None:
    """CPU time the kernel's task clock counted for the executor threads over
    the CPU time the JVM reported for them, over the span both watched each
    thread (:func:`thread_cpu`): 1 when the sampler follows the right
    threads on an unshared host, above 1 by the steal time on a busy
    virtual machine (None when it followed none)."""
    t = thread_cpu(perf_table, counters)
    jvm_cpu = float(t["jvm_s"].sum())
    return round(float(t["kernel_s"].sum()) / jvm_cpu, 4) if jvm_cpu > 0 else None


def missed_cpu_share(perf_table: pd.DataFrame, counters: pd.DataFrame) -> float:
    """Share of the executor threads' CPU time (as the JVM reported it) that
    belongs to threads the perf sampler never counted: a thread that starts
    and ends between two of the sampler's polls of ``/proc`` (a busy host)
    cannot be attached to after the fact, so it is reported instead."""
    c = counters[counters["cpu_ns"] >= 0]
    cpu = c.groupby("java_tid")["cpu_ns"].agg(lambda v: v.max() - v.min())
    total = float(cpu.sum())
    missed = cpu[~cpu.index.isin(perf_table["java_tid"].unique())]
    return round(float(missed.sum()) / total, 4) if total > 0 else 0.0


def profile_job(jar: Path, job: str, data: Path, work_dir: Path, *, partitions: int, arg: str, cores: int,
                driver_memory: str, profile: dict, log: Path, timeout_s: int,
                counter_mode: str = "cpu-time", emulated: dict | None = None) -> tuple[dict, dict]:
    """Run ``job`` profiled, with the perf sampler counting the events of
    ``counter_mode`` (units.PERF_EVENTS) beside it, or in emulated mode
    under QEMU with our plugin (``emulated``: the plugin's cache geometry
    and the CPI model, :mod:`.emulated`); return (its run record, the
    executor tables, ``perf`` among them)."""
    java_home = records = None
    if counter_mode == "emulated":
        if not emulated:
            raise ValueError("the emulated counter mode needs simprof.emulated (cache geometry and CPI model)")
        records = work_dir / "emulated-records.txt"
        java_home = em.java_home(work_dir / "emulated-jdk", records, emulated)
    for attempt in range(1, (em.ATTEMPTS if records else 1) + 1):
        try:
            run = jvm.run_job(jar, job, data, work_dir, partitions=partitions, arg=arg, cores=cores,
                              driver_memory=driver_memory, profile=profile,
                              perf_events=units.PERF_EVENTS[counter_mode], log=log, timeout_s=timeout_s,
                              java_home=java_home)
            break
        except jvm.JvmError:
            if not (records and attempt < em.ATTEMPTS and em.crashed(log)):
                raise
            os.replace(log, log.with_name(f"{log.name}.attempt{attempt}"))   # kept; the job runs again
    if records is not None:
        run["emulation_attempts"] = attempt
        run["perf"] = em.perf_table(em.read_records(records), emulated)
        run["perf_refused"], run["perf_sampler_cpu_s"] = {}, 0.0
    with tempfile.TemporaryDirectory(dir=work_dir) as tmp:
        jvm.export_recording(jar, work_dir / "recording.jfr", Path(tmp))
        tables = executor_only(read_export(Path(tmp)))
    tables["perf"] = executor_perf(run.pop("perf"), tables["counters"])
    refused = run.pop("perf_refused")
    counted = tables["perf"]["java_tid"].nunique()
    if counter_mode != "cpu-time" and counted == 0:
        raise RuntimeError(f"the {'plugin' if records else 'perf sampler'} counted none of the "
                           f"{tables['counters']['java_tid'].nunique()} executor threads of '{job}' in "
                           f"{counter_mode} mode; "
                           + ("see its records in the job's work directory" if records else "the kernel refused: "
                              f"{next(iter(refused.values()), 'no thread named like an executor thread was seen')}"))
    run["perf_threads"] = int(counted)
    run["perf_missed_cpu_share"] = missed_cpu_share(tables["perf"], tables["counters"])
    run["perf_refused"] = sorted(set(refused.values()))[:3]
    # the plugin counts no task clock to cross-check with
    run["perf_cpu_ratio"] = None if records else cpu_agreement(tables["perf"], tables["counters"])
    run["perf_sampler_cpu_s"] = round(run["perf_sampler_cpu_s"], 3)
    truncated = tables["stacks"].groupby("stack")["truncated"].max()
    run["stacks_truncated"] = float(truncated.mean()) if len(truncated) else 0.0
    run["recording_bytes"] = (work_dir / "recording.jfr").stat().st_size
    return run, tables
