"""The heavy-tailed errors' warning of the regression metrics (engine/heavy_tail.py).

The seed-10 design search found the MSE, RMSE and MAE of log-normal errors without an
interval that holds; ``scripts/heavy_tail_study.py`` swept error laws and sample sizes
for the rule's threshold (docs/validation.md, "Heavy-tailed regression errors (session
9)"); ``scripts/heavy_tail_rule_study.py`` added the signed errors' octile skewness
(session 10, "Skewed and symmetric heavy tails: the rule recalibrated").
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mlci
from _scripts import load_script
from mlci.engine.heavy_tail import (
    KURTOSIS_N,
    MAX_DIFFERENCE_KURTOSIS,
    MAX_ERROR_KURTOSIS,
    MAX_ERROR_KURTOSIS_LARGE,
    MIN_EFFECTIVE_ABSOLUTE,
    MIN_SAMPLES,
    SKEW_FLOOR,
    SKEW_FLOOR_ABSOLUTE,
    SKEW_FLOOR_LARGE,
    SKEW_FLOOR_N,
    SKEW_MAX_N_ABSOLUTE,
    SKEW_SCALE,
    heavy_tail_diagnostics,
    heavy_tail_rule,
    kurtosis_threshold,
    loss_tail_diagnostics,
    octile_skewness,
    skew_threshold,
    within_condition_skewness,
    within_skew_threshold,
)


def _lognormal_errors(n: int, sigma: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(y_true, y_pred)`` with standardized log-normal errors (mean 0, variance 1)."""
    g = np.random.default_rng(seed)
    m = math.exp(sigma**2 / 2)
    sd = math.sqrt((math.exp(sigma**2) - 1) * math.exp(sigma**2))
    x = g.standard_normal(n)
    e = (np.exp(sigma * g.standard_normal(n)) - m) / sd
    return x + e, x


def _kinds(call) -> tuple:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [w.category for w in caught]


@pytest.mark.parametrize("metric", ["mse", "rmse", "r2"])
@pytest.mark.parametrize("method", ["auto", "bca", "percentile"])
def test_heavy_tails_warn_with_the_diagnostic_in_details(metric: str, method: str) -> None:
    y, p = _lognormal_errors(200, 1.27, seed=5)
    r, kinds = _kinds(
        lambda: mlci.bootstrap_ci(y, p, metric=metric, method=method, n_resamples=200, rng=0)
    )
    assert mlci.HeavyTailWarning in kinds
    d = r.details["diagnostics"]["heavy_tail"]
    # hand computation: K = n sum e^4 / (sum e^2)^2, the largest e^2 over sum e^2
    e2 = (y - p) ** 2
    assert d["error_kurtosis"] == pytest.approx(len(e2) * np.sum(e2**2) / np.sum(e2) ** 2)
    assert d["top_share"] == pytest.approx(e2.max() / e2.sum())
    assert d["effective_n"] == pytest.approx(np.sum(e2) ** 2 / np.sum(e2**2))
    assert d["error_kurtosis"] > MAX_ERROR_KURTOSIS and d["warn"] is True
    assert d["n"] == 200 and d["loss"] == "squared error"
    assert "heavy-tailed errors" in r.details["warning"]


@pytest.mark.parametrize("method", ["auto", "bca"])
def test_mae_warns_on_few_effective_absolute_errors(method: str) -> None:
    # 20 log-normal errors (sigma 1.5): a few large ones carry the absolute errors
    y, p = _lognormal_errors(20, 1.5, seed=2)
    a = np.abs(y - p)
    assert a.sum() ** 2 / np.sum(a**2) < MIN_EFFECTIVE_ABSOLUTE  # the seed's draw
    r, kinds = _kinds(
        lambda: mlci.bootstrap_ci(y, p, metric="mae", method=method, n_resamples=200, rng=0)
    )
    d = r.details["diagnostics"]["heavy_tail"]
    assert d["loss"] == "absolute error" and d["warn"] is True
    assert d["effective_n"] == pytest.approx(a.sum() ** 2 / np.sum(a**2))
    assert mlci.HeavyTailWarning in kinds
    assert "effective samples" in r.details["warning"]


def test_mae_of_many_heavy_tailed_errors_is_quiet() -> None:
    # n = 2,000 log-normal errors: K far above the squared errors' threshold, but the
    # MAE's interval held from n = 200 on (0.91-0.96 in the sweep): no warning
    y, p = _lognormal_errors(2000, 1.27, seed=5)
    r = mlci.bootstrap_ci(y, p, metric="mae", n_resamples=200, rng=0)
    d = r.details["diagnostics"]["heavy_tail"]
    assert d["error_kurtosis"] > MAX_ERROR_KURTOSIS and d["warn"] is False


