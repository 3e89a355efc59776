"""Parquet tables of a detailed simulation (documented in docs/simulator.md).

Written per workload and hardware configuration under
``results/sim/{wl}/{hw}/``, deterministically and atomically by
:mod:`pipeline_lib.io`.
"""
from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from ..io import BOOL, F64, I32, I64, STR, write_frame

SIM_SCHEMA_VERSION = "1.0"

LAUNCHES = [
    ("launch", I32, "launch index"), ("kernel", STR, "kernel name"),
    ("start_cycle", I64, "GPU cycle the launch began (launches run back to back)"),
    ("end_cycle", I64, "cycle its last block retired"), ("cycles", I64, "end_cycle - start_cycle"),
    ("warp_instrs", I64, "simulated warp instructions"), ("thread_instrs", I64, "simulated thread instructions"),
    ("ipc", F64, "warp_instrs / cycles, summed over SMs (seed Fig. 11 caption)"),
    ("blocks", I32, "thread blocks of the launch"),
    ("skipped_blocks", I32, "blocks fast-forwarded by a sampling policy (0 in full simulation)"),
    ("skipped_warp_instrs", I64, "warp instructions of the skipped blocks"),
    ("skipped_thread_instrs", I64, "thread instructions of the skipped blocks"),
    ("sm_occupancy", I32, "resident blocks per SM"), ("system_occupancy", I32, "resident blocks in the GPU (seed 3.2.1)"),
    ("occupancy_limiter", STR, "resource that bounds the SM occupancy"),
    ("l1_accesses", I64, "L1 load accesses (128-byte lines of global/local loads)"),
    ("l1_misses", I64, "L1 load misses (each took an MSHR)"), ("l1_miss_rate", F64, "l1_misses / l1_accesses"),
    ("l1_mshr_merges", I64, "load accesses merged into a pending miss of the same line (counted as hits)"),
    ("l2_accesses", I64, "L2 accesses: L1 load misses, stores and atomics, per line"),
    ("l2_misses", I64, ""), ("l2_miss_rate", F64, "l2_misses / l2_accesses"),
    ("dram_reads", I64, "128-byte DRAM reads (L2 fills)"), ("dram_writes", I64, "DRAM writes (dirty L2 evictions)"),
    ("dram_bandwidth_gbs", F64, "achieved DRAM bandwidth, GB/s (10^9 B/s)"),
    ("avg_load_latency", F64, "mean cycles from issue of a global/local load to its data"),
    ("mshr_stall_cycles", I64, "cycles load/store units waited for a free MSHR, summed over SMs"),
]
SMS = [("launch", I32, ""), ("sm", I32, ""), ("warp_instrs", I64, "warp instructions issued by the SM"),
       ("blocks", I32, "blocks the SM ran"), ("ipc", F64, "warp_instrs / launch cycles")]
BLOCKS = [
    ("launch", I32, ""), ("block", I32, "linear block id (dispatch order)"),
    ("sm", I32, "SM that ran it (-1 if skipped)"), ("dispatch_cycle", I64, ""),
    ("retire_cycle", I64, "cycle after its last warp's last instruction issued"),
    ("issued_at_dispatch", I64, "GPU-wide warp instructions issued when it was dispatched"),
    ("issued_at_retire", I64, "... when it retired (unit IPC of seed 3.4.4 = difference / lifetime)"),
    ("skipped", BOOL, "fast-forwarded by a sampling policy"), ("warp_instrs", I64, "warp instructions of the block"),
]
PCS = [("kernel", STR, ""), ("pc", I32, ""), ("loads", I64, "global/local load instructions issued"),
       ("l1_accesses", I64, ""), ("l1_misses", I64, ""), ("l2_accesses", I64, "from this PC's L1 misses"),
       ("l2_misses", I64, ""), ("l1_miss_rate", F64, ""), ("l2_miss_rate", F64, ""),
       ("avg_latency", F64, "mean load latency, cycles")]
UNITS = [
    ("unit", I32, "sampling unit index, in issue order"), ("start_cycle", I64, ""), ("end_cycle", I64, ""),
    ("cycles", I64, ""), ("warp_instrs", I64, "unit size (the last unit may be shorter)"), ("ipc", F64, ""),
    ("last_launch", I32, "launch in which the unit ended"),
    ("l1_accesses", I64, "L1 load accesses in the unit"), ("l1_misses", I64, ""),
    ("l2_accesses", I64, "L2 accesses (loads, stores, atomics) in the unit"), ("l2_misses", I64, ""),
    ("bbv_ids", pa.list_(I32), "global basic-block ids with non-zero counts (kernels in name order, blocks ascending)"),
    ("bbv_counts", pa.list_(I64), "warp instructions executed in each of those basic blocks"),
]


def activity_columns() -> list:
    from .simulator import ACTIVITY
    return [("launch", I32, ""), ("cycles", I64, "")] + [(name, I64, "events") for _, name in ACTIVITY] + [
        ("sm_active_cycles", I64, "cycles summed over SMs in which the SM held a block of the launch")]


def write_sim_table(df, cols, table: str, out, meta: dict) -> None:
    """A table of the simulation stage (``meta`` may name another stage)."""
    write_frame(df, cols, table, out, stage=meta.get("stage", "simulate"), schema_version=SIM_SCHEMA_VERSION,
                meta={k: v for k, v in meta.items() if k != "stage"})


def write_result(result, out_dir, meta: dict) -> None:
    out = Path(out_dir)
    for name, cols in (("launches", LAUNCHES), ("sms", SMS), ("blocks", BLOCKS), ("pcs", PCS), ("units", UNITS),
                       ("activity", activity_columns())):
        write_sim_table(getattr(result, name), cols, name, out / f"{name}.parquet", meta)
