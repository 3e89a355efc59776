"""Digests of everything the emulator produces, to show a change keeps its outputs.

    .venv/bin/python benchmarks/emulator_digest.py [workload ...] [--sizes small,medium] [--lanes]

Runs each benchmark (default: all 31) at each size on the working tree's
emulator and prints one SHA-256 (16 hex digits) per workload and size over
its trace records (warp, pc, mask, space, requests, lines; with ``--lanes``
the executing lanes' addresses too), every launch's block and warp
statistics, and the device memory at the end (the kernels' results).  Run
it on two revisions and compare the lines: a speed change must leave every
digest as it was.  About 3 minutes for the 31 benchmarks at both sizes on
the 2-core development machine.
"""
import argparse
import hashlib

import numpy as np

from pipeline_lib.ptx import Device
from pipeline_lib.trace import MemorySink
from pipeline_lib.workloads import REGISTRY, get

TRACE_FIELDS = ("warp", "pc", "mask", "space", "nreq", "line_offsets", "lines")


def digest(name: str, size: str, lanes: bool) -> str:
    sink = MemorySink()
    dev = Device(sink=sink, lane_addresses=lanes)
    get(name, size).execute(dev)
    h = hashlib.sha256()
    for launch, chunk in sink.chunks:
        h.update(np.int64(launch).tobytes())
        for f in TRACE_FIELDS + (("addr_offsets", "addrs") if lanes else ()):
            h.update(np.ascontiguousarray(getattr(chunk, f)).tobytes())
    for info in sink.launches:
        h.update(np.ascontiguousarray(info.block_stats).tobytes())
        h.update(np.ascontiguousarray(info.warp_stats).tobytes())
    h.update(dev.mem.tobytes())
    return h.hexdigest()[:16]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="*", default=sorted(REGISTRY))
    ap.add_argument("--sizes", default="small,medium")
    ap.add_argument("--lanes", action="store_true", help="record and digest the lane addresses too")
    args = ap.parse_args()
    for size in args.sizes.split(","):
        for name in args.workloads:
            print(f"{name:14s} {size:7s} {digest(name, size, args.lanes)}", flush=True)


if __name__ == "__main__":
    main()
