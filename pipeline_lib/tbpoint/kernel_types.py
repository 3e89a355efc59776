"""Regular and irregular kernels (seed 000, 3.5, Fig. 10 and Table 6).

The seed classifies a kernel by eye from its thread-block sizes (thread
instructions per block over the mean of all blocks): a regular kernel's
sizes follow a pattern, an irregular kernel's do not.  We make that a rule
(a deviation, stated in docs/tbpoint.md): a workload is regular when the
coefficient of variation of block sizes inside a launch, weighted by the
launch's blocks, is at most ``max_cov`` (default 0.1).  Figure 10 is drawn
for the workloads the configuration names.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..stats import cov
from .figures import block_size_ratio
from .run import F64, STR, _write

KERNEL_TYPES = [("workload", STR, ""), ("declared", STR, "the benchmark's Table 6 type"),
                ("tb_size_cov", F64, "CoV of thread instructions per block inside a launch, block-weighted"),
                ("measured", STR, "regular if tb_size_cov <= max_cov, else irregular")]


def block_size_cov(blocks: pd.DataFrame) -> float:
    """Block-weighted mean over launches of the CoV of the blocks' thread instructions."""
    g = blocks.groupby("launch")["thread_instrs"]
    covs = g.apply(lambda x: cov(x.to_numpy(float)))
    return float(np.average(covs.to_numpy(), weights=g.size().to_numpy()))


def classify(blocks: pd.DataFrame, max_cov: float = 0.1) -> str:
    return "regular" if block_size_cov(blocks) <= max_cov else "irregular"


def kernel_types_stage(blocks: dict[str, pd.DataFrame], declared: dict[str, str], plot: list[str],
                       max_cov: float, out_table, out_figure) -> pd.DataFrame:
    rows = [{"workload": wl, "declared": declared[wl], "tb_size_cov": block_size_cov(b),
             "measured": classify(b, max_cov)} for wl, b in sorted(blocks.items())]
    t = pd.DataFrame(rows)
    _write(t, KERNEL_TYPES, "kernel_types", out_table, max_cov=max_cov)
    kinds = dict(zip(t["workload"], t["measured"]))
    block_size_ratio({f"{wl} ({kinds[wl]})": blocks[wl] for wl in plot}, out_figure)
    return t
