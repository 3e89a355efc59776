"""Entry points of the TBPoint rules (rules/tbpoint.smk; tables in
docs/tbpoint.md).  Scripts are thin wrappers around these."""
from __future__ import annotations

import functools
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import BOOL, F64, I32, I64, STR, stage_writer, write_json, write_text
from ..plots import bar_chart
from ..sim.hardware import OCCUPANCY_FIELDS, hardware_slice
from ..sim.output import LAUNCHES, activity_columns, write_sim_table
from ..sim.run import workload_summary, write_host_time
from ..sim.sampling import sampled_rows
from ..sim.simulator import Simulator
from ..sim.trace_reader import TraceDir
from ..versions import TBPOINT_VERSION
from .baselines import IdealSimPoint, estimate, random_sampling
from .estimate import estimated_tables
from .figures import deviation_cdf
from .floor import sample_floor
from .inter_launch import FEATURES, InterLaunchSampler, launch_features
from .markov import figure7_table, ipc_variation
from .policy import TBPointPolicy
from .regions import workload_regions

INTER = [("launch", I32, ""), ("kernel", STR, ""), ("warp_instrs", I64, ""),
         *[(f, F64, "eq. 6 feature") for f in FEATURES],
         ("cluster", I32, "complete-linkage cluster at distance threshold sigma"),
         ("representative", I32, "the cluster's launch closest to its centre"),
         ("is_representative", BOOL, ""), ("cluster_weight", F64, "cluster's share of warp instructions (Table 4)")]
EPOCHS = [("launch", I32, ""), ("epoch_size", I32, "system occupancy of the launch (eq. 8)"), ("epoch", I64, ""),
          ("first_block", I64, ""), ("last_block", I64, ""), ("n_blocks", I64, ""),
          ("stall_probability", F64, "mean over the epoch's blocks of memory requests / warp instructions (eq. 9)"),
          ("cov_mem_requests", F64, ""), ("cov_warp_instrs", F64, ""),
          ("variation_factor", F64, "max of the two CoVs (eq. 9)"), ("cluster", I32, ""),
          ("outlier", BOOL, "variation factor above the threshold: a cluster of its own"),
          ("region", I32, "homogeneous region, -1 if none")]
REGIONS = [("launch", I32, ""), ("region", I32, ""), ("cluster", I32, ""), ("start_block", I64, ""),
           ("end_block", I64, "inclusive"), ("first_epoch", I64, ""), ("n_epochs", I64, "")]
SAMPLED = [("launch", I32, ""), ("kernel", STR, ""), ("simulated", BOOL, "simulated (chosen by the launch rule)"),
           ("representative", I32, "its cluster's representative (the first of its launches simulated)"),
           ("sources", I32, "simulated launches whose CPI predicts this one (itself if simulated)"),
           ("simulated_cycles", I64, ""), ("simulated_warp_instrs", I64, ""),
           ("skipped_inter", I64, "warp instructions skipped by inter-launch sampling"),
           ("skipped_intra", I64, "warp instructions skipped inside simulated launches"),
           ("total_warp_instrs", I64, ""), ("predicted_cycles", F64, "Table 4"),
           ("l1_accesses", F64, "predicted (simulated figures scaled to the launch's instructions)"),
           ("l1_misses", F64, ""), ("l2_accesses", F64, ""), ("l2_misses", F64, "")]
BASELINES = [("method", STR, "random or ideal_simpoint"), ("draw", I32, "random draw (-1 for SimPoint)"),
             ("units", I32, "units simulated"), ("sample_size", F64, "share of warp instructions simulated"),
             ("cpi", F64, ""), ("ipc", F64, ""), ("l1_miss_rate", F64, ""), ("l2_miss_rate", F64, ""),
             ("k", I32, "SimPoint clusters (-1 for random)")]


_write = stage_writer("tbpoint_version", TBPOINT_VERSION)


def inter_launch_stage(wl: str, trace_dir, sigma: float, out, within_kernel: bool = True,
                       representative: str = "middle", scale: str = "kernel") -> pd.DataFrame:
    """Eq. 6 features and inter-launch clusters of one workload (hardware-independent)."""
    tr = TraceDir(trace_dir)
    f = launch_features(tr.launches, scale)
    t = InterLaunchSampler(sigma, within_kernel, representative).fit(f).table(f)
    _write(t, INTER, "inter_launch", out, workload=wl, sigma=sigma, within_kernel=within_kernel,
           representative=representative, scale=scale)
    print(f"{wl}: {len(t)} launches in {t['cluster'].nunique()} clusters (sigma {sigma})", file=sys.stderr)
    return t