def test_loss_tail_diagnostics_by_hand() -> None:
    # e = (1, -1, 2, -2, 4): sum e^2 = 26, sum e^4 = 1 + 1 + 16 + 16 + 256 = 290
    e = np.array([1.0, -1.0, 2.0, -2.0, 4.0])
    d2 = loss_tail_diagnostics(e**2, 2)
    assert d2["error_kurtosis"] == pytest.approx(5 * 290 / 26**2)  # 2.1450
    assert d2["top_share"] == pytest.approx(16 / 26)
    assert d2["effective_n"] == pytest.approx(26**2 / 290)  # (sum e^2)^2 / sum e^4
    d1 = loss_tail_diagnostics(np.abs(e), 1)
    assert d1["error_kurtosis"] == pytest.approx(d2["error_kurtosis"])
    assert d1["top_share"] == pytest.approx(d2["top_share"])
    assert d1["effective_n"] == pytest.approx(10**2 / 26)  # (sum |e|)^2 / sum e^2
    # normal errors: K estimates the kurtosis 3 (scipy's Pearson kurtosis about the mean)
    from scipy import stats

    z = np.random.default_rng(1).standard_normal(100_000)
    k = loss_tail_diagnostics(z**2)["error_kurtosis"]
    assert k == pytest.approx(stats.kurtosis(z, fisher=False), abs=0.02)
    assert k == pytest.approx(3.0, abs=0.05)


def test_loss_tail_diagnostics_bad_power() -> None:
    with pytest.raises(ValueError, match="`power` must be 1"):
        loss_tail_diagnostics([1.0, 2.0], power=3)


def test_all_zero_errors_have_no_diagnostic() -> None:
    d = loss_tail_diagnostics(np.zeros(5))
    assert math.isnan(d["error_kurtosis"]) and math.isnan(d["top_share"])


def test_rule_threshold_and_few_samples() -> None:
    assert heavy_tail_rule(200, MAX_ERROR_KURTOSIS + 0.1, 2, 50.0)
    assert not heavy_tail_rule(200, MAX_ERROR_KURTOSIS, 2, 50.0)
    # below MIN_SAMPLES the squared errors' metrics warn
    assert heavy_tail_rule(MIN_SAMPLES - 1, 1.5, 2, 12.0)
    assert not heavy_tail_rule(MIN_SAMPLES, 1.5, 2, 13.0)
    # the MAE reads the effective number of absolute errors only
    assert not heavy_tail_rule(200, MAX_ERROR_KURTOSIS + 30, 1, MIN_EFFECTIVE_ABSOLUTE)
    assert heavy_tail_rule(200, 2.0, 1, MIN_EFFECTIVE_ABSOLUTE - 0.1)


def test_sample_weight_reads_the_samples_of_nonzero_weight() -> None:
    y, p = _lognormal_errors(200, 1.27, seed=5)
    w = np.r_[np.ones(150), np.zeros(50)]
    r, kinds = _kinds(
        lambda: mlci.bootstrap_ci(y, p, metric="mse", sample_weight=w, n_resamples=200, rng=0)
    )
    e2 = ((y - p) ** 2)[:150]
    d = r.details["diagnostics"]["heavy_tail"]
    assert d["n"] == 150
    assert d["error_kurtosis"] == pytest.approx(150 * np.sum(e2**2) / np.sum(e2) ** 2)
    assert (mlci.HeavyTailWarning in kinds) == d["warn"]


def test_other_metrics_have_no_heavy_tail_entry() -> None:
    y = np.r_[np.zeros(30), np.ones(30)].astype(int)
    r = mlci.bootstrap_ci(y, y[::-1], metric="accuracy", n_resamples=200, rng=0)
    assert "heavy_tail" not in r.details["diagnostics"]


