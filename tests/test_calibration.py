"""Calibration metrics against their references (docs/calibration.md).

References: Kumar, Liang & Ma's own package ``uncertainty-calibration`` (import
``calibration``) for ECE (equal-width bins, top-label and marginal/class-wise) and their
debiased l2 calibration error; scikit-learn's ``calibration_curve`` for the bins and
``brier_score_loss`` for Murphy's identity; statsmodels' GLM for the logistic
recalibration.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss

import mlci
from _helpers import central_difference
from mlci.exceptions import IrregularEstimandWarning
from mlci.metrics import get_kernel
from mlci.metrics._base import numeric_gradient

kc = pytest.importorskip("calibration")  # uncertainty-calibration (Kumar et al. 2019)

pytestmark = pytest.mark.filterwarnings("ignore::mlci.exceptions.IrregularEstimandWarning")


def value(name, *data, **params):
    k = get_kernel(name, data, params)
    return float(k.evaluate(np.bincount(k.keys, minlength=k.m)[None, :].astype(float))[0])


def _binary(seed=0, n=600, power=1.4):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    y = (rng.random(n) < p**power).astype(int)
    return y, p


def _multiclass(seed=1, n=600, k=4):
    rng = np.random.default_rng(seed)
    logits = 2 * rng.normal(size=(n, k))
    truth = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    y = (rng.random(n)[:, None] > np.cumsum(truth, 1)).sum(1)
    pm = truth**1.5
    return y, pm / pm.sum(1, keepdims=True)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n_bins", [5, 15])
def test_ece_matches_kumar_package(seed, n_bins):
    # the plug-in ECE (debias=False) is Kumar et al.'s get_ece
    y, p = _binary(seed)
    assert value("ece", y, p, n_bins=n_bins, debias=False) == pytest.approx(
        kc.get_ece(p, y, num_bins=n_bins), abs=1e-12
    )
    ym, pm = _multiclass(seed)
    assert value("ece", ym, pm, n_bins=n_bins, debias=False) == pytest.approx(
        kc.get_ece(pm, ym, num_bins=n_bins, mode="top-label"), abs=1e-12
    )
    assert value("ece", ym, pm, n_bins=n_bins, mode="classwise", debias=False) == pytest.approx(
        kc.get_ece(pm, ym, num_bins=n_bins, mode="marginal"), abs=1e-12
    )


def _folded_normal_ece(y, p, edges):
    """The debiased l1 ECE from scipy's folded normal: per bin |d| - (E|N(d, s^2)| - |d|),
    d = mean y - mean p, s^2 = mean y (1 - mean y) / n_b (Kumar et al.'s normal_debiased_ce,
    its Monte Carlo mean replaced by the exact one, scipy.stats.foldnorm.mean)."""
    from scipy import stats

    which = np.searchsorted(edges[1:-1], p)
    out = 0.0
    for b in np.unique(which):
        yb, pb = y[which == b], p[which == b]
        d = yb.mean() - pb.mean()
        s = np.sqrt(yb.mean() * (1 - yb.mean()) / len(yb))
        fold = stats.foldnorm(abs(d) / s, scale=s).mean() if s > 0 else abs(d)
        out += len(yb) * (2 * abs(d) - fold)
    return out / len(y)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize(
    ("n_bins", "strategy"), [(5, "uniform"), (15, "uniform"), (10, "quantile")]
)
def test_debiased_l1_ece_equals_folded_normal_and_kumar(seed, n_bins, strategy):
    y, p = _binary(seed)
    edges = (
        np.linspace(0, 1, n_bins + 1)
        if strategy == "uniform"
        else np.percentile(p, np.linspace(0, 100, n_bins + 1))
    )
    got = value("ece", y, p, n_bins=n_bins, strategy=strategy)  # debias=True: the default
    assert got == pytest.approx(_folded_normal_ece(y, p, edges), abs=1e-12)
    if strategy == "uniform":
        # Kumar et al.'s own normal_debiased_ce (Monte Carlo, 1000 draws a call): the mean of
        # 40 calls is within 4 Monte Carlo standard errors of the exact value
        np.random.seed(seed)  # noqa: NPY002 (Kumar et al.'s package draws from the global one)
        bins = kc.utils.bin(list(zip(p, y, strict=True)), list(edges[1:]))
        draws = [kc.utils.normal_debiased_ce(bins, power=1) for _ in range(40)]
        assert abs(np.mean(draws) - got) < 4 * np.std(draws) / np.sqrt(40) + 1e-6


@pytest.mark.parametrize("seed", [0, 3])
def test_debiased_ece_matches_kumar_package(seed):
    y, p = _binary(seed)
    ym, pm = _multiclass(seed)
    bins = kc.get_equal_prob_bins
    for mode_, yy, pp, mode in [
        ("positive", y, p, "marginal"),
        ("top_label", ym, pm, "top-label"),
        ("classwise", ym, pm, "marginal"),
    ]:
        ref = kc.lower_bound_scaling_ce(
            pp, yy, p=2, debias=True, num_bins=10, binning_scheme=bins, mode=mode
        )
        got = value("ece_debiased", yy, pp, n_bins=10, mode=mode_)
        assert got == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_bins_match_sklearn_calibration_curve(strategy):
    y, p = _binary(4)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=10, strategy=strategy)
    if strategy == "uniform":
        edges = np.linspace(0, 1, 11)
    else:
        edges = np.percentile(p, np.linspace(0, 100, 11))
    counts = np.bincount(np.searchsorted(edges[1:-1], p), minlength=10)
    counts = counts[counts > 0]
    ece = np.sum(counts / len(p) * np.abs(prob_true - prob_pred))
    assert value("ece", y, p, n_bins=10, strategy=strategy, debias=False) == pytest.approx(
        ece, abs=1e-12
    )
    assert value("mce", y, p, n_bins=10, strategy=strategy) == pytest.approx(
        np.max(np.abs(prob_true - prob_pred)), abs=1e-12
    )


def test_murphy_identity_is_exact_on_bin_values():
    # Murphy (1973): Brier = REL - RES + UNC when every forecast is its bin's value (his
    # plug-in terms, debias=False; the debiased ones: tests/test_calibration_brier.py)
    y, p = _binary(5)
    for q in (np.round(p, 1), np.round(p, 2)):
        rel = value("brier_reliability", y, q, strategy="unique", debias=False)
        res = value("brier_resolution", y, q, strategy="unique", debias=False)
        unc = value("brier_uncertainty", y, q, strategy="unique", debias=False)
        assert rel - res + unc == pytest.approx(brier_score_loss(y, q), abs=1e-12)
        assert unc == pytest.approx(y.mean() * (1 - y.mean()), abs=1e-15)
    # with binned continuous forecasts the identity has within-bin terms: not equal
    rel = value("brier_reliability", y, p, n_bins=5)
    res = value("brier_resolution", y, p, n_bins=5)
    unc = value("brier_uncertainty", y, p, n_bins=5)
    assert abs(rel - res + unc - brier_score_loss(y, p)) > 1e-6


def test_recalibration_matches_statsmodels():
    y, p = _binary(6)
    z = np.log(p / (1 - p))
    fit = sm.GLM(y, sm.add_constant(z), family=sm.families.Binomial()).fit(tol=1e-14)
    assert value("calibration_slope", y, p) == pytest.approx(fit.params[1], abs=1e-10)
    off = sm.GLM(y, np.ones((len(y), 1)), family=sm.families.Binomial(), offset=z).fit(tol=1e-14)
    assert value("calibration_intercept", y, p) == pytest.approx(off.params[0], abs=1e-10)


@pytest.mark.parametrize(
    "name",
    ["ece", "calibration_slope", "calibration_intercept", "brier_reliability", "brier_resolution"],
)
@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")  # a small intercept
def test_closed_form_gradients_match_numeric(name):
    y, p = _binary(7, n=40)
    k = get_kernel(name, (y, p), {})
    rng = np.random.default_rng(0)
    w = np.stack([np.bincount(k.keys, weights=rng.integers(0, 3, 40), minlength=k.m) for _ in "ab"])
    v = k.evaluate(w)
    g = k.gradient(w, v)
    assert g is not None
    ref = central_difference(k, w)  # the reference
    np.testing.assert_allclose(g, ref, atol=2e-6 * max(1.0, np.abs(ref).max()))
    assert numeric_gradient is not None


@pytest.mark.parametrize(
    "name,params",
    [
        ("ece", {}),
        ("ece", {"strategy": "quantile", "n_bins": 7}),
        ("ece_debiased", {}),
        ("mce", {}),
        ("calibration_slope", {}),
        ("calibration_intercept", {}),
        ("brier_reliability", {}),
        ("brier_resolution", {"strategy": "unique"}),
        ("brier_uncertainty", {}),
    ],
)
@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")  # a small intercept
def test_counts_equal_repeated_samples(name, params):
    """A replicate's counts give the metric of the explicitly repeated data (fixed bins)."""
    y, p = _binary(8, n=80)
    p = np.round(p, 2)
    k = get_kernel(name, (y, p), params)
    rng = np.random.default_rng(1)
    for _ in range(3):
        reps = rng.integers(0, 3, len(y))
        w = np.bincount(k.keys, weights=reps, minlength=k.m)[None, :]
        got = k.evaluate(w)[0]
        idx = np.repeat(np.arange(len(y)), reps)
        if params.get("strategy") == "quantile":
            continue  # quantile edges are fixed on the data, not recomputed
        ref = value(name, y[idx], p[idx], **params)
        if name == "brier_resolution":  # 'unique' bins of the repeated data may be fewer
            assert got == pytest.approx(ref, abs=1e-12)
            continue
        assert got == pytest.approx(ref, rel=1e-9, abs=1e-12)


