"""``compare``'s ``"auto"`` for paired differences over conditions: two rules.

Over conditions ``compare`` gives a paired difference the t interval on its CR2 standard
error (the coverage map: the bootstrap intervals of a paired difference fall short with
few conditions).  The seed-5 design search found two kinds of design where that t
interval falls short and a bootstrap interval does not (docs/validation.md, "Paired
differences over conditions (seed-5 #14 and #2)"; ``scripts/paired_conditions_study.py``):

* **a skewed difference** (:func:`skewed_condition_pairs`): a near-perfect system A and a
  system B with a handful of extra errors, all one way (seed-5 #14, f1 over 67
  conditions: t 0.935, BCa 0.965 on 800 test sets).  The skewness rule of independent
  samples (:func:`mlci.engine.paired_rules.skewed_pairs`) read over the conditions' totals alone
  also fires in clustered designs whose discordant samples go both ways, where BCa
  falls short (accuracy over 15 conditions at ICC 0.37: t 0.955, BCa 0.845).  The rule
  asks the skewness to show both over the conditions' totals and over the samples (the
  discordant samples go one way, not only the conditions that hold them), the conditions
  not to cluster the difference (design effect near 1: it behaves as a difference of
  independent samples, where the skewness rule was established), and enough effective
  conditions for the bootstrap's variance (BCa has no small-sample inflation of the CR2
  t interval);
* **an AUC at the edge** (:func:`edge_auc_pairs`): a pair whose system A ranks every
  positive above every negative on the test set (no mis-ordered pair) while B has
  :data:`EDGE_AUC_OTHER` mis-ordered pairs or more gets BCa, as the near-edge rule gives
  it on independent samples (seed-5 #2, roc_auc over 58 unequal conditions at ICC 0.40,
  A's AUC 0.99992, 1 in most test sets: t 0.665, BCa 0.770 on 200 test sets; no interval
  holds, the studentized one "covers" 0.970 by reaching the end of the range in 63 of
  200, and ``compare`` warns).  Seed-3 #14 (roc_auc over 139 conditions, A's AUC 0.9
  with about 10 positives, hundreds of mis-ordered pairs: t 0.930, BCa 0.860) and seed-4
  #15 (A with 1-33 mis-ordered pairs: t 0.920, BCa 0.760) are not switched.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.linearize import Linearization
from ..engine.nested import plan_for_conditions
from ..engine.paired_rules import MIN_PAIRED_CONDITIONS
from ..engine.skewness import linearized_shape

__all__ = [
    "EDGE_AUC_METHOD",
    "EDGE_AUC_MISORDERED",
    "EDGE_AUC_OTHER",
    "MAX_SKEW_DESIGN_EFFECT",
    "MIN_SKEW_CONDITIONS",
    "SKEW_CONDITIONS_DISCORDANT",
    "edge_auc_pairs",
    "edge_auc_reason",
    "misordered_pairs",
    "sample_shape",
    "skewed_condition_pairs",
    "skewed_conditions_reason",
]

#: ``1 / skewness^2`` below this, over the conditions' totals *and* over the samples,
#: makes a paired difference over conditions "skewed" (the independent samples' threshold,
#: :data:`mlci.engine.paired_rules.MIN_EFFECTIVE_DISCORDANT`, read twice)
SKEW_CONDITIONS_DISCORDANT = 30.0
#: ... and it needs at least this many effective conditions (Kish's, the t interval's
#: ``df + 1``), those from which a paired difference is not warned
#: (:data:`mlci.engine.paired_rules.MIN_PAIRED_CONDITIONS`): with fewer, BCa (no small-sample
#: inflation) fell short where t held (paired_diff_study.py seed 0, 300 test sets: #19,
#: accuracy over 15 unequal conditions, 6.9 effective, t 0.953, BCa 0.847; #28, 6
#: conditions, t 0.970, BCa 0.867; #34, 3.1 effective, t 0.953, BCa 0.877).  Between 12
#: and 20 the rule switches study #45 (accuracy over 26 unequal conditions, 17 effective,
#: A with about 4 errors: t 0.910, BCa 0.950, the rule 0.963; as f1 0.913, 0.957, 0.967),
#: where 20 (the threshold before) kept t (docs/validation.md, "Over conditions: the
#: remaining cells (seed 8)")
MIN_SKEW_CONDITIONS = float(MIN_PAIRED_CONDITIONS)
#: ... and a design effect of the difference (its CR2 variance over the conditions over
#: its variance over independent samples) below this: the conditions do not cluster the
#: discordant samples, which then behave as the independent samples the skewness rule was
#: established on.  The sweep (scripts/paired_conditions_study.py; thresholds 1, 1.1,
#: 1.2, 1.3, 1.5, 2, none): seed-5 #14 (1,000 test sets) 0.967, 0.978, 0.978, 0.978,
#: 0.979, 0.980, 0.980 (t 0.935); paired_diff_study's #16 (accuracy over 48 conditions,
#: ICC 0.47, discordant samples both ways, 500 test sets) 0.902, 0.902, 0.900, 0.898,
#: 0.896, 0.896, 0.884 (t 0.910); every other design of both families the same at every
#: threshold but 1
MAX_SKEW_DESIGN_EFFECT = 1.2
#: a roc_auc pair over conditions with one system of fewer mis-ordered (positive,
#: negative) pairs than this (none: it ranks every positive above every negative, AUC 1,
#: or every one below, AUC 0; a tied pair counts half) and the other with
#: :data:`EDGE_AUC_OTHER` or more gets :data:`EDGE_AUC_METHOD`.  The paired roc_auc
#: designs over conditions (scripts/paired_conditions_study.py, 150-200 test sets; the
#: first number is this one, the second EDGE_AUC_OTHER; auto's coverage, the share
#: switched): seed-5 #2 (A at 0-8 mis-ordered pairs, B at 22-340; t 0.665, BCa 0.770)
#: 1/20: 0.760 (57%), 5/20: 0.780 (78%), 20/20: 0.780 (89%), 1/50: 0.720; seed-4 #15 (21
#: conditions, ~18 positives, A at 1-33, B at 2-53; t 0.920, BCa 0.760) 1/20: 0.920
#: (1%), 5/20: 0.900, 20/20: 0.827 (35%); seed-3 #14 (hundreds in both; t 0.930, BCa
#: 0.860) 0.930 (0%) at 1/20; seed-5 #9 (A at 18-177; t and BCa 0.833) 0.833 at every
#: pair; seed-5 #4 (6 conditions, ~7 positives, both at 0-2) 0.267 as t at 1/20, where
#: switching whenever one system had fewer than 20 gave 0.167
EDGE_AUC_MISORDERED = 1.0
#: ... the other system's number of mis-ordered pairs at least (the near-edge rule of
#: independent samples' threshold, paired_auto.EDGE_PAIR_MISORDERED): with both systems near
#: the edge the difference has little spread and no interval held (seed-5 #4)
EDGE_AUC_OTHER = 20.0
#: the interval of those pairs
EDGE_AUC_METHOD = "bca"


def sample_shape(
    contrast: Any, n_samples: int, n_systems: int, standard_error: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every pair's skewness over the samples, as if they were independent
    (``linearized_shape`` under a plan without conditions), and its design effect: the
    squared ratio of ``standard_error`` (over the conditions) to the standard error over
    independent samples (NaN where that is 0)."""
    lin = Linearization(contrast, plan_for_conditions(n_samples, n_resamples=1, rng=0))
    skew = np.asarray(linearized_shape(lin)[0], dtype=float)[n_systems:]
    se_iid = np.asarray(lin.estimate().standard_error, dtype=float)[n_systems:]
    with np.errstate(divide="ignore", invalid="ignore"):
        deff = np.where(se_iid > 0, (np.asarray(standard_error) / se_iid) ** 2, np.nan)
    return skew, deff


