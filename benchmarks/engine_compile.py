"""Compile time of the simulator's engine, a revision's against the working tree's.

    .venv/bin/python benchmarks/engine_compile.py REV [--hw NAME] [--reps 2]

Each hardware structure compiles an engine of its own (docs/simulator.md,
Speed), once per machine: a sweep over structures and a fresh clone's tests
pay it for each.  REV's ``pipeline_lib`` is extracted beside the working
tree's (as ``simulator_ab.py`` does); each version simulates a small trace
made here, in a process of its own with an empty Numba cache
(``NUMBA_CACHE_DIR``), the versions alternating ``--reps`` times.  Prints the
seconds of each version's first simulation (compiling the engine and what
the simulation calls besides) and of its second (the compiled code, for
scale).
"""
import argparse
import importlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from emulator_ab import NAME, extract
from simulator_speed import traced

ROOT = Path(__file__).resolve().parents[1]


def child(package: str, trace: Path, hw: str) -> None:
    """Two simulations of ``trace`` by ``package``; prints their seconds as JSON."""
    sim = importlib.import_module(f"{package}.sim.simulator")
    reader = importlib.import_module(f"{package}.sim.trace_reader")
    config = importlib.import_module(f"{package}.sim").load_hardware(ROOT / "config" / "hardware" / f"{hw}.yaml")
    seconds = []
    for _ in range(2):
        t0 = time.perf_counter()
        sim.Simulator(config, reader.TraceDir(trace)).run()
        seconds.append(time.perf_counter() - t0)
    print(json.dumps(seconds))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="git revision to compare the working tree with")
    ap.add_argument("--hw", default="gpumech-baseline")
    ap.add_argument("--reps", type=int, default=2, help="alternating compilations per version")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        extract(args.rev, tmp)
        (tmp / "config").symlink_to(ROOT / "config")     # one hardware schema for both
        trace = traced("reduction", "small", tmp / "trace").path
        runs = {"old": [], "new": []}
        for _ in range(args.reps):
            for label, package in (("old", NAME), ("new", "pipeline_lib")):
                with tempfile.TemporaryDirectory(dir=tmp) as cache:
                    path = [str(tmp), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
                    env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": os.pathsep.join(path)}
                    out = subprocess.run([sys.executable, __file__, "--child", package, str(trace), args.hw],
                                         env=env, cwd=ROOT, capture_output=True, text=True)
                    if out.returncode:
                        sys.exit(f"{label} ({package}) failed:\n{out.stderr}")
                    runs[label].append(json.loads(out.stdout.splitlines()[-1]))
                    first, second = runs[label][-1]
                    print(f"{label}: first simulation {first:6.1f} s (compiling), second {second:5.2f} s", flush=True)
        old, new = (statistics.median(r[0] for r in runs[k]) for k in ("old", "new"))
        print(f"engine compile ({args.hw}, median first simulation of {args.reps}): "
              f"{args.rev} {old:.1f} s, working tree {new:.1f} s ({old / new:.2f}x)")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(sys.argv[2], Path(sys.argv[3]), sys.argv[4])
    else:
        main()
