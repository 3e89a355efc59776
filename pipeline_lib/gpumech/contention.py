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

from ..pairwise import np_sum, np_sum_block
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


DEMAND_COLUMNS = ("lsu_lines", "smem_ways", "miss_reqs", "l2_reqs", "dram_reqs")

# The network's arithmetic is compiled (numba), one call per launch: in Python it took about a millisecond a
# launch in numpy calls on arrays of a few intervals, which made re-evaluating a configuration
# (:mod:`.reevaluate`) cost more in the model than in the collector on workloads of hundreds of launches.  The
# compiled form keeps numpy's figures bit for bit: its sums are numpy's own (:mod:`..pairwise`), so the
# analysis's tables keep their bytes (tests/test_gpumech_contention.py compares both forms).


@njit(cache=True)
def _col_sums(A):
    """``A.sum(0, keepdims=True)``: numpy adds the rows in order."""
    out = np.zeros((1, A.shape[1]))
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            out[0, j] = out[0, j] + A[i, j]
    return out


@njit(cache=True)
def _demands(insts, stall, cols, per_inst, issue_rate, lsu_rate, on_lsu, on_smem, on_mshr, miss_latency, mshrs,
             slice_cost, chan_cost):
    """:func:`demands` on arrays: ``cols`` the profile's :data:`DEMAND_COLUMNS`
    (rows), ``per_inst`` the launch's rates in that order (empty: none),
    ``on_*`` the terms as 0/1, ``slice_cost`` and ``chan_cost`` the cycles
    per request at each slice and channel (share x service x term)."""
    n = len(insts)
    col = np.empty((5, n))
    isum = np_sum(insts)
    for k in range(5):
        if len(per_inst) == 0:
            col[k] = cols[k]
            continue
        total = isum * per_inst[k]
        vs = np_sum(cols[k])
        if vs > 0:
            f = total / vs
            for i in range(n):
                col[k, i] = cols[k, i] * f
        else:
            f = total / isum
            for i in range(n):
                col[k, i] = insts[i] * f
    ns, nc = len(slice_cost), len(chan_cost)
    local = np.empty((n, 4))
    shared = np.empty((n, ns + nc))
    z = np.empty(n)
    for i in range(n):
        local[i, 0] = insts[i] / issue_rate
        local[i, 1] = col[0, i] / lsu_rate * on_lsu
        local[i, 2] = col[1, i] * on_smem
        local[i, 3] = col[2, i] * miss_latency / mshrs * on_mshr
        for j in range(ns):
            shared[i, j] = col[3, i] * slice_cost[j]
        for j in range(nc):
            shared[i, ns + j] = col[4, i] * chan_cost[j]
        single = insts[i] / issue_rate + stall[i]
        z[i] = max(single - np_sum(local[i]) - np_sum(shared[i]), 0.0)
    return z, local, shared


