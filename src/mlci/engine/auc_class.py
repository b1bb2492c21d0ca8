"""The ROC AUC's class-size warning (issue 20): fewer than :data:`MIN_AUC_CLASS` samples
in the smaller class, through every door (:func:`mlci.bootstrap_ci` with or without
``strata``, :func:`mlci.auc_ci`, the Scores drivers); ``warn_outside_map`` of
:mod:`mlci.engine.auto` and the Scores driver give it."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import FewConditionsWarning
from ..feedback import warn

__all__ = [
    "MIN_AUC_CLASS",
    "few_auc_class_message",
    "few_auc_class_text",
    "warn_few_auc_class",
]


#: a ROC AUC whose smaller class has fewer samples than this warns, through every door
#: (:func:`mlci.bootstrap_ci` with or without ``strata``, :func:`mlci.auc_ci`, the
#: Scores drivers).  The sweep behind it (docs/validation.md, "The AUC with few samples
#: in a class"; ``scripts/auc_few_class_sweep.py``): 150 negatives, 3-50 positives,
#: binormal AUC 0.8-0.99, the class counts fixed, 200 test sets, B = 500: below 20
#: positives the stratified BCa (``auc_ci``) covered 0.62-0.91, the unstratified
#: studentized interval 0.62-0.96 (holding only by reaching the edge), DeLong's normal
#: interval 0.49-0.91, on the logit scale 0.79-0.985; the near-bound rule warned in 0-100%
#: of the test sets.  From 20 on the bootstrap intervals covered 0.885-0.955.  The second
#: sweep (docs/validation.md, "The AUC with a small class: an interval that holds": 20-1,000
#: negatives, unequal spreads, ties) found no method holding across score shapes either;
#: :func:`mlci.auc_score_ci` (score-type, floored) seldom falls short (0.90-1.00).
MIN_AUC_CLASS = 20


def few_auc_class_message(few: int) -> str:
    """What the few-samples warning of a ROC AUC found (:data:`MIN_AUC_CLASS`): the first
    part of :func:`few_auc_class_text`.

    Examples
    --------
    >>> few_auc_class_message(8).split(":")[0]
    'Only 8 samples in the smaller class of a ROC AUC'
    """
    return (
        f"Only {few} samples in the smaller class of a ROC AUC: below {MIN_AUC_CLASS}, "
        "mlci's sweeps (docs/validation.md, 'The AUC with few samples in a class' and 'The "
        "AUC with a small class') found no interval method holding its level across score "
        "distributions (stratified BCa 0.62-0.95, DeLong 0.22-0.96, on the logit scale "
        "0.31-0.99)"
    )


def few_auc_class_text(few: int, method: str | None = None, before: Any = ()) -> str:
    """The whole few-samples warning of a ROC AUC, the same through every door.

    ``method``: the interval method given (None: not named); ``before``: other findings of
    the same design (:func:`mlci.engine.auto.warn_outside_map`), put first.

    Examples
    --------
    >>> few_auc_class_text(8, "bca").split(". ")[-3]
    'The bca interval may not keep its confidence level: treat it as optimistic'
    """
    which = "The interval" if method is None else f"The {method} interval"
    return (
        "; ".join([*before, few_auc_class_message(few)])
        + f". {which} may not keep its confidence level: treat it as optimistic. "
        "mlci.auc_score_ci gives a score-type interval that rarely falls short there (it "
        "covered 0.90-1.00 in the same sweep, mostly above 0.965: conservative). Or collect "
        "more samples of that class."
    )


def warn_few_auc_class(
    n_pos: Any, n_neg: Any, method: str | None = None, before: Any = ()
) -> str | None:
    """Warn (and return the message) for a ROC AUC whose smaller class has fewer than
    :data:`MIN_AUC_CLASS` samples (the smallest over the elements of an array): the
    message of :func:`few_auc_class_text`.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     text = warn_few_auc_class(8, 150)
    >>> w[0].category.__name__
    'FewConditionsWarning'
    >>> warn_few_auc_class(20, 150) is None
    True
    """
    smaller = np.minimum(np.atleast_1d(n_pos), np.atleast_1d(n_neg))
    few = int(smaller.min())
    if few >= MIN_AUC_CLASS:
        return None
    text = few_auc_class_text(few, method, before)
    warn(text, FewConditionsWarning)
    return text
