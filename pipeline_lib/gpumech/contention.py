"""The contention-aware GPUMech model (``MT_CONTENTION``): the representative
warp's intervals run through a closed queueing network of the core's and the
GPU's shared resources, solved by mean value analysis (MVA).

Why a queueing network.  GPUMech (seed 000, 4.4) adds its contention terms
(eq. 12: CPI_multithreading + MSHR delay + DRAM queueing) to a
multithreading model that assumes every stall is pure latency.  Costs that
are *throughput* limits -- the load/store unit's one line per cycle, MSHRs
held for the miss latency, L2 slices busy per request, DRAM channels busy
per line -- are then either missing or, when added one by one, double
counted (a review measured +29-47% on 16 cores when throughput terms were
simply summed).  A closed network with the warps as customers accounts for
each resource once: with few warps a warp's cycle is its own latency path,
with many the busiest resource sets the pace, and in between queueing grows
smoothly.  MVA (Reiser and Lavenberg, J. ACM 1980) gives the mean residence
time at each station; we use Schweitzer's approximation, which needs no
recursion over the population and handles the two populations of a GPU
(the warps of one core at its own stations, the warps of all cores at the
shared L2 and DRAM) in closed form.  This is our formulation; the
resources and their costs follow MDM (Wang et al., MICRO 2020: memory
divergence, MSHR batches and NoC/DRAM queueing) and GCoM (Lee et al.,
ISCA 2022: per-unit structural throughput and the launch tail).

The network for one interval of the representative warp (docs/gpumech.md
derives each demand):

* issue port, per core: ``insts / issue_rate`` cycles (one instruction a
  cycle: the multithreading limit of eq. 16);
* load/store unit, per core: ``lsu_lines / lsu_rate`` cycles
  (``l1.lines_per_cycle`` 128-byte lines a cycle, loads, stores and
  atomics alike);
* shared-memory pipeline, per core: ``smem_ways`` cycles (one bank-conflict
  way a cycle);
* MSHRs, per core: ``miss_reqs x miss_latency / mshrs`` -- an m-server
  station of service time L replaced by a queue of service L / m and a
  delay of L (m - 1) / m (Seidmann et al., 1987); the delay is already in
  the warp's latency.  Saturated, it serves m misses per L cycles: MDM's
  batches of m requests that each pay the full latency;
* L2 slice j, shared by all cores: ``l2_reqs x share_j x l2_service``, the
  share of the launch's L2 requests that map to the slice (from the input
  collector, so atomics on one hot line load one slice: their
  serialisation);
* DRAM channel c, shared: ``dram_reqs x share_c x dram_service`` (the data
  bus time of a line, eq. 31's s);
The demands are the launch's (all its warps' lines, misses, L2 requests
and DRAM transfers per instruction, from the input collector) scaled to the
representative warp's instructions: the stations serve every warp, so a
representative warp that is lighter or heavier in memory than the average
(irregular kernels) must not set their load.

* a delay (think time) Z: the rest of the warp's single-warp cycles,
  ``insts + stall_cycles - sum of its demands`` (at least 0), so that a lone
  warp on an idle GPU takes exactly its single-warp cycles.

Scheduling (4.4.1).  If the warps of a core move through the same
interval at the same time (``sync="interval"``; the reading of round-robin
in eqs. 19-20) the network is solved per interval with that interval's
demands and the warp's time is the sum.  If they drift apart in phase
(``sync="warp"``; greedy-then-oldest runs one warp ahead until it stalls,
eqs. 21-25) the network is solved once with the demands of the whole warp,
i.e. the resources see the warp's average mix.  Neither holds all the
time: a round-robin core's warps start in step and drift apart as their
misses return at different times.  The ``measured`` reading (ours) weighs
the two by the share of issues the scheduler-ordered collector saw in step
(``ScheduledCollector.in_step``: the issue repeats the PC another warp of
the core issued just before), so it has no free parameter.  The ``convoy``
reading (ours) reads the same share as the size of the groups of warps
that move in step, g = 1 / (1 - s): each group goes through the intervals
in lock step (an interval takes the larger of the first warp's latency
path and g times the busiest station's demand) and the groups drift apart
from one another as the ``warp`` reading's warps do; g = 1 is the ``warp``
reading, g = all the core's warps a lock-stepped ``interval`` reading.  Which reading
each scheduler gets is configuration (``gpumech.contention_sync``), chosen
on the small inputs (:mod:`.calibrate`), never on the validated ones.

The launch tail (GCoM's idle-SM term, ours in form).  Blocks arrive in waves
of ``cores x occupancy``; the last, partial wave runs fewer warps on fewer
cores.  The launch takes ``full waves x T(N) + T(tail)``, each T the
network's time for one pass of the representative warp.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from .model import check_profile

MODEL = "MT_CONTENTION"
LOCAL = ("issue", "lsu", "smem", "mshr")          # stations per core
STACK_C = ["BASE", "DEP", "L1", "L2", "DRAM", "LSU", "SMEM", "MSHR", "L2_QUEUE", "DRAM_QUEUE", "TAIL"]
TERMS = ("lsu", "smem", "mshr", "l2", "dram", "tail")


@dataclass(frozen=True)
class Resources:
    """Hardware inputs of the network for one launch.

    cores, mshrs : per the configuration
    miss_latency : mean cycles an L1 miss holds its MSHR (eq. 28's latency)
    l2_service : cycles an L2 slice is busy per request (line / bytes per clock)
    slice_share : fraction of the launch's L2 requests per slice (sums to 1)
    dram_service : cycles a channel's data bus is busy per line (eq. 31's s)
    channel_share : fraction of the launch's DRAM transfers per channel
    issue_rate : warp instructions a core issues per cycle
    lsu_rate : lines the load/store unit takes per cycle (``l1.lines_per_cycle``)
    in_step : share of issues in step with the core's other warps, measured
        by the scheduler-ordered collector (``ScheduledCollector.in_step``;
        the ``measured`` reading of :func:`pass_time`)
    terms : the throughput terms in use (:data:`TERMS`; for the error budget)
    per_inst : the launch's demands per warp instruction over all its warps
        (keys :data:`DEMAND_COLUMNS`), or None.  The stations serve every
        warp, so their load is the launch's, not N copies of the
        representative warp's: where given, each demand column of the profile
        is rescaled to the representative warp's instructions x this rate
        (intervals keep their shares).  The representative warp still gives
        the latency structure (the delay Z).
    """
    cores: int
    mshrs: int
    miss_latency: float
    l2_service: float
    slice_share: tuple
    dram_service: float
    channel_share: tuple
    issue_rate: float = 1.0
    lsu_rate: float = 1.0
    terms: frozenset = field(default_factory=lambda: frozenset(TERMS))
    per_inst: dict | None = None
    in_step: float = 0.0

    def __post_init__(self):
        for name in ("slice_share", "channel_share"):
            v = np.asarray(getattr(self, name), float)
            if len(v) == 0 or (v < 0).any() or abs(v.sum() - 1.0) > 1e-6:
                raise ValueError(f"Resources.{name} must be non-negative fractions summing to 1, got {v}")
        unknown = set(self.terms) - set(TERMS)
        if unknown:
            raise ValueError(f"unknown contention term(s) {sorted(unknown)} (known: {', '.join(TERMS)})")


def shares(counts, n: int) -> tuple:
    """Fractions of ``counts`` (one per slice or channel); uniform when all are 0."""
    c = np.asarray(counts, float)
    return tuple(c / c.sum()) if c.sum() > 0 else tuple(np.full(n, 1.0 / n))


def _col(p, name, n):
    return np.asarray(p[name], float) if name in p else np.zeros(n)


DEMAND_COLUMNS = ("lsu_lines", "smem_ways", "miss_reqs", "l2_reqs", "dram_reqs")


def _demand_col(p, name, insts, per_inst):
    v = _col(p, name, len(insts)) if name != "dram_reqs" or name in p else _col(p, "mem_reqs", len(insts))
    if per_inst is None:
        return v
    total = insts.sum() * per_inst[name]
    return v * (total / v.sum()) if v.sum() > 0 else insts * (total / insts.sum())


def demands(profile, r: Resources) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per interval: the delay Z, the demands at the core's stations
    (columns :data:`LOCAL`) and at the shared stations (the L2 slices, then
    the DRAM channels), all in cycles."""
    p = check_profile(profile)
    insts = np.asarray(p["insts"], float)
    col = {k: _demand_col(p, k, insts, r.per_inst) for k in DEMAND_COLUMNS}
    on = r.terms
    local = np.column_stack([
        insts / r.issue_rate,
        col["lsu_lines"] / r.lsu_rate * ("lsu" in on),
        col["smem_ways"] * ("smem" in on),
        col["miss_reqs"] * r.miss_latency / r.mshrs * ("mshr" in on)])
    l2 = col["l2_reqs"][:, None] * (np.asarray(r.slice_share) * r.l2_service * ("l2" in on))[None, :]
    dram = col["dram_reqs"][:, None] * (np.asarray(r.channel_share) * r.dram_service * ("dram" in on))[None, :]
    shared = np.hstack([l2, dram])
    single = insts / r.issue_rate + np.asarray(p["stall_cycles"], float)
    z = np.maximum(single - local.sum(1) - shared.sum(1), 0.0)
    return z, local, shared


