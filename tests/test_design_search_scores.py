"""The reduced search over the score drivers (scripts/design_search_scores.py; issue 20, item 2).

``scripts/design_search_scores.py`` draws random designs over the drivers
``scripts/design_search.py`` never drew (dcf_ci, cllr_ci, metric_by_group,
trial_bootstrap_ci, roc_band, reduce_ci, operating points over conditions, weighted and
stratified Scores) and judges them with design_search's assessment.  Checked here:

* the exact truths of its populations against Monte Carlo means of 400,000 draws;
* a few designs of every family run, and a run reproduces with its seed (``reps`` scale
  with ``MLCI_SLOW_SCALE``: 12 test sets at CI's 0.1);
* the assessment flags a mislabelled interval: a 90% interval labelled 95% where BCa
  holds, an unwarned short design, and not a short design BCa misses too;
* issue 20, item 7: ``roc_band``'s simultaneous band covers the whole true ROC of the
  search's band population (20 FPRs, 100 + 100 scores) in 949 of 1,000 fixed-seed
  experiments (two-sided exact binomial test at 0.001: p 0.88), and the same check rejects
  the band whose critical value is taken at 90% (a 90% band labelled 95%: 919, p 3e-5),
  on the same experiments.  Not scaled: these bounds must hold in CI;
* the two collapses the search found and this round fixed (``roc_band``'s points stuck at
  a TPR of 1, ``metric_by_group``'s class rates without an error: the Wilson interval,
  checked against statsmodels), and strict xfails naming what it found and left
  (Cllr's unwarned under-coverage, warned since session 9; ``reduce_ci``'s ``auto``, fixed in
  session 9 and now a passing test); docs/validation.md, "The score drivers' search (seed 10)",
  "Cllr intervals (session 9)".
"""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr, ndtri

from _scripts import load_script
from mlci.scores import curves

SCALE = float(os.environ["MLCI_SLOW_SCALE"])
REPS = max(12, round(120 * SCALE))

pytestmark = [pytest.mark.slow, pytest.mark.search]

dss = load_script("design_search_scores.py")
mlci = dss.mlci


def test_exact_truths_match_monte_carlo() -> None:
    g = np.random.default_rng(11)
    n = 400_000
    e, p, c = 1.7, 0.05, 1.6
    zp, zn = g.standard_normal(n) + e, g.standard_normal(n)

    def llr(z: np.ndarray, scale: float) -> np.ndarray:
        return scale * (e * z - e * e / 2)

    tau = math.log((1 - p) / p)
    mc = (p * np.mean(llr(zp, c) <= tau) + (1 - p) * np.mean(llr(zn, c) > tau)) / p
    assert dss.dcf_truth(e, p, c) == pytest.approx(mc, abs=0.01)
    # the minimum DCF is the actual DCF of the calibrated LLR (c = 1) and no threshold
    # does better (a grid of 2,001 thresholds on the Monte Carlo sample)
    ts = np.linspace(-2, 6, 2001)
    fnr = np.searchsorted(np.sort(zp), ts) / n
    fpr = 1 - np.searchsorted(np.sort(zn), ts) / n
    assert dss.dcf_truth(e, p, 1.0) == pytest.approx(np.min(p * fnr + (1 - p) * fpr) / p, abs=0.01)
    cllr = 0.5 * (np.mean(np.logaddexp(0, -llr(zp, c))) + np.mean(np.logaddexp(0, llr(zn, c))))
    assert dss.cllr_truth(e, c) == pytest.approx(cllr / math.log(2), abs=3e-3)
    # mixtures (sites, groups): AUC, EER, minimum DCF
    w, v = np.array([0.2, 0.5, 0.3]), np.array([0.5, 0.3, 0.2])
    shift, sep = np.array([0.0, 0.5, -0.3]), np.array([1.0, 1.5, 2.0])
    pos = g.standard_normal(n) + (shift + sep)[g.choice(3, n, p=w)]
    neg = g.standard_normal(n) + shift[g.choice(3, n, p=v)]
    assert dss.mixture_truth("auc", w, v, shift, sep) == pytest.approx(np.mean(pos > neg), abs=3e-3)
    ts = np.linspace(-3, 5, 4001)
    fnr = np.searchsorted(np.sort(pos), ts) / n
    fpr = 1 - np.searchsorted(np.sort(neg), ts) / n
    eer = fnr[np.argmin(np.abs(fnr - fpr))]
    assert dss.mixture_truth("eer", w, v, shift, sep) == pytest.approx(eer, abs=3e-3)
    mdcf = np.min(0.1 * fnr + 0.9 * fpr) / 0.1
    assert dss.mixture_truth("min_dcf", w, v, shift, sep, 0.1) == pytest.approx(mdcf, abs=0.01)
    # trials: target d + 2u + noise, non-target u1 + u2 + noise
    d, s2 = 1.5, 0.3
    tgt = d + 2 * math.sqrt(s2) * g.standard_normal(n) + g.standard_normal(n)
    non = math.sqrt(s2) * (g.standard_normal(n) + g.standard_normal(n)) + g.standard_normal(n)
    assert dss.trial_truth("roc_auc", d, s2) == pytest.approx(np.mean(tgt > non), abs=3e-3)
    ts = np.linspace(-3, 5, 8001)
    fnr = np.searchsorted(np.sort(tgt), ts) / n
    fpr = 1 - np.searchsorted(np.sort(non), ts) / n
    eer = fnr[np.argmin(np.abs(fnr - fpr))]
    assert dss.trial_truth("eer", d, s2) == pytest.approx(eer, abs=3e-3)


