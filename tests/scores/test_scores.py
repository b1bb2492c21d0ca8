"""Tests of mlci.Scores: parity with score-analysis and scikit-learn (random data with ties),
the lazy sampler against the engine's weights, and refused inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
import score_analysis as sa
from sklearn.metrics import roc_auc_score, roc_curve

import mlci
from mlci import Scores
from mlci.exceptions import DegenerateIntervalWarning

CONVENTIONS = [(a, b) for a in ("pos", "neg") for b in ("pos", "neg")]


def tied_data(rng, n1=None, n0=None):
    n1 = n1 or int(rng.integers(1, 40))
    n0 = n0 or int(rng.integers(1, 40))
    pos = rng.integers(0, 8, n1).astype(float)
    neg = rng.integers(-2, 6, n0).astype(float)
    return pos, neg


@pytest.mark.parametrize("score_class,equal_class", CONVENTIONS)
def test_rates_and_cm_match_score_analysis(score_class, equal_class):
    # reference: score_analysis.Scores.cm / tpr / ... (score-analysis 0.3.12)
    rng = np.random.default_rng(0)
    for _ in range(30):
        pos, neg = tied_data(rng)
        ref = sa.Scores(pos, neg, score_class=score_class, equal_class=equal_class)
        ours = Scores(pos, neg, score_class=score_class, equal_class=equal_class)
        t = np.r_[rng.uniform(-3, 9, 15), np.arange(-3, 9)].reshape(3, -1)
        np.testing.assert_array_equal(ours.cm(t).matrix, ref.cm(t).matrix)
        for m in ("tpr", "fpr", "tnr", "fnr", "topr", "tonr"):
            np.testing.assert_allclose(getattr(ours, m)(t), getattr(ref, m)(t))


@pytest.mark.parametrize("score_class,equal_class", CONVENTIONS)
@pytest.mark.parametrize("method", ["linear", "lower", "higher"])
def test_thresholds_at_rates_match_score_analysis(score_class, equal_class, method):
    # positive-class rates: score_analysis.Scores.threshold_at_tpr/fnr directly.
    # negative-class rates: score-analysis 0.3.12 inverts TNR/FPR with the wrong continuity
    # (threshold_at_fpr(0) returns the largest negative, where FPR = 1/n_neg), so the
    # reference is its positive-class inversion on swapped classes, which is consistent.
    # Compared as floats (atol 1e-9): with score_class="neg" score-analysis returns the
    # neighbouring float of the extreme score for targets within 1/n of 0 or 1, where we
    # return the score itself (our inversion is symmetric under negating the scores).
    rng = np.random.default_rng(1)
    for _ in range(30):
        pos, neg = tied_data(rng)
        ref = sa.Scores(pos, neg, score_class=score_class, equal_class=equal_class)
        ours = Scores(pos, neg, score_class=score_class, equal_class=equal_class)
        r = np.r_[rng.uniform(0, 1, 20), 0.0, 1.0]
        for m in ("tpr", "fnr"):
            np.testing.assert_allclose(
                getattr(ours, "threshold_at_" + m)(r, interpolation=method),
                getattr(ref, "threshold_at_" + m)(r, method=method),
                atol=1e-9,
            )
        swapped = ref.swap()
        np.testing.assert_allclose(
            ours.threshold_at_tnr(r, interpolation=method),
            swapped.threshold_at_tpr(r, method=method),
            atol=1e-9,
        )
        np.testing.assert_allclose(
            ours.threshold_at_fpr(r, interpolation=method),
            swapped.threshold_at_fnr(r, method=method),
            atol=1e-9,
        )


def test_threshold_at_rate_attains_the_rate():
    # property: at an attainable rate k/n the threshold gives back exactly that rate
    rng = np.random.default_rng(2)
    for sc, ec in CONVENTIONS:
        pos, neg = rng.normal(size=50), rng.normal(size=40)
        s = Scores(pos, neg, score_class=sc, equal_class=ec)
        k = np.arange(0, 41) / 40
        np.testing.assert_allclose(s.fpr(s.threshold_at_fpr(k)), k)
        np.testing.assert_allclose(s.tnr(s.threshold_at_tnr(k)), k)
        k = np.arange(0, 51) / 50
        np.testing.assert_allclose(s.fnr(s.threshold_at_fnr(k)), k)
        np.testing.assert_allclose(s.tpr(s.threshold_at_tpr(k)), k)


def test_seed_examples():
    # the worked examples of the score-analysis introduction (seed)
    s = Scores.from_labels([1, 1, 1, 0, 0], [1, 2, 3, 0.5, 1.5], pos_label=1)
    assert s.fpr(1.2) == 0.5
    np.testing.assert_allclose(s.fpr([0.4, 1.2, 2.0]), [1.0, 0.5, 0.0])
    assert s.threshold_at_fnr(0.3) == pytest.approx(1.9)
    np.testing.assert_allclose(s.threshold_at_fnr([0.3, 0.6, 0.9]), [1.9, 2.8, 3.0])
    assert s.cm(1.2).fpr() == 0.5


def _reference_eer(y, s):
    """EER from scikit-learn's ROC points joined by straight lines (independent code)."""
    fpr, tpr, thr = roc_curve(y, s, drop_intermediate=False)
    fnr = 1 - tpr
    d = fnr - fpr  # decreasing along sklearn's descending thresholds
    i = np.flatnonzero(d >= 0)[-1]
    if i == len(d) - 1:
        return fpr[i], thr[i]
    lam = d[i] / (d[i] - d[i + 1])
    return fpr[i] + lam * (fpr[i + 1] - fpr[i]), thr[i] + lam * (thr[i + 1] - thr[i])


