"""MOVER of the two classes' own intervals: balanced accuracy's analytic interval, of
independent samples (modified Wilson) and over conditions (Korn & Graubard) (the rule
that uses it: :mod:`mlci.engine.class_edge`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .formulas import one_sided
from .no_error import no_error_interval

__all__ = ["mover_interval", "mover_korn_graubard_interval", "mover_wilson_interval"]


def _mover_of_mean(
    est: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    alternative: str,
    bounds: tuple[float, float] | None,
) -> tuple[np.ndarray, np.ndarray]:
    """MOVER interval of the mean of two independent rates ``est`` with intervals
    ``(lo, hi)`` (Zou & Donner 2008, eq. 3), one-sided for a one-sided ``alternative``."""
    mid = float(est.mean())
    low = np.asarray(mid - 0.5 * np.sqrt(np.sum((est - lo) ** 2)))
    high = np.asarray(mid + 0.5 * np.sqrt(np.sum((hi - est) ** 2)))
    return one_sided(low, high, alternative, bounds)


def mover_wilson_interval(
    counts: Any,
    wilson: Callable[..., tuple[Any, Any, Any]],
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = (0.0, 1.0),
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Balanced accuracy's MOVER interval from the two classes' counts.

    ``counts = (tn, n_neg, tp, n_pos)``: balanced accuracy is ``(s + r) / 2`` with the
    specificity ``s = tn / n_neg`` and the recall ``r = tp / n_pos``, two proportions of
    independent classes.  Each gets Brown, Cai & DasGupta's (2001, sec. 4.1.1) modified
    Wilson interval ``(l_i, u_i)`` (``wilson``: :func:`mlci.intervals.bootstrap.
    wilson_interval`, passed in by its caller there, called with ``modified=True``;
    one-sided for a one-sided ``alternative``), and the MOVER
    ("method of variance estimates recovery", Zou & Donner 2008, eq. 3; Newcombe 1998's
    square-and-add for a difference) interval of their mean is
    ``est - sqrt((s - l_s)^2 + (r - l_r)^2) / 2`` to
    ``est + sqrt((u_s - s)^2 + (u_r - r)^2) / 2``: each class's distance to its own bound
    stands for its own variance, so a class without an error still contributes its
    Wilson width (a standard error of 0 would give none).

    Examples
    --------
    >>> from mlci.intervals.bootstrap import wilson_interval
    >>> low, high, info = mover_wilson_interval(
    ...     (890, 900, 98, 100), wilson_interval, confidence_level=0.95
    ... )
    >>> round(float(low), 4), round(float(high), 4), info["edge_fallback_method"]
    (0.959, 0.993, 'mover_wilson')
    """
    tn, n_neg, tp, n_pos = (float(c) for c in counts)
    k, n = np.array([tn, tp]), np.array([n_neg, n_pos])
    rate = k / n
    lo = np.empty(2)
    hi = np.empty(2)
    for i in range(2):
        lo[i], hi[i], _ = wilson(
            float(rate[i]),
            float(n[i]),
            None,
            confidence_level=confidence_level,
            alternative=alternative,
            modified=True,
        )
    low, high = _mover_of_mean(rate, lo, hi, alternative, bounds)
    info = {"edge_fallback": 1, "edge_fallback_method": "mover_wilson"}
    return low, high, info | {"class_counts": tuple(int(c) for c in counts)}


