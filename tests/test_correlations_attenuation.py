"""The attenuation of a system-level correlation over few items (mlci.fields.attenuation)
and correlation_ci's AttenuatedCorrelationWarning (docs/correlations.md, "Few items";
the rule's study: scripts/correlation_attenuation.py, docs/validation.md)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import mlci
from _scripts import load_script

dsf = load_script("design_search_fields.py")


def _anova(a: np.ndarray) -> tuple[float, float]:
    """(MS systems, MS residual) of the additive two-way fit, by statsmodels."""
    import statsmodels.api as sm
    import statsmodels.formula.api as smf

    ns, ni = a.shape
    df = pd.DataFrame(
        {"y": a.ravel(), "s": np.repeat(np.arange(ns), ni), "i": np.tile(np.arange(ni), ns)}
    )
    tab = sm.stats.anova_lm(smf.ols("y ~ C(s) + C(i)", df).fit())
    return float(tab.loc["C(s)", "mean_sq"]), float(tab.loc["Residual", "mean_sq"])


def _attenuation(x, z, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.AttenuatedCorrelationWarning)
        warnings.simplefilter("ignore", mlci.FewConditionsWarning)
        return mlci.correlation_ci(x, z, n_resamples=100, rng=0, **kw)


@pytest.mark.parametrize("coefficient", ["pearson", "spearman", "kendall_tau"])
def test_details_are_the_two_way_anova(coefficient):
    # reference: statsmodels' two-way ANOVA (systems + items) of x, z and x + z; the
    # cross mean products are (MS(x + z) - MS(x) - MS(z)) / 2; Hoyt's reliability
    # 1 - MS_res / MS_sys; the correction for attenuation with the residual covariance
    g = np.random.default_rng(3)
    q = g.standard_normal((11, 1))
    x = (
        q
        + 0.4 * g.standard_normal((11, 1))
        + g.standard_normal((1, 9))
        + g.standard_normal((11, 9))
    )
    z = q + g.standard_normal((1, 9)) + 1.5 * g.standard_normal((11, 9))
    (sx, rx), (sz, rz), (ss, rs) = _anova(x), _anova(z), _anova(x + z)
    sxz, rxz = (ss - sx - sz) / 2, (rs - rx - rz) / 2
    r_n = sxz / math.sqrt(sx * sz)
    r_inf = (sxz - rxz) / math.sqrt((sx - rx) * (sz - rz))
    to = {
        "pearson": lambda r: r,
        "spearman": lambda r: 6 / math.pi * math.asin(r / 2),
        "kendall_tau": lambda r: 2 / math.pi * math.asin(r),
    }[coefficient]
    res = _attenuation(x, z, coefficient=coefficient, resample="items")
    att = res.details["attenuation"]
    assert att["reliability_metric"] == pytest.approx(1 - rx / sx, abs=1e-12)
    assert att["reliability_human"] == pytest.approx(1 - rz / sz, abs=1e-12)
    assert att["pearson_all_items"] == pytest.approx(r_inf, abs=1e-12)
    bias = to(r_n) - to(min(1.0, r_inf))
    assert att["attenuation"] == pytest.approx(bias, abs=1e-12)
    est = res.estimate
    assert att["corrected_estimate"] == pytest.approx(max(-1, min(1, est - bias)), abs=1e-12)
    low, high = res.confidence_interval
    room = high - est if bias < 0 else est - low
    assert att["ratio"] == pytest.approx(abs(bias) / room, abs=1e-12)
    if coefficient == "pearson":  # the sample value is the Pearson correlation of means
        assert est == pytest.approx(r_n, abs=1e-12)


def test_shared_residual_is_not_read_as_attenuation():
    # metric and humans share each cell's noise (variance 1) besides their own (1): over
    # 20 items the means correlate (1 + 1/20) / (1 + 2/20) = 0.955; over infinitely many
    # items 1.  The plain correction r / sqrt(rel_x rel_z) would give about 1.05
    g = np.random.default_rng(8)
    q = g.standard_normal((400, 1))
    c = g.standard_normal((400, 20))
    x, z = q + c + g.standard_normal((400, 20)), q + c + g.standard_normal((400, 20))
    att = _attenuation(x, z, coefficient="pearson", resample="systems").details["attenuation"]
    plain = np.corrcoef(x.mean(1), z.mean(1))[0, 1] / math.sqrt(
        att["reliability_metric"] * att["reliability_human"]
    )
    assert plain > 1.02
    assert att["pearson_all_items"] == pytest.approx(1.0, abs=0.02)


@pytest.mark.parametrize(("index", "resample"), [(69, "both"), (86, "items")])
def test_warns_on_the_attenuated_designs(index, resample):
    # seed-10 #69 (Kendall 26 x 25, both: 0.228 of 400) and #86 (Pearson 13 x 48,
    # items: 0.098 of 400); warned in 0.99 and 1.00 of 200 test sets
    d = dsf.random_design(index, 10)
    x = dsf.Population(d).draw(np.random.default_rng(1))
    with pytest.warns(mlci.AttenuatedCorrelationWarning, match=r"over infinitely many items"):
        res = mlci.correlation_ci(
            x["x"], x["z"], coefficient=d.metric, resample=resample, n_resamples=200, rng=0
        )
    att = res.details["attenuation"]
    assert att["ratio"] > 0.25
    assert abs(att["corrected_estimate"]) > abs(res.estimate)


@pytest.mark.parametrize("index", [5, 23])
def test_quiet_where_the_items_are_many_next_to_their_noise(index):
    # seed-10 #5 (Kendall 42 systems, reliabilities 0.997) and #23 (18 systems, 92
    # items): coverage 0.980 and 0.975 of 200, never warned
    d = dsf.random_design(index, 10)
    x = dsf.Population(d).draw(np.random.default_rng(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", mlci.AttenuatedCorrelationWarning)
        res = mlci.correlation_ci(x["x"], x["z"], coefficient=d.metric, n_resamples=200, rng=0)
    assert res.details["attenuation"]["ratio"] < 0.25


def test_quiet_when_systems_are_resampled_or_few():
    # resampling systems: the estimand is the correlation at these items; below 8
    # systems the analysis is too noisy (FewConditionsWarning where systems are resampled)
    d = dsf.random_design(69, 10)
    x = dsf.Population(d).draw(np.random.default_rng(1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", mlci.AttenuatedCorrelationWarning)
        res = mlci.correlation_ci(x["x"], x["z"], resample="systems", n_resamples=200, rng=0)
        assert res.details["attenuation"]["ratio"] > 0.25
        # below 8 systems resampling items: the few-systems warning instead (session 10,
        # design search seed-13 fields #49), not the attenuation one
        with pytest.warns(mlci.FewConditionsWarning, match="over 7 systems, resampling items"):
            few = mlci.correlation_ci(
                x["x"][:7], x["z"][:7], resample="items", n_resamples=200, rng=0
            )
    assert math.isfinite(few.details["attenuation"]["reliability_human"])


def test_no_attenuation_details_below_the_system_level_or_undefined():
    g = np.random.default_rng(2)
    x = g.standard_normal((9, 6))
    z = x + g.standard_normal((9, 6))
    for level in ("global", "item"):
        assert "attenuation" not in _attenuation(x, z, correlation_level=level).details
    # one item: no residual, nothing to estimate (NaN, no warning)
    att = _attenuation(x[:, :1], z[:, :1], resample="systems").details["attenuation"]
    assert all(math.isnan(att[k]) for k in ("reliability_metric", "attenuation", "ratio"))
    # a metric whose systems do not differ beyond its item noise: reliability <= 0,
    # no correlation over infinitely many items
    noise = g.standard_normal((9, 6)) - g.standard_normal((9, 6)).mean(axis=1, keepdims=True)
    att = _attenuation(noise, z, resample="items").details["attenuation"]
    assert att["reliability_metric"] <= 0
    assert math.isnan(att["pearson_all_items"]) and math.isnan(att["ratio"])


def test_global_level_over_few_systems_warns():
    # seed-10 #28 (Kendall, global, 9 systems x 114 items, both): 0.780 of 200 test sets,
    # 0.790 of 143 new ones; with 50 items: 9 systems 0.74, 20 systems 0.91 of 100
    d = dsf.random_design(28, 10)
    pop = dsf.Population(d)
    x = pop.draw(np.random.default_rng(0))
    kw = {"coefficient": "pearson", "correlation_level": "global", "n_resamples": 100, "rng": 0}
    with pytest.warns(mlci.FewConditionsWarning, match="global-level correlation over 9"):
        mlci.correlation_ci(x["x"], x["z"], resample="both", **kw)
    big = pop.x[:20, :30], pop.z[:20, :30]
    with warnings.catch_warnings():
        warnings.simplefilter("error", mlci.FewConditionsWarning)
        mlci.correlation_ci(*big, resample="both", **kw)  # 20 systems
        mlci.correlation_ci(x["x"], x["z"], resample="items", **kw)  # systems fixed


def test_an_interval_ending_at_the_estimate_is_beyond_any_attenuation():
    # the ratio's denominator is the room between the estimate and the interval's end
    from mlci.fields.attenuation import attenuation_ratio

    assert attenuation_ratio(-0.05, 0.9, 0.8, 0.9) == math.inf
    assert attenuation_ratio(-0.05, 0.9, 0.8, 1.0) == pytest.approx(0.5)
    assert attenuation_ratio(0.05, -0.9, -1.0, -0.8) == pytest.approx(0.5)
    assert attenuation_ratio(0.0, 0.9, 0.8, 0.9) == 0.0
    assert math.isnan(attenuation_ratio(math.nan, 0.9, 0.8, 1.0))
