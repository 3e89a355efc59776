"""Emulator speed: warp instructions per second on paper-size inputs.

    .venv/bin/python benchmarks/emulator_speed.py [workload ...] [--trace]

Runs each workload's paper input once (the first launch also pays the
numba cache load, so the JIT is warmed on a small input first), sums the
emulator's own time over all launches (host-side driver and reference time
excluded) and prints warp instructions per second (CPU time of one core).
With --trace the per-warp trace is collected in memory too.
"""
import argparse
import time

from pipeline_lib.ptx import Device
from pipeline_lib.trace import MemorySink
from pipeline_lib.workloads import get


class _Counter:
    def __init__(self):
        self.seconds = 0.0
        self.warp_instrs = 0


def measure(name: str, trace: bool) -> tuple[float, int, float]:
    sink = MemorySink() if trace else None
    dev = Device(sink=sink)
    infos = []
    orig = dev.launch

    def launch(*a, **k):
        info = orig(*a, **k)
        infos.append((info.seconds, int(info.block_stats[:, 1].sum())))
        return info

    dev.launch = launch
    get(name, "paper").execute(dev)
    secs = sum(s for s, _ in infos)
    instrs = sum(n for _, n in infos)
    return instrs / secs, instrs, secs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="*", default=["sssp", "mst", "spmv", "kmeans", "lbm", "cfd"])
    ap.add_argument("--trace", action="store_true", help="also collect the per-warp trace in memory")
    args = ap.parse_args()
    get("reduction", "small").execute(Device())  # load the compiled emulator
    for name in args.workloads:
        t0 = time.perf_counter()
        rate, n, secs = measure(name, args.trace)
        print(f"{name:14s} paper: {n / 1e6:8.1f} M warp instructions in {secs:6.2f} s emulator time "
              f"-> {rate / 1e6:5.1f} M warp instr/s{' (tracing)' if args.trace else ''} "
              f"[{time.perf_counter() - t0:.0f} s with inputs and reference]", flush=True)


if __name__ == "__main__":
    main()
