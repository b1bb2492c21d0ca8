"""The AUC from whole units' draw counts (RocAucKernel.whole_units): the pair matrix
against a brute-force count of every (positive, negative) pair, and the values bit for
bit against the kernel's own evaluation on the same replicates."""

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from mlci.metrics import RocAucKernel, auc_units


def _cells(kernel, unit):
    cells, count = np.unique(np.column_stack([unit, kernel.keys]), axis=0, return_counts=True)
    return cells[:, 0], cells[:, 1], count


@pytest.mark.parametrize("ties", [True, False])
@pytest.mark.parametrize("chunk", [7, 1 << 19])
@pytest.mark.parametrize("n_units", [1, 3, 40])
def test_whole_units_equal_the_atoms_path_bit_for_bit(ties, chunk, n_units, monkeypatch):
    monkeypatch.setattr(auc_units, "PAIR_CHUNK", chunk)
    rng = np.random.default_rng(n_units + 100 * ties)
    n = 400
    y = rng.integers(0, 2, n)
    score = y + rng.normal(size=n)
    if ties:
        score = np.round(score, 1)
    unit = rng.integers(0, n_units, n)
    kernel = RocAucKernel(y, score)
    f = kernel.whole_units(*_cells(kernel, unit), n_units)
    assert f is not None
    u = rng.poisson(1.0, size=(30, n_units)).astype(float)
    u[0] = 1.0  # every unit once: the data's AUC
    values, _ = f(u)
    # the same replicates as sample counts: each sample weighted by its unit's draws
    w = u[:, unit]
    counts = np.stack([np.bincount(kernel.keys, weights=row, minlength=kernel.m) for row in w])
    np.testing.assert_array_equal(values, kernel.evaluate(counts))
    # reference: scikit-learn's AUC of the data
    assert values[0] == pytest.approx(roc_auc_score(y, score), abs=1e-12)
