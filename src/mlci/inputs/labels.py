"""Class labels, checked once: one type, a shared vocabulary, one positive-label rule.

Called by the input gate after missing values are handled (:func:`mlci.inputs.gather`),
so the arrays here hold no missing value and are of one native type each.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .encoding import fast_unique
from .validation import show_values

__all__ = [
    "binary_target",
    "check_label_pair",
    "encode_label_pair",
    "encode_labels",
    "positive_label",
]


def _is_text(arr: np.ndarray) -> bool:
    return arr.dtype.kind in "USO"


def check_label_pair(
    y_true: np.ndarray, y_pred: np.ndarray, names: tuple[str, str] = ("y_true", "y_pred")
) -> None:
    """Labels and decisions must be of one type and share at least one value.

    Strings against numbers (``0``/``1`` against ``"no"``/``"yes"``) never compare equal,
    so every decision would count as wrong: refused.  Two sets of values with nothing in
    common (``"pos"``/``"neg"`` against ``"positive"``/``"negative"``) are an encoding
    mismatch, refused too, unless each side has a single value (a constant system on a
    one-class test set).  :func:`encode_label_pair` does the same checks and returns the
    encoding.

    Examples
    --------
    >>> check_label_pair(np.array([0, 1]), np.array(["no", "yes"]))
    Traceback (most recent call last):
    ...
    TypeError: `y_true` holds numbers (e.g. 0) but `y_pred` holds strings (e.g. 'no'); ...
    """
    encode_label_pair(y_true, y_pred, names)


def encode_label_pair(
    y_true: np.ndarray, y_pred: np.ndarray, names: tuple[str, str] = ("y_true", "y_pred")
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Check labels and decisions (see :func:`check_label_pair`) and encode them at once.

    Returns ``(classes, true_index, pred_index)`` over the sorted union of the values:
    one pass over the data, however large.

    Examples
    --------
    >>> classes, t, p = encode_label_pair(np.array([1, 0, 1]), np.array([1, 1, 1]))
    >>> classes.tolist(), t.tolist(), p.tolist()
    ([0, 1], [1, 0, 1], [1, 1, 1])
    """
    a, b = names
    if _is_text(y_true) != _is_text(y_pred):
        num, txt = (a, b) if _is_text(y_pred) else (b, a)
        num_v = (y_true if num == a else y_pred).ravel()[0]
        txt_v = (y_pred if txt == b else y_true).ravel()[0]
        raise TypeError(
            f"`{num}` holds numbers (e.g. {num_v.item()!r}) but `{txt}` holds strings "
            f"(e.g. {str(txt_v)!r}); they never compare equal. Encode both the same way, "
            "e.g. map the strings to the numbers of the labels."
        )
    classes, (t, p) = encode_labels(y_true, y_pred)
    k = len(classes)
    if len(t) == len(p) and k * k <= 1 << 22:
        # aligned arrays, one pass: the (true, pred) table says which values each side takes
        table = np.bincount(t * k + p, minlength=k * k).reshape(k, k)
        in_true, in_pred = table.any(axis=1), table.any(axis=0)
    else:
        in_true = np.bincount(t, minlength=k) > 0
        in_pred = np.bincount(p, minlength=k) > 0
    if not np.any(in_true & in_pred) and (in_true.sum() > 1 or in_pred.sum() > 1):
        raise ValueError(
            f"`{a}` and `{b}` share no value: `{a}` takes {show_values(classes[in_true])}, "
            f"`{b}` takes {show_values(classes[in_pred])}. They must use the same class "
            "labels."
        )
    return classes, t, p


def encode_labels(*arrays: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The sorted union of the arrays' values and each array's class indices into it.

    Examples
    --------
    >>> classes, (t, p) = encode_labels(np.array(["b", "a"]), np.array(["a", "a"]))
    >>> classes.tolist(), t.tolist(), p.tolist()
    (['a', 'b'], [1, 0], [0, 0])
    """
    # each array on its own, then the union of the few distinct values: no concatenated
    # copy of the data (the same result as np.unique over the concatenation)
    encoded = [fast_unique(a) for a in arrays]
    if len(encoded) == 1:
        return encoded[0][0], [encoded[0][1]]
    classes = np.unique(np.concatenate([u for u, _ in encoded]))
    parts = [np.searchsorted(classes, u).astype(np.intp)[inv] for u, inv in encoded]
    return classes, parts


def positive_label(values: np.ndarray, pos_label: Any, name: str = "y_true") -> Any:
    """The positive class: ``pos_label`` if given (it must occur), else the one default.

    The default follows scikit-learn: labels in {0, 1}, {-1, 1} or {False, True} take 1
    (True); any other labels need ``pos_label``.

    Examples
    --------
    >>> positive_label(np.array([0, 1]), None)
    1
    >>> positive_label(np.array(["no", "yes"]), "yes")
    'yes'
    """
    vals = fast_unique(np.asarray(values))[0]
    present = set(vals.tolist())
    if pos_label is not None:
        if pos_label not in present:
            raise ValueError(
                f"`pos_label`={pos_label!r} is not among the values of `{name}`: "
                f"{show_values(vals)}."
            )
        return pos_label
    if present <= {0, 1} or present <= {-1, 1} or present <= {False, True}:
        return True if vals.dtype == bool else 1
    raise ValueError(
        f"`{name}` takes values {show_values(vals)} and `pos_label` is not specified: "
        f"either make `{name}` take values in {{0, 1}} or {{-1, 1}}, or pass `pos_label` "
        "explicitly."
    )


def binary_target(
    y_true: np.ndarray, pos_label: Any = None, *, name: str = "y_true", metric: str = "metric"
) -> np.ndarray:
    """Boolean positives of binary labels; more than two classes are refused.

    One class against the rest is never done silently: binarise first
    (``y_true == "angry"``), which says which class is positive.

    Examples
    --------
    >>> binary_target(np.array(["a", "b", "a"]), "b").tolist()
    [False, True, False]
    """
    vals = fast_unique(y_true)[0]
    if len(vals) > 2:
        example = pos_label if pos_label is not None else vals[-1].item()
        raise ValueError(
            f"{metric!r} needs binary labels, but `{name}` takes {len(vals)} values "
            f"{show_values(vals)}. To score one class against the rest, binarise the "
            f"labels first with that class as the positive one, e.g. `{name} == {example!r}`."
        )
    pos = positive_label(vals, pos_label, name)
    return np.asarray(y_true == pos)
