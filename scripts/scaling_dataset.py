"""Snakemake entry point of rule ``scaling_dataset`` (logic: pipeline_lib.scaling.run)."""

from pipeline_lib.jobs import job_log
from pipeline_lib.scaling.run import dataset_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    dataset_stage(sm.params.sweep, list(sm.input.counters), sm.output[0], list(sm.input.priors))
