"""Snakemake entry point of rule ``scaling_train`` (logic: pipeline_lib.scaling.run)."""
import contextlib

from pipeline_lib.scaling.run import train_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with open(sm.log[0], "w") as log, contextlib.redirect_stderr(log):
    p = sm.params
    train_stage(sm.input[0], dict(p.base), p.clusters, p.seed, dict(sm.output.items()))
