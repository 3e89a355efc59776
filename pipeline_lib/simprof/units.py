"""Sampling units of the executor threads and their measures (seed 000,
5.3.1, Fig. 37).

The seed's unit is 100 M instructions of one thread, with a call-stack
snapshot every 10 M and CPI per unit from hardware counters. Where the host
has no hardware counters (``counter_mode``), a unit is a fixed amount of the
thread's CPU time (``unit_cpu_ms``), and its measures are those the thread's
counters give: allocation rate, page faults, context switches, run-queue
wait and elapsed time per CPU second. None of them is CPI, and none is
called so (docs/simprof.md, "Counter modes").
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from . import perf

# Per-unit measures of the CPU-time mode, all per second of the thread's CPU time.
MEASURES = {
    "alloc_mb_per_cpu_s": "MB the thread allocated",
    "wall_s_per_cpu_s": "elapsed seconds (>= 1: waiting on I/O, locks, the scheduler or GC)",
    "minor_faults_per_cpu_s": "minor page faults",
    "switches_per_cpu_s": "voluntary and involuntary context switches",
    "runqueue_wait_s_per_cpu_s": "seconds spent runnable but waiting for a core",
}
COUNTERS = {"alloc_mb_per_cpu_s": ("allocated_bytes", 1e-6), "minor_faults_per_cpu_s": ("minor_faults", 1.0),
            "runqueue_wait_s_per_cpu_s": ("runqueue_wait_ns", 1e-9)}


def counter_mode() -> dict:
    """Whether this host can count instructions per thread.

    Opens a perf_event for retired instructions on the calling thread (user
    space only). Returns {"counter_mode": "cpu-time", "pmu": bool, "why":
    text}: the mode is "cpu-time" also where a PMU answers, because units of
    instructions are not formed yet; the per-thread counter reader of that
    mode is :mod:`.perf` (docs/simprof.md)."""
    try:
        os.close(perf.open_counter(0, perf.HARDWARE_EVENTS["instructions"], enabled=False))
    except perf.PerfError as e:
        why = f"perf_event_open(instructions) failed: {os.strerror(e.errno)}" if e.errno else e.strerror
        return {"counter_mode": "cpu-time", "pmu": False, "why": why}
    return {"counter_mode": "cpu-time", "pmu": True,
            "why": "a PMU counts instructions here, but units of instructions are not formed yet"}


def form_units(counters: pd.DataFrame, samples: pd.DataFrame, tasks: pd.DataFrame, unit_cpu_ms: float):
    """Cut each executor thread's run into units of ``unit_cpu_ms`` of CPU time.

    Parameters
    ----------
    counters : the ``counters`` profile table (cumulative per-thread counters).
    samples : the ``samples`` profile table (call-stack snapshots).
    tasks : the ``tasks`` profile table (task start and end per thread).

    Returns
    -------
    units : one row per unit: ``unit``, ``thread`` (Java id), ``index`` (within
        the thread), ``start_ns``, ``end_ns``, ``stage`` (of the task running at
        the unit's middle, -1 for none), ``snapshots`` and the MEASURES.
    unit_of_sample : the unit of every row of ``samples`` (-1 outside all units).

    The last partial unit of each thread is dropped, as a fixed-size unit
    needs (its work is at most one unit of each thread).
    """
    unit_ns = unit_cpu_ms * 1e6
    rows = []
    unit_of_sample = np.full(len(samples), -1, np.int64)
    s_thread = samples["java_tid"].to_numpy()
    s_time = samples["time_ns"].to_numpy()
    next_id = 0
    for tid, c in counters.sort_values(["java_tid", "time_ns"]).groupby("java_tid", sort=True):
        t = c["time_ns"].to_numpy(np.float64)
        cpu = np.maximum.accumulate(c["cpu_ns"].to_numpy(np.float64))
        n_units = int((cpu[-1] - cpu[0]) // unit_ns)   # from the thread's first sample on
        if n_units == 0:
            continue
        levels = cpu[0] + unit_ns * np.arange(n_units + 1)
        # time at which the thread's CPU time reached each level (first reach)
        j = np.searchsorted(cpu, levels, side="left")
        j = np.clip(j, 1, len(cpu) - 1)
        frac = np.where(cpu[j] > cpu[j - 1], (levels - cpu[j - 1]) / np.maximum(cpu[j] - cpu[j - 1], 1e-9), 0.0)
        bounds = t[j - 1] + np.clip(frac, 0, 1) * (t[j] - t[j - 1])
        start, end = bounds[:-1], bounds[1:]
        cpu_s = unit_ns / 1e9
        u = pd.DataFrame({"unit": np.arange(next_id, next_id + n_units), "thread": tid,
                          "index": np.arange(n_units), "start_ns": start.astype(np.int64),
                          "end_ns": end.astype(np.int64)})
        u["wall_s_per_cpu_s"] = (end - start) / 1e9 / cpu_s
        for name, (col, scale) in COUNTERS.items():
            x = c[col].to_numpy(np.float64)
            ok = x >= 0
            if ok.sum() < 2:
                u[name] = np.nan
                continue
            at = np.interp(bounds, t[ok], x[ok])
            u[name] = np.diff(at) * scale / cpu_s
        sw = (c["voluntary_switches"] + c["involuntary_switches"]).to_numpy(np.float64)
        u["switches_per_cpu_s"] = np.diff(np.interp(bounds, t, sw)) / cpu_s if (sw >= 0).all() else np.nan
        # stage of the task running at the unit's middle on this thread
        tt = tasks[tasks["java_tid"] == tid].sort_values("time_ns")
        starts = tt[tt["event"] == "start"]
        mid = (start + end) / 2
        k = np.searchsorted(starts["time_ns"].to_numpy(), mid, side="right") - 1
        stage = np.where(k >= 0, starts["stage"].to_numpy()[np.maximum(k, 0)] if len(starts) else -1, -1)
        u["stage"] = stage.astype(np.int64)
        mine = np.flatnonzero(s_thread == tid)
        pos = np.searchsorted(end, s_time[mine], side="right")
        inside = (pos < n_units) & (s_time[mine] >= start[np.minimum(pos, n_units - 1)])
        unit_of_sample[mine[inside]] = next_id + pos[inside]
        u["snapshots"] = np.bincount(pos[inside], minlength=n_units)
        rows.append(u)
        next_id += n_units
    cols = ["unit", "thread", "index", "start_ns", "end_ns", "stage", "snapshots", *MEASURES]
    units = pd.concat(rows, ignore_index=True)[cols] if rows else pd.DataFrame(columns=cols)
    return units, unit_of_sample
