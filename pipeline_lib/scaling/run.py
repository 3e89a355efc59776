"""Entry points of the scaling rules (rules/scaling.smk; tables in
docs/scaling.md): kernel profiles, the grid dataset, the trained model,
its validation (seed 004, section V) and predictions for new kernels."""
from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from ..io import F64, I32, I64, STR, progress, stage_writer, write_text
from ..plots import pyplot, save
from ..sweeps import heatmap_clocks, middle_point, study_points
from ..versions import SCALING_VERSION
from . import evaluate as ev
from .counters import EXTENDED, FEATURES, MIX_COUNTS, feature_set, kernel_counters, kernel_mix
from .prior import PRIOR_COLUMN, corner_clocks, log2_ratios, sm_prior

MIX = [("kernel", STR, "")] + [(c, I64, "warp instructions" if c != "thread_instrs" else "")
                                for c in MIX_COUNTS]
COUNTERS = [("launches", I32, "launches of the kernel"), ("cycles", I64, "summed over its launches"),
            ("seconds", F64, "run time: cycles / core clock"),
            ("dynamic_power_w", F64, "dynamic energy / run time")] + [(f, F64, f"{seed}: {d}")
                                                                     for f, seed, d in FEATURES + EXTENDED]
#: a workload's rows of the dataset (rule scaling_counters)
COUNTER_ROWS = [("workload", STR, ""), ("kernel", STR, ""), ("instance", STR, "workload:kernel (kernel x input)"),
                ("point", STR, "hardware variant name"), ("sm", I64, "SM count"), ("cc", I64, "core clock, MHz"),
                ("mc", I64, "DRAM clock, MHz")] + COUNTERS
DATASET = COUNTER_ROWS + [
    (PRIOR_COLUMN, F64, "GPUMech's predicted cycles of the kernel (MT_CONTENTION) at the points the SM-scaling "
                        "prior is needed at (rule scaling_prior); empty elsewhere")]
PRIOR = [("workload", STR, ""), ("kernel", STR, ""), ("instance", STR, "workload:kernel"),
         ("point", STR, "hardware variant name"), ("sm", I64, ""), ("cc", I64, ""), ("mc", I64, ""),
         (PRIOR_COLUMN, F64, "GPUMech's predicted cycles of the kernel, its launches summed")]
PREDICTIONS = [
    ("workload", STR, ""), ("kernel", STR, ""), ("point", STR, "target hardware variant name"),
    ("sm", I64, ""), ("cc", I64, ""), ("mc", I64, ""),
    ("seconds", F64, "predicted run time (the measured one at the base)"),
    ("dynamic_power_w", F64, "predicted dynamic power (the measured one at the base)")]
HEATMAP = [("metric", STR, "time or power"),
           ("method", STR, "model variant: clusters-hard (the seed's model), clusters-soft, either with -bagged, "
                           "or regression (docs/scaling.md, Model variants)"),
           ("sm", I64, "base SM count"), ("cc", I64, "base core clock"),
           ("mc", I64, "base DRAM clock"), ("k", I64, "clusters per set"),
           ("mean_error", F64, "mean |predicted - measured| / measured over held-out kernels, targets, splits"),
           ("median_error", F64, "median of the same errors"),
           ("predictions", I64, "errors averaged")]
HISTOGRAM = [("metric", STR, ""), ("method", STR, "model variant"),
             ("pool", STR, "the bases pooled: study bases (the seed's model per k) or heat-map bases (every variant)"),
             ("k", I64, ""), ("bin_lo_pct", F64, "error bin, %"), ("bin_hi_pct", F64, ""),
             ("count", I64, "predictions in the bin")]
