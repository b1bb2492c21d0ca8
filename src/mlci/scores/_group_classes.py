"""A group without positives (or without negatives) in :func:`mlci.metric_by_group`.

A metric that needs the missing class is undefined in that group (a zero denominator:
FNR, TPR without positives; FPR, TNR without negatives; balanced accuracy, MCC, the EER,
the AUC and the operating points without either), while the other groups, the overall
value and, for that group, the metrics its class defines (FPR, TNR, accuracy... without
positives) are not.  The group's undefined rows are NaN (``None`` in ``to_dict``), with
a :class:`~mlci.DegenerateIntervalWarning` that names the group, the class it lacks and
what to do; the call is refused only where the metric is undefined in every group.

The bootstrap runs on the defined elements only (the kernel's ``keep``): an undefined
element is NaN in every replicate, which would make every replicate invalid.  The draws
are those of the full kernel (the sampler draws over atoms, whatever the output), so the
defined rows are what they would be with the group's class present elsewhere.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np

from ..exceptions import DegenerateIntervalWarning
from ..feedback import warn
from ..metrics import Kernel
from ..results import ConfidenceInterval

__all__ = [
    "NaNKernel",
    "class_sizes",
    "expand",
    "missing_class_rows",
    "score_metric_defined",
    "warn_undefined_groups",
]

#: the class a Scores rate counts (``threshold_at_<rate>`` needs only that class)
_POSITIVE_RATES = ("tpr", "fnr", "tar", "frr")
_NEGATIVE_RATES = ("tnr", "fpr", "trr", "far")
#: what a group without a class can still report (the warning's advice)
_OTHER_CLASS_ADVICE = {
    "positives": "a rate of the negatives (fpr, tnr) or accuracy at a threshold, or "
    "threshold_at_fpr",
    "negatives": "a rate of the positives (fnr, tpr) or accuracy at a threshold, or "
    "threshold_at_fnr",
}


class NaNKernel(Kernel):
    """The statistic of a group where it is undefined: NaN in every replicate, over the
    group's atoms (so that the overall statistic still sees them)."""

    def __init__(self, m: int, shape: tuple[int, ...]) -> None:
        self.m = m
        self.shape = shape
        self.keys = np.zeros(0, dtype=np.intp)

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        return np.full((np.shape(w)[0], *self.shape), np.nan)


def class_sizes(is_pos: np.ndarray, gidx: np.ndarray, n_groups: int) -> np.ndarray:
    """``(n_groups, 2)`` samples of each group: positives, negatives."""
    pos = np.bincount(gidx, weights=np.asarray(is_pos, dtype=float), minlength=n_groups)
    return np.stack([pos, np.bincount(gidx, minlength=n_groups) - pos], axis=1)


def score_metric_defined(metric: str, has_pos: bool, has_neg: bool) -> bool:
    """Whether a Scores statistic is defined in a group with these classes: a threshold
    at a class's rate needs that class only; the EER, the AUC and an operating point
    (a rate at another rate) need both."""
    if has_pos and has_neg:
        return True
    rate = metric.removeprefix("threshold_at_")
    if rate != metric:
        return has_pos if rate in _POSITIVE_RATES else has_neg if rate in _NEGATIVE_RATES else False
    return False


def missing_class_rows(estimate: np.ndarray, sizes: np.ndarray) -> np.ndarray | None:
    """The rows (groups, then overall) x elements of ``estimate`` that are NaN at the data
    in a group without positives or without negatives (None: there are none, or a NaN
    has another cause, e.g. no positive decision at a threshold in a group with both
    classes: the caller's error, as before)."""
    est = np.asarray(estimate, dtype=float).reshape(len(sizes) + 1, -1)
    lacking = np.append((sizes == 0).any(axis=1), False)
    rows = np.isnan(est) & lacking[:, None]
    return rows if rows.any() and not (np.isnan(est) & ~rows).any() else None


def warn_undefined_groups(
    undefined: np.ndarray, sizes: np.ndarray, labels: list[Any], metric: str
) -> str:
    """Warn (and return the text) of the groups whose ``metric`` is undefined for a
    missing class; refuse the call when it is undefined in every group."""
    groups = np.flatnonzero(undefined[:-1].any(axis=1))
    parts = []
    for g in groups:
        lacks = "positives" if sizes[g, 0] == 0 else "negatives"
        part = f"{labels[g]!r} (no {lacks}"
        part += ")" if undefined[g].all() else f"; at {int(undefined[g].sum())} value(s))"
        parts.append(part)
    what = "; ".join(parts)
    if undefined[:-1].all():
        raise ValueError(
            f"The metric {metric!r} is undefined in every group: {what}. It needs the "
            "class each group lacks; use groups that hold both classes (fewer, larger "
            "groups), or a metric each group's class defines."
        )
    lacks = "positives" if sizes[groups[0], 0] == 0 else "negatives"
    text = (
        f"The metric {metric!r} is undefined in group(s) {what}: it needs the class the "
        "group lacks, so those rows are NaN (None in to_dict and --json), while the other "
        "groups and the overall value have their intervals. To report such a group, merge it with "
        "another, collect samples of the class it lacks, or report what its class defines "
        f"(without {lacks}: {_OTHER_CLASS_ADVICE[lacks]})."
    )
    warn(text, DegenerateIntervalWarning)
    return text


def expand(res: Any, keep: np.ndarray, shape: tuple[int, ...]) -> Any:
    """The estimate, interval and replicates of a run on the ``keep`` elements, at the
    full ``shape`` with NaN elsewhere (what :func:`mlci.metric_by_group` reads)."""

    def full(values: Any, lead: tuple[int, ...] = ()) -> np.ndarray:
        out = np.full((*lead, keep.size), np.nan)
        out[..., keep] = np.asarray(values, dtype=float).reshape(*lead, -1)
        return out.reshape(*lead, *shape)

    dist = np.asarray(res.bootstrap_distribution, dtype=float)
    low, high = res.confidence_interval
    return SimpleNamespace(
        estimate=full(res.estimate),
        confidence_interval=ConfidenceInterval(full(low), full(high)),
        bootstrap_distribution=full(dist, (len(dist),)),
    )
