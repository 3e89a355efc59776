"""Host drivers of the CUDA benchmark suite (see docs/workloads.md)."""
from . import (bfs, bitonic, blackscholes, cfd, conv2d, gather, gemv, histogram, hotspot, kmeans,  # noqa: F401
               lbm, matmul, mri_gridding, mst, nbody, nw, reduction, scan, spmv, sssp, stencil3d, streamcluster)
from .base import REGISTRY, CheckError, Workload

__all__ = ["REGISTRY", "CheckError", "Workload", "get"]


def get(name: str, size: str = "small", seed: int = 1, **params) -> Workload:
    """The driver ``name`` for a size and seed, with parameter overrides."""
    if name not in REGISTRY:
        raise KeyError(f"unknown workload {name!r}; known: {sorted(REGISTRY)}")
    return REGISTRY[name](size=size, seed=seed, **params)
