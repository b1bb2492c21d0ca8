"""The default interval near the edge of the metric's range (issue 20, item 1).

A strong system with a handful of errors: with 1 error in 100 samples a resample has
no error with probability 0.99^100 = 0.37 > alpha/2, so on the logit scale a bootstrap-t
quantile was infinite and the default interval was the range (f1 0.99 [0, 0.999], mcc
[-1, 0.997], roc_auc [0, 0.9996]).  Where at least half of a tail's replicates have an
infinite t*, the studentized interval gives, for a decision metric, Clopper-Pearson's
interval on the effective sample size of the same standard error (Korn & Graubard 1998;
``mlci.intervals.bootstrap.effective_binomial_interval``; before wt-auto2 the logit t
interval, Korn & Graubard 1999's logit interval, which the ranking metrics keep).  The
reference values are scipy's beta quantiles at the effective counts (``_cp_reference``;
for a proportion of independent samples statsmodels' ``proportion_confint(method="beta")``
below), and the widths are those of Wilson's score interval for the error share (Brown,
Cai & DasGupta 2001, eq. 4), to within a factor 1.6, and of BCa's, within 1.5.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from scipy.special import expit, logit

import mlci
from mlci.intervals.bootstrap import edge_dominated, studentized_interval

DECISION = ("f1", "mcc", "balanced_accuracy", "cohen_kappa")


def _few_errors(n, k, *, low_end=False, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = y.copy()
    p[:k] = 1 - p[:k]
    if low_end:  # all wrong but k: f1 near 0, mcc near -1
        p = 1 - p
    score = np.where(p == 1, 0.7 + 0.3 * rng.random(n), 0.3 * rng.random(n))
    return y, p, score


def _wilson_width(k, n, z=1.959964):
    p = k / n
    return 2 * z / (1 + z * z / n) * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))


def _mover_reference(y, p, level=0.95):
    """MOVER (Zou & Donner 2008) of the two classes' modified Wilson intervals, from
    statsmodels' Wilson and the one-sided Poisson bound (scipy's chi2) for 1-3 failures
    (Brown, Cai & DasGupta 2001, sec. 4.1.1; n > 50)."""
    from statsmodels.stats.proportion import proportion_confint

    rates, lows, highs = [], [], []
    for cls in (0, 1):
        n, k = int(np.sum(y == cls)), int(np.sum((y == cls) & (p == cls)))
        lo, hi = proportion_confint(k, n, alpha=1 - level, method="wilson")
        if 1 <= n - k <= 3:
            hi = 1 - stats.chi2.ppf(1 - level, 2 * (n - k)) / (2 * n)
        if 1 <= k <= 3:
            lo = stats.chi2.ppf(1 - level, 2 * k) / (2 * n)
        rates.append(k / n)
        lows.append(lo)
        highs.append(hi)
    r, lo, hi = np.array(rates), np.array(lows), np.array(highs)
    est = r.mean()
    return est - 0.5 * np.sqrt(np.sum((r - lo) ** 2)), est + 0.5 * np.sqrt(np.sum((hi - r) ** 2))


def _cp_reference(res, level=0.95):
    """Clopper-Pearson at the effective counts of ``res``'s linearization (scipy's beta)."""
    lo, hi = res.bounds
    lin = res.details["linearized"]
    u = (float(res.estimate) - lo) / (hi - lo)
    se_u = float(lin["standard_error"]) / (hi - lo)
    n = u * (1 - u) / se_u**2
    a = 1 - level
    if not lin["iid"]:  # Korn & Graubard's degrees-of-freedom adjustment
        n *= (stats.norm.ppf(1 - a / 2) / stats.t.ppf(1 - a / 2, lin["df"])) ** 2
    k = u * n
    low = stats.beta.ppf(a / 2, k, n - k + 1)
    high = stats.beta.ppf(1 - a / 2, k + 1, n - k)
    return lo + (hi - lo) * low, lo + (hi - lo) * high


def test_effective_binomial_interval_is_clopper_pearson_for_a_proportion():
    from statsmodels.stats.proportion import proportion_confint

    from mlci.intervals.bootstrap import effective_binomial_interval

    for k, n in ((99, 100), (197, 200), (3, 500), (1, 100)):
        p = k / n
        se = np.sqrt(p * (1 - p) / n)
        got = effective_binomial_interval(p, se, None, confidence_level=0.95)[:2]
        # statsmodels: the exact (Clopper-Pearson) interval, method="beta"
        assert_allclose(got, proportion_confint(k, n, method="beta"), rtol=1e-10)
    # MCC's range (-1, 1): the same interval on the rescaled value
    got = effective_binomial_interval(
        0.98, 2 * np.sqrt(0.99 * 0.01 / 100), None, confidence_level=0.95, bounds=(-1, 1)
    )[:2]
    ref = proportion_confint(99, 100, method="beta")
    assert_allclose(got, 2 * np.asarray(ref) - 1, rtol=1e-10)
    # undefined on the edge of the range or without a standard error
    low, high, info = effective_binomial_interval(1.0, 0.0, None, confidence_level=0.95)
    assert np.isnan(low) and np.isnan(high) and info["undefined"] == 1


@pytest.mark.parametrize("metric", DECISION)
@pytest.mark.parametrize(("n", "k"), [(100, 1), (200, 2), (300, 3), (500, 3)])
def test_few_errors_get_bca_width_not_the_range(metric, n, k):
    y, p, _ = _few_errors(n, k)
    auto = mlci.bootstrap_ci(y, p, metric=metric, rng=0)
    bca = mlci.bootstrap_ci(y, p, metric=metric, rng=0, method="bca")
    lo_edge = -1.0 if metric in ("mcc", "cohen_kappa") else 0.0
    # before the fix: the lower bound was the range's edge (0 or -1)
    assert auto.confidence_interval.low > lo_edge + 0.5
    if metric == "balanced_accuracy":
        # a class with 0-3 errors of its own: MOVER of the classes' modified Wilson
        # intervals (engine/class_edge.py; tests/engine/test_class_edge.py has its
        # statsmodels reference), before Korn & Graubard's interval
        assert_allclose(tuple(auto.confidence_interval), _mover_reference(y, p), rtol=1e-10)
        # labelled with the interval it holds (issue 20 item 4: was "studentized")
        assert auto.method == "mover_wilson"
        assert auto.details["edge_fallback_method"] == "mover_wilson"
        assert "mover_wilson" in auto.details["method_reason"]
    else:
        assert_allclose(tuple(auto.confidence_interval), _cp_reference(auto), rtol=1e-10)
        # labelled with the interval it holds (a method= that gives it again);
        # method_reason says why
        assert auto.method == "korn_graubard"
        assert auto.details["edge_fallback_method"] == "korn_graubard"
        assert "infinite bootstrap-t" in auto.details["method_reason"]
        assert "Clopper-Pearson" in auto.details["method_reason"]
    assert auto.details["edge_fallback"] == 1
    width = auto.confidence_interval.high - auto.confidence_interval.low
    scale = 2.0 if metric in ("mcc", "cohen_kappa") else 1.0  # mcc, kappa ~ 1 - 2 err
    assert width < 1.6 * scale * _wilson_width(k, n)
    assert width < 1.5 * (bca.confidence_interval.high - bca.confidence_interval.low)


# (and the near-bound AUC rule of 20-149 samples of a class: tests/engine/test_auc_near_edge.py)
@pytest.mark.filterwarnings(r"ignore:Only \d+ samples in the smaller class of a ROC AUC")
def test_roc_auc_near_one_falls_back_and_warns():
    # a ranking metric falls back too, but warns: on such test sets no interval held its
    # level in the near-bound study (logit t 0.85-0.88, BCa 0.81-0.86)
    # (studentized named: under auto such an AUC gets the analytic interval of
    # tests/engine/test_auc_analytic.py)
    y, _, s = _few_errors(100, 1)
    with pytest.warns(mlci.NearBoundWarning, match="no interval held its level"):
        auto = mlci.bootstrap_ci(y, s, metric="roc_auc", rng=0, method="studentized")
    ref = mlci.bootstrap_ci(y, s, metric="roc_auc", rng=0, method="logit_t")
    assert auto.method == "logit_t"
    assert auto.confidence_interval.low > 0.85  # was 0.0
    assert_allclose(tuple(auto.confidence_interval), tuple(ref.confidence_interval), rtol=1e-12)
    assert "near the edge" in auto.details["warning"]


# few positives: the AUC's class-size warning (MIN_AUC_CLASS) is tested in
# tests/engine/test_auc_few_class.py
@pytest.mark.filterwarnings(r"ignore:Only \d+ samples in the smaller class of a ROC AUC")
def test_roc_auc_few_positives_keeps_the_wide_bound_and_warns():
    # 5 positives (the coverage map's AUC 0.8 cell): the logit t interval covered 0.77 on
    # its edge-dominated test sets, the studentized one 0.94 (by reaching the edge): kept
    rng = np.random.default_rng(3)
    y = np.r_[np.ones(5, int), np.zeros(95, int)]
    s = np.r_[rng.normal(3.0, 1, 5), rng.normal(0, 1, 95)]
    seeds = [r for r in range(40) if _dominated(y, s, r)]
    assert seeds, "no edge-dominated replicate set found"
    # (studentized named: under auto 5 positives get the analytic interval)
    with pytest.warns(mlci.NearBoundWarning, match="wide studentized bound is kept"):
        res = mlci.bootstrap_ci(y, s, metric="roc_auc", rng=seeds[0], method="studentized")
    assert res.method == "studentized" and "edge_fallback" not in res.details


def _dominated(y, s, seed):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = mlci.bootstrap_ci(y, s, metric="roc_auc", rng=seed, method="studentized")
    lin = r.details["linearized"]
    return bool(
        edge_dominated(
            r.estimate, lin["standard_error"], r.bootstrap_distribution,
            r.replicate_standard_errors, confidence_level=0.95, bounds=r.bounds,
        )
    )  # fmt: skip


@pytest.mark.parametrize("metric", ["f1", "mcc"])
def test_low_end(metric):
    y, p, _ = _few_errors(100, 1, low_end=True)
    auto = mlci.bootstrap_ci(y, p, metric=metric, rng=0)
    hi_edge = 1.0
    assert auto.confidence_interval.high < hi_edge - 0.8  # f1 0.019 was [0.002, 1.0]
    assert_allclose(tuple(auto.confidence_interval), _cp_reference(auto), rtol=1e-10)


def _mover_kg_reference(y, p, cond, level=0.95):
    """MOVER (Zou & Donner 2008) of the two classes' Korn & Graubard intervals over the
    conditions: each rate's Clopper-Pearson at its effective counts (``_cp_reference`` of
    ``bootstrap_ci(metric="specificity"/"recall", method="korn_graubard")``; scipy's
    beta), the exact interval of the class's size for a class without an error."""
    rates, lows, highs = [], [], []
    for metric, cls in (("specificity", 0), ("recall", 1)):
        with warnings.catch_warnings():  # a rate of 1 over conditions: the design warning
            warnings.simplefilter("ignore", mlci.FewConditionsWarning)
            r = mlci.bootstrap_ci(y, p, metric=metric, conditions=cond, method="korn_graubard")
        n = int(np.sum(y == cls))
        if r.estimate == 1:  # scipy's binomtest(n, n): [(a/2)^(1/n), 1]
            lo, hi = stats.binomtest(n, n).proportion_ci(level).low, 1.0
        else:
            lo, hi = _cp_reference(r, level)
        rates.append(float(r.estimate))
        lows.append(lo)
        highs.append(hi)
    r, lo, hi = np.array(rates), np.array(lows), np.array(highs)
    est = r.mean()
    return est - 0.5 * np.sqrt(np.sum((r - lo) ** 2)), est + 0.5 * np.sqrt(np.sum((hi - r) ** 2))


