"""Host time of re-evaluating a new hardware configuration with GPUMech
against detailed simulation of that configuration (docs/gpumech.md,
"Re-evaluation").

    .venv/bin/python benchmarks/gpumech_reevaluation.py [--hw gpumech-baseline]
        [--variants mshr16,mshr64,mc1000,mc4000,w8,w16,w48] [--workloads lbm,cfd,...]

For each workload (default: the medium suite of config/study.yaml, whose
traces must exist under results/traces/) the base configuration is
analysed once (not timed: it is the known analysis, 4.6.5).  Then, for each
variant:

- *re-evaluation*: when the variant differs from the base only in timing
  fields (``analysis.collection_key``), :class:`Reevaluation.predict` on the
  base's representative warps and collector counts (MT_CONTENTION under the
  variant's scheduler), its first call on the variant, after the variants
  before it in the order given (a variant whose latencies are those of the
  one before reuses its interval profiles, as a sweep does).  Otherwise the scheduler-ordered collector must run
  again, timed whole with the prediction, two ways: in full
  (``collect(variant)``) and on TBPoint's representative launches
  (``collect(variant, sampling=Sampling())``, :mod:`pipeline_lib.gpumech.sampled`);
  with ``--regions`` a third way, on TBPoint's homogeneous regions within
  those launches as well (``Sampling(regions=True)``).  Each way takes the
  analysis's counts for the launches whose collection would not
  change (:meth:`Reevaluation.unchanged_launches`: the same placement on
  both configurations);
- *simulation*: the detailed simulator on the variant, with the trace's
  decoded launches cached (as a sweep job runs it), so neither side pays for
  reading the trace.

The one-time setup of the re-evaluation (reading the representative warps
from the trace) is printed apart; it is paid once per trace, not per
configuration.  Prints per workload and over the suite: the suite's
simulation seconds over its re-evaluation seconds per kind of variant; how
far the sampled collection moves the prediction from the full one (per
launch, and in the workload's cycles); and, per collect-again variant, both
predictions' CPI error against the simulation just run.
"""
import argparse
import time
from pathlib import Path

import yaml

from pipeline_lib.gpumech.analysis import GPUMech, collection_key, warm_up
from pipeline_lib.gpumech.reevaluate import Reevaluation
from pipeline_lib.gpumech.sampled import Sampling
from pipeline_lib.sim.hardware import load_hardware, variant_name
from pipeline_lib.sim.simulator import Simulator
from pipeline_lib.sim.trace_reader import TraceDir
from pipeline_lib.workflow import Paths

ROOT = Path(__file__).resolve().parents[1]


def suite() -> list[str]:
    """The medium workloads of config/study.yaml that have a trace."""
    cfg = yaml.safe_load((ROOT / "config" / "study.yaml").read_text())
    return [w for w in cfg["workloads"] if not w.endswith("-s")
            and Path(Paths(ROOT / "results").trace("launches.parquet", w)).exists()]


def variant(base: str, spec: str) -> str:
    key = spec.rstrip("0123456789")
    return variant_name(base, **{key: int(spec[len(key):])})


def timed(f):
    t0 = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t0


def cpi_error(pred, sim) -> tuple[float, float]:
    """Mean relative CPI error of a prediction (launch, cpi) against a
    simulation's launches, over all launches and over those of at least
    ``MIN_WAVES`` waves (the validated ones, 4.6.1)."""
    s = sim.set_index("launch")
    cpi = s["cycles"] / s["warp_instrs"]
    err = (pred.set_index("launch")["cpi"] / s.attrs["cores"] - cpi).abs() / cpi
    ok = s["blocks"] >= MIN_WAVES * s["system_occupancy"]
    return float(err.mean()), float(err[ok].mean()) if ok.any() else float("nan")


