"""The public bootstrap_ci: reproducibility, schemes, user functions, jackknife, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sklearn.metrics as skm

import mlci
from mlci import bootstrap_ci
from mlci.metrics import get_kernel

TWO_STAGE = mlci.Resampling(two_stage=True)
RNG = np.random.default_rng(2024)
N = 300
Y = RNG.integers(0, 2, N)
SCORE = Y + RNG.normal(size=N)
PRED = (SCORE > 0.5).astype(int)
SPEAKER = RNG.integers(0, 30, N)


# ------------------------------------------------------------------ reproducibility
@pytest.mark.parametrize(
    "metric,data,kw",
    [
        ("accuracy", (Y, PRED), {}),
        ("roc_auc", (Y, SCORE), {}),
        ("f1", (Y, PRED), {"conditions": SPEAKER}),
        ("roc_auc", (Y, SCORE), {"conditions": SPEAKER, "resampling": TWO_STAGE}),
        ("mcc", (Y, PRED), {"strata": Y}),
        ("average_precision", (Y, SCORE), {"strata": Y, "conditions": SPEAKER}),
        ("mean", (SCORE,), {"resampling": mlci.Resampling(weights="poisson")}),
    ],
)
def test_same_seed_same_result_for_any_batch_and_threads(metric, data, kw):
    ref = bootstrap_ci(*data, metric=metric, n_resamples=200, rng=7, **kw)
    for batch, n_jobs in [(1, 1), (3, 2), (64, 2), (1000, 1)]:
        with mlci.config_context(batch=batch, n_jobs=n_jobs):
            other = bootstrap_ci(*data, metric=metric, n_resamples=200, rng=7, **kw)
        np.testing.assert_array_equal(other.bootstrap_distribution, ref.bootstrap_distribution)
        assert other.confidence_interval == ref.confidence_interval


def test_seeds_and_generators():
    a = bootstrap_ci(Y, PRED, metric="accuracy", n_resamples=100, rng=1)
    b = bootstrap_ci(Y, PRED, metric="accuracy", n_resamples=100, rng=2)
    assert not np.array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    g1 = bootstrap_ci(Y, PRED, metric="accuracy", n_resamples=100, rng=np.random.default_rng(5))
    g2 = bootstrap_ci(Y, PRED, metric="accuracy", n_resamples=100, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(g1.bootstrap_distribution, g2.bootstrap_distribution)


# --------------------------------------------------------------- user functions
def test_user_function_with_sample_weight_equals_builtin_on_same_replicates():
    # Continuous scores: every sample is its own atom.  The built-in roc_auc kernel draws
    # through the samples in order of score (whatever the rows' order: issue 20), a user
    # function through the rows as given: given the rows sorted by score, scikit-learn's
    # roc_auc_score (the counts as sample_weight) sees the same draws as the built-in
    # kernel on the rows in any order.
    o = np.lexsort((Y, SCORE))
    res_fn = bootstrap_ci(Y[o], SCORE[o], metric=skm.roc_auc_score, n_resamples=100, rng=3)
    res_bi = bootstrap_ci(Y, SCORE, metric="roc_auc", n_resamples=100, rng=3)
    np.testing.assert_allclose(res_fn.bootstrap_distribution, res_bi.bootstrap_distribution)
    assert res_fn.estimate == pytest.approx(skm.roc_auc_score(Y, SCORE))


def test_index_path_equals_weight_path():
    def acc_no_weights(y_true, y_pred):
        return float(np.mean(y_true == y_pred))

    a = bootstrap_ci(Y, PRED, metric=acc_no_weights, n_resamples=80, rng=4, method="percentile")
    b = bootstrap_ci(Y, PRED, metric=skm.accuracy_score, n_resamples=80, rng=4, method="percentile")
    np.testing.assert_allclose(a.bootstrap_distribution, b.bootstrap_distribution)


def test_vector_valued_user_metric_keeps_shape():
    def class_means(values):
        return np.array([values.mean(), values.std()])

    res = bootstrap_ci(SCORE, metric=class_means, n_resamples=50, rng=0, method="percentile")
    assert res.bootstrap_distribution.shape == (50, 2)
    assert np.shape(res.confidence_interval.low) == (2,)


def test_vector_valued_builtin_per_class_recall():
    y = RNG.integers(0, 3, N)
    p = np.where(RNG.random(N) < 0.7, y, RNG.integers(0, 3, N))
    res = bootstrap_ci(y, p, metric="recall", average=None, n_resamples=200, rng=0)
    np.testing.assert_allclose(res.estimate, skm.recall_score(y, p, average=None))
    low, high = res.confidence_interval
    assert low.shape == (3,) and np.all(low <= res.estimate) and np.all(res.estimate <= high)


def test_user_function_failing_on_some_replicates_is_counted():
    y = np.array([0, 0, 0, 0, 0, 0, 0, 0, 1, 1])
    s = np.linspace(0, 1, 10)
    with pytest.warns(mlci.InvalidReplicatesWarning, match=r"undefined on \d+ of 200"):
        res = bootstrap_ci(y, s, metric=skm.roc_auc_score, n_resamples=200, rng=0)
    assert 0 < res.n_invalid < 200
    assert np.isnan(res.bootstrap_distribution).sum() == res.n_invalid


# 2 positives: the class-size warnings (MIN_CLASS, MIN_AUC_CLASS) are tested in
# tests/engine/test_auc_few_class.py and test_auto_resolution.py
@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")
def test_builtin_undefined_replicates_counted_and_warned():
    y = np.array([0] * 18 + [1, 1])
    s = np.r_[np.linspace(0, 1, 18), 0.3, 0.7]  # positives inside the negatives' range
    with pytest.warns(mlci.InvalidReplicatesWarning):
        res = bootstrap_ci(y, s, metric="roc_auc", method="bca", n_resamples=300, rng=0)
    assert res.n_invalid > 0
    # stratifying by class removes the problem
    res = bootstrap_ci(y, s, metric="roc_auc", method="bca", n_resamples=300, rng=0, strata=y)
    assert res.n_invalid == 0


# ------------------------------------------------------------------------ jackknife
def _brute_delete_one(metric, data):
    n = len(data[0])
    out = []
    for i in range(n):
        keep = np.arange(n) != i
        k = get_kernel(metric, [d[keep] for d in data], {})
        c = np.bincount(k.keys, minlength=k.m).astype(float)
        out.append(k.evaluate(c[None])[0])
    return np.array(out)


@pytest.mark.parametrize(
    "metric,data",
    [
        ("roc_auc", (Y[:80], np.round(SCORE[:80], 1))),
        ("mean", (np.round(SCORE[:80], 1),)),
        ("r2", (SCORE[:80], SCORE[:80] + Y[:80])),
    ],
)
def test_exact_delete_one_shortcuts(metric, data):
    kernel = get_kernel(metric, data, {})
    counts = np.bincount(kernel.keys, minlength=kernel.m).astype(float)
    vals, mult = kernel.delete_one(counts)
    brute = _brute_delete_one(metric, data)
    # compare as multisets: each atom's value repeated by its multiplicity
    np.testing.assert_allclose(np.sort(np.repeat(vals, mult.astype(int))), np.sort(brute))


def test_bca_acceleration_matches_explicit_jackknife():
    from mlci.intervals.bootstrap import acceleration

    y, s = Y[:120], SCORE[:120]
    jack = np.array([skm.roc_auc_score(np.delete(y, i), np.delete(s, i)) for i in range(len(y))])
    res = bootstrap_ci(
        y,
        s,
        metric="roc_auc",
        method="bca",
        n_resamples=100,
        rng=0,
        resampling=mlci.Resampling(jackknife_groups=2),
    )
    # jackknife_groups=2 < m forces the grouped path; the exact shortcut is used instead
    assert res.details["acceleration"] == pytest.approx(float(acceleration(jack)), rel=1e-9)


# --------------------------------------------------------------------------- schemes
def test_condition_resampling_is_wider_on_clustered_data():
    rng = np.random.default_rng(0)
    spk = np.repeat(np.arange(40), 25)
    skill = rng.normal(0, 1.2, 40)[spk]
    correct = (rng.random(1000) < 1 / (1 + np.exp(-(1.5 + skill)))).astype(float)
    iid = bootstrap_ci(correct, metric="mean", rng=0)
    cond = bootstrap_ci(correct, metric="mean", conditions=spk, rng=0)
    assert cond.standard_error > 1.5 * iid.standard_error
    assert cond.n_conditions == 40 and cond.scheme == "conditions"


def test_strata_keep_class_counts():
    res = bootstrap_ci(Y, PRED, metric="recall", strata=Y, n_resamples=100, rng=0)
    # recall only depends on positives; with class strata their number never changes,
    # so the replicate recall is always a multiple of 1/n_pos
    n_pos = Y.sum()
    vals = res.bootstrap_distribution * n_pos
    np.testing.assert_allclose(vals, np.round(vals), atol=1e-9)


def test_one_sided_intervals():
    lo = bootstrap_ci(Y, PRED, metric="accuracy", alternative="greater", rng=0)
    hi = bootstrap_ci(Y, PRED, metric="accuracy", alternative="less", rng=0)
    two = bootstrap_ci(Y, PRED, metric="accuracy", rng=0)
    # issue 8: the open end of a one-sided interval is the metric's range edge, not inf
    assert lo.confidence_interval.high == 1.0 and hi.confidence_interval.low == 0.0
    assert two.confidence_interval.low < lo.confidence_interval.low < lo.estimate
    assert hi.estimate < hi.confidence_interval.high < two.confidence_interval.high


def test_degenerate_distribution_warns():
    y = np.ones(50, dtype=int)
    with pytest.warns(mlci.DegenerateIntervalWarning, match="no spread"):
        res = bootstrap_ci(y, y, metric="accuracy", rng=0, method="percentile")
    assert res.confidence_interval == (1.0, 1.0)


# ------------------------------------------------------------------------- results
def test_result_repr_and_dict():
    res = bootstrap_ci(Y, PRED, metric="accuracy", conditions=SPEAKER, n_resamples=100, rng=0)
    text = repr(res)
    assert text.startswith("BootstrapResult(metric='accuracy', estimate=")
    assert "95% CI [" in text and "in 30 conditions" in text
    d = res.to_dict()
    assert "bootstrap_distribution" not in d
    json.dumps(d)  # plain Python values only
    low, high = res.confidence_interval
    assert low < res.estimate < high
    with pytest.raises(AttributeError):
        res.estimate = 0.0  # frozen


# ------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "kwargs,exc,pattern",
    [
        ({"n_resamples": 0}, ValueError, r"`n_resamples` must be an integer >= 2; got 0"),
        ({"n_resamples": 2.5}, TypeError, r"`n_resamples` must be an integer"),
        ({"confidence_level": 95}, ValueError, r"use 0.95 instead of 95"),
        ({"confidence_level": 0}, ValueError, r"strictly between 0 and 1"),
        ({"method": "bcaa"}, ValueError, r"`method` must be one of 'auto', 'percentile', 'basic'"),
        ({"alternative": "two_sided"}, ValueError, r"`alternative` must be one of"),
        ({"conditions": SPEAKER[:10]}, ValueError, r"`conditions` has 10 samples"),
        ({"strata": Y[:-1]}, ValueError, r"`strata` has 299 samples but `y_true` has 300"),
        ({"conditions": np.zeros(N)}, ValueError, r"single distinct value"),
        ({"resampling": TWO_STAGE}, ValueError, r"`two_stage=True` needs `conditions`"),
        ({"rng": -1}, ValueError, r"`rng` must be a non-negative integer"),
        ({"rng": "seed"}, TypeError, r"`rng` must be None, a non-negative int"),
        ({"resampling": {"weights": "poisson"}}, TypeError, r"`resampling` must be a mlci"),
        ({"resampling": mlci.Resampling(smoothing=True)}, ValueError, r"does not offer `smo"),
    ],
)
def test_bad_options(kwargs, exc, pattern):
    with pytest.raises(exc, match=pattern):
        bootstrap_ci(Y, PRED, metric="accuracy", **kwargs)


def test_bad_data():
    with pytest.raises(ValueError, match="No data given"):
        bootstrap_ci(metric="accuracy")
    with pytest.raises(ValueError, match=r"`y_pred` has 299 samples but `y_true` has 300"):
        bootstrap_ci(Y, PRED[:-1], metric="accuracy")
    with pytest.raises(ValueError, match=r"`y_score` has 1 missing value"):
        bootstrap_ci(Y, np.where(np.arange(N) == 5, np.nan, SCORE), metric="roc_auc")
    with pytest.raises(ValueError, match=r"`y_score` contains 1 infinite value"):
        bootstrap_ci(Y, np.where(np.arange(N) == 5, np.inf, SCORE), metric="roc_auc")
    with pytest.raises(ValueError, match=r"`y_true` is empty"):
        bootstrap_ci([], [], metric="accuracy")
    with pytest.raises(ValueError, match=r"`conditions` has 1 missing value"):
        bootstrap_ci(Y, PRED, metric="accuracy", conditions=np.r_[np.nan, np.arange(N - 1.0)])


def test_metric_undefined_on_data_is_an_error_not_nan():
    y = np.array([0, 0, 1, 1])
    p = np.array([0, 0, 0, 0])  # no predicted positive: precision undefined
    with pytest.raises(ValueError, match=r"undefined \(NaN\) on the data as given"):
        bootstrap_ci(y, p, metric="precision")


@pytest.mark.filterwarnings(
    "ignore::mlci.FewResamplesWarning"
)  # few replicates: a fast check of equality, not of a level
def test_options_for_callables_go_in_metric_kwargs():
    with pytest.raises(ValueError, match=r"pass options of your own function in `metric_kwargs`"):
        bootstrap_ci(Y, PRED, metric=skm.accuracy_score, pos_label=1)
    res = bootstrap_ci(
        Y,
        PRED,
        metric=skm.fbeta_score,
        metric_kwargs={"beta": 2.0},
        n_resamples=20,
        rng=0,
        method="percentile",
    )
    assert res.estimate == pytest.approx(skm.fbeta_score(Y, PRED, beta=2.0))


# ---------------------------------------------------------------- nested conditions
def test_nested_conditions_dispatch():
    speaker = np.repeat(np.arange(30), 10)
    session = np.tile(np.repeat([0, 1], 5), 30)
    loss = RNG.normal(1.0, 0.3, 300) + 0.4 * RNG.normal(size=30)[speaker]
    flat = bootstrap_ci(loss, metric="mean", conditions=speaker, n_resamples=300, rng=0)
    nested = bootstrap_ci(
        loss, metric="mean", conditions=[speaker, session], n_resamples=300, rng=0
    )
    assert nested.scheme.startswith("nested")
    # top level only: the same kind of spread as resampling speakers
    assert nested.standard_error == pytest.approx(flat.standard_error, rel=0.25)
    deeper = bootstrap_ci(
        loss,
        metric="mean",
        conditions=[speaker, session],
        resampling=mlci.Resampling(two_stage=True),
        n_resamples=300,
        rng=0,
    )
    assert deeper.standard_error > nested.standard_error * 0.9
    with pytest.raises(ValueError, match=r"Nested `conditions`.*support neither `strata`"):
        bootstrap_ci(loss, metric="mean", conditions=[speaker, session], strata=speaker % 2)


def test_to_frame():
    res = bootstrap_ci(Y, PRED, metric="accuracy", n_resamples=50, rng=0, method="percentile")
    frame = res.to_frame()
    assert list(frame.columns[:4]) == ["metric", "estimate", "low", "high"]
    assert frame.loc[0, "estimate"] == res.estimate
    y = RNG.integers(0, 3, N)
    vec = bootstrap_ci(
        y, y[::-1], metric="recall", average=None, n_resamples=50, rng=0, method="percentile"
    )
    assert len(vec.to_frame()) == 3 and "element" in vec.to_frame().columns


def test_pos_label_among_several_classes_is_refused():
    # issue 8: roc_auc with three classes and a pos_label used to do a silent one-vs-rest;
    # a binary metric now refuses more than two classes and says how to binarise
    y = RNG.integers(0, 3, N)
    s = (y == 2) + RNG.normal(size=N)
    for metric in ("roc_auc", "average_precision", "log_loss", "brier"):
        score = 1 / (1 + np.exp(-s)) if metric in ("log_loss", "brier") else s
        with pytest.raises(ValueError, match=r"needs binary labels.*`y_true == 2`"):
            bootstrap_ci(y, score, metric=metric, pos_label=2, n_resamples=50, rng=0)
    res = bootstrap_ci(y == 2, s, metric="roc_auc", n_resamples=50, rng=0)
    assert res.estimate == pytest.approx(skm.roc_auc_score(y == 2, s))


@pytest.mark.parametrize("metric", ["mean", "mse", "mae", "r2", "brier", "log_loss"])
@pytest.mark.parametrize("design", ["iid", "conditions"])
def test_float_metrics_bit_identical_whatever_chunks_and_threads(metric, design):
    # Sums of float values over resampled atoms are exact (metrics.ExactSums), so a seed
    # gives the same replicates, bit for bit, for any batch size and thread count. A plain
    # ``w @ atoms`` differs in the last bit between BLAS block shapes (seen on this
    # project's CI machines: tests/engine/test_nested.py).
    rng = np.random.default_rng(11)
    n = 301
    y = rng.integers(0, 2, n)
    p = np.clip(rng.random(n), 1e-6, 1 - 1e-6)
    v = rng.normal(size=n) * 1e3
    args = {
        "mean": (v,),
        "mse": (v, v + rng.normal(size=n)),
        "mae": (v, v + rng.normal(size=n)),
        "r2": (v, v + rng.normal(size=n)),
        "brier": (y, p),
        "log_loss": (y, p),
    }[metric]
    kw = {"conditions": rng.integers(0, 40, n)} if design == "conditions" else {}
    runs = []
    for batch, jobs in [(None, None), (1, None), (7, 2), (64, 2)]:
        with mlci.config_context(batch=batch, n_jobs=jobs):
            runs.append(
                mlci.bootstrap_ci(
                    *args, metric=metric, n_resamples=203, rng=5, method="percentile", **kw
                )
            )
    for r in runs[1:]:
        np.testing.assert_array_equal(r.bootstrap_distribution, runs[0].bootstrap_distribution)
        assert r.confidence_interval == runs[0].confidence_interval


def test_threads_share_the_linearization_safely():
    # Regression: the conditions' unit table was published before it was filled, so a
    # second replicate thread could read zeros, get se* = 0 and turn the studentized
    # interval into [0, 1] (seen once in CI).  Frequent thread switches make the race
    # likely; every fresh run must match the one-thread result exactly.
    import sys

    ref = bootstrap_ci(Y, PRED, metric="f1", n_resamples=60, rng=7, conditions=SPEAKER)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with mlci.config_context(batch=1, n_jobs=2):
            runs = [
                bootstrap_ci(
                    Y, PRED, metric="f1", n_resamples=60, rng=7, conditions=SPEAKER
                ).confidence_interval
                for _ in range(40)
            ]
    finally:
        sys.setswitchinterval(old)
    assert all(r == ref.confidence_interval for r in runs)
