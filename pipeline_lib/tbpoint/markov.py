"""The Markov-chain model of a homogeneous interval (seed 000, 3.4.1, eq. 7,
Fig. 6 and Fig. 7).

Each of the N warps of an SM is runnable (1) or stalled (0).  A runnable
warp stalls with probability p per cycle (p = memory instructions / all
instructions); a stalled warp becomes runnable with probability 1/M_x
(M_x = its average stall cycles).  The GPU state is the N-bit vector of warp
states, warp 1 in the most significant bit, so the transition matrix T has
2^N x 2^N entries S_ij = prod_x f(A_i[x], A_j[x]) (eq. 7), and the IPC of the
interval is 1 - R_0, R_0 being the steady-state probability that every warp
is stalled.

Because S_ij is a product of per-warp factors, T is the Kronecker product of
the N per-warp 2x2 matrices F_x (:func:`warp_factor`).  That gives three ways
to the steady state, all implemented here:

* :func:`transition_matrix` builds T densely from the definition of S_ij
  (reference; memory 8 * 4^N bytes, so N <= 12 or so);
* :func:`steady_state` with ``method="power"`` iterates V <- V T from
  V_i = <0, ..., 0, 1> (all runnable, eq. 7) applying one 2x2 factor per warp
  to the state vector reshaped as N axes of length 2: O(N 2^N) per step, no
  matrix; memory 8 * 2^N bytes, so N up to about 26 on 24 GiB;
* ``method="product"``: the chains of the warps are independent, so the
  stationary vector is the Kronecker product of the per-warp stationary
  vectors (pi_x F_x = pi_x for every x implies (x pi_x)(x F_x) = x pi_x).
  The IPC alone then needs no state vector at all:
  IPC = 1 - prod_x p M_x / (1 + p M_x)  (:func:`interval_ipc`), which is what
  the Monte Carlo study uses; it has no limit on N.

The tests check the three against each other for small N.

Monte Carlo (Fig. 7): M_x ~ N(mu, sigma^2), sigma = 0.1 mu / 1.96, drawn
independently per warp and sample.  Deviation: draws below 1 cycle are
clipped to 1 (1/M must be a probability); with sigma = 5% of mu this happens
only for mu below about 1.1 cycles.
"""
from __future__ import annotations

import numpy as np
import pandas as pd


def warp_factor(p: float, m: float) -> np.ndarray:
    """The 2x2 per-warp factor F[a, b] = f(a, b) of eq. 7: index 0 stalled,
    1 runnable; rows are the current state."""
    _check(p, m)
    return np.array([[1.0 - 1.0 / m, 1.0 / m],
                     [p, 1.0 - p]])


def transition_matrix(p: float, ms) -> np.ndarray:
    """Dense T of eq. 7 for per-warp stall cycles ``ms`` (length N), built
    entry by entry from the definition of S_ij (reference implementation)."""
    ms = np.asarray(ms, float)
    n = len(ms)
    if n > 12:
        raise ValueError(f"dense transition matrix for N={n} warps needs {8 * 4 ** n / 2 ** 30:.0f} GiB; "
                         "use steady_state(method='power' or 'product')")
    size = 1 << n
    bits = (np.arange(size)[:, None] >> (n - 1 - np.arange(n))[None, :]) & 1   # [state, warp], warp 1 = MSB
    T = np.ones((size, size))
    for x in range(n):
        a = bits[:, x][:, None]
        b = bits[:, x][None, :]
        inv_m = 1.0 / ms[x]
        differ = a * p + (1 - a) * inv_m
        same = a * (1 - p) + (1 - a) * (1 - inv_m)
        T *= np.where(a != b, differ, same)
    return T


