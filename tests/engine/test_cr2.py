"""The one CR2 computation (mlci.engine.cr2): closed forms and the LLM estimands' use of it.

clubSandwich's numbers are in tests/r/test_r_cluster.py (1e-12); here the algebra.
"""

from __future__ import annotations

import numpy as np
import pytest

from mlci.engine.cr2 import cr2_factor, cr2_variance, ratio_influence
from mlci.llm.linear import cluster_sums


def _cr2_by_regression(y, g):
    """CR2 of the mean by its matrix definition (Bell & McCaffrey 2002): the intercept-only
    regression, A_c = (I - H_cc)^(-1/2), V = sum_c X_c' A_c e_c e_c' A_c X_c / (X'X)^2."""
    n = len(y)
    e = y - y.mean()
    h = np.full((n, n), 1.0 / n)
    v = 0.0
    for c in np.unique(g):
        i = np.flatnonzero(g == c)
        w, u = np.linalg.eigh(np.eye(len(i)) - h[np.ix_(i, i)])
        a = u @ np.diag(1 / np.sqrt(w)) @ u.T
        v += float(np.sum(a @ e[i])) ** 2
    return v / n**2


def test_closed_form_is_the_matrix_definition():
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(9), rng.integers(1, 12, 9))
    y = (rng.random(len(g)) < 0.6).astype(float)
    k, n = np.bincount(g, weights=y), np.bincount(g).astype(float)
    assert cr2_variance(k, n) == pytest.approx(_cr2_by_regression(y, g), rel=1e-12)


def test_equal_clusters_give_cr1_and_one_cluster_strata_give_zero():
    k, n = np.array([3.0, 5.0, 2.0, 4.0]), np.full(4, 6.0)
    z, h = ratio_influence(k, n)
    assert cr2_variance(k, n) == pytest.approx(4 / 3 * np.sum(z**2), rel=1e-14)
    np.testing.assert_array_equal(h, 0.25)
    # a stratum holding one cluster: leverage 1, no contribution
    np.testing.assert_array_equal(cr2_factor(np.array([1.0, 0.5])), [0.0, 2.0])
    z, h = ratio_influence(k, n, strata=np.array([0, 0, 0, 1]))
    assert h[3] == 1.0 and z[3] == 0.0


def test_llm_cluster_sums_use_it_with_strata():
    rng = np.random.default_rng(1)
    unit = np.repeat(np.arange(10), rng.integers(2, 8, 10))
    strata_of_unit = np.arange(10) % 3
    values = rng.random((2, len(unit)))
    cs = cluster_sums(values, np.ones(len(unit)), unit, strata_of_unit[unit])
    T = np.stack([np.bincount(unit, weights=v) for v in values])
    want = np.sqrt(cr2_variance(T, np.bincount(unit).astype(float), strata_of_unit))
    np.testing.assert_allclose(cs.cr2_se(), want, rtol=1e-14)
