"""Metrics from decisions: vectorised over a stack of confusion matrices ``(b, K, K)``.

Rows are true classes, columns predicted classes.  Every function returns NaN where
the metric is undefined (a zero denominator), so that the engine can count such
replicates instead of silently inventing a value.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ..inputs import check_choice, check_flag, encode_label_pair, positive_label, show_values
from ._base import ConfusionKernel, Kernel, safe_div
from .multiclass import multilabel_decision_kernel

AVERAGES = ("binary", "macro", "micro", "weighted", None)


def _ovr(cm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One-vs-rest counts per class: tp, fp, fn, tn, each (b, K)."""
    tp = np.diagonal(cm, axis1=1, axis2=2)
    support = cm.sum(axis=2)
    predicted = cm.sum(axis=1)
    total = cm.sum(axis=(1, 2))[:, None]
    fn = support - tp
    fp = predicted - tp
    tn = total - tp - fn - fp
    return tp, fp, fn, tn


# numerator and denominator of each rate from the one-vs-rest counts
_RATES: dict[str, Callable[..., tuple[np.ndarray, np.ndarray]]] = {
    "recall": lambda tp, fp, fn, tn: (tp, tp + fn),
    "precision": lambda tp, fp, fn, tn: (tp, tp + fp),
    "specificity": lambda tp, fp, fn, tn: (tn, tn + fp),
    "fpr": lambda tp, fp, fn, tn: (fp, fp + tn),
    "fnr": lambda tp, fp, fn, tn: (fn, fn + tp),
    "npv": lambda tp, fp, fn, tn: (tn, tn + fn),
    "fdr": lambda tp, fp, fn, tn: (fp, fp + tp),
}


