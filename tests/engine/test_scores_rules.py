"""The score intervals of an ROC point along the ROC polyline, and the Scores bootstrap's
class-draw order (engine/scores_rules.py, scores/_data.py; issue 20, item 3, session 9).

The EER and a rate at a fixed other rate are read on the ROC polyline (the thresholds'
points joined by straight lines: pROC's ``coords``, the EER's crossing).  Their score
intervals (``method="wilson"`` under ``auto`` with few errors) invert Wilson's statistic
over the same curve: every threshold and the randomized thresholds between adjacent
ones, which through a tie are the only way to reach the rates inside it.  Checked here
against a brute-force inversion over points along the polyline (built from the scores,
not from :func:`error_counts`), and for the invariants the polyline gives by
construction: never empty, the estimate inside, nested in ``confidence_level``.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.special import ndtri

import mlci
from mlci.engine.scores_clustered import (
    clustered_eer_interval,
    clustered_error_counts,
    clustered_rate_interval,
)
from mlci.engine.scores_rules import eer_score_interval, error_counts, rate_score_interval

LEVELS = (0.80, 0.90, 0.95, 0.99)


def quiet(fn: Any, *args: Any, **kw: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def counts(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    up, cp = np.unique(pos, return_counts=True)
    un, cn = np.unique(neg, return_counts=True)
    return error_counts(un, cn.astype(float), up, cp.astype(float))


def polyline(pos: np.ndarray, neg: np.ndarray, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Misses and false alarms at ``steps`` points along every segment of the ROC
    polyline, from the scores: the thresholds in increasing order (a sample is decided
    positive at or above), each joined to the next by a straight line."""
    thr = np.r_[np.union1d(pos, neg), np.inf]
    fn = np.array([np.sum(pos < t) for t in thr], dtype=float)
    fp = np.array([np.sum(neg >= t) for t in thr], dtype=float)
    t = np.linspace(0.0, 1.0, steps)[:, None]
    return (fn[:-1] + t * np.diff(fn)).ravel(), (fp[:-1] + t * np.diff(fp)).ravel()


def brute(accepts: Any, grid: np.ndarray) -> tuple[float, float]:
    ok = np.array([accepts(v) for v in grid])
    return float(grid[ok].min()), float(grid[ok].max())


#: 14 positives and 40 negatives on 7 score values: ties within and across the classes
TIED_POS = np.array([0, 2, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6], dtype=float)
TIED_NEG = np.repeat(np.arange(7.0), [12, 10, 8, 5, 3, 1, 1])


@pytest.mark.parametrize("level", [0.90, 0.95, 0.99])
def test_eer_interval_is_the_inversion_along_the_polyline(level: float) -> None:
    fn, fp = counts(TIED_POS, TIED_NEG)
    pfn, pfp = polyline(TIED_POS, TIED_NEG, 2001)
    c = ndtri(0.5 + level / 2) ** 2
    n_p, n_n = 14, 40

    def accepts(e: float) -> bool:
        stat = (pfn - n_p * e) ** 2 / n_p + (pfp - n_n * e) ** 2 / n_n
        return bool(stat.min() <= c * e * (1 - e))

    ref = brute(accepts, np.linspace(1e-6, 1 - 1e-6, 20_001))
    # (the grid's step 5e-5; the points along a segment 1/2000 of it apart)
    assert eer_score_interval(fn, fp, n_p, n_n, level) == pytest.approx(ref, abs=1e-4)


@pytest.mark.parametrize(("at", "level"), [(0.1, 0.95), (0.33, 0.95), (0.33, 0.80), (0.5, 0.99)])
def test_rate_interval_is_the_inversion_along_the_polyline(at: float, level: float) -> None:
    # FNR at FPR = at: 40 x 0.33 = 13.2 false alarms lies inside the tie at score 1
    # (22 -> 12 false alarms, 1 -> 1 miss) and 40 x 0.5 = 20 inside the tie at 0 and 1
    fn, fp = counts(TIED_POS, TIED_NEG)
    pfn, pfp = polyline(TIED_POS, TIED_NEG, 2001)
    c = ndtri(0.5 + level / 2) ** 2
    d = (pfp - 40 * at) ** 2 / (40 * at * (1 - at))

    def accepts(p: float) -> bool:
        return bool((d + (pfn - 14 * p) ** 2 / (14 * p * (1 - p))).min() <= c)

    ref = brute(accepts, np.linspace(1e-6, 1 - 1e-6, 20_001))
    # (the brute force inverts Wilson's statistic: without the Poisson edge, which only
    # widens a bound where 1-3 events meet it)
    got = rate_score_interval(fn, 14, fp, 40, at, level, poisson_edge=False)
    assert got == pytest.approx(ref, abs=1e-4)
    lo, hi = rate_score_interval(fn, 14, fp, 40, at, level)
    assert lo <= got[0] and hi >= got[1]


