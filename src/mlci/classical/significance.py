"""Significance tests comparing two classifiers on one test set.

:func:`mcnemar_test` (the two systems' errors on the same samples) and
:func:`paired_ttest_chunks` (a paired t-test over chunks of the test set).  The tests
comparing two *learning algorithms* by cross-validation (k-fold t, 5×2cv t and F, the
corrected resampled t) are in :mod:`mlci.protocols.cv_tests`.

References
----------
- McNemar, Q. (1947). Note on the sampling error of the difference between correlated
  proportions or percentages. *Psychometrika* 12, 153–157.
- Fagerland, M. W., Lydersen, S. & Laake, P. (2013). The McNemar test for binary
  matched-pairs data: mid-p and asymptotic are better than exact conditional.
  *BMC Medical Research Methodology* 13, 91.
"""

from __future__ import annotations

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
)
from ..intervals.formulas import wald_interval
from ..results import ConfidenceInterval, TestResult
from .checks import require
from .proportions import _check_table, _table_from_correct
from .pvalues import t_pvalue

__all__ = [
    "MCNEMAR_VARIANTS",
    "mcnemar_test",
    "paired_ttest_chunks",
    "t_test_result",
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
# the paired t-test over chunks
# ----------------------------------------------------------------------------------------
def t_test_result(mean, se, df, alternative, confidence_level, method, details):
    """The t test of ``mean = 0`` with standard error ``se`` and ``df`` degrees of freedom,
    and its t interval, as a :class:`~mlci.TestResult` (``details`` added to its own)."""
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
    return t_test_result(
        d.mean(),
        se,
        n_chunks - 1,
        alternative,
        confidence_level,
        "paired-t-chunks",
        {"differences": d, "chunk_sizes": [len(i) for i in idx], "n_dropped": g.n_dropped},
    )
