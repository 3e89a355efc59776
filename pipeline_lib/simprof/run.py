"""Entry points of the SimProf rules (rules/simprof.smk; tables in
docs/simprof.md).  Scripts are thin wrappers around these."""
from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import BOOL, F64, I32, I64, STR, progress, stage_writer, write_json, write_text
from ..versions import SIMPROF_VERSION
from . import emulated, inputs, jobs, jvm, perf, profile, units
from .phases import PhaseFormation, homogeneity, method_frequencies, nearest_center, stable_method_name
from .sampling import (code_estimate, code_phases, optimal_allocation, phase_stds, required_sample_size, second_sample,
                       simprof_sample, srs_sample, strata, stratified_estimate)
from .sensitivity import input_sensitive_phases, point_reduction, relative_change

# --- table columns (docs/simprof.md) ------------------------------------------------

# one entry per profile.TABLES name, in its order
PROFILE_TABLES = {
    "samples": [("time_ns", I64, "epoch ns"), ("os_tid", I64, ""), ("java_tid", I64, ""),
                ("thread", STR, "Java thread name at the time"), ("stack", I64, "interned stack id")],
    "stacks": [("stack", I64, ""), ("depth", I32, "0 = innermost frame"), ("method", I64, ""),
               ("truncated", BOOL, "the JVM cut the stack at the depth limit"),
               ("frame_type", STR, "how the JVM ran the frame (JFR): Interpreted, JIT compiled, Inlined; "
                                   "empty where the recording does not say")],
    "methods": [("method", I64, ""), ("name", STR, "package.Class.method")],
    "tasks": [("time_ns", I64, ""), ("event", STR, "start or end"), ("os_tid", I64, ""), ("java_tid", I64, ""),
              ("task", I64, ""), ("stage", I32, ""), ("stage_attempt", I32, "-1 on end rows"),
              ("partition", I32, "-1 on end rows"), ("succeeded", BOOL, ""),
              *[(m, I64, "task metric (-1 on start rows)") for m in
                ("input_records", "input_bytes", "shuffle_records_read", "shuffle_bytes_written",
                 "shuffle_records_written", "output_records", "memory_bytes_spilled", "disk_bytes_spilled")]],
    "counters": [("time_ns", I64, ""), ("java_tid", I64, ""), ("os_tid", I64, ""),
                 *[(c, I64, "cumulative, -1 where unreadable") for c in
                   ("cpu_ns", "user_ns", "allocated_bytes", "minor_faults", "major_faults", "voluntary_switches",
                    "involuntary_switches", "runqueue_wait_ns")]],
    "perf": [("time_ns", I64, "epoch ns of the read"), ("os_tid", I64, ""), ("java_tid", I64, ""),
             *[(c, I64, "cumulative perf_event count, -1 where this counter mode does not count it")
               for c in perf.EVENTS],
             *[(c, I64, "cumulative count of the emulated mode's models (docs/simprof.md), -1 in other modes")
               for c in emulated.MODEL_COUNTS]],
}


def units_columns(mode: str) -> list:
    """Columns of the units table in counter mode ``mode``."""
    return [("unit", I64, ""), ("thread", I64, "Java thread id"), ("index", I64, "unit index within its thread"),
            ("start_ns", I64, ""), ("end_ns", I64, ""),
            ("stage", I32, "Spark stage at the unit's middle (-1: none)"),
            ("snapshots", I64, "call-stack snapshots in the unit"),
            *[(m, F64, d) for m, (d, _, _) in units.MEASURES[mode].items()],
            ("phase", I32, "SimProf phase (5.3.2)"),
            ("distance", F64, "Euclidean distance to the phase centre in the selected methods' space"),
            ("code_phase", I32, "CODE's phase within the unit's thread: k-means on the call stacks alone (every method's frequency), "
                                "k = simprof.points"),
            ("code_representative", BOOL, "the unit CODE simulates for its phase (closest to the centre)")]


PHASES = [("phase", I32, ""), ("units", I64, "N_h"), ("weight", F64, "N_h / N"),
          ("mean", F64, "mean of the measure"), ("std", F64, "sigma_h, population standard deviation"),
          ("cov", F64, "sigma_h / mean"), ("points", I64, "eq. 33 allocation of the configured sample size"),
          ("stage", I32, "the Spark stage most of its units run"),
          ("top_methods", STR, "heaviest methods of the centre: name (frequency); ..."),
          ("distinct_methods", STR, "methods the centre runs more than the other phases' mean: name (frequency); "
                                    "...; what sets the phase apart (5.4.5)")]
POPULATION = ("thread", I64, "the population: an executor thread's Java id; -1: the run's threads pooled, where "
              "none has more units than the sample (docs/simprof.md, \"Populations\")")
ERRORS = [POPULATION, ("method", STR, "SimProf, SRS, CODE or SECOND"), ("draw", I32, "random draw (0 for CODE)"),
          ("units", I64, "units simulated"), ("estimate", F64, "estimated mean of the measure"),
          ("oracle", F64, "mean over all units"), ("error", F64, "|estimate - oracle| / oracle"),
          ("margin", F64, "SimProf: eq. 35 margin of error at the confidence level (NaN for the others)"),
          ("covered", BOOL, "SimProf: the oracle lies inside estimate +- margin")]
