"""DeLong and Hanley–McNeil, checked against an O(m·n) implementation of the definitions
and against Hanley & McNeil's (1982) worked example."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from mlci.classical.auc import (
    delong_ci,
    delong_test,
    delong_test_independent,
    hanley_mcneil_ci,
    hanley_mcneil_se,
)

roc_auc_score = pytest.importorskip("sklearn.metrics").roc_auc_score


def brute_force_delong(y, scores):
    """DeLong et al. (1988), eqs. for V10, V01, S10, S01 with psi(x, y) = 1, 1/2, 0;
    O(m·n), written from the paper independently of the midrank algorithm under test."""
    y = np.asarray(y).astype(bool)
    scores = np.atleast_2d(scores)
    k = scores.shape[0]
    m, n = y.sum(), (~y).sum()
    v10 = np.empty((k, m))
    v01 = np.empty((k, n))
    aucs = np.empty(k)
    for r in range(k):
        x, z = scores[r, y], scores[r, ~y]
        psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
        aucs[r] = psi.mean()
        v10[r] = psi.mean(axis=1)
        v01[r] = psi.mean(axis=0)
    s10 = np.array([[np.sum((v10[i] - aucs[i]) * (v10[j] - aucs[j])) / (m - 1)
                     for j in range(k)] for i in range(k)])  # fmt: skip
    s01 = np.array([[np.sum((v01[i] - aucs[i]) * (v01[j] - aucs[j])) / (n - 1)
                     for j in range(k)] for i in range(k)])  # fmt: skip
    return aucs, s10 / m + s01 / n


def _data(seed, n=150, ties=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = y * 0.8 + rng.normal(0, 1, n)
    b = y * 0.5 + 0.5 * a + rng.normal(0, 1, n)
    if ties:
        a, b = np.round(a), np.round(b * 2) / 2
    return y, a, b


@pytest.mark.parametrize("ties", [False, True])
def test_delong_ci_matches_definition(ties):
    y, a, _ = _data(0, ties=ties)
    aucs, cov = brute_force_delong(y, a)
    r = delong_ci(y, a, confidence_level=0.9)
    assert r.estimate == pytest.approx(roc_auc_score(y, a), rel=1e-12)
    assert r.estimate == pytest.approx(aucs[0], rel=1e-12)
    assert r.standard_error == pytest.approx(np.sqrt(cov[0, 0]), rel=1e-10)
    z = stats.norm.ppf(0.95)
    assert r.confidence_interval.low == pytest.approx(aucs[0] - z * np.sqrt(cov[0, 0]))
    assert r.method == "delong"
    assert r.metric == "roc_auc"


@pytest.mark.parametrize("ties", [False, True])
def test_delong_paired_test_matches_definition(ties):
    y, a, b = _data(1, ties=ties)
    aucs, cov = brute_force_delong(y, np.vstack([a, b]))
    se = np.sqrt(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    z = (aucs[0] - aucs[1]) / se
    r = delong_test(y, a, b)
    assert r.statistic == pytest.approx(z, rel=1e-10)
    assert r.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-10)
    assert r.estimate == pytest.approx(roc_auc_score(y, a) - roc_auc_score(y, b))
    assert r.details["correlation"] == pytest.approx(cov[0, 1] / np.sqrt(cov[0, 0] * cov[1, 1]))
    g = delong_test(y, a, b, alternative="greater")
    assert g.pvalue == pytest.approx(stats.norm.sf(z))
    assert g.confidence_interval.high == 1.0


def test_delong_independent_matches_definition():
    ya, a, _ = _data(2, n=80)
    yb, _, b = _data(3, n=120)
    _, ca = brute_force_delong(ya, a)
    _, cb = brute_force_delong(yb, b)
    r = delong_test_independent(ya, a, yb, b)
    d = roc_auc_score(ya, a) - roc_auc_score(yb, b)
    assert r.estimate == pytest.approx(d)
    assert r.statistic == pytest.approx(d / np.sqrt(ca[0, 0] + cb[0, 0]))


def test_hanley_mcneil_1982_example():
    # Hanley & McNeil (1982), Radiology 143:29-36, Table 1: ratings (1 = definitely normal
    # ... 5 = definitely abnormal) of 109 CT images, 58 normal and 51 abnormal.
    # Published: area W = 0.893, SE(W) = 0.032.
    neg = np.repeat([1, 2, 3, 4, 5], [33, 6, 6, 11, 2])
    pos = np.repeat([1, 2, 3, 4, 5], [3, 2, 2, 11, 33])
    y = np.r_[np.zeros(58), np.ones(51)]
    s = np.r_[neg, pos]
    r = hanley_mcneil_ci(y, s)
    assert r.estimate == pytest.approx(0.893, abs=5e-4)
    assert r.standard_error == pytest.approx(0.032, abs=1e-3)
    assert hanley_mcneil_se(0.893, 51, 58) == pytest.approx(0.032, abs=1e-3)
    # DeLong on the same data is of the same size (ties between ratings count 1/2)
    assert delong_ci(y, s).standard_error == pytest.approx(0.031, abs=2e-3)


def test_hanley_mcneil_se_formula_vectorised():
    a = np.array([0.6, 0.75, 0.9])
    se = hanley_mcneil_se(a, 40, 60)
    q1, q2 = a / (2 - a), 2 * a**2 / (1 + a)
    ref = np.sqrt((a * (1 - a) + 39 * (q1 - a**2) + 59 * (q2 - a**2)) / 2400)
    np.testing.assert_allclose(se, ref)
    with pytest.raises(ValueError, match=r"`auc` must lie in \[0, 1\]"):
        hanley_mcneil_se(1.2, 10, 10)
    with pytest.raises(ValueError, match="`n_negative` must be at least 1"):
        hanley_mcneil_se(0.8, 10, 0)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.booleans())
def test_delong_properties(seed, ties):
    y, a, b = _data(seed, n=40, ties=ties)
    if min(y.sum(), (1 - y).sum()) < 2:
        return
    r = delong_ci(y, a)
    assert 0 <= r.confidence_interval.low <= r.estimate <= r.confidence_interval.high <= 1
    # monotone transformations of the scores change nothing
    r2 = delong_ci(y, np.exp(a))
    assert r2.standard_error == pytest.approx(r.standard_error, abs=1e-12)
    # the paired test of a scorer against itself is null
    t = delong_test(y, a, a)
    assert t.statistic == 0.0
    assert t.pvalue == 1.0
    # swapping the two scorers flips the sign
    assert delong_test(y, b, a).statistic == pytest.approx(-delong_test(y, a, b).statistic)


def test_fast_on_large_input():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200_000)
    s = y + rng.normal(0, 1, y.size)
    r = delong_ci(y, s)
    assert r.estimate == pytest.approx(roc_auc_score(y, s))


def test_bad_input():
    with pytest.raises(ValueError, match="at least 2 positives and 2 negatives"):
        delong_ci([0, 0, 0, 1], [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match="`y_score` has 3 samples but `y_true` has 4"):
        delong_ci([0, 1, 0, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="`y_score` has 1 missing value"):
        delong_ci([0, 1, 0, 1], [0.1, np.nan, 0.3, 0.2])
    with pytest.raises(ValueError, match="needs binary labels, but `y_true` takes 3 values"):
        delong_test([0, 1, 2, 1, 0], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
    with pytest.raises(ValueError, match="`y_true_b` must contain at least 2 positives"):
        delong_test_independent([0, 1, 0, 1], [1, 2, 3, 4], [0, 0, 0, 1], [1, 2, 3, 4])
    r = delong_ci(["a", "b", "a", "b"], [0.1, 0.9, 0.2, 0.8], pos_label="b")
    assert r.estimate == 1.0


# ----------------------------------------------------------------------------------------
# issue 8: the input gate
# ----------------------------------------------------------------------------------------
def _three_classes(seed=0, n=90):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n // 3)
    s = y + rng.normal(0, 1.2, n)
    return y, s


@pytest.mark.parametrize("fn", [delong_ci, hanley_mcneil_ci])
def test_more_than_two_classes_is_refused_not_one_vs_rest(fn):
    # Before: with pos_label=2 the three classes were silently scored 2-vs-rest.
    y, s = _three_classes()
    with pytest.raises(ValueError, match=r"needs binary labels.*binarise.*`y_true == 2`"):
        fn(y, s, pos_label=2)
    with pytest.raises(ValueError, match="needs binary labels"):
        fn(y, s)
    # binarised explicitly, the AUC is scikit-learn's for that class against the rest
    r = fn(y == 2, s)
    assert r.estimate == pytest.approx(roc_auc_score(y == 2, s), rel=1e-12)


def test_more_than_two_classes_refused_by_the_tests():
    y, s = _three_classes()
    with pytest.raises(ValueError, match="needs binary labels, but `y_true` takes 3 values"):
        delong_test(y, s, -s, pos_label=2)
    with pytest.raises(ValueError, match="needs binary labels, but `y_true_b` takes 3 values"):
        delong_test_independent(y == 2, s, y, s, pos_label=True)
    with pytest.raises(ValueError, match="`pos_label`='x' is not among the values"):
        delong_ci(y == 2, s, pos_label="x")


def test_object_labels_with_nan():
    # Before: an object array with a NaN gave np.unique duplicate classes (or a numpy
    # error).  Now: refused, naming `y_true`; dropna=True drops that sample.
    y, a, _ = _data(4, n=100)
    yo = y.astype(object)
    yo[5] = np.nan
    with pytest.raises(ValueError, match=r"`y_true` has 1 missing value.*row 5"):
        delong_ci(yo, a)
    r = delong_ci(yo, a, dropna=True)
    keep = np.arange(100) != 5
    assert r.details["n_dropped"] == 1
    assert r.estimate == pytest.approx(roc_auc_score(y[keep], a[keep]), rel=1e-12)
    assert r.standard_error == pytest.approx(delong_ci(y[keep], a[keep]).standard_error)
    assert delong_ci(y, a).details["n_dropped"] == 0


def test_labels_mixing_strings_and_numbers_refused():
    y = np.array([0, 1, "1", 0, 1, 0], dtype=object)
    with pytest.raises(TypeError, match="`y_true` mixes strings and numbers"):
        delong_ci(y, [0.1, 0.9, 0.8, 0.2, 0.7, 0.3])


def test_infinite_scores_rank_as_extremes():
    # Log-likelihood ratios may be ±inf: they are ranks like any score (the finite
    # stand-ins below give the same ranks, hence the same AUC and DeLong SE).
    y, a, _ = _data(5, n=60)
    a_inf = a.copy()
    a_inf[np.argmax(a)] = np.inf
    a_inf[np.argmin(a)] = -np.inf
    a_fin = a.copy()
    a_fin[np.argmax(a)] = 1e6
    a_fin[np.argmin(a)] = -1e6
    r, ref = delong_ci(y, a_inf), delong_ci(y, a_fin)
    assert r.estimate == ref.estimate
    assert r.standard_error == pytest.approx(ref.standard_error, rel=1e-12)


def test_renamed_score_arguments():
    y, a, b = _data(6)
    r = delong_test(y, y_score_a=a, y_score_b=b)
    assert r.statistic == delong_test(y, a, b).statistic
    with pytest.raises(TypeError, match="score_a"):
        delong_test(y, score_a=a, score_b=b)
    r = delong_test_independent(y_true_a=y, y_score_a=a, y_true_b=y, y_score_b=b)
    assert r.details["n_dropped"] == 0


def test_one_sided_intervals_end_at_the_range():
    y, a, b = _data(7)
    assert delong_ci(y, a, alternative="greater").confidence_interval.high == 1.0
    assert delong_ci(y, a, alternative="less").confidence_interval.low == 0.0
    assert hanley_mcneil_ci(y, a, alternative="greater").confidence_interval.high == 1.0
    assert delong_test(y, a, b, alternative="less").confidence_interval.low == -1.0


def test_dropna_in_independent_sets():
    ya, a, _ = _data(8, n=60)
    yb, _, b = _data(9, n=70)
    bo = b.astype(object)
    bo[[3, 9]] = None
    with pytest.raises(ValueError, match="`y_score_b` has 2 missing value"):
        delong_test_independent(ya, a, yb, bo)
    r = delong_test_independent(ya, a, yb, bo, dropna=True)
    keep = ~np.isin(np.arange(70), [3, 9])
    ref = delong_test_independent(ya, a, yb[keep], b[keep])
    assert (r.details["n_dropped"], r.details["n_dropped_a"], r.details["n_dropped_b"]) == (2, 0, 2)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
