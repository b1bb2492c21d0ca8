"""Multiclass and multilabel metrics with scikit-learn's signatures, as kernels on atoms.

* ``roc_auc`` with ``(n, K)`` class probabilities: ``multi_class="ovr"`` (each class
  against the rest) or ``"ovo"`` (Hand & Till 2001: every pair of classes), averaged
  ``"macro"`` or ``"weighted"`` (or per class, ``average=None``, for one-vs-rest);
* ``average_precision`` per class (multiclass: one-vs-rest) and per label (multilabel);
* multilabel indicator matrices for ``precision``/``recall``/``f1``/``fbeta`` (every
  ``average`` including ``"samples"``), ``accuracy`` (subset accuracy), ``roc_auc`` and
  ``average_precision``;
* ``top_k_accuracy``.

Several binary kernels on the same samples become one :class:`StackedKernel` over their
joint atoms, so a replicate is still a vector of counts over atoms.  References: the
scikit-learn functions of the same names (``roc_auc_score``, ``average_precision_score``,
``top_k_accuracy_score``, ``precision_recall_fscore_support``), matched to 1e-12 in
``tests/test_metrics.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

import numpy as np

from ..inputs import check_choice, check_positive_int, fast_unique, show_values
from ._base import AdditiveKernel, Kernel, safe_div, unique_rows
from .ranking import _SortedScores

__all__ = [
    "StackedKernel",
    "class_columns",
    "multilabel_decision_kernel",
    "prepare_ranking",
    "top_k_accuracy_kernel",
]


class StackedKernel(Kernel):
    """Several kernels on subsets of the same samples, combined into one value.

    Parameters
    ----------
    parts : sequence of (Kernel, ndarray)
        Each kernel with the sample indices it was built on (its ``keys`` follow them).
    combine : callable
        ``combine(values, weights)``: ``values`` (b, len(parts)) the kernels' values,
        ``weights`` the list of each kernel's atom weights (b, m_k); returns (b, *shape).
    shape : tuple
    name : str
    n : int
        Number of samples.
    """

    def __init__(
        self,
        parts: Sequence[tuple[Kernel, np.ndarray]],
        combine: Callable[[np.ndarray, list[np.ndarray]], np.ndarray],
        shape: tuple[int, ...],
        name: str,
        n: int,
    ) -> None:
        # atom of every sample in every kernel (m_k: not in that kernel's subset)
        cols = []
        for kernel, idx in parts:
            full = np.full(n, kernel.m, dtype=np.int64)
            full[idx] = kernel.keys
            cols.append(full)
        table, keys = unique_rows(np.column_stack(cols))
        self.kernels = [k for k, _ in parts]
        self.keys = keys.reshape(-1).astype(np.intp)
        self.m = len(table)
        from scipy import sparse  # here: `import mlci.metrics` stays without scipy

        # joint atom -> atom of kernel j (the last column: not in its subset), transposed
        self._maps = [
            sparse.csr_matrix(
                (np.ones(self.m), (table[:, j], np.arange(self.m))),
                shape=(k.m + 1, self.m),
            )
            for j, (k, _) in enumerate(parts)
        ]
        self.combine = combine
        self.shape = shape
        self.name = name
        self.work_factor = 2.0 + sum(k.work_factor * k.m for k in self.kernels) / max(self.m, 1)

    def parts_of(self, w: np.ndarray) -> list[np.ndarray]:
        """Every kernel's atom weights (b, m_k) of joint atom weights ``w`` (b, m)."""
        return [
            np.asarray((amap @ w.T).T)[:, : kernel.m]
            for kernel, amap in zip(self.kernels, self._maps, strict=True)
        ]

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        parts = self.parts_of(np.asarray(w, dtype=float))
        values = np.column_stack([k.evaluate(p) for k, p in zip(self.kernels, parts, strict=True)])
        return self.combine(values, parts)


