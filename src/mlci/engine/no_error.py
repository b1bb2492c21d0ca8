"""A two-class test set without a single error: F1, F_beta, MCC and kappa get the exact
interval of "no error" (:mod:`mlci.intervals.no_error`) in place of the point ``[1, 1]``.

Every bootstrap replicate of a test set without an error is perfect, so under every
bootstrap method these metrics collapsed to ``[1, 1]`` with a "no spread" warning, and
missed on every such test set: the design searches' largest class of short designs
(seeds 7-14, f1/mcc/kappa with 0.3-3 expected errors: 0.41-0.72, the misses exactly the
test sets without an error; docs/validation.md, "Near the bounds" said "the other
metrics have none in mlci yet").  Accuracy and the rates are proportions (Wilson's
interval) and balanced accuracy has MOVER of its classes' intervals
(:mod:`mlci.engine.class_edge`); the metrics here had nothing.

The rule applies to a two-class confusion metric of unweighted samples (the kernel's
counts) whose test set has no false positive and no false negative, with both classes
present.  Over conditions the same interval is given on the nominal class sizes: without
an error the data say nothing of how errors would cluster, so it holds only if they
would not, and :func:`no_error_message` says so.
"""

from __future__ import annotations

from typing import Any

from ..intervals.no_error import NoErrorTable
from .class_edge import class_counts, class_errors

__all__ = [
    "NO_ERROR_METHOD",
    "NO_ERROR_METRICS",
    "no_error_few_text",
    "no_error_message",
    "no_error_options",
    "no_error_reason",
]

#: the metrics that get the exact interval without an error (each falls as either
#: class's error rate grows, and its bootstrap collapses there)
NO_ERROR_METRICS = ("f1", "fbeta", "mcc", "cohen_kappa")
#: the label of that interval (a result's ``method``; :data:`mlci.inputs.methods.AUTO_LABELS`)
NO_ERROR_METHOD = "exact_no_error"


def no_error_options(kernel: Any, plan: Any = None) -> dict[str, Any]:
    """``{"no_error": NoErrorTable, "analytic_method": "exact_no_error"}`` for the
    linearization of ``kernel`` when its test set has no error (both classes present),
    else ``{}``.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.metrics import get_kernel
    >>> y = np.r_[np.ones(17, int), np.zeros(83, int)]
    >>> opts = no_error_options(get_kernel("f1", [y, y], {}))
    >>> opts["analytic_method"], opts["no_error"].class_sizes
    ('exact_no_error', (83, 17))
    >>> no_error_options(get_kernel("f1", [y, 1 - y], {}))
    {}
    """
    if getattr(kernel, "name", None) not in NO_ERROR_METRICS:
        return {}
    counts = class_counts(kernel)
    if counts is None or min(counts[1], counts[3]) == 0 or class_errors(counts) != (0, 0):
        return {}
    table = NoErrorTable((counts[1], counts[3]), kernel.evaluate)
    return {"no_error": table, "analytic_method": NO_ERROR_METHOD}


def no_error_reason() -> str:
    """The part of ``method_reason`` that says the exact interval of "no error" was used."""
    return (
        f"{NO_ERROR_METHOD}: the test set has no error, so every bootstrap replicate is "
        "perfect and every bootstrap interval is a point; the interval is the metric's "
        "lowest value over the false-negative and false-positive rates that an exact test "
        "of 'no error in these class sizes' does not reject (Clopper-Pearson's bound for "
        "0 errors, for two rates at once; for F1 it is Clopper-Pearson's interval of the "
        "Jaccard index TP / (TP + FP + FN) mapped by 2J / (1 + J))"
    )


def no_error_few_text(diag: dict[str, Any]) -> str:
    """The clause the few-of-a-class warning adds where the test set has no error and got
    the exact interval (``diag["class_edge_method"]``), else ``""``."""
    if diag.get("class_edge_method") != NO_ERROR_METHOD:
        return ""
    return (
        ". The test set has no error, and the interval given is the exact one of 'no "
        "error' in these class sizes (wide, and honestly so, with so few of a class)"
    )


def no_error_message(diag: dict[str, Any], metric: str) -> str | None:
    """The design warning over conditions for a test set without an error given the exact
    interval of independent samples (``diag``: :func:`mlci.engine.auto.
    design_diagnostics`, with ``no_error_method``), else None."""
    if metric not in NO_ERROR_METRICS or diag.get("n_conditions") is None:
        return None
    if diag.get("class_edge_method") != NO_ERROR_METHOD:
        return None
    return (
        "The test set has no error, so nothing in it says how errors would cluster over "
        "the conditions; the interval given is the exact one of independent samples of "
        "these class sizes, which holds only if errors would not concentrate in a few "
        "conditions (with clustered errors it is too narrow)"
    )
