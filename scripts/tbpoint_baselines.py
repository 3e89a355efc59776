"""Snakemake entry point of rule ``tbpoint_baselines`` (logic: pipeline_lib.tbpoint.run)."""

from pipeline_lib.jobs import job_log
from pipeline_lib.tbpoint.run import baselines_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    baselines_stage(sm.wildcards.wl, sm.input.units, sm.wildcards.hw, dict(sm.params.random),
                    dict(sm.params.simpoint), sm.output[0])
