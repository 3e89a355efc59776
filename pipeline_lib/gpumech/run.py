"""Entry points of the GPUMech rules (rules/gpumech.smk; tables in
docs/gpumech.md): the model on one workload, and its validation against
the detailed simulator (seed 000, 4.6)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from ..io import F64, I32, I64, STR, stage_writer, write_json, write_text
from ..plots import bar_chart, pyplot, save
from ..sim.trace_reader import TraceDir
from ..versions import GPUMECH_VERSION
from .analysis import CLASSES, COLLECTORS, GPUMech, collected_from_frame
from .contention import MODEL as CONTENTION_MODEL
from .contention import STACK_C, TERMS
from .model import MODELS, POLICIES, STACK

# Table 8's models, then the contention-aware model (docs/gpumech.md)
ALL_MODELS = MODELS + (CONTENTION_MODEL,)
STACK_ALL = list(dict.fromkeys(STACK + STACK_C))

PREDICTIONS = [("launch", I32, ""), ("selection", STR, "representative warp: clustering (4.3.3), max or min (Fig. 23)"),
               ("policy", STR, "rr or gto"),
               ("model", STR, f"Table 8, {CONTENTION_MODEL}, or {CONTENTION_MODEL}-<term> (without that term)"),
               ("cpi", F64, "predicted cycles per warp instruction of one core")]
STACKS = [("launch", I32, ""), ("policy", STR, ""), ("model", STR, f"MT_MSHR_BAND or {CONTENTION_MODEL}")] + \
    [(k, F64, "CPI of the category (0 where the model has none)") for k in STACK_ALL]
LAUNCHES = [("launch", I32, ""), ("kernel", STR, ""), ("blocks", I64, ""), ("system_occupancy", I64, ""),
            ("warps_per_core", I64, "SM occupancy x warps per block"),
            ("representative", I64, "launch-wide warp id chosen by clustering"), ("warp_max", I64, ""),
            ("warp_min", I64, ""), ("avg_miss_latency", F64, "eq. 28 input, cycles"),
            ("l1_miss_rate", F64, "collector: load requests missing the L1"),
            ("l2_miss_rate", F64, "collector: L2 requests missing"),
            ("lines_per_mem_inst", F64, "collector: 128-byte lines per global/local memory instruction"),
            ("atomic_insts", I64, "collector: global atomic warp instructions"),
            ("workload_class", STR, f"{', '.join(CLASSES)} (analysis.workload_class)"),
            *[(f"ordered_{lvl}_miss_rate_{p}", F64, f"scheduler-ordered collector under {p}: {lvl.upper()} miss rate")
              for p in POLICIES for lvl in ("l1", "l2")],
            *[(f"in_step_{p}", F64, f"scheduler-ordered collector under {p}: share of issues in step with the "
                                    "core's other warps (the measured reading's weight)") for p in POLICIES]]
COLLECTED = [("launch", I32, ""), ("collector", STR, f"{', '.join(COLLECTORS)} (analysis.COLLECTORS)"),
             ("pcs", I64, "rows of the per-PC table (the kernel's PCs)"),
             ("counts", pa.list_(pa.int64()), "per-PC table flattened row by row (collector.PC_* columns)"),
             ("slice_requests", pa.list_(pa.int64()), "the launch's requests per L2 slice"),
             ("channel_transfers", pa.list_(pa.int64()), "the launch's DRAM transfers per channel"),
             ("in_step", F64, "scheduler-ordered collectors: share of issues in step (0 for round-robin)"),
             ("insts", I64, "the launch's warp instructions (from the trace)"),
             ("smem_ways", I64, "the launch's shared-memory ways (from the trace)")]
HOST = ["collector_s", "ordered_collector_s", "intervals_s", "select_s", "model_s"]

# the CPI stack against the simulation's stall breakdown: model categories
# grouped into the simulator's (engine.STALL_NAMES; queueing at a level is
# waiting for that level in the simulator, the launch tail its idle SMs)
STACK_GROUPS = {"BASE": ("BASE",), "DEP": ("DEP",), "L1": ("L1",), "L2": ("L2", "L2_QUEUE"),
                "DRAM": ("DRAM", "DRAM_QUEUE"), "MSHR": ("MSHR",), "LSU": ("LSU", "SMEM"), "IDLE": ("TAIL",)}
SIM_GROUPS = {"BASE": ("BASE",), "DEP": ("DEP",), "L1": ("L1",), "L2": ("L2",), "DRAM": ("DRAM",),
              "MSHR": ("MSHR",), "LSU": ("LSU", "SMEM"), "IDLE": ("IDLE",)}
SIM_STALLS = [("launch", I32, ""), ("cycles", I64, ""), ("warp_instrs", I64, ""),
              *[(k, I64, "SM-cycles in this category (engine.STALL_NAMES; they sum to cycles x cores)")
                for k in ("BASE", "DEP", "L1", "L2", "DRAM", "MSHR", "LSU", "SMEM", "IDLE")]]
STACK_CHECK = [("workload", STR, ""), ("policy", STR, ""), ("source", STR, f"{CONTENTION_MODEL} or simulation"),
               ("launches", I64, "validated launches averaged"),
               *[(k, F64, "CPI of the category") for k in STACK_GROUPS], ("cpi", F64, "sum of the categories")]


_write = stage_writer("gpumech_version", GPUMECH_VERSION)


def analyse_stage(wl: str, trace_dir, hw: dict, hw_name: str, out_dir, representatives_from=None,
                  sync: dict | None = None, collected_from=None, pacing: bool = False) -> dict:
    """GPUMech on every launch of one workload: predictions, CPI stacks,
    per-launch inputs, the collectors' counts; host seconds go to
    ``host_time.json`` alone.  With ``representatives_from`` (the
    ``launches.parquet`` of the base configuration) the representative
    warps are reused (4.6.5); with ``collected_from`` (the base's
    ``collected.parquet``, same ``analysis.collection_key``) its counts are
    reused and no collector runs; ``sync``: ``gpumech.contention_sync``;
    ``pacing``: ``gpumech.collector_pacing``."""
    t0 = time.perf_counter()
    reps = collected = None
    if representatives_from:
        b = pd.read_parquet(representatives_from)
        reps = dict(zip(b["launch"].astype(int), b["representative"].astype(int)))
    if collected_from:
        try:
            collected = collected_from_frame(pd.read_parquet(collected_from))
        except (KeyError, ValueError) as e:
            raise ValueError(f"{collected_from}: not a GPUMech collection table ({e})") from e
    try:
        res = GPUMech(hw, reps, sync, collected, pacing).run(TraceDir(trace_dir))
    except ValueError as e:
        if collected_from:
            raise ValueError(f"{collected_from}: {e}") from e
        raise
    out = Path(out_dir)
    meta = dict(workload=wl, hardware=hw_name)
    _write(res["predictions"], PREDICTIONS, "gpumech_predictions", out / "predictions.parquet", **meta)
    _write(res["stacks"].reindex(columns=[c for c, _, _ in STACKS]).fillna(0.0), STACKS, "gpumech_cpi_stacks",
           out / "stacks.parquet", **meta)
    _write(res["launches"], LAUNCHES, "gpumech_launches", out / "launches.parquet", **meta)
    _write(res["collected"], COLLECTED, "gpumech_collected", out / "collected.parquet",
           reused_from=str(collected_from or ""), **meta)
    L = res["launches"]
    host = {k: round(float(L[k].sum()), 4) for k in HOST}
    host["reused_collection"] = bool(collected_from)
    host["job_s"] = round(time.perf_counter() - t0, 3)
    write_json(host, out / "host_time.json")
    print(f"{wl} on {hw_name}: {len(L)} launches, model parts {sum(host[k] for k in HOST):.2f} s", file=sys.stderr)
    return host


def sim_stalls_stage(wl: str, trace_dir, hw: dict, hw_name: str, out) -> None:
    """The detailed simulation's stall breakdown per launch (the CPI stack
    it is compared with; docs/simulator.md, "Stall breakdown")."""
    from ..sim.simulator import Simulator
    st = Simulator(hw, TraceDir(trace_dir), label=f"{wl} on {hw_name}", stall_breakdown=True).run().stalls
    _write(st, SIM_STALLS, "gpumech_sim_stalls", out, workload=wl, hardware=hw_name)


def per_cycle_stack(st: pd.DataFrame, issue_width: int) -> pd.DataFrame:
    """MT_CONTENTION's stack rows in the simulator's accounting, where a
    cycle is BASE when the core issues and a stall otherwise: the model
    splits each warp's time, so that its BASE (the issue station's
    residence) is below the issue cycles whenever other warps' stalls
    overlap it.  Here BASE = 1 / issue width (one issue slot per
    instruction, at most the CPI less the tail), TAIL stays, and the rest of
    the CPI is shared among the other categories in the model's
    proportions."""
    cats = st.reindex(columns=STACK_ALL).fillna(0.0)
    cpi = cats.sum(axis=1)
    tail = cats["TAIL"]
    base = np.minimum(1.0 / issue_width, cpi - tail)
    stall_cols = [c for c in STACK_ALL if c not in ("BASE", "TAIL")]
    stalls = cats[stall_cols]
    scale = (cpi - tail - base) / stalls.sum(axis=1).replace(0.0, np.nan)
    out = stalls.mul(scale.fillna(0.0), axis=0)
    out["BASE"], out["TAIL"] = base + np.where(stalls.sum(axis=1) > 0, 0.0, cpi - tail - base), tail
    return out


def stack_check(items: list[dict], t: pd.DataFrame, issue_width: int = 1) -> pd.DataFrame:
    """Per workload and policy: MT_CONTENTION's CPI stack (in the
    simulator's accounting, :func:`per_cycle_stack`) and the simulated
    stall breakdown in the same categories (:data:`STACK_GROUPS`), each the
    mean over the launches of the validation table ``t``."""
    rows = []
    for it in items:
        for policy in POLICIES:
            keep = t.loc[(t["workload"] == it["workload"]) & (t["policy"] == policy), "launch"]
            if not len(keep) or policy not in it.get("stalls", {}):
                continue
            st = it["stacks"]
            st = per_cycle_stack(st[(st["policy"] == policy) & (st["model"] == CONTENTION_MODEL)
                                    & st["launch"].isin(keep)], issue_width)
            sim = it["stalls"][policy]
            sim = sim[sim["launch"].isin(keep)]
            per_inst = sim.drop(columns=["launch", "cycles", "warp_instrs"]).div(sim["warp_instrs"], axis=0)
            for source, frame, groups in ((CONTENTION_MODEL, st, STACK_GROUPS), ("simulation", per_inst, SIM_GROUPS)):
                cats = {k: float(frame.reindex(columns=list(v)).fillna(0.0).sum(axis=1).mean())
                        for k, v in groups.items()}
                rows.append({"workload": it["workload"], "policy": policy, "source": source, "launches": len(keep),
                             **cats, "cpi": sum(cats.values())})
    return pd.DataFrame(rows, columns=[c for c, _, _ in STACK_CHECK])


def _stack_check_figure(sc: pd.DataFrame, path) -> None:
    """Per policy (rows) and workload: MT_CONTENTION's stack beside the
    simulated stall breakdown, normalised by the simulated CPI."""
    plt = pyplot()
    pols = [p for p in POLICIES if (sc["policy"] == p).any()] or ["(none)"]
    wls = list(dict.fromkeys(sc["workload"]))
    fig, axes = plt.subplots(len(pols), 1, figsize=(max(6, 0.9 * len(wls) + 2), 3.4 * len(pols)), squeeze=False)
    colors = dict(zip(STACK_GROUPS, plt.rcParams["axes.prop_cycle"].by_key()["color"] * 2))
    for ax, pol in zip(axes[:, 0], pols):
        for i, wl in enumerate(wls):
            g = sc[(sc["workload"] == wl) & (sc["policy"] == pol)].set_index("source")
            if "simulation" not in g.index:
                continue
            norm = float(g.loc["simulation", "cpi"]) or 1.0
            for j, source in enumerate((CONTENTION_MODEL, "simulation")):
                bottom = 0.0
                for k in STACK_GROUPS:
                    v = float(g.loc[source, k]) / norm if source in g.index else 0.0
                    ax.bar(i + (j - 0.5) * 0.38, v, 0.36, bottom=bottom, color=colors[k],
                           label=k if i == 0 and j == 0 else None, hatch="//" if j else None)
                    bottom += v
        ax.set_xticks(range(len(wls)), wls, rotation=30, ha="right", fontsize=7)
        ax.set_ylabel("CPI / simulated CPI")
        ax.set_title(f"{pol.upper()}: {CONTENTION_MODEL} (left) and the simulation's stalls (right, hatched)",
                     fontsize=9)
        ax.legend(fontsize=6, ncol=4)
    save(fig, path)


VALIDATION = [("workload", STR, ""), ("launch", I32, ""), ("kernel", STR, ""), ("policy", STR, ""),
              ("blocks", I64, ""), ("warps_per_core", I64, ""), ("workload_class", STR, ""),
              ("sim_cpi", F64, "detailed simulation: cycles x cores / warp instructions"),
              *[(f"cpi_{m}", F64, f"{m} prediction") for m in ALL_MODELS],
              *[(f"err_{m}", F64, f"|{m} - sim| / sim (CPI-relative)") for m in ALL_MODELS],
              *[(f"ipc_err_{m}", F64, f"|IPC_{m} - IPC_sim| / IPC_sim = |{m} - sim| / {m}") for m in ALL_MODELS],
              *[(f"err_without_{t}", F64, f"{CONTENTION_MODEL} without its {t} term, CPI-relative error")
                for t in TERMS],
              ("err_max_warp", F64, "GPUMech error with the MAX warp (Fig. 23)"),
              ("err_min_warp", F64, "GPUMech error with the MIN warp"),
              ("collector_l1_miss_rate", F64, "round-robin input collector, the seed's models' (Fig. 32)"),
              ("ordered_l1_miss_rate", F64, f"scheduler-ordered collector of the row's policy ({CONTENTION_MODEL})"),
              ("sim_l1_miss_rate", F64, "detailed simulation"), ("collector_l2_miss_rate", F64, ""),
              ("ordered_l2_miss_rate", F64, ""), ("sim_l2_miss_rate", F64, "")]
SEED_AVG_ERROR = {("rr", "MT_MSHR_BAND"): 13.2, ("gto", "MT_MSHR_BAND"): 14.0,
                  ("rr", "Markov_Chain"): 62.9, ("gto", "Markov_Chain"): 65.3}


def validation_table(items: list[dict], cores: int, min_waves: float, policies=POLICIES) -> pd.DataFrame:
    """One row per (workload, launch, policy) for launches with at least
    ``min_waves`` x system occupancy blocks (4.6.1), from dicts with the
    workload, its GPUMech ``predictions`` and ``launches`` tables and the
    simulator's ``launches`` table per policy (``sim``)."""
    rows = []
    for it in items:
        L = it["launches"].set_index("launch")
        P = it["predictions"]
        for policy in policies:
            sim = it["sim"][policy].set_index("launch")
            for lid, l in L.iterrows():
                if l["blocks"] < min_waves * l["system_occupancy"]:
                    continue
                s = sim.loc[lid]
                sim_cpi = float(s["cycles"]) * cores / float(s["warp_instrs"])
                p = P[(P["launch"] == lid) & (P["policy"] == policy)]
                cpi = {(r["selection"], r["model"]): r["cpi"] for r in p.to_dict("records")}
                row = {"workload": it["workload"], "launch": lid, "kernel": l["kernel"], "policy": policy,
                       "blocks": int(l["blocks"]), "warps_per_core": int(l["warps_per_core"]),
                       "workload_class": l["workload_class"], "sim_cpi": sim_cpi}
                for m in ALL_MODELS:
                    row[f"cpi_{m}"] = cpi[("clustering", m)]
                    row[f"err_{m}"] = abs(cpi[("clustering", m)] - sim_cpi) / sim_cpi
                    row[f"ipc_err_{m}"] = abs(cpi[("clustering", m)] - sim_cpi) / cpi[("clustering", m)]
                for t in TERMS:
                    row[f"err_without_{t}"] = abs(cpi[("clustering", f"{CONTENTION_MODEL}-{t}")] - sim_cpi) / sim_cpi
                for sel in ("max", "min"):     # absent where the representative was reused
                    row[f"err_{sel}_warp"] = abs(cpi.get((sel, "MT_MSHR_BAND"), np.nan) - sim_cpi) / sim_cpi
                for lvl in ("l1", "l2"):
                    row[f"collector_{lvl}_miss_rate"] = float(l[f"{lvl}_miss_rate"])
                    row[f"ordered_{lvl}_miss_rate"] = float(l[f"ordered_{lvl}_miss_rate_{policy}"])
                    row[f"sim_{lvl}_miss_rate"] = float(s[f"{lvl}_miss_rate"])
                rows.append(row)
    cols = [c for c, _, _ in VALIDATION]
    return pd.DataFrame(rows, columns=cols).sort_values(["policy", "workload", "launch"], ignore_index=True)


