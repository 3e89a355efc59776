"""Sampled collection for re-evaluation (pipeline_lib/gpumech/sampled.py):
the collector runs only TBPoint's representative launches, warmed, and the
other launches take their counts."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from pipeline_lib.gpumech import sampled
from pipeline_lib.gpumech.analysis import GPUMech, trace_totals
from pipeline_lib.gpumech.collector import PC_EXECS
from pipeline_lib.gpumech.reevaluate import Reevaluation
from pipeline_lib.gpumech.sampled import Part, Sampling, launch_parts
from pipeline_lib.gpumech.scheduled import ScheduledCollector
from pipeline_lib.sim import static as S
from pipeline_lib.sim.hardware import occupancy
from pipeline_lib.sim.static import global_bb_ids, kernel_tables
from test_gpumech_contention import _stream_trace
from test_simulator_timing import hardware


def _reevaluation(tr, hw):
    base = GPUMech(hw).run(tr)
    return Reevaluation(tr, base["launches"], base["collected"])


def test_collecting_chosen_blocks_in_dispatch_order_is_the_full_collection(tmp_path):
    tr = _stream_trace(tmp_path, 1 << 12, 1, 8)
    hw = hardware(cores=2)
    P = kernel_tables(tr.instructions, hw, global_bb_ids(tr.instructions)[0])["stream"]
    L = tr.launches.iloc[0]
    occ = occupancy(hw, int(L["threads_per_block"]), int(L["regs_per_thread"]), int(L["shared_bytes"]))
    args = (tr.launch_trace(0), P, int(L["n_blocks"]), int(L["warps_per_block"]), occ["sm_occupancy"])
    a = ScheduledCollector(hw, "rr").run(*args)
    b = ScheduledCollector(hw, "rr").run(*args, blocks=np.arange(int(L["n_blocks"])))
    assert np.array_equal(a, b)
    half = ScheduledCollector(hw, "rr").run(*args, blocks=np.arange(4))
    assert 0 < half[:, PC_EXECS].sum() < a[:, PC_EXECS].sum()
    with pytest.raises(ValueError, match="block ids must lie in"):
        ScheduledCollector(hw, "rr").run(*args, blocks=np.array([8]))


def test_a_workload_of_one_launch_is_collected_in_full(tmp_path):
    tr = _stream_trace(tmp_path, 1 << 12, 1, 8)
    hw = hardware(cores=2)
    ev = _reevaluation(tr, hw)
    full, smp = ev.collect(hw, "rr"), ev.collect(hw, "rr", sampling=Sampling())
    assert full.keys() == smp.keys()
    for k in full:
        assert np.array_equal(full[k].counts, smp[k].counts)
        assert full[k].in_step == smp[k].in_step


def test_identical_launches_take_their_representatives_counts(tmp_path):
    """Three launches of one kernel on the same data: one cluster, its middle
    launch collected (a third of the instructions); every launch gets its
    counts, and the prediction stays within 2% of the full collection's.
    The L2 (192 lines) holds an eighth of a launch's lines, so warming
    runs a few of launch 0's last blocks."""
    tr = _stream_trace(tmp_path, 1 << 13, 3, 8)
    hw = hardware(cores=2, **{"l2.size_bytes": 6 * 8 * 128 * 4})
    ev = _reevaluation(tr, hw)
    plan = sampled.plan(tr, hw, Sampling())
    assert plan.representative == {0: 1, 1: 1, 2: 1} and list(plan.parts) == [1]
    static = kernel_tables(tr.instructions, hw, global_bb_ids(tr.instructions)[0])
    totals = {i: trace_totals(tr.launch_trace(i), static["stream"][:, S.P_KIND]) for i in range(3)}
    got, share = sampled.collect(tr, hw, "rr", static, plan, totals)
    # launch 1 and, for warming, launch 0's last blocks (144 requests each): two of its eight
    assert share == pytest.approx(1 / 3 + 2 / 24)
    assert all(np.array_equal(got[(i, "rr")].counts, got[(1, "rr")].counts) for i in range(3))
    full = ev.predict(hw, "rr", collected=ev.collect(hw, "rr"))["cpi"].to_numpy()
    smp = ev.predict(hw, "rr", collected=got)["cpi"].to_numpy()
    assert np.allclose(smp, full, rtol=0.02)


def _warming(requests: dict[int, list[int]], l2_lines: int):
    blocks = {lid: pd.DataFrame({"block": np.arange(len(r)), "mem_requests": r}) for lid, r in requests.items()}
    trace = SimpleNamespace(blocks_by_launch=lambda: blocks)
    hw = {"l2": {"size_bytes": 128 * l2_lines, "line_bytes": 128}}
    return sampled._Warming(trace, hw, {lid: {} for lid in requests})


