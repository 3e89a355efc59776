"""Snakemake entry point of rule ``simprof_jar`` (logic: pipeline_lib.simprof.run)."""

from pipeline_lib.jobs import job_log
from pipeline_lib.simprof.run import jar_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    jar_stage(sm.output[0])
