"""mlci's bootstrap intervals against R's boot.ci (boot 1.3-28), on R's own replicates.

R draws the replicates (``boot(x, statistic, R = 1999)``); mlci's interval functions get
the same ``t``, ``t0``, the replicates' variances (studentized) and the delete-one
jackknife values (BCa's acceleration, boot's ``L = empinf(type = "jack")``).

Exact (1e-12): ``variant="boot"`` gives boot.ci's perc, basic, norm, bca and stud
intervals, on a continuous statistic (a mean) and on a discrete one (a proportion, whose
replicates tie with the estimate).  Conventions (mlci's default), each reproduced in R by
the call beside it, also to 1e-12:

* percentile/basic: numpy's linear quantiles, ``quantile(t, p, type = 7)``, where boot
  interpolates the ``(R + 1) p``-th order statistic on the normal scale;
* BCa: ``z0 = qnorm(mean(t < t0) + mean(t == t0) / 2)`` (ties one half, scipy), with
  type-7 quantiles, where boot counts ``t < t0`` only;
* normal: ``t0 + c(-1, 1) * qnorm(0.975) * sd(t)``, where boot subtracts the bias
  ``mean(t) - t0``;
* studentized: type-7 quantiles of ``(t - t0) / se*``, and on the logit scale for a
  bounded metric (boot: the statistic's own scale).
"""

from __future__ import annotations

import numpy as np
import pytest

import mlci
from mlci.intervals.bootstrap import bootstrap_interval, studentized_interval
from mlci.intervals.variants import boot_interval, boot_quantiles

pytestmark = pytest.mark.r

R_PACKAGES = ("boot",)


def _data() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2102)
    return {
        "x": rng.exponential(1.0, 60),  # a skewed mean: BCa's acceleration matters
        "y": (rng.random(80) < 0.8).astype(float),  # accuracy: replicates tie with t0
    }


R_INPUTS = _data()

R_SCRIPT = """
level <- c(0.9, 0.95)
for (nm in c("x", "y")) {
  x <- get(nm); n <- length(x)
  set.seed(if (nm == "x") 11 else 12)
  b <- boot(x, function(d, i) c(mean(d[i]), var(d[i]) / length(i)), R = 1999)
  jack <- sapply(seq_len(n), function(i) mean(x[-i]))
  L <- (n - 1) * (mean(jack) - jack)
  put(paste0(nm, "_t"), b$t[, 1]); put(paste0(nm, "_vt"), b$t[, 2])
  put(paste0(nm, "_t0"), b$t0[1]); put(paste0(nm, "_vt0"), b$t0[2])
  put(paste0(nm, "_jack"), jack)
  for (lv in level) {
    key <- paste0(nm, "_", round(100 * lv))
    ci <- boot.ci(b, conf = lv, type = c("perc", "basic"), index = 1)
    put(paste0(key, "_perc"), ci$percent[4:5]); put(paste0(key, "_basic"), ci$basic[4:5])
    put(paste0(key, "_norm"), boot.ci(b, conf = lv, type = "norm", index = 1)$normal[2:3])
    put(paste0(key, "_bca"), boot.ci(b, conf = lv, type = "bca", index = 1, L = L)$bca[4:5])
    put(paste0(key, "_stud"), boot.ci(b, conf = lv, type = "stud", index = 1:2)$student[4:5])
    # mlci's conventions, written in R
    t <- b$t[, 1]; t0 <- b$t0[1]; p <- (1 + c(-lv, lv)) / 2
    put(paste0(key, "_q7"), quantile(t, p, type = 7, names = FALSE))
    put(paste0(key, "_norm_mlci"), t0 + c(-1, 1) * qnorm((1 + lv) / 2) * sd(t))
    a <- sum(L^3) / (6 * sum(L^2)^1.5)
    w <- qnorm(mean(t < t0) + mean(t == t0) / 2)
    adj <- pnorm(w + (w + qnorm(p)) / (1 - a * (w + qnorm(p))))
    put(paste0(key, "_bca_mlci"), quantile(t, adj, type = 7, names = FALSE))
    z <- (t - t0) / sqrt(b$t[, 2])
    put(paste0(key, "_stud_mlci"),
        t0 - sqrt(b$t0[2]) * quantile(z, rev(p), type = 7, names = FALSE))
  }
}
"""

LEVELS = (0.9, 0.95)


