"""Snakemake entry point of rule ``simprof_phases`` (logic: pipeline_lib.simprof.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.simprof.run import phases_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    phases_stage(sm.wildcards.run, Path(sm.input[0]).parent, sm.params.opts, sm.output.units, sm.output.phases,
                 sm.output.model)
