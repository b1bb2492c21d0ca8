"""Hypothesis strategies for test sets near the bounds of a metric (issue 20, item 3).

``method="auto"`` switches to analytic intervals on data-dependent rules near the edge of
a metric's range: balanced accuracy with 0-3 errors in a class (MOVER-Wilson,
engine/class_edge.py), edge-dominated studentized intervals (logit t, t, Korn-Graubard,
engine/auto.py), one ROC AUC with a small class or near 1 (``auc-score-floored``,
engine/auc_analytic.py), a pair of AUCs (comparison/paired_auc_edge.py), the EER and
operating points with few errors (Wilson score intervals, engine/scores_rules.py; over
conditions Korn-Graubard, engine/scores_clustered.py) and llm_ci near 0/1
(engine/clustered_edge.py).  :func:`edge_designs` draws the data that cross
those rules: 0-5 errors per class, a small class of 2-20 samples, rankings with 0-5
positives misplaced among the negatives (ties optional), and a few conditions (2-8) of
unequal sizes.  It is used by tests/test_properties_edge.py.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

import mlci


@dataclass(frozen=True)
class EdgeData:
    """A binary test set: labels, two systems' decisions and scores, optional conditions."""

    y: np.ndarray
    pred: np.ndarray
    score: np.ndarray
    pred_b: np.ndarray
    score_b: np.ndarray
    conditions: np.ndarray | None
    #: two groups (0/1), each holding about half of each class (for metric_by_group)
    group: np.ndarray

    def take(self, index: np.ndarray) -> EdgeData:
        """The rows ``index`` (a permutation, or repeated rows)."""
        return EdgeData(*(None if a is None else a[index] for a in vars(self).values()))

    def replace(self, **changes: Any) -> EdgeData:
        return EdgeData(**(vars(self) | changes))

    def describe(self) -> str:
        """Class sizes and errors (for failure messages)."""
        pos = self.y == 1
        cond = None if self.conditions is None else np.bincount(self.conditions).tolist()
        return (
            f"n={len(self.y)} n_pos={int(pos.sum())} fn={int(np.sum(pos & (self.pred == 0)))} "
            f"fp={int(np.sum(~pos & (self.pred == 1)))} conditions={cond}"
        )


def _decisions(g: np.random.Generator, y: np.ndarray, fn: int, fp: int, low: bool) -> np.ndarray:
    """``y`` with ``fn`` positives and ``fp`` negatives wrong (all wrong but those, when
    ``low``: the other end of the range)."""
    pred = y.copy()
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    pred[g.choice(pos, min(fn, len(pos)), replace=False)] ^= 1
    pred[g.choice(neg, min(fp, len(neg)), replace=False)] ^= 1
    return 1 - pred if low else pred


def _ranking(g: np.random.Generator, y: np.ndarray, misplaced: int, ties: bool) -> np.ndarray:
    """Scores ranking every positive above every negative but ``misplaced`` positives,
    which fall among the negatives."""
    score = np.where(y == 1, 1.0 + g.random(len(y)), g.random(len(y)))
    pos = np.flatnonzero(y == 1)
    score[g.choice(pos, min(misplaced, len(pos)), replace=False)] -= 1.0
    return np.round(score, 1) if ties else score


