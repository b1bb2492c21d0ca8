"""cross_val_ci: fold scores against scikit-learn, the three intervals against independent
computations (scipy; a literal port of Bates et al.'s R code), reproducibility, folds,
and errors that name the fold."""

from __future__ import annotations

import dataclasses

import joblib
import numpy as np
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import accuracy_score, roc_auc_score
from sklearn.model_selection import GridSearchCV, PredefinedSplit, cross_val_score
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier

import mlci
from mlci.engine.sampler import Stream, block_generator
from mlci.inputs import check_rng_seed
from mlci.protocols.crossval import fold_ids

# the naive interval warns at every use (tested in test_naive_warns); the tests that use it
# to check other things silence that one warning
pytestmark = pytest.mark.filterwarnings("ignore:method='naive' treats:UserWarning")

X, Y = make_classification(120, n_features=6, random_state=3)
RNG = np.random.default_rng(5)
XR = RNG.normal(size=(60, 3))
YR = XR @ np.array([1.0, 2.0, 0.0]) + RNG.normal(size=60)


def _folds(rng, n, k, r, **kw):
    """The fold ids cross_val_ci draws for repetition ``r`` of seed ``rng``."""
    return fold_ids(block_generator(check_rng_seed(rng), Stream.CV_SPLITS, r), n, k, **kw)


# ----------------------------------------------------------------------------------------
# fold scores = scikit-learn's on the same folds
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("metric", "scoring"), [("accuracy", "accuracy"), ("roc_auc", "roc_auc")])
def test_fold_scores_equal_scikit_learn(metric, scoring):
    r = mlci.cross_val_ci(GaussianNB(), X, Y, metric=metric, n_repeats=2, rng=4)
    for rep in range(2):
        f = _folds(4, len(Y), 5, rep, strata=Y)
        ref = cross_val_score(GaussianNB(), X, Y, cv=PredefinedSplit(f), scoring=scoring)
        np.testing.assert_allclose(r.fold_scores[rep], ref, rtol=1e-12)


def test_folds_are_stratified_and_groups_whole():
    f = _folds(0, len(Y), 5, 0, strata=Y)
    counts = np.array([np.bincount(Y[f == j], minlength=2) for j in range(5)])
    assert (np.ptp(counts, axis=0) <= 1).all()  # each class spread evenly
    groups = np.arange(len(Y)) % 17
    g = _folds(0, len(Y), 5, 0, groups=groups)
    for grp in range(17):
        assert len(np.unique(g[groups == grp])) == 1  # a group is never split
    assert np.ptp(np.bincount(g)) <= 8  # balanced to within a group


# ----------------------------------------------------------------------------------------
# intervals against independent computations
# ----------------------------------------------------------------------------------------
def test_naive_is_the_t_interval_of_the_fold_scores():
    r = mlci.cross_val_ci(GaussianNB(), X, Y, method="naive", n_repeats=3, rng=0)
    s = r.fold_scores.ravel()
    se = s.std(ddof=1) / np.sqrt(s.size)
    q = stats.t.ppf(0.975, s.size - 1)
    assert r.estimate == pytest.approx(s.mean())
    assert r.confidence_interval == pytest.approx((s.mean() - q * se, s.mean() + q * se))
    assert r.target == "algorithm"


@pytest.mark.filterwarnings("error")
def test_naive_warns_with_the_study_s_coverage():
    with pytest.warns(UserWarning, match=r"method='naive' treats the 10 fold scores") as w:
        r = mlci.cross_val_ci(GaussianNB(), X, Y, method="naive", n_repeats=2, rng=0)
    assert "covered its target was 0." in str(w[0].message)
    assert w[0].filename == __file__  # attributed to the caller's line
    with pytest.warns(UserWarning, match="method='naive'"):
        r.interval(method="naive")
    r.interval(method="corrected")  # no warning
    with pytest.warns(UserWarning, match="method='naive' treats the 30 fold scores"):
        mlci.cross_val_ci(GaussianNB(), X[:30], Y[:30], cv="loo", method="naive")


