"""Built-in metric kernels against scikit-learn, and the weights-equal-repetition property.

Reference: scikit-learn's metrics (the independent implementation each kernel must match).
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from mlci.metrics import METRICS, get_kernel, list_metrics

RNG = np.random.default_rng(12345)
N = 400


def _binary_data(n: int = N, rng: np.random.Generator = RNG, ties: bool = True):
    y = rng.integers(0, 2, n)
    score = y * 0.8 + rng.normal(size=n)
    if ties:
        score = np.round(score, 1)  # many tied scores
    pred = (score > 0.4).astype(int)
    prob = 1 / (1 + np.exp(-2 * score))
    return y, pred, score, prob


def _multiclass_data(n: int = N, k: int = 4, rng: np.random.Generator = RNG):
    y = rng.integers(0, k, n)
    pred = np.where(rng.random(n) < 0.6, y, rng.integers(0, k, n))
    logits = rng.normal(size=(n, k)) + 1.5 * np.eye(k)[y]
    prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return y, pred, prob


def value(metric, *data, **params):
    kernel = get_kernel(metric, data, params)
    counts = np.bincount(kernel.keys, minlength=kernel.m).astype(float)
    return kernel.evaluate(counts[None, :])[0]


# name -> (sklearn function, sklearn kwargs, mlci params)
BINARY_DECISION = {
    "accuracy": (skm.accuracy_score, {}, {}),
    "balanced_accuracy": (skm.balanced_accuracy_score, {}, {}),
    "precision": (skm.precision_score, {}, {}),
    "recall": (skm.recall_score, {}, {}),
    "f1": (skm.f1_score, {}, {}),
    "fbeta": (skm.fbeta_score, {"beta": 2.0}, {"beta": 2.0}),
    "mcc": (skm.matthews_corrcoef, {}, {}),
    "cohen_kappa": (skm.cohen_kappa_score, {}, {}),
}


@pytest.mark.parametrize("name", sorted(BINARY_DECISION))
def test_binary_decision_metrics_match_sklearn(name):
    y, pred, _, _ = _binary_data()
    fn, skw, params = BINARY_DECISION[name]
    assert value(name, y, pred, **params) == pytest.approx(fn(y, pred, **skw), abs=1e-12)


def test_rates_match_confusion_matrix_definitions():
    y, pred, _, _ = _binary_data()
    tn, fp, fn, tp = skm.confusion_matrix(y, pred).ravel()
    expected = {
        "specificity": tn / (tn + fp),
        "tnr": tn / (tn + fp),
        "fpr": fp / (fp + tn),
        "fnr": fn / (fn + tp),
        "npv": tn / (tn + fn),
        "fdr": fp / (fp + tp),
        "tpr": tp / (tp + fn),
        "sensitivity": tp / (tp + fn),
        "error_rate": (fp + fn) / len(y),
    }
    for name, ref in expected.items():
        assert value(name, y, pred) == pytest.approx(ref, abs=1e-12), name


def test_pos_label_with_string_labels():
    y, pred, _, _ = _binary_data()
    ys = np.where(y == 1, "spam", "ham")
    ps = np.where(pred == 1, "spam", "ham")
    ref = skm.precision_score(ys, ps, pos_label="spam")
    assert value("precision", ys, ps, pos_label="spam") == pytest.approx(ref)
    # the other class as positive
    ref = skm.recall_score(ys, ps, pos_label="ham")
    assert value("recall", ys, ps, pos_label="ham") == pytest.approx(ref)


@pytest.mark.parametrize("average", ["macro", "micro", "weighted", None])
@pytest.mark.parametrize(
    "name,fn,kw",
    [
        ("precision", skm.precision_score, {}),
        ("recall", skm.recall_score, {}),
        ("f1", skm.f1_score, {}),
        ("fbeta", skm.fbeta_score, {"beta": 0.5}),
    ],
)
def test_multiclass_averages_match_sklearn(name, fn, kw, average):
    y, pred, _ = _multiclass_data()
    got = value(name, y, pred, average=average, **kw)
    np.testing.assert_allclose(got, fn(y, pred, average=average, **kw), atol=1e-12)


@pytest.mark.parametrize(
    "name,fn,kw",
    [
        ("accuracy", skm.accuracy_score, {}),
        ("balanced_accuracy", skm.balanced_accuracy_score, {}),
        ("mcc", skm.matthews_corrcoef, {}),
        ("cohen_kappa", skm.cohen_kappa_score, {}),
        ("cohen_kappa", skm.cohen_kappa_score, {"weights": "linear"}),
        ("cohen_kappa", skm.cohen_kappa_score, {"weights": "quadratic"}),
    ],
)
def test_multiclass_whole_matrix_metrics_match_sklearn(name, fn, kw):
    y, pred, _ = _multiclass_data()
    assert value(name, y, pred, **kw) == pytest.approx(fn(y, pred, **kw), abs=1e-12)


def test_multiclass_specificity_is_one_vs_rest():
    y, pred, _ = _multiclass_data()
    mcm = skm.multilabel_confusion_matrix(y, pred)  # (K, 2, 2): [[tn, fp], [fn, tp]]
    tn, fp = mcm[:, 0, 0], mcm[:, 0, 1]
    np.testing.assert_allclose(value("specificity", y, pred, average=None), tn / (tn + fp))
    assert value("specificity", y, pred, average="macro") == pytest.approx(np.mean(tn / (tn + fp)))


@pytest.mark.parametrize("ties", [False, True])
def test_ranking_metrics_match_sklearn(ties):
    y, _, score, _ = _binary_data(ties=ties)
    assert value("roc_auc", y, score) == pytest.approx(skm.roc_auc_score(y, score), abs=1e-12)
    assert value("average_precision", y, score) == pytest.approx(
        skm.average_precision_score(y, score), abs=1e-12
    )


def test_probabilistic_metrics_match_sklearn():
    y, _, _, prob = _binary_data()
    assert value("log_loss", y, prob) == pytest.approx(skm.log_loss(y, prob), rel=1e-12)
    assert value("brier", y, prob) == pytest.approx(skm.brier_score_loss(y, prob), rel=1e-12)
    ym, _, pm = _multiclass_data()
    assert value("log_loss", ym, pm) == pytest.approx(skm.log_loss(ym, pm), rel=1e-10)
    assert value("brier", ym, pm) == pytest.approx(skm.brier_score_loss(ym, pm), rel=1e-10)


def test_regression_metrics_match_sklearn():
    t = RNG.normal(10, 3, N)
    p = t + RNG.normal(0, 1, N)
    assert value("mae", t, p) == pytest.approx(skm.mean_absolute_error(t, p))
    assert value("mse", t, p) == pytest.approx(skm.mean_squared_error(t, p))
    assert value("rmse", t, p) == pytest.approx(np.sqrt(skm.mean_squared_error(t, p)))
    assert value("r2", t, p) == pytest.approx(skm.r2_score(t, p), abs=1e-12)


def test_mean_and_weighted_mean():
    wer = RNG.uniform(0, 0.5, N)
    words = RNG.integers(1, 30, N)
    assert value("mean", wer) == pytest.approx(wer.mean())
    # weights come first, in the labels position (seed toolkit's table)
    assert value("weighted_mean", words, wer) == pytest.approx(np.sum(words * wer) / words.sum())


# ------------------------------------------------------------------ weights == repetition
def _data_for(name: str, rng: np.random.Generator, n: int):
    y = rng.integers(0, 2, n)
    score = np.round(y * 0.5 + rng.normal(size=n), 1)
    info = METRICS[name]
    if info.inputs == ("values",):
        return (np.round(rng.random(n), 2),)
    if info.inputs == ("weights", "values"):
        return (rng.integers(1, 5, n), np.round(rng.random(n), 2))
    if name == "wer":  # (reference words, errors) per utterance
        words = rng.integers(0, 20, n)
        return (words, rng.binomial(words + 1, 0.2))
    if name in ("bleu", "chrf"):  # per-segment count statistics (as sacreBLEU's)
        width = 10 if name == "bleu" else 18
        return (rng.integers(0, 25, (n, width)).astype(float),)
    calibration = name.startswith(("brier_", "calibration_")) or name in (
        "ece",
        "ece_debiased",
        "mce",
    )
    if name in ("log_loss", "brier") or calibration:
        return (y, np.clip(np.round(1 / (1 + np.exp(-score)), 2), 0.01, 0.99))
    if info.inputs == ("ratings",):  # agreement: items x 3 raters, categories 0..2
        return (np.clip(y[:, None] + rng.integers(-1, 2, (n, 3)), 0, 2),)
    if name in ("pearson", "spearman", "kendall_tau"):
        t = np.round(rng.normal(size=n), 1)
        return (t, np.round(t + rng.normal(size=n), 1))
    if info.inputs[1] == "y_score":
        return (y, score)
    if name in ("mae", "mse", "rmse", "r2"):
        t = np.round(rng.normal(size=n), 1)
        return (t, np.round(t + rng.normal(size=n), 1))
    return (y, (score > 0.2).astype(int))


@pytest.mark.filterwarnings("ignore::mlci.exceptions.IrregularEstimandWarning")
# calibration_intercept warns below 100 samples of the rarer outcome (its coverage study)
@pytest.mark.filterwarnings("ignore::mlci.exceptions.FewConditionsWarning")
@settings(max_examples=25, deadline=None)
@given(
    name=st.sampled_from(list_metrics()),
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(8, 60),
)
def test_integer_weights_equal_repeated_samples(name, seed, n):
    """A replicate's counts give exactly the metric on the explicitly repeated samples."""
    rng = np.random.default_rng(seed)
    data = _data_for(name, rng, n)
    kernel = get_kernel(name, data, {})
    reps = rng.integers(0, 4, n)
    if reps.sum() == 0:
        reps[0] = 1
    idx = np.repeat(np.arange(n), reps)
    w = np.bincount(kernel.keys, weights=reps, minlength=kernel.m)
    got = kernel.evaluate(w[None, :])[0]
    try:
        rep_kernel = get_kernel(name, [d[idx] for d in data], {})
    except ValueError:
        # the repeated data set itself is degenerate (e.g. a single class): the weighted
        # evaluation must then say "undefined" too -- except where the metric has a value
        # there: average precision without negatives is 1 (scikit-learn agrees), accuracy
        # and means are defined on one class
        only_pos = name == "average_precision" and np.all(data[0][idx] == 1)
        assert (
            np.all(np.isnan(got))
            or name in ("accuracy", "error_rate", "mean")
            or (only_pos and got == 1.0)
        )
        return
    rc = np.bincount(rep_kernel.keys, minlength=rep_kernel.m).astype(float)
    ref = rep_kernel.evaluate(rc[None, :])[0]
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_every_metric_is_exercised_by_sklearn_parity():
    covered = (
        set(BINARY_DECISION)
        | {"specificity", "tnr", "fpr", "fnr", "npv", "fdr", "tpr", "sensitivity", "error_rate"}
        | {"roc_auc", "average_precision", "log_loss", "brier", "mae", "mse", "rmse", "r2"}
        | {"mean", "weighted_mean", "top_k_accuracy"}
        # against sacreBLEU and weighted_mean in tests/mt
        | {"bleu", "chrf", "wer"}
    )
    # checked against their fields' references in tests/test_calibration.py,
    # tests/test_correlations.py and tests/test_agreement.py
    covered |= {"ece", "ece_debiased", "mce", "calibration_slope", "calibration_intercept"}
    covered |= {"brier_reliability", "brier_resolution", "brier_uncertainty"}
    covered |= {"pearson", "spearman", "kendall_tau", "fleiss_kappa", "krippendorff_alpha"}
    assert covered == set(list_metrics())


