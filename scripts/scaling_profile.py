"""Snakemake entry point of rule ``scaling_profile`` (logic: pipeline_lib.scaling.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.scaling.run import profile_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    profile_stage(sm.wildcards.wl, Path(sm.input.check).parent, sm.output[0])