def regions_stage(wl: str, trace_dir, hw: dict, hw_name: str, sigma: float, max_variation: float,
                  min_epochs: int, epochs_out, regions_out, variation: str = "epoch") -> None:
    """Epochs and homogeneous regions of one workload for ``hw``'s occupancy."""
    tr = TraceDir(trace_dir)
    epochs, regions = workload_regions(tr.launches, tr.blocks, hw, sigma, max_variation, min_epochs, variation)
    meta = dict(workload=wl, hardware=hw_name, sigma=sigma, max_variation=max_variation, min_epochs=min_epochs,
                variation=variation)
    _write(epochs, EPOCHS, "epochs", epochs_out, **meta)
    _write(regions, REGIONS, "regions", regions_out, **meta)
    print(f"{wl} on {hw_name}: {len(epochs)} epochs, {len(regions)} homogeneous regions", file=sys.stderr)


def sample_stage(wl: str, trace_dir, hw: dict, inter_path, regions_path, ipc_tolerance: float, out,
                 summary_out, host_time_out, progress_s: float = 0.0, functional_warming: bool = True,
                 warming_rule: str = "phases", launch_rule: str = "confidence", unit_rule: str = "turnover",
                 interval_tolerance: float = 0.03, small_launches: str = "model") -> dict:
    """TBPoint sampled simulation of one workload: the per-launch table, a
    summary and the host time (a file of its own, see simulate_workload)."""
    t0 = time.perf_counter()
    tr = TraceDir(trace_dir)
    inter = pd.read_parquet(inter_path) if inter_path else None
    regions = pd.read_parquet(regions_path) if regions_path else None
    policy = TBPointPolicy(inter, regions, ipc_tolerance, functional_warming, warming_rule, launch_rule,
                           unit_rule=unit_rule, interval_tolerance=interval_tolerance,
                           small_launches=small_launches, launches=tr.launches)
    sim = Simulator(hw, tr, progress_s=progress_s, label=f"{wl} on {hw['name']} (TBPoint)")
    res = sim.run(policy)
    rows = run_sampled_rows(tr, res, policy)
    _write(rows, SAMPLED, "tbpoint_sampled", out, workload=wl, hardware=hw["name"])
    s = summarize_sampled(rows)
    s["sample_floor"] = sample_floor(tr.launches, tr.blocks_by_launch(), inter, regions, hw,
                                     modelled=policy.modelled_groups())   # grouped once, by the run
    s["rules"] = {"inter": inter is not None, "intra": regions is not None, "warming_rule": warming_rule,
                  "launch_rule": launch_rule, "unit_rule": unit_rule, "small_launches": small_launches,
                  "functional_warming": functional_warming, "interval_tolerance": interval_tolerance,
                  "ipc_tolerance": ipc_tolerance}
    write_json({"workload": wl, "hardware": hw["name"], **s}, summary_out)
    write_host_time(host_time_out, res.info["host_seconds"], time.perf_counter() - t0)
    print(f"{wl} on {hw['name']}: TBPoint IPC {s['ipc']:.4f}, sample size {100 * s['sample_size']:.2f}%",
          file=sys.stderr)
    return s


#: the TBPoint options a sampled sweep point takes from the tbpoint config
POINT_OPTIONS = ("inter", "intra", "ipc_tolerance", "functional_warming", "warming_rule", "launch_rule",
                 "unit_rule", "interval_tolerance", "small_launches", "intra_sigma", "max_variation",
                 "min_region_epochs", "variation")


def sampled_sweep_ok(full_summary: dict, sampled_summary: dict, max_error: float) -> tuple[bool, float]:
    """Whether a sampled sweep samples a workload's points, from TBPoint's
    validation on it (its sampled run against the full simulation, at the
    validation's hardware): the IPC error of the validation table is within
    ``max_error`` and TBPoint skipped something (a sample of everything
    would cost the full simulation and TBPoint's overhead).  Returns the
    decision and the error."""
    err = abs(sampled_summary["ipc"] - full_summary["ipc"]) / full_summary["ipc"]
    return err <= max_error and sampled_summary["sample_size"] < 1.0, err


def sampled_sweep_inputs(results: str, wl: str, hw: str) -> dict:
    """The files a sampled sweep's batch of ``wl`` reads: TBPoint's
    validation on ``hw`` (the full simulation's and TBPoint's summaries) and
    the inter-launch table, by the names rule ``sweep_batch`` gives them."""
    from ..workflow import Paths
    P = Paths(results)
    return {"inter": P.tbpoint(wl, "inter_launch.parquet"),
            "validation_full": P.sim("summary.json", wl, hw),
            "validation_sampled": P.tbpoint(wl, hw, "sampled.json")}


