"""Simulator A/B: the working tree's detailed simulator against a git revision's, in one process.

    .venv/bin/python benchmarks/simulator_ab.py REV [trace_dir ...] [--hw NAME] [--reps 4] [--stalls] [--decode]

The simulator's counterpart of ``emulator_ab.py`` (the same reason: this
machine's speed drifts by up to 40% between runs, so two versions are
compared alternating in one process).  REV's ``pipeline_lib`` is extracted
beside the working tree's; each trace (default: the medium ``spmv-scalar``,
``lbm`` and ``kmeans`` under results/traces/) is simulated alternately by
the old and the new simulator, with its decoded launches cached as a sweep
job of a small trace holds them; with ``--decode`` each run opens and
decodes the trace with its own version's reader, as a ``simulate`` job
does (and a sweep job where the decoded trace exceeds its cache).  Prints, per trace, the fastest simulation seconds of each,
the median of the paired old/new ratios, the new rate in warp instructions
per second, and whether every output table (launches, SMs, blocks, PCs,
units, activity, stall breakdown) is identical between the two versions --
a speed change must not change a simulated number.
"""
import argparse
import importlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

from emulator_ab import NAME, extract
from simulator_speed import traced

ROOT = Path(__file__).resolve().parents[1]
TABLES = ("launches", "sms", "blocks", "pcs", "units", "activity", "stalls")


def same_outputs(a, b) -> bool:
    """Whether two SimResults hold equal tables and run information (host time aside)."""
    info = [{k: v for k, v in r.info.items() if k != "host_seconds"} for r in (a, b)]
    return all(getattr(a, t).equals(getattr(b, t)) for t in TABLES) and info[0] == info[1]


def alternate(versions: dict, hw, trace, reps: int, open_trace=None, **options) -> tuple[dict, dict]:
    """Simulate ``trace`` with each simulator module of ``versions`` ({label:
    module}) in turn, ``reps`` rounds (this machine's speed drifts, so the
    versions alternate): ({label: host seconds of each run}, {label: its
    last SimResult}).  ``open_trace(label)``, where given, opens the trace
    afresh for each run instead (its opening timed with the run)."""
    runs, results = {label: [] for label in versions}, {}
    for _ in range(reps):
        for label, sim in versions.items():
            t0 = time.perf_counter()
            results[label] = sim.Simulator(hw, open_trace(label) if open_trace else trace, **options).run()
            runs[label].append(time.perf_counter() - t0)
    return runs, results


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="git revision to compare the working tree with")
    ap.add_argument("traces", nargs="*", type=Path,
                    default=[ROOT / "results" / "traces" / w for w in ("spmv-scalar", "lbm", "kmeans")])
    ap.add_argument("--hw", default="gpumech-baseline")
    ap.add_argument("--reps", type=int, default=4, help="alternating runs per version")
    ap.add_argument("--stalls", action="store_true", help="keep the stall breakdown (as the GPUMech stages ask)")
    ap.add_argument("--decode", action="store_true",
                    help="time each version's trace reading and decoding too (default: decoded once, shared)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        extract(args.rev, Path(tmp))
        (Path(tmp) / "config").symlink_to(ROOT / "config")   # one hardware schema for both
        sys.path.insert(0, tmp)
        packages = {"old": NAME, "new": "pipeline_lib"}
        versions = {label: importlib.import_module(pkg + ".sim.simulator") for label, pkg in packages.items()}
        readers = {label: importlib.import_module(pkg + ".sim.trace_reader") for label, pkg in packages.items()}
        from pipeline_lib.sim import load_hardware
        from pipeline_lib.sim.trace_reader import TraceDir
        hw = load_hardware(args.hw)
        # compile or load each compiled engine, on a small trace made here
        # (no workflow results needed)
        warm = traced("reduction", "small", Path(tmp) / "warm")
        for sim in versions.values():
            sim.Simulator(hw, warm).run()
        print(f"{'trace':14s} {'old s':>7s} {'new s':>7s} {'fastest':>8s} {'paired':>7s} {'M/s':>6s} same   "
              f"({args.rev} -> working tree, {args.hw}, fastest of {args.reps})")
        for path in args.traces:
            if args.decode:
                trace = None
                open_trace = lambda label, path=path: readers[label].TraceDir(path)  # noqa: E731
            else:
                trace, open_trace = TraceDir(path, cache_limit_bytes=1 << 40), None
                for lid in trace.launches["launch"]:    # decoded once, as a sweep job's cache holds them
                    trace.launch_trace(int(lid))
            runs, results = alternate(versions, hw, trace, args.reps, open_trace, stall_breakdown=args.stalls)
            old, new = min(runs["old"]), min(runs["new"])
            paired = statistics.median(o / n for o, n in zip(runs["old"], runs["new"]))
            rate = results["new"].launches["warp_instrs"].sum() / new / 1e6
            same = "yes" if same_outputs(results["old"], results["new"]) else "NO"
            print(f"{path.name:14s} {old:7.2f} {new:7.2f} {old / new:7.2f}x {paired:6.2f}x {rate:6.2f} {same}",
                  flush=True)


if __name__ == "__main__":
    main()