INNER_VARIANTS = [ev.variant_name(*v) for v in ev.COMPARED]
SOURCES = [("metric", STR, ""), ("sm", I64, "base"), ("cc", I64, ""), ("mc", I64, ""), ("k", I64, ""),
           ("train_oracle", F64, "training kernels, k-means' own cluster (clustering error alone)"),
           ("train_network", F64, "training kernels, the networks' choice"),
           ("held_out", F64, "held-out kernels, the networks' choice"),
           ("held_out_oracle", F64, "held-out kernels, the cluster nearest their measured scaling"),
           ("held_out_same_sm", F64, "held-out kernels, the networks' choice, targets at the base's SM count"),
           ("held_out_other_sm", F64, "held-out kernels, the networks' choice, targets at other SM counts"),
           ("held_out_other_sm_cu_oracle", F64, "the same with the SM-count cluster nearest their measured "
                                                "scaling (the other sets' networks as before)"),
           ("regression_same_sm", F64, "held-out kernels, the regression, targets at the base's SM count"),
           ("regression_other_sm", F64, "held-out kernels, the regression, targets at other SM counts"),
           ("folds", I64, "inner folds of the nested split (training kernels of each outer split only)")] + [
    (ev.column("heat_median", n), F64, f"{n}: median error over every heat-map base's predictions")
    for n in INNER_VARIANTS] + [
    (ev.column("inner", n), F64, f"{n}: mean error on the inner folds") for n in INNER_VARIANTS] + [
    (ev.column("inner_wins", n), I64, f"outer splits in which {n} had the lowest inner error")
    for n in INNER_VARIANTS]


_write = stage_writer("scaling_version", SCALING_VERSION)
_log = progress


# -- profiles and dataset ----------------------------------------------------------------------------------------
def profile_stage(wl: str, trace_dir, out) -> None:
    """The hardware-independent instruction mix of every kernel of ``wl``."""
    t = Path(trace_dir)
    mix = kernel_mix(pd.read_parquet(t / "instructions.parquet"), pd.read_parquet(t / "launches.parquet"),
                     t / "warp_trace.parquet")
    _write(mix, MIX, "scaling_profile", out, workload=wl)


def counters_at(profile, trace_launches, sim_dir, hw: dict) -> pd.DataFrame:
    """Per kernel of one workload: time, power and Table II features from
    its simulation at ``hw`` (files of ``sim_dir``)."""
    return _counters(pd.read_parquet(profile), pd.read_parquet(trace_launches), sim_dir, hw)


def _counters(profile: pd.DataFrame, trace_launches: pd.DataFrame, sim_dir, hw: dict) -> pd.DataFrame:
    s = Path(sim_dir)
    return kernel_counters(profile, trace_launches, pd.read_parquet(s / "launches.parquet"),
                           pd.read_parquet(s / "activity.parquet"), pd.read_parquet(s / "power.parquet"), hw)


def counters_stage(wl: str, sweep: str, points: list[dict], profile, trace_launches, out) -> pd.DataFrame:
    """The dataset's rows of one workload: one per (kernel, sweep point).
    Each of ``points`` names its grid point (``name``, ``sm``, ``cc``,
    ``mc``), its ``hardware`` and the ``sim_dir`` of its simulation."""
    prof, launches = pd.read_parquet(profile), pd.read_parquet(trace_launches)
    parts = []
    start = last = time.monotonic()
    for n, pt in enumerate(points):
        now = time.monotonic()
        if now - last >= 30.0:
            _log(f"{sweep}: {wl}: read {n} of {len(points)} simulations, {now - start:.0f} s")
            last = now
        c = _counters(prof, launches, pt["sim_dir"], pt["hardware"])
        c.insert(0, "workload", wl)
        c.insert(2, "instance", wl + ":" + c["kernel"])
        for i, k in enumerate(("point", "sm", "cc", "mc")):
            c.insert(3 + i, k, pt["name"] if k == "point" else int(pt[k]))
        parts.append(c)
    data = pd.concat(parts, ignore_index=True)
    _write(data, COUNTER_ROWS, "scaling_counters", out, sweep=sweep, workload=wl)
    _log(f"{sweep}: {wl}: {data['instance'].nunique()} kernel instances x {len(points)} points")
    return data


