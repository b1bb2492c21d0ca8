"""``method="auto"``'s BCa for a paired F1 difference over conditions with fewer than
:data:`MIN_PAIRED_F1_POSITIVES` samples of the smaller class (session 11, edgebca).

The paired skewness rule over conditions (:func:`mlci.comparison.paired_conditions.
skewed_condition_pairs`) needs :data:`~mlci.comparison.paired_conditions.
MIN_SKEW_CONDITIONS` effective conditions, which 1-4 positives never fill: such a
difference kept the t interval, whose upper end stopped short where the estimate was
low.  In ``scripts/edge_bca_study.py`` (seed-15 design #55, a paired F1 difference with
about 3 positives over 69 unequal conditions, and 6 neighbours: 30-150 conditions, ICC
0.05-0.40, 2-6 expected positives; 200 test sets per cell, B = 300) on the test sets with
fewer than 5 positives where ``auto`` gave the t interval, BCa covered at least as many
as t in 6 of 7 cells (0 to +12 test sets) and one fewer in the seventh (150
conditions: 61 against 62 of 81).  No interval holds there; the result still warns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .clustered_class import smaller_class

__all__ = ["MIN_PAIRED_F1_POSITIVES", "few_positive_pairs", "few_positive_reason"]

#: a paired F1 difference over conditions with fewer samples than this in the smaller
#: class gets BCa under ``"auto"`` (:func:`few_positive_pairs`)
MIN_PAIRED_F1_POSITIVES = 5
#: the metrics of the rule: the study's (F1) only
FEW_POSITIVE_METRICS = ("f1",)


def few_positive_pairs(
    kernels: Sequence[Any], ia: np.ndarray, ib: np.ndarray, metric: str
) -> np.ndarray:
    """Which paired differences (systems ``ia[k]``, ``ib[k]``) of ``metric`` get BCa:
    F1 with fewer than :data:`MIN_PAIRED_F1_POSITIVES` samples of the smaller class (the
    caller checks "over conditions" and that ``auto`` gave the t interval).

    Examples
    --------
    >>> import numpy as np
    >>> few_positive_pairs([], np.array([], dtype=int), np.array([], dtype=int), "f1")
    array([], dtype=bool)
    """
    out = np.zeros(len(ia), dtype=bool)
    if metric not in FEW_POSITIVE_METRICS:
        return out
    for k, (i, j) in enumerate(zip(ia, ib, strict=True)):
        few = [smaller_class(kernels[s]) for s in (int(i), int(j))]
        out[k] = any(f is not None and f < MIN_PAIRED_F1_POSITIVES for f in few)
    return out


def few_positive_reason(pairs: list[str], method: str = "bca") -> str:
    """The ``method_reason`` clause of :func:`few_positive_pairs`' pairs."""
    return (
        f"; {method} for the difference(s) {', '.join(pairs)}: an F1 difference over "
        f"conditions with fewer than {MIN_PAIRED_F1_POSITIVES} samples of the smaller class, "
        "too few for the skewness rule's effective conditions, where the t interval's end "
        "stopped short of the truth more often than BCa's (docs/validation.md, 'Two "
        "near-bound classes where auto was below BCa'); no interval holds its level there"
    )