@njit(cache=True)
def _mva(z, local, shared, n, c, tol, max_iter, r_loc, r_sh):
    """Schweitzer's fixed point per row (see :func:`mva`), damped by half:
    the plain iteration can oscillate when one station saturates."""
    rows, kl = local.shape
    ks = shared.shape[1]
    for i in range(rows):
        for k in range(kl):
            r_loc[i, k] = local[i, k]
        for k in range(ks):
            r_sh[i, k] = shared[i, k]
        for _ in range(max_iter):
            total = z[i]
            for k in range(kl):
                total += r_loc[i, k]
            for k in range(ks):
                total += r_sh[i, k]
            if total <= 0.0:
                break
            x = n / total                                  # passes per cycle, one core
            change = 0.0
            for k in range(kl):                            # Little's law: Q = X R
                new = local[i, k] * (1.0 + x * r_loc[i, k] * (n - 1.0) / n)
                new = 0.5 * (new + r_loc[i, k])
                change = max(change, abs(new - r_loc[i, k]))
                r_loc[i, k] = new
            for k in range(ks):
                new = shared[i, k] * (1.0 + c * x * r_sh[i, k] * (c * n - 1.0) / (c * n))
                new = 0.5 * (new + r_sh[i, k])
                change = max(change, abs(new - r_sh[i, k]))
                r_sh[i, k] = new
            if change <= tol * total:
                break


