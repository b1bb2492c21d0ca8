"""``method="auto"``'s few-errors rule of an ROC point over conditions in the Scores
driver: the score interval with the design effect over conditions
(:mod:`mlci.engine.scores_clustered`) where it applies (the rule and its numbers:
:data:`mlci.engine.scores_clustered.MIN_EER_CLUSTER_ERRORS`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.scores_clustered import (
    EER_CLUSTER_REASON,
    MIN_EER_CLUSTER_ERRORS,
    OP_CLUSTER_REASON,
    ClusteredScoreInterval,
    clustered_error_counts,
)
from ..engine.scores_rules import MIN_OP_EVENTS, op_events
from ._roc import _Layout

__all__ = ["cluster_reason", "cluster_rule", "outer_conditions"]

#: the rates of each class and the error count they are read from
_FAMILY = {"fnr": ("fn", False), "tpr": ("fn", True), "fpr": ("fp", False), "tnr": ("fp", True)}


def outer_conditions(cond: Any) -> Any:
    """The resampled (top) level of the driver's conditions (a list when nested)."""
    if cond is None:
        return None
    return cond[0] if isinstance(cond, list | tuple) else cond


def cluster_rule(
    lay: _Layout, point: Any, name: str, estimate: float, clusters: Any
) -> ClusteredScoreInterval | None:
    """The score interval over conditions of an EER with fewer than
    :data:`~mlci.engine.scores_clustered.MIN_EER_CLUSTER_ERRORS` errors in its smaller
    class, or of a rate at a fixed other rate with fewer than
    :data:`~mlci.engine.scores_rules.MIN_OP_EVENTS` expected events in its class and a
    threshold on at least as many of the other, when at least 2 conditions hold each
    class; else None (the bootstrap interval and its warning)."""
    n_neg = int(lay.nobs[0].sum())
    n_pos = int(lay.nobs[1].sum())
    cond = np.asarray(clusters)
    if len(np.unique(cond[:n_neg])) < 2 or len(np.unique(cond[n_neg:])) < 2:
        return None
    if name == "eer":
        if estimate * min(n_pos, n_neg) >= MIN_EER_CLUSTER_ERRORS:
            return None
        return ClusteredScoreInterval("eer", _counts(lay, cond))
    if point is None:
        return None
    rate, x, at = point
    if np.size(at) != 1:
        return None
    at = float(np.ravel(at)[0])
    (ey, flip), (ex, xflip) = _FAMILY[rate], _FAMILY[x]
    events = op_events(rate, x, estimate, at, n_pos, n_neg)
    if ey == ex or events is None or not 0.0 < at < 1.0:
        return None
    k_y, k_x = events
    if not (k_y < MIN_OP_EVENTS <= k_x):
        return None
    base = "fnr" if ey == "fn" else "fpr"
    return ClusteredScoreInterval("rate", _counts(lay, cond), base, 1.0 - at if xflip else at, flip)


def _counts(lay: _Layout, cond: np.ndarray) -> Any:
    n_neg = int(lay.nobs[0].sum())
    z_neg = np.repeat(lay.u[0], lay.nobs[0].astype(np.intp))
    z_pos = np.repeat(lay.u[1], lay.nobs[1].astype(np.intp))
    return clustered_error_counts(z_neg, cond[:n_neg], z_pos, cond[n_neg:])


def cluster_reason(score: Any) -> str | None:
    """``method_reason`` of a score interval over conditions (None for the iid one)."""
    if not isinstance(score, ClusteredScoreInterval):
        return None
    return EER_CLUSTER_REASON if score.kind == "eer" else OP_CLUSTER_REASON
