"""The emulator's speed with the device memory at each offset from a host cache line.

    .venv/bin/python benchmarks/emulator_alignment.py [workload ...] [--reps 3]

The device's global memory starts on a host page (``device._memory``);
numpy's own allocation had started it 16 bytes into a host cache line
(32 or 48 where the allocator reused heap memory), so that each 128-byte
device line spanned three 64-byte host lines.  This runs each workload's
paper input with the memory placed 0, 16, 32 and 48 bytes past a page,
alternating in one process (this host's speed drifts between runs), and
prints the fastest emulator seconds at each offset and their ratio to the
aligned placement.  Only host addresses move: the outputs are the same
(``emulator_digest.py``).
"""
import argparse

from emulator_speed import measure

import pipeline_lib.ptx.device as device
from pipeline_lib.workloads import get

OFFSETS = (0, 16, 32, 48)


def placed(offset: int, aligned=device._memory):
    """A ``device._memory`` that starts the memory ``offset`` bytes past a
    host page: the page-aligned memory of ``aligned``, ``offset`` bytes in."""
    return lambda cap: aligned(cap + offset)[offset:offset + cap]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="*", default=["cfd", "spmv", "kmeans", "lbm"])
    ap.add_argument("--reps", type=int, default=3, help="runs per offset; the fastest counts (default 3)")
    args = ap.parse_args()
    get("reduction", "small").execute(device.Device())   # load the compiled emulator
    aligned = device._memory
    print(f"{'workload':12s}" + "".join(f"{f'+{k} B':>9s}" for k in OFFSETS) + "   (fastest emulator seconds; "
          "ratio to +0)")
    try:
        for name in args.workloads:
            best = {k: float("inf") for k in OFFSETS}
            for _ in range(args.reps):
                for k in OFFSETS:
                    device._memory = placed(k)
                    best[k] = min(best[k], measure(name, False)[2])
            print(f"{name:12s}" + "".join(f"{best[k]:9.3f}" for k in OFFSETS) + "   "
                  + " ".join(f"{best[k] / best[0]:.2f}x" for k in OFFSETS[1:]), flush=True)
    finally:
        device._memory = aligned


if __name__ == "__main__":
    main()
