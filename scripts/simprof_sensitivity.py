"""Snakemake entry point of rule ``simprof_sensitivity`` (logic: pipeline_lib.simprof.run)."""

from pipeline_lib.jobs import job_log
from pipeline_lib.simprof.run import sensitivity_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p, i = sm.params, sm.input
    sensitivity_stage(sm.wildcards.sp_set, p.train, i.units, i.phases, i.model, dict(p.profiles), p.opts,
                      sm.output.table, sm.output.summary)
