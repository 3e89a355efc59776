"""Numba core of the cycle-level timing simulator (docs/simulator.md).

One call of :func:`run` advances the whole GPU through one kernel launch (or
part of it: it returns early when a block retires and the caller asked to
watch retirements, or after an instruction budget for progress output), and
resumes from the state arrays on the next call.

Timing model in brief (the reasons are in docs/simulator.md):

* Core side, cycle by cycle: per SM a set of warp slots, in-order issue per
  warp, a per-warp register scoreboard (ready cycle of every register),
  up to ``issue_width`` warps issued per cycle by a round-robin or
  greedy-then-oldest scheduler, ``bar.sync`` per block, one load/store unit
  that handles one 128-byte line per cycle and one shared-memory pipeline that
  handles one bank-conflict way per cycle.
* Memory side, by reservation: when a request leaves the SM its path through
  the L1 (tags, MSHRs), the interconnect, an L2 slice (tags and a calendar of
  booked cycles per slice) and DRAM (a calendar per bank and per channel data
  bus, open-row state per bank) is computed at once and yields the cycle its
  data returns; queueing appears as requests finding the cycles after their
  arrival booked.  The
  register the load writes becomes ready at that cycle.
* Event skipping: every warp carries the earliest cycle it can issue; an SM
  with no issuable warp is not visited until then, and the clock jumps to the
  earliest such cycle of all SMs, so memory stalls cost no host time.

All state lives in arrays owned by :class:`pipeline_lib.sim.simulator.Simulator`;
field indices are the constants below.
"""
import dataclasses

import numpy as np
from numba import njit

from ..intrinsics import lowest_bit, popcount, prefetch
from .hardware import field_value, l2_service_cycles
# the per-PC static table P, its instruction kinds and the trace's memory
# spaces: the public interface shared with GPUMech (static.py)
from .static import (K_ATOM, K_BAR, K_BRANCH, K_EXIT, K_LOAD, K_STORE, P_CLS, P_GBB, P_KIND, P_LAT, P_NDST, P_NSRC,
                     P_SRC, SP_CONST, SP_GLOBAL, SP_LOCAL, SP_MIXED, SP_PARAM, SP_SHARED)

INF = np.int64(1) << 60

