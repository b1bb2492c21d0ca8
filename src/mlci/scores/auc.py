"""The ROC AUC and the partial AUC of a :class:`mlci.Scores` object, and the AUC's bootstrap
interval (:func:`auc_ci`).

The AUC equals the probability that a random positive outscores a random negative (ties
count one half): the Mann-Whitney statistic divided by ``n_pos * n_neg``; the partial AUC
is the area under the ROC polyline for FPR in [0, ``max_fpr``] (McClish's standardisation
optional).  Both are read per replicate from a view of the counts (:mod:`mlci.scores._roc`)
by the one driver of score statistics (:mod:`mlci.scores._driver`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..feedback import reports_progress
from ..inputs import check_flag, fill_doc, knobs_in_config, renamed
from ..inputs.resampling import Resampling, check_resampling, resampling_keywords
from ..results import BootstrapResult, per_confidence_level
from ._roc import _Layout, _point_rates_rows, _View
from ._specs import _resolve, _Spec
from .scores import Scores, check_scores

__all__ = ["auc_ci", "partial_auc"]


def _partial_auc_rows(lay: _Layout, v: _View, max_fpr: float, mcclish: bool) -> np.ndarray:
    """Area under the ROC polyline for FPR in [0, max_fpr], per row, vectorised."""
    tnr, fnr, ok = _point_rates_rows(lay, v)
    x = (1 - tnr)[:, ::-1]
    y = (1 - fnr)[:, ::-1]
    x0, x1, y0, y1 = x[:, :-1], x[:, 1:], y[:, :-1], y[:, 1:]
    a = max_fpr
    dx = x1 - x0
    frac = np.clip((a - x0) / np.where(dx > 0, dx, 1), 0, 1)
    xe = x0 + frac * dx
    ye = y0 + frac * (y1 - y0)
    area = np.where(x0 < a, (xe - x0) * (y0 + ye) / 2, 0.0).sum(axis=1)
    if mcclish:
        lo, hi = a * a / 2, a
        area = 0.5 * (1 + (area - lo) / (hi - lo))
    return np.where(ok, area, np.nan)


def partial_auc(scores: Scores, max_fpr: float = 1.0, *, mcclish: bool = False) -> float:
    """Area under the ROC curve for FPR in [0, ``max_fpr``].

    ``mcclish=True`` standardises it as McClish (1989) so that 0.5 is chance and 1 is
    perfect, as ``sklearn.metrics.roc_auc_score(max_fpr=...)``.

    Parameters
    ----------
    scores : Scores
    max_fpr : float in (0, 1], default 1.0
        Upper end of the FPR range (the ROC polyline is cut there by interpolation).
    mcclish : bool, default False
        McClish's standardisation.

    Returns
    -------
    float

    Examples
    --------
    >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
    >>> partial_auc(s), partial_auc(s, 0.5)
    (0.625, 0.1875)
    """
    sc = check_scores(scores)
    a = _check_max_fpr(max_fpr)
    check_flag("mcclish", mcclish)
    return float(_partial_auc_rows(sc._lay, sc._full_view(), a, mcclish)[0])


def _check_max_fpr(max_fpr: Any) -> float:
    if isinstance(max_fpr, bool) or not isinstance(max_fpr, int | float | np.integer | np.floating):
        raise TypeError(f"`max_fpr` must be a number in (0, 1]; got {max_fpr!r}.")
    a = float(max_fpr)
    if not 0 < a <= 1:
        raise ValueError(f"`max_fpr` must be in (0, 1]; got {a}.")
    return a


@resampling_keywords
@knobs_in_config
@renamed(scores="y_true")
@reports_progress
@per_confidence_level
@fill_doc
def auc_ci(
    y_true: Any,
    y_score: Any = None,
    *,
    pos_label: Any = None,
    max_fpr: float | None = None,
    mcclish: bool = False,
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
    """Bootstrap interval of the ROC AUC, or of the partial AUC up to ``max_fpr``.

    The AUC is the probability that a random positive outscores a random negative
    (ties count one half).

    Parameters
    ----------
    y_true : array-like, shape (n_samples,), or Scores
        Binary labels, as in :func:`mlci.bootstrap_ci`; or a :class:`mlci.Scores`
        object (then without ``y_score`` and ``pos_label``), as the other score
        intervals take (``scores=`` is the deprecated name of this argument).
    y_score : array-like of float, shape (n_samples,)
        The scores, higher for the positive class (required with labels).
    pos_label : optional
        The positive class (as in :meth:`mlci.Scores.from_labels`).
    max_fpr : float in (0, 1], optional
        Partial AUC over FPR in [0, ``max_fpr``] (see :func:`partial_auc`).
    mcclish : bool, default False
        Standardise the partial AUC (McClish 1989; 0.5 chance, 1 perfect).
    n_resamples, confidence_level, method, alternative, rng, conditions, strata, dropna
        As in :meth:`mlci.Scores.bootstrap_ci` (the interval stays in [0, 1], or in
        [0, ``max_fpr``] for a partial AUC).
        A list of levels returns a tuple of results, one per level (same replicates).
    %(resampling_scores)s

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = np.r_[np.ones(200), np.zeros(300)]
    >>> score = np.r_[rng.normal(1, 1, 200), rng.normal(0, 1, 300)]
    >>> res = auc_ci(y, score, rng=0, n_resamples=300)
    >>> s = Scores.from_labels(y, score)
    >>> auc_ci(s, rng=0, n_resamples=300).estimate == res.estimate == s.auc()
    True
    """
    rs = check_resampling(
        resampling, ("stratify", "two_stage", "weights"), "mlci.auc_ci", stratify=None
    )
    if isinstance(y_true, Scores):
        if y_score is not None or pos_label is not None:
            raise TypeError(
                "`y_true` is a Scores object: leave out `y_score` and `pos_label` (they are "
                "for labels and scores given as arrays)."
            )
        sc = y_true
    else:
        if y_score is None:
            raise TypeError(
                "`y_score` is required with labels: auc_ci(y_true, y_score), or pass a "
                "Scores object as the only data argument."
            )
        sc = Scores.from_labels(y_true, y_score, pos_label=pos_label, dropna=dropna)
    check_flag("mcclish", mcclish)
    if max_fpr is None and not mcclish:

        def make(s: Scores) -> _Spec:
            return _resolve(s, "auc", {})

    else:
        a = _check_max_fpr(1.0 if max_fpr is None else max_fpr)
        bounds = (0.0, 1.0) if mcclish else (0.0, a)

        def make(s: Scores) -> _Spec:
            lay = s._lay
            return _Spec(
                "partial_auc",
                lambda v: _partial_auc_rows(lay, v, a, mcclish),
                (),
                search=False,
                full=True,
                bounds=bounds,
            )

    return sc._bootstrap(
        make,
        resampling=rs,
        algorithm="weights",
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
        conditions=conditions,
        strata=strata,
        dropna=dropna,
    )[0]