def test_eer_and_auc_match_sklearn():
    rng = np.random.default_rng(3)
    for _ in range(60):
        pos, neg = tied_data(rng)
        y = np.r_[np.ones(len(pos)), np.zeros(len(neg))]
        sc = np.r_[pos, neg]
        s = Scores(pos, neg)
        e_ref, t_ref = _reference_eer(y, sc)
        e, t = s.eer()
        assert e == pytest.approx(e_ref, abs=1e-12)
        if np.isfinite(t_ref):
            assert t == pytest.approx(t_ref, abs=1e-12)
        assert s.auc() == pytest.approx(roc_auc_score(y, sc))
        # the EER does not depend on the tie rule; a distance score is the mirror image
        assert Scores(pos, neg, equal_class="neg").eer().eer == pytest.approx(e)
        mirrored = Scores(-pos, -neg, score_class="neg").eer()
        assert mirrored.eer == pytest.approx(e)
        assert Scores(-pos, -neg, score_class="neg").auc() == pytest.approx(s.auc())


def test_eer_close_to_score_analysis():
    # score-analysis crosses its (off-by-one, see above) interpolated inverse rate
    # functions: the values agree up to the resolution 1/n of the rates
    rng = np.random.default_rng(4)
    for _ in range(20):
        pos, neg = rng.normal(1, 1, 300).round(1), rng.normal(0, 1, 400).round(1)
        e = Scores(pos, neg).eer().eer
        _, e_ref = sa.Scores(pos, neg).eer()
        assert abs(e - e_ref) <= 1.5 / 300


def test_eer_perfect_separation():
    s = Scores([3.0, 4.0], [1.0, 2.0])
    assert s.eer() == (0.0, 3.0)


@pytest.mark.parametrize(
    "metric,kw",
    [
        ("eer", {}),
        ("eer_threshold", {}),
        ("fnr", {"threshold": [[0.0, 0.5], [1.0, 1.5]]}),
        ("fnr_at_fpr", {"at": [0.05, 0.2]}),
        ("threshold_at_tpr", {"rate": 0.9}),
    ],
)
def test_lazy_sampler_matches_weights(metric, kw):
    # the lazy sampler draws the same multinomial law as the engine's weights: equal
    # estimates, and bootstrap standard errors within Monte-Carlo error
    rng = np.random.default_rng(5)
    s = Scores(rng.normal(1, 1, 300).round(2), rng.normal(0, 1, 500).round(2))
    a = s.bootstrap_ci(
        metric,
        rng=1,
        n_resamples=1500,
        resampling=mlci.Resampling(algorithm="lazy"),
        method="percentile",
        **kw,
    )
    b = s.bootstrap_ci(
        metric,
        rng=2,
        n_resamples=1500,
        resampling=mlci.Resampling(algorithm="weights"),
        method="percentile",
        **kw,
    )
    np.testing.assert_allclose(a.estimate, b.estimate)
    np.testing.assert_allclose(a.standard_error, b.standard_error, rtol=0.12)
    np.testing.assert_allclose(
        np.mean(a.bootstrap_distribution, 0),
        np.mean(b.bootstrap_distribution, 0),
        atol=0.25 * np.max(b.standard_error),
    )
    assert a.bootstrap_distribution.shape == (1500, *np.shape(a.estimate))


def test_bootstrap_shapes_methods_and_determinism():
    rng = np.random.default_rng(6)
    s = Scores(rng.normal(1, 1, 200), rng.normal(0, 1, 300))
    thr = np.linspace(-1, 2, 6).reshape(2, 3)
    for method in ("percentile", "basic", "normal", "bc", "bca"):
        r = s.bootstrap_ci("fpr", threshold=thr, method=method, rng=0, n_resamples=300)
        assert r.confidence_interval.low.shape == (2, 3)
        assert np.all(r.confidence_interval.low <= r.estimate + 1e-12)
    r1 = s.bootstrap_ci("eer", rng=7, n_resamples=300)
    r2 = s.bootstrap_ci("eer", rng=7, n_resamples=300)
    np.testing.assert_array_equal(r1.bootstrap_distribution, r2.bootstrap_distribution)
    # stratified: the class sizes never change, so FNR at a threshold only depends on positives
    assert r1.scheme.startswith("strata")
    r3 = s.bootstrap_ci(
        "eer",
        rng=7,
        n_resamples=300,
        resampling=mlci.Resampling(stratify=False, weights="poisson"),
    )
    assert r3.scheme.startswith("iid+poisson")


