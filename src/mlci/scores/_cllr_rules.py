"""``method="auto"`` of :func:`mlci.cllr_ci`: the actual Cllr's bootstrap-t interval, and
the warnings where no interval held (issue 20; ``scripts/cllr_sweep.py``,
docs/validation.md, "Cllr intervals (session 9)").

* **The actual Cllr of independent unweighted trials: the studentized (bootstrap-t)
  interval on the log scale** (:data:`CLLR_T_REASON`).  Cllr is
  ``(mean_pos phi_pos + mean_neg phi_neg) / 2`` of per-trial costs
  ``phi = log2(1 + e^(-+s))``; every replicate's standard error is the two-sample one,
  ``sqrt(var_pos / n_pos + var_neg / n_neg) / 2`` (:func:`cllr_se_rows`), and
  ``t* = (log C* - log C) / (se* / C*)`` (Efron & Tibshirani 1993, ch. 12.5; Hall 1992,
  sec. 3.5; the log scale: DiCiccio & Efron 1996, sec. 4).  The costs of a strong system
  are right-skewed (most trials cost almost nothing, a few misjudged ones cost several
  bits), so the estimate's spread grows with it: BCa and the percentile interval,
  which read only the spread of the replicates, miss high, while t* carries that
  relation.  Over conditions, with weights, strata or another resampling design BCa
  stays (the two-sample standard error assumes independent trials).  Every replicate's
  standard error is at least ``C* |log C* - log C| / 6`` (:data:`MAX_CLLR_T`): a
  replicate that drew none of the few costly trials carrying a class's cost has the
  small spread of the cheap trials, and its t* (-10 to -40) sent the upper bound to
  1e3-1e44 bits; the floor keeps ``|t*| <= 6``, the upper bound at most
  ``C exp(6 se / C)``.
* **A warning where a class's cost rests on a few trials** (:func:`warn_few_costly_trials`):
  Kish's effective number of trials carrying a class's cost,
  ``(sum phi)^2 / sum phi^2`` (Kish 1965, *Survey Sampling*, sec. 11.7, the effective
  sample size of weights, here of the costs; :func:`cllr_effective_trials`), below
  :data:`MIN_CLLR_EFFECTIVE_TRIALS` in either class.  One misjudged target among
  well-scored ones makes it about 1; a class whose trials all cost about the same, its
  number of trials.  Or where the estimate's skewness from the class-wise third moments
  exceeds :data:`MAX_CLLR_SKEWNESS` (a cost spread over more trials, but still a few
  heavy ones: the 50-100-target designs session 9 left unwarned).  There the test set
  holds too few of the rare costly trials that set Cllr, and no interval held.
* **The minimum Cllr: BCa, with a warning of PAV's optimism** (:func:`warn_min_cllr_bias`)
  where the replicates' mean lies below the estimate by more than
  :data:`MAX_MIN_CLLR_BIAS` of their standard deviation (Efron & Tibshirani 1993, sec.
  10.6: a bias under a quarter of the standard error can be ignored).  PAV fits the
  calibration to the test set itself, so the minimum Cllr is biased down, and the
  bootstrap sees only part of it (its replicates are PAV fits too).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..exceptions import IrregularEstimandWarning, NearBoundWarning
from ..feedback import warn
from ._roc import _Layout

__all__ = [
    "CLLR_T_REASON",
    "MAX_CLLR_SKEWNESS",
    "MAX_CLLR_T",
    "MAX_MIN_CLLR_BIAS",
    "MIN_CLLR_CLASS_COST",
    "MIN_CLLR_CLASS_RATIO",
    "MIN_CLLR_CLASS_TRIALS",
    "MIN_CLLR_EFFECTIVE_TRIALS",
    "MIN_CLLR_FAR_RATIO",
    "MIN_CLLR_FAR_TRIALS",
    "CllrDiagnostics",
    "cllr_costs",
    "cllr_effective_trials",
    "cllr_se_rows",
    "warn_few_costly_trials",
    "warn_min_cllr_bias",
]

_LN2 = float(np.log(2.0))

#: a class whose cost rests on fewer effective trials than this warns, and so does an
#: estimate whose skewness exceeds :data:`MAX_CLLR_SKEWNESS`.  Session 9 (150 test sets a
#: design, B = 500) warned below 4 effective trials alone: 5 short designs unwarned, all
#: with 50-100 targets, 44 that hold warned.  Session 10 (scripts/cllr_sweep.py --seed 30,
#: 300 test sets a design; docs/validation.md, "Cllr's bootstrap-t with a floored standard
#: error (session 10, cllr2)"), pooled with session 9's: below 4 alone, 5 short designs
#: unwarned (3 with 50-100 targets), 31 that hold warned; below 3 or a skewness above 0.35,
#: 1 (10 / 50 targets, 0.916 of 450) and 35; below 4 or above 0.35: 1 and 44
MIN_CLLR_EFFECTIVE_TRIALS = 3.0
#: the estimate's skewness, from the class-wise third moments, above which auto warns
#: (Cochran 1977, sec. 2.15: a mean is near normal when its skewness is below about 0.2;
#: 0.3 and 0.4 were tried too: :data:`MIN_CLLR_EFFECTIVE_TRIALS`)
MAX_CLLR_SKEWNESS = 0.35
#: a replicate's studentized distance from the estimate on the log scale is at most this
#: (:func:`cllr_se_rows`).  Session 9's bootstrap-t read t* of -10 to -40 off replicates
#: that drew none of the one or two costly trials carrying a class's cost (their own
#: standard error is that of the cheap trials): upper bounds up to 1e44 bits, wider than
#: 100 bits in 3.3% of the session-10 sweep's 49,500 test sets.  At 6: at most 529 bits,
#: 0.47% wider than 100; in the 16 designs where the numpy bootstrap-t's median width was
#: over 10 times BCa's mlci's auto covered 0.753 on average (0.759 before), median width 4.8
#: to 28.5 times BCa's (6.0 to 83.6), and elsewhere one test set of 49,500 changed.  The
#: numpy sweep at 400 test sets a design (seed 99): clipping |t*| at 5 changed 6 designs
#: where the interval held (by up to 0.005), at 4 by up to 0.015
MAX_CLLR_T = 6.0
#: session 11 (cllrwauc): a class with fewer trials than this, outnumbered at least
#: :data:`MIN_CLLR_CLASS_RATIO` times by the other, warns whatever its costs look like.
#: The one short design the rules above left unwarned, 10 targets / 50 non-targets at AUC
#: 0.9 with under-confident LLRs (c = 0.5), covered 0.913-0.920 (0.916 of 450 test sets;
#: the best interval, the bootstrap-t on the identity scale, 0.920), and its misses are the
#: test sets that look benign: the estimate low (the truth above the interval), the costs
#: less skewed and spread over more effective targets than in the covering ones (median
#: skewness 0.10 against 0.17), so no rule on the test set's costs can catch them.  The
#: 10-target, 5:1 designs at AUC 0.8-0.97 covered 0.890-0.943, mean 0.921
#: (scripts/cllr_sweep.py --seed 30; docs/validation.md, "The weighted AUC at 1 and Cllr at
#: few targets (session 11, cllrwauc)"); balanced 10 / 10 designs held (0.95-0.96)
MIN_CLLR_CLASS_TRIALS = 20
#: session 12 (cllrw12): a class with fewer trials than this, outnumbered at least
#: :data:`MIN_CLLR_FAR_RATIO` times, warns too.  In scripts/cllr_few_targets.py (300 test
#: sets a design, AUC 0.99-0.9998) every design of 32 targets against 320 or 1,472
#: non-targets fell short (auto 0.663-0.900; 12 of 12), its misses at AUC 0.99 unwarned
#: (their costs 5-6 bits, 10-40% of the misses warned), while 50 targets against 500 held
#: (0.960) and 32 against 96 held at AUC 0.99 (0.937-0.953)
MIN_CLLR_FAR_TRIALS = 40
#: the ratio at which :data:`MIN_CLLR_FAR_TRIALS` applies
MIN_CLLR_FAR_RATIO = 10.0
#: the other class's size over the small one's from which :data:`MIN_CLLR_CLASS_TRIALS`
#: applies (the small class then sets the standard error, on about its size minus one
#: degrees of freedom: Welch and Satterthwaite)
MIN_CLLR_CLASS_RATIO = 3.0
#: session 12 (cllrw12): a class whose trials cost fewer bits than this in all warns,
#: whatever its count (``sum phi`` over the class; one trial judged at LLR 0 costs 1 bit).
#: The seed-15 search's #17 (about 32 targets against 1,469 non-targets, AUC 0.9998,
#: LLRs x 0.67) covered 0.747 with 11 of its 20 misses unwarned: the misses are the test
#: sets that drew none of the rare misjudged targets, their costs spread evenly over many
#: nearly free trials (many effective trials, little skewness), so neither rule above
#: fires; what they share is a class that costs almost nothing in all
#: (scripts/cllr_few_targets.py; docs/validation.md, "Cllr at ~30 targets and the weighted
#: AUC at ~100 positives (session 12, cllrw12)")
MIN_CLLR_CLASS_COST = 2.0
#: where the warning's numbers come from
_STUDY = (
    "docs/validation.md, 'Cllr intervals (session 9)' and 'Cllr's bootstrap-t with a "
    "floored standard error (session 10, cllr2)': in the 81 designs where most test sets "
    "warn the bootstrap-t covered 0.27-0.96, mean 0.88, BCa 0.21-0.94, mean 0.78"
)
#: Efron & Tibshirani (1993, sec. 10.6): a bootstrap bias under 0.25 standard errors can
#: be ignored
MAX_MIN_CLLR_BIAS = 0.25

#: auto's reason for the actual Cllr of independent unweighted trials (scripts/cllr_sweep.py)
CLLR_T_REASON = (
    "studentized: the bootstrap-t interval on the log scale, with every replicate's "
    "two-sample standard error (Efron & Tibshirani 1993, ch. 12.5): Cllr's per-trial costs "
    "are right-skewed (a few misjudged trials cost several bits), which BCa and the "
    "percentile interval read too little of; in mlci's sweep (scripts/cllr_sweep.py; "
    "docs/validation.md, 'Cllr intervals (session 9)': 5-200 targets, AUC 0.8-0.999, "
    "calibrated and scaled LLRs, 165 designs) it covered 0.924 on average where BCa covered "
    "0.855, at least as often in 158 designs, and held in 57 where BCa fell short, at a median "
    "width 1.07 times BCa's where BCa held; every replicate's standard error is at least "
    "1/6 of its distance from the estimate on the log scale, so that a replicate without "
    "the few costly trials cannot send the upper bound to 1e44 bits (docs/validation.md, "
    "'Cllr's bootstrap-t with a floored standard error (session 10, cllr2)')"
)


def cllr_costs(lay: _Layout) -> tuple[np.ndarray, np.ndarray]:
    """Per-atom costs in bits: the targets' ``log2(1 + e^-s)`` and the non-targets'
    ``log2(1 + e^s)`` (the atoms: distinct scores of each class)."""
    return np.logaddexp(0.0, -lay.u[1]) / _LN2, np.logaddexp(0.0, lay.u[0]) / _LN2


def _class_moments(w: np.ndarray, phi: np.ndarray) -> tuple[np.ndarray, ...]:
    """Weights ``w`` (r, m) of the atoms: count, mean, unbiased variance per row."""
    n = w.sum(1)
    safe = np.where(n > 0, n, 1.0)
    mean = w @ phi / safe
    second = w @ (phi * phi) / safe
    var = np.maximum(second - mean * mean, 0.0) * n / np.where(n > 1, n - 1, np.nan)
    return n, mean, var


def cllr_se_rows(lay: _Layout, v: Any, max_t: float | None = MAX_CLLR_T) -> np.ndarray:
    """Every replicate's two-sample standard error of Cllr,
    ``sqrt(var_pos / n_pos + var_neg / n_neg) / 2`` (unbiased class variances; NaN with
    fewer than 2 trials of a class).

    With ``max_t`` (default :data:`MAX_CLLR_T`; None: no floor), a replicate's standard
    error is at least ``C* |log C* - log C| / max_t``, ``C*`` its Cllr and ``C`` the test set's: its
    studentized distance on the log scale, ``t* = (log C* - log C) / (se* / C*)``, is at
    most ``max_t``.  A replicate further away than that has drawn none of the few costly
    trials that set ``C``, and its own standard error (that of the cheap trials alone)
    does not describe its distance (:data:`MAX_CLLR_T`)."""
    if max_t is not None and not (isinstance(max_t, int | float) and max_t > 0):
        raise ValueError(f"`max_t` must be a number > 0, or None (no floor); got {max_t!r}.")
    w_neg, w_pos = v.w
    phi_pos, phi_neg = cllr_costs(lay)
    n_p, m_p, v_p = _class_moments(w_pos, phi_pos)
    n_n, m_n, v_n = _class_moments(w_neg, phi_neg)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = 0.5 * np.sqrt(v_p / n_p + v_n / n_n)
        if max_t is None:
            return se
        theta = 0.5 * (m_p + m_n)
        est = 0.5 * (
            lay.nobs[1] @ phi_pos / lay.nobs[1].sum() + lay.nobs[0] @ phi_neg / lay.nobs[0].sum()
        )
        floor = theta * np.abs(np.log(theta) - np.log(est)) / max_t
    floor = np.where((theta > 0) & (est > 0), floor, 0.0)
    return np.where(np.isnan(se), se, np.maximum(se, floor))


class CllrDiagnostics(NamedTuple):
    """What auto's warning reads off the test set (:func:`cllr_effective_trials`)."""

    targets_eff: float
    non_targets_eff: float
    n_targets: float
    n_non_targets: float
    skewness: float = float("nan")
    #: each class's total cost in bits, ``sum phi`` (:data:`MIN_CLLR_CLASS_COST`)
    targets_cost: float = float("nan")
    non_targets_cost: float = float("nan")


