"""The clustered-class rule: a two-class decision metric over conditions whose smaller class
fills too few conditions.

A decision metric of two classes (F1, MCC, Cohen's kappa, balanced accuracy) over
conditions rests on its smaller class, and where that class fills few effective conditions
(Kish's number of its counts per condition, :func:`smaller_class_conditions`), or fills
somewhat more but with errors that vary between conditions (:func:`class_error_icc`), no
interval method held its level in mlci's sweep (:func:`clustered_class_rule`).  The rule
and its numbers serve the warning of a single metric's interval
(:func:`mlci.engine.auto.warn_outside_map`) and of paired differences
(:func:`mlci.engine.paired_rules.warn_paired_classes`).
"""

from __future__ import annotations

import numpy as np

from ..metrics import Kernel
from .auc_class import class_effective_conditions
from .linearize import icc_anova

__all__ = [
    "CLUSTERED_CLASS_EVIDENCE",
    "CLUSTERED_CLASS_METRICS",
    "CLUSTERED_ERROR_ICC",
    "CLUSTERED_ICC_EVIDENCE",
    "CLUSTERED_ICC_METRICS",
    "MIN_CLASS_CONDITIONS",
    "MIN_CLASS_CONDITIONS_CLUSTERED",
    "MIN_ICC_ERRORS",
    "SWEEP_MAX_PER_CONDITION",
    "SWEEP_MIN_CONDITIONS",
    "class_error_icc",
    "class_sizes",
    "clustered_class_rule",
    "clustered_class_text",
    "smaller_class",
    "smaller_class_conditions",
]

#: a two-class decision metric (:data:`CLUSTERED_CLASS_METRICS`) over conditions whose
#: smaller class fills fewer effective conditions than this (Kish's number of its counts
#: per condition, :func:`smaller_class_conditions`) warns (:func:`clustered_class_rule`).
#: The sweep (``scripts/search2_study.py class-sweep``, 66 designs, 300 test sets each):
#: below 20 with ICC 0.2-0.5, auto covered a median of 0.875 (F1, MCC; 50 of 54 cells
#: below 0.935) and 0.903 (kappa, balanced accuracy; 42 of 54), no method better; from 20
#: on 0.932-0.937; with ICC 0 below 20 it held (0.943-0.950), the rule's false alarms.
#: Before, a count of 30 for kappa and balanced accuracy only (seed-3 #38: f1 and mcc
#: failed with 25 and 40 positives alike); docs/validation.md, section 5, "(2) #38"
MIN_CLASS_CONDITIONS = 20.0
#: the range of the sweep behind :data:`MIN_CLASS_CONDITIONS`: 20-300 conditions, fewer
#: than 8 samples of the smaller class per effective condition
SWEEP_MIN_CONDITIONS, SWEEP_MAX_PER_CONDITION = 20, 8.0
#: with errors that vary between conditions (:func:`class_error_icc` at least
#: :data:`CLUSTERED_ERROR_ICC`) the rule warns up to this many effective conditions
#: (:func:`clustered_class_rule`; docs/validation.md, "The clustered-class warning, with
#: the data's ICC")
MIN_CLASS_CONDITIONS_CLUSTERED = 30.0
#: the estimated ICC of the errors from which :data:`MIN_CLASS_CONDITIONS_CLUSTERED` applies
CLUSTERED_ERROR_ICC = 0.1
#: the errors a class needs for its ICC to count in :func:`class_error_icc`
MIN_ICC_ERRORS = 5
#: the metrics whose warning reads the errors' ICC (:data:`MIN_CLASS_CONDITIONS_CLUSTERED`):
#: balanced accuracy held with 20-30 effective conditions whatever the ICC (0.943-0.952
#: per test set in the sweep), where the ICC's branch would add 11 false-alarm cells for
#: 2 misses
CLUSTERED_ICC_METRICS = ("f1", "mcc", "cohen_kappa")
#: what the sweep found where each branch of the rule fires, for the warnings' messages:
#: below :data:`MIN_CLASS_CONDITIONS`, the cells with ICC 0.2-0.5 (76 per pair of metrics
#: of the 96); the cells the ICC branch adds (13 per metric, ICC 0.1-0.5)
CLUSTERED_CLASS_EVIDENCE = (
    "where the conditions differ, ICC 0.2-0.5: a median coverage of 0.873 for F1 and MCC, "
    "0.902 for kappa and balanced accuracy"
)
CLUSTERED_ICC_EVIDENCE = (
    "the designs this adds: a median coverage of 0.920-0.923, 7-8 of 13 below 0.935"
)
#: the metrics :data:`MIN_CLASS_CONDITIONS` applies to, all four swept on the same test
#: sets.  Scored per cell over the sweep's 96 designs (warned: in half its test sets or
#: more; failing: auto < 0.935), before (Kish < 20) -> now (and < 30 with an ICC of the
#: errors of 0.1 or more): F1 and MCC, 114 of 192 failing, missed 30 -> 14 (below 0.91:
#: 14 -> 4 of 83), false alarms 36 -> 46 of 78; kappa 14 -> 7 missed, 20 -> 26 false
#: alarms of 42; balanced accuracy unchanged (6 of 37 missed, 29 of 59 false alarms).
#: Gates that warn *only* where the ICC shows cut the false alarms to 24 but leave
#: unwarned the intervals that miss (0.859 covered): docs/validation.md, "The
#: clustered-class warning, with the data's ICC".  The documented cells keep their side:
#: seed-3 #38 warned in 92 of 100 test sets, the kappa cell over 98 conditions in 95, 155
#: positives over 50 conditions in none
CLUSTERED_CLASS_METRICS = ("f1", "mcc", "cohen_kappa", "balanced_accuracy")


