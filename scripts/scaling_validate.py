"""Snakemake entry point of rule ``scaling_validate`` (logic: pipeline_lib.scaling.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.scaling.run import validate_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    validate_stage(sm.input[0], sm.wildcards.metric, dict(sm.params.opts), Path(sm.output.heatmap).parent)
