"""What each term of the emulated mode's CPI model does to SimProf, on the
same profiles (docs/simprof.md, "Emulated mode: the CPI model's front-end
terms").

    .venv/bin/python benchmarks/simprof_cpi_terms.py --configfile config/config.yaml config/simprof-emulated.yaml

Reads every run's profile of an emulated-mode results directory (the
workflow's ``simprof_profile`` outputs) and, for each variant of the CPI
model, rebuilds the profile's ``perf`` table with that variant's cycles,
then runs the workflow's own phase formation and sampling study on it
(``run.phases_stage``, ``run.sampling_stage``, the configuration's
parameters) and prints, per run and averaged over the runs that are not
repeats: the measure's population CoV, the phases found, and the mean
20-point error of SimProf, SRS, CODE and SECOND.  Variants:

- ``configured``: the model as configured (``simprof.emulated``), every term;
- ``no-branches``, ``no-instruction-fetch``: without the misprediction
  term, without the instruction fetches' misses;
- ``data-only``: the data caches' misses alone, the terms of the model
  before SIMPROF_VERSION 6 (the L2 still sees the instruction fetches, so
  its data misses are not exactly version 5's).

The profile's ``perf`` table keeps the plugin's counts beside the modelled
cycles (``emulated.MODEL_COUNTS``), so each variant's cycles are the
model's (``emulated.modelled_cycles``) on the same records.

Nothing is profiled again and the workflow's results are not touched (the
variants are written to a temporary directory).
"""
import argparse
import json
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline_lib.config import load
from pipeline_lib.simprof import emulated, units
from pipeline_lib.simprof.run import phases_stage, repeats, sampling_stage
from pipeline_lib.workflow import Paths
from pipeline_lib.workflow.simprof import stage_options

ROOT = Path(__file__).resolve().parents[1]


#: variant name -> the CPI model's terms it keeps (emulated.TERMS)
VARIANTS = {"configured": emulated.TERMS,
            "no-branches": ("data", "instruction"),
            "no-instruction-fetch": ("data", "branch"),
            "data-only": ("data",)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--configfile", nargs="+", default=["config/config.yaml", "config/simprof-emulated.yaml"])
    ap.add_argument("--runs", default=None, help="comma-separated (default: every configured run)")
    a = ap.parse_args()
    cfg = load(*[ROOT / c for c in a.configfile])
    sp = cfg["simprof"]
    if sp["counter_mode"] != "emulated":
        raise SystemExit(f"{' '.join(a.configfile)}: simprof.counter_mode is {sp['counter_mode']}, not emulated")
    P = Paths(ROOT / cfg["results_dir"])
    mode, measure = "emulated", units.measure_of("emulated", sp["measure"])
    stages = stage_options(sp, mode, measure)       # the options rules/simprof.smk passes
    phases_opts, sampling_opts = stages["phases"], stages["sampling"]
    runs = a.runs.split(",") if a.runs else sorted(sp["runs"])
    infos = []
    for r in runs:
        path = Path(P.simprof("profiles", r, "run.json"))
        if not path.exists():
            raise SystemExit(f"{path}: missing; run the workflow's simprof_profile for '{r}' first")
        infos.append(json.loads(path.read_text()))
    again = repeats(infos)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, terms in VARIANTS.items():
            for r in runs:
                src = Path(P.simprof("profiles", r))
                d = Path(tmp) / name / r
                shutil.copytree(src, d / "profile")
                perf = pd.read_parquet(d / "profile" / "perf.parquet")
                perf["cycles"] = np.rint(emulated.modelled_cycles(perf, sp["emulated"], terms)).astype(np.int64)
                perf.to_parquet(d / "profile" / "perf.parquet")
                ph = phases_stage(r, d / "profile", phases_opts, d / "units.parquet", d / "phases.parquet",
                                  d / "model.json")
                err = sampling_stage(r, d / "units.parquet", sampling_opts, d / "errors.parquet", d / "sizes.parquet")
                u = pd.read_parquet(d / "units.parquet")
                y = u[measure].to_numpy(np.float64)
                mean = err.groupby("method")["error"].mean()
                rows.append({"variant": name, "run": r, "repeat": r in again, "units": len(u),
                             "cov": float(y.std() / y.mean()), "phases": len(ph),
                             **{m: 100 * float(mean.get(m, np.nan)) for m in ("SimProf", "SRS", "CODE", "SECOND")}})
    t = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    print(t.round(3).to_string(index=False))
    avg = t[~t["repeat"]].groupby("variant", sort=False)[["cov", "SimProf", "SRS", "CODE", "SECOND"]].mean()
    avg["SRS / SimProf"] = avg["SRS"] / avg["SimProf"]
    print(f"\nmean over the {int((~t['repeat']).sum() / len(avg))} runs that are not repeats "
          f"(errors in %, 20 points; cov: population CoV of the {measure}):")
    print(avg.round(3).to_string())


if __name__ == "__main__":
    main()
