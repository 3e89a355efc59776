"""Snakemake entry point of rule ``sweep_batch`` (logic: pipeline_lib.sim.run,
and pipeline_lib.tbpoint.run for a sampled sweep's points)."""
from pathlib import Path

from pipeline_lib.jobs import job_log
from pipeline_lib.sim.run import simulate_points
from pipeline_lib.tbpoint.run import point_simulator

sm = snakemake  # noqa: F821  (injected by Snakemake)
with job_log(sm):
    p = sm.params
    wl = sm.wildcards.wl
    out = Path(sm.output[0])
    points = [{"hw": dict(pt["hw"]), "hw_power": dict(pt["hw_power"]), "out_dir": out / pt["hw"]["name"]}
              for pt in p.points]
    tbp = p.points[0].get("tbpoint") if p.points else None
    simulate = point_simulator(wl, tbp, sm.input.validation_full, sm.input.validation_sampled,
                               sm.input.inter) if tbp else None
    options = {"progress_s": p.progress_s} if simulate else {
        "unit_warp_instrs": p.unit_warp_instrs, "min_units": p.min_units, "progress_s": p.progress_s}
    simulate_points(wl, Path(sm.input.check).parent, points, simulate=simulate, **options)