def test_the_cli_warns(tmp_path, capsys) -> None:
    from mlci.cli import main

    y, p = _lognormal_errors(182, 1.27, seed=0)
    path = tmp_path / "errors.csv"
    np.savetxt(path, np.c_[y, p], delimiter=",", header="y,p", comments="")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(
            ["ci", str(path), "--label", "y", "--pred", "p", "--metric", "rmse", "-B", "200"]
        )
    err = capsys.readouterr().err
    assert code == 0 and "heavy-tailed errors" in err


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(200, 2000),
    law=st.sampled_from(["normal", "uniform"]),
    metric=st.sampled_from(["mse", "rmse", "mae", "r2"]),
    seed=st.integers(0, 2**31 - 1),
)
def test_light_tails_stay_quiet(n: int, law: str, metric: str, seed: int) -> None:
    # normal and uniform errors, n >= 200: K is at most about 4 (3 and 1.8 in the
    # population), far below its threshold, and the octile skewness (standard deviation
    # about 1.1 / sqrt(n): 0.08 at n = 200) 4 standard deviations inside its floor 0.35;
    # filterwarnings=error fails on any warning.  (At n = 20-199 the skewness warns
    # symmetric errors in up to 4% of test sets: the session-10 sweep.)
    g = np.random.default_rng(seed)
    x = g.standard_normal(n)
    e = g.standard_normal(n) if law == "normal" else g.uniform(-1.0, 1.0, n)
    r = mlci.bootstrap_ci(x + e, x, metric=metric, n_resamples=200, rng=0)
    assert r.details["diagnostics"]["heavy_tail"]["warn"] is False


@settings(max_examples=50, deadline=None)
@given(
    half=st.lists(
        st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False), min_size=10, max_size=400
    ),
    power=st.sampled_from([1, 2]),
)
def test_symmetric_errors_are_judged_without_the_skewness(half: list, power: int) -> None:
    # errors e and -e together: the octile skewness is 0 (the quantiles are symmetric),
    # so the rule reads the kurtosis, the few samples and the effective number only
    e = np.r_[half, -np.asarray(half)]
    skew = octile_skewness(e)
    assert math.isnan(skew) or abs(skew) < 1e-9
    d = loss_tail_diagnostics(np.abs(e) if power == 1 else e * e, power)
    if math.isnan(d["error_kurtosis"]):
        return
    n = e.size
    old = (
        d["effective_n"] < MIN_EFFECTIVE_ABSOLUTE
        if power == 1
        else (d["error_kurtosis"] > kurtosis_threshold(n) or n < MIN_SAMPLES)
    )
    assert heavy_tail_rule(n, d["error_kurtosis"], power, d["effective_n"], skew) == old


@settings(max_examples=50, deadline=None)
@given(
    e=st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=8, max_size=200),
    shift=st.floats(-1e3, 1e3),
    scale=st.floats(1e-2, 1e2),
)
def test_octile_skewness_ignores_location_and_scale(e: list, shift: float, scale: float) -> None:
    # a model's bias or the unit of the target does not move it; a sign flip negates it
    a = np.asarray(e)
    s0 = octile_skewness(a)
    if math.isnan(s0) or np.ptp(a) < 1e-6:
        return
    assert octile_skewness(shift + scale * a) == pytest.approx(s0, abs=1e-6)
    assert octile_skewness(-a) == pytest.approx(-s0, abs=1e-9)
    assert -1.0 <= s0 <= 1.0


def test_octile_skewness_by_hand_and_of_known_laws() -> None:
    # numpy's linear quantiles of 0..8 (9 values) at 1/8, 1/2, 7/8 are 1, 4, 7: symmetric
    assert octile_skewness(np.arange(9.0)) == 0.0
    # (0, 0, 0, 1, 1, 2, 3, 10, 20): Q(1/8) = 0, Q(1/2) = 1, Q(7/8) = 3 + 7 * 0 ... by hand:
    # positions 1, 4, 7 -> 0, 1, 10: (10 + 0 - 2) / (10 - 0) = 0.8
    assert octile_skewness([0, 0, 0, 1, 1, 2, 3, 10, 20]) == pytest.approx(0.8)
    assert math.isnan(octile_skewness([1.0])) and math.isnan(octile_skewness([2.0, 2.0, 2.0]))
    # the log-normal's octile skewness is tanh(sigma z_(7/8) / 2) (its quantiles are
    # exp(sigma z_p)); the exponential's (ln 8 + ln(8/7) - 2 ln 2) / (ln 8 - ln(8/7)) = 0.425
    from scipy import stats

    g = np.random.default_rng(0)
    z = stats.norm.ppf(7 / 8)
    for sigma in (0.5, 1.0, 1.5):
        e = np.exp(sigma * g.standard_normal(400_000))
        assert octile_skewness(e) == pytest.approx(math.tanh(sigma * z / 2), abs=0.01)
    expo = (math.log(8) + math.log(8 / 7) - 2 * math.log(2)) / (math.log(8) - math.log(8 / 7))
    assert octile_skewness(g.exponential(1.0, 400_000)) == pytest.approx(expo, abs=0.01)
    assert expo == pytest.approx(0.425, abs=0.001)


