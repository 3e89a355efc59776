"""The detailed simulator's tables, determinism, sampled-simulation interface
and power model, on small traced workloads."""
import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from pipeline_lib.sim import load_hardware
from pipeline_lib.sim import engine as E
from pipeline_lib.sim.power import ENERGY_PJ, power_table, voltage
from pipeline_lib.sim.run import power_workload, simulate_points, simulate_workload
from pipeline_lib.sim.sampling import SamplingPolicy, SkipBlocksPolicy, run_sampled
from pipeline_lib.sim.simulator import Simulator, sm_active_cycles
from pipeline_lib.sim.trace_reader import TraceDir, TraceError
from pipeline_lib.trace.generate import trace_workload
from conftest import trace_specs

SPECS = {
    "lbm": {"benchmark": "lbm", "size": "small", "seed": 1, "params": {"nx": 512, "ny": 16, "steps": 2}},
    "bfs": {"benchmark": "bfs", "size": "small", "seed": 1, "params": {}},
    "hotspot": {"benchmark": "hotspot", "size": "small", "seed": 1, "params": {}},
}


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    return trace_specs(tmp_path_factory, SPECS, chunk_records=3000)


@pytest.fixture(scope="module")
def hw():
    return load_hardware("gpumech-baseline")


def _digest(d):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(d.glob("*")) if p.is_file()}


