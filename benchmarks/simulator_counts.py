"""Event counts of the detailed simulator's engine: scheduler visits and calendar bookings.

    .venv/bin/python benchmarks/simulator_counts.py [trace_dir ...] [--hw NAME] [--intervals N] [--ticks]

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
  at which a warp issued, and the ready warp slots the round-robin
  scheduler tried (issued or found its unit busy), each per warp
  instruction issued;
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

With ``--ticks`` a second copy reads the host's time-stamp counter (LLVM's
``readcyclecounter``: ``rdtsc`` on x86, no performance counters needed)
around the parts of the engine and prints each part's share of the time
spent in ``run``: the clock's steps outside the SM visits (block dispatch,
the next visit's cycle), the visits outside the issues (the mask of ready
slots and its bookkeeping), the issues outside their cache path, the cache path outside
the L2 (L1 tags, MSHRs), the L2 and DRAM path outside the calendars, and
the three calendars' bookings.  Each reading of the counter lands in the
part it is taken in, so the short parts' shares are upper bounds.  The
readings time the parts as they run, with the host caches and branch
history the engine leaves them.

The script also measures what a reading costs (the mean ticks between
two back-to-back readings) and prints the readings taken per warp
instruction, which bound their share of the ticks.

The instrumented engine runs slower than the real one; the counts are
exact.  The round-robin scheduler's only: with ``--hw`` naming a
greedy-then-oldest scheduler the slots' count stays 0 and ``--ticks``
does not time the issues.
"""
import argparse
import importlib
import shutil
import sys
import tempfile
from pathlib import Path


ROOT = Path(__file__).resolve().parents[1]
NAME = "pipeline_lib_counts"

# the calendars' bookings in sim/engine.py (the slices' and channels' as bits, through book_ring)
SLICE = "    start = book_ring(slice_cal, sl, t + icnt, K[C_L2_SVC], G[G_CYCLE])\n"
BANK = "    start = _book(bank_cal, b, t, rm + np.int64(np.ceil(burst)), now)\n"
CHANNEL = "    slot = _book_slot(chan_cal, ch, np.int64(np.ceil((start + rm) / burst)), np.int64(now / burst))\n"
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
    # the slices and channels booked on the interval calendar, whose walk the counts describe: the same
    # starts and intervals as their calendar of bits (engine.book_bits; tests/test_simulator.py)
    (SLICE, SLICE.replace("book_ring", "_book")),
    (CHANNEL, "    slot = _book(chan_cal, ch, np.int64(np.ceil((start + rm) / burst)), 1, np.int64(now / burst))\n"),
    ("        nret = 0\n        for s in range(S):\n",
     "        nret = 0\n        chan_cal[chan_cal.shape[0] - 1, 8] += 1\n        for s in range(S):\n"),
    ("            base = s * MAXW\n            issued = 0\n",
     "            base = s * MAXW\n            chan_cal[chan_cal.shape[0] - 1, 9] += 1\n            issued = 0\n"),
    ("                    rw = SM[row, np.uint64(SM_READY + j)]\n",
     "                    chan_cal[chan_cal.shape[0] - 1, 10] += 1\n"
     "                    rw = SM[row, np.uint64(SM_READY + j)]\n"),
    # (and the slots tried in a batch, each of which found its unit busy)
    ("                    if fail != 0:\n                        tried_busy = True\n",
     "                    if fail != 0:\n                        tried_busy = True\n"
     "                        chan_cal[chan_cal.shape[0] - 1, 10] += popcount(fail)\n"),
    ("            if issued > 0 or retired_here:\n                G[G_SM_NEXT + s] = t + 1\n",
     "            if issued > 0:\n                chan_cal[chan_cal.shape[0] - 1, 11] += 1\n"
     "            if issued > 0 or retired_here:\n                G[G_SM_NEXT + s] = t + 1\n"),
]
# the time-stamp counter around the engine's parts (--ticks); each part's
# ticks are summed into a column of a calendar's extra row
CYCLES_INTRINSIC = '''

@intrinsic
def cycles(typingctx):
    """The host's time-stamp counter (llvm.readcyclecounter)."""
    def codegen(context, builder, sig, args):
        f = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), []),
                                           "llvm.readcyclecounter")
        return builder.call(f, [])
    return types.int64(), codegen
'''


READINGS = "chan_cal[chan_cal.shape[0] - 1, 30] += 2\n"     # two readings of the counter taken


def _timed(lines: str, column: int, cal: str = "chan_cal", indent: str = "") -> str:
    """``lines`` between two readings of the counter, the difference added to
    ``cal``'s extra row at ``column``."""
    return (f"{indent}c0 = cycles()\n{lines}"
            f"{indent}{cal}[{cal}.shape[0] - 1, {column}] += cycles() - c0\n{indent}{READINGS}")


