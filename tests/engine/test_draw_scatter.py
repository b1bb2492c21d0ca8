"""The index draws' counts (AtomSampler._draw_samples): np.add.at into the float counts
gives the counts of the bincount it replaced, from the same draws, in every block."""

from __future__ import annotations

import numpy as np
import pytest

from mlci.engine.resampling import make_plan


def bincount_counts(sampler, j):
    """Block ``j`` as the index path counted it before: the same generator and draws, one
    bincount of the atoms' (row-offset) indices, then floats."""
    b = sampler.block_rows(j)
    rng = sampler.generator(sampler.stream, j)
    m = sampler.m
    total = None
    for keys, n_s in zip(sampler._stratum_keys, sampler._stratum_sizes, strict=True):
        flat = rng.integers(0, n_s, size=(b, n_s), dtype=np.intp)
        if keys is not None:
            flat = keys[flat]
        flat = flat + (np.arange(b, dtype=np.intp) * m)[:, None]
        part = np.bincount(flat.ravel(), minlength=b * m).reshape(b, m)
        total = part if total is None else total + part
    return total.astype(float)


@pytest.mark.parametrize(
    ("n", "m", "n_strata"),
    [(60, 40, 0), (3000, 2865, 0), (500, 500, 0), (400, 150, 3), (1000, 1000, 2), (50, 49, 0)],
)
def test_index_draw_counts_are_the_bincounts(n, m, n_strata):
    rng = np.random.default_rng(n + m)
    keys = np.concatenate([np.arange(m), rng.integers(0, m, n - m)])
    strata = rng.integers(0, n_strata, n) if n_strata else None
    plan = make_plan(n, strata=strata, n_resamples=700, rng=5)
    s = plan.weights_for(rng.permutation(keys), m)
    assert not s._use_multinomial  # (the index path)
    for j in range(s.n_blocks):
        expected = bincount_counts(s, j)
        np.testing.assert_array_equal(s.block(j), expected)
        # into a non-contiguous array (a column slice), the same numbers
        wide = np.full((expected.shape[0], 2 * m), -1.0)
        s.block(j, out=wide[:, ::2])
        np.testing.assert_array_equal(wide[:, ::2], expected)
        assert (wide[:, 1::2] == -1.0).all()
