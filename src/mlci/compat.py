"""Drop-in replacements for the ``confidence_intervals`` toolkit (version 0.0.3).

For code written against ``confidence_intervals``: the same calls, the same
semantics, much faster.

* :func:`evaluate_with_conf_int` -- metric value and percentile interval, with ``alpha``
  in percent and the toolkit's *two-stage* resampling of conditions: conditions are drawn
  with replacement, and every distinct drawn condition gets ONE resample of its samples,
  counted as many times as the condition was drawn.
* :func:`get_bootstrap_indices` -- the indices of one bootstrap set; with the same
  ``random_state`` it returns exactly the toolkit's indices.
* :func:`get_conf_int` -- percentile interval of a list of bootstrap values.
* :func:`create_data` -- the toolkit's toy data set, the same arrays for the same arguments.

What differs (see ``docs/compat.md``): replicates are drawn as count vectors over
"atoms" and the metric is evaluated on many replicates at once instead of re-indexing
the data B times; built-in metric names are accepted; a seed (``rng``) replaces the
toolkit's fixed seeds ``0..B-1`` (``legacy_streams=True`` reproduces those to the last
digit); replicates on which the metric is undefined are counted and left out instead of
crashing.  mlci's own :func:`mlci.bootstrap_ci` defaults to one-stage condition resampling
and BCa intervals, which the coverage study supports (``docs/validation.md``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any

import numpy as np

from .engine.bootstrap import INVALID_WARN_FRACTION, run_replicates
from .engine.resampling import make_plan
from .engine.sampler import Sampler, Stream
from .exceptions import InvalidReplicatesWarning
from .inputs import ArgSpec, check_flag, check_positive_int, check_rng_seed, gather
from .metrics import METRICS, FunctionKernel, Kernel, get_kernel, metric_info
from .results import ConfidenceInterval

__all__ = ["create_data", "evaluate_with_conf_int", "get_bootstrap_indices", "get_conf_int"]

#: replicates per random block of the two-stage sampler (a seed's result never depends on
#: how blocks are grouped into chunks)
_BLOCK = 64


# --------------------------------------------------------------------------- helpers
def _is_metric(x: Any) -> bool:
    return callable(x) or (isinstance(x, str) and x.lower().replace("-", "_") in METRICS)


def _check_alpha(alpha: Any) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not 0 < float(alpha) < 100:
        raise ValueError(
            f"`alpha` is the interval's level in percent, strictly between 0 and 100 "
            f"(5 gives a 95% interval); got {alpha!r}."
        )
    return float(alpha)


def _call_metric(metric: Callable[..., Any], labels: Any, samples: Any, samples2: Any) -> Any:
    """``metric([labels], samples, [samples2])``, leaving out the arguments that are None."""
    args = [a for a in (labels, samples, samples2) if a is not None]
    return metric(*args)


def _groups(conditions: Any, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Condition of each sample -> (unit index, order by unit, unit sizes, unit starts)."""
    c = np.asarray(conditions)
    if c.ndim != 1 or len(c) != n:
        raise ValueError(
            f"`conditions` must have one entry per sample: {n} expected, got shape {c.shape}."
        )
    _, unit = np.unique(c, return_inverse=True)
    unit = unit.reshape(-1)
    order = np.argsort(unit, kind="stable")
    sizes = np.bincount(unit)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    return unit, order, sizes, starts


