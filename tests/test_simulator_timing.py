"""The detailed simulator against timing known on paper (tests/kernels/timing.cu).

Each test traces a small nvcc-compiled kernel on the emulator, simulates it
on a hardware configuration derived from gpumech-baseline and compares one
figure with what the configuration implies, within a stated tolerance.
"""
import copy
from pathlib import Path

import numpy as np
import pytest

from pipeline_lib.ptx import Device
from pipeline_lib.sim import dram_bandwidth_gbs, load_hardware
from pipeline_lib.sim.simulator import Simulator
from pipeline_lib.sim.sampling import SamplingPolicy
from pipeline_lib.sim.trace_reader import TraceDir
from pipeline_lib.trace.sink import ParquetTraceSink

PTX = Path(__file__).parent / "kernels" / "timing.ptx"


def hardware(**changes):
    """gpumech-baseline with dotted-path overrides, e.g. ``{"l1.mshrs": 8}``."""
    hw = copy.deepcopy(load_hardware("gpumech-baseline"))
    for key, val in changes.items():
        node = hw
        *path, last = key.replace("__", ".").split(".")
        for p in path:
            node = node[p]
        node[last] = val
    return hw


def trace(tmp_path, launches, heap=1 << 24) -> TraceDir:
    """Run ``launches`` = [(kernel, grid, block, args-maker)] on the emulator into a trace dir."""
    sink = ParquetTraceSink(tmp_path, {"workload": "timing"})
    dev = Device(heap_bytes=heap, sink=sink)
    mod = dev.load_module(PTX)
    for kernel, grid, block, make_args in launches:
        dev.launch(mod, kernel, grid, block, make_args(dev))
    sink.close()
    return TraceDir(tmp_path)


def simulate(tr, hw, **kw):
    return Simulator(hw, tr, **kw).run()


def opcode_count(tr, kernel, prefix, launch=0):
    ins = tr.instructions[tr.instructions["kernel"] == kernel]
    pcs = set(ins.loc[ins["opcode"].str.startswith(prefix), "pc"])
    t = tr.launch_trace(launch)
    return int(np.isin(t.pc, list(pcs)).sum())


@pytest.mark.parametrize("fp32", [25, 7])
def test_dependent_chain_cpi_equals_latency(tmp_path, fp32):
    tr = trace(tmp_path, [("dep_chain", (1,), (32,), lambda d: [d.zeros(32, np.float32), 64])])
    res = simulate(tr, hardware(**{"latency.fp32": fp32}))
    fmas = opcode_count(tr, "dep_chain", "fma")
    assert fmas == 64 * 16
    cpi = res.launches["cycles"].iloc[0] / fmas
    assert cpi == pytest.approx(fp32, rel=0.03)


@pytest.mark.parametrize("width", [1, 2])
def test_independent_warps_reach_issue_width(tmp_path, width):
    cores = 2
    tr = trace(tmp_path, [("indep", (cores * 4,), (256,), lambda d: [d.zeros(cores * 1024, np.float32), 16])])
    # nvcc orders each FMA chain consecutively in the PTX, so a warp has
    # little ILP in issue order: 32 warps x 1 FMA per 4-cycle latency
    # still offer 8 instructions per cycle, more than the issue width
    res = simulate(tr, hardware(cores=cores, issue_width=width, **{"latency.fp32": 4}))
    ipc_per_sm = res.launches["ipc"].iloc[0] / cores
    assert 0.95 * width <= ipc_per_sm <= width


def test_streaming_kernel_reaches_dram_bandwidth(tmp_path):
    n4 = 1 << 18   # 4 MiB of float4
    tr = trace(tmp_path, [("stream", (8,), (512,),
                           lambda d: [d.zeros(4 * n4, np.float32), d.zeros(8 * 512, np.float32), n4])], heap=1 << 23)
    hw = hardware(cores=4, **{"l1.mshrs": 256, "dram.channels": 2})
    res = simulate(tr, hw)
    got = res.launches["dram_bandwidth_gbs"].iloc[0]
    assert res.launches["dram_reads"].iloc[0] == 4 * n4 * 4 // 128
    assert got == pytest.approx(dram_bandwidth_gbs(hw), rel=0.10)
    assert got <= dram_bandwidth_gbs(hw) * 1.001


