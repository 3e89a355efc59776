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
per cluster; the highest output picks the cluster (``assignment="hard"``,
the seed's).  ``assignment="soft"`` (ours) weights every centroid by the
network's outputs, normalised to sum to one, so that a kernel between two
clusters gets a surface between theirs instead of the wrong one of the two.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit


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


def _cum(values: np.ndarray) -> np.ndarray:
    """Products of the step ratios from index 0 along the last axis (1 first)."""
    ones = np.ones(values.shape[:-1] + (1,))
    return np.concatenate([ones, np.cumprod(values, axis=-1)], axis=-1)


def scale_grid(t0: np.ndarray, base: tuple[int, int, int], C: np.ndarray, E: np.ndarray,
               M: np.ndarray) -> np.ndarray:
    """:func:`scale` to every grid point at once, for kernels along the first
    axis: ``t0`` (n,), C (n, nc-1), E (n, nc, nm, ne-1), M (n, nc, ne, nm-1);
    returns (n, nc, ne, nm).  A product of steps from a to b is
    cum[b] / cum[a], which is the reciprocal product going down."""
    c0, e0, m0 = base
    cc, ce, cm = _cum(C), _cum(E), _cum(M)
    a = cc / cc[:, c0:c0 + 1]                                   # (n, nc)
    b = ce[:, :, m0, :] / ce[:, :, m0, e0:e0 + 1]               # (n, nc, ne)
    d = cm / cm[:, :, :, m0:m0 + 1]                             # (n, nc, ne, nm)
    return t0[:, None, None, None] * a[:, :, None, None] * b[:, :, :, None] * d


#: how a kernel's surface is made from the centroids (:class:`ScalingModel`)
ASSIGNMENTS = ("hard", "soft")


def check_training_set(times, counters) -> tuple[np.ndarray, np.ndarray]:
    """``times`` (kernels, SM counts, core clocks, memory clocks), finite and
    positive, and one row of ``counters`` per kernel; as float arrays."""
    times = np.asarray(times, float)
    counters = np.asarray(counters, float)
    if times.ndim != 4 or counters.ndim != 2 or len(times) != len(counters):
        raise ValueError("times must be (kernels, SM counts, core clocks, memory clocks) with one row of "
                         "counters per kernel")
    if not (np.isfinite(times).all() and (times > 0).all()):
        raise ValueError("times must be finite and positive")
    if not np.isfinite(counters).all():
        raise ValueError("counters must be finite (a base without GPUMech's prior? see scaling.features)")
    return times, counters


def _one_hot(labels, k: int) -> np.ndarray:
    return np.eye(k)[np.asarray(labels, int)]


# -- the classifier (III-D) ----------------------------------------------------------------------------------------
def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-np.clip(x, -60, 60)))


@njit(cache=True)
def _sig(v):
    return 1.0 / (1.0 + np.exp(-np.minimum(np.maximum(v, -60.0), 60.0)))


@njit(cache=True)
def _adam_step(p, g, m, v, lr, c1, c2):
    m *= 0.9
    m += 0.1 * g
    v *= 0.999
    v += 0.001 * g * g
    p -= lr * (m / c1) / (np.sqrt(v / c2) + 1e-8)


@njit(cache=True)
def _adam(x, y, W1, b1, W2, b2, epochs, lr, decay):
    """Full-batch Adam (betas 0.9, 0.999) on the cross-entropy of sigmoid
    outputs against one-hot ``y``, plus ``decay`` / 2 x the squared weights
    (not the biases; 0: none, the seed's); updates the weights in place.
    Compiled: the networks are retrained for every split, base and cluster
    count."""
    mW1, vW1, mb1, vb1 = np.zeros_like(W1), np.zeros_like(W1), np.zeros_like(b1), np.zeros_like(b1)
    mW2, vW2, mb2, vb2 = np.zeros_like(W2), np.zeros_like(W2), np.zeros_like(b2), np.zeros_like(b2)
    n = x.shape[0]
    for step in range(1, epochs + 1):
        h = _sig(x @ W1 + b1)
        out = _sig(h @ W2 + b2)
        d2 = (out - y) / n                           # cross-entropy through the sigmoid
        d1 = (d2 @ W2.T) * h * (1 - h)
        c1 = 1 - 0.9 ** step
        c2 = 1 - 0.999 ** step
        g1 = x.T @ d1
        g2 = h.T @ d2
        if decay > 0:
            g1 += decay * W1
            g2 += decay * W2
        _adam_step(W1, g1, mW1, vW1, lr, c1, c2)
        _adam_step(b1, d1.sum(axis=0), mb1, vb1, lr, c1, c2)
        _adam_step(W2, g2, mW2, vW2, lr, c1, c2)
        _adam_step(b2, d2.sum(axis=0), mb2, vb2, lr, c1, c2)


