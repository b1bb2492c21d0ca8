"""The debiased Brier decomposition (Ferro & Fricker 2012) and the paired ECE rule of
``mlci.compare`` (docs/calibration.md).

References: Kumar, Liang & Ma's package ``uncertainty-calibration`` (import
``calibration``): its ``unbiased_square_ce`` on equal-width bins is the debiased
reliability, ``sum_b (n_b/n) [(ybar_b - pbar_b)^2 - ybar_b (1 - ybar_b) / (n_b - 1)]``; the
resolution and uncertainty corrections follow SpecsVerification's ``BrierDecomp(...,
bias.corrected=TRUE)`` (Siegert et al., the R package of Ferro & Fricker's decomposition),
transcribed below bin by bin with the shrinkage ``alpha`` at 1 (where it does not bind).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import brier_score_loss

import mlci
from mlci.metrics import get_kernel

kc = pytest.importorskip("calibration")  # uncertainty-calibration (Kumar et al. 2019)

pytestmark = pytest.mark.filterwarnings("ignore::mlci.exceptions.IrregularEstimandWarning")


def value(name, *data, **params):
    k = get_kernel(name, data, params)
    return float(k.evaluate(np.bincount(k.keys, minlength=k.m)[None, :].astype(float))[0])


def _binary(seed=0, n=600, power=1.6):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    return (rng.random(n) < p**power).astype(int), p


def _specs_verification(p, y, n_bins):
    """SpecsVerification's BrierDecomp(p, y, bins=n_bins, bias.corrected=TRUE) with
    alpha = 1: rel - corr.s, res - corr.s + corr.t, unc + corr.t (cs.A, cs.B, cs.C are
    the bins' counts, outcome sums and forecast sums; bins (lo, hi], the first with 0)."""
    edges = np.linspace(0, 1, n_bins + 1)
    which = np.searchsorted(edges[1:-1], p)
    n = len(p)
    a = np.bincount(which, minlength=n_bins).astype(float)
    b = np.bincount(which, weights=y, minlength=n_bins)
    c = np.bincount(which, weights=p, minlength=n_bins)
    d0, d1 = a >= 1, a >= 2
    rel = np.sum((b[d0] - c[d0]) ** 2 / a[d0]) / n
    res = np.sum(a[d0] * (b[d0] / a[d0] - y.sum() / n) ** 2) / n
    unc = y.sum() * (n - y.sum()) / n / n
    corr_s = np.sum(b[d1] * (a[d1] - b[d1]) / (a[d1] * (a[d1] - 1))) / n
    corr_t = y.sum() * (n - y.sum()) / n / n / (n - 1)
    return rel - corr_s, res - corr_s + corr_t, unc + corr_t


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n_bins", [5, 10, 15])
def test_debiased_reliability_is_kumar_unbiased_square_ce(seed, n_bins):
    y, p = _binary(seed)
    bins = kc.utils.bin(list(zip(p, y, strict=True)), list(np.linspace(0, 1, n_bins + 1)[1:]))
    assert min(map(len, bins)) >= 2  # Kumar et al. drop a bin of one sample; FF keep it
    ref = kc.utils.unbiased_square_ce(bins)
    assert value("brier_reliability", y, p, n_bins=n_bins, debias=True) == pytest.approx(
        ref, abs=1e-12
    )


@pytest.mark.parametrize("seed", [3, 4])
def test_debiased_terms_match_specs_verification(seed):
    y, p = _binary(seed, n=300)
    keep = p <= 0.95
    p = np.append(p[keep], 0.999)  # a last bin with one sample: no correction there
    y = np.append(y[keep], 1)
    rel, res, unc = _specs_verification(p, y, 20)
    got = [value(f"brier_{t}", y, p, n_bins=20, debias=True) for t in
           ("reliability", "resolution", "uncertainty")]  # fmt: skip
    assert got == pytest.approx([rel, res, unc], abs=1e-14)
    # the plug-in terms (debias=False) are Murphy's, as BrierDecomp(bias.corrected=FALSE)
    plug = value("brier_reliability", y, p, n_bins=20, debias=False)
    k = get_kernel("brier_reliability", (y, p), {"n_bins": 20, "debias": True})
    assert k.details["estimator"] == "debiased"
    assert k.details["plug_in"] == pytest.approx(plug, abs=1e-15)
    assert k.details["bias"] == pytest.approx(plug - rel, abs=1e-14)


def test_debiased_identity_is_exact_on_bin_values():
    # Ferro & Fricker's corrections cancel in REL' - RES' + UNC': the Brier score when
    # every forecast is its bin's value, debiased or not
    rng = np.random.default_rng(5)
    p = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9], size=800)
    y = (rng.random(800) < p**1.3).astype(int)
    for debias in (True, False):
        rel, res, unc = (
            value(f"brier_{t}", y, p, strategy="unique", debias=debias)
            for t in ("reliability", "resolution", "uncertainty")
        )
        assert rel - res + unc == pytest.approx(brier_score_loss(y, p), abs=1e-14)


