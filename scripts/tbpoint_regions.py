"""Snakemake entry point of rule ``tbpoint_regions`` (logic: pipeline_lib.tbpoint.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.tbpoint.run import regions_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    regions_stage(sm.wildcards.wl, Path(sm.input.check).parent, dict(p.hw), sm.wildcards.hw, p.sigma,
                  p.max_variation, p.min_epochs, sm.output.epochs, sm.output.regions, p.variation)