SIZES = [POPULATION, ("target_error", F64, "relative margin of error"), ("confidence", F64, ""),
         ("units", I64, "SimProf's required sample size (Fig. 42)"),
         ("second_units", F64, "mean units in SECOND's window"), ("population", I64, "N, the population's units")]
SENSITIVITY = [("phase", I32, "training phase"), ("reference", STR, "reference run"),
               ("train_units", I64, ""), ("ref_units", I64, "reference units classified to the phase"),
               ("train_mean", F64, ""), ("ref_mean", F64, ""), ("train_std", F64, ""), ("ref_std", F64, ""),
               ("mean_change", F64, "eq. 38 relative change of the mean"),
               ("std_change", F64, "eq. 38 relative change of the standard deviation"),
               ("sensitive", BOOL, "either change above the tolerance under this reference"),
               ("points", I64, "the phase's simulation points on the training input")]
OVERHEAD = [("repeat", I32, ""), ("profiled", BOOL, "run under JFR, the SimProf plugin and the perf sampler"),
            ("wall_s", F64, "spark-submit wall time"), ("export_s", F64, "reading the recording (profiled only)")]


_write = stage_writer("simprof_version", SIMPROF_VERSION)
_log = progress


# --- inputs, jar, profiles ----------------------------------------------------------

def input_stage(name: str, spec: dict, out) -> None:
    """Generate one configured input (its fields are checked at parse time)."""
    inputs.generate(name, spec, Path(out))


def jar_stage(out) -> None:
    """Compile the Spark jobs and the plugin; the jar appears complete or not at all."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        os.replace(jvm.build_jar(tmp), out)


def _spark(opts: dict) -> dict:
    return {k: opts[k] for k in ("cores", "driver_memory", "timeout_s")}


def write_profile(tables: dict, run: str, out_dir: Path) -> None:
    """A profile's tables as Parquet (``run.json`` is written apart)."""
    for name, cols in PROFILE_TABLES.items():
        t = tables[name].copy()
        for col, typ, _ in cols:
            if typ == BOOL:
                t[col] = t[col].astype(bool)
        _write(t, cols, name, Path(out_dir) / f"{name}.parquet", run=run)


