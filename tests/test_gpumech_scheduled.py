"""The scheduler-ordered input collector (pipeline_lib/gpumech/scheduled.py)
against the detailed simulator's caches, and its timing rules on
hand-worked cases."""
import numpy as np
import pytest

from test_gpumech import _kernel, _trace, _warp
from test_simulator_timing import hardware, simulate, trace


def _collect(tr, hw, policy):
    from pipeline_lib.gpumech.collector import PC_L1_ACC, PC_L1_MISS, PC_L2_ACC, PC_L2_MISS
    from pipeline_lib.gpumech.scheduled import ScheduledCollector
    from pipeline_lib.sim.hardware import occupancy
    from pipeline_lib.sim.static import global_bb_ids, kernel_tables
    static = kernel_tables(tr.instructions, hw, global_bb_ids(tr.instructions)[0])
    col = ScheduledCollector(hw, policy)
    out = []
    for launch in tr.launches.sort_values("launch").to_dict("records"):
        occ = occupancy(hw, int(launch["threads_per_block"]), int(launch["regs_per_thread"]),
                        int(launch["shared_bytes"]))
        c = col.run(tr.launch_trace(int(launch["launch"])), static[launch["kernel"]], int(launch["n_blocks"]),
                    int(launch["warps_per_block"]), occ["sm_occupancy"])
        out.append({"l1_accesses": c[:, PC_L1_ACC].sum(), "l1_misses": c[:, PC_L1_MISS].sum(),
                    "l2_accesses": c[:, PC_L2_ACC].sum(), "l2_misses": c[:, PC_L2_MISS].sum()})
    return out


def test_it_sees_the_schedulers_cache_behaviour_as_the_simulator_does(tmp_path):
    """32 warps re-reading private lines (test_simulator_timing's
    cache-sensitive kernel): GTO keeps a few warps' lines in an 8 KiB L1, RR
    thrashes it.  The round-robin collector gives one answer for both; the
    scheduler-ordered one follows the simulator under each."""
    from pipeline_lib.gpumech.analysis import miss_rates
    from pipeline_lib.gpumech.collector import CacheCollector
    from pipeline_lib.sim.hardware import occupancy
    from pipeline_lib.sim.static import global_bb_ids, kernel_tables

    def args(d):
        return [d.zeros(1024 * 4 * 32, np.float32), d.zeros(1024, np.float32), 4, 8]
    tr = trace(tmp_path, [("reuse", (4,), (256,), args)])
    rates = {}
    for policy in ("rr", "gto"):
        hw = hardware(cores=1, scheduler=policy, **{"l1.size_bytes": 8192})
        sim = simulate(tr, hw).launches.iloc[0]
        got = _collect(tr, hw, policy)[0]
        assert got["l1_accesses"] == sim["l1_accesses"] and got["l2_accesses"] == sim["l2_accesses"]
        rates[policy] = got["l1_misses"] / got["l1_accesses"]
        assert rates[policy] == pytest.approx(sim["l1_miss_rate"], abs=0.03)
    assert rates["gto"] < 0.7 * rates["rr"]
    # the seed's order-agnostic collector cannot tell the schedulers apart
    hw = hardware(cores=1, **{"l1.size_bytes": 8192})
    launch = tr.launches.iloc[0]
    P = kernel_tables(tr.instructions, hw, global_bb_ids(tr.instructions)[0])[launch["kernel"]]
    occ = occupancy(hw, int(launch["threads_per_block"]), int(launch["regs_per_thread"]), int(launch["shared_bytes"]))
    c = CacheCollector(hw).run(tr.launch_trace(0), P[:, 0], 4, 8, occ["sm_occupancy"])
    assert miss_rates(c, P[:, 0])[0] > 0.9 * rates["rr"]


def test_a_hit_on_a_line_in_flight_waits_for_the_fill(one_core):
    """Two warps load the same line in their first cycles: the first misses
    both caches; the second issues a cycle later and hits a line whose fill
    is in flight, so it takes the DRAM event (pending hit), as the
    simulator's MSHR merge."""
    from pipeline_lib.gpumech.collector import PC_EV_DRAM, PC_L1_MISS, PC_PENDING
    from pipeline_lib.gpumech.scheduled import ScheduledCollector
    from pipeline_lib.sim.static import kernel_static
    P = kernel_static(_kernel(), one_core, 0, 2)
    for policy in ("rr", "gto"):
        c = ScheduledCollector(one_core, policy).run(_trace([_warp(0), _warp(0)]), P, 1, 2, 1)
        assert c[0, PC_L1_MISS] == 1 and c[0, PC_PENDING] == 1 and c[0, PC_EV_DRAM] == 2


