"""The ROC AUC's class-size warning (issue 20): fewer than :data:`MIN_AUC_CLASS` samples
in the smaller class, through every door (:func:`mlci.bootstrap_ci` with or without
``strata``, :func:`mlci.auc_ci`, the Scores drivers); ``warn_outside_map`` of
:mod:`mlci.engine.auto` and the Scores driver give it.  Under ``method="auto"``, a single
unweighted AUC of independent samples where these rules hold gets the analytic interval of
:mod:`mlci.engine.auc_analytic` and its own warning instead (the same start)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import FewConditionsWarning
from ..feedback import warn
from .effective_conditions import effective_conditions

__all__ = [
    "AP_MANY_CONDITIONS",
    "AP_SCORE_ICC",
    "AP_SCORE_ICC_MANY",
    "AUC_CLOSE_BAND",
    "AUC_EDGE_BAND",
    "AUC_NEAR_EDGE",
    "MIN_AUC_CLASS",
    "MIN_AUC_CLASS_CLOSE",
    "MIN_AUC_CLASS_CONDITIONS",
    "MIN_AUC_CLASS_NEAR_EDGE",
    "MIN_AUC_SWEEP_CONDITIONS",
    "class_effective_conditions",
    "clustered_ap_message",
    "clustered_ap_rule",
    "clustered_auc_check",
    "clustered_auc_rule",
    "clustered_auc_text",
    "few_auc_class_message",
    "few_auc_class_text",
    "negative_score_icc",
    "warn_clustered_auc",
    "warn_few_auc_class",
    "warn_near_edge_auc",
]


#: a ROC AUC whose smaller class has fewer samples than this warns, through every door
#: (:func:`mlci.bootstrap_ci` with or without ``strata``, :func:`mlci.auc_ci`, the
#: Scores drivers).  The sweep behind it (docs/validation.md, "The AUC with few samples
#: in a class"; ``scripts/auc_few_class_sweep.py``): 150 negatives, 3-50 positives,
#: binormal AUC 0.8-0.99, the class counts fixed, 200 test sets, B = 500: below 20
#: positives the stratified BCa (``auc_ci``) covered 0.62-0.91, the unstratified
#: studentized interval 0.62-0.96 (holding only by reaching the edge), DeLong's normal
#: interval 0.49-0.91, on the logit scale 0.79-0.985; the near-bound rule warned in 0-100%
#: of the test sets.  From 20 on the bootstrap intervals covered 0.885-0.955.  The second
#: sweep (docs/validation.md, "The AUC with a small class: an interval that holds": 20-1,000
#: negatives, unequal spreads, ties) found no method holding across score shapes either;
#: :func:`mlci.auc_score_ci` (score-type, floored) seldom falls short (0.90-1.00).
MIN_AUC_CLASS = 20

#: a ROC AUC within :data:`AUC_EDGE_BAND` of 1 (or 0) whose smaller class has from
#: :data:`MIN_AUC_CLASS` to fewer than this many samples warns (:func:`near_edge_auc_rule`);
#: so does one within :data:`AUC_CLOSE_BAND` with fewer than
#: :data:`MIN_AUC_CLASS_CLOSE`.  The sweep behind them (docs/validation.md, "The AUC near
#: its bound with 20-149 of a class"; ``scripts/auc_few_class_sweep.py``'s ``cell`` with
#: the bootstrap doors, 600 test sets a cell, B = 500, 20-150 positives, 150-300
#: negatives, binormal AUC 0.85-0.99, equal spreads or positives twice as spread): in the
#: 28 cells the two rules warn, ``auc_ci``'s BCa covered 0.655-0.958 (25 below 0.935) and
#: the studentized interval 0.652-0.963 (22 below); in the 32 others 0.882-0.960 (9) and
#: 0.905-0.963 (4), those short mostly by 0.01
MIN_AUC_CLASS_NEAR_EDGE = 50
#: the distance of the AUC from 1 (or 0) within which :data:`MIN_AUC_CLASS_NEAR_EDGE` holds
AUC_EDGE_BAND = 0.1
#: the smaller class's size below which an AUC within :data:`AUC_CLOSE_BAND` of its bound
#: warns: with positives twice as spread as negatives, AUC 0.98-0.99, 50-100 positives
#: covered 0.825-0.910 (equal spreads: 0.92-0.958)
MIN_AUC_CLASS_CLOSE = 150
#: the distance of the AUC from 1 (or 0) within which :data:`MIN_AUC_CLASS_CLOSE` holds
AUC_CLOSE_BAND = 0.02


def near_edge_auc_rule(few: int, estimate: Any) -> bool:
    """Whether a ROC AUC with ``few`` samples in its smaller class (at least
    :data:`MIN_AUC_CLASS`) lies where the bootstrap intervals fell short: fewer than
    :data:`MIN_AUC_CLASS_NEAR_EDGE` samples and the ``estimate`` within
    :data:`AUC_EDGE_BAND` of 1 or 0, or fewer than :data:`MIN_AUC_CLASS_CLOSE` and within
    :data:`AUC_CLOSE_BAND`.

    Examples
    --------
    >>> near_edge_auc_rule(30, 0.95), near_edge_auc_rule(30, 0.85), near_edge_auc_rule(60, 0.95)
    (True, False, False)
    >>> near_edge_auc_rule(100, 0.985), near_edge_auc_rule(150, 0.985)
    (True, False)
    """
    if estimate is None or np.ndim(estimate) != 0 or not np.isfinite(estimate):
        return False
    gap = min(float(estimate), 1.0 - float(estimate)) - 1e-12  # (1 - 0.98 > 0.02 in floats)
    edge = gap <= AUC_EDGE_BAND and few < MIN_AUC_CLASS_NEAR_EDGE
    close = gap <= AUC_CLOSE_BAND and few < MIN_AUC_CLASS_CLOSE
    return bool(few >= MIN_AUC_CLASS and (edge or close))


def near_edge_auc_text(
    few: int, estimate: float, method: str | None = None, before: Any = ()
) -> str:
    """The whole near-bound warning of a ROC AUC with 20-149 samples in a class
    (:func:`near_edge_auc_rule`), the same through every door; ``method`` and ``before`` as
    in :func:`few_auc_class_text`.

    Examples
    --------
    >>> near_edge_auc_text(30, 0.95).split(":")[0]
    'Only 30 samples in the smaller class of a ROC AUC of 0.95'
    """
    which = "The interval" if method is None else f"The {method} interval"
    found = (
        f"Only {few} samples in the smaller class of a ROC AUC of {estimate:.3g}: with "
        f"fewer than {MIN_AUC_CLASS_NEAR_EDGE} within {AUC_EDGE_BAND:g} of its bound, or "
        f"fewer than {MIN_AUC_CLASS_CLOSE} within {AUC_CLOSE_BAND:g}, mlci's sweep "
        "(docs/validation.md, 'The AUC near its bound with 20-149 of a class') found the "
        "bootstrap intervals short of their level (BCa 0.66-0.96, studentized 0.65-0.96, "
        "lowest where the positives' scores spread more than the negatives')"
    )
    return (
        "; ".join([*before, found])
        + f". {which} may not keep its confidence level: treat it as optimistic, or collect "
        "more samples of that class."
    )


def few_auc_class_message(few: int) -> str:
    """What the few-samples warning of a ROC AUC found (:data:`MIN_AUC_CLASS`): the first
    part of :func:`few_auc_class_text`.

    Examples
    --------
    >>> few_auc_class_message(8).split(":")[0]
    'Only 8 samples in the smaller class of a ROC AUC'
    """
    return (
        f"Only {few} samples in the smaller class of a ROC AUC: below {MIN_AUC_CLASS}, "
        "mlci's sweeps (docs/validation.md, 'The AUC with few samples in a class' and 'The "
        "AUC with a small class') found no interval method holding its level across score "
        "distributions (stratified BCa 0.62-0.95, DeLong 0.22-0.96, on the logit scale "
        "0.31-0.99)"
    )


def few_auc_class_text(few: int, method: str | None = None, before: Any = ()) -> str:
    """The whole few-samples warning of a ROC AUC, the same through every door.

    ``method``: the interval method given (None: not named); ``before``: other findings of
    the same design (:func:`mlci.engine.auto.warn_outside_map`), put first.

    Examples
    --------
    >>> few_auc_class_text(8, "bca").split(". ")[-3]
    'The bca interval may not keep its confidence level: treat it as optimistic'
    """
    which = "The interval" if method is None else f"The {method} interval"
    return (
        "; ".join([*before, few_auc_class_message(few)])
        + f". {which} may not keep its confidence level: treat it as optimistic. "
        "mlci.auc_score_ci gives a score-type interval that rarely falls short there (it "
        "covered 0.90-1.00 in the same sweep, mostly above 0.965: conservative). Or collect "
        "more samples of that class."
    )


def _smaller(n_pos: Any, n_neg: Any) -> int:
    """The smaller class's size (the smallest over the elements of arrays)."""
    return int(np.minimum(np.atleast_1d(n_pos), np.atleast_1d(n_neg)).min())