def skewed_condition_pairs(
    skew_conditions: np.ndarray, skew_samples: np.ndarray, design_effect: np.ndarray, df: float
) -> np.ndarray:
    """Which paired differences over conditions get BCa under ``"auto"``: ``1 /
    skewness^2`` below :data:`SKEW_CONDITIONS_DISCORDANT` both over the conditions'
    totals and over the samples, with the same sign, a design effect below
    :data:`MAX_SKEW_DESIGN_EFFECT` and at least :data:`MIN_SKEW_CONDITIONS` effective
    conditions (``df + 1``)."""
    g_c = np.nan_to_num(np.asarray(skew_conditions, dtype=float), nan=0.0)
    g_i = np.nan_to_num(np.asarray(skew_samples, dtype=float), nan=0.0)
    deff = np.nan_to_num(np.asarray(design_effect, dtype=float), nan=np.inf)
    if df + 1.0 < MIN_SKEW_CONDITIONS:
        return np.zeros(g_c.shape, dtype=bool)
    lim = SKEW_CONDITIONS_DISCORDANT
    skewed = (g_c**2 * lim > 1.0) & (g_i**2 * lim > 1.0) & (g_c * g_i > 0)
    return skewed & (deff < MAX_SKEW_DESIGN_EFFECT)


def skewed_conditions_reason(
    pairs: list[str], skew_conditions: np.ndarray, skew_samples: np.ndarray, method: str
) -> str:
    """The ``method_reason`` clause of :func:`skewed_condition_pairs`' pairs."""
    eff = ", ".join(
        f"{1.0 / float(c) ** 2:.3g} / {1.0 / float(s) ** 2:.3g}"
        for c, s in zip(skew_conditions, skew_samples, strict=True)
    )
    return (
        f"; {method} for the difference(s) {', '.join(pairs)}: skewed over the conditions "
        f"and over the samples ({eff} effective discordant samples, 1 / skewness^2 of the "
        f"linearized difference over the conditions' totals / over the samples, both below "
        f"{SKEW_CONDITIONS_DISCORDANT:.3g}, a design effect below "
        f"{MAX_SKEW_DESIGN_EFFECT:.3g}, {MIN_SKEW_CONDITIONS:.3g} effective conditions or "
        "more), where the t interval of a paired difference was too narrow "
        "(docs/validation.md, 'Paired differences over conditions')"
    )


