"""GPUMech end to end on a traced workload (seed 000, Fig. 21): input
collector, interval algorithm, representative warp, multi-warp model, for
every launch, with the host time of each part."""
from __future__ import annotations

import copy
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..sim import static as S
from ..sim.hardware import (TIMING_FIELDS, dram_bandwidth_gbs, dram_burst_cycles, field_value, l2_service_cycles,
                            occupancy)
from ..sim.static import global_bb_ids, kernel_tables
from ..sim.trace_reader import TraceDir
from .collector import (PC_DRAM_RD, PC_DRAM_WR, PC_EXECS, PC_L1_ACC, PC_L1_MISS, PC_L2_ACC, PC_L2_MISS, PC_REQS,
                        CacheCollector, avg_miss_latency, pc_latency_columns, pc_latency_table)
from .contention import MODEL as CONTENTION_MODEL
from .contention import DEFAULT_SYNC, SYNCS, TERMS, Resources, predict_contention, shares
from .interval import KernelTiming
from .model import (MODELS, POLICIES, Contention, check_profile, cpi_markov_chain, cpi_stack,
                    dram_service_cycles, predict)
from .representative import SELECTIONS, select_warp
from .scheduled import ScheduledCollector


def contention_inputs(hw: dict, miss_latency: float) -> Contention:
    return Contention(mshrs=hw["l1"]["mshrs"], cores=hw["cores"], avg_miss_latency=miss_latency,
                      service_cycles=dram_service_cycles(hw["core_clock_mhz"], hw["l2"]["line_bytes"],
                                                         dram_bandwidth_gbs(hw)))


CLASSES = ("atomic", "memory-divergent", "regular")
DIVERGENT_LINES = 2.0


def workload_class(atomic_insts: int, lines_per_mem_inst: float) -> str:
    """The launch's class for the per-class error (docs/gpumech.md):
    ``atomic`` if it executes global atomics, ``memory-divergent`` if its
    global/local memory instructions touch more than two 128-byte lines on
    average (a coalesced warp access of 4-byte words touches one, of 8-byte
    words two), else ``regular`` (coalesced memory or compute)."""
    if atomic_insts > 0:
        return CLASSES[0]
    return CLASSES[1] if lines_per_mem_inst > DIVERGENT_LINES else CLASSES[2]


def trace_totals(trace, kind: np.ndarray) -> tuple[int, int]:
    """What :func:`launch_demands` needs of the launch's trace, the same on
    every configuration: its warp instructions and shared-memory ways."""
    mem = S.memory_kind(kind[trace.pc])
    return len(trace.pc), int(trace.nreq[mem & (trace.space == S.SP_SHARED)].sum())


def launch_demands(counts: np.ndarray, totals: tuple[int, int], kind: np.ndarray) -> dict:
    """The launch's contention demands per warp instruction over all its
    warps (:data:`.contention.DEMAND_COLUMNS`): load/store-unit lines,
    shared-memory ways, L1 misses of loads, L2 requests and DRAM transfers
    from the collector's counts, shared-memory ways from the trace
    (``totals``: :func:`trace_totals`)."""
    n, smem = max(totals[0], 1), totals[1]
    loads = kind == S.K_LOAD
    return {"lsu_lines": counts[:, PC_REQS].sum() / n, "smem_ways": smem / n,
            "miss_reqs": counts[loads, PC_L1_MISS].sum() / n, "l2_reqs": counts[:, PC_L2_ACC].sum() / n,
            "dram_reqs": (counts[:, PC_DRAM_RD].sum() + counts[:, PC_DRAM_WR].sum()) / n}


def miss_rates(counts: np.ndarray, kind: np.ndarray) -> tuple[float, float]:
    """The collector's L1 miss rate of load requests and L2 miss rate of all requests."""
    loads = kind == S.K_LOAD
    l1a, l1m = counts[loads, PC_L1_ACC].sum(), counts[loads, PC_L1_MISS].sum()
    l2a, l2m = counts[:, PC_L2_ACC].sum(), counts[:, PC_L2_MISS].sum()
    return float(l1m / l1a) if l1a else 0.0, float(l2m / l2a) if l2a else 0.0