def warn_few_auc_class(
    n_pos: Any, n_neg: Any, method: str | None = None, before: Any = ()
) -> str | None:
    """Warn (and return the message) for a ROC AUC whose smaller class has fewer than
    :data:`MIN_AUC_CLASS` samples (the smallest over the elements of an array): the
    message of :func:`few_auc_class_text`.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     text = warn_few_auc_class(8, 150)
    >>> w[0].category.__name__
    'FewConditionsWarning'
    >>> warn_few_auc_class(20, 150) is None
    True
    """
    few = _smaller(n_pos, n_neg)
    if few >= MIN_AUC_CLASS:
        return None
    text = few_auc_class_text(few, method, before)
    warn(text, FewConditionsWarning)
    return text


def warn_near_edge_auc(
    n_pos: Any, n_neg: Any, estimate: Any, method: str | None = None, before: Any = ()
) -> str | None:
    """Warn (and return the message of :func:`near_edge_auc_text`) where
    :func:`near_edge_auc_rule` holds for a single ``estimate``; ``method`` and ``before`` as
    in :func:`few_auc_class_text`.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     text = warn_near_edge_auc(30, 150, 0.96)
    >>> text.split(":")[0]
    'Only 30 samples in the smaller class of a ROC AUC of 0.96'
    >>> warn_near_edge_auc(30, 150, 0.85) is None
    True
    """
    few = _smaller(n_pos, n_neg)
    if not near_edge_auc_rule(few, estimate):
        return None
    text = near_edge_auc_text(few, float(estimate), method, before)
    warn(text, FewConditionsWarning)
    return text