# ------------------------------------------------------------ the two-stage sampler
class _TwoStageSampler(Sampler):
    """The toolkit's condition bootstrap as atom counts, drawn many replicates at a time.

    Replicate ``r``: condition counts ``u_r ~ Multinomial(C, 1/C)``; every condition ``c``
    gets one inner resample ``v_c`` of its ``n_c`` samples; sample ``i`` of condition ``c``
    has weight ``u_rc * v_ci``.  With few atoms per condition, ``v_c`` is drawn directly
    as a multinomial over the condition's atoms (cost C*m per replicate); otherwise as
    ``n`` uniform positions inside the conditions (cost n per replicate).  Inner resamples
    of conditions that were not drawn are multiplied by zero.
    """

    stream = Stream.COMPAT

    def __init__(self, keys: np.ndarray, m: int, conditions: Any, n_resamples: int, rng: Any):
        n = len(keys)
        self.keys = keys
        self.m = m
        self.n_resamples = n_resamples
        self.seed = check_rng_seed(rng)
        unit, order, sizes, starts = _groups(conditions, n)
        self.n_units = len(sizes)
        if self.n_units < 2:
            raise ValueError(
                "`conditions` has a single distinct value: resampling conditions needs at "
                "least two. Pass conditions=None for an iid bootstrap."
            )
        self.sizes = sizes
        self.atom_path = self.n_units * m <= n
        if self.atom_path:
            table = np.zeros((self.n_units, m))
            np.add.at(table, (unit, keys), 1.0)
            self.probs = table / sizes[:, None]
        else:
            self.slot_unit = unit[order]  # unit of each slot, slots grouped by unit
            self.slot_start = starts[self.slot_unit].astype(float)
            self.slot_size = sizes[self.slot_unit].astype(float)
            self.sorted_keys = keys[order]
        self.block_size = _BLOCK
        # the inner draws: (b, C, m) multinomial counts, or n positions per replicate
        self.draw_bytes = 8.0 * (self.n_units * m if self.atom_path else 3 * n)

    def draw(self, rng: np.random.Generator, b: int, out: np.ndarray | None = None) -> np.ndarray:
        c = self.n_units
        draws = rng.integers(0, c, size=(b, c))
        u = np.bincount((draws + np.arange(b)[:, None] * c).ravel(), minlength=b * c)
        u = u.reshape(b, c).astype(float)
        if self.atom_path:
            inner = rng.multinomial(self.sizes, self.probs, size=(b, c))  # (b, c, m)
            w = np.einsum("bc,bcm->bm", u, inner)
        else:
            pos = self.slot_start + np.floor(rng.random((b, len(self.keys))) * self.slot_size)
            flat = self.sorted_keys[pos.astype(np.intp)] + (np.arange(b) * self.m)[:, None]
            w = u[:, self.slot_unit]
            w = np.bincount(flat.ravel(), weights=w.ravel(), minlength=b * self.m)
            w = w.reshape(b, self.m)
        if out is None:
            return w
        out[...] = w
        return out


def _legacy_counts(
    keys: np.ndarray, m: int, conditions: Any, n_resamples: int
) -> Callable[[int], np.ndarray]:
    """Replicate ``i`` drawn exactly as confidence_intervals 0.0.3 does (``RandomState(i)``)."""
    n = len(keys)
    if conditions is None:

        def iid(i: int) -> np.ndarray:
            idx = np.random.RandomState(i).randint(0, n, size=n)
            return np.bincount(keys[idx], minlength=m).astype(float)

        return iid
    _, order, sizes, starts = _groups(conditions, n)
    n_units = len(sizes)
    sorted_keys = keys[order]

    def two_stage(i: int) -> np.ndarray:
        # the toolkit seeds a fresh RandomState(i) for the draw of conditions AND for each
        # condition's inner draw, so conditions of one size share their inner positions
        u = np.bincount(
            np.random.RandomState(i).randint(0, n_units, size=n_units), minlength=n_units
        )
        drawn = np.flatnonzero(u)
        w = np.zeros(m)
        for size in np.unique(sizes[drawn]):
            inner = np.random.RandomState(i).randint(0, size, size=size)
            same = drawn[sizes[drawn] == size]
            pos = (starts[same][:, None] + inner[None, :]).ravel()
            w += np.bincount(
                sorted_keys[pos], weights=np.repeat(u[same], size).astype(float), minlength=m
            )
        return w

    return two_stage


