"""Snakemake entry point of rule ``simprof_input`` (logic: pipeline_lib.simprof.run)."""

from pipeline_lib.jobs import job_log
from pipeline_lib.simprof.run import input_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    input_stage(sm.wildcards.sp_input, sm.params.spec, sm.output[0])
