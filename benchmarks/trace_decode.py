"""Trace decoding A/B: the working tree's trace reader against a git revision's, each run in a fresh process.

    .venv/bin/python benchmarks/trace_decode.py REV trace_dir [trace_dir ...] [--reps 2]

Decodes every launch of each trace (``TraceDir.launch_trace``, as a
simulation does before it runs a launch) with REV's ``pipeline_lib.sim.
trace_reader`` and the working tree's, alternating, each run in a process
of its own: most of a large launch's decoding is the first touch of fresh
memory, which a process that has decoded before would not pay again.
Each launch's arrays are handed back when decoded (``TraceDir.release``,
as a simulation does at a launch's end) by a reader that has that method.
Prints, per trace, each run's seconds, and whether the two versions'
arrays are equal launch by launch (checked once, in one process).
"""
import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from emulator_ab import NAME, extract

ROOT = Path(__file__).resolve().parents[1]
FIELDS = ("pc", "space", "nreq", "nthreads", "line_off", "lines", "warp_off")

#: one run: decode every launch of a trace with the named package's reader
RUN = """
import sys, time, importlib
reader = importlib.import_module(sys.argv[1] + ".sim.trace_reader")
tr = reader.TraceDir(sys.argv[2])
t0 = time.perf_counter()
for lid in tr.launches["launch"]:
    lt = tr.launch_trace(int(lid))
    if hasattr(tr, "release"):     # handed back as a simulation does (readers that have it)
        tr.release(lt)
    del lt
print(time.perf_counter() - t0)
"""

#: the check: both readers' arrays, launch by launch
SAME = """
import sys, importlib
import numpy as np
old, new = (importlib.import_module(p + ".sim.trace_reader").TraceDir(sys.argv[3]) for p in sys.argv[1:3])
for lid in new.launches["launch"]:
    a, b = old.launch_trace(int(lid)), new.launch_trace(int(lid))
    for f in %r:
        x, y = getattr(a, f), getattr(b, f)
        if x.dtype != y.dtype or not np.array_equal(x, y):
            print(f"launch {lid} {f}"); sys.exit(0)
print("yes")
""" % (FIELDS,)


def run(code: str, *args: str, path: str) -> str:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": path}, cwd=ROOT)
    if out.returncode:
        sys.exit(f"trace_decode: {out.stderr.strip()[-2000:]}")
    return out.stdout.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="git revision to compare the working tree with")
    ap.add_argument("traces", nargs="+", type=Path)
    ap.add_argument("--reps", type=int, default=2, help="alternating runs per version")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        extract(args.rev, Path(tmp))
        path = f"{ROOT}:{tmp}"
        print(f"{'trace':14s} {'old s':>18s} {'new s':>18s}  same   ({args.rev} -> working tree, "
              f"{args.reps} runs each)")
        for trace in args.traces:
            times = {"old": [], "new": []}
            for _ in range(args.reps):
                for label, pkg in (("old", NAME), ("new", "pipeline_lib")):
                    times[label].append(float(run(RUN, pkg, str(trace), path=path)))
            same = run(SAME, NAME, "pipeline_lib", str(trace), path=path)
            cells = [" ".join(f"{t:.2f}" for t in times[k]) for k in ("old", "new")]
            print(f"{trace.name:14s} {cells[0]:>18s} {cells[1]:>18s}  {same}", flush=True)


if __name__ == "__main__":
    main()
