"""Trace sinks: receive launches and instruction chunks from the emulator.

:class:`ParquetTraceSink` writes the five trace tables of one workload
(schema in :mod:`pipeline_lib.trace.schema`); :class:`MemorySink` keeps them
in memory (tests, interactive use).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from ..ptx import isa
from ..stats import cov
from ..ptx.device import LaunchInfo, TraceChunk
from . import schema
from ..io import AtomicParquetWriter, write_table


def _launch_row(info: LaunchInfo) -> dict:
    bs = info.block_stats
    return {
        "launch": info.launch_index, "kernel": info.kernel,
        "grid_x": info.grid[0], "grid_y": info.grid[1], "grid_z": info.grid[2],
        "block_x": info.block[0], "block_y": info.block[1], "block_z": info.block[2],
        "n_blocks": info.n_blocks, "threads_per_block": int(np.prod(info.block)),
        "warps_per_block": info.warps_per_block, "regs_per_thread": info.regs_per_thread,
        "shared_bytes": info.shared_bytes, "local_bytes": info.local_bytes,
        "thread_instrs": int(bs[:, 0].sum()), "warp_instrs": int(bs[:, 1].sum()),
        "mem_requests": int(bs[:, 2].sum() + bs[:, 3].sum()),
        "global_requests": int(bs[:, 2].sum()), "local_requests": int(bs[:, 3].sum()),
        "shared_instrs": int(bs[:, 4].sum()), "tb_size_cov": cov(bs[:, 0]),
    }


def _block_columns(info: LaunchInfo) -> dict:
    bs = info.block_stats
    n = len(bs)
    ids = np.arange(n, dtype=np.int32)
    gx, gy, _ = info.grid
    return {
        "launch": np.full(n, info.launch_index, np.int32), "block": ids,
        "block_x": (ids % gx).astype(np.int32), "block_y": ((ids // gx) % gy).astype(np.int32),
        "block_z": (ids // (gx * gy)).astype(np.int32), "threads": bs[:, 6].astype(np.int32),
        "thread_instrs": bs[:, 0], "warp_instrs": bs[:, 1], "global_requests": bs[:, 2],
        "local_requests": bs[:, 3], "mem_requests": bs[:, 2] + bs[:, 3],
        "shared_instrs": bs[:, 4], "shared_ways": bs[:, 5],
    }


def _warp_columns(info: LaunchInfo) -> dict:
    ws = info.warp_stats
    n = len(ws)
    nw = info.warps_per_block
    ids = np.arange(n, dtype=np.int32)
    return {
        "launch": np.full(n, info.launch_index, np.int32), "block": (ids // nw).astype(np.int32),
        "warp_in_block": (ids % nw).astype(np.int16), "warp": ids,
        "warp_instrs": ws[:, 0], "thread_instrs": ws[:, 1], "mem_requests": ws[:, 2],
    }


def instruction_rows(dk) -> dict:
    """Static per-PC table of a decoded kernel."""
    code = dk.code
    rows = {k: [] for k, _, _ in schema.INSTRUCTIONS}
    for pc in range(dk.n_instr):
        r = code[pc]
        text = dk.texts[pc].strip()
        op_text = text.split()[0] if not text.startswith("@") else text.split()[1]
        dst = [int(r[isa.F_D0 + k]) for k in range(int(r[isa.F_ND]))]
        src = [int(r[isa.F_SV0 + 2 * k]) for k in range(int(r[isa.F_NS]))
               if r[isa.F_SK0 + 2 * k] in (isa.K_REG, isa.K_NREG)]
        if r[isa.F_ABASE] >= 0:
            src.append(int(r[isa.F_ABASE]))
        if r[isa.F_GUARD] >= 0:
            src.append(int(r[isa.F_GUARD]))
        is_mem = r[isa.F_OP] in (isa.OP_LD, isa.OP_ST, isa.OP_ATOM, isa.OP_RED)
        rows["kernel"].append(dk.name)
        rows["pc"].append(pc)
        rows["bb"].append(int(r[isa.F_BB]))
        rows["opcode"].append(op_text)
        rows["opclass"].append(isa.OPCLASSES[int(r[isa.F_OPCLASS])])
        rows["space"].append(isa.SPACES[int(r[isa.F_SPACE])])
        rows["width_bytes"].append(int((r[isa.F_TYPE] & 15) * r[isa.F_VEC]) if is_mem else 0)
        rows["dst_regs"].append(dst)
        rows["src_regs"].append(sorted(set(src)))
        rows["line"].append(int(r[isa.F_LINE]))
        rows["text"].append(text)
    return rows


def _table(name: str, cols: dict, metadata: dict | None = None) -> pa.Table:
    sch = schema.arrow_schema(name, metadata)
    arrays = [pa.array(cols[f.name], type=f.type) for f in sch]
    return pa.Table.from_arrays(arrays, schema=sch)


def chunk_table(launch: int, chunk: TraceChunk, metadata: dict | None = None) -> pa.Table:
    n = len(chunk.pc)
    # int32 offsets suffice: a chunk holds at most chunk_records x 32 lines
    lines = pa.ListArray.from_arrays(pa.array(chunk.line_offsets, pa.int32()), pa.array(chunk.lines, pa.int64()))
    lanes = chunk.addrs is not None
    sch = schema.arrow_schema("warp_trace", metadata, lane_addresses=lanes)
    arrays = [pa.array(np.full(n, launch, np.int32)), pa.array(chunk.warp), pa.array(chunk.pc),
              pa.array(chunk.mask), pa.array(chunk.space), pa.array(chunk.nreq), lines]
    if lanes:
        arrays.append(pa.ListArray.from_arrays(pa.array(chunk.addr_offsets, pa.int32()),
                                               pa.array(chunk.addrs, pa.int64())))
    return pa.Table.from_arrays(arrays, schema=sch)


class MemorySink:
    """Keeps launch infos and trace chunks in memory."""

    def __init__(self):
        self.launches: list[LaunchInfo] = []
        self.chunks: list[tuple[int, TraceChunk]] = []

    def begin_launch(self, info):
        pass

    def add_chunk(self, info, chunk):
        self.chunks.append((info.launch_index, chunk))

    def end_launch(self, info):
        self.launches.append(info)


class ParquetTraceSink:
    """Writes launches, blocks, warps, instructions and warp_trace Parquet
    files into ``out_dir``.  Nothing appears under the final names until
    :meth:`close` succeeds; :meth:`abort` removes partial files."""

    FILES = ("launches", "blocks", "warps", "instructions", "warp_trace")

    def __init__(self, out_dir, metadata: dict | None = None, warp_trace: bool = True,
                 lane_addresses: bool = False):
        self.dir = Path(out_dir)
        self.meta = dict(metadata or {})
        self.launch_rows: list[dict] = []
        self.block_cols: list[dict] = []
        self.warp_cols: list[dict] = []
        self.kernels: dict = {}
        self.trace_on = warp_trace
        self.lane_addresses = lane_addresses
        # the warp trace's row groups are encoded beside the emulation (background), which runs without the GIL
        self.writer = AtomicParquetWriter(self.dir / "warp_trace.parquet",
                                          schema.arrow_schema("warp_trace", self.meta, lane_addresses),
                                          background=True,
                                          compression=schema.WARP_TRACE_COMPRESSION) if warp_trace else None

    def begin_launch(self, info):
        pass

    def add_chunk(self, info, chunk):
        if self.writer is not None:
            self.writer.write(chunk_table(info.launch_index, chunk, self.meta))

    def end_launch(self, info):
        self.launch_rows.append(_launch_row(info))
        self.block_cols.append(_block_columns(info))
        self.warp_cols.append(_warp_columns(info))
        self.kernels.setdefault(info.kernel, info.kernel_code)

    @staticmethod
    def _concat(parts: list[dict], spec) -> dict:
        return {k: (np.concatenate([p[k] for p in parts]) if parts else np.zeros(0)) for k, _, _ in spec}

    def close(self):
        if self.writer is not None:     # a failed row group stops here, before any other table is written
            self.writer.flush()
        lrows = {k: [r[k] for r in self.launch_rows] for k, _, _ in schema.LAUNCHES}
        write_table(_table("launches", lrows, self.meta), self.dir / "launches.parquet")
        write_table(_table("blocks", self._concat(self.block_cols, schema.BLOCKS), self.meta),
                    self.dir / "blocks.parquet")
        write_table(_table("warps", self._concat(self.warp_cols, schema.WARPS), self.meta),
                    self.dir / "warps.parquet")
        irows = {k: [] for k, _, _ in schema.INSTRUCTIONS}
        for name in sorted(self.kernels):
            for k, v in instruction_rows(self.kernels[name]).items():
                irows[k].extend(v)
        write_table(_table("instructions", irows, self.meta), self.dir / "instructions.parquet")
        if self.writer is not None:
            self.writer.close()
        else:  # keep the declared output: an empty table with the schema
            write_table(pa.Table.from_pylist([], schema=schema.arrow_schema("warp_trace", self.meta,
                                                                            self.lane_addresses)),
                        self.dir / "warp_trace.parquet", compression=schema.WARP_TRACE_COMPRESSION)

    def abort(self):
        if self.writer is not None:
            self.writer.abort()