@pytest.mark.parametrize("wl", sorted(SPECS))
def test_outputs_are_byte_identical_across_runs(traces, hw, wl, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    simulate_workload(wl, traces[wl], hw, a, unit_warp_instrs=5000, progress_s=0)
    simulate_workload(wl, traces[wl], hw, b, unit_warp_instrs=5000, progress_s=0)
    da, db = _digest(a), _digest(b)
    # host seconds live in their own file, the one output allowed to differ
    assert json.loads((a / "host_time.json").read_text())["simulation_s"] > 0
    da.pop("host_time.json"), db.pop("host_time.json")
    assert len(da) == 7 and da == db


def test_a_batch_sharing_decoded_launches_writes_what_single_runs_write(traces, hw, tmp_path):
    """A sweep batch reuses one trace's decoded launches at every point (the
    engine must not change them): each point's files equal a run on its own."""
    small = dict(hw, name="two-sm", cores=2, core_clock_mhz=500)
    assert TraceDir(traces["bfs"], cache_limit_bytes=1 << 30)._cache is not None
    points = [{"hw": h, "hw_power": h, "out_dir": tmp_path / "batch" / h["name"]} for h in (hw, small, hw)]
    points[2]["out_dir"] = tmp_path / "batch" / "again"
    simulate_points("bfs", traces["bfs"], points, unit_warp_instrs=5000, progress_s=0)
    for pt in points:
        alone = tmp_path / "alone" / pt["out_dir"].name
        simulate_workload("bfs", traces["bfs"], pt["hw"], alone, unit_warp_instrs=5000, progress_s=0)
        power_workload("bfs", alone / "activity.parquet", pt["hw_power"], pt["hw"]["name"], alone / "power.parquet")
        da, db = _digest(pt["out_dir"]), _digest(alone)
        da.pop("host_time.json"), db.pop("host_time.json")
        assert len(da) == 8 and da == db
    assert _digest(points[0]["out_dir"])["launches.parquet"] != _digest(points[1]["out_dir"])["launches.parquet"]


@pytest.mark.parametrize("wl", sorted(SPECS))
def test_tables_are_consistent_with_the_trace(traces, hw, wl):
    tr = TraceDir(traces[wl])
    res = Simulator(hw, tr, unit_warp_instrs=2000, min_units=1).run()
    L = res.launches
    assert L["warp_instrs"].tolist() == tr.launches["warp_instrs"].tolist()
    assert L["thread_instrs"].tolist() == tr.launches["thread_instrs"].tolist()
    # launches run back to back
    assert (L["start_cycle"].iloc[1:].to_numpy() == L["end_cycle"].iloc[:-1].to_numpy()).all()
    # per SM and per block figures add up
    assert res.sms.groupby("launch")["warp_instrs"].sum().tolist() == L["warp_instrs"].tolist()
    B = res.blocks
    assert (B["retire_cycle"] > B["dispatch_cycle"]).all() and (B["sm"] >= 0).all()
    assert (B["issued_at_retire"] >= B["issued_at_dispatch"] + B["warp_instrs"]).all()
    per_launch = B.groupby("launch").agg(first=("dispatch_cycle", "min"), last=("retire_cycle", "max"))
    assert per_launch["first"].tolist() == L["start_cycle"].tolist()
    assert per_launch["last"].tolist() == L["end_cycle"].tolist()
    # no SM holds more blocks at once than the occupancy allows
    for lid, g in B.groupby("launch"):
        occ = int(L.loc[L["launch"] == lid, "sm_occupancy"].iloc[0])
        for _, s in g.groupby("sm"):
            ev = sorted([(t, 1) for t in s["dispatch_cycle"]] + [(t, -1) for t in s["retire_cycle"]],
                        key=lambda e: (e[0], e[1]))
            assert max(np.cumsum([e[1] for e in ev])) <= occ
    # blocks are dispatched in id order
    for _, g in B.groupby("launch"):
        assert g["dispatch_cycle"].is_monotonic_increasing
    # units: fixed size but the last, their BBVs count their instructions
    U = res.units
    assert U["warp_instrs"].sum() == L["warp_instrs"].sum()
    assert (U["warp_instrs"].iloc[:-1] == 2000).all()
    assert all(int(np.sum(c)) == n for c, n in zip(U["bbv_counts"], U["warp_instrs"]))
    assert U["end_cycle"].iloc[-1] == L["end_cycle"].iloc[-1]
    # per-PC counts add up to the launch totals
    assert res.pcs["l1_accesses"].sum() == L["l1_accesses"].sum()
    assert res.pcs["l1_misses"].sum() == L["l1_misses"].sum()


def test_units_shrink_for_small_workloads(traces, hw):
    tr = TraceDir(traces["lbm"])
    total = int(tr.launches["warp_instrs"].sum())
    sim = Simulator(hw, tr, unit_warp_instrs=1_000_000, min_units=20)
    assert sim.unit == max(1000, -(-total // 20)) < 1_000_000


@pytest.mark.parametrize("wl", ["lbm", "bfs"])
def test_units_partition_instructions_cycles_and_cache_traffic(traces, hw, wl):
    res = Simulator(hw, TraceDir(traces[wl]), unit_warp_instrs=1000, min_units=1).run()
    u, L = res.units, res.launches
    assert len(u) > 3
    for col in ["warp_instrs", "l1_accesses", "l1_misses", "l2_accesses", "l2_misses"]:
        assert u[col].sum() == L[col].sum(), col
    assert u["cycles"].sum() == res.info["total_cycles"]
    assert (u["l1_misses"] <= u["l1_accesses"]).all() and (u["l2_misses"] <= u["l2_accesses"]).all()


def test_watching_blocks_does_not_change_full_simulation(traces, hw):
    tr = TraceDir(traces["hotspot"])
    full = Simulator(hw, tr).run().launches
    watched = Simulator(hw, tr).run(SkipBlocksPolicy(keep=10 ** 9)).launches
    pd.testing.assert_frame_equal(full, watched)


def test_skipping_blocks_fast_forwards_and_predicts(traces, hw):
    """lbm's blocks are alike: on a 2-SM GPU (a launch is several waves of
    blocks) simulating half of each launch and predicting the rest with the
    measured IPC stays close to the full simulation."""
    tr = TraceDir(traces["lbm"])
    small = {**hw, "cores": 2}
    full = Simulator(small, tr).run().launches
    keep = int(tr.launches["n_blocks"].iloc[0]) // 2
    assert keep >= 3 * int(full["system_occupancy"].iloc[0])
    rows = run_sampled(Simulator(small, tr), SkipBlocksPolicy(keep=keep))
    assert (rows["simulated_warp_instrs"] < rows["total_warp_instrs"]).all()
    assert (rows["simulated_warp_instrs"] + rows["skipped_warp_instrs"] == rows["total_warp_instrs"]).all()
    err = abs(rows["predicted_cycles"].sum() - full["cycles"].sum()) / full["cycles"].sum()
    assert err < 0.15


def test_policy_can_skip_launches(traces, hw):
    tr = TraceDir(traces["bfs"])

    class EveryOther(SamplingPolicy):
        def select_launch(self, launch):
            return launch["launch"] % 2 == 0

        def predict(self, launch, row):
            return 1000.0 if row is None else row["cycles"]

    rows = run_sampled(Simulator(hw, tr), EveryOther())
    assert rows["simulated"].tolist() == [i % 2 == 0 for i in range(len(rows))]
    assert (rows.loc[~rows["simulated"], "predicted_cycles"] == 1000.0).all()
    assert (rows.loc[~rows["simulated"], "skipped_warp_instrs"] == rows.loc[~rows["simulated"], "total_warp_instrs"]).all()


def test_skip_rejects_dispatched_blocks(traces, hw):
    tr = TraceDir(traces["lbm"])

    class Late(SamplingPolicy):
        watch_blocks = True

        def blocks_retired(self, control, blocks):
            control.skip([0])

    with pytest.raises(ValueError, match="not yet dispatched"):
        Simulator(hw, tr).run(Late())


def test_power_scales_with_voltage_squared(hw):
    act = pd.DataFrame({"launch": [0], "cycles": [1000], "instrs_fp32": [500], "reg_reads": [1000],
                        "sm_active_cycles": [16000]})
    base = {"core_clock_mhz": 1000, "vf_table": hw["vf_table"]}
    hi = {"core_clock_mhz": 1400, "vf_table": hw["vf_table"]}
    p0, p1 = power_table(act, base).iloc[0], power_table(act, hi).iloc[0]
    v0, v1 = voltage(base), voltage(hi)
    assert v1 > v0
    assert p1["energy_j"] / p0["energy_j"] == pytest.approx((v1 / v0) ** 2)
    # the same cycles at a higher clock take less time: power ~ V^2 f
    assert p1["dynamic_power_w"] / p0["dynamic_power_w"] == pytest.approx((v1 / v0) ** 2 * 1.4)
    over = power_table(act, {**base, "energy_pj": {"reg_reads": 0.0}}).iloc[0]
    assert over["energy_j"] < p0["energy_j"]
    # an SM that holds a block pays for its clock whether or not it issues
    assert p0["sm_active_cycles_j"] == pytest.approx(16000 * ENERGY_PJ["sm_active_cycles"] * 1e-12 * v0 ** 2)


def test_dram_energy_is_on_its_own_supply(hw):
    """The DRAM's events do not scale with the core's voltage; the core's do."""
    act = pd.DataFrame({"launch": [0], "cycles": [1000], "dram_reads": [10], "dram_writes": [4],
                        "row_activations": [3], "l2_accesses": [20]})
    lo, hi = ({"core_clock_mhz": f, "vf_table": hw["vf_table"]} for f in (600, 1400))
    p0, p1 = power_table(act, lo).iloc[0], power_table(act, hi).iloc[0]
    for e in ("dram_reads", "dram_writes", "row_activations"):
        assert p1[f"{e}_j"] == p0[f"{e}_j"] == act[e][0] * ENERGY_PJ[e] * 1e-12
    assert p1["l2_accesses_j"] / p0["l2_accesses_j"] == pytest.approx((voltage(hi) / voltage(lo)) ** 2)


def test_sm_active_cycles_is_the_union_of_block_residencies():
    bo = np.full((5, E.BO_N), -1, np.int64)
    # SM 0: blocks over [0, 10) and [5, 20), then [30, 35): 20 + 5 cycles
    # SM 1: [0, 8); a skipped block on no SM does not count
    for i, (sm, d, r, skip) in enumerate([(0, 0, 10, 0), (1, 0, 8, 0), (0, 5, 20, 0), (0, 30, 35, 0),
                                           (-1, 3, 3, 1)]):
        bo[i, E.BO_SM], bo[i, E.BO_DISPATCH], bo[i, E.BO_RETIRE], bo[i, E.BO_SKIPPED] = sm, d, r, skip
    assert sm_active_cycles(bo) == 25 + 8
    assert sm_active_cycles(bo[4:]) == 0


def test_trace_without_warp_trace_is_rejected(tmp_path):
    trace_workload("red", {"benchmark": "reduction", "size": "small", "seed": 1,
                           "params": {"elements": 4096, "blocks": 2}}, tmp_path, warp_trace=False, progress=False)
    with pytest.raises(TraceError, match="warp_trace.parquet"):
        TraceDir(tmp_path)
    (tmp_path / "instructions.parquet").unlink()
    with pytest.raises(TraceError, match="instructions.parquet: missing"):
        TraceDir(tmp_path)


def test_decoding_a_launch_checks_its_rows(traces, monkeypatch):
    import pyarrow as pa

    from pipeline_lib.sim import trace_reader
    monkeypatch.setattr(trace_reader, "DECODE_BATCH_ROWS", 3000)    # a launch in several batches
    tr = TraceDir(traces["lbm"])
    lt = tr.launch_trace(0)
    n = int(tr.launches.set_index("launch").loc[0, "warp_instrs"])
    assert len(lt.pc) == n and lt.line_off[-1] == len(lt.lines) and lt.warp_off[-1] == n
    assert all(a.flags.writeable for a in (lt.pc, lt.space, lt.nreq, lt.lines, lt.line_off, lt.warp_off))
    stored = tr.iter_launch_tables
    read = lambda launch, cols: list(stored(launch, cols))  # noqa: E731  (the stored row groups, unpatched)
    tables = read(0, ["warp", "pc", "mask", "space", "nreq", "lines"])
    assert len(tables) > 1                                  # several batches: decoded one by one
    # the arrays as the whole launch's rows, read at once, give them
    whole = pa.concat_tables(tables)
    warp = whole.column("warp").to_numpy()
    lines = whole.column("lines").combine_chunks()
    assert np.array_equal(lt.pc, whole.column("pc").to_numpy())
    assert np.array_equal(lt.nthreads, np.bitwise_count(whole.column("mask").to_numpy()))
    assert np.array_equal(lt.line_off, lines.offsets.to_numpy() - lines.offsets.to_numpy()[0])
    assert np.array_equal(lt.lines, lines.flatten().to_numpy())
    n_warps = len(lt.warp_off) - 1
    assert np.array_equal(lt.warp_off, np.searchsorted(warp, np.arange(n_warps + 1)))
    # row groups split in the middle of a warp, and chunks of several rows, decode the same
    rows = pa.Table.from_batches(whole.to_batches(max_chunksize=777))
    cuts = [0, 5, 6, 1000, 4097, rows.num_rows]
    tr.iter_launch_tables = lambda launch, cols: iter([rows.slice(a, b - a).select(cols) for a, b in zip(cuts, cuts[1:])])
    again = tr._decode(0)
    for f in ("pc", "space", "nreq", "nthreads", "line_off", "lines", "warp_off"):
        assert np.array_equal(getattr(again, f), getattr(lt, f)), f
    # and columns chunked unlike each other
    def rechunk(col, size):
        col = col.combine_chunks()
        return pa.chunked_array([col.slice(i, size) for i in range(0, len(col), size)], type=col.type)
    ragged = pa.table({c: rechunk(whole.column(c), 100 if c == "warp" else 333) for c in whole.column_names})
    tr.iter_launch_tables = lambda launch, cols: iter([ragged.select(cols)])
    again = tr._decode(0)
    for f in ("pc", "space", "nreq", "nthreads", "line_off", "lines", "warp_off"):
        assert np.array_equal(getattr(again, f), getattr(lt, f)), f
    tr.iter_launch_tables = lambda launch, cols: iter(
        [t.take(pa.array(np.arange(t.num_rows)[::-1])) for t in read(launch, cols)])
    with pytest.raises(TraceError, match="launch 0: rows missing or not ordered by warp"):
        tr._decode(0)
    tr.iter_launch_tables = lambda launch, cols: iter(read(launch, cols)[::-1])     # row groups out of order
    with pytest.raises(TraceError, match="launch 0: rows missing or not ordered by warp"):
        tr._decode(0)
    tr.iter_launch_tables = lambda launch, cols: iter([t.slice(0, t.num_rows - 1) for t in read(launch, cols)])
    with pytest.raises(TraceError, match="launch 0: rows missing"):
        tr._decode(0)
    last_row = lambda cols: read(0, cols)[-1].slice(read(0, cols)[-1].num_rows - 1)  # noqa: E731
    tr.iter_launch_tables = lambda launch, cols: iter(                         # two rows too many, in order
        read(launch, cols) + [pa.concat_tables([last_row(cols)] * 2).combine_chunks()])
    with pytest.raises(TraceError, match="launch 0: rows missing"):
        tr._decode(0)


def test_released_launch_arrays_are_decoded_into(traces):
    tr = TraceDir(traces["bfs"])
    fields = ("pc", "space", "nreq", "nthreads", "line_off", "lines", "warp_off")
    fresh = {int(lid): TraceDir(traces["bfs"]).launch_trace(int(lid)) for lid in tr.launches["launch"]}
    assert len(fresh) > 2
    largest = max(fresh, key=lambda lid: len(fresh[lid].pc))
    first = tr.launch_trace(largest)
    tr.release(first)
    for lid in [x for x in fresh if x != largest] + [largest]:
        lt = tr.launch_trace(lid)
        for f in fields:
            assert np.array_equal(getattr(lt, f), getattr(fresh[lid], f)), (lid, f)
        # the released launch's memory holds every launch of no more rows
        assert all(np.shares_memory(getattr(lt, f), getattr(first, f)) for f in ("pc", "nthreads", "line_off"))
        tr.release(lt)
    again = tr.launch_trace(largest)
    other = tr.launch_trace(largest)        # nothing released since: fresh arrays
    assert np.shares_memory(again.pc, first.pc) and not np.shares_memory(other.pc, again.pc)
    # the arrays of a trace whose launches are cached are never reused
    cached = TraceDir(traces["bfs"], cache_limit_bytes=1 << 30)
    a = cached.launch_trace(largest)
    kept = a.pc.copy()
    cached.release(a)
    b = cached.launch_trace(min(fresh))
    assert not np.shares_memory(a.pc, b.pc) and np.array_equal(a.pc, kept)
    assert cached.launch_trace(largest) is a


def test_policy_that_skips_launches_must_predict_them(traces, hw):
    class NoPredict(SamplingPolicy):
        def select_launch(self, launch):
            return launch["launch"] != 0

    with pytest.raises(TypeError, match="NoPredict skips launch 0"):
        run_sampled(Simulator(hw, TraceDir(traces["bfs"])), NoPredict())


def test_resource_calendar_serves_requests_by_arrival_not_booking_order():
    """A request booked for a later arrival (a load/store unit waiting for an
    MSHR) must not delay an earlier arrival booked after it; with a single
    busy-until time it did (the second request would start at 102)."""
    from pipeline_lib.sim import engine as E
    cal = np.zeros((1, E.CAL_WIDTH), np.int64)
    assert E._book(cal, 0, 100, 2, 0) == 100
    assert E._book(cal, 0, 10, 2, 0) == 10
    assert E._book(cal, 0, 99, 2, 0) == 102        # overlaps the first: after it
    assert E._book(cal, 0, 11, 2, 0) == 12
    # against first fit on a set of busy cycles, random arrivals in any order
    rng = np.random.default_rng(0)
    for _ in range(50):
        cal = np.zeros((1, E.CAL_WIDTH), np.int64)
        busy, now = set(), 0
        for _ in range(200):
            now += int(rng.integers(0, 3))
            a, n = now + int(rng.integers(0, 60)), int(rng.integers(1, 6))
            x = a
            while any(x + j in busy for j in range(n)):
                x += 1
            assert E._book(cal, 0, a, n, now) == x
            busy |= set(range(x, x + n))


def test_calendar_as_bits_books_what_the_interval_calendar_books():
    """A calendar held as bits (engine.book_bits: the L2 slices' and DRAM
    channels') must give the interval calendar's start for every booking:
    arrivals in any order, at the current cycle and beyond the ring (where
    it keeps intervals until they end within it again), after pauses of the
    clock, in sparse rows (kept as intervals) and in rows that overflow,
    whose smallest gap merges (the first of equal ones).  The slices and the
    channels book through engine.book_ring, whose case (the word before
    now's cleared, the run in the arrival's word) must leave the row as the
    call does, for bookings of one cycle up to longer than a word of the
    ring."""
    rng = np.random.default_rng(1)
    modes, full = set(), 0
    for trial in range(200):
        ref = np.zeros((1, E.CAL_WIDTH), np.int64)
        bits = np.zeros((1, E.RING_WIDTH), np.int64)
        ring = np.zeros((1, E.RING_WIDTH), np.int64)
        now = int(rng.integers(0, 100_000))
        spread = int(rng.choice([1, 20, 200, 2000, 6000, 20_000]))
        nmax = int(rng.choice([1, 2, 3, 6, 40, 70]))
        for k in range(1500):
            now += int(rng.integers(0, 4)) if rng.random() < 0.999 else int(rng.integers(1, 20_000))  # a pause
            a = now if rng.random() < 0.25 else now + int(rng.integers(0, spread))
            n = int(rng.integers(1, nmax + 1))
            start = E._book(ref, 0, a, n, now)
            assert E.book_bits(bits, 0, a, n, now) == start, (trial, k)
            assert E.book_ring(ring, 0, a, n, now) == start and np.array_equal(ring, bits), (trial, k)
            full += ref[0, 0] == E.CAL_INTERVALS
            if bits[0, E.RING_MODE] == 0:    # its count of runs bounds them from above
                assert bits[0, 0] >= E._ring_runs(bits.copy(), 0, now), (trial, k)
            modes.add(int(bits[0, E.RING_MODE]))
    assert modes == {0, 1} and full > 1000      # both forms and full rows (merges) were exercised
    # a 33rd interval: the first of the two smallest gaps (4 cycles, around the new one) is lost
    for book, width in ((E._book, E.CAL_WIDTH), (E.book_bits, E.RING_WIDTH)):
        cal = np.zeros((1, width), np.int64)
        for k in range(E.CAL_INTERVALS):
            book(cal, 0, 10 * k, 1, 0)
        assert book(cal, 0, 305, 1, 0) == 305
        assert book(cal, 0, 301, 1, 0) == 306 and book(cal, 0, 307, 1, 0) == 307
    # a run that ends at the ring's last cycle is a run of its own, whatever the word that holds the
    # cycles a ring earlier (the current one) has at the cycle after it
    bits = np.zeros((1, E.RING_WIDTH), np.int64)
    limit = E.RING_WORDS * 64
    assert E.book_bits(bits, 0, 0, 1, 0) == 0 and E.book_bits(bits, 0, limit - 1, 1, 0) == limit - 1
    assert bits[0, 0] == E._ring_runs(bits.copy(), 0, 0) == 2


def test_ring_count_counts_the_runs_the_listing_finds():
    """engine._ring_count, which book_bits asks when its bound on a row's
    runs passes the row's size, must count the runs _ring_runs lists (up to
    the listing's stop at CAL_INTERVALS + 2): runs across a word's end are
    one run, the run at now counts from now, and words after the latest
    end are not read.  Rows of random density, with runs that cross words,
    and now anywhere in the ring."""
    rng = np.random.default_rng(5)
    crossed = 0
    for trial in range(3000):
        row = np.zeros((1, E.RING_WIDTH), np.int64)
        now = int(rng.integers(0, 1 << 20))
        end = now + int(rng.integers(0, E.RING_WORDS * 64 - (now & 63)))
        density = rng.choice([0.02, 0.2, 0.5, 0.9, 0.99])
        first = now >> 6 << 6
        busy = np.zeros(E.RING_WORDS * 64, bool)     # cycle first + i
        c = now - 5          # (cycles before now: the word's bits below now are not read)
        while c < end:      # runs and gaps of random lengths, so that some cross a word's end
            length = int(rng.geometric(1 - density if rng.random() < 0.5 else density))
            if rng.random() < density:
                busy[max(c, first) - first:min(c + length, end) - first] = True
            c += length
        words = np.packbits(busy, bitorder="little").view(np.int64)   # bit i: cycle i
        for k in range(E.RING_WORDS):
            row[0, E.RING0 + (((now >> 6) + k) & (E.RING_WORDS - 1))] = words[k]
        row[0, E.RING_END] = end
        crossed += int(any(busy[64 * k + 63] and busy[64 * k + 64] for k in range(E.RING_WORDS - 1)))
        assert min(E._ring_count(row, 0, now), E.CAL_INTERVALS + 2) == E._ring_runs(row.copy(), 0, now), trial
    assert crossed > 500


def test_batched_tries_do_what_single_tries_did():
    """The round-robin scheduler tries the ready slots that its unit masks
    show waiting for a busy unit in one batch (docs/simulator.md, Speed):
    _blocked_slots must name exactly the slots whose unit is busy,
    _wait_for_units must give each failed slot the cycle its own unit
    frees (and leave the others), and _first_at_min must keep the earlier
    (mn, mw) on a tie and otherwise pick the first slot at the batch's
    smallest ready cycle, as the tries one by one in ascending order did.
    Random rows of 64 slots (bit 63 included), with many ties."""
    rng = np.random.default_rng(11)
    n, s, base = 64, 1, 64 * 1
    bits = 1 << np.arange(n, dtype=np.uint64)

    def mask(slots) -> np.int64:        # bit j for each slot j given (an index array or booleans)
        return np.uint64(bits[slots].sum()).astype(np.int64)

    ties = 0
    for trial in range(2000):
        SM = np.zeros((3, E.SM_READY + n), np.int64)
        t = int(rng.integers(100, 200))
        ready = rng.integers(t - 6, t + 3, n)       # a narrow range: ties between slots
        SM[s, E.SM_READY:] = ready
        unit = rng.integers(0, 3, n)                # U_NONE, U_LSU, U_SMEM
        SM[s, E.SM_ON_LSU] = mask(unit == E.U_LSU)
        SM[s, E.SM_ON_SMEM] = mask(unit == E.U_SMEM)
        SM[s, E.SM_LSU] = t + int(rng.integers(-2, 9))
        SM[s, E.SM_SMEM] = t + int(rng.integers(-2, 9))
        busy = ((unit == E.U_LSU) & (SM[s, E.SM_LSU] > t)) | ((unit == E.U_SMEM) & (SM[s, E.SM_SMEM] > t))
        blocked = np.int64(E._blocked_slots(SM, s, t)).view(np.uint64)
        assert [bool(blocked >> np.uint64(j) & np.uint64(1)) for j in range(n)] == list(busy), trial
        fail_slots = np.flatnonzero(busy & (rng.random(n) < 0.7))
        fail = mask(fail_slots)
        # the tries one by one: the smallest ready cycle, the first slot that has it
        mn0 = int(rng.integers(t - 6, t + 3)) if rng.random() < 0.5 else int(E.INF)
        mw0 = int(rng.integers(0, 1000))
        mn, mw = mn0, mw0
        for j in fail_slots:
            if ready[j] < mn:
                mn, mw = int(ready[j]), base + int(j)
        ties += int(len(fail_slots) > 0 and mn == mn0 and int(ready[fail_slots].min()) == mn0)
        assert tuple(int(x) for x in E._first_at_min(SM, s, n, fail, base, mn0, mw0)) == (mn, mw), trial
        want = ready.copy()
        want[fail_slots] = np.where(unit[fail_slots] == E.U_LSU, SM[s, E.SM_LSU], SM[s, E.SM_SMEM])
        E._wait_for_units(SM, s, s, n, fail)
        assert list(SM[s, E.SM_READY:]) == list(want), trial
    assert ties > 50


def test_xor_slice_hash_spreads_a_stride_that_is_a_multiple_of_the_slices():
    """l2.slice_hash: xor folds the line index before the modulo, so a
    column of 24-line rows (a multiple of 6 slices) no longer lands on one
    slice, and the naive transpose that writes such columns stops camping
    on one slice (docs/hardware.md); modulo stays the default mapping."""
    lines = np.arange(64) * 24
    assert {E.l2_slice(int(x), 6, 0) for x in lines} == {0}
    assert {E.l2_slice(int(x), 6, 1) for x in lines} == set(range(6))
    assert all(E.l2_slice(int(x), 6, 0) == x % 6 for x in range(1000))


def test_a_transpose_camps_on_one_slice_only_without_the_hash(tmp_path):
    from test_simulator_timing import hardware
    trace_workload("tp", {"benchmark": "transpose", "size": "small", "seed": 1,
                          "params": {"rows": 512, "cols": 768, "repeats": 1}}, tmp_path, progress=False)
    tr = TraceDir(tmp_path)
    cyc = {}
    for h in ("modulo", "xor"):
        L = Simulator(hardware(**{"l2.slice_hash": h}), tr).run().launches
        cyc[h] = L[L["kernel"] == "transpose_naive"]["cycles"].tolist()   # A -> B (16-line rows), B -> A (24)
    assert cyc["modulo"][1] > 1.15 * cyc["modulo"][0]
    assert cyc["xor"][1] == pytest.approx(cyc["xor"][0], rel=0.05)


def test_the_static_table_lays_out_kinds_latencies_and_registers_and_names_a_gap():
    """sim.static: the per-PC table the engine and GPUMech share."""
    import pandas as pd

    from pipeline_lib.sim import static as S
    hw = load_hardware("gpumech-baseline")
    instr = pd.DataFrame({"kernel": ["k"] * 3, "pc": [0, 1, 2], "bb": [0, 0, 1],
                          "opclass": ["load", "fp32", "branch"],
                          "src_regs": [[1], [2, 3], []], "dst_regs": [[2], [4], []]})
    P = S.kernel_static(instr, hw, bb_offset=5, reg_width=2)
    assert P[:, S.P_KIND].tolist() == [S.K_LOAD, S.K_ALU, S.K_BRANCH]
    assert P[1, S.P_LAT] == hw["latency"]["fp32"] and P[2, S.P_LAT] == hw["latency"]["branch"]
    assert P[:, S.P_GBB].tolist() == [5, 5, 6]
    assert P[1, S.P_SRC:S.P_SRC + 2].tolist() == [2, 3] and P[1, S.P_SRC + 2:].tolist() == [4, -1]
    assert S.memory_kind(P[:, S.P_KIND]).tolist() == [True, False, False]
    with pytest.raises(S.StaticTableError, match="kernel k: instructions table has gaps in pc"):
        S.kernel_static(instr.assign(pc=[0, 1, 3]), hw, 0, 2)