@pytest.mark.parametrize("metric", DECISION)
def test_with_conditions(metric):
    y, p, _ = _few_errors(200, 2)
    cond = np.repeat(np.arange(25), 8)
    if metric == "balanced_accuracy":
        # a class without an error: its rate's near-bound warning, as specificity's of the
        # same data (since session 9, seed-11 #58)
        with pytest.warns(mlci.FewConditionsWarning, match="rate \\(specificity\\) of 1"):
            auto = mlci.bootstrap_ci(y, p, metric=metric, conditions=cond, rng=1)
    elif metric in ("f1", "mcc", "cohen_kappa"):
        # two errors in one or two of 25 conditions: the design effect rests on them
        # (engine/error_conditions.py, seed-14 #53, session 11)
        with pytest.warns(mlci.FewConditionsWarning, match="errors fall in"):
            auto = mlci.bootstrap_ci(y, p, metric=metric, conditions=cond, rng=1)
    else:
        auto = mlci.bootstrap_ci(y, p, metric=metric, conditions=cond, rng=1)
    assert auto.confidence_interval.low > 0.5
    assert auto.details["linearized"]["df"] < 25  # the t reference over 25 conditions
    if metric == "balanced_accuracy":  # a class's own few errors: MOVER over conditions
        assert auto.details["edge_fallback_method"] == "mover_korn_graubard"
        ref = _mover_kg_reference(y, p, cond)
    else:
        ref = _cp_reference(auto)
    assert_allclose(tuple(auto.confidence_interval), ref, rtol=1e-10)


