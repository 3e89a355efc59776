"""The interval algorithm (seed 000, 4.3.2, eqs. 11 and 13): a warp's
in-order execution on its own and the intervals it forms.

Each instruction issues at
``issue(k + 1) = max(issue(k) + 1, ready(sources of k + 1))`` where a
register is ready ``latency`` cycles after its producer issued.  Eq. 13
writes ``done_cycle(source) + 1`` with the done cycle as the last busy
cycle; our done cycle (as in the detailed simulator) is the first cycle the
result can be read, so the ``+ 1`` is already in it.  As in the detailed
simulator a branch also holds the warp's next issue until it resolves (the
target pipeline has no branch prediction); the seed's eq. 13 has data
dependences only.  An interval ends at instruction k when instruction k + 1
does not issue in the next cycle; its stall cycles are the gap.

Latencies per instruction (4.5.2): compute from the configuration; global
and local memory the PC's AMAT from :mod:`.collector` (stores write no
register and never stall); shared memory and constants their pipeline
latency plus one cycle per extra request, as in the detailed simulator, and
so do global and local loads (the load/store unit sends one line per cycle).
Synchronisation is not modelled (4.5.2).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from ..sim import static as S

# per-interval fields of the output buffer
(I_INSTS, I_STALL, I_MEM_INSTS, I_MEM_REQS, I_MISS_REQS, I_DRAM_REQS, I_CAUSE_PC, I_LOAD_INSTS, I_LSU, I_SMEM,
 I_L2_REQS, I_N) = range(12)
CAUSE_NONE = -1


@njit(cache=True)
def warp_intervals(t_pc, t_space, t_nreq, lo, hi, P, amat, miss_per_req, dram_per_req, l2_per_req,
                   smem_lat, const_lat, regready, writer, out):
    """Intervals of the warp whose trace rows are [lo, hi).  ``P`` gives the
    compute latency per PC, ``amat`` the memory latency per PC; fills
    ``out[i, I_*]`` and returns (number of intervals, single-warp cycles).
    ``regready``/``writer`` are scratch arrays of the kernel's registers."""
    R = (P.shape[1] - S.P_SRC) // 2
    regready[:] = 0.0
    writer[:] = CAUSE_NONE
    n = 0
    t = -1.0
    hold = 0.0           # a branch in flight holds the next issue
    hold_pc = CAUSE_NONE
    cur = np.zeros(I_N)
    for r in range(lo, hi):
        pc = t_pc[r]
        ready = t + 1.0
        cause = CAUSE_NONE
        if hold > ready:
            ready = hold
            cause = hold_pc
        for k in range(S.P_SRC, S.P_SRC + R):
            g = P[pc, k]
            if g < 0:
                break
            if regready[g] > ready:
                ready = regready[g]
                cause = writer[g]
        if r > lo and ready > t + 1.0:       # the previous instruction closes an interval
            out[n, :] = cur
            out[n, I_STALL] = ready - t - 1.0
            out[n, I_CAUSE_PC] = cause
            n += 1
            cur[:] = 0.0
        t = ready
        cur[I_INSTS] += 1
        kind = P[pc, S.P_KIND]
        sp = t_space[r]
        nr = t_nreq[r]
        mem = kind == S.K_LOAD or kind == S.K_STORE or kind == S.K_ATOM
        done = t + P[pc, S.P_LAT]
        if mem:
            if nr > 0 and (sp == S.SP_GLOBAL or sp == S.SP_LOCAL or sp == S.SP_MIXED):
                cur[I_MEM_INSTS] += 1
                cur[I_MEM_REQS] += nr
                cur[I_LSU] += nr
                cur[I_DRAM_REQS] += nr * dram_per_req[pc]
                cur[I_L2_REQS] += nr * l2_per_req[pc]
                if kind == S.K_LOAD:
                    cur[I_LOAD_INSTS] += 1
                    cur[I_MISS_REQS] += nr * miss_per_req[pc]
                # the load/store unit sends one line per cycle, so the last
                # line leaves nr - 1 cycles after the first (as shared memory)
                done = t + amat[pc] + nr - 1 if kind != S.K_STORE else t + 1.0
            elif nr > 0 and sp == S.SP_SHARED:
                cur[I_SMEM] += nr
                done = t + smem_lat + nr - 1
            elif nr > 0 or sp == S.SP_CONST or sp == S.SP_PARAM:
                done = t + const_lat + max(nr, 1) - 1
            else:
                done = t + 1.0
        elif kind == S.K_BRANCH:
            hold = done
            hold_pc = pc
        for k in range(S.P_SRC + R, S.P_SRC + 2 * R):
            g = P[pc, k]
            if g < 0:
                break
            regready[g] = done
            writer[g] = pc
    if hi > lo:
        out[n, :] = cur
        out[n, I_STALL] = 0.0
        out[n, I_CAUSE_PC] = CAUSE_NONE
        n += 1
    return n, t + 1.0


