"""Seeded input generators for the benchmark drivers.

Graphs are CSR (``row_ptr``, ``col_idx``) int32 arrays.  ``rmat_graph`` is the
R-MAT recursive-matrix generator (Chakrabarti et al., SDM 2004), i.e. a
stochastic Kronecker graph with a 2x2 initiator; ``road_graph`` is a
planar-like grid with random missing streets and a few diagonals, whose long
diameter gives many BFS/SSSP levels (road networks' behaviour).
"""
from __future__ import annotations

import numpy as np

from .params import Param


def _csr_from_edges(n: int, src: np.ndarray, dst: np.ndarray, *weights):
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    row_ptr = np.zeros(n + 1, np.int32)
    np.add.at(row_ptr, src + 1, 1)
    np.cumsum(row_ptr, out=row_ptr)
    return (row_ptr, dst.astype(np.int32)) + tuple(w[order] for w in weights)


def _dedupe(src, dst):
    keep = src != dst
    src, dst = src[keep], dst[keep]
    key = src.astype(np.int64) * (1 << 32) + dst
    _, idx = np.unique(key, return_index=True)
    idx.sort()
    return src[idx], dst[idx]


def rmat_edges(scale: int, edge_factor: int, rng: np.random.Generator,
               abcd=(0.57, 0.19, 0.19, 0.05)):
    """Directed R-MAT edge list (duplicates and self loops removed)."""
    n = 1 << scale
    m = n * edge_factor
    a, b, c, _ = abcd
    src = np.zeros(m, np.int64)
    dst = np.zeros(m, np.int64)
    for bit in range(scale):
        r = rng.random(m)
        # quadrant choice: a (0,0), b (0,1), c (1,0), d (1,1)
        i_bit = r >= a + b
        j_bit = ((r >= a) & (r < a + b)) | (r >= a + b + c)
        src |= i_bit.astype(np.int64) << bit
        dst |= j_bit.astype(np.int64) << bit
    # permute vertex ids so hubs are not clustered at low ids
    perm = rng.permutation(n)
    return n, *_dedupe(perm[src], perm[dst])


def road_edges(rows: int, cols: int, rng: np.random.Generator, drop: float = 0.1,
               diagonal: float = 0.05):
    """Grid graph with dropped streets and occasional diagonals (directed both ways)."""
    n = rows * cols
    vid = np.arange(n).reshape(rows, cols)
    pairs = [np.stack([vid[:, :-1].ravel(), vid[:, 1:].ravel()], 1),
             np.stack([vid[:-1, :].ravel(), vid[1:, :].ravel()], 1)]
    e = np.concatenate(pairs)
    e = e[rng.random(len(e)) >= drop]
    diag = np.stack([vid[:-1, :-1].ravel(), vid[1:, 1:].ravel()], 1)
    e = np.concatenate([e, diag[rng.random(len(diag)) < diagonal]])
    src = np.concatenate([e[:, 0], e[:, 1]])
    dst = np.concatenate([e[:, 1], e[:, 0]])
    return n, *_dedupe(src, dst)


def make_graph(kind: str, rng: np.random.Generator, *, scale: int = 10, edge_factor: int = 8,
               rows: int = 32, cols: int = 32, symmetric: bool = False, max_weight: int = 0):
    """A CSR graph. kind: ``rmat`` or ``road``. With max_weight > 0, integer
    weights in [1, max_weight] are drawn per undirected edge (equal in both
    directions) and ``edge_id`` numbers the undirected edges."""
    if kind == "rmat":
        n, src, dst = rmat_edges(scale, edge_factor, rng)
    elif kind == "road":
        n, src, dst = road_edges(rows, cols, rng)
    else:
        raise ValueError(f"unknown graph kind {kind!r} (expected 'rmat' or 'road')")
    if symmetric:
        lo, hi = np.minimum(src, dst), np.maximum(src, dst)
        src, dst = _dedupe(np.concatenate([lo, hi]), np.concatenate([hi, lo]))
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    und_key = lo.astype(np.int64) * n + hi
    uniq, edge_id = np.unique(und_key, return_inverse=True)
    w_und = rng.integers(1, max(1, max_weight) + 1, len(uniq)).astype(np.int32)
    row_ptr, col_idx, weight, eid = _csr_from_edges(n, src, dst, w_und[edge_id], edge_id.astype(np.int32))
    g = {"n": n, "row_ptr": row_ptr, "col_idx": col_idx}
    if max_weight:
        g["weight"] = weight
        g["edge_id"] = eid
        g["edge_u"] = (uniq // n).astype(np.int32)
        g["edge_v"] = (uniq % n).astype(np.int32)
    return g


def random_csr(n_rows: int, n_cols: int, mean_nnz: float, rng: np.random.Generator,
               skew: float = 1.0):
    """Sparse matrix with row lengths from a (skewable) geometric-like law."""
    lam = rng.gamma(1.0 / skew, mean_nnz * skew, n_rows)
    lengths = np.minimum(rng.poisson(lam), n_cols).astype(np.int64)
    row_ptr = np.zeros(n_rows + 1, np.int32)
    np.cumsum(lengths, out=row_ptr[1:])
    cols = np.concatenate([np.sort(rng.choice(n_cols, k, replace=False)) if k else np.zeros(0, np.int64)
                           for k in lengths]).astype(np.int32)
    vals = rng.uniform(-1, 1, len(cols)).astype(np.float32)
    return row_ptr, cols, vals


def graph_params(weighted: bool = False) -> dict:
    """Declared parameters of a driver whose input is :func:`make_graph`."""
    specs = {
        "graph": Param(str, "input graph: R-MAT (power-law) or road-like grid", choices=("rmat", "road")),
        "scale": Param(int, "R-MAT graph: 2^scale vertices", min=1, max=26),
        "edge_factor": Param(int, "R-MAT graph: edges per vertex", min=1),
        "rows": Param(int, "road graph: grid rows", min=2),
        "cols": Param(int, "road graph: grid columns", min=2),
    }
    if weighted:
        specs["max_weight"] = Param(int, "edge weights are drawn from [1, max_weight]", min=1)
    return specs
