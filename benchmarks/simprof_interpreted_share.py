"""How the JIT shows in SimProf's units: per unit, the share of its call-stack
snapshots whose innermost frame the JVM interpreted, against the unit's
measure (docs/simprof.md, "More phases, CODE's strata and frame types").

    .venv/bin/python benchmarks/simprof_interpreted_share.py [--results results-emulated] [--series]

Reads each run's profile (``simprof/profiles/<run>``, SIMPROF_VERSION 8 on:
its ``stacks.frame_type``) and ``model.json`` (counter mode, unit size),
forms the units as the workflow does (``units.form_units``) and prints, per
population of the sampling study (``run.populations``): the lag-one
autocorrelation of the measure along the thread's units, its correlation
with the interpreted share, the share's range over the first ten units,
its median over the rest, and its maximum over the first and the second
half of the units. ``--series`` also prints each unit's measure and share
in order.
"""
import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline_lib.simprof.run import populations, read_profile
from pipeline_lib.simprof.units import form_units, series_of


def interpreted_share(tables: dict, unit_of, n_units: int) -> np.ndarray:
    """Per unit, the share of its snapshots whose innermost frame ran interpreted."""
    stacks = tables["stacks"]
    if "frame_type" not in stacks:
        raise SystemExit("the profile has no frame types (recorded before SIMPROF_VERSION 8); profile it again")
    top = stacks[stacks["depth"] == 0].set_index("stack")["frame_type"] == "Interpreted"
    inside = unit_of >= 0
    hits = top.reindex(tables["samples"]["stack"].to_numpy()[inside]).fillna(False).to_numpy(np.float64)
    count = np.bincount(unit_of[inside], minlength=n_units)
    return np.bincount(unit_of[inside], weights=hits, minlength=n_units) / np.maximum(count, 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results-emulated", help="results directory of the runs")
    ap.add_argument("--points", type=int, default=20, help="sample size of the study (sets the populations)")
    ap.add_argument("--series", action="store_true", help="print each unit's measure and interpreted share")
    args = ap.parse_args()
    root = Path(args.results) / "simprof"
    models = sorted((root / "phases").glob("*/model.json"))
    if not models:
        raise SystemExit(f"{root / 'phases'}: no model.json (run the workflow's simprof_phases first)")
    print(f"{'run':<16}{'thread':>7}{'units':>7}  {'lag-1 r':>7}  {'r(share)':>8}  {'first 10 %':>11}  "
          f"{'rest median %':>13}  {'max 1st half %':>14}  {'max 2nd half %':>14}")
    for path in models:
        run = path.parent.name
        model = json.loads(path.read_text())
        mode, size, measure = model["counter_mode"], model["unit_size"], model["measure"]
        tables = read_profile(root / "profiles" / run, mode)
        u, unit_of = form_units(series_of(tables, mode), tables["samples"], tables["tasks"], mode, size)
        u["share"] = interpreted_share(tables, unit_of, len(u))
        for tid, idx in populations(u, args.points):
            p = u.iloc[idx].sort_values("index")
            y, s = p[measure].to_numpy(np.float64), 100 * p["share"].to_numpy()
            half = len(p) // 2
            print(f"{run:<16}{tid:>7}{len(p):>7}  {np.corrcoef(y[:-1], y[1:])[0, 1]:>7.2f}  "
                  f"{np.corrcoef(y, s)[0, 1]:>8.2f}  {s[:10].min():>5.0f}-{s[:10].max():<5.0f}  "
                  f"{np.median(s[10:]):>13.0f}  {s[:half].max():>14.0f}  {s[half:].max():>14.0f}")
            if args.series:
                print(pd.DataFrame({measure: y.round(2), "interpreted %": s.round(0)}).T.to_string(header=False))


if __name__ == "__main__":
    main()
