"""Bootstrap replicates computed elsewhere: :func:`bca_ci` adds the interval.

The replicates come from the user (any resampling done outside mlci); mlci adds the BCa
interval (bias correction from the replicates, acceleration from a jackknife the user
gives or mlci computes from the data) through the engine's finish step
(:func:`~mlci.engine.bootstrap.finish_bootstrap`), as for its own replicates.  The other
thing users bring, a resampling scheme, is :mod:`mlci.engine.custom`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..inputs import check_alternative, check_choice, check_confidence_level
from ..results import BootstrapResult, per_confidence_level
from .bootstrap import finish_bootstrap
from .plan import PlanSummary

__all__ = ["bca_ci"]


@per_confidence_level
def bca_ci(
    bootstrap_distribution: Any,
    estimate: Any = None,
    *,
    jackknife: Any = None,
    data: Any = None,
    statistic: Callable[..., Any] | None = None,
    confidence_level: float | list[float] = 0.95,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = None,
    variant: str = "mlci",
) -> BootstrapResult:
    """BCa interval from bootstrap replicates you computed yourself.

    The bias correction comes from the replicates, the acceleration from a jackknife:
    either the delete-one values you give (``jackknife``), or ``statistic`` evaluated
    on ``data`` with each sample left out in turn (Efron & Tibshirani 1993, ch. 14).

    Parameters
    ----------
    bootstrap_distribution : array-like, shape (B, *S)
        The statistic on each of ``B >= 2`` replicates (a scalar statistic: shape (B,));
        NaN marks a replicate where it was undefined (left out, and counted).
    estimate : float or array-like of shape S, optional
        The statistic on the data; computed as ``statistic(*data)`` when omitted.
    jackknife : array-like, shape (n, *S), optional
        Delete-one jackknife values (the statistic with sample ``i`` left out).
    data : array-like or tuple of array-like, optional
        The samples (first axis ``n``; a tuple for a statistic of several aligned
        arrays), for the jackknife of ``statistic``.
    statistic : callable, optional
        ``statistic(*data)`` returning a number or an array of shape S.
    confidence_level : float or sequence of float, default 0.95
        Several levels return a tuple of results, one per level.
    alternative : {"two-sided", "less", "greater"}
    bounds : (float, float), optional
        The statistic's range (one-sided intervals end at its edges).
    variant : {"mlci", "boot"}, default "mlci"
        ``"mlci"``: the bias correction counts replicates tied with the estimate as one
        half (as ``scipy.stats.bootstrap``) and the quantiles interpolate linearly between
        order statistics.  ``"boot"``: R's ``boot.ci(type = "bca")`` from the same
        replicates and influence values (only replicates strictly below the estimate;
        boot's ``norm.inter`` quantiles): see :mod:`mlci.intervals.variants`.  On a
        continuous statistic the two differ by about one order statistic; on a discrete
        one (accuracy) by up to a grid step.

    Returns
    -------
    BootstrapResult
        With ``scheme="user"``; ``.interval(method=...)`` gives the percentile, basic,
        normal or BC interval of the same replicates.

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> x = rng.exponential(size=60)
    >>> reps = np.array([rng.choice(x, 60).mean() for _ in range(2000)])
    >>> res = mlci.bca_ci(reps, data=x, statistic=np.mean)
    >>> bool(res.confidence_interval.low < x.mean() < res.confidence_interval.high)
    True
    >>> jack = np.array([np.delete(x, i).mean() for i in range(60)])
    >>> res2 = mlci.bca_ci(reps, x.mean(), jackknife=jack)
    >>> bool(np.isclose(res2.confidence_interval.high, res.confidence_interval.high))
    True
    """
    level = check_confidence_level(confidence_level)
    alt = check_alternative(alternative)
    variant = check_choice("variant", variant, ("mlci", "boot"))
    dist = _as_float("bootstrap_distribution", bootstrap_distribution)
    if dist.ndim < 1 or dist.shape[0] < 2:
        raise ValueError(
            "`bootstrap_distribution` must hold B >= 2 replicates along its first axis; got "
            f"shape {dist.shape}."
        )
    if np.isinf(dist).any():
        raise ValueError("`bootstrap_distribution` contains inf; use NaN for undefined values.")
    if (jackknife is None) == (statistic is None):
        raise ValueError(
            "Pass either `jackknife` (delete-one values) or `statistic` with `data`: BCa's "
            "acceleration needs one of them."
        )
    arrays: tuple[np.ndarray, ...] = ()
    if statistic is not None:
        if not callable(statistic):
            raise TypeError(f"`statistic` must be callable; got {type(statistic).__name__}.")
        if data is None:
            raise ValueError("`statistic` needs `data` (the samples to leave out one by one).")
        arrays = tuple(np.asarray(a) for a in (data if isinstance(data, tuple) else (data,)))
        n = len(arrays[0]) if arrays[0].ndim else 0
        if n < 2 or any(a.ndim == 0 or len(a) != n for a in arrays):
            raise ValueError(
                "`data` must be one array, or a tuple of arrays of the same length >= 2 "
                "(samples along the first axis)."
            )
    elif data is not None:
        raise ValueError("`data` is used with `statistic`; with `jackknife` leave it out.")
    if estimate is None:
        if statistic is None:
            raise ValueError("Pass `estimate` (the statistic on the data) with `jackknife`.")
        estimate = statistic(*arrays)
    est = _as_float("estimate", estimate)
    if est.shape != dist.shape[1:]:
        raise ValueError(
            f"`estimate` has shape {est.shape}; the replicates have shape {dist.shape[1:]}."
        )
    if not np.all(np.isfinite(est)):
        raise ValueError("`estimate` must be finite.")
    if jackknife is not None:
        jack = _as_float("jackknife", jackknife)
        if jack.ndim < 1 or jack.shape[1:] != est.shape or jack.shape[0] < 2:
            raise ValueError(
                f"`jackknife` must have shape (n, *{est.shape}) with n >= 2; got {jack.shape}."
            )
        if not np.all(np.isfinite(jack)):
            raise ValueError("`jackknife` contains NaN or inf; every delete-one value is needed.")
    else:
        assert statistic is not None
        n = len(arrays[0])
        keep = np.ones(n, dtype=bool)
        vals = []
        for i in range(n):
            keep[i] = False
            vals.append(np.asarray(statistic(*(a[keep] for a in arrays)), dtype=float))
            keep[i] = True
        jack = np.stack(vals)
        if jack.shape[1:] != est.shape:
            raise ValueError(
                f"`statistic` returned shape {jack.shape[1:]} without a sample and "
                f"{est.shape} on all of them."
            )
    if bounds is not None:
        try:
            lo, hi = (float(b) for b in bounds)
        except (TypeError, ValueError):
            raise TypeError(
                f"`bounds` must be a pair (low, high) of numbers; got {bounds!r}."
            ) from None
        if not lo < hi:
            raise ValueError(f"`bounds` must be (low, high) with low < high; got {bounds!r}.")
        bounds = (lo, hi)
    plan = PlanSummary(
        n_resamples=dist.shape[0], scheme="user", n_samples=len(jack),
        n_conditions=None, n_strata=None,
    )  # fmt: skip
    res = finish_bootstrap(
        est,
        dist,
        plan=plan,
        name="statistic",
        method="bca",
        confidence_level=level,
        alternative=alt,
        jackknife=lambda: (jack, np.ones(len(jack))),
        bounds=bounds,
    )
    return res if variant == "mlci" else res.interval(method="bca", variant=variant)


def _as_float(name: str, value: Any) -> np.ndarray:
    """A numeric array (bools and numbers); text, ragged input or None inside is refused."""
    try:
        raw = np.asarray(value)
    except ValueError:
        raise TypeError(
            f"`{name}` must be a rectangular array of numbers (got ragged rows)."
        ) from None
    if raw.dtype.kind not in "biuf":
        if raw.dtype.kind == "O" and any(v is None for v in raw.ravel().tolist()):
            raise ValueError(f"`{name}` contains None (a missing value).")
        raise TypeError(f"`{name}` must be numbers; got an array of {raw.dtype}.")
    return raw.astype(float)
