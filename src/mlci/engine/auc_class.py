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
#: of the test sets.  From 20 on the bootstrap intervals covered 0.885-0.955.
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
        "mlci's sweep (docs/validation.md, 'The AUC with few samples in a class' and 'The "
        "AUC with a small class': 3-15 positives, AUC 0.7-0.99) found no bootstrap or "
        "DeLong interval holding its level (stratified BCa 0.62-0.91, studentized "
        "0.62-0.96, DeLong 0.48-0.91)"
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
        "mlci.auc_score_ci gives a score-type interval that stays honest with a small class "
        "(it covered 0.92-1.00 in the same sweep, conservative when the positives' scores "
        "spread less than the negatives'). Or collect more samples of that class."
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
