"""The weights view of the score drivers finds every grid point of every replicate in
one search (issue 25): the same atoms as one search per grid point."""

from __future__ import annotations

import numpy as np
import pytest

import mlci
from mlci.scores._roc import _Layout, _roc_rate_at, _value_at, _View, _WeightsView


def test_value_at_all_columns_equals_column_by_column():
    rng = np.random.default_rng(3)
    pos, neg = rng.normal(1, 1, 300).round(1), rng.normal(0, 1, 500).round(1)
    sc = mlci.Scores(pos, neg)
    lay = sc._lay
    w = rng.poisson(1.0, size=(7, sum(lay.m))).astype(float)
    v = _WeightsView(lay, w)
    for cls in (0, 1):
        n = v.total(cls)
        j = np.floor(rng.random((7, 41)) * n[:, None]).astype(np.intp)
        j[:, 0], j[:, -1] = 0, (n - 1).astype(np.intp)
        got = _value_at(lay, v, cls, j)
        want = np.stack([lay.u[cls][v.atom_at(cls, j[:, c])] for c in range(j.shape[1])], 1)
        assert np.array_equal(got, want)


class _Bisected(_View):
    """The same counts as a weights view, seen through ``cum_rows`` only: the ROC
    functions then take the bisection path (:func:`mlci.scores._roc._first_cut`)."""

    def __init__(self, v: _WeightsView) -> None:
        self.v, self.b, self.m = v, v.b, v.m

    def total(self, cls):
        return self.v.total(cls)

    def cum_rows(self, cls, q):
        return self.v.cum_rows(cls, q)


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("fractional", [False, True])
def test_roc_rate_at_one_search_per_row_equals_the_bisection(side, fractional):
    # issue 25: every grid point of every replicate from one searchsorted per row must
    # pick the same operating points as the per-grid-point bisection, ties, empty rows
    # and weights that are not counts included
    rng = np.random.default_rng(5)
    for trial in range(12):
        n0, n1 = rng.integers(1, 60, 2)
        q = int(rng.integers(2, 30))
        zneg = rng.integers(0, q, n0).astype(float)
        zpos = (rng.integers(0, q, n1) + rng.integers(0, 3)).astype(float)
        lay = _Layout(zneg, zpos, side)
        w = rng.poisson(1.0, (6, lay.m[0] + lay.m[1])).astype(float)
        if fractional:
            w *= rng.random(w.shape)
        w[0] = 0.0  # an empty replicate: NaN, as the bisection gives
        w[1, : lay.m[0]] = 0.0  # no negatives
        r = np.concatenate([np.linspace(0, 1, 21), rng.random(5)])
        v = _WeightsView(lay, w)
        for rate, x in [("tpr", "fpr"), ("fnr", "fpr"), ("tnr", "tpr"), ("fpr", "fnr"),
                        ("tpr", "tnr"), ("fpr", "tpr")]:  # fmt: skip
            fast = _roc_rate_at(lay, v, rate, x, r)
            slow = _roc_rate_at(lay, _Bisected(v), rate, x, r)
            assert np.array_equal(fast, slow, equal_nan=True), (trial, rate, x)
