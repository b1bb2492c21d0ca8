"""Significance tests comparing two learning algorithms by cross-validation.

The tests take tables of fold scores, so any cross-validation loop works:
:func:`kfold_cv_ttest`, Dietterich's :func:`cv_5x2_ttest`, Alpaydın's
:func:`cv_5x2_ftest` and Nadeau & Bengio's :func:`corrected_resampled_ttest`.
:func:`paired_cv_scores` produces such tables from two scikit-learn estimators and
:func:`compare_estimators` runs one of the tests on them.  The tests on one test set
(McNemar, the paired t-test over chunks) are in :mod:`mlci.classical.significance`;
:func:`mlci.cross_val_compare` gives the interval of the difference of two estimators
with the corrected standard error of :func:`corrected_resampled_ttest`.

References
----------
- Dietterich, T. G. (1998). Approximate statistical tests for comparing supervised
  classification learning algorithms. *Neural Computation* 10, 1895–1923.
- Alpaydın, E. (1999). Combined 5×2 cv F test for comparing supervised classification
  learning algorithms. *Neural Computation* 11, 1885–1892.
- Nadeau, C. & Bengio, Y. (2003). Inference for the generalization error.
  *Machine Learning* 52, 239–281.
- Bouckaert, R. R. & Frank, E. (2004). Evaluating the replicability of significance
  tests for comparing learning algorithms. *PAKDD*, 3–12.
"""

from __future__ import annotations

import dataclasses
from numbers import Real
from typing import Any

import numpy as np
from scipy import stats

from ..classical.checks import number_array, require
from ..classical.pvalues import t_pvalue
from ..classical.significance import t_test_result
from ..engine.sampler import Stream, block_generator
from ..inputs import (
    ArgSpec,
    check_alternative,
    check_choice,
    check_confidence_level,
    check_positive_int,
    check_rng_seed,
    fill_doc,
    gather,
    renamed,
)
from ..results import TestResult

__all__ = [
    "compare_estimators",
    "corrected_resampled_ttest",
    "cv_5x2_ftest",
    "cv_5x2_ttest",
    "kfold_cv_ttest",
    "paired_cv_scores",
]


# ----------------------------------------------------------------------------------------
# tests on tables of fold scores
# ----------------------------------------------------------------------------------------
def _score_table(name: str, x: Any, ndim: tuple[int, ...]) -> np.ndarray:
    """A table of fold scores: numbers, no missing entry (it would break the pairing)."""
    return number_array(name, x, ndim=ndim, what="fold scores")


def _pair(scores_a, scores_b, ndim, min_size):
    a = _score_table("scores_a", scores_a, ndim)
    b = _score_table("scores_b", scores_b, ndim)
    if a.shape != b.shape:
        raise ValueError(
            f"`scores_a` and `scores_b` must have the same shape (one score per fold for "
            f"each system); got {a.shape} and {b.shape}."
        )
    if a.size < min_size:
        raise ValueError(
            f"`scores_a` and `scores_b` need at least {min_size} paired scores; got {a.size}."
        )
    return a, b


@fill_doc
def kfold_cv_ttest(
    scores_a: Any,
    scores_b: Any,
    *,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
) -> TestResult:
    """The k-fold cross-validated paired t-test.

    A one-sample t-test on the ``k`` fold-wise differences.  Dietterich (1998) showed
    its type I error is inflated (the training sets overlap, so the folds are not
    independent); prefer :func:`cv_5x2_ftest` or :func:`corrected_resampled_ttest`.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (k,)
        Score of each system on each fold (the same folds for both).
    confidence_level : float, default 0.95
    %(alternative_test)s

    Returns
    -------
    TestResult
        ``df = k - 1``; ``estimate`` the mean difference A − B with a t interval.

    Examples
    --------
    >>> a = [0.81, 0.83, 0.80, 0.85, 0.82]
    >>> b = [0.78, 0.80, 0.79, 0.81, 0.80]
    >>> r = kfold_cv_ttest(a, b)
    >>> round(r.statistic, 3), r.df
    (5.099, 4)
    """
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    a, b = _pair(scores_a, scores_b, (1,), 2)
    d = a - b
    k = d.size
    return t_test_result(
        d.mean(),
        d.std(ddof=1) / np.sqrt(k),
        k - 1,
        alternative,
        confidence_level,
        "kfold-cv-paired-t",
        {"differences": d},
    )


