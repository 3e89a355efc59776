"""Snakemake entry point of rule ``scaling_dataset`` (logic: pipeline_lib.scaling.run)."""
import contextlib

from pipeline_lib.scaling.run import dataset_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with open(sm.log[0], "w") as log, contextlib.redirect_stderr(log):
    dataset_stage(sm.params.sweep, list(sm.input), sm.output[0])