def prior_stage(wl: str, sweep: str, trace_dir, analysed: str, points: list[dict], out, sync: dict | None = None,
                pacing: bool = False) -> pd.DataFrame:
    """GPUMech's predicted cycles of every kernel of ``wl`` at ``points``
    (:func:`.prior.sm_prior`), the SM-scaling prior's input."""
    data = sm_prior(trace_dir, analysed, points, sync, pacing)
    data.insert(0, "workload", wl)
    data.insert(2, "instance", wl + ":" + data["kernel"])
    _write(data, PRIOR, "scaling_prior", out, sweep=sweep, workload=wl, analysed=analysed)
    return data


def dataset_stage(sweep: str, parts: list, out, priors: list = ()) -> pd.DataFrame:
    """One row per (kernel instance, grid point), from the workloads' tables
    of :func:`counters_stage`, with GPUMech's cycles from ``priors``
    (:func:`prior_stage`) where computed; checked to be a complete,
    positive grid."""
    data = pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)
    if priors:
        keys = ["instance", "sm", "cc", "mc"]
        prior = pd.concat([pd.read_parquet(p, columns=keys + [PRIOR_COLUMN]) for p in priors], ignore_index=True)
        data = data.merge(prior, on=keys, how="left", validate="one_to_one")
    else:
        data[PRIOR_COLUMN] = np.nan
    data = data.sort_values(["instance", "sm", "cc", "mc"], kind="stable")
    ev.grid_arrays(data)        # a complete, positive grid, or a clear error now
    _write(data.reset_index(drop=True), DATASET, "scaling_dataset", out, sweep=sweep)
    _log(f"{sweep}: {data['instance'].nunique()} kernel instances x {data['point'].nunique()} points")
    return data


# -- base points ---------------------------------------------------------------------------------------------------
def base_index(grid: ev.Grid, base: dict) -> tuple[int, int, int]:
    """Grid indices of a configured base ({} = the middle of each axis)."""
    b = base or middle_point(grid.sm, grid.cc, grid.mc)
    return grid.index(b["sm"], b["cc"], b["mc"])


def study_bases(grid: ev.Grid, bases: list) -> list[tuple[int, int, int]]:
    """Configured bases, or the middle and the four (SM count, memory
    clock) corners at the highest core clock."""
    return [grid.index(p["sm"], p["cc"], p["mc"]) for p in study_points(grid.sm, grid.cc, grid.mc, bases)]


# -- training and prediction ---------------------------------------------------------------------------------------
def train_stage(dataset, base: dict, k: int, seed: int, out_paths: dict, features: str = "seed",
                method: str = "clusters", assignment: str = "hard", classifier: str = "seed",
                split_by: str = "instance", applications: dict | None = None) -> None:
    """The model artifact, one per metric, trained on every kernel instance
    with the counters of ``features`` (``scaling.features``) by ``method``
    (``scaling.method``, ``scaling.assignment``, ``scaling.classifier``;
    the bagged classifier's inner folds grouped as ``split_by``)."""
    names = feature_set(features)
    grid = ev.grid_arrays(pd.read_parquet(dataset), names)
    b = base_index(grid, base)
    groups = split_groups(grid, split_by, applications or {})
    variant = ev.variant_name(method, assignment, classifier)
    for metric, path in out_paths.items():
        model = ev.fit_model(grid, metric, b, np.arange(len(grid.instances)), k, seed, method, assignment,
                             classifier, groups)
        model.meta_ = {"metric": metric, "column": ev.METRICS[metric], "features": names, "feature_set": features,
                       "variant": variant,
                       "sm": grid.sm.tolist(), "cc": grid.cc.tolist(), "mc": grid.mc.tolist(),
                       "base_point": grid.point(b), "kernel_instances": len(grid.instances)}
        model.save(path)
        _log(f"{metric} model ({variant}): base {grid.point(b)}"
             + (f", k = {min(k, len(grid.instances))}" if method == "clusters" else "")
             + f", {len(grid.instances)} kernel instances")