def misordered_pairs(kernel: Any, estimate: float) -> float:
    """A roc_auc kernel's number of mis-ordered (positive, negative) pairs on the data,
    ``min(AUC, 1 - AUC) n_pos n_neg`` (NaN for any other kernel)."""
    m_neg = getattr(kernel, "m_neg", None)
    if getattr(kernel, "name", None) != "roc_auc" or m_neg is None:
        return float("nan")
    counts = np.bincount(kernel.keys, minlength=kernel.m)
    pairs = float(counts[:m_neg].sum()) * float(counts[m_neg:].sum())
    return float(min(estimate, 1.0 - estimate) * pairs)


def edge_auc_pairs(
    kernels: Any, estimates: np.ndarray, ia: np.ndarray, ib: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Which roc_auc pairs over conditions get :data:`EDGE_AUC_METHOD` under ``"auto"``
    (one system with fewer than :data:`EDGE_AUC_MISORDERED` mis-ordered pairs, the other
    with :data:`EDGE_AUC_OTHER` or more), and each pair's smaller count of mis-ordered
    pairs."""
    mis = np.array([misordered_pairs(k, float(e)) for k, e in zip(kernels, estimates, strict=True)])
    fewest, most = np.fmin(mis[ia], mis[ib]), np.fmax(mis[ia], mis[ib])
    near = np.nan_to_num(fewest, nan=np.inf) < EDGE_AUC_MISORDERED
    return near & (np.nan_to_num(most, nan=0.0) >= EDGE_AUC_OTHER), fewest


def edge_auc_reason(pairs: list[str], fewest: np.ndarray) -> str:
    """The ``method_reason`` clause of :func:`edge_auc_pairs`' pairs."""
    counts = ", ".join(f"{float(c):.3g}" for c in fewest)
    return (
        f"; {EDGE_AUC_METHOD} for the difference(s) {', '.join(pairs)}: an AUC at the "
        f"edge over conditions ({counts} mis-ordered pairs in one system, fewer than "
        f"{EDGE_AUC_MISORDERED:.3g}; the other with {EDGE_AUC_OTHER:.0f} or more), where no "
        "interval held and the t interval fell furthest short (docs/validation.md, "
        "'Paired differences over conditions')"
    )
