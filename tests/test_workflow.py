"""The Snakemake workflow: DAG wiring (built with Snakemake's API), config
validation at load, a tiny end-to-end run, and exact reruns."""
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]

TINY = {
    "results_dir": "results",
    "trace": {"chunk_records": 5000},
    "workloads": {
        "hist": {"benchmark": "histogram", "size": "small", "seed": 1, "params": {"bytes": 4096, "blocks": 2}},
        "red": {"benchmark": "reduction", "size": "small", "seed": 1, "params": {"elements": 4096, "blocks": 2}},
        "bfs-road": {"benchmark": "bfs", "size": "small", "seed": 2, "params": {"graph": "road", "rows": 8, "cols": 8}},
    },
    # validated on the configuration the rerun tests change, and on a variant of it
    "tbpoint": {"hardware": ["gpumech-baseline"], "random": {"draws": 5},
                "sensitivity": ["gpumech-baseline", "gpumech-baseline-sm2"],
                "markov": {"cases": [[0.05, 100, 4]], "samples": 500},
                "kernel_types": {"plot": ["red", "bfs-road"]}},
    "gpumech": {"sweeps": {"w": [16, 32]}, "stack_workloads": ["red"]},
    # a 2 x 2 x 2 scaling grid on the base the rerun tests leave alone: 3 kernel instances
    # (simulated in one batched job per workload)
    "sweeps": {"grid": {"base": "tbpoint-fermi", "vary": {"sm": [1, 2], "cc": [500, 1000], "mc": [1000, 2000]},
                        "batch": 8}},
    "scaling": {"sweep": "grid", "clusters": 2, "splits": 2, "cluster_counts": [1, 2], "histogram_k": [2],
                "predict": ["hist"]},
    # SimProf: a text job and cc on two graph topologies, small units to have enough of them
    "simprof": {
        "inputs": {"text": {"kind": "text", "words": 300000, "vocab": 5000, "exponent": 1.1, "words_per_line": 12,
                            "seed": 1},
                   "g-skew": {"kind": "graph", "scale": 11, "edge_factor": 4, "initiator": [[0.9, 0.5], [0.5, 0.1]],
                              "seed": 2},
                   "g-local": {"kind": "graph", "scale": 11, "edge_factor": 4, "initiator": [[0.9, 0.1], [0.1, 0.9]],
                               "seed": 2}},
        "runs": {"wordcount": {"job": "wordcount", "input": "text", "partitions": 4},
                 "cc-skew": {"job": "cc", "input": "g-skew", "partitions": 4},
                 "cc-local": {"job": "cc", "input": "g-local", "partitions": 4}},
        "sensitivity": {"cc": {"train": "cc-skew", "references": ["cc-local"]}},
        "overhead": {"runs": ["wordcount"], "repeats": 1},
        # cpu-time on every host, so that the measures below are the same with or without a PMU
        "counter_mode": "cpu-time", "unit_cpu_ms": 20, "draws": 20, "timeout_s": 600, "driver_memory": "1g"},
}
SP_RUNS = sorted(TINY["simprof"]["runs"])
GRID = [f"tbpoint-fermi-sm{s}-cc{c}-mc{m}" for s in (1, 2) for c in (500, 1000) for m in (1000, 2000)]
SCALING = {"scaling_profile", "scaling_prior", "scaling_counters", "scaling_dataset", "scaling_train", "scaling_validate", "scaling_summary",
           "scaling_predict"}
TBP_PER_WL = {"tbpoint_inter_launch", "tbpoint_regions", "tbpoint_sample", "tbpoint_baselines", "tbpoint_sample_seed"}
TBP_SUMMARIES = {"tbpoint_validate", "tbpoint_sensitivity", "tbpoint_kernel_types", "tbpoint_markov"}
GPUMECH = {"gpumech_analyse", "gpumech_sim_stalls", "gpumech_validate", "gpumech_sweep"}
SIMPROF = {"simprof_input", "simprof_jar", "simprof_profile", "simprof_phases", "simprof_sampling",
           "simprof_sensitivity", "simprof_overhead", "simprof_summary"}
SPARK_RULES = {"simprof_profile", "simprof_overhead"}    # a Spark job's threads are its executor's
ALL_RULES = {"trace", "simulate", "power", *TBP_PER_WL, *TBP_SUMMARIES, *GPUMECH, "sweep_table", "sweep_batch", *SCALING,
             *SIMPROF, "report_page", "all"}
TARGET_ONLY = {"export_traceg"}   # rules no other stage needs: built only when their output is asked for
VARIANT = "gpumech-baseline-sm2"
GTO = "gpumech-baseline-gto"     # GPUMech's validation simulates the other scheduler too
W16 = "gpumech-baseline-w16"     # and its sweep the other warp count


def _write(path, cfg):
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


@contextlib.contextmanager
def _workflow(workdir: Path, configfile: Path):
    """The workflow on ``configfile``, loaded through Snakemake's API."""
    from snakemake.api import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings, SnakemakeApi
    from snakemake.settings.enums import Quietness

    with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as sm:
        wf_api = sm.workflow(resource_settings=ResourceSettings(cores=1),
                             config_settings=ConfigSettings(configfiles=[configfile]),
                             snakefile=ROOT / "Snakefile", workdir=workdir)
        wf_api.dag(DAGSettings())
        yield wf_api._workflow


def _built(wf, forceall: bool = False):
    """``wf``'s job DAG (every job with ``forceall``)."""
    wf._prepare_dag(forceall=forceall, ignore_incomplete=True, lock_warn_only=True)
    wf._build_dag()
    return wf.dag


def build_dag(workdir: Path, configfile: Path, inputs: bool = False):
    """Jobs that would run, as {rule: [wildcards...]}, and every job's params,
    from Snakemake's API; with ``inputs`` also every job's named inputs."""
    with _workflow(workdir, configfile) as wf:
        _built(wf)
        jobs = {}
        for job in wf.dag.needrun_jobs():
            jobs.setdefault(job.rule.name, []).append(dict(job.wildcards))
        params, named = {}, {}
        for job in wf.dag.jobs:
            key = job.wildcards.get("wl") if job.rule.name == "trace" else (job.rule.name, job.wildcards.get("wl"),
                                                                            job.wildcards.get("hw"))
            params[key] = dict(job.params)
            named[key] = {k: job.input[k] for k in job.input.keys()}
        return (jobs, params, named) if inputs else (jobs, params)


