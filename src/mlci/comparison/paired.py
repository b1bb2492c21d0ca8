"""Comparing systems on one test set: paired bootstrap, permutation test, multiple comparisons.

Every system is scored on the *same* bootstrap replicates, so the interval of a
difference reflects how correlated the systems are (two systems that make the same
mistakes have a much narrower difference interval than their separate intervals
suggest).  The engine's atoms make this cheap: each system's metric kernel has its own
atoms (e.g. the (label, prediction) cells of a confusion matrix); the *joint* atoms are
the distinct combinations of every system's atom, one replicate draw over the joint
atoms serves every system, and each system's counts are a sum of joint counts.  With
2-class accuracy, ten systems have at most 2^11 joint atoms whatever the test-set size.

p-values for "no difference" (:func:`compare`) come from the bootstrap distribution of
the difference shifted to the null (Efron & Tibshirani 1993, sec. 16.4; Hall & Wilson
1991): two-sided ``p = (1 + #{|d* - d| >= |d|}) / (1 + B)``.  :func:`permutation_test`
is the paired approximate-randomisation test (Noreen 1989; Riezler & Maxwell 2005):
the two systems' outputs are swapped at random per sample (or per condition).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
from scipy import sparse

from ..classical.corrections import CORRECTION_METHODS, adjust_pvalues
from ..engine.bootstrap import (
    DEFAULT_MAX_MEMORY,
    INVALID_WARN_FRACTION,
    run_replicates,
    single_threaded_blas,
)
from ..engine.intervals import INTERVAL_METHODS, acceleration, bootstrap_interval, quantiles
from ..engine.nested import plan_for_conditions
from ..engine.resampling import make_plan
from ..exceptions import DegenerateIntervalWarning, InvalidReplicatesWarning
from ..inputs.validation import (
    check_alternative,
    check_choice,
    check_confidence_level,
    check_positive_int,
)
from ..metrics import FunctionKernel, Kernel, get_kernel
from ..results import BootstrapResult, ConfidenceInterval, TestResult, _fmt, _plain

__all__ = [
    "ComparisonResult",
    "PairDifference",
    "RankEntry",
    "compare",
    "permutation_test",
]

#: metrics for which a lower value is better (the ranking needs the direction)
LOWER_IS_BETTER = frozenset(
    {"error_rate", "fpr", "fnr", "fdr", "log_loss", "brier", "mae", "mse", "rmse", "eer"}
)
_STREAM_PERMUTATION = 3


# --------------------------------------------------------------------------- joint atoms
class _Aggregator:
    """Sums the columns of joint-atom counts (b, m_joint) into one kernel's atoms (b, m_s)."""

    def __init__(self, atom_of_joint: np.ndarray, m_s: int) -> None:
        m = len(atom_of_joint)
        self.m_s = m_s
        self.identity = m == m_s and np.array_equal(atom_of_joint, np.arange(m))
        if self.identity:
            self.mat: Any = None
        elif m * m_s <= 4_000_000:
            mat = np.zeros((m, m_s))
            mat[np.arange(m), atom_of_joint] = 1.0
            self.mat = mat
        else:
            self.mat = sparse.csr_matrix(
                (np.ones(m), (np.arange(m), atom_of_joint)), shape=(m, m_s)
            )

    def __call__(self, w: np.ndarray) -> np.ndarray:
        if self.identity:
            return w
        if sparse.issparse(self.mat):
            return np.asarray(self.mat.T @ w.T).T
        return w @ self.mat


class _JointAtoms:
    """Joint atoms of several kernels over the same samples.

    ``keys[i]`` is the joint atom of sample ``i``; ``parts[s](W)`` turns joint counts into
    kernel ``s``'s atom counts.
    """

    def __init__(self, kernels: Sequence[Kernel]) -> None:
        stacked = np.column_stack([np.asarray(k.keys, dtype=np.int64) for k in kernels])
        ms = [int(k.m) for k in kernels]
        if float(np.prod(np.asarray(ms, dtype=float))) < 2.0**62:
            code = np.ravel_multi_index(stacked.T, ms)
            uniq, inv = np.unique(code, return_inverse=True)
            rows = np.column_stack(np.unravel_index(uniq, ms))
        else:
            rows, inv = np.unique(stacked, axis=0, return_inverse=True)
        self.keys = inv.reshape(-1).astype(np.intp)
        self.m = len(rows)
        self.parts = [_Aggregator(rows[:, s], ms[s]) for s in range(len(kernels))]


def _evaluator(kernels: Sequence[Kernel], joint: _JointAtoms) -> Callable[[np.ndarray], Any]:
    def evaluate(w: np.ndarray) -> np.ndarray:
        w = np.asarray(w, dtype=float)
        return np.stack(
            [k.evaluate(part(w)) for k, part in zip(kernels, joint.parts, strict=True)], axis=1
        )

    return evaluate


