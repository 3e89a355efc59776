"""Division instructions in the simulator's compiled engine, a revision's against the working tree's.

    .venv/bin/python benchmarks/engine_divisions.py REV [trace_dir] [--hw NAME]

Compiles both engines afresh (into a temporary Numba cache: code loaded
from the cache keeps no machine code of the functions the entry calls),
simulates the trace (default: the medium ``kmeans`` of ``make study``) with
each version (REV's ``pipeline_lib`` extracted
beside the working tree's, as ``simulator_ab.py`` does) and counts the
integer and floating-point division instructions in the machine code of the
engine's ``run`` (with what it inlines) and of its L2 path ``_l2``: with the
hardware's structure compiled in (docs/simulator.md, Speed) the set, slice
and bank indices are computed without dividing.
"""
import argparse
import importlib
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="engine-divisions-")     # before numba is imported

from emulator_ab import NAME, extract  # noqa: E402
from pipeline_lib.sim.trace_reader import TraceDir  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DIVISION = re.compile(r"^\s*(v?i?div[a-z]*)\s", re.M)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="git revision to compare the working tree with")
    ap.add_argument("trace", nargs="?", type=Path, default=ROOT / "results" / "traces" / "kmeans")
    ap.add_argument("--hw", default="gpumech-baseline")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        extract(args.rev, tmp / "old")
        shutil.copytree(ROOT / "config", tmp / "old" / "config")     # REV's hardware files are the working tree's
        sys.path.insert(0, str(tmp / "old"))
        trace = TraceDir(args.trace)
        hw_file = ROOT / "config" / "hardware" / f"{args.hw}.yaml"
        print(f"{'version':12s} {'function':8s} {'integer':>8s} {'float':>6s}   ({args.hw})")
        for label, pkg in (("old", NAME), ("new", "pipeline_lib")):
            sim = importlib.import_module(f"{pkg}.sim.simulator")
            s = sim.Simulator(importlib.import_module(f"{pkg}.sim").load_hardware(hw_file), trace)
            s.run()
            engine = getattr(s, "engine", None) or importlib.import_module(f"{pkg}.sim.engine")
            for name in ("run", "_l2"):
                f = getattr(engine, name)
                ops = DIVISION.findall(f.inspect_asm(f.signatures[0]))
                integer = sum(op.lstrip("v").startswith(("idiv", "div")) and not op.endswith(("sd", "ss"))
                              for op in ops)
                print(f"{label:12s} {name:8s} {integer:8d} {len(ops) - integer:6d}")


if __name__ == "__main__":
    try:
        main()
    finally:
        shutil.rmtree(os.environ["NUMBA_CACHE_DIR"], ignore_errors=True)
