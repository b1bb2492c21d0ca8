"""Operating decisions on a score: the optimal threshold and the precision-recall band.

:func:`optimal_threshold_ci`
    The threshold that maximises Youden's ``J = TPR - FPR`` (sensitivity + specificity
    - 1; Youden 1950), or that minimises the expected cost
    ``c_fn * prevalence * FNR + c_fp * (1 - prevalence) * FPR`` (pROC's
    ``best.weights``; Perkins & Schisterman 2006), with bootstrap percentile intervals of
    the threshold and of the criterion at it (the threshold re-chosen in every
    replicate, so the interval includes the optimisation).
:func:`pr_band`
    Precision at fixed recall values with a pointwise bootstrap band (the threshold
    re-set in every replicate, as a vertical ROC band).

Both resample the samples independently (:meth:`mlci.Scores.bootstrap_sample`), with the
numbers of positives and negatives fixed by default (``stratify=True``, pROC's default
for ROC quantities).

References
----------
- Youden, W. J. (1950). Index for rating diagnostic tests. *Cancer* 3, 32-35.
- Perkins, N. J. & Schisterman, E. F. (2006). The inconsistency of "optimal" cutpoints
  obtained using two criteria based on the receiver operating characteristic curve.
  *American Journal of Epidemiology* 163, 670-675.
- Fluss, R., Faraggi, D. & Reiser, B. (2005). Estimation of the Youden index and its
  associated cutoff point. *Biometrical Journal* 47, 458-472.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..exceptions import DegenerateIntervalWarning
from ..inputs import (
    check_choice,
    check_confidence_level,
    check_flag,
    check_nonnegative,
    check_positive_int,
    check_rng_seed,
)
from ..results import ConfidenceInterval, Result, format_value, plain
from ._band_rules import vertical_band_grid
from ._specs import _operating_point_spec, _Spec
from .curves import CurveBand, _band, pr_curve, precision_at_recall_spec, roc_curve
from .scores import Scores

__all__ = ["OptimalThreshold", "optimal_threshold_ci", "pr_band"]


def _check_scores(scores: Any) -> Scores:
    if not isinstance(scores, Scores):
        raise TypeError(
            "`scores` must be a mlci.Scores object, e.g. Scores.from_labels(y_true, y_score); "
            f"got {type(scores).__name__}."
        )
    return scores


@dataclass(frozen=True, kw_only=True, repr=False)
class OptimalThreshold(Result):
    """The optimal threshold of a score and its bootstrap interval.

    Attributes
    ----------
    criterion : str
        ``"youden"`` or ``"cost"``.
    threshold : float
        Decide positive when ``score >= threshold``.
    threshold_interval : ConfidenceInterval
    value : float
        Youden's J (``tpr - fpr``) or the expected cost per sample at the threshold.
    value_interval : ConfidenceInterval
    tpr, fpr : float
        The operating point at the threshold.
    confidence_level : float
    method : str
        ``"percentile"``.
    n_resamples : int
    details : dict
        ``costs``, ``prevalence`` (cost criterion), ``stratify``.

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> s = mlci.Scores(rng.normal(1.5, 1, 200), rng.normal(0, 1, 300))
    >>> r = mlci.optimal_threshold_ci(s, rng=0, n_resamples=200)
    >>> round(r.threshold, 3), round(r.value, 3)
    (0.835, 0.575)
    """

    criterion: str
    threshold: float
    threshold_interval: ConfidenceInterval
    value: float
    value_interval: ConfidenceInterval
    tpr: float
    fpr: float
    confidence_level: float
    method: str = "percentile"
    n_resamples: int
    details: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        lvl = f"{self.confidence_level * 100:.10g}%"
        t_lo, t_hi = self.threshold_interval
        v_lo, v_hi = self.value_interval
        name = "J" if self.criterion == "youden" else "cost"
        return (
            f"OptimalThreshold({self.criterion!r}, threshold={format_value(self.threshold)} "
            f"{lvl} CI [{format_value(t_lo)}, {format_value(t_hi)}], {name}="
            f"{format_value(self.value)} [{format_value(v_lo)}, {format_value(v_hi)}], "
            f"tpr={format_value(self.tpr)}, fpr={format_value(self.fpr)})"
        )

    def rows(self) -> list[dict[str, Any]]:
        """Two rows: the threshold and the criterion's value, each with its interval."""
        name = "youden_j" if self.criterion == "youden" else "expected_cost"
        return [
            plain({"quantity": "threshold", "estimate": self.threshold,
                   "low": self.threshold_interval.low, "high": self.threshold_interval.high}),
            plain({"quantity": name, "estimate": self.value,
                   "low": self.value_interval.low, "high": self.value_interval.high}),
        ]  # fmt: skip