def _reps(r, name):
    return (
        r[f"{name}_t"],
        r[f"{name}_t0"][0],
        np.sqrt(r[f"{name}_vt"]),
        np.sqrt(r[f"{name}_vt0"][0]),
        r[f"{name}_jack"],
    )


@pytest.mark.parametrize("name", ["x", "y"])
@pytest.mark.parametrize("level", LEVELS)
def test_variant_boot_is_boot_ci(r_results, name, level):
    t, t0, se_t, se0, jack = _reps(r_results, name)
    key = f"{name}_{round(100 * level)}"
    res = mlci.bca_ci(t, t0, jackknife=jack, confidence_level=level, variant="boot")
    assert tuple(res.confidence_interval) == pytest.approx(
        tuple(r_results[f"{key}_bca"]), abs=1e-12
    )
    for method, ref in (("percentile", "perc"), ("basic", "basic"), ("normal", "norm")):
        other = res.interval(method=method, variant="boot")
        assert tuple(other.confidence_interval) == pytest.approx(
            tuple(r_results[f"{key}_{ref}"]), abs=1e-12
        ), method
    low, high, _ = boot_interval(
        t0, t, method="studentized", confidence_level=level, se_hat=se0, se_dist=se_t
    )
    assert (float(low), float(high)) == pytest.approx(tuple(r_results[f"{key}_stud"]), abs=1e-12)


@pytest.mark.parametrize("name", ["x", "y"])
@pytest.mark.parametrize("level", LEVELS)
def test_default_conventions_are_the_r_calls_in_the_docstring(r_results, name, level):
    t, t0, se_t, se0, jack = _reps(r_results, name)
    key = f"{name}_{round(100 * level)}"
    q7 = tuple(r_results[f"{key}_q7"])
    low, high, _ = bootstrap_interval(t0, t, method="percentile", confidence_level=level)
    assert (float(low), float(high)) == pytest.approx(q7, abs=1e-12)
    low, high, _ = bootstrap_interval(t0, t, method="basic", confidence_level=level)
    assert (float(low), float(high)) == pytest.approx((2 * t0 - q7[1], 2 * t0 - q7[0]), abs=1e-12)
    low, high, _ = bootstrap_interval(t0, t, method="normal", confidence_level=level)
    assert (float(low), float(high)) == pytest.approx(
        tuple(r_results[f"{key}_norm_mlci"]), abs=1e-12
    )
    res = mlci.bca_ci(t, t0, jackknife=jack, confidence_level=level)
    assert tuple(res.confidence_interval) == pytest.approx(
        tuple(r_results[f"{key}_bca_mlci"]), abs=1e-12
    )
    low, high, _ = studentized_interval(t0, se0, t, se_t, confidence_level=level)
    assert (float(low), float(high)) == pytest.approx(
        tuple(r_results[f"{key}_stud_mlci"]), abs=1e-12
    )


def test_the_differences_are_what_the_docs_say(r_results):
    # the discrete statistic: many replicates tie with the estimate, so BCa's two bias
    # corrections differ; the normal intervals differ by the bootstrap bias
    t, t0, *_ = _reps(r_results, "y")
    assert np.mean(t == t0) > 0.05
    mlci_bca = mlci.bca_ci(t, t0, jackknife=r_results["y_jack"])
    assert (
        mlci_bca.details["z0"]
        != mlci.bca_ci(t, t0, jackknife=r_results["y_jack"], variant="boot").details["z0"]
    )
    bias = t.mean() - t0
    mlci_norm = np.asarray(r_results["y_95_norm_mlci"])
    np.testing.assert_allclose(np.asarray(r_results["y_95_norm"]), mlci_norm - bias, atol=1e-12)
    # boot's quantile rule: the (R + 1) p-th order statistic when it is an integer
    s = np.sort(t)
    assert float(boot_quantiles(t, 0.025)) == s[49]  # (1999 + 1) * 0.025 = 50


def test_variant_bad_input():
    t = np.random.default_rng(0).normal(size=50)
    with pytest.raises(ValueError, match="variant"):
        mlci.bca_ci(t, 0.0, jackknife=t[:10], variant="R")
    res = mlci.bca_ci(t, 0.0, jackknife=t[:10])
    with pytest.raises(ValueError, match="variant"):
        res.interval(variant="scipy")
    with pytest.raises(ValueError, match=r"boot\.ci, which has no 't' interval"):
        boot_interval(0.0, t, method="t", confidence_level=0.95)