# the issue step's one call of the L2 path (a load's L1 miss, a store, an atomic)
L2_CALL = ("                rdy = _l2(line, lsu, mode, C, G, L2, slice_cal, bank_cal, bank_row, chan_cal, burst, ST, PCST,\n"
           "                          pc if mode == 0 else -1)\n")
ISSUE_CALL = ("                    rc = _issue(w, s, t, C, G, W, B, SM, regready, t_pc, t_space, t_nreq, t_nthr,\n"
              "                                t_loff, t_lines, P, L1, mshr, L2, slice_cal,\n"
              "                                bank_cal, bank_row, chan_cal, burst, ST, PCST, ubbv)\n")
VISIT_END = ("            if stalls:\n                ST[ST_STALL0 + SM[s, SM_CAUSE]] += 1\n"
             "                SM[s, SM_SEEN] = t + 1\n")
TICK_PATCHES = [
    ("from ..intrinsics import lowest_bit, popcount, prefetch\n",
     "from ..intrinsics import lowest_bit, popcount, prefetch, cycles\n"),
    (SLICE, _timed(SLICE, 20, "slice_cal", "    ")),
    (BANK, _timed(BANK, 20, "bank_cal", "    ")),
    (CHANNEL, _timed(CHANNEL, 21, "chan_cal", "    ")),
    (L2_CALL, _timed(L2_CALL, 22, indent=" " * 16)),
    ("        seen = (ST[ST_MSHR_STALL], ST[ST_L2_MISS], ST[ST_L1_MISS] + ST[ST_L1_MERGE])\n",
     "        c_mem = cycles()\n        seen = (ST[ST_MSHR_STALL], ST[ST_L2_MISS], ST[ST_L1_MISS] + ST[ST_L1_MERGE])\n"),
    ("        SM[s, SM_LSU] = lsu\n",
     "        SM[s, SM_LSU] = lsu\n        chan_cal[chan_cal.shape[0] - 1, 23] += cycles() - c_mem\n"
     f"        {READINGS}"),
    (ISSUE_CALL, _timed(ISSUE_CALL, 24, indent=" " * 20)),
    ("            base = s * MAXW\n            issued = 0\n",
     "            c_visit = cycles()\n            base = s * MAXW\n            issued = 0\n"),
    (VISIT_END, VISIT_END + "            chan_cal[chan_cal.shape[0] - 1, 25] += cycles() - c_visit\n"
                            f"            {READINGS}"),
    ("    G[G_CALL_ISSUED] = 0\n    while True:\n", "    G[G_CALL_ISSUED] = 0\n    c_run = cycles()\n    while True:\n"),
    *[(f"            return {rc}",
       f"            chan_cal[chan_cal.shape[0] - 1, 26] += cycles() - c_run\n            {READINGS}"
       f"            return {rc}")
      for rc in ("RC_DONE, 0", "-1, 0", "RC_RETIRED, nret", "RC_BUDGET, 0")],     # every return of run()
]


def tick_shares(sim) -> list[tuple[str, float]]:
    """(part, share of ``run``'s ticks) from a --ticks copy's simulator."""
    c, sl, bk = sim.chan_cal[-1], sim.slice_cal[-1], sim.bank_cal[-1]
    run, visits, issues, cache, l2 = c[26], c[25], c[24], c[23], c[22]
    books = sl[20] + bk[20] + c[21]
    parts = [("clock steps outside the SM visits", run - visits), ("SM visits outside the issues", visits - issues),
             ("issues outside their cache path", issues - cache), ("cache path outside the L2", cache - l2),
             ("L2 and DRAM path outside the calendars", l2 - books), ("L2 slice bookings", sl[20]),
             ("DRAM bank bookings", bk[20]), ("DRAM channel bookings", c[21])]
    return [(name, ticks / run) for name, ticks in parts]


# the calendars, one row more (sim/simulator.py)
SIMULATOR_PATCHES = [(f"self.{c} = np.zeros(({n}, E.{w}), np.int64)",
                      f"self.{c} = np.zeros(({n} + 1, E.{w}), np.int64)")
                     for c, n, w in (("slice_cal", "cfg.l2_slices", "RING_WIDTH"), ("bank_cal", "nb", "CAL_WIDTH"),
                                     ("chan_cal", "cfg.ch", "RING_WIDTH"))]


def patch(path: Path, replaces) -> None:
    text = path.read_text()
    for old, new in replaces:
        if text.count(old) != 1:
            sys.exit(f"{path.name}: {old!r} found {text.count(old)} times, not once")
        text = text.replace(old, new)
    path.write_text(text.replace("cache=True", "cache=False"))


