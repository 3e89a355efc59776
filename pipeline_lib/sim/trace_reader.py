"""Reading a workload's trace directory for timing simulation."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq


class TraceError(ValueError):
    """A trace directory that cannot be simulated; the message names the file."""


@dataclass
class LaunchTrace:
    """The dynamic trace of one launch as flat arrays (rows ordered by warp, time)."""
    pc: np.ndarray          # int32
    space: np.ndarray       # int8
    nreq: np.ndarray        # int16
    nthreads: np.ndarray    # int32, executing lanes per row
    line_off: np.ndarray    # int64, n + 1
    lines: np.ndarray       # int64 byte addresses of 128-byte lines
    warp_off: np.ndarray    # int64, first row of each launch-wide warp (n_warps + 1)


#: rows per record batch when a launch is decoded: batches of a few MB are
#: reused by the Parquet reader's allocator, where a row group's columns
#: (tens of MB) went back to the system and were faulted in again at the
#: next one; 2^16 rows (about 2 MB of lines) read faster than 2^18, 2^15 or
#: 2^14 inside a simulation (docs/simulator.md, Speed)
DECODE_BATCH_ROWS = 1 << 16
_DECODE_COLUMNS = ["warp", "pc", "mask", "space", "nreq", "lines"]
_FIELDS = ("pc", "space", "nreq", "nthreads", "line_off", "lines", "warp_off")


class TraceDir:
    """A trace directory written by rule ``trace`` (docs/trace_format.md).

    Parameters
    ----------
    path : path-like
        The trace directory.
    cache_limit_bytes : int
        Keep the decoded per-launch arrays in memory for later calls of
        :meth:`launch_trace` when they take at most this many bytes (0:
        never).  A sweep job simulates one trace at many hardware points,
        and decoding the Parquet rows again at each point took most of the
        host time of workloads with hundreds of small launches; the bound
        keeps paper-size traces out of memory.
    """

    def __init__(self, path, cache_limit_bytes: int = 0):
        self.path = Path(path)
        for name in ("launches", "blocks", "instructions", "warp_trace"):
            if not (self.path / f"{name}.parquet").exists():
                raise TraceError(f"{self.path / (name + '.parquet')}: missing (run rule trace first)")
        self.launches = pd.read_parquet(self.path / "launches.parquet")
        self.blocks = pd.read_parquet(self.path / "blocks.parquet")
        self.instructions = pd.read_parquet(self.path / "instructions.parquet")
        self._pf = pq.ParquetFile(self.path / "warp_trace.parquet")
        self.metadata = {k.decode(): v.decode() for k, v in (self._pf.schema_arrow.metadata or {}).items()}
        self.warp_trace_columns = tuple(self._pf.schema_arrow.names)
        self._groups: dict[int, list[int]] = {}
        md = self._pf.metadata
        self._lines_leaf = [md.schema.column(i).path for i in range(md.num_columns)].index("lines.list.element")
        for g in range(md.num_row_groups):
            st = md.row_group(g).column(0).statistics
            if st is None or not st.has_min_max or st.min != st.max:
                raise TraceError(f"{self.path / 'warp_trace.parquet'}: row group {g} does not hold exactly one launch")
            self._groups.setdefault(int(st.min), []).append(g)
        total = int(self.launches["warp_instrs"].sum())
        self._rows = {int(r["launch"]): r for r in self.launches.to_dict("records")}
        caching = cache_limit_bytes > 0 and self.decoded_bytes() <= cache_limit_bytes
        self._cache: dict[int, LaunchTrace] | None = {} if caching else None
        #: what its users derive from the trace alone (no hardware), kept for
        #: the later simulations of this opened trace (a sweep batch's points)
        self.derived: dict = {}
        self._blocks_by_launch: dict[int, pd.DataFrame] | None = None
        self._spare: dict[str, np.ndarray] = {}     # arrays of a released launch, decoded into next
        if md.num_rows != total:
            raise TraceError(f"{self.path / 'warp_trace.parquet'}: {md.num_rows} rows but launches.parquet counts "
                             f"{total} warp instructions (written without trace.warp_trace?)")

    def decoded_bytes(self) -> int:
        """Bytes of every launch's :class:`LaunchTrace` at most: 19 per warp
        instruction (pc, space, nreq, lanes, line offset) and 8 per line."""
        return 19 * self._pf.metadata.num_rows + 8 * self._line_bound(range(self._pf.metadata.num_row_groups))

    def _line_bound(self, groups) -> int:
        """The lines of the given row groups at most (their ``lines``
        leaf's value count, which also counts each empty list once)."""
        md = self._pf.metadata
        return sum(md.row_group(g).column(self._lines_leaf).num_values for g in groups)

    def blocks_by_launch(self) -> dict[int, pd.DataFrame]:
        """The ``blocks`` rows of every launch, ordered by block id (computed once)."""
        if self._blocks_by_launch is None:
            self._blocks_by_launch = {int(k): g.sort_values("block") for k, g in self.blocks.groupby("launch")}
        return self._blocks_by_launch

    def launch_trace(self, launch: int) -> LaunchTrace:
        """The decoded dynamic trace of one launch (callers must not modify it)."""
        if self._cache is not None and launch in self._cache:
            return self._cache[launch]
        lt = self._decode(launch)
        if self._cache is not None:
            self._cache[launch] = lt
        return lt

    def release(self, lt: LaunchTrace) -> None:
        """Hand back a launch's trace that the caller will not read again:
        the next launch is decoded into its arrays (unless the trace's
        launches are cached, when it stays as it is).  A simulation
        releases each launch's when the launch ends; decoding into memory
        already touched saved a paper input's launches the first touch of
        fresh memory at every launch (docs/simulator.md, Speed).  The
        opened trace holds the arrays until its next decoding."""
        if self._cache is None:
            arrays = {f: getattr(lt, f) for f in _FIELDS}
            self._spare = {f: a if a.base is None else a.base for f, a in arrays.items()}

    def _array(self, field: str, n: int, dtype) -> np.ndarray:
        """A fresh array of ``n`` items for ``field``, or a released one's first ``n``."""
        a = self._spare.pop(field, None)
        if a is not None and a.dtype == dtype and a.ndim == 1 and a.size >= n:
            return a[:n]
        return np.empty(n, dtype)

    def launch_tables(self, launch: int, columns: list[str]) -> list[pa.Table]:
        """The ``warp_trace`` rows of one launch as read (tables of at most
        :data:`DECODE_BATCH_ROWS` rows, in order), with only ``columns``."""
        return list(self.iter_launch_tables(launch, columns))

    def iter_launch_tables(self, launch: int, columns: list[str]):
        """:meth:`launch_tables`, one table at a time."""
        groups = self._groups.get(int(launch), [])
        if groups:
            for b in self._pf.iter_batches(batch_size=DECODE_BATCH_ROWS, row_groups=groups, columns=columns,
                                           use_threads=False):
                yield pa.Table.from_batches([b])

    def _rows_error(self, launch: int) -> TraceError:
        return TraceError(f"{self.path / 'warp_trace.parquet'}: launch {launch}: rows missing or not ordered by warp")

    def _decode(self, launch: int) -> LaunchTrace:
        # Row group by row group into arrays allocated once at their final
        # size: holding every row group's columns, concatenating them and
        # appending the last line offset had made five copies of a launch
        # (several GB for a paper input's launch of 80 M warp instructions),
        # and on a virtual machine the first touch of fresh memory made that
        # most of a simulation's host time (matmul's paper input: 7-17 s of
        # decoding against 8 s of simulation).
        row = self._rows[int(launch)]
        n = int(row["warp_instrs"])
        n_warps = int(row["n_blocks"]) * int(row["warps_per_block"])
        groups = self._groups.get(int(launch), [])
        pc, space = self._array("pc", n, np.int32), self._array("space", n, np.int8)
        nreq = self._array("nreq", n, np.int16)
        nthreads, line_off = self._array("nthreads", n, np.int32), self._array("line_off", n + 1, np.int64)
        warp_off = self._array("warp_off", n_warps + 1, np.int64)
        lines = self._array("lines", self._line_bound(groups), np.int64)
        self._spare = {}
        r = base = 0
        next_warp = 0          # the lowest warp id whose first row is not known yet
        last = None            # the previous row's warp
        for t in self.iter_launch_tables(launch, _DECODE_COLUMNS):
            for b in t.to_batches():          # record batches: the columns' chunks aligned
                k = b.num_rows
                if k == 0:
                    continue
                if r + k > n:
                    raise self._rows_error(launch)
                w = b.column("warp").to_numpy()
                if (last is not None and w[0] < last) or (k > 1 and np.any(w[1:] < w[:-1])):
                    raise self._rows_error(launch)
                # the warp ids from next_warp to this batch's last have their first row here:
                # np.searchsorted on this batch's warps gives it, as on the whole launch's
                hi = min(int(w[-1]), n_warps)
                if hi >= next_warp:
                    ids = np.arange(next_warp, hi + 1, dtype=w.dtype)   # w.dtype: no cast of w
                    warp_off[next_warp:hi + 1] = r + np.searchsorted(w, ids)
                    next_warp = hi + 1
                last = w[-1]
                pc[r:r + k] = b.column("pc").to_numpy()
                space[r:r + k] = b.column("space").to_numpy()
                nreq[r:r + k] = b.column("nreq").to_numpy()
                np.bitwise_count(b.column("mask").to_numpy(), out=nthreads[r:r + k], casting="unsafe")
                lst = b.column("lines")
                off = lst.offsets.to_numpy()
                seg = line_off[r:r + k]
                seg[:] = off[:-1]
                seg -= int(off[0]) - base
                m = int(off[-1] - off[0])
                if base + m > len(lines):       # (rows beyond the row groups' count: only a reader fed other rows)
                    raise self._rows_error(launch)
                lines[base:base + m] = lst.values.to_numpy()[off[0]:off[-1]]
                base += m
                r += k
        if r != n:
            raise self._rows_error(launch)
        line_off[n] = base
        warp_off[next_warp:] = n
        return LaunchTrace(pc=pc, space=space, nreq=nreq, nthreads=nthreads, line_off=line_off,
                           lines=lines[:base], warp_off=warp_off)