def point_simulator(wl: str, options: dict, full_summary, sampled_summary, inter_path):
    """How a sampled sweep simulates ``wl``'s points: :func:`estimate_workload`
    bound to the workload's inter-launch table and ``options`` (the tbpoint
    settings and ``max_error``), or None (full simulation) where
    :func:`sampled_sweep_ok` says no; the decision goes to the log."""
    full, sampled = (json.loads(Path(f).read_text()) for f in (full_summary, sampled_summary))
    ok, err = sampled_sweep_ok(full, sampled, options["max_error"])
    print(f"{wl}: TBPoint's validation on {full['hardware']}: error {100 * err:.2f}% (at most "
          f"{100 * options['max_error']:g}% asked), sample {100 * sampled['sample_size']:.1f}%: "
          f"{'sampled' if ok else 'full'} simulation", file=sys.stderr)
    if not ok:
        return None
    return functools.partial(estimate_workload, inter=pd.read_parquet(inter_path), options=dict(options),
                             validation_error=err, regions_cache={})


def estimate_workload(wl: str, trace_dir, hw: dict, out_dir, *, inter: pd.DataFrame | None, options: dict,
                      validation_error: float, trace: TraceDir | None = None, progress_s: float = 0.0,
                      regions_cache: dict | None = None) -> dict:
    """A sweep point by TBPoint's sampled simulation (docs/tbpoint.md,
    "Sampled sweep points"): the regions for ``hw``'s occupancy, the sampled
    run, and the full simulation's launches and activity tables estimated
    from it (:mod:`.estimate`), with ``summary.json``, ``host_time.json`` and
    TBPoint's per-launch table (``sampled.parquet``) in ``out_dir``.
    ``options``: the :data:`POINT_OPTIONS` of the tbpoint config;
    ``regions_cache``: a dict shared by the points of one trace, so that
    points with the same occupancy fields find their regions once."""
    t0 = time.perf_counter()
    o = options
    tr = trace or TraceDir(trace_dir)
    regions = None
    if o["intra"]:
        key = json.dumps(hardware_slice(hw, OCCUPANCY_FIELDS), sort_keys=True)
        cache = regions_cache if regions_cache is not None else {}
        if key not in cache:
            cache[key] = workload_regions(tr.launches, tr.blocks, hw, o["intra_sigma"], o["max_variation"],
                                          o["min_region_epochs"], o["variation"], epochs=False)[1]
        regions = cache[key]
    policy = TBPointPolicy(inter if o["inter"] else None, regions, o["ipc_tolerance"], o["functional_warming"],
                           o["warming_rule"], o["launch_rule"], unit_rule=o["unit_rule"],
                           interval_tolerance=o["interval_tolerance"], small_launches=o["small_launches"],
                           launches=tr.launches)
    sim = Simulator(hw, tr, progress_s=progress_s, label=f"{wl} on {hw['name']} (TBPoint sweep point)")
    res = sim.run(policy)
    rows = run_sampled_rows(tr, res, policy)
    launches, activity = estimated_tables(
        tr.launches, res.launches, res.activity, {int(x): policy.sources_of(x) for x in rows["launch"]},
        dict(zip(rows["launch"].astype(int), rows["predicted_cycles"])), hw)
    out = Path(out_dir)
    meta = {"workload": wl, "hardware": hw["name"], "stage": "tbpoint_estimate", "tbpoint_version": TBPOINT_VERSION}
    write_sim_table(launches, LAUNCHES + [("simulated_share", F64, "share of the launch's warp instructions "
                                       "simulated; the rest is estimated (docs/tbpoint.md)")],
                "launches", out / "launches.parquet", meta)
    write_sim_table(activity, activity_columns(), "activity", out / "activity.parquet", meta)
    _write(rows, SAMPLED, "tbpoint_sampled", out / "sampled.parquet", workload=wl, hardware=hw["name"])
    s = summarize_sampled(rows)
    summary = workload_summary(wl, hw["name"], launches, sampled=True, sample_size=s["sample_size"],
                               tbpoint_validation_error=validation_error)
    write_json(summary, out / "summary.json")
    write_host_time(out / "host_time.json", res.info["host_seconds"], time.perf_counter() - t0)
    print(f"{wl} on {hw['name']} (TBPoint): {summary['cycles']:,} cycles predicted, IPC {summary['ipc']:.3f}, "
          f"sample {100 * s['sample_size']:.1f}%, {res.info['host_seconds']:.1f} s", file=sys.stderr)
    return summary