# ------------------------------------------------------------------- public API
def evaluate_with_conf_int(
    samples: Any,
    metric: Any,
    labels: Any = None,
    conditions: Any = None,
    num_bootstraps: int = 1000,
    alpha: float = 5,
    samples2: Any = None,
    *,
    rng: Any = 0,
    legacy_streams: bool = False,
) -> tuple[Any, ConfidenceInterval]:
    """Metric value and bootstrap percentile interval, as ``confidence_intervals`` computes them.

    Parameters
    ----------
    samples : array-like, shape (n_samples, ...)
        Per-sample system output (decisions, scores or per-sample losses).
    metric : callable or str
        Called as ``metric([labels], samples, [samples2])`` (arguments that are None are
        left out), or a built-in metric name (see :func:`mlci.list_metrics`), which takes
        ``labels`` first: e.g. ``"accuracy"`` (labels, decisions), ``"roc_auc"`` (labels,
        scores), ``"mean"`` (per-sample losses, no labels), ``"weighted_mean"`` (weights
        such as word counts in ``labels``, per-sample WER in ``samples``).  The toolkit's
        README order ``(samples, labels, metric, conditions)`` is accepted too: the
        argument that is a metric is taken as the metric.
    labels : array-like, optional
        Labels, or any other per-sample values the metric needs.
    conditions : array-like, shape (n_samples,), optional
        Condition of every sample (speaker, session...).  Conditions are drawn with
        replacement; each distinct drawn condition gets one resample of its samples,
        counted as many times as the condition was drawn (the toolkit's scheme).
    num_bootstraps : int, default 1000
    alpha : float, default 5
        In percent: the interval runs from the ``alpha/2`` to the ``100 - alpha/2``
        percentile of the bootstrap values.
    samples2 : array-like, optional
        A second per-sample array for metrics that need one.
    rng : None, int or numpy.random.Generator, default 0
        Seed of the replicates.  The default, a fixed seed, makes repeated calls give the
        same numbers, as the toolkit's do; None draws fresh replicates every call.
    legacy_streams : bool, default False
        True draws replicate ``i`` with ``numpy.random.RandomState(i)`` exactly as the
        toolkit does, reproducing its numbers to the last digit (a Python loop over
        replicates: slower, and its inner draws are shared between conditions of equal
        size).  ``rng`` is then ignored.

    Returns
    -------
    value : float (or whatever the metric returns)
        The metric on all the samples.
    (low, high) : ConfidenceInterval
        A named tuple, so ``value, (low, high) = evaluate_with_conf_int(...)`` works.

    Examples
    --------
    >>> from mlci.compat import create_data, evaluate_with_conf_int
    >>> decisions, labels, conditions = create_data(200, 200, 20)
    >>> value, (low, high) = evaluate_with_conf_int(decisions, "accuracy", labels, conditions)
    >>> value, round(low, 2), round(high, 2)
    (0.855, 0.78, 0.91)

    The toolkit's README order, with a scikit-learn metric, and its exact replicates:

    >>> from sklearn.metrics import accuracy_score
    >>> evaluate_with_conf_int(decisions, labels, accuracy_score, conditions,
    ...                        num_bootstraps=1000, alpha=5, legacy_streams=True)
    (0.855, ConfidenceInterval(low=0.7938131968651883, high=0.9126023142471228))
    """
    if not _is_metric(metric) and _is_metric(labels):
        metric, labels = labels, metric
    if not _is_metric(metric):
        if isinstance(metric, str):
            get_kernel(metric, (), {})  # raises the "unknown metric" error with the list
        raise TypeError(
            "`metric` must be a callable, called as metric([labels], samples, [samples2]), or "
            f"a built-in metric name; got {type(metric).__name__}."
        )
    if samples is None:
        raise ValueError("`samples` is required; got None.")
    num_bootstraps = check_positive_int("num_bootstraps", num_bootstraps)
    alpha = _check_alpha(alpha)
    legacy_streams = check_flag("legacy_streams", legacy_streams)
    inputs = metric_info(metric).inputs if isinstance(metric, str) else ()
    if labels is None and len(inputs) == 2:
        raise ValueError(
            f"Metric {metric!r} takes {' and '.join(inputs)}: pass the first as `labels`; "
            "got `labels`=None."
        )
    named = {"labels": labels, "samples": samples, "samples2": samples2, "conditions": conditions}
    named = {k: v for k, v in named.items() if v is not None}
    # the input gate (the toolkit's signature has no dropna: missing values are refused)
    specs = {k: ArgSpec("groups") if k == "conditions" else ArgSpec("any", (1, 2)) for k in named}
    g = gather(specs, named, dropna_name=None)
    labels, samples, samples2 = (g.arrays.get(k) for k in ("labels", "samples", "samples2"))
    conditions = g.arrays.get("conditions")
    data = [a for a in (labels, samples, samples2) if a is not None]
    names = [k for k in ("labels", "samples", "samples2") if g.arrays.get(k) is not None]
    if callable(metric):
        value = _call_metric(metric, labels, samples, samples2)
        kernel: Kernel = FunctionKernel(metric, data, {})
    else:
        kernel = get_kernel(metric, data, {}, names=names)
        full = kernel.evaluate(np.bincount(kernel.keys, minlength=kernel.m)[None, :].astype(float))
        value = float(full[0]) if kernel.shape == () else full[0]
    keys, m = kernel.keys, kernel.m
    if legacy_streams:
        draw = _legacy_counts(keys, m, conditions, num_bootstraps)
        dist = np.stack(
            [kernel.evaluate(draw(i)[None, :])[0] for i in range(num_bootstraps)], axis=0
        )
    elif conditions is None:
        plan = make_plan(len(keys), n_resamples=num_bootstraps, rng=rng)
        dist = run_replicates(
            kernel.evaluate,
            plan.weights_for(keys, m),
            kernel.shape,
            bytes_per_row=8.0 * m * kernel.work_factor,
            threads=not isinstance(kernel, FunctionKernel),
        )
    else:
        sampler = _TwoStageSampler(keys, m, conditions, num_bootstraps, rng)
        dist = run_replicates(
            kernel.evaluate,
            sampler,
            kernel.shape,
            bytes_per_row=8.0 * m * kernel.work_factor + sampler.draw_bytes,
            threads=not isinstance(kernel, FunctionKernel),
        )
    return value, get_conf_int(dist, alpha)


