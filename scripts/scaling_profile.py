"""Snakemake entry point of rule ``scaling_profile`` (logic: pipeline_lib.scaling.run)."""
import contextlib
from pathlib import Path

from pipeline_lib.scaling.run import profile_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with open(sm.log[0], "w") as log, contextlib.redirect_stderr(log):
    profile_stage(sm.wildcards.wl, Path(sm.input.check).parent, sm.output[0])
