"""Event counts of the detailed simulator's engine: scheduler visits and calendar bookings.

    .venv/bin/python benchmarks/simulator_counts.py [trace_dir ...] [--hw NAME] [--intervals N] [--rescan]

What a speed change to the engine would have to cut (docs/simulator.md,
Speed).  The working tree's ``pipeline_lib`` is copied into a temporary
directory as ``pipeline_lib_counts`` and its engine is instrumented there:
counters are added by text replacements in ``sim/engine.py`` (each replaced
text must occur exactly once, else the script stops and names it), and
kept in one extra row of each calendar array, which the engine never books
(the working tree's code is not changed, and nothing it caches is touched:
the copy compiles without numba's cache).  Prints, per trace (default: the
medium ``spmv-scalar`` and ``lbm`` under results/traces/):

- the clock's steps (each a pass over the SMs), the SM visits, the visits
  at which a warp issued, and the warp slots the round-robin scan checked,
  each per warp instruction issued;
- per calendar (L2 slices, DRAM banks, DRAM channel buses): the bookings,
  the mean number of booked intervals a booking finds (after the ended
  ones are forgotten), the share that append after the last interval or
  extend it, the share that search, the intervals a search looks at, and the
  bookings that overflowed the row (its smallest gap merged).

With ``--intervals N`` the copy's calendar rows hold N intervals instead of
``engine.CAL_INTERVALS``, and the working tree's own engine runs each trace
too: the script prints how far each trace's cycles move (total and the
largest move of one launch), that is, what the merges of the smallest gap
on overflow cost the model.

With ``--rescan`` a second copy, without the counters, scans every visited
SM's warp slots a second time (the earliest ready cycle of its running
warps, added into the calendar's extra row so that the compiler keeps the
loop), and it and the working tree's engine simulate each trace
alternately, three times each: the ratio of their fastest times bounds
what the round-robin scan's checks cost, which an instruction-level
profile cannot tell apart from the memory-path work they overlap with.

The instrumented engine runs slower than the real one; the counts are
exact.  The round-robin scheduler's counts only (``--hw`` with a
greedy-then-oldest scheduler leaves the scan's count at 0).
"""
import argparse
import importlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = "pipeline_lib_counts"

# (text, what replaces it) in sim/engine.py, each text found exactly once.
# X is the counter row: the last row of the calendar array, which no
# resource index reaches.
IF_APPEND = "    if m == 0 or cal[r, 2 * m] < a:                 # after every booking: the common case\n"
ENGINE_PATCHES = [
    ("    m = cal[r, 0]\n    drop = 0\n",
     "    m = cal[r, 0]\n    drop = 0\n    X = cal.shape[0] - 1\n    cal[X, 0] += 1\n"),
    (IF_APPEND, "    cal[X, 1] += m\n" + IF_APPEND),
    ("            cal[r, 0] = m + 1\n            return a\n",
     "            cal[r, 0] = m + 1\n            cal[X, 2] += 1\n            return a\n"),
    ("        cal[r, 2 * m] = a + n\n        cal[r, 0] = m\n        return a\n",
     "        cal[r, 2 * m] = a + n\n        cal[r, 0] = m\n        cal[X, 2] += 1\n        return a\n"),
    ("    s = a\n    i = 0\n    while i < m:\n",
     "    s = a\n    i = 0\n    cal[X, 3] += 1\n    while i < m:\n        cal[X, 4] += 1\n"),
    ("        if m > CAL_INTERVALS:      # the row has room for one more: merge the smallest gap\n",
     "        if m > CAL_INTERVALS:      # the row has room for one more: merge the smallest gap\n"
     "            cal[X, 5] += 1\n"),
    ("        nret = 0\n        for s in range(S):\n",
     "        nret = 0\n        chan_cal[chan_cal.shape[0] - 1, 8] += 1\n        for s in range(S):\n"),
    ("            base = s * MAXW\n            issued = 0\n",
     "            base = s * MAXW\n            chan_cal[chan_cal.shape[0] - 1, 9] += 1\n            issued = 0\n"),
    ("                    w += base\n                    rw = W[w, W_READY]\n",
     "                    w += base\n                    chan_cal[chan_cal.shape[0] - 1, 10] += 1\n"
     "                    rw = W[w, W_READY]\n"),
    ("            if issued > 0 or retired_here:\n                SM[s, SM_NEXT] = t + 1\n",
     "            if issued > 0:\n                chan_cal[chan_cal.shape[0] - 1, 11] += 1\n"
     "            if issued > 0 or retired_here:\n                SM[s, SM_NEXT] = t + 1\n"),
]
# a second scan of the SM's warp slots at every visit (--rescan)
RESCAN_PATCH = ("            if issued > 0 or retired_here:\n                SM[s, SM_NEXT] = t + 1\n",
                "            dm = INF\n            for w in range(base, base + MAXW):\n"
                "                if W[w, W_READY] < dm and W[w, W_STATUS] == WS_RUN:\n"
                "                    dm = W[w, W_READY]\n"
                "            chan_cal[chan_cal.shape[0] - 1, 0] += dm & 1\n"
                "            if issued > 0 or retired_here:\n                SM[s, SM_NEXT] = t + 1\n")
