"""Versioned schema of the trace tables (documented in docs/trace_format.md).

Every table is a Parquet file under ``results/traces/{wl}/``; the column
descriptions below are also stored in each file's metadata.
"""
import pyarrow as pa

#: 1.1: warp_trace's columns are declared non-null and its pages LZ4-compressed (the values as in 1.0,
#: which the readers also take)
SCHEMA_VERSION = "1.1"

LAUNCHES = [
    ("launch", pa.int32(), "launch index within the workload (execution order)"),
    ("kernel", pa.string(), "kernel (PTX entry) name"),
    ("grid_x", pa.int32(), "grid shape, blocks"), ("grid_y", pa.int32(), ""), ("grid_z", pa.int32(), ""),
    ("block_x", pa.int32(), "block shape, threads"), ("block_y", pa.int32(), ""), ("block_z", pa.int32(), ""),
    ("n_blocks", pa.int32(), "thread blocks in the launch"),
    ("threads_per_block", pa.int32(), "threads per block"),
    ("warps_per_block", pa.int32(), "warps per block (32 threads each)"),
    ("regs_per_thread", pa.int32(), "registers per thread from ptxas -v (occupancy input)"),
    ("shared_bytes", pa.int32(), "shared memory per block, bytes (static + dynamic)"),
    ("local_bytes", pa.int32(), "local memory per thread, bytes"),
    ("thread_instrs", pa.int64(), "thread instructions (sum of executing lanes)"),
    ("warp_instrs", pa.int64(), "warp instructions"),
    ("mem_requests", pa.int64(), "global + local memory requests (128-byte lines per warp instruction)"),
    ("global_requests", pa.int64(), "global memory requests"),
    ("local_requests", pa.int64(), "local memory requests"),
    ("shared_instrs", pa.int64(), "shared-memory warp instructions"),
    ("tb_size_cov", pa.float64(), "coefficient of variation of thread-block sizes (thread instructions per block; seed eq. 6)"),
]

BLOCKS = [
    ("launch", pa.int32(), "launch index"),
    ("block", pa.int32(), "linear block id (x fastest); also the dispatch order"),
    ("block_x", pa.int32(), "block index"), ("block_y", pa.int32(), ""), ("block_z", pa.int32(), ""),
    ("threads", pa.int32(), "threads in the block"),
    ("thread_instrs", pa.int64(), "thread instructions"),
    ("warp_instrs", pa.int64(), "warp instructions"),
    ("global_requests", pa.int64(), "global memory requests"),
    ("local_requests", pa.int64(), "local memory requests"),
    ("mem_requests", pa.int64(), "global + local memory requests (TBPoint's stall-probability numerator, eq. 9)"),
    ("shared_instrs", pa.int64(), "shared-memory warp instructions"),
    ("shared_ways", pa.int64(), "sum over shared instructions of bank-conflict degree (1 = conflict free)"),
]

WARPS = [
    ("launch", pa.int32(), "launch index"),
    ("block", pa.int32(), "linear block id"),
    ("warp_in_block", pa.int16(), "warp index inside its block"),
    ("warp", pa.int32(), "launch-wide warp id = block * warps_per_block + warp_in_block"),
    ("warp_instrs", pa.int64(), "warp instructions"),
    ("thread_instrs", pa.int64(), "thread instructions"),
    ("mem_requests", pa.int64(), "global + local memory requests"),
]

INSTRUCTIONS = [
    ("kernel", pa.string(), "kernel name"),
    ("pc", pa.int32(), "instruction index in the kernel (the PC of the traces)"),
    ("bb", pa.int32(), "basic block id (CFG leaders: entry, branch targets, after branches/exits)"),
    ("opcode", pa.string(), "PTX opcode with modifiers, e.g. ld.global.nc.f32"),
    ("opclass", pa.string(), "operation class: int, int_mul, fp32, fp64, sfu, load, store, atomic, branch, barrier, warp, exit, misc"),
    ("space", pa.string(), "memory space: none, global, shared, local, const, param, generic"),
    ("width_bytes", pa.int16(), "bytes accessed per thread (type size x vector length); 0 if not memory"),
    ("dst_regs", pa.list_(pa.int32()), "destination register ids"),
    ("src_regs", pa.list_(pa.int32()), "source register ids (operands, address base, guard predicate)"),
    ("line", pa.int32(), "PTX source line"),
    ("text", pa.string(), "PTX statement"),
]

WARP_TRACE = [
    ("launch", pa.int32(), "launch index"),
    ("warp", pa.int32(), "launch-wide warp id; rows are ordered by (launch, warp, time)"),
    ("pc", pa.int32(), "instruction index, join with instructions on (kernel, pc)"),
    ("mask", pa.uint32(), "lanes that executed (bit i = lane i); for branches, the active lanes"),
    ("space", pa.int8(), "resolved memory space code: 0 none, 1 global, 2 shared, 3 local, 4 const, 5 param, 6 mixed generic"),
    ("nreq", pa.int16(), "global/local: number of 128-byte lines (= len(lines)); shared: bank-conflict degree; const: distinct addresses"),
    ("lines", pa.list_(pa.field("element", pa.int64(), nullable=False)),
     "coalesced 128-byte line addresses, ascending (global and local accesses)"),
]

#: the optional column of ``warp_trace`` (``trace.lane_addresses``): off, the table keeps its size
LANE_ADDRS = ("lane_addrs", pa.list_(pa.field("element", pa.int64(), nullable=False)),
              "memory instructions: each executing lane's address, lanes ascending (global as is; shared and "
              "local in their windows, local interleaved per warp as the lines; const/param: offset in the bank)")

TABLES = {"launches": LAUNCHES, "blocks": BLOCKS, "warps": WARPS,
          "instructions": INSTRUCTIONS, "warp_trace": WARP_TRACE}

#: warp_trace, the table a simulation reads whole (and a sweep at every point), is written for reading
#: speed: no null in any column (Parquet then stores no definition levels, which took a quarter of the
#: reading of a list column) and LZ4 pages, which decompress faster than zstd's for files about a fifth
#: larger (docs/trace_format.md)
WARP_TRACE_COMPRESSION = "lz4_raw"


def arrow_schema(name: str, extra_metadata: dict | None = None, lane_addresses: bool = False) -> pa.Schema:
    cols = TABLES[name] + ([LANE_ADDRS] if lane_addresses and name == "warp_trace" else [])
    fields = [pa.field(n, t, nullable=name != "warp_trace", metadata={"description": d} if d else None)
              for n, t, d in cols]
    meta = {"table": name, "schema_version": SCHEMA_VERSION, "stage": "trace"}
    meta.update(extra_metadata or {})
    return pa.schema(fields, metadata={k: str(v) for k, v in meta.items()})
