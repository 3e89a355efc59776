"""Where TBPoint's sample size goes beyond its floor (docs/tbpoint.md, "What is left").

    .venv/bin/python benchmarks/tbpoint_sample_budget.py [--results results] [--hw tbpoint-fermi]
        [--small-launches model|cluster]

Reads a finished validation (``{results}/tbpoint/{wl}/{hw}/sampled.parquet``,
``regions.parquet``, ``sampled.json`` and the inter-launch table beside
them, and each workload's trace) and splits each workload's sample size, the
share of its warp instructions simulated in detail, into three parts that
add up to it:

* ``floor``: the least sample any setting of the rules could reach
  (:mod:`pipeline_lib.tbpoint.floor`: one launch per cluster, its cheapest,
  with two units of warming per region; a modelled group's pilot);
* ``launches``: the simulated launches beyond the first of each cluster
  (and, in a modelled group, beyond its pilot), counted at what they
  simulated: the launch rule's and the group model's extra launches;
* ``warming``: the rest -- in the first simulated launch of each cluster
  and in the pilots, the instructions simulated beyond those launches'
  floor (warming units past the two the floor allows, regions the warming
  rule never left), and the difference between the first simulated launch
  and the cluster's cheapest.

Beside them it prints ``floor, 1 unit``: the floor with one unit of
warming per region in place of the seed's two, the least that a warming
rule stopping on a region's first unit could reach (no rule that compares
units can: it needs two).

``--small-launches`` must be the validation's ``tbpoint.small_launches``
(the groups it forms change the floor and the parts; the script stops if
the parts do not add up to the sample size or the floor is not the one in
``sampled.json``).  It also prints the geometric means of the sample size
without each excess part, the most that removing that cause alone could
give.
"""
import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline_lib.sim.hardware import load_hardware
from pipeline_lib.sim.trace_reader import TraceDir
from pipeline_lib.tbpoint.floor import cluster_floors, launch_costs, sample_floor
from pipeline_lib.tbpoint.policy import TBPointPolicy
from pipeline_lib.workflow import Paths

ROOT = Path(__file__).resolve().parents[1]


def budget(trace: TraceDir, sampled: pd.DataFrame, inter: pd.DataFrame, regions: pd.DataFrame, hw: dict,
           small_launches: str = "model") -> dict:
    """The three parts of one workload's sample size (shares of its warp
    instructions): floor, launches, warming; and ``floor_1``, the floor with
    one unit of warming per region."""
    total = float(sampled["total_warp_instrs"].sum())
    blocks = trace.blocks_by_launch()
    cost = launch_costs(trace.launches, blocks, regions, hw)
    modelled = TBPointPolicy(inter, regions, small_launches=small_launches,
                             launches=trace.launches).modelled_groups()
    cheapest, pilots = cluster_floors(cost, inter, modelled)
    floor_1 = sample_floor(trace.launches, blocks, inter, regions, hw, warming_units=1, modelled=modelled)
    pilot_set = set(pilots)
    cluster = dict(zip(inter["launch"].astype(int), inter["cluster"].astype(int)))
    first = set()
    launches = warming = 0.0
    for row in sampled.sort_values("launch").itertuples():
        if not row.simulated:
            continue
        lid, n = int(row.launch), float(row.simulated_warp_instrs)
        if lid in pilot_set:
            warming += n - cost[lid]
        elif lid in modelled or cluster[lid] in first:
            launches += n
        else:
            first.add(cluster[lid])
            warming += n - cheapest[cluster[lid]]
    floor = sum(cheapest.values()) + sum(cost[lid] for lid in pilots)
    return {"floor": floor / total, "launches": launches / total, "warming": warming / total,
            "floor_1": floor_1}


def gmean(values) -> float:
    return float(np.exp(np.mean(np.log(np.maximum(values, 1e-4)))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, default=ROOT / "results")
    ap.add_argument("--hw", default="tbpoint-fermi")
    ap.add_argument("--small-launches", choices=("model", "cluster"), default="model",
                    help="the validation's tbpoint.small_launches")
    a = ap.parse_args()
    P = Paths(a.results)
    hw = load_hardware(a.hw)
    rows = []
    for d in sorted((a.results / "tbpoint").iterdir()):
        out = d / a.hw
        if not (out / "sampled.parquet").exists():
            continue
        wl = d.name
        summary = json.loads((out / "sampled.json").read_text())
        if not (d / "inter_launch.parquet").exists():
            raise SystemExit(f"{d / 'inter_launch.parquet'}: missing (a validation without launch clustering "
                             f"has no clusters to split by)")
        b = budget(TraceDir(P.trace_dir(wl)), pd.read_parquet(out / "sampled.parquet"),
                   pd.read_parquet(d / "inter_launch.parquet"), pd.read_parquet(out / "regions.parquet"), hw,
                   a.small_launches)
        parts = b["floor"] + b["launches"] + b["warming"]
        if abs(parts - summary["sample_size"]) > 1e-9:
            raise SystemExit(f"{wl}: the parts add up to {parts:.6f}, the sample size is {summary['sample_size']:.6f} "
                             f"(is --small-launches the validation's?)")
        if abs(b["floor"] - summary["sample_floor"]) > 1e-9:
            raise SystemExit(f"{wl}: floor {b['floor']:.6f} here, {summary['sample_floor']:.6f} in sampled.json "
                             f"(is --small-launches the validation's?)")
        rows.append({"workload": wl, "sample": summary["sample_size"], **b})
    if not rows:
        raise SystemExit(f"no TBPoint validation under {a.results / 'tbpoint'} for {a.hw}")
    t = pd.DataFrame(rows)
    print(f"{'workload':14s} {'sample %':>9s} {'floor %':>8s} {'launches %':>11s} {'warming %':>10s} "
          f"{'floor, 1 unit %':>16s}   ({a.hw})")
    for r in t.itertuples():
        print(f"{r.workload:14s} {100 * r.sample:9.2f} {100 * r.floor:8.2f} {100 * r.launches:11.2f} "
              f"{100 * r.warming:10.2f} {100 * r.floor_1:16.2f}")
    print(f"geometric means: sample {100 * gmean(t['sample']):.2f}%, floor {100 * gmean(t['floor']):.2f}%, "
          f"without the extra launches {100 * gmean(t['sample'] - t['launches']):.2f}%, "
          f"without the extra warming {100 * gmean(t['sample'] - t['warming']):.2f}%, "
          f"floor with one unit of warming {100 * gmean(t['floor_1']):.2f}%")


if __name__ == "__main__":
    main()
