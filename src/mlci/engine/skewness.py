"""The skewness of a linearized estimate, from its influence values on the data.

The ``t`` (Wald) interval of an estimate treats it as normal; the first term by which
its one-sided coverage errs is the skewness of the estimate's sampling distribution
(Hall 1992, *The Bootstrap and Edgeworth Expansion*, sec. 3.5; Efron & Tibshirani 1993,
sec. 22.4).  For an estimate linearized as a sum of the independent units' influence
values ``z_c`` (samples, or whole conditions; :mod:`mlci.engine.linearize`) that
skewness is ``gamma = sum_c r_c^3 / (sum_c r_c^2)^(3/2)`` with ``r_c = z_c - n_c z``
the centred influence of unit ``c`` (``n_c`` its size, ``z`` the mean influence per
sample, 0 for a scale-free metric).

For a paired accuracy difference with ``b`` samples that only A gets right and ``c``
that only B gets right (``b + c`` much smaller than ``n``), ``gamma`` is about
``(b - c) / (b + c)^(3/2)``: ``1 / sqrt(b)`` when every discordant sample goes one way.
``1 / gamma^2`` is therefore an *effective number of discordant samples*, defined for
every metric with a gradient and every resampling unit, which :func:`mlci.compare` uses
to decide when the ``t`` interval of a difference is too narrow (module docstring of
:mod:`mlci.engine.auto`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["linearized_shape"]


def linearized_shape(lin: Any) -> tuple[np.ndarray, np.ndarray]:
    """The skewness and excess kurtosis of every element of a linearized estimate.

    Parameters
    ----------
    lin : mlci.engine.linearize.Linearization
        A linearization whose metric has a gradient (``lin.unsupported is None``).

    Returns
    -------
    skewness : ndarray, shape ``lin.kernel.shape``
        ``sum r^3 / (sum r^2)^(3/2)`` over the units' centred influence values ``r``.
    kurtosis : ndarray, shape ``lin.kernel.shape``
        The excess kurtosis of the sum, ``sum r^4 / (sum r^2)^2 - 3 / C`` over the ``C``
        units: about ``1 / (b + c)`` for a paired accuracy difference with ``b + c``
        discordant samples.  Both are NaN where every unit has the same influence.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.engine.linearize import Linearization
    >>> from mlci.engine.nested import plan_for_conditions
    >>> from mlci.metrics import get_kernel, metric_params
    >>> y = np.ones(100, dtype=int)
    >>> pred = np.r_[np.zeros(4, dtype=int), np.ones(96, dtype=int)]
    >>> kernel = get_kernel("accuracy", (y, pred), metric_params("accuracy", None, "default", None))
    >>> g, k = linearized_shape(Linearization(kernel, plan_for_conditions(100)))
    >>> round(float(g), 4)  # a proportion 0.96: (1 - 2p) / sqrt(n p (1 - p)) = -0.4695
    -0.4695
    >>> round(float(k), 4)  # (1 - 6 p (1 - p)) / (n p (1 - p)) = 0.2004
    0.2004
    """
    counts, _, grad = lin.at_data()
    if grad is None:
        raise ValueError("`lin` must be the linearization of a metric with a gradient.")
    g = np.asarray(grad, dtype=float)[0]  # (m, *S)
    extra = g.ndim - 1
    units = lin.units
    with np.errstate(invalid="ignore", divide="ignore"):
        if units.iid:
            w = counts[0].reshape((-1,) + (1,) * extra)
            mean = (w * g).sum(axis=0) / w.sum()
            r = g - mean
            m2 = (w * r**2).sum(axis=0)
            m3 = (w * r**3).sum(axis=0)
            m4 = (w * r**4).sum(axis=0)
        else:
            y = units.unit_sums(g[None])[0]  # (C, *S): each unit's sum of influence
            size = units.unit_size.reshape((-1,) + (1,) * extra)
            r = y - size * (y.sum(axis=0) / size.sum())
            m2 = (r**2).sum(axis=0)
            m3 = (r**3).sum(axis=0)
            m4 = (r**4).sum(axis=0)
        spread = m2 > 0
        safe = np.where(spread, m2, 1.0)
        skew = np.where(spread, m3 / safe**1.5, np.nan)
        kurt = np.where(spread, m4 / safe**2 - 3.0 / units.n_units, np.nan)
    return np.asarray(skew, dtype=float), np.asarray(kurt, dtype=float)
