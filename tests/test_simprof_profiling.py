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
    u, unit_of = units.form_units(counters, samples, tasks, "cpu-time", 250e6)
    assert len(u) == 6                                   # 1.5 s of CPU in 250 ms units
    assert u["start_ns"].tolist() == [0, 500_000_000, 1_000_000_000, 1_250_000_000, 1_500_000_000, 1_750_000_000]
    assert u["wall_s_per_cpu_s"].round(6).tolist() == [2.0, 2.0, 1.0, 1.0, 1.0, 1.0]
    assert u["alloc_mb_per_cpu_s"].round(6).tolist() == [100.0, 100.0, 300.0, 300.0, 300.0, 300.0]
    assert u["runqueue_wait_s_per_cpu_s"].round(6).tolist() == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    assert u["minor_faults_per_cpu_s"].round(6).tolist() == [1000.0] * 6
    assert u["stage"].tolist() == [0, 1, 2, 2, 3, 3]
    assert unit_of.tolist() == [0, 2, 5, -1]              # the other thread's snapshot is in no unit
    assert u["snapshots"].tolist() == [1, 0, 1, 0, 0, 1]


def test_instruction_units_carry_the_seeds_cpi_and_mpki():
    # one thread read every 10 ms: 1e9 instructions/s at CPI 1 and 5 misses per
    # 1000 instructions for 0.2 s, then 0.5e9/s at CPI 2 and 1 miss per 1000
    t = np.arange(0, 650_000_001, 10_000_000, dtype=np.int64)
    ins = np.where(t < 2e8, t * 1.0, 2e8 + (t - 2e8) * 0.5)
    cyc = np.where(ins < 2e8, ins, 2e8 + 2 * (ins - 2e8))
    miss = np.where(ins < 2e8, ins * 0.005, 1e6 + (ins - 2e8) * 0.001)
    series = pd.DataFrame({"time_ns": t, "java_tid": 3, "instructions": ins.astype(np.int64),
                           "cycles": cyc.astype(np.int64), "cache_misses": miss.astype(np.int64)})
    tasks = pd.DataFrame({"time_ns": [0], "event": "start", "java_tid": 3, "stage": [4]})
    samples = pd.DataFrame({"time_ns": [50_000_000, 300_000_000], "java_tid": 3, "stack": 0})
    u, unit_of = units.form_units(series, samples, tasks, "instructions", 100e6)
    assert len(u) == 4                                   # 425 M instructions in units of 100 M
    assert u["start_ns"].tolist() == [0, 100_000_000, 200_000_000, 400_000_000]
    assert u["end_ns"].iloc[-1] == 600_000_000
    assert u["cpi"].round(6).tolist() == [1.0, 1.0, 2.0, 2.0]
    assert u["cache_mpki"].round(6).tolist() == [5.0, 5.0, 1.0, 1.0]
    assert list(u.columns[-2:]) == ["cpi", "cache_mpki"] and "alloc_mb_per_cpu_s" not in u
    assert unit_of.tolist() == [0, 2] and u["stage"].tolist() == [4] * 4


def test_perf_reads_are_matched_to_java_threads_by_os_tid():
    counters = pd.DataFrame({"time_ns": [0, 1, 0], "java_tid": [7, 7, 9], "os_tid": [70, 70, 90]})
    reads = pd.DataFrame({"time_ns": [5, 6, 5], "os_tid": [70, 70, 55], "instructions": [1, 2, 3]})
    s = units.perf_series(reads, counters)
    assert s[["os_tid", "java_tid", "instructions"]].values.tolist() == [[70, 7, 1], [70, 7, 2]]


def test_kernel_and_jvm_cpu_times_agree_over_their_common_span():
    counters = pd.DataFrame({"time_ns": [0, 100, 200], "java_tid": 1, "cpu_ns": [0, 100, 200]})
    # the sampler opened the thread's counter at t = 50 (it counts from 0 there) and ran at half speed
    reads = pd.DataFrame({"time_ns": [50, 150, 250], "java_tid": 1, "task_clock_ns": [0, 50, 100]})
    assert profile.cpu_agreement(reads, counters) == pytest.approx(0.5)
    assert profile.cpu_agreement(reads.iloc[:0], counters) is None


def test_steal_time_raises_the_ratio_but_not_a_threads_share():
    """The task clock counts a virtual machine's steal time, the JVM's
    thread clock does not: with 20% more on every thread the ratio is 1.2
    and each thread's share the same; threads matched the wrong way round
    keep the ratio and move the shares."""
    counters = pd.DataFrame({"time_ns": [0, 100, 0, 100], "java_tid": [1, 1, 2, 2], "cpu_ns": [0, 300, 0, 100]})
    reads = pd.DataFrame({"time_ns": [0, 100, 0, 100], "java_tid": [1, 1, 2, 2], "task_clock_ns": [0, 360, 0, 120]})
    t = profile.thread_cpu(reads, counters)
    assert profile.cpu_agreement(reads, counters) == pytest.approx(1.2)
    assert t["kernel_s"].tolist() == pytest.approx([360e-9, 120e-9]) and t["jvm_s"].tolist() == pytest.approx([3e-7, 1e-7])
    assert (t["kernel_s"] / t["kernel_s"].sum() - t["jvm_s"] / t["jvm_s"].sum()).abs().max() == pytest.approx(0)
    swapped = profile.thread_cpu(reads.assign(java_tid=[2, 2, 1, 1]), counters)
    assert (swapped["kernel_s"] / swapped["kernel_s"].sum()
            - swapped["jvm_s"] / swapped["jvm_s"].sum()).abs().max() == pytest.approx(0.5)


