"""The GPUMech multi-warp model (seed 000, chapter 4.4, eqs. 12 and 16-32)
and its Table 8 baselines, on the interval profile of one warp.

An interval profile (eq. 11) is a table with one row per interval:

``insts``
    instructions of the interval (issued back to back, one per cycle at
    issue rate 1);
``stall_cycles``
    cycles without issue after the interval's last instruction;
``mem_insts``, ``mem_reqs``
    global/local memory instructions of the interval and their 128-byte
    requests (after coalescing).

Optional columns refine the contention models (4.4.2; see
:func:`mshr_delay` and :func:`bandwidth_delay`): ``miss_reqs`` (expected
requests that miss the L1 and hold an MSHR) and ``dram_reqs`` (expected
requests that reach DRAM: L2 misses and write traffic).  Without them both
default to ``mem_reqs``, the seed's literal reading.  The CPI stack (4.7)
uses ``stall_dep``, ``stall_l1``, ``stall_l2``, ``stall_dram`` (the split of
``stall_cycles`` by cause) when present.

Every function takes plain numbers and arrays and returns plain numbers, so
that each equation is checked on hand-worked cases (tests/test_gpumech.py).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

PROFILE_COLUMNS = ["insts", "stall_cycles", "mem_insts", "mem_reqs"]
# optional: see the module docstring and pipeline_lib.gpumech.contention
OPTIONAL_COLUMNS = ("miss_reqs", "dram_reqs", "load_insts", "lsu_lines", "smem_ways", "l2_reqs")
STACK = ["BASE", "DEP", "L1", "L2", "DRAM", "MSHR", "QUEUE"]   # Table 9
POLICIES = ("rr", "gto")


class Profile(dict):
    """A validated interval profile: column name -> float array."""


def check_profile(profile, source: str = "interval profile") -> Profile:
    """Validate an interval profile (a DataFrame or a mapping of columns);
    returns it as a :class:`Profile` (validated once: passing a Profile
    back is free).  The error names the missing or bad column."""
    if isinstance(profile, Profile):
        return profile
    missing = [c for c in PROFILE_COLUMNS if c not in profile]
    if missing:
        raise ValueError(f"{source}: missing column(s) {', '.join(missing)} (need {', '.join(PROFILE_COLUMNS)})")
    cols = {c: np.asarray(profile[c], np.float64) for c in profile.keys()
            if c in PROFILE_COLUMNS or c.startswith("stall_") or c in OPTIONAL_COLUMNS}
    if len(cols["insts"]) == 0:
        raise ValueError(f"{source}: no intervals")
    checked = PROFILE_COLUMNS + [c for c in OPTIONAL_COLUMNS if c in cols]
    try:     # all the columns at once (this runs once per launch and model); per column only to name one
        m = np.stack([cols[c] for c in checked])
        ok = bool((m >= 0).all()) and bool(np.isfinite(m.sum()))     # NaN fails the first, inf the second
    except ValueError:       # columns of different lengths
        ok = False
    if not ok:
        for c in checked:
            v = cols[c]
            if not np.isfinite(v).all() or (v < 0).any():
                raise ValueError(f"{source}: column {c!r} must be finite and non-negative")
    if (cols["insts"] <= 0).any():
        raise ValueError(f"{source}: column 'insts' must be positive in every interval")
    return Profile(cols)


def _arr(profile, col):
    return np.asarray(profile[col], np.float64)


def interval_cycles(profile, issue_rate: float = 1.0) -> np.ndarray:
    """Cycles of each interval when its warp runs alone: insts / issue rate + stall cycles."""
    return _arr(profile, "insts") / issue_rate + _arr(profile, "stall_cycles")


def issue_prob(profile, issue_rate: float = 1.0) -> float:
    """Eq. 18 (= eq. 14's warp performance): the probability that a warp
    issues in a cycle, instructions over single-warp cycles."""
    return float(_arr(profile, "insts").sum() / interval_cycles(profile, issue_rate).sum())


def warp_perf(profile, issue_rate: float = 1.0) -> float:
    """Eq. 14: IPC of a warp running alone on a core."""
    return issue_prob(profile, issue_rate)


def nonoverlapped_rr(profile, warps: int, issue_rate: float = 1.0) -> np.ndarray:
    """Eqs. 19-20, round-robin: per interval, the expected instructions of the
    other warps issued in the interval's waiting slots,
    issue_prob x (warps - 1) x (insts - 1)."""
    slots = _arr(profile, "insts") - 1.0                       # eq. 19
    return issue_prob(profile, issue_rate) * (warps - 1) * slots  # eq. 20


def nonoverlapped_gto(profile, warps: int, issue_rate: float = 1.0) -> np.ndarray:
    """Eqs. 21-25, greedy-then-oldest: per interval, the instructions the
    other warps issue while the representative warp waits, beyond what its
    stall cycles hide."""
    insts = _arr(profile, "insts")
    stall = _arr(profile, "stall_cycles")
    p = issue_prob(profile, issue_rate)
    avg_interval_insts = insts.sum() / len(insts)                 # eq. 22
    prob_in_stall = np.minimum(p * stall, 1.0)                     # eq. 24
    warps_in_stall = prob_in_stall * (warps - 1)                   # eq. 23
    issued_in_stall = avg_interval_insts * warps_in_stall          # eq. 21
    return np.maximum(issued_in_stall - stall * issue_rate, 0.0)   # eq. 25


def cpi_multithreading(profile, warps: int, policy: str, issue_rate: float = 1.0) -> float:
    """Eqs. 16-17: (single-warp cycles + non-overlapped instructions / issue
    rate) over the instructions of all ``warps`` warps."""
    if policy not in POLICIES:
        raise ValueError(f"unknown scheduling policy {policy!r} (known: {', '.join(POLICIES)})")
    if warps < 1:
        raise ValueError(f"warps must be at least 1, got {warps}")
    non = nonoverlapped_rr if policy == "rr" else nonoverlapped_gto
    total_cycles = interval_cycles(profile, issue_rate).sum()
    total_non = non(profile, warps, issue_rate).sum()                               # eq. 17
    return float((total_cycles + total_non / issue_rate) / (warps * _arr(profile, "insts").sum()))  # eq. 16


def issue_bound(cpi: float, issue_rate: float = 1.0) -> float:
    """A core issues at most ``issue_rate`` instructions per cycle.

    *Deviation:* eq. 16 has no such bound: when warps x issue_prob exceeds
    1 it can give a CPI below 1 / issue rate (Fig. 24 under round-robin gives
    11/12 for 12 instructions that need 12 issue cycles).  :func:`predict`
    and :func:`cpi_stack` apply the bound to CPI_multithreading; the
    equations themselves stay literal.
    """
    return max(cpi, 1.0 / issue_rate)


def _sum_ceil(n: np.ndarray, m: int) -> np.ndarray:
    """sum_{j=1..n} ceil(j / m) in closed form: m q (q + 1) / 2 + r (q + 1), n = q m + r."""
    q, r = np.divmod(n.astype(np.int64), m)
    return m * q * (q + 1) / 2 + r * (q + 1)


def mshr_delay(profile, warps: int, mshrs: int, avg_miss_latency: float) -> np.ndarray:
    """Eqs. 27-29: per interval, the queuing delay of limited MSHRs.

    core_reqs = warp requests x warps (eq. 27); a request j waits
    avg_miss_latency x ceil(j / MSHRs), so the expected queuing delay is the
    mean of that over j = 1..core_reqs minus avg_miss_latency (eq. 28); it
    is charged once per memory instruction of the interval, and only when
    core_reqs exceeds the MSHRs (eq. 29).  Requests are ``miss_reqs`` when
    the profile has them (only L1 misses hold an MSHR), else ``mem_reqs``;
    the delay is charged per load (``load_insts``: stores and atomics hold
    no MSHR and the warp does not wait for a store) where the profile has
    them, else per memory instruction.  Expected request counts are rounded
    to whole requests.
    """
    reqs = _arr(profile, "miss_reqs" if "miss_reqs" in profile else "mem_reqs")
    core_reqs = np.rint(reqs * warps)                                               # eq. 27
    safe = np.maximum(core_reqs, 1)
    exp_delay = avg_miss_latency * _sum_ceil(safe, mshrs) / safe - avg_miss_latency  # eq. 28
    charged = _arr(profile, "load_insts" if "load_insts" in profile else "mem_insts")
    return np.where(core_reqs > mshrs, exp_delay * charged, 0.0)                    # eq. 29


def dram_service_cycles(core_clock_mhz: float, line_bytes: int, bandwidth_gbs: float) -> float:
    """s of eq. 31: core cycles to move one line over the DRAM bus, freq_core x L / B."""
    return core_clock_mhz * 1e6 * line_bytes / (bandwidth_gbs * 1e9)


def bandwidth_delay(profile, warps: int, cores: int, service_cycles: float, issue_rate: float = 1.0) -> np.ndarray:
    """Eqs. 30-32: per interval, the M/D/1 queuing delay of DRAM.

    lambda = core_reqs x cores / interval cycles (eq. 32), rho = lambda s
    (eq. 31), delay = min(lambda s^2 / (2 (1 - rho)), s x core_reqs x cores / 2)
    (eq. 30; the cap applies too when rho >= 1, where the M/D/1 delay is
    unbounded).  Requests are ``dram_reqs`` when the profile has them, else
    ``mem_reqs``.
    """
    reqs = _arr(profile, "dram_reqs" if "dram_reqs" in profile else "mem_reqs")
    all_reqs = reqs * warps * cores
    lam = all_reqs / interval_cycles(profile, issue_rate)                        # eq. 32
    rho = lam * service_cycles                                                   # eq. 31
    cap = service_cycles * all_reqs / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        md1 = np.where(rho < 1.0, lam * service_cycles ** 2 / (2.0 * (1.0 - rho)), np.inf)
    return np.minimum(md1, cap)                                                  # eq. 30


@dataclass(frozen=True)
class Contention:
    """Hardware inputs of the contention models: MSHRs per core, cores,
    average L2/DRAM latency of L1 misses (eq. 28) and the DRAM service time
    in core cycles (eq. 31)."""
    mshrs: int
    cores: int
    avg_miss_latency: float
    service_cycles: float


def cpi_contention(profile, warps: int, c: Contention, mshr: bool = True, bandwidth: bool = True,
                   issue_rate: float = 1.0) -> tuple[float, float]:
    """Eq. 26 split in its two parts: (MSHR CPI, DRAM-queue CPI).

    *Deviation:* eq. 26 divides the representative warp's queuing delays by
    that warp's instructions, a CPI per instruction of one warp, while eq.
    16's CPI_multithreading is per instruction of the core (warps x
    instructions).  The warps wait in the queues at the same time, so the
    core loses about one warp's delay per interval; we divide by warps x
    instructions so that eq. 12 adds two CPIs of the same unit.  (The
    literal form averaged several hundred per cent error on our suite;
    docs/gpumech.md.)
    """
    insts = _arr(profile, "insts").sum() * warps
    m = mshr_delay(profile, warps, c.mshrs, c.avg_miss_latency).sum() / insts if mshr else 0.0
    b = bandwidth_delay(profile, warps, c.cores, c.service_cycles, issue_rate).sum() / insts if bandwidth else 0.0
    return float(m), float(b)


def cpi_naive(profile, warps: int, issue_rate: float = 1.0) -> float:
    """Eq. 10 (Naive_Interval): core IPC = single-warp IPC x warps, so
    CPI = 1 / (warp_perf x warps), never below the issue limit 1 / issue rate."""
    return max(1.0 / (warp_perf(profile, issue_rate) * warps), 1.0 / issue_rate)


def cpi_markov_chain(profile, warps: int, issue_rate: float = 1.0) -> float:
    """Markov_Chain baseline (Table 8): the independent per-warp chain of
    seed 000, 3.4.1 (eq. 7) and 2.4, fed from the interval profile, as
    :mod:`pipeline_lib.tbpoint.markov` implements it.

    Each of the N warps is runnable or stalled; a runnable warp stalls with
    probability p per instruction (p = stalling intervals / instructions,
    the rate at which the profile's warp enters a stall) and a stalled warp
    becomes runnable with probability 1 / M (M = mean stall cycles of a
    stalling interval).  The chains are independent, so the core issues
    unless every warp is stalled: IPC = issue rate x (1 - prod p M /
    (1 + p M)) (``markov.interval_ipc``).  Like the seed's description of
    the model it assumes random interleaving and no contention.
    """
    from ..tbpoint.markov import interval_ipc

    insts = _arr(profile, "insts")
    stall = _arr(profile, "stall_cycles")
    stalls = stall > 0
    if not stalls.any():
        return 1.0 / issue_rate
    p = min(stalls.sum() / insts.sum(), 1.0)
    m = max(stall[stalls].mean(), 1.0)
    return float(1.0 / (issue_rate * interval_ipc(p, [m] * int(warps))))


MODELS = ("Naive_Interval", "Markov_Chain", "MT", "MT_MSHR", "MT_MSHR_BAND")   # Table 8


def predict(profile, warps: int, policy: str, c: Contention, model: str = "MT_MSHR_BAND",
            issue_rate: float = 1.0) -> float:
    """CPI of one core running ``warps`` warps like the profile's warp, by a
    Table 8 model; ``MT_MSHR_BAND`` is GPUMech (eq. 12)."""
    profile = check_profile(profile)
    if model == "Naive_Interval":
        return cpi_naive(profile, warps, issue_rate)
    if model == "Markov_Chain":
        return cpi_markov_chain(profile, warps, issue_rate)
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r} (known: {', '.join(MODELS)})")
    mt = issue_bound(cpi_multithreading(profile, warps, policy, issue_rate), issue_rate)
    m, b = cpi_contention(profile, warps, c, mshr=model != "MT", bandwidth=model == "MT_MSHR_BAND",
                          issue_rate=issue_rate)
    return mt + m + b                                                            # eq. 12


def cpi_stack(profile, warps: int, policy: str, c: Contention, issue_rate: float = 1.0) -> dict:
    """The CPI stack of 4.7 (Table 9) for GPUMech's prediction.

    The representative warp's cycles split into BASE (issue: insts / issue
    rate) and its stall cycles by cause (``stall_dep``, ``stall_l1``,
    ``stall_l2``, ``stall_dram``; all in DEP when the profile lacks them);
    each category is divided by the warp's instructions and then scaled by
    CPI_multithreading (issue-bounded) / CPI_representative_warp; MSHR and QUEUE are the two
    parts of eq. 26.  The categories sum to :func:`predict`'s CPI.
    """
    profile = check_profile(profile)
    insts = _arr(profile, "insts").sum()
    parts = {"BASE": insts / issue_rate}
    if all(f"stall_{k}" in profile for k in ("dep", "l1", "l2", "dram")):
        for k in ("dep", "l1", "l2", "dram"):
            parts[k.upper()] = _arr(profile, f"stall_{k}").sum()
    else:
        parts.update(DEP=_arr(profile, "stall_cycles").sum(), L1=0.0, L2=0.0, DRAM=0.0)
    cpi_warp = sum(parts.values()) / insts
    scale = issue_bound(cpi_multithreading(profile, warps, policy, issue_rate), issue_rate) / cpi_warp
    stack = {k: v / insts * scale for k, v in parts.items()}
    stack["MSHR"], stack["QUEUE"] = cpi_contention(profile, warps, c, issue_rate=issue_rate)
    return {k: float(stack[k]) for k in STACK}