def test_skew_threshold() -> None:
    assert skew_threshold(20, 2) == pytest.approx(SKEW_SCALE / math.sqrt(20))
    # the squared errors' floor: SKEW_FLOOR to n = 100, SKEW_FLOOR_LARGE from n = 300,
    # log-linear between (sqrt(100 * 300) = 173: the middle)
    lo, hi = SKEW_FLOOR_N
    assert skew_threshold(lo, 2) == SKEW_FLOOR and skew_threshold(hi, 2) == SKEW_FLOOR_LARGE
    assert skew_threshold(10**6, 2) == SKEW_FLOOR_LARGE
    assert skew_threshold(round(math.sqrt(lo * hi)), 2) == pytest.approx(
        (SKEW_FLOOR + SKEW_FLOOR_LARGE) / 2, abs=1e-3
    )
    assert skew_threshold(20, 1) == pytest.approx(
        max(SKEW_SCALE / math.sqrt(20), SKEW_FLOOR_ABSOLUTE)
    )
    assert skew_threshold(SKEW_MAX_N_ABSOLUTE, 1) == math.inf
    # the rule: skewness beyond the threshold warns; NaN (not known) does not
    assert heavy_tail_rule(100, 3.0, 2, 33.0, SKEW_FLOOR + 0.01)
    assert heavy_tail_rule(100, 3.0, 2, 33.0, -(SKEW_FLOOR + 0.01))  # either sign
    assert not heavy_tail_rule(100, 3.0, 2, 33.0, SKEW_FLOOR - 0.01)
    assert not heavy_tail_rule(2000, 3.0, 2, 660.0, SKEW_FLOOR_LARGE - 0.01)
    assert not heavy_tail_rule(100, 3.0, 2, 33.0, math.nan)
    assert heavy_tail_rule(50, 3.0, 1, 40.0, 0.6) and not heavy_tail_rule(50, 3.0, 1, 40.0, 0.45)
    assert not heavy_tail_rule(SKEW_MAX_N_ABSOLUTE, 3.0, 1, 80.0, 0.9)


def test_skewed_errors_that_look_light_warn() -> None:
    # 50 log-normal errors (sigma 1.25) without their rare large ones: K = 1.6 (lighter
    # than normal errors' 3), but the octile skewness 0.42 is beyond 0.35; the RMSE's
    # interval [0.29, 0.36] misses the population RMSE 1 (session 9's rule was quiet)
    y, p = _lognormal_errors(50, 1.25, seed=1)
    r, kinds = _kinds(lambda: mlci.bootstrap_ci(y, p, metric="rmse", n_resamples=200, rng=0))
    d = r.details["diagnostics"]["heavy_tail"]
    assert d["error_kurtosis"] < 2 and d["octile_skewness"] == pytest.approx(octile_skewness(y - p))
    assert d["octile_skewness"] > d["skewness_threshold"] == SKEW_FLOOR
    assert d["warn"] is True and mlci.HeavyTailWarning in kinds
    assert r.confidence_interval[1] < 1.0
    assert "skewed" in r.details["warning"]
    # the same errors mirrored (y_pred - y_true) are skewed the other way: warned alike
    r2, kinds = _kinds(lambda: mlci.bootstrap_ci(p, y, metric="rmse", n_resamples=200, rng=0))
    assert r2.details["diagnostics"]["heavy_tail"]["warn"] is True
    assert mlci.HeavyTailWarning in kinds


def test_mae_skewness_rule_stops_at_its_largest_n() -> None:
    # the MAE's interval of skewed errors held from n = 100 on (session-10 sweep)
    y, p = _lognormal_errors(60, 1.5, seed=3)
    r, kinds = _kinds(lambda: mlci.bootstrap_ci(y, p, metric="mae", n_resamples=200, rng=0))
    d = r.details["diagnostics"]
    assert d["heavy_tail"]["octile_skewness"] > SKEW_FLOOR_ABSOLUTE and d["heavy_tail"]["warn"]
    assert mlci.HeavyTailWarning in kinds
    y, p = _lognormal_errors(400, 1.5, seed=3)
    d = mlci.bootstrap_ci(y, p, metric="mae", n_resamples=200, rng=0).details["diagnostics"]
    assert d["heavy_tail"]["octile_skewness"] > SKEW_FLOOR_ABSOLUTE
    assert d["heavy_tail"]["warn"] is False and "skewness_threshold" not in d["heavy_tail"]


