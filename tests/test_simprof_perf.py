"""Per-thread perf_event counters of another process (pipeline_lib/simprof/perf.py),
exercised with software events, which hosts without a PMU also count."""
import json
import subprocess
import sys
import textwrap

import pytest

from pipeline_lib.simprof import perf

# a process whose two named threads start late: one spins for 0.6 s of CPU, one mostly sleeps
CHILD = textwrap.dedent("""
    import ctypes, json, threading, time
    libc = ctypes.CDLL(None)
    times = {}
    def work(name, spin):
        libc.prctl(15, name.encode(), 0, 0, 0)           # PR_SET_NAME: the thread's comm
        t0 = time.thread_time_ns()
        end = time.monotonic() + 0.6
        while time.monotonic() < end:
            if not spin:
                time.sleep(0.05)
        times[name] = time.thread_time_ns() - t0
    time.sleep(0.3)
    ts = [threading.Thread(target=work, args=(n, s)) for n, s in (("busy-spin", True), ("busy-idle", False))]
    [t.start() for t in ts]
    [t.join() for t in ts]
    time.sleep(0.2)
    print(json.dumps(times), flush=True)
""")


def _software_events_allowed():
    try:
        import os
        os.close(perf.open_counter(0, perf.SOFTWARE_EVENTS["task_clock_ns"]))
    except perf.PerfError as e:
        return str(e)
    return None


def test_counters_follow_the_named_threads_of_another_process():
    why = _software_events_allowed()
    if why:
        pytest.skip(f"this kernel refuses even software perf events: {why}")
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True)
    with perf.ThreadCounterSampler(child.pid, perf.SOFTWARE_EVENTS, period_s=0.01, name="^busy-") as s:
        out, _ = child.communicate(timeout=60)
    cpu = json.loads(out)
    t = s.table()
    assert not s.refused
    assert sorted(set(t["thread"])) == ["busy-idle", "busy-spin"]     # the main thread is not followed
    for _, g in t.groupby("os_tid"):
        assert g["time_ns"].is_monotonic_increasing
        assert g["task_clock_ns"].is_monotonic_increasing
        assert len(g) >= 20                                           # about 60 reads at 10 ms
    final = t.groupby("thread")["task_clock_ns"].max()
    # the kernel's count of each thread's CPU time agrees with the thread's own clock
    assert final["busy-spin"] == pytest.approx(cpu["busy-spin"], rel=0.1, abs=5e6)
    assert final["busy-idle"] < 0.2 * final["busy-spin"]
    switches = t.groupby("thread")["context_switches"].max()
    assert switches["busy-idle"] >= 5                                 # it slept about 12 times


# a thread that runs under its creator's name for longer than the sampler's grace, then names itself
LATE = textwrap.dedent("""
    import ctypes, threading, time
    libc = ctypes.CDLL(None)
    def work():
        time.sleep(1.6)
        libc.prctl(15, b"busy-late", 0, 0, 0)
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            pass
    t = threading.Thread(target=work)
    t.start()
    t.join()
""")


def test_a_thread_named_after_the_grace_is_still_followed():
    why = _software_events_allowed()
    if why:
        pytest.skip(f"this kernel refuses even software perf events: {why}")
    child = subprocess.Popen([sys.executable, "-c", LATE])
    with perf.ThreadCounterSampler(child.pid, perf.SOFTWARE_EVENTS, period_s=0.01, name="^busy-") as s:
        child.wait(timeout=60)
    assert s.NAME_GRACE_S < 1.6
    t = s.table()
    assert set(t["thread"]) == {"busy-late"}
    # found within a recheck of its naming: most of its 1.5 s of spinning counted
    assert t["task_clock_ns"].max() > 0.2e9


def test_a_refused_event_names_the_thread_and_the_reason():
    with pytest.raises(perf.PerfError, match=r"tid 999999999"):
        perf.open_counter(999999999, perf.SOFTWARE_EVENTS["task_clock_ns"])
