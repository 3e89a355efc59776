"""Host time of a design-space sweep's simulations: every workload of a
declared sweep simulated (with power) at a few of its points, in one
process per workload as a batched sweep job does, and the CPU-hours the
whole sweep would take at that rate.

    .venv/bin/python benchmarks/sweep_speed.py [--config config/scaling-full-grid.yaml]
        [--sweep scaling-full] [--points 4]
    .venv/bin/python benchmarks/sweep_speed.py --single gpumech-baseline [--repeat 2]

``--single HW`` times instead one simulation of each workload on hardware
HW outside a batch (timing only, no outputs written; fastest of
``--repeat`` runs).

The workloads' traces must exist under results/traces/ (for the default
sweep: snakemake --configfile config/study.yaml config/scaling-full-grid.yaml
--cores 2 $(for w in ...; do echo results/traces/$w/check.json; done), or any
run of the sweep).  The points are spread evenly over the sweep's order
(first and last included), so they cover its smallest and largest SM counts.
"""
import argparse
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

import yaml

from pipeline_lib.sim import load_hardware
from pipeline_lib.sim.hardware import POWER_FIELDS, TIMING_FIELDS, hardware_slice
from pipeline_lib.sim.run import simulate_points
from pipeline_lib.sim.simulator import Simulator
from pipeline_lib.sim.trace_reader import TraceDir
from pipeline_lib.sweeps import sweep_points
from pipeline_lib.workflow import Paths

ROOT = Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="config/scaling-full-grid.yaml", help="file that declares the sweep")
    ap.add_argument("--sweep", default="scaling-full")
    ap.add_argument("--points", type=int, default=4, help="points simulated per workload")
    ap.add_argument("--single", metavar="HW", help="time one unbatched simulation per workload on HW")
    ap.add_argument("--repeat", type=int, default=2, help="runs per workload with --single (fastest counts)")
    args = ap.parse_args()
    spec = yaml.safe_load((ROOT / args.config).read_text())["sweeps"][args.sweep]
    grid = sweep_points(spec["base"], spec["vary"])
    n = min(args.points, len(grid))
    chosen = [grid[round(i * (len(grid) - 1) / max(n - 1, 1))] for i in range(n)]
    missing = [w for w in spec["workloads"] if not Path(Paths(ROOT / "results").trace("check.json", w)).exists()]
    if missing:
        sys.exit(f"{args.config}: sweeps.{args.sweep}: no trace under results/traces/ for {', '.join(missing)}")
    if args.single:
        return single_runs(spec["workloads"], load_hardware(args.single), args.repeat)
    hws = [load_hardware(p["name"]) for p in chosen]
    print(f"{args.sweep}: {len(grid)} points x {len(spec['workloads'])} workloads; timing "
          f"{', '.join(p['name'] for p in chosen)}")
    print(f"{'workload':18s} {'s per point':>11s}")
    total = 0.0
    # the simulations' progress lines are dropped (the figures are the output)
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stderr(io.StringIO()):
        # warm-up: loads (or compiles) the engine outside the timings
        def points(wl, hws):
            return [{"hw": hardware_slice(h, TIMING_FIELDS), "hw_power": hardware_slice(h, POWER_FIELDS),
                     "out_dir": Path(tmp) / wl / h["name"]} for h in hws]

        first = spec["workloads"][0]
        simulate_points(first, Paths(ROOT / "results").trace_dir(first), points("warm-up", hws[:1]), progress_s=0)
        for wl in spec["workloads"]:
            pts = points(wl, hws)
            t0 = time.perf_counter()
            simulate_points(wl, Paths(ROOT / "results").trace_dir(wl), pts, progress_s=0)
            per = (time.perf_counter() - t0) / len(pts)
            total += per
            print(f"{wl:18s} {per:11.3f}", flush=True)
    print(f"all workloads: {total:.1f} s per point; the {len(grid)}-point sweep: "
          f"{total * len(grid) / 3600:.1f} CPU-hours")


def single_runs(workloads, hw, repeat):
    """Fastest of ``repeat`` unbatched simulations per workload (trace read included)."""
    traces = Path(Paths(ROOT / "results").traces())
    Simulator(hw, TraceDir(traces / workloads[0])).run()      # warm-up: loads (or compiles) the engine
    print(f"{'workload':18s} {'s per run':>9s}   ({hw['name']}, fastest of {repeat})")
    total = 0.0
    for wl in workloads:
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            Simulator(hw, TraceDir(traces / wl)).run()
            best = min(best, time.perf_counter() - t0)
        total += best
        print(f"{wl:18s} {best:9.3f}", flush=True)
    print(f"all workloads: {total:.1f} s")


if __name__ == "__main__":
    main()
