"""Inter-launch sampling (seed 000, 3.3, eq. 6 and Table 4).

Hardware-independent: it reads only the trace's launches table.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .clustering import closest_to_centre, first_appearance_labels, threshold_clusters

#: eq. 6, in order
FEATURES = ["f_thread_instrs", "f_warp_instrs", "f_mem_requests", "f_tb_size_cov"]


SCALES = ("workload", "kernel", "log")


def launch_features(launches: pd.DataFrame, scale: str = "workload") -> pd.DataFrame:
    """Eq. 6 inter-feature vectors, one row per launch: thread instructions,
    warp instructions and memory requests (global + local), each divided by
    its mean over the workload's launches (``scale="workload"``, the seed)
    or over the launches of the same kernel (``"kernel"``, ours), and the
    coefficient of variation of thread-block sizes (thread instructions per
    block).

    Why ``kernel``: with each kernel clustered apart
    (:class:`InterLaunchSampler` ``within_kernel``), sigma should mean the
    same relative distance in every kernel.  Divided by the workload's mean,
    a kernel whose launches are much larger than the others' gets large
    features, so launches a few per cent apart fall into different
    clusters: `mst-rmat`'s five `mst_find_min` launches of 0.86-1.24 M warp
    instructions were five clusters because the workload's mean launch,
    pulled down by the small hook, jump and relabel launches, is about a
    fifth of theirs.

    ``log`` (ours): the natural logarithm of each size over its kernel's
    mean (a launch without memory requests counts one).  Near the mean,
    ln(x / mean) ~ x / mean - 1, so sigma keeps the seed's meaning there (a
    tenth of the mean); away from it the distance stays relative to the
    launches' own sizes, where a division by the mean makes every launch
    much smaller than the mean look alike: sssp-rmat's paper input put a
    one-block launch of 406 k warp instructions, which takes a quarter of
    the run's cycles, in one cluster with one-block launches of 118 and 250
    warp instructions (0.0995 apart, within sigma 0.1) and predicted it from
    them."""
    if scale not in SCALES:
        raise ValueError(f"tbpoint.inter_scale: {scale!r} is not one of {', '.join(SCALES)}")
    need = ["launch", "kernel", "thread_instrs", "warp_instrs", "mem_requests", "tb_size_cov"]
    missing = [c for c in need if c not in launches.columns]
    if missing:
        raise ValueError(f"launches table lacks column(s) {', '.join(missing)}")
    L = launches.sort_values("launch", ignore_index=True)
    out = L[["launch", "kernel", "warp_instrs"]].copy()
    groups = L["kernel"] if scale in ("kernel", "log") else pd.Series(0, index=L.index)
    for col, f in zip(["thread_instrs", "warp_instrs", "mem_requests"], FEATURES):
        v = L[col].astype(float)
        if scale == "log":
            v = v.clip(lower=1.0)
        mean = v.groupby(groups).transform("mean").to_numpy() if len(v) else np.zeros(0)
        # a workload (kernel) without any memory request has an all-zero feature, not NaN
        out[f] = np.divide(v.to_numpy(), mean, out=np.zeros(len(v)), where=mean > 0)
        if scale == "log":
            out[f] = np.log(out[f].to_numpy())
    out[FEATURES[3]] = L["tb_size_cov"].to_numpy(float)
    return out


class InterLaunchSampler:
    """Group launches with complete-linkage hierarchical clustering at
    distance threshold ``sigma`` and pick, per cluster, the launch closest to
    the cluster's centre as its simulation point.

    Parameters
    ----------
    sigma : float
        Largest Euclidean distance between two members of a cluster (seed
        default 0.1).
    within_kernel : bool
        Cluster each kernel's launches apart (ours, the default), so that no
        cluster mixes kernels; False clusters all launches of the workload
        together, as the seed does (3.3).  Deviation, because eq. 6's
        features are sizes only: two kernels of similar size but different
        code (mst's relabel and hook launches) fell into one cluster, and the
        one launch simulated stood for the other kernel's time.

    representative : str
        Which of a cluster's equally central launches simulates it:
        ``middle`` (ours, the default) the middle one in launch order,
        ``first`` the lowest id (the seed), :func:`.clustering.closest_to_centre`.

    Attributes (after :meth:`fit`)
    ----------
    labels_ : cluster of every launch (launch order)
    representatives_ : launch id of each cluster's simulation point
    weights_ : cluster weights, share of the workload's warp instructions
        (Table 4: cluster_weight_k)

    References: seed 000, 3.3 and Table 4.
    """

    def __init__(self, sigma: float = 0.1, within_kernel: bool = True, representative: str = "middle"):
        self.sigma = sigma
        self.within_kernel = within_kernel
        self.representative = representative

    def fit(self, features: pd.DataFrame) -> "InterLaunchSampler":
        X = features[FEATURES].to_numpy(float)
        self.launches_ = features["launch"].to_numpy(np.int64)
        if self.within_kernel:
            self.labels_ = _labels_within(features["kernel"].to_numpy(), X, self.sigma)
        else:
            self.labels_ = threshold_clusters(X, self.sigma)
        reps = closest_to_centre(X, self.labels_, self.representative)
        self.representatives_ = self.launches_[reps]
        w = features["warp_instrs"].to_numpy(float)
        total = w.sum()
        k = len(reps)
        self.weights_ = np.array([w[self.labels_ == c].sum() / total if total else 1.0 / k for c in range(k)])
        return self

    def table(self, features: pd.DataFrame) -> pd.DataFrame:
        """One row per launch: its cluster, the cluster's representative,
        whether it is one, and the cluster's weight."""
        t = features[["launch", "kernel", "warp_instrs", *FEATURES]].copy()
        t["cluster"] = self.labels_.astype(np.int32)
        t["representative"] = self.representatives_[self.labels_]
        t["is_representative"] = t["launch"].to_numpy() == t["representative"].to_numpy()
        t["cluster_weight"] = self.weights_[self.labels_]
        return t

    @staticmethod
    def total_cpi(rep_cpi, weights) -> float:
        """Table 4: total CPI = sum over clusters of representative CPI x
        cluster weight."""
        return float(np.dot(np.asarray(rep_cpi, float), np.asarray(weights, float)))


def _labels_within(kernels: np.ndarray, X: np.ndarray, sigma: float) -> np.ndarray:
    """Cluster labels with each kernel's launches clustered apart, numbered
    0..k-1 in order of each cluster's first launch (as threshold_clusters
    numbers them)."""
    raw = np.empty(len(X), np.int64)
    nxt = 0
    for k in dict.fromkeys(kernels):
        idx = np.flatnonzero(kernels == k)
        raw[idx] = threshold_clusters(X[idx], sigma) + nxt
        nxt = raw[idx].max() + 1
    return first_appearance_labels(raw)
