"""Metrics per group (e.g. gender x age band) at thresholds, with intervals.

The fairness question: "is our false-rejection rate worse for one group?".  Each sample
is an atom (group, class, bin between sorted thresholds), so the bootstrap resamples
inside every (group, class) stratum through the core engine with O(groups * thresholds)
work per replicate.  The overall metric and the normalised ones (by the overall value,
or by the best group) come from the same replicates, so their intervals are joint.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._validation import check_choice
from .confusion import CM_METRICS, binary_cm_metric
from .metrics._base import Kernel, safe_div

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


def metric_by_group(
    data: Any,
    *,
    group_columns: str | list[str],
    label_column: str,
    score_column: str,
    threshold: Any,
    metric: str = "fnr",
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
    """A confusion-matrix metric per group at one or several thresholds, with intervals.

    Parameters
    ----------
    data : pandas.DataFrame
        One row per sample.
    group_columns : str or list of str
        Columns defining the groups (their combinations).
    label_column, score_column : str
        True labels and scores; ``pos_label`` marks positives, every other label is negative.
    threshold : float or array-like
        Decision threshold(s); ``score_class``/``equal_class`` as in :class:`mlci.Scores`.
    metric : str
        Any confusion-matrix metric (``"fnr"``, ``"fpr"``, ``"ppv"``, ``"accuracy"`` ...).
    normalise : {None, "by_overall", "by_best"}
        Divide each group's value by the value on all data, or by the best group's
        (smallest for error rates, largest for e.g. TPR), in every replicate.
    n_resamples, confidence_level, method, rng
        Bootstrap options; resampling is stratified by group and class.

    Returns
    -------
    pandas.DataFrame
        One row per (group, threshold) plus the ``"(overall)"`` rows, with columns
        ``estimate``, ``low``, ``high``.

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
    """
    from .bootstrap import run_bootstrap
    from .resampling import make_plan
    from .scores import _check_scores, _check_threshold

    pd = _pandas()
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"`data` must be a pandas DataFrame; got {type(data).__name__}.")
    cols = [group_columns] if isinstance(group_columns, str) else list(group_columns)
    for c in [*cols, label_column, score_column]:
        if c not in data.columns:
            raise ValueError(f"Column {c!r} is not in `data` (columns: {list(data.columns)}).")
    if metric not in CM_METRICS:
        raise ValueError(f"Unknown metric {metric!r}; known: {', '.join(CM_METRICS)}.")
    check_choice(
        "normalise",
        normalise if normalise is not None else "none",
        ("none", "by_overall", "by_best"),
    )
    check_choice("score_class", score_class, ("pos", "neg"))
    check_choice("equal_class", equal_class, ("pos", "neg"))
    t = _check_threshold(threshold).reshape(-1)
    z = _check_scores("score_column", data[score_column].to_numpy())
    sign = 1.0 if score_class == "pos" else -1.0
    z = sign * z
    is_pos = (data[label_column].to_numpy() == pos_label).astype(np.intp)
    if is_pos.all() or not is_pos.any():
        raise ValueError("Both classes are needed: every sample has the same class.")
    gframe = data[cols].astype(str).agg("\x1f".join, axis=1) if len(cols) > 1 else data[cols[0]]
    names, gidx = np.unique(gframe.to_numpy(), return_inverse=True)
    n_groups = len(names)
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
    first = data.loc[:, cols].groupby(gidx).first().reset_index(drop=True)
    rows = []
    for gi in range(n_groups + 1):
        for j in range(k):
            key = dict(first.iloc[gi]) if gi < n_groups else dict.fromkeys(cols, "(overall)")
            rows.append(
                {
                    **key,
                    "threshold": t[j],
                    "estimate": est[gi, j],
                    "low": low[gi, j],
                    "high": high[gi, j],
                }
            )
    out = pd.DataFrame(rows)
    out.attrs.update(
        metric=metric,
        normalise=normalise,
        confidence_level=confidence_level,
        method=method,
        n_resamples=n_resamples,
    )
    return out