def demands(profile, r: Resources) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per interval: the delay Z, the demands at the core's stations
    (columns :data:`LOCAL`) and at the shared stations (the L2 slices, then
    the DRAM channels), all in cycles.

    The demand columns are the profile's (``dram_reqs`` falling back to
    ``mem_reqs``, absent ones 0); with ``r.per_inst`` each is rescaled to the
    representative warp's instructions x the launch's rate, its intervals
    keeping their shares (in proportion to the instructions where the
    warp has none of that demand)."""
    p = check_profile(profile)
    insts = p["insts"]
    n = len(insts)
    cols = np.zeros((5, n))
    for k, name in enumerate(DEMAND_COLUMNS):
        src = name if name in p or name != "dram_reqs" else "mem_reqs"
        if src in p:
            cols[k] = p[src]
    per_inst = (np.array([r.per_inst[k] for k in DEMAND_COLUMNS], float) if r.per_inst is not None
                else np.zeros(0))
    on = r.terms
    return _demands(insts, p["stall_cycles"], cols, per_inst, float(r.issue_rate), float(r.lsu_rate),
                    float("lsu" in on), float("smem" in on), float("mshr" in on), float(r.miss_latency),
                    float(r.mshrs), np.asarray(r.slice_share) * r.l2_service * ("l2" in on),
                    np.asarray(r.channel_share) * r.dram_service * ("dram" in on))


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


_MVA_TOL, _MVA_ITER = 1e-9, 100_000


def _check_population(warps, cores) -> None:
    if warps < 1 or cores < 1:
        raise ValueError(f"warps and cores must be at least 1, got {warps} and {cores}")


def mva(z, local, shared, warps: int, cores: int, tol: float = _MVA_TOL, max_iter: int = _MVA_ITER):
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
    _check_population(warps, cores)
    z = np.ascontiguousarray(z, np.float64)
    local = np.ascontiguousarray(local, np.float64)
    shared = np.ascontiguousarray(shared, np.float64)
    r_loc, r_sh = np.empty_like(local), np.empty_like(shared)
    _mva(z, local, shared, float(warps), float(cores), tol, max_iter, r_loc, r_sh)
    return r_loc, r_sh


SYNCS = ("interval", "warp", "measured", "convoy")
DEFAULT_SYNC = {"rr": "convoy", "gto": "measured"}       # chosen on the small inputs (.calibrate)
_INTERVAL, _WARP, _MEASURED, _CONVOY = range(4)           # SYNCS' codes in the compiled functions
#: what :func:`pass_time` returns, in the order of the compiled functions' output rows
PASS_KEYS = ("delay",) + LOCAL + ("l2", "dram", "total")


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


def _sync_code(sync: str) -> int:
    if sync not in SYNCS:
        raise ValueError(f"unknown warp synchronisation {sync!r} (known: {', '.join(SYNCS)})")
    return SYNCS.index(sync)


def _pass_time(d: tuple, warps, cores: int, sync: str, r: Resources) -> dict:
    """:func:`pass_time` on the profile's :func:`demands` ``d``."""
    code = _sync_code(sync)
    _check_population(warps, cores)
    out = np.empty(len(PASS_KEYS))
    _pass_sync(d[0], d[1], d[2], float(warps), float(cores), code, float(r.in_step), len(r.slice_share), out)
    return dict(zip(PASS_KEYS, out.tolist()))


@njit(cache=True)
def _pass_sync(z, local, shared, warps, cores, sync, in_step, ns, out):
    """:func:`_pass_time` into ``out`` (:data:`PASS_KEYS`)."""
    if sync != _MEASURED:
        _pass_one(z, local, shared, warps, cores, sync, in_step, ns, out)
        return
    s = min(max(in_step, 0.0), 1.0)
    a, b = np.empty(len(out)), np.empty(len(out))
    _pass_one(z, local, shared, warps, cores, _INTERVAL, in_step, ns, a)
    _pass_one(z, local, shared, warps, cores, _WARP, in_step, ns, b)
    for k in range(len(out)):
        out[k] = s * a[k] + (1 - s) * b[k]


@njit(cache=True)
def _pass_one(z, local, shared, warps, cores, sync, in_step, ns, out):
    """One reading (``interval``, ``warp`` or ``convoy``) of :func:`pass_time`."""
    if sync == _WARP:
        z = np.full(1, np_sum(z))
        local, shared = _col_sums(local), _col_sums(shared)
    elif sync == _CONVOY:
        g = _convoy_size(in_step, warps)
        z, local, shared = _convoy(z, local, shared, g)
        warps = warps / g
    r_loc, r_sh = np.empty_like(local), np.empty_like(shared)
    _mva(z, local, shared, warps, cores, _MVA_TOL, _MVA_ITER, r_loc, r_sh)
    out[0] = np_sum(z)
    busy = 0.0
    for k in range(local.shape[1]):
        out[1 + k] = np_sum(r_loc[:, k])
        busy = busy + out[1 + k]
    kl = local.shape[1]
    out[1 + kl] = np_sum_block(r_sh, 0, ns)
    out[2 + kl] = np_sum_block(r_sh, ns, shared.shape[1])
    out[3 + kl] = out[0] + busy + out[1 + kl] + out[2 + kl]


