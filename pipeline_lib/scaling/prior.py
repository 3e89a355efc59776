"""GPUMech's SM-scaling prior for the scaling model (ours; the hybrid that
docs/scaling.md, "Model variants", describes).

Seed 004 predicts a kernel's whole scaling surface from counters measured
at one base configuration.  How a kernel scales with the SM count is where
that prediction is weakest (its held-out error at other SM counts is two to
three times the error at the base's own), and it is what an analytical model
of the kernel's trace can tell without simulating: GPUMech (seed 000, ch. 4;
the contention-aware MT_CONTENTION of docs/gpumech.md) predicts the cycles
of every launch from one representative warp per launch and the collector's
counts.  Here GPUMech runs once per workload on the trace, at the sweep's
hardware with each of the grid's SM counts, and its predicted kernel time at
every SM count becomes counters of the base (:func:`.evaluate.grid_arrays`
turns them into log2 ratios to the base's SM count), and so does its
time at every SM count at the four corners of the clock plane (lowest and
highest core and DRAM clocks), which tells how the SM scaling bends where
the DRAM or the cores are starved.  No simulation at
another configuration is needed: a new kernel costs its trace, one
simulation at the base and this analysis.

Cost: the scheduler-ordered collector runs once per SM count (a change of
cores changes :func:`..gpumech.analysis.collection_key`), about as much as
one simulation each; the clocks are timing-only fields, so the counts of an
SM count are reused for every clock pair (docs/gpumech.md,
"Re-evaluation": exact for the seed's models, an approximation of ours for
MT_CONTENTION's ordered collector).
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import progress

#: the dataset's column of GPUMech's predicted kernel cycles (NaN at points it was not run)
PRIOR_COLUMN = "gpumech_cycles"


def prior_points(sm: list, cc: list, mc: list, base: dict, heatmap_cc: list, study_bases: list) -> list[tuple]:
    """The (sm, cc, mc) points at which the prior is needed: every SM count
    at the clock pairs of every base the validation and the model use (the
    model base, the study bases -- ``scaling.study_bases``, or their
    default, :func:`..sweeps.study_points` -- and every DRAM clock at the
    heat-map core clocks) and at the clock corners (:func:`corner_clocks`)."""
    from ..sweeps import heatmap_clocks, study_points
    pairs = {(int(base["cc"]), int(base["mc"]))} | set(corner_clocks(cc, mc))
    pairs |= {(b["cc"], b["mc"]) for b in study_points(sm, cc, mc, study_bases)}
    pairs |= {(c, int(m)) for c in heatmap_clocks(cc, heatmap_cc) for m in mc}
    return [(int(s), c, m) for s in sorted(sm) for c, m in sorted(pairs)]


def corner_clocks(cc: list, mc: list) -> list[tuple[int, int]]:
    """The four (core, DRAM) clock corners of the grid whose prior every base
    gets as counters, in the order of :func:`log2_ratios`'s columns."""
    return [(int(c), int(m)) for c in (min(cc), max(cc)) for m in (min(mc), max(mc))]


def sm_prior(trace_dir, analysed: str, points: list[dict], sync: dict | None = None, pacing: bool = False,
             log=progress) -> pd.DataFrame:
    """GPUMech's (MT_CONTENTION, the configuration's scheduler) predicted
    cycles of every kernel of a trace at each of ``points`` (dicts with the
    hardware variant ``name`` and its ``sm``, ``cc``, ``mc``): one row per
    (kernel, point), the launches' cycles (CPI x warp instructions / SMs)
    summed.  The analysis (representative warps, 4.6.5) runs on hardware
    ``analysed`` (the model's base); the collector once per other SM count.
    ``sync``, ``pacing``: ``gpumech.contention_sync`` and
    ``gpumech.collector_pacing``, as GPUMech's own stages use them."""
    from ..gpumech.analysis import GPUMech          # the analysis's imports only where it runs
    from ..gpumech.reevaluate import Reevaluation
    from ..sim.hardware import load_hardware
    from ..sim.trace_reader import TraceDir

    trace = TraceDir(Path(trace_dir), cache_limit_bytes=1 << 32)
    if not points:
        raise ValueError("scaling prior: no points given")
    first = load_hardware(analysed)
    base = GPUMech(first, sync=sync, pacing=pacing).run(trace)
    ev = Reevaluation(trace, base["launches"], base["collected"])
    launches = trace.launches[["launch", "kernel", "warp_instrs"]]
    counts, rows = {int(first["cores"]): None}, []      # None: the analysis's own counts
    start = time.monotonic()
    for p in points:
        hw = load_hardware(p["name"])
        cores = int(hw["cores"])
        if cores not in counts:
            counts[cores] = ev.collect(hw, pacing=pacing)
        pred = ev.predict(hw, sync=sync, collected=counts[cores]).merge(launches, on="launch")
        cycles = (pred["cpi"] * pred["warp_instrs"] / cores).groupby(pred["kernel"]).sum()
        rows += [{"kernel": k, "point": p["name"], "sm": int(p["sm"]), "cc": int(p["cc"]), "mc": int(p["mc"]),
                  PRIOR_COLUMN: float(v)} for k, v in cycles.items()]
    log(f"{trace.path}: GPUMech at {len(points)} points, {len(counts)} SM counts, "
        f"{time.monotonic() - start:.1f} s")
    return pd.DataFrame(rows)


def log2_ratios(cycles: np.ndarray) -> np.ndarray:
    """The prior's counters at every point from GPUMech's cycles ``cycles``
    (kernels, SM counts, core clocks, DRAM clocks; the clock axes sorted):
    at point (c, e, m) the log2 of the cycles at each SM count s over those
    at the point itself, first at the same clocks, then at each clock corner
    (:func:`corner_clocks`: lowest / highest core clock x lowest / highest
    DRAM clock); shape (kernels, SM counts, core clocks, DRAM clocks,
    5 x SM counts), NaN where the prior was not computed.

    The corners were chosen on inner folds of the training applications
    (docs/scaling.md, "GPUMech's SM-scaling prior"): the base's clocks
    alone, 6.69 / 6.50% (time / power); with the corners 5.82 / 6.22%."""
    with np.errstate(invalid="ignore", divide="ignore"):
        lg = np.log2(cycles)                                  # (n, S, E, M)
    here = lg[..., None]
    same = np.moveaxis(lg, 1, -1)[:, None] - here            # [n, c, e, m, s] = lg[n, s, e, m] - lg[n, c, e, m]
    corners = [lg[:, :, e, m][:, None, None, None, :] - here for e in (0, -1) for m in (0, -1)]
    return np.concatenate([same] + corners, axis=-1)