def cllr_effective_trials(lay: _Layout) -> CllrDiagnostics:
    """Kish's effective number of trials carrying each class's cost,
    ``(sum phi)^2 / sum phi^2`` over the trials (``phi`` the per-trial costs), the
    numbers of trials, and the skewness of the estimate from the class-wise moments,
    ``(m3_pos / n_pos^2 + m3_neg / n_neg^2) / 8 / se^3`` (``m3`` a class's third central
    moment, ``se`` the two-sample standard error; NaN with fewer than 2 trials of a class
    or no spread), and each class's total cost in bits: ``(targets_eff, non_targets_eff,
    n_targets, n_non_targets, skewness, targets_cost, non_targets_cost)``."""
    out, m3, var, cost = [], 0.0, 0.0, []
    for phi, c in zip(cllr_costs(lay), (lay.nobs[1], lay.nobs[0]), strict=True):
        n = float(c.sum())
        total, square = float(c @ phi), float(c @ (phi * phi))
        out.append(total * total / square if square > 0 else n)
        cost.append(total)
        dev = phi - total / n
        m3 += float(c @ dev**3) / n / n**2
        var += float(c @ dev**2) / (n - 1) / n if n > 1 else float("nan")
    skew = m3 / 8 / (var / 4) ** 1.5 if var > 0 else float("nan")
    n_t, n_n = float(lay.nobs[1].sum()), float(lay.nobs[0].sum())
    return CllrDiagnostics(out[0], out[1], n_t, n_n, skew, cost[0], cost[1])


