"""Snakemake entry point of rule ``sweep_batch`` (logic: pipeline_lib.sim.run)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.sim.run import simulate_points

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    out = Path(sm.output[0])
    points = [{"hw": dict(pt["hw"]), "hw_power": dict(pt["hw_power"]), "out_dir": out / pt["hw"]["name"]}
              for pt in p.points]
    simulate_points(sm.wildcards.wl, Path(sm.input.check).parent, points, unit_warp_instrs=p.unit_warp_instrs,
                    min_units=p.min_units, progress_s=p.progress_s)
