"""mlci's classical intervals and tests against R's stats package (R 4.2).

Exact (1e-12 relative or absolute): ``prop.test`` (Wilson with and without continuity
correction; the two-sample Wald interval), ``binom.test`` (Clopper-Pearson; its p-value
through ``sign_test``), ``mcnemar.test`` (corrected and not), ``wilcox.test`` (paired:
normal approximation with ties, with and without the continuity correction, all three
alternatives; exact without ties), ``friedman.test`` (with ties: the tie correction;
without), ``t.test`` (paired).

Conventions, each reproduced by the R call beside it: ``wilcoxon_test``'s default
``zero_method="zsplit"`` (Demšar) keeps zero differences, R drops them
(``zero_method="wilcox"`` = R); ``variant="auto"`` is exact up to n ≤ 50 differences
without ties (scipy's rule), R's ``wilcox.test`` for n < 50 only: at n = 50 R uses the
normal approximation, which ``variant="approx"`` gives.
"""

from __future__ import annotations

import numpy as np
import pytest

import mlci

pytestmark = pytest.mark.r

R_PACKAGES = ("stats",)


def _data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2104)
    a = np.round(rng.normal(0.80, 0.05, 25), 2)  # 25 data sets: ties among |d|, no zero
    b = np.round(a + rng.normal(-0.012, 0.02, 25), 2)
    b = np.where(a == b, b - 0.01, b)
    z = b.copy()
    z[:3] = a[:3]  # three zero differences
    e1 = rng.normal(0, 1, 20)  # no ties: R's exact test
    e2 = e1 + rng.normal(0.3, 1, 20)
    f1 = rng.normal(0, 1, 50)  # n = 50 without ties: exact for mlci's auto, not for R
    f2 = f1 + rng.normal(0.2, 1, 50)
    tied = np.round(rng.random((14, 4)) + np.array([0.0, 0.1, 0.2, 0.3]), 1)  # Friedman
    untied = rng.random((12, 5))
    return {
        "a": a, "b": b, "z": z, "e1": e1, "e2": e2, "f1": f1, "f2": f2,
        "tied": tied.ravel(), "untied": untied.ravel(),
        "kn": np.array([7.0, 40.0, 0.0, 25.0, 25.0, 25.0]),
        "two": np.array([33.0, 50.0, 24.0, 47.0]),
        "mc": np.array([40.0, 12.0, 5.0, 43.0]), "mc_eq": np.array([30.0, 9.0, 9.0, 20.0]),
        "cv_a": rng.normal(0.85, 0.02, 10), "cv_b": rng.normal(0.84, 0.02, 10),
    }  # fmt: skip


R_INPUTS = _data()

R_SCRIPT = """
kn <- get("kn")
for (i in 1:3) {
  k <- kn[2 * i - 1]; n <- kn[2 * i]
  put(paste0("wilson_", i), prop.test(k, n, correct = FALSE)$conf.int)
  put(paste0("wilson_cc_", i), prop.test(k, n, correct = TRUE)$conf.int)
  put(paste0("cp_", i), binom.test(k, n)$conf.int)
  put(paste0("binom_p_", i), binom.test(k, n)$p.value)
}
two <- get("two")
put("wald2", prop.test(two[c(1, 3)], two[c(2, 4)], correct = FALSE)$conf.int)
for (nm in c("mc", "mc_eq")) {
  m <- matrix(get(nm), 2, byrow = TRUE)
  for (cc in c(TRUE, FALSE)) {
    t <- mcnemar.test(m, correct = cc)
    put(paste0(nm, "_", cc), c(t$statistic, t$p.value))
  }
}
a <- get("a"); b <- get("b"); z <- get("z"); e1 <- get("e1"); e2 <- get("e2")
for (alt in c("two.sided", "greater", "less")) {
  for (cc in c(TRUE, FALSE)) {
    w <- wilcox.test(a, b, paired = TRUE, exact = FALSE, correct = cc, alternative = alt)
    put(paste0("wil_", alt, "_", cc), c(w$statistic, w$p.value))
    w <- wilcox.test(a, z, paired = TRUE, exact = FALSE, correct = cc, alternative = alt)
    put(paste0("wilz_", alt, "_", cc), c(w$statistic, w$p.value))
  }
  w <- wilcox.test(e1, e2, paired = TRUE, exact = TRUE, alternative = alt)
  put(paste0("wilx_", alt), c(w$statistic, w$p.value))
}
put("wil50", wilcox.test(get("f1"), get("f2"), paired = TRUE)$p.value)
tied <- matrix(get("tied"), ncol = 4, byrow = TRUE)
untied <- matrix(get("untied"), ncol = 5, byrow = TRUE)
for (nm in c("tied", "untied")) {
  f <- friedman.test(if (nm == "tied") tied else untied)
  put(paste0("friedman_", nm), c(f$statistic, f$parameter, f$p.value))
}
tt <- t.test(get("cv_a"), get("cv_b"), paired = TRUE)
put("ttest", c(tt$statistic, tt$parameter, tt$p.value, tt$conf.int))
"""