def test_debiased_reliability_is_unbiased_on_a_binned_forecast():
    # forecasts that take one value per bin, outcomes Bernoulli(f): the expectation of the
    # debiased reliability is the population's sum_b P_b (f_b - p_b)^2 (exact for n_b >= 2)
    rng = np.random.default_rng(6)
    values = np.array([0.15, 0.35, 0.55, 0.75, 0.95])
    truth_f = values**1.5
    true_rel = np.mean((truth_f - values) ** 2)  # equal bin probabilities
    est, plug = [], []
    for _ in range(4000):
        p = np.repeat(values, 40)
        y = (rng.random(p.size) < np.repeat(truth_f, 40)).astype(int)
        est.append(value("brier_reliability", y, p, strategy="unique", debias=True))
        plug.append(value("brier_reliability", y, p, strategy="unique", debias=False))
    se = np.std(est) / np.sqrt(len(est))
    assert abs(np.mean(est) - true_rel) < 4 * se
    assert np.mean(plug) - true_rel > 20 * se  # the plug-in's bias is far larger


def test_default_is_debiased_with_the_normal_interval():
    y, p = _binary(7, n=800, power=2.0)
    res = mlci.bootstrap_ci(y, p, metric="brier_reliability", rng=0, n_resamples=300)
    assert res.details["estimator"] == "debiased"
    assert res.method == "normal"
    assert "coverage" in res.details["method_reason"]
    plug = mlci.bootstrap_ci(
        y, p, metric="brier_reliability", metric_kwargs={"debias": False}, rng=0, n_resamples=300
    )
    assert plug.method == "studentized"
    assert res.details["plug_in"] == pytest.approx(plug.estimate, abs=1e-15)
    assert res.estimate == pytest.approx(plug.estimate - res.details["bias"], abs=1e-15)
    # the normal interval: estimate -/+ z times the bootstrap standard deviation
    sd = np.std(res.bootstrap_distribution, ddof=1)
    z = stats.norm.ppf(0.975)
    assert res.confidence_interval.low == pytest.approx(max(0.0, res.estimate - z * sd))
    assert res.confidence_interval.high == pytest.approx(res.estimate + z * sd)


