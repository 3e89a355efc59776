"""The contention-aware model (pipeline_lib/gpumech/contention.py): each
term on a hand-worked case, and each term against the detailed simulator
when its resource is halved or doubled."""
import numpy as np
import pytest

from pipeline_lib.gpumech.contention import (STACK_C, TERMS, Resources, convoy_size, demands, mva, pass_time,
                                             predict_contention, waves)


def res(cores=1, mshrs=32, miss_latency=400.0, l2_service=2.0, slices=(1.0,), dram_service=4.0, channels=(1.0,),
        **kw):
    return Resources(cores=cores, mshrs=mshrs, miss_latency=miss_latency, l2_service=l2_service,
                     slice_share=slices, dram_service=dram_service, channel_share=channels, **kw)


def prof(insts, stall, **cols):
    n = len(insts)
    p = {"insts": np.asarray(insts, float), "stall_cycles": np.asarray(stall, float),
         "mem_insts": np.zeros(n), "mem_reqs": np.zeros(n)}
    for k in ("lsu_lines", "smem_ways", "miss_reqs", "l2_reqs", "dram_reqs"):
        p[k] = np.asarray(cols.get(k, np.zeros(n)), float)
    return p


def test_a_lone_warp_takes_its_single_warp_cycles():
    p = prof([10, 5], [100, 0], lsu_lines=[4, 0], miss_reqs=[4, 0], l2_reqs=[4, 0])
    z, local, shared = demands(p, res())
    # Z is what the stations do not account for: 115 cycles - 15 issue - 4 lines - 4 x 400 / 32 - 4 x 2
    assert z.sum() == pytest.approx(115 - 15 - 4 - 50 - 8)
    for sync in ("interval", "warp", "measured", "convoy"):
        assert pass_time(p, 1, 1, sync, res(in_step=0.5))["total"] == pytest.approx(115)


def test_many_warps_reach_the_issue_limit():
    p = prof([10], [90])
    t = pass_time(p, 1000, 1, "warp", res())
    assert t["total"] / (1000 * 10) == pytest.approx(1.0, rel=0.01)      # CPI -> 1 / issue rate
    # few warps: latency-bound, (insts + stall) / (N insts)
    assert pass_time(p, 2, 1, "warp", res())["total"] == pytest.approx(100, rel=0.02)


def test_mshrs_serve_misses_in_batches():
    # MDM: 16 warps x 32 misses = 512 requests in batches of 8 MSHRs, each batch 400 cycles: 25,600
    p = prof([2], [400], miss_reqs=[32])
    t = pass_time(p, 16, 1, "warp", res(mshrs=8, miss_latency=400.0))
    assert t["total"] == pytest.approx(16 * 32 * 400 / 8, rel=0.02)
    assert t["mshr"] > 0.9 * t["total"]
    # twice the MSHRs, half the time
    t2 = pass_time(p, 16, 1, "warp", res(mshrs=16, miss_latency=400.0))
    assert t2["total"] == pytest.approx(t["total"] / 2, rel=0.03)


def test_load_store_unit_sends_a_line_a_cycle():
    p = prof([1], [0], lsu_lines=[32])         # one fully divergent access per instruction
    t = pass_time(p, 32, 1, "warp", res())
    assert t["total"] / (32 * 1) == pytest.approx(32, rel=0.02)           # CPI 32: the LSU's pace


def test_a_hot_l2_slice_serialises_all_cores():
    # atomics on one line: every request of 4 cores x 8 warps at one slice, 2 cycles each
    p = prof([1], [10], l2_reqs=[32])
    hot = pass_time(p, 8, 4, "warp", res(cores=4, slices=(1.0, 0, 0, 0)))
    assert hot["total"] == pytest.approx(4 * 8 * 32 * 2, rel=0.02)
    spread = pass_time(p, 8, 4, "warp", res(cores=4, slices=(0.25,) * 4))
    # four balanced slices: a quarter of the time, plus some queueing as no one slice is the bottleneck
    assert hot["total"] / 4 <= spread["total"] <= 1.15 * hot["total"] / 4