def _s11f_84() -> tuple:
    """s11f #84 (scripts/design_search_fields.py, seed 11): RMSE of t errors with 2.53 df,
    n = 159 (auto covered 0.717 of 300 test sets, unwarned by session 9's rule); its first
    test set as the search drew it, and auto's result with the warnings it gave."""
    dsf = load_script("design_search_fields.py")
    d = dsf.random_design(84, 11)
    assert d.metric == "rmse" and d.n == 159 and round(d.p["shape"], 2) == 2.53
    x = dsf.Population(d).draw(np.random.default_rng([11, 84, 0, 24]))
    return _kinds(lambda: mlci.bootstrap_ci(x["y"], x["a"], metric="rmse", n_resamples=200, rng=0))


def test_design_search_seed11_84_misses_looking_light() -> None:
    # auto [0.67, 0.95] misses the population RMSE 1 low, with K = 5.6, the largest squared
    # error 10% of their sum and octile skewness 0.21 (below the floor 0.35): what a Laplace
    # sample of 159 looks like (median K 5.1, top share 0.09; 0.16 is its skewness's 95%
    # point)
    r, _ = _s11f_84()
    assert r.confidence_interval[1] < 1.0
    # (session 12) the robust SE does not apply: the middle of the errors looks no heavier
    assert r.method == "studentized" and "robust_se" not in r.details
    h = r.details["diagnostics"]["heavy_tail"]
    assert h["error_kurtosis"] < 6 and h["top_share"] < 0.11
    assert 0 < h["octile_skewness"] < SKEW_FLOOR


@pytest.mark.xfail(
    strict=True,
    reason="symmetric heavy tails (t, 2.5-3 df) leave no trace in a test set that misses: "
    "no statistic tried tells it from Laplace errors (docs/validation.md, session 10, heavyt); "
    "session 12's robust SE (mlci.engine.rmse_robust) leaves its interval as it was: its "
    "octile kurtosis names lighter tails than its K = 5.6 (docs/validation.md, session 12, "
    "heavyt12)",
)
def test_design_search_seed11_84_warns() -> None:
    r, kinds = _s11f_84()
    assert r.details["diagnostics"]["heavy_tail"]["warn"] is True
    assert mlci.HeavyTailWarning in kinds


def test_compare_mae_of_skewed_errors_warns_for_the_pair() -> None:
    # two systems with log-normal errors (sigma 1.27), n = 182: each MAE's interval held
    # there (its rule is quiet from n = 100 on), but their paired MAE difference covered
    # 0.860 of 300 test sets (session-10 --compare; session 9: 0.880, unwarned): the pair
    # warns when a system's errors are skewed beyond the squared errors' threshold
    y, p = _lognormal_errors(182, 1.27, seed=0)
    g = np.random.default_rng(7)
    s = 1.27
    m, sd = math.exp(s**2 / 2), math.sqrt((math.exp(s**2) - 1) * math.exp(s**2))
    b = y - 0.8 * (np.exp(s * g.standard_normal(182)) - m) / sd
    r, kinds = _kinds(
        lambda: mlci.compare(y, {"a": p, "b": b}, metric="mae", n_resamples=200, rng=0)
    )
    assert not any(d["warn"] for d in r.details["heavy_tail"].values())
    pair = r.details["heavy_tail_pairs"]["a - b"]
    assert pair["skewed"] is True and pair["warn"] is True
    assert octile_skewness(y - p) > skew_threshold(182, 2)
    assert kinds.count(mlci.HeavyTailWarning) == 1
    assert "paired difference of a - b" in r.details["heavy_tail_warning"]


