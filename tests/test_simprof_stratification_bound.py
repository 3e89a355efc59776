"""benchmarks/simprof_stratification_bound.py: its oracle strata are the best
k strata by eq. 33's criterion, so the bound it reports on SimProf's lead holds
(docs/simprof.md, "What stratification can gain on these units")."""
import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import simprof_stratification_bound as bound  # noqa: E402


def _neyman_term(y, labels):
    return sum(len(y[labels == h]) * y[labels == h].std() for h in np.unique(labels))


def test_the_oracle_strata_are_the_best_contiguous_cut_found_by_brute_force():
    y = np.random.default_rng(3).lognormal(0.0, 0.4, 23)
    order = np.argsort(y)
    brute = min(_neyman_term(y, np.searchsorted(np.array(cuts), np.argsort(order), side="right"))
                for cuts in itertools.combinations(range(1, 23), 2))
    labels = bound.oracle_labels(y, 3)
    assert len(np.unique(labels)) == 3
    assert _neyman_term(y, labels) == pytest.approx(brute, rel=1e-12)


def test_the_bound_follows_dalenius_on_a_normal_population_and_separates_modes():
    rng = np.random.default_rng(0)
    y = 1.0 + 0.15 * rng.standard_normal(2000)
    srs = bound.standard_error(y, np.zeros(len(y), np.int64), 20)
    ratios = [srs / bound.standard_error(y, bound.oracle_labels(y, k), 20) for k in (2, 3, 4)]
    # optimal strata of a normal leave 36.3%, 19.0% and 11.7% of its variance
    assert ratios == pytest.approx([0.363 ** -0.5, 0.190 ** -0.5, 0.117 ** -0.5], rel=0.05)
    # two tight modes: two strata take nearly all of the variance out
    y2 = np.concatenate([1 + 0.01 * rng.standard_normal(50), 2 + 0.01 * rng.standard_normal(50)])
    labels = bound.oracle_labels(y2, 2)
    assert len(set(labels[:50])) == 1 and len(set(labels[50:])) == 1 and labels[0] != labels[-1]
    assert bound.standard_error(y2, np.zeros(100, np.int64), 20) / bound.standard_error(y2, labels, 20) > 20


def test_the_mix_column_reads_the_share_a_linear_fit_explains():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((20000, 2))
    # y follows the first covariate with noise of the same variance: half explained
    y = 1.0 + x[:, 0] + rng.standard_normal(20000)
    assert bound.explained(y, x) == pytest.approx(0.5, abs=0.02)
    assert bound.explained(3.0 * x[:, 1] - 2.0, x) == pytest.approx(1.0)
    assert bound.explained(rng.standard_normal(20000), x) < 0.01


def test_scale_takes_the_finite_population_correction_out_but_keeps_the_phases():
    rng = np.random.default_rng(2)
    y = np.concatenate([1.0 + 0.05 * rng.standard_normal(18), 1.6 + 0.05 * rng.standard_normal(10)])
    srs = y.std() / np.sqrt(20)
    # 20 of 28 units: SRS's standard error carries sqrt(1 - 20/28); at a large population it does not
    assert bound.standard_error(y, np.zeros(28, np.int64), 20) == pytest.approx(srs * np.sqrt(1 - 20 / 28))
    assert bound.standard_error(y, np.zeros(28, np.int64), 20, 1000) == pytest.approx(srs, rel=1e-3)
    # two phases: eq. 33 gives the second phase most of its ten units, so at this size the stratified
    # standard error is far smaller than where 20 points are a small share of the same phases
    labels = np.repeat([0, 1], [18, 10])
    small, large = bound.standard_error(y, labels, 20), bound.standard_error(y, labels, 20, 1000)
    assert small < 0.7 * large
    s_h = np.array([y[:18].std(), y[18:].std()])
    w = np.array([18, 10]) / 28
    n_h = bound.optimal_allocation(np.array([18000, 10000]), s_h, 20)
    assert large == pytest.approx(np.sqrt((w ** 2 * s_h ** 2 / n_h).sum()), rel=1e-3)
