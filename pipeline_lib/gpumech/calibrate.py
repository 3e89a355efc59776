"""Choosing ``gpumech.contention_sync`` and ``gpumech.collector_pacing`` on
the small inputs.

The contention model has two modelling choices that the derivation leaves
open: whether the warps of a core move through the representative warp's
intervals in step (``interval``) or drift apart (``warp``) under each
scheduler, and whether the scheduler-ordered collector waits for the
shared L2 slices and DRAM channels (pacing; docs/gpumech.md).  The choice is made on the ``small`` inputs
(the ``-s`` workloads of config/study.yaml), which the validation on the
``medium`` suite never sees, and written into the configuration by hand::

    python -m pipeline_lib.gpumech.calibrate --hardware gpumech-baseline \\
        bfs-rmat-s cfd-s kmeans-s ...

It needs each workload's trace (``results/traces/<wl>``) and its detailed
simulations under both schedulers (``results/sim/<wl>/<hw>`` and the
``-rr``/``-gto`` variant).  It prints the mean CPI-relative error of
``MT_CONTENTION`` per scheduler, pacing and reading; the pacing whose best
readings have the lower error averaged over the two schedulers, and under
it each scheduler's reading with the lower error.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from ..sim.hardware import load_hardware, variant_name
from ..sim.trace_reader import TraceDir
from ..workflow import Paths
from .analysis import GPUMech
from .contention import MODEL, SYNCS
from .model import POLICIES


def sync_errors(workloads: list[str], hw_name: str, results: Path, min_waves: float,
                pacings=(False, True)) -> pd.DataFrame:
    """Per (policy, pacing, sync): mean CPI-relative error of
    ``MT_CONTENTION`` and the number of launches, over the launches of
    ``workloads`` with at least ``min_waves`` x system occupancy blocks."""
    hw = load_hardware(hw_name)
    sims = {p: hw_name if p == hw["scheduler"] else variant_name(hw_name, sched=p) for p in POLICIES}
    rows = []
    P = Paths(results)
    for wl in workloads:
        trace = Path(P.trace_dir(wl))
        missing = [str(f) for f in [trace] + [Path(P.sim("launches.parquet", wl, s)) for s in sims.values()]
                   if not f.exists()]
        if missing:
            raise FileNotFoundError(f"calibration of {wl}: missing {', '.join(missing)} (run the trace and "
                                    "simulate rules for it first)")
        sim_tables = {p: pd.read_parquet(P.sim("launches.parquet", wl, s)).set_index("launch")
                      for p, s in sims.items()}
        for pacing, sync in ((pc, s) for pc in pacings for s in SYNCS):
            res = GPUMech(hw, sync={p: sync for p in POLICIES}, pacing=pacing).run(TraceDir(trace))
            L = res["launches"].set_index("launch")
            P = res["predictions"]
            P = P[(P["selection"] == "clustering") & (P["model"] == MODEL)]
            for policy, sim in sim_tables.items():
                for lid, l in L.iterrows():
                    if l["blocks"] < min_waves * l["system_occupancy"]:
                        continue
                    sim_cpi = float(sim.loc[lid, "cycles"]) * hw["cores"] / float(sim.loc[lid, "warp_instrs"])
                    cpi = float(P.loc[(P["launch"] == lid) & (P["policy"] == policy), "cpi"].iloc[0])
                    rows.append({"workload": wl, "launch": lid, "policy": policy, "pacing": pacing, "sync": sync,
                                 "error": abs(cpi - sim_cpi) / sim_cpi})
        print(f"{wl}: done", file=sys.stderr)
    df = pd.DataFrame(rows, columns=["workload", "launch", "policy", "pacing", "sync", "error"])
    return df.groupby(["policy", "pacing", "sync"], as_index=False).agg(error=("error", "mean"),
                                                                       launches=("error", "size"))


def choose(t: pd.DataFrame) -> tuple[bool, dict]:
    """The pacing whose per-scheduler best readings have the lowest mean
    error (ties: no pacing), and each scheduler's best reading under it."""
    best = t.sort_values(["error", "sync"]).groupby(["pacing", "policy"]).head(1)
    by_pacing = best.groupby("pacing")["error"].mean().sort_index()
    pacing = bool(by_pacing.idxmin())
    rows = best[best["pacing"] == pacing]
    return pacing, {r.policy: r.sync for r in rows.itertuples()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pipeline_lib.gpumech.calibrate", description=__doc__.split("\n\n")[0])
    ap.add_argument("workloads", nargs="+", help="small-input workloads (configured names, e.g. cfd-s)")
    ap.add_argument("--hardware", default="gpumech-baseline")
    ap.add_argument("--results", type=Path, default=Path("results"))
    ap.add_argument("--min-waves", type=float, default=3.0)
    a = ap.parse_args(argv)
    t = sync_errors(a.workloads, a.hardware, a.results, a.min_waves)
    print(t.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    if len(t):
        pacing, sync = choose(t)
        print(f"collector_pacing: {str(pacing).lower()}")
        for policy, s in sync.items():
            e = t[(t["policy"] == policy) & (t["pacing"] == pacing) & (t["sync"] == s)].iloc[0]
            print(f"contention_sync {policy}: {s} (mean error {100 * e['error']:.1f}% over {e['launches']} launches)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
