"""``method="auto"`` gives a paired difference of two proportions (accuracy, an error
rate, a recall) of independent unweighted samples Tango's (1998) score interval of the
paired 2×2 table, with Tango's score test at 0 (McNemar's z) as its p-value
(:mod:`mlci.comparison.tango`; docs/validation.md, section 5, "Paired differences")."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar

import mlci
from _scripts import load_script


def _from_table(table, n_classes=2, seed=0):
    """Labels and two systems whose paired correctness table is ``table``."""
    g = np.random.default_rng(seed)
    (n11, n12), (n21, n22) = table
    ca = np.repeat([1, 1, 0, 0], [n11, n12, n21, n22]).astype(bool)
    cb = np.repeat([1, 0, 1, 0], [n11, n12, n21, n22]).astype(bool)
    y = g.integers(0, n_classes, len(ca))
    wrong = (y + g.integers(1, n_classes, len(ca))) % n_classes
    return y, np.where(ca, y, wrong), np.where(cb, y, wrong)


def _systems(n=300, seed=2):
    g = np.random.default_rng(seed)
    y = g.integers(0, 2, n)
    a = np.where(g.random(n) < 0.88, y, 1 - y)
    b = np.where(g.random(n) < 0.82, y, 1 - y)
    c = np.where(g.random(n) < 0.95, y, 1 - y)
    return y, {"A": a, "B": b, "C": c}


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("level", [0.9, 0.95])
def test_interval_equals_paired_proportion_diff_ci(alternative, level):
    y, sy = _systems()
    res = mlci.compare(
        y, sy, metric="accuracy", rng=0, alternative=alternative, confidence_level=level
    )
    assert len(res.differences) == 3
    for d in res.differences:
        table = mlci.paired_table(sy[d.a] == y, sy[d.b] == y)
        ref = mlci.paired_proportion_diff_ci(
            table, method="tango", confidence_level=level, alternative=alternative
        )
        assert d.method == "tango"
        assert d.details["paired_table"] == table.tolist()
        assert_allclose(d.estimate, ref.estimate, atol=1e-12)
        assert_allclose(tuple(d.confidence_interval), tuple(ref.confidence_interval), atol=1e-12)
    assert "tango" in res.details["method_reason"]
    assert "0.931-0.990" in res.details["method_reason"]
    assert res.pvalue_method.startswith("Tango's score test")


def test_published_example_through_compare():
    # Fagerland, Lydersen & Laake (2017), Table 8.x (Cavo et al. data), Tango's interval
    # -0.0621 (-0.1240 to -0.0054), as in tests/classical/test_proportions.py
    y, a, b = _from_table([[59, 6], [16, 80]], n_classes=3)
    d = mlci.compare(y, {"A": a, "B": b}, metric="accuracy", rng=0).difference("A", "B")
    assert d.method == "tango"
    assert round(d.estimate, 4) == -0.0621
    assert [round(x, 4) for x in d.confidence_interval] == [-0.1240, -0.0054]
    # McNemar's asymptotic test without continuity correction (statsmodels): chi2 = z^2
    ref = mcnemar([[59, 6], [16, 80]], exact=False, correction=False)
    assert_allclose(d.pvalue, ref.pvalue, rtol=1e-10)


def test_pvalue_inverts_the_interval():
    # Tango's score statistic at d = 0 is McNemar's z = (n12 - n21) / sqrt(n12 + n21), so
    # p < alpha exactly when 0 lies outside the interval (any alternative)
    g = np.random.default_rng(5)
    for _ in range(40):
        n12, n21 = g.integers(0, 25, 2)
        table = [[int(g.integers(0, 100)), int(n12)], [int(n21), int(g.integers(0, 20))]]
        if sum(map(sum, table)) == 0:
            continue
        y, a, b = _from_table(table, seed=int(g.integers(1000)))
        for alt in ("two-sided", "less", "greater"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", mlci.MlciWarning)
                d = mlci.compare(
                    y, {"A": a, "B": b}, metric="accuracy", rng=0, alternative=alt
                ).difference("A", "B")
            lo, hi = d.confidence_interval
            assert (d.pvalue < 0.05) == (not lo <= 0.0 <= hi), (table, alt)
            if n12 + n21:
                z = (n12 - n21) / np.sqrt(n12 + n21)
                p = {
                    "two-sided": 2 * stats.norm.sf(abs(z)),
                    "greater": stats.norm.sf(z),
                    "less": stats.norm.cdf(z),
                }[alt]
                assert_allclose(d.pvalue, p, rtol=1e-12)


def test_other_proportions_with_a_shared_denominator():
    y, sy = _systems()
    err = mlci.compare(y, sy, metric="error_rate", rng=0).difference("A", "B")
    acc = mlci.compare(y, sy, metric="accuracy", rng=0).difference("A", "B")
    assert err.method == "tango"
    assert_allclose(
        tuple(err.confidence_interval),
        (-acc.confidence_interval.high, -acc.confidence_interval.low),
        atol=1e-12,
    )
    # recall: the paired table over the positives
    rec = mlci.compare(y, sy, metric="recall", rng=0).difference("A", "B")
    pos = y == 1
    table = mlci.paired_table(sy["A"][pos] == 1, sy["B"][pos] == 1)
    ref = mlci.paired_proportion_diff_ci(table, method="tango")
    assert rec.method == "tango"
    assert_allclose(tuple(rec.confidence_interval), tuple(ref.confidence_interval), atol=1e-12)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"metric": "accuracy", "conditions": np.arange(300) % 30},
        {"metric": "accuracy", "strata": np.arange(300) % 2},
        {"metric": "accuracy", "sample_weight": np.ones(300)},
        {"metric": "accuracy", "method": "t"},
        {"metric": "accuracy", "method": "bca"},
        {"metric": "f1"},
        {"metric": "precision"},  # the denominators differ: no paired table
        {"metric": "balanced_accuracy"},
    ],
)
def test_the_other_rules_are_kept(kwargs):
    y, sy = _systems()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        res = mlci.compare(y, sy, rng=0, **kwargs)
    assert all(d.method != "tango" for d in res.differences)
    assert "tango (" not in str(res.details.get("method_reason", ""))


def test_margin_tests_invert_tangos_interval():
    # the margin tests of a Tango pair are Tango's score tests at the margin, and their
    # interval Tango's at 1 - 2 alpha: at a margin equal to that interval's bound the
    # one-sided p-value is alpha (score inversion), and TOST's decision is that interval
    # inside (-margin, margin)
    y, a, b = _from_table([[150, 9], [13, 28]])  # d = -0.02
    table = mlci.paired_table(a == y, b == y)
    ref = mlci.paired_proportion_diff_ci(table, method="tango", confidence_level=0.9)
    lo, hi = ref.confidence_interval
    assert lo < 0 < hi
    for margin, p_lower, p_upper in ((-lo, 0.05, None), (hi, None, 0.05)):
        d = mlci.compare(y, {"A": a, "B": b}, metric="accuracy", rng=0, margin=margin)
        m = d.difference("A", "B").margin_test
        assert m.method == "Tango's score test at the margin"
        assert_allclose(tuple(m.interval), (lo, hi), atol=1e-12)
        if p_lower is not None:
            assert_allclose(m.pvalue_lower, p_lower, rtol=1e-6)
        if p_upper is not None:
            assert_allclose(m.pvalue_upper, p_upper, rtol=1e-6)
    for margin in (0.05, 0.08, 0.12):
        m = mlci.compare(y, {"A": a, "B": b}, metric="accuracy", rng=0, margin=margin)
        m = m.difference("A", "B").margin_test
        assert m.equivalent == (-margin < lo and hi < margin)
        assert m.noninferior == (-margin < lo)


def _exact_coverage(n, p_b, p_c, level):
    """Exact coverage of Tango's interval (the interval ``compare`` gives, see above) of
    ``c - b`` over the trinomial (b, c) of a paired accuracy difference
    (``exact_coverage`` of scripts/paired_diff_study.py)."""
    mod = load_script("paired_diff_study.py", "paired_diff_study_exact")
    return mod.exact_coverage(n, p_b, p_c, "tango", confidence_level=level)


@pytest.mark.search
@pytest.mark.parametrize(
    "disc, share", [(2, 0.0), (3, 0.0), (4, 0.0), (8, 0.25), (12, 0.5), (20, 0.0)]
)
def test_exact_coverage_rejects_a_90_percent_interval(disc, share):
    # exact (no simulation error): Tango's 95% interval covers 0.93-0.99 over n = 200 and
    # 2-20 expected discordant samples (scripts/paired_diff_study.py --exact), while its
    # 90% interval, labelled 95%, falls below 0.93 from 8 discordant samples on (with
    # 2-4 the discreteness keeps even a 90% interval near 0.93-0.98)
    n = 200
    p_b, p_c = share * disc / n, (1 - share) * disc / n
    cov95 = _exact_coverage(n, p_b, p_c, 0.95)
    assert 0.93 <= cov95 <= 0.99
    if disc >= 8:
        assert _exact_coverage(n, p_b, p_c, 0.90) < 0.93


# R 4.x, a hand-written Tango (1998) score interval (restricted MLE of p21 in closed
# form, uniroot with tol = 1e-14):
#   tango_stat <- function(d, n12, n21, n) {
#     A <- 2*n; B <- -n12 - n21 + (2*n - n12 + n21)*d; C <- -n21*d*(1 - d)
#     p21 <- (-B + sqrt(B^2 - 4*A*C)) / (2*A)
#     (n12 - n21 - n*d) / sqrt(n*(2*p21 + d*(1 - d))) }
#   lower: uniroot(tango_stat(d) - z, c(-1 + 1e-12, dh)); upper: uniroot(... + z, c(dh, 1 - 1e-12))
R_TANGO = [
    ([[59, 6], [16, 80]], 0.95, (-0.12402343246407, -0.00543339573168)),
    ([[251, 93], [46, 10]], 0.95, (0.0606033189378, 0.1742886531194)),
    ([[190, 3], [0, 7]], 0.95, (-0.00412800627293, 0.04316572879269)),
    ([[251, 93], [46, 10]], 0.90, (0.069820697456, 0.165114945514)),
]


@pytest.mark.parametrize("table, level, expected", R_TANGO)
def test_against_a_hand_written_tango_in_r(table, level, expected):
    y, a, b = _from_table(table, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        d = mlci.compare(
            y, {"A": a, "B": b}, metric="accuracy", rng=0, confidence_level=level
        ).difference("A", "B")
    assert d.method == "tango"
    assert_allclose(tuple(d.confidence_interval), expected, atol=1e-10)
