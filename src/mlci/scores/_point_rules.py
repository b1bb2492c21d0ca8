"""``method="auto"``'s few-errors rules of an ROC point in the Scores driver: the EER's and
a rate at a fixed rate's score intervals where they apply, else the warnings (the rules
and their numbers: :mod:`mlci.engine.scores_rules`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.scores_rules import (
    EER_SCORE_REASON,
    MIN_EER_SCORE_ERRORS,
    MIN_OP_EVENTS,
    OP_SCORE_REASON,
    ScoreInterval,
    error_counts,
    op_events,
    op_score_interval,
    warn_few_eer_errors,
    warn_few_op_events,
)
from ..exceptions import DegenerateIntervalWarning, FewConditionsWarning
from ..results import AnalyticInterval, BootstrapResult, attach_analytic
from ._cluster_rules import cluster_reason, cluster_rule
from ._roc import _Layout

__all__ = ["quiet_under", "score_rule", "with_score_interval"]


def quiet_under(score: Any, auc_score: Any = None) -> tuple[type[Warning], ...]:
    """The bootstrap's warnings a score interval makes moot: the collapse of the
    replicates; over conditions also too few of them (Student's quantile on their
    degrees of freedom: docs/validation.md, "EER and operating points with few errors
    over conditions", 0.97-1.00 over 5 conditions).  ``auc_score``: auto's analytic AUC
    interval (engine/auc_analytic.py), which replaces a collapse too."""
    if score is None:
        return () if auc_score is None else (DegenerateIntervalWarning,)
    if cluster_reason(score) is None:
        return (DegenerateIntervalWarning,)
    return (DegenerateIntervalWarning, FewConditionsWarning)


def score_rule(
    lay: _Layout,
    point: Any,
    name: str,
    estimate: Any,
    iid: bool,
    extra: dict[str, Any],
    clusters: np.ndarray | None = None,
) -> Any:
    """``auto``'s few-errors rules of an ROC point (:mod:`mlci.engine.scores_rules`): the
    score interval where it applies (independent unweighted trials, a single value; over
    ``clusters``, the conditions of the samples in the layout's order, its version with
    the design effect: :mod:`mlci.scores._cluster_rules`), else the warning; ``extra``
    gets the warning's text."""
    n_pos, n_neg = float(lay.nobs[1].sum()), float(lay.nobs[0].sum())
    scalar = np.ndim(estimate) == 0
    if clusters is not None and scalar:
        over = cluster_rule(lay, point, name, float(estimate), clusters, extra)
        if over is not None:
            return over
    if name == "eer":
        if iid and scalar and float(estimate) * min(n_pos, n_neg) < MIN_EER_SCORE_ERRORS:
            fn, fp = _counts(lay)
            return ScoreInterval("eer", fn, n_pos, fp, n_neg)
        few = warn_few_eer_errors(estimate, n_pos, n_neg)
        if few is not None:
            extra["few_errors_warning"] = few
        return None
    assert point is not None
    rate, x, at = point
    events = op_events(rate, x, estimate, at if not scalar else float(np.ravel(at)[0]),
                       n_pos, n_neg)  # fmt: skip
    if events is None:
        return None
    k_y, k_x = events
    use = iid and scalar and k_y < MIN_OP_EVENTS and k_x >= MIN_OP_EVENTS
    few = warn_few_op_events(name, k_y, k_x, at, score=use)
    if few is not None:
        extra["few_errors_warning"] = few
    if not use:
        return None
    fn, fp = _counts(lay)
    return op_score_interval(rate, x, float(np.ravel(at)[0]), fn, fp, n_pos, n_neg)


def _counts(lay: _Layout) -> tuple[np.ndarray, np.ndarray]:
    """Misses and false alarms at every threshold (sample counts)."""
    return error_counts(lay.u[0], lay.nobs[0], lay.u[1], lay.nobs[1])


def with_score_interval(res: BootstrapResult, score: Any, opts: Any) -> BootstrapResult:
    """``res`` (its replicates kept) with ``auto``'s score interval, re-read at any level."""
    reason = cluster_reason(score)
    if reason is None:
        reason = EER_SCORE_REASON if score.kind == "eer" else OP_SCORE_REASON
    details = {k: v for k, v in res.details.items() if k not in ("acceleration", "z0")}
    # (the result's level and alternative are opts')
    return attach_analytic(res, AnalyticInterval("wilson", reason, score), details)
