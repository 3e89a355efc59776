"""Snakemake entry point of rule ``simprof_jar`` (logic: pipeline_lib.simprof.run)."""
import contextlib

from pipeline_lib.simprof.run import jar_stage

sm = snakemake  # noqa: F821  (injected by Snakemake)
with open(sm.log[0], "w") as log, contextlib.redirect_stderr(log):
    jar_stage(sm.output[0])