# -------------------------------------------------------------------------- bad input
def test_unknown_metric_lists_valid_names():
    with pytest.raises(ValueError, match=r"Unknown metric 'acuracy'.*Did you mean 'accuracy'"):
        get_kernel("acuracy", ([0, 1], [0, 1]), {})


def test_multiclass_labels_for_binary_metric_say_how_to_fix():
    y, pred, _ = _multiclass_data()
    with pytest.raises(ValueError, match=r"needs binary labels.*4 values.*average='macro'"):
        value("precision", y, pred)


def test_string_labels_need_pos_label():
    with pytest.raises(ValueError, match=r"pos_label` is not specified"):
        value("recall", ["a", "b", "a"], ["a", "a", "b"])


def test_single_class_for_roc_auc_is_an_error():
    with pytest.raises(ValueError, match=r"needs both classes.*every sample is positive"):
        value("roc_auc", [1, 1, 1], [0.2, 0.5, 0.9])


def test_nan_scores_are_refused():
    with pytest.raises(ValueError, match=r"`y_score` has 1 missing value"):
        value("roc_auc", [0, 1, 1], [0.2, np.nan, 0.9])


def test_nan_labels_are_refused():
    with pytest.raises(ValueError, match=r"`y_true` has 1 missing value"):
        value("accuracy", [0.0, np.nan, 1.0], [0, 1, 1])