@pytest.mark.parametrize("i", [1, 2, 3])
def test_prop_test_and_binom_test(r_results, i):
    k, n = R_INPUTS["kn"][2 * i - 2], R_INPUTS["kn"][2 * i - 1]
    for method, key in (
        ("wilson", "wilson"),
        ("wilson_cc", "wilson_cc"),
        ("clopper_pearson", "cp"),
    ):
        res = mlci.proportion_ci(int(k), int(n), method=method)
        assert tuple(res.confidence_interval) == pytest.approx(
            tuple(r_results[f"{key}_{i}"]), abs=1e-12
        ), method
    # binom.test's two-sided p-value (its 1 + 1e-7 relative rule), through the sign test
    wins, losses = int(k), int(n - k)
    s = mlci.sign_test([1.0] * wins + [0.0] * losses, [0.5] * (wins + losses))
    assert s.pvalue == pytest.approx(r_results[f"binom_p_{i}"][0], rel=1e-12)


def test_two_sample_prop_test_wald(r_results):
    k1, n1, k2, n2 = (int(v) for v in R_INPUTS["two"])
    res = mlci.proportion_diff_ci(k1, n1, k2, n2, method="wald")
    assert tuple(res.confidence_interval) == pytest.approx(tuple(r_results["wald2"]), abs=1e-12)


def test_mcnemar(r_results):
    for nm in ("mc", "mc_eq"):
        table = R_INPUTS[nm].reshape(2, 2)
        plain = mlci.mcnemar_test(table, variant="asymptotic")
        stat, p = r_results[f"{nm}_FALSE"]
        assert plain.statistic == pytest.approx(stat, rel=1e-12, abs=1e-15)
        assert plain.pvalue == pytest.approx(p, rel=1e-12)
        corrected = mlci.mcnemar_test(table, variant="corrected")
        stat, p = r_results[f"{nm}_TRUE"]
        # b = c: R drops the correction (YATES = 0 when the table is symmetric), as
        # Edwards' max(|b - c| - 1, 0)^2 does: statistic 0, p 1
        assert corrected.statistic == pytest.approx(stat, rel=1e-12, abs=1e-15)
        assert corrected.pvalue == pytest.approx(p, rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("continuity", [True, False])
def test_wilcox_test_normal_approximation(r_results, alternative, continuity):
    d = R_INPUTS
    alt = {"two-sided": "two.sided"}.get(alternative, alternative)
    cc = "TRUE" if continuity else "FALSE"
    kw = dict(variant="approx", alternative=alternative, continuity=continuity)
    v, p = r_results[f"wil_{alt}_{cc}"]
    r = mlci.wilcoxon_test(d["a"], d["b"], **kw)
    assert r.details["r_plus"] == v
    assert r.pvalue == pytest.approx(p, rel=1e-12)
    # with zero differences: R drops them, which is zero_method="wilcox"
    v, p = r_results[f"wilz_{alt}_{cc}"]
    r = mlci.wilcoxon_test(d["a"], d["z"], zero_method="wilcox", **kw)
    assert r.details["r_plus"] == v
    assert r.pvalue == pytest.approx(p, rel=1e-12)
    # the default (variant="auto": ties, so the approximation) is R's default correct=TRUE
    if continuity:
        default = mlci.wilcoxon_test(d["a"], d["b"], alternative=alternative)
        assert default.pvalue == pytest.approx(r_results[f"wil_{alt}_TRUE"][1], rel=1e-12)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcox_test_exact(r_results, alternative):
    d = R_INPUTS
    alt = {"two-sided": "two.sided"}.get(alternative, alternative)
    v, p = r_results[f"wilx_{alt}"]
    r = mlci.wilcoxon_test(d["e1"], d["e2"], alternative=alternative)
    assert r.details["variant"] == "exact"
    assert r.details["r_plus"] == v
    assert r.pvalue == pytest.approx(p, rel=1e-12)


def test_wilcox_test_at_50_differences(r_results):
    d = R_INPUTS
    r = mlci.wilcoxon_test(d["f1"], d["f2"])
    assert r.details["variant"] == "exact"
    approx = mlci.wilcoxon_test(d["f1"], d["f2"], variant="approx")
    assert approx.pvalue == pytest.approx(r_results["wil50"][0], rel=1e-12)
    assert r.pvalue != pytest.approx(approx.pvalue, rel=1e-6)


@pytest.mark.parametrize("name", ["tied", "untied"])
def test_friedman_test(r_results, name):
    k = 4 if name == "tied" else 5
    scores = R_INPUTS[name].reshape(-1, k)
    stat, df, p = r_results[f"friedman_{name}"]
    r = mlci.friedman_test(scores, variant="chi2")
    assert r.statistic == pytest.approx(stat, rel=1e-12)
    assert r.df == df
    assert r.pvalue == pytest.approx(p, rel=1e-12)
    if name == "tied":  # Demšar's formula without the correction is smaller
        plain = mlci.friedman_test(scores, variant="chi2", tie_correction=False)
        assert plain.statistic < stat


def test_paired_t_test(r_results):
    stat, df, p, low, high = r_results["ttest"]
    r = mlci.kfold_cv_ttest(R_INPUTS["cv_a"], R_INPUTS["cv_b"])
    assert r.statistic == pytest.approx(stat, rel=1e-12)
    assert r.df == df
    assert r.pvalue == pytest.approx(p, rel=1e-12)
    assert tuple(r.confidence_interval) == pytest.approx((low, high), abs=1e-12)