def test_gto_issues_the_oldest_warp_greedily(one_core):
    """Four warps of independent loads to distinct lines of one L1 set of a
    two-way L1, each warp loading its line twice: greedy-then-oldest runs
    warp 0 to its end first, so its second load finds its own line (still
    in flight: a pending hit); round robin interleaves the warps, so four
    lines share two ways and every second load misses again."""
    import copy

    import pandas as pd

    from pipeline_lib.gpumech.collector import PC_L1_MISS
    from pipeline_lib.gpumech.scheduled import ScheduledCollector
    from pipeline_lib.sim.static import kernel_static
    hw = copy.deepcopy(one_core)
    hw["l1"].update(size_bytes=256, assoc=2)                 # one set of two 128-byte ways
    instr = pd.DataFrame({"kernel": "k", "pc": [0, 1, 2], "bb": 0, "opclass": ["load", "load", "exit"],
                          "src_regs": [[], [], []], "dst_regs": [[0], [1], []]})
    P = kernel_static(instr, hw, 0, 2)
    warps = [[(0, 1, [128 * k]), (1, 1, [128 * k]), (2, 0, [])] for k in range(4)]
    misses = {p: ScheduledCollector(hw, p).run(_trace(warps), P, 1, 4, 1)[:, PC_L1_MISS].sum() for p in ("rr", "gto")}
    assert misses == {"rr": 8, "gto": 4}


def test_gto_takes_the_oldest_warp_whatever_slot_it_holds(one_core):
    """Dispatched in the order block 1, block 0, the younger block holds
    slot 0.  In a one-line L1, block 0 (loads X, X) and block 1 (loads Y,
    X): greedy-then-oldest must run block 0 first (X misses, X waits for
    its fill, Y misses and evicts X, X misses again: 3 misses); taking
    slot 0 first would give 2."""
    import copy

    import pandas as pd

    from pipeline_lib.gpumech.collector import PC_L1_MISS
    from pipeline_lib.gpumech.scheduled import ScheduledCollector
    from pipeline_lib.sim.static import kernel_static
    hw = copy.deepcopy(one_core)
    hw["l1"].update(size_bytes=128, assoc=1)
    instr = pd.DataFrame({"kernel": "k", "pc": [0, 1, 2], "bb": 0, "opclass": ["load", "load", "exit"],
                          "src_regs": [[], [], []], "dst_regs": [[0], [1], []]})
    P = kernel_static(instr, hw, 0, 2)
    x, y = 0, 128 * 64
    warps = [[(0, 1, [x]), (1, 1, [x]), (2, 0, [])], [(0, 1, [y]), (1, 1, [x]), (2, 0, [])]]
    for order in ([0, 1], [1, 0]):
        c = ScheduledCollector(hw, "gto").run(_trace(warps), P, 2, 1, 2, blocks=np.array(order))
        assert c[:, PC_L1_MISS].sum() == 3, order


@pytest.fixture
def one_core():
    from pipeline_lib.sim import load_hardware
    return load_hardware("gpumech-baseline-sm1")


def test_in_step_share_is_high_under_round_robin_and_low_under_greedy(one_core):
    """Eight warps of the same independent integer code: round robin issues
    each PC from warp after warp (7 of every 8 issues repeat the PC the
    other warp just issued), greedy-then-oldest runs one warp's
    instructions back to back (almost none do)."""
    import pandas as pd

    from pipeline_lib.gpumech.scheduled import ScheduledCollector
    from pipeline_lib.sim.static import kernel_static
    n = 16
    instr = pd.DataFrame({"kernel": "k", "pc": list(range(n + 1)), "bb": 0,
                          "opclass": ["int"] * n + ["exit"], "src_regs": [[]] * (n + 1),
                          "dst_regs": [[k % 4] for k in range(n)] + [[]]})
    P = kernel_static(instr, one_core, 0, 4)
    warps = [[(pc, 0, []) for pc in range(n + 1)] for _ in range(8)]
    share = {}
    for p in ("rr", "gto"):
        col = ScheduledCollector(one_core, p)
        col.run(_trace(warps), P, 1, 8, 1)
        share[p] = col.in_step
    assert share["rr"] == pytest.approx(7 / 8, abs=0.02)
    assert share["gto"] < 0.1



