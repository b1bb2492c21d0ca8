"""The bootstrap estimators (out-of-bag, .632, .632+) and out-of-bag evaluation of fitted
ensembles, against independent computations."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.datasets import make_classification
from sklearn.ensemble import BaggingClassifier, RandomForestClassifier, RandomForestRegressor
from sklearn.linear_model import LinearRegression
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

import mlci
from mlci.engine.resampling import make_plan
from mlci.engine.sampler import Stream, stream_seed
from mlci.inputs import check_rng_seed
from mlci.protocols.bootstrap632 import oob_standard_error

# oob_ci warns at every call (tested in test_oob_ci_warns); the other tests silence it
pytestmark = [
    pytest.mark.filterwarnings("ignore:oob_ci's interval:UserWarning"),
    pytest.mark.filterwarnings(r"ignore:The \.632\+? interval with n_bootstraps:UserWarning"),
]

X, Y = make_classification(90, n_features=5, random_state=2)


def _r_boot632_se(saveii_counts, err1):
    """A literal port of the standard-error part of ``boot632`` in Bates et al.'s R
    package nestedcv (R/632.R, eq. 35-43 of Efron & Tibshirani 1997): loops as in R."""
    nboot, n = saveii_counts.shape
    e0i = np.empty(n)
    for i in range(n):
        o = saveii_counts[:, i]
        e0i[i] = err1[o == 0, i].sum() / (o == 0).sum()
    e0 = e0i.mean()
    en = (1 - 1 / n) ** (-n)
    qq = np.array([err1[b, saveii_counts[b] == 0].sum() / n for b in range(nboot)])

    def cov(a, b):
        return np.cov(a, b, ddof=1)[0, 1]

    c1 = 2 + 1 / (n - 1)
    dd = np.array([c1 * ((e0i[i] - e0) / n) + en * cov(saveii_counts[:, i], qq) for i in range(n)])
    se = np.sqrt(np.sum(dd**2))
    dib = np.zeros((nboot, n))
    for b in range(nboot):
        e0i_in = np.empty(n)
        for i in range(n):
            o = saveii_counts[:, i].copy()
            o[b] = 1
            e0i_in[i] = err1[o == 0, i].sum() / (o == 0).sum()
        e0_in = e0i_in.mean()
        keep = np.arange(nboot) != b
        for i in range(n):
            dib[b, i] = (2 + 1 / (n - 1)) * ((e0i_in[i] - e0_in) / n) + en * cov(
                saveii_counts[keep, i], qq[keep]
            )
    sein = np.sqrt(np.sum(dib.std(axis=0, ddof=1) ** 2 * (nboot - 1) ** 2 / nboot))
    return e0, se, np.sqrt(se**2 - sein**2)


def test_standard_error_matches_the_r_code():
    rng = np.random.default_rng(0)
    n, b = 25, 60
    counts = rng.multinomial(n, np.full(n, 1 / n), size=b)
    losses = (rng.random((b, n)) < 0.3).astype(float)
    ref = _r_boot632_se(counts, losses)
    got = oob_standard_error(counts, losses)
    np.testing.assert_allclose(got, ref, rtol=1e-10)


def _by_hand(estimator, x, y, b, rng):
    """The estimators from their definitions (Efron & Tibshirani 1997, eq. 6-7, 24, 27-32),
    on the bootstrap samples bootstrap632_ci draws."""
    seed = check_rng_seed(rng)
    plan = make_plan(len(y), n_resamples=b, rng=stream_seed(seed, Stream.TRAINING))
    counts = plan.weights_for().all_replicates().astype(int)
    n = len(y)
    loss = np.empty((b, n))
    for j in range(b):
        idx = np.repeat(np.arange(n), counts[j])
        m = estimator.fit(x[idx], y[idx])
        loss[j] = m.predict(x) != y
    e_i = np.array([loss[counts[:, i] == 0, i].mean() for i in range(n)])
    err1 = e_i.mean()
    full = estimator.fit(x, y).predict(x)
    err = np.mean(full != y)
    p1, q1 = y.mean(), full.mean()
    gamma = p1 * (1 - q1) + (1 - p1) * q1
    err1p = min(err1, gamma)
    r = (err1p - err) / (gamma - err) if err1 > err and gamma > err else 0.0
    w = 0.632 / (1 - 0.368 * r)
    return err1, 0.368 * err + 0.632 * err1, (1 - w) * err + w * err1p, err, gamma


def test_estimators_match_their_definitions():
    tree = DecisionTreeClassifier(random_state=0)
    err1, e632, e632p, err, gamma = _by_hand(tree, X, Y, 40, 3)
    for variant, ref in (("oob", err1), ("632", e632), ("632+", e632p)):
        r = mlci.bootstrap632_ci(tree, X, Y, metric="error_rate", variant=variant,
                                 n_bootstraps=40, rng=3)  # fmt: skip
        assert r.estimate == pytest.approx(ref, rel=1e-12)
        assert r.apparent == pytest.approx(err) and r.no_information == pytest.approx(gamma)
    acc = mlci.bootstrap632_ci(tree, X, Y, variant="632+", n_bootstraps=40, rng=3)
    assert acc.estimate == pytest.approx(1 - e632p) and acc.metric == "accuracy"
    z = stats.norm.ppf(0.975)
    half = z * acc.standard_error  # the interval, clipped into [0, 1]
    assert acc.confidence_interval == pytest.approx(
        (max(0, acc.estimate - half), min(1, acc.estimate + half))
    )


def test_regression_and_one_sided():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(60, 2))
    y = x @ [1.0, -1.0] + rng.normal(size=60)
    r = mlci.bootstrap632_ci(LinearRegression(), x, y, metric="mse", variant="632",
                             n_bootstraps=30, rng=0, alternative="less")  # fmt: skip
    assert r.confidence_interval.low == 0.0 and r.confidence_interval.high > r.estimate
    assert r.relative_overfitting == 0.0
    a = mlci.bootstrap632_ci(GaussianNB(), X, Y, n_bootstraps=20, rng=0, alternative="greater")
    assert a.confidence_interval.high == 1.0 and a.confidence_interval.low < a.estimate


def test_bootstrap632_errors():
    with pytest.raises(ValueError, match="`variant`"):
        mlci.bootstrap632_ci(GaussianNB(), X, Y, variant=".632")
    with pytest.raises(ValueError, match="`metric`='roc_auc'"):
        mlci.bootstrap632_ci(GaussianNB(), X, Y, metric="roc_auc")
    with pytest.raises(ValueError, match="`n_bootstraps`"):
        mlci.bootstrap632_ci(GaussianNB(), X, Y, n_bootstraps=5)
    with pytest.raises(ValueError, match="training set of bootstrap sample"):
        y = np.r_[1, np.zeros(89, int)]
        mlci.bootstrap632_ci(GaussianNB(), X, y, n_bootstraps=10, rng=0)


# ----------------------------------------------------------------------------------------
# out-of-bag predictions of fitted ensembles
# ----------------------------------------------------------------------------------------
# AUC 0.985 (45 positives, 45 negatives) is near the edge: the NearBoundWarning is due
# there (the near-bound rule, tested in tests/engine/test_near_bound.py)
@pytest.mark.filterwarnings("ignore::mlci.NearBoundWarning")
# (and the near-bound AUC rule of 20-149 samples of a class: tests/engine/test_auc_near_edge.py)
@pytest.mark.filterwarnings(r"ignore:Only \d+ samples in the smaller class of a ROC AUC")
def test_oob_ci_scores_the_oob_predictions():
    rf = RandomForestClassifier(30, oob_score=True, random_state=0).fit(X, Y)
    r = mlci.oob_ci(rf, None, Y, rng=0, n_resamples=200)
    assert r.estimate == pytest.approx(rf.oob_score_)
    ref = mlci.bootstrap_ci(Y, rf.classes_[rf.oob_decision_function_.argmax(1)],
                            metric="accuracy", rng=0, n_resamples=200)  # fmt: skip
    assert r.confidence_interval == ref.confidence_interval
    auc = mlci.oob_ci(rf, None, Y, metric="roc_auc", rng=0, n_resamples=200)
    assert auc.estimate == pytest.approx(roc_auc_score(Y, rf.oob_decision_function_[:, 1]))
    assert "out-of-bag" in auc.details["target"]
    reg = RandomForestRegressor(20, oob_score=True, random_state=0).fit(X, X[:, 0])
    assert mlci.oob_ci(reg, None, X[:, 0], metric="r2", n_resamples=200, rng=0).estimate == (
        pytest.approx(reg.oob_score_)
    )


@pytest.mark.filterwarnings("error")
def test_632_variants_warn_and_oob_states_its_training_size():
    for variant in ("632", "632+"):
        with pytest.warns(UserWarning, match=rf"The \.{variant.replace('+', '[+]')} interval"):
            mlci.bootstrap632_ci(GaussianNB(), X, Y, variant=variant, n_bootstraps=20, rng=0)
    r = mlci.bootstrap632_ci(GaussianNB(), X, Y, variant="oob", n_bootstraps=20, rng=0)
    assert r.target_description.endswith("trained on 56.88 samples")  # 0.632 * 90
    # 1000 bootstraps (the default): no warning
    r = mlci.bootstrap632_ci(GaussianNB(), X, Y, variant="632+", rng=0)
    assert r.n_bootstraps == 1000 and r.target_description.endswith("trained on 90 samples")


@pytest.mark.filterwarnings("error")
def test_oob_ci_warns():
    rf = RandomForestClassifier(30, oob_score=True, random_state=0).fit(X, Y)
    with pytest.warns(UserWarning, match="oob_ci's interval .* covered the forest's accuracy"):
        mlci.oob_ci(rf, None, Y, rng=0, n_resamples=200)


def test_oob_ci_samples_without_oob_prediction():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns: some samples have no OOB
        bag = BaggingClassifier(n_estimators=3, oob_score=True, random_state=0).fit(X, Y)
    missing = np.isnan(bag.oob_decision_function_).any(axis=1)
    with pytest.raises(ValueError, match=r"no out-of-bag prediction for \d+ sample"):
        mlci.oob_ci(bag, None, Y)
    r = mlci.oob_ci(bag, None, Y, dropna=True, rng=0, n_resamples=200)
    assert r.details["n_dropped"] == missing.sum()
    pred = bag.classes_[bag.oob_decision_function_[~missing].argmax(1)]
    assert r.estimate == pytest.approx(accuracy_score(Y[~missing], pred))


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("with_x", [False, True])
def test_forest_samples_without_oob_prediction_are_found(regression, with_x):
    # scikit-learn's forests store 0 (a row of zero probabilities, a regression
    # prediction of 0) for a sample that was in every tree's bootstrap sample, not NaN:
    # oob_ci used to score that 0 as a prediction (MSE 1.180 instead of 1.146 here)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    x = rng.normal(size=(200, 2)) + y[:, None]
    forest = RandomForestRegressor if regression else RandomForestClassifier
    target = x[:, 0] + rng.normal(size=200) if regression else y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn warns: some samples have no OOB
        rf = forest(20, oob_score=True, random_state=0).fit(x, target)
    counts = np.array([np.bincount(ix, minlength=200) for ix in rf.estimators_samples_])
    never = (counts > 0).all(axis=0)
    assert never.sum() == 1  # row 28
    metric = "mse" if regression else "accuracy"
    kw = {"metric": metric, "rng": 0, "n_resamples": 50}
    data = x if with_x else None
    with pytest.raises(
        ValueError, match=r"no out-of-bag prediction for 1 sample\(s\) \(first: row 28\)"
    ):
        mlci.oob_ci(rf, data, target, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the interval's own warnings
        r = mlci.oob_ci(rf, data, target, dropna=True, **kw)
    assert r.details["n_dropped"] == 1
    if not with_x:  # the plain out-of-bag metric over the other samples
        oob = rf.oob_prediction_ if regression else rf.classes_[rf.oob_decision_function_.argmax(1)]
        err = (oob - target) ** 2 if regression else (oob == target)
        assert r.estimate == pytest.approx(err[~never].mean())


def test_oob_ci_errors():
    with pytest.raises(ValueError, match=r"`estimator`.*no out-of-bag"):
        mlci.oob_ci(GaussianNB().fit(X, Y), None, Y)
    rf = RandomForestClassifier(30, oob_score=True, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="`y`"):
        mlci.oob_ci(rf, None, Y[1:])
    with pytest.raises(ValueError, match="regression metric"):
        mlci.oob_ci(rf, None, Y, metric="mse")


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("metric", ["accuracy", "log_loss"])
def test_several_confidence_levels_and_interval_reread_the_same_bootstraps(metric, alternative):
    # a list of levels: one result per level, each equal to the single-level call with
    # the same rng (accuracy is reported as 1 - the loss's interval: the same numbers)
    kw = {"n_bootstraps": 40, "rng": 1, "metric": metric, "alternative": alternative}
    both = mlci.bootstrap632_ci(GaussianNB(), X, Y, confidence_level=[0.9, 0.99], **kw)
    for r, level in zip(both, [0.9, 0.99], strict=True):
        one = mlci.bootstrap632_ci(GaussianNB(), X, Y, confidence_level=level, **kw)
        np.testing.assert_allclose(r.confidence_interval, one.confidence_interval, atol=1e-12)
        assert r.interval(confidence_level=0.95).confidence_interval == pytest.approx(
            both[0].interval(confidence_level=0.95).confidence_interval
        )
    with pytest.raises(ValueError, match="'delta'"):
        both[0].interval(method="percentile")
    with pytest.raises(ValueError, match="confidence_level"):
        both[0].interval(confidence_level=0)
