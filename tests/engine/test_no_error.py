"""F1, F_beta, MCC and Cohen's kappa on a test set without an error: the exact interval of
"no error" (mlci.engine.no_error, mlci.intervals.no_error) in place of the point [1, 1].

References: Clopper & Pearson (1934)'s bound for 0 failures in n trials is the Beta
quantile ``beta.ppf(alpha / 2, n, 1) = (alpha / 2) ** (1 / n)`` (scipy); F1 = 2J / (1 + J)
for the Jaccard index J = TP / (TP + FP + FN), a proportion of the TP + FP + FN samples.
The lower end for MCC and kappa is checked against a brute-force minimum over a dense
grid of the region of error rates an exact test of "no error" does not reject.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy import stats

import mlci
from mlci.exceptions import FewConditionsWarning, NearBoundWarning
from mlci.intervals.no_error import NoErrorTable, no_error_interval


def _table(rows: np.ndarray) -> tuple[np.ndarray, ...]:
    return tuple(np.moveaxis(np.asarray(rows, dtype=float), -1, 0))


def f1(rows: np.ndarray) -> np.ndarray:
    _, fp, fn, tp = _table(rows)
    return 2 * tp / (2 * tp + fp + fn)


def mcc(rows: np.ndarray) -> np.ndarray:
    tn, fp, fn, tp = _table(rows)
    return (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


def kappa(rows: np.ndarray) -> np.ndarray:
    tn, fp, fn, tp = _table(rows)
    n = tn + fp + fn + tp
    po = (tp + tn) / n
    pe = ((tp + fp) * (tp + fn) + (tn + fn) * (tn + fp)) / n**2
    return (po - pe) / (1 - pe)


def perfect(n_pos: int, n_neg: int) -> np.ndarray:
    return np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]


@pytest.mark.parametrize(("n0", "n1"), [(83, 17), (50, 50), (1597, 17), (97, 3)])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_f1_is_clopper_pearson_of_the_jaccard_index(n0: int, n1: int, level: float) -> None:
    # without an error TP + FP + FN = n1: J's exact lower bound is beta.ppf(alpha/2, n1, 1)
    j = stats.beta.ppf((1 - level) / 2, n1, 1)
    low, high, _ = no_error_interval(NoErrorTable((n0, n1), f1), confidence_level=level)
    assert float(low) == pytest.approx(2 * j / (1 + j), rel=1e-9)
    assert float(high) == 1.0


@pytest.mark.parametrize("metric", [mcc, kappa])
@pytest.mark.parametrize(("n0", "n1"), [(83, 17), (300, 200), (40, 5)])
def test_lower_end_is_the_minimum_over_the_region(metric, n0: int, n1: int) -> None:
    # brute force: every (a, b) with (1 - a)^n1 (1 - b)^n0 >= alpha / 2 (the exact test of
    # "no error" does not reject), the metric of the expected table at the class sizes
    lam = -np.log(0.025)
    a = np.linspace(0, 1 - np.exp(-lam / n1), 1201)
    b = np.linspace(0, 1 - np.exp(-lam / n0), 1201)
    aa, bb = np.meshgrid(a, b)
    inside = -n1 * np.log1p(-aa) - n0 * np.log1p(-bb) <= lam + 1e-12
    rows = np.stack([n0 * (1 - bb), n0 * bb, n1 * aa, n1 * (1 - aa)], axis=-1)
    brute = float(np.nanmin(np.where(inside, metric(rows), np.inf)))
    low, _, _ = no_error_interval(NoErrorTable((n0, n1), metric), confidence_level=0.95)
    assert float(low) <= brute + 1e-12  # the search finds the region's lowest point...
    assert float(low) == pytest.approx(brute, abs=2e-4)  # ...which the grid approaches


@pytest.mark.parametrize("metric", [f1, mcc, kappa])
def test_the_exact_test_keeps_its_level(metric) -> None:
    # the chance of a test set without an error whose interval misses the truth is at most
    # alpha / 2 for every pair of error rates (the metric at the class shares n1 / n)
    n0, n1 = 83, 17
    low, _, _ = no_error_interval(NoErrorTable((n0, n1), metric), confidence_level=0.95)
    a, b = np.meshgrid(np.linspace(0, 0.4, 401), np.linspace(0, 0.1, 401))
    rows = np.stack([n0 * (1 - b), n0 * b, n1 * a, n1 * (1 - a)], axis=-1)
    miss = metric(rows) < float(low)
    p_no_error = (1 - a) ** n1 * (1 - b) ** n0
    assert miss.any()  # the bound is informative
    assert float(np.max(np.where(miss, p_no_error, 0.0))) <= 0.025 + 1e-9
    # a 90% interval labelled 95% would fail: its misses have P(no error) up to 0.05
    low90, _, _ = no_error_interval(NoErrorTable((n0, n1), metric), confidence_level=0.9)
    miss90 = metric(rows) < float(low90)
    assert float(np.max(np.where(miss90, p_no_error, 0.0))) > 0.03


@pytest.mark.parametrize("metric", ["f1", "mcc", "cohen_kappa"])
def test_bootstrap_ci_gives_it_without_an_error(metric: str) -> None:
    y = perfect(17, 1597)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "no spread" warning: the interval has a width
        res = mlci.bootstrap_ci(y, y, metric=metric, rng=0)
    assert res.method == "exact_no_error"
    assert "exact_no_error" in res.details["method_reason"]
    low, high = res.confidence_interval
    assert 0.85 < low < 0.95 and high == 1.0
    json.dumps(res.to_dict(), allow_nan=False)  # strict JSON (the table's code is not data)
    # re-read at another level: the same function
    again = res.interval(confidence_level=0.99)
    assert again.confidence_interval.low < low
    assert res.interval(alternative="less").confidence_interval.high == 1.0
    greater = res.interval(alternative="greater").confidence_interval.low
    assert low < greater < 1.0


def test_nested_levels_and_row_order() -> None:
    y = perfect(40, 260)
    res95 = mlci.bootstrap_ci(y, y, metric="mcc", rng=1)
    res99 = mlci.bootstrap_ci(y, y, metric="mcc", rng=1, confidence_level=0.99)
    assert res99.confidence_interval.low < res95.confidence_interval.low
    perm = np.random.default_rng(0).permutation(len(y))
    res_p = mlci.bootstrap_ci(y[perm], y[perm], metric="mcc", rng=1)
    assert res_p.confidence_interval == res95.confidence_interval


def test_pos_label_mirror() -> None:
    # F1 of class 0 is F1 of the swapped labels
    y = perfect(30, 170)
    a = mlci.bootstrap_ci(y, y, metric="f1", pos_label=0, rng=0)
    b = mlci.bootstrap_ci(1 - y, 1 - y, metric="f1", rng=0)
    assert a.confidence_interval == b.confidence_interval
    assert a.confidence_interval.low > 0.98  # 170 samples of class 0


def test_one_error_keeps_the_bootstrap() -> None:
    # away from "no error" nothing changes: one false negative keeps auto's own interval
    y = perfect(17, 583)
    p = y.copy()
    p[0] = 0
    res = mlci.bootstrap_ci(y, p, metric="f1", rng=0)
    assert res.method != "exact_no_error"


def test_few_positives_get_it_with_the_warning() -> None:
    # 3 positives: the percentile interval was [1, 1]; the exact one is wide, and warned
    y = perfect(3, 97)
    with pytest.warns(FewConditionsWarning, match="exact one of 'no error'") as rec:
        res = mlci.bootstrap_ci(y, y, metric="f1", rng=0)
    assert any("The exact_no_error interval of 'f1'" in str(w.message) for w in rec)
    j = stats.beta.ppf(0.025, 3, 1)
    assert res.confidence_interval.low == pytest.approx(2 * j / (1 + j), rel=1e-9)


def test_over_conditions_it_warns_that_clustering_is_unknown() -> None:
    y = perfect(60, 540)
    cond = np.arange(600) % 40
    with pytest.warns((NearBoundWarning, FewConditionsWarning)) as rec:
        res = mlci.bootstrap_ci(y, y, metric="cohen_kappa", conditions=cond, rng=0)
    assert res.method == "exact_no_error"
    assert any("how errors would cluster" in str(w.message) for w in rec)


def test_balanced_accuracy_and_accuracy_keep_their_intervals() -> None:
    y = perfect(17, 583)
    assert mlci.bootstrap_ci(y, y, metric="balanced_accuracy", rng=0).method == "mover_wilson"
    assert mlci.bootstrap_ci(y, y, metric="accuracy", rng=0).method == "wilson_modified"
