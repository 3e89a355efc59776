"""A killed run leaves nothing that passes for a result, a rerun finishes the
work, and failing jobs are retried as the profiles say (README, "When a run
is interrupted")."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
RETRY = ROOT / "tests" / "workflows" / "retry" / "Snakefile"
CONFIG = {"results_dir": "results",
          "workloads": {"hist": {"benchmark": "histogram", "size": "small", "seed": 1,
                                 "params": {"bytes": 4096, "blocks": 2}}}}
TRACE = Path("results/traces/hist")
OUTPUTS = ["launches.parquet", "blocks.parquet", "warps.parquet", "instructions.parquet", "warp_trace.parquet",
           "check.json"]


def _smk(workdir, *args, snakefile=ROOT / "Snakefile", **kw):
    return subprocess.run(SNAKEMAKE + ["--snakefile", str(snakefile), "--directory", str(workdir), *args],
                          capture_output=True, text=True, **kw)


def test_a_job_killed_midway_is_never_taken_for_done_and_a_rerun_finishes_it(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(CONFIG))
    target = str(TRACE / "check.json")
    # SIGKILL the whole run (Snakemake and its job) the moment the trace job's first output appears
    proc = subprocess.Popen(SNAKEMAKE + [target, "--snakefile", str(ROOT / "Snakefile"), "--directory", str(tmp_path),
                                         "--cores", "1", "--configfile", str(cfg)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 300
    try:
        while not any((tmp_path / TRACE / f).exists() for f in OUTPUTS):
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "the trace job wrote nothing in 300 s"
            time.sleep(0.002)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    present = [f for f in OUTPUTS if (tmp_path / TRACE / f).exists()]
    assert present
    # each file at an output path is whole (written under a temporary name, then renamed) ...
    for f in present:
        p = tmp_path / TRACE / f
        json.loads(p.read_text()) if f.endswith(".json") else pq.read_table(p)
    # ... and Snakemake still knows the job did not finish: without --rerun-incomplete it refuses
    # to go on and names the files
    res = _smk(tmp_path, target, "-n", "--workflow-profile", "none", "--configfile", str(cfg))
    assert res.returncode != 0
    out = res.stdout + res.stderr
    assert "incomplete" in out.lower() and all(str(TRACE / f) in out for f in present), out[-2000:]
    # the lock of the killed run is released by hand; then the profile's --rerun-incomplete finishes the work
    assert _smk(tmp_path, "--unlock", "--configfile", str(cfg)).returncode == 0
    res = _smk(tmp_path, target, "--profile", str(ROOT / "profiles" / "default"), "--cores", "1",
               "--configfile", str(cfg))
    assert res.returncode == 0, res.stderr[-3000:]
    assert json.loads((tmp_path / target).read_text())["check"] == "passed"
    # the killed writer's temporaries are gone, and nothing is left to do
    assert not [p for p in (tmp_path / "results").rglob(".*") if ".tmp" in p.name]
    assert "Nothing to be done" in _smk(tmp_path, target, "-n", "--configfile", str(cfg)).stdout


@pytest.mark.parametrize("profile, budget", [("default", 0), ("slurm", 2)])
def test_failing_jobs_are_retried_as_the_profile_says(tmp_path, profile, budget):
    """The job fails on its first ``fails`` attempts: it succeeds when the
    profile's retry budget covers them and not otherwise.  The SLURM profile
    runs here with the local executor; tests/test_slurm.py runs it on SLURM."""
    conf = yaml.safe_load((ROOT / "profiles" / profile / "config.yaml").read_text())
    assert conf.get("retries", 0) == budget
    for fails, ok in ((budget, True), (budget + 1, False)):
        d = tmp_path / f"fails{fails}"
        d.mkdir()
        res = _smk(d, "--profile", str(ROOT / "profiles" / profile), "--executor", "local", "--cores", "1",
                   "--config", f"fail_attempts={fails}", snakefile=RETRY)
        assert (res.returncode == 0) == ok, res.stderr[-2000:]
        attempts = (d / "attempts.txt").read_text().split()
        assert attempts == [str(i) for i in range(1, min(fails + 1, budget + 1) + 1)]
        assert (d / "done.txt").exists() == ok