def summary_budget(t: pd.DataFrame) -> list[str]:
    """The error budget of the contention model: its mean CPI-relative error
    with each term removed, and what the term removes."""
    out = ["", f"Error budget of {CONTENTION_MODEL} (mean CPI-relative error, %; each row removes one term):", "",
           "| without | RR | removed (RR) | GTO | removed (GTO) |", "|---|---:|---:|---:|---:|"]
    for term in TERMS:
        cells = []
        for pol in POLICIES:
            sel = t[t["policy"] == pol]
            full, without = sel[f"err_{CONTENTION_MODEL}"].mean(), sel[f"err_without_{term}"].mean()
            cells += [f"{100 * without:.1f}", f"{100 * (without - full):+.1f}"] if len(sel) else ["-", "-"]
        out.append(f"| {term} | " + " | ".join(cells) + " |")
    return out


def summary_classes(t: pd.DataFrame) -> list[str]:
    """Mean CPI-relative error by workload class and the share of launches
    within 20%, for GPUMech and the contention model."""
    out = ["", "By workload class (mean CPI-relative error, %; launches):", "",
           "| class | policy | launches | MT_MSHR_BAND | " + CONTENTION_MODEL + " |", "|---|---|---:|---:|---:|"]
    for (cls, pol), g in t.groupby(["workload_class", "policy"]):
        out.append(f"| {cls} | {pol} | {len(g)} | {100 * g['err_MT_MSHR_BAND'].mean():.1f} | "
                   f"{100 * g[f'err_{CONTENTION_MODEL}'].mean():.1f} |")
    for pol in POLICIES:
        sel = t[t["policy"] == pol]
        if len(sel):
            out.append(f"\nWithin 20% ({pol}): MT_MSHR_BAND {100 * (sel['err_MT_MSHR_BAND'] <= 0.2).mean():.0f}% of "
                       f"the launches, {CONTENTION_MODEL} {100 * (sel[f'err_{CONTENTION_MODEL}'] <= 0.2).mean():.0f}%.")
    return out


