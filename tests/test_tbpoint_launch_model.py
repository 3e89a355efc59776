"""TBPoint's per-kernel model of small irregular launches (pipeline_lib.tbpoint.launch_model)."""
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from pipeline_lib.tbpoint.launch_model import PILOT, GroupSampler, RegressionTotal, launch_groups


def _features(n, seed=0):
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.integers(100, 400, n), rng.integers(10, 600, n)]).astype(float)


def _cycles(X, noise=0.0, seed=1):
    rng = np.random.default_rng(seed)
    y = 500.0 + 3.0 * X[:, 0] + 5.0 * X[:, 1]
    return y * (1.0 + noise * rng.standard_normal(len(y)))


def test_the_regression_total_by_hand():
    # five members, three sampled, a one-feature model y = b0 + b1 x
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0]])
    y = np.array([10.0, 13.0, 14.0])          # members 0, 1, 2
    m = RegressionTotal(X, tolerance=0.03).fit(np.array([0, 1, 2]), y)
    # least squares on (1, 10), (2, 13), (3, 14): b1 = 2, b0 = 8.333...
    np.testing.assert_allclose(m.coef_, [8 + 1 / 3, 2.0])
    np.testing.assert_allclose(m.predicted_, [10, 13, 14, 8 + 1 / 3 + 8, 8 + 1 / 3 + 10])
    resid = y - (8 + 1 / 3 + 2 * np.array([1, 2, 3]))
    s_e = np.sqrt((resid ** 2).sum() / 1)      # 3 members - rank 2
    assert m.s_e_ == pytest.approx(s_e)
    hw = stats.t.ppf(0.975, 1) * 5 * np.sqrt((1 - 3 / 5) / 3) * s_e
    assert m.half_width() == pytest.approx(hw)
    assert m.enough() == (hw <= 0.03 * m.total_)
    n_inf = (stats.t.ppf(0.975, 1) * 5 * s_e / (0.03 * m.total_)) ** 2
    assert m.needed() == min(5, int(np.ceil(n_inf / (1 + n_inf / 5))))


def test_no_cost_is_negative():
    # least squares would give y = -1 + 2 x; the launch overhead cannot be negative, so the fit is
    # the best line through the origin, 22 / 14 per unit, and the rank it uses is one
    X = np.array([[1.0], [2.0], [3.0], [0.0]])
    m = RegressionTotal(X, tolerance=0.03).fit(np.array([0, 1, 2]), np.array([1.0, 3.0, 5.0]))
    np.testing.assert_allclose(m.coef_, [0.0, 22 / 14], atol=1e-12)
    assert m.rank_ == 1 and m.dof_ == 2
    assert m.predicted_[3] == 0.0


def test_an_exact_linear_group_simulates_its_pilot_only_and_predicts_the_rest_exactly():
    X = _features(40)
    y = _cycles(X)
    g = GroupSampler(range(100, 140), X, tolerance=0.03)
    sel = [m for m, c in zip(g.members, y) if g.select(m) and (g.simulated(m, c) or True)]
    assert sel == list(range(100, 100 + PILOT))
    np.testing.assert_allclose([g.predicted(m) for m in g.members], y, rtol=1e-9)
    assert g.sources() == sel


def _run(g, y):
    sel = []
    for m, c in zip(g.members, y):
        if g.select(m):
            g.simulated(m, c)
            sel.append(m)
    return sel


def _drive(policy, cycles, instrs):
    """Run ``policy``'s launch hooks as the simulator would, without one:
    launch i, if selected, takes ``cycles[i]`` for its ``instrs[i]`` warp
    instructions.  Returns the selected launches."""
    sel = []
    for lid in range(len(cycles)):
        if policy.select_launch({"launch": lid}):
            sel.append(lid)
            policy.launch_begin(SimpleNamespace(n_blocks=0, launch={"launch": lid}, system_occupancy=1,
                                                blocks=pd.DataFrame({"warp_instrs": np.zeros(0, np.int64)})))
            policy.launch_end({"launch": lid, "cycles": float(cycles[lid]), "warp_instrs": int(instrs[lid]),
                               "skipped_warp_instrs": 0})
    return sel