def test_dag_has_one_trace_job_per_workload(tmp_path):
    cfg = _write(tmp_path / "c.yaml", TINY)
    jobs, params = build_dag(tmp_path, cfg)
    assert sorted(w["wl"] for w in jobs["trace"]) == sorted(TINY["workloads"])
    assert set(jobs) == ALL_RULES
    hws = ["gpumech-baseline", "tbpoint-fermi"]
    assert sorted((w["wl"], w["hw"]) for w in jobs["power"]) == \
        sorted((wl, hw) for wl in TINY["workloads"] for hw in hws)
    # the occupancy study's variant and GPUMech's other scheduler are simulated too (no power:
    # not in simulate.hardware); the scaling grid's 8 points by one batched job per workload
    assert sorted((w["wl"], w["hw"]) for w in jobs["simulate"]) == \
        sorted((wl, hw) for wl in TINY["workloads"] for hw in hws + [VARIANT, GTO, W16])
    assert sorted((w["sweep"], w["wl"], w["batch"]) for w in jobs["sweep_batch"]) == \
        sorted(("grid", wl, "0") for wl in TINY["workloads"])
    assert [pt["hw"]["name"] for pt in params[("sweep_batch", "hist", None)]["points"]] == GRID
    assert params[("simulate", "hist", GTO)]["hw"]["scheduler"] == "gto"
    # GPUMech predicts both schedulers: it does not receive the configured one
    gm = params[("gpumech_analyse", "hist", "gpumech-baseline")]["hw"]
    assert "scheduler" not in gm and "l1" in gm and "vf_table" not in gm
    # the sweep's w32 point is the base itself, not a second copy of it
    assert sorted((w["wl"], w["hw"]) for w in jobs["gpumech_analyse"]) == \
        sorted((wl, hw) for wl in TINY["workloads"] for hw in ("gpumech-baseline", W16))
    assert params[("simulate", "hist", VARIANT)]["hw"]["cores"] == 2
    assert params[("simulate", "hist", VARIANT)]["hw"]["name"] == VARIANT
    # the trace stage receives no hardware parameters
    for key, p in params.items():
        if isinstance(key, str):
            assert set(p) == {"spec", "warp_trace", "lane_addresses", "instr_limit", "chunk_records", "code_version",
                              "workload_code", "keyed"}
            assert "hardware" not in str(p) and "l1" not in str(p)
    # each simulation rule gets only the hardware fields it reads
    sim = params[("simulate", "hist", "gpumech-baseline")]["hw"]
    assert "dram" in sim and "l1" in sim and "vf_table" not in sim and "source" not in sim
    pw = params[("power", "hist", "gpumech-baseline")]["hw"]
    assert set(pw) == {"core_clock_mhz", "vf_table"}
    # TBPoint: launch clustering sees no hardware, epochs only the occupancy fields
    assert "hw" not in params[("tbpoint_inter_launch", "hist", None)]
    assert set(params[("tbpoint_regions", "hist", "gpumech-baseline")]["hw"]) == {"cores", "warp_size", "sm_limits"}
    assert sorted(w["wl"] for w in jobs["tbpoint_inter_launch"]) == sorted(TINY["workloads"])
    assert sorted((w["wl"], w["hw"]) for w in jobs["tbpoint_baselines"]) == \
        sorted((wl, "gpumech-baseline") for wl in TINY["workloads"])
    for rule in ("tbpoint_regions", "tbpoint_sample"):
        assert sorted((w["wl"], w["hw"]) for w in jobs[rule]) == \
            sorted((wl, hw) for wl in TINY["workloads"] for hw in ("gpumech-baseline", VARIANT))
    assert jobs["tbpoint_validate"] == [{"hw": "gpumech-baseline"}]
    # the seed's TBPoint runs beside ours where the validation does, not in the occupancy study
    assert sorted((w["wl"], w["hw"]) for w in jobs["tbpoint_sample_seed"]) == \
        sorted((wl, "gpumech-baseline") for wl in TINY["workloads"])
    assert "dram" in params[("tbpoint_sample_seed", "hist", "gpumech-baseline")]["hw"]


def test_paper_config_declares_the_full_scaling_grid_as_batched_jobs(tmp_path):
    """config/paper.yaml's DAG (what `--cores 32` or SLURM would run): one
    batched job per workload and 8 grid points, 448 points in all, and the
    scaling model's stages over them."""
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    spec = paper["sweeps"][paper["scaling"]["sweep"]]
    points = int(np.prod([len(v) for v in spec["vary"].values()]))
    assert points == 448
    jobs, params = build_dag(tmp_path, ROOT / "config" / "paper.yaml")
    batches = jobs["sweep_batch"]
    assert len(batches) == len(spec["workloads"]) * points // spec["batch"] == 1904
    per_wl = points // spec["batch"]
    for wl in spec["workloads"]:
        ids = sorted(int(b["batch"]) for b in batches if b["wl"] == wl)
        assert ids == list(range(per_wl))
    last = params[("sweep_batch", spec["workloads"][-1], None)]["points"]   # one batch's points
    assert len(last) == spec["batch"] and all(pt["hw"]["name"].startswith(spec["base"] + "-sm") for pt in last)
    assert sorted(w["wl"] for w in jobs["scaling_counters"]) == sorted(spec["workloads"])
    assert {"scaling_dataset", "scaling_train", "scaling_validate", "scaling_summary"} <= set(jobs)


def test_invalid_config_names_field_and_file(tmp_path):
    bad = dict(TINY, workloads={"x": {"benchmark": "bfs", "size": "huge"}})
    cfg = _write(tmp_path / "bad.yaml", bad)
    res = subprocess.run(SNAKEMAKE + ["-n", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
                                      "--configfile", str(cfg)], capture_output=True, text=True)
    assert res.returncode != 0
    out = res.stdout + res.stderr
    assert "bad.yaml" in out and "workloads.x.size" in out


def _hw_dir(d: Path, name: str, mutate=None) -> str:
    """A copy of the shipped hardware files, optionally with one changed."""
    out = d / name
    out.mkdir(exist_ok=True)
    for f in (ROOT / "config" / "hardware").glob("*.yaml"):
        shutil.copy(f, out / f.name)
    if mutate:
        p = out / "gpumech-baseline.yaml"
        hw = yaml.safe_load(p.read_text())
        mutate(hw)
        p.write_text(yaml.safe_dump(hw, sort_keys=False))
    return str(out)