def warn_few_costly_trials(
    pos_eff: float,
    neg_eff: float,
    n_pos: float,
    n_neg: float,
    skewness: float = float("nan"),
    pos_cost: float = float("nan"),
    neg_cost: float = float("nan"),
) -> str | None:
    """Warn (and return the message) when either class's cost rests on fewer than
    :data:`MIN_CLLR_EFFECTIVE_TRIALS` effective trials, or the estimate's skewness exceeds
    :data:`MAX_CLLR_SKEWNESS` (:func:`cllr_effective_trials`; a NaN skewness does not
    warn), or a class has fewer than :data:`MIN_CLLR_CLASS_TRIALS` trials and the other
    at least :data:`MIN_CLLR_CLASS_RATIO` times as many (or fewer than
    :data:`MIN_CLLR_FAR_TRIALS` and :data:`MIN_CLLR_FAR_RATIO` times), or a class's
    trials cost fewer than :data:`MIN_CLLR_CLASS_COST` bits in all (``pos_cost``,
    ``neg_cost``: NaN, not known, does not warn).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True):
    ...     warnings.simplefilter("always")
    ...     text = warn_few_costly_trials(8.0, 34.0, 10, 50, 0.1)
    >>> text.split(";")[0]
    'Only 10 targets against 50 non-targets'
    >>> warn_few_costly_trials(8.0, 9.0, 10, 10, 0.1) is None
    True
    >>> with warnings.catch_warnings(record=True):
    ...     warnings.simplefilter("always")
    ...     text = warn_few_costly_trials(6.5, 8.9, 32, 96, 0.29, 0.26, 0.84)
    >>> text.split(";")[0]
    'The 32 targets cost 0.26 bits in all'
    """
    for name, value in (("pos_eff", pos_eff), ("neg_eff", neg_eff), ("n_pos", n_pos),
                        ("n_neg", n_neg)):  # fmt: skip
        if not (isinstance(value, int | float | np.integer | np.floating) and value >= 0):
            raise ValueError(f"`{name}` must be a number >= 0; got {value!r}.")
    for name, value in (("skewness", skewness), ("pos_cost", pos_cost), ("neg_cost", neg_cost)):
        if not isinstance(value, int | float | np.integer | np.floating):
            raise TypeError(f"`{name}` must be a number (NaN: not known); got {value!r}.")
    few = min(pos_eff, neg_eff) < MIN_CLLR_EFFECTIVE_TRIALS
    small, large = min(n_pos, n_neg), max(n_pos, n_neg)
    if not few and not skewness > MAX_CLLR_SKEWNESS:
        near = small < MIN_CLLR_CLASS_TRIALS and large >= MIN_CLLR_CLASS_RATIO * small
        if near or (small < MIN_CLLR_FAR_TRIALS and large >= MIN_CLLR_FAR_RATIO * small):
            return _warn_small_class(n_pos, n_neg)
        if pos_cost < MIN_CLLR_CLASS_COST or neg_cost < MIN_CLLR_CLASS_COST:  # NaN: False
            return _warn_cheap_class(n_pos, n_neg, pos_cost, neg_cost)
        return None
    which, eff, n = ("targets", pos_eff, n_pos) if pos_eff <= neg_eff else (
        "non-targets", neg_eff, n_neg)  # fmt: skip
    why = (
        f"below {MIN_CLLR_EFFECTIVE_TRIALS:g}" if few
        else f"and the estimate's skewness is {skewness:.2f}, above {MAX_CLLR_SKEWNESS:g}"
    )  # fmt: skip
    text = (
        f"The cost of the {which} rests on {eff:.1f} effective trials of {n:.0f} (Kish's "
        f"(sum c)^2 / sum c^2 of their costs; {why}): Cllr is "
        "set by a few misjudged trials, and a test set this small holds too few of them. "
        f"There no interval held its level in mlci's coverage study ({_STUDY}); treat "
        "the interval as optimistic, its upper bound most of all, or collect more trials "
        "of that class."
    )
    warn(text, NearBoundWarning)
    return text


