"""The ROC AUC's pair matrix over whole units (mlci.metrics.auc_units): both builds (by
thresholds, by blocks of negatives) against a brute-force count of every (positive,
negative) pair, and the one symmetric product per replicate bit for bit against the two
products it replaces."""

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from mlci.metrics import RocAucKernel, auc_units


def _data(seed, n, n_units, decimals):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = y + rng.normal(size=n)
    if decimals is not None:
        score = np.round(score, decimals)
    unit = rng.integers(0, n_units, n)
    return y, score, unit


def _cells(kernel, unit):
    cells, count = np.unique(np.column_stack([unit, kernel.keys]), axis=0, return_counts=True)
    return cells[:, 0], cells[:, 1], count.astype(float)


def _brute(y, score, unit, n_units):
    """2 M by every pair: 2 per positive above a negative, 1 per tie."""
    pos, neg = y == 1, y == 0
    above = score[pos][:, None] > score[neg][None, :]
    tie = score[pos][:, None] == score[neg][None, :]
    out = np.zeros((n_units, n_units))
    np.add.at(out, (unit[pos][:, None], unit[neg][None, :]), 2.0 * above + tie)
    return out


@pytest.mark.parametrize("decimals", [None, 1, 2])
@pytest.mark.parametrize("n_units", [1, 4, 37])
@pytest.mark.parametrize("way", ["thresholds", "blocks"])
def test_pair_matrix_counts_every_pair(decimals, n_units, way, monkeypatch):
    # the build each way forced: by thresholds (a large allowance for the dense product),
    # by blocks (none); both exact integers, equal to the brute-force count
    monkeypatch.setattr(auc_units, "_DENSE_PER_SPARSE", 10**9 if way == "thresholds" else 0)
    monkeypatch.setattr(auc_units, "PAIR_CHUNK", 64)  # several chunks of blocks and pairs
    y, score, unit = _data(n_units + (decimals or 0), 500, n_units, decimals)
    kernel = RocAucKernel(y, score)
    got = auc_units.pair_matrix(kernel, *_cells(kernel, unit), n_units)
    np.testing.assert_array_equal(got, _brute(y, score, unit, n_units))


