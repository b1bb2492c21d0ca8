"""``method="auto"``'s interval of a weighted ROC AUC near its bound (issue 20; session 11).

The weighted AUC ``A = sum_i sum_j w_i w_j H(s_i - s_j) / (W_pos W_neg)`` (``i`` over the
positives, ``j`` over the negatives, ``H`` the step with ties one half) of a
:class:`mlci.Scores` object with ``sample_weight``, within :data:`WEIGHTED_AUC_EDGE_BAND`
of 1 (or 0), fell to [1, 1] under the bootstrap: with a handful of mis-ordered pairs in
the population most test sets hold none, and every replicate of such a test set is 1.
``scripts/design_search_scores.py`` found it in every search since seed 10 (BCa covered
0.17-0.61 where 1 - AUC was 1e-6 to 4e-5, warned in a quarter to half of the test sets;
docs/validation.md, "The weighted AUC at 1 and Cllr at few targets (session 11,
cllrwauc)").

**The weights are probability (sampling) weights.**  mlci's bootstrap draws the rows,
each with its weight (``Scores.bootstrap_ci`` multiplies a replicate's counts by the
weights), so a row is a sampled unit and its weight says how many population units it
stands for (inverse-probability weights, as ``scripts/design_search_scores.py`` draws
them).  Their spread costs precision as Kish's design effect of unequal weighting,
``deff_w = n sum w^2 / (sum w)^2`` (Kish 1965, *Survey Sampling*, sec. 11.7; Kish 1992,
"Weighting for unequal Pi", *J. Official Statistics* 8, 183-200), so a class of ``n`` rows
counts as ``(sum w)^2 / sum w^2`` effective samples (integer frequency weights would be
more: the bootstrap does not read them as repeated rows either).

**The interval** (:func:`weighted_auc_interval`) is the unweighted AUC's score-type
``floored`` interval (:mod:`mlci.engine.auc_analytic`, :func:`mlci.auc_score_ci`:
Newcombe's 2006 variance ``V(theta; m, n)`` floored by the estimate's own variance
carried to ``theta``) at the effective class sizes:

* the estimate's variance is the weighted DeLong (linearized) one: positive ``i``
  contributes ``w_i (psi_i - A) / W_pos`` (``psi_i`` its weighted share of negatives
  below it), negative ``j`` ``w_j (phi_j - A) / W_neg``; their with-replacement variance
  per class (unit weights: DeLong's ``v_pos + v_neg`` exactly);
* independent rows: ``m = (sum_pos w)^2 / sum_pos w^2``, ``n`` likewise, and the floor's
  Student quantile on Welch and Satterthwaite's degrees of freedom (as unweighted);
* over conditions: the contributions summed per condition, their with-replacement
  variance over conditions (R's ``survey::svyvar`` of totals, ``ids = ~condition``), the
  design effect ``deff`` its ratio to the rows' variance, at least 1 and 1 where the
  estimate is at its bound (Korn & Graubard 1998; the NCHS standards, Parker et al.
  2017), and Korn & Graubard's effective sizes ``m (z / t)^2 / deff``, ``t`` Student's
  quantile with ``C - 1`` degrees of freedom (``C`` the fewer conditions holding a
  class).

``auto`` gives it within :data:`WEIGHTED_AUC_CLOSE_BAND` of the bound, and within
:data:`WEIGHTED_AUC_EDGE_BAND` where the test set holds fewer than
:data:`MAX_MISORDERED_PAIRS` effective mis-ordered pairs (``min(A, 1 - A) m n`` at those
sizes, :func:`misordered_pairs`): there the replicates collapse.  At 1 - AUC 0.01-0.02 BCa
held in most of the sweep's layouts (0.94-0.97), and the whole band would have widened it
there (to 0.98-0.99).  With unit weights of independent rows it is the unweighted rule's
interval (whose gate is the band and the class size:
:func:`mlci.engine.auc_analytic.auc_score_rule`).  It errs on
the wide side (the Kish sizes count every weighted row as costly, though at the bound
only the few hard rows set the AUC); where no interval holds its level the result warns
(:class:`~mlci.exceptions.FewConditionsWarning`, as the unweighted one).

**Away from the bound** (session 12, wauc150) ``auto`` gives the same interval to independent
rows of unequal weights with a class of fewer than :data:`WEIGHTED_AUC_FEW_ROWS` rows
(:func:`weighted_auc_few_rule`), with its own reason and no warning: there BCa fell short
(0.880-0.907 with 50 positives at AUC 0.95-0.98, 0.897 with 100 at 0.99) and this interval
held (0.96-1.00), at 1.18 times BCa's median width where BCa held (docs/validation.md, "The
weighted AUC with few effective positives: the score interval (session 12, wauc150)").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import FewConditionsWarning
from ..feedback import warn
from ..intervals.auc_score import nstar_variance, score_bounds
from ..intervals.formulas import one_sided, quantile, tails
from ..results import AnalyticInterval, BootstrapResult, attach_analytic

__all__ = [
    "MAX_MISORDERED_PAIRS",
    "WEIGHTED_AUC_CLOSE_BAND",
    "WEIGHTED_AUC_EDGE_BAND",
    "WEIGHTED_AUC_FEW_ROWS",
    "WEIGHTED_AUC_METHOD",
    "WEIGHTED_MIN_FEW",
    "WeightedAucInterval",
    "WeightedAucTerms",
    "misordered_pairs",
    "scores_weighted_auc",
    "weighted_auc_few_reason",
    "weighted_auc_few_rule",
    "weighted_auc_interval",
    "weighted_auc_reason",
    "weighted_auc_rule",
    "weighted_auc_terms",
    "weighted_auc_text",
    "with_weighted_auc",
]

#: the method label (the unweighted rule's: the same score-type interval)
WEIGHTED_AUC_METHOD = "auc-score-floored"
#: the distance of the weighted AUC from 1 (or 0) within which ``auto`` gives
#: :func:`weighted_auc_interval` (the unweighted rule's band,
#: :data:`mlci.engine.auc_analytic.AUC_SCORE_EDGE_BAND`): the session-11 sweep
#: (``scripts/weighted_auc_sweep.py``) measured 1 - AUC from 1e-2 down to 1e-5
WEIGHTED_AUC_EDGE_BAND = 0.01
#: within this distance of the bound ``auto`` gives the interval whatever the pairs: the
#: session-11 sweep's BCa fell short at 1 - AUC 1e-3 without collapsing (0.883 over 400
#: conditions at ICC 0.4, unwarned; 0.930 iid), and held in none of its cells closer to 1
WEIGHTED_AUC_CLOSE_BAND = 0.001
#: within the band, ``auto`` gives the interval where the test set holds fewer effective
#: mis-ordered pairs than this (:func:`misordered_pairs`): the session-11 sweep
#: (``scripts/weighted_auc_sweep.py``) compared the whole band and 5, 10 and 20 pairs
MAX_MISORDERED_PAIRS = 10.0
#: at least this many effective samples in each class (the score interval's variance
#: needs two)
WEIGHTED_MIN_FEW = 2.0
#: away from the bound, ``auto`` gives independent rows of unequal weights the interval
#: where a class holds fewer rows (samples of positive weight) than this
#: (:func:`weighted_auc_few_rule`): BCa fell short with 50 positives at AUC 0.95-0.98
#: (0.880-0.907) and with 100 at 0.99 (0.897), while the score interval held in every cell
#: (0.96-1.00); a gate on Kish's size instead (150, session 12's cllrw12) also fired where
#: 150 positives met 117 effective negatives (210 rows) and BCa held (0.940-0.957) at 1.4-2.1
#: times its width (``scripts/weighted_auc_away.py --thresholds``; docs/validation.md, "The
#: weighted AUC with few effective positives: the score interval (session 12, wauc150)")
WEIGHTED_AUC_FEW_ROWS = 120


@dataclass(frozen=True)
class WeightedAucTerms:
    """What the interval reads off a weighted AUC (:func:`weighted_auc_terms`)."""

    auc: float
    #: the linearized variance of the rows (per class, with replacement): positives, negatives
    v_pos: float
    v_neg: float
    #: Kish's effective class sizes, ``(sum w)^2 / sum w^2``
    m_eff: float
    n_eff: float
    #: over conditions: the linearized variance over conditions, and the fewer conditions
    #: holding a class (None: independent rows)
    v_cond: float | None = None
    n_conditions: int | None = None
    #: whether every row of positive weight has the same weight (unweighted rows, read
    #: as such by :func:`weighted_auc_few_rule`)
    equal_weights: bool = False
    #: the rows of positive weight per class (None: not counted)
    pos_rows: int | None = None
    neg_rows: int | None = None

    @property
    def deff(self) -> float:
        """The conditions' design effect, at least 1 (1 for independent rows, or where
        the rows' variance is 0: the estimate at its bound)."""
        v = self.v_pos + self.v_neg
        if self.v_cond is None or not v > 0:
            return 1.0
        return max(1.0, self.v_cond / v)


