"""A ROC AUC near 1 whose error rests on few misranked samples (session 11, lead).

Average precision's mechanism (:mod:`mlci.engine.ap_misranked`) for the ROC AUC: near
AUC = 1 with many samples in both classes, ``1 - AUC`` is the share of misranked pairs,
which rest on the few positives that some negative outranks and the few negatives that
outrank some positive.  The bootstrap's spread follows how many of them the test set
happens to hold: a test set with fewer gets an estimate too close to 1 and a narrower
interval, and the interval misses from above.  The design search's seed 14 confirmed it
for seed-13 #20's population (about 1,810 positives, 1 - AUC = 6.9e-5, iid):
``bootstrap_ci(metric="roc_auc")`` covered 0.893 of 300 test sets (warned in 19),
``auc_ci`` 0.863 (warned in none).  The score-type interval that ``auto`` gives with
fewer than :data:`~mlci.engine.auc_analytic.MIN_AUC_CLASS_SCORE_EDGE` samples in the
smaller class covers there, but at 1.9-7.9 times the width; no interval held its level,
so the rule warns.  Calibration: ``scripts/auc_misranked_study.py``
(``scripts/data/auc_misranked_study.json``; docs/validation.md, "A test set without an
error, and the ROC AUC's misranked samples (session 11, lead)").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import NearBoundWarning
from ..feedback import warn
from .auc_analytic import MIN_AUC_CLASS_SCORE_EDGE

__all__ = [
    "AUC_MISRANKED_BAND",
    "MIN_MISRANKED_AUC",
    "few_misranked_auc_rule",
    "misranked_counts",
    "warn_few_misranked_auc",
]

#: fewer misranked positives or negatives than this (the smaller count) warns.  In the
#: study (300 test sets a row) the warned test sets covered 0.917, 0.913 and 0.679 at
#: 1 - AUC = 6.9e-5, 2e-4 and 6e-4 (warned in 97%, 69% and 9% of them; 24 of 25, 18 of 24
#: and 9 of 20 misses warned) and the unwarned ones 0.900 (9 test sets), 0.936 and 0.960;
#: at 3e-3 none warned (0.937).  60 left 9 of 24 misses unwarned at 2e-4, 150 warned 32%
#: of the test sets at 6e-4, whose design held (0.933)
MIN_MISRANKED_AUC = 100
#: the rule's range: an AUC within this distance of 1 (or of 0)
AUC_MISRANKED_BAND = 0.01


def misranked_counts(u_neg: Any, c_neg: Any, u_pos: Any, c_pos: Any) -> tuple[int, int]:
    """``(misranked positives, misranked negatives)``: positives scored at or below the
    highest negative score, negatives at or above the lowest positive score, from each
    class's sorted distinct scores ``u`` and their sample counts ``c`` (absent atoms
    have count 0).

    Examples
    --------
    >>> misranked_counts([0.1, 0.6], [1, 1], [0.5, 0.7, 0.9], [1, 1, 1])
    (1, 1)
    """
    u_neg, c_neg = np.asarray(u_neg, dtype=float), np.asarray(c_neg, dtype=float)
    u_pos, c_pos = np.asarray(u_pos, dtype=float), np.asarray(c_pos, dtype=float)
    neg, pos = np.flatnonzero(c_neg > 0), np.flatnonzero(c_pos > 0)
    if neg.size == 0 or pos.size == 0:
        return 0, 0
    top_negative, low_positive = u_neg[neg[-1]], u_pos[pos[0]]
    mis_pos = float(c_pos[u_pos <= top_negative].sum())
    mis_neg = float(c_neg[u_neg >= low_positive].sum())
    return round(mis_pos), round(mis_neg)


def few_misranked_auc_rule(
    estimate: Any, misranked: tuple[int, int] | None, few: Any = MIN_AUC_CLASS_SCORE_EDGE
) -> bool:
    """Whether a ROC AUC ``estimate`` within :data:`AUC_MISRANKED_BAND` of its bound rests
    on fewer than :data:`MIN_MISRANKED_AUC` misranked positives or negatives (the smaller
    of the two ``misranked`` counts; an AUC near 0 reads them with the classes' roles
    swapped, which leaves the counts as they are), with ``few``, the smaller class, at
    least :data:`~mlci.engine.auc_analytic.MIN_AUC_CLASS_SCORE_EDGE` (below it ``auto``
    gives the score-type interval near the bound, with its own warning).

    Examples
    --------
    >>> few_misranked_auc_rule(0.99993, (27, 30)), few_misranked_auc_rule(0.997, (27, 30))
    (True, True)
    >>> few_misranked_auc_rule(0.985, (27, 30)), few_misranked_auc_rule(0.9999, (150, 400))
    (False, False)
    >>> few_misranked_auc_rule(0.99993, (27, 30), few=300)
    False
    """
    if misranked is None or estimate is None or np.ndim(estimate) != 0:
        return False
    if few is None or few < MIN_AUC_CLASS_SCORE_EDGE:
        return False
    est = float(estimate)
    if not np.isfinite(est) or min(est, 1.0 - est) >= AUC_MISRANKED_BAND:
        return False
    return min(misranked) < MIN_MISRANKED_AUC


def warn_few_misranked_auc(
    estimate: Any,
    misranked: tuple[int, int] | None,
    method: str | None = None,
    before: Any = (),
    few: Any = MIN_AUC_CLASS_SCORE_EDGE,
) -> str | None:
    """Warn (:class:`~mlci.exceptions.NearBoundWarning`) and return the message where
    :func:`few_misranked_auc_rule` holds; ``before``: earlier messages put first.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     text = warn_few_misranked_auc(0.99993, (27, 30), "studentized")
    >>> text.split(" whose")[0], w[0].category.__name__
    ('A ROC AUC of 0.99993', 'NearBoundWarning')
    >>> warn_few_misranked_auc(0.95, (27, 30)) is None
    True
    """
    if not few_misranked_auc_rule(estimate, misranked, few):
        return None
    assert misranked is not None
    found = (
        f"A ROC AUC of {float(estimate):.6g} whose error rests on {misranked[0]} positives "
        f"outranked by some negative and {misranked[1]} negatives outranking some positive "
        f"(fewer than {MIN_MISRANKED_AUC} of either, within {AUC_MISRANKED_BAND:g} of the "
        "bound): the bootstrap's spread follows how many such samples the test set holds, "
        "and in mlci's study (docs/validation.md, 'A test set without an error, and the ROC "
        "AUC's misranked samples') such test sets covered 0.68-0.92 (the score-type "
        "interval held, at 2-8 times the width)"
    )
    which = f"The {method} interval" if method else "The interval"
    text = (
        "; ".join([*before, found])
        + f". {which} of the ROC AUC may not keep its confidence level: treat it as "
        "optimistic, or collect more data."
    )
    warn(text, NearBoundWarning)
    return text