#: a ROC AUC over conditions, at least :data:`AUC_NEAR_EDGE` from chance (at or above
#: 0.95, or at or below 0.05), whose smaller class fills fewer effective conditions than
#: this (Kish's number of its counts per condition, :func:`class_effective_conditions`)
#: warns (:func:`clustered_auc_rule`).  Design s8sc #0 of the design search (520 samples,
#: about 22 positives over 31 conditions, ICC 0.39, AUC 0.98): no method held (auto = BCa
#: 0.870 on 300 test sets), warned in 28% (by :data:`MIN_AUC_CLASS` only); its positives
#: fill 13.4 effective conditions (median; 10.7-16.2 for 80% of the test sets).  The
#: sweep (docs/validation.md, "The AUC over conditions with few of a class": 15-45
#: positives, 31 and 100 conditions, ICC 0-0.4, AUC 0.98 and 0.85, 150 test sets each):
#: at AUC 0.98 the test sets below 15 covered 0.866 (the rest 0.900); at AUC 0.85 they
#: held (0.953), hence the gate on the estimate.  20 (the clustered-class rule's
#: threshold) would warn 69-73% of the test sets of 45 positives over 31 conditions,
#: which held at ICC 0.2-0.4 (0.940-0.960); 15 warns 3-5% of them
MIN_AUC_CLASS_CONDITIONS = 15.0
#: the distance of the AUC from 1 (or 0) within which :data:`MIN_AUC_CLASS_CONDITIONS`
#: applies
AUC_NEAR_EDGE = 0.05
#: the rule applies with at least this many effective conditions of the samples (Kish's
#: number of the condition sizes): the sweep's range began at 31; below
#: :data:`mlci.engine.auto.MIN_CONDITIONS` the coverage map's warning speaks instead
MIN_AUC_SWEEP_CONDITIONS = 20.0


