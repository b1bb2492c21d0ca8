"""Shared numpydoc sections of the one-line rate and threshold methods of Scores."""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from typing import Any

_RATE_SECTIONS = """
    Parameters
    ----------
    threshold : float or array_like of float, any shape X
        Decision threshold(s).  A sample is decided positive when its score is above the
        threshold (below it with ``score_class="neg"``); a score equal to the threshold
        goes to ``equal_class``.

    Returns
    -------
    float or ndarray of shape X
        A float for a scalar threshold; NaN where the rate is undefined (a zero
        denominator).
"""

_THRESHOLD_SECTIONS = """
    Parameters
    ----------
    {rate} : float or array_like of float in [0, 1], any shape X
        Target value(s) of the rate.
    interpolation : {{"linear", "lower", "higher"}}, default "linear"
        ``"linear"``: interpolate linearly between the two scores around the target;
        ``"lower"``/``"higher"``: the nearest score where the rate is below/above it.

    Returns
    -------
    float or ndarray of shape X
        Threshold(s) on the score scale; a float for a scalar target.
"""


def _doc(sections: str, **fields: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Insert shared numpydoc sections into a docstring, before its Examples if any.

    Documentation only: the function itself is returned unchanged.
    """

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        doc = inspect.cleandoc(fn.__doc__ or "")
        head, sep, examples = doc.partition("\nExamples\n")
        added = textwrap.dedent(sections.format(**fields)).strip("\n")
        fn.__doc__ = f"{head.rstrip()}\n\n{added}\n" + (f"\nExamples\n{examples}\n" if sep else "")
        return fn

    return deco
