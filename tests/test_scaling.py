"""The scaling model (seed 004, III-B to III-D) on hand-worked and synthetic grids."""
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline_lib.scaling import evaluate as ev
from pipeline_lib.scaling.counters import EXTENDED_NAMES, FEATURE_NAMES, FEATURE_SETS, kernel_counters, kernel_mix
from pipeline_lib.scaling.regression import SurfaceRegression
from pipeline_lib.scaling.model import (ScalingModel, SigmoidNetwork, cu_scaling, engine_scaling, memory_scaling,
                                        scale, scale_grid)

CUS = np.array([2, 4, 8])
ENG = np.array([400.0, 600.0, 800.0, 1000.0])
MEM = np.array([400.0, 600.0, 800.0, 1000.0])


def _time(kind, w=1.0):
    """Synthetic kernels: compute-bound time ~ 1 / (SMs x core clock), memory-bound ~ 1 / memory clock."""
    c, e, m = np.meshgrid(CUS, ENG, MEM, indexing="ij")
    if kind == "compute":
        return w * 1e6 / (c * e)
    if kind == "memory":
        return w * 1e3 / m + 0 * c
    return w * (5e5 / (c * e) + 5e2 / m)


def test_equation1_reproduces_every_grid_point_from_the_base():
    T = _time("mixed")
    E, M, C = engine_scaling(T), memory_scaling(T), cu_scaling(T, 0, 0)
    for c in range(3):
        for e in range(4):
            for m in range(4):
                assert scale(T[0, 0, 0], (0, 0, 0), (c, e, m), C, E, M) == pytest.approx(T[c, e, m])
    # the seed's example: t33 = t00 x the engine steps at memory 0 x the memory steps at engine 3
    t = T[0]
    assert t[3, 3] == pytest.approx(t[0, 0] * np.prod(E[0, 0]) * np.prod(M[0, 3]))
    # scaling down uses reciprocals
    assert scale(T[2, 3, 3], (2, 3, 3), (0, 0, 0), C, E, M) == pytest.approx(T[0, 0, 0])


def test_scaling_values_by_hand():
    T = np.arange(1, 2 * 2 * 3 + 1, dtype=float).reshape(2, 2, 3)   # T[c, e, m]: c=0 is 1..6, c=1 is 7..12
    np.testing.assert_allclose(engine_scaling(T)[0], [[4 / 1], [5 / 2], [6 / 3]])
    np.testing.assert_allclose(memory_scaling(T)[1], [[8 / 7, 9 / 8], [11 / 10, 12 / 11]])
    np.testing.assert_allclose(cu_scaling(T, 0, 0), [7 / 1])
    # kernels as a leading axis
    assert engine_scaling(np.stack([T, 2 * T])).shape == (2, 2, 3, 1)


def test_network_learns_a_separable_mapping_deterministically():
    rng = np.random.default_rng(0)
    x = rng.random((60, 3))
    y = (x[:, 0] > 0.5).astype(int) + (x[:, 1] > 0.5).astype(int)
    a = SigmoidNetwork(hidden=3).fit(x, y, 3)
    b = SigmoidNetwork(hidden=3).fit(x, y, 3)
    assert (a.predict(x) == y).mean() > 0.9
    assert np.array_equal(a.outputs(x), b.outputs(x))
    assert ((a.outputs(x) > 0) & (a.outputs(x) < 1)).all()


def test_model_clusters_scaling_kinds_and_predicts_held_out_kernels(tmp_path):
    rng = np.random.default_rng(1)
    kinds = ["compute", "memory", "mixed"] * 8
    times = np.stack([_time(k, rng.uniform(0.5, 2)) * rng.uniform(0.98, 1.02, (3, 4, 4)) for k in kinds])
    # counters at the base: a memory-intensity measure that separates the kinds, plus noise
    mem = {"compute": 0.1, "memory": 0.9, "mixed": 0.5}
    counters = np.array([[mem[k] + rng.normal(0, 0.03), rng.random()] for k in kinds])
    model = ScalingModel(n_clusters=3).fit(times[:21], counters[:21])
    # compute- and memory-bound kernels never share a cluster (mixed ones may join either: at 2 SMs they are
    # compute-bound, at 8 closer to memory-bound)
    for name, labels in model.labels_.items():
        comp = {labels[i] for i in range(21) if kinds[i] == "compute"}
        memo = {labels[i] for i in range(21) if kinds[i] == "memory"}
        assert not comp & memo, name
    errs = [abs(model.predict(counters[i], times[i, 0, 0, 0], (2, 3, 3)) - times[i, 2, 3, 3]) / times[i, 2, 3, 3]
            for i in range(21, 24)]
    assert max(errs) < 0.06
    # saved and loaded, the model predicts the same without the training data
    model.save(tmp_path / "m.json")
    again = ScalingModel.load(tmp_path / "m.json")
    assert again.predict(counters[22], 1.0, (1, 2, 0)) == model.predict(counters[22], 1.0, (1, 2, 0))