def _best(s: Scores, criterion: str, c_fn: float, c_fp: float, prevalence: float | None):
    """(threshold, value, tpr, fpr) of the best operating point of ``s``."""
    c = roc_curve(s)
    fpr, tpr, thr = np.asarray(c.x), np.asarray(c.y), np.asarray(c.thresholds)
    if criterion == "youden":
        crit = tpr - fpr
        k = int(np.argmax(crit))  # the first (highest) threshold among ties
        return float(thr[k]), float(crit[k]), float(tpr[k]), float(fpr[k])
    pi = s.n_pos / (s.n_pos + s.n_neg) if prevalence is None else prevalence
    cost = c_fn * pi * (1.0 - tpr) + c_fp * (1.0 - pi) * fpr
    k = int(np.argmin(cost))
    return float(thr[k]), float(cost[k]), float(tpr[k]), float(fpr[k])


def optimal_threshold_ci(
    scores: Scores,
    *,
    criterion: str = "youden",
    c_fn: float = 1.0,
    c_fp: float = 1.0,
    prevalence: float | None = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    stratify: bool = True,
    rng: Any = None,
) -> OptimalThreshold:
    """The Youden-optimal (or cost-optimal) threshold with bootstrap intervals.

    Parameters
    ----------
    scores : Scores
        Positive decided when ``score >= threshold``.
    criterion : {"youden", "cost"}, default "youden"
        ``"youden"``: maximise ``J = TPR - FPR``; ``"cost"``: minimise
        ``c_fn * prevalence * FNR + c_fp * (1 - prevalence) * FPR``.
    c_fn, c_fp : float, default 1
        Costs of a missed positive and of a false alarm (``criterion="cost"``).
    prevalence : float in (0, 1), optional
        Of the population where the threshold will be used; default: the data's share
        of positives (re-estimated in each replicate only when ``stratify=False``).
    n_resamples : int, default 1000
    confidence_level : float, default 0.95
        Two-sided percentile intervals.
    stratify : bool, default True
        Keep the numbers of positives and negatives in each replicate (pROC's default).
    rng : None, int, Generator or SeedSequence

    Returns
    -------
    OptimalThreshold

    Notes
    -----
    The threshold is re-chosen in every replicate, so its interval shows how much the
    choice itself varies; the distribution of an argmax over a step curve is lumpy, so
    the interval is a percentile interval (Fluss et al. 2005 study the alternatives).
    The value at the estimated threshold is optimistic (it is the best of many).

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> s = mlci.Scores(rng.normal(1.5, 1, 200), rng.normal(0, 1, 300))
    >>> r = mlci.optimal_threshold_ci(s, criterion="cost", c_fn=5, rng=0, n_resamples=200)
    >>> r.threshold < mlci.optimal_threshold_ci(s, rng=0, n_resamples=200).threshold
    True
    """
    s = _check_scores(scores)
    criterion = check_choice("criterion", criterion, ("youden", "cost"))
    c_fn = check_nonnegative("c_fn", c_fn)
    c_fp = check_nonnegative("c_fp", c_fp)
    if criterion == "cost" and c_fn + c_fp == 0:
        raise ValueError("`c_fn` and `c_fp` are both 0: every threshold costs nothing.")
    if prevalence is not None:
        p = check_nonnegative("prevalence", prevalence)
        if not 0 < p < 1:
            raise ValueError(f"`prevalence` must be in (0, 1); got {prevalence!r}.")
        prevalence = p
    n_resamples = check_positive_int("n_resamples", n_resamples)
    level = check_confidence_level(confidence_level)
    stratify = check_flag("stratify", stratify)
    gen = np.random.default_rng(check_rng_seed(rng))
    prev = prevalence
    if prev is None and stratify:
        prev = s.n_pos / (s.n_pos + s.n_neg)
    thr, val, tpr, fpr = _best(s, criterion, c_fn, c_fp, prev)
    dist = np.empty((n_resamples, 2))
    for b in range(n_resamples):
        sb = s.bootstrap_sample(rng=gen, stratify=stratify)
        t_b, v_b, _, _ = _best(sb, criterion, c_fn, c_fp, prev)
        dist[b] = t_b, v_b
    tail = (1.0 - level) / 2.0
    finite = np.isfinite(dist[:, 0])
    t_lo, t_hi = np.quantile(dist[finite, 0], [tail, 1.0 - tail])
    v_lo, v_hi = np.quantile(dist[:, 1], [tail, 1.0 - tail])
    details: dict[str, Any] = {"stratify": stratify}
    if criterion == "cost":
        details.update(c_fn=c_fn, c_fp=c_fp, prevalence=prev)
    return OptimalThreshold(
        criterion=criterion,
        threshold=thr,
        threshold_interval=ConfidenceInterval(float(t_lo), float(t_hi)),
        value=val,
        value_interval=ConfidenceInterval(float(v_lo), float(v_hi)),
        tpr=tpr,
        fpr=fpr,
        confidence_level=level,
        n_resamples=n_resamples,
        details=details,
    )