#: TBPoint with every rule as the seed states it (3.3-3.4.4): launches
#: clustered across kernels on workload-scaled features, the lowest launch id
#: of equally central ones, one launch per cluster, the per-block variation
#: factor, the specified block's lifetime as the unit, two consecutive units
#: within ipc_tolerance, no functional warming, small launches in their clusters
SEED_RULES = {"within_kernel": False, "representative": "first", "scale": "workload", "variation": "block",
              "functional_warming": False, "warming_rule": "consecutive", "launch_rule": "representative",
              "unit_rule": "block", "small_launches": "cluster"}


def seed_sample_stage(wl: str, trace_dir, hw: dict, sigma: float, intra_sigma: float, max_variation: float,
                      min_epochs: int, ipc_tolerance: float, out, progress_s: float = 0.0) -> dict:
    """The seed's TBPoint on one workload (:data:`SEED_RULES`), for the
    validation's comparison row: its inter-launch table and regions are
    built here (they differ from ours and nothing else reads them), then
    the sampled simulation; writes the summary (as ``sampled.json``)."""
    tr = TraceDir(trace_dir)
    r = SEED_RULES
    f = launch_features(tr.launches, r["scale"])
    inter = InterLaunchSampler(sigma, r["within_kernel"], r["representative"]).fit(f).table(f)
    _, regions = workload_regions(tr.launches, tr.blocks, hw, intra_sigma, max_variation, min_epochs, r["variation"])
    policy = TBPointPolicy(inter, regions, ipc_tolerance, r["functional_warming"], r["warming_rule"],
                           r["launch_rule"], unit_rule=r["unit_rule"], small_launches=r["small_launches"])
    res = Simulator(hw, tr, progress_s=progress_s, label=f"{wl} on {hw['name']} (TBPoint, the seed's rules)").run(policy)
    s = summarize_sampled(run_sampled_rows(tr, res, policy))
    write_json({"workload": wl, "hardware": hw["name"], "rules": "seed", **s}, out)
    print(f"{wl} on {hw['name']}: TBPoint with the seed's rules IPC {s['ipc']:.4f}, sample size "
          f"{100 * s['sample_size']:.2f}%", file=sys.stderr)
    return s


def run_sampled_rows(tr: TraceDir, res, policy: TBPointPolicy) -> pd.DataFrame:
    """Per-launch table of a finished TBPoint run: the Table 4 accounting of
    :func:`~pipeline_lib.sim.sampling.sampled_rows`, the skipped
    instructions split between inter- and intra-launch sampling, and cache
    traffic predicted from the launch (or its cluster's simulated launches)
    scaled to the launch's instructions."""
    t = sampled_rows(tr.launches, res.launches, policy)
    L = tr.launches.sort_values("launch", ignore_index=True)
    sim = res.launches.set_index("launch")
    t.insert(1, "kernel", L["kernel"].to_numpy())
    t.insert(3, "representative", [policy.representative_of(lid) for lid in t["launch"]])
    skipped = t.pop("skipped_warp_instrs")
    t.insert(6, "skipped_inter", np.where(t["simulated"], 0, skipped))
    t.insert(7, "skipped_intra", np.where(t["simulated"], skipped, 0))
    sources = [policy.sources_of(lid) for lid in t["launch"]]
    t.insert(4, "sources", np.array([len(x) for x in sources], np.int32))
    traffic = ["l1_accesses", "l1_misses", "l2_accesses", "l2_misses"]
    vals = sim[["warp_instrs", *traffic]].to_numpy(float)
    pos = {int(lid): i for i, lid in enumerate(sim.index)}
    sums = np.array([vals[[pos[int(m)] for m in x]].sum(0) for x in sources])
    scale = t["total_warp_instrs"].to_numpy(float) / np.maximum(1, sums[:, 0])
    for i, c in enumerate(traffic, 1):
        t[c] = sums[:, i] * scale
    return t


def summarize_sampled(rows: pd.DataFrame) -> dict:
    n = float(rows["total_warp_instrs"].sum())
    cyc = float(rows["predicted_cycles"].sum())
    skipped = float(rows["skipped_inter"].sum() + rows["skipped_intra"].sum())
    return {"warp_instrs": int(n), "predicted_cycles": cyc, "ipc": n / cyc if cyc else 0.0,
            "sample_size": float(rows["simulated_warp_instrs"].sum()) / n if n else 0.0,
            "skipped_inter_share": float(rows["skipped_inter"].sum()) / skipped if skipped else 0.0,
            "skipped_intra_share": float(rows["skipped_intra"].sum()) / skipped if skipped else 0.0,
            "l1_miss_rate": _rate(rows, "l1"), "l2_miss_rate": _rate(rows, "l2"),
            "launches_simulated": int(rows["simulated"].sum()), "launches": len(rows)}


