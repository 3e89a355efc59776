"""Time a dry run (``snakemake -n``) of a design-space sweep of about 10,000
simulations: 20 workloads x a 8 x 8 x 8 grid of SM count, core clock and
DRAM clock around gpumech-baseline (512 points), with power.  Once with one
job per simulation (about 20,500 jobs in the DAG) and once batched, 8
points per job (``sweeps.<name>.batch``: 1,280 jobs).  Prints the number
of jobs and the seconds of each.

    .venv/bin/python benchmarks/sweep_dryrun.py
"""
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def dry_run(batch: int) -> None:
    cfg = {"results_dir": "results",
           "workloads": {f"h{i}": {"benchmark": "histogram", "size": "small", "seed": i} for i in range(20)},
           "simulate": {"hardware": ["gpumech-baseline"]},
           "tbpoint": {"hardware": [], "sensitivity": []}, "gpumech": {"hardware": [], "sweeps": {}},
           "sweeps": {"grid": {"base": "gpumech-baseline",
                               "vary": {"sm": [2, 4, 6, 8, 10, 12, 14, 16],
                                        "cc": [300, 400, 500, 600, 700, 800, 900, 990],
                                        "mc": [700, 900, 1100, 1300, 1500, 1700, 1900, 2030]},
                               "batch": batch}}}
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "sweep.yaml"
        path.write_text(yaml.safe_dump(cfg))
        t0 = time.perf_counter()
        res = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--quiet", "rules", "--snakefile",
                              str(ROOT / "Snakefile"), "--directory", d, "--configfile", str(path)],
                             capture_output=True, text=True)
        dt = time.perf_counter() - t0
    if res.returncode:
        sys.exit(res.stderr[-2000:])
    counts = {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", res.stdout, re.M)}
    sims = counts.get("simulate", 0) + 8 * counts.get("sweep_batch", 0)
    print(f"dry run, batch {batch}: {counts.get('total', 0):,} jobs (about {sims:,} simulations) in {dt:.1f} s")


def main():
    dry_run(1)
    dry_run(8)


if __name__ == "__main__":
    main()