def mva(z, local, shared, warps: int, cores: int, tol: float = 1e-9, max_iter: int = 100_000):
    """Schweitzer's approximate MVA of ``warps`` customers per core on
    ``cores`` identical cores, one network per row (interval).

    Each customer cycles through the delay ``z`` and every station once per
    pass.  At a core's own station the arriving customer finds the queue of
    the other warps of its core, ``Q (N - 1) / N``; at a shared station that
    of the other warps of every core, ``Q (C N - 1) / (C N)``.  Returns
    (R_local, R_shared): the residence time per pass at each station; the
    pass takes ``z + R_local.sum(1) + R_shared.sum(1)`` cycles and a core
    completes ``warps`` passes in that time.
    """
    if warps < 1 or cores < 1:
        raise ValueError(f"warps and cores must be at least 1, got {warps} and {cores}")
    z = np.ascontiguousarray(z, np.float64)
    local = np.ascontiguousarray(local, np.float64)
    shared = np.ascontiguousarray(shared, np.float64)
    r_loc, r_sh = np.empty_like(local), np.empty_like(shared)
    _mva(z, local, shared, float(warps), float(cores), tol, max_iter, r_loc, r_sh)
    return r_loc, r_sh


SYNCS = ("interval", "warp", "measured", "convoy")
DEFAULT_SYNC = {"rr": "convoy", "gto": "measured"}       # chosen on the small inputs (.calibrate)


