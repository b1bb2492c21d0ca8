"""Confusion matrices, vectorised: a stack of shape ``(X..., N, N)`` and every metric on it.

Rows are true classes, columns predicted classes.  A *binary* confusion matrix has its
classes ordered ``[pos, neg]``: ``[[TP, FN], [FP, TN]]``; its metrics are scalars per
matrix.  An ``N``-class matrix uses one-vs-all, so class metrics have shape ``(X..., N)``
(or ``(X...)`` with ``average="macro"``/``"micro"``).  A metric of a single matrix is
returned as a Python float.

Every metric is NaN where it is undefined (a zero denominator) instead of raising, so
that stacks of matrices (thresholds, replicates) can be evaluated in one call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from ..engine.bootstrap import run_with_options
from ..engine.nested import plan_for_conditions
from ..feedback import reports_progress
from ..inputs import (
    ArgSpec,
    binary_target,
    bootstrap_options,
    check_choice,
    check_flag,
    check_label_pair,
    check_strata_stratify,
    encode_labels,
    fast_unique,
    gather,
    knobs_in_config,
    positive_label,
    show_values,
)
from ..inputs.resampling import Resampling, check_resampling, resampling_keywords
from ..metrics import (
    ConfusionKernel,
    Kernel,
    check_sample_weight,
    safe_div,
    with_sample_weight,
)
from ..metrics.classification import balanced_accuracy as _balanced_accuracy
from ..metrics.classification import cohen_kappa as _cohen_kappa
from ..metrics.classification import mcc as _mcc
from ..results import per_confidence_level
from ._design import check_stratify_nested, design_arrays, strata_codes
from ._roc import _LABELS, _check_threshold

__all__ = [
    "CM_METRICS",
    "ConfusionMatrix",
    "binary_cm_metric",
    "cm_metric_bounds",
    "pointwise_cm",
]

AVERAGES = (None, "macro", "micro")


# ----------------------------------------------------------------------------- binary parts
# Every class metric is num/den of the four binary counts (tp, fn, fp, tn).
_PARTS: dict[str, Callable[..., tuple[Any, Any]]] = {
    "tpr": lambda tp, fn, fp, tn: (tp, tp + fn),
    "tnr": lambda tp, fn, fp, tn: (tn, tn + fp),
    "fpr": lambda tp, fn, fp, tn: (fp, fp + tn),
    "fnr": lambda tp, fn, fp, tn: (fn, fn + tp),
    "topr": lambda tp, fn, fp, tn: (tp + fp, tp + fn + fp + tn),
    "tonr": lambda tp, fn, fp, tn: (fn + tn, tp + fn + fp + tn),
    "ppv": lambda tp, fn, fp, tn: (tp, tp + fp),
    "npv": lambda tp, fn, fp, tn: (tn, tn + fn),
    "fdr": lambda tp, fn, fp, tn: (fp, fp + tp),
    "for": lambda tp, fn, fp, tn: (fn, fn + tn),
    "class_accuracy": lambda tp, fn, fp, tn: (tp + tn, tp + fn + fp + tn),
    "class_error_rate": lambda tp, fn, fp, tn: (fp + fn, tp + fn + fp + tn),
}
_ALIASES = {
    "recall": "tpr",
    "sensitivity": "tpr",
    "tar": "tpr",
    "specificity": "tnr",
    "trr": "tnr",
    "far": "fpr",
    "frr": "fnr",
    "precision": "ppv",
    "false_omission_rate": "for",
    "false_discovery_rate": "fdr",
    "acceptance_rate": "topr",
    "rejection_rate": "tonr",
}
_COUNTS = ("tp", "tn", "fp", "fn", "p", "n", "top", "ton", "pop")
#: every metric name a binary confusion matrix (and a Scores object at a threshold) knows
CM_METRICS = (
    _COUNTS
    + tuple(_PARTS)
    + tuple(_ALIASES)
    + ("accuracy", "error_rate", "f1", "fbeta", "mcc", "balanced_accuracy", "cohen_kappa")
)


def _cm_proportion(
    name: str, k: int, binary: bool, shape: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray] | None:
    """Numerator and denominator masks over the matrix cells (key = k * true + predicted)
    of a metric that is one proportion, as :func:`mlci.bootstrap_ci`'s kernels declare
    them: ``method="auto"`` then gives it the same interval (Wilson's over independent
    samples) as ``bootstrap_ci`` gives the same proportion."""
    if shape != ():
        return None
    if name in ("accuracy", "error_rate"):
        right = np.eye(k, dtype=bool).ravel()
        return (right if name == "accuracy" else ~right), np.ones_like(right)
    part = _PARTS.get(_ALIASES.get(name, name))
    if not binary or k != 2 or part is None:
        return None
    # cells 2 * true + predicted in the matrix's order, the positive class first:
    # (pos, pos) tp, (pos, neg) fn, (neg, pos) fp, (neg, neg) tn
    num, den = part(*np.eye(4))
    return num > 0, den > 0


def cm_metric_bounds(name: str) -> tuple[float, float]:
    """The range of a confusion-matrix metric: intervals are kept inside it.

    Counts are in [0, inf), MCC and Cohen's kappa in [-1, 1], every other metric (rates,
    predictive values, accuracy, F-scores) in [0, 1].

    Examples
    --------
    >>> cm_metric_bounds("recall"), cm_metric_bounds("mcc"), cm_metric_bounds("tp")
    ((0.0, 1.0), (-1.0, 1.0), (0.0, inf))
    """
    name = _ALIASES.get(name, name)
    if name in _COUNTS:
        return (0.0, np.inf)
    if name in ("mcc", "cohen_kappa"):
        return (-1.0, 1.0)
    return (0.0, 1.0)


def _split(cm: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return cm[..., 0, 0], cm[..., 0, 1], cm[..., 1, 0], cm[..., 1, 1]


def _flat_apply(fn: Callable[[np.ndarray], np.ndarray], cm: np.ndarray) -> np.ndarray:
    """Apply a core (b, K, K) metric to a stack (X..., K, K)."""
    k = cm.shape[-1]
    return fn(cm.reshape(-1, k, k).astype(float)).reshape(cm.shape[:-2])


def binary_cm_metric(cm: np.ndarray, name: str, beta: float = 1.0) -> np.ndarray:
    """Metric ``name`` of binary confusion matrices ``cm`` (X..., 2, 2) ordered [pos, neg].

    Used by :class:`ConfusionMatrix` and by :class:`mlci.Scores` on counts from bootstrap
    replicates.

    Parameters
    ----------
    cm : ndarray, shape (X..., 2, 2)
        Counts ``[[TP, FN], [FP, TN]]`` (rows: true class, columns: decision), integer or
        float (bootstrap weights).
    name : str
        A name of :data:`CM_METRICS` (counts, rates and their aliases, ``accuracy``,
        ``error_rate``, ``f1``, ``fbeta``, ``mcc``, ``balanced_accuracy``,
        ``cohen_kappa``).
    beta : float, default 1.0
        The ``beta`` of ``fbeta``.

    Returns
    -------
    ndarray, shape X
        Float array; NaN where the metric is undefined (a zero denominator).

    Examples
    --------
    >>> binary_cm_metric(np.array([[8, 2], [1, 9]]), "tpr")
    array(0.8)
    >>> binary_cm_metric(np.array([[[8, 2], [1, 9]], [[0, 0], [3, 7]]]), "ppv")
    array([0.88888889, 0.        ])
    """
    name = _ALIASES.get(name, name)
    tp, fn, fp, tn = (np.asarray(x, dtype=float) for x in _split(cm))
    if name in _PARTS:
        return safe_div(*_PARTS[name](tp, fn, fp, tn))
    counts = {
        "tp": tp,
        "tn": tn,
        "fp": fp,
        "fn": fn,
        "p": tp + fn,
        "n": fp + tn,
        "top": tp + fp,
        "ton": fn + tn,
        "pop": tp + fn + fp + tn,
    }
    if name in counts:
        return counts[name]
    if name == "accuracy":
        return safe_div(tp + tn, tp + fn + fp + tn)
    if name == "error_rate":
        return safe_div(fp + fn, tp + fn + fp + tn)
    if name in ("f1", "fbeta"):
        b2 = float(beta) ** 2 if name == "fbeta" else 1.0
        return safe_div((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp)
    if name == "mcc":
        return _flat_apply(_mcc, cm)
    if name == "balanced_accuracy":
        return 0.5 * (safe_div(tp, tp + fn) + safe_div(tn, tn + fp))
    if name == "cohen_kappa":
        return _flat_apply(_cohen_kappa, cm)
    raise ValueError(f"Unknown confusion-matrix metric {name!r}; known: {', '.join(CM_METRICS)}.")


# docstring of the metric methods made by ConfusionMatrix.__getattr__ (tp(), tpr(), ...)
_METHOD_DOC = """The {key!r} metric (see :meth:`ConfusionMatrix.metric`).