def test_dram_channels_bound_the_streaming_rate():
    p = prof([4], [300], dram_reqs=[16])
    t = pass_time(p, 16, 2, "warp", res(cores=2, dram_service=4.0, channels=(0.5, 0.5)))
    # 2 cores x 16 warps x 16 lines over 2 channels at 4 cycles a line (two balanced channels: the
    # asymptote is approached from above)
    bound = 2 * 16 * 16 * 4 / 2
    assert bound <= t["total"] <= 1.1 * bound
    one = pass_time(p, 16, 2, "warp", res(cores=2, dram_service=4.0, channels=(1.0,)))
    assert one["total"] == pytest.approx(2 * bound, rel=0.02)


def test_launch_tail_waves():
    assert waves(70, 4, 8) == [(2, 8, 4), (1, 2, 4)]       # 64 blocks in 2 full waves, 6 left: 2 on a core
    assert waves(3, 4, 8) == [(1, 1, 3)]
    assert waves(64, 4, 8) == [(2, 8, 4)]
    p = prof([10], [990])                                  # latency-bound: a wave takes as long whatever its size
    full = predict_contention(p, 4, 2, 32, "warp", res(cores=4))          # 4 full waves of 8 blocks
    tail = predict_contention(p, 4, 2, 36, "warp", res(cores=4))          # and a fifth of 4 blocks
    assert full["TAIL"] == pytest.approx(0.0)
    # the fifth wave costs a full wave's time for half its work: CPI x 5 / 4.5
    assert tail["cpi"] == pytest.approx(full["cpi"] * 5 / 4.5, rel=0.01)
    assert tail["TAIL"] > 0 and "tail" in TERMS
    no_tail = predict_contention(p, 4, 2, 36, "warp", res(cores=4, terms=frozenset(TERMS) - {"tail"}))
    assert no_tail["cpi"] == pytest.approx(full["cpi"])


def test_launch_demands_replace_the_representative_warps():
    p = prof([10], [100], lsu_lines=[5], l2_reqs=[5])
    per_inst = {"lsu_lines": 2.0, "smem_ways": 0.0, "miss_reqs": 0.0, "l2_reqs": 0.5, "dram_reqs": 0.0}
    _, local, shared = demands(p, res(per_inst=per_inst))
    assert local[0, 1] == pytest.approx(20.0)                   # 10 instructions x 2 lines
    assert shared[0, 0] == pytest.approx(10 * 0.5 * 2.0)        # 5 L2 requests x 2 cycles


def test_stack_sums_to_the_prediction():
    p = prof([5, 3], [200, 40], lsu_lines=[8, 0], miss_reqs=[6, 0], l2_reqs=[6, 1], dram_reqs=[2, 1])
    p.update(stall_dep=np.array([0.0, 40]), stall_l1=np.zeros(2), stall_l2=np.array([100.0, 0]),
             stall_dram=np.array([100.0, 0]))
    r = res(cores=4, slices=(0.5, 0.5), channels=(0.5, 0.5))
    out = predict_contention(p, 2, 4, 50, "interval", r)
    assert sum(out[k] for k in STACK_C) == pytest.approx(out["cpi"])


def test_mva_matches_the_exact_single_station_solution():
    # one queue (D = 10) and a delay (Z = 100), exact MVA by recursion over the population
    def exact(n):
        q = 0.0
        for k in range(1, n + 1):
            r = 10 * (1 + q)
            x = k / (100 + r)
            q = x * r
        return 100 + r
    for n in (1, 4, 11, 30):
        r_loc, _ = mva(np.array([100.0]), np.array([[10.0, 0, 0, 0]]), np.zeros((1, 1)), n, 1)
        assert 100 + r_loc.sum() == pytest.approx(exact(n), rel=0.06)


def test_bad_resources_are_named():
    with pytest.raises(ValueError, match="slice_share"):
        res(slices=(0.5, 0.2))
    with pytest.raises(ValueError, match="unknown contention term"):
        res(terms=frozenset({"noc"}))
    with pytest.raises(ValueError, match="synchronisation"):
        pass_time(prof([1], [0]), 1, 1, "lockstep", res())


# -- each term against the detailed simulator -------------------------------

