"""The two baselines TBPoint is compared with (seed 000, 3.5.1): Random and
Ideal-SimPoint, both on the fixed-size sampling units of a full simulation
(``units.parquet``: cycles, warp instructions, cache traffic and basic-block
vector per unit).

Both estimate the workload's CPI from a subset of units; a unit's CPI is
cycles / warp instructions and the estimate of a subset is the ratio of its
sums (units have equal size except the last, so this is eq. 5's weighted
mean of unit CPIs).  Miss rates are estimated the same way from the units'
accesses and misses.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans


def estimate(units: pd.DataFrame, weights) -> dict:
    """CPI, IPC and miss rates of the whole run estimated from units with
    ``weights`` (one per unit, zero for units not sampled): each figure is
    sum(w x numerator) / sum(w x denominator) over the units."""
    w = np.asarray(weights, float)

    def ratio(num, den):
        d = float(np.dot(w, units[den].to_numpy(float)))
        return float(np.dot(w, units[num].to_numpy(float))) / d if d > 0 else 0.0

    cpi = ratio("cycles", "warp_instrs")
    return {"cpi": cpi, "ipc": 1.0 / cpi if cpi > 0 else 0.0,
            "l1_miss_rate": ratio("l1_misses", "l1_accesses"), "l2_miss_rate": ratio("l2_misses", "l2_accesses")}


def random_sampling(units: pd.DataFrame, fraction: float = 0.10, draws: int = 100, seed: int = 0) -> pd.DataFrame:
    """Random baseline: ``draws`` independent seeded draws of
    round(fraction x units) units (at least one) without replacement.  One
    row per draw with the estimate and the sample size (share of warp
    instructions in the drawn units)."""
    n = len(units)
    if n == 0:
        raise ValueError("no sampling units (empty units table)")
    k = max(1, int(round(fraction * n)))
    rng = np.random.default_rng(seed)
    total = float(units["warp_instrs"].sum())
    rows = []
    for d in range(draws):
        w = np.zeros(n)
        w[rng.choice(n, size=k, replace=False)] = 1.0
        rows.append({"draw": d, "units": k, "sample_size": float(np.dot(w, units["warp_instrs"])) / total,
                     **estimate(units, w)})
    return pd.DataFrame(rows)


def bbv_matrix(units: pd.DataFrame) -> np.ndarray:
    """Dense BBVs, one row per unit, each normalised by the unit's
    instructions (eq. 5)."""
    width = 1 + max([int(ids.max()) for ids in units["bbv_ids"] if len(ids)] + [0])
    X = np.zeros((len(units), width))
    for i, (ids, counts) in enumerate(zip(units["bbv_ids"], units["bbv_counts"])):
        X[i, np.asarray(ids, np.int64)] = counts
    s = X.sum(axis=1, keepdims=True)
    return np.divide(X, s, out=np.zeros_like(X), where=s > 0)


def bic(X: np.ndarray, labels: np.ndarray, centres: np.ndarray) -> float:
    """Bayesian information criterion of a k-means clustering under the
    identical spherical Gaussian model (Pelleg and Moore's X-means, the score
    SimPoint uses): log-likelihood minus (parameters / 2) log R."""
    R, d = X.shape
    k = len(centres)
    if R <= k:
        return -np.inf
    sse = float(((X - centres[labels]) ** 2).sum())
    var = sse / (d * (R - k))
    if var <= 0:
        var = 1e-12      # a perfect fit: keep the score finite
    sizes = np.bincount(labels, minlength=k)
    sizes = sizes[sizes > 0]
    # mixture weights r_c / R, spherical Gaussian with the pooled variance:
    # sum of squared distances / (2 var) = d (R - k) / 2
    ll = float((sizes * np.log(sizes / R)).sum()) - R * d / 2 * np.log(2 * np.pi * var) - d * (R - k) / 2
    params = (k - 1) + d * k + 1
    return float(ll - params / 2 * np.log(R))


class IdealSimPoint:
    """SimPoint on the per-unit BBVs of a full timing simulation.

    Parameters
    ----------
    dims : int
        Random projection dimensions (SimPoint: 15).
    max_k : int
        Largest number of clusters tried.
    bic_fraction : float
        The chosen k is the smallest whose BIC reaches this fraction of the
        range between the worst and best BIC over k = 1..max_k (SimPoint's
        90% rule).
    n_init : int
        k-means restarts per k.
    seed : int
        Seeds the projection matrix and k-means.

    Attributes (after :meth:`fit`): ``k_``, ``labels_``, ``points_`` (the
    unit closest to each centroid), ``weights_`` (units per cluster / units,
    eq. 5), ``bic_`` (score per k).

    References: seed 000, 3.2.2 eq. 5 and 3.5.1; Sherwood et al., "Automatically
    characterizing large scale program behavior", ASPLOS 2002; Hamerly et al.,
    "SimPoint 3.0", JILP 2005.
    """

    def __init__(self, dims: int = 15, max_k: int = 10, bic_fraction: float = 0.9, n_init: int = 5, seed: int = 0):
        self.dims, self.max_k, self.bic_fraction, self.n_init, self.seed = dims, max_k, bic_fraction, n_init, seed

    def fit(self, units: pd.DataFrame) -> "IdealSimPoint":
        X = bbv_matrix(units)
        rng = np.random.default_rng(self.seed)
        # SimPoint's projection: entries uniform in [-1, 1]
        Y = X @ rng.uniform(-1.0, 1.0, size=(X.shape[1], self.dims))
        n = len(Y)
        if n == 0:
            raise ValueError("no sampling units (empty units table)")
        distinct = len(np.unique(Y, axis=0))     # more clusters than distinct points cannot help
        fits, scores = {}, {}
        for k in range(1, min(self.max_k, distinct) + 1):
            km = KMeans(n_clusters=k, n_init=self.n_init, random_state=self.seed).fit(Y)
            fits[k] = km
            scores[k] = bic(Y, km.labels_, km.cluster_centers_)
        finite = {k: s for k, s in scores.items() if np.isfinite(s)}
        if finite:
            lo, hi = min(finite.values()), max(finite.values())
            self.k_ = min(k for k, s in finite.items() if s >= lo + self.bic_fraction * (hi - lo))
        else:            # a single unit (or a single distinct BBV): one cluster
            self.k_ = 1
        km = fits[self.k_]
        self.labels_ = km.labels_.astype(np.int64)
        self.points_ = np.array([int(np.flatnonzero(self.labels_ == c)[
            np.argmin(np.linalg.norm(Y[self.labels_ == c] - km.cluster_centers_[c], axis=1))])
            for c in range(self.k_) if (self.labels_ == c).any()], np.int64)
        self.weights_ = np.array([(self.labels_ == self.labels_[p]).sum() / n for p in self.points_])
        self.bic_ = scores
        return self

    def unit_weights(self, n_units: int) -> np.ndarray:
        """Eq. 5 weights per unit (zero for units that are not simulation points)."""
        w = np.zeros(n_units)
        w[self.points_] = self.weights_
        return w
