"""Sampled collection (ours): TBPoint's sampling (seed 000, ch. 3) applied
to GPUMech's scheduler-ordered collector (:mod:`.scheduled`), for
re-evaluating a configuration whose occupancy or caches differ from the
analysed one's (docs/gpumech.md, "Re-evaluation").

Why: such a configuration changes what the collector counts, so the counts
of the analysis cannot be reused (:func:`.analysis.collection_key`), and
collecting again walks every warp instruction through the scheduler's
issue rule and the caches: about the cost of a detailed simulation.  What
the model reads of a collection are rates (each PC's miss-event shares and
AMAT, the launch's demands per warp instruction, the L2-slice and
DRAM-channel shares, the in-step share), and TBPoint's premise is that
rates repeat across similar launches and across the epochs of a
homogeneous region.  So the collector runs only where TBPoint's sampled
simulation would simulate:

- *between launches* (3.3, on by default): launches are clustered on the
  hardware-independent features of eq. 6
  (:class:`..tbpoint.inter_launch.InterLaunchSampler`); only each
  cluster's representative launch is collected, in full, and every other
  launch takes its representative's counts scaled by the ratio of the two
  launches' warp instructions;
- *within a launch* (3.4.3, ``regions=True``, off by default): the
  representative's epochs (system-occupancy blocks on the configuration
  evaluated) are grouped into homogeneous regions
  (:class:`..tbpoint.regions.RegionFinder`); a region runs epoch by epoch
  until TBPoint's warming rule says it has settled (:func:`_region`), and
  the settled epochs stand for the rest.

Skipped launches and blocks never reach the caches.  Before a part that
does not follow the last one run, the blocks just before it run with their
counts dropped, until their requests fill the L2 (:class:`_Warming`).

Why regions are off: each run of the collector starts its blocks as a new
launch does (the first wave placed round the cores) and drains them at the
end, and the counts depend on which blocks share a core's L1.  On
spmv-scalar at 16 warps per core, the same launch collected in 1, 2, 6 or
12 consecutive runs gives L1 miss rates of 0.68, 0.71, 0.78 and 0.57, so
the region sample moved the predicted CPI by 28%.  Sampling within a
launch needs a collector that can stop and resume without draining (next
step, docs/gpumech.md).  Between launches nothing of this arises: a
representative runs whole, as in the full collection; over the medium
suite the predicted CPI moves by at most 0.4% (docs/gpumech.md).

Parameters are TBPoint's (``tbpoint.*`` in the configuration, the
workflow's defaults here); none was chosen for GPUMech.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..sim.hardware import occupancy
from ..tbpoint.inter_launch import InterLaunchSampler, launch_features
from ..tbpoint.regions import RegionFinder, epoch_table
from ..tbpoint.warming import mser_truncation, region_ipc
from .analysis import Collected
from .collector import PC_EV_DRAM, PC_EV_L1, PC_N
from .scheduled import ScheduledCollector


@dataclass(frozen=True)
class Sampling:
    """TBPoint's parameters, named and defaulted as ``tbpoint.*`` of the
    configuration (docs/configuration.md): inter-launch clustering
    (``inter_sigma``, ``inter_within_kernel``, ``inter_scale``,
    ``representative``), homogeneous regions (``intra_sigma``,
    ``max_variation``, ``variation``, ``min_region_epochs``) and when a
    region has warmed (``warming_rule``, ``ipc_tolerance``); and whether to
    sample within launches at all (``regions``, off: module docstring).
    One default differs: ``inter_scale`` stays ``kernel``, TBPoint's
    default when docs/gpumech.md's re-evaluation figures were measured
    (TBPoint has used ``log`` since TBPOINT_VERSION 4); the collection
    takes one launch per cluster, as TBPoint's ``launch_rule:
    representative`` does."""
    regions: bool = False
    inter_sigma: float = 0.1
    inter_within_kernel: bool = True
    inter_scale: str = "kernel"
    representative: str = "middle"
    intra_sigma: float = 0.2
    max_variation: float = 0.3
    variation: str = "epoch"
    min_region_epochs: int = 2
    warming_rule: str = "confidence"
    ipc_tolerance: float = 0.1


@dataclass
class Part:
    """Blocks of one launch that the collector runs in one go (``epochs``
    None), or a homogeneous region given as its epochs' block ids and warp
    instructions, run epoch by epoch until it has warmed."""
    blocks: np.ndarray
    epochs: list[np.ndarray] | None = None
    epoch_instrs: np.ndarray | None = None


@dataclass
class Plan:
    """What a sampled collection runs: each launch's representative
    launch, and each representative's parts."""
    representative: dict[int, int]
    parts: dict[int, list[Part]] = field(default_factory=dict)
    warp_instrs: dict[int, int] = field(default_factory=dict)