def test_bca_jackknife_is_exact_delete_one():
    # the exact delete-one jackknife (O(1) per deleted sample) equals recomputing
    from mlci.scores._driver import _delete_one, _resolve

    rng = np.random.default_rng(8)
    pos, neg = rng.integers(0, 9, 25).astype(float), rng.integers(-3, 6, 30).astype(float)
    s = Scores(pos, neg)
    for metric, kw in [
        ("eer", {}),
        ("fnr", {"threshold": [1.0, 2.5]}),
        ("tpr_at_fpr", {"at": 0.3}),
    ]:
        spec = _resolve(s, metric, kw)
        vals, mult = _delete_one(s._lay, spec)
        k = 0
        for cls, u, c in (
            (0, *np.unique(neg, return_counts=True)),
            (1, *np.unique(pos, return_counts=True)),
        ):
            for value, count in zip(u, c, strict=True):
                p2, n2 = pos.copy(), neg.copy()
                if cls == 0:
                    n2 = np.delete(n2, np.flatnonzero(n2 == value)[0])
                else:
                    p2 = np.delete(p2, np.flatnonzero(p2 == value)[0])
                want = _resolve(Scores(p2, n2), metric, kw).fn(Scores(p2, n2)._full_view())[0]
                np.testing.assert_allclose(vals[k], want, err_msg=f"{metric} {cls} {value}")
                assert mult[k] == count
                k += 1


def test_callable_metric_and_conditions():
    rng = np.random.default_rng(9)
    labels = rng.integers(0, 2, 200)
    scores = labels + rng.normal(0, 1, 200)
    s = Scores.from_labels(labels, scores)

    def mean_gap(sc):
        return np.array([sc.pos.mean(), sc.neg.mean()])

    r = s.bootstrap_ci(mean_gap, rng=0, n_resamples=200, method="percentile")
    assert r.confidence_interval.low.shape == (2,)
    speaker = rng.integers(0, 20, 200)
    r = s.bootstrap_ci("eer", conditions=speaker, rng=0, n_resamples=200)
    assert r.n_conditions == 20 and "conditions" in r.scheme
    with pytest.raises(ValueError, match="algorithm='weights'"):
        s.bootstrap_ci("eer", conditions=speaker, resampling=mlci.Resampling(algorithm="lazy"))


def test_bad_inputs():
    with pytest.raises(ValueError, match="`pos` has 1 missing value"):
        Scores([1.0, np.nan], [0.0])
    with pytest.raises(ValueError, match="no positive"):
        Scores([], [0.0, 1.0])
    with pytest.raises(ValueError, match="no negative"):
        Scores([1.0], [])
    with pytest.raises(ValueError, match="no positives"):
        Scores.from_labels([0, 0, 0], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="no negatives"):
        Scores.from_labels([1, 1], [0.1, 0.2])
    s = Scores([1.0, 2.0], [0.0, 1.5])
    with pytest.raises(TypeError, match="`threshold`"):
        s.fpr("0.5")
    with pytest.raises(TypeError, match="`threshold`"):
        s.fpr(None)
    with pytest.raises(ValueError, match="NaN"):
        s.fpr([0.1, np.nan])
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        s.threshold_at_fpr(1.5)
    with pytest.raises(ValueError, match="Unknown metric 'frp'"):
        s.bootstrap_ci("frp", threshold=0.5)
    with pytest.raises(TypeError, match="pass `threshold=`"):
        s.bootstrap_ci("fpr")
    with pytest.raises(TypeError, match="Unknown option"):
        s.bootstrap_ci("eer", threshold=0.3)
    with pytest.raises(ValueError, match="`score_class`"):
        Scores([1.0], [0.0], score_class="positive")
    with pytest.raises(ValueError, match="`interpolation`"):
        s.threshold_at_fpr(0.5, interpolation="nearest")


def test_degenerate_interval_warns():
    s = Scores([3.0, 4.0, 5.0], [0.0, 1.0, 2.0])
    with pytest.warns(DegenerateIntervalWarning):
        s.bootstrap_ci("eer", rng=0, n_resamples=50, method="percentile")


