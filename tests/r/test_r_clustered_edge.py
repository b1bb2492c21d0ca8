"""Near the bound over conditions, against R (clubSandwich 0.5.8, stats): the two rules of
mlci.engine.clustered_edge, built in R from R's own CR2 standard errors.

* Accuracy over 16 unequal conditions with 6 errors in 300 (0.98): ``method="auto"`` is
  Korn & Graubard's interval (1998), Clopper-Pearson on the effective sample size
  ``n* = p (1 - p) / se^2 (z / t_df)^2`` with ``se`` clubSandwich's CR2 standard error
  (``vcovCR(lm(correct ~ 1), cluster = g, type = "CR2")``) and mlci's degrees of
  freedom (Imbens & Kolesar's, checked against their definition in test_r_cluster.py),
  R's ``qbeta`` (as ``svyciprop(method = "beta")`` computes it, with the normal quantile
  in the factor): 1e-12.
* Balanced accuracy over the same conditions with 2 errors among 60 positives:
  MOVER (Zou & Donner 2008) of the two classes' Korn & Graubard intervals, each class's
  CR2 standard error from ``lm`` on the class's samples; a class without an error gets
  the exact interval of its size (``qbeta(0.025, n, 1)``): 1e-12.  Each rate's own
  ``method="korn_graubard"`` interval, with fewer than 4 effective minority outcomes
  widened to hold the logit t interval (``plogis(qlogis(p) -/+ qt(0.975, df) se / (p (1 -
  p)))``): 1e-12.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci

pytestmark = pytest.mark.r

R_PACKAGES = ("clubSandwich",)


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
    bal = mlci.bootstrap_ci(d["y"], d["pred"], metric="balanced_accuracy", conditions=g, rng=0,
                            n_resamples=200)  # fmt: skip
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
  c(qbeta(a / 2, ne * p, ne * (1 - p) + 1), qbeta(1 - a / 2, ne * p + 1, ne * (1 - p)))
}
p <- mean(correct); se <- cr2(correct, g)
put("acc_se", se)
put("acc_kg", kg(p, se, df))
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
  if (r < 1 && min(r, 1 - r) * r * (1 - r) / s^2 < 4) {
    q <- qt(0.975, df_rates[cls + 1]) * s / (r * (1 - r))
    ci <- c(min(ci[1], plogis(qlogis(r) - q)), max(ci[2], plogis(qlogis(r) + q)))
  }
  put(paste0("rate_ci_", cls), ci)
}
put("rate_se", ses)
put("rate_lo", lo); put("rate_hi", hi)
m <- mean(est)
put("bal_mover", c(m - sqrt(sum((est - lo)^2)) / 2, m + sqrt(sum((hi - est)^2)) / 2))
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
