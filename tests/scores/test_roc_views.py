"""The weights view of the score drivers finds every grid point of every replicate in
one search (issue 25): the same atoms as one search per grid point."""

from __future__ import annotations

import numpy as np

import mlci
from mlci.scores._roc import _value_at, _WeightsView


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