def _with_hw(d: Path, dirname: str, mutate=None) -> dict:
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["simulate"] = {"hardware_dir": _hw_dir(d, dirname, mutate)}
    return cfg


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    d = tmp_path_factory.mktemp("wf")
    cfg = _write(d / "c.yaml", _with_hw(d, "hw"))
    res = subprocess.run(SNAKEMAKE + ["--cores", "2", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(d),
                                      "--configfile", str(cfg)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    return d, cfg


def test_end_to_end_run_writes_all_tables(ran):
    d, _ = ran
    for wl in TINY["workloads"]:
        for t in ("launches", "blocks", "warps", "instructions", "warp_trace"):
            assert (d / "results" / "traces" / wl / f"{t}.parquet").stat().st_size > 0
        assert (d / "results" / "traces" / wl / "check.json").exists()


def test_nothing_reruns_when_nothing_changed(ran):
    d, cfg = ran
    jobs, _ = build_dag(d, cfg)
    assert jobs == {}


def test_shipped_results_with_their_metadata_rerun_exactly_what_is_stale(ran, tmp_path):
    """Results copied into another checkout with Snakemake's metadata, all
    older than the checkout: with the default profile's rerun triggers
    nothing reruns; a changed parameter reruns its jobs
    (docs/configuration.md, "Shipping results")."""
    d, cfg = ran
    clone = tmp_path / "clone"
    shutil.copytree(d / "results", clone / "results")
    shutil.copytree(d / ".snakemake" / "metadata", clone / ".snakemake" / "metadata")
    for f in (clone / "results").rglob("*"):          # a year older, order kept
        st = f.stat()
        os.utime(f, (st.st_atime - 3e7, st.st_mtime - 3e7))

    def dry_run(config):
        res = subprocess.run(SNAKEMAKE + ["-n", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(clone),
                                          "--configfile", str(config)], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr[-2000:]
        return res.stdout

    assert "Nothing to be done" in dry_run(cfg)
    changed = _with_hw(d, "hw")
    changed["workloads"]["red"]["seed"] = 5
    out = dry_run(_write(tmp_path / "c2.yaml", changed))
    traced = [re.search(r"wildcards: wl=(\S+)", block).group(1)
              for block in out.split("\n\n") if re.search(r"^\s*(local)?rule trace:", block, re.M)]
    assert traced == ["red"], out[:3000]


def test_changing_one_workload_reruns_only_its_trace(ran, tmp_path):
    d, _ = ran
    changed = _with_hw(d, "hw")
    changed["workloads"]["red"]["seed"] = 5
    cfg2 = _write(tmp_path / "c2.yaml", changed)
    jobs, _ = build_dag(d, cfg2)
    assert [w["wl"] for w in jobs["trace"]] == ["red"]
    # its trace and everything downstream of it; not the Markov study, nor SimProf (no GPU input)
    assert set(jobs) == ALL_RULES - {"tbpoint_markov"} - SIMPROF
    assert all(w["wl"] == "red" for r in ("simulate", "power", "scaling_counters", *TBP_PER_WL) for w in jobs[r])


def _checkout_with_results(ran, tmp_path) -> Path:
    """A copy of the tracked code with the end-to-end run's results and
    Snakemake metadata inside it, the results older than the code."""
    d, _ = ran
    code = tmp_path / "code"
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-co", "--exclude-standard"],
                           capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        if (ROOT / f).is_file():
            (code / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, code / f)
    shutil.copytree(d / "results", code / "results")
    shutil.copytree(d / ".snakemake" / "metadata", code / ".snakemake" / "metadata")
    for f in (code / "results").rglob("*"):
        st = f.stat()
        os.utime(f, (st.st_atime - 3e7, st.st_mtime - 3e7))
    return code


def _traced_in_dry_run(code: Path, cfg: Path) -> list[str]:
    """The workloads whose trace a dry run of the checkout ``code`` would
    run, with ``code``'s own library (not the installed one)."""
    # run from inside the copy, so that `python -m` imports the copy's pipeline_lib
    res = subprocess.run(SNAKEMAKE + ["-n", "--snakefile", str(code / "Snakefile"), "--directory", str(code),
                                      "--configfile", str(cfg)], capture_output=True, text=True, cwd=code)
    assert res.returncode == 0, res.stderr[-2000:]
    return sorted(re.search(r"wildcards: wl=(\S+)", block).group(1)
                  for block in res.stdout.split("\n\n") if re.search(r"^\s*(local)?rule trace:", block, re.M))


def test_editing_a_workloads_ptx_or_driver_reruns_exactly_its_chain(ran, tmp_path):
    """The trace rule carries a digest of each workload's PTX, CUDA source,
    ptxas report and driver: an edit reruns that workload's trace (and, by
    its newer tables, everything downstream), and nothing else."""
    _, cfg = ran
    code = _checkout_with_results(ran, tmp_path)
    assert _traced_in_dry_run(code, cfg) == []      # same content elsewhere: nothing to do
    ptx = code / "workloads" / "reduction.ptx"
    original = ptx.read_text()
    ptx.write_text(original.replace("add.s32", "add.u32", 1))
    assert _traced_in_dry_run(code, cfg) == ["red"]
    ptx.write_text(original)
    assert _traced_in_dry_run(code, cfg) == []
    driver = code / "pipeline_lib" / "workloads" / "histogram.py"
    driver.write_text(driver.read_text() + "\n# an edit\n")
    assert _traced_in_dry_run(code, cfg) == ["hist"]
    # shared driver code reaches every workload
    inputs = code / "pipeline_lib" / "workloads" / "inputs.py"
    inputs.write_text(inputs.read_text() + "\n# an edit\n")
    assert _traced_in_dry_run(code, cfg) == sorted(TINY["workloads"])


def test_a_failed_jobs_log_holds_its_traceback_and_a_damaged_table_is_named(ran, tmp_path):
    _, cfg = ran
    code = _checkout_with_results(ran, tmp_path)
    table = "results/traces/red/blocks.parquet"
    data = (code / table).read_bytes()
    (code / table).write_bytes(data[:len(data) // 2])
    target = "results/sim/red/gpumech-baseline/summary.json"
    res = subprocess.run(SNAKEMAKE + [target, "--cores", "1", "--snakefile", str(code / "Snakefile"),
                                      "--directory", str(code), "--forcerun", "simulate", "--configfile", str(cfg)],
                         capture_output=True, text=True, cwd=code)
    assert res.returncode != 0
    log = (code / "results" / "logs" / "simulate" / "red" / "gpumech-baseline.log").read_text()
    assert "Traceback (most recent call last)" in log
    assert (f"CorruptTableError: {table}: not a readable Parquet table" in log
            and "written by rule trace" in log and f"snakemake --forcerun {table}" in log), log[-3000:]
    # a successful job's log holds its progress lines
    trace_log = (code / "results" / "logs" / "trace" / "red.log").read_text()
    assert "reference check passed" in trace_log


def test_an_unknown_workload_target_lists_the_configured_ones(ran):
    d, cfg = ran
    res = subprocess.run(SNAKEMAKE + ["results/sim/nosuch/gpumech-baseline/summary.json", "-n", "--snakefile",
                                      str(ROOT / "Snakefile"), "--directory", str(d), "--configfile", str(cfg)],
                         capture_output=True, text=True)
    assert res.returncode != 0
    out = res.stdout + res.stderr
    assert "unknown workload 'nosuch'" in out and ", ".join(sorted(TINY["workloads"])) in out, out[-2000:]


def test_changing_a_timing_field_reruns_only_that_hardwares_simulations(ran, tmp_path):
    d, _ = ran
    cfg2 = _write(tmp_path / "c2.yaml", _with_hw(d, "hw-mshr", lambda hw: hw["l1"].update(mshrs=16)))
    jobs, _ = build_dag(d, cfg2)
    # no trace, no launch clustering, and (occupancy unchanged) no epoch clustering
    assert set(jobs) == {"simulate", "power", "tbpoint_sample", "tbpoint_sample_seed", "tbpoint_baselines",
                         "tbpoint_validate", "tbpoint_sensitivity", *GPUMECH, "report_page", "all"}
    expected = sorted((wl, "gpumech-baseline") for wl in TINY["workloads"])
    for rule in ("power", "tbpoint_baselines", "tbpoint_sample_seed"):
        assert sorted((w["wl"], w["hw"]) for w in jobs[rule]) == expected
    # the variants inherit the change; tbpoint-fermi does not rerun
    assert sorted((w["wl"], w["hw"]) for w in jobs["tbpoint_sample"]) == \
        sorted((wl, hw) for wl in TINY["workloads"] for hw in ("gpumech-baseline", VARIANT))
    assert sorted((w["wl"], w["hw"]) for w in jobs["simulate"]) == \
        sorted((wl, hw) for wl in TINY["workloads"] for hw in ("gpumech-baseline", VARIANT, GTO, W16))


def test_changing_occupancy_reruns_epoch_clustering_but_not_launch_clustering(ran, tmp_path):
    d, _ = ran
    cfg2 = _write(tmp_path / "c2.yaml", _with_hw(d, "hw-warps", lambda hw: hw["sm_limits"].update(blocks=2)))
    jobs, _ = build_dag(d, cfg2)
    assert "tbpoint_regions" in jobs and "trace" not in jobs and "tbpoint_inter_launch" not in jobs
    assert sorted((w["wl"], w["hw"]) for w in jobs["tbpoint_regions"]) == \
        sorted((wl, hw) for wl in TINY["workloads"] for hw in ("gpumech-baseline", VARIANT))
    assert "tbpoint_kernel_types" not in jobs and "tbpoint_markov" not in jobs


def test_changing_the_voltage_table_reruns_only_power(ran, tmp_path):
    d, _ = ran
    cfg2 = _write(tmp_path / "c2.yaml", _with_hw(d, "hw-vf", lambda hw: hw["vf_table"][-1].update(voltage=1.2)))
    jobs, _ = build_dag(d, cfg2)
    assert set(jobs) == {"power", "all"}
    assert sorted(w["wl"] for w in jobs["power"]) == sorted(TINY["workloads"])


def test_tbpoint_outputs_of_end_to_end_run(ran):
    d, _ = ran
    import pandas as pd
    out = d / "results" / "tbpoint"
    v = pd.read_parquet(out / "gpumech-baseline" / "validation.parquet")
    assert sorted(v["workload"]) == sorted(TINY["workloads"])
    assert (v["full_ipc"] > 0).all() and (v["tbpoint_ipc"] > 0).all()
    for f in ("fig11_ipc", "fig12_sample_size", "fig13_skipped_split", "fig14_miss_rate_error"):
        assert (out / "gpumech-baseline" / f"{f}.png").stat().st_size > 0
    summary = (out / "gpumech-baseline" / "summary.md").read_text()
    assert "Geometric means" in summary and "TBPoint with the seed's rules" in summary
    # the rules the sampled runs recorded, the defaults here
    assert ("TBPoint's rules in this run: inter-launch clusters, homogeneous regions, warming rule phases (3% "
            "intervals), launch rule confidence, turnover units, small launches model, functional warming") in summary
    assert (v["seed_rules_sample_size"] > 0).all() and v["seed_rules_error"].notna().all()
    h = pd.read_parquet(out / "gpumech-baseline" / "host_time.parquet")
    assert sorted(h["workload"]) == sorted(TINY["workloads"]) and (h["full_s"] > 0).all()
    s = pd.read_parquet(out / "sensitivity" / "sensitivity.parquet")
    assert sorted(set(zip(s["hardware"], s["label"], s["sms"]))) == \
        [("gpumech-baseline", "W32 S16", 16), (VARIANT, "W32 S2", 2)]
    assert len(s) == 2 * len(TINY["workloads"]) and (s["tbpoint_ipc"] > 0).all()
    for f in ("fig15_error_by_config", "fig16_sample_size_by_config"):
        assert (out / "sensitivity" / f"{f}.png").stat().st_size > 0
    k = pd.read_parquet(out / "kernel_types" / "kernel_types.parquet").set_index("workload")
    assert k.loc["red", "declared"] == "regular" and k.loc["bfs-road", "declared"] == "irregular"
    assert (out / "kernel_types" / "fig10_kernel_types.png").stat().st_size > 0
    m = pd.read_parquet(out / "markov" / "fig7.parquet")
    assert m["case"].tolist() == ["p0.05M100N4"] and m["samples"].tolist() == [500]


def test_simulation_outputs_of_end_to_end_run(ran):
    d, _ = ran
    import pandas as pd
    for wl in TINY["workloads"]:
        for hw in ("gpumech-baseline", "tbpoint-fermi"):
            out = d / "results" / "sim" / wl / hw
            L = pd.read_parquet(out / "launches.parquet")
            trace = pd.read_parquet(d / "results" / "traces" / wl / "launches.parquet")
            assert L["warp_instrs"].tolist() == trace["warp_instrs"].tolist()
            assert (L["cycles"] > 0).all()
            assert pd.read_parquet(out / "power.parquet")["dynamic_power_w"].gt(0).all()


def test_gpumech_outputs_of_end_to_end_run(ran):
    d, _ = ran
    import pandas as pd
    out = d / "results" / "gpumech"
    for wl in TINY["workloads"]:
        p = pd.read_parquet(out / wl / "gpumech-baseline" / "predictions.parquet")
        L = pd.read_parquet(out / wl / "gpumech-baseline" / "launches.parquet")
        from pipeline_lib.gpumech.contention import TERMS
        budget = {f"MT_CONTENTION-{t}" for t in TERMS}
        assert set(p["model"]) == {"Naive_Interval", "Markov_Chain", "MT", "MT_MSHR", "MT_MSHR_BAND",
                                   "MT_CONTENTION"} | budget
        assert set(p["policy"]) == {"rr", "gto"} and (p["cpi"] > 0).all()
        # launches x selections x policies x models, and the error budget's terms for the clustering warp
        assert len(p) == len(L) * 3 * 2 * 6 + len(L) * 2 * len(TERMS)
        assert set(L["workload_class"]) <= {"atomic", "memory-divergent", "regular"}
    assert (out / "gpumech-baseline" / "summary.md").read_text().startswith("# GPUMech validation")
    for f in ("fig27_errors_rr", "fig28_errors_gto", "fig32_miss_rate_error", "fig29_warps", "fig30_mshrs",
              "fig31_dram_clock", "fig33_cpi_stacks", "fig34_stacks_vs_simulation"):
        assert (out / "gpumech-baseline" / f"{f}.png").stat().st_size > 0
    # the simulated stall breakdown accounts for every SM-cycle, and the stack check sets it beside the model's
    for wl in TINY["workloads"]:
        st = pd.read_parquet(out / wl / GTO / "sim_stalls.parquet")
        cats = ["BASE", "DEP", "L1", "L2", "DRAM", "MSHR", "LSU", "SMEM", "IDLE"]
        assert (st[cats].sum(axis=1) == st["cycles"] * 16).all() and (st["BASE"] == st["warp_instrs"]).all()
    sc = pd.read_parquet(out / "gpumech-baseline" / "stack_check.parquet")
    assert set(sc["source"]) <= {"MT_CONTENTION", "simulation"}
    # the sweep point reuses the base's representative warps (4.6.5) and skips MAX/MIN
    for wl in TINY["workloads"]:
        base = pd.read_parquet(out / wl / "gpumech-baseline" / "launches.parquet")
        point = pd.read_parquet(out / wl / W16 / "launches.parquet")
        assert point["representative"].tolist() == base["representative"].tolist()
        assert (point["warp_max"] == -1).all()
        assert set(pd.read_parquet(out / wl / W16 / "predictions.parquet")["selection"]) == {"clustering"}
    sw = pd.read_parquet(out / "gpumech-baseline" / "sweeps.parquet")
    assert sorted(set(zip(sw["value"], sw["hardware"]))) == [(16, W16), (32, "gpumech-baseline")]


def test_scaling_outputs_of_end_to_end_run(ran):
    d, _ = ran
    import pandas as pd
    from pipeline_lib.scaling.counters import FEATURE_NAMES
    out = d / "results" / "scaling" / "grid"
    data = pd.read_parquet(out / "dataset.parquet")
    assert sorted(data["instance"].unique()) == ["bfs-road:bfs_expand", "hist:histogram256", "red:reduce_sum"]
    assert sorted(data["point"].unique()) == sorted(GRID) and len(data) == 3 * 8
    assert data[FEATURE_NAMES].notna().all().all() and (data["seconds"] > 0).all()
    # fewer SMs never run faster than more at the same clocks (times summed over a kernel's launches)
    t = data.set_index(["instance", "cc", "mc", "sm"])["seconds"].unstack("sm")
    assert (t[1] >= t[2]).all()
    for metric in ("time", "power"):
        heat = pd.read_parquet(out / metric / "heatmap.parquet")
        # every compared model variant at every base (the default, regression, among them)
        assert sorted(heat["method"].unique()) == ["clusters-hard", "clusters-soft", "regression"]
        assert len(heat) == 3 * 2 * 2 * 2 and heat["mean_error"].between(0, 10).all()
        assert (heat["predictions"] == 2 * 1 * 7).all()       # splits x held-out kernels x targets
        assert sorted(pd.read_parquet(out / metric / "clusters.parquet")["k"].unique()) == [1, 2]
        for f in ("heatmap_cc500", "heatmap_cc1000", "clusters", "histogram"):
            assert (out / metric / f"{f}.png").stat().st_size > 0
    assert "seed: 15%" in (out / "summary.md").read_text() and "model: regression" in (out / "summary.md").read_text()
    assert "per target configuration" in (out / "host_time.md").read_text()
    p = pd.read_parquet(out / "predict" / "hist.parquet")
    assert len(p) == 8 and sorted(p["point"]) == sorted(GRID)
    # the model's base (the middle of each axis) predicts its own measurement
    base = p.set_index("point").loc["tbpoint-fermi-sm2-cc1000-mc2000"]
    meas = data.set_index(["instance", "point"]).loc[("hist:histogram256", "tbpoint-fermi-sm2-cc1000-mc2000")]
    assert base["seconds"] == pytest.approx(meas["seconds"]) and base["dynamic_power_w"] == pytest.approx(
        meas["dynamic_power_w"])


def test_every_table_records_the_commit_and_config_digest(ran):
    import pyarrow.parquet as pq
    from pipeline_lib.provenance import git_commit
    d, _ = ran
    files = sorted((d / "results").rglob("*.parquet"))
    assert len(files) > 50
    stamps = set()
    for f in files:
        meta = pq.read_schema(f).metadata
        stamps.add((meta[b"git_commit"].decode(), meta[b"config_digest"].decode()))
    # one run: one commit (this checkout's) and one configuration
    assert len(stamps) == 1
    commit, digest = stamps.pop()
    assert commit == git_commit(ROOT) and len(digest) == 16


def test_predicting_a_new_kernel_needs_no_retraining_and_no_sweep(ran, tmp_path):
    d, _ = ran
    cfg = _with_hw(d, "hw")
    cfg["workloads"]["red2"] = {"benchmark": "reduction", "size": "small", "seed": 3, "suite": False,
                                "params": {"elements": 8192, "blocks": 4}}
    cfg["scaling"]["predict"] = ["hist", "red2"]
    jobs, _ = build_dag(d, _write(tmp_path / "c2.yaml", cfg))
    # its trace, one simulation at the model's base (not the sweep's batch), its profile, GPUMech's
    # SM-scaling prior from its trace and the prediction: nothing else
    assert set(jobs) == {"trace", "simulate", "power", "scaling_profile", "scaling_prior", "scaling_predict", "all"}
    assert jobs["simulate"] == [{"wl": "red2", "hw": "tbpoint-fermi-sm2-cc1000-mc2000"}]
    assert jobs["scaling_predict"] == jobs["scaling_prior"] == [{"wl": "red2"}]


@pytest.mark.parametrize("scaling, sweep, message", [
    ({"sweep": "nope"}, None, "scaling.sweep names 'nope'"),
    ({"sweep": "grid"}, {"sm": [1, 2], "cc": [500, 1000]}, "must vary exactly sm, cc and mc"),
    ({"sweep": "grid"}, {"sm": [1], "cc": [500, 1000], "mc": [1000, 2000]}, "two values or more"),
    ({"sweep": "grid", "base": {"sm": 3, "cc": 500, "mc": 1000}}, None, r"scaling.base.sm = 3 is not among"),
    ({"sweep": "grid", "heatmap_cc": [700]}, None, "scaling.heatmap_cc has 700"),
    ({"sweep": "grid", "histogram_k": [5]}, None, "histogram_k has 5"),
    ({"sweep": "grid", "predict": ["zzz"]}, None, "scaling.predict names zzz"),
])
def test_bad_scaling_configs_are_named(tmp_path, scaling, sweep, message):
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["scaling"] = scaling
    if sweep:
        cfg["sweeps"]["grid"]["vary"] = sweep
    res = subprocess.run(SNAKEMAKE + ["-n", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
                                      "--configfile", str(_write(tmp_path / "c.yaml", cfg))],
                         capture_output=True, text=True)
    assert res.returncode != 0
    assert re.search(message, res.stdout + res.stderr), (res.stdout + res.stderr)[-2000:]


def _rules(tmp_path) -> dict:
    """The workflow's rules on the tiny config, by name, from Snakemake's API."""
    with _workflow(tmp_path, _write(tmp_path / "c.yaml", TINY)) as wf:
        return {r.name: r for r in wf.rules}


def test_every_rule_declares_its_resources(tmp_path):
    """Schedulers pack jobs by threads, memory and run time: every rule but
    ``all`` states them."""
    rules = _rules(tmp_path)
    assert set(rules) == ALL_RULES | TARGET_ONLY
    for name, rule in rules.items():
        if name == "all":
            continue
        res = {k: rule.resources[k].value for k in ("mem_mb", "runtime", "_cores") if k in rule.resources.keys()}
        assert res.get("mem_mb", 0) >= 1000, name
        assert res.get("runtime", 0) >= 10, name
        assert res.get("_cores") == (TINY["simprof"].get("cores", 2) if name in SPARK_RULES else 1), name


def test_every_rule_passes_its_params_by_name(tmp_path):
    """Snakemake compares a job's parameters as a set of values, so every
    rule adds the keyed digest of all its named parameters
    (pipeline_lib.rule_params)."""
    from pipeline_lib.rule_params import KEYED

    for name, rule in _rules(tmp_path).items():
        names = set(rule.params.keys())
        if name == "all":
            assert not names
            continue
        assert KEYED in names, f"rule {name}: params without **keyed(...)"
        digest = getattr(rule.params, KEYED)
        assert set(digest.names) == names - {KEYED}, name
        assert len(rule.params) == len(names), f"rule {name}: a positional parameter escapes the digest"


def test_swapping_two_parameter_values_reruns_their_rule(ran, tmp_path):
    """A swap leaves the set of values Snakemake compares unchanged; the
    keyed digest still reruns the epoch clustering, and only it and what
    reads its regions."""
    d, _ = ran
    from pipeline_lib.config import validate

    tbp = validate(_with_hw(d, "hw"), source="test")["tbpoint"]
    assert tbp["intra_sigma"] != tbp["max_variation"]
    changed = _with_hw(d, "hw")
    changed["tbpoint"] = {**changed["tbpoint"], "intra_sigma": tbp["max_variation"],
                          "max_variation": tbp["intra_sigma"]}
    jobs, _ = build_dag(d, _write(tmp_path / "c2.yaml", changed))
    assert sorted((w["wl"], w["hw"]) for w in jobs["tbpoint_regions"]) == \
        sorted((wl, hw) for wl in TINY["workloads"] for hw in ("gpumech-baseline", VARIANT))
    assert "trace" not in jobs and "simulate" not in jobs and "tbpoint_inter_launch" not in jobs


def test_a_declared_sweep_expands_to_named_points(tmp_path):
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["sweeps"] = {"grid": {"base": "gpumech-baseline", "vary": {"sm": [2, 4], "mc": [1000, 2000, 3000]},
                              "workloads": ["hist"]}}
    cfg["scaling"] = {}
    jobs, params = build_dag(tmp_path, _write(tmp_path / "c.yaml", cfg))
    names = sorted(f"gpumech-baseline-sm{s}-mc{m}" for s in (2, 4) for m in (1000, 2000, 3000))
    for rule in ("simulate", "power"):
        assert sorted(w["hw"] for w in jobs[rule] if w["hw"].startswith("gpumech-baseline-sm") and "mc" in w["hw"]) \
            == names
    assert jobs["sweep_table"] == [{"sweep": "grid"}]
    sim = params[("simulate", "hist", "gpumech-baseline-sm4-mc3000")]["hw"]
    assert sim["cores"] == 4 and sim["dram"]["clock_mhz"] == 3000
    p = params[("sweep_table", None, None)]
    assert [x["name"] for x in p["points"]] == [f"gpumech-baseline-sm{s}-mc{m}" for s in (2, 4)
                                                 for m in (1000, 2000, 3000)]


def test_a_sampled_sweep_reads_tbpoints_validation_of_suite_workloads_only(tmp_path):
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["workloads"]["hist-x"] = {**cfg["workloads"]["hist"], "seed": 2, "suite": False}
    cfg["sweeps"]["grid"]["workloads"] = ["hist", "hist-x"]
    cfg["sweeps"]["grid"]["sampled"] = True
    jobs, params, named = build_dag(tmp_path, _write(tmp_path / "c.yaml", cfg), inputs=True)
    tbp_hw = TINY["tbpoint"]["hardware"][0]
    got = named[("sweep_batch", "hist", None)]
    assert got["validation_full"] == f"results/sim/hist/{tbp_hw}/summary.json"
    assert got["validation_sampled"] == f"results/tbpoint/hist/{tbp_hw}/sampled.json"
    assert got["inter"] == "results/tbpoint/hist/inter_launch.parquet"
    assert "inter" not in named[("sweep_batch", "hist-x", None)]          # not validated: simulated in full
    pts = params[("sweep_batch", "hist", None)]["points"]
    assert len(pts) == 8 and all(p["tbpoint"]["max_error"] == 0.03 for p in pts)
    assert all("tbpoint" not in p for p in params[("sweep_batch", "hist-x", None)]["points"])
    # an unsampled sweep's parameters are as they were, so turning sampling on elsewhere reruns nothing of it
    _, plain = build_dag(tmp_path / "plain", _write(tmp_path / "p.yaml", TINY))
    assert all("tbpoint" not in p for p in plain[("sweep_batch", "hist", None)]["points"])


def test_a_sampled_sweep_runs_end_to_end_on_the_validated_workloads(ran, tmp_path):
    """A sampled copy of the grid: each suite workload's batch reads TBPoint's
    validation, states its decision, and a sampled one writes the estimated
    tables (every launch, predicted cycles) that power and the table read."""
    import pandas as pd
    d, cfg = ran
    shutil.copytree(d / "results", tmp_path / "results")
    shutil.copytree(d / ".snakemake" / "metadata", tmp_path / ".snakemake" / "metadata")
    c = yaml.safe_load(Path(cfg).read_text())
    c["sweeps"]["grid-s"] = {**c["sweeps"]["grid"], "sampled": True, "sampled_max_error": 1.0}
    # the tiny bfs-road's one-block launches are a single group of the small-launch model, too few
    # for it to skip any; with the seed's clusters some are skipped, which this test needs
    c["tbpoint"]["small_launches"] = "cluster"
    res = subprocess.run(SNAKEMAKE + ["results/sweeps/grid-s/points.parquet", "--cores", "2", "--snakefile",
                                      str(ROOT / "Snakefile"), "--directory", str(tmp_path),
                                      "--configfile", str(_write(tmp_path / "c.yaml", c))],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    r = tmp_path / "results"
    t = pd.read_parquet(r / "sweeps" / "grid-s" / "points.parquet")
    hw = TINY["tbpoint"]["hardware"][0]
    sampled = set()
    for wl in TINY["workloads"]:
        tb = json.loads((r / "tbpoint" / wl / hw / "sampled.json").read_text())
        log = (r / "logs" / "sweep_batch" / "grid-s" / wl / "0.log").read_text()
        expect = tb["sample_size"] < 1.0        # error within the 100% allowed here
        assert ("sampled simulation" if expect else "full simulation") in log
        assert t.loc[t["workload"] == wl, "sampled"].tolist() == [expect] * len(GRID)
        if expect:
            sampled.add(wl)
            p = r / "sweeps" / "grid-s" / "batches" / wl / "0" / GRID[0]
            L = pd.read_parquet(p / "launches.parquet")
            rows = pd.read_parquet(p / "sampled.parquet")
            assert L["launch"].tolist() == rows["launch"].tolist()
            assert L["cycles"].tolist() == rows["predicted_cycles"].round().astype(int).tolist()
            assert len(pd.read_parquet(p / "power.parquet")) == len(L)
    assert sampled, "no workload of the tiny suite skipped anything: the sampled path did not run"


def test_bad_sweeps_are_named(tmp_path):
    from pipeline_lib.sweeps import sweep_points
    with pytest.raises(ValueError, match="unknown key 'l2'"):
        sweep_points("b", {"l2": [1]})
    with pytest.raises(ValueError, match="repeats a value"):
        sweep_points("b", {"sm": [2, 2]})
    assert [p["name"] for p in sweep_points("b", {"mshr": [8], "sched": ["rr", "gto"]})] == ["b-rr-mshr8", "b-gto-mshr8"]
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["sweeps"] = {"grid": {"base": "gpumech-baseline", "vary": {"sm": [0]}}}
    res = subprocess.run(SNAKEMAKE + ["-n", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
                                      "--configfile", str(_write(tmp_path / "c.yaml", cfg))],
                         capture_output=True, text=True)
    assert res.returncode != 0 and "sweeps.grid.vary.sm.0" in res.stdout + res.stderr


# --- SimProf -------------------------------------------------------------------------

def test_simprof_outputs_of_end_to_end_run(ran):
    import pandas as pd

    from pipeline_lib.simprof.profile import thread_cpu
    from pipeline_lib.simprof.run import populations
    d, _ = ran
    sp = d / "results" / "simprof"
    measure = "alloc_mb_per_cpu_s"
    for r in SP_RUNS:
        info = json.loads((sp / "profiles" / r / "run.json").read_text())
        assert info["counter_mode"] == "cpu-time" and isinstance(info["pmu"], bool) and info["snapshots"] > 0
        # the perf_event sampler beside the job counted the same threads the JVM reports
        assert 2 <= info["perf_threads"] <= info["executor_threads"] and info["perf_missed_cpu_share"] < 0.05
        assert info["perf_missed_cpu_share"] == 0 or info["perf_threads"] < info["executor_threads"]
        # (the task clock also counts a virtual machine's steal time, which the JVM's clock leaves out:
        # the ratio can exceed 1 on a busy host, each thread's share of the CPU cannot differ)
        assert info["perf_cpu_ratio"] >= 0.9
        t = thread_cpu(pd.read_parquet(sp / "profiles" / r / "perf.parquet"),
                       pd.read_parquet(sp / "profiles" / r / "counters.parquet"))
        assert len(t) == info["perf_threads"]
        assert (t["kernel_s"] / t["kernel_s"].sum() - t["jvm_s"] / t["jvm_s"].sum()).abs().max() < 0.05
        p = pd.read_parquet(sp / "profiles" / r / "perf.parquet")
        assert (p["instructions"] == -1).all() and (p.groupby("java_tid")["task_clock_ns"].max() > 0).all()
        u = pd.read_parquet(sp / "phases" / r / "units.parquet")
        ph = pd.read_parquet(sp / "phases" / r / "phases.parquet")
        assert ph["units"].sum() == len(u) >= 20 and ph["points"].sum() == 20 and (ph["points"] >= 1).all()
        # CODE (the seed's baseline), per executor thread: up to 20 call-stack phases, one unit each
        assert (u.groupby(["thread", "code_phase"])["code_representative"].sum() == 1).all()
        e = pd.read_parquet(sp / "sampling" / r / "errors.parquet")
        sizes = pd.read_parquet(sp / "sampling" / r / "sizes.parquet")
        pops = populations(u, 20)
        assert sorted(e["thread"].unique()) == sorted(sizes["thread"].unique()) == [t for t, _ in pops]
        for t, rows in pops:        # each thread with more than 20 units its own population, else all pooled
            pu, pe = u.iloc[rows], e[e["thread"] == t]
            assert t == -1 or (len(pu) > 20 and (pu["thread"] == t).all())
            assert pe.groupby("method").size().to_dict() == {"CODE": 1, "SECOND": 20, "SRS": 20, "SimProf": 20}
            assert np.allclose(pe["oracle"], pu[measure].mean())
            assert (pe.loc[pe["method"] == "SimProf", "units"] == 20).all()
            assert pe.loc[pe["method"] == "CODE", "units"].item() == pu.groupby("thread")["code_phase"].nunique().sum()
            ps = sizes[sizes["thread"] == t]
            assert ps["target_error"].tolist() == [0.05, 0.02] and (ps["population"] == len(pu)).all()
            assert ps["units"].iloc[0] <= ps["units"].iloc[1] <= len(pu)
    hom = pd.read_parquet(sp / "homogeneity.parquet")
    assert hom["run"].tolist() == SP_RUNS and (hom["weighted_cov"] <= hom["max_cov"] + 1e-12).all()
    sens = pd.read_parquet(sp / "sensitivity.parquet")
    assert sens[["set", "train", "references", "control"]].values.tolist() == [["cc", "cc-skew", "cc-local", False]]
    per_phase = pd.read_parquet(sp / "sensitivity" / "cc.parquet")
    skip = per_phase.loc[~per_phase["sensitive"], "points"].sum()
    assert sens["reduction"].iloc[0] == pytest.approx(skip / sens["points"].iloc[0])
    assert sens["sensitive_phases"].iloc[0] == per_phase["sensitive"].sum()
    text = (sp / "summary.md").read_text()
    assert "Counter mode: **cpu-time**" in text and "the seed reports 1.6%" in text and "33.7%" in text
    assert "Phase vectors: call-stack frequencies of methods (the seed's)." in text
    assert "## Profiling overhead" in text
    # every phase of every run is described, by method names of its own profile
    described = text.split("## What each phase runs (5.4.5)")[1].split("##")[0]
    n_phases = sum(len(pd.read_parquet(sp / "phases" / r / "phases.parquet")) for r in SP_RUNS)
    assert len([ln for ln in described.splitlines() if ln.startswith("| cc-") or ln.startswith("| wordcount")]) \
        == n_phases
    assert "+0x" not in described and "`" in described
    for f in ("fig40_cov", "fig41_errors", "fig42_sizes", "fig46_sensitive_points", "fig47_phases"):
        assert (sp / f"{f}.png").read_bytes()[:4] == b"\x89PNG"


def test_a_reference_graphs_seed_reruns_only_its_simprof_chain(ran, tmp_path):
    d, _ = ran
    cfg = _with_hw(d, "hw")
    cfg["simprof"]["inputs"]["g-local"]["seed"] = 9
    jobs, _ = build_dag(d, _write(tmp_path / "c.yaml", cfg))
    assert set(jobs) == {"simprof_input", "simprof_profile", "simprof_phases", "simprof_sampling",
                         "simprof_sensitivity", "simprof_summary", "report_page", "all"}
    assert jobs["simprof_input"] == [{"sp_input": "g-local"}]
    assert jobs["simprof_profile"] == [{"run": "cc-local"}]


def test_a_new_measure_reforms_phases_without_profiling_again(ran, tmp_path):
    d, _ = ran
    cfg = _with_hw(d, "hw")
    cfg["simprof"]["measure"] = "wall_s_per_cpu_s"
    jobs, _ = build_dag(d, _write(tmp_path / "c.yaml", cfg))
    assert set(jobs) == {"simprof_phases", "simprof_sampling", "simprof_sensitivity", "simprof_summary",
                         "report_page", "all"}
    cfg["simprof"]["measure"] = "alloc_mb_per_cpu_s"
    cfg["simprof"]["tolerance"] = 0.2
    jobs, _ = build_dag(d, _write(tmp_path / "c.yaml", cfg))
    assert set(jobs) == {"simprof_sensitivity", "simprof_summary", "report_page", "all"}
    assert jobs["report_page"] == [{"method": "simprof", "page": "summary"}]
    # frame types change the vectors, not the profiles
    cfg["simprof"]["tolerance"] = 0.1
    cfg["simprof"]["frame_types"] = True
    jobs, _ = build_dag(d, _write(tmp_path / "c.yaml", cfg))
    assert set(jobs) == {"simprof_phases", "simprof_sampling", "simprof_sensitivity", "simprof_summary",
                         "report_page", "all"}


@pytest.mark.parametrize("mutate, message", [
    (lambda s: s["runs"]["wordcount"].update(input="nope"), "simprof.runs.wordcount.input names 'nope'"),
    (lambda s: s["sensitivity"]["cc"].update(references=["wordcount"]), "run 'wordcount' is not a cc run"),
    (lambda s: s["inputs"]["text"].pop("vocab"), "simprof.inputs.text: a text input lacks vocab"),
    (lambda s: s["inputs"]["g-skew"].update(initiator=[[1, 2], [3, -1]]), "simprof.inputs.g-skew.initiator"),
    (lambda s: s["runs"]["wordcount"].update(job="terasort"), "simprof.runs.wordcount.job"),
    (lambda s: s["overhead"].update(runs=["nope"]), "simprof.overhead.runs names 'nope'"),
    (lambda s: s.update(measure="cpi"), "simprof.measure: measure 'cpi' is not one of the cpu-time mode's"),
    (lambda s: s.update(counter_mode="cycles"), "simprof.counter_mode"),
])
def test_bad_simprof_configs_are_named(tmp_path, mutate, message):
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    mutate(cfg["simprof"])
    res = subprocess.run(SNAKEMAKE + ["-n", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
                                      "--configfile", str(_write(tmp_path / "c.yaml", cfg))],
                         capture_output=True, text=True)
    assert res.returncode != 0
    assert re.search(re.escape(message), res.stdout + res.stderr), (res.stdout + res.stderr)[-2000:]


def test_instructions_mode_without_a_pmu_is_a_config_error(tmp_path):
    from pipeline_lib.simprof.units import probe_pmu
    pmu, _ = probe_pmu()
    if pmu:
        pytest.skip("this host counts instructions: the instructions mode is valid here")
    cfg = yaml.safe_load(yaml.safe_dump(TINY))
    cfg["simprof"]["counter_mode"] = "instructions"
    res = subprocess.run(SNAKEMAKE + ["-n", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
                                      "--configfile", str(_write(tmp_path / "c.yaml", cfg))],
                         capture_output=True, text=True)
    assert res.returncode != 0
    assert "config: simprof.counter_mode: counter mode 'instructions' needs a PMU" in res.stdout + res.stderr


BROWSER_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DECODE_IMAGES = """async () => {
    const out = {};
    for (const [path, r] of Object.entries(results)) {
        if (r.mime_type !== "image/png") continue;
        const img = new Image();
        img.src = r.data_uri;
        await img.decode();
        out[path] = [img.naturalWidth, img.naturalHeight];
    }
    return out;
}"""


def test_the_html_report_holds_every_figure_and_renders_in_a_browser(ran, tmp_path):
    """``snakemake --report``: every PNG the run wrote and every summary page
    is in the report, grouped by method, captioned with what was run; in
    headless Chromium each embedded figure decodes, and clicking through
    the menu shows one."""
    from conftest import needs_system

    d, cfg = ran
    out = tmp_path / "report.html"
    res = subprocess.run(SNAKEMAKE + ["--report", str(out), "--snakefile", str(ROOT / "Snakefile"), "--directory",
                                      str(d), "--configfile", str(cfg)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    figures = sorted(str(p.relative_to(d)) for p in (d / "results").rglob("*.png"))
    pages = sorted(str(p.relative_to(d)) for p in (d / "results").rglob("*.html"))
    assert len(figures) >= 20 and len(pages) == 8
    # each page is its Markdown summary rendered, with the provenance at its foot
    page = (d / "results" / "simprof" / "summary.html").read_text()
    assert "<table>" in page and "config_digest <code>" in page and "git_commit <code>" in page

    chromium = shutil.which("chromium")
    needs_system(None if chromium else "Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=BROWSER_FLAGS)
        try:
            tab = browser.new_page()
            tab.goto(out.as_uri())
            for category in ("GPUMech", "Scaling model", "SimProf", "TBPoint"):
                tab.get_by_role("link", name=category, exact=True).wait_for(timeout=30000)
            entries = tab.evaluate("Object.fromEntries(Object.entries(results).map(([p, r]) => "
                                   "[p, [r.mime_type, r.caption]]))")
            assert sorted(p for p, (mime, _) in entries.items() if mime == "image/png") == figures
            assert sorted(p for p, (mime, _) in entries.items() if mime == "text/html") == pages
            # captions are rendered with the producing job's wildcards and params
            caption = entries["results/tbpoint/gpumech-baseline/fig11_ipc.png"][1]
            assert "Fig. 11" in caption and "gpumech-baseline" in caption and "bfs-road" in caption
            assert all(c.strip() for _, c in entries.values())
            sizes = tab.evaluate(DECODE_IMAGES)
            assert sorted(sizes) == figures and all(w >= 200 and h >= 150 for w, h in sizes.values()), sizes
            # a reader's path to a figure: method, study, the figure's entry
            tab.get_by_role("link", name="TBPoint", exact=True).click()
            tab.get_by_role("link", name="Validation on gpumech-baseline", exact=True).click()
            tab.locator("tr", has_text="fig11_ipc.png").locator("a").first.click()
            shown = tab.locator("img[src^='data:image/png']")
            shown.wait_for(timeout=30000)
            assert shown.evaluate("img => img.complete && img.naturalWidth") > 0
            # and to a summary table: the page is shown in a frame, its tables rendered
            tab.get_by_role("link", name="Results", exact=True).first.click()
            tab.get_by_role("link", name="SimProf", exact=True).click()
            tab.get_by_role("link", name="Summaries", exact=True).click()
            tab.locator("tr", has_text="summary.html").locator("a").first.click()
            tab.frame_locator("iframe").locator("table").first.wait_for(timeout=30000)
        finally:
            browser.close()


def test_a_timing_only_sweep_point_reuses_its_bases_collection(tmp_path):
    """GPUMech's MSHR point differs from its base in a timing field only, so
    its analysis reads the base's collector counts (analysis.collection_key);
    the warp-count point changes the occupancy and collects again."""
    import copy
    cfg = copy.deepcopy(TINY)
    cfg["gpumech"]["sweeps"] = {"w": [16, 32], "mshr": [16, 32]}
    jobs, params = build_dag(tmp_path, _write(tmp_path / "c.yaml", cfg))
    mshr16 = "gpumech-baseline-mshr16"
    assert params[("gpumech_analyse", "hist", mshr16)]["reuse_collection"] is True
    assert params[("gpumech_analyse", "hist", W16)]["reuse_collection"] is False
    assert params[("gpumech_analyse", "hist", "gpumech-baseline")]["reuse_collection"] is False
    cfg["gpumech"]["reuse_collection"] = False
    _, params = build_dag(tmp_path, _write(tmp_path / "c.yaml", cfg))
    assert params[("gpumech_analyse", "hist", mshr16)]["reuse_collection"] is False


def _strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _strings(v)


def test_every_results_file_a_rule_names_in_its_params_is_one_of_its_inputs(tmp_path):
    """Scripts read files by name from records in ``params`` (a workload's,
    a point's, a run's); each such path must be an input of the job, a
    directory holding its inputs or a file in an input directory (a sweep
    batch's points), so the DAG knows every file a job reads."""
    with _workflow(tmp_path, _write(tmp_path / "c.yaml", TINY)) as wf:
        dag = _built(wf, forceall=True)
        checked, rules = 0, set()
        for job in dag.jobs:
            inputs = [str(f) for f in job.input]
            outputs = [str(f) for f in job.output]
            for p in _strings(dict(job.params)):
                if not p.startswith("results/") or any(o == p or o.startswith(p + "/") for o in outputs):
                    continue
                # the input itself, a directory holding inputs, or a file in an input directory
                assert any(f == p or f.startswith(p + "/") or p.startswith(f + "/") for f in inputs), \
                    f"rule {job.rule.name} {dict(job.wildcards)}: params name {p}, which is not among its inputs"
                checked += 1
                rules.add(job.rule.name)
    assert checked > 0
    assert {"tbpoint_validate", "tbpoint_sensitivity", "tbpoint_kernel_types", "simprof_summary",
            "simprof_sensitivity", "scaling_summary", "scaling_counters", "gpumech_validate"} <= rules