def test_threshold_at_rate_with_infinite_scores():
    # LLR scores may be +-inf; linear interpolation that lands exactly on an order
    # statistic must return it (it used to compute 0 * inf = NaN, with a RuntimeWarning).
    s = Scores([1.0, 2.0, np.inf], [-np.inf, 0.0, 1.0])
    r = np.arange(7) / 6
    for m in ("tpr", "fnr", "tnr", "fpr"):
        t = getattr(s, "threshold_at_" + m)(r)
        assert not np.isnan(t).any(), m
    np.testing.assert_allclose(s.threshold_at_tpr([1 / 3, 2 / 3, 1.0]), [np.inf, 2.0, 1.0])
    np.testing.assert_array_equal(s.threshold_at_fnr([2 / 3, 5 / 6]), [np.inf, np.inf])
    assert s.tpr(s.threshold_at_tpr(1 / 3)) == pytest.approx(1 / 3)


def test_eer_and_auc_with_infinite_scores():
    # +-inf LLRs are valid scores: the EER threshold and the AUC (an order statistic)
    # are defined; they used to give NaN / a RuntimeWarning / a ValueError.
    # Reference AUCs: Mann-Whitney by hand (pairs won + ties / 2).
    cases = [
        ([np.inf, 1.0], [-np.inf, 2.0], 0.75, 0.5, 2.0),
        ([np.inf, np.inf], [np.inf, 0.0], 0.75, 1 / 3, np.inf),
        ([np.inf], [1.0], 1.0, 0.0, np.inf),
    ]
    for pos, neg, auc, eer, thr in cases:
        s = Scores(pos, neg)
        assert s.auc() == pytest.approx(auc)
        e = s.eer()
        assert e.eer == pytest.approx(eer)
        assert e.threshold == pytest.approx(thr)


# --- issue 8: inputs through the gate, one positive-label rule, every option everywhere
def test_labels_with_missing_values_refused_or_dropped():
    # object labels with a NaN counted the NaN sample as a negative (y == 1 is False)
    rng = np.random.default_rng(10)
    y = np.array([0, 1] * 100, dtype=object)
    x = rng.normal(0, 1, 200) + y.astype(float)
    y[5] = np.nan
    with pytest.raises(ValueError, match=r"`y_true` has 1 missing value.* row 5"):
        Scores.from_labels(y, x)
    s = Scores.from_labels(y, x, dropna=True)
    keep = np.r_[0:5, 6:200]
    ref = Scores.from_labels(y[keep].astype(int), x[keep])
    np.testing.assert_array_equal(s.pos, ref.pos)
    np.testing.assert_array_equal(s.neg, ref.neg)
    assert s.n_dropped == 1
    assert s.bootstrap_ci("eer", rng=0, n_resamples=50).details["n_dropped"] == 1
    # pandas strings with pd.NA, pandas objects with None, polars nulls: the same message
    labels = np.where(y[keep].astype(int) == 1, "yes", "no").tolist()
    labels[3] = None
    for series in (
        pd.Series(labels, dtype="string"),
        pd.Series(labels, dtype=object),
        pl.Series(labels),
    ):
        with pytest.raises(ValueError, match="`y_true` has 1 missing value"):
            Scores.from_labels(series, x[keep], pos_label="yes")
    with pytest.raises(ValueError, match="`y_score` has 2 missing value"):
        Scores.from_labels(y[keep], np.r_[np.nan, np.nan, x[keep][2:]])


def test_conditions_with_missing_values():
    # a pandas "string" Series with pd.NA gave a numpy TypeError ("boolean value of NA is
    # ambiguous") from np.unique
    rng = np.random.default_rng(11)
    s = Scores(rng.normal(1, 1, 100), rng.normal(0, 1, 100))
    spk = pd.Series(rng.integers(0, 20, 200).astype(str), dtype="string")
    spk[[3, 150]] = pd.NA
    with pytest.raises(ValueError, match=r"`conditions` has 2 missing value.* rows 3, 150"):
        s.bootstrap_ci("eer", conditions=spk, n_resamples=50)
    res = s.bootstrap_ci("eer", conditions=spk, dropna=True, rng=0, n_resamples=50)
    assert res.details["n_dropped"] == 2 and res.n_samples == 198
    # the same as the Scores without those two samples (3 is a positive, 150 a negative)
    keep = np.setdiff1d(np.arange(200), [3, 150])
    y_all = np.r_[np.ones(100), np.zeros(100)]
    x_all = np.r_[s._y_score]
    ref = Scores.from_labels(y_all[keep].astype(int), x_all[keep]).bootstrap_ci(
        "eer", conditions=spk.to_numpy()[keep].astype(str), rng=0, n_resamples=50
    )
    np.testing.assert_array_equal(res.bootstrap_distribution, ref.bootstrap_distribution)


def test_more_than_two_classes_refused():
    # with pos_label, three classes used to be one-vs-rest without a word
    y = np.array([0, 1, 2] * 20)
    x = np.arange(60.0)
    with pytest.raises(ValueError, match=r"needs binary labels, but `y_true` takes 3 values"):
        Scores.from_labels(y, x, pos_label=1)
    s = Scores.from_labels(y == 1, x)  # binarised: says which class is positive
    assert s.n_pos == 20 and s.n_neg == 40


