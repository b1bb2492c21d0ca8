"""``method="auto"``'s analytic interval of a ROC AUC of independent samples with a small
class or near its bound (issue 20).

Where the bootstrap intervals of one AUC fall short (docs/validation.md, "The AUC near its
bound or with a small class under auto"; ``scripts/auc_auto_analytic_sweep.py``), ``auto``
returns the score-type ``floored`` interval of :func:`mlci.auc_score_ci`
(``method="auc-score-floored"``, :class:`AucScoreInterval`) inside the bootstrap result,
its replicates kept, through every door: :func:`mlci.bootstrap_ci` (``metric="roc_auc"``,
with or without ``strata``), :func:`mlci.auc_ci` and ``Scores.bootstrap_ci("auc")``.
:meth:`~mlci.BootstrapResult.interval` re-reads it at any level (``method`` left out or
``"auc-score-floored"``); any other method reads the replicates.  It applies to a single
unweighted AUC of independent samples (no conditions, no sample weights, no user
sampler) with at least 2 samples in each class, where :func:`auc_score_rule` holds.  A
:class:`~mlci.exceptions.FewConditionsWarning` still says that no method held across score
shapes there (:func:`auc_score_text`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import DegenerateIntervalWarning, FewConditionsWarning, NearBoundWarning
from ..feedback import warn
from ..intervals.auc_score import atom_placement_terms, auc_score_bounds
from ..results import AnalyticInterval, BootstrapResult, attach_analytic
from .auc_class import MIN_AUC_CLASS, near_edge_auc_rule

__all__ = [
    "AUC_SCORE_EDGE_BAND",
    "AUC_SCORE_METHOD",
    "MIN_AUC_CLASS_SCORE_EDGE",
    "AucScoreInterval",
    "auc_auto",
    "auc_score_reason",
    "auc_score_rule",
    "auc_score_text",
    "kernel_auc_score",
    "scores_auc_score",
    "with_auc_score",
]

#: the ``method`` of ``auto``'s analytic AUC interval (as :func:`mlci.auc_score_ci` names it)
AUC_SCORE_METHOD = "auc-score-floored"
#: the distance of the AUC from 1 (or 0) within which :data:`MIN_AUC_CLASS_SCORE_EDGE`
#: holds: beyond the near-bound rule's 149 (:func:`mlci.engine.auc_class.near_edge_auc_rule`),
#: AUC 0.99 with 150-500 positives (twice as many negatives) covered 0.882-0.920 under BCa
#: and 0.900-0.958 under the studentized interval (200-600 test sets a cell; positives as
#: spread as negatives or twice as spread; 0.945-0.958 only at 150 with equal spreads),
#: with this rule 0.935-0.980; at AUC 0.98 with 150-200, 0.920-0.957, the rule fires in
#: 2-7% of the test sets
AUC_SCORE_EDGE_BAND = 0.01
#: the smaller class's size below which an AUC within :data:`AUC_SCORE_EDGE_BAND` of its
#: bound gets the analytic interval: the sweep's largest cell (500 positives, AUC 0.99)
#: was still short (BCa 0.915-0.920); above it, not measured
MIN_AUC_CLASS_SCORE_EDGE = 501


def auc_score_rule(few: int, estimate: Any) -> bool:
    """Whether ``auto`` gives a ROC AUC with ``few`` samples in its smaller class (at least
    2) the analytic interval: fewer than :data:`~mlci.engine.auc_class.MIN_AUC_CLASS`
    (20) samples, or :func:`~mlci.engine.auc_class.near_edge_auc_rule` (20-49 within 0.1
    of the bound, 20-149 within 0.02), or fewer than :data:`MIN_AUC_CLASS_SCORE_EDGE`
    within :data:`AUC_SCORE_EDGE_BAND`.

    Examples
    --------
    >>> auc_score_rule(8, 0.7), auc_score_rule(30, 0.95), auc_score_rule(30, 0.85)
    (True, True, False)
    >>> auc_score_rule(500, 0.992), auc_score_rule(200, 0.985), auc_score_rule(1, 0.7)
    (True, False, False)
    """
    if few < 2 or estimate is None or np.ndim(estimate) != 0 or not np.isfinite(estimate):
        return False
    if few < MIN_AUC_CLASS or near_edge_auc_rule(few, estimate):
        return True
    gap = min(float(estimate), 1.0 - float(estimate)) - 1e-12
    return bool(gap <= AUC_SCORE_EDGE_BAND and few < MIN_AUC_CLASS_SCORE_EDGE)


def _region(few: int) -> str:
    """The sweep's region of a ``few`` that :func:`auc_score_rule` holds for."""
    if few < MIN_AUC_CLASS:
        return (
            f"fewer than {MIN_AUC_CLASS} samples in the smaller class (mlci's sweep, 230 cells "
            "of 5-19: the stratified BCa covered 0.62-0.95, the studentized interval 0.72-0.99 "
            "by reaching the range's edge, this one 0.90-1.00, above 0.965 in 185)"
        )
    return (
        "an AUC near its bound with 20-500 samples in the smaller class (mlci's sweep: BCa "
        "and the studentized interval covered 0.65-0.96 there, this one 0.92-1.00, above "
        "0.965 in most cells)"
    )


