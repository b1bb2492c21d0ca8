"""Few *effective* conditions: Kish's number of conditions under the few-conditions warning.

The few-conditions warning counts conditions (:data:`mlci.engine.auto.MIN_CONDITIONS`, 8,
where the coverage map starts to hold).  With sizes that differ a lot, 12 conditions can
weigh like 2: the design search's seed-11 #31 (MCC over 12 conditions of log-normal
sizes, one of them holding 823 of 1,132 samples, ICC 0.26) has Kish's (1965) effective
number of conditions ``(sum n_c)^2 / sum n_c^2`` of 1.86, and there no method held (auto,
studentized, 0.847 of 300 test sets at 2.1 times BCa's width; BCa 0.823, percentile
0.883) while nothing warned.  The rule therefore also warns below
:data:`MIN_EFFECTIVE_CONDITIONS` effective conditions.  Over the mapped designs with at
least 8 conditions (``scripts/data/design_search*.json``, seeds 6-11, 549 runs; Kish's
number from each design's fixed sizes), the runs with fewer than 4 effective conditions
that did not already warn in most test sets were three: seed-11 #31 (0.847), seed-9 #195
(Brier score, 10 conditions, 3.14 effective: 0.860 and 0.895 of 200) and seed-9 #141
(accuracy, 8 conditions, 2.44 effective: 1.000, warned in 35 of 100 already), the one
false alarm.  Between 4 and 5 the unwarned runs held twice (FDR 0.98, error rate 0.95)
and missed once (Brier 0.89): a threshold of 5 would trade one catch for two false
alarms (docs/validation.md, "Design search, seed 11").
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "MIN_EFFECTIVE_CONDITIONS",
    "effective_conditions",
    "few_effective_conditions",
    "few_effective_conditions_text",
]

#: fewer effective conditions than this (Kish's number of the condition sizes, with the
#: sample weights if any) warns like fewer than 8 conditions do
MIN_EFFECTIVE_CONDITIONS = 4.0


def effective_conditions(unit: Any, weight: Any = None) -> float:
    """Kish's effective number of conditions, ``(sum W_c)^2 / sum W_c^2``, where ``W_c``
    is the number of samples of condition ``c`` (``unit[i]`` is the condition index of
    sample ``i``) or, with ``weight``, the sum of their weights.  Equal sizes give the
    number of conditions; one condition holding everything gives 1.

    Examples
    --------
    >>> effective_conditions([0, 0, 0, 1, 2, 3])  # sizes 3, 1, 1, 1: 36 / 12
    3.0
    >>> effective_conditions([0, 1, 2, 3], weight=[3.0, 1.0, 1.0, 1.0])
    3.0
    """
    unit = np.asarray(unit, dtype=np.intp)
    w = None if weight is None else np.asarray(weight, dtype=float)
    sizes = np.bincount(unit, weights=w)
    total = float(sizes.sum())
    square = float(np.sum(sizes**2))
    return total**2 / square if square > 0 else 0.0


def few_effective_conditions(effective: float | None) -> bool:
    """Whether Kish's ``effective`` number of conditions (None: unknown) is below
    :data:`MIN_EFFECTIVE_CONDITIONS`.

    Examples
    --------
    >>> [few_effective_conditions(x) for x in (1.86, 12.0, None)]
    [True, False, False]
    """
    return effective is not None and float(effective) < MIN_EFFECTIVE_CONDITIONS


def few_effective_conditions_text(effective: float, n_conditions: int) -> str:
    """The few-conditions warning's clause for ``n_conditions`` conditions that weigh like
    ``effective`` (below :data:`MIN_EFFECTIVE_CONDITIONS`).

    Examples
    --------
    >>> few_effective_conditions_text(1.86, 12)[:62]
    'Only 1.86 effective conditions (Kish: (sum n_c)^2 / sum n_c^2)'
    """
    return (
        f"Only {effective:.3g} effective conditions (Kish: (sum n_c)^2 / sum n_c^2) among "
        f"the {n_conditions} resampled: their sizes differ so much that a few of them carry "
        f"the estimate, and below {MIN_EFFECTIVE_CONDITIONS:g} mlci's design search found no "
        "interval method holding its level (MCC over 12 conditions weighing like 1.86: "
        "0.82-0.88 of 300 test sets, docs/validation.md, 'Design search, seed 11'). "
        "Report the largest conditions' results separately, or collect more samples in the "
        "other conditions"
    )
