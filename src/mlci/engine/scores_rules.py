"""``method="auto"`` of the score drivers, their few-errors warnings, and the score
intervals of an ROC point (the EER, a rate at a fixed other rate).

The score drivers (``Scores.bootstrap_ci``, ``auc_ci``, ``operating_point_ci``,
``eer_ci``, ``dcf_ci``, ``cllr_ci``), ``metric_by_group`` and ``trial_bootstrap_ci`` have
no linearized standard error: ``auto`` chooses among the intervals read off the
replicates, per statistic, through :func:`scores_auto_method` (the kernel drivers' rules
are in :mod:`mlci.engine.auto`):

* **the EER: percentile** (:data:`EER_REASON`).  ``scripts/scores_auto_study.py``, every
  method from the same replicates, 35 designs where some bootstrap interval covered more
  than 0.90 (n = 50-20,000 trials, population EER 0.005-0.3, 10% or 50% targets, iid or
  20-500 speakers of unequal sizes with ICC 0.1-0.5; 150-250 test sets each): percentile
  covered 0.953 on average (BCa 0.940, BC 0.942, normal 0.944, basic 0.910), below
  0.935 in 5 designs (BCa 11) and 0.916 at worst (BCa 0.840: the EER of 200 balanced
  trials with 2 errors per class, where percentile covered 0.948), at the same median
  width (1.00 x BCa's).  It is within 0.95 +- 0.015 in 21 designs (BCa 20, normal 23)
  and errs on the safe side (above 0.965 in 9 designs, below 0.935 in 5); with at least
  5 errors in the smaller class and iid trials it covered 0.936-0.980 (BCa 0.924-0.976).
  Below :data:`MIN_EER_ERRORS` errors in the smaller class no method held (2 errors in
  20-100 targets: 0.86-0.93 under every method) and the result warns
  (:func:`warn_few_eer_errors`); over 5 speakers, or 20 speakers at ICC 0.3, none held
  either (0.77-0.88).
* **an EER with fewer than one error in its smaller class** (:data:`MIN_EER_SCORE_ERRORS`,
  the estimate's count) **of independent unweighted trials: its score interval**
  (:func:`eer_score_interval`, :data:`EER_SCORE_REASON`), Wilson's statistic of the
  misses and false alarms profiled over the threshold (along the ROC polyline the EER
  is read on, through ties too); no warning.  There the bootstrap
  intervals covered 0.27-0.91 and this one 0.91-0.99 (docs/validation.md, "EER and
  operating points with few errors").  Over conditions, below 5 errors, its version
  with the design effect (:mod:`mlci.engine.scores_clustered`); with weights or another
  resampling design, the percentile interval and its warning stay.
* **a rate at a fixed other rate** (``operating_point_ci``, ``Scores.bootstrap_ci(
  "fnr_at_fpr", at=...)``) **with fewer than** :data:`MIN_OP_EVENTS` **expected events in
  its class, of independent trials whose threshold rests on at least as many events of
  the other: its score interval** (:func:`rate_score_interval`,
  :data:`OP_SCORE_REASON`; 0.94-1.00 where BCa covered 0.43-0.97).  A single ``at``
  only.  Otherwise BCa, with a :class:`~mlci.NearBoundWarning` when either count is
  below :data:`MIN_OP_EVENTS` (:func:`warn_few_op_events`).  The minimum and actual DCF
  warn the same way when their threshold has fewer misses or false alarms
  (:func:`warn_few_dcf_events`).
* **every other statistic: BCa**, with :data:`mlci.inputs.AUTO_BCA_REASON` (the rule
  above for a design without a linearization).  The EER's threshold, the rates at a
  threshold and at a rate (docs/validation.md, section 5, "metric_by_group and
  trial_bootstrap_ci"), the minimum DCF and Cllr, where BCa was the best of the methods
  (minimum DCF at p_target 0.1 with 20-500 targets: BCa 0.87-0.96, percentile 0.77-0.89;
  at p_target 0.01 none held, BCa 0.60-0.89; Cllr over 19 designs: BCa the best or
  within 0.01 of it in each, mean 0.899 against percentile's 0.875, none holding with
  50-200 trials).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import NearBoundWarning
from ..feedback import warn
from ..inputs import (
    AUTO_BCA_REASON,
    check_alternative,
    check_confidence_level,
    check_nonnegative,
)

__all__ = [
    "EER_REASON",
    "EER_SCORE_REASON",
    "MIN_EER_ERRORS",
    "MIN_EER_SCORE_ERRORS",
    "MIN_OP_EVENTS",
    "OP_SCORE_REASON",
    "SCORES_AUTO",
    "ScoreInterval",
    "eer_score_interval",
    "error_counts",
    "flipped",
    "op_events",
    "rate_score_interval",
    "scores_auto_method",
    "warn_few_dcf_events",
    "warn_few_eer_errors",
    "warn_few_op_events",
    "with_edge_flag",
]


#: the EER's rule: scripts/scores_auto_study.py (docs/validation.md, "The Scores
#: statistics"), 35 designs where a bootstrap interval can cover (n = 50-20,000 trials,
#: population EER 0.005-0.3, 10% or 50% targets, iid or 5-500 speakers of unequal sizes,
#: ICC 0.1-0.5), every method from the same replicates
EER_REASON = (
    "percentile: the EER's interval that held best in mlci's coverage study "
    "(scripts/scores_auto_study.py; docs/validation.md, 'The Scores statistics'): over 35 "
    "designs (50-20,000 trials, EER 0.005-0.3, 10-50% targets, iid or 20-500 speakers) it "
    "covered 0.953 on average, below 0.935 in 5 designs and 0.916 at worst, where BCa "
    "covered 0.940, below 0.935 in 11 and 0.840 at worst (the EER of 200 balanced trials "
    "with 2 errors per class: percentile 0.948, BCa 0.840), at the same width; the "
    "percentile bootstrap is also the field's usual EER interval (Bengio & Mariethoz "
    "2004; Ferrer & Riera's confidence_intervals)"
)
#: ``method="auto"`` of the statistics the score drivers serve (``eer_ci``,
#: ``Scores.bootstrap_ci``, ``metric_by_group``, ``trial_bootstrap_ci``, ``mlci scores``):
#: ``{statistic: (method, reason)}``, read off ``scripts/scores_auto_study.py``
#: (docs/validation.md, "The Scores statistics"); a statistic not listed gets BCa
#: (:data:`mlci.inputs.AUTO_BCA_REASON`)
SCORES_AUTO: dict[str, tuple[str, str]] = {"eer": ("percentile", EER_REASON)}
#: an EER with fewer errors than this in its smaller class (``EER x min(n_pos, n_neg)``,
#: the estimate's): no interval held there in the study (2 expected errors in 20-100
#: targets: percentile 0.864-0.924, BCa 0.900-0.928; below one error 0.17-0.78), except
#: with both classes small (2-2.5 errors in each of 25-500 per class: percentile
#: 0.948-0.972), which the warning also names; from 6 errors on percentile covered
#: 0.936-0.980
MIN_EER_ERRORS = 5.0


def scores_auto_method(statistic: str) -> tuple[str, str]:
    """``(method, reason)`` of ``method="auto"`` for a statistic of the score drivers.

    These drivers have no linearized standard error (a :class:`~mlci.Scores` object
    resamples within each class; the EER, DCF and Cllr have no closed-form derivative),
    so ``auto`` chooses among the intervals read off the replicates, per statistic, by
    the coverage study of ``scripts/scores_auto_study.py`` (:data:`SCORES_AUTO`): the
    EER gets the percentile interval (:data:`EER_REASON`); any other statistic BCa.

    Examples
    --------
    >>> scores_auto_method("eer")[0]
    'percentile'
    >>> scores_auto_method("auc")[0]
    'bca'
    """
    return SCORES_AUTO.get(statistic, ("bca", AUTO_BCA_REASON))


def warn_few_eer_errors(eer: Any, n_pos: Any, n_neg: Any, what: str = "") -> str | None:
    """Warn (and return the message) for an EER with fewer than :data:`MIN_EER_ERRORS`
    errors in its smaller class (the smallest over the elements of an array, e.g. the
    groups of :func:`mlci.metric_by_group`).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     text = warn_few_eer_errors(0.02, 100, 900)
    >>> text.split(":")[0]
    'An EER of 0.02 with 2 errors in its smaller class (100 trials)'
    >>> warn_few_eer_errors(0.1, 100, 900) is None
    True
    """
    eer, n_pos, n_neg = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (eer, n_pos, n_neg))
    smaller = np.minimum(n_pos, n_neg)
    errors = eer * smaller
    ok = np.isfinite(errors)
    if not ok.any() or errors[ok].min() >= MIN_EER_ERRORS:
        return None
    i = int(np.flatnonzero(ok)[np.argmin(errors[ok])])
    text = (
        f"An EER of {eer[i]:.3g}{what} with {errors[i]:.2g} errors in its smaller class "
        f"({smaller[i]:.0f} trials): below {MIN_EER_ERRORS:g}, no interval held its level in "
        "mlci's coverage study (docs/validation.md, 'The Scores statistics': 2 errors in "
        "20-100 targets, percentile 0.86-0.92, BCa 0.90-0.93; fewer than one, 0.17-0.78), "
        "unless both classes are that small (2 errors in each: percentile 0.95-0.97). Treat "
        "the interval as optimistic, or collect more trials of that class."
    )
    warn(text, NearBoundWarning)
    return text


# ------------------------------------------------------- score intervals of an ROC point
def _counts_pair(a_name: str, a: Any, b_name: str, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two count arrays of the same length, finite and >= 0."""
    out = []
    for name, v in ((a_name, a), (b_name, b)):
        try:
            arr = np.asarray(v, dtype=float).ravel()
        except (TypeError, ValueError):
            raise TypeError(f"`{name}` must be counts (numbers >= 0); got {v!r}.") from None
        if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr < 0):
            raise ValueError(f"`{name}` must be counts (finite numbers >= 0); got {v!r}.")
        out.append(arr)
    if out[0].size != out[1].size:
        raise ValueError(
            f"`{a_name}` and `{b_name}` are counts at the same thresholds and must have the "
            f"same length; got {out[0].size} and {out[1].size}."
        )
    return out[0], out[1]


