"""The heavy-tailed errors' warning of the regression metrics (engine/heavy_tail.py).

The seed-10 design search found the MSE, RMSE and MAE of log-normal errors without an
interval that holds; ``scripts/heavy_tail_study.py`` swept error laws and sample sizes
for the rule's threshold (docs/validation.md, "Heavy-tailed regression errors (session
9)").
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mlci
from mlci.engine.heavy_tail import (
    MAX_ERROR_KURTOSIS,
    MIN_EFFECTIVE_ABSOLUTE,
    MIN_SAMPLES,
    heavy_tail_rule,
    loss_tail_diagnostics,
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
    n=st.integers(MIN_SAMPLES, 2000),
    law=st.sampled_from(["normal", "uniform"]),
    metric=st.sampled_from(["mse", "rmse", "mae", "r2"]),
    seed=st.integers(0, 2**31 - 1),
)
def test_light_tails_stay_quiet(n: int, law: str, metric: str, seed: int) -> None:
    # normal and uniform errors, n >= 20: K is at most about 4 (3 and 1.8 in the
    # population), far below the threshold; filterwarnings=error fails on any warning
    g = np.random.default_rng(seed)
    x = g.standard_normal(n)
    e = g.standard_normal(n) if law == "normal" else g.uniform(-1.0, 1.0, n)
    r = mlci.bootstrap_ci(x + e, x, metric=metric, n_resamples=200, rng=0)
    assert r.details["diagnostics"]["heavy_tail"]["warn"] is False


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
