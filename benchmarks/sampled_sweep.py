"""Sampled sweep points against full simulation: the error they add to the
scaling dataset and the host time they save.

    .venv/bin/python benchmarks/sampled_sweep.py [--full scaling] [--sampled scaling-sampled] [--results results]

Compares two sweeps of the same grid and workloads, one simulated in full and
one with ``sampled: true`` (config/scaling-sampled.yaml,
config/paper-sampled-subset.yaml), through their tables -- the scaling
datasets (run time and dynamic power of every kernel instance at every
point) where both sweeps have one, else the sweeps' points tables (the same
per workload) -- and their simulations' host times.  Only the workloads the
sampled sweep did sample (its ``summary.json`` says ``sampled``) contribute
to the error figures; the others were simulated in full in both.
"""
import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline_lib.workflow import Paths

ROOT = Path(__file__).resolve().parents[1]


def point_files(results: Path, sweep: str, name: str) -> dict:
    """{(workload, point): parsed JSON} of every simulation of ``sweep``."""
    out = {}
    for f in sorted(Path(Paths(results).sweeps(sweep, "batches")).glob(f"*/*/*/{name}")):
        out[(f.parents[2].name, f.parent.name)] = json.loads(f.read_text())
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", default="scaling")
    ap.add_argument("--sampled", default="scaling-sampled")
    ap.add_argument("--results", default=str(ROOT / "results"))
    args = ap.parse_args()
    res = Path(args.results)
    summaries = point_files(res, args.sampled, "summary.json")
    if not summaries:
        raise SystemExit(f"no simulations of sweep {args.sampled!r} under {res / 'sweeps'}")
    sampled_wl = sorted({wl for (wl, _), s in summaries.items() if s.get("sampled")})
    tables = [Path(Paths(res).scaling(name, "dataset.parquet")) for name in (args.full, args.sampled)]
    if all(t.is_file() for t in tables):
        full, samp = (pd.read_parquet(t) for t in tables)
        what = "kernel instance"
    else:           # per workload: the sweeps' tables
        full, samp = (pd.read_parquet(Paths(res).sweeps(name, "points.parquet")).assign(instance=lambda t: t["workload"])
                      for name in (args.full, args.sampled))
        what = "workload"
    m = full.merge(samp, on=["instance", "point"], suffixes=("_full", "_sampled"), validate="1:1")
    if len(m) != len(full) or len(m) != len(samp):
        raise SystemExit("the two sweeps do not cover the same workloads and points")
    on = m[m["workload_full"].isin(sampled_wl)]
    print(f"{len(sampled_wl)} of {m['workload_full'].nunique()} workloads sampled "
          f"({on['instance'].nunique()} of {m['instance'].nunique()} {what}s, {m['point'].nunique()} points)")
    sizes = [s["sample_size"] for (wl, _), s in summaries.items() if s.get("sampled")]
    print(f"sample size over their points: mean {100 * np.mean(sizes):.1f}%, "
          f"range {100 * min(sizes):.1f}-{100 * max(sizes):.1f}%")
    print(f"{'metric':16s} {'mean |err|':>10s} {'median':>8s} {'max':>8s}   (sampled vs full, per {what} and point)")
    for metric in ("seconds", "dynamic_power_w"):
        err = (on[f"{metric}_sampled"] / on[f"{metric}_full"] - 1).abs()
        worst = on.loc[err.idxmax()]
        print(f"{metric:16s} {100 * err.mean():9.2f}% {100 * err.median():7.2f}% {100 * err.max():7.2f}%"
              f"   (max: {worst['instance']} at {worst['point']})")
    by_wl = on.assign(err=(on["seconds_sampled"] / on["seconds_full"] - 1).abs()).groupby("workload_full")["err"]
    print("run-time error by workload (mean over instances and points): "
          + ", ".join(f"{wl} {100 * e:.2f}%" for wl, e in by_wl.mean().items()))
    hosts = {name: point_files(res, name, "host_time.json") for name in (args.full, args.sampled)}
    for label, keep in (("sampled workloads", lambda wl: wl in sampled_wl), ("all workloads", lambda wl: True)):
        t = {name: sum(h["simulation_s"] for (wl, _), h in hs.items() if keep(wl)) for name, hs in hosts.items()}
        print(f"host time, {label}: full {t[args.full]:.1f} s, sampled {t[args.sampled]:.1f} s "
              f"({t[args.full] / t[args.sampled]:.2f}x)")


if __name__ == "__main__":
    main()
