"""Snakemake entry point of rule ``gpumech_sim_stalls`` (logic: pipeline_lib.gpumech.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.gpumech.run import sim_stalls_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    sim_stalls_stage(sm.wildcards.wl, Path(sm.input.check).parent, dict(sm.params.hw), sm.wildcards.hw, sm.output[0])