def test_compare_rmse_of_symmetric_heavy_tails_warns_on_the_differences() -> None:
    # t errors with 2.5 df, n = 182 (paired RMSE difference, t interval: 0.770 of 300 test
    # sets): here neither system's errors fire the rule (K = 11.5 and 6.0), but a few
    # samples carry the difference of the squared errors (its kurtosis 35 > 30; normal
    # errors: about 10).  Under method="t" the pair is warned; under auto (below) the RMSE
    # pair's symmetric bootstrap-t held (0.957-0.963) and it is not
    g = np.random.default_rng(2)
    c = math.sqrt(0.5 / 2.5)
    x = g.standard_normal(182)
    a, b = x + c * g.standard_t(2.5, 182), x + 0.8 * c * g.standard_t(2.5, 182)
    r, kinds = _kinds(
        lambda: mlci.compare(x, {"a": a, "b": b}, metric="rmse", n_resamples=200, rng=0, method="t")
    )
    assert not any(d["warn"] for d in r.details["heavy_tail"].values())
    pair = r.details["heavy_tail_pairs"]["a - b"]
    d = (x - a) ** 2 - (x - b) ** 2
    rr = d - d.mean()
    assert pair["difference_kurtosis"] == pytest.approx(182 * np.sum(rr**4) / np.sum(rr**2) ** 2)
    assert pair["difference_kurtosis"] > MAX_DIFFERENCE_KURTOSIS and pair["skewed"] is False
    assert pair["warn"] is True and mlci.HeavyTailWarning in kinds
    assert "kurtosis" in r.details["heavy_tail_warning"]
    assert "symmetric_interval" not in pair


def test_compare_rmse_pair_with_the_symmetric_interval_is_not_warned() -> None:
    # the same pair under auto: the symmetric bootstrap-t (comparison/paired_regression.py)
    # covered 0.957-0.963 for t errors with 2.5 df at n = 182, 0.950-0.980 for t with 3 df
    # and log-normal errors (scripts/data/paired_rmse_heavy_after_182.json): no pair warning,
    # the diagnostics kept
    g = np.random.default_rng(2)
    c = math.sqrt(0.5 / 2.5)
    x = g.standard_normal(182)
    a, b = x + c * g.standard_t(2.5, 182), x + 0.8 * c * g.standard_t(2.5, 182)
    r, kinds = _kinds(
        lambda: mlci.compare(x, {"a": a, "b": b}, metric="rmse", n_resamples=200, rng=0)
    )
    assert r.differences[0].method == "symmetric_studentized"
    pair = r.details["heavy_tail_pairs"]["a - b"]
    assert pair["difference_kurtosis"] > MAX_DIFFERENCE_KURTOSIS
    assert pair["warn"] is False and pair["symmetric_interval"] is True
    assert mlci.HeavyTailWarning not in kinds and "heavy_tail_warning" not in r.details
    # the MSE pair of the same errors (its t interval) is still warned
    r, kinds = _kinds(
        lambda: mlci.compare(x, {"a": a, "b": b}, metric="mse", n_resamples=200, rng=0)
    )
    assert r.details["heavy_tail_pairs"]["a - b"]["warn"] is True
    assert mlci.HeavyTailWarning in kinds


def test_compare_pairs_follow_the_reference() -> None:
    # with a reference system, the pairs are the reference's (as compare's differences)
    g = np.random.default_rng(4)
    y = g.standard_normal(300)
    systems = {k: y + s * g.standard_normal(300) for k, s in (("a", 1.0), ("b", 0.8), ("c", 0.9))}
    r = mlci.compare(y, systems, metric="rmse", reference="a", n_resamples=200, rng=0)
    pairs = set(r.details["heavy_tail_pairs"])
    assert len(pairs) == len(r.differences) == 2
    assert all("a" in p.split(" - ") for p in pairs)  # each pair has the reference
    assert not any(d["warn"] for d in r.details["heavy_tail_pairs"].values())


def test_two_valued_errors_are_left_to_the_proportion_rules() -> None:
    # one error of 1 in 100 0/1 predictions: K = 100, but the MSE is an error rate
    y = np.r_[np.ones(70), np.zeros(30)]
    p = y.copy()
    p[0] = 0
    r = mlci.bootstrap_ci(y, p, metric="mse", method="bca", n_resamples=200, rng=0)
    d = r.details["diagnostics"]["heavy_tail"]
    assert d["error_kurtosis"] == pytest.approx(100.0) and d["warn"] is False


def test_compare_warns_once_naming_the_systems() -> None:
    y, p = _lognormal_errors(182, 1.27, seed=0)
    g = np.random.default_rng(3)
    light = y - 0.5 * g.standard_normal(182)  # normal errors
    r, kinds = _kinds(
        lambda: mlci.compare(y, {"a": p, "b": light}, metric="rmse", n_resamples=200, rng=0)
    )
    assert kinds.count(mlci.HeavyTailWarning) == 1
    d = r.details["heavy_tail"]
    e2 = (y - p) ** 2  # system a's errors: as bootstrap_ci's diagnostic
    assert d["a"]["error_kurtosis"] == pytest.approx(182 * np.sum(e2**2) / np.sum(e2) ** 2)
    assert d["a"]["warn"] is True and d["b"]["warn"] is False
    assert "(systems a;" in r.details["heavy_tail_warning"]