def test_bad_training_data_is_explained():
    with pytest.raises(ValueError, match="kernels, SM counts"):
        ScalingModel().fit(np.ones((2, 3, 4)), np.ones((2, 1)))
    with pytest.raises(ValueError, match="finite and positive"):
        ScalingModel().fit(np.zeros((2, 1, 2, 2)), np.ones((2, 1)))


def test_grid_prediction_equals_equation1_at_every_point_and_base():
    rng = np.random.default_rng(3)
    nc, ne, nm = 3, 4, 2
    C = rng.uniform(0.4, 1.2, (2, nc - 1))
    E = rng.uniform(0.5, 1.1, (2, nc, nm, ne - 1))
    M = rng.uniform(0.7, 1.0, (2, nc, ne, nm - 1))
    for base in [(0, 0, 0), (1, 2, 1), (2, 3, 0)]:
        grid = scale_grid(np.array([2.0, 3.0]), base, C, E, M)
        for i in range(2):
            for target in np.ndindex(nc, ne, nm):
                assert grid[(i, *target)] == pytest.approx(scale([2.0, 3.0][i], base, target, C[i], E[i], M[i]))
        assert grid[(0, *base)] == pytest.approx(2.0)


# -- Table II counters ---------------------------------------------------------------------------------------------
def _tiny_trace(tmp_path):
    """Two kernels: k0 (launches 0, 2) and k1 (launch 1); a hand-made warp trace."""
    instructions = pd.DataFrame({"kernel": ["k0"] * 5 + ["k1"] * 3, "pc": [0, 1, 2, 3, 4, 0, 1, 2],
                                 "opclass": ["fp32", "load", "load", "store", "exit", "int", "load", "branch"]})
    launches = pd.DataFrame({"launch": [0, 1, 2], "kernel": ["k0", "k1", "k0"], "warp_instrs": [5, 4, 5],
                             "thread_instrs": [160, 64, 160], "warps_per_block": [2, 4, 2]})
    # k0: fp32, a global load, a shared load, a global store, exit -- twice; k1: int, a param load, 2 branches
    rows = [(0, 0, 0), (0, 1, 1), (0, 2, 2), (0, 3, 1), (0, 4, 0), (2, 0, 0), (2, 1, 1), (2, 2, 2), (2, 3, 1),
            (2, 4, 0), (1, 0, 0), (1, 1, 5), (1, 2, 0), (1, 2, 0)]
    t = pa.table({"launch": pa.array([r[0] for r in rows], pa.int32()), "pc": pa.array([r[1] for r in rows], pa.int32()),
                  "space": pa.array([r[2] for r in rows], pa.int8())})
    pq.write_table(t, tmp_path / "wt.parquet", row_group_size=4)
    return instructions, launches, tmp_path / "wt.parquet"


def test_instruction_mix_from_the_warp_trace(tmp_path):
    mix = kernel_mix(*_tiny_trace(tmp_path)).set_index("kernel")
    assert mix.loc["k0"].to_dict() == {"warp_instrs": 10, "thread_instrs": 320, "valu": 2, "control": 2,
                                       "vfetch": 2, "sfetch": 0, "vwrite": 2, "lds": 2}
    assert mix.loc["k1"].to_dict() == {"warp_instrs": 4, "thread_instrs": 64, "valu": 1, "control": 2,
                                       "vfetch": 0, "sfetch": 1, "vwrite": 0, "lds": 0}
    ins, la, _ = _tiny_trace(tmp_path)
    la.loc[1, "warp_instrs"] = 5
    with pytest.raises(ValueError, match="launches.parquet says"):
        kernel_mix(ins, la, tmp_path / "wt.parquet")


