"""Input validation shared by the public functions.

Each public function validates its inputs once, at the boundary, with these helpers;
the algorithms below never re-check.  Messages name the argument in backticks, say
what was wrong and what would be right.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np

ALTERNATIVES = ("two-sided", "less", "greater")


def check_choice(name: str, value: Any, valid: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``valid``, else raise a ValueError listing them."""
    valid = list(valid)
    if not isinstance(value, str) or value not in valid:
        listed = ", ".join(repr(v) for v in valid)
        raise ValueError(f"`{name}` must be one of {listed}; got {value!r}.")
    return value


def check_confidence_level(confidence_level: Any) -> float:
    """A float strictly between 0 and 1; a percentage such as 95 gets a hint."""
    if isinstance(confidence_level, bool) or not isinstance(confidence_level, Real):
        raise TypeError(
            f"`confidence_level` must be a number between 0 and 1 (e.g. 0.95); "
            f"got {confidence_level!r}."
        )
    cl = float(confidence_level)
    if not (0.0 < cl < 1.0):
        hint = ""
        if 50.0 <= cl < 100.0:
            hint = f" It looks like a percentage: use {cl / 100:g} instead of {cl:g}."
        raise ValueError(
            f"`confidence_level` must be strictly between 0 and 1 (e.g. 0.95); got {cl:g}.{hint}"
        )
    return cl


def check_positive_int(name: str, value: Any, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (booleans refused)."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")
    if value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}; got {value}.")
    return int(value)


def check_flag(name: str, value: Any) -> bool:
    """``value`` if it is True or False (numpy booleans too), else a TypeError naming it.

    Examples
    --------
    >>> check_flag("two_stage", "yes")
    Traceback (most recent call last):
    ...
    TypeError: `two_stage` must be True or False; got 'yes'.
    """
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"`{name}` must be True or False; got {value!r}.")
    return bool(value)


def check_alternative(alternative: Any) -> str:
    return check_choice("alternative", alternative, ALTERNATIVES)


def as_1d(name: str, x: Any, *, dtype: Any = None) -> np.ndarray:
    """Convert to a 1-d array (a pandas Series or a list are fine); refuse empty input."""
    if x is None:
        raise ValueError(f"`{name}` is required; got None.")
    arr = np.asarray(x) if dtype is None else np.asarray(x, dtype=dtype)
    if arr.ndim == 0:
        raise ValueError(f"`{name}` must be a 1-d array of per-sample values; got a scalar.")
    if arr.ndim != 1:
        raise ValueError(
            f"`{name}` must be 1-d (one value per sample); got an array of shape {arr.shape}."
        )
    if arr.size == 0:
        raise ValueError(f"`{name}` is empty; at least one sample is needed.")
    return arr


def as_float(name: str, x: Any, *, ndim: int | Sequence[int] = 1) -> np.ndarray:
    """A finite float array of the given number of dimensions."""
    if x is None:
        raise ValueError(f"`{name}` is required; got None.")
    try:
        arr = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"`{name}` must hold numbers; could not convert it: {exc}") from None
    dims = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if arr.ndim not in dims:
        want = " or ".join(f"{d}-d" for d in dims)
        raise ValueError(f"`{name}` must be {want}; got an array of shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"`{name}` is empty; at least one sample is needed.")
    check_finite(name, arr)
    return arr


def check_finite(name: str, arr: np.ndarray) -> None:
    """Refuse NaN and infinite values, saying how many and where the first one is."""
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = np.flatnonzero(bad.ravel())
        n_nan = int(np.isnan(arr).sum())
        n_inf = int(bad.sum()) - n_nan
        raise ValueError(
            f"`{name}` contains {n_nan} NaN and {n_inf} infinite value(s) "
            f"(first at flat index {idx[0]}); remove or impute them before evaluating."
        )


def check_same_length(**arrays: Any) -> int:
    """All given (non-None) arrays have the same first dimension; return it."""
    lengths = {k: len(v) for k, v in arrays.items() if v is not None}
    if len(set(lengths.values())) > 1:
        desc = ", ".join(f"`{k}` has {n}" for k, n in lengths.items())
        raise ValueError(f"Inconsistent numbers of samples: {desc}. They must all be equal.")
    return next(iter(lengths.values()))


def check_rng_seed(rng: Any) -> np.random.SeedSequence:
    """Turn ``rng`` (None, an int, a SeedSequence or a Generator) into a SeedSequence.

    Every replicate's random numbers are derived from this SeedSequence, so that a
    seed gives the same replicates whatever the chunk size or number of threads.
    """
    if rng is None:
        return np.random.SeedSequence()
    if isinstance(rng, np.random.SeedSequence):
        return rng
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(rng.integers(0, 2**63, size=4, dtype=np.uint64).tolist())
    if isinstance(rng, Integral) and not isinstance(rng, bool):
        if rng < 0:
            raise ValueError(f"`rng` must be a non-negative integer seed; got {rng}.")
        return np.random.SeedSequence(int(rng))
    raise TypeError(
        f"`rng` must be None, a non-negative int seed or a numpy.random.Generator; got {rng!r}."
    )


def binary_labels(name: str, y: np.ndarray, pos_label: Any = None) -> np.ndarray:
    """Boolean positives from binary labels, with sklearn's conventions for ``pos_label``.

    Labels in {0, 1}, {-1, 1} or {False, True} take 1 (True) as the positive label; any
    other pair of values needs ``pos_label``.  With more than two label values, an
    explicit ``pos_label`` means one-vs-rest (that class against all others).
    """
    values = np.unique(y)
    if pos_label is not None:
        # an explicit positive label among several classes means "that class vs the rest"
        if pos_label not in set(values.tolist()):
            raise ValueError(
                f"`pos_label`={pos_label!r} is not among the values of `{name}`: "
                f"{show_values(values)}."
            )
        return np.asarray(y == pos_label)
    if len(values) > 2:
        raise ValueError(
            f"`{name}` must be binary for this metric; found {len(values)} values "
            f"{show_values(values)}. For multiclass data pass `average='macro'` (or 'micro', "
            f"'weighted'), or binarise the labels and set `pos_label`."
        )
    vs = set(values.tolist())
    if vs <= {0, 1} or vs <= {-1, 1} or vs <= {False, True}:
        return np.asarray(y == 1)
    raise ValueError(
        f"`{name}` takes values {show_values(values)} and `pos_label` is not specified: "
        f"either make `{name}` take values in {{0, 1}} or {{-1, 1}}, or pass `pos_label` "
        "explicitly."
    )


def show_values(values: np.ndarray, limit: int = 6) -> str:
    vals = values.tolist()
    if len(vals) > limit:
        return "{" + ", ".join(repr(v) for v in vals[:limit]) + ", ...}"
    return "{" + ", ".join(repr(v) for v in vals) + "}"