def test_warming_runs_the_blocks_just_before_a_part_until_they_fill_the_l2():
    w = _warming({0: [3, 3, 3, 3], 1: [3, 3, 3, 3]}, 10)
    # nothing run yet: back across the launch boundary until 10 requests are reached
    got = w.before(1, np.array([2, 3]))
    assert [(lid, b.tolist()) for lid, b in got] == [(0, [2, 3]), (1, [0, 1])]
    # never behind the last block run
    w.ran(0, np.array([0, 1]))
    assert [(lid, b.tolist()) for lid, b in w.before(1, np.array([0]))] == [(0, [2, 3])]
    # a part that follows the last one run needs none
    w.ran(0, np.array([2, 3]))
    assert w.before(1, np.array([0, 1])) == []


def test_regions_are_split_from_the_blocks_outside_them():
    """Eight homogeneous epochs of two blocks, then one outlier epoch: a
    region of eight epochs, then the outlier's blocks run in full."""
    instrs = [100] * 16 + [100, 900]
    mem = [10] * 16 + [10, 90]
    blocks = pd.DataFrame({"block": np.arange(18), "warp_instrs": instrs, "mem_requests": mem})
    parts = launch_parts(blocks, 2, Sampling(regions=True))
    assert [p.epochs is None for p in parts] == [False, True]
    assert len(parts[0].epochs) == 8 and [e.tolist() for e in parts[0].epochs[:2]] == [[0, 1], [2, 3]]
    assert parts[1].blocks.tolist() == [16, 17]
    assert isinstance(parts[1], Part)


def _launch_args(tr, hw):
    P = kernel_tables(tr.instructions, hw, global_bb_ids(tr.instructions)[0])["stream"]
    L = tr.launches.iloc[0]
    occ = occupancy(hw, int(L["threads_per_block"]), int(L["regs_per_thread"]), int(L["shared_bytes"]))
    return (tr.launch_trace(0), P, int(L["n_blocks"]), int(L["warps_per_block"]), occ["sm_occupancy"])


def _same_state(a: ScheduledCollector, b: ScheduledCollector) -> bool:
    return (np.array_equal(a.L1tag, b.L1tag) and np.array_equal(a.L2tag, b.L2tag) and a.clock == b.clock
            and a.stamp == b.stamp and a.in_step == b.in_step and a.issued == b.issued
            and np.array_equal(a.slice_requests, b.slice_requests)
            and np.array_equal(a.channel_transfers, b.channel_transfers))


def test_a_launch_paused_and_resumed_counts_exactly_as_one_run(tmp_path):
    """Pausing leaves the blocks in flight where they are: the counts, the
    caches, the clock and the in-step share are those of one run."""
    tr = _stream_trace(tmp_path, 1 << 12, 1, 16)
    hw = hardware(cores=2)
    args = _launch_args(tr, hw)
    one = ScheduledCollector(hw, "rr")
    whole = one.run(*args)
    col = ScheduledCollector(hw, "rr")
    launch = col.start(*args)
    seen = []
    for placed in (2, 5, 9, 13):        # the first wave (4 blocks) is placed at once
        assert not launch.advance(placed)
        assert placed <= launch.placed <= max(placed, 4) + 1
        seen.append(launch.counts()[4])
    got = launch.finish()
    assert seen == sorted(seen) and seen[0] == 0 < seen[1] < seen[-1] < col.issued
    assert np.array_equal(got, whole) and _same_state(col, one)


def test_skipped_blocks_are_as_if_left_out_of_the_dispatch_order(tmp_path):
    """Blocks dropped while the launch is paused: the freed slots take the
    next blocks kept, exactly as a run on the order without them; a block
    already placed cannot be dropped."""
    tr = _stream_trace(tmp_path, 1 << 12, 1, 16)
    hw = hardware(cores=2)
    args = _launch_args(tr, hw)
    kept = np.array([b for b in range(16) if b not in (6, 7, 8, 11)])
    one = ScheduledCollector(hw, "gto")
    ref = one.run(*args, blocks=kept)
    col = ScheduledCollector(hw, "gto")
    launch = col.start(*args)
    launch.advance(6)
    with pytest.raises(ValueError, match="has been placed"):
        launch.skip(np.array([5]))
    launch.skip(np.array([6, 7, 8, 11]))
    assert np.array_equal(launch.finish(), ref) and _same_state(col, one)


