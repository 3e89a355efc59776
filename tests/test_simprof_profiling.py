"""SimProf's thread profiling: seeded inputs, unit formation on constructed
counters, and one real Spark job profiled under JFR end to end."""
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pipeline_lib.simprof import inputs, jobs, jvm, phases, profile, units


# --- inputs -------------------------------------------------------------------

def test_zipf_text_is_seeded_and_follows_the_rank_order(tmp_path):
    a, b, c = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "c.txt"
    inputs.zipf_text(a, 20000, 500, 1.1, 10, seed=3)
    inputs.zipf_text(b, 20000, 500, 1.1, 10, seed=3)
    inputs.zipf_text(c, 20000, 500, 1.1, 10, seed=4)
    assert a.read_bytes() == b.read_bytes() != c.read_bytes()
    counts = Counter(a.read_text().split())
    assert sum(counts.values()) == 20000
    assert counts["w000000"] > counts["w000001"] > counts["w000010"] > counts["w000100"]
    # Zipf: frequency ratio of ranks 1 and 10 is about 10^1.1
    assert counts["w000000"] / counts["w000009"] == pytest.approx(10 ** 1.1, rel=0.2)


def test_kronecker_initiator_sets_the_topology():
    skewed = inputs.kronecker_edges(12, 8, [[0.9, 0.5], [0.5, 0.1]], seed=1)
    local = inputs.kronecker_edges(12, 8, [[0.9, 0.1], [0.1, 0.9]], seed=1)
    assert (skewed[:, 0] != skewed[:, 1]).all() and len(np.unique(skewed, axis=0)) == len(skewed)
    assert skewed.max() < 4096 and len(skewed) > 0.5 * 8 * 4096
    deg = np.bincount(skewed[:, 0], minlength=4096)
    deg_local = np.bincount(local[:, 0], minlength=4096)
    assert deg.max() / deg.mean() > 3 * deg_local.max() / deg_local.mean()    # hubs
    # a diagonal initiator keeps edges between nearby vertex ids (locality)
    assert np.median(np.abs(local[:, 0] - local[:, 1])) < np.median(np.abs(skewed[:, 0] - skewed[:, 1])) / 4
    assert (inputs.kronecker_edges(12, 8, [[0.9, 0.5], [0.5, 0.1]], seed=1) == skewed).all()
    with pytest.raises(ValueError, match="initiator"):
        inputs.kronecker_edges(4, 2, [[1, 2, 3]], seed=0)


# --- units ----------------------------------------------------------------------

def test_units_cut_each_thread_at_fixed_cpu_time_and_rate_its_counters():
    # one thread: 10 ms ticks; CPU at half speed for 1 s then full speed; allocation
    # 100 MB per CPU second, then 300; one task per half second (stages 0, 1, 2, 3)
    t = np.arange(0, 2_000_000_001, 10_000_000, dtype=np.int64)
    cpu = np.where(t < 1e9, t / 2, 5e8 + (t - 1e9))
    alloc = np.where(cpu < 5e8, cpu * 0.1, 5e7 + (cpu - 5e8) * 0.3)
    counters = pd.DataFrame({"time_ns": t, "java_tid": 7, "os_tid": 70, "cpu_ns": cpu, "user_ns": cpu,
                             "allocated_bytes": alloc, "minor_faults": cpu / 1e6, "major_faults": 0,
                             "voluntary_switches": 0, "involuntary_switches": 0, "runqueue_wait_ns": t - cpu})
    tasks = pd.DataFrame({"time_ns": [0, 500_000_000, 1_000_000_000, 1_500_000_000], "event": "start",
                          "java_tid": 7, "stage": [0, 1, 2, 3]})
    samples = pd.DataFrame({"time_ns": [5_000_000, 1_100_000_000, 1_990_000_000, 1_999_000_000],
                            "java_tid": [7, 7, 7, 8], "stack": 0})
    u, unit_of = units.form_units(counters, samples, tasks, unit_cpu_ms=250)
    assert len(u) == 6                                   # 1.5 s of CPU in 250 ms units
    assert u["start_ns"].tolist() == [0, 500_000_000, 1_000_000_000, 1_250_000_000, 1_500_000_000, 1_750_000_000]
    assert u["wall_s_per_cpu_s"].round(6).tolist() == [2.0, 2.0, 1.0, 1.0, 1.0, 1.0]
    assert u["alloc_mb_per_cpu_s"].round(6).tolist() == [100.0, 100.0, 300.0, 300.0, 300.0, 300.0]
    assert u["runqueue_wait_s_per_cpu_s"].round(6).tolist() == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    assert u["minor_faults_per_cpu_s"].round(6).tolist() == [1000.0] * 6
    assert u["stage"].tolist() == [0, 1, 2, 2, 3, 3]
    assert unit_of.tolist() == [0, 2, 5, -1]              # the other thread's snapshot is in no unit
    assert u["snapshots"].tolist() == [1, 0, 1, 0, 0, 1]