def _stream_trace(tmp_path, n4, launches, grid):
    from test_simulator_timing import trace
    bufs = []

    def args(d):    # every launch reads the same array
        bufs or bufs.extend([d.zeros(4 * n4, np.float32), d.zeros(grid * 512, np.float32)])
        return [*bufs, n4]
    return trace(tmp_path, [("stream", (grid,), (512,), args)] * launches, heap=1 << 23)


def _sim_and_model(tr, hw, launch):
    from pipeline_lib.gpumech.analysis import GPUMech
    from pipeline_lib.gpumech.contention import MODEL
    from pipeline_lib.sim.simulator import Simulator
    L = Simulator(hw, tr).run().launches.set_index("launch").loc[launch]
    sim_cpi = L["cycles"] * hw["cores"] / L["warp_instrs"]
    P = GPUMech(hw).run(tr)["predictions"]
    cpi = P[(P["launch"] == launch) & (P["selection"] == "clustering") & (P["policy"] == hw["scheduler"])
            & (P["model"] == MODEL)]["cpi"].iloc[0]
    return sim_cpi, cpi


@pytest.mark.parametrize("field, values, n4, launches, grid, cores", [
    ("l1.mshrs", [4, 8, 16], 1 << 14, 2, 4, 1),                  # L2-resident stream: MSHR-bound
    ("l2.bytes_per_clock", [16, 32, 64], 1 << 15, 2, 16, 8),      # 8 cores, data beyond the L1s in the L2
    ("dram.clock_mhz", [500, 1000, 2000], 1 << 17, 1, 8, 4),      # cold stream from DRAM: bandwidth-bound
])
def test_each_term_follows_the_simulator_when_its_resource_changes(tmp_path, field, values, n4, launches, grid,
                                                                   cores):
    from test_simulator_timing import hardware
    tr = _stream_trace(tmp_path, n4, launches, grid)
    extra = {"l1.mshrs": 256} if field != "l1.mshrs" else {}
    got = [_sim_and_model(tr, hardware(cores=cores, **{field: v, **extra}), launches - 1) for v in values]
    sim, model = np.array(got).T
    # halving the resource slows both down, doubling it speeds both up, by comparable factors
    assert sim[0] > 1.1 * sim[1] and sim[1] > 1.1 * sim[2]
    assert model[0] > 1.1 * model[1] and model[1] > 1.1 * model[2]
    for i in range(2):
        assert (model[i] / model[i + 1]) == pytest.approx(sim[i] / sim[i + 1], rel=0.35)


def test_calibration_names_the_missing_inputs(tmp_path):
    from pipeline_lib.gpumech.calibrate import sync_errors
    with pytest.raises(FileNotFoundError, match=r"calibration of cfd-s: missing .*traces/cfd-s.*gpumech-baseline-gto"):
        sync_errors(["cfd-s"], "gpumech-baseline", tmp_path, 3.0)


def test_the_measured_reading_weighs_the_in_step_and_drifted_readings():
    """pass_time's ``measured`` reading: the warp reading at in_step 0, the
    interval reading at 1, their mean at 0.5, category by category."""
    p = prof([10, 2], [50, 400], lsu_lines=[0, 8], miss_reqs=[0, 8], l2_reqs=[0, 8], dram_reqs=[0, 8])
    a, b = pass_time(p, 16, 2, "interval", res(cores=2, mshrs=8)), pass_time(p, 16, 2, "warp", res(cores=2, mshrs=8))
    assert a["total"] != pytest.approx(b["total"], rel=1e-3)
    for s, want in ((0.0, b), (1.0, a), (0.5, {k: (a[k] + b[k]) / 2 for k in a})):
        assert pass_time(p, 16, 2, "measured", res(cores=2, mshrs=8, in_step=s)) == pytest.approx(want)


def test_convoys_are_the_runs_of_in_step_issues():
    """g warps in step repeat the PC g - 1 times in g issues: s = (g - 1) / g."""
    assert convoy_size(0.0, 32) == 1.0
    assert convoy_size(0.5, 32) == pytest.approx(2.0)
    assert convoy_size(0.75, 32) == pytest.approx(4.0)
    assert convoy_size(0.99, 32) == 32.0 and convoy_size(1.0, 32) == 32.0     # at most the core's warps