def test_compare_system_rows():
    y, p, _ = _few_errors(200, 1)
    q = y.copy()
    q[[5, 150]] = 1 - q[[5, 150]]
    # 3 discordant samples: the difference's interval is warned about (few discordant)
    with pytest.warns(mlci.DegenerateIntervalWarning, match="discordant samples"):
        res = mlci.compare(y, {"A": p, "B": q}, metric="f1", rng=0)
    for name in ("A", "B"):
        ci = res.systems[name].confidence_interval
        assert ci.low > 0.9, (name, ci)  # was 0.0


def test_explicit_studentized_and_reread():
    y, p, _ = _few_errors(100, 1)
    st = mlci.bootstrap_ci(y, p, metric="f1", rng=0, method="studentized")
    assert_allclose(tuple(st.confidence_interval), _cp_reference(st), rtol=1e-10)
    # re-reading the same replicates at the same level gives the same interval and says
    # the same method; at 99% too (the rule decides alike up to 99%)
    again = st.interval()
    assert_allclose(tuple(again.confidence_interval), tuple(st.confidence_interval))
    assert st.details["edge_fallback_method"] == "korn_graubard"
    assert again.method == st.method == "korn_graubard"
    direct = mlci.bootstrap_ci(y, p, metric="f1", rng=0, confidence_level=0.99)
    reread = st.interval(confidence_level=0.99)
    assert reread.method == direct.method == "korn_graubard"
    assert_allclose(tuple(reread.confidence_interval), tuple(direct.confidence_interval))
    assert_allclose(tuple(direct.confidence_interval), _cp_reference(st, 0.99), rtol=1e-10)