def auc_score_reason(few: int) -> str:
    """``method_reason`` of ``auto``'s analytic AUC interval for ``few`` samples in the
    smaller class.

    Examples
    --------
    >>> auc_score_reason(8).split(":")[0]
    'auc-score-floored'
    """
    return (
        f"{AUC_SCORE_METHOD}: the ROC AUC's score-type interval (mlci.auc_score_ci, variant "
        "'floored': the AUC values whose distance from the estimate is within z times the "
        "larger of Newcombe's (2006) variance and DeLong's carried to that value with Korn & "
        f"Graubard's degrees of freedom), for {_region(few)}; the bootstrap cannot see the "
        "spread of a class the test set holds few of (docs/validation.md, 'The AUC near its "
        "bound or with a small class under auto'). It errs on the wide side"
    )


def auc_score_text(few: int, estimate: float) -> str:
    """The warning of an AUC that ``auto`` gave the analytic interval: the same start as the
    few-samples and near-bound warnings of :mod:`mlci.engine.auc_class`, one text through
    every door.

    Examples
    --------
    >>> auc_score_text(30, 0.96).split(":")[0]
    'Only 30 samples in the smaller class of a ROC AUC of 0.96'
    """
    return (
        f"Only {few} samples in the smaller class of a ROC AUC of {estimate:.3g}: with "
        f"{_region(few)}, auto gives the score-type interval ({AUC_SCORE_METHOD}) in place "
        "of the bootstrap's. No method held its level across score distributions there "
        "(docs/validation.md, 'The AUC near its bound with 20-149 of a class' and 'The AUC "
        "near its bound or with a small class under auto'): this interval is usually "
        "conservative (wider than needed), and may fall a little short when the positives' "
        "scores spread far more than the negatives'. Collect more samples of that class for "
        "a tighter interval."
    )


@dataclass(frozen=True)
class AucScoreInterval:
    """What re-reads ``auto``'s analytic AUC interval at any level: the AUC, the two terms
    of DeLong's variance and the class sizes (:func:`auc_score_bounds`, ``floored``)."""

    auc: float
    v_pos: float
    v_neg: float
    n_pos: int
    n_neg: int
    method: str = AUC_SCORE_METHOD

    def __call__(self, confidence_level: float, alternative: str) -> tuple[float, float]:
        low, high, _ = auc_score_bounds(
            self.auc, self.v_pos, self.v_neg, self.n_pos, self.n_neg, "floored",
            confidence_level, alternative,
        )  # fmt: skip
        return low, high

    @property
    def few(self) -> int:
        """The smaller class's size."""
        return min(self.n_pos, self.n_neg)