def pass_time(profile, warps: int, cores: int, sync: str, r: Resources) -> dict:
    """Cycles of one pass of the representative warp with ``warps`` warps on
    each of ``cores`` cores, split by where they are spent: ``delay`` (Z),
    each of :data:`LOCAL`, ``l2`` and ``dram`` (residence at the shared
    stations), ``total``.  ``sync``: ``interval`` (warps in step: one
    network per interval), ``warp`` (drifted apart: one network on the
    whole warp's demands) or ``measured`` (ours: the two weighted by the
    share of the time the collector saw the warps in step, ``r.in_step``:
    a core whose warps are in step a share s of its issues spends about
    that share of its time as the interval reading describes and the rest
    as the warp reading does) or ``convoy`` (ours: the core's warps move in
    convoys of g = 1 / (1 - s) warps in lock step, :func:`convoy_size`;
    the convoys, not the warps, are the network's customers, drifted apart
    as in the ``warp`` reading, :func:`convoy_demands`)."""
    return _pass_time(demands(profile, r), warps, cores, sync, r)


def _pass_time(d: tuple, warps, cores: int, sync: str, r: Resources) -> dict:
    """:func:`pass_time` on the profile's :func:`demands` ``d``."""
    if sync == "measured":
        s = min(max(float(r.in_step), 0.0), 1.0)
        a, b = _pass_time(d, warps, cores, "interval", r), _pass_time(d, warps, cores, "warp", r)
        return {k: s * a[k] + (1 - s) * b[k] for k in a}
    z, local, shared = d
    if sync == "convoy":
        g = convoy_size(r.in_step, warps)
        z, local, shared = convoy_demands(z, local, shared, g)
        warps = warps / g
    elif sync == "warp":
        z, local, shared = z.sum(keepdims=True), local.sum(0, keepdims=True), shared.sum(0, keepdims=True)
    elif sync != "interval":
        raise ValueError(f"unknown warp synchronisation {sync!r} (known: {', '.join(SYNCS)})")
    r_loc, r_sh = mva(z, local, shared, warps, cores)
    ns = len(r.slice_share)
    out = {"delay": float(z.sum())}
    out.update({k: float(r_loc[:, i].sum()) for i, k in enumerate(LOCAL)})
    out["l2"] = float(r_sh[:, :ns].sum())
    out["dram"] = float(r_sh[:, ns:].sum())
    out["total"] = out["delay"] + sum(out[k] for k in LOCAL) + out["l2"] + out["dram"]
    return out


def convoy_size(in_step: float, warps: int) -> float:
    """Mean number of warps that move in step (the ``convoy`` reading, ours).

    If the scheduler issues a core's warps in convoys of g warps at the same
    PC, g - 1 of every g issues repeat the PC issued just before, so the
    measured in-step share is s = (g - 1) / g and g = 1 / (1 - s); between
    1 (every warp on its own) and the core's warps (all in lock step)."""
    s = min(max(float(in_step), 0.0), 1.0)
    return float(min(1.0 / (1.0 - s), warps)) if s < 1.0 else float(warps)


