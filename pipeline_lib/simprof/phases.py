"""Phase formation: method-frequency vectors, univariate linear-regression
feature selection, k-means with the silhouette rule, and the phase
homogeneity measures (seed 000, 5.3.2 and 5.3.2.1, Figs. 39 and 40).
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.cluster import KMeans
from sklearn.feature_selection import f_regression
from sklearn.metrics import silhouette_score

from ..stats import cov

# Silhouette coefficients are not defined for one cluster. We score k = 1 at
# 0.25, the value below which Kaufman and Rousseeuw ("Finding Groups in
# Data", 1990, ch. 2) find "no substantial structure": with the 90% rule a
# single phase is chosen when no k >= 2 scores above 0.25 / 0.9 = 0.278.
SINGLE_PHASE_SCORE = 0.25


def method_frequencies(samples: pd.DataFrame, frames: pd.DataFrame, n_units: int, n_methods: int) -> sp.csr_matrix:
    """Units x methods matrix of call-stack frequencies (Fig. 39).

    Element (u, m) is the share of unit u's call-stack snapshots in which
    method m appears (recursion counts once per snapshot). The seed counts
    appearances; dividing by the unit's snapshot count makes units with
    more or fewer snapshots comparable (our units are fixed CPU time, and
    the sampler may miss a tick).

    Parameters
    ----------
    samples : columns ``unit`` (int, -1 = outside every unit) and ``stack``
        (int), one row per snapshot.
    frames : columns ``stack`` and ``method`` (int), one row per frame.
    """
    s = samples.loc[samples["unit"] >= 0, ["unit", "stack"]]
    per_stack = frames[["stack", "method"]].drop_duplicates()
    hits = s.merge(per_stack, on="stack", how="inner")
    counts = hits.groupby(["unit", "method"], sort=True).size()
    snapshots = s.groupby("unit").size().reindex(range(n_units), fill_value=0).to_numpy()
    u = counts.index.get_level_values("unit").to_numpy()
    m = counts.index.get_level_values("method").to_numpy()
    vals = counts.to_numpy() / np.maximum(snapshots[u], 1)
    return sp.csr_matrix((vals, (u, m)), shape=(n_units, n_methods))


def select_methods(X, y, k: int) -> np.ndarray:
    """The k methods whose frequency best explains the performance measure
    by univariate linear regression (5.3.2; scikit-learn's f_regression, the
    test the seed cites as [83]). Returns column indices, best first (ties
    by column). Methods that never vary carry no information and are never
    chosen; if the measure itself is constant, the k most variable methods
    are taken instead."""
    X = sp.csr_matrix(X, dtype=np.float64)
    y = np.asarray(y, np.float64)
    hi, lo = X.max(axis=0).toarray().ravel(), X.min(axis=0).toarray().ravel()
    varying = hi > lo
    if np.ptp(y) > 0:
        with np.errstate(divide="ignore", invalid="ignore"):
            score, _ = f_regression(X, y)
        score = np.where(varying & np.isfinite(score), score, -np.inf)
    else:
        var = np.asarray(X.power(2).mean(axis=0)).ravel() - np.asarray(X.mean(axis=0)).ravel() ** 2
        score = np.where(varying, var, -np.inf)
    order = np.lexsort((np.arange(len(score)), -score))
    return order[np.isfinite(score[order])][:k]


def kmeans_fits(X, k_max: int, seed: int, n_init: int = 10) -> dict:
    """k-means of the rows of ``X`` for k = 1..k_max (5.3.2): {k: (labels,
    centers)}. A k larger than the number of distinct vectors, or than the
    units less one (where the silhouette is undefined), is not tried, nor
    kept where k-means returns fewer than two clusters."""
    X = np.asarray(X, np.float64)
    distinct = len(np.unique(X, axis=0))
    fits = {1: (np.zeros(len(X), np.int64), X.mean(axis=0, keepdims=True))}
    for k in range(2, min(k_max, distinct, len(X) - 1) + 1):
        km = KMeans(n_clusters=k, n_init=n_init, random_state=seed).fit(X)
        if len(np.unique(km.labels_)) >= 2:
            fits[k] = (km.labels_.astype(np.int64), km.cluster_centers_)
    return fits


def choose_k(X, k_max: int, threshold: float, seed: int, n_init: int = 10):
    """k-means for k = 1..k_max (:func:`kmeans_fits`) scored by the
    silhouette coefficient; the smallest k scoring at least ``threshold`` x
    the best (5.3.2).

    k = 1 scores ``SINGLE_PHASE_SCORE`` (see above). Returns (k, labels,
    centers, scores) with scores[k-1] the score of k (NaN if not tried).
    """
    X = np.asarray(X, np.float64)
    fits = kmeans_fits(X, k_max, seed, n_init)
    scores = np.full(k_max, np.nan)
    scores[0] = SINGLE_PHASE_SCORE
    for k, (labels, _) in fits.items():
        if k > 1:   # exact up to 4000 units; a seeded subsample of 4000 beyond (O(N^2))
            scores[k - 1] = silhouette_score(X, labels, sample_size=min(len(X), 4000), random_state=seed)
    best = np.nanmax(scores)
    k = int(np.flatnonzero(scores >= threshold * best)[0]) + 1
    labels, centers = fits[k]
    return k, labels, centers, scores


class PhaseFormation:
    """SimProf's phases of an executor thread's sampling units (5.3.2).

    Parameters
    ----------
    top_methods : K, methods kept by the regression test (seed: 100).
    k_max : largest number of phases tried (seed: 20).
    threshold : share of the best silhouette score the chosen k must reach
        (seed: 0.9).
    seed : k-means seed.

    Attributes after ``fit``
    ------------------------
    methods_ : selected method columns, best first.
    k_, labels_, centers_ (in the selected methods' space), scores_.
    """

    def __init__(self, top_methods: int = 100, k_max: int = 20, threshold: float = 0.9, seed: int = 0):
        self.top_methods, self.k_max, self.threshold, self.seed = top_methods, k_max, threshold, seed

    def project(self, X) -> np.ndarray:
        """Units' frequencies of the selected methods (dense)."""
        return np.asarray(sp.csr_matrix(X)[:, self.methods_].todense(), np.float64)

    def fit(self, X, y) -> "PhaseFormation":
        X = sp.csr_matrix(X)
        if X.shape[0] != len(y):
            raise ValueError(f"{X.shape[0]} units but {len(y)} performance values")
        if X.shape[0] == 0:
            raise ValueError("no sampling units to form phases from")
        self.methods_ = select_methods(X, y, self.top_methods)
        if len(self.methods_) == 0:      # every unit runs the same methods
            self.methods_ = np.arange(min(X.shape[1], 1))
        F = self.project(X)
        self.k_, self.labels_, self.centers_, self.scores_ = choose_k(F, self.k_max, self.threshold, self.seed)
        return self

    def predict(self, X) -> np.ndarray:
        """Unit classification (5.3.4.1): each unit's phase is the one whose
        centre is nearest (Euclidean) in the selected methods' space."""
        return nearest_center(self.project(X), self.centers_)

    def top_methods_of(self, phase: int, names, count: int = 5) -> list[tuple[str, float]]:
        """The methods with the highest weight in a phase's centre: what the
        phase runs (5.3.4, 5.4.5)."""
        c = self.centers_[phase]
        return self._ranked(c, c, names, count)

    def distinct_methods_of(self, phase: int, names, count: int = 5) -> list[tuple[str, float]]:
        """The methods that set a phase apart (5.4.5): ranked by how far its
        centre's frequency exceeds the mean of the other phases' centres,
        keeping only those it exceeds. Frames that every phase runs equally
        (the executor's task loop, ``RDD.iterator``) score zero and drop
        out; the seed names phases by such method-level information but
        does not say how to rank it. One phase: its heaviest methods."""
        c = self.centers_[phase]
        if len(self.centers_) == 1:
            return self.top_methods_of(phase, names, count)
        excess = c - np.delete(self.centers_, phase, axis=0).mean(axis=0)
        return self._ranked(c, excess, names, count)

    def _ranked(self, weights, score, names, count) -> list[tuple[str, float]]:
        """(name, centre weight) of the ``count`` best-scoring methods with a
        positive score (ties by column)."""
        order = np.lexsort((np.arange(len(score)), -score))[:count]
        return [(names[self.methods_[i]], float(weights[i])) for i in order if score[i] > 0]


# A hidden class's name (lambdas, method handles) carries the JVM's load
# order and address, "RDD$$Lambda$1981+0x00007f98e0b1cbc8.924450374.apply",
# which differ from run to run; matching a reference input's methods to the
# training run's (5.3.4.1) needs the stable part, "RDD$$Lambda.apply".
_LAMBDA_ORDINAL = re.compile(r"\$\$Lambda\$\d+")
_HIDDEN_SUFFIX = re.compile(r"[+/]0x[0-9a-fA-F]+(?:\.\d+)?")


def stable_method_name(name: str) -> str:
    """``name`` without the run-specific parts of hidden-class names."""
    return _HIDDEN_SUFFIX.sub("", _LAMBDA_ORDINAL.sub("$$Lambda", name))


def nearest_center(F, centers) -> np.ndarray:
    """Index of the nearest (Euclidean) centre of each row of ``F``."""
    F, centers = np.asarray(F, np.float64), np.asarray(centers, np.float64)
    d = ((F[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
    return np.argmin(d, axis=1)


def homogeneity(values, labels) -> dict:
    """Fig. 40: population CoV of the measure over all units; weighted CoV
    (each phase's CoV weighted by its share of units); maximum CoV over
    phases."""
    values, labels = np.asarray(values, np.float64), np.asarray(labels)
    phases, sizes = np.unique(labels, return_counts=True)
    covs = np.array([cov(values[labels == h]) for h in phases])
    return {"population_cov": cov(values), "weighted_cov": float((covs * sizes).sum() / sizes.sum()),
            "max_cov": float(covs.max())}