def _shares(a: np.ndarray, b: np.ndarray, wb: np.ndarray) -> np.ndarray:
    """For each ``a_i``: the weighted share of the ``b`` below it, ties one half."""
    order = np.argsort(b, kind="stable")
    bs, ws = b[order], wb[order]
    cum = np.concatenate([[0.0], np.cumsum(ws)])
    lo = np.searchsorted(bs, a, side="left")
    hi = np.searchsorted(bs, a, side="right")
    return (cum[lo] + 0.5 * (cum[hi] - cum[lo])) / cum[-1]


def weighted_auc_terms(
    score: Any, positive: Any, weight: Any, conditions: Any = None
) -> WeightedAucTerms:
    """The weighted AUC, its linearized variance (rows; over ``conditions`` also the
    conditions') and Kish's effective class sizes.

    ``score``: oriented, higher for the positive class; ``positive``: each row's class;
    ``weight``: its weight (> 0 where it counts); ``conditions``: its condition (codes or
    labels), or None for independent rows.

    Examples
    --------
    >>> t = weighted_auc_terms([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], [1, 1, 1, 1])
    >>> t.auc, t.m_eff, t.n_eff   # 3 of 4 pairs, as roc_auc_score
    (0.75, 2.0, 2.0)
    >>> t = weighted_auc_terms([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], [3, 1, 1, 1])
    >>> t.auc, round(t.n_eff, 3)   # the low negative counts 3 times: 7 of 8
    (0.875, 1.6)
    """
    s = np.asarray(score, dtype=float).ravel()
    pos = np.asarray(positive, dtype=bool).ravel()
    w = np.asarray(weight, dtype=float).ravel()
    keep = w > 0
    s, pos, w = s[keep], pos[keep], w[keep]
    sp, sn, wp, wn = s[pos], s[~pos], w[pos], w[~pos]
    psi = _shares(sp, sn, wn)  # each positive: the negatives' weight below it
    phi = 1.0 - _shares(sn, sp, wp)  # each negative: the positives' weight above it
    wp_sum, wn_sum = float(wp.sum()), float(wn.sum())
    auc = float(wp @ psi / wp_sum)
    u_pos = wp * (psi - auc) / wp_sum
    u_neg = wn * (phi - auc) / wn_sum
    n_p, n_n = len(sp), len(sn)
    v_pos = float(n_p / (n_p - 1) * (u_pos @ u_pos)) if n_p > 1 else float("nan")
    v_neg = float(n_n / (n_n - 1) * (u_neg @ u_neg)) if n_n > 1 else float("nan")
    m_eff = wp_sum**2 / float(wp @ wp)
    n_eff = wn_sum**2 / float(wn @ wn)
    equal = bool(len(w) == 0 or np.ptp(w) <= 1e-12 * float(np.max(w)))
    if conditions is None:
        return WeightedAucTerms(auc, v_pos, v_neg, m_eff, n_eff, None, None, equal, n_p, n_n)
    cond = np.asarray(conditions).ravel()[keep]
    codes = np.unique(cond, return_inverse=True)[1].ravel()
    c = int(codes.max()) + 1
    u = np.zeros(len(s))
    u[pos], u[~pos] = u_pos, u_neg
    total = np.bincount(codes, weights=u, minlength=c)
    v_cond = float(c / (c - 1) * (total @ total)) if c > 1 else float("nan")
    fewer = int(min(len(np.unique(codes[pos])), len(np.unique(codes[~pos]))))
    return WeightedAucTerms(auc, v_pos, v_neg, m_eff, n_eff, v_cond, fewer, equal, n_p, n_n)