def test_auto_methods_and_intervals():
    y, p = _binary(9, power=2.0)
    got = {}
    for name in ("ece", "ece_debiased", "mce", "calibration_slope", "brier_uncertainty"):
        res = mlci.bootstrap_ci(y, p, metric=name, n_resamples=200, rng=0)
        low, high = res.confidence_interval
        assert low <= res.estimate <= high
        got[name] = res.method
    plug = mlci.bootstrap_ci(y, p, metric="ece", metric_kwargs={"debias": False}, rng=0)
    assert plug.method == "studentized"
    res = mlci.bootstrap_ci(y, p, metric="ece", n_resamples=200, rng=0)
    # the plug-in value and the subtracted bias are reported with the debiased ECE
    assert res.details["plug_in"] == pytest.approx(plug.estimate, abs=1e-15)
    assert res.details["bias"] == pytest.approx(plug.estimate - res.estimate, abs=1e-15)
    assert res.details["bias"] > 0
    assert got == {
        "ece": "normal",  # the debiased ECE: its coverage study (docs/calibration.md)
        "ece_debiased": "normal",  # the closest to its level (docs/calibration.md), warned
        "mce": "normal",  # the closest to its level (docs/calibration.md), warned
        "calibration_slope": "t",  # its coverage study (docs/calibration.md)
        "brier_uncertainty": "bca",
    }


