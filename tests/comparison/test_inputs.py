"""Bad inputs to every public function of mlci.comparison: refused by the input gate with a
message naming the argument, or (``dropna=True``) dropped and counted.

Each function is called through a small adapter that takes the same named per-sample
arguments (``y_true``, the first and second system's outputs, ``conditions``, ``strata``)
and the options, so that one matrix of bad inputs covers all five.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from sklearn.metrics import accuracy_score

import mlci
from mlci.comparison.paired import compare
from mlci.comparison.permutation import permutation_test
from mlci.protocols.learners import compare_methods, evaluate_method, pooled_ci

N = 120
_rng = np.random.default_rng(0)
Y = _rng.integers(0, 2, N)
A = np.where(_rng.random(N) < 0.85, Y, 1 - Y)
B = np.where(_rng.random(N) < 0.75, Y, 1 - Y)
SPK = np.arange(N) % 12
SES = np.arange(N) % 3


def _compare(y, a, b, **kw):
    return compare(y, {"A": a, "B": b}, metric="accuracy", n_resamples=50, rng=0, **kw)


def _permutation(y, a, b, **kw):
    kw.pop("strata", None)
    for k in ("confidence_level", "method"):
        kw.pop(k, None)
    return permutation_test(y, a, b, metric="accuracy", n_resamples=50, rng=0, **kw)


def _pooled(y, a, b, **kw):
    kw.pop("method", None)
    return pooled_ci(y, [a, b], metric="accuracy", n_resamples=50, rng=0, **kw)


def _compare_methods(y, a, b, **kw):
    kw.pop("method", None)
    return compare_methods(y, [a], [b], metric="accuracy", n_resamples=50, rng=0, **kw)


def _evaluate(y, a, b, **kw):
    kw.pop("method", None)
    outs = [a, b]
    return evaluate_method(
        lambda idx, seed: outs[seed],
        10,
        y,
        seeds=[0, 1],
        metric="accuracy",
        n_resamples=50,
        rng=0,
        **kw,
    )


# (adapter, name of the first output in messages, name of the second)
FUNCTIONS = {
    "compare": (_compare, "systems['A']", "systems['B']", "y_true"),
    "permutation_test": (_permutation, "y_pred_a", "y_pred_b", "y_true"),
    "pooled_ci": (_pooled, "runs[0]", "runs[1]", "y_true"),
    "compare_methods": (_compare_methods, "runs_a[0]", "runs_b[0]", "y_true"),
    "evaluate_method": (_evaluate, "predictions of run 0", "predictions of run 1", "y_test"),
}


def _with_missing(x, kind):
    """A copy of ``x`` with one missing entry (row 7), as numpy/pandas/polars give it."""
    if kind == "nan":
        out = np.asarray(x, dtype=float).copy()
        out[7] = np.nan
        return out
    if kind == "object-nan":  # the case: object labels with a float NaN
        out = np.asarray(x, dtype=object).copy()
        out[7] = np.nan
        return out
    if kind == "none-list":
        out = list(np.asarray(x).tolist())
        out[7] = None
        return out
    if kind == "pd-na":
        return pd.Series(pd.array([*np.asarray(x)[:7], None, *np.asarray(x)[8:]], dtype="Int64"))
    if kind == "pd-str-none":
        s = pd.Series([str(v) for v in np.asarray(x)], dtype=object)
        s[7] = None
        return s
    if kind == "polars-none":
        vals = [int(v) for v in np.asarray(x)]
        vals[7] = None
        return pl.Series(vals)
    if kind == "arrow-null":
        vals = [int(v) for v in np.asarray(x)]
        vals[7] = None
        return pa.array(vals)
    raise AssertionError(kind)


MISSING = ["nan", "object-nan", "none-list", "pd-na", "polars-none", "arrow-null"]


def _args(which, value):
    args = {"y": Y, "a": A, "b": B}
    args[which] = value
    return args


@pytest.mark.parametrize("fn", FUNCTIONS)
@pytest.mark.parametrize("which", ["y", "a", "b"])
@pytest.mark.parametrize("kind", MISSING)
def test_missing_values_refused_naming_the_argument(fn, which, kind):
    call, name_a, name_b, name_y = FUNCTIONS[fn]
    name = {"y": name_y, "a": name_a, "b": name_b}[which]
    args = _args(which, _with_missing({"y": Y, "a": A, "b": B}[which], kind))
    with pytest.raises(ValueError, match=rf"`{_re(name)}` has 1 missing value.*row 7"):
        call(args["y"], args["a"], args["b"])


@pytest.mark.parametrize("fn", FUNCTIONS)
@pytest.mark.parametrize("which", ["y", "a", "b"])
def test_dropna_drops_jointly_and_counts(fn, which):
    call = FUNCTIONS[fn][0]
    args = _args(which, _with_missing({"y": Y, "a": A, "b": B}[which], "object-nan"))
    res = call(args["y"], args["a"], args["b"], dropna=True)
    assert res.details["n_dropped"] == 1
    keep = np.arange(N) != 7
    ref = call(Y[keep], A[keep], B[keep])
    assert res.details["n_dropped"] == 1 and ref.details["n_dropped"] == 0
    assert _estimate(res) == pytest.approx(_estimate(ref))


def _estimate(res):
    if hasattr(res, "systems"):
        return res.difference("A", "B").estimate
    return res.estimate


def _re(s):
    import re

    return re.escape(s)


@pytest.mark.parametrize("fn", FUNCTIONS)
@pytest.mark.parametrize(
    "arg,kind",
    [("conditions", "none-list"), ("conditions", "pd-str-none"), ("strata", "nan")],
)
def test_missing_conditions_and_strata(fn, arg, kind):
    call = FUNCTIONS[fn][0]
    if fn == "permutation_test" and arg == "strata":
        pytest.skip("the permutation test swaps outputs; it has no strata")
    value = _with_missing(SPK if arg == "conditions" else Y, kind)
    with pytest.raises(ValueError, match=f"`{arg}` has 1 missing"):
        call(Y, A, B, **{arg: value})


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_nested_condition_level_with_none(fn):
    call = FUNCTIONS[fn][0]
    ses = _with_missing(SES, "none-list")
    with pytest.raises(ValueError, match=r"`conditions\[1\]` has 1 missing"):
        call(Y, A, B, conditions=[SPK, ses])


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_mismatched_lengths(fn):
    call, _, name_b, _ = FUNCTIONS[fn]
    with pytest.raises(ValueError, match=rf"`{_re(name_b)}` has {N - 1} samples"):
        call(Y, A, B[:-1])
    with pytest.raises(ValueError, match="`conditions` has 10 samples"):
        call(Y, A, B, conditions=SPK[:10])


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_empty_and_single_sample(fn):
    call, _, _, name_y = FUNCTIONS[fn]
    with pytest.raises(ValueError, match=f"`{name_y}` is empty"):
        call(Y[:0], A[:0], B[:0])
    with pytest.raises(ValueError, match=f"`{name_y}` has 1 sample"):
        call(Y[:1], A[:1], B[:1])


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_labels_and_predictions_of_different_types(fn):
    # the issue: labels 0/1 with predictions "yes"/"no" gave accuracy 0.0 silently
    call, name_a, _, name_y = FUNCTIONS[fn]
    words = np.where(A == 1, "yes", "no")
    with pytest.raises(TypeError, match=rf"`{name_y}` holds numbers.*`{_re(name_a)}` holds str"):
        call(Y, words, B)
    mixed = np.array([0, "a"] * (N // 2), dtype=object)
    with pytest.raises(TypeError, match=f"`{name_y}` mixes strings and numbers"):
        call(mixed, A, B)


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_wrong_dtype_and_shape(fn):
    call, name_a, _, _ = FUNCTIONS[fn]
    with pytest.raises(ValueError, match=rf"`{_re(name_a)}` must be 1-d"):
        call(Y, np.column_stack([A, A]), B)
    with pytest.raises(TypeError, match=rf"`{_re(name_a)}` holds values of type object"):
        call(Y, np.array([object()] * N), B)


OPTION_CASES = [
    ({"confidence_level": 95}, "confidence_level.*percentage"),
    ({"confidence_level": 1.5}, "confidence_level"),
    ({"confidence_level": "0.95"}, "confidence_level"),
    ({"alternative": "one-sided"}, "alternative"),
    ({"rng": -1}, "rng"),
    ({"rng": "seed"}, "rng"),
    ({"dropna": "yes"}, "dropna"),
]


@pytest.mark.parametrize("fn", FUNCTIONS)
@pytest.mark.parametrize("kw,pattern", OPTION_CASES)
def test_bad_options(fn, kw, pattern):
    call = FUNCTIONS[fn][0]
    if fn == "permutation_test" and "confidence_level" in kw:
        pytest.skip("a test has no confidence level")
    with pytest.raises((ValueError, TypeError), match=pattern):
        call(Y, A, B, **kw)


@pytest.mark.parametrize("fn", FUNCTIONS)
def test_good_level_accepted(fn):
    call = FUNCTIONS[fn][0]
    kw = {} if fn == "permutation_test" else {"confidence_level": 0.95}
    assert call(Y, A, B, **kw).details["n_dropped"] == 0


@pytest.mark.parametrize(
    "call",
    [
        lambda **k: compare(Y, {"A": A, "B": B}, n_resamples=50, **k),
        lambda **k: permutation_test(Y, A, B, n_resamples=50, **k),
        lambda **k: pooled_ci(Y, [A, B], n_resamples=50, **k),
        lambda **k: compare_methods(Y, [A], [B], n_resamples=50, **k),
        lambda **k: evaluate_method(lambda i, s: A, 10, Y, seeds=1, n_resamples=50, **k),
    ],
)
def test_bad_metric_and_metric_options(call):
    with pytest.raises(TypeError, match="`metric`"):
        call(metric=3)
    with pytest.raises(ValueError, match="Unknown metric 'acuracy'"):
        call(metric="acuracy")
    with pytest.raises(ValueError, match="`pos_label` and `average`"):
        call(metric=accuracy_score, pos_label=1)
    with pytest.raises(TypeError, match="`metric_kwargs`"):
        call(metric="fbeta", metric_kwargs=2)
    with pytest.raises(ValueError, match=r"`y_(true|test)=None`"):
        call(metric="mean")


def test_compare_specific_inputs():
    with pytest.raises(TypeError, match="`systems` must be a dict"):
        compare(Y, [A, B], metric="accuracy")
    with pytest.raises(ValueError, match="at least 2 systems"):
        compare(Y, {"A": A}, metric="accuracy")
    with pytest.raises(ValueError, match="`systems\\['B'\\]` is required"):
        compare(Y, {"A": A, "B": None}, metric="accuracy")
    with pytest.raises(ValueError, match=r"`reference`='Z' is not among the systems"):
        compare(Y, {"A": A, "B": B}, metric="accuracy", reference="Z")
    for kw, pattern in [
        ({"correction": "tukey"}, "`correction`"),
        ({"method": "wilson"}, "`method`"),
        ({"resampling": {"weights": "uniform"}}, "`resampling`"),
        ({"resampling": mlci.Resampling(sampler=np.ones)}, "does not offer `sampler`"),
        ({"n_resamples": 1}, "`n_resamples`"),
        ({"higher_is_better": "yes"}, "`higher_is_better`"),
    ]:
        with pytest.raises((ValueError, TypeError), match=pattern):
            compare(Y, {"A": A, "B": B}, metric="accuracy", **kw)
    with pytest.raises(ValueError, match="scalar metric"):
        compare(Y, {"A": A, "B": B}, metric="recall", average=None)
    # weighted_mean takes its weights as y_true: saying so when they are missing
    with pytest.raises(ValueError, match="`y_true`: the per-sample weights"):
        compare(None, {"A": A * 1.0, "B": B * 1.0}, metric="weighted_mean")


def test_permutation_specific_inputs():
    with pytest.raises(ValueError, match="`y_pred_a` and `y_pred_b` must have the same shape"):
        permutation_test(Y, A, np.column_stack([B, B]), metric=accuracy_score)
    with pytest.raises(ValueError, match="`n_resamples`"):
        permutation_test(Y, A, B, metric="accuracy", n_resamples=0)
    with pytest.raises(ValueError, match="`conditions` has a single distinct value"):
        permutation_test(Y, A, B, metric="accuracy", conditions=np.zeros(N))


def test_methods_specific_inputs():
    with pytest.raises(ValueError, match="`runs` is empty"):
        pooled_ci(Y, [], metric="accuracy")
    with pytest.raises(TypeError, match="`runs` must be a list"):
        pooled_ci(Y, 3, metric="accuracy")
    with pytest.raises(ValueError, match=r"`runs\['b'\]` has 1 missing"):
        pooled_ci(Y, {"a": A, "b": _with_missing(B, "nan")}, metric="accuracy")
    with pytest.raises(ValueError, match="`matched=True` pairs the runs"):
        compare_methods(Y, [A, B], [A], metric="accuracy", matched=True)
    with pytest.raises(TypeError, match="`matched`"):
        compare_methods(Y, [A], [B], metric="accuracy", matched="yes")
    with pytest.raises(ValueError, match="pass `X_train`"):
        evaluate_method(_Estimator(), 10, Y, metric="accuracy")
    with pytest.raises(TypeError, match="`train_and_predict` must be"):
        evaluate_method(3, 10, Y, metric="accuracy")
    for kw, pattern in [
        ({"n_train_resamples": -1}, "`n_train_resamples`"),
        ({"n_train": 0}, "`n_train`"),
        ({"seeds": []}, "`seeds` is empty"),
        ({"seeds": [1.5]}, "`seeds`"),
        ({"seeds": "1"}, "`seeds`"),
        ({"response": "predict_log"}, "`response`"),
    ]:
        args = {"n_train": 10, **kw}
        with pytest.raises((ValueError, TypeError), match=pattern):
            evaluate_method(lambda i, s: A, args.pop("n_train"), Y, metric="accuracy", **args)


def test_evaluate_method_checks_test_data_before_training():
    calls = []

    def tp(idx, seed):
        calls.append(seed)
        return A

    with pytest.raises(ValueError, match="`y_test` has 1 missing"):
        evaluate_method(tp, 10, _with_missing(Y, "object-nan"), metric="accuracy")
    with pytest.raises(ValueError, match="`conditions` has 1 missing"):
        evaluate_method(tp, 10, Y, metric="accuracy", conditions=_with_missing(SPK, "nan"))
    assert calls == []


class _Estimator:
    def fit(self, x, y):
        return self