def test_pooled_scores_over_conditions_have_the_truths_scale() -> None:
    # over conditions the shift is inside the pooled unit variance: the pooled AUC of a
    # large draw is the design's 1 - error (Phi(e / sqrt 2))
    d = dss.Design(0, "oppoint", "fnr_at_fpr", 5000, 0.3, 0.1, 50, 0.4, True, param=0.05)
    pop = dss.Population(d)
    x = pop.draw(np.random.default_rng(0))
    y, s = x["y"], x["s"]
    auc = np.mean(s[y == 1][:, None] > s[y == 0][None, :])
    assert auc == pytest.approx(0.9, abs=0.01)
    assert np.std(s[y == 0]) == pytest.approx(1.0, abs=0.05)
    assert pop.truth == pytest.approx(float(ndtr(ndtri(0.95) - math.sqrt(2) * ndtri(0.9))))


#: one cheap design of every family (seed 10's design numbers)
def _family_designs() -> dict[str, object]:
    out: dict[str, object] = {}
    for i in range(200):
        d = dss.random_design(i, 10)
        if d.family not in out and d.n <= 400 and (d.family != "trial" or d.n <= 300):
            out[d.family] = d
    return out


def test_every_family_runs_and_reproduces() -> None:
    designs = _family_designs()
    assert set(designs) == {f[0] for f in dss.FAMILIES}
    for fam, d in designs.items():
        res = dss.run_design(d, REPS, B=100, seed=10)
        assert res["reps"] == REPS and res["failed"] < REPS, (fam, res["errors"])
        assert {"auto", "bca"} <= set(res["methods"]), fam
        assert "verdict" in res
    # the same seed gives the same numbers, whatever ran before
    d = designs["dcf"]
    a, b = (dss.run_design(d, 6, B=100, seed=3) for _ in range(2))
    a.pop("cpu_seconds"), b.pop("cpu_seconds")
    assert a == b
    assert dss.random_design(17, 10) == dss.random_design(17, 10) != dss.random_design(17, 11)


