"""Selecting the representative warp (seed 000, 4.3.3, eqs. 14-15, Fig. 23).

Each warp is the vector [warp_perf / mean, instructions / mean] (eq. 15);
k-means with k = 2 separates the majority from the outliers, and the warp
closest to the centre of the larger cluster represents the launch.  MAX and
MIN (Fig. 23) take the warp of highest and lowest warp performance.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

SELECTIONS = ("clustering", "max", "min")


def warp_features(warps: pd.DataFrame) -> np.ndarray:
    """Eq. 15 from a table with ``warp_perf`` and ``insts`` per warp."""
    perf = warps["warp_perf"].to_numpy(float)
    insts = warps["insts"].to_numpy(float)
    return np.column_stack([perf / max(perf.mean(), 1e-12), insts / max(insts.mean(), 1e-12)])


def select_warp(warps: pd.DataFrame, method: str = "clustering") -> int:
    """Row position in ``warps`` of the representative warp."""
    if method not in SELECTIONS:
        raise ValueError(f"unknown selection {method!r} (known: {', '.join(SELECTIONS)})")
    if len(warps) == 0:
        raise ValueError("no warps to select from")
    perf = warps["warp_perf"].to_numpy(float)
    if method == "max":
        return int(np.argmax(perf))
    if method == "min":
        return int(np.argmin(perf))
    x = warp_features(warps)
    labels, centres = two_means(x)
    sizes = np.bincount(labels, minlength=2)
    big = int(np.argmax(sizes))             # ties: cluster 0
    members = np.flatnonzero(labels == big)
    d = ((x[members] - centres[big]) ** 2).sum(1)
    return int(members[np.argmin(d)])       # ties: the lowest warp id


def two_means(x: np.ndarray, max_iter: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """k-means with k = 2 (Lloyd's iterations) from a deterministic start:
    the points of smallest and largest feature sum.  Returns labels and
    centres.  *Deviation:* the seed does not say how k-means starts; a
    fixed start makes the choice reproducible without random restarts, and
    on two clusters Lloyd's algorithm from the extreme points finds the
    split the restarts would (tested against scikit-learn's KMeans)."""
    s = x.sum(1)
    centres = np.stack([x[np.argmin(s)], x[np.argmax(s)]]).astype(float)
    labels = np.zeros(len(x), np.int64)
    for _ in range(max_iter):
        d = ((x[:, None, :] - centres[None, :, :]) ** 2).sum(2)
        new = np.argmin(d, axis=1)
        if (new == labels).all() and _ > 0:
            break
        labels = new
        for k in range(2):
            if (labels == k).any():
                centres[k] = x[labels == k].mean(0)
    return labels, centres