def _read_sizes(
    terms: WeightedAucTerms, confidence_level: float = 0.95, alternative: str = "two-sided"
) -> tuple[float, float, float | None]:
    """``(m, n, k)``: the class sizes the interval reads (Kish's; over conditions divided by
    the design effect and ``k = (t / z)^2``, Korn & Graubard's degrees-of-freedom factor,
    ``t`` on the fewer conditions holding a class minus one; ``k`` None for independent
    rows)."""
    if terms.v_cond is None or terms.n_conditions is None:
        return terms.m_eff, terms.n_eff, None
    tail = tails(confidence_level, alternative)[1]
    z = float(quantile(tail))
    t = float(quantile(tail, float(max(terms.n_conditions - 1, 1))))
    k = (t / z) ** 2
    return terms.m_eff / (terms.deff * k), terms.n_eff / (terms.deff * k), k


def misordered_pairs(terms: WeightedAucTerms) -> float:
    """The effective number of mis-ordered pairs, ``min(A, 1 - A) m n`` with ``m, n`` the
    sizes the 95% interval reads (:func:`weighted_auc_interval`): fewer than
    :data:`MAX_MISORDERED_PAIRS` and the bootstrap's replicates collapse onto the bound.

    Examples
    --------
    >>> round(misordered_pairs(WeightedAucTerms(0.9999, 1e-8, 1e-8, 100.0, 300.0)), 6)
    3.0
    """
    m, n, _ = _read_sizes(terms)
    return float(min(terms.auc, 1.0 - terms.auc) * m * n)