def test_corrected_is_nadeau_bengio():
    # Nadeau & Bengio (2003): var = (1/J + n_test/n_train) s^2, t with J - 1 df
    r = mlci.cross_val_ci(LinearRegression(), XR, YR, metric="mse", n_repeats=4, rng=1)
    s = r.fold_scores.ravel()
    se = np.sqrt((1 / s.size + 12 / 48) * s.var(ddof=1))
    q = stats.t.ppf(0.975, s.size - 1)
    assert (r.n_train, r.n_test) == (48, 12)
    assert r.confidence_interval == pytest.approx((s.mean() - q * se, s.mean() + q * se))
    assert r.standard_error == pytest.approx(se)


def test_nested_matches_a_literal_port_of_the_authors_r_code():
    # nested_cv / nested_cv_helper of github.com/stephenbates19/nestedcv (R/core.R), run on
    # the same folds; the bias correction uses the outer folds as its plain CV runs
    n, k, reps = len(YR), 5, 3
    r = mlci.cross_val_ci(
        LinearRegression(), XR, YR, metric="mse", method="nested", cv=k, n_repeats=reps, rng=7
    )
    pivots, ho, cv_means, outer = [], [], [], []
    for rep in range(reps):
        fid = _folds(7, n, k, rep)

        def loss(tr, te):
            fit = LinearRegression().fit(XR[tr], YR[tr])
            return (fit.predict(XR[te]) - YR[te]) ** 2

        err = {}
        for f1 in range(k - 1):
            for f2 in range(f1 + 1, k):
                tr = (fid != f1) & (fid != f2)
                err[f1, f2], err[f2, f1] = loss(tr, fid == f1), loss(tr, fid == f2)
        outs = []
        for f1 in range(k):
            e_out = loss(fid != f1, fid == f1)
            outs.append(e_out)
            e_in = np.concatenate([err[f2, f1] for f2 in range(k) if f2 != f1])
            pivots.append((e_in.mean() - e_out.mean(), e_out.var(ddof=1) / len(e_out)))
        ho.append(np.concatenate(list(err.values())))
        cv_means.append(np.concatenate(outs).mean())
        outer.append(np.concatenate(outs))
    pv, ho = np.array(pivots), np.concatenate(ho)
    infl = np.sqrt(max(0, np.mean(pv[:, 0] ** 2 - pv[:, 1]))) / (
        ho.std(ddof=1) / np.sqrt(np.floor(n * (k - 1) / k))
    )
    infl = min(max(infl, 1), np.sqrt(k))
    est = ho.mean() - (ho.mean() - np.mean(cv_means)) * (1 + ((k - 2) / k) ** 1.5)
    se = ho.std(ddof=1) / np.sqrt(n) * infl
    z = stats.norm.ppf(0.975)
    assert r.estimate == pytest.approx(est, rel=1e-12)
    assert r.standard_error == pytest.approx(se, rel=1e-12)
    assert r.confidence_interval == pytest.approx((est - z * se, est + z * se), rel=1e-12)
    # Bates et al.'s target: the model refit on all n samples
    assert r.target == "refit" and r.n_fits == reps * (k * (k - 1) // 2 + k)
    assert r.target_description == f"mse of the model refit on all {n} samples, on new data"
    assert r.interval(method="corrected").target == "algorithm"
    # the diagnostics of the floor (not in the R code): the two spreads of the losses,
    # the mean of the pivots and the standard error of MSE-hat over the repetitions
    d = r.details["nested"]
    assert d["sd_nested"] == pytest.approx(ho.std(ddof=1), rel=1e-12)
    assert d["sd_outer"] == pytest.approx(np.concatenate(outer).std(ddof=1), rel=1e-12)
    assert d["nested_gap"] == pytest.approx(pv[:, 0].mean(), rel=1e-12)
    per_rep = (pv[:, 0] ** 2 - pv[:, 1]).reshape(reps, k).mean(1)
    assert d["mse_hat_se"] == pytest.approx(per_rep.std(ddof=1) / np.sqrt(reps), rel=1e-12)
    # the other intervals from the same fits: the outer folds are a repeated k-fold
    c = r.interval(method="corrected")
    assert c.target == "algorithm" and c.estimate == pytest.approx(np.mean(cv_means))


def _nested_by_hand(x, y, groups, k, reps, seed):
    """Bates et al.'s nested CV (the port above) with the two variances of a mean made
    cluster-robust (``G/(G-1) Σ_g (Σ_i∈g (v_i - v̄))² / n²``), written out in loops."""

    def cvar(v, g):
        labels = np.unique(g)
        s = [np.sum(v[g == lab] - v.mean()) for lab in labels]
        return len(labels) / (len(labels) - 1) * np.sum(np.square(s)) / len(v) ** 2

    n = len(y)
    pivots, ho, cv_means, num, den = [], [], [], [], []
    for rep in range(reps):
        fid = _folds(seed, n, k, rep, groups=groups)

        def loss(tr, te):
            fit = LinearRegression().fit(x[tr], y[tr])
            return (fit.predict(x[te]) - y[te]) ** 2

        err = {}
        for f1 in range(k - 1):
            for f2 in range(f1 + 1, k):
                tr = (fid != f1) & (fid != f2)
                err[f1, f2], err[f2, f1] = loss(tr, fid == f1), loss(tr, fid == f2)
        outs, where = [], []
        for f1 in range(k):
            e_out = loss(fid != f1, fid == f1)
            outs.append(e_out)
            where.append(np.flatnonzero(fid == f1))
            e_in = np.concatenate([err[f2, f1] for f2 in range(k) if f2 != f1])
            pivots.append((e_in.mean() - e_out.mean(), cvar(e_out, groups[fid == f1])))
        ho.append(np.concatenate(list(err.values())))
        v, w = np.concatenate(outs), np.concatenate(where)
        cv_means.append(v.mean())
        num.append(cvar(v, groups[w]))
        den.append(v.var(ddof=1) / n)
    pv, ho = np.array(pivots), np.concatenate(ho)
    sd = ho.std(ddof=1) * np.sqrt(max(1.0, np.sum(num) / np.sum(den)))
    infl = np.sqrt(max(0, np.mean(pv[:, 0] ** 2 - pv[:, 1]))) / (
        sd / np.sqrt(np.floor(n * (k - 1) / k))
    )
    infl = min(max(infl, 1), np.sqrt(k))
    est = ho.mean() - (ho.mean() - np.mean(cv_means)) * (1 + ((k - 2) / k) ** 1.5)
    return est, sd / np.sqrt(n) * infl


def test_nested_with_groups_uses_cluster_robust_variances():
    rng = np.random.default_rng(11)
    groups = np.repeat(np.arange(20), 4)
    x = rng.normal(size=(80, 3)) + rng.normal(size=(20, 3))[groups]
    y = x @ np.array([1.0, -1.0, 0.5]) + rng.normal(size=20)[groups] + rng.normal(size=80)
    r = mlci.cross_val_ci(
        LinearRegression(), x, y, metric="mse", method="nested", cv=5, n_repeats=2,
        conditions=groups, rng=3,
    )  # fmt: skip
    est, se = _nested_by_hand(x, y, groups, 5, 2, 3)
    assert r.estimate == pytest.approx(est, rel=1e-12)
    assert r.standard_error == pytest.approx(se, rel=1e-12)
    assert r.details["nested"]["design_effect"] > 1
    # one sample per group: the R code's statistics (design effect 1)
    single = np.arange(80)
    r1 = mlci.cross_val_ci(
        LinearRegression(), x, y, metric="mse", method="nested", cv=5, n_repeats=2,
        conditions=single, rng=3,
    )  # fmt: skip
    _, se1 = _nested_by_hand(x, y, single, 5, 2, 3)
    assert r1.standard_error == pytest.approx(se1, rel=1e-12)
    assert r1.details["nested"]["design_effect"] == pytest.approx(1.0)


def test_one_sided_and_bounds():
    r = mlci.cross_val_ci(GaussianNB(), X, Y, alternative="greater", n_repeats=2, rng=0)
    assert r.confidence_interval.high == 1.0 and r.confidence_interval.low < r.estimate
    r = mlci.cross_val_ci(
        LinearRegression(),
        XR,
        YR,
        metric="mse",
        method="nested",
        alternative="less",
        n_repeats=2,
        rng=0,
    )
    assert r.confidence_interval.low == 0.0


# ----------------------------------------------------------------------------------------
# designs, reproducibility, tuning
# ----------------------------------------------------------------------------------------
def test_same_rng_same_result_whatever_n_jobs():
    est = DecisionTreeClassifier(max_depth=3, max_features=2)  # random_state: from rng
    a = mlci.cross_val_ci(est, X, Y, n_repeats=2, rng=11)
    # no process start-up in a unit test
    with joblib.parallel_backend("threading"), mlci.config_context(n_jobs=2):
        b = mlci.cross_val_ci(est, X, Y, n_repeats=2, rng=11)
    assert a.to_dict() == b.to_dict()
    c = mlci.cross_val_ci(est, X, Y, n_repeats=2, rng=12)
    assert not np.array_equal(a.fold_scores, c.fold_scores)


def test_loo_and_holdout():
    r = mlci.cross_val_ci(GaussianNB(), X[:30], Y[:30], cv="loo", method="naive")
    pred = [
        GaussianNB().fit(np.delete(X[:30], i, 0), np.delete(Y[:30], i)).predict(X[i : i + 1])
        for i in range(30)
    ]
    assert r.fold_scores.shape == (1, 30)
    assert r.estimate == pytest.approx(accuracy_score(Y[:30], np.ravel(pred)))
    h = mlci.cross_val_ci(GaussianNB(), X, Y, cv="holdout", test_size=0.25, n_repeats=3, rng=0)
    assert h.cv == "holdout" and h.fold_scores.shape == (3, 1) and h.n_test == 30


def test_loo_nested_is_the_loo_estimate_with_the_nested_inflation():
    """cv="loo" defaults to method="nested": the leave-one-out mean, its standard error
    s/√n (the naive one) times the inflation of nested 5-fold CV run on the same folds
    (GaussianNB is deterministic, so the fit seeds do not matter)."""
    r = mlci.cross_val_ci(GaussianNB(), X, Y, cv="loo", n_repeats=3, rng=2)
    naive = r.interval("naive")
    kfold = mlci.cross_val_ci(GaussianNB(), X, Y, cv=5, method="nested", n_repeats=3, rng=2)
    infl = kfold.details["nested"]["inflation"]
    assert infl > 1  # the test means something: the inflation is not floored at 1
    assert r.method == "nested" and r.cv == "loo" and r.fold_scores.shape == (1, 120)
    assert r.details["nested"]["inflation"] == pytest.approx(infl, rel=1e-12)
    assert r.details["nested"]["k"] == 5 and r.details["nested"]["n_reps"] == 3
    assert r.estimate == naive.estimate == pytest.approx(r.fold_scores.mean())
    s = r.fold_scores.std(ddof=1) / np.sqrt(120)
    assert naive.standard_error == pytest.approx(s, rel=1e-12)
    assert r.standard_error == pytest.approx(s * infl, rel=1e-12)
    z = stats.norm.ppf(0.975)
    np.testing.assert_allclose(
        r.confidence_interval, [r.estimate - z * s * infl, r.estimate + z * s * infl]
    )
    assert r.n_fits == 120 + 3 * (5 + 10)
    assert r.n_train == 119 and r.target == "refit"
    assert r.target_description.endswith("refit on all 120 samples, on new data")
    assert naive.target == "algorithm" and naive.target_description.endswith("119 samples")
    # the other intervals from the same fits, and back
    assert r.interval("corrected").standard_error > naive.standard_error
    assert r.interval("naive").interval("nested").to_dict() == r.to_dict()
    one = r.interval(alternative="greater", confidence_level=0.9)
    assert one.confidence_interval.high == 1.0
    assert one.confidence_interval.low == pytest.approx(r.estimate - stats.norm.ppf(0.9) * s * infl)


def test_loo_nested_regression_default_and_reproducible():
    a = mlci.cross_val_ci(LinearRegression(), XR, YR, metric="mse", cv="loo", rng=1)
    b = mlci.cross_val_ci(LinearRegression(), XR, YR, metric="mse", cv="loo", rng=1)
    assert a.method == "nested" and a.to_dict() == b.to_dict()
    assert a.details["nested"]["n_reps"] == 10 and a.n_fits == 60 + 10 * 15
    assert a.estimate == pytest.approx(a.interval("naive").estimate)
    assert a.standard_error >= a.interval("naive").standard_error  # the inflation is >= 1


def test_loo_nested_needs_two_samples_per_inner_fold():
    with pytest.raises(ValueError, match=r"nested 5-fold.*at least 10 samples.*hold 9"):
        mlci.cross_val_ci(GaussianNB(), X[:9], Y[:9], cv="loo", method="nested")
    with pytest.raises(ValueError, match=r"at least 10 samples"):
        mlci.cross_val_ci(GaussianNB(), X[:9], Y[:9], cv="loo")  # the default
    r = mlci.cross_val_ci(GaussianNB(), X[:9], Y[:9], cv="loo", method="corrected")
    assert r.method == "corrected" and r.n_fits == 9


def test_loo_nested_inner_fold_errors_are_named():
    y = np.r_[1, 1, np.zeros(38, int)]  # a training set of an inner fold has one class
    with pytest.raises(ValueError, match=r"of the nested 5-fold runs"):
        mlci.cross_val_ci(GaussianNB(), X[:40], y, cv="loo", stratify=False, rng=0)


def test_grouped_folds_keep_groups_whole():
    groups = np.repeat(np.arange(24), 5)
    r = mlci.cross_val_ci(GaussianNB(), X, Y, conditions=groups, n_repeats=2, rng=0)
    assert r.cv == "group-kfold" and r.n_test == 24


def test_tuning_inside_the_folds_reports_the_chosen_parameters():
    search = GridSearchCV(DecisionTreeClassifier(random_state=0), {"max_depth": [1, 3]}, cv=3)
    r = mlci.cross_val_ci(search, X, Y, method="corrected", n_repeats=2, rng=0)
    assert len(r.best_params) == 10
    assert {p["max_depth"] for p in r.best_params} <= {1, 3}


def test_progress_counts_the_fits_and_is_silent_in_a_pipe(capsys):
    import io

    with mlci.feedback.progress_bar(stream=io.StringIO(), delay=0, force=True) as bar:
        mlci.cross_val_ci(GaussianNB(), X, Y, method="corrected", n_repeats=2, rng=0)
    assert (bar.done, bar.total, bar.unit) == (10, 10, "fit")
    with mlci.config_context(progress=True):
        mlci.cross_val_ci(GaussianNB(), X, Y, method="corrected", rng=0)
    assert capsys.readouterr().err == ""  # stderr is not a terminal here


def test_roc_auc_without_predict_proba_uses_the_decision_function():
    from sklearn.svm import LinearSVC

    r = mlci.cross_val_ci(LinearSVC(), X, Y, metric="roc_auc", method="naive", rng=0)
    f = _folds(0, len(Y), 5, 0, strata=Y)
    ref = [
        roc_auc_score(Y[f == j], LinearSVC().fit(X[f != j], Y[f != j]).decision_function(X[f == j]))
        for j in range(5)
    ]
    np.testing.assert_allclose(r.fold_scores[0], ref)


def test_result_interface():
    r = mlci.cross_val_ci(GaussianNB(), X, Y, method="naive", rng=0)
    assert "target='algorithm'" in repr(r)
    row = r.to_frame().iloc[0]
    assert row["target"] == "algorithm" and row["n_splits"] == 5
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.estimate = 0  # type: ignore[misc]
    with pytest.raises(ValueError, match="`method`='nested' needs"):
        r.interval(method="nested")


# ----------------------------------------------------------------------------------------
# errors that name the fold
# ----------------------------------------------------------------------------------------
class _FailsOnSmallData(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        if len(y) < 90:
            raise ValueError("too few samples for me")
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def test_estimator_failing_on_a_fold_is_named():
    with pytest.raises(ValueError, match=r"failed on folds 1 and 2 \(inner\) of repetition 1"):
        mlci.cross_val_ci(_FailsOnSmallData(), X, Y, method="nested", n_repeats=1, rng=0)


def test_single_class_test_fold_is_named():
    y = np.r_[np.ones(4, int), np.zeros(36, int)]
    with pytest.raises(ValueError, match=r"undefined on fold \d of repetition 1 \(its test set"):
        mlci.cross_val_ci(
            GaussianNB(), X[:40], y, metric="roc_auc", stratify=False, method="naive", rng=0
        )


def test_single_class_training_fold_is_named():
    y = np.r_[np.ones(2, int), np.zeros(38, int)]
    with pytest.raises(ValueError, match=r"training set of left-out sample 0 holds a single"):
        mlci.cross_val_ci(
            GaussianNB(), X[:40], np.r_[1, np.zeros(39, int)], cv="loo", method="naive"
        )
    assert y.sum() == 2


def test_fewer_groups_than_folds():
    with pytest.raises(ValueError, match=r"`conditions` has 3 distinct group\(s\).*folds 4, 5"):
        mlci.cross_val_ci(LogisticRegression(), X, Y, conditions=np.arange(120) % 3)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"method": "nested", "metric": "roc_auc"}, "`method`='nested' needs a metric"),
        ({"method": "nested", "cv": "holdout"}, "`method`='nested' needs k-fold"),
        ({"method": "nested", "cv": 2}, "`cv`=2"),
        ({"cv": "loo", "n_repeats": 3, "method": "naive"}, "`n_repeats`=3"),
        ({"cv": "loo", "n_repeats": 0}, "`n_repeats`"),
        ({"cv": 1}, "`cv`"),
        ({"cv": 2.5}, "`cv`"),
        ({"cv": "kfold"}, "`cv`"),
        ({"test_size": 1.5}, "`test_size`"),
        ({"stratify": "yes"}, "`stratify`"),
        ({"metric": "mse", "stratify": True}, "`stratify`"),
        ({"metric": "rmse", "pos_label": 1}, "`pos_label`"),
        ({"conditions": np.arange(120) % 10, "stratify": True}, "`stratify`"),
        ({"conditions": np.arange(120) % 10, "cv": "loo", "method": "naive"}, "`conditions`"),
        ({"conditions": np.arange(120) % 10, "cv": "loo"}, "`conditions`"),
        ({"metric": "recall"}, "`metric`"),
        ({"metric": len}, "`metric`"),
        ({"metric": "nope"}, "Unknown metric"),
        ({"pos_label": 7, "metric": "roc_auc"}, "`pos_label`"),
    ],
)
def test_bad_options(kw, match):
    with pytest.raises((ValueError, TypeError), match=match):
        mlci.cross_val_ci(GaussianNB(), X, Y, **kw)


