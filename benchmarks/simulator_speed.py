"""Detailed-simulator speed: simulated warp instructions per second of host time.

    .venv/bin/python benchmarks/simulator_speed.py [workload ...] [--hw NAME]

Traces each workload's paper input once into results/bench/traces/ (kept for
later runs), warms the compiled simulator on a small trace, then runs the full
simulation on one core and prints warp instructions, simulated cycles, host
seconds (trace reading included) and the rate.
"""
import argparse
import tempfile
import time
from pathlib import Path

from emulator_speed import host_cpu
from pipeline_lib.sim import load_hardware
from pipeline_lib.sim.simulator import Simulator
from pipeline_lib.sim.trace_reader import TraceDir
from pipeline_lib.trace.generate import trace_workload

ROOT = Path(__file__).resolve().parents[1]


def traced(name: str, size: str, out: Path) -> TraceDir:
    if not (out / "check.json").exists():
        trace_workload(f"{name}-{size}", {"benchmark": name, "size": size, "seed": 1, "params": {}}, out,
                       progress=False)
    return TraceDir(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workloads", nargs="*", default=["lbm", "kmeans", "spmv"])
    ap.add_argument("--hw", default="gpumech-baseline")
    args = ap.parse_args()
    hw = load_hardware(args.hw)
    with tempfile.TemporaryDirectory() as tmp:   # warm-up: loads the compiled engine
        Simulator(hw, traced("reduction", "small", Path(tmp))).run()
    print(f"host processor: {host_cpu()}")
    print(f"{'workload':14s} {'M warp instr':>12s} {'M cycles':>9s} {'host s':>7s} {'M instr/s':>9s}   ({args.hw})")
    for name in args.workloads:
        tr = traced(name, "paper", ROOT / "results" / "bench" / "traces" / f"{name}-paper")
        t0 = time.perf_counter()
        res = Simulator(hw, tr).run()
        secs = time.perf_counter() - t0
        n = int(res.launches["warp_instrs"].sum())
        print(f"{name:14s} {n / 1e6:12.1f} {res.info['total_cycles'] / 1e6:9.2f} {secs:7.1f} {n / secs / 1e6:9.2f}")


if __name__ == "__main__":
    main()
