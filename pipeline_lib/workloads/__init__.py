"""Host drivers of the CUDA benchmark suite (see docs/workloads.md)."""
from . import (backprop, bfs, bitonic, blackscholes, cfd, cg, conv2d, floyd, gather, gemv,  # noqa: F401
               histogram, hotspot, kmeans, lbm, lud, mandelbrot, matmul, mri_gridding, mst, nbody, nw,
               pathfinder, reduction, scan, spmv, srad, sssp, stencil3d, streamcluster, transpose, tridiag)
from .base import REGISTRY, CheckError, Workload

__all__ = ["REGISTRY", "CheckError", "Workload", "get"]


def get(name: str, size: str = "small", seed: int = 1, **params) -> Workload:
    """The driver ``name`` for a size and seed, with parameter overrides."""
    if name not in REGISTRY:
        raise KeyError(f"unknown workload {name!r}; known: {sorted(REGISTRY)}")
    return REGISTRY[name](size=size, seed=seed, **params)