def mover_korn_graubard_interval(
    rates: Any,
    korn_graubard: Callable[..., tuple[Any, Any, Any]],
    wilson: Callable[..., tuple[Any, Any, Any]],
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = (0.0, 1.0),
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Balanced accuracy's MOVER interval over conditions from the two classes' own rates.

    ``rates``: the specificity's and the recall's ``{"estimate", "standard_error",
    "df", "effective_n", "nominal_n"}`` over the conditions
    (:func:`mlci.engine.clustered_edge.clustered_class_rates`).  Each rate gets Korn &
    Graubard's (1998) interval
    (``korn_graubard``: :func:`mlci.intervals.bootstrap.effective_binomial_interval`,
    Clopper-Pearson on the effective sample size ``p (1 - p) / se^2`` times ``(z /
    t_df)^2``, at most the class's size ``nominal_n`` where given (the design effect
    truncated at 1, as :func:`mlci.intervals.near_bound.korn_graubard_interval`), the
    exact interval of ``effective_n`` for a rate of 1 or 0: a class without an error;
    without the widening of a proportion's own interval with few minority
    outcomes, :func:`mlci.intervals.near_bound.widen_few_minority`: the sweep
    measured the rule so); Wilson's of ``effective_n`` (same df adjustment) where the
    conditions do not vary (a standard error of 0).  The MOVER interval of their mean
    (Zou & Donner 2008, eq. 3) is then :func:`mover_wilson_interval`'s, the two rates
    taken as independent (the classes' samples are distinct; their correlation over the
    conditions changed no cell of the sweep by more than 0.005, docs/validation.md,
    "One door for a proportion over conditions near its bound").

    Examples
    --------
    >>> from mlci.intervals.bootstrap import effective_binomial_interval, wilson_interval
    >>> rates = ({"estimate": 0.9, "standard_error": 0.012, "df": 20.0, "effective_n": 600.0},
    ...          {"estimate": 0.98, "standard_error": 0.012, "df": 15.0, "effective_n": 100.0})
    >>> low, high, info = mover_korn_graubard_interval(
    ...     rates, effective_binomial_interval, wilson_interval, confidence_level=0.95)
    >>> round(float(low), 4), round(float(high), 4), info["edge_fallback_method"]
    (0.9133, 0.9546, 'mover_korn_graubard')
    """
    est, lo, hi = np.empty(2), np.empty(2), np.empty(2)
    for i, r in enumerate(rates):
        p, se, df, n = (float(r[k]) for k in ("estimate", "standard_error", "df", "effective_n"))
        low, high, _ = korn_graubard(
            p, se, df, confidence_level=confidence_level, alternative=alternative, nominal_n=n,
            max_n=r.get("nominal_n"),
        )  # fmt: skip
        if not (np.isfinite(low) and np.isfinite(high)):  # no spread between the conditions
            low, high, _ = wilson(p, n, df, confidence_level=confidence_level,
                                  alternative=alternative)  # fmt: skip
        est[i], lo[i], hi[i] = p, float(low), float(high)
    low, high = _mover_of_mean(est, lo, hi, alternative, bounds)
    return low, high, {"edge_fallback": 1, "edge_fallback_method": "mover_korn_graubard"}


def mover_interval(
    name: str,
    linear: dict[str, Any],
    wilson: Callable[..., tuple[Any, Any, Any]],
    korn_graubard: Callable[..., tuple[Any, Any, Any]],
    *,
    confidence_level: float,
    alternative: str = "two-sided",
    bounds: tuple[float, float] | None = (0.0, 1.0),
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The analytic interval the engine named in a linearization (``linear["analytic_method"]``,
    :func:`mlci.engine.class_edge.class_edge_options`): ``"mover_wilson"`` from
    ``linear["class_counts"]`` (:func:`mover_wilson_interval`) or
    ``"mover_korn_graubard"`` from ``linear["class_rates"]``
    (:func:`mover_korn_graubard_interval`), or ``"exact_no_error"`` from
    ``linear["no_error"]`` (F1, MCC, kappa without an error:
    :func:`mlci.intervals.no_error.no_error_interval`).

    Examples
    --------
    >>> from mlci.intervals.bootstrap import effective_binomial_interval, wilson_interval
    >>> lin = {"class_counts": (890, 900, 98, 100)}
    >>> low, high, _ = mover_interval("mover_wilson", lin, wilson_interval,
    ...                               effective_binomial_interval, confidence_level=0.95)
    >>> round(float(low), 4), round(float(high), 4)
    (0.959, 0.993)
    """
    if name == "mover_wilson":
        return mover_wilson_interval(
            linear["class_counts"], wilson, confidence_level=confidence_level,
            alternative=alternative, bounds=bounds,
        )  # fmt: skip
    if name == "mover_korn_graubard":
        return mover_korn_graubard_interval(
            linear["class_rates"], korn_graubard, wilson, confidence_level=confidence_level,
            alternative=alternative, bounds=bounds,
        )  # fmt: skip
    if name == "exact_no_error":
        return no_error_interval(
            linear["no_error"], confidence_level=confidence_level, alternative=alternative,
            bounds=bounds,
        )  # fmt: skip
    raise ValueError(
        "`analytic_method` must be 'mover_wilson' or 'mover_korn_graubard' (balanced "
        f"accuracy's MOVER) or 'exact_no_error' (no error in the test set); got {name!r}."
    )