def test_a_settled_region_is_collected_in_part_and_stands_for_the_rest(tmp_path):
    """One launch of 48 identical epochs, one homogeneous region: with
    regions the collector stops once the units settle and the rest of the region is skipped; the counts
    still add up to the launch's executions and the prediction stays within
    2% of the full collection's."""
    tr = _stream_trace(tmp_path, 1 << 13, 1, 192)
    hw = hardware(cores=2, **{"l2.size_bytes": 6 * 8 * 128 * 4})       # 192 lines: units from the third epoch
    plan = sampled.plan(tr, hw, Sampling(regions=True))
    (part,) = plan.parts[0]
    assert part.epochs is not None and len(part.epochs) == 48
    static = kernel_tables(tr.instructions, hw, global_bb_ids(tr.instructions)[0])
    totals = {0: trace_totals(tr.launch_trace(0), static["stream"][:, S.P_KIND])}
    full, _ = sampled.collect(tr, hw, "rr", static, sampled.full_plan(tr), totals)
    got, share = sampled.collect(tr, hw, "rr", static, plan, totals, Sampling(regions=True))
    assert share < 0.4
    execs = got[(0, "rr")].counts[:, PC_EXECS].sum()
    assert execs == pytest.approx(full[(0, "rr")].counts[:, PC_EXECS].sum(), rel=0.01)
    ev = _reevaluation(tr, hw)
    a = ev.predict(hw, "rr", collected=full)["cpi"].to_numpy()
    b = ev.predict(hw, "rr", collected=got)["cpi"].to_numpy()
    assert np.allclose(b, a, rtol=0.02)


def test_no_unit_is_taken_before_the_region_has_turned_the_l2_over(tmp_path):
    """Until a region's requests reach the L2's capacity the L2 may still
    serve what came before it, so no unit is taken: a launch whose requests
    never fill the L2 is collected whole, with exactly the full counts."""
    tr = _stream_trace(tmp_path, 1 << 13, 1, 192)
    hw = hardware(cores=2)                                               # 6144 lines: more than the launch asks
    static = kernel_tables(tr.instructions, hw, global_bb_ids(tr.instructions)[0])
    totals = {0: trace_totals(tr.launch_trace(0), static["stream"][:, S.P_KIND])}
    plan = sampled.plan(tr, hw, Sampling(regions=True))
    assert plan.parts[0][0].epochs is not None
    full, _ = sampled.collect(tr, hw, "rr", static, sampled.full_plan(tr), totals)
    got, share = sampled.collect(tr, hw, "rr", static, plan, totals, Sampling(regions=True))
    assert share == 1.0
    assert np.array_equal(got[(0, "rr")].counts, full[(0, "rr")].counts)
    assert got[(0, "rr")].in_step == full[(0, "rr")].in_step


def _assert_kept_as_collected(ev, blind, hw, n):
    """``ev`` (given the analysed configuration) keeps the analysis's counts
    of the ``n`` launches on ``hw``, and they are what ``blind`` (not given
    it) collects again, under both schedulers."""
    for policy in ("rr", "gto"):
        got, fresh = ev.collect(hw, policy), blind.collect(hw, policy)
        for lid in range(n):
            kept, again = got[(lid, policy)], fresh[(lid, policy)]
            assert kept is ev.collected[(lid, policy)]
            assert np.array_equal(kept.counts, again.counts) and kept.in_step == again.in_step
            assert np.array_equal(kept.slice_requests, again.slice_requests)
            assert np.array_equal(kept.channel_transfers, again.channel_transfers)


def test_launches_that_fit_one_wave_on_both_configurations_keep_the_analysis_counts(tmp_path):
    """Three launches of 4 blocks on 2 cores: with 32 or 48 warps per core
    (2 or 3 blocks of 16 warps) every block is placed at the start on the
    same core and slot, so the collection is the analysis's, exactly as
    collecting again gives it; with 16 warps (one block per core) the
    placement changes and the collector runs."""
    tr = _stream_trace(tmp_path, 1 << 12, 3, 4)
    hw = hardware(cores=2)
    base = GPUMech(hw).run(tr)
    ev = Reevaluation(tr, base["launches"], base["collected"], hw=hw)
    blind = Reevaluation(tr, base["launches"], base["collected"])
    wide = hardware(cores=2, **{"sm_limits.warps": 48, "sm_limits.threads": 1536, "sm_limits.registers": 65536})
    L = tr.launches.iloc[0]
    args = (int(L["threads_per_block"]), int(L["regs_per_thread"]), int(L["shared_bytes"]))
    assert [occupancy(h, *args)["sm_occupancy"] for h in (hw, wide)] == [2, 3]    # the one-wave rule decides
    assert ev.unchanged_launches(wide) == [True] * 3
    assert blind.unchanged_launches(wide) == [False] * 3
    assert ev.unchanged_launches(wide, pacing=True) == [False] * 3
    assert ev.unchanged_launches(hardware(cores=2, **{"sm_limits.warps": 48, "sm_limits.threads": 1536,
                                                      "sm_limits.registers": 65536, "l1.mshrs": 8})) == [False] * 3
    _assert_kept_as_collected(ev, blind, wide, 3)
    narrow = hardware(cores=2, **{"sm_limits.warps": 16, "sm_limits.threads": 512})
    assert ev.unchanged_launches(narrow) == [False] * 3
    got = ev.collect(narrow, "rr")
    assert got[(0, "rr")] is not ev.collected[(0, "rr")]
    assert got[(0, "rr")].in_step != ev.collected[(0, "rr")].in_step     # two blocks a core no longer


