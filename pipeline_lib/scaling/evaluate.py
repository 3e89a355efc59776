"""Validation of the scaling model (seed 004, section V) on a grid dataset.

A :class:`Grid` holds every kernel instance's time and power at every point
of an (SM count x core clock x memory clock) grid and its counters at every
point, so that any point can serve as the base configuration.  A model is
trained on a random 80 % of the kernels and predicts every other point of
the held-out 20 % from their base-point counters and value; the error of one
prediction is |predicted - measured| / measured (V-A).  Splits are seeded and
repeated (the seed used one split; several make the averages stable).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .counters import FEATURE_NAMES
from .model import ASSIGNMENTS, CLASSIFIERS, ScalingModel
from .prior import PRIOR_COLUMN, log2_ratios
from .regression import SurfaceRegression

#: target quantities of the model and their dataset columns
METRICS = {"time": "seconds", "power": "dynamic_power_w"}
#: how a kernel's surface is predicted: ``clusters`` (seed, III-C/D) or ``regression`` (ours, .regression)
METHODS = ("regression", "clusters")
#: the variants every validation compares on the same splits: (method, assignment, classifier)
COMPARED = (("clusters", "hard", "seed"), ("clusters", "soft", "seed"), ("regression", "hard", "seed"))


def variant_name(method: str, assignment: str = "hard", classifier: str = "seed") -> str:
    """``clusters-hard`` (the seed's model), ``clusters-soft``, the same
    with ``-bagged`` for the bagged classifier, or ``regression``."""
    if method not in METHODS:
        raise ValueError(f"scaling.method: {method!r} is not one of {', '.join(METHODS)}")
    if assignment not in ASSIGNMENTS:
        raise ValueError(f"scaling.assignment: {assignment!r} is not one of {', '.join(ASSIGNMENTS)}")
    if classifier not in CLASSIFIERS:
        raise ValueError(f"scaling.classifier: {classifier!r} is not one of {', '.join(CLASSIFIERS)}")
    if method == "regression":
        return "regression"
    return f"clusters-{assignment}" + ("-bagged" if classifier == "bagged" else "")


def load_model(path):
    """A saved :class:`ScalingModel` or :class:`SurfaceRegression` (the file read once)."""
    d = json.loads(Path(path).read_text())
    return (SurfaceRegression if d.get("method", "clusters") == "regression" else ScalingModel).from_dict(d)


def column(prefix: str, variant: str) -> str:
    """The table column of a per-variant figure: ``inner_clusters_hard`` for ("inner", "clusters-hard")."""
    return f"{prefix}_{variant.replace('-', '_')}"


#: histogram bins of Figs. 14 and 17: 10 % wide up to 100 %, then everything above
HIST_EDGES = np.array([0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, np.inf])
#: fine bins (0.05 points up to 1000 %) that pool errors over many bases without keeping them: medians and
#: the coarse histogram come from their counts
FINE_EDGES = np.concatenate([np.arange(0, 1000.0001, 0.05), [np.inf]])


def fine_median(counts: np.ndarray) -> float:
    """The median error (%) of errors counted in :data:`FINE_EDGES` bins,
    linear within its bin (within 0.05 points of the exact one)."""
    total = counts.sum()
    if not total:
        return float("nan")
    cum = np.cumsum(counts)
    i = int(np.searchsorted(cum, total / 2))
    before = cum[i - 1] if i else 0
    hi = FINE_EDGES[i + 1] if np.isfinite(FINE_EDGES[i + 1]) else FINE_EDGES[i]
    return float(FINE_EDGES[i] + (hi - FINE_EDGES[i]) * (total / 2 - before) / counts[i])


def coarse_histogram(counts: np.ndarray) -> np.ndarray:
    """:data:`FINE_EDGES` counts summed into :data:`HIST_EDGES` bins."""
    idx = np.searchsorted(HIST_EDGES, FINE_EDGES[:-1] + 1e-9, side="right") - 1
    return np.bincount(idx, weights=counts, minlength=len(HIST_EDGES) - 1)[:len(HIST_EDGES) - 1].astype(np.int64)


@dataclass
class Grid:
    """Kernel instances x grid arrays (axes ascending)."""
    instances: list
    sm: np.ndarray
    cc: np.ndarray
    mc: np.ndarray
    values: dict        # metric -> (n, nc, ne, nm)
    counters: np.ndarray  # (n, nc, ne, nm, features)

    def index(self, sm: int, cc: int, mc: int) -> tuple[int, int, int]:
        """Grid indices of a point given by its values."""
        out = []
        for axis, name, v in ((self.sm, "sm", sm), (self.cc, "cc", cc), (self.mc, "mc", mc)):
            hit = np.flatnonzero(axis == v)
            if not len(hit):
                raise ValueError(f"{name} = {v} is not on the grid ({', '.join(map(str, axis))})")
            out.append(int(hit[0]))
        return tuple(out)

    def point(self, idx) -> dict:
        return {"sm": int(self.sm[idx[0]]), "cc": int(self.cc[idx[1]]), "mc": int(self.mc[idx[2]])}


def grid_arrays(data: pd.DataFrame, features=FEATURE_NAMES) -> Grid:
    """The :class:`Grid` of a ``dataset.parquet`` table with the counters
    ``features`` (Table II's by default, :data:`.counters.FEATURE_SETS`);
    every kernel instance must be present at every point."""
    axes = {k: np.array(sorted(data[k].unique())) for k in ("sm", "cc", "mc")}
    inst = sorted(data["instance"].unique())
    shape = (len(inst), len(axes["sm"]), len(axes["cc"]), len(axes["mc"]))
    full = pd.MultiIndex.from_product([inst, axes["sm"], axes["cc"], axes["mc"]],
                                      names=["instance", "sm", "cc", "mc"])
    d = data.set_index(["instance", "sm", "cc", "mc"])
    if d.index.duplicated().any():
        raise ValueError(f"dataset: {d.index[d.index.duplicated()][0]} appears twice")
    missing = full.difference(d.index)
    if len(missing):
        raise ValueError(f"dataset: {len(missing)} (instance, sm, cc, mc) points are missing, "
                         f"e.g. {missing[0]}; the grid must be complete")
    d = d.reindex(full)
    values = {m: d[col].to_numpy(float).reshape(shape) for m, col in METRICS.items()}
    for m, v in values.items():
        if not (np.isfinite(v).all() and (v > 0).all()):
            bad = full[np.flatnonzero(~(np.isfinite(v.ravel()) & (v.ravel() > 0)))[0]]
            raise ValueError(f"dataset: {METRICS[m]} must be positive and finite; {bad} is not")
    missing = [f for f in features if f not in d.columns]
    if missing:
        raise ValueError(f"dataset: no column(s) {', '.join(missing)} (made by an older scaling_counters?)")
    plain = [f for f in features if f != PRIOR_COLUMN]
    counters = d[plain].to_numpy(float).reshape(shape + (len(plain),))
    if PRIOR_COLUMN in features:     # GPUMech's cycles -> log2 ratios to every SM count (.prior)
        counters = np.concatenate([counters, log2_ratios(d[PRIOR_COLUMN].to_numpy(float).reshape(shape))], axis=-1)
    return Grid(inst, axes["sm"], axes["cc"], axes["mc"], values, counters)


def energy_spread(grid: Grid) -> float:
    """How far power is from a function of run time: the mean, over kernel
    instances, core clocks and ordered pairs of (SM count, DRAM clock)
    points at that core clock, of |E_target / E_base - 1|, E = power x
    time.  It is also the error of predicting power from the measured run
    time alone (P_target = P_base x T_base / T_target, the same energy at the
    same core voltage).  Near 0 when every energy is a count of events that
    does not depend on the configuration (power model version 1)."""
    e = grid.values["power"] * grid.values["time"]                   # (n, sm, cc, mc)
    e = np.moveaxis(e, 2, 1).reshape(e.shape[0], e.shape[2], -1)      # (n, cc, sm x mc)
    ratio = e[:, :, :, None] / e[:, :, None, :]                       # target over base
    off = ~np.eye(e.shape[2], dtype=bool)
    return float(np.abs(ratio - 1.0)[:, :, off].mean())


def splits(n: int, holdout: float, n_splits: int, seed: int,
           groups=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` random (train, test) partitions of ``n`` kernels; split i
    uses seed + i.  Without ``groups``, round(holdout x n) (at least one)
    kernels are held out.  With ``groups`` (one label per kernel: its
    application), round(holdout x applications) (at least one) whole
    applications are held out, so that no kernel of a held-out application
    -- the same code on another input, or another kernel of the same
    program -- is in training (ours; the seed's split is by kernel, V)."""
    if groups is None:
        groups = np.arange(n)
    groups = np.asarray(groups)
    if len(groups) != n:
        raise ValueError(f"{len(groups)} group labels for {n} kernel instances")
    labels = np.unique(groups)
    n_test = max(1, int(round(holdout * len(labels))))
    out = []
    for i in range(n_splits):
        held = labels[np.random.default_rng(seed + i).permutation(len(labels))[:n_test]]
        test = np.isin(groups, held)
        if (~test).sum() < 2:
            raise ValueError(f"{n} kernel instances in {len(labels)} groups: too few to hold out {n_test} "
                             f"group(s) and train on at least 2 kernels")
        out.append((np.flatnonzero(~test), np.flatnonzero(test)))
    return out


def relative_errors(pred: np.ndarray, true: np.ndarray, base: tuple[int, int, int]) -> np.ndarray:
    """|pred - true| / true at every grid point but the base: (kernels, targets)."""
    err = np.abs(pred - true) / true
    keep = np.ones(true.shape[1:], bool)
    keep[base] = False
    return err[:, keep]


def fit_model(grid: Grid, metric: str, base, train: np.ndarray, k: int, seed: int, method: str = "clusters",
              assignment: str = "hard", classifier: str = "seed", groups=None):
    """A model of ``method`` trained on kernels ``train`` with their
    counters at ``base``; ``groups`` (a label per kernel of the grid)
    groups the bagged classifier's inner folds."""
    c, e, m = base
    variant_name(method, assignment, classifier)
    x, v = grid.counters[train][:, c, e, m], grid.values[metric][train]
    if method == "regression":
        return SurfaceRegression(base=base, seed=seed).fit(v, x)
    model = ScalingModel(n_clusters=k, base=base, seed=seed, assignment=assignment, classifier=classifier)
    return model.fit(v, x, None if groups is None else np.asarray(groups)[train])


def held_out_errors(grid: Grid, metric: str, base, train, test, k: int, seed: int, model=None) -> np.ndarray:
    """Relative errors (test kernels, targets) of a model trained on ``train``."""
    model = model or fit_model(grid, metric, base, train, k, seed)
    v = grid.values[metric]
    pred = model.predict_grid(grid.counters[test][:, base[0], base[1], base[2]], v[test][:, base[0], base[1], base[2]])
    return relative_errors(pred, v[test], base)


def _variant_errors(grid: Grid, metric: str, base, train, test, k: int, seed: int, variants, groups=None) -> dict:
    """{variant name: held-out errors} of (method, assignment[, classifier])
    ``variants`` on one split; clustered variants with the same classifier
    share one fit (the assignment only changes how its networks' outputs
    are used)."""
    out, fitted = {}, {}
    for method, assignment, *rest in variants:
        classifier = rest[0] if rest else "seed"
        if method == "clusters":
            if classifier not in fitted:
                fitted[classifier] = fit_model(grid, metric, base, train, k, seed, classifier=classifier,
                                               groups=groups)
            model = fitted[classifier]
            model.assignment = assignment
        else:
            model = fit_model(grid, metric, base, train, k, seed, method)
        out[variant_name(method, assignment, classifier)] = held_out_errors(grid, metric, base, train, test, k,
                                                                            seed, model)
    return out


def base_errors(grid: Grid, metric: str, bases, parts, k: int, seed: int, progress=None,
                variants=(("clusters", "hard"),), groups=None, label: str = "bases",
                fine: dict | None = None) -> pd.DataFrame:
    """For every base of ``bases`` (grid indices), the mean held-out error
    over all targets and splits of each (method, assignment[, classifier])
    of ``variants``, on the same splits.  ``fine``, when given, gathers
    each variant's errors (%) over all bases, counted in
    :data:`FINE_EDGES` bins ({variant name: counts})."""
    rows = []
    fine = {} if fine is None else fine
    for base in bases:
        errs: dict = {}
        for i, (tr, te) in enumerate(parts):
            for name, e in _variant_errors(grid, metric, base, tr, te, k, seed + i, variants, groups).items():
                errs.setdefault(name, []).append(e.ravel())
        for name, e in errs.items():
            e = np.concatenate(e)
            fine[name] = fine.get(name, 0) + np.histogram(100 * e, FINE_EDGES)[0]
            rows.append({"metric": metric, "method": name, **grid.point(base), "k": k,
                         "mean_error": float(e.mean()), "median_error": float(np.median(e)),
                         "predictions": len(e)})
        if progress:
            p = grid.point(base)
            progress(f"{label} {metric}: base sm{p['sm']}-cc{p['cc']}-mc{p['mc']}: " +
                     ", ".join(f"{r['method']} {100 * r['mean_error']:.1f}%" for r in rows[-len(errs):]))
    return pd.DataFrame(rows)


def heatmap(grid: Grid, metric: str, core_clocks, parts, k: int, seed: int, progress=None,
            variants=(("clusters", "hard"),), groups=None, fine: dict | None = None) -> pd.DataFrame:
    """Figs. 10 and 11: :func:`base_errors` at every (SM count, memory
    clock) base at each of ``core_clocks``."""
    bases = [grid.index(sm, cc, mc) for cc in core_clocks for sm in grid.sm for mc in grid.mc]
    return base_errors(grid, metric, bases, parts, k, seed, progress, variants, groups, "heat map", fine)


def histogram_rows(metric: str, method: str, pool: str, k: int, counts) -> list[dict]:
    """Rows of ``histogram.parquet``: one per :data:`HIST_EDGES` bin."""
    return [{"metric": metric, "method": method, "pool": pool, "k": k, "bin_lo_pct": float(lo),
             "bin_hi_pct": float(hi), "count": int(c)} for lo, hi, c in zip(HIST_EDGES[:-1], HIST_EDGES[1:], counts)]


def cluster_study(grid: Grid, metric: str, bases, cluster_counts, hist_k, parts, seed: int,
                  progress=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Figs. 13/16 (mean held-out error per base and k) and 14/17 (error
    histogram per k over all those bases and splits)."""
    rows, hist = [], []
    for k in cluster_counts:
        pooled = []
        for base in bases:
            errs = np.concatenate([held_out_errors(grid, metric, base, tr, te, k, seed + i).ravel()
                                   for i, (tr, te) in enumerate(parts)])
            pooled.append(errs)
            rows.append({"metric": metric, "method": variant_name("clusters"), **grid.point(base), "k": k,
                         "mean_error": float(errs.mean()), "median_error": float(np.median(errs)),
                         "predictions": len(errs)})
        if progress:
            progress(f"clusters {metric}: k={k}: {100 * np.concatenate(pooled).mean():.1f}%")
        if k in hist_k:
            counts, _ = np.histogram(100 * np.concatenate(pooled), HIST_EDGES)
            hist += histogram_rows(metric, variant_name("clusters"), "study bases", k, counts)
    return pd.DataFrame(rows), pd.DataFrame(hist)


def error_sources(grid: Grid, metric: str, base, parts, k: int, seed: int) -> dict:
    """V-B2: mean error on the training kernels with the oracle classifier
    (k-means' own labels: clustering error alone) and with the networks
    (clustering + classification); on the held-out kernels with the
    networks and with the nearest cluster to their measured scaling (how
    well the clusters represent unseen kernels: what a perfect classifier
    would reach).  The held-out error is also split by target: at the
    base's SM count (only the core- and DRAM-clock sets are used) and at
    other SM counts (the SM-count set too), and given with the nearest
    SM-count cluster in place of that set's network (what a perfect
    SM-count classifier alone would reach).  The regression (ours), which
    has no clusters to separate, is split by target the same way on the
    same splits."""
    v = grid.values[metric]
    c, e, m = base
    same_sm = np.zeros(v.shape[1:], bool)
    same_sm[c] = True
    same_sm[base] = False
    other_sm = ~same_sm
    other_sm[base] = False
    out = {name: [] for name in ("oracle", "train_nn", "held", "held_oracle", "same", "other", "cu_oracle",
                                 "reg_same", "reg_other")}
    for i, (tr, te) in enumerate(parts):
        model = fit_model(grid, metric, base, tr, k, seed + i)
        x = grid.counters[tr][:, c, e, m]
        t0 = v[tr][:, c, e, m]
        out["oracle"].append(relative_errors(model.predict_grid(x, t0, picks=model.labels_), v[tr], base).ravel())
        out["train_nn"].append(relative_errors(model.predict_grid(x, t0), v[tr], base).ravel())
        x, t0 = grid.counters[te][:, c, e, m], v[te][:, c, e, m]
        err = np.abs(model.predict_grid(x, t0) - v[te]) / v[te]
        out["held"].append(err[:, same_sm | other_sm])
        out["same"].append(err[:, same_sm])
        out["other"].append(err[:, other_sm])
        best = model.nearest_clusters(v[te])
        out["held_oracle"].append(relative_errors(model.predict_grid(x, t0, picks=best), v[te], base).ravel())
        picks = {**model.picks(x), "cu": best["cu"]}
        out["cu_oracle"].append((np.abs(model.predict_grid(x, t0, picks=picks) - v[te]) / v[te])[:, other_sm])
        reg = fit_model(grid, metric, base, tr, k, seed + i, method="regression")
        err = np.abs(reg.predict_grid(x, t0) - v[te]) / v[te]
        out["reg_same"].append(err[:, same_sm])
        out["reg_other"].append(err[:, other_sm])
    mean = {name: float(np.concatenate([a.ravel() for a in arrays]).mean()) if arrays[0].size else float("nan")
            for name, arrays in out.items()}
    return {"metric": metric, **grid.point(base), "k": k,
            "train_oracle": mean["oracle"], "train_network": mean["train_nn"],
            "held_out": mean["held"], "held_out_oracle": mean["held_oracle"],
            "held_out_same_sm": mean["same"], "held_out_other_sm": mean["other"],
            "held_out_other_sm_cu_oracle": mean["cu_oracle"],
            "regression_same_sm": mean["reg_same"], "regression_other_sm": mean["reg_other"]}


def inner_choice(grid: Grid, metric: str, base, parts, k: int, seed: int, groups=None, folds: int = 4,
                 variants=COMPARED) -> dict:
    """Which variant a user would choose without the held-out kernels: on
    each outer split, the training kernels alone are split again into
    ``folds`` folds (grouped like the outer split, by application when
    ``groups`` is given) and every variant is scored on them.  Returns, per
    variant, the mean inner error and in how many outer splits it had the
    lowest (the nested split of docs/scaling.md, Model variants; the
    held-out kernels never enter it)."""
    from sklearn.model_selection import GroupKFold

    groups = np.arange(len(grid.instances)) if groups is None else np.asarray(groups)
    names = [variant_name(*v) for v in variants]
    inner = {n: [] for n in names}
    wins = dict.fromkeys(names, 0)
    for i, (tr, _) in enumerate(parts):
        errs = {n: [] for n in names}
        n_folds = min(folds, len(np.unique(groups[tr])))
        for itr, iva in GroupKFold(n_folds).split(tr, groups=groups[tr]):
            for n, e in _variant_errors(grid, metric, base, tr[itr], tr[iva], k, seed + i, variants,
                                        groups).items():
                errs[n].append(e.ravel())
        means = {n: float(np.concatenate(e).mean()) for n, e in errs.items()}
        wins[min(means, key=means.get)] += 1
        for n, v in means.items():
            inner[n].append(v)
    return {"metric": metric, **grid.point(base), "folds": folds,
            **{column("inner", n): float(np.mean(v)) for n, v in inner.items()},
            **{column("inner_wins", n): wins[n] for n in names}}
