"""How well SimProf's counter snapshots are stamped: the largest excess of
CPU time over elapsed time between two snapshots of one executor thread,
on a profiled Spark job run beside busy loops (docs/simprof.md, "Version 7").

    .venv/bin/python benchmarks/simprof_stamps.py [--runs 4] [--busy 2] [--words 4000000]

A snapshot's CPU time cannot grow faster than the time between its stamps;
by how much it seems to is the error of the stamps (each should be the
instant of the thread's CPU-time read).  Busy loops, one per core, load the
host as a busy CI machine does, so that the sampler is delayed between its
reads.  Prints per run that excess and the smallest elapsed time per CPU
second of the job's 50 ms cpu-time units (at least 1 if the stamps are
right).
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from pipeline_lib.simprof import inputs, jvm, profile, units


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--busy", type=int, default=2, help="busy loops beside the job")
    ap.add_argument("--words", type=int, default=4_000_000, help="wordcount's input (the test's size)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        text = d / "text.txt"
        inputs.zipf_text(text, a.words, 5000, 1.1, 12, seed=1)
        jar = jvm.build_jar(d / "cache")
        for i in range(a.runs):
            busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(a.busy)]
            try:
                _, t = profile.profile_job(jar, "wordcount", text, d / f"w{i}", partitions=4, arg="", cores=2,
                                           driver_memory="1g", log=d / "log.txt", timeout_s=600,
                                           profile={"stack_period_ms": 10, "stack_depth": 256,
                                                    "counter_period_ms": 10})
            finally:
                for p in busy:
                    p.kill()
            c = t["counters"][t["counters"]["cpu_ns"] >= 0]
            excess = max((np.diff(g["cpu_ns"].to_numpy()) - np.diff(g["time_ns"].to_numpy())).max()
                         for _, g in c.groupby("java_tid") if len(g) > 1)
            u, _ = units.form_units(t["counters"], t["samples"], t["tasks"], "cpu-time", 50e6)
            print(f"run {i}: largest CPU-over-elapsed excess between two snapshots {excess / 1e6:.3f} ms; "
                  f"{len(u)} units, least elapsed per CPU second {u['wall_s_per_cpu_s'].min():.4f}", flush=True)


if __name__ == "__main__":
    main()