def model_inputs(c: pd.DataFrame, meta: dict, prior=None) -> np.ndarray:
    """A model's inputs (its ``meta_``) for the kernels of ``c``
    (:func:`counters_at`), with GPUMech's SM-scaling prior from ``prior``
    (a table of :func:`prior_stage`; :func:`.prior.log2_ratios`) where the
    model uses it."""
    if PRIOR_COLUMN not in meta["features"]:
        return c[meta["features"]].to_numpy(float)
    if prior is None:
        raise ValueError(f"the model uses GPUMech's prior (scaling.features: {meta.get('feature_set')}); "
                         "no prior table was given")
    b = meta["base_point"]
    table = pd.read_parquet(prior).set_index(["kernel", "sm", "cc", "mc"])[PRIOR_COLUMN].dropna()
    clocks = [(b["cc"], b["mc"])] + corner_clocks(meta["cc"], meta["mc"])     # the points log2_ratios reads
    for k in c["kernel"]:
        for cc, mc in clocks:
            for s in meta["sm"]:
                if (k, s, cc, mc) not in table.index:
                    raise ValueError(f"{prior}: no GPUMech prior for kernel {k} at the base {b} or at "
                                     f"sm = {s}, (cc, mc) = {(cc, mc)}")
    axes = [list(meta[a]) for a in ("sm", "cc", "mc")]
    full = pd.MultiIndex.from_product([list(c["kernel"])] + axes, names=["kernel", "sm", "cc", "mc"])
    cycles = table.reindex(full).to_numpy(float).reshape((len(c),) + tuple(map(len, axes)))
    at = tuple(a.index(b[n]) for a, n in zip(axes, ("sm", "cc", "mc")))
    ratios = log2_ratios(cycles)[(slice(None),) + at]
    return np.concatenate([c[[f for f in meta["features"] if f != PRIOR_COLUMN]].to_numpy(float), ratios], axis=1)


def predict_stage(wl: str, models: dict, profile, trace_launches, sim_dir, hw: dict, base_name: str,
                  point_name, out, prior=None) -> pd.DataFrame:
    """Every grid point of every kernel of ``wl`` from one simulation at the
    models' base configuration (and, for a model on GPUMech's prior, the
    workload's ``prior`` table at the base's clocks): no retraining, no
    sweep.  ``point_name(sm, cc, mc)`` names a target."""
    c = counters_at(profile, trace_launches, sim_dir, hw)
    loaded = {m: ev.load_model(p) for m, p in models.items()}
    rows = None
    for metric, model in loaded.items():
        meta = model.meta_
        if meta["base_point"] != {"sm": hw["cores"], "cc": hw["core_clock_mhz"], "mc": hw["dram"]["clock_mhz"]}:
            raise ValueError(f"{sim_dir}: simulated on {base_name}, but the {metric} model's base is "
                             f"{meta['base_point']}")
        x = model_inputs(c, meta, prior)
        pred = model.predict_grid(x, c[ev.METRICS[metric]].to_numpy(float))
        sm, cc, mc = np.meshgrid(meta["sm"], meta["cc"], meta["mc"], indexing="ij")
        part = pd.DataFrame({"workload": wl, "kernel": np.repeat(c["kernel"].to_numpy(), sm.size),
                             "sm": np.tile(sm.ravel(), len(c)), "cc": np.tile(cc.ravel(), len(c)),
                             "mc": np.tile(mc.ravel(), len(c)), ev.METRICS[metric]: pred.reshape(len(c), -1).ravel()})
        rows = part if rows is None else rows.merge(part, on=["workload", "kernel", "sm", "cc", "mc"])
    rows.insert(2, "point", [point_name(int(a), int(b), int(d)) for a, b, d in rows[["sm", "cc", "mc"]].to_numpy()])
    _write(rows, PREDICTIONS, "scaling_predictions", out, workload=wl, base=base_name)
    return rows


