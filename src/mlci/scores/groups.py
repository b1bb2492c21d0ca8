"""Metrics per group (e.g. gender x age band) at thresholds, with intervals.

The fairness question: "is our false-rejection rate worse for one group?".  Each sample
is an atom (group, class, bin between sorted thresholds), so the bootstrap resamples
inside every (group, class) stratum through the core engine with O(groups * thresholds)
work per replicate.  The overall metric and the normalised ones (by the overall value,
or by the best group) come from the same replicates, so their intervals are joint.
"""

from __future__ import annotations

import warnings
from dataclasses import replace
from typing import Any, Literal

import numpy as np

from ..engine.bootstrap import run_with_options
from ..engine.nested import plan_for_conditions
from ..engine.scores_rules import scores_auto_method
from ..exceptions import DegenerateIntervalWarning
from ..feedback import reports_progress
from ..inputs import (
    ArgSpec,
    binary_target,
    bootstrap_options,
    check_choice,
    check_flag,
    check_strata_stratify,
    fast_unique,
    gather,
    is_nested,
    knobs_in_config,
)
from ..inputs.resampling import Resampling, check_resampling, resampling_keywords
from ..metrics import Kernel, check_sample_weight, higher_is_better, safe_div, with_sample_weight
from ..results import require_pandas
from ._data import PositivesFirst
from ._design import strata_codes
from ._edge_interval import RATE_CLASS, group_rate_edge
from ._group_classes import (
    NaNKernel,
    class_sizes,
    expand,
    missing_class_rows,
    score_metric_defined,
    warn_undefined_groups,
)
from ._group_rules import group_eer_rule
from ._kernels import _ScoresKernel, atom_keys, internal_perm
from ._roc import _check_threshold
from ._specs import _check_beta, _resolve
from .confusion import CM_METRICS, binary_cm_metric, cm_metric_bounds
from .group_result import GroupResult, group_result, plot_group_result
from .scores import Scores

__all__ = ["GroupResult", "metric_by_group", "plot_group_result"]


class _GroupKernel(Kernel):
    work_factor = 4.0
    #: the elements computed (flat over (groups + 1, thresholds); None: all), and the
    #: (group, threshold) elements undefined for a missing class (_group_classes)
    keep: np.ndarray | None = None
    undefined: np.ndarray | None = None

    def __init__(
        self,
        keys: np.ndarray,
        n_groups: int,
        k: int,
        metric: str,
        normalize: str | None,
        beta: float,
    ) -> None:
        self.keys = keys
        self.g, self.k = n_groups, k
        self.m = n_groups * 2 * (k + 1)
        self.metric = metric
        self.normalize = normalize
        self.beta = beta
        self.shape = (n_groups + 1, k)
        self.name = metric

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        b = w.shape[0]
        c = np.asarray(w, dtype=float).reshape(b, self.g, 2, self.k + 1)
        below = np.cumsum(c, axis=-1)[..., : self.k]  # decided negative at each threshold
        tot = c.sum(axis=-1, keepdims=True)
        cm = np.empty((b, self.g, self.k, 2, 2))
        cm[..., 1, 1] = below[:, :, 0]  # tn
        cm[..., 1, 0] = tot[:, :, 0] - below[:, :, 0]  # fp
        cm[..., 0, 1] = below[:, :, 1]  # fn
        cm[..., 0, 0] = tot[:, :, 1] - below[:, :, 1]  # tp
        per = binary_cm_metric(cm, self.metric, self.beta)
        overall = binary_cm_metric(cm.sum(axis=1), self.metric, self.beta)
        if self.normalize == "by_overall":
            per = safe_div(per, overall[:, None, :])
        elif self.normalize == "by_best":
            hib = higher_is_better(self.metric)
            if self.undefined is not None:  # (a group without the class is no candidate)
                per = np.where(self.undefined, -np.inf if hib else np.inf, per)
            best = (np.max if hib else np.min)(per, axis=1)
            per = safe_div(per, best[:, None, :])
        out = np.concatenate([per, overall[:, None, :]], axis=1)
        return out if self.keep is None else out.reshape(b, -1)[:, self.keep]


#: threshold-free statistics of the scores (computed per group from each group's Scores)
_SCORE_METRICS = ("eer", "eer_threshold", "auc", "roc_auc")