@dataclass
class Collected:
    """What a collector counted on one launch: the per-PC table
    (``PC_*`` columns), the requests per L2 slice, the DRAM transfers per
    channel, (the scheduler-ordered collector's) in-step share, and the
    launch's :func:`trace_totals`, which re-evaluation needs of the trace."""
    counts: np.ndarray
    slice_requests: np.ndarray
    channel_transfers: np.ndarray
    in_step: float = 0.0
    totals: tuple = (0, 0)

    @classmethod
    def of(cls, collector, counts: np.ndarray) -> "Collected":
        return cls(counts, collector.slice_requests.copy(), collector.channel_transfers.copy(),
                   float(getattr(collector, "in_step", 0.0)))


#: the collectors: the seed's models' (round-robin order), then MT_CONTENTION's per scheduler
COLLECTORS = ("round-robin",) + POLICIES

#: hardware fields that decide when things happen but, in our reading, not
#: which requests hit or miss: latencies, MSHRs, clocks, bandwidths.  A
#: configuration that differs from an analysed one in these alone reuses
#: that analysis's collector counts (:func:`collection_key`).  The
#: round-robin collector reads none of them, so for the seed's models the
#: reuse is exact; the scheduler-ordered collector orders its requests by
#: the latencies and MSHRs, so for MT_CONTENTION it is an approximation,
#: measured in docs/gpumech.md ("Re-evaluation").
TIMING_ONLY = (("core_clock_mhz",), ("latency",), ("interconnect_latency",), ("l1", "hit_latency"),
               ("l1", "mshrs"), ("l2", "hit_latency"), ("l2", "bytes_per_clock"), ("dram", "clock_mhz"),
               ("dram", "transfers_per_clock"), ("dram", "bus_bits_per_channel"), ("dram", "latency"),
               ("dram", "row_miss_latency"), ("dram", "scheduler"))


def collection_key(hw: dict) -> dict:
    """The part of ``hw`` the collectors' counts depend on, timing aside
    (:data:`TIMING_ONLY`): cores, warp size, SM limits, issue width, cache
    geometry and policies, L2 slices, DRAM channels, banks and rows.  Two
    configurations with equal keys can share one collection."""
    key = copy.deepcopy({k: hw[k] for k in TIMING_FIELDS if k in hw and k not in ("name", "scheduler")})
    for path in TIMING_ONLY:
        d = key
        for k in path[:-1]:
            d = d.get(k, {})
        d.pop(path[-1], None)
    return key


def contention_resources(hw: dict, miss_latency: float, collector, per_inst: dict | None = None,
                         terms=TERMS) -> Resources:
    """The queueing network's inputs for the launch the collector just ran
    (its L2-slice and DRAM-channel shares, its demands per instruction) on
    hardware ``hw``; ``collector``: a collector or a :class:`Collected`."""
    return Resources(cores=hw["cores"], mshrs=hw["l1"]["mshrs"], miss_latency=miss_latency,
                     l2_service=float(l2_service_cycles(hw)),
                     slice_share=shares(collector.slice_requests, hw["l2"]["slices"]),
                     dram_service=dram_burst_cycles(hw), channel_share=shares(collector.channel_transfers, hw["dram"]["channels"]),
                     issue_rate=float(hw["issue_width"]), lsu_rate=float(field_value(hw, "l1.lines_per_cycle")),
                     terms=frozenset(terms), per_inst=per_inst,
                     in_step=float(getattr(collector, "in_step", 0.0)))


#: what :func:`contention_timing` reads of the hardware (besides the per-PC
#: table ``P``, which reads ``latency``): two configurations equal in these
#: give it the same results from the same counts
PROFILE_FIELDS = ("latency", "l1.hit_latency", "l2.hit_latency", "dram.latency", "dram.row_miss_latency")


def contention_timing(hw: dict, P: np.ndarray, got: Collected,
                      totals: tuple[int, int]) -> tuple[KernelTiming, float, dict]:
    """The part of :func:`contention_setup` that reads only
    :data:`PROFILE_FIELDS` of ``hw``: the per-PC timing, the MSHR hold time
    and the launch's demands per instruction."""
    kind = P[:, S.P_KIND]
    pm = avg_miss_latency(got.counts, kind, hw)
    return KernelTiming(P, pc_latency_columns(got.counts, hw), hw), pm, launch_demands(got.counts, totals, kind)


