"""Per-thread perf_event counters of another process's threads (seed 000,
5.3.1: "performance counters per thread").

The seed reads, for every executor thread, retired instructions, cycles and
cache misses, cutting the thread's run into units of 100 M instructions
with a snapshot every 10 M. :class:`ThreadCounterSampler` is the reading
half of that: it follows the threads of a running process (new ones as they
appear), opens one counter per thread and event with ``perf_event_open``,
and reads all of them at a fixed period into a table of cumulative values.

The same code counts software events (task clock, page faults, context
switches), which every Linux host allows for its own user's processes;
that is how it is tested on hosts without a PMU. Where a PMU answers,
``HARDWARE_EVENTS`` give the seed's instructions, cycles and cache misses,
and :func:`.units.form_units` cuts units of a fixed instruction count from
them (docs/simprof.md, "Counter modes").

Counters are read with their enabled and running times: where the PMU has
fewer counters than events and the kernel multiplexes them, a count is
scaled by enabled / running, as ``perf stat`` does.
"""
from __future__ import annotations

import ctypes
import os
import platform
import re
import threading
import time
from pathlib import Path

import pandas as pd

_PERF_SYSCALL = {"x86_64": 298, "aarch64": 241}
PERF_TYPE_HARDWARE, PERF_TYPE_SOFTWARE = 0, 1
# name -> (type, config), from linux/perf_event.h
HARDWARE_EVENTS = {"instructions": (PERF_TYPE_HARDWARE, 1), "cycles": (PERF_TYPE_HARDWARE, 0),
                   "cache_misses": (PERF_TYPE_HARDWARE, 3)}
SOFTWARE_EVENTS = {"task_clock_ns": (PERF_TYPE_SOFTWARE, 1), "page_faults": (PERF_TYPE_SOFTWARE, 2),
                   "context_switches": (PERF_TYPE_SOFTWARE, 3)}
EVENTS = {**HARDWARE_EVENTS, **SOFTWARE_EVENTS}
_READ_FORMAT = 1 | 2                # PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING
_libc = ctypes.CDLL(None, use_errno=True)


class PerfError(OSError):
    """perf_event_open refused an event; ``errno`` says why."""


def open_counter(tid: int, event: tuple[int, int], enabled: bool = True) -> int:
    """A file descriptor counting ``event`` ((type, config)) for thread
    ``tid`` (0: the caller) on any CPU; hardware events count user space
    only (the thread's own instructions), software events are the kernel's
    accounting and count everywhere (a context switch happens in the
    kernel). Raises :class:`PerfError` when the kernel refuses."""
    nr = _PERF_SYSCALL.get(platform.machine())
    if nr is None:
        raise PerfError(0, f"no perf_event_open system call number for {platform.machine()}")
    attr = (ctypes.c_uint64 * 16)()                    # struct perf_event_attr, 128 bytes
    ctypes.memmove(ctypes.addressof(attr), (ctypes.c_uint32 * 2)(event[0], 128), 8)   # type, size
    attr[1] = event[1]                                 # config
    attr[4] = _READ_FORMAT                             # read_format
    user_only = (1 << 5) | (1 << 6) if event[0] == PERF_TYPE_HARDWARE else 0   # exclude_kernel, exclude_hv
    attr[5] = (0 if enabled else 1) | user_only                                 # bit 0: disabled
    fd = _libc.syscall(nr, ctypes.byref(attr), int(tid), -1, -1, 0)
    if fd < 0:
        err = ctypes.get_errno()
        raise PerfError(err, f"perf_event_open(type {event[0]}, config {event[1]}, tid {tid}): {os.strerror(err)}")
    return fd


def read_counter(fd: int) -> int:
    """The count so far, scaled up by enabled / running time where the
    kernel multiplexed the counter (0 before it ever ran)."""
    raw = os.read(fd, 24)
    value, enabled, running = (int.from_bytes(raw[i:i + 8], "little") for i in (0, 8, 16))
    if running == 0:
        return 0
    return value if running >= enabled else round(value * enabled / running)


