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
        for g in range(md.num_row_groups):
            st = md.row_group(g).column(0).statistics
            if st is None or not st.has_min_max or st.min != st.max:
                raise TraceError(f"{self.path / 'warp_trace.parquet'}: row group {g} does not hold exactly one launch")
            self._groups.setdefault(int(st.min), []).append(g)
        total = int(self.launches["warp_instrs"].sum())
        self._rows = {int(r["launch"]): r for r in self.launches.to_dict("records")}
        caching = cache_limit_bytes > 0 and self.decoded_bytes() <= cache_limit_bytes
        self._cache: dict[int, LaunchTrace] | None = {} if caching else None
        self._blocks_by_launch: dict[int, pd.DataFrame] | None = None
        if md.num_rows != total:
            raise TraceError(f"{self.path / 'warp_trace.parquet'}: {md.num_rows} rows but launches.parquet counts "
                             f"{total} warp instructions (written without trace.warp_trace?)")

    def decoded_bytes(self) -> int:
        """Bytes of every launch's :class:`LaunchTrace`: 19 per warp
        instruction (pc, space, nreq, lanes, line offset) and 8 per line."""
        md = self._pf.metadata
        paths = [md.schema.column(i).path for i in range(md.num_columns)]
        col = paths.index("lines.list.element")
        n_lines = sum(md.row_group(g).column(col).num_values for g in range(md.num_row_groups))
        return 19 * md.num_rows + 8 * n_lines

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

    def launch_tables(self, launch: int, columns: list[str]) -> list[pa.Table]:
        """The ``warp_trace`` rows of one launch as read (one table per row
        group, in order), with only ``columns``."""
        return [self._pf.read_row_group(g, columns=columns) for g in self._groups.get(int(launch), [])]

    def _decode(self, launch: int) -> LaunchTrace:
        # One copy per array: the row groups' columns are concatenated in
        # their stored types (which are LaunchTrace's), so no astype copies
        # follow; the concatenation also makes them writable, as the
        # compiled engine's signatures expect.
        row = self._rows[int(launch)]
        tables = self.launch_tables(launch, ["warp", "pc", "mask", "space", "nreq", "lines"])
        cols = {"warp": [], "pc": [], "mask": [], "space": [], "nreq": [], "off": [], "lines": []}
        base = 0
        for t in tables:
            for c in ("warp", "pc", "mask", "space", "nreq"):
                cols[c].extend(ch.to_numpy() for ch in t.column(c).chunks)
            for lst in t.column("lines").chunks:
                off = lst.offsets.to_numpy()
                cols["off"].append(off[:-1].astype(np.int64) - off[0] + base)
                cols["lines"].append(lst.values.to_numpy()[off[0]:off[-1]])
                base += int(off[-1] - off[0])
        dtypes = {"warp": np.int32, "pc": np.int32, "mask": np.uint32, "space": np.int8, "nreq": np.int16,
                  "off": np.int64, "lines": np.int64}
        cat = {k: np.concatenate(v, dtype=dtypes[k]) if v else np.zeros(0, dtypes[k]) for k, v in cols.items()}
        n_warps = int(row["n_blocks"]) * int(row["warps_per_block"])
        warp = cat["warp"]
        if len(warp) != int(row["warp_instrs"]) or (len(warp) > 1 and np.any(warp[1:] < warp[:-1])):
            raise TraceError(f"{self.path / 'warp_trace.parquet'}: launch {launch}: rows missing or not ordered by warp")
        return LaunchTrace(
            pc=cat["pc"], space=cat["space"], nreq=cat["nreq"],
            nthreads=np.bitwise_count(cat["mask"]).astype(np.int32),
            line_off=np.append(cat["off"], np.int64(base)), lines=cat["lines"],
            warp_off=np.searchsorted(warp, np.arange(n_warps + 1, dtype=np.int32)).astype(np.int64))