def _rate(t, lvl) -> float:
    a = float(t[f"{lvl}_accesses"].sum())
    return float(t[f"{lvl}_misses"].sum()) / a if a else 0.0


def baselines_stage(wl: str, units_path, hw_name: str, random_cfg: dict, simpoint_cfg: dict, out) -> pd.DataFrame:
    """Random (several seeded draws) and Ideal-SimPoint on a full simulation's units."""
    units = pd.read_parquet(units_path)
    rnd = random_sampling(units, random_cfg["fraction"], random_cfg["draws"], random_cfg["seed"])
    rnd.insert(0, "method", "random")
    rnd["k"] = -1
    sp = IdealSimPoint(simpoint_cfg["dims"], simpoint_cfg["max_k"], simpoint_cfg["bic_fraction"],
                       simpoint_cfg["n_init"], simpoint_cfg["seed"]).fit(units)
    w = sp.unit_weights(len(units))
    simp = pd.DataFrame([{"method": "ideal_simpoint", "draw": -1, "units": len(sp.points_),
                          "sample_size": float(units["warp_instrs"].to_numpy()[sp.points_].sum()
                                               / units["warp_instrs"].sum()),
                          **estimate(units, w), "k": sp.k_}])
    t = pd.concat([rnd, simp], ignore_index=True)
    _write(t, BASELINES, "baselines", out, workload=wl, hardware=hw_name)
    return t


MARKOV = [("case", STR, "p<p>M<M>N<N> (Fig. 7 legend)"), ("p", F64, "stall probability per cycle"),
          ("M", F64, "mean stall cycles"), ("N", I32, "warps"),
          ("ipc_at_mean_M", F64, "eq. 7 IPC with every M_x = M"), ("ipc_mean", F64, "Monte Carlo mean"),
          ("ipc_std", F64, ""), ("ipc_p2_5", F64, ""), ("ipc_p97_5", F64, ""),
          ("max_rel_deviation", F64, "largest |IPC - mean| / mean"),
          ("within_10pct", F64, "share of samples within 10% of the mean (Lemma 1: above 0.95)"),
          ("samples", I32, "")]


def markov_stage(cases, samples: int, seed: int, out_table, out_figure) -> pd.DataFrame:
    """Fig. 7: the eq. 7 Monte Carlo study as a table and a deviation CDF."""
    bad = [c for c in cases if float(c[2]) != int(c[2])]
    if bad:
        raise ValueError(f"tbpoint.markov.cases: N (the third value) must be a whole number of warps, got {bad[0]}")
    cases = [(float(p), float(m), int(n)) for p, m, n in cases]
    t = figure7_table(cases, samples, seed)
    _write(t, MARKOV, "markov_fig7", out_table, samples=samples, seed=seed)
    deviation_cdf({r["case"]: ipc_variation(r["p"], r["M"], r["N"], samples, seed) for r in t.to_dict("records")},
                  out_figure)
    worst = t["within_10pct"].min()
    print(f"Fig. 7: {len(t)} cases, smallest share within 10% of the mean {100 * worst:.1f}%", file=sys.stderr)
    return t


HOST_TIME = [("workload", STR, ""), ("full_s", F64, "host seconds of the full simulation's engine run"),
             ("tbpoint_s", F64, "host seconds of the TBPoint sampled run"), ("speedup", F64, "full_s / tbpoint_s"),
             ("full_job_s", F64, "whole job, trace reading and writing included"), ("tbpoint_job_s", F64, "")]


def host_time_table(times: list[dict]) -> pd.DataFrame:
    """Host time of sampled versus full simulation per workload from
    (workload, full, tbpoint) dicts of host_time.json contents."""
    rows = [{"workload": x["workload"], "full_s": x["full"]["simulation_s"], "tbpoint_s": x["tbpoint"]["simulation_s"],
             "speedup": x["full"]["simulation_s"] / max(x["tbpoint"]["simulation_s"], 1e-3),
             "full_job_s": x["full"]["job_s"], "tbpoint_job_s": x["tbpoint"]["job_s"]} for x in times]
    return pd.DataFrame(rows).sort_values("workload", ignore_index=True)


def geomean(errors, floor: float = 1e-4) -> float:
    """Geometric mean of relative errors, each floored at 0.01% (an exact
    prediction would otherwise make the mean zero)."""
    e = np.maximum(np.asarray(errors, float), floor)
    return float(np.exp(np.log(e).mean())) if len(e) else 0.0


