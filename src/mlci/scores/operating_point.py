"""The bootstrap interval of an operating point of a :class:`mlci.Scores` object: a rate at a
fixed value of another rate, and its threshold, from the same replicates
(:func:`operating_point_ci`)."""

from __future__ import annotations

from typing import Any

from ..feedback import reports_progress
from ..inputs import fill_doc, knobs_in_config
from ..inputs.resampling import Resampling, check_resampling, resampling_keywords
from ..results import BootstrapResult, per_confidence_level
from ._specs import _operating_point_spec, _Spec
from .scores import Scores, check_scores

__all__ = ["operating_point_ci"]


@resampling_keywords
@knobs_in_config
@reports_progress
@per_confidence_level
@fill_doc
def operating_point_ci(
    scores: Scores,
    rate: str = "fnr",
    *,
    at: Any = 0.01,
    x: str = "fpr",
    interpolation: str = "linear",
    n_resamples: int = 1000,
    confidence_level: float | list[float] = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    rng: Any = None,
    conditions: Any = None,
    strata: Any = None,
    resampling: Resampling | None = None,
    dropna: bool = False,
) -> tuple[BootstrapResult, BootstrapResult]:
    """Interval of an operating point: ``rate`` at ``x = at`` and of its threshold.

    Both come from the same replicates (the threshold is re-set on each replicate).

    Parameters
    ----------
    scores : Scores
    rate : {"fnr", "tpr", "fpr", "tnr"} (or "frr", "tar", "far", "trr"), default "fnr"
        The rate read off at the operating point.
    at : float or array-like in [0, 1], default 0.01
        Value(s) of ``x`` defining the operating point(s); the output keeps its shape.
    x : {"fpr", "fnr", "tpr", "tnr"}, default "fpr"
        The rate that fixes the operating point.
    interpolation : {"linear", "lower", "higher"}
        ``"linear"``: the rate is read along the ROC polyline, as pROC's ``coords`` and
        :meth:`mlci.Scores.rate_at` (ranks only); the threshold is
        ``threshold_at_<x>``'s, interpolated linearly between the two scores around
        ``at``.  ``"lower"``/``"higher"``: the rate at the threshold on that score
        (see :meth:`mlci.Scores.rate_at`).
    n_resamples, confidence_level, method, alternative, rng, conditions, strata, dropna
        As in :meth:`mlci.Scores.bootstrap_ci` (the rate's interval stays in [0, 1]).
        A list of levels returns a tuple of ``(rate, threshold)`` pairs, one per level.
    %(resampling_scores)s

    Returns
    -------
    (rate_result, threshold_result) : tuple of BootstrapResult

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = Scores(rng.normal(2, 1, 2000), rng.normal(0, 1, 5000))
    >>> fnr, thr = operating_point_ci(s, "fnr", at=0.01, rng=0, n_resamples=300)
    >>> bool(fnr.confidence_interval.low < fnr.estimate < fnr.confidence_interval.high)
    True
    """
    rs = check_resampling(
        resampling, ("stratify", "two_stage", "weights"), "mlci.operating_point_ci", stratify=None
    )
    sc = check_scores(scores)
    _operating_point_spec(sc, rate, x, at, interpolation)  # validate before any work

    def make(s: Scores) -> _Spec:
        return _operating_point_spec(s, rate, x, at, interpolation, with_threshold=True)

    rate_res, thr_res = sc._bootstrap(
        make,
        resampling=rs,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
        conditions=conditions,
        strata=strata,
        dropna=dropna,
    )
    return rate_res, thr_res
