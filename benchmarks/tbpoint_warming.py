"""Host time of TBPoint's sampled simulation with the exact warming
shortcut for skipped launches and with every skipped launch replayed
(docs/simulator.md, functional warming).

    .venv/bin/python benchmarks/tbpoint_warming.py [workload ...] [--results results-paper] [--hw tbpoint-fermi]
        [--repeats 2]

Reads the TBPoint stage outputs of each workload (``inter_launch.parquet``,
``regions.parquet``) and its trace from the results directory (run the
TBPoint validation first), loads the compiled engine on a small trace, then
runs the sampled simulation with the default rules both ways, alternating,
``--repeats`` times each, and prints the host seconds and whether the
outputs (launch table, per-launch predictions, units) are the same.
"""
import argparse
import hashlib
import time
from pathlib import Path

import pandas as pd

from pipeline_lib.sim import load_hardware
from pipeline_lib.sim.simulator import Simulator
from pipeline_lib.sim.trace_reader import TraceDir
from pipeline_lib.tbpoint.policy import TBPointPolicy
from pipeline_lib.tbpoint.run import run_sampled_rows
from pipeline_lib.workflow import Paths


def digest(res, rows) -> str:
    h = hashlib.sha256()
    for t in (res.launches, rows, res.units.drop(columns=["bbv_ids", "bbv_counts"], errors="ignore")):
        h.update(pd.util.hash_pandas_object(t, index=False).to_numpy().tobytes())
    return h.hexdigest()[:16]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="*", default=["spmv-scalar", "cfd"])
    ap.add_argument("--results", default="results-paper")
    ap.add_argument("--hw", default="tbpoint-fermi")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args()
    root = Path(args.results)
    hw = load_hardware(args.hw)
    warm_up = sorted(Path("results/traces").glob("*/check.json"))
    if warm_up:
        Simulator(hw, TraceDir(warm_up[0].parent)).run()
    print(f"{'workload':14s} {'shortcut s':>10s} {'every s':>8s} {'ratio':>6s}  same outputs   ({args.hw}, {root})")
    for wl in args.workloads:
        P = Paths(root)
        tr = TraceDir(P.trace_dir(wl))
        inter = pd.read_parquet(P.tbpoint(wl, "inter_launch.parquet"))
        regions = pd.read_parquet(P.tbpoint(wl, args.hw, "regions.parquet"))
        secs = {True: [], False: []}
        digests = set()
        for _ in range(args.repeats):
            for every in (False, True):
                sim = Simulator(hw, tr)
                sim.warm_every_launch = every
                policy = TBPointPolicy(inter, regions, 0.10, True, "confidence", "confidence", unit_rule="turnover")
                t0 = time.perf_counter()
                res = sim.run(policy)
                secs[every].append(time.perf_counter() - t0)
                digests.add(digest(res, run_sampled_rows(tr, res, policy)))
        fast, slow = min(secs[False]), min(secs[True])
        print(f"{wl:14s} {fast:10.2f} {slow:8.2f} {slow / fast:6.2f}  {'yes' if len(digests) == 1 else 'NO'}")


if __name__ == "__main__":
    main()