@dataclass
class SigmoidNetwork:
    """Three-layer network: linear inputs, ``hidden`` sigmoid units, one
    sigmoid output per class; trained on one-hot targets with
    cross-entropy by full-batch Adam from a seeded start (deterministic);
    ``decay`` > 0 adds L2 weight decay (ours; the seed names none)."""
    hidden: int
    epochs: int = 3000
    learning_rate: float = 0.05
    seed: int = 0
    decay: float = 0.0
    weights: list = field(default_factory=list)

    def fit(self, x: np.ndarray, labels: np.ndarray, n_classes: int) -> "SigmoidNetwork":
        rng = np.random.default_rng(self.seed)
        n_in = x.shape[1]
        W1 = rng.normal(0, 1 / np.sqrt(max(n_in, 1)), (n_in, self.hidden))
        b1 = np.zeros(self.hidden)
        W2 = rng.normal(0, 1 / np.sqrt(self.hidden), (self.hidden, n_classes))
        b2 = np.zeros(n_classes)
        y = np.eye(n_classes)[labels]
        _adam(np.ascontiguousarray(x, dtype=np.float64), y, W1, b1, W2, b2, self.epochs, self.learning_rate,
              float(self.decay))
        self.weights = [W1, b1, W2, b2]
        return self

    def outputs(self, x: np.ndarray) -> np.ndarray:
        W1, b1, W2, b2 = self.weights
        return _sigmoid(_sigmoid(x @ W1 + b1) @ W2 + b2)

    def predict(self, x: np.ndarray) -> np.ndarray:
        return np.argmax(self.outputs(x), axis=1)


#: weight decays the bagged classifier chooses from (decades around the loss's own scale)
DECAYS = (1e-3, 1e-2, 1e-1)
#: bootstrap replicates of the bagged classifier, and inner folds that choose its decay
BAGS, INNER_FOLDS = 5, 3
#: how the networks of each cluster set are trained
CLASSIFIERS = ("seed", "bagged")


def _log_loss(outputs: np.ndarray, labels: np.ndarray) -> float:
    """Cross-entropy of the outputs, normalised to sum to one, at the true labels."""
    p = outputs / np.maximum(outputs.sum(axis=1, keepdims=True), 1e-300)
    return float(-np.log(np.maximum(p[np.arange(len(labels)), labels], 1e-12)).mean())


@dataclass
class BaggedNetwork:
    """What a careful practitioner adds to the seed's network (ours): L2
    weight decay chosen on inner folds of the training kernels alone (the
    lowest mean cross-entropy on the held-in folds' left-out kernels;
    grouped by application when ``groups`` is given), then ``BAGS``
    networks on bootstrap resamples, each from its own seeded start
    (bagging with restarts); the outputs are averaged."""
    hidden: int
    seed: int = 0
    decay: float = 0.0
    members: list = field(default_factory=list)

    def fit(self, x: np.ndarray, labels: np.ndarray, n_classes: int, groups=None) -> "BaggedNetwork":
        from sklearn.model_selection import GroupKFold

        groups = np.arange(len(x)) if groups is None else np.asarray(groups)
        folds = min(INNER_FOLDS, len(np.unique(groups)))
        losses = []
        for decay in DECAYS:
            loss = 0.0
            if folds >= 2:
                for tr, va in GroupKFold(folds).split(x, groups=groups):
                    net = SigmoidNetwork(hidden=self.hidden, seed=self.seed, decay=decay).fit(x[tr], labels[tr],
                                                                                              n_classes)
                    loss += _log_loss(net.outputs(x[va]), labels[va]) * len(va)
            losses.append(loss)
        self.decay = DECAYS[int(np.argmin(losses))]
        rng = np.random.default_rng(self.seed)
        self.members = []
        for b in range(BAGS):
            pick = rng.integers(0, len(x), len(x))
            self.members.append(SigmoidNetwork(hidden=self.hidden, seed=self.seed * 1000 + b + 1,
                                               decay=self.decay).fit(x[pick], labels[pick], n_classes))
        return self

    def outputs(self, x: np.ndarray) -> np.ndarray:
        return np.mean([m.outputs(x) for m in self.members], axis=0)

    def predict(self, x: np.ndarray) -> np.ndarray:
        return np.argmax(self.outputs(x), axis=1)


