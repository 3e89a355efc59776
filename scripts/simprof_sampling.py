"""Snakemake entry point of rule ``simprof_sampling`` (logic: pipeline_lib.simprof.run)."""
import contextlib

from pipeline_lib.simprof.run import sampling_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with open(sm.log[0], "w") as log, contextlib.redirect_stderr(log):
    sampling_stage(sm.wildcards.run, sm.input[0], sm.params.opts, sm.output.errors, sm.output.sizes)
