"""Host drivers of the CUDA benchmark suite (see docs/workloads.md)."""
from . import (bfs, blackscholes, cfd, histogram, hotspot, kmeans, lbm, matmul, mri_gridding,  # noqa: F401
               mst, reduction, spmv, sssp, streamcluster)
from .base import REGISTRY, CheckError, Workload

__all__ = ["REGISTRY", "CheckError", "Workload", "get"]


def get(name: str, size: str = "small", seed: int = 1, **params) -> Workload:
    """The driver ``name`` for a size and seed, with parameter overrides."""
    if name not in REGISTRY:
        raise KeyError(f"unknown workload {name!r}; known: {sorted(REGISTRY)}")
    return REGISTRY[name](size=size, seed=seed, **params)
