"""A class's own few errors: balanced accuracy with 0-3 errors in one class.

The near-bound rule of ``method="auto"`` (:func:`mlci.engine.auto.edge_fallback_options`)
sees the errors of the whole test set: it switches where resamples without a single error
fill a tail (an infinite t*).  Balanced accuracy, the mean of the two classes' rates,
fails earlier: with 0-3 errors in one class (a rare class of about 100 samples, say)
and a dozen in the other, no resample is free of errors, but a resample without an
error of that class has a standard error from the other class alone, and its bootstrap-t
statistic lies far out.  The studentized lower end then falls far below BCa's (the
design search's seed-9 #80, 3 expected misses in 98 positives of 2,222: median width
2.9-4.2 times BCa's), and a class without an error in the test set gets a standard
error of 0 for its rate, in every method: BCa, the percentile and Korn & Graubard's
interval covered 0.00-0.47 on such test sets, 0.72-0.87 over the design
(``scripts/class_edge_sweep.py``; docs/validation.md, "A class's own few errors, and
one dominant condition (seed-9 #80, #149)").

For balanced accuracy of independent samples, the interval then used is **MOVER**
(Zou & Donner 2008; Newcombe 1998's square-and-add) of the two classes' modified Wilson
intervals (:func:`mlci.intervals.mover.mover_wilson_interval`): each rate is a
proportion of its own class, whose interval needs only ``k`` and ``n`` and holds with
0-3 errors (Brown, Cai & DasGupta 2001).  In the sweep it covered 0.950-0.983 in every
design of independent samples (40-200 samples in the rare class, 1-6 expected errors in
it, the other class with 3-20; either class the rare one), at 0.99-1.24 times BCa's
median width; the studentized interval 0.71-0.96 at 0.99-13.7 times.  F1, MCC and a
proportion (recall, specificity: Wilson already) do not share the failure (0.95-0.99).

Over conditions the same rule takes MOVER of the two classes' **Korn & Graubard**
intervals (each rate's Clopper-Pearson interval on its effective sample size of its CR2
standard error, the exact interval of its size for a class without an error:
:func:`mlci.intervals.mover.mover_korn_graubard_interval`, the rates from
:func:`mlci.engine.clustered_edge.clustered_class_rates`).  In
``scripts/clustered_edge_sweep.py --part balanced`` (32 designs over 10-200 conditions,
ICC 0-0.5, prevalence 0.05-0.5, n 100-5,000, 0.5-4 expected errors in the positives; 400
test sets each) the cells short of 0.935 went from 14 to 1 (lowest 0.900 -> 0.920),
at the price of over-covering (0.965-0.99 in 15 cells; median width 1.05-2.0 times
BCa's, the studentized 1.0-2.0).  Before it no interval held where a class has no error
in the test set (BCa, percentile, Korn & Graubard of the metric, logit t: 0.09-0.67 on
those test sets); MOVER covered 0.67-1.00 there (median 0.95, below 0.935 in 13 of 32
cells), so :func:`class_edge_message` still warns (docs/validation.md, "One door for a
proportion over conditions near its bound").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .clustered_edge import clustered_class_rates

__all__ = [
    "CLASS_EDGE_METRICS",
    "MAX_CLASS_ERRORS",
    "class_counts",
    "class_edge_diagnostics",
    "class_edge_message",
    "class_edge_options",
    "class_edge_reason",
    "class_errors",
    "class_rate_proportions",
    "few_class_mover",
    "few_class_mover_text",
]

#: the metrics whose interval reads a class's own error count
CLASS_EDGE_METRICS = ("balanced_accuracy",)
#: a class with at most this many errors (of its own samples) gets the MOVER interval
#: (independent samples): the modified Wilson interval's Poisson bounds cover 1-3, and the
#: studentized interval's width was 1.5-13.7 times BCa's with 1-3 errors in the class
MAX_CLASS_ERRORS = 3
#: fewer samples than this in a class (``method="auto"``'s
#: :data:`mlci.engine.auto.MIN_CLASS`, below which the other decision metrics get the
#: percentile interval): balanced accuracy gets MOVER whatever the errors
#: (:func:`few_class_mover`; the design search's seed-11 #13, 1-6 positives in 162:
#: MOVER 0.983 of 299 test sets, the percentile 0.565, BCa 0.676)
FEW_CLASS = 5


def class_counts(kernel: Any) -> tuple[int, int, int, int] | None:
    """``(negatives right, negatives, positives right, positives)`` of a two-class
    confusion kernel of independent rows (keys ``2 * truth + prediction``), else None
    (a weighted kernel, a multi-class or vector metric).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> k = SimpleNamespace(k=2, m=4, shape=(), keys=np.array([0, 0, 1, 2, 3, 3]))
    >>> class_counts(k)  # 2 of 3 negatives right, 2 of 3 positives
    (2, 3, 2, 3)
    """
    if getattr(kernel, "k", None) != 2 or getattr(kernel, "m", None) != 4:
        return None
    if getattr(kernel, "shape", None) != () or hasattr(kernel, "base"):
        return None
    tn, fp, fn, tp = (int(c) for c in np.bincount(np.asarray(kernel.keys), minlength=4)[:4])
    return tn, tn + fp, tp, fn + tp


def class_errors(counts: tuple[int, int, int, int]) -> tuple[int, int]:
    """The errors of each class, ``(false positives, false negatives)``, from
    :func:`class_counts`.

    Examples
    --------
    >>> class_errors((890, 900, 98, 100))
    (10, 2)
    """
    tn, n_neg, tp, n_pos = counts
    return n_neg - tn, n_pos - tp


def class_edge_options(kernel: Any, plan: Any = None) -> dict[str, Any]:
    """``{"class_counts": ..., "analytic_method": "mover_wilson"}`` for the linearization
    of ``kernel`` when the class-edge rule applies: balanced accuracy with both classes
    present and at most :data:`MAX_CLASS_ERRORS` errors in one of them; else ``{}``.

    The choice is the engine's, here: ``analytic_method`` names the analytic interval
    given in place of the studentized one, which the interval layer reads by that name
    (:func:`mlci.intervals.analytic.edge_read`) without knowing the metric.  For
    independent samples MOVER of the classes' modified Wilson intervals
    (:func:`mlci.intervals.mover.mover_wilson_interval`).  Over conditions
    (``plan.unit_of_sample``) ``"mover_korn_graubard"``, with ``"class_rates"``, the two
    classes' rates with their CR2 standard errors and degrees of freedom
    (:func:`mlci.engine.clustered_edge.clustered_class_rates`), MOVER of their Korn &
    Graubard intervals (:func:`mlci.intervals.mover.mover_korn_graubard_interval`).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> keys = np.repeat([0, 1, 2, 3], [890, 10, 2, 98])
    >>> k = SimpleNamespace(name="balanced_accuracy", k=2, m=4, shape=(), keys=keys)
    >>> class_edge_options(k)
    {'class_counts': (890, 900, 98, 100), 'analytic_method': 'mover_wilson'}
    >>> class_edge_options(SimpleNamespace(name="f1", k=2, m=4, shape=(), keys=keys))
    {}
    """
    if getattr(kernel, "name", None) not in CLASS_EDGE_METRICS:
        return {}
    counts = class_counts(kernel)
    if counts is None or min(counts[1], counts[3]) == 0:
        return {}
    if min(class_errors(counts)) > MAX_CLASS_ERRORS and not few_class_mover(kernel, plan):
        return {}
    if getattr(plan, "unit_of_sample", None) is not None:
        rates = clustered_class_rates(kernel, plan)
        return {
            "class_counts": counts,
            "class_rates": rates,
            "analytic_method": "mover_korn_graubard",
        }
    return {"class_counts": counts, "analytic_method": "mover_wilson"}


def few_class_mover(kernel: Any, plan: Any = None) -> bool:
    """Whether balanced accuracy has 1 to ``FEW_CLASS - 1`` samples of a class:
    ``method="auto"`` then gives MOVER of the classes' modified Wilson intervals (of
    independent samples) or of their Korn & Graubard intervals (over conditions, ``plan``
    with ``unit_of_sample``; :func:`class_edge_options`) instead of the percentile
    interval of the other decision metrics.

    Each class's rate is a proportion of its own samples, whose modified Wilson interval
    needs only ``k`` and ``n`` (Brown, Cai & DasGupta 2001), also with 1-4 of them; F1,
    MCC and kappa are not a mean of two such proportions and keep the percentile.  In the
    design search's seed-11 #13 (162 samples, about 3 positives, 1-6 per test set) MOVER
    covered 0.983 of 299 test sets, the percentile 0.565 and BCa 0.676, at 13 times BCa's
    median width (0.29 against 0.022: the honest width of 1-4 positives).  Over conditions
    (seed-12 #55: 101 samples over 16 conditions at ICC 0.35, about 4 positives) the
    percentile interval covered 0.509 of the 167 test sets with 1-4 positives, MOVER of
    the Korn & Graubard intervals 0.988 (session 10; docs/validation.md).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> keys = np.repeat([0, 1, 2, 3], [160, 1, 0, 1])  # 1 positive
    >>> few_class_mover(SimpleNamespace(name="balanced_accuracy", k=2, m=4, shape=(), keys=keys))
    True
    >>> few_class_mover(SimpleNamespace(name="f1", k=2, m=4, shape=(), keys=keys))
    False
    """
    if getattr(kernel, "name", None) not in CLASS_EDGE_METRICS:
        return False
    counts = class_counts(kernel)
    return counts is not None and 0 < min(counts[1], counts[3]) < FEW_CLASS


def few_class_mover_text(diag: dict[str, Any]) -> str:
    """The clause the few-of-a-class warning adds where :func:`few_class_mover` gave MOVER
    (``diag["class_edge_method"]``, :func:`class_edge_diagnostics`), else ``""``."""
    method = diag.get("class_edge_method")
    if method == "mover_korn_graubard" and diag.get("n_conditions") is not None:
        return (
            ". The interval given is MOVER of the two classes' Korn & Graubard intervals "
            "over the conditions, which in mlci's design search (seed-12 #55: 101 samples "
            "over 16 conditions, 1-4 positives) covered 0.988 where the percentile interval "
            "covered 0.509; with so few samples in a class it is wide, and honestly so: "
            "collect more samples of the smaller class for a narrower one"
        )
    if method != "mover_wilson" or diag.get("n_conditions") is not None:
        return ""
    return (
        ". The interval given is MOVER of the two classes' modified Wilson intervals, which "
        "in mlci's design search (seed-11 #13: 162 samples, 1-6 positives) covered 0.983 "
        "where the percentile interval covered 0.565 and BCa 0.676; with so few samples in "
        "a class it is wide (13 times BCa's median width there), and honestly so: collect "
        "more samples of the smaller class for a narrower one"
    )


def class_edge_reason(fallback: str = "mover_wilson") -> str:
    """The part of ``method_reason`` that says the MOVER interval was used (the counts
    are in the result's ``details["class_counts"]``): ``"mover_wilson"`` of independent
    samples, ``"mover_korn_graubard"`` over conditions."""
    parts = (
        "modified Wilson intervals (Brown, Cai & DasGupta 2001)"
        if fallback == "mover_wilson"
        else "Korn & Graubard intervals over the conditions (Clopper-Pearson on each rate's "
        "effective sample size of its CR2 standard error, Korn & Graubard 1998)"
    )
    return (
        f"{fallback}: a class with at most {MAX_CLASS_ERRORS} errors of its own (or fewer "
        f"than {FEW_CLASS} samples), where the studentized "
        "interval is far too wide (a resample without that class's errors has a standard "
        "error from the other class alone) and a class without an error gets no standard "
        "error at all; MOVER (Zou & Donner 2008) of the two classes' "
        f"{parts} is used instead"
    )


def class_edge_diagnostics(
    kernel: Any, n_conditions: int | None, linear: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The design diagnostics of balanced accuracy read by :func:`class_edge_message`,
    :func:`class_rate_proportions` and :func:`few_class_mover_text`, else ``{}``:
    ``"class_errors"``, ``(false positives, false negatives)`` over conditions;
    ``"class_edge_method"``, the MOVER interval the linearization ``linear`` holds
    (:func:`class_edge_options`); ``"class_rates"``, the two classes' ``(rate, effective
    sample size)`` over conditions, negatives first, where it holds them."""
    counts = class_counts(kernel)
    if counts is None or kernel.name not in CLASS_EDGE_METRICS:
        return {}
    lin = linear or {}
    out: dict[str, Any] = {}
    if n_conditions is not None:
        out["class_errors"] = class_errors(counts)
        if lin.get("class_rates") is not None:
            out["class_rates"] = tuple(
                (float(r["estimate"]), float(r["effective_n"])) for r in lin["class_rates"]
            )
    if lin.get("analytic_method") is not None:
        out["class_edge_method"] = lin["analytic_method"]
    return out


def class_rate_proportions(diag: dict[str, Any], metric: str) -> list[tuple[str, float, float]]:
    """``(what, rate, effective sample size)`` of each class of balanced accuracy over
    conditions given MOVER of the classes' Korn & Graubard intervals (``diag["class_rates"]``),
    for the near-bound proportion rule of :func:`mlci.engine.auto.warn_outside_map`
    (recall's and specificity's warning with few effective minority outcomes, applied to
    each class's own rate); ``[]`` elsewhere, or where :func:`class_edge_message` warns.

    The seed-11 #58 design (40 conditions, ICC 0.42, 0.6% errors falling in 1-3
    conditions): MOVER covered 0.767 of 300 test sets, unwarned where a class or both had
    0-3 errors, while accuracy, recall and specificity of the same data warned.

    Examples
    --------
    >>> diag = {"n_conditions": 40, "class_errors": (0, 0),
    ...         "class_rates": ((1.0, 2700.0), (1.0, 160.0))}
    >>> [what[:13] for what, _, _ in class_rate_proportions(diag, "balanced_accuracy")]
    ['The negatives', 'The positives']
    """
    rates = diag.get("class_rates")
    if metric not in CLASS_EDGE_METRICS or rates is None or class_edge_message(diag, metric):
        return []
    names = ("The negatives' rate (specificity)", "The positives' rate (recall)")
    return [(what, float(p), float(n)) for what, (p, n) in zip(names, rates, strict=True)]


def class_edge_message(diag: dict[str, Any], metric: str) -> str | None:
    """The design warning's message for balanced accuracy over conditions with a class
    that has no error in the test set and more than :data:`MAX_CLASS_ERRORS` errors in the
    other (the sweep's designs; ``diag``: :func:`mlci.engine.auto.
    design_diagnostics`, with ``class_errors``), else None.

    Examples
    --------
    >>> class_edge_message({"n_conditions": 50, "class_errors": (10, 0)},
    ...                    "balanced_accuracy")[:43]
    'The positives have no error in the test set'
    >>> class_edge_message({"n_conditions": 50, "class_errors": (10, 1)},
    ...                    "balanced_accuracy") is None
    True
    """
    errors = diag.get("class_errors")
    if metric not in CLASS_EDGE_METRICS or diag.get("n_conditions") is None or errors is None:
        return None
    if min(errors) > 0 or max(errors) <= MAX_CLASS_ERRORS:
        # a few errors in all: the near-bound rule's (Korn & Graubard over conditions)
        return None
    which = "positives" if errors[1] == 0 else "negatives"
    return (
        f"The {which} have no error in the test set, so their rate has no standard error "
        "over the conditions; the interval given is MOVER of the two classes' intervals "
        "(the exact one of the class's size for them), which in mlci's sweep "
        '(docs/validation.md, "One door for a proportion over conditions near its bound") '
        "covered 0.67-1.00 on such test sets (median 0.95; BCa and the studentized "
        "interval 0.00-0.96)"
    )
