"""Scores that remember each sample's group: per-group rates and their intervals.

:class:`GroupScores` is a :class:`~mlci.scores.scores.Scores` (every method works on all
the samples) whose samples also carry a group label (score-analysis's ``GroupScores``).
``scores[g]`` is the group's own :class:`Scores`; ``group_<rate>(threshold)`` gives the
rate of every group at once (first axis: :attr:`GroupScores.groups`);
:meth:`GroupScores.metric_ci` runs :func:`~mlci.scores.groups.metric_by_group` on the
samples (metrics per group, normalised by the overall or the best group, with joint
intervals and a plot: a :class:`~mlci.scores.group_result.GroupResult`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from ..engine.smoothing import check_smoothing, check_subsample, smooth_scores
from ..inputs import ArgSpec, check_choice, check_flag, check_rng_seed, gather
from ._samplers import CellResampler
from .confusion import ConfusionMatrix
from .groups import GroupResult, metric_by_group
from .scores import Scores

__all__ = ["GroupScores"]

_GROUP_RATES = (
    "tpr",
    "fnr",
    "tnr",
    "fpr",
    "topr",
    "tonr",
    "tar",
    "frr",
    "trr",
    "far",
    "acceptance_rate",
    "rejection_rate",
)
_ALIAS = {
    "tar": "tpr",
    "frr": "fnr",
    "trr": "tnr",
    "far": "fpr",
    "acceptance_rate": "topr",
    "rejection_rate": "tonr",
}


class GroupScores(Scores):
    """Binary scores whose samples each belong to a group (gender, site, device...).

    Parameters
    ----------
    pos, neg : array-like of float
        Scores of the positive and of the negative samples, as in :class:`Scores`.
    pos_groups, neg_groups : array-like, same lengths as ``pos`` and ``neg``
        The group of every positive and every negative sample (one type; no missing
        value).
    score_class, equal_class : {"pos", "neg"}
        As in :class:`Scores`.
    group_names : sequence, optional
        The groups in the order of every per-group axis (default: the sorted distinct
        labels); it must contain every label given.  A group listed here without samples
        is allowed (its rates are refused when asked for, see :meth:`__getitem__`).

    Attributes
    ----------
    pos, neg : ndarray
        Sorted scores (all groups).
    pos_groups, neg_groups : ndarray
        The group of every score of :attr:`pos` and :attr:`neg` (same order).
    groups : ndarray
        The group names, the first axis of every ``group_*`` result.

    Notes
    -----
    A group needs both classes for its rates; ``GroupScores`` refuses no group at
    construction, but ``scores[g]`` and the ``group_*`` methods refuse a group without
    positives or negatives (as :class:`Scores` does).  Easy samples are not supported.

    Examples
    --------
    >>> gs = GroupScores.from_labels([0, 0, 1, 1, 1, 0, 0, 0, 1, 1],
    ...                              [0, 5, 1, 2, 6, 0, 1, 4, 1, 6],
    ...                              groups=list("aaaaabbbbb"))
    >>> gs.groups
    array(['a', 'b'], dtype='<U1')
    >>> gs.group_tpr(3.0)
    array([0.33333333, 0.5       ])
    >>> gs["b"].tpr(3.0)
    0.5
    >>> gs.tpr(3.0)     # all samples
    0.4
    """

    def __init__(
        self,
        pos: Any,
        neg: Any,
        *,
        pos_groups: Any,
        neg_groups: Any,
        score_class: str = "pos",
        equal_class: str = "pos",
        group_names: Any = None,
    ) -> None:
        super().__init__(pos, neg, score_class=score_class, equal_class=equal_class)
        n_pos, n_neg = int(self._is_pos.sum()), int((~self._is_pos).sum())
        g = gather(
            {"pos_groups": ArgSpec("groups", required=True)},
            {"pos_groups": pos_groups},
            allow_empty=True,
        )
        h = gather(
            {"neg_groups": ArgSpec("groups", required=True)},
            {"neg_groups": neg_groups},
            allow_empty=True,
        )
        for name, arr, n in (("pos_groups", g["pos_groups"], n_pos),
                             ("neg_groups", h["neg_groups"], n_neg)):  # fmt: skip
            if len(arr) != n:
                raise ValueError(
                    f"`{name}` has {len(arr)} labels for {n} scores in `{name.split('_')[0]}`; "
                    "give one group per score."
                )
        labels = _concat(g["pos_groups"], h["neg_groups"])
        self._set_groups(labels, group_names)

    @classmethod
    def from_labels(  # type: ignore[override]
        cls,
        y_true: Any,
        y_score: Any,
        groups: Any,
        *,
        pos_label: Any = None,
        score_class: str = "pos",
        equal_class: str = "pos",
        data: Any = None,
        group_names: Any = None,
        sample_weight: Any = None,
    ) -> GroupScores:
        """GroupScores from per-sample labels, scores and groups.

        Parameters
        ----------
        y_true : array-like, shape (n_samples,)
            Binary labels (see :meth:`Scores.from_labels`).
        y_score : array-like of float, shape (n_samples,)
        groups : array-like, shape (n_samples,)
            The group of every sample.
        pos_label, score_class, equal_class
            As in :meth:`Scores.from_labels`.
        data : DataFrame, optional
            ``y_true``, ``y_score`` and ``groups`` may then be column names.
        group_names : sequence, optional
            As in :class:`GroupScores`.
        sample_weight : array-like of float, shape (n_samples,), optional
            Non-negative per-sample weights, as in :meth:`Scores.from_labels`: every
            group's rates, confusion matrices and curves count a sample with its weight,
            and :meth:`metric_ci` multiplies a replicate's counts by the weights.

        Returns
        -------
        GroupScores

        Examples
        --------
        >>> gs = GroupScores.from_labels([1, 1, 0], [3, 2, 1], groups=["a", "b", "b"])
        >>> gs.pos, gs.pos_groups, gs.groups
        (array([2., 3.]), array(['b', 'a'], dtype='<U1'), array(['a', 'b'], dtype='<U1'))
        >>> w = GroupScores.from_labels([1, 1, 0, 1, 1, 0], [3, 2, 1, 3, 2, 1],
        ...                             groups=list("aaabbb"), sample_weight=[1, 3, 1, 1, 1, 1])
        >>> w.group_tpr(2.5)     # group a: weight 1 of 4 above 2.5
        array([0.25, 0.5 ])
        """
        sc = Scores.from_labels(
            y_true, y_score, pos_label=pos_label, score_class=score_class,
            equal_class=equal_class, data=data, sample_weight=sample_weight,
        )  # fmt: skip
        grp = gather({"groups": ArgSpec("groups", required=True)}, {"groups": groups}, data=data)
        labels = grp["groups"]
        if sc._kept is not None and len(labels) == sc._n_input != len(sc._y_score):
            labels = labels[sc._kept]  # one per row given, rows repeated (frequency_weights)
        if len(labels) != len(sc._y_score):
            raise ValueError(
                f"`groups` has {len(labels)} labels for {len(sc._y_score)} samples; give one "
                "group per sample."
            )
        obj = cls.__new__(cls)
        obj._init(sc._y_score, sc._is_pos, score_class, equal_class, sample_weight=sc._w)
        obj._set_groups(labels, group_names)
        return obj

    # ------------------------------------------------------------------ structure
    def _set_groups(self, labels: np.ndarray, group_names: Any) -> None:
        """Store the user-order group labels and the sorted per-class group arrays."""
        self._groups = labels
        if group_names is None:
            self.groups = np.unique(labels)
        else:
            names = np.asarray(group_names)
            if names.ndim != 1 or len(np.unique(names)) != len(names):
                raise ValueError("`group_names` must be a 1-d sequence of distinct names.")
            missing = sorted(set(np.unique(labels).tolist()) - set(names.tolist()))
            if missing:
                raise ValueError(f"`group_names` lacks the group(s) {missing} of the samples.")
            self.groups = names
        perm = self._sorted_perm()
        idx_p, idx_n = perm
        self.pos_groups = labels[idx_p]
        self.neg_groups = labels[idx_n]
        self._cache: dict[Any, Scores] = {}

    def _sorted_perm(self) -> tuple[np.ndarray, np.ndarray]:
        """User index of every score of :attr:`pos` and of :attr:`neg` (their order)."""
        idx_p, idx_n = np.flatnonzero(self._is_pos), np.flatnonzero(~self._is_pos)
        op = np.argsort(self._y_score[idx_p], kind="stable")
        on = np.argsort(self._y_score[idx_n], kind="stable")
        return idx_p[op], idx_n[on]

    def __repr__(self) -> str:
        return (
            f"GroupScores(n_pos={self.n_pos}, n_neg={self.n_neg}, n_groups={len(self.groups)}, "
            f"score_class={self.score_class!r}, equal_class={self.equal_class!r})"
        )

    def _eq_extra(self, other: Any) -> bool:
        return isinstance(other, GroupScores) and bool(
            np.array_equal(self.pos_groups, other.pos_groups)
            and np.array_equal(self.neg_groups, other.neg_groups)
        )

    def __getitem__(self, group: Any) -> Scores:
        """The :class:`Scores` of one group.

        Raises
        ------
        ValueError
            If ``group`` is not one of :attr:`groups`, or the group lacks a class.

        Examples
        --------
        >>> gs = GroupScores([1, 2, 3], [5, 6], pos_groups=[0, 1, 0], neg_groups=[1, 0])
        >>> gs[0].pos, gs[0].neg
        (array([1., 3.]), array([6.]))
        """
        if group not in self._cache:
            hit = (
                np.flatnonzero(self.groups == group)
                if _comparable(group)
                else np.empty(0, dtype=np.intp)
            )
            if len(hit) == 0:
                raise ValueError(
                    f"`group` {group!r} is not a group of these scores; groups: "
                    f"{self.groups.tolist()}."
                )
            in_group = self._groups == self.groups[hit[0]]
            pos = self._y_score[in_group & self._is_pos]
            neg = self._y_score[in_group & ~self._is_pos]
            if len(pos) == 0 or len(neg) == 0:
                raise ValueError(
                    f"Group {group!r} has no {'positive' if len(pos) == 0 else 'negative'} "
                    "scores; its rates need both classes."
                )
            if self._w is None:
                sc = Scores._trusted(pos, neg, self.score_class, self.equal_class)
            else:
                w = self._w[in_group]
                for cls_mask, what in ((self._is_pos, "positive"), (~self._is_pos, "negative")):
                    if not (w[cls_mask[in_group]] > 0).any():
                        raise ValueError(
                            f"Group {group!r}: `sample_weight` is zero on every {what} "
                            "sample; its rates need both classes."
                        )
                sc = Scores.__new__(Scores)
                sc._init(
                    self._y_score[in_group], self._is_pos[in_group], self.score_class,
                    self.equal_class, sample_weight=w,
                )  # fmt: skip
            self._cache[group] = sc
        return self._cache[group]

    def swap(self) -> GroupScores:
        """Exchange the classes (and their groups), flipping ``score_class`` and
        ``equal_class``, as :meth:`Scores.swap`.

        Examples
        --------
        >>> gs = GroupScores([1, 2], [3, 4], pos_groups=[8, 9], neg_groups=[4, 4])
        >>> gs.swap().pos_groups
        array([4, 4])
        """
        if self._w is not None:
            obj = type(self).__new__(type(self))
            obj._init(
                self._y_score, ~self._is_pos, "neg" if self.score_class == "pos" else "pos",
                "neg" if self.equal_class == "pos" else "pos", sample_weight=self._w,
            )  # fmt: skip
            obj._set_groups(self._groups, self.groups)
            return obj
        return GroupScores(
            self.neg,
            self.pos,
            pos_groups=self.neg_groups,
            neg_groups=self.pos_groups,
            score_class="neg" if self.score_class == "pos" else "pos",
            equal_class="neg" if self.equal_class == "pos" else "pos",
            group_names=self.groups,
        )

    # ------------------------------------------------------------------ per-group values
    def group_cm(self, threshold: Any) -> ConfusionMatrix:
        """Binary confusion matrices of every group at ``threshold``: shape ``(G, X..., 2, 2)``.

        Parameters
        ----------
        threshold : float or array-like of float, shape X
            As in :meth:`Scores.cm`.

        Examples
        --------
        >>> gs = GroupScores([1, 3, 5], [2, 3], pos_groups=[0, 1, 0], neg_groups=[1, 0])
        >>> cm = gs.group_cm(3.4)
        >>> cm.shape, cm[0] == gs[0].cm(3.4)
        ((2,), True)
        """
        mats = np.stack([self[g].cm(threshold).matrix for g in self.groups.tolist()])
        return ConfusionMatrix(matrix=mats, binary=True)

    def group_metric(self, metric: Any, threshold: Any = None, **kwargs: Any) -> np.ndarray:
        """A metric of every group: shape ``(G, Y...)`` (score-analysis's ``groupwise``).

        Parameters
        ----------
        metric : str or callable
            A confusion-matrix metric name as in :meth:`Scores.metric` (``"tpr"``,
            ``"fpr"``, ``"ppv"``, ``"mcc"``...), evaluated at ``threshold``; or a function
            ``metric(scores, **kwargs)`` of one group's :class:`Scores` (e.g.
            ``Scores.eer`` or ``lambda s: s.auc()``), returning a number or a fixed-shape
            array.
        threshold : float or array-like, any shape X
            Needed by a metric name; passed as ``threshold=`` to a function when given.
        **kwargs
            ``beta`` for ``fbeta``, or further arguments of the function.

        Examples
        --------
        >>> gs = GroupScores([1, 3, 5], [2, 3], pos_groups=[0, 1, 0], neg_groups=[1, 0])
        >>> gs.group_metric("fpr", [2.2, 3.5])
        array([[1., 0.],
               [0., 0.]])
        >>> gs.group_metric(Scores.auc)
        array([0.5, 1. ])
        """
        if callable(metric):
            if threshold is not None:
                kwargs["threshold"] = threshold
            vals = [np.asarray(metric(self[g], **kwargs)) for g in self.groups.tolist()]
        else:
            if not isinstance(metric, str):
                raise TypeError(
                    f"`metric` must be a metric name or a function of a Scores; got {metric!r}."
                )
            if threshold is None:
                raise TypeError(f"{metric!r} is a metric at a threshold: pass `threshold=`.")
            vals = [
                np.asarray(self[g].metric(metric, threshold, **kwargs))
                for g in self.groups.tolist()
            ]
        shapes = {v.shape for v in vals}
        if len(shapes) != 1:
            raise ValueError(f"`metric` returned values of different shapes {sorted(shapes)}.")
        return np.stack(vals)

    def bootstrap_sample(
        self,
        *,
        rng: Any = None,
        stratify: bool = False,
        by_group: bool = False,
        weights: str = "multinomial",
        sampler: Callable[[np.random.Generator, int], Any] | None = None,
        smoothing: bool | float = False,
        subsample: float | None = None,
    ) -> GroupScores:
        """One bootstrap resample as a new :class:`GroupScores` (groups kept with scores).

        Parameters
        ----------
        rng, stratify, weights, sampler, smoothing, subsample
            As in :meth:`Scores.bootstrap_sample` (smoothing: Silverman's bandwidth of each
            class over all groups).
        by_group : bool, default False
            Resample within every group, keeping its size (combined with ``stratify``:
            within every group x class cell); with ``subsample``, draw that fraction of
            every cell.

        Examples
        --------
        >>> gs = GroupScores([0, 1, 2], [3, 4], pos_groups=list("abc"), neg_groups=list("de"))
        >>> gs.bootstrap_sample(rng=0, by_group=True) == gs     # one sample per group
        True
        >>> gs = GroupScores(np.arange(8.0), np.arange(8.0) + 0.5, pos_groups=list("aabbaabb"),
        ...                  neg_groups=list("aabbaabb"))
        >>> h = gs.bootstrap_sample(rng=0, by_group=True, stratify=True, subsample=0.5)
        >>> h.n_pos, h.n_neg, sorted(h.pos_groups.tolist())
        (4, 4, ['a', 'a', 'b', 'b'])
        """
        check_flag("by_group", by_group)
        if not by_group:
            # a GroupScores: Scores.bootstrap_sample builds through self._resampled
            return cast("GroupScores", super().bootstrap_sample(
                rng=rng, stratify=stratify, weights=weights, sampler=sampler,
                smoothing=smoothing, subsample=subsample,
            ))  # fmt: skip
        check_flag("stratify", stratify)
        check_choice("weights", weights, ("multinomial", "poisson"))
        h = check_smoothing(smoothing)
        frac = check_subsample(subsample)
        if sampler is not None:
            raise ValueError("`sampler` replaces the resampling design: drop `by_group`.")
        if frac is not None and weights != "multinomial":
            raise ValueError("`subsample` is a scheme of its own: drop `weights`.")
        if h is not False and self._w is not None:
            raise ValueError("`smoothing` of weighted scores is not supported.")
        seed = check_rng_seed(rng)
        codes = np.unique(self._groups, return_inverse=True)[1].reshape(-1)
        cell = codes * 2 + self._is_pos if stratify else codes
        cells = [np.flatnonzero(cell == c) for c in np.unique(cell)]
        scheme = CellResampler(cells, len(cell), root=seed, weights=weights, subsample=frac)
        gen = scheme.generator(scheme.stream, 0)
        idx = scheme.resample(gen, self._is_pos)
        if h is False:
            return self._resampled(idx)
        y = smooth_scores(self._y_score[idx], self._is_pos[idx], self._bandwidths(h), gen)
        return self._resampled(idx, y)

    def _resampled(self, idx: np.ndarray, y: np.ndarray | None = None) -> GroupScores:
        order = np.argsort(idx, kind="stable")
        idx = idx[order]
        y = self._y_score[idx] if y is None else np.asarray(y)[order]
        is_pos, grp = self._is_pos[idx], self._groups[idx]
        obj = type(self).__new__(type(self))
        w = None if self._w is None else self._w[idx]
        obj._init(y, is_pos, self.score_class, self.equal_class, sample_weight=w)
        obj._set_groups(grp, self.groups)
        return obj

    # ------------------------------------------------------------------ intervals
    def metric_ci(
        self,
        metric: str = "fnr",
        *,
        normalize: str | None = None,
        **kwargs: Any,
    ) -> GroupResult:
        """A metric per group (and overall) with joint bootstrap intervals.

        Runs :func:`mlci.metric_by_group` on these samples: every option of it
        (``threshold``, ``rate``, ``at``, ``n_resamples``, ``confidence_level``,
        ``method``, ``rng``, ``conditions`` (in the samples' order), ``resampling``...) is
        accepted here, except the data arguments.

        Parameters
        ----------
        metric : str
            As in :func:`mlci.metric_by_group`.
        normalize : {None, "by_overall", "by_best"}
            Divide every group's value by the overall value or by the best group's, in
            every replicate (score-analysis's "showbias" ratios).
        **kwargs
            Any other option of :func:`mlci.metric_by_group`.

        Returns
        -------
        GroupResult
            ``to_frame()`` for the table, ``plot()`` for the intervals.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 600)
        >>> gs = GroupScores.from_labels(y, y + rng.normal(0, 1, 600),
        ...                              groups=rng.choice(["f", "m"], 600))
        >>> res = gs.metric_ci("fnr", threshold=0.5, normalize="by_overall", rng=0,
        ...                    n_resamples=200)
        >>> res.to_frame()["group"].tolist()
        ['f', 'm', '(overall)']
        """
        for bad in ("y_true", "y_score", "groups", "data", "pos_label", "score_class",
                    "equal_class", "sample_weight"):  # fmt: skip
            if bad in kwargs:
                raise TypeError(f"`{bad}` is fixed by the GroupScores object; do not pass it.")
        return metric_by_group(
            self._is_pos,
            self._y_score,
            groups=self._groups,
            metric=metric,
            normalize=normalize,
            pos_label=True,
            score_class=self.score_class,
            equal_class=self.equal_class,
            sample_weight=self._w,
            **kwargs,
        )


def _comparable(group: Any) -> bool:
    return np.ndim(group) == 0


def _concat(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if len(a) == 0:
        return b
    if len(b) == 0:
        return a
    if (a.dtype.kind in "US" and b.dtype.kind not in "US") or (
        b.dtype.kind in "US" and a.dtype.kind not in "US"
    ):
        raise TypeError(
            "`pos_groups` and `neg_groups` must hold labels of one type (both text or both "
            "numbers)."
        )
    return np.concatenate([a, b])


def _add_rate(name: str) -> None:
    base = _ALIAS.get(name, name)

    def method(self: GroupScores, threshold: Any) -> np.ndarray:
        return self.group_metric(base, threshold)

    method.__name__ = f"group_{name}"
    method.__doc__ = (
        f"``{name}`` of every group at ``threshold``: shape ``(G, X...)`` (see "
        ":meth:`group_metric`)."
    )
    setattr(GroupScores, method.__name__, method)


for _name in _GROUP_RATES:
    _add_rate(_name)
