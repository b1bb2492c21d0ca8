"""Metrics per group (e.g. gender x age band) at thresholds, with intervals.

The fairness question: "is our false-rejection rate worse for one group?".  Each sample
is an atom (group, class, bin between sorted thresholds), so the bootstrap resamples
inside every (group, class) stratum through the core engine with O(groups * thresholds)
work per replicate.  The overall metric and the normalised ones (by the overall value,
or by the best group) come from the same replicates, so their intervals are joint.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..inputs.validation import check_choice
from ..metrics._base import Kernel, safe_div
from .confusion import CM_METRICS, binary_cm_metric

__all__ = ["metric_by_group"]

#: metrics where a larger value is better (the "best" group has the largest value)
_HIGHER_IS_BETTER = {
    "tpr",
    "tnr",
    "ppv",
    "npv",
    "precision",
    "recall",
    "sensitivity",
    "specificity",
    "tar",
    "trr",
    "accuracy",
    "class_accuracy",
    "f1",
    "fbeta",
    "mcc",
    "balanced_accuracy",
    "cohen_kappa",
}


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(
            "This feature returns pandas DataFrames; install pandas with "
            "`pip install mlci[pandas]`."
        ) from None
    return pd


class _GroupKernel(Kernel):
    work_factor = 4.0

    def __init__(
        self,
        keys: np.ndarray,
        n_groups: int,
        k: int,
        metric: str,
        normalise: str | None,
        beta: float,
    ) -> None:
        self.keys = keys
        self.g, self.k = n_groups, k
        self.m = n_groups * 2 * (k + 1)
        self.metric = metric
        self.normalise = normalise
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
        if self.normalise == "by_overall":
            per = safe_div(per, overall[:, None, :])
        elif self.normalise == "by_best":
            best = (np.max if self.metric in _HIGHER_IS_BETTER else np.min)(per, axis=1)
            per = safe_div(per, best[:, None, :])
        return np.concatenate([per, overall[:, None, :]], axis=1)


#: threshold-free statistics of the scores (computed per group from each group's Scores)
_SCORE_METRICS_LOWER = {"eer"}
_SCORE_METRICS_HIGHER = {"auc", "roc_auc"}
_SCORE_METRICS_NO_ORDER = {"eer_threshold"}


def _is_score_metric(metric: str) -> bool:
    if metric in _SCORE_METRICS_LOWER | _SCORE_METRICS_HIGHER | _SCORE_METRICS_NO_ORDER:
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

    def __init__(
        self,
        keys: np.ndarray,
        group_kernels: list[Kernel],
        overall_kernel: Kernel,
        to_overall: np.ndarray,
        normalise: str | None,
        higher_is_better: bool | None,
        name: str,
    ) -> None:
        self.keys = keys
        self.kernels = group_kernels
        self.overall = overall_kernel
        self.offsets = np.concatenate(([0], np.cumsum([k.m for k in group_kernels])))
        self.m = int(self.offsets[-1])
        perm = np.argsort(to_overall, kind="stable")
        self.perm = perm
        self.starts = np.flatnonzero(np.r_[True, np.diff(to_overall[perm]) != 0])
        self.normalise = normalise
        self.higher = higher_is_better
        self.shape = (len(group_kernels) + 1, *overall_kernel.shape)
        self.name = name

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
        if self.normalise == "by_overall":
            per = safe_div(per, overall[:, None])
        elif self.normalise == "by_best":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN replicates
                best = (np.nanmax if self.higher else np.nanmin)(per, axis=1)
            per = safe_div(per, best[:, None])
        return np.concatenate([per, overall[:, None]], axis=1)


def _score_metric_by_group(
    z: np.ndarray,
    is_pos: np.ndarray,
    gidx: np.ndarray,
    names: np.ndarray,
    metric: str,
    metric_kwargs: dict[str, Any],
    normalise: str | None,
    score_class: str,
    equal_class: str,
) -> tuple[_ScoreGroupKernel, np.ndarray]:
    """Kernel and per-sample atom keys for a threshold-free Scores statistic per group."""
    from .scores import Scores, _resolve, _ScoresKernel

    def scores_of(mask: np.ndarray, label: str) -> Scores:
        pos, neg = z[mask & (is_pos == 1)], z[mask & (is_pos == 0)]
        if len(pos) == 0 or len(neg) == 0:
            raise ValueError(
                f"Group {label} has no {'positives' if len(pos) == 0 else 'negatives'}: "
                f"{metric!r} needs both classes in every group."
            )
        return Scores(pos, neg, score_class=score_class, equal_class=equal_class)

    if metric in _SCORE_METRICS_HIGHER:
        higher: bool | None = True
    elif metric in _SCORE_METRICS_LOWER or metric.startswith(("fnr_", "fpr_", "frr_", "far_")):
        higher = False
    elif metric.startswith(("tpr_", "tnr_", "tar_", "trr_")):
        higher = True
    else:
        higher = None  # thresholds: no "best" group
    if normalise == "by_best" and higher is None:
        raise ValueError(
            f"`normalise`='by_best' needs a metric where lower or higher is better; "
            f"{metric!r} is a threshold. Use `normalise`='by_overall' or None."
        )
    n = len(z)
    keys = np.empty(n, dtype=np.intp)
    kernels: list[Kernel] = []
    to_overall: list[np.ndarray] = []
    overall_sc = scores_of(np.ones(n, dtype=bool), "(overall)")
    overall_spec = _resolve(overall_sc, metric, dict(metric_kwargs))
    ou = overall_sc._lay.u
    offset = 0
    for g in range(len(names)):
        rows = np.flatnonzero(gidx == g)
        sub = np.zeros(n, dtype=bool)
        sub[rows] = True
        sc = scores_of(sub, repr(names[g]))
        # user order inside the group: Scores(pos, neg) numbers pos first, then neg
        local = np.r_[rows[is_pos[rows] == 1], rows[is_pos[rows] == 0]]
        k_int, _ = sc._keys()
        keys[local[sc._internal_perm()]] = k_int + offset
        spec = _resolve(sc, metric, dict(metric_kwargs))
        kernels.append(_ScoresKernel(sc._lay, k_int, spec))
        lay = sc._lay
        to_overall.append(
            np.r_[
                np.searchsorted(ou[0], lay.u[0]),
                len(ou[0]) + np.searchsorted(ou[1], lay.u[1]),
            ]
        )
        offset += lay.m[0] + lay.m[1]
    k_all, _ = overall_sc._keys()
    kernel = _ScoreGroupKernel(
        keys,
        kernels,
        _ScoresKernel(overall_sc._lay, k_all, overall_spec),
        np.concatenate(to_overall),
        normalise,
        higher,
        metric,
    )
    return kernel, keys


def metric_by_group(
    data: Any,
    *,
    group_columns: str | list[str],
    label_column: str,
    score_column: str,
    threshold: Any = None,
    metric: str = "fnr",
    rate: Any = None,
    at: Any = None,
    pos_label: Any = 1,
    score_class: str = "pos",
    equal_class: str = "pos",
    normalise: str | None = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    rng: Any = None,
    beta: float = 1.0,
) -> Any:
    """Any metric of binary scores per group (at thresholds, or EER/AUC/...), with intervals.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per sample.
    group_columns : str or list of str
        Columns defining the groups (their combinations).
    label_column, score_column : str
        True labels and scores; ``pos_label`` marks positives, every other label is negative.
    threshold : float or array-like, optional
        Decision threshold(s) of a confusion-matrix metric; ``score_class``/``equal_class``
        as in :class:`mlci.Scores`.
    metric : str
        Any confusion-matrix metric at ``threshold`` (``"fnr"``, ``"fpr"``, ``"ppv"``,
        ``"accuracy"`` ...), or a threshold-free statistic of each group's scores:
        ``"eer"``, ``"eer_threshold"``, ``"auc"``, ``"threshold_at_fpr"`` (and
        tpr/tnr/fnr) at ``rate``, an operating point ``"fnr_at_fpr"`` (any
        ``"<rate>_at_<rate>"``) at ``at`` -- as in :meth:`mlci.Scores.bootstrap_ci`.
        These need both classes in every group.
    rate : float or array-like, optional
        Target rate(s) of ``"threshold_at_<rate>"``.
    at : float or array-like, optional
        Value(s) of the x-rate of an operating point ``"<rate>_at_<x>"``.
    normalise : {None, "by_overall", "by_best"}
        Divide each group's value by the value on all data, or by the best group's
        (smallest for error rates, largest for e.g. TPR), in every replicate.
    n_resamples, confidence_level, method, rng
        Bootstrap options; resampling is stratified by group and class.

    Returns
    -------
    pandas.DataFrame
        One row per (group, threshold) plus the ``"(overall)"`` rows, with columns
        ``estimate``, ``low``, ``high`` (a ``rate`` or ``at`` column instead of
        ``threshold`` for those metrics; none for EER and AUC).  With ``normalise``, the
        ``"(overall)"`` rows hold the overall metric itself (not normalised).

    Examples
    --------
    >>> import pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"gender": rng.choice(["f", "m"], 600),
    ...                    "label": rng.integers(0, 2, 600)})
    >>> df["score"] = df["label"] + rng.normal(0, 1, 600)
    >>> out = metric_by_group(df, group_columns="gender", label_column="label",
    ...                       score_column="score", threshold=[0.3, 0.5], rng=0,
    ...                       n_resamples=200)
    >>> list(out.columns)
    ['gender', 'threshold', 'estimate', 'low', 'high']
    >>> len(out)
    6
    >>> eer = metric_by_group(df, group_columns="gender", label_column="label",
    ...                       score_column="score", metric="eer", rng=0, n_resamples=200)
    >>> list(eer.columns), len(eer)
    (['gender', 'estimate', 'low', 'high'], 3)
    """
    from ..engine.bootstrap import run_bootstrap
    from ..engine.resampling import make_plan
    from .scores import _check_scores, _check_threshold

    pd = _pandas()
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"`data` must be a pandas DataFrame; got {type(data).__name__}.")
    cols = [group_columns] if isinstance(group_columns, str) else list(group_columns)
    for c in [*cols, label_column, score_column]:
        if c not in data.columns:
            raise ValueError(f"Column {c!r} is not in `data` (columns: {list(data.columns)}).")
    if not isinstance(metric, str):
        raise TypeError(f"`metric` must be a metric name; got {metric!r}.")
    score_metric = _is_score_metric(metric)
    if not score_metric and metric not in CM_METRICS:
        raise ValueError(
            f"Unknown metric {metric!r}; known: eer, eer_threshold, auc, "
            f"threshold_at_<tpr|fnr|tnr|fpr>, <rate>_at_<rate>, {', '.join(CM_METRICS)}."
        )
    check_choice(
        "normalise",
        normalise if normalise is not None else "none",
        ("none", "by_overall", "by_best"),
    )
    check_choice("score_class", score_class, ("pos", "neg"))
    check_choice("equal_class", equal_class, ("pos", "neg"))
    metric_kwargs: dict[str, Any] = {}
    if score_metric:
        if threshold is not None:
            raise TypeError(f"{metric!r} does not take `threshold`.")
        if metric.startswith("threshold_at_"):
            if rate is None:
                raise TypeError(f"{metric!r} needs `rate=` (the target rate).")
            metric_kwargs["rate"] = rate
        elif "_at_" in metric:
            if at is None:
                raise TypeError(f"{metric!r} needs `at=` (the value of the x-rate).")
            metric_kwargs["at"] = at
        extra = [n for n, v in (("rate", rate), ("at", at)) if v is not None]
        if sorted(extra) != sorted(metric_kwargs):
            raise TypeError(f"{metric!r} does not take {', '.join(f'`{e}`' for e in extra)}.")
    else:
        if threshold is None:
            raise TypeError(f"{metric!r} is a metric at a threshold: pass `threshold=`.")
        if rate is not None or at is not None:
            raise TypeError(f"{metric!r} takes `threshold`, not `rate` or `at`.")
    raw_scores = data[score_column].to_numpy()
    z = _check_scores("score_column", raw_scores)
    sign = 1.0 if score_class == "pos" else -1.0
    z = sign * z
    is_pos = (data[label_column].to_numpy() == pos_label).astype(np.intp)
    if is_pos.all() or not is_pos.any():
        raise ValueError("Both classes are needed: every sample has the same class.")
    gframe = data[cols].astype(str).agg("\x1f".join, axis=1) if len(cols) > 1 else data[cols[0]]
    names, gidx = np.unique(gframe.to_numpy(), return_inverse=True)
    n_groups = len(names)
    first = data.loc[:, cols].groupby(gidx).first().reset_index(drop=True)
    if score_metric:
        kernel, _ = _score_metric_by_group(
            sign * z, is_pos, gidx, names, metric, metric_kwargs, normalise,
            score_class, equal_class,
        )  # fmt: skip
        plan = make_plan(len(z), strata=gidx * 2 + is_pos, n_resamples=n_resamples, rng=rng)
        res = run_bootstrap(
            kernel, plan, method=method, confidence_level=confidence_level, metric_name=metric
        )
        col, vals = (
            ("rate", metric_kwargs["rate"]) if "rate" in metric_kwargs
            else ("at", metric_kwargs["at"]) if "at" in metric_kwargs
            else (None, None)
        )  # fmt: skip
        est = np.asarray(res.estimate).reshape(n_groups + 1, -1)
        low = np.asarray(res.confidence_interval.low).reshape(n_groups + 1, -1)
        high = np.asarray(res.confidence_interval.high).reshape(n_groups + 1, -1)
        xs = [None] if col is None else list(np.asarray(vals, dtype=float).reshape(-1))
        return _frame(pd, first, cols, n_groups, col, xs, est, low, high,
                      metric, normalise, confidence_level, method, n_resamples)  # fmt: skip
    t = _check_threshold(threshold).reshape(-1)
    tau = sign * t
    order = np.argsort(tau, kind="stable")
    ts = tau[order]
    side = "right" if equal_class == "pos" else "left"
    bins = np.searchsorted(ts, z, side=side)
    k = len(t)
    keys = (gidx * 2 + is_pos) * (k + 1) + bins
    kernel = _GroupKernel(keys.astype(np.intp), n_groups, k, metric, normalise, float(beta))
    plan = make_plan(len(z), strata=gidx * 2 + is_pos, n_resamples=n_resamples, rng=rng)
    res = run_bootstrap(
        kernel, plan, method=method, confidence_level=confidence_level, metric_name=metric
    )
    inv = np.argsort(order)
    est = np.asarray(res.estimate)[:, inv]
    low = np.asarray(res.confidence_interval.low)[:, inv]
    high = np.asarray(res.confidence_interval.high)[:, inv]
    return _frame(pd, first, cols, n_groups, "threshold", list(t), est, low, high,
                  metric, normalise, confidence_level, method, n_resamples)  # fmt: skip


def _frame(pd, first, cols, n_groups, col, xs, est, low, high, metric, normalise,
           confidence_level, method, n_resamples):  # fmt: skip
    rows = []
    for gi in range(n_groups + 1):
        for j, x in enumerate(xs):
            key = dict(first.iloc[gi]) if gi < n_groups else dict.fromkeys(cols, "(overall)")
            if col is not None:
                key[col] = x
            rows.append({**key, "estimate": est[gi, j], "low": low[gi, j], "high": high[gi, j]})
    out = pd.DataFrame(rows)
    out.attrs.update(
        metric=metric,
        normalise=normalise,
        confidence_level=confidence_level,
        method=method,
        n_resamples=n_resamples,
    )
    return out
