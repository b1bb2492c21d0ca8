"""mlci's ROC analysis against R's pROC (1.18 in Debian's r-cran-proc).

Exact (1e-12): the AUC, DeLong's variance and interval, the paired DeLong test with its
interval, the unpaired test with ``variant="welch-t"``, sensitivity at fixed
specificities and specificity at fixed sensitivities (``coords``, on data with ties and
on the issue-21 example), the partial AUC on either axis with and without McClish's
correction.  Monte Carlo: the bootstrap intervals (``ci.auc(method = "bootstrap")``,
``ci.se``, ``ci.sp``, 2000 stratified replicates each, independent random streams).
Convention: mlci's unpaired DeLong test refers the statistic to the normal
(``2 * pnorm(-abs(D))`` reproduces its p-value in R), pROC to Welch's t.
"""

from __future__ import annotations

import numpy as np
import pytest

import mlci
from mlci import Scores
from mlci.scores.curves import auc_ci, partial_auc

pytestmark = pytest.mark.r

R_PACKAGES = ("pROC",)


def _data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2101)
    n = 150
    y = (rng.random(n) < 0.4).astype(float)
    a = np.round(y + rng.normal(0, 1, n), 1)  # ties within and across the classes
    b = 0.6 * a + 0.5 * y + rng.normal(0, 1, n)  # correlated with a, continuous
    y2 = (rng.random(110) < 0.5).astype(float)  # an independent test set
    c = 0.8 * y2 + rng.normal(0, 1, 110)
    neg = np.r_[np.linspace(0.0, 0.42, 33), 0.43, 0.47, 0.6, 0.8]  # the issue's example
    pos = np.r_[np.linspace(0.0015, 0.4115, 25), 0.44, 0.44, np.linspace(0.505, 0.955, 14)]
    pos2 = np.where(pos == 0.44, 0.449, pos)  # two positives moved: every rank kept
    return {"y": y, "a": a, "b": b, "y2": y2, "c": c, "neg": neg, "pos": pos, "pos2": pos2}


R_INPUTS = _data()
SP = np.array([0.2, 0.5, 0.8, 0.85, 0.9, 0.95, 0.99, 1.0])
SE = np.array([0.1, 0.5, 0.75, 0.8, 0.9, 0.95, 1.0])
R_INPUTS["sp"] = SP
R_INPUTS["se"] = SE
B = 2000
R_INPUTS["B"] = np.array([B])

R_SCRIPT = """
y <- get("y"); a <- get("a"); b <- get("b"); y2 <- get("y2"); c2 <- get("c")
sp <- get("sp"); se <- get("se"); B <- get("B")
mk <- function(resp, pred) roc(resp, pred, levels = c(0, 1), direction = "<", quiet = TRUE)
ra <- mk(y, a); rb <- mk(y, b); rc <- mk(y2, c2)
put("auc_a", auc(ra)); put("auc_b", auc(rb))
put("var_a", var(ra)); put("ci_delong_a", ci.auc(ra, method = "delong"))
set.seed(1)
put("ci_boot_a", ci.auc(ra, method = "bootstrap", boot.n = B, boot.stratified = TRUE))
rt <- roc.test(ra, rb, method = "delong", paired = TRUE)
put("paired", c(rt$statistic, rt$p.value, rt$conf.int))
for (alt in c("greater", "less")) {
  put(paste0("paired_", alt),
      roc.test(ra, rb, method = "delong", paired = TRUE, alternative = alt)$p.value)
}
ru <- roc.test(ra, rc, method = "delong", paired = FALSE)
put("unpaired", c(ru$statistic, ru$parameter, ru$p.value))
put("unpaired_greater",
    roc.test(ra, rc, method = "delong", paired = FALSE, alternative = "greater")$p.value)
for (nm in c("a", "b")) {
  r <- if (nm == "a") ra else rb
  put(paste0("se_at_sp_", nm),
      coords(r, sp, input = "specificity", ret = "sensitivity", transpose = FALSE)$sensitivity)
  put(paste0("sp_at_se_", nm),
      coords(r, se, input = "sensitivity", ret = "specificity", transpose = FALSE)$specificity)
}
for (nm in c("pos", "pos2")) {
  ri <- roc(controls = get("neg"), cases = get(nm), direction = "<", quiet = TRUE)
  put(paste0("issue_", nm),
      coords(ri, 0.9, input = "specificity", ret = "sensitivity", transpose = FALSE)$sensitivity)
}
put("pauc_sp", auc(ra, partial.auc = c(1, 0.8), partial.auc.focus = "specificity"))
put("pauc_sp_mcclish", auc(ra, partial.auc = c(1, 0.8), partial.auc.focus = "specificity",
                           partial.auc.correct = TRUE))
put("pauc_se", auc(ra, partial.auc = c(1, 0.9), partial.auc.focus = "sensitivity"))
put("pauc_sp_mid", auc(rb, partial.auc = c(0.9, 0.6), partial.auc.focus = "specificity"))
set.seed(2)
put("ci_se", ci.se(ra, specificities = c(0.8, 0.9), boot.n = B, boot.stratified = TRUE))
set.seed(3)
put("ci_sp", ci.sp(ra, sensitivities = c(0.5, 0.8), boot.n = B, boot.stratified = TRUE))
"""


