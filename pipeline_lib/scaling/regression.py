"""Direct regression of the scaling surface from base counters (ours; an
alternative to seed 004's clusters and classifiers, III-C/III-D).

The seed reduces every kernel's scaling to one of k centroid surfaces and
trains networks to pick the centroid from the counters measured at the
base.  Its own analysis (V-B2) and ours (docs/scaling.md, Error sources)
put most of the held-out error on that pick: with few training kernels per
behaviour, a wrong pick costs a whole surface.  Here the surface itself is
the target: for each kernel, ``log(T[c, e, m] / T[base])`` at every grid
point, predicted from the base counters by multi-output extremely
randomised tree ensembles (Geurts, Ernst and Wehenkel, Machine Learning 63,
2006; scikit-learn's ``ExtraTreesRegressor`` with its default parameters,
none chosen by us), one per SM count of the grid.  Multi-output trees split
on a whole slice of the surface, so the prediction is always an average of
training kernels' measured surfaces (consistent across the slice), weighted
by how often they share a leaf with the new kernel: a soft, data-chosen
neighbourhood in place of k fixed clusters.  Trees need no input scaling and
ignore counters that carry no information, which suits the 31 extended
counters on 60-odd kernels.

One ensemble per target SM count (ours) rather than one for the whole grid:
a multi-output split minimises the variance summed over its outputs, so a
single forest picks each kernel's neighbours by the outputs that vary most
(the far SM counts) for every output; how a kernel scales to 2 SMs and to
16 depends on different things (waves, shared L2 and DRAM traffic).  Chosen
on inner folds of the training applications only (docs/scaling.md,
"Model variants"); the clock axes stay joint within an SM count.

The estimator has the interface of :class:`.model.ScalingModel`:
``fit(times, counters)``, ``predict_grid(counters, t0)``, ``save``/``load``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .model import check_training_set

#: trees of the ensemble (scikit-learn's default)
N_TREES = 100


@dataclass
class SurfaceRegression:
    """Multi-output regression of the log scaling surface.

    Parameters
    ----------
    base : tuple
        Grid indices (c, e, m) of the base configuration.
    seed : int
        Seeds the trees' random splits (deterministic fits).
    """
    base: tuple = (0, 0, 0)
    seed: int = 0
    shape_: tuple = ()
    meta_: dict = field(default_factory=dict)
    x_: np.ndarray | None = None
    y_: np.ndarray | None = None
    forests_: list = field(default_factory=list)

    def fit(self, times: np.ndarray, counters: np.ndarray) -> "SurfaceRegression":
        times, counters = check_training_set(times, counters)
        self.shape_ = times.shape[1:]
        c, e, m = self.base
        self.x_ = counters
        self.y_ = np.log(times / times[:, c, e, m][:, None, None, None]).reshape(len(times), -1)
        return self._grow()

    def _slices(self) -> list[slice]:
        """The columns of ``y_`` (row-major over (c, e, m)) of each SM count."""
        per_sm = int(np.prod(self.shape_[1:]))
        return [slice(i * per_sm, (i + 1) * per_sm) for i in range(self.shape_[0])]

    def _grow(self) -> "SurfaceRegression":
        from sklearn.ensemble import ExtraTreesRegressor

        self.forests_ = [ExtraTreesRegressor(n_estimators=N_TREES, random_state=self.seed).fit(self.x_, self.y_[:, s])
                         for s in self._slices()]
        return self

    def predict_grid(self, counters: np.ndarray, t0) -> np.ndarray:
        """Every grid point of every kernel (kernels, nc, ne, nm) from its
        base-configuration counters and its value ``t0`` at the base."""
        x = np.atleast_2d(np.asarray(counters, float))
        t0 = np.atleast_1d(np.asarray(t0, float))
        log_ratio = np.concatenate([f.predict(x).reshape(len(x), -1) for f in self.forests_], axis=1)
        log_ratio = log_ratio.reshape((len(x),) + tuple(self.shape_))
        return t0[:, None, None, None] * np.exp(log_ratio)

    def predict(self, counters: np.ndarray, t0: float, target: tuple[int, int, int]) -> float:
        return float(self.predict_grid(counters, t0)[(0, *target)])

    def save(self, path) -> None:
        """The training set and seed: :meth:`load` grows the same trees again
        (a fixed seed gives the same forest), so the artifact is plain JSON
        and the same bytes on every run."""
        data = {"method": "regression", "base": list(self.base), "seed": self.seed, "shape": list(self.shape_),
                "meta": self.meta_, "x": self.x_.tolist(), "y": self.y_.tolist()}
        from ..io import write_text
        write_text(json.dumps(data, sort_keys=True), path)

    @classmethod
    def load(cls, path) -> "SurfaceRegression":
        return cls.from_dict(json.loads(Path(path).read_text()))

    @classmethod
    def from_dict(cls, d: dict) -> "SurfaceRegression":
        m = cls(base=tuple(d["base"]), seed=d["seed"])
        m.shape_ = tuple(d["shape"])
        m.meta_ = d.get("meta", {})
        m.x_, m.y_ = np.array(d["x"], float), np.array(d["y"], float)
        return m._grow()
