"""TBPoint (seed 000, chapter 3): each equation on small hand-worked inputs."""
import numpy as np
import pandas as pd
import pytest

from pipeline_lib.stats import cov
from pipeline_lib.tbpoint import markov
from pipeline_lib.tbpoint.clustering import closest_to_centre, threshold_clusters
from pipeline_lib.tbpoint.inter_launch import FEATURES, InterLaunchSampler, launch_features
from pipeline_lib.tbpoint.regions import RegionFinder, epoch_table, workload_regions


# -- eq. 6 and 3.3 ------------------------------------------------------------------
def _launches(rows):
    return pd.DataFrame(rows, columns=["launch", "kernel", "thread_instrs", "warp_instrs", "mem_requests",
                                       "tb_size_cov"])


def test_launch_features_normalise_by_mean():
    L = _launches([(0, "k", 100, 10, 4, 0.0), (1, "k", 300, 30, 0, 0.5)])
    f = launch_features(L)
    assert f["f_thread_instrs"].tolist() == [0.5, 1.5]
    assert f["f_warp_instrs"].tolist() == [0.5, 1.5]
    assert f["f_mem_requests"].tolist() == [2.0, 0.0]
    assert f["f_tb_size_cov"].tolist() == [0.0, 0.5]


def test_launch_features_without_memory_requests_are_zero_not_nan():
    f = launch_features(_launches([(0, "k", 10, 1, 0, 0.0), (1, "k", 10, 1, 0, 0.0)]))
    assert f["f_mem_requests"].tolist() == [0.0, 0.0]


def test_threshold_is_the_largest_distance_inside_a_cluster():
    # 0, 0.06, 0.12: single linkage at 0.1 would chain all three; complete
    # linkage must not put 0 and 0.12 (distance 0.12 > 0.1) together
    labels = threshold_clusters(np.array([0.0, 0.06, 0.12, 1.0]), 0.1)
    assert labels[3] not in labels[:3]
    assert len(set(labels[:3])) == 2
    assert labels[0] == 0                       # numbered by first appearance
    for c in set(labels):
        x = np.array([0.0, 0.06, 0.12, 1.0])[labels == c]
        assert x.max() - x.min() <= 0.1
    assert threshold_clusters(np.array([0.0, 0.06, 0.12]), 0.2).tolist() == [0, 0, 0]


def test_representative_is_closest_to_centre_and_weights_follow_instructions():
    # two clusters: launches 0-2 (features 1.0, 1.02, 1.04: centre 1.02 -> launch 1) and 3
    L = _launches([(0, "a", 100, 100, 0, 0.0), (1, "a", 102, 102, 0, 0.0), (2, "a", 104, 104, 0, 0.0),
                   (3, "b", 200, 200, 0, 0.0)])
    f = launch_features(L)
    s = InterLaunchSampler(0.1).fit(f)
    t = s.table(f)
    assert t["cluster"].tolist() == [0, 0, 0, 1]
    assert s.representatives_.tolist() == [1, 3]
    np.testing.assert_allclose(s.weights_, [306 / 506, 200 / 506])
    assert t["is_representative"].tolist() == [False, True, False, True]
    # Table 4: total CPI from representative CPIs and cluster weights
    assert InterLaunchSampler.total_cpi([2.0, 4.0], s.weights_) == pytest.approx(2 * 306 / 506 + 4 * 200 / 506)


def test_launches_of_different_kernels_never_share_a_cluster():
    """Two kernels with the same sizes (mst's relabel and hook launches):
    the seed's clustering (all launches together) merges them, ours keeps
    each kernel apart, numbering clusters by their first launch."""
    L = _launches([(0, "hook", 100, 100, 0, 0.0), (1, "relabel", 101, 101, 0, 0.0), (2, "hook", 102, 102, 0, 0.0),
                   (3, "relabel", 100, 100, 0, 0.0), (4, "hook", 300, 300, 0, 0.0)])
    f = launch_features(L)
    seed = InterLaunchSampler(0.1, within_kernel=False).fit(f).table(f)
    assert seed["cluster"].tolist()[:4] == [0, 0, 0, 0]
    ours = InterLaunchSampler(0.1).fit(f).table(f)
    assert ours["cluster"].tolist() == [0, 1, 0, 1, 2]
    for _, g in ours.groupby("cluster"):
        assert g["kernel"].nunique() == 1
        rep = g["representative"].iloc[0]
        assert ours.loc[ours["launch"] == rep, "kernel"].item() == g["kernel"].iloc[0]


