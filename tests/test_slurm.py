"""The workflow end to end through ``snakemake --profile profiles/slurm`` on
a real single-node SLURM cluster (tests/slurm_cluster.py).

Needs Debian's slurm-wlm and munge (``make system-packages``) and root;
skipped otherwise, except where PIPELINE_REQUIRE_SYSTEM_TESTS=1 (CI) makes a
missing cluster a failure. The cluster has no slurmdbd, hence ``squeue``
polling.
"""
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import needs_system
from slurm_cluster import SingleNodeCluster, missing

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = [sys.executable, "-m", "snakemake"]
TIMEOUT_S = 420
CONFIG = {"results_dir": "results",
          "workloads": {"hist": {"benchmark": "histogram", "size": "small", "seed": 1,
                                 "params": {"bytes": 4096, "blocks": 2}}}}
SIM = "results/sim/hist/gpumech-baseline"
TARGETS = [f"{SIM}/power.parquet", f"{SIM}/summary.json"]
# a cluster without slurmdbd: poll with squeue, first poll soon (MinJobAge is 300 s)
SLURM_ARGS = ["--profile", str(ROOT / "profiles" / "slurm"), "--slurm-status-command", "squeue",
              "--slurm-init-seconds-before-status-checks", "5", "--slurm-no-account"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    needs_system(missing())
    with SingleNodeCluster(tmp_path_factory.mktemp("slurm")) as c:
        yield c


def _start(workdir: Path, args: list[str], snakefile: Path = ROOT / "Snakefile") -> subprocess.Popen:
    return subprocess.Popen(SNAKEMAKE + args + ["--snakefile", str(snakefile), "--directory", str(workdir)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _finish(proc: subprocess.Popen, cluster) -> str:
    try:
        out, _ = proc.communicate(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        pytest.fail(f"no result in {TIMEOUT_S} s\n{out[-3000:]}\n{cluster.log_tail()}")
    assert proc.returncode == 0, out[-4000:] + "\n" + cluster.log_tail()
    return out


def _slurm_jobs(out: str) -> dict[str, list[int]]:
    """SLURM job ids of each rule's submissions, from Snakemake's output."""
    jobs: dict[str, list[int]] = {}
    for rule, jobid in re.findall(r"rule (\w+):.*?submitted with SLURM jobid (\d+)", out, re.S):
        jobs.setdefault(rule, []).append(int(jobid))
    return jobs


def _scontrol(jobid: int) -> dict[str, str]:
    text = subprocess.run(["scontrol", "-o", "show", "job", str(jobid)], capture_output=True, text=True,
                          check=True).stdout
    return dict(kv.split("=", 1) for kv in text.split() if "=" in kv)


def test_the_workflow_runs_through_the_slurm_executor(cluster, tmp_path):
    """Trace, simulation and power as three SLURM jobs, with each rule's
    declared resources as the job's limits, giving the same bytes as a local
    run; and the SLURM profile's retries resubmit a failing job."""
    slurm_dir, local_dir, retry_dir = (tmp_path / n for n in ("slurm", "local", "retry"))
    for d in (slurm_dir, local_dir, retry_dir):
        d.mkdir()
    cfg = tmp_path / "c.yaml"
    cfg.write_text(yaml.safe_dump(CONFIG))
    pipeline = _start(slurm_dir, TARGETS + SLURM_ARGS + ["--configfile", str(cfg)])
    retry = _start(retry_dir, SLURM_ARGS + ["--config", "fail_attempts=1"],
                   snakefile=ROOT / "tests" / "workflows" / "retry" / "Snakefile")
    out = _finish(pipeline, cluster)
    retry_out = _finish(retry, cluster)

    jobs = _slurm_jobs(out)
    assert sorted(jobs) == ["power", "simulate", "trace"] and all(len(v) == 1 for v in jobs.values()), out[-3000:]
    for rule, (jobid,) in jobs.items():
        assert _scontrol(jobid)["JobState"] == "COMPLETED", rule
    # the simulate rule's declared resources (rules/simulate.smk, config simulate.*) reached SLURM
    sim = _scontrol(jobs["simulate"][0])
    assert sim["TimeLimit"] == "02:00:00" and sim["MinMemoryNode"] == "4000M", sim

    local = subprocess.run(SNAKEMAKE + TARGETS + ["--cores", "2", "--snakefile", str(ROOT / "Snakefile"),
                                                  "--directory", str(local_dir), "--configfile", str(cfg)],
                           capture_output=True, text=True)
    assert local.returncode == 0, local.stderr[-3000:]
    for t in TARGETS:
        assert (slurm_dir / t).read_bytes() == (local_dir / t).read_bytes(), t

    # the flaky job failed once as a SLURM job and was resubmitted (profiles/slurm: retries)
    (first, second) = _slurm_jobs(retry_out)["flaky"]
    assert _scontrol(first)["JobState"] == "FAILED" and _scontrol(second)["JobState"] == "COMPLETED"
    assert (retry_dir / "done.txt").read_text().split() == ["2"]
