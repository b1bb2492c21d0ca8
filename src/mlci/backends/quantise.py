"""Score quantisation for ranking metrics, and the error it certifies.

With ~n distinct float scores a ranking metric has ~n atoms, so its exact reduction is
the data itself.  Instead the scores are binned: a uniform grid of ``fine_bins`` bins is
counted in the engine (:func:`mlci.backends.reduction.score_histogram`), then adjacent
fine bins are merged into at most ``score_bins`` bins of about equal frequency
(:func:`coarse_edges`).  Binning is monotone, so every positive-negative pair in two
different bins keeps its order; only pairs inside one bin can change.  From the table:

* ROC AUC (Mann-Whitney form, ties count 1/2): a pair inside one bin counts 1/2 in the
  quantised AUC and 0, 1/2 or 1 in the exact one, so
  ``|AUC - AUC_q| <= 0.5 * sum_b P_b N_b / (P N)`` (:func:`auc_error_bound`);
* average precision (scikit-learn's step-wise sum over thresholds from the top): inside
  bin ``b`` the exact precision at every threshold lies between
  ``(TP + 1) / (S + 1 + N_b)`` and ``(TP + P_b) / (S + P_b)`` (``TP``, ``S``: positives and
  samples in the bins above), and so does the quantised one, so the error is at most
  ``sum_b P_b / P * (hi_b - lo_b)`` (:func:`ap_error_bound`).

A bin whose scores are all equal (its smallest and largest score coincide) makes no
error: its pairs are true ties.  Bounds hold for the estimate; a replicate's error has
the same form with its own counts.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ap_error_bound", "auc_error_bound", "coarse_edges", "coarse_index"]


def coarse_edges(
    fine_bin: np.ndarray, counts: np.ndarray, score_bins: int, fine_bins: int
) -> np.ndarray:
    """First fine bin of every coarse bin: equal-frequency merging of the fine bins.

    ``fine_bin`` (with repeats, one per label) and ``counts`` come from the histogram.
    The bins of ``-inf`` (``-1``) and ``+inf`` (``fine_bins``) are never merged with others.

    Examples
    --------
    >>> coarse_edges(np.array([0, 1, 2, 3]), np.array([5., 5., 5., 5.]), 2, 4).tolist()
    [0, 2]
    >>> coarse_edges(np.array([-1, 0, 1, 4]), np.array([1., 5., 5., 1.]), 1, 4).tolist()
    [-1, 0, 4]
    """
    uniq, inv = np.unique(fine_bin, return_inverse=True)
    per_bin = np.bincount(inv.reshape(-1), weights=counts, minlength=len(uniq))
    finite = (uniq >= 0) & (uniq < fine_bins)
    before = np.cumsum(np.where(finite, per_bin, 0.0)) - np.where(finite, per_bin, 0.0)
    total = max(float(per_bin[finite].sum()), 1.0)
    group = np.floor(before * score_bins / total).astype(np.int64)
    group = np.where(uniq < 0, -1, np.where(uniq >= fine_bins, score_bins, group))
    starts = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
    return uniq[starts].astype(np.int64)


def coarse_index(fine_bin: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Coarse bin (0-based) of fine bins, given :func:`coarse_edges`."""
    return np.searchsorted(edges, fine_bin, side="right").astype(np.int64) - 1


def _per_bin(
    coarse: np.ndarray, pos: np.ndarray, counts: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    k = int(coarse.max()) + 1
    p = np.bincount(coarse, weights=np.where(pos, counts, 0.0), minlength=k)
    n = np.bincount(coarse, weights=np.where(pos, 0.0, counts), minlength=k)
    bmin = np.full(k, np.inf)
    bmax = np.full(k, -np.inf)
    np.minimum.at(bmin, coarse, lo)
    np.maximum.at(bmax, coarse, hi)
    return p, n, bmin == bmax


def auc_error_bound(
    coarse: np.ndarray, pos: np.ndarray, counts: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> float:
    """Bound on ``|AUC - AUC_q|``: half the share of positive-negative pairs in one bin.

    Rows of the reduced table: coarse bin, positive or not, count, smallest and largest
    score of the row's samples.

    Examples
    --------
    >>> b = auc_error_bound(np.array([0, 0, 1]), np.array([True, False, True]),
    ...                     np.array([2., 2., 2.]), np.array([0., .1, .5]),
    ...                     np.array([.2, .3, .6]))
    >>> b   # the 2 x 2 pairs of bin 0 out of 4 x 2: half of 1/2
    0.25
    """
    p, n, single = _per_bin(coarse, pos, counts, lo, hi)
    denom = p.sum() * n.sum()
    if denom == 0:
        return float("nan")
    return float(0.5 * np.sum(np.where(single, 0.0, p * n)) / denom)


def ap_error_bound(
    coarse: np.ndarray, pos: np.ndarray, counts: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> float:
    """Bound on ``|AP - AP_q|`` (scikit-learn's average precision), from the same table.

    Examples
    --------
    >>> ap_error_bound(np.array([0, 1]), np.array([True, True]), np.array([1., 1.]),
    ...                np.array([0., 1.]), np.array([0., 1.]))   # single-valued bins
    0.0
    """
    p, n, single = _per_bin(coarse, pos, counts, lo, hi)
    total_pos = p.sum()
    if total_pos == 0:
        return float("nan")
    # bins from the highest score down: positives and samples in the bins above
    p_desc, n_desc, single_desc = p[::-1], n[::-1], single[::-1]
    tp_above = np.concatenate(([0.0], np.cumsum(p_desc)[:-1]))
    s_above = np.concatenate(([0.0], np.cumsum(p_desc + n_desc)[:-1]))
    has = (p_desc > 0) & ~single_desc
    with np.errstate(invalid="ignore", divide="ignore"):
        high = (tp_above + p_desc) / (s_above + p_desc)
        low = (tp_above + 1.0) / (s_above + 1.0 + n_desc)
    err = np.where(has, p_desc / total_pos * (high - low), 0.0)
    return float(np.sum(err))