def _5x2_differences(scores_a, scores_b):
    """Differences A - B (r, 2) and each repetition's ``s_i² = Σ_j (d_ij - d̄_i)²``."""
    a, b = _pair(scores_a, scores_b, (2,), 2)
    if a.shape[1] != 2:
        raise ValueError(
            f"`scores_a` and `scores_b` must have shape (n_repetitions, 2): one row per "
            f"repetition of 2-fold cross-validation (5 rows for 5x2cv); got {a.shape}."
        )
    d = a - b
    s2 = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    return d, s2


@fill_doc
def cv_5x2_ttest(
    scores_a: Any,
    scores_b: Any,
    *,
    alternative: str = "two-sided",
) -> TestResult:
    """Dietterich's (1998) 5×2cv paired t-test.

    Five repetitions of 2-fold cross-validation; ``t = d₁₁ / sqrt(mean_i s_i²)`` with
    ``s_i² = (d_i1 - d̄_i)² + (d_i2 - d̄_i)²``, against Student's t with 5 (in general
    ``r``) degrees of freedom.  Only the first difference enters the numerator, so the
    statistic depends on the order of the repetitions.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (r, 2)
        Score of each system on fold j of repetition i (train on one half, test on the
        other).  ``r = 5`` in Dietterich's test.
    %(alternative_test)s

    Returns
    -------
    TestResult
        ``estimate``: the mean of all ``2r`` differences (no interval).

    Examples
    --------
    >>> a = [[0.90, 0.88], [0.89, 0.91], [0.87, 0.90], [0.92, 0.88], [0.90, 0.89]]
    >>> b = [[0.86, 0.87], [0.88, 0.86], [0.86, 0.85], [0.88, 0.87], [0.85, 0.88]]
    >>> r = cv_5x2_ttest(a, b)
    >>> round(r.statistic, 3), r.df
    (1.557, 5)
    """
    alternative = check_alternative(alternative)
    d, s2 = _5x2_differences(scores_a, scores_b)
    r = d.shape[0]
    denom = np.sqrt(s2.mean())
    t = d[0, 0] / denom if denom > 0 else (0.0 if d[0, 0] == 0 else np.sign(d[0, 0]) * np.inf)
    p = t_pvalue(t, r, alternative)
    return TestResult(
        statistic=float(t),
        pvalue=float(min(p, 1.0)),
        method="5x2cv-paired-t",
        alternative=alternative,
        df=r,
        estimate=float(d.mean()),
        details={"differences": d, "variances": s2},
    )


def cv_5x2_ftest(scores_a: Any, scores_b: Any) -> TestResult:
    """Alpaydın's (1999) combined 5×2cv F-test (two-sided).

    ``F = Σ_ij d_ij² / (2 Σ_i s_i²)`` against F(2r, r) = F(10, 5): uses all ten
    differences, so it does not depend on their order, and it is more powerful than the
    5×2cv t-test at a similar, acceptable type I error.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (r, 2)
        As in :func:`cv_5x2_ttest`.

    Returns
    -------
    TestResult
        ``df = (2r, r)``; ``estimate``: the mean difference A − B.

    Examples
    --------
    >>> a = [[0.90, 0.88], [0.89, 0.91], [0.87, 0.90], [0.92, 0.88], [0.90, 0.89]]
    >>> b = [[0.86, 0.87], [0.88, 0.86], [0.86, 0.85], [0.88, 0.87], [0.85, 0.88]]
    >>> r = cv_5x2_ftest(a, b)
    >>> round(r.statistic, 3), r.df
    (1.697, (10, 5))
    """
    d, s2 = _5x2_differences(scores_a, scores_b)
    r = d.shape[0]
    num = (d**2).sum()
    den = 2 * s2.sum()
    if den > 0:
        f = num / den
    else:
        f = 0.0 if num == 0 else np.inf
    return TestResult(
        statistic=float(f),
        pvalue=float(stats.f.sf(f, 2 * r, r)),
        method="5x2cv-combined-F",
        alternative="two-sided",
        df=(2 * r, r),
        estimate=float(d.mean()),
        details={"differences": d, "variances": s2},
    )


