"""Snakemake entry point of rule ``tbpoint_markov`` (logic: pipeline_lib.tbpoint.run)."""

from pipeline_lib.jobs import job_log
from pipeline_lib.tbpoint.run import markov_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    m = sm.params.markov
    markov_stage(m["cases"], m["samples"], m["seed"], sm.output.table, sm.output.figure)
