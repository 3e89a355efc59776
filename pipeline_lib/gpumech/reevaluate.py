"""Re-evaluating a new hardware configuration from a known analysis (seed
000, 4.6.5: the representative warps are chosen once per input and reused
for other configurations; the reuse of the collector's counts is ours).

What an analysis of one configuration leaves that another configuration can
use as it is: the representative warp of each launch (4.6.5), the launch's
totals from the trace (warp instructions, shared-memory ways), and -- when
the two configurations differ only in timing fields
(:func:`.analysis.collection_key`) -- every collector's counts.  A
:class:`Reevaluation` holds these, decoded once per trace; :meth:`predict`
then runs only what depends on the configuration: the per-PC latencies,
the interval algorithm on each representative warp, and the contention
model (MT_CONTENTION) for one scheduler.  Nothing walks the launches' other
warps, so its cost grows with the launches and the representative warps'
length, not with the trace.  Example::

    base = GPUMech(hw).run(trace)
    ev = Reevaluation(trace, base["launches"], base["collected"], hw=hw)
    ev.predict(load_hardware("gpumech-baseline-mshr16"))      # launch, policy, cpi
    w48 = load_hardware("gpumech-baseline-w48")               # occupancy changes: collect again
    ev.predict(w48, collected=ev.collect(w48, sampling=Sampling()))
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..sim.hardware import TIMING_FIELDS, field_value, hardware_slice, occupancy
from ..sim.static import global_bb_ids, kernel_tables
from ..sim.trace_reader import LaunchTrace, TraceDir
from .analysis import PROFILE_FIELDS, collected_from_frame, contention_resources, contention_timing
from .contention import DEFAULT_SYNC, predict_contention
from .model import POLICIES, check_profile
from . import sampled
from .sampled import Sampling


def _fields_key(hw: dict, fields) -> str:
    """A hashable key of the values of ``fields`` (dotted paths) in ``hw``:
    equal keys, equal values."""
    return repr([sorted(v.items()) if isinstance(v, dict) else v for v in (field_value(hw, f) for f in fields)])


class Reevaluation:
    """MT_CONTENTION on new configurations from one analysis of a trace.

    Parameters
    ----------
    trace : TraceDir
        The workload's trace (read once, here).
    launches : DataFrame
        The analysis's ``launches`` table (launch, representative).
    collected : DataFrame or dict
        The analysis's ``collected`` table (:func:`.analysis.collected_frame`)
        or its dict form.  Its counts are used as they are, so the
        configurations predicted must share the analysed one's
        :func:`.analysis.collection_key` (the caller checks; see
        :meth:`predict`).
    hw : dict, optional
        The configuration the analysis ran on, and ``pacing`` its
        ``gpumech.collector_pacing``.  When given, :meth:`collect` takes the
        analysis's counts for the launches whose collection it knows would
        be the same (:meth:`unchanged_launches`) instead of collecting them.
    """

    def __init__(self, trace: TraceDir, launches: pd.DataFrame, collected, hw: dict | None = None,
                 pacing: bool = False):
        self.hw, self.pacing = hw, bool(pacing)
        self.collected = collected_from_frame(collected) if isinstance(collected, pd.DataFrame) else collected
        reps = dict(zip(launches["launch"].astype(int), launches["representative"].astype(int)))
        self.trace = trace
        self.instructions = trace.instructions
        self._tables: dict[str, dict] = {}          # :meth:`_static`
        self._representatives: dict[Sampling, dict] = {}     # :func:`.sampled.representatives` per sampling
        self._profiles: dict[tuple, tuple] = {}     # :meth:`_profile`, for one set of PROFILE_FIELDS at a time
        self._profile_key = None
        self.launches = []
        for launch in trace.launches.sort_values("launch").to_dict("records"):
            lid = int(launch["launch"])
            if lid not in reps:
                raise ValueError(f"{trace.path}: launch {lid} has no representative warp in the analysis given")
            missing = [c for c in POLICIES if (lid, c) not in self.collected]
            if missing:
                raise ValueError(f"{trace.path}: the collection given has no {', '.join(missing)} counts for "
                                 f"launch {lid}")
            lt = trace.launch_trace(lid)
            lo, hi = int(lt.warp_off[reps[lid]]), int(lt.warp_off[reps[lid] + 1])
            one = LaunchTrace(pc=lt.pc[lo:hi].copy(), space=lt.space[lo:hi].copy(), nreq=lt.nreq[lo:hi].copy(),
                              nthreads=lt.nthreads[lo:hi].copy(), line_off=np.zeros(1, np.int64),
                              lines=np.zeros(0, np.int64), warp_off=np.array([0, hi - lo], np.int64))
            self.launches.append({**launch, "rep_trace": one})

    def _profile(self, hw: dict, P: np.ndarray, L: dict, policy: str, got) -> tuple:
        """The representative warp's interval profile (eq. 11), the MSHR hold
        time and the demands per instruction of launch ``L`` from the counts
        ``got``.  They read only :data:`.analysis.PROFILE_FIELDS` of ``hw``,
        so configurations that differ only in other timing fields (MSHRs,
        the L2's bandwidth, the DRAM bus width) share them: kept while those
        fields stay the same (:meth:`predict`), for the same counts object.
        A sweep of MSHRs then computes them once; MT_CONTENTION's network
        runs at every point.  (A DRAM clock changes ``dram.latency`` in core
        cycles, so a sweep of it computes them at every point.)"""
        k = (int(L["launch"]), policy)
        hit = self._profiles.get(k)
        if hit is None or hit[0] is not got:
            timing, pm, per_inst = contention_timing(hw, P, got, got.totals)
            prof = check_profile(timing.profile_columns(L["rep_trace"], 0), f"launch {k[0]}")
            hit = self._profiles[k] = (got, prof, pm, per_inst)
        return hit[1:]

    def _static(self, hw: dict) -> dict:
        """The per-PC tables on ``hw``, once per set of its latencies (the
        only fields :func:`..sim.static.kernel_static` reads)."""
        key = _fields_key(hw, ("latency",))
        if key not in self._tables:
            self._tables[key] = kernel_tables(self.instructions, hw, global_bb_ids(self.instructions)[0]
                                              if len(self.instructions) else {})
        return self._tables[key]

    def collect(self, hw: dict, policy: str | None = None, sampling: Sampling | None = None,
                pacing: bool = False) -> dict:
        """The scheduler-ordered collector of ``policy`` (default: the
        configuration's scheduler) on the trace on ``hw``: what a
        configuration with another :func:`.analysis.collection_key` needs
        before :meth:`predict` (``collected=``).  With ``sampling`` None it
        walks every warp instruction of every launch, so it costs about as
        much as a simulation; with a :class:`.sampled.Sampling` it runs
        only TBPoint's sample of launches and epochs (:mod:`.sampled`).
        ``pacing``: ``gpumech.collector_pacing``.

        The launches that :meth:`unchanged_launches` finds take the
        analysis's counts.  Up to the first changed launch that is exactly
        what collecting them would give, so when every launch is unchanged
        nothing is collected.  Without ``sampling`` a partly unchanged trace
        is collected whole, since the changed launches need the caches the
        earlier ones leave.  With ``sampling`` every unchanged launch keeps
        the analysis's counts and the rest are sampled as usual (the first
        part collected after a known launch is warmed as any other,
        :mod:`.sampled`); after a changed launch this is an approximation
        (*ours*): an unchanged launch's caches start as the analysed
        configuration's launches left them, not as the changed ones do."""
        policy = policy or hw["scheduler"]
        same = self.unchanged_launches(hw, pacing)
        known = {int(L["launch"]): self.collected[(int(L["launch"]), policy)]
                 for L, ok in zip(self.launches, same) if ok}
        if all(same):
            return {(lid, policy): c for lid, c in known.items()}
        static = self._static(hw)
        totals = {int(L["launch"]): self.collected[(int(L["launch"]), policy)].totals for L in self.launches}
        if sampling is None:
            the_plan = sampled.full_plan(self.trace)
        else:
            if sampling not in self._representatives:
                self._representatives[sampling] = sampled.representatives(self.trace, sampling)
            the_plan = sampled.plan(self.trace, hw, sampling, self._representatives[sampling])
        return sampled.collect(self.trace, hw, policy, static, the_plan, totals, sampling or Sampling(),
                               pacing, known={} if sampling is None else known)[0]

    def unchanged_launches(self, hw: dict, pacing: bool = False) -> list[bool]:
        """Per launch, in order: whether the scheduler-ordered collector,
        given the caches the launches before it leave, counts on ``hw``
        exactly what it counted on the analysed configuration (ours).  So
        it does when the two configurations differ in their SM limits alone
        (the resident warps, blocks, threads, registers and shared memory:
        what decides occupancy), the collector's pacing is the analysis's,
        and either

        - the launch's SM occupancy (blocks per core) is the same on both:
          the collector reads the SM limits only through it (its warp and
          block slots, :class:`.scheduled.LaunchRun`), so every placement,
          pick and count is the same, however many waves the launch has
          (at 48 warps per core against 32, most multi-wave launches of the
          suite, whose blocks are limited by the block, thread, register
          or shared-memory count, not the warps); or
        - its blocks all fit in the first wave on both (``n_blocks <=
          cores x`` the smaller SM occupancy): each block then goes to the
          same core and slot at the launch's start on both and no block
          follows, and empty slots are never picked by either scheduler,
          so the issue order and every count are the same.  Graph
          frontiers, wavefronts and small per-iteration launches are often
          such launches.

        All False without the analysed configuration."""
        n = len(self.launches)
        if self.hw is None or bool(pacing) != self.pacing:
            return [False] * n

        fields = [f for f in TIMING_FIELDS if f not in ("name", "scheduler", "sm_limits")]
        if hardware_slice(self.hw, fields) != hardware_slice(hw, fields):
            return [False] * n
        out = []
        for L in self.launches:
            args = (int(L["threads_per_block"]), int(L["regs_per_thread"]), int(L["shared_bytes"]))
            occ = occupancy(self.hw, *args)["sm_occupancy"], occupancy(hw, *args)["sm_occupancy"]
            out.append(occ[0] == occ[1] or int(L["n_blocks"]) <= hw["cores"] * min(occ))
        return out

    def predict(self, hw: dict, policy: str | None = None, sync: dict | None = None,
                collected: dict | None = None) -> pd.DataFrame:
        """MT_CONTENTION's CPI of every launch on ``hw`` under ``policy``
        (default: the configuration's scheduler): columns launch, policy,
        cpi.  ``sync``: ``gpumech.contention_sync`` (default
        :data:`.contention.DEFAULT_SYNC`); ``collected``: counts from
        :meth:`collect` (default: the analysis's)."""
        policy = policy or hw["scheduler"]
        reading = {**DEFAULT_SYNC, **(sync or {})}[policy]
        collected = collected or self.collected
        static = self._static(hw)
        key = _fields_key(hw, PROFILE_FIELDS)
        if key != self._profile_key:
            self._profiles, self._profile_key = {}, key
        rows = []
        for L in self.launches:
            lid = int(L["launch"])
            occ = occupancy(hw, int(L["threads_per_block"]), int(L["regs_per_thread"]), int(L["shared_bytes"]))
            got = collected[(lid, policy)]
            prof, pm, per_inst = self._profile(hw, static[L["kernel"]], L, policy, got)
            r = contention_resources(hw, pm, got, per_inst)
            cpi = predict_contention(prof, int(L["warps_per_block"]), occ["sm_occupancy"], int(L["n_blocks"]),
                                     reading, r, stack=False)["cpi"]
            rows.append({"launch": lid, "policy": policy, "cpi": cpi})
        return pd.DataFrame(rows, columns=["launch", "policy", "cpi"])