# --------------------------------------------------------------------------- PR band
def _precision_at(s: Scores, grid: np.ndarray) -> np.ndarray:
    """Precision at the highest threshold whose recall reaches each grid value."""
    c = pr_curve(s)
    recall, precision = np.asarray(c.x), np.asarray(c.y)
    k = np.searchsorted(recall, grid, side="left")  # recall is non-decreasing
    k = np.minimum(k, recall.size - 1)
    return precision[k]


def _pr_band_conditions(
    s: Scores, x: np.ndarray, n_resamples: int, level: float, rng: Any, conditions: Any
) -> CurveBand:
    """:func:`pr_band` resampling whole conditions: every replicate's precision at the
    grid from its counts (one pass over the sorted scores per replicate, no replicate
    Scores object), percentile band."""

    def make(sc: Scores) -> Any:
        return precision_at_recall_spec(sc, x)

    with warnings.catch_warnings():  # precision at recall 1 may be fixed: no reason to warn
        warnings.simplefilter("ignore", DegenerateIntervalWarning)
        res = _whole_conditions(s, make, n_resamples, level, rng, conditions)[0]
    return _pr_conditions_band(x, res, n_resamples, level)


def _whole_conditions(
    s: Scores, make: Any, n_resamples: int, level: float, rng: Any, conditions: Any
) -> Any:
    """``s._bootstrap`` of the spec ``make`` with whole conditions drawn (no strata, no
    class stratification), percentile: the draws of :func:`pr_band` and
    :func:`roc_pr_bands` over conditions."""
    return s._bootstrap(
        make,
        algorithm="weights",
        n_resamples=n_resamples,
        confidence_level=level,
        method="percentile",
        alternative="two-sided",
        rng=rng,
        conditions=conditions,
        strata=None,
        stratify=False,
        two_stage=False,
        weights="multinomial",
        dropna=False,
    )


def _pr_conditions_band(x: np.ndarray, res: Any, n_resamples: int, level: float) -> CurveBand:
    low, high = res.confidence_interval
    return CurveBand(
        x, np.asarray(res.estimate), low, high, low, high, "recall", "precision", "vertical",
        False, level, None, res,
        {"n_resamples": n_resamples, "method": "percentile", "stratify": False,
         "conditions": True},
    )  # fmt: skip


#: the default grid of pr_band (recall); roc_band's FPRs: _band_rules.vertical_band_grid
_RECALL_GRID = np.linspace(0.02, 1.0, 50)


def roc_pr_bands(
    scores: Scores,
    *,
    conditions: Any,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    rng: Any = None,
) -> tuple[CurveBand, CurveBand]:
    """The ROC band and the precision-recall band over whole ``conditions``, from one set
    of replicates (the report's curves, issue 25).

    Each replicate's counts are drawn and summed once for both curves, which are then
    :func:`mlci.roc_band`'s (TPR at its default 101 FPRs, ``resampling=
    mlci.Resampling(stratify=False)``: the conditions drawn whole, as for every other
    interval over them) and :func:`pr_band`'s (precision at 50 fixed recalls), bit for
    bit, at a little over half the cost of the two calls.

    Parameters
    ----------
    scores : Scores
    conditions : array-like
        Condition of every sample, in :meth:`Scores.from_labels` order.
    n_resamples, confidence_level, rng
        As in :func:`pr_band`; both bands are pointwise percentile bands.

    Returns
    -------
    (CurveBand, CurveBand)
        The ROC band, then the precision-recall band.

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400); spk = rng.integers(0, 20, 400)
    >>> s = mlci.Scores.from_labels(y, y + rng.normal(0, 1, 400))
    >>> roc, pr = roc_pr_bands(s, conditions=spk, n_resamples=200, rng=0)
    >>> (roc.x_name, roc.y_name), (pr.x_name, pr.y_name)
    (('fpr', 'tpr'), ('recall', 'precision'))
    """
    s = _check_scores(scores)
    if conditions is None:
        raise ValueError(
            "`conditions` is required: roc_pr_bands resamples whole conditions; without "
            "them call mlci.roc_band and mlci.pr_band."
        )
    n_resamples = check_positive_int("n_resamples", n_resamples)
    level = check_confidence_level(confidence_level)
    fpr_grid, grid_info = vertical_band_grid(None, lambda: roc_curve(s), s)  # roc_band's
    n_roc, n_pr = len(fpr_grid), len(_RECALL_GRID)

    def make(sc: Scores) -> Any:
        roc = _operating_point_spec(sc, "tpr", "fpr", fpr_grid, "linear")
        pr = precision_at_recall_spec(sc, _RECALL_GRID)

        def fn(v: Any) -> np.ndarray:
            return np.concatenate([roc.fn(v).reshape(v.b, n_roc), pr.fn(v)], axis=1)

        parts = ((roc.name, roc.bounds, n_roc), (pr.name, pr.bounds, n_pr))
        return _Spec(
            "curves", fn, (n_roc + n_pr,), search=True, full=True, segments=parts, units=True
        )

    with warnings.catch_warnings():  # the curves' fixed ends: no reason to warn
        warnings.simplefilter("ignore", DegenerateIntervalWarning)
        roc_res, pr_res = _whole_conditions(s, make, n_resamples, level, rng, conditions)
    roc_band_ = _band(fpr_grid.copy(), roc_res, level, False, "fpr", "tpr", "vertical", grid_info)
    return roc_band_, _pr_conditions_band(_RECALL_GRID.copy(), pr_res, n_resamples, level)