def test_positive_label_rule():
    s = Scores.from_labels([-1, 1, 1, -1], [0.1, 0.9, 0.8, 0.3])  # {-1, 1}: 1 is positive
    np.testing.assert_array_equal(s.pos, [0.8, 0.9])
    s = Scores.from_labels([False, True, True], [0.1, 0.9, 0.8])
    assert s.n_pos == 2
    with pytest.raises(ValueError, match="`pos_label` is not specified"):
        Scores.from_labels(["cat", "dog"], [0.1, 0.9])
    with pytest.raises(ValueError, match="`pos_label`=2 is not among the values"):
        Scores.from_labels([0, 1], [0.1, 0.9], pos_label=2)
    df = pd.DataFrame({"y": ["cat", "dog", "dog"], "s": [0.1, 0.9, 0.4]})
    s = Scores.from_labels("y", "s", data=df, pos_label="dog")
    np.testing.assert_array_equal(s.pos, [0.4, 0.9])


def test_nested_conditions_in_sample_order():
    # nested conditions [speaker, session] (they used to fail in Scores.bootstrap_ci),
    # given in the user's sample order: the same data in another order gives the same
    # replicates, so the conditions are permuted into the internal order correctly
    rng = np.random.default_rng(12)
    n = 300
    spk, ses = rng.integers(0, 25, n), rng.integers(0, 3, n)
    y = rng.integers(0, 2, n)
    x = y + rng.normal(0, 1, n) + 0.8 * rng.normal(size=25)[spk]
    kw = dict(rng=1, n_resamples=100, method="bca")
    a = Scores.from_labels(y, x).bootstrap_ci("eer", conditions=[spk, ses], **kw)
    order = rng.permutation(n)
    b = Scores.from_labels(y[order], x[order]).bootstrap_ci(
        "eer", conditions=[spk[order], ses[order]], **kw
    )
    assert a.scheme == "nested(2 levels; resampled: 1)" and a.n_conditions == 25
    np.testing.assert_array_equal(a.bootstrap_distribution, b.bootstrap_distribution)
    assert a.confidence_interval == b.confidence_interval
    # two_stage resamples the sessions too
    c = Scores.from_labels(y, x).bootstrap_ci(
        "eer", conditions=[spk, ses], resampling=mlci.Resampling(two_stage=True), **kw
    )
    assert c.scheme == "nested(2 levels; resampled: 1, 2)"
    # with a wrong order the replicates differ (the check above has power)
    d = Scores.from_labels(y[order], x[order]).bootstrap_ci("eer", conditions=[spk, ses], **kw)
    assert not np.array_equal(a.bootstrap_distribution, d.bootstrap_distribution)


def test_strata_and_stratify():
    rng = np.random.default_rng(13)
    s = Scores(rng.normal(1, 1, 150), rng.normal(0, 1, 150))
    site = rng.integers(0, 3, 300)
    a = s.bootstrap_ci("fnr", threshold=0.5, strata=site, rng=0, n_resamples=100)
    assert a.scheme == "strata" and a.n_strata == 6  # site x class
    b = s.bootstrap_ci(
        "fnr",
        threshold=0.5,
        strata=site,
        resampling=mlci.Resampling(stratify=False),
        rng=0,
        n_resamples=100,
    )
    assert b.n_strata == 3
    c = s.bootstrap_ci(
        "fnr", threshold=0.5, resampling=mlci.Resampling(stratify=False), rng=0, n_resamples=100
    )
    assert c.scheme == "iid+lazy"
    # the strata include the class: the number of positives is fixed in every replicate
    with pytest.warns(DegenerateIntervalWarning):
        d = s.bootstrap_ci("tp", threshold=-np.inf, strata=site, rng=0, n_resamples=50)
    assert np.all(d.bootstrap_distribution == 150)


def test_one_sided_and_bounded_intervals():
    rng = np.random.default_rng(14)
    s = Scores(rng.normal(3, 1, 60), rng.normal(0, 1, 60))
    kw = dict(rng=2, n_resamples=400, method="percentile")
    two = s.bootstrap_ci("eer", confidence_level=0.9, **kw)
    less = s.bootstrap_ci("eer", alternative="less", **kw)
    greater = s.bootstrap_ci("eer", alternative="greater", **kw)
    assert tuple(less.confidence_interval) == (0.0, two.confidence_interval.high)
    assert tuple(greater.confidence_interval) == (two.confidence_interval.low, 1.0)
    thr = s.bootstrap_ci("eer_threshold", alternative="less", **kw)
    assert thr.confidence_interval.low == -np.inf  # a threshold has no range
    # normal and basic intervals stay in [0, 1] for the EER (small, near 0)
    for method in ("normal", "basic"):
        r = s.bootstrap_ci("eer", method=method, rng=2, n_resamples=400)
        assert 0.0 <= r.confidence_interval.low <= r.confidence_interval.high <= 1.0