def class_effective_conditions(positive: Any, unit: Any) -> float:
    """Kish's effective number of conditions of the smaller class: ``(sum_c m_c)^2 /
    sum_c m_c^2`` with ``m_c`` the class's count in condition ``c`` (0 when the class is
    empty).  ``positive``: each sample's class (bool); ``unit``: its condition (codes).

    Examples
    --------
    >>> import numpy as np
    >>> positive = np.array([1, 1, 1, 0, 0, 0, 0, 0], bool)
    >>> unit = np.array([0, 0, 1, 1, 2, 2, 3, 3])  # positives in conditions 0, 0, 1
    >>> class_effective_conditions(positive, unit)  # 3^2 / (2^2 + 1^2)
    1.8
    """
    positive = np.asarray(positive, dtype=bool)
    small = positive if 2 * positive.sum() <= len(positive) else ~positive
    return effective_conditions(np.asarray(unit)[small])


def clustered_auc_rule(
    effective: float | None, estimate: float | None, conditions: float | None
) -> bool:
    """Whether a ROC AUC over conditions lies where no method held: its smaller class fills
    fewer than :data:`MIN_AUC_CLASS_CONDITIONS` effective conditions (``effective``,
    :func:`class_effective_conditions`), the ``estimate`` is within :data:`AUC_NEAR_EDGE`
    of 1 or 0, and the samples fill at least :data:`MIN_AUC_SWEEP_CONDITIONS` effective
    ``conditions`` (the sweep's range).

    Examples
    --------
    >>> clustered_auc_rule(13.4, 0.98, 31.0)  # s8sc #0 as drawn
    True
    >>> clustered_auc_rule(13.4, 0.85, 31.0)  # away from the edge: held
    False
    >>> clustered_auc_rule(19.0, 0.98, 31.0)  # 45 positives over 31 conditions
    False
    """
    if effective is None or estimate is None or conditions is None:
        return False
    if conditions < MIN_AUC_SWEEP_CONDITIONS:
        return False
    near = min(estimate, 1.0 - estimate) <= AUC_NEAR_EDGE
    return bool(near and effective < MIN_AUC_CLASS_CONDITIONS)


def clustered_auc_text(
    few: int, effective: float, estimate: float, method: str | None = None, before: Any = ()
) -> str:
    """The whole clustered-class warning of a ROC AUC (:func:`clustered_auc_rule`), the
    same through every door; ``method`` and ``before`` as in :func:`few_auc_class_text`.

    Examples
    --------
    >>> clustered_auc_text(22, 13.4, 0.98).split(" (")[0]
    'The 22 samples of the smaller class of a ROC AUC of 0.98 fill only 13.4 effective conditions'
    """
    which = "The interval" if method is None else f"The {method} interval"
    found = (
        f"The {few} samples of the smaller class of a ROC AUC of {estimate:.3g} fill only "
        f"{effective:.1f} effective conditions (Kish's (sum m)^2 / sum m^2 of its counts m per "
        f"condition): below {MIN_AUC_CLASS_CONDITIONS:g} with an AUC within "
        f"{AUC_NEAR_EDGE:g} of its bound, mlci's design search and sweep (docs/validation.md, "
        "'The AUC over conditions with few of a class') found no interval method holding its "
        "level (auto = BCa 0.870, percentile 0.833 in design s8sc #0; 0.83-0.87 in the sweep)"
    )
    return (
        "; ".join([*before, found])
        + f". {which} may not keep its confidence level: treat it as optimistic, or collect "
        "more samples of that class, spread over more conditions."
    )


def warn_clustered_auc(
    few: int,
    effective: float | None,
    estimate: float | None,
    conditions: float | None,
    method: str | None = None,
    before: Any = (),
) -> str | None:
    """Warn (and return the message of :func:`clustered_auc_text`) where
    :func:`clustered_auc_rule` holds.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     text = warn_clustered_auc(22, 13.4, 0.98, 31.0)
    >>> w[0].category.__name__
    'FewConditionsWarning'
    >>> warn_clustered_auc(22, 13.4, 0.85, 31.0) is None
    True
    """
    if not clustered_auc_rule(effective, estimate, conditions):
        return None
    assert effective is not None and estimate is not None
    text = clustered_auc_text(few, effective, estimate, method, before)
    warn(text, FewConditionsWarning)
    return text


