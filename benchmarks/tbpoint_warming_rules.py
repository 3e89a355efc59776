"""TBPoint's warming rules side by side: IPC error against the full
simulation and sample size of each workload, every rule on the same
traces, regions and inter-launch clusters (docs/tbpoint.md, "Occupancy
variants").

    .venv/bin/python benchmarks/tbpoint_warming_rules.py [workload ...] [--hw tbpoint-fermi-w24 ...]
        [--rules confidence phases] [--results results]

Reads each workload's trace, ``inter_launch.parquet``, the hardware's
``regions.parquet`` and the full simulation's ``summary.json`` from the
results directory (run the TBPoint validation or the sensitivity study
first), then runs the sampled simulation once per rule, the other options
at the defaults of config/config.yaml (functional warming, the confidence
launch rule, turnover units, a 3% interval, small launches modelled), and
prints per workload and hardware the error and sample size of each rule,
then per hardware the geometric means and the maximum error.  Default
workloads: every one with a full simulation on the first hardware.  With
``--series`` it also prints, under the ``phases`` rule, the unit IPCs and
phase spreads (in lifetimes, ``warming.phase_spread``) of the last region
each run warmed.
"""
import argparse
import json
import sys
from pathlib import Path

import pandas as pd

from pipeline_lib.sim import load_hardware
from pipeline_lib.sim.simulator import Simulator
from pipeline_lib.sim.trace_reader import TraceDir
from pipeline_lib.tbpoint.policy import TBPointPolicy
from pipeline_lib.tbpoint.run import geomean, run_sampled_rows, summarize_sampled
from pipeline_lib.tbpoint.warming import WARMING_RULES
from pipeline_lib.workflow import Paths


def sampled(tr: TraceDir, inter, regions, wl: str, hw: dict, rule: str, series: bool = False) -> dict:
    """The sampled run's summary (:func:`summarize_sampled`) under ``rule``;
    with ``series`` the last warmed region's unit IPCs and phase spreads are
    printed."""
    policy = TBPointPolicy(inter, regions, 0.10, True, rule, "confidence", unit_rule="turnover",
                           interval_tolerance=0.03, small_launches="model", launches=tr.launches)
    res = Simulator(hw, tr).run(policy)
    if series and policy._unit_spreads:
        print(f"  {wl} on {hw['name']}, {rule}: unit IPC  " + " ".join(f"{x:.2f}" for x in policy._unit_ipcs))
        print(f"  {wl} on {hw['name']}, {rule}: spread    " + " ".join(f"{x:.3f}" for x in policy._unit_spreads))
    return summarize_sampled(run_sampled_rows(tr, res, policy))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="*")
    ap.add_argument("--hw", nargs="+", default=["tbpoint-fermi-w24"])
    ap.add_argument("--rules", nargs="+", default=["confidence", "phases"], choices=sorted(WARMING_RULES))
    ap.add_argument("--results", default="results")
    ap.add_argument("--series", action="store_true", help="print the phases rule's unit series")
    args = ap.parse_args()
    P = Paths(Path(args.results))
    wls = args.workloads or sorted(p.parent.parent.name for p in Path(args.results, "sim").glob(f"*/{args.hw[0]}/summary.json"))
    head = "  ".join(f"{r + ' err %':>16s} {'sample %':>8s}" for r in args.rules)
    print(f"{'workload':14s} {'hardware':22s} {head}")
    for hw_name in args.hw:
        hw = load_hardware(hw_name)
        errs = {r: [] for r in args.rules}
        sizes = {r: [] for r in args.rules}
        for wl in wls:
            full = Path(P.sim("summary.json", wl, hw_name))
            if not full.exists():
                sys.exit(f"tbpoint_warming_rules: {full} does not exist (run the full simulation of {wl} on {hw_name})")
            ipc = json.loads(full.read_text())["ipc"]
            tr = TraceDir(P.trace_dir(wl))
            inter = pd.read_parquet(P.tbpoint(wl, "inter_launch.parquet"))
            regions = pd.read_parquet(P.tbpoint(wl, hw_name, "regions.parquet"))
            cells = []
            for r in args.rules:
                s = sampled(tr, inter, regions, wl, hw, r, args.series)
                errs[r].append(abs(s["ipc"] - ipc) / ipc)
                sizes[r].append(s["sample_size"])
                cells.append(f"{100 * errs[r][-1]:16.2f} {100 * sizes[r][-1]:8.2f}")
            print(f"{wl:14s} {hw_name:22s} {'  '.join(cells)}", flush=True)
        print(f"{'geomean (max)':14s} {hw_name:22s} " + "  ".join(
            f"{100 * geomean(errs[r]):9.2f} ({100 * max(errs[r]):5.2f}) {100 * geomean(sizes[r]):8.2f}"
            for r in args.rules))


if __name__ == "__main__":
    main()