def test_kernel_scaled_features_keep_sigma_relative_within_each_kernel():
    """Three large launches of one kernel 2% apart beside many small
    launches of another (mst's find_min beside hook): divided by the
    workload's mean the large ones are 5+ units apart per feature and fall
    into three clusters; divided by their kernel's mean they are 0.02
    apart and form one."""
    rows = [(i, "big", s, s, s // 4, 0.0) for i, s in enumerate((1000_000, 1020_000, 1040_000))]
    rows += [(3 + i, "small", 10_000, 10_000, 2_500, 0.0) for i in range(30)]
    f_w, f_k = launch_features(_launches(rows)), launch_features(_launches(rows), "kernel")
    big = [0, 1, 2]
    assert InterLaunchSampler(0.1).fit(f_w).labels_[big].tolist() == [0, 1, 2]
    assert len(set(InterLaunchSampler(0.1).fit(f_k).labels_[big].tolist())) == 1
    np.testing.assert_allclose(f_k.loc[f_k["kernel"] == "small", FEATURES[:3]].to_numpy(), 1.0)
    with pytest.raises(ValueError, match="inter_scale"):
        launch_features(_launches(rows), "application")


def test_log_scaled_features_keep_launches_of_very_different_sizes_apart():
    """sssp-rmat's paper input: the relax launches' sizes, from millions of
    warp instructions down to 118.  Divided by the kernel's mean, every
    launch under a few per cent of the mean is within sigma of the others
    (146,750 and 118 in one cluster); on the log scale each stands apart,
    while launches 2% apart still merge."""
    sizes = (406_411, 11_345_303, 20_263_643, 14_253_194, 2_984_813, 764_008, 146_750, 19_453, 2_552, 250, 118)
    rows = [(i, "relax", s * 8, s, s // 2, 0.0) for i, s in enumerate(sizes)]
    f_k, f_l = launch_features(_launches(rows), "kernel"), launch_features(_launches(rows), "log")
    lab_k = InterLaunchSampler(0.1).fit(f_k).labels_
    lab_l = InterLaunchSampler(0.1).fit(f_l).labels_
    assert lab_k[6] == lab_k[7] == lab_k[8] == lab_k[9] == lab_k[10]     # 146,750 down to 118: one cluster
    assert len(set(lab_l.tolist())) == len(sizes)
    twins = launch_features(_launches(rows + [(11, "relax", 20_670_000 * 8, 20_670_000, 20_670_000 // 2, 0.0)]),
                            "log")
    lab = InterLaunchSampler(0.1).fit(twins).labels_
    assert lab[2] == lab[11]                            # 20.26 M and 20.67 M: 2% apart
    # near the kernel's mean the log distance is about the seed's distance
    mean = np.mean(sizes)
    near = launch_features(_launches([(0, "k", mean * 8, mean, mean // 2, 0.0),
                                      (1, "k", mean * 8.8, mean * 1.1, mean * 1.1 // 2, 0.0)]), "log")
    d = np.linalg.norm(near[FEATURES].to_numpy()[0] - near[FEATURES].to_numpy()[1])
    assert d == pytest.approx(np.sqrt(3) * np.log(1.1), rel=1e-3)


def test_closest_to_centre_ties_go_to_the_lowest_index():
    assert closest_to_centre(np.array([0.0, 1.0]), np.array([0, 0])).tolist() == [0]


def test_identical_launches_are_represented_by_the_middle_one_not_the_cold_first():
    """Four identical launches of one kernel between others: the seed picks
    the first (the coldest caches), ours the middle one in launch order; a
    launch closer to the centre still wins over equally distant ones."""
    L = _launches([(0, "a", 100, 100, 0, 0.0), (1, "b", 50, 50, 0, 0.0), (2, "a", 100, 100, 0, 0.0),
                   (3, "b", 50, 50, 0, 0.0), (4, "a", 100, 100, 0, 0.0), (5, "a", 100, 100, 0, 0.0)])
    f = launch_features(L)
    assert InterLaunchSampler(0.1, representative="first").fit(f).representatives_.tolist() == [0, 1]
    assert InterLaunchSampler(0.1).fit(f).representatives_.tolist() == [4, 3]
    assert closest_to_centre(np.array([0.0, 1.0, 2.0, 1.0]), np.array([0, 0, 0, 0]), "middle").tolist() == [3]
    with pytest.raises(ValueError, match="tbpoint.representative"):
        closest_to_centre(np.array([0.0]), np.array([0]), "last")


# -- 3.4.4 warming rules ------------------------------------------------------------------
def test_the_seeds_warming_rule_stops_inside_a_slow_transient_and_ours_waits_it_out():
    """Reduction's first units run at 6.7 and 6.5 IPC, the steady state at
    8: the seed's two consecutive units within 10% stop at the second unit,
    ours drops the transient (MSER) and returns the steady mean."""
    from pipeline_lib.tbpoint.warming import confidence, consecutive, mser_truncation
    series = [6.73, 6.45, 7.9, 8.0, 8.05, 7.95]
    assert consecutive(series[:2], 0.1) == pytest.approx(6.45)
    stops = [n for n in range(1, len(series) + 1) if confidence(series[:n], 0.1) is not None]
    assert stops and stops[0] >= 4
    n = stops[0]
    assert mser_truncation(series[:n]) >= 2
    assert confidence(series[:n], 0.1) == pytest.approx(np.mean(series[2:n]))


def test_mser_truncation_keeps_numpys_ties():
    """The compiled MSER gives numpy's figures, so ties (repeated IPCs,
    constant series) fall on the same ``d`` as the numpy loop it replaced."""
    from pipeline_lib.tbpoint.warming import mser_truncation

    def numpy_mser(x):
        x = np.asarray(x, float)
        best, best_d = np.inf, 0
        for d in range(0, min(len(x) // 2, len(x) - 2) + 1):
            rest = x[d:]
            v = float(((rest - rest.mean()) ** 2).sum()) / len(rest) ** 2
            if v < best:
                best, best_d = v, d
        return best_d

    rng = np.random.default_rng(3)
    for k in range(600):
        x = rng.random(int(rng.integers(0, 300))) * 10
        x = np.round(x, 1) if k % 3 == 0 else (np.full(len(x), 3.3) if k % 7 == 0 else x)
        assert mser_truncation(x) == numpy_mser(x)
        assert mser_truncation(list(x)) == numpy_mser(x)


def test_a_noisier_region_simulates_more_units_before_the_confidence_rule_stops():
    from pipeline_lib.tbpoint.warming import confidence
    rng = np.random.default_rng(0)

    def units_needed(sd):
        x = []
        while confidence(x, 0.1) is None:
            x.append(10.0 * (1 + sd * rng.standard_normal()))
        return len(x)

    quiet = np.mean([units_needed(0.02) for _ in range(20)])
    noisy = np.mean([units_needed(0.15) for _ in range(20)])
    assert quiet < noisy
    assert confidence([10.0, 10.0], 0.1) == 10.0           # two equal units: no doubt left
    with pytest.raises(ValueError, match="warming_rule"):
        from pipeline_lib.tbpoint.warming import region_ipc
        region_ipc("never", [1.0], 0.1)


# -- eqs. 8, 9 and Fig. 8 --------------------------------------------------------------
def _blocks(mem, warp):
    return pd.DataFrame({"launch": 0, "block": np.arange(len(mem)), "mem_requests": mem, "warp_instrs": warp})


def test_epochs_stall_probability_and_variation_factor():
    # epoch size 2: blocks (2/10, 4/10) and (3/10, 3/10)
    e = epoch_table(_blocks([2, 4, 3, 3], [10, 10, 10, 10]), 2)
    assert e["first_block"].tolist() == [0, 2] and e["last_block"].tolist() == [1, 3]
    np.testing.assert_allclose(e["stall_probability"], [0.3, 0.3])
    np.testing.assert_allclose(e["cov_mem_requests"], [1 / 3, 0.0])     # std 1, mean 3
    np.testing.assert_allclose(e["variation_factor"], [1 / 3, 0.0])
    assert cov([5, 5]) == 0.0 and cov([]) == 0.0


def test_last_epoch_may_be_partial():
    e = epoch_table(_blocks([1] * 5, [10] * 5), 2)
    assert e["n_blocks"].tolist() == [2, 2, 1]


def test_figure8_worked_example():
    """Fig. 8: eight epochs; the first four have stall probability 0.2, the
    last four another one; epochs 3 and 4 hold an outlier block (high
    variation factor).  Two regions: epochs 1-2 and epochs 5-8."""
    size = 4
    mem, warp = [], []
    for ep in range(8):
        for b in range(size):
            if ep < 4:
                if ep in (2, 3) and b == 0:      # outlier: 4x the instructions, same p
                    mem.append(80), warp.append(400)
                else:
                    mem.append(20), warp.append(100)
            else:
                mem.append(60), warp.append(100)
    e = epoch_table(_blocks(mem, warp), size)
    np.testing.assert_allclose(e["stall_probability"], [0.2] * 4 + [0.6] * 4)
    assert (e["variation_factor"].to_numpy()[[2, 3]] > 0.3).all()
    f = RegionFinder(sigma=0.2, max_variation=0.3).fit(e)
    assert f.epochs_["outlier"].tolist() == [False, False, True, True, False, False, False, False]
    assert len(set(f.epochs_["cluster"])) == 4           # two clusters + one per outlier epoch
    r = f.regions_
    assert r[["start_block", "end_block", "n_epochs"]].values.tolist() == [[0, 7, 2], [16, 31, 4]]
    assert f.epochs_["region"].tolist() == [0, 0, -1, -1, 1, 1, 1, 1]


def test_epoch_variation_is_that_of_the_epochs_mean_block():
    """Irregular but stationary work (spmv-vector's rows): 112 blocks of an
    epoch with a per-block CoV near 0.4 is an outlier under the seed's
    per-block factor, not under the epoch's (0.4 / sqrt(112)); Fig. 8's
    outlier epochs (one block of four with 4x the work) stay outliers."""
    rng = np.random.default_rng(0)
    warp = np.round(rng.gamma(6.0, 100.0, 4 * 112)).astype(int) + 1
    blocks = _blocks(warp // 10, warp)
    seed, ours = epoch_table(blocks, 112), epoch_table(blocks, 112, "epoch")
    assert (seed["variation_factor"] > 0.3).all() and (ours["variation_factor"] < 0.1).all()
    np.testing.assert_allclose(ours["variation_factor"], seed["variation_factor"] / np.sqrt(112))
    assert RegionFinder().fit(seed).regions_.empty and len(RegionFinder().fit(ours).regions_) == 1
    fig8 = epoch_table(_blocks([20, 20, 20, 20, 80, 20, 20, 20], [100, 100, 100, 100, 400, 100, 100, 100]), 4,
                       "epoch")
    assert fig8["variation_factor"].tolist()[0] == 0.0 and fig8["variation_factor"].tolist()[1] > 0.3
    with pytest.raises(ValueError, match="tbpoint.variation"):
        epoch_table(blocks, 112, "launch")


def test_epoch_table_keeps_numpys_figures():
    """The compiled per-epoch statistics give numpy's bits: each epoch's
    mean stall probability and :func:`cov` as numpy computes them on the
    epoch's slice (the tables' bytes depend on it), on ragged last epochs
    and epochs over numpy's 8- and 128-element summation blocks."""
    rng = np.random.default_rng(7)
    for n, size in ((1, 1), (5, 2), (300, 7), (1000, 112), (2000, 300), (517, 129)):
        mem = rng.integers(0, 10 ** 6, n)
        warp = rng.integers(0, 10 ** 7, n)
        e = epoch_table(_blocks(mem, warp), size)
        x, y = mem.astype(float), warp.astype(float)
        p = np.divide(x, y, out=np.zeros_like(x), where=y > 0)
        for j, lo in enumerate(range(0, n, size)):
            sl = slice(lo, lo + size)
            assert e["stall_probability"].iloc[j] == float(p[sl].mean())
            assert e["cov_mem_requests"].iloc[j] == cov(x[sl])
            assert e["cov_warp_instrs"].iloc[j] == cov(y[sl])


def test_single_epoch_runs_are_no_region_unless_allowed():
    e = epoch_table(_blocks([1, 1, 9, 9], [10, 10, 10, 10]), 2)   # p 0.1 then 0.9
    assert RegionFinder().fit(e).regions_.empty
    assert len(RegionFinder(min_epochs=1).fit(e).regions_) == 2


def test_epoch_size_is_the_system_occupancy():
    from pipeline_lib.sim import load_hardware
    hw = load_hardware("tbpoint-fermi")
    launches = pd.DataFrame([{"launch": 0, "threads_per_block": 256, "regs_per_thread": 16, "shared_bytes": 0}])
    blocks = _blocks([1] * 500, [10] * 500)
    epochs, _ = workload_regions(launches, blocks, hw)
    from pipeline_lib.sim.hardware import occupancy
    occ = occupancy(hw, 256, 16, 0)["system_occupancy"]
    assert (epochs["epoch_size"] == occ).all()
    assert epochs["n_blocks"].iloc[0] == occ and len(epochs) == -(-500 // occ)


# -- eq. 7 -------------------------------------------------------------------------------
def test_transition_matrix_entries_follow_eq7():
    p, ms = 0.1, [10.0, 20.0]
    T = markov.transition_matrix(p, ms)
    np.testing.assert_allclose(T.sum(axis=1), 1.0)
    # state 3 = 11 (both runnable) -> 1 = 01: warp 1 (MSB) stalls, warp 2 stays runnable
    assert T[3, 1] == pytest.approx(p * (1 - p))
    # state 0 = 00 -> 2 = 10: warp 1 wakes (1/M1), warp 2 stays stalled (1 - 1/M2)
    assert T[0, 2] == pytest.approx((1 / 10) * (1 - 1 / 20))
    np.testing.assert_allclose(T, np.kron(markov.warp_factor(p, 10), markov.warp_factor(p, 20)))


@pytest.mark.parametrize("p,ms", [(0.05, [100, 100, 100, 100]), (0.2, [30, 50, 80]), (0.5, [3.0])])
def test_steady_state_methods_agree(p, ms):
    dense = markov.steady_state(p, ms, method="dense")
    power = markov.steady_state(p, ms, method="power")
    prod = markov.steady_state(p, ms, method="product")
    np.testing.assert_allclose(dense, prod, atol=1e-9)
    np.testing.assert_allclose(power, prod, atol=1e-9)
    assert markov.interval_ipc(p, ms) == pytest.approx(1 - prod[0])


def test_single_warp_ipc_by_hand():
    # one warp: runnable share 1 / (1 + pM); p=0.1, M=10 -> 0.5
    assert markov.interval_ipc(0.1, [10.0]) == pytest.approx(0.5)
    # four such warps: 1 - 0.5^4
    assert markov.interval_ipc(0.1, [10.0] * 4) == pytest.approx(1 - 0.5 ** 4)


def test_power_iteration_handles_ten_warps():
    ms = np.linspace(80, 120, 10)
    v = markov.steady_state(0.05, ms, method="power")
    assert len(v) == 1024
    assert 1 - v[0] == pytest.approx(markov.interval_ipc(0.05, ms), abs=1e-9)


def test_figure7_lemma1():
    t = markov.figure7_table([(0.05, 100, 4), (0.1, 400, 4), (0.05, 100, 8)], samples=10_000, seed=1)
    assert t["case"].tolist() == ["p0.05M100N4", "p0.1M400N4", "p0.05M100N8"]
    # Lemma 1: more than 95% of samples within 10% of the mean
    assert (t["within_10pct"] > 0.95).all()
    # more warps, less variation; more memory intensity, lower IPC
    assert t["ipc_std"][2] / t["ipc_mean"][2] < t["ipc_std"][0] / t["ipc_mean"][0]
    assert t["ipc_mean"][1] < t["ipc_mean"][0]


def test_markov_rejects_bad_parameters():
    with pytest.raises(ValueError, match="stall probability"):
        markov.interval_ipc(0.0, [10])
    with pytest.raises(ValueError, match="at least 1"):
        markov.warp_factor(0.1, 0.5)
    with pytest.raises(ValueError, match="GiB"):
        markov.transition_matrix(0.1, [10] * 13)


# -- 3.4.4 and Table 4: sampling inside the simulator ---------------------------------------
@pytest.fixture(scope="module")
def lbm_trace(tmp_path_factory):
    from conftest import trace_specs
    from pipeline_lib.sim.trace_reader import TraceDir
    spec = {"benchmark": "lbm", "size": "small", "seed": 1, "params": {"nx": 1024, "ny": 32, "steps": 3}}
    return TraceDir(trace_specs(tmp_path_factory, {"lbm": spec})["lbm"])


@pytest.fixture(scope="module")
def small_gpu():
    # few SMs: small epochs, so that a launch of 256 blocks has many
    from pipeline_lib.sim import load_hardware
    hw = load_hardware("tbpoint-fermi")
    hw["cores"] = 2
    return hw


@pytest.fixture(scope="module")
def full_run(lbm_trace, small_gpu):
    from pipeline_lib.sim.simulator import Simulator
    return Simulator(small_gpu, lbm_trace).run()


def _sampled(trace, hw, policy):
    from pipeline_lib.sim.sampling import run_sampled
    from pipeline_lib.sim.simulator import Simulator
    return run_sampled(Simulator(hw, trace), policy)


def test_policy_without_sampling_is_full_simulation(lbm_trace, small_gpu, full_run):
    from pipeline_lib.tbpoint.policy import TBPointPolicy
    s = _sampled(lbm_trace, small_gpu, TBPointPolicy(None, None))
    assert s["simulated"].all() and s["skipped_warp_instrs"].sum() == 0
    assert s["predicted_cycles"].tolist() == full_run.launches["cycles"].astype(float).tolist()


def test_intra_launch_sampling_skips_regions_and_predicts_ipc(lbm_trace, small_gpu, full_run):
    from pipeline_lib.tbpoint.policy import TBPointPolicy
    _, regions = workload_regions(lbm_trace.launches, lbm_trace.blocks, small_gpu)
    assert len(regions) >= 3                       # one per launch at least
    pol = TBPointPolicy(None, regions)
    s = _sampled(lbm_trace, small_gpu, pol)
    total = s["total_warp_instrs"].sum()
    assert 0.3 * total < s["skipped_warp_instrs"].sum() < total
    for log in pol.launch_log:
        assert log["units"] >= 2 and log["regions_sampled"] >= 1
    full_ipc = total / full_run.launches["cycles"].sum()
    pred_ipc = total / s["predicted_cycles"].sum()
    assert abs(pred_ipc - full_ipc) / full_ipc < 0.05
    # skipped cycles were predicted, not simulated: fewer simulated cycles than the full run
    assert s["simulated_cycles"].sum() < 0.8 * full_run.launches["cycles"].sum()


def test_regions_without_epochs_are_the_same_regions(lbm_trace, small_gpu):
    epochs, regions = workload_regions(lbm_trace.launches, lbm_trace.blocks, small_gpu)
    none, fast = workload_regions(lbm_trace.launches, lbm_trace.blocks, small_gpu, epochs=False)
    assert none is None and len(regions) >= 3
    pd.testing.assert_frame_equal(fast, regions)
    # a launch of one epoch holds no region, so it is skipped; two epochs may hold one
    one = small_gpu | {"cores": 256}          # one epoch per launch: no launch has a region
    assert workload_regions(lbm_trace.launches, lbm_trace.blocks, one, epochs=False)[1].empty
    assert workload_regions(lbm_trace.launches, lbm_trace.blocks, one)[1].empty


def test_skipped_blocks_are_the_tail_of_a_region(lbm_trace, small_gpu):
    from pipeline_lib.sim.simulator import Simulator
    from pipeline_lib.tbpoint.policy import TBPointPolicy
    _, regions = workload_regions(lbm_trace.launches, lbm_trace.blocks, small_gpu)
    res = Simulator(small_gpu, lbm_trace).run(TBPointPolicy(None, regions))
    for lid, b in res.blocks.groupby("launch"):
        skipped = b.loc[b["skipped"], "block"].to_numpy()
        assert len(skipped)
        assert (np.diff(skipped) == 1).all()       # one contiguous run ...
        r = regions[(regions["launch"] == lid) & (regions["start_block"] <= skipped[0])
                    & (regions["end_block"] >= skipped[0])]
        assert len(r) == 1 and skipped[-1] == r["end_block"].iloc[0]   # ... up to the region's end
        assert skipped[0] > r["start_block"].iloc[0]                     # after a warming period


def test_inter_launch_sampling_predicts_at_the_representatives_cpi(lbm_trace, small_gpu):
    from pipeline_lib.tbpoint.policy import TBPointPolicy
    f = launch_features(lbm_trace.launches)
    inter = InterLaunchSampler(0.1).fit(f).table(f)
    assert inter["cluster"].nunique() == 1             # three identical time steps
    s = _sampled(lbm_trace, small_gpu, TBPointPolicy(inter, None))
    rep = int(inter["representative"].iloc[0])
    assert s["simulated"].tolist() == [lid == rep for lid in s["launch"]]
    r = s[s["launch"] == rep].iloc[0]
    cpi = r["predicted_cycles"] / r["total_warp_instrs"]
    np.testing.assert_allclose(s["predicted_cycles"], s["total_warp_instrs"] * cpi)


def _drive(policy, cpis, instrs=1000):
    """Run ``policy``'s launch hooks as the simulator would, without one:
    each launch it selects 'takes' cpis[launch] x instrs cycles.  Returns
    the selected launches and every launch's predicted cycles."""
    from types import SimpleNamespace
    selected = []
    for lid, cpi in enumerate(cpis):
        if policy.select_launch({"launch": lid}):
            selected.append(lid)
            policy.launch_begin(SimpleNamespace(n_blocks=0, launch={"launch": lid}, system_occupancy=1,
                                                blocks=pd.DataFrame({"warp_instrs": np.zeros(0, np.int64)})))
            policy.launch_end({"launch": lid, "cycles": cpi * instrs, "warp_instrs": instrs,
                               "skipped_warp_instrs": 0})
    rows = {lid: {"warp_instrs": instrs} for lid in selected}
    pred = [policy.predict({"launch": lid, "warp_instrs": instrs}, rows.get(lid)) for lid in range(len(cpis))]
    return selected, np.array(pred)


def test_the_launch_rule_simulates_more_launches_of_a_noisier_cluster():
    from pipeline_lib.tbpoint.policy import TBPointPolicy
    # two kernels of 10 launches each, interleaved; one cluster per kernel, represented by its middle launch
    quiet = [2.00, 2.01, 1.99, 2.00, 2.01, 2.00, 1.99, 2.00, 2.01, 2.00]
    noisy = [2.0, 2.6, 1.6, 2.4, 1.7, 2.5, 1.5, 2.6, 1.8, 2.3]
    cpis = [c for pair in zip(quiet, noisy) for c in pair]
    inter = pd.DataFrame({"launch": np.arange(20), "cluster": np.arange(20) % 2,
                          "representative": np.where(np.arange(20) % 2 == 0, 10, 11)})
    sel, pred = _drive(TBPointPolicy(inter, None, launch_rule="confidence", interval_tolerance=0.10), cpis)
    n_quiet = sum(1 for lid in sel if lid % 2 == 0)
    n_noisy = sum(1 for lid in sel if lid % 2 == 1)
    assert n_quiet == 2 and n_noisy > n_quiet
    assert min(sel) == 10                              # nothing before the representatives
    # a launch not simulated is predicted at the ratio estimate of its cluster's simulated launches
    noisy_sel = [lid for lid in sel if lid % 2 == 1]
    np.testing.assert_allclose(pred[1], 1000 * np.mean([cpis[lid] for lid in noisy_sel]))
    # the seed's rule: one launch per cluster, the representative's CPI for all
    sel, pred = _drive(TBPointPolicy(inter, None, launch_rule="representative", interval_tolerance=0.10), cpis)
    assert sel == [10, 11]
    np.testing.assert_allclose(pred[::2], 1000 * cpis[10])


class _Dispatcher:
    """A launch on ``slots`` block slots without a simulator: blocks are
    dispatched in id order as slots free (skipped ones passed over), block
    b runs ``durations[b]`` cycles and issues ``rates[b]`` (default 1) warp
    instructions per cycle.  Offers the LaunchControl interface a policy uses."""

    def __init__(self, durations, slots, rates=None):
        self.dur = np.asarray(durations, np.int64)
        self.rate = np.ones(len(self.dur), np.int64) if rates is None else np.asarray(rates, np.int64)
        self.n_blocks, self.system_occupancy = len(self.dur), slots
        self.launch = {"launch": 0}
        self.blocks = pd.DataFrame({"block": np.arange(self.n_blocks), "warp_instrs": self.dur})
        self.cycle, self.next_block = 0, 0
        self.disp = np.full(self.n_blocks, -1)
        self.ret = np.full(self.n_blocks, -1)
        self.skipped = np.zeros(self.n_blocks, bool)

    @property
    def issued(self):
        on = self.disp >= 0
        return int((np.minimum(self.cycle - self.disp[on], self.dur[on]) * self.rate[on]).sum())

    def _issued_at(self, c):
        on = (self.disp >= 0) & (self.disp <= c)
        return int((np.minimum(c - self.disp[on], self.dur[on]) * self.rate[on]).sum())

    def block_record(self, b):
        return {"dispatch": int(self.disp[b]), "retire": int(self.ret[b]),
                "issued_at_dispatch": self._issued_at(self.disp[b]),
                "issued_at_retire": self._issued_at(self.ret[b]) if self.ret[b] >= 0 else -1}

    def running_blocks(self):
        return np.flatnonzero((self.disp >= 0) & (self.ret < 0))

    def dispatch_cycles(self, blocks):
        return self.disp[np.asarray(blocks, np.int64)].copy()

    def skip(self, blocks):
        self.skipped[np.asarray(blocks, np.int64)] = True

    def _fill(self):
        while len(self.running_blocks()) < self.system_occupancy and self.next_block < self.n_blocks:
            if not self.skipped[self.next_block]:
                self.disp[self.next_block] = self.cycle
            self.next_block += 1

    def run(self, policy):
        policy.launch_begin(self)
        self._fill()
        while len(self.running_blocks()):
            run = self.running_blocks()
            self.cycle = int((self.disp[run] + self.dur[run]).min())
            done = run[self.disp[run] + self.dur[run] == self.cycle]
            self.ret[done] = self.cycle
            policy.blocks_retired(self, done)
            self._fill()
        return policy


def test_a_straggler_block_is_one_unit_under_the_seeds_rule_and_not_under_turnover():
    from pipeline_lib.tbpoint.policy import TBPointPolicy
    # 4 slots, 200 blocks of 100 cycles, but block 0 runs the whole launch
    # (a hub vertex); one region over every block
    dur = np.full(200, 100)
    dur[0] = 10_000
    regions = pd.DataFrame({"launch": [0], "region": [0], "cluster": [0], "start_block": [0], "end_block": [199],
                            "first_epoch": [0], "n_epochs": [50]})

    def run(rule):
        pol = TBPointPolicy(None, regions, warming_rule="confidence", unit_rule=rule, interval_tolerance=0.03)
        return _Dispatcher(dur, 4).run(pol)

    seed = run("block")
    assert seed._units == 1 and not seed._skipped           # block 0's lifetime is the whole launch
    ours = run("turnover")
    assert ours._units >= 2 and ours._skipped[0] > 0        # units end after 4 retirements; the region is skipped
    # the units measured the whole machine: three 100-cycle blocks plus the straggler, 4 instructions a cycle
    assert ours._region_ipc[0] == pytest.approx(4.0)


def test_turnover_units_equal_the_seeds_where_blocks_are_alike():
    from pipeline_lib.tbpoint.policy import TBPointPolicy
    dur = np.full(200, 100)
    dur[::7] = 130                                           # mild variation: no block outlives a turnover
    rates = np.random.default_rng(1).integers(1, 4, 200)     # unit IPCs vary, so warming takes several units
    regions = pd.DataFrame({"launch": [0], "region": [0], "cluster": [0], "start_block": [0], "end_block": [199],
                            "first_epoch": [0], "n_epochs": [50]})
    runs = [_Dispatcher(dur, 4, rates).run(TBPointPolicy(None, regions, warming_rule="confidence", unit_rule=rule))
            for rule in ("block", "turnover")]
    assert runs[0]._units >= 3
    assert runs[0]._units == runs[1]._units and runs[0]._skipped == runs[1]._skipped
    assert runs[0]._region_ipc == runs[1]._region_ipc
    with pytest.raises(ValueError, match="unit_rule"):
        TBPointPolicy(None, regions, unit_rule="cycles")


def test_phase_spread_is_small_in_lock_step_and_grows_as_starts_spread():
    from pipeline_lib.tbpoint.warming import phase_spread
    assert phase_spread([0, 0, 0], 100, 100) == pytest.approx(0.01)       # exact lock step: one cycle's floor
    # a block about to retire and one just started are in phase on the circle
    assert phase_spread([1, 100], 100, 100) < 0.02
    # a quarter of a lifetime apart: R = cos(pi / 4)
    assert phase_spread([0, 25], 100, 100) == pytest.approx(np.sqrt(-2 * np.log(np.cos(np.pi / 4))) / (2 * np.pi))
    assert phase_spread(np.arange(0, 100, 10), 100, 100) > 0.3               # starts spread over a lifetime


def test_the_phases_rule_waits_while_the_lock_step_breaks_and_not_where_it_holds():
    """Reduction's units agree in IPC while its blocks' phase spread grows
    by a third a unit (the lock step breaking, docs/tbpoint.md): the
    confidence rule stops, the phases rule waits while the growth, carried
    over the rest of the region, would double the spread.  A spread that
    only jitters, or a region about to end, lets it stop where confidence
    does (from three units after the truncation)."""
    from pipeline_lib.tbpoint.warming import confidence, phases, region_ipc
    ipcs = [6.63, 6.83, 6.85, 6.84, 6.86, 6.84, 6.85]
    growing = [0.01 * 1.3 ** k for k in range(len(ipcs))]
    steady = [0.002, 0.034, 0.033, 0.035, 0.034, 0.033, 0.034]
    for n in range(2, len(ipcs) + 1):
        assert phases(ipcs[:n], 0.03, growing[:n], 40) is None
    stops = [n for n in range(2, len(ipcs) + 1) if phases(ipcs[:n], 0.03, steady[:n], 40) is not None]
    assert stops and phases(ipcs[:stops[0]], 0.03, steady[:stops[0]], 40) == confidence(ipcs[:stops[0]], 0.03)
    # the same growth over two units left cannot double the spread
    assert phases(ipcs, 0.03, growing, 2) == confidence(ipcs, 0.03)
    assert phases(ipcs[:3], 0.03, steady[:3], 0) is None                 # two units after MSER: no growth fitted
    with pytest.raises(ValueError, match="phase spreads"):
        phases(ipcs, 0.03, growing[:-1], 40)
    with pytest.raises(ValueError, match="phases needs"):
        region_ipc("phases", ipcs, 0.03)


def test_the_phases_rule_in_the_policy_warms_through_a_spreading_schedule():
    """Blocks alike in IPC whose lifetimes jitter by 30% more each wave
    (from one cycle up to 30): the starts, all in one cycle at first,
    spread geometrically.  The confidence rule stops on the first units
    (their IPC never changes), the phases rule only once the spread has
    stopped growing; with lifetimes all equal the lock step holds and both
    skip the region."""
    from pipeline_lib.tbpoint.policy import TBPointPolicy
    n = 600
    jitter = np.random.default_rng(2).standard_normal(n) * np.minimum(1.3 ** (np.arange(n) / 8), 30)
    dur = np.round(100 + jitter).astype(np.int64)
    regions = pd.DataFrame({"launch": [0], "region": [0], "cluster": [0], "start_block": [0], "end_block": [n - 1],
                            "first_epoch": [0], "n_epochs": [75]})

    def run(rule, d):
        return _Dispatcher(d, 8).run(TBPointPolicy(None, regions, warming_rule=rule, unit_rule="turnover"))

    conf, ours = run("confidence", dur), run("phases", dur)
    assert conf._skipped[0] > ours._skipped.get(0, 0)
    assert len(ours._unit_spreads) == len(ours._unit_ipcs) >= len(conf._unit_ipcs) + 10
    assert ours._unit_spreads[-1] > 10 * ours._unit_spreads[0]              # it waited until the starts spread
    assert not conf._unit_spreads                                         # measured only for the phases rule
    equal = np.full(n, 100)
    held = run("phases", equal)
    assert held._skipped[0] > 0 and max(held._unit_spreads) == pytest.approx(0.01)
    assert TBPointPolicy(None, None, warming_rule="phases", interval_tolerance=0.02)._warming_tolerance == 0.02


def test_rules_text_names_the_rule_and_its_own_tolerance():
    from pipeline_lib.tbpoint.run import rules_text
    r = {"inter": True, "intra": True, "warming_rule": "phases", "launch_rule": "confidence", "unit_rule": "turnover",
         "small_launches": "model", "functional_warming": True, "interval_tolerance": 0.03, "ipc_tolerance": 0.1}
    assert "warming rule phases (3% intervals)" in rules_text(r)
    seed = dict(r, warming_rule="consecutive", inter=False, intra=False, functional_warming=False)
    text = rules_text(seed)
    assert "warming rule consecutive (10% between consecutive units)" in text
    assert text.startswith("every launch simulated, no intra-launch sampling") and "no functional warming" in text


def test_the_interval_tolerance_is_the_confidence_rules_and_the_ipc_tolerance_the_seeds():
    from pipeline_lib.tbpoint.policy import TBPointPolicy
    ours = TBPointPolicy(None, None, ipc_tolerance=0.5, warming_rule="confidence", interval_tolerance=0.02)
    seed = TBPointPolicy(None, None, ipc_tolerance=0.5, warming_rule="consecutive", interval_tolerance=0.02)
    assert ours._warming_tolerance == 0.02 and seed._warming_tolerance == 0.5


def test_enough_launches_needs_two_and_uses_the_finite_population():
    from pipeline_lib.tbpoint.warming import enough_launches
    assert enough_launches([3.0], 1, 0.1)              # a cluster of one launch
    assert not enough_launches([3.0], 5, 0.1)          # one launch shows no spread
    assert enough_launches([3.0, 3.01], 5, 0.1)
    assert not enough_launches([3.0, 3.6, 2.6], 100, 0.1)
    assert enough_launches([3.0, 3.6, 2.6], 3, 0.1)    # the whole cluster: the mean is exact
    with pytest.raises(ValueError, match="launch_rule"):
        from pipeline_lib.tbpoint.policy import TBPointPolicy
        TBPointPolicy(None, None, launch_rule="all")


def test_the_launch_rule_in_the_simulator_averages_the_launches_it_simulates(lbm_trace, small_gpu):
    from pipeline_lib.tbpoint.policy import TBPointPolicy
    from pipeline_lib.tbpoint.run import run_sampled_rows
    from pipeline_lib.sim.simulator import Simulator
    f = launch_features(lbm_trace.launches)
    inter = InterLaunchSampler(0.1).fit(f).table(f)     # three identical launches, the middle one represents
    pol = TBPointPolicy(inter, None, launch_rule="confidence")
    res = Simulator(small_gpu, lbm_trace).run(pol)
    rows = run_sampled_rows(lbm_trace, res, pol)
    assert rows["simulated"].tolist() == [False, True, True]
    assert rows["sources"].tolist() == [2, 1, 1]
    sim = rows[rows["simulated"]]
    cpi = sim["predicted_cycles"].sum() / sim["total_warp_instrs"].sum()
    r0 = rows.iloc[0]
    np.testing.assert_allclose(r0["predicted_cycles"], r0["total_warp_instrs"] * cpi)
    l1 = res.launches.set_index("launch").loc[[1, 2]]
    np.testing.assert_allclose(r0["l1_misses"], l1["l1_misses"].sum() / l1["warp_instrs"].sum()
                               * r0["total_warp_instrs"])


# -- 3.5.1 baselines ----------------------------------------------------------------------
def _units(phases):
    """Units from (count, bbv dict, cycles per unit) phases; 1000 instructions each."""
    rows = []
    for count, bbv, cycles in phases:
        for _ in range(count):
            ids = np.array(sorted(bbv), np.int32)
            rows.append({"warp_instrs": 1000, "cycles": cycles, "l1_accesses": 100, "l1_misses": cycles // 100,
                         "l2_accesses": 10, "l2_misses": 5, "bbv_ids": ids,
                         "bbv_counts": np.array([bbv[i] for i in ids], np.int64)})
    return pd.DataFrame(rows)


def test_estimate_is_the_weighted_ratio():
    from pipeline_lib.tbpoint.baselines import estimate
    u = _units([(1, {0: 1000}, 2000), (1, {1: 1000}, 4000)])
    e = estimate(u, [1, 1])
    assert e["cpi"] == pytest.approx(3.0) and e["ipc"] == pytest.approx(1 / 3)
    assert e["l1_miss_rate"] == pytest.approx((20 + 40) / 200)
    assert estimate(u, [1, 0])["cpi"] == pytest.approx(2.0)


def test_random_sampling_is_seeded_and_samples_the_fraction():
    from pipeline_lib.tbpoint.baselines import random_sampling
    u = _units([(50, {0: 1000}, 2000), (50, {1: 1000}, 4000)])
    a = random_sampling(u, 0.1, draws=20, seed=3)
    b = random_sampling(u, 0.1, draws=20, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert (a["units"] == 10).all() and np.allclose(a["sample_size"], 0.1)
    assert a["cpi"].nunique() > 1                      # draws differ
    assert a["cpi"].mean() == pytest.approx(3.0, rel=0.1)
    assert not random_sampling(u, 0.1, draws=20, seed=4)["cpi"].equals(a["cpi"])


def test_bic_prefers_the_true_number_of_clusters():
    from pipeline_lib.tbpoint.baselines import bic
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.1, (30, 2)), rng.normal(5, 0.1, (30, 2))])
    one = bic(X, np.zeros(60, np.int64), X.mean(axis=0, keepdims=True))
    lab = np.repeat([0, 1], 30)
    two = bic(X, lab, np.array([X[:30].mean(axis=0), X[30:].mean(axis=0)]))
    assert two > one


def test_ideal_simpoint_finds_phases_and_weights():
    from pipeline_lib.tbpoint.baselines import IdealSimPoint, estimate
    # three phases of 30, 20, 10 units with distinct code and CPI
    u = _units([(30, {0: 900, 1: 100}, 2000), (20, {2: 1000}, 5000), (10, {0: 100, 3: 900}, 1000)])
    sp = IdealSimPoint(max_k=6, seed=1).fit(u)
    assert sp.k_ == 3
    assert sorted(sp.weights_.tolist()) == pytest.approx([10 / 60, 20 / 60, 30 / 60])
    e = estimate(u, sp.unit_weights(len(u)))
    true = (30 * 2000 + 20 * 5000 + 10 * 1000) / 60000
    assert e["cpi"] == pytest.approx(true)
    # deterministic
    assert IdealSimPoint(max_k=6, seed=1).fit(u).points_.tolist() == sp.points_.tolist()


# --- Fig. 10, Figs. 15-16, Fig. 7 and host-time outputs -------------------------------------------------------------
def _sized_blocks(sizes_per_launch):
    return pd.DataFrame([{"launch": l, "block": i, "thread_instrs": s}
                         for l, sizes in enumerate(sizes_per_launch) for i, s in enumerate(sizes)])


def test_kernel_types_classify_by_block_size_variation(tmp_path):
    from pipeline_lib.tbpoint.kernel_types import block_size_cov, classify, kernel_types_stage
    # launches of different sizes but equal blocks inside each: regular (CoV 0 in every launch)
    regular = _sized_blocks([[100] * 8, [300] * 4])
    # CoV of [50, 150] is 0.5 in one launch of 2 blocks, 0 in a launch of 6: block-weighted 0.5 * 2 / 8
    irregular = _sized_blocks([[50, 150], [100] * 6])
    assert block_size_cov(regular) == 0.0
    assert block_size_cov(irregular) == pytest.approx(0.125)
    assert classify(regular) == "regular" and classify(irregular) == "irregular"
    assert classify(irregular, max_cov=0.2) == "regular"
    t = kernel_types_stage({"a": regular, "b": irregular}, {"a": "regular", "b": "irregular"}, ["a", "b"], 0.1,
                           tmp_path / "k.parquet", tmp_path / "fig10.png")
    assert t["measured"].tolist() == ["regular", "irregular"]
    assert (tmp_path / "fig10.png").stat().st_size > 0


def test_sensitivity_table_labels_configurations_and_errors(tmp_path):
    from pipeline_lib.sim import load_hardware
    from pipeline_lib.tbpoint.sensitivity import sensitivity_stage
    hw = [load_hardware("tbpoint-fermi"), load_hardware("tbpoint-fermi-sm7-w24")]
    items = [{"workload": wl, "hardware": h, "full": {"ipc": 2.0}, "tbpoint": {"ipc": ipc, "sample_size": 0.1}}
             for h, ipc in zip(hw, (2.2, 1.5)) for wl in ("x", "y")]
    t = sensitivity_stage(items, tmp_path / "s.parquet", tmp_path / "s.md", tmp_path)
    assert t["label"].tolist() == ["W48 S14"] * 2 + ["W24 S7"] * 2
    assert t["tbpoint_error"].tolist() == pytest.approx([0.1, 0.1, 0.25, 0.25])
    md = (tmp_path / "s.md").read_text()
    assert "| tbpoint-fermi-sm7-w24 | W24 S7 | 25.00 | 25.00 | 10.00 |" in md
    assert "Largest error 25.00% (x on tbpoint-fermi-sm7-w24)" in md and "5% on any configuration: NOT met" in md


def test_markov_stage_writes_fig7_and_rejects_fractional_warps(tmp_path):
    from pipeline_lib.tbpoint.run import markov_stage
    t = markov_stage([[0.05, 100, 4], [0.1, 400, 8]], 2000, 0, tmp_path / "m.parquet", tmp_path / "m.png")
    assert t["case"].tolist() == ["p0.05M100N4", "p0.1M400N8"]
    assert (t["within_10pct"] > 0.95).all()    # Lemma 1
    assert pd.read_parquet(tmp_path / "m.parquet")["N"].tolist() == [4, 8]
    with pytest.raises(ValueError, match="whole number of warps"):
        markov_stage([[0.05, 100, 4.5]], 10, 0, tmp_path / "m.parquet", tmp_path / "m.png")


def test_host_time_speedup_is_full_over_sampled():
    from pipeline_lib.tbpoint.run import host_time_table
    t = host_time_table([{"workload": "b", "full": {"simulation_s": 8.0, "job_s": 9.0},
                          "tbpoint": {"simulation_s": 2.0, "job_s": 3.0}},
                         {"workload": "a", "full": {"simulation_s": 1.0, "job_s": 2.0},
                          "tbpoint": {"simulation_s": 1.0, "job_s": 2.0}}])
    assert t["workload"].tolist() == ["a", "b"] and t["speedup"].tolist() == [1.0, 4.0]


def test_the_longest_running_kernel_is_scored_alone():
    """Seed 3.5.1 evaluates the longest-running kernel of each benchmark:
    kernel b (300 full cycles against a's 200) alone, from its launches'
    predicted cycles."""
    import pandas as pd

    from pipeline_lib.tbpoint.run import longest_kernel
    full = pd.DataFrame({"launch": [0, 1, 2], "kernel": ["a", "b", "b"], "cycles": [200, 100, 200],
                         "warp_instrs": [1000, 600, 600]})
    sampled = pd.DataFrame({"launch": [0, 1, 2], "predicted_cycles": [150.0, 100.0, 220.0],
                            "total_warp_instrs": [1000, 600, 600], "simulated_warp_instrs": [1000, 600, 0]})
    got = longest_kernel(full, sampled)
    assert got["longest_kernel"] == "b"
    assert got["longest_error"] == pytest.approx(abs(1200 / 320 - 1200 / 300) / (1200 / 300))
    assert got["longest_sample_size"] == pytest.approx(0.5)


def test_the_sample_floor_is_one_launch_per_cluster_and_two_units_of_warming_per_region(small_gpu):
    from pipeline_lib.sim.hardware import occupancy
    from pipeline_lib.tbpoint.floor import launch_floor, sample_floor
    # one launch of 10 blocks of 5 instructions, epoch 2: a region over blocks 2..9
    # skips 2 + 2 x 2 = 6 .. 9; blocks 0..5 must run
    reg = pd.DataFrame({"start_block": [2], "end_block": [9]})
    assert launch_floor(np.full(10, 5), reg, 2) == 30
    assert launch_floor(np.full(10, 5), reg.iloc[:0], 2) == 50          # no region: all of it
    assert launch_floor(np.full(10, 5), pd.DataFrame({"start_block": [0], "end_block": [3]}), 2) == 50
    # a workload: launches 0 and 1 in one cluster (the cheaper counts), launch 2 alone
    occ = occupancy(small_gpu, 64, 16, 0)["system_occupancy"]
    n = 6 * occ
    launches = pd.DataFrame({"launch": [0, 1, 2], "warp_instrs": [n, n, n], "threads_per_block": 64,
                             "regs_per_thread": 16, "shared_bytes": 0})
    blocks = {lid: pd.DataFrame({"block": np.arange(n), "warp_instrs": 1}) for lid in range(3)}
    regions = pd.DataFrame({"launch": [1], "start_block": [0], "end_block": [n - 1]})
    inter = pd.DataFrame({"launch": [0, 1, 2], "cluster": [0, 0, 1]})
    assert sample_floor(launches, blocks, inter, regions, small_gpu) == pytest.approx((2 * occ + n) / (3 * n))
    assert sample_floor(launches, blocks, None, regions, small_gpu) == pytest.approx((n + 2 * occ + n) / (3 * n))
    assert sample_floor(launches, blocks, inter, None, small_gpu) == pytest.approx(2 / 3)


# -- sampled sweep points: a full simulation's tables estimated from TBPoint's run ---------
POINT_OPTIONS = {"inter": True, "intra": True, "ipc_tolerance": 0.1, "functional_warming": True,
                 "warming_rule": "phases", "launch_rule": "confidence", "unit_rule": "turnover",
                 "interval_tolerance": 0.03, "small_launches": "model", "intra_sigma": 0.2, "max_variation": 0.3, "min_region_epochs": 2,
                 "variation": "epoch"}


def test_estimated_tables_scale_work_by_instructions_and_time_by_cycles():
    from pipeline_lib.sim import load_hardware
    from pipeline_lib.sim.hardware import occupancy
    from pipeline_lib.tbpoint.estimate import WORK, estimated_tables
    hw = load_hardware("tbpoint-fermi")
    trace = pd.DataFrame({"launch": [0, 1], "kernel": ["k", "k"], "warp_instrs": [200, 300], "n_blocks": [8, 12],
                          "threads_per_block": [256, 256], "regs_per_thread": [16, 16], "shared_bytes": [0, 0]})
    # launch 0 simulated with half its instructions skipped inside it; launch 1 predicted from it
    sim = pd.DataFrame({"launch": [0], "kernel": ["k"], "cycles": [50], "warp_instrs": [100], "sm_occupancy": [3],
                        "system_occupancy": [42], "occupancy_limiter": ["threads"], "mshr_stall_cycles": [5],
                        "avg_load_latency": [40.0], **{c: [10] for c in WORK}})
    act = pd.DataFrame({"launch": [0], "cycles": [50], "instrs_int": [100], "sm_active_cycles": [40]})
    L, A = estimated_tables(trace, sim, act, {0: [0], 1: [0]}, {0: 100.0, 1: 150.0}, hw)
    assert L["cycles"].tolist() == [100, 150] and L["start_cycle"].tolist() == [0, 100]
    assert L["end_cycle"].tolist() == [100, 250] and L["warp_instrs"].tolist() == [200, 300]
    assert L["l1_misses"].tolist() == [20, 30] and L["dram_writes"].tolist() == [20, 30]    # x instructions
    assert L["mshr_stall_cycles"].tolist() == [10, 15]                                      # x cycles
    assert A["instrs_int"].tolist() == [200, 300] and A["sm_active_cycles"].tolist() == [80, 120]
    assert L["simulated_share"].tolist() == [0.5, 0.0]
    assert L["l1_miss_rate"].tolist() == [1.0, 1.0] and L["avg_load_latency"].tolist() == [40.0, 40.0]
    occ = occupancy(hw, 256, 16, 0)
    assert L["sm_occupancy"].tolist() == [3, occ["sm_occupancy"]]     # simulated: its own; else the hardware's


def test_a_sampled_point_without_sampling_writes_the_full_simulations_tables(lbm_trace, small_gpu, full_run, tmp_path):
    from pipeline_lib.tbpoint.run import estimate_workload
    opts = {**POINT_OPTIONS, "inter": False, "intra": False}
    s = estimate_workload("lbm", lbm_trace.path, small_gpu, tmp_path, inter=None, options=opts, validation_error=0.0,
                          trace=lbm_trace)
    L, A = pd.read_parquet(tmp_path / "launches.parquet"), pd.read_parquet(tmp_path / "activity.parquet")
    F = full_run.launches
    cols = ["cycles", "warp_instrs", "thread_instrs", "l1_accesses", "l1_misses", "l2_accesses", "l2_misses",
            "dram_reads", "dram_writes", "mshr_stall_cycles", "sm_occupancy"]
    pd.testing.assert_frame_equal(L[cols], F[cols], check_dtype=False)
    pd.testing.assert_frame_equal(A, full_run.activity, check_dtype=False)
    assert s["cycles"] == F["cycles"].sum() and s["sample_size"] == 1.0 and s["sampled"]


def test_a_sampled_point_estimates_every_launch_from_the_simulated_ones(lbm_trace, small_gpu, full_run, tmp_path):
    from pipeline_lib.tbpoint.run import estimate_workload
    f = launch_features(lbm_trace.launches)
    inter = InterLaunchSampler(0.1).fit(f).table(f)
    s = estimate_workload("lbm", lbm_trace.path, small_gpu, tmp_path, inter=inter, options=POINT_OPTIONS,
                          validation_error=0.01, trace=lbm_trace)
    L = pd.read_parquet(tmp_path / "launches.parquet")
    rows = pd.read_parquet(tmp_path / "sampled.parquet")
    F = full_run.launches
    assert L["launch"].tolist() == F["launch"].tolist() and s["sample_size"] < 0.7
    assert L["cycles"].tolist() == rows["predicted_cycles"].round().astype(int).tolist()
    assert (L.loc[~rows["simulated"], "simulated_share"] == 0).all()
    # the estimate is close to what full simulation counts (a wrong scaling is off by the sample size)
    for c in ("cycles", "l1_accesses", "l2_accesses", "thread_instrs"):
        assert abs(L[c].sum() / F[c].sum() - 1) < 0.05, c
    assert abs(s["ipc"] / (F["warp_instrs"].sum() / F["cycles"].sum()) - 1) < 0.05


def test_a_workloads_points_are_sampled_only_where_tbpoints_validation_passed():
    from pipeline_lib.tbpoint.run import sampled_sweep_ok
    assert sampled_sweep_ok({"ipc": 2.0}, {"ipc": 2.05, "sample_size": 0.3}, 0.03) == (True, pytest.approx(0.025))
    assert sampled_sweep_ok({"ipc": 2.0}, {"ipc": 1.9, "sample_size": 0.3}, 0.03) == (False, pytest.approx(0.05))
    # a sample of every instruction saves nothing: simulated in full
    assert sampled_sweep_ok({"ipc": 2.0}, {"ipc": 2.0, "sample_size": 1.0}, 0.03) == (False, 0.0)


def test_a_sampled_sweep_job_binds_the_estimate_to_the_workload_or_simulates_in_full(tmp_path, capsys):
    import json
    from pipeline_lib.tbpoint.run import estimate_workload, point_simulator
    inter = tmp_path / "inter.parquet"
    pd.DataFrame({"launch": [0], "cluster": [0]}).to_parquet(inter)
    full, good, bad = (tmp_path / f"{n}.json" for n in ("full", "good", "bad"))
    full.write_text(json.dumps({"hardware": "h", "ipc": 2.0}))
    good.write_text(json.dumps({"ipc": 2.01, "sample_size": 0.2}))
    bad.write_text(json.dumps({"ipc": 2.5, "sample_size": 0.2}))
    opts = {**POINT_OPTIONS, "max_error": 0.03}
    f = point_simulator("w", opts, full, good, inter)
    assert f.func is estimate_workload and f.keywords["validation_error"] == pytest.approx(0.005)
    assert f.keywords["options"]["max_error"] == 0.03 and len(f.keywords["inter"]) == 1
    assert point_simulator("w", opts, full, bad, inter) is None
    log = capsys.readouterr().err
    assert "error 0.50%" in log and "sampled simulation" in log and "error 25.00%" in log and "full simulation" in log
