"""Sampler.draw's default: the whole row range of draw_rows (AtomSampler and UnitDraws
implement only draw_rows); a sampler with neither says so."""

import numpy as np
import pytest

from mlci.engine.nested import plan_for_conditions
from mlci.engine.sampler import Sampler, UnitDraws


class _Rows(Sampler):
    m = 3

    def draw_rows(self, rng, b, rows, out=None):
        r0, r1 = rows
        w = np.arange(b * self.m, dtype=float).reshape(b, self.m)[r0:r1]
        if out is None:
            return w
        out[...] = w
        return out


def test_draw_is_the_whole_row_range():
    s = _Rows()
    rng = np.random.default_rng(0)
    assert np.array_equal(s.draw(rng, 4), np.arange(12.0).reshape(4, 3))
    out = np.empty((4, 3))
    assert s.draw(rng, 4, out) is out


def test_a_sampler_without_draw_or_draw_rows_says_so():
    class Bare(Sampler):
        pass

    with pytest.raises(NotImplementedError, match="Bare implements neither draw nor draw_rows"):
        Bare().draw(np.random.default_rng(0), 2)


def test_atom_and_unit_samplers_draw_their_rows():
    # the draw of a block is draw_rows over all its rows, from the same generator state
    cond = np.repeat(np.arange(6), 5)
    plan = plan_for_conditions(30, conditions=cond, n_resamples=20, rng=3)
    atoms = plan.weights_for(np.arange(30) % 4, 4)
    units = UnitDraws(atoms, 6)
    for smp in (atoms, units):
        a = smp.draw(np.random.default_rng(1), 7)
        b = smp.draw_rows(np.random.default_rng(1), 7, (0, 7))
        assert a.shape == (7, smp.m)
        assert np.array_equal(a, b)
        assert np.allclose(a.sum(axis=1), 30 if smp is atoms else 6)
