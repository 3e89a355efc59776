"""Snakemake entry point of rule ``scaling_counters`` (logic: pipeline_lib.scaling.run)."""

from pipeline_lib.jobs import job_log
from pipeline_lib.scaling.run import counters_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p, i = sm.params, sm.input
    counters_stage(sm.wildcards.wl, p.sweep, p.points, i.profile, i.trace_launches, sm.output[0])
