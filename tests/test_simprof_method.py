"""SimProf's method on hand-worked inputs (eqs. 33-38) and on constructed
units whose phases are known (5.3.2)."""
import math

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import adjusted_rand_score

from pipeline_lib.simprof import phases, sampling, sensitivity


# --- eq. 33: optimal allocation -------------------------------------------

def test_optimal_allocation_follows_eq33_with_largest_remainder_rounding():
    # N sigma = [100, 200, 0]: without a floor n_h = 12 x [1/3, 2/3, 0]
    assert sampling.optimal_allocation([100, 50, 50], [1, 4, 0], 12, min_per_phase=0).tolist() == [4, 8, 0]
    # with one unit per phase, 11 units split 1:2 -> 3.67, 7.33, rounded to the larger remainder
    assert sampling.optimal_allocation([100, 50, 50], [1, 4, 0], 12).tolist() == [4, 7, 1]


def test_optimal_allocation_caps_a_phase_at_its_size_and_passes_the_rest_on():
    # eq. 33 asks 4 of a 2-unit phase; the other phase gets the excess
    assert sampling.optimal_allocation([2, 10], [10, 1], 6).tolist() == [2, 4]
    assert sampling.optimal_allocation([2, 10], [10, 1], 50).tolist() == [2, 10]


def test_optimal_allocation_is_proportional_when_no_phase_varies():
    assert sampling.optimal_allocation([30, 10], [0, 0], 8).tolist() == [6, 2]


@pytest.mark.parametrize("n", range(0, 40))
def test_optimal_allocation_always_spends_exactly_n_within_bounds(n):
    sizes, stds = np.array([5, 1, 17, 3, 9]), np.array([0.3, 2.0, 0.0, 1.0, 0.1])
    a = sampling.optimal_allocation(sizes, stds, n)
    assert a.sum() == min(n, sizes.sum())
    assert (a >= 0).all() and (a <= sizes).all()
    if n >= len(sizes):
        assert (a >= 1).all()


# --- eqs. 34-37: estimate and confidence interval ---------------------------

def test_standard_error_is_eq36():
    # 100^2 (1 - 4/100) 1^2 / 4 + 50^2 (1 - 2/50) 4^2 / 2 = 2400 + 19200
    assert sampling.stratified_se([100, 50], [4, 2], [1, 4]) == pytest.approx(math.sqrt(21600) / 150)


def test_stratified_estimate_weights_phase_means_and_uses_sample_deviations():
    values = np.array([1.0, 2.0, 3.0, 4.0, 10.0, 14.0, 12.0, 20.0])
    labels = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    chosen = np.array([0, 1, 4, 5])
    est = sampling.stratified_estimate(values, labels, chosen, 0.95)
    assert est.mean == pytest.approx(0.5 * 1.5 + 0.5 * 12.0)
    s0, s1 = np.std([1, 2], ddof=1), np.std([10, 14], ddof=1)      # eq. 37
    se = math.sqrt(16 * 0.5 * s0 ** 2 / 2 + 16 * 0.5 * s1 ** 2 / 2) / 8
    assert est.se == pytest.approx(se)
    assert est.margin == pytest.approx(1.959964 * se, rel=1e-6)
    assert est.low < est.mean < est.high and est.n == 4


def test_a_full_sample_has_no_sampling_error():
    values = np.arange(12, dtype=float)
    labels = np.repeat([0, 1, 2], 4)
    est = sampling.stratified_estimate(values, labels, np.arange(12), 0.997)
    assert est.mean == pytest.approx(values.mean()) and est.margin == 0.0


