"""Significance tests comparing two classifiers or two learning algorithms.

On one test set
    :func:`mcnemar_test` (the two systems' errors on the same samples) and
    :func:`paired_ttest_chunks` (a paired t-test over chunks of the test set).
With cross-validation (comparing *learning algorithms*)
    :func:`kfold_cv_ttest`, Dietterich's :func:`cv_5x2_ttest`, Alpaydın's
    :func:`cv_5x2_ftest` and Nadeau & Bengio's :func:`corrected_resampled_ttest`.
    They take tables of scores, so any cross-validation loop works;
    :func:`paired_cv_scores` produces such tables from two scikit-learn estimators and
    :func:`compare_estimators` runs one of the tests on them.

References
----------
- McNemar, Q. (1947). Note on the sampling error of the difference between correlated
  proportions or percentages. *Psychometrika* 12, 153–157.
- Fagerland, M. W., Lydersen, S. & Laake, P. (2013). The McNemar test for binary
  matched-pairs data: mid-p and asymptotic are better than exact conditional.
  *BMC Medical Research Methodology* 13, 91.
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

from ..engine.sampler import Stream, block_generator
from ..inputs import (
    ArgSpec,
    check_alternative,
    check_choice,
    check_confidence_level,
    check_flag,
    check_label_pair,
    check_positive_int,
    check_rng_seed,
    fill_doc,
    gather,
    renamed,
)
from ..intervals.formulas import wald_interval
from ..results import ConfidenceInterval, TestResult
from .checks import number_array, require
from .proportions import _check_table, _table_from_correct
from .pvalues import t_pvalue

__all__ = [
    "MCNEMAR_VARIANTS",
    "compare_estimators",
    "corrected_resampled_ttest",
    "cv_5x2_ftest",
    "cv_5x2_ttest",
    "kfold_cv_ttest",
    "mcnemar_test",
    "paired_cv_scores",
    "paired_ttest_chunks",
]


# ----------------------------------------------------------------------------------------
# McNemar
# ----------------------------------------------------------------------------------------
#: the variants of McNemar's test (``variant=``)
MCNEMAR_VARIANTS = ("mid-p", "exact", "asymptotic", "corrected")


def _mcnemar_table(table, y_true, y_pred_a, y_pred_b, dropna, data) -> tuple[np.ndarray, int]:
    """The 2×2 table (float) and the number of samples dropped."""
    given = [x is not None for x in (y_true, y_pred_a, y_pred_b)]
    if table is not None:
        if any(given):
            raise ValueError("Pass either `table` or (`y_true`, `y_pred_a`, `y_pred_b`), not both.")
        return _check_table(table), 0
    if not all(given):
        raise ValueError("Pass either a 2×2 `table` or all of `y_true`, `y_pred_a` and `y_pred_b`.")
    labels = ArgSpec("labels")
    g = gather(
        {"y_true": labels, "y_pred_a": labels, "y_pred_b": labels},
        {"y_true": y_true, "y_pred_a": y_pred_a, "y_pred_b": y_pred_b},
        dropna=dropna,
        data=data,
    )
    yt, ya, yb = g["y_true"], g["y_pred_a"], g["y_pred_b"]
    check_label_pair(yt, ya, ("y_true", "y_pred_a"))
    check_label_pair(yt, yb, ("y_true", "y_pred_b"))
    return _table_from_correct(ya == yt, yb == yt).astype(float), g.n_dropped


def mcnemar_test(
    table: Any = None,
    *,
    y_true: Any = None,
    y_pred_a: Any = None,
    y_pred_b: Any = None,
    variant: str = "mid-p",
    alternative: str = "two-sided",
    dropna: bool = False,
    data: Any = None,
) -> TestResult:
    """McNemar's test: do two classifiers have the same accuracy on the same test set?

    Only the discordant samples matter: ``b`` = right by A only, ``c`` = right by B only.
    Under the null hypothesis each discordant sample is equally likely to go either way.

    Parameters
    ----------
    table : array_like, shape (2, 2), optional
        ``[[both right, only A right], [only B right, both wrong]]`` (see
        :func:`mlci.paired_table`).
    y_true, y_pred_a, y_pred_b : array_like, optional
        Labels and the two systems' predictions, instead of ``table`` (any number of
        classes: only whether each prediction is right matters).
    variant : {"mid-p", "exact", "asymptotic", "corrected"}, default "mid-p"
        ``"exact"``: binomial test of ``b`` out of ``b + c`` at 1/2 (conservative).
        ``"mid-p"``: the exact p-value minus half the probability of the observed ``b``;
        recommended by Fagerland et al. (2013) — close to nominal size, no conservatism.
        ``"asymptotic"``: ``(b - c)² / (b + c)`` against χ²(1); fine when ``b + c`` is
        large (say ≥ 25).
        ``"corrected"``: with Edwards' continuity correction
        ``(max(|b - c| - 1, 0))² / (b + c)``; conservative.
    alternative : {"two-sided", "less", "greater"}
        ``"greater"``: A is more accurate than B (``b > c``); ``"less"``: A is less
        accurate.
    dropna : bool, default False
        With ``y_true``/``y_pred_a``/``y_pred_b``: drop the samples with a missing value
        in any of them instead of refusing them; ``details["n_dropped"]`` says how many.
    data : DataFrame, optional
        A table whose columns ``y_true``, ``y_pred_a`` and ``y_pred_b`` may name.

    Returns
    -------
    TestResult
        ``method`` is ``"mcnemar-<variant>"``.  ``statistic``: the χ² statistic (df = 1)
        for the asymptotic variants when two-sided, the signed ``z = (b - c)/sqrt(b + c)``
        (continuity-corrected towards 0 for ``"corrected"``) when one-sided, and ``b``
        for the exact and mid-p variants.  ``estimate``: accuracy of A minus accuracy of
        B, ``(b - c) / n``.  With no discordant pairs the p-value is 1.  ``details`` hold
        ``b``, ``c``, ``n``, ``n_discordant``, ``variant`` and ``n_dropped``.

    Examples
    --------
    >>> r = mcnemar_test([[59, 6], [16, 80]], variant="mid-p")  # Fagerland et al. (2013)
    >>> round(r.pvalue, 6)
    0.03469
    """
    variant = check_choice("variant", variant, MCNEMAR_VARIANTS)
    alternative = check_alternative(alternative)
    from scipy import stats  # here: the `mlci` parser (and `mlci --help`) runs without it

    dropna = check_flag("dropna", dropna)
    t, n_dropped = _mcnemar_table(table, y_true, y_pred_a, y_pred_b, dropna, data)
    n = float(t.sum())
    b, c = float(t[0, 1]), float(t[1, 0])
    m = b + c
    df = None
    if variant in ("exact", "mid-p"):
        statistic = b
        if m == 0:
            pvalue = 1.0
        else:
            mi = int(m)
            bi = int(b)
            lower = stats.binom.cdf(bi, mi, 0.5)  # P(X <= b)
            upper = stats.binom.sf(bi - 1, mi, 0.5)  # P(X >= b)
            half = 0.5 * stats.binom.pmf(bi, mi, 0.5) if variant == "mid-p" else 0.0
            if alternative == "greater":
                pvalue = upper - half
            elif alternative == "less":
                pvalue = lower - half
            else:
                pvalue = min(1.0, 2 * (min(lower, upper) - half))
    else:
        diff = b - c
        if variant == "corrected":
            diff = np.sign(diff) * max(abs(diff) - 1.0, 0.0)
        z = diff / np.sqrt(m) if m > 0 else 0.0
        if alternative == "two-sided":
            statistic = z * z
            df = 1
            pvalue = float(stats.chi2.sf(statistic, 1)) if m > 0 else 1.0
        else:
            statistic = z
            pvalue = float(stats.norm.sf(z) if alternative == "greater" else stats.norm.cdf(z))
            if m == 0:
                pvalue = 1.0
    return TestResult(
        statistic=float(statistic),
        pvalue=float(pvalue),
        method=f"mcnemar-{variant}",
        alternative=alternative,
        df=df,
        estimate=(b - c) / n,
        details={
            "b": int(b),
            "c": int(c),
            "n": int(n),
            "n_discordant": int(m),
            "variant": variant,
            "n_dropped": n_dropped,
        },
    )


# ----------------------------------------------------------------------------------------
# t-tests over chunks and folds
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


def _t_result(mean, se, df, alternative, confidence_level, method, details):
    if se > 0:
        t = mean / se
    else:  # all differences equal
        t = 0.0 if mean == 0 else float(np.sign(mean) * np.inf)
    p = t_pvalue(t, df, alternative)
    low, high = wald_interval(
        mean, se, confidence_level=confidence_level, alternative=alternative, df=df
    )
    ci = ConfidenceInterval(float(low), float(high))
    return TestResult(
        statistic=float(t),
        pvalue=float(min(p, 1.0)),
        method=method,
        alternative=alternative,
        df=df,
        estimate=float(mean),
        confidence_interval=ConfidenceInterval(float(ci.low), float(ci.high)),
        confidence_level=confidence_level,
        details={"standard_error": float(se), **details},
    )


@fill_doc
def paired_ttest_chunks(
    scores_a: Any,
    scores_b: Any,
    *,
    n_chunks: int = 10,
    shuffle: bool = False,
    rng: Any = None,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    dropna: bool = False,
    data: Any = None,
) -> TestResult:
    """Paired t-test over chunks of one test set (e.g. Welling's lecture notes).

    The test set is cut into ``n_chunks`` chunks; the mean per-sample score of each
    system is computed on every chunk and the chunk-wise differences are compared with
    a one-sample t-test.  Assumes the chunks are independent and each chunk mean is
    roughly normal (chunks of ≥ 30 samples); sample order matters unless ``shuffle``.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (n_samples,)
        Per-sample scores of the two systems on the same samples: 0/1 correctness,
        losses, ... (any additive metric).
    n_chunks : int, default 10
        Number of chunks (≥ 2); ``np.array_split`` sizes, so they differ by at most one.
    shuffle : bool, default False
        Permute the samples before chunking (with ``rng``).
    rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
        Seed for ``shuffle``: the same seed gives the same chunks.
    confidence_level : float, default 0.95
        Level of the t interval for the mean difference.
    %(alternative_test)s
    dropna : bool, default False
        Drop the samples with a missing score (in either argument) instead of refusing
        them; ``details["n_dropped"]`` says how many.
    data : DataFrame, optional
        A table whose columns ``scores_a`` and ``scores_b`` may name.

    Returns
    -------
    TestResult
        ``estimate`` is the mean of the chunk differences (A − B), with a t interval;
        ``df = n_chunks - 1``; ``details`` hold the differences, the chunk sizes and
        ``n_dropped``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> a = rng.random(600) < 0.85
    >>> b = rng.random(600) < 0.80
    >>> r = paired_ttest_chunks(a, b, n_chunks=10)
    >>> r.df, round(r.estimate, 4)
    (9, 0.04)
    """
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    n_chunks = check_positive_int("n_chunks", n_chunks, minimum=2)
    shuffle = check_flag("shuffle", shuffle)
    seed = check_rng_seed(rng)
    dropna = check_flag("dropna", dropna)
    require(scores_a=scores_a, scores_b=scores_b)
    g = gather(
        {"scores_a": ArgSpec("numbers"), "scores_b": ArgSpec("numbers")},
        {"scores_a": scores_a, "scores_b": scores_b},
        dropna=dropna,
        data=data,
    )
    a, b, n = g["scores_a"], g["scores_b"], g.n_samples
    if n < n_chunks:
        raise ValueError(
            f"`n_chunks`={n_chunks} exceeds the number of samples ({n}); use at most "
            f"{n} chunks (ideally chunks of 30 samples or more)."
        )
    if shuffle:
        perm = block_generator(seed, Stream.CHUNKS, 0).permutation(n)
        a, b = a[perm], b[perm]
    idx = np.array_split(np.arange(n), n_chunks)
    d = np.array([a[i].mean() - b[i].mean() for i in idx])
    se = d.std(ddof=1) / np.sqrt(n_chunks)
    return _t_result(
        d.mean(),
        se,
        n_chunks - 1,
        alternative,
        confidence_level,
        "paired-t-chunks",
        {"differences": d, "chunk_sizes": [len(i) for i in idx], "n_dropped": g.n_dropped},
    )


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
    return _t_result(
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
    from scipy import stats  # here: the `mlci` parser runs without it

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
    return _t_result(
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
