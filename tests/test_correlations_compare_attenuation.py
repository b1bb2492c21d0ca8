"""compare_correlations' attenuation diagnostic (issue 24 item 2): the two metrics'
system-level correlations are attenuated by the item noise in their systems' means, and
when the metrics' means differ in reliability the difference is shifted, not only shrunk.
The per-metric analysis is correlation_ci's (mlci.fields.attenuation), checked there
against the generalizability formulas; here it must be the same numbers, and the shift
their difference."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats

import mlci
from mlci.exceptions import AttenuatedCorrelationWarning

KEYS = ("reliability_metric", "reliability_human", "pearson_all_items", "attenuation")


def _design(n_items: int, noise_b: float, seed: int = 0, n_systems: int = 20):
    """Two metrics and humans measuring the same system quality; metric b's cells are
    ``noise_b`` noisy (the others 0.5)."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(n_systems, 1))
    human = quality + 0.5 * rng.normal(size=(n_systems, n_items))
    a = quality + 0.5 * rng.normal(size=(n_systems, n_items))
    b = quality + noise_b * rng.normal(size=(n_systems, n_items))
    return a, b, human


def _ci_attenuation(metric, human, coefficient):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AttenuatedCorrelationWarning)
        res = mlci.correlation_ci(
            metric, human, coefficient=coefficient, resample="systems", n_resamples=20, rng=0
        )
    return res.details["attenuation"]


@pytest.mark.parametrize("coefficient", ["kendall_tau", "spearman", "pearson"])
@pytest.mark.parametrize(("n_items", "noise_b"), [(10, 3.0), (60, 0.5)])
def test_per_metric_details_are_correlation_ci_s(coefficient, n_items, noise_b):
    a, b, human = _design(n_items, noise_b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AttenuatedCorrelationWarning)
        res = mlci.compare_correlations(a, b, human, coefficient=coefficient, n_resamples=99, rng=0)
    att = res.details["attenuation"]
    for key, metric in (("a", a), ("b", b)):
        ref = _ci_attenuation(metric, human, coefficient)
        for k in KEYS:
            np.testing.assert_allclose(att[key][k], ref[k], rtol=0, atol=1e-12)
    assert att["shift"] == att["a"]["attenuation"] - att["b"]["attenuation"]
    assert att["corrected_estimate"] == pytest.approx(res.estimate - att["shift"], abs=1e-15)
    assert att["ratio"] == pytest.approx(abs(att["shift"]) / att["half_width"], rel=1e-12)


@pytest.mark.parametrize("resample", ["both", "items"])
def test_warns_when_one_metric_is_noisy_over_few_items(resample):
    # 20 systems x 10 items, metric b's cells 6x noisier: its means' reliability ~0.3
    # against ~0.96, so its tau is attenuated far more than a's and the difference is
    # inflated by several half-widths
    a, b, human = _design(10, 3.0)
    with pytest.warns(AttenuatedCorrelationWarning, match="use more items") as rec:
        res = mlci.compare_correlations(a, b, human, resample=resample, n_resamples=199, rng=0)
    att = res.details["attenuation"]
    assert att["b"]["reliability_metric"] < 0.5 < 0.9 < att["a"]["reliability_metric"]
    assert att["shift"] > 0.25 and att["ratio"] > 1
    msg = str(rec[0].message)
    assert f"{att['corrected_estimate']:.3f} instead of {res.estimate:.3f}" in msg
    assert "at 10 items" in msg