def test_z_score_matches_the_normal_quantiles():
    assert sampling.z_score(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert sampling.z_score(0.997) == pytest.approx(2.967738, abs=1e-6)
    with pytest.raises(ValueError):
        sampling.z_score(1.0)


def test_required_sample_size_solves_the_single_phase_case():
    values = np.r_[np.full(50, 9.0), np.full(50, 11.0)]          # mean 10, sigma 1
    labels = np.zeros(100, int)
    t = (0.05 * 10 / sampling.z_score(0.997)) ** 2
    expected = math.ceil(1 / (t + 1 / 100))                        # (1 - n/N)/n <= t
    assert sampling.required_sample_size(values, labels, 0.05, 0.997) == expected == 27
    # a tighter error needs more units
    assert sampling.required_sample_size(values, labels, 0.02, 0.997) > expected


# --- sampling methods --------------------------------------------------------

def test_simprof_sample_draws_eq33_sizes_inside_each_phase():
    labels = np.repeat([0, 1, 2], [100, 50, 50])
    values = np.r_[np.tile([9.0, 11.0], 50), np.tile([6.0, 14.0], 25), np.full(50, 3.0)]
    pick = sampling.simprof_sample(labels, values, 12, np.random.default_rng(1))
    assert np.bincount(labels[pick]).tolist() == [4, 7, 1]
    assert len(np.unique(pick)) == 12


def test_code_clusters_call_stacks_alone_into_as_many_phases_as_points():
    """The seed's CODE (5.4.1-5.4.2): k-means with k = the sample size on all
    methods' frequencies, one unit per cluster (nearest its centre),
    weighted by cluster share; fewer clusters where fewer distinct mixes exist."""
    import scipy.sparse as sp
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.9, 0.1], [0.95, 0.05], [0.0, 1.0], [0.1, 0.9]]))
    labels, chosen = sampling.code_phases(X, 2, seed=0)
    assert labels[0] == labels[1] == labels[2] != labels[3] == labels[4]
    # the first cluster's centre is (0.95, 0.05): unit 2; the second's two units tie, the first wins
    assert sorted(chosen.tolist()) == [2, 3]
    values = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    assert sampling.code_estimate(values, labels, chosen) == pytest.approx(0.6 * 3.0 + 0.4 * 4.0)
    # as many phases as points where the units allow it, fewer where they repeat
    assert sorted(sampling.code_phases(X, 20, seed=0)[1].tolist()) == [0, 1, 2, 3, 4]
    dup = sp.csr_matrix(np.array([[1.0, 0.0]] * 4 + [[0.0, 1.0]]))
    labels_d, chosen_d = sampling.code_phases(dup, 20, seed=0)
    assert labels_d.tolist() == [labels_d[0]] * 4 + [1 - labels_d[0]] and len(chosen_d) == 2
    with pytest.raises(ValueError, match="one chosen unit in every phase"):
        sampling.code_estimate(values, labels, [2])
    feats, centers = np.array([[0.0], [1.0], [0.4], [10.0], [12.0]]), np.array([[0.5], [11.9]])
    assert phases.nearest_center(feats, centers).tolist() == [0, 0, 0, 1, 1]


def test_second_takes_the_units_inside_one_contiguous_window():
    start = np.arange(0.0, 20.0, 1.0)
    pick = sampling.second_sample(start, start + 1.0, 5.0, np.random.default_rng(3))
    assert len(pick) in (4, 5) and (np.diff(pick) == 1).all()


# --- eq. 38 and Algorithm 5.1 -------------------------------------------------

def test_eq38_flags_a_mean_or_deviation_change_above_ten_percent():
    train = [10.0, 10.0, 12.0, 12.0]                               # mean 11, sigma 1
    assert sensitivity.phase_is_sensitive(train, [11.2, 11.2, 13.2, 13.2])      # mean +10.9%
    assert not sensitivity.phase_is_sensitive(train, [11.0, 11.0, 13.0, 13.0])  # mean +9.1%
    assert sensitivity.phase_is_sensitive(train, [9.8, 9.8, 12.2, 12.2])        # sigma +20%
    assert not sensitivity.phase_is_sensitive(train, [])                        # phase absent


def test_algorithm_51_marks_a_phase_sensitive_if_any_reference_input_moves_it():
    tv = np.array([1.0, 1.0, 5.0, 6.0])
    tl = np.array([0, 0, 1, 1])
    refs = {"road": (np.array([1.0, 1.0, 5.0, 6.0]), tl), "social": (np.array([1.0, 1.0, 8.0, 9.0]), tl)}
    sens = sensitivity.input_sensitive_phases(tv, tl, refs)
    assert sens == {0: [], 1: ["social"]}
    assert sensitivity.point_reduction({0: 3, 1: 1}, sens) == 0.75


# --- phase formation ----------------------------------------------------------

def test_method_frequencies_count_each_method_once_per_snapshot():
    samples = pd.DataFrame({"unit": [0, 0, 1, -1], "stack": [0, 1, 1, 0]})
    frames = pd.DataFrame({"stack": [0, 0, 0, 1, 1], "method": [0, 1, 1, 1, 2]})
    X = phases.method_frequencies(samples, frames, 2, 3).toarray()
    assert X.tolist() == [[0.5, 1.0, 0.5], [0.0, 1.0, 1.0]]