Parameters
----------
average : {{None, "macro", "micro"}}, default None
    Multiclass class metrics only: one value per class, their mean, or the metric of
    the summed one-vs-all matrices.
beta : float, default 1.0
    Only used by ``fbeta``.

Returns
-------
float or ndarray
    Shape ``X`` (binary) or ``(X..., N)`` (per class); NaN where undefined.
"""


def _table(matrix: Any, classes: Any) -> tuple[Any, Any]:
    """A matrix given as a dict ``{true: {pred: count}}`` or a pandas DataFrame (index:
    true classes, columns: predicted classes): its array and class names."""
    if isinstance(matrix, dict):
        rows = list(matrix)
        if not all(isinstance(v, dict) for v in matrix.values()):
            raise TypeError(
                "`matrix` as a dict must map every true class to a dict {predicted class: count}."
            )
        names = list(rows)
        for v in matrix.values():
            names += [c for c in v if c not in names]
        if classes is not None:
            names = list(classes)
            extra = [c for c in {*rows, *(c for v in matrix.values() for c in v)} if c not in names]
            if extra:
                raise ValueError(f"`matrix` names classes {extra!r} that are not in `classes`.")
        arr = [[matrix.get(t, {}).get(p, 0) for p in names] for t in names]
        return arr, names
    if hasattr(matrix, "index") and hasattr(matrix, "columns") and hasattr(matrix, "loc"):
        index, columns = list(matrix.index), list(matrix.columns)
        if set(index) != set(columns) or len(index) != len(columns):
            raise ValueError(
                "`matrix` as a DataFrame needs the same classes in its index (true) and its "
                f"columns (predicted); got {index!r} and {columns!r}."
            )
        names = index if classes is None else list(classes)
        if set(names) != set(index):
            raise ValueError(f"`classes` {names!r} must name the DataFrame's classes {index!r}.")
        return matrix.loc[names, names].to_numpy(), names
    return matrix, classes


def _check_matrix(matrix: Any) -> np.ndarray:
    try:
        mat = np.asarray(matrix)
    except (TypeError, ValueError):
        raise TypeError("`matrix` must be an array of counts.") from None
    if mat.dtype == object or mat.dtype.kind not in "iuf":
        raise TypeError(f"`matrix` must be an array of counts; got values of type {mat.dtype}.")
    if mat.ndim < 2 or mat.shape[-1] != mat.shape[-2] or mat.shape[-1] < 1:
        raise ValueError(f"`matrix` must have shape (X..., N, N) with N >= 1; got {mat.shape}.")
    if mat.dtype.kind == "f" and not np.all(np.isfinite(mat)):
        raise ValueError("`matrix` contains NaN or infinite counts.")
    if np.any(mat < 0):
        raise ValueError("`matrix` contains negative counts.")
    return mat


def _check_classes(classes: Any) -> np.ndarray:
    """Class names: one type, no missing value, no duplicate."""
    if isinstance(classes, str | bytes) or not hasattr(classes, "__len__"):
        raise TypeError(f"`classes` must be a sequence of class names; got {classes!r}.")
    g = gather({"classes": ArgSpec("labels")}, {"classes": list(classes)}, allow_empty=True)
    c = g["classes"]
    if len(c) == 0:
        raise ValueError("`classes` is empty; it must name every class.")
    u, inv = fast_unique(c)
    if len(u) < len(c):
        dup = u[np.bincount(inv, minlength=len(u)) > 1]
        raise ValueError(
            f"`classes` repeats {show_values(dup)}; every class must appear once (a repeated "
            "class would split its samples between two rows)."
        )
    return c


def _class_indices(
    y: np.ndarray, p: np.ndarray, classes: Any
) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Class index of every label and prediction, and the class names."""
    if classes is None:
        cls, (t_idx, p_idx) = encode_labels(y, p)
        return t_idx, p_idx, cls.tolist()
    c = _check_classes(classes)
    check_label_pair(y, c, names=("y_true", "classes"))
    order = np.argsort(c, kind="stable")
    sorted_c = c[order]
    out = []
    for name, arr in (("y_true", y), ("y_pred", p)):
        loc = np.minimum(np.searchsorted(sorted_c, arr), len(c) - 1)
        bad = sorted_c[loc] != arr
        if bad.any():
            missing = fast_unique(arr[bad])[0]
            verb = "is" if len(missing) == 1 else "are"
            raise ValueError(
                f"`{name}` takes {show_values(missing)}, which {verb} not among `classes` "
                f"{show_values(c)}; every label must be one of `classes`."
            )
        out.append(order[loc])
    return out[0], out[1], c.tolist()