def convoy_demands(z, local, shared, g: float):
    """One pass of a convoy of ``g`` warps in lock step, as one customer:
    its demands are g warps' (all the intervals summed, as the ``warp``
    reading does between convoys) and its delay is what its lock step adds.

    In lock step the convoy's first warp issues an interval's instructions,
    waits out its own latency path (delay plus its demands, ``path``) and
    starts the next interval while the others may still be at the busiest
    station, so an interval takes max(path, g x the largest demand) -- the
    asymptotic bounds of a closed network, which a deterministic lock step
    attains.  The convoy's delay is that time less its g warps' demands (at
    least 0); g = 1 gives back the single warp's delay and demands exactly.
    """
    path = z + local.sum(1) + shared.sum(1)
    lc, sc = g * local, g * shared
    step = np.maximum(path, np.hstack([lc, sc]).max(1))
    zc = np.maximum(step - lc.sum(1) - sc.sum(1), 0.0)
    return zc.sum(keepdims=True), lc.sum(0, keepdims=True), sc.sum(0, keepdims=True)


def waves(blocks: int, cores: int, occupancy: int) -> list[tuple[int, int, int]]:
    """The launch as waves of resident blocks: (count, blocks per core,
    active cores).  Full waves hold ``occupancy`` blocks on every core; the
    remainder spreads evenly (the block scheduler gives the next block to
    the core that freed one), so its busiest core has ceil(rest / cores)."""
    if blocks < 1 or cores < 1 or occupancy < 1:
        raise ValueError(f"blocks, cores and occupancy must be at least 1, got {blocks}, {cores}, {occupancy}")
    full, rest = divmod(blocks, cores * occupancy)
    out = [(full, occupancy, cores)] if full else []
    if rest:
        out.append((1, -(-rest // cores), min(rest, cores)))
    return out


def predict_contention(profile, warps_per_block: int, occupancy: int, blocks: int, sync: str,
                       r: Resources) -> dict:
    """CPI of one core (cycles x cores / warp instructions, as the
    simulation's) for a launch of ``blocks`` blocks, and its stack
    (:data:`STACK_C`); ``sync`` as in :func:`pass_time` (the scheduler's
    reading: :data:`DEFAULT_SYNC`).

    The steady state is a full wave (``occupancy x warps_per_block`` warps
    per core); the tail's extra cycles over the same blocks at the steady
    rate are the ``TAIL`` category.
    """
    p = check_profile(profile)
    insts = float(np.sum(p["insts"]))
    full_n = occupancy * warps_per_block
    d = demands(p, r)
    steady = _pass_time(d, full_n, r.cores, sync, r)
    cycles = 0.0
    for count, per_core, active in waves(blocks, r.cores, occupancy):
        if "tail" in r.terms and (per_core, active) != (occupancy, r.cores):
            cycles += count * _pass_time(d, per_core * warps_per_block, active, sync, r)["total"]
        else:
            cycles += count * steady["total"] * per_core * active / (occupancy * r.cores)
    warp_insts = blocks * warps_per_block * insts
    cpi = cycles * r.cores / warp_insts
    cpi_steady = steady["total"] / (full_n * insts)
    stack = _stack(p, steady, full_n * insts)
    stack["TAIL"] = cpi - cpi_steady
    return {"cpi": cpi, **stack}


def _stack(p, t: dict, core_insts: float) -> dict:
    """The steady state's cycles per core instruction by category: the
    delay split like the warp's stalls (DEP, L1, L2, DRAM), the issue
    station as BASE, every other station its own category."""
    stall = {k: float(np.sum(p[f"stall_{k.lower()}"])) if f"stall_{k.lower()}" in p else 0.0
             for k in ("DEP", "L1", "L2", "DRAM")}
    if sum(stall.values()) <= 0:
        stall = {"DEP": 1.0, "L1": 0.0, "L2": 0.0, "DRAM": 0.0}
    tot = sum(stall.values())
    out = {k: t["delay"] * v / tot / core_insts for k, v in stall.items()}
    out.update(BASE=t["issue"] / core_insts, LSU=t["lsu"] / core_insts, SMEM=t["smem"] / core_insts,
               MSHR=t["mshr"] / core_insts, L2_QUEUE=t["l2"] / core_insts, DRAM_QUEUE=t["dram"] / core_insts)
    return {k: out[k] for k in STACK_C if k != "TAIL"}
