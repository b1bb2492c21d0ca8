"""The ROC AUC's class-size warning (issue 20): fewer than :data:`MIN_AUC_CLASS` samples
in the smaller class, through every door (:func:`mlci.bootstrap_ci` with or without
``strata``, :func:`mlci.auc_ci`, the Scores drivers); ``warn_outside_map`` of
:mod:`mlci.engine.auto` and the Scores driver give it."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import FewConditionsWarning
from ..feedback import warn

__all__ = ["MIN_AUC_CLASS", "few_auc_class_message", "warn_few_auc_class"]


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
    """The sentence of the few-samples warning of a ROC AUC (:data:`MIN_AUC_CLASS`).

    Examples
    --------
    >>> few_auc_class_message(8).split(":")[0]
    'Only 8 samples in the smaller class of a ROC AUC'
    """
    return (
        f"Only {few} samples in the smaller class of a ROC AUC: below {MIN_AUC_CLASS}, "
        "mlci's sweep (docs/validation.md, 'The AUC with few samples in a class': 3-15 "
        "positives, AUC 0.8-0.99) found no interval method holding its level (stratified "
        "BCa 0.62-0.91, studentized 0.62-0.96, DeLong 0.49-0.91)"
    )


def warn_few_auc_class(n_pos: Any, n_neg: Any) -> str | None:
    """Warn (and return the message) for a ROC AUC whose smaller class has fewer than
    :data:`MIN_AUC_CLASS` samples (the smallest over the elements of an array).

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
    text = (
        few_auc_class_message(few)
        + ". Treat the interval as optimistic, or collect more samples of that class."
    )
    warn(text, FewConditionsWarning)
    return text
