"""Performance and power scaling across GPU configurations (seed 004,
sections III-B to III-D).

A kernel's measurements over the training grid form a 3-D array
``T[c, e, m]`` over SM counts ``c``, core clocks ``e`` and memory clocks
``m`` (all ascending).  Scaling values (III-B, Figs. 7 and 8):

- engine: ``E[c][k, i] = T[c, i + 1, k] / T[c, i, k]`` (memory clock k fixed,
  core clock step i -> i + 1);
- memory: ``M[c][i, k] = T[c, i, k + 1] / T[c, i, k]`` (core clock i fixed);
- SM count: ``C[j] = T[j + 1, e0, m0] / T[j, e0, m0]`` at the base clocks.

Eq. 1 generalised (:func:`scale`): from the base ``(c0, e0, m0)`` to a
target ``(c1, e1, m1)``, first the SM-count steps c0 -> c1 at the base
clocks, then the core-clock steps e0 -> e1 at memory clock m0 and SM count
c1, then the memory-clock steps m0 -> m1 at core clock e1; a step down uses
the reciprocal.  For the seed's example (base (0, 0), target (3, 3)) this
is ``t33 = t00 prod_j E[0, j] prod_k M[3, k]``, eq. 1 with our index order.

One k-means cluster set per SM count (features: that SM count's engine and
memory scaling values) and one for the SM-count scaling values (III-C);
each cluster's centroid is its scaling surface.  One neural network per
cluster set (III-D): inputs min-max normalised with the training ranges,
one hidden layer of as many sigmoid units as clusters, sigmoid outputs, one
per cluster; the highest output picks the cluster.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


# -- scaling values (III-B) ----------------------------------------------------------------------------------------
def engine_scaling(T: np.ndarray) -> np.ndarray:
    """E[c, k, i] = T[c, i + 1, k] / T[c, i, k] (Fig. 7c); leading axes (kernels) pass through."""
    return np.swapaxes(T[..., 1:, :] / T[..., :-1, :], -1, -2)


def memory_scaling(T: np.ndarray) -> np.ndarray:
    """M[c, i, k] = T[c, i, k + 1] / T[c, i, k] (Fig. 7b)."""
    return T[..., 1:] / T[..., :-1]


def cu_scaling(T: np.ndarray, e0: int, m0: int) -> np.ndarray:
    """C[j] = T[j + 1, e0, m0] / T[j, e0, m0] (Fig. 8)."""
    return T[..., 1:, e0, m0] / T[..., :-1, e0, m0]


def _steps(values: np.ndarray, a: int, b: int) -> float:
    """Product of the step ratios from index a to b (reciprocals going down)."""
    if b >= a:
        return float(np.prod(values[a:b]))
    return float(1.0 / np.prod(values[b:a]))


def scale(t0: float, base: tuple[int, int, int], target: tuple[int, int, int], C: np.ndarray, E: np.ndarray,
          M: np.ndarray) -> float:
    """Eq. 1: ``t0`` measured at grid point ``base`` = (c, e, m) indices,
    scaled to ``target`` with SM-count values ``C``, and engine and memory
    values ``E[c]``, ``M[c]`` per SM count (shapes as the functions above)."""
    c0, e0, m0 = base
    c1, e1, m1 = target
    t = t0 * _steps(C, c0, c1)
    t *= _steps(E[c1, m0], e0, e1)
    t *= _steps(M[c1, e1], m0, m1)
    return t


# -- the classifier (III-D) ----------------------------------------------------------------------------------------
def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.clip(x, -60, 60)))


@dataclass
class SigmoidNetwork:
    """Three-layer network: linear inputs, ``hidden`` sigmoid units, one
    sigmoid output per class; trained on one-hot targets with
    cross-entropy by full-batch Adam from a seeded start (deterministic)."""
    hidden: int
    epochs: int = 3000
    learning_rate: float = 0.05
    seed: int = 0
    weights: list = field(default_factory=list)

    def fit(self, x: np.ndarray, labels: np.ndarray, n_classes: int) -> "SigmoidNetwork":
        rng = np.random.default_rng(self.seed)
        n_in = x.shape[1]
        W1 = rng.normal(0, 1 / np.sqrt(max(n_in, 1)), (n_in, self.hidden))
        b1 = np.zeros(self.hidden)
        W2 = rng.normal(0, 1 / np.sqrt(self.hidden), (self.hidden, n_classes))
        b2 = np.zeros(n_classes)
        y = np.eye(n_classes)[labels]
        params = [W1, b1, W2, b2]
        m = [np.zeros_like(p) for p in params]
        v = [np.zeros_like(p) for p in params]
        for step in range(1, self.epochs + 1):
            h = _sigmoid(x @ W1 + b1)
            out = _sigmoid(h @ W2 + b2)
            d2 = (out - y) / len(x)                  # cross-entropy through the sigmoid
            d1 = (d2 @ W2.T) * h * (1 - h)
            grads = [x.T @ d1, d1.sum(0), h.T @ d2, d2.sum(0)]
            for p, g, mi, vi in zip(params, grads, m, v):
                mi *= 0.9
                mi += 0.1 * g
                vi *= 0.999
                vi += 0.001 * g * g
                p -= self.learning_rate * (mi / (1 - 0.9 ** step)) / (np.sqrt(vi / (1 - 0.999 ** step)) + 1e-8)
        self.weights = params
        return self

    def outputs(self, x: np.ndarray) -> np.ndarray:
        W1, b1, W2, b2 = self.weights
        return _sigmoid(_sigmoid(x @ W1 + b1) @ W2 + b2)

    def predict(self, x: np.ndarray) -> np.ndarray:
        return np.argmax(self.outputs(x), axis=1)


# -- the model (III-A) ---------------------------------------------------------------------------------------------
@dataclass
class ScalingModel:
    """Clusters of scaling surfaces and their classifiers.

    Parameters
    ----------
    n_clusters : int
        k of every k-means cluster set (seed: 12), capped at the number of
        training kernels.
    base : tuple
        Grid indices (c, e, m) of the base configuration.
    seed : int
        Seeds k-means and the networks.

    ``fit(times, counters)``: ``times`` is (kernels, SM counts, core clocks,
    memory clocks); ``counters`` (kernels, features) measured at the base.
    ``predict(counters, t0, target)``: the time at grid point ``target`` of
    a kernel that ran ``t0`` at the base.
    """
    n_clusters: int = 12
    base: tuple = (0, 0, 0)
    seed: int = 0
    lo_: np.ndarray | None = None
    hi_: np.ndarray | None = None
    centroids_: dict = field(default_factory=dict)
    networks_: dict = field(default_factory=dict)
    labels_: dict = field(default_factory=dict)
    shape_: tuple = ()

    def _normalise(self, counters: np.ndarray) -> np.ndarray:
        span = np.where(self.hi_ > self.lo_, self.hi_ - self.lo_, 1.0)
        return (np.asarray(counters, float) - self.lo_) / span

    def fit(self, times: np.ndarray, counters: np.ndarray) -> "ScalingModel":
        from sklearn.cluster import KMeans

        times = np.asarray(times, float)
        counters = np.asarray(counters, float)
        if times.ndim != 4 or len(times) != len(counters):
            raise ValueError("times must be (kernels, SM counts, core clocks, memory clocks) with one row of "
                             "counters per kernel")
        if not (np.isfinite(times).all() and (times > 0).all()):
            raise ValueError("times must be finite and positive")
        n, nc, ne, nm = times.shape
        self.shape_ = (nc, ne, nm)
        self.lo_, self.hi_ = counters.min(0), counters.max(0)
        x = self._normalise(counters)
        c0, e0, m0 = self.base
        sets = {f"cu{c}": np.hstack([engine_scaling(times)[:, c].reshape(n, -1),
                                     memory_scaling(times)[:, c].reshape(n, -1)]) for c in range(nc)}
        sets["cu"] = cu_scaling(times, e0, m0)
        k = min(self.n_clusters, n)
        for name, feats in sets.items():
            km = KMeans(n_clusters=k, n_init=10, random_state=self.seed).fit(feats)
            self.labels_[name] = km.labels_
            self.centroids_[name] = km.cluster_centers_
            self.networks_[name] = SigmoidNetwork(hidden=k, seed=self.seed).fit(x, km.labels_, k)
        return self

    def surfaces(self, counters: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The chosen clusters' scaling values (C, E, M) for one kernel."""
        nc, ne, nm = self.shape_
        x = self._normalise(np.atleast_2d(counters))
        pick = {name: int(net.predict(x)[0]) for name, net in self.networks_.items()}
        C = self.centroids_["cu"][pick["cu"]]
        E = np.empty((nc, nm, ne - 1))
        M = np.empty((nc, ne, nm - 1))
        for c in range(nc):
            v = self.centroids_[f"cu{c}"][pick[f"cu{c}"]]
            E[c] = v[:nm * (ne - 1)].reshape(nm, ne - 1)
            M[c] = v[nm * (ne - 1):].reshape(ne, nm - 1)
        return C, E, M

    def predict(self, counters: np.ndarray, t0: float, target: tuple[int, int, int]) -> float:
        C, E, M = self.surfaces(counters)
        return scale(t0, self.base, target, C, E, M)

    def save(self, path) -> None:
        """Everything a later prediction needs: no retraining, no sweep."""
        data = {"n_clusters": self.n_clusters, "base": list(self.base), "seed": self.seed,
                "shape": list(self.shape_), "lo": self.lo_.tolist(), "hi": self.hi_.tolist(),
                "centroids": {k: v.tolist() for k, v in self.centroids_.items()},
                "networks": {k: {"hidden": n.hidden, "weights": [w.tolist() for w in n.weights]}
                             for k, n in self.networks_.items()}}
        Path(path).write_text(json.dumps(data, sort_keys=True))

    @classmethod
    def load(cls, path) -> "ScalingModel":
        d = json.loads(Path(path).read_text())
        m = cls(n_clusters=d["n_clusters"], base=tuple(d["base"]), seed=d["seed"])
        m.shape_ = tuple(d["shape"])
        m.lo_, m.hi_ = np.array(d["lo"]), np.array(d["hi"])
        m.centroids_ = {k: np.array(v) for k, v in d["centroids"].items()}
        m.networks_ = {k: SigmoidNetwork(hidden=v["hidden"], weights=[np.array(w) for w in v["weights"]])
                       for k, v in d["networks"].items()}
        return m