def test_bad_data():
    with pytest.raises(TypeError, match="`estimator`"):
        mlci.cross_val_ci("tree", X, Y)
    with pytest.raises(ValueError, match="`X` has 119 rows"):
        mlci.cross_val_ci(LogisticRegression(), X[1:], Y)
    y = Y.astype(float)
    y[3] = np.nan
    with pytest.raises(ValueError, match=r"`y`.*missing value"):
        mlci.cross_val_ci(LogisticRegression(), X, y)
    r = mlci.cross_val_ci(GaussianNB(), X, y, dropna=True, method="naive", rng=0)
    assert r.details["n_dropped"] == 1 and r.n_samples == 119
    with pytest.raises(ValueError, match="fewer than `cv`"):
        mlci.cross_val_ci(LogisticRegression(), X[:4], [0, 1, 0, 1], cv=5)


# ----------------------------------------------------------------------------------------
# comparing two learning algorithms on the same folds
# ----------------------------------------------------------------------------------------
def test_compare_is_the_corrected_t_test_of_the_fold_differences():
    tree = DecisionTreeClassifier(max_depth=2, random_state=0)
    r = mlci.cross_val_compare(GaussianNB(), tree, X, Y, cv=5, n_repeats=3, rng=2)
    a, b = r.details["scores_a"], r.details["scores_b"]
    ref = mlci.corrected_resampled_ttest(a, b, n_train=96, n_test=24)
    assert (r.statistic, r.pvalue) == (ref.statistic, ref.pvalue)
    # the same folds as cross_val_ci with the same rng
    np.testing.assert_array_equal(
        a, mlci.cross_val_ci(GaussianNB(), X, Y, n_repeats=3, rng=2).fold_scores
    )
    naive = mlci.cross_val_compare(GaussianNB(), tree, X, Y, method="naive", cv=5, rng=2)
    assert naive.method == "kfold-cv-paired-t" and naive.df == 4
    with pytest.raises(TypeError, match="`estimator_b`"):
        mlci.cross_val_compare(GaussianNB(), None, X, Y)
    with pytest.raises(ValueError, match="`method`"):
        mlci.cross_val_compare(GaussianNB(), tree, X, Y, method="bates")
    with pytest.raises(ValueError, match="per-sample value"):
        mlci.cross_val_compare(GaussianNB(), tree, X, Y, metric="roc_auc", method="nested")
    with pytest.raises(ValueError, match="`cv`='loo'"):
        mlci.cross_val_compare(GaussianNB(), tree, X, Y, cv="loo")