def _chi2_cut(confidence_level: float, alternative: str) -> float:
    """Squared normal quantile of a two-sided (or one-sided) score test at the level."""
    from scipy.special import ndtri

    tail = (1.0 - confidence_level) / (2.0 if alternative == "two-sided" else 1.0)
    return float(ndtri(1.0 - tail)) ** 2


def _hull(lo: np.ndarray, hi: np.ndarray, ok: np.ndarray, alternative: str) -> tuple[float, float]:
    """The hull of the accepted values over the thresholds, one-sided as asked."""
    if not ok.any():  # pragma: no cover - the polyline's point at the estimate is accepted
        return (0.0, 1.0)
    low = float(np.clip(lo[ok].min(), 0.0, 1.0)) if alternative != "less" else 0.0
    high = float(np.clip(hi[ok].max(), 0.0, 1.0)) if alternative != "greater" else 1.0
    return low, high


def _wilson_roots(
    events: Any, n: Any, cut: Any, sides: int = 2
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where ``(Y - n p)^2 / (n p (1 - p)) <= cut``: the roots of
    ``(n + cut) p^2 - (2 Y + cut) p + Y^2 / n`` (Wilson's interval when ``cut = z^2``),
    with Brown, Cai & DasGupta's (2001) modification near the bounds
    (:func:`_poisson_edges`; ``sides``: 2 for a two-sided interval, 1 for a one-sided,
    0 for none), and where it exists; then Wilson's own roots, as without the
    modification (where it moved no bound, the same): ``(lo, hi, ok, plain_lo,
    plain_hi)``."""
    plain_lo, plain_hi, ok = _roots(n + cut, -(2.0 * events + cut), events * events / n)
    lo, hi = _poisson_edges(plain_lo, plain_hi, events, n, cut, sides)
    return lo, hi, ok, plain_lo, plain_hi


#: Brown, Cai & DasGupta's ``k*``: Wilson's bound is replaced by Poisson's for 1 to this
#: many events (or non-events), 2 in at most :data:`POISSON_SMALL_N` trials
#: (:func:`mlci.intervals.formulas.modified_wilson_edges`, whose rule this is)
POISSON_EDGE_EVENTS = 3.0
POISSON_SMALL_N = 50.0


def _poisson_edges(
    lo: np.ndarray, hi: np.ndarray, events: Any, n: Any, cut: Any, sides: int
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson's roots ``lo``, ``hi`` of ``events`` in ``n`` at the squared quantile
    ``cut``, widened where 1 to ``k*`` events (or non-events; over conditions any
    effective count above 0 up to ``k*``) leave Wilson's dip: the
    bound becomes the one-sided Poisson bound ``Gamma(k)^-1(alpha) / n`` with
    ``alpha`` the tail of ``cut`` (two-sided: both tails, as Brown, Cai & DasGupta
    2001, sec. 4.1.1, and :func:`mlci.intervals.formulas.modified_wilson_edges` at the
    full quantile), never narrowing.  Wilson's lower bound for 1 event is about
    ``0.18 / n`` at 95%, so a rate just below it is covered only by the test sets without
    an event: ``exp(-0.18) = 0.84`` at every ``n`` (the design search's seed-12 #44: the
    FNR at a fixed FPR with about 0.15 expected misses in 130 positives, 0.897 of 600).

    Examples
    --------
    >>> lo, hi, *_ = _wilson_roots(np.array([1.0]), np.array([128.0]), 1.959964**2)
    >>> float(lo[0]) < 0.000401 + 1e-6 < 0.00111  # Poisson's 0.0513 / 128, not Wilson's 0.0014
    True
    """
    from scipy.special import gammaincinv, ndtr

    y, n_, c = np.broadcast_arrays(
        np.asarray(events, dtype=float), np.asarray(n, dtype=float), np.asarray(cut, dtype=float)
    )
    alpha = np.clip(sides * ndtr(-np.sqrt(np.maximum(c, 0.0))), 0.0, 1.0)
    k_star = np.where(n_ <= POISSON_SMALL_N, 2.0, POISSON_EDGE_EVENTS)
    tol = 1e-9 * np.maximum(n_, 1.0)
    safe_n = np.where(n_ > 0, n_, 1.0)
    usable = (alpha > 0.0) & (alpha < 1.0)
    # (over conditions the counts are effective ones, Y / D in n / D: any count in
    # (0, k*], the Poisson bound continuous in it)
    at_low = usable & (y > tol) & (y <= k_star + tol)
    at_high = usable & (n_ - y > tol) & (n_ - y <= k_star + tol)
    if not (np.any(at_low) or np.any(at_high)):
        return lo, hi
    a = np.where(usable, alpha, 0.5)
    low_p = gammaincinv(np.where(at_low, y, 1.0), a) / safe_n
    high_p = 1.0 - gammaincinv(np.where(at_high, n_ - y, 1.0), a) / safe_n
    lo = np.where(at_low, np.minimum(lo, low_p), lo)
    hi = np.where(at_high, np.maximum(hi, high_p), hi)
    return lo, hi


def _roots(a: Any, b: Any, c: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The real roots of ``a x^2 + b x + c`` (``a > 0``), elementwise, and where they exist."""
    disc = b * b - 4.0 * a * c
    ok = disc >= 0
    root = np.sqrt(np.where(ok, disc, 0.0))
    return (-b - root) / (2.0 * a), (-b + root) / (2.0 * a), ok


def _polyline_steps(y: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The segments of the ROC polyline through the points ``(y[i], x[i])`` (two counts
    of different classes at every threshold, one non-decreasing and the other
    non-increasing with it: :func:`error_counts`), as the indices ``(i0, i1)`` of each
    segment's ends, without empty segments.

    Examples
    --------
    >>> i0, i1 = _polyline_steps(np.array([0.0, 3.0, 0.0]), np.array([2.0, 0.0, 0.0]))
    >>> i0.tolist(), i1.tolist()  # (0, 2) -> (0, 0) -> (3, 0)
    ([0, 2], [2, 1])
    """
    o = np.lexsort((-x, y))
    step = (np.diff(y[o]) != 0) | (np.diff(x[o]) != 0)
    return o[:-1][step], o[1:][step]


def _eer_segment_roots(
    a: Any, b: Any, d1: Any, d2: Any, n_pos: Any, n_neg: Any, cut: float
) -> tuple[np.ndarray, np.ndarray]:
    """The outermost EERs accepted along each segment of the polyline: ``(values, ok)``.

    A segment runs from ``(FN, FP) = (a, b)`` by ``(d1, d2)``; ``e`` is accepted at ``t``
    in [0, 1] when ``(a + t d1 - n_pos e)^2 / n_pos + (b + t d2 - n_neg e)^2 / n_neg <=
    cut e (1 - e)``.  The left side minus the right is jointly convex in ``(t, e)``, so a
    segment's accepted set is an interval, whose ends are its ends' roots or, where the
    nearest point of the segment's line lies on the segment, the roots of the minimum
    over the line, a quadratic in ``e`` (the values: the lower and upper such roots of
    every segment, then its ends' roots)."""
    a, b, d1, d2 = (np.asarray(v, dtype=float) for v in (a, b, d1, d2))
    k = d1 * d1 * n_neg + d2 * d2 * n_pos
    cross = a * d2 - b * d1
    slope = n_pos * d2 - n_neg * d1
    # distance^2 of (n_pos e, n_neg e) to the line, scaled: (cross - e slope)^2 / k
    lo, hi, ok = _roots(slope * slope / k + cut, -(2.0 * cross * slope / k + cut), cross**2 / k)
    norm = d1 * d1 / n_pos + d2 * d2 / n_neg

    def on_segment(e: np.ndarray) -> np.ndarray:
        t = -((a - n_pos * e) * d1 / n_pos + (b - n_neg * e) * d2 / n_neg) / norm
        return (t >= 0.0) & (t <= 1.0)

    # and its ends (its vertices' roots where n_pos, n_neg are theirs; not where a
    # caller scales a segment by its own design effects)
    ends = [
        _roots(n_pos + n_neg + cut, -(2.0 * (f + g) + cut), f * f / n_pos + g * g / n_neg)
        for f, g in ((a, b), (a + d1, b + d2))
    ]
    vals = np.r_[lo, hi, ends[0][0], ends[0][1], ends[1][0], ends[1][1]]
    oks = np.r_[
        ok & on_segment(lo), ok & on_segment(hi), ends[0][2], ends[0][2], ends[1][2], ends[1][2]
    ]
    return vals, oks


def _rate_segment_bounds(
    y0: Any,
    dy: Any,
    n: Any,
    x0: Any,
    dx: Any,
    inner: float,
    var: Any,
    cut: float,
    sides: int = 2,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rates accepted inside segments of the polyline along which the other count
    moves (``dx != 0``), per segment ``(lo, hi)``, NaN where none: along ``(y0 + t dy,
    x0 + t dx)``, ``t`` in [0, 1], ``p`` is accepted when ``(X - inner)^2 / var +
    (Y - n p)^2 / (n p (1 - p)) <= cut`` at some ``t``.  Where ``Y`` is constant that is
    Wilson's interval at the segment's smallest first term; where both move (a tie of
    both classes), the union over ``t`` of intervals that move continuously: from the
    rate at the point nearest ``inner`` outwards, by bisection on the statistic minimised
    over ``t`` (a quadratic in ``t``).  (Along a segment where ``Y`` moves alone the
    vertices' intervals hold every point's.)  Then the same without the Poisson edge
    (:func:`_wilson_roots`' plain roots): ``(lo, hi, plain_lo, plain_hi)``."""
    y0, dy, n, x0, dx, var = np.broadcast_arrays(
        *(np.asarray(v, dtype=float) for v in (y0, dy, n, x0, dx, var))
    )
    t0 = np.clip((inner - x0) / dx, 0.0, 1.0)  # the point nearest the operating point
    d0 = (x0 + t0 * dx - inner) ** 2 / var
    lo, hi, ok, plain_lo, plain_hi = _wilson_roots(y0, n, np.maximum(cut - d0, 0.0), sides)
    ok &= d0 <= cut
    lo, hi = np.where(ok, lo, np.nan), np.where(ok, hi, np.nan)
    plain_lo, plain_hi = np.where(ok, plain_lo, np.nan), np.where(ok, plain_hi, np.nan)
    both = np.flatnonzero(ok & (dy != 0))
    if both.size:
        y0, dy, n, x0, dx, var = (v[both] for v in (y0, dy, n, x0, dx, var))
        p0 = (y0 + t0[both] * dy) / n

        def accepts(p: np.ndarray) -> np.ndarray:
            m = n * p * (1.0 - p)  # 0 only where the rate there is that end already
            ex, ey = x0 - inner, y0 - n * p
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.clip(-(ex * dx / var + ey * dy / m) / (dx * dx / var + dy * dy / m), 0, 1)
                return (ex + t * dx) ** 2 / var + (ey + t * dy) ** 2 / m <= cut

        for out, plain, edge in ((lo, plain_lo, 0.0), (hi, plain_hi, 1.0)):
            good, bad = p0.copy(), np.full_like(p0, edge)
            for _ in range(64):
                mid = 0.5 * (good + bad)
                inside = accepts(mid)
                good, bad = np.where(inside, mid, good), np.where(inside, bad, mid)
            out[both] = good
            plain[both] = good
    return lo, hi, plain_lo, plain_hi


def eer_score_interval(
    misses: Any,
    false_alarms: Any,
    n_pos: float,
    n_neg: float,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
) -> tuple[float, float]:
    """The EER's score interval, profiled over the threshold, from the error counts.

    At the threshold where both error rates equal the EER ``e``, the misses are
    Binomial(``n_pos``, e) and the false alarms Binomial(``n_neg``, e), independently.
    ``e`` is accepted when, at some point of the ROC polyline, Pearson's statistic of both
    counts, ``(FN - n_pos e)^2 / (n_pos e (1 - e)) + (FP - n_neg e)^2 / (n_neg e (1 -
    e))``, is at most the squared normal quantile (a chi-square with one degree of
    freedom: the threshold is fitted).  The polyline is the curve the EER is read on: the
    counts at every threshold and, between two adjacent thresholds, the expected counts
    of the randomized threshold that mixes them (through a tie of ``k`` positives and
    ``m`` negatives, the only way to reach the rates inside it).  Per threshold the test
    is a quadratic inequality in ``e``, and per segment one in ``e`` at the segment's
    nearest point (:func:`_eer_segment_roots`), solved in closed form; the interval is the
    hull of the solutions.  It is never empty and holds the estimate (whose point has
    the statistic 0), and it grows with ``confidence_level``.  With classes of equal
    size and ``FN = FP`` at a threshold it is Wilson's (1927) interval of ``FN + FP``
    errors in ``n_pos + n_neg`` trials.

    Parameters
    ----------
    misses, false_alarms : array-like
        The numbers of positives decided negative and of negatives decided positive at
        every threshold (same length; any order: the polyline joins them sorted by
        misses, then false alarms downwards).
    n_pos, n_neg : float
        The numbers of positives and negatives (> 0).
    confidence_level : float, default 0.95
    alternative : {"two-sided", "less", "greater"}, default "two-sided"

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> lo, hi = eer_score_interval([0, 5, 10], [10, 5, 0], 50, 50)
    >>> round(lo, 4), round(hi, 4)  # Wilson's interval of 10 errors in 100 trials
    (0.0552, 0.1744)
    """
    fn, fp = _counts_pair("misses", misses, "false_alarms", false_alarms)
    n_pos = check_nonnegative("n_pos", n_pos, strict=True)
    n_neg = check_nonnegative("n_neg", n_neg, strict=True)
    cut = _chi2_cut(check_confidence_level(confidence_level), check_alternative(alternative))
    # at a point: (FN - n_p e)^2 / n_p + (FP - n_n e)^2 / n_n <= cut e (1 - e), a
    # quadratic in e; along a segment the same at its nearest point (_eer_segment_roots)
    lo, hi, ok = _roots(
        n_pos + n_neg + cut, -(2.0 * (fn + fp) + cut), fn * fn / n_pos + fp * fp / n_neg
    )
    i0, i1 = _polyline_steps(fn, fp)
    e, e_ok = _eer_segment_roots(fn[i0], fp[i0], fn[i1] - fn[i0], fp[i1] - fp[i0],
                                n_pos, n_neg, cut)  # fmt: skip
    return _hull(np.r_[lo, e], np.r_[hi, e], np.r_[ok, e_ok], alternative)


def rate_score_interval(
    events: Any,
    n_events: float,
    x_events: Any,
    n_x: float,
    at: float,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    *,
    poisson_edge: bool = True,
) -> tuple[float, float]:
    """The score interval of a rate at the threshold where another rate is ``at``,
    profiled over the threshold.

    ``events`` (e.g. the misses, of ``n_events`` positives) and ``x_events`` (e.g. the
    false alarms, of ``n_x`` negatives) at every threshold.  At the true threshold both
    counts are binomial, ``x_events`` with rate ``at``.  The rate ``p`` is accepted when,
    at some point of the ROC polyline, ``d = (X - n_x at)^2 / (n_x at (1 - at))`` plus
    ``(Y - n p)^2 / (n p (1 - p))`` is at most the squared normal quantile ``c``: at a
    threshold, Wilson's interval of ``Y`` in ``n`` with ``z^2 = c - d``, hulled over the
    thresholds with ``d <= c``, and inside the segments between adjacent thresholds
    (the randomized thresholds that mix them, on which the estimate is read: pROC's
    ``coords``) the same at their points (:func:`_rate_segment_bounds`).  The polyline
    reaches ``X = n_x at`` (``d = 0``) for any ``0 < at < 1``, so the interval is never
    empty, holds the estimate and grows with ``confidence_level``, also where tied
    scores leave no threshold near ``at``.  Where the threshold is known (one
    threshold with ``d = 0``) it is Wilson's interval, with Brown, Cai & DasGupta's
    Poisson bound for 1 to 3 events (or non-events; :func:`_poisson_edges`): the modified
    Wilson interval of :func:`mlci.proportion_ci`.

    Parameters
    ----------
    events : array-like
        The count of the rate's events at every threshold (misses for the FNR).
    n_events : float
        The size of the rate's class.
    x_events : array-like
        The count of the other class's events at every threshold (false alarms for
        the FPR), same length.
    n_x : float
        The size of the other class.
    at : float in [0, 1]
        The other rate at the operating point.
    confidence_level : float, default 0.95
    alternative : {"two-sided", "less", "greater"}, default "two-sided"
    poisson_edge : bool, default True
        Brown, Cai & DasGupta's Poisson bound for 1 to 3 events (:func:`_poisson_edges`);
        False: Wilson's roots alone (the interval before session 10, for comparison).

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> lo, hi = rate_score_interval([2], 20, [100], 1000, 0.1)
    >>> round(lo, 4), round(hi, 4)  # the modified Wilson interval of 2 in 20 (d = 0)
    (0.0178, 0.301)
    """
    reads = _rate_score_reads(events, n_events, x_events, n_x, at, confidence_level, alternative)
    return reads[0] if poisson_edge else reads[1]


def _rate_score_reads(
    events: Any,
    n_events: float,
    x_events: Any,
    n_x: float,
    at: float,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
) -> tuple[tuple[float, float], tuple[float, float]]:
    """:func:`rate_score_interval` with and without the Poisson edge, from one read (the
    Wilson roots are the same; :func:`_poisson_edges` only widens some of them): where
    the two differ, the edge moved a bound (:func:`with_edge_flag`).

    Examples
    --------
    >>> edge, plain = _rate_score_reads([2], 20, [100], 1000, 0.1)
    >>> [round(v, 4) for v in edge], [round(v, 4) for v in plain]  # plain: Wilson's roots
    ([0.0178, 0.301], [0.0279, 0.301])
    """
    y, x = _counts_pair("events", events, "x_events", x_events)
    n_events = check_nonnegative("n_events", n_events, strict=True)
    n_x = check_nonnegative("n_x", n_x, strict=True)
    at = check_nonnegative("at", at)
    if at > 1:
        raise ValueError(f"`at` is a rate and must be in [0, 1]; got {at!r}.")
    cut = _chi2_cut(check_confidence_level(confidence_level), check_alternative(alternative))
    if 0.0 < at < 1.0:
        d = (x - n_x * at) ** 2 / (n_x * at * (1.0 - at))
    else:  # a rate of 0 or 1: only the thresholds that reach it exactly
        d = np.where(np.abs(x - n_x * at) < 0.5, 0.0, np.inf)
    sides = 2 if alternative == "two-sided" else 1
    lo, hi, ok, plain_lo, plain_hi = _wilson_roots(y, n_events, np.maximum(cut - d, 0.0), sides)
    ok &= d <= cut
    if 0.0 < at < 1.0:  # (a rate of 0 or 1 is reached at a vertex or nowhere)
        i0, i1 = _polyline_steps(y, x)
        i0, i1 = i0[x[i1] != x[i0]], i1[x[i1] != x[i0]]
        var = n_x * at * (1.0 - at)
        s_lo, s_hi, sp_lo, sp_hi = _rate_segment_bounds(
            y[i0], y[i1] - y[i0], n_events, x[i0], x[i1] - x[i0], n_x * at, var, cut, sides
        )
        lo, hi, ok = np.r_[lo, s_lo], np.r_[hi, s_hi], np.r_[ok, ~np.isnan(s_lo)]
        plain_lo, plain_hi = np.r_[plain_lo, sp_lo], np.r_[plain_hi, sp_hi]
    return _hull(lo, hi, ok, alternative), _hull(plain_lo, plain_hi, ok, alternative)


# ------------------------------------------------------- auto's score interval, its rules
#: an EER of independent trials with fewer errors than this in its smaller class (the
#: estimate's count, ``EER x min(n_pos, n_neg)``, as :data:`MIN_EER_ERRORS`) gets
#: :func:`eer_score_interval` under ``auto``.  ``scripts/scores_few_errors_sweep.py``
#: (docs/validation.md, "EER and operating points with few errors"; 150-300 test sets a
#: design, B = 1000): below one expected error the bootstrap intervals covered 0.27-0.91
#: (percentile 0.27-0.83, BCa 0.38-0.91; most misses in the test sets whose estimate has
#: no error) and the score interval 0.91-0.99; the threshold was read post hoc over 1,
#: 1.5, 2, 3 and 5 errors (the estimate's): with 1.5-4 expected errors every threshold
#: from 1 to 2 gave the same or nearer coverage (0.955-0.995; percentile alone 0.85-0.97),
#: 3 and 5 over-covered more (up to 0.995) where percentile held (0.955-0.97 at 3-4
#: errors), so the smallest, 1: it changes the fewest intervals
MIN_EER_SCORE_ERRORS = 1.0
#: why ``auto`` gives the EER's score interval (``method_reason``)
EER_SCORE_REASON = (
    "wilson: the EER's score interval, Wilson's statistic of the misses and false alarms "
    "profiled over the threshold (mlci.engine.scores_rules.eer_score_interval), for an "
    "EER of independent trials with fewer than one error in its smaller class, where the "
    "bootstrap cannot see the errors the test set does not hold: in mlci's sweep "
    "(scripts/scores_few_errors_sweep.py; docs/validation.md, 'EER and operating points "
    "with few errors': 0.2-1 expected errors, 3-500 targets, 35-1,000 trials) it covered "
    "0.91-0.99 where percentile covered 0.27-0.83 and BCa 0.38-0.91; it is conservative "
    "(0.97-0.98 with many errors) and up to 10 times BCa's width with 3-10 targets"
)
#: a rate at a fixed other rate (``operating_point_ci``, ``Scores.bootstrap_ci("fnr_at_fpr",
#: at=...)``) whose own class expects fewer events than this at the estimate
#: (``min(rate, 1 - rate) x its class's size``), or whose threshold rests on fewer
#: (``min(at, 1 - at) x the other class's size``) warns (:func:`warn_few_op_events`),
#: unless ``auto`` gives it the score interval.  The sweep (72 designs, FNR at FPR 0.01,
#: 0.05, 0.2, 100-1,000 trials, 10-500 targets, 0.5-5 expected misses, 120 test sets
#: each): with 0.5-2 expected misses BCa covered 0.35-0.97 (percentile 0.38-0.97), with
#: 5 and a threshold on at least 5 false alarms 0.93-0.99; the seed-7 search's s7 #6 (12
#: targets, FNR 0.15 at FPR 0.033: 1.8 misses) BCa 0.860, percentile 0.907 (300 test
#: sets), warned in 17 of 300 before this rule.  The same count of the threshold's class:
#: below 5 false alarms the rate's interval, bootstrap or score, cannot locate the
#: threshold (BCa 0.35-0.98; the score interval 0.96-1.00 by spanning 0.4-1.0 of [0, 1])
MIN_OP_EVENTS = 5.0
#: why ``auto`` gives such a rate the score interval (``method_reason``)
OP_SCORE_REASON = (
    "wilson: the score interval of a rate at a fixed other rate, Wilson's statistic of "
    "both classes' counts profiled over the threshold "
    "(mlci.engine.scores_rules.rate_score_interval), for a rate of independent trials "
    "with fewer than 5 expected events in its class at the operating point and a "
    "threshold resting on at least 5 of the other: in mlci's sweep "
    "(scripts/scores_few_errors_sweep.py; docs/validation.md, 'EER and operating points "
    "with few errors': 36 designs, 0.5-2 expected misses, 100-1,000 trials) it covered "
    "0.94-1.00 where BCa covered 0.43-0.97 and percentile 0.45-0.97, at 0.9-4.2 times "
    "BCa's median width (1.0-2.0 with 2 expected misses); with the threshold known it is "
    "Wilson's interval"
)
#: the rates of each class, and their complements (mlci.scores: ``fnr = 1 - tpr``)
_ERROR_OF = {"fnr": ("fn", False), "tpr": ("fn", True), "fpr": ("fp", False), "tnr": ("fp", True)}


@dataclass(frozen=True)
class ScoreInterval:
    """What re-reads ``auto``'s score interval of an ROC point at any level: the error
    counts at every threshold (:func:`error_counts`) and the point.

    ``kind`` ``"eer"`` (:func:`eer_score_interval`) or ``"rate"``
    (:func:`rate_score_interval` of ``events`` at ``x_events = at``); ``flip``: the
    interval of one minus that rate (a TPR from the misses).
    """

    kind: str
    events: np.ndarray
    n_events: float
    x_events: np.ndarray
    n_x: float
    at: float = 0.0
    flip: bool = False

    def __call__(self, confidence_level: float, alternative: str) -> tuple[Any, ...]:
        if self.kind == "eer":  # (no Poisson edge: one read)
            return flipped(self._read, self.flip, confidence_level, alternative)
        return with_edge_flag(self._reads, self.flip, confidence_level, alternative)

    def _read(self, confidence_level: float, alt: str) -> tuple[float, float]:
        return eer_score_interval(
            self.events, self.x_events, self.n_events, self.n_x, confidence_level, alt
        )

    def _reads(self, confidence_level: float, alt: str) -> Any:
        return _rate_score_reads(
            self.events, self.n_events, self.x_events, self.n_x, self.at, confidence_level, alt
        )


def with_edge_flag(
    reads: Callable[[float, str], tuple[tuple[float, float], tuple[float, float]]],
    flip: bool,
    confidence_level: float,
    alternative: str,
) -> tuple[Any, ...]:
    """:func:`flipped` of the first interval of ``reads`` (with and without the Poisson
    edge, from one read: :func:`_rate_score_reads`), with ``{"modified": True}`` where the
    Poisson bound of :func:`_poisson_edges` moved a bound (where the two differ): as the
    modified Wilson interval of a proportion, whose one-sided 95% bound there is the
    two-sided 95% one (``alpha = 1 - confidence_level``), not the 90% one."""
    (lo, hi), plain = reads(confidence_level, _flipped_alternative(flip, alternative))
    out = (1.0 - hi, 1.0 - lo) if flip else (lo, hi)
    without = (1.0 - plain[1], 1.0 - plain[0]) if flip else plain
    return (*out, {"modified": True}) if out != without else out


def _flipped_alternative(flip: bool, alternative: str) -> str:
    """The alternative of one minus a rate (``flip``), or ``alternative`` itself."""
    if flip and alternative != "two-sided":
        return "greater" if alternative == "less" else "less"
    return alternative


def flipped(
    read: Callable[[float, str], tuple[float, float]],
    flip: bool,
    confidence_level: float,
    alternative: str,
) -> tuple[float, float]:
    """``read(confidence_level, alternative)``, or with ``flip`` the interval of one minus
    that rate (the alternative turned around)."""
    lo, hi = read(confidence_level, _flipped_alternative(flip, alternative))
    return (1.0 - hi, 1.0 - lo) if flip else (lo, hi)


def error_counts(
    u_neg: np.ndarray, n_neg: np.ndarray, u_pos: np.ndarray, n_pos: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Misses and false alarms at every threshold between the distinct oriented scores
    ``u_neg``, ``u_pos`` (sorted) with their sample counts ``n_neg``, ``n_pos``: a sample
    is decided positive at or above the threshold, or, for the ties, above it (both).

    Examples
    --------
    >>> fn, fp = error_counts(np.array([0.0, 1.0]), np.array([1.0, 1.0]),
    ...                       np.array([1.0, 2.0]), np.array([1.0, 1.0]))
    >>> fn.tolist(), fp.tolist()
    ([0.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 2.0], [2.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    """
    thr = np.concatenate([np.union1d(u_neg, u_pos), [np.inf]])
    cum_pos = np.concatenate([[0.0], np.cumsum(n_pos)])
    cum_neg = np.concatenate([[0.0], np.cumsum(n_neg)])
    fn, fp = [], []
    for side in ("left", "right"):
        fn.append(cum_pos[np.searchsorted(u_pos, thr, side=side)])
        fp.append(cum_neg[-1] - cum_neg[np.searchsorted(u_neg, thr, side=side)])
    return np.concatenate(fn), np.concatenate(fp)


def op_events(rate: str, x: str, estimate: Any, at: Any, n_pos: float, n_neg: float) -> Any:
    """``(k_rate, k_x)``: the events behind a rate at a fixed other rate, the smaller of
    the rate's and its complement's count in its class at the estimate, and the same of
    ``at`` in the other class (None where both rates are of one class).

    Examples
    --------
    >>> op_events("fnr", "fpr", 0.15, 0.033, 12, 591)
    (1.7999999999999998, 19.503)
    """
    (ey, _), (ex, _) = _ERROR_OF[rate], _ERROR_OF[x]
    if ey == ex:
        return None
    n_y, n_x = (n_pos, n_neg) if ey == "fn" else (n_neg, n_pos)
    p, a = np.asarray(estimate, dtype=float), np.asarray(at, dtype=float)
    k_y = np.minimum(p, 1.0 - p) * n_y
    k_x = np.minimum(a, 1.0 - a) * n_x
    if k_y.ndim == 0:
        return float(k_y), float(k_x)
    return k_y, k_x


def op_score_interval(
    rate: str, x: str, at: float, fn: np.ndarray, fp: np.ndarray, n_pos: float, n_neg: float
) -> ScoreInterval:
    """The :class:`ScoreInterval` of ``rate`` at ``x = at`` from the error counts."""
    (ey, flip), (ex, xflip) = _ERROR_OF[rate], _ERROR_OF[x]
    counts = {"fn": (fn, n_pos), "fp": (fp, n_neg)}
    (y, n_y), (xe, n_x) = counts[ey], counts[ex]
    return ScoreInterval("rate", y, n_y, xe, n_x, 1.0 - at if xflip else at, flip)


def warn_few_op_events(
    name: str, k_rate: Any, k_x: Any, at: Any, score: bool = False
) -> str | None:
    """Warn (and return the message) for a rate at a fixed other rate resting on fewer
    than :data:`MIN_OP_EVENTS` events (:func:`op_events`; the smallest over an array);
    ``score``: auto gave the score interval (:data:`OP_SCORE_REASON`), which holds with
    few events of the rate itself, so only a threshold on few events warns.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     text = warn_few_op_events("fnr_at_fpr", 1.8, 19.5, 0.033)
    >>> text.split(" of its own")[0]
    'fnr_at_fpr rests on 1.8 expected events'
    >>> warn_few_op_events("fnr_at_fpr", 1.8, 19.5, 0.033, score=True) is None
    True
    """
    k_y, k_x, a = np.broadcast_arrays(
        *(np.atleast_1d(np.asarray(v, dtype=float)) for v in (k_rate, k_x, at))
    )
    # a rate of exactly 0 or 1 is the extreme score's point, not an estimated rate
    inner = (a > 0) & (a < 1)
    few = np.where(inner, np.minimum(np.inf if score else k_y, k_x), np.inf)
    if not np.isfinite(few).any():
        return None
    if few.min() >= MIN_OP_EVENTS:
        return None
    i = int(np.argmin(few))
    text = (
        f"{name} rests on {k_y[i]:.2g} expected events of its own class and {k_x[i]:.2g} of "
        f"the other at the operating point: below {MIN_OP_EVENTS:g}, no bootstrap interval "
        "held its level in mlci's sweep (docs/validation.md, 'EER and operating points with "
        "few errors': 0.5-2 expected events, BCa 0.35-0.97, percentile 0.38-0.97), and a "
        "threshold on fewer than that many events of the other class cannot be located "
        "(the score interval covers there by spanning most of [0, 1]). Treat the interval "
        "as optimistic, or collect more trials of that class."
    )
    warn(text, NearBoundWarning)
    return text


def warn_few_dcf_events(misses: float, false_alarms: float, kind: str) -> str | None:
    """Warn (and return the message) for a detection cost whose threshold (the minimum's,
    or the actual one) has fewer than :data:`MIN_OP_EVENTS` misses or false alarms.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     text = warn_few_dcf_events(6, 0, "min")
    >>> text.split(":")[0]
    'The minimum DCF is reached with 6 misses and 0 false alarms'
    >>> warn_few_dcf_events(30, 14, "actual") is None
    True
    """
    if min(misses, false_alarms) >= MIN_OP_EVENTS:
        return None
    what = "minimum DCF is reached" if kind == "min" else "actual DCF is"
    text = (
        f"The {what} with {misses:.0f} misses and {false_alarms:.0f} false alarms: "
        f"below {MIN_OP_EVENTS:g} of either, no interval held its level in mlci's coverage "
        "study (docs/validation.md, 'The Scores statistics', the minimum DCF: 0-4 false "
        "alarms at p_target 0.01, BCa 0.60-0.89, percentile 0.39-0.77). Treat the interval "
        "as optimistic, or collect more trials."
    )
    warn(text, NearBoundWarning)
    return text
