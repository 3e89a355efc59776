"""The scaling model (seed 004, III-B to III-D) on hand-worked and synthetic grids."""
import numpy as np
import pytest

from pipeline_lib.scaling.model import (ScalingModel, SigmoidNetwork, cu_scaling, engine_scaling, memory_scaling,
                                        scale)

CUS = np.array([2, 4, 8])
ENG = np.array([400.0, 600.0, 800.0, 1000.0])
MEM = np.array([400.0, 600.0, 800.0, 1000.0])


def _time(kind, w=1.0):
    """Synthetic kernels: compute-bound time ~ 1 / (SMs x core clock), memory-bound ~ 1 / memory clock."""
    c, e, m = np.meshgrid(CUS, ENG, MEM, indexing="ij")
    if kind == "compute":
        return w * 1e6 / (c * e)
    if kind == "memory":
        return w * 1e3 / m + 0 * c
    return w * (5e5 / (c * e) + 5e2 / m)


def test_equation1_reproduces_every_grid_point_from_the_base():
    T = _time("mixed")
    E, M, C = engine_scaling(T), memory_scaling(T), cu_scaling(T, 0, 0)
    for c in range(3):
        for e in range(4):
            for m in range(4):
                assert scale(T[0, 0, 0], (0, 0, 0), (c, e, m), C, E, M) == pytest.approx(T[c, e, m])
    # the seed's example: t33 = t00 x the engine steps at memory 0 x the memory steps at engine 3
    t = T[0]
    assert t[3, 3] == pytest.approx(t[0, 0] * np.prod(E[0, 0]) * np.prod(M[0, 3]))
    # scaling down uses reciprocals
    assert scale(T[2, 3, 3], (2, 3, 3), (0, 0, 0), C, E, M) == pytest.approx(T[0, 0, 0])


def test_scaling_values_by_hand():
    T = np.arange(1, 2 * 2 * 3 + 1, dtype=float).reshape(2, 2, 3)   # T[c, e, m]: c=0 is 1..6, c=1 is 7..12
    np.testing.assert_allclose(engine_scaling(T)[0], [[4 / 1], [5 / 2], [6 / 3]])
    np.testing.assert_allclose(memory_scaling(T)[1], [[8 / 7, 9 / 8], [11 / 10, 12 / 11]])
    np.testing.assert_allclose(cu_scaling(T, 0, 0), [7 / 1])
    # kernels as a leading axis
    assert engine_scaling(np.stack([T, 2 * T])).shape == (2, 2, 3, 1)


def test_network_learns_a_separable_mapping_deterministically():
    rng = np.random.default_rng(0)
    x = rng.random((60, 3))
    y = (x[:, 0] > 0.5).astype(int) + (x[:, 1] > 0.5).astype(int)
    a = SigmoidNetwork(hidden=3).fit(x, y, 3)
    b = SigmoidNetwork(hidden=3).fit(x, y, 3)
    assert (a.predict(x) == y).mean() > 0.9
    assert np.array_equal(a.outputs(x), b.outputs(x))
    assert ((a.outputs(x) > 0) & (a.outputs(x) < 1)).all()


def test_model_clusters_scaling_kinds_and_predicts_held_out_kernels(tmp_path):
    rng = np.random.default_rng(1)
    kinds = ["compute", "memory", "mixed"] * 8
    times = np.stack([_time(k, rng.uniform(0.5, 2)) * rng.uniform(0.98, 1.02, (3, 4, 4)) for k in kinds])
    # counters at the base: a memory-intensity measure that separates the kinds, plus noise
    mem = {"compute": 0.1, "memory": 0.9, "mixed": 0.5}
    counters = np.array([[mem[k] + rng.normal(0, 0.03), rng.random()] for k in kinds])
    model = ScalingModel(n_clusters=3).fit(times[:21], counters[:21])
    # compute- and memory-bound kernels never share a cluster (mixed ones may join either: at 2 SMs they are
    # compute-bound, at 8 closer to memory-bound)
    for name, labels in model.labels_.items():
        comp = {labels[i] for i in range(21) if kinds[i] == "compute"}
        memo = {labels[i] for i in range(21) if kinds[i] == "memory"}
        assert not comp & memo, name
    errs = [abs(model.predict(counters[i], times[i, 0, 0, 0], (2, 3, 3)) - times[i, 2, 3, 3]) / times[i, 2, 3, 3]
            for i in range(21, 24)]
    assert max(errs) < 0.06
    # saved and loaded, the model predicts the same without the training data
    model.save(tmp_path / "m.json")
    again = ScalingModel.load(tmp_path / "m.json")
    assert again.predict(counters[22], 1.0, (1, 2, 0)) == model.predict(counters[22], 1.0, (1, 2, 0))


def test_bad_training_data_is_explained():
    with pytest.raises(ValueError, match="kernels, SM counts"):
        ScalingModel().fit(np.ones((2, 3, 4)), np.ones((2, 1)))
    with pytest.raises(ValueError, match="finite and positive"):
        ScalingModel().fit(np.zeros((2, 1, 2, 2)), np.ones((2, 1)))
