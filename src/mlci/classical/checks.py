"""Input checks shared by the classical modules, built on the input gate (:mod:`mlci.inputs`).

Per-sample data (labels, scores, per-sample correctness) goes through
:func:`mlci.inputs.gather` directly, with ``dropna``.  What is *not* per-sample data
(counts, tables of fold or data-set scores, p-values) goes through :func:`number_array`:
the same gate (any library, one type, no missing value), but a missing entry is refused
with a message of its own, since such entries cannot be dropped without breaking the
pairing of the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from numbers import Real
from typing import Any

import numpy as np

from ..inputs import ArgSpec, check_choice, gather, missing_mask, rows_text

__all__ = [
    "ANY_NDIM",
    "check_alpha",
    "check_sided",
    "count_array",
    "number_array",
    "require",
]

#: every number of dimensions an array of counts or p-values may have (0: a scalar)
ANY_NDIM = tuple(range(33))

_EMPTY_GATE = "Every sample has a missing value"


def require(**values: Any) -> None:
    """Refuse a required argument given as None, naming it.

    Examples
    --------
    >>> require(y_true=[0, 1], y_score=None)
    Traceback (most recent call last):
    ...
    ValueError: `y_score` is required; got None.
    """
    for name, value in values.items():
        if value is None:
            raise ValueError(f"`{name}` is required; got None.")


def check_alpha(alpha: Any, name: str = "alpha") -> float:
    """A test's significance level, strictly between 0 and 1.

    Examples
    --------
    >>> check_alpha(0.05)
    0.05
    """
    if isinstance(alpha, bool) or not isinstance(alpha, Real):
        raise TypeError(f"`{name}` must be a number in (0, 1), e.g. 0.05; got {alpha!r}.")
    if not 0.0 < float(alpha) < 1.0:
        raise ValueError(f"`{name}` must be strictly between 0 and 1, e.g. 0.05; got {alpha!r}.")
    return float(alpha)


def check_sided(alternative: Any, what: str) -> str:
    """``alternative`` of a planning function: the standard three values.

    ``"one-sided"`` (the old spelling) gets a hint saying which direction to choose;
    ``what`` describes the ``"greater"`` hypothesis (e.g. ``"AUC > auc_null"``).

    Examples
    --------
    >>> check_sided("one-sided", "AUC > auc_null")
    Traceback (most recent call last):
    ...
    ValueError: `alternative` must be one of 'two-sided', 'less', 'greater'; got 'one-sided'. ...
    """
    if alternative == "one-sided":
        raise ValueError(
            "`alternative` must be one of 'two-sided', 'less', 'greater'; got 'one-sided'. "
            f"Say which side: 'greater' for H1: {what}, 'less' for the opposite."
        )
    return check_choice("alternative", alternative, ("two-sided", "less", "greater"))


def _scalar(name: str, value: Any) -> np.ndarray:
    v = value.item() if isinstance(value, np.ndarray) else value
    if bool(missing_mask(np.array([v], dtype=object))[0]):
        raise ValueError(f"`{name}` is missing ({v!r}); a number is needed.")
    if isinstance(v, bool | np.bool_ | str | bytes) or not isinstance(v, Real):
        raise TypeError(f"`{name}` must be a number; got {v!r}.")
    if not np.isfinite(float(v)):
        raise ValueError(f"`{name}` must be finite; got {v!r}.")
    return np.asarray(float(v))


def number_array(
    name: str,
    value: Any,
    *,
    ndim: Sequence[int] = (1,),
    what: str = "values",
) -> np.ndarray:
    """A float array of finite numbers from any library, with no missing entry.

    Parameters
    ----------
    name : str
        The argument's name, used in messages.
    value : array_like (numpy, list, pandas, polars, pyarrow) or scalar
        Scalars are accepted when 0 is in ``ndim``.
    ndim : sequence of int
        Allowed numbers of dimensions.
    what : str
        What the entries are (``"fold scores"``), for the message about a missing entry.

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> number_array("scores_a", [0.8, 0.9]).tolist()
    [0.8, 0.9]
    >>> number_array("scores_a", [0.8, None], what="fold scores")
    Traceback (most recent call last):
    ...
    ValueError: `scores_a` has 1 missing value(s) (None, NaN, NA or null) at row 1; ...
    """
    if value is None:
        raise ValueError(f"`{name}` is required; got None.")
    if isinstance(value, str | bytes):
        raise TypeError(f"`{name}` must hold numbers; got the string {value!r}.")
    ndim = tuple(ndim)
    if isinstance(value, list | tuple):
        try:
            np.asarray(value)
        except ValueError:
            lengths = [len(r) if hasattr(r, "__len__") else 1 for r in value]
            raise ValueError(
                f"`{name}` must be a rectangular array (every row of the same length); "
                f"its rows have lengths {lengths}."
            ) from None
    if not isinstance(value, list | tuple) and np.ndim(value) == 0:
        if 0 not in ndim:
            raise ValueError(f"`{name}` must be an array; got the scalar {value!r}.")
        return _scalar(name, value)
    array_ndim = tuple(d for d in ndim if d > 0)
    try:
        g = gather({name: ArgSpec("numbers", array_ndim)}, {name: value}, dropna=True)
    except ValueError as exc:
        if str(exc).startswith(_EMPTY_GATE):
            raise ValueError(f"`{name}` holds only missing values; {what} are needed.") from None
        raise
    if g.n_dropped:
        assert g.kept is not None  # rows were dropped, so the kept ones are listed
        n = g.n_samples + g.n_dropped
        rows = np.setdiff1d(np.arange(n), g.kept)
        raise ValueError(
            f"`{name}` has {rows.size} missing value(s) (None, NaN, NA or null) at "
            f"{rows_text(rows)}; {what} cannot be dropped or imputed here. Remove the "
            f"incomplete rows from every argument, or compute the missing {what}."
        )
    return g[name]


def count_array(name: str, value: Any) -> np.ndarray:
    """Non-negative whole numbers (counts), any shape, as a float array.

    Examples
    --------
    >>> count_array("k", [3, 4]).tolist()
    [3.0, 4.0]
    >>> count_array("k", 2.5)
    Traceback (most recent call last):
    ...
    ValueError: `k` must hold whole numbers (counts); got 2.5.
    """
    arr = number_array(name, value, ndim=ANY_NDIM, what="counts")
    if (arr < 0).any():
        raise ValueError(f"`{name}` must be non-negative counts; got {arr[arr < 0].ravel()[0]:g}.")
    frac = arr != np.round(arr)
    if frac.any():
        raise ValueError(
            f"`{name}` must hold whole numbers (counts); got {arr[frac].ravel()[0]:g}."
        )
    return arr