# The integer configuration C[...], declared once: each entry names its
# index constant and says where its value comes from -- a dotted field of
# the hardware configuration (the schema's default where a file omits it,
# hardware.field_value), a function of the configuration, or None for what
# the simulator sets per launch or per run.  The C_* constants are the
# entries' positions, made module globals below (numba compiles them in as
# constants), so a new hardware parameter is one line here, its schema
# entry and its use in the engine (docs/hardware.md).
CONFIG_FIELDS = (
    ("C_CORES", "cores"),
    ("C_MAXW", "sm_limits.warps"),
    ("C_MAXB", "sm_limits.blocks"),
    ("C_IW", "issue_width"),
    ("C_GTO", lambda hw: 1 if hw["scheduler"] == "gto" else 0),
    ("C_L1_SETS", lambda hw: hw["l1"]["size_bytes"] // (hw["l1"]["line_bytes"] * hw["l1"]["assoc"])),
    ("C_L1_WAYS", "l1.assoc"),
    ("C_L1_LAT", "l1.hit_latency"),
    ("C_MSHR", "l1.mshrs"),
    ("C_L1_PORTS", "l1.lines_per_cycle"),
    ("C_L2_SETS", lambda hw: hw["l2"]["size_bytes"] // (hw["l2"]["line_bytes"] * hw["l2"]["assoc"]
                                                        * hw["l2"]["slices"])),
    ("C_L2_WAYS", "l2.assoc"),
    ("C_L2_LAT", "l2.hit_latency"),
    ("C_L2_SLICES", "l2.slices"),
    ("C_L2_SVC", l2_service_cycles),
    ("C_L2_HASH", lambda hw: 1 if field_value(hw, "l2.slice_hash") == "xor" else 0),
    ("C_ICNT", "interconnect_latency"),
    ("C_CH", "dram.channels"),
    ("C_BANKS", "dram.banks"),
    ("C_DRAM_LAT", "dram.latency"),
    ("C_ROW_MISS", "dram.row_miss_latency"),
    ("C_ROW_OPEN", lambda hw: 1 if hw["dram"]["row_policy"] == "open" else 0),
    ("C_PAGE_LINES", lambda hw: max(1, hw["dram"]["page_bytes"] // hw["l2"]["line_bytes"])),
    ("C_SMEM_LAT", "latency.shared"),
    ("C_CONST_LAT", "latency.const"),
    ("C_BRANCH_LAT", "latency.branch"),
    ("C_BAR_LAT", "latency.barrier"),
    ("C_OCC", None), ("C_WPB", None), ("C_NBLOCKS", None), ("C_UNIT", None), ("C_WATCH", None),
    ("C_BUDGET", None), ("C_WARM", None), ("C_STALLS", None),
)
globals().update({name: i for i, (name, _) in enumerate(CONFIG_FIELDS)})
C_N = len(CONFIG_FIELDS)

# The engine reads the hardware's structure -- the cache and DRAM geometry,
# the latencies, the issue width -- from K, a tuple compiled in as
# constants, and the rest from C at run time: with the set, slice and bank
# counts known to the compiler its divisions become multiplications, and
# its set walks have a known length (docs/simulator.md, Speed).  Read at run time are
# what a hardware variant changes (hardware.VARIANT_FIELDS: the SM count,
# the warps per SM, the scheduler, the MSHRs, and the clocks through DRAM's
# latencies in core cycles; the burst is the argument ``burst``), so that
# one compiled engine serves a whole sweep, and what the simulator sets per
# launch or run.
RUNTIME_FIELDS = frozenset({"C_CORES", "C_MAXW", "C_GTO", "C_MSHR", "C_DRAM_LAT", "C_ROW_MISS"}
                           | {name for name, source in CONFIG_FIELDS if source is None})

#: The structural entries of C (:func:`structure`).  This module is the
#: template: ``specialized.engine_for`` imports a copy of it with the line
#: below replaced by one hardware's values, and runs that copy; here the
#: functions that read K do not compile.
K = None


def structure(C) -> tuple:
    """K for the configuration vector ``C``: its entries, with those read at
    run time (:data:`RUNTIME_FIELDS`) set to 0."""
    return tuple(0 if name in RUNTIME_FIELDS else int(C[i]) for i, (name, _) in enumerate(CONFIG_FIELDS))


def _from_hardware(cls, hw: dict) -> "EngineConfig":
    """The engine configuration of hardware ``hw`` (a validated hardware
    dict, optional fields at the schema's defaults)."""
    values = {}
    for name, source in CONFIG_FIELDS:
        if source is not None:
            values[name[2:].lower()] = int(field_value(hw, source) if isinstance(source, str) else source(hw))
    return cls(**values)


def _vector(self) -> np.ndarray:
    """C[...]: every hardware-derived entry filled, the per-launch ones 0."""
    C = np.zeros(C_N, np.int64)
    for i, (name, source) in enumerate(CONFIG_FIELDS):
        if source is not None:
            C[i] = getattr(self, name[2:].lower())
    return C


#: The hardware as the engine sees it: a frozen record with one integer
#: attribute per hardware-derived entry of CONFIG_FIELDS, named by its index
#: constant without ``C_`` in lower case (``C_L1_SETS`` -> ``l1_sets``);
#: generated from the table, so a new parameter adds no line here.
#: ``EngineConfig.from_hardware(hw)`` builds it, ``.vector()`` gives C.
EngineConfig = dataclasses.make_dataclass(
    "EngineConfig", [(name[2:].lower(), int) for name, source in CONFIG_FIELDS if source is not None], frozen=True,
    namespace={"from_hardware": classmethod(_from_hardware), "vector": _vector, "__module__": __name__})


def config_vector(hw: dict) -> np.ndarray:
    """C[...] for hardware ``hw``: every hardware-derived entry of
    :data:`CONFIG_FIELDS` filled, the per-launch ones 0."""
    return EngineConfig.from_hardware(hw).vector()


# warp slot fields W[slot, ...]
# (a warp's ready cycle is not here but in its SM's row: SM[s, SM_READY + slot within the SM])
W_POS, W_END, W_STATUS, W_BSLOT, W_AGE, W_N = range(6)
WS_FREE, WS_RUN, WS_BAR = 0, 1, 2
# the unit an instruction needs (_unit_busy)
U_NONE, U_LSU, U_SMEM = 0, 1, 2

# block slot fields B[slot, ...]
B_ID, B_LIVE, B_ARRIVED, B_N = range(4)

# SM fields SM[s, ...]
# (SM_SEEN, SM_CAUSE: the first cycle not yet in the stall breakdown and the category it continues with)
# (SM_READY: the first of MAXW columns, the ready cycle of each of the SM's warp slots -- the earliest
# cycle its next instruction can issue, INF for a free slot or one waiting at a barrier: one row that
# a visit reads in one pass, where a field of the warp table's rows had taken a host cache line a warp)
# (SM_ON_LSU, SM_ON_SMEM: masks of the warp slots whose next instruction needs the load/store unit or
# the shared-memory pipe, bit j for slot j: set when a try first looks at the instruction (_unit_busy),
# cleared when the warp issues it, so that a set bit is a running warp's.  A memory-bound SM tries many
# ready warps that find the unit busy, and the masks answer those tries together from the SM's row,
# where each try read the unit kept in the warp's row, a host cache miss a try: docs/simulator.md, Speed)
(SM_LAST, SM_NBLK, SM_LSU, SM_SMEM, SM_PENDING, SM_INSTRS, SM_BLOCKS, SM_SEEN, SM_CAUSE, SM_ON_LSU, SM_ON_SMEM,
 SM_READY) = range(12)
#: warp slots per SM at most: one bit each in the schedulers' mask of ready slots (run)
MAX_WARPS = 64

# global scalars G[...]
(G_CYCLE, G_NEXT_BLOCK, G_DONE_BLOCKS, G_ISSUED, G_STAMP, G_AGE, G_UNIT_START, G_UNIT_COUNT,
 G_NUNITS, G_LAUNCH_START, G_RR_SM, G_CALL_ISSUED,
 # cache counters over the whole run (the units table takes their differences)
 G_L1_ACC, G_L1_MISS, G_L2_ACC, G_L2_MISS, G_N) = range(17)
# then G[G_SM_NEXT + s]: the cycle of SM s's next visit, side by side for the clock's pass over the SMs
G_SM_NEXT = G_N

# statistics ST[...] (per launch; the caller resets them)
(ST_WARP, ST_THREAD, ST_REG_R, ST_REG_W, ST_L1_ACC, ST_L1_MISS, ST_L1_MERGE, ST_L1_STORE,
 ST_L2_ACC, ST_L2_MISS, ST_DRAM_RD, ST_DRAM_WR, ST_ROW_ACT, ST_ROW_HIT, ST_SHARED, ST_CONST,
 ST_LOADS, ST_LOAD_LAT, ST_ATOM_LINES, ST_SKIP_BLOCKS, ST_SKIP_WARP, ST_SKIP_THREAD,
 ST_MSHR_STALL, ST_CLASS0) = range(24)
N_CLASSES = 13
# The stall breakdown (docs/simulator.md): every cycle of every SM in one
# category, ST[ST_STALL0 + category]: an instruction issued (BASE), else what
# the warp that can issue first waits for -- a compute or branch result
# (DEP), a load served by the L1, the L2 or DRAM (by its slowest line), a
# load that waited for an MSHR, the busy load/store unit or shared-memory
# pipe -- or no warp on the SM (IDLE).
(STALL_BASE, STALL_DEP, STALL_L1, STALL_L2, STALL_DRAM, STALL_MSHR, STALL_LSU, STALL_SMEM, STALL_IDLE,
 N_STALL) = range(10)
STALL_NAMES = ("BASE", "DEP", "L1", "L2", "DRAM", "MSHR", "LSU", "SMEM", "IDLE")
ST_STALL0 = ST_CLASS0 + N_CLASSES
ST_N = ST_STALL0 + N_STALL


# L1 arrays L1[field, sm, set * ways + way] and L2 arrays L2[field, slot]
L1_TAG, L1_LRU, L1_FILL = range(3)
L2_TAG, L2_LRU, L2_FILL, L2_DIRTY = range(4)

# per-PC statistics PCST[pc, ...]
PC_L1_ACC, PC_L1_MISS, PC_L2_ACC, PC_L2_MISS, PC_LOADS, PC_LAT, PC_N = range(7)

# block output BO[block, ...]
BO_SM, BO_DISPATCH, BO_RETIRE, BO_ISSUED_AT_DISPATCH, BO_ISSUED_AT_RETIRE, BO_SKIPPED, BO_N = range(7)

# unit output UO[u, ...]
# (UO_L1_ACC .. UO_L2_MISS: the G_ cache counters at the unit's end)
UO_END, UO_START, UO_INSTRS, UO_L1_ACC, UO_L1_MISS, UO_L2_ACC, UO_L2_MISS, UO_N = range(8)

# return codes of run()
RC_DONE, RC_RETIRED, RC_BUDGET = 0, 1, 2


# Calendars of the shared memory resources (L2 slices, DRAM banks, DRAM
# channel buses).  A request books the first free cycles at or after its
# arrival, whatever order the requests are booked in: the lines of a load
# whose load/store unit waits for an MSHR are booked when the instruction
# issues but arrive later, and with a single busy-until time per resource
# every earlier arrival from another SM queued behind them
# (docs/simulator.md).  cal[r, 0] holds the number of booked intervals of
# resource r, then cal[r, 1 + 2 i] and cal[r, 2 + 2 i] the start and end of
# interval i, sorted and disjoint; adjacent bookings merge, so a busy
# resource is one interval.
CAL_INTERVALS = 32
CAL_WIDTH = 3 + 2 * CAL_INTERVALS   # room for one interval more while merging


@njit(cache=True, _nrt=False, inline="always")
def _smallest_gap(cal, r, m):
    """The first interval of the row's ``m`` that the smallest gap follows."""
    g = 0
    for k in range(1, m - 1):
        if cal[r, 1 + 2 * (k + 1)] - cal[r, 2 + 2 * k] < cal[r, 1 + 2 * (g + 1)] - cal[r, 2 + 2 * g]:
            g = k
    return g


@njit(cache=True, _nrt=False)
def _book(cal, r, a, n, now):
    """Book ``n`` cycles (slots) of resource ``r`` from the first free run at
    or after ``a``; return its start.  Intervals that end by ``now`` (no
    request arrives before the current cycle) are forgotten.  When the
    calendar is full, the two intervals with the smallest gap merge (the gap
    is lost: an overestimate of the queueing; how often that happens and
    what it moves, in docs/simulator.md)."""
    m = cal[r, 0]
    drop = 0
    while drop < m and cal[r, 2 + 2 * drop] <= now:
        drop += 1
    if drop > 0:
        for i in range(2 * (m - drop)):
            cal[r, 1 + i] = cal[r, 1 + 2 * drop + i]
        m -= drop
    if m == 0 or cal[r, 2 * m] < a:                 # after every booking: the common case
        if m <= CAL_INTERVALS - 1:
            cal[r, 1 + 2 * m] = a
            cal[r, 2 + 2 * m] = a + n
            cal[r, 0] = m + 1
            return a
    elif cal[r, 2 * m] == a:
        cal[r, 2 * m] = a + n
        cal[r, 0] = m
        return a
    s = a
    i = 0
    while i < m:
        if cal[r, 2 + 2 * i] <= s:
            i += 1
            continue
        if cal[r, 1 + 2 * i] >= s + n:
            break
        s = cal[r, 2 + 2 * i]
        i += 1
    # intervals before i end by s; interval i (if any) starts at s + n or later
    prev = i > 0 and cal[r, 2 + 2 * (i - 1)] == s
    nxt = i < m and cal[r, 1 + 2 * i] == s + n
    if prev and nxt:
        cal[r, 2 + 2 * (i - 1)] = cal[r, 2 + 2 * i]
        for k in range(1 + 2 * i, 2 * m - 1):
            cal[r, k] = cal[r, k + 2]
        m -= 1
    elif prev:
        cal[r, 2 + 2 * (i - 1)] = s + n
    elif nxt:
        cal[r, 1 + 2 * i] = s
    else:
        for k in range(2 * m, 2 * i, -1):
            cal[r, k + 2] = cal[r, k]
        cal[r, 1 + 2 * i] = s
        cal[r, 2 + 2 * i] = s + n
        m += 1
        if m > CAL_INTERVALS:      # the row has room for one more: merge the smallest gap
            g = _smallest_gap(cal, r, m)
            cal[r, 2 + 2 * g] = cal[r, 2 + 2 * (g + 1)]
            for k in range(1 + 2 * (g + 1), 2 * m - 1):
                cal[r, k] = cal[r, k + 2]
            m -= 1
    cal[r, 0] = m
    return s


# A calendar's busy cycles as bits (:func:`book_bits`), for the L2 slices
# and the DRAM channels: the row is CAL_WIDTH entries of intervals, then
# the mode (0: bits, 1: intervals), the first word not yet cleared and the
# latest booked end, then RING_WORDS words of 64 cycles each, word w of the
# cycles at word w % RING_WORDS.
RING_WORDS = 64
RING_MODE, RING_CLEARED, RING_END = CAL_WIDTH, CAL_WIDTH + 1, CAL_WIDTH + 2
RING0 = CAL_WIDTH + 3
RING_WIDTH = RING0 + RING_WORDS
SPARSE_RUNS, DENSE_RUNS = 4, 8
ALL = np.int64(-1)


@njit(cache=True, _nrt=False, inline="always")
def _ring_word(cal, r, w):
    return cal[r, RING0 + (w & (RING_WORDS - 1))]


@njit(cache=True, _nrt=False, inline="always")
def _ring_busy(cal, r, x):
    """Whether cycle ``x`` is booked (``x`` within the ring)."""
    return (_ring_word(cal, r, x >> 6) >> (x & 63)) & 1 == 1


@njit(cache=True, _nrt=False, inline="always")
def _ring_last(cal, r):
    """The word of the row's latest booked cycle (the last word a walk of
    its runs reads)."""
    return (cal[r, RING_END] - 1) >> 6


@njit(cache=True, _nrt=False, inline="always")
def _ring_live(cal, r, w, now):
    """Word ``w`` (``now``'s or later) with the cycles before ``now`` taken
    as free: the runs that end after ``now``, the first clipped to it."""
    x = _ring_word(cal, r, w)
    return x & (ALL << (now & 63)) if w == now >> 6 else x


@njit(cache=True, _nrt=False)
def _ring_runs(cal, r, now):
    """Write the runs of busy cycles that end after ``now`` into the row's
    intervals, in order (the first one's start clipped to ``now``: no search
    or merge reads it), and return how many (the row holds 33)."""
    last = _ring_last(cal, r)
    m = 0
    inrun = False
    for w in range(now >> 6, last + 1):
        x = _ring_live(cal, r, w, now)
        pos = 0
        while True:
            y = (~x if inrun else x) & (ALL << pos)
            if y == 0:
                break
            pos = lowest_bit(y)
            if inrun:
                cal[r, 2 * m] = (w << 6) + pos
            elif m == CAL_INTERVALS + 1:
                return m + 1
            else:
                cal[r, 1 + 2 * m] = (w << 6) + pos
                m += 1
            inrun = not inrun
    if inrun:
        cal[r, 2 * m] = (last + 1) << 6
    return m


@njit(cache=True, _nrt=False, inline="always")
def _ring_count(cal, r, now):
    """:func:`_ring_runs`'s count where it is at most CAL_INTERVALS + 1,
    without listing the runs: each word's run starts counted at once (a
    busy cycle whose predecessor is free, the word before carrying in its
    last cycle), where the listing took a step per run end."""
    m = np.int64(0)
    carry = np.int64(0)        # the previous word's last cycle busy
    for w in range(now >> 6, _ring_last(cal, r) + 1):
        x = _ring_live(cal, r, w, now)
        m += popcount(x & ~((x << 1) | carry))
        carry = (x >> 63) & 1
    return m


@njit(cache=True, _nrt=False, inline="always")
def _ring_set(cal, r, lo, hi):
    """Mark cycles [lo, hi) busy, a word at a time."""
    last = (hi - 1) >> 6
    for w in range(lo >> 6, last + 1):
        bits = ALL << (lo & 63) if w == lo >> 6 else ALL
        if w == last and (hi & 63) != 0:
            bits &= ~(ALL << (hi & 63))
        cal[r, RING0 + (w & (RING_WORDS - 1))] |= bits


@njit(cache=True, _nrt=False, inline="always")
def _ring_clear(cal, r, w):
    """Free word ``w``, wholly before now, for the cycles a ring later."""
    cal[r, RING0 + (w & (RING_WORDS - 1))] = 0


@njit(cache=True, _nrt=False, inline="always")
def _ring_fits(cal, r, a, n):
    """The cycles of ``a``'s word, from ``a`` on, that start ``n`` (at most
    64) free ones within the word (bit i: cycle i of the word)."""
    x = ~_ring_word(cal, r, a >> 6) & (ALL << (a & 63))
    y = x
    for k in range(1, n):
        y &= np.int64(np.uint64(x) >> np.uint64(k))
    return y


@njit(cache=True, _nrt=False, inline="always")
def _ring_joins(cal, r, p, n, now, wend):
    """1 if a booking of [p, p + n) joins a run of busy cycles, the one
    after it or the one before (a run at ``now`` or before counts as new:
    :func:`_book` has forgotten a run that ends by now), else 0: whether
    it adds a run.  Two bit tests combined with no branch."""
    return np.int64(((p + n < wend << 6) & _ring_busy(cal, r, p + n)) | ((p > now) & _ring_busy(cal, r, p - 1)))


@njit(cache=True, _nrt=False, inline="always")
def book_ring(cal, r, a, n, now):
    """:func:`book_bits`, its commonest case compiled into the caller, with
    no branch on which cycles are free: a row held as bits with at most
    one word to clear (the one before ``now``'s, when the first booking
    after ``now`` enters a new word), the run found in ``a``'s own word (no
    run that crosses the word's end starts before one within it), and the
    row's bound on its runs left within its size.  Else the call, which
    each booking had been (its arguments passed on the stack), and whose
    walk tests each word for a free cycle and then for a busy one
    (docs/simulator.md, Speed).  The slices book through it compiled into
    the L2 path, where ``n`` is the constant service time, so the test of
    it and the loop of :func:`_ring_fits` fold away (as a call it measured
    3% slower); the channels through :func:`_book_slot`, a call of its own
    (compiled into both of the DRAM path's copies as well, the engine took
    29 s to compile against 19 s, for the same speed).  Its tests are
    combined by ``&`` and ``|``, not ``and`` and ``or``: whether a booking
    joins a run is what the host cannot predict, and each operand of a
    short-circuit had been a branch of its own (docs/simulator.md, Speed)."""
    cw = cal[r, RING_CLEARED]
    if (cw == (now >> 6) - 1) & (cal[r, RING_MODE] == 0):    # the word before now's to clear, as book_bits would
        _ring_clear(cal, r, cw)
        cw += 1
        cal[r, RING_CLEARED] = cw
    if (n <= 64) & (cal[r, RING_MODE] == 0) & (cw >= now >> 6) & (a >> 6 < cw + RING_WORDS):
        y = _ring_fits(cal, r, a, n)
        p = ((a >> 6) << 6) + lowest_bit(y)
        joins = _ring_joins(cal, r, p, n, now, cw + RING_WORDS)
        if (y != 0) & ((joins == 1) | (cal[r, 0] < CAL_INTERVALS)):
            _ring_set(cal, r, p, p + n)
            cal[r, RING_END] = max(cal[r, RING_END], p + n)
            cal[r, 0] += 1 - joins
            return p
    return book_bits(cal, r, a, n, now)


@njit(cache=True, _nrt=False)
def _book_slot(cal, r, a, now):
    """:func:`book_ring` of one slot (a DRAM channel's burst), a call of its
    own: where the channels had called :func:`book_bits` (docs/simulator.md,
    Speed)."""
    return book_ring(cal, r, a, 1, now)


@njit(cache=True, _nrt=False)
def book_bits(cal, r, a, n, now):
    """:func:`_book` on a calendar held as bits, for an arrival ``a`` at or
    after ``now``: the same start, the same intervals (the runs of busy
    cycles) and the same merge of the smallest gap when a booking makes a
    33rd.  The first free run at or after ``a`` is found in the words from
    ``a``'s on, where :func:`_book` walked the intervals one by one
    (docs/simulator.md, Speed).  A booking beyond the ring (RING_WORDS x 64
    cycles from ``now``'s word) turns the row into :func:`_book`'s
    intervals, and so does a count of SPARSE_RUNS runs or fewer (a short
    walk costs less than the bits); it goes back to bits when it holds
    DENSE_RUNS intervals or more and every one ends within the ring."""
    if cal[r, RING_MODE] == 0:
        cw = max(cal[r, RING_CLEARED], (now >> 6) - RING_WORDS)   # (each word once after a long pause)
        while cw < now >> 6:        # the words wholly before now
            _ring_clear(cal, r, cw)
            cw += 1
        cal[r, RING_CLEARED] = cw
        wend = cw + RING_WORDS      # the first word the ring cannot hold
        c = a
        while True:
            w = c >> 6
            free = ~_ring_word(cal, r, w) & (ALL << (c & 63)) if w < wend else ALL
            while free == 0:
                w += 1
                free = ~_ring_word(cal, r, w) if w < wend else ALL
            p = (w << 6) + lowest_bit(free)
            w = p >> 6
            busy = _ring_word(cal, r, w) & (ALL << (p & 63)) if w < wend else np.int64(0)
            while busy == 0 and (w + 1) << 6 < p + n and w < wend:
                w += 1
                busy = _ring_word(cal, r, w) if w < wend else np.int64(0)
            q = (w << 6) + lowest_bit(busy) if busy != 0 else p + n
            if q - p >= n:
                break
            c = q
        if p + n <= wend << 6:
            _ring_set(cal, r, p, p + n)
            if p + n > cal[r, RING_END]:
                cal[r, RING_END] = p + n
            # a run of its own may make a 33rd. cal[r, 0] bounds the runs from above (runs end and join,
            # but only such a booking adds one), so they are counted only when the bound passes the row's size
            if _ring_joins(cal, r, p, n, now, wend) == 0:
                cal[r, 0] += 1
                if cal[r, 0] > CAL_INTERVALS:
                    m = _ring_count(cal, r, now)
                    if m > CAL_INTERVALS or m <= SPARSE_RUNS:     # listed: to merge, or kept as intervals
                        m = _ring_runs(cal, r, now)
                    if m > CAL_INTERVALS:      # _book's merge of the smallest gap (the first of equal ones)
                        g = _smallest_gap(cal, r, m)
                        _ring_set(cal, r, cal[r, 2 + 2 * g], cal[r, 1 + 2 * (g + 1)])
                        m -= 1
                    cal[r, 0] = m
                    if m <= SPARSE_RUNS:     # the row already holds them as intervals
                        cal[r, RING_MODE] = 1
            return p
        cal[r, 0] = _ring_runs(cal, r, now)      # beyond the ring: the runs as intervals
        cal[r, RING_MODE] = 1
    s = _book(cal, r, a, n, now)
    m = cal[r, 0]
    if m >= DENSE_RUNS and cal[r, 2 * m] <= ((now >> 6) + RING_WORDS) << 6:      # back to bits
        for k in range(RING_WORDS):
            cal[r, RING0 + k] = 0
        for i in range(m):
            _ring_set(cal, r, max(cal[r, 1 + 2 * i], now), cal[r, 2 + 2 * i])
        cal[r, RING_CLEARED] = now >> 6
        cal[r, RING_END] = cal[r, 2 * m]
        cal[r, RING_MODE] = 0
    return s


#: the key of an empty way in :func:`set_lookup`: below every LRU stamp (a
#: warming probe's unknown entries carry -1)
EMPTY_WAY = np.int64(-(1 << 62))


@njit(cache=True, _nrt=False, inline="always")
def set_lookup(tags, lru, base, ways, line):
    """Look ``line`` up in the set of ``ways`` ways from ``base`` of a cache's
    ``tags`` and ``lru`` stamps: (the way that holds it or -1, the victim).
    The victim is the set's first empty way, else its least recently used
    (the first of equal stamps).  It is chosen with selects, not branches:
    which way holds the oldest stamp is what the host cannot predict, and
    the branches the scan took cost a misprediction at each new minimum."""
    victim = base
    vkey = np.int64(INF)     # the first way is older than this
    for i in range(base, base + ways):
        t = tags[i]
        if t == line:
            return i, victim
        k = EMPTY_WAY if t == -1 else lru[i]
        older = k < vkey
        victim = i if older else victim
        vkey = k if older else vkey
    return -1, victim


@njit(cache=True, _nrt=False, inline="always")
def _dram(line, t, now, is_write, C, bank_cal, bank_row, chan_cal, burst, ST):
    """Reserve DRAM for one 128-byte line requested at cycle ``t``; return the
    cycle its data is back at the L2.  Lines interleave across channels; the
    lines of a row (page) are consecutive in one channel and bank.  The bank
    is booked for the row-miss penalty (if any) and one burst from the first
    cycle it is free; the channel's data bus is divided into burst-long
    slots, and the transfer takes the first free slot after the row is open."""
    nch = K[C_CH]
    ch = line % nch
    local = line // nch
    bank = (local // K[C_PAGE_LINES]) % K[C_BANKS]
    row = local // (K[C_PAGE_LINES] * K[C_BANKS])
    b = ch * K[C_BANKS] + bank
    if K[C_ROW_OPEN] == 1 and bank_row[b] == row:
        ST[ST_ROW_HIT] += 1
        rm = 0
    else:
        rm = C[C_ROW_MISS]
        ST[ST_ROW_ACT] += 1
    bank_row[b] = row if K[C_ROW_OPEN] == 1 else -1
    start = _book(bank_cal, b, t, rm + np.int64(np.ceil(burst)), now)
    slot = _book_slot(chan_cal, ch, np.int64(np.ceil((start + rm) / burst)), np.int64(now / burst))
    data = slot * burst
    if is_write:
        ST[ST_DRAM_WR] += 1
    else:
        ST[ST_DRAM_RD] += 1
    return np.int64(np.ceil(data)) + C[C_DRAM_LAT]


@njit(cache=True, _nrt=False, inline="always")
def l2_slice(line, slices, hashed):
    """The L2 slice of a 128-byte ``line``: ``line mod slices``, or with
    ``hashed`` (``l2.slice_hash: xor``) of the line XOR-folded in 6-bit
    groups first, so that strides that are multiples of the slice count
    spread over the slices (docs/hardware.md).  The GPUMech collectors map
    lines with the same function."""
    if hashed == 1:
        line = line ^ (line >> 6) ^ (line >> 12) ^ (line >> 18)
    return line % slices


@njit(cache=True, _nrt=False, inline="always")
def _l2_touch(line, mode, G, L2):
    """Look ``line`` up in its L2 set: on a hit mark it most recently used
    (and dirty for a write or atomic, ``mode`` != 0) and return (way, -1);
    on a miss return (-1, the LRU or an empty way of the set)."""
    nsl, ways = K[C_L2_SLICES], K[C_L2_WAYS]
    base = (l2_slice(line, nsl, K[C_L2_HASH]) * K[C_L2_SETS] + (line // nsl) % K[C_L2_SETS]) * ways
    G[G_STAMP] += 1
    hit, victim = set_lookup(L2[L2_TAG], L2[L2_LRU], base, ways, line)
    if hit >= 0:
        L2[L2_LRU, hit] = G[G_STAMP]
        if mode != 0:
            L2[L2_DIRTY, hit] = 1
        return hit, -1
    return -1, victim


@njit(cache=True, _nrt=False, inline="always")
def _l2(line, t, mode, C, G, L2, slice_cal, bank_cal, bank_row, chan_cal, burst, ST, PCST, pc):
    """A request for ``line`` leaves an SM at cycle ``t``; mode 0 read (L1
    fill), 1 write (store), 2 atomic.  Returns the cycle the reply reaches the
    SM.  L2: write-back, write-allocate without fetch, LRU, one slice per line
    address modulo slices, each slice busy C_L2_SVC cycles per request
    (booked on the slice's calendar from the request's arrival)."""
    icnt = K[C_ICNT]
    nsl = K[C_L2_SLICES]
    sl = l2_slice(line, nsl, K[C_L2_HASH])
    start = book_ring(slice_cal, sl, t + icnt, K[C_L2_SVC], G[G_CYCLE])
    lookup_done = start + K[C_L2_LAT] - 2 * icnt
    ST[ST_L2_ACC] += 1
    G[G_L2_ACC] += 1
    if pc >= 0:
        PCST[pc, PC_L2_ACC] += 1
    hit, victim = _l2_touch(line, mode, G, L2)
    if hit >= 0:
        return max(lookup_done, L2[L2_FILL, hit]) + icnt
    ST[ST_L2_MISS] += 1
    G[G_L2_MISS] += 1
    if pc >= 0:
        PCST[pc, PC_L2_MISS] += 1
    if L2[L2_TAG, victim] != -1 and L2[L2_DIRTY, victim] == 1:
        _dram(L2[L2_TAG, victim], lookup_done, G[G_CYCLE], True, C, bank_cal, bank_row, chan_cal, burst, ST)
    L2[L2_TAG, victim] = line
    L2[L2_LRU, victim] = G[G_STAMP]
    if mode == 1:   # a store allocates the line without reading DRAM
        L2[L2_DIRTY, victim] = 1
        L2[L2_FILL, victim] = lookup_done
        return lookup_done + icnt
    ready = _dram(line, lookup_done, G[G_CYCLE], False, C, bank_cal, bank_row, chan_cal, burst, ST)
    L2[L2_DIRTY, victim] = 1 if mode == 2 else 0
    L2[L2_FILL, victim] = ready
    return ready + icnt


#: tag of a cache entry whose line is not known (:func:`warm_launch`'s probe)
UNKNOWN = -2


@njit(cache=True, _nrt=False)
def warm_block(blk, s, wpb, C, G, warp_off, t_pc, t_space, t_nreq, t_loff, t_lines, P, L1, L2, suspect):
    """Functional cache warming of a skipped block (TBPoint's sampling
    option, docs/simulator.md): its warps' global/local memory lines, warp
    by warp in trace order, update SM ``s``'s L1 and the L2 -- tags, LRU
    order and dirty bits under the policies of :func:`_l2` and the L1
    (loads allocate, stores write through, atomics at the L2) -- with no
    timing, no statistics and no DRAM traffic, so the next simulated block
    finds the lines a full run would have left.

    ``suspect`` (one entry per L2 way, or empty): when given, a line the L2
    allocates is marked 1 if its set still holds an :data:`UNKNOWN` entry
    then (the line might have been resident already, with a dirty bit the
    probe cannot know), else 0."""
    l1_sets, l1_ways = K[C_L1_SETS], K[C_L1_WAYS]
    for gw in range(blk * wpb, (blk + 1) * wpb):
        for r in range(warp_off[gw], warp_off[gw + 1]):
            kind = P[t_pc[r], P_KIND]
            sp = t_space[r]
            if not ((kind == K_LOAD or kind == K_STORE or kind == K_ATOM) and t_nreq[r] > 0 and
                    (sp == SP_GLOBAL or sp == SP_LOCAL or sp == SP_MIXED)):
                continue
            for j in range(t_loff[r], t_loff[r + 1]):
                line = t_lines[j] >> 7
                if kind == K_LOAD:
                    base = (line % l1_sets) * l1_ways
                    G[G_STAMP] += 1
                    hit, victim = set_lookup(L1[L1_TAG, s], L1[L1_LRU, s], base, l1_ways, line)
                    if hit >= 0:
                        L1[L1_LRU, s, hit] = G[G_STAMP]
                        continue
                    L1[L1_TAG, s, victim] = line
                    L1[L1_LRU, s, victim] = G[G_STAMP]
                    L1[L1_FILL, s, victim] = 0
                mode = 0 if kind == K_LOAD else (1 if kind == K_STORE else 2)
                way, victim = _l2_touch(line, mode, G, L2)
                if way < 0:
                    if len(suspect):
                        base = victim - victim % K[C_L2_WAYS]
                        suspect[victim] = 0
                        for i in range(base, base + K[C_L2_WAYS]):
                            if L2[L2_TAG, i] == UNKNOWN and i != victim:
                                suspect[victim] = 1
                    L2[L2_TAG, victim] = line
                    L2[L2_LRU, victim] = G[G_STAMP]
                    L2[L2_DIRTY, victim] = 0 if mode == 0 else 1
                    L2[L2_FILL, victim] = 0


@njit(cache=True, _nrt=False)
def warm_launch(n_blocks, wpb, C, G, warp_off, t_pc, t_space, t_nreq, t_loff, t_lines, P, L1, L2, suspect):
    """Functional warming of a whole skipped launch: block b on SM b mod
    cores, blocks in id order (:func:`warm_block`)."""
    for b in range(n_blocks):
        warm_block(b, b % C[C_CORES], wpb, C, G, warp_off, t_pc, t_space, t_nreq, t_loff, t_lines, P, L1, L2,
                   suspect)


#: children per node of the MSHR heap: the children of i are D i + 1 .. D i + D
HEAP_D = 4


@njit(cache=True, _nrt=False, inline="always")
def heap_replace_min(h, s, n, val):
    """Replace the smallest of the min-heap h[s, :n] by ``val`` (O(log n)).

    A heap of :data:`HEAP_D` children per node: half the levels of a binary
    heap, so half the tests of whether to go down one more, which the host
    cannot predict, and the smallest child chosen with selects (only the
    root is ever read, so any valid heap gives the same simulation).  Its
    positions are unsigned: no test for a negative index at each read.
    Compiled into its one caller, the issue step's L1 miss, where it was a
    call per miss (docs/simulator.md, Speed)."""
    row = np.uint64(s)
    m = np.uint64(n)
    i = np.uint64(0)
    while True:
        c = np.uint64(HEAP_D) * i + np.uint64(1)
        if c >= m:
            break
        k = c
        kv = h[row, c]
        if c + np.uint64(HEAP_D) <= m:
            # all HEAP_D children: a fixed number of selects, no loop to count
            for j in range(1, HEAP_D):
                v = h[row, c + np.uint64(j)]
                smaller = v < kv
                k = c + np.uint64(j) if smaller else k
                kv = v if smaller else kv
        else:
            for j in range(c + np.uint64(1), m):
                v = h[row, j]
                smaller = v < kv
                k = j if smaller else k
                kv = v if smaller else kv
        if kv >= val:
            break
        h[row, i] = kv
        i = k
    h[row, i] = val


@njit(cache=True, _nrt=False, inline="always")
def _ready_col(SM, s, w):
    """The column of SM ``s``'s row that holds warp slot ``w``'s ready cycle."""
    return SM_READY + w - s * (SM.shape[1] - SM_READY)


@njit(cache=True, _nrt=False, inline="always")
def _slots_ready_by(SM, row, n, t):
    """The mask of SM ``row``'s ``n`` warp slots whose ready cycle is at most
    ``t`` (bit j: slot j): one pass over the row, with no branch."""
    m = np.int64(0)
    for j in range(n):
        m |= np.int64(SM[row, np.uint64(SM_READY + j)] <= t) << j
    return m


@njit(cache=True, _nrt=False, inline="always")
def _blocked_slots(SM, s, t):
    """The mask of SM ``s``'s warp slots whose next instruction is known to
    need a unit busy at cycle ``t`` (the load/store unit's or the
    shared-memory pipe's slots, SM_ON_LSU and SM_ON_SMEM)."""
    m = np.int64(0)
    if SM[s, SM_LSU] > t:
        m |= SM[s, SM_ON_LSU]
    if SM[s, SM_SMEM] > t:
        m |= SM[s, SM_ON_SMEM]
    return m


@njit(cache=True, _nrt=False, inline="always")
def _wait_for_units(SM, s, row, n, fail):
    """Slots ``fail`` (a mask of :func:`_blocked_slots`) of SM ``s`` (its
    row ``row``) wait for their busy unit: each one's ready cycle becomes
    the cycle its unit frees, as :func:`_unit_busy` sets it.  One pass over
    the row with no branch (selects)."""
    lsu, smem, on_lsu = SM[s, SM_LSU], SM[s, SM_SMEM], SM[s, SM_ON_LSU]
    for j in range(n):
        c = np.uint64(SM_READY + j)
        v = lsu if (on_lsu >> j) & 1 != 0 else smem
        SM[row, c] = v if (fail >> j) & 1 != 0 else SM[row, c]


@njit(cache=True, _nrt=False, inline="always")
def _first_at_min(SM, row, n, fail, base, mn, mw):
    """(mn, mw) updated with slots ``fail`` of SM row ``row`` (one scheduler
    phase: their round-robin order is ascending), before they wait: the
    smallest ready cycle among them if below ``mn``, and the first slot
    (warp ``base + j``) that has it; else (mn, mw) unchanged."""
    m = INF
    for j in range(n):
        v = SM[row, np.uint64(SM_READY + j)]
        m = min(m, v if (fail >> j) & 1 != 0 else INF)
    if m < mn:
        return m, base + lowest_bit(fail & _slots_ready_by(SM, row, n, m))
    return mn, mw


@njit(cache=True, _nrt=False, inline="always")
def _regs_ready(w, r, pc, P, lo, hi, regready):
    """max(r, ready cycle of the registers in P[pc, lo:hi], -1 padded)."""
    for k in range(lo, hi):
        g = P[pc, k]
        if g < 0:
            break
        if regready[w, g] > r:
            r = regready[w, g]
    return r


@njit(cache=True, _nrt=False)
def _next_ready(w, t_min, pc, P, regready):
    """Earliest cycle >= t_min at which warp slot ``w`` can issue ``pc``
    (all source and destination registers ready: RAW and WAW)."""
    R = (P.shape[1] - P_SRC) // 2
    return _regs_ready(w, _regs_ready(w, t_min, pc, P, P_SRC, P_SRC + R, regready), pc, P,
                       P_SRC + R, P_SRC + 2 * R, regready)


@njit(cache=True, _nrt=False)
def _release_barrier(s, b, t, C, W, SM, t_pc, P, regready):
    base = s * C[C_MAXW]
    for w in range(base, base + C[C_MAXW]):
        if W[w, W_STATUS] == WS_BAR and W[w, W_BSLOT] == b:
            W[w, W_STATUS] = WS_RUN
            SM[s, SM_READY + w - base] = _next_ready(w, t + K[C_BAR_LAT], t_pc[W[w, W_POS]], P, regready)


@njit(cache=True, _nrt=False)
def _dispatch_one(s, t, C, G, W, B, SM, regready, warp_off, skip, BO, ST, blk_warp, blk_thread,
                  t_pc, t_space, t_nreq, t_loff, t_lines, P, L1, L2):
    """Dispatch the next block (in id order) to SM ``s`` at cycle ``t``.
    Blocks marked in ``skip`` are fast-forwarded: recorded, not simulated.
    Returns False when no block is left."""
    while G[G_NEXT_BLOCK] < C[C_NBLOCKS]:
        blk = G[G_NEXT_BLOCK]
        G[G_NEXT_BLOCK] += 1
        if skip[blk] != 0:
            BO[blk, BO_SM] = -1
            BO[blk, BO_DISPATCH] = t
            BO[blk, BO_RETIRE] = t
            BO[blk, BO_ISSUED_AT_DISPATCH] = G[G_ISSUED]
            BO[blk, BO_ISSUED_AT_RETIRE] = G[G_ISSUED]
            BO[blk, BO_SKIPPED] = 1
            ST[ST_SKIP_BLOCKS] += 1
            ST[ST_SKIP_WARP] += blk_warp[blk]
            ST[ST_SKIP_THREAD] += blk_thread[blk]
            G[G_DONE_BLOCKS] += 1
            if C[C_WARM] == 1:
                warm_block(blk, s, C[C_WPB], C, G, warp_off, t_pc, t_space, t_nreq, t_loff, t_lines, P, L1, L2,
                           L2[L2_FILL, :0])     # no probe: an empty view, as nothing here may allocate
            continue
        bbase = s * K[C_MAXB]
        bs = -1
        for i in range(bbase, bbase + K[C_MAXB]):
            if B[i, B_ID] < 0:
                bs = i
                break
        wpb = C[C_WPB]
        B[bs, B_ID] = blk
        B[bs, B_LIVE] = wpb
        B[bs, B_ARRIVED] = 0
        SM[s, SM_NBLK] += 1
        SM[s, SM_BLOCKS] += 1
        BO[blk, BO_SM] = s
        BO[blk, BO_DISPATCH] = t
        BO[blk, BO_ISSUED_AT_DISPATCH] = G[G_ISSUED]
        BO[blk, BO_SKIPPED] = 0
        wbase = s * C[C_MAXW]
        k = 0
        for w in range(wbase, wbase + C[C_MAXW]):
            if k == wpb:
                break
            if W[w, W_STATUS] != WS_FREE:
                continue
            gw = blk * wpb + k
            W[w, W_POS] = warp_off[gw]
            W[w, W_END] = warp_off[gw + 1]
            W[w, W_STATUS] = WS_RUN
            W[w, W_BSLOT] = bs
            W[w, W_AGE] = G[G_AGE]
            G[G_AGE] += 1
            SM[s, SM_READY + w - wbase] = t
            regready[w, :] = 0
            k += 1
            if W[w, W_POS] >= W[w, W_END]:   # a warp with no instructions
                W[w, W_STATUS] = WS_FREE
                SM[s, SM_READY + w - wbase] = INF
                B[bs, B_LIVE] -= 1
        if G[G_SM_NEXT + s] > t:
            G[G_SM_NEXT + s] = t
        return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def _slot_bit(SM, s, w):
    """Warp slot ``w``'s bit in SM ``s``'s masks of slots."""
    return np.int64(1) << (_ready_col(SM, s, w) - SM_READY)


@njit(cache=True, _nrt=False, inline="always")
def _known_unit(SM, s, bit):
    """The unit that the next instruction of the warp slot whose bit is
    ``bit`` (:func:`_slot_bit`) needs, as far as SM ``s``'s masks know it:
    U_LSU, U_SMEM, else U_NONE (none, or not looked at yet)."""
    if SM[s, SM_ON_LSU] & bit != 0:
        return U_LSU
    if SM[s, SM_ON_SMEM] & bit != 0:
        return U_SMEM
    return U_NONE


@njit(cache=True, _nrt=False, inline="always")
def _unit_busy(w, s, t, W, SM, t_pc, t_space, t_nreq, P):
    """Structural hazard: True (and the warp's ready cycle moved to when the
    unit frees) if the next instruction of warp slot ``w`` needs the
    load/store unit or the shared-memory pipeline and it is busy at ``t``.
    Inlined into the scheduler loops: a memory-bound SM has many warps
    waiting for its load/store unit, and a full call of :func:`_issue` per
    failed attempt dominated host time; the unit is kept in the SM's masks
    (SM_ON_LSU, SM_ON_SMEM) because re-reading the trace arrays of a
    waiting warp missed the host caches."""
    bit = _slot_bit(SM, s, w)
    u = _known_unit(SM, s, bit)
    if u == U_NONE:
        r = W[w, W_POS]
        kind = P[t_pc[r], P_KIND]
        sp = t_space[r]
        if (kind == K_LOAD or kind == K_STORE or kind == K_ATOM) and t_nreq[r] > 0:
            if sp == SP_SHARED:
                u = U_SMEM
                SM[s, SM_ON_SMEM] |= bit
            elif sp == SP_GLOBAL or sp == SP_LOCAL or sp == SP_MIXED:
                u = U_LSU
                SM[s, SM_ON_LSU] |= bit
    if u == U_SMEM and SM[s, SM_SMEM] > t:
        SM[s, _ready_col(SM, s, w)] = SM[s, SM_SMEM]
        return True
    if u == U_LSU and SM[s, SM_LSU] > t:
        SM[s, _ready_col(SM, s, w)] = SM[s, SM_LSU]
        return True
    return False


@njit(cache=True, _nrt=False, inline="always")
def _issue(w, s, t, C, G, W, B, SM, regready, t_pc, t_space, t_nreq, t_nthr, t_loff, t_lines,
           P, L1, mshr, L2, slice_cal, bank_cal, bank_row, chan_cal, burst, ST, PCST, ubbv):
    """Issue the next instruction of warp slot ``w`` at cycle ``t`` (the
    caller has checked that its unit is free).  Returns 1, or 2 if the warp's
    block retired."""
    r = W[w, W_POS]
    pc = t_pc[r]
    kind = P[pc, P_KIND]
    sp = t_space[r]
    n = t_nreq[r]
    mem_path = kind == K_LOAD or kind == K_STORE or kind == K_ATOM
    cache_path = mem_path and n > 0 and (sp == SP_GLOBAL or sp == SP_LOCAL or sp == SP_MIXED)
    shared_path = mem_path and n > 0 and sp == SP_SHARED
    ST[ST_WARP] += 1
    ST[ST_THREAD] += t_nthr[r]
    ST[ST_REG_R] += P[pc, P_NSRC]
    ST[ST_REG_W] += P[pc, P_NDST]
    ST[ST_CLASS0 + P[pc, P_CLS]] += 1
    SM[s, SM_INSTRS] += 1
    G[G_ISSUED] += 1
    G[G_CALL_ISSUED] += 1
    ubbv[P[pc, P_GBB]] += 1
    G[G_UNIT_COUNT] += 1
    done = t + P[pc, P_LAT]
    next_min = t + 1
    cause = STALL_DEP
    # the slot's bit in the unit masks, set by the try that issues this instruction, is cleared
    # below: the next instruction's unit is not known until a try looks at it
    unit_bit = _slot_bit(SM, s, w)
    if cache_path:
        SM[s, SM_ON_LSU] &= ~unit_bit
        seen = (ST[ST_MSHR_STALL], ST[ST_L2_MISS], ST[ST_L1_MISS] + ST[ST_L1_MERGE])
        lsu = t
        in_cycle = 0     # lines the load/store unit has taken in cycle lsu
        l1_sets = K[C_L1_SETS]
        ways = K[C_L1_WAYS]
        if kind == K_LOAD:
            done = t + 1
            ST[ST_LOADS] += 1
            PCST[pc, PC_LOADS] += 1
        for j in range(t_loff[r], t_loff[r + 1]):
            line = t_lines[j] >> 7
            # the line's L2 request, if any: mode 0 an L1 miss's fill, 1 a store, 2 an atomic (one
            # call of _l2 for the three: each call is a copy of the memory path to compile)
            mode = -1
            rdy = lsu
            victim = 0
            if kind == K_LOAD:
                ST[ST_L1_ACC] += 1
                G[G_L1_ACC] += 1
                PCST[pc, PC_L1_ACC] += 1
                base = (line % l1_sets) * ways
                G[G_STAMP] += 1
                hit, victim = set_lookup(L1[L1_TAG, s], L1[L1_LRU, s], base, ways, line)
                if hit >= 0:
                    L1[L1_LRU, s, hit] = G[G_STAMP]
                    fill = L1[L1_FILL, s, hit]
                    if fill > lsu:   # merged into the pending miss of this line (no new MSHR)
                        ST[ST_L1_MERGE] += 1
                        rdy = max(fill, lsu + 1)
                    else:
                        rdy = lsu + K[C_L1_LAT]
                else:
                    ST[ST_L1_MISS] += 1
                    G[G_L1_MISS] += 1
                    PCST[pc, PC_L1_MISS] += 1
                    # the MSHR that frees first is the root of a min-heap of release cycles
                    if mshr[s, 0] > lsu:   # all MSHRs busy: the load/store unit waits
                        ST[ST_MSHR_STALL] += mshr[s, 0] - lsu
                        lsu = mshr[s, 0]
                        in_cycle = 0
                    mode = 0
            elif kind == K_STORE:
                # write-through, no allocate: the line goes to the L2
                ST[ST_L1_STORE] += 1
                mode = 1
            else:
                ST[ST_ATOM_LINES] += 1
                mode = 2
            if mode >= 0:
                rdy = _l2(line, lsu, mode, C, G, L2, slice_cal, bank_cal, bank_row, chan_cal, burst, ST, PCST,
                          pc if mode == 0 else -1)
            if mode == 0:
                heap_replace_min(mshr, s, C[C_MSHR], rdy)
                L1[L1_TAG, s, victim] = line
                L1[L1_LRU, s, victim] = G[G_STAMP]
                L1[L1_FILL, s, victim] = rdy
            if mode != 1 and rdy > done:
                done = rdy
            in_cycle += 1
            if in_cycle == K[C_L1_PORTS]:
                lsu += 1
                in_cycle = 0
        if in_cycle:
            lsu += 1
        SM[s, SM_LSU] = lsu
        if C[C_STALLS] == 0:
            pass
        elif ST[ST_MSHR_STALL] > seen[0]:
            cause = STALL_MSHR
        elif ST[ST_L2_MISS] > seen[1]:
            cause = STALL_DRAM
        elif ST[ST_L1_MISS] + ST[ST_L1_MERGE] > seen[2] or kind == K_ATOM:
            cause = STALL_L2
        else:
            cause = STALL_L1
        if kind == K_LOAD:
            ST[ST_LOAD_LAT] += done - t
            PCST[pc, PC_LAT] += done - t
    elif shared_path:
        SM[s, SM_ON_SMEM] &= ~unit_bit
        ST[ST_SHARED] += n
        done = t + K[C_SMEM_LAT] + n - 1
        SM[s, SM_SMEM] = t + n
    elif mem_path and (sp == SP_CONST or sp == SP_PARAM):
        ST[ST_CONST] += max(n, 1)
        done = t + K[C_CONST_LAT] + max(n, 1) - 1
    elif mem_path:    # no lane accessed memory (all predicated off)
        done = t + 1
    elif kind == K_BRANCH:
        next_min = done
    R = (P.shape[1] - P_SRC) // 2
    NR = regready.shape[1] // 2      # regready[w, NR + g]: the stall category of register g's producer
    for k in range(P_SRC + R, P_SRC + 2 * R):
        g = P[pc, k]
        if g < 0:
            break
        regready[w, g] = done
        if C[C_STALLS] == 1:
            regready[w, NR + g] = cause
    W[w, W_POS] = r + 1
    if r + 1 < W[w, W_END]:
        # the warp's next record (its first 16 line addresses), read when it is
        # next tried: the warps' records lie in separate stretches of the
        # trace, too many streams for the host's own prefetcher, and the warp
        # comes back after the others have had their turns (a hint only, in
        # bounds or not; no result depends on it)
        nx = t_loff[r + 1]
        prefetch(t_lines, nx)
        prefetch(t_lines, nx + 8)
        prefetch(t_loff, r + 2)
        prefetch(t_space, r + 1)
        prefetch(t_nreq, r + 1)
        prefetch(t_nthr, r + 1)
    bs = W[w, W_BSLOT]
    if kind == K_EXIT or r + 1 >= W[w, W_END]:
        W[w, W_STATUS] = WS_FREE
        SM[s, _ready_col(SM, s, w)] = INF
        B[bs, B_LIVE] -= 1
        if B[bs, B_LIVE] == 0:
            return 2
        if B[bs, B_ARRIVED] > 0 and B[bs, B_ARRIVED] == B[bs, B_LIVE]:   # exited warps count as arrived
            B[bs, B_ARRIVED] = 0
            _release_barrier(s, bs, t, C, W, SM, t_pc, P, regready)
        return 1
    if kind == K_BAR:
        B[bs, B_ARRIVED] += 1
        W[w, W_STATUS] = WS_BAR
        SM[s, _ready_col(SM, s, w)] = INF
        if B[bs, B_ARRIVED] == B[bs, B_LIVE]:
            B[bs, B_ARRIVED] = 0
            _release_barrier(s, bs, t, C, W, SM, t_pc, P, regready)
        return 1
    SM[s, _ready_col(SM, s, w)] = _next_ready(w, next_min, t_pc[r + 1], P, regready)
    return 1


@njit(cache=True, _nrt=False)
def _emit_unit(G, UO, UBBV, ubbv, t_end):
    u = G[G_NUNITS]
    UO[u, UO_END] = t_end
    UO[u, UO_START] = G[G_UNIT_START]
    UO[u, UO_INSTRS] = G[G_UNIT_COUNT]
    UO[u, UO_L1_ACC] = G[G_L1_ACC]
    UO[u, UO_L1_MISS] = G[G_L1_MISS]
    UO[u, UO_L2_ACC] = G[G_L2_ACC]
    UO[u, UO_L2_MISS] = G[G_L2_MISS]
    for k in range(ubbv.shape[0]):   # element loops: slice assignment needs the runtime (see run)
        UBBV[u, k] = ubbv[k]
        ubbv[k] = 0
    G[G_NUNITS] += 1
    G[G_UNIT_START] = t_end
    G[G_UNIT_COUNT] = 0


@njit(cache=True, _nrt=False)
def run(C, G, W, B, SM, regready, warp_off, skip, blk_warp, blk_thread, trace,
        P, L1, mshr, L2, slice_cal, bank_cal, bank_row, chan_cal, burst, ST, PCST, BO, UO, UBBV, ubbv, retired):
    """Advance the launch set up in the state arrays.  Returns (code, n):
    RC_DONE when every block has retired, RC_RETIRED with ``n`` blocks listed
    in ``retired`` when C[C_WATCH] is set and blocks retired in the last
    cycle, RC_BUDGET after C[C_BUDGET] issued instructions.  ``trace`` is the
    launch's decoded trace: (pc, space, nreq, nthreads, line_off, lines).
    The other arguments are the state arrays themselves, each read and
    written by name in the loop (so they stay separate parameters)."""
    t_pc, t_space, t_nreq, t_nthr, t_loff, t_lines = trace
    S = C[C_CORES]
    MAXW = C[C_MAXW]
    stalls = C[C_STALLS] == 1      # the stall breakdown is kept (docs/simulator.md)
    # Between cycles only a retirement frees a block slot and only a visit or a dispatch moves an SM's
    # next cycle, so the dispatch pass runs after cycles that retired a block, and the earliest next
    # cycle is kept from the visits, where each was a pass over every SM at every step (docs/simulator.md,
    # Speed).  On entry a sampling policy may have changed either: both are done in full.
    slots_freed = True
    tn = INF
    for s in range(S):
        if G[G_SM_NEXT + s] < tn:
            tn = G[G_SM_NEXT + s]
    G[G_CALL_ISSUED] = 0
    while True:
        t = G[G_CYCLE]
        # dispatch into freed block slots (also the launch's initial dispatch,
        # SM by SM in turn, so consecutive blocks go to consecutive SMs)
        more = slots_freed
        while more:
            more = False
            for k in range(S):
                s = G[G_RR_SM] + k
                if s >= S:
                    s -= S
                if SM[s, SM_PENDING] > 0 and G[G_NEXT_BLOCK] < C[C_NBLOCKS]:
                    SM[s, SM_PENDING] -= 1
                    if _dispatch_one(s, t, C, G, W, B, SM, regready, warp_off, skip, BO, ST,
                                     blk_warp, blk_thread, t_pc, t_space, t_nreq, t_loff, t_lines, P, L1, L2):
                        more = True
                        tn = min(tn, G[G_SM_NEXT + s])
        G[G_RR_SM] = 0
        if G[G_DONE_BLOCKS] >= C[C_NBLOCKS]:
            return RC_DONE, 0
        if tn >= INF:
            return -1, 0   # deadlock: no warp can ever issue (reported by the caller)
        t = max(t, tn)
        tn = INF
        nret = 0
        for s in range(S):
            if G[G_SM_NEXT + s] > t:
                tn = min(tn, G[G_SM_NEXT + s])
                continue
            if stalls and t > SM[s, SM_SEEN]:    # the cycles it sat out, in the category it stopped with
                ST[ST_STALL0 + SM[s, SM_CAUSE]] += t - SM[s, SM_SEEN]
            base = s * MAXW
            issued = 0
            retired_here = False
            # The slots ready at t, as a mask from one pass over the SM's row of ready cycles (vector
            # compares, no branch); the schedulers try its set bits, where a scan checked every slot in
            # turn and left at one the host cannot predict (docs/simulator.md, Speed).  No slot becomes
            # ready during the visit (an issued warp, one whose unit is busy and one a barrier releases
            # are all ready after t), so the mask holds to its end with the tried slots taken out.
            row = np.uint64(s)
            ready = _slots_ready_by(SM, row, MAXW, t)
            # whether a slot tried found its unit busy (the next visit is then the next cycle), and for
            # the stall breakdown the earliest ready cycle such slots had (each was ready at t) and the
            # first of them in round-robin order: the breakdown's warp
            tried_busy = False
            mn = INF
            mw = -1
            before = np.int64(0)     # the slots before the round-robin start
            if C[C_GTO] == 1:
                # greedy: the last issued warp while it can issue, then the oldest
                while issued < K[C_IW]:
                    cand = SM[s, SM_LAST]
                    if cand < 0 or (ready >> (cand - base)) & 1 == 0 or W[cand, W_STATUS] != WS_RUN:
                        cand = -1
                        oldest = INF      # the ages are distinct
                        m = ready
                        while m != 0:
                            u = np.uint64(base + lowest_bit(m))     # no test for a negative index
                            m &= m - 1
                            if W[u, W_STATUS] == WS_RUN and W[u, W_AGE] < oldest:
                                cand = np.int64(u)
                                oldest = W[u, W_AGE]
                    if cand < 0:
                        break
                    ready &= ~(np.int64(1) << (cand - base))
                    if _unit_busy(cand, s, t, W, SM, t_pc, t_space, t_nreq, P):
                        if cand == SM[s, SM_LAST]:
                            SM[s, SM_LAST] = -1
                        continue
                    rc = _issue(cand, s, t, C, G, W, B, SM, regready, t_pc, t_space, t_nreq, t_nthr,
                                t_loff, t_lines, P, L1, mshr, L2, slice_cal,
                                bank_cal, bank_row, chan_cal, burst, ST, PCST, ubbv)
                    issued += 1
                    retired_here |= rc == 2
                    nret = _after_issue(cand, s, t, rc, C, G, W, B, SM, BO, retired, nret, UO, UBBV, ubbv)
            else:
                # round robin from the slot after the last issued one, wrapping
                # (the slots at or after j0, hi, then those before, lo, each in ascending order)
                j0 = SM[s, SM_LAST] - base + 1 if SM[s, SM_LAST] >= 0 else 0
                before = (np.int64(1) << j0) - 1 if j0 < 64 else np.int64(-1)
                hi = ready & ~before
                lo = ready & before
                blocked = _blocked_slots(SM, s, t)
                while (hi | lo) != 0:
                    cur = hi if hi != 0 else lo
                    # The slots before the phase's first one that the unit masks do not show blocked (all
                    # of the phase's if none) are tried in one batch: each finds its unit busy and waits
                    # for it, as a try of its own had done, with no read of the warp's row or the trace
                    # (docs/simulator.md, Speed).  No test of a warp's status either: a ready slot's
                    # warp runs (a free slot and one waiting at a barrier are ready at INF).
                    free = cur & ~blocked
                    fail = cur if free == 0 else cur & ((np.int64(1) << lowest_bit(free)) - 1)
                    if fail != 0:
                        tried_busy = True
                        if stalls:
                            mn, mw = _first_at_min(SM, row, MAXW, fail, base, mn, mw)
                        _wait_for_units(SM, s, row, MAXW, fail)
                    rest = np.int64(0)      # the phase's slots after the one tried next
                    j = lowest_bit(free)
                    if free != 0:
                        rest = cur & ~fail & ~(np.int64(1) << j)
                    if hi != 0:
                        hi = rest
                    else:
                        lo = rest
                    if free == 0:
                        continue
                    w = base + j
                    rw = SM[row, np.uint64(SM_READY + j)]
                    # its unit looked up where the masks do not know it yet: it may be busy too
                    if _unit_busy(w, s, t, W, SM, t_pc, t_space, t_nreq, P):
                        tried_busy = True
                        if stalls and rw < mn:
                            mn = rw
                            mw = w
                        continue
                    rc = _issue(w, s, t, C, G, W, B, SM, regready, t_pc, t_space, t_nreq, t_nthr,
                                t_loff, t_lines, P, L1, mshr, L2, slice_cal,
                                bank_cal, bank_row, chan_cal, burst, ST, PCST, ubbv)
                    issued += 1
                    retired_here |= rc == 2
                    nret = _after_issue(w, s, t, rc, C, G, W, B, SM, BO, retired, nret, UO, UBBV, ubbv)
                    if issued >= K[C_IW]:
                        break
                    blocked = _blocked_slots(SM, s, t)
            if issued > 0 or retired_here:
                G[G_SM_NEXT + s] = t + 1
                if stalls:
                    SM[s, SM_CAUSE] = STALL_BASE if issued > 0 else STALL_IDLE
            else:
                if tried_busy:
                    # a slot tried found its unit busy: the next visit at the next cycle
                    G[G_SM_NEXT + s] = t + 1
                else:
                    # no slot tried: the next visit when the first one is ready (for the stall
                    # breakdown, the first of those in round-robin order)
                    for j in range(MAXW):
                        mn = min(mn, SM[row, np.uint64(SM_READY + j)])
                    if stalls and mn < INF:
                        at = _slots_ready_by(SM, row, MAXW, mn)     # those at the row's minimum
                        mw = base + lowest_bit(at & ~before if (at & ~before) != 0 else at)
                    G[G_SM_NEXT + s] = max(mn, t + 1)
                if stalls:
                    SM[s, SM_CAUSE] = _stall_cause(s, mw, W, SM, t_pc, P, regready)
            if stalls:
                ST[ST_STALL0 + SM[s, SM_CAUSE]] += 1
                SM[s, SM_SEEN] = t + 1
            tn = min(tn, G[G_SM_NEXT + s])
        slots_freed = nret > 0
        G[G_CYCLE] = t + 1
        if nret > 0 and C[C_WATCH] == 1:
            return RC_RETIRED, nret
        if G[G_CALL_ISSUED] >= C[C_BUDGET]:
            return RC_BUDGET, 0


@njit(cache=True, _nrt=False, inline="always")
def _stall_cause(s, mw, W, SM, t_pc, P, regready):
    """The stall category of an SM that issues nothing (``STALL_*``): what
    warp slot ``mw``, the one that can issue first (-1: none), waits for --
    the busy unit its next instruction needs, else the producer of its
    latest source or destination register (a branch or barrier delay counts
    as DEP); IDLE with no warp waiting.  Accounting only: it changes no
    state."""
    if mw < 0 or SM[s, _ready_col(SM, s, mw)] >= INF:
        return STALL_IDLE
    rdy = SM[s, _ready_col(SM, s, mw)]
    u = _known_unit(SM, s, _slot_bit(SM, s, mw))
    if u == U_LSU and SM[s, SM_LSU] >= rdy:
        return STALL_LSU
    if u == U_SMEM and SM[s, SM_SMEM] >= rdy:
        return STALL_SMEM
    pc = t_pc[W[mw, W_POS]]
    R = (P.shape[1] - P_SRC) // 2
    NR = regready.shape[1] // 2
    best, cause = -1, STALL_DEP
    for k in range(P_SRC, P_SRC + 2 * R):
        g = P[pc, k]
        if g < 0:
            continue
        if regready[mw, g] > best:
            best, cause = regready[mw, g], regready[mw, NR + g]
    return cause if best >= rdy else STALL_DEP


@njit(cache=True, _nrt=False, inline="always")
def _after_issue(w, s, t, rc, C, G, W, B, SM, BO, retired, nret, UO, UBBV, ubbv):
    """Bookkeeping after warp slot ``w`` issued: scheduler state, block
    retirement (rc == 2), sampling-unit boundary.  Returns the new count of
    blocks retired in this cycle."""
    SM[s, SM_LAST] = w
    if rc == 2:
        _retire(w, s, t, C, G, W, B, SM, BO, retired, nret)
        nret += 1
    if G[G_UNIT_COUNT] >= C[C_UNIT]:
        _emit_unit(G, UO, UBBV, ubbv, t + 1)
    return nret


@njit(cache=True, _nrt=False)
def _retire(w, s, t, C, G, W, B, SM, BO, retired, nret):
    bs = W[w, W_BSLOT]
    blk = B[bs, B_ID]
    BO[blk, BO_RETIRE] = t + 1
    BO[blk, BO_ISSUED_AT_RETIRE] = G[G_ISSUED]
    B[bs, B_ID] = -1
    SM[s, SM_NBLK] -= 1
    SM[s, SM_PENDING] += 1
    G[G_DONE_BLOCKS] += 1
    retired[nret] = blk
