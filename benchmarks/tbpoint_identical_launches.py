"""How much launches whose traces are identical differ in a full simulation
(docs/tbpoint.md, "What is left": whether one launch could stand for a
cluster of identical launches without a second one).

    .venv/bin/python benchmarks/tbpoint_identical_launches.py [--hw tbpoint-fermi] [--workloads spmv-scalar,...]

Groups each workload's launches by kernel and a digest of their whole
trace (every warp's PCs, memory spaces, request counts, active threads and
lines, and the warp boundaries): two launches of a group execute the same
instructions on the same addresses, so in the simulator they differ only
through the state the launches before them leave (caches, DRAM rows) and
the timing that follows from it.  Simulates the workload in full on the
configuration and prints, per group of two or more launches, their CPIs,
the spread of the later ones ((max - min) / mean, the first left out: it
starts on the caches of another kernel or of none; "-" where only one
follows it) and how far the first lies from their mean.  Default workloads: the medium suite of config/study.yaml
(those with a trace under results/traces/).
"""
import argparse
import hashlib
from pathlib import Path

from pipeline_lib.sim.hardware import load_hardware
from pipeline_lib.sim.simulator import Simulator
from pipeline_lib.sim.trace_reader import TraceDir
from pipeline_lib.workflow import Paths

from gpumech_reevaluation import suite      # the medium suite's workloads with a trace

ROOT = Path(__file__).resolve().parents[1]


def identical_groups(trace: TraceDir) -> list[list[int]]:
    """Launch ids grouped by kernel and trace digest, in launch order."""
    groups: dict[tuple, list[int]] = {}
    L = trace.launches.sort_values("launch")
    for lid, kernel in zip(L["launch"].astype(int), L["kernel"]):
        lt = trace.launch_trace(lid)
        h = hashlib.sha256()
        for a in (lt.pc, lt.space, lt.nreq, lt.nthreads, lt.line_off, lt.lines, lt.warp_off):
            h.update(a.tobytes())
        groups.setdefault((kernel, h.hexdigest()), []).append(lid)
    return list(groups.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hw", default="tbpoint-fermi")
    ap.add_argument("--workloads", default=None, help="comma-separated (default: the medium suite)")
    a = ap.parse_args()
    workloads = a.workloads.split(",") if a.workloads else suite()
    hw = load_hardware(a.hw)
    print(f"{'workload':14s} {'kernel':24s} {'launches':>9s} {'CPI of each':40s} {'later spread':>13s} "
          f"{'first vs later':>15s}")
    for wl in workloads:
        path = Path(Paths(ROOT / "results").trace_dir(wl))
        if not (path / "launches.parquet").exists():
            continue
        trace = TraceDir(path)
        groups = [g for g in identical_groups(trace) if len(g) > 1]
        if not groups:
            print(f"{wl:14s} {'(no identical launches)':24s} {len(trace.launches):9d}")
            continue
        sim = Simulator(hw, trace).run().launches.set_index("launch")
        cpi = sim["cycles"] / sim["warp_instrs"]
        kernel = trace.launches.set_index("launch")["kernel"]
        for g in groups:
            c = cpi.loc[g].to_numpy()
            later = c[1:]
            spread = f"{100 * (later.max() - later.min()) / later.mean():12.2f}%" if len(later) > 1 else f"{'-':>13s}"
            first = 100 * (c[0] / later.mean() - 1)
            print(f"{wl:14s} {kernel[g[0]]:24s} {len(g):9d} {' '.join(f'{x:.4f}' for x in c)[:40]:40s} "
                  f"{spread} {first:14.2f}%")


if __name__ == "__main__":
    main()