def test_the_convoy_reading_without_convoys_is_the_warp_reading():
    p = prof([10, 2], [50, 400], lsu_lines=[0, 8], miss_reqs=[0, 8], l2_reqs=[0, 8], dram_reqs=[0, 8])
    r = res(cores=2, mshrs=8, in_step=0.0)
    assert pass_time(p, 16, 2, "convoy", r) == pytest.approx(pass_time(p, 16, 2, "warp", r))
    # at the knee (48 warps x 5 issue cycles = a 240-cycle path), bigger convoys are fewer, heavier
    # customers: less of the latency is hidden, and the pass grows with the convoy
    knee = prof([5], [235])
    t = [pass_time(knee, 48, 1, "convoy", res(in_step=s))["total"] for s in (0.0, 0.5, 0.75)]
    assert t[0] * 1.02 < t[1] and t[1] * 1.02 < t[2]


def test_a_lock_stepped_core_overlaps_each_interval_with_the_next():
    """Hand-worked: 4 warps in lock step (in_step 1), interval 1 = 10
    instructions then a 20-cycle stall, interval 2 = 1 instruction then 100.
    Round robin issues interval 1 of the 4 warps in cycles 0-39; warp 0 is
    ready again at 30 but the port is busy until 40 (g x demand = 40 >
    path 30); interval 2 issues in 40-43 and warp 0 waits until 40 + 101.
    The pass takes 40 + 101 = 141 cycles for the core's 4 warps; the serial
    in-step reading (interval) would charge more, the drifted one (warp) less."""
    p = prof([10, 1], [20, 100])
    t = pass_time(p, 4, 1, "convoy", res(in_step=1.0))
    assert t["total"] == pytest.approx(141.0)
    assert t["issue"] == pytest.approx(44.0) and t["delay"] == pytest.approx(97.0)
    assert pass_time(p, 4, 1, "warp", res())["total"] < 141.0


def test_calibration_chooses_the_pacing_by_its_best_readings_and_then_the_readings():
    import pandas as pd

    from pipeline_lib.gpumech.calibrate import choose
    rows = [("rr", False, "convoy", 0.125), ("rr", False, "warp", 0.25), ("gto", False, "measured", 0.125),
            ("rr", True, "convoy", 0.1875), ("rr", True, "interval", 0.0625), ("gto", True, "warp", 0.125)]
    t = pd.DataFrame(rows, columns=["policy", "pacing", "sync", "error"])
    # best readings: unpaced 0.125 and 0.125 (mean 0.125), paced 0.0625 and 0.125 (mean 0.09375)
    assert choose(t) == (True, {"rr": "interval", "gto": "warp"})
    t.loc[t["pacing"], "error"] += 0.03125                    # now a tie at 0.125: no pacing
    assert choose(t) == (False, {"rr": "convoy", "gto": "measured"})