def test_mismatched_lengths_name_both_arrays():
    with pytest.raises(ValueError, match=r"`y_pred` has 2 samples but `y_true` has 3"):
        value("accuracy", [0, 1, 1], [0, 1])


def test_wrong_number_of_arrays():
    with pytest.raises(
        ValueError, match=r"takes 2 per-sample array\(s\) \(y_true, y_score\); got 1"
    ):
        get_kernel("roc_auc", ([0, 1],), {})


def test_option_that_does_not_apply():
    with pytest.raises(ValueError, match=r"`beta` do not apply to metric 'accuracy'"):
        get_kernel("accuracy", ([0, 1], [0, 1]), {"beta": 2})


def test_probabilities_out_of_range():
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\]"):
        value("log_loss", [0, 1], [-0.5, 2.0])


def test_scores_passed_as_decisions_are_refused():
    y, _, score, _ = _binary_data()
    with pytest.raises(ValueError, match=r"`y_pred` holds non-integer numbers.*Threshold your"):
        value("accuracy", y, score + 0.01)


def test_too_many_classes_are_refused():
    ids = np.arange(5000)
    with pytest.raises(ValueError, match=r"5000 distinct values.*at most 2048 classes"):
        value("accuracy", ids, ids[::-1])


def test_two_column_probabilities_for_roc_auc_say_which_column():
    y, _, _, prob = _binary_data()
    with pytest.raises(ValueError, match=r"y_score\[:, 1\]"):
        value("roc_auc", y, np.c_[1 - prob, prob])


# ------------------------------------------------------------------ sample_weight
def _weighted_value(metric, *data, sample_weight, **params):
    kernel = get_kernel(metric, data, params, sample_weight=sample_weight)
    counts = np.bincount(kernel.keys, minlength=kernel.m).astype(float)
    return kernel.evaluate(counts[None, :])[0]


def _sk_weighted_cases():
    """(mlci name, mlci params, data, scikit-learn function, its kwargs): every built-in."""
    rng = np.random.default_rng(7)
    y, pred, score, prob = _binary_data(rng=rng)
    ym, pm, probm = _multiclass_data(rng=rng)
    t = rng.normal(10, 3, N)
    p = t + rng.normal(0, 1, N)
    vals = rng.random(N)
    cases = [
        ("accuracy", {}, (ym, pm), skm.accuracy_score, {}),
        ("error_rate", {}, (ym, pm), lambda a, b, **k: 1 - skm.accuracy_score(a, b, **k), {}),
        ("balanced_accuracy", {}, (ym, pm), skm.balanced_accuracy_score, {}),
        ("mcc", {}, (ym, pm), skm.matthews_corrcoef, {}),
        ("cohen_kappa", {}, (ym, pm), skm.cohen_kappa_score, {}),
        (
            "cohen_kappa",
            {"weights": "quadratic"},
            (ym, pm),
            skm.cohen_kappa_score,
            {"weights": "quadratic"},
        ),
        ("precision", {}, (y, pred), skm.precision_score, {}),
        ("recall", {}, (y, pred), skm.recall_score, {}),
        ("f1", {}, (y, pred), skm.f1_score, {}),
        ("fbeta", {"beta": 2.0}, (y, pred), skm.fbeta_score, {"beta": 2.0}),
        ("f1", {"average": "macro"}, (ym, pm), skm.f1_score, {"average": "macro"}),
        (
            "precision",
            {"average": "weighted"},
            (ym, pm),
            skm.precision_score,
            {"average": "weighted"},
        ),
        ("recall", {"average": "micro"}, (ym, pm), skm.recall_score, {"average": "micro"}),
        ("recall", {"average": None}, (ym, pm), skm.recall_score, {"average": None}),
        ("roc_auc", {}, (y, score), skm.roc_auc_score, {}),
        ("roc_auc", {}, (y, score + 1e-3 * rng.random(N)), skm.roc_auc_score, {}),
        ("average_precision", {}, (y, score), skm.average_precision_score, {}),
        ("log_loss", {}, (y, prob), skm.log_loss, {}),
        ("log_loss", {}, (ym, probm), skm.log_loss, {}),
        ("brier", {}, (y, prob), skm.brier_score_loss, {}),
        ("mae", {}, (t, p), skm.mean_absolute_error, {}),
        ("mse", {}, (t, p), skm.mean_squared_error, {}),
        ("rmse", {}, (t, p), lambda a, b, **k: np.sqrt(skm.mean_squared_error(a, b, **k)), {}),
        ("r2", {}, (t, p), skm.r2_score, {}),
        ("mean", {}, (vals,), lambda v, sample_weight: np.average(v, weights=sample_weight), {}),
    ]
    return cases