# -- validation ----------------------------------------------------------------------------------------------------
def split_groups(grid: ev.Grid, split_by: str, applications: dict) -> np.ndarray | None:
    """What a split holds out together: ``instance`` (None: kernels one by
    one, the seed's) or ``application`` (the benchmark of each instance's
    workload, from ``applications`` {workload: benchmark})."""
    if split_by == "instance":
        return None
    if split_by != "application":
        raise ValueError(f"scaling.split_by: {split_by!r} is not one of application, instance")
    workloads = [i.split(":", 1)[0] for i in grid.instances]
    missing = sorted({w for w in workloads if w not in applications})
    if missing:
        raise ValueError(f"scaling.split_by: application: no benchmark known for workload(s) {', '.join(missing)}")
    return np.array([applications[w] for w in workloads])


def validate_stage(dataset, metric: str, opts: dict, out_dir) -> None:
    """Heat maps (Figs. 10/11), the cluster-count study (13/16), histograms
    (14/17) and the error sources (V-B2) of one metric."""
    grid = ev.grid_arrays(pd.read_parquet(dataset), feature_set(opts.get("features", "seed")))
    out = Path(out_dir)
    groups = split_groups(grid, opts["split_by"], opts.get("applications", {}))
    parts = ev.splits(len(grid.instances), opts["holdout"], opts["splits"], opts["seed"], groups)
    _log(f"{metric}: {len(grid.instances)} kernel instances, {len(parts)} splits")
    k, seed = opts["clusters"], opts["seed"]
    configured = (opts.get("method", "clusters"), opts.get("assignment", "hard"), opts.get("classifier", "seed"))
    variant = ev.variant_name(*configured)
    variants = list(ev.COMPARED) + [configured] * (variant not in INNER_VARIANTS)
    meta = dict(metric=metric, splits=opts["splits"], holdout=opts["holdout"], split_by=opts["split_by"],
                features=opts.get("features", "seed"), variant=variant)
    ccs = heatmap_clocks(grid.cc, opts["heatmap_cc"])
    # every compared variant on the same splits; the configured one is among them
    fine: dict = {}      # every variant's errors over the heat-map bases, binned (medians, histograms)
    heat = ev.heatmap(grid, metric, ccs, parts, k, seed, _log, variants, groups, fine)
    _write(heat, HEATMAP, "scaling_heatmap", out / "heatmap.parquet", **meta)
    bases = study_bases(grid, opts["study_bases"])
    counts = [c for c in opts["cluster_counts"]]
    study, hist = ev.cluster_study(grid, metric, bases, counts, set(opts["histogram_k"]), parts, seed, _log)
    # every compared variant at the study bases too (the seed's Figs. 13/16 average over such bases)
    others = [v for v in variants if ev.variant_name(*v) != ev.variant_name("clusters")]
    study = pd.concat([study, ev.base_errors(grid, metric, bases, parts, k, seed, _log, others, groups,
                                             "study bases")], ignore_index=True)
    _write(study, HEATMAP, "scaling_clusters", out / "clusters.parquet", **meta)
    hist = pd.concat([hist, pd.DataFrame([r for name, c in fine.items() for r in
                                          ev.histogram_rows(metric, name, "heat-map bases", k,
                                                            ev.coarse_histogram(c))])], ignore_index=True)
    _write(hist, HISTOGRAM, "scaling_histogram", out / "histogram.parquet", **meta)
    b = base_index(grid, opts["base"])
    src = pd.DataFrame([{**ev.error_sources(grid, metric, b, parts, k, seed),
                         **ev.inner_choice(grid, metric, b, parts, k, seed, groups),
                         **{ev.column("heat_median", n): ev.fine_median(fine[n]) / 100
                            for n in INNER_VARIANTS}}])
    _write(src, SOURCES, "scaling_error_sources", out / "sources.parquet", **meta)
    seed_name = ev.variant_name("clusters")
    _figures(grid, metric, heat[heat["method"] == variant], study[study["method"] == seed_name],
             hist[(hist["method"] == seed_name) & (hist["pool"] == "study bases")], out)


