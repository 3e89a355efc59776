"""Trace tables: invariants, schema, determinism, atomic writes."""
import hashlib
import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from pipeline_lib.trace import SCHEMA_VERSION, TABLES
from pipeline_lib.trace.generate import trace_workload
from conftest import trace_specs

SPECS = {
    "bfs": {"benchmark": "bfs", "size": "small", "seed": 1, "params": {}},
    "matmul": {"benchmark": "matmul", "size": "small", "seed": 1, "params": {"m": 32, "n": 48, "k": 32}},
    "lbm": {"benchmark": "lbm", "size": "small", "seed": 1, "params": {"nx": 64, "ny": 8, "steps": 1}},
}


@pytest.fixture(scope="module")
def traced(tmp_path_factory):
    return trace_specs(tmp_path_factory, SPECS)


def _read(d, name):
    return pq.read_table(d / f"{name}.parquet")


@pytest.mark.parametrize("wl", sorted(SPECS))
def test_schema_and_metadata(traced, wl):
    for name, cols in TABLES.items():
        t = _read(traced[wl], name)
        assert t.column_names == [c for c, _, _ in cols]
        meta = t.schema.metadata
        assert meta[b"schema_version"] == SCHEMA_VERSION.encode() and meta[b"table"] == name.encode()
        assert meta[b"workload"] == wl.encode()
    # warp_trace is written for reading speed: no nullable column, LZ4 pages (docs/trace_format.md)
    wt = pq.ParquetFile(traced[wl] / "warp_trace.parquet")
    assert not any(f.nullable for f in wt.schema_arrow) and not wt.schema_arrow.field("lines").type.value_field.nullable
    md = wt.metadata
    assert {md.row_group(g).column(c).compression for g in range(md.num_row_groups)
            for c in range(md.num_columns)} == {"LZ4"}


@pytest.mark.parametrize("wl", sorted(SPECS))
def test_thread_instructions_equal_active_lanes(traced, wl):
    tr = _read(traced[wl], "warp_trace").to_pandas()
    launches = _read(traced[wl], "launches").to_pandas()
    pop = np.unpackbits(tr["mask"].to_numpy(np.uint32).view(np.uint8)).reshape(-1, 32).sum(1)
    per_launch = tr.assign(pop=pop).groupby("launch")["pop"].sum()
    np.testing.assert_array_equal(per_launch.to_numpy(), launches["thread_instrs"].to_numpy())
    np.testing.assert_array_equal(tr.groupby("launch").size().to_numpy(), launches["warp_instrs"].to_numpy())


@pytest.mark.parametrize("wl", sorted(SPECS))
def test_block_and_warp_sums_equal_launch_totals(traced, wl):
    launches = _read(traced[wl], "launches").to_pandas().set_index("launch")
    blocks = _read(traced[wl], "blocks").to_pandas().groupby("launch").sum()
    warps = _read(traced[wl], "warps").to_pandas().groupby("launch").sum()
    for col in ("thread_instrs", "warp_instrs", "mem_requests", "global_requests", "shared_instrs"):
        np.testing.assert_array_equal(blocks[col], launches[col])
    for col in ("thread_instrs", "warp_instrs", "mem_requests"):
        np.testing.assert_array_equal(warps[col], launches[col])
    assert (launches["n_blocks"].to_numpy() == _read(traced[wl], "blocks").to_pandas().groupby("launch").size()).all()


@pytest.mark.parametrize("wl", sorted(SPECS))
def test_lines_are_coalesced_requests(traced, wl):
    tr = _read(traced[wl], "warp_trace").to_pandas()
    n_lines = tr["lines"].map(len).to_numpy()
    mem = tr["space"].isin([1, 3]).to_numpy()
    np.testing.assert_array_equal(n_lines[mem], tr["nreq"].to_numpy()[mem])
    assert (n_lines[~mem] == 0).all()
    for ls in tr["lines"][mem].head(2000):
        assert (np.diff(ls) > 0).all() and (np.asarray(ls) % 128 == 0).all()
    warps = _read(traced[wl], "warps").to_pandas()
    per_warp = tr.groupby(["launch", "warp"])["nreq"].apply(lambda s: s[tr.loc[s.index, "space"].isin([1, 3])].sum())
    np.testing.assert_array_equal(per_warp.to_numpy(), warps["mem_requests"].to_numpy())