def test_rate_interval_through_a_tie_of_both_classes_is_the_brute_force() -> None:
    # the operating point inside a diagonal segment (4 positives and 6 negatives tied):
    # the bisection path of the rate's interval
    pos = np.r_[np.zeros(3), np.full(4, 1.0), np.full(13, 2.0)]
    neg = np.r_[np.zeros(70), np.full(6, 1.0), np.full(4, 2.0)]
    fn, fp = counts(pos, neg)
    pfn, pfp = polyline(pos, neg, 4001)
    c = ndtri(0.975) ** 2
    d = (pfp - 80 * 0.08) ** 2 / (80 * 0.08 * 0.92)  # 6.4 false alarms: inside 10 -> 4

    def accepts(p: float) -> bool:
        return bool((d + (pfn - 20 * p) ** 2 / (20 * p * (1 - p))).min() <= c)

    ref = brute(accepts, np.linspace(1e-6, 1 - 1e-6, 20_001))
    assert rate_score_interval(fn, 20, fp, 80, 0.08, poisson_edge=False) == pytest.approx(
        ref, abs=1e-4
    )


def test_without_ties_a_rate_at_a_whole_count_keeps_its_vertex_interval() -> None:
    # distinct scores: every step of the polyline is one sample, and where n_x at is a
    # whole number (200 x 0.05 = 10 false alarms) no point inside a step is nearer it
    # than a vertex: the interval of the thresholds alone (before the polyline)
    g = np.random.default_rng(5)
    pos, neg = g.normal(2.0, 1, 14), g.normal(0, 1, 200)
    fn, fp = counts(pos, neg)
    c = ndtri(0.975) ** 2
    d = (fp - 10) ** 2 / (10 * 0.95)

    def accepts(p: float) -> bool:
        return bool((d + (fn - 14 * p) ** 2 / (14 * p * (1 - p))).min() <= c)

    ref = brute(accepts, np.linspace(1e-6, 1 - 1e-6, 20_001))
    assert rate_score_interval(fn, 14, fp, 200, 0.05) == pytest.approx(ref, abs=1e-4)


# ------------------------------------------------------------------ the invariants
tied_design = st.tuples(
    st.lists(st.integers(0, 5), min_size=2, max_size=25),  # positives' scores
    st.lists(st.integers(0, 5), min_size=2, max_size=120),  # negatives'
    st.floats(0.02, 0.98),  # at
)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(design=tied_design)
def test_profile_intervals_are_never_empty_nested_and_hold_the_estimate(design: Any) -> None:
    p, n, at = design
    pos, neg = np.array(p, dtype=float) + 0.5, np.array(n, dtype=float)
    sc = mlci.Scores(pos, neg)
    fn, fp = counts(pos, neg)
    eer = float(sc.eer().eer)
    rate = float(sc.rate_at("fnr", at=at, x="fpr"))
    prev_e = prev_r = (0.5, 0.5)
    for level in LEVELS:
        e = eer_score_interval(fn, fp, len(pos), len(neg), level)
        r = rate_score_interval(fn, len(pos), fp, len(neg), at, level)
        for (lo, hi), est, prev in ((e, eer, prev_e), (r, rate, prev_r)):
            assert 0.0 <= lo <= est + 1e-9 and est - 1e-9 <= hi <= 1.0, (level, lo, hi, est)
            if level > LEVELS[0]:
                assert lo <= prev[0] + 1e-12 and prev[1] - 1e-12 <= hi, (level, prev, lo, hi)
        prev_e, prev_r = e, r


