"""The joint atoms' canonical order (JointKernel.atom_rank), found on first use: the
first kernel's ranks when they tell every joint atom apart, else the lexsort of every
kernel's ranks; the same order either way, so the seeded draws through the samples
(independent samples, the grouped jackknife) do not change."""

import numpy as np
import pytest

import mlci
from mlci.comparison.common import ContrastKernel, JointKernel
from mlci.metrics import get_kernel


def _lexsort_rank(jk):
    cols = [k.atom_rank[p.atom_of_joint] for k, p in zip(jk.kernels, jk.joint.parts, strict=True)]
    rank = np.empty(jk.m, dtype=np.intp)
    rank[np.lexsort(cols[::-1])] = np.arange(jk.m)
    return rank


@pytest.mark.parametrize("decimals", [None, 1])
def test_joint_rank_equals_the_lexsort_of_the_kernels_ranks(decimals):
    rng = np.random.default_rng(2)
    n = 3_000
    y = rng.integers(0, 2, n)
    scores = [y + rng.normal(size=n) for _ in range(3)]
    if decimals is not None:
        scores = [np.round(s, decimals) for s in scores]
    jk = JointKernel([get_kernel("roc_auc", [y, s], {}) for s in scores], "roc_auc")
    assert (jk.m == jk.kernels[0].m) == (decimals is None)  # the fast path, or not
    assert np.array_equal(jk.atom_rank, _lexsort_rank(jk))
    assert jk.atom_rank is jk.atom_rank  # found once
    contrast = ContrastKernel(jk, np.array([0]), np.array([1]))
    assert contrast.atom_rank is jk.atom_rank


def test_joint_rank_is_none_without_every_kernels_rank():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    kernels = [get_kernel("accuracy", [y, rng.integers(0, 2, 200)], {}) for _ in range(2)]
    assert JointKernel(kernels, "accuracy").atom_rank is None


def test_compare_bca_draws_do_not_depend_on_the_rows_order():
    # the jackknife and the draws through the samples go by the joint atoms' order: a
    # shuffle of the rows gives the same result (distinct scores: the fast path)
    rng = np.random.default_rng(5)
    n = 400
    y = rng.integers(0, 2, n)
    systems = {"a": y + rng.normal(size=n), "b": y * 0.5 + rng.normal(size=n)}
    res = mlci.compare(y, systems, metric="roc_auc", method="bca", n_resamples=200, rng=0)
    perm = rng.permutation(n)
    again = mlci.compare(
        y[perm],
        {k: v[perm] for k, v in systems.items()},
        metric="roc_auc",
        method="bca",
        n_resamples=200,
        rng=0,
    )
    d, d2 = res.difference("a", "b"), again.difference("a", "b")
    assert d.confidence_interval == d2.confidence_interval
    assert d.pvalue == d2.pvalue