def test_compare_of_normal_errors_is_quiet() -> None:
    g = np.random.default_rng(4)
    y = g.standard_normal(300)
    r = mlci.compare(
        y,
        {"a": y + g.standard_normal(300), "b": y + 0.8 * g.standard_normal(300)},
        metric="mae",
        n_resamples=200,
        rng=0,
    )
    assert "heavy_tail_warning" not in r.details
    assert not any(d["warn"] for d in r.details["heavy_tail"].values())
    assert not r.details["heavy_tail_pairs"]["a - b"]["warn"]


def test_kurtosis_threshold_falls_from_200_samples() -> None:
    # 14 up to n = 200, 8 from n = 1,000 on, log-linear between (sqrt(200 * 1000) = 447)
    lo, hi = KURTOSIS_N
    assert kurtosis_threshold(lo) == MAX_ERROR_KURTOSIS == kurtosis_threshold(20)
    assert kurtosis_threshold(hi) == MAX_ERROR_KURTOSIS_LARGE == kurtosis_threshold(10**5)
    assert kurtosis_threshold(round(math.sqrt(lo * hi))) == pytest.approx(11.0, abs=0.01)
    assert heavy_tail_rule(1000, 8.5, 2, 117.0) and not heavy_tail_rule(200, 8.5, 2, 23.0)


def test_symmetric_heavy_tails_warn_at_large_n() -> None:
    # 1,000 t errors with 2.5 df (RMSE 0.753 of 300 test sets at n = 1,000): K = 10.1, below
    # session 9's 14 but above 8; the octile skewness is near 0
    g = np.random.default_rng(7)
    x = g.standard_normal(1000)
    e = math.sqrt(0.5 / 2.5) * g.standard_t(2.5, 1000)
    r, kinds = _kinds(lambda: mlci.bootstrap_ci(x + e, x, metric="rmse", n_resamples=200, rng=0))
    d = r.details["diagnostics"]["heavy_tail"]
    assert MAX_ERROR_KURTOSIS_LARGE < d["error_kurtosis"] < MAX_ERROR_KURTOSIS
    assert abs(d["octile_skewness"]) < d["skewness_threshold"]
    assert d["warn"] is True and mlci.HeavyTailWarning in kinds
    assert "above 8 for 1000 samples" in r.details["warning"]


