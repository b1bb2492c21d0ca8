"""The paired permutation (approximate randomisation) test of two systems.

Under the null hypothesis the two systems are exchangeable on each sample (or on each
condition: speaker, document), so their outputs are swapped with probability 1/2 per
sample (per condition) and the difference of the metric is recomputed (Noreen 1989;
Riezler & Maxwell 2005).

The swaps are drawn by two :class:`~mlci.engine.sampler.Sampler` implementations on the
:attr:`~mlci.engine.sampler.Stream.PERMUTATION` stream and evaluated by the engine's
replicate loop (:func:`~mlci.engine.bootstrap.run_replicates`), so a seed gives the same
p-value whatever ``batch`` and ``n_jobs``:

* :class:`SwapCountSampler` (built-in metrics): the samples are grouped into joint atoms
  of (atom of a's output, atom of b's output) in one atom space; a replicate is the
  number of swapped samples of every joint atom (Binomial(c, 1/2), or the sum over the
  swapped conditions), from which each permuted system's atom counts follow;
* :class:`SwapMaskSampler` (user functions, and the rare built-in case where the joint
  atoms do not reproduce the metric): a replicate is the 0/1 swap mask of every sample,
  and the metric is called on the swapped arrays.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import sparse

from ..engine.replicate_loop import run_replicates
from ..engine.sampler import Sampler, Stream
from ..feedback import reports_progress
from ..inputs import bootstrap_options, fill_doc, knobs_in_config, unique_inverse
from ..metrics import get_kernel, metric_params
from ..results import TestResult
from .common import Aggregator, gather_paired, kernel_data, metric_name, top_level

__all__ = ["SwapCountSampler", "SwapMaskSampler", "permutation_test"]


class SwapCountSampler(Sampler):
    """Swapped-sample counts per joint atom: one replicate of the vectorised permutation test.

    Parameters
    ----------
    seed : numpy.random.SeedSequence
    n_resamples : int
    counts : ndarray, shape (m,)
        Number of samples in each joint atom.
    units : scipy.sparse matrix, shape (n_units, m), optional
        Samples of each joint atom in each swap unit (condition); None swaps samples.

    Notes
    -----
    A replicate ``s`` (shape (m,)) counts the swapped samples of each joint atom: without
    units, ``s ~ Binomial(c, 1/2)`` atom by atom (the sum of ``c`` independent fair
    swaps); with units, every unit is swapped with probability 1/2 and ``s`` sums the
    swapped units' rows.
    """

    stream = Stream.PERMUTATION

    def __init__(
        self,
        seed: np.random.SeedSequence,
        n_resamples: int,
        counts: np.ndarray,
        units: Any = None,
    ) -> None:
        self.seed = seed
        self.n_resamples = n_resamples
        self.counts = np.asarray(counts, dtype=float)
        self._counts_int = self.counts.astype(np.int64)
        self.m = len(self.counts)
        self.units = units
        cost = self.m if units is None else units.shape[0] + self.m
        self.block_size = int(np.clip((1 << 17) // max(cost, 1), 1, 512))

    def draw(self, rng: np.random.Generator, b: int, out: np.ndarray | None = None) -> np.ndarray:
        if self.units is None:
            s = rng.binomial(self._counts_int, 0.5, size=(b, self.m)).astype(float)
        else:
            z = rng.integers(0, 2, size=(b, self.units.shape[0])).astype(float)
            s = np.asarray(self.units.T @ z.T).T
        if out is None:
            return s
        out[...] = s
        return out


class SwapMaskSampler(Sampler):
    """Per-sample swap masks: one replicate is 1.0 where the two systems' outputs are swapped.

    Parameters
    ----------
    seed : numpy.random.SeedSequence
    n_resamples : int
    n_samples : int
    unit_of_sample : ndarray of int, optional
        The swap unit (condition) of every sample, in ``[0, n_units)``; None swaps samples.
    """

    stream = Stream.PERMUTATION
    block_size = 64

    def __init__(
        self,
        seed: np.random.SeedSequence,
        n_resamples: int,
        n_samples: int,
        unit_of_sample: np.ndarray | None = None,
    ) -> None:
        self.seed = seed
        self.n_resamples = n_resamples
        self.m = n_samples
        self.unit_of_sample = unit_of_sample
        # number of units (conditions) swapped together; unused without them
        self._n_units = 0 if unit_of_sample is None else int(unit_of_sample.max()) + 1

    def draw(self, rng: np.random.Generator, b: int, out: np.ndarray | None = None) -> np.ndarray:
        if self.unit_of_sample is None:
            masks = rng.integers(0, 2, size=(b, self.m))
        else:
            masks = rng.integers(0, 2, size=(b, self._n_units))[:, self.unit_of_sample]
        if out is None:
            return masks.astype(float)
        out[...] = masks
        return out


@knobs_in_config
@reports_progress
@fill_doc
def permutation_test(
    y_true: Any,
    y_pred_a: Any,
    y_pred_b: Any,
    *,
    metric: str | Callable[..., Any],
    conditions: Any = None,
    n_resamples: int = 9999,
    alternative: str = "two-sided",
    rng: Any = None,
    pos_label: Any = None,
    average: Any = "default",
    metric_kwargs: dict[str, Any] | None = None,
    dropna: bool = False,
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
    y_pred_a, y_pred_b : array-like, shape (n_samples,) (or (n_samples, n_classes))
        The two systems' outputs (decisions, scores or per-sample values).
    metric : str or callable
    conditions : array-like, shape (n_samples,), or list of them, optional
        Swap whole conditions (speakers, documents) instead of single samples.  Nested
        conditions (a list of per-sample arrays, top level first, e.g. ``[speaker,
        session]``) swap the top-level units.
    n_resamples : int, default 9999
        Number of random swaps.  More than an interval's 1000 (docs/glossary.md): the
        p-value ``(1 + k) / (1 + B)`` is read in a tail, so with ``B + 1 = 10000`` it is
        exact at the levels 0.05, 0.01 and 0.001 (``α (B + 1)`` whole; Davison & Hinkley
        1997, sec. 4.2.5) and its Monte Carlo sd near 0.05 is 0.0022 (0.0069 with
        ``B = 1000``, at which ``α (B + 1)`` is not whole); scipy's ``permutation_test`` default.
    %(alternative_test)s
    rng : None, int, Generator or SeedSequence
    pos_label, average, metric_kwargs
        Metric options, as in :func:`mlci.bootstrap_ci`.
    %(dropna)s

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
    # the permutation test has no interval: "percentile" only lets the shared validation
    # of n_resamples, alternative, rng and the engine knobs run unchanged
    opts = bootstrap_options(
        n_resamples=n_resamples,
        method="percentile",
        alternative=alternative,
        rng=rng,
    )
    params = metric_params(metric, pos_label, average, metric_kwargs)
    data = gather_paired(
        y_true,
        {"y_pred_a": y_pred_a, "y_pred_b": y_pred_b},
        metric=metric,
        conditions=conditions,
        dropna=dropna,
    )
    pa, pb = data.outputs["y_pred_a"], data.outputs["y_pred_b"]
    if pa.shape != pb.shape:
        raise ValueError(
            f"`y_pred_a` and `y_pred_b` must have the same shape; got {pa.shape} and {pb.shape}."
        )
    y = data.y_true
    ka = get_kernel(metric, kernel_data(y, pa), params)
    kb = get_kernel(metric, kernel_data(y, pb), params)
    if ka.shape != ():
        raise ValueError(
            "`permutation_test` needs a scalar metric; this one returns an array (e.g. "
            "average=None). Test one class at a time, or average."
        )
    top = top_level(data.conditions)
    unit = None
    if top is not None:
        unit = unique_inverse(top).astype(np.intp)
        if unit.max() < 1:
            raise ValueError(
                "`conditions` has a single distinct value (at the top level): swapping "
                "conditions needs at least two (ideally dozens). Drop `conditions` to swap "
                "samples."
            )
    d_hat = float(ka.evaluate(np.bincount(ka.keys, minlength=ka.m)[None, :].astype(float))[0])
    d_hat -= float(kb.evaluate(np.bincount(kb.keys, minlength=kb.m)[None, :].astype(float))[0])
    name = metric_name(metric)
    if np.isnan(d_hat):
        raise ValueError(f"The metric {name!r} is undefined on the data as given.")
    null = None
    if not callable(metric):
        null = _null_by_atoms(y, pa, pb, metric, params, unit, d_hat, opts)
    if null is None:
        null = _null_by_masks(y, pa, pb, metric, params, unit, opts)
    valid = ~np.isnan(null)
    tol = 1e-12 * max(1.0, abs(d_hat))
    if opts.alternative == "two-sided":
        hits = np.abs(null[valid]) >= abs(d_hat) - tol
    elif opts.alternative == "greater":
        hits = null[valid] >= d_hat - tol
    else:
        hits = null[valid] <= d_hat + tol
    p = min(1.0, (1.0 + hits.sum()) / (1.0 + valid.sum()))
    details: dict[str, Any] = {
        "metric": name,
        "n_resamples": opts.n_resamples,
        "swap_unit": "sample" if unit is None else "condition",
        "n_invalid": int((~valid).sum()),
        "null_standard_deviation": float(np.nanstd(null, ddof=1)),
        "n_samples": data.n_samples,
        "n_dropped": data.n_dropped,
    }
    if unit is not None:
        details["n_conditions"] = int(unit.max()) + 1
    return TestResult(
        statistic=d_hat,
        pvalue=float(p),
        method="paired-permutation",
        alternative=opts.alternative,
        estimate=d_hat,
        details=details,
    )


def _null_by_atoms(
    y_true: np.ndarray | None,
    pa: np.ndarray,
    pb: np.ndarray,
    metric: str,
    params: dict[str, Any],
    unit: np.ndarray | None,
    d_hat: float,
    opts: Any,
) -> np.ndarray | None:
    """Vectorised null distribution over joint (atom of a, atom of b) atoms; None if the
    union kernel does not reproduce the metric (then the caller uses swap masks)."""
    n = len(pa)
    y2 = None if y_true is None else np.concatenate([y_true] * 2)
    ku = get_kernel(metric, kernel_data(y2, np.concatenate([pa, pb])), params)
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
    to_a = Aggregator((uniq // m_u).astype(np.intp), m_u)
    to_b = Aggregator((uniq % m_u).astype(np.intp), m_u)
    c = np.bincount(jk, minlength=m_j).astype(float)
    units = None
    if unit is not None:
        units = sparse.csr_matrix((np.ones(n), (unit, jk)), shape=(int(unit.max()) + 1, m_j))
    sampler = SwapCountSampler(opts.seed, opts.n_resamples, c, units)

    def evaluate(s: np.ndarray) -> np.ndarray:
        keep = c[None, :] - s
        wa = to_a(keep) + to_b(s)
        wb = to_b(keep) + to_a(s)
        return ku.evaluate(wa) - ku.evaluate(wb)

    eng = opts.engine
    cost = 4.0 * m_j + 2.0 * m_u * ku.work_factor + (0 if units is None else units.shape[0])
    return run_replicates(
        evaluate,
        sampler,
        (),
        bytes_per_row=8.0 * cost,
        batch=eng.batch,
        n_jobs=eng.n_jobs,
        max_memory=eng.max_memory,
    )


def _null_by_masks(
    y_true: np.ndarray | None,
    pa: np.ndarray,
    pb: np.ndarray,
    metric: Any,
    params: dict[str, Any],
    unit: np.ndarray | None,
    opts: Any,
) -> np.ndarray:
    """Per-replicate path (user functions, or the rare built-in fallback)."""
    sampler = SwapMaskSampler(opts.seed, opts.n_resamples, len(pa), unit)
    shape = (-1,) + (1,) * (pa.ndim - 1)

    def evaluate(masks: np.ndarray) -> np.ndarray:
        out = np.empty(masks.shape[0])
        for r in range(masks.shape[0]):
            msk = masks[r].astype(bool).reshape(shape)
            a2 = np.where(msk, pb, pa)
            b2 = np.where(msk, pa, pb)
            out[r] = _value(metric, y_true, a2, params) - _value(metric, y_true, b2, params)
        return out

    eng = opts.engine
    return run_replicates(
        evaluate,
        sampler,
        (),
        bytes_per_row=8.0 * (1 + 2 * pa.size / max(len(pa), 1)) * len(pa),
        batch=eng.batch,
        n_jobs=eng.n_jobs,
        max_memory=eng.max_memory,
        threads=False,
    )


def _value(metric: Any, y_true: Any, pred: np.ndarray, params: dict[str, Any]) -> float:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if callable(metric):
                return float(metric(*kernel_data(y_true, pred), **params))
            k = get_kernel(metric, kernel_data(y_true, pred), params)
            w = np.bincount(k.keys, minlength=k.m)[None, :].astype(float)
            return float(k.evaluate(w)[0])
    except (ValueError, ZeroDivisionError, FloatingPointError):
        return float("nan")