@pytest.fixture(scope="module")
def sa():
    d = R_INPUTS
    return Scores.from_labels(d["y"], d["a"])


@pytest.fixture(scope="module")
def sb():
    d = R_INPUTS
    return Scores.from_labels(d["y"], d["b"])


def test_auc_and_delong_interval(r_results, sa, sb):
    d = R_INPUTS
    assert sa.auc() == pytest.approx(r_results["auc_a"][0], abs=1e-12)
    assert sb.auc() == pytest.approx(r_results["auc_b"][0], abs=1e-12)
    res = mlci.delong_ci(d["y"], d["a"])
    low, est, high = r_results["ci_delong_a"]
    assert res.estimate == pytest.approx(est, abs=1e-12)
    assert res.standard_error**2 == pytest.approx(r_results["var_a"][0], rel=1e-12)
    assert tuple(res.confidence_interval) == pytest.approx((low, high), abs=1e-12)


def test_auc_bootstrap_interval_within_monte_carlo(r_results, sa):
    # Monte Carlo: two independent sets of 2000 stratified replicates.  The sd of a
    # 2.5% (97.5%) quantile of B replicates is about sqrt(.025 .975 / B) / phi(1.96) = 0.06
    # standard errors; the difference of two: 0.085 SE.  Tolerance 0.35 SE (~4 sd).
    res = auc_ci(
        sa, method="percentile", n_resamples=B, rng=0, resampling=mlci.Resampling(stratify=True)
    )
    low, _, high = r_results["ci_boot_a"]
    tol = 0.35 * res.standard_error
    assert res.confidence_interval.low == pytest.approx(low, abs=tol)
    assert res.confidence_interval.high == pytest.approx(high, abs=tol)


def test_paired_delong_test(r_results):
    d = R_INPUTS
    res = mlci.delong_test(d["y"], d["a"], d["b"])
    z, p, low, high = r_results["paired"]
    assert res.statistic == pytest.approx(z, rel=1e-12)
    assert res.pvalue == pytest.approx(p, rel=1e-12)
    assert tuple(res.confidence_interval) == pytest.approx((low, high), abs=1e-12)
    for alt in ("greater", "less"):
        r = mlci.delong_test(d["y"], d["a"], d["b"], alternative=alt)
        assert r.pvalue == pytest.approx(r_results[f"paired_{alt}"][0], rel=1e-12)


def test_unpaired_delong_test_welch_t_and_the_z_convention(r_results):
    d = R_INPUTS
    stat, df, p = r_results["unpaired"]
    welch = mlci.delong_test_independent(d["y"], d["a"], d["y2"], d["c"], variant="welch-t")
    assert welch.statistic == pytest.approx(stat, rel=1e-12)
    assert welch.df == pytest.approx(df, rel=1e-12)
    assert welch.pvalue == pytest.approx(p, rel=1e-12)
    greater = mlci.delong_test_independent(
        d["y"], d["a"], d["y2"], d["c"], variant="welch-t", alternative="greater"
    )
    assert greater.pvalue == pytest.approx(r_results["unpaired_greater"][0], rel=1e-12)
    # convention: mlci's default refers the same statistic to the normal; in R,
    # 2 * pnorm(-abs(roc.test(ra, rc, paired = FALSE)$statistic)) gives its p-value
    z = mlci.delong_test_independent(d["y"], d["a"], d["y2"], d["c"])
    assert z.statistic == pytest.approx(stat, rel=1e-12)
    from scipy.stats import norm

    assert z.pvalue == pytest.approx(2 * norm.sf(abs(stat)), rel=1e-12)
    assert z.pvalue < welch.pvalue