def test_pacing_waits_for_the_l2_slice_and_the_dram_channel():
    """Hand-worked: interconnect 20, slice service 2, L2 hit latency 120,
    a 5.0-cycle burst, 6 slices, 2 channels.  Two requests for slice 0 at
    cycle 100: the second waits 2 cycles for the slice.  A miss that read
    DRAM on channel 1 (counted there) is at the channel at 122 + 80 = 202;
    a second read on that channel waits the first one's burst."""
    from pipeline_lib.gpumech import scheduled as S
    L = np.zeros(S.LT_N, np.int64)
    L[S.LT_ICNT], L[S.LT_SVC], L[S.LT_L2] = 20, 2, 120
    Q = np.zeros(S.Q_SLICE0 + 6 + 2 * 2)
    Q[S.Q_BURST] = 5.0
    chan = np.zeros(2, np.int64)
    assert S._paced(0, 100, 6, 0, L, Q, chan) == 0
    assert S._paced(6, 100, 6, 0, L, Q, chan) == 2            # line 6: slice 0 again
    chan[1] += 1                                           # line 1 missed: a read on channel 1
    assert S._paced(1, 100, 6, 0, L, Q, chan) == 0            # slice 1 free, channel 1 free at 200
    chan[1] += 1
    assert S._paced(7, 100, 6, 0, L, Q, chan) == 5            # slice 1 free at 122; channel 1 busy to 205
    assert S._paced(12, 100, 6, 0, L, Q, chan) == 4           # slice 0 busy to 124; no DRAM transfer


def test_pacing_brings_the_write_backs_of_partial_stores_to_the_simulators(tmp_path):
    """A naive transpose writes each output line 4 bytes at a time from 32
    warp instructions.  Unpaced, the collector issues those stores faster
    than the L2 slices serve them in the simulator, evicts the lines between
    partial writes and counts far more write-backs; paced, it follows the
    simulator (docs/gpumech.md, "Pacing")."""
    from pipeline_lib.gpumech.scheduled import ScheduledCollector
    from pipeline_lib.sim.hardware import occupancy
    from pipeline_lib.sim.simulator import Simulator
    from pipeline_lib.sim.static import global_bb_ids, kernel_tables
    from pipeline_lib.sim.trace_reader import TraceDir
    from pipeline_lib.trace.generate import trace_workload
    trace_workload("tp", {"benchmark": "transpose", "size": "small", "seed": 1,
                          "params": {"rows": 384, "cols": 256, "repeats": 1}}, tmp_path, progress=False)
    tr = TraceDir(tmp_path)
    hw = hardware(**{"l2.size_bytes": 96 * 1024})
    first = tr.launches.sort_values("launch").iloc[0]
    assert first["kernel"] == "transpose_naive"
    a = Simulator(hw, tr).run().activity.set_index("launch").loc[int(first["launch"])]
    sim = int(a["dram_reads"] + a["dram_writes"])
    P = kernel_tables(tr.instructions, hw, global_bb_ids(tr.instructions)[0])[first["kernel"]]
    occ = occupancy(hw, int(first["threads_per_block"]), int(first["regs_per_thread"]), int(first["shared_bytes"]))
    got = {}
    for paced in (False, True):
        col = ScheduledCollector(hw, "rr", paced)
        col.run(tr.launch_trace(int(first["launch"])), P, int(first["n_blocks"]), int(first["warps_per_block"]),
                occ["sm_occupancy"])
        got[paced] = int(col.channel_transfers.sum())
    assert got[False] > 1.25 * sim
    assert got[True] == pytest.approx(sim, rel=0.15)


def test_the_collectors_map_lines_to_slices_as_the_simulator_does():
    """With l2.slice_hash: xor the collectors count a request on the slice
    engine.l2_slice gives, as the simulator books it."""
    from pipeline_lib.gpumech.collector import CacheCollector, _l2_access
    from pipeline_lib.sim import engine as E
    for h, flag in (("modulo", 0), ("xor", 1)):
        c = CacheCollector(hardware(**{"l2.slice_hash": h}))
        out = np.zeros((1, 32), np.int64)
        hist = np.zeros(c.slices, np.int64)
        for line in range(0, 24 * 40, 24):
            _l2_access(line, 0, c.L2tag, c.L2lru, c.L2dirty, c.l2_sets, c.l2_ways, c.slices, 1, out, 0, c.D,
                       c.bank_row, hist, np.zeros(len(c.channel_transfers), np.int64))
        want = np.bincount([E.l2_slice(x, c.slices, flag) for x in range(0, 24 * 40, 24)], minlength=c.slices)
        assert hist.tolist() == want.tolist()
    assert (want > 0).sum() > 1