def _is_score_metric(metric: str) -> bool:
    if metric in _SCORE_METRICS:
        return True
    if metric.startswith("threshold_at_"):
        return True
    y, sep, x = metric.partition("_at_")
    return bool(sep) and y in _RATES and x in _RATES


_RATES = ("tpr", "fnr", "tnr", "fpr", "tar", "frr", "trr", "far")


class _ScoreGroupKernel(Kernel):
    """A Scores statistic (EER, AUC, threshold at a rate, operating point) per group.

    Atoms are the distinct scores of every (group, class); the overall statistic sees
    the same replicate through the sum of the group atoms that share an overall atom.
    """

    work_factor = 8.0
    keep: np.ndarray | None = None  # (as _GroupKernel's)

    def __init__(
        self,
        keys: np.ndarray,
        group_kernels: list[Kernel],
        overall_kernel: Kernel,
        to_overall: np.ndarray,
        normalize: str | None,
        higher_is_better: bool | None,
        name: str,
        class_blocks: list[tuple[int, int]],
    ) -> None:
        self.keys = keys
        self.kernels = group_kernels
        self.class_blocks = class_blocks  # (negatives, positives) atoms of every group
        self.overall = overall_kernel
        self.offsets = np.concatenate(([0], np.cumsum([k.m for k in group_kernels])))
        self.m = int(self.offsets[-1])
        perm = np.argsort(to_overall, kind="stable")
        self.perm = perm
        self.starts = np.flatnonzero(np.r_[True, np.diff(to_overall[perm]) != 0])
        self.normalize = normalize
        self.higher = higher_is_better
        self.shape = (len(group_kernels) + 1, *overall_kernel.shape)
        self.name = name
        # the atoms are numbered by (group, class, score): a canonical order, so that the
        # samplers draw alike for any order of the rows (Kernel.atom_rank, issue 20)
        self.atom_rank = np.arange(self.m)

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        per = np.stack(
            [
                k.evaluate(w[:, self.offsets[i] : self.offsets[i + 1]])
                for i, k in enumerate(self.kernels)
            ],
            axis=1,
        )
        overall = self.overall.evaluate(np.add.reduceat(w[:, self.perm], self.starts, axis=1))
        if self.normalize == "by_overall":
            per = safe_div(per, overall[:, None])
        elif self.normalize == "by_best":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN replicates
                best = (np.nanmax if self.higher else np.nanmin)(per, axis=1)
            per = safe_div(per, best[:, None])
        out = np.concatenate([per, overall[:, None]], axis=1)
        return out if self.keep is None else out.reshape(len(out), -1)[:, self.keep]


def _score_metric_by_group(
    z: np.ndarray,
    is_pos: np.ndarray,
    gidx: np.ndarray,
    names: Any,
    metric: str,
    metric_kwargs: dict[str, Any],
    normalize: str | None,
    score_class: str,
    equal_class: str,
) -> tuple[_ScoreGroupKernel, np.ndarray]:
    """Kernel and per-sample atom keys for a threshold-free Scores statistic per group
    (a group without a class: NaN where the statistic needs it, :class:`NaNKernel`)."""

    def scores_of(mask: np.ndarray) -> Scores:  # (all data holds both classes: checked)
        pos, neg = z[mask & (is_pos == 1)], z[mask & (is_pos == 0)]
        return Scores._trusted(pos, neg, score_class, equal_class)

    # MetricInfo's direction: of the statistic, or of the rate read at an operating point
    # ("fnr_at_fpr": lower is better); thresholds have none (no "best" group)
    higher = higher_is_better(metric if metric in _SCORE_METRICS else metric.partition("_at_")[0])
    if normalize == "by_best" and higher is None:
        raise ValueError(
            f"`normalize`='by_best' needs a metric where lower or higher is better; "
            f"{metric!r} is a threshold. Use `normalize`='by_overall' or None."
        )
    n = len(z)
    keys = np.empty(n, dtype=np.intp)
    kernels: list[Kernel] = []
    to_overall: list[np.ndarray] = []
    blocks: list[tuple[int, int]] = []
    overall_sc = scores_of(np.ones(n, dtype=bool))
    overall_spec = _resolve(overall_sc, metric, dict(metric_kwargs))
    k_all, _ = atom_keys(overall_sc)
    overall_kernel = _ScoresKernel(overall_sc._lay, k_all, overall_spec)
    overall_shape = tuple(overall_kernel.shape)
    ou = overall_sc._lay.u
    offset = 0
    for g in range(len(names)):
        rows = np.flatnonzero(gidx == g)
        sub = np.zeros(n, dtype=bool)
        sub[rows] = True
        sc = scores_of(sub)
        # user order inside the group: Scores(pos, neg) numbers pos first, then neg
        local = np.r_[rows[is_pos[rows] == 1], rows[is_pos[rows] == 0]]
        k_int, _ = atom_keys(sc)
        keys[local[internal_perm(sc)]] = k_int + offset
        lay = sc._lay
        n_pos = int(is_pos[rows].sum())
        if score_metric_defined(metric, n_pos > 0, n_pos < len(rows)):
            kernels.append(_ScoresKernel(lay, k_int, _resolve(sc, metric, dict(metric_kwargs))))
        else:  # a group without the class the statistic needs
            kernels.append(NaNKernel(lay.m[0] + lay.m[1], overall_shape))
        to_overall.append(
            np.r_[
                np.searchsorted(ou[0], lay.u[0]),
                len(ou[0]) + np.searchsorted(ou[1], lay.u[1]),
            ]
        )
        offset += lay.m[0] + lay.m[1]
        blocks.append((int(lay.m[0]), int(lay.m[1])))
    kernel = _ScoreGroupKernel(
        keys,
        kernels,
        overall_kernel,
        np.concatenate(to_overall),
        normalize,
        higher,
        metric,
        blocks,
    )
    return kernel, keys