def test_counter_mode_is_recorded_and_never_claims_cpi():
    mode = units.counter_mode()
    assert mode["counter_mode"] == "cpu-time" and isinstance(mode["pmu"], bool) and mode["why"]
    assert not any("cpi" in m.lower() for m in units.MEASURES)


# --- a real job ----------------------------------------------------------------

@pytest.fixture(scope="module")
def wordcount(tmp_path_factory):
    d = tmp_path_factory.mktemp("spark")
    text = d / "text.txt"
    inputs.zipf_text(text, 400_000, 5000, 1.1, 12, seed=1)
    jar = jvm.build_jar(d / "cache")
    run, tables = profile.profile_job(jar, "wordcount", text, d / "w", partitions=4, arg="", cores=2,
                                      driver_memory="1g",
                                      profile={"stack_period_ms": 10, "stack_depth": 256, "counter_period_ms": 10},
                                      log=d / "log.txt", timeout_s=300)
    return text, run, tables


def test_a_profiled_spark_job_computes_the_right_answer(wordcount):
    text, run, _ = wordcount
    words = text.read_text().split()
    assert run["summary"] == {"job": "wordcount", "distinct_words": len(set(words)), "words": len(words)}
    jobs.check("wordcount", text, run["summary"])
    assert run["wall_s"] > 0 and run["recording_bytes"] > 0


def test_profile_holds_executor_threads_stacks_tasks_and_counters(wordcount):
    _, run, t = wordcount
    assert t["samples"]["thread"].str.startswith(jvm.EXECUTOR_THREAD_PREFIX).all()
    assert set(t["samples"]["java_tid"]) <= set(t["tasks"]["java_tid"])
    names = t["methods"]["name"]
    assert names.str.startswith("org.apache.spark.").any() and names.str.startswith("simprof.Jobs").any()
    # every task that started ended, with its stage; the counters only grow
    starts, ends = (t["tasks"][t["tasks"]["event"] == e] for e in ("start", "end"))
    assert sorted(starts["task"]) == sorted(ends["task"]) and starts["stage"].nunique() >= 2
    for _, c in t["counters"].groupby("java_tid"):
        assert (np.diff(c["cpu_ns"]) >= 0).all() and (np.diff(c["allocated_bytes"]) >= 0).all()
    assert run["stacks_truncated"] < 0.05                          # depth 256


def test_units_of_a_real_job_carry_snapshots_and_form_phases(wordcount):
    _, _, t = wordcount
    u, unit_of = units.form_units(t["counters"], t["samples"], t["tasks"], unit_cpu_ms=50)
    assert len(u) >= 10 and (u["wall_s_per_cpu_s"] >= 0.99).all()
    assert u["snapshots"].sum() == (unit_of >= 0).sum() > 0
    X = phases.method_frequencies(t["samples"].assign(unit=unit_of), t["stacks"], len(u), len(t["methods"]))
    pf = phases.PhaseFormation(top_methods=50, seed=0).fit(X, u["alloc_mb_per_cpu_s"].to_numpy())
    assert 1 <= pf.k_ <= 20 and len(pf.labels_) == len(u)


# --- every job against its Python reference ---------------------------------------

@pytest.fixture(scope="module")
def small_inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    inputs.zipf_text(d / "text.txt", 60000, 2000, 1.1, 10, seed=2)
    inputs.labelled_documents(d / "docs.txt", 1500, 4, 30, 2000, 1.1, seed=3)
    inputs.kronecker_graph(d / "graph.txt", 10, 4, [[0.9, 0.1], [0.1, 0.9]], seed=4)   # several components
    return d, jvm.build_jar(d / "cache")


@pytest.mark.parametrize("job,data,arg", [("sort", "text.txt", ""), ("grep", "text.txt", "w00001[0-9]"),
                                          ("naivebayes", "docs.txt", "1"), ("cc", "graph.txt", ""),
                                          ("pagerank", "graph.txt", "3")])
def test_each_spark_job_matches_its_reference(small_inputs, job, data, arg):
    d, jar = small_inputs
    run = jvm.run_job(jar, job, d / data, d / job, partitions=3, arg=arg, cores=2, driver_memory="1g",
                      profile=None, log=d / f"{job}.log", timeout_s=300)
    jobs.check(job, d / data, run["summary"], arg)
    if job == "cc":
        assert run["summary"]["components"] > 1
    if job == "naivebayes":          # the classes' frequent words differ: far better than chance (0.25)
        assert run["summary"]["accuracy"] > 0.8


def test_a_wrong_answer_is_named(small_inputs):
    d, _ = small_inputs
    with pytest.raises(ValueError, match=r"'grep' on .*text.txt: matches is 3"):
        jobs.check("grep", d / "text.txt", {"job": "grep", "matches": 3}, "w00001[0-9]")
