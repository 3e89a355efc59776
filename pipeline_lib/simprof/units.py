"""Sampling units of the executor threads and their measures (seed 000,
5.3.1, Fig. 37).

The seed's unit is 100 M instructions of one thread, with a call-stack
snapshot every 10 M and CPI per unit from hardware counters. Two counter
modes (docs/simprof.md, "Counter modes"):

- **instructions**, where the host's PMU counts a thread's retired
  instructions: a unit is ``unit_instructions`` of one executor thread,
  counted by :mod:`.perf` beside the job, and its measures are the seed's
  CPI and cache misses per 1000 instructions.
- **emulated**, on any host with QEMU's user-mode emulator: as
  instructions, with the counts and a modelled CPI from QEMU and our plugin
  (:mod:`.emulated`) in place of the PMU's.
- **cpu-time**, where it does not: a unit is ``unit_cpu_ms`` of the thread's
  CPU time (the JVM plugin's counters), and its measures are what the
  thread's counters give: allocation rate, page faults, context switches,
  run-queue wait and elapsed time per CPU second. None of them is CPI, and
  none is called so.

Deviation: the seed snapshots the call stack every 10 M instructions; here
the snapshots are JFR's, every 10 ms of wall time, in both modes, and a
snapshot belongs to the unit whose time span holds it.
"""
from __future__ import annotations

import os

import numpy as np
import pandas as pd

from . import perf

COUNTER_MODES = ("cpu-time", "instructions", "emulated")
# Per-unit measures of each mode: name -> (description, counter columns summed,
# scale). A measure is scale * (change of the summed columns) / (change of the
# mode's AXIS) over the unit; every unit has the same change of the axis.
MEASURES = {
    "cpu-time": {
        "alloc_mb_per_cpu_s": ("MB the thread allocated per CPU second", ("allocated_bytes",), 1e3),
        "wall_s_per_cpu_s": ("elapsed seconds per CPU second (>= 1: waiting on I/O, locks, the scheduler or GC)",
                             ("time_ns",), 1.0),
        "minor_faults_per_cpu_s": ("minor page faults per CPU second", ("minor_faults",), 1e9),
        "switches_per_cpu_s": ("voluntary and involuntary context switches per CPU second",
                               ("voluntary_switches", "involuntary_switches"), 1e9),
        "runqueue_wait_s_per_cpu_s": ("seconds spent runnable but waiting for a core, per CPU second",
                                      ("runqueue_wait_ns",), 1.0),
    },
    "instructions": {
        "cpi": ("core cycles per retired instruction, user space (the seed's CPI)", ("cycles",), 1.0),
        "cache_mpki": ("cache misses per 1000 instructions (the PMU's generic cache-miss event, "
                       "the last-level cache on most cores)", ("cache_misses",), 1e3),
    },
    "emulated": {
        "cpi": ("modelled cycles per instruction: QEMU's instruction count and cache model, in-order core "
                "plus miss penalties (emulated.py)", ("cycles",), 1.0),
        "cache_mpki": ("modelled L2 misses per 1000 instructions (the cache model's last level)",
                       ("cache_misses",), 1e3),
    },
}
AXIS = {"cpu-time": "cpu_ns", "instructions": "instructions", "emulated": "instructions"}
DEFAULT_MEASURE = {"cpu-time": "alloc_mb_per_cpu_s", "instructions": "cpi", "emulated": "cpi"}
# the perf sampler's events in each mode: the software ones are counted in
# both, so that every profile cross-checks its thread attribution (task clock
# against the JVM's CPU time); in emulated mode QEMU's plugin counts instead
PERF_EVENTS = {"cpu-time": perf.SOFTWARE_EVENTS, "instructions": perf.EVENTS, "emulated": None}


def probe_pmu() -> tuple[bool, str]:
    """Whether this host counts a thread's retired instructions: opens a
    perf_event for them on the calling thread (user space only). Returns
    (answered, why)."""
    try:
        os.close(perf.open_counter(0, perf.HARDWARE_EVENTS["instructions"], enabled=False))
    except perf.PerfError as e:
        why = f"perf_event_open(instructions) failed: {os.strerror(e.errno)}" if e.errno else e.strerror
        return False, why
    return True, "perf_event_open(instructions) answered"


def counter_mode(requested: str = "auto") -> dict:
    """The counter mode of this host: ``requested`` ("auto", "cpu-time",
    "instructions" or "emulated"; auto takes instructions where a PMU
    answers, else cpu-time: the emulated mode is chosen, never guessed).
    Returns {"counter_mode", "pmu", "why"}; raises ValueError when
    instructions are requested and no PMU answers, or emulation and QEMU or
    a C compiler is missing."""
    if requested not in ("auto", *COUNTER_MODES):
        raise ValueError(f"counter mode {requested!r} is not one of auto, {', '.join(COUNTER_MODES)}")
    pmu, why = probe_pmu()
    if requested == "emulated":
        from .emulated import available
        ok, what = available()
        if not ok:
            raise ValueError(f"counter mode 'emulated' needs QEMU's user-mode emulator and gcc: {what} "
                             "(on Debian: apt-get install qemu-user gcc; make system-packages)")
        return {"counter_mode": "emulated", "pmu": pmu, "why": f"emulated as configured ({what}); {why}"}
    if requested == "instructions" and not pmu:
        raise ValueError(f"counter mode 'instructions' needs a PMU that counts per-thread instructions, and this "
                         f"host has none ({why}); use 'cpu-time' or 'auto'")
    mode = requested if requested != "auto" else ("instructions" if pmu else "cpu-time")
    if mode == "cpu-time" and pmu:
        why += "; cpu-time mode as configured"
    return {"counter_mode": mode, "pmu": pmu, "why": why}


