"""Emulator speed: warp instructions per second on paper-size inputs.

    .venv/bin/python benchmarks/emulator_speed.py [workload ...] [--trace] [--reps N] [--record]

Runs each workload's paper input once (the first launch also pays the
numba cache load, so the JIT is warmed on a small input first), sums the
emulator's own time over all launches (host-side driver and reference time
excluded) and prints warp instructions per second (CPU time of one core).
With --trace the per-warp trace is collected in memory too.  With --reps N
each workload runs N times and the fastest run counts: one run of a
workload has measured 14.1 and 29.8 M warp instructions/s (``bfs``) within
minutes on this machine, so a baseline is best recorded from several.

Each rate is compared with the recorded baseline
(``benchmarks/baselines/emulator_speed.json``: rates measured on the
2-core development machine with the date and commit); a rate below 0.6 x
its baseline -- more than this machine's run-to-run spread of up to 40% --
is flagged as a likely regression.  ``--record`` writes the measured rates
as the new baseline.  The host's processor is printed and recorded with the
baseline: the same code has run at rates 2x apart on this machine on
different days, and one processor executes some of the compiled code's
instructions (masked vector stores, docs/emulator.md) far slower than
another, so rates are compared across days only on the same processor.
"""
import argparse
import json
import platform
import subprocess
import time
from pathlib import Path

import pipeline_lib.ptx as ptx_package
import pipeline_lib.workloads as workloads_package
from pipeline_lib.ptx import Device
from pipeline_lib.trace import MemorySink
from pipeline_lib.workloads import get


def timed_run(ptx, workloads, name: str, size: str, sink=None) -> tuple[float, int]:
    """Emulator seconds summed over a workload's launches (host-side driver
    and reference excluded) and its warp instructions, on the emulator of
    package modules ``ptx`` and ``workloads`` (benchmarks/emulator_ab.py
    passes another revision's)."""
    dev = ptx.Device(sink=sink)
    infos = []
    launch = dev.launch

    def timed(*a, **k):
        info = launch(*a, **k)
        infos.append((info.seconds, int(info.block_stats[:, 1].sum())))
        return info

    dev.launch = timed
    workloads.get(name, size).execute(dev)
    return sum(s for s, _ in infos), sum(n for _, n in infos)


def measure(name: str, trace: bool) -> tuple[float, int, float]:
    secs, instrs = timed_run(ptx_package, workloads_package, name, "paper", MemorySink() if trace else None)
    return instrs / secs, instrs, secs


BASELINE = Path(__file__).parent / "baselines" / "emulator_speed.json"


def host_cpu() -> str:
    """The processor's model name with its family and model numbers (Linux's
    /proc/cpuinfo), else what ``platform`` knows."""
    try:
        info = {}
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            k, _, v = line.partition(":")
            info.setdefault(k.strip(), v.strip())
        return f"{info['model name']} (family {info['cpu family']}, model {info['model']})"
    except (OSError, KeyError):
        return platform.processor() or platform.machine()

REGRESSION = 0.6      # below this share of the baseline: beyond the machine's spread of up to 40%


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="*", default=["sssp", "mst", "spmv", "kmeans", "lbm", "cfd"])
    ap.add_argument("--trace", action="store_true", help="also collect the per-warp trace in memory")
    ap.add_argument("--reps", type=int, default=1, help="runs per workload; the fastest counts (default 1)")
    ap.add_argument("--record", action="store_true", help=f"write the rates measured as the baseline ({BASELINE.name})")
    args = ap.parse_args()
    key = "tracing" if args.trace else "plain"
    base = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    get("reduction", "small").execute(Device())  # load the compiled emulator
    cpu = host_cpu()
    print(f"host processor: {cpu}")
    if base.get("cpu") and base["cpu"] != cpu:
        print(f"the baseline was measured on another processor ({base['cpu']}): compare its rates with care")
    rates, slow = {}, []
    for name in args.workloads:
        t0 = time.perf_counter()
        rate, n, secs = max(measure(name, args.trace) for _ in range(max(1, args.reps)))
        rates[name] = round(rate / 1e6, 2)
        ref = base.get(key, {}).get(name)
        vs = f"; baseline {ref:.1f} ({rate / 1e6 / ref:.2f}x)" if ref else ""
        if ref and rate / 1e6 < REGRESSION * ref:
            slow.append(name)
        print(f"{name:14s} paper: {n / 1e6:8.1f} M warp instructions in {secs:6.2f} s emulator time "
              f"-> {rate / 1e6:5.1f} M warp instr/s{' (tracing)' if args.trace else ''}"
              f"{f' (fastest of {args.reps})' if args.reps > 1 else ''}{vs} "
              f"[{time.perf_counter() - t0:.0f} s with inputs and reference]", flush=True)
    if slow:
        print(f"LIKELY REGRESSION: {', '.join(slow)} below {REGRESSION} x the baseline of "
              f"{base.get('date', '?')} ({base.get('commit', '?')}); check that nothing else loads the CPU, "
              "then bisect with this benchmark")
    if args.record:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        base[key] = {**base.get(key, {}), **rates}
        base.update(date=time.strftime("%Y-%m-%d"), commit=commit, cpu=cpu)
        BASELINE.parent.mkdir(exist_ok=True)
        BASELINE.write_text(json.dumps(base, indent=1, sort_keys=True) + "\n")
        print(f"baseline written: {BASELINE}")


if __name__ == "__main__":
    main()