@pytest.mark.parametrize("case", _sk_weighted_cases(), ids=lambda c: f"{c[0]}-{c[1]}")
@pytest.mark.parametrize("kind", ["continuous", "integer", "with-zeros"])
def test_sample_weight_matches_sklearn(case, kind):
    # reference: scikit-learn's own sample_weight on the same data
    name, params, data, fn, skw = case
    rng = np.random.default_rng(3)
    w = {
        "continuous": rng.uniform(0.1, 3.0, N),
        "integer": rng.integers(1, 4, N).astype(float),
        "with-zeros": np.where(rng.random(N) < 0.2, 0.0, rng.uniform(0.5, 2.0, N)),
    }[kind]
    got = _weighted_value(name, *data, sample_weight=w, **params)
    ref = fn(*data, sample_weight=w, **skw)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_weighted_mean_with_sample_weight_multiplies_the_weights():
    words = RNG.integers(1, 30, N)
    wer = RNG.uniform(0, 0.5, N)
    sw = RNG.uniform(0.5, 2, N)
    got = _weighted_value("weighted_mean", words, wer, sample_weight=sw)
    assert got == pytest.approx(np.sum(sw * words * wer) / np.sum(sw * words), rel=1e-12)


def test_integer_sample_weight_equals_repeated_samples():
    """Integer weights are frequencies: the metric on the repeated samples (no reference)."""
    y, pred, score, _ = _binary_data()
    w = RNG.integers(0, 4, N)
    idx = np.repeat(np.arange(N), w)
    for name, data in (("mcc", (y, pred)), ("roc_auc", (y, score))):
        got = _weighted_value(name, *data, sample_weight=w)
        assert got == pytest.approx(value(name, *(d[idx] for d in data)), abs=1e-12)


def test_unit_sample_weight_changes_nothing():
    y, pred, score, _ = _binary_data()
    for name, data in (("f1", (y, pred)), ("average_precision", (y, score))):
        assert _weighted_value(name, *data, sample_weight=np.ones(N)) == pytest.approx(
            value(name, *data), abs=1e-15
        )


@pytest.mark.parametrize(
    "metric,data_index",
    [("roc_auc", 2), ("accuracy", 1), ("mae", None)],
)
# few positives: the AUC's class-size warning (MIN_AUC_CLASS) is tested in
# tests/engine/test_auc_few_class.py
@pytest.mark.filterwarnings(r"ignore:Only \d+ samples in the smaller class of a ROC AUC")
def test_weighted_bootstrap_equals_sklearn_on_every_replicate(metric, data_index):
    """Every replicate: the built-in kernel on atoms equals scikit-learn called with
    sample_weight = replicate counts x weights (the same seed draws the same samples)."""
    import mlci

    y, pred, score, _ = _binary_data(n=150, rng=np.random.default_rng(1))
    w = np.random.default_rng(2).uniform(0.2, 2.0, 150)
    if metric == "mae":
        data = (score, score + np.random.default_rng(4).normal(size=150))
        ref = skm.mean_absolute_error
    else:
        data = (y, [None, pred, score][data_index])
        ref = skm.roc_auc_score if metric == "roc_auc" else skm.accuracy_score

    def sk(a, b, sample_weight=None):
        return ref(a, b, sample_weight=sample_weight)

    kw = {"sample_weight": w, "rng": 5, "n_resamples": 40, "method": "percentile"}
    a = mlci.bootstrap_ci(*data, metric=metric, **kw)
    if metric == "roc_auc":
        # the built-in ranking kernel draws through the samples in order of score (issue
        # 20: the same replicates for any order of the rows); a function through the rows
        # as given: the same draws when the rows are given in that order
        o = np.lexsort((w, data[0], data[1]))
        b = mlci.bootstrap_ci(
            *(np.asarray(a)[o] for a in data), metric=sk, **{**kw, "sample_weight": w[o]}
        )
    else:
        b = mlci.bootstrap_ci(*data, metric=sk, **kw)
    np.testing.assert_allclose(a.bootstrap_distribution, b.bootstrap_distribution, atol=1e-12)
    assert a.estimate == pytest.approx(ref(*data, sample_weight=w), abs=1e-12)


# few positives: the AUC's class-size warning (MIN_AUC_CLASS) is tested in
# tests/engine/test_auc_few_class.py
@pytest.mark.filterwarnings(r"ignore:Only \d+ samples in the smaller class of a ROC AUC")
def test_weighted_bca_interval_is_reproducible_and_covers_the_estimate():
    import mlci

    y, _, score, _ = _binary_data()
    w = RNG.uniform(0.5, 2, N)
    r1 = mlci.bootstrap_ci(y, score, metric="roc_auc", sample_weight=w, rng=3, n_resamples=300)
    with mlci.config_context(batch=7):
        r2 = mlci.bootstrap_ci(y, score, metric="roc_auc", sample_weight=w, rng=3, n_resamples=300)
    assert r1.confidence_interval == r2.confidence_interval
    low, high = r1.confidence_interval
    assert low < r1.estimate < high


def test_sample_weight_with_dropna_drops_jointly():
    import mlci

    y, pred, _, _ = _binary_data()
    w = RNG.uniform(0.5, 2, N).astype(object)
    w[3] = None
    with pytest.raises(ValueError, match="sample_weight"):
        mlci.bootstrap_ci(y, pred, metric="accuracy", sample_weight=w, rng=0, n_resamples=50)
    res = mlci.bootstrap_ci(
        y, pred, metric="accuracy", sample_weight=w, dropna=True, rng=0, n_resamples=50
    )
    keep = np.arange(N) != 3
    assert res.details["n_dropped"] == 1
    ref = skm.accuracy_score(y[keep], pred[keep], sample_weight=w[keep].astype(float))
    assert res.estimate == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize(
    "bad,match",
    [
        (-np.ones(N), "non-negative"),
        (np.r_[np.ones(N - 1), np.nan], "sample_weight"),
        (np.r_[np.ones(N - 1), np.inf], "sample_weight"),
        (np.ones(N - 1), "sample_weight"),
        (np.zeros(N), "sums to zero"),
        (np.array(["a"] * N), "sample_weight"),
        (np.ones((N, 2)), "sample_weight"),
    ],
)
def test_bad_sample_weight_is_refused(bad, match):
    import mlci

    y, pred, _, _ = _binary_data()
    with pytest.raises((ValueError, TypeError), match=match):
        get_kernel("accuracy", (y, pred), {}, sample_weight=bad)
    with pytest.raises((ValueError, TypeError), match="sample_weight"):
        mlci.bootstrap_ci(y, pred, metric="accuracy", sample_weight=bad, n_resamples=20)


