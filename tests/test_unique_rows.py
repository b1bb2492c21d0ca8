"""``unique_rows``: numpy's ``np.unique(a, axis=0, return_inverse=True)``, fast.

The reference is numpy's own axis-0 unique (same rows, same lexicographic order, same
inverse) and the lexsort version it replaced (``_lexsort_unique_rows``, kept as the
fallback), which also fixes the representative of equal rows (the first occurrence:
the sign of a zero) and keeps NaN rows distinct.
"""

from __future__ import annotations

import numpy as np
import pytest

from mlci.metrics._base import _lexsort_unique_rows, unique_rows


def _check(a: np.ndarray) -> None:
    rows, inverse = unique_rows(a)
    ref_rows, ref_inverse = _lexsort_unique_rows(a)
    assert rows.dtype == a.dtype and inverse.dtype == np.intp
    np.testing.assert_array_equal(inverse, ref_inverse)
    np.testing.assert_array_equal(rows, ref_rows)
    np.testing.assert_array_equal(np.signbit(rows), np.signbit(ref_rows))  # -0.0 kept
    np.testing.assert_array_equal(rows[inverse], a)
    if not (a.dtype.kind == "f" and np.isnan(a).any()):
        np_rows, np_inverse = np.unique(a, axis=0, return_inverse=True)
        np.testing.assert_array_equal(rows, np_rows)
        np.testing.assert_array_equal(inverse, np_inverse.ravel())


def test_random_tables_equal_numpy():
    g = np.random.default_rng(0)
    for _ in range(300):
        n, d, k = int(g.integers(1, 300)), int(g.integers(1, 5)), int(g.integers(1, 40))
        a = g.integers(0, k, (n, d))
        kind = g.integers(0, 4)
        if kind == 1:
            a = a * 0.25 - 3.0
        elif kind == 2:
            a = a.astype(np.int32) - 5
        elif kind == 3:
            a = np.column_stack([a, np.full(n, 7.0)])  # a constant column
        _check(a)


@pytest.mark.parametrize(
    "a",
    [
        np.column_stack([np.random.default_rng(1).normal(size=500), np.ones(500)]),  # a mean
        np.ones((5, 3)),  # every row the same
        np.array([[1.0]]),
        np.array([[0.0, 1.0], [-0.0, 1.0], [0.0, 2.0], [-0.0, 2.0]]),  # signed zeros
        np.array([[-0.0, 1.0], [0.0, 1.0]]),
        np.array([[np.inf, 1.0], [-np.inf, 1.0], [np.inf, 1.0]]),
        np.array([[np.nan, 1.0], [np.nan, 1.0], [0.0, 1.0]]),  # NaN: the lexsort path
        np.random.default_rng(2).integers(0, 2**40, (400, 3)),  # > 2**62 combinations
        np.random.default_rng(3).integers(-5, 5, (400, 2)).astype(np.int8),
        np.random.default_rng(4).random((300, 2)) < 0.5,  # booleans
        np.zeros((0, 2)),
    ],
)
def test_edge_cases(a):
    if len(a) == 0:
        rows, inverse = unique_rows(a)
        assert rows.shape == (0, 2) and inverse.shape == (0,)
        return
    _check(a)


def test_nan_rows_stay_distinct():
    # as the lexsort's `!=` says (numpy's unique would merge them)
    rows, inverse = unique_rows(np.array([[np.nan, 1.0], [np.nan, 1.0]]))
    assert len(rows) == 2 and inverse.tolist() == [0, 1]