def test_records_are_ordered_by_warp(traced):
    tr = _read(traced["matmul"], "warp_trace").to_pandas()
    key = tr["launch"].to_numpy().astype(np.int64) * 2**32 + tr["warp"].to_numpy()
    assert (np.diff(key) >= 0).all()


def test_coalescing_of_a_regular_kernel(traced):
    """matmul loads a 16-float row segment per half-warp: 64 bytes, so one
    warp's load of A touches at most 2 lines."""
    ins = _read(traced["matmul"], "instructions").to_pandas()
    tr = _read(traced["matmul"], "warp_trace").to_pandas()
    loads = ins[(ins.opcode == "ld.global.f32")].pc
    nreq = tr[tr.pc.isin(loads)].nreq
    assert nreq.max() <= 2 and nreq.min() >= 1


def test_shared_bank_ways_recorded(traced):
    blocks = _read(traced["matmul"], "blocks").to_pandas()
    assert (blocks.shared_instrs > 0).all()
    assert (blocks.shared_ways >= blocks.shared_instrs).all()


def test_instructions_table_has_dependences(traced):
    ins = _read(traced["bfs"], "instructions").to_pandas()
    ld = ins[ins.opcode.str.startswith("ld.global")].iloc[0]
    assert len(ld.dst_regs) == 1 and len(ld.src_regs) >= 1 and ld.width_bytes == 4 and ld.space == "global"
    assert set(ins.opclass) <= {"int", "int_mul", "fp32", "fp64", "sfu", "load", "store", "atomic",
                                "branch", "barrier", "warp", "exit", "misc"}
    assert ins.bb.is_monotonic_increasing


def _digest(d):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.iterdir())}


def test_deterministic_bytes(traced, tmp_path):
    trace_workload("bfs", SPECS["bfs"], tmp_path, chunk_records=5000, progress=False)
    assert _digest(tmp_path) == _digest(traced["bfs"])


def test_failed_check_leaves_no_outputs(tmp_path, monkeypatch):
    from pipeline_lib.workloads import histogram

    def wrong(self, inp, out=None):
        return {"hist": np.zeros(256, np.uint32)}
    monkeypatch.setattr(histogram.Histogram, "reference", wrong)
    from pipeline_lib.workloads.base import CheckError
    with pytest.raises(CheckError):
        trace_workload("h", {"benchmark": "histogram", "size": "small", "seed": 1, "params": {}}, tmp_path,
                       progress=False)
    assert list(tmp_path.iterdir()) == []