def test_a_noisier_group_simulates_more_members_spread_over_the_group():
    X = _features(200)
    quiet = _run(GroupSampler(range(200), X, 0.03), _cycles(X, noise=0.02))
    noisy = _run(GroupSampler(range(200), X, 0.03), _cycles(X, noise=0.20))
    assert PILOT <= len(quiet) < len(noisy) < 200
    # after the pilot the members are spread over the rest, not taken one after another
    rest = np.array(noisy[PILOT:])
    assert rest.max() > 150 and np.diff(rest).max() > 1


def test_the_group_total_is_within_the_tolerance_of_the_truth():
    X = _features(300, seed=3)
    y = _cycles(X, noise=0.15, seed=4)
    g = GroupSampler(range(300), X, 0.03)
    sel = _run(g, y)
    assert len(sel) < 300
    est = sum(g.predicted(m) for m in g.members)
    assert abs(est - y.sum()) / y.sum() < 0.03


def test_groups_are_per_kernel_and_block_count_and_leave_launches_with_a_region_out():
    n = PILOT + 2
    L = pd.DataFrame({"launch": np.arange(4 * n), "kernel": ["a"] * (2 * n) + ["b"] * (2 * n),
                      "n_blocks": ([1] * n + [2] * n) * 2, "warp_instrs": 100, "mem_requests": 10})
    regions = pd.DataFrame({"launch": [0, 1, 2]})     # three launches of (a, 1) have a region
    g = launch_groups(L, regions)
    assert set(g) == set(range(n, 4 * n))             # (a, 1) has n - 3 <= PILOT launches left: no group
    assert {g[x] for x in range(n, 2 * n)} == {("a", 2)}
    assert {g[x] for x in range(2 * n, 3 * n)} == {("b", 1)}
    assert len(set(g.values())) == 3                  # no group mixes kernels or block counts
    assert set(launch_groups(L, None)) == set(range(4 * n))
    with pytest.raises(ValueError, match="mem_requests"):
        launch_groups(L.drop(columns="mem_requests"), None)


def test_the_policy_predicts_modelled_launches_and_keeps_clusters_for_the_others():
    from pipeline_lib.tbpoint.policy import TBPointPolicy
    n = 30
    X = _features(n, seed=5)
    y = _cycles(X, noise=0.0)
    # launches 0..29 are one kernel's one-block launches, 30..33 another kernel's identical ones
    L = pd.DataFrame({"launch": np.arange(n + 4), "kernel": ["k"] * n + ["big"] * 4,
                      "n_blocks": [1] * n + [64] * 4,
                      "warp_instrs": np.r_[X[:, 0], [5000] * 4].astype(np.int64),
                      "mem_requests": np.r_[X[:, 1], [900] * 4].astype(np.int64)})
    inter = pd.DataFrame({"launch": L["launch"], "cluster": np.r_[np.arange(n), [n] * 4],
                          "representative": np.r_[np.arange(n), [n + 1] * 4]})
    cycles = np.r_[y, [10000.0] * 4]
    for rule, n_small in (("model", PILOT), ("cluster", n)):
        pol = TBPointPolicy(inter, None, launch_rule="confidence", small_launches=rule, launches=L)
        sel = _drive(pol, cycles, L["warp_instrs"])
        assert sum(1 for x in sel if x < n) == n_small
        assert [x for x in sel if x >= n] == [n + 1, n + 2]          # the big kernel's cluster: its own rule
        pred = [pol.predict({"launch": lid, "warp_instrs": int(L["warp_instrs"][lid])}, None if lid not in sel
                            else {}) for lid in range(n + 4)]
        np.testing.assert_allclose(pred[:n], y, rtol=1e-9)
    assert pol.modelled_groups() == {}
    pol = TBPointPolicy(inter, None, small_launches="model", launches=L)
    assert set(pol.modelled_groups()) == set(range(n))
    assert pol.representative_of(7) == 0
    with pytest.raises(ValueError, match="small_launches"):
        TBPointPolicy(inter, None, small_launches="regression", launches=L)
    with pytest.raises(ValueError, match="launches table"):
        TBPointPolicy(inter, None, small_launches="model")


