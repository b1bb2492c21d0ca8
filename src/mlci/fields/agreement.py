"""Inter-rater agreement with intervals: Fleiss' kappa and Krippendorff's alpha.

:func:`agreement_ci` takes an ``(n_items, n_raters)`` matrix of ratings (missing ratings
as NaN or None) and resamples the items (the usual question: would the raters agree as
well on other items?), the raters (would other raters from the same pool agree?) or both.
The kernels are in :mod:`mlci.metrics.agreement`; the registered metrics
``fleiss_kappa`` and ``krippendorff_alpha`` run through :func:`mlci.bootstrap_ci` too,
with the items as samples and no missing rating.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..engine.bootstrap import run_with_options
from ..engine.custom import UserSampler
from ..engine.nested import plan_for_conditions
from ..exceptions import FewConditionsWarning
from ..feedback import warn
from ..inputs import bootstrap_options, check_choice, knobs_in_config
from ..metrics.agreement import AGREEMENT_LEVELS, AgreementGridKernel, agreement_kernel
from ..results import BootstrapResult

__all__ = ["agreement_ci"]

METRICS = ("krippendorff_alpha", "fleiss_kappa")
RESAMPLE = ("items", "raters", "both")
#: fewer raters than this when raters are resampled: the interval rests on too few
MIN_RATERS = 8


def _ratings(ratings: Any) -> np.ndarray:
    if ratings is None:
        raise ValueError("`ratings` is required; got None.")
    if hasattr(ratings, "to_numpy"):  # pandas / polars DataFrame
        ratings = ratings.to_numpy()
    r = np.asarray(ratings)
    if r.dtype.kind == "O":
        # None and NaN both mean "not rated"; keep the rest as given
        r = np.array([[np.nan if v is None else v for v in row] for row in r], dtype=object)
        try:
            r = r.astype(float)
        except (TypeError, ValueError):
            pass
    return r


@knobs_in_config
def agreement_ci(
    ratings: Any,
    *,
    metric: str = "krippendorff_alpha",
    level_of_measurement: str = "nominal",
    resample: str = "items",
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    rng: Any = None,
) -> BootstrapResult:
    """Bootstrap interval of an agreement coefficient.

    Parameters
    ----------
    ratings : array-like, shape (n_items, n_raters)
        The rating of every item (row) by every rater (column); NaN or None where a rater
        did not rate an item (Krippendorff's alpha only).  Numbers, or category labels for
        ``level_of_measurement="nominal"``.
    metric : {"krippendorff_alpha", "fleiss_kappa"}
        As the ``krippendorff`` package's ``alpha`` and statsmodels' ``fleiss_kappa``.
    level_of_measurement : {"nominal", "ordinal", "interval", "ratio"}, default "nominal"
        Krippendorff's level of measurement (Fleiss' kappa: nominal only).
    resample : {"items", "raters", "both"}, default "items"
        What is resampled.  Resampling raters treats them as drawn from a pool: a rater
        drawn twice counts as two raters who agree perfectly with each other, as the
        coefficient on the matrix with that column repeated.
    n_resamples, confidence_level, method, alternative, rng
        As in :func:`mlci.bootstrap_ci`.  ``method="auto"``: Fleiss' kappa over items has
        a derivative (studentized interval); Krippendorff's alpha depends on the number of
        ratings (its ``n - 1``), and resampling raters or both has no linearization:
        BCa.

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> import numpy as np, mlci
    >>> ratings = np.array([[1, 1, 1], [2, 2, 3], [3, 3, 3], [1, 2, 1], [2, 2, 2],
    ...                     [3, 3, np.nan], [1, 1, 2], [2, 3, 2]], dtype=float)
    >>> res = mlci.agreement_ci(ratings, level_of_measurement="ordinal", n_resamples=200, rng=0)
    >>> round(res.estimate, 4)
    0.7267
    """
    metric = check_choice("metric", metric, METRICS)
    level = check_choice("level_of_measurement", level_of_measurement, AGREEMENT_LEVELS)
    resample = check_choice("resample", resample, RESAMPLE)
    r = _ratings(ratings)
    opts = bootstrap_options(
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
    )
    if r.ndim != 2:
        raise ValueError(
            f"`ratings` must be a 2-d matrix (n_items, n_raters); got shape {r.shape}."
        )
    nu, nr = r.shape
    method_ = opts.method
    if resample == "items":
        kernel: Any = agreement_kernel(metric, r, level_of_measurement=level)
        keys_of_sample = kernel.keys
        plan = plan_for_conditions(nu, n_resamples=opts.n_resamples, rng=opts.seed)
        sampler = None
    else:
        kernel = AgreementGridKernel(metric, r, level)
        if method_ in ("studentized", "t"):
            raise ValueError(
                f"method={method_!r} is unavailable when raters are resampled (no "
                "linearization over raters); use 'bca' or 'auto'."
            )
        if method_ == "auto":
            method_ = "bca"
        keys_of_sample = kernel.keys
        if resample == "raters":
            plan = plan_for_conditions(
                nu * nr,
                conditions=np.tile(np.arange(nr), nu),
                n_resamples=opts.n_resamples,
                rng=opts.seed,
            )
            sampler = None
        else:
            plan = plan_for_conditions(nu * nr, n_resamples=opts.n_resamples, rng=opts.seed)

            def crossed(gen: np.random.Generator, b: int) -> np.ndarray:
                c = gen.multinomial(nu, np.full(nu, 1.0 / nu), size=b)
                d = gen.multinomial(nr, np.full(nr, 1.0 / nr), size=b)
                return (c[:, :, None] * d[:, None, :]).reshape(b, -1).astype(float)

            sampler = UserSampler(plan.weights_for(kernel.keys, kernel.m), crossed, keys_of_sample)
        if nr < MIN_RATERS:
            warn(
                f"Raters are resampled but there are only {nr}: the interval rests on the "
                f"spread among {nr} raters (below {MIN_RATERS}), and no simulation in "
                "docs/agreement.md shows it keeping its level. Treat it as optimistic.",
                FewConditionsWarning,
            )
    return run_with_options(
        kernel,
        plan,
        replace(opts, method=method_),
        metric_name=metric,
        details={
            "level_of_measurement": level,
            "resample": resample,
            "n_items": nu,
            "n_raters": nr,
        },
        sampler=sampler,
        scheme="crossed (items x raters)" if resample == "both" else None,
    )
