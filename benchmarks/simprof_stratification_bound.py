"""How far any stratification of a run's units could take SimProf's lead over
SRS (docs/simprof.md, "What stratification can gain on these units").

    .venv/bin/python benchmarks/simprof_stratification_bound.py [--results results-emulated] [--points 20]
        [--scale 1000]

Reads each run's ``simprof/phases/<run>/units.parquet`` (the workflow's
``simprof_phases`` output; the measure the phases were formed against) and,
per population of the sampling study (``run.populations``: each executor
thread with more units than the sample), compares standard errors of the
mean at the sample size every method gets (``--points``), all from the
profiled values, with the finite population correction (eq. 36) and eq. 33's
allocation as the workflow computes them (``sampling.optimal_allocation``,
at least one unit per stratum):

- SRS: the units as one stratum;
- SimProf: the run's own phases (the silhouette rule's k, 5.3.2);
- oracle: the best k strata by eq. 33's criterion -- the units sorted by the measure
  itself and cut where the sum of N_h sigma_h, eq. 33's allocation term, is
  least (Dalenius' optimal strata; a dynamic program over the cut points).
  No method could form these: they are cut on the values sampling is meant
  to estimate.  They bound what any k phases could gain.

and two designs SimProf's data allow, to tell how much of the oracle's
lead they reach:

- SimProf at its best k: the run's k-means for every k = 1..k_max on the
  phases' selected methods (``phases.kmeans_fits``, the seed the phases
  used), each k's standard error computed as above, the least of them.
  Chosen by the profiled values themselves, so an upper figure for any
  rule for k;
- CODE's strata: its call-stack phases (the units table's ``code_phase``)
  with one unit drawn at random in each, the design its phases allow at
  ``--points`` (fewer units where CODE found fewer distinct call-stack
  mixes; CODE itself takes the unit nearest each centre, one
  deterministic estimate whose error is one draw of this);

and, in emulated mode, what the unit's instruction mix (memory accesses
and branches per instruction, counts a PMU also has; not the CPI's own
miss terms) tracks: with R^2 the share of the measure's variance a linear
fit on the mix explains, fine strata on the mix would give an SE ratio of
1 / sqrt(1 - R^2) if the measure followed it linearly (an estimate, not a
bound: a dependence that is not linear could give more).

Prints, per population, SRS / SimProf and SRS / oracle standard-error
ratios (the mean absolute error of an unbiased estimate is its standard
error times sqrt(2 / pi) when it is near normal, so the ratios of errors
follow), beside the ratio of the sampling study's measured mean errors
(``simprof/sampling/<run>/errors.parquet``) when it is there; then the
smallest k at which the oracle reaches ``--target`` (the issue's 4x).
A run that profiles the same job and input as an earlier one (a control
set's second profile) is printed but left out of the means, as the
workflow's summary leaves it out of its averages.

``--scale S`` computes every design's standard error as if each unit
stood for S alike (N_h times S, the same sigma_h): the same phases in a
population so large that the sample is a small share of it, as the seed's
thousands of units per thread were.  The sample of 20 is a large share of
these runs' 28 to 135 units per thread, and where it takes most of a
population, the finite population correction and small phases sampled
whole shrink a stratified design's standard error far more than SRS's
(the measured column is the sampling study's, at the real size).  The
best-k and CODE columns are left out there: their many strata hold one or
two units each, whose sigma_h (zero for one unit) says nothing of a large
population's.
"""
import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline_lib.simprof.phases import kmeans_fits
from pipeline_lib.simprof.run import populations, read_profile, repeats, units_and_frequencies
from pipeline_lib.simprof.sampling import optimal_allocation, phase_stds, strata, stratified_se
from pipeline_lib.simprof.units import form_units, series_of


def standard_error(values, labels, n: int, scale: int = 1) -> float:
    """Standard error of the stratified mean of ``n`` units with eq. 33's
    allocation, the profiled sigma_h standing in for s_h; with ``scale``,
    of a population in which each unit stands for that many alike
    (``--scale``)."""
    phases, sizes = strata(labels)
    stds = phase_stds(values, labels, phases)
    sizes = sizes * scale
    return stratified_se(sizes, optimal_allocation(sizes, stds, n), stds)


