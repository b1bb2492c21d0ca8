"""Reading the ROC of binary scores: rates at thresholds and thresholds at rates.

:class:`ScoreRates` gives a :class:`~mlci.scores._data.ScoreData` (the sorted scores of
each class and their cumulative counts) its confusion matrices and rates at thresholds
(``tpr``, ``fpr``, ``precision``, any confusion-matrix metric) and the thresholds where
a rate, or any metric of the threshold, takes a value.  :class:`mlci.Scores` is one; its
intervals of these statistics are :meth:`mlci.Scores.bootstrap_ci`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..inputs import check_choice, fill_doc
from ._data import ScoreData
from ._roc import (
    _INTERPOLATIONS,
    _RATE_ALIASES,
    _check_rate,
    _check_threshold,
    _counts_at,
    _out,
    _tau_at_rate,
    metric_crossings,
)
from .confusion import CM_METRICS, ConfusionMatrix, binary_cm_metric

__all__ = ["ScoreRates"]


class ScoreRates(ScoreData):
    """Rates at thresholds and thresholds at rates of binary scores: the base of
    :class:`mlci.Scores`, whose constructors build one."""

    def _pooled(self) -> ScoreRates:
        """Every sample as a positive: its TPR is the TOPR (the subclass builds it)."""
        raise NotImplementedError

    # ---------------------------------------------------------------- thresholds -> rates
    def cm(self, threshold: Any) -> ConfusionMatrix:
        """Binary confusion matrices at ``threshold`` (any shape X): shape ``(X..., 2, 2)``.

        Parameters
        ----------
        threshold : float or array-like of float, shape X
            The decision thresholds (``equal_class`` says on which side a score equal to
            the threshold falls).

        Examples
        --------
        >>> from mlci import Scores
        >>> s = Scores(pos=[1, 2, 3], neg=[0.5, 1.5])
        >>> s.cm(1.2).matrix
        array([[2, 1],
               [1, 1]])
        >>> s.cm([[0, 1], [2, 3]]).matrix.shape
        (2, 2, 2, 2)
        """
        t = _check_threshold(threshold)
        cm = _counts_at(self._lay, self._full_view(), self._sign * t.reshape(-1))[0]
        cm = cm.reshape(*t.shape, 2, 2)
        return ConfusionMatrix(
            matrix=cm if self._w is not None else cm.astype(np.int64), binary=True
        )

    confusion_matrix = cm

    def metric(self, name: str, threshold: Any, **kwargs: Any) -> Any:
        """Any confusion-matrix metric (``tpr``, ``ppv``, ``mcc``, ...) at thresholds.

        Parameters
        ----------
        name : str
            A name of :data:`mlci.scores.confusion.CM_METRICS` (rates, counts, ``f1``,
            ``fbeta``, ``mcc``, ...) or ``tar``/``frr``/``trr``/``far``.
        threshold : float or array_like of float, any shape X
            Decision threshold(s) (see :meth:`tpr`).
        **kwargs
            Passed to :func:`mlci.scores.confusion.binary_cm_metric` (``beta`` for ``fbeta``).

        Returns
        -------
        float or ndarray of shape X
            NaN where the metric is undefined.

        Examples
        --------
        >>> from mlci import Scores
        >>> s = Scores(pos=[1, 2, 3], neg=[0.5, 1.5])
        >>> round(s.metric("f1", 1.2), 4), s.metric("tp", [0, 2.5])
        (0.6667, array([3., 1.]))
        """
        name = _RATE_ALIASES.get(name, name)
        if name not in CM_METRICS:
            raise ValueError(f"Unknown metric {name!r}; known: {', '.join(CM_METRICS)}.")
        t = _check_threshold(threshold)
        cm = _counts_at(self._lay, self._full_view(), self._sign * t.reshape(-1))[0]
        return _out(binary_cm_metric(cm, name, **kwargs).reshape(t.shape))

    @fill_doc
    def tpr(self, threshold: Any) -> Any:
        """True positive rate (recall, TAR) at ``threshold``.

        %(rate_sections)s
        """
        return self.metric("tpr", threshold)

    @fill_doc
    def fnr(self, threshold: Any) -> Any:
        """False negative rate (FRR) at ``threshold``.

        %(rate_sections)s
        """
        return self.metric("fnr", threshold)

    @fill_doc
    def tnr(self, threshold: Any) -> Any:
        """True negative rate (specificity, TRR) at ``threshold``.

        %(rate_sections)s
        """
        return self.metric("tnr", threshold)

    @fill_doc
    def fpr(self, threshold: Any) -> Any:
        """False positive rate (FAR) at ``threshold``.

        %(rate_sections)s
        """
        return self.metric("fpr", threshold)

    @fill_doc
    def topr(self, threshold: Any) -> Any:
        """Test outcome positive rate (acceptance rate) at ``threshold``.

        %(rate_sections)s
        """
        return self.metric("topr", threshold)

    @fill_doc
    def tonr(self, threshold: Any) -> Any:
        """Test outcome negative rate (rejection rate) at ``threshold``.

        %(rate_sections)s
        """
        return self.metric("tonr", threshold)

    @fill_doc
    def precision(self, threshold: Any) -> Any:
        """Precision (PPV) at ``threshold``; NaN where nothing is decided positive.

        %(rate_sections)s
        """
        return self.metric("ppv", threshold)

    ppv = precision

    @fill_doc
    def npv(self, threshold: Any) -> Any:
        """Negative predictive value at ``threshold``.

        %(rate_sections)s
        """
        return self.metric("npv", threshold)

    @fill_doc
    def accuracy(self, threshold: Any) -> Any:
        """Accuracy at ``threshold`` (with the data's class proportions).

        %(rate_sections)s
        """
        return self.metric("accuracy", threshold)

    far, frr, tar, trr = fpr, fnr, tpr, tnr
    acceptance_rate, rejection_rate = topr, tonr

    # ---------------------------------------------------------------- rates -> thresholds
    def _threshold_at(self, rate: str, value: Any, interpolation: str) -> Any:
        check_choice("interpolation", interpolation, _INTERPOLATIONS)
        r = _check_rate(rate, value)
        tau = _tau_at_rate(self._lay, self._full_view(), rate, r.reshape(-1), interpolation)[0]
        return _out((self._sign * tau).reshape(r.shape))

    @fill_doc
    def threshold_at_tpr(self, tpr: Any, *, interpolation: str = "linear") -> Any:
        """Threshold where TPR = ``tpr`` (any shape), interpolating between scores.

        %(threshold_at_tpr_sections)s
        """
        return self._threshold_at("tpr", tpr, interpolation)

    @fill_doc
    def threshold_at_fnr(self, fnr: Any, *, interpolation: str = "linear") -> Any:
        """Threshold where FNR = ``fnr`` (see :meth:`threshold_at_tpr`).

        %(threshold_at_fnr_sections)s
        """
        return self._threshold_at("fnr", fnr, interpolation)

    @fill_doc
    def threshold_at_tnr(self, tnr: Any, *, interpolation: str = "linear") -> Any:
        """Threshold where TNR = ``tnr`` (see :meth:`threshold_at_tpr`).

        %(threshold_at_tnr_sections)s
        """
        return self._threshold_at("tnr", tnr, interpolation)

    @fill_doc
    def threshold_at_fpr(self, fpr: Any, *, interpolation: str = "linear") -> Any:
        """Threshold where FPR = ``fpr`` (see :meth:`threshold_at_tpr`).

        %(threshold_at_fpr_sections)s

        Examples
        --------
        >>> from mlci import Scores
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> t = s.threshold_at_fpr(0.25)
        >>> t, s.fpr(t)
        (3.5, 0.25)
        """
        return self._threshold_at("fpr", fpr, interpolation)

    @fill_doc
    def threshold_at_topr(self, topr: Any, *, interpolation: str = "linear") -> Any:
        """Threshold where the share of samples decided positive (TOPR, the acceptance
        rate) is ``topr``, interpolating between the pooled scores of both classes.

        %(threshold_at_topr_sections)s

        Examples
        --------
        >>> from mlci import Scores
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> t = s.threshold_at_topr(0.25)
        >>> t, s.topr(t)
        (3.5, 0.25)
        """
        check_choice("interpolation", interpolation, _INTERPOLATIONS)
        _check_rate("topr", topr)
        return self._pooled().threshold_at_tpr(topr, interpolation=interpolation)

    @fill_doc
    def threshold_at_tonr(self, tonr: Any, *, interpolation: str = "linear") -> Any:
        """Threshold where the share of samples decided negative (TONR, the rejection
        rate) is ``tonr`` (see :meth:`threshold_at_topr`).

        %(threshold_at_tonr_sections)s

        Examples
        --------
        >>> from mlci import Scores
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> t = s.threshold_at_tonr(0.5)
        >>> t, s.tonr(t)
        (2.5, 0.5)
        """
        check_choice("interpolation", interpolation, _INTERPOLATIONS)
        _check_rate("tonr", tonr)
        return self._pooled().threshold_at_fnr(tonr, interpolation=interpolation)

    def threshold_at_metric(
        self, target: Any, metric: Any, *, points: Any = None
    ) -> np.ndarray | list[np.ndarray]:
        """Every threshold where a metric of the threshold equals ``target``.

        The metric is evaluated at ``points`` and joined by straight lines; each crossing
        of the polyline with the target is a solution (no monotonicity assumed).

        Parameters
        ----------
        target : float or array_like of float, shape (T,)
        metric : str or callable
            A rate method's name (``"tpr"``, ``"fpr"``, ``"precision"``, ``"accuracy"``...)
            or ``metric(scores, thresholds) -> values``.
        points : int or array_like, optional
            The thresholds to evaluate: by default every score; an int gives that many
            evenly spaced thresholds between the smallest and the largest score.

        Returns
        -------
        ndarray, or list of ndarray for an array of targets
            The increasing thresholds where the metric's polyline equals the target (one
            array per target); where it never does, the one point whose value is closest.

        Examples
        --------
        >>> from mlci import Scores
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> s.threshold_at_metric(0.5, "tpr")
        array([3.])
        >>> s.threshold_at_metric([0.25, 0.75], "tpr")
        [array([3.5]), array([2.])]
        """
        if isinstance(metric, str):
            fn = getattr(self, metric, None)
            if metric.startswith("_") or fn is None or not callable(fn):
                raise ValueError(f"`metric` {metric!r} is not a rate method of Scores.")
            values = fn
        elif callable(metric):

            def values(x: np.ndarray) -> Any:
                return metric(self, x)

        else:
            raise TypeError("`metric` must be a method name of Scores or a callable.")
        return metric_crossings(np.r_[self.pos, self.neg], values, target, points)

    threshold_at_tar = threshold_at_tpr
    threshold_at_frr = threshold_at_fnr
    threshold_at_trr = threshold_at_tnr
    threshold_at_far = threshold_at_fpr
    threshold_at_acceptance_rate = threshold_at_topr
    threshold_at_rejection_rate = threshold_at_tonr