def weighted_auc_rule(terms: WeightedAucTerms) -> bool:
    """Whether ``auto`` gives the weighted AUC :func:`weighted_auc_interval`: within
    :data:`WEIGHTED_AUC_CLOSE_BAND` of its bound, or within :data:`WEIGHTED_AUC_EDGE_BAND`
    with fewer than :data:`MAX_MISORDERED_PAIRS` effective mis-ordered pairs; at least
    :data:`WEIGHTED_MIN_FEW`
    effective samples in each class (and over conditions, at least 2 conditions holding
    each class).

    Examples
    --------
    >>> weighted_auc_rule(WeightedAucTerms(0.99995, 1e-8, 1e-8, 80.0, 300.0))  # 1.2 pairs
    True
    >>> weighted_auc_rule(WeightedAucTerms(0.9995, 1e-8, 1e-8, 80.0, 300.0))  # within 0.001
    True
    >>> weighted_auc_rule(WeightedAucTerms(0.995, 1e-8, 1e-8, 80.0, 300.0))  # 120 pairs
    False
    >>> weighted_auc_rule(WeightedAucTerms(0.95, 1e-4, 1e-4, 80.0, 300.0))
    False
    """
    a = terms.auc
    if not np.isfinite(a) or min(terms.m_eff, terms.n_eff) < WEIGHTED_MIN_FEW:
        return False
    if terms.n_conditions is not None and terms.n_conditions < 2:
        return False
    gap = min(a, 1.0 - a) - 1e-12
    if gap <= WEIGHTED_AUC_CLOSE_BAND:
        return True
    return bool(gap <= WEIGHTED_AUC_EDGE_BAND and misordered_pairs(terms) < MAX_MISORDERED_PAIRS)


def weighted_auc_few_rule(terms: WeightedAucTerms) -> bool:
    """Whether ``auto`` gives a weighted AUC away from its bound :func:`weighted_auc_interval`:
    independent rows (no conditions) whose weights are not all equal, a class with fewer than
    :data:`WEIGHTED_AUC_FEW_ROWS` rows (samples of positive weight), and at least
    :data:`WEIGHTED_MIN_FEW` effective samples in each.  :func:`weighted_auc_rule` is read
    first.

    BCa fell short there (docs/validation.md, "The weighted AUC with few effective positives:
    the score interval (session 12, wauc150)"); over conditions it was not measured, and
    equal weights are unweighted rows (the unweighted rules apply).  The gate counts rows,
    not Kish's sizes: the bootstrap draws the rows with their weights, and fell short with
    few rows in a class, not with a class of many rows whose weights vary.

    Examples
    --------
    >>> t = WeightedAucTerms(0.95, 1e-4, 1e-4, 119.0, 900.0, pos_rows=119, neg_rows=1200)
    >>> weighted_auc_few_rule(t)
    True
    >>> weighted_auc_few_rule(WeightedAucTerms(0.95, 1e-4, 1e-4, 90.0, 900.0, None, None,
    ...                                        False, 120, 1200))  # 120 rows, Kish 90
    False
    >>> weighted_auc_few_rule(WeightedAucTerms(0.95, 1e-4, 1e-4, 60.0, 900.0, 2e-4, 30,
    ...                                        False, 60, 1200))  # over conditions
    False
    """
    if terms.n_conditions is not None or terms.v_cond is not None or terms.equal_weights:
        return False
    if not np.isfinite(terms.auc) or terms.pos_rows is None or terms.neg_rows is None:
        return False
    if min(terms.m_eff, terms.n_eff) < WEIGHTED_MIN_FEW:
        return False
    return bool(min(terms.pos_rows, terms.neg_rows) < WEIGHTED_AUC_FEW_ROWS)