def _warn_small_class(n_pos: float, n_neg: float) -> str:
    """The warning of a small class outnumbered by the other (:data:`MIN_CLLR_CLASS_TRIALS`)."""
    (a, b), (na, nb) = (("targets", "non-targets"), (n_pos, n_neg)) if n_pos <= n_neg else (
        ("non-targets", "targets"), (n_neg, n_pos))  # fmt: skip
    text = (
        f"Only {na:.0f} {a} against {nb:.0f} {b}; below {MIN_CLLR_CLASS_TRIALS} trials of a "
        f"class outnumbered {MIN_CLLR_CLASS_RATIO:g} times or more (or below "
        f"{MIN_CLLR_FAR_TRIALS} outnumbered {MIN_CLLR_FAR_RATIO:g} times), the {a} set the "
        "interval's spread, and a test set this small may hold none of their costly trials "
        "while looking benign: in mlci's coverage study (docs/validation.md, 'The weighted AUC "
        "at 1 and Cllr at few targets (session 11, cllrwauc)' and 'Cllr at ~30 targets and the "
        "weighted AUC at ~100 positives (session 12, cllrw12)') 10 targets against 50 "
        "non-targets covered 0.89-0.94 (mean 0.92) at AUC 0.8-0.97, 32 against 320 or more "
        "0.66-0.90 at AUC 0.99-0.9998, and no interval held. Treat the "
        "interval as optimistic, its upper bound most of all, or collect more trials of that "
        "class."
    )
    warn(text, NearBoundWarning)
    return text


