"""Ordinary messy input that used to give silently wrong numbers (issue 8, section 1).

Each case reproduces what a new-user trial found on the code before the input gate; it
must now be a clear error naming the argument, or the right number.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import polars as pl
import pytest
from sklearn import metrics as skm

import mlci
from mlci.data import load_example


def _object_labels_with_nan():
    y = np.array([0, 1] * 100, dtype=object)
    y[5] = np.nan
    p = np.array([0, 1] * 100)
    p[10:30:3] = 1 - p[10:30:3]  # a few errors, so that the replicates vary
    return y, p


@pytest.mark.parametrize("metric", ["accuracy", "mcc", "balanced_accuracy"])
def test_object_labels_with_nan(metric):
    # before: accuracy 0.79 (np.unique on an object array with NaN gave duplicate classes)
    y, p = _object_labels_with_nan()
    with pytest.raises(ValueError, match=r"`y_true` has 1 missing value.*row 5"):
        mlci.bootstrap_ci(y, p, metric=metric, n_resamples=50, rng=0)
    res = mlci.bootstrap_ci(
        y, p, metric=metric, dropna=True, n_resamples=50, rng=0, method="percentile"
    )
    keep = np.arange(200) != 5
    ref = {
        "accuracy": skm.accuracy_score,
        "mcc": skm.matthews_corrcoef,
        "balanced_accuracy": skm.balanced_accuracy_score,
    }[metric](y[keep].astype(int), p[keep])
    assert res.estimate == pytest.approx(ref) and res.details["n_dropped"] == 1
    assert res.n_samples == 199


def test_object_conditions_with_nan_are_refused():
    y = np.tile([0, 1], 100)
    p = np.where(np.arange(200) % 9 == 0, 1 - y, y)
    cond = np.repeat(np.arange(25), 8).astype(object)
    cond[3] = np.nan
    with pytest.raises(ValueError, match=r"`conditions` has 1 missing value"):
        mlci.bootstrap_ci(y, p, metric="accuracy", conditions=cond, n_resamples=50)
    res = mlci.bootstrap_ci(
        y,
        p,
        metric="accuracy",
        conditions=cond,
        strata=y,
        dropna=True,
        n_resamples=50,
        method="percentile",
        rng=0,
    )
    assert res.n_conditions == 25 and res.details["n_dropped"] == 1


def test_numbers_against_strings_are_refused():
    # before: accuracy 0.0 [0, 0] (scikit-learn raises)
    with pytest.raises(TypeError, match=r"`y_true` holds numbers.*`y_pred` holds strings"):
        mlci.bootstrap_ci([0, 1] * 20, ["no", "yes"] * 20, metric="accuracy")


def test_labels_mixing_types_are_refused():
    with pytest.raises(TypeError, match=r"`y_true` mixes strings and numbers"):
        mlci.bootstrap_ci([0, "1", 1, 0], [0, 1, 1, 0], metric="accuracy")


def test_labels_sharing_no_value_are_refused():
    with pytest.raises(ValueError, match=r"`y_true` and `y_pred` share no value"):
        mlci.bootstrap_ci(["pos", "neg"] * 10, ["positive", "negative"] * 10, metric="accuracy")


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
def test_pos_label_among_three_classes_is_refused(metric):
    # before: a silent one-vs-rest, while f1/precision refused
    y = np.tile([0, 1, 2], 30)
    s = (y == 2) + np.linspace(0, 1, 90)
    with pytest.raises(ValueError, match=r"needs binary labels.*binarise") as err:
        mlci.bootstrap_ci(y, s, metric=metric, pos_label=2)
    # the hint no longer suggests average='macro', which roc_auc does not take
    assert "average=" not in str(err.value)


@pytest.mark.parametrize("method", ["normal", "basic"])
@pytest.mark.parametrize("metric", ["accuracy", "precision"])
def test_normal_and_basic_intervals_stay_inside_the_range(method, metric):
    # before: accuracy 1.018, precision 1.054
    y = np.tile([0, 1], 30)
    p = y.copy()
    p[0] = 1  # one false positive in 60: accuracy and precision close to 1
    res = mlci.bootstrap_ci(y, p, metric=metric, method=method, rng=0)
    assert 0.0 <= res.confidence_interval.low <= res.confidence_interval.high <= 1.0


def test_one_sided_intervals_end_at_the_range_and_json_is_strict():
    y = np.tile([0, 1, 1, 0, 1], 20)
    p = y.copy()
    p[:7] = 1 - p[:7]
    up = mlci.bootstrap_ci(y, p, metric="accuracy", alternative="greater", rng=0)
    down = mlci.bootstrap_ci(y, p, metric="mcc", alternative="less", rng=0)
    assert up.confidence_interval.high == 1.0 and down.confidence_interval.low == -1.0
    # |y - (p + 0.5)| takes two values (0.5 and 1.5, 7 of them): resamples without spread
    # are common enough to give the t interval, with a warning (a proportion in disguise)
    with pytest.warns(mlci.NearBoundWarning, match="no spread"):
        r2 = mlci.bootstrap_ci(y, p + 0.5, metric="mae", alternative="less", rng=0)
    assert r2.confidence_interval.low == 0.0
    unbounded = mlci.bootstrap_ci(p - 0.3, metric="mean", alternative="greater", rng=0)
    assert unbounded.confidence_interval.high == np.inf
    text = unbounded.to_json()
    assert "Infinity" not in text and json.loads(text)["confidence_interval"]["high"] is None


@pytest.mark.parametrize("n_conditions", [2, 3, 12])
@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_few_conditions_warn(n_conditions, method):
    # before: no warning with two or three conditions
    y = np.tile([0, 1], 60)
    p = np.where(np.random.default_rng(1).random(120) < 0.2, 1 - y, y)
    cond = np.arange(120) % n_conditions
    with pytest.warns(mlci.FewConditionsWarning, match=rf"Only {n_conditions} conditions"):
        mlci.bootstrap_ci(
            y, p, metric="accuracy", conditions=cond, n_resamples=100, rng=0, method=method
        )


@pytest.mark.parametrize(("n_conditions", "warns"), [(2, True), (5, True), (8, False), (12, False)])
@pytest.mark.parametrize("metric", ["accuracy", "f1"])
def test_auto_warns_only_where_no_method_holds(n_conditions, warns, metric):
    # the coverage map (docs/validation.md, section 2): from 8 conditions on, the interval
    # "auto" picks holds its level; below, nothing does and the result says so
    y = np.tile([0, 1], 60)
    p = np.where(np.random.default_rng(1).random(120) < 0.2, 1 - y, y)
    cond = np.arange(120) % n_conditions
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mlci.bootstrap_ci(y, p, metric=metric, conditions=cond, n_resamples=100, rng=0)
    few = [w for w in caught if issubclass(w.category, mlci.FewConditionsWarning)]
    assert bool(few) == warns
    assert ("warning" in res.details) == warns
    if warns:
        assert f"Only {n_conditions} conditions" in str(few[0].message)


def test_brier_with_two_probability_columns_matches_scikit_learn():
    # before: 2x scikit-learn's brier_score_loss (the one-column path was right)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    q = np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, 200), 0, 1)
    two = np.column_stack([1 - q, q])
    res = mlci.bootstrap_ci(y, two, metric="brier", n_resamples=50, rng=0)
    assert res.estimate == pytest.approx(skm.brier_score_loss(y, q))
    assert res.estimate == pytest.approx(skm.brier_score_loss(y, two))
    y3 = rng.integers(0, 3, 200)
    p3 = rng.dirichlet(np.ones(3), 200)
    res3 = mlci.bootstrap_ci(y3, p3, metric="brier", n_resamples=50, rng=0)
    assert res3.estimate == pytest.approx(skm.brier_score_loss(y3, p3))


@pytest.mark.parametrize(
    "series",
    [
        lambda v: pd.Series(v, dtype=object),
        lambda v: pd.Series(v, dtype="string"),
        lambda v: pl.Series(v),
    ],
)
def test_series_with_none_in_labels_or_conditions(series):
    # before: a numpy TypeError traceback
    labels = ["a", "b"] * 20
    labels[3] = None
    cond = [f"s{i % 20}" for i in range(40)]
    with pytest.raises(ValueError, match=r"`y_true` has 1 missing value"):
        mlci.bootstrap_ci(series(labels), ["a", "b"] * 20, metric="accuracy")
    cond_bad = list(cond)
    cond_bad[7] = None
    with pytest.raises(ValueError, match=r"`conditions` has 1 missing value"):
        mlci.bootstrap_ci(
            ["a", "b"] * 20, ["a", "b"] * 20, metric="accuracy", conditions=series(cond_bad)
        )


def test_a_dataframe_and_column_names():
    d = load_example()
    res = mlci.bootstrap_ci("label", "pred", data=d, metric="accuracy", conditions="speaker", rng=0)
    ref = mlci.bootstrap_ci(
        d["label"], d["pred"], metric="accuracy", conditions=d["speaker"], rng=0
    )
    assert res.confidence_interval == ref.confidence_interval
    with pytest.raises(ValueError, match=r"`conditions`='spk' is not a column of `data`"):
        mlci.bootstrap_ci("label", "pred", data=d, metric="accuracy", conditions="spk")


def test_per_class_results_are_labelled_with_the_classes():
    d = load_example(as_frame=False)
    res = mlci.bootstrap_ci(
        d["label"],
        d["pred"],
        metric="recall",
        average=None,
        conditions=d["speaker"],
        n_resamples=200,
        rng=0,
    )
    assert res.elements == ("angry", "happy", "neutral", "sad")
    assert res.to_frame()["element"].tolist() == ["angry", "happy", "neutral", "sad"]
    assert "<table>" in res._repr_html_()


def test_another_interval_from_the_stored_replicates():
    d = load_example(as_frame=False)
    bca = mlci.bootstrap_ci(
        d["label"], d["pred"], metric="accuracy", method="bca", conditions=d["speaker"], rng=0
    )
    for method in ("percentile", "basic", "normal", "bc", "bca"):
        direct = mlci.bootstrap_ci(
            d["label"], d["pred"], metric="accuracy", conditions=d["speaker"], rng=0, method=method
        )
        again = bca.interval(method=method)
        assert again.confidence_interval == pytest.approx(direct.confidence_interval)
        assert again.method == method
    lvl = bca.interval(confidence_level=0.9, alternative="greater")
    assert lvl.confidence_interval.high == 1.0 and lvl.confidence_level == 0.9
    # the acceleration travels with the replicates: back to BCa gives the same interval
    assert bca.interval(method="percentile").interval(method="bca") == bca
    pct = mlci.bootstrap_ci(
        d["label"],
        d["pred"],
        metric="accuracy",
        conditions=d["speaker"],
        rng=0,
        method="percentile",
    )
    with pytest.raises(ValueError, match="holds no jackknife acceleration"):
        pct.interval(method="bca")


# (and the near-bound AUC rule of 20-149 samples of a class: tests/engine/test_auc_near_edge.py)
@pytest.mark.filterwarnings(r"ignore:Only \d+ samples in the smaller class of a ROC AUC")
def test_a_flat_auc_is_not_sent_to_proportion_ci():
    # before: the degenerate-interval warning suggested proportion_ci for a flat AUC
    y = np.tile([0, 1], 40)
    s = y + np.linspace(0, 0.5, 80)  # perfect separation: every replicate has AUC 1
    with pytest.warns(mlci.DegenerateIntervalWarning) as caught:
        mlci.bootstrap_ci(y, s, metric="roc_auc", n_resamples=100, rng=0, method="percentile")
    assert all("proportion_ci" not in str(w.message) for w in caught)
    with pytest.warns(mlci.DegenerateIntervalWarning, match="proportion_ci"):
        mlci.bootstrap_ci(y, y, metric="accuracy", n_resamples=100, rng=0, method="percentile")


# ------------------------------------- found by the public-API matrix (tests/test_public_api_*.py)
_Y = np.tile([0, 1], 20)
_S = np.linspace(0, 1, 40) + 0.3 * _Y
_IDS = np.array([f"r{i}" for i in range(8)])
_E, _T = np.triu_indices(8, k=1)
_TRIAL_Y = (_E // 2 == _T // 2).astype(int)
_REQUIRED_NONE = {
    # before: AttributeError 'NoneType' object has no attribute 'dtype'
    "bootstrap_ci": (lambda: mlci.bootstrap_ci(None, _Y, metric="accuracy"), "y_true"),
    # before: TypeError 'NoneType' object is not subscriptable
    "bootstrap_ci(y_score)": (lambda: mlci.bootstrap_ci(_Y, None, metric="roc_auc"), "y_score"),
    # before: "No per-sample data given." (no argument named)
    "Scores": (lambda: mlci.Scores(None, [0.1, 0.2]), "pos"),
    # before: TypeError object of type 'NoneType' has no len()
    "Scores.from_labels": (lambda: mlci.Scores.from_labels(_Y, None), "y_score"),
    # before: TypeError unsupported operand type(s) for *: 'float' and 'NoneType'
    "metric_by_group": (
        lambda: mlci.metric_by_group(_Y, None, groups=_Y, threshold=0.5),
        "y_score",
    ),
    # before: TypeError 'NoneType' object is not subscriptable
    "trial_bootstrap_ci": (
        lambda: mlci.trial_bootstrap_ci(
            _TRIAL_Y,
            None,
            enroll_ids=_IDS[_E],
            test_ids=_IDS[_T],
            speaker_of={r: i // 2 for i, r in enumerate(_IDS)},
        ),
        "y_score",
    ),
    # before: accepted (the None level was left out silently)
    "make_nested_plan": (
        lambda: mlci.make_nested_plan(40, [np.arange(40) % 20, None], n_resamples=10),
        r"levels\[1\]",
    ),
}


@pytest.mark.parametrize("name", list(_REQUIRED_NONE))
def test_a_required_array_given_as_none_is_named(name):
    call, arg = _REQUIRED_NONE[name]
    with pytest.raises(ValueError, match=rf"`{arg}` is required; got None"):
        call()


@pytest.mark.parametrize(
    ("kwargs", "exc", "pattern"),
    [
        # before: each was taken as True (a non-empty string is truthy)
        ({"dropna": "yes"}, TypeError, "`dropna` must be True or False"),
        ({"stratify": "yes"}, TypeError, "`stratify` must be True or False"),
        ({"two_stage": "no", "conditions": np.arange(40) % 20}, TypeError, "`two_stage` must be"),
        # before: TypeError 'int' object is not iterable
        ({"metric_kwargs": 2}, TypeError, "`metric_kwargs` must be a dict"),
        # before: FewConditionsWarning ("Only 1 conditions"), then an interval that never
        # varies: one condition within each stratum gives the same replicate every time
        (
            {"conditions": np.zeros(40), "strata": np.arange(40) % 2},
            ValueError,
            "`conditions` has a single distinct value",
        ),
    ],
)
def test_flags_metric_kwargs_and_a_single_condition(kwargs, exc, pattern):
    fields = {k: v for k, v in kwargs.items() if k in ("stratify", "two_stage")}
    if fields:  # a field of mlci.Resampling: refused when the Resampling is built
        with pytest.raises(exc, match=pattern):
            mlci.Resampling(**fields)
        return
    with pytest.raises(exc, match=pattern):
        mlci.bootstrap_ci(_Y, _Y, metric="accuracy", n_resamples=20, rng=0, **kwargs)


def test_messages_name_the_argument_in_backticks():
    # before: "Option(s) pos_label do not apply..." and "Unknown option(s) ['rate'] ...":
    # the command line rewrites `name` to its option, a bare name stayed as it was
    with pytest.raises(ValueError, match="Option\\(s\\) `pos_label` do not apply"):
        mlci.bootstrap_ci(_Y, _Y, metric="accuracy", pos_label=1)
    sc = mlci.Scores.from_labels(_Y, _S)
    with pytest.raises(TypeError, match="Unknown option\\(s\\) `rate` for metric 'fnr'"):
        sc.bootstrap_ci("fnr", threshold=0.5, rate=0.1, n_resamples=20)
    # before: "every sample has the same class" / "a single speaker" named no argument
    with pytest.raises(ValueError, match="every sample of `y_true` has the same class"):
        mlci.metric_by_group([1, 1], [0.1, 0.2], groups=["a", "b"], threshold=0.5)
    with pytest.raises(ValueError, match=r"\(`enroll_ids`, `test_ids`\) involve a single"):
        mlci.trial_bootstrap_ci([1], [0.5], enroll_ids=["a"], test_ids=["b"],
                                speaker_of={"a": 0, "b": 0})  # fmt: skip