def test_nested_compare_is_nested_cv_of_the_per_sample_differences():
    from sklearn.linear_model import Ridge

    from mlci.protocols.cv_statistics import nested_statistics
    from mlci.protocols.splits import plan_fits

    n, k, reps = len(YR), 5, 3
    a, b = LinearRegression(), Ridge(alpha=20.0)
    r = mlci.cross_val_compare(
        a, b, XR, YR, metric="mse", method="nested", cv=k, n_repeats=reps, rng=4
    )
    # by hand: both models refitted on every fit of the plan (outer folds, then the
    # inner pairs), the per-sample squared-error differences A - B, Bates et al.'s
    # statistics of them (nested_statistics is checked against the R code above)
    plans = [_folds(4, n, k, rep) for rep in range(reps)]
    fits = plan_fits(plans, "kfold", k, [0] * reps, True)

    def loss(est, f):
        return (est.fit(XR[f.train], YR[f.train]).predict(XR[f.test]) - YR[f.test]) ** 2

    diff = [loss(a, f) - loss(b, f) for f in fits]
    ref = nested_statistics(plans, k, fits, diff)
    assert r.estimate == pytest.approx(ref["estimate"], rel=1e-12, abs=1e-15)
    assert r.details["standard_error"] == pytest.approx(ref["standard_error"], rel=1e-12)
    z = stats.norm.ppf(0.975)
    lo, hi = (
        ref["estimate"] - z * ref["standard_error"],
        ref["estimate"] + z * ref["standard_error"],
    )
    assert r.confidence_interval == pytest.approx((lo, hi), rel=1e-12)
    assert r.pvalue == pytest.approx(2 * stats.norm.sf(abs(r.statistic)), rel=1e-12)
    assert r.method == "nested-cv"
    assert r.details["target"].endswith(f"two models refit on all {n} samples")
    # the outer folds are the repeated k-fold of method="corrected" with the same rng
    c = mlci.cross_val_compare(a, b, XR, YR, metric="mse", cv=k, n_repeats=reps, rng=4)
    np.testing.assert_array_equal(c.details["scores_a"], r.details["scores_a"])
    assert c.details["n_train"] == r.details["n_train"] == 48
    # its estimate is linear: the difference of the two algorithms' nested estimates
    one = [
        mlci.cross_val_ci(e, XR, YR, metric="mse", method="nested", cv=k, n_repeats=reps, rng=4)
        for e in (a, b)
    ]
    assert r.estimate == pytest.approx(one[0].estimate - one[1].estimate, rel=1e-9)
    # swapped: the estimate and interval change sign, the p-value stays
    s = mlci.cross_val_compare(
        b, a, XR, YR, metric="mse", method="nested", cv=k, n_repeats=reps, rng=4
    )
    assert s.estimate == pytest.approx(-r.estimate, rel=1e-12)
    assert s.confidence_interval == pytest.approx((-hi, -lo), rel=1e-12)
    assert s.pvalue == pytest.approx(r.pvalue, rel=1e-12)
    # an algorithm against itself: no difference, no spread
    same = mlci.cross_val_compare(a, a, XR, YR, metric="mse", method="nested", cv=k, rng=4)
    assert (same.estimate, *same.confidence_interval, same.pvalue) == (0.0, 0.0, 0.0, 1.0)


