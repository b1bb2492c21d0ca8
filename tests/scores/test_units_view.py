"""Curve bands over whole conditions from the conditions' draw counts (issue 25): the
same operating points, replicates and bands as the atoms' weights, bit for bit."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci
import mlci.scores._driver as driver
import mlci.scores._units as units
from mlci.scores._roc import _cum_at, _cuts, _WeightsView
from mlci.scores._units import _UnitsLayout, _UnitsView
from mlci.scores.decisions import roc_pr_bands


def _data(seed, n, c, ties):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    cond = rng.integers(0, c, n)
    s = y + rng.normal(0, 0.5, c)[cond] + rng.normal(size=n)
    if ties:
        s = np.round(s, 1)
    return y, cond, s


def _both(monkeypatch, y, cond, s, b, seed):
    sc = mlci.Scores.from_labels(y, s)
    out = {}
    real, taken = driver._units_path, []

    def spy(*args, **kwargs):
        res = real(*args, **kwargs)
        taken.append(res is not None)
        return res

    for mode in ("units", "weights"):
        with monkeypatch.context() as mp:
            mp.setattr(driver, "_units_path", spy if mode == "units" else lambda *a, **k: None)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                roc, pr = roc_pr_bands(sc, conditions=cond, n_resamples=b, rng=seed)
                pr2 = mlci.pr_band(
                    sc, [0.1, 0.5, 0.9, 1.0], conditions=cond, n_resamples=b, rng=seed
                )
        out[mode] = (roc, pr, pr2)
    assert taken == [True, True]  # both calls drew the conditions' counts
    return out["units"], out["weights"]


@pytest.mark.parametrize(
    "seed, n, c, ties, table",
    [
        (0, 3000, 40, False, None),
        (1, 3000, 40, True, None),
        (2, 2000, 300, False, 2_000),  # blocks of more than 64 samples, a partial last one
        (3, 400, 3, True, None),  # few conditions: replicates without one class (NaN)
    ],
)
def test_bands_by_units_equal_the_weights_path(monkeypatch, seed, n, c, ties, table):
    if table is not None:
        monkeypatch.setattr(units, "_MAX_TABLE", table)
    y, cond, s = _data(seed, n, c, ties)
    if c == 3:  # one condition of positives only
        y = np.where(cond == 0, 1, y)
    got, ref = _both(monkeypatch, y, cond, s, 150, seed)
    for a, b in zip(got, ref, strict=True):
        for f in ("y", "low", "high"):
            assert np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True)
        assert np.array_equal(
            a.result.bootstrap_distribution, b.result.bootstrap_distribution, equal_nan=True
        )


def test_units_view_answers_the_weights_view(monkeypatch):
    # every search of the view against the atoms' cumulative counts, random targets
    monkeypatch.setattr(units, "_MAX_TABLE", 200)
    lay, vw, vu = _two_views(5, 1500, 25, True, 7)
    assert vu.ul.block > 64
    rng = np.random.default_rng(1)
    for cls in (0, 1):
        assert np.array_equal(vu.total(cls), vw.total(cls))
        q = rng.integers(0, lay.m[cls] + 1, 9)
        assert np.array_equal(vu.cum_fixed(cls, q), vw.cum_fixed(cls, q))
        assert np.array_equal(vu.cum_rows(cls, q[:7]), vw.cum_rows(cls, q[:7]))
        g = rng.integers(0, lay.G + 1, (7, 5))
        assert np.array_equal(_cum_at(lay, vu, cls, g), _cum_at(lay, vw, cls, g))
        t = rng.uniform(-1, vw.total(cls).max() + 2, (7, 11))
        t[:, :3] = np.round(t[:, :3])  # targets that are counts exactly
        for strict in (False, True):
            assert np.array_equal(
                _cuts(lay, vu, cls, t, strict, lay.G), _cuts(lay, vw, cls, t, strict, lay.G)
            )


@pytest.mark.parametrize("table", [200, 2_000])
def test_counts_at_every_boundary_from_the_nearer_stored_position(monkeypatch, table):
    # cum_pos reads each count from the nearer stored position (forward or back, half a
    # block gathered): every atom boundary, with a partial last block, against the atoms
    monkeypatch.setattr(units, "_MAX_TABLE", table)
    lay, vw, vu = _two_views(7, 1700, 30, False, 5)
    assert any(n % vu.ul.block for n in vu.ul.n)
    for cls in (0, 1):
        q = np.arange(lay.m[cls] + 1)
        assert np.array_equal(vu.cum_fixed(cls, q), vw.cum_fixed(cls, q))


def _two_views(seed, n, c, ties, b):
    """The layout, and the atoms' weights view and the conditions' view of ``b``
    replicates of the same condition draws."""
    y, cond, s = _data(seed, n, c, ties)
    sc = mlci.Scores.from_labels(y, s)
    keys, _ = driver.atom_keys(sc)
    perm = driver.internal_perm(sc)
    lay = sc._lay
    ul = _UnitsLayout.make(lay, keys, cond[perm], c)
    assert ul is not None
    u = np.random.default_rng(seed - 4).multinomial(c, np.full(c, 1 / c), size=b).astype(float)
    w = u[:, cond[perm]]
    atoms = np.stack([np.bincount(keys, weights=r, minlength=sum(lay.m)) for r in w])
    return lay, _WeightsView(lay, atoms), _UnitsView(lay, ul, u)