def test_seed_reproduces_across_batch_and_jobs():
    y, p, _ = _few_errors(300, 3)
    a = mlci.bootstrap_ci(y, p, metric="mcc", rng=5)
    with mlci.config_context(batch=37, n_jobs=2):
        b = mlci.bootstrap_ci(y, p, metric="mcc", rng=5)
    assert tuple(a.confidence_interval) == tuple(b.confidence_interval)


def test_away_from_the_edge_unchanged():
    # 30 errors in 200: no replicate without an error; the studentized interval stands
    y, p, _ = _few_errors(200, 30)
    res = mlci.bootstrap_ci(y, p, metric="f1", rng=0)
    assert res.method == "studentized"
    assert "edge_fallback" not in res.details
    assert "infinite" not in res.details["method_reason"]


def test_edge_dominated_threshold():
    # 25 of 1000 replicates at the upper edge (t* = +inf) fill the upper 2.5% tail
    dist = np.r_[np.full(25, 1.0), np.linspace(0.95, 0.99, 975)]
    se = np.where(dist == 1.0, 0.0, 0.01)
    kw = {"confidence_level": 0.95, "bounds": (0.0, 1.0)}
    assert edge_dominated(0.97, 0.01, dist, se, **kw)
    # the share is taken of at most a 99% interval's tail (0.005): 3 of 1000 reach half
    # of it at every level up to 99% (so the intervals nest), 2 of 1000 do not
    for k, expected in ((3, True), (2, False)):
        dist2 = np.r_[np.full(k, 1.0), np.linspace(0.95, 0.99, 1000 - k)]
        se2 = np.where(dist2 == 1.0, 0.0, 0.01)
        for level in (0.8, 0.95, 0.99):
            got = edge_dominated(0.97, 0.01, dist2, se2, confidence_level=level, bounds=(0, 1))
            assert bool(got) is expected, (k, level)
    # one-sided, either tail decides too (as the two-sided interval at 1 - 2 alpha, whose
    # bound it is): "less" falls back though these replicates reach only the lower bound
    assert edge_dominated(0.97, 0.01, dist, se, alternative="less", **kw)
    # without degrees of freedom the fallback is the percentile interval
    low, high, info = studentized_interval(0.97, 0.01, dist, se, **kw)
    assert info["edge_fallback_method"] == "percentile"
    assert 0.95 <= low < 0.97 < high <= 1.0
    # with them, the logit t interval: logit(0.97) -/+ t_99 * 0.01 / (0.97 * 0.03)
    low, high, info = studentized_interval(0.97, 0.01, dist, se, df=99, **kw)
    half = stats.t.ppf(0.975, 99) * 0.01 / (0.97 * 0.03)
    assert info["edge_fallback_method"] == "logit_t"
    assert_allclose([low, high], expit(logit(0.97) + np.array([-half, half])), rtol=1e-12)


