"""Snakemake entry point of rule ``tbpoint_kernel_types`` (logic: pipeline_lib.tbpoint.kernel_types)."""

import pandas as pd

from pipeline_lib.jobs import job_log
from pipeline_lib.tbpoint.kernel_types import kernel_types_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    blocks = {wl: pd.read_parquet(b) for wl, b in zip(p.workloads, sm.input.blocks)}
    kernel_types_stage(blocks, dict(zip(p.workloads, p.declared)), list(p.plot), p.max_cov,
                       sm.output.table, sm.output.figure)
