"""Small irregular launches predicted by a per-kernel model (ours; issue
"group or model small irregular launches per kernel").

Graph workloads launch one kernel per frontier: hundreds of launches of one
block on road networks, each a few hundred warp instructions whose memory
requests follow the frontier's size.  Such a launch has no homogeneous
region (it is shorter than two epochs), and eq. 6 puts launches of
different frontier sizes into different clusters, so TBPoint simulates a
launch of nearly every size (`bfs-road` 55 clusters for 197 launches,
`sssp-road` 169 for 463).  Yet their cycles follow their work: the launches
run the same code on the same number of blocks, and what changes is how
many instructions and memory requests the frontier gives them.

So the launches of one kernel with the same block count and no region form
a *group*, and the group's cycles are estimated by the regression
estimator of a finite-population total (Cochran, *Sampling Techniques*,
3rd ed., 1977, ch. 7; Sarndal et al. 1992, 6.5):

    y_i = b0 + b1 * warp_instrs_i + b2 * mem_requests_i + e_i

fitted by non-negative least squares on the simulated members (every
coefficient is a cost: cycles per launch, per instruction, per request),
the skipped members predicted by the fit, the simulated ones kept as
simulated.  With n of N
members simulated, the estimated total's standard error is

    N * sqrt((1 - n / N) / n) * s_e,   s_e^2 = sum(e_i^2) / (n - rank)

and the group has simulated enough when its 95% interval (Student's t with
n - rank degrees of freedom) is within ``tolerance`` of the total, the
same tolerance and level as the confidence warming and launch rules
(:mod:`.warming`).

Which members: the simulator reaches launches in order and cannot go back,
so the sample is drawn as Stein's two-stage procedure (Stein, Ann. Math.
Statist. 16, 1945) draws it: a pilot of the group's first ``pilot``
members (the model's rank plus two, the fewest that leave two degrees of
freedom for s_e), then, from the pilot's spread, the sample size the
interval needs, reached by simulating members evenly spaced over the rest
of the group (systematic sampling, so that the sample spans the frontier's
growth and decline rather than its start only).  After each simulated
member the size is recomputed and the spacing follows; the group stops as
soon as the interval is within the tolerance.

The features come from the trace (hardware-independent); the block count
in the group's key keeps the launches' parallelism equal, so that cycles
are a function of the work alone.  A group of at most ``pilot`` members
gains nothing and is left to the inter-launch clusters.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import optimize, stats

from .warming import CONFIDENCE

__all__ = ["MODEL_FEATURES", "PILOT", "SMALL_LAUNCH_RULES", "launch_groups", "RegressionTotal", "GroupSampler"]

#: the regressors besides the intercept (columns of the trace's launches table)
MODEL_FEATURES = ["warp_instrs", "mem_requests"]
#: the pilot: the model's parameters plus two degrees of freedom for the residual spread
PILOT = len(MODEL_FEATURES) + 1 + 2
#: how launches without a region that eq. 6 keeps apart are sampled
#: (``tbpoint.small_launches``): ``cluster`` (the seed's inter-launch
#: clusters only) or ``model`` (this module)
SMALL_LAUNCH_RULES = ("cluster", "model")


def launch_groups(launches: pd.DataFrame, regions: pd.DataFrame | None, pilot: int = PILOT) -> dict[int, tuple]:
    """launch -> its group key (kernel, blocks) for every launch that is
    modelled: no homogeneous region in ``regions`` and more than ``pilot``
    launches of the same kernel and block count without one."""
    need = ["launch", "kernel", "n_blocks", *MODEL_FEATURES]
    missing = [c for c in need if c not in launches.columns]
    if missing:
        raise ValueError(f"launches table lacks column(s) {', '.join(missing)}")
    with_region = set() if regions is None or not len(regions) else set(regions["launch"].astype(int))
    L = launches[~launches["launch"].astype(int).isin(with_region)]
    out = {}
    for (kernel, blocks), g in L.groupby(["kernel", "n_blocks"], sort=False):
        if len(g) > pilot:
            out.update({int(x): (str(kernel), int(blocks)) for x in g["launch"]})
    return out


class RegressionTotal:
    """The regression estimator of a group's total cycles (module docstring).

    Parameters
    ----------
    X : (N, k) array, the features of every member (intercept added here)
    tolerance : largest relative half-width of the total's interval
    level : the interval's confidence level
    """

    def __init__(self, X, tolerance: float, level: float = CONFIDENCE):
        X = np.asarray(X, float)
        self.A = np.column_stack([np.ones(len(X)), X])
        self.tolerance = tolerance
        self.level = level

    def fit(self, sampled: np.ndarray, y: np.ndarray) -> "RegressionTotal":
        """Non-negative least squares on the members ``sampled`` (indices)
        with cycles ``y``: each coefficient is a cost (cycles per launch,
        per warp instruction, per memory request), so none is negative, and
        no prediction falls below zero outside the sample.  The rank is the
        number of coefficients the fit uses (the positive ones)."""
        A = self.A[sampled]
        y = np.asarray(y, float)
        self.sampled_ = np.asarray(sampled, np.int64)
        self.coef_, _ = optimize.nnls(A, y)
        self.rank_ = int(np.linalg.matrix_rank(A[:, self.coef_ > 0])) if (self.coef_ > 0).any() else 0
        resid = y - A @ self.coef_
        n = len(y)
        self.dof_ = n - self.rank_
        self.s_e_ = float(np.sqrt((resid ** 2).sum() / self.dof_)) if self.dof_ > 0 else np.inf
        self.predicted_ = self.A @ self.coef_
        self.predicted_[self.sampled_] = y
        self.total_ = float(self.predicted_.sum())
        return self

    def _t(self) -> float:
        return float(stats.t.ppf(0.5 + self.level / 2, self.dof_))

    def half_width(self) -> float:
        """Half-width of the total's interval (inf without residual degrees of freedom)."""
        N, n = len(self.A), len(self.sampled_)
        if n >= N:
            return 0.0
        if self.dof_ <= 0:
            return np.inf
        return self._t() * N * np.sqrt((1.0 - n / N) / n) * self.s_e_

    def enough(self) -> bool:
        return self.half_width() <= self.tolerance * self.total_

    def needed(self) -> int:
        """Members the interval needs at the present residual spread:
        n_inf / (1 + n_inf / N), n_inf = (t N s_e / (tolerance total))^2."""
        N = len(self.A)
        if self.dof_ <= 0 or self.total_ <= 0:
            return N
        n_inf = (self._t() * N * self.s_e_ / (self.tolerance * self.total_)) ** 2
        return int(min(N, np.ceil(n_inf / (1.0 + n_inf / N))))


