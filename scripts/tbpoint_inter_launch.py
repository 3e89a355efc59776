"""Snakemake entry point of rule ``tbpoint_inter_launch`` (logic: pipeline_lib.tbpoint.run)."""
import contextlib
from pathlib import Path

from pipeline_lib.tbpoint.run import inter_launch_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with open(sm.log[0], "w") as log, contextlib.redirect_stderr(log):
    inter_launch_stage(sm.wildcards.wl, Path(sm.input.check).parent, sm.params.sigma, sm.output[0])