def _net_json(net):
    if isinstance(net, BaggedNetwork):
        return [_net_json(m) for m in net.members]
    return {"hidden": net.hidden, "weights": [w.tolist() for w in net.weights]}


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
    assignment : str
        ``hard`` (seed, III-D: the highest output picks one centroid) or
        ``soft`` (ours: centroids weighted by the normalised outputs).
    classifier : str
        ``seed`` (one network per cluster set, as III-D) or ``bagged``
        (ours: :class:`BaggedNetwork`).

    ``fit(times, counters)``: ``times`` is (kernels, SM counts, core clocks,
    memory clocks); ``counters`` (kernels, features) measured at the base.
    ``predict(counters, t0, target)``: the time at grid point ``target`` of
    a kernel that ran ``t0`` at the base.
    """
    n_clusters: int = 12
    base: tuple = (0, 0, 0)
    seed: int = 0
    assignment: str = "hard"
    classifier: str = "seed"
    lo_: np.ndarray | None = None
    hi_: np.ndarray | None = None
    centroids_: dict = field(default_factory=dict)
    networks_: dict = field(default_factory=dict)
    labels_: dict = field(default_factory=dict)
    shape_: tuple = ()
    meta_: dict = field(default_factory=dict)

    def _normalise(self, counters: np.ndarray) -> np.ndarray:
        span = np.where(self.hi_ > self.lo_, self.hi_ - self.lo_, 1.0)
        return (np.asarray(counters, float) - self.lo_) / span

    def fit(self, times: np.ndarray, counters: np.ndarray, groups=None) -> "ScalingModel":
        """``groups`` (one label per kernel, e.g. its application) groups the
        bagged classifier's inner folds; the seed's classifier ignores it."""
        from sklearn.cluster import KMeans

        if self.assignment not in ASSIGNMENTS:
            raise ValueError(f"assignment {self.assignment!r} is not one of {', '.join(ASSIGNMENTS)}")
        if self.classifier not in CLASSIFIERS:
            raise ValueError(f"classifier {self.classifier!r} is not one of {', '.join(CLASSIFIERS)}")
        times, counters = check_training_set(times, counters)
        n, nc, ne, nm = times.shape
        self.shape_ = (nc, ne, nm)
        self.lo_, self.hi_ = counters.min(0), counters.max(0)
        x = self._normalise(counters)
        k = min(self.n_clusters, n)
        for name, feats in self.scaling_sets(times).items():
            km = KMeans(n_clusters=k, n_init=10, random_state=self.seed).fit(feats)
            self.labels_[name] = km.labels_
            self.centroids_[name] = km.cluster_centers_
            if self.classifier == "bagged":
                self.networks_[name] = BaggedNetwork(hidden=k, seed=self.seed).fit(x, km.labels_, k, groups)
            else:
                self.networks_[name] = SigmoidNetwork(hidden=k, seed=self.seed).fit(x, km.labels_, k)
        return self

    def scaling_sets(self, times: np.ndarray) -> dict:
        """The clustered vectors of each kernel: per SM count c, its engine
        and memory scaling values ("cu<c>"); the SM-count values at the
        base clocks ("cu")."""
        n, nc = times.shape[:2]
        E, M = engine_scaling(times), memory_scaling(times)
        sets = {f"cu{c}": np.hstack([E[:, c].reshape(n, -1), M[:, c].reshape(n, -1)]) for c in range(nc)}
        sets["cu"] = cu_scaling(times, self.base[1], self.base[2])
        return sets

    def nearest_clusters(self, times: np.ndarray) -> dict:
        """The cluster of each set nearest to each kernel's measured scaling
        values: the best any classifier could pick (an oracle for kernels
        outside the training set)."""
        return {name: ((v[:, None, :] - self.centroids_[name][None]) ** 2).sum(-1).argmin(1)
                for name, v in self.scaling_sets(np.asarray(times, float)).items()}

    def picks(self, counters: np.ndarray) -> dict:
        """The cluster each network chooses, per cluster set: {set: (kernels,)}."""
        x = self._normalise(np.atleast_2d(counters))
        return {name: net.predict(x) for name, net in self.networks_.items()}

    def weights(self, counters: np.ndarray) -> dict:
        """Each centroid's weight in each kernel's surface, per cluster set:
        {set: (kernels, k)}; one-hot on the picks for ``hard``, the
        network's outputs normalised to sum to one for ``soft``."""
        x = self._normalise(np.atleast_2d(counters))
        if self.assignment == "hard":
            return {name: _one_hot(net.predict(x), len(self.centroids_[name])) for name, net in self.networks_.items()}
        out = {}
        for name, net in self.networks_.items():
            o = net.outputs(x)
            out[name] = o / np.maximum(o.sum(axis=1, keepdims=True), 1e-300)
        return out

    def surfaces(self, weights: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each kernel's scaling values, its centroids weighted by
        ``weights`` ({set: (kernels, k)}, or {set: (kernels,)} cluster
        indices): C (kernels, nc-1), E (kernels, nc, nm, ne-1), M (kernels,
        nc, ne, nm-1)."""
        nc, ne, nm = self.shape_
        w = {name: (_one_hot(v, len(self.centroids_[name])) if np.ndim(v) == 1 else v) for name, v in weights.items()}
        C = w["cu"] @ self.centroids_["cu"]
        n = len(C)
        E = np.empty((n, nc, nm, ne - 1))
        M = np.empty((n, nc, ne, nm - 1))
        for c in range(nc):
            v = w[f"cu{c}"] @ self.centroids_[f"cu{c}"]
            E[:, c] = v[:, :nm * (ne - 1)].reshape(n, nm, ne - 1)
            M[:, c] = v[:, nm * (ne - 1):].reshape(n, ne, nm - 1)
        return C, E, M

    def predict_grid(self, counters: np.ndarray, t0, picks: dict | None = None) -> np.ndarray:
        """Every grid point of every kernel (kernels, nc, ne, nm) from its
        base-configuration counters and time ``t0`` (eq. 1 through
        :func:`scale_grid`).  ``picks`` ({set: cluster per kernel})
        overrides the networks' choice (the seed's oracle classifier, V-B2:
        ``labels_`` of the training kernels)."""
        C, E, M = self.surfaces(self.weights(counters) if picks is None else picks)
        return scale_grid(np.atleast_1d(np.asarray(t0, float)), self.base, C, E, M)

    def predict(self, counters: np.ndarray, t0: float, target: tuple[int, int, int]) -> float:
        return float(self.predict_grid(counters, t0)[(0, *target)])

    def save(self, path) -> None:
        """Everything a later prediction needs: no retraining, no sweep."""
        data = {"method": "clusters", "n_clusters": self.n_clusters, "base": list(self.base), "seed": self.seed,
                "assignment": self.assignment, "classifier": self.classifier,
                "shape": list(self.shape_), "meta": self.meta_, "lo": self.lo_.tolist(), "hi": self.hi_.tolist(),
                "centroids": {k: v.tolist() for k, v in self.centroids_.items()},
                "networks": {k: _net_json(n) for k, n in self.networks_.items()}}
        from ..io import write_text
        write_text(json.dumps(data, sort_keys=True), path)

    @classmethod
    def load(cls, path) -> "ScalingModel":
        """A model saved by :meth:`save` (a seed network is one object, a
        bagged one the list of its members)."""
        return cls.from_dict(json.loads(Path(path).read_text()))

    @classmethod
    def from_dict(cls, d: dict) -> "ScalingModel":
        m = cls(n_clusters=d["n_clusters"], base=tuple(d["base"]), seed=d["seed"],
                assignment=d.get("assignment", "hard"), classifier=d.get("classifier", "seed"))
        m.shape_ = tuple(d["shape"])
        m.meta_ = d.get("meta", {})
        m.lo_, m.hi_ = np.array(d["lo"]), np.array(d["hi"])
        m.centroids_ = {k: np.array(v) for k, v in d["centroids"].items()}
        nets = {k: [SigmoidNetwork(hidden=n["hidden"], weights=[np.array(w) for w in n["weights"]])
                    for n in (v if isinstance(v, list) else [v])] for k, v in d["networks"].items()}
        m.networks_ = {k: (BaggedNetwork(hidden=v[0].hidden, members=v) if m.classifier == "bagged" else v[0])
                       for k, v in nets.items()}
        return m
