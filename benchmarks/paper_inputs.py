"""Run every benchmark's paper input (no per-warp trace) and print its scale
and run time: launches, thread blocks, warp instructions, emulator seconds
and total seconds (inputs, launches and reference check).

    .venv/bin/python benchmarks/paper_inputs.py [benchmark ...]
"""
import argparse
import time

from pipeline_lib.ptx import Device
from pipeline_lib.workloads import REGISTRY, get


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("benchmarks", nargs="*", default=sorted(REGISTRY))
    args = ap.parse_args()
    get("reduction", "small").execute(Device())  # load the compiled emulator
    print(f"{'benchmark':14s} {'launches':>8s} {'blocks':>8s} {'M warp instr':>12s} {'emu s':>7s} {'total s':>8s}")
    for name in args.benchmarks:
        dev = Device()
        stats = []
        orig = dev.launch

        def launch(*a, **k):
            info = orig(*a, **k)
            stats.append((info.n_blocks, int(info.block_stats[:, 1].sum()), info.seconds))
            return info
        dev.launch = launch
        t0 = time.perf_counter()
        get(name, "paper").execute(dev)
        total = time.perf_counter() - t0
        print(f"{name:14s} {len(stats):8d} {sum(s[0] for s in stats):8d} {sum(s[1] for s in stats) / 1e6:12.1f} "
              f"{sum(s[2] for s in stats):7.1f} {total:8.1f}", flush=True)


if __name__ == "__main__":
    main()