def test_sample_weight_needs_a_function_that_takes_it():
    import mlci

    y, pred, _, _ = _binary_data()
    with pytest.raises(TypeError, match="sample_weight"):
        mlci.bootstrap_ci(y, pred, metric=lambda a, b: np.mean(a == b), sample_weight=np.ones(N))


# ------------------------------------------------- scikit-learn's multiclass signatures
def _probabilities_k(n: int = N, k: int = 4, seed: int = 11):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k)) + 1.2 * np.eye(k)[y]
    prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return y, prob, rng.uniform(0.2, 2.0, n)


@pytest.mark.parametrize("multi_class", ["ovr", "ovo"])
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_multiclass_roc_auc_matches_sklearn(multi_class, average):
    # reference: sklearn.metrics.roc_auc_score(multi_class=..., average=...)
    y, prob, w = _probabilities_k()
    kw = {"multi_class": multi_class, "average": average}
    assert value("roc_auc", y, prob, **kw) == pytest.approx(
        skm.roc_auc_score(y, prob, **kw), abs=1e-12
    )
    if multi_class == "ovr":  # scikit-learn has no sample_weight for ovo
        got = _weighted_value("roc_auc", y, prob, sample_weight=w, **kw)
        assert got == pytest.approx(skm.roc_auc_score(y, prob, sample_weight=w, **kw), abs=1e-12)


def test_multiclass_roc_auc_per_class_and_string_labels():
    y, prob, _ = _probabilities_k(k=3)
    names = np.array(["ant", "bee", "cat"])[y]
    got = get_kernel("roc_auc", (names, prob), {"multi_class": "ovr", "average": None})
    assert got.elements == ("ant", "bee", "cat")
    counts = np.bincount(got.keys, minlength=got.m).astype(float)
    np.testing.assert_allclose(
        got.evaluate(counts[None])[0],
        skm.roc_auc_score(y, prob, multi_class="ovr", average=None),
        atol=1e-12,
    )


@pytest.mark.parametrize("average", ["macro", "weighted", None])
def test_multiclass_average_precision_per_class_matches_sklearn(average):
    y, prob, w = _probabilities_k()
    np.testing.assert_allclose(
        value("average_precision", y, prob, average=average),
        skm.average_precision_score(y, prob, average=average),
        atol=1e-12,
    )
    np.testing.assert_allclose(
        _weighted_value("average_precision", y, prob, sample_weight=w, average=average),
        skm.average_precision_score(y, prob, average=average, sample_weight=w),
        atol=1e-12,
    )


def _multilabel(n: int = N, k: int = 4, seed: int = 5):
    rng = np.random.default_rng(seed)
    y = (rng.random((n, k)) < 0.4).astype(int)
    y[:, 0] |= y.sum(axis=1) == 0  # every sample has a relevant label
    y[:, 1] = np.where(y.sum(axis=1) == k, 0, y[:, 1])  # and an irrelevant one
    score = 0.6 * y + rng.random((n, k))
    return y, score, (score > 0.7).astype(int), rng.uniform(0.2, 2.0, n)


@pytest.mark.parametrize("name", ["precision", "recall", "f1", "fbeta"])
@pytest.mark.parametrize("average", ["samples", "macro", "micro", "weighted", None])
def test_multilabel_decision_metrics_match_sklearn(name, average):
    # reference: sklearn's precision/recall/f1/fbeta on indicator matrices; zero_division=0
    # is scikit-learn's value for an undefined sample (mlci follows it for "samples")
    y, _, pred, w = _multilabel()
    fn = {
        "precision": skm.precision_score,
        "recall": skm.recall_score,
        "f1": skm.f1_score,
        "fbeta": skm.fbeta_score,
    }[name]
    extra = {"beta": 0.5} if name == "fbeta" else {}
    kw = {"average": average, "zero_division": 0, **extra}
    np.testing.assert_allclose(
        value(name, y, pred, average=average, **extra), fn(y, pred, **kw), atol=1e-12
    )
    np.testing.assert_allclose(
        _weighted_value(name, y, pred, sample_weight=w, average=average, **extra),
        fn(y, pred, sample_weight=w, **kw),
        atol=1e-12,
    )


def test_multilabel_subset_accuracy_matches_sklearn():
    y, _, pred, w = _multilabel()
    assert value("accuracy", y, pred) == pytest.approx(skm.accuracy_score(y, pred), abs=1e-12)
    assert _weighted_value("error_rate", y, pred, sample_weight=w) == pytest.approx(
        1 - skm.accuracy_score(y, pred, sample_weight=w), abs=1e-12
    )


@pytest.mark.parametrize("name", ["roc_auc", "average_precision"])
@pytest.mark.parametrize("average", ["macro", "weighted", "samples", None])
def test_multilabel_ranking_metrics_match_sklearn(name, average):
    y, score, _, w = _multilabel()
    fn = skm.roc_auc_score if name == "roc_auc" else skm.average_precision_score
    np.testing.assert_allclose(
        value(name, y, score, average=average), fn(y, score, average=average), atol=1e-12
    )
    np.testing.assert_allclose(
        _weighted_value(name, y, score, sample_weight=w, average=average),
        fn(y, score, average=average, sample_weight=w),
        atol=1e-12,
    )


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("rounded", [False, True])
def test_top_k_accuracy_matches_sklearn(k, rounded):
    # rounded scores: ties broken as scikit-learn (stable sort, reversed)
    y, prob, w = _probabilities_k()
    if rounded:
        prob = np.round(prob, 1)
    assert value("top_k_accuracy", y, prob, k=k) == pytest.approx(
        skm.top_k_accuracy_score(y, prob, k=k), abs=1e-12
    )
    assert _weighted_value("top_k_accuracy", y, prob, sample_weight=w, k=k) == pytest.approx(
        skm.top_k_accuracy_score(y, prob, k=k, sample_weight=w), abs=1e-12
    )


