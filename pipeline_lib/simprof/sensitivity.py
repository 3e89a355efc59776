"""Input-sensitivity test (seed 000, 5.3.4, Algorithm 5.1, eq. 38, Figs. 46
and 47).

One input trains the phases; the units of every reference input are
classified to the training phases' centres (``PhaseFormation.predict``),
and a phase is input-sensitive when, for any reference input, its mean or
its standard deviation differs from the training input's by more than the
tolerance (10% in the seed). Reference inputs then simulate only the
simulation points in input-sensitive phases.
"""
from __future__ import annotations

import numpy as np


def relative_change(train: float, ref: float) -> float:
    """|train - ref| / |train|; 0 when both are 0 and infinite when only the
    training value is (a phase of constant measure that varies elsewhere)."""
    if train == 0:
        return 0.0 if ref == 0 else np.inf
    return abs(train - ref) / abs(train)


def phase_is_sensitive(train_values, ref_values, tolerance: float = 0.10) -> bool:
    """Eq. 38 for one phase and one reference input: the mean or the
    (population) standard deviation moves by more than ``tolerance``. A
    phase the reference input never enters has nothing to simulate there
    and is not sensitive to it."""
    t, r = np.asarray(train_values, np.float64), np.asarray(ref_values, np.float64)
    if len(r) == 0 or len(t) == 0:
        return False
    return relative_change(t.mean(), r.mean()) > tolerance or relative_change(t.std(), r.std()) > tolerance


def input_sensitive_phases(train_values, train_labels, refs, tolerance: float = 0.10) -> dict[int, list[str]]:
    """Algorithm 5.1: for each training phase, the reference inputs under
    which it is sensitive (empty list: input-insensitive).

    Parameters
    ----------
    train_values, train_labels : the training input's units.
    refs : {input name: (values, labels)}, labels from classifying the
        reference input's units to the training phases.
    """
    tv, tl = np.asarray(train_values, np.float64), np.asarray(train_labels)
    out = {}
    for h in np.unique(tl):
        out[int(h)] = sorted(name for name, (rv, rl) in refs.items()
                             if phase_is_sensitive(tv[tl == h], np.asarray(rv, np.float64)[np.asarray(rl) == h],
                                                   tolerance))
    return out


def point_reduction(sample_sizes: dict[int, int], sensitive: dict[int, list[str]]) -> float:
    """Share of the training input's simulation points that a reference
    input may skip: those in input-insensitive phases (Fig. 46 shows the
    complement, the input-sensitive sample size)."""
    total = sum(sample_sizes.values())
    if total == 0:
        return 0.0
    return sum(n for h, n in sample_sizes.items() if not sensitive.get(h)) / total
