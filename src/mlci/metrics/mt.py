"""Corpus-level MT metrics from per-segment sufficient statistics: BLEU, chrF, WER.

A corpus BLEU or chrF is a function of the *sums* of per-segment statistics (n-gram
matches and totals, lengths), so a bootstrap replicate's score is that function of the
replicate-weighted sum: the metric is an :class:`~mlci.metrics._base.AdditiveKernel`, and
resampling is one matrix product over the weights.  The statistics themselves are
sacreBLEU's (``Metric._extract_corpus_statistics``, see :mod:`mlci.mt.stats`); the
functions below are sacreBLEU's ``BLEU.compute_bleu`` and ``CHRF._compute_f_score``
written over rows of summed statistics, operation for operation, so that each row equals
sacreBLEU's score of the same sums to rounding (tested to 1e-12 in tests/mt).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ._base import AdditiveKernel, safe_div
from .joint import _CACHE_ELEMENTS

#: relative step of the forward differences of the score in the summed statistics
_STEP = 1e-7

__all__ = [
    "BLEU_SMOOTH_DEFAULTS",
    "CorpusKernel",
    "bleu_from_stats",
    "bleu_kernel",
    "chrf_from_stats",
    "chrf_kernel",
    "wer_kernel",
]

#: sacreBLEU's ``BLEU.SMOOTH_DEFAULTS``: smoothing method -> default value
BLEU_SMOOTH_DEFAULTS: dict[str, float | None] = {
    "none": None,
    "floor": 0.1,
    "add-k": 1.0,
    "exp": None,
}
#: sacreBLEU's ``my_log(0)``: the log of a zero precision
_LOG_ZERO = -9999999999.0
#: chrF's smoothing of an empty precision or recall (sacreBLEU's ``eps``)
_CHRF_EPS = 1e-16


def _check_stats(stats: Any, name: str, width: int | None = None) -> np.ndarray:
    s = np.asarray(stats, dtype=float)
    if s.ndim != 2:
        raise ValueError(
            f"`stats` of {name!r} must be a 2-d array, one row of sufficient statistics per "
            f"segment (see mlci.mt.segment_statistics); got {s.ndim} dimension(s)."
        )
    if width is not None and s.shape[1] != width:
        raise ValueError(f"`stats` of {name!r} must have {width} columns; got {s.shape[1]}.")
    if not np.isfinite(s).all() or (s < 0).any():
        raise ValueError(f"`stats` of {name!r} must be non-negative counts.")
    return s


def _bleu_order(width: int, max_ngram_order: int | None) -> int:
    if width < 4 or width % 2:
        raise ValueError(
            "`stats` of 'bleu' must have 2 + 2 * max_ngram_order columns (hypothesis length, "
            "reference length, the matches and the totals of every order, as sacreBLEU's "
            f"BLEU statistics); got {width}."
        )
    order = (width - 2) // 2
    if max_ngram_order is not None and int(max_ngram_order) != order:
        raise ValueError(
            f"`max_ngram_order`={max_ngram_order!r} does not match `stats`, whose {width} "
            f"columns hold {order} orders."
        )
    return order


def bleu_from_stats(
    stats: Any,
    *,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> np.ndarray:
    """Corpus BLEU (0-100) of every row of summed statistics, as sacreBLEU computes it.

    Parameters
    ----------
    stats : array-like, shape (b, 2 + 2 * N)
        Summed sacreBLEU statistics ``[hyp_len, ref_len, correct_1..N, total_1..N]``.
    smooth_method : {"exp", "floor", "add-k", "none"}
        sacreBLEU's smoothing (``exp`` is its default, NIST's method).
    smooth_value : float, optional
        For ``floor`` and ``add-k`` (defaults 0.1 and 1).
    effective_order : bool
        Stop at the first order without any n-gram (sacreBLEU's ``effective_order``).

    Returns
    -------
    ndarray, shape (b,)

    Examples
    --------
    >>> float(bleu_from_stats([[10, 10, 10, 9, 8, 7, 10, 9, 8, 7]])[0])  # as sacreBLEU
    100.00000000000004
    """
    s = np.asarray(stats, dtype=float)
    if s.ndim == 1:
        s = s[None, :]
    order = _bleu_order(s.shape[1], None)
    if smooth_method not in BLEU_SMOOTH_DEFAULTS:
        raise ValueError(
            f"`smooth_method` must be one of {sorted(BLEU_SMOOTH_DEFAULTS)}; got {smooth_method!r}."
        )
    if smooth_value is None:
        smooth_value = BLEU_SMOOTH_DEFAULTS[smooth_method]
    sys_len, ref_len = s[:, 0], s[:, 1]
    correct = s[:, 2 : 2 + order].copy()
    total = s[:, 2 + order :].copy()
    b = s.shape[0]
    # brevity penalty: exp(1 - r / c) when c < r (0 when c = 0)
    short = sys_len < ref_len
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(
            short,
            np.where(sys_len > 0, np.exp(1.0 - ref_len / np.where(sys_len > 0, sys_len, 1.0)), 0.0),
            1.0,
        )
    any_match = (correct != 0).any(axis=1)  # sacreBLEU: no match at all -> 0 (#141)
    # sacreBLEU's loop over the orders, every order at once (the same operations on every
    # element: a chunk's rows cost ~30 array operations, not ~100)
    if smooth_method == "add-k" and order > 1:
        correct[:, 1:] += smooth_value
        total[:, 1:] += smooth_value
    counted = total != 0
    # the loop has not hit `break` yet: every order up to this one has n-grams
    alive = np.logical_and.accumulate(counted, axis=1)
    if effective_order:  # the last order before the break
        eff = alive.sum(axis=1).astype(float)
    else:
        eff = np.full(b, order, dtype=float)
    zero = alive & (correct == 0)
    tot = np.where(counted, total, 1.0)
    if smooth_method == "exp":  # NIST: the k-th zero precision is 1 / (2^k total)
        smooth_mteval = np.cumprod(np.where(zero, 2.0, 1.0), axis=1)
        p_zero: Any = 100.0 / (smooth_mteval * tot)
    elif smooth_method == "floor":
        p_zero = 100.0 * float(smooth_value or 0.0) / tot
    else:
        p_zero = 0.0
    precisions = np.where(alive, np.where(zero, p_zero, 100.0 * correct / tot), 0.0)
    # sum(my_log(p) for p in precisions[:eff]) / eff, summed in sacreBLEU's order
    with np.errstate(divide="ignore"):
        logp = np.where(
            precisions == 0.0, _LOG_ZERO, np.log(np.where(precisions == 0.0, 1.0, precisions))
        )
    acc = np.zeros(b)
    for n in range(order):
        acc = np.where(n < eff, acc + logp[:, n], acc)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = bp * np.exp(acc / np.where(eff > 0, eff, 1.0))
    # effective order 0 (no n-gram of order 1): sacreBLEU divides by zero; it only happens
    # without any match, where the score is 0 by the early stop
    return np.where(any_match, score, 0.0)


def chrf_from_stats(stats: Any, *, beta: float = 2, eps_smoothing: bool = False) -> np.ndarray:
    """Corpus chrF (0-100) of every row of summed statistics, as sacreBLEU computes it.

    Parameters
    ----------
    stats : array-like, shape (b, 3 * order)
        Summed sacreBLEU chrF statistics, ``[hyp, ref, match]`` for every character
        order then every word order.
    beta : float, default 2
    eps_smoothing : bool, default False
        sacreBLEU's option: chrF++.py's epsilon smoothing instead of the effective order.

    Examples
    --------
    >>> float(chrf_from_stats([[5, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0]])[0])
    100.0
    """
    s = np.asarray(stats, dtype=float)
    if s.ndim == 1:
        s = s[None, :]
    if s.shape[1] == 0 or s.shape[1] % 3:
        raise ValueError(
            "`stats` of 'chrf' must have 3 columns (hyp, ref, match) per n-gram order, as "
            f"sacreBLEU's chrF statistics; got {s.shape[1]}."
        )
    order = s.shape[1] // 3
    factor = beta**2
    b = s.shape[0]
    score = np.zeros(b)
    eff = np.zeros(b)
    avg_prec = np.zeros(b)
    avg_rec = np.zeros(b)
    for i in range(order):
        n_hyp, n_ref, n_match = s[:, 3 * i], s[:, 3 * i + 1], s[:, 3 * i + 2]
        prec = np.where(n_hyp > 0, n_match / np.where(n_hyp > 0, n_hyp, 1.0), _CHRF_EPS)
        rec = np.where(n_ref > 0, n_match / np.where(n_ref > 0, n_ref, 1.0), _CHRF_EPS)
        if eps_smoothing:
            denom = factor * prec + rec
            f = (1 + factor) * prec * rec / np.where(denom > 0, denom, 1.0)
            score = score + np.where(denom > 0, f, _CHRF_EPS)
        both = (n_hyp > 0) & (n_ref > 0)
        avg_prec = np.where(both, avg_prec + prec, avg_prec)
        avg_rec = np.where(both, avg_rec + rec, avg_rec)
        eff = eff + both
    if eps_smoothing:
        return 100 * score / order
    avg_prec = np.where(eff > 0, avg_prec / np.where(eff > 0, eff, 1.0), 0.0)
    avg_rec = np.where(eff > 0, avg_rec / np.where(eff > 0, eff, 1.0), 0.0)
    num = (1 + factor) * avg_prec * avg_rec
    den = (factor * avg_prec) + avg_rec
    ok = (avg_prec + avg_rec) != 0
    return np.where(ok, 100 * (num / np.where(ok, den, 1.0)), 0.0)


class CorpusKernel(AdditiveKernel):
    """A corpus score ``g(sum_i w_i s_i)`` of per-segment count statistics ``s_i`` (BLEU,
    chrF), with the fused forms of the linearized intervals.

    The influence of segment ``i`` in a replicate is ``s_i . grad g(S)``, so every
    replicate's standard error needs only the ``d``-vector ``grad g(S)`` (``d`` forward
    differences of ``g``, about 10 columns) and, for independent segments, one product
    of it with the atoms; over whole documents (conditions), with the documents' summed
    statistics: a replicate then costs products with a ``(n_documents x d)`` matrix, no
    pass over the segments.  The statistics are integer counts, so every sum is exact
    in any order and the fused values equal :meth:`evaluate`'s bit for bit.
    """

    def auto_method(self, plan: Any) -> tuple[str, str] | None:
        """``method="auto"`` over documents (conditions): the logit t interval.

        In the coverage study (docs/validation.md, "Corpus MT metrics and IR measures";
        1,000 draws of 10-200 documents each) it covered 0.937-0.959 for BLEU and
        0.942-0.964 for chrF, where the studentized interval covered 0.924-0.952 (0.924
        over 15 documents, 0.939 on average).  Over independent segments: None (the
        studentized interval, 0.952 over 400 segments).
        """
        if getattr(plan, "unit_of_sample", None) is None:
            return None
        return (
            "logit_t",
            "logit_t: a corpus score over documents (t interval on the logit scale with the "
            "CR2 standard error; in mlci's coverage study it held 0.937-0.964 over 10-200 "
            "documents, where the studentized interval covered 0.924-0.952)",
        )

    #: what the score function ``g`` is (metric and options): kernels with equal keys
    #: score their rows alike, so several systems' rows can be scored in one call
    score_key: tuple[Any, ...] | None = None

    def _mean_abs_atoms(self) -> np.ndarray:
        """``mean_k |atoms_k|`` per column (of the steps of :meth:`_sum_gradient`), once."""
        cached = getattr(self, "_abs_mean", None)
        if cached is None:
            cached = self._abs_mean = np.abs(self.atoms).mean(0)
        return cached

    def _steps(self, s: np.ndarray, total: np.ndarray | None) -> np.ndarray:
        """Forward-difference steps at the sums ``s`` (b, d): AdditiveKernel's (scaled by
        the replicate's size ``total``) for the linearization over atoms, else
        ``max(|s|, 1)`` times the relative step (whole units, the plain delta method)."""
        if total is None:
            return _STEP * np.maximum(np.abs(s), 1.0)
        scale = np.abs(s) + total * self._mean_abs_atoms()
        return _STEP * np.where(scale > 0, scale, 1.0)

    def gradient_rows(
        self, s: np.ndarray, total: np.ndarray | None = None
    ) -> tuple[np.ndarray, Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]]:
        """The rows to score for the values and the gradient at the sums ``s`` (b, d),
        and the function that turns their scores into ``(values (b,), gradient (b, d))``.

        The rows are ``s`` followed by its ``d`` copies shifted in one column each (forward
        differences, steps :meth:`_steps`): one call of ``g`` on ``(d + 1) b`` rows instead
        of one for the values and one for the differences (a score depends on its row
        only, so the numbers are those of separate calls).  :class:`JointAdditive` stacks
        several systems' rows into one call when their :attr:`score_key` agree.
        """
        b, d = s.shape
        h = self._steps(s, total)
        rows = np.repeat(s[None], d + 1, axis=0)  # (d + 1, b, d): 0 the sums, j + 1 shifted
        cols = np.arange(d)
        rows[cols + 1, :, cols] += h.T

        def finish(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            sc = scores.reshape(d + 1, b)
            values = sc[0]
            return values, np.ascontiguousarray(((sc[1:] - values) / h.T).T)

        return rows.reshape((d + 1) * b, d), finish

    def _values_gradient(
        self, s: np.ndarray, total: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(g(s), gradient of g at s)`` from one call of ``g``."""
        rows, finish = self.gradient_rows(s, total)
        return finish(self.g(rows))

    def _sum_gradient(self, s: np.ndarray, total: np.ndarray, values: np.ndarray) -> np.ndarray:
        # AdditiveKernel's steps (the linearization's numbers unchanged), one call of g
        return self._values_gradient(s, total)[1]

    def influence_moments(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(values, sum_k w_k z_k, sum_k w_k z_k^2)`` per row, ``z_k = atoms_k . grad``."""
        w = np.asarray(w, dtype=float)
        s = self._sums(w)
        values, grad = self._values_gradient(s)
        s1 = np.einsum("bd,bd->b", s, grad)
        s2 = np.empty(len(w))
        # by blocks of rows whose (rows, m) arrays stay in the cache (as JointAdditive)
        step = max(1, _CACHE_ELEMENTS // max(self.m, 1))
        for r in range(0, len(w), step):
            z = grad[r : r + step] @ self.atoms.T  # (rows, m)
            s2[r : r + step] = np.einsum("bm,bm->b", w[r : r + step], z * z)
        return values, s1, s2

    def whole_units(
        self,
        cell_unit: np.ndarray,
        cell_atom: np.ndarray,
        cell_count: np.ndarray,
        n_units: int,
    ) -> Any:
        """``f(U)``: the scores of the units' draw counts ``U`` (b, n_units) and every
        unit's summed influence ``(b, n_units)``, from the units' summed statistics."""
        t = np.zeros((int(n_units), self.atoms.shape[1]))
        np.add.at(
            t,
            np.asarray(cell_unit, dtype=np.intp),
            np.asarray(cell_count, dtype=float)[:, None]
            * self.atoms[np.asarray(cell_atom, dtype=np.intp)],
        )

        def f(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            values, grad = self._values_gradient(np.asarray(u, dtype=float) @ t)
            return values, grad @ t.T

        return f


def bleu_kernel(
    stats: Any,
    *,
    max_ngram_order: int | None = None,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> AdditiveKernel:
    """Corpus BLEU over per-segment sacreBLEU statistics ``(n, 2 + 2N)``: one atom per
    distinct row, the score of a replicate from its weighted column sums."""
    s = _check_stats(stats, "bleu")
    _bleu_order(s.shape[1], max_ngram_order)
    if smooth_method not in BLEU_SMOOTH_DEFAULTS:
        raise ValueError(
            f"`smooth_method` must be one of {sorted(BLEU_SMOOTH_DEFAULTS)}; got {smooth_method!r}."
        )
    if not isinstance(effective_order, bool | np.bool_):
        raise TypeError(f"`effective_order` must be True or False; got {effective_order!r}.")

    def g(sums: np.ndarray) -> np.ndarray:
        return bleu_from_stats(
            sums,
            smooth_method=smooth_method,
            smooth_value=smooth_value,
            effective_order=bool(effective_order),
        )

    kernel = CorpusKernel(s, g, (), "bleu")
    kernel.bounds = (0.0, 100.0)
    kernel.score_key = ("bleu", smooth_method, smooth_value, bool(effective_order))
    return kernel


def chrf_kernel(stats: Any, *, beta: float = 2, eps_smoothing: bool = False) -> AdditiveKernel:
    """Corpus chrF over per-segment sacreBLEU statistics ``(n, 3 * order)``."""
    s = _check_stats(stats, "chrf")
    if s.shape[1] == 0 or s.shape[1] % 3:
        raise ValueError(
            "`stats` of 'chrf' must have 3 columns (hyp, ref, match) per n-gram order, as "
            f"sacreBLEU's chrF statistics; got {s.shape[1]}."
        )
    value = float(beta) if isinstance(beta, (int, float, np.integer, np.floating)) else np.nan
    if isinstance(beta, (bool, np.bool_)) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"`beta` must be a positive number; got {beta!r}.")
    beta = value

    def g(sums: np.ndarray) -> np.ndarray:
        return chrf_from_stats(sums, beta=beta, eps_smoothing=bool(eps_smoothing))

    kernel = CorpusKernel(s, g, (), "chrf")
    kernel.bounds = (0.0, 100.0)
    kernel.score_key = ("chrf", beta, bool(eps_smoothing))
    return kernel


def _ratio(s: np.ndarray) -> np.ndarray:
    return safe_div(s[:, 0], s[:, 1])


def wer_kernel(words: Any, errors: Any) -> AdditiveKernel:
    """Corpus WER ``sum(errors) / sum(words)`` from per-utterance reference word counts and
    edit errors (substitutions + deletions + insertions).  Equal to ``weighted_mean`` with
    weights ``words`` and values ``errors / words``, but an utterance with no reference word
    (only insertions) is allowed."""
    w = np.asarray(words, dtype=float)
    e = np.asarray(errors, dtype=float)
    if (w < 0).any() or (e < 0).any():
        bad = "words" if (w < 0).any() else "errors"
        raise ValueError(f"`{bad}` of 'wer' must be non-negative counts.")
    if w.sum() == 0:
        raise ValueError("`words` of 'wer' sum to zero: the corpus has no reference word.")
    return AdditiveKernel(np.column_stack([e, w]), _ratio, (), "wer")
