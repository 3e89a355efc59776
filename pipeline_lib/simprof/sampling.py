"""Phase sampling: stratified random sampling with optimal allocation, its
confidence interval, the sample size a target error needs, and the three
baselines (seed 000, 5.3.3 and 5.4.1; eqs. 33-37, Figs. 41 and 42).

A *unit* is one sampling unit of the profiled executor thread; ``values``
holds its performance measure (CPI in the seed; in counter-less mode the
measure named in docs/simprof.md) and ``labels`` its phase. Phases are the
strata.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm


def z_score(confidence: float) -> float:
    """Two-sided normal quantile for a confidence level (eq. 35's alpha "in
    z-score form"): 0.95 -> 1.960, 0.997 -> 2.968."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    return float(norm.ppf(0.5 + confidence / 2.0))


def strata(labels) -> tuple[np.ndarray, np.ndarray]:
    """The phases present and their unit counts N_h, in phase order."""
    phases, sizes = np.unique(np.asarray(labels), return_counts=True)
    return phases, sizes


def phase_stds(values, labels, phases) -> np.ndarray:
    """Population standard deviation of the measure in each phase (sigma_h of
    eq. 33, known for every unit from profiling)."""
    values, labels = np.asarray(values, np.float64), np.asarray(labels)
    return np.array([values[labels == h].std() for h in phases])


def optimal_allocation(sizes, stds, n: int, min_per_phase: int = 1) -> np.ndarray:
    """Sample size of each phase, eq. 33: n_h = n N_h sigma_h / sum_i N_i sigma_i.

    Eq. 33 gives real numbers and can ask for more units than a phase has,
    or none for a phase of constant measure. Deviations, needed to make it a
    sample: every phase gets at least ``min_per_phase`` units (so that every
    phase is represented) when ``n`` allows it, no phase more than N_h (the
    excess goes to the other phases in eq. 33's proportions), and the real
    sizes are rounded by largest remainder (ties to the lower phase index)
    so that they add up to exactly ``n``. When every sigma_h is 0 the
    allocation is proportional to N_h.

    Parameters
    ----------
    sizes : array of int, N_h per phase.
    stds : array of float, sigma_h per phase.
    n : total sample size; capped at sum(N_h).
    min_per_phase : the floor above.

    Returns
    -------
    array of int, n_h per phase, summing to min(n, sum(N_h)).
    """
    sizes = np.asarray(sizes, np.int64)
    stds = np.asarray(stds, np.float64)
    if sizes.shape != stds.shape or sizes.ndim != 1:
        raise ValueError("sizes and stds must be 1-d arrays of the same length")
    if n < 0 or (sizes < 0).any() or (stds < 0).any():
        raise ValueError("sample size, phase sizes and standard deviations must be non-negative")
    n = int(min(n, sizes.sum()))
    weight = sizes * stds
    if weight.sum() <= 0:
        weight = sizes.astype(np.float64)
    # phases of zero weight get a vanishing one, so that a budget the others
    # cannot hold still has somewhere to go
    weight = weight + 1e-12 * weight.max() * (sizes > 0)
    floor = np.minimum(min_per_phase, sizes)
    if floor.sum() > n:
        floor = np.zeros_like(sizes)
    # n_h = clip(lam w_h, floor_h, N_h): the sum grows with lam; find the lam
    # that spends n exactly (eq. 33 for every phase between its bounds)
    lo, hi = 0.0, 1.0
    while np.clip(hi * weight, floor, sizes).sum() < n:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.clip(mid * weight, floor, sizes).sum() < n:
            lo = mid
        else:
            hi = mid
    ideal = np.clip(hi * weight, floor, sizes)
    alloc = np.minimum(np.floor(ideal + 1e-9).astype(np.int64), sizes)
    while alloc.sum() > n:                  # float slack in the floor above
        alloc[np.argmax(alloc - ideal)] -= 1
    short = n - alloc.sum()
    if short > 0:
        remainder = np.where(alloc < sizes, ideal - alloc, -1.0)
        order = np.lexsort((np.arange(len(sizes)), -remainder))
        alloc[order[:short]] += 1
    return alloc


@dataclass
class Estimate:
    """A sample's estimate of the mean measure with its confidence interval
    (eq. 34): ``mean +- margin``."""
    mean: float
    se: float
    margin: float
    n: int

    @property
    def low(self) -> float:
        return self.mean - self.margin

    @property
    def high(self) -> float:
        return self.mean + self.margin


def stratified_se(sizes, sample_sizes, sample_stds) -> float:
    """Standard error of the stratified mean, eq. 36:
    SE = (1/N) sqrt(sum_h N_h^2 (1 - n_h/N_h) s_h^2 / n_h); phases with no
    sample contribute nothing (they are not estimated)."""
    N_h = np.asarray(sizes, np.float64)
    n_h = np.asarray(sample_sizes, np.float64)
    s_h = np.asarray(sample_stds, np.float64)
    use = n_h > 0
    terms = N_h[use] ** 2 * (1.0 - n_h[use] / N_h[use]) * s_h[use] ** 2 / n_h[use]
    return float(np.sqrt(terms.sum()) / N_h.sum())


def stratified_estimate(values, labels, chosen, confidence: float) -> Estimate:
    """Estimate the mean measure of all units from the chosen ones (eqs. 34-37).

    The estimate weights each phase's sample mean by N_h / N. s_h is eq. 37,
    the sample standard deviation of the chosen units of the phase (the seed
    prints the sum without the square; the squared deviations are meant).
    A phase with a single chosen unit has no sample deviation; its sigma_h
    from profiling, which the seed has for every unit (5.3.3), stands in.
    """
    values, labels = np.asarray(values, np.float64), np.asarray(labels)
    chosen = np.asarray(chosen, np.int64)
    phases, sizes = strata(labels)
    prof_std = phase_stds(values, labels, phases)
    n_h = np.zeros(len(phases), np.int64)
    means = np.zeros(len(phases))
    s_h = np.zeros(len(phases))
    for i, h in enumerate(phases):
        v = values[chosen[labels[chosen] == h]]
        n_h[i] = len(v)
        if len(v):
            means[i] = v.mean()
            s_h[i] = v.std(ddof=1) if len(v) > 1 else prof_std[i]
    sampled = n_h > 0
    if not sampled.any():
        raise ValueError("an empty sample estimates nothing")
    # phases with no unit chosen are left out and the others reweighted
    w = sizes * sampled / (sizes * sampled).sum()
    mean = float((w * means).sum())
    se = stratified_se(sizes[sampled], n_h[sampled], s_h[sampled])
    return Estimate(mean, se, z_score(confidence) * se, int(n_h.sum()))


def required_sample_size(values, labels, rel_error: float, confidence: float,
                         min_per_phase: int = 1) -> int:
    """Smallest total sample size whose eq.-33 allocation keeps the margin of
    error (eq. 35) within ``rel_error`` of the mean, with the profiled
    sigma_h standing in for s_h (Fig. 42: 99.7% confidence, 5% and 2%)."""
    values, labels = np.asarray(values, np.float64), np.asarray(labels)
    phases, sizes = strata(labels)
    stds = phase_stds(values, labels, phases)
    target = rel_error * abs(values.mean()) / z_score(confidence)
    for n in range(1, int(sizes.sum()) + 1):
        n_h = optimal_allocation(sizes, stds, n, min_per_phase)
        if stratified_se(sizes, n_h, stds) <= target:
            return n
    return int(sizes.sum())


def simprof_sample(labels, values, n: int, rng: np.random.Generator, min_per_phase: int = 1) -> np.ndarray:
    """SimProf's simulation points: eq. 33 sizes, then simple random sampling
    inside each phase (5.3.3). Returns sorted unit indices."""
    labels = np.asarray(labels)
    phases, sizes = strata(labels)
    n_h = optimal_allocation(sizes, phase_stds(values, labels, phases), n, min_per_phase)
    picks = [rng.choice(np.flatnonzero(labels == h), size=k, replace=False) for h, k in zip(phases, n_h) if k]
    return np.sort(np.concatenate(picks)) if picks else np.zeros(0, np.int64)


def srs_sample(n_units: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """SRS baseline (5.4.1): n units, each equally likely."""
    return np.sort(rng.choice(n_units, size=min(n, n_units), replace=False))


def code_phases(X, n: int, seed: int, n_init: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """CODE's phases and points (5.4.1, 5.4.2): units clustered by their call
    stacks alone -- k-means with k = ``n`` (the sample size every method gets,
    20 in the seed) on the method-frequency vectors of all methods, with no
    performance-based method selection -- and in each cluster the unit
    closest to its centre.  Returns (labels 0..k'-1, one chosen unit per
    label); k' < ``n`` where fewer distinct call-stack mixes exist."""
    import warnings

    import scipy.sparse as sp
    from sklearn.cluster import KMeans
    from sklearn.exceptions import ConvergenceWarning

    X = sp.csr_matrix(X, dtype=np.float64)
    k = min(int(n), X.shape[0])
    if k < 1:
        raise ValueError("CODE needs at least one unit and one point")
    with warnings.catch_warnings():          # duplicate units: fewer distinct clusters than k
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = KMeans(n_clusters=k, n_init=n_init, random_state=seed).fit(X)
    _, labels = np.unique(km.labels_, return_inverse=True)
    d = km.transform(X)[np.arange(X.shape[0]), km.labels_]
    chosen = np.array([np.flatnonzero(labels == h)[np.argmin(d[labels == h])] for h in range(labels.max() + 1)],
                      np.int64)
    return labels.astype(np.int64), chosen


def code_estimate(values, labels, chosen) -> float:
    """CODE's estimate: each chosen unit stands for its phase, weighted by
    the phase's share of units (one chosen unit per phase)."""
    values, labels = np.asarray(values, np.float64), np.asarray(labels)
    phases, sizes = strata(labels)
    chosen = np.asarray(chosen, np.int64)
    if sorted(labels[chosen].tolist()) != phases.tolist():
        raise ValueError("CODE needs exactly one chosen unit in every phase")
    weight = dict(zip(phases.tolist(), sizes / sizes.sum()))
    return float(sum(weight[labels[c]] * values[c] for c in chosen))


def second_sample(start_s, end_s, window_s: float, rng: np.random.Generator) -> np.ndarray:
    """SECOND baseline (5.4.1): every unit lying wholly inside one contiguous
    window of ``window_s`` seconds of the run, placed uniformly at random
    (the seed uses 10 s of a long job; our jobs are shorter, so the window
    is a config value). If no unit fits, the unit at the window's start."""
    start_s, end_s = np.asarray(start_s, np.float64), np.asarray(end_s, np.float64)
    t0 = start_s.min()
    latest = max(end_s.max() - window_s, t0)
    a = t0 + rng.random() * (latest - t0)
    inside = np.flatnonzero((start_s >= a) & (end_s <= a + window_s))
    if len(inside):
        return inside
    return np.array([int(np.argmin(np.abs(start_s - a)))], np.int64)