def test_counter_mode_follows_the_pmu_and_names_what_it_lacks(monkeypatch):
    mode = units.counter_mode()
    assert mode["counter_mode"] in units.COUNTER_MODES and isinstance(mode["pmu"], bool) and mode["why"]
    assert not any("cpi" in m.lower() for m in units.MEASURES["cpu-time"])
    monkeypatch.setattr(units, "probe_pmu", lambda: (True, "answered"))
    assert units.counter_mode("auto")["counter_mode"] == "instructions"
    assert units.counter_mode("cpu-time") == {"counter_mode": "cpu-time", "pmu": True,
                                              "why": "answered; cpu-time mode as configured"}
    monkeypatch.setattr(units, "probe_pmu", lambda: (False, "perf_event_open(instructions) failed: ENOENT"))
    assert units.counter_mode("auto")["counter_mode"] == "cpu-time"
    with pytest.raises(ValueError, match=r"needs a PMU .* \(perf_event_open\(instructions\) failed: ENOENT\)"):
        units.counter_mode("instructions")
    assert units.measure_of("instructions", "auto") == "cpi"
    assert units.measure_of("cpu-time", "auto") == "alloc_mb_per_cpu_s"
    with pytest.raises(ValueError, match="'cache_mpki' is not one of the cpu-time mode's"):
        units.measure_of("cpu-time", "cache_mpki")


# --- a real job ----------------------------------------------------------------

@pytest.fixture(scope="module")
def wordcount(tmp_path_factory):
    # 4 M words: JFR samples an executor thread only while it runs Java code, and the job's own
    # methods (the tokenising lambda) are a few per cent of those samples; with 0.4 M words a
    # run now and then had none of them (3 in 68 samples on average), with 4 M about 14 are expected
    d = tmp_path_factory.mktemp("spark")
    text = d / "text.txt"
    inputs.zipf_text(text, 4_000_000, 5000, 1.1, 12, seed=1)
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
        for col in ("cpu_ns", "allocated_bytes"):
            v = c[col].to_numpy()
            # -1: unreadable at that tick (a thread that has just ended reads so)
            assert (np.diff(v[v >= 0]) >= 0).all() and (v >= 0).mean() > 0.9
        # each snapshot is stamped at its CPU-time read, so no interval holds more CPU than elapsed
        # time; stamped at the event's commit, after the other reads, intervals on a loaded 2-core
        # host showed up to 3.6-6.8 ms more CPU than elapsed time (4 runs each, under 2 busy loops)
        ok = c[c["cpu_ns"] >= 0]
        assert (np.diff(ok["cpu_ns"].to_numpy()) <= np.diff(ok["time_ns"].to_numpy()) + 1_000_000).all()
    assert run["stacks_truncated"] < 0.05                          # depth 256
    # each frame says how the JVM ran it; a short job both interprets and runs compiled code
    types = t["stacks"]["frame_type"]
    assert set(types) <= {"", "Interpreted", "JIT compiled", "Inlined"}
    assert {"Interpreted", "JIT compiled"} <= set(types) and (types != "").mean() > 0.9


def test_perf_sampler_beside_the_job_counts_the_executor_threads(wordcount):
    from pipeline_lib.simprof.profile import thread_cpu
    _, run, t = wordcount
    p = t["perf"]
    # every thread the sampler counted is an executor thread the JVM reported; one that started and
    # ended between two polls (a busy host) is missed, and its share of the CPU time is reported
    jvm_threads = t["counters"].drop_duplicates("java_tid").set_index("java_tid")["os_tid"]
    assert run["perf_threads"] == p["java_tid"].nunique() >= 2
    assert set(p["java_tid"]) <= set(jvm_threads.index)
    assert set(p["os_tid"]) == set(jvm_threads[list(set(p["java_tid"]))])
    missed = run["perf_missed_cpu_share"]
    assert 0 <= missed < 0.05 and (missed == 0 or run["perf_threads"] < len(jvm_threads))
    for _, g in p.groupby("java_tid"):
        assert g["time_ns"].is_monotonic_increasing and g["task_clock_ns"].is_monotonic_increasing
    # the kernel's CPU time of each thread agrees with the JVM's, so the os-tid match is right: each
    # thread's share of the executor CPU is the same by both clocks (their totals differ by a virtual
    # machine's steal time, which the task clock counts and the JVM's thread clock leaves out)
    assert run["perf_cpu_ratio"] >= 0.9
    cpu = thread_cpu(p, t["counters"])
    assert len(cpu) == run["perf_threads"]
    assert (cpu["kernel_s"] / cpu["kernel_s"].sum() - cpu["jvm_s"] / cpu["jvm_s"].sum()).abs().max() < 0.05
    # the sampler costs little beside the job: under 10% of one core over the job's wall time
    assert 0 < run["perf_sampler_cpu_s"] < 0.1 * run["wall_s"]
    # the perf reads and the JFR events share a clock: the reads span the snapshots
    assert p["time_ns"].min() < t["samples"]["time_ns"].median() < p["time_ns"].max()


