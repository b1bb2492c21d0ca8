"""Verification metrics with intervals: EER, detection cost (DCF), Cllr and minimum Cllr.

These are what speaker-, face- and language-recognition papers report.  Every interval
is a bootstrap of a :class:`mlci.Scores` object, stratified by class by default.

* EER: where FNR = FPR on the ROC polyline (see :meth:`mlci.Scores.eer`), with the
  threshold, both from the same replicates.
* DCF (NIST SRE): ``C_miss * P_miss * p_target + C_fa * P_fa * (1 - p_target)``,
  normalised by ``min(C_miss * p_target, C_fa * (1 - p_target))`` (the cost of the best
  decision without the system).  The *actual* DCF is at a threshold (by default the
  Bayes threshold ``log(C_fa (1 - p) / (C_miss p))`` of log-likelihood-ratio scores); the
  *minimum* DCF is over every threshold.
* Cllr (Brummer & du Preez 2006): ``(mean_pos log2(1 + e^-s) + mean_neg log2(1 + e^s)) / 2``
  for natural-log likelihood-ratio scores ``s``; the minimum Cllr is the Cllr after the
  optimal monotone recalibration, computed by pool-adjacent-violators (PAV), i.e. on
  the ROC convex hull.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from scipy.special import xlogy

from ..engine.scores_rules import error_counts, warn_few_dcf_events
from ..feedback import reports_progress, warn
from ..inputs import check_choice, check_flag, fill_doc, knobs_in_config, renamed
from ..inputs.resampling import Resampling, check_resampling, resampling_keywords
from ..results import BootstrapResult, Result, per_confidence_level
from ._cllr_rules import (
    CLLR_T_REASON,
    cllr_effective_trials,
    cllr_se_rows,
    warn_few_costly_trials,
    warn_min_cllr_bias,
)
from ._roc import _counts_at, _Layout, _point_rates_rows, _View
from ._specs import _Part, _resolve, _Spec
from .scores import Scores, check_scores

__all__ = [
    "EERResult",
    "cllr",
    "cllr_ci",
    "dcf_ci",
    "detection_cost",
    "eer_ci",
    "min_cllr",
    "min_detection_cost",
]

_LN2 = np.log(2.0)


@dataclass(frozen=True, repr=False)
class EERResult(Result):
    """Bootstrap intervals of the equal error rate and of its threshold (same replicates).

    Attributes
    ----------
    eer : BootstrapResult
        The equal error rate (``metric="eer"``), in [0, 1].
    threshold : BootstrapResult
        The threshold where it is reached (``metric="eer_threshold"``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = Scores(rng.normal(2, 1, 200), rng.normal(0, 1, 200))
    >>> res = eer_ci(s, rng=0, n_resamples=200)
    >>> res  # doctest: +NORMALIZE_WHITESPACE
    EERResult(eer=0.15 95% CI [0.1149, 0.1801] (percentile),
              threshold=0.9469 95% CI [0.8047, 1.211] (bca))
    >>> res.to_frame()[["metric", "estimate", "low", "high"]].round(3)
              metric  estimate    low   high
    0            eer     0.150  0.115  0.180
    1  eer_threshold     0.947  0.805  1.211
    """

    eer: BootstrapResult
    threshold: BootstrapResult

    def __repr__(self) -> str:
        e, t = self.eer, self.threshold
        lvl = f"{e.confidence_level:.0%}"
        # each its own method under "auto" (the EER percentile, the threshold BCa)
        first = "" if e.method == t.method else f" ({e.method})"
        return (
            f"EERResult(eer={e.estimate:.4g} {lvl} CI [{e.confidence_interval.low:.4g}, "
            f"{e.confidence_interval.high:.4g}]{first}, threshold={t.estimate:.4g} {lvl} CI "
            f"[{t.confidence_interval.low:.4g}, {t.confidence_interval.high:.4g}] ({t.method}))"
        )

    def rows(self) -> list[dict[str, Any]]:
        """Two rows, the EER's and the threshold's (the rows of a
        :class:`~mlci.BootstrapResult`)."""
        return [*self.eer.rows(), *self.threshold.rows()]


@resampling_keywords
@knobs_in_config
@reports_progress
@per_confidence_level
def eer_ci(
    scores: Scores,
    *,
    n_resamples: int = 1000,
    confidence_level: float | list[float] = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    rng: Any = None,
    conditions: Any = None,
    strata: Any = None,
    resampling: Resampling | None = None,
    dropna: bool = False,
) -> EERResult:
    """Bootstrap intervals of the EER and of the threshold where it is reached.

    Without ``conditions`` the replicates are drawn by the exact lazy multinomial
    sampler (O(log n) per replicate, see :mod:`mlci.scores.scores`).

    Parameters
    ----------
    scores : Scores
    n_resamples, confidence_level, method, alternative, rng
        Bootstrap options as in :meth:`mlci.Scores.bootstrap_ci` (every interval method;
        the EER's interval stays in [0, 1], the threshold's is unbounded).
        ``method="auto"`` gives the EER the percentile interval (the best in mlci's
        coverage study, docs/validation.md, "The Scores statistics"; a
        :class:`~mlci.NearBoundWarning` below 5 errors in the smaller class) and the
        threshold BCa, each from the same replicates (``details["method_reason"]``).
        A list of levels returns a tuple of results, one per level (same replicates).
    conditions : array-like, or list of array-like, optional
        Condition (speaker, session...) of every sample, resampled as a unit (nested: a
        list of levels, top first); without it trials are assumed independent and
        intervals are too narrow when they are not.
    strata, dropna
        As in :meth:`mlci.Scores.bootstrap_ci` (by default positives and negatives are
        resampled separately).
    resampling : mlci.Resampling, optional
        How the replicates are drawn beyond ``conditions`` and ``strata``: ``stratify``,
        ``two_stage``, ``weights``, ``algorithm`` (see :class:`mlci.Resampling`; default: the
        classical bootstrap).

    Returns
    -------
    EERResult
        ``eer`` and ``threshold``, each a :class:`mlci.BootstrapResult` from the same
        replicates.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = Scores(rng.normal(2, 1, 1000), rng.normal(0, 1, 3000))
    >>> res = eer_ci(s, rng=0, n_resamples=500)
    >>> round(res.eer.estimate, 3), bool(res.eer.confidence_interval.high < 0.2)
    (0.163, True)
    """
    rs = check_resampling(
        resampling, ("stratify", "two_stage", "weights", "algorithm"), "mlci.eer_ci", stratify=None
    )
    algorithm = rs.algorithm
    sc = check_scores(scores)

    def make(s: Scores) -> _Spec:
        return _resolve(s, "eer_and_threshold", {})

    eer, thr = sc._bootstrap(
        make,
        resampling=rs,
        algorithm=algorithm,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
        conditions=conditions,
        strata=strata,
        dropna=dropna,
    )
    return EERResult(eer, thr)


# ----------------------------------------------------------------------------- DCF
def _check_costs(p_target: Any, c_miss: Any, c_fa: Any) -> tuple[float, float, float]:
    out = []
    for name, v in (("p_target", p_target), ("c_miss", c_miss), ("c_fa", c_fa)):
        if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
            raise TypeError(f"`{name}` must be a number; got {v!r}.")
        out.append(float(v))
    p, cm, cf = out
    if not 0 < p < 1:
        raise ValueError(f"`p_target` must be strictly between 0 and 1; got {p}.")
    for name, c in (("c_miss", cm), ("c_fa", cf)):
        if not (np.isfinite(c) and c > 0):
            raise ValueError(f"`{name}` must be a positive finite cost; got {c}.")
    return p, cm, cf


def _bayes_threshold(sc: Scores, p: float, cm: float, cf: float) -> float:
    if sc.score_class != "pos":
        raise ValueError(
            "The Bayes threshold assumes log-likelihood-ratio scores (score_class='pos'); "
            "pass `threshold=` explicitly."
        )
    return float(np.log(cf * (1 - p) / (cm * p)))


def _dcf_rows(lay: _Layout, v: _View, p: float, cm: float, cf: float, norm: bool) -> np.ndarray:
    tnr, p_miss, ok = _point_rates_rows(lay, v)
    p_fa = 1 - tnr
    cost = (cm * p * p_miss + cf * (1 - p) * p_fa).min(axis=1)
    if norm:
        cost = cost / min(cm * p, cf * (1 - p))
    return np.where(ok, cost, np.nan)


def detection_cost(
    scores: Scores,
    p_target: float,
    *,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
    threshold: float | None = None,
    normalize: bool = True,
) -> float:
    """Actual detection cost at ``threshold`` (default: the Bayes threshold for LLRs).

    ``DCF = c_miss * p_target * P_miss(t) + c_fa * (1 - p_target) * P_fa(t)`` (NIST SRE).

    Parameters
    ----------
    scores : Scores
    p_target : float in (0, 1)
        Prior probability of a target (positive) trial.
    c_miss, c_fa : float > 0, default 1
        Costs of a miss (false negative) and of a false alarm (false positive).
    threshold : float, optional
        Decision threshold; default ``log(c_fa (1 - p_target) / (c_miss p_target))``, the
        Bayes decision for natural-log likelihood ratios (``score_class="pos"`` only).
    normalize : bool, default True
        Divide by ``min(c_miss * p_target, c_fa * (1 - p_target))``, the cost of the best
        trivial system (always accept or always reject), as NIST SRE does.

    Returns
    -------
    float

    Examples
    --------
    >>> s = Scores(pos=[1.0, 2.0, 3.0, -0.5], neg=[-2.0, -1.0, 0.5, -3.0])
    >>> detection_cost(s, 0.5)   # P_miss = P_fa = 1/4 at threshold 0
    0.5
    """
    sc = check_scores(scores)
    p, cm, cf = _check_costs(p_target, c_miss, c_fa)
    check_flag("normalize", normalize)
    t = _bayes_threshold(sc, p, cm, cf) if threshold is None else _check_scalar(threshold)
    cost = cm * p * sc.fnr(t) + cf * (1 - p) * sc.fpr(t)
    return float(cost / min(cm * p, cf * (1 - p)) if normalize else cost)


def min_detection_cost(
    scores: Scores,
    p_target: float,
    *,
    c_miss: float = 1.0,
    c_fa: float = 1.0,
    normalize: bool = True,
) -> float:
    """Minimum detection cost over every threshold (NIST SRE minDCF).

    Parameters
    ----------
    scores : Scores
    p_target : float in (0, 1)
        Prior probability of a target (positive) trial.
    c_miss, c_fa : float > 0, default 1
        Costs of a miss (false negative) and of a false alarm (false positive).
    normalize : bool, default True
        Divide by ``min(c_miss * p_target, c_fa * (1 - p_target))``, the cost of the best
        trivial system (always accept or always reject), as NIST SRE does.

    Returns
    -------
    float

    Examples
    --------
    >>> s = Scores(pos=[1.0, 2.0, 3.0, -0.5], neg=[-2.0, -1.0, 0.5, -3.0])
    >>> min_detection_cost(s, 0.5)   # threshold just above 0.5: P_miss = 1/4, P_fa = 0
    0.25
    """
    sc = check_scores(scores)
    p, cm, cf = _check_costs(p_target, c_miss, c_fa)
    check_flag("normalize", normalize)
    return float(_dcf_rows(sc._lay, sc._full_view(), p, cm, cf, normalize)[0])


@resampling_keywords
@knobs_in_config
@reports_progress
@per_confidence_level
@fill_doc
def dcf_ci(
    scores: Scores,
    p_target: float,
    *,
    kind: str = "min",
    c_miss: float = 1.0,
    c_fa: float = 1.0,
    threshold: float | None = None,
    normalize: bool = True,
    n_resamples: int = 1000,
    confidence_level: float | list[float] = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    rng: Any = None,
    conditions: Any = None,
    strata: Any = None,
    resampling: Resampling | None = None,
    dropna: bool = False,
) -> BootstrapResult:
    """Bootstrap interval of the minimum (``kind="min"``) or actual DCF.

    Parameters
    ----------
    scores : Scores
    p_target : float in (0, 1)
        Prior probability of a target (positive) trial.
    kind : {"min", "actual"}, default "min"
        Minimum over thresholds (re-optimised in every replicate) or the cost at a fixed
        threshold (see :func:`detection_cost`).
    c_miss, c_fa : float > 0, default 1
        Costs of a miss (false negative) and of a false alarm (false positive).
    threshold : float, optional
        For ``kind="actual"``; default the Bayes threshold for LLR scores.
    normalize : bool, default True
        Divide by ``min(c_miss * p_target, c_fa * (1 - p_target))``, the cost of the best
        trivial system (always accept or always reject), as NIST SRE does.
    n_resamples, confidence_level, method, alternative, rng, conditions, strata, dropna
        As in :meth:`mlci.Scores.bootstrap_ci` (the interval stays in [0, inf)).
        A list of levels returns a tuple of results, one per level (same replicates).
    %(resampling_scores)s

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = Scores(rng.normal(2, 1, 500), rng.normal(-2, 1, 2000))
    >>> res = dcf_ci(s, 0.01, rng=0, n_resamples=200, method="percentile")
    >>> res.metric
    'min_dcf'
    """
    rs = check_resampling(
        resampling, ("stratify", "two_stage", "weights"), "mlci.dcf_ci", stratify=None
    )
    sc = check_scores(scores)
    check_choice("kind", kind, ("min", "actual"))
    if kind == "min" and threshold is not None:
        raise ValueError(
            "`threshold` applies to the actual DCF only; pass `kind`='actual' (the minimum "
            "DCF optimises the threshold in every replicate)."
        )
    p, cm, cf = _check_costs(p_target, c_miss, c_fa)
    check_flag("normalize", normalize)
    bounds = (0.0, np.inf)
    if kind == "min":

        def make(s: Scores) -> _Spec:
            lay = s._lay
            return _Spec(
                "min_dcf",
                lambda v: _dcf_rows(lay, v, p, cm, cf, normalize),
                (),
                search=False,
                full=True,
                bounds=bounds,
            )

        algorithm = "weights"
    else:
        t = _bayes_threshold(sc, p, cm, cf) if threshold is None else _check_scalar(threshold)
        scale = min(cm * p, cf * (1 - p)) if normalize else 1.0

        def make(s: Scores) -> _Spec:
            lay, tau = s._lay, np.array([s._sign * t])

            def fn(v: _View) -> np.ndarray:
                c = _counts_at(lay, v, tau)[:, 0]
                pos, neg = c[:, 0].sum(1), c[:, 1].sum(1)
                p_miss = c[:, 0, 1] / np.where(pos > 0, pos, 1)
                p_fa = c[:, 1, 0] / np.where(neg > 0, neg, 1)
                return (cm * p * p_miss + cf * (1 - p) * p_fa) / scale

            return _Spec("actual_dcf", fn, (), search=True, fixed=True, bounds=bounds)

        algorithm = "auto"
    res = sc._bootstrap(
        make,
        resampling=rs,
        algorithm=algorithm,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
        conditions=conditions,
        strata=strata,
        dropna=dropna,
    )[0]
    if method == "auto":  # auto's few-events warning (mlci.engine.scores_rules)
        m, f = _dcf_point(sc, kind, p, cm, cf, None if kind == "min" else t)
        few = warn_few_dcf_events(m, f, kind)
        if few is not None:
            res = replace(res, details={**res.details, "few_errors_warning": few})
    return res


def _dcf_point(
    sc: Scores, kind: str, p: float, cm: float, cf: float, t: float | None
) -> tuple[float, float]:
    """Misses and false alarms (sample counts) at the minimum DCF's threshold, or at the
    actual threshold ``t``."""
    lay = sc._lay
    n_pos, n_neg = lay.nobs[1].sum(), lay.nobs[0].sum()
    if t is not None:
        tau = sc._sign * t
        m = lay.nobs[1][lay.u[1] < tau].sum()
        return float(m), float(lay.nobs[0][lay.u[0] >= tau].sum())
    fn, fp = error_counts(lay.u[0], lay.nobs[0], lay.u[1], lay.nobs[1])
    k = int(np.argmin(cm * p * fn / n_pos + cf * (1 - p) * fp / n_neg))
    return float(fn[k]), float(fp[k])


def _check_scalar(threshold: Any) -> float:
    if isinstance(threshold, bool) or not isinstance(
        threshold, int | float | np.integer | np.floating
    ):
        raise TypeError(f"`threshold` must be a number; got {threshold!r}.")
    if np.isnan(threshold):
        raise ValueError("`threshold` is NaN; it must be a number.")
    return float(threshold)


# ----------------------------------------------------------------------------- Cllr
def _check_llr(sc: Scores) -> None:
    if sc.score_class != "pos":
        raise ValueError(
            "Cllr needs log-likelihood-ratio scores (high = positive, score_class='pos')."
        )
    if not (np.all(np.isfinite(sc.pos)) and np.all(np.isfinite(sc.neg))):
        raise ValueError("Cllr needs finite log-likelihood-ratio scores.")


def _cllr_rows(lay: _Layout, v: Any) -> np.ndarray:
    w_neg, w_pos = v.w
    n_neg, n_pos = w_neg.sum(1), w_pos.sum(1)
    phi_pos = np.logaddexp(0.0, -lay.u[1]) / _LN2
    phi_neg = np.logaddexp(0.0, lay.u[0]) / _LN2
    ok = (n_neg > 0) & (n_pos > 0)
    c = 0.5 * (
        w_pos @ phi_pos / np.where(n_pos > 0, n_pos, 1)
        + w_neg @ phi_neg / np.where(n_neg > 0, n_neg, 1)
    )
    return np.where(ok, c, np.nan)


def _pav_rows(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pool-adjacent-violators for every row at once (a loop over score values, not rows).

    ``a``, ``b`` (r, G): positive and negative counts at each distinct score, increasing.
    Returns the pooled block sums (r, G) and the index of each row's last block.
    """
    r, g = a.shape
    sa = np.zeros((r, g))
    sb = np.zeros((r, g))
    top = np.full(r, -1)
    rows = np.arange(r)
    for j in range(g):
        push = (a[:, j] + b[:, j]) > 0
        top = top + push
        rp, tp = rows[push], top[push]
        sa[rp, tp] = a[push, j]
        sb[rp, tp] = b[push, j]
        while True:
            has = top >= 1
            rr, tt = rows[has], top[has]
            a1, b1, a0, b0 = sa[rr, tt], sb[rr, tt], sa[rr, tt - 1], sb[rr, tt - 1]
            viol = a0 * (a1 + b1) >= a1 * (a0 + b0)  # mean of previous block >= last one
            if not viol.any():
                break
            rv, tv = rr[viol], tt[viol]
            sa[rv, tv - 1] += sa[rv, tv]
            sb[rv, tv - 1] += sb[rv, tv]
            top[rv] -= 1
    return sa, sb, top


def _min_cllr_rows(lay: _Layout, v: Any) -> np.ndarray:
    w_neg, w_pos = v.w
    r = w_neg.shape[0]
    a = np.zeros((r, lay.G))
    b = np.zeros((r, lay.G))
    a[:, np.searchsorted(lay.grid, lay.u[1])] = w_pos
    b[:, np.searchsorted(lay.grid, lay.u[0])] = w_neg
    sa, sb, top = _pav_rows(a, b)
    live = np.arange(lay.G)[None, :] <= top[:, None]
    sa, sb = np.where(live, sa, 0.0), np.where(live, sb, 0.0)
    n_pos, n_neg = a.sum(1)[:, None], b.sum(1)[:, None]
    # calibrated LLR of a block: log(a N / (b P)); Cllr terms written with xlogy so that
    # blocks with a = 0 or b = 0 (LLR -inf / +inf) contribute exactly 0
    tot = sa * n_neg + sb * n_pos
    t_pos = (xlogy(sa, tot) - xlogy(sa, sa * n_neg)).sum(1) / n_pos[:, 0]
    t_neg = (xlogy(sb, tot) - xlogy(sb, sb * n_pos)).sum(1) / n_neg[:, 0]
    ok = (n_pos[:, 0] > 0) & (n_neg[:, 0] > 0)
    return np.where(ok, 0.5 * (t_pos + t_neg) / _LN2, np.nan)


def cllr(scores: Scores) -> float:
    """Log-likelihood-ratio cost of natural-log LLR scores (0 is perfect, 1 is uninformative).

    ``Cllr = ½ [mean_pos log2(1 + e^-s) + mean_neg log2(1 + e^s)]`` (Brümmer & du Preez
    2006).

    Parameters
    ----------
    scores : Scores
        Finite natural-log likelihood ratios, ``score_class="pos"``.

    Returns
    -------
    float

    Examples
    --------
    >>> round(cllr(Scores(pos=[0.0], neg=[0.0])), 6)
    1.0
    """
    sc = check_scores(scores)
    _check_llr(sc)
    return float(_cllr_rows(sc._lay, sc._full_view())[0])


def min_cllr(scores: Scores) -> float:
    """Cllr after the optimal monotone recalibration (PAV / ROC convex hull).

    Parameters
    ----------
    scores : Scores
        Finite scores with ``score_class="pos"`` (only their order matters).

    Returns
    -------
    float

    Examples
    --------
    >>> s = Scores(pos=[1.0, 2.0, 3.0], neg=[-1.0, 0.0, 0.5])
    >>> min_cllr(s)   # perfectly separated: the calibrated LLRs are +-inf
    0.0
    """
    sc = check_scores(scores)
    _check_llr(sc)
    return float(_min_cllr_rows(sc._lay, sc._full_view())[0])


def _minimum_as_kind(minimum: Any) -> str:
    """The old ``cllr_ci(minimum=)`` flag as the ``kind`` it means."""
    return "min" if check_flag("minimum", minimum) else "actual"


@resampling_keywords
@knobs_in_config
@renamed(minimum=("kind", _minimum_as_kind))
@reports_progress
@per_confidence_level
@fill_doc
def cllr_ci(
    scores: Scores,
    *,
    kind: str = "actual",
    n_resamples: int = 1000,
    confidence_level: float | list[float] = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    rng: Any = None,
    conditions: Any = None,
    strata: Any = None,
    resampling: Resampling | None = None,
    dropna: bool = False,
) -> BootstrapResult:
    """Bootstrap interval of Cllr (``kind="actual"``), or of the minimum Cllr
    (``kind="min"``).

    The minimum Cllr runs PAV on every replicate at once: a loop over the distinct
    scores vectorised over replicates, O(number of distinct scores) numpy steps.

    Parameters
    ----------
    scores : Scores
        Finite natural-log likelihood ratios, ``score_class="pos"``.
    kind : {"actual", "min"}, default "actual"
        ``"actual"``: Cllr of the scores as they are; ``"min"``: the minimum Cllr (PAV
        re-run in every replicate), as :func:`dcf_ci`'s ``kind``.  (``minimum=True`` is
        the deprecated spelling of ``kind="min"``.)
    method : str, default "auto"
        As in :meth:`mlci.Scores.bootstrap_ci`.  ``"auto"``: for the actual Cllr of
        independent unweighted trials (no ``conditions``, ``strata``, ``sample_weight``,
        two-stage or Poisson resampling) the bootstrap-t interval on the log scale
        (``"studentized"``, with every replicate's two-sample standard error; also
        available by name there), else BCa; a :class:`~mlci.NearBoundWarning` where a
        class's cost rests on fewer than 3 effective trials or the estimate's skewness
        exceeds 0.35, and for the minimum Cllr an
        :class:`~mlci.IrregularEstimandWarning` of PAV's optimism (the rules and their
        numbers: docs/validation.md, "Cllr intervals (session 9)").
    n_resamples, confidence_level, alternative, rng, conditions, strata, dropna
        As in :meth:`mlci.Scores.bootstrap_ci` (the interval stays in [0, inf)).
        A list of levels returns a tuple of results, one per level (same replicates).
    %(resampling_scores)s

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = Scores(rng.normal(2, 2, 300), rng.normal(-2, 2, 300))
    >>> res = cllr_ci(s, rng=0, n_resamples=200)
    >>> res.method, bool(res.confidence_interval.low < res.estimate < res.confidence_interval.high)
    ('studentized', True)
    """
    rs = check_resampling(
        resampling, ("stratify", "two_stage", "weights"), "mlci.cllr_ci", stratify=None
    )
    sc = check_scores(scores)
    kind = check_choice("kind", kind, ("actual", "min"))
    minimum = kind == "min"
    _check_llr(sc)
    fn = _min_cllr_rows if minimum else _cllr_rows
    # the actual Cllr of independent unweighted trials: auto's bootstrap-t on the log
    # scale, with every replicate's two-sample standard error (scores/_cllr_rules.py)
    iid = (
        conditions is None
        and strata is None
        and sc._w is None
        and rs.two_stage is not True
        and rs.weights == "multinomial"
        and rs.stratify is not False
    )
    student = not minimum and method in ("auto", "studentized")
    if method == "studentized" and not (iid and not minimum):
        raise ValueError(
            "`method`='studentized' of Cllr needs the actual Cllr (`kind`='actual') of "
            "independent unweighted trials, stratified by class (no `conditions`, `strata`, "
            "`sample_weight`, `two_stage` or Poisson `weights`): its standard error is the "
            "two-sample one; use 'bca' there."
        )
    student = student and iid and min(len(sc.pos), len(sc.neg)) >= 2

    def make(s: Scores) -> _Spec:
        lay = s._lay
        if student:
            return _Spec(
                "cllr",
                lambda v: np.stack([fn(lay, v), cllr_se_rows(lay, v)], axis=-1),
                (2,),
                search=False,
                full=True,
                parts=(_Part("cllr", (0.0, np.inf)), _Part("cllr_se", (0.0, np.inf))),
            )
        name = "min_cllr" if minimum else "cllr"
        return _Spec(name, lambda v: fn(lay, v), (), search=False, full=True, bounds=(0.0, np.inf))

    common = {
        "algorithm": "weights",
        "resampling": rs,
        "n_resamples": n_resamples,
        "confidence_level": confidence_level,
        "alternative": alternative,
        "rng": rng,
        "conditions": conditions,
        "strata": strata,
        "dropna": dropna,
    }
    if student:
        res = _studentized_cllr(sc, make, common, method == "auto")
    else:
        res = sc._bootstrap(make, method=method, **common)[0]
    if method == "auto" and sc._w is None:  # auto's warnings (scores/_cllr_rules.py)
        if minimum:
            few = warn_min_cllr_bias(res.estimate, res.bootstrap_distribution)
            key = "optimism_warning"
        else:
            few = warn_few_costly_trials(*cllr_effective_trials(sc._lay))
            key = "few_errors_warning"
        if few is not None:
            res = replace(res, details={**res.details, key: few})
    return res


def _studentized_cllr(sc: Scores, make: Any, common: dict[str, Any], auto: bool) -> BootstrapResult:
    """Cllr and every replicate's standard error from the same replicates (BCa's run, so
    that its acceleration stays in the result), read as the bootstrap-t interval on the
    log scale.  The standard error's own result is dropped, and with it its warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res, se = sc._bootstrap(make, method="bca", **common)
        details = {k: v for k, v in res.details.items() if k != "method_reason"}
        details["linearized"] = {"standard_error": float(se.estimate), "iid": True}
        if auto:
            details["method_reason"] = CLLR_T_REASON
        out = replace(res, details=details, replicate_standard_errors=se.bootstrap_distribution)
        out = out.interval(method="studentized")
    seen = set()
    for w in caught:  # once each (a collapse is reported by both reads)
        text = str(w.message)
        if "'cllr_se'" in text or (w.category, text) in seen:
            continue
        seen.add((w.category, text))
        warn(text, w.category)
    return out