# ---- over conditions: the skewness read within conditions (session 12, heavyt12b)
def _s17f_11(i: int) -> tuple[float, Any, list[warnings.WarningMessage]]:
    """Fields design 11 of the design search's seed 17: R^2 (truth 0.4445) of 152 samples
    over 12 conditions, errors sqrt(icc) u_c + sqrt(1 - icc) e, e standardized log-normal
    (sigma 1.44), ICC 0.092; confirmation test set ``i`` (draw seed 18): the truth, auto's
    result and the warnings."""
    dsf = load_script("design_search_fields.py")
    d = dsf.random_design(11, 17)
    assert d.metric == "r2" and d.n == 152 and d.p["conditions"] == 12
    pop = dsf.Population(d)
    x = pop.draw(np.random.default_rng([18, 11, i, 24]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = mlci.bootstrap_ci(
            x["y"], x["a"], metric="r2", conditions=x["conditions"], n_resamples=200, rng=0
        )
    return float(pop.truth), r, list(caught)


def test_r2_of_lognormal_errors_over_conditions_warns() -> None:
    # the reproducer (search17: auto 0.743 of 300, its misses warned 21 of 77): estimate
    # 0.618, studentized [0.489, 0.738] above the truth 0.4445; the raw errors' octile
    # skewness -0.23 (the conditions' intercepts, sd 0.30, swamp the log-normal's middle)
    # and K 8.1 were quiet; centred on their conditions' medians the errors are skewed
    truth, r, caught = _s17f_11(3)
    kinds = [w.category for w in caught]
    assert r.method == "studentized" and r.confidence_interval[0] > truth
    assert r.confidence_interval[0] == pytest.approx(0.489, abs=1e-3)
    h = r.details["diagnostics"]["heavy_tail"]
    assert abs(h["octile_skewness"]) < h["skewness_threshold"]
    assert h["error_kurtosis"] < MAX_ERROR_KURTOSIS
    assert h["octile_skewness_within"] > h["skewness_threshold_within"] > 0.4
    assert h["warn"] is True and mlci.HeavyTailWarning in kinds


def test_r2_over_conditions_warning_says_centred() -> None:
    _, _, caught = _s17f_11(3)
    text = [str(w.message) for w in caught if issubclass(w.category, mlci.HeavyTailWarning)]
    assert len(text) == 1 and "centred on their conditions' medians" in text[0]


def test_compare_systems_over_conditions_read_the_centred_skewness() -> None:
    # compare's systems get bootstrap_ci's heavy-tail diagnostics over conditions too (the
    # lead, session 12: before, compare read only the raw skewness and system a's rule was
    # quiet on this test set, its pair's kurtosis warning aside)
    dsf = load_script("design_search_fields.py")
    pop = dsf.Population(dsf.random_design(11, 17))
    x = pop.draw(np.random.default_rng([18, 11, 3, 24]))
    b = x["a"] + np.random.default_rng(1).normal(0, 0.01, x["a"].size)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mlci.compare(
            x["y"], {"a": x["a"], "b": b}, metric="r2", conditions=x["conditions"],
            n_resamples=200, rng=0,
        )  # fmt: skip
    _, r, _ = _s17f_11(3)
    assert res.details["heavy_tail"]["a"] == r.details["diagnostics"]["heavy_tail"]
    assert res.details["heavy_tail"]["a"]["warn"] is True
    text = [str(w.message) for w in caught if issubclass(w.category, mlci.HeavyTailWarning)]
    assert len(text) == 1 and "systems a, b" in text[0] and "centred" in text[0]


def test_within_condition_skewness_removes_intercepts() -> None:
    # a skewed shape (exponential octiles) behind large intercepts: the raw reading sees the
    # intercepts' symmetric spread, the centred one the shape; reference tanh-free: the
    # exponential's octile skewness (Q(7/8) + Q(1/8) - 2 Q(1/2)) / (Q(7/8) - Q(1/8)) = 0.425
    g = np.random.default_rng(5)
    units = np.repeat(np.arange(1000), 25)
    e = g.exponential(size=units.size) + 20 * g.standard_normal(1000)[units]
    assert abs(octile_skewness(e)) < 0.1
    assert within_condition_skewness(e, units) == pytest.approx(0.425, abs=0.04)
    # invariant to each condition's shift and to the order of the samples
    shift = 7 * g.standard_normal(1000)[units]
    got = within_condition_skewness(e, units)
    assert within_condition_skewness(e + shift, units) == pytest.approx(got, abs=1e-12)
    perm = g.permutation(units.size)
    assert within_condition_skewness(e[perm], units[perm]) == pytest.approx(got, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(30, 400), c=st.integers(2, 14))
def test_within_threshold_never_below_the_raw_one(seed: int, n: int, c: int) -> None:
    assert within_skew_threshold(n, c, 2) >= skew_threshold(n, 2)
    assert within_skew_threshold(n, c, 2) >= SKEW_SCALE / math.sqrt(n - c)
    assert within_skew_threshold(n, c, 1) >= skew_threshold(n, 1)


def test_normal_errors_over_conditions_stay_quiet() -> None:
    # normal errors over 12 conditions with ICC 0.3 at n = 152: the centred reading does
    # not warn (scripts/heavy_tail_conditions_study.py --null: 0 of 1,000 before and after)
    g = np.random.default_rng(11)
    units = np.repeat(np.arange(12), [5, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 21])
    fired = 0
    for _ in range(40):
        y = g.standard_normal(152)
        e = math.sqrt(0.7) * g.standard_normal(152) + math.sqrt(0.3) * g.standard_normal(12)[units]
        kernel = mlci.metrics.get_kernel("rmse", (y + e, y), {})
        h = heavy_tail_diagnostics(kernel, None, units)["heavy_tail"]
        fired += int(h["warn"])
        assert math.isfinite(h["octile_skewness_within"])
    assert fired == 0


def test_iid_diagnostics_unchanged() -> None:
    # without conditions the rule reads the raw skewness alone (no within entries)
    y, p = _lognormal_errors(100, 0.5, 3)
    r, _ = _kinds(lambda: mlci.bootstrap_ci(y, p, metric="rmse", n_resamples=200, rng=0))
    h = r.details["diagnostics"]["heavy_tail"]
    assert "octile_skewness_within" not in h and "skewness_threshold_within" not in h
