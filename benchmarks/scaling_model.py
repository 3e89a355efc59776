"""Time the scaling model (seed 004) at the paper grid's shape: training one
model (9 cluster sets: 8 SM counts + SM scaling, k = 12, 38 training kernel
instances, 21 counters) and predicting one kernel at all 447 other points.
Synthetic times (compute-, memory- and mixed-bound kernels) stand in for a
dataset; only the shapes matter for the cost.  Prints seconds.

    .venv/bin/python benchmarks/scaling_model.py
"""
import time

import numpy as np

from pipeline_lib.scaling.counters import FEATURE_NAMES
from pipeline_lib.scaling.model import ScalingModel


def main():
    rng = np.random.default_rng(0)
    sm = np.arange(2, 17, 2)[:, None, None]
    cc = np.arange(300, 1001, 100)[None, :, None]
    mc = np.linspace(700, 2000, 7)[None, None, :]
    n = 48
    mix = rng.random(n)[:, None, None, None]
    times = mix * 1e6 / (sm * cc) + (1 - mix) * 1e3 / mc + 0 * sm
    counters = rng.random((n, len(FEATURE_NAMES)))
    train, test = np.arange(38), np.arange(38, n)
    ScalingModel(12, base=(3, 3, 3)).fit(times[:4], counters[:4])     # compile once
    t = time.perf_counter()
    model = ScalingModel(12, base=(3, 3, 3)).fit(times[train], counters[train])
    fit_s = time.perf_counter() - t
    reps = 200
    t = time.perf_counter()
    for _ in range(reps):
        model.predict_grid(counters[test[:1]], times[test[:1], 3, 3, 3])
    pred_s = (time.perf_counter() - t) / reps
    print(f"train one model (8 x 8 x 7 grid, {len(train)} kernels, k = 12, 9 cluster sets): {fit_s:.2f} s")
    print(f"predict one kernel at all {times[0].size - 1} other points: {1e3 * pred_s:.3f} ms "
          f"({1e6 * pred_s / (times[0].size - 1):.2f} us per target)")


if __name__ == "__main__":
    main()
