"""Snakemake entry point of rule ``scaling_prior`` (logic: pipeline_lib.scaling.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.scaling.run import prior_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    prior_stage(sm.wildcards.wl, p.sweep, Path(sm.input.check).parent, p.analysed, p.points, sm.output[0],
                dict(p.sync), bool(p.pacing))