def launch_parts(blocks, epoch_size: int, s: Sampling) -> list[Part]:
    """The parts of one launch (``blocks``: its rows of the trace's blocks
    table): runs of epochs outside every region, merged, and the regions."""
    ep = epoch_table(blocks, epoch_size, s.variation)
    region = RegionFinder(s.intra_sigma, s.max_variation, s.min_region_epochs).fit(ep).epochs_["region"].to_numpy()
    b = blocks.sort_values("block")
    ids = b["block"].to_numpy(np.int64)
    instrs = b["warp_instrs"].to_numpy(np.int64)
    cut = [slice(i * epoch_size, min((i + 1) * epoch_size, len(ids))) for i in range(len(region))]
    parts: list[Part] = []
    full: list[np.ndarray] = []
    i = 0
    while i < len(region):
        j = i
        while j + 1 < len(region) and region[j + 1] == region[i]:
            j += 1
        if region[i] < 0:
            full.extend(ids[cut[k]] for k in range(i, j + 1))
        else:
            if full:
                parts.append(Part(np.concatenate(full)))
                full = []
            parts.append(Part(ids[cut[i].start:cut[j].stop], [ids[cut[k]] for k in range(i, j + 1)],
                              np.array([instrs[cut[k]].sum() for k in range(i, j + 1)], np.int64)))
        i = j + 1
    if full:
        parts.append(Part(np.concatenate(full)))
    return parts


def _whole(blocks) -> list[Part]:
    """A launch's blocks (its rows of the blocks table) as one part."""
    return [] if blocks is None or not len(blocks) else [Part(np.sort(blocks["block"].to_numpy(np.int64)))]


def full_plan(trace) -> Plan:
    """Every launch collected whole, as its own representative: the full
    collection, which :func:`collect` then gives exactly (no warming is
    needed, every part following the one before)."""
    L = trace.launches.sort_values("launch")
    by_launch = trace.blocks_by_launch()
    ids = [int(a) for a in L["launch"]]
    return Plan({a: a for a in ids}, {a: _whole(by_launch.get(a)) for a in ids},
                {int(a): int(w) for a, w in zip(L["launch"], L["warp_instrs"])})


def plan(trace, hw: dict, sampling: Sampling = Sampling()) -> Plan:
    """The sampled collection of ``trace`` on ``hw`` (only its occupancy
    fields matter here)."""
    L = trace.launches.sort_values("launch")
    feats = launch_features(L, sampling.inter_scale)
    t = InterLaunchSampler(sampling.inter_sigma, sampling.inter_within_kernel,
                           sampling.representative).fit(feats).table(feats)
    p = Plan({int(a): int(r) for a, r in zip(t["launch"], t["representative"])},
             warp_instrs={int(a): int(w) for a, w in zip(L["launch"], L["warp_instrs"])})
    by_launch = trace.blocks_by_launch()
    for row in L.to_dict("records"):
        lid = int(row["launch"])
        if p.representative[lid] != lid:
            continue
        occ = occupancy(hw, int(row["threads_per_block"]), int(row["regs_per_thread"]), int(row["shared_bytes"]))
        b = by_launch.get(lid)
        p.parts[lid] = (launch_parts(b, occ["system_occupancy"], sampling)
                        if sampling.regions and b is not None and len(b) else _whole(b))
    return p


