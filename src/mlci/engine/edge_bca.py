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

Session 12 (edgef1, ``scripts/edge_f1_study.py``: 43 cells of 6-150 conditions, ICC
0-0.45, 1.5-8 expected positives, 250 test sets each) refined the class's interval
(:func:`few_positive_method`): the t interval below :data:`FEW_POSITIVE_T_CONDITIONS`
conditions, the percentile interval below :data:`FEW_POSITIVE_PERCENTILE_CONDITIONS` or
with :data:`FEW_POSITIVE_PERCENTILE_CLASS` sample of the class, BCa otherwise: ``auto``
more than 0.01 below the best of t, BCa and percentile in 5 cells instead of 36 (largest
gap 0.037 instead of 0.165; docs/validation.md, "Paired F1 with few positives over few
conditions: percentile or BCa").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .clustered_class import smaller_class

__all__ = [
    "FEW_POSITIVE_PERCENTILE_CLASS",
    "FEW_POSITIVE_PERCENTILE_CONDITIONS",
    "FEW_POSITIVE_T_CONDITIONS",
    "MIN_PAIRED_F1_POSITIVES",
    "few_positive_method",
    "few_positive_methods",
    "few_positive_pairs",
    "few_positive_reason",
    "few_positive_t_reason",
]

#: a paired F1 difference over conditions with fewer samples than this in the smaller
#: class gets BCa under ``"auto"`` (:func:`few_positive_pairs`)
MIN_PAIRED_F1_POSITIVES = 5
#: the metrics of the rule: the study's (F1) only
FEW_POSITIVE_METRICS = ("f1",)


def few_positive_pairs(
    kernels: Sequence[Any],
    ia: np.ndarray,
    ib: np.ndarray,
    metric: str,
    n_conditions: int | None = None,
) -> np.ndarray:
    """Which paired differences (systems ``ia[k]``, ``ib[k]``) of ``metric`` leave the t
    interval: F1 with fewer than :data:`MIN_PAIRED_F1_POSITIVES` samples of the smaller
    class (the caller checks "over conditions" and that ``auto`` gave the t interval),
    over at least :data:`FEW_POSITIVE_T_CONDITIONS` conditions when ``n_conditions`` is
    given (below, the t interval stays: :func:`few_positive_method`).

    Examples
    --------
    >>> import numpy as np
    >>> few_positive_pairs([], np.array([], dtype=int), np.array([], dtype=int), "f1")
    array([], dtype=bool)
    """
    methods = few_positive_methods(kernels, ia, ib, metric, n_conditions)
    return (methods != "") & (methods != "t")


def _fewest(kernels: Sequence[Any], i: int, j: int) -> int | None:
    """The smaller class's size of systems ``i`` and ``j`` where it is below
    :data:`MIN_PAIRED_F1_POSITIVES` (the smaller of the two; else None)."""
    few = [f for s in (i, j) if (f := smaller_class(kernels[s])) is not None]
    few = [f for f in few if f < MIN_PAIRED_F1_POSITIVES]
    return min(few) if few else None


def few_positive_reason(pairs: list[str], method: str = "bca") -> str:
    """The ``method_reason`` clause of :func:`few_positive_pairs`' pairs."""
    if method == "percentile":
        return (
            f"; percentile for the difference(s) {', '.join(pairs)}: an F1 difference over "
            f"conditions with fewer than {MIN_PAIRED_F1_POSITIVES} samples of the smaller "
            f"class, over fewer than {FEW_POSITIVE_PERCENTILE_CONDITIONS} conditions or with "
            f"at most {FEW_POSITIVE_PERCENTILE_CLASS} of it, where BCa's end stopped short "
            "of the truth more often than the percentile interval's (docs/validation.md, "
            "'Paired F1 with few positives over few conditions'); no interval holds its "
            "level there"
        )
    return (
        f"; {method} for the difference(s) {', '.join(pairs)}: an F1 difference over "
        f"conditions with fewer than {MIN_PAIRED_F1_POSITIVES} samples of the smaller class, "
        "too few for the skewness rule's effective conditions, where the t interval's end "
        "stopped short of the truth more often than BCa's (docs/validation.md, 'Two "
        "near-bound classes where auto was below BCa'); no interval holds its level there"
    )


# ---- session 12 (edgef1): t below 16 conditions, the percentile interval with 1 of a class
#: a few-positive F1 difference over fewer conditions than this keeps the t interval
#: (``scripts/edge_f1_study.py``: over 6-8 conditions t covered 0.88-0.93 of the
#: 113-sample design's test sets where BCa covered 0.75-0.82 and the percentile interval
#: 0.78-0.88; docs/validation.md, "Paired F1 with few positives over few conditions")
FEW_POSITIVE_T_CONDITIONS = 16
#: from :data:`FEW_POSITIVE_T_CONDITIONS` to fewer conditions than this: the percentile
#: interval (BCa's bias correction of a handful of positives pushed it off the truth)
FEW_POSITIVE_PERCENTILE_CONDITIONS = 30
#: over more conditions, a smaller class of at most this many samples gets the percentile
#: interval too (one positive over 30 conditions: percentile 0.816, BCa 0.675, t 0.769)
FEW_POSITIVE_PERCENTILE_CLASS = 1


def few_positive_method(few: int, n_conditions: int) -> str:
    """``auto``'s interval for an F1 difference over ``n_conditions`` conditions whose
    smaller class has ``few`` (fewer than :data:`MIN_PAIRED_F1_POSITIVES`) samples: ``"t"``
    below :data:`FEW_POSITIVE_T_CONDITIONS` conditions, ``"percentile"`` below
    :data:`FEW_POSITIVE_PERCENTILE_CONDITIONS` or with at most
    :data:`FEW_POSITIVE_PERCENTILE_CLASS` samples of the class, else ``"bca"`` (session
    11's rule).  No interval holds its level there; the result still warns.

    Examples
    --------
    >>> few_positive_method(3, 8), few_positive_method(3, 20), few_positive_method(3, 69)
    ('t', 'percentile', 'bca')
    >>> few_positive_method(1, 69)
    'percentile'
    """
    if n_conditions < FEW_POSITIVE_T_CONDITIONS:
        return "t"
    if n_conditions < FEW_POSITIVE_PERCENTILE_CONDITIONS or few <= FEW_POSITIVE_PERCENTILE_CLASS:
        return "percentile"
    return "bca"


def few_positive_methods(
    kernels: Sequence[Any],
    ia: np.ndarray,
    ib: np.ndarray,
    metric: str,
    n_conditions: int | None,
) -> np.ndarray:
    """:func:`few_positive_method` of each pair (``""`` outside the class; ``"bca"``,
    session 11's rule, where the number of conditions is unknown).

    Examples
    --------
    >>> import numpy as np
    >>> few_positive_methods([], np.array([], dtype=int), np.array([], dtype=int), "f1", 8)
    array([], dtype='<U10')
    """
    out = np.full(len(ia), "", dtype="<U10")
    if metric not in FEW_POSITIVE_METRICS:
        return out
    for k, (i, j) in enumerate(zip(ia, ib, strict=True)):
        few = _fewest(kernels, int(i), int(j))
        if few is not None:
            out[k] = "bca" if n_conditions is None else few_positive_method(few, n_conditions)
    return out


def few_positive_t_reason(pairs: list[str], n_conditions: int) -> str:
    """The ``method_reason`` clause of the few-positive pairs that keep t."""
    return (
        f"; t kept for the difference(s) {', '.join(pairs)}: an F1 difference with fewer "
        f"than {MIN_PAIRED_F1_POSITIVES} samples of the smaller class over {n_conditions} "
        f"conditions (fewer than {FEW_POSITIVE_T_CONDITIONS}), where the t interval "
        "covered more often than BCa and the percentile interval (docs/validation.md, "
        "'Paired F1 with few positives over few conditions'); no interval holds its "
        "level there"
    )
