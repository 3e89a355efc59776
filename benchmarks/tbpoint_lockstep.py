"""Whether a launch's blocks run in lock step, wave by wave, from a full
simulation's block table (docs/tbpoint.md, "Occupancy variants").

    .venv/bin/python benchmarks/tbpoint_lockstep.py reduction tbpoint-fermi-w24 [--launch 0] [--waves 30]

All blocks of a launch's first wave are dispatched in the same cycle, so
they start in step.  Whether they stay so shows in the phases of the
blocks running at a moment: a block's phase is its age over the typical
block lifetime (the median of the last wave's lifetimes), as an angle.  The
mean resultant length R of those angles is 1 when every running block is
at the same point of its life (lock step) and falls towards 0 as their
starts spread over a lifetime.  For each third of a wave (by dispatch
order) this prints the IPC of the block dispatched there (its issued warp
instructions over its lifetime) and R at its retirement.

Reads ``results/sim/<workload>/<hardware>/blocks.parquet`` (the workflow's
full simulation of that workload on that configuration).
"""
import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from pipeline_lib.tbpoint.warming import phase_concentration
from pipeline_lib.workflow import Paths

ROOT = Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("workload")
    ap.add_argument("hardware")
    ap.add_argument("--launch", type=int, default=None, help="launch id (default: the first)")
    ap.add_argument("--waves", type=int, default=30, help="waves to print")
    a = ap.parse_args()
    path = Path(Paths(ROOT / "results").sim("blocks.parquet", a.workload, a.hardware))
    if not path.exists():
        raise SystemExit(f"tbpoint_lockstep: {path} does not exist (simulate {a.workload} on {a.hardware} first)")
    b = pd.read_parquet(path)
    lid = int(b["launch"].iloc[0]) if a.launch is None else a.launch
    b = b[(b["launch"] == lid) & ~b["skipped"]].sort_values("dispatch_cycle", kind="stable")
    if b.empty:
        raise SystemExit(f"tbpoint_lockstep: {path} has no simulated block of launch {lid}")
    d = b["dispatch_cycle"].to_numpy(np.int64)
    r = b["retire_cycle"].to_numpy(np.int64)
    life = r - d
    ipc = (b["issued_at_retire"] - b["issued_at_dispatch"]).to_numpy(float) / np.maximum(life, 1)
    wave = int((d == d.min()).sum())           # the first wave: dispatched together
    print(f"{a.workload} on {a.hardware}, launch {lid}: {len(b)} blocks, {wave} in the first wave")
    print(f"{'wave':>6s} {'block IPC':>10s} {'R':>6s}")
    for i in range(0, min(len(b), a.waves * wave), max(1, wave // 3)):
        done = r <= r[i]
        L = float(np.median(life[done][-wave:]))
        t = int(r[i]) - 1
        running = (d <= t) & (r > t)
        print(f"{i / wave:6.1f} {ipc[i]:10.2f} {phase_concentration(d[running], t, L):6.2f}")


if __name__ == "__main__":
    main()