# the calendars, one row more (sim/simulator.py)
SIMULATOR_PATCHES = [(f"self.{c} = np.zeros(({n}, E.CAL_WIDTH), np.int64)",
                      f"self.{c} = np.zeros(({n} + 1, E.CAL_WIDTH), np.int64)")
                     for c, n in (("slice_cal", "cfg.l2_slices"), ("bank_cal", "nb"), ("chan_cal", "cfg.ch"))]


def patch(path: Path, replaces) -> None:
    text = path.read_text()
    for old, new in replaces:
        if text.count(old) != 1:
            sys.exit(f"{path.name}: {old!r} found {text.count(old)} times, not once")
        text = text.replace(old, new)
    path.write_text(text.replace("cache=True", "cache=False"))


def copied(tmp: Path, name: str, engine_patches):
    """The working tree's simulator module, copied to ``tmp/name`` with
    ``engine_patches`` and the calendars' extra row, imported."""
    shutil.copytree(ROOT / "pipeline_lib", tmp / name, ignore=shutil.ignore_patterns("__pycache__"))
    if not (tmp / "config").exists():
        (tmp / "config").symlink_to(ROOT / "config")          # the hardware schema
    patch(tmp / name / "sim" / "engine.py", engine_patches)
    patch(tmp / name / "sim" / "simulator.py", SIMULATOR_PATCHES)
    if str(tmp) not in sys.path:
        sys.path.insert(0, str(tmp))
    return importlib.import_module(name + ".sim.simulator")


def fastest_ratio(old, new, hw, trace, reps: int = 3) -> float:
    """Fastest time of simulator module ``new`` over that of ``old`` on
    ``trace``, the two run alternately (this machine's speed drifts)."""
    times = {id(old): [], id(new): []}
    for _ in range(reps):
        for sim in (old, new):
            t0 = time.perf_counter()
            sim.Simulator(hw, trace).run()
            times[id(sim)].append(time.perf_counter() - t0)
    return min(times[id(new)]) / min(times[id(old)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="*", type=Path,
                    default=[ROOT / "results" / "traces" / w for w in ("spmv-scalar", "lbm")])
    ap.add_argument("--hw", default="gpumech-baseline")
    ap.add_argument("--intervals", type=int, default=None,
                    help="calendar rows of this many intervals, cycles compared with the working tree's engine")
    ap.add_argument("--rescan", action="store_true", help="time a second scan of the warp slots at every visit")
    args = ap.parse_args()
    from pipeline_lib.sim import load_hardware
    from pipeline_lib.sim import simulator as own_simulator
    from pipeline_lib.sim.trace_reader import TraceDir
    Simulator = own_simulator.Simulator
    hw = load_hardware(args.hw)
    with tempfile.TemporaryDirectory() as tmp:
        from pipeline_lib.sim.engine import CAL_INTERVALS
        row = [(f"\nCAL_INTERVALS = {CAL_INTERVALS}\n", f"\nCAL_INTERVALS = {args.intervals}\n")] \
            if args.intervals else []
        simulator = copied(Path(tmp), NAME, ENGINE_PATCHES + row)
        rescan = copied(Path(tmp), NAME + "_rescan", [RESCAN_PATCH]) if args.rescan else None
        print(f"({args.hw}; per warp instruction issued; calendars: bookings, mean intervals held, "
              "appended or extended, searched, intervals looked at per search, overflows)")
        for path in args.traces:
            sim = simulator.Simulator(hw, TraceDir(path))
            result = sim.run()
            n = int(result.launches["warp_instrs"].sum())
            v = sim.chan_cal[-1]
            print(f"{path.name}: {n / 1e6:.2f} M warp instructions, {result.launches['cycles'].sum() / 1e6:.2f} M "
                  f"cycles; clock steps {v[8] / n:.2f}, SM visits {v[9] / n:.2f} ({v[11] / n:.2f} issuing), "
                  f"warp slots checked {v[10] / n:.1f}")
            for name in ("slice_cal", "bank_cal", "chan_cal"):
                c = getattr(sim, name)[-1]
                k = max(int(c[0]), 1)
                print(f"  {name:9s} {c[0] / 1e6:7.2f} M bookings, {c[1] / k:5.2f} intervals, "
                      f"{100 * c[2] / k:5.1f}% appended or extended, {100 * c[3] / k:5.1f}% searched, "
                      f"{c[4] / max(int(c[3]), 1):5.2f} looked at per search, {int(c[5])} overflows "
                      f"({100 * c[5] / k:.2f}%)", flush=True)
            if args.intervals:
                own = Simulator(hw, TraceDir(path)).run().launches.set_index("launch")["cycles"]
                new = result.launches.set_index("launch")["cycles"]
                print(f"  cycles with rows of {args.intervals} intervals: {100 * (new.sum() / own.sum() - 1):+.3f}% "
                      f"in total, at most {100 * ((new - own) / own).abs().max():.3f}% in a launch", flush=True)
            if rescan is not None:
                ratio = fastest_ratio(own_simulator, rescan, hw, TraceDir(path))
                print(f"  host time with a second scan at every visit: {ratio:.2f}x (fastest of 3 each)", flush=True)


if __name__ == "__main__":
    main()
