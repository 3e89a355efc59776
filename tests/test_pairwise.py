"""numpy's summation order in compiled code (pipeline_lib/pairwise.py): the
sums the compiled GPUMech network and TBPoint's epoch table use must be
numpy's to the last bit, or their tables would change bytes."""
import numpy as np

from pipeline_lib.pairwise import np_sum, np_sum_block


def _values(rng, shape):
    return rng.random(shape) * 10.0 ** rng.uniform(-3, 3, shape)    # magnitudes that make the order matter


def test_one_dimensional_sums_are_numpys():
    rng = np.random.default_rng(0)
    for n in list(range(0, 300)) + [1000, 4097, 8191, 8193, 20000, 100001]:
        a = _values(rng, n)
        assert np_sum(a) == a.sum()
        m = _values(rng, (n, 3))
        assert np_sum(m[:, 1]) == m[:, 1].sum()          # a strided column


def test_block_sums_are_numpys():
    """``A[:, c0:c1].sum()``: numpy's buffered reduction over whole rows,
    also past its 8192-element buffer."""
    rng = np.random.default_rng(1)
    for rows in (1, 2, 5, 100, 1365, 1366, 3000, 9000):
        for k in (1, 2, 6, 12):
            A = _values(rng, (rows, k + 6))
            assert np_sum_block(A, 0, k) == A[:, :k].sum()
            assert np_sum_block(A, k, k + 6) == A[:, k:].sum()