def copied(tmp: Path, name: str, engine_patches, intrinsics: str = ""):
    """The working tree's simulator module, copied to ``tmp/name`` with
    ``engine_patches``, the calendars' extra row and ``intrinsics``
    appended to its intrinsics module, imported."""
    shutil.copytree(ROOT / "pipeline_lib", tmp / name, ignore=shutil.ignore_patterns("__pycache__"))
    if not (tmp / "config").exists():
        (tmp / "config").symlink_to(ROOT / "config")          # the hardware schema
    patch(tmp / name / "sim" / "engine.py", engine_patches)
    patch(tmp / name / "sim" / "simulator.py", SIMULATOR_PATCHES)
    module = tmp / name / "intrinsics.py"
    module.write_text(module.read_text() + intrinsics)
    if str(tmp) not in sys.path:
        sys.path.insert(0, str(tmp))
    return importlib.import_module(name + ".sim.simulator")


def reading_ticks(name: str, pairs: int = 10_000_000) -> float:
    """Mean ticks between two back-to-back readings of the counter, with the
    ``cycles`` intrinsic of the --ticks copy ``name``: what one reading
    adds to the part it is taken in."""
    from numba import njit
    cycles = importlib.import_module(name + ".intrinsics").cycles

    @njit
    def pairs_apart(n):
        s = 0
        for _ in range(n):
            c0 = cycles()
            s += cycles() - c0
        return s
    pairs_apart(10)
    return pairs_apart(pairs) / pairs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="*", type=Path,
                    default=[ROOT / "results" / "traces" / w for w in ("spmv-scalar", "lbm")])
    ap.add_argument("--hw", default="gpumech-baseline")
    ap.add_argument("--intervals", type=int, default=None,
                    help="calendar rows of this many intervals, cycles compared with the working tree's engine")
    ap.add_argument("--ticks", action="store_true", help="each part's share of the engine's time, by the time-stamp counter")
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
        ticks = copied(Path(tmp), NAME + "_ticks", TICK_PATCHES, CYCLES_INTRINSIC) if args.ticks else None
        print(f"({args.hw}; per warp instruction issued; calendars: bookings, mean intervals held, "
              "appended or extended, searched, intervals looked at per search, overflows)")
        for path in args.traces:
            trace = TraceDir(path)       # its launches decoded once, for every copy below
            sim = simulator.Simulator(hw, trace)
            result = sim.run()
            n = int(result.launches["warp_instrs"].sum())
            v = sim.chan_cal[-1]
            print(f"{path.name}: {n / 1e6:.2f} M warp instructions, {result.launches['cycles'].sum() / 1e6:.2f} M "
                  f"cycles; clock steps {v[8] / n:.2f}, SM visits {v[9] / n:.2f} ({v[11] / n:.2f} issuing), "
                  f"ready warp slots tried {v[10] / n:.2f}")
            for name in ("slice_cal", "bank_cal", "chan_cal"):
                c = getattr(sim, name)[-1]
                k = max(int(c[0]), 1)
                print(f"  {name:9s} {c[0] / 1e6:7.2f} M bookings, {c[1] / k:5.2f} intervals, "
                      f"{100 * c[2] / k:5.1f}% appended or extended, {100 * c[3] / k:5.1f}% searched, "
                      f"{c[4] / max(int(c[3]), 1):5.2f} looked at per search, {int(c[5])} overflows "
                      f"({100 * c[5] / k:.2f}%)", flush=True)
            if args.intervals:
                own = Simulator(hw, trace).run().launches.set_index("launch")["cycles"]
                new = result.launches.set_index("launch")["cycles"]
                print(f"  cycles with rows of {args.intervals} intervals: {100 * (new.sum() / own.sum() - 1):+.3f}% "
                      f"in total, at most {100 * ((new - own) / own).abs().max():.3f}% in a launch", flush=True)
            if ticks is not None:
                timed = ticks.Simulator(hw, trace)
                timed.run()
                run, readings = timed.chan_cal[-1, 26], timed.chan_cal[-1, 30]
                apart = reading_ticks(NAME + "_ticks")
                print(f"  time-stamp ticks in run(): {run / n:.0f} per warp instruction; {readings / n:.1f} readings "
                      f"per warp instruction at {apart:.1f} ticks between two back-to-back ones "
                      f"(at most {100 * readings * apart / run:.0f}% of the ticks, less where the host "
                      "overlaps them with the work around them)", flush=True)
                for part, share in tick_shares(timed):
                    print(f"    {part:40s} {100 * share:5.1f}%", flush=True)


if __name__ == "__main__":
    main()
