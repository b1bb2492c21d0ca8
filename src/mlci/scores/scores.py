"""Binary scores: the data object :class:`Scores`, its rates at thresholds, thresholds at
rates, EER, and their bootstrap intervals.

A :class:`Scores` object keeps the positive and negative scores sorted once.  Its
statistics are functions of a view of the cumulative counts (:mod:`mlci.scores._roc`:
thresholds and rates along the ROC; the rates at thresholds and thresholds at rates are
its base's, :class:`mlci.scores.rates.ScoreRates`), and its intervals come from the one
bootstrap driver of :mod:`mlci.scores` (:mod:`mlci.scores._driver`).

Conventions (``score_class``, ``equal_class``) follow score-analysis:

============  ============  =========================
score_class   equal_class   decided positive when
============  ============  =========================
"pos"         "pos"         score >= threshold
"pos"         "neg"         score >  threshold
"neg"         "pos"         score <= threshold
"neg"         "neg"         score <  threshold
============  ============  =========================

Internally scores are *oriented* (``z = score`` or ``-score``) so that the rule is always
``z >= tau`` (or ``z > tau``); thresholds are mapped back on output.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ..feedback import reports_progress
from ..inputs import (
    ArgSpec,
    binary_target,
    check_choice,
    check_flag,
    gather,
    knobs_in_config,
)
from ..inputs.resampling import Resampling, check_resampling, resampling_keywords
from ..metrics import check_sample_weight
from ..results import BootstrapResult, per_confidence_level
from ._driver import bootstrap_scores, scores_ci
from ._roc import (
    _LABELS,
    _check_easy,
    _eer,
    _out,
    check_area,
    invert_polyline,
    roc_area,
)
from ._samplers import resample_scores
from ._specs import _operating_point_spec, _resolve, _Spec
from .confusion import pointwise_cm
from .rates import ScoreRates

__all__ = ["EqualErrorRate", "Scores", "invert_polyline", "pointwise_cm"]


class EqualErrorRate(NamedTuple):
    """The equal error rate and the threshold where FNR = FPR.

    A named tuple (it unpacks); :func:`mlci.eer_ci` gives both with intervals
    (an :class:`~mlci.scores.verification.EERResult`).

    Examples
    --------
    >>> e = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5]).eer()
    >>> e
    EqualErrorRate(eer=0.5, threshold=2.5)
    >>> eer, threshold = e
    """

    eer: float
    threshold: float


# ============================================================================ Scores
class Scores(ScoreRates):
    """Scores of a binary classifier on positive and negative samples, sorted once.

    Parameters
    ----------
    pos, neg : array-like of float, shape (n_pos,), (n_neg,)
        Scores of the positive and of the negative samples (both non-empty; ``±inf`` is
        allowed, e.g. log-likelihood ratios).  Build one from per-sample labels with
        :meth:`from_labels`.
    score_class : {"pos", "neg"}, default "pos"
        Whether a high score points to the positive class (similarity) or to the
        negative class (distance).
    equal_class : {"pos", "neg"}, default "pos"
        The class of a score exactly equal to the threshold.
    dropna : bool, default False
        Drop missing scores (NaN, None, ``pd.NA``) instead of refusing them; their number
        is :attr:`n_dropped` and every bootstrap result reports it in
        ``details["n_dropped"]``.
    n_easy_pos, n_easy_neg : int, default 0
        "Easy" samples of each class, without a score: counted as always decided right
        (score-analysis's ``nb_easy_pos``/``nb_easy_neg``, e.g. samples a cascade's first
        stage settles).  They are samples like the others, with an infinite score on
        their class's side (shown in :attr:`pos`/:attr:`neg`): every rate counts them and
        the bootstrap resamples them; with ``conditions=``/``strata=``, each class's easy
        samples follow its scored ones.

    Attributes
    ----------
    pos, neg : ndarray
        The sorted scores of each class.
    n_dropped : int
        Samples dropped for a missing value (with ``dropna=True``).

    Notes
    -----
    The samples keep an order, used by ``conditions=`` and ``strata=`` of the bootstrap
    methods: ``pos`` then ``neg`` here, the order of the labels in :meth:`from_labels`.

    Examples
    --------
    >>> s = Scores.from_labels([1, 1, 1, 0, 0], [1, 2, 3, 0.5, 1.5])
    >>> s.pos, s.neg
    (array([1., 2., 3.]), array([0.5, 1.5]))
    >>> s.fpr(threshold=1.2)
    0.5
    >>> s.fpr(threshold=[0.4, 1.2, 2.0])
    array([1. , 0.5, 0. ])
    >>> s.threshold_at_fnr(0.3), s.threshold_at_fnr([0.3, 0.6, 0.9])
    (1.9, array([1.9, 2.8, 3. ]))

    Two more positives that are always accepted:

    >>> Scores([1, 2, 3], [0.5, 1.5], n_easy_pos=2).tpr(2.5)
    0.6
    """

    def __init__(
        self,
        pos: Any,
        neg: Any,
        *,
        score_class: str = "pos",
        equal_class: str = "pos",
        dropna: bool = False,
        n_easy_pos: int = 0,
        n_easy_neg: int = 0,
    ):
        check_choice("score_class", score_class, _LABELS)
        check_choice("equal_class", equal_class, _LABELS)
        check_flag("dropna", dropna)
        easy = _check_easy(n_easy_pos, n_easy_neg)
        parts, kept, n_input = [], [], 0
        for name, x in (("pos", pos), ("neg", neg)):
            g = gather(
                {name: ArgSpec("scores", required=True)}, {name: x}, dropna=dropna, allow_empty=True
            )
            if g.n_samples + easy[name == "neg"] == 0:
                what = "positive" if name == "pos" else "negative"
                raise ValueError(
                    f"`{name}` is empty: there are no {what} scores; both classes are needed."
                )
            # easy samples: an infinite score on their class's side, after the scored ones
            k_easy = easy[name == "neg"]
            side = 1.0 if (name == "pos") == (score_class == "pos") else -1.0
            parts.append(np.r_[g[name], np.full(k_easy, side * np.inf)])
            kept_here = np.arange(g.n_samples) if g.kept is None else g.kept
            n_given = g.n_samples + g.n_dropped
            kept.append(n_input + np.r_[kept_here, n_given + np.arange(k_easy)].astype(np.intp))
            n_input += n_given + k_easy
        p, n = parts
        is_pos = np.r_[np.ones(len(p), dtype=bool), np.zeros(len(n), dtype=bool)]
        self._init(np.r_[p, n], is_pos, score_class, equal_class, np.concatenate(kept), n_input)
        self.n_easy_pos, self.n_easy_neg = easy

    @classmethod
    def from_labels(
        cls,
        y_true: Any,
        y_score: Any,
        *,
        pos_label: Any = None,
        score_class: str = "pos",
        equal_class: str = "pos",
        dropna: bool = False,
        data: Any = None,
        sample_weight: Any = None,
    ) -> Scores:
        """Scores from per-sample binary labels and scores.

        Parameters
        ----------
        y_true : array-like, shape (n_samples,)
            Binary labels.  More than two classes are refused: binarise them first
            (``y_true == "angry"``), which says which class is positive.
        y_score : array-like of float, shape (n_samples,)
            Scores (``±inf`` allowed).
        pos_label : optional
            The positive class; by default 1 (True) for labels in {0, 1}, {-1, 1} or
            {False, True}, otherwise required (see :func:`mlci.inputs.positive_label`).
        score_class, equal_class : {"pos", "neg"}
            As in :class:`Scores`.
        dropna : bool, default False
            Drop the samples with a missing label or score instead of refusing them.
        data : DataFrame, optional
            A pandas or polars DataFrame (or pyarrow Table); ``y_true`` and ``y_score`` may
            then be column names.
        sample_weight : array-like of float, shape (n_samples,), optional
            Per-sample weights (non-negative, not all zero), as scikit-learn's
            ``sample_weight``: every rate, confusion matrix, curve and the AUC count a
            sample with its weight (an integer weight ``k`` gives exactly the values of the
            sample repeated ``k`` times), and :meth:`bootstrap_ci` multiplies each
            replicate's counts by the weights.

        Returns
        -------
        Scores
            The sample order of ``y_true`` is remembered: ``conditions=`` and ``strata=``
            of the bootstrap methods are given in that order (with ``dropna=True``,
            either for the samples kept or for all the samples given).

        Examples
        --------
        >>> s = Scores.from_labels(["no", "yes", "yes"], [0.2, 0.9, 0.4], pos_label="yes")
        >>> s.pos, s.neg
        (array([0.4, 0.9]), array([0.2]))
        >>> w = Scores.from_labels([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.6], sample_weight=[1, 1, 3, 1])
        >>> w.tpr(0.5), w.auc()           # the positive at 0.4 counts three times
        (0.25, 0.625)
        """
        check_choice("score_class", score_class, _LABELS)
        check_choice("equal_class", equal_class, _LABELS)
        check_flag("dropna", dropna)
        g = gather(
            {
                "y_true": ArgSpec("labels", required=True),
                "y_score": ArgSpec("scores", required=True),
                "sample_weight": ArgSpec("numbers"),
            },
            {"y_true": y_true, "y_score": y_score, "sample_weight": sample_weight},
            dropna=dropna,
            data=data,
        )
        sw = g["sample_weight"]
        if sw is not None:
            sw = check_sample_weight(sw, len(g["y_score"]))
        is_pos = binary_target(g["y_true"], pos_label, metric="Scores.from_labels")
        if not is_pos.any():
            raise ValueError("No sample is positive in `y_true`: there are no positives.")
        if is_pos.all():
            raise ValueError("Every sample is positive in `y_true`: there are no negatives.")
        if sw is not None:
            for cls_mask, what in ((is_pos, "positive"), (~is_pos, "negative")):
                if not (sw[cls_mask] > 0).any():
                    raise ValueError(
                        f"`sample_weight` is zero on every {what} sample: the {what} class "
                        "would be empty; both classes are needed."
                    )
        obj = cls.__new__(cls)
        obj._init(
            g["y_score"], is_pos, score_class, equal_class, g.kept, g.n_given, sw, g.n_dropped
        )
        # the bootstrap draws the class whose label sorts first first (ScoreData)
        obj._positives_first = bool(is_pos[np.unique(g["y_true"], return_index=True)[1][0]])
        return obj

    def __repr__(self) -> str:
        return (
            f"Scores(n_pos={len(self.pos)}, n_neg={len(self.neg)}, "
            f"score_class={self.score_class!r}, equal_class={self.equal_class!r})"
        )

    @property
    def n_pos(self) -> int:
        return len(self.pos)

    @property
    def n_neg(self) -> int:
        return len(self.neg)

    def __eq__(self, other: object) -> bool:
        """Exact equality: the same sorted scores of each class (and weights), easy-sample
        counts, ``score_class`` and ``equal_class`` (no tolerance; the sample order is not
        compared).

        Examples
        --------
        >>> Scores([2, 1], [0.5]) == Scores([1, 2], [0.5])
        True
        >>> Scores([1, 2], [3, 4]).swap() == Scores([3, 4], [1, 2], score_class="neg",
        ...                                         equal_class="neg")
        True
        """
        if not isinstance(other, Scores):
            return NotImplemented
        return (
            self.score_class == other.score_class
            and self.equal_class == other.equal_class
            and self.n_easy_pos == other.n_easy_pos
            and self.n_easy_neg == other.n_easy_neg
            and bool(np.array_equal(self.pos, other.pos))
            and bool(np.array_equal(self.neg, other.neg))
            and all(map(np.array_equal, self._lay.cnt, other._lay.cnt))
            and self._eq_extra(other)
            and other._eq_extra(self)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable arrays: not hashable

    def swap(self) -> Scores:
        """Exchange the roles of the classes (and hence of every rate).

        Returns
        -------
        Scores
            Positives and negatives exchanged, ``score_class`` and ``equal_class``
            flipped, so that the FPR of the result is the FNR of the original.

        Examples
        --------
        >>> s = Scores([1, 2, 3], [0.5, 2.5])
        >>> float(s.swap().fnr(2.0)) == float(s.fpr(2.0))
        True
        """
        if self._w is not None:
            obj = Scores.__new__(Scores)
            obj._init(
                self._y_score,
                ~self._is_pos,
                "neg" if self.score_class == "pos" else "pos",
                "neg" if self.equal_class == "pos" else "pos",
                sample_weight=self._w,
            )
        else:
            obj = Scores(
                self.neg,
                self.pos,
                score_class="neg" if self.score_class == "pos" else "pos",
                equal_class="neg" if self.equal_class == "pos" else "pos",
            )
        obj._positives_first = not self._positives_first  # the same draws, mirrored
        return obj

    def _pooled(self) -> Scores:
        """Every sample as a positive: its TPR is the TOPR, its FNR the TONR."""
        if self._w is None:
            everything = np.r_[self.pos, self.neg]
            return Scores._trusted(everything, everything, self.score_class, self.equal_class)
        y, w = self._y_score, self._w
        obj = Scores.__new__(Scores)
        both = np.r_[np.ones(len(y), dtype=bool), np.zeros(len(y), dtype=bool)]
        obj._init(np.r_[y, y], both, self.score_class, self.equal_class, sample_weight=np.r_[w, w])
        return obj

    def bootstrap_sample(
        self,
        *,
        rng: Any = None,
        stratify: bool = False,
        weights: str = "multinomial",
        sampler: Callable[[np.random.Generator, int], Any] | None = None,
        smoothing: bool | float = False,
        subsample: float | None = None,
    ) -> Scores:
        """One bootstrap resample of the samples, as a new :class:`Scores` object.

        For looking at one replicate (or writing a custom statistic); intervals come
        from :meth:`bootstrap_ci`, whose engine never builds these copies.

        Parameters
        ----------
        rng : None, int, numpy.random.Generator or SeedSequence
        stratify : bool, default False
            Keep the number of positives and of negatives (and so of easy samples) fixed;
            otherwise every sample is drawn from all of them, and a draw without a positive
            or without a negative is drawn again (a Scores object needs both classes).
        weights : {"multinomial", "poisson"}, default "multinomial"
            Draw ``n`` samples with replacement, or give every sample an independent
            Poisson(1) count (score-analysis's "single pass"; the size varies).
        sampler : callable, optional
            A custom scheme, as in :meth:`bootstrap_ci`: ``sampler(rng, 1)`` returns the
            ``(1, n_samples)`` whole-number counts of the samples (in their order).
            Replaces ``stratify`` and ``weights``.
        smoothing : bool or float, default False
            The smoothed bootstrap: add Gaussian noise to every drawn score, with
            Silverman's bandwidth of its class (``True``) or the given bandwidth (a number,
            in score units); infinite scores stay.  See :mod:`mlci.engine.smoothing` for
            what it is good for and its caveats.  Works with every scheme (and
            ``sampler``); not with ``sample_weight``.
        subsample : float in (0, 1), optional
            Draw ``floor(subsample * n)`` samples *without* replacement (per class with
            ``stratify=True``, score-analysis's "proportion"): an m-out-of-n subsample, not
            a bootstrap resample.  Replaces ``weights``.

        Returns
        -------
        Scores
            With the same ``score_class`` and ``equal_class``; easy samples keep their
            infinite scores (their numbers :attr:`n_easy_pos`/:attr:`n_easy_neg` are not
            tracked separately in the sample).

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5])
        >>> b = s.bootstrap_sample(rng=0, stratify=True)
        >>> b.n_pos, b.n_neg, set(b.pos) <= set(s.pos)
        (4, 3, True)
        >>> s.bootstrap_sample(sampler=lambda rng, b: np.ones((b, 7))) == s   # identity
        True
        >>> h = s.bootstrap_sample(rng=0, subsample=0.5, stratify=True)   # 2 of 4, 1 of 3
        >>> h.n_pos, h.n_neg
        (2, 1)
        >>> j = s.bootstrap_sample(rng=0, smoothing=0.1)    # jittered resample
        >>> bool(set(j.pos) & set(s.pos))
        False
        """
        return resample_scores(
            self,
            rng=rng,
            stratify=stratify,
            weights=weights,
            sampler=sampler,
            smoothing=smoothing,
            subsample=subsample,
        )

    def rate_at(self, rate: str, *, at: Any, x: str = "fpr", interpolation: str = "linear") -> Any:
        """An operating point: ``rate`` where ``x`` equals ``at``.

        Parameters
        ----------
        rate, x : {"tpr", "fnr", "tnr", "fpr"} (or "tar", "frr", "trr", "far")
            The rate read off, and the rate that fixes the operating point.
        at : float or array_like of float in [0, 1], any shape X
        interpolation : {"linear", "lower", "higher"}, default "linear"
            ``"linear"``: read along the ROC polyline (below).  ``"lower"``/``"higher"``:
            the rate at the threshold :meth:`threshold_at_fpr` (or ``_tpr``...) gives with
            that interpolation, a score on one side of ``x = at`` (a deterministic
            operating point, whose ``x`` may differ from ``at``).

        Returns
        -------
        float or ndarray of shape X

        Notes
        -----
        The ROC polyline joins the operating points of every threshold by straight lines;
        it depends on the ranks of the scores only, so the rate read from it is the same,
        bit for bit, under any strictly increasing transform of the scores (``exp``,
        ``s**3``, a calibration map).  Where ``x = at`` falls inside a segment of it, the
        rate is interpolated along the segment; where several operating points have
        ``x = at`` exactly (a vertical segment, the other class's rate varying at a
        constant ``x``), the best of them is read: the highest TPR when ``x`` is a rate
        of the negatives (``fpr``, ``tnr``), the highest TNR when it is a rate of the
        positives.  This is R's ``pROC::coords(roc, at, input = "specificity", ret =
        "sensitivity")`` (and ``input = "sensitivity"``), and the curve pROC's
        ``ci.se``/``ci.sp`` bootstrap; tests/r/test_r_proc.py checks it to 1e-12.  The
        threshold of that point, where :func:`mlci.operating_point_ci` reports one, is
        ``threshold_at_<x>``'s (score-analysis's convention): a score, or a linear
        interpolation between the two scores around ``at`` (which maps through a
        transform of the scores up to that interpolation: it stays between the same two
        scores).

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> s.rate_at("tpr", at=0.5, x="fpr")   # the top of the vertical segment
        0.75
        >>> s.rate_at("tpr", at=0.5, x="fpr", interpolation="higher")   # at the score 2.5
        0.5
        """
        spec = _operating_point_spec(self, rate, x, at, interpolation)
        return _out(spec.fn(self._full_view())[0])

    def eer(self) -> EqualErrorRate:
        """Equal error rate: where FNR = FPR on the ROC polyline, and its threshold.

        The ROC points are joined by straight lines (as for the trapezoidal AUC); the EER
        is the crossing with FNR = FPR and the threshold interpolates linearly between the
        scores of the two points around the crossing.

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> s.eer()
        EqualErrorRate(eer=0.5, threshold=2.5)
        """
        e, t = _eer(self._lay, self._full_view())[0]
        return EqualErrorRate(float(e), float(self._sign * t))

    def auc(
        self,
        lower: float = 0.0,
        upper: float = 1.0,
        *,
        x_axis: str = "fpr",
        y_axis: str = "tpr",
    ) -> float:
        """ROC AUC = P(random positive outscores random negative) + P(tie) / 2, or the
        area under any pair of rates between two values of the x rate.

        Parameters
        ----------
        lower, upper : float in [0, 1]
            The range of ``x_axis`` integrated over (a partial AUC on either axis).
        x_axis, y_axis : {"fpr", "tpr", "fnr", "tnr"} (or "far", "tar", "frr", "trr")
            The rates of the two axes: the area under ``y_axis`` as a function of
            ``x_axis`` along the ROC polyline (points joined by straight lines, as the
            trapezoidal AUC), e.g. ``x_axis="fnr", y_axis="fpr"`` for the area under the
            DET curve on linear axes.  ``x_axis`` and ``y_axis`` must not be the same rate
            or complements.

        Returns
        -------
        float

        Examples
        --------
        >>> s = Scores(pos=[1, 2, 3, 4], neg=[0.5, 1.5, 2.5, 3.5])
        >>> s.auc()
        0.625
        >>> s.auc(0.0, 0.5), s.auc(x_axis="fnr", y_axis="fpr")
        (0.1875, 0.375)
        """
        lower, upper, x_axis, y_axis = check_area(lower, upper, x_axis, y_axis)
        if (lower, upper, x_axis, y_axis) == (0.0, 1.0, "fpr", "tpr"):
            return float(_resolve(self, "auc", {}).fn(self._full_view())[0])
        return roc_area(self._lay, lower, upper, x_axis, y_axis)

    @resampling_keywords
    @knobs_in_config
    @reports_progress
    @per_confidence_level
    def bootstrap_ci(
        self,
        metric: str | Callable[..., Any],
        *,
        threshold: Any = None,
        rate: Any = None,
        at: Any = None,
        interpolation: str | None = None,
        metric_kwargs: dict[str, Any] | None = None,
        n_resamples: int = 1000,
        confidence_level: float | list[float] = 0.95,
        method: str = "auto",
        alternative: str = "two-sided",
        rng: Any = None,
        conditions: Any = None,
        strata: Any = None,
        resampling: Resampling | None = None,
        dropna: bool = False,
    ) -> BootstrapResult | tuple[BootstrapResult, ...]:
        """Bootstrap confidence interval of any statistic of the scores.

        Parameters
        ----------
        metric : str or callable
            A name: any confusion-matrix metric at ``threshold`` (``"fnr"``, ``"fpr"``,
            ``"ppv"``, ``"mcc"``, ...), ``"threshold_at_fpr"`` (and tpr/tnr/fnr) at
            ``rate``, an operating point ``"fnr_at_fpr"`` (any ``"<rate>_at_<rate>"``) at
            ``at``, ``"eer"``, ``"eer_threshold"``, ``"auc"``; or a function
            ``f(scores, **metric_kwargs)`` of a :class:`Scores` (called per replicate).
        threshold : float or array-like, any shape
            Threshold(s) of a confusion-matrix metric; the result keeps their shape.
        rate : float or array-like in [0, 1], any shape
            Target rate(s) of ``"threshold_at_<rate>"``.
        at : float or array-like in [0, 1], any shape
            Value(s) of the x-rate of an operating point ``"<rate>_at_<x>"``.
        interpolation : {"linear", "lower", "higher"}, default "linear"
            How a threshold at a rate is found between scores (thresholds at rates and
            operating points only).
        metric_kwargs : dict, optional
            Other options: ``beta`` (``fbeta``), or keyword arguments of a callable metric.
        n_resamples, confidence_level, method, alternative, rng
            As in :func:`mlci.bootstrap_ci`; every interval method is available.  Several
            confidence levels return a tuple of results, one per level.  ``"auto"``:
            percentile for ``"eer"`` (:func:`mlci.eer_ci`'s rule,
            :func:`mlci.engine.scores_rules.scores_auto_method`), BCa for every other statistic
            and for a callable, smoothed, subsampled or custom-sampled bootstrap.
            Intervals are kept inside the statistic's range (rates, EER and AUC in
            [0, 1]; thresholds unbounded).
        conditions : array-like, or list of array-like, optional
            Condition (speaker, session...) of every sample, in the samples' order (see
            :class:`Scores`): samples sharing a condition are resampled together.  A list
            of such arrays, top level first (``[speaker, session]``), is a nested design.
        strata : array-like, optional
            Stratum of every sample: resampling happens within each, keeping its size.
        resampling : mlci.Resampling, optional
            How the replicates are drawn beyond ``conditions`` and ``strata`` (see
            :class:`mlci.Resampling`): ``stratify`` (default None: True, except with nested
            conditions, which support no strata; with ``strata``, the classes within each
            stratum), ``two_stage``, ``weights``, ``sampler`` (samples in their order:
            ``pos`` then ``neg``, or the order of ``from_labels``; ``algorithm`` is then
            ``"weights"``), ``smoothing`` (the smoothed bootstrap, on a rebuilt
            :class:`Scores` per replicate; caveats in :mod:`mlci.engine.smoothing`; not with
            ``sample_weight``), ``subsample`` (m-out-of-n, rescaled; ``method`` is then
            ``"basic"``, ``"percentile"`` or ``"normal"``; not with ``conditions``,
            ``sampler``, Poisson weights or ``two_stage``), ``algorithm`` (``"lazy"`` draws
            only the counts a search needs, ``"weights"`` every sample's count, ``"auto"``
            the lazy one where it applies).
        dropna : bool, default False
            Drop the samples with a missing condition or stratum instead of refusing them
            (``details["n_dropped"]`` counts them with those dropped by the constructor).

        Returns
        -------
        BootstrapResult
            A tuple of them, one per level, when ``confidence_level`` is a sequence.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> s = Scores(pos=rng.normal(1, 1, 400), neg=rng.normal(0, 1, 600))
        >>> res = s.bootstrap_ci("fnr", threshold=[0.0, 0.5], rng=1)
        >>> res.confidence_interval.low.shape
        (2,)
        >>> res = s.bootstrap_ci("eer", rng=1)
        >>> bool(res.confidence_interval.low < res.estimate < res.confidence_interval.high)
        True

        Samples of one speaker are not independent: resample speakers (and, nested,
        their sessions).

        >>> speaker = rng.integers(0, 30, 1000)
        >>> session = rng.integers(0, 3, 1000)
        >>> res = s.bootstrap_ci("eer", conditions=[speaker, session], rng=1, n_resamples=200)
        >>> res.scheme, res.n_conditions
        ('nested(2 levels; resampled: 1)', 30)

        A custom scheme (here: the ordinary bootstrap of the positives only, negatives
        kept as they are):

        >>> def pos_only(rng, b):
        ...     return np.c_[rng.multinomial(400, np.full(400, 1 / 400), size=b),
        ...                  np.ones((b, 600))]
        >>> from mlci import Resampling
        >>> s.bootstrap_ci("eer", resampling=Resampling(sampler=pos_only), rng=1,
        ...                n_resamples=200).scheme
        'custom'

        Half-samples (m-out-of-n, rescaled) and the smoothed bootstrap:

        >>> res = s.bootstrap_ci("eer", resampling=Resampling(subsample=0.5), rng=1,
        ...                      n_resamples=200)
        >>> res.method, res.scheme, res.details["subsample"]["scale"]
        ('basic', 'subsample(m=500 of n=1000)', 1.0)
        >>> s.bootstrap_ci("eer", resampling=Resampling(smoothing=True), rng=1,
        ...                n_resamples=100).scheme
        'strata+smoothed'
        """
        rs = check_resampling(
            resampling,
            ("stratify", "two_stage", "weights", "sampler", "smoothing", "subsample", "algorithm"),
            "Scores.bootstrap_ci",
            stratify=None,
        )
        stratify, two_stage, weights = rs.stratify, rs.two_stage, rs.weights
        sampler, smoothing, subsample = rs.sampler, rs.smoothing, rs.subsample
        algorithm = rs.algorithm
        return scores_ci(
            self,
            metric,
            metric_kwargs,
            {"threshold": threshold, "rate": rate, "at": at, "interpolation": interpolation},
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            method=method,
            alternative=alternative,
            rng=rng,
            conditions=conditions,
            strata=strata,
            stratify=stratify,
            two_stage=two_stage,
            weights=weights,
            algorithm=algorithm,
            dropna=dropna,
            sampler=sampler,
            smoothing=smoothing,
            subsample=subsample,
        )

    def _bootstrap(
        self,
        make: Callable[[Scores], _Spec] | None,
        *,
        resampling: Resampling | None = None,
        **kwargs: Any,
    ) -> list[BootstrapResult]:
        """The one bootstrap driver of score statistics (:func:`._driver.bootstrap_scores`);
        ``resampling`` (checked: :func:`~mlci.inputs.resampling.check_resampling`) gives
        the design, ``stratify``, ``two_stage`` and ``weights``."""
        if resampling is not None:
            design = (resampling.stratify, resampling.two_stage, resampling.weights)
            kwargs.update(zip(("stratify", "two_stage", "weights"), design, strict=True))
        return bootstrap_scores(self, make, **kwargs)

    def _plain(self, pos: np.ndarray, neg: np.ndarray) -> Scores:
        """A plain :class:`Scores` of the given (user-scale) scores, with these conventions."""
        return Scores._trusted(pos, neg, self.score_class, self.equal_class)


def check_scores(scores: Any) -> Scores:
    """``scores`` if it is a :class:`Scores` object (the functions of one take no arrays)."""
    if not isinstance(scores, Scores):
        raise TypeError(
            f"`scores` must be an mlci.Scores object (Scores(pos, neg) or Scores.from_labels); "
            f"got {type(scores).__name__}."
        )
    return scores