def _group_variables(groups: Any, data: Any) -> tuple[list[str], dict[str, Any]]:
    """Names (for the output's columns) and values (for the gate) of the group variables.

    ``groups``: a column name or a list of column names of ``data``; an array (or Series)
    of per-sample groups; a list of such arrays (their combinations are the groups); or
    a DataFrame (its columns).
    """
    if groups is None:
        raise ValueError("`groups` is required: the group of every sample (or column names).")
    if data is not None and isinstance(groups, str):
        return [groups], {"groups": groups}
    if data is not None and isinstance(groups, list | tuple) and groups:
        if all(isinstance(g, str) for g in groups):
            if len(set(groups)) < len(groups):
                raise ValueError(f"`groups` names a column twice: {list(groups)!r}.")
            return list(groups), {f"groups[{i}]": g for i, g in enumerate(groups)}
    cols = getattr(groups, "columns", None)
    if cols is not None and getattr(groups, "ndim", 2) == 2:  # a DataFrame of group columns
        names = [str(c) for c in cols]
        return names, {f"groups[{i}]": groups[c] for i, c in enumerate(cols)}
    if is_nested(groups) and not isinstance(groups, str):
        names = [_name_of(g, f"group_{i}") for i, g in enumerate(groups)]
        return _unique_names(names), {f"groups[{i}]": g for i, g in enumerate(groups)}
    return [_name_of(groups, "group")], {"groups": groups}


def _name_of(x: Any, default: str) -> str:
    name = getattr(x, "name", None)
    return str(name) if isinstance(name, str | int) and not isinstance(name, bool) else default


def _unique_names(names: list[str]) -> list[str]:
    if len(set(names)) == len(names):
        return names
    return [f"group_{i}" for i in range(len(names))]