def _numpy_prediction(p, wpb, occ, blocks, sync, r):
    """The network as it was written in numpy before it was compiled (the
    reference whose bits the compiled form keeps): per-interval demands,
    the four readings, the waves.  Returns the CPI and the steady pass."""
    insts = np.asarray(p["insts"], float)

    def column(name):
        src = name if name in p or name != "dram_reqs" else "mem_reqs"
        v = np.asarray(p.get(src, 0 * insts), float)
        if r.per_inst is None:
            return v
        total = insts.sum() * r.per_inst[name]
        return v * (total / v.sum()) if v.sum() > 0 else insts * (total / insts.sum())
    on = r.terms
    local = np.column_stack([insts / r.issue_rate, column("lsu_lines") / r.lsu_rate * ("lsu" in on),
                             column("smem_ways") * ("smem" in on),
                             column("miss_reqs") * r.miss_latency / r.mshrs * ("mshr" in on)])
    l2 = np.asarray(r.slice_share) * r.l2_service * ("l2" in on)
    dram = np.asarray(r.channel_share) * r.dram_service * ("dram" in on)
    shared = np.hstack([column("l2_reqs")[:, None] * l2, column("dram_reqs")[:, None] * dram])
    z = np.maximum(insts / r.issue_rate + np.asarray(p["stall_cycles"], float) - local.sum(1) - shared.sum(1), 0.0)

    def one(warps, cores, how):
        if how == "measured":
            s = min(max(r.in_step, 0.0), 1.0)
            a, b = one(warps, cores, "interval"), one(warps, cores, "warp")
            return {k: s * a[k] + (1 - s) * b[k] for k in a}
        zz, ll, sh = z, local, shared
        if how == "convoy":
            g = convoy_size(r.in_step, warps)
            path = z + local.sum(1) + shared.sum(1)
            lc, sc = g * local, g * shared
            step = np.maximum(path, np.hstack([lc, sc]).max(1))
            zc = np.maximum(step - lc.sum(1) - sc.sum(1), 0.0)
            zz, ll, sh, warps = zc.sum(keepdims=True), lc.sum(0, keepdims=True), sc.sum(0, keepdims=True), warps / g
        elif how == "warp":
            zz, ll, sh = z.sum(keepdims=True), local.sum(0, keepdims=True), shared.sum(0, keepdims=True)
        r_loc, r_sh = mva(zz, ll, sh, warps, cores)
        ns = len(r.slice_share)
        out = {"delay": float(zz.sum())}
        out.update({k: float(r_loc[:, i].sum()) for i, k in enumerate(("issue", "lsu", "smem", "mshr"))})
        out["l2"], out["dram"] = float(r_sh[:, :ns].sum()), float(r_sh[:, ns:].sum())
        out["total"] = out["delay"] + sum(out[k] for k in ("issue", "lsu", "smem", "mshr")) + out["l2"] + out["dram"]
        return out
    steady = one(occ * wpb, r.cores, sync)
    cycles = 0.0
    for count, per_core, active in waves(blocks, r.cores, occ):
        if "tail" in on and (per_core, active) != (occ, r.cores):
            cycles += count * one(per_core * wpb, active, sync)["total"]
        else:
            cycles += count * steady["total"] * per_core * active / (occ * r.cores)
    return cycles * r.cores / (blocks * wpb * float(np.sum(insts))), steady


@pytest.mark.parametrize("sync", ["interval", "warp", "measured", "convoy"])
def test_the_compiled_network_keeps_numpys_figures(sync):
    """predict_contention and pass_time give the bits of the numpy
    network above, on random profiles (up to 300 intervals: past numpy's
    8- and 128-element summation blocks), with and without the launch's
    rates, every term left out in turn, and partial last waves."""
    rng = np.random.default_rng(11)
    for case in range(40):
        n = int(rng.choice([1, 3, 9, 130, 300]))
        cols = {k: rng.random(n) * rng.choice([0.0, 3.0, 40.0]) for k in ("lsu_lines", "smem_ways", "miss_reqs",
                                                                            "l2_reqs", "dram_reqs")}
        p = prof(rng.integers(1, 50, n), rng.random(n) * 500, **cols)
        ns, nc = int(rng.integers(1, 7)), int(rng.integers(1, 7))
        per_inst = None if case % 2 else {k: float(rng.random()) for k in cols}
        terms = frozenset(TERMS) - {TERMS[case % len(TERMS)]} if case % 3 == 0 else frozenset(TERMS)
        r = res(cores=int(rng.integers(1, 16)), mshrs=int(rng.integers(1, 64)),
                miss_latency=float(rng.uniform(50, 600)), slices=tuple(rng.dirichlet(np.ones(ns))), channels=tuple(rng.dirichlet(np.ones(nc))),
                per_inst=per_inst, terms=terms, in_step=float(rng.random()))
        wpb, occ = int(rng.integers(1, 9)), int(rng.integers(1, 7))
        blocks = int(rng.integers(1, 5 * r.cores * occ))
        want, steady = _numpy_prediction(p, wpb, occ, blocks, sync, r)
        got = predict_contention(p, wpb, occ, blocks, sync, r)
        assert got["cpi"] == want
        assert pass_time(p, occ * wpb, r.cores, sync, r) == steady