def test_debiased_l2_error_warns_that_no_interval_held():
    y, p = _binary(3, power=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IrregularEstimandWarning)
        with pytest.raises(IrregularEstimandWarning, match="No interval of 'ece_debiased'"):
            value("ece_debiased", y, p)
        value("ece", y, p)  # the debiased l1 ECE of a miscalibrated model: no warning


def test_near_zero_calibration_error_warns():
    rng = np.random.default_rng(10)
    p = rng.random(500)
    y = rng.random(500) < p  # calibrated
    with warnings.catch_warnings():
        warnings.simplefilter("error", IrregularEstimandWarning)
        with pytest.raises(IrregularEstimandWarning, match="biased upward"):
            value("ece", y, p)
        with pytest.raises(IrregularEstimandWarning, match="biased upward"):
            value("ece", y, p, debias=False)
        with pytest.raises(IrregularEstimandWarning, match="biased upward"):
            value("brier_reliability", y, p)
        value("ece", y, p**3)  # clearly miscalibrated: no warning


def test_multiclass_targets_and_sklearn_labels():
    ym, pm = _multiclass(11)
    names = np.array(["a", "b", "c", "d"])[ym]
    assert value("ece", names, pm) == pytest.approx(value("ece", ym, pm), abs=1e-15)
    labels = ["a", "b", "c", "d", "e"]
    p5 = np.column_stack([pm, np.zeros(len(pm))])
    assert value("ece", names, p5, labels=labels, mode="classwise") == pytest.approx(
        value("ece", ym, pm, mode="classwise") * 4 / 5, abs=1e-12
    )


