"""GroupScores: per-group rates equal each group's own Scores; intervals are metric_by_group's.

References: score-analysis 0.3.12's tests/test_group_scores.py (hand values copied below),
and mlci's own Scores / metric_by_group, which are checked against scikit-learn elsewhere.
"""

from __future__ import annotations

import numpy as np
import pytest

import mlci
from mlci import GroupScores, Scores


def _example():
    # score-analysis tests/test_group_scores.py::test_groupwise
    return GroupScores.from_labels(
        [0, 0, 1, 1, 1, 0, 0, 0, 1, 1],
        [0, 5, 1, 2, 6, 0, 1, 4, 1, 6],
        groups=["a", "a", "a", "a", "a", "b", "b", "b", "b", "b"],
    )


def test_from_labels_keeps_groups_with_sorted_scores():
    # score-analysis test_from_labels: pos [2, 3] with groups ["b", "a"]
    gs = GroupScores.from_labels([1, 1, 0], [3, 2, 1], groups=["a", "b", "b"], pos_label=1)
    np.testing.assert_equal(gs.pos, [2, 3])
    np.testing.assert_equal(gs.neg, [1])
    np.testing.assert_equal(gs.pos_groups, ["b", "a"])
    np.testing.assert_equal(gs.neg_groups, ["b"])
    np.testing.assert_equal(gs.groups, ["a", "b"])


def test_group_rates_equal_each_groups_scores():
    gs = _example()
    thr = [0.5, 3.0, 5.5]
    for name in ("tpr", "fnr", "tnr", "fpr", "topr", "tonr", "tar", "frr", "far", "trr"):
        got = getattr(gs, f"group_{name}")(thr)
        want = np.stack([getattr(gs[g], name)(thr) for g in gs.groups])
        np.testing.assert_array_equal(got, want)
    # hand count, group "a": positives 1, 2, 6 -> TPR at 3.0 = 1/3
    assert gs.group_tpr(3.0)[0] == pytest.approx(1 / 3)
    np.testing.assert_array_equal(gs.group_metric(Scores.tpr, threshold=3.0), gs.group_tpr(3.0))
    np.testing.assert_allclose(gs.group_metric(Scores.auc), [gs["a"].auc(), gs["b"].auc()])


def test_group_cm_stacks_matrices():
    gs = GroupScores([1, 3, 5], [2, 3], pos_groups=[0, 1, 0], neg_groups=[1, 0])
    cm = gs.group_cm([3.4, 1.0])
    assert cm.shape == (2, 2)
    assert cm[0] == gs[0].cm([3.4, 1.0])
    assert cm[1, 0] == gs[1].cm(3.4)


def test_getitem_swap_eq():
    gs = GroupScores([1, 2, 3], [5, 6], pos_groups=[0, 1, 0], neg_groups=[1, 0])
    assert gs[0] == Scores([1, 3], [6])
    assert gs[1] == Scores([2], [5])
    with pytest.raises(ValueError, match="`group` 'nope'"):
        gs["nope"]
    sw = GroupScores([1, 2], [3, 4], pos_groups=[8, 9], neg_groups=[4, 4], equal_class="neg")
    expected = GroupScores([3, 4], [1, 2], pos_groups=[4, 4], neg_groups=[8, 9], score_class="neg")
    assert sw.swap() == expected
    # groups take part in equality, both ways
    other = GroupScores([1, 2], [3, 4], pos_groups=[9, 8], neg_groups=[4, 4], equal_class="neg")
    assert sw != other
    assert Scores([1, 2], [3, 4], equal_class="neg") != sw
    assert sw != Scores([1, 2], [3, 4], equal_class="neg")


def test_group_without_a_class_is_refused_when_asked():
    gs = GroupScores([1, 2], [3], pos_groups=["a", "b"], neg_groups=["a"])
    assert gs["a"].n_neg == 1
    with pytest.raises(ValueError, match="no negative scores"):
        gs.group_tpr(1.5)


def test_group_names_order_and_validation():
    gs = GroupScores([1, 2], [3, 4], pos_groups=["a", "b"], neg_groups=["b", "a"],
                     group_names=["b", "a"])  # fmt: skip
    np.testing.assert_equal(gs.groups, ["b", "a"])
    np.testing.assert_array_equal(gs.group_fpr(2.5), [gs["b"].fpr(2.5), gs["a"].fpr(2.5)])
    with pytest.raises(ValueError, match="`group_names` lacks"):
        GroupScores([1, 2], [3, 4], pos_groups=["a", "b"], neg_groups=["b", "a"],
                    group_names=["a"])  # fmt: skip
    with pytest.raises(ValueError, match="`pos_groups` has 1 labels for 2 scores in `pos`"):
        GroupScores([1, 2], [3, 4], pos_groups=["a"], neg_groups=["b", "a"])


def test_bootstrap_sample_keeps_groups_with_scores():
    gs = GroupScores([0, 1, 2], [3, 4], pos_groups=list("abc"), neg_groups=list("de"))
    of = dict(zip([0, 1, 2, 3, 4], "abcde", strict=True))
    for seed in range(20):
        b = gs.bootstrap_sample(rng=seed)
        assert b.n_pos + b.n_neg == 5
        assert [of[x] for x in b.pos] == b.pos_groups.tolist()
        assert [of[x] for x in b.neg] == b.neg_groups.tolist()
    # one sample per group: resampling within groups gives the data back
    assert gs.bootstrap_sample(rng=0, by_group=True) == gs
    assert gs.bootstrap_sample(sampler=lambda rng, b: np.ones((b, 5))) == gs
    with pytest.raises(ValueError, match="`sampler` replaces"):
        gs.bootstrap_sample(by_group=True, sampler=lambda rng, b: np.ones((b, 5)))


def test_bootstrap_sample_by_group_keeps_group_sizes():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    g = rng.choice(["x", "y", "z"], 200)
    gs = GroupScores.from_labels(y, rng.normal(size=200), groups=g)
    b = gs.bootstrap_sample(rng=1, by_group=True, stratify=True)
    for name in "xyz":
        for cls, arr, barr in ((1, gs.pos_groups, b.pos_groups), (0, gs.neg_groups, b.neg_groups)):
            assert (barr == name).sum() == (arr == name).sum(), (name, cls)


def test_metric_ci_is_metric_by_group_on_the_samples():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 500)
    s = y + rng.normal(0, 1, 500)
    g = rng.choice(["f", "m"], 500)
    gs = GroupScores.from_labels(y, s, groups=g)
    kw = dict(threshold=[0.3, 0.6], normalize="by_best", rng=4, n_resamples=200)
    got = gs.metric_ci("fnr", **kw).to_frame()
    want = mlci.metric_by_group(y, s, groups=g, metric="fnr", **kw).to_frame()
    np.testing.assert_allclose(got[["estimate", "low", "high"]], want[["estimate", "low", "high"]])
    eer = gs.metric_ci("eer", rng=0, n_resamples=100).to_frame()
    np.testing.assert_allclose(eer["estimate"][:2], [gs["f"].eer().eer, gs["m"].eer().eer])
    with pytest.raises(TypeError, match="`groups` is fixed"):
        gs.metric_ci("fnr", threshold=0.5, groups=g)


def test_metric_ci_plot():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    gs = _example()
    ax = gs.metric_ci(
        "fpr", threshold=3.0, rng=0, n_resamples=50, resampling=mlci.Resampling(stratify=True)
    ).plot()
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    # (closed: the plotting doctests draw on the current axes, in the same session)
    matplotlib.pyplot.close(ax.figure)