def test_l1_resident_chase_shows_hit_latency(tmp_path):
    """Each thread chases a self-loop in one line: every load but the first
    hits L1, and the per-load time moves one for one with the hit latency."""
    def args(d):
        return [d.to_device(np.arange(32, dtype=np.uint32) * 4), d.zeros(32, np.uint32), 1000]
    tr = trace(tmp_path, [("chase", (1,), (32,), args)])
    loads = opcode_count(tr, "chase", "ld.global")
    per_load = {}
    for lat in (25, 60):
        res = simulate(tr, hardware(**{"l1.hit_latency": lat, "latency.int": 1, "latency.int_mul": 1}))
        L = res.launches.iloc[0]
        assert L["l1_misses"] == 1 and L["l1_accesses"] == loads
        per_load[lat] = L["cycles"] / loads
        # + the address add on the chain, loop overhead and the first (DRAM) miss
        assert lat <= per_load[lat] <= lat + 2
    assert per_load[60] - per_load[25] == pytest.approx(35, rel=0.02)


def test_mshr_bound_throughput(tmp_path):
    """L2-resident data, L1 misses only, few MSHRs: lines per cycle = MSHRs / latency."""
    n4 = 1 << 14   # 256 KiB: beyond L1, inside L2
    bufs = []

    def args(d):   # both launches read the same array
        bufs or bufs.extend([d.zeros(4 * n4, np.float32), d.zeros(2048, np.float32)])
        return [*bufs, n4]
    tr = trace(tmp_path, [("stream", (4,), (512,), args)] * 2)
    for mshrs in (4, 8):
        res = simulate(tr, hardware(cores=1, **{"l1.mshrs": mshrs}))
        L = res.launches.iloc[1]            # the second launch finds its data in L2
        assert L["l2_misses"] == 0 and L["l1_misses"] == n4 * 16 // 128
        lines_per_cycle = L["l1_misses"] / L["cycles"]
        assert lines_per_cycle == pytest.approx(mshrs / 120, rel=0.10)


def test_gto_beats_rr_on_cache_sensitive_kernel(tmp_path):
    """32 warps x 4 private lines, reread 8 times: the working set of all
    warps (16 KiB) exceeds an 8 KiB L1, that of the few warps GTO favours
    does not (Rogers et al.'s cache-conscious scheduling argument)."""
    lines, reps = 4, 8
    def args(d):
        return [d.zeros(1024 * lines * 32, np.float32), d.zeros(1024, np.float32), lines, reps]
    tr = trace(tmp_path, [("reuse", (4,), (256,), args)])
    base = {"cores": 1, "l1.size_bytes": 8192}
    rr = simulate(tr, hardware(scheduler="rr", **base)).launches.iloc[0]
    gto = simulate(tr, hardware(scheduler="gto", **base)).launches.iloc[0]
    assert gto["l1_miss_rate"] < 0.7 * rr["l1_miss_rate"]
    assert gto["cycles"] < rr["cycles"]


def test_barrier_holds_warps(tmp_path):
    n = 100
    def args(sync):
        return lambda d: [d.zeros(64, np.float32), n, sync]
    tr = trace(tmp_path, [("barrier_chain", (1,), (64,), args(0)), ("barrier_chain", (1,), (64,), args(1))])
    res = simulate(tr, hardware())
    free, synced = res.launches["cycles"].tolist()
    assert free >= n * 25 and synced / free == pytest.approx(2.0, rel=0.05)


def _stall_shares(res, cores):
    from pipeline_lib.sim.engine import STALL_NAMES
    st = res.stalls.iloc[0]
    total = st["cycles"] * cores
    assert sum(st[n] for n in STALL_NAMES) == total          # every SM-cycle in one category
    assert st["BASE"] == st["warp_instrs"]                   # issue width 1: a cycle per instruction
    return {n: st[n] / total for n in STALL_NAMES}