def _three_phase_units(seed=0, per_phase=40):
    """Units of three phases, each running its own ten methods (plus one
    method every unit runs), with per-phase performance 1, 2, 3."""
    rng = np.random.default_rng(seed)
    rows, truth, y = [], [], []
    for p in range(3):
        for _ in range(per_phase):
            x = np.zeros(31)
            x[p * 10:(p + 1) * 10] = rng.uniform(0.5, 1.0, 10)
            x[rng.integers(0, 30, 3)] += rng.uniform(0, 0.1, 3)        # noise in other phases' methods
            x[30] = 1.0                                                   # the executor's run loop
            rows.append(x)
            truth.append(p)
            y.append(1.0 + p + rng.normal(0, 0.05))
    return np.array(rows), np.array(truth), np.array(y)


def test_phase_formation_recovers_known_phases():
    X, truth, y = _three_phase_units()
    pf = phases.PhaseFormation(top_methods=12, seed=0).fit(X, y)
    assert pf.k_ == 3
    assert adjusted_rand_score(truth, pf.labels_) == 1.0
    assert 30 not in pf.methods_                     # common to every unit: never selected
    # units of a new input are classified to the phase that runs their methods
    X2, truth2, _ = _three_phase_units(seed=1, per_phase=5)
    assert adjusted_rand_score(truth2, pf.predict(X2)) == 1.0
    names = [f"m{i}" for i in range(31)]
    top = {n for n, _ in pf.top_methods_of(pf.labels_[0], names, count=3)}
    assert top <= {f"m{i}" for i in range(10)}


def test_unstructured_units_form_a_single_phase():
    rng = np.random.default_rng(4)
    X = rng.uniform(0.4, 0.6, size=(60, 8))
    y = rng.normal(2.0, 0.1, 60)
    pf = phases.PhaseFormation(seed=0).fit(X, y)
    assert pf.k_ == 1 and (pf.labels_ == 0).all()
    assert np.nanmax(pf.scores_[1:]) < phases.SINGLE_PHASE_SCORE / 0.9


def test_smallest_k_within_ninety_percent_of_the_best_score_is_chosen():
    # three groups, two of them close: k = 3 scores best, k = 2 within 90% of it
    rng = np.random.default_rng(2)
    a = rng.normal([0, 0], 0.1, (30, 2))
    b1, b2 = rng.normal([5, 0], 0.1, (15, 2)), rng.normal([5, 2.0], 0.1, (15, 2))
    X = np.r_[a, b1, b2]
    k, labels, _, scores = phases.choose_k(X, 6, 0.9, seed=0)
    assert np.nanargmax(scores) == 2 and scores[1] >= 0.9 * scores[2]
    assert k == 2 and adjusted_rand_score(np.repeat([0, 1], 30), labels) == 1.0
    # with a strict threshold the best k itself is taken
    assert phases.choose_k(X, 6, 1.0, seed=0)[0] == 3


def test_regression_selection_prefers_methods_that_track_performance():
    rng = np.random.default_rng(5)
    y = rng.uniform(1, 3, 80)
    X = np.c_[y * 0.2 + rng.normal(0, 0.01, 80), rng.uniform(0, 1, 80), np.ones(80)]
    assert phases.select_methods(X, y, 1).tolist() == [0]
    assert 2 not in phases.select_methods(X, y, 3).tolist()


def test_homogeneity_is_population_weighted_and_maximum_cov():
    values = np.array([1.0, 1.0, 3.0, 5.0])
    labels = np.array([0, 0, 1, 1])
    h = phases.homogeneity(values, labels)
    assert h["population_cov"] == pytest.approx(np.std(values) / 2.5)
    assert h["weighted_cov"] == pytest.approx(0.5 * 0 + 0.5 * (1 / 4))
    assert h["max_cov"] == pytest.approx(0.25)


# --- the sampling study (Fig. 41) on constructed units --------------------------------