def steady_state(p: float, ms, method: str = "product", tol: float = 1e-12, max_iter: int = 1_000_000) -> np.ndarray:
    """Steady-state vector V_s of eq. 7 (length 2^N, state index = warp bits,
    warp 1 most significant).

    method : "product" (exact, from per-warp stationary vectors), "power"
        (V_i T^n until the L1 change is below ``tol``, with T applied factor by
        factor) or "dense" (power iteration with :func:`transition_matrix`).
    """
    ms = np.asarray(ms, float)
    n = len(ms)
    for m in ms:
        _check(p, m)
    if method == "product":
        v = np.ones(1)
        for m in ms:
            v = np.kron(v, _warp_stationary(p, m))
        return v
    if method not in ("power", "dense"):
        raise ValueError(f"method must be 'product', 'power' or 'dense', not {method!r}")
    size = 1 << n
    v = np.zeros(size)
    v[-1] = 1.0          # V_i = <0, ..., 0, 1>: all warps runnable
    T = transition_matrix(p, ms) if method == "dense" else None
    factors = [warp_factor(p, m) for m in ms]
    for _ in range(max_iter):
        if T is not None:
            nv = v @ T
        else:
            t = v.reshape((2,) * n)
            for x, f in enumerate(factors):     # contract axis x with F_x
                t = np.moveaxis(np.tensordot(t, f, axes=([x], [0])), -1, x)
            nv = t.reshape(size)
        if np.abs(nv - v).sum() < tol:
            return nv
        v = nv
    raise RuntimeError(f"power iteration did not converge in {max_iter} steps (p={p}, N={n})")


def interval_ipc(p: float, ms) -> float:
    """IPC = 1 - R_0 of eq. 7 for per-warp stall cycles ``ms`` (closed form of
    the product steady state: R_0 = prod_x p M_x / (1 + p M_x))."""
    ms = np.asarray(ms, float)
    for m in ms:
        _check(p, m)
    return float(1.0 - np.prod(p * ms / (1.0 + p * ms)))


def ipc_variation(p: float, mu: float, n: int, samples: int = 10_000, seed: int = 0) -> np.ndarray:
    """IPCs of ``samples`` Monte Carlo draws of M_x ~ N(mu, (0.1 mu / 1.96)^2)
    for each of ``n`` warps (seed 3.4.1, Lemma 1)."""
    if n < 1 or samples < 1:
        raise ValueError("n and samples must be at least 1")
    rng = np.random.default_rng(seed)
    ms = np.maximum(rng.normal(mu, 0.1 * mu / 1.96, size=(samples, n)), 1.0)
    return 1.0 - np.prod(p * ms / (1.0 + p * ms), axis=1)


def figure7_table(cases, samples: int = 10_000, seed: int = 0) -> pd.DataFrame:
    """One row per (p, M, N) case (Fig. 7 legend, e.g. p0.05M100N4): the
    IPC with every M_x = mu, the Monte Carlo mean, standard deviation,
    2.5 and 97.5 percentiles, largest deviation and the share of samples
    within 10% of the mean (Lemma 1 says more than 95%)."""
    rows = []
    for p, mu, n in cases:
        ipc = ipc_variation(p, mu, n, samples, seed)
        mean = float(ipc.mean())
        dev = np.abs(ipc - mean) / mean
        rows.append({"case": f"p{p:g}M{mu:g}N{n}", "p": float(p), "M": float(mu), "N": int(n),
                     "ipc_at_mean_M": interval_ipc(p, np.full(n, float(mu))), "ipc_mean": mean,
                     "ipc_std": float(ipc.std()), "ipc_p2_5": float(np.percentile(ipc, 2.5)),
                     "ipc_p97_5": float(np.percentile(ipc, 97.5)), "max_rel_deviation": float(dev.max()),
                     "within_10pct": float((dev <= 0.10).mean()), "samples": int(samples)})
    return pd.DataFrame(rows)


def _warp_stationary(p: float, m: float) -> np.ndarray:
    # balance of the 2-state chain: pi_run * p = pi_stall / m
    run = 1.0 / (1.0 + p * m)
    return np.array([1.0 - run, run])


def _check(p: float, m: float) -> None:
    if not 0.0 < p <= 1.0:
        raise ValueError(f"stall probability p must be in (0, 1], got {p}")
    if not m >= 1.0:
        raise ValueError(f"average stall cycles M must be at least 1, got {m}")
