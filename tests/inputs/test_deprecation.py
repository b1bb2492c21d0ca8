"""The one rename helper (mlci.inputs.deprecation) and every deprecated spelling it keeps.

Each alias: the old keyword still works, gives the same result as the new one, warns a
FutureWarning naming both spellings at the caller's line (this file), and giving both at
once is a TypeError.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci
from mlci.inputs import renamed, renamed_keyword, warn_at_caller

HERE = __file__


def _warns_here(old: str, new: str):  # type: ignore[no-untyped-def]
    return pytest.warns(FutureWarning, match=f"`{old}` is deprecated.*`{new}`")


def _from_this_file(record) -> None:  # type: ignore[no-untyped-def]
    assert [w.filename for w in record] == [HERE] * len(record)


# ----------------------------------------------------------------------------- the helper
def test_renamed_passes_the_old_keyword_under_the_new_name() -> None:
    @renamed(old="new")
    def f(a: int, *, new: int = 0) -> int:
        return a + new

    assert f(1, new=2) == 3
    with _warns_here("old", "new") as w:
        assert f(1, old=2) == 3
    _from_this_file(w)
    with pytest.raises(TypeError, match="give `new` only; `old` is its deprecated spelling"):
        f(1, old=2, new=2)
    # the signature users see has the new name only
    import inspect

    assert list(inspect.signature(f).parameters) == ["a", "new"]


def test_renamed_keyword_refuses_both_and_unknown_keywords() -> None:
    assert renamed_keyword({}, "a", "b", 1, None) == 1
    with _warns_here("a", "b"):
        assert renamed_keyword({"a": 2}, "a", "b", None, None) == 2
    with pytest.raises(TypeError, match="Give `b` only"):
        renamed_keyword({"a": 2}, "a", "b", 1, None)
    with pytest.raises(TypeError, match="unexpected keyword argument 'c'"):
        renamed_keyword({"c": 2}, "a", "b", 1, None)


def test_warn_at_caller_names_this_line() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warn_at_caller("x", FutureWarning)
    _from_this_file(caught)


# ----------------------------------------------------------------------------- the aliases
@pytest.fixture(scope="module")
def learners():  # type: ignore[no-untyped-def]
    pytest.importorskip("sklearn")
    from sklearn.datasets import make_classification
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB

    X, y = make_classification(80, random_state=0)
    return LogisticRegression(), GaussianNB(), X, y


def test_compare_estimators_test_is_variant(learners) -> None:  # type: ignore[no-untyped-def]
    a, b, X, y = learners
    new = mlci.compare_estimators(a, b, X, y, variant="5x2cv-t", rng=0)
    with _warns_here("test", "variant") as w:
        old = mlci.compare_estimators(a, b, X, y, test="5x2cv-t", rng=0)
    _from_this_file(w)
    assert (old.statistic, old.pvalue) == (new.statistic, new.pvalue)
    with pytest.raises(TypeError, match="`test` is its deprecated spelling"):
        mlci.compare_estimators(a, b, X, y, test="5x2cv-t", variant="5x2cv-t")


def test_paired_cv_scores_design_is_variant(learners) -> None:  # type: ignore[no-untyped-def]
    a, b, X, y = learners
    new = mlci.paired_cv_scores(a, b, X, y, variant="kfold", n_splits=3, rng=0)
    with _warns_here("design", "variant") as w:
        old = mlci.paired_cv_scores(a, b, X, y, design="kfold", n_splits=3, rng=0)
    _from_this_file(w)
    np.testing.assert_array_equal(old["scores_a"], new["scores_a"])
    assert new["variant"] == new["design"] == "kfold"


DEMSAR = [[0.9, 0.8, 0.7], [0.85, 0.8, 0.75], [0.7, 0.72, 0.6], [0.9, 0.85, 0.8]]


def test_critical_difference_test_is_variant() -> None:
    new = mlci.critical_difference(DEMSAR, variant="bonferroni-dunn", control=0)
    with _warns_here("test", "variant") as w:
        old = mlci.critical_difference(DEMSAR, test="bonferroni-dunn", control=0)
    _from_this_file(w)
    assert old.to_dict() == new.to_dict() and new.variant == "bonferroni-dunn"
    with pytest.warns(FutureWarning, match="`CriticalDifference.test` is deprecated") as w:
        assert new.test == "bonferroni-dunn"
    _from_this_file(w)
    # the record's constructor keeps the old keyword too
    with _warns_here("test", "variant"):
        built = mlci.CriticalDifference(
            names=new.names, average_ranks=new.average_ranks,
            critical_difference=new.critical_difference, cliques=new.cliques,
            test="bonferroni-dunn", alpha=new.alpha, n_datasets=new.n_datasets,
            control=new.control,
        )  # fmt: skip
    assert built.to_dict() == new.to_dict()


def test_oob_ci_old_order_and_model_keyword() -> None:
    pytest.importorskip("sklearn")
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    X, y = make_classification(120, random_state=0)
    rf = RandomForestClassifier(20, oob_score=True, random_state=0).fit(X, y)
    new = mlci.oob_ci(rf, X, y, rng=0, n_resamples=100)
    match = r"oob_ci\(model, y, X=X\) is deprecated.*oob_ci\(estimator, X, y\)"
    with pytest.warns(FutureWarning, match=match) as w:
        old = mlci.oob_ci(rf, y, X=X, rng=0, n_resamples=100)
    _from_this_file(w)
    assert old.to_dict() == new.to_dict()
    with _warns_here("model", "estimator") as w:
        kw = mlci.oob_ci(model=rf, X=X, y=y, rng=0, n_resamples=100)
    _from_this_file(w)
    assert kw.to_dict() == new.to_dict()
    # without X: the old two-argument call is the new (estimator, None, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the uncorrected interval warns
        new = mlci.oob_ci(rf, None, y, rng=0, n_resamples=100)
        with pytest.warns(FutureWarning, match=match):
            old = mlci.oob_ci(rf, y, rng=0, n_resamples=100)
    assert old.to_dict() == new.to_dict()
    # the new order with y left out is not mistaken for the old one
    with pytest.raises(TypeError, match="y"):
        mlci.oob_ci(rf, X)


def test_cllr_ci_minimum_is_kind() -> None:
    rng = np.random.default_rng(0)
    s = mlci.Scores(rng.normal(2, 2, 80), rng.normal(-2, 2, 80))
    kw = {"rng": 0, "n_resamples": 50, "method": "percentile"}
    for flag, kind in ((True, "min"), (False, "actual")):
        new = mlci.cllr_ci(s, kind=kind, **kw)
        with _warns_here("minimum", "kind") as w:
            old = mlci.cllr_ci(s, minimum=flag, **kw)
        _from_this_file(w)
        assert old.to_dict() == new.to_dict()
    with pytest.warns(FutureWarning), pytest.raises(TypeError, match="`minimum` must be"):
        mlci.cllr_ci(s, minimum="yes", **kw)
    with pytest.raises(ValueError, match="`kind` must be one of 'actual', 'min'"):
        mlci.cllr_ci(s, kind="minimum", **kw)


def test_auc_ci_takes_arrays_or_a_scores_object() -> None:
    rng = np.random.default_rng(1)
    y = np.r_[np.ones(60), np.zeros(90)]
    score = np.r_[rng.normal(1, 1, 60), rng.normal(0, 1, 90)]
    s = mlci.Scores.from_labels(y, score)
    kw = {"rng": 0, "n_resamples": 80, "method": "percentile"}
    arrays = mlci.auc_ci(y, score, **kw)
    assert mlci.auc_ci(s, **kw).to_dict() == arrays.to_dict()  # documented, no warning
    with _warns_here("scores", "y_true") as w:
        old = mlci.auc_ci(scores=s, **kw)
    _from_this_file(w)
    assert old.to_dict() == arrays.to_dict()
    # labels -1/1 and a positive label, as bootstrap_ci reads them
    lab = np.where(y == 1, "spoof", "bona fide")
    named = mlci.auc_ci(lab, score, pos_label="spoof", **kw)
    assert named.estimate == arrays.estimate
    with pytest.raises(TypeError, match="`y_score` is required with labels"):
        mlci.auc_ci(y, **kw)
    with pytest.raises(TypeError, match="leave out `y_score` and `pos_label`"):
        mlci.auc_ci(s, score, **kw)
