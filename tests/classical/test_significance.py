"""McNemar and the cross-validation t/F tests, checked against references."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mlci import TestResult
from mlci.classical.significance import mcnemar_test, paired_ttest_chunks
from mlci.protocols.cv_tests import (
    compare_estimators,
    corrected_resampled_ttest,
    cv_5x2_ftest,
    cv_5x2_ttest,
    kfold_cv_ttest,
    paired_cv_scores,
)

sm_ct = pytest.importorskip("statsmodels.stats.contingency_tables")
mlx = pytest.importorskip("mlxtend.evaluate")
sklearn = pytest.importorskip("sklearn")

from sklearn.datasets import make_classification  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import accuracy_score  # noqa: E402
from sklearn.model_selection import KFold, train_test_split  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

CAVO = [[59, 6], [16, 80]]


# ----------------------------------------------------------------------------------------
# McNemar
# ----------------------------------------------------------------------------------------
def test_mcnemar_fagerland_cavo():
    # Fagerland, Lydersen & Laake (2017), ch. 8, Cavo et al. (2012) data; values printed by
    # the authors' R package contingencytables (tests/testthat/test-ch8.R):
    # asymptotic P = 0.033006 (Z = -2.132), with CC P = 0.055009 (Z = 1.919),
    # exact conditional P = 0.052479, mid-P = 0.034690.
    asym = mcnemar_test(CAVO, variant="asymptotic")
    assert asym.pvalue == pytest.approx(0.033006, abs=5e-7)
    assert np.sqrt(asym.statistic) == pytest.approx(2.132, abs=5e-4)
    cc = mcnemar_test(CAVO, variant="corrected")
    assert cc.pvalue == pytest.approx(0.055009, abs=5e-7)
    assert np.sqrt(cc.statistic) == pytest.approx(1.919, abs=5e-4)
    assert mcnemar_test(CAVO, variant="exact").pvalue == pytest.approx(0.052479, abs=5e-7)
    assert mcnemar_test(CAVO, variant="mid-p").pvalue == pytest.approx(0.034690, abs=5e-7)
    assert asym.estimate == pytest.approx(-10 / 161)


@pytest.mark.parametrize(
    ("method", "exact", "correction"),
    [("exact", True, False), ("asymptotic", False, False), ("corrected", False, True)],
)
def test_mcnemar_matches_statsmodels(method, exact, correction):
    # Reference: statsmodels.stats.contingency_tables.mcnemar.  (b != c here: statsmodels
    # does not floor |b - c| - 1 at 0 for the corrected statistic.)
    rng = np.random.default_rng(5)
    for _ in range(40):
        t = rng.integers(0, 40, (2, 2))
        if t[0, 1] == t[1, 0]:
            continue
        ref = sm_ct.mcnemar(t, exact=exact, correction=correction)
        ours = mcnemar_test(t, variant=method)
        assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-14)
        if not exact:
            assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)


@pytest.mark.parametrize(
    ("method", "corrected", "exact"),
    [("exact", False, True), ("asymptotic", False, False), ("corrected", True, False)],
)
def test_mcnemar_matches_mlxtend_from_predictions(method, corrected, exact):
    # Reference: mlxtend.evaluate.mcnemar_table + mcnemar (Raschka).
    rng = np.random.default_rng(11)
    y = rng.integers(0, 3, 300)
    pa = np.where(rng.random(300) < 0.8, y, rng.integers(0, 3, 300))
    pb = np.where(rng.random(300) < 0.7, y, rng.integers(0, 3, 300))
    tb = mlx.mcnemar_table(y_target=y, y_model1=pa, y_model2=pb)
    chi2, p = mlx.mcnemar(tb, corrected=corrected, exact=exact)
    ours = mcnemar_test(y_true=y, y_pred_a=pa, y_pred_b=pb, variant=method)
    assert ours.pvalue == pytest.approx(p, rel=1e-9)
    if not exact:
        assert ours.statistic == pytest.approx(chi2, rel=1e-12)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_mcnemar_one_sided_exact_is_binomtest(alternative):
    # Reference: scipy.stats.binomtest on the discordant pairs (b of b + c at 1/2).
    t = [[40, 14], [5, 41]]
    ref = stats.binomtest(14, 19, 0.5, alternative=alternative)
    ours = mcnemar_test(t, variant="exact", alternative=alternative)
    assert ours.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    mid = mcnemar_test(t, variant="mid-p", alternative=alternative)
    assert mid.pvalue == pytest.approx(ref.pvalue - 0.5 * stats.binom.pmf(14, 19, 0.5))


def test_mcnemar_no_discordant_pairs():
    for method in ("exact", "mid-p", "asymptotic", "corrected"):
        r = mcnemar_test([[10, 0], [0, 5]], variant=method)
        assert r.pvalue == 1.0
        assert r.estimate == 0.0
    r = mcnemar_test([[10, 0], [0, 5]], variant="asymptotic", alternative="greater")
    assert r.pvalue == 1.0


def test_mcnemar_result_and_errors():
    r = mcnemar_test(CAVO)
    assert isinstance(r, TestResult)
    assert r.method == "mcnemar-mid-p"
    assert r.details == {"b": 6, "c": 16, "n": 161, "n_discordant": 22, "variant": "mid-p",
                         "n_dropped": 0}  # fmt: skip
    with pytest.raises(ValueError, match="`table` must be a 2×2 table"):
        mcnemar_test([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    with pytest.raises(ValueError, match="`table` must be non-negative"):
        mcnemar_test([[1, -2], [3, 4]])
    with pytest.raises(ValueError, match="`table` must hold whole numbers"):
        mcnemar_test([[1, 2.5], [3, 4]])
    with pytest.raises(ValueError, match="not both"):
        mcnemar_test(CAVO, y_true=[1, 0])
    with pytest.raises(ValueError, match="all of `y_true`, `y_pred_a` and `y_pred_b`"):
        mcnemar_test(y_true=[1, 0], y_pred_a=[1, 1])
    with pytest.raises(ValueError, match="`y_pred_a` has 2 samples but `y_true` has 3"):
        mcnemar_test(y_true=[1, 0, 1], y_pred_a=[1, 1], y_pred_b=[0, 0, 1])
    with pytest.raises(ValueError, match="`variant` must be one of"):
        mcnemar_test(CAVO, variant="chi2")


# ----------------------------------------------------------------------------------------
# t-tests
# ----------------------------------------------------------------------------------------
def test_chunks_is_ttest_rel_on_chunk_means():
    # Reference: scipy.stats.ttest_rel on the chunk means, computed independently.
    rng = np.random.default_rng(2)
    a = (rng.random(1000) < 0.9).astype(float)
    b = (rng.random(1000) < 0.85).astype(float)
    r = paired_ttest_chunks(a, b, n_chunks=8, confidence_level=0.9)
    ma = a.reshape(8, 125).mean(axis=1)
    mb = b.reshape(8, 125).mean(axis=1)
    ref = stats.ttest_rel(ma, mb)
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.pvalue == pytest.approx(ref.pvalue)
    ci = ref.confidence_interval(0.9)
    assert r.confidence_interval.low == pytest.approx(ci.low)
    assert r.confidence_interval.high == pytest.approx(ci.high)
    assert r.df == 7


def test_chunks_shuffle_and_errors():
    a = np.r_[np.ones(50), np.zeros(50)]
    b = np.full(100, 0.5)
    r1 = paired_ttest_chunks(a, b, n_chunks=5, shuffle=True, rng=0)
    r2 = paired_ttest_chunks(a, b, n_chunks=5, shuffle=True, rng=0)
    assert r1.statistic == r2.statistic
    with pytest.raises(ValueError, match="`n_chunks`=20 exceeds the number of samples"):
        paired_ttest_chunks(a[:10], b[:10], n_chunks=20)
    with pytest.raises(ValueError, match="`scores_a` has 1 missing value"):
        paired_ttest_chunks(np.r_[np.nan, a[1:]], b)
    with pytest.raises(ValueError, match="`n_chunks` must be an integer >= 2"):
        paired_ttest_chunks(a, b, n_chunks=1)


def _kfold_scores(X, y, est1, est2, k):
    sa, sb = [], []
    for tr, te in KFold(n_splits=k).split(X):
        sa.append(accuracy_score(y[te], est1.fit(X[tr], y[tr]).predict(X[te])))
        sb.append(accuracy_score(y[te], est2.fit(X[tr], y[tr]).predict(X[te])))
    return np.array(sa), np.array(sb)


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(300, n_features=10, flip_y=0.1, random_state=1)
    return X, y


def test_kfold_matches_mlxtend(data):
    # Reference: mlxtend.evaluate.paired_ttest_kfold_cv (same unshuffled KFold splits).
    X, y = data
    e1, e2 = LogisticRegression(), DecisionTreeClassifier(random_state=0)
    t, p = mlx.paired_ttest_kfold_cv(e1, e2, X, y, cv=10)
    sa, sb = _kfold_scores(X, y, e1, e2, 10)
    r = kfold_cv_ttest(sa, sb)
    assert r.statistic == pytest.approx(t, rel=1e-10)
    assert r.pvalue == pytest.approx(p, rel=1e-10)
    # and scipy's paired t-test on the same table
    assert r.pvalue == pytest.approx(stats.ttest_rel(sa, sb).pvalue, rel=1e-10)


def _five_by_two_like_mlxtend(X, y, est1, est2, seed):
    # The splits of mlxtend's paired_ttest_5x2cv / combined_ftest_5x2cv (v0.23).
    rs = np.random.RandomState(seed)
    sa, sb = np.zeros((5, 2)), np.zeros((5, 2))
    for i in range(5):
        x1, x2, y1, y2 = train_test_split(X, y, test_size=0.5, random_state=rs.randint(0, 32767))
        for j, (xtr, ytr, xte, yte) in enumerate(((x1, y1, x2, y2), (x2, y2, x1, y1))):
            sa[i, j] = accuracy_score(yte, est1.fit(xtr, ytr).predict(xte))
            sb[i, j] = accuracy_score(yte, est2.fit(xtr, ytr).predict(xte))
    return sa, sb


def test_5x2cv_matches_mlxtend(data):
    # Reference: mlxtend.evaluate.paired_ttest_5x2cv and combined_ftest_5x2cv.
    X, y = data
    e1, e2 = LogisticRegression(), DecisionTreeClassifier(random_state=0)
    t, pt = mlx.paired_ttest_5x2cv(e1, e2, X, y, random_seed=7)
    f, pf = mlx.combined_ftest_5x2cv(e1, e2, X, y, random_seed=7)
    sa, sb = _five_by_two_like_mlxtend(X, y, e1, e2, 7)
    rt = cv_5x2_ttest(sa, sb)
    rf = cv_5x2_ftest(sa, sb)
    assert rt.statistic == pytest.approx(t, rel=1e-10)
    assert rt.pvalue == pytest.approx(pt, rel=1e-10)
    assert rf.statistic == pytest.approx(f, rel=1e-10)
    assert rf.pvalue == pytest.approx(pf, rel=1e-10)
    assert rt.df == 5
    assert rf.df == (10, 5)


def test_5x2cv_by_hand():
    # Dietterich (1998), eq. for t~: p_1^(1) / sqrt(1/5 sum s_i^2); Alpaydin (1999) eq. (5).
    d = np.array([[0.02, 0.04], [0.01, -0.01], [0.03, 0.00], [0.02, 0.02], [0.05, 0.01]])
    s2 = np.array([0.0002, 0.0002, 0.00045, 0.0, 0.0008])
    a = 0.5 + d
    b = np.full((5, 2), 0.5)
    rt = cv_5x2_ttest(a, b)
    assert rt.statistic == pytest.approx(0.02 / np.sqrt(s2.mean()))
    rf = cv_5x2_ftest(a, b)
    assert rf.statistic == pytest.approx((d**2).sum() / (2 * s2.sum()))
    assert rf.pvalue == pytest.approx(stats.f.sf(rf.statistic, 10, 5))
    assert cv_5x2_ttest(a, b, alternative="greater").pvalue == pytest.approx(rt.pvalue / 2)


def test_corrected_resampled_matches_sklearn_example_formula():
    # Reference: scikit-learn example "Statistical comparison of models using grid search"
    # (examples/model_selection/plot_grid_search_stats.py): corrected_std =
    # sqrt(var(d, ddof=1) * (1/kr + n_test/n_train)); t = mean(d)/corrected_std, df = kr-1,
    # p = t.sf(|t|, df) * 2 — Nadeau & Bengio (2003), eq. for the corrected resampled t.
    rng = np.random.default_rng(4)
    sa = 0.85 + 0.02 * rng.standard_normal((10, 10))
    sb = sa - 0.005 + 0.01 * rng.standard_normal((10, 10))
    n_train, n_test = 540, 60
    d = (sa - sb).ravel()
    corrected_std = np.sqrt(np.var(d, ddof=1) * (1 / 100 + n_test / n_train))
    t = d.mean() / corrected_std
    p = stats.t.sf(abs(t), 99) * 2
    r = corrected_resampled_ttest(sa, sb, n_train=n_train, n_test=n_test)
    assert r.statistic == pytest.approx(t)
    assert r.pvalue == pytest.approx(p)
    assert r.df == 99
    half = stats.t.ppf(0.975, 99) * corrected_std
    assert r.confidence_interval.high - r.confidence_interval.low == pytest.approx(2 * half)


def test_corrected_is_more_conservative_than_resampled_mlxtend(data):
    # mlxtend.evaluate.paired_ttest_resampled is the *uncorrected* resampled t-test; with
    # the same splits, Nadeau–Bengio's statistic is smaller by
    # sqrt((1/J) / (1/J + n_test/n_train)).
    X, y = data
    e1, e2 = LogisticRegression(), DecisionTreeClassifier(random_state=0)
    t_unc, _ = mlx.paired_ttest_resampled(e1, e2, X, y, num_rounds=15, random_seed=3)
    rs = np.random.RandomState(3)
    sa, sb = [], []
    for _ in range(15):
        xtr, xte, ytr, yte = train_test_split(
            X, y, test_size=0.3, random_state=rs.randint(0, 32767)
        )
        sa.append(accuracy_score(yte, e1.fit(xtr, ytr).predict(xte)))
        sb.append(accuracy_score(yte, e2.fit(xtr, ytr).predict(xte)))
    r = corrected_resampled_ttest(sa, sb, n_train=210, n_test=90)
    assert r.statistic == pytest.approx(t_unc * np.sqrt((1 / 15) / (1 / 15 + 90 / 210)))


def test_tables_bad_input():
    with pytest.raises(ValueError, match="rectangular array"):
        cv_5x2_ftest([[0.1, 0.2], [0.3]], [[0.1, 0.2], [0.3, 0.1]])
    with pytest.raises(ValueError, match=r"shape \(n_repetitions, 2\)"):
        cv_5x2_ttest(np.zeros((5, 3)), np.zeros((5, 3)))
    with pytest.raises(ValueError, match="must have the same shape"):
        kfold_cv_ttest([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(ValueError, match="at least 2 paired scores"):
        kfold_cv_ttest([0.1], [0.2])
    with pytest.raises(ValueError, match="`scores_b` has 1 missing value"):
        kfold_cv_ttest([0.1, 0.2], [0.2, np.nan])
    with pytest.raises(TypeError, match="`n_train` must be an integer"):
        corrected_resampled_ttest([0.1, 0.2], [0.2, 0.1], n_train=0.9, n_test=10)


def test_degenerate_constant_differences():
    r = kfold_cv_ttest([0.8, 0.8, 0.8], [0.8, 0.8, 0.8])
    assert r.statistic == 0.0
    assert r.pvalue == 1.0
    r = kfold_cv_ttest([0.9, 0.9, 0.9], [0.8, 0.8, 0.8])
    assert r.statistic == np.inf
    assert r.pvalue == 0.0


def test_sklearn_convenience(data):
    X, y = data
    e1, e2 = LogisticRegression(), DecisionTreeClassifier(random_state=0)
    s = paired_cv_scores(e1, e2, X, y, variant="kfold", n_splits=5, rng=0)
    assert s["scores_a"].shape == (5,)
    assert s["n_train"] + s["n_test"] == 300
    r = compare_estimators(e1, e2, X, y, variant="kfold-t", rng=0, n_splits=5)
    assert r.statistic == pytest.approx(kfold_cv_ttest(s["scores_a"], s["scores_b"]).statistic)
    r = compare_estimators(e1, e2, X, y, variant="corrected-resampled-t", rng=0,
                           n_splits=5, n_repeats=2)  # fmt: skip
    assert r.df == 9
    r = compare_estimators(e1, e2, X, y, variant="5x2cv-t", rng=0)
    assert r.details["scores_a"].shape == (5, 2)
    s = paired_cv_scores(e1, e2, X, y, variant="resampled", n_repeats=4, rng=0)
    assert s["n_test"] == 90
    with pytest.raises(ValueError, match="`variant` must be one of"):
        compare_estimators(e1, e2, X, y, variant="wilcoxon")


# ----------------------------------------------------------------------------------------
# issue 8: the input gate and the vocabulary
# ----------------------------------------------------------------------------------------
def test_mcnemar_labels_and_string_predictions_refused():
    # Before: 0/1 labels against "0"/"1" predictions never compared equal, so both
    # systems were "always wrong" and the test silently returned p = 1.
    y = np.array([0, 1] * 10)
    with pytest.raises(TypeError, match=r"`y_true` holds numbers .* `y_pred_a` holds strings"):
        mcnemar_test(y_true=y, y_pred_a=y.astype(str), y_pred_b=y)
    mixed = y.astype(object)
    mixed[0] = "a"
    with pytest.raises(TypeError, match="`y_pred_b` mixes strings and numbers"):
        mcnemar_test(y_true=y, y_pred_a=y, y_pred_b=mixed)
    with pytest.raises(ValueError, match="`y_true` and `y_pred_b` share no value"):
        mcnemar_test(y_true=y, y_pred_a=y, y_pred_b=y + 5)


def test_mcnemar_missing_labels():
    # Before: a NaN label counted as a sample both systems got wrong.
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 200)
    pa = np.where(rng.random(200) < 0.8, y, (y + 1) % 3)
    pb = np.where(rng.random(200) < 0.7, y, (y + 1) % 3)
    yo = y.astype(object)
    yo[[10, 20]] = np.nan
    with pytest.raises(ValueError, match=r"`y_true` has 2 missing value.*rows 10, 20"):
        mcnemar_test(y_true=yo, y_pred_a=pa, y_pred_b=pb)
    r = mcnemar_test(y_true=yo, y_pred_a=pa, y_pred_b=pb, dropna=True)
    keep = ~np.isin(np.arange(200), [10, 20])
    ref = mcnemar_test(y_true=y[keep], y_pred_a=pa[keep], y_pred_b=pb[keep])
    assert r.details["n_dropped"] == 2
    assert r.details["n"] == 198
    assert r.pvalue == ref.pvalue


def test_mcnemar_variant_renamed():
    r = mcnemar_test(CAVO, variant="exact")
    assert r.method == "mcnemar-exact"
    assert r.details["variant"] == "exact"
    with pytest.raises(TypeError, match="method"):
        mcnemar_test(CAVO, method="exact")


def test_chunks_shuffle_draws_from_the_chunks_stream():
    # The shuffle is the permutation of the one stream table's CHUNKS stream.
    from mlci.engine.sampler import Stream, block_generator

    rng = np.random.default_rng(5)
    a = (rng.random(300) < 0.8).astype(float)
    b = (rng.random(300) < 0.75).astype(float)
    for seed in (0, np.random.SeedSequence(12)):
        ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        perm = block_generator(ss, Stream.CHUNKS, 0).permutation(300)
        expected = paired_ttest_chunks(a[perm], b[perm], n_chunks=6)
        r = paired_ttest_chunks(a, b, n_chunks=6, shuffle=True, rng=seed)
        assert r.statistic == expected.statistic
    # a Generator is accepted too (it seeds the stream)
    r = paired_ttest_chunks(a, b, n_chunks=6, shuffle=True, rng=np.random.default_rng(1))
    assert r.df == 5
    with pytest.raises(TypeError, match="`shuffle` must be True or False"):
        paired_ttest_chunks(a, b, shuffle="yes")


def test_chunks_dropna():
    a = np.r_[np.ones(50), np.zeros(50)]
    b = np.full(100, 0.5)
    ao = a.astype(object)
    ao[7] = None
    r = paired_ttest_chunks(ao, b, n_chunks=3, dropna=True)
    ref = paired_ttest_chunks(np.delete(a, 7), np.delete(b, 7), n_chunks=3)
    assert r.details["n_dropped"] == 1
    assert r.statistic == ref.statistic


def test_score_tables_missing_entries():
    # Before: pandas NA in a fold table gave numpy's conversion error; None became a NaN.
    pd = pytest.importorskip("pandas")
    a = pd.Series([0.81, 0.83, pd.NA, 0.85], dtype="Float64")
    with pytest.raises(ValueError, match=r"`scores_a` has 1 missing value.*row 2.*fold scores"):
        kfold_cv_ttest(a, [0.8, 0.8, 0.8, 0.8])
    with pytest.raises(ValueError, match=r"`scores_b` has 1 missing value.*row 4"):
        cv_5x2_ftest(np.ones((5, 2)), [[1, 1]] * 4 + [[None, 1]])


def test_sklearn_rng(data):
    # `rng` (renamed from random_state) seeds the splits reproducibly: an int, a
    # SeedSequence or a Generator; the integer given to scikit-learn is reported.
    from mlci.engine.sampler import Stream, block_generator

    X, y = data
    e1, e2 = LogisticRegression(), DecisionTreeClassifier(random_state=0)
    s1 = paired_cv_scores(e1, e2, X, y, variant="kfold", n_splits=3, rng=7)
    s2 = paired_cv_scores(e1, e2, X, y, variant="kfold", n_splits=3,
                          rng=np.random.SeedSequence(7))  # fmt: skip
    np.testing.assert_array_equal(s1["scores_a"], s2["scores_a"])
    seed = np.random.SeedSequence(7)
    assert s1["random_state"] == block_generator(seed, Stream.CV_SPLITS, 0).integers(0, 2**31 - 1)
    s3 = paired_cv_scores(e1, e2, X, y, variant="kfold", n_splits=3, rng=np.random.default_rng(7))
    assert s3["scores_a"].shape == (3,)
    with pytest.raises(TypeError, match="random_state"):
        compare_estimators(e1, e2, X, y, random_state=0)
