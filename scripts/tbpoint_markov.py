"""Snakemake entry point of rule ``tbpoint_markov`` (logic: pipeline_lib.tbpoint.run)."""
import contextlib

from pipeline_lib.tbpoint.run import markov_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with open(sm.log[0], "w") as log, contextlib.redirect_stderr(log):
    m = sm.params.markov
    markov_stage(m["cases"], m["samples"], m["seed"], sm.output.table, sm.output.figure)
