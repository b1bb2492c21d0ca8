"""A ROC AUC near 1 whose error rests on few misranked samples (session 11, lead).

Average precision's mechanism (:mod:`mlci.engine.ap_misranked`) for the ROC AUC: near
AUC = 1 with many samples in both classes, ``1 - AUC`` is the share of misranked pairs,
which rest on the few positives that some negative outranks and the few negatives that
outrank some positive.  The bootstrap's spread follows how many of them the test set
happens to hold: a test set with fewer gets an estimate too close to 1 and a narrower
interval, and the interval misses from above.  The design search's seed 14 confirmed it
for seed-13 #20's population (about 1,810 positives, 1 - AUC = 6.9e-5, iid):
``bootstrap_ci(metric="roc_auc")`` covered 0.893 of 300 test sets (warned in 19),
``auc_ci`` 0.863 (warned in none).  The score-type interval that ``auto`` gives with
fewer than :data:`~mlci.engine.auc_analytic.MIN_AUC_CLASS_SCORE_EDGE` samples in the
smaller class covers there, but at 1.9-7.9 times the width; no interval held its level,
so the rule warns.  Calibration: ``scripts/auc_misranked_study.py``
(``scripts/data/auc_misranked_study.json``; docs/validation.md, "A test set without an
error, and the ROC AUC's misranked samples (session 11, lead)").

Over conditions (session 12, aucedge; ``scripts/auc_edge_study.py``, docs/validation.md,
"The ROC AUC near 1 over conditions: BCa or t") ``auto`` gives BCa to one ROC AUC whose
misordered pairs are many but rest on misranked samples of one class in a few conditions
(:func:`misordered_few_conditions_bca`: the logit t interval's upper end stopped short
there), and to a paired difference of two AUCs near 1 whose worse system has few
misordered pairs (:func:`few_misordered_pairs`: the t interval's upper end stopped short;
seed-16 #57, 0.580 -> 0.683 of 300 test sets, BCa 0.673).  On independent samples
(session 12, aucpair18; ``scripts/auc_pair18_study.py``) the same holds with up to
:data:`MAX_IID_MISORDERED_PER_SAMPLE` misordered pairs per sample of the smaller class
(:func:`few_misordered_pairs_iid`; seed-18 #24: 21 test sets gained, none lost).  No
interval holds its level there; the warnings stay.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import NearBoundWarning
from ..feedback import warn
from .auc_analytic import MIN_AUC_CLASS_SCORE_EDGE
from .clustered_class import class_sizes

__all__ = [
    "AUC_MISRANKED_BAND",
    "MAX_BCA_MISRANKED_CONDITIONS",
    "MAX_IID_MISORDERED_PER_SAMPLE",
    "MAX_PAIRED_MISORDERED",
    "MIN_BCA_CONDITIONS",
    "MIN_BCA_MISORDERED",
    "MIN_MISRANKED_AUC",
    "MIN_PAIRED_AUC_CONDITIONS",
    "MIN_PAIRED_SMALLER_CLASS",
    "PAIRED_AUC_BAND",
    "few_misordered_pairs",
    "few_misordered_pairs_iid",
    "few_misordered_pairs_iid_reason",
    "few_misordered_pairs_reason",
    "few_misranked_auc_rule",
    "misordered_few_conditions_bca",
    "misordered_pair_count",
    "misranked_conditions",
    "misranked_counts",
    "warn_few_misranked_auc",
]

#: fewer misranked positives or negatives than this (the smaller count) warns.  In the
#: study (300 test sets a row) the warned test sets covered 0.917, 0.913 and 0.679 at
#: 1 - AUC = 6.9e-5, 2e-4 and 6e-4 (warned in 97%, 69% and 9% of them; 24 of 25, 18 of 24
#: and 9 of 20 misses warned) and the unwarned ones 0.900 (9 test sets), 0.936 and 0.960;
#: at 3e-3 none warned (0.937).  60 left 9 of 24 misses unwarned at 2e-4, 150 warned 32%
#: of the test sets at 6e-4, whose design held (0.933)
MIN_MISRANKED_AUC = 100
#: the rule's range: an AUC within this distance of 1 (or of 0)
AUC_MISRANKED_BAND = 0.01


def misranked_counts(u_neg: Any, c_neg: Any, u_pos: Any, c_pos: Any) -> tuple[int, int]:
    """``(misranked positives, misranked negatives)``: positives scored at or below the
    highest negative score, negatives at or above the lowest positive score, from each
    class's sorted distinct scores ``u`` and their sample counts ``c`` (absent atoms
    have count 0).

    Examples
    --------
    >>> misranked_counts([0.1, 0.6], [1, 1], [0.5, 0.7, 0.9], [1, 1, 1])
    (1, 1)
    """
    u_neg, c_neg = np.asarray(u_neg, dtype=float), np.asarray(c_neg, dtype=float)
    u_pos, c_pos = np.asarray(u_pos, dtype=float), np.asarray(c_pos, dtype=float)
    neg, pos = np.flatnonzero(c_neg > 0), np.flatnonzero(c_pos > 0)
    if neg.size == 0 or pos.size == 0:
        return 0, 0
    top_negative, low_positive = u_neg[neg[-1]], u_pos[pos[0]]
    mis_pos = float(c_pos[u_pos <= top_negative].sum())
    mis_neg = float(c_neg[u_neg >= low_positive].sum())
    return round(mis_pos), round(mis_neg)


def few_misranked_auc_rule(
    estimate: Any, misranked: tuple[int, int] | None, few: Any = MIN_AUC_CLASS_SCORE_EDGE
) -> bool:
    """Whether a ROC AUC ``estimate`` within :data:`AUC_MISRANKED_BAND` of its bound rests
    on fewer than :data:`MIN_MISRANKED_AUC` misranked positives or negatives (the smaller
    of the two ``misranked`` counts; an AUC near 0 reads them with the classes' roles
    swapped, which leaves the counts as they are), with ``few``, the smaller class, at
    least :data:`~mlci.engine.auc_analytic.MIN_AUC_CLASS_SCORE_EDGE` (below it ``auto``
    gives the score-type interval near the bound, with its own warning).

    Examples
    --------
    >>> few_misranked_auc_rule(0.99993, (27, 30)), few_misranked_auc_rule(0.997, (27, 30))
    (True, True)
    >>> few_misranked_auc_rule(0.985, (27, 30)), few_misranked_auc_rule(0.9999, (150, 400))
    (False, False)
    >>> few_misranked_auc_rule(0.99993, (27, 30), few=300)
    False
    """
    if misranked is None or estimate is None or np.ndim(estimate) != 0:
        return False
    if few is None or few < MIN_AUC_CLASS_SCORE_EDGE:
        return False
    est = float(estimate)
    if not np.isfinite(est) or min(est, 1.0 - est) >= AUC_MISRANKED_BAND:
        return False
    return min(misranked) < MIN_MISRANKED_AUC


def warn_few_misranked_auc(
    estimate: Any,
    misranked: tuple[int, int] | None,
    method: str | None = None,
    before: Any = (),
    few: Any = MIN_AUC_CLASS_SCORE_EDGE,
) -> str | None:
    """Warn (:class:`~mlci.exceptions.NearBoundWarning`) and return the message where
    :func:`few_misranked_auc_rule` holds; ``before``: earlier messages put first.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     text = warn_few_misranked_auc(0.99993, (27, 30), "studentized")
    >>> text.split(" whose")[0], w[0].category.__name__
    ('A ROC AUC of 0.99993', 'NearBoundWarning')
    >>> warn_few_misranked_auc(0.95, (27, 30)) is None
    True
    """
    if not few_misranked_auc_rule(estimate, misranked, few):
        return None
    assert misranked is not None
    found = (
        f"A ROC AUC of {float(estimate):.6g} whose error rests on {misranked[0]} positives "
        f"outranked by some negative and {misranked[1]} negatives outranking some positive "
        f"(fewer than {MIN_MISRANKED_AUC} of either, within {AUC_MISRANKED_BAND:g} of the "
        "bound): the bootstrap's spread follows how many such samples the test set holds, "
        "and in mlci's study (docs/validation.md, 'A test set without an error, and the ROC "
        "AUC's misranked samples') such test sets covered 0.68-0.92 (the score-type "
        "interval held, at 2-8 times the width)"
    )
    which = f"The {method} interval" if method else "The interval"
    text = (
        "; ".join([*before, found])
        + f". {which} of the ROC AUC may not keep its confidence level: treat it as "
        "optimistic, or collect more data."
    )
    warn(text, NearBoundWarning)
    return text


#: a ROC AUC over conditions within :data:`AUC_MISRANKED_BAND` of 1 with at least this
#: many misordered (positive, negative) pairs ...
MIN_BCA_MISORDERED = 10.0
#: ... whose misranked samples of one class lie in at most this many conditions gets BCa
#: under ``"auto"`` (:func:`misordered_few_conditions_bca`; session 12, aucedge:
#: ``scripts/auc_edge_study.py``, docs/validation.md, "The ROC AUC near 1 over conditions:
#: BCa or t")
MAX_BCA_MISRANKED_CONDITIONS = 3
#: ... over at least this many conditions (over 10, where a class's misranked samples lie
#: in 3 conditions or fewer by chance, BCa lost 25 test sets of 200 at 1 - AUC = 3e-5)
MIN_BCA_CONDITIONS = 30


def misordered_pair_count(kernel: Any) -> float | None:
    """The number of misordered (positive, negative) pairs of a ROC AUC kernel on its
    data, ``(1 - AUC) n_pos n_neg`` (a tie counts half); None for another kernel.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.metrics.ranking import RocAucKernel
    >>> k = RocAucKernel(np.array([0, 0, 1, 1]), np.array([0.1, 0.6, 0.5, 0.9]), 1)
    >>> misordered_pair_count(k)
    1.0
    """
    m_neg = getattr(kernel, "m_neg", None)
    u_neg, u_pos = getattr(kernel, "u_neg", None), getattr(kernel, "u_pos", None)
    if getattr(kernel, "name", None) != "roc_auc" or m_neg is None or u_pos is None:
        return None
    u_neg, u_pos = np.asarray(u_neg, dtype=float), np.asarray(u_pos, dtype=float)
    counts = np.bincount(np.asarray(kernel.keys), minlength=kernel.m).astype(float)
    c_neg, c_pos = counts[:m_neg], counts[m_neg:]
    # negatives strictly above each positive atom, and tied with it
    upto = np.searchsorted(u_neg, u_pos, side="right")
    below_or_at = np.concatenate([[0.0], np.cumsum(c_neg)])[upto]
    at = np.searchsorted(u_neg, u_pos, side="left")
    tied = below_or_at - np.concatenate([[0.0], np.cumsum(c_neg)])[at]
    above = c_neg.sum() - below_or_at
    return float(np.sum(c_pos * (above + 0.5 * tied)))


def misranked_conditions(kernel: Any, unit: Any) -> tuple[int, int]:
    """``(conditions, conditions)`` holding the misranked positives and the misranked
    negatives (:func:`misranked_counts`) of a ROC AUC kernel, ``unit`` each sample's
    condition.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.metrics.ranking import RocAucKernel
    >>> k = RocAucKernel(np.array([0, 0, 0, 1, 1]), np.array([0.1, 0.6, 0.7, 0.5, 0.9]), 1)
    >>> misranked_conditions(k, np.array([0, 1, 2, 0, 1]))
    (1, 2)
    """
    keys, m_neg = np.asarray(kernel.keys), kernel.m_neg
    unit = np.asarray(unit)
    neg = keys < m_neg
    top_negative, low_positive = (
        kernel.u_neg[keys[neg].max()],
        kernel.u_pos[keys[~neg].min() - m_neg],
    )
    score = np.where(neg, kernel.u_neg[np.minimum(keys, m_neg - 1)], 0.0)
    score[~neg] = kernel.u_pos[keys[~neg] - m_neg]
    mis_pos = ~neg & (score <= top_negative)
    mis_neg = neg & (score >= low_positive)
    return int(np.unique(unit[mis_pos]).size), int(np.unique(unit[mis_neg]).size)


def misordered_few_conditions_bca(kernel: Any, plan: Any, few: Any) -> str | None:
    """``method_reason`` of BCa for a single ROC AUC over conditions within
    :data:`AUC_MISRANKED_BAND` of 1 with :data:`MIN_BCA_MISORDERED` misordered pairs or
    more whose misranked positives, or misranked negatives, lie in at most
    :data:`MAX_BCA_MISRANKED_CONDITIONS` conditions (of :data:`MIN_BCA_CONDITIONS` or
    more), with at least ``few`` samples in the
    smaller class (the caller passes the class size from which the studentized interval
    falls back to the logit t near the edge); else None.

    Many misordered pairs resting on a few conditions is a test set whose error comes
    from an outlying sample or condition: resamples without it give an AUC of 1, the
    studentized interval gives way to the logit t one, whose upper end stops short of a
    truth nearer 1, where BCa's reaches it.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from mlci.metrics.ranking import RocAucKernel
    >>> y = np.r_[np.zeros(2000), np.ones(2000)]
    >>> s = np.r_[np.linspace(0, 1, 2000), np.linspace(2, 3, 2000)]
    >>> s[0] = 2.01  # one negative outranks 10 positives
    >>> k = RocAucKernel(y, s)
    >>> plan = SimpleNamespace(unit_of_sample=np.arange(4000) % 40)
    >>> misordered_few_conditions_bca(k, plan, 10).split(":")[0]
    'bca'
    >>> misordered_few_conditions_bca(k, SimpleNamespace(unit_of_sample=None), 10) is None
    True
    """
    unit = getattr(plan, "unit_of_sample", None)
    if unit is None or getattr(kernel, "shape", None) != ():
        return None
    mis = misordered_pair_count(kernel)
    if mis is None or len(np.asarray(unit)) != len(np.asarray(kernel.keys)):
        return None
    if np.unique(np.asarray(unit)).size < MIN_BCA_CONDITIONS:
        return None
    counts = np.bincount(np.asarray(kernel.keys), minlength=kernel.m)
    n_neg, n_pos = float(counts[: kernel.m_neg].sum()), float(counts[kernel.m_neg :].sum())
    if min(n_neg, n_pos) < few or mis < MIN_BCA_MISORDERED:
        return None
    if mis >= AUC_MISRANKED_BAND * n_neg * n_pos:  # 1 - AUC beyond the band
        return None
    fewest = min(misranked_conditions(kernel, unit))
    if fewest > MAX_BCA_MISRANKED_CONDITIONS:
        return None
    return (
        f"bca: a ROC AUC over conditions within {AUC_MISRANKED_BAND:g} of 1 whose "
        f"{mis:.3g} misordered (positive, negative) pairs ({MIN_BCA_MISORDERED:.3g} or more) "
        f"rest on misranked samples of one class in {fewest} condition(s) (at most "
        f"{MAX_BCA_MISRANKED_CONDITIONS}), where the logit t interval's upper end stopped "
        "short of the truth and BCa's did not (docs/validation.md, 'The ROC AUC near 1 over "
        "conditions: BCa or t'); no interval holds its level there"
    )


#: a paired ROC AUC difference over conditions whose two systems are within
#: :data:`PAIRED_AUC_BAND` of 1 and whose worse system has fewer misordered pairs than
#: this gets BCa under ``"auto"`` (:func:`few_misordered_pairs`; session 12, aucedge)
MAX_PAIRED_MISORDERED = 50.0
#: ... within this distance of 1: seed-4 #15 (AUC 0.987 from ~18 positives over 21
#: conditions, t 0.907, BCa 0.793) lost 7 test sets and gained 2 with the 0.01 band
PAIRED_AUC_BAND = 0.002
#: ... over at least this many conditions, with at least
#: :data:`MIN_PAIRED_SMALLER_CLASS` samples in the smaller class: seed-5 #4 (6 conditions,
#: ~7 positives, both systems at 0-2 misordered pairs) had t 0.267 and BCa 0.167
MIN_PAIRED_AUC_CONDITIONS = 12
MIN_PAIRED_SMALLER_CLASS = 10


def _pair_counts(kernels: Any) -> list[tuple[float, float, float] | None]:
    """Per kernel: (misordered pairs, positive x negative pairs, smaller class) of a ROC AUC
    kernel with at least :data:`MIN_PAIRED_SMALLER_CLASS` samples in each class, else None
    (the paired rules' one count)."""
    out: list[tuple[float, float, float] | None] = []
    for k in kernels:
        mis = misordered_pair_count(k)
        sizes = class_sizes(k) if mis is not None else None
        if mis is None or sizes is None or min(sizes) < MIN_PAIRED_SMALLER_CLASS:
            out.append(None)
            continue
        out.append((mis, float(sizes[0]) * float(sizes[1]), float(min(sizes))))
    return out


def _paired_near_one(
    kernels: Any, ia: np.ndarray, ib: np.ndarray, few: Any
) -> tuple[np.ndarray, np.ndarray]:
    """The paired rules' loop: per pair, both systems within :data:`PAIRED_AUC_BAND` of 1
    (:func:`_pair_counts`) and ``few(worse, smaller)`` of the worse system's misordered
    pairs and the pair's smaller class; and the worse system's count (NaN where a system
    is outside :func:`_pair_counts`)."""
    ia, ib = np.asarray(ia, dtype=int), np.asarray(ib, dtype=int)
    out, worse = np.zeros(len(ia), dtype=bool), np.full(len(ia), np.nan)
    counts = _pair_counts(kernels)
    for j, (i, jj) in enumerate(zip(ia, ib, strict=True)):
        a, b = counts[int(i)], counts[int(jj)]
        if a is None or b is None:
            continue
        worse[j] = max(a[0], b[0])
        near = all(m < PAIRED_AUC_BAND * n for m, n, _ in (a, b))
        out[j] = bool(near and few(worse[j], min(a[2], b[2])))
    return out, worse


def few_misordered_pairs(
    kernels: Any, ia: np.ndarray, ib: np.ndarray, n_conditions: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Which paired ROC AUC differences (systems ``ia[k]``, ``ib[k]``) get BCa under
    ``"auto"``: both systems within :data:`PAIRED_AUC_BAND` of 1 and fewer than
    :data:`MAX_PAIRED_MISORDERED` misordered pairs in the worse one, over
    ``n_conditions`` >= :data:`MIN_PAIRED_AUC_CONDITIONS` conditions (None: none
    switched) with at least :data:`MIN_PAIRED_SMALLER_CLASS` samples in each class (the
    caller checks that ``auto`` gave the t interval); and the worse system's count.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.metrics.ranking import RocAucKernel
    >>> y = np.r_[np.zeros(1000), np.ones(40)]
    >>> a = np.r_[np.linspace(0, 1, 1000), np.linspace(2, 3, 40)]
    >>> b = a.copy()
    >>> b[-40:-20] -= 1.5  # 20 positives among the negatives: 5,133 misordered pairs
    >>> ks = [RocAucKernel(y, a), RocAucKernel(y, np.r_[a[:-1], 0.995]), RocAucKernel(y, b)]
    >>> mask, worse = few_misordered_pairs(ks, np.array([0, 0]), np.array([1, 2]), 20)
    >>> mask.tolist(), worse.tolist()
    ([True, False], [5.0, 5133.0])
    """
    if n_conditions is None or n_conditions < MIN_PAIRED_AUC_CONDITIONS:
        return np.zeros(len(ia), dtype=bool), np.full(len(ia), np.nan)
    return _paired_near_one(kernels, ia, ib, lambda w, _: w < MAX_PAIRED_MISORDERED)


#: a paired ROC AUC difference of independent samples whose two systems are within
#: :data:`PAIRED_AUC_BAND` of 1 and whose worse system has fewer misordered pairs than this
#: many per sample of the smaller class gets BCa under ``"auto"``
#: (:func:`few_misordered_pairs_iid`; session 12, aucpair18, ``scripts/auc_pair18_study.py``):
#: seed-18 #24 (164 positives) gained 21 test sets and lost none, its variant at 1 - AUC
#: 3e-4 (not used to choose it) 6 and none; 1 per sample gained 1, 3-4 the same as 2.
#: Over conditions a count relative to the class lost test sets in aucedge's cells
#: (1 - AUC 3e-4 / 1e-3, ICC 0), so :func:`few_misordered_pairs` keeps its fixed count
MAX_IID_MISORDERED_PER_SAMPLE = 2.0


def few_misordered_pairs_iid(
    kernels: Any, ia: np.ndarray, ib: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Which paired ROC AUC differences of independent samples (systems ``ia[k]``,
    ``ib[k]``) get BCa under ``"auto"``: both systems within :data:`PAIRED_AUC_BAND` of 1
    and fewer than :data:`MAX_IID_MISORDERED_PER_SAMPLE` misordered pairs per sample of
    the smaller class in the worse one, but some (two perfect rankings leave the t
    interval, [0, 0], as it was), with at least :data:`MIN_PAIRED_SMALLER_CLASS`
    samples in it (the caller checks that ``auto`` gave the t interval, without conditions,
    strata or weights); and the worse system's count.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.metrics.ranking import RocAucKernel
    >>> y = np.r_[np.zeros(2000), np.ones(100)]
    >>> a = np.r_[np.linspace(0, 1, 2000), np.linspace(2, 3, 100)]
    >>> b = a.copy()
    >>> b[-100:-91] = 0.99  # 9 positives below 20 negatives: 180 misordered pairs
    >>> c = a.copy()
    >>> c[-100:-80] = 0.99  # 20 positives: 400, above 2 per positive
    >>> ks = [RocAucKernel(y, a), RocAucKernel(y, b), RocAucKernel(y, c)]
    >>> mask, worse = few_misordered_pairs_iid(ks, np.array([0, 0]), np.array([1, 2]))
    >>> mask.tolist(), worse.tolist()
    ([True, False], [180.0, 400.0])
    """
    return _paired_near_one(
        kernels, ia, ib, lambda w, small: 0 < w < MAX_IID_MISORDERED_PER_SAMPLE * small
    )


def few_misordered_pairs_iid_reason(pairs: list[str], worse: np.ndarray) -> str:
    """The ``method_reason`` clause of :func:`few_misordered_pairs_iid`' differences."""
    counts = ", ".join(f"{float(c):.3g}" for c in worse)
    return (
        f"; bca for the difference(s) {', '.join(pairs)}: two ROC AUCs within "
        f"{PAIRED_AUC_BAND:g} of 1 on independent samples, the worse with {counts} "
        f"misordered (positive, negative) pairs (fewer than "
        f"{MAX_IID_MISORDERED_PER_SAMPLE:g} per sample of the smaller class), where the t "
        "interval's upper end stopped short of the truth and BCa's did not "
        "(docs/validation.md, 'The paired ROC AUC near 1 on independent samples'); no "
        "interval holds its level there"
    )


def few_misordered_pairs_reason(pairs: list[str], worse: np.ndarray) -> str:
    """The ``method_reason`` clause of :func:`few_misordered_pairs`' differences."""
    counts = ", ".join(f"{float(c):.3g}" for c in worse)
    return (
        f"; bca for the difference(s) {', '.join(pairs)}: two ROC AUCs within "
        f"{PAIRED_AUC_BAND:g} of 1 over conditions, the worse with {counts} misordered "
        f"(positive, negative) pairs (fewer than {MAX_PAIRED_MISORDERED:.3g}), where the t "
        "interval's upper end stopped short of the truth more often than BCa's "
        "(docs/validation.md, 'The ROC AUC near 1 over conditions: BCa or t'); no interval "
        "holds its level there"
    )
