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
effective condition and either fills fewer than :data:`FEW_CONDITIONS_KISH` effective
conditions or has errors that vary between conditions (:data:`FEW_CONDITIONS_ICC`), and
balanced accuracy wherever it has fewer than :data:`FEW_CONDITIONS_BA_CLASS` samples;
:func:`few_conditions_class_rule` says where, ``warn_outside_map`` of
:mod:`mlci.engine.auto` warns there.
"""

from __future__ import annotations

__all__ = [
    "FEW_CONDITIONS_BA_CLASS",
    "FEW_CONDITIONS_EVIDENCE",
    "FEW_CONDITIONS_ICC",
    "FEW_CONDITIONS_KISH",
    "FEW_CONDITIONS_RANGE",
    "few_conditions_class_message",
    "few_conditions_class_rule",
]

#: the range of conditions of :func:`few_conditions_class_rule`: from the coverage map's
#: :data:`mlci.engine.auto.MIN_CONDITIONS` (below, every interval warns) up to the
#: clustered-class sweep's :data:`mlci.engine.auto.SWEEP_MIN_CONDITIONS` (from there,
#: :func:`mlci.engine.auto.clustered_class_rule`)
FEW_CONDITIONS_RANGE = (8, 20)
#: F1, MCC and kappa over that range warn when the smaller class fills fewer effective
#: conditions than this (Kish's number) ...
FEW_CONDITIONS_KISH = 6.0
#: ... or when its errors vary between conditions: the estimated ICC of the errors
#: (:func:`mlci.engine.auto.class_error_icc`) at least this.  The sweep's 26 first cells
#: (78 F1/MCC/kappa metric-cells, 59 failing: auto < 0.935), per cell, warned / missed /
#: false alarms: Kish < 6 alone 36 / 23 / 0 of 19; with the ICC at 0.05 50 / 9 / 1; at
#: 0.1 42 / 17 / 1; every cell (fewer than 8 per effective condition) 56 / 3 / 19.  The
#: holding cells are those with ICC 0.  Held out (the 22 cells after): 51 of 55 failing
#: warned (21 before), 4 missed, 3 false alarms of 11.
FEW_CONDITIONS_ICC = 0.05
#: balanced accuracy over that range warns with fewer samples of the smaller class than
#: this: it held with 20-58 positives where F1, MCC and kappa did not (13 metric-cells
#: failing of 26: warned 10, missed 3, 1 false alarm; the ICC branch added none)
FEW_CONDITIONS_BA_CLASS = 20
#: what the sweep found where the rule fires, for the message
FEW_CONDITIONS_EVIDENCE = (
    "scripts/few_conditions_class_sweep.py, docs/validation.md 'Over conditions: the "
    "remaining cells': F1, MCC and kappa held in 30 of 144 cells over 8-19 conditions, "
    "most without a condition effect, auto 0.48-0.93 in the others"
)
#: the per-condition limit (:data:`mlci.engine.auto.SWEEP_MAX_PER_CONDITION`; repeated
#: here to keep the import one way: auto imports this module)
_MAX_PER_CONDITION = 8.0


def few_conditions_class_rule(
    n_conditions: int, few: int, effective: float | None, metric: str, icc: float | None = None
) -> bool:
    """Whether a two-class decision metric over ``n_conditions`` conditions (in
    :data:`FEW_CONDITIONS_RANGE`), whose smaller class has ``few`` samples filling
    ``effective`` conditions (Kish's number) and errors of estimated ICC ``icc``, lies
    where the sweep found no method holding: fewer than 8 samples of the class per
    effective condition, and for F1, MCC and kappa ``effective`` below
    :data:`FEW_CONDITIONS_KISH` or ``icc`` at least :data:`FEW_CONDITIONS_ICC`, for
    balanced accuracy fewer than :data:`FEW_CONDITIONS_BA_CLASS` samples of the class.

    Examples
    --------
    >>> few_conditions_class_rule(10, 7, 4.5, "cohen_kappa")  # seed-6 #23 as drawn
    True
    >>> few_conditions_class_rule(10, 60, 5.0, "f1")  # 12 per effective condition
    False
    >>> few_conditions_class_rule(15, 32, 11.0, "f1", icc=0.0)  # errors alike: held
    False
    >>> few_conditions_class_rule(15, 32, 11.0, "f1", icc=0.2)
    True
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
    if metric == "balanced_accuracy":
        return few < FEW_CONDITIONS_BA_CLASS
    return effective < FEW_CONDITIONS_KISH or (icc is not None and icc >= FEW_CONDITIONS_ICC)


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