def _fbeta_parts(beta: float) -> Callable[..., tuple[np.ndarray, np.ndarray]]:
    b2 = beta * beta

    def parts(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray) -> Any:
        return (1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp

    return parts


def _averaged(
    cm: np.ndarray, parts: Callable[..., tuple[np.ndarray, np.ndarray]], average: Any, pos: int
) -> np.ndarray:
    return average_counts(*_ovr(cm), parts, average, pos)


def average_counts(
    tp: np.ndarray,
    fp: np.ndarray,
    fn: np.ndarray,
    tn: np.ndarray,
    parts: Callable[..., tuple[np.ndarray, np.ndarray]],
    average: Any,
    pos: int,
) -> np.ndarray:
    """A rate (``parts`` gives its numerator and denominator) from per-class counts (b, K),
    averaged as scikit-learn: ``binary`` (class ``pos``), ``micro``, ``macro``, ``weighted``
    (by support) or None (per class)."""
    if average == "micro":
        num, den = parts(tp.sum(1), fp.sum(1), fn.sum(1), tn.sum(1))
        return safe_div(num, den)
    num, den = parts(tp, fp, fn, tn)
    per_class = safe_div(num, den)
    if average == "binary":
        return per_class[:, pos]
    if average is None:
        return per_class
    if average == "macro":
        return per_class.mean(axis=1)  # NaN if any class is undefined
    # weighted by support (number of true samples per class), as scikit-learn
    support = tp + fn
    total = support.sum(axis=1)
    wsum = np.where(support > 0, per_class * support, 0.0).sum(axis=1)
    bad = np.any(np.isnan(per_class) & (support > 0), axis=1)
    return np.where(bad, np.nan, safe_div(wsum, total))


def accuracy(cm: np.ndarray) -> np.ndarray:
    return safe_div(np.trace(cm, axis1=1, axis2=2), cm.sum(axis=(1, 2)))


def error_rate(cm: np.ndarray) -> np.ndarray:
    return 1.0 - accuracy(cm)


def balanced_accuracy(cm: np.ndarray, adjusted: bool = False) -> np.ndarray:
    """Mean recall over the classes present in the true labels (scikit-learn's definition).

    ``adjusted=True`` rescales it so that chance (1 / number of present classes) is 0 and a
    perfect score 1, as scikit-learn's ``balanced_accuracy_score(adjusted=True)``.
    """
    tp = np.diagonal(cm, axis1=1, axis2=2)
    support = cm.sum(axis=2)
    present = support > 0
    rec = np.where(present, tp / np.where(present, support, 1.0), 0.0)
    k = present.sum(axis=1)
    score = safe_div(rec.sum(axis=1), k)
    if adjusted:
        chance = safe_div(np.ones_like(score), k)
        score = safe_div(score - chance, 1.0 - chance)
    return score


def mcc(cm: np.ndarray) -> np.ndarray:
    """Matthews correlation, multiclass form (Gorodkin 2004); NaN when undefined."""
    t = cm.sum(axis=2)
    p = cm.sum(axis=1)
    c = np.trace(cm, axis1=1, axis2=2)
    s = cm.sum(axis=(1, 2))
    cov_tp = c * s - np.sum(t * p, axis=1)
    cov_pp = s * s - np.sum(p * p, axis=1)
    cov_tt = s * s - np.sum(t * t, axis=1)
    return safe_div(cov_tp, np.sqrt(cov_tt * cov_pp))


def cohen_kappa(cm: np.ndarray, weights: str | None = None) -> np.ndarray:
    """Cohen's kappa, unweighted or with linear/quadratic disagreement weights."""
    k = cm.shape[-1]
    s = cm.sum(axis=(1, 2))
    expected = (
        np.einsum("bi,bj->bij", cm.sum(axis=2), cm.sum(axis=1))
        / np.where(s > 0, s, 1.0)[:, None, None]
    )
    i, j = np.indices((k, k))
    if weights is None:
        wm = (i != j).astype(float)
    elif weights == "linear":
        wm = np.abs(i - j).astype(float)
    else:
        wm = ((i - j) ** 2).astype(float)
    obs = np.sum(wm * cm, axis=(1, 2))
    exp = np.sum(wm * expected, axis=(1, 2))
    return 1.0 - safe_div(obs, exp)


# --------------------------------------------------------------------------- preparation
#: name -> (needs an average?, default average)
RATE_METRICS = {
    "precision": "precision",
    "recall": "recall",
    "tpr": "recall",
    "sensitivity": "recall",
    "specificity": "specificity",
    "tnr": "specificity",
    "fpr": "fpr",
    "fnr": "fnr",
    "npv": "npv",
    "fdr": "fdr",
}
F_METRICS = ("f1", "fbeta")
WHOLE_MATRIX = {
    "accuracy": accuracy,
    "error_rate": error_rate,
    "balanced_accuracy": balanced_accuracy,
    "mcc": mcc,
    "cohen_kappa": cohen_kappa,
}
CONFUSION_METRICS = tuple(WHOLE_MATRIX) + tuple(RATE_METRICS) + F_METRICS


#: largest number of distinct classes of a confusion-matrix metric (K^2 atoms per replicate)
MAX_CLASSES = 2048


def _check_labels(name: str, y: np.ndarray) -> None:
    """Decision metrics need class decisions: refuse non-integer numbers (scores)."""
    if y.dtype.kind == "f":
        frac = y[y != np.round(y)]
        if frac.size:
            raise ValueError(
                f"`{name}` holds non-integer numbers (e.g. {frac[0]:.4g}): decision metrics "
                "need class labels and class decisions. Threshold your scores first "
                "(y_pred = y_score >= t) or use a score metric (roc_auc, average_precision, "
                "log_loss, brier)."
            )


def _binary_proportion(rate: str) -> tuple[np.ndarray, np.ndarray]:
    """Numerator and denominator masks over the binary atoms (key = 2 * true + predicted:
    0 tn, 1 fp, 2 fn, 3 tp) of a rate, from the same table as the kernel's formula."""
    cells = [np.eye(4, dtype=float)[i] for i in (3, 1, 2, 0)]  # tp, fp, fn, tn
    num, den = _RATES[rate](*cells)
    return num > 0, den > 0


def prepare_confusion(
    name: str,
    y_true: Any,
    y_pred: Any,
    *,
    pos_label: Any = None,
    average: Any = "default",
    beta: float = 1.0,
    weights: str | None = None,
    adjusted: bool = False,
) -> Kernel:
    """Bind a confusion-matrix metric to labels and decisions (arrays from the input gate).

    2-d ``y_true`` and ``y_pred`` are multilabel indicator matrices (see
    :func:`mlci.metrics.multiclass.multilabel_decision_kernel`).
    """
    adjusted = check_flag("adjusted", adjusted)
    if np.ndim(y_true) == 2 or np.ndim(y_pred) == 2:
        if (
            name not in F_METRICS
            and name not in RATE_METRICS
            and name
            not in (
                "accuracy",
                "error_rate",
            )
        ):
            raise ValueError(
                f"{name!r} takes 1-d class labels; multilabel indicator matrices (2-d) are "
                "taken by accuracy, error_rate, precision, recall, f1 and fbeta."
            )
        if np.ndim(y_true) != 2:
            raise ValueError(
                f"`y_pred` is 2-d (multilabel) but `y_true` has shape {np.shape(y_true)}; "
                "both must be indicator matrices of the same shape."
            )
        if pos_label is not None:
            raise ValueError("`pos_label` does not apply to multilabel data (2-d `y_true`).")
        if name in F_METRICS:
            parts = _fbeta_parts(float(beta))
        elif name in RATE_METRICS:
            parts = _RATES[RATE_METRICS[name]]
        else:
            parts = None
        return multilabel_decision_kernel(
            name, np.asarray(y_true), np.asarray(y_pred), parts, average, average_counts
        )
    if adjusted and name != "balanced_accuracy":
        raise ValueError("`adjusted` applies to 'balanced_accuracy' only.")
    _check_labels("y_true", y_true)
    _check_labels("y_pred", y_pred)
    classes, t, p = encode_label_pair(y_true, y_pred)
    k = len(classes)
    if k > MAX_CLASSES:
        raise ValueError(
            f"`y_true` and `y_pred` take {k} distinct values together; a confusion-matrix metric "
            f"supports at most {MAX_CLASSES} classes. Are these scores or ids rather than class "
            "labels and decisions?"
        )
    if name in WHOLE_MATRIX:
        if average != "default" and average is not None:
            raise ValueError(f"`average` does not apply to {name!r}; leave it unset.")
        if name == "cohen_kappa":
            check_choice(
                "weights",
                weights if weights is not None else "none",
                ("none", "linear", "quadratic"),
            )
            fn: Callable[[np.ndarray], np.ndarray] = partial(cohen_kappa, weights=weights)
        elif name == "balanced_accuracy":
            fn = partial(balanced_accuracy, adjusted=adjusted)
        else:
            fn = WHOLE_MATRIX[name]
        if name in ("mcc", "cohen_kappa", "balanced_accuracy") and k < 2:
            raise ValueError(
                f"{name!r} needs at least two classes among `y_true` and `y_pred`; found only "
                f"{show_values(classes)}."
            )
        kernel = ConfusionKernel(t, p, max(k, 1), fn, (), name)
        if name in ("accuracy", "error_rate"):
            right = np.eye(max(k, 1), dtype=bool).ravel()
            kernel.proportion = (right if name == "accuracy" else ~right, np.ones_like(right))
        return kernel

    parts = _fbeta_parts(float(beta)) if name in F_METRICS else _RATES[RATE_METRICS[name]]
    if average == "default":
        average = "binary"
    if average not in AVERAGES:
        raise ValueError(
            "`average` must be one of 'binary', 'macro', 'micro', 'weighted' or None; "
            f"got {average!r}."
        )
    if average == "binary":
        # binarise: positive class index 1, everything else 0 (error if more than 2 values)
        values = classes
        if len(values) > 2:
            raise ValueError(
                f"{name!r} with `average='binary'` needs binary labels; `y_true`/`y_pred` take "
                f"{len(values)} values {show_values(values)}. Pass `average='macro'` (or 'micro', "
                "'weighted', None for per-class values) for multiclass data."
            )
        pos = positive_label(values, pos_label, "y_true")
        tb = (y_true == pos).astype(np.intp)
        pb = (y_pred == pos).astype(np.intp)
        kernel = ConfusionKernel(
            tb, pb, 2, partial(_averaged, parts=parts, average="binary", pos=1), (), name
        )
        if name in RATE_METRICS:
            kernel.proportion = _binary_proportion(RATE_METRICS[name])
        return kernel
    if pos_label is not None:
        raise ValueError(
            f"`pos_label` only applies with `average='binary'`; got average={average!r}."
        )
    shape = (k,) if average is None else ()
    kernel = ConfusionKernel(
        t, p, k, partial(_averaged, parts=parts, average=average, pos=0), shape, name
    )
    if average is None:
        kernel.elements = tuple(classes.tolist())  # per-class results name their class
    return kernel