def summary_stack_check(sc: pd.DataFrame) -> list[str]:
    """Per category: the mean over workloads of MT_CONTENTION's CPI and the
    simulation's, as shares of the simulated CPI."""
    out = ["", f"CPI stack of {CONTENTION_MODEL} against the simulation's stall breakdown (Fig. 34; mean over "
               "workloads of each category's CPI as a share of the simulated CPI, %, model / simulation):", "",
           "| policy | " + " | ".join(STACK_GROUPS) + " |", "|---|" + "---:|" * len(STACK_GROUPS)]
    for pol in POLICIES:
        g = sc[sc["policy"] == pol]
        if not len(g):
            continue
        m = g[g["source"] == CONTENTION_MODEL].set_index("workload")
        sim = g[g["source"] == "simulation"].set_index("workload")
        norm = sim["cpi"].replace(0.0, np.nan)
        cells = [f"{100 * (m[k] / norm).mean():.0f} / {100 * (sim[k] / norm).mean():.0f}" for k in STACK_GROUPS]
        out.append(f"| {pol} | " + " | ".join(cells) + " |")
    return out


MIN_MISS_RATE = 0.05


def _miss_rate_errors(t: pd.DataFrame, lvl: str, collector: str = "collector") -> pd.Series:
    """|collector - simulation| / simulation for rows whose simulated rate is
    at least 5% (4.6.4: small rates make relative errors meaningless);
    ``collector``: ``collector`` (round-robin) or ``ordered``."""
    sim = t[f"sim_{lvl}_miss_rate"]
    keep = sim >= MIN_MISS_RATE
    return ((t.loc[keep, f"{collector}_{lvl}_miss_rate"] - sim[keep]).abs() / sim[keep]).reset_index(drop=True)


