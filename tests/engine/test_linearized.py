"""The linearized interval methods ("studentized", "t", "wilson") and method="auto".

References computed independently in each test: scipy's t quantiles and the Wilson
formula (Brown, Cai & DasGupta 2001, eq. 4) via mlci.proportion_ci (itself checked
against statsmodels); the CR2 standard error of a clustered proportion by hand (Bell &
McCaffrey 2002, intercept-only model); DeLong's variance via mlci.delong_ci (checked
against pROC); numerical derivatives of scikit-learn metrics.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm

import mlci
from mlci.engine.linearize import (
    Linearization,
    icc_anova,
    random_effects_df,
)
from mlci.engine.nested import plan_for_conditions
from mlci.intervals.bootstrap import (
    logit_t_interval,
    studentized_interval,
    studentized_pvalue,
    wilson_interval,
)
from mlci.metrics import get_kernel
from mlci.metrics._base import numeric_gradient

RNG = np.random.default_rng(7)
N = 400
Y = RNG.integers(0, 2, N)
PRED = np.where(RNG.random(N) < 0.8, Y, 1 - Y)
SCORE = RNG.normal(size=N) + Y
SPK = np.repeat(np.arange(16), 25)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def test_wilson_iid_is_wilsons_interval():
    res = mlci.bootstrap_ci(Y, PRED, metric="accuracy", method="wilson", rng=0)
    ref = mlci.proportion_ci(int(np.sum(Y == PRED)), N, method="wilson")
    assert res.confidence_interval == pytest.approx(tuple(ref.confidence_interval), abs=1e-12)
    assert res.details["linearized"]["design_effect"] == 1.0


@pytest.mark.parametrize("metric", ["recall", "precision", "specificity", "npv", "fpr"])
def test_wilson_of_a_rate_uses_its_denominator(metric):
    tp = int(np.sum((Y == 1) & (PRED == 1)))
    fp = int(np.sum((Y == 0) & (PRED == 1)))
    fn = int(np.sum((Y == 1) & (PRED == 0)))
    tn = int(np.sum((Y == 0) & (PRED == 0)))
    k, n = {
        "recall": (tp, tp + fn),
        "precision": (tp, tp + fp),
        "specificity": (tn, tn + fp),
        "npv": (tn, tn + fn),
        "fpr": (fp, fp + tn),
    }[metric]
    res = mlci.bootstrap_ci(Y, PRED, metric=metric, method="wilson", rng=0)
    ref = mlci.proportion_ci(k, n, method="wilson")
    assert res.confidence_interval == pytest.approx(tuple(ref.confidence_interval), abs=1e-12)


def _ik_df_by_definition(sizes, rho):
    """Imbens & Kolesar (2016), sec. 5: K = (sum lambda)^2 / sum lambda^2, lambda the
    eigenvalues of G' Omega G, G's column c = (I - H)[:, c] A_c X_c (X'X)^-1 with
    A_c = (I - H_cc)^-1/2, built here from the matrices (X = 1, a regression on a
    constant), Omega = (1 - rho) I + rho blockdiag(J)."""
    sizes = np.asarray(sizes, dtype=int)
    n = int(sizes.sum())
    g_of = np.repeat(np.arange(len(sizes)), sizes)
    x = np.ones((n, 1))
    xtx_inv = np.linalg.inv(x.T @ x)
    h = x @ xtx_inv @ x.T
    m = np.eye(n) - h
    cols = []
    for c in range(len(sizes)):
        idx = np.flatnonzero(g_of == c)
        w, v = np.linalg.eigh(np.eye(len(idx)) - h[np.ix_(idx, idx)])
        a_c = v @ np.diag(w**-0.5) @ v.T
        cols.append((m[:, idx] @ a_c @ x[idx] @ xtx_inv)[:, 0])
    g = np.column_stack(cols)
    omega = (1 - rho) * np.eye(n) + rho * (g_of[:, None] == g_of[None, :])
    lam = np.linalg.eigvalsh(g.T @ omega @ g)
    return lam.sum() ** 2 / np.sum(lam**2)


@pytest.mark.parametrize("rho", [0.0, 0.1, 0.4])
def test_random_effects_df_is_imbens_kolesar_by_definition(rho):
    sizes = [5, 8, 10, 13, 16, 19, 21, 24, 27, 30, 32, 35]
    assert random_effects_df(sizes, rho) == pytest.approx(_ik_df_by_definition(sizes, rho))
    # equal sizes: C - 1 whatever rho (the balanced one-way design)
    assert random_effects_df([20] * 9, rho) == pytest.approx(8.0)
    # unequal sizes and a positive ICC: fewer than Bell & McCaffrey's (rho = 0)
    if rho > 0:
        assert random_effects_df(sizes, rho) < random_effects_df(sizes, 0.0)


def test_icc_anova_from_scipy_one_way_anova():
    rng = np.random.default_rng(3)
    sizes = np.array([6, 9, 12, 15, 20, 25])
    p_c = rng.beta(4, 1, size=len(sizes))
    ys = [(rng.random(m) < p).astype(float) for m, p in zip(sizes, p_c, strict=True)]
    f = stats.f_oneway(*ys).statistic  # MSB / MSW
    n, c = sizes.sum(), len(sizes)
    n0 = (n - np.sum(sizes**2) / n) / (c - 1)
    k = np.array([y.sum() for y in ys])
    assert icc_anova(k, sizes) == pytest.approx(max((f - 1) / (f + n0 - 1), 0.0))
    assert icc_anova(np.array([3.0, 3.0]), np.array([6.0, 6.0])) == 0.0  # no between


def test_logit_t_interval_by_hand_and_over_conditions():
    # the logit interval of a proportion (Korn & Graubard 1999)
    low, high, info = logit_t_interval(0.9, 0.03, 14, confidence_level=0.9, bounds=(0, 1))
    q = stats.t.ppf(0.95, 14)
    half = q * 0.03 / (0.9 * 0.1)
    lg = np.log(0.9 / 0.1)
    ref = (1 / (1 + np.exp(-(lg - half))), 1 / (1 + np.exp(-(lg + half))))
    assert (float(low), float(high)) == pytest.approx(ref, rel=1e-12)
    assert info == {"df": 14.0, "scale": "logit"}
    res = mlci.bootstrap_ci(Y, PRED, metric="accuracy", conditions=SPK, method="logit_t", rng=0)
    lin = res.details["linearized"]
    p = float(np.mean(Y == PRED))
    low, high, _ = logit_t_interval(
        p, lin["standard_error"], lin["df"], confidence_level=0.95, bounds=(0, 1)
    )
    assert res.confidence_interval == pytest.approx((float(low), float(high)), rel=1e-12)
    # no error in the test set: no logit; Wilson on the nominal size instead
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        perfect = mlci.bootstrap_ci(
            Y, Y, metric="accuracy", conditions=SPK, method="logit_t", rng=0
        )
    assert any("0 effective minority outcomes" in str(w.message) for w in caught)
    assert "wilson used" in perfect.details["fallback"]
    assert perfect.confidence_interval.high == 1.0 and perfect.confidence_interval.low < 1.0


@pytest.mark.parametrize(
    ("level", "ref"),
    [
        (0.95, (0.783153628237710, 0.838692871296302)),
        (0.90, (0.788596388774924, 0.834268827289280)),
    ],
)
def test_logit_t_is_r_survey_svyciprop_logit(level, ref):
    # R 4.2.2, survey 4.1-1 (Debian r-cran-survey), on the (SPK, Y == PRED) data of
    # this module: d <- data.frame(spk, correct); des <- svydesign(ids = ~spk, data = d)
    # confint(svyciprop(~correct, des, method = "logit", level = level)); degf = 15.
    # Equal condition sizes: CR2 = CR1 (survey's linearization) and K_IK = C - 1 = degf.
    # Tolerance: svyglm's iterative fit (its standard error 0.013022416570 vs 0.013022415262)
    res = mlci.bootstrap_ci(
        Y,
        PRED,
        metric="accuracy",
        conditions=SPK,
        method="logit_t",
        confidence_level=level,
        rng=0,
        n_resamples=100,
    )
    assert res.details["linearized"]["df"] == pytest.approx(15.0)
    assert res.confidence_interval == pytest.approx(ref, rel=1e-7)


def test_cr2_standard_error_and_design_effect_by_hand():
    sizes = np.linspace(5, 45, 16).astype(int)
    spk = np.repeat(np.arange(16), sizes)
    n = len(spk)
    y, p = Y[:n], PRED[:n]
    res = mlci.bootstrap_ci(y, p, metric="accuracy", conditions=spk, method="t", rng=0)
    c = (y == p).astype(float)
    acc = c.mean()
    e = np.bincount(spk, weights=c - acc)
    nc = np.bincount(spk)
    se = np.sqrt(np.sum(e**2 / (1 - nc / n))) / n  # CR2, intercept-only model
    lin = res.details["linearized"]
    assert lin["standard_error"] == pytest.approx(se, rel=1e-12)  # exact (was 1e-7 off: issue 21)
    # a proportion: Imbens & Kolesar's df with the ICC estimated, at most Kish's
    # effective conditions - 1
    k = np.bincount(spk, weights=c)
    df = min(_ik_df_by_definition(nc, icc_anova(k, nc)), n**2 / np.sum(nc**2) - 1)
    assert lin["df"] == pytest.approx(df, rel=1e-9)
    q = stats.t.ppf(0.975, df)
    assert res.confidence_interval == pytest.approx((acc - q * se, acc + q * se), rel=1e-6)
    assert lin["design_effect"] == pytest.approx(se**2 / (acc * (1 - acc) / n), rel=1e-5)


def test_wilson_over_conditions_korn_graubard():
    res = mlci.bootstrap_ci(Y, PRED, metric="accuracy", conditions=SPK, method="wilson", rng=0)
    lin = res.details["linearized"]
    z, t = stats.norm.ppf(0.975), stats.t.ppf(0.975, 15)
    # the design effect truncated at 1 after the df factor (session 11, as Korn &
    # Graubard's): n* = min(n, n_eff (z / t)^2); this design's is below 1 (truncated)
    n_star = min(len(Y), lin["effective_n"] * (z / t) ** 2)
    assert (n_star == len(Y)) == ("truncation" in res.details)
    p = float(np.mean(Y == PRED))
    center = (p + z * z / (2 * n_star)) / (1 + z * z / n_star)
    half = z / (1 + z * z / n_star) * np.sqrt(p * (1 - p) / n_star + z * z / (4 * n_star**2))
    assert res.confidence_interval == pytest.approx((center - half, center + half), rel=1e-9)


def test_auc_t_interval_is_delong_with_t_quantile():
    res = mlci.bootstrap_ci(Y, SCORE, metric="roc_auc", method="t", rng=0)
    ref = mlci.delong_ci(Y, SCORE)
    # linearized variance = DeLong's up to the factors n/(n-1) vs n_k/(n_k-1)
    assert res.details["linearized"]["standard_error"] == pytest.approx(
        ref.standard_error, rel=2e-3
    )


@pytest.mark.parametrize("metric", ["f1", "mcc", "balanced_accuracy", "cohen_kappa"])
def test_numeric_gradient_matches_sklearn_finite_differences(metric):
    kernel = get_kernel(metric, [Y, PRED], {})
    counts = np.bincount(kernel.keys, minlength=kernel.m).astype(float)[None]
    g = kernel.gradient(counts, kernel.evaluate(counts))
    # adding one sample of a cell changes the metric by about its derivative
    fn = {
        "f1": skm.f1_score,
        "mcc": skm.matthews_corrcoef,
        "balanced_accuracy": skm.balanced_accuracy_score,
        "cohen_kappa": skm.cohen_kappa_score,
    }[metric]
    base = fn(Y, PRED)
    for atom, (t, p) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):
        step = fn(np.r_[Y, t], np.r_[PRED, p]) - base
        assert g[0, atom] == pytest.approx(step, rel=0.02, abs=1e-5)


def test_roc_auc_gradient_is_exact():
    kernel = get_kernel("roc_auc", [Y, np.round(SCORE, 1)], {})
    w = np.random.default_rng(1).poisson(1.0, size=(3, kernel.m)).astype(float) + 1
    v = kernel.evaluate(w)
    assert kernel.gradient(w, v) == pytest.approx(numeric_gradient(kernel.evaluate, w, v), abs=1e-6)


def test_studentized_replicates_are_the_bca_replicates():
    for kw in ({}, {"conditions": SPK}):
        a = _quiet(
            mlci.bootstrap_ci, Y, PRED, metric="f1", method="bca", rng=3, n_resamples=300, **kw
        )
        with mlci.config_context(batch=7):
            b = mlci.bootstrap_ci(
                Y, PRED, metric="f1", method="studentized", rng=3, n_resamples=300, **kw
            )
        assert np.array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
        assert b.replicate_standard_errors.shape == (300,)


def test_studentized_auc_over_conditions_every_atom_in_one_condition():
    # distinct scores: every atom lies in one condition (the gather path); the standard
    # error must equal the one computed through the (condition, atom) cells
    from mlci.engine.linearize import _Units

    spk = np.repeat(np.arange(20), 20)
    a = mlci.bootstrap_ci(Y, SCORE, metric="roc_auc", conditions=spk, method="bca", rng=2)
    b = mlci.bootstrap_ci(Y, SCORE, metric="roc_auc", conditions=spk, method="studentized", rng=2)
    assert np.array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    kernel = get_kernel("roc_auc", [Y, SCORE], {})
    plan = plan_for_conditions(N, conditions=spk, n_resamples=10, rng=0)
    units = _Units(kernel, plan)
    assert units.bijective
    w = plan.weights_for(kernel.keys, kernel.m).all_replicates()[:3]
    g = kernel.gradient(w, kernel.evaluate(w))
    # by hand: per-condition sums of w * g, over the drawn counts of each condition
    cond_of_atom = np.empty(kernel.m, dtype=int)
    cond_of_atom[kernel.keys] = spk
    for r in range(3):
        y = np.bincount(cond_of_atom, weights=w[r] * g[r], minlength=20)
        u = np.bincount(cond_of_atom, weights=w[r], minlength=20) / 20
        z = np.where(u > 0, y / np.where(u > 0, u, 1), 0)
        mean = y.sum() / u.sum()
        var = 20 / 19 * (np.sum(u * z**2) - u.sum() * mean**2)
        assert b.replicate_standard_errors is not None
        from mlci.engine.linearize import _variance

        ref = _variance(
            units, w[r : r + 1], g[r : r + 1], np.take(w[r : r + 1], units.cell_atom, axis=1)
        )
        assert float(ref[0]) == pytest.approx(var, rel=1e-9)


def test_studentized_same_seed_same_result_whatever_chunks_and_threads():
    with mlci.config_context(n_jobs=1):
        ref = mlci.bootstrap_ci(Y, SCORE, metric="roc_auc", method="studentized", rng=5)
    for batch, jobs in ((3, 2), (50, 1), (None, 2)):
        with mlci.config_context(batch=batch, n_jobs=jobs):
            r = mlci.bootstrap_ci(Y, SCORE, metric="roc_auc", method="studentized", rng=5)
        assert r.confidence_interval == ref.confidence_interval
        assert np.array_equal(r.replicate_standard_errors, ref.replicate_standard_errors)


def test_studentized_interval_is_pivotal_on_a_normal_mean():
    # t* of a normal mean is exactly Student's t: the bootstrap-t interval approaches the
    # t interval (identity scale, no bounds)
    rng = np.random.default_rng(0)
    x = rng.normal(3.0, 2.0, 40)
    res = mlci.bootstrap_ci(x, metric="mean", method="studentized", rng=1, n_resamples=4000)
    half = stats.t.ppf(0.975, 39) * x.std(ddof=1) / np.sqrt(40)
    assert res.confidence_interval.low == pytest.approx(x.mean() - half, abs=0.1 * half)
    assert res.confidence_interval.high == pytest.approx(x.mean() + half, abs=0.1 * half)
    assert res.details["scale"] == "identity"


def test_studentized_pvalue_inverts_the_interval():
    rng = np.random.default_rng(2)
    dist = rng.normal(0.1, 0.05, 2000)
    se = np.abs(rng.normal(0.05, 0.005, 2000))
    for level in (0.9, 0.95, 0.99):
        low, _, _ = studentized_interval(0.1, 0.05, dist, se, confidence_level=level)
        p = studentized_pvalue(0.1, 0.05, dist, se, null=float(low))
        assert p == pytest.approx(1 - level, abs=0.01)


def test_wilson_interval_one_sided():
    low, high, _ = wilson_interval(0.8, 100, None, confidence_level=0.95, alternative="greater")
    ref = mlci.proportion_ci(80, 100, method="wilson", alternative="greater")
    assert (float(low), float(high)) == pytest.approx(tuple(ref.confidence_interval), abs=1e-12)


def test_auto_picks_by_metric_and_design_and_says_why():
    acc = mlci.bootstrap_ci(Y, PRED, metric="accuracy", conditions=SPK, rng=0)
    f1 = mlci.bootstrap_ci(Y, PRED, metric="f1", rng=0)
    fn = mlci.bootstrap_ci(Y, PRED, metric=lambda a, b: np.mean(a == b), rng=0, n_resamples=50)
    strata = mlci.bootstrap_ci(Y, PRED, metric="f1", strata=Y, rng=0)
    assert (acc.method, f1.method, fn.method, strata.method) == (
        "logit_t",
        "studentized",
        "bca",
        "bca",
    )
    assert "proportion over conditions" in acc.details["method_reason"]
    assert "user-defined" in fn.details["method_reason"]
    assert "strata" in strata.details["method_reason"]


def test_explicit_linearized_method_that_does_not_apply_is_refused():
    with pytest.raises(ValueError, match=r"method='studentized' is unavailable.*strata"):
        mlci.bootstrap_ci(Y, PRED, metric="f1", strata=Y, method="studentized")
    with pytest.raises(ValueError, match=r"method='wilson' applies to a single proportion"):
        mlci.bootstrap_ci(Y, PRED, metric="f1", method="wilson")
    with pytest.raises(ValueError, match=r"unavailable.*two-stage"):
        mlci.bootstrap_ci(
            Y,
            PRED,
            metric="f1",
            conditions=SPK,
            resampling=mlci.Resampling(two_stage=True),
            method="t",
        )
    with pytest.raises(ValueError, match="user-defined"):
        mlci.bootstrap_ci(Y, PRED, metric=lambda a, b: np.mean(a == b), method="t")


def test_linearization_support_reasons():
    plan = plan_for_conditions(N, n_resamples=10, rng=0)
    assert Linearization(get_kernel("f1", [Y, PRED], {}), plan).unsupported is None
    poisson = plan_for_conditions(N, weights="poisson", n_resamples=10, rng=0)
    assert "Poisson" in Linearization(get_kernel("f1", [Y, PRED], {}), poisson).unsupported
    lin = Linearization(get_kernel("accuracy", [Y, PRED], {}), plan).estimate()
    assert lin.df == N - 1 and lin.effective_n == N


def test_result_interval_switches_between_all_methods():
    res = mlci.bootstrap_ci(Y, PRED, metric="accuracy", method="studentized", rng=0)
    for m in ("percentile", "basic", "normal", "bc", "t", "logit_t", "wilson", "studentized"):
        assert res.interval(m).method == m
    assert res.interval("studentized") == res
    with pytest.raises(ValueError, match="acceleration"):
        res.interval("bca")
    with pytest.raises(ValueError, match="'auto' chooses"):
        res.interval("auto")
    bca = mlci.bootstrap_ci(Y, PRED, metric="accuracy", method="bca", rng=0)
    with pytest.raises(ValueError, match="linearized standard error"):
        bca.interval("studentized")


def test_diagnostics_on_every_result():
    res = _quiet(mlci.bootstrap_ci, Y, PRED, metric="accuracy", conditions=SPK, rng=0)
    d = res.diagnostics
    assert d["n_conditions"] == 16 and d["condition_sizes"] == {
        "min": 25,
        "median": 25.0,
        "max": 25,
    }
    assert d["effective_conditions"] == pytest.approx(16.0)
    assert d["n_positive"] == int(Y.sum()) and d["n_negative"] == N - int(Y.sum())
    assert d["design_effect"] > 0 and d["effective_n"] == pytest.approx(N / d["design_effect"])
    assert {"skewness", "n_invalid_replicates", "replicates_equal_to_estimate"} <= set(d)
    auc = mlci.bootstrap_ci(Y, np.round(SCORE), metric="roc_auc", rng=0, n_resamples=100)
    assert auc.diagnostics["tied_positive_atoms"] > 0


def test_compare_auto_logit_t_systems_t_differences():
    a = PRED
    b = np.where(RNG.random(N) < 0.9, PRED, 1 - PRED)
    res = _quiet(mlci.compare, Y, {"A": a, "B": b}, metric="accuracy", conditions=SPK, rng=0)
    assert res.method == "auto"
    assert res.systems["A"].method == "logit_t"
    d = res.difference("A", "B")
    assert d.method == "t"
    lin = d.details["linearized"]
    # the t test and the t interval agree
    t_obs = d.estimate / lin["standard_error"]
    assert d.pvalue == pytest.approx(2 * stats.t.sf(abs(t_obs), lin["df"]))
    q = stats.t.ppf(0.975, lin["df"])
    assert d.confidence_interval == pytest.approx(
        (d.estimate - q * lin["standard_error"], d.estimate + q * lin["standard_error"])
    )
    # the standard error of the difference: CR2 of the per-condition differences
    ca, cb = (Y == a).astype(float), (Y == b).astype(float)
    e = np.bincount(SPK, weights=(ca - cb) - (ca - cb).mean())
    se = np.sqrt(np.sum(e**2) * 16 / 15) / N
    assert lin["standard_error"] == pytest.approx(se, rel=1e-6)


def test_compare_studentized_pvalue_agrees_with_its_interval():
    b = np.where(RNG.random(N) < 0.9, PRED, 1 - PRED)
    res = mlci.compare(Y, {"A": PRED, "B": b}, metric="f1", method="studentized", rng=0)
    d = res.difference("A", "B")
    excludes = not (d.confidence_interval.low <= 0 <= d.confidence_interval.high)
    assert excludes == (d.pvalue < 0.05)


def test_warns_in_the_cells_where_the_map_shows_no_method_holding():
    from mlci import simulate

    # a paired difference over 8 conditions (the map: t covers 0.924)
    sim = simulate.paired_clustered_classification(8, 20, 0.85, 0.8, 0.1, rng=0)
    with pytest.warns(mlci.FewConditionsWarning, match="Paired differences over 8"):
        res = mlci.compare(
            sim.y_true,
            {"A": sim.y_pred, "B": sim.y_pred_b},
            metric="accuracy",
            conditions=sim.conditions,
            rng=0,
            n_resamples=100,
        )
    assert "Paired differences" in res.details["warning"]
    # a clustered proportion near 1 with few effective errors (the map: 0.98 over 20
    # conditions, logit_t covers 0.97, Wilson 0.89)
    sim = simulate.clustered_classification(20, 20, 0.98, 0.1, rng=1)
    with pytest.warns(mlci.FewConditionsWarning, match="2.8 effective minority outcomes"):
        res = mlci.bootstrap_ci(*sim.data, metric="accuracy", conditions=sim.conditions, rng=0)
    # (near 1 over conditions: Korn & Graubard's interval, engine/clustered_edge.py)
    assert res.method == "korn_graubard" and "near 0 or 1" in res.details["warning"]
    # ... but not at 0.95 over 20 conditions (9 effective errors), where logit_t holds
    for acc in (0.95, 0.8):
        sim = simulate.clustered_classification(20, 20, acc, 0.1, rng=1)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            mlci.bootstrap_ci(*sim.data, metric="accuracy", conditions=sim.conditions, rng=0)
    # nor over 20 unequal conditions at ICC 0.2 (logit_t holds there)
    sim = simulate.clustered_classification(
        20, np.round(np.linspace(0.25, 1.75, 20) * 20).astype(int), 0.8, 0.2, rng=1
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mlci.bootstrap_ci(*sim.data, metric="accuracy", conditions=sim.conditions, rng=0)


def _run(batch=None, n_jobs=1):
    from mlci.engine.bootstrap import run_replicates

    def run(evaluate, smp, shape, per_row):
        return run_replicates(
            evaluate, smp, shape, bytes_per_row=per_row, batch=batch, n_jobs=n_jobs
        )

    return run


def _auc_design(design):
    rng = np.random.default_rng(11)
    n = 600
    y = rng.integers(0, 2, n)
    score = rng.normal(size=n) + y
    cond = None
    if "ties" in design:
        score = np.round(score, 1)
    if "conditions" in design:
        if "unequal" in design:
            cond = np.sort(rng.choice(30, n, p=np.linspace(1, 10, 30) / 165))
        else:
            cond = np.repeat(np.arange(30), 20)
        y[cond == 3] = 1  # a condition with positives only
    return y, score, cond


@pytest.mark.parametrize(
    "design",
    ["iid", "iid ties", "conditions", "conditions ties", "conditions unequal ties"],
)
def test_fused_auc_replicates_equal_the_gradient_path(design):
    # the fused forms (moments of the placement values; the units' pair matrix) give the
    # metric bit for bit and the standard errors to rounding of the (b, m) gradient path
    from mlci.engine.linearize import Linearization

    y, score, cond = _auc_design(design)
    kernel = get_kernel("roc_auc", [y, score], {})
    plan = plan_for_conditions(len(y), conditions=cond, n_resamples=300, rng=4)
    lin = Linearization(kernel, plan)
    if cond is not None:
        units = lin.units
        assert kernel.whole_units(units.cell_unit, units.cell_atom, units.cell_count, 30)
    v1, se1, _ = lin.run(_run(batch=7))
    v0, se0, _ = lin.run(_run(), fused=False)
    assert np.array_equal(v1, v0)
    ok = ~np.isnan(v0)
    assert ok.sum() > 250
    np.testing.assert_allclose(se1[ok], se0[ok], rtol=1e-12, atol=0)
    bca = _quiet(
        mlci.bootstrap_ci,
        y,
        score,
        metric="roc_auc",
        conditions=cond,
        method="bca",
        rng=4,
        n_resamples=300,
    )
    assert np.array_equal(bca.bootstrap_distribution, v1)


def test_fused_auc_over_conditions_is_delong_cr1_by_hand():
    # every replicate by brute force over the samples: each drawn condition's samples
    # weighted by its draw count, DeLong's placement values from all pairs (ties 1/2),
    # their per-condition sums and the CR1 variance over the 30 conditions
    from mlci.engine.linearize import Linearization
    from mlci.engine.sampler import UnitDraws

    y, score, cond = _auc_design("conditions unequal ties")
    kernel = get_kernel("roc_auc", [y, score], {})
    plan = plan_for_conditions(len(y), conditions=cond, n_resamples=20, rng=8)
    values, ses, _ = Linearization(kernel, plan).run(_run())
    base = plan.weights_for(plan.unit_of_sample, plan.n_units)
    u_all = UnitDraws(base, plan.n_units).all_replicates()
    pos, neg = y == 1, y == 0
    above = (score[pos][:, None] > score[neg][None, :]) + 0.5 * (
        score[pos][:, None] == score[neg][None, :]
    )
    for r in range(20):
        w = u_all[r][cond]
        wp, wn = w[pos], w[neg]
        n1, n0 = wp.sum(), wn.sum()
        auc = wp @ above @ wn / (n1 * n0)
        g = np.empty(len(y))
        g[pos] = (above @ wn / n0 - auc) / n1
        g[neg] = (wp @ above / n1 - auc) / n0
        u = u_all[r]
        z = np.bincount(cond, weights=g, minlength=30)  # one copy of each condition
        mean = np.sum(u * z) / u.sum()
        var = 30 / 29 * (np.sum(u * z**2) - u.sum() * mean**2)
        assert values[r] == pytest.approx(auc, rel=1e-12)
        assert ses[r] == pytest.approx(np.sqrt(var), rel=1e-9)


@pytest.mark.parametrize(
    "metric, extra",
    [
        ("f1", {}),
        ("mcc", {}),
        ("recall", {"average": None}),
        ("roc_auc", {"sample_weight": True}),
        ("roc_auc", {"many_conditions": True}),
    ],
)
def test_unit_sums_path_equals_the_cells_path(metric, extra):
    # over conditions the replicates draw the conditions' counts and sum the gradient per
    # condition with the (condition x atom) table: the numbers of the (condition, atom)
    # cells path, for scalar and vector metrics, weighted samples, many conditions
    from mlci.engine.linearize import Linearization

    rng = np.random.default_rng(5)
    y, pred, score = Y, PRED, SCORE
    cond = rng.integers(0, 200 if extra.get("many_conditions") else 16, N)
    arrays = [y, score] if metric == "roc_auc" else [y, pred]
    params = {k: v for k, v in extra.items() if k == "average"}
    kernel = get_kernel(
        metric,
        arrays,
        mlci.metrics.metric_params(metric, None, params.get("average", "default"), None),
        sample_weight=rng.integers(1, 4, N).astype(float) if extra.get("sample_weight") else None,
    )
    plan = plan_for_conditions(N, conditions=cond, n_resamples=200, rng=9)
    lin = Linearization(kernel, plan)
    v1, se1, _ = lin.run(_run(batch=5))
    v0, se0, _ = lin.run(_run(), fused=False)
    assert np.array_equal(v1, v0, equal_nan=True)
    ok = ~np.isnan(v0) & ~np.isnan(se0)
    assert ok.mean() > 0.9
    np.testing.assert_allclose(se1[ok], se0[ok], rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("ties", [False, True])
def test_auc_placements_over_many_conditions_equal_the_gradient_path(ties):
    # issue 25: above the pair matrix's size (2,048 units) the conditions path turns the
    # AUC's placement values into the gradient in place: replicates and standard errors
    # bit for bit those of kernel.gradient + unit sums (fused=False), and the AUC the one
    # of scikit-learn on the data
    from mlci.engine.linearize import Linearization
    from mlci.metrics.auc_units import MAX_PAIR_UNITS as _MAX_PAIR_UNITS

    rng = np.random.default_rng(11)
    n, c = 12_000, _MAX_PAIR_UNITS + 500
    y = rng.integers(0, 2, n)
    score = rng.normal(size=n) + y
    if ties:
        score = np.round(score, 1)
    cond = rng.integers(0, c, n)
    kernel = get_kernel("roc_auc", [y, score], {})
    plan = plan_for_conditions(n, conditions=cond, n_resamples=120, rng=3)
    lin = Linearization(kernel, plan)
    units = lin.units
    assert units.n_units > _MAX_PAIR_UNITS
    assert (
        kernel.whole_units(units.cell_unit, units.cell_atom, units.cell_count, units.n_units)
        is None
    )
    v1, se1, _ = lin.run(_run(batch=7))
    v0, se0, _ = lin.run(_run(), fused=False)
    assert np.array_equal(v1, v0)
    np.testing.assert_allclose(se1, se0, rtol=1e-12, atol=0)
    # bit for bit the (b, m) gradient summed per unit (the path before issue 25)
    kernel.placements = None
    v2, se2, _ = Linearization(kernel, plan).run(_run(batch=7))
    del kernel.placements
    assert np.array_equal(v1, v2) and np.array_equal(se1, se2)
    values = kernel.evaluate(np.bincount(kernel.keys, minlength=kernel.m)[None, :].astype(float))
    assert values[0] == pytest.approx(skm.roc_auc_score(y, score), rel=1e-12)
    # the per-unit sums by scatter-add are the sparse (unit x atom) product's, bit for bit
    g = rng.normal(size=(5, kernel.m))
    got_sums = units.unit_sums(g)
    if not ties:  # (with ties the table is small and dense)
        from scipy import sparse

        # (the scatter-add path builds no table: the sparse one is built here to compare)
        assert units._table is None and units._atom_of is not None
        assert sparse.issparse(units.table)
        want = np.asarray(units.table @ np.ascontiguousarray(g.T)).T
        assert np.array_equal(got_sums, want)
    # weights that are not counts (the float cumulative sums) give the same numbers too
    w = rng.random((3, kernel.m)) * 2
    got, v, n0, n1 = kernel.placements(w)
    grad = kernel.gradient(w, kernel.evaluate(w))
    assert np.array_equal(got, kernel.evaluate(w))
    m_neg = kernel.m_neg
    np.testing.assert_allclose(
        v[:, m_neg:] / (n0 * n1)[:, None] - (got / n1)[:, None],
        grad[:, m_neg:],
        rtol=1e-9,
        atol=1e-15,
    )


@pytest.mark.parametrize("ties", [False, True])
def test_units_hold_no_per_sample_array_of_their_own(ties):
    # issue 25 (memory): the (unit, atom) cells are found without keeping a copy of any
    # per-sample array (the kernel's keys and the plan's units are referenced, not
    # copied); with every atom in one unit (distinct scores) the cells come from a stable
    # sort of the atoms' units, and equal those of np.unique over unit * m + atom
    from mlci.engine.linearize import _Units

    rng = np.random.default_rng(4)
    n, c = 30_000, 3000  # span c * m above the counting threshold: the sorting paths
    y = rng.integers(0, 2, n)
    score = rng.normal(size=n) + y
    if ties:
        score = np.round(score, 2)
    cond = rng.integers(0, c, n)
    kernel = get_kernel("roc_auc", [y, score], {})
    plan = plan_for_conditions(n, conditions=cond, n_resamples=10, rng=0)
    units = _Units(kernel, plan)
    assert units.bijective is (not ties)
    arrays = {k: v for k, v in vars(units).items() if isinstance(v, np.ndarray)}
    assert units._keys is kernel.keys and units._unit is plan.unit_of_sample
    # of the samples' size: those two references, and with every atom in one unit the
    # atoms in cell order (the atoms' size, which distinct scores make the samples')
    big = {k for k, v in arrays.items() if v.size >= n} - {"_keys", "_unit"}
    assert big == ({"cell_atom"} if not ties else set()), big
    assert (kernel.m == n) if not ties else (units.n_cells < n)
    # the cells, their units, counts and every sample's cell: np.unique's
    cell = plan.unit_of_sample.astype(np.int64) * kernel.m + kernel.keys
    cells, keys, count = np.unique(cell, return_inverse=True, return_counts=True)
    assert np.array_equal(units.cell_atom, cells % kernel.m)
    assert np.array_equal(units.cell_unit, cells // kernel.m)
    assert np.array_equal(units.cell_count, count.astype(float))
    assert np.array_equal(units.keys, keys.reshape(-1))
    assert np.array_equal(units.starts, np.flatnonzero(np.r_[True, np.diff(cells // kernel.m) > 0]))
