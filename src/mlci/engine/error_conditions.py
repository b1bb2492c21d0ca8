"""F1, MCC, kappa and balanced accuracy over conditions whose errors sit in a handful of
conditions (session 11, lead; the decision search's seed-14 #53).

Over conditions a decision metric's interval reads the design effect of its errors from
the conditions that hold them.  Where the errors of the test set fall in at most
:data:`MAX_ERROR_CONDITIONS` conditions that design effect rests on those few, and the
data cannot tell errors that cluster by condition (a strong condition effect on a rare
error) from a few independent ones.  Seed-14 #53 (MCC, 1,637 samples over 302 unequal
conditions, ICC 0.47, about 62 positives, 17 expected false alarms and 0.35 misses):
``auto`` covered 0.877 of 300 test sets (BCa 0.887, no method held), warned in 1; the
test sets whose false alarms fell in 1-4 conditions covered 0.70 (37 of 56: 0 of 2, 3 of
8, 7 of 11, 27 of 35), those with 5 or more 0.926 (226 of 244), the misses mostly above
the truth (test sets with few false alarms).  :func:`error_conditions_rule` warns there;
the message says what the interval rests on.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "MAX_ERROR_CONDITIONS",
    "error_conditions",
    "error_conditions_message",
    "error_conditions_rule",
]

#: errors in at most this many conditions warn: seed-14 #53's test sets covered 0.70 with
#: 1-4 such conditions, 31 of 32 with 5 and 0.92 with 6 or more
MAX_ERROR_CONDITIONS = 4
#: at least this many conditions resampled (fewer: the few-conditions warning speaks)
MIN_RULE_CONDITIONS = 8


def error_conditions(keys: np.ndarray, unit: np.ndarray) -> int:
    """The number of conditions holding at least one error of a two-class decision kernel
    (``keys = 2 * truth + prediction``: an error where ``keys`` is 1 or 2).

    Examples
    --------
    >>> import numpy as np
    >>> error_conditions(np.array([0, 1, 3, 2, 1, 0]), np.array([0, 0, 1, 2, 2, 3]))
    2
    """
    wrong = (np.asarray(keys) == 1) | (np.asarray(keys) == 2)
    return int(np.unique(np.asarray(unit)[wrong]).size)


def error_conditions_rule(n_conditions: Any, held: Any) -> bool:
    """Whether errors held by ``held`` conditions (at least one) of ``n_conditions`` warn.

    Examples
    --------
    >>> error_conditions_rule(302, 4), error_conditions_rule(302, 5)
    (True, False)
    >>> error_conditions_rule(302, 0), error_conditions_rule(6, 2)
    (False, False)
    """
    if n_conditions is None or held is None or n_conditions < MIN_RULE_CONDITIONS:
        return False
    return 0 < held <= MAX_ERROR_CONDITIONS


def error_conditions_message(held: int, n_conditions: int) -> str:
    """The warning's message for errors in ``held`` of ``n_conditions`` conditions."""
    where = "one condition" if held == 1 else f"{held} conditions"
    return (
        f"The test set's errors fall in {where} of {n_conditions}: the interval's design "
        "effect over the conditions rests on them, and the data cannot tell errors that "
        "cluster by condition from a few independent ones (mlci's design search, seed-14 "
        "#53: MCC over 302 conditions with false alarms in 1-4 conditions covered 0.70, "
        "with 5 or more 0.93; docs/validation.md, 'A test set without an error, and the "
        "ROC AUC's misranked samples')"
    )
