"""Snakemake entry point of rule ``power`` (logic: pipeline_lib.sim.power)."""
import contextlib

from pipeline_lib.sim.run import power_workload

sm = snakemake  # noqa: F821  (injected by Snakemake)
with open(sm.log[0], "w") as log, contextlib.redirect_stderr(log):
    power_workload(sm.wildcards.wl, sm.input.activity, dict(sm.params.hw), sm.wildcards.hw, sm.output[0])