def weighted_auc_interval(
    terms: WeightedAucTerms, confidence_level: float = 0.95, alternative: str = "two-sided"
) -> tuple[float, float]:
    """The score-type ``floored`` interval of the weighted AUC at the effective class sizes
    (module docstring).

    Examples
    --------
    >>> low, high = weighted_auc_interval(WeightedAucTerms(1.0, 0.0, 0.0, 40.0, 120.0))
    >>> from mlci.intervals.auc_score import auc_score_bounds
    >>> (low, high) == auc_score_bounds(1.0, 0.0, 0.0, 40, 120, "floored")[:2]
    True
    """
    a = float(terms.auc)
    z = float(quantile(tails(confidence_level, alternative)[1]))
    v = terms.v_pos + terms.v_neg
    m, n, k = _read_sizes(terms, confidence_level, alternative)
    if k is not None:
        v_floor = max(float(terms.v_cond or 0.0), v) * k
    elif v > 0:
        df = v**2 / (terms.v_pos**2 / max(m - 1, 1e-9) + terms.v_neg**2 / max(n - 1, 1e-9))
        t = float(quantile(tails(confidence_level, alternative)[1], df))
        v_floor = v * (t / z) ** 2
    else:
        v_floor = 0.0
    ratio = v_floor / (a * (1 - a)) if 0 < a < 1 and v_floor > 0 else 0.0

    def var(theta: np.ndarray) -> np.ndarray:
        theta = np.asarray(theta, dtype=float)
        return np.maximum(nstar_variance(theta, m, n), ratio * theta * (1 - theta))

    low, high = score_bounds(a, var, z, z)
    lo, hi = one_sided(low, high, alternative, (0.0, 1.0))
    return float(lo), float(hi)


@dataclass(frozen=True)
class WeightedAucInterval:
    """What re-reads ``auto``'s interval of a weighted AUC at any level."""

    terms: WeightedAucTerms
    method: str = WEIGHTED_AUC_METHOD
    #: which rule gave it: "edge" (:func:`weighted_auc_rule`) or "few"
    #: (:func:`weighted_auc_few_rule`)
    rule: str = "edge"

    def __call__(self, confidence_level: float, alternative: str) -> tuple[float, float]:
        return weighted_auc_interval(self.terms, confidence_level, alternative)


def _sizes(terms: WeightedAucTerms) -> str:
    t = terms
    where = (
        "independent rows"
        if t.n_conditions is None
        else f"{t.n_conditions} conditions, design effect {t.deff:.2g}"
    )
    return f"{t.m_eff:.1f} positives and {t.n_eff:.1f} negatives effective ({where})"


def weighted_auc_reason(terms: WeightedAucTerms) -> str:
    """``method_reason`` of ``auto``'s interval of a weighted AUC near its bound.

    Examples
    --------
    >>> weighted_auc_reason(WeightedAucTerms(1.0, 0.0, 0.0, 40.0, 120.0)).split(":")[0]
    'auc-score-floored'
    """
    return (
        f"{WEIGHTED_AUC_METHOD}: the ROC AUC's score-type interval (mlci.auc_score_ci, "
        "variant 'floored') at Kish's effective class sizes of the weighted samples "
        f"((sum w)^2 / sum w^2; {_sizes(terms)}), the weights read as sampling weights, with "
        "the weighted DeLong variance as its floor; the bootstrap of a weighted AUC within "
        f"{WEIGHTED_AUC_CLOSE_BAND:g} of its bound, or within {WEIGHTED_AUC_EDGE_BAND:g} with "
        f"fewer than {MAX_MISORDERED_PAIRS:g} effective mis-ordered pairs, falls short or "
        "collapses onto it (docs/validation.md, 'The "
        "weighted AUC at 1 and Cllr at few targets (session 11, cllrwauc)'). It errs on the "
        "wide side"
    )


