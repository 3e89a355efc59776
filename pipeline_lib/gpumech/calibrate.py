"""Choosing ``gpumech.contention_sync`` on the small inputs.

The contention model has one modelling choice that the derivation leaves
open: whether the warps of a core move through the representative warp's
intervals in step (``interval``) or drift apart (``warp``) under each
scheduler (docs/gpumech.md).  The choice is made on the ``small`` inputs
(the ``-s`` workloads of config/study.yaml), which the validation on the
``medium`` suite never sees, and written into the configuration by hand::

    python -m pipeline_lib.gpumech.calibrate --hardware gpumech-baseline \\
        bfs-rmat-s cfd-s kmeans-s ...

It needs each workload's trace (``results/traces/<wl>``) and its detailed
simulations under both schedulers (``results/sim/<wl>/<hw>`` and the
``-rr``/``-gto`` variant).  It prints the mean CPI-relative error of
``MT_CONTENTION`` per scheduler and reading, and the reading with the lower
error.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from ..sim.hardware import load_hardware, variant_name
from ..sim.trace_reader import TraceDir
from .analysis import GPUMech
from .contention import MODEL, SYNCS
from .model import POLICIES


def sync_errors(workloads: list[str], hw_name: str, results: Path, min_waves: float) -> pd.DataFrame:
    """Per (policy, sync): mean CPI-relative error of ``MT_CONTENTION`` and
    the number of launches, over the launches of ``workloads`` with at
    least ``min_waves`` x system occupancy blocks."""
    hw = load_hardware(hw_name)
    sims = {p: hw_name if p == hw["scheduler"] else variant_name(hw_name, sched=p) for p in POLICIES}
    rows = []
    for wl in workloads:
        trace = results / "traces" / wl
        missing = [str(f) for f in [trace] + [results / "sim" / wl / s / "launches.parquet" for s in sims.values()]
                   if not f.exists()]
        if missing:
            raise FileNotFoundError(f"calibration of {wl}: missing {', '.join(missing)} (run the trace and "
                                    "simulate rules for it first)")
        sim_tables = {p: pd.read_parquet(results / "sim" / wl / s / "launches.parquet").set_index("launch")
                      for p, s in sims.items()}
        for sync in SYNCS:
            res = GPUMech(hw, sync={p: sync for p in POLICIES}).run(TraceDir(trace))
            L = res["launches"].set_index("launch")
            P = res["predictions"]
            P = P[(P["selection"] == "clustering") & (P["model"] == MODEL)]
            for policy, sim in sim_tables.items():
                for lid, l in L.iterrows():
                    if l["blocks"] < min_waves * l["system_occupancy"]:
                        continue
                    sim_cpi = float(sim.loc[lid, "cycles"]) * hw["cores"] / float(sim.loc[lid, "warp_instrs"])
                    cpi = float(P.loc[(P["launch"] == lid) & (P["policy"] == policy), "cpi"].iloc[0])
                    rows.append({"workload": wl, "launch": lid, "policy": policy, "sync": sync,
                                 "error": abs(cpi - sim_cpi) / sim_cpi})
        print(f"{wl}: done", file=sys.stderr)
    df = pd.DataFrame(rows, columns=["workload", "launch", "policy", "sync", "error"])
    return df.groupby(["policy", "sync"], as_index=False).agg(error=("error", "mean"), launches=("error", "size"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pipeline_lib.gpumech.calibrate", description=__doc__.split("\n\n")[0])
    ap.add_argument("workloads", nargs="+", help="small-input workloads (configured names, e.g. cfd-s)")
    ap.add_argument("--hardware", default="gpumech-baseline")
    ap.add_argument("--results", type=Path, default=Path("results"))
    ap.add_argument("--min-waves", type=float, default=3.0)
    a = ap.parse_args(argv)
    t = sync_errors(a.workloads, a.hardware, a.results, a.min_waves)
    print(t.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    for policy, g in t.groupby("policy"):
        if len(g):
            best = g.sort_values(["error", "sync"]).iloc[0]
            print(f"{policy}: {best['sync']} (mean error {100 * best['error']:.1f}% over {best['launches']} launches)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
