"""The detailed simulator: drives :mod:`pipeline_lib.sim.engine` launch by
launch over a trace directory and collects its statistics.

>>> sim = Simulator(load_hardware("gpumech-baseline"), TraceDir("results/traces/bfs-rmat"))
>>> result = sim.run()                     # full simulation
>>> result.launches[["launch", "cycles", "ipc"]]

Sampled simulation goes through a :class:`~pipeline_lib.sim.sampling.SamplingPolicy`
(``sim.run(policy)``), which may skip whole launches and watch block
retirements to fast-forward dispatched blocks (seed 3.4.4).
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..ptx import isa
from . import engine as E
from .hardware import dram_burst_cycles, occupancy
from .specialized import engine_for
from .static import K_ATOM, K_STORE, P_KIND, SP_GLOBAL, SP_LOCAL, SP_MIXED, global_bb_ids, kernel_tables
from .trace_reader import TraceDir

# activity counters reported per launch (engine index, column name)
ACTIVITY = [(E.ST_CLASS0 + i, f"instrs_{c}") for i, c in enumerate(isa.OPCLASSES)] + [
    (E.ST_REG_R, "reg_reads"), (E.ST_REG_W, "reg_writes"), (E.ST_L1_ACC, "l1_reads"),
    (E.ST_L1_STORE, "l1_writes"), (E.ST_SHARED, "shared_accesses"), (E.ST_CONST, "const_accesses"),
    (E.ST_L2_ACC, "l2_accesses"), (E.ST_DRAM_RD, "dram_reads"), (E.ST_DRAM_WR, "dram_writes"),
    (E.ST_ROW_ACT, "row_activations")]


def sm_active_cycles(bo: np.ndarray) -> int:
    """Cycles summed over SMs in which an SM held at least one block of the
    launch: per SM, the length of the union of its simulated blocks'
    [dispatch, retire) intervals (from the engine's block outputs ``bo``).
    The power model charges the SM's clock network for these cycles."""
    keep = (bo[:, E.BO_SKIPPED] == 0) & (bo[:, E.BO_SM] >= 0) & (bo[:, E.BO_RETIRE] >= 0)
    if not keep.any():
        return 0
    sm, d, r = bo[keep, E.BO_SM], bo[keep, E.BO_DISPATCH], bo[keep, E.BO_RETIRE]
    order = np.lexsort((d, sm))
    # offsetting each SM's cycles past every earlier SM's lets one running
    # maximum serve all SMs: a block adds what it retires past the latest
    # retire of the earlier-dispatched blocks of its SM
    off = sm[order] * (int(r.max()) + 1)
    d, r = d[order] + off, r[order] + off
    before = np.concatenate(([np.iinfo(np.int64).min], np.maximum.accumulate(r)[:-1]))
    return int(np.maximum(0, r - np.maximum(d, before)).sum())


class SimulationError(RuntimeError):
    """The timing model cannot proceed (names workload, launch and cycle)."""


@dataclass
class SimResult:
    """Tables of one simulation (documented in docs/simulator.md)."""
    launches: pd.DataFrame
    sms: pd.DataFrame
    blocks: pd.DataFrame
    pcs: pd.DataFrame
    units: pd.DataFrame
    activity: pd.DataFrame
    info: dict = field(default_factory=dict)
    #: per launch (with ``stall_breakdown=True``): cycles, warp instructions
    #: and the SM-cycles of each stall category (engine.STALL_NAMES; they sum
    #: to cycles x cores); not written by the simulate stage (docs/simulator.md, "Stall breakdown")
    stalls: pd.DataFrame = field(default_factory=pd.DataFrame)


class LaunchControl:
    """What a sampling policy sees and may do while a launch runs."""

    def __init__(self, sim: "Simulator", launch: dict, blocks: pd.DataFrame, occ: dict):
        self._sim = sim
        self.launch = launch
        self.blocks = blocks                     # trace rows of this launch's blocks
        self.n_blocks = int(launch["n_blocks"])
        self.sm_occupancy = int(occ["sm_occupancy"])
        self.system_occupancy = int(occ["system_occupancy"])   # blocks of the launch's first wave

    @property
    def cycle(self) -> int:
        """Current cycle (global, across launches)."""
        return int(self._sim.G[E.G_CYCLE])

    @property
    def issued(self) -> int:
        """Warp instructions issued so far (all SMs, all launches)."""
        return int(self._sim.G[E.G_ISSUED])

    @property
    def next_block(self) -> int:
        """The block id the dispatcher hands out next."""
        return int(self._sim.G[E.G_NEXT_BLOCK])

    def block_record(self, block: int) -> dict:
        """SM, dispatch and retire cycle, and GPU-wide issued instructions at
        both, of a dispatched block (retire fields are -1 while it runs)."""
        r = self._sim._bo[block]
        return {"sm": int(r[E.BO_SM]), "dispatch": int(r[E.BO_DISPATCH]), "retire": int(r[E.BO_RETIRE]),
                "issued_at_dispatch": int(r[E.BO_ISSUED_AT_DISPATCH]),
                "issued_at_retire": int(r[E.BO_ISSUED_AT_RETIRE]), "skipped": bool(r[E.BO_SKIPPED] == 1)}

    def dispatch_cycles(self, blocks) -> np.ndarray:
        """Dispatch cycles of dispatched blocks (ids)."""
        return self._sim._bo[np.asarray(blocks, np.int64), E.BO_DISPATCH].copy()

    def running_blocks(self) -> np.ndarray:
        """Ids of the blocks dispatched and not yet retired."""
        bo = self._sim._bo[: self.next_block]
        return np.flatnonzero((bo[:, E.BO_RETIRE] < 0) & (bo[:, E.BO_SKIPPED] == 0))

    def skip(self, blocks) -> None:
        """Fast-forward these not yet dispatched blocks: the dispatcher passes
        over them without simulating them (their instructions are reported as
        skipped, for the policy to account with a predicted IPC)."""
        blocks = np.asarray(blocks, np.int64)
        if len(blocks) and (blocks.min() < self.next_block or blocks.max() >= self.n_blocks):
            raise ValueError(f"can only skip blocks not yet dispatched ({self.next_block}..{self.n_blocks - 1})")
        self._sim._skip[blocks] = 1


class Simulator:
    """Cycle-level timing simulation of one workload's trace on hardware ``hw``.

    Parameters
    ----------
    hw : dict
        A validated hardware configuration (:func:`~pipeline_lib.sim.load_hardware`).
    trace : TraceDir
        The workload's trace tables.
    unit_warp_instrs : int
        Sampling-unit size in warp instructions (GPU-wide, in issue order).
    min_units : int
        The unit is shrunk to ``total warp instructions / min_units`` (at
        least 1000) when the workload is too small for ``unit_warp_instrs``.
    progress_s : float
        Seconds between progress lines on stderr (0: none).
    """

    def __init__(self, hw: dict, trace: TraceDir, unit_warp_instrs: int = 1_000_000, min_units: int = 20,
                 progress_s: float = 0.0, label: str = "", stall_breakdown: bool = False):
        self.hw, self.trace, self.label = hw, trace, label or str(trace.path)
        self.progress_s = progress_s
        #: the hardware as the engine sees it (a frozen engine.EngineConfig)
        self.config = cfg = E.EngineConfig.from_hardware(hw)
        if cfg.maxw > E.MAX_WARPS:      # a configuration not loaded by load_hardware, whose schema says so
            raise ValueError(f"{hw.get('name', 'hardware')}: sm_limits.warps = {cfg.maxw}: at most {E.MAX_WARPS} "
                             "warp slots per SM (one bit each in the schedulers' mask)")
        self.C, self.burst = cfg.vector(), dram_burst_cycles(hw)
        #: the engine compiled for this hardware's structure (specialized.py)
        self.engine = engine_for(self.C)
        total = int(trace.launches["warp_instrs"].sum())
        self.unit = int(min(unit_warp_instrs, max(1000, -(-total // max(1, min_units)))))
        self.C[E.C_UNIT] = self.unit
        self.C[E.C_BUDGET] = 2_000_000
        instr = trace.instructions
        self.bb_offsets, self.n_gbb = global_bb_ids(instr) if len(instr) else ({}, 1)
        nregs = 1 + max([0] + [max(x) for x in instr["src_regs"] if len(x)] + [max(x) for x in instr["dst_regs"] if len(x)])
        self.static = kernel_tables(instr, hw, self.bb_offsets)
        # one pass over the blocks table (workloads may have thousands of launches)
        self._blocks_by_launch = trace.blocks_by_launch()
        S, MAXW, MAXB = cfg.cores, cfg.maxw, cfg.maxb
        self.G = np.zeros(E.G_N + S, np.int64)
        self.W = np.zeros((S * MAXW, E.W_N), np.int64)
        self.B = np.full((S * MAXB, E.B_N), -1, np.int64)
        self.SM = np.zeros((S, E.SM_READY + MAXW), np.int64)
        # ready cycle per register, then (with the stall breakdown) its producer's stall category
        self.C[E.C_STALLS] = 1 if stall_breakdown else 0
        self.regready = np.zeros((S * MAXW, (2 if stall_breakdown else 1) * nregs), np.int64)
        #: replay every skipped launch in full (the reference _warm_pending's shortcut is tested against)
        self.warm_every_launch = False
        self.L1 = np.zeros((3, S, cfg.l1_sets * cfg.l1_ways), np.int64)
        self.L1[E.L1_TAG] = -1
        self.mshr = np.zeros((S, cfg.mshr), np.int64)
        n2 = cfg.l2_slices * cfg.l2_sets * cfg.l2_ways
        self.L2 = np.zeros((4, n2), np.int64)
        self.L2[E.L2_TAG] = -1
        self.slice_cal = np.zeros((cfg.l2_slices, E.RING_WIDTH), np.int64)
        nb = cfg.ch * cfg.banks
        self.bank_cal = np.zeros((nb, E.CAL_WIDTH), np.int64)
        self.bank_row = np.full(nb, -1, np.int64)
        self.chan_cal = np.zeros((cfg.ch, E.RING_WIDTH), np.int64)
        self.ubbv = np.zeros(self.n_gbb, np.int64)
        self.retired = np.zeros(S * MAXB + 1, np.int64)
        self._units, self._unit_bbv = [], []

    # -- one launch -----------------------------------------------------------
    def _launch(self, launch: dict, policy, t0: float, done_instrs: int, total_instrs: int):
        hw, C, G = self.hw, self.C, self.G
        lid = int(launch["launch"])
        occ = occupancy(hw, int(launch["threads_per_block"]), int(launch["regs_per_thread"]),
                        int(launch["shared_bytes"]))
        blocks = self._blocks_by_launch[lid]
        nblk = int(launch["n_blocks"])
        tr = self.trace.launch_trace(lid)
        st = self.static[launch["kernel"]]
        C[E.C_OCC] = occ["sm_occupancy"]
        C[E.C_WPB] = int(launch["warps_per_block"])
        C[E.C_NBLOCKS] = nblk
        C[E.C_WATCH] = 1 if policy is not None and policy.watch_blocks else 0
        C[E.C_WARM] = 1 if policy is not None and policy.functional_warming else 0
        self.SM[:, :] = 0
        self.SM[:, E.SM_READY:] = E.INF      # no warp on any SM
        G[E.G_SM_NEXT:] = E.INF
        self.SM[:, E.SM_LAST] = -1
        self.SM[:, E.SM_PENDING] = occ["sm_occupancy"]
        # LSU/shared pipes may still be busy from the previous launch
        self.SM[:, E.SM_LSU] = G[E.G_CYCLE]
        self.SM[:, E.SM_SMEM] = G[E.G_CYCLE]
        self.SM[:, E.SM_SEEN] = G[E.G_CYCLE]
        self.SM[:, E.SM_CAUSE] = E.STALL_IDLE
        G[E.G_NEXT_BLOCK] = 0
        G[E.G_DONE_BLOCKS] = 0
        G[E.G_RR_SM] = 0
        G[E.G_NUNITS] = 0
        start = int(G[E.G_CYCLE])
        ST = np.zeros(E.ST_N, np.int64)
        PCST = np.zeros((len(st), E.PC_N), np.int64)
        self._bo = np.full((nblk, E.BO_N), -1, np.int64)
        self._skip = np.zeros(nblk, np.int8)
        n_units = int(launch["warp_instrs"]) // self.unit + 2
        UO = np.zeros((n_units, E.UO_N), np.int64)
        UBBV = np.zeros((n_units, self.n_gbb), np.int64)
        blk_warp = blocks["warp_instrs"].to_numpy(np.int64)
        blk_thread = blocks["thread_instrs"].to_numpy(np.int64)
        control = LaunchControl(self, launch, blocks, occ)
        if policy is not None:
            policy.launch_begin(control)
        last_print = time.perf_counter()
        while True:
            rc, n = self.engine.run(C, G, self.W, self.B, self.SM, self.regready, tr.warp_off, self._skip,
                                    blk_warp, blk_thread,
                                    (tr.pc, tr.space, tr.nreq, tr.nthreads, tr.line_off, tr.lines), st,
                                    self.L1, self.mshr, self.L2, self.slice_cal, self.bank_cal, self.bank_row,
                                    self.chan_cal, self.burst, ST, PCST, self._bo, UO, UBBV, self.ubbv, self.retired)
            if rc == E.RC_DONE:
                break
            if rc < 0:
                raise SimulationError(f"{self.label}: launch {lid} ({launch['kernel']}): no warp can issue at cycle "
                                      f"{G[E.G_CYCLE]} (a barrier that not every warp of a block reaches?)")
            if rc == E.RC_RETIRED:
                policy.blocks_retired(control, self.retired[:n].copy())
            now = time.perf_counter()
            if self.progress_s and now - last_print >= self.progress_s:
                last_print = now
                done = done_instrs + int(ST[E.ST_WARP] + ST[E.ST_SKIP_WARP])
                rate = done / max(now - t0, 1e-9)
                print(f"{self.label}: launch {lid + 1}/{len(self.trace.launches)} cycle {G[E.G_CYCLE]:,} "
                      f"{done:,}/{total_instrs:,} warp instrs, {rate / 1e6:.2f} M/s, "
                      f"about {(total_instrs - done) / max(rate, 1):.0f} s left", file=sys.stderr)
        nu = int(G[E.G_NUNITS])
        for u in range(nu):
            self._units.append((int(UO[u, E.UO_START]), int(UO[u, E.UO_END]), int(UO[u, E.UO_INSTRS]), lid,
                                tuple(int(x) for x in UO[u, E.UO_L1_ACC:E.UO_L2_MISS + 1])))
            self._unit_bbv.append(UBBV[u].copy())
        simulated = self._bo[:, E.BO_SKIPPED] == 0
        end = int(self._bo[simulated, E.BO_RETIRE].max()) if simulated.any() else start
        if C[E.C_STALLS]:
            for s in range(hw["cores"]):      # the stall breakdown up to the launch's end
                ST[E.ST_STALL0 + self.SM[s, E.SM_CAUSE]] += max(0, end - int(self.SM[s, E.SM_SEEN]))
        G[E.G_CYCLE] = max(int(G[E.G_CYCLE]), end)
        self.trace.release(tr)
        return lid, occ, start, end, ST, PCST, blocks

    def _warm_launch(self, launch: dict, L1=None, L2=None, suspect=None) -> None:
        """Functional warming of a launch the policy skips (engine.warm_launch),
        on the simulator's caches or on the given ones (a probe)."""
        tr = self.trace.launch_trace(int(launch["launch"]))
        L1 = self.L1 if L1 is None else L1
        L2 = self.L2 if L2 is None else L2
        suspect = self.L2[E.L2_FILL, :0] if suspect is None else suspect
        self.engine.warm_launch(int(launch["n_blocks"]), int(launch["warps_per_block"]), self.C, self.G, tr.warp_off,
                                tr.pc, tr.space, tr.nreq, tr.line_off, tr.lines, self.static[launch["kernel"]], L1, L2,
                                suspect)
        self.trace.release(tr)

    def _maybe_dirty(self, launches: list) -> np.ndarray:
        """Lines that may be dirty in the L2 after ``launches`` are replayed
        on the current caches: those dirty now and those the launches store
        to or update atomically (global and local memory, as warm_block)."""
        parts = [self.L2[E.L2_TAG][(self.L2[E.L2_DIRTY] == 1) & (self.L2[E.L2_TAG] >= 0)]]
        parts += [self._stored_lines(launch) for launch in launches]
        return np.unique(np.concatenate(parts))

    #: bytes of stored-line sets kept on an opened trace (TraceDir.derived)
    STORED_LINES_BYTES = 1 << 28

    def _stored_lines(self, launch: dict) -> np.ndarray:
        """The lines a launch's global and local stores and atomics write,
        sorted and unique.  They depend on the trace alone, so they are kept
        on the opened trace (up to :data:`STORED_LINES_BYTES` in all): the
        points of a sweep batch that skip the same launches then decode
        each of them once, where every point had decoded all of them
        (spmv-vector's paper input: 16 of a sampled point's 19 s)."""
        key = ("stored_lines", int(launch["launch"]))
        derived = self.trace.derived
        if key in derived:
            return derived[key]
        tr = self.trace.launch_trace(int(launch["launch"]))
        kind = self.static[launch["kernel"]][tr.pc, P_KIND]
        rows = (((kind == K_STORE) | (kind == K_ATOM)) & (tr.nreq > 0)
                & np.isin(tr.space, (SP_GLOBAL, SP_LOCAL, SP_MIXED)))
        lines = np.unique(tr.lines[np.repeat(rows, np.diff(tr.line_off))] >> 7)
        self.trace.release(tr)
        held = derived.get("stored_lines_bytes", 0)
        if held + lines.nbytes <= self.STORED_LINES_BYTES:
            derived[key] = lines
            derived["stored_lines_bytes"] = held + lines.nbytes
        return lines

    def _warm_pending(self, pending: list) -> None:
        """Functional warming of the launches skipped since the last
        simulated one, in order, leaving the caches as replaying every one
        of them would.

        Shortcut (exact): the last of them is first replayed on caches whose
        every entry is :data:`engine.UNKNOWN`.  When no unknown entry is left
        in any set of the L1s and the L2, every set holds the lines its last
        accesses left, whatever it held before, and in the same LRU order;
        the dirty bits are the same too unless a line was allocated while
        its set still held an unknown entry (it may have been resident
        before, dirty), is clean now, and may have been dirty before
        (:meth:`_maybe_dirty`: dirty now, or written by an earlier skipped
        launch).  If neither can happen, that state
        is the one the whole replay would give and the earlier launches need
        no replay (on inputs with many identical launches, such as
        spmv-scalar's paper input, that is most of TBPoint's warming time);
        otherwise every launch is replayed.  The LRU stamps differ from the
        whole replay's by a constant, which keeps their order, and a fill
        cycle of 0 stands for a past one either way."""
        if not pending:
            return
        if len(pending) > 1 and not self.warm_every_launch:
            stamp = int(self.G[E.G_STAMP])
            L1 = np.full_like(self.L1, 0)
            L1[E.L1_TAG] = E.UNKNOWN
            L1[E.L1_LRU] = -1
            L2 = np.zeros_like(self.L2)
            L2[E.L2_TAG] = E.UNKNOWN
            L2[E.L2_LRU] = -1
            suspect = np.zeros(self.L2.shape[1], np.int64)
            self._warm_launch(pending[-1], L1, L2, suspect)
            clean = L2[E.L2_TAG][(suspect == 1) & (L2[E.L2_DIRTY] == 0)]
            if not ((L1[E.L1_TAG] == E.UNKNOWN).any() or (L2[E.L2_TAG] == E.UNKNOWN).any()
                    or (len(clean) and np.isin(clean, self._maybe_dirty(pending[:-1])).any())):
                self.L1[:] = L1
                self.L2[:] = L2
                pending.clear()
                return
            self.G[E.G_STAMP] = stamp
        for launch in pending:
            self._warm_launch(launch)
        pending.clear()

    # -- a whole workload ---------------------------------------------------
    def run(self, policy=None) -> SimResult:
        """Simulate every launch in order (or those ``policy`` selects)."""
        L = self.trace.launches.sort_values("launch")
        total = int(L["warp_instrs"].sum())
        rows, sm_rows, blk_rows, act_rows, pc_parts, stall_rows = [], [], [], [], [], []
        done = 0
        t0 = time.perf_counter()
        pending = []          # skipped launches not yet warmed (_warm_pending)
        for launch in L.to_dict("records"):
            if policy is not None and not policy.select_launch(launch):
                done += int(launch["warp_instrs"])
                if policy.functional_warming:
                    pending.append(launch)
                continue
            self._warm_pending(pending)
            lid, occ, start, end, ST, PCST, blocks = self._launch(launch, policy, t0, done, total)
            done += int(launch["warp_instrs"])
            rows.append(self._launch_row(launch, occ, start, end, ST))
            cyc = max(end - start, 1)
            for s in range(self.hw["cores"]):
                sm_rows.append({"launch": lid, "sm": s, "warp_instrs": int(self.SM[s, E.SM_INSTRS]),
                                "blocks": int(self.SM[s, E.SM_BLOCKS]), "ipc": self.SM[s, E.SM_INSTRS] / cyc})
            # per-launch columns are joined once at the end: a DataFrame per
            # launch cost more host time than the simulation of small launches
            bo = self._bo
            blk_rows.append((np.full(len(bo), lid, np.int32), bo, blocks["warp_instrs"].to_numpy(np.int64)))
            if self.C[E.C_STALLS]:
                stall_rows.append({"launch": lid, "cycles": end - start, "warp_instrs": int(ST[E.ST_WARP]),
                                   **{n: int(ST[E.ST_STALL0 + i]) for i, n in enumerate(E.STALL_NAMES)}})
            act_rows.append({"launch": lid, "cycles": end - start,
                             **{name: int(ST[i]) for i, name in ACTIVITY},
                             "sm_active_cycles": sm_active_cycles(self._bo)})
            pcs = np.flatnonzero(PCST[:, E.PC_L1_ACC] + PCST[:, E.PC_L2_ACC] > 0)
            pc_parts.append((launch["kernel"], pcs, PCST[pcs]))
            if policy is not None:
                policy.launch_end(rows[-1])
        self._warm_pending(pending)
        # the last, partial unit
        if int(self.G[E.G_UNIT_COUNT]) > 0:
            self._units.append((int(self.G[E.G_UNIT_START]), int(self.G[E.G_CYCLE]), int(self.G[E.G_UNIT_COUNT]),
                                int(rows[-1]["launch"]) if rows else -1,
                                tuple(int(x) for x in self.G[E.G_L1_ACC:E.G_L2_MISS + 1])))
            self._unit_bbv.append(self.ubbv.copy())
        return SimResult(
            launches=pd.DataFrame(rows), sms=pd.DataFrame(sm_rows),
            blocks=self._block_table(blk_rows),
            pcs=self._pc_table(pc_parts), units=self._unit_table(), activity=pd.DataFrame(act_rows),
            info={"unit_warp_instrs": self.unit, "total_cycles": int(sum(r["cycles"] for r in rows)),
                  "host_seconds": time.perf_counter() - t0},
            stalls=pd.DataFrame(stall_rows))

    def _launch_row(self, launch, occ, start, end, ST) -> dict:
        cycles = end - start
        sim_w = int(ST[E.ST_WARP])
        ghz = self.hw["core_clock_mhz"] / 1e3
        dram_bytes = (int(ST[E.ST_DRAM_RD]) + int(ST[E.ST_DRAM_WR])) * self.hw["l2"]["line_bytes"]
        return {
            "launch": int(launch["launch"]), "kernel": launch["kernel"], "start_cycle": start, "end_cycle": end,
            "cycles": cycles, "warp_instrs": sim_w, "thread_instrs": int(ST[E.ST_THREAD]),
            "ipc": sim_w / cycles if cycles else 0.0,
            "blocks": int(launch["n_blocks"]), "skipped_blocks": int(ST[E.ST_SKIP_BLOCKS]),
            "skipped_warp_instrs": int(ST[E.ST_SKIP_WARP]), "skipped_thread_instrs": int(ST[E.ST_SKIP_THREAD]),
            "sm_occupancy": occ["sm_occupancy"], "system_occupancy": occ["system_occupancy"],
            "occupancy_limiter": occ["limited_by"],
            "l1_accesses": int(ST[E.ST_L1_ACC]), "l1_misses": int(ST[E.ST_L1_MISS]),
            "l1_miss_rate": ST[E.ST_L1_MISS] / ST[E.ST_L1_ACC] if ST[E.ST_L1_ACC] else 0.0,
            "l1_mshr_merges": int(ST[E.ST_L1_MERGE]),
            "l2_accesses": int(ST[E.ST_L2_ACC]), "l2_misses": int(ST[E.ST_L2_MISS]),
            "l2_miss_rate": ST[E.ST_L2_MISS] / ST[E.ST_L2_ACC] if ST[E.ST_L2_ACC] else 0.0,
            "dram_reads": int(ST[E.ST_DRAM_RD]), "dram_writes": int(ST[E.ST_DRAM_WR]),
            "dram_bandwidth_gbs": dram_bytes * ghz / cycles if cycles else 0.0,
            "avg_load_latency": ST[E.ST_LOAD_LAT] / ST[E.ST_LOADS] if ST[E.ST_LOADS] else 0.0,
            "mshr_stall_cycles": int(ST[E.ST_MSHR_STALL]),
        }

    @staticmethod
    def _block_table(parts) -> pd.DataFrame:
        """The blocks table from (launch ids, block outputs ``_bo``, warp instructions) per launch."""
        if not parts:
            return pd.DataFrame()
        lids, bo, warp = (np.concatenate(x) for x in zip(*parts))
        block = np.concatenate([np.arange(len(p[0]), dtype=np.int32) for p in parts])
        return pd.DataFrame({
            "launch": lids, "block": block, "sm": bo[:, E.BO_SM].astype(np.int32),
            "dispatch_cycle": bo[:, E.BO_DISPATCH], "retire_cycle": bo[:, E.BO_RETIRE],
            "issued_at_dispatch": bo[:, E.BO_ISSUED_AT_DISPATCH], "issued_at_retire": bo[:, E.BO_ISSUED_AT_RETIRE],
            "skipped": bo[:, E.BO_SKIPPED] == 1, "warp_instrs": warp})

    @staticmethod
    def _pc_table(parts) -> pd.DataFrame:
        """The pcs table from (kernel, used pcs, their rows of ``PCST``) per launch."""
        cols = ["loads", "l1_accesses", "l1_misses", "l2_accesses", "l2_misses", "latency_sum"]
        if not parts:
            return pd.DataFrame(columns=["kernel", "pc"] + cols)
        stats = np.concatenate([p[2] for p in parts])
        t = pd.DataFrame({"kernel": np.concatenate([np.full(len(p[1]), p[0], dtype=object) for p in parts]),
                          "pc": np.concatenate([p[1] for p in parts]).astype(np.int32),
                          **{name: stats[:, i] for i, name in (
                              (E.PC_LOADS, "loads"), (E.PC_L1_ACC, "l1_accesses"), (E.PC_L1_MISS, "l1_misses"),
                              (E.PC_L2_ACC, "l2_accesses"), (E.PC_L2_MISS, "l2_misses"), (E.PC_LAT, "latency_sum"))}})
        t = t.groupby(["kernel", "pc"], as_index=False)[cols].sum()
        t["l1_miss_rate"] = np.where(t["l1_accesses"] > 0, t["l1_misses"] / t["l1_accesses"].clip(lower=1), 0.0)
        t["l2_miss_rate"] = np.where(t["l2_accesses"] > 0, t["l2_misses"] / t["l2_accesses"].clip(lower=1), 0.0)
        t["avg_latency"] = np.where(t["loads"] > 0, t["latency_sum"] / t["loads"].clip(lower=1), 0.0)
        return t.drop(columns="latency_sum").sort_values(["kernel", "pc"], ignore_index=True)

    def _unit_table(self) -> pd.DataFrame:
        rows = []
        prev = (0, 0, 0, 0)
        cache = ["l1_accesses", "l1_misses", "l2_accesses", "l2_misses"]
        for u, ((s, e, n, lid, cum), bbv) in enumerate(zip(self._units, self._unit_bbv)):
            nz = np.flatnonzero(bbv)
            rows.append({"unit": u, "start_cycle": s, "end_cycle": e, "cycles": e - s, "warp_instrs": n,
                         "ipc": n / (e - s) if e > s else 0.0, "last_launch": lid,
                         **{c: b - a for c, a, b in zip(cache, prev, cum)},
                         "bbv_ids": nz.astype(np.int32), "bbv_counts": bbv[nz]})
            prev = cum
        return pd.DataFrame(rows, columns=["unit", "start_cycle", "end_cycle", "cycles", "warp_instrs", "ipc",
                                           "last_launch", *cache, "bbv_ids", "bbv_counts"])