def contention_setup(hw: dict, P: np.ndarray, got: Collected, totals: tuple[int, int],
                     terms=TERMS) -> tuple[KernelTiming, float, dict, Resources]:
    """MT_CONTENTION's inputs for one launch from one scheduler-ordered
    collection: the interval algorithm's per-PC timing, the MSHR hold time,
    the launch's demands per instruction and the network's resources."""
    timing, pm, per_inst = contention_timing(hw, P, got, totals)
    return timing, pm, per_inst, contention_resources(hw, pm, got, per_inst, terms)


def warm_up(hw: dict) -> None:
    """Load (or on the very first run, compile) the numba kernels on a
    one-instruction trace, so that host times measure the analysis and not
    the compiler."""
    from ..sim.trace_reader import LaunchTrace
    from .interval import all_warps

    lt = LaunchTrace(pc=np.zeros(1, np.int32), space=np.full(1, S.SP_GLOBAL, np.int8), nreq=np.ones(1, np.int16),
                     nthreads=np.ones(1, np.int32), line_off=np.array([0, 1], np.int64),
                     lines=np.zeros(1, np.int64), warp_off=np.array([0, 1], np.int64))
    P = np.full((1, S.P_SRC + 2), -1, np.int64)
    P[0, S.P_KIND], P[0, S.P_LAT] = S.K_LOAD, 1
    CacheCollector(hw).run(lt, P[:, S.P_KIND], 1, 1, 1)
    z = np.zeros(1)
    all_warps(lt.warp_off, lt.pc, lt.space, lt.nreq, P, z, z, z, z, 1.0, 1.0, 1)
    ScheduledCollector(hw, "rr").run(lt, P, 1, 1, 1)