@pytest.mark.filterwarnings(
    "ignore::mlci.FewResamplesWarning"
)  # few replicates: a fast check of equality, not of a level
def test_metric_options_renamed():
    rng = np.random.default_rng(15)
    s = Scores(rng.normal(1, 1, 200), rng.normal(0, 1, 200))
    r = s.bootstrap_ci("threshold_at_fpr", rate=0.1, interpolation="lower", rng=0, n_resamples=50)
    assert r.estimate == s.threshold_at_fpr(0.1, interpolation="lower")
    r = s.bootstrap_ci("fbeta", threshold=0.5, metric_kwargs={"beta": 2.0}, rng=0, n_resamples=50)
    assert r.estimate == pytest.approx(s.metric("fbeta", 0.5, beta=2.0))

    def gap(sc, shift=0.0):
        return sc.pos.mean() - sc.neg.mean() + shift

    r = s.bootstrap_ci(gap, metric_kwargs={"shift": 1.0}, rng=0, n_resamples=30)
    assert r.estimate == pytest.approx(gap(s, 1.0))
    assert s.rate_at("fnr", at=0.1, interpolation="higher") == s.fnr(
        s.threshold_at_fpr(0.1, interpolation="higher")
    )


# ------------------------------------------------- thresholds at TOPR/TONR, at a metric
@pytest.mark.parametrize("score_class,equal_class", CONVENTIONS)
@pytest.mark.parametrize("method", ["linear", "lower", "higher"])
def test_threshold_at_topr_tonr_match_score_analysis(score_class, equal_class, method):
    # reference: score_analysis.Scores.threshold_at_topr (0.3.12); for TONR its
    # threshold_at_tonr inverts with the negative-class continuity (see the TNR test above),
    # so the reference is score-analysis's FNR inversion of the pooled scores, which is the
    # TONR by definition (every sample as a positive).
    rng = np.random.default_rng(8)
    for _ in range(20):
        pos, neg = tied_data(rng)
        ref = sa.Scores(pos, neg, score_class=score_class, equal_class=equal_class)
        pooled = sa.Scores(
            np.r_[pos, neg], np.r_[pos, neg], score_class=score_class, equal_class=equal_class
        )
        ours = Scores(pos, neg, score_class=score_class, equal_class=equal_class)
        r = np.r_[rng.uniform(0, 1, 15), 0.0, 1.0]
        np.testing.assert_allclose(
            ours.threshold_at_topr(r, interpolation=method),
            ref.threshold_at_topr(r, method=method),
            atol=1e-9,
        )
        np.testing.assert_allclose(
            ours.threshold_at_tonr(r, interpolation=method),
            pooled.threshold_at_fnr(r, method=method),
            atol=1e-9,
        )


def test_threshold_at_topr_attains_the_rate_and_aliases():
    rng = np.random.default_rng(3)
    s = Scores(rng.normal(size=30), rng.normal(size=20))
    k = np.arange(0, 51) / 50
    np.testing.assert_allclose(s.topr(s.threshold_at_topr(k)), k)
    np.testing.assert_allclose(s.tonr(s.threshold_at_tonr(k)), k)
    assert s.threshold_at_acceptance_rate(0.3) == s.threshold_at_topr(0.3)
    assert s.threshold_at_rejection_rate(0.3) == s.threshold_at_tonr(0.3)
    assert s.acceptance_rate(0.1) == s.topr(0.1)
    assert s.rejection_rate(0.1) == s.tonr(0.1)


def test_threshold_at_metric_matches_score_analysis():
    # reference: score_analysis.Scores.threshold_at_metric (0.3.12), every solution
    rng = np.random.default_rng(4)
    pos, neg = tied_data(rng, 30, 25)
    ours, ref = Scores(pos, neg), sa.Scores(pos, neg)
    targets = [0.1, 0.35, 0.5, 0.8]
    for metric in ("tpr", "fpr", "topr", "tonr"):
        for points in (None, 7, [0.0, 2.5, 5.0]):
            got = ours.threshold_at_metric(targets, metric, points=points)
            want = ref.threshold_at_metric(targets, metric, points=points)
            for g, w in zip(got, want, strict=True):
                np.testing.assert_allclose(g, np.ravel(w), atol=1e-12)

    # a non-monotone metric (it rises then falls): every crossing
    def bump(s, t):
        return 4 * s.tpr(t) * s.tnr(t)

    peak = bump(ours, np.sort(np.r_[pos, neg])).max()
    sols = ours.threshold_at_metric([0.9 * peak], bump)[0]
    assert len(sols) == 2
    np.testing.assert_allclose(
        sols, np.ravel(ref.threshold_at_metric([0.9 * peak], bump)), atol=1e-12
    )


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda s: s.threshold_at_topr(1.5), "topr"),
        (lambda s: s.threshold_at_tonr("x"), "tonr"),
        (lambda s: s.threshold_at_topr(0.5, interpolation="nope"), "interpolation"),
        (lambda s: s.threshold_at_metric(0.5, "nope"), "metric"),
        (lambda s: s.threshold_at_metric(0.5, "_pooled"), "metric"),
        (lambda s: s.threshold_at_metric(0.5, 3), "metric"),
        (lambda s: s.threshold_at_metric(np.nan, "tpr"), "target"),
        (lambda s: s.threshold_at_metric(0.5, "tpr", points=1), "points"),
        (lambda s: s.threshold_at_metric(0.5, "tpr", points=[1.0, 1.0]), "points"),
    ],
)
def test_threshold_setting_bad_input(call, match):
    s = Scores([1.0, 2.0, 3.0], [0.0, 1.5])
    with pytest.raises((ValueError, TypeError), match=match):
        call(s)


