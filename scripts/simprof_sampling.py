"""Snakemake entry point of rule ``simprof_sampling`` (logic: pipeline_lib.simprof.run)."""

from pipeline_lib.jobs import job_log
from pipeline_lib.simprof.run import sampling_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    sampling_stage(sm.wildcards.run, sm.input[0], sm.params.opts, sm.output.errors, sm.output.sizes)
