"""Few samples of a class over fewer than 20 conditions (issue 20; seed-6 #23).

The clustered-class warning (:func:`mlci.engine.auto.clustered_class_rule`) was read off a
sweep of 20-300 conditions and applies only there.  Below, from
:data:`mlci.engine.auto.MIN_CONDITIONS` (8, where the coverage map starts to hold) to 19
conditions, the design search found F1, MCC, kappa and balanced accuracy with a handful of
positives over 10 conditions (seed-6 #23: 7 positives at ICC 0.40, every method
0.58-0.65) warned only by other rules, in 43% of the test sets.  The sweep of this range
(``scripts/few_conditions_class_sweep.py``; docs/validation.md, "Over conditions: the
remaining cells (seed 8)") found F1, MCC and kappa short of their level wherever the
smaller class has fewer than :data:`mlci.engine.auto.SWEEP_MAX_PER_CONDITION` samples per
effective condition, and balanced accuracy wherever it also has fewer than
:data:`FEW_CONDITIONS_BA_CLASS` samples; :func:`few_conditions_class_rule` says where,
``warn_outside_map`` of :mod:`mlci.engine.auto` warns there.
"""

from __future__ import annotations

__all__ = [
    "FEW_CONDITIONS_BA_CLASS",
    "FEW_CONDITIONS_EVIDENCE",
    "FEW_CONDITIONS_RANGE",
    "few_conditions_class_message",
    "few_conditions_class_rule",
]

#: the range of conditions of :func:`few_conditions_class_rule`: from the coverage map's
#: :data:`mlci.engine.auto.MIN_CONDITIONS` (below, every interval warns) up to the
#: clustered-class sweep's :data:`mlci.engine.auto.SWEEP_MIN_CONDITIONS` (from there,
#: :func:`mlci.engine.auto.clustered_class_rule`)
FEW_CONDITIONS_RANGE = (8, 20)
#: balanced accuracy over that range warns with fewer samples of the smaller class than
#: this (and fewer than 8 per effective condition): it held with 20-58 positives where
#: F1, MCC and kappa did not (the sweep, 300 test sets per cell)
FEW_CONDITIONS_BA_CLASS = 20
#: per metric family, what the sweep found where the rule fires (for the message)
FEW_CONDITIONS_EVIDENCE = "see docs/validation.md, 'Over conditions: the remaining cells'"
#: the per-condition limit (:data:`mlci.engine.auto.SWEEP_MAX_PER_CONDITION`; repeated
#: here to keep the import one way: auto imports this module)
_MAX_PER_CONDITION = 8.0


def few_conditions_class_rule(
    n_conditions: int, few: int, effective: float | None, metric: str
) -> bool:
    """Whether a two-class decision metric over ``n_conditions`` conditions (in
    :data:`FEW_CONDITIONS_RANGE`), whose smaller class has ``few`` samples filling
    ``effective`` conditions (Kish's number), lies where the sweep found no method
    holding: fewer than 8 samples of the class per effective condition, and for
    balanced accuracy also fewer than :data:`FEW_CONDITIONS_BA_CLASS` samples.

    Examples
    --------
    >>> few_conditions_class_rule(10, 7, 4.5, "cohen_kappa")  # seed-6 #23 as drawn
    True
    >>> few_conditions_class_rule(10, 60, 5.0, "f1")  # 12 per effective condition
    False
    >>> few_conditions_class_rule(12, 31, 4.5, "balanced_accuracy")  # 20 or more
    False
    >>> few_conditions_class_rule(20, 7, 4.5, "f1")  # the clustered-class rule's range
    False
    """
    lo, hi = FEW_CONDITIONS_RANGE
    if effective is None or not lo <= n_conditions < hi:
        return False
    if not few < _MAX_PER_CONDITION * effective:
        return False
    return metric != "balanced_accuracy" or few < FEW_CONDITIONS_BA_CLASS


def few_conditions_class_message(few: int, effective: float, n_conditions: int) -> str:
    """The sentence of :func:`few_conditions_class_rule`'s warning.

    Examples
    --------
    >>> few_conditions_class_message(7, 4.5, 10).split(":")[0]
    'The 7 samples of the smaller class fill 4.5 effective conditions of 10'
    """
    return (
        f"The {few} samples of the smaller class fill {effective:.1f} effective conditions "
        f"of {n_conditions}: with fewer than {FEW_CONDITIONS_RANGE[1]} conditions and fewer "
        f"than {_MAX_PER_CONDITION:g} samples of the class per effective condition, mlci's "
        f"sweep ({FEW_CONDITIONS_EVIDENCE}) found the intervals short of their level"
    )