def _stratified_units(seed=0):
    """Three phases with distinct means and little spread inside each, laid
    out in time as a job's stages would be."""
    rng = np.random.default_rng(seed)
    sizes, means, sds = [300, 150, 50], [100.0, 400.0, 20.0], [5.0, 20.0, 2.0]
    phase = np.repeat([0, 1, 2], sizes)
    y = np.concatenate([rng.normal(m, s, n) for m, s, n in zip(means, sds, sizes)])
    start = np.arange(len(y)) * 50_000_000
    # CODE's call-stack phases are the same three here
    u = pd.DataFrame({"thread": 7, "phase": phase, "alloc_mb_per_cpu_s": y, "start_ns": start,
                      "end_ns": start + 50_000_000, "code_phase": phase, "code_representative": False})
    for h in range(3):
        members = np.flatnonzero(phase == h)
        u.loc[members[np.argmin(np.abs(y[members] - means[h]))], "code_representative"] = True
    return u


def test_stratified_sampling_beats_random_and_its_intervals_hold():
    from pipeline_lib.simprof.run import sampling_study
    u = _stratified_units()
    e = sampling_study(u, "alloc_mb_per_cpu_s", 20, 0.997, 200, 2.0, seed=1)
    mean = e.groupby("method")["error"].mean()
    assert (e["oracle"] == u["alloc_mb_per_cpu_s"].mean()).all()
    # phases this distinct: SimProf's error is a fraction of SRS's, and SECOND (one
    # 2-second window of a 25-second run) misses most phases
    assert mean["SimProf"] < 0.01 and mean["SimProf"] < mean["SRS"] / 3 and mean["SECOND"] > 0.3
    assert mean["CODE"] < 0.02
    sp = e[e["method"] == "SimProf"]
    assert sp["covered"].mean() > 0.95 and (sp["units"] == 20).all()
    # seeded: the same study twice gives the same draws
    again = sampling_study(u, "alloc_mb_per_cpu_s", 20, 0.997, 200, 2.0, seed=1)
    assert again.equals(e)
    assert (e["thread"] == 7).all()


def test_each_executor_thread_with_more_units_than_the_sample_is_its_own_population():
    """The seed profiles one executor thread (5.3.1): threads 7 and 8 are
    studied apart, each against its own mean; thread 9's 20 units would be
    simulated whole by every method and are left out; with no thread above
    the sample size the run's threads are pooled."""
    from pipeline_lib.simprof.run import populations, sampling_study
    a, b = _stratified_units(0), _stratified_units(1)
    b["thread"], b["alloc_mb_per_cpu_s"] = 8, b["alloc_mb_per_cpu_s"] * 2
    c = _stratified_units(2).iloc[:20].assign(thread=9)
    u = pd.concat([a, b, c], ignore_index=True)
    assert [t for t, _ in populations(u, 20)] == [7, 8]
    e = sampling_study(u, "alloc_mb_per_cpu_s", 20, 0.997, 50, 2.0, seed=1)
    assert sorted(e["thread"].unique()) == [7, 8]
    oracle = e.groupby("thread")["oracle"].first()
    assert oracle[7] == pytest.approx(a["alloc_mb_per_cpu_s"].mean())
    assert oracle[8] == pytest.approx(b["alloc_mb_per_cpu_s"].mean())
    assert (e.groupby(["thread", "method"]).size().loc[(8, "CODE")] == 1)
    small = u.groupby("thread").head(15).reset_index(drop=True)
    # one CODE phase per thread in these 15 units, its first unit simulated
    small["code_phase"], small["code_representative"] = 0, ~small["thread"].duplicated()
    assert [t for t, _ in populations(small, 20)] == [-1]
    pooled = sampling_study(small, "alloc_mb_per_cpu_s", 20, 0.997, 5, 2.0, seed=1)
    assert (pooled["thread"] == -1).all() and pooled["oracle"].iloc[0] == pytest.approx(
        small["alloc_mb_per_cpu_s"].mean())


