"""Near the bound over conditions, against R (clubSandwich 0.5.8, stats): the two rules of
mlci.engine.clustered_edge, built in R from R's own CR2 standard errors.

* Accuracy over 16 unequal conditions with 6 errors in 300 (0.98): ``method="auto"`` is
  Korn & Graubard's interval (1998), Clopper-Pearson on the effective sample size
  ``n* = p (1 - p) / se^2 (z / t_df)^2`` with ``se`` clubSandwich's CR2 standard error
  (``vcovCR(lm(correct ~ 1), cluster = g, type = "CR2")``) and mlci's degrees of
  freedom (Imbens & Kolesar's, checked against their definition in test_r_cluster.py),
  R's ``qbeta`` (as ``svyciprop(method = "beta")`` computes it, with the normal quantile
  in the factor), ``n*`` at most ``n`` (the design effect truncated at 1, as CDC's
  surveytable ``svyciprop_adjusted`` computes it for NCHS: ``min(nrow(design), n.eff *
  rat.squ)``; since session 10): 1e-12.
* Balanced accuracy over the same conditions with 2 errors among 60 positives:
  MOVER (Zou & Donner 2008) of the two classes' Korn & Graubard intervals, each class's
  CR2 standard error from ``lm`` on the class's samples; a class without an error gets
  the exact interval of its size (``qbeta(0.025, n, 1)``), and the recall (2 misses in
  60, an estimated design effect of 0.73) ``n*`` at most its 60 positives: the one case
  here that R survey's ``svyciprop(method = "beta")``, which does not truncate, would
  give narrower: 1e-12.  Each rate's own
  ``method="korn_graubard"`` interval, with fewer than 4 effective minority outcomes
  widened to hold the logit t interval (``plogis(qlogis(p) -/+ qt(0.975, df) se / (p (1 -
  p)))``, the minority outcomes counted on ``min(n, p (1 - p) / se^2)``): 1e-12.
* R survey's ``svyciprop`` on 80 answers in 20 clusters (``svydesign(ids = ~g)``), with
  its own ``svymean`` standard error and ``degf``: ``method = "beta"`` (Korn & Graubard
  1998) is mlci's ``method="korn_graubard"`` with the normal quantile in place of
  ``qt(0.975, nrow - 1)`` in the degrees-of-freedom factor (1e-12 with that factor; near
  the bound 3e-3 against svyciprop's own, 5e-3 at 99%), ``method = "logit"`` its
  ``"logit_t"`` (1e-9: svyglm's iterations), both through the engine's dispatcher (the
  interval every door gives), on the untruncated path (no design effect given:
  svyciprop's own formula; the design effect is 1.15 there anyway).  On a design whose
  clusters all have the same share (a zero variance) ``svyciprop(method = "beta")`` returns
  ``[0.5, 0.5]`` whatever the share (``n* = p (1 - p) / 0``); mlci takes the design
  effect as 1 there, ``binom.test``'s exact interval.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci

pytestmark = pytest.mark.r

R_PACKAGES = ("clubSandwich", "survey")


def _data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2811)
    sizes = rng.integers(6, 35, 16)
    g = np.repeat(np.arange(16), sizes)[:300]
    g = np.concatenate([g, np.full(300 - len(g), 15)]) if len(g) < 300 else g
    n = len(g)
    correct = np.ones(n)
    correct[rng.choice(n, 6, replace=False)] = 0.0
    # balanced accuracy: 60 positives (2 misses), 240 negatives (14 false alarms)
    y = np.zeros(n)
    y[rng.choice(n, 60, replace=False)] = 1.0
    pred = y.copy()
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    pred[rng.choice(pos, 2, replace=False)] = 0.0
    pred[rng.choice(neg, 14, replace=False)] = 1.0
    return {"g": g.astype(float), "correct": correct, "y": y, "pred": pred}


R_INPUTS = _data()
#: 80 answers in 20 clusters; wrong (R's 1-based indices) 4, 17, 18, 40, 66 (p = 0.9375,
#: within 0.1 of 1: Korn & Graubard's), and also 5, 6, 30, 31, 32, 50, 70 (p = 0.85)
SVY_SIZES = [3, 5, 2, 4, 6, 3, 5, 4, 2, 3, 6, 5, 4, 3, 2, 5, 4, 3, 6, 5]
R_INPUTS["svy_g"] = np.repeat(np.arange(20.0), SVY_SIZES)
R_INPUTS["svy_near"] = np.ones(80)
R_INPUTS["svy_near"][np.array([4, 17, 18, 40, 66]) - 1] = 0.0
R_INPUTS["svy_away"] = R_INPUTS["svy_near"].copy()
R_INPUTS["svy_away"][np.array([5, 6, 30, 31, 32, 50, 70]) - 1] = 0.0
#: 10 clusters of 10, 9 right in each: a proportion of 0.9 with a variance of 0
R_INPUTS["svy_equal_g"] = np.repeat(np.arange(10.0), 10)
R_INPUTS["svy_equal"] = np.tile(np.r_[np.ones(9), 0.0], 10)


def _mlci() -> dict[str, object]:
    d = R_INPUTS
    g = d["g"].astype(int)
    acc = mlci.bootstrap_ci(np.ones(len(g), int), d["correct"].astype(int), metric="accuracy",
                            conditions=g, rng=0, n_resamples=200)  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.FewConditionsWarning)  # a rate of 1 or near it
        rates = [mlci.bootstrap_ci(d["y"], d["pred"], metric=m, conditions=g, rng=0,
                                   n_resamples=200, method="korn_graubard")
                 for m in ("specificity", "recall")]  # fmt: skip
        # balanced accuracy warns of its classes' rates alike (since session 9, seed-11 #58)
        bal = mlci.bootstrap_ci(d["y"], d["pred"], metric="balanced_accuracy", conditions=g,
                                rng=0, n_resamples=200)  # fmt: skip
    return {"acc": acc, "rates": rates, "bal": bal}


MLCI = _mlci()
R_INPUTS["df"] = np.array([MLCI["acc"].details["linearized"]["df"]])
R_INPUTS["df_rates"] = np.array([r.details["linearized"]["df"] for r in MLCI["rates"]])

R_SCRIPT = """
g <- get("g"); correct <- get("correct"); y <- get("y"); pred <- get("pred")
df <- get("df"); df_rates <- get("df_rates")
cr2 <- function(v, cl) sqrt(vcovCR(lm(v ~ 1), cluster = cl, type = "CR2")[1, 1])
kg <- function(p, se, df, n, level = 0.95) {
  a <- 1 - level
  if (p == 1) return(c(qbeta(a / 2, n, 1), 1))
  ne <- p * (1 - p) / se^2 * (qnorm(1 - a / 2) / qt(1 - a / 2, df))^2
  # the design effect truncated at 1, n* at most n: surveytable's svyciprop_adjusted,
  # min(nrow(design), n.eff * rat.squ) (NCHS; mlci since session 10)
  ne <- min(ne, n)
  c(qbeta(a / 2, ne * p, ne * (1 - p) + 1), qbeta(1 - a / 2, ne * p + 1, ne * (1 - p)))
}
p <- mean(correct); se <- cr2(correct, g)
put("acc_se", se)
put("acc_kg", kg(p, se, df, length(correct)))
est <- c(); lo <- c(); hi <- c(); ses <- c()
for (cls in 0:1) {
  i <- y == cls
  right <- as.numeric(pred[i] == cls)
  r <- mean(right)
  s <- if (r < 1) cr2(right, g[i]) else 0
  ci <- kg(r, s, df_rates[cls + 1], sum(i))
  est <- c(est, r); lo <- c(lo, ci[1]); hi <- c(hi, ci[2]); ses <- c(ses, s)
  # bootstrap_ci(method = "korn_graubard") of the rate alone: with fewer than 4 effective
  # minority outcomes widened to hold the logit t interval (mlci's widen_few_minority)
  # minority outcomes on the truncated effective size (without the df factor)
  if (r < 1 && min(r, 1 - r) * min(r * (1 - r) / s^2, sum(i)) < 4) {
    q <- qt(0.975, df_rates[cls + 1]) * s / (r * (1 - r))
    ci <- c(min(ci[1], plogis(qlogis(r) - q)), max(ci[2], plogis(qlogis(r) + q)))
  }
  put(paste0("rate_ci_", cls), ci)
}
put("rate_se", ses)
put("rate_lo", lo); put("rate_hi", hi)
m <- mean(est)
put("bal_mover", c(m - sqrt(sum((est - lo)^2)) / 2, m + sqrt(sum((hi - est)^2)) / 2))
# R survey's svyciprop
suppressMessages(library(survey))
for (v in c("svy_near", "svy_away")) {
  d <- data.frame(y = get(v), g = get("svy_g"))
  des <- svydesign(ids = ~g, data = d, weights = rep(1, nrow(d)))
  m <- svymean(~y, des)
  put(paste0(v, "_se"), SE(m)); put(paste0(v, "_degf"), degf(des))
  for (lv in c(0.9, 0.95, 0.99)) {
    key <- paste0(v, "_", round(100 * lv))
    put(paste0(key, "_beta"), confint(svyciprop(~y, des, method = "beta", level = lv)))
    put(paste0(key, "_logit"), confint(svyciprop(~y, des, method = "logit", level = lv)))
    # svyciprop's beta with qnorm in place of qt(, nrow - 1) in the df factor
    a <- 1 - lv; p <- coef(m)[[1]]
    ne <- p * (1 - p) / vcov(m)[1, 1] * (qnorm(1 - a / 2) / qt(1 - a / 2, degf(des)))^2
    put(paste0(key, "_kg"), c(qbeta(a / 2, ne * p, ne * (1 - p) + 1),
                              qbeta(1 - a / 2, ne * p + 1, ne * (1 - p))))
  }
}
d <- data.frame(y = get("svy_equal"), g = get("svy_equal_g"))
des <- svydesign(ids = ~g, data = d, weights = rep(1, nrow(d)))
put("svy_equal_var", vcov(svymean(~y, des)))
put("svy_equal_beta", confint(svyciprop(~y, des, method = "beta")))
put("svy_equal_exact", binom.test(sum(d$y), nrow(d))$conf.int)
"""


def test_accuracy_over_conditions_near_one_is_korn_graubard(r_results):
    acc = MLCI["acc"]
    assert acc.method == "korn_graubard"
    assert acc.details["method_reason"].startswith("korn_graubard: a proportion over")
    assert acc.details["linearized"]["standard_error"] == pytest.approx(
        r_results["acc_se"][0], rel=1e-12
    )
    assert tuple(acc.confidence_interval) == pytest.approx(tuple(r_results["acc_kg"]), abs=1e-12)


def test_balanced_accuracy_over_conditions_is_mover_of_the_classes(r_results):
    rates, bal = MLCI["rates"], MLCI["bal"]
    for i, r in enumerate(rates):
        if r.estimate < 1:
            assert r.details["linearized"]["standard_error"] == pytest.approx(
                r_results["rate_se"][i], rel=1e-12
            )
        assert tuple(r.confidence_interval) == pytest.approx(
            tuple(r_results[f"rate_ci_{i}"]), abs=1e-12
        )
    assert bal.details["edge_fallback_method"] == "mover_korn_graubard"
    assert bal.details["method_reason"].count("mover_korn_graubard") == 1
    assert tuple(bal.confidence_interval) == pytest.approx(tuple(r_results["bal_mover"]), abs=1e-12)


def _engine(p, se, df, n, method, level=0.95):
    """The engine's dispatcher (what every door calls) on R's standard error and df."""
    from mlci.intervals.bootstrap import interval_from_replicates

    lin = {"standard_error": se, "df": df, "effective_n": n, "iid": False}
    low, high, _ = interval_from_replicates(
        p, np.empty(0), method=method, confidence_level=level, alternative="two-sided",
        bounds=(0.0, 1.0), linear=lin,
    )  # fmt: skip
    return float(low), float(high)


@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_korn_graubard_and_logit_t_are_r_survey_svyciprop(r_results, level):
    from mlci.engine.clustered_edge import clustered_proportion_method

    for v, p in (("svy_near", 0.9375), ("svy_away", 0.85)):
        assert R_INPUTS[v].mean() == p
        se, df = r_results[f"{v}_se"][0], r_results[f"{v}_degf"][0]
        key = f"{v}_{round(100 * level)}"
        kg = _engine(p, se, df, 80, "korn_graubard", level)
        # n* p = 4.4 effective errors at 0.9375: not widened (fewer than 4 would be)
        assert kg == pytest.approx(tuple(r_results[f"{key}_kg"]), abs=1e-12)
        if p > 0.9:  # svyciprop's own factor, qt(, 79) for qnorm: 3e-3 (99%: 5e-3)
            tol = 5e-3 if level == 0.99 else 3e-3
            assert kg == pytest.approx(tuple(r_results[f"{key}_beta"]), abs=tol)
        lt = _engine(p, se, df, 80, "logit_t", level)
        assert lt == pytest.approx(tuple(r_results[f"{key}_logit"]), abs=1e-9)
        # auto's rule: Korn & Graubard's within 0.1 of 1, the logit t at 0.85
        assert clustered_proportion_method(p) == ("korn_graubard" if p > 0.9 else "logit_t")


def test_korn_graubard_on_a_zero_variance_takes_the_design_effect_as_one(r_results):
    # every cluster 9 of 10: svymean's variance is 0, and svyciprop(method = "beta") reads
    # n* = p (1 - p) / 0, an interval [0.5, 0.5] that misses its own estimate; mlci takes
    # the design effect as 1 (n* = n): binom.test(90, 100), through every door
    assert r_results["svy_equal_var"][0] == 0
    assert tuple(r_results["svy_equal_beta"]) == (0.5, 0.5)
    ref = tuple(r_results["svy_equal_exact"])
    assert _engine(0.9, 0.0, 9.0, 100, "korn_graubard") == pytest.approx(ref, abs=1e-12)
    g, y = R_INPUTS["svy_equal_g"].astype(int), R_INPUTS["svy_equal"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        doors = [
            mlci.bootstrap_ci(y, metric="mean", conditions=g, method="korn_graubard",
                              n_resamples=200, rng=0),
            mlci.bootstrap_ci(np.ones(100, int), y.astype(int), metric="accuracy",
                              conditions=g, method="korn_graubard", n_resamples=200, rng=0),
        ]  # fmt: skip
    for r in doors:
        assert r.details["linearized"]["standard_error"] == 0
        assert tuple(r.confidence_interval) == pytest.approx(ref, abs=1e-12)
        assert "design effect taken as 1" in r.details["fallback"]
