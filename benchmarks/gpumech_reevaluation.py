"""Host time of re-evaluating a new hardware configuration with GPUMech
against detailed simulation of that configuration (docs/gpumech.md,
"Re-evaluation").

    .venv/bin/python benchmarks/gpumech_reevaluation.py [--hw gpumech-baseline]
        [--variants mshr16,mshr64,mc1000,mc4000,w16] [--workloads lbm,cfd,...]

For each workload (default: the medium suite of config/study.yaml, whose
traces must exist under results/traces/) the base configuration is
analysed once (not timed: it is the known analysis, 4.6.5).  Then, for each
variant:

- *re-evaluation*: when the variant differs from the base only in timing
  fields (``analysis.collection_key``), :class:`Reevaluation.predict` on the
  base's representative warps and collector counts (MT_CONTENTION under the
  variant's scheduler); otherwise the scheduler-ordered collector must run
  again: ``predict(variant, collected=collect(variant))``, timed whole;
- *simulation*: the detailed simulator on the variant, with the trace's
  decoded launches cached (as a sweep job runs it), so neither side pays for
  reading the trace.

The one-time setup of the re-evaluation (reading the representative warps
from the trace) is printed apart; it is paid once per trace, not per
configuration.  Prints per workload and over the suite; the figure is the
suite's simulation seconds over its re-evaluation seconds, per kind of
variant.
"""
import argparse
import time
from pathlib import Path

import yaml

from pipeline_lib.gpumech.analysis import GPUMech, collection_key, warm_up
from pipeline_lib.gpumech.reevaluate import Reevaluation
from pipeline_lib.sim.hardware import load_hardware, variant_name
from pipeline_lib.sim.simulator import Simulator
from pipeline_lib.sim.trace_reader import TraceDir

ROOT = Path(__file__).resolve().parents[1]


def suite() -> list[str]:
    """The medium workloads of config/study.yaml that have a trace."""
    cfg = yaml.safe_load((ROOT / "config" / "study.yaml").read_text())
    return [w for w in cfg["workloads"] if not w.endswith("-s")
            and (ROOT / "results" / "traces" / w / "launches.parquet").exists()]


def variant(base: str, spec: str) -> str:
    key = spec.rstrip("0123456789")
    return variant_name(base, **{key: int(spec[len(key):])})


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hw", default="gpumech-baseline")
    ap.add_argument("--variants", default="mshr16,mshr64,mc1000,mc4000,w16")
    ap.add_argument("--workloads", default=None, help="comma-separated (default: the medium suite)")
    a = ap.parse_args()
    hw = load_hardware(a.hw)
    variants = {v: load_hardware(variant(a.hw, v)) for v in a.variants.split(",")}
    reuse = {v: collection_key(h) == collection_key(hw) for v, h in variants.items()}
    workloads = a.workloads.split(",") if a.workloads else suite()
    warm_up(hw)
    totals = {k: [0.0, 0.0] for k in ("reuse", "collect")}       # [re-evaluation s, simulation s]
    kinds = ", ".join(f"{v} ({'timing only' if r else 'collect again'})" for v, r in reuse.items())
    print(f"base {a.hw}; variants {kinds}")
    print(f"{'workload':14s} {'launches':>8s} {'setup s':>8s} {'reeval s':>9s} {'sim s':>8s} {'speedup':>8s}"
          f" {'collect s':>9s} {'sim s':>8s} {'speedup':>8s}")
    for wl in workloads:
        path = ROOT / "results" / "traces" / wl
        trace = TraceDir(path, cache_limit_bytes=1 << 32)
        base = GPUMech(hw).run(trace)
        ev, setup = timed(lambda: Reevaluation(trace, base["launches"], base["collected"]))
        Simulator(hw, trace).run()                      # fills the trace cache; loads the compiled engine
        row = {k: [0.0, 0.0] for k in totals}
        for v, h in variants.items():
            if reuse[v]:
                ev.predict(h)                           # the first call of a configuration compiles nothing new
                _, t = timed(lambda: ev.predict(h))
            else:
                _, t = timed(lambda: ev.predict(h, collected=ev.collect(h)))
            _, s = timed(lambda: Simulator(h, trace).run())
            k = "reuse" if reuse[v] else "collect"
            row[k][0] += t
            row[k][1] += s
        for k in totals:
            totals[k][0] += row[k][0]
            totals[k][1] += row[k][1]
        r, c = row["reuse"], row["collect"]
        print(f"{wl:14s} {len(trace.launches):8d} {setup:8.3f} {r[0]:9.3f} {r[1]:8.2f} {r[1] / max(r[0], 1e-9):8.1f}"
              f" {c[0]:9.3f} {c[1]:8.2f} {c[1] / max(c[0], 1e-9):8.1f}")
    for k, label in (("reuse", "timing-only variants (counts reused)"), ("collect", "other variants (collect again)")):
        t, s = totals[k]
        if s > 0:
            print(f"suite, {label}: re-evaluation {t:.2f} s, simulation {s:.2f} s: {s / max(t, 1e-9):.1f}x")


if __name__ == "__main__":
    main()