class GPUMech:
    """GPUMech for one workload trace on one hardware configuration.

    Parameters
    ----------
    hw : dict
        Hardware configuration (docs/hardware.md); ``scheduler`` is ignored:
        every policy is predicted.
    representatives : dict or None
        Launch -> representative warp chosen before (4.6.5: chosen once per
        input and reused for other configurations): then only that warp's
        intervals are computed and only the ``clustering`` selection is
        predicted.  None runs the interval algorithm on every warp and
        selects by clustering, MAX and MIN.
    sync : dict or None
        Scheduler -> how ``MT_CONTENTION`` sees its warps
        (:data:`.contention.SYNCS`, :func:`.contention.pass_time`); None:
        ``DEFAULT_SYNC``.
    collected : dict or None
        (launch, collector) -> :class:`Collected`, the counts of an analysis
        of a configuration with the same :func:`collection_key`: then no
        collector runs (re-evaluation of a timing change).  None runs them.
    pacing : bool
        The scheduler-ordered collectors wait for the L2 slices and DRAM
        channels (:class:`.scheduled.ScheduledCollector`,
        ``gpumech.collector_pacing``).
    """

    def __init__(self, hw: dict, representatives: dict[int, int] | None = None, sync: dict | None = None,
                 collected: dict | None = None, pacing: bool = False):
        self.hw = hw
        self.pacing = bool(pacing)
        self.representatives = representatives
        self.collected = collected
        self.sync = {**DEFAULT_SYNC, **(sync or {})}
        bad = {k: v for k, v in self.sync.items() if k not in POLICIES or v not in SYNCS}
        if bad:
            raise ValueError(f"gpumech.contention_sync: {bad} (schedulers {', '.join(POLICIES)}; "
                             f"values {', '.join(SYNCS)})")

    def run(self, trace: TraceDir, launches: list[int] | None = None) -> dict[str, pd.DataFrame]:
        """Tables ``predictions`` (launch, selection, policy, model, CPI),
        ``stacks`` (launch, policy, Table 9 categories), ``launches`` (the
        representative warps, warps per core, collector miss rates and host
        seconds per part), ``pcs`` (the collector's per-PC table) and
        ``collected`` (every collector's counts, :func:`collected_frame`)."""
        hw = self.hw
        warm_up(hw)
        # the engine's per-PC tables (kinds, compute latencies, registers), as the simulator builds them
        instr = trace.instructions
        static = kernel_tables(instr, hw, global_bb_ids(instr)[0] if len(instr) else {})
        collector = CacheCollector(hw)                 # the seed's models' collector (round-robin order)
        ordered = {p: ScheduledCollector(hw, p, self.pacing) for p in POLICIES}   # MT_CONTENTION's, per scheduler
        keep = None if launches is None else set(int(x) for x in launches)
        preds, stacks, rows, pcs_out, got_all = [], [], [], [], {}
        for launch in trace.launches.sort_values("launch").to_dict("records"):
            lid = int(launch["launch"])
            P = static[launch["kernel"]]
            kind = P[:, S.P_KIND]
            occ = occupancy(hw, int(launch["threads_per_block"]), int(launch["regs_per_thread"]),
                            int(launch["shared_bytes"]))
            lt = trace.launch_trace(lid)
            if self.collected is None:
                t0 = time.perf_counter()
                counts = collector.run(lt, kind, int(launch["n_blocks"]), int(launch["warps_per_block"]),
                                       occ["sm_occupancy"])
                got = {COLLECTORS[0]: Collected.of(collector, counts)}
                t_collect = time.perf_counter() - t0
                t0 = time.perf_counter()
                for p in POLICIES:
                    got[p] = Collected.of(ordered[p], ordered[p].run(lt, P, int(launch["n_blocks"]),
                                                                     int(launch["warps_per_block"]),
                                                                     occ["sm_occupancy"]))
                t_ordered = time.perf_counter() - t0        # both schedulers
            else:
                got = {c: _reused(self.collected, lid, c, len(P)) for c in COLLECTORS}
                t_collect = t_ordered = 0.0
            counts, counts_p = got[COLLECTORS[0]].counts, {p: got[p].counts for p in POLICIES}
            totals = trace_totals(lt, kind)
            for g in got.values():
                g.totals = totals
            got_all.update({(lid, c): g for c, g in got.items()})
            if keep is not None and lid not in keep:     # caches still see every launch
                continue
            pcs = pc_latency_table(counts, hw)
            timing = KernelTiming(P, pcs, hw)
            t0 = time.perf_counter()
            if self.representatives is None:
                warps = timing.warps(lt)
                t_intervals = time.perf_counter() - t0
                t0 = time.perf_counter()
                chosen = {m: select_warp(warps, m) for m in SELECTIONS}
                t_select = time.perf_counter() - t0
            else:     # 4.6.5: only the representative warp's intervals are needed
                chosen = {"clustering": int(self.representatives[lid])}
                t_intervals = t_select = 0.0
            n_warps = occ["sm_occupancy"] * int(launch["warps_per_block"])
            miss_latency = avg_miss_latency(counts, kind, hw)
            c = contention_inputs(hw, miss_latency)
            # MT_CONTENTION's inputs per scheduler: its collector's latencies, demands and shares
            inputs = {p: contention_setup(hw, P, got[p], totals) for p in POLICIES}
            wpb, occ_sm, nb = int(launch["warps_per_block"]), occ["sm_occupancy"], int(launch["n_blocks"])
            t0 = time.perf_counter()
            budget = []
            for sel, w in chosen.items():
                prof = check_profile(timing.profile_columns(lt, w), f"launch {lid} warp {w}")
                markov = cpi_markov_chain(prof, n_warps)      # the same under every policy
                for policy in POLICIES:
                    for model in MODELS:
                        cpi = markov if model == "Markov_Chain" else predict(prof, n_warps, policy, c, model)
                        preds.append({"launch": lid, "selection": sel, "policy": policy, "model": model,
                                      "cpi": cpi})
                    prof_c = check_profile(inputs[policy][0].profile_columns(lt, w), f"launch {lid} warp {w}")
                    ct = predict_contention(prof_c, wpb, occ_sm, nb, self.sync[policy], inputs[policy][3])
                    preds.append({"launch": lid, "selection": sel, "policy": policy, "model": CONTENTION_MODEL,
                                  "cpi": ct["cpi"]})
                    if sel == "clustering":
                        stacks.append({"launch": lid, "policy": policy, "model": "MT_MSHR_BAND",
                                       **cpi_stack(prof, n_warps, policy, c)})
                        stacks.append({"launch": lid, "policy": policy, "model": CONTENTION_MODEL,
                                       **{k: v for k, v in ct.items() if k != "cpi"}})
                        budget.append((policy, prof_c))
            t_model = (time.perf_counter() - t0) / len(chosen)
            for policy, prof in budget:     # the error budget (validation only, not timed): one term left out
                _, pm, per_inst, _ = inputs[policy]
                for term in TERMS:
                    r = contention_resources(hw, pm, got[policy], per_inst, set(TERMS) - {term})
                    preds.append({"launch": lid, "selection": "clustering", "policy": policy,
                                  "model": f"{CONTENTION_MODEL}-{term}",
                                  "cpi": predict_contention(prof, wpb, occ_sm, nb, self.sync[policy], r,
                                                            stack=False)["cpi"]})
            execs = counts[:, PC_EXECS].sum()
            lines_per_inst = counts[:, PC_REQS].sum() / execs if execs else 0.0
            atomics = int(counts[kind == S.K_ATOM, PC_EXECS].sum())
            l1_rate, l2_rate = miss_rates(counts, kind)
            rows.append({"launch": lid, "kernel": launch["kernel"], "blocks": int(launch["n_blocks"]),
                         "system_occupancy": occ["system_occupancy"], "warps_per_core": n_warps,
                         "representative": chosen["clustering"], "warp_max": chosen.get("max", -1),
                         "warp_min": chosen.get("min", -1), "avg_miss_latency": c.avg_miss_latency,
                         "l1_miss_rate": l1_rate, "l2_miss_rate": l2_rate,
                         "lines_per_mem_inst": lines_per_inst, "atomic_insts": atomics,
                         "workload_class": workload_class(atomics, lines_per_inst),
                         **{f"ordered_{lvl}_miss_rate_{p}": v for p in POLICIES
                            for lvl, v in zip(("l1", "l2"), miss_rates(counts_p[p], kind))},
                         **{f"in_step_{p}": got[p].in_step for p in POLICIES},
                         "collector_s": t_collect, "ordered_collector_s": t_ordered, "intervals_s": t_intervals,
                         "select_s": t_select,
                         "model_s": t_model})
            pcs.insert(0, "launch", lid)
            pcs_out.append(pcs)
        return {"predictions": pd.DataFrame(preds), "stacks": pd.DataFrame(stacks), "launches": pd.DataFrame(rows),
                "pcs": pd.concat(pcs_out, ignore_index=True) if pcs_out else pd.DataFrame(),
                "collected": collected_frame(got_all)}


