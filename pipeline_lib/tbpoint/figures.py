"""Figures of the TBPoint stages (Figs. 7 and 10; the bar charts of
Figs. 11-16 use :func:`pipeline_lib.plots.bar_chart`)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..plots import pyplot, save


def deviation_cdf(samples: dict[str, np.ndarray], path) -> None:
    """Fig. 7: for each case, the cumulative share of Monte Carlo samples
    whose IPC lies within a relative deviation of the mean IPC."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for case, ipc in samples.items():
        dev = np.sort(np.abs(ipc - ipc.mean()) / ipc.mean()) * 100
        ax.plot(dev, np.arange(1, len(dev) + 1) / len(dev) * 100, label=case)
    ax.axvline(10, color="k", lw=0.8, ls="--")
    ax.axhline(95, color="k", lw=0.8, ls=":")
    ax.set_xlabel("|IPC - mean IPC| / mean IPC (%)")
    ax.set_ylabel("samples (%)")
    ax.set_title("IPC variation of a homogeneous interval (Monte Carlo over M)")
    ax.legend(fontsize=7)
    save(fig, path)


def block_size_ratio(panels: dict[str, pd.DataFrame], path) -> None:
    """Fig. 10: thread-block size (thread instructions) over the mean of all
    blocks, against the block's position in dispatch order, with a red mark
    at each launch's first block; one panel per workload."""
    plt = pyplot()
    fig, axes = plt.subplots(len(panels), 1, figsize=(7, 2.4 * len(panels)), squeeze=False)
    for ax, (title, b) in zip(axes[:, 0], panels.items()):
        b = b.sort_values(["launch", "block"], ignore_index=True)
        ratio = b["thread_instrs"] / b["thread_instrs"].mean()
        ax.scatter(np.arange(len(b)), ratio, s=2, c="tab:blue")
        first = b.index[b["launch"].ne(b["launch"].shift())]
        ax.scatter(first, ratio[first], s=12, c="red")
        ax.set_ylabel("TB size ratio")
        ax.set_title(title, fontsize=9)
    axes[-1, 0].set_xlabel("thread block (dispatch order over all launches)")
    save(fig, path)