@fill_doc
def corrected_resampled_ttest(
    scores_a: Any,
    scores_b: Any,
    *,
    n_train: int,
    n_test: int,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
) -> TestResult:
    """Nadeau & Bengio's (2003) corrected resampled t-test.

    For ``J`` random train/test splits (or the ``r·k`` folds of ``r``-times repeated
    k-fold cross-validation, Bouckaert & Frank 2004), the variance of the mean
    difference is inflated by the overlap of training sets:
    ``var = (1/J + n_test/n_train) · s²``, with ``s²`` the sample variance of the ``J``
    differences; ``t = mean / sqrt(var)`` against Student's t with ``J - 1`` df.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (J,) or (r, k)
        Score of each system on each split; a 2-d table (repetitions × folds) is
        flattened.
    n_train, n_test : int
        Size of the training and test set of one split (e.g. ``n·(k-1)/k`` and ``n/k``
        for k-fold).
    confidence_level : float, default 0.95
    %(alternative_test)s

    Returns
    -------
    TestResult
        ``estimate``: the mean difference A − B, with the corrected t interval.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> d = 0.01 + 0.01 * rng.standard_normal((10, 10))   # 10x10-fold cv differences
    >>> r = corrected_resampled_ttest(0.8 + d, np.full((10, 10), 0.8), n_train=900,
    ...                               n_test=100)
    >>> r.df, round(r.statistic, 3)
    (99, 3.11)
    """
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    n_train = check_positive_int("n_train", n_train)
    n_test = check_positive_int("n_test", n_test)
    a, b = _pair(scores_a, scores_b, (1, 2), 2)
    d = (a - b).ravel()
    j = d.size
    se = np.sqrt((1.0 / j + n_test / n_train) * d.var(ddof=1))
    return t_test_result(
        d.mean(),
        se,
        j - 1,
        alternative,
        confidence_level,
        "corrected-resampled-t",
        {"differences": d, "n_train": n_train, "n_test": n_test},
    )


# ----------------------------------------------------------------------------------------
# scikit-learn convenience
# ----------------------------------------------------------------------------------------
_DESIGNS = ("kfold", "5x2", "repeated-kfold", "resampled")


def _check_estimator(name: str, est: Any) -> None:
    if not (hasattr(est, "fit") and hasattr(est, "get_params")):
        raise TypeError(
            f"`{name}` must be a scikit-learn estimator (with `fit` and `get_params`); "
            f"got {type(est).__name__}."
        )


def _split_seed(rng: Any) -> int:
    """The integer seed scikit-learn's splitters need, derived from ``rng``.

    A pure function of the seed (its :data:`Stream.CV_SPLITS` stream): the same ``rng``
    gives the same splits; a Generator is advanced by the draw of the seed.
    """
    seed = check_rng_seed(rng)
    return int(block_generator(seed, Stream.CV_SPLITS, 0).integers(0, 2**31 - 1))