def _reused(collected: dict, launch: int, collector: str, n_pcs: int) -> Collected:
    c = collected.get((launch, collector))
    if c is None:
        raise ValueError(f"the reused collection has no counts of the {collector} collector for launch {launch} "
                         "(was it collected on another trace?)")
    if c.counts.shape[0] != n_pcs:
        raise ValueError(f"the reused collection's launch {launch} has {c.counts.shape[0]} PCs where the trace's "
                         f"kernel has {n_pcs} (was it collected on another trace?)")
    return c


def collected_frame(got: dict) -> pd.DataFrame:
    """(launch, collector) -> :class:`Collected` as a table, one row each:
    the per-PC counts flattened (``pcs`` rows of ``PC_N``), the per-slice
    and per-channel lists, the in-step share."""
    return pd.DataFrame([{"launch": lid, "collector": c, "pcs": int(g.counts.shape[0]),
                          "counts": g.counts.ravel().tolist(), "slice_requests": g.slice_requests.tolist(),
                          "channel_transfers": g.channel_transfers.tolist(), "in_step": g.in_step,
                          "insts": int(g.totals[0]), "smem_ways": int(g.totals[1])}
                         for (lid, c), g in sorted(got.items())],
                        columns=["launch", "collector", "pcs", "counts", "slice_requests", "channel_transfers",
                                 "in_step", "insts", "smem_ways"])


def collected_from_frame(df: pd.DataFrame) -> dict:
    """The inverse of :func:`collected_frame`.  Lists from Parquet come as arrays."""
    from .collector import PC_N
    return {(int(r["launch"]), r["collector"]): Collected(
        np.asarray(r["counts"], np.int64).reshape(int(r["pcs"]), PC_N), np.asarray(r["slice_requests"], np.int64),
        np.asarray(r["channel_transfers"], np.int64), float(r["in_step"]), (int(r["insts"]), int(r["smem_ways"])))
        for r in df.to_dict("records")}
