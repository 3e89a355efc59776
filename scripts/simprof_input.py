"""Snakemake entry point of rule ``simprof_input`` (logic: pipeline_lib.simprof.run)."""
import contextlib

from pipeline_lib.simprof.run import input_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with open(sm.log[0], "w") as log, contextlib.redirect_stderr(log):
    input_stage(sm.wildcards.sp_input, sm.params.spec, sm.output[0])