class GroupSampler:
    """Which members of one group to simulate, in launch order (module
    docstring: the pilot, then evenly spaced members until the interval is
    within the tolerance).

    ``members`` are the group's launch ids in order, ``X`` their features.
    Call :meth:`select` when the simulator reaches a member and
    :meth:`simulated` with its cycles when it was simulated."""

    def __init__(self, members, X, tolerance: float, pilot: int = PILOT):
        self.members = [int(m) for m in members]
        self.index = {m: i for i, m in enumerate(self.members)}
        self.model = RegressionTotal(X, tolerance)
        self.pilot = pilot
        self.sampled: list[int] = []        # indices
        self.cycles: list[float] = []
        self.done = False
        self.next_due = 0

    def select(self, launch: int) -> bool:
        i = self.index[int(launch)]
        if self.done:
            return False
        return len(self.sampled) < self.pilot or i >= self.next_due

    def simulated(self, launch: int, cycles: float) -> None:
        i = self.index[int(launch)]
        self.sampled.append(i)
        self.cycles.append(float(cycles))
        n = len(self.sampled)
        if n < self.pilot:
            self.next_due = i + 1
            return
        self.model.fit(np.array(self.sampled), np.array(self.cycles))
        if self.model.enough():
            self.done = True
            return
        # spread what the interval still needs evenly over the members after this one
        rest = len(self.members) - i - 1
        still = max(1, self.model.needed() - n)
        self.next_due = i + 1 + max(0, rest // still - 1) if rest > still else i + 1

    def predicted(self, launch: int) -> float:
        """Cycles of a member: simulated, else the final fit's prediction."""
        return float(self.model.predicted_[self.index[int(launch)]])

    def sources(self) -> list[int]:
        """The simulated members, launch ids in order."""
        return [self.members[i] for i in sorted(self.sampled)]