def _binary_indices(
    y: np.ndarray, p: np.ndarray, pos_label: Any, classes: Any
) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Indices 0 (positive) / 1 (negative) of binary labels; more values are refused."""
    if classes is not None:
        raise ValueError(
            "`classes` does not apply to `binary=True` from labels: the classes are "
            "[pos_label, the other label]; pass `pos_label`."
        )
    values = fast_unique(np.concatenate([y, p]))[0]
    if len(values) > 2:
        example = pos_label if pos_label is not None else values[-1].item()
        raise ValueError(
            f"`binary=True` needs two classes, but `y_true` and `y_pred` take {len(values)} "
            f"values {show_values(values)}. To score one class against the rest, binarise "
            f"both first, e.g. `y_true == {example!r}` and `y_pred == {example!r}`."
        )
    pos = positive_label(values, pos_label, "y_true")
    others = [v for v in values.tolist() if v != pos]
    neg = others[0] if others else "other"
    return (y != pos).astype(np.intp), (p != pos).astype(np.intp), [pos, neg]


def _scalar(x: np.ndarray) -> Any:
    x = np.asarray(x)
    return float(x) if x.ndim == 0 else x


class ConfusionMatrix:
    """A confusion matrix, or a stack of them of shape ``(X..., N, N)``.

    Parameters
    ----------
    y_true, y_pred : array-like, shape (n_samples,), optional
        True and predicted classes (one type, sharing their values); the classes are the
        sorted union of their values unless ``classes`` is given.
    matrix : array-like of shape (X..., N, N), dict or DataFrame, optional
        Counts (rows: true class, columns: predicted class), instead of labels.  A dict
        ``{true: {predicted: count}}`` or a pandas DataFrame (index: true classes, columns:
        predicted classes) also gives the class names.
    classes : sequence, optional
        Class names in matrix order (default ``range(N)``, or the sorted labels).  From
        labels, every label must be one of them (classes absent from the data give rows
        and columns of zeros); no class may be repeated.
    binary : bool, default False
        A binary matrix with classes ordered ``[pos, neg]``: its metrics are scalars.
        From labels, the labels must take at most two values and ``pos_label`` says which
        is positive (default 1, or True, for labels in {0, 1}, {-1, 1}, {False, True}).
    pos_label : optional
        Positive class for ``binary=True`` from labels.
    dropna : bool, default False
        From labels: drop the samples with a missing label or prediction instead of
        refusing them; their number is :attr:`n_dropped`.
    data : DataFrame, optional
        A pandas or polars DataFrame (or pyarrow Table); ``y_true`` and ``y_pred`` may
        then be column names.
    sample_weight : array-like, shape (n_samples,), optional
        From labels: per-sample weights (non-negative, as scikit-learn's
        ``confusion_matrix(sample_weight=...)``); the matrix holds the summed weights and
        :meth:`bootstrap_ci` multiplies each replicate's counts by them.

    Attributes
    ----------
    matrix : ndarray
    classes : list
    binary : bool
    n_dropped : int
        Samples dropped for a missing value (with ``dropna=True``).

    Examples
    --------
    >>> cm = ConfusionMatrix([2, 0, 2, 2, 0, 1, 1, 2, 2, 0, 1, 2],
    ...                      [0, 0, 2, 1, 0, 2, 1, 0, 2, 0, 2, 2])
    >>> cm.classes
    [0, 1, 2]
    >>> cm.matrix
    array([[3, 0, 0],
           [0, 1, 2],
           [2, 1, 3]])
    >>> ConfusionMatrix(matrix=[[1, 4], [2, 3]], binary=True).tpr()
    0.2
    >>> ConfusionMatrix(matrix=[[1, 4], [2, 3]]).tpr()
    array([0.2, 0.6])

    The lecture's baselines for a classifier with 90/10/90/810 counts:

    >>> cm = ConfusionMatrix(matrix=[[90, 10], [90, 810]], binary=True)
    >>> cm.accuracy(), cm.trivial_accuracy(), round(cm.random_accuracy(), 4)
    (0.9, 0.9, 0.82)

    Class names from a dict of counts, and weighted samples:

    >>> ConfusionMatrix(matrix={"cat": {"cat": 8, "dog": 2}, "dog": {"cat": 1, "dog": 9}}).classes
    ['cat', 'dog']
    >>> ConfusionMatrix([0, 1, 1], [0, 1, 0], sample_weight=[1.0, 3.0, 0.5]).matrix
    array([[1. , 0. ],
           [0.5, 3. ]])
    """

    def __init__(
        self,
        y_true: Any = None,
        y_pred: Any = None,
        *,
        matrix: Any = None,
        classes: Any = None,
        binary: bool = False,
        pos_label: Any = None,
        dropna: bool = False,
        data: Any = None,
        sample_weight: Any = None,
    ) -> None:
        check_flag("binary", binary)
        check_flag("dropna", dropna)
        # the samples (class indices in the user's order), when built from labels
        self._samples: tuple[np.ndarray, np.ndarray] | None = None
        self._kept: np.ndarray | None = None
        self._weights: np.ndarray | None = None
        self._n_input = 0
        self.n_dropped = 0
        if matrix is not None:
            if y_true is not None or y_pred is not None:
                raise ValueError("Pass either `matrix` or `y_true` and `y_pred`, not both.")
            if pos_label is not None:
                raise ValueError(
                    "`pos_label` applies to labels (`y_true`, `y_pred`); a binary `matrix` "
                    "is ordered [pos, neg]."
                )
            if sample_weight is not None:
                raise ValueError("`sample_weight` applies to `y_true` and `y_pred`, not `matrix`.")
            matrix, classes = _table(matrix, classes)
            mat = _check_matrix(matrix)
            k = mat.shape[-1]
            if classes is None:
                classes = ["pos", "neg"] if binary and k == 2 else list(range(k))
            self.classes = _check_classes(classes).tolist()
            if len(self.classes) != k:
                raise ValueError(f"`classes` has {len(self.classes)} names for N={k} classes.")
        else:
            if y_true is None or y_pred is None:
                raise ValueError("Pass `y_true` and `y_pred`, or `matrix`.")
            g = gather(
                {
                    "y_true": ArgSpec("labels"),
                    "y_pred": ArgSpec("labels"),
                    "sample_weight": ArgSpec("numbers"),
                },
                {"y_true": y_true, "y_pred": y_pred, "sample_weight": sample_weight},
                dropna=bool(dropna),
                data=data,
            )
            y, p = g["y_true"], g["y_pred"]
            if g["sample_weight"] is not None:
                self._weights = check_sample_weight(g["sample_weight"], len(y))
            check_label_pair(y, p)
            self._kept, self._n_input, self.n_dropped = g.kept, g.n_given, g.n_dropped
            if binary:
                t_idx, p_idx, self.classes = _binary_indices(y, p, pos_label, classes)
            else:
                if pos_label is not None:
                    raise ValueError(
                        "`pos_label` applies to `binary=True` only; an N-class matrix scores "
                        "every class (one-vs-all)."
                    )
                t_idx, p_idx, self.classes = _class_indices(y, p, classes)
            k = len(self.classes)
            self._samples = (t_idx, p_idx)
            mat = np.bincount(t_idx * k + p_idx, weights=self._weights, minlength=k * k)
            mat = mat.reshape(k, k)
        if binary and mat.shape[-1] != 2:
            raise ValueError(
                f"`binary=True` needs 2 classes ordered [pos, neg]; got N={mat.shape[-1]}."
            )
        self.matrix = mat
        self.binary = bool(binary)

    # ------------------------------------------------------------------ structure
    @property
    def shape(self) -> tuple[int, ...]:
        """The vectorisation shape ``X`` (``()`` for a single matrix).

        Returns
        -------
        tuple of int
        """
        return self.matrix.shape[:-2]

    @property
    def n_classes(self) -> int:
        return self.matrix.shape[-1]

    def __repr__(self) -> str:
        kind = "binary " if self.binary else ""
        return f"ConfusionMatrix({kind}shape={self.shape}, classes={self.classes})"

    def __eq__(self, other: object) -> bool:
        """Exact equality of the counts, the class names and ``binary`` (no tolerance).

        Examples
        --------
        >>> ConfusionMatrix(matrix=[[1, 2], [3, 4]]) == ConfusionMatrix(matrix=[[1, 2], [3, 4]])
        True
        """
        if not isinstance(other, ConfusionMatrix):
            return NotImplemented
        return (
            self.binary == other.binary
            and self.classes == other.classes
            and self.matrix.shape == other.matrix.shape
            and bool(np.array_equal(self.matrix, other.matrix))
        )

    __hash__ = None  # type: ignore[assignment]  # mutable counts: not hashable

    def __getitem__(self, index: Any) -> ConfusionMatrix:
        """One matrix (or a sub-stack) of a stack of shape ``(X..., N, N)``.

        ``index`` indexes the stack axes ``X`` only (as ``matrix[index]``); the class
        names and ``binary`` are kept.

        Examples
        --------
        >>> stack = ConfusionMatrix(matrix=[[[1, 2], [3, 4]], [[5, 6], [7, 8]]], binary=True)
        >>> stack[1].matrix, stack[1].tpr()
        (array([[5, 6],
               [7, 8]]), 0.45454545454545453)
        """
        if not self.shape:
            raise TypeError(
                "A single confusion matrix has no stack axes to index; use `.matrix[i, j]` "
                "for a count."
            )
        if isinstance(index, tuple) and any(i is Ellipsis for i in index):
            raise TypeError("`index` indexes the stack axes only; Ellipsis is not supported.")
        key = index if isinstance(index, tuple) else (index,)
        if len(key) > len(self.shape):
            raise IndexError(
                f"`index` has {len(key)} entries for a stack of shape {self.shape}; the last "
                "two axes are the classes."
            )
        stack_index = (*key, Ellipsis)  # (mypy misreads `m[(*key, ...)]` as 3.11 syntax)
        mat = self.matrix[stack_index]
        return ConfusionMatrix(matrix=mat, classes=self.classes, binary=self.binary)

    def one_vs_all(self) -> ConfusionMatrix:
        """Binary matrices, one per class: shape ``(X..., N, 2, 2)``, each ordered [class, rest].

        Returns
        -------
        ConfusionMatrix
            Binary (``binary=True``); a binary matrix is returned as it is.

        Examples
        --------
        >>> ConfusionMatrix(matrix=[[5, 1, 0], [2, 3, 1], [0, 0, 4]]).one_vs_all().matrix[0]
        array([[5, 1],
               [2, 8]])
        """
        if self.binary:
            return self
        m = self.matrix.astype(float) if self.matrix.dtype.kind == "f" else self.matrix
        tp = np.diagonal(m, axis1=-2, axis2=-1)
        fn = m.sum(axis=-1) - tp
        fp = m.sum(axis=-2) - tp
        tn = m.sum(axis=(-2, -1))[..., None] - tp - fn - fp
        out = np.stack([np.stack([tp, fn], -1), np.stack([fp, tn], -1)], -2)
        return ConfusionMatrix(matrix=out, binary=True)

    def _binary_stack(self) -> np.ndarray:
        return self.matrix if self.binary else self.one_vs_all().matrix

    # ------------------------------------------------------------------ metrics
    def metric(self, name: str, *, average: str | None = None, beta: float = 1.0) -> Any:
        """Any metric by name (see :data:`CM_METRICS`); class metrics accept ``average``.

        Parameters
        ----------
        name : str
            A name of :data:`CM_METRICS`.  Class metrics (counts, rates, ``f1``, ...) of
            an ``N``-class matrix are one-vs-all, one per class; ``accuracy``,
            ``error_rate``, ``mcc``, ``balanced_accuracy`` and ``cohen_kappa`` are whole-
            matrix metrics.
        average : {None, "macro", "micro"}, default None
            Multiclass class metrics only: None (one value per class), ``"macro"`` (mean
            over classes) or ``"micro"`` (the metric of the summed one-vs-all matrices).
        beta : float, default 1.0
            The ``beta`` of ``fbeta``.

        Returns
        -------
        float or ndarray
            Shape ``X`` (binary, averaged or whole-matrix metric) or ``(X..., N)`` (class
            metric); a float for a single value.  NaN where undefined.

        Examples
        --------
        >>> cm = ConfusionMatrix(matrix=[[5, 1, 0], [2, 3, 1], [0, 0, 4]])
        >>> cm.metric("tpr")
        array([0.83333333, 0.5       , 1.        ])
        >>> round(cm.metric("tpr", average="macro"), 4), cm.metric("accuracy")
        (0.7778, 0.75)
        """
        if not isinstance(name, str) or (name not in CM_METRICS and name != "fbeta"):
            raise ValueError(f"Unknown metric {name!r}; known metrics: {', '.join(CM_METRICS)}.")
        if average is not None:
            check_choice("average", average, ("macro", "micro"))
            if self.binary:
                raise ValueError("`average` applies to multiclass matrices, not binary ones.")
        whole = {"accuracy", "error_rate", "mcc", "balanced_accuracy", "cohen_kappa"}
        if name in whole and not self.binary:
            if average is not None:
                raise ValueError(f"`average` does not apply to {name!r}.")
            fn = {
                "accuracy": lambda c: safe_div(np.trace(c, axis1=1, axis2=2), c.sum(axis=(1, 2))),
                "error_rate": lambda c: (
                    1.0 - safe_div(np.trace(c, axis1=1, axis2=2), c.sum(axis=(1, 2)))
                ),
                "mcc": _mcc,
                "balanced_accuracy": _balanced_accuracy,
                "cohen_kappa": _cohen_kappa,
            }[name]
            return _scalar(_flat_apply(fn, self.matrix))
        stack = self._binary_stack().astype(float)
        if average == "micro":
            return _scalar(binary_cm_metric(stack.sum(axis=-3), name, beta))
        vals = binary_cm_metric(stack, name, beta)
        if average == "macro":
            return _scalar(vals.mean(axis=-1))
        return _scalar(vals)

    def __getattr__(self, name: str) -> Any:
        # tp(), tpr(), ppv(), ... as methods, from the one table of metrics
        key = "for" if name == "for_" else name
        if key in CM_METRICS:

            def method(*, average: str | None = None, beta: float = 1.0) -> Any:
                return self.metric(key, average=average, beta=beta)

            method.__name__ = name
            method.__doc__ = _METHOD_DOC.format(key=key)
            return method
        raise AttributeError(f"'ConfusionMatrix' object has no attribute {name!r}")

    def fbeta(self, beta: float = 1.0, *, average: str | None = None) -> Any:
        """F-beta score ``(1+b^2) TP / ((1+b^2) TP + b^2 FN + FP)``.

        Parameters
        ----------
        beta : float, default 1.0
            Weight of recall relative to precision (``beta=1``: F1).
        average : {None, "macro", "micro"}, default None
            As in :meth:`metric`.

        Returns
        -------
        float or ndarray
            NaN where undefined (no true positive, false negative or false positive).

        Examples
        --------
        >>> cm = ConfusionMatrix(matrix=[[8, 2], [4, 6]], binary=True)
        >>> round(cm.fbeta(), 4), round(cm.fbeta(2.0), 4)
        (0.7273, 0.7692)
        """
        return self.metric("fbeta", beta=beta, average=average)

    def priors(self) -> np.ndarray:
        """Observed class priors p(y) (row sums over the total), shape (X..., N).

        Returns
        -------
        ndarray, shape (X..., N)
            NaN for an empty matrix.
        """
        rows = self.matrix.sum(axis=-1).astype(float)
        return safe_div(rows, rows.sum(axis=-1, keepdims=True))

    def trivial_accuracy(self) -> Any:
        """Accuracy of the trivial classifier that always predicts the majority class: max p(y).

        Returns
        -------
        float or ndarray of shape X
        """
        return _scalar(self.priors().max(axis=-1))

    def random_accuracy(self) -> Any:
        """Accuracy of a random classifier drawing classes from the priors: sum p(y)^2.

        Returns
        -------
        float or ndarray of shape X
        """
        return _scalar(np.sum(self.priors() ** 2, axis=-1))

    # ------------------------------------------------------------------ intervals
    @resampling_keywords
    @knobs_in_config
    @reports_progress
    @per_confidence_level
    def bootstrap_ci(
        self,
        metric: str,
        *,
        average: str | None = None,
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
    ) -> Any:
        """Bootstrap interval of a metric of one confusion matrix (resampling its samples).

        Parameters
        ----------
        metric : str
            A name of :data:`CM_METRICS` (see :meth:`metric`).
        average : {None, "macro", "micro"}, optional
            As in :meth:`metric`.
        metric_kwargs : dict, optional
            ``{"beta": ...}`` for ``fbeta``.
        n_resamples, confidence_level, method, alternative, rng
            As in :func:`mlci.bootstrap_ci`.  Intervals stay inside the metric's range
            (:func:`cm_metric_bounds`).
            A list of levels returns a tuple of results, one per level (same replicates).
        conditions : array-like, or list of array-like, optional
            Condition of every sample (nested: a list of levels, top first), in the order
            of ``y_true``; needs a matrix built from labels.
        strata : array-like, optional
            Stratum of every sample (a matrix built from labels only).
        resampling : mlci.Resampling, optional
            How the replicates are drawn beyond ``conditions`` and ``strata``: ``stratify``,
            ``two_stage``, ``weights`` (see :class:`mlci.Resampling`; default: the classical
            bootstrap).
        dropna : bool, default False
            Drop the samples with a missing condition or stratum instead of refusing them.

        Returns
        -------
        BootstrapResult
            Estimate, interval and bootstrap distribution of the metric (shape as
            :meth:`metric` returns it); ``details["n_dropped"]`` counts the samples
            dropped for a missing value (here and at construction).

        Examples
        --------
        >>> cm = ConfusionMatrix(matrix=[[90, 10], [90, 810]], binary=True)
        >>> res = cm.bootstrap_ci("tpr", rng=0, method="percentile")
        >>> round(res.estimate, 2), bool(res.confidence_interval.low < 0.9)
        (0.9, True)
        """
        rs = check_resampling(
            resampling,
            ("stratify", "two_stage", "weights"),
            "ConfusionMatrix.bootstrap_ci",
            stratify=False,
        )
        stratify, two_stage, weights = rs.stratify, rs.two_stage, rs.weights
        opts = bootstrap_options(
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            method=method,
            alternative=alternative,
            rng=rng,
        )
        for name, flag in (("stratify", stratify), ("two_stage", two_stage), ("dropna", dropna)):
            check_flag(name, flag)
        check_strata_stratify(strata, stratify, "the true class")
        if self.shape != ():
            raise ValueError(
                "`bootstrap_ci` needs a single confusion matrix; this one has shape "
                f"{self.shape}. Index it first."
            )
        mat = np.asarray(self.matrix)
        if self._samples is None and mat.dtype.kind == "f" and not np.allclose(mat, np.round(mat)):
            raise ValueError("`bootstrap_ci` needs integer counts in the matrix.")
        if metric_kwargs is not None and not isinstance(metric_kwargs, dict):
            raise TypeError(f"`metric_kwargs` must be a dict; got {type(metric_kwargs).__name__}.")
        kw = dict(metric_kwargs or {})
        extra = sorted(set(kw) - {"beta"})
        if extra:
            raise TypeError(f"Unknown option(s) {extra} in `metric_kwargs`; it takes 'beta'.")
        beta = kw.get("beta", 1.0)
        shape = np.shape(self.metric(metric, average=average, beta=beta))  # validates early
        if self._samples is not None:
            t_idx, p_idx = self._samples
        else:
            if conditions is not None or strata is not None:
                which = "conditions" if conditions is not None else "strata"
                raise ValueError(
                    f"`{which}` needs the samples: build the ConfusionMatrix from `y_true` and "
                    "`y_pred` (a matrix of counts has no sample order)."
                )
            k = self.n_classes
            cells = np.repeat(np.arange(k * k), np.round(mat).astype(np.intp).ravel())
            t_idx, p_idx = cells // k, cells % k
        design = design_arrays(
            conditions,
            strata,
            n_samples=len(t_idx),
            dropna=bool(dropna),
            input_kept=self._kept,
            n_input=self._n_input,
            holder="`y_true` and `y_pred`",
        )
        check_stratify_nested(stratify, design, "the true class")
        if design.kept is not None:
            t_idx, p_idx = t_idx[design.kept], p_idx[design.kept]
        binary = self.binary

        def fn(c: np.ndarray) -> np.ndarray:
            cmx = ConfusionMatrix(matrix=c, binary=binary)
            return np.asarray(cmx.metric(metric, average=average, beta=beta), dtype=float)

        kernel: Kernel = ConfusionKernel(t_idx, p_idx, self.n_classes, fn, shape, metric)
        kernel.bounds = cm_metric_bounds(metric)
        kernel.proportion = _cm_proportion(metric, self.n_classes, binary, shape)
        if self._weights is not None:
            sw = self._weights if design.kept is None else self._weights[design.kept]
            kernel = with_sample_weight(kernel, sw)
        plan = plan_for_conditions(
            len(t_idx),
            conditions=design.conditions,
            strata=strata_codes(t_idx if stratify else None, design.strata),
            two_stage=two_stage,
            weights=weights,
            n_resamples=opts.n_resamples,
            rng=opts.seed,
        )
        res = run_with_options(kernel, plan, opts, metric_name=metric)
        n_dropped = self.n_dropped + design.n_dropped
        return dataclasses.replace(res, details={**res.details, "n_dropped": n_dropped})


def pointwise_cm(
    y_true: Any,
    y_score: Any,
    threshold: Any,
    *,
    pos_label: Any = None,
    score_class: str = "pos",
    equal_class: str = "pos",
) -> np.ndarray:
    """Which cell of the binary confusion matrix each sample falls in, at each threshold.

    Parameters
    ----------
    y_true : array-like, shape (n_samples,)
        Binary labels.
    y_score : array-like of float, shape (n_samples,)
    threshold : float or array_like of float, shape X
    pos_label : optional
        The positive class (the one default rule: 1 or True for 0/1, -1/1, bool labels).
    score_class, equal_class : {"pos", "neg"}
        As in :class:`Scores`.  The output is per sample, so a missing label or score is
        refused (there is no ``dropna``: dropping rows would misalign the output).

    Returns
    -------
    ndarray of bool, shape (n_samples, *X, 2, 2)
        ``out[i, ..., r, c]``: sample ``i`` is of true class ``r`` and decided ``c``, in
        mlci's ``[pos, neg]`` order (``[0, 0]`` true positive, ``[0, 1]`` false negative,
        ``[1, 0]`` false positive, ``[1, 1]`` true negative), as score-analysis's
        ``pointwise_cm``.  Summed over the samples it is ``Scores.cm(threshold).matrix``.

    Examples
    --------
    >>> pointwise_cm([1, 0, 1], [0.9, 0.6, 0.2], 0.5)[:, 0, 0]
    array([ True, False, False])
    """
    check_choice("score_class", score_class, _LABELS)
    check_choice("equal_class", equal_class, _LABELS)
    g = gather(
        {"y_true": ArgSpec("labels", required=True), "y_score": ArgSpec("scores", required=True)},
        {"y_true": y_true, "y_score": y_score},
    )
    pos = binary_target(g["y_true"], pos_label, metric="pointwise_cm")
    thr = _check_threshold(threshold)
    z = g["y_score"].reshape(-1, *([1] * thr.ndim))
    if score_class == "neg":
        z, thr = -z, -thr
    top = z >= thr if equal_class == "pos" else z > thr
    p = pos.reshape(-1, *([1] * thr.ndim))
    out = np.empty((len(pos), *thr.shape, 2, 2), dtype=bool)
    out[..., 0, 0] = p & top
    out[..., 0, 1] = p & ~top
    out[..., 1, 0] = ~p & top
    out[..., 1, 1] = ~p & ~top
    return out
