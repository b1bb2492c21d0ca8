"""1:N identification (open-set search): FPIR, FNIR at a rank, DIR, with intervals.

A search of a probe against a gallery returns candidates by decreasing similarity.  A
*mated* probe has a mate in the gallery: it is found at threshold ``t`` and rank ``r``
when the mate is among the first ``r`` candidates with a score above ``t``.  A
*non-mated* probe has none: it raises a false alarm at ``t`` when its best candidate's
score is above ``t``.  So (ISO/IEC 19795-1, NIST FRVT 1:N):

* FNIR(t, r) = share of mated probes whose mate is not found (rank above ``r`` or score
  below ``t``); DIR(t, r) = TPIR = 1 - FNIR; DIR(r) without threshold is the rank-``r``
  hit rate;
* FPIR(t) = share of non-mated probes whose best score is above ``t``.

These are the FNR and FPR of a binary :class:`~mlci.Scores` whose positives are the mated
probes' mate scores (a mate beyond rank ``r`` gets an infinite score on the negative side:
never found) and whose negatives are the non-mated probes' best scores, as
score-analysis's ``OneToNScores.to_binary_scores``.  Every rate, threshold at a rate,
operating point (FNIR at FPIR) and its bootstrap interval then comes from ``Scores``, with
the probes as the resampled samples.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..inputs import ArgSpec, check_choice, gather
from ._roc import _LABELS
from .scores import Scores

__all__ = ["identification_scores"]


def identification_scores(
    mate_score: Any,
    mate_rank: Any,
    nonmate_score: Any,
    *,
    rank: Any = None,
    score_class: str = "pos",
    equal_class: str = "pos",
) -> Scores:
    """The binary :class:`~mlci.Scores` of a 1:N identification experiment at a rank.

    A missing score or rank is refused (drop those probes first: ``conditions=`` and
    ``strata=`` of the bootstrap follow the probes, mated then non-mated).

    Parameters
    ----------
    mate_score : array-like of float, shape (n_mated,)
        For every mated probe, the score of its best-ranked mate (any value, e.g. ``-inf``,
        when the mate is not in the candidate list).
    mate_rank : array-like of int, shape (n_mated,)
        The rank (1 = first candidate) of that mate; ``inf`` when it is not in the list.
    nonmate_score : array-like of float, shape (n_nonmated,)
        For every non-mated probe, the score of its first candidate.
    rank : int, optional
        Largest rank at which a mate counts as found (FNIR at rank ``r``); None: any rank.
    score_class, equal_class : {"pos", "neg"}
        As in :class:`~mlci.Scores` (``score_class="neg"`` for distances).

    Returns
    -------
    Scores
        ``fnr`` is the FNIR, ``tpr`` the TPIR (DIR at a threshold), ``fpr`` the FPIR,
        ``threshold_at_fpr`` the threshold at an FPIR, ``bootstrap_ci("fnr_at_fpr",
        at=...)`` the FNIR at an FPIR with its interval; the probes are the samples.

    Examples
    --------
    >>> s = identification_scores([0.9, 0.8, 0.3, 0.7], [1, 3, 1, 1], [0.2, 0.6, 0.4],
    ...                           rank=1)
    >>> float(s.fnr(0.5)), round(float(s.fpr(0.5)), 4)   # FNIR, FPIR at threshold 0.5
    (0.5, 0.3333)
    >>> float(identification_scores([0.9, 0.8], [1, 3], [0.2], rank=5).fnr(0.5))
    0.0
    """
    check_choice("score_class", score_class, _LABELS)
    check_choice("equal_class", equal_class, _LABELS)
    mated = gather(
        {
            "mate_score": ArgSpec("scores", required=True),
            "mate_rank": ArgSpec("scores", required=True),
        },
        {"mate_score": mate_score, "mate_rank": mate_rank},
    )
    nonmated = gather(
        {"nonmate_score": ArgSpec("scores", required=True)},
        {"nonmate_score": nonmate_score},
        allow_empty=True,
    )
    for name, g in (("mate_score", mated), ("nonmate_score", nonmated)):
        if g.n_samples == 0:
            what = "mated" if name == "mate_score" else "non-mated"
            raise ValueError(f"`{name}` is empty: there are no {what} probes; both are needed.")
    ranks = mated["mate_rank"]
    bad = (ranks < 1) | (np.isfinite(ranks) & (ranks != np.round(ranks)))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"`mate_rank` must hold ranks 1, 2, ... (or inf: mate not in the candidate list); "
            f"row {i} holds {ranks[i]:g}."
        )
    if rank is not None and (
        isinstance(rank, bool) or not isinstance(rank, int | np.integer) or rank < 1
    ):
        raise ValueError(f"`rank` must be a positive integer or None; got {rank!r}.")
    found = np.ones(len(ranks), dtype=bool) if rank is None else ranks <= rank
    never = -np.inf if score_class == "pos" else np.inf  # never beyond any threshold
    pos = np.where(found, mated["mate_score"], never)
    neg = nonmated["nonmate_score"]
    return Scores(pos, neg, score_class=score_class, equal_class=equal_class)
