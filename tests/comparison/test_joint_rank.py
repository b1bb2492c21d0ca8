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


@pytest.mark.parametrize("case", ["distinct", "determined", "mixed"])
def test_joint_atoms_equal_unique_rows(case):
    # the joint atoms without a sort when the first kernel's atom tells the others':
    # np.unique(axis=0)'s rows, order and inverse all the same
    from mlci.comparison.common import JointAtoms

    rng = np.random.default_rng(6)
    n = 2_000
    y = rng.integers(0, 2, n)
    first = y + rng.normal(size=n)
    if case == "distinct":
        others = [y + rng.normal(size=n), y * 0.3 + rng.normal(size=n)]
    elif case == "determined":  # tied first scores, each tie one value in the others
        first = np.round(first, 1)
        others = [np.round(first * 2.0 + 1.0, 3), -first]
    else:  # tied first scores, the others not determined by them
        first = np.round(first, 1)
        others = [y + rng.normal(size=n)]
    kernels = [get_kernel("roc_auc", [y, s], {}) for s in (first, *others)]
    joint = JointAtoms(kernels)
    rows, inverse = np.unique(
        np.column_stack([k.keys for k in kernels]), axis=0, return_inverse=True
    )
    assert joint.m == len(rows)
    assert np.array_equal(joint.keys, inverse.reshape(-1))
    for s, part in enumerate(joint.parts):
        assert np.array_equal(part.atom_of_joint, rows[:, s])
    assert (joint.m == kernels[0].m) == (case != "mixed")


def test_auc_contrast_is_not_checked_at_doubled_counts():
    # the AUC contrast is declared scale-free: the linearization's check (the kernel at
    # doubled counts) is skipped, and its answer would have been the same
    from mlci.engine.linearize import Linearization
    from mlci.engine.nested import plan_for_conditions

    rng = np.random.default_rng(7)
    n = 600
    y = rng.integers(0, 2, n)
    cond = rng.integers(0, 20, n)
    kernels = [get_kernel("roc_auc", [y, y + rng.normal(size=n)], {}) for _ in range(2)]
    contrast = ContrastKernel(JointKernel(kernels, "roc_auc"), np.array([0]), np.array([1]))
    assert contrast.scale_free
    counts = np.bincount(contrast.keys, minlength=contrast.m)[None, :] * 1.0
    assert np.array_equal(contrast.evaluate(2.0 * counts), contrast.evaluate(counts))
    seen = []
    real = contrast.evaluate

    def evaluate(w):
        seen.append(float(np.max(w)))
        return real(w)

    contrast.evaluate = evaluate
    plan = plan_for_conditions(n, conditions=cond, n_resamples=50, rng=0)
    assert Linearization(contrast, plan).unsupported is None
    assert seen == [float(counts.max())]  # the data only
    # an accuracy contrast is still checked
    acc = [get_kernel("accuracy", [y, rng.integers(0, 2, n)], {}) for _ in range(2)]
    other = ContrastKernel(JointKernel(acc, "accuracy"), np.array([0]), np.array([1]))
    assert not getattr(other, "scale_free", False)