def test_top_k_accuracy_binary_and_labels():
    y, _, score, prob = _binary_data()
    assert value("top_k_accuracy", y, prob, k=1) == pytest.approx(
        skm.top_k_accuracy_score(y, prob, k=1), abs=1e-12
    )
    assert value("top_k_accuracy", y, score, k=1) == pytest.approx(
        skm.top_k_accuracy_score(y, score, k=1), abs=1e-12
    )
    y3, prob3, _ = _probabilities_k(k=4)
    keep = y3 != 2  # class 2 absent from y_true: its column kept through labels
    assert value("top_k_accuracy", y3[keep], prob3[keep], k=2, labels=[0, 1, 2, 3]) == (
        pytest.approx(
            skm.top_k_accuracy_score(y3[keep], prob3[keep], k=2, labels=[0, 1, 2, 3]), abs=1e-12
        )
    )


def test_balanced_accuracy_adjusted_matches_sklearn():
    y, pred, _ = _multiclass_data()
    w = RNG.uniform(0.2, 2, N)
    assert value("balanced_accuracy", y, pred, adjusted=True) == pytest.approx(
        skm.balanced_accuracy_score(y, pred, adjusted=True), abs=1e-12
    )
    assert _weighted_value(
        "balanced_accuracy", y, pred, sample_weight=w, adjusted=True
    ) == pytest.approx(
        skm.balanced_accuracy_score(y, pred, adjusted=True, sample_weight=w), abs=1e-12
    )


def test_multiclass_mcc_matches_sklearn_with_weights():
    # Matthews for K > 2 is Gorodkin's R_K (sklearn.metrics.matthews_corrcoef)
    y, pred, _ = _multiclass_data(k=5)
    w = RNG.uniform(0.2, 2, N)
    assert _weighted_value("mcc", y, pred, sample_weight=w) == pytest.approx(
        skm.matthews_corrcoef(y, pred, sample_weight=w), abs=1e-12
    )


@pytest.mark.parametrize("name", ["log_loss", "brier"])
def test_labels_keep_columns_of_absent_classes(name):
    y, prob, w = _probabilities_k()
    keep = y != 3
    fn = skm.log_loss if name == "log_loss" else skm.brier_score_loss
    labels = [0, 1, 2, 3]
    assert value(name, y[keep], prob[keep], labels=labels) == pytest.approx(
        fn(y[keep], prob[keep], labels=labels), abs=1e-12
    )
    assert _weighted_value(
        name, y[keep], prob[keep], sample_weight=w[keep], labels=labels
    ) == pytest.approx(fn(y[keep], prob[keep], labels=labels, sample_weight=w[keep]), abs=1e-12)
    # one probability column, one class in y_true: labels names the two classes
    ones = np.ones(30, dtype=int)
    p1 = np.linspace(0.05, 0.95, 30)
    assert value(name, ones, p1, labels=[0, 1]) == pytest.approx(
        fn(ones, p1, labels=[0, 1]), abs=1e-12
    )


# few positives: the AUC's class-size warning (MIN_AUC_CLASS) is tested in
# tests/engine/test_auc_few_class.py
@pytest.mark.filterwarnings(r"ignore:Only \d+ samples in the smaller class of a ROC AUC")
@pytest.mark.filterwarnings("ignore::mlci.FewResamplesWarning")  # 30 replicates: fast
def test_multiclass_bootstrap_equals_sklearn_on_every_replicate():
    import mlci

    y, prob, w = _probabilities_k(n=200)

    def sk(a, b, sample_weight=None):
        return skm.roc_auc_score(
            a, b, multi_class="ovr", average="weighted", sample_weight=sample_weight
        )

    kw = {"rng": 4, "n_resamples": 30, "method": "percentile", "sample_weight": w}
    a = mlci.bootstrap_ci(
        y, prob, metric="roc_auc", average="weighted", metric_kwargs={"multi_class": "ovr"}, **kw
    )
    b = mlci.bootstrap_ci(y, prob, metric=sk, **kw)
    np.testing.assert_allclose(a.bootstrap_distribution, b.bootstrap_distribution, atol=1e-12)


@pytest.mark.parametrize(
    "data,params,match",
    [
        ("mc", {}, "multi_class"),
        ("mc", {"multi_class": "nope"}, "multi_class"),
        ("mc", {"multi_class": "ovr", "average": "micro"}, "average"),
        ("mc", {"multi_class": "ovo", "average": None}, "average"),
        ("mc", {"multi_class": "ovr", "labels": [0, 1, 2]}, "labels"),
        ("mc", {"multi_class": "ovr", "labels": [3, 2, 1, 0]}, "labels"),
        ("mc", {"multi_class": "ovr", "pos_label": 1}, "pos_label"),
        ("mc-unnormalised", {"multi_class": "ovr"}, "probabilities"),
        ("mc-1d", {}, "binary labels"),
        ("ml", {"average": "nope"}, "average"),
        ("ml", {"multi_class": "ovr"}, "multi_class"),
    ],
)
def test_multiclass_roc_auc_bad_input(data, params, match):
    y, prob, _ = _probabilities_k()
    if data == "mc-unnormalised":
        prob = prob * 2
    elif data == "mc-1d":
        prob = prob[:, 0]
    elif data == "ml":
        y, prob, _, _ = _multilabel()
    with pytest.raises((ValueError, TypeError), match=match):
        get_kernel("roc_auc", (y, prob), params)