def test_tied_negatives_reach_the_rate_along_their_segment() -> None:
    # 97 negatives at 0 and 3 at 0.5: false alarms 100, 3, 0 against n_neg x 0.1 = 10,
    # which only the tie's segment reaches (no miss there): Wilson's interval of 0 in
    # 10 (statsmodels proportion_confint(0, 10, method="wilson") = (0, 0.2775327998628892))
    pos, neg = np.r_[0.2, np.ones(9)], np.r_[np.zeros(97), np.full(3, 0.5)]
    fn, fp = counts(pos, neg)
    assert rate_score_interval(fn, 10, fp, 100, 0.1) == pytest.approx(
        (0.0, 0.2775327998628892), abs=1e-12
    )
    # at 99% the vertex with 3 false alarms (d = 5.44) enters, inside the segment's
    lo99, hi99 = rate_score_interval(fn, 10, fp, 100, 0.1, 0.99)
    assert lo99 == 0.0 and hi99 > 0.2775


def test_clustered_intervals_follow_the_polyline_too() -> None:
    # 254 trials on 21 score values over 6 conditions (found by
    # test_properties_edge.test_one_sided_matches_two_sided[eer_ci]): the EER 0.0218 was
    # outside the 90% interval [0.0222, 0.0418] before
    g = np.random.default_rng(0)
    y = g.random(254) < 0.59
    s = np.round(g.normal(size=254) * 0.5 + 1.3 * y, 1)
    cond = g.integers(0, 6, 254)
    sc = mlci.Scores.from_labels(y, s)
    cc = clustered_error_counts(s[~y], cond[~y], s[y], cond[y])
    eer = float(sc.eer().eer)
    prev = (1.0, 0.0)  # (empty)
    for level in LEVELS:
        lo, hi = clustered_eer_interval(cc, level)
        assert lo <= eer <= hi
        assert lo <= prev[0] + 1e-12 and prev[1] - 1e-12 <= hi
        prev = (lo, hi)
    rate = float(sc.rate_at("fnr", at=0.13, x="fpr"))
    prev = (1.0, 0.0)  # (empty)
    for level in LEVELS:
        lo, hi = clustered_rate_interval(cc, "fnr", 0.13, level)
        assert lo <= rate <= hi
        assert lo <= prev[0] + 1e-12 and prev[1] - 1e-12 <= hi
        prev = (lo, hi)


# ---------------------------------------------------- the drivers on tied scores
B = 200
tied_labels = st.tuples(
    st.integers(2, 30),  # positives
    st.integers(10, 150),  # negatives
    st.integers(2, 6),  # score values
    st.integers(0, 2**32 - 1),
)


