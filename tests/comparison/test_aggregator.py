"""The joint atoms' aggregation into a kernel's atoms (comparison.common.Aggregator)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from mlci.comparison.common import Aggregator


@pytest.mark.parametrize("seed", range(40))
def test_large_aggregation_is_the_sparse_product_bit_for_bit(seed):
    # above 4e6 matrix cells the aggregation is a bincount (no scipy.sparse import, 0.1 s
    # of `mlci mt compare`): every kernel atom's sum over its joint atoms in their order,
    # the additions of the sparse 0/1 product it replaced (scipy's csc_matvecs), so equal
    # to the last bit for any weights, fractional ones too
    rng = np.random.default_rng(seed)
    m = int(rng.integers(2100, 4000))
    m_s = int(rng.integers(2001, m + 1))
    atom = rng.integers(0, m_s, m)
    b = int(rng.integers(1, 50))
    w = rng.random((b, m)) * [1.0, 3.0, 1e-3, 1e5][seed % 4]
    if seed % 3 == 0:
        w = rng.integers(0, 5, (b, m)).astype(float)
    if seed % 5 == 0:
        w = np.asfortranarray(w)
    mat = sparse.csr_matrix((np.ones(m), (np.arange(m), atom)), shape=(m, m_s))
    expected = np.asarray(mat.T @ w.T).T
    agg = Aggregator(atom, m_s)
    assert agg.mat is None  # (the large case)
    got = agg(w)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))


def test_small_aggregation_is_the_dense_product():
    rng = np.random.default_rng(1)
    atom = rng.integers(0, 30, 50)
    w = rng.random((7, 50))
    agg = Aggregator(atom, 30)
    onehot = np.zeros((50, 30))
    onehot[np.arange(50), atom] = 1.0
    np.testing.assert_array_equal(agg(w), w @ onehot)
    ident = w[:, :5]
    assert Aggregator(np.arange(5), 5)(ident) is ident  # the identity: no copy
