"""When a homogeneous region has warmed: the rules that end the simulated part
of a region and give the IPC its skipped blocks are predicted at.

Both rules see the IPCs of the region's sampling units so far, in order
(a unit is one specified block's lifetime, :class:`.policy.TBPointPolicy`),
and return the region's IPC once they stop, else None.

- ``consecutive`` (the seed, 3.4.4): stop when two consecutive units differ
  in IPC by less than the tolerance; the region runs at the last unit's IPC.
- ``confidence`` (ours): drop the start-up transient by MSER (White, 1997:
  the truncation point that minimises the squared standard error of the
  remaining mean), then stop when the 95% confidence interval of the mean
  IPC of the remaining units (Student's t) is within the tolerance of that
  mean; the region runs at that mean.  Deviation, because the seed's rule
  is fooled by slow transients: the first units of a launch often run well
  below the steady IPC (all blocks of the first wave start together and
  their first misses arrive in one burst), and two such units agree with
  each other (reduction: 6.73 and 6.45 against a steady 8.0, so the region
  was predicted 18% slow).  The tolerance is the seed's, read as the
  interval's half-width; 95% is the usual confidence level, not tuned.
- ``phases`` (ours): ``confidence``, and the blocks' schedule settled too.
  A launch's first wave starts in one cycle, so its blocks run in lock
  step; in some launches the lock step is metastable and breaks waves
  later, and the IPC rises as the blocks' starts spread (reduction: 6.6
  to 8.0 over about 20 waves, while its first units agree within 1%).
  The units' IPCs cannot show this before it happens; the blocks' phases
  do: the spread of the running blocks' phases (:func:`phase_spread`)
  grows geometrically from the first wave on while the lock step is
  breaking (reduction: x1.1-1.5 a unit), and stays within its noise in a
  lock step that holds (matmul, histogram) or in a schedule already
  mixed.  So the rule also asks that the spread's growth would not
  double it over the rest of the region: the growth is the least-squares
  slope of the spread's logarithm over its units after MSER's truncation
  of that series (at least three units), carried over the region's
  remaining units (its blocks left over the system occupancy).  Within a
  factor of two the schedule keeps its regime (lock step or mixed) and
  the units seen represent the skipped blocks.  The factor two is a
  statement of "the same regime", not fitted to any error
  (docs/tbpoint.md, "Occupancy variants").
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit
from scipy import stats

from ..pairwise import pairwise_sum

__all__ = ["WARMING_RULES", "LAUNCH_RULES", "CONFIDENCE", "consecutive", "confidence", "phases", "phase_concentration",
           "phase_spread", "mser_truncation", "region_ipc", "warming_function", "enough_launches"]

CONFIDENCE = 0.95


def consecutive(ipcs, tolerance: float) -> float | None:
    """The seed's rule (3.4.4): the last unit's IPC once it is within
    ``tolerance`` (relative) of the unit before it."""
    if len(ipcs) < 2 or ipcs[-2] <= 0:
        return None
    return float(ipcs[-1]) if abs(ipcs[-1] - ipcs[-2]) / ipcs[-2] < tolerance else None


def mser_truncation(x) -> int:
    """MSER's truncation point: the number ``d`` of leading values to drop
    (at most half of them, leaving at least two) that minimises
    sum((x[d:] - mean)^2) / (n - d)^2; ties go to the smallest ``d``."""
    return int(_mser(np.ascontiguousarray(x, np.float64)))


@njit(cache=True)
def _mser(x):
    """:func:`mser_truncation`, compiled (it runs after every unit of every
    region) with numpy's sums (:mod:`..pairwise`), so that ties fall as
    they did in numpy."""
    n = len(x)
    best, best_d = np.inf, 0
    sq = np.empty(n)
    for d in range(0, min(n // 2, n - 2) + 1):
        m = n - d
        mean = (0.0 + pairwise_sum(x, d, m)) / m
        for i in range(m):
            e = x[d + i] - mean
            sq[i] = e * e
        v = (0.0 + pairwise_sum(sq, 0, m)) / m ** 2
        if v < best:
            best, best_d = v, d
    return best_d


def confidence(ipcs, tolerance: float, level: float = CONFIDENCE) -> float | None:
    """Ours (module docstring): the mean IPC of the units after MSER's
    truncation once its ``level`` confidence interval's half-width is at
    most ``tolerance`` times the mean."""
    x = np.asarray(ipcs, float)
    if len(x) < 2:
        return None
    rest = x[mser_truncation(x):]
    m = len(rest)
    mean = float(rest.mean())
    if mean <= 0:
        return None
    return mean if _half_width(rest, level) <= tolerance * mean else None


def phase_concentration(dispatch, t: int, lifetime: float) -> float:
    """Mean resultant length R of the phases of blocks dispatched at cycles
    ``dispatch`` and running at cycle ``t``: a block's phase is its age
    over ``lifetime`` as an angle, 2 pi (t - dispatch) / lifetime.  1 when
    every block is at the same point of its life (lock step), towards 0 as
    their starts spread over a lifetime; 0 for no block."""
    d = np.asarray(dispatch, float)
    if len(d) == 0 or lifetime <= 0:
        return 0.0
    ph = 2 * np.pi * (t - d) / lifetime
    return min(float(np.hypot(np.cos(ph).mean(), np.sin(ph).mean())), 1.0)


def phase_spread(dispatch, t: int, lifetime: float) -> float:
    """Spread of the phases of the blocks running at cycle ``t``, in
    lifetimes: a block's phase is its age over ``lifetime`` as an angle,
    2 pi (t - dispatch) / lifetime, and the spread is the circular standard
    deviation sqrt(-2 ln R) / (2 pi) of those angles (R their mean
    resultant length; Mardia and Jupp, *Directional Statistics*, 2000,
    2.3.4).  Near 0 when the blocks run in lock step (on a circle, a block
    about to retire and one just started are in phase), 0.3 and more when
    their starts are spread over a lifetime.  Floored at one cycle
    (1 / lifetime), the clock's resolution, so that an exact lock step has
    a logarithm; phases that cancel exactly (R = 0) count as R = 1e-12, so
    that the spread stays finite."""
    floor = 1.0 / max(float(lifetime), 1.0)
    if len(dispatch) < 2 or lifetime <= 0:
        return floor
    R = max(phase_concentration(dispatch, t, lifetime), 1e-12)
    return max(float(np.sqrt(-2.0 * np.log(R))) / (2 * np.pi), floor)


#: the growth of the phase spread over the rest of a region that the ``phases`` rule still calls the same regime
SPREAD_GROWTH = 2.0


def phases(ipcs, tolerance: float, spreads, remaining: float, level: float = CONFIDENCE) -> float | None:
    """Ours (module docstring): :func:`confidence`'s IPC once the
    least-squares growth of the log phase spreads ``spreads`` (one per
    unit, :func:`phase_spread`), over those after MSER's truncation of
    that series (at least three), carried over the ``remaining`` units of
    the region, would grow the spread by less than :data:`SPREAD_GROWTH`."""
    estimate = confidence(ipcs, tolerance, level)
    if estimate is None:
        return None
    x = np.asarray(ipcs, float)
    spreads = np.asarray(spreads, float)
    if len(spreads) != len(x):
        raise ValueError(f"phases: {len(spreads)} phase spreads for {len(x)} units")
    y = np.log(spreads)
    y = y[mser_truncation(y):]
    if len(y) < 3:
        return None
    k = np.arange(len(y), dtype=float) - (len(y) - 1) / 2
    growth = float((k * y).sum() / (k * k).sum())     # least-squares slope of log spread per unit
    return estimate if max(growth, 0.0) * max(float(remaining), 0.0) < np.log(SPREAD_GROWTH) else None


def _half_width(x: np.ndarray, level: float) -> float:
    """Half-width of the ``level`` confidence interval of the mean of ``x``
    (Student's t, at least two values)."""
    n = len(x)
    return _t_quantile(0.5 + level / 2, n - 1) * float(x.std(ddof=1)) / np.sqrt(n)


@lru_cache(maxsize=None)
def _t_quantile(q: float, df: int) -> float:
    """Student's t quantile, once per (q, df): scipy's ``ppf`` costs a third
    of a millisecond a call, and the rules ask after every unit."""
    return float(stats.t.ppf(q, df))


WARMING_RULES = {"consecutive": consecutive, "confidence": confidence, "phases": phases}


def warming_function(rule: str):
    """The function of warming rule ``rule``; a ValueError naming the
    option for a rule :data:`WARMING_RULES` does not have."""
    try:
        return WARMING_RULES[rule]
    except KeyError:
        raise ValueError(f"tbpoint.warming_rule: {rule!r} is not one of {', '.join(WARMING_RULES)}") from None


def region_ipc(rule: str, ipcs, tolerance: float, spreads=None, remaining: float | None = None) -> float | None:
    """The region's IPC under ``rule`` (a key of :data:`WARMING_RULES`), or
    None while it has to keep simulating.  ``phases`` also takes the units'
    phase ``spreads`` and the ``remaining`` units of the region."""
    fn = warming_function(rule)
    if fn is phases:
        if spreads is None or remaining is None:
            raise ValueError("tbpoint.warming_rule: phases needs the units' phase spreads and the units remaining")
        return fn(ipcs, tolerance, spreads, remaining)
    return fn(ipcs, tolerance)


#: how many launches of an inter-launch cluster are simulated
#: (:class:`.policy.TBPointPolicy`): ``representative`` (the seed, 3.3) one,
#: ``confidence`` (ours) as many as :func:`enough_launches` asks for
LAUNCH_RULES = ("confidence", "representative")


def enough_launches(cpis, population: int, tolerance: float, level: float = CONFIDENCE) -> bool:
    """Whether the simulated launches of a cluster, with CPIs ``cpis``,
    estimate the mean CPI of its ``population`` launches well enough: the
    ``level`` confidence interval of the mean (Student's t, with the finite
    population correction sqrt(1 - n / N) since the launches are drawn
    without replacement) is within ``tolerance`` times the mean.

    Ours, after STEM (MICRO 2025), which sizes each cluster's sample from
    the spread of its launches' execution times by the central limit
    theorem; it measures that spread on hardware, where we have only the
    launches simulated so far, so the size is found sequentially: at least
    two launches unless the cluster has one, then more while the interval
    is wider than the tolerance.  Deviation from the seed (3.3: one launch
    per cluster), because launches with identical eq. 6 features can take
    different times: which SM a block of a later wave lands on depends on
    timing, and with it the L1 hits (streamcluster's eight identical
    launches take 41-50 k cycles in one full run).  The tolerance and the
    level are the warming rule's."""
    x = np.asarray(cpis, float)
    n = len(x)
    if n >= population:
        return True
    if n < 2:
        return False
    mean = float(x.mean())
    if mean <= 0:
        return False
    return _half_width(x, level) * np.sqrt(1.0 - n / population) <= tolerance * mean
