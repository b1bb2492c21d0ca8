"""Clustered proportions against R's clubSandwich (0.5.8), sandwich (3.0) and survey (4.1).

Exact (1e-12): the CR2 standard error of a proportion over unequal conditions
(``clubSandwich::vcovCR(lm(y ~ 1), cluster, type = "CR2")``), from the engine
(``bootstrap_ci(..., method="t")``), from the LLM estimands (the same computation,
:mod:`mlci.engine.cr2`) and for a proportion of a subset (recall over conditions); the
Satterthwaite degrees of freedom (``coef_test(..., test = "Satterthwaite")``) of the
identity working model (Bell & McCaffrey's K_BM) and of a random-effects one
(``target =``, Imbens & Kolesár's K_IK); survey's linearization standard error
(``SE(svymean(~y, svydesign(ids = ~g)))`` = sandwich's ``vcovCL(type = "HC1")``) and
``svyciprop(method = "mean")`` with ``variant="survey"``.  ``svyciprop(method =
"logit")`` fits a GLM iteratively: 1e-7.

Conventions: mlci's default interval over conditions uses the CR2 standard error with
Imbens & Kolesár's degrees of freedom at the estimated intra-class correlation (at most
Kish's effective conditions minus one), survey the CR1 one with G - 1 degrees of freedom
(``variant="survey"`` gives survey's numbers); clubSandwich's Satterthwaite df assumes
independent samples (rho = 0), mlci's the random-effects model.
"""

from __future__ import annotations

import numpy as np
import pytest

import mlci
from mlci.engine.cr2 import cr2_variance
from mlci.engine.linearize import icc_anova, random_effects_df
from mlci.llm.linear import cluster_sums

pytestmark = pytest.mark.r

R_PACKAGES = ("clubSandwich", "sandwich", "survey")


def _data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2103)
    sizes = rng.integers(3, 40, 14)  # 14 conditions of very unequal sizes
    g = np.repeat(np.arange(14), sizes)
    effect = rng.normal(0, 0.8, 14)[g]
    y = (rng.random(len(g)) < 0.5).astype(float)  # the label, for a recall
    correct = (rng.random(len(g)) < 1 / (1 + np.exp(-(1.2 + effect)))).astype(float)
    return {"g": g.astype(float), "y": y, "correct": correct}


R_INPUTS = _data()
RHO = 0.15

R_SCRIPT = """
g <- get("g"); y <- get("y"); correct <- get("correct")
cr2 <- function(v, cl) {
  fit <- lm(v ~ 1)
  V <- vcovCR(fit, cluster = cl, type = "CR2")
  ct <- coef_test(fit, vcov = V, test = "Satterthwaite")
  c(sqrt(V[1, 1]), ct$df_Satt)
}
put("cr2_acc", cr2(correct, g))
put("cr2_recall", cr2(correct[y == 1], g[y == 1]))
fit <- lm(correct ~ 1); n <- length(g); rho <- 0.15
omega <- diag(1 - rho, n) + rho * outer(g, g, "==")
V_ik <- vcovCR(fit, cluster = g, type = "CR2", target = omega)
put("df_target", coef_test(fit, vcov = V_ik, test = "Satterthwaite")$df_Satt)
# Imbens & Kolesar's K_IK by its definition (2016, sec. 5): the identity model's CR2
# adjustment A_c = (I - H_cc)^(-1/2), the df under the random-effects model omega
X <- matrix(1, n, 1); XtXi <- solve(crossprod(X)); H <- X %*% XtXi %*% t(X)
Gm <- sapply(sort(unique(g)), function(cl) {
  i <- which(g == cl)
  e <- eigen(diag(length(i)) - H[i, i, drop = FALSE], symmetric = TRUE)
  A <- e$vectors %*% diag(1 / sqrt(e$values), length(i)) %*% t(e$vectors)
  (diag(n) - H)[, i, drop = FALSE] %*% A %*% X[i, , drop = FALSE] %*% XtXi
})
lam <- eigen(t(Gm) %*% omega %*% Gm, symmetric = TRUE, only.values = TRUE)$values
put("df_ik", sum(lam)^2 / sum(lam^2))
put("hc1", sqrt(vcovCL(fit, cluster = g, type = "HC1")[1, 1]))
d <- data.frame(correct = correct, g = g)
des <- svydesign(ids = ~g, data = d, weights = rep(1, n))
put("svy_se", SE(svymean(~correct, des)))
put("svy_degf", degf(des))
for (lv in c(0.9, 0.95)) {
  key <- round(100 * lv)
  put(paste0("svy_mean_", key), confint(svyciprop(~correct, des, method = "mean", level = lv)))
  put(paste0("svy_logit_", key), confint(svyciprop(~correct, des, method = "logit", level = lv)))
}
"""


def _counts(mask=None):
    d = R_INPUTS
    g, c = d["g"].astype(int), d["correct"]
    if mask is not None:
        g, c = g[mask], c[mask]
    return np.bincount(g, weights=c, minlength=14), np.bincount(g, minlength=14).astype(float)