def weighted_auc_few_reason(terms: WeightedAucTerms) -> str:
    """``method_reason`` of ``auto``'s interval of a weighted AUC whose smaller class holds
    few effective samples (:func:`weighted_auc_few_rule`).

    Examples
    --------
    >>> t = WeightedAucTerms(0.95, 1e-4, 1e-4, 50.0, 900.0, pos_rows=50, neg_rows=1200)
    >>> weighted_auc_few_reason(t).split(":")[0]
    'auc-score-floored'
    """
    rows = min(terms.pos_rows or 0, terms.neg_rows or 0)
    return (
        f"{WEIGHTED_AUC_METHOD}: the ROC AUC's score-type interval (mlci.auc_score_ci, "
        "variant 'floored') at Kish's effective class sizes of the weighted samples "
        f"((sum w)^2 / sum w^2; {_sizes(terms)}), the weights read as sampling weights, with "
        "the weighted DeLong variance as its floor; independent rows of unequal weights whose "
        f"smaller class holds {rows} rows, fewer than {WEIGHTED_AUC_FEW_ROWS}: there BCa fell "
        "short (0.880-0.907 with 50 positives at AUC 0.95-0.98, 0.897 with 100 at 0.99) while "
        "this interval held (0.96-1.00) (docs/validation.md, 'The weighted AUC with few "
        "effective positives: the score interval (session 12, wauc150)'). It errs on the "
        "wide side"
    )


def weighted_auc_text(terms: WeightedAucTerms) -> str:
    """The warning of a weighted AUC that ``auto`` gave :func:`weighted_auc_interval`.

    Examples
    --------
    >>> weighted_auc_text(WeightedAucTerms(0.9999, 0.0, 0.0, 40.0, 120.0)).split(":")[0]
    'A weighted ROC AUC of 0.9999 within 0.01 of its bound, with 0.48 effective mis-ordered pairs'
    """
    return (
        f"A weighted ROC AUC of {terms.auc:.5g} within {WEIGHTED_AUC_EDGE_BAND:g} of its "
        f"bound, with {misordered_pairs(terms):.2g} effective mis-ordered pairs: its bootstrap "
        "replicates fall short or collapse onto the bound, so auto gives the score-type "
        f"interval ({WEIGHTED_AUC_METHOD}) at Kish's effective class sizes ({_sizes(terms)}). "
        "The test set holds few of the mis-ordered pairs that set the AUC there, and no "
        "bootstrap interval held its level (docs/validation.md, 'The weighted AUC at 1 and Cllr "
        "at few targets (session 11, cllrwauc)'); this interval is usually conservative (wider "
        "than needed). Collect more samples of the smaller class for a tighter interval."
    )


def with_weighted_auc(res: BootstrapResult, score: WeightedAucInterval) -> BootstrapResult:
    """``res`` (its replicates kept) with ``auto``'s interval of a weighted AUC near its
    bound, and the warning of :func:`weighted_auc_text` (given here); of the few-samples rule
    (``score.rule == "few"``) with its own reason and no warning (the interval holds)."""
    drop = ("z0", "edge_fallback", "edge_fallback_method", "edge_dominated")
    details = {k: v for k, v in res.details.items() if k not in drop}
    if score.rule == "few":
        reason = weighted_auc_few_reason(score.terms)
    else:
        text = weighted_auc_text(score.terms)
        warn(text, FewConditionsWarning)
        details.update(warning=text, few_samples_warning=text)
        reason = weighted_auc_reason(score.terms)
    record = AnalyticInterval(score.method, reason, score)
    return attach_analytic(res, record, details)


def scores_weighted_auc(
    score: Any, positive: Any, weight: Any, conditions: Any = None
) -> WeightedAucInterval | None:
    """``auto``'s interval of a weighted AUC where :func:`weighted_auc_rule` holds, else where
    :func:`weighted_auc_few_rule` holds, else None."""
    terms = weighted_auc_terms(score, positive, weight, conditions)
    if weighted_auc_rule(terms):
        return WeightedAucInterval(terms)
    if weighted_auc_few_rule(terms):
        return WeightedAucInterval(terms, rule="few")
    return None