def test_writes_are_atomic_and_clear_a_killed_attempts_debris(tmp_path):
    import pyarrow as pa
    from pipeline_lib.plots import pyplot, save
    from pipeline_lib.io import write_table, write_text

    target = tmp_path / "t.parquet"
    debris = tmp_path / ".t.parquet.tmp4242"          # what a SIGKILLed writer leaves
    debris.write_bytes(b"PAR1 half a file")
    other = tmp_path / ".u.parquet.tmp4242"           # another output's: not ours to remove
    other.write_bytes(b"x")
    write_table(pa.table({"a": [1, 2]}), target)
    assert pq.read_table(target)["a"].to_pylist() == [1, 2]
    assert not debris.exists() and other.exists()
    # a write that fails midway leaves neither the target nor its temporary
    bad = tmp_path / "bad.md"
    with pytest.raises(TypeError):
        write_text(None, bad)
    assert not bad.exists() and not list(tmp_path.glob(".bad.md.tmp*"))
    # figures too: a format matplotlib cannot write leaves nothing behind
    plt = pyplot()
    with pytest.raises(ValueError):
        save(plt.figure(), tmp_path / "f.nosuchformat")
    save(plt.figure(), tmp_path / "f.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".u.parquet.tmp4242", "f.png", "t.parquet"]
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG"


def test_check_json(traced):
    info = json.loads((traced["bfs"] / "check.json").read_text())
    assert info["check"] == "passed" and info["launches"] >= 2 and info["workload_id"] == "bfs"


def test_without_warp_trace_summaries_remain(tmp_path):
    trace_workload("bfs", SPECS["bfs"], tmp_path, warp_trace=False, progress=False)
    assert _read(tmp_path, "warp_trace").num_rows == 0
    assert _read(tmp_path, "warp_trace").column_names == [c for c, _, _ in TABLES["warp_trace"]]
    assert _read(tmp_path, "launches").to_pandas()["warp_instrs"].sum() > 0


def test_background_writer_keeps_bytes_order_and_errors(tmp_path):
    """The warp trace's writer encodes in a thread of its own: the same bytes
    as writing in line, row groups in the order given, and a failed row group
    raised to the caller with nothing left behind."""
    import pyarrow as pa
    from pipeline_lib.io import AtomicParquetWriter

    tables = [pa.table({"a": np.arange(i * 1000, (i + 1) * 1000, dtype=np.int64)}) for i in range(7)]
    for background in (False, True):
        w = AtomicParquetWriter(tmp_path / f"{background}.parquet", tables[0].schema, background=background)
        for t in tables:
            w.write(t)
        w.close()
    assert (tmp_path / "True.parquet").read_bytes() == (tmp_path / "False.parquet").read_bytes()
    f = pq.ParquetFile(tmp_path / "True.parquet")
    assert [f.read_row_group(g)["a"][0].as_py() for g in range(f.num_row_groups)] == [i * 1000 for i in range(7)]

    w = AtomicParquetWriter(tmp_path / "bad.parquet", tables[0].schema, background=True)
    w.write(tables[0])
    w.write(pa.table({"b": ["not the schema"]}))     # fails in the writer's thread
    with pytest.raises(OSError, match="bad.parquet"):
        for t in tables:                             # raised by a later write at the latest by close
            w.write(t)
        w.close()
    w.abort()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["False.parquet", "True.parquet"]


def test_failed_trace_write_leaves_no_outputs(tmp_path, monkeypatch):
    """A row group that cannot be written (in the background writer) fails
    the trace with no table, complete-looking or temporary, left."""
    calls = []
    real = pq.ParquetWriter.write_table

    def failing(self, table, *a, **k):
        calls.append(1)
        if len(calls) == 3:
            raise OSError("disk full")
        return real(self, table, *a, **k)
    monkeypatch.setattr(pq.ParquetWriter, "write_table", failing)
    with pytest.raises(OSError, match="disk full"):
        trace_workload("bfs", SPECS["bfs"], tmp_path, chunk_records=2000, progress=False)
    assert len(calls) >= 3 and list(tmp_path.iterdir()) == []


def test_emulator_runs_without_the_gil():
    """What lets the trace's encoding go on beside the emulation."""
    from pipeline_lib.ptx.emulator import run_blocks
    assert run_blocks.targetoptions.get("nogil") is True


def test_chunk_order_is_numpys_stable_sort():
    """The compiled counting sort of a chunk's records by warp gives what
    numpy's stable argsort and fancy indexing gave, lines and lane addresses
    moved with their records."""
    from pipeline_lib.ptx import isa
    from pipeline_lib.ptx.device import _make_chunk

    rng = np.random.default_rng(3)
    n = 5000
    warp = (rng.integers(0, 40, n) + 96).astype(np.int32)
    space = rng.choice(np.array([0, isa.SP_GLOBAL, isa.SP_SHARED, isa.SP_LOCAL], np.int8), n)
    nreq = rng.integers(0, 5, n).astype(np.int16)
    mask = rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    has = (space == isa.SP_GLOBAL) | (space == isa.SP_LOCAL)
    lines = rng.integers(0, 1 << 40, int(nreq[has].sum()), dtype=np.int64)
    lanes = np.where(space != 0, np.bitwise_count(mask), 0).astype(np.int64)
    addrs = rng.integers(0, 1 << 40, int(lanes.sum()), dtype=np.int64)
    c = _make_chunk(warp, np.arange(n, dtype=np.int32), mask, space, nreq, lines, addrs)
    order = np.argsort(warp, kind="stable")
    assert np.array_equal(c.warp, warp[order]) and np.array_equal(c.pc, order.astype(np.int32))
    assert np.array_equal(c.mask, mask[order]) and np.array_equal(c.space, space[order])
    assert np.array_equal(c.nreq, nreq[order]) and c.warp.dtype == np.int32 and c.nreq.dtype == np.int16
    for counts, values, off, got in ((np.where(has, nreq, 0), lines, c.line_offsets, c.lines),
                                     (lanes, addrs, c.addr_offsets, c.addrs)):
        starts = np.concatenate([[0], np.cumsum(counts)])
        want = [values[starts[i]:starts[i + 1]] for i in order]
        assert np.array_equal(off, np.concatenate([[0], np.cumsum([len(x) for x in want])]))
        assert np.array_equal(got, np.concatenate(want))
