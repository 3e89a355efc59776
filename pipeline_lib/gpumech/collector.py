"""GPUMech's input collector (seed 000, 4.5): a functional cache simulator
without timing and the per-PC latencies it gives.

The memory instructions of all warps are fed in round-robin order: each
core holds its resident blocks (SM occupancy, as the detailed simulator
dispatches them: block b of the first wave on core b mod cores, later
blocks to the core whose block finished), and in every round each resident
warp contributes its next global/local memory instruction.  The caches
follow the detailed simulator's policies (docs/simulator.md): per-core L1,
LRU, loads allocate, stores write through without allocating; a shared L2
of ``slices`` slices, LRU, write-back, stores allocate without a fetch,
atomics execute at the L2.  Cache state carries from launch to launch.

Per PC (4.5.2) the collector counts the miss event of every execution --
L1 hit, L2 hit or L2 miss, for a divergent instruction the request with the
longest latency decides -- and the requests' L1/L2 accesses and misses and
DRAM traffic.  *Pending hits* (4.6.4 names them the main source of the
seed's miss-rate error): an L1 hit on a line that another warp of the core
brought in during the same round waits for that miss, as the simulator's
MSHR merge does, so it takes the miss's event; it still counts as a hit.
DRAM reads that open a new row in their bank (the simulator's address
mapping and open-row policy, in the collector's order) add
``dram.row_miss_latency`` to the PC's DRAM latency.  The requests per L2
slice and DRAM transfers per channel feed the contention model
(:mod:`.contention`).  A memory PC's latency is its average memory access time
(AMAT), e.g. 0.9 x 120 + 0.1 x 420 = 150 cycles.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from ..sim.engine import l2_slice, set_lookup
from ..sim.static import K_ATOM, K_LOAD, K_STORE, SP_GLOBAL, SP_LOCAL, SP_MIXED
from ..sim.hardware import field_value

# per-PC counters
(PC_EXECS, PC_EV_L1, PC_EV_L2, PC_EV_DRAM, PC_REQS, PC_L1_ACC, PC_L1_MISS, PC_L2_ACC, PC_L2_MISS,
 PC_DRAM_RD, PC_DRAM_WR, PC_ROW_MISS, PC_PENDING, PC_N) = range(14)

# per L1 line: LRU stamp, the stamp of its fill and the fill's miss event
L1_LRU, L1_FILL, L1_EV = range(3)

# DRAM geometry D[...] (from the simulator's engine configuration; D_L2_HASH:
# the L2's slice mapping, engine.l2_slice) and the per-launch resource
# histograms H[...] of the contention model
D_CH, D_BANKS, D_PAGE_LINES, D_ROW_OPEN, D_L2_HASH, D_N = range(6)


@njit(cache=True, _nrt=False)
def _dram_access(line, write, D, bank_row, chan_hist, out, pc):
    """One DRAM transfer: counts it on its channel and, for a read, whether
    it opens a new row (the simulator's mapping: lines interleave across
    channels, the lines of a page are consecutive in one bank)."""
    nch = D[D_CH]
    ch = line % nch
    local = line // nch
    bank = ch * D[D_BANKS] + (local // D[D_PAGE_LINES]) % D[D_BANKS]
    row = local // (D[D_PAGE_LINES] * D[D_BANKS])
    chan_hist[ch] += 1
    if D[D_ROW_OPEN] == 0 or bank_row[bank] != row:
        if not write:
            out[pc, PC_ROW_MISS] += 1
    bank_row[bank] = row if D[D_ROW_OPEN] == 1 else -1


@njit(cache=True, _nrt=False)
def _l2_access(line, write, L2tag, L2lru, L2dirty, l2_sets, l2_ways, slices, stamp, out, pc,
               D, bank_row, slice_hist, chan_hist):
    """One request at the L2; returns 2 (hit) or 3 (miss).  Counts the
    DRAM read of a miss that needs the data and the write-back of a dirty
    victim, and the request on its slice."""
    sl = l2_slice(line, slices, D[D_L2_HASH])
    base = (sl * l2_sets + (line // slices) % l2_sets) * l2_ways
    out[pc, PC_L2_ACC] += 1
    slice_hist[sl] += 1
    hit, victim = set_lookup(L2tag, L2lru, base, l2_ways, line)
    if hit >= 0:
        L2lru[hit] = stamp
        if write:
            L2dirty[hit] = 1
        return 2
    out[pc, PC_L2_MISS] += 1
    if L2tag[victim] != -1 and L2dirty[victim] == 1:
        out[pc, PC_DRAM_WR] += 1
        _dram_access(L2tag[victim], True, D, bank_row, chan_hist, out, pc)
    L2tag[victim] = line
    L2lru[victim] = stamp
    L2dirty[victim] = 1 if write else 0
    if write == 0 or write == 2:
        out[pc, PC_DRAM_RD] += 1
        _dram_access(line, False, D, bank_row, chan_hist, out, pc)
    return 3


@njit(cache=True, _nrt=False)
def _l1_find(s, line, L1tag, L1st, l1_sets, l1_ways):
    """Core ``s``'s L1 way holding ``line`` (-1 if none) and the LRU victim of its set."""
    return set_lookup(L1tag[s], L1st[L1_LRU, s], (line % l1_sets) * l1_ways, l1_ways, line)