def test_dataframes_give_the_numpy_result():
    import pandas as pd
    import polars as pl

    ref = mlci.cross_val_ci(GaussianNB(), X, Y, n_repeats=2, rng=0)
    cols = [f"x{j}" for j in range(X.shape[1])]
    for x, y in (
        (pd.DataFrame(X, columns=cols), pd.Series(Y)),
        (pl.DataFrame(dict(zip(cols, X.T, strict=True))), pl.Series(Y)),
        (X.tolist(), Y.tolist()),
    ):
        r = mlci.cross_val_ci(GaussianNB(), x, y, n_repeats=2, rng=0)
        np.testing.assert_array_equal(r.fold_scores, ref.fold_scores)


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
@pytest.mark.parametrize(
    "kw",
    [{"method": "corrected"}, {"method": "nested", "n_repeats": 2}, {"cv": "holdout"}],
)
def test_several_confidence_levels_come_from_the_same_fits(kw, alternative):
    # a list of levels gives one result per level, each equal to the single-level call
    # with the same rng (the fits run once: CVResult.interval re-reads the interval)
    calls = []

    class Counting(LogisticRegression):
        def fit(self, X, y):
            calls.append(1)
            return super().fit(X, y)

    both = mlci.cross_val_ci(
        Counting(), X, Y, rng=1, confidence_level=[0.9, 0.99], alternative=alternative, **kw
    )
    fits = len(calls)
    for r, level in zip(both, [0.9, 0.99], strict=True):
        one = mlci.cross_val_ci(
            LogisticRegression(), X, Y, rng=1, confidence_level=level, alternative=alternative,
            **kw,
        )  # fmt: skip
        assert r.confidence_level == level
        assert tuple(r.confidence_interval) == tuple(one.confidence_interval)
    assert fits == both[0].n_fits
    with pytest.raises(ValueError, match="confidence_level"):
        mlci.cross_val_ci(LogisticRegression(), X, Y, confidence_level=[0.9, 1.2])