MIX = ("mem_accesses", "branches")      # the emulated mode's per-thread counts a PMU also has


def from_profile(phases_dir: Path, profiles_dir: Path, k_max: int):
    """From the run's profile and ``model.json``: {k: unit labels} of its
    k-means on the phases' selected methods for k = 1..k_max, and each
    unit's instruction mix (:data:`MIX` per instruction; emulated mode
    only, else None). (None, None) where the profile is not there."""
    model = json.loads((phases_dir / "model.json").read_text())
    if not (profiles_dir / "run.json").exists():
        return None, None
    if "frame_types" not in model:
        raise SystemExit(f"{phases_dir / 'model.json'}: phases from before SIMPROF_VERSION 8 (no frame_types or "
                         "seed); run the workflow's simprof_phases again")
    mode, size = model["counter_mode"], model["unit_size"]
    tables = read_profile(profiles_dir, mode)
    _, F, _ = units_and_frequencies(tables, mode, size, model["methods"], model["frame_types"])
    by_k = ({k: labels for k, (labels, _) in kmeans_fits(F.toarray(), k_max, model["seed"]).items()}
            if k_max > 0 else {})
    if mode != "emulated":
        return by_k, None
    # the same units, with the mix's counts per instruction in place of the mode's measures
    u, _ = form_units(series_of(tables, mode), tables["samples"], tables["tasks"], mode, size,
                      {c: ("", (c,), 1.0) for c in MIX})
    mix = u[list(MIX)].to_numpy(np.float64)
    return by_k, mix


def explained(y, X) -> float:
    """R^2 of the least-squares fit of ``y`` on ``X`` and a constant."""
    A = np.column_stack([np.ones(len(y)), X])
    r = y - A @ np.linalg.lstsq(A, y, rcond=None)[0]
    return float(1.0 - r.var() / y.var()) if y.var() > 0 else 0.0


def oracle_labels(values, k: int) -> np.ndarray:
    """Labels of the k strata, contiguous in sorted order of ``values``,
    that minimise sum_h N_h sigma_h (population sigma)."""
    order = np.argsort(values, kind="stable")
    y = np.asarray(values, np.float64)[order]
    N = len(y)
    c1 = np.concatenate([[0.0], np.cumsum(y)])
    c2 = np.concatenate([[0.0], np.cumsum(y * y)])

    def cost(i, j):      # N sigma of y[i:j], vectorised over i
        m = j - i
        return np.sqrt(np.maximum(m * (c2[j] - c2[i]) - (c1[j] - c1[i]) ** 2, 0.0))

    best = np.full((k + 1, N + 1), np.inf)
    cut = np.zeros((k + 1, N + 1), np.int64)
    best[0, 0] = 0.0
    for h in range(1, k + 1):
        for j in range(h, N + 1):
            i = np.arange(h - 1, j)
            total = best[h - 1, i] + cost(i, j)
            a = int(np.argmin(total))
            best[h, j], cut[h, j] = total[a], i[a]
    labels = np.empty(N, np.int64)
    j = N
    for h in range(k, 0, -1):
        labels[order[cut[h, j]:j]] = h - 1
        j = cut[h, j]
    return labels