@st.composite
def edge_designs(
    draw: Any,
    min_n: int = 20,
    max_n: int = 300,
    clustered: bool | None = None,
    low_end: bool | None = False,
) -> EdgeData:
    """A near-bound binary test set (module doc).

    ``clustered``: with conditions (True), without (False) or either (None); ``low_end``:
    decisions near 0 instead of 1 (True), either (None) or near 1 (False).
    """
    n = draw(st.integers(min_n, max_n), label="n")
    seed = draw(st.integers(0, 2**32 - 1), label="seed")
    small = draw(st.one_of(st.integers(2, 20), st.none()), label="small class")
    small_positive = draw(st.booleans(), label="positives are the small class")
    fn, fp = draw(st.integers(0, 5), label="fn"), draw(st.integers(0, 5), label="fp")
    fn_b, fp_b = draw(st.integers(0, 5)), draw(st.integers(0, 5))
    misplaced = draw(st.integers(0, 5), label="misplaced positives")
    misplaced_b = draw(st.integers(0, 5))
    ties = draw(st.booleans(), label="ties")
    low = draw(st.booleans(), label="low end") if low_end is None else low_end
    use_cond = draw(st.booleans(), label="conditions") if clustered is None else clustered
    g = np.random.default_rng(seed)
    n_small = min(small, n // 2) if small is not None else round(n * g.uniform(0.25, 0.5))
    y = np.zeros(n, dtype=np.int64)
    y[:n_small] = 1
    if not small_positive:
        y = 1 - y
    y = g.permutation(y)
    pred = _decisions(g, y, fn, fp, low)
    pred_b = _decisions(g, y, fn_b, fp_b, low)
    score, score_b = _ranking(g, y, misplaced, ties), _ranking(g, y, misplaced_b, ties)
    cond = None
    if use_cond:
        c = draw(st.integers(2, 8), label="n conditions")
        sizes = g.dirichlet(np.full(c, 0.7))  # unequal sizes
        cond = g.choice(c, n, p=sizes)
        cond[:c] = np.arange(c)  # every condition holds a sample
        cond = np.unique(cond, return_inverse=True)[1].astype(np.int64)
    return EdgeData(y, pred, score, pred_b, score_b, cond, _groups(y))


def quiet(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call a driver with mlci's warnings silenced (the suite turns warnings into errors;
    the invariants hold whether or not a design warns)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        return fn(*args, **kwargs)


def _groups(y: np.ndarray) -> np.ndarray:
    group = np.zeros(len(y), dtype=np.int64)
    for c in (0, 1):
        at = np.flatnonzero(y == c)
        group[at] = np.arange(len(at)) % 2
    return group


def fixed_design(
    y: Any, pred: Any = None, score: Any = None, conditions: Any = None, group: Any = None
) -> EdgeData:
    """An :class:`EdgeData` from the arrays of a minimal example (the other system a copy;
    decisions default to the labels, scores to the decisions)."""
    y = np.asarray(y, dtype=np.int64)
    pred = y.copy() if pred is None else np.asarray(pred, dtype=np.int64)
    score = pred.astype(float) if score is None else np.asarray(score, dtype=float)
    cond = None if conditions is None else np.asarray(conditions, dtype=np.int64)
    group = _groups(y) if group is None else np.asarray(group, dtype=np.int64)
    return EdgeData(y, pred, score, pred.copy(), score.copy(), cond, group)


def _bits(text: str) -> np.ndarray:
    return np.array([int(c) for c in text], dtype=np.int64)


#: minimal examples of the defects the properties found (tests/test_properties_edge.py),
#: run first by every property they concern (hypothesis ``@example``) so that a strict
#: xfail does not depend on the random search finding them again
EER_TIE = fixed_design(  # one negative tied with 11 positives: EER 0.05 on the tie
    np.r_[np.zeros(10), np.ones(110)],
    score=np.r_[np.linspace(0, 0.9, 9), 1.0, np.ones(11), np.linspace(1.1, 2, 99)],
)
TAILS_CONDITIONS = fixed_design(  # balanced accuracy 0.05 over 5 conditions
    _bits("1000000000000000101001100"),
    _bits("0111011111101111010110011"),
    conditions=_bits("0031322242424213441111134"),
)
TAILS_IID = fixed_design(  # average precision, 2 positives among 20
    _bits("00000000010000000001"), score=np.arange(20.0)
)
TAILS_RANKING = fixed_design(  # ROC AUC 0.92 over 5 conditions, 20 samples (scores: ranks)
    _bits("10100001101001111010"),
    score=[19, 0, 2, 3, 10, 4, 1, 13, 14, 7, 15, 6, 9, 12, 16, 11, 17, 8, 18, 5],
    conditions=_bits("30042212222012002101"),
)
GROUP_TIES = fixed_design(  # metric_by_group's overall EER moves with the order of ties
    _bits("10101000110111"),
    score=[1.0, 1.0, 1.0, 0.7, 1.0, 0.6, 0.6, 1.0, 1.2, 1.1, 0.7, 1.6, 1.6, 1.8],
    group=_bits("01100010011010"),
)
TIED_NEGATIVES = fixed_design(  # FP counts 100, 3, 0 against n_neg * 0.1 = 10
    np.r_[np.zeros(100), np.ones(10)],
    score=np.r_[np.zeros(97), np.full(3, 0.5), 0.2, np.ones(9)],
)
HULL_ONE_SIDED = fixed_design(  # FP counts 100, 16, 5, 0: only 5 within the 95% cut
    np.r_[np.zeros(100), np.ones(10)],
    score=np.r_[np.zeros(84), np.full(11, 0.5), np.full(5, 0.8), np.ones(10)],
)
ZERO_SE = fixed_design(  # 2 conditions, the second holding one correct positive
    _bits("1111100000"), _bits("1111110000"), conditions=_bits("0000100000")
)
EQUAL_CONDITIONS = fixed_design(  # 2 conditions (alternating), one error in each of 10
    np.r_[np.ones(10), np.zeros(10)],
    np.r_[0, 0, np.ones(8), np.zeros(10)],
    conditions=np.arange(20) % 2,
)