def _xy(X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    """``X`` (kept as given, one row per sample) and ``y`` (no missing value)."""
    require(X=X, y=y)
    y = gather({"y": ArgSpec("labels")}, {"y": y})["y"]
    X = np.asarray(X)
    if X.ndim == 0:
        raise ValueError("`X` must be an array with one row per sample; got a scalar.")
    if len(X) != len(y):
        raise ValueError(
            f"`X` has {len(X)} rows but `y` has {len(y)} entries; they must have one per sample."
        )
    return X, y


@renamed(design="variant")
def paired_cv_scores(
    estimator_a: Any,
    estimator_b: Any,
    X: Any,
    y: Any,
    *,
    variant: str = "5x2",
    n_splits: int = 10,
    n_repeats: int = 10,
    test_size: float = 0.3,
    scoring: Any = None,
    rng: Any = None,
) -> dict[str, Any]:
    """Score two scikit-learn estimators on the same cross-validation splits.

    Both estimators are cloned, fitted on each training set and scored on its test
    set, so the score tables are paired.  (scikit-learn is imported here only.)

    Parameters
    ----------
    estimator_a, estimator_b : scikit-learn estimators
    X, y : array_like
        Data and targets (``y`` may not hold missing values).
    variant : {"5x2", "kfold", "repeated-kfold", "resampled"}, default "5x2"
        The cross-validation design.  ``"5x2"``: 5 repetitions of 2-fold cv (table
        (5, 2), for :func:`cv_5x2_ttest` and :func:`cv_5x2_ftest`); ``"kfold"``:
        ``n_splits`` folds (table (k,), for :func:`kfold_cv_ttest`);
        ``"repeated-kfold"``: ``n_repeats × n_splits``
        (for :func:`corrected_resampled_ttest`); ``"resampled"``: ``n_repeats`` random
        splits with ``test_size`` (for :func:`corrected_resampled_ttest`).
        Folds are stratified for classifiers.
    n_splits, n_repeats : int
        Number of folds and of repetitions, where the variant uses them.
    test_size : float, default 0.3
        Test fraction for ``"resampled"``.
    scoring : str or callable, optional
        A scikit-learn scorer; default the estimator's ``score`` method.
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
        Seed of the splits: the same seed gives the same splits (the integer
        ``random_state`` of scikit-learn's splitters is derived from it).

    Returns
    -------
    dict
        ``scores_a``, ``scores_b`` (tables), ``n_train``, ``n_test`` (sizes of the
        first split), ``variant`` (also under its old key ``design``) and
        ``random_state`` (the integer given to the splitters).

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = make_classification(200, random_state=0)
    >>> s = paired_cv_scores(LogisticRegression(), DecisionTreeClassifier(random_state=0),
    ...                      X, y, variant="5x2", rng=0)
    >>> s["scores_a"].shape
    (5, 2)
    """
    # scikit-learn is an optional dependency: imported only where it is used
    from sklearn.base import clone, is_classifier
    from sklearn.metrics import check_scoring
    from sklearn.model_selection import (
        KFold,
        RepeatedKFold,
        RepeatedStratifiedKFold,
        ShuffleSplit,
        StratifiedKFold,
        StratifiedShuffleSplit,
    )

    _check_estimator("estimator_a", estimator_a)
    _check_estimator("estimator_b", estimator_b)
    design = check_choice("variant", variant, _DESIGNS)
    n_splits = check_positive_int("n_splits", n_splits, minimum=2)
    n_repeats = check_positive_int("n_repeats", n_repeats)
    if isinstance(test_size, bool) or not isinstance(test_size, Real):
        raise TypeError(f"`test_size` must be a fraction in (0, 1); got {test_size!r}.")
    if not 0.0 < float(test_size) < 1.0:
        raise ValueError(f"`test_size` must be a fraction in (0, 1); got {test_size!r}.")
    random_state = _split_seed(rng)
    X, y = _xy(X, y)
    need = n_splits if design in ("kfold", "repeated-kfold") else 2
    if len(y) < need:
        raise ValueError(
            f"`X` and `y` have {len(y)} sample(s); {design!r} cross-validation needs at least "
            f"{need} (ideally many more)."
        )
    try:
        scorer_a = check_scoring(estimator_a, scoring=scoring)
        scorer_b = check_scoring(estimator_b, scoring=scoring)
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"`scoring`={scoring!r} is not a scikit-learn scorer for these estimators: {exc}"
        ) from None
    strat = is_classifier(estimator_a)
    if design == "5x2":
        cls = RepeatedStratifiedKFold if strat else RepeatedKFold
        cv = cls(n_splits=2, n_repeats=5, random_state=random_state)
        shape: tuple[int, ...] = (5, 2)
    elif design == "kfold":
        cls = StratifiedKFold if strat else KFold
        cv = cls(n_splits=n_splits, shuffle=True, random_state=random_state)
        shape = (n_splits,)
    elif design == "repeated-kfold":
        cls = RepeatedStratifiedKFold if strat else RepeatedKFold
        cv = cls(n_splits=n_splits, n_repeats=n_repeats, random_state=random_state)
        shape = (n_repeats, n_splits)
    else:
        cls = StratifiedShuffleSplit if strat else ShuffleSplit
        cv = cls(n_splits=n_repeats, test_size=float(test_size), random_state=random_state)
        shape = (n_repeats,)
    sa, sb, sizes = [], [], None
    for train, test in cv.split(X, y):
        for est, scorer, out in ((estimator_a, scorer_a, sa), (estimator_b, scorer_b, sb)):
            model = clone(est).fit(X[train], y[train])
            out.append(scorer(model, X[test], y[test]))
        if sizes is None:
            sizes = (len(train), len(test))
    assert sizes is not None
    return {
        "scores_a": np.asarray(sa, dtype=float).reshape(shape),
        "scores_b": np.asarray(sb, dtype=float).reshape(shape),
        "n_train": sizes[0],
        "n_test": sizes[1],
        "variant": design,
        "design": design,
        "random_state": random_state,
    }


