"""``method="auto"``'s few-errors rule of an ROC point over conditions in the Scores
driver: the score interval with the design effect over conditions
(:mod:`mlci.engine.scores_clustered`) where it applies (the rule and its numbers:
:data:`mlci.engine.scores_clustered.MIN_EER_CLUSTER_ERRORS`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..engine.scores_clustered import (
    EER_CLUSTER_RATE_REASON,
    EER_CLUSTER_REASON,
    MIN_EER_CLUSTER_ERRORS,
    OP_CLUSTER_REASON,
    ClusteredScoreInterval,
    clustered_eer_deff,
    clustered_error_counts,
    score_icc,
    warn_clustered_few_errors,
)
from ..engine.scores_rules import MIN_OP_EVENTS, op_events
from ._roc import _Layout

__all__ = [
    "cluster_deff",
    "cluster_reason",
    "cluster_rule",
    "clustered_warning",
    "outer_conditions",
    "trial_cluster_rule",
]

#: the rates of each class and the error count they are read from
_FAMILY = {"fnr": ("fn", False), "tpr": ("fn", True), "fpr": ("fp", False), "tnr": ("fp", True)}


def outer_conditions(cond: Any) -> Any:
    """The resampled (top) level of the driver's conditions (a list when nested)."""
    if cond is None:
        return None
    return cond[0] if isinstance(cond, list | tuple) else cond


def cluster_rule(
    lay: _Layout, point: Any, name: str, estimate: float, clusters: Any, extra: dict[str, Any]
) -> ClusteredScoreInterval | None:
    """The score interval over conditions of an EER with fewer than
    :data:`~mlci.engine.scores_clustered.MIN_EER_CLUSTER_ERRORS` errors in its smaller
    class, or of a rate at a fixed other rate with fewer than
    :data:`~mlci.engine.scores_rules.MIN_OP_EVENTS` expected events in its class and a
    threshold on at least as many of the other, when at least 2 conditions hold each
    class; else None (the bootstrap interval and its warning).  Warns (text in
    ``extra``) where the scores cluster strongly over few conditions
    (:func:`~mlci.engine.scores_clustered.warn_clustered_few_errors`)."""
    n_neg = int(lay.nobs[0].sum())
    n_pos = int(lay.nobs[1].sum())
    cond = np.asarray(clusters)
    if len(np.unique(cond[:n_neg])) < 2 or len(np.unique(cond[n_neg:])) < 2:
        return None
    if name == "eer":
        if estimate * min(n_pos, n_neg) >= MIN_EER_CLUSTER_ERRORS:
            return None
        return _warned(ClusteredScoreInterval("eer", _counts(lay, cond)), lay, cond, "EER", extra)
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
    score = ClusteredScoreInterval("rate", _counts(lay, cond), base, 1.0 - at if xflip else at,
                                   flip)  # fmt: skip
    return _warned(score, lay, cond, name, extra)


def _warned(
    score: ClusteredScoreInterval, lay: _Layout, cond: np.ndarray, what: str, extra: dict[str, Any]
) -> ClusteredScoreInterval:
    """``score``, after the warning of strongly clustered scores over few conditions; an
    EER's with the design effect of :func:`cluster_deff`."""
    n_neg = int(lay.nobs[0].sum())
    z_neg = np.repeat(lay.u[0], lay.nobs[0].astype(np.intp))
    z_pos = np.repeat(lay.u[1], lay.nobs[1].astype(np.intp))
    sides = (z_neg, cond[:n_neg], z_pos, cond[n_neg:])
    if score.kind == "eer":
        score = replace(score, deff=cluster_deff(*sides))
    few = clustered_warning(*sides, what, score.deff)
    if few is not None:
        extra["few_errors_warning"] = few
    return score


def _counts(lay: _Layout, cond: np.ndarray) -> Any:
    n_neg = int(lay.nobs[0].sum())
    z_neg = np.repeat(lay.u[0], lay.nobs[0].astype(np.intp))
    z_pos = np.repeat(lay.u[1], lay.nobs[1].astype(np.intp))
    return clustered_error_counts(z_neg, cond[:n_neg], z_pos, cond[n_neg:])


def cluster_reason(score: Any) -> str | None:
    """``method_reason`` of a score interval over conditions (None for the iid one)."""
    if not isinstance(score, ClusteredScoreInterval):
        return None
    if score.kind != "eer":
        return OP_CLUSTER_REASON
    return EER_CLUSTER_RATE_REASON if score.deff == "rate" else EER_CLUSTER_REASON


def _icc_conditions(z_neg: Any, c_neg: Any, z_pos: Any, c_pos: Any) -> tuple[float, int]:
    """The larger of the two classes' score ICCs, and the conditions of both."""
    iccs = [v for v in (score_icc(z_neg, c_neg), score_icc(z_pos, c_pos)) if np.isfinite(v)]
    n_cond = len(np.unique(np.concatenate([np.asarray(c_neg), np.asarray(c_pos)])))
    return max(iccs, default=0.0), n_cond


def cluster_deff(z_neg: Any, c_neg: Any, z_pos: Any, c_pos: Any) -> str:
    """:func:`~mlci.engine.scores_clustered.clustered_eer_deff` of these scores."""
    return clustered_eer_deff(*_icc_conditions(z_neg, c_neg, z_pos, c_pos))


def clustered_warning(
    z_neg: Any, c_neg: Any, z_pos: Any, c_pos: Any, what: str, deff: str = "threshold"
) -> str | None:
    """:func:`~mlci.engine.scores_clustered.warn_clustered_few_errors` of these scores:
    the larger of the two classes' score ICCs, the conditions of both."""
    icc, n_cond = _icc_conditions(z_neg, c_neg, z_pos, c_pos)
    return warn_clustered_few_errors(icc, n_cond, what, deff)


def trial_cluster_rule(
    target: np.ndarray, score: np.ndarray, spk_enroll: np.ndarray, spk_test: np.ndarray,
    estimate: float,
) -> ClusteredScoreInterval | None:  # fmt: skip
    """:func:`mlci.trial_bootstrap_ci`'s EER over speakers: the score interval over
    conditions with each trial in both its speakers (the dyadic design effect of the
    joint speaker bootstrap, :func:`~mlci.engine.scores_clustered.clustered_error_counts`
    with two conditions per trial) below
    :data:`~mlci.engine.scores_clustered.MIN_EER_CLUSTER_ERRORS` errors in the smaller
    class, when at least 2 speakers hold each class; else None."""
    pos = np.asarray(target, dtype=bool)
    n_pos, n_neg = int(pos.sum()), int((~pos).sum())
    if n_pos == 0 or n_neg == 0 or estimate * min(n_pos, n_neg) >= MIN_EER_CLUSTER_ERRORS:
        return None
    both = np.stack([np.asarray(spk_enroll), np.asarray(spk_test)], axis=1)
    if min(len(np.unique(both[pos])), len(np.unique(both[~pos]))) < 2:
        return None
    z = np.asarray(score, dtype=float)
    return ClusteredScoreInterval(
        "eer", clustered_error_counts(z[~pos], both[~pos], z[pos], both[pos])
    )
