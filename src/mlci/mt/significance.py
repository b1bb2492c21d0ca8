"""sacreBLEU's paired tests (``sacrebleu --paired-bs`` and ``--paired-ar``) on statistics.

The same draws, statistics and p-values as ``sacrebleu/significance.py`` (2.x), with the
corpus scores of every replicate computed at once from weighted sums of the per-segment
statistics (a matrix product) instead of one Python call per replicate:

* **paired bootstrap** (Koehn 2004): ``rng = default_rng(seed)``, resample indices
  ``rng.choice(n, size=(B, n))`` shared by every system; for each system the replicate
  scores ``s*``; ``diff = |score_sys - score_base|``; ``d* = |s*_sys - s*_base|``;
  ``p = (#{d* - mean(d*) > diff} + 1) / (B + 1)``.  Each system's ``mean`` is the mean
  of its replicate scores and ``ci`` half the width between the sorted replicates
  ``B // 40`` and ``B - B // 40 - 1`` (sacreBLEU's "95% CI" ``mean ± ci``).
* **paired approximate randomization** (Riezler & Maxwell 2005): ``rng =
  default_rng(seed)``, swap masks ``rng.integers(2, size=(B, n), dtype=bool)``;
  ``p = (#{|s_a - s_b| > diff} + 1) / (B + 1)`` over the two shuffled pseudo-systems.

With ``seed=12345`` (sacreBLEU's default ``SACREBLEU_SEED``) the resamples are
sacreBLEU's own.  sacreBLEU (with numpy >= 2) scores its bootstrap replicates from
float32 statistics, so its per-replicate precisions carry float32 rounding (about 1e-6
BLEU); mlci scores the exact integer sums in float64, equal to sacreBLEU's
``_compute_score_from_stats`` of the same sums to 1e-12.

``conditions`` (documents) draws or swaps whole documents instead of segments, at the
same cost: the statistics are first summed per document.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..classical.corrections import CORRECTION_METHODS, adjust_pvalues
from ..inputs import check_choice, check_positive_int, column
from ..metrics.mt import bleu_from_stats, chrf_from_stats
from ..results import Result, format_value, plain

__all__ = [
    "MTPairedTest",
    "paired_test",
    "resample_counts",
    "sacrebleu_ci",
]

#: the tests: mlci's name -> sacreBLEU's option
TESTS = {"paired-bs": "--paired-bs", "paired-ar": "--paired-ar"}


@dataclass(frozen=True, kw_only=True, repr=False)
class MTPairedTest(Result):
    """sacreBLEU-style paired test of systems against a baseline.

    Attributes
    ----------
    variant : {"paired-bs", "paired-ar"}
    metric : str
    baseline : str
    systems : tuple of str
        The baseline first, as sacreBLEU prints them.
    scores : ndarray
        Corpus score of every system.
    pvalues : ndarray
        p-value of every system against the baseline (NaN for the baseline).
    pvalues_adjusted : ndarray
        ``pvalues`` adjusted with ``correction`` over the systems (equal to ``pvalues``
        with ``correction="none"``, sacreBLEU's report).
    means, ci : ndarray or None
        Paired bootstrap only: mean of the replicate scores and sacreBLEU's CI half-width.
    n_resamples : int
    correction : str
    replicates : ndarray or None
        Paired bootstrap only: every replicate's score of every system, (B, n_systems).
    details : dict
    """

    variant: str
    metric: str
    baseline: str
    systems: tuple[str, ...]
    scores: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    means: np.ndarray | None
    ci: np.ndarray | None
    n_resamples: int
    correction: str = "none"
    replicates: np.ndarray | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        parts = []
        for i, s in enumerate(self.systems):
            txt = f"{s}: {format_value(self.scores[i])}"
            if i > 0:
                txt += f" (p={format_value(self.pvalues[i])})"
            parts.append(txt)
        return f"MTPairedTest(variant={self.variant!r}, metric={self.metric!r}, {'; '.join(parts)})"

    def rows(self) -> list[dict[str, Any]]:
        """One row per system: ``system``, ``score``, (``mean``, ``ci``), ``pvalue``,
        ``pvalue_adjusted``."""
        out = []
        for i, s in enumerate(self.systems):
            row: dict[str, Any] = {
                "system": s,
                "metric": self.metric,
                "score": float(self.scores[i]),
            }
            if self.means is not None and self.ci is not None:
                row["mean"] = float(self.means[i])
                row["ci"] = float(self.ci[i])
            row["pvalue"] = plain(self.pvalues[i]) if i else None
            row["pvalue_adjusted"] = plain(self.pvalues_adjusted[i]) if i else None
            out.append(row)
        return out


def _scorer(metric: str, metric_kwargs: Mapping[str, Any]) -> Any:
    allowed: tuple[str, ...]
    fn: Callable[..., np.ndarray]
    if metric == "bleu":
        allowed = ("smooth_method", "smooth_value", "effective_order")
        fn = bleu_from_stats
    elif metric == "chrf":
        allowed = ("beta", "eps_smoothing")
        fn = chrf_from_stats
    else:
        raise ValueError(f"`metric` must be 'bleu' or 'chrf'; got {metric!r}.")
    unknown = sorted(set(metric_kwargs) - set(allowed))
    if unknown:
        raise ValueError(
            f"Option(s) {', '.join(f'`{u}`' for u in unknown)} do not change the score of "
            f"{metric!r} from its statistics (its options: {', '.join(allowed)}); "
            "statistics options (tokenize, lowercase, ...) go to mlci.mt.segment_statistics."
        )
    return lambda s: fn(s, **metric_kwargs)


def sacrebleu_ci(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """sacreBLEU's ``estimate_ci`` along axis 0: ``(mean, half-width)`` with the bounds the
    sorted replicates ``B // 40`` and ``B - B // 40 - 1``.

    Examples
    --------
    >>> m, h = sacrebleu_ci(np.arange(40.0)[:, None])
    >>> float(m[0]), float(h[0])
    (19.5, 18.5)
    """
    s = np.sort(np.asarray(scores, dtype=float), axis=0)
    b = s.shape[0]
    lo = b // 40
    hi = b - lo - 1
    return s.mean(axis=0), 0.5 * (s[hi] - s[lo])


def resample_counts(
    rng: np.random.Generator, n: int, size: int, chunk: int, dtype: Any = float
) -> Any:
    """Yield the counts ``(b, n)`` of sacreBLEU's resample indices ``rng.choice(n, size=(size,
    n))``, drawn ``chunk`` rows at a time (the same stream as one call: tested).

    Counted row by row above 512 units (a row's counts stay in the cache; about twice as
    fast as one ``bincount`` over the whole chunk at 3,000 segments), over the whole chunk
    with row offsets below (fewer calls)."""
    done = 0
    while done < size:
        b = min(chunk, size - done)
        idx = rng.choice(n, size=(b, n), replace=True)
        if n > 512:
            counts = np.empty((b, n), dtype=dtype)
            for r in range(b):
                counts[r] = np.bincount(idx[r], minlength=n)
        else:
            flat = (idx + (np.arange(b) * n)[:, None]).ravel()
            counts = np.bincount(flat, minlength=b * n).reshape(b, n).astype(dtype)
        yield counts
        done += b


def _exact_dtype(stats: np.ndarray, n: int) -> Any:
    """float32 when every weighted sum of ``stats`` with non-negative integer weights summing
    to ``n`` (a resample's counts), and every partial sum of it, is an integer below 2^24,
    exact in float32 whatever the summation order: the product is then the same as in
    float64, at half the memory traffic.  float64 otherwise."""
    top = float(np.abs(stats).max(initial=0.0)) * n
    exact = bool(np.all(stats == np.rint(stats))) and top < 2.0**24
    return np.float32 if exact else np.float64


def _one_blas_thread() -> Any:
    """One BLAS thread for the resampling's products (``threadpoolctl``, when installed).

    The products are narrow (b x n counts times n x d statistics, d about 20): one thread
    does them in about 15 ms per 10^7 draws, while OpenBLAS's own threads, on a busy
    2-core machine, spent up to ten times that CPU time waiting for each other."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - optional (it comes with scikit-learn)
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


#: draws per chunk of resamples or swap masks (8 MiB of indices: small enough to stay in
#: the cache, large enough that the per-chunk overhead does not count)
CHUNK_DRAWS = 1 << 20


def _chunk_rows(n: int, n_resamples: int) -> int:
    """Rows of about :data:`CHUNK_DRAWS` draws per chunk, a multiple of 32 draws: numpy's
    boolean draws (the swap masks of the approximate randomization) take 32 random bits at
    a time and drop the unused ones when a call ends, so only chunks of whole 32-bit words
    continue the stream of sacreBLEU's single call (tested).  The resample indices of the
    bootstrap continue it with chunks of any size (the bit generator keeps the spare half
    of a 64-bit draw between calls)."""
    step = 32 // math.gcd(n, 32)
    rows = max(step, CHUNK_DRAWS // max(n, 1) // step * step)
    return min(rows, n_resamples)


def paired_test(
    stats: Mapping[str, Any],
    *,
    metric: str = "bleu",
    baseline: str | None = None,
    variant: str = "paired-bs",
    n_resamples: int | None = None,
    conditions: Any = None,
    correction: str = "none",
    rng: Any = 12345,
    metric_kwargs: Mapping[str, Any] | None = None,
) -> MTPairedTest:
    """sacreBLEU's paired bootstrap or approximate randomization test, from statistics.

    Parameters
    ----------
    stats : dict of str -> array-like, shape (n_segments, d)
        Every system's per-segment statistics (:func:`mlci.mt.segment_statistics`), the
        baseline among them.
    metric : {"bleu", "chrf"}
    baseline : str, optional
        The baseline system (default: the first, as sacreBLEU's first ``-i`` file).
    variant : {"paired-bs", "paired-ar"}
        ``sacrebleu --paired-bs`` (Koehn 2004) or ``--paired-ar`` (Riezler & Maxwell 2005).
    n_resamples : int, optional
        Resamples or trials; sacreBLEU's defaults: 1000 (bs), 10000 (ar).
    conditions : array-like, shape (n_segments,), optional
        Document of every segment: whole documents are drawn (bs) or swapped (ar).
    correction : str, default "none"
        Adjust the p-values over the systems (``"holm"``, ``"bonferroni"``, ... see
        :func:`mlci.adjust_pvalues`); sacreBLEU reports them unadjusted.
    rng : int, Generator or None, default 12345
        The seed of ``numpy.random.default_rng``; 12345 is sacreBLEU's default
        ``SACREBLEU_SEED``, so the resamples are sacreBLEU's.
    metric_kwargs : dict, optional
        Score options (``smooth_method``, ``smooth_value``, ``effective_order``; chrF's
        ``beta``, ``eps_smoothing``).

    Returns
    -------
    MTPairedTest

    Examples
    --------
    >>> from mlci.mt import synthetic_corpus, system_statistics
    >>> c = synthetic_corpus(200, rng=0)
    >>> st = system_statistics(c.systems, c.references)
    >>> res = paired_test(st, variant="paired-bs", n_resamples=1000)
    >>> res.systems, bool(0 < res.pvalues[1] <= 1)
    (('sys0', 'sys1'), True)
    """
    check_choice("variant", variant, tuple(TESTS))
    if not isinstance(stats, Mapping) or len(stats) < 2:
        raise ValueError(
            "`stats` must be a dict of at least two systems' statistics (a baseline and a "
            "system to test)."
        )
    names = [str(k) for k in stats]
    mats = []
    for k, v in stats.items():
        a = np.asarray(v, dtype=float)
        if a.ndim != 2 or not np.isfinite(a).all() or (a < 0).any():
            raise ValueError(
                f"`stats`[{k!r}] must be a 2-d array of non-negative counts, one row per "
                "segment (mlci.mt.segment_statistics)."
            )
        mats.append(a)
    if len({a.shape for a in mats}) > 1:
        raise ValueError(
            f"`stats`: the systems' statistics differ in shape ({[a.shape for a in mats]}); "
            "every system must be scored on the same segments with the same options."
        )
    if baseline is None:
        baseline = names[0]
    if str(baseline) not in names:
        raise ValueError(f"`baseline`={baseline!r} is not among the systems {names}.")
    order = [names.index(str(baseline))] + [
        i for i in range(len(names)) if names[i] != str(baseline)
    ]
    names = [names[i] for i in order]
    mats = [mats[i] for i in order]
    key = metric.lower() if isinstance(metric, str) else metric
    score = _scorer(key, dict(metric_kwargs or {}))
    check_choice("correction", correction, CORRECTION_METHODS)
    if n_resamples is None:
        n_resamples = 1000 if variant == "paired-bs" else 10000
    n_resamples = check_positive_int("n_resamples", n_resamples)
    gen = rng if isinstance(rng, np.random.Generator) else _default_rng(rng)
    n = mats[0].shape[0]
    units = None
    if conditions is not None:
        cond = column("conditions", conditions, "groups")
        if len(cond) != n:
            raise ValueError(
                f"`conditions` must have one value per segment ({n}); got {len(cond)}."
            )
        _, units = np.unique(cond, return_inverse=True)
        n_units = int(units.max()) + 1
        if n_units < 2:
            raise ValueError("`conditions` has a single document: nothing to resample.")
        # sum the statistics per document: a document is the unit drawn or swapped
        mats = [
            np.vstack(
                [np.bincount(units, weights=a[:, j], minlength=n_units) for j in range(a.shape[1])]
            ).T
            for a in mats
        ]
        n = n_units
    totals = np.array([a.sum(axis=0) for a in mats])
    scores = score(totals)
    if np.isnan(scores).any():
        raise ValueError(f"The {key!r} score is undefined on the statistics as given.")
    pvalues = np.full(len(names), np.nan)
    means = ci = reps = None
    chunk = _chunk_rows(n, n_resamples)
    with _one_blas_thread():
        if variant == "paired-bs":
            reps = np.empty((n_resamples, len(names)))
            # every system's statistics side by side: one product per chunk gives them all
            stacked = np.hstack(mats)
            dtype = _exact_dtype(stacked, n)
            stacked = stacked.astype(dtype)
            width = mats[0].shape[1]
            start = 0
            for w in resample_counts(gen, n, n_resamples, chunk, dtype):
                b = w.shape[0]
                sums = (w @ stacked).astype(float)
                for s in range(len(mats)):
                    reps[start : start + b, s] = score(sums[:, s * width : (s + 1) * width])
                start += b
            means, ci = sacrebleu_ci(reps)
            for s in range(1, len(names)):
                diff = abs(scores[0] - scores[s])
                d = np.abs(reps[:, s] - reps[:, 0])
                c = int(np.sum((d - d.mean()) > diff))
                pvalues[s] = (c + 1) / (n_resamples + 1)
        else:
            base = mats[0]
            for s in range(1, len(names)):
                diff = abs(scores[0] - scores[s])
                delta = base - mats[s]
                dtype = _exact_dtype(delta, n)
                delta = delta.astype(dtype)
                count = 0
                # sacreBLEU draws one mask matrix per system, each from a fresh default_rng(seed)
                g = gen if s == 1 or isinstance(rng, np.random.Generator) else _default_rng(rng)
                done = 0
                while done < n_resamples:
                    b = min(chunk, n_resamples - done)
                    pos = g.integers(2, size=(b, n), dtype=bool)
                    shifted = (pos.astype(dtype) @ delta).astype(float)
                    a_sums = totals[s] + shifted  # pos: baseline's segment, else the system's
                    b_sums = totals[0] - shifted
                    count += int(np.sum(np.abs(score(a_sums) - score(b_sums)) > diff))
                    done += b
                pvalues[s] = (count + 1) / (n_resamples + 1)
    adjusted = pvalues.copy()
    if len(names) > 1:
        adjusted[1:] = adjust_pvalues(pvalues[1:], correction)
    details: dict[str, Any] = {"n_segments": int(mats[0].shape[0]) if units is None else len(units)}
    if units is not None:
        details["n_conditions"] = n
    return MTPairedTest(
        variant=variant,
        metric=key,
        baseline=names[0],
        systems=tuple(names),
        scores=scores,
        pvalues=pvalues,
        pvalues_adjusted=adjusted,
        means=means,
        ci=ci,
        n_resamples=n_resamples,
        correction=correction,
        replicates=reps,
        details=details,
    )


def _default_rng(rng: Any) -> np.random.Generator:
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, bool) or not isinstance(rng, int | np.integer | np.random.SeedSequence):
        raise TypeError(
            f"`rng` must be an int seed (sacreBLEU's default is 12345), a numpy Generator or "
            f"None; got {type(rng).__name__}."
        )
    if isinstance(rng, int | np.integer) and rng < 0:
        raise ValueError(f"`rng` must be a non-negative seed; got {rng}.")
    return np.random.default_rng(rng)
