"""Trace generation (rule ``trace``): wall and CPU seconds of writing a workload's trace.

    .venv/bin/python benchmarks/trace_speed.py [workload ...] [--size paper] [--reps 1] [--profile 12]

Runs :func:`pipeline_lib.trace.generate.trace_workload` on each workload
(default: the paper inputs of cfd, kmeans and spmv) into a temporary
directory, after loading the compiled emulator on a small input, and prints
per run: the wall seconds, the process's CPU seconds (all threads) and the
SHA-256 of ``warp_trace.parquet`` (its first 16 hex digits), so that two
versions of the code can be compared on speed and on their bytes.  Run it
with ``PYTHONPATH`` set to another checkout to measure that version.  With
``--profile N`` each run is also profiled (cProfile, the main thread only)
and its N functions of most own time are printed: the emulator
(``run_blocks``), Parquet's ``write_table`` where it runs in the main
thread, and the wait for the writer's thread (a lock's ``acquire``).
"""
import argparse
import cProfile
import hashlib
import pstats
import tempfile
import time
from pathlib import Path

from pipeline_lib.ptx import Device
from pipeline_lib.trace.generate import trace_workload
from pipeline_lib.workloads import get


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="*", default=["cfd", "kmeans", "spmv"])
    ap.add_argument("--size", default="paper")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="print each run's N costliest functions")
    a = ap.parse_args()
    get("reduction", "small").execute(Device())          # loads the compiled emulator
    print(f"{'workload':10s} {'wall s':>7s} {'CPU s':>7s}  warp_trace.parquet sha256")
    for name in a.workloads:
        for _ in range(a.reps):
            with tempfile.TemporaryDirectory() as d:
                prof = cProfile.Profile() if a.profile else None
                w0, c0 = time.perf_counter(), time.process_time()
                if prof:
                    prof.enable()
                trace_workload(f"{name}-{a.size}", {"benchmark": name, "size": a.size, "seed": 1, "params": {}},
                               d, progress=False)
                if prof:
                    prof.disable()
                wall, cpu = time.perf_counter() - w0, time.process_time() - c0
                digest = hashlib.sha256((Path(d) / "warp_trace.parquet").read_bytes()).hexdigest()[:16]
            print(f"{name:10s} {wall:7.1f} {cpu:7.1f}  {digest}", flush=True)
            if prof:
                pstats.Stats(prof).sort_stats("tottime").print_stats(a.profile)


if __name__ == "__main__":
    main()