def measure_of(mode: str, measure: str) -> str:
    """The configured measure (``auto``: the mode's default), checked
    against the mode."""
    if measure == "auto":
        return DEFAULT_MEASURE[mode]
    if measure not in MEASURES[mode]:
        raise ValueError(f"measure {measure!r} is not one of the {mode} mode's "
                         f"({', '.join(MEASURES[mode])})")
    return measure


def unit_size(mode: str, unit_cpu_ms: float, unit_instructions: int) -> float:
    """A unit's length along the mode's AXIS (ns of CPU time or instructions)."""
    return unit_cpu_ms * 1e6 if mode == "cpu-time" else float(unit_instructions)


def describe_unit(mode: str, size: float) -> str:
    """A unit of ``size`` along the mode's AXIS, in words."""
    if mode == "cpu-time":
        return f"{size / 1e6:g} ms of an executor thread's CPU time"
    return f"{size / 1e6:g} M instructions of an executor thread"


def series_of(tables: dict, mode: str) -> pd.DataFrame:
    """The per-thread counters a profile's units are cut from in ``mode``."""
    if mode == "cpu-time":
        return tables["counters"]
    t = tables["perf"]
    return t[t["instructions"] >= 0]


def perf_series(perf_table: pd.DataFrame, counters: pd.DataFrame) -> pd.DataFrame:
    """The perf sampler's reads of the executor threads, with their Java ids
    (matched by OS thread id through the JVM plugin's ``counters``)."""
    ids = counters[["os_tid", "java_tid"]].drop_duplicates()
    return perf_table.drop(columns=["java_tid"], errors="ignore").merge(ids, on="os_tid", how="inner")


def form_units(series: pd.DataFrame, samples: pd.DataFrame, tasks: pd.DataFrame, mode: str, size: float,
               measures: dict | None = None):
    """Cut each executor thread's run into units of ``size`` along the mode's
    AXIS (ns of CPU time, or instructions).

    Parameters
    ----------
    series : cumulative per-thread counters with ``java_tid`` and ``time_ns``:
        the ``counters`` profile table in cpu-time mode, :func:`perf_series`
        of the ``perf`` table in instructions mode.
    samples : the ``samples`` profile table (call-stack snapshots).
    tasks : the ``tasks`` profile table (task start and end per thread).
    mode : "cpu-time", "instructions" or "emulated" (its MEASURES are
        computed).
    measures : per-unit measures in MEASURES' form to compute instead of
        the mode's (other counts of the same series, for analyses).

    Returns
    -------
    units : one row per unit: ``unit``, ``thread`` (Java id), ``index`` (within
        the thread), ``start_ns``, ``end_ns``, ``stage`` (of the task running at
        the unit's middle, -1 for none), ``snapshots`` and the mode's MEASURES.
    unit_of_sample : the unit of every row of ``samples`` (-1 outside all units).

    A unit's bounds are the times at which the thread's axis counter reached
    multiples of ``size`` (from its first read on), interpolated between
    reads; counters are interpolated at the bounds. The last partial unit of
    each thread is dropped, as a fixed-size unit needs (its work is at most
    one unit of each thread).
    """
    axis, measures = AXIS[mode], MEASURES[mode] if measures is None else measures
    rows = []
    unit_of_sample = np.full(len(samples), -1, np.int64)
    s_thread = samples["java_tid"].to_numpy()
    s_time = samples["time_ns"].to_numpy()
    next_id = 0
    for tid, c in series.sort_values(["java_tid", "time_ns"]).groupby("java_tid", sort=True):
        t = c["time_ns"].to_numpy(np.float64)
        x = np.maximum.accumulate(c[axis].to_numpy(np.float64))
        n_units = int((x[-1] - x[0]) // size)
        if n_units == 0:
            continue
        levels = x[0] + size * np.arange(n_units + 1)
        # time at which the thread's axis counter reached each level (first reach)
        j = np.searchsorted(x, levels, side="left")
        j = np.clip(j, 1, len(x) - 1)
        frac = np.where(x[j] > x[j - 1], (levels - x[j - 1]) / np.maximum(x[j] - x[j - 1], 1e-9), 0.0)
        bounds = t[j - 1] + np.clip(frac, 0, 1) * (t[j] - t[j - 1])
        start, end = bounds[:-1], bounds[1:]
        u = pd.DataFrame({"unit": np.arange(next_id, next_id + n_units), "thread": tid,
                          "index": np.arange(n_units), "start_ns": start.astype(np.int64),
                          "end_ns": end.astype(np.int64)})
        for name, (_, cols, scale) in measures.items():
            v = c[list(cols)].to_numpy(np.float64)
            ok = (v >= 0).all(axis=1)                  # -1: the counter was unreadable at that read
            if ok.sum() < 2:
                u[name] = np.nan
                continue
            at = np.interp(bounds, t[ok], v[ok].sum(axis=1))
            u[name] = np.diff(at) * scale / size
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
    cols = ["unit", "thread", "index", "start_ns", "end_ns", "stage", "snapshots", *measures]
    units = pd.concat(rows, ignore_index=True)[cols] if rows else pd.DataFrame(columns=cols)
    return units, unit_of_sample