def test_units_of_two_profiles_share_columns_by_method_name():
    """A reference run's method ids differ from the training run's; its
    frequencies are taken by method name (5.3.4.1)."""
    from pipeline_lib.simprof.run import units_and_frequencies
    t = np.arange(0, 1_000_000_001, 10_000_000)
    counters = pd.DataFrame({"time_ns": t, "java_tid": 1, "os_tid": 1, "cpu_ns": t, "user_ns": t,
                             "allocated_bytes": t, "minor_faults": 0, "major_faults": 0, "voluntary_switches": 0,
                             "involuntary_switches": 0, "runqueue_wait_ns": 0})
    tasks = pd.DataFrame({"time_ns": [0], "event": ["start"], "java_tid": [1], "stage": [0]})
    samples = pd.DataFrame({"time_ns": [100_000_000, 600_000_000], "java_tid": 1, "stack": [0, 1]})

    def profile(ids, g):   # stack 0 runs a.A.f inside a.A.main, stack 1 runs lambda g inside a.A.main
        names = {"a.A.main": ids[0], "a.A.f": ids[1], g: ids[2]}
        stacks = pd.DataFrame({"stack": [0, 0, 1, 1], "depth": [0, 1, 0, 1],
                               "method": [names["a.A.f"], names["a.A.main"], names[g], names["a.A.main"]]})
        methods = pd.DataFrame({"method": list(names.values()), "name": list(names.keys())})
        return {"counters": counters, "tasks": tasks, "samples": samples, "stacks": stacks, "methods": methods}

    # the lambda's hidden class has another load number and address in each run
    u, X, names = units_and_frequencies(profile([0, 1, 2], "b.B$$Lambda$12+0x00aa.77.g"), "cpu-time", 500e6)
    assert len(u) == 2 and names == ["a.A.main", "a.A.f", "b.B$$Lambda.g"]
    assert X.toarray().tolist() == [[1, 1, 0], [1, 0, 1]]
    _, Xr, _ = units_and_frequencies(profile([2, 0, 1], "b.B$$Lambda$31+0x00bb.99.g"), "cpu-time", 500e6,
                                     ["b.B$$Lambda.g", "a.A.f", "c.C.h"])
    assert Xr.toarray().tolist() == [[0, 1, 0], [1, 0, 0]]


def test_frame_types_split_a_method_by_how_the_jvm_ran_it():
    """With frame_types a unit that interprets f and one that runs f compiled
    differ in their vectors; without, they are the same (docs/simprof.md,
    "Frame types"). A profile without the column is refused by name."""
    from pipeline_lib.simprof.run import units_and_frequencies
    t = np.arange(0, 1_000_000_001, 10_000_000)
    counters = pd.DataFrame({"time_ns": t, "java_tid": 1, "os_tid": 1, "cpu_ns": t, "user_ns": t,
                             "allocated_bytes": t, "minor_faults": 0, "major_faults": 0, "voluntary_switches": 0,
                             "involuntary_switches": 0, "runqueue_wait_ns": 0})
    tables = {"counters": counters, "tasks": pd.DataFrame({"time_ns": [0], "event": ["start"], "java_tid": [1],
                                                           "stage": [0]}),
              "samples": pd.DataFrame({"time_ns": [100_000_000, 600_000_000], "java_tid": 1, "stack": [0, 1]}),
              # stack 0: f interpreted inside main compiled; stack 1: f inlined into main compiled
              "stacks": pd.DataFrame({"stack": [0, 0, 1, 1], "depth": [0, 1, 0, 1], "method": [1, 0, 1, 0],
                                      "frame_type": ["Interpreted", "JIT compiled", "Inlined", "JIT compiled"]}),
              "methods": pd.DataFrame({"method": [0, 1], "name": ["a.A.main", "a.A.f"]})}
    _, X, names = units_and_frequencies(tables, "cpu-time", 500e6)
    assert names == ["a.A.main", "a.A.f"] and X.toarray().tolist() == [[1, 1], [1, 1]]
    _, X, names = units_and_frequencies(tables, "cpu-time", 500e6, frame_types=True)
    assert names == ["a.A.f [Interpreted]", "a.A.main [JIT compiled]", "a.A.f [Inlined]"]
    assert X.toarray().tolist() == [[1, 1, 0], [0, 1, 1]]
    # a reference run's columns are the training run's typed names
    _, Xr, _ = units_and_frequencies(tables, "cpu-time", 500e6, ["a.A.f [Inlined]", "a.A.f [Interpreted]"], True)
    assert Xr.toarray().tolist() == [[0, 1], [1, 0]]
    with pytest.raises(ValueError, match="frame types"):
        units_and_frequencies({**tables, "stacks": tables["stacks"].drop(columns="frame_type")}, "cpu-time", 500e6,
                              frame_types=True)


