"""Snakemake entry point of rule ``power`` (logic: pipeline_lib.sim.power)."""

from pipeline_lib.jobs import job_log
from pipeline_lib.sim.run import power_workload

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    power_workload(sm.wildcards.wl, sm.input.activity, dict(sm.params.hw), sm.wildcards.hw, sm.output[0])
