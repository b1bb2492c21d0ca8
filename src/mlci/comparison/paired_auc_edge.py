"""``compare``'s ``"auto"`` for a paired AUC difference near the edge: MOVER.

A paired roc_auc difference of independent samples where one system ranks (nearly) every
positive above every negative, with few positives, is where the t interval and the
bootstrap intervals of the difference fall short (the design search's seed-6 #7, seed-8
#14 and s8p #4: ``auto`` 0.68-0.88, BCa 0.67-0.93, DeLong 0.84-0.89; docs/validation.md,
"Paired AUC differences near 1 (seed-8 #14, s8p #4)").  The near-perfect system's AUC has
a replicate distribution piled at the edge and a DeLong variance near 0, which no
resampling of the data can repair; its spread must come from a model of the AUC's
variance as a function of its true value, as the score interval of one AUC does
(:func:`mlci.auc_score_ci`).

The difference's interval here is the MOVER (method of variance estimates recovery;
Zou & Donner 2008; Newcombe 1998's square-and-add for a difference of proportions): each
system's AUC gets its score-type interval ``(l_s, u_s)`` (:func:`mlci.auc_score_ci`,
``variant="floored"``), and the difference ``A - B`` the limits

``L = d - sqrt((Â - l_A)² + (u_B - B̂)² - 2 r (Â - l_A)(u_B - B̂))``
``U = d + sqrt((u_A - Â)² + (B̂ - l_B)² - 2 r (u_A - Â)(B̂ - l_B))``

with ``r`` the correlation of the two AUCs by DeLong, DeLong & Clarke-Pearson's (1988)
covariance of the placement values (0 where a system's DeLong variance is 0, as for an
AUC of exactly 1).  It keeps each system's interval informative at the edge (``l_A < 1``
at ``Â = 1``) and the pairing through ``r``.  The pair's p-value is the interval's
inversion (:func:`mover_pvalue`); its maxT adjusted p-value and simultaneous interval come
from its own interval too (:func:`mover_maxt`), never from the bootstrap it replaced.

References
----------
- Zou, G. Y. & Donner, A. (2008). Construction of confidence limits about effect measures:
  a general approach. *Statistics in Medicine* 27, 1693-1702.
- Newcombe, R. G. (1998). Improved confidence intervals for the difference between
  binomial proportions based on paired data. *Statistics in Medicine* 17, 2635-2650.
- "Confidence intervals of the difference between areas under two ROC curves in
  matched-pair experiments" (2020). *Statistics in Medicine* 39, 2621-2638,
  doi:10.1002/sim.8562: hybrid (MOVER) intervals of two correlated AUCs from per-AUC
  Wald, score (Wilson-type), modified Wald and Agresti-Coull intervals, with DeLong's
  correlation.
- DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). Comparing the areas under
  two or more correlated receiver operating characteristic curves: a nonparametric
  approach. *Biometrics* 44, 837-845.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..classical.auc_score import auc_score_bounds
from ..intervals.formulas import one_sided
from ..results import ConfidenceInterval
from .own_maxt import own_pair_maxt

__all__ = [
    "EDGE_MOVER_CLASS",
    "EDGE_MOVER_MISORDERED",
    "EDGE_MOVER_RATIO",
    "MOVER_REASON",
    "auc_pair_moments",
    "edge_mover",
    "misordered",
    "mover_auc_difference",
    "mover_intervals",
    "mover_maxt",
    "mover_pvalue",
    "mover_pvalues",
]

#: ``"auto"`` gives a roc_auc pair of independent samples the MOVER interval when one
#: system has fewer than this many mis-ordered (positive, negative) pairs (counted to the
#: nearer edge, ``min(AUC, 1 - AUC) n_pos n_neg``) ...
EDGE_MOVER_MISORDERED = 20.0
#: ... and the other system at least :data:`EDGE_MOVER_RATIO` times as many (each count
#: plus one: a weaker system, whose own uncertainty counts in the difference's).  In the
#: sweep (scripts/paired_auc_edge_sweep.py; docs/validation.md, "Paired AUC differences
#: near 1") the test sets with a system under 20 mis-ordered pairs and a ratio of 3 or
#: more were covered 0.985-1.000 by MOVER, 0.75-0.93 by BCa and 0.67-0.90 by t; MOVER's
#: median width was 1.3 times BCa's with a ratio of 100 or more, 2.5 at 30-100, 4.7 at
#: 10-30 and 7.8 at 3-10.  Below 3 (both systems near the edge) it covered 1.00 at 17
#: times BCa's width and is not used: ``auto`` keeps what it had there, and warns
EDGE_MOVER_RATIO = 3.0
#: ... with fewer than this many samples in the smaller class.  The sweep reached 50
#: positives (MOVER 0.905-0.98 where BCa covered 0.85-0.92); the design search's CI cell
#: "paired roc_auc difference 0.004 near 1" (87 positives, A 1 and B 41 mis-ordered pairs)
#: is kept out: there MOVER covered 1.000 at 3.6 times BCa's median width, BCa 0.900
EDGE_MOVER_CLASS = 60

MOVER_REASON = "mover"


def _scores_of(kernel: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per-sample (is positive, score) of a roc_auc kernel, from its atoms."""
    pos = kernel.keys >= kernel.m_neg
    values = np.concatenate([kernel.u_neg, kernel.u_pos])
    return pos, values[kernel.keys]


