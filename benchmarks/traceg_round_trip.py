"""Round trip through Accel-Sim's trace format: export each traced workload
(pipeline_lib.trace.traceg_export), import it back (pipeline_lib.trace.traceg),
and compare the warp instructions and the simulated cycles
(docs/trace_format.md, "Exporting to Accel-Sim").

    .venv/bin/python benchmarks/traceg_round_trip.py [workload ...] [--hw gpumech-baseline]

Default: every traced workload under results/traces/ whose name ends in
``-s`` (the default suite at small size; run the study's traces first).
Prints per workload whether the stream is the same (PC, mask, space with
parameter loads read back as constant loads, requests, lines), the
register operands the format could not carry, the largest relative cycle
difference over the launches, and the export and import times.
"""
import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from pipeline_lib.sim.hardware import load_hardware
from pipeline_lib.sim.simulator import Simulator
from pipeline_lib.sim.trace_reader import TraceDir
from pipeline_lib.trace.traceg import import_traceg
from pipeline_lib.trace.traceg_export import export_traceg
from pipeline_lib.workflow import Paths

ROOT = Path(__file__).resolve().parents[1]


def same_stream(a: TraceDir, b: TraceDir) -> list[str]:
    """The fields in which the two traces' warp instructions differ."""
    bad = []
    for lid in a.launches["launch"]:
        x, y = a.launch_trace(lid), b.launch_trace(lid)
        bad += [f"launch {lid} {f}" for f in ("warp_off", "pc", "nthreads", "nreq", "line_off", "lines")
                if not np.array_equal(getattr(x, f), getattr(y, f))]
        if not np.array_equal(np.where(x.space == 5, 4, x.space), y.space):
            bad.append(f"launch {lid} space")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workloads", nargs="*")
    ap.add_argument("--hw", default="gpumech-baseline")
    a = ap.parse_args()
    traces = Path(Paths(ROOT / "results").traces())
    wls = a.workloads or sorted(p.name for p in traces.iterdir() if p.name.endswith("-s")
                                and (p / "check.json").exists())
    hw = load_hardware(a.hw)
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for wl in wls:
            t0 = time.perf_counter()
            summary = export_traceg(traces / wl, Path(tmp) / wl / "tg")
            t1 = time.perf_counter()
            import_traceg(wl, Path(tmp) / wl / "tg" / "kernelslist.g", Path(tmp) / wl / "back", progress=False)
            t2 = time.perf_counter()
            src, back = TraceDir(traces / wl), TraceDir(Path(tmp) / wl / "back")
            bad = same_stream(src, back)
            ca = Simulator(hw, src).run().launches["cycles"].to_numpy()
            cb = Simulator(hw, back).run().launches["cycles"].to_numpy()
            diff = float(np.max(np.abs(ca - cb) / ca)) if len(ca) else 0.0
            failed += bool(bad) or diff > 0
            print(f"{wl:16s} stream {'same' if not bad else 'DIFFERS: ' + ', '.join(bad[:3])}; dropped "
                  f"{summary['dropped_register_operands']}; cycles max diff {100 * diff:.3f}%; "
                  f"export {t1 - t0:.1f} s, import {t2 - t1:.1f} s", flush=True)
    print(f"{len(wls) - failed} of {len(wls)} workloads: same stream and same cycles on {a.hw}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
