"""The names a result's ``method`` can hold that are not a ``method=`` of every driver.

Under ``method="auto"`` some bootstrap intervals give way to an analytic one near the
bounds (:class:`mlci.results.AnalyticInterval`); the result's ``method`` then names the
interval it holds.  ``"korn_graubard"``, ``"logit_t"`` and ``"t"`` are also methods of
:func:`mlci.bootstrap_ci` and :func:`mlci.compare` (the same interval for every element);
the names below are labels only: their interval is given by ``auto`` where its rule holds
and re-read by ``result.interval()``, and :func:`check_method` refuses them as ``method=``
with an error that says which metric they belong to and what is accepted.  (The table of
every driver's default and fallback: docs/guide.md, "Which interval, through which door".)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["AUTO_LABELS", "check_method"]

#: label -> (the statistic whose ``auto`` interval it names, where it is also a method=)
AUTO_LABELS: dict[str, tuple[str, str]] = {
    "mover_wilson": (
        "balanced_accuracy of independent samples with 0-3 errors in a class (MOVER of "
        "the two classes' modified Wilson intervals)",
        "",
    ),
    "mover_korn_graubard": (
        "balanced_accuracy over conditions with 0-3 errors in a class (MOVER of the two "
        "classes' Korn & Graubard intervals over the conditions)",
        "",
    ),
    "exact_no_error": (
        "f1, fbeta, mcc or cohen_kappa of two classes on a test set without an error (the "
        "lowest value over the error rates an exact test of 'no error' does not reject)",
        "",
    ),
    "auc-score-floored": (
        "a single roc_auc of independent samples with a small class or near its bound "
        "(the score-type interval)",
        " It is also mlci.auc_score_ci(..., variant='floored').",
    ),
    "logit_jackknife": (
        "a single average_precision with at least 20 positives (the jackknife standard "
        "error on the logit scale: mlci.engine.ap_interval)",
        "",
    ),
    "jackknife_z": (
        "a global-level correlation_ci resampling 20-59 systems, or 20-29 systems and "
        "the items, or an item-level one over 20-29 resampled systems (Fisher's z with "
        "the jackknife standard error over the resampled units: "
        "mlci.fields.correlation_jackknife; a global-level Kendall's tau resampling 10-29 "
        "systems alone gets jackknife_tau)",
        "",
    ),
    "jackknife_tau": (
        "a global-level Kendall's tau of correlation_ci resampling 10-29 systems (tau "
        "with the jackknife standard error over the systems on its own scale: "
        "mlci.fields.correlation_kendall)",
        "",
    ),
    "tango": (
        "a paired difference of two proportions of independent samples in mlci.compare "
        "(Tango's score interval of the paired 2x2 table: mlci.comparison.tango)",
        " For a paired 2x2 table, mlci.paired_proportion_diff_ci takes method='tango'.",
    ),
    "mover": (
        "a paired roc_auc difference of independent samples near the edge with few of a "
        "class in mlci.compare (MOVER of the two AUCs' score intervals: "
        "mlci.comparison.paired_auc_edge)",
        "",
    ),
    "symmetric_studentized": (
        "a paired rmse difference of independent samples with a two-sided alternative in "
        "mlci.compare (the symmetric bootstrap-t: mlci.comparison.paired_regression)",
        "",
    ),
    "normal-squared": (
        "ece_debiased (the debiased l2 calibration error) near 0, of one column of "
        "independent samples in equal-width bins (the normal interval of its square)",
        "",
    ),
    "studentized_robust_se": (
        "a single rmse or mse of 20-500 independent unweighted samples (the bootstrap-t on "
        "the log scale with the estimate's standard error from a robust kurtosis of the "
        "errors: mlci.engine.rmse_robust)",
        "",
    ),
    "wilson": (
        "the EER with less than one expected error, or a rate at a fixed rate with fewer "
        "than 5 expected events, of independent trials (its score interval)",
        " For a proportion, mlci.bootstrap_ci and mlci.proportion_ci take method='wilson'.",
    ),
}

#: labels whose result keeps no re-readable interval (a paired difference: only Tango's
#: is re-solved by ``PairDifference.interval``); their error says how to get other levels
_NOT_REREAD = frozenset({"mover", "symmetric_studentized"})


def check_method(method: Any, methods: Iterable[str]) -> str:
    """``method`` if it is one of ``methods``, else a ValueError listing them; for a
    label of :data:`AUTO_LABELS` the error also says which statistic's ``auto`` interval
    it names.

    Examples
    --------
    >>> check_method("bca", ("auto", "bca"))
    'bca'
    >>> check_method("mover_wilson", ("auto", "bca"))
    Traceback (most recent call last):
    ...
    ValueError: `method`='mover_wilson' names the interval that method='auto' gives ...
    """
    valid = list(methods)
    if isinstance(method, str) and method in valid:
        return method
    listed = ", ".join(repr(v) for v in valid)
    if isinstance(method, str) and method in AUTO_LABELS:
        what, also = AUTO_LABELS[method]
        reread = (
            "mlci.compare(..., confidence_level=[...]) gives it at other levels"
            if method in _NOT_REREAD
            else "result.interval() re-reads it at another level"
        )
        raise ValueError(
            f"`method`={method!r} names the interval that method='auto' gives {what}, "
            f"where its rule holds; it is not a method= of this driver ({reread})."
            f"{also} Pass method='auto' or one of {listed}."
        )
    raise ValueError(f"`method` must be one of {listed}; got {method!r}.")