def test_the_floor_counts_a_group_s_pilot_instead_of_its_clusters():
    from pipeline_lib.sim import load_hardware
    from pipeline_lib.tbpoint.floor import sample_floor
    small_gpu = load_hardware("tbpoint-fermi")
    n = 12
    L = pd.DataFrame({"launch": np.arange(n), "kernel": "k", "n_blocks": 1, "warp_instrs": 100,
                      "threads_per_block": 64, "regs_per_thread": 16, "shared_bytes": 0})
    blocks = {i: pd.DataFrame({"block": [0], "warp_instrs": [100]}) for i in range(n)}
    inter = pd.DataFrame({"launch": np.arange(n), "cluster": np.arange(n)})     # every launch its own cluster
    assert sample_floor(L, blocks, inter, None, small_gpu) == pytest.approx(1.0)
    members = list(range(n))
    assert sample_floor(L, blocks, inter, None, small_gpu,
                        modelled={i: members for i in range(n)}) == pytest.approx(PILOT / n)


def test_cluster_floors_take_each_cluster_s_cheapest_launch_outside_the_groups_and_the_pilots():
    from pipeline_lib.tbpoint.floor import cluster_floors
    n = PILOT + 2
    group = list(range(2, 2 + n))                 # launches 2 .. n+1: one modelled group
    cost = {0: 50, 1: 30, **{lid: 1 for lid in group}, n + 2: 70}
    # cluster 0 holds launches 0, 1 and the group's launches (cost 1, but modelled); cluster 1 launch n + 2
    inter = pd.DataFrame({"launch": list(cost), "cluster": [0, 0] + [0] * n + [1]})
    cheapest, pilots = cluster_floors(cost, inter, {lid: group for lid in group})
    assert cheapest == {0: 30, 1: 70}
    assert pilots == group[:PILOT]
    cheapest, pilots = cluster_floors(cost, inter)          # no groups: the group's launches are cheapest
    assert cheapest == {0: 1, 1: 70} and pilots == []


def test_a_cluster_whose_representative_is_modelled_is_represented_by_another_member():
    """eq. 6 does not see block counts: a cluster can hold a group's launches
    and launches of another block count.  Its launches outside the group keep
    a simulated representative of their own (the closest to their centre),
    and the launch rule counts only them."""
    from pipeline_lib.tbpoint.policy import TBPointPolicy
    n = PILOT + 3
    # launches 0..n-1: one-block launches (a group); n, n+1: two-block launches of the same kernel
    L = pd.DataFrame({"launch": np.arange(n + 2), "kernel": "k", "n_blocks": [1] * n + [2, 2],
                      "warp_instrs": 100 + np.arange(n + 2), "mem_requests": 10 + np.arange(n + 2)})
    # one cluster, represented by launch 3 (modelled); launch n + 1 lies nearer the others' centre
    inter = pd.DataFrame({"launch": L["launch"], "cluster": 0, "representative": 3,
                          "f_thread_instrs": 0.0, "f_warp_instrs": 0.0, "f_mem_requests": 0.0,
                          "f_tb_size_cov": np.r_[np.zeros(n), [0.2, 0.0]]})
    pol = TBPointPolicy(inter, None, launch_rule="confidence", small_launches="model", launches=L)
    assert pol.representative_of(n) == pol.representative_of(n + 1) == n + 1
    assert pol._population == {0: 2}
    sel = _drive(pol, 10.0 * L["warp_instrs"].to_numpy(), L["warp_instrs"])
    assert n + 1 in sel and n not in sel               # the new representative; n comes before it
    assert pol.sources_of(n) == [n + 1]
    assert pol.predict({"launch": n, "warp_instrs": int(L["warp_instrs"][n])}, None) == pytest.approx(
        10.0 * L["warp_instrs"][n])