def get_conf_int(values: Any, alpha: float = 5) -> ConfidenceInterval:
    """Percentile interval of bootstrap values: the ``alpha/2`` and ``100 - alpha/2`` percentiles.

    Linear interpolation between order statistics (``numpy.percentile``'s default), as
    the toolkit.  NaN values (replicates where the metric was undefined) are left out,
    with an :class:`~mlci.InvalidReplicatesWarning` when they are more than 1%.

    Parameters
    ----------
    values : array-like, shape (B,) or (B, *shape)
    alpha : float, default 5
        In percent.

    Returns
    -------
    ConfidenceInterval

    Examples
    --------
    >>> get_conf_int([0.1, 0.2, 0.3, 0.4, 0.5], alpha=50)
    ConfidenceInterval(low=0.2, high=0.4)
    """
    alpha = _check_alpha(alpha)
    v = np.asarray(values, dtype=float)
    if v.ndim == 0 or v.shape[0] == 0:
        raise ValueError("`values` must hold at least one bootstrap value.")
    invalid = np.isnan(v.reshape(v.shape[0], -1)).any(axis=1)
    n_invalid = int(invalid.sum())
    if n_invalid == v.shape[0]:
        raise ValueError(
            f"All {n_invalid} bootstrap values are NaN (the metric was undefined on every "
            "replicate); no interval can be computed."
        )
    if n_invalid > INVALID_WARN_FRACTION * v.shape[0]:
        warnings.warn(
            f"{n_invalid} of {v.shape[0]} bootstrap values are NaN (the metric was undefined, "
            "e.g. a resample with a single class); they are left out.",
            InvalidReplicatesWarning,
            stacklevel=2,
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN elements of a vector metric
        low, high = np.nanpercentile(v, [alpha / 2, 100 - alpha / 2], axis=0)
    if v.ndim == 1:
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(low, high)


def get_bootstrap_indices(
    num_samples: int, conditions: Any = None, random_state: Any = None
) -> np.ndarray:
    """Indices of one bootstrap set, drawn as ``confidence_intervals`` draws them.

    Without conditions: ``num_samples`` indices drawn with replacement.  With conditions:
    the distinct conditions are drawn with replacement; for each distinct drawn condition
    (in sorted order) its sample indices are resampled once and repeated as many times as
    the condition was drawn.  The size of the set therefore varies.

    Parameters
    ----------
    num_samples : int
    conditions : array-like, shape (num_samples,), optional
    random_state : None, int, numpy.random.RandomState or numpy.random.Generator
        As in the toolkit (and scikit-learn's ``resample``): an int seeds a fresh
        ``RandomState`` for *every* draw; None uses numpy's global random state.  With
        the same ``random_state`` the indices are exactly the toolkit's.

    Returns
    -------
    ndarray of int

    Examples
    --------
    >>> get_bootstrap_indices(5, random_state=0)
    array([4, 0, 3, 3, 3])
    >>> get_bootstrap_indices(6, conditions=[0, 0, 1, 1, 2, 2], random_state=1).tolist()
    [1, 1, 1, 1, 3, 3]
    """
    num_samples = check_positive_int("num_samples", num_samples)
    if random_state is None or isinstance(random_state, np.random.RandomState):
        state = random_state if random_state is not None else np.random.mtrand._rand

        def draw(k: int) -> np.ndarray:
            return state.randint(0, k, size=k)

    elif isinstance(random_state, Integral) and not isinstance(random_state, bool):
        seed = int(random_state)

        def draw(k: int) -> np.ndarray:
            return np.random.RandomState(seed).randint(0, k, size=k)

    elif isinstance(random_state, np.random.Generator):
        gen = random_state

        def draw(k: int) -> np.ndarray:
            return gen.integers(0, k, size=k)

    else:
        raise TypeError(
            "`random_state` must be None, an int, a numpy RandomState or Generator; "
            f"got {random_state!r}."
        )
    if conditions is None:
        return draw(num_samples)
    _, order, sizes, starts = _groups(conditions, num_samples)
    counts = np.bincount(draw(len(sizes)), minlength=len(sizes))
    parts = []
    for c in np.flatnonzero(counts):
        members = order[starts[c] : starts[c] + sizes[c]]
        parts.append(np.repeat(members[draw(int(sizes[c]))], counts[c]))
    return np.concatenate(parts)


def create_data(
    N0: int, N1: int, C: int, random_state: int = 123456, scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The toolkit's toy binary data set: the same arrays for the same arguments.

    ``N0`` samples of class 0 and ``N1`` of class 1, spread at random over ``C``
    conditions; Gaussian scores centred at -1 and +1 with a random shift per condition
    and class (standard deviation 0.2); decisions are ``score > 0``.  The toolkit seeds
    numpy's legacy global generator (``np.random.seed``); this function draws the same
    numbers from a private ``numpy.random.RandomState(random_state)`` and leaves the
    global state alone.

    Returns
    -------
    decisions : ndarray of int, shape (N0 + N1,)
    labels : ndarray of float, shape (N0 + N1,)
    conditions : ndarray of int, shape (N0 + N1,)

    Examples
    --------
    >>> decisions, labels, conditions = create_data(200, 200, 20)
    >>> decisions.shape, float((decisions == labels).mean())
    ((400,), 0.855)
    """
    rs = np.random.RandomState(random_state)
    n = N0 + N1
    conditions = rs.choice(C, n)
    labels = np.r_[np.zeros(N0), np.ones(N1)]
    scores = np.zeros(n)
    for c in range(C):
        shift0 = rs.normal(0, 0.2, 1)
        shift1 = rs.normal(0, 0.2, 1)
        idx = (labels == 0) & (conditions == c)
        scores[idx] = rs.normal(shift0 - 1, scale, int(idx.sum()))
        idx = (labels == 1) & (conditions == c)
        scores[idx] = rs.normal(shift1 + 1, scale, int(idx.sum()))
    decisions = (scores > 0).astype(int)
    return decisions, labels, conditions