def test_pair_matrix_chooses_thresholds_for_few_scores():
    # 3-decimal scores at 20,000 samples: ~1,000 thresholds for 20 units is far below the
    # blocks' 10,000 positive cells x 20 units: the dense product, the same integers
    y, score, unit = _data(3, 20_000, 20, 2)
    kernel = RocAucKernel(y, score)
    cells = _cells(kernel, unit)
    calls = []
    real = auc_units._by_thresholds

    def spy(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(auc_units, "_by_thresholds", spy)
        got = auc_units.pair_matrix(kernel, *cells, 20)
    assert calls
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(auc_units, "_DENSE_PER_SPARSE", 0)
        blocks = auc_units.pair_matrix(kernel, *cells, 20)
    np.testing.assert_array_equal(got, blocks)
    # the data's AUC from it: u = 1, numerator 2M summed / 2 (scikit-learn's AUC)
    n_pos, n_neg = (y == 1).sum(), (y == 0).sum()
    assert got.sum() / 2 / (n_pos * n_neg) == pytest.approx(roc_auc_score(y, score), abs=1e-12)


def test_pair_matrix_fractional_counts_take_the_blocks():
    # counts that are not integers: no exact dense product, the blocks' sums (close to
    # the brute-force count with the same weights)
    y, score, unit = _data(5, 300, 6, 1)
    kernel = RocAucKernel(y, score)
    cu, ca, cc = _cells(kernel, unit)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(auc_units, "_by_thresholds", None)  # would fail if called
        got = auc_units.pair_matrix(kernel, cu, ca, cc * 0.3, 6)
    # every pair weighs 0.3 x 0.3
    np.testing.assert_allclose(got, 0.09 * _brute(y, score, unit, 6), rtol=1e-12)


@pytest.mark.parametrize("decimals", [None, 1])
def test_symmetric_product_equals_the_two_products_bit_for_bit(decimals):
    y, score, unit = _data(7, 2_000, 30, decimals)
    kernel = RocAucKernel(y, score)
    form = auc_units.auc_unit_form(kernel, *_cells(kernel, unit), 30)
    assert form is not None and form.both is not None
    rng = np.random.default_rng(1)
    u = rng.multinomial(30, np.full(30, 1 / 30), size=40).astype(float)
    u[0] = 1.0  # the data
    u[1] = 0.0  # an empty replicate: NaN, as the kernel's
    u[2, :29] = 0.0  # one unit only
    values, inner = form(u)
    two = auc_units.AucUnitForm(form.pairs2, form.pos_of, form.neg_of)
    two.both = None  # the two products
    v2, i2 = two(u)
    assert np.array_equal(values, v2, equal_nan=True)
    assert np.array_equal(inner, i2, equal_nan=True)
    # and the kernel's own evaluation on the same replicates
    w = u[:, unit]
    counts = np.stack([np.bincount(kernel.keys, weights=row, minlength=kernel.m) for row in w])
    assert np.array_equal(values, kernel.evaluate(counts), equal_nan=True)
    assert values[0] == pytest.approx(roc_auc_score(y, score), abs=1e-12)
    # fractional draw counts: the two products themselves (no exact symmetric sums)
    frac = u[3:6] * 0.7
    assert not form._exact_rows(frac)
    assert np.array_equal(form(frac)[0], two(frac)[0])


def test_symmetric_product_needs_exact_sums():
    # draw counts whose sums would pass 2^53, or that are not counts: the two products
    size = np.array([1e6, 1.0])
    form = auc_units.AucUnitForm(np.full((2, 2), 2.0), size, size)
    assert form.both is not None
    assert form._exact_rows(np.array([[1.0, 1.0]]))  # 2e6 samples: 2e6 x 4e6 < 2^53
    assert not form._exact_rows(np.array([[1.0e3, 1.0]]))  # 2e9 samples: (2e9)^2 > 2^53
    assert not form._exact_rows(np.array([[-1.0, 1.0]]))
    assert not form._exact_rows(np.array([[0.5, 1.0]]))
    # units of 2e8 samples: entries of 2 (M + M') up to 4 (2e8)^2 > 2^53, none built
    big = auc_units.AucUnitForm(np.full((2, 2), 2.0), size * 100, size * 100)
    assert big.both is None and not big._exact_rows(np.array([[1.0, 1.0]]))


def test_auc_unit_form_refuses_too_many_units():
    y, score, unit = _data(9, 200, 100, None)
    kernel = RocAucKernel(y, score)
    # 100^2 units squared > 32 per cell x 200 cells: the pair matrix does not pay off
    assert auc_units.auc_unit_form(kernel, *_cells(kernel, unit), 100) is None


@pytest.mark.parametrize("scale", [1.0, 3000.0])
@pytest.mark.parametrize("way", ["thresholds", "blocks"])
def test_products_in_float32_equal_float64(scale, way, monkeypatch):
    # the products in float32 (integer sums below 2^24) or float64 (counts of 3,000
    # samples a cell: sums past 2^24): the brute-force count either way
    name = "_by_thresholds" if way == "thresholds" else "_dominance"
    monkeypatch.setattr(auc_units, "_DENSE_PER_SPARSE", 10**9 if way == "thresholds" else 0)
    monkeypatch.setattr(auc_units, "SINGLE_CHUNK", 64)
    y, score, unit = _data(11, 600, 12, None)
    kernel = RocAucKernel(y, score)
    cu, ca, cc = _cells(kernel, unit)
    seen = []
    real = getattr(auc_units, name)

    def spy(*args, single=False):
        seen.append(single)
        return real(*args, single=single)

    monkeypatch.setattr(auc_units, name, spy)
    got = auc_units.pair_matrix(kernel, cu, ca, cc * scale, 12)
    assert seen == [scale == 1.0]
    np.testing.assert_array_equal(got, scale**2 * _brute(y, score, unit, 12))