def profile_stage(run: str, spec: dict, jar, data, opts: dict, out_dir, log) -> dict:
    """Profile one run (5.3.1), check its answer, write the profile tables and
    ``run.json``. ``spec``: job, partitions, arg; ``opts``: cores,
    driver_memory, timeout_s, counter_mode and the profile periods."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    mode = units.counter_mode(opts["counter_mode"])    # this host's, checked again where the job runs
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".work-") as work:
        info, tables = profile.profile_job(Path(jar), spec["job"], Path(data), Path(work), partitions=spec["partitions"],
                                           arg=spec["arg"], profile=opts["profile"], log=Path(log),
                                           counter_mode=mode["counter_mode"], emulated=opts.get("emulated"),
                                           **_spark(opts))
    jobs.check(spec["job"], Path(data), info["summary"], spec["arg"])
    write_profile(tables, run, out_dir)
    record = {"run": run, **spec, "wall_s": round(info["wall_s"], 3),
              "summary": info["summary"], "stacks_truncated": info["stacks_truncated"],
              "recording_bytes": info["recording_bytes"], "snapshots": len(tables["samples"]),
              "executor_threads": int(tables["counters"]["java_tid"].nunique()), **mode,
              **{k: info[k] for k in ("perf_threads", "perf_missed_cpu_share", "perf_refused", "perf_cpu_ratio",
                                 "perf_sampler_cpu_s")},
              "profile": opts["profile"], "cores": opts["cores"],
              **{k: info[k] for k in ("emulation_attempts",) if k in info}}
    write_json(record, out_dir / "run.json")
    _log(f"{run}: {spec['job']} profiled in {time.perf_counter() - t0:.1f} s, {record['snapshots']} snapshots")
    return record


def overhead_stage(spec: dict, jar, data, opts: dict, repeats: int, out, log) -> pd.DataFrame:
    """The same job with and without the profiler (JFR, the plugin and the
    perf sampler), alternating, ``repeats`` times each (5.4: profiling
    overhead)."""
    mode = units.counter_mode(opts["counter_mode"])["counter_mode"]
    rows = []
    with tempfile.TemporaryDirectory(dir=Path(out).parent, prefix=".work-") as work, open(log, "w") as fh:
        for r in range(repeats):
            for profiled in (False, True):
                w = Path(work) / f"{r}-{int(profiled)}"
                job_log = w.with_suffix(".log")
                # the profiled run of the emulated mode runs under QEMU and the plugin
                home = (emulated.java_home(w.with_suffix(".jdk"), w.with_suffix(".records"), opts["emulated"])
                        if profiled and mode == "emulated" else None)
                res = jvm.run_job(Path(jar), spec["job"], Path(data), w, partitions=spec["partitions"],
                                  arg=spec["arg"], profile=opts["profile"] if profiled else None,
                                  perf_events=units.PERF_EVENTS[mode] if profiled else None, log=job_log,
                                  java_home=home, **_spark(opts))
                export_s = np.nan
                if profiled:
                    t0 = time.perf_counter()
                    jvm.export_recording(Path(jar), w / "recording.jfr", w / "export")
                    export_s = time.perf_counter() - t0
                jobs.check(spec["job"], Path(data), res["summary"], spec["arg"])
                fh.write(job_log.read_text())
                rows.append({"repeat": r, "profiled": profiled, "wall_s": res["wall_s"], "export_s": export_s})
                _log(f"repeat {r} {'profiled' if profiled else 'plain'}: {res['wall_s']:.2f} s")
    df = pd.DataFrame(rows)
    _write(df, OVERHEAD, "overhead", out)
    return df


# --- units and phases ------------------------------------------------------------------

def read_profile(profile_dir, mode: str | None = None) -> dict[str, pd.DataFrame]:
    """A profile's tables; with ``mode``, checked to have been recorded in
    that counter mode (its ``run.json``)."""
    d = Path(profile_dir)
    if mode is not None:
        recorded = json.loads((d / "run.json").read_text())["counter_mode"]
        if recorded != mode:
            raise ValueError(f"{d / 'run.json'}: the profile was recorded in {recorded} counter mode, not {mode}; "
                             "profile it again (snakemake --forcerun simprof_profile)")
    return {name: pd.read_parquet(d / f"{name}.parquet") for name in PROFILE_TABLES}


def units_and_frequencies(tables: dict, mode: str, size: float, names=None, frame_types: bool = False):
    """A profile's units of ``size`` in counter mode ``mode`` and their
    method-frequency matrix (Fig. 39) over method ``names`` (default: the
    profile's own, in first-use order); a method the profile never ran is a
    zero column. Methods are named by :func:`stable_method_name`, so that
    hidden classes match across runs. With ``frame_types`` a column is a
    method as the JVM ran it, ``name [Interpreted]``, ``name [JIT
    compiled]`` or ``name [Inlined]`` (docs/simprof.md, "More phases,
    CODE's strata and frame types"). Returns (units, X, names)."""
    u, unit_of = units.form_units(units.series_of(tables, mode), tables["samples"], tables["tasks"], mode, size)
    methods = tables["methods"].assign(name=tables["methods"]["name"].map(stable_method_name))
    frames = tables["stacks"].merge(methods, on="method")
    if frame_types:
        if "frame_type" not in frames.columns:
            raise ValueError("simprof.frame_types needs profiles with frame types (SIMPROF_VERSION 8 on); "
                             "profile the runs again")
        typed = frames["frame_type"] != ""
        frames["name"] = frames["name"].where(~typed, frames["name"] + " [" + frames["frame_type"] + "]")
        frames = frames.sort_values(["stack", "depth"], kind="stable")
    own = pd.unique(frames["name"]) if frame_types else pd.unique(methods["name"])
    names = list(own) if names is None else list(names)
    col = pd.Series(np.arange(len(names)), index=pd.Index(names))
    frames = frames.assign(method=col.reindex(frames["name"]).fillna(-1).to_numpy(np.int64))
    frames = frames[frames["method"] >= 0]
    X = method_frequencies(tables["samples"].assign(unit=unit_of), frames, len(u), len(names))
    return u, X, names


def _described(methods: list[tuple[str, float]]) -> str:
    return "; ".join(f"{n} ({w:.2f})" for n, w in methods)


def phases_stage(run: str, profile_dir, opts: dict, out_units, out_phases, out_model) -> pd.DataFrame:
    """Phase formation of one run's units (5.3.2) and its eq. 33 allocation of
    ``opts['points']`` units. ``opts``: counter_mode, unit_size, measure,
    top_methods, k_max, threshold, seed, points, frame_types."""
    mode, size = opts["counter_mode"], opts["unit_size"]
    u, X, names = units_and_frequencies(read_profile(profile_dir, mode), mode, size, frame_types=opts["frame_types"])
    if len(u) < 2:
        field = "unit_cpu_ms" if mode == "cpu-time" else "unit_instructions"
        raise ValueError(f"{profile_dir}: run '{run}' has {len(u)} sampling units of {units.describe_unit(mode, size)}; "
                         f"give it a larger input or smaller units (simprof.{field})")
    y = u[opts["measure"]].to_numpy(np.float64)
    pf = PhaseFormation(opts["top_methods"], opts["k_max"], opts["threshold"], opts["seed"]).fit(X, y)
    F = pf.project(X)
    u["phase"] = pf.labels_
    u["distance"] = np.sqrt(((F - pf.centers_[pf.labels_]) ** 2).sum(axis=1))
    # CODE per executor thread, the populations the sampling study draws from
    u["code_phase"], u["code_representative"] = np.int64(-1), False
    for rows in u.groupby("thread", sort=True).indices.values():
        labels, chosen = code_phases(X[rows], opts["points"], opts["seed"])
        u.loc[rows, "code_phase"] = labels
        u.loc[rows[chosen], "code_representative"] = True
    _write(u, units_columns(mode), "units", out_units, run=run, measure=opts["measure"], counter_mode=mode)

    phases, sizes = strata(pf.labels_)
    stds = phase_stds(y, pf.labels_, phases)
    points = optimal_allocation(sizes, stds, min(opts["points"], len(u)))
    sel = [names[i] for i in pf.methods_]
    ph = pd.DataFrame({"phase": phases, "units": sizes, "weight": sizes / sizes.sum(),
                       "mean": [y[pf.labels_ == h].mean() for h in phases], "std": stds, "points": points,
                       "stage": [int(u.loc[u["phase"] == h, "stage"].mode().iloc[0]) for h in phases],
                       "top_methods": [_described(pf.top_methods_of(h, names)) for h in phases],
                       "distinct_methods": [_described(pf.distinct_methods_of(h, names)) for h in phases]})
    ph["cov"] = np.where(ph["mean"] != 0, ph["std"] / ph["mean"].abs().where(ph["mean"] != 0, 1), 0.0)
    _write(ph, PHASES, "phases", out_phases, run=run, measure=opts["measure"])
    write_json({"run": run, "measure": opts["measure"], "counter_mode": mode, "unit_size": size,
                "frame_types": bool(opts["frame_types"]), "seed": int(opts["seed"]), "k": int(pf.k_),
                "silhouette": [None if np.isnan(s) else round(float(s), 6) for s in pf.scores_],
                "methods": sel, "centers": np.round(pf.centers_, 12).tolist(),
                **homogeneity(y, pf.labels_)}, out_model)
    _log(f"{run}: {len(u)} units, {len(names)} methods, {len(sel)} selected, k = {pf.k_}")
    return ph


# --- sampling (5.3.3, 5.4.1) --------------------------------------------------------------

def populations(u: pd.DataFrame, points: int) -> list[tuple[int, np.ndarray]]:
    """The sampling study's populations (docs/simprof.md, "Populations"):
    (thread id, row positions) of every executor thread with more units
    than the sample of ``points`` -- the seed profiles one executor thread
    (5.3.1); a thread with fewer would be simulated whole by every method --
    or, where no thread has, the run's threads pooled as one (thread -1)."""
    own = [(int(t), rows) for t, rows in u.groupby("thread", sort=True).indices.items() if len(rows) > points]
    return own or [(-1, np.arange(len(u)))]


def sampling_study(u: pd.DataFrame, measure: str, points: int, confidence: float, draws: int,
                   second_window_s: float, seed: int) -> pd.DataFrame:
    """Sampling error of SimProf, SRS, CODE and SECOND against the mean of all
    units of each population (:func:`populations`; Fig. 41). Each random
    method draws ``draws`` times from its own seeded stream per population."""
    rows = []
    for p, (tid, idx) in enumerate(populations(u, points)):
        pu = u.iloc[idx].reset_index(drop=True)
        y = pu[measure].to_numpy(np.float64)
        labels = pu["phase"].to_numpy()
        oracle = float(y.mean())

        def add(method, draw, chosen, estimate, margin=np.nan):
            err = abs(estimate - oracle) / abs(oracle) if oracle else abs(estimate - oracle)
            rows.append({"thread": tid, "method": method, "draw": draw, "units": len(chosen), "estimate": estimate,
                         "oracle": oracle, "error": err, "margin": margin,
                         "covered": bool(abs(estimate - oracle) <= margin)})

        rng = {m: np.random.default_rng([seed, i, p]) for i, m in enumerate(("SimProf", "SRS", "SECOND"))}
        t0 = (pu["start_ns"].min()) / 1e9
        start_s, end_s = pu["start_ns"].to_numpy() / 1e9 - t0, pu["end_ns"].to_numpy() / 1e9 - t0
        for d in range(draws):
            chosen = simprof_sample(labels, y, points, rng["SimProf"])
            est = stratified_estimate(y, labels, chosen, confidence)
            add("SimProf", d, chosen, est.mean, est.margin)
            chosen = srs_sample(len(y), points, rng["SRS"])
            add("SRS", d, chosen, float(y[chosen].mean()))
            chosen = second_sample(start_s, end_s, second_window_s, rng["SECOND"])
            add("SECOND", d, chosen, float(y[chosen].mean()))
        code = pu["code_phase"].to_numpy()
        if tid < 0:      # pooled: CODE's phases are per thread, so each thread's stand for it by its share
            chosen = np.flatnonzero(pu["code_representative"].to_numpy())
            est = sum(len(g) / len(pu) * code_estimate(y[g], code[g], np.flatnonzero(
                pu["code_representative"].to_numpy()[g])) for g in pu.groupby("thread").indices.values())
            add("CODE", 0, chosen, float(est))
        else:
            chosen = np.flatnonzero(pu["code_representative"].to_numpy())
            add("CODE", 0, chosen, code_estimate(y, code, chosen))
    return pd.DataFrame(rows)


def sampling_stage(run: str, units_path, opts: dict, out_errors, out_sizes) -> pd.DataFrame:
    """The sampling study and the sample sizes for the target errors (Figs.
    41, 42), per population. ``opts``: measure, points, confidence, draws,
    second_window_s, seed, target_errors."""
    u = pd.read_parquet(units_path)
    err = sampling_study(u, opts["measure"], opts["points"], opts["confidence"], opts["draws"],
                         opts["second_window_s"], opts["seed"])
    _write(err, ERRORS, "sampling_errors", out_errors, run=run, measure=opts["measure"])
    rows = []
    for tid, idx in populations(u, opts["points"]):
        y, labels = u[opts["measure"]].to_numpy(np.float64)[idx], u["phase"].to_numpy()[idx]
        mine = err[(err["method"] == "SECOND") & (err["thread"] == tid)]
        rows += [{"thread": tid, "target_error": e, "confidence": opts["confidence"],
                  "units": required_sample_size(y, labels, e, opts["confidence"]),
                  "second_units": float(mine["units"].mean()), "population": len(idx)} for e in opts["target_errors"]]
    sizes = pd.DataFrame(rows)
    _write(sizes, SIZES, "sample_sizes", out_sizes, run=run, measure=opts["measure"])
    mean = err.groupby("method")["error"].mean()
    _log(f"{run}: {err['thread'].nunique()} population(s), mean error "
         + ", ".join(f"{m} {100 * v:.2f}%" for m, v in mean.items()))
    return err


# --- input sensitivity (5.3.4) ----------------------------------------------------------

def sensitivity_stage(name: str, train: str, train_units, train_phases, train_model, refs: dict, opts: dict,
                      out_table, out_summary) -> dict:
    """Algorithm 5.1 for one training run and its reference runs: classify
    each reference's units to the training phases, apply eq. 38, and count
    the simulation points a reference input may skip (Figs. 46, 47).
    ``refs``: {reference run: profile dir}; ``opts``: counter_mode,
    unit_size, measure, tolerance."""
    model = json.loads(Path(train_model).read_text())
    mode, size = opts["counter_mode"], opts["unit_size"]
    if (model["measure"], model["counter_mode"], model["unit_size"]) != (opts["measure"], mode, size):
        raise ValueError(f"{train_model}: phases were formed with {model['measure']} over units of "
                         f"{units.describe_unit(model['counter_mode'], model['unit_size'])}, not {opts['measure']} "
                         f"over units of {units.describe_unit(mode, size)}")
    tu = pd.read_parquet(train_units)
    ph = pd.read_parquet(train_phases)
    measure = opts["measure"]
    centers = np.asarray(model["centers"], np.float64)
    ref_data = {}
    for ref, d in refs.items():
        ru, X, _ = units_and_frequencies(read_profile(d, mode), mode, size, model["methods"], model["frame_types"])
        ref_data[ref] = (ru[measure].to_numpy(np.float64), nearest_center(X.toarray(), centers))
    tv, tl = tu[measure].to_numpy(np.float64), tu["phase"].to_numpy()
    sensitive = input_sensitive_phases(tv, tl, ref_data, opts["tolerance"])
    points = dict(zip(ph["phase"].astype(int), ph["points"].astype(int)))
    rows = []
    for h in sorted(sensitive):
        t = tv[tl == h]
        for ref, (rv, rl) in ref_data.items():
            r = rv[rl == h]
            rows.append({"phase": h, "reference": ref, "train_units": len(t), "ref_units": len(r),
                         "train_mean": t.mean(), "ref_mean": r.mean() if len(r) else np.nan,
                         "train_std": t.std(), "ref_std": r.std() if len(r) else np.nan,
                         "mean_change": relative_change(t.mean(), r.mean()) if len(r) else np.nan,
                         "std_change": relative_change(t.std(), r.std()) if len(r) else np.nan,
                         "sensitive": ref in sensitive[h], "points": points[h]})
    _write(pd.DataFrame(rows), SENSITIVITY, "sensitivity", out_table, set=name, measure=measure)
    n_sens = sum(1 for v in sensitive.values() if v)
    summary = {"set": name, "train": train, "measure": measure, "tolerance": opts["tolerance"], "references": sorted(refs),
               "phases": len(sensitive), "sensitive_phases": n_sens, "insensitive_phases": len(sensitive) - n_sens,
               "points": int(sum(points.values())),
               "sensitive_points": int(sum(n for h, n in points.items() if sensitive.get(h))),
               "reduction": round(point_reduction(points, sensitive), 6),
               "sensitive_to": {str(h): v for h, v in sensitive.items()}}
    write_json(summary, out_summary)
    _log(f"{name}: {n_sens} of {len(sensitive)} phases input-sensitive, reduction {100 * summary['reduction']:.1f}%")
    return summary


# --- summary -------------------------------------------------------------------------------

HOMOGENEITY = [("run", STR, ""), ("job", STR, ""), ("input", STR, ""), ("units", I64, "N"),
               ("phases", I32, "k chosen by the silhouette rule"),
               ("population_cov", F64, "CoV of the measure over all units (Fig. 40)"),
               ("weighted_cov", F64, "phases' CoVs weighted by their shares of units"),
               ("max_cov", F64, "largest phase CoV")]
ERROR_SUMMARY = [("run", STR, ""), ("method", STR, ""),
                 ("populations", I64, "executor threads studied, each its own population (1 where pooled)"),
                 ("mean_error", F64, "mean over the populations and draws (Fig. 41)"),
                 ("max_error", F64, "largest over draws"), ("mean_units", F64, "units simulated, mean over draws"),
                 ("coverage", F64, "SimProf: share of draws whose interval holds the oracle (NaN for others)")]
SIZE_SUMMARY = [("run", STR, ""), ("target_error", F64, "relative margin of error"), ("confidence", F64, ""),
                ("units", F64, "SimProf's required sample size (Fig. 42), mean over the run's populations"),
                ("second_units", F64, "mean units in SECOND's window, mean over the populations"),
                ("population", F64, "N, mean over the populations")]
SET_SUMMARY = [("set", STR, ""), ("train", STR, "training run"), ("references", STR, "reference runs"),
               ("control", BOOL, "the references run the training input again: what run-to-run variation flags"),
               ("phases", I32, ""), ("sensitive_phases", I32, "Fig. 47"), ("insensitive_phases", I32, "Fig. 47"),
               ("points", I64, "simulation points of the training input"),
               ("sensitive_points", I64, "points a reference input must simulate (Fig. 46)"),
               ("reduction", F64, "share of points a reference input may skip")]
METHODS = ("SECOND", "SRS", "CODE", "SimProf")
SEED_ERRORS = {"SECOND": 0.065, "SRS": 0.089, "CODE": 0.040, "SimProf": 0.016}   # 5.4.1, Fig. 41
SEED_REDUCTION = 0.337                                                         # 5.4.4, Fig. 46


def _pct(x) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{100 * x:.2f}%"


def repeats(info: list[dict]) -> dict[str, str]:
    """Runs that profile the same job, input, argument and partitions as an
    earlier run (the control sets' second profiles): {repeat: the first}.
    They are shown but left out of the averages, so that no job counts twice."""
    first, out = {}, {}
    for i in info:
        key = (i["job"], i["input"], str(i.get("arg")), i.get("partitions"))
        if key in first:
            out[i["run"]] = first[key]
        else:
            first[key] = i["run"]
    return out


def summary_stage(runs: dict, set_jsons, overheads: dict, opts: dict, out_summary, out_tables, fig_dir) -> str:
    """Figures 40-42, 46 and 47 as tables and bar charts, and the report
    (docs/simprof.md, Results).  ``runs`` maps each run to its files by
    name (``run``, ``model``, ``phases``, ``errors``, ``sizes``);
    ``overheads`` maps the overhead runs to their tables."""
    fig_dir = Path(fig_dir)
    names = list(runs)
    info = [json.loads(Path(f["run"]).read_text()) for f in runs.values()]
    model = [json.loads(Path(f["model"]).read_text()) for f in runs.values()]
    hom = pd.DataFrame([{"run": r, "job": i["job"], "input": i["input"],
                         "units": int(pd.read_parquet(ph)["units"].sum()), "phases": m["k"],
                         **{k: m[k] for k in ("population_cov", "weighted_cov", "max_cov")}}
                        for r, i, m, ph in zip(names, info, model, (f["phases"] for f in runs.values()))])
    err = pd.concat([pd.read_parquet(f["errors"]).assign(run=r) for r, f in runs.items()], ignore_index=True)
    g = err.groupby(["run", "method"], sort=False)
    esum = pd.DataFrame({"populations": g["thread"].nunique(), "mean_error": g["error"].mean(),
                         "max_error": g["error"].max(),
                         "mean_units": g["units"].mean(),
                         "coverage": g["covered"].mean()}).reset_index()
    esum.loc[esum["method"] != "SimProf", "coverage"] = np.nan
    # per run: the mean over its populations
    siz = (pd.concat([pd.read_parquet(f["sizes"]).assign(run=r) for r, f in runs.items()], ignore_index=True)
           .groupby(["run", "target_error", "confidence"], sort=False)[["units", "second_units", "population"]]
           .mean().reset_index())
    sets_info = [json.loads(Path(p).read_text()) for p in set_jsons]
    data_of = {i["run"]: i["input"] for i in info}
    sens = pd.DataFrame([{"set": s["set"], "train": s["train"], "references": ", ".join(s["references"]),
                          "control": all(data_of.get(r) == data_of.get(s["train"]) for r in s["references"]),
                          **{k: s[k] for k in ("phases", "sensitive_phases", "insensitive_phases", "points",
                                                "sensitive_points", "reduction")}}
                         for s in sets_info],
                        columns=[c for c, _, _ in SET_SUMMARY])
    for df, cols, name, out in zip((hom, esum, siz, sens), (HOMOGENEITY, ERROR_SUMMARY, SIZE_SUMMARY, SET_SUMMARY),
                                   ("homogeneity", "errors", "sizes", "sensitivity"), out_tables):
        _write(df, cols, f"simprof_{name}", out, measure=opts["measure"])
    wide = esum.pivot(index="run", columns="method", values="mean_error").reindex(names)[list(METHODS)].reset_index()
    _figures(hom, wide, siz, sens, opts, fig_dir)

    modes = sorted({(i["counter_mode"], i["pmu"], i["why"]) for i in info})
    ovh = [(r, pd.read_parquet(p)) for r, p in overheads.items()]
    flagged = {(s["train"], int(h)): refs for s in sets_info for h, refs in s["sensitive_to"].items() if refs}
    described = pd.concat([_phase_descriptions(r, pd.read_parquet(f["phases"]), flagged) for r, f in runs.items()],
                          ignore_index=True)
    text = _report(info, hom, wide, esum, siz, sens, modes, ovh, described, opts)
    write_text(text, out_summary)
    return text


def _figures(hom, wide, siz, sens, opts, d: Path) -> None:
    from ..plots import bar_chart
    m = opts["measure"]
    bar_chart(hom, "run", [("population", "population_cov"), ("weighted", "weighted_cov"), ("maximum", "max_cov")],
              100, f"CoV of {m} (%)", "Fig. 40: homogeneity of the phases", d / "fig40_cov.png")
    bar_chart(wide, "run", [(k, k) for k in METHODS], 100, f"error of mean {m} (%)",
              f"Fig. 41: sampling error, {opts['points']} points (SECOND: one window)", d / "fig41_errors.png")
    t = siz.pivot(index="run", columns="target_error", values="units")
    t.columns = [f"SimProf {100 * e:g}%" for e in t.columns]
    t["SECOND"] = siz.groupby("run")["second_units"].first()
    t = t.reset_index()
    bar_chart(t, "run", [(c, c) for c in t.columns[1:]], 1, "sampling units",
              f"Fig. 42: sample size at {100 * opts['confidence']:g}% confidence", d / "fig42_sizes.png")
    if len(sens):
        s = sens.assign(sensitive_share=sens["sensitive_points"] / sens["points"].where(sens["points"] > 0, 1))
        bar_chart(s, "set", [("input-sensitive points", "sensitive_share")], 100, "share of simulation points (%)",
                  "Fig. 46: the input-sensitive sample size", d / "fig46_sensitive_points.png")
        bar_chart(sens, "set", [("input-sensitive", "sensitive_phases"), ("input-insensitive", "insensitive_phases")],
                  1, "phases", "Fig. 47: input-sensitive and insensitive phases", d / "fig47_phases.png",
                  stacked=True)


def _short(name: str) -> str:
    """``Class.method`` of a method's full name (the package dropped)."""
    return ".".join(name.split(".")[-2:])


def _phase_descriptions(run: str, ph: pd.DataFrame, flagged: dict) -> pd.DataFrame:
    """One row per phase of ``run``: its size, allocation, mean, the
    reference runs that flag it (eq. 38) and the methods that set it apart
    (5.4.5), three at most, by class and method name."""
    return pd.DataFrame({
        "run": run, "phase": ph["phase"].astype(int), "units": ph["units"], "points": ph["points"],
        "mean": ph["mean"].round(3),
        "input-sensitive to": [", ".join(flagged.get((run, int(h)), [])) or "-" for h in ph["phase"]],
        "what sets it apart": ["; ".join(f"`{_short(m.rsplit(' (', 1)[0])}`" for m in d.split("; ")[:3]) if d
                               else "-" for d in ph["distinct_methods"]]})


def _table(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def _report(info, hom, wide, esum, siz, sens, modes, ovh, described, opts) -> str:
    m = opts["measure"]
    out = ["# SimProf: phases and sampling of Spark jobs", ""]
    for mode, pmu, why in modes:
        out.append(f"Counter mode: **{mode}** (hardware PMU: {'yes' if pmu else 'no'}; {why}).")
    mode = opts["counter_mode"]
    unit = units.describe_unit(mode, opts["unit_size"])
    like_seed = ("The seed's figures are of CPI over 100 M-instruction units too." if m == "cpi" else
                 f"This is not CPI: the seed's figures are of CPI over 100 M-instruction units, ours of this "
                 f"measure over units of {unit} (docs/simprof.md).")
    vectors = ("methods as the JVM ran them (interpreted, JIT compiled, inlined; `simprof.frame_types`)"
               if opts["frame_types"] else "methods (the seed's)")
    out += ["", f"Sampling unit: {unit}. Performance measure: `{m}` ({units.MEASURES[mode][m][0]}). {like_seed}",
            f"Phase vectors: call-stack frequencies of {vectors}.", "",
            "## Runs", "",
            ("`perf threads`: executor threads QEMU's plugin counted, every thread of the emulated JVM from "
             "its first instruction (`missed CPU %`: the executor CPU time of threads it did not count); the "
             "plugin counts no task clock, so `perf/JVM CPU` is n/a and there is no sampler."
             if mode == "emulated" else
             "`perf threads`: executor threads the perf_event sampler beside the job counted (a thread that starts "
             "and ends between two of its polls is missed; `missed CPU %`: such threads' share of the executor CPU "
             "time); `perf/JVM CPU`: the "
             "CPU time the kernel counted for them over the CPU time the JVM reported (1: the sampler follows "
             "the right threads); `sampler CPU s`: the sampler's own CPU time."), "",
            _table(pd.DataFrame([{"run": i["run"], "job": i["job"], "input": i["input"], "spark-submit s": i["wall_s"],
                                  "snapshots": i["snapshots"], "threads": i["executor_threads"],
                                  "perf threads": i["perf_threads"],
                                  "missed CPU %": round(100 * i.get("perf_missed_cpu_share", 0.0), 2),
                                  "perf/JVM CPU": "n/a" if i["perf_cpu_ratio"] is None else f"{i['perf_cpu_ratio']:.3f}",
                                  "sampler CPU s": i["perf_sampler_cpu_s"]}
                                 for i in info])),
            "", "## Phases and homogeneity (Fig. 40)", "",
            _table(hom.assign(**{c: (100 * hom[c]).round(2) for c in ("population_cov", "weighted_cov", "max_cov")})
                   .rename(columns={"population_cov": "population CoV %", "weighted_cov": "weighted CoV %",
                                    "max_cov": "max CoV %"})),
            "", f"## Sampling error with {opts['points']} points (Fig. 41)", "",
            f"Mean relative error of the estimated mean `{m}` against the mean of all units, over the random "
            "draws (CODE is deterministic; SECOND simulates every unit of one window).", ""]
    rep = repeats(info)
    w = wide.copy()
    w["run"] = [f"{r} (repeat of {rep[r]})" if r in rep else r for r in wide["run"]]
    for k in METHODS:
        w[k] = [_pct(v) for v in wide[k]]
    own = wide[~wide["run"].isin(list(rep))]
    avg = {k: float(own[k].mean()) for k in METHODS}
    w.loc[len(w)] = [f"**average** ({len(own)} runs, repeats left out)", *[_pct(avg[k]) for k in METHODS]]
    w.loc[len(w)] = ["seed (CPI, 5.4.1)", *[_pct(SEED_ERRORS[k]) for k in METHODS]]
    cov = esum[esum["method"] == "SimProf"]["coverage"].mean()
    out += [_table(w), "",
            f"SimProf's average error with {opts['points']} points is {_pct(avg['SimProf'])}; the seed reports "
            f"1.6% (CPI). Its {100 * opts['confidence']:g}% intervals held the all-units mean in {_pct(cov)} of "
            "the draws.", "", f"## Sample size for a target error (Fig. 42)", "",
            _table(siz.assign(target_error=[_pct(e) for e in siz["target_error"]],
                              second_units=siz["second_units"].round(1))[
                ["run", "target_error", "units", "second_units", "population"]]), ""]
    if len(sens):
        s = sens.assign(reduction=[_pct(x) for x in sens["reduction"]])
        real = sens[~sens["control"]]
        avg_red = float(real["reduction"].mean()) if len(real) else float("nan")
        out += ["## Input sensitivity (Figs. 46, 47)", "",
                f"A phase is input-sensitive when a reference input moves its mean or standard deviation of `{m}` "
                f"by more than {100 * opts['tolerance']:g}% (eq. 38). A control set tests the training input "
                "against a second profile of itself: what it flags, run-to-run variation alone flags.", "",
                _table(s), "",
                f"Average reduction in simulation points for a reference input (sets that are not controls): "
                f"{_pct(avg_red)}; the seed reports 33.7%.", ""]
    out += ["## What each phase runs (5.4.5)", "",
            "Each phase's methods that its centre runs more often than the other phases' centres on average "
            "(frames every phase runs, such as the executor's task loop, drop out; a single phase is described by "
            f"its heaviest methods), the eq. 33 points it receives and its mean `{m}`. The full lists are in "
            "`phases/{run}/phases.parquet` (`distinct_methods`, `top_methods`).", "",
            _table(described), ""]
    if ovh:
        out += ["## Profiling overhead", "",
                "The same run with and without JFR and the SimProf plugin"
                + (", the profiled one under QEMU with our counting plugin (emulated mode)" if mode == "emulated"
                   else "") + ", alternating; spark-submit wall time including the JVM's start.", ""]
        rows = []
        for r, t in ovh:
            plain, prof = t[~t["profiled"]]["wall_s"], t[t["profiled"]]["wall_s"]
            rows.append({"run": r, "repeats": len(plain), "plain s (median)": round(plain.median(), 2),
                         "profiled s (median)": round(prof.median(), 2),
                         "overhead": _pct(prof.median() / plain.median() - 1),
                         "reading the recording s": round(t["export_s"].median(), 2)})
        out += [_table(pd.DataFrame(rows)), ""]
    return "\n".join(out)
