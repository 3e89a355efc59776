"""Snakemake entry point of rule ``scaling_dataset`` (logic: pipeline_lib.scaling.run)."""
import contextlib
from pathlib import Path

from pipeline_lib.scaling.run import dataset_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with open(sm.log[0], "w") as log, contextlib.redirect_stderr(log):
    p, i = sm.params, sm.input
    n = len(p.workloads)
    items = [{"workload": wl, "point": pt, "hw": hw, "profile": i.profiles[k * n + j],
              "trace_launches": i.trace_launches[k * n + j], "sim_dir": Path(p.dirs[k * n + j])}
             for k, (pt, hw) in enumerate(zip(p.points, p.hw)) for j, wl in enumerate(p.workloads)]
    dataset_stage(p.sweep, items, sm.output[0])