def test_launches_of_the_same_occupancy_keep_the_analysis_counts_over_many_waves(tmp_path):
    """Three launches of 12 blocks of 16 warps (24 registers a thread) on 2
    cores, 3 waves each: at 32 warps per core, or 48 with the register file
    still holding 2 blocks, a core holds 2 blocks either way, so the
    collector runs alike and the analysis's counts are what collecting
    again gives; with twice the registers a core holds 3 blocks at 48 warps,
    the occupancy changes and the collector runs."""
    tr = _stream_trace(tmp_path, 1 << 12, 3, 12)
    hw = hardware(cores=2)
    base = GPUMech(hw).run(tr)
    ev = Reevaluation(tr, base["launches"], base["collected"], hw=hw)
    blind = Reevaluation(tr, base["launches"], base["collected"])
    wide = hardware(cores=2, **{"sm_limits.warps": 48, "sm_limits.threads": 1536})
    more = hardware(cores=2, **{"sm_limits.warps": 48, "sm_limits.threads": 1536, "sm_limits.registers": 65536})
    L = tr.launches.iloc[0]
    args = (int(L["threads_per_block"]), int(L["regs_per_thread"]), int(L["shared_bytes"]))
    assert int(L["n_blocks"]) == 12
    assert [occupancy(h, *args)["sm_occupancy"] for h in (hw, wide, more)] == [2, 2, 3]
    assert ev.unchanged_launches(wide) == [True] * 3
    _assert_kept_as_collected(ev, blind, wide, 3)
    assert ev.unchanged_launches(more) == [False] * 3
    got = ev.collect(more, "rr")
    assert got[(0, "rr")] is not ev.collected[(0, "rr")]
    assert got[(0, "rr")].in_step != ev.collected[(0, "rr")].in_step     # three blocks a core


def test_known_launches_are_not_collected_and_stand_for_their_cluster(tmp_path):
    """A sampled collection given launch 1's counts (the representative of
    the three identical launches) collects nothing: every launch takes the
    known counts; given launch 0's, launch 0 keeps them and the
    representative is collected for the others."""
    tr = _stream_trace(tmp_path, 1 << 12, 3, 8)
    hw = hardware(cores=2)
    ev = _reevaluation(tr, hw)
    static = kernel_tables(tr.instructions, hw, global_bb_ids(tr.instructions)[0])
    totals = {i: trace_totals(tr.launch_trace(i), static["stream"][:, S.P_KIND]) for i in range(3)}
    plan = sampled.plan(tr, hw, Sampling())
    assert plan.representative == {0: 1, 1: 1, 2: 1}
    rep = ev.collected[(1, "rr")]
    got, share = sampled.collect(tr, hw, "rr", static, plan, totals, known={1: rep})
    assert share == 0.0 and got[(1, "rr")] is rep
    assert all(np.array_equal(got[(i, "rr")].counts, rep.counts) and got[(i, "rr")].in_step == pytest.approx(rep.in_step)
               for i in (0, 2))
    got, share = sampled.collect(tr, hw, "rr", static, plan, totals, known={0: ev.collected[(0, "rr")]})
    assert share > 0 and got[(0, "rr")] is ev.collected[(0, "rr")]


def test_a_region_settles_once_its_units_have_sent_the_l2_its_capacity():
    """Alike units settle TBPoint's rule at once; the region still runs on
    until the units the value rests on have sent the L2 its capacity in
    requests (reuse up to the L2's size seen)."""
    from pipeline_lib.gpumech.collector import PC_L2_ACC, PC_N
    counts = np.zeros((1, PC_N))
    counts[0, PC_L2_ACC] = 100
    units = [(10.0, 2.0)] * 3
    s = Sampling(regions=True)
    assert not sampled._region_settled(s, units, [counts] * 3, 301)
    assert sampled._region_settled(s, units, [counts] * 3, 300)
    assert not sampled._region_settled(s, [(10.0, 2.0), (14.0, 2.0), (10.0, 2.0)], [counts] * 3, 1)
