"""Scalar floating-point helpers for the emulator (numba-compiled).

PTX fixes the rounding of every f32 operation; numpy/LLVM give us f32 and f64
arithmetic in round-to-nearest only.  Fused multiply-add and the directed
rounding modes (``.rz .rm .rp``) are therefore computed as an exact or
error-compensated double-precision pair ``s + e`` (Knuth's TwoSum) and then
rounded to f32 in the requested mode, which is exact for f32 fma and f32
add/sub/mul.  For f64 fma the pair comes from Dekker's TwoProduct and is
correct except in rare double-rounding cases (documented deviation).
"""
import math

import numpy as np
from numba import njit

F32_MIN_NORMAL = 1.1754943508222875e-38
F64_MIN_NORMAL = 2.2250738585072014e-308


@njit(inline="always", cache=True)
def two_sum(a, b):
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


@njit(inline="always", cache=True)
def _split(a):
    c = 134217729.0 * a  # 2^27 + 1
    hi = c - (c - a)
    return hi, a - hi


@njit(inline="always", cache=True)
def two_prod(a, b):
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


@njit(cache=True)
def round_pair_f32(s, e, mode):
    """Round the exact value s + e (f64 pair) to f32. mode: 0 rn, 1 rz, 2 rm, 3 rp."""
    r = np.float32(s)
    rd = np.float64(r)
    if math.isnan(s) or math.isinf(s):
        return r
    if mode == 0:
        if e != 0.0 and rd != s:
            if s > rd:
                nb = np.nextafter(r, np.float32(np.inf))
            else:
                nb = np.nextafter(r, np.float32(-np.inf))
            mid = (rd + np.float64(nb)) * 0.5
            if s == mid:
                if (e > 0.0) == (np.float64(nb) > rd):
                    r = nb
        return r
    if mode == 1:
        down = s > 0.0 or (s == 0.0 and e > 0.0)
    else:
        down = mode == 2
    if down:
        if rd > s or (rd == s and e < 0.0):
            r = np.nextafter(r, np.float32(-np.inf))
    else:
        if rd < s or (rd == s and e > 0.0):
            r = np.nextafter(r, np.float32(np.inf))
    return r


@njit(cache=True)
def round_pair_f64(s, e, mode):
    """Round s + e to f64 in a directed mode (mode 0: s itself)."""
    if mode == 0 or e == 0.0 or math.isnan(s) or math.isinf(s):
        return s
    if mode == 1:
        down = s > 0.0
    else:
        down = mode == 2
    if down and e < 0.0:
        return np.nextafter(s, -np.inf)
    if (not down) and e > 0.0:
        return np.nextafter(s, np.inf)
    return s


@njit(inline="always", cache=True)
def ftz32(x):
    if abs(x) < F32_MIN_NORMAL:
        return np.float32(math.copysign(0.0, x))
    return x


@njit(cache=True)
def fma_f32(a, b, c, mode):
    p = np.float64(a) * np.float64(b)   # exact: 24 + 24 bits
    s, e = two_sum(p, np.float64(c))
    return round_pair_f32(s, e, mode)


@njit(cache=True)
def fma_f64(a, b, c, mode):
    p, pe = two_prod(a, b)
    s, e1 = two_sum(p, c)
    s2, e2 = two_sum(s, e1 + pe)
    return round_pair_f64(s2, e2, mode)


@njit(cache=True)
def add_f32(a, b, mode):
    if mode == 0:
        return np.float32(a + b)
    s, e = two_sum(np.float64(a), np.float64(b))
    return round_pair_f32(s, e, mode)


@njit(cache=True)
def mul_f32(a, b, mode):
    if mode == 0:
        return np.float32(a * b)
    return round_pair_f32(np.float64(a) * np.float64(b), 0.0, mode)


@njit(cache=True)
def round_int_f64(x, mode):
    """Round to an integral value: 4 rni (even), 5 rzi, 6 rmi, 7 rpi."""
    if mode == 5:
        return np.trunc(x)
    if mode == 6:
        return np.floor(x)
    if mode == 7:
        return np.ceil(x)
    return np.rint(x)


@njit(cache=True)
def fmin(a, b):
    if a != a:
        return b
    if b != b:
        return a
    if a == b:  # -0 < +0 for min
        return a if math.copysign(1.0, a) < 0 else b
    return a if a < b else b


@njit(cache=True)
def fmax(a, b):
    if a != a:
        return b
    if b != b:
        return a
    if a == b:
        return a if math.copysign(1.0, a) > 0 else b
    return a if a > b else b