@njit(cache=True)
def _launch(warp_off, t_pc, t_space, t_nreq, t_loff, t_lines, kind, n_blocks, wpb, occ, cores,
            L1tag, L1st, l1_sets, l1_ways, L2tag, L2lru, L2dirty, l2_sets, l2_ways, slices, stamp, out,
            D, bank_row, slice_hist, chan_hist):
    """Feed one launch's memory instructions round-robin; returns the LRU stamp."""
    pos = warp_off[:-1].copy()
    slot = np.full((cores, occ), -1, np.int64)
    nxt = 0
    for j in range(occ):
        for s in range(cores):
            if nxt < n_blocks:
                slot[s, j] = nxt
                nxt += 1
    live = min(n_blocks, occ * cores)
    while live > 0:
        round_start = stamp + 1
        for s in range(cores):
            for j in range(occ):
                b = slot[s, j]
                if b < 0:
                    continue
                finished = True
                for k in range(wpb):
                    w = b * wpb + k
                    r = pos[w]
                    end = warp_off[w + 1]
                    while r < end:
                        kd = kind[t_pc[r]]
                        sp = t_space[r]
                        if (kd == K_LOAD or kd == K_STORE or kd == K_ATOM) and t_nreq[r] > 0 and \
                                (sp == SP_GLOBAL or sp == SP_LOCAL or sp == SP_MIXED):
                            break
                        r += 1
                    if r >= end:
                        pos[w] = end
                        continue
                    pc = t_pc[r]
                    kd = kind[pc]
                    worst = 1
                    out[pc, PC_EXECS] += 1
                    for q in range(t_loff[r], t_loff[r + 1]):
                        line = t_lines[q] >> 7
                        stamp += 1
                        out[pc, PC_REQS] += 1
                        if kd == K_LOAD:
                            out[pc, PC_L1_ACC] += 1
                            hit, victim = _l1_find(s, line, L1tag, L1st, l1_sets, l1_ways)
                            if hit >= 0:
                                L1st[L1_LRU, s, hit] = stamp
                                ev = 1
                                if L1st[L1_FILL, s, hit] >= round_start:
                                    # filled in this round by another warp of the core: a pending hit
                                    # waits for that miss (the simulator's MSHR merge)
                                    ev = L1st[L1_EV, s, hit]
                                    out[pc, PC_PENDING] += 1
                            else:
                                out[pc, PC_L1_MISS] += 1
                                L1tag[s, victim] = line
                                ev = _l2_access(line, 0, L2tag, L2lru, L2dirty, l2_sets, l2_ways, slices, stamp,
                                                out, pc, D, bank_row, slice_hist, chan_hist)
                                L1st[L1_LRU, s, victim] = stamp
                                L1st[L1_FILL, s, victim] = stamp
                                L1st[L1_EV, s, victim] = ev
                        else:    # stores (1) and atomics (2) go to the L2
                            ev = _l2_access(line, 1 if kd == K_STORE else 2, L2tag, L2lru, L2dirty, l2_sets,
                                            l2_ways, slices, stamp, out, pc, D, bank_row, slice_hist, chan_hist)
                        if ev > worst:
                            worst = ev
                    out[pc, PC_EV_L1 + worst - 1] += 1
                    pos[w] = r + 1
                    finished = False
                if finished:
                    if nxt < n_blocks:
                        slot[s, j] = nxt
                        nxt += 1
                    else:
                        slot[s, j] = -1
                        live -= 1
    return stamp


