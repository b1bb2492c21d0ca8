"""The resampling design's rarely changed details, in one small immutable object.

``conditions=`` and ``strata=`` (what is resampled together, and within what) are
arguments of every driver, with ``n_resamples``, ``confidence_level``, ``method``,
``alternative`` and ``rng``.  The details of *how* the replicates are drawn -- class
strata (``stratify``), the second stage inside conditions (``two_stage``), Poisson
counts (``weights``), a custom scheme (``sampler``), the grouped jackknife of BCa
(``jackknife_groups``), the smoothed bootstrap (``smoothing``), m-out-of-n subsampling
(``subsample``) and the lazy search (``algorithm``) -- are one argument,
``resampling=mlci.Resampling(...)``, validated once in its constructor and passed down
whole (scipy's ``_bootstrap_iv``: one validation, then pure algorithm; score-analysis's
``BootstrapConfig``).

For one deprecation cycle the drivers still accept the details as keywords
(``bootstrap_ci(..., two_stage=True)``), with a FutureWarning naming
``mlci.Resampling`` (:func:`resampling_keywords`, through
:func:`mlci.inputs.moved_keywords`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from numbers import Real
from typing import Any, ParamSpec, TypeVar

import numpy as np

from .deprecation import moved_keywords
from .validation import check_choice, check_flag, check_positive_int

__all__ = [
    "RESAMPLING_FIELDS",
    "Resampling",
    "check_resampling",
    "check_smoothing",
    "check_subsample",
    "resampling_keywords",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def check_smoothing(smoothing: Any) -> bool | float:
    """``smoothing``: False (off), True (Silverman's bandwidth per class) or a bandwidth >= 0.

    Examples
    --------
    >>> check_smoothing(True), check_smoothing(0.1)
    (True, 0.1)
    """
    if smoothing is None or smoothing is False:
        return False
    if smoothing is True:
        return True
    if isinstance(smoothing, Real) and not isinstance(smoothing, bool):
        h = float(smoothing)
        if np.isfinite(h) and h >= 0:
            return h
        raise ValueError(
            f"`smoothing` must be True, False or a finite bandwidth >= 0; got {smoothing!r}."
        )
    raise TypeError(
        "`smoothing` must be True (Silverman's bandwidth per class), False, or a bandwidth "
        f"(a number >= 0, in score units); got {smoothing!r}."
    )


def check_subsample(subsample: Any) -> float | None:
    """``subsample``: None, or the fraction of every cell drawn per replicate, in (0, 1).

    Examples
    --------
    >>> check_subsample(0.5) is None, check_subsample(None) is None
    (False, True)
    """
    if subsample is None:
        return None
    if isinstance(subsample, bool) or not isinstance(subsample, Real):
        raise TypeError(
            "`subsample` must be the fraction of the samples drawn (without replacement) per "
            f"replicate, a number in (0, 1); got {subsample!r}."
        )
    f = float(subsample)
    if not 0.0 < f < 1.0:
        raise ValueError(f"`subsample` must lie strictly between 0 and 1; got {subsample!r}.")
    return f


@dataclasses.dataclass(frozen=True, kw_only=True, repr=False)
class Resampling:
    """How the bootstrap replicates are drawn, beyond ``conditions`` and ``strata``.

    One small immutable object, validated when it is built and passed whole to a
    driver's ``resampling=`` argument (the default, ``None``, is ``Resampling()``: the
    classical bootstrap of the design that ``conditions`` and ``strata`` describe).
    A driver refuses a field it does not offer (e.g. ``smoothing`` outside
    :meth:`mlci.Scores.bootstrap_ci`), naming it.

    Parameters
    ----------
    stratify : bool, optional
        ``True`` is shorthand for ``strata`` = the labels (class sizes fixed), refused
        together with ``strata``.  ``None`` (the default): the driver's default -- on for
        :class:`mlci.Scores` and the score intervals (class sizes fixed, as usual in ROC
        work; off with nested conditions), off for :func:`mlci.bootstrap_ci` and
        :meth:`mlci.ConfusionMatrix.bootstrap_ci`.
    two_stage : bool, default False
        With ``conditions``: also resample the samples (or lower levels) inside every
        drawn condition.
    weights : {"multinomial", "poisson"}, default "multinomial"
        The classical bootstrap's counts, or independent Poisson(1) counts per unit.
    sampler : callable, optional
        A custom resampling scheme, ``sampler(rng, b)`` returning a ``(b, n_samples)``
        array: how many times (a non-negative weight) each sample, in the order given
        (after ``dropna``), enters each of ``b`` replicates.  It replaces
        ``conditions``/``strata``/``stratify``/``weights``; the engine still owns the
        seeding (``rng`` is a per-block generator, so a seed gives the same result on any
        chunk size), multiplies the counts by ``sample_weight``, and BCa's acceleration
        uses the delete-one-sample jackknife.  The result's ``scheme`` is ``"custom"``.
    jackknife_groups : int, optional
        Largest number of jackknife replicates for BCa's acceleration (at least 2); more
        units than this are deleted in random groups.
    smoothing : bool or float, default False
        The smoothed bootstrap (:meth:`mlci.Scores.bootstrap_ci`): Gaussian noise on every
        replicate's scores, Silverman's bandwidth per class (``True``) or a bandwidth
        (score units); caveats in :mod:`mlci.engine.smoothing`.
    subsample : float in (0, 1), optional
        m-out-of-n subsampling (:meth:`mlci.Scores.bootstrap_ci`): the fraction of every
        cell drawn without replacement per replicate, replicates rescaled.
    algorithm : {"auto", "lazy", "weights"}, default "auto"
        How a score search draws its replicates (:meth:`mlci.Scores.bootstrap_ci`).

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> y_true = rng.integers(0, 2, 400)
    >>> y_pred = np.where(rng.random(400) < 0.8, y_true, 1 - y_true)
    >>> speaker = rng.integers(0, 20, 400)
    >>> design = mlci.Resampling(two_stage=True, weights="poisson")
    >>> design
    Resampling(two_stage=True, weights='poisson')
    >>> res = mlci.bootstrap_ci(y_true, y_pred, metric="accuracy", conditions=speaker,
    ...                         resampling=design, rng=1)
    >>> res.scheme
    'conditions-two-stage+poisson'
    >>> mlci.Resampling(weights="bayesian")
    Traceback (most recent call last):
    ...
    ValueError: `weights` must be one of 'multinomial', 'poisson'; got 'bayesian'.
    """

    stratify: bool | None = None
    two_stage: bool = False
    weights: str = "multinomial"
    sampler: Callable[[np.random.Generator, int], Any] | None = None
    jackknife_groups: int | None = None
    smoothing: bool | float = False
    subsample: float | None = None
    algorithm: str = "auto"

    def __post_init__(self) -> None:
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        if self.stratify is not None:
            put("stratify", check_flag("stratify", self.stratify))
        put("two_stage", check_flag("two_stage", self.two_stage))
        check_choice("weights", self.weights, ("multinomial", "poisson"))
        if self.sampler is not None and not callable(self.sampler):
            raise TypeError(
                "`sampler` must be a function `sampler(rng, b)` returning the (b, n_samples) "
                f"counts of b replicates; got {type(self.sampler).__name__}."
            )
        if self.jackknife_groups is not None:
            put(
                "jackknife_groups",
                check_positive_int("jackknife_groups", self.jackknife_groups, minimum=2),
            )
        put("smoothing", check_smoothing(self.smoothing))
        put("subsample", check_subsample(self.subsample))
        check_choice("algorithm", self.algorithm, ("auto", "lazy", "weights"))
        if self.sampler is not None and (
            self.stratify or self.two_stage or self.weights != "multinomial"
        ):
            raise ValueError(
                "`sampler` replaces the resampling design: drop `stratify`, `two_stage` and "
                "`weights` (a custom scheme draws the counts of every sample itself)."
            )

    def changed(self) -> dict[str, Any]:
        """The fields set away from their defaults.

        Examples
        --------
        >>> Resampling(two_stage=True).changed()
        {'two_stage': True}
        """
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) is not f.default and getattr(self, f.name) != f.default
        }

    def __repr__(self) -> str:
        def show(v: Any) -> str:
            return getattr(v, "__qualname__", None) or repr(v) if callable(v) else repr(v)

        return f"Resampling({', '.join(f'{k}={show(v)}' for k, v in self.changed().items())})"


#: the fields of :class:`Resampling` (the keywords they replace in the drivers)
RESAMPLING_FIELDS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Resampling))


def check_resampling(
    resampling: Any, offered: Collection[str], where: str, *, stratify: bool | None = None
) -> Resampling:
    """A driver's ``resampling`` argument: a :class:`Resampling` whose changed fields the
    driver offers (``offered``), else an error naming the field and the driver
    (``where``).  ``None`` is ``Resampling(stratify=stratify)`` (``stratify``: the
    driver's default), as is a ``Resampling`` that leaves ``stratify`` at None.

    Examples
    --------
    >>> check_resampling(None, ("two_stage",), "mlci.compare")
    Resampling()
    >>> check_resampling(Resampling(smoothing=True), ("two_stage",), "mlci.compare")
    Traceback (most recent call last):
    ...
    ValueError: `resampling`: mlci.compare does not offer `smoothing` (it offers `two_stage`).
    """
    if resampling is None:
        resampling = Resampling()
    if not isinstance(resampling, Resampling):
        raise TypeError(
            "`resampling` must be a mlci.Resampling, e.g. "
            f"resampling=mlci.Resampling(two_stage=True); got {type(resampling).__name__}."
        )
    extra = [k for k in resampling.changed() if k not in offered]
    if extra:
        offers = ", ".join(f"`{k}`" for k in offered) or "none of its fields"
        raise ValueError(
            f"`resampling`: {where} does not offer {', '.join(f'`{k}`' for k in extra)} "
            f"(it offers {offers})."
        )
    if resampling.stratify is None and stratify is not None:
        resampling = dataclasses.replace(resampling, stratify=stratify)
    return resampling


def _into_resampling(
    func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], given: dict[str, Any]
) -> Any:
    if kwargs.get("resampling") is not None:
        raise TypeError(
            f"Give `resampling` only; {', '.join(f'`{k}`' for k in given)} are its fields "
            "now (deprecated as keywords)."
        )
    kwargs["resampling"] = Resampling(**given)
    return func(*args, **kwargs)


def _resampling_message(name: str, given: dict[str, Any]) -> str:
    keys = ", ".join(f"{k}=..." for k in given)
    return (
        f"{name}({keys}) is deprecated and will be removed: the resampling details are one "
        f"argument now, `resampling=mlci.Resampling({keys})`."
    )


def resampling_keywords(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorator: the :class:`Resampling` fields, no longer arguments of ``func``, still
    accepted as keywords for one deprecation cycle: a FutureWarning naming
    ``mlci.Resampling``, and the call gets ``resampling=Resampling(...)`` of them (with
    ``resampling=`` too: a TypeError).

    Examples
    --------
    >>> import warnings
    >>> @resampling_keywords
    ... def driver(x, *, resampling=None):
    ...     return resampling
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     driver(1, two_stage=True)
    Resampling(two_stage=True)
    >>> print(caught[0].message)  # doctest: +NORMALIZE_WHITESPACE
    driver(two_stage=...) is deprecated and will be removed: the resampling details are
    one argument now, `resampling=mlci.Resampling(two_stage=...)`.
    """
    return moved_keywords(RESAMPLING_FIELDS, _resampling_message, _into_resampling)(func)