# --------------------------------------------------------------------------- results
@dataclass(frozen=True, kw_only=True, repr=False)
class PairDifference:
    """One paired difference ``metric(a) - metric(b)`` with its interval and p-values.

    Attributes
    ----------
    a, b : str
        The two systems; the difference is ``a - b``.
    estimate : float
    confidence_interval : ConfidenceInterval
        Marginal interval (the requested ``method``).
    standard_error : float
        Standard deviation of the bootstrap differences.
    pvalue : float
        Unadjusted p-value for "no difference".
    pvalue_adjusted : float
        After the multiple-comparison correction.
    simultaneous_interval : ConfidenceInterval
        Max-|t| interval: all such intervals hold together with the confidence level.
    significant : bool
        ``pvalue_adjusted < 1 - confidence_level``.
    """

    a: str
    b: str
    estimate: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    pvalue: float
    pvalue_adjusted: float
    simultaneous_interval: ConfidenceInterval
    significant: bool

    def __repr__(self) -> str:
        low, high = self.confidence_interval
        return (
            f"PairDifference({self.a!r} - {self.b!r}: {_fmt(self.estimate)} "
            f"[{_fmt(low)}, {_fmt(high)}], p={_fmt(self.pvalue)}, "
            f"p_adj={_fmt(self.pvalue_adjusted)})"
        )

    def to_dict(self) -> dict[str, Any]:
        return {k: _plain(getattr(self, k)) for k in self.__dataclass_fields__}


@dataclass(frozen=True, kw_only=True, repr=False)
class RankEntry:
    """A system's place: ``rank = 1 + number of systems significantly better than it``.

    Systems with the same rank are not separated by the data; ``tied_with`` lists the
    systems that are not significantly different from this one.
    """

    system: str
    estimate: float
    rank: int
    tied_with: tuple[str, ...]

    def __repr__(self) -> str:
        return f"RankEntry({self.rank}: {self.system!r} {_fmt(self.estimate)})"

    def to_dict(self) -> dict[str, Any]:
        return {k: _plain(getattr(self, k)) for k in self.__dataclass_fields__}