def pr_band(
    scores: Scores,
    grid: Any = None,
    *,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    stratify: bool | None = None,
    rng: Any = None,
    conditions: Any = None,
) -> CurveBand:
    """Precision-recall curve with a pointwise bootstrap band (precision at fixed recall).

    Parameters
    ----------
    scores : Scores
    grid : array-like, optional
        Recall values in (0, 1]; default 50 points from 0.02 to 1.
    n_resamples : int, default 1000
    confidence_level : float, default 0.95
        Pointwise percentile band.
    stratify : bool, optional
        Keep the numbers of positives and negatives in each replicate (default without
        ``conditions``).  With ``conditions`` the conditions are resampled whole and the
        classes' numbers vary (``True`` is refused there).
    rng : None, int, Generator or SeedSequence
    conditions : array-like, optional
        Condition of every sample of ``scores.from_labels`` order (speaker, session...):
        whole conditions are resampled, through the same plan (and, for a seed, the same
        condition draws) as :func:`mlci.bootstrap_ci`, and as :func:`mlci.roc_band` with
        ``resampling=mlci.Resampling(stratify=False)`` (its default over conditions
        resamples them within each class).

    Returns
    -------
    CurveBand
        ``x`` = recall, ``y`` = precision at the highest threshold reaching that recall.

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> s = mlci.Scores(rng.normal(1, 1, 200), rng.normal(0, 1, 300))
    >>> band = mlci.pr_band(s, [0.25, 0.5, 0.75], rng=0, n_resamples=200)
    >>> band.x_name, band.y_name, bool(np.all(band.low <= band.y))
    ('recall', 'precision', True)
    """
    s = _check_scores(scores)
    if grid is None:
        x = _RECALL_GRID.copy()
    else:
        try:
            x = np.asarray(grid, dtype=float).ravel()
        except (TypeError, ValueError):
            raise TypeError("`grid` must be recall values (numbers in (0, 1]).") from None
        if x.size == 0 or not np.all(np.isfinite(x)) or np.any((x <= 0) | (x > 1)):
            raise ValueError(f"`grid` must be recall values in (0, 1]; got {grid!r}.")
        x = np.sort(x)
    n_resamples = check_positive_int("n_resamples", n_resamples)
    level = check_confidence_level(confidence_level)
    if stratify is not None:
        stratify = check_flag("stratify", stratify)
    if conditions is not None:
        if stratify:
            raise ValueError(
                "`stratify`=True keeps the classes' numbers, which resampling whole "
                "`conditions` cannot: drop `stratify` (or `conditions`)."
            )
        return _pr_band_conditions(s, x, n_resamples, level, rng, conditions)
    stratify = True if stratify is None else stratify
    gen = np.random.default_rng(check_rng_seed(rng))
    est = _precision_at(s, x)
    dist = np.empty((n_resamples, x.size))
    for b in range(n_resamples):
        dist[b] = _precision_at(s.bootstrap_sample(rng=gen, stratify=stratify), x)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(dist, [tail, 1.0 - tail], axis=0)
    return CurveBand(
        x, est, low, high, low, high, "recall", "precision", "vertical", False, level,
        extra={"n_resamples": n_resamples, "method": "percentile", "stratify": stratify},
    )  # fmt: skip