def smaller_class_conditions(keys: np.ndarray, unit: np.ndarray) -> float:
    """Kish's effective number of conditions of the smaller true class of a two-class
    decision kernel: ``(sum_c m_c)^2 / sum_c m_c^2`` with ``m_c`` the class's count in
    condition ``c`` (``keys // 2`` is the true class; 0 when the class is empty).

    Examples
    --------
    >>> import numpy as np
    >>> keys = np.array([2, 3, 2, 0, 1, 0, 0, 0])  # 3 positives, 5 negatives
    >>> unit = np.array([0, 0, 1, 1, 2, 2, 3, 3])  # positives in conditions 0, 0, 1
    >>> smaller_class_conditions(keys, unit)  # 3^2 / (2^2 + 1^2)
    1.8
    """
    return class_effective_conditions(np.asarray(keys) >= 2, unit)


def class_error_icc(keys: np.ndarray, unit: np.ndarray) -> float:
    """The between-condition variation of the errors of a two-class decision kernel: the
    larger of the two true classes' ANOVA ICC of the error over the conditions that
    contain the class (:func:`mlci.engine.linearize.icc_anova`; ``keys // 2`` is the true
    class, ``keys % 2`` the prediction).  A class with fewer than :data:`MIN_ICC_ERRORS`
    errors, or in fewer than two conditions, counts 0: a handful of errors in one
    condition is no evidence of a condition effect (the near-bound designs, two errors in
    200 samples, read 0.57).

    Examples
    --------
    >>> import numpy as np
    >>> # negatives (keys 0 right, 1 wrong): 1 error of 5 in condition 0, 4 of 5 in
    >>> # condition 1; the positives (key 3) all right
    >>> keys = np.array([1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 3, 3, 3, 3])
    >>> unit = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1])
    >>> round(class_error_icc(keys, unit), 4)  # MSB 0.9, MSW 0.2, n0 5: 0.7 / 1.7
    0.4118
    """
    keys, unit = np.asarray(keys), np.asarray(unit)
    n_units = int(unit.max()) + 1 if len(unit) else 0
    icc = 0.0
    for cls in (0, 1):
        in_class = keys // 2 == cls
        n_c = np.bincount(unit[in_class], minlength=n_units)
        e_c = np.bincount(unit[in_class & (keys % 2 != cls)], minlength=n_units)
        keep = n_c > 0
        if keep.sum() > 1 and e_c.sum() >= MIN_ICC_ERRORS:
            icc = max(icc, icc_anova(e_c[keep], n_c[keep]))
    return float(icc)


