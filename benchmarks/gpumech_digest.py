"""A digest of GPUMech's figures over the suite, to show that a change of
the code that should not change them did not (docs/gpumech.md,
"Re-evaluation"): run it on two revisions and compare the last line.

    .venv/bin/python benchmarks/gpumech_digest.py [--workloads lbm,cfd,...]
    PYTHONPATH=<a checkout of another revision> .venv/bin/python benchmarks/gpumech_digest.py

For each workload (default: the medium suite of config/study.yaml, whose
traces must exist under results/traces/) the analysis on
``gpumech-baseline`` (every model's predictions and both CPI stacks), and
re-evaluations from it: ``mshr16`` and ``mc1000`` (counts reused) under the
configuration's scheduler and ``mshr16`` under GTO, and ``w16`` collected
again on TBPoint's launches.  Prints per workload the number of values and
their SHA-256 (of the floats' bytes, in table order), then one over all.
"""
import argparse
import hashlib
from pathlib import Path

import numpy as np

from pipeline_lib.gpumech.analysis import GPUMech, warm_up
from pipeline_lib.gpumech.reevaluate import Reevaluation
from pipeline_lib.gpumech.sampled import Sampling
from pipeline_lib.sim.hardware import load_hardware, variant_name
from pipeline_lib.sim.trace_reader import TraceDir
from pipeline_lib.workflow import Paths

from gpumech_reevaluation import suite      # the medium suite's workloads with a trace

ROOT = Path(__file__).resolve().parents[1]
BASE = "gpumech-baseline"


def tables(trace: TraceDir, hw: dict, variants: dict) -> list:
    """The analysis's predictions and stacks, then each re-evaluation."""
    base = GPUMech(hw).run(trace)
    ev = Reevaluation(trace, base["launches"], base["collected"], hw=hw)
    out = [base["predictions"], base["stacks"], ev.predict(variants["mshr16"]), ev.predict(variants["mc1000"]),
           ev.predict(variants["mshr16"], policy="gto")]
    w16 = variants["w16"]
    out.append(ev.predict(w16, collected=ev.collect(w16, sampling=Sampling())))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workloads", default=None, help="comma-separated (default: the medium suite)")
    a = ap.parse_args()
    workloads = a.workloads.split(",") if a.workloads else suite()
    hw = load_hardware(BASE)
    warm_up(hw)
    variants = {"mshr16": load_hardware(variant_name(BASE, mshr=16)),
                "mc1000": load_hardware(variant_name(BASE, mc=1000)),
                "w16": load_hardware(variant_name(BASE, w=16))}
    total, count = hashlib.sha256(), 0
    for wl in workloads:
        path = Path(Paths(ROOT / "results").trace_dir(wl))
        if not (path / "launches.parquet").exists():
            continue
        h, n = hashlib.sha256(), 0
        for t in tables(TraceDir(path, cache_limit_bytes=1 << 32), hw, variants):
            for c in t.columns:
                if t[c].dtype.kind == "f":
                    v = np.ascontiguousarray(t[c].to_numpy(np.float64))
                    h.update(v.tobytes())
                    n += len(v)
        total.update(h.digest())
        count += n
        print(f"{wl:14s} {n:7d} values  {h.hexdigest()[:16]}", flush=True)
    print(f"all {count} values  {total.hexdigest()[:16]}")


if __name__ == "__main__":
    main()