def _figures(grid, metric, heat, study, hist, out: Path) -> None:
    """heatmap_cc<MHz>.png (time: Figs. 10, 11), clusters.png (Figs. 13, 16),
    histogram.png (Figs. 14, 17)."""
    plt = pyplot()
    for cc, h in heat.groupby("cc"):
        z = h.pivot(index="mc", columns="sm", values="mean_error").sort_index(ascending=True) * 100
        fig, ax = plt.subplots(figsize=(1 + 0.8 * z.shape[1], 1 + 0.5 * z.shape[0]))
        im = ax.imshow(z.to_numpy(), cmap="RdYlGn_r", vmin=0, vmax=max(30, float(np.nanmax(z.to_numpy()))),
                       origin="lower", aspect="auto")
        for (i, j), v in np.ndenumerate(z.to_numpy()):
            ax.text(j, i, f"{v:.1f}", ha="center", va="center", fontsize=7)
        ax.set_xticks(range(z.shape[1]), z.columns)
        ax.set_yticks(range(z.shape[0]), z.index)
        ax.set_xlabel("base SM count")
        ax.set_ylabel("base DRAM clock (MHz)")
        ax.set_title(f"{metric} ({h['method'].iloc[0]}): held-out error % at {cc} MHz core", fontsize=9)
        fig.colorbar(im, ax=ax)
        save(fig, out / f"heatmap_cc{cc}.png")
    fig, ax = plt.subplots(figsize=(7, 3.5))
    for (sm, cc, mc), s in study.groupby(["sm", "cc", "mc"]):
        ax.plot(s["k"], 100 * s["mean_error"], marker="o", label=f"{sm} SM, {cc}, {mc} MHz")
    avg = study.groupby("k")["mean_error"].mean()
    ax.plot(avg.index, 100 * avg.to_numpy(), color="k", lw=2, label="average")
    ax.set_xticks(sorted(study["k"].unique()))
    ax.set_xlabel("clusters per set")
    ax.set_ylabel("held-out error %")
    ax.set_title(f"{metric}: error vs number of clusters", fontsize=9)
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1))
    save(fig, out / "clusters.png")
    if len(hist):
        fig, ax = plt.subplots(figsize=(7, 3.5))
        ks = sorted(hist["k"].unique())
        w = 0.8 / len(ks)
        for i, kk in enumerate(ks):
            h = hist[hist["k"] == kk]
            ax.bar(np.arange(len(h)) + (i - (len(ks) - 1) / 2) * w, h["count"], w, label=f"k = {kk}")
        labels = [f"{int(lo)}-{int(hi)}" if np.isfinite(hi) else f">={int(lo)}"
                  for lo, hi in hist[hist["k"] == ks[0]][["bin_lo_pct", "bin_hi_pct"]].to_numpy()]
        ax.set_xticks(range(len(labels)), labels, rotation=45)
        ax.set_xlabel("error %")
        ax.set_ylabel("predictions")
        ax.set_title(f"{metric}: held-out error distribution", fontsize=9)
        ax.legend(fontsize=7)
        save(fig, out / "histogram.png")


# -- summary -------------------------------------------------------------------------------------------------------
SEED_ERRORS = {"time": 15.0, "power": 10.0}