def _placements(pos: np.ndarray, score: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """AUC and DeLong's placement values: each positive's share of negatives below it,
    each negative's share of positives above it (ties one half)."""
    sp, sn = np.sort(score[pos]), np.sort(score[~pos])
    xp, xn = score[pos], score[~pos]
    v10 = (np.searchsorted(sn, xp, "left") + np.searchsorted(sn, xp, "right")) / (2.0 * sn.size)
    v01 = (2.0 * sp.size - np.searchsorted(sp, xn, "left") - np.searchsorted(sp, xn, "right")) / (
        2.0 * sp.size
    )
    return float(v10.mean()), v10, v01


def auc_pair_moments(kernel_a: Any, kernel_b: Any) -> dict[str, Any]:
    """Both AUCs of two roc_auc kernels on the same samples, each one's two DeLong
    variance terms (positives', negatives'), the class sizes and DeLong's correlation of
    the two AUCs (0 where either variance is 0)."""
    pos_a, s_a = _scores_of(kernel_a)
    pos_b, s_b = _scores_of(kernel_b)
    if not np.array_equal(pos_a, pos_b):
        raise ValueError("the two kernels do not share their labels")
    auc_a, p_a, q_a = _placements(pos_a, s_a)
    auc_b, p_b, q_b = _placements(pos_b, s_b)
    m, n = p_a.size, q_a.size
    terms = []
    for p, q in ((p_a, q_a), (p_b, q_b)):
        vp = float(np.var(p, ddof=1) / m) if m > 1 else 0.0
        vq = float(np.var(q, ddof=1) / n) if n > 1 else 0.0
        terms.append((vp, vq))
    cov = 0.0
    if m > 1:
        cov += float(np.cov(p_a, p_b, ddof=1)[0, 1]) / m
    if n > 1:
        cov += float(np.cov(q_a, q_b, ddof=1)[0, 1]) / n
    va, vb = sum(terms[0]), sum(terms[1])
    r = cov / np.sqrt(va * vb) if va > 0 and vb > 0 else 0.0
    return {
        "auc": (auc_a, auc_b),
        "terms": tuple(terms),
        "n_positive": m,
        "n_negative": n,
        "correlation": float(np.clip(r, -1.0, 1.0)),
    }


def _system_bounds(
    mom: dict[str, Any], s: int, level: float, variant: str
) -> tuple[float, float, float]:
    vp, vq = mom["terms"][s]
    lo, hi, _ = auc_score_bounds(
        mom["auc"][s], vp, vq, mom["n_positive"], mom["n_negative"], variant, level
    )
    a = mom["auc"][s]
    return a, a - lo, hi - a


def mover_auc_difference(
    mom: dict[str, Any],
    confidence_level: float,
    alternative: str = "two-sided",
    correlation: float | None = None,
    variant: str = "floored",
) -> tuple[float, float]:
    """The MOVER interval of ``AUC_A - AUC_B`` from :func:`auc_pair_moments` (one-sided:
    the two-sided ``1 - 2 alpha`` limit on its side, the range's edge on the other)."""
    level = confidence_level if alternative == "two-sided" else 2 * confidence_level - 1
    r = mom["correlation"] if correlation is None else correlation
    a, a_lo, a_hi = _system_bounds(mom, 0, level, variant)
    b, b_lo, b_hi = _system_bounds(mom, 1, level, variant)
    d = a - b
    low = d - np.sqrt(max(a_lo**2 + b_hi**2 - 2 * r * a_lo * b_hi, 0.0))
    high = d + np.sqrt(max(a_hi**2 + b_lo**2 - 2 * r * a_hi * b_lo, 0.0))
    lo, hi = one_sided(low, high, alternative, (-1.0, 1.0))
    return float(lo), float(hi)


def mover_pvalue(mom: dict[str, Any], alternative: str = "two-sided") -> float:
    """The p-value of ``AUC_A = AUC_B`` that inverts :func:`mover_auc_difference`: the
    ``alpha`` at which the interval's limit reaches 0 (bisection on the level)."""
    d = mom["auc"][0] - mom["auc"][1]
    side = alternative
    if alternative == "two-sided":
        side = "greater" if d > 0 else "less"
        if d == 0:
            return 1.0

    def excludes(alpha: float) -> bool:
        lo, hi = mover_auc_difference(mom, 1.0 - alpha, side)
        return lo > 0 if side == "greater" else hi < 0

    if not excludes(0.5 - 1e-12):  # the one-sided interval at 50% holds 0
        return 1.0
    lo_a, hi_a = 1e-12, 0.5 - 1e-12
    if excludes(lo_a):
        p = lo_a
    else:
        for _ in range(40):
            mid = np.sqrt(lo_a * hi_a)
            lo_a, hi_a = (lo_a, mid) if excludes(mid) else (mid, hi_a)
        p = hi_a
    return float(min(1.0, 2 * p) if alternative == "two-sided" else p)


def misordered(moments: dict[str, Any]) -> tuple[float, float]:
    """Each system's mis-ordered (positive, negative) pairs, ``min(AUC, 1 - AUC) m n``."""
    mn = moments["n_positive"] * moments["n_negative"]
    return tuple(float(min(a, 1.0 - a) * mn) for a in moments["auc"])  # type: ignore[return-value]


def edge_mover(
    kernels: Any, pairs: Any, labels: list[str], auto_t: bool, data: Any
) -> tuple[dict[int, dict[str, Any]], str]:
    """The roc_auc pairs that get the MOVER interval under ``"auto"`` and the clause of
    ``method_reason`` that says so.

    ``auto_t``: ``"auto"`` gives the differences the t interval on independent samples;
    ``data`` (the gathered inputs) must have neither strata nor sample weights.  A pair
    is switched when a system has fewer than :data:`EDGE_MOVER_MISORDERED` mis-ordered
    (positive, negative) pairs (counted to the nearer edge), the other system at least
    :data:`EDGE_MOVER_RATIO` times as many (each count plus one) and the smaller class
    fewer than :data:`EDGE_MOVER_CLASS` samples.  Returns ``{pair index: moments}``
    (:func:`auc_pair_moments`) and the clause ("" when none)."""
    if (
        not auto_t
        or data.strata is not None
        or data.sample_weight is not None
        or any(getattr(k, "name", None) != "roc_auc" for k in kernels)
    ):
        return {}, ""
    out: dict[int, dict[str, Any]] = {}
    counts = []
    for k, (i, j) in enumerate(pairs):
        mom = auc_pair_moments(kernels[i], kernels[j])
        mis = misordered(mom)
        small = min(mom["n_positive"], mom["n_negative"])  # (2 or more: DeLong's variance)
        enough = 2 <= small < EDGE_MOVER_CLASS
        near = min(mis) < EDGE_MOVER_MISORDERED
        if enough and near and (max(mis) + 1) >= EDGE_MOVER_RATIO * (min(mis) + 1):
            out[k] = mom
            counts.append(mis)
    if not out:
        return out, ""
    return out, (
        f"; {MOVER_REASON} for the difference(s) {', '.join(labels[k] for k in out)}: a "
        "system near the edge of the AUC's range and a clearly weaker one ("
        + ", ".join(f"{a:.3g} and {b:.3g}" for a, b in counts)
        + f" mis-ordered pairs: fewer than {EDGE_MOVER_MISORDERED:g}, and at least "
        f"{EDGE_MOVER_RATIO:g} times as many, each plus one; fewer than "
        f"{EDGE_MOVER_CLASS} samples in the smaller class): each AUC's score interval "
        "(auc_score_ci, floored) combined with DeLong's correlation (MOVER, Zou & Donner "
        "2008), where the t and BCa intervals fell short (docs/validation.md, 'Paired AUC "
        "differences near 1')"
    )


def mover_intervals(
    mover: dict[int, dict[str, Any]], confidence_level: float, alternative: str
) -> dict[int, ConfidenceInterval]:
    """Each MOVER pair's interval (:func:`mover_auc_difference`), by pair index."""
    return {
        k: ConfidenceInterval(*mover_auc_difference(mom, confidence_level, alternative))
        for k, mom in mover.items()
    }


def mover_pvalues(
    mover: dict[int, dict[str, Any]], pvals: np.ndarray, method: str, alternative: str
) -> tuple[np.ndarray, str]:
    """``pvals`` with each MOVER pair's :func:`mover_pvalue`, and the p-value method
    ``method`` saying so."""
    if not mover:
        return pvals, method
    pvals = np.array(pvals, dtype=float)
    pvals[list(mover)] = [mover_pvalue(mom, alternative) for mom in mover.values()]
    if len(mover) == len(pvals):
        return pvals, "the inversion of the MOVER interval (the level at which it reaches 0)"
    return pvals, method + "; for the pairs with the MOVER interval, its inversion"


def mover_maxt(
    mover: dict[int, dict[str, Any]],
    pvals: np.ndarray,
    maxt: tuple[float, np.ndarray, np.ndarray, np.ndarray],
    boot: tuple[np.ndarray, np.ndarray, np.ndarray],
    opts: Any,
) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """``compare``'s maxT ``(critical value, simultaneous lows, highs, p-values)`` with
    each MOVER pair's p-value and simultaneous interval from its own interval
    (:func:`mlci.comparison.own_maxt.own_pair_maxt`: never below the unadjusted p-value,
    and with a single pair equal to it and to the pair's interval).  ``boot`` is
    ``(d_hat, d_dist, d_se)``; ``opts`` holds ``confidence_level`` and ``alternative``."""
    crit, low, high, p_maxt = maxt
    if not mover:
        return maxt
    alt = opts.alternative
    own = {
        k: (lambda lev, mom=mom: mover_auc_difference(mom, lev, alt)) for k, mom in mover.items()
    }
    p_maxt, low, high = own_pair_maxt(
        own, pvals, p_maxt, (low, high), boot, crit, opts.confidence_level, alt
    )
    return crit, low, high, p_maxt
