"""The few-events rule of the simultaneous ROC band (mlci.scores._band_rules).

Design search seed 10, #129: about 90 positives, AUC 0.885, 8 FPRs in 0.07-0.66; the
sup-t band held the whole true curve in 0.888 of 2,000 test sets, unwarned.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import ndtri
from statsmodels.stats.proportion import proportion_confint

import mlci
from mlci.scores._band_rules import MIN_BAND_EVENTS, band_events


def _scores(d: float, n_pos: int, n_neg: int, seed: int = 3) -> mlci.Scores:
    g = np.random.default_rng(seed)
    return mlci.Scores(g.normal(d, 1, n_pos), g.normal(0, 1, n_neg))


def test_few_events_at_a_grid_point_warn_and_reach_wilson() -> None:
    sc = _scores(np.sqrt(2) * ndtri(0.885), 90, 1332)  # #129's design
    grid = np.linspace(0.07, 0.66, 8)
    with pytest.warns(mlci.NearBoundWarning, match="simultaneous ROC band over 90 positives"):
        band = mlci.roc_band(sc, grid, simultaneous=True, rng=0, n_resamples=300)
    t = np.asarray(band.y)
    few = np.flatnonzero((t > 0) & (t < 1) & (90 * np.minimum(t, 1 - t) < MIN_BAND_EVENTS))
    assert few.size and list(band.extra["few_event_points"]) == list(few)
    assert band.extra["few_events_warning"].startswith("A simultaneous ROC band")
    # statsmodels' Wilson interval at the Bonferroni level over 8 points (independent)
    lo, hi = proportion_confint(np.round(t[few] * 90), 90, alpha=0.05 / 8, method="wilson")
    assert np.all(band.low[few] <= lo + 1e-12) and np.all(band.high[few] >= hi - 1e-12)
    assert np.any(np.isclose(band.low[few], lo)) or np.any(np.isclose(band.high[few], hi))
    # the other points keep the sup-t band (est - c se, or the pointwise band below it)
    rest = np.setdiff1d(np.arange(8), few)
    se = np.std(band.result.bootstrap_distribution, axis=0, ddof=1)
    sup_t = np.clip(np.minimum(t - band.critical_value * se, band.pointwise_low), 0, 1)
    assert band.low[rest] == pytest.approx(sup_t[rest], abs=1e-12)


def test_many_events_are_quiet() -> None:
    # 300 + 300, AUC 0.76, FPRs 0.05-0.6: at least 31 positives on either side of every
    # point (tests/test_levels.py's band, which holds 0.95)
    sc = _scores(1.0, 300, 300)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        band = mlci.roc_band(
            sc, np.linspace(0.05, 0.6, 8), simultaneous=True, rng=0, n_resamples=300
        )
    assert "few_event_points" not in band.extra and "few_events_warning" not in band.extra
    assert band_events(band.y, 300) >= MIN_BAND_EVENTS


def test_pointwise_and_threshold_bands_are_left_alone() -> None:
    sc = _scores(np.sqrt(2) * ndtri(0.885), 90, 1332)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pw = mlci.roc_band(sc, np.linspace(0.07, 0.66, 8), rng=0, n_resamples=200)
    assert "few_event_points" not in pw.extra


def test_band_events() -> None:
    assert band_events([0.5, 0.9, 0.98, 1.0], 90) == pytest.approx(1.8)
    assert band_events([0.0, 1.0], 90) is None
    assert band_events([0.3, 0.5], 0) is None
