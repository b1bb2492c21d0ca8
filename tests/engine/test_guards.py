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
from mlci.intervals.bootstrap import tail_replicates


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
    [(5, "bca", 0.95), (10, "percentile", 0.95), (1000, "percentile", 0.9999), (30, "auto", 0.95)],
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


def test_one_sided_to_dict_is_strict_json():
    res = mlci.bootstrap_ci(
        np.arange(20.0), metric="mean", alternative="greater", rng=0, method="percentile"
    )
    assert res.confidence_interval.high == np.inf
    d = res.to_dict()
    assert d["confidence_interval"]["high"] is None
    assert d["bounds"] == [None, None]
    json.dumps(d, allow_nan=False)