@njit(cache=True)
def all_warps(warp_off, t_pc, t_space, t_nreq, P, amat, miss_per_req, dram_per_req, l2_per_req, smem_lat,
              const_lat, nregs):
    """Single-warp instructions and cycles of every warp (for eq. 14/15)."""
    nw = len(warp_off) - 1
    insts = np.zeros(nw, np.int64)
    cycles = np.zeros(nw)
    regready = np.zeros(nregs)
    writer = np.zeros(nregs, np.int64)
    longest = 1
    for w in range(nw):
        longest = max(longest, warp_off[w + 1] - warp_off[w])
    out = np.zeros((longest + 1, I_N))
    for w in range(nw):
        lo, hi = warp_off[w], warp_off[w + 1]
        _, cyc = warp_intervals(t_pc, t_space, t_nreq, lo, hi, P, amat, miss_per_req, dram_per_req, l2_per_req,
                                smem_lat, const_lat, regready, writer, out)
        insts[w] = hi - lo
        cycles[w] = cyc
    return insts, cycles


class KernelTiming:
    """Per-PC inputs of the interval algorithm for one kernel on ``hw``:
    the engine's static table ``P`` (kinds, compute latencies, registers)
    and the collector's per-PC table (:func:`collector.pc_latency_table`)."""

    def __init__(self, P: np.ndarray, pcs, hw: dict):
        """``pcs``: :func:`collector.pc_latency_table` or its dict of columns."""
        self.P = P
        n = len(P)
        has = len(pcs["amat"]) > 0

        def col(name):
            return np.asarray(pcs[name], float) if has else np.zeros(n)
        self.amat, self.miss_per_req = col("amat"), col("l1_miss_per_req")
        self.dram_per_req, self.l2_per_req = col("dram_per_req"), col("l2_per_req")
        self.events = np.column_stack([col("l1_hit"), col("l2_hit"), col("l2_miss")])
        self.smem_lat = float(hw["latency"]["shared"])
        self.const_lat = float(hw["latency"]["const"])
        regs = P[:, S.P_SRC:]
        self.nregs = int(max(1, regs.max() + 1))

    def warps(self, trace) -> pd.DataFrame:
        """Per warp of the launch: instructions, single-warp cycles and eq. 14's warp performance."""
        insts, cycles = all_warps(trace.warp_off, trace.pc, trace.space, trace.nreq, self.P, self.amat,
                                  self.miss_per_req, self.dram_per_req, self.l2_per_req, self.smem_lat,
                                  self.const_lat, self.nregs)
        return pd.DataFrame({"warp": np.arange(len(insts), dtype=np.int32), "insts": insts, "cycles": cycles,
                             "warp_perf": insts / np.maximum(cycles, 1.0)})

    def profile(self, trace, warp: int) -> pd.DataFrame:
        """The interval profile (eq. 11) of one warp, with the columns of
        :mod:`.model` and the stall split by cause for the CPI stack."""
        return pd.DataFrame(self.profile_columns(trace, warp))

    def profile_columns(self, trace, warp: int) -> dict:
        """:meth:`profile` as a dict of arrays (no DataFrame to build)."""
        lo, hi = int(trace.warp_off[warp]), int(trace.warp_off[warp + 1])
        out = np.zeros((hi - lo + 1, I_N))
        n, _ = warp_intervals(trace.pc, trace.space, trace.nreq, lo, hi, self.P, self.amat,
                              self.miss_per_req, self.dram_per_req, self.l2_per_req, self.smem_lat, self.const_lat,
                              np.zeros(self.nregs), np.zeros(self.nregs, np.int64), out)
        o = out[:n]
        cause = o[:, I_CAUSE_PC].astype(np.int64)
        stall = o[:, I_STALL]
        safe = np.maximum(cause, 0)
        kinds = self.P[safe, S.P_KIND]
        memory = (cause >= 0) & ((kinds == S.K_LOAD) | (kinds == S.K_ATOM)) & (self.events[safe].sum(1) > 0)
        ev = np.where(memory[:, None], self.events[safe], 0.0)
        return {"insts": o[:, I_INSTS], "stall_cycles": stall, "mem_insts": o[:, I_MEM_INSTS],
                "mem_reqs": o[:, I_MEM_REQS], "miss_reqs": o[:, I_MISS_REQS], "dram_reqs": o[:, I_DRAM_REQS],
                "load_insts": o[:, I_LOAD_INSTS], "lsu_lines": o[:, I_LSU], "smem_ways": o[:, I_SMEM],
                "l2_reqs": o[:, I_L2_REQS],
                "cause_pc": cause, "stall_dep": np.where(memory, 0.0, stall), "stall_l1": stall * ev[:, 0],
                "stall_l2": stall * ev[:, 1], "stall_dram": stall * ev[:, 2]}
