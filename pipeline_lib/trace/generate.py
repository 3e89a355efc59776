"""Trace one workload: run its driver on the emulator, check the result
against the reference, write the trace tables (or nothing, on failure)."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from .. import __version__
from ..versions import EMULATOR_VERSION
from ..ptx import Device
from ..workloads import get
from ..io import write_json
from .schema import SCHEMA_VERSION
from .sink import ParquetTraceSink


def trace_workload(wl: str, spec: dict, out_dir, *, warp_trace: bool = True,
                   instr_limit: int = 2_000_000_000, chunk_records: int = 4_000_000,
                   progress: bool = True, lane_addresses: bool = False) -> dict:
    """Trace workload ``wl`` described by ``spec`` (benchmark, size, seed,
    params) into ``out_dir``; with ``lane_addresses`` the warp trace also
    holds each memory instruction's lane addresses.  Returns the check summary."""
    out_dir = Path(out_dir)
    meta = {"workload": wl, "benchmark": spec["benchmark"], "size": spec["size"],
            "seed": spec["seed"], "params": json.dumps(spec.get("params", {}), sort_keys=True),
            "emulator_version": EMULATOR_VERSION, "trace_schema_version": SCHEMA_VERSION,
            "library_version": __version__}
    sink = ParquetTraceSink(out_dir, meta, warp_trace=warp_trace, lane_addresses=lane_addresses and warp_trace)
    dev = Device(instr_limit=instr_limit, sink=sink, chunk_records=chunk_records, progress=progress,
                 lane_addresses=lane_addresses)
    driver = get(spec["benchmark"], spec["size"], spec["seed"], **spec.get("params", {}))
    t0 = time.perf_counter()
    try:
        summary = driver.execute(dev)
        sink.close()
    except BaseException:
        sink.abort()
        raise
    if progress:
        print(f"{wl}: {summary['launches']} launches, reference check passed, "
              f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)
    summary = {**summary, "workload_id": wl, "params": driver.params}
    write_json(summary, out_dir / "check.json")
    return summary