def collect(trace, hw: dict, policy: str, static: dict, the_plan: Plan, totals: dict,
            sampling: Sampling = Sampling(), pacing: bool = False) -> tuple[dict, float]:
    """(launch, policy) -> :class:`.analysis.Collected` for every launch of
    ``trace`` from the collector of ``policy`` run on ``the_plan``'s
    representative launches, warmed before every part that does not follow
    the last one run (:class:`_Warming`), each region epoch by epoch until
    TBPoint's warming rule stops it; and the share of the workload's warp
    instructions the collector ran (warming included).  ``static``: the
    engine's per-PC tables per kernel; ``totals``: launch ->
    :func:`.analysis.trace_totals`; ``pacing``: ``gpumech.collector_pacing``."""
    col = ScheduledCollector(hw, policy, pacing)
    rows = {int(r["launch"]): r for r in trace.launches.to_dict("records")}
    warming = _Warming(trace, hw, rows)
    ran_instrs = 0

    def run(lid, blocks):
        nonlocal ran_instrs
        r = rows[lid]
        occ = occupancy(hw, int(r["threads_per_block"]), int(r["regs_per_thread"]), int(r["shared_bytes"]))
        c = col.run(trace.launch_trace(lid), static[r["kernel"]], int(r["n_blocks"]), int(r["warps_per_block"]),
                    occ["sm_occupancy"], blocks=blocks)
        warming.ran(lid, blocks)
        ran_instrs += col.issued
        return [c.astype(float), col.slice_requests.astype(float), col.channel_transfers.astype(float),
                float(col.in_step_issues), float(col.issued)], _memory_cycles(c, hw, col.issued)

    rep_got = {}
    for lid in sorted(the_plan.parts):
        acc = [np.zeros((len(static[rows[lid]["kernel"]]), PC_N)), np.zeros(col.slices),
               np.zeros(len(col.channel_transfers)), 0.0, 0.0]
        for part in the_plan.parts[lid]:
            for wl, wb in warming.before(lid, part.blocks):
                run(wl, wb)                      # counts dropped: only the caches' state matters
            weighted = [(run(lid, part.blocks)[0], 1.0)] if part.epochs is None else _region(run, lid, part,
                                                                                               sampling)
            for g, w in weighted:
                for i in range(5):
                    acc[i] = acc[i] + g[i] * w
        rep_got[lid] = acc
    out = {}
    for lid, rep in the_plan.representative.items():
        c, sl, ch, step, issued = rep_got[rep]
        scale = the_plan.warp_instrs[lid] / the_plan.warp_instrs[rep] if the_plan.warp_instrs[rep] else 1.0
        out[(lid, policy)] = Collected(np.rint(c * scale).astype(np.int64), np.rint(sl * scale).astype(np.int64),
                                       np.rint(ch * scale).astype(np.int64), step / issued if issued else 0.0,
                                       totals[lid])
    total = sum(the_plan.warp_instrs.values())
    return out, ran_instrs / total if total else 0.0


def _memory_cycles(counts: np.ndarray, hw: dict, issued: int) -> float:
    """The memory latency a collection charges per warp instruction: every
    global/local memory execution at the latency of its miss event (4.5.2),
    summed, over the instructions issued.  The statistic a region's
    warming rule watches (:func:`_region`)."""
    l1, l2 = hw["l1"]["hit_latency"], hw["l2"]["hit_latency"]
    lat = np.array([l1, l2, l2 + hw["dram"]["latency"]], float)
    return float((counts[:, PC_EV_L1:PC_EV_DRAM + 1] @ lat).sum()) / max(issued, 1)


