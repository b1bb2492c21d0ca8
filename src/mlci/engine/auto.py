"""``method="auto"``: the interval method the coverage map shows to hold, and the diagnostics.

The rules below are read off the coverage map in docs/validation.md (section 2,
produced by ``scripts/coverage_map.py``); change one only with the map that supports it.

* A proportion ``k / n`` of independent samples (accuracy, error rate, recall,
  precision, specificity...): **Wilson's score interval**.  Its exact coverage over the
  map's range (n = 30 to 1000, p = 0.8 to 0.995) is 0.951 on average and within
  0.95 +- 0.015 at 96% of the (n, p), the most of any non-randomised interval
  (``scripts/exact_proportion_coverage.py``).  It holds for small n and near 0 or 1,
  where BCa over-covers (n = 30) or collapses (no error in the test set).  Its
  bounds for 1-3 successes (or failures) are Brown, Cai & DasGupta's (2001, sec.
  4.1.1) one-sided Poisson bounds, ``method="wilson_modified"``: plain Wilson's exact
  coverage dips to 0.845 next to 0 and 1 at every n (p = 0.999 at n = 100: 0.905); the
  modified interval's least coverage is 0.917-0.929 at n = 20-5,000, and its mean width
  0.5% more near the bounds, unchanged elsewhere (``scripts/wilson_modified_exact.py``,
  docs/validation.md, "Wilson near the bounds: exact coverage").
* A proportion over conditions: the **logit_t** interval, the t interval on the logit
  scale with the CR2 standard error and Imbens & Kolesar's (2016) degrees of freedom
  (:func:`mlci.engine.linearize.random_effects_df`, the ICC estimated).  It holds from 8
  conditions on, also near 1 and with unequal sizes, where Wilson on the effective
  sample size covered 0.921-0.923; Wilson (design effect 1) where the proportion is 0
  or 1; within 0.1 of 0 or 1 over at least 8 conditions, **Korn & Graubard's** interval
  (:mod:`mlci.engine.clustered_edge`; with fewer than 4 effective minority outcomes
  widened to hold the logit t: accuracy 0.9-0.999 over 8-500 conditions, cells short of
  0.935 8 -> 5 of 43, none newly short); over fewer than 8, the same widened to hold the
  logit t whatever the minority count (session 11, warned).
* A decision metric of two classes (F1, MCC, balanced accuracy, kappa) with fewer than
  :data:`MIN_CLASS` samples in a class: **percentile**, with a warning (no method held;
  balanced accuracy with 3 positives in 217: studentized 0.51-0.57, percentile
  0.81-0.835, BCa 0.78-0.81), but balanced accuracy of independent samples: MOVER
  (below; seed-11 #13, 1-6 positives in 162: 0.983, the percentile 0.565), warned.
* Any other built-in metric with a derivative (F1, MCC, balanced accuracy, kappa, ROC
  AUC, log loss, means, MSE ...): the **studentized** (bootstrap-t)
  interval on the logit scale, with the linearized standard error of every replicate.
* A paired difference in :func:`mlci.compare`: the **t** interval on its linearized (CR2)
  standard error, except for a *skewed* difference of independent samples, whose
  effective number of discordant samples ``1 / skewness^2`` of the linearized difference
  (:mod:`mlci.engine.skewness`; about the discordant count when they all go one way) is
  below :data:`~mlci.engine.paired_rules.MIN_EFFECTIVE_DISCORDANT` = 30: **BCa** there
  (:func:`~mlci.engine.paired_rules.skewed_pairs`;
  not for ROC AUC and average precision, where BCa covered less than t at n = 51-129).
  The t interval is a Wald interval; its exact coverage for a paired accuracy
  difference whose discordant samples go one way oscillates with their expected number:
  0.80-0.95 with 2-4, 0.89-0.94 with 6-8, 0.93-0.96 with 12-20, 0.94-0.95 with 30-50
  (at n = 943 over a fine grid: minimum 0.914 and mean 0.935 over 10-20 expected, 0.93
  and 0.943 over 20-40; ``scripts/paired_diff_study.py --exact``, docs/validation.md
  section 5, "Paired differences").  With 400 test sets: 17 one-way
  discordant samples in 943 (the design search's #59), t 0.938, BCa 0.950; 5 in 20, t
  0.89, BCa 0.97; an f1 difference with 12, t 0.917, BCa 0.943; 12 in 5,000 (200
  test sets), t 0.92, BCa 0.945.  Balanced discordance (no skew) keeps the t interval,
  which holds there (0.945-0.985 with 3-12 discordant samples) where BCa fell to
  0.91-0.925; but a test set whose 3-6 discordant samples happen to go one way switches
  (33-67% of them: coverage 0.95-0.985 -> 0.91-0.955, mostly warned below).  Test set by
  test set over 50 designs: mean 0.947 (t 0.938), lowest 0.880 (t 0.765).  Over
  conditions the t interval is kept (BCa 0.83-0.84 where t covered 0.90-0.95 over 7-48
  conditions).  With fewer than :data:`~mlci.engine.paired_rules.MIN_DISCORDANT` = 5
  effective discordant samples (``1 / kurtosis``) no interval of ``compare`` holds and it
  warns (:func:`~mlci.engine.paired_rules.warn_few_discordant`); for
  accuracy, Tango's score interval (:func:`mlci.paired_proportion_diff_ci`) holds there
  (exact coverage 0.93-0.99 with 2-12 discordant samples).  So a difference of two
  **proportions over the same samples** (accuracy, error rate, recall: a 0/1 success per
  sample, the paired 2x2 table defined) of independent samples without weights or strata
  gets **Tango's score interval** of that table before any rule above (exact coverage
  0.931-0.990 over n = 60-5,000 and 2-50 expected discordant samples, t 0.774-0.986),
  with Tango's score test at 0 (McNemar's z) as p-value: :mod:`mlci.comparison.tango`.
* Otherwise (a user's function, strata, two-stage or Poisson resampling, nested
  conditions, a reduced table of per-condition sums or of more than 10^7 samples; other
  reduced tables resolve as in memory, :mod:`mlci.backends.samples`): **BCa**.
* Near the edge of the range, where at least half of a tail's replicates have an
  infinite bootstrap-t statistic (resamples without an error), the studentized interval
  gives way to an analytic one of the same standard error: for a decision metric
  **Clopper-Pearson on the effective sample size** (Korn & Graubard 1998;
  :func:`edge_fallback_options`), for a ranking metric the **logit_t** interval
  (:func:`edge_reason`; the rule is in :func:`mlci.intervals.bootstrap.edge_dominated`,
  the numbers in docs/validation.md, "Near the bounds").  In :func:`mlci.compare`, a
  difference of independent samples with such a system gets BCa; over conditions it
  keeps the t interval (the seed-3 search's #14, a roc_auc difference over 139
  conditions with about 10 positives, 400 test sets: t 0.935, BCa 0.852, percentile
  0.917; on the 43% of test sets the BCa switch had picked, t 0.942, BCa 0.831).
* Balanced accuracy with 0-3 errors in a class: MOVER of the two classes' modified
  Wilson intervals of independent samples, of their Korn & Graubard intervals over
  conditions (:mod:`mlci.engine.class_edge`), and with 1-4 samples of a class of
  independent samples; over conditions, a class without an error and more than 3 in the
  other still warns, and so does a class's rate with few effective minority outcomes.
* A single sample (or condition): Wilson for a proportion of independent samples, else
  BCa, which collapses with a warning (:func:`single_unit_method`).

Every driver resolves ``"auto"`` by these rules: the kernel drivers (``bootstrap_ci``,
``compare``, ``ConfusionMatrix.bootstrap_ci``, ``reduce_table``/``reduce_ci``) through
:func:`choose_method`; the score drivers (``Scores.bootstrap_ci``, ``auc_ci``,
``operating_point_ci``, ``eer_ci``, ``dcf_ci``, ``cllr_ci``), ``metric_by_group`` and
``trial_bootstrap_ci``, which have no linearized standard error, per statistic through
:func:`mlci.engine.scores_rules.scores_auto_method` (the EER percentile, every other
statistic BCa; the rules and their numbers are in :mod:`mlci.engine.scores_rules`).

``roc_band``/``roc_with_ci`` (bands) default to ``"percentile"`` (docs/guide.md, section
2, says why).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import FewConditionsWarning, NearBoundWarning
from ..feedback import warn
from ..intervals.bootstrap import LINEARIZED_METHODS
from ..metrics import Kernel
from .ap_misranked import misranked_positive_diagnostics, warn_few_misranked_ap
from .auc_class import (
    class_effective_conditions,
    clustered_ap_message,
    clustered_ap_rule,
    negative_score_icc,
    warn_clustered_auc,
    warn_few_auc_class,
    warn_near_edge_auc,
)
from .auc_misranked import (
    misordered_few_conditions_bca,
    misranked_counts,
    warn_few_misranked_auc,
)
from .class_edge import (
    class_edge_diagnostics,
    class_edge_message,
    class_edge_options,
    class_edge_reason,
    class_rate_proportions,
    few_class_mover,
    few_class_mover_text,
)
from .clustered_class import (
    CLUSTERED_CLASS_METRICS,
    CLUSTERED_ICC_METRICS,
    class_error_icc,
    class_sizes,
    clustered_class_rule,
    clustered_class_text,
    smaller_class,
    smaller_class_conditions,
)
from .clustered_edge import clustered_proportion_rule
from .deff_uncertain import uncertain_design_effect_message, uncertain_design_effect_rule
from .effective_conditions import (
    effective_conditions,
    few_effective_conditions,
    few_effective_conditions_text,
)
from .error_conditions import error_conditions, error_conditions_message, error_conditions_rule
from .few_conditions_class import few_conditions_class_message, few_conditions_class_rule
from .heavy_tail import HEAVY_TAIL_METRICS, heavy_tail_diagnostics, warn_heavy_tail
from .no_error import (
    NO_ERROR_METHOD,
    no_error_few_text,
    no_error_message,
    no_error_options,
    no_error_reason,
)

__all__ = [
    "RANKED_CLASS_METRICS",
    "choose_method",
    "design_diagnostics",
    "edge_fallback_applies",
    "edge_fallback_options",
    "edge_reason",
    "kernel_auto_method",
    "map_without_linearization",
    "proportion_method",
    "replicate_diagnostics",
    "single_unit_method",
    "warn_near_bound",
    "warn_no_spread",
    "warn_outside_map",
]

#: fewer conditions than this: the map has one such design (5 conditions, where logit_t
#: covered 0.958 and BCa 0.849), too few to establish that any method holds
MIN_CONDITIONS = 8
#: fewer positives (or negatives) than this for a ranking metric: no method holds
MIN_CLASS = 5
#: a proportion over conditions within ``NEAR_BOUND`` of 0 or 1 with fewer effective
#: minority outcomes than this (``min(p, 1 - p) * effective_n``): the logit_t interval
#: covered 0.87-0.97 in the map (accuracy 0.95 over 12 conditions at ICC 0.3, 0.98 over
#: 20, 0.95 over 8; population values 1.8-2.8), and held from 4.1 on (0.95 over 12
#: conditions at ICC 0.1).  Away from the bounds it held with 4.6-4.8 (accuracy 0.8 at
#: ICC 0.3-0.5 over 8-12 conditions), where the rule would raise false alarms.
MIN_EFFECTIVE_MINORITY, NEAR_BOUND = 4.0, 0.1


def choose_method(kernel: Kernel, plan: Any, unsupported: str | None) -> tuple[str, str]:
    """``(method, reason)`` for ``method="auto"``."""
    preferred = kernel_auto_method(kernel, plan)
    # a kernel's linearized preference needs the linearization (not on a reduced table)
    if preferred is not None and (unsupported is None or preferred[0] not in LINEARIZED_METHODS):
        return preferred
    if unsupported is not None:
        return "bca", f"bca: the linearized methods are unavailable ({unsupported})"
    if kernel.proportion is not None and kernel.shape == ():
        method, reason = proportion_method(plan, kernel)
        return method, reason + kernel.proportion_reason  # e.g. a mean of 0/1 values
    few_ap = few_positive_ap(kernel)
    if few_ap is not None:
        return "bca", few_ap
    few = smaller_class(kernel)
    if (
        few is not None
        and few < MIN_CLASS
        and not few_class_mover(kernel, plan)
        and not no_error_options(kernel, plan)  # no error: the exact interval (no_error.py)
    ):
        return "percentile", (
            f"{FEW_CLASS_REASON} ({few} in the smaller class): the studentized interval is "
            "too narrow there (balanced accuracy with 3 positives in 217: 0.51-0.57, "
            "percentile 0.81-0.835, BCa 0.78-0.81; docs/validation.md, section 5), and no "
            "method holds (a warning says so)"
        )
    # a ROC AUC near 1 over conditions, many misordered pairs on a few conditions: BCa
    # (engine/auc_misranked.py; session 12, aucedge)
    if kernel.name == "roc_auc" and (
        edge := misordered_few_conditions_bca(kernel, plan, MIN_CLASS_EDGE)
    ):
        return "bca", edge
    return "studentized", (
        "studentized: bootstrap-t with the linearized standard error of every replicate, "
        "on the logit scale when the metric is bounded"
    )


def kernel_auto_method(kernel: Kernel, plan: Any) -> tuple[str, str] | None:
    """A kernel's own ``method="auto"`` rule, read off its family's coverage study.

    ``kernel.auto_method`` is ``(method, reason)``, or a function of the resampling plan
    giving that or None (then the rules of :func:`choose_method` apply): the debiased ECE
    (normal; docs/calibration.md), corpus BLEU and chrF over documents (logit t;
    docs/validation.md, "Corpus MT metrics and IR measures"), the calibration slope and
    intercept (t; docs/calibration.md).  :func:`choose_method` passes over a linearized
    preference where the linearization is unavailable (a reduced table).
    """
    rule = getattr(kernel, "auto_method", None)
    if callable(rule):
        rule = rule(plan)
    return rule


#: the start of ``method_reason`` when a decision metric of two classes with fewer than
#: :data:`MIN_CLASS` samples in a class gets the percentile interval (:func:`choose_method`)
FEW_CLASS_REASON = (
    f"percentile: a binary decision metric with fewer than {MIN_CLASS} samples of a class"
)


#: ranking metrics: near the edge the logit t interval covered 0.85-0.88 on the
#: edge-dominated test sets of an AUC of 0.998-0.999 (n = 300-500; BCa 0.81-0.86): no
#: method holds, the result warns
RANKING_METRICS = ("roc_auc", "average_precision")
#: a ranking metric with fewer samples than this in its smaller class keeps the wide
#: studentized interval near the edge: with 5 positives (the map's AUC 0.8) the
#: replicates without a misordered pair come from resampling few positives, the estimate
#: overshoots, and the logit t interval covered 0.77 on those test sets (the cell: 0.872
#: instead of 0.936); with 10 positives the rule applied in 2 of 300 test sets.
#: Average precision falls back whatever the class sizes: there the kept bound bought no
#: coverage (issue 20's AP cell, n = 64, AUC 0.992, test sets with 6-9 positives: the
#: studentized interval covered 0.43 with 57% of its intervals reaching 0, the logit t
#: 0.46, BCa 0.57; 6 expected positives: 0.52 with 53% at 0, logit t 0.50, BCa 0.53;
#: docs/validation.md, "Near the bounds")
MIN_CLASS_EDGE = 10


def few_positive_ap(kernel: Kernel) -> str | None:
    """``method_reason`` of BCa for an average precision of fewer than
    :data:`MIN_CLASS_EDGE` positives (with some), else None.

    With so few positives the studentized interval (which the average precision has up to
    64 distinct scores; above, ``auto`` gives BCa) met its edge whenever the few positives
    rank on top, and its logit t fallback covered less than BCa everywhere it was measured:
    at AP 0.19 from about 5 positives in 34 samples (the design search's seed-14 #34) 0.846
    of 298 test sets against BCa's 0.950; at AP 0.97 with 6-9 positives (n = 64) 0.46-0.50
    against 0.53-0.57, where no method held (``scripts/ap_few_positives_bca.py`` for the
    range between; docs/validation.md, "A test set without an error, and the ROC AUC's
    misranked samples").
    """
    m_neg = getattr(kernel, "m_neg", None)
    if kernel.name != "average_precision" or m_neg is None or kernel.shape != ():
        return None
    n_pos = (class_sizes(kernel) or (0, 0))[1]
    if not 0 < n_pos < MIN_CLASS_EDGE:
        return None
    return (
        f"bca: an average precision of {n_pos} positives (fewer than {MIN_CLASS_EDGE}), "
        "where the studentized interval meets the edge of the range whenever the few "
        "positives rank on top and its logit t fallback covered less than BCa (0.846 "
        "against 0.950 at AP 0.19 from about 5 positives, 0.46-0.50 against 0.53-0.57 at "
        "AP 0.97 with 6-9)"
    )


#: an average precision of fewer than :data:`MIN_CLASS_EDGE` positives above this warns:
#: BCa covered 0.942-0.975 at AP 0.15-0.70 (5-9 positives, ``scripts/ap_few_positives_bca.py``)
#: and 0.84 at AP 0.92, 0.53-0.57 at 0.97 (branch wt-order's cells), where no method held
AP_FEW_POSITIVES_NEAR = 0.8


def few_positive_ap_rule(diag: dict[str, Any]) -> bool:
    """Whether an average precision of 1 to ``MIN_CLASS_EDGE - 1`` positives is above
    :data:`AP_FEW_POSITIVES_NEAR` (``diag``: ``n_positive`` and ``estimate``).

    Examples
    --------
    >>> few_positive_ap_rule({"n_positive": 6, "estimate": 0.92})
    True
    >>> few_positive_ap_rule({"n_positive": 6, "estimate": 0.4})
    False
    """
    n_pos, est = diag.get("n_positive"), diag.get("estimate")
    if n_pos is None or est is None or np.ndim(est) != 0:
        return False
    return bool(0 < n_pos < MIN_CLASS_EDGE and est > AP_FEW_POSITIVES_NEAR)


def few_positive_ap_message(n_pos: int, estimate: float) -> str:
    """The warning's message for :func:`few_positive_ap_rule`."""
    return (
        f"An average precision of {float(estimate):.3g} from {n_pos} positives (fewer than "
        f"{MIN_CLASS_EDGE}, above {AP_FEW_POSITIVES_NEAR:g}): with so few positives near the "
        "top of the range no interval held its level in mlci's studies (BCa covered 0.84 "
        "at AP 0.92 and 0.53-0.57 at 0.97 with 5-9 positives; docs/validation.md, 'A test "
        "set without an error, and the ROC AUC's misranked samples')"
    )


def edge_fallback_applies(kernel: Kernel) -> tuple[bool, bool]:
    """``(fallback, warn)``: whether the studentized interval of ``kernel`` gives way to
    the logit t interval near the edge of the range, and whether that is warned about.

    Every bounded metric falls back silently (the logit t interval held in the near-bound
    study), but the ranking metrics: they fall back with a :class:`NearBoundWarning` (no
    method held) when both classes have at least :data:`MIN_CLASS_EDGE` samples (average
    precision: always), and otherwise keep the studentized interval, with the warning.
    """
    if kernel.name not in RANKING_METRICS:
        return True, False
    m_neg = getattr(kernel, "m_neg", None)
    if m_neg is None:
        return False, True
    if kernel.name == "average_precision":
        return True, True
    smaller = min(class_sizes(kernel) or (0, 0))
    return bool(smaller >= MIN_CLASS_EDGE), True


def edge_fallback_options(kernel: Kernel, plan: Any = None) -> dict[str, Any]:
    """The near-bound options of ``kernel``'s linearization: ``edge_fallback`` and
    ``edge_warn`` (:func:`edge_fallback_applies`), and ``edge_method``, the interval given
    where the studentized one is edge-dominated.

    ``"korn_graubard"`` (:func:`mlci.intervals.bootstrap.effective_binomial_interval`,
    Korn & Graubard's interval on the effective sample size) for every bounded metric but
    the ranking ones, which keep ``"logit_t"`` (their evidence, with a warning).  In the
    near-bound study (docs/validation.md, "Near the bounds"; 36 designs of F1, MCC,
    balanced accuracy and kappa with 1-5 errors in 100-500 samples, iid and over 20-50
    conditions) it covered at least as much as the logit t interval on the test sets with
    an error in every design (0.947-0.996, before 0.931-0.985) and was never wider (median
    width 0.99-1.36 times BCa's, before 1.01-1.70; MCC and kappa with 1 error in 100: 1.36
    and 1.31, before 1.70 and 1.64).
    """
    fallback, warns = edge_fallback_applies(kernel)
    bounds = getattr(kernel, "bounds", None)
    bounded = bounds is not None and bool(np.all(np.isfinite(bounds)))
    # an unbounded metric (a mean, MSE...) has no binomial analogue: its edge-dominated
    # elements (resamples without spread) get the t interval of the same standard error
    method = "logit_t" if kernel.name in RANKING_METRICS or not bounded else "korn_graubard"
    # balanced accuracy with 0-3 errors in a class: MOVER (engine/class_edge.py)
    # F1, MCC, kappa without an error: the exact interval of "no error" (engine/no_error.py)
    return {"edge_fallback": fallback, "edge_warn": warns, "edge_method": method} | (
        class_edge_options(kernel, plan) | no_error_options(kernel, plan)
    )


def warn_near_bound(n_elements: int, metric: str, kept: bool) -> str:
    """Warn (and return the message) for a ranking metric's edge-dominated interval."""
    what = (
        "the wide studentized bound is kept (with fewer than "
        f"{MIN_CLASS_EDGE} samples in a class the logit t interval covered 0.77)"
        if kept
        else "the logit t interval is given"
    )
    text = (
        f"{metric!r} is near the edge of its range for {n_elements} element(s): at least "
        "half of a tail's replicates rank every positive above every negative (an infinite "
        "bootstrap-t statistic). In mlci's near-bound study no interval held its level "
        "there (the logit t interval 0.85-0.88, BCa 0.81-0.86 on such test sets; "
        f"docs/validation.md, 'Near the bounds'); {what}. Treat it as optimistic, or "
        "collect more positives and negatives."
    )
    warn(text, NearBoundWarning)
    return text


def warn_no_spread(n_elements: int, metric: str) -> str:
    """Warn (and return the message) where an unbounded metric's studentized interval gave
    way to the t interval because resamples have no spread (few distinct values).

    Such data are either 0/1 values near 0 or 1 (a proportion in disguise) or a handful
    of effective samples, and the t interval does not hold its level in either (a /tmp
    simulation of this round, 200-300 test sets each, B = 1000: the mean of 0/1 values
    with p = 0.95-0.99 at n = 30-200 covered 0.77-0.94 where Wilson's interval covered
    0.94-0.98; a weighted mean with 0/1 weights and 2.5-6 effective samples 0.805-0.89,
    BCa 0.645-0.86).
    """
    text = (
        f"{metric!r}: at least half of a tail's resamples have no spread (a zero standard "
        f"error{'' if n_elements == 1 else f', {n_elements} elements'}): the values take "
        "very few distinct values, or rest on a handful of samples with nonzero weight. "
        "The t interval is given; in mlci's simulation it covered 0.77-0.94 for a mean of "
        "0/1 values near 0 or 1 and 0.80-0.89 for a weighted mean with 2-6 effective "
        "samples. For 0/1 values use a proportion (metric='accuracy' with y_true=values, "
        "y_pred=all ones, which gets Wilson's interval; or mlci.proportion_ci); otherwise "
        "treat the interval as optimistic."
    )
    warn(text, NearBoundWarning)
    return text


def edge_reason(n_elements: int, fallback: str, size: int) -> str:
    """The part of ``method_reason`` that says where the studentized interval gave way.

    Near the edge of the range (a handful of errors), replicates without an error have an
    infinite t*; where they fill half of a tail (``alpha / 2`` of the replicates, see
    :func:`mlci.intervals.bootstrap.edge_dominated`) the t quantile is infinite or rests on
    a few replicates, and the interval would reach the range's edge.  There the logit t
    interval (the same scale and standard error, Student's t quantiles) is used: on those
    test sets it covered 0.98-1.00 where BCa covered 0.90-0.99 (docs/validation.md,
    "Near the bounds").
    """
    where = "" if size == 1 else f" for {n_elements} of {size} elements"
    if fallback in ("mover_wilson", "mover_korn_graubard"):
        return class_edge_reason(fallback)
    if fallback == NO_ERROR_METHOD:
        return no_error_reason()
    if fallback == "korn_graubard":
        return (
            f"korn_graubard{where}: at least half of a tail's replicates have an "
            "infinite bootstrap-t statistic (resamples on the edge of the metric's range or "
            "without spread, e.g. without a single error), so the studentized bound would "
            "be the range's edge; Clopper-Pearson's interval on the effective sample size of "
            "the same standard error (Korn & Graubard 1998) is used instead"
        )
    return (
        f"{fallback}{where}: at least half of a tail's replicates have an infinite "
        "bootstrap-t statistic (resamples on the edge of the metric's range or without "
        "spread, e.g. without a single error), so the studentized bound would be the "
        f"range's edge; the {fallback} interval (same logit scale and standard error, "
        "Student's t quantiles) is used instead"
        if fallback == "logit_t"
        else f"t{where}: at least half of a tail's replicates have no spread (a zero "
        "standard error, e.g. a resample that holds a single distinct value), so their "
        "bootstrap-t statistic is infinite and the studentized bound would be infinite or "
        "rest on a few replicates; the t interval of the same standard error (Student's t "
        "quantiles) is used instead"
        if fallback == "t"
        else f"{fallback}{where}: at least half of a tail's replicates have an infinite "
        "bootstrap-t statistic, so the studentized bound would be the range's edge; the "
        f"{fallback} interval of the same replicates is used instead"
    )


def single_unit_method(kernel: Kernel, plan: Any, method: str) -> tuple[str, str | None]:
    """``(method, reason)`` for a test set of a single sample (or a single condition).

    No standard error can be estimated from one unit, so the studentized, t and logit_t
    intervals do not exist (an error says so).  A proportion of independent samples still
    has Wilson's score interval, which needs only ``k`` and ``n`` (1 of 1 correct:
    [0.2065, 1] at 95%); ``"auto"`` gives it.  Any other metric under ``"auto"`` gets BCa,
    whose bootstrap distribution has no spread: the interval collapses to the estimate,
    with a :class:`~mlci.DegenerateIntervalWarning`.
    """
    what = "sample" if plan.unit_of_sample is None else "condition"
    proportion = kernel.proportion is not None and kernel.shape == ()
    if method == "wilson" or (method == "auto" and proportion and what == "sample"):
        if not proportion or what != "sample":
            raise ValueError(
                f"method='wilson' needs a proportion over at least two conditions, or over "
                f"independent samples; this test set has a single {what}."
            )
        return "wilson", (
            "wilson: a proportion of a single sample (Wilson's score interval needs only "
            "k and n; no standard error can be estimated from one sample)"
            if method == "auto"
            else None
        )
    if method == "auto":
        return "bca", (
            f"bca: a single {what}, from which no standard error can be estimated (the "
            "bootstrap distribution has no spread either: the interval is the estimate)"
        )
    raise ValueError(
        f"method={method!r} needs a standard error, which cannot be estimated from a "
        f"single {what}; use method='wilson' for a proportion (accuracy, recall...) of "
        "independent samples, or a test set with at least two samples (conditions)."
    )


def proportion_method(plan: Any, kernel: Any = None) -> tuple[str, str]:
    """``(method, reason)`` of ``method="auto"`` for a single proportion (``kernel``: over
    conditions near 0 or 1, :func:`mlci.engine.clustered_edge.clustered_proportion_rule`)."""
    edge = None if kernel is None else clustered_proportion_rule(kernel, plan)
    if edge is not None:
        return edge
    if plan.unit_of_sample is None:
        return "wilson_modified", (
            "wilson_modified: a proportion of independent samples (Wilson's score interval, "
            "its bounds for 1-3 successes or failures replaced by the one-sided Poisson "
            "bound: Brown, Cai & DasGupta 2001, sec. 4.1.1)"
        )
    return "logit_t", (
        "logit_t: a proportion over conditions (t interval on the logit scale with the "
        "CR2 standard error and Imbens & Kolesar's degrees of freedom)"
    )


def _skewness(dist: np.ndarray) -> Any:
    with np.errstate(invalid="ignore", divide="ignore"):
        x = dist - np.nanmean(dist, axis=0)
        m2 = np.nanmean(x**2, axis=0)
        m3 = np.nanmean(x**3, axis=0)
        g = np.where(m2 > 0, m3 / np.where(m2 > 0, m2, 1.0) ** 1.5, 0.0)
    return float(g) if np.ndim(g) == 0 else g.tolist()


def design_diagnostics(
    kernel: Kernel,
    plan: Any,
    estimate: np.ndarray,
    dist: np.ndarray | None,
    linear: dict[str, Any] | None,
    table_counts: np.ndarray | None = None,
) -> dict[str, Any]:
    """What the interval rests on: units, effective size, classes, ties, replicates.

    ``dist`` None: the replicates are not drawn yet (their entries come from
    :func:`replicate_diagnostics` when they are).

    ``table_counts``: samples per atom of a reduced table (its kernel's keys are table
    rows, not samples); ``n_positive``/``n_negative`` then count samples from it and
    ``positive_atoms``/``negative_atoms`` the table's non-empty atoms (score bins).
    """
    diag: dict[str, Any] = {"n_samples": int(plan.n_samples)}
    if np.ndim(estimate) == 0:
        diag["estimate"] = float(estimate)
    n_cond = getattr(plan, "n_conditions", None)
    unit = getattr(plan, "unit_of_sample", None) if n_cond is not None else None
    if n_cond is not None:
        diag["n_conditions"] = int(n_cond)
        if unit is not None:
            sizes = np.bincount(unit)
            sizes = sizes[sizes > 0]
            diag["condition_sizes"] = {
                "min": int(sizes.min()),
                "median": float(np.median(sizes)),
                "max": int(sizes.max()),
            }
            # Kish's effective number of conditions for unequal sizes
            diag["effective_conditions"] = effective_conditions(unit)
    if linear is not None:
        if linear.get("design_effect") is not None:
            diag["design_effect"] = linear["design_effect"]
            diag["effective_n"] = linear["effective_n"]
    keys = np.asarray(kernel.keys)
    base, atom_base = getattr(kernel, "base", None), getattr(kernel, "atom_base", None)
    atom_weight = getattr(kernel, "atom_weight", None)
    if base is not None and atom_base is not None and table_counts is None:
        # sample weights (metrics.SampleWeightedKernel): the classes are the base kernel's,
        # counted over the samples of non-zero weight; Kish's number of conditions weighs
        if n_cond is not None and unit is not None and len(unit) == len(keys):
            sample_weight = np.asarray(atom_weight)[keys]
            diag["effective_conditions"] = effective_conditions(unit, sample_weight)
        kept = np.asarray(atom_weight)[keys] > 0
        kernel, keys = base, np.asarray(atom_base)[keys][kept]
        if n_cond is not None and unit is not None and len(unit) == len(kept):
            unit = unit[kept]
    if table_counts is None:  # a regression metric's errors (engine/heavy_tail.py)
        diag.update(heavy_tail_diagnostics(kernel, keys, unit))
    counts = np.bincount(keys, minlength=kernel.m)
    if table_counts is not None:
        atoms, counts = counts > 0, np.asarray(table_counts, dtype=float)
    k = getattr(kernel, "k", None)
    if k == 2:
        diag["n_positive"] = int(counts[2] + counts[3])
        diag["n_negative"] = int(counts[0] + counts[1])
        if (
            table_counts is None
            and n_cond is not None
            and unit is not None
            and len(unit) == len(keys)
        ):
            diag["smaller_class_effective_conditions"] = smaller_class_conditions(keys, unit)
            diag["class_error_icc"] = class_error_icc(keys, unit)
            diag["error_conditions"] = error_conditions(keys, unit)  # engine/error_conditions
        diag.update(
            class_edge_diagnostics(kernel, n_cond if table_counts is None else None, linear)
        )
        if (linear or {}).get("analytic_method") == NO_ERROR_METHOD:
            diag["class_edge_method"] = NO_ERROR_METHOD
    m_neg = getattr(kernel, "m_neg", None)
    if m_neg is not None:
        diag["n_negative"] = int(counts[:m_neg].sum())
        diag["n_positive"] = int(counts[m_neg:].sum())
        if (
            table_counts is None
            and n_cond is not None
            and unit is not None
            and len(unit) == len(keys)
        ):  # the ROC AUC's clustered-class rule (engine/auc_class.py)
            diag["smaller_class_effective_conditions"] = class_effective_conditions(
                keys >= m_neg, unit
            )
            # average precision's rule (engine/auc_class.py): the conditions' score shift
            diag["negative_score_icc"] = negative_score_icc(keys < m_neg, keys, unit)
        if table_counts is not None:
            diag["negative_atoms"] = int(atoms[:m_neg].sum())
            diag["positive_atoms"] = int(atoms[m_neg:].sum())
        if getattr(kernel, "name", None) == "average_precision":  # engine/ap_misranked.py
            diag.update(misranked_positive_diagnostics(kernel, counts))
        if getattr(kernel, "name", None) == "roc_auc" and hasattr(kernel, "u_pos"):
            # the ROC AUC's misranked samples (engine/auc_misranked.py)
            u_neg, u_pos = getattr(kernel, "u_neg", None), kernel.u_pos
            diag["misranked"] = misranked_counts(u_neg, counts[:m_neg], u_pos, counts[m_neg:])
        tie = getattr(kernel, "tie", None)
        if tie is not None:
            diag["tied_positive_atoms"] = int(np.sum(tie))
    if dist is not None:
        diag.update(replicate_diagnostics(estimate, dist))
    return diag


def replicate_diagnostics(estimate: np.ndarray, dist: np.ndarray) -> dict[str, Any]:
    """The replicates' entries of :func:`design_diagnostics`: invalid replicates, those
    equal to the estimate, and the skewness of the valid ones."""
    diag: dict[str, Any] = {}
    valid = dist[~np.isnan(dist.reshape(dist.shape[0], -1)).any(axis=1)]
    diag["n_invalid_replicates"] = int(dist.shape[0] - valid.shape[0])
    if valid.shape[0]:
        same = np.all((valid == estimate).reshape(valid.shape[0], -1), axis=1)
        diag["replicates_equal_to_estimate"] = int(same.sum())
        diag["skewness"] = _skewness(valid)
    return diag


#: the ranking metrics whose class sizes warn on a path without a linearization
#: (:func:`map_without_linearization`): the ROC AUC (its rules, engine/auc_class.py) and
#: average precision, whose ``auto`` is BCa (no closed-form derivative): with 3 positives
#: in 150 it covered 0.875-0.885 unwarned (docs/validation.md, "The AUC near its bound or
#: with a small class under auto")
RANKED_CLASS_METRICS = ("roc_auc", "average_precision")


def map_without_linearization(metric: str, reason: Any) -> bool:
    """Whether a result without a linearization gets :func:`warn_outside_map` (without its
    conditions' rules, which :func:`mlci.engine.bootstrap.finish_bootstrap` gives there):
    ``auto``'s percentile for a class too small (:data:`FEW_CLASS_REASON`), or a ranking
    metric of :data:`RANKED_CLASS_METRICS` under any method.

    Examples
    --------
    >>> map_without_linearization("average_precision", None), map_without_linearization("f1", None)
    (True, False)
    """
    return (
        str(reason or "").startswith(FEW_CLASS_REASON)
        or metric in RANKED_CLASS_METRICS
        or metric in HEAVY_TAIL_METRICS
    )


def warn_outside_map(diag: dict[str, Any], metric: str, method: str) -> str | None:
    """Warn (and return the message) when the design lies where no method of the map holds."""
    msgs = []
    heavy = warn_heavy_tail(diag, metric, method)  # a regression metric's heavy tails
    n_cond = diag.get("n_conditions")
    if n_cond is not None and n_cond < MIN_CONDITIONS:
        msgs.append(
            f"Only {n_cond} conditions are resampled: below {MIN_CONDITIONS}, mlci's coverage "
            "map (docs/validation.md, section 2) does not establish that any interval method "
            "holds its level (with 5 conditions, 95% intervals covered 0.83-0.96 depending "
            "on the method, in the one design mapped)"
        )
    kish = diag.get("effective_conditions")
    if (
        kish is not None
        and n_cond is not None
        and n_cond >= MIN_CONDITIONS
        and few_effective_conditions(kish)
    ):
        msgs.append(few_effective_conditions_text(float(kish), n_cond))
    # a proportion, or each class's rate of balanced accuracy (engine/class_edge.py)
    proportions = [("A proportion", diag.get("estimate"), diag.get("effective_n"))]
    for what, estimate, eff_n in proportions + class_rate_proportions(diag, metric):
        if (
            n_cond is None
            or n_cond < MIN_CONDITIONS
            or eff_n is None
            or estimate is None
            or min(estimate, 1 - estimate) >= NEAR_BOUND
            or min(estimate, 1 - estimate) * eff_n >= MIN_EFFECTIVE_MINORITY
        ):
            continue
        minority = min(estimate, 1 - estimate) * eff_n
        msgs.append(
            f"{what} of {estimate:.3g} over {n_cond} conditions with {minority:.2g} "
            "effective minority outcomes (min(p, 1 - p) x effective sample size, below "
            f"{MIN_EFFECTIVE_MINORITY:g}): "
            "near 0 or 1 with few conditions, mlci's coverage map (docs/validation.md, "
            "section 2) found no method holding its level (logit_t 0.89-0.97, Wilson "
            "0.88-0.94; Korn & Graubard's, auto's there, 0.49-1.00 in the sweep's cells "
            "warned in half their test sets, docs/validation.md, 'One door for a "
            "proportion over conditions near its bound')"
        )
        break
    if method == "korn_graubard" and uncertain_design_effect_rule(diag):  # deff_uncertain.py
        msgs.append(uncertain_design_effect_message(diag))
    few = min(diag.get("n_positive", MIN_CLASS), diag.get("n_negative", MIN_CLASS))
    if metric == "roc_auc" and {"n_positive", "n_negative"} <= diag.keys():
        # (class counts known: a weighted AUC's diagnostics carry none): one message
        small = warn_few_auc_class(diag["n_positive"], diag["n_negative"], method, msgs)
        if small is not None:
            return small
        clustered = warn_clustered_auc(
            few,
            diag.get("smaller_class_effective_conditions"),
            diag.get("estimate"),
            diag.get("effective_conditions"),
            method,
            msgs,
        )
        if clustered is not None:
            return clustered
        # near the bound with 20-149 of a class (after the clustered rule, whose
        # message says more over conditions)
        edge = warn_near_edge_auc(
            diag["n_positive"], diag["n_negative"], diag.get("estimate"), method, msgs
        )
        if edge is not None:
            return edge
        mis = warn_few_misranked_auc(diag.get("estimate"), diag.get("misranked"), method, msgs, few)
        if mis is not None:
            return mis
    if metric == "average_precision" and clustered_ap_rule(
        diag.get("negative_score_icc"), diag.get("effective_conditions")
    ):
        msgs.append(
            clustered_ap_message(diag["effective_conditions"], diag["negative_score_icc"], few)
        )
    if metric == "average_precision" and (ap := warn_few_misranked_ap(diag, method, msgs)):
        return ap
    if metric == "average_precision" and few_positive_ap_rule(diag):
        msgs.append(few_positive_ap_message(diag["n_positive"], diag["estimate"]))
    if few < MIN_CLASS and metric not in ("accuracy", "error_rate"):
        msgs.append(
            f"Only {few} samples of one class: below {MIN_CLASS}, mlci's coverage map does "
            "not establish that any interval method holds its level for this metric"
            + few_class_mover_text(diag)
            + no_error_few_text(diag)
        )
    elif (
        n_cond is not None
        and metric in CLUSTERED_CLASS_METRICS
        and clustered_class_rule(
            n_cond,
            few,
            diag.get("smaller_class_effective_conditions"),
            diag.get("class_error_icc") if metric in CLUSTERED_ICC_METRICS else None,
        )
    ):
        msgs.append(
            clustered_class_text(
                few,
                diag["smaller_class_effective_conditions"],
                n_cond,
                diag.get("class_error_icc"),
            )
            + "; there mlci's sweep of F1, MCC, Cohen's kappa and balanced accuracy over "
            "conditions (docs/validation.md, section 5 and the last section) found the "
            "intervals short of their level, and more samples of the smaller class spread "
            "over more conditions is the remedy"
        )
    elif (
        n_cond is not None
        and metric in CLUSTERED_CLASS_METRICS
        and few_conditions_class_rule(
            n_cond,
            few,
            diag.get("smaller_class_effective_conditions"),
            metric,
            diag.get("class_error_icc"),
        )
    ):
        msgs.append(
            few_conditions_class_message(few, diag["smaller_class_effective_conditions"], n_cond)
            + "; more samples of the smaller class spread over more conditions is the remedy"
        )
    msgs += [m for m in [class_edge_message(diag, metric)] if m is not None]
    msgs += [m for m in [no_error_message(diag, metric)] if m is not None]
    if metric in CLUSTERED_CLASS_METRICS and error_conditions_rule(
        n_cond, diag.get("error_conditions")
    ):  # errors in a handful of conditions (engine/error_conditions.py)
        msgs.append(error_conditions_message(diag["error_conditions"], int(n_cond or 0)))
    if not msgs:
        return heavy
    # the interval given: an analytic one in place of the studentized where it is
    shown = diag.get("class_edge_method") or method
    text = (
        "; ".join(msgs)
        + f". The {shown} interval of {metric!r} may not keep its confidence level: treat "
        "it as optimistic, or collect more data."
    )
    warn(text, FewConditionsWarning)
    return text if heavy is None else f"{heavy} {text}"
