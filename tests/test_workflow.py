"""The Snakemake workflow: DAG wiring (built with Snakemake's API), config
validation at load, a tiny end-to-end run, and exact reruns."""
import subprocess
import sys
from pathlib import Path

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
}


def _write(path, cfg):
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def build_dag(workdir: Path, configfile: Path):
    """Jobs that would run, as {rule: [wildcards...]}, from Snakemake's API."""
    from snakemake.api import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings, SnakemakeApi
    from snakemake.settings.enums import Quietness

    with SnakemakeApi(OutputSettings(quiet={Quietness.ALL})) as sm:
        wf_api = sm.workflow(resource_settings=ResourceSettings(cores=1),
                             config_settings=ConfigSettings(configfiles=[configfile]),
                             snakefile=ROOT / "Snakefile", workdir=workdir)
        wf_api.dag(DAGSettings())
        wf = wf_api._workflow
        wf._prepare_dag(forceall=False, ignore_incomplete=True, lock_warn_only=True)
        wf._build_dag()
        jobs = {}
        for job in wf.dag.needrun_jobs():
            jobs.setdefault(job.rule.name, []).append(dict(job.wildcards))
        params = {job.wildcards.get("wl"): dict(job.params) for job in wf.dag.jobs if job.rule.name == "trace"}
        return jobs, params


def test_dag_has_one_trace_job_per_workload(tmp_path):
    cfg = _write(tmp_path / "c.yaml", TINY)
    jobs, params = build_dag(tmp_path, cfg)
    assert sorted(w["wl"] for w in jobs["trace"]) == sorted(TINY["workloads"])
    assert set(jobs) == {"trace", "all"}
    # the trace stage receives no hardware parameters
    for p in params.values():
        assert set(p) == {"spec", "warp_trace", "instr_limit", "chunk_records", "code_version"}
        assert "hardware" not in str(p)


def test_invalid_config_names_field_and_file(tmp_path):
    bad = dict(TINY, workloads={"x": {"benchmark": "bfs", "size": "huge"}})
    cfg = _write(tmp_path / "bad.yaml", bad)
    res = subprocess.run(SNAKEMAKE + ["-n", "--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
                                      "--configfile", str(cfg)], capture_output=True, text=True)
    assert res.returncode != 0
    out = res.stdout + res.stderr
    assert "bad.yaml" in out and "workloads.x.size" in out


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    d = tmp_path_factory.mktemp("wf")
    cfg = _write(d / "c.yaml", TINY)
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


def test_changing_one_workload_reruns_only_its_trace(ran, tmp_path):
    d, _ = ran
    changed = yaml.safe_load(yaml.safe_dump(TINY))
    changed["workloads"]["red"]["seed"] = 5
    cfg2 = _write(tmp_path / "c2.yaml", changed)
    jobs, _ = build_dag(d, cfg2)
    assert [w["wl"] for w in jobs["trace"]] == ["red"]
    assert set(jobs) == {"trace", "all"}