def test_counters_by_hand(tmp_path):
    from pipeline_lib.sim import load_hardware
    hw = load_hardware("gpumech-baseline")       # 16 SMs, 1000 MHz, 32 warps, 128 B lines, 192 GB/s
    ins, la, wt = _tiny_trace(tmp_path)
    mix = kernel_mix(ins, la, wt)
    sim = pd.DataFrame({"launch": [0, 1, 2], "kernel": ["k0", "k1", "k0"], "cycles": [600, 100, 400],
                        "warp_instrs": [5, 4, 5], "blocks": [10, 4, 1000], "sm_occupancy": [8, 2, 8],
                        "l1_accesses": [10, 0, 10], "l1_misses": [4, 0, 4], "l2_misses": [2, 0, 3],
                        "mshr_stall_cycles": [1600, 0, 0],
                        "occupancy_limiter": ["registers", "warps", "blocks"]})
    act = pd.DataFrame({"launch": [0, 1, 2], "cycles": [600, 100, 400], "shared_accesses": [3, 0, 1],
                        "l2_accesses": [6, 0, 7], "dram_reads": [2, 0, 3], "dram_writes": [1, 0, 0]})
    power = pd.DataFrame({"launch": [0, 1, 2], "energy_j": [1e-6, 5e-7, 1e-6]})
    c = kernel_counters(mix, la, sim, act, power, hw).set_index("kernel").loc["k0"]
    assert c["cycles"] == 1000 and c["seconds"] == pytest.approx(1e-6)
    assert c["dynamic_power_w"] == pytest.approx(2.0)
    assert c["valu_insts"] == pytest.approx(0.2) and c["lds_insts"] == pytest.approx(0.2)
    assert c["valu_utilization"] == pytest.approx(1.0)
    assert c["valu_busy"] == pytest.approx(2 / (1000 * 16))
    assert c["cache_hit"] == pytest.approx(1 - 5 / 13)
    # lines through the LSU: 20 load lines + (13 L2 accesses - 8 load misses) store lines
    assert c["mem_unit_busy"] == pytest.approx(25 / 16000)
    assert c["mem_unit_stalled"] == pytest.approx(0.1)
    assert c["lds_bank_conflict"] == pytest.approx((4 - 2) / 16000)
    assert c["occupancy"] == pytest.approx(16 / 32)
    assert c["v_ipc"] == pytest.approx(0.01)
    assert c["mem_time"] == pytest.approx(6 * 128 / 192e9 / 1e-6)
    assert c["fetch_per_load_byte"] == pytest.approx(2 / (20 * 128))
    assert c["write_per_store_byte"] == pytest.approx(2 / (5 * 128))
    assert c["num_work_groups"] == 320               # (10 + 1000) / 2 saturates
    assert c["read_bandwidth"] == pytest.approx(5 * 128 / 1e-6 / 1e9)
    k1 = kernel_counters(mix, la, sim, act, power, hw).set_index("kernel").loc["k1"]
    assert k1["cache_hit"] == 1.0 and k1["fetch_per_load_byte"] == 0.0 and k1["occupancy"] == pytest.approx(8 / 32)
    assert list(kernel_counters(mix, la, sim, act, power, hw).columns[5:]) == FEATURE_NAMES + EXTENDED_NAMES
    # ours: k0's launches hold 10 and 1000 blocks, 8 per SM on 16 SMs (0.078 and 7.8 waves), 600 and 400 cycles
    assert c["log_waves"] == pytest.approx((600 * np.log2(1 + 10 / 128) + 400 * np.log2(1 + 1000 / 128)) / 1000)
    assert c["log_blocks_per_sm"] == pytest.approx((600 * np.log2(1 + 10 / 16) + 400 * np.log2(1 + 1000 / 16)) / 1000)
    assert c["last_wave_fill"] == pytest.approx((600 * 10 / 128 + 400 * 1000 / 128 / 8) / 1000)
    assert c["wave_ratio_double"] == pytest.approx((600 * 1 + 400 * 4 / 8) / 1000)     # 8 waves -> 4
    assert c["wave_ratio_half"] == pytest.approx((600 * 1 + 400 * 16 / 8) / 1000)      # 8 waves -> 16
    assert c["limited_by_registers"] == pytest.approx(0.6) and c["limited_by_warps"] == 0
    assert k1["limited_by_warps"] == 1.0
    assert c["l2_per_sm"] == pytest.approx(13 / 16000) and c["dram_per_sm"] == pytest.approx(6 / 16000)


# -- validation (V) --------------------------------------------------------------------------------------------------
def _synthetic_dataset(n_per_kind=8, seed=5):
    """Compute-, memory- and mixed-bound kernels over a 3 x 4 x 4 grid, with
    counters that reveal their kind at every point."""
    rng = np.random.default_rng(seed)
    rows = []
    mem = {"compute": 0.1, "memory": 0.9, "mixed": 0.5}
    for kind in ("compute", "memory", "mixed"):
        for i in range(n_per_kind):
            T = _time(kind, rng.uniform(0.5, 2)) * rng.uniform(0.99, 1.01, (3, 4, 4))
            noise = rng.normal(0, 0.02)
            for (c, e, m), t in np.ndenumerate(T):
                feats = dict.fromkeys(FEATURE_NAMES, 0.5)
                feats["mem_time"] = mem[kind] + noise
                rows.append({"instance": f"{kind}{i}:k", "sm": int(CUS[c]), "cc": int(ENG[e]), "mc": int(MEM[m]),
                             "seconds": t, "dynamic_power_w": 10 + 5 * mem[kind] * m, **feats})
    return pd.DataFrame(rows)