@pytest.mark.parametrize("name", ["a", "b"])
def test_rates_at_fixed_rates_are_proc_coords(r_results, sa, sb, name):
    s = sa if name == "a" else sb
    np.testing.assert_allclose(
        s.rate_at("tpr", at=SP, x="tnr"), r_results[f"se_at_sp_{name}"], rtol=0, atol=1e-12
    )
    np.testing.assert_allclose(
        s.rate_at("fnr", at=1 - SP, x="fpr"),
        1 - r_results[f"se_at_sp_{name}"],
        rtol=0,
        atol=1e-12,
    )
    np.testing.assert_allclose(
        s.rate_at("tnr", at=SE, x="tpr"), r_results[f"sp_at_se_{name}"], rtol=0, atol=1e-12
    )


def test_issue_example(r_results):
    # pROC: 16/41 = 0.3902 before and after moving two positives from 0.44 to 0.449;
    # mlci gave 0.3415, then 0.3902 (issue 21)
    d = R_INPUTS
    for key in ("pos", "pos2"):
        assert r_results[f"issue_{key}"][0] == pytest.approx(16 / 41, abs=1e-12)
        s = Scores(d[key], d["neg"])
        assert s.rate_at("tpr", at=0.9, x="tnr") == pytest.approx(16 / 41, abs=1e-12)


def test_partial_auc(r_results, sa, sb):
    # pROC's partial.auc = c(1, 0.8) on specificity is FPR in [0, 0.2]
    assert partial_auc(sa, 0.2) == pytest.approx(r_results["pauc_sp"][0], abs=1e-12)
    assert partial_auc(sa, 0.2, mcclish=True) == pytest.approx(
        r_results["pauc_sp_mcclish"][0], abs=1e-12
    )
    assert sa.auc(0.0, 0.2) == pytest.approx(r_results["pauc_sp"][0], abs=1e-12)
    # on sensitivity: the area under the specificity over TPR in [0.9, 1]
    assert sa.auc(0.9, 1.0, x_axis="tpr", y_axis="tnr") == pytest.approx(
        r_results["pauc_se"][0], abs=1e-12
    )
    # an inner range: specificity in [0.6, 0.9] is FPR in [0.1, 0.4]
    assert sb.auc(0.1, 0.4) == pytest.approx(r_results["pauc_sp_mid"][0], abs=1e-12)


def _within(x, ref, tol):
    x, ref = np.asarray(x, dtype=float), np.asarray(ref, dtype=float)
    assert np.all(np.abs(x - ref) <= tol), (x, ref, tol)


def test_ci_se_and_ci_sp_within_monte_carlo(r_results, sa):
    # pROC's ci.se/ci.sp: percentiles (type 7) of 2000 stratified replicates of the rate
    # read by coords on each replicate's ROC, which is what mlci's "tpr_at_tnr" reads;
    # Monte Carlo tolerance as for the AUC (0.35 bootstrap SE), plus one step of the
    # rate's grid (1/60 positives, 1/90 negatives: the replicates are mostly on it, so a
    # quantile moves by whole steps); the medians likewise
    for metric, at, key, seed, step in (
        ("tpr_at_tnr", [0.8, 0.9], "ci_se", 4, 1 / sa.n_pos),
        ("tnr_at_tpr", [0.5, 0.8], "ci_sp", 5, 1 / sa.n_neg),
    ):
        res = sa.bootstrap_ci(
            metric,
            at=at,
            method="percentile",
            n_resamples=B,
            rng=seed,
            resampling=mlci.Resampling(stratify=True),
        )
        ref = r_results[key].reshape(3, 2).T  # one row per rate: low, median, high
        tol = 0.35 * np.asarray(res.standard_error) + step
        _within(res.confidence_interval.low, ref[:, 0], tol)
        _within(res.confidence_interval.high, ref[:, 2], tol)
        _within(np.median(res.bootstrap_distribution, axis=0), ref[:, 1], tol)
