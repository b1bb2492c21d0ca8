"""Options shared by every driver, validated in one place.

The vocabulary (see ``docs/glossary.md``): ``n_resamples``, ``confidence_level``,
``method`` (the interval method only), ``alternative``, ``rng``, and the engine knobs
``batch``, ``n_jobs``, ``max_memory`` that never change a result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .config import DEFAULT_MAX_MEMORY, engine_config
from .methods import check_method
from .validation import (
    check_alternative,
    check_confidence_level,
    check_positive_int,
    check_rng_seed,
)

__all__ = [
    "AUTO_BCA_REASON",
    "DEFAULT_MAX_MEMORY",
    "DISTRIBUTION_METHODS",
    "INTERVAL_METHODS",
    "BootstrapOptions",
    "EngineOptions",
    "bootstrap_options",
    "engine_options",
]

#: the bootstrap interval methods (``method=``)
INTERVAL_METHODS = (
    "auto",
    "percentile",
    "basic",
    "normal",
    "bc",
    "bca",
    "studentized",
    "t",
    "logit_t",
    "korn_graubard",
    "wilson",
    "wilson_modified",
)
#: the methods that need only the bootstrap distribution (and, for BCa, a jackknife);
#: drivers without a linearized standard error offer these and "auto" (which is then BCa)
DISTRIBUTION_METHODS = ("percentile", "basic", "normal", "bc", "bca")
#: why "auto" is BCa in a driver without a linearized standard error
AUTO_BCA_REASON = (
    "bca: this driver has no linearized standard error (a Scores object resamples within "
    "each class, a stratified design; thresholds, EER, DCF and Cllr have no closed-form "
    "derivative), so the studentized and Wilson intervals are unavailable; BCa is the best "
    "of the remaining methods in the coverage map, as for bootstrap_ci with strata"
)


@dataclass(frozen=True)
class EngineOptions:
    """How the engine runs: never changes a result, only its speed and memory.

    Attributes
    ----------
    batch : int or None
        Replicates per chunk (None: sized from ``max_memory``).
    n_jobs : int or None
        Threads (None: all cores, up to 8).
    max_memory : int
        Bound on the working memory, in bytes.
    """

    batch: int | None = None
    n_jobs: int | None = None
    max_memory: int = DEFAULT_MAX_MEMORY


@dataclass(frozen=True)
class BootstrapOptions:
    """Validated options of a bootstrap: what is computed, and how the engine runs.

    Attributes
    ----------
    n_resamples : int
    confidence_level : float
    method : str
        One of :data:`INTERVAL_METHODS`.
    alternative : str
        ``"two-sided"``, ``"less"`` or ``"greater"``.
    seed : numpy.random.SeedSequence
        From ``rng``.
    method_reason : str or None
        Why ``"auto"`` became the method it is (drivers without a linearization).
    engine : EngineOptions
    """

    n_resamples: int
    confidence_level: float
    method: str
    alternative: str
    seed: np.random.SeedSequence
    engine: EngineOptions
    method_reason: str | None = None


def engine_options(
    batch: Any = None, n_jobs: Any = None, max_memory: Any = DEFAULT_MAX_MEMORY
) -> EngineOptions:
    """Validate the engine knobs; those not given (None, ``max_memory`` at its default)
    come from :func:`mlci.get_config` (see :func:`mlci.config_context`).

    Examples
    --------
    >>> engine_options(batch=64).batch
    64
    >>> engine_options(n_jobs=0)
    Traceback (most recent call last):
    ...
    ValueError: `n_jobs` must be an integer >= 1 (or -1 for all cores); got 0.
    """
    batch, n_jobs, max_memory = engine_config(batch, n_jobs, max_memory)
    return EngineOptions(batch=batch, n_jobs=n_jobs, max_memory=max_memory)


def bootstrap_options(
    *,
    n_resamples: Any = 1000,
    confidence_level: Any = 0.95,
    method: Any = "bca",
    alternative: Any = "two-sided",
    rng: Any = None,
    batch: Any = None,
    n_jobs: Any = None,
    max_memory: Any = DEFAULT_MAX_MEMORY,
    methods: tuple[str, ...] = INTERVAL_METHODS,
    linearized: bool = True,
) -> BootstrapOptions:
    """Validate the options every bootstrap driver takes, once.

    Parameters
    ----------
    n_resamples, confidence_level, method, alternative, rng, batch, n_jobs, max_memory
        As in :func:`mlci.bootstrap_ci`.
    methods : tuple of str
        The interval methods this driver offers.
    linearized : bool, default True
        False for a driver that has no linearized standard error: it offers ``"auto"`` and
        :data:`DISTRIBUTION_METHODS` only, and ``"auto"`` is resolved to ``"bca"`` here
        (``method_reason`` says why).

    Returns
    -------
    BootstrapOptions

    Examples
    --------
    >>> opts = bootstrap_options(n_resamples=200, method="percentile", rng=0)
    >>> opts.n_resamples, opts.method, opts.engine.batch
    (200, 'percentile', None)
    >>> bootstrap_options(confidence_level=95)
    Traceback (most recent call last):
    ...
    ValueError: `confidence_level` must be strictly between 0 and 1 (e.g. 0.95); got 95. ...
    """
    reason = None
    if not linearized:
        methods = tuple(m for m in methods if m == "auto" or m in DISTRIBUTION_METHODS)
    check_method(method, methods)
    if method == "auto" and not linearized:
        method, reason = "bca", AUTO_BCA_REASON
    # every interval method needs a spread: at least two replicates
    n_resamples = check_positive_int("n_resamples", n_resamples, minimum=2)
    return BootstrapOptions(
        n_resamples=n_resamples,
        confidence_level=check_confidence_level(confidence_level),
        method=method,
        alternative=check_alternative(alternative),
        seed=check_rng_seed(rng),
        engine=engine_options(batch, n_jobs, max_memory),
        method_reason=reason,
    )