def _from_atoms(u_neg: Any, c_neg: Any, u_pos: Any, c_pos: Any, estimate: Any) -> Any:
    """The :class:`AucScoreInterval` of the atoms where :func:`auc_score_rule` holds."""
    if np.ndim(estimate) != 0:
        return None
    few = int(min(np.sum(c_neg), np.sum(c_pos)))
    if not auc_score_rule(few, float(estimate)):
        return None
    auc, v_pos, v_neg, m, n = atom_placement_terms(u_neg, c_neg, u_pos, c_pos)
    return AucScoreInterval(auc, v_pos, v_neg, m, n)


def with_auc_score(res: BootstrapResult, score: AucScoreInterval) -> BootstrapResult:
    """``res`` (its replicates kept) with ``auto``'s analytic interval at its level, and
    the warning of :func:`auc_score_text` (given here)."""
    text = auc_score_text(score.few, float(res.estimate))
    warn(text, FewConditionsWarning)
    # (the jackknife's acceleration stays: res.interval(method="bca") reads it)
    drop = ("z0", "edge_fallback", "edge_fallback_method", "edge_dominated")
    details = {k: v for k, v in res.details.items() if k not in drop}
    details.update(
        method_reason=auc_score_reason(score.few), warning=text, few_samples_warning=text
    )
    record = AnalyticInterval(score.method, details.pop("method_reason"), score)
    return attach_analytic(res, record, details)


#: the bootstrap's own warnings that the analytic interval replaces (the AUC's class-size
#: and near-bound texts, a collapse at the edge)
_REPLACED = re.compile(r"Only \d+ samples in the smaller class of a ROC AUC")


def auc_auto(
    finish: Callable[..., BootstrapResult], kernel: Any, plan: Any, reason: str | None
) -> Callable[..., BootstrapResult]:
    """``finish`` (:func:`mlci.engine.bootstrap.finish_bootstrap`) as it is, or, for
    ``auto`` (a ``reason``) on a single unweighted ROC AUC of independent samples where
    :func:`auc_score_rule` holds, a ``finish`` whose result holds the analytic interval
    (:func:`with_auc_score`) and whose bootstrap warnings it replaces are not given."""
    score = None if reason is None else kernel_auc_score(kernel, plan)
    if score is None:
        return finish

    def finish_with_score(*args: Any, **kwargs: Any) -> BootstrapResult:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", _REPLACED.pattern, FewConditionsWarning)
            warnings.simplefilter("ignore", DegenerateIntervalWarning)
            warnings.simplefilter("ignore", NearBoundWarning)
            res = finish(*args, **kwargs)
        return with_auc_score(res, score)

    return finish_with_score


def kernel_auc_score(kernel: Any, plan: Any) -> AucScoreInterval | None:
    """``auto``'s analytic interval of a single unweighted ROC AUC kernel of independent
    samples (``plan`` without conditions) where :func:`auc_score_rule` holds, else None:
    what :func:`auc_auto` gives ``bootstrap_ci`` and ``mlci.compare`` gives each system."""
    from ..metrics import RocAucKernel

    if type(kernel) is not RocAucKernel or getattr(plan, "unit_of_sample", None) is not None:
        return None
    counts = np.bincount(kernel.keys, minlength=kernel.m).astype(float)
    c_neg, c_pos = counts[: kernel.m_neg], counts[kernel.m_neg :]
    estimate = kernel.evaluate(counts[None, :])[0]
    return _from_atoms(kernel.u_neg, c_neg, kernel.u_pos, c_pos, estimate)


def scores_auc_score(lay: Any, estimate: Any, iid: bool) -> AucScoreInterval | None:
    """``auto``'s analytic interval of the Scores drivers' AUC (independent unweighted
    trials: ``iid``), from the layout's distinct oriented scores and counts per class, or
    None where :func:`auc_score_rule` does not hold."""
    if not iid:
        return None
    return _from_atoms(lay.u[0], lay.nobs[0], lay.u[1], lay.nobs[1], estimate)
