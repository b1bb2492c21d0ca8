"""oob_ci's corrected interval (``X=``): the members' predictions, the extrapolation of
the out-of-bag metric to all members and the members' bootstrap, against direct
computations on tiny ensembles."""

from __future__ import annotations

import io
import itertools
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import make_classification
from sklearn.ensemble import (
    BaggingClassifier,
    BaggingRegressor,
    ExtraTreesClassifier,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.neighbors import KNeighborsClassifier

import mlci
from mlci.feedback import progress_bar
from mlci.inputs import check_rng_seed
from mlci.protocols.oob import (
    OOB_FRACTIONS,
    oob_extrapolation,
    oob_member_bootstrap,
    tree_predictions,
)

X, Y = make_classification(90, n_features=5, random_state=2)
YR = X[:, 0] + np.sin(3 * X[:, 1])


def _member_mean(p, oob):
    return np.einsum("bn,bn...->n...", oob, p) / oob.sum(0).reshape((-1,) + (1,) * (p.ndim - 2))


@pytest.mark.parametrize(
    "model",
    [
        RandomForestClassifier(25, min_samples_leaf=2, oob_score=True, random_state=0),
        ExtraTreesClassifier(25, bootstrap=True, oob_score=True, random_state=0),
        BaggingClassifier(n_estimators=25, max_features=0.6, oob_score=True, random_state=0),
        BaggingClassifier(KNeighborsClassifier(5), n_estimators=25, oob_score=True, random_state=0),
    ],
)
def test_tree_predictions_reproduce_scikit_learns_oob_predictions(model):
    model.fit(X, Y)
    p, counts = tree_predictions(model, X)
    assert p.shape == (25, 90, 2) and counts.shape == (25, 90)
    assert (counts.sum(axis=1) == 90).all()  # bootstrap samples of size n
    oob = counts == 0
    np.testing.assert_allclose(_member_mean(p, oob), model.oob_decision_function_, atol=1e-12)


def test_tree_predictions_of_regressors():
    for model in (
        RandomForestRegressor(20, oob_score=True, random_state=0),
        BaggingRegressor(n_estimators=20, max_features=0.6, oob_score=True, random_state=0),
    ):
        model.fit(X, YR)
        p, counts = tree_predictions(model, X)
        np.testing.assert_allclose(_member_mean(p, counts == 0), model.oob_prediction_, atol=1e-9)


def _tiny(n_members=12, n=15, regression=False):
    """A tiny forest in which every sample has an out-of-bag member."""
    for seed in range(100):
        cls = RandomForestRegressor if regression else RandomForestClassifier
        m = cls(n_members, min_samples_leaf=3, max_depth=3, random_state=seed)
        m.fit(X[:n], YR[:n] if regression else Y[:n])
        p, counts = tree_predictions(m, X[:n])
        if (counts == 0).any(axis=0).all():
            return p, counts == 0
    raise AssertionError("no tiny forest with every sample out of bag somewhere")


def test_extrapolation_of_the_mse_against_its_exact_expectation():
    # the MSE of the mean of a random k-subset of a sample's m out-of-bag members is, in
    # expectation over the subsets, (y - F)^2 + s^2 (1/k - 1/m) (sampling without
    # replacement, s^2 the members' variance with ddof=1): the exact curve, fitted as
    # oob_extrapolation fits its Monte-Carlo version
    p, oob = _tiny(regression=True)
    y = YR[:15]
    m = oob.sum(0)
    f_all = _member_mean(p, oob)
    s2 = np.array([np.var(p[oob[:, i], i], ddof=1) if m[i] > 1 else 0.0 for i in range(15)])
    xs, es = [], []
    for f in OOB_FRACTIONS:
        k = np.maximum(1, np.round(f * m))
        xs.append(np.mean(1 / k))
        es.append(np.mean((y - f_all) ** 2 + s2 * (1 / k - 1 / m)))
    c, a = np.polyfit(xs, es, 1)
    expected = a + c / 12

    def mse(mean):
        return ((mean - y) ** 2).mean(axis=-1)

    est, plain, slope = oob_extrapolation(p, oob, mse, power=1.0, n_subsets=4000, rng=1)
    assert plain == pytest.approx(es[-1])
    assert slope == pytest.approx(c, rel=0.05)  # Monte-Carlo: 4000 subsets per fraction
    assert est == pytest.approx(expected, rel=0.01)
    assert est < plain  # more members, a smaller variance term


def test_extrapolation_of_votes_against_all_subsets():
    # the error of the vote of k of a sample's out-of-bag members, over all k-subsets
    p, oob = _tiny(n_members=10, n=12)
    y = Y[:12]
    m = oob.sum(0)
    xs, es = [], []
    for f in OOB_FRACTIONS:
        k = np.maximum(1, np.round(f * m)).astype(int)
        wrong = []
        for i in range(12):
            members = np.flatnonzero(oob[:, i])
            votes = [
                np.argmax(p[list(c), i].mean(axis=0)) != y[i]
                for c in itertools.combinations(members, k[i])
            ]
            wrong.append(np.mean(votes))
        xs.append(np.mean(k**-0.5))
        es.append(np.mean(wrong))
    c, a = np.polyfit(xs, es, 1)

    def error(mean):
        return (np.argmax(mean, axis=-1) != y).mean(axis=-1)

    est, plain, _ = oob_extrapolation(p, oob, error, power=0.5, n_subsets=4000, rng=2)
    assert plain == pytest.approx(es[-1])
    assert est == pytest.approx(a + c * 10**-0.5, abs=0.01)


def test_member_bootstrap_against_a_loop():
    p, oob = _tiny(n_members=10, n=12)
    y = Y[:12]

    def error(mean):
        return (np.argmax(mean, axis=-1) != y).mean(axis=-1)

    got = oob_member_bootstrap(p, oob, error, n_resamples=30, rng=5)
    w = np.random.default_rng(5).multinomial(10, np.full(10, 0.1), size=30)
    full = _member_mean(p, oob)
    ref = []
    for r in range(30):
        wrong = 0
        for i in range(12):
            weights = w[r] * oob[:, i]
            mean = full[i] if weights.sum() == 0 else weights @ p[:, i] / weights.sum()
            wrong += np.argmax(mean) != y[i]
        ref.append(wrong / 12)
    np.testing.assert_allclose(got, ref)


@pytest.mark.filterwarnings("error")
def test_oob_ci_with_X_is_the_extrapolated_estimate_and_its_two_standard_errors():
    rf = RandomForestClassifier(40, oob_score=True, random_state=0).fit(X, Y)
    r = mlci.oob_ci(rf, X, Y, rng=3, n_resamples=300)  # no warning (accuracy: measured)
    assert r.details["oob"] == pytest.approx(rf.oob_score_)
    assert r.method == "oob-extrapolated" and r.details["n_members"] == 40
    boot_seed, extra_seed, member_seed = check_rng_seed(3).spawn(3)
    p, counts = tree_predictions(rf, X)

    def acc(mean):
        return (rf.classes_[np.argmax(mean, axis=-1)] == Y).mean(axis=-1)

    est, plain, _ = oob_extrapolation(p, counts == 0, acc, power=0.5, rng=extra_seed)
    assert r.estimate == pytest.approx(est) and r.bias == pytest.approx(plain - est)
    se_members = np.std(oob_member_bootstrap(p, counts == 0, acc, rng=member_seed), ddof=1)
    assert r.details["se_members"] == pytest.approx(se_members)
    test = mlci.bootstrap_ci(Y, rf.classes_[rf.oob_decision_function_.argmax(1)],
                             metric="accuracy", n_resamples=300, rng=boot_seed)  # fmt: skip
    assert r.details["se_test"] == pytest.approx(test.standard_error)
    se = np.hypot(test.standard_error, se_members)
    assert r.standard_error == pytest.approx(se)
    z = stats.norm.ppf(0.975)
    assert r.confidence_interval.low == pytest.approx(max(0, est - z * se))
    assert r.confidence_interval.high == pytest.approx(min(1, est + z * se))
    assert "algorithm at n" in r.details["target"] and "(40 members)" in r.details["target"]
    low = mlci.oob_ci(rf, X, Y, rng=3, n_resamples=300, alternative="greater")
    assert low.confidence_interval.high == 1.0
    assert low.confidence_interval.low == pytest.approx(est - stats.norm.ppf(0.95) * se)


def test_oob_ci_with_X_for_the_mse():
    rf = RandomForestRegressor(30, oob_score=True, random_state=0).fit(X, YR)
    # the study: 0.975 of the algorithm's MSE, 0.910 of the fitted forest's: it warns
    with pytest.warns(UserWarning, match="covered in only 0.910"):
        r = mlci.oob_ci(rf, X, YR, metric="mse", rng=0, n_resamples=200)
    plain = np.mean((rf.oob_prediction_ - YR) ** 2)
    assert r.details["oob"] == pytest.approx(plain)
    assert r.estimate < plain  # 30 members predict better than the ~11 out-of-bag ones
    # the MSE extrapolates in 1/k (its variance term is exactly s^2/k): close to the
    # analytic correction mean((y - F)^2 - s^2 (1/m - 1/B)) (s^2 the members' variance)
    p, counts = tree_predictions(rf, X)
    oob = counts == 0
    m, f_all = oob.sum(0), rf.oob_prediction_
    s2 = np.array([np.var(p[oob[:, i], i], ddof=1) for i in range(len(YR))])
    analytic = np.mean((YR - f_all) ** 2 - s2 * (1 / m - 1 / 30))
    assert r.estimate == pytest.approx(analytic, abs=0.4 * (plain - analytic))  # 20 subsets


# AUC 0.985 (45 positives, 45 negatives) is near the edge: the NearBoundWarning is due
# there (the near-bound rule, tested in tests/engine/test_near_bound.py)
@pytest.mark.filterwarnings("ignore::mlci.NearBoundWarning")
# (and the near-bound AUC rule of 20-149 samples of a class: tests/engine/test_auc_near_edge.py)
@pytest.mark.filterwarnings(r"ignore:Only \d+ samples in the smaller class of a ROC AUC")
def test_oob_ci_with_X_warns_for_unmeasured_metrics():
    rf = RandomForestClassifier(30, oob_score=True, random_state=0).fit(X, Y)
    with pytest.warns(UserWarning, match="corrected interval for 'roc_auc' is approximate"):
        r = mlci.oob_ci(rf, X, Y, metric="roc_auc", rng=0, n_resamples=200)
    assert 0.5 < r.estimate <= 1


def test_oob_ci_with_X_drops_samples_without_oob_prediction():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns: some samples have no OOB
        bag = BaggingClassifier(n_estimators=4, oob_score=True, random_state=0).fit(X, Y)
    missing = np.isnan(bag.oob_decision_function_).any(axis=1)
    assert missing.any()
    r = mlci.oob_ci(bag, X, Y, dropna=True, rng=0, n_resamples=200)
    assert r.details["n_dropped"] == missing.sum() and r.n_samples == (~missing).sum()
    pred = bag.classes_[bag.oob_decision_function_[~missing].argmax(1)]
    assert r.details["oob"] == pytest.approx(np.mean(pred == Y[~missing]))


def test_oob_ci_with_X_errors():
    rf = RandomForestClassifier(30, oob_score=True, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="`X` does not reproduce"):
        mlci.oob_ci(rf, X[::-1], Y)
    with pytest.raises(ValueError, match="`X` has 89 rows"):
        mlci.oob_ci(rf, X[1:], Y)
    with pytest.raises(ValueError, match="`X` must be the numeric training data"):
        mlci.oob_ci(rf, X[:, 0], Y)
    with pytest.raises(ValueError, match="`method`='percentile'"):
        mlci.oob_ci(rf, X, Y, method="percentile")
    with pytest.raises(ValueError, match="`model`"):
        tree_predictions(KNeighborsClassifier().fit(X, Y), X)


def test_corrected_result_rereads_its_normal_interval_and_refuses_other_methods():
    # The replicates of the corrected result are the test-set bootstrap of the plain
    # out-of-bag predictions: an interval from them would drop se_members (and, for the
    # percentile types, the extrapolation). interval() keeps the normal interval.
    rf = RandomForestClassifier(40, oob_score=True, random_state=0).fit(X, Y)
    r = mlci.oob_ci(rf, X, Y, rng=3, n_resamples=300)
    assert isinstance(r, mlci.OOBResult)
    z90 = stats.norm.ppf(0.95)
    r90 = r.interval(confidence_level=0.9)
    assert r90.confidence_interval.low == pytest.approx(r.estimate - z90 * r.standard_error)
    assert r90.confidence_level == 0.9 and r90.method == "oob-extrapolated"
    assert r.interval(method="normal") == r
    one = r.interval(alternative="greater")
    assert one.confidence_interval.high == 1.0
    levels = mlci.oob_ci(rf, X, Y, rng=3, n_resamples=300, confidence_level=[0.9, 0.95])
    assert [x.confidence_interval for x in levels] == [
        r90.confidence_interval,
        r.confidence_interval,
    ]
    for bad in ("percentile", "bca", "studentized"):
        with pytest.raises(ValueError, match="oob_ci's corrected result"):
            r.interval(method=bad)
    with pytest.raises(ValueError, match="confidence_level"):
        r.interval(confidence_level=1.5)
    # BootstrapResult.interval's signature (mypy: an override must accept it); R's
    # conventions re-read replicates, which this normal interval does not use
    assert r.interval(variant="mlci") == r
    with pytest.raises(ValueError, match="variant"):
        r.interval(variant="boot")


def test_member_bootstrap_runs_in_the_engines_loop():
    p, oob = _tiny(n_members=10, n=12)

    def error(mean):
        return (np.argmax(mean, axis=-1) != Y[:12]).mean(axis=-1)

    ref = oob_member_bootstrap(p, oob, error, n_resamples=30, rng=5)
    with progress_bar(stream=io.StringIO(), delay=3600) as bar:  # replicates counted
        got = oob_member_bootstrap(p, oob, error, n_resamples=30, rng=5)
    assert bar.done == bar.total == 30
    with mlci.config_context(batch=1, n_jobs=2, max_memory=1 << 16):  # one block: the same
        configured = oob_member_bootstrap(p, oob, error, n_resamples=30, rng=5)
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(configured, ref)
    # a Generator is drawn from (as numpy.random.default_rng(generator) does)
    from_gen = oob_member_bootstrap(p, oob, error, n_resamples=30, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(from_gen, ref)
