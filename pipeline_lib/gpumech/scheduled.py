"""The scheduler-ordered input collector (ours): the collector of
:mod:`.collector` with the memory instructions fed in the order the warp
scheduler issues them.

Why: the seed's collector (4.5) is order-agnostic and ours feeds it
round-robin, which is the order a round-robin scheduler produces on a
memory-bound launch.  A greedy-then-oldest scheduler keeps issuing the
oldest ready warp, so while the young warps wait, the old ones reuse their
own lines: on spmv-scalar the simulated L1 miss rate is 85% under RR and
52% under GTO, and the round-robin collector cannot tell the two apart.

How: each core runs its resident warps through the detailed simulator's
issue rule without the shared resources' contention -- one instruction per
cycle (``issue_width``), an instruction issues when its source registers
are ready, a branch holds its warp until it resolves, ``bar.sync`` waits
for the block's live warps, a finished block's slot takes the next block --
and the scheduler picks the warp as the simulator's does (RR: the next
ready warp after the last one issued; GTO: the last one while it is ready,
else the oldest ready).  The core-local limits that decide how many warps
a greedy scheduler lets run are kept: the load/store unit sends one line
per cycle and an L1 miss waits for a free MSHR.  A load's latency is that
of its own outcome: the L1 hit latency, ``l2.hit_latency`` on an L2 hit,
plus ``dram.latency`` (and ``dram.row_miss_latency`` on a new row) on a
miss; a hit on a line whose fill is still in flight waits for the fill and
takes its miss event (a pending hit, as the simulator's MSHR merge).  The
cores advance in global time order (the core with the earliest clock
issues next), so the shared L2 sees their requests interleaved as in time.
Queueing at the L2 slices and DRAM channels is left out: it is the
contention model's part (:mod:`.contention`), counted there once.

Paced (``paced=True``, ``gpumech.collector_pacing``; ours): the requests
also wait for their L2 slice (``l2_service_cycles`` per request) and DRAM
channel (one burst per transfer, write-backs included) before their fixed
latency, each resource with a busy-until time.  This changes only *when*
requests issue, not what the model charges for them: the counts still
carry no latency, and the contention model still derives every queueing
delay from demands.  Why: where a shared resource is the bottleneck the
simulator's warps wait for it, and an unpaced collector issues the same
requests several times faster, so more of them are in flight at once.
On the naive transpose (partial-line stores of 32 lines per warp
instruction, bound by the L2 slices) the unpaced collector's L2 evicted
lines between the 32 partial writes of each line and counted 550-730 k
DRAM transfers per launch where the simulator made 130-220 k
(docs/gpumech.md, "Extended suite").  The channel of a write-back is taken
from the collector's per-channel count, so the victim's own channel is
charged.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..sim import static as S
from ..sim.engine import heap_replace_min, l2_slice
from ..sim.hardware import dram_burst_cycles, l2_service_cycles
from .collector import (D_L2_HASH, L1_EV, L1_FILL, L1_LRU, PC_EV_L1, PC_EXECS, PC_L1_ACC, PC_L1_MISS, PC_N, PC_PENDING, PC_REQS,
                        PC_ROW_MISS,
                        CacheCollector, _l1_find, _l2_access)

INF = np.int64(1) << 60
# latencies and limits L[...] of the timing
(LT_L1, LT_L2, LT_DRAM, LT_ROW, LT_SMEM, LT_CONST, LT_BAR, LT_IW, LT_GTO, LT_MSHR, LT_ICNT, LT_SVC, LT_PACE,
 LT_N) = range(14)
# pacing state Q[...] (float): a DRAM burst in core cycles, then the cycle each L2 slice and each DRAM channel
# frees, then the channels' transfer counts already charged
Q_BURST, Q_SLICE0 = 0, 1
# launch geometry and running state G[...]
# (G_ISSUED, G_IN_STEP: instructions issued, and those that repeat the PC another warp of the core issued last)
# (G_STOP, G_STARTED, G_END: a paused launch (:class:`LaunchRun`) returns once G_NEXT reaches G_STOP; whether
# its first wave is placed; the last cycle reached so far)
(G_BLOCKS, G_WPB, G_OCC, G_CORES, G_L1_SETS, G_L1_WAYS, G_L2_SETS, G_L2_WAYS, G_SLICES, G_STAMP, G_CLOCK,
 G_NEXT, G_ISSUED, G_IN_STEP, G_STOP, G_STARTED, G_END, G_N) = range(18)
# per warp slot WS[core, slot, ...]: trace position and end, the cycle its next instruction's sources are
# ready (INF: no warp, finished or at a barrier), the unit that instruction needs (-1: none), age, at bar.sync;
# WS[core, i, WS_BYAGE] is the core's slot of the i-th smallest (age, slot), so that the greedy scheduler
# finds its oldest ready warp by a scan that stops at the first
WS_POS, WS_END, WS_READY, WS_NEEDS, WS_AGE, WS_BAR, WS_BYAGE, WS_N = range(8)
# per block slot BS[core, slot, ...]: warps not finished, warps waiting at bar.sync
BS_LIVE, BS_ARRIVED, BS_N = range(3)
# per core CS[core, ...]: clock, last warp slot issued, cycle the load/store unit and the shared-memory pipe
# free, the PC issued last
CS_CLOCK, CS_LAST, CS_LSU, CS_SMEM, CS_LASTPC, CS_N = range(6)
U_LSU, U_SMEM = CS_LSU, CS_SMEM


@njit(cache=True, _nrt=False, inline="always")
def _beyond_l1(ev, new_row, L):
    """Latency of a request that leaves the L1: an L2 hit (event 2) or miss (3)."""
    if ev == 2:
        return L[LT_L2]
    return L[LT_L2] + L[LT_DRAM] + L[LT_ROW] * new_row


@njit(cache=True, _nrt=False, inline="always")
def _paced(line, t, slices, hashed, L, Q, chan_hist):
    """Pacing (module docstring): the request for ``line`` leaving the core
    at ``t`` waits for its L2 slice, and the DRAM transfers it caused
    (counted in ``chan_hist`` since the last call) for their channels.
    Returns the cycles it waited."""
    arrive = t + L[LT_ICNT]
    sl = Q_SLICE0 + l2_slice(line, slices, hashed)
    start = max(float(arrive), Q[sl])
    Q[sl] = start + L[LT_SVC]
    wait = start - arrive
    nch = chan_hist.shape[0]
    c0 = Q_SLICE0 + slices
    at = start + L[LT_L2] - 2 * L[LT_ICNT]       # the lookup is done: a miss goes to DRAM
    for ch in range(nch):
        while Q[c0 + nch + ch] < chan_hist[ch]:    # write-back first, then the read (the simulator's order)
            Q[c0 + nch + ch] += 1
            go = max(at, Q[c0 + ch])
            Q[c0 + ch] = go + Q[Q_BURST]
            if ch == line % nch:
                wait = max(wait, go - at + (start - arrive))
    return np.int64(np.ceil(wait))


@njit(cache=True, _nrt=False)
def _mem_issue(s, r, pc, kd, t, t_loff, t_lines, L, G, mshr, L1tag, L1st, L2tag, L2lru, L2dirty, out, D, bank_row,
               slice_hist, chan_hist, Q):
    """Feed one global/local memory instruction issued at ``t`` to the
    caches, as the simulator's load/store unit sends it: one line per cycle,
    an L1 miss waiting for a free MSHR (``mshr[s]``: release cycles, a
    min-heap, as the simulator keeps them).
    Returns (cycle its result is ready, cycle the unit frees)."""
    l1_sets, l1_ways, l2_sets, l2_ways, slices = G[G_L1_SETS], G[G_L1_WAYS], G[G_L2_SETS], G[G_L2_WAYS], G[G_SLICES]
    stamp = G[G_STAMP]
    worst = 1
    done = t + 1
    lsu = t
    out[pc, PC_EXECS] += 1
    for q in range(t_loff[r], t_loff[r + 1]):
        line = t_lines[q] >> 7
        stamp += 1
        out[pc, PC_REQS] += 1
        if kd == S.K_LOAD:
            out[pc, PC_L1_ACC] += 1
            hit, victim = _l1_find(s, line, L1tag, L1st, l1_sets, l1_ways)
            if hit >= 0:
                L1st[L1_LRU, s, hit] = stamp
                ev = 1
                ready = lsu + L[LT_L1]
                if L1st[L1_FILL, s, hit] > lsu:     # the fill is in flight: wait for it
                    ev = L1st[L1_EV, s, hit]
                    out[pc, PC_PENDING] += 1
                    ready = max(L1st[L1_FILL, s, hit], lsu + 1)
            else:
                out[pc, PC_L1_MISS] += 1
                if mshr[s, 0] > lsu:                 # every MSHR is busy: the unit waits
                    lsu = mshr[s, 0]                 # (the one that frees first: the root of a min-heap)
                rows = out[pc, PC_ROW_MISS]
                ev = _l2_access(line, 0, L2tag, L2lru, L2dirty, l2_sets, l2_ways, slices, stamp, out, pc, D,
                                bank_row, slice_hist, chan_hist)
                ready = lsu + _beyond_l1(ev, out[pc, PC_ROW_MISS] - rows, L)
                if L[LT_PACE] == 1:
                    ready += _paced(line, lsu, slices, D[D_L2_HASH], L, Q, chan_hist)
                heap_replace_min(mshr, s, mshr.shape[1], ready)
                L1tag[s, victim] = line
                L1st[L1_LRU, s, victim] = stamp
                L1st[L1_FILL, s, victim] = ready
                L1st[L1_EV, s, victim] = ev
        else:    # stores (1) and atomics (2) go to the L2
            rows = out[pc, PC_ROW_MISS]
            ev = _l2_access(line, 1 if kd == S.K_STORE else 2, L2tag, L2lru, L2dirty, l2_sets, l2_ways, slices,
                            stamp, out, pc, D, bank_row, slice_hist, chan_hist)
            wait = _paced(line, lsu, slices, D[D_L2_HASH], L, Q, chan_hist) if L[LT_PACE] == 1 else 0
            ready = lsu + wait + _beyond_l1(ev, out[pc, PC_ROW_MISS] - rows, L) if kd == S.K_ATOM else t + 1
        if ev > worst:
            worst = ev
        if ready > done:
            done = ready
        lsu += 1
    out[pc, PC_EV_L1 + worst - 1] += 1
    G[G_STAMP] = stamp
    return done, lsu


@njit(cache=True, _nrt=False)
def _launch_scheduled(warp_off, t_pc, t_space, t_nreq, t_loff, t_lines, order, P, L, G, WS, BS, CS, mshr,
                      regready, L1tag, L1st, L2tag, L2lru, L2dirty, out, D, bank_row, slice_hist, chan_hist, Q):
    """Feed the memory instructions of the launch's blocks ``order`` (ids,
    in dispatch order) in the scheduler's issue order (module docstring)
    from cycle ``G[G_CLOCK]`` on, which it leaves at the last cycle.  The
    state arrays come cleared (:meth:`ScheduledCollector.run`).  Returns 0
    when every block has finished, 1 when paused: ``G[G_STOP]`` blocks of
    ``order`` have been placed (checked before each core's turn), with
    every state array as it stands, so that a call with the same arrays
    goes on from there (:class:`LaunchRun`)."""
    R = (P.shape[1] - S.P_SRC) // 2
    wpb, occ, cores = G[G_WPB], G[G_OCC], G[G_CORES]
    nslot = occ * wpb
    if G[G_STARTED] == 0:
        G[G_STARTED] = 1
        t0 = G[G_CLOCK]
        G[G_END] = t0
        for j in range(occ):                           # the first wave, block b on core b mod cores
            for s in range(cores):
                while G[G_NEXT] < G[G_BLOCKS] and BS[s, j, BS_LIVE] == 0:
                    _place(s, j, t0, G, order, warp_off, WS, BS, t_pc, t_space, t_nreq, P, regready)
    t_end = G[G_END]
    s_prev, t_prev = -1, np.int64(0)
    while True:
        if G[G_NEXT] >= G[G_STOP] and G[G_STOP] < G[G_BLOCKS]:
            G[G_END] = t_end
            return 1
        s = -1                                         # the core with the earliest clock (the lowest on a tie)
        t2 = INF                                       # runs until it passes the next one's
        if s_prev >= 0:
            # Only the core that ran last has moved, and forward; the cores before it were later than
            # t_prev.  So while cores after it are still at t_prev, the first of them runs next, and
            # until the next one too only for that cycle: no scan of every core in lock step.
            for c in range(s_prev + 1, cores):
                if CS[c, CS_CLOCK] == t_prev:
                    if s >= 0:
                        t2 = t_prev
                        break
                    s = c
            if s >= 0 and t2 == INF:
                for c in range(cores):
                    if c != s and CS[c, CS_CLOCK] < t2:
                        t2 = CS[c, CS_CLOCK]
        if s < 0:
            for c in range(cores):
                if s < 0 or CS[c, CS_CLOCK] < CS[s, CS_CLOCK]:
                    if s >= 0 and CS[s, CS_CLOCK] < t2:
                        t2 = CS[s, CS_CLOCK]
                    s = c
                elif CS[c, CS_CLOCK] < t2:
                    t2 = CS[c, CS_CLOCK]
        if CS[s, CS_CLOCK] >= INF:
            break
        s_prev, t_prev = s, CS[s, CS_CLOCK]
        while CS[s, CS_CLOCK] <= t2 and CS[s, CS_CLOCK] < INF:
            t = CS[s, CS_CLOCK]
            issued = 0
            while issued < L[LT_IW]:
                w = _pick(s, t, CS[s, CS_LAST], nslot, WS, CS, L[LT_GTO])
                if w < 0:
                    break
                r = WS[s, w, WS_POS]
                pc = t_pc[r]
                G[G_ISSUED] += 1
                if pc == CS[s, CS_LASTPC] and w != CS[s, CS_LAST]:
                    G[G_IN_STEP] += 1
                CS[s, CS_LASTPC] = pc
                kd = P[pc, S.P_KIND]
                sp = t_space[r]
                nr = t_nreq[r]
                done = t + P[pc, S.P_LAT]
                if WS[s, w, WS_NEEDS] == U_LSU:
                    done, CS[s, CS_LSU] = _mem_issue(s, r, pc, kd, t, t_loff, t_lines, L, G, mshr, L1tag, L1st,
                                                     L2tag, L2lru, L2dirty, out, D, bank_row, slice_hist, chan_hist,
                                                     Q)
                elif WS[s, w, WS_NEEDS] == U_SMEM:
                    done = t + L[LT_SMEM] + nr - 1
                    CS[s, CS_SMEM] = t + nr
                elif kd == S.K_LOAD or kd == S.K_STORE or kd == S.K_ATOM:
                    done = t + L[LT_CONST] + max(nr, 1) - 1 if nr > 0 or sp == S.SP_CONST or sp == S.SP_PARAM \
                        else t + 1
                for k in range(S.P_SRC + R, S.P_SRC + 2 * R):
                    g = P[pc, k]
                    if g < 0:
                        break
                    regready[s, w, g] = done
                issued += 1
                CS[s, CS_LAST] = w
                WS[s, w, WS_POS] = r + 1
                j = w // wpb
                if kd == S.K_EXIT or r + 1 >= WS[s, w, WS_END]:
                    WS[s, w, WS_READY] = INF
                    BS[s, j, BS_LIVE] -= 1
                    if BS[s, j, BS_LIVE] == 0:         # the block retires; its slot takes the next block
                        BS[s, j, BS_ARRIVED] = 0
                        while G[G_NEXT] < G[G_BLOCKS] and BS[s, j, BS_LIVE] == 0:
                            _place(s, j, t + 1, G, order, warp_off, WS, BS, t_pc, t_space, t_nreq, P, regready)
                    elif BS[s, j, BS_ARRIVED] > 0 and BS[s, j, BS_ARRIVED] == BS[s, j, BS_LIVE]:
                        _release(s, j, t + L[LT_BAR], wpb, WS, BS, t_pc, t_space, t_nreq, P, regready)
                elif kd == S.K_BAR:
                    WS[s, w, WS_READY] = INF
                    WS[s, w, WS_BAR] = 1
                    BS[s, j, BS_ARRIVED] += 1
                    if BS[s, j, BS_ARRIVED] == BS[s, j, BS_LIVE]:
                        _release(s, j, t + L[LT_BAR], wpb, WS, BS, t_pc, t_space, t_nreq, P, regready)
                else:                                  # a branch holds the warp until it resolves
                    _arm(s, w, done if kd == S.K_BRANCH else t + 1, WS, t_pc, t_space, t_nreq, P, regready)
            if t + 1 > t_end:
                t_end = t + 1
            if issued > 0:
                CS[s, CS_CLOCK] = t + 1
            else:                                      # nothing can issue: jump to the first that can
                mn = INF
                for w in range(nslot):
                    rd = WS[s, w, WS_READY]
                    u = WS[s, w, WS_NEEDS]
                    if u >= 0 and CS[s, u] > rd:
                        rd = CS[s, u]
                    if rd < mn:
                        mn = rd
                CS[s, CS_CLOCK] = max(mn, t + 1)
    G[G_END] = t_end
    G[G_CLOCK] = t_end
    return 0


@njit(cache=True, _nrt=False, inline="always")
def _arm(s, w, t, WS, t_pc, t_space, t_nreq, P, regready):
    """Warp slot ``w`` may issue its next instruction from cycle ``t`` on:
    note when its sources are ready and which unit it needs."""
    R = (P.shape[1] - S.P_SRC) // 2
    r = WS[s, w, WS_POS]
    pc = t_pc[r]
    for k in range(S.P_SRC, S.P_SRC + R):
        g = P[pc, k]
        if g < 0:
            break
        if regready[s, w, g] > t:
            t = regready[s, w, g]
    WS[s, w, WS_READY] = t
    WS[s, w, WS_NEEDS] = -1
    kd = P[pc, S.P_KIND]
    if (kd == S.K_LOAD or kd == S.K_STORE or kd == S.K_ATOM) and t_nreq[r] > 0:
        sp = t_space[r]
        if sp == S.SP_SHARED:
            WS[s, w, WS_NEEDS] = U_SMEM
        elif sp == S.SP_GLOBAL or sp == S.SP_LOCAL or sp == S.SP_MIXED:
            WS[s, w, WS_NEEDS] = U_LSU


@njit(cache=True, _nrt=False)
def _place(s, j, t, G, order, warp_off, WS, BS, t_pc, t_space, t_nreq, P, regready):
    """The next block of ``order`` into block slot ``j`` of core ``s`` at cycle ``t``."""
    b = order[G[G_NEXT]]
    G[G_NEXT] += 1
    wpb = G[G_WPB]
    BS[s, j, BS_LIVE] = 0
    BS[s, j, BS_ARRIVED] = 0
    for k in range(wpb):
        w = j * wpb + k
        g = b * wpb + k
        WS[s, w, WS_POS] = warp_off[g]
        WS[s, w, WS_END] = warp_off[g + 1]
        WS[s, w, WS_AGE] = g
        WS[s, w, WS_BAR] = 0
        regready[s, w, :] = 0
        if warp_off[g + 1] > warp_off[g]:
            BS[s, j, BS_LIVE] += 1
            _arm(s, w, t, WS, t_pc, t_space, t_nreq, P, regready)
        else:
            WS[s, w, WS_READY] = INF
            WS[s, w, WS_NEEDS] = -1
    nslot = WS.shape[1]                                # the age order again (insertion: nearly sorted)
    for i in range(1, nslot):
        x = WS[s, i, WS_BYAGE]
        k = i - 1
        while k >= 0 and (WS[s, WS[s, k, WS_BYAGE], WS_AGE] > WS[s, x, WS_AGE] or (
                WS[s, WS[s, k, WS_BYAGE], WS_AGE] == WS[s, x, WS_AGE] and WS[s, k, WS_BYAGE] > x)):
            WS[s, k + 1, WS_BYAGE] = WS[s, k, WS_BYAGE]
            k -= 1
        WS[s, k + 1, WS_BYAGE] = x


@njit(cache=True, _nrt=False)
def _release(s, j, t, wpb, WS, BS, t_pc, t_space, t_nreq, P, regready):
    """The warps of block slot ``j`` waiting at ``bar.sync`` go on at ``t``."""
    BS[s, j, BS_ARRIVED] = 0
    for k in range(wpb):
        w = j * wpb + k
        if WS[s, w, WS_BAR] == 1:
            WS[s, w, WS_BAR] = 0
            _arm(s, w, t, WS, t_pc, t_space, t_nreq, P, regready)


@njit(cache=True, _nrt=False, inline="always")
def _pick(s, t, last, nslot, WS, CS, gto):
    """The warp slot the scheduler issues from at cycle ``t``, or -1: GTO
    the last one while it can issue, else the oldest that can; RR the first
    that can after the last one."""
    if gto == 1:
        if last >= 0 and WS[s, last, WS_READY] <= t and (WS[s, last, WS_NEEDS] < 0 or
                                                         CS[s, WS[s, last, WS_NEEDS]] <= t):
            return last
        for i in range(nslot):          # live warps have distinct ages; the others are never ready
            w = WS[s, i, WS_BYAGE]
            if WS[s, w, WS_READY] <= t and (WS[s, w, WS_NEEDS] < 0 or CS[s, WS[s, w, WS_NEEDS]] <= t):
                return w
        return -1
    for k in range(nslot):
        w = last + 1 + k
        if w >= nslot:
            w -= nslot
        if WS[s, w, WS_READY] <= t and (WS[s, w, WS_NEEDS] < 0 or CS[s, WS[s, w, WS_NEEDS]] <= t):
            return w
    return -1


class ScheduledCollector(CacheCollector):
    """:class:`.collector.CacheCollector` fed in the issue order of
    ``policy`` (``rr`` or ``gto``); :meth:`run` takes the engine's per-PC
    table ``P`` (kinds, latencies, registers) in place of the kinds.

    After a launch, ``in_step`` is the share of its issued instructions
    whose PC is the one another warp of the same core issued just before:
    (W - 1) / W when the core's W warps move through the code in step (a
    round-robin scheduler on uniform code), near 0 when they have drifted
    apart (a greedy scheduler runs one warp's instructions back to back).
    The contention model's ``measured`` reading weighs its two readings by
    it (:func:`.contention.pass_time`)."""

    def __init__(self, hw: dict, policy: str, paced: bool = False):
        super().__init__(hw)
        self.policy = policy
        self.paced = bool(paced)
        self.burst = dram_burst_cycles(hw)
        lat, d = hw["latency"], hw["dram"]
        self.L = np.zeros(LT_N, np.int64)
        self.L[LT_L1], self.L[LT_L2] = hw["l1"]["hit_latency"], hw["l2"]["hit_latency"]
        self.L[LT_DRAM], self.L[LT_ROW] = d["latency"], d["row_miss_latency"]
        self.L[LT_SMEM], self.L[LT_CONST], self.L[LT_BAR] = lat["shared"], lat["const"], lat["barrier"]
        self.L[LT_IW], self.L[LT_GTO] = hw["issue_width"], 1 if policy == "gto" else 0
        self.L[LT_MSHR] = hw["l1"]["mshrs"]
        self.L[LT_ICNT], self.L[LT_SVC] = hw["interconnect_latency"], l2_service_cycles(hw)
        self.L[LT_PACE] = 1 if self.paced else 0
        self.clock = 0
        self.in_step = 0.0      # of the last launch run (:meth:`run`)
        self.issued = 0         # warp instructions issued in the last launch run
        self.in_step_issues = 0  # of those, the ones in step (in_step = in_step_issues / issued)

    def _pacing_state(self) -> np.ndarray:
        """Q for one launch: the burst, then every slice and channel free
        from the collector's clock on (the simulator's calendars forget what
        ended before a launch), then no transfers charged."""
        nch = len(self.channel_transfers)
        q = np.zeros(Q_SLICE0 + self.slices + 2 * nch)
        q[Q_BURST] = self.burst
        q[Q_SLICE0:Q_SLICE0 + self.slices + nch] = self.clock
        return q

    def run(self, trace, P: np.ndarray, n_blocks: int, warps_per_block: int, sm_occupancy: int,
            blocks: np.ndarray | None = None) -> np.ndarray:
        """Counters ``PC_*`` per PC for one launch, as
        :meth:`.collector.CacheCollector.run`; caches and clock carry over.
        ``blocks``: the ids of the blocks to run, in dispatch order
        (default: all ``n_blocks``), for a sampled collection
        (:mod:`.sampled`)."""
        launch = self.start(trace, P, n_blocks, warps_per_block, sm_occupancy, blocks)
        launch.advance()
        return launch.finish()

    def start(self, trace, P: np.ndarray, n_blocks: int, warps_per_block: int, sm_occupancy: int,
              blocks: np.ndarray | None = None) -> "LaunchRun":
        """One launch that can be paused and resumed without draining
        (:class:`LaunchRun`); :meth:`run` is ``start``, one ``advance``
        to the end and ``finish``."""
        order = np.arange(n_blocks, dtype=np.int64) if blocks is None else np.asarray(blocks, np.int64)
        if len(order) and (order.min() < 0 or order.max() >= n_blocks):
            raise ValueError(f"block ids must lie in [0, {n_blocks}), got {order.min()}..{order.max()}")
        return LaunchRun(self, trace, P, warps_per_block, sm_occupancy, order)


class LaunchRun:
    """A launch of :class:`ScheduledCollector` in progress (ours; within-launch
    sampling of the collection, :mod:`.sampled`).  :meth:`advance` runs it
    until a number of its blocks have been placed, leaving the blocks in
    flight where they are; :meth:`skip` drops blocks not yet placed from
    the dispatch order (a freed slot takes the next block kept, as the
    simulator's sampling skips blocks); :meth:`counts` reads what has been
    counted so far; :meth:`finish` runs the rest and hands the caches and
    clock back to the collector.  Why: a collector that drains its blocks
    and starts a new first wave at every pause changes which blocks share
    a core's L1 (docs/gpumech.md, "Re-evaluation")."""

    def __init__(self, col: ScheduledCollector, trace, P, warps_per_block: int, sm_occupancy: int, order: np.ndarray):
        self.col, self.trace = col, trace
        self.P = np.ascontiguousarray(P, np.int64)
        self.order = order.copy()
        self.out = np.zeros((len(P), PC_N), np.int64)
        col.slice_requests = np.zeros(col.slices, np.int64)
        col.channel_transfers = np.zeros(len(col.channel_transfers), np.int64)
        cores = col.hw["cores"]
        nslot = sm_occupancy * warps_per_block
        nregs = int(max(1, P[:, S.P_SRC:].max() + 1))
        G = np.zeros(G_N, np.int64)
        G[[G_BLOCKS, G_WPB, G_OCC, G_CORES, G_L1_SETS, G_L1_WAYS, G_L2_SETS, G_L2_WAYS, G_SLICES, G_STAMP,
           G_CLOCK, G_STOP]] = (len(order), warps_per_block, sm_occupancy, cores, col.l1_sets, col.l1_ways,
                                col.l2_sets, col.l2_ways, col.slices, col.stamp, col.clock, len(order))
        self.G = G
        self.WS = np.zeros((cores, max(nslot, 1), WS_N), np.int64)
        self.WS[:, :, WS_READY], self.WS[:, :, WS_NEEDS] = INF, -1
        self.WS[:, :, WS_BYAGE] = np.arange(self.WS.shape[1])
        self.CS = np.full((cores, CS_N), col.clock, np.int64)
        self.CS[:, CS_LAST] = self.CS[:, CS_LASTPC] = -1
        self.BS = np.zeros((cores, max(sm_occupancy, 1), BS_N), np.int64)
        self.mshr = np.full((cores, max(1, int(col.L[LT_MSHR]))), col.clock, np.int64)
        self.regready = np.zeros((cores, max(nslot, 1), nregs), np.int64)
        self.Q = col._pacing_state()
        self.done = False

    @property
    def placed(self) -> int:
        """Blocks of the dispatch order placed so far."""
        return int(self.G[G_NEXT])

    def skip(self, blocks) -> None:
        """Drop ``blocks`` (ids) from the part of the dispatch order not yet placed."""
        head, tail = self.order[:self.placed], self.order[self.placed:]
        if np.isin(blocks, head).any():
            raise ValueError("cannot skip a block that has been placed")
        self.order = np.concatenate([head, tail[~np.isin(tail, blocks)]])
        self.G[G_BLOCKS] = len(self.order)
        self.G[G_STOP] = min(self.G[G_STOP], len(self.order))

    def advance(self, placed: int | None = None) -> bool:
        """Run until ``placed`` blocks of the order have been placed (all of
        them by default: to the end); returns whether the launch has ended."""
        if self.done:
            return True
        col, tr, G = self.col, self.trace, self.G
        G[G_STOP] = len(self.order) if placed is None else min(int(placed), len(self.order))
        rc = _launch_scheduled(tr.warp_off, tr.pc, tr.space, tr.nreq, tr.line_off, tr.lines, self.order, self.P,
                               col.L, G, self.WS, self.BS, self.CS, self.mshr, self.regready, col.L1tag, col.L1st,
                               col.L2tag, col.L2lru, col.L2dirty, self.out, col.D, col.bank_row,
                               col.slice_requests, col.channel_transfers, self.Q)
        self.done = rc == 0
        return self.done

    def counts(self) -> tuple:
        """What has been counted so far: (per-PC counters, slice requests,
        channel transfers, in-step issues, issued warp instructions), copies."""
        return (self.out.copy(), self.col.slice_requests.copy(), self.col.channel_transfers.copy(),
                int(self.G[G_IN_STEP]), int(self.G[G_ISSUED]))

    def finish(self) -> np.ndarray:
        """Run to the end; the collector takes the caches' stamp and the
        clock, and the launch's in-step share.  Returns the per-PC counters."""
        self.advance()
        col, G = self.col, self.G
        col.stamp, col.clock = int(G[G_STAMP]), int(G[G_CLOCK])
        # the share of issues that repeat the PC another warp of the core just issued: warps in step
        col.in_step = float(G[G_IN_STEP]) / G[G_ISSUED] if G[G_ISSUED] else 0.0
        col.issued = int(G[G_ISSUED])
        col.in_step_issues = int(G[G_IN_STEP])
        return self.out
