"""Multiple-comparison corrections, checked against statsmodels and a published example."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mlci.classical.corrections import adjust_pvalues, reject_hypotheses

multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests

SM_NAMES = {
    "bonferroni": "bonferroni",
    "holm": "holm",
    "hochberg": "simes-hochberg",
    "bh": "fdr_bh",
    "by": "fdr_by",
}


@pytest.mark.parametrize("method", list(SM_NAMES))
def test_matches_statsmodels_multipletests(method):
    # Reference: statsmodels.stats.multitest.multipletests (independent implementation).
    rng = np.random.default_rng(0)
    for m in (1, 2, 5, 17, 100):
        p = rng.uniform(0, 1, m) ** 3
        expected = multipletests(p, method=SM_NAMES[method])[1]
        np.testing.assert_allclose(adjust_pvalues(p, correction=method), expected, rtol=1e-12)


def test_ties_match_statsmodels():
    p = np.array([0.01, 0.01, 0.02, 0.02, 0.5, 0.04])
    for method, sm in SM_NAMES.items():
        np.testing.assert_allclose(adjust_pvalues(p, method), multipletests(p, method=sm)[1])


def test_holm_by_hand():
    # Holm (1979): sorted p_(i) is compared with alpha / (m - i + 1), stopping at the first
    # non-rejection; adjusted p-values as in Wright (1992), computed by hand below.
    p = np.array([0.001, 0.013, 0.014, 0.6])
    # by hand: 4*0.001=0.004, 3*0.013=0.039, max(0.039, 2*0.014=0.028)=0.039, max(.., 0.6)=0.6
    np.testing.assert_allclose(adjust_pvalues(p, "holm"), [0.004, 0.039, 0.039, 0.6])
    np.testing.assert_array_equal(
        reject_hypotheses(p, alpha=0.05, correction="holm"), [True, True, True, False]
    )


def test_benjamini_hochberg_1995_example():
    # Benjamini & Hochberg (1995), section 4.2: 15 p-values from a clinical trial; with
    # q* = 0.05 the BH procedure rejects the four smallest, the Bonferroni-type procedures
    # (Bonferroni, Hochberg) only the three smallest.
    p = [
        0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344,
        0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.000,
    ]  # fmt: skip
    assert reject_hypotheses(p, 0.05, "bh").sum() == 4
    assert reject_hypotheses(p, 0.05, "hochberg").sum() == 3
    assert reject_hypotheses(p, 0.05, "bonferroni").sum() == 3


def test_shape_preserved_and_aliases():
    p = np.array([[0.01, 0.2], [0.03, 0.04]])
    out = adjust_pvalues(p, "fdr_bh")
    assert out.shape == (2, 2)
    np.testing.assert_allclose(out.ravel(), adjust_pvalues(p.ravel(), "bh"))
    np.testing.assert_array_equal(adjust_pvalues(p, "none"), p)
    np.testing.assert_allclose(adjust_pvalues(p, "benjamini-hochberg"), out)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_ordering_properties(ps):
    p = np.array(ps)
    bonf = adjust_pvalues(p, "bonferroni")
    holm = adjust_pvalues(p, "holm")
    hoch = adjust_pvalues(p, "hochberg")
    bh = adjust_pvalues(p, "bh")
    tol = 1e-12
    assert np.all(p <= bh + tol)
    assert np.all(bh <= hoch + tol)
    assert np.all(hoch <= holm + tol)
    assert np.all(holm <= bonf + tol)
    assert np.all(bonf <= 1.0)
    # monotone in the raw p-values
    order = np.argsort(p, kind="stable")
    for adj in (holm, hoch, bh):
        assert np.all(np.diff(adj[order]) >= -tol)


@pytest.mark.parametrize(
    ("pvalues", "match"),
    [
        ([], "`pvalues` is empty"),
        ([0.1, np.nan], "`pvalues` has 1 missing value"),
        ([0.1, 1.2], r"`pvalues` must lie in \[0, 1\]"),
        ([-0.1], r"`pvalues` must lie in \[0, 1\]"),
        (None, "`pvalues` is required"),
    ],
)
def test_bad_pvalues(pvalues, match):
    with pytest.raises(ValueError, match=match):
        adjust_pvalues(pvalues)


def test_bad_correction_and_alpha():
    with pytest.raises(ValueError, match="`correction` must be one of"):
        adjust_pvalues([0.1], correction="sidak-ish")
    with pytest.raises(ValueError, match="`alpha` must be strictly between 0 and 1"):
        reject_hypotheses([0.1], alpha=5)
    with pytest.raises(TypeError, match="`pvalues` must hold numbers"):
        adjust_pvalues(["a"])


def test_correction_renamed():
    # `method` is for interval methods only: the p-value adjustment is `correction`.
    p = [0.01, 0.04, 0.03, 0.005]
    np.testing.assert_allclose(adjust_pvalues(p, correction="bh"), adjust_pvalues(p, "bh"))
    np.testing.assert_array_equal(
        reject_hypotheses(p, alpha=0.05, correction="bonferroni"), [True, False, False, True]
    )
    with pytest.raises(TypeError, match="method"):
        adjust_pvalues(p, method="holm")
    with pytest.raises(TypeError, match="method"):
        reject_hypotheses(p, method="holm")
    with pytest.raises(ValueError, match="`correction` must be one of"):
        reject_hypotheses(p, correction="sidak")


def test_pvalues_from_pandas_and_missing():
    pd = pytest.importorskip("pandas")
    s = pd.Series([0.01, 0.04, 0.03], index=["a", "b", "c"])
    np.testing.assert_allclose(adjust_pvalues(s), adjust_pvalues([0.01, 0.04, 0.03]))
    with pytest.raises(ValueError, match=r"`pvalues` has 1 missing value.*row 1"):
        adjust_pvalues(pd.Series([0.01, pd.NA, 0.03], dtype="Float64"))
    assert adjust_pvalues(0.02) == 0.02  # a single p-value is its own family
