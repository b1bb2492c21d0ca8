"""Metrics that are functions of weighted sums: mean losses, probabilistic scores, regression.

Each is ``g(sum_i w_i * phi_i)`` for a small per-sample vector ``phi_i``; see
:class:`~mlci.metrics._base.AdditiveKernel`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..inputs import binary_target, encode_labels, show_values
from ._base import AdditiveKernel, safe_div, zero_one
from .brier_auto import brier_auto_method
from .multiclass import class_columns

_EPS = np.finfo(float).eps
#: rows of class probabilities may miss 1 by this much (rounding in files), then renormalised
_ROW_SUM_TOLERANCE = 1e-3


def _ratio(s: np.ndarray) -> np.ndarray:
    return safe_div(s[:, 0], s[:, 1])


def _sqrt_ratio(s: np.ndarray) -> np.ndarray:
    return np.sqrt(_ratio(s))


def mean_kernel(values: Any) -> AdditiveKernel:
    """Mean of per-sample values (a loss, a WER, a 0/1 correctness).

    A mean of values that are all 0 or 1 is a proportion (range ``(0, 1)``, with the
    numerator and denominator of :attr:`~mlci.metrics.Kernel.proportion`): ``"auto"``
    then gives it accuracy's interval (:meth:`AdditiveKernel.as_proportion`).
    """
    v = np.asarray(values, dtype=float)
    kernel = AdditiveKernel(np.column_stack([v, np.ones_like(v)]), _ratio, (), "mean")
    return kernel.as_proportion() if zero_one(v) else kernel


def weighted_mean_kernel(weights: Any, values: Any) -> AdditiveKernel:
    """``sum(weight * value) / sum(weight)``, e.g. WER weighted by each utterance's word count.

    The weights come first, in the labels position, as in the seed toolkit's table.
    """
    w = np.asarray(weights, dtype=float)
    v = np.asarray(values, dtype=float)
    if (w < 0).any():
        raise ValueError("`weights` (the first array of 'weighted_mean') must be non-negative.")
    if w.sum() == 0:
        raise ValueError("`weights` (the first array of 'weighted_mean') sum to zero.")
    kernel = AdditiveKernel(np.column_stack([w * v, w]), _ratio, (), "weighted_mean")
    # 0/1 values: a weighted proportion, in (0, 1) (as accuracy with sample_weight)
    return kernel.as_proportion(weighted=True) if zero_one(v) else kernel


def _regression_inputs(y_true: Any, y_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(y_true, dtype=float), np.asarray(y_pred, dtype=float)


def mae_kernel(y_true: Any, y_pred: Any) -> AdditiveKernel:
    t, p = _regression_inputs(y_true, y_pred)
    e = np.abs(t - p)
    kernel = AdditiveKernel(np.column_stack([e, np.ones_like(e)]), _ratio, (), "mae")
    kernel.signed_errors = t - p  # per sample, for the heavy-tail rule (engine/heavy_tail.py)
    return kernel


def mse_kernel(y_true: Any, y_pred: Any, *, root: bool = False) -> AdditiveKernel:
    t, p = _regression_inputs(y_true, y_pred)
    e = (t - p) ** 2
    g = _sqrt_ratio if root else _ratio
    kernel = AdditiveKernel(np.column_stack([e, np.ones_like(e)]), g, (), "rmse" if root else "mse")
    kernel.signed_errors = t - p  # per sample, for the heavy-tail rule (engine/heavy_tail.py)
    return kernel


def _r2(s: np.ndarray) -> np.ndarray:
    sy, syy, see, sw = s[:, 0], s[:, 1], s[:, 2], s[:, 3]
    sst = syy - safe_div(sy * sy, sw)
    # a replicate with (numerically) constant targets has no R^2
    sst = np.where(sst > 1e-12 * np.maximum(syy, 1e-300), sst, 0.0)
    return 1.0 - safe_div(see, sst)


def r2_kernel(y_true: Any, y_pred: Any) -> AdditiveKernel:
    t, p = _regression_inputs(y_true, y_pred)
    c = t - t.mean()  # centring keeps the sums of squares well conditioned
    if not np.any(c != 0):
        raise ValueError("'r2' is undefined when `y_true` is constant (zero total variance).")
    phi = np.column_stack([c, c * c, (t - p) ** 2, np.ones_like(t)])
    kernel = AdditiveKernel(phi, _r2, (), "r2")
    kernel.signed_errors = t - p  # per sample, for the heavy-tail rule (engine/heavy_tail.py)
    return kernel


def _probabilities(
    y_true: Any, y_prob: Any, pos_label: Any, name: str, labels: Any = None
) -> np.ndarray:
    """Probability each sample gave to its true class, with sklearn's label conventions.

    ``labels`` (sorted, as scikit-learn's ``labels=``) names the columns of a probability
    matrix, or the two classes of one probability column (of the second, sorted), so that
    classes absent from ``y_true`` keep their column.
    """
    y = np.asarray(y_true)
    p = np.asarray(y_prob, dtype=float)
    if (p < 0).any() or (p > 1).any():
        raise ValueError(
            f"{name!r} needs probabilities in [0, 1] in `y_score`; found values from "
            f"{p.min():.4g} to {p.max():.4g}. Pass probabilities (e.g. predict_proba), not "
            "decision scores or logits."
        )
    if labels is not None and pos_label is not None:
        raise ValueError("Pass either `labels` or `pos_label`, not both.")
    if p.ndim == 1 or p.shape[1] == 1:
        p = p.reshape(-1)
        if labels is not None:
            classes, idx = class_columns(name, y, p[:, None].repeat(2, axis=1), labels)
            return np.where(idx == 1, p, 1.0 - p)
        pos = binary_target(y, pos_label, metric=name)
        return np.where(pos, p, 1.0 - p)
    if labels is not None:
        _, idx = class_columns(name, y, p, labels)
        rows = _row_sums(p)
        return p[np.arange(len(y)), idx] / rows
    if pos_label is not None:
        raise ValueError(
            f"`pos_label` does not apply to {name!r} with one probability column per class "
            f"(`y_score` has {p.shape[1]} columns, following the sorted class labels)."
        )
    classes, (idx,) = encode_labels(y)
    if len(classes) > p.shape[1]:
        raise ValueError(
            f"`y_true` has {len(classes)} classes {show_values(classes)} but `y_score` has only "
            f"{p.shape[1]} columns; columns must follow the sorted class labels."
        )
    if len(classes) < p.shape[1]:
        raise ValueError(
            f"`y_score` has {p.shape[1]} columns but `y_true` shows only {len(classes)} "
            f"classes {show_values(classes)}; the column of each label would be ambiguous."
        )
    return p[np.arange(len(y)), idx] / _row_sums(p)


def _row_sums(p: np.ndarray) -> np.ndarray:
    """Row sums of class probabilities, checked to be 1 up to rounding.

    Probabilities rounded for a file (e.g. to 4 decimals) sum to 1 within the tolerance:
    they are renormalised, as scikit-learn's log_loss does.
    """
    rows = p.sum(axis=1)
    if not np.allclose(rows, 1.0, rtol=0.0, atol=_ROW_SUM_TOLERANCE):
        raise ValueError(
            f"The rows of `y_score` must sum to 1 (class probabilities); they range from "
            f"{rows.min():.6g} to {rows.max():.6g}."
        )
    return rows


def log_loss_kernel(
    y_true: Any, y_score: Any, *, pos_label: Any = None, labels: Any = None
) -> AdditiveKernel:
    """Mean negative log-likelihood of the true class (natural log, probabilities clipped to
    ``[eps, 1 - eps]`` with the float64 machine epsilon, as scikit-learn)."""
    q = _probabilities(y_true, y_score, pos_label, "log_loss", labels)
    ll = -np.log(np.clip(q, _EPS, 1 - _EPS))
    return AdditiveKernel(np.column_stack([ll, np.ones_like(ll)]), _ratio, (), "log_loss")


def brier_kernel(
    y_true: Any, y_score: Any, *, pos_label: Any = None, labels: Any = None
) -> AdditiveKernel:
    """Brier score: mean squared difference between the predicted probability and the outcome.

    Binary: ``(p - y)^2`` with ``p`` the probability of the positive class (one column, or
    two columns: the same value).  Multiclass ``(n, K)`` probabilities, ``K > 2``:
    ``sum_k (p_k - 1[y = k])^2``, in [0, 2] (scikit-learn >= 1.7's ``brier_score_loss``).
    """
    p = np.asarray(y_score, dtype=float)
    q = _probabilities(y_true, p, pos_label, "brier", labels)
    if p.ndim == 1 or p.shape[1] == 1:
        e = (1.0 - q) ** 2
    else:
        p = p / p.sum(axis=1, keepdims=True)  # rows checked to sum to 1 up to rounding
        e = (p**2).sum(axis=1) - 2 * q + 1.0
        if p.shape[1] == 2:
            # two columns are one binary problem: scikit-learn's brier_score_loss halves
            # the sum over the columns (scale_by_half="auto"), the one-column value
            e = e / 2.0
    kernel = AdditiveKernel(np.column_stack([e, np.ones_like(e)]), _ratio, (), "brier")
    if p.ndim == 2 and p.shape[1] > 2:
        kernel.bounds = (0.0, 2.0)
    else:  # over few conditions: the logit t interval (mlci.metrics.brier_auto)
        kernel.auto_method = brier_auto_method  # type: ignore[attr-defined]
    return kernel