def test_feature_sets_choose_the_classifiers_inputs():
    from pipeline_lib.scaling.counters import feature_set
    d = _synthetic_dataset(2)
    with pytest.raises(ValueError, match="log_blocks_per_sm"):       # a dataset of the seed's counters only
        ev.grid_arrays(d, FEATURE_SETS["extended"])
    for i, f in enumerate(EXTENDED_NAMES):
        d[f] = float(i)
    g = ev.grid_arrays(d, feature_set("extended"))
    assert g.counters.shape[-1] == len(FEATURE_NAMES) + len(EXTENDED_NAMES) == 31
    assert (g.counters[..., len(FEATURE_NAMES):] == np.arange(len(EXTENDED_NAMES))).all()
    assert ev.grid_arrays(d).counters.shape[-1] == len(FEATURE_NAMES)
    with pytest.raises(ValueError, match="scaling.features"):
        feature_set("all")


def test_validation_errors_are_low_for_separable_kernels_and_splits_are_disjoint():
    grid = ev.grid_arrays(_synthetic_dataset())
    assert grid.values["time"].shape == (24, 3, 4, 4) and grid.counters.shape == (24, 3, 4, 4, len(FEATURE_NAMES))
    parts = ev.splits(24, 0.2, 3, seed=1)
    for tr, te in parts:
        assert len(te) == 5 and not set(tr) & set(te) and len(tr) + len(te) == 24
    assert [te.tolist() for _, te in parts] == [te.tolist() for _, te in ev.splits(24, 0.2, 3, seed=1)]
    assert parts[0][1].tolist() != parts[1][1].tolist()
    heat = ev.heatmap(grid, "time", [400, 1000], parts, k=3, seed=1)
    assert len(heat) == 2 * 3 * 4 and (heat["predictions"] == 3 * 5 * 47).all()
    assert heat["mean_error"].max() < 0.05
    study, hist = ev.cluster_study(grid, "time", [(1, 1, 1), (0, 3, 3)], [1, 3], {1, 3}, parts, seed=1)
    one, three = (study[study["k"] == k]["mean_error"].mean() for k in (1, 3))
    assert three < 0.05 < one            # one cluster cannot hold three scaling kinds
    assert hist.groupby("k")["count"].sum().tolist() == [2 * 3 * 5 * 47] * 2
    src = ev.error_sources(grid, "time", (1, 1, 1), parts, k=3, seed=1)
    assert src["train_oracle"] <= src["train_network"] + 1e-12 and src["held_out"] < 0.05
    assert src["held_out_oracle"] < 0.05
    # the by-target split partitions the held-out targets: 4 x 4 - 1 at the base's SM count, 2 x 4 x 4 at others
    assert src["held_out"] == pytest.approx((15 * src["held_out_same_sm"] + 32 * src["held_out_other_sm"]) / 47)
    assert max(src["held_out_same_sm"], src["held_out_other_sm"], src["held_out_other_sm_cu_oracle"]) < 0.05


