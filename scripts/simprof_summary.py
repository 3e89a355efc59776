"""Snakemake entry point of rule ``simprof_summary`` (logic: pipeline_lib.simprof.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.simprof.run import summary_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    summary_stage(dict(p.runs), sm.input.sensitivity, dict(p.overhead), p.opts, sm.output.summary, sm.output.tables,
                  Path(sm.output.figures[0]).parent)