# --------------------------------------------------------------------------- helpers
def class_columns(
    name: str, y_true: np.ndarray, y_score: np.ndarray, labels: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Classes (the columns of ``y_score``, sorted) and every sample's class index."""
    k = y_score.shape[1]
    if labels is not None:
        classes = np.asarray(labels)
        if classes.ndim != 1 or len(fast_unique(classes)[0]) != len(classes):
            raise ValueError(f"`labels` must be a list of distinct class labels; got {labels!r}.")
        try:
            order_ok = bool(np.all(classes[:-1] < classes[1:]))
        except TypeError:
            order_ok = False
        if not order_ok:
            raise ValueError(
                f"`labels` must be sorted (the columns of `y_score` follow the sorted class "
                f"labels, as in scikit-learn); got {show_values(classes)}."
            )
        if len(classes) != k:
            raise ValueError(
                f"`labels` has {len(classes)} classes but `y_score` has {k} columns; they must "
                "match (one column per class, in the order of `labels`)."
            )
        seen = fast_unique(y_true)[0]
        missing = np.setdiff1d(seen, classes)
        if missing.size:
            raise ValueError(
                f"`y_true` holds {show_values(missing)}, not in `labels` {show_values(classes)}."
            )
    else:
        classes = fast_unique(y_true)[0]
        if len(classes) != k:
            raise ValueError(
                f"`y_true` shows {len(classes)} classes {show_values(classes)} but `y_score` has "
                f"{k} columns; the columns follow the sorted class labels. Pass `labels=` (all "
                "classes, sorted) when some class is absent from `y_true`."
            )
    idx = np.searchsorted(classes, y_true)
    return classes, idx


def _average(values: np.ndarray, support: np.ndarray, average: Any) -> np.ndarray:
    """Macro (NaN if any class is undefined), weighted by ``support``, or per class."""
    if average is None:
        return values
    if average == "macro":
        return values.mean(axis=1)
    return safe_div(np.sum(values * support, axis=1), support.sum(axis=1))


def _check_probabilities(name: str, y_score: np.ndarray) -> None:
    """scikit-learn's rule for multiclass roc_auc: rows of probabilities summing to 1."""
    rows = y_score.sum(axis=1)
    if (y_score < 0).any() or (y_score > 1).any() or not np.allclose(rows, 1.0, atol=1e-6):
        raise ValueError(
            f"Multiclass {name!r} needs class probabilities in `y_score` (each row in [0, 1], "
            f"summing to 1; rows sum from {rows.min():.6g} to {rows.max():.6g}), as "
            "scikit-learn's roc_auc_score does."
        )


def _ovr_parts(
    kernel_cls: Any, target: np.ndarray, y_score: np.ndarray, label: Callable[[int], str]
) -> list[tuple[_SortedScores, np.ndarray]]:
    n = len(target)
    parts = []
    for k in range(target.shape[1]):
        col = target[:, k]
        if col.all() or not col.any():
            raise ValueError(
                f"{label(k)} is {'every' if col.all() else 'no'} sample's class: its "
                "one-vs-rest score is undefined. Drop it (and its column of `y_score`)."
            )
        parts.append((kernel_cls(col, y_score[:, k], True), np.arange(n)))
    return parts


def _positive_weight(parts: list[np.ndarray], kernels: Sequence[_SortedScores]) -> np.ndarray:
    """Weight of the positives of every binary kernel (b, K)."""
    return np.column_stack(
        [p[:, k.m_neg :].sum(axis=1) for p, k in zip(parts, kernels, strict=True)]
    )


# --------------------------------------------------------------------------- ranking
def prepare_ranking(
    kernel_cls: Any,
    name: str,
    y_true: np.ndarray,
    y_score: np.ndarray,
    *,
    pos_label: Any = None,
    average: Any = "default",
    multi_class: Any = None,
    labels: Any = None,
) -> Kernel:
    """roc_auc / average_precision: binary, multiclass (``(n, K)`` scores) or multilabel."""
    y_score = np.asarray(y_score, dtype=float)
    y_true = np.asarray(y_true)
    if y_true.ndim == 1 and y_score.ndim == 1:
        if labels is not None or multi_class is not None:
            raise ValueError(
                f"`labels` and `multi_class` apply to {name!r} with one score column per class "
                "(2-d `y_score`); leave them unset for binary labels with one score."
            )
        if average not in ("default", "macro", "weighted", "micro", "samples"):
            raise ValueError(
                f"`average` must be 'macro', 'weighted', 'micro', 'samples' or None; got "
                f"{average!r}."
            )
        return kernel_cls(y_true, y_score, pos_label)  # scikit-learn ignores average here
    if pos_label is not None:
        raise ValueError(
            f"`pos_label` applies to {name!r} with binary labels and one score per sample; "
            "with a score column per class, every class is scored in turn."
        )
    if y_score.ndim != 2:
        raise ValueError(
            f"`y_score` must be 2-d (one column per class or label) with 2-d `y_true`; got "
            f"shape {y_score.shape}."
        )
    if y_true.ndim == 2:
        return _multilabel_ranking(kernel_cls, name, y_true, y_score, average, multi_class)
    if y_score.shape[1] == 2 and len(fast_unique(y_true)[0]) <= 2 and labels is None:
        raise ValueError(
            f"{name!r} takes one score per sample (1-d `y_score`) for binary labels; got shape "
            f"{y_score.shape}. For class probabilities, pass the positive class's column, e.g. "
            "y_score[:, 1]."
        )
    classes, idx = class_columns(name, y_true, y_score, labels)
    target = idx[:, None] == np.arange(len(classes))[None, :]

    def label(k: int) -> str:
        return f"Class {classes[k]!r}"

    if name == "roc_auc":
        if multi_class is None or multi_class == "raise":
            raise ValueError(
                "Multiclass 'roc_auc' needs `multi_class='ovr'` (each class against the rest) "
                "or 'ovo' (every pair of classes, Hand & Till 2001), as scikit-learn's "
                "roc_auc_score."
            )
        check_choice("multi_class", multi_class, ("ovr", "ovo"))
        _check_probabilities(name, y_score)
        if multi_class == "ovo":
            return _ovo_auc(kernel_cls, y_score, idx, classes, average)
    elif multi_class is not None:
        raise ValueError(f"`multi_class` applies to 'roc_auc' only; got {multi_class!r}.")
    if average == "default":
        average = "macro"
    if average == "micro":
        raise ValueError(
            f"`average='micro'` is not available for multiclass {name!r} in mlci; use "
            "'macro', 'weighted' or None (per class)."
        )
    check_choice("average", "none" if average is None else average, ("macro", "weighted", "none"))
    parts = _ovr_parts(kernel_cls, target, y_score, label)
    kernels = [k for k, _ in parts]

    def combine(values: np.ndarray, w: list[np.ndarray]) -> np.ndarray:
        return _average(values, _positive_weight(w, kernels), average)

    shape = (len(classes),) if average is None else ()
    kernel = StackedKernel(parts, combine, shape, name, len(y_true))
    if average is None:
        kernel.elements = tuple(classes.tolist())
    return kernel


def _ovo_auc(
    kernel_cls: Any, y_score: np.ndarray, idx: np.ndarray, classes: np.ndarray, average: Any
) -> Kernel:
    """Hand & Till (2001): the mean over class pairs of (AUC(a|a,b) + AUC(b|a,b)) / 2,
    macro or weighted by the pair's prevalence (scikit-learn's ``multi_class='ovo'``)."""
    if average == "default":
        average = "macro"
    check_choice("average", "none" if average is None else average, ("macro", "weighted"))
    parts: list[tuple[Kernel, np.ndarray]] = []
    for a, b in combinations(range(len(classes)), 2):
        sub = np.flatnonzero((idx == a) | (idx == b))
        if not ((idx[sub] == a).any() and (idx[sub] == b).any()):
            raise ValueError(
                f"Class {classes[a] if not (idx == a).any() else classes[b]!r} has no sample in "
                "`y_true`: its one-vs-one AUCs are undefined. Drop its column of `y_score`."
            )
        parts.append((kernel_cls(idx[sub] == a, y_score[sub, a], True), sub))
        parts.append((kernel_cls(idx[sub] == b, y_score[sub, b], True), sub))

    def combine(values: np.ndarray, w: list[np.ndarray]) -> np.ndarray:
        pair = (values[:, 0::2] + values[:, 1::2]) / 2.0
        if average == "macro":
            return pair.mean(axis=1)
        prevalence = np.column_stack([w[j].sum(axis=1) for j in range(0, len(w), 2)])
        return safe_div(np.sum(pair * prevalence, axis=1), prevalence.sum(axis=1))

    return StackedKernel(parts, combine, (), "roc_auc", len(idx))


def _multilabel_target(name: str, y_true: np.ndarray, width: int) -> np.ndarray:
    vals = fast_unique(y_true.ravel())[0]
    if not np.isin(vals, [0, 1]).all():
        raise ValueError(
            f"A 2-d `y_true` is a multilabel indicator matrix of 0/1 (or True/False); "
            f"got values {show_values(vals)}."
        )
    if y_true.shape[1] != width:
        raise ValueError(
            f"`y_true` has {y_true.shape[1]} label columns but `y_score`/`y_pred` has {width}; "
            "they must match."
        )
    return y_true.astype(bool)


def _multilabel_ranking(
    kernel_cls: Any,
    name: str,
    y_true: np.ndarray,
    y_score: np.ndarray,
    average: Any,
    multi_class: Any,
) -> Kernel:
    if multi_class is not None:
        raise ValueError("`multi_class` does not apply to multilabel data (2-d `y_true`).")
    target = _multilabel_target(name, y_true, y_score.shape[1])
    if average == "default":
        average = "macro"
    check_choice(
        "average", "none" if average is None else average, ("macro", "weighted", "samples", "none")
    )
    n, k = target.shape
    if average == "samples":
        # one binary score per sample over its labels: a mean of per-sample values
        values = np.empty(n)
        for i in range(n):
            row = target[i]
            if row.all() or not row.any():
                raise ValueError(
                    f"{name!r} with `average='samples'` needs every sample to have both "
                    f"relevant and irrelevant labels; sample {i} has "
                    f"{'only relevant' if row.any() else 'no relevant'} labels."
                )
            kern = kernel_cls(row, y_score[i], True)
            values[i] = kern.evaluate(np.bincount(kern.keys, minlength=kern.m)[None, :])[0]
        return AdditiveKernel(np.column_stack([values, np.ones(n)]), _ratio, (), name)
    parts = _ovr_parts(kernel_cls, target, y_score, lambda j: f"Label column {j}")
    kernels = [kk for kk, _ in parts]

    def combine(values: np.ndarray, w: list[np.ndarray]) -> np.ndarray:
        return _average(values, _positive_weight(w, kernels), average)

    kernel = StackedKernel(parts, combine, (k,) if average is None else (), name, n)
    if average is None:
        kernel.elements = tuple(range(k))
    return kernel


def _ratio(s: np.ndarray) -> np.ndarray:
    return safe_div(s[:, 0], s[:, 1])


# --------------------------------------------------------------------------- top-k
def top_k_accuracy_kernel(
    y_true: np.ndarray, y_score: np.ndarray, *, k: int = 2, labels: Any = None
) -> AdditiveKernel:
    """Share of samples whose true class is among the ``k`` highest scores.

    Ties are broken as scikit-learn's ``top_k_accuracy_score`` does (a stable sort of the
    scores, reversed: among equal scores the later column ranks higher).  Binary labels
    with one score per sample: ``k=1`` thresholds at 0.5 for probabilities (else 0).
    """
    k = check_positive_int("k", k)
    y_score = np.asarray(y_score, dtype=float)
    y_true = np.asarray(y_true)
    if y_score.ndim == 1:
        classes = fast_unique(y_true)[0] if labels is None else np.asarray(labels)
        if len(classes) > 2:
            raise ValueError(
                "'top_k_accuracy' with one score per sample needs binary labels; pass one "
                "score column per class for multiclass data."
            )
        if labels is not None and np.setdiff1d(fast_unique(y_true)[0], classes).size:
            raise ValueError("`y_true` holds classes not in `labels`.")
        if k == 1:
            threshold = 0.5 if (y_score.min() >= 0 and y_score.max() <= 1) else 0.0
            hits = (y_score > threshold) == (y_true == classes[-1])
        else:
            hits = np.ones(len(y_true), dtype=bool)
    else:
        classes, idx = class_columns("top_k_accuracy", y_true, y_score, labels)
        if k >= len(classes):
            hits = np.ones(len(y_true), dtype=bool)
        else:
            order = np.argsort(y_score, axis=1, kind="mergesort")[:, ::-1][:, :k]
            hits = (order == idx[:, None]).any(axis=1)
    h = hits.astype(float)
    kernel = AdditiveKernel(np.column_stack([h, np.ones_like(h)]), _ratio, (), "top_k_accuracy")
    kernel.bounds = (0.0, 1.0)
    return kernel


# --------------------------------------------------------------------------- multilabel
def multilabel_decision_kernel(
    name: str,
    y_true: np.ndarray,
    y_pred: np.ndarray,
    parts: Callable[..., tuple[np.ndarray, np.ndarray]] | None,
    average: Any,
    average_counts: Callable[..., np.ndarray],
) -> AdditiveKernel:
    """Decision metrics of multilabel indicator matrices (n, K), as additive sums.

    ``average='samples'`` is the mean of the per-sample metric (scikit-learn gives 0 to
    a sample where it is undefined, e.g. no predicted label for precision: so does mlci,
    as ``zero_division=0``); the other averages work on the per-label counts summed over
    samples; ``accuracy`` is the subset accuracy (every label right).
    """
    if y_pred.ndim != 2:
        raise ValueError(
            f"A 2-d `y_true` (multilabel indicator matrix) needs a 2-d `y_pred` of the same "
            f"shape; got {y_pred.shape}."
        )
    t = _multilabel_target(name, y_true, y_pred.shape[1])
    p = _multilabel_target(name, y_pred, y_true.shape[1])
    n, k = t.shape
    ones = np.ones(n)
    if parts is None:  # accuracy / error_rate: the subset accuracy
        exact = (t == p).all(axis=1).astype(float)
        if name == "error_rate":
            exact = 1.0 - exact
        return AdditiveKernel(np.column_stack([exact, ones]), _ratio, (), name)
    tp = (t & p).astype(float)
    fp = (~t & p).astype(float)
    fn = (t & ~p).astype(float)
    if average == "default":
        raise ValueError(
            f"Multilabel {name!r} needs `average=`: 'samples', 'macro', 'micro', 'weighted' or "
            "None (per label), as scikit-learn."
        )
    if average == "samples":
        tn = k - tp.sum(1) - fp.sum(1) - fn.sum(1)
        num, den = parts(tp.sum(1), fp.sum(1), fn.sum(1), tn)
        per = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)  # zero_division=0
        return AdditiveKernel(np.column_stack([per, ones]), _ratio, (), name)
    if average not in ("macro", "micro", "weighted", None):
        raise ValueError(
            "`average` must be 'samples', 'macro', 'micro', 'weighted' or None for multilabel "
            f"data; got {average!r}."
        )

    def g(s: np.ndarray) -> np.ndarray:
        stp, sfp, sfn, total = s[:, :k], s[:, k : 2 * k], s[:, 2 * k : 3 * k], s[:, 3 * k :]
        return average_counts(stp, sfp, sfn, total - stp - sfp - sfn, parts, average, 0)

    phi = np.column_stack([tp, fp, fn, ones])
    kernel = AdditiveKernel(phi, g, (k,) if average is None else (), name)
    if average is None:
        kernel.elements = tuple(range(k))
    return kernel