@resampling_keywords
@knobs_in_config
@reports_progress
def metric_by_group(
    y_true: Any,
    y_score: Any,
    *,
    groups: Any,
    data: Any = None,
    metric: str = "fnr",
    threshold: Any = None,
    rate: Any = None,
    at: Any = None,
    interpolation: str | None = None,
    pos_label: Any = None,
    score_class: str = "pos",
    equal_class: str = "pos",
    normalize: str | None = None,
    metric_kwargs: dict[str, Any] | None = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    rng: Any = None,
    conditions: Any = None,
    strata: Any = None,
    resampling: Resampling | None = None,
    dropna: bool = False,
    sample_weight: Any = None,
) -> Any:
    """Any metric of binary scores per group (at thresholds, or EER/AUC/...), with intervals.

    Parameters
    ----------
    y_true : array-like, shape (n_samples,), or a column name of ``data``
        Binary labels (more than two classes are refused: binarise them first).
    y_score : array-like of float, shape (n_samples,), or a column name of ``data``
        Scores.
    groups : array-like, list of array-like, or column name(s) of ``data``
        The group of every sample; with several group variables (e.g. ``["gender",
        "age"]``) the groups are their combinations.
    data : DataFrame, optional
        A pandas or polars DataFrame (or pyarrow Table): ``y_true``, ``y_score``,
        ``groups`` and ``conditions`` may then be column names.
    metric : str
        Any confusion-matrix metric at ``threshold`` (``"fnr"``, ``"fpr"``, ``"ppv"``,
        ``"accuracy"`` ...), or a threshold-free statistic of each group's scores:
        ``"eer"``, ``"eer_threshold"``, ``"auc"``, ``"threshold_at_fpr"`` (and
        tpr/tnr/fnr) at ``rate``, an operating point ``"fnr_at_fpr"`` (any
        ``"<rate>_at_<rate>"``) at ``at`` -- as in :meth:`mlci.Scores.bootstrap_ci`.

        A group without positives (or without negatives) gets NaN where the metric
        needs the class it lacks, with a :class:`~mlci.DegenerateIntervalWarning` naming
        the group, the class and what to do; the other groups and the overall value keep
        their intervals (``details["undefined_rows"]``; ``None`` in ``to_dict``).  What
        such a group defines: at a threshold, whatever the metric's formula leaves
        defined (a zero denominator is NaN): without positives fpr, tnr (specificity),
        accuracy, error_rate, the counts and the decision rates; ppv, f1 and fbeta are 0
        and fdr 1 where the group has positive decisions (all of them false), else NaN;
        npv is 1 and for 0 where it has negative decisions; cohen_kappa 0 where the
        decisions differ; tpr, fnr, balanced_accuracy and mcc are NaN (symmetrically
        without negatives).  Of the threshold-free statistics,
        ``"threshold_at_<rate>"`` needs only the class of its rate (fpr/tnr: negatives,
        tpr/fnr: positives); the EER, its threshold, the AUC and the operating points
        need both.  A metric undefined in every group is an error.
    threshold : float or array-like, optional
        Decision threshold(s) of a confusion-matrix metric; ``score_class``/``equal_class``
        as in :class:`mlci.Scores`.
    rate : float or array-like, optional
        Target rate(s) of ``"threshold_at_<rate>"``.
    at : float or array-like, optional
        Value(s) of the x-rate of an operating point ``"<rate>_at_<x>"``.
    interpolation : {"linear", "lower", "higher"}, optional
        How thresholds at rates are found between scores (default ``"linear"``).
    pos_label : optional
        The positive class; by default 1 (True) for labels in {0, 1}, {-1, 1} or
        {False, True}, otherwise required.
    score_class, equal_class : {"pos", "neg"}, default "pos"
        As in :class:`mlci.Scores`: which class high scores point to, and on which side
        a score equal to the threshold falls.
    normalize : {None, "by_overall", "by_best"}
        Divide each group's value by the value on all data, or by the best group's
        (smallest for error rates, largest for e.g. TPR), in every replicate.
    metric_kwargs : dict, optional
        ``{"beta": ...}`` for ``fbeta``.
    n_resamples, confidence_level, method, alternative, rng
        Bootstrap options, as in :func:`mlci.bootstrap_ci`.  ``method="auto"`` (the
        default) is the statistic's rule of the score drivers
        (:func:`mlci.engine.scores_rules.scores_auto_method`): percentile for ``"eer"``
        (with a warning when a group's EER rests on fewer than 5 errors in its smaller
        class), BCa otherwise and with ``normalize`` (docs/validation.md, section 5, "The
        Scores statistics" and "metric_by_group and trial_bootstrap_ci").  Each group's
        EER (and the overall one) with few errors gets the interval :func:`mlci.eer_ci`
        gives that group's rows, where the design is plain (no ``sample_weight``, no
        ``strata``, multinomial, one stage): the score interval below one error of
        independent trials, its version with the design effect below 5 errors over
        ``conditions`` (:mod:`mlci.engine.scores_clustered`; docs/validation.md, "EER
        and operating points with few errors over conditions"); ``details`` then names
        those rows (``score_interval_rows``) and why (``score_interval_reason``).  A
        class rate at a threshold (fnr, fpr, tpr, tnr and synonyms) whose bootstrap
        interval collapsed onto 0 or 1 (no error, or no success, in that class of the
        group) gets the Wilson interval of the group's class size instead, as
        :func:`mlci.operating_point_ci` gives a score interval (``edge_interval_rows``;
        without ``sample_weight``; one-sided, the one-sided Wilson bound).
    conditions : array-like, or list of array-like, optional
        Condition (speaker, session) of every sample, resampled as a unit; a list of
        levels, top first, is a nested design.
    strata : array-like, optional
        Further strata, combined with the group x class cells of the default ``stratify``.
    resampling : mlci.Resampling, optional
        How the replicates are drawn beyond ``conditions`` and ``strata`` (see
        :class:`mlci.Resampling`): ``stratify`` (True: resample within each (group,
        class) cell, keeping its size, refused together with ``strata``; default: True,
        except with nested conditions, which support no strata; with ``strata``, the
        cells within each stratum), ``two_stage`` (with conditions, also resample the
        samples or lower levels inside each drawn condition) and ``weights``
        (``"multinomial"`` or ``"poisson"``).
    dropna : bool, default False
        Drop the samples with a missing value in any per-sample argument instead of
        refusing them; ``out.attrs["n_dropped"]`` says how many.
    sample_weight : array-like of float, shape (n_samples,), or a column name of ``data``
        Non-negative per-sample weights (scikit-learn's ``sample_weight``): every group's
        and the overall confusion matrix (or ROC) counts a sample with its weight, and a
        bootstrap replicate's counts are multiplied by the weights.

    Returns
    -------
    GroupResult
        One row per (group, threshold) plus the ``"(overall)"`` rows, with columns
        ``estimate``, ``low``, ``high`` (a ``rate`` or ``at`` column instead of
        ``threshold`` for those metrics; none for EER and AUC).  With ``normalize``, the
        ``"(overall)"`` rows hold the overall metric itself (not normalised).
        ``to_frame()`` gives the table as a DataFrame (its ``attrs`` hold the options and
        ``n_dropped``); ``plot()`` draws every group's interval.

    Examples
    --------
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"gender": rng.choice(["f", "m"], 600),
    ...                    "label": rng.integers(0, 2, 600)})
    >>> df["score"] = df["label"] + rng.normal(0, 1, 600)
    >>> out = metric_by_group("label", "score", groups="gender", data=df,
    ...                       threshold=[0.3, 0.5], rng=0, n_resamples=200).to_frame()
    >>> list(out.columns)
    ['gender', 'threshold', 'estimate', 'low', 'high']
    >>> len(out)
    6
    >>> eer = metric_by_group(df["label"], df["score"], groups=df["gender"], metric="eer",
    ...                       rng=0, n_resamples=200).to_frame()
    >>> list(eer.columns), len(eer)
    (['gender', 'estimate', 'low', 'high'], 3)

    Weighted samples (a weight of 2 counts a sample twice):

    >>> w = np.where(df["gender"] == "f", 2.0, 1.0)
    >>> out = metric_by_group(df["label"], df["score"], groups=df["gender"], threshold=0.5,
    ...                       sample_weight=w, rng=0, n_resamples=200).to_frame()
    >>> out["estimate"].round(3).tolist()
    [0.312, 0.373, 0.335]
    """
    pd = require_pandas()
    # ---- options (no data touched yet)
    opts = bootstrap_options(
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
        linearized=False,
    )
    if not isinstance(metric, str):
        raise TypeError(f"`metric` must be a metric name; got {metric!r}.")
    if method == "auto" and normalize is None:  # the statistic's own rule (eer_ci's)
        auto, reason = scores_auto_method(metric)
        opts = replace(opts, method=auto, method_reason=reason)
    score_metric = _is_score_metric(metric)
    if not score_metric and metric not in CM_METRICS:
        raise ValueError(
            f"Unknown metric {metric!r}; known: eer, eer_threshold, auc, "
            f"threshold_at_<tpr|fnr|tnr|fpr>, <rate>_at_<rate>, {', '.join(CM_METRICS)}."
        )
    check_choice(
        "normalize",
        normalize if normalize is not None else "none",
        ("none", "by_overall", "by_best"),
    )
    check_choice("score_class", score_class, ("pos", "neg"))
    check_choice("equal_class", equal_class, ("pos", "neg"))
    rs = check_resampling(
        resampling, ("stratify", "two_stage", "weights"), "mlci.metric_by_group", stratify=None
    )
    stratify, two_stage, weights = rs.stratify, rs.two_stage, rs.weights
    check_flag("dropna", dropna)
    check_strata_stratify(strata, stratify, "group x class")
    if metric_kwargs is not None and not isinstance(metric_kwargs, dict):
        raise TypeError(f"`metric_kwargs` must be a dict; got {type(metric_kwargs).__name__}.")
    extra_kw = sorted(set(metric_kwargs or {}) - {"beta"})
    if extra_kw:
        raise TypeError(f"Unknown option(s) {extra_kw} in `metric_kwargs`; it takes 'beta'.")
    beta = _check_beta((metric_kwargs or {}).get("beta", 1.0))
    mkw: dict[str, Any] = {}
    if score_metric:
        if threshold is not None:
            raise TypeError(f"{metric!r} does not take `threshold`.")
        if metric.startswith("threshold_at_"):
            if rate is None:
                raise TypeError(f"{metric!r} needs `rate=` (the target rate).")
            mkw["rate"] = rate
        elif "_at_" in metric:
            if at is None:
                raise TypeError(f"{metric!r} needs `at=` (the value of the x-rate).")
            mkw["at"] = at
        extra = [n for n, v in (("rate", rate), ("at", at)) if v is not None]
        if sorted(extra) != sorted(mkw):
            raise TypeError(f"{metric!r} does not take {', '.join(f'`{e}`' for e in extra)}.")
        if interpolation is not None:
            if not mkw:
                raise TypeError(f"{metric!r} does not take `interpolation`.")
            mkw["interpolation"] = interpolation
        if metric_kwargs:
            raise TypeError(f"{metric!r} takes no `metric_kwargs`.")
    else:
        if threshold is None:
            raise TypeError(f"{metric!r} is a metric at a threshold: pass `threshold=`.")
        if rate is not None or at is not None or interpolation is not None:
            raise TypeError(f"{metric!r} takes `threshold`, not `rate`, `at` or `interpolation`.")
        t = _check_threshold(threshold).reshape(-1)
    # ---- the per-sample data, through the gate
    names, group_values = _group_variables(groups, data)
    specs = {
        "y_true": ArgSpec("labels", required=True),
        "y_score": ArgSpec("scores", required=True),
    }
    values: dict[str, Any] = {"y_true": y_true, "y_score": y_score}
    for k, v in group_values.items():
        specs[k] = ArgSpec("groups")
        values[k] = v
    # with `data`, a list of column names is nested levels (as `groups` is several variables)
    names_given = (
        data is not None
        and isinstance(conditions, list | tuple)
        and len(conditions) > 0
        and all(isinstance(c, str) for c in conditions)
    )
    nested = names_given or is_nested(conditions)
    cond_keys: list[str] = []
    if conditions is not None:
        levels = list(conditions) if nested else [conditions]
        for i, c in enumerate(levels):
            key = f"conditions[{i}]" if nested else "conditions"
            specs[key] = ArgSpec("groups")
            values[key] = c
            cond_keys.append(key)
    if strata is not None:
        specs["strata"] = ArgSpec("groups")
        values["strata"] = strata
    if sample_weight is not None:
        specs["sample_weight"] = ArgSpec("numbers")
        values["sample_weight"] = sample_weight
    g = gather(specs, values, dropna=bool(dropna), data=data)
    sw = None
    # None after the gate for frequency weights too (the rows repeated instead)
    if sample_weight is not None and g["sample_weight"] is not None:
        sw = check_sample_weight(g["sample_weight"], len(g["y_score"]))
    is_pos = binary_target(g["y_true"], pos_label, metric=metric).astype(np.intp)
    if is_pos.all() or not is_pos.any():
        raise ValueError("Both classes are needed: every sample of `y_true` has the same class.")
    # the class whose label sorts first is drawn first in every group, as a Scores object's
    # (PositivesFirst): pos_label=0 draws the mirror of pos_label=1's replicates
    positives_first = bool(is_pos[np.unique(g["y_true"], return_index=True)[1][0]])
    raw = g["y_score"]
    sign = 1.0 if score_class == "pos" else -1.0
    z = sign * raw  # oriented: decided positive when z >= tau (or z > tau)
    group_arrays = [g[k] for k in group_values]
    codes = [fast_unique(a)[1] for a in group_arrays]
    combo = np.stack(codes, axis=1) if len(codes) > 1 else codes[0][:, None]
    _, first_row, gidx = np.unique(combo, axis=0, return_index=True, return_inverse=True)
    gidx = gidx.reshape(-1)
    n_groups = len(first_row)
    first = pd.DataFrame({n: a[first_row] for n, a in zip(names, group_arrays, strict=True)})
    if stratify and nested:
        raise ValueError(
            "`stratify=True` (strata = group x class) is not available with nested "
            "`conditions` (a list of levels): pass `stratify=False`, or a single level."
        )
    if stratify is None:
        stratify = not nested
    cond: Any = None
    if cond_keys:
        cond = [g[k] for k in cond_keys] if nested else g[cond_keys[0]]
    plan = plan_for_conditions(
        len(z),
        conditions=cond,
        strata=strata_codes(
            gidx * 2 + (is_pos ^ positives_first) if stratify else None, g.arrays.get("strata")
        ),
        two_stage=two_stage,
        weights=weights,
        n_resamples=opts.n_resamples,
        rng=opts.seed,
    )
    attrs: dict[str, Any] = {
        "metric": metric,
        "normalize": normalize,
        "confidence_level": opts.confidence_level,
        "method": opts.method,
        "alternative": opts.alternative,
        "n_resamples": opts.n_resamples,
        "n_dropped": g.n_dropped,
        "method_reason": opts.method_reason,
    }
    kernel: Kernel
    plain = [tuple(v.item() if isinstance(v, np.generic) else v for v in r)
             for r in first.itertuples(index=False)]  # fmt: skip
    label_names = [r if len(r) > 1 else r[0] for r in plain]
    sizes = class_sizes(is_pos, gidx, n_groups)  # a group without a class: _group_classes
    if score_metric:
        kernel, _ = _score_metric_by_group(
            raw, is_pos, gidx, label_names, metric, mkw, normalize, score_class, equal_class
        )
        kernel.bounds = _score_bounds(metric, normalize)
        lacking = [not score_metric_defined(metric, *(sizes[i] > 0)) for i in range(n_groups)]
        full = tuple(kernel.shape)
        rows = np.append(lacking, False)[:, None] & np.ones((1, int(np.prod(full[1:]))), bool)
        undefined = _only_defined(kernel, rows if any(lacking) else None, sizes, label_names,
                                  metric, attrs)  # fmt: skip
        if positives_first and getattr(plan, "n_units", 1) is None:
            kernel = PositivesFirst(kernel, kernel.class_blocks)
        if sw is not None:
            kernel = with_sample_weight(kernel, sw)
        eer_rule = metric == "eer" and method == "auto" and normalize is None
        with warnings.catch_warnings(record=eer_rule) as caught:
            if eer_rule:  # re-emitted below unless a score interval replaces the collapse
                warnings.simplefilter("always")
            res = run_with_options(kernel, plan, opts, metric_name=metric)
        if undefined is not None:  # the undefined rows NaN again
            res = expand(res, ~undefined.ravel(), full)
        ci = res.confidence_interval
        est_low_high = [np.array(a, dtype=float) for a in (res.estimate, ci.low, ci.high)]
        if eer_rule:  # eer_ci's few-errors rule per group and overall (_group_rules)
            simple = sw is None and g.arrays.get("strata") is None and weights == "multinomial"
            attrs.update(
                group_eer_rule(
                    res, est_low_high, z, is_pos, gidx, n_groups,
                    (cond[0] if nested else cond) if cond is not None and not two_stage else None,
                    simple and (cond is None or not two_stage), caught or [], opts,
                )
            )  # fmt: skip
        col, vals = (
            ("rate", mkw["rate"]) if "rate" in mkw
            else ("at", mkw["at"]) if "at" in mkw
            else (None, None)
        )  # fmt: skip
        est, low, high = (a.reshape(n_groups + 1, -1) for a in est_low_high)
        xs = [None] if col is None else list(np.asarray(vals, dtype=float).reshape(-1))
        return group_result(pd, first, names, n_groups, col, xs, est, low, high, attrs)
    tau = sign * t
    order = np.argsort(tau, kind="stable")
    ts = tau[order]
    side: Literal["left", "right"] = "right" if equal_class == "pos" else "left"
    bins = np.searchsorted(ts, z, side=side)
    n_thresholds = len(t)
    keys = (gidx * 2 + is_pos) * (n_thresholds + 1) + bins
    kernel = _GroupKernel(keys.astype(np.intp), n_groups, n_thresholds, metric, normalize, beta)
    kernel.bounds = _cm_bounds(metric, normalize)
    # a group without a class: the rows its metric leaves undefined (its raw value NaN)
    raw_kernel = _GroupKernel(kernel.keys, n_groups, n_thresholds, metric, None, beta)
    at_data = raw_kernel.evaluate(np.bincount(kernel.keys, minlength=kernel.m)[None, :] * 1.0)
    undefined = _only_defined(kernel, missing_class_rows(at_data[0], sizes), sizes,
                              label_names, metric, attrs)  # fmt: skip
    if undefined is not None:
        kernel.undefined = undefined[:-1]
    if positives_first and getattr(plan, "n_units", 1) is None:
        kernel = PositivesFirst(kernel, [(n_thresholds + 1, n_thresholds + 1)] * n_groups)
    if sw is not None:
        kernel = with_sample_weight(kernel, sw)
    # auto: a class rate collapsed onto 0 or 1 gets the Wilson interval (_edge_interval)
    edge = method == "auto" and normalize is None and sw is None and metric in RATE_CLASS
    with warnings.catch_warnings(record=edge) as caught:
        if edge:  # re-emitted below unless the Wilson interval replaces every collapse
            warnings.simplefilter("always")
        res = run_with_options(kernel, plan, opts, metric_name=metric)
    if undefined is not None:  # the undefined rows NaN again
        res = expand(res, ~undefined.ravel(), (n_groups + 1, n_thresholds))
    inv = np.argsort(order)
    est = np.asarray(res.estimate)[:, inv]
    low = np.asarray(res.confidence_interval.low)[:, inv]
    high = np.asarray(res.confidence_interval.high)[:, inv]
    if edge:
        cls = is_pos == RATE_CLASS[metric]
        counts = np.bincount(gidx[cls], minlength=n_groups)
        low, high, idx = group_rate_edge(
            est, low, high, np.r_[counts, counts.sum()], opts.confidence_level,
            opts.alternative,
        )  # fmt: skip
        left = np.sum(low == high)  # collapsed intervals not replaced
        for w in caught or []:
            if left or not issubclass(w.category, DegenerateIntervalWarning):
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        if idx.size:
            attrs["edge_interval_rows"] = tuple(int(i) for i in idx)
    return group_result(pd, first, names, n_groups, "threshold", list(t), est, low, high, attrs)