def class_sizes(kernel: Kernel) -> tuple[int, int] | None:
    """``(negatives, positives)``: the samples of each true class of a two-class kernel,
    counted once over its keys for every rule that reads them (:func:`smaller_class`,
    :func:`mlci.engine.auto.few_positive_ap`, :func:`mlci.engine.auto.edge_fallback_applies`);
    None for another kernel.

    A ranking kernel (``m_neg``: its first ``m_neg`` atoms are the negatives') or a
    two-class decision kernel (``k == 2``, keys ``2 * truth + prediction``).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> class_sizes(SimpleNamespace(k=2, m=4, keys=np.array([0, 1, 1, 2, 3, 3])))
    (3, 3)
    >>> class_sizes(SimpleNamespace(m=5, m_neg=3, keys=np.array([0, 1, 2, 2, 4])))
    (4, 1)
    """
    m_neg, end = getattr(kernel, "m_neg", None), None
    if m_neg is None and getattr(kernel, "k", None) == 2:
        m_neg, end = 2, 4
    if m_neg is None:
        return None
    counts = np.bincount(kernel.keys, minlength=kernel.m)
    return int(counts[:m_neg].sum()), int(counts[m_neg:end].sum())


def smaller_class(kernel: Kernel) -> int | None:
    """The size of the smaller true class of a two-class decision kernel (else None)."""
    if getattr(kernel, "k", None) != 2 or kernel.shape != ():
        return None
    return min(class_sizes(kernel) or (0, 0))


def clustered_class_rule(
    n_conditions: int, few: int, effective: float | None, icc: float | None = None
) -> bool:
    """Whether a two-class decision metric over ``n_conditions`` conditions, with ``few``
    samples in its smaller class filling ``effective`` conditions (Kish's effective number,
    :func:`smaller_class_conditions`) and errors whose estimated ICC is ``icc``
    (:func:`class_error_icc`), lies where no method held: ``effective`` below
    :data:`MIN_CLASS_CONDITIONS`, or below :data:`MIN_CLASS_CONDITIONS_CLUSTERED` with
    ``icc`` at least :data:`CLUSTERED_ERROR_ICC`; inside the sweep's range (at least
    :data:`SWEEP_MIN_CONDITIONS` conditions, fewer than :data:`SWEEP_MAX_PER_CONDITION`
    samples of the class per effective condition; outside it the coverage map holds, e.g.
    F1 with 60 positives over 8 equal conditions).  The ICC only adds warnings: a test
    set whose errors look alike across conditions is the one whose interval is too narrow
    (docs/validation.md, "The clustered-class warning, with the data's ICC").

    Examples
    --------
    >>> clustered_class_rule(132, 25, 12.6)  # seed-3 #38 as drawn: warned
    True
    >>> clustered_class_rule(132, 40, 20.5)  # 20 or more effective conditions
    False
    >>> clustered_class_rule(132, 40, 20.5, icc=0.25)  # ... but errors that vary
    True
    >>> clustered_class_rule(12, 60, 12.0)  # fewer conditions than the sweep's
    False
    """
    if effective is None or n_conditions < SWEEP_MIN_CONDITIONS:
        return False
    if not few < SWEEP_MAX_PER_CONDITION * effective:
        return False
    if effective < MIN_CLASS_CONDITIONS:
        return True
    return bool(
        icc is not None
        and icc >= CLUSTERED_ERROR_ICC
        and effective < MIN_CLASS_CONDITIONS_CLUSTERED
    )


def clustered_class_text(few: int, effective: float, n_conditions: int, icc: float | None) -> str:
    """The first part of the clustered-class warnings: what was found, and the threshold."""
    text = (
        f"The {few} samples of the smaller class fill only {effective:.1f} effective "
        f"conditions of {n_conditions} (Kish's (sum m)^2 / sum m^2 of its counts m per "
        "condition)"
    )
    if effective < MIN_CLASS_CONDITIONS:
        return text + f": below {MIN_CLASS_CONDITIONS:g} ({CLUSTERED_CLASS_EVIDENCE})"
    return text + (
        f" and its errors vary between conditions (estimated ICC {icc:.2f}, at least "
        f"{CLUSTERED_ERROR_ICC:g}): below {MIN_CLASS_CONDITIONS_CLUSTERED:g} with such "
        f"variation ({CLUSTERED_ICC_EVIDENCE})"
    )
