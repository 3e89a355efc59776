"""Emulator A/B: the working tree's emulator against a git revision's, in one process.

    .venv/bin/python benchmarks/emulator_ab.py REV [workload ...] [--reps 4] [--size paper]

This machine's speed drifts by up to 40% between runs of one command, which
hides changes of 10-20% when two versions run in separate processes
minutes apart.  Here both versions are loaded side by side -- REV's
``pipeline_lib`` and ``workloads/`` are extracted with ``git archive`` into
a temporary directory and imported as ``pipeline_lib_ab`` (the emulator
and the workloads import each other relatively) -- and each workload's
input runs alternately on the old and the new emulator.  Prints, per
workload, the fastest emulator seconds of each and the median of the paired
old/new ratios.  The first run compiles REV's emulator (about a minute).
"""
import argparse
import importlib
import io
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from emulator_speed import timed_run

ROOT = Path(__file__).resolve().parents[1]
NAME = "pipeline_lib_ab"


def extract(rev: str, into: Path) -> None:
    """REV's pipeline_lib (renamed NAME) and workloads/ under ``into``."""
    tar = subprocess.run(["git", "archive", rev, "pipeline_lib", "workloads"], cwd=ROOT, capture_output=True)
    if tar.returncode:
        sys.exit(f"git archive {rev}: {tar.stderr.decode().strip()}")
    with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as t:
        t.extractall(into, filter="data")
    (into / "pipeline_lib").rename(into / NAME)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="git revision to compare the working tree with")
    ap.add_argument("workloads", nargs="*", default=["matmul", "kmeans", "lbm", "cfd", "spmv", "sssp"])
    ap.add_argument("--reps", type=int, default=4, help="alternating runs per version")
    ap.add_argument("--size", default="paper")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        extract(args.rev, Path(tmp))
        sys.path.insert(0, tmp)
        versions = {}
        for label, pkg in (("old", NAME), ("new", "pipeline_lib")):
            ptx, wl = importlib.import_module(pkg + ".ptx"), importlib.import_module(pkg + ".workloads")
            timed_run(ptx, wl, "reduction", "small")      # compile or load the compiled emulator
            versions[label] = (ptx, wl)
        print(f"{'workload':10s} {'old s':>7s} {'new s':>7s} {'fastest':>8s} {'paired':>7s}   "
              f"({args.rev} -> working tree, {args.size}, fastest of {args.reps})")
        for name in args.workloads:
            runs = {"old": [], "new": []}
            for _ in range(args.reps):
                for label, (ptx, wl) in versions.items():
                    runs[label].append(timed_run(ptx, wl, name, args.size)[0])
            old, new = min(runs["old"]), min(runs["new"])
            paired = statistics.median(o / n for o, n in zip(runs["old"], runs["new"]))
            print(f"{name:10s} {old:7.2f} {new:7.2f} {old / new:7.2f}x {paired:6.2f}x", flush=True)


if __name__ == "__main__":
    main()
