"""Frequency weights: a ``sample_weight`` that counts repeated rows.

mlci reads a plain ``sample_weight`` as scikit-learn's metrics do for the estimate, and
resamples a weighted row as *one* unit that carries its weight (survey or importance
weights; Stata's ``pweight``): the interval does not change when every weight is
multiplied by the same factor.  Wrapped in :func:`frequency_weights`, the weights count
how many times each row occurred (Stata's ``fweight``): the input gate
(:func:`mlci.inputs.gather`) turns every row into that many samples, so every estimate,
resampling design and interval method is exactly that of the repeated rows.  Whether
weights happen to be whole numbers never switches between the two: the caller says which
they are.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .arrays import FrequencyWeights, check_frequencies, column

__all__ = ["FrequencyWeights", "frequency_weights"]


def frequency_weights(sample_weight: Any) -> FrequencyWeights:
    """Declare ``sample_weight`` as frequency weights: row ``i`` occurred ``w[i]`` times.

    Pass the result as ``sample_weight=`` to :func:`mlci.bootstrap_ci`, :func:`mlci.compare`
    or :meth:`mlci.Scores.from_labels` (any function whose samples go through the input
    gate).  Every row then counts as ``w[i]`` samples, so the estimate, the resampling
    (iid, strata, conditions, two-stage), the interval method ``auto`` picks and the
    interval are those of the data with each row repeated ``w[i]`` times (Stata's
    ``fweight``; scikit-learn's principle that a weight equals repetition).  A row with
    count 0 is absent.  ``conditions=`` and ``strata=`` stay one entry per row.

    A plain ``sample_weight`` array (without this wrapper) is a survey or importance
    weight: the row is resampled as one unit carrying its weight, and the interval does
    not change when all weights are scaled (Stata's ``pweight``); an integer weight is
    *not* read as a count.  See docs/glossary.md, "sample_weight".

    Parameters
    ----------
    sample_weight : array-like of whole numbers >= 0, shape (n_rows,), or str
        How many times each row occurred; with ``data=``, a column name.

    Returns
    -------
    FrequencyWeights
        A marker the input gate expands; memory grows with the total count
        (``sum(w)`` samples: copies of every column), and an expansion larger than the
        configured ``max_memory`` (:func:`mlci.config_context`) is refused with a
        ``MemoryError`` that says so.

    Examples
    --------
    >>> import numpy as np, mlci
    >>> y, pred, w = [0, 1, 1, 0, 1], [0, 1, 0, 0, 1], [30, 25, 5, 28, 12]
    >>> a = mlci.bootstrap_ci(y, pred, metric="accuracy",
    ...                       sample_weight=mlci.frequency_weights(w), rng=0)
    >>> b = mlci.bootstrap_ci(np.repeat(y, w), np.repeat(pred, w), metric="accuracy", rng=0)
    >>> a.confidence_interval == b.confidence_interval
    True
    >>> mlci.frequency_weights([1, 2.5])
    Traceback (most recent call last):
    ...
    ValueError: `sample_weight` (frequency weights: ...) must be whole numbers >= 0; row 1 ...
    """
    if isinstance(sample_weight, FrequencyWeights):
        return sample_weight
    if isinstance(sample_weight, str):
        return FrequencyWeights(sample_weight)
    # the input gate's checks (any array library, missing values named), then counts
    raw = column("sample_weight", sample_weight, "numbers")
    if np.asarray(sample_weight).dtype.kind == "b":
        raise TypeError("`sample_weight` (frequency weights) must be counts, not booleans.")
    check_frequencies(raw)
    return FrequencyWeights(sample_weight)