def validate_stage(hw_name: str, items: list[dict], cores: int, min_waves: float, out_table, out_summary,
                   fig_dir, times: list[dict], out_host_summary, out_stack_check=None,
                   issue_width: int = 1) -> pd.DataFrame:
    """The validation table, a summary with the average errors next to the
    seed's and the collector's miss-rate error, Figs. 27-28 (errors per
    workload) and 32 (miss rates), and the host time in a file of its own."""
    t = validation_table(items, cores, min_waves)
    _write(t, VALIDATION, "gpumech_validation", out_table, hardware=hw_name, min_waves=min_waves)
    lines = [f"# GPUMech validation on {hw_name}", "",
             f"{int((t['policy'] == 'rr').sum())} launches with at least {min_waves:g} x system occupancy blocks, "
             f"{t['workload'].nunique()} workloads.", "",
             "Average error (%) against the detailed simulation. CPI-relative: |CPI_model - CPI_sim| / CPI_sim; "
             "IPC-relative: |IPC_model - IPC_sim| / IPC_sim, the metric of the seed's figures (4.6.2; they exceed "
             "100% for models that under-predict CPI), so the seed's numbers are in brackets there.", "",
             "| model | RR CPI-rel. | RR IPC-rel. | GTO CPI-rel. | GTO IPC-rel. |", "|---|---:|---:|---:|---:|"]
    for m in ALL_MODELS:
        cells = []
        for pol in POLICIES:
            sel = t[t["policy"] == pol]
            seed = SEED_AVG_ERROR.get((pol, m))
            cells.append(f"{100 * sel[f'err_{m}'].mean():.1f}" if len(sel) else "-")
            cells.append(f"{100 * sel[f'ipc_err_{m}'].mean():.1f}" + (f" ({seed})" if seed else "") if len(sel) else "-")
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    lines += summary_budget(t) + summary_classes(t)
    if out_stack_check is not None:
        sc = stack_check(items, t, issue_width)
        _write(sc, STACK_CHECK, "gpumech_stack_check", out_stack_check, hardware=hw_name)
        _stack_check_figure(sc, Path(fig_dir) / "fig34_stacks_vs_simulation.png")
        lines += summary_stack_check(sc)
    for pol in POLICIES:
        sel = t[t["policy"] == pol]
        if len(sel):
            lines.append(f"\nRepresentative warp ({pol}): clustering {100 * sel['err_MT_MSHR_BAND'].mean():.1f}%, "
                         f"MAX {100 * sel['err_max_warp'].mean():.1f}%, MIN {100 * sel['err_min_warp'].mean():.1f}% "
                         "(Fig. 23).")
    d = Path(fig_dir)
    lines += ["", "Input collectors against the simulation (Fig. 32): mean absolute relative miss-rate error "
                  f"over launches whose simulated rate is at least {100 * MIN_MISS_RATE:.0f}% (the seed's rule); "
                  f"round-robin: the seed's models' collector, scheduler-ordered: {CONTENTION_MODEL}'s:", ""]
    for pol in POLICIES:
        sel = t[t["policy"] == pol]
        for collector, label in (("collector", "round-robin"), ("ordered", "scheduler-ordered")):
            errs = {lvl: _miss_rate_errors(sel, lvl, collector) for lvl in ("l1", "l2")}
            lines.append(f"- {pol.upper()}, {label}: " + ", ".join(
                f"{lvl.upper()} {100 * e.mean():.1f}% ({len(e)} launches)" if len(e)
                else f"{lvl.upper()} none qualifies" for lvl, e in errs.items()))
    write_text("\n".join(lines) + "\n", out_summary)
    h = pd.DataFrame(times)
    if len(h):
        model_s = h[HOST].sum(axis=1)
        reeval_s = h["ordered_collector_s"] / len(POLICIES) + h["model_s"]
        hl = [f"# GPUMech host time on {hw_name}", "",
              "GPUMech parts (round-robin collector, scheduler-ordered collector per scheduler, interval algorithm "
              "over all warps, selection, models) against the detailed simulation's engine; re-evaluation = "
              f"the scheduler-ordered collector of one scheduler + models ({CONTENTION_MODEL} for the configured "
              "scheduler, representative known, 4.6.5): the cost where a configuration changes what the "
              "collector counts.  A timing-only change reuses the counts and runs no collector: "
              "benchmarks/gpumech_reevaluation.py times both against simulation (docs/gpumech.md, "
              "\"Re-evaluation\").", "",
              "| workload | GPUMech s | re-evaluation s | simulation s | speedup | re-eval. speedup |",
              "|---|---:|---:|---:|---:|---:|"]
        for r, ms, rs in zip(h.to_dict("records"), model_s, reeval_s):
            hl.append(f"| {r['workload']} | {ms:.2f} | {rs:.2f} | {r['sim_s']:.2f} | "
                      f"{r['sim_s'] / max(ms, 1e-3):.1f} | {r['sim_s'] / max(rs, 1e-3):.1f} |")
        hl.append(f"| all | {model_s.sum():.2f} | {reeval_s.sum():.2f} | {h['sim_s'].sum():.2f} | "
                  f"{h['sim_s'].sum() / max(model_s.sum(), 1e-3):.1f} | "
                  f"{h['sim_s'].sum() / max(reeval_s.sum(), 1e-3):.1f} |")
        hl += ["", "Host times vary from run to run (this file alone); every other output is reproducible."]
        write_text("\n".join(hl) + "\n", out_host_summary)
    fig32 = []
    for (pol, wl), g in t.groupby(["policy", "workload"]):
        fig32.append({"label": f"{wl} {pol}", **{f"{c}_{lvl}": _miss_rate_errors(g, lvl, c).mean()
                                                 for c in ("collector", "ordered") for lvl in ("l1", "l2")}})
    series = [(f"{lvl.upper()} {name}", f"{c}_{lvl}") for c, name in (("collector", "round-robin"),
                                                                     ("ordered", "scheduler-ordered"))
              for lvl in ("l1", "l2")]
    fig32 = pd.DataFrame(fig32, columns=["label"] + [c for _, c in series]).fillna(0.0)
    bar_chart(fig32, "label", series, 100, "miss-rate error (%)",
              f"Input collector vs simulation ({hw_name})", d / "fig32_miss_rate_error.png")
    for pol, fig in (("rr", "fig27_errors_rr.png"), ("gto", "fig28_errors_gto.png")):
        sel = t[t["policy"] == pol]
        per_wl = sel.groupby("workload", as_index=False)[[f"err_{m}" for m in ALL_MODELS]].mean()
        bar_chart(per_wl, "workload", [(m, f"err_{m}") for m in ALL_MODELS], 100, "CPI error (%)",
                  f"Model errors, {pol.upper()} ({hw_name})", d / fig)
    return t