def test_cr2_closed_form_engine_and_llm_are_clubsandwich(r_results):
    d = R_INPUTS
    se_r, df_r = r_results["cr2_acc"]
    k, n = _counts()
    assert np.sqrt(cr2_variance(k, n)) == pytest.approx(se_r, rel=1e-12)
    res = mlci.bootstrap_ci(
        np.ones_like(d["correct"]),
        d["correct"],
        metric="accuracy",
        conditions=d["g"].astype(int),
        method="t",
        rng=0,
        n_resamples=20,
    )
    assert res.details["linearized"]["standard_error"] == pytest.approx(se_r, rel=1e-12)
    cs = cluster_sums(d["correct"][None, :], np.ones(len(d["g"])), d["g"].astype(int), None)
    assert cs.cr2_se()[0] == pytest.approx(se_r, rel=1e-12)
    # the Satterthwaite df of the identity working model: K_BM = random_effects_df(rho=0)
    assert random_effects_df(n, 0.0) == pytest.approx(df_r, rel=1e-10)
    # Imbens & Kolesar's K_IK under a random-effects working model, by its definition in R
    assert random_effects_df(n, RHO) == pytest.approx(r_results["df_ik"][0], rel=1e-10)
    # clubSandwich's target= changes the CR2 adjustment matrices as well as the df: its
    # Satterthwaite df is not K_IK (8.19 vs 8.35 here), and not what mlci states
    assert r_results["df_target"][0] < r_results["df_ik"][0]
    # mlci's df: K_IK at the ANOVA estimate of the ICC, at most Kish's conditions - 1
    kish = n.sum() ** 2 / np.sum(n**2) - 1
    want = min(random_effects_df(n, icc_anova(k, n)), kish)
    assert res.details["linearized"]["df"] == pytest.approx(want, rel=1e-12)


def test_cr2_of_a_proportion_of_a_subset(r_results):
    # recall over conditions: the regression on the positives only, whose counts per
    # condition are the leverages (the engine used every sample's, 1.6% off before)
    d = R_INPUTS
    se_r = r_results["cr2_recall"][0]
    k, n = _counts(d["y"] == 1)
    assert np.sqrt(cr2_variance(k, n)) == pytest.approx(se_r, rel=1e-12)
    res = mlci.bootstrap_ci(
        d["y"],
        np.where(d["correct"] == 1, d["y"], 1 - d["y"]),
        metric="recall",
        conditions=d["g"].astype(int),
        method="t",
        rng=0,
        n_resamples=20,
    )
    assert res.details["linearized"]["standard_error"] == pytest.approx(se_r, rel=1e-12)


@pytest.mark.parametrize("level", [0.9, 0.95])
def test_survey_svyciprop_with_variant_survey(r_results, level):
    d = R_INPUTS
    key = round(100 * level)
    res = mlci.bootstrap_ci(
        np.ones_like(d["correct"]),
        d["correct"],
        metric="accuracy",
        conditions=d["g"].astype(int),
        method="t",
        confidence_level=level,
        rng=0,
        n_resamples=20,
    )
    lin = res.details["linearized"]
    assert lin["standard_error_cr1"] == pytest.approx(r_results["svy_se"][0], rel=1e-12)
    assert lin["standard_error_cr1"] == pytest.approx(r_results["hc1"][0], rel=1e-12)
    assert lin["n_units"] - 1 == r_results["svy_degf"][0]
    mean = res.interval(method="t", variant="survey")
    assert tuple(mean.confidence_interval) == pytest.approx(
        tuple(r_results[f"svy_mean_{key}"]), abs=1e-12
    )
    # svyciprop(method = "logit") fits svyglm iteratively: 1e-7
    logit = res.interval(method="logit_t", variant="survey")
    assert tuple(logit.confidence_interval) == pytest.approx(
        tuple(r_results[f"svy_logit_{key}"]), rel=1e-7
    )
    # the convention: mlci's default (CR2, Imbens-Kolesar df) is wider on unequal conditions
    default = res.interval(method="logit_t")
    assert default.confidence_interval.low < logit.confidence_interval.low
    assert default.confidence_interval.high > logit.confidence_interval.high
    assert lin["standard_error"] > lin["standard_error_cr1"]


@pytest.mark.filterwarnings("ignore::mlci.exceptions.FewConditionsWarning")
@pytest.mark.filterwarnings("ignore::mlci.FewResamplesWarning")  # 20 replicates: fast
def test_variant_survey_refuses_other_methods():
    d = R_INPUTS
    res = mlci.bootstrap_ci(
        np.ones_like(d["correct"]),
        d["correct"],
        metric="accuracy",
        conditions=d["g"].astype(int),
        method="percentile",
        rng=0,
        n_resamples=20,
    )
    with pytest.raises(ValueError, match="svyciprop"):
        res.interval(method="percentile", variant="survey")
    with pytest.raises(ValueError, match="linearized standard error"):
        res.interval(method="t", variant="survey")