def test_application_splits_hold_out_every_instance_of_an_application():
    """split_by application: an application's kernel instances (the same
    code on other inputs, its other kernels) are all held out or all
    trained on, in every split; a share of the applications is held out."""
    apps = np.repeat(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"], [3, 2, 2, 4, 1, 2, 3, 2, 3, 2])
    parts = ev.splits(len(apps), 0.2, 20, seed=1, groups=apps)
    held = set()
    for tr, te in parts:
        assert not set(apps[tr]) & set(apps[te]) and len(tr) + len(te) == len(apps)
        assert len(set(apps[te])) == 2
        held |= set(apps[te])
    assert len(held) > 5                              # the splits vary which applications are held out
    # kernel by kernel (the seed's split), the same as before groups existed
    assert [te.tolist() for _, te in ev.splits(24, 0.2, 3, seed=1)] == \
        [np.sort(np.random.default_rng(1 + i).permutation(24)[:5]).tolist() for i in range(3)]
    with pytest.raises(ValueError, match="group labels"):
        ev.splits(3, 0.2, 1, 0, groups=["a", "b"])


def test_error_sources_blame_the_sm_count_set_when_only_sm_scaling_is_hidden():
    """Half of the compute-bound kernels stop scaling with SM count (too few
    blocks), which no counter shows: held-out errors are then low at the
    base's SM count, high at the others, and low again there with the
    nearest SM-count cluster in place of that set's network."""
    data = _synthetic_dataset()
    flat = data["instance"].isin([f"compute{i}:k" for i in range(0, 8, 2)])
    data.loc[flat, "seconds"] *= data.loc[flat, "sm"] / CUS[0]     # time independent of the SM count
    grid = ev.grid_arrays(data)
    parts = ev.splits(24, 0.25, 4, seed=3)
    src = ev.error_sources(grid, "time", (1, 1, 1), parts, k=4, seed=1)
    assert src["held_out_same_sm"] < 0.05
    assert src["held_out_other_sm"] > 0.08 > 2 * src["held_out_other_sm_cu_oracle"]
    assert src["held_out_other_sm_cu_oracle"] < 0.05
    # the regression, which no counter tells either, errs at the other SM counts too
    assert src["regression_same_sm"] < src["regression_other_sm"]


def test_incomplete_or_bad_grids_are_named():
    data = _synthetic_dataset(2)
    with pytest.raises(ValueError, match="points are missing"):
        ev.grid_arrays(data.iloc[1:])
    bad = data.copy()
    bad.loc[3, "seconds"] = 0
    with pytest.raises(ValueError, match="seconds must be positive"):
        ev.grid_arrays(bad)
    with pytest.raises(ValueError, match="too few"):
        ev.splits(2, 0.2, 1, 0)
    with pytest.raises(ValueError, match="sm = 5 is not on the grid"):
        ev.grid_arrays(data).index(5, 400, 400)


# -- model variants: soft assignment and direct regression ---------------------------------------------------------
def _continuum(n=30, seed=7):
    """Kernels whose memory-bound share w runs over [0, 1]; a counter shows w."""
    rng = np.random.default_rng(seed)
    c, e, m = np.meshgrid(CUS, ENG, MEM, indexing="ij")
    w = rng.random(n)
    times = np.stack([(1 - x) * 1e6 / (c * e) + x * 2e5 / m for x in w]) * rng.uniform(0.5, 2, (n, 1, 1, 1))
    counters = np.column_stack([w, rng.random(n)])
    return times, counters


def test_soft_assignment_weights_centroids_and_hard_is_the_seeds_pick():
    times, counters = _continuum()
    hard = ScalingModel(n_clusters=3, seed=1).fit(times[:24], counters[:24])
    w = hard.weights(counters[24:])
    for name, picks in hard.picks(counters[24:]).items():
        assert np.array_equal(w[name], np.eye(3)[picks])
    # the hard surface is the picked centroid itself (the seed's model, unchanged)
    C, _, _ = hard.surfaces(w)
    assert np.array_equal(C, hard.centroids_["cu"][hard.picks(counters[24:])["cu"]])
    hard.assignment = "soft"
    ws = hard.weights(counters[24:])
    for name, v in ws.items():
        np.testing.assert_allclose(v.sum(axis=1), 1.0)
        assert (v > 0).all() and (v.max(axis=1) < 1).all()
    with pytest.raises(ValueError, match="assignment 'both'"):
        ScalingModel(assignment="both").fit(times, counters)


def test_regression_interpolates_a_continuum_that_clusters_quantise(tmp_path):
    """Scaling that varies continuously with a counter: k = 3 centroids can
    only approximate it, the regressed surface follows it."""
    times, counters = _continuum(60)
    train, test = np.arange(48), np.arange(48, 60)
    base = (1, 1, 1)
    x0, t0 = counters[test], times[test][:, 1, 1, 1]

    def err(model):
        return ev.relative_errors(model.predict_grid(x0, t0), times[test], base).mean()

    reg = SurfaceRegression(base=base, seed=1).fit(times[train], counters[train])
    clu = ScalingModel(n_clusters=3, base=base, seed=1).fit(times[train], counters[train])
    assert err(reg) < 0.05 < err(clu)
    assert err(reg) < 0.5 * err(clu)
    # the base itself is the measured value; a saved model predicts the same bytes
    np.testing.assert_array_equal(reg.predict_grid(x0, t0)[:, 1, 1, 1], t0)
    reg.save(tmp_path / "r.json")
    again = ev.load_model(tmp_path / "r.json")
    assert isinstance(again, SurfaceRegression)
    np.testing.assert_array_equal(again.predict_grid(x0, t0), reg.predict_grid(x0, t0))
    clu.save(tmp_path / "c.json")
    assert isinstance(ev.load_model(tmp_path / "c.json"), ScalingModel)


def test_gpumech_prior_becomes_log_ratios_to_the_base_sm_count():
    """``gpumech``: GPUMech's cycles at each point turn into, at every base,
    the log2 ratio of its cycles at each SM count to those at the base,
    first at the base's clocks, then at each corner of the clock plane;
    where the prior was not computed the counters are missing, and a model
    on such a base refuses them by name."""
    from pipeline_lib.scaling.counters import feature_set
    from pipeline_lib.scaling.prior import PRIOR_COLUMN
    d = _synthetic_dataset(2)
    for f in EXTENDED_NAMES:
        d[f] = 0.5
    gm = 1000.0 / d["sm"] + d["mc"] / 1e3 + d["cc"] / 1e4
    corner = d["cc"].isin([ENG[0], ENG[-1]]) & d["mc"].isin([MEM[0], MEM[-1]])
    d[PRIOR_COLUMN] = np.where((d["cc"] == ENG[1]) | corner, gm, np.nan)
    g = ev.grid_arrays(d, feature_set("gpumech"))
    S = len(CUS)
    assert g.counters.shape[-1] == 31 + 5 * S
    prior = g.counters[..., 31:]
    c, e, m = 1, 1, 2
    cyc = lambda s, cc, mc: 1000.0 / s + mc / 1e3 + cc / 1e4
    here = cyc(CUS[c], ENG[e], MEM[m])
    np.testing.assert_allclose(prior[0, c, e, m, :S], np.log2(cyc(CUS, ENG[e], MEM[m]) / here))
    for j, (cc, mc) in enumerate([(ENG[0], MEM[0]), (ENG[0], MEM[-1]), (ENG[-1], MEM[0]), (ENG[-1], MEM[-1])]):
        np.testing.assert_allclose(prior[0, c, e, m, (j + 1) * S:(j + 2) * S], np.log2(cyc(CUS, cc, mc) / here))
    assert prior[0, c, e, m, c] == 0 and np.isnan(prior[:, :, 0, 1]).all() and np.isfinite(prior[:, :, 0, 0]).all()
    model = ev.fit_model(g, "time", (c, e, m), np.arange(len(g.instances)), 3, 1, method="regression")
    assert model.predict_grid(g.counters[:2, c, e, m], g.values["time"][:2, c, e, m]).shape == (2,) + g.values[
        "time"].shape[1:]
    with pytest.raises(ValueError, match="counters must be finite"):
        ev.fit_model(g, "time", (c, 2, m), np.arange(len(g.instances)), 3, 1, method="regression")


def test_prior_points_cover_every_base_at_every_sm_count():
    from pipeline_lib.scaling.prior import prior_points
    pts = prior_points([4, 2], [300, 600, 1000], [700, 2000], {"sm": 2, "cc": 600, "mc": 700}, [],
                       [{"sm": 4, "cc": 1000, "mc": 2000}])
    pairs = {(300, 700), (300, 2000), (1000, 700), (1000, 2000), (600, 700)}   # heat maps' default: lowest, highest
    assert sorted(pts) == sorted((s, c, m) for s in (2, 4) for c, m in pairs)
    # the clock corners are there whatever the heat maps' core clocks
    pts = prior_points([4, 2], [300, 600, 1000], [700, 2000], {"sm": 2, "cc": 600, "mc": 700}, [600], [])
    assert {(2, 300, 700), (4, 300, 2000), (2, 1000, 700), (4, 1000, 2000)} <= set(pts)
    # without configured study bases: their default, the middle of each axis among them
    pts = prior_points([2, 4, 8], [300, 600, 1000], [700, 1350, 2000], {"sm": 2, "cc": 300, "mc": 700}, [1000], [])
    assert (8, 600, 1350) in pts and (2, 600, 700) not in pts
    grid = ev.grid_arrays(_synthetic_dataset(1))
    from pipeline_lib.scaling.run import study_bases
    lowest = {"sm": int(grid.sm[0]), "cc": int(grid.cc[0]), "mc": int(grid.mc[0])}
    want = prior_points(grid.sm, grid.cc, grid.mc, lowest, [int(grid.cc[0])], [])
    for b in study_bases(grid, []):         # every study base the validation uses has its prior
        p = grid.point(b)
        assert all((int(s), p["cc"], p["mc"]) in want for s in grid.sm), p


def test_gpumech_prior_is_gpumechs_own_prediction_and_falls_with_more_sms(tmp_path):
    """The prior at the analysed configuration is the sum over launches of
    GPUMech's MT_CONTENTION prediction (CPI x warp instructions / SMs);
    a streaming kernel of 32 blocks takes fewer cycles on more SMs."""
    from test_gpumech_contention import _stream_trace
    from pipeline_lib.gpumech.analysis import GPUMech
    from pipeline_lib.gpumech.contention import MODEL
    from pipeline_lib.scaling.prior import PRIOR_COLUMN, sm_prior
    from pipeline_lib.sim.hardware import load_hardware
    tr = _stream_trace(tmp_path, 1 << 14, 2, 32)
    names = {s: f"gpumech-baseline-sm{s}" for s in (2, 4, 8)}
    points = [{"name": n, "sm": s, "cc": 1, "mc": 1} for s, n in names.items()]
    got = sm_prior(tr.path, names[4], points).groupby("sm")[PRIOR_COLUMN].sum()
    hw = load_hardware(names[4])
    P = GPUMech(hw).run(tr)["predictions"]
    P = P[(P["selection"] == "clustering") & (P["policy"] == hw["scheduler"]) & (P["model"] == MODEL)]
    n = tr.launches.set_index("launch")["warp_instrs"]
    want = float((P.set_index("launch")["cpi"] * n).sum() / hw["cores"])
    assert got[4] == pytest.approx(want, rel=1e-12)
    assert got[2] > 1.5 * got[4] > 1.5 * got[8]


def test_regression_predicts_each_sm_count_from_its_own_targets():
    """One ensemble per SM count: changing the training surfaces at one SM
    count moves no prediction at another (a single forest over the whole
    grid would pick other neighbours and move them all)."""
    times, counters = _continuum(40)
    base = (1, 1, 1)
    reg = SurfaceRegression(base=base, seed=1).fit(times[:32], counters[:32])
    assert len(reg.forests_) == times.shape[1]
    changed = times[:32].copy()
    changed[:, 0] *= np.random.default_rng(3).uniform(0.5, 2.0, (32,) + times.shape[2:])
    other = SurfaceRegression(base=base, seed=1).fit(changed, counters[:32])
    x0, t0 = counters[32:], times[32:, 1, 1, 1]
    a, b = reg.predict_grid(x0, t0), other.predict_grid(x0, t0)
    np.testing.assert_array_equal(a[:, 1:], b[:, 1:])
    assert not np.allclose(a[:, 0], b[:, 0])


def test_heatmap_compares_every_variant_on_the_same_splits():
    grid = ev.grid_arrays(_synthetic_dataset())
    parts = ev.splits(24, 0.2, 2, seed=1)
    heat = ev.heatmap(grid, "time", [1000], parts, k=3, seed=1, variants=ev.COMPARED)
    assert sorted(heat["method"].unique()) == ["clusters-hard", "clusters-soft", "regression"]
    assert (heat.groupby(["sm", "cc", "mc"]).size() == 3).all()
    assert (heat["predictions"] == 2 * 5 * 47).all() and heat["mean_error"].max() < 0.05
    # the seed's variant alone gives the same numbers as within the comparison
    alone = ev.heatmap(grid, "time", [1000], parts, k=3, seed=1)
    np.testing.assert_array_equal(alone["mean_error"],
                                  heat[heat["method"] == "clusters-hard"]["mean_error"])
    with pytest.raises(ValueError, match="scaling.method"):
        ev.variant_name("trees")


def test_nested_choice_never_sees_the_held_out_kernels():
    """The inner comparison runs on training kernels only: changing the
    held-out kernels' values leaves it unchanged; on a continuum it
    prefers the regression."""
    times, counters = _continuum(40)
    rows = []
    for i in range(40):
        for (c, e, m), t in np.ndenumerate(times[i]):
            feats = dict.fromkeys(FEATURE_NAMES, 0.5)
            feats["mem_time"], feats["occupancy"] = counters[i]
            rows.append({"instance": f"k{i:02d}:k", "sm": int(CUS[c]), "cc": int(ENG[e]), "mc": int(MEM[m]),
                         "seconds": t, "dynamic_power_w": t, **feats})
    grid = ev.grid_arrays(pd.DataFrame(rows))
    parts = ev.splits(40, 0.2, 3, seed=1)
    a = ev.inner_choice(grid, "time", (1, 1, 1), parts, k=3, seed=1)
    assert a["inner_wins_regression"] >= 2 and a["inner_regression"] < a["inner_clusters_hard"]
    assert a["inner_wins_clusters_hard"] + a["inner_wins_clusters_soft"] + a["inner_wins_regression"] == 3
    one = parts[:1]
    before = ev.inner_choice(grid, "time", (1, 1, 1), one, k=3, seed=1)
    grid.values["time"] = grid.values["time"].copy()
    grid.values["time"][one[0][1]] *= 7.0 + np.arange(48).reshape(3, 4, 4)
    assert ev.inner_choice(grid, "time", (1, 1, 1), one, k=3, seed=1) == before


def test_bagged_classifier_chooses_its_decay_inside_the_training_set_and_saves(tmp_path):
    """The bagged classifier: a decay from DECAYS chosen on inner folds,
    five bootstrap members whose mean output it predicts with, the same
    after save and load; the seed's network is unchanged by the option."""
    from pipeline_lib.scaling.model import BAGS, DECAYS, BaggedNetwork

    times, counters = _continuum(40)
    seed_model = ScalingModel(n_clusters=3, seed=1).fit(times[:32], counters[:32])
    bagged = ScalingModel(n_clusters=3, seed=1, classifier="bagged").fit(times[:32], counters[:32],
                                                                        groups=np.arange(32) // 2)
    for name, net in bagged.networks_.items():
        assert isinstance(net, BaggedNetwork) and len(net.members) == BAGS and net.decay in DECAYS
        np.testing.assert_allclose(net.outputs(bagged._normalise(counters[32:])),
                                   np.mean([m.outputs(bagged._normalise(counters[32:])) for m in net.members], 0))
        assert np.array_equal(bagged.labels_[name], seed_model.labels_[name])    # the same clusters
    # a decay shrinks the weights: the members' first layers are smaller than the seed network's
    w_seed = np.abs(seed_model.networks_["cu"].weights[0]).mean()
    assert np.mean([np.abs(m.weights[0]).mean() for m in bagged.networks_["cu"].members]) < w_seed
    bagged.save(tmp_path / "b.json")
    again = ScalingModel.load(tmp_path / "b.json")
    assert again.classifier == "bagged"
    np.testing.assert_array_equal(again.predict_grid(counters[32:], times[32:, 0, 0, 0]),
                                  bagged.predict_grid(counters[32:], times[32:, 0, 0, 0]))
    seed_model.save(tmp_path / "s.json")
    assert isinstance(ScalingModel.load(tmp_path / "s.json").networks_["cu"], SigmoidNetwork)
    with pytest.raises(ValueError, match="classifier 'forest'"):
        ScalingModel(classifier="forest").fit(times, counters)
    assert ev.variant_name("clusters", "soft", "bagged") == "clusters-soft-bagged"


def test_pooled_errors_give_the_median_and_the_coarse_histogram():
    e = 100 * np.random.default_rng(4).lognormal(-2.5, 1.0, 5001)
    counts = np.histogram(e, ev.FINE_EDGES)[0]
    assert abs(ev.fine_median(counts) - np.median(e)) <= 0.05
    assert np.array_equal(ev.coarse_histogram(counts), np.histogram(e, ev.HIST_EDGES)[0])
    assert np.isnan(ev.fine_median(np.zeros_like(counts)))
    # the heat map gathers the binned errors of every variant when asked
    grid = ev.grid_arrays(_synthetic_dataset(2))
    fine = {}
    heat = ev.heatmap(grid, "time", [1000], ev.splits(6, 0.34, 1, seed=1), k=2, seed=1, variants=ev.COMPARED,
                      fine=fine)
    assert sorted(fine) == sorted(heat["method"].unique())
    assert all(c.sum() == heat[heat["method"] == n]["predictions"].sum() for n, c in fine.items())


def test_energy_spread_is_zero_when_power_is_a_function_of_time():
    """Same energy at every (SM, DRAM clock) point of a core clock: power
    follows 1 / time and the spread is 0; an energy that doubles at one of
    two points gives |2 - 1| and |1/2 - 1|, mean 0.75."""
    rng = np.random.default_rng(0)
    t = rng.uniform(1, 2, (3, 2, 2, 1))                      # instances x sm x cc x mc
    e = np.ones_like(t) * np.array([1.0, 1.7])[None, None, :, None]   # differs by core clock only
    g = ev.Grid(["a", "b", "c"], np.array([4, 8]), np.array([500, 1000]), np.array([1000]),
                {"time": t, "power": e / t}, np.zeros(t.shape + (1,)))
    assert ev.energy_spread(g) == pytest.approx(0.0)
    e2 = e.copy()
    e2[:, 1, :, :] *= 2.0
    g.values["power"] = e2 / t
    assert ev.energy_spread(g) == pytest.approx(0.75)


def test_model_inputs_for_a_new_kernel_equal_the_training_counters(tmp_path):
    """A kernel outside the training set gets, from its prior table, the
    same prior counters as ``grid_arrays`` gives at the base; a table
    without a corner's cycles is refused with the kernel and point named."""
    from pipeline_lib.scaling.counters import feature_set
    from pipeline_lib.scaling.prior import PRIOR_COLUMN
    from pipeline_lib.scaling.run import model_inputs
    d = _synthetic_dataset(1)
    for f in EXTENDED_NAMES:
        d[f] = 0.5
    d[PRIOR_COLUMN] = 1000.0 / d["sm"] + d["mc"] / 1e3 + d["cc"] / 1e4 + d["instance"].str.len()
    feats = feature_set("gpumech")
    g = ev.grid_arrays(d, feats)
    c, e, m = 1, 1, 2
    meta = {"features": feats, "base_point": g.point((c, e, m)), "sm": g.sm.tolist(), "cc": g.cc.tolist(),
            "mc": g.mc.tolist()}
    inst = g.instances[0]
    rows = d[d["instance"] == inst].assign(kernel="k")
    rows[["kernel", "sm", "cc", "mc", PRIOR_COLUMN]].to_parquet(tmp_path / "p.parquet")
    at_base = rows[(rows["sm"] == CUS[c]) & (rows["cc"] == ENG[e]) & (rows["mc"] == MEM[m])]
    np.testing.assert_allclose(model_inputs(at_base, meta, tmp_path / "p.parquet")[0], g.counters[0, c, e, m])
    drop = (rows["sm"] == CUS[0]) & (rows["cc"] == ENG[-1]) & (rows["mc"] == MEM[0])
    rows[~drop][["kernel", "sm", "cc", "mc", PRIOR_COLUMN]].to_parquet(tmp_path / "q.parquet")
    with pytest.raises(ValueError, match=r"kernel k .*sm = 2, \(cc, mc\) = \(1000, 400\)"):
        model_inputs(at_base, meta, tmp_path / "q.parquet")