def clustered_auc_check(
    positive: Any,
    plan: Any,
    estimate: Any,
    n_pos: Any,
    n_neg: Any,
    method: str,
    extra: dict[str, Any],
    rules: bool = True,
) -> str | None:
    """The clustered-class rule of a ROC AUC for a driver of its own (the Scores drivers):
    with conditions (``plan.unit_of_sample``, aligned with ``positive``, each sample's
    class), the numbers of :func:`mlci.engine.auto.design_diagnostics` that the rule reads
    go to ``extra["diagnostics"]``; with ``rules``, :func:`warn_clustered_auc`'s message
    (or None).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> plan = SimpleNamespace(unit_of_sample=np.repeat(np.arange(4), 2), n_conditions=4)
    >>> extra = {}
    >>> clustered_auc_check(np.arange(8) < 2, plan, 0.9, 2, 6, "bca", extra) is None
    True
    >>> extra["diagnostics"]["smaller_class_effective_conditions"]
    1.0
    """
    unit = getattr(plan, "unit_of_sample", None)
    positive = np.asarray(positive, dtype=bool)
    if unit is None or getattr(plan, "n_conditions", None) is None or len(unit) != len(positive):
        return None
    diag = {
        "n_conditions": int(plan.n_conditions),
        "effective_conditions": effective_conditions(unit),
        "n_negative": int(n_neg),
        "n_positive": int(n_pos),
        "smaller_class_effective_conditions": class_effective_conditions(positive, unit),
    }
    extra["diagnostics"] = {**extra.get("diagnostics", {}), **diag}
    if not rules:
        return None
    return warn_clustered_auc(
        int(min(n_pos, n_neg)),
        diag["smaller_class_effective_conditions"],
        float(estimate),
        diag["effective_conditions"],
        method,
    )


# ---------------------------------------------- average precision over shifting conditions
#: average precision over conditions warns where the negatives' scores shift between
#: conditions: the estimated ICC of their ranks (:func:`negative_score_icc`) at least this
#: with fewer than :data:`AP_MANY_CONDITIONS` effective conditions, or at least
#: :data:`AP_SCORE_ICC_MANY` with more (:func:`clustered_ap_rule`).  The design search's
#: seed-11 #23 (1,747 samples, about 52 positives over 42 conditions of unequal size, Kish
#: 26.2, ICC 0.50, AP 0.960): auto (BCa) covered 0.887 of 300 test sets, warned in 1.  The
#: quick sweep behind the thresholds (variants of that design, 300-400 test sets each,
#: B = 500; the ranks' ICC is close to the design's): auto covered 0.83-0.90 at ICC 0.5
#: over 42-120 conditions (Kish 26-120) with 52 or 207 positives, 0.883 at ICC 0.3 and
#: 0.907 at 0.2 over Kish 26, 0.893 at 0.2 over 60 equal conditions, 0.913 at 0.3 over
#: 150 unequal ones (Kish 69, 207 positives); it held over 150 equal conditions at ICC
#: 0.15 (0.953) and 0.3 (0.940), over 150 unequal at ICC 0.08 (seed-11 #57, 0.960), and
#: iid (0.953).  Not warned, short by a little: Kish 26 at ICC 0-0.15 (0.920-0.927).
#: Session 10 (``scripts/ap_interval_sweep.py``; docs/validation.md, "Average precision:
#: BCa's shortfall and the logit jackknife interval"): that shortfall is BCa's with 50-207
#: positives whatever the ICC (0.895-0.95 at ICC 0 over 42 conditions, Kish 29), not the
#: conditions' (so this threshold stays); ``auto`` now gives the logit jackknife interval
#: there (:mod:`mlci.engine.ap_interval`: 0.92-0.99 at ICC 0-0.15, 0.905-0.945 at 0.3)
AP_SCORE_ICC = 0.15
#: the effective number of conditions (Kish's, of all samples) from which
#: :data:`AP_SCORE_ICC_MANY` applies instead of :data:`AP_SCORE_ICC`
AP_MANY_CONDITIONS = 100.0
#: the ranks' ICC from which average precision over many effective conditions warns
#: (:func:`clustered_ap_rule`): ICC 0.5 over 120 equal conditions covered 0.897, 0.3 over
#: 150 (ranks' ICC 0.25-0.32) held, 0.940
AP_SCORE_ICC_MANY = 0.35