def test_quiet_with_many_items_and_equal_reliability():
    a, b, human = _design(200, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = mlci.compare_correlations(a, b, human, n_resamples=199, rng=0)
    att = res.details["attenuation"]
    assert att["ratio"] < 0.25
    assert abs(att["a"]["reliability_metric"] - att["b"]["reliability_metric"]) < 0.01


def test_permuting_systems_or_few_systems_records_without_warning():
    a, b, human = _design(10, 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # swapping whole systems generalises over systems at these items: no shortfall
        res = mlci.compare_correlations(a, b, human, resample="systems", n_resamples=99, rng=0)
        assert res.details["attenuation"]["ratio"] > 1
        # below 8 systems the analysis is too noisy to warn on (correlation_ci's rule)
        a7, b7, h7 = _design(10, 3.0, n_systems=7)
        res = mlci.compare_correlations(a7, b7, h7, n_resamples=99, rng=0)
        assert "attenuation" in res.details


def test_williams_records_the_shift_against_its_interval():
    a, b, human = _design(10, 3.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AttenuatedCorrelationWarning)  # fires: next test
        res = mlci.compare_correlations(
            a, b, human, coefficient="pearson", variant="williams", correlation_level="system"
        )
    att = res.details["attenuation"]
    for key, metric in (("a", a), ("b", b)):
        ref = _ci_attenuation(metric, human, "pearson")
        for k in KEYS:
            np.testing.assert_allclose(att[key][k], ref[k], rtol=0, atol=1e-12)
    se = res.estimate / res.statistic
    assert att["half_width"] == pytest.approx(stats.t.ppf(0.975, 17) * se, rel=1e-12)
    assert att["shift"] == att["a"]["attenuation"] - att["b"]["attenuation"]


def test_williams_warns_by_the_same_rule_with_its_own_half_width():
    # session 10: Williams' test warned never; now as the permutation test, its half-width
    # t_{0.975, n - 3} times its standard error. Metric b's means reliability ~0.3 against
    # ~0.96: the shift of the difference is several half-widths
    a, b, human = _design(10, 3.0)
    with pytest.warns(AttenuatedCorrelationWarning, match="use more items") as rec:
        res = mlci.compare_correlations(
            a, b, human, coefficient="pearson", variant="williams", correlation_level="system"
        )
    att = res.details["attenuation"]
    half = stats.t.ppf(0.975, 17) * res.estimate / res.statistic  # 20 systems: df 17
    assert att["half_width"] == pytest.approx(half, rel=1e-12)
    assert att["ratio"] == pytest.approx(abs(att["shift"]) / half, rel=1e-12)
    assert att["ratio"] > 0.25
    assert f"half-width {half:.3g}" in str(rec[0].message)


def test_williams_quiet_below_the_rule():
    # equal reliabilities over 200 items: the shift a small share of the half-width (0.04;
    # the two system-level r near 0.999, Williams' half-width 0.0012); and below 8
    # systems the analysis is recorded without a warning
    a, b, human = _design(200, 0.5, seed=2)
    a7, b7, h7 = _design(10, 3.0, seed=2, n_systems=7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = mlci.compare_correlations(a, b, human, coefficient="pearson", variant="williams")
        res7 = mlci.compare_correlations(a7, b7, h7, coefficient="pearson", variant="williams")
    assert res.details["attenuation"]["ratio"] < 0.25
    assert res7.details["attenuation"]["ratio"] > 0.25  # would warn with 8 systems


def test_williams_standard_error_is_the_t_denominator():
    # Steiger (1980, eq. 7) written out: t = (r12 - r13) / se
    r12, r13, r23, n = 0.6, 0.4, 0.5, 50
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    den = 2 * (n - 1) / (n - 3) * det + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3
    se = math.sqrt(den / ((n - 1) * (1 + r23)))
    res = mlci.williams_test(r12, r13, r23, n)
    assert res.details["standard_error"] == pytest.approx(se, rel=1e-12)
    assert res.statistic == pytest.approx((r12 - r13) / se, rel=1e-12)


@pytest.mark.parametrize("level", ["item", "global"])
def test_no_attenuation_outside_the_system_level(level):
    a, b, human = _design(10, 3.0)
    res = mlci.compare_correlations(a, b, human, correlation_level=level, n_resamples=49, rng=0)
    assert "attenuation" not in res.details
