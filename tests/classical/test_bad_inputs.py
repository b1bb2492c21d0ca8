"""Bad inputs to every public function of mlci.classical: refused by mlci, argument named.

One registry holds a good call of every public function of the classical toolbox; a new
public function that is not in it fails ``test_registry_covers_every_public_function``.
Per-sample arguments (labels, scores, per-sample correctness) are checked for missing
values in every form (NaN, None, object NaN, pandas NA, polars and Arrow nulls), with
``dropna=True`` dropping exactly the bad sample; tables of fold or data-set scores,
counts and p-values are refused when they hold a missing value.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import mlci
from _helpers import CV5X2_A, CV5X2_B, DATASETS, FOLDS_A, FOLDS_B, PVALUES, TABLE
from mlci.classical import (
    auc,
    corrections,
    multiple_datasets,
    planning,
    proportions,
    significance,
)

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

BAD = (ValueError, TypeError)

# ----------------------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------------------
N = 20
Y = np.array([0, 1] * (N // 2))
SA = np.round(np.arange(N) / N + 0.3 * Y, 3)
SB = np.round(((np.arange(N) * 7) % N) / N + 0.2 * Y, 3)
PA = Y.copy()
PA[[0, 3, 8]] = 1 - PA[[0, 3, 8]]
PB = Y.copy()
PB[[1, 4, 5, 9, 12]] = 1 - PB[[1, 4, 5, 9, 12]]
CA, CB = PA == Y, PB == Y

LABEL_ARGS = {"y_true", "y_true_a", "y_true_b", "y_pred_a", "y_pred_b", "correct_a", "correct_b"}

# name -> (good keyword arguments, per-sample groups of aligned arguments)
PER_SAMPLE = {
    "delong_ci": ({"y_true": Y, "y_score": SA}, [["y_true", "y_score"]]),
    "hanley_mcneil_ci": ({"y_true": Y, "y_score": SA}, [["y_true", "y_score"]]),
    "delong_test": (
        {"y_true": Y, "y_score_a": SA, "y_score_b": SB},
        [["y_true", "y_score_a", "y_score_b"]],
    ),
    "delong_test_independent": (
        {"y_true_a": Y, "y_score_a": SA, "y_true_b": Y, "y_score_b": SB},
        [["y_true_a", "y_score_a"], ["y_true_b", "y_score_b"]],
    ),
    "mcnemar_test": (
        {"y_true": Y, "y_pred_a": PA, "y_pred_b": PB},
        [["y_true", "y_pred_a", "y_pred_b"]],
    ),
    "paired_table": ({"correct_a": CA, "correct_b": CB}, [["correct_a", "correct_b"]]),
    "paired_ttest_chunks": (
        {"scores_a": SA, "scores_b": SB, "n_chunks": 2},
        [["scores_a", "scores_b"]],
    ),
}

# name -> (good keyword arguments, arguments that are tables/counts/p-values)
TABLES = {
    "proportion_ci": ({"k": [8, 3], "n": [10, 10]}, ["k", "n"]),
    "proportion_diff_ci": (
        {"k1": [8, 5], "n1": 10, "k2": [3, 5], "n2": 10},
        ["k1", "n1", "k2", "n2"],
    ),
    "paired_proportion_diff_ci": ({"table": TABLE}, ["table"]),
    "hanley_mcneil_se": (
        {"auc": [0.8, 0.7], "n_positive": 10, "n_negative": 12},
        ["auc", "n_positive", "n_negative"],
    ),
    "kfold_cv_ttest": ({"scores_a": FOLDS_A, "scores_b": FOLDS_B}, ["scores_a", "scores_b"]),
    "cv_5x2_ttest": ({"scores_a": CV5X2_A, "scores_b": CV5X2_B}, ["scores_a", "scores_b"]),
    "cv_5x2_ftest": ({"scores_a": CV5X2_A, "scores_b": CV5X2_B}, ["scores_a", "scores_b"]),
    "corrected_resampled_ttest": (
        {"scores_a": FOLDS_A, "scores_b": FOLDS_B, "n_train": 90, "n_test": 10},
        ["scores_a", "scores_b"],
    ),
    "sign_test": ({"scores_a": FOLDS_A, "scores_b": FOLDS_B}, ["scores_a", "scores_b"]),
    "wilcoxon_test": ({"scores_a": FOLDS_A, "scores_b": FOLDS_B}, ["scores_a", "scores_b"]),
    "friedman_test": ({"scores": DATASETS}, ["scores"]),
    "nemenyi_test": ({"scores": DATASETS}, ["scores"]),
    "bonferroni_dunn_test": ({"scores": DATASETS}, ["scores"]),
    "holm_test": ({"scores": DATASETS}, ["scores"]),
    "critical_difference": ({"scores": DATASETS}, ["scores"]),
    "adjust_pvalues": ({"pvalues": PVALUES}, ["pvalues"]),
    "reject_hypotheses": ({"pvalues": PVALUES}, ["pvalues"]),
}
TABLES["mcnemar_test(table)"] = ({"table": TABLE}, ["table"])

# name -> (good keyword arguments, numeric scalar arguments)
PLANNING = {
    "sample_size_proportion": ({"width": 0.1, "expected": 0.8}, ["width", "expected"]),
    "sample_size_mcnemar": (
        {"difference": 0.05, "discordance": 0.15, "power": 0.8, "alpha": 0.05},
        ["difference", "discordance", "power", "alpha"],
    ),
    "power_mcnemar": (
        {"n_samples": 500, "difference": 0.05, "discordance": 0.15, "alpha": 0.05},
        ["n_samples", "difference", "discordance", "alpha"],
    ),
    "sample_size_auc": (
        {"auc": 0.8, "auc_null": 0.7, "ratio": 1.0, "power": 0.8, "alpha": 0.05},
        ["auc", "auc_null", "ratio", "power", "alpha"],
    ),
    "power_auc": (
        {"auc": 0.8, "n_positive": 50, "n_negative": 50, "auc_null": 0.7, "alpha": 0.05},
        ["auc", "n_positive", "n_negative", "auc_null", "alpha"],
    ),
    "sample_size_auc_difference": (
        {"auc1": 0.75, "auc2": 0.85, "correlation": 0.5, "ratio": 1.0, "power": 0.8},
        ["auc1", "auc2", "correlation", "ratio", "power"],
    ),
    "power_auc_difference": (
        {"auc1": 0.75, "auc2": 0.85, "n_positive": 80, "n_negative": 80, "correlation": 0.5},
        ["auc1", "auc2", "n_positive", "n_negative", "correlation"],
    ),
}

SKLEARN = ("paired_cv_scores", "compare_estimators")  # tested in their own tests below


def _fn(name: str):
    return getattr(mlci, name.split("(")[0])


def _good(name: str) -> dict:
    for reg in (PER_SAMPLE, TABLES, PLANNING):
        if name in reg:
            return dict(reg[name][0])
    raise KeyError(name)


def test_registry_covers_every_public_function():
    modules = {m.__name__ for m in (auc, corrections, multiple_datasets, planning, proportions,
                                    significance)}  # fmt: skip
    public = {
        n
        for n in mlci.__all__
        if inspect.isfunction(getattr(mlci, n)) and getattr(mlci, n).__module__ in modules
    }
    covered = {n.split("(")[0] for reg in (PER_SAMPLE, TABLES, PLANNING) for n in reg}
    assert public - covered - set(SKLEARN) == set()


ALL_CALLS = sorted({*PER_SAMPLE, *TABLES, *PLANNING})


@pytest.mark.parametrize("name", ALL_CALLS)
def test_good_call_runs(name):
    _fn(name)(**_good(name))


# ----------------------------------------------------------------------------------------
# options every function shares: checked from the signatures
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL_CALLS)
def test_options_refused(name):
    fn, good = _fn(name), _good(name)
    params = inspect.signature(fn).parameters
    if "confidence_level" in params:
        fn(**good, confidence_level=0.95)
        for bad in (95, 1.5, 0, "0.95", None):
            with pytest.raises(BAD, match="confidence_level"):
                fn(**good, confidence_level=bad)
    if "alternative" in params:
        for bad in ("one-sided", "two_sided", None):
            with pytest.raises(BAD, match="alternative"):
                fn(**good, alternative=bad)
    if "alpha" in params:
        for bad in (5, 0.0, 1.0, "0.05", None):
            kw = {**good, "alpha": bad}
            with pytest.raises(BAD, match="alpha"):
                fn(**kw)
    if "dropna" in params:
        with pytest.raises(TypeError, match="dropna"):
            fn(**good, dropna="yes")
    if "clip" in params:  # proportion intervals: clip Wald / Agresti-Coull or not
        fn(**good, clip=False)
        for bad in ("yes", 1, None):
            with pytest.raises(TypeError, match="`clip` must be True or False"):
                fn(**good, clip=bad)
    if "rng" in params:
        for bad in ("seed", -1, 1.5):
            with pytest.raises(BAD, match="rng"):
                fn(**good, rng=bad)
    for opt in ("method", "variant", "correction", "ties", "zero_method", "test"):
        if opt in params:
            with pytest.raises(ValueError, match=f"`{opt}` must be one of"):
                fn(**good, **{opt: "no-such-option"})
    if "higher_is_better" in params:
        with pytest.raises(TypeError, match="higher_is_better"):
            fn(**good, higher_is_better="yes")


# ----------------------------------------------------------------------------------------
# per-sample data: missing values in every form, lengths, empty, dtype
# ----------------------------------------------------------------------------------------
def _missing(value: np.ndarray, form: str, i: int, label: bool):
    vals = value.tolist()
    if form == "float-nan":
        arr = np.array(value, dtype=float)  # a copy: the module's data stay intact
        arr[i] = np.nan
        return arr
    if form == "object-nan":
        arr = np.array(value, dtype=object)
        arr[i] = np.nan
        return arr
    if form == "none-list":
        vals[i] = None
        return vals
    if form == "pandas-na":
        vals[i] = pd.NA
        dtype = "boolean" if value.dtype == bool else ("Int64" if label else "Float64")
        return pd.Series(vals, dtype=dtype)
    if form == "polars-null":
        vals[i] = None
        return pl.Series(vals)
    if form == "pyarrow-null":
        vals[i] = None
        return pa.array(vals)
    raise AssertionError(form)


FORMS = ("float-nan", "object-nan", "none-list", "pandas-na", "polars-null", "pyarrow-null")
PER_SAMPLE_ARGS = [(name, arg) for name, (_, groups) in PER_SAMPLE.items()
                   for g in groups for arg in g]  # fmt: skip


def _summary(res):
    if isinstance(res, np.ndarray):
        return res.tolist()
    out = (res.estimate, getattr(res, "pvalue", None), getattr(res, "statistic", None))
    return [x for x in out if x is not None]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("name", "arg"), PER_SAMPLE_ARGS)
def test_per_sample_missing_values(name, arg, form):
    fn = _fn(name)
    good, groups = PER_SAMPLE[name]
    i = 6
    kw = dict(good)
    kw[arg] = _missing(np.asarray(good[arg]), form, i, arg in LABEL_ARGS)
    with pytest.raises(ValueError, match=rf"`{arg}` has 1 missing value.*row 6.*dropna=True"):
        fn(**kw)
    res = fn(**kw, dropna=True)
    group = next(g for g in groups if arg in g)
    clean = {k: (np.delete(np.asarray(v), i) if k in group else v) for k, v in good.items()}
    expected = fn(**clean)
    if name == "paired_table":
        assert res.sum() == N - 1  # the table counts the samples kept
    else:
        assert res.details["n_dropped"] == 1
    np.testing.assert_allclose(_summary(res), _summary(expected), rtol=1e-12)


@pytest.mark.parametrize(("name", "arg"), PER_SAMPLE_ARGS)
def test_per_sample_shape_and_dtype(name, arg):
    fn = _fn(name)
    good, groups = PER_SAMPLE[name]
    group = next(g for g in groups if arg in g)
    # mismatched lengths
    with pytest.raises(ValueError, match=f"`{arg}`"):
        fn(**{**good, arg: np.asarray(good[arg])[:-1]})
    # 2-d where 1-d is needed
    with pytest.raises(ValueError, match=f"`{arg}` must be 1-d"):
        fn(**{**good, arg: np.column_stack([good[arg], good[arg]])})
    # empty: every aligned argument empty
    with pytest.raises(ValueError, match="is empty"):
        fn(**{**good, **{k: np.asarray(good[k])[:0] for k in group}})
    # wrong type
    if arg in LABEL_ARGS:
        mixed = np.asarray(good[arg], dtype=object)
        mixed[2] = "yes"
        with pytest.raises(TypeError, match=f"`{arg}` mixes strings and numbers"):
            fn(**{**good, arg: mixed})
    else:
        with pytest.raises(TypeError, match=f"`{arg}` must hold numbers"):
            fn(**{**good, arg: np.asarray(good[arg]).astype(str)})
        with pytest.raises(TypeError, match=f"`{arg}` holds values of type dict"):
            fn(**{**good, arg: [{"a": 1}] * N})
    # None where the argument is required
    if name != "mcnemar_test":  # None there means "use `table`": tested with McNemar
        with pytest.raises(ValueError, match=f"`{arg}` is required"):
            fn(**{**good, arg: None})


@pytest.mark.parametrize("name", ["delong_ci", "hanley_mcneil_ci", "delong_test",
                                  "delong_test_independent", "paired_ttest_chunks"])  # fmt: skip
def test_per_sample_one_element_is_not_enough(name):
    good, groups = PER_SAMPLE[name]
    one = {k: (np.asarray(v)[:1] if any(k in g for g in groups) else v) for k, v in good.items()}
    with pytest.raises(ValueError, match=r"at least 2 positives|`n_chunks`=2 exceeds"):
        _fn(name)(**one)


def test_per_sample_from_a_dataframe():
    for lib in (pd.DataFrame, pl.DataFrame):
        df = lib({"label": Y, "a": SA, "b": SB, "pa": PA, "pb": PB})
        assert mlci.delong_ci("label", "a", data=df).estimate == mlci.delong_ci(Y, SA).estimate
        r = mlci.delong_test("label", "a", "b", data=df)
        assert r.statistic == mlci.delong_test(Y, SA, SB).statistic
        r = mlci.mcnemar_test(y_true="label", y_pred_a="pa", y_pred_b="pb", data=df)
        assert r.pvalue == mlci.mcnemar_test(y_true=Y, y_pred_a=PA, y_pred_b=PB).pvalue
        r = mlci.paired_ttest_chunks("a", "b", n_chunks=4, data=df)
        assert r.statistic == mlci.paired_ttest_chunks(SA, SB, n_chunks=4).statistic
        with pytest.raises(ValueError, match="`y_score`='nope' is not a column of `data`"):
            mlci.delong_ci("label", "nope", data=df)


# ----------------------------------------------------------------------------------------
# tables, counts and p-values: a missing entry is refused (never dropped)
# ----------------------------------------------------------------------------------------
def _table_missing(value, form):
    arr = np.asarray(value, dtype=float)
    if arr.ndim == 0:
        return {"nan": np.nan, "none": None, "pd.NA": pd.NA}[form]
    obj = arr.astype(object)
    obj.flat[1] = {"nan": np.nan, "none": None, "pd.NA": pd.NA}[form]
    if form == "pd.NA":
        return pd.DataFrame(obj) if obj.ndim == 2 else pd.Series(obj)
    return obj.tolist() if form == "none" else obj


TABLE_ARGS = [(name, arg) for name, (_, args) in TABLES.items() for arg in args]


@pytest.mark.parametrize("form", ["nan", "none", "pd.NA"])
@pytest.mark.parametrize(("name", "arg"), TABLE_ARGS)
def test_tables_missing_values(name, arg, form):
    good, _ = TABLES[name]
    with pytest.raises(BAD, match=f"`{arg}`"):
        _fn(name)(**{**good, arg: _table_missing(good[arg], form)})


@pytest.mark.parametrize(("name", "arg"), TABLE_ARGS)
def test_tables_dtype_empty_infinite(name, arg):
    fn = _fn(name)
    good, _ = TABLES[name]
    value = np.asarray(good[arg], dtype=float)
    with pytest.raises(TypeError, match=f"`{arg}`"):
        fn(**{**good, arg: value.astype(str) if value.ndim else "8"})
    with pytest.raises(BAD, match=f"`{arg}`"):
        fn(**{**good, arg: []})
    inf = value.copy()
    inf.flat[0] = np.inf
    with pytest.raises(ValueError, match=f"`{arg}`"):
        fn(**{**good, arg: inf if inf.ndim else float(inf)})
    if value.ndim:
        with pytest.raises(ValueError, match=f"`{arg}` must be a rectangular array"):
            fn(**{**good, arg: [[1, 2], [3]]})


@pytest.mark.parametrize(
    "name", ["kfold_cv_ttest", "cv_5x2_ttest", "cv_5x2_ftest", "corrected_resampled_ttest",
             "sign_test", "wilcoxon_test"],
)  # fmt: skip
def test_two_tables_mismatch_and_one_element(name):
    fn = _fn(name)
    good, _ = TABLES[name]
    with pytest.raises(ValueError, match="`scores_a` and `scores_b`"):
        fn(**{**good, "scores_b": np.asarray(good["scores_b"])[:-1]})
    one = (slice(0, 1),) * np.ndim(good["scores_a"])  # one fold (one repetition of one)
    with pytest.raises(ValueError, match="`scores_a` and `scores_b`"):
        fn(**{**good, "scores_a": np.asarray(good["scores_a"])[one],
              "scores_b": np.asarray(good["scores_b"])[one]})  # fmt: skip


@pytest.mark.parametrize(
    "name", ["friedman_test", "nemenyi_test", "bonferroni_dunn_test", "holm_test",
             "critical_difference"],
)  # fmt: skip
def test_data_set_tables(name):
    fn = _fn(name)
    with pytest.raises(ValueError, match="at least 2 data sets"):
        fn(DATASETS[:1])
    with pytest.raises(ValueError, match="at least 2 methods"):
        fn(DATASETS[:, :1])
    with pytest.raises(ValueError, match="`scores` must be 2-d"):
        fn(DATASETS[:, 0])
    with pytest.raises(ValueError, match="`names` must have one entry per method"):
        fn(DATASETS, names=["a", "b"])
    with pytest.raises(ValueError, match="`names` must be distinct"):
        fn(DATASETS, names=["a", "b", "a", "c"])
    with pytest.raises(TypeError, match="`names` must be a sequence"):
        fn(DATASETS, names="abcd")
    # pandas, polars and pyarrow tables give their column names
    cols = ["w", "x", "y", "z"]
    ref = fn(pd.DataFrame(DATASETS, columns=cols))
    arrow = pa.table(dict(zip(cols, DATASETS.T, strict=True)))
    for table in (pl.DataFrame(DATASETS, schema=cols), arrow):
        other = fn(table)
        if name == "friedman_test":
            assert other.details["names"] == ref.details["names"] == cols
        else:
            assert other.names == ref.names


# ----------------------------------------------------------------------------------------
# planning: scalars
# ----------------------------------------------------------------------------------------
PLANNING_ARGS = [(name, arg) for name, (_, args) in PLANNING.items() for arg in args]


@pytest.mark.parametrize(("name", "arg"), PLANNING_ARGS)
def test_planning_scalars(name, arg):
    fn = _fn(name)
    good, _ = PLANNING[name]
    for bad in (None, np.nan, pd.NA, "0.8", [0.8], True):
        with pytest.raises(BAD, match=f"`{arg}`"):
            fn(**{**good, arg: bad})


@pytest.mark.parametrize("name", ["sample_size_proportion", "sample_size_auc"])
def test_planning_confidence_level(name):
    good = {"width": 0.1} if name == "sample_size_proportion" else {"auc": 0.8, "width": 0.1}
    _fn(name)(**good, confidence_level=0.95)
    for bad in (95, 1.5):
        with pytest.raises(ValueError, match="confidence_level"):
            _fn(name)(**good, confidence_level=bad)


# ----------------------------------------------------------------------------------------
# scikit-learn helpers
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", SKLEARN)
def test_sklearn_helpers_bad_input(name):
    pytest.importorskip("sklearn")
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB

    fn = _fn(name)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] > 0).astype(int)
    e1, e2 = LogisticRegression(), GaussianNB()
    y_nan = y.astype(float)
    y_nan[3] = np.nan
    with pytest.raises(ValueError, match="`y` has 1 missing value"):
        fn(e1, e2, X, y_nan)
    with pytest.raises(ValueError, match="`X` has 59 rows but `y` has 60"):
        fn(e1, e2, X[:-1], y)
    with pytest.raises(ValueError, match="`X` is required"):
        fn(e1, e2, None, y)
    # found by the public-API matrix: scikit-learn's "Supported target types are..." and
    # "Cannot have number of splits n_splits=2 greater than the number of samples"
    with pytest.raises(TypeError, match="`y` mixes strings and numbers"):
        fn(e1, e2, X, np.array(["yes" if v else 0 for v in y], dtype=object))
    with pytest.raises(ValueError, match=r"`X` and `y` have 1 sample\(s\)"):
        fn(e1, e2, X[:1], y[:1])
    with pytest.raises(TypeError, match="`estimator_b` must be a scikit-learn estimator"):
        fn(e1, "GaussianNB", X, y)
    for bad in ("seed", -1, 1.5):
        with pytest.raises(BAD, match="`rng`"):
            fn(e1, e2, X, y, rng=bad)
    with pytest.raises(TypeError, match="random_state"):
        fn(e1, e2, X, y, random_state=0)  # renamed `rng`
    with pytest.raises(ValueError, match="`scoring`='accuracyy' is not a scikit-learn scorer"):
        fn(e1, e2, X, y, scoring="accuracyy")
    for opt, bad in (("n_splits", 1), ("n_repeats", 0), ("n_splits", 2.5)):
        with pytest.raises(BAD, match=f"`{opt}`"):
            fn(e1, e2, X, y, **{opt: bad})
    if name == "paired_cv_scores":
        for bad in (0, 1.5, "0.3", None):
            with pytest.raises(BAD, match="`test_size`"):
                fn(e1, e2, X, y, variant="resampled", test_size=bad)
        with pytest.raises(ValueError, match="`variant` must be one of"):
            fn(e1, e2, X, y, variant="loo")
    else:
        with pytest.raises(ValueError, match="`variant` must be one of"):
            fn(e1, e2, X, y, variant="wilcoxon")
