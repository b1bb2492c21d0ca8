"""The joint atoms of several kernels (:func:`mlci.metrics.unique_rows` of their key
columns): the same rows, order and inverse as numpy's
``np.unique(axis=0)`` (the reference), on small and huge key ranges."""

import numpy as np
import pytest

from mlci.metrics import unique_rows


@pytest.mark.parametrize("seed", range(5))
def test_joint_rows_match_numpy_unique_rows(seed):
    rng = np.random.default_rng(seed)
    for _ in range(60):
        k = int(rng.integers(1, 6))
        n = int(rng.integers(1, 150))
        big = rng.random() < 0.5
        choices = [3, 2**20, 2**40, 2**61]
        ms = [int(rng.choice(choices)) if big else int(rng.integers(1, 5)) for _ in range(k)]
        # few distinct keys (ties) or keys spread over the whole range
        cols = [
            rng.integers(0, min(m, 4) if rng.random() < 0.5 else m, size=n).astype(np.int64)
            for m in ms
        ]
        rows_ref, inv_ref = np.unique(np.column_stack(cols), axis=0, return_inverse=True)
        rows, inv = unique_rows(np.column_stack(cols))
        np.testing.assert_array_equal(rows, rows_ref)
        np.testing.assert_array_equal(inv, inv_ref.reshape(-1))
        assert inv.dtype == np.intp
