"""Snakemake entry point of rule ``gpumech_sweep`` (logic: pipeline_lib.gpumech.run)."""
from pathlib import Path

import pandas as pd

from pipeline_lib.jobs import job_log
from pipeline_lib.gpumech.run import sweep_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p, i = sm.params, sm.input
    n = len(p.workloads)
    points = []
    for k, pt in enumerate(p.points):
        sl = slice(k * n, (k + 1) * n)
        items = [{"workload": wl, "predictions": pd.read_parquet(pr), "launches": pd.read_parquet(la),
                  "stacks": pd.read_parquet(st), "sim": {pt["policy"]: pd.read_parquet(si)}}
                 for wl, pr, la, st, si in zip(p.workloads, i.predictions[sl], i.launches[sl], i.stacks[sl],
                                               i.sims[sl])]
        points.append({**pt, "items": items})
    sweep_stage(points, p.cores, p.min_waves, list(p.stack_workloads), sm.output.table, sm.output.stacks,
                Path(sm.output.table).parent)