MIN_WAVES = 3
REUSED = object()     # a way of re-evaluating that collects nothing: the base's counts as they are


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hw", default="gpumech-baseline")
    ap.add_argument("--variants", default="mshr16,mshr64,mc1000,mc4000,w8,w16,w48")
    ap.add_argument("--workloads", default=None, help="comma-separated (default: the medium suite)")
    ap.add_argument("--regions", action="store_true",
                    help="also collect on TBPoint's regions within the representative launches")
    ap.add_argument("--reused", action="store_true",
                    help="also predict the collect-again variants from the base's counts, as a timing-only "
                         "variant is (what that approximation costs in accuracy)")
    a = ap.parse_args()
    hw = load_hardware(a.hw)
    variants = {v: load_hardware(variant(a.hw, v)) for v in a.variants.split(",")}
    reuse = {v: collection_key(h) == collection_key(hw) for v, h in variants.items()}
    workloads = a.workloads.split(",") if a.workloads else suite()
    warm_up(hw)
    # the ways of collecting again, each with its Sampling (None: in full) and what the suite line calls it
    ways = {"collect": (None, "collected again in full"),
            "sampled": (Sampling(), "collected again on TBPoint's launches")}
    if a.regions:
        ways["regions"] = (Sampling(regions=True), "collected again on TBPoint's launches and regions")
    if a.reused:
        ways["reused"] = (REUSED, "the base's counts reused (no collection)")
    kinds = ("reuse", *ways)
    totals = {k: [0.0, 0.0] for k in kinds}       # [re-evaluation s, simulation s]
    dev = {k: [] for k in ways if k != "collect"}
    err = {k: [] for k in ways}
    print(f"base {a.hw}; variants " + ", ".join(f"{v} ({'timing only' if r else 'collect again'})"
                                                for v, r in reuse.items()))
    print(f"{'workload':14s} {'launches':>8s} {'setup s':>8s} {'reeval s':>9s} {'sim s':>8s} {'speedup':>8s}"
          f" {'sim s':>8s}" + "".join(f" {k + ' s':>10s} {'speedup':>8s}" for k in ways)
          + "".join(f" {k + ' dev':>12s}" for k in dev))
    for i, wl in enumerate(workloads):
        path = Path(Paths(ROOT / "results").trace_dir(wl))
        trace = TraceDir(path, cache_limit_bytes=1 << 32)
        base = GPUMech(hw).run(trace)
        if i == 0:     # loads the model's compiled functions, on an object of its own (no warm caches)
            Reevaluation(trace, base["launches"], base["collected"], hw=hw).predict(hw)
        ev, setup = timed(lambda: Reevaluation(trace, base["launches"], base["collected"], hw=hw))
        Simulator(hw, trace).run()                      # fills the trace cache; loads the compiled engine
        row = {k: [0.0, 0.0] for k in kinds}
        worst = {k: 0.0 for k in dev}
        for v, h in variants.items():
            sim, s = timed(lambda: Simulator(h, trace).run().launches)
            sim.attrs["cores"] = h["cores"]
            if reuse[v]:     # each configuration's first prediction, as a sweep makes it
                _, t = timed(lambda: ev.predict(h))
                row["reuse"][0] += t
                row["reuse"][1] += s
                continue
            pred = {}
            for k, (smp, _) in ways.items():
                if smp is REUSED:
                    pred[k], t = timed(lambda: ev.predict(h))
                else:
                    pred[k], t = timed(lambda: ev.predict(h, collected=ev.collect(h, sampling=smp)))
                row[k][0] += t
                row[k][1] += s
                err[k].append((wl, v, *cpi_error(pred[k], sim)))
            full = pred["collect"]
            n = sim.set_index("launch")["warp_instrs"].reindex(full["launch"]).to_numpy(float)
            for k in dev:
                d = ((pred[k]["cpi"] - full["cpi"]).abs() / full["cpi"]).to_numpy()
                total = abs(float((pred[k]["cpi"].to_numpy() * n).sum() / (full["cpi"].to_numpy() * n).sum()) - 1)
                dev[k].append((wl, v, float(d.mean()), float(d.max()), total))
                worst[k] = max(worst[k], float(d.max()))
        for k in kinds:
            totals[k][0] += row[k][0]
            totals[k][1] += row[k][1]
        r = row["reuse"]
        print(f"{wl:14s} {len(trace.launches):8d} {setup:8.3f} {r[0]:9.3f} {r[1]:8.2f} {r[1] / max(r[0], 1e-9):8.1f}"
              f" {row['collect'][1]:8.2f}"
              + "".join(f" {row[k][0]:10.3f} {row[k][1] / max(row[k][0], 1e-9):8.1f}" for k in ways)
              + "".join(f" {100 * worst[k]:11.1f}%" for k in dev), flush=True)
    t, s = totals["reuse"]
    if s > 0:
        print(f"suite, timing-only variants (counts reused): re-evaluation {t:.2f} s, simulation {s:.2f} s: "
              f"{s / max(t, 1e-9):.1f}x")
    for k, (_, label) in ways.items():
        t, s = totals[k]
        if s > 0:
            print(f"suite, other variants, {label}: re-evaluation {t:.2f} s, simulation {s:.2f} s: "
                  f"{s / max(t, 1e-9):.1f}x")
    for k in dev:
        t = totals["reuse"][0] + totals[k][0]
        s = totals["reuse"][1] + totals[k][1]
        if s > 0:
            print(f"suite, every variant (timing-only reused, others {ways[k][1]}): {s / max(t, 1e-9):.1f}x")
    for k, d in dev.items():
        if d:
            big = max(d, key=lambda x: x[3])
            print(f"{k} against full collection over {len(d)} (workload, variant) pairs: per-launch CPI "
                  f"deviation mean {100 * sum(x[2] for x in d) / len(d):.2f}%, largest {100 * big[3]:.1f}% "
                  f"({big[0]}, {big[1]}); workload cycles (CPI x warp instructions) deviation mean "
                  f"{100 * sum(x[4] for x in d) / len(d):.2f}%, largest {100 * max(x[4] for x in d):.2f}%")
    for k in ways:
        for v in dict.fromkeys(x[1] for x in err[k]):
            e = [x for x in err[k] if x[1] == v]
            val = [x[3] for x in e if x[3] == x[3]]
            print(f"{k:8s} {v}: CPI error against this simulation, mean over workloads "
                  f"{100 * sum(x[2] for x in e) / len(e):.1f}% (launches of {MIN_WAVES}+ waves: "
                  f"{100 * sum(val) / max(len(val), 1):.1f}%)")

if __name__ == "__main__":
    main()
