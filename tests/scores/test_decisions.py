"""Optimal thresholds (Youden, cost) with intervals, and the precision-recall band.

References: scikit-learn's ``roc_curve`` (every threshold, ``score >= t``) and
``precision_recall_curve`` for the point estimates.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import precision_recall_curve, roc_curve

import mlci


def _data(seed=0, n_pos=200, n_neg=300):
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos), np.zeros(n_neg)]
    score = np.r_[rng.normal(1.5, 1, n_pos), rng.normal(0, 1, n_neg)].round(2)  # ties
    return y, score, mlci.Scores.from_labels(y, score)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_youden_threshold_equals_sklearn(seed):
    y, score, s = _data(seed)
    r = mlci.optimal_threshold_ci(s, rng=0, n_resamples=50)
    fpr, tpr, thr = roc_curve(y, score, drop_intermediate=False)
    k = np.argmax(tpr - fpr)  # scikit-learn 1.x: thresholds decreasing, first maximum
    assert r.threshold == thr[k]
    assert r.value == pytest.approx(tpr[k] - fpr[k], abs=1e-12)
    assert (r.tpr, r.fpr) == pytest.approx((tpr[k], fpr[k]))
    lo, hi = r.threshold_interval
    assert lo <= r.threshold <= hi and r.value_interval.low <= r.value_interval.high


@pytest.mark.parametrize(("c_fn", "c_fp", "prevalence"), [(5, 1, None), (1, 3, 0.1), (2, 2, 0.5)])
def test_cost_threshold_equals_sklearn(c_fn, c_fp, prevalence):
    y, score, s = _data(3)
    r = mlci.optimal_threshold_ci(s, criterion="cost", c_fn=c_fn, c_fp=c_fp,
                                  prevalence=prevalence, rng=0, n_resamples=50)  # fmt: skip
    fpr, tpr, thr = roc_curve(y, score, drop_intermediate=False)
    pi = y.mean() if prevalence is None else prevalence
    cost = c_fn * pi * (1 - tpr) + c_fp * (1 - pi) * fpr
    k = np.argmin(cost)
    assert r.value == pytest.approx(cost[k], abs=1e-12)
    assert r.threshold == thr[k] or cost[list(thr).index(r.threshold)] == pytest.approx(cost[k])
    assert r.details["prevalence"] == pytest.approx(pi)
    assert "cost" in repr(r) and r.to_frame().shape == (2, 4)


def test_threshold_interval_is_reproducible_and_shrinks_with_n():
    _, _, small = _data(4, 40, 60)
    _, _, big = _data(4, 400, 600)
    a = mlci.optimal_threshold_ci(small, rng=1, n_resamples=200)
    b = mlci.optimal_threshold_ci(small, rng=1, n_resamples=200)
    assert a.rows() == b.rows()
    c = mlci.optimal_threshold_ci(big, rng=1, n_resamples=200)
    width = lambda r: r.value_interval.high - r.value_interval.low  # noqa: E731
    assert width(c) < width(a)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"criterion": "f1"}, ValueError, "criterion"),
        ({"c_fn": -1}, ValueError, "c_fn"),
        ({"c_fp": "1"}, TypeError, "c_fp"),
        ({"criterion": "cost", "c_fn": 0, "c_fp": 0}, ValueError, "both 0"),
        ({"prevalence": 1.0}, ValueError, "prevalence"),
        ({"n_resamples": 0}, ValueError, "n_resamples"),
        ({"confidence_level": 2}, ValueError, "confidence_level"),
        ({"stratify": "yes"}, TypeError, "stratify"),
        ({"rng": "x"}, TypeError, "rng"),
    ],
)
def test_optimal_threshold_bad_input(kwargs, error, match):
    _, _, s = _data()
    with pytest.raises(error, match=match):
        mlci.optimal_threshold_ci(s, **kwargs)
    with pytest.raises(TypeError, match="Scores"):
        mlci.optimal_threshold_ci([0.1, 0.2])


def test_pr_band_point_estimate_equals_sklearn():
    y, score, s = _data(5)
    grid = np.array([0.1, 0.25, 0.5, 0.75, 0.9, 1.0])
    band = mlci.pr_band(s, grid, rng=0, n_resamples=200)
    prec, rec, _ = precision_recall_curve(y, score, drop_intermediate=False)
    # scikit-learn: recall decreasing with the threshold; the highest threshold whose
    # recall reaches r is the last index with recall >= r
    ref = [prec[np.flatnonzero(rec >= r)[-1]] for r in grid]
    assert band.y == pytest.approx(ref, abs=1e-12)
    assert np.all(band.low <= band.y + 1e-12) and np.all(band.y <= band.high + 1e-12)
    assert band.to_frame().columns.tolist() == ["recall", "precision", "low", "high"]


def test_pr_band_bad_input():
    _, _, s = _data()
    for grid in ([0.0, 0.5], [1.5], [], [np.nan]):
        with pytest.raises(ValueError, match="grid"):
            mlci.pr_band(s, grid)
    with pytest.raises(TypeError, match="grid"):
        mlci.pr_band(s, ["a"])
    with pytest.raises(TypeError, match="Scores"):
        mlci.pr_band(np.ones(3))
    with pytest.raises(ValueError, match="n_resamples"):
        mlci.pr_band(s, n_resamples=0)


def test_pr_band_with_conditions_replicates_are_pr_curves_of_the_resampled_data():
    # issue 25: with conditions the band is read from each replicate's counts (no
    # replicate Scores object); every replicate must be the step rule of pr_curve on the
    # data the replicate drew (whole conditions), ties and a grid between points included
    from mlci.scores._roc import _WeightsView
    from mlci.scores.curves import precision_at_recall_spec
    from mlci.scores.decisions import _precision_at

    rng = np.random.default_rng(11)
    for _ in range(15):
        n = 240
        y, score = rng.integers(0, 2, n), rng.integers(0, 25, n).astype(float)
        cond = rng.integers(0, 30, n)
        s = mlci.Scores.from_labels(y, score)
        drawn = rng.integers(0, 30, 30)  # conditions drawn with replacement
        idx = np.concatenate([np.flatnonzero(cond == c) for c in drawn])
        if y[idx].min() == y[idx].max():
            continue
        lay = s._lay
        w = np.zeros(lay.m[0] + lay.m[1])  # the replicate's count of every atom
        for i in idx:
            cls, z = int(y[i]), s._sign * score[i]
            w[cls * lay.m[0] + np.searchsorted(lay.u[cls], z)] += 1
        grid = np.sort(np.concatenate([np.linspace(0.02, 1, 50), rng.random(10)]))
        got = precision_at_recall_spec(s, grid).fn(_WeightsView(lay, w[None]))[0]
        want = _precision_at(mlci.Scores.from_labels(y[idx], score[idx]), grid)
        assert np.array_equal(got, want)
    # the estimate is the data's curve; the band is over condition draws (the plan of
    # bootstrap_ci: its scheme), and bounds the estimate
    y, score, s = _data(5)
    cond = np.arange(len(y)) % 25
    grid = np.array([0.1, 0.25, 0.5, 0.75, 0.9, 1.0])
    band = mlci.pr_band(s, grid, rng=0, n_resamples=200, conditions=cond)
    assert np.array_equal(band.y, _precision_at(s, grid))
    assert band.result.scheme == "conditions" and band.extra["conditions"]
    assert np.all(band.low <= band.y + 1e-12) and np.all(band.y <= band.high + 1e-12)
    with pytest.raises(ValueError, match="`stratify`"):
        mlci.pr_band(s, grid, conditions=cond, stratify=True)
    with pytest.raises(ValueError, match="conditions"):
        mlci.pr_band(s, grid, conditions=cond[:-1])


def test_pr_band_plot():
    import matplotlib

    matplotlib.use("Agg")
    _, _, s = _data()
    from mlci.plotting import plot_pr
    from mlci.scores.curves import pr_curve

    ax = plot_pr(pr_curve(s), mlci.pr_band(s, rng=0, n_resamples=50), label="s")
    assert ax.get_xlabel() == "Recall" and len(ax.collections) >= 1
    matplotlib.pyplot.close("all")


def test_roc_and_pr_bands_from_one_set_of_replicates_equal_the_two_calls():
    # issue 25: the report's curves over conditions, each replicate drawn and summed once
    # for both: roc_band (conditions drawn whole) and pr_band, bit for bit
    import warnings

    from mlci.scores.decisions import roc_pr_bands

    rng = np.random.default_rng(11)
    n = 1500
    y = rng.integers(0, 2, n)
    spk = rng.integers(0, 30, n)
    s = mlci.Scores.from_labels(
        y, np.round(rng.normal(0, 1, n) + y + rng.normal(0, 0.5, 30)[spk], 2)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.exceptions.FewResamplesWarning)
        roc, pr = roc_pr_bands(s, conditions=spk, n_resamples=120, rng=3, confidence_level=0.9)
        whole = mlci.Resampling(stratify=False)
        roc1 = mlci.roc_band(s, conditions=spk, n_resamples=120, rng=3, confidence_level=0.9,
                             resampling=whole)  # fmt: skip
        pr1 = mlci.pr_band(s, conditions=spk, n_resamples=120, rng=3, confidence_level=0.9)
    for joint, alone in ((roc, roc1), (pr, pr1)):
        for f in ("x", "y", "low", "high", "pointwise_low", "pointwise_high"):
            assert np.array_equal(getattr(joint, f), getattr(alone, f)), f
        assert (joint.x_name, joint.y_name, joint.kind) == (alone.x_name, alone.y_name, alone.kind)
        a, b = joint.result, alone.result
        assert np.array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
        assert (a.metric, a.scheme, a.method, a.n_resamples) == (b.metric, b.scheme, b.method, 120)
    assert roc.extra == roc1.extra and pr.extra == pr1.extra
    with pytest.raises(ValueError, match="`conditions` is required"):
        roc_pr_bands(s, conditions=None)
    with pytest.raises(ValueError, match="n_resamples"):
        roc_pr_bands(s, conditions=spk, n_resamples=0)
    with pytest.raises(ValueError, match="confidence_level"):
        roc_pr_bands(s, conditions=spk, confidence_level=1.5)
    with pytest.raises(ValueError, match="conditions"):
        roc_pr_bands(s, conditions=spk[:10])