@pytest.mark.parametrize(
    "metric,data,params,match",
    [
        ("top_k_accuracy", "mc", {"k": 0}, "k"),
        ("top_k_accuracy", "mc", {"k": 1.5}, "k"),
        ("top_k_accuracy", "mc", {"labels": [0, 1]}, "labels"),
        ("balanced_accuracy", "dec", {"adjusted": "yes"}, "adjusted"),
        ("f1", "dec", {"adjusted": True}, "adjusted"),
        ("f1", "ml", {}, "average"),
        ("f1", "ml-bad", {"average": "macro"}, "indicator"),
        ("mcc", "ml", {}, "y_true"),
        ("log_loss", "mc", {"labels": [0, 1, 2, 3], "pos_label": 1}, "labels"),
        ("log_loss", "mc", {"labels": [0, 1, 2]}, "labels"),
    ],
)
def test_new_metric_options_bad_input(metric, data, params, match):
    y, prob, _ = _probabilities_k()
    args = {"mc": (y, prob), "dec": (y, np.roll(y, 1))}.get(data)
    if data == "ml":
        yy, _, pred, _ = _multilabel()
        args = (yy, pred)
    if data == "ml-bad":
        yy, _, pred, _ = _multilabel()
        args = (yy * 2, pred)
    with pytest.raises((ValueError, TypeError), match=match):
        get_kernel(metric, args, params)


def test_weight_argument_routes_a_weight_column():
    from mlci.metrics import weight_argument

    assert weight_argument("weighted_mean") == "weights"
    assert {weight_argument(m) for m in list_metrics() if m != "weighted_mean"} == {"sample_weight"}
    with pytest.raises(ValueError, match="Unknown metric"):
        weight_argument("acuracy")


def test_exact_sums_equal_the_correctly_rounded_rational_sums():
    # Reference: exact rational arithmetic (fractions.Fraction), rounded once to float.
    # ExactSums sums exactly for integer counts; only its elementwise recombination of the
    # three pieces rounds, so it is within an ulp or so of the correctly rounded sum.
    from fractions import Fraction

    from mlci.metrics import ExactSums

    rng = np.random.default_rng(3)
    for scale in (1e-3, 1.0, 1e6):
        values = rng.normal(size=(97, 2)) * scale
        w = rng.poisson(1, (9, 97)).astype(float)
        got = ExactSums(values)(w)
        want = np.array(
            [
                [
                    float(sum(Fraction(v) * int(c) for v, c in zip(values[:, j], row, strict=True)))
                    for j in (0, 1)
                ]
                for row in w
            ]
        )
        np.testing.assert_allclose(got, want, rtol=2.5e-16, atol=0)
        np.testing.assert_allclose(
            ExactSums(values[:, 0])(w[:4]), want[:4, 0], rtol=2.5e-16, atol=0
        )


def _ap_on_every_threshold(kernel, w):
    """Average precision summed over every distinct threshold, from the highest down (the
    kernel's first evaluation, kept as the reference of its faster ones)."""
    w = np.asarray(w, dtype=float)
    b = w.shape[0]
    grid, inv = np.unique(np.concatenate([kernel.u_neg, kernel.u_pos]), return_inverse=True)
    g = len(grid)
    gn, gp = g - 1 - inv[: kernel.m_neg], g - 1 - inv[kernel.m_neg :]
    tp, fp = np.zeros((b, g)), np.zeros((b, g))
    tp[:, gp] = w[:, kernel.m_neg :]
    fp[:, gn] = w[:, : kernel.m_neg]
    ints = np.array_equal(np.round(w), w)
    ctp = np.cumsum(tp.astype(np.int64) if ints else tp, axis=1)
    cfp = np.cumsum(fp.astype(np.int64) if ints else fp, axis=1)
    seen = ctp + cfp
    prec = np.where(seen > 0, ctp / np.where(seen > 0, seen, 1.0), 0.0)
    total = ctp[:, -1].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total != 0, np.einsum("ij,ij->i", tp, prec) / total, np.nan)