def test_warnings_where_no_interval_held():
    # mce: at every call; the debiased reliability: between 2 and 8 times the bins' noise
    y, p = _binary(10, n=500, power=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", mlci.IrregularEstimandWarning)
        with pytest.raises(mlci.IrregularEstimandWarning, match="No interval of 'mce'"):
            get_kernel("mce", (y, p), {})
        get_kernel("brier_reliability", (y, p), {})  # f(p) = p^2: 11 times the noise
        get_kernel("brier_resolution", (y, p), {})
    rng = np.random.default_rng(11)
    p = rng.beta(2, 2, 500)
    y = (rng.random(500) < 1 / (1 + np.exp(-0.6 * np.log(p / (1 - p))))).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("error", mlci.IrregularEstimandWarning)
        with pytest.raises(mlci.IrregularEstimandWarning, match="conservative"):
            get_kernel("brier_reliability", (y, p), {})
        get_kernel("brier_reliability", (y, p), {"debias": False})  # no such claim


@pytest.mark.parametrize("name", ["brier_reliability", "brier_resolution", "brier_uncertainty"])
def test_bad_debias_is_refused(name):
    y, p = _binary(8)
    with pytest.raises(TypeError, match="`debias` must be True or False"):
        get_kernel(name, (y, p), {"debias": "yes"})
    with pytest.raises(TypeError, match="`debias` must be True or False"):
        mlci.bootstrap_ci(y, p, metric=name, metric_kwargs={"debias": 1}, n_resamples=50)


def test_compare_ece_uses_its_paired_rule_and_warns():
    rng = np.random.default_rng(9)
    q = rng.beta(2, 2, 1500)
    y = (rng.random(1500) < q).astype(int)
    systems = {"over": 1 / (1 + np.exp(-np.log(q / (1 - q)) / 0.6)), "sqrt": np.sqrt(q)}
    with pytest.warns(mlci.IrregularEstimandWarning, match="No interval of a difference of ECEs"):
        res = mlci.compare(y, systems, metric="ece", rng=0, n_resamples=400)
    d = res.differences[0]
    assert d.method == "percentile"
    assert all(s.method == "normal" for s in res.systems.values())  # as bootstrap_ci's
    assert "differences: percentile" in res.details["method_reason"]
    assert d.estimate == pytest.approx(
        res.systems["over"].estimate - res.systems["sqrt"].estimate, abs=1e-15
    )
    # the interval: the replicates' quantiles; the p-value: the share beyond 0
    dist = res.systems["over"].bootstrap_distribution - res.systems["sqrt"].bootstrap_distribution
    assert d.confidence_interval.low == pytest.approx(np.quantile(dist, 0.025), abs=1e-14)
    assert d.confidence_interval.high == pytest.approx(np.quantile(dist, 0.975), abs=1e-14)
    far = min(np.sum(dist <= 0), np.sum(dist >= 0))
    assert d.pvalue == pytest.approx(min(1.0, 2 * (1 + far) / (1 + len(dist))), abs=1e-15)
    # one-sided: H1 over > sqrt
    with pytest.warns(mlci.IrregularEstimandWarning):
        one = mlci.compare(y, systems, metric="ece", rng=0, n_resamples=400, alternative="greater")
    expected = (1 + np.sum(dist <= 0)) / (1 + len(dist))
    assert one.differences[0].pvalue == pytest.approx(expected, abs=1e-15)
    # an explicit method is the user's: no rule, no warning of the rule
    with warnings.catch_warnings():
        warnings.simplefilter("error", mlci.IrregularEstimandWarning)
        warnings.filterwarnings("ignore", "'ece' is", mlci.IrregularEstimandWarning)
        bca = mlci.compare(y, systems, metric="ece", rng=0, n_resamples=200, method="bca")
    assert bca.differences[0].method == "bca"
    # the plug-in ECE (debias=False) keeps the generic rule: t on the linearized SE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.IrregularEstimandWarning)
        plug = mlci.compare(
            y, systems, metric="ece", metric_kwargs={"debias": False}, rng=0, n_resamples=200
        )
    assert plug.differences[0].method == "t"


def test_cli_table_says_the_terms_are_debiased(tmp_path, capsys):
    from mlci.cli import main

    y, p = _binary(12, n=400, power=2.0)
    path = tmp_path / "cal.csv"
    path.write_text("y,p\n" + "".join(f"{a},{b:.4f}\n" for a, b in zip(y, p, strict=True)))
    args = ["ci", str(path), "--label", "y", "--score", "p", "-B", "200", "--seed", "0"]
    assert main([*args, "--metric", "brier_reliability,brier_resolution"]) == 0
    out = capsys.readouterr().out
    assert "brier_reliability (debiased)" in out
    assert "brier_resolution (debiased)" in out
