"""1:N identification: FNIR/FPIR against score-analysis's OneToNScores, intervals, bad input."""

from __future__ import annotations

import numpy as np
import pytest
import score_analysis as sa

from mlci import identification_scores

CONVENTIONS = [(a, b) for a in ("pos", "neg") for b in ("pos", "neg")]


def _search(seed: int = 0, n_mated: int = 60, n_nonmated: int = 50):
    rng = np.random.default_rng(seed)
    mate = np.round(rng.normal(1, 1, n_mated), 1)
    rank = rng.integers(1, 6, n_mated).astype(float)
    rank[:3] = np.inf  # mate not in the candidate list
    non = np.round(rng.normal(0, 1, n_nonmated), 1)
    return mate, rank, non


@pytest.mark.parametrize("score_class,equal_class", CONVENTIONS)
def test_fnir_fpir_match_score_analysis(score_class, equal_class):
    # reference: score_analysis.OneToNScores(...).fnir(threshold, rank) / .fpir (0.3.12)
    mate, rank, non = _search()
    ref = sa.OneToNScores(neg_rank1=non, pos_rank1=mate, pos_mate=mate, pos_mate_rank=rank,
                          score_class=score_class, equal_class=equal_class)  # fmt: skip
    t = np.linspace(-2, 3, 11)
    for r in (1, 2, 5):
        s = identification_scores(mate, rank, non, rank=r, score_class=score_class,
                                  equal_class=equal_class)  # fmt: skip
        np.testing.assert_allclose(s.fnr(t), ref.fnir(t, r), atol=1e-12)
        np.testing.assert_allclose(s.tpr(t), ref.tpir(t, r), atol=1e-12)
        np.testing.assert_allclose(s.fpr(t), ref.fpir(t), atol=1e-12)


def test_fnir_at_fpir_interval_and_rank_monotone():
    mate, rank, non = _search(1, 300, 300)
    s1 = identification_scores(mate, rank, non, rank=1)
    s5 = identification_scores(mate, rank, non, rank=5)
    t = np.linspace(-1, 2, 7)
    assert np.all(s5.fnr(t) <= s1.fnr(t))  # a larger rank finds more mates
    res = s1.bootstrap_ci("fnr_at_fpr", at=0.1, rng=0, n_resamples=300)
    low, high = res.confidence_interval
    assert low <= res.estimate <= high
    # read along the ROC polyline: pROC 1.18 gives 1 - coords(roc(controls = non, cases =
    # mate (the 3 missing mates at -100), direction = "<"), 0.9, input = "specificity",
    # ret = "sensitivity") = 0.945; the scores tie, so no threshold has FPIR = 0.1 exactly
    # (threshold_at_fpr's has 0.1067 and FNIR 0.9367 there)
    assert res.estimate == pytest.approx(0.945, abs=1e-12)
    assert res.estimate == s1.rate_at("fnr", at=0.1)
    # without a threshold, FNIR at rank r is the share of mates beyond rank r
    assert s1.fnr(-1e9) == pytest.approx(np.mean(rank > 1))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"rank": 0}, "rank"),
        ({"rank": 1.5}, "rank"),
        ({"rank": True}, "rank"),
        ({"mate_rank": [1, 0, 2]}, "mate_rank"),
        ({"mate_rank": [1, 2.5, 2]}, "mate_rank"),
        ({"mate_rank": [1, 2]}, "mate_rank"),
        ({"mate_score": [0.1, np.nan, 0.3]}, "mate_score"),
        ({"nonmate_score": []}, "nonmate_score"),
        ({"nonmate_score": ["a", "b"]}, "nonmate_score"),
        ({"score_class": "up"}, "score_class"),
    ],
)
def test_identification_bad_input(kwargs, match):
    args = {"mate_score": [0.9, 0.8, 0.3], "mate_rank": [1, 2, 1], "nonmate_score": [0.2, 0.5]}
    args.update(kwargs)
    rank = args.pop("rank", 1)
    extra = {k: args.pop(k) for k in ("score_class",) if k in args}
    with pytest.raises((ValueError, TypeError), match=match):
        identification_scores(**args, rank=rank, **extra)