def longest_kernel(full_launches: pd.DataFrame, sampled: pd.DataFrame) -> dict:
    """TBPoint on the workload's longest-running kernel alone (the kernel
    with the most cycles in the full simulation), the seed's evaluation unit
    (3.5.1: "the longest-running kernel of each benchmark"): the IPC over
    its launches from their predicted cycles against the full simulation's,
    and the share of its warp instructions simulated.  Its launches are
    sampled inside the whole workload's run (warmed by what ran before)."""
    if not len(full_launches):
        return {"longest_kernel": "", "longest_error": 0.0, "longest_sample_size": 0.0}
    k = full_launches.groupby("kernel")["cycles"].sum().sort_index().idxmax()
    f = full_launches[full_launches["kernel"] == k]
    t = sampled[sampled["launch"].isin(f["launch"])]
    full_ipc = f["warp_instrs"].sum() / f["cycles"].sum()
    ipc = t["total_warp_instrs"].sum() / t["predicted_cycles"].sum()
    return {"longest_kernel": k, "longest_error": float(abs(ipc - full_ipc) / full_ipc),
            "longest_sample_size": float(t["simulated_warp_instrs"].sum() / t["total_warp_instrs"].sum())}


def _seed_columns(seed: dict | None, full_ipc: float) -> dict:
    """The seed's TBPoint's error and sample size (NaN when not run)."""
    if seed is None:
        return {"seed_rules_error": np.nan, "seed_rules_sample_size": np.nan}
    return {"seed_rules_error": abs(seed["ipc"] - full_ipc) / full_ipc, "seed_rules_sample_size": seed["sample_size"]}


def validation_table(items: list[dict]) -> pd.DataFrame:
    """One row per workload from (workload, full summary, full launches,
    TBPoint summary, TBPoint's per-launch table, baselines table) dicts:
    IPCs, errors and sample sizes of Full, TBPoint, Random and
    Ideal-SimPoint (Figs. 11-14), and TBPoint on the longest-running kernel."""
    rows = []
    for it in items:
        full_ipc = it["full"]["ipc"]
        L = it["full_launches"]
        full_l1, full_l2 = _rate(L, "l1"), _rate(L, "l2")
        tb, b = it["tbpoint"], it["baselines"]
        rnd, sp = b[b["method"] == "random"], b[b["method"] == "ideal_simpoint"].iloc[0]
        rnd_err = (rnd["ipc"] - full_ipc).abs() / full_ipc
        rows.append({
            "workload": it["workload"], "full_ipc": full_ipc,
            "tbpoint_ipc": tb["ipc"], "tbpoint_error": abs(tb["ipc"] - full_ipc) / full_ipc,
            "tbpoint_sample_size": tb["sample_size"], "tbpoint_sample_floor": tb["sample_floor"],
            "skipped_inter_share": tb["skipped_inter_share"], "skipped_intra_share": tb["skipped_intra_share"],
            "random_ipc_mean": float(rnd["ipc"].mean()), "random_error_mean": float(rnd_err.mean()),
            "random_error_std": float(rnd_err.std(ddof=0)), "random_sample_size": float(rnd["sample_size"].mean()),
            "simpoint_ipc": float(sp["ipc"]), "simpoint_error": abs(sp["ipc"] - full_ipc) / full_ipc,
            "simpoint_sample_size": float(sp["sample_size"]), "simpoint_k": int(sp["k"]),
            "full_l1_miss_rate": full_l1, "full_l2_miss_rate": full_l2,
            "tbpoint_l1_error": abs(tb["l1_miss_rate"] - full_l1), "tbpoint_l2_error": abs(tb["l2_miss_rate"] - full_l2),
            "simpoint_l1_error": abs(sp["l1_miss_rate"] - full_l1),
            "simpoint_l2_error": abs(sp["l2_miss_rate"] - full_l2),
            **longest_kernel(L, it["tbpoint_launches"]),
            **_seed_columns(it.get("seed"), full_ipc),
        })
    return pd.DataFrame(rows).sort_values("workload", ignore_index=True)


