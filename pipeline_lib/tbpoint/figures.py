"""Matplotlib figures of the TBPoint stages, written headless and without
the software-version metadata so that the same table gives the same bytes."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(fig, path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    _plt().close(fig)


def bar_chart(t: pd.DataFrame, labels: str, series: list[tuple[str, str]], scale: float, ylabel: str,
              title: str, path) -> None:
    """Grouped bars: one group per row of ``t`` (named by column ``labels``),
    one bar per (legend, column) of ``series``, values times ``scale``."""
    plt = _plt()
    x = np.arange(len(t))
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(t) + 2), 3.5))
    w = 0.8 / len(series)
    for i, (label, col) in enumerate(series):
        ax.bar(x + (i - (len(series) - 1) / 2) * w, t[col] * scale, w, label=label)
    ax.set_xticks(x, t[labels], rotation=45, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)
    save(fig, path)


def deviation_cdf(samples: dict[str, np.ndarray], path) -> None:
    """Fig. 7: for each case, the cumulative share of Monte Carlo samples
    whose IPC lies within a relative deviation of the mean IPC."""
    plt = _plt()
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
    plt = _plt()
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