@dataclass(frozen=True, kw_only=True, repr=False)
class ComparisonResult:
    """Paired comparison of several systems on the same bootstrap replicates.

    Attributes
    ----------
    metric : str
    systems : dict of str -> BootstrapResult
        Each system's estimate and interval (its own bootstrap distribution is the
        corresponding column of the paired replicates).
    differences : tuple of PairDifference
        All pairs ``(a, b)`` with ``a`` before ``b`` in the input order, or every system
        against ``reference`` (``a = system``, ``b = reference``).
    reference : str or None
    correction : str
        Multiple-comparison adjustment of the p-values (``"holm"``, ``"maxt"``, ...).
    pvalue_method : str
        How the unadjusted p-values were computed.
    simultaneous_critical_value : float
        ``c`` of the max-|t| intervals ``d +- c * se`` (for a one-sided ``alternative``,
        the quantile of the signed max-t in the direction of H1, and one-sided bounds).
    ranking : tuple of RankEntry or None
        Only when all pairs are compared.
    higher_is_better : bool
    confidence_level, method, n_resamples, scheme, n_samples, n_conditions, n_strata
        As in :class:`~mlci.BootstrapResult`.
    """

    metric: str
    systems: dict[str, BootstrapResult]
    differences: tuple[PairDifference, ...]
    reference: str | None
    correction: str
    pvalue_method: str
    simultaneous_critical_value: float
    ranking: tuple[RankEntry, ...] | None
    higher_is_better: bool
    confidence_level: float
    method: str
    n_resamples: int
    n_invalid: int
    scheme: str
    n_samples: int
    n_conditions: int | None = None
    n_strata: int | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def difference(self, a: str, b: str) -> PairDifference:
        """The pair ``a - b`` (the reversed pair is returned negated)."""
        for d in self.differences:
            if (d.a, d.b) == (a, b):
                return d
            if (d.a, d.b) == (b, a):
                lo, hi = d.confidence_interval
                slo, shi = d.simultaneous_interval
                return PairDifference(
                    a=a,
                    b=b,
                    estimate=-d.estimate,
                    confidence_interval=ConfidenceInterval(-hi, -lo),
                    standard_error=d.standard_error,
                    pvalue=d.pvalue,
                    pvalue_adjusted=d.pvalue_adjusted,
                    simultaneous_interval=ConfidenceInterval(-shi, -slo),
                    significant=d.significant,
                )
        raise KeyError(f"No comparison of {a!r} with {b!r} in this result.")

    def __repr__(self) -> str:
        lvl = f"{self.confidence_level * 100:.10g}%"
        lines = [
            f"ComparisonResult(metric={self.metric!r}, {len(self.systems)} systems, "
            f"{self.n_samples} samples, n_resamples={self.n_resamples}, "
            f"scheme={self.scheme!r}, {lvl} CI ({self.method}), correction={self.correction!r})"
        ]
        width = max(len(s) for s in self.systems)
        for name, r in self.systems.items():
            lo, hi = r.confidence_interval
            lines.append(f"  {name:<{width}}  {_fmt(r.estimate)}  [{_fmt(lo)}, {_fmt(hi)}]")
        for d in self.differences:
            lo, hi = d.confidence_interval
            star = " *" if d.significant else ""
            lines.append(
                f"  {d.a} - {d.b}: {_fmt(d.estimate)}  [{_fmt(lo)}, {_fmt(hi)}]  "
                f"p={_fmt(d.pvalue)}  p_adj={_fmt(d.pvalue_adjusted)}{star}"
            )
        if self.ranking is not None:
            lines.append("  ranking: " + ", ".join(f"{e.rank}. {e.system}" for e in self.ranking))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (bootstrap distributions left out)."""
        return {
            "metric": self.metric,
            "systems": {k: v.to_dict() for k, v in self.systems.items()},
            "differences": [d.to_dict() for d in self.differences],
            "reference": self.reference,
            "correction": self.correction,
            "pvalue_method": self.pvalue_method,
            "simultaneous_critical_value": self.simultaneous_critical_value,
            "ranking": None if self.ranking is None else [e.to_dict() for e in self.ranking],
            "higher_is_better": self.higher_is_better,
            "confidence_level": self.confidence_level,
            "method": self.method,
            "n_resamples": self.n_resamples,
            "n_invalid": self.n_invalid,
            "scheme": self.scheme,
            "n_samples": self.n_samples,
            "n_conditions": self.n_conditions,
            "n_strata": self.n_strata,
            "details": _plain(dict(self.details)),
        }

    def to_frame(self, what: str = "differences") -> Any:
        """A pandas DataFrame of the ``"differences"`` (one row per pair) or the ``"systems"``."""
        import pandas as pd

        check_choice("what", what, ("differences", "systems"))
        if what == "systems":
            rows = [
                {
                    "system": k,
                    "estimate": v.estimate,
                    "low": v.confidence_interval.low,
                    "high": v.confidence_interval.high,
                    "standard_error": v.standard_error,
                    "rank": None
                    if self.ranking is None
                    else next(e.rank for e in self.ranking if e.system == k),
                }
                for k, v in self.systems.items()
            ]
            return pd.DataFrame(rows).set_index("system")
        rows = [
            {
                "a": d.a,
                "b": d.b,
                "difference": d.estimate,
                "low": d.confidence_interval.low,
                "high": d.confidence_interval.high,
                "standard_error": d.standard_error,
                "pvalue": d.pvalue,
                "pvalue_adjusted": d.pvalue_adjusted,
                "simultaneous_low": d.simultaneous_interval.low,
                "simultaneous_high": d.simultaneous_interval.high,
                "significant": d.significant,
            }
            for d in self.differences
        ]
        return pd.DataFrame(rows)


# --------------------------------------------------------------------------- validation
def _check_systems(y_true: Any, systems: Any, *, minimum: int = 2) -> tuple[list[str], list[Any]]:
    if not isinstance(systems, Mapping):
        raise TypeError(
            "`systems` must be a dict mapping each system's name to its per-sample outputs, "
            f"e.g. {{'A': pred_a, 'B': pred_b}}; got {type(systems).__name__}."
        )
    if len(systems) < minimum:
        raise ValueError(f"`systems` must hold at least {minimum} systems; got {len(systems)}.")
    names = [str(k) for k in systems]
    if len(set(names)) != len(names):
        raise ValueError("`systems` has names that are equal once converted to str.")
    outputs = [np.asarray(v) for v in systems.values()]
    n = None if y_true is None else len(np.asarray(y_true))
    lengths = {name: (len(o) if o.ndim else 0) for name, o in zip(names, outputs, strict=True)}
    ref_n = n if n is not None else next(iter(lengths.values()))
    bad = {k: v for k, v in lengths.items() if v != ref_n}
    if bad:
        what = f"`y_true` has {n} samples" if n is not None else f"the first system has {ref_n}"
        listed = ", ".join(f"{k!r} has {v}" for k, v in bad.items())
        raise ValueError(
            f"Every system must have one output per test sample: {what}, but {listed}. "
            "Align the systems' outputs with the test set."
        )
    return names, outputs


def _data(y_true: Any, output: Any) -> tuple[Any, ...]:
    return (output,) if y_true is None else (y_true, output)


def _params(metric: Any, pos_label: Any, average: Any, metric_kwargs: Any) -> dict[str, Any]:
    params = dict(metric_kwargs or {})
    if callable(metric):
        if pos_label is not None or average != "default":
            raise ValueError(
                "`pos_label` and `average` are options of the built-in metrics; pass options "
                "of your own function in `metric_kwargs`."
            )
        return params
    if pos_label is not None:
        params["pos_label"] = pos_label
    if average != "default":
        params["average"] = average
    return params


def _metric_name(metric: Any) -> str:
    return metric if isinstance(metric, str) else getattr(metric, "__name__", "metric")


def _higher_is_better(metric: Any, higher_is_better: bool | None) -> bool:
    if higher_is_better is not None:
        return bool(higher_is_better)
    if isinstance(metric, str):
        return metric.lower().replace("-", "_") not in LOWER_IS_BETTER
    return True


def _shifted_pvalues(d: np.ndarray, dist: np.ndarray, alternative: str) -> np.ndarray:
    """p-values from the bootstrap distribution of the differences shifted to the null.

    ``dist`` (B, k), ``d`` (k,).  Two-sided: ``(1 + #{|d* - d| >= |d|}) / (1 + B_valid)``;
    ``"greater"`` (H1: d > 0): ``#{d* - d >= d}``; ``"less"``: ``#{d* - d <= d}``.
    """
    centred = dist - d
    tol = 1e-12 * np.maximum(1.0, np.abs(d))
    valid = ~np.isnan(centred)
    with np.errstate(invalid="ignore"):
        if alternative == "two-sided":
            hit = np.abs(centred) >= np.abs(d) - tol
        elif alternative == "greater":
            hit = centred >= d - tol
        else:
            hit = centred <= d + tol
    count = np.sum(hit & valid, axis=0)
    return np.minimum(1.0, (1.0 + count) / (1.0 + valid.sum(axis=0)))


# --------------------------------------------------------------------------- compare
def compare(
    y_true: Any,
    systems: Mapping[str, Any],
    *,
    metric: str | Callable[..., Any],
    conditions: Any = None,
    strata: Any = None,
    reference: str | None = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: str = "bca",
    alternative: str = "two-sided",
    correction: str = "holm",
    rng: Any = None,
    two_stage: bool = False,
    weights: str = "multinomial",
    pos_label: Any = None,
    average: Any = "default",
    metric_kwargs: dict[str, Any] | None = None,
    higher_is_better: bool | None = None,
    batch: int | None = None,
    n_jobs: int | None = None,
    max_memory: int = DEFAULT_MAX_MEMORY,
    jackknife_groups: int | None = None,
) -> ComparisonResult:
    """Compare two or more systems on the same test set with a paired bootstrap.

    Every system is scored on the *same* replicates, so each difference's interval
    accounts for the correlation between the systems.

    Parameters
    ----------
    y_true : array-like, shape (n_samples,), or None
        Labels (or targets).  ``None`` for metrics that take one per-sample array, e.g.
        ``metric="mean"`` on per-sample losses.
    systems : dict of str -> array-like, shape (n_samples,) (or (n_samples, n_classes))
        Each system's decisions, scores or per-sample losses, aligned with ``y_true``.
    metric : str or callable
        Any built-in metric (:func:`mlci.list_metrics`) or a function
        ``metric(y_true, y_pred)`` (with ``sample_weight`` if it accepts it).
    conditions, strata, two_stage, weights
        Resampling options, as in :func:`mlci.bootstrap_ci`; ``conditions`` may be a list
        of nested levels (top first, e.g. ``[speaker, session]``).
    reference : str, optional
        Compare every system with this one only (``system - reference``); by default
        every pair ``(a, b)``, ``a - b``, with ``a`` before ``b`` in ``systems``.
    n_resamples : int, default 1000
    confidence_level : float, default 0.95
    method : {"bca", "percentile", "basic", "normal", "bc"}
        Interval method for each system and each difference (BCa's acceleration comes
        from the jackknife of the difference itself).
    alternative : {"two-sided", "less", "greater"}
        For the intervals and p-values of the differences.
    correction : str, default "holm"
        Multiple-comparison adjustment: ``"holm"``, ``"bonferroni"``, ``"hochberg"``,
        ``"bh"``, ``"by"``, ``"none"`` (see :func:`mlci.adjust_pvalues`) or ``"maxt"``
        (single-step max-|t|, Westfall & Young 1993, the p-values matching the
        simultaneous intervals).
    rng : None, int, Generator or SeedSequence
    pos_label, average, metric_kwargs
        Metric options, as in :func:`mlci.bootstrap_ci`.
    higher_is_better : bool, optional
        Direction of the metric for the ranking; inferred for built-in names (error
        rates and losses are lower-is-better), True for callables.
    batch, n_jobs, max_memory, jackknife_groups
        Engine knobs, as in :func:`mlci.bootstrap_ci`; they never change the result.

    Returns
    -------
    ComparisonResult

    Notes
    -----
    p-value of a difference ``d``: the bootstrap distribution of ``d*`` is shifted to
    the null (``d* - d``) and ``p = (1 + #{|d* - d| >= |d|}) / (1 + B)`` (two-sided;
    one-sided counts one tail).  It agrees with the paired permutation test
    (:func:`permutation_test`) and is close to uniform under the null.

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> a = np.where(rng.random(400) < 0.85, y, 1 - y)
    >>> b = np.where(rng.random(400) < 0.75, y, 1 - y)
    >>> res = mlci.compare(y, {"A": a, "B": b}, metric="accuracy", rng=0)
    >>> d = res.difference("A", "B")
    >>> round(d.estimate, 3), bool(d.confidence_interval.low > 0), d.pvalue < 0.01
    (0.117, True, True)
    """
    names, outputs = _check_systems(y_true, systems)
    if reference is not None and str(reference) not in names:
        raise ValueError(
            f"`reference`={reference!r} is not among the systems {names}; pass one of their "
            "names, or None to compare every pair."
        )
    check_choice("method", method, INTERVAL_METHODS)
    confidence_level = check_confidence_level(confidence_level)
    alternative = check_alternative(alternative)
    check_choice("correction", correction, (*CORRECTION_METHODS, "maxt"))
    n_resamples = check_positive_int("n_resamples", n_resamples, minimum=2)
    params = _params(metric, pos_label, average, metric_kwargs)
    kernels = [get_kernel(metric, _data(y_true, o), params) for o in outputs]
    if any(k.shape != () for k in kernels):
        raise ValueError(
            "`compare` needs a scalar metric; this one returns an array per resample "
            "(e.g. average=None). Compare one class at a time, or average."
        )
    n = len(kernels[0].keys)
    plan = plan_for_conditions(
        n,
        conditions=conditions,
        strata=strata,
        two_stage=two_stage,
        weights=weights,
        n_resamples=n_resamples,
        rng=rng,
    )
    joint = _JointAtoms(kernels)
    sampler = plan.weights_for(joint.keys, joint.m)
    evaluate = _evaluator(kernels, joint)
    estimates = evaluate(sampler.counts[None, :])[0]
    undefined = [nm for nm, e in zip(names, estimates, strict=True) if np.isnan(e)]
    if undefined:
        raise ValueError(
            f"The metric {_metric_name(metric)!r} is undefined (NaN) on the data as given for "
            f"system(s) {undefined}; no interval can be computed."
        )
    is_fn = any(isinstance(k, FunctionKernel) for k in kernels)
    bytes_per_row = 8.0 * (2 * joint.m + sum(k.m * k.work_factor for k in kernels)) + (
        sampler.draw_bytes
    )
    # the joint-atom aggregation is a small matrix product per chunk: one BLAS thread
    # inside the engine's threads (a multi-threaded BLAS there oversubscribes the cores)
    with single_threaded_blas(not is_fn):
        dist = run_replicates(
            evaluate,
            sampler,
            (len(kernels),),
            bytes_per_row=bytes_per_row,
            batch=batch,
            n_jobs=n_jobs,
            max_memory=max_memory,
            threads=not is_fn,
        )
    invalid = np.isnan(dist).any(axis=1)
    n_invalid = int(invalid.sum())
    if n_invalid == n_resamples:
        raise ValueError(
            f"The metric {_metric_name(metric)!r} was undefined on every replicate for some "
            "system; no interval can be computed."
        )
    if n_invalid > INVALID_WARN_FRACTION * n_resamples:
        warnings.warn(
            f"The metric {_metric_name(metric)!r} was undefined on {n_invalid} of "
            f"{n_resamples} replicates for at least one system; those replicates are excluded "
            "for the affected systems and pairs. Consider `strata=y_true` or more data.",
            InvalidReplicatesWarning,
            stacklevel=2,
        )

    # pairs: index arrays, difference a - b
    if reference is None:
        pairs = list(combinations(range(len(names)), 2))
    else:
        r = names.index(str(reference))
        pairs = [(i, r) for i in range(len(names)) if i != r]
    ia = np.array([p[0] for p in pairs])
    ib = np.array([p[1] for p in pairs])
    d_hat = estimates[ia] - estimates[ib]
    d_dist = dist[:, ia] - dist[:, ib]

    accel_sys = accel_diff = None
    details: dict[str, Any] = {"joint_atoms": joint.m}
    if method == "bca":
        groups = jackknife_groups
        if groups is None:
            groups = 100 if is_fn else int(np.clip(2e8 // max(joint.m, 1), 50, 1000))
        groups = check_positive_int("jackknife_groups", groups, minimum=2)
        wj, mult = sampler.jackknife_weights(groups)
        with single_threaded_blas(not is_fn):
            jack = np.concatenate(
                [evaluate(wj[i : i + 256]) for i in range(0, wj.shape[0], 256)], axis=0
            )
        accel_sys = acceleration(jack, mult)
        accel_diff = acceleration(jack[:, ia] - jack[:, ib], mult)
        details["jackknife_size"] = len(mult)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate systems are reported per system below
        s_low, s_high, _ = bootstrap_interval(
            estimates, dist, method=method, confidence_level=confidence_level, accel=accel_sys
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        d_low, d_high, info = bootstrap_interval(
            d_hat,
            d_dist,
            method=method,
            confidence_level=confidence_level,
            alternative=alternative,
            accel=accel_diff,
        )
    for w in caught:
        # a difference with no spread means two systems that agree on every atom that
        # matters (identical outputs): reported in details, not as a warning
        if not issubclass(w.category, DegenerateIntervalWarning):
            warnings.warn(w.message, w.category, stacklevel=2)
    flat = np.nanmax(d_dist, axis=0) == np.nanmin(d_dist, axis=0)
    if flat.any():
        details["no_spread_pairs"] = [
            f"{names[ia[k]]} - {names[ib[k]]}" for k in np.flatnonzero(flat)
        ]
    if "fallback" in info:
        details["fallback"] = info["fallback"]
    with np.errstate(invalid="ignore"):
        s_se = np.nanstd(dist, axis=0, ddof=1)
        s_bias = np.nanmean(dist, axis=0) - estimates
        d_se = np.nanstd(d_dist, axis=0, ddof=1)

    pvals = _shifted_pvalues(d_hat, d_dist, alternative)

    # simultaneous max-|t| intervals (and single-step maxT p-values); one-sided
    # alternatives use the signed max-t in the direction of H1 (a one-sided bound each)
    ok = d_se > 0
    valid_rows = ~np.isnan(d_dist).any(axis=1)
    sign = {"two-sided": 0.0, "greater": 1.0, "less": -1.0}[alternative]
    with np.errstate(invalid="ignore", divide="ignore"):
        centred = (d_dist[valid_rows][:, ok] - d_hat[ok]) / d_se[ok]
        t_star = np.abs(centred) if sign == 0.0 else sign * centred
        t_obs = np.abs(d_hat[ok]) / d_se[ok] if sign == 0.0 else sign * d_hat[ok] / d_se[ok]
    p_maxt = pvals.copy()  # pairs with no spread keep their own p-value
    if t_star.size and ok.any():
        t_max = t_star.max(axis=1)
        crit = float(quantiles(t_max[:, None], np.array([confidence_level]))[0])
        p_maxt[ok] = (1.0 + (t_max[:, None] >= t_obs[None, :] - 1e-12).sum(axis=0)) / (
            1.0 + len(t_max)
        )
    else:
        crit = 0.0
    sim_low = d_hat - crit * d_se
    sim_high = d_hat + crit * d_se
    if alternative == "less":
        sim_low = np.full_like(d_hat, -np.inf)
    elif alternative == "greater":
        sim_high = np.full_like(d_hat, np.inf)

    p_adj = p_maxt if correction == "maxt" else adjust_pvalues(pvals, correction=correction)
    alpha = 1.0 - confidence_level
    diffs = tuple(
        PairDifference(
            a=names[i],
            b=names[j],
            estimate=float(d_hat[k]),
            confidence_interval=ConfidenceInterval(float(d_low[k]), float(d_high[k])),
            standard_error=float(d_se[k]),
            pvalue=float(pvals[k]),
            pvalue_adjusted=float(p_adj[k]),
            simultaneous_interval=ConfidenceInterval(float(sim_low[k]), float(sim_high[k])),
            significant=bool(p_adj[k] < alpha),
        )
        for k, (i, j) in enumerate(pairs)
    )
    mname = _metric_name(metric)
    sys_results = {}
    for s, name in enumerate(names):
        sys_results[name] = BootstrapResult(
            estimate=float(estimates[s]),
            confidence_interval=ConfidenceInterval(float(s_low[s]), float(s_high[s])),
            confidence_level=confidence_level,
            method=method,
            standard_error=float(s_se[s]),
            metric=mname,
            bias=float(s_bias[s]),
            bootstrap_distribution=dist[:, s],
            n_resamples=n_resamples,
            n_invalid=int(np.isnan(dist[:, s]).sum()),
            scheme=plan.scheme,
            n_samples=n,
            n_conditions=plan.n_conditions,
            n_strata=plan.n_strata,
            details={} if accel_sys is None else {"acceleration": float(accel_sys[s])},
        )
    hib = _higher_is_better(metric, higher_is_better)
    ranking = None
    if reference is None:
        ranking = _ranking(names, estimates, diffs, hib)
    return ComparisonResult(
        metric=mname,
        systems=sys_results,
        differences=diffs,
        reference=None if reference is None else str(reference),
        correction=correction,
        pvalue_method="bootstrap distribution of the difference shifted to the null",
        simultaneous_critical_value=crit,
        ranking=ranking,
        higher_is_better=hib,
        confidence_level=confidence_level,
        method=method,
        n_resamples=n_resamples,
        n_invalid=n_invalid,
        scheme=plan.scheme,
        n_samples=n,
        n_conditions=plan.n_conditions,
        n_strata=plan.n_strata,
        details=details,
    )


def _ranking(
    names: list[str], estimates: np.ndarray, diffs: Sequence[PairDifference], hib: bool
) -> tuple[RankEntry, ...]:
    """Rank = 1 + number of systems significantly better (adjusted p-values)."""
    idx = {nm: i for i, nm in enumerate(names)}
    better = np.zeros(len(names), dtype=int)
    tied: dict[str, list[str]] = {nm: [] for nm in names}
    for d in diffs:
        if not d.significant:
            tied[d.a].append(d.b)
            tied[d.b].append(d.a)
            continue
        a_better = (d.estimate > 0) == hib
        better[idx[d.b] if a_better else idx[d.a]] += 1
    sign = -1.0 if hib else 1.0
    order = sorted(range(len(names)), key=lambda i: (better[i], sign * estimates[i]))
    return tuple(
        RankEntry(
            system=names[i],
            estimate=float(estimates[i]),
            rank=int(better[i]) + 1,
            tied_with=tuple(tied[names[i]]),
        )
        for i in order
    )


# --------------------------------------------------------------------------- permutation
def permutation_test(
    y_true: Any,
    pred_a: Any,
    pred_b: Any,
    *,
    metric: str | Callable[..., Any],
    conditions: Any = None,
    n_resamples: int = 9999,
    alternative: str = "two-sided",
    rng: Any = None,
    pos_label: Any = None,
    average: Any = "default",
    metric_kwargs: dict[str, Any] | None = None,
) -> TestResult:
    """Paired permutation (approximate randomisation) test of ``metric(a) == metric(b)``.

    Under the null the two systems are exchangeable on each sample, so their outputs
    are swapped with probability 1/2 per sample (per condition when ``conditions`` is
    given, for data whose samples are not independent), and the difference of the
    metric is recomputed.

    Parameters
    ----------
    y_true : array-like, shape (n_samples,), or None
        ``None`` for one-array metrics (e.g. ``"mean"`` of per-sample losses).
    pred_a, pred_b : array-like, shape (n_samples,) (or (n_samples, n_classes))
        The two systems' outputs.
    metric : str or callable
    conditions : array-like, shape (n_samples,), optional
        Swap whole conditions (speakers, documents) instead of single samples.
    n_resamples : int, default 9999
        Number of random swaps.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: H1 is ``metric(a) > metric(b)``.
    rng : None, int, Generator or SeedSequence
    pos_label, average, metric_kwargs
        Metric options.

    Returns
    -------
    TestResult
        ``statistic`` = ``estimate`` = ``metric(a) - metric(b)``;
        ``pvalue = (1 + #{|d*| >= |d|}) / (1 + n_resamples)`` (two-sided).

    Notes
    -----
    Built-in metrics are vectorised: the samples are grouped into joint atoms of
    (atom of a's output, atom of b's output) in one atom space; a replicate only draws
    how many samples of each joint atom are swapped (Binomial(c, 1/2), or a sum of
    swapped conditions), and each permuted system's counts follow.  A callable metric
    is called twice per replicate on the swapped arrays.

    Examples
    --------
    >>> import numpy as np, mlci
    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 300)
    >>> a = np.where(rng.random(300) < 0.9, y, 1 - y)
    >>> b = np.where(rng.random(300) < 0.8, y, 1 - y)
    >>> res = mlci.permutation_test(y, a, b, metric="accuracy", rng=0)
    >>> res.method, res.pvalue < 0.01
    ('paired-permutation', True)
    """
    _, outs = _check_systems(y_true, {"pred_a": pred_a, "pred_b": pred_b})
    pa, pb = outs
    if pa.shape != pb.shape:
        raise ValueError(
            f"`pred_a` and `pred_b` must have the same shape; got {pa.shape} and {pb.shape}."
        )
    alternative = check_alternative(alternative)
    n_resamples = check_positive_int("n_resamples", n_resamples)
    params = _params(metric, pos_label, average, metric_kwargs)
    ka = get_kernel(metric, _data(y_true, pa), params)
    kb = get_kernel(metric, _data(y_true, pb), params)
    if ka.shape != ():
        raise ValueError("`permutation_test` needs a scalar metric.")
    n = len(ka.keys)
    plan = make_plan(n, conditions=conditions, n_resamples=n_resamples, rng=rng)
    d_hat = float(ka.evaluate(np.bincount(ka.keys, minlength=ka.m)[None, :].astype(float))[0])
    d_hat -= float(kb.evaluate(np.bincount(kb.keys, minlength=kb.m)[None, :].astype(float))[0])
    if np.isnan(d_hat):
        raise ValueError(f"The metric {_metric_name(metric)!r} is undefined on the data as given.")
    cond = plan.unit_of_sample
    null = None
    if not callable(metric):
        null = _permutation_atoms(y_true, pa, pb, metric, params, plan, cond, d_hat)
    if null is None:
        null = _permutation_loop(y_true, pa, pb, metric, params, plan, cond)
    valid = ~np.isnan(null)
    tol = 1e-12 * max(1.0, abs(d_hat))
    if alternative == "two-sided":
        hits = np.abs(null[valid]) >= abs(d_hat) - tol
    elif alternative == "greater":
        hits = null[valid] >= d_hat - tol
    else:
        hits = null[valid] <= d_hat + tol
    p = min(1.0, (1.0 + hits.sum()) / (1.0 + valid.sum()))
    return TestResult(
        statistic=d_hat,
        pvalue=float(p),
        method="paired-permutation",
        alternative=alternative,
        estimate=d_hat,
        details={
            "metric": _metric_name(metric),
            "n_resamples": n_resamples,
            "swap_unit": "sample" if cond is None else "condition",
            "n_invalid": int((~valid).sum()),
            "null_standard_deviation": float(np.nanstd(null, ddof=1)),
        },
    )


def _permutation_atoms(
    y_true: Any,
    pa: np.ndarray,
    pb: np.ndarray,
    metric: str,
    params: dict[str, Any],
    plan: Any,
    cond: np.ndarray | None,
    d_hat: float,
) -> np.ndarray | None:
    """Vectorised null distribution over joint (atom of a, atom of b) atoms; None if the
    union kernel does not reproduce the metric (then the caller loops)."""
    n = len(pa)
    y2 = None if y_true is None else np.concatenate([np.asarray(y_true)] * 2)
    ku = get_kernel(metric, _data(y2, np.concatenate([pa, pb])), params)
    keys_a, keys_b = ku.keys[:n], ku.keys[n:]
    m_u = ku.m
    wa0 = np.bincount(keys_a, minlength=m_u)[None, :].astype(float)
    wb0 = np.bincount(keys_b, minlength=m_u)[None, :].astype(float)
    d_u = float(ku.evaluate(wa0)[0] - ku.evaluate(wb0)[0])
    if not np.isclose(d_u, d_hat, rtol=1e-10, atol=1e-12):
        return None  # e.g. a macro average over classes that only one system predicts
    code = keys_a.astype(np.int64) * m_u + keys_b
    uniq, jk = np.unique(code, return_inverse=True)
    jk = jk.reshape(-1)
    m_j = len(uniq)
    to_a = _Aggregator((uniq // m_u).astype(np.intp), m_u)
    to_b = _Aggregator((uniq % m_u).astype(np.intp), m_u)
    c = np.bincount(jk, minlength=m_j).astype(float)
    table = None
    if cond is not None:
        n_units = int(cond.max()) + 1
        table = sparse.csr_matrix((np.ones(n), (cond, jk)), shape=(n_units, m_j))
        cost = n_units + m_j
    else:
        cost = m_j
    block = int(np.clip((1 << 17) // max(cost, 1), 1, 512))
    out = np.empty(plan.n_resamples)
    for start in range(0, plan.n_resamples, block):
        b = min(block, plan.n_resamples - start)
        g = plan.generator(_STREAM_PERMUTATION, start // block)
        if table is None:
            s = g.binomial(c.astype(np.int64), 0.5, size=(b, m_j)).astype(float)
        else:
            z = g.integers(0, 2, size=(b, table.shape[0])).astype(float)
            s = np.asarray(table.T @ z.T).T
        keep = c[None, :] - s
        wa = to_a(keep) + to_b(s)
        wb = to_b(keep) + to_a(s)
        out[start : start + b] = ku.evaluate(wa) - ku.evaluate(wb)
    return out


def _permutation_loop(
    y_true: Any,
    pa: np.ndarray,
    pb: np.ndarray,
    metric: Any,
    params: dict[str, Any],
    plan: Any,
    cond: np.ndarray | None,
) -> np.ndarray:
    """Per-replicate index path (user functions, or the rare built-in fallback)."""
    n = len(pa)
    out = np.empty(plan.n_resamples)
    block = 64
    for start in range(0, plan.n_resamples, block):
        b = min(block, plan.n_resamples - start)
        g = plan.generator(_STREAM_PERMUTATION, start // block)
        if cond is None:
            masks = g.integers(0, 2, size=(b, n)).astype(bool)
        else:
            masks = g.integers(0, 2, size=(b, int(cond.max()) + 1)).astype(bool)[:, cond]
        for r in range(b):
            msk = masks[r].reshape((-1,) + (1,) * (pa.ndim - 1))
            a2 = np.where(msk, pb, pa)
            b2 = np.where(msk, pa, pb)
            out[start + r] = _value(metric, y_true, a2, params) - _value(metric, y_true, b2, params)
    return out


def _value(metric: Any, y_true: Any, pred: np.ndarray, params: dict[str, Any]) -> float:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if callable(metric):
                return float(metric(*_data(y_true, pred), **params))
            k = get_kernel(metric, _data(y_true, pred), params)
            w = np.bincount(k.keys, minlength=k.m)[None, :].astype(float)
            return float(k.evaluate(w)[0])
    except (ValueError, ZeroDivisionError, FloatingPointError):
        return float("nan")