def test_a_phase_is_described_by_what_sets_it_apart():
    pf = phases.PhaseFormation()
    names = ["Executor$TaskRunner.run", "Sorter.sort", "Map.insert", "Io.read"]
    pf.methods_ = np.array([0, 1, 2, 3])
    # every phase runs the task loop; phase 0 sorts, phase 1 inserts, both read a little
    pf.centers_ = np.array([[1.0, 0.9, 0.1, 0.2], [1.0, 0.0, 0.8, 0.2]])
    assert pf.top_methods_of(0, names, count=2) == [("Executor$TaskRunner.run", 1.0), ("Sorter.sort", 0.9)]
    assert pf.distinct_methods_of(0, names) == [("Sorter.sort", 0.9)]
    assert pf.distinct_methods_of(1, names) == [("Map.insert", 0.8)]
    # excess over the other phases' mean: a method two of three phases run still describes them
    pf.centers_ = np.array([[1.0, 0.9, 0.0, 0.0], [1.0, 0.9, 0.0, 0.5], [1.0, 0.0, 0.7, 0.0]])
    assert [n for n, _ in pf.distinct_methods_of(1, names)] == ["Io.read", "Sorter.sort"]
    # one phase: nothing to set it apart from, so its heaviest methods
    pf.centers_ = pf.centers_[:1]
    assert pf.distinct_methods_of(0, names, count=1) == [("Executor$TaskRunner.run", 1.0)]


@pytest.mark.parametrize("name, stable", [
    ("org.apache.spark.rdd.RDD$$Lambda$1981+0x00007f98e0b1cbc8.924450374.apply", "org.apache.spark.rdd.RDD$$Lambda.apply"),
    ("java.lang.invoke.LambdaForm$MH+0x00007f98e0b11800.1364088564.invoke", "java.lang.invoke.LambdaForm$MH.invoke"),
    ("Foo$$Lambda$14/0x0000000800c03000.run", "Foo$$Lambda.run"),
    ("scala.runtime.LambdaDeserialize$.bootstrap", "scala.runtime.LambdaDeserialize$.bootstrap"),
    ("org.apache.spark.util.collection.AppendOnlyMap.growTable", "org.apache.spark.util.collection.AppendOnlyMap.growTable"),
])
def test_hidden_class_names_are_matched_across_runs(name, stable):
    assert phases.stable_method_name(name) == stable


def test_a_second_profile_of_the_same_job_and_input_is_a_repeat_left_out_of_the_averages():
    from pipeline_lib.simprof.run import repeats
    info = [{"run": "cc-web", "job": "cc", "input": "web", "arg": None, "partitions": 4},
            {"run": "cc-road", "job": "cc", "input": "road", "arg": None, "partitions": 4},
            {"run": "pr-web", "job": "pagerank", "input": "web", "arg": "10", "partitions": 4},
            {"run": "pr-web-5", "job": "pagerank", "input": "web", "arg": "5", "partitions": 4},
            {"run": "cc-web-again", "job": "cc", "input": "web", "arg": None, "partitions": 4}]
    assert repeats(info) == {"cc-web-again": "cc-web"}


def test_stage_options_pass_the_unit_of_the_mode_in_use_to_the_stages_that_cut_units():
    """The rules and the benchmarks take SimProf's stage options from one
    place: the phase and sensitivity stages get the unit of the counter
    mode in use (CPU time or instructions), the sampling stage only the
    measure and its own fields."""
    from pathlib import Path

    from pipeline_lib.config import load
    from pipeline_lib.workflow.simprof import PHASES_FIELDS, SAMPLING_FIELDS, stage_options

    sp = load(Path(__file__).resolve().parents[1] / "config" / "config.yaml")["simprof"]
    cpu = stage_options(sp, "cpu-time", "cpi")
    ins = stage_options(sp, "instructions", "cpi")
    assert cpu["unit"] == {"counter_mode": "cpu-time", "unit_size": sp["unit_cpu_ms"] * 1e6, "measure": "cpi"}
    assert ins["unit"]["unit_size"] == float(sp["unit_instructions"])
    for opts in (cpu, ins):
        assert opts["phases"] == {**opts["unit"], **{k: sp[k] for k in PHASES_FIELDS}}
        assert opts["sensitivity"] == {**opts["unit"], "tolerance": sp["tolerance"]}
        assert opts["sampling"] == {"measure": "cpi", **{k: sp[k] for k in SAMPLING_FIELDS}}