def _tied(design: Any) -> tuple[np.ndarray, np.ndarray]:
    n_pos, n_neg, k, seed = design
    g = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    score = np.r_[g.integers(k // 2, k + 1, n_pos), g.integers(0, k, n_neg)].astype(float)
    return y, score


def _nested(results: list[Any]) -> None:
    for a, b in itertools.pairwise(results):
        (la, ha), (lb, hb) = a.confidence_interval, b.confidence_interval
        why = (a.method, b.method, (la, ha), (lb, hb), float(a.estimate))
        assert lb <= la + 1e-12 and ha - 1e-12 <= hb, why
        assert la - 1e-12 <= float(a.estimate) <= ha + 1e-12, why


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(design=tied_labels, at=st.sampled_from([0.05, 0.1, 0.2]))
def test_operating_point_intervals_on_tied_scores_nest_in_the_level(design: Any, at: float) -> None:
    y, score = _tied(design)
    sc = mlci.Scores.from_labels(y, score)
    op = [quiet(mlci.operating_point_ci, sc, "fnr", at=at, n_resamples=B, rng=0,
                confidence_level=c)[0] for c in LEVELS]  # fmt: skip
    _nested(op)
    boot = [quiet(sc.bootstrap_ci, "fnr_at_fpr", at=at, n_resamples=B, rng=0,
                  confidence_level=c) for c in LEVELS]  # fmt: skip
    _nested(boot)
    for a, b in zip(op, boot, strict=True):  # one rule through both doors
        assert a.method == b.method
        np.testing.assert_allclose(a.confidence_interval, b.confidence_interval, rtol=1e-12)


@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(design=tied_labels)
def test_eer_intervals_on_tied_scores_nest_in_the_level(design: Any) -> None:
    y, score = _tied(design)
    sc = mlci.Scores.from_labels(y, score)
    _nested([quiet(mlci.eer_ci, sc, n_resamples=B, rng=0, confidence_level=c).eer
             for c in LEVELS])  # fmt: skip


# ------------------------------------------------------------ the class-draw order
def _mirrors(r: Any, s: Any) -> None:
    assert float(s.estimate) == pytest.approx(1 - float(r.estimate), abs=1e-12)
    assert s.method == r.method
    lo, hi = r.confidence_interval
    np.testing.assert_allclose(s.confidence_interval, (1 - hi, 1 - lo), rtol=1e-10, atol=1e-12)


G = np.random.default_rng(11)
Y = (G.random(300) < 0.3).astype(int)
S_TIED = np.round(G.normal(size=300) + 1.2 * Y)  # 9 score values: multinomial draws
S_CONT = G.normal(size=300) + 1.2 * Y  # distinct scores: index draws


@pytest.mark.parametrize("score", [S_TIED, S_CONT], ids=["tied", "distinct"])
@pytest.mark.parametrize("method", ["bca", "percentile", "auto"])
def test_auc_ci_of_the_other_class_is_the_mirror(score: np.ndarray, method: str) -> None:
    kw = {"n_resamples": 400, "rng": 3, "method": method}
    _mirrors(mlci.auc_ci(Y, score, **kw), mlci.auc_ci(Y, score, pos_label=0, **kw))
    # and with labels that are not numbers: the class whose label sorts first first
    names = np.where(Y == 1, "yes", "no")
    _mirrors(
        mlci.auc_ci(names, score, pos_label="yes", **kw),
        mlci.auc_ci(names, score, pos_label="no", **kw),
    )


def test_auc_ci_of_the_other_class_mirrors_over_conditions_and_poisson() -> None:
    cond = np.arange(300) % 12
    kw = {"n_resamples": 300, "rng": 4}
    _mirrors(
        quiet(mlci.auc_ci, Y, S_CONT, conditions=cond, **kw),
        quiet(mlci.auc_ci, Y, S_CONT, conditions=cond, pos_label=0, **kw),
    )
    a, b = mlci.Scores.from_labels(Y, S_TIED), mlci.Scores.from_labels(Y, S_TIED, pos_label=0)
    _mirrors(
        a.bootstrap_ci("auc", resampling=mlci.Resampling(weights="poisson"), **kw),
        b.bootstrap_ci("auc", resampling=mlci.Resampling(weights="poisson"), **kw),
    )


def test_swap_draws_the_same_class_first() -> None:
    # swap() exchanges the classes (and the scores' orientation, so each class's atoms
    # come in the other order: the draws are not the same ones); the class drawn first
    # stays the one whose label sorts first
    sc = mlci.Scores.from_labels(Y, S_TIED)
    assert sc.swap()._positives_first is True and sc.swap().swap()._positives_first is False
    assert mlci.Scores.from_labels(Y, S_TIED, pos_label=0).swap()._positives_first is False


def test_default_labelling_keeps_its_seeded_draws() -> None:
    # the numbers of main before the class-draw order (session 9): pos_label=1 draws
    # the negatives (label 0) first, as before
    kw = {"n_resamples": 400, "rng": 3}
    assert tuple(mlci.auc_ci(Y, S_TIED, **kw).confidence_interval) == pytest.approx(
        (0.7528161216284405, 0.8411421407603099), abs=1e-14
    )
    assert tuple(mlci.auc_ci(Y, S_CONT, **kw).confidence_interval) == pytest.approx(
        (0.7513015642304808, 0.8631699010623004), abs=1e-14
    )
    sc = mlci.Scores.from_labels(Y, S_TIED)
    assert sc._positives_first is False and mlci.Scores([1.0, 2.0], [0.0])._positives_first is False
    r = sc.bootstrap_ci("auc", n_resamples=400, rng=3, method="percentile")
    assert tuple(r.confidence_interval) == pytest.approx(
        (0.7565251891727185, 0.845198948758316), abs=1e-14
    )
