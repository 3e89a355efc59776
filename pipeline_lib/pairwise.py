"""numpy's summation, bit for bit, in numba-compiled code.

numpy sums a float array pairwise (``pairwise_sum`` in its C sources: in
order below 8 elements, 8 running sums up to 128, the two halves above),
so a compiled loop that adds in order gives other last bits.  Where a
compiled form replaces numpy code whose outputs are kept (GPUMech's
contention model, TBPoint's epoch table), these functions keep them
byte-identical; tests/test_pairwise.py checks them against numpy.

numba keeps a compiled caller's copy of these functions in the caller's
own cache, which it does not invalidate when this file changes: after an
edit here, clear the ``__pycache__/*.nbi``/``*.nbc`` files of the modules
that import it.
"""
import numpy as np
from numba import njit

_PW_BLOCK = 128       # numpy's pairwise summation: blocks of 8 partial sums up to this length, halves above
_BUFSIZE = 8192       # numpy's iterator buffer (elements): a strided 2-D reduction goes through it in rows


@njit(cache=True)
def _block(a, lo, n):
    """numpy's ``pairwise_sum`` of ``a[lo:lo + n]`` for ``n`` up to
    :data:`_PW_BLOCK`: in order below 8 elements, else 8 running sums."""
    if n < 8:
        res = -0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    m = n - n % 8
    while i < m:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True)
def pairwise_sum(a, lo, n):
    """numpy's ``pairwise_sum`` of ``a[lo:lo + n]``: above :data:`_PW_BLOCK`
    elements the sum of its two halves (the first a multiple of 8).  The
    recursion runs on an explicit stack: numba cannot load a recursive
    function from its cache (it crashes)."""
    if n <= _PW_BLOCK:
        return _block(a, lo, n)
    los, lens = np.empty(64, np.int64), np.empty(64, np.int64)
    stage, left = np.zeros(64, np.int64), np.empty(64)   # stage 1: left half pending, 2: right half pending
    sp = 0
    los[0], lens[0] = lo, n
    while True:
        m = lens[sp]
        if m > _PW_BLOCK:                  # split: the left half first
            stage[sp] = 1
            h = m // 2
            h -= h % 8
            los[sp + 1], lens[sp + 1] = los[sp], h
            sp += 1
            continue
        v = _block(a, los[sp], m)
        sp -= 1
        while sp >= 0 and stage[sp] == 2:  # right halves done: add them to their left halves
            v = left[sp] + v
            sp -= 1
        if sp < 0:
            return v
        left[sp] = v                       # a left half done: its right half next
        stage[sp] = 2
        h = lens[sp] // 2
        h -= h % 8
        los[sp + 1], lens[sp + 1] = los[sp] + h, lens[sp] - h
        sp += 1


@njit(cache=True)
def np_sum(a):
    """``a.sum()`` of a 1-D array (contiguous or a column), as numpy computes it."""
    return 0.0 + pairwise_sum(a, 0, len(a))


@njit(cache=True)
def np_sum_block(A, c0, c1):
    """``A[:, c0:c1].sum()`` as numpy computes it: a single column as a 1-D
    sum; wider blocks, which its iterator copies into its buffer a whole
    number of rows at a time, as one pairwise sum per buffer load."""
    k = c1 - c0
    if k == 1:
        return np_sum(A[:, c0])
    rows = max(1, _BUFSIZE // k)
    buf = np.empty(rows * k)
    acc = 0.0
    for r0 in range(0, A.shape[0], rows):
        m = 0
        for i in range(r0, min(r0 + rows, A.shape[0])):
            for j in range(c0, c1):
                buf[m] = A[i, j]
                m += 1
        acc = acc + pairwise_sum(buf, 0, m)
    return acc