VALIDATION = [("workload", STR, ""), ("full_ipc", F64, "full simulation, warp instructions / cycles"),
              ("tbpoint_ipc", F64, ""), ("tbpoint_error", F64, "|TBPoint - Full| / Full"),
              ("tbpoint_sample_size", F64, "simulated / total warp instructions (Fig. 12)"),
              ("tbpoint_sample_floor", F64, "the least sample TBPoint's structure allows (pipeline_lib/tbpoint/floor.py)"),
              ("skipped_inter_share", F64, "share of skipped instructions skipped between launches (Fig. 13)"),
              ("skipped_intra_share", F64, "share skipped inside launches"),
              ("random_ipc_mean", F64, "mean over the draws"), ("random_error_mean", F64, ""),
              ("random_error_std", F64, "spread of the error over the draws"), ("random_sample_size", F64, ""),
              ("simpoint_ipc", F64, ""), ("simpoint_error", F64, ""), ("simpoint_sample_size", F64, ""),
              ("simpoint_k", I32, ""), ("full_l1_miss_rate", F64, ""), ("full_l2_miss_rate", F64, ""),
              ("tbpoint_l1_error", F64, "absolute miss-rate difference (Fig. 14)"), ("tbpoint_l2_error", F64, ""),
              ("simpoint_l1_error", F64, ""), ("simpoint_l2_error", F64, ""),
              ("longest_kernel", STR, "the kernel with the most cycles in the full simulation (seed 3.5.1)"),
              ("longest_error", F64, "TBPoint's IPC error over that kernel's launches"),
              ("longest_sample_size", F64, "simulated / total warp instructions of that kernel"),
              ("seed_rules_error", F64, "TBPoint with every rule the seed's (run.SEED_RULES); NaN if not run"),
              ("seed_rules_sample_size", F64, "")]


def rules_text(r: dict) -> str:
    """The options a sampled run recorded (``sampled.json``'s ``rules``), in words."""
    warming = (f"warming rule {r['warming_rule']} ({100 * r['ipc_tolerance']:g}% between consecutive units)"
               if r["warming_rule"] == "consecutive" else
               f"warming rule {r['warming_rule']} ({100 * r['interval_tolerance']:g}% intervals)")
    parts = ["inter-launch clusters" if r["inter"] else "every launch simulated",
             "homogeneous regions" if r["intra"] else "no intra-launch sampling", warming,
             f"launch rule {r['launch_rule']}", f"{r['unit_rule']} units", f"small launches {r['small_launches']}",
             "functional warming" if r["functional_warming"] else "no functional warming"]
    return ", ".join(parts)