@pytest.mark.parametrize("metric", DECISION)
@pytest.mark.parametrize(("n", "k"), [(100, 1), (300, 3), (400, 4), (500, 5)])
def test_levels_nest(metric, n, k):
    # a 99% interval contains the 95% one, which contains the 90% one: the rule decides
    # alike at every level up to 99% (tests/test_properties.py found a 99% logit t interval
    # that did not contain the 95% studentized one when the rule followed the level)
    y, p, _ = _few_errors(n, k)
    res = mlci.bootstrap_ci(y, p, metric=metric, rng=2, confidence_level=[0.9, 0.95, 0.99])
    for inner, outer in itertools.pairwise(res):
        assert outer.confidence_interval.low <= inner.confidence_interval.low + 1e-12
        assert outer.confidence_interval.high >= inner.confidence_interval.high - 1e-12


@pytest.mark.parametrize("metric", ["balanced_accuracy", "f1", "mcc", "cohen_kappa"])
def test_auto_few_positives_is_percentile_and_warned(metric: str) -> None:
    """Fewer than MIN_CLASS (5) samples of a class: auto gives percentile and warns.

    The design search's cell "balanced_accuracy 3 positives in 217": the studentized
    interval covered 0.51-0.57, percentile 0.81-0.835, BCa 0.78-0.81 (no method holds).
    """
    from mlci.engine.auto import FEW_CLASS_REASON, MIN_CLASS
    from mlci.exceptions import FewConditionsWarning

    gen = np.random.default_rng(0)
    y = np.zeros(217, dtype=int)
    y[:3] = 1
    pred = np.where(gen.random(217) < 0.2, 1 - y, y)
    pred[0] = 1  # a true positive: f1 and kappa are not 0
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        res = mlci.bootstrap_ci(y, pred, metric=metric, rng=0, n_resamples=500)
    assert any(
        issubclass(w.category, FewConditionsWarning)
        and f"Only 3 samples of one class: below {MIN_CLASS}" in str(w.message)
        for w in seen
    )
    if metric == "balanced_accuracy":
        # since session 9: MOVER of the classes' modified Wilson intervals, still warned
        # (seed-11 #13; tests/engine/test_class_edge_session9.py)
        assert res.method == "mover_wilson"
    else:
        assert res.method == "percentile"
        assert res.details["method_reason"].startswith(FEW_CLASS_REASON)
    assert "warning" in res.details
    # with MIN_CLASS positives the rule does not apply
    y[3 : 3 + MIN_CLASS] = 1
    pred[3 : 3 + MIN_CLASS] = 1
    res = mlci.bootstrap_ci(y, pred, metric=metric, rng=0, n_resamples=500)
    assert res.method in ("studentized", "korn_graubard", "mover_wilson")
    assert not res.details["method_reason"].startswith(FEW_CLASS_REASON)
    # an explicit method is kept (and warned about: outside the map)
    y[3 : 3 + MIN_CLASS] = 0
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        res = mlci.bootstrap_ci(
            y, pred, metric=metric, rng=0, n_resamples=500, method="studentized"
        )
    assert any(issubclass(w.category, FewConditionsWarning) for w in seen)
    assert res.details["linearized"] is not None