@pytest.mark.parametrize("seed", range(6))
def test_average_precision_kernel_is_the_threshold_sum(seed):
    # the kernel sums the precision at the positive atoms only, one exact product and one
    # division per term (issue 25); every replicate's value is the sum over every
    # threshold up to rounding: both are sums of at most m terms in [0, 1], each rounded
    # relative error below 2^-52, so they differ by less than m 2^-51 (Higham's gamma_m)
    from mlci.metrics import AveragePrecisionKernel

    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 2000))
    y = rng.integers(0, 2, n)
    y[:2] = (0, 1)
    ties = seed % 2 == 0  # scores tied within and across the classes
    score = rng.integers(0, 12, n).astype(float) if ties else rng.normal(0, 1, n) + y
    k = AveragePrecisionKernel(y, score)
    counts = np.bincount(k.keys, minlength=k.m).astype(float)
    for w in (
        rng.poisson(1.0, (5, k.m)).astype(float),  # bootstrap counts (some atoms absent)
        rng.exponential(1.0, (3, k.m)),  # fractional weights: the floating-point path
        counts[None, :],
        np.r_[counts[: k.m_neg], np.zeros(k.m - k.m_neg)][None, :],  # no positive: NaN
    ):
        got, want = k.evaluate(w), _ap_on_every_threshold(k, w)
        assert np.array_equal(np.isnan(got), np.isnan(want))
        np.testing.assert_allclose(got, want, rtol=0, atol=k.m * 2.0**-51)
    # reference: sklearn.metrics.average_precision_score with the counts as sample weights
    w = rng.poisson(1.0, k.m).astype(float)
    expected = skm.average_precision_score(y, score, sample_weight=w[k.keys] / counts[k.keys])
    assert k.evaluate(w[None, :])[0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_average_precision_by_unit_is_evaluate_on_the_gathered_weights(seed):
    # issue 25: over whole conditions the kernel reads the conditions' draw counts and
    # gathers the atoms' weights itself, in integers; every replicate (and every
    # jackknife row: units deleted) must be evaluate's on the engine's atom weights
    from mlci.metrics import AveragePrecisionKernel

    rng = np.random.default_rng(seed)
    n, n_units = int(rng.integers(200, 3000)), int(rng.integers(2, 80))
    unit = rng.integers(0, n_units, n)
    y = rng.integers(0, 2, n)
    y[:2] = (0, 1)
    score = rng.normal(0, 1, n) + y
    if seed % 2:  # ties within a condition only: atoms of several samples, one unit each
        score = np.round(score, 1) + unit * 10.0
    if seed >= 2:  # ties across conditions too: atoms with samples in several units
        score = np.round(score, 0 if seed == 3 else 1)
    k = AveragePrecisionKernel(y, score)
    uk = k.by_unit(unit, n_units)
    assert uk is not None and uk.m == n_units
    counts = np.bincount(k.keys, minlength=k.m).astype(float)
    # the engine's atom weights of whole-unit draws u: u @ table, table[c, a] = samples
    # of atom a in unit c
    table = np.zeros((n_units, k.m))
    np.add.at(table, (unit, k.keys), 1.0)
    per_unit = np.bincount(unit, minlength=n_units).astype(float)
    draws = rng.multinomial(n_units, np.full(n_units, 1 / n_units), size=6).astype(float)
    deleted = np.ones((3, n_units))
    deleted[np.arange(3), rng.integers(0, n_units, 3)] = 0.0  # jackknife rows
    no_positive = np.zeros((1, n_units))
    no_positive[0, unit[y == 0][0]] = 1.0
    for u in (draws, deleted, np.ones((1, n_units))):
        assert np.array_equal(uk.evaluate(u * per_unit), k.evaluate(u @ table))
    # a replicate with only negatives: NaN on both paths (when that unit has no positive)
    if not (y[unit == unit[y == 0][0]] == 1).any():
        assert np.isnan(uk.evaluate(no_positive * per_unit)[0])
    assert uk.evaluate(per_unit[None, :])[0] == k.evaluate(counts[None, :])[0]
    # reference: scikit-learn on the samples of the drawn conditions, repeated
    rep = np.repeat(np.arange(n), draws[0][unit].astype(int))
    expected = skm.average_precision_score(y[rep], score[rep])
    assert uk.evaluate(draws[:1] * per_unit)[0] == pytest.approx(expected, abs=1e-12)


def test_average_precision_by_unit_atoms_across_units():
    from mlci.metrics import AveragePrecisionKernel

    y = np.array([0, 1, 0, 1, 1, 0, 1])
    score = np.array([0.1, 0.9, 0.1, 0.8, 0.3, 0.2, 0.3])  # 0.1 and 0.3: atoms in 2 units
    k = AveragePrecisionKernel(y, score)
    unit = np.array([0, 0, 1, 1, 2, 2, 1])
    uk = k.by_unit(unit, 3)
    u = np.array([[2.0, 0.0, 1.0], [0.0, 1.0, 2.0], [1.0, 1.0, 1.0]])
    # the samples of the drawn units, each repeated as often as its unit is drawn
    for row, value in zip(u, uk.evaluate(u * np.bincount(unit)), strict=True):
        rep = np.repeat(np.arange(7), row[unit].astype(int))
        assert value == pytest.approx(skm.average_precision_score(y[rep], score[rep]), abs=1e-15)
    assert k.by_unit(np.arange(7), 7) is None  # no fewer units than atoms: no gain


@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")  # scores shift: ICC 0.26
@pytest.mark.parametrize("decimals", [None, 2])
def test_average_precision_over_conditions_equals_the_atom_path(monkeypatch, decimals):
    # the engine's condition bootstrap through the units' counts (by_unit) gives the
    # replicates, jackknife and interval of the atoms' weights, bit for bit (continuous
    # scores; scores tied across conditions)
    import mlci
    from mlci.metrics import AveragePrecisionKernel

    rng = np.random.default_rng(5)
    n = 3000
    cond = rng.integers(0, 40, n)
    y = rng.integers(0, 2, n)
    score = y + rng.normal(0, 0.6, 40)[cond] + rng.normal(0, 1, n)
    if decimals is not None:
        score = np.round(score, decimals)
    opts = {"metric": "average_precision", "conditions": cond, "n_resamples": 300, "rng": 3}
    opts["method"] = "bca"  # (auto: the logit jackknife interval since session 10)
    fast = mlci.bootstrap_ci(y, score, **opts)
    monkeypatch.setattr(AveragePrecisionKernel, "by_unit", lambda self, u, c: None)
    slow = mlci.bootstrap_ci(y, score, **opts)
    assert fast.method == slow.method == "bca"
    assert fast.estimate == slow.estimate
    assert tuple(fast.confidence_interval) == tuple(slow.confidence_interval)
    assert np.array_equal(fast.bootstrap_distribution, slow.bootstrap_distribution)
    assert fast.details["acceleration"] == slow.details["acceleration"]


def test_average_precision_by_unit_large_counts_take_64_bit_integers():
    # products T_p w_p beyond 2^31 (huge draw counts): the 64-bit path, the same values
    from mlci.metrics import AveragePrecisionKernel

    rng = np.random.default_rng(2)
    n, n_units = 500, 7
    unit = rng.integers(0, n_units, n)
    y = rng.integers(0, 2, n)
    y[:2] = (0, 1)
    score = rng.normal(0, 1, n) + y
    k = AveragePrecisionKernel(y, score)
    uk = k.by_unit(unit, n_units)
    table = np.zeros((n_units, k.m))
    np.add.at(table, (unit, k.keys), 1.0)
    u = rng.integers(10**6, 10**7, (3, n_units)).astype(float)
    got = uk.evaluate(u * np.bincount(unit, minlength=n_units))
    assert np.array_equal(got, k.evaluate(u @ table))
    # reference: scikit-learn with each sample weighted by its unit's count
    assert got[0] == pytest.approx(
        skm.average_precision_score(y, score, sample_weight=u[0][unit]), abs=1e-12
    )
