"""Snakemake entry point of rule ``tbpoint_kernel_types`` (logic: pipeline_lib.tbpoint.kernel_types)."""

import pandas as pd

from pipeline_lib.jobs import job_log
from pipeline_lib.tbpoint.kernel_types import kernel_types_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    blocks = {wl: pd.read_parquet(r["blocks"]) for wl, r in p.workloads.items()}
    kernel_types_stage(blocks, {wl: r["declared"] for wl, r in p.workloads.items()}, list(p.plot), p.max_cov,
                       sm.output.table, sm.output.figure)