# ---------------------------------------------------------------------- pointwise_cm
@pytest.mark.parametrize("score_class,equal_class", CONVENTIONS)
def test_pointwise_cm_matches_score_analysis_and_sums_to_cm(score_class, equal_class):
    from mlci import pointwise_cm

    rng = np.random.default_rng(5)
    pos, neg = tied_data(rng, 20, 15)
    y = np.r_[np.ones(len(pos), int), np.zeros(len(neg), int)]
    s = np.r_[pos, neg]
    thr = np.array([[0.0, 2.0], [3.0, 5.0]])
    kw = {"score_class": score_class, "equal_class": equal_class}
    got = pointwise_cm(y, s, thr, **kw)
    assert got.shape == (len(y), 2, 2, 2, 2)
    np.testing.assert_array_equal(got, sa.pointwise_cm(y, s, thr, **kw))
    np.testing.assert_array_equal(got.sum(axis=0), Scores(pos, neg, **kw).cm(thr).matrix)


def test_pointwise_cm_bad_input():
    from mlci import pointwise_cm

    with pytest.raises(ValueError, match="y_true"):
        pointwise_cm([0, 1, 2], [0.1, 0.2, 0.3], 0.5)
    with pytest.raises((ValueError, TypeError), match="threshold"):
        pointwise_cm([0, 1], [0.1, 0.2], "a")
    with pytest.raises(ValueError, match="y_score"):
        pointwise_cm([0, 1], [0.1, np.nan], 0.5)
    with pytest.raises(ValueError, match="score_class"):
        pointwise_cm([0, 1], [0.1, 0.2], 0.5, score_class="up")


# ---------------------------------------------------------------------- easy samples
@pytest.mark.parametrize("score_class,equal_class", CONVENTIONS)
def test_easy_samples_match_score_analysis(score_class, equal_class):
    # reference: score_analysis.Scores(nb_easy_pos=, nb_easy_neg=) (0.3.12): rates at
    # thresholds and the AUC count the easy samples as always decided right
    rng = np.random.default_rng(6)
    for _ in range(10):
        pos, neg = tied_data(rng)
        ep, en = (int(v) for v in rng.integers(0, 6, 2))
        kw = {"score_class": score_class, "equal_class": equal_class}
        ours = Scores(pos, neg, n_easy_pos=ep, n_easy_neg=en, **kw)
        ref = sa.Scores(pos, neg, nb_easy_pos=ep, nb_easy_neg=en, **kw)
        t = np.arange(-3.0, 9.0, 0.5)
        for m in ("tpr", "fnr", "tnr", "fpr", "topr", "tonr"):
            np.testing.assert_allclose(getattr(ours, m)(t), getattr(ref, m)(t), atol=1e-12)
        assert ours.auc() == pytest.approx(ref.auc(), abs=1e-12)
        assert ours.n_pos == len(pos) + ep and ours.n_easy_pos == ep


def test_easy_samples_are_resampled_and_attain_rates():
    rng = np.random.default_rng(7)
    s = Scores(rng.normal(1, 1, 40), rng.normal(0, 1, 30), n_easy_pos=10, n_easy_neg=20)
    assert np.isposinf(s.pos).sum() == 10 and np.isneginf(s.neg).sum() == 20
    k = np.arange(11, 51) / 50  # rates above the easy share are attained
    np.testing.assert_allclose(s.tpr(s.threshold_at_tpr(k)), k)
    res = s.bootstrap_ci("tpr", threshold=0.5, rng=0, n_resamples=200, method="percentile")
    ref = Scores(np.r_[s.pos], np.r_[s.neg]).bootstrap_ci(
        "tpr", threshold=0.5, rng=0, n_resamples=200, method="percentile"
    )
    np.testing.assert_allclose(res.bootstrap_distribution, ref.bootstrap_distribution)