def test_average_precision_few_positives_falls_back_and_warns() -> None:
    """Fewer than MIN_CLASS_EDGE positives, near the edge: AP gets the logit t interval,
    warned, where the kept studentized bound reached 0.

    The design search's cell "average_precision 0.97 n=64": on its test sets with 6-9
    positives the kept studentized interval covered 0.43 (57% of them reaching 0), the
    logit t 0.46, BCa 0.57 (docs/validation.md, "Near the bounds"): no method holds, and
    the wide bound bought no coverage, so AP falls back like the other metrics.  Before
    (issue 20): 7 of these 10 test sets reached 0.
    """
    from mlci.engine.auto import MIN_CLASS_EDGE
    from mlci.exceptions import NearBoundWarning

    fell_back = 0
    for seed in range(2, 12):
        gen = np.random.default_rng(seed)
        y = np.r_[np.zeros(56), np.ones(MIN_CLASS_EDGE - 2)].astype(int)
        s = np.r_[gen.normal(0, 1, 56), gen.normal(2.5, 1, MIN_CLASS_EDGE - 2)]
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            res = mlci.bootstrap_ci(y, s, metric="average_precision", rng=0)
        assert res.confidence_interval[0] > 0.2, seed
        if res.method == "logit_t":
            fell_back += 1
            ref = mlci.bootstrap_ci(y, s, metric="average_precision", rng=0, method="logit_t")
            assert_allclose(tuple(res.confidence_interval), tuple(ref.confidence_interval))
            assert any(issubclass(w.category, NearBoundWarning) for w in seen), seed
            assert "warning" in res.details
    assert fell_back >= 5  # the test exercises the case