# -------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "name,data,params,match",
    [
        ("ece", "binary", {"n_bins": 0}, "`n_bins`"),
        ("ece", "binary", {"strategy": "equal"}, "`strategy` must be one of"),
        ("ece", "binary", {"mode": "top"}, "`mode` must be one of"),
        ("ece", "binary", {"debias": "yes"}, "`debias`"),
        ("ece", "binary", {"mode": "top_label"}, "needs one probability column per class"),
        ("ece", "multi", {"mode": "positive"}, "needs one column of P"),
        ("ece", "multi", {"pos_label": 1}, "`pos_label` does not apply"),
        ("ece", "binary", {"labels": [0, 1]}, "`labels` applies to a matrix"),
        ("ece", "logits", {}, r"probabilities in \[0, 1\]"),
        ("ece", "rows", {}, "must sum to 1"),
        ("ece", "three", {}, "needs binary labels"),
        ("brier_reliability", "multi", {}, "`y_score` must be 1-d"),
        ("brier_resolution", "binary", {"strategy": "unique"}, "distinct values"),
        ("calibration_slope", "zero", {}, "infinite at p = 0 or 1"),
        ("calibration_slope", "one_class", {}, "needs both outcomes"),
        ("calibration_intercept", "multi", {}, "`y_score` must be 1-d"),
        ("calibration_slope", "binary", {"n_bins": 3}, "do not apply"),
    ],
)
def test_bad_inputs_are_refused(name, data, params, match):
    y, p = _binary(12, n=2000)
    ym, pm = _multiclass(12)
    arrays = {
        "binary": (y, p),
        "multi": (ym, pm),
        "logits": (y, np.log(p / (1 - p))),
        "rows": (ym, pm * 0.9),
        "three": (np.arange(len(p)) % 3, p),
        "zero": (y, np.where(np.arange(len(p)) == 0, 0.0, p)),
        "one_class": (np.ones(len(p), dtype=int), p),
    }[data]
    with pytest.raises((ValueError, TypeError), match=match):
        get_kernel(name, arrays, params)


def test_cli_table_says_the_ece_is_debiased(tmp_path, capsys):
    # the default ece is Kumar et al.'s debiased estimate, not the plug-in other tools
    # print: the table's metric column says so, and the details name the estimator
    from mlci.cli import main

    g = np.random.default_rng(0)
    p = g.random(400)
    y = (g.random(400) < p**1.5).astype(int)
    path = tmp_path / "cal.csv"
    path.write_text("y,p\n" + "".join(f"{a},{b:.4f}\n" for a, b in zip(y, p, strict=True)))
    assert (
        main(
            [
                "ci",
                str(path),
                "--label",
                "y",
                "--score",
                "p",
                "--metric",
                "ece",
                "-B",
                "200",
                "--seed",
                "0",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "ece (debiased)" in out
    res = mlci.bootstrap_ci(y, p, metric="ece", rng=0, n_resamples=200)
    assert res.details["estimator"] == "debiased"
    plug = mlci.bootstrap_ci(
        y, p, metric="ece", metric_kwargs={"debias": False}, rng=0, n_resamples=200
    )
    assert plug.details["estimator"] == "plug-in"