def negative_score_icc(negative: Any, score_key: Any, unit: Any) -> float:
    """The one-way ANOVA estimate of the intra-condition correlation of the negatives'
    score ranks (truncated at 0): how much the conditions shift the scores.  ``negative``:
    each sample's class (bool, True for a negative); ``score_key``: a key increasing with
    the score (e.g. a ranking kernel's atom index); ``unit``: each sample's condition
    (codes).  Ties share their mid-rank; ``(MSB - MSW) / (MSB + (n0 - 1) MSW)`` with
    ``n0 = (N - sum n_c^2 / N) / (C - 1)`` over the ``C`` conditions holding negatives.

    Examples
    --------
    >>> import numpy as np
    >>> neg = np.ones(8, bool)
    >>> unit = np.repeat([0, 1], 4)
    >>> round(negative_score_icc(neg, np.arange(8), unit), 3)  # condition 1 all higher
    0.82
    >>> negative_score_icc(neg, np.array([0, 7, 2, 5, 1, 6, 3, 4]), unit)  # alike
    0.0
    """
    negative = np.asarray(negative, dtype=bool)
    key = np.asarray(score_key)[negative]
    cond = np.asarray(unit)[negative]
    if len(key) < 3:
        return 0.0
    _, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
    rank = (np.cumsum(counts) - (counts - 1) / 2.0)[inverse.reshape(-1)]
    _, cond = np.unique(cond, return_inverse=True)
    n_c = np.bincount(cond).astype(float)
    c, total = len(n_c), float(n_c.sum())
    if c < 2 or total <= c:
        return 0.0
    between = np.sum((np.bincount(cond, rank) - n_c * rank.mean()) ** 2 / n_c)
    msb = between / (c - 1)
    msw = (np.sum((rank - rank.mean()) ** 2) - between) / (total - c)
    n0 = (total - np.sum(n_c**2) / total) / (c - 1)
    den = msb + (n0 - 1.0) * msw
    return float(max((msb - msw) / den, 0.0)) if den > 0 else 0.0


def clustered_ap_rule(score_icc: float | None, effective: float | None) -> bool:
    """Whether average precision over conditions lies where its intervals fell short: the
    negatives' scores shift between conditions, the ICC of their ranks ``score_icc``
    (:func:`negative_score_icc`; None for independent samples) at least
    :data:`AP_SCORE_ICC` over fewer than :data:`AP_MANY_CONDITIONS` ``effective``
    conditions (Kish's number of the condition sizes), at least :data:`AP_SCORE_ICC_MANY`
    over more.  (With fewer than 8 conditions the few-conditions warning speaks as well.)

    Examples
    --------
    >>> clustered_ap_rule(0.41, 26.2)  # seed-11 #23 as drawn (42 conditions)
    True
    >>> clustered_ap_rule(0.075, 68.6)  # ICC 0.08 over 150 conditions: held
    False
    >>> clustered_ap_rule(0.29, 150.0), clustered_ap_rule(0.48, 120.0)
    (False, True)
    >>> clustered_ap_rule(None, None)  # independent samples
    False
    """
    if score_icc is None or effective is None:
        return False
    least = AP_SCORE_ICC if effective < AP_MANY_CONDITIONS else AP_SCORE_ICC_MANY
    return bool(score_icc >= least)


def clustered_ap_message(effective: float, score_icc: float, few: int) -> str:
    """What :func:`clustered_ap_rule` found, and the remedy (a part of the warning of
    :func:`mlci.engine.auto.warn_outside_map`).

    Examples
    --------
    >>> clustered_ap_message(26.2, 0.41, 58).split(" (")[0]
    "The negatives' scores shift between the conditions of this average precision"
    """
    return (
        "The negatives' scores shift between the conditions of this average precision "
        f"(estimated ICC of their ranks {score_icc:.2f} over {effective:.1f} effective "
        f"conditions, at least {AP_SCORE_ICC:g} below {AP_MANY_CONDITIONS:g} of them, "
        f"{AP_SCORE_ICC_MANY:g} above; {few} samples in the smaller class): there "
        "the pooled ranking "
        "mixes the conditions, and mlci's design search (seed-11 #23, docs/validation.md) "
        "and a sweep of its variants (mlci.engine.auc_class.AP_SCORE_ICC) found BCa short "
        "of its level (0.83-0.90 at ICC 0.5 over 42-120 conditions, with 52 or 207 "
        "positives; 0.87-0.92 at ICC 0.2-0.3), the logit jackknife interval (auto's from "
        "20 positives) 0.905-0.945 at ICC 0.3 (scripts/ap_interval_sweep.py), and more "
        "conditions alone did not restore it; report average precision "
        "per condition (or of scores normalised within each condition) if the conditions "
        "are not to be ranked together"
    )
