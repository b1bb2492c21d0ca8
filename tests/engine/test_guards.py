"""Guards of issue 20 (item 5): one sample, too few replicates for the level.

References: Wilson (1927) interval of 1 success in 1 trial, lower bound
1 / (1 + z^2) = 0.20654931 at 95% (z = 1.959964; Brown, Cai & DasGupta 2001, eq. 4;
``statsmodels.stats.proportion.proportion_confint(1, 1, method="wilson")`` gives
(0.2065493143772375, 1.0)).  Clopper-Pearson of 1/1: (alpha/2)^(1/n) = 0.025.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

import mlci
from mlci.cli import main
from mlci.intervals.bootstrap import MIN_TAIL_REPLICATES, tail_replicates


@pytest.mark.parametrize("method", ["auto", "wilson"])
def test_one_sample_proportion_is_wilson(method):
    res = mlci.bootstrap_ci([1], [1], metric="accuracy", method=method, rng=0)
    ref = proportion_confint(1, 1, alpha=0.05, method="wilson")
    assert res.method == "wilson"
    assert res.confidence_interval.low == pytest.approx(ref[0], abs=1e-12)
    assert res.confidence_interval.high == pytest.approx(1.0)
    if method == "auto":
        assert "single sample" in res.details["method_reason"]


@pytest.mark.parametrize("method", ["studentized", "t", "logit_t"])
def test_one_sample_linearized_methods_refused(method):
    with pytest.raises(ValueError, match=r"cannot be estimated from a\s+single sample"):
        mlci.bootstrap_ci([1], [1], metric="accuracy", method=method, rng=0)


def test_one_sample_other_metric_collapses_with_a_warning():
    with pytest.warns(mlci.DegenerateIntervalWarning):
        res = mlci.bootstrap_ci([1], [1], metric="f1", rng=0)
    assert res.method == "bca"
    assert tuple(res.confidence_interval) == (1.0, 1.0)
    assert "single sample" in res.details["method_reason"]


@pytest.mark.parametrize("method", ["wilson", "auto", "clopper-pearson"])
def test_one_row_file(tmp_path, capsys, method):
    path = tmp_path / "one.csv"
    path.write_text("label,pred\n1,1\n")
    argv = ["ci", str(path), "--label", "label", "--pred", "pred", "--metric", "accuracy"]
    assert main([*argv, "--method", method, "--seed", "0", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    # statsmodels: wilson (0.2065, 1); beta (Clopper-Pearson) (0.025, 1)
    ref = proportion_confint(1, 1, method="beta" if method == "clopper-pearson" else "wilson")
    assert row["confidence_interval"]["low"] == pytest.approx(ref[0], abs=1e-9)


@pytest.mark.parametrize(
    ("n_resamples", "method", "level"),
    [
        (5, "bca", 0.95),
        (10, "percentile", 0.95),
        (1000, "percentile", 0.9999),
        (30, "auto", 0.95),
        # below 5 expected per tail (MIN_TAIL_REPLICATES), the rule since issue 20's
        # follow-up (1 before): 50 at 95% (1.25 per tail), 199 at 95% (4.98), 999 at 99%
        (50, "bca", 0.95),
        (199, "percentile", 0.95),
        (999, "bca", 0.99),
        (150, "auto", 0.95),  # f1: the studentized interval reads t* quantiles
    ],
)
def test_too_few_replicates_warn(n_resamples, method, level):
    y = np.r_[np.ones(50, int), np.zeros(50, int)]
    p = y.copy()
    p[:10] = 0
    with pytest.warns(mlci.FewResamplesWarning, match="too few"):
        mlci.bootstrap_ci(
            y, p, metric="f1", n_resamples=n_resamples, method=method,
            confidence_level=level, rng=0,
        )  # fmt: skip


@pytest.mark.parametrize("method", ["percentile", "bca", "auto"])
def test_enough_replicates_do_not_warn(method):
    y = np.r_[np.ones(50, int), np.zeros(50, int)]
    p = y.copy()
    p[:10] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mlci.bootstrap_ci(y, p, metric="f1", n_resamples=1000, method=method, rng=0)


@pytest.mark.parametrize("level", [0.95, 0.99])
@pytest.mark.parametrize("method", ["percentile", "basic", "bca", "auto"])
def test_default_replicates_do_not_warn_at_95_and_99(method, level):
    y = np.r_[np.ones(50, int), np.zeros(50, int)]
    p = y.copy()
    p[:10] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mlci.bootstrap_ci(y, p, metric="f1", method=method, confidence_level=level, rng=0)


def _drivers_with_n_resamples():
    import inspect

    out = []
    candidates = [(n, getattr(mlci, n)) for n in mlci.__all__]
    candidates += [
        ("Scores.bootstrap_ci", mlci.Scores.bootstrap_ci),
        ("ConfusionMatrix.bootstrap_ci", mlci.ConfusionMatrix.bootstrap_ci),
    ]
    for name, obj in candidates:
        if not inspect.isroutine(obj):  # functions and methods, not result classes
            continue
        try:
            param = inspect.signature(obj).parameters.get("n_resamples")
        except (TypeError, ValueError):
            continue
        if param is not None and isinstance(param.default, int):
            out.append((name, param.default))
    return out


def test_every_drivers_default_n_resamples_is_enough_at_99():
    # every public driver's default n_resamples leaves at least MIN_TAIL_REPLICATES (5)
    # replicates beyond each bound of a two-sided 99% interval (and so of a 95% one)
    drivers = _drivers_with_n_resamples()
    assert len(drivers) > 20  # bootstrap_ci, compare, auc_ci, eer_ci, metric_by_group...
    for name, default in drivers:
        for level in (0.95, 0.99):
            tail = tail_replicates(default, "bca", level, "two-sided", {})
            assert tail >= MIN_TAIL_REPLICATES, (name, default, level, tail)


def test_tail_replicates():
    assert tail_replicates(10, "percentile", 0.95, "two-sided", {}) == pytest.approx(0.25)
    assert tail_replicates(1000, "bca", 0.9999, "two-sided", {}) == pytest.approx(0.05)
    assert tail_replicates(100, "percentile", 0.95, "greater", {}) == pytest.approx(5.0)
    assert tail_replicates(10, "normal", 0.95, "two-sided", {}) == float("inf")


def test_cli_few_replicates_warns(capsys):
    argv = ["ci", "--example", "--metric", "f1", "--average", "macro", "-B", "10"]
    assert main([*argv, "--method", "percentile", "--seed", "0"]) == 0
    err = capsys.readouterr().err  # the CLI prints mlci's warnings
    assert "10 replicates are too few for a 0.95 percentile interval" in err


def test_cli_bca_from_50_replicates_warns(capsys):
    # `-B 50 --method bca` at 95%: 1.25 replicates expected beyond a bound (< 5)
    argv = ["ci", "--example", "--metric", "accuracy", "-B", "50", "--method", "bca"]
    assert main([*argv, "--seed", "0"]) == 0
    err = capsys.readouterr().err
    assert "50 replicates are too few for a 0.95 bca interval" in err
    assert "about 1.3 replicate(s) lie beyond a bound (fewer than 5)" in err


def test_cli_default_replicates_do_not_warn(capsys):
    argv = ["ci", "--example", "--metric", "accuracy", "--method", "bca", "--seed", "0"]
    assert main([*argv, "--confidence-level", "0.99"]) == 0
    assert "too few" not in capsys.readouterr().err


def test_one_sided_to_dict_is_strict_json():
    res = mlci.bootstrap_ci(
        np.arange(20.0), metric="mean", alternative="greater", rng=0, method="percentile"
    )
    assert res.confidence_interval.high == np.inf
    d = res.to_dict()
    assert d["confidence_interval"]["high"] is None
    assert d["bounds"] == [None, None]
    json.dumps(d, allow_nan=False)
