"""Parameter documentation written once (after scipy's ``scipy._lib.doccer``).

The options every driver shares (docs/glossary.md) are validated once, in this
subpackage; their numpydoc entries are written once too, here, in :data:`ENTRIES`.  A
docstring names an entry on a line of its own, ``%(alternative_test)s``, indented as a
parameter entry, and :func:`fill_doc` replaces it with the entry (every line at that
indentation).  The API reference (mkdocstrings reads the source, not the imported
function) fills the same entries through the griffe extension ``scripts/griffe_doccer.py``,
which calls :func:`fill_text`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

__all__ = ["ENTRIES", "fill_doc", "fill_text"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: name -> numpydoc entry (first line unindented, description indented by 4), or whole
#: sections shared by several methods (``rate_sections``)
ENTRIES: dict[str, str] = {
    # a test of system A against system B
    "alternative_test": """\
alternative : {"two-sided", "less", "greater"}, default "two-sided"
    The alternative hypothesis: ``"two-sided"``: A and B differ; ``"greater"``: A scores
    higher than B; ``"less"``: A scores lower.""",
    # an interval on a bounded scale
    "alternative_interval": """\
alternative : {"two-sided", "less", "greater"}, default "two-sided"
    ``"two-sided"``: a two-sided interval; ``"less"`` gives an upper bound only (the
    lower is the scale's edge), ``"greater"`` a lower bound only.""",
    "confidence_level": """\
confidence_level : float or list of float, default 0.95
    The interval's level; a list gives one result per level, re-read from the same
    replicates.""",
    "rng": """\
rng : None, int, numpy.random.Generator or numpy.random.SeedSequence
    The seed: the same seed gives the same result on every machine, chunk size and
    number of threads.""",
    # the design of a score statistic's bootstrap (mlci.scores: auc_ci, dcf_ci...)
    "resampling_scores": """\
resampling : mlci.Resampling, optional
    How the replicates are drawn beyond ``conditions`` and ``strata``: ``stratify``,
    ``two_stage``, ``weights`` (see :class:`mlci.Resampling`; default: the classical
    bootstrap).""",
    "dropna": """\
dropna : bool, default False
    Drop the samples with a missing value in any argument (their number is reported in
    ``details["n_dropped"]``) instead of refusing them.""",
}

#: the sections of the one-line rate methods of :class:`~mlci.Scores` (``tpr``, ``fpr``...)
ENTRIES["rate_sections"] = """\
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
    denominator)."""

#: the sections of :class:`~mlci.Scores`' ``threshold_at_<rate>`` methods, one per rate
for _rate in ("tpr", "fnr", "tnr", "fpr", "topr", "tonr"):
    ENTRIES[f"threshold_at_{_rate}_sections"] = f"""\
Parameters
----------
{_rate} : float or array_like of float in [0, 1], any shape X
    Target value(s) of the rate.
interpolation : {{"linear", "lower", "higher"}}, default "linear"
    ``"linear"``: interpolate linearly between the two scores around the target;
    ``"lower"``/``"higher"``: the nearest score where the rate is below/above it.

Returns
-------
float or ndarray of shape X
    Threshold(s) on the score scale; a float for a scalar target."""

_PLACEHOLDER = re.compile(r"^(?P<indent>[ \t]*)%\((?P<name>\w+)\)s[ \t]*$", re.MULTILINE)


def fill_text(doc: str, entries: Mapping[str, str] = ENTRIES) -> str:
    """``doc`` with every ``%(name)s`` line replaced by the entry, at that line's indentation.

    An unknown name is a KeyError (a typo must not reach the docs).

    Examples
    --------
    >>> print(fill_text("    Parameters\\n    ----------\\n    %(dropna)s\\n"))
        Parameters
        ----------
        dropna : bool, default False
            Drop the samples with a missing value in any argument (their number is reported in
            ``details["n_dropped"]``) instead of refusing them.
    <BLANKLINE>
    """

    def one(m: re.Match[str]) -> str:
        indent, name = m["indent"], m["name"]
        if name not in entries:
            raise KeyError(f"no shared docstring entry {name!r}; known: {sorted(entries)}")
        return "\n".join(indent + line if line else line for line in entries[name].splitlines())

    return _PLACEHOLDER.sub(one, doc)


def fill_doc(func: _F) -> _F:
    """Decorator: fill the ``%(name)s`` lines of ``func``'s docstring from :data:`ENTRIES`.

    Put it closest to ``def`` (below decorators that copy the docstring).

    Examples
    --------
    >>> @fill_doc
    ... def f(rng=None):
    ...     '''Parameters
    ...     ----------
    ...     %(rng)s
    ...     '''
    >>> "same seed" in f.__doc__
    True
    """
    if func.__doc__:
        func.__doc__ = fill_text(func.__doc__)
    return func
