"""A Tango pair of :func:`mlci.compare` re-read at another level or alternative
(:meth:`mlci.PairDifference.interval`) equals ``compare`` called at that level and
alternative: Tango's interval is re-solved from ``details["paired_table"]`` (issue 20)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mlci

ALTERNATIVES = ("two-sided", "less", "greater")


def _from_table(table, seed=0):
    """Labels and two systems whose paired correctness table is ``table``."""
    g = np.random.default_rng(seed)
    (n11, n12), (n21, n22) = table
    ca = np.repeat([1, 1, 0, 0], [n11, n12, n21, n22]).astype(bool)
    cb = np.repeat([1, 0, 1, 0], [n11, n12, n21, n22]).astype(bool)
    y = g.integers(0, 2, len(ca))
    return y, np.where(ca, y, 1 - y), np.where(cb, y, 1 - y)


def _pair(y, a, b, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        res = mlci.compare(y, {"A": a, "B": b}, metric="accuracy", rng=0, n_resamples=200, **kw)
    return res.difference("A", "B")


@settings(max_examples=25, deadline=None)
@given(
    table=st.tuples(st.integers(5, 60), st.integers(0, 25), st.integers(0, 25), st.integers(0, 40)),
    level=st.floats(0.5, 0.999),
    alternative=st.sampled_from(ALTERNATIVES),
    start=st.sampled_from(ALTERNATIVES),
)
def test_reread_equals_compare_at_that_level(table, level, alternative, start):
    y, a, b = _from_table([[table[0], table[1]], [table[2], table[3]]])
    d = _pair(y, a, b, alternative=start)
    assert d.method == "tango"
    direct = _pair(y, a, b, confidence_level=level, alternative=alternative)
    r = d.interval(confidence_level=level, alternative=alternative)
    assert tuple(r.confidence_interval) == tuple(direct.confidence_interval)  # exactly
    assert (r.method, r.confidence_level, r.alternative) == ("tango", level, alternative)
    assert r.estimate == direct.estimate
    assert r.standard_error == direct.standard_error
    assert r.details["pvalue"] == direct.pvalue
    assert r.details["paired_table"] == direct.details["paired_table"]
    # the 99% interval contains the 95% one, which contains the 90% one
    nested = d.interval(confidence_level=[0.9, 0.95, 0.99], alternative=alternative)
    for inner, outer in itertools.pairwise(nested):
        assert outer.confidence_interval.low <= inner.confidence_interval.low
        assert outer.confidence_interval.high >= inner.confidence_interval.high


def test_reread_published_example():
    # Fagerland, Lydersen & Laake (2017), Cavo et al. data: Tango's 95% interval
    # -0.0621 (-0.1240 to -0.0054), re-read from a 90% comparison
    y, a, b = _from_table([[59, 6], [16, 80]])
    d = _pair(y, a, b, confidence_level=0.9)
    r = d.interval(confidence_level=0.95)
    assert [round(x, 4) for x in r.confidence_interval] == [-0.1240, -0.0054]
    # the default re-read is this result's own interval
    assert tuple(d.interval().confidence_interval) == tuple(d.confidence_interval)


def test_reread_refuses_what_it_cannot_recompute():
    y, a, b = _from_table([[59, 6], [16, 80]])
    d = _pair(y, a, b)
    with pytest.raises(ValueError, match="confidence_level"):
        d.interval(confidence_level=1.5)
    with pytest.raises(ValueError, match="alternative"):
        d.interval(alternative="both")
    # a pair with a t or bootstrap interval: its replicates are not kept
    g = np.random.default_rng(1)
    s = g.random(len(y)) + y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        res = mlci.compare(y, {"A": s, "B": s + g.random(len(y))}, metric="roc_auc", rng=0)
    pair = res.difference("A", "B")
    assert pair.method != "tango"
    with pytest.raises(ValueError, match="compare again"):
        pair.interval(confidence_level=0.9)