def test_korn_graubard_as_a_method_of_its_own():
    # method="korn_graubard" asks for the near-bound interval directly: for accuracy of
    # independent samples it is Clopper-Pearson's exact interval at the linearized
    # effective size (scipy binomtest(99, 100) gives [0.94554, 0.99975]; the linearized
    # standard error uses n - 1, hence the small difference), and on the edge of the range
    # (100/100) the exact interval of the nominal size: binomtest(100, 100) [0.96378, 1]
    y = np.r_[np.ones(70, int), np.zeros(30, int)]
    p = y.copy()
    p[0] = 0
    one = mlci.bootstrap_ci(y, p, metric="accuracy", method="korn_graubard", rng=0)
    assert one.method == "korn_graubard"
    assert_allclose(tuple(one.confidence_interval), (0.94554, 0.99975), atol=5e-4)
    none = mlci.bootstrap_ci(y, y, metric="accuracy", method="korn_graubard", rng=0)
    assert_allclose(tuple(none.confidence_interval), (0.9637833073548094, 1.0), rtol=1e-12)
    # an unbounded metric has no binomial counterpart: a clear error
    with pytest.raises(ValueError, match=r"korn_graubard.*bounded"):
        mlci.bootstrap_ci(
            y.astype(float), p.astype(float), metric="mse", method="korn_graubard", rng=0
        )


def test_unbounded_metric_edge_gets_t_interval_not_nan() -> None:
    """A mean of 30 values with 2 zeros and 28 twos: a quarter of the resamples have no
    spread (t* = inf), so the studentized interval is edge-dominated; an unbounded metric
    has no binomial analogue, so the fallback is the t interval of the same standard error
    (it was Korn-Graubard, NaN).  Reference: scipy.stats.t.interval(0.95, 29, mean,
    sd/sqrt(n)) = (1.67719432002, 2.05613901332).

    Twos, not ones: a mean of 0/1 values is a proportion since issue 20 (Wilson's
    interval, tests/engine/test_mean_proportion.py); the rule tested here is the one of a
    mean of other values, whose resamples have no spread all the same."""
    x = np.r_[np.zeros(2), np.full(28, 2.0)]
    # resamples without spread: warned (the t interval does not hold there)
    with pytest.warns(mlci.NearBoundWarning, match="no spread"):
        res = mlci.bootstrap_ci(x, metric="mean", rng=0)
    assert res.method == "t"
    assert "no spread" in res.details["warning"]
    np.testing.assert_allclose(res.confidence_interval, (1.67719432002, 2.05613901332), atol=1e-9)
    with pytest.warns(mlci.NearBoundWarning, match="no spread"):
        res_w = mlci.bootstrap_ci(
            np.ones(6), np.array([0, 0, 2, 2, 2, 2.0]), metric="weighted_mean", rng=0
        )
    assert np.all(np.isfinite(res_w.confidence_interval))


def test_weighted_mean_zero_se_up_to_rounding_is_no_spread() -> None:
    """A weighted mean of 6 values in [0.2, 0.8] with 0/1 weights: a resample holding a
    single distinct weighted sample has no spread, but its linearized standard error
    comes out as ~1e-8 (cancellation), not 0, so its t* was ~1e7 and the studentized
    interval was [-68,950, 0.899] without a word.  Such standard errors count as zero
    (``ZERO_SE_SHARE``): the tail is edge-dominated and the t interval is given.
    Reference: the t interval of the ratio estimator's linearized standard error,
    0.525 -+ scipy.stats.t.ppf(0.975, 5) * 0.118585412265 = (0.22016, 0.82984)."""
    from scipy import stats

    w = np.array([1, 0, 1, 1, 0, 1.0])
    v = np.array([0.2, 0.3, 0.5, 0.6, 0.7, 0.8])
    with pytest.warns(mlci.NearBoundWarning, match="no spread"):
        res = mlci.bootstrap_ci(w, v, metric="weighted_mean", rng=1)
    assert res.method == "t"
    half = stats.t.ppf(0.975, 5) * 0.11858541226514432
    np.testing.assert_allclose(res.confidence_interval, (0.525 - half, 0.525 + half), atol=1e-9)
    assert "no spread" in res.details["method_reason"]
    # the same rule through the replicates' re-reading at another level
    again = res.interval(confidence_level=0.9)
    assert 0.2 < again.confidence_interval[0] < again.confidence_interval[1] < 0.85
