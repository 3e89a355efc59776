"""Snakemake entry point of rule ``tbpoint_regions`` (logic: pipeline_lib.tbpoint.run)."""
import contextlib
from pathlib import Path

from pipeline_lib.tbpoint.run import regions_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with open(sm.log[0], "w") as log, contextlib.redirect_stderr(log):
    p = sm.params
    regions_stage(sm.wildcards.wl, Path(sm.input.check).parent, dict(p.hw), sm.wildcards.hw, p.sigma,
                  p.max_variation, p.min_epochs, sm.output.epochs, sm.output.regions)
