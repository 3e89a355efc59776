"""Homogeneous region identification (seed 000, 3.4.3, eqs. 8 and 9,
Fig. 8, Table 3).

Depends on the hardware only through the system occupancy (the epoch size),
so it reads only :data:`pipeline_lib.sim.hardware.OCCUPANCY_FIELDS`.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from ..pairwise import pairwise_sum
from ..sim.hardware import occupancy
from .clustering import threshold_clusters


VARIATIONS = ("block", "epoch")


def epoch_table(blocks: pd.DataFrame, epoch_size: int, variation: str = "block") -> pd.DataFrame:
    """Eq. 8 and 9 for the blocks of one launch (rows in block-id order):
    epoch j holds blocks [j * size, (j + 1) * size); its intra-feature is the
    average stall probability of its blocks (memory requests / warp
    instructions per block), its variation factor max(CoV of memory
    requests, CoV of warp instructions) over its blocks (``variation=
    "block"``, the seed) or that over the square root of its block count
    (``"epoch"``, ours): the CoV of the epoch's mean block, i.e. how much
    the epoch's totals vary when its blocks vary independently.

    Why ``epoch``: what the sampled simulation measures is the IPC of many
    blocks running together, and their differences average out (Lemma 1's
    argument).  Per block, irregular but stationary work marks every epoch
    as an outlier: all 660 epochs of `spmv-vector` (rows of different
    lengths, CoV 0.39 over the 112 blocks of an epoch), so it had no region
    at all; their means vary by 0.39 / sqrt(112) = 0.04."""
    if epoch_size < 1:
        raise ValueError(f"epoch size must be at least 1, got {epoch_size}")
    if variation not in VARIATIONS:
        raise ValueError(f"tbpoint.variation: {variation!r} is not one of {', '.join(VARIATIONS)}")
    b = blocks.sort_values("block")
    x = b["mem_requests"].to_numpy(float)
    y = b["warp_instrs"].to_numpy(float)
    p = np.divide(x, y, out=np.zeros_like(x), where=y > 0)
    ids = b["block"].to_numpy(np.int64)
    columns = ["epoch", "first_block", "last_block", "n_blocks", "stall_probability", "cov_mem_requests",
               "cov_warp_instrs"]
    if len(b):
        lo = np.arange(0, len(b), epoch_size)
        hi = np.minimum(lo + epoch_size, len(b))
        t = pd.DataFrame({"epoch": np.arange(len(lo)), "first_block": ids[lo], "last_block": ids[hi - 1],
                          "n_blocks": hi - lo, "stall_probability": _epoch_means(p, epoch_size),
                          "cov_mem_requests": _epoch_covs(x, epoch_size),
                          "cov_warp_instrs": _epoch_covs(y, epoch_size)}, columns=columns)
    else:
        t = pd.DataFrame([], columns=columns)
    t["variation_factor"] = np.maximum(t["cov_mem_requests"], t["cov_warp_instrs"])
    if variation == "epoch":
        t["variation_factor"] /= np.sqrt(t["n_blocks"].clip(lower=1))
    return t


@njit(cache=True)
def _epoch_means(v, size):
    """``v[lo:lo + size].mean()`` of each epoch, as numpy computes it
    (:mod:`..pairwise`: the table keeps its bytes).  Compiled because a
    launch can have hundreds of epochs and the table is built once per
    launch and configuration."""
    n = len(v)
    out = np.empty((n + size - 1) // size)
    for j in range(len(out)):
        lo = j * size
        m = min(size, n - lo)
        out[j] = (0.0 + pairwise_sum(v, lo, m)) / m
    return out


@njit(cache=True)
def _epoch_covs(v, size):
    """:func:`..stats.cov` of each epoch's values, as numpy computes the
    mean and the population standard deviation (:func:`_epoch_means`)."""
    n = len(v)
    out = np.empty((n + size - 1) // size)
    sq = np.empty(size)
    for j in range(len(out)):
        lo = j * size
        m = min(size, n - lo)
        mean = (0.0 + pairwise_sum(v, lo, m)) / m
        for i in range(m):
            d = v[lo + i] - mean
            sq[i] = d * d
        std = np.sqrt((0.0 + pairwise_sum(sq, 0, m)) / m)
        out[j] = std / mean if mean > 0 else 0.0
    return out


class RegionFinder:
    """Epoch clustering and homogeneous region construction for one launch.

    Parameters
    ----------
    sigma : float
        Distance threshold of the complete-linkage clustering of the epochs'
        average stall probabilities (seed default 0.2).
    max_variation : float
        Epochs whose variation factor exceeds it hold outlier blocks and get
        a cluster of their own (seed default 0.3); the factor per block or
        per epoch, :func:`epoch_table`.
    min_epochs : int
        Shortest run of consecutive same-cluster epochs that forms a region.
        The seed's Fig. 8 counts two regions out of runs of 2 and 4 epochs
        and none for the two single outlier epochs; we read that as "a region
        has at least two epochs" (a single epoch could not both warm up and
        be fast-forwarded) and make it a parameter.

    References: seed 000, 3.4.3, eqs. 8-9, Fig. 8, Table 3.
    """

    def __init__(self, sigma: float = 0.2, max_variation: float = 0.3, min_epochs: int = 2):
        self.sigma, self.max_variation, self.min_epochs = sigma, max_variation, min_epochs

    def fit(self, epochs: pd.DataFrame) -> "RegionFinder":
        """Sets ``epochs_`` (the input with columns cluster, outlier, region)
        and ``regions_`` (Table 3: region, cluster, start and end block,
        epochs)."""
        e = epochs.sort_values("epoch", ignore_index=True).copy()
        labels = threshold_clusters(e["stall_probability"].to_numpy(float), self.sigma)
        outlier = e["variation_factor"].to_numpy(float) > self.max_variation
        nxt = labels.max() + 1 if len(labels) else 0
        for i in np.flatnonzero(outlier):      # its own cluster
            labels[i] = nxt
            nxt += 1
        e["cluster"] = labels.astype(np.int32)
        e["outlier"] = outlier
        region = np.full(len(e), -1, np.int32)
        first, last, epoch = (e[c].to_numpy() for c in ("first_block", "last_block", "epoch"))
        rows = []
        i = 0
        while i < len(e):
            j = i
            while j + 1 < len(e) and labels[j + 1] == labels[i]:
                j += 1
            if j - i + 1 >= self.min_epochs and not outlier[i]:
                region[i:j + 1] = len(rows)
                rows.append({"region": len(rows), "cluster": int(labels[i]), "start_block": int(first[i]),
                             "end_block": int(last[j]), "first_epoch": int(epoch[i]), "n_epochs": j - i + 1})
            i = j + 1
        e["region"] = region
        self.epochs_ = e
        self.regions_ = pd.DataFrame(rows, columns=["region", "cluster", "start_block", "end_block",
                                                    "first_epoch", "n_epochs"])
        return self


def workload_regions(launches: pd.DataFrame, blocks: pd.DataFrame, hw: dict, sigma: float = 0.2,
                     max_variation: float = 0.3, min_epochs: int = 2,
                     variation: str = "block", epochs: bool = True) -> tuple[pd.DataFrame | None, pd.DataFrame]:
    """Epoch and region tables of every launch of a workload on hardware
    ``hw`` (only its occupancy fields matter).  Both carry a ``launch`` column;
    the epoch size is the launch's system occupancy.  ``epochs=False``
    returns None for the epochs and skips launches of fewer than
    ``min_epochs`` epochs, which cannot hold a region (the same regions,
    faster for workloads of many small launches)."""
    finder = RegionFinder(sigma, max_variation, min_epochs)
    by_launch = dict(iter(blocks.groupby("launch")))
    ep_parts, rg_parts = [], []
    for L in launches.sort_values("launch").to_dict("records"):
        occ = occupancy(hw, int(L["threads_per_block"]), int(L["regs_per_thread"]), int(L["shared_bytes"]))
        if not epochs and int(L["n_blocks"]) <= (min_epochs - 1) * occ["system_occupancy"]:
            continue
        b = by_launch.get(L["launch"])
        if b is None or not len(b):
            continue
        finder.fit(epoch_table(b, occ["system_occupancy"], variation))
        e, r = finder.epochs_, finder.regions_
        e.insert(0, "launch", np.int32(L["launch"]))
        e.insert(1, "epoch_size", np.int32(occ["system_occupancy"]))
        r.insert(0, "launch", np.int32(L["launch"]))
        ep_parts.append(e)
        rg_parts.append(r)
    epoch_table_ = (pd.concat(ep_parts, ignore_index=True) if ep_parts else pd.DataFrame()) if epochs else None
    regions = (pd.concat(rg_parts, ignore_index=True) if rg_parts else
               pd.DataFrame(columns=["launch", "region", "cluster", "start_block", "end_block", "first_epoch",
                                     "n_epochs"]))
    return epoch_table_, regions