def _only_defined(
    kernel: Any,
    undefined: np.ndarray | None,
    sizes: np.ndarray,
    labels: list[Any],
    metric: str,
    attrs: dict[str, Any],
) -> np.ndarray | None:
    """With ``undefined`` rows x elements (a group without the class the metric needs):
    the kernel computes the others only, the warning (or the error, if every group is
    undefined) is said, and ``attrs`` records the rows; returns ``undefined``."""
    if undefined is None:
        return None
    attrs["undefined_warning"] = warn_undefined_groups(undefined, sizes, labels, metric)
    kernel.keep = ~undefined.ravel()
    kernel.shape = (int(kernel.keep.sum()),)
    attrs["undefined_rows"] = tuple(int(i) for i in np.flatnonzero(undefined.ravel()))
    return undefined


def _cm_bounds(metric: str, normalize: str | None) -> tuple[float, float]:
    """Range of a confusion-matrix metric per group (and of the overall value)."""
    lo, hi = cm_metric_bounds(metric)
    if normalize is None:
        return (lo, hi)
    # ratios of non-negative values are in [0, inf); of signed ones (mcc, kappa), anything
    return (0.0, np.inf) if lo >= 0 else (-np.inf, np.inf)


def _score_bounds(metric: str, normalize: str | None) -> tuple[float, float]:
    """Range of a threshold-free score statistic per group."""
    if metric == "eer_threshold" or metric.startswith("threshold_at_"):
        return (-np.inf, np.inf)
    return (0.0, 1.0) if normalize is None else (0.0, np.inf)