def _region(run, lid: int, part: Part, s: Sampling) -> list[tuple[list, float]]:
    """Run a region epoch by epoch (an epoch is TBPoint's sampling unit
    here) until ``s.warming_rule`` (:func:`..tbpoint.warming.region_ipc`)
    says its units have settled; the epochs whose mean that rule takes
    then also stand for the epochs not run, in proportion to warp
    instructions.  Returns (epoch's counts, weight) pairs.

    Deviation from TBPoint: the rule watches each epoch's memory cycles
    per warp instruction (:func:`_memory_cycles`), not an IPC.  The
    collector's own IPC has no queueing in it and can stay flat while what
    the model reads moves: in cfd's time-step kernel the L2 miss rate rises
    from 0.53 to 0.69 over the first three epochs (the flux kernel's data
    leaving the L2) while the collector's IPC stays within 0.1%."""
    got, units = [], []
    for k, blocks in enumerate(part.epochs):
        g, unit = run(lid, blocks)
        got.append(g)
        units.append(unit)
        if k + 1 < len(part.epochs) and region_ipc(s.warming_rule, units, s.ipc_tolerance) is not None:
            break
    n = len(got)
    weights = [1.0] * n
    if n < len(part.epochs):
        # the units the rule's value rests on: MSER's tail (ours) or the last one (the seed's rule)
        d = mser_truncation(units) if s.warming_rule == "confidence" else n - 1
        stable = float(part.epoch_instrs[d:n].sum())
        rest = float(part.epoch_instrs[n:].sum())
        for k in range(d, n):
            weights[k] = 1.0 + rest / stable if stable else 1.0
    return list(zip(got, weights))


class _Warming:
    """Which skipped blocks to run, counts dropped, before a sampled part
    so that the caches hold what they would hold there (ours; the bounded
    warm-up of sampled CPU simulation, where only the most recent accesses
    decide an LRU cache's content).

    The blocks just before the part in program order (launch order, then
    block id; across launch boundaries), back to the last block the
    collector ran or until their global and local requests reach the L2's
    capacity in lines: an LRU cache then holds none of what came before
    them (every request is at most one line; the L1s are far smaller).  In
    cfd, the time-step kernel re-reads what the flux kernel wrote; sampled
    without warming, it found in the L2 the flux kernel's first blocks'
    data and not its last ones', and its L2 miss rate fell from 0.65 to
    0.49."""

    def __init__(self, trace, hw: dict, rows: dict):
        self.capacity = hw["l2"]["size_bytes"] // hw["l2"]["line_bytes"]
        by_launch = trace.blocks_by_launch()
        req = [by_launch[lid]["mem_requests"].to_numpy(np.int64) if lid in by_launch else np.zeros(0, np.int64)
               for lid in sorted(rows)]
        self.base = dict(zip(sorted(rows), np.cumsum([0] + [len(r) for r in req[:-1]]).tolist()))
        self.requests = np.concatenate(req) if req else np.zeros(0, np.int64)
        self.launch_of = np.repeat(np.array(sorted(rows), np.int64), [len(r) for r in req])
        self.block_of = np.concatenate([np.arange(len(r), dtype=np.int64) for r in req]) if req else self.requests
        self.at = 0                # program position just after the last block run

    def ran(self, lid: int, blocks: np.ndarray) -> None:
        self.at = self.base[lid] + int(blocks[-1]) + 1

    def before(self, lid: int, blocks: np.ndarray) -> list[tuple[int, np.ndarray]]:
        """(launch, block ids) to run, in program order, before the part
        ``blocks`` of launch ``lid``."""
        start = self.base[lid] + int(blocks[0])
        g, need = start, self.capacity
        while g > self.at and need > 0:
            g -= 1
            need -= int(self.requests[g])
        out = []
        for launch in dict.fromkeys(self.launch_of[g:start].tolist()):
            sel = self.launch_of[g:start] == launch
            out.append((int(launch), self.block_of[g:start][sel]))
        return out