def _x(ratio) -> str:
    return "-" if np.isnan(ratio) else f"{ratio:.2f}x"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="results-emulated", help="results directory of the runs")
    ap.add_argument("--measure", default="cpi", help="units table column the phases were formed against")
    ap.add_argument("--points", type=int, default=20, help="sample size of every method (the seed's 20)")
    ap.add_argument("--target", type=float, default=4.0, help="SRS / stratified error ratio asked for")
    ap.add_argument("--max-k", type=int, default=20, help="largest oracle k tried (the seed's k_max)")
    ap.add_argument("--scale", type=int, default=1,
                    help="each unit stands for this many alike (a population as large as the seed's)")
    args = ap.parse_args()
    if args.scale < 1:
        raise SystemExit(f"--scale {args.scale}: must be at least 1")
    root = Path(args.results) / "simprof"
    paths = sorted((root / "phases").glob("*/units.parquet"))
    if not paths:
        raise SystemExit(f"{root / 'phases'}: no units.parquet (run the workflow's simprof_phases first)")
    print(f"{'run':<22}{'thread':>7}{'units':>7}{'k':>4}  {'SRS/SimProf':>11}  {'measured':>8}  "
          f"{'best k':>12}  {'SRS/CODE':>8}  {'mix':>6}  {'SRS/oracle(k)':>13}  {'oracle k for ' + format(args.target, 'g') + 'x':>16}")
    # a second profile of a run (a control set's) is shown but left out of the means, as in the summary
    info = [json.loads(f.read_text()) for f in (root / "profiles" / p.parent.name / "run.json" for p in paths)
            if f.exists()]
    repeat = repeats(info)
    S = args.scale
    real_size = S == 1
    rows = []
    for path in paths:
        run = path.parent.name
        u = pd.read_parquet(path)
        if args.measure not in u:
            raise SystemExit(f"{path}: no column {args.measure!r} (columns: {', '.join(u.columns)})")
        errors = root / "sampling" / run / "errors.parquet"
        err = pd.read_parquet(errors) if errors.exists() else None
        by_k, mix = from_profile(path.parent, root / "profiles" / run, args.max_k if real_size else 0)
        for tid, idx in populations(u, args.points):
            y = u[args.measure].to_numpy(np.float64)[idx]
            labels = u["phase"].to_numpy()[idx]
            k = len(np.unique(labels))
            srs = standard_error(y, np.zeros(len(y), np.int64), args.points, S)
            mine = srs / standard_error(y, labels, args.points, S)
            # best k and CODE's strata only at the real size: their strata of one or two units have no
            # usable sigma_h to carry to a large population (module docstring)
            best, best_k, code_ratio = np.nan, "-", np.nan
            if real_size:
                if by_k is not None:
                    any_k = {kk: srs / standard_error(y, lab[idx], args.points) for kk, lab in by_k.items()}
                    best_k = max(any_k, key=lambda kk: (any_k[kk], -kk))
                    best = any_k[best_k]
                code = u["code_phase"].to_numpy()[idx]
                phases, sizes = strata(code)
                code_se = stratified_se(sizes, np.ones_like(sizes), phase_stds(y, code, phases))
                code_ratio = srs / code_se if code_se > 0 else np.inf
            # fine strata on a covariate the measure follows linearly leave 1 - R^2 of its variance
            mix_ratio = np.nan if mix is None else 1.0 / np.sqrt(max(1.0 - explained(y, mix[idx]), 1e-12))
            # the oracle's ratio at every k tried, each cut once
            ratios = {kk: srs / standard_error(y, oracle_labels(y, kk), args.points, S)
                      for kk in range(1, max(k, min(args.max_k, args.points)) + 1)}
            oracle = ratios[k]
            reach = next((kk for kk in range(1, min(args.max_k, args.points) + 1) if ratios[kk] >= args.target), None)
            measured = np.nan
            if err is not None:
                e = err[err["thread"] == tid].groupby("method")["error"].mean()
                measured = e["SRS"] / e["SimProf"]
            if run not in repeat:
                rows.append((mine, best, code_ratio, mix_ratio, oracle))
            best_col = "-" if np.isnan(best) else f"{best:.2f}x k={best_k}"
            name = f"{run} (repeat)" if run in repeat else run
            print(f"{name:<22}{tid:>7}{len(y):>7}{k:>4}  {mine:>10.2f}x  {measured:>7.2f}x  "
                  f"{best_col:>12}  {_x(code_ratio):>8}  {_x(mix_ratio):>6}  {oracle:>12.2f}x  "
                  f"{reach if reach else '> ' + str(min(args.max_k, args.points)):>16}")
    mine, best, code, mix, oracle = np.array(rows).T
    at = "" if real_size else f" (each unit standing for {S})"
    if repeat:
        at += f", repeats left out ({', '.join(sorted(repeat))})"
    parts = [f"SRS/SimProf {mine.mean():.2f}x"]
    if real_size:
        parts += [f"at its best k {np.nanmean(best):.2f}x", f"SRS/CODE's strata {code.mean():.2f}x"]
    if not np.isnan(mix).all():
        parts.append(f"instruction mix (linear) {np.nanmean(mix):.2f}x")
    parts.append(f"SRS/oracle at SimProf's k {oracle.mean():.2f}x")
    print(f"mean over {len(rows)} populations{at}: " + ", ".join(parts))


if __name__ == "__main__":
    main()