@njit(cache=True)
def _convoy_size(in_step, warps):
    s = min(max(in_step, 0.0), 1.0)
    return min(1.0 / (1.0 - s), warps) if s < 1.0 else warps


def convoy_size(in_step: float, warps: int) -> float:
    """Mean number of warps that move in step (the ``convoy`` reading, ours).

    If the scheduler issues a core's warps in convoys of g warps at the same
    PC, g - 1 of every g issues repeat the PC issued just before, so the
    measured in-step share is s = (g - 1) / g and g = 1 / (1 - s); between
    1 (every warp on its own) and the core's warps (all in lock step)."""
    return float(_convoy_size(float(in_step), float(warps)))


@njit(cache=True)
def _convoy(z, local, shared, g):
    n = len(z)
    lc, sc = g * local, g * shared
    zc = np.empty(n)
    for i in range(n):
        path = z[i] + np_sum(local[i]) + np_sum(shared[i])
        top = path
        for v in lc[i]:
            top = max(top, v)
        for v in sc[i]:
            top = max(top, v)
        zc[i] = max(top - np_sum(lc[i]) - np_sum(sc[i]), 0.0)
    return np.full(1, np_sum(zc)), _col_sums(lc), _col_sums(sc)


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
    return _convoy(np.ascontiguousarray(z, np.float64), np.ascontiguousarray(local, np.float64),
                   np.ascontiguousarray(shared, np.float64), float(g))


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


@njit(cache=True)
def _launch_cycles(z, local, shared, wpb, occupancy, cores, sync, in_step, ns, tail, wave_rows, steady):
    """The launch's cycles over its waves (:func:`predict_contention`);
    ``steady`` receives the full wave's pass (:data:`PASS_KEYS`)."""
    _pass_sync(z, local, shared, float(occupancy * wpb), float(cores), sync, in_step, ns, steady)
    cycles = 0.0
    part = np.empty(len(steady))
    for w in range(wave_rows.shape[0]):
        count, per_core, active = wave_rows[w, 0], wave_rows[w, 1], wave_rows[w, 2]
        if tail and (per_core != occupancy or active != cores):
            _pass_sync(z, local, shared, float(per_core * wpb), float(active), sync, in_step, ns, part)
            cycles += count * part[len(part) - 1]
        else:
            cycles += count * steady[len(steady) - 1] * per_core * active / (occupancy * cores)
    return cycles


def predict_contention(profile, warps_per_block: int, occupancy: int, blocks: int, sync: str,
                       r: Resources, stack: bool = True) -> dict:
    """CPI of one core (cycles x cores / warp instructions, as the
    simulation's) for a launch of ``blocks`` blocks, and its stack
    (:data:`STACK_C`; left out with ``stack=False``); ``sync`` as in
    :func:`pass_time` (the scheduler's reading: :data:`DEFAULT_SYNC`).

    The steady state is a full wave (``occupancy x warps_per_block`` warps
    per core); the tail's extra cycles over the same blocks at the steady
    rate are the ``TAIL`` category.
    """
    p = check_profile(profile)
    insts = float(np.sum(p["insts"]))
    full_n = occupancy * warps_per_block
    code = _sync_code(sync)
    _check_population(full_n, r.cores)
    z, local, shared = demands(p, r)
    steady = np.empty(len(PASS_KEYS))
    cycles = _launch_cycles(z, local, shared, int(warps_per_block), int(occupancy), int(r.cores), code,
                            float(r.in_step), len(r.slice_share), "tail" in r.terms,
                            np.array(waves(blocks, r.cores, occupancy), np.int64), steady)
    warp_insts = blocks * warps_per_block * insts
    cpi = cycles * r.cores / warp_insts
    if not stack:
        return {"cpi": cpi}
    t = dict(zip(PASS_KEYS, steady.tolist()))
    cpi_steady = t["total"] / (full_n * insts)
    out = {"cpi": cpi, **_stack(p, t, full_n * insts)}
    out["TAIL"] = cpi - cpi_steady
    return out


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
