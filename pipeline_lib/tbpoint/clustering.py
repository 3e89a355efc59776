"""Hierarchical clustering with a distance threshold (seed 000, 3.3).

The seed's threshold sigma is "the maximum distance between any two points
in a cluster": complete linkage, cut where the merge distance (the largest
pairwise distance of the merged cluster) would exceed sigma.  Deterministic:
labels are numbered 0, 1, ... in order of each cluster's first member.
"""
from __future__ import annotations

import numpy as np
from scipy.cluster.hierarchy import fcluster, linkage


def threshold_clusters(X, sigma: float) -> np.ndarray:
    """Cluster the rows of ``X`` (n x d) so that no two members of a cluster
    are farther apart than ``sigma`` (Euclidean).  Returns labels 0..k-1 in
    order of first appearance."""
    X = np.asarray(X, float)
    if X.ndim == 1:
        X = X[:, None]
    if sigma < 0:
        raise ValueError(f"distance threshold must be non-negative, got {sigma}")
    if not np.isfinite(X).all():
        raise ValueError("feature vectors contain NaN or infinite values")
    n = len(X)
    if n == 0:
        return np.zeros(0, np.int64)
    if n == 1:
        return np.zeros(1, np.int64)
    raw = fcluster(linkage(X, method="complete", metric="euclidean"), t=sigma, criterion="distance")
    return first_appearance_labels(raw)


def first_appearance_labels(raw) -> np.ndarray:
    """Renumber arbitrary labels 0, 1, ... in order of first appearance."""
    raw = np.asarray(raw)
    _, first = np.unique(raw, return_index=True)
    order = np.argsort(first, kind="stable")
    remap = {raw[first[i]]: k for k, i in enumerate(order)}
    return np.array([remap[v] for v in raw], np.int64)


REPRESENTATIVE_TIES = ("first", "middle")


def closest_to_centre(X, labels, ties: str = "first") -> np.ndarray:
    """For each cluster 0..k-1, the index of the member closest to the
    cluster's centre (mean).  Members equally close (identical launches)
    go to the lowest index with ``ties="first"`` (the seed) or to the middle
    one in index order with ``ties="middle"``: index order is launch order,
    so the middle one runs with as many of its cluster's launches before it
    as after, on the caches they leave (ours; the seed's lowest id is the
    launch that runs on the coldest caches)."""
    if ties not in REPRESENTATIVE_TIES:
        raise ValueError(f"tbpoint.representative: {ties!r} is not one of {', '.join(REPRESENTATIVE_TIES)}")
    X = np.asarray(X, float)
    if X.ndim == 1:
        X = X[:, None]
    labels = np.asarray(labels)
    reps = []
    for c in range(int(labels.max()) + 1 if len(labels) else 0):
        idx = np.flatnonzero(labels == c)
        d = np.linalg.norm(X[idx] - X[idx].mean(axis=0), axis=1)
        tied = idx[np.isclose(d, d.min(), rtol=1e-9, atol=1e-12)]
        reps.append(int(tied[len(tied) // 2] if ties == "middle" else tied[0]))
    return np.array(reps, np.int64)