def test_stall_breakdown_names_what_the_warp_waits_for(tmp_path):
    """One warp on one SM: a dependent FMA chain waits on compute results
    (DEP, 24 of every 25 cycles), an L1-resident pointer chase on L1 hits;
    the breakdown is accounting only (the cycles are the same as before it
    existed: the chain's CPI is its latency, the chase's per-load time the
    hit latency, tested above)."""
    hw = hardware(cores=1)
    tr = trace(tmp_path / "dep", [("dep_chain", (1,), (32,), lambda d: [d.zeros(32, np.float32), 64])])
    dep = _stall_shares(simulate(tr, hw, stall_breakdown=True), 1)
    assert dep["DEP"] > 0.9 and dep["L1"] + dep["L2"] + dep["DRAM"] + dep["MSHR"] < 0.02

    def args(d):
        return [d.to_device(np.arange(32, dtype=np.uint32) * 4), d.zeros(32, np.uint32), 1000]
    tr = trace(tmp_path / "chase", [("chase", (1,), (32,), args)])
    chase = _stall_shares(simulate(tr, hardware(cores=1, **{"latency.int": 1, "latency.int_mul": 1}),
                                    stall_breakdown=True), 1)
    assert chase["L1"] > 0.8 and chase["DRAM"] < 0.05


def test_stall_breakdown_sees_the_mshrs_of_a_streaming_kernel(tmp_path):
    """A cold stream with 4 MSHRs: misses wait for an MSHR (MSHR) or for
    DRAM; with 256 MSHRs the MSHR share vanishes."""
    n4 = 1 << 14
    def args(d):
        return [d.zeros(4 * n4, np.float32), d.zeros(4 * 512, np.float32), n4]
    tr = trace(tmp_path, [("stream", (4,), (512,), args)], heap=1 << 23)
    few = _stall_shares(simulate(tr, hardware(cores=1, **{"l1.mshrs": 4}), stall_breakdown=True), 1)
    many = _stall_shares(simulate(tr, hardware(cores=1, **{"l1.mshrs": 256}), stall_breakdown=True), 1)
    assert few["MSHR"] > 0.3 and many["MSHR"] == 0.0
    assert many["DRAM"] + many["LSU"] > few["DRAM"]


def _l2_lines(sim):
    from pipeline_lib.sim import engine as E
    valid = sim.L2[E.L2_TAG] >= 0
    return (set(sim.L2[E.L2_TAG, valid].tolist()),
            set(sim.L2[E.L2_TAG, valid & (sim.L2[E.L2_DIRTY] == 1)].tolist()))


def test_functional_warming_leaves_the_caches_a_full_run_leaves(tmp_path):
    """A stream of 8 blocks whose data fits in the L2: skipping blocks 2-7
    (or the whole launch) with functional warming leaves the L2 holding the
    same lines, dirty the same, as simulating them; without warming the
    skipped blocks' lines are missing."""
    from pipeline_lib.sim.sampling import SamplingPolicy, SkipBlocksPolicy

    n4 = 1 << 13                                   # 128 KiB read, 16 KiB written: within the 768 KiB L2
    def args(d):
        return [d.zeros(4 * n4, np.float32), d.zeros(8 * 512, np.float32), n4]
    tr = trace(tmp_path, [("stream", (8,), (512,), args)], heap=1 << 22)
    hw = hardware(cores=2)
    full = Simulator(hw, tr)
    full.run()
    want = _l2_lines(full)
    assert len(want[0]) == (16 * n4 + 4 * 8 * 512) // 128 and len(want[1]) == 4 * 8 * 512 // 128

    class SkipLaunch(SamplingPolicy):
        def __init__(self, warm):
            self.functional_warming = warm

        def select_launch(self, launch):
            return False

        def predict(self, launch, row):
            return 0.0

    class SkipBlocks(SkipBlocksPolicy):
        def __init__(self, warm):
            super().__init__(keep=2)
            self.functional_warming = warm

    for policy in (SkipLaunch, SkipBlocks):
        warmed, cold = Simulator(hw, tr), Simulator(hw, tr)
        warmed.run(policy(True))
        cold.run(policy(False))
        assert _l2_lines(warmed) == want, policy.__name__
        assert len(_l2_lines(cold)[0]) < len(want[0])


class _LastOnly(SamplingPolicy):
    """Launches 0-2 skipped with functional warming, launch 3 simulated."""
    functional_warming = True

    def select_launch(self, launch):
        return launch["launch"] == 3

    def predict(self, launch, row):
        return 0.0 if row is None else float(row["cycles"])


