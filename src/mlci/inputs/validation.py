"""Input validation shared by the public functions.

Each public function validates its inputs once, at the boundary, with these helpers;
the algorithms below never re-check.  Messages name the argument in backticks, say
what was wrong and what would be right.
"""

from __future__ import annotations

from collections.abc import Iterable
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


def confidence_levels(confidence_level: Any) -> tuple[float, ...] | None:
    """Several confidence levels (a list, tuple or 1-d array), each validated; None for one.

    A vector ``confidence_level`` asks a driver for one result per level, from the same
    replicates (see :func:`mlci.results.per_confidence_level`).

    Examples
    --------
    >>> confidence_levels([0.9, 0.95]), confidence_levels(0.95)
    ((0.9, 0.95), None)
    """
    if isinstance(confidence_level, list | tuple | np.ndarray):
        arr = np.asarray(confidence_level, dtype=object)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(
                "`confidence_level` must be a number in (0, 1) or a non-empty 1-d sequence "
                f"of them; got {confidence_level!r}."
            )
        return tuple(check_confidence_level(c) for c in arr.tolist())
    return None


def check_positive_int(name: str, value: Any, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (booleans refused)."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise TypeError(f"`{name}` must be an integer >= {minimum}; got {value!r}.")
    if value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}; got {value}.")
    return int(value)


def check_nonnegative(name: str, value: Any, *, strict: bool = False, hint: str = "") -> float:
    """``value`` as a finite float ``>= 0`` (``> 0`` with ``strict=True``); booleans and
    non-numbers are a TypeError, NaN, infinities and values out of range a ValueError.

    ``hint`` (e.g. ``" (e.g. 0.01)"``) follows what the argument must be in both messages:
    what the number means, or a typical value.

    Examples
    --------
    >>> check_nonnegative("c_fn", 2)
    2.0
    >>> check_nonnegative("rope", -0.1, hint=" (on the scores' scale, e.g. 0.01)")
    Traceback (most recent call last):
    ...
    ValueError: `rope` must be a finite number >= 0 (on the scores' scale, e.g. 0.01); got -0.1.
    """
    what = "positive number" if strict else "number >= 0"
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.number):
        raise TypeError(f"`{name}` must be a {what}{hint}; got {value!r}.")
    v = float(value)
    if not np.isfinite(v) or v < 0 or (strict and v == 0):
        finite = "positive finite number" if strict else "finite number >= 0"
        raise ValueError(f"`{name}` must be a {finite}{hint}; got {value!r}.")
    return v


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


def show_values(values: np.ndarray, limit: int = 6) -> str:
    vals = values.tolist()
    if len(vals) > limit:
        return "{" + ", ".join(repr(v) for v in vals[:limit]) + ", ...}"
    return "{" + ", ".join(repr(v) for v in vals) + "}"


def check_strata_stratify(strata: Any, stratify: Any, what: str = "y_true") -> None:
    """Refuse ``strata=`` together with ``stratify=True`` (docs/glossary.md), in every
    driver that takes both: the two define the strata, and combining them silently
    (strata x classes) is not what either asks for.

    ``stratify=None`` (a driver's automatic choice) is not refused.

    Examples
    --------
    >>> check_strata_stratify(None, True)
    >>> check_strata_stratify([0, 1], True)
    Traceback (most recent call last):
    ...
    ValueError: Pass either `strata=` or `stratify=True` (strata = y_true), not both; ...
    """
    if stratify is True and strata is not None:
        raise ValueError(
            f"Pass either `strata=` or `stratify=True` (strata = {what}), not both; to "
            f"resample within your strata and {what} together, pass strata that combine "
            "them (e.g. one code per stratum and class)."
        )