def summary_stage(sweep: str, dataset, dirs: dict, model_paths: dict, sim_hosts: list, out_md, out_host) -> None:
    """summary.md: errors next to the seed's; host_time.md: one prediction
    against one detailed simulation (host seconds, not reproducible)."""
    data = pd.read_parquet(dataset)
    model = ev.load_model(model_paths["time"])
    grid = ev.grid_arrays(data, model.meta_["features"])
    lines = [f"# Scaling model on sweep `{sweep}`", "",
             f"{len(grid.instances)} kernel instances ({data['workload'].nunique()} workloads) x "
             f"{len(grid.sm)} SM counts {grid.sm.tolist()} x {len(grid.cc)} core clocks {grid.cc.tolist()} MHz x "
             f"{len(grid.mc)} DRAM clocks {grid.mc.tolist()} MHz.", "",
             f"Power is not a function of run time alone: at a fixed core clock a kernel's dynamic energy "
             f"changes by {100 * ev.energy_spread(grid):.1f}% on average between two (SM count, DRAM clock) "
             f"points, which is the error of predicting its power from its measured run time "
             f"(docs/scaling.md).", ""]
    for metric, d in dirs.items():
        d = Path(d)
        every = pd.read_parquet(d / "heatmap.parquet")
        study = pd.read_parquet(d / "clusters.parquet")
        src = pd.read_parquet(d / "sources.parquet").iloc[0]
        k = int(every["k"].iloc[0])
        meta = {k_.decode(): v.decode() for k_, v in (pq.read_schema(d / "heatmap.parquet").metadata or {}).items()}
        variant = meta["variant"]
        heat = every[every["method"] == variant]
        share = f"{100 * float(meta['holdout']):g}%"
        held = (f"{share} of the applications (every kernel instance of each)" if meta["split_by"] == "application"
                else f"{share} of the kernel instances")
        names = list(dict.fromkeys(every["method"]))
        table = every.pivot_table(index=["sm", "cc", "mc"], columns="method", values="mean_error", sort=False)
        lines += [f"## {metric}", "", f"Each split holds out {held}; {meta['splits']} seeded splits; "
                  f"features: {meta.get('features', 'seed')}; model: {variant}.", "",
                  f"Heat-map bases (every SM count x DRAM clock at core clocks "
                  f"{', '.join(str(int(x)) for x in sorted(heat['cc'].unique()))} MHz): mean held-out error "
                  f"**{100 * heat['mean_error'].mean():.1f}%** (best base {100 * heat['mean_error'].min():.1f}%, "
                  f"worst {100 * heat['mean_error'].max():.1f}%); seed: {SEED_ERRORS[metric]:.0f}% on average. "
                  f"Every model variant on the same splits (clusters: k = {k}; clusters-hard is the seed's model):",
                  "", "| base (SM, core MHz, DRAM MHz) | " + " | ".join(f"{n} %" for n in names) + " |",
                  "|---|" + "---:|" * len(names)]
        lines += [f"| {sm}, {cc}, {mc} | " + " | ".join(f"{100 * r[n]:.1f}" for n in names) + " |"
                  for (sm, cc, mc), r in table.iterrows()]
        lines += ["| **mean** | " + " | ".join(f"**{100 * table[n].mean():.1f}**" for n in names) + " |"]
        medians = {n: src.get(ev.column("heat_median", n)) for n in names}
        lines += ["| median of all predictions | " +
                  " | ".join("" if v is None else f"{100 * v:.1f}" for v in medians.values()) + " |"]
        hist = pd.read_parquet(d / "histogram.parquet")
        hist = hist[hist["pool"] == "heat-map bases"]
        if len(hist):
            edges = hist[hist["method"] == names[0]][["bin_lo_pct", "bin_hi_pct"]].to_numpy()
            lines += ["", "Distribution of the errors over all heat-map bases (Figs. 14 and 17), share of the "
                      "predictions per bin:", "",
                      "| error % | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
            shares = {n: hist[hist["method"] == n]["count"].to_numpy() for n in names}
            for i, (lo, hi) in enumerate(edges):
                label = f"{lo:g}-{hi:g}" if np.isfinite(hi) else f">= {lo:g}"
                lines.append(f"| {label} | " + " | ".join(f"{100 * shares[n][i] / max(shares[n].sum(), 1):.1f}%"
                                                           for n in names) + " |")
        seed_rows = study[study["method"] == ev.variant_name("clusters")]
        by_k = seed_rows.groupby("k")["mean_error"].mean()
        at_k = study[(study["method"] != ev.variant_name("clusters")) | (study["k"] == k)]
        bases = ", ".join(f"({r.sm}, {r.cc}, {r.mc})" for r in
                          seed_rows[seed_rows["k"] == seed_rows["k"].iloc[0]].itertuples())
        lines += ["", "Error of the seed's model (clusters-hard) vs clusters per set (mean over the study bases): " +
                  ", ".join(f"k={kk}: {100 * v:.1f}%" for kk, v in by_k.items()), "",
                  f"Mean over the study bases {bases} (where the seed reports its averages, Figs. 13 and 16), "
                  f"k = {k}: " + ", ".join(f"{n} {100 * v:.1f}%" for n, v in
                                           at_k.groupby("method", sort=False)["mean_error"].mean().items()) + ".",
                  "",
                  f"Error sources of the seed's model at base ({src.sm}, {src.cc}, {src.mc}), k = {src.k} (V-B2): "
                  f"training kernels "
                  f"with the oracle classifier {100 * src.train_oracle:.1f}% (clustering alone), with the networks "
                  f"{100 * src.train_network:.1f}%; held-out kernels {100 * src.held_out:.1f}% with the networks, "
                  f"{100 * src.held_out_oracle:.1f}% with the cluster nearest their measured scaling. By target: "
                  f"held-out kernels {100 * src.held_out_same_sm:.1f}% at the base's SM count, "
                  f"{100 * src.held_out_other_sm:.1f}% at other SM counts, and there "
                  f"{100 * src.held_out_other_sm_cu_oracle:.1f}% with the nearest SM-count cluster. "
                  f"The regression on the same splits: {100 * src.regression_same_sm:.1f}% at the base's SM "
                  f"count, {100 * src.regression_other_sm:.1f}% at other SM counts.", "",
                  f"Nested split at the same base (the choice a user makes without the held-out kernels): on each "
                  f"outer split, the training kernels alone in {src.folds} grouped folds; mean inner error " +
                  ", ".join(f"{n} {100 * src[ev.column('inner', n)]:.1f}% (lowest in "
                            f"{src[ev.column('inner_wins', n)]} of {meta['splits']} splits)"
                            for n in INNER_VARIANTS) + ".", ""]
    write_text("\n".join(lines) + "\n", out_md)
    # host time: one kernel's prediction to every grid point vs its detailed simulations
    b = base_index(grid, model.meta_["base_point"])
    x = grid.counters[:1][:, b[0], b[1], b[2]]
    t0 = grid.values["time"][:1][:, b[0], b[1], b[2]]
    model.predict_grid(x, t0)
    n = 200
    t = time.perf_counter()
    for _ in range(n):
        model.predict_grid(x, t0)
    per_kernel = (time.perf_counter() - t) / n
    sims = [json.loads(Path(p).read_text())["simulation_s"] for p in sim_hosts]
    targets = grid.values["time"][0].size - 1
    write_text("\n".join([
        "# Scaling model: prediction against detailed simulation (host seconds)", "",
        f"- one kernel instance to all {targets} other grid points: {1e3 * per_kernel:.3f} ms "
        f"({1e6 * per_kernel / targets:.1f} us per target configuration)",
        f"- one detailed simulation of one workload at one point: mean {np.mean(sims):.2f} s, "
        f"median {np.median(sims):.2f} s over {len(sims)} simulations",
        f"- ratio (mean simulation / one prediction): {np.mean(sims) / (per_kernel / targets):,.0f}x", ""]), out_host)