def test_units_of_a_real_job_carry_snapshots_and_form_phases(wordcount):
    _, _, t = wordcount
    u, unit_of = units.form_units(t["counters"], t["samples"], t["tasks"], "cpu-time", 50e6)
    assert len(u) >= 10 and (u["wall_s_per_cpu_s"] >= 0.99).all()
    assert u["snapshots"].sum() == (unit_of >= 0).sum() > 0
    X = phases.method_frequencies(t["samples"].assign(unit=unit_of), t["stacks"], len(u), len(t["methods"]))
    pf = phases.PhaseFormation(top_methods=50, seed=0).fit(X, u["alloc_mb_per_cpu_s"].to_numpy())
    assert 1 <= pf.k_ <= 20 and len(pf.labels_) == len(u)


def test_instruction_mode_stages_run_on_a_profile_with_hardware_counts(wordcount, tmp_path):
    # This host may have no PMU: the real profile's perf reads get constructed
    # hardware columns (2 instructions per ns of CPU, 3 cycles per ns plus
    # 50 k per context switch), so that the instructions-mode stages run on real
    # snapshots, threads and tasks with counts whose CPI is known.
    import json
    from pipeline_lib.simprof import run as stages
    _, _, t = wordcount
    t = dict(t)
    p = t["perf"].copy()
    p["instructions"] = 2 * p["task_clock_ns"]
    p["cycles"] = 3 * p["task_clock_ns"] + 50_000 * p["context_switches"]
    p["cache_misses"] = p["task_clock_ns"] // 1000
    t["perf"] = p
    prof = tmp_path / "profile"
    prof.mkdir()
    stages.write_profile(t, "wc", prof)
    (prof / "run.json").write_text(json.dumps({"counter_mode": "instructions"}))
    opts = {"counter_mode": "instructions", "unit_size": 100e6, "measure": "cpi", "top_methods": 50,
            "frame_types": False, "k_max": 10, "threshold": 0.9, "seed": 0, "points": 5}
    ph = stages.phases_stage("wc", prof, opts, tmp_path / "u.parquet", tmp_path / "ph.parquet", tmp_path / "m.json")
    u = pd.read_parquet(tmp_path / "u.parquet")
    cpu_s = (p.groupby("java_tid")["task_clock_ns"].max() - p.groupby("java_tid")["task_clock_ns"].min()) / 1e9
    assert len(u) == int((2 * cpu_s * 1e9 // 100e6).sum())             # 50 ms of CPU per unit
    assert (u["cpi"] >= 1.5 - 1e-9).all() and u["cpi"].max() > 1.5      # 1.5, more where the thread switched
    assert np.allclose(u["cache_mpki"], 0.5, rtol=1e-3)
    assert json.loads((tmp_path / "m.json").read_text())["counter_mode"] == "instructions"
    assert ph["points"].sum() == 5
    summary = stages.sensitivity_stage("self", "wc", tmp_path / "u.parquet", tmp_path / "ph.parquet",
                                       tmp_path / "m.json", {"wc-again": prof},
                                       {**opts, "tolerance": 0.1}, tmp_path / "s.parquet", tmp_path / "s.json")
    assert summary["sensitive_phases"] == 0                              # the same profile is its own reference
    with pytest.raises(ValueError, match="recorded in instructions counter mode, not cpu-time"):
        stages.phases_stage("wc", prof, {**opts, "counter_mode": "cpu-time", "unit_size": 50e6,
                                         "measure": "alloc_mb_per_cpu_s"},
                            tmp_path / "u2.parquet", tmp_path / "ph2.parquet", tmp_path / "m2.json")


def test_a_real_job_in_instructions_mode_where_a_pmu_answers(wordcount, tmp_path):
    pmu, why = units.probe_pmu()
    if not pmu:
        pytest.skip(f"this host has no PMU that counts instructions ({why}); the mode is checked above on "
                    "constructed counts")
    text, _, _ = wordcount
    jar = jvm.build_jar(tmp_path / "cache")
    run, t = profile.profile_job(jar, "wordcount", text, tmp_path / "w", partitions=4, arg="", cores=2,
                                 driver_memory="1g", counter_mode="instructions",
                                 profile={"stack_period_ms": 10, "stack_depth": 256, "counter_period_ms": 10},
                                 log=tmp_path / "log.txt", timeout_s=300)
    p = t["perf"]
    assert run["perf_threads"] == p["java_tid"].nunique() >= 2 and (p["instructions"] >= 0).all()
    u, _ = units.form_units(units.series_of(t, "instructions"), t["samples"], t["tasks"], "instructions", 10e6)
    assert len(u) >= 10 and u["cpi"].between(0.1, 20).all() and (u["cache_mpki"] >= 0).all()


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
