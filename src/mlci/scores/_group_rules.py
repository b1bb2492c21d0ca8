"""``method="auto"``'s few-errors rule of the EER in :func:`mlci.metric_by_group`: each
group's (and the overall) EER gets the interval :func:`mlci.eer_ci` gives that group's
rows, the score interval (:func:`mlci.engine.scores_rules.eer_score_interval`) below
:data:`~mlci.engine.scores_rules.MIN_EER_SCORE_ERRORS` errors of independent trials, its
version over conditions (:mod:`mlci.engine.scores_clustered`) below
:data:`~mlci.engine.scores_clustered.MIN_EER_CLUSTER_ERRORS`; every other group keeps the
bootstrap interval (and the warning)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..engine.scores_clustered import (
    EER_CLUSTER_RATE_REASON,
    EER_CLUSTER_REASON,
    MIN_EER_CLUSTER_ERRORS,
    clustered_eer_interval,
    clustered_error_counts,
)
from ..engine.scores_rules import (
    EER_SCORE_REASON,
    MIN_EER_SCORE_ERRORS,
    eer_score_interval,
    error_counts,
    warn_few_eer_errors,
)
from ..exceptions import DegenerateIntervalWarning
from ._cluster_rules import cluster_deff, clustered_warning

__all__ = ["group_eer_rule", "group_eer_score_intervals"]


def group_eer_rule(
    res: Any,
    est_low_high: list[np.ndarray],
    z: np.ndarray,
    is_pos: np.ndarray,
    gidx: np.ndarray,
    n_groups: int,
    cond: Any,
    plain: bool,
    caught: list[Any],
    opts: Any,
) -> dict[str, Any]:
    """``auto``'s EER rule of :func:`mlci.metric_by_group` on its bootstrap result ``res``:
    the score intervals (written into ``est_low_high``'s low and high) where the design is
    ``plain`` (unweighted, multinomial, no ``strata``, one stage), the few-errors warning
    for the other rows, and the ``caught`` warnings of the bootstrap re-emitted, except a
    collapse (``DegenerateIntervalWarning``) of rows a score interval replaced.  Returns
    the result's extra details."""
    given: dict[int, tuple[float, float]] = {}
    attrs: dict[str, Any] = {}
    clustered_few = None
    if plain:
        given, why = group_eer_score_intervals(
            z, is_pos, gidx, n_groups, res.estimate, cond, opts.confidence_level,
            opts.alternative,
        )  # fmt: skip
        clustered_few = why.pop("few_errors_warning", None)
        if given:
            attrs["score_interval_rows"] = sorted(given)
            attrs["score_interval_reason"] = "; ".join(why.values())
    for row, (lo, hi) in given.items():
        est_low_high[1][row], est_low_high[2][row] = lo, hi
    dist = np.asarray(res.bootstrap_distribution, dtype=float).reshape(-1, n_groups + 1)
    flat = np.flatnonzero(np.ptp(dist, axis=0) == 0) if len(dist) else np.array([], int)
    hidden = bool(given) and set(flat.tolist()) <= set(given)
    for w in caught:
        if hidden and issubclass(w.category, DegenerateIntervalWarning):
            continue
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    # per group, then overall: the smaller class's trials of each, those not given one
    pos = np.asarray(is_pos, dtype=float)
    n_pos = np.append(np.bincount(gidx, weights=pos, minlength=n_groups), pos.sum())
    n_all = np.append(np.bincount(gidx, minlength=n_groups), len(pos))
    left = est_low_high[0].copy()
    left[list(given)] = np.nan
    few = warn_few_eer_errors(left, n_pos, n_all - n_pos, " (a group's)")
    if few is not None or clustered_few is not None:
        attrs["few_errors_warning"] = few if few is not None else clustered_few
    return attrs


def group_eer_score_intervals(
    z: np.ndarray,
    is_pos: np.ndarray,
    gidx: np.ndarray,
    n_groups: int,
    estimate: Any,
    cond: Any,
    confidence_level: float,
    alternative: str,
) -> tuple[dict[int, tuple[float, float]], dict[str, str]]:
    """``{row: (low, high)}`` of the groups (row ``n_groups``: all data) given a score
    interval, and ``{kind: method_reason}`` of the kinds given.

    ``z`` the oriented scores, ``is_pos`` the positives, ``gidx`` each sample's group,
    ``estimate`` the EER of every group then overall, ``cond`` the (top-level)
    conditions or None for independent trials; the caller checked that the design is
    plain (unweighted, multinomial, no ``strata``, one stage)."""
    est = np.asarray(estimate, dtype=float).ravel()
    out: dict[int, tuple[float, float]] = {}
    reasons: dict[str, str] = {}
    pos = np.asarray(is_pos).astype(bool)
    for row in range(n_groups + 1):
        rows = np.ones(len(z), bool) if row == n_groups else gidx == row
        p, n = rows & pos, rows & ~pos
        n_pos, n_neg = int(p.sum()), int(n.sum())
        if n_pos == 0 or n_neg == 0 or not np.isfinite(est[row]):
            continue
        errors = est[row] * min(n_pos, n_neg)
        if cond is None:
            if errors >= MIN_EER_SCORE_ERRORS:
                continue
            un, cn = np.unique(z[n], return_counts=True)
            up, cp = np.unique(z[p], return_counts=True)
            fn, fp = error_counts(un, cn.astype(float), up, cp.astype(float))
            out[row] = eer_score_interval(fn, fp, n_pos, n_neg, confidence_level, alternative)
            reasons["wilson"] = EER_SCORE_REASON
            continue
        c = np.asarray(cond)
        if errors >= MIN_EER_CLUSTER_ERRORS or min(len(np.unique(c[p])), len(np.unique(c[n]))) < 2:
            continue
        cc = clustered_error_counts(z[n], c[n], z[p], c[p])
        deff = cluster_deff(z[n], c[n], z[p], c[p])
        out[row] = clustered_eer_interval(cc, confidence_level, alternative, deff)
        if deff == "rate":
            reasons["wilson over conditions, rate"] = EER_CLUSTER_RATE_REASON
        else:
            reasons["wilson over conditions"] = EER_CLUSTER_REASON
        what = "overall EER" if row == n_groups else "EER of a group"
        few = clustered_warning(z[n], c[n], z[p], c[p], what, deff)
        if few is not None:
            reasons["few_errors_warning"] = few
    return out, reasons