def validate_stage(hw_name: str, items: list[dict], out_table, out_summary, fig_dir,
                   times: list[dict] | None = None, out_host_table=None, out_host_summary=None) -> pd.DataFrame:
    """The validation table, a Markdown summary with the geometric means next
    to the seed's, and Figs. 11-14 as PNG.  With ``times``, also the host
    time of sampled versus full simulation (its own files: they vary from
    run to run, everything else is the same bytes every time)."""
    if times is not None:
        h = host_time_table(times)
        _write(h, HOST_TIME, "tbpoint_host_time", out_host_table, hardware=hw_name)
        tot_full, tot_tb = float(h["full_s"].sum()), float(h["tbpoint_s"].sum())
        write_text("\n".join(
            [f"# Host time of TBPoint versus full simulation on {hw_name}", "",
             "| workload | full s | TBPoint s | speedup |", "|---|---:|---:|---:|"]
            + [f"| {r['workload']} | {r['full_s']:.2f} | {r['tbpoint_s']:.2f} | {r['speedup']:.1f} |"
               for r in h.to_dict("records")]
            + [f"| all | {tot_full:.2f} | {tot_tb:.2f} | {tot_full / max(tot_tb, 1e-3):.1f} |", ""]), out_host_summary)
    t = validation_table(items)
    _write(t, VALIDATION, "tbpoint_validation", out_table, hardware=hw_name)
    g = {k: geomean(t[c]) for k, c in (("tbpoint", "tbpoint_error"), ("random", "random_error_mean"),
                                        ("simpoint", "simpoint_error"))}
    s = {k: geomean(t[c]) for k, c in (("tbpoint", "tbpoint_sample_size"), ("random", "random_sample_size"),
                                        ("simpoint", "simpoint_sample_size"))}
    lines = [f"# TBPoint validation on {hw_name}", "",
             "| workload | full IPC | TBPoint err % | sample % | floor % | Random err % (std) | sample % "
             "| Ideal-SimPoint err % | sample % | k |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in t.to_dict("records"):
        lines.append(f"| {r['workload']} | {r['full_ipc']:.3f} | {100 * r['tbpoint_error']:.2f} | "
                     f"{100 * r['tbpoint_sample_size']:.1f} | {100 * r['tbpoint_sample_floor']:.1f} | "
                     f"{100 * r['random_error_mean']:.2f} "
                     f"({100 * r['random_error_std']:.2f}) | {100 * r['random_sample_size']:.1f} | "
                     f"{100 * r['simpoint_error']:.2f} | {100 * r['simpoint_sample_size']:.1f} | {r['simpoint_k']} |")
    lines += ["", "Geometric means (errors floored at 0.01%) and the seed's (chapter 3.5.2):", "",
              "| method | IPC error % | seed | sample size % | seed |", "|---|---:|---:|---:|---:|",
              f"| TBPoint | {100 * g['tbpoint']:.2f} | 0.47 | {100 * s['tbpoint']:.2f} | 2.6 |",
              f"| Random | {100 * g['random']:.2f} | 7.95 | {100 * s['random']:.2f} | 10 |",
              f"| Ideal-SimPoint | {100 * g['simpoint']:.2f} | 1.74 | {100 * s['simpoint']:.2f} | 5.4 |",
              f"| TBPoint, longest-running kernel of each workload (the seed's unit, 3.5.1) | "
              f"{100 * geomean(t['longest_error']):.2f} | 0.47 | {100 * geomean(t['longest_sample_size']):.2f} | 2.6 |"]
    if t["seed_rules_error"].notna().all() and len(t):
        lines.append(f"| TBPoint with the seed's rules (3.3-3.4.4: across kernels, first launch, no warming, "
                     f"consecutive units) | {100 * geomean(t['seed_rules_error']):.2f} | 0.47 | "
                     f"{100 * geomean(t['seed_rules_sample_size']):.2f} | 2.6 |")
    lines.append("")
    rules = {json.dumps(it["tbpoint"]["rules"], sort_keys=True) for it in items if "rules" in it["tbpoint"]}
    if len(rules) == 1:
        lines += [f"TBPoint's rules in this run: {rules_text(json.loads(rules.pop()))} (`tbpoint.*`, "
                  "docs/configuration.md).", ""]
    lines += [f"The floor is the least sample any setting of TBPoint's rules could reach on these inputs (one launch "
              f"per cluster, a group's pilot of small launches where they are modelled, two units of warming per "
              f"region, docs/tbpoint.md); its geometric mean is "
              f"{100 * geomean(t['tbpoint_sample_floor']):.2f}%.", ""]
    err = t["tbpoint_error"]
    l1, l2 = t["tbpoint_l1_error"].mean(), t["tbpoint_l2_error"].mean()
    lines += [f"TBPoint's plain mean error {100 * err.mean():.2f}%, maximum {100 * err.max():.2f}% "
              f"({t.loc[err.idxmax(), 'workload'] if len(t) else '-'}), {int((err > 0.03).sum())} workload(s) "
              f"above 3%; mean L1 / L2 miss-rate errors {100 * l1:.2f} / {100 * l2:.2f} points "
              "(seed 2.2 / 2.9).", ""]
    checks = [("geometric-mean error at most 0.5%", g["tbpoint"] <= 0.005),
              ("no workload above 3%", bool((err <= 0.03).all())),
              ("geometric-mean sample size at most 10%", s["tbpoint"] <= 0.10),
              ("miss-rate errors at most the seed's", bool(l1 <= 0.022 and l2 <= 0.029))]
    lines.append("Targets (docs/tbpoint.md): " + "; ".join(f"{name}: {'met' if ok else 'NOT met'}"
                                                           for name, ok in checks) + ".")
    write_text("\n".join(lines) + "\n", out_summary)
    _figures(t, Path(fig_dir), hw_name)
    return t


def _figures(t: pd.DataFrame, d: Path, hw_name: str) -> None:
    specs = [
        ("fig11_ipc.png", "Overall IPC", [("Full", "full_ipc"), ("TBPoint", "tbpoint_ipc"),
                                          ("Random", "random_ipc_mean"), ("Ideal-SimPoint", "simpoint_ipc")], 1),
        ("fig12_sample_size.png", "Total sample size (%)", [("TBPoint", "tbpoint_sample_size"),
                                                            ("Random", "random_sample_size"),
                                                            ("Ideal-SimPoint", "simpoint_sample_size")], 100),
        ("fig13_skipped_split.png", "Skipped instructions (%)", [("inter-launch", "skipped_inter_share"),
                                                                 ("intra-launch", "skipped_intra_share")], 100),
        ("fig14_miss_rate_error.png", "Miss-rate error (points)", [("TBPoint L1", "tbpoint_l1_error"),
                                                                   ("SimPoint L1", "simpoint_l1_error"),
                                                                   ("TBPoint L2", "tbpoint_l2_error"),
                                                                   ("SimPoint L2", "simpoint_l2_error")], 100),
    ]
    for fname, ylabel, series, scale in specs:
        bar_chart(t, "workload", series, scale, ylabel, f"{ylabel} on {hw_name}", d / fname)