def _warn_cheap_class(n_pos: float, n_neg: float, pos_cost: float, neg_cost: float) -> str:
    """The warning of a class whose trials cost almost nothing (:data:`MIN_CLLR_CLASS_COST`)."""
    pos = pos_cost < MIN_CLLR_CLASS_COST and not neg_cost < pos_cost
    which, n, cost = ("targets", n_pos, pos_cost) if pos else ("non-targets", n_neg, neg_cost)
    text = (
        f"The {n:.0f} {which} cost {cost:.2f} bits in all; below {MIN_CLLR_CLASS_COST:g} bits "
        f"(one misjudged trial costs about 1), the {which}' share of Cllr is set by rare "
        "misjudged trials that this test set holds almost none of, and a test set without "
        "them looks benign while its interval lies below the truth: in mlci's coverage study "
        "(docs/validation.md, 'Cllr at ~30 targets and the weighted AUC at ~100 positives "
        "(session 12, cllrw12)') no interval held there. Treat the interval as optimistic, "
        f"its upper bound most of all, or collect more {which}."
    )
    warn(text, NearBoundWarning)
    return text


def warn_min_cllr_bias(estimate: float, dist: np.ndarray) -> str | None:
    """Warn (and return the message) when the replicates of the minimum Cllr lie below the
    estimate by more than :data:`MAX_MIN_CLLR_BIAS` of their standard deviation."""
    d = np.asarray(dist, dtype=float)
    d = d[np.isfinite(d)]
    sd = float(d.std(ddof=1)) if len(d) > 1 else 0.0
    if not sd > 0:
        return None
    ratio = (estimate - float(d.mean())) / sd
    if not ratio > MAX_MIN_CLLR_BIAS:
        return None
    text = (
        f"The minimum Cllr is optimistic: PAV calibrates on the test set itself, and its "
        f"replicates lie {ratio:.2f} standard deviations below the estimate (a bias beyond "
        f"{MAX_MIN_CLLR_BIAS:g} of them cannot be ignored). The true bias is larger than the "
        "bootstrap's, so the interval sits too low: in mlci's coverage study "
        "(docs/validation.md, 'Cllr intervals (session 9)') BCa covered 0.02-0.92, mean 0.59, "
        "with 5-300 targets, and 0.65-0.92 with 100 of each class or more. Read the "
        "estimate and its interval as a lower limit, or report the actual Cllr of scores "
        "calibrated on separate data."
    )
    warn(text, IrregularEstimandWarning)
    return text