@pytest.mark.parametrize("bad", [-1, 1.5, "2", True, None])
def test_easy_counts_bad_input(bad):
    with pytest.raises(ValueError, match="n_easy_pos"):
        Scores([1.0, 2.0], [0.0], n_easy_pos=bad)
    with pytest.raises(ValueError, match="n_easy_neg"):
        Scores([1.0, 2.0], [0.0], n_easy_neg=bad)


# ------------------------------------------------------------------ bootstrap_sample
def test_bootstrap_sample():
    s = Scores([1.0, 2.0, 3.0, 4.0], [0.5, 1.5, 2.5], score_class="neg", equal_class="neg")
    a = s.bootstrap_sample(rng=1, stratify=True)
    assert (a.n_pos, a.n_neg) == (4, 3)
    assert set(a.pos) <= set(s.pos) and set(a.neg) <= set(s.neg)
    assert (a.score_class, a.equal_class) == ("neg", "neg")
    np.testing.assert_array_equal(a.pos, s.bootstrap_sample(rng=1, stratify=True).pos)
    for seed in range(30):  # unstratified: sizes vary, both classes always present
        b = Scores([1.0], [0.0, 0.5, 0.7]).bootstrap_sample(rng=seed)
        assert b.n_pos >= 1 and b.n_neg >= 1 and b.n_pos + b.n_neg == 4
    easy = Scores([1.0], [0.0], n_easy_pos=3).bootstrap_sample(rng=0, stratify=True)
    assert easy.n_pos == 4 and set(easy.pos) <= {1.0, np.inf}


@pytest.mark.parametrize("kwargs,match", [({"rng": "x"}, "rng"), ({"stratify": "yes"}, "stratify")])
def test_bootstrap_sample_bad_input(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        Scores([1.0, 2.0], [0.0]).bootstrap_sample(**kwargs)


# ---------------------------------------------------------------- AUC of any axes
@pytest.mark.parametrize("score_class,equal_class", CONVENTIONS)
def test_auc_of_any_axes_matches_score_analysis_on_the_full_range(score_class, equal_class):
    # reference: score_analysis.Scores.auc(lower, upper, x_axis=, y_axis=) (0.3.12) over
    # [0, 1]; on a partial range score-analysis holds the nearest point's value flat up to
    # the bound, where mlci interpolates along the polyline (checked below by hand)
    rng = np.random.default_rng(9)
    pairs = [("fpr", "tpr"), ("tnr", "tpr"), ("fnr", "fpr"), ("tpr", "fpr"), ("tnr", "fnr")]
    for _ in range(10):
        pos, neg = tied_data(rng)
        ours = Scores(pos, neg, score_class=score_class, equal_class=equal_class)
        ref = sa.Scores(pos, neg, score_class=score_class, equal_class=equal_class)
        for xa, ya in pairs:
            assert ours.auc(x_axis=xa, y_axis=ya) == pytest.approx(
                ref.auc(0.0, 1.0, x_axis=xa, y_axis=ya), abs=1e-12
            )
        assert ours.auc(x_axis="tnr", y_axis="tpr") == pytest.approx(ours.auc(), abs=1e-12)


def test_partial_auc_on_either_axis_by_hand():
    s = Scores([1.0, 2.0, 3.0, 4.0], [0.5, 1.5, 2.5, 3.5])
    # the ROC staircase: TPR = 0.25 on FPR in [0, 0.25) ... ; from 0 to 0.5: 0.25*0.25
    # (first step, at TPR 0.25 after the vertical rise) + 0.25*0.5 = 0.1875
    assert s.auc(0.0, 0.5) == pytest.approx(0.1875)
    # TNR in [0.5, 1] is FPR in [0, 0.5]: the same area
    assert s.auc(0.5, 1.0, x_axis="tnr", y_axis="tpr") == pytest.approx(0.1875)
    assert s.auc(0.0, 0.5, x_axis="tnr", y_axis="tpr") == pytest.approx(s.auc() - 0.1875)
    # a partial range inside a segment interpolates linearly
    c = Scores([1.0], [0.0])  # ROC: (0,0) -> (0,1) -> (1,1)
    assert c.auc(0.2, 0.7) == pytest.approx(0.5)
    assert c.auc(0.2, 0.7, x_axis="tpr", y_axis="fpr") == pytest.approx(0.0)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"lower": -0.1}, "lower"),
        ({"upper": 1.5}, "upper"),
        ({"lower": 0.6, "upper": 0.4}, "lower"),
        ({"x_axis": "ppv"}, "x_axis"),
        ({"x_axis": "tpr", "y_axis": "fnr"}, "same class"),
        ({"y_axis": "fpr"}, "same class"),
    ],
)
def test_auc_axes_bad_input(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        Scores([1.0, 2.0], [0.0, 1.5]).auc(**kwargs)
