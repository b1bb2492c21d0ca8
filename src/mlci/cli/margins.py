"""The ``--margin`` table of ``mlci compare``: non-inferiority and equivalence (TOST).

Shared by ``--test bootstrap`` (:func:`mlci.compare` with ``margin=``) and ``--test
mcnemar`` (:func:`mlci.mcnemar_margin_test`); see docs/decisions.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..comparison.margins import MarginTest
from .common import OutTable


def margin_table(tests: Sequence[MarginTest], confidence_level: float) -> OutTable:
    """One row per pair: the ``1 - 2 alpha`` interval, the two adjusted p-values and the
    decisions at ``alpha``."""
    alpha = 1.0 - confidence_level
    level = f"{(1 - 2 * alpha) * 100:.10g}%"
    m = tests[0].margin
    t = OutTable(
        f"margin {m:g}: non-inferiority and equivalence (TOST) at {alpha:g}",
        [
            "difference",
            "estimate",
            f"{level} low",
            f"{level} high",
            "p non-inferiority",
            "p equivalence",
            "decision",
        ],
    )
    for r in tests:
        decision = (
            "equivalent" if r.equivalent else "non-inferior" if r.noninferior else "undecided"
        )
        t.rows.append(
            [
                f"{r.a} - {r.b}",
                r.estimate,
                r.interval.low,
                r.interval.high,
                f"{r.pvalue_noninferiority_adjusted:.4g}",
                f"{r.pvalue_equivalence_adjusted:.4g}",
                decision,
            ]
        )
    return t


def margin_footer(tests: Sequence[MarginTest]) -> str:
    """What was tested, in words, for every pair ``A - B``."""
    t = tests[0]
    m = f"{t.margin:g}"
    ni = f"A - B <= -{m}" if t.higher_is_better else f"A - B >= {m}"
    return (
        f"H0 of non-inferiority: {ni} (A worse than B by {m} or more); H0 of equivalence: "
        f"|A - B| >= {m}; p-values: {t.method}"
    )


def margin_data(tests: Sequence[MarginTest]) -> list[dict[str, Any]]:
    """The JSON of the margin tests."""
    return [r.to_dict() for r in tests]