def _res(auto_cov: float, bca_cov: float, warned: int = 0, k: int = 400) -> dict:
    def m(cov: float, width: float) -> dict:
        miss = k - round(cov * k)
        return {"n": k, "coverage": cov, "median_width": width, "misses_low": miss // 2,
                "misses_high": miss - miss // 2, "far_edge": 0}  # fmt: skip

    return {
        "design": {"n": 500},
        "reps": k,
        "failed": 0,
        "errors": [],
        "refused": {},
        "warned": warned,
        "methods": {"auto": m(auto_cov, 0.1), "bca": m(bca_cov, 0.1)},
    }


def test_assessment_flags_a_mislabelled_interval() -> None:
    # a 90% interval labelled 95% (coverage 0.90 of 400) where BCa holds (0.95)
    flags = dss.assess(_res(0.90, 0.95))["verdict"]["flags"]
    assert any("auto under-covers 0.900 where bca holds" in f for f in flags)
    assert any(f.startswith("unwarned") for f in flags)
    # the same coverage warned in every test set: still short where BCa holds, not unwarned
    flags = dss.assess(_res(0.90, 0.95, warned=400))["verdict"]["flags"]
    assert flags and not any(f.startswith("unwarned") for f in flags)
    # a coverage within simulation error of 0.95 is not flagged
    assert dss.assess(_res(0.94, 0.95))["verdict"]["flags"] == []
    # the width against a BCa that falls short is not judged
    res = _res(0.95, 0.80, warned=0)
    res["methods"]["auto"]["median_width"] = 0.5
    assert not any("width" in f for f in dss.assess(res)["verdict"]["flags"])
    res = _res(0.95, 0.95)
    res["methods"]["auto"]["median_width"] = 0.5
    assert any("width 5.00" in f for f in dss.assess(res)["verdict"]["flags"])


def test_a_mislabelled_driver_is_flagged_by_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # the whole pipeline: operating_point_ci whose auto interval is computed at 80% but
    # labelled 95% is flagged under-covering on an ordinary design where BCa holds
    d = dss.Design(0, "oppoint", "fnr_at_fpr", 800, 0.3, 0.1, 0, 0.0, False, param=0.1)
    original = mlci.operating_point_ci

    def mislabelled(*args, **kwargs):
        if "method" not in kwargs:
            kwargs["confidence_level"] = 0.80
        return original(*args, **kwargs)

    monkeypatch.setattr(mlci, "operating_point_ci", mislabelled)
    res = dss.run_design(d, max(40, REPS), B=200, seed=10)
    flags = res["verdict"]["flags"]
    assert any(f.startswith("auto under-covers") for f in flags), dss.ds.table([res])


# ------------------------------------------------- issue 20, item 7: roc_band's level
N_BAND = 1000
BAND_GRID = np.linspace(0.05, 0.6, 20)


def _band_hits() -> int:
    """Experiments (of N_BAND, fixed seeds) whose simultaneous band holds the whole true
    ROC ``Phi(e - z_(1-f))`` on BAND_GRID: the search's band population (binormal, AUC
    0.80), 100 + 100 scores, 200 replicates."""
    d = dss.Design(1, "band", "simultaneous", 200, 0.5, 0.2, 0, 0.0, False, 0.05, 0.6)
    pop = dss.Population(d)
    truth = ndtr(pop.e - ndtri(1 - BAND_GRID))
    hits = 0
    y = np.r_[np.ones(100, dtype=np.int64), np.zeros(100, dtype=np.int64)]
    for i in range(N_BAND):
        g = np.random.default_rng([2028, i])
        s = g.standard_normal(200) + pop.e * y
        with mlci.config_context(n_jobs=1), warnings.catch_warnings():
            warnings.simplefilter("ignore", mlci.NearBoundWarning)  # few events near FPR 0.6
            b = mlci.roc_band(
                mlci.Scores.from_labels(y, s), BAND_GRID, simultaneous=True, rng=g, n_resamples=200
            )
        hits += bool(np.all((b.low <= truth) & (truth <= b.high)))
    return hits


def _level_ok(hits: int) -> bool:
    """Two-sided exact binomial test of coverage 0.95 at level 0.001."""
    return bool(stats.binomtest(hits, N_BAND, 0.95).pvalue > 1e-3)


def test_simultaneous_band_holds_its_level_and_a_90_percent_band_is_rejected(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 1000 experiments, 20 grid points (the sup-t correction matters more than over 8,
    # where a 90% band still covered 0.927 of 400: not rejected).  Measured: 949 of 1000
    # (p 0.88); with the critical value at 90% labelled 95%, 919 (p 3e-5).  The sup-t
    # band alone: the few-events widening (scores/_band_rules.py, at FPRs near 0.6 here)
    # would hide the mutation (with it: 965 and 945 of 1000)
    monkeypatch.setattr(curves, "widen_few_band_events", lambda band, n_pos: band)
    hits = _band_hits()
    assert _level_ok(hits), f"simultaneous band covers {hits / N_BAND:.3f}"
    # the defect item 7 names: the sup-t critical value at 90%, the band labelled 95%
    sup_t = curves._sup_t
    monkeypatch.setattr(curves, "_sup_t", lambda est, dist, level: sup_t(est, dist, level - 0.05))
    bad = _band_hits()
    assert bad < hits and not _level_ok(bad), f"a 90% band covers {bad / N_BAND:.3f}"


# ------------------------------------------------ fixed: a ROC band stuck at TPR = 1
def test_band_point_stuck_at_one_gets_the_wilson_interval() -> None:
    # seed 10's #11: 19 positives, true TPR 0.99998 at FPR 0.4; every positive above the
    # threshold in every replicate, so the percentile band was [1, 1] (covered 0.000 of
    # 150 test sets, unwarned).  Now the Wilson interval of 19 of 19 (statsmodels'
    # proportion_confint(method="wilson"), an independent reference)
    from statsmodels.stats.proportion import proportion_confint

    g = np.random.default_rng(4)
    pos, neg = g.normal(6.0, 1, 19), g.normal(0, 1, 228)
    sc = mlci.Scores(pos, neg)
    grid = np.array([0.2, 0.4, 1.0])
    band = mlci.roc_band(sc, grid, rng=0, n_resamples=300)
    dist = band.result.bootstrap_distribution
    assert np.all(dist == 1.0)  # stuck at 1 at FPR 0.2, 0.4 and 1
    wl, _ = proportion_confint(19, 19, alpha=0.05, method="wilson")
    assert band.low[:2] == pytest.approx([wl, wl], abs=1e-9) and np.all(band.high == 1)
    assert band.low[2] == 1.0  # TPR = 1 at FPR = 1 is fixed: no interval
    assert list(band.extra["edge_points"]) == [0, 1]
    # points with spread keep their percentile interval
    other = mlci.Scores(g.normal(1, 1, 50), g.normal(0, 1, 50))
    b2 = mlci.roc_band(other, grid[:2], rng=0, n_resamples=300)
    q = np.quantile(b2.result.bootstrap_distribution, 0.025, axis=0)
    assert b2.low == pytest.approx(q, abs=0.03) and "edge_points" not in b2.extra
    # simultaneous: the Wilson interval at the sup-t critical value, inside the band
    # (and never below the pointwise value: here no point varies, the sup-t value is 0)
    mixed = mlci.Scores(np.r_[g.normal(6, 1, 18), 1.0], neg)  # one positive at 1.0
    with pytest.warns(mlci.NearBoundWarning):  # 18 of 19 at FPR 0.05 (scores/_band_rules.py)
        sim = mlci.roc_band(mixed, [0.05, 0.4], rng=0, n_resamples=300, simultaneous=True)
    z = max(sim.critical_value, 1.959964)
    assert list(sim.extra["edge_points"]) == [1] and sim.critical_value > 0
    assert sim.low[1] == pytest.approx(19 / (19 + z * z), rel=1e-6) and sim.high[1] == 1
    sim = mlci.roc_band(sc, grid, rng=0, n_resamples=300, simultaneous=True)
    assert sim.critical_value == 0 and sim.low[:2] == pytest.approx([wl, wl])
    # a one-sided band is left as it was
    one = mlci.roc_band(sc, grid, rng=0, n_resamples=300, alternative="greater")
    assert "edge_points" not in one.extra


def test_band_stuck_at_one_covers() -> None:
    # true TPR 0.98 at FPR 0.3 with 30 positives: all 30 above the threshold in about
    # half the test sets, where the percentile band was [1, 1] (a miss each time) unless
    # 2.5% of the replicates moved off 1.  On these 200 seeded test sets: 196 covered
    # (0.980); before the Wilson edge points, 124 (0.620)
    e = float(ndtri(0.98) + ndtri(0.7))
    grid = np.array([0.3])
    hits = 0
    for i in range(200):
        g = np.random.default_rng([2029, i])
        sc = mlci.Scores(g.normal(e, 1, 30), g.normal(0, 1, 120))
        with mlci.config_context(n_jobs=1):
            b = mlci.roc_band(sc, grid, rng=g, n_resamples=200)
        hits += bool(b.low[0] <= 0.98 <= b.high[0])
    assert stats.binomtest(hits, 200, 0.95).pvalue > 1e-3, hits


# --------------------------------------------- found by the search, not fixed here
def _test_set(index: int, seed: int = 10) -> dict:
    d = dss.random_design(index, seed)
    return d, dss.Population(d), dss.Population(d).draw(np.random.default_rng([seed, index, 0]))


def test_reduce_ci_auto_is_bootstrap_cis_auto() -> None:
    import pandas as pd

    d, _, x = _test_set(19)
    assert d.family == "reduce" and d.metric == "accuracy" and d.n_conditions == 6
    frame = pd.DataFrame({"y": x["y"], "a": x["a"], "c": x["conditions"]})
    kw = {"n_resamples": 200, "rng": 0}
    with mlci.config_context(n_jobs=1), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # both warn (6 conditions, 4 errors)
        red = mlci.reduce_ci(frame, "y", "a", metric="accuracy", conditions="c", **kw)
        mem = mlci.bootstrap_ci(x["y"], x["a"], metric="accuracy", conditions=x["conditions"], **kw)
    # fixed (issue 20, item 4): reduce_ci's auto is bootstrap_ci's, the same method,
    # reason and interval (the table's samples through the in-memory engine); seed 10
    # #19 then covered 0.997 of 300 test sets through reduce_ci (logit_t), BCa 0.717
    # (docs/validation.md, "reduce_ci's auto (session 9)"); since session 11 (kgfew) a
    # proportion over fewer than 8 conditions near its bound gets Korn & Graubard's
    # interval widened to hold the logit t, through both doors alike
    assert red.method == mem.method == "korn_graubard"
    assert red.details["method_reason"] == mem.details["method_reason"]
    assert red.confidence_interval == mem.confidence_interval


# found by the seed-10 search and fixed in session 9 (strict xfails until then): the
# actual Cllr of 17 targets of 39 (#10, AUC 0.993, LLRs scaled by 0.71) covered 0.867 of
# 150 and 0.877 of 300 other test sets under BCa (normal 0.833), never warned; the minimum
# Cllr of 4 expected targets of 121 (#26, AUC 0.93) 0.277 and 0.333, warned in 15 and 14.
# Now: #10's costs are too skewed for any interval (scripts/cllr_sweep.py), a
# NearBoundWarning; #26's PAV optimism, an IrregularEstimandWarning (scores/_cllr_rules.py;
# docs/validation.md, "Cllr intervals (session 9)")
@pytest.mark.parametrize(
    ("index", "metric", "category"),
    [
        (10, "cllr", mlci.NearBoundWarning),
        (26, "min_cllr", mlci.IrregularEstimandWarning),
    ],
    ids=["cllr", "min_cllr"],
)
def test_cllr_ci_warns_where_it_under_covers(index: int, metric: str, category: type) -> None:
    d, pop, x = _test_set(index)
    assert d.family == "cllr" and d.metric == metric
    sc = dss._scores(d, pop, x)
    kind = "min" if metric == "min_cllr" else "actual"
    with pytest.warns(category), mlci.config_context(n_jobs=1):
        mlci.cllr_ci(sc, kind=kind, n_resamples=200, rng=0)
    # the search's judgement is per design: warned in most of its test sets (150 test sets
    # of the search: #10 123, #26 131); here the first 20 (seeded as the search draws them):
    # #10 15, #26 17
    warned = 0
    for i in range(20):
        y = pop.draw(np.random.default_rng([10, index, i]))
        with warnings.catch_warnings(record=True) as caught, mlci.config_context(n_jobs=1):
            warnings.simplefilter("always")
            mlci.cllr_ci(dss._scores(d, pop, y), kind=kind, n_resamples=200, rng=i)
        warned += any(issubclass(w.category, category) for w in caught)
    assert warned >= 10, warned


def test_metric_by_group_rate_without_errors_gets_wilson() -> None:
    # fixed: metric_by_group's auto (BCa) collapsed a group's rate at a threshold onto 0
    # when the group had no error (a DegenerateIntervalWarning), where
    # operating_point_ci's auto gives a score interval: seed 10 #37 (fnr of the smallest
    # of 4 groups) covered 0.016 of 62 test sets, Wilson's 0.984.  Now the Wilson interval
    # of the group's class size (statsmodels' proportion_confint, method="wilson"), no
    # warning (filterwarnings=error)
    from statsmodels.stats.proportion import proportion_confint

    g = np.random.default_rng(0)
    y = np.r_[np.ones(15), np.zeros(100), np.ones(40), np.zeros(100)].astype(int)
    grp = np.r_[np.zeros(115), np.ones(140)].astype(int)
    s = np.r_[g.normal(5, 0.5, 15), g.normal(0, 1, 100), g.normal(1.5, 1, 40), g.normal(0, 1, 100)]
    kw = {"groups": grp, "metric": "fnr", "threshold": [1.0, 6.0], "n_resamples": 200, "rng": 0}
    res = mlci.metric_by_group(y, s, **kw)
    rows = res.rows()
    assert res.details["edge_interval_rows"] == (0, 1, 3, 5)
    for i, (k, n) in {0: (0, 15), 1: (15, 15), 3: (40, 40), 5: (55, 55)}.items():
        lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
        assert (rows[i]["low"], rows[i]["high"]) == pytest.approx((lo, hi), abs=1e-9)
    # a rate with errors keeps its bootstrap interval (the same as method="bca")
    with pytest.warns(mlci.DegenerateIntervalWarning):
        bca = mlci.metric_by_group(y, s, method="bca", **kw).rows()
    assert rows[2] == bca[2] and rows[4] == bca[4]
    assert (bca[0]["low"], bca[0]["high"]) == (0.0, 0.0)  # BCa alone: the collapse
    # fpr: the negatives' count; with sample_weight the rule stands aside (and warns)
    fpr = mlci.metric_by_group(y, s, **{**kw, "metric": "fpr", "threshold": [10.0]}).rows()
    assert fpr[0]["high"] == pytest.approx(proportion_confint(0, 100, method="wilson")[1])
    with pytest.warns(mlci.DegenerateIntervalWarning):
        mlci.metric_by_group(y, s, sample_weight=np.ones(len(y)), **kw)