def threads_of(pid: int, name: re.Pattern | None = None, skip=()) -> dict[int, str]:
    """{tid: name} of the live threads of ``pid`` whose name (``comm``, at
    most 15 characters) matches ``name``, leaving out the tids in ``skip``
    unread; empty once the process is gone."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return out
    for t in map(int, tids):
        if t in skip:
            continue
        try:
            comm = Path(f"/proc/{pid}/task/{t}/comm").read_text().rstrip("\n")
        except (FileNotFoundError, ProcessLookupError):
            continue                                   # ended between the listing and the read
        if name is None or name.search(comm):
            out[t] = comm
    return out


class ThreadCounterSampler:
    """Counters of every matching thread of process ``pid``, read every
    ``period_s`` on a background thread.

    Parameters
    ----------
    pid : the process to follow (its threads, present and future).
    events : {column: (type, config)}, e.g. ``HARDWARE_EVENTS``.
    period_s : read period (the seed's snapshot every 10 M instructions is
        about 3-5 ms of a core; 10 ms by default, as JFR's call stacks).
    name : regular expression a thread's name must match (e.g. Spark's
        "Executor task launch worker", cut to "Executor task l" by Linux);
        None follows every thread.

    ``table()`` after ``stop()``: one row per thread and read, columns
    ``time_ns`` (CLOCK_REALTIME, the clock of JFR's event times),
    ``os_tid``, ``thread`` (its name) and one cumulative column per event.
    A thread the kernel refuses to count is left out and named in
    ``refused``.
    """

    def __init__(self, pid: int, events: dict, period_s: float = 0.01, name: str | None = None):
        self.pid, self.events, self.period_s = pid, dict(events), period_s
        self.name = re.compile(name) if name else None
        self.fds: dict[int, dict[str, int]] = {}
        self.names: dict[int, str] = {}
        self.refused: dict[int, str] = {}
        # threads whose name did not match, with when they were first seen: a
        # new thread may carry its creator's name for a moment before it names
        # itself, so it is looked at again at every scan for NAME_GRACE_S, then
        # once every RENAME_RECHECK_S (reading every thread's name at every
        # scan would cost a core's share)
        self._unmatched: dict[int, float] = {}
        self._next_recheck = 0.0
        self.rows: list[tuple] = []
        self.cpu_s = 0.0                               # the sampler thread's own CPU time
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="perf-sampler", daemon=True)

    def start(self) -> "ThreadCounterSampler":
        self._thread.start()
        return self

    def stop(self) -> "ThreadCounterSampler":
        self._stop.set()
        self._thread.join()
        for fds in self.fds.values():
            for fd in fds.values():
                os.close(fd)
        self.fds.clear()
        return self

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    NAME_GRACE_S = 1.0
    # and the settled ones once a second: on a busy host the sampler itself
    # may not run for longer than the grace, and a thread it never looked at
    # again after that went uncounted for its whole life (an executor thread
    # of 2.8 s, 10% of a test job's executor CPU time)
    RENAME_RECHECK_S = 1.0
    # new threads are looked for at this period, not every read: listing a
    # JVM's hundred threads costs more than reading the followed ones' counters
    SCAN_PERIOD_S = 0.05

    def _follow_new_threads(self) -> None:
        now = time.monotonic()
        if now >= self._next_recheck:
            settled = set()
            self._next_recheck = now + self.RENAME_RECHECK_S
        else:
            settled = {t for t, first in self._unmatched.items() if now - first > self.NAME_GRACE_S}
        every = threads_of(self.pid, None, skip=settled | self.fds.keys() | self.refused.keys())
        for tid, comm in every.items():
            if self.name is not None and not self.name.search(comm):
                self._unmatched.setdefault(tid, now)
                continue
            opened = {}
            try:
                for col, ev in self.events.items():
                    opened[col] = open_counter(tid, ev)
            except PerfError as e:
                for fd in opened.values():
                    os.close(fd)
                self.refused[tid] = str(e)
                continue
            self.fds[tid], self.names[tid] = opened, comm

    def _read_all(self) -> None:
        for tid, fds in self.fds.items():
            # each thread stamped at its own reads, not once per pass: a pass over many threads
            # would otherwise date the last thread's counters by the first thread's time.
            # An ended thread's counter keeps its final value.
            self.rows.append((time.time_ns(), tid, *(read_counter(fds[c]) for c in self.events)))

    def _run(self) -> None:
        next_t = next_scan = time.monotonic()
        while not self._stop.is_set():
            if next_t >= next_scan:
                self._follow_new_threads()
                next_scan = next_t + self.SCAN_PERIOD_S
            self._read_all()
            next_t += self.period_s
            delay = next_t - time.monotonic()
            if delay < 0:                              # fell behind: do not burst
                next_t, delay = time.monotonic(), 0
            self._stop.wait(delay)
        self._read_all()
        self.cpu_s = time.thread_time()

    def table(self) -> pd.DataFrame:
        t = pd.DataFrame(self.rows, columns=["time_ns", "os_tid", *self.events])
        t.insert(2, "thread", t["os_tid"].map(self.names).astype(str))
        return t.sort_values(["os_tid", "time_ns"], kind="stable", ignore_index=True)