def test_warming_only_the_last_skipped_launch_is_taken_when_exact_and_changes_no_output(tmp_path):
    """Four launches of a stream; launches 0-2 skipped with functional
    warming, 3 simulated.  Where the last skipped launch's reads cover every
    cache set (1 MiB against the 768 KiB L2), replaying it alone leaves the
    caches the whole replay leaves, so the earlier launches are not replayed;
    where they do not (64 KiB), every launch is.  Either way the outputs are
    those of replaying every skipped launch."""
    hw = hardware(cores=2)
    for n4, probe_exact in ((1 << 16, True), (1 << 12, False)):
        def args(d, n4=n4):
            return [d.zeros(4 * n4, np.float32), d.zeros(8 * 512, np.float32), n4]
        tr = trace(tmp_path / str(n4), [("stream", (8,), (512,), args)] * 4, heap=1 << 23)
        runs = []
        for every in (True, False):
            sim = Simulator(hw, tr)
            sim.warm_every_launch = every
            calls = []
            replay = sim._warm_launch
            sim._warm_launch = lambda launch, *a, **k: (calls.append(int(launch["launch"])), replay(launch, *a, **k))
            res = sim.run(_LastOnly())
            runs.append((res.launches.to_dict("records"), _l2_lines(sim), calls))
        assert runs[0][0] == runs[1][0] and runs[0][1] == runs[1][1]
        assert runs[0][2] == [0, 1, 2]
        # the probe replays launch 2 first; exact: nothing else, else the whole run again
        assert runs[1][2] == ([2] if probe_exact else [2, 0, 1, 2])


def test_points_of_a_batch_find_the_skipped_launches_stored_lines_once(tmp_path):
    """Warming only the last skipped launch asks which lines the earlier
    skipped launches store to (Simulator._stored_lines); they depend on the
    trace alone, so a second simulation of the same opened trace (a sweep
    batch's next point, another hardware) finds them kept and does not
    decode those launches again, with the outputs of a freshly opened
    trace."""
    n4 = 1 << 16
    tr = trace(tmp_path, [("stream", (8,), (512,), lambda d: [d.zeros(4 * n4, np.float32),
                                                           d.zeros(8 * 512, np.float32), n4])] * 4, heap=1 << 23)
    shared = TraceDir(tr.path)
    decoded = []
    read = shared.launch_trace
    shared.launch_trace = lambda launch: (decoded.append(int(launch)), read(launch))[1]
    for cores in (2, 3):
        decoded.clear()
        res = Simulator(hardware(cores=cores), shared).run(_LastOnly())
        fresh = Simulator(hardware(cores=cores), TraceDir(tr.path)).run(_LastOnly())
        assert res.launches.equals(fresh.launches)
        if cores == 2:
            assert sorted(k[1] for k in shared.derived if isinstance(k, tuple) and k[0] == "stored_lines") == [0, 1]
            assert sorted(decoded) == [0, 1, 2, 3]
        else:
            assert sorted(decoded) == [2, 3]       # the probe's launch and the simulated one
    # the kernel stores its 8 x 512 floats into one array: 128 consecutive lines, of the 8,320 it touches
    stored = shared.derived[("stored_lines", 0)]
    assert len(stored) == 8 * 512 * 4 // 128 and np.all(np.diff(stored) == 1)
    assert len(np.unique(shared.launch_trace(0).lines >> 7)) == 8320