class CacheCollector:
    """Functional L1/L2 simulation of a traced workload on ``hw`` (the
    fields ``cores``, ``warp_size``, ``sm_limits``, ``l1``, ``l2``).

    :meth:`run` feeds one launch and returns its per-PC table; state carries
    over to the next launch, as in the detailed simulator.
    """

    def __init__(self, hw: dict):
        self.hw = hw
        l1, l2 = hw["l1"], hw["l2"]
        self.l1_ways, self.l1_sets = l1["assoc"], l1["size_bytes"] // (l1["line_bytes"] * l1["assoc"])
        self.l2_ways, self.slices = l2["assoc"], l2["slices"]
        self.l2_sets = l2["size_bytes"] // (l2["line_bytes"] * l2["assoc"] * l2["slices"])
        S = hw["cores"]
        self.L1tag = np.full((S, self.l1_sets * self.l1_ways), -1, np.int64)
        self.L1st = np.zeros((3, S, self.l1_sets * self.l1_ways), np.int64)
        n2 = self.slices * self.l2_sets * self.l2_ways
        self.L2tag = np.full(n2, -1, np.int64)
        self.L2lru = np.zeros(n2, np.int64)
        self.L2dirty = np.zeros(n2, np.int64)
        self.stamp = 0
        d = hw["dram"]
        self.D = np.zeros(D_N, np.int64)
        self.D[D_CH], self.D[D_BANKS] = d["channels"], d["banks"]
        self.D[D_PAGE_LINES] = max(1, d["page_bytes"] // l2["line_bytes"])
        self.D[D_ROW_OPEN] = 1 if d["row_policy"] == "open" else 0
        self.D[D_L2_HASH] = 1 if field_value(hw, "l2.slice_hash") == "xor" else 0
        self.bank_row = np.full(d["channels"] * d["banks"], -1, np.int64)
        self.slice_requests = np.zeros(self.slices, np.int64)
        self.channel_transfers = np.zeros(d["channels"], np.int64)

    def run(self, trace, kind: np.ndarray, n_blocks: int, warps_per_block: int, sm_occupancy: int) -> np.ndarray:
        """Counters ``PC_*`` per PC (rows indexed by pc) for one launch's
        :class:`~pipeline_lib.sim.trace_reader.LaunchTrace`; ``kind`` holds
        the engine's instruction kind per PC.  The launch's requests per L2
        slice and DRAM transfers per channel are left in
        ``slice_requests`` and ``channel_transfers`` (the contention model's
        resource shares)."""
        out = np.zeros((len(kind), PC_N), np.int64)
        self.slice_requests = np.zeros(self.slices, np.int64)
        self.channel_transfers = np.zeros(len(self.channel_transfers), np.int64)
        self.stamp = _launch(trace.warp_off, trace.pc, trace.space, trace.nreq, trace.line_off, trace.lines,
                             kind.astype(np.int64), n_blocks, warps_per_block, sm_occupancy, self.hw["cores"],
                             self.L1tag, self.L1st, self.l1_sets, self.l1_ways, self.L2tag, self.L2lru,
                             self.L2dirty, self.l2_sets, self.l2_ways, self.slices, self.stamp, out,
                             self.D, self.bank_row, self.slice_requests, self.channel_transfers)
        return out


def pc_latency_table(counts: np.ndarray, hw: dict) -> pd.DataFrame:
    """:func:`pc_latency_columns` as a table."""
    return pd.DataFrame(pc_latency_columns(counts, hw))


def pc_latency_columns(counts: np.ndarray, hw: dict) -> dict:
    """Per PC (arrays indexed by pc): executions, the miss-event distribution, request-level rates
    and the AMAT latency (4.5.2).  An L2 hit costs ``l2.hit_latency``, an L2
    miss that plus ``dram.latency`` (the seed's 120 and 420 cycles) plus
    ``dram.row_miss_latency`` for the share of the PC's DRAM reads that open
    a new row (the simulator charges it; the seed's AMAT has no row term)."""
    l1, l2 = hw["l1"]["hit_latency"], hw["l2"]["hit_latency"]
    ex = counts[:, PC_EXECS].astype(float)
    safe = np.maximum(ex, 1.0)
    ev = counts[:, PC_EV_L1:PC_EV_DRAM + 1] / safe[:, None]
    reqs = np.maximum(counts[:, PC_REQS].astype(float), 1.0)
    row_miss = counts[:, PC_ROW_MISS] / np.maximum(counts[:, PC_DRAM_RD], 1)
    dram = l2 + hw["dram"]["latency"] + hw["dram"]["row_miss_latency"] * row_miss
    cols = {"pc": np.arange(len(counts), dtype=np.int32), "execs": counts[:, PC_EXECS],
            "requests": counts[:, PC_REQS], "l1_hit": ev[:, 0], "l2_hit": ev[:, 1], "l2_miss": ev[:, 2],
            "amat": np.where(ex > 0, ev[:, 0] * l1 + ev[:, 1] * l2 + ev[:, 2] * dram, 0.0),
            "l1_miss_per_req": counts[:, PC_L1_MISS] / reqs,
            "l2_per_req": counts[:, PC_L2_ACC] / reqs,
            "dram_per_req": (counts[:, PC_DRAM_RD] + counts[:, PC_DRAM_WR]) / reqs,
            "row_miss_rate": row_miss}
    for c, i in (("l1_accesses", PC_L1_ACC), ("l1_misses", PC_L1_MISS), ("l2_accesses", PC_L2_ACC),
                 ("l2_misses", PC_L2_MISS), ("dram_reads", PC_DRAM_RD), ("dram_writes", PC_DRAM_WR)):
        cols[c] = counts[:, i]
    return cols


def avg_miss_latency(counts: np.ndarray, kind: np.ndarray, hw: dict) -> float:
    """avg_miss_latency of eq. 28: mean L2/DRAM latency of the loads' L1
    misses (an L1 miss hits the L2 or goes on to DRAM)."""
    loads = kind == K_LOAD
    misses = counts[loads, PC_L1_MISS].sum()
    if misses == 0:
        return float(hw["l2"]["hit_latency"])
    l2_miss = counts[loads, PC_L2_MISS].sum()
    l2 = hw["l2"]["hit_latency"]
    row = counts[loads, PC_ROW_MISS].sum() / max(counts[loads, PC_DRAM_RD].sum(), 1)
    dram = l2 + hw["dram"]["latency"] + hw["dram"]["row_miss_latency"] * row
    return float(((misses - l2_miss) * l2 + l2_miss * dram) / misses)
