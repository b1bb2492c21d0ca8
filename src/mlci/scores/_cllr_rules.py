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
  stays (the two-sample standard error assumes independent trials).
* **A warning where a class's cost rests on a few trials** (:func:`warn_few_costly_trials`):
  Kish's effective number of trials carrying a class's cost,
  ``(sum phi)^2 / sum phi^2`` (Kish 1965, *Survey Sampling*, sec. 11.7, the effective
  sample size of weights, here of the costs; :func:`cllr_effective_trials`), below
  :data:`MIN_CLLR_EFFECTIVE_TRIALS` in either class.  One misjudged target among
  well-scored ones makes it about 1; a class whose trials all cost about the same, its
  number of trials.  There the test set holds too few of the rare costly trials that
  set Cllr, and no interval held.
* **The minimum Cllr: BCa, with a warning of PAV's optimism** (:func:`warn_min_cllr_bias`)
  where the replicates' mean lies below the estimate by more than
  :data:`MAX_MIN_CLLR_BIAS` of their standard deviation (Efron & Tibshirani 1993, sec.
  10.6: a bias under a quarter of the standard error can be ignored).  PAV fits the
  calibration to the test set itself, so the minimum Cllr is biased down, and the
  bootstrap sees only part of it (its replicates are PAV fits too).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import IrregularEstimandWarning, NearBoundWarning
from ..feedback import warn
from ._roc import _Layout

__all__ = [
    "CLLR_T_REASON",
    "MAX_MIN_CLLR_BIAS",
    "MIN_CLLR_EFFECTIVE_TRIALS",
    "cllr_costs",
    "cllr_effective_trials",
    "cllr_se_rows",
    "warn_few_costly_trials",
    "warn_min_cllr_bias",
]

_LN2 = float(np.log(2.0))

#: a class whose cost rests on fewer effective trials than this warns.  In the sweep
#: (scripts/cllr_sweep.py, 165 designs) the bootstrap-t fell significantly short of 0.935 in
#: 35 designs, and 30 of them warn in most test sets; the other 5 have 50-100 targets and
#: cover 0.88-0.90 (no per-test-set rule tried, 3-5 effective trials or the estimate's
#: skewness, caught them without warning in most designs where the interval holds); 44
#: designs that hold warn in most test sets.  At 3: 7 short designs unwarned, 31 that hold
#: warned; at 5: 3 and 54
MIN_CLLR_EFFECTIVE_TRIALS = 4.0
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
    "width 1.07 times BCa's where BCa held"
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


def cllr_se_rows(lay: _Layout, v: Any) -> np.ndarray:
    """Every replicate's two-sample standard error of Cllr,
    ``sqrt(var_pos / n_pos + var_neg / n_neg) / 2`` (unbiased class variances; NaN with
    fewer than 2 trials of a class)."""
    w_neg, w_pos = v.w
    phi_pos, phi_neg = cllr_costs(lay)
    n_p, _, v_p = _class_moments(w_pos, phi_pos)
    n_n, _, v_n = _class_moments(w_neg, phi_neg)
    with np.errstate(invalid="ignore", divide="ignore"):
        return 0.5 * np.sqrt(v_p / n_p + v_n / n_n)


def cllr_effective_trials(lay: _Layout) -> tuple[float, float, float, float]:
    """Kish's effective number of trials carrying each class's cost,
    ``(sum phi)^2 / sum phi^2`` over the trials (``phi`` the per-trial costs), and the
    numbers of trials: ``(targets_eff, non_targets_eff, n_targets, n_non_targets)``."""
    out = []
    for phi, c in zip(cllr_costs(lay), (lay.nobs[1], lay.nobs[0]), strict=True):
        total, square = float(c @ phi), float(c @ (phi * phi))
        out.append(total * total / square if square > 0 else float(c.sum()))
    return out[0], out[1], float(lay.nobs[1].sum()), float(lay.nobs[0].sum())


def warn_few_costly_trials(
    pos_eff: float, neg_eff: float, n_pos: float, n_neg: float
) -> str | None:
    """Warn (and return the message) when either class's cost rests on fewer than
    :data:`MIN_CLLR_EFFECTIVE_TRIALS` effective trials (:func:`cllr_effective_trials`)."""
    if min(pos_eff, neg_eff) >= MIN_CLLR_EFFECTIVE_TRIALS:
        return None
    which, eff, n = ("targets", pos_eff, n_pos) if pos_eff <= neg_eff else (
        "non-targets", neg_eff, n_neg)  # fmt: skip
    text = (
        f"The cost of the {which} rests on {eff:.1f} effective trials of {n:.0f} (Kish's "
        f"(sum c)^2 / sum c^2 of their costs; below {MIN_CLLR_EFFECTIVE_TRIALS:g}): Cllr is "
        "set by a few misjudged trials, and a test set this small holds too few of them. "
        "There no interval held its level in mlci's coverage study (docs/validation.md, "
        "'Cllr intervals (session 9)': the bootstrap-t covered 0.73-0.97, mean 0.90, in designs "
        "where most test sets warn, BCa 0.26-0.94); treat the interval as "
        "optimistic, its upper bound most of all, or collect more trials of that class."
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