SWEEP_KEYS = {"w": ("fig29_warps.png", "warps per core"), "mshr": ("fig30_mshrs.png", "L1 MSHR entries"),
              "mc": ("fig31_dram_clock.png", "DRAM clock (MHz; bandwidth in proportion)")}
SWEEPS = [("key", STR, "swept variant key (docs/hardware.md)"), ("value", I64, ""), ("hardware", STR, ""),
          ("dram_bandwidth_gbs", F64, ""), ("model", STR, "Table 8"), ("policy", STR, ""),
          ("avg_error", F64, "mean relative CPI error over the validated launches"), ("launches", I64, "")]
STACK_TABLE = [("workload", STR, ""), ("warps", I64, "sm_limits.warps of the configuration"),
               ("hardware", STR, ""), ("model", STR, f"MT_MSHR_BAND or {CONTENTION_MODEL}"),
               *[(k, F64, "mean over the validated launches, CPI") for k in STACK_ALL],
               ("gpumech_cpi", F64, "sum of the stack"), ("sim_cpi", F64, "detailed simulation (the oracle)")]


def sweep_stage(points: list[dict], cores: int, min_waves: float, stack_workloads: list[str], out_table,
                out_stacks, fig_dir) -> pd.DataFrame:
    """Figs. 29-31 and 33 from configurations that vary one field of a base
    (4.6.3, 4.7.1).  ``points``: dicts with key, value, hardware, bandwidth,
    warps (sm_limits.warps) and ``items`` (as :func:`validation_table`'s,
    simulated under the configuration's own scheduler, ``policy``)."""
    rows, stack_rows = [], []
    for pt in points:
        t = validation_table(pt["items"], cores, min_waves, policies=(pt["policy"],))
        for m in ALL_MODELS:
            rows.append({"key": pt["key"], "value": pt["value"], "hardware": pt["hardware"],
                         "dram_bandwidth_gbs": pt["bandwidth"], "model": m, "policy": pt["policy"],
                         "avg_error": float(t[f"err_{m}"].mean()) if len(t) else float("nan"), "launches": len(t)})
        if pt["key"] != "w":
            continue
        for it in pt["items"]:
            if it["workload"] not in stack_workloads:
                continue
            keep = t.loc[t["workload"] == it["workload"], "launch"]
            st = it["stacks"]
            st = st[(st["policy"] == pt["policy"]) & st["launch"].isin(keep)]
            for model, sm in st.groupby("model"):
                mean = sm.reindex(columns=STACK_ALL).fillna(0.0).mean()
                stack_rows.append({"workload": it["workload"], "warps": pt["warps"], "hardware": pt["hardware"],
                                   "model": model, **mean.to_dict(), "gpumech_cpi": float(mean.sum()),
                                   "sim_cpi": float(t.loc[t["workload"] == it["workload"], "sim_cpi"].mean())})
    sw = pd.DataFrame(rows, columns=[c for c, _, _ in SWEEPS]).sort_values(["key", "value", "model"], ignore_index=True)
    _write(sw, SWEEPS, "gpumech_sweeps", out_table)
    stacks = pd.DataFrame(stack_rows, columns=[c for c, _, _ in STACK_TABLE]).sort_values(
        ["workload", "model", "warps"], ignore_index=True)
    _write(stacks, STACK_TABLE, "gpumech_cpi_stacks", out_stacks)
    d = Path(fig_dir)
    for key, (fname, xlabel) in SWEEP_KEYS.items():
        _sweep_figure(sw[sw["key"] == key], xlabel, d / fname)
    _stacks_figure(stacks, d / "fig33_cpi_stacks.png")
    return sw