_TESTS = ("5x2cv-f", "5x2cv-t", "kfold-t", "corrected-resampled-t")


@renamed(test="variant")
def compare_estimators(
    estimator_a: Any,
    estimator_b: Any,
    X: Any,
    y: Any,
    *,
    variant: str = "5x2cv-f",
    scoring: Any = None,
    rng: Any = None,
    n_splits: int = 10,
    n_repeats: int = 10,
) -> TestResult:
    """Compare two scikit-learn estimators with one of the cross-validation tests.

    Parameters
    ----------
    estimator_a, estimator_b : scikit-learn estimators
    X, y : array_like
    variant : {"5x2cv-f", "5x2cv-t", "kfold-t", "corrected-resampled-t"}, default "5x2cv-f"
        The test: :func:`cv_5x2_ftest`, :func:`cv_5x2_ttest`, :func:`kfold_cv_ttest` (``n_splits``
        folds) or :func:`corrected_resampled_ttest` (``n_repeats`` × ``n_splits``-fold
        cv).
    scoring : str or callable, optional
        A scikit-learn scorer.
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
        Seed of the splits (see :func:`paired_cv_scores`).
    n_splits, n_repeats : int, default 10
        Folds and repetitions of the k-fold designs (unused by the 5×2cv tests).

    Returns
    -------
    TestResult
        With the score tables in ``details["scores_a"]``, ``details["scores_b"]``.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = make_classification(200, random_state=0)
    >>> r = compare_estimators(LogisticRegression(), GaussianNB(), X, y, rng=0)
    >>> r.method, r.df
    ('5x2cv-combined-F', (10, 5))
    """
    test = check_choice("variant", variant, _TESTS)
    design = {
        "5x2cv-f": "5x2",
        "5x2cv-t": "5x2",
        "kfold-t": "kfold",
        "corrected-resampled-t": "repeated-kfold",
    }[test]
    s = paired_cv_scores(
        estimator_a, estimator_b, X, y, variant=design, scoring=scoring, rng=rng,
        n_splits=n_splits, n_repeats=n_repeats,
    )  # fmt: skip
    a, b = s["scores_a"], s["scores_b"]
    if test == "5x2cv-f":
        r = cv_5x2_ftest(a, b)
    elif test == "5x2cv-t":
        r = cv_5x2_ttest(a, b)
    elif test == "kfold-t":
        r = kfold_cv_ttest(a, b)
    else:
        r = corrected_resampled_ttest(a, b, n_train=s["n_train"], n_test=s["n_test"])
    return dataclasses.replace(r, details={**r.details, "scores_a": a, "scores_b": b})
