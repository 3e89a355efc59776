"""Snakemake entry point of rule ``simulate`` (logic: pipeline_lib.sim.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.sim.run import simulate_workload

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    simulate_workload(sm.wildcards.wl, Path(sm.input.check).parent, dict(p.hw), Path(sm.output.summary).parent,
                      unit_warp_instrs=p.unit_warp_instrs, min_units=p.min_units, progress_s=p.progress_s)