def _sweep_figure(sw: pd.DataFrame, xlabel: str, path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for m in MODELS:
        g = sw[sw["model"] == m].sort_values("value")
        ax.plot(g["value"], 100 * g["avg_error"], "-o", label=m)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("average CPI error (%)")
    ax.legend(fontsize=7)
    save(fig, path)


def _stacks_figure(stacks: pd.DataFrame, path) -> None:
    """Fig. 33: per workload (columns) and model (rows: GPUMech and the
    contention model), the CPI stack at each warp count, normalised by the
    simulated CPI of the fewest warps, with the simulated CPI (the oracle)
    as a line."""
    plt = pyplot()
    wls = list(dict.fromkeys(stacks["workload"])) or ["(none)"]
    models = list(dict.fromkeys(stacks["model"])) or ["(none)"]
    fig, axes = plt.subplots(len(models), len(wls), figsize=(4 * len(wls), 3.2 * len(models)), squeeze=False)
    for row, model in enumerate(models):
        for ax, wl in zip(axes[row], wls):
            g = stacks[(stacks["workload"] == wl) & (stacks["model"] == model)].sort_values("warps")
            if not len(g):
                continue
            norm = float(g["sim_cpi"].iloc[0]) or 1.0
            x = np.arange(len(g))
            bottom = np.zeros(len(g))
            for k in STACK_ALL:
                v = g[k].to_numpy() / norm
                if not v.any():
                    continue
                ax.bar(x, v, 0.6, bottom=bottom, label=k)
                bottom += v
            ax.plot(x, g["sim_cpi"].to_numpy() / norm, "k-o", label="simulation")
            ax.set_xticks(x, [str(w) for w in g["warps"]])
            ax.set_xlabel("warps per core")
            ax.set_title(f"{wl}: {model}", fontsize=9)
            ax.legend(fontsize=5)
        axes[row, 0].set_ylabel("CPI / simulated CPI at the fewest warps")
    save(fig, path)
