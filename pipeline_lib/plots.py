"""Matplotlib helpers shared by the methods' figures: headless, and written
without the software-version metadata so that the same table gives the same
bytes."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .io import atomic_path


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(fig, path) -> None:
    """Write ``fig`` to ``path`` (format from its suffix), complete or not at all."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip("."), dpi=100, metadata={"Software": None})
    pyplot().close(fig)


def bar_chart(t: pd.DataFrame, labels: str, series: list[tuple[str, str]], scale: float, ylabel: str,
              title: str, path, stacked: bool = False) -> None:
    """Bars per row of ``t`` (named by column ``labels``), one per (legend,
    column) of ``series``, values times ``scale``; grouped side by side, or
    stacked."""
    plt = pyplot()
    x = np.arange(len(t))
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(t) + 2), 3.5))
    w = 0.8 / (1 if stacked else len(series))
    bottom = np.zeros(len(t))
    for i, (label, col) in enumerate(series):
        v = t[col].to_numpy(float) * scale
        if stacked:
            ax.bar(x, v, w, bottom=bottom, label=label)
            bottom += v
        else:
            ax.bar(x + (i - (len(series) - 1) / 2) * w, v, w, label=label)
    ax.set_xticks(x, t[labels], rotation=45, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)
    save(fig, path)