def test_load_store_unit_takes_lines_per_cycle(tmp_path):
    """A divergent L1-resident chase (every lane in its own line): the last
    of a load's 32 lines leaves the load/store unit after ceil(32 / k) - 1
    cycles, so going from 1 to 4 lines per cycle saves 31 - 7 = 24 cycles a
    load; 1 line per cycle is the schema's default and changes nothing."""
    def args(d):
        nxt = np.zeros(32 * 32, np.uint32)
        lanes = np.arange(32, dtype=np.uint32)
        nxt[lanes] = lanes * 128          # the first load: word l -> lane l's own line
        nxt[lanes * 32] = lanes * 128     # then a self-loop inside that line
        return [d.to_device(nxt), d.zeros(32, np.uint32), 200]
    tr = trace(tmp_path, [("chase", (1,), (32,), args)])
    loads = opcode_count(tr, "chase", "ld.global")
    base = hardware(**{"latency.int": 1, "latency.int_mul": 1})
    assert "lines_per_cycle" not in base["l1"]
    cycles = {k: simulate(tr, hardware(**{"latency.int": 1, "latency.int_mul": 1, "l1.lines_per_cycle": k}))
              .launches.iloc[0] for k in (1, 4)}
    default = simulate(tr, base).launches.iloc[0]
    assert default["cycles"] == cycles[1]["cycles"]
    # the first load reads one line (words 0-31), every later one 32 lines
    assert cycles[1]["l1_accesses"] == cycles[4]["l1_accesses"] == 1 + 32 * (loads - 1)
    saved = (cycles[1]["cycles"] - cycles[4]["cycles"]) / (loads - 1)
    assert saved == pytest.approx(24, rel=0.03)


def _reference_lookup(tags, lru, base, ways, line):
    """The replacement rule in words, as (hit way, victim): the way holding
    ``line`` (no victim then); else the set's first empty way (tag -1); else
    the least recently used, the first of equal stamps (entries of unknown
    line, tag -2, count as occupied)."""
    ws = list(range(base, base + ways))
    for i in ws:
        if tags[i] == line:
            return i, None
    empty = [i for i in ws if tags[i] == -1]
    if empty:
        return -1, empty[0]
    oldest = min(lru[i] for i in ws)
    return -1, next(i for i in ws if lru[i] == oldest)


def test_set_lookup_finds_the_line_else_the_first_empty_else_the_least_recently_used_way():
    from pipeline_lib.sim.engine import UNKNOWN, set_lookup
    rng = np.random.default_rng(7)
    ways, sets = 8, 4
    for _ in range(2000):
        tags = rng.choice(np.array([-1, UNKNOWN, 10, 11, 12, 13, 14, 15, 16, 17], np.int64), ways * sets)
        lru = rng.integers(-1, 6, ways * sets).astype(np.int64)   # few stamps: ties happen; -1 as a warming probe's
        base = int(rng.integers(0, sets)) * ways
        line = int(rng.integers(10, 20))
        hit, victim = set_lookup(tags, lru, base, ways, line)
        want_hit, want_victim = _reference_lookup(tags, lru, base, ways, line)
        assert hit == want_hit, (tags[base:base + ways], line)
        if want_victim is not None:       # the victim matters on a miss only
            assert victim == want_victim, (tags[base:base + ways], lru[base:base + ways])
    # the cases by hand: an empty way wins over an older occupied one; among
    # occupied ways the first of the oldest stamps
    t = np.array([5, -1, 6, -1], np.int64)
    assert set_lookup(t, np.array([0, 9, 0, 9], np.int64), 0, 4, 7) == (-1, 1)
    t = np.array([5, 6, UNKNOWN, 8], np.int64)
    assert set_lookup(t, np.array([3, 2, 2, 4], np.int64), 0, 4, 7) == (-1, 1)
    assert set_lookup(t, np.array([3, 2, 2, 4], np.int64), 0, 4, 8)[0] == 3


@pytest.mark.parametrize("n", [1, 2, 4, 5, 6, 21, 32, 64, 256])
def test_mshr_heap_holds_the_release_cycles_with_the_earliest_at_its_root(n):
    """The MSHR heap (``heap_replace_min``, one row per SM): after each
    replacement of its smallest entry it holds the same multiset as a plain
    list treated so, with the smallest at position 0 -- the only one the
    engine reads.  Fails with a child skipped or a wrong stop."""
    from pipeline_lib.sim.engine import heap_replace_min
    rng = np.random.default_rng(n)
    h = np.zeros((3, n), np.int64)
    want = [0] * n
    for _ in range(2000):
        val = int(h[1, 0] + rng.integers(0, 50 if n > 4 else 3))     # ties happen
        heap_replace_min(h, 1, n, val)
        want.remove(min(want))
        want.append(val)
        assert h[1, 0] == min(want)
        assert sorted(h[1]) == sorted(want)
    assert not h[0].any() and not h[2].any()       # the other SMs' rows untouched
