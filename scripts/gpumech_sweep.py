"""Snakemake entry point of rule ``gpumech_sweep`` (logic: pipeline_lib.gpumech.run)."""
from pathlib import Path

import pandas as pd

from pipeline_lib.jobs import job_log
from pipeline_lib.gpumech.run import sweep_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    points = []
    for pt in p.points:
        files = p.files[pt["hardware"]]
        items = [{"workload": wl, "predictions": pd.read_parquet(files[wl]["predictions"]),
                  "launches": pd.read_parquet(files[wl]["launches"]), "stacks": pd.read_parquet(files[wl]["stacks"]),
                  "sim": {pt["policy"]: pd.read_parquet(files[wl]["sim"])}} for wl in p.workloads]
        points.append({**pt, "items": items})
    sweep_stage(points, p.cores, p.min_waves, list(p.stack_workloads), sm.output.table, sm.output.stacks,
                Path(sm.output.table).parent)
