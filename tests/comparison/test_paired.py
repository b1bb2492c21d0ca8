"""Tests of mlci.compare (paired bootstrap of several systems) and mlci.permutation_test."""

from __future__ import annotations

import itertools
import json
import os
import pathlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score

import mlci
from mlci.comparison.common import JointAtoms
from mlci.comparison.paired import compare
from mlci.comparison.permutation import permutation_test
from mlci.exceptions import InvalidReplicatesWarning
from mlci.metrics import get_kernel
from mlci.results import IntervalResult

SCALE = float(os.environ["MLCI_SLOW_SCALE"])


def _systems(n=400, accs=(0.85, 0.75), seed=0, corr=0.0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    base = rng.random(n)
    out = {}
    for i, acc in enumerate(accs):
        u = np.where(rng.random(n) < corr, base, rng.random(n))
        out[chr(65 + i)] = np.where(u < acc, y, 1 - y)
    return y, out


def _difference_range(metric, y, pred):
    lo, hi = get_kernel(metric, (y, pred), {}).bounds
    return lo - hi, hi - lo


def _mann_whitney_auc(y, s):
    r = stats.rankdata(s)
    n1 = int(np.sum(y == 1))
    return (r[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * (len(y) - n1))


def _accuracy(y, p):  # a user function, faster than scikit-learn's accuracy_score
    return float(np.mean(y == p))


# ----------------------------------------------------------------------------- joint atoms
@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(5, 60),
    k=st.integers(2, 4),
    n_sys=st.integers(1, 4),
    b=st.integers(1, 5),
    seed=st.integers(0, 10_000),
)
def test_joint_atoms_aggregate_to_each_kernels_counts(n, k, n_sys, b, seed):
    # property: for any sample-level counts, summing joint-atom counts into a system's
    # atoms gives exactly that system's atom counts (the pairing is exact)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)

    def outputs() -> np.ndarray:
        p = rng.integers(0, k, n)
        p[0] = y[0]  # labels and decisions share a value (the input gate refuses them else)
        return p

    kernels = [get_kernel("accuracy", (y, outputs()), {}) for _ in range(n_sys)]
    joint = JointAtoms(kernels)
    w = rng.integers(0, 4, size=(b, n)).astype(float)
    wj = np.zeros((b, joint.m))
    for r in range(b):
        wj[r] = np.bincount(joint.keys, weights=w[r], minlength=joint.m)
    for kern, part in zip(kernels, joint.parts, strict=True):
        want = np.stack([np.bincount(kern.keys, weights=w[r], minlength=kern.m) for r in range(b)])
        np.testing.assert_allclose(part(wj), want)


def test_joint_atoms_bounded_for_ten_binary_systems():
    y, sy = _systems(n=5000, accs=tuple(0.6 + 0.03 * i for i in range(10)))
    kernels = [get_kernel("accuracy", (y, p), {}) for p in sy.values()]
    assert JointAtoms(kernels).m <= 2**11


# ----------------------------------------------------------------------------- compare
def test_estimates_match_sklearn_and_difference_is_a_minus_b():
    y, sy = _systems(n=300, accs=(0.85, 0.75, 0.8))
    res = compare(y, sy, metric="accuracy", rng=0, n_resamples=200)
    for name, p in sy.items():
        assert res.systems[name].estimate == pytest.approx(accuracy_score(y, p))
    d = res.difference("A", "B")
    assert d.estimate == pytest.approx(accuracy_score(y, sy["A"]) - accuracy_score(y, sy["B"]))
    rev = res.difference("B", "A")
    assert rev.estimate == pytest.approx(-d.estimate)
    assert rev.confidence_interval.low == pytest.approx(-d.confidence_interval.high)
    assert len(res.differences) == 3


def test_paired_difference_equals_bootstrap_of_difference_function():
    # Independent route through the engine: bootstrap_ci of the function
    # acc(y, a) - acc(y, b) with per-sample index draws.  compare() with a callable
    # metric uses one atom per sample, so both see the SAME replicates: identical results.
    y, sy = _systems(n=150)

    def diff(y_true, a, b):
        return accuracy_score(y_true, a) - accuracy_score(y_true, b)

    ref = mlci.bootstrap_ci(
        y, sy["A"], sy["B"], metric=diff, rng=3, n_resamples=300, method="percentile"
    )
    res = compare(y, sy, metric=accuracy_score, rng=3, n_resamples=300, method="percentile")
    d = res.difference("A", "B")
    assert d.confidence_interval.low == pytest.approx(ref.confidence_interval.low)
    assert d.confidence_interval.high == pytest.approx(ref.confidence_interval.high)


def test_builtin_roc_auc_sees_same_replicates_as_callable():
    # continuous scores: every sample is its own joint atom, so the built-in ROC kernels and
    # sklearn's roc_auc_score (with sample_weight) are evaluated on identical replicates
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 120)
    sa = y + rng.normal(0, 1.0, 120)
    sb = y + rng.normal(0, 1.3, 120)
    r1 = compare(
        y, {"a": sa, "b": sb}, metric="roc_auc", rng=1, n_resamples=100, method="percentile"
    )
    # the built-in kernels draw through the samples in order of system a's score (then
    # b's), whatever the rows' order (issue 20); a user function through the rows as
    # given: the same draws when the rows are given in that order
    o = np.lexsort((sb, y, sa))
    r2 = compare(
        y[o],
        {"a": sa[o], "b": sb[o]},
        metric=roc_auc_score,
        rng=1,
        n_resamples=100,
        method="percentile",
    )
    np.testing.assert_allclose(
        r1.systems["a"].bootstrap_distribution, r2.systems["a"].bootstrap_distribution
    )
    assert r1.systems["b"].estimate == pytest.approx(roc_auc_score(y, sb))
    assert r1.difference("a", "b").pvalue == pytest.approx(r2.difference("a", "b").pvalue)


def test_paired_interval_narrower_than_unpaired_for_correlated_systems():
    y, sy = _systems(n=500, accs=(0.82, 0.8), corr=0.9, seed=2)
    res = compare(y, sy, metric="accuracy", rng=0, n_resamples=500)
    se_a, se_b = res.systems["A"].standard_error, res.systems["B"].standard_error
    d = res.difference("A", "B")
    assert d.standard_error < 0.6 * np.hypot(se_a, se_b)


def test_system_intervals_agree_with_bootstrap_ci():
    y, sy = _systems(n=400, seed=4)
    res = compare(y, sy, metric="accuracy", rng=0, n_resamples=2000, method="percentile")
    ref = mlci.bootstrap_ci(
        y, sy["A"], metric="accuracy", rng=1, n_resamples=2000, method="percentile"
    )
    assert res.systems["A"].confidence_interval.low == pytest.approx(
        ref.confidence_interval.low, abs=0.01
    )
    assert res.systems["A"].standard_error == pytest.approx(ref.standard_error, rel=0.1)


def test_reference_mode_and_frames():
    y, sy = _systems(n=300, accs=(0.85, 0.75, 0.8))
    res = compare(y, sy, metric="error_rate", reference="B", rng=0, n_resamples=200)
    assert [(d.a, d.b) for d in res.differences] == [("A", "B"), ("C", "B")]
    assert res.ranking is None
    assert res.higher_is_better is False
    df = res.to_frame()
    assert list(df["a"]) == ["A", "C"]
    assert set(res.to_frame("systems").index) == {"A", "B", "C"}
    assert repr(res).startswith("ComparisonResult(metric='error_rate', 3 systems")
    assert "\n" not in repr(res) and "A - B" in str(res)  # print(res): the table
    d = res.to_dict()
    assert d["differences"][0]["a"] == "A"


def test_conditions_strata_and_per_sample_losses():
    rng = np.random.default_rng(3)
    n = 300
    spk = rng.integers(0, 30, n)
    la = rng.gamma(2.0, 1.0, n)
    lb = la + rng.normal(0.2, 0.5, n)
    res = compare(None, {"a": la, "b": lb}, metric="mean", conditions=spk, rng=0, n_resamples=300)
    assert res.scheme == "conditions"
    assert res.n_conditions == 30
    assert res.difference("a", "b").estimate == pytest.approx(la.mean() - lb.mean())
    y, sy = _systems(n=200)
    res2 = compare(y, sy, metric="f1", strata=y, rng=0, n_resamples=200)
    assert res2.systems["A"].estimate == pytest.approx(f1_score(y, sy["A"]))


def test_nested_conditions_like_bootstrap_ci():
    # Defect fixed: compare refused nested conditions (a list of levels, issue 3 sec. 3)
    # that bootstrap_ci accepts; both must see the same top-level draws
    y, sy = _systems(n=240, seed=10)
    spk = np.repeat(np.arange(20), 12)
    ses = np.tile(np.repeat(np.arange(3), 4), 20)
    res = compare(
        y, sy, metric="accuracy", conditions=[spk, ses], rng=0, n_resamples=300, method="percentile"
    )
    ref = mlci.bootstrap_ci(
        y,
        sy["A"],
        metric="accuracy",
        conditions=[spk, ses],
        rng=0,
        n_resamples=300,
        method="percentile",
    )
    assert res.scheme == ref.scheme == "nested(2 levels; resampled: 1)"
    assert res.n_conditions == 20
    np.testing.assert_allclose(
        res.systems["A"].bootstrap_distribution, ref.bootstrap_distribution, atol=1e-12
    )
    with pytest.raises(ValueError, match="Nested `conditions`"):
        compare(y, sy, metric="accuracy", conditions=[spk, ses], strata=y)


def test_ranking_groups_systems():
    y, sy = _systems(n=2000, accs=(0.95, 0.7, 0.7, 0.5), seed=7)
    sy["C"] = sy["B"].copy()  # identical to B
    # no discordant sample: under "auto" the B - C accuracy difference gets Tango's
    # interval of the table [[n11, 0], [0, n22]], not [0, 0], and no warning
    # (filterwarnings=error); a bootstrap method gives [0, 0], warned about (design #51)
    res = compare(y, sy, metric="accuracy", rng=0, n_resamples=500)
    assert res.details["no_spread_pairs"] == ["B - C"]
    assert "no_spread_warning" not in res.details
    d = res.difference("B", "C")
    assert d.method == "tango" and d.pvalue == 1.0
    assert d.confidence_interval.low < 0 < d.confidence_interval.high
    with pytest.warns(mlci.DegenerateIntervalWarning, match="B - C of 'accuracy' have no"):
        res = compare(y, sy, metric="accuracy", rng=0, n_resamples=500, method="bca")
    assert res.details["no_spread_pairs"] == ["B - C"]
    assert "no discordant sample" in res.details["no_spread_warning"]
    ranks = {e.system: e.rank for e in res.ranking}
    assert ranks == {"A": 1, "B": 2, "C": 2, "D": 4}
    entry = next(e for e in res.ranking if e.system == "B")
    assert entry.tied_with == ("C",)


def test_maxt_simultaneous_intervals_wider_and_pvalues():
    y, sy = _systems(n=400, accs=(0.8, 0.78, 0.76, 0.74, 0.72), seed=8)
    res = compare(
        y, sy, metric="accuracy", rng=0, n_resamples=1000, correction="maxt", method="normal"
    )
    assert res.simultaneous_critical_value > stats.norm.ppf(0.975)
    for d in res.differences:
        assert d.simultaneous_interval.low <= d.confidence_interval.low + 1e-12
        assert d.pvalue_adjusted >= d.pvalue - 1e-12
    res_b = compare(y, sy, metric="accuracy", rng=0, n_resamples=1000, correction="bonferroni")
    for d in res_b.differences:
        assert d.pvalue_adjusted == pytest.approx(min(1.0, 10 * d.pvalue))


def test_maxt_one_sided_uses_signed_max_t():
    # Defect fixed: correction="maxt" used the two-sided max-|t| whatever `alternative`,
    # so a one-sided "adjusted" p could be below the unadjusted one.  With a single pair
    # the single-step max-t adjustment is no adjustment: p_adj == p for every alternative
    # (the studentised shift test and the shifted-bootstrap test count the same replicates).
    y, sy = _systems(n=200, accs=(0.8, 0.7), seed=0)
    for alt in ("two-sided", "greater", "less"):
        res = compare(
            y,
            sy,
            metric="accuracy",
            method="bca",
            rng=0,
            n_resamples=999,
            correction="maxt",
            alternative=alt,
        )
        d = res.difference("A", "B")
        assert d.pvalue_adjusted == pytest.approx(d.pvalue), alt
    # several pairs: adjusted >= unadjusted; the one-sided bound is a one-sided max-t
    # quantile (Westfall & Young 1993): computed here by hand from the distribution
    y, sy = _systems(n=400, accs=(0.8, 0.78, 0.76, 0.74), seed=8)
    res = compare(
        y,
        sy,
        metric="accuracy",
        method="bca",
        rng=0,
        n_resamples=1000,
        correction="maxt",
        alternative="greater",
    )
    dist = np.column_stack([res.systems[k].bootstrap_distribution for k in sy])
    pairs = list(itertools.combinations(range(4), 2))
    dd = np.column_stack([dist[:, i] - dist[:, j] for i, j in pairs])
    dh = np.array([d.estimate for d in res.differences])
    se = dd.std(axis=0, ddof=1)
    c = np.quantile(((dd - dh) / se).max(axis=1), 0.95)
    assert res.simultaneous_critical_value == pytest.approx(c, rel=0.02)
    for d in res.differences:
        assert d.pvalue_adjusted >= d.pvalue - 1e-12
        # one-sided: the open end is the edge of the difference's range
        assert d.simultaneous_interval.high == _difference_range("accuracy", y, sy["A"])[1]
        assert d.simultaneous_interval.low == pytest.approx(
            d.estimate - c * d.standard_error, abs=1e-3
        )


def test_bca_of_difference_uses_jackknife_of_the_difference():
    # Independent check of BCa for a paired difference: delete-one-condition jackknife of
    # acc(A) - acc(B) computed by hand (Efron & Tibshirani 1993, eq. 14.15), fed to the
    # interval formula with compare's own bootstrap distribution, gives compare's interval.
    from mlci.intervals.bootstrap import bootstrap_interval

    y, sy = _systems(n=240, accs=(0.8, 0.72), seed=9, corr=0.3)
    spk = np.repeat(np.arange(40), 6)
    res = compare(y, sy, metric="accuracy", method="bca", conditions=spk, rng=2, n_resamples=500)
    d = res.difference("A", "B")
    jack = np.array(
        [
            accuracy_score(y[spk != s], sy["A"][spk != s])
            - accuracy_score(y[spk != s], sy["B"][spk != s])
            for s in range(40)
        ]
    )
    u = jack.mean() - jack
    a = np.sum(u**3) / (6 * np.sum(u**2) ** 1.5)
    dd = res.systems["A"].bootstrap_distribution - res.systems["B"].bootstrap_distribution
    low, high, _ = bootstrap_interval(d.estimate, dd, method="bca", confidence_level=0.95, accel=a)
    assert d.confidence_interval.low == pytest.approx(float(low), abs=1e-12)
    assert d.confidence_interval.high == pytest.approx(float(high), abs=1e-12)
    # and it is not the systems' own acceleration
    assert res.systems["A"].details["acceleration"] != pytest.approx(a)


def test_reproducible_and_independent_of_batch():
    y, sy = _systems(n=300)
    with mlci.config_context(batch=7, n_jobs=2):
        r1 = compare(y, sy, metric="accuracy", rng=11, n_resamples=300)
    r2 = compare(y, sy, metric="accuracy", rng=11, n_resamples=300)
    np.testing.assert_array_equal(
        r1.systems["A"].bootstrap_distribution, r2.systems["A"].bootstrap_distribution
    )


def test_pvalues_agree_with_permutation_test():
    # two p-values for the same null built in different ways (shifted bootstrap vs
    # randomisation) agree closely on paired data
    for seed, accs in [(0, (0.8, 0.78)), (1, (0.8, 0.76)), (2, (0.8, 0.8)), (3, (0.75, 0.7))]:
        y, sy = _systems(n=400, accs=accs, seed=seed, corr=0.5)
        pb = compare(y, sy, metric="accuracy", rng=0, n_resamples=4000).difference("A", "B")
        pp = permutation_test(y, sy["A"], sy["B"], metric="accuracy", rng=0, n_resamples=4000)
        assert abs(pb.pvalue - pp.pvalue) < 0.06 + 0.25 * pp.pvalue, (seed, pb.pvalue, pp.pvalue)


# ----------------------------------------------------------------------------- permutation
def test_permutation_test_matches_exact_enumeration():
    # tiny data: enumerate all 2^n swaps exactly (independent reference)
    rng = np.random.default_rng(0)
    n = 10
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.9, y, 1 - y)
    b = np.where(rng.random(n) < 0.4, y, 1 - y)
    d_obs = _accuracy(y, a) - _accuracy(y, b)
    null = []
    for mask in itertools.product([False, True], repeat=n):
        m = np.array(mask)
        null.append(_accuracy(y, np.where(m, b, a)) - _accuracy(y, np.where(m, a, b)))
    p_exact = np.mean(np.abs(null) >= abs(d_obs) - 1e-12)
    res = permutation_test(y, a, b, metric="accuracy", rng=1, n_resamples=20000)
    assert res.pvalue == pytest.approx(p_exact, abs=0.01)
    assert res.statistic == pytest.approx(d_obs)


def test_permutation_test_matches_mlxtend():
    # mlxtend.evaluate.permutation_test (paired, approximate) on the per-sample correctness
    # indicators tests the same null for accuracy
    from mlxtend.evaluate import permutation_test as mlx_perm

    y, sy = _systems(n=200, accs=(0.8, 0.72), seed=3)
    ca, cb = (sy["A"] == y).astype(float), (sy["B"] == y).astype(float)
    p_ref = mlx_perm(
        ca,
        cb,
        paired=True,
        method="approximate",
        num_rounds=5000,
        seed=0,
        func=lambda x, z: abs(np.mean(x) - np.mean(z)),
    )
    res = permutation_test(y, sy["A"], sy["B"], metric="accuracy", rng=0, n_resamples=5000)
    assert res.pvalue == pytest.approx(p_ref, abs=0.02)


def test_permutation_vectorised_equals_loop_in_distribution_and_alternatives():
    rng = np.random.default_rng(4)
    n = 300
    y = rng.integers(0, 2, n)
    sa = y + rng.normal(0, 1.0, n)
    sb = y + rng.normal(0, 1.15, n)
    fast = permutation_test(y, sa, sb, metric="roc_auc", rng=0, n_resamples=3000)
    # the per-replicate path with the Mann-Whitney form of the AUC (scikit-learn's
    # roc_auc_score on the data, 100x faster per call than it)
    assert _mann_whitney_auc(y, sa) == pytest.approx(roc_auc_score(y, sa))
    slow = permutation_test(y, sa, sb, metric=_mann_whitney_auc, rng=0, n_resamples=3000)
    assert fast.statistic == pytest.approx(slow.statistic)
    assert fast.pvalue == pytest.approx(slow.pvalue, abs=0.03)
    g = permutation_test(
        y, sa, sb, metric="roc_auc", rng=0, n_resamples=3000, alternative="greater"
    )
    lo = permutation_test(y, sa, sb, metric="roc_auc", rng=0, n_resamples=3000, alternative="less")
    assert g.pvalue + lo.pvalue == pytest.approx(1.0, abs=0.02)


def test_permutation_per_condition_and_fallback():
    rng = np.random.default_rng(6)
    n = 400
    cond = rng.integers(0, 20, n)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.8, y, (y + 1) % 3)
    b = np.where(rng.random(n) < 0.75, y, (y + 2) % 3)
    r1 = permutation_test(y, a, b, metric="accuracy", conditions=cond, rng=0, n_resamples=2000)
    r2 = permutation_test(y, a, b, metric=_accuracy, conditions=cond, rng=0, n_resamples=2000)
    assert r1.details["swap_unit"] == "condition"
    assert r1.pvalue == pytest.approx(r2.pvalue, abs=0.04)
    # macro-F1 where class 3 is only predicted by b: the union kernel would differ, so the
    # exact per-replicate path is used; it must agree with scikit-learn's definition
    b3 = b.copy()
    b3[:5] = 3

    def f1m(t, p):
        return f1_score(t, p, average="macro", labels=np.unique(np.concatenate([t, p])))

    rb = permutation_test(y, a, b3, metric="f1", average="macro", rng=0, n_resamples=300)
    assert rb.statistic == pytest.approx(f1m(y, a) - f1m(y, b3))


# ----------------------------------------------------------------------------- slow studies
@pytest.mark.slow
def test_pvalues_uniform_under_null():
    # Two exchangeable systems (same accuracy, correlated errors): p-values ~ U(0, 1).
    n_sim = max(40, int(400 * SCALE))
    rng = np.random.default_rng(123)
    ps = []
    for s in range(n_sim):
        n = 200
        y = rng.integers(0, 2, n)
        base = rng.random(n)
        ua = np.where(rng.random(n) < 0.5, base, rng.random(n))
        ub = np.where(rng.random(n) < 0.5, base, rng.random(n))
        sy = {"A": np.where(ua < 0.8, y, 1 - y), "B": np.where(ub < 0.8, y, 1 - y)}
        res = compare(y, sy, metric="accuracy", rng=s, n_resamples=499, method="percentile")
        ps.append(res.differences[0].pvalue)
    ps = np.array(ps)
    # discreteness of accuracy differences makes p slightly conservative; check the size
    # at 5% and 20% against binomial limits and a KS distance
    for level in (0.05, 0.2):
        k = int(np.sum(ps <= level))
        assert stats.binomtest(k, n_sim, level, alternative="greater").pvalue > 0.001
    # KS distance: 0.15, or the 1% critical value when the run is scaled down
    assert stats.kstest(ps, "uniform").statistic < max(0.15, 1.63 / np.sqrt(n_sim))


@pytest.mark.slow
def test_coverage_of_paired_difference_interval():
    # Population: per-sample correctness of A and B drawn from a joint law with known
    # marginals 0.82 and 0.78 -> true difference 0.04.
    n_sim = max(40, int(400 * SCALE))
    rng = np.random.default_rng(7)
    p11, p10, p01 = 0.70, 0.12, 0.08  # P(both right), P(A only), P(B only)
    true = (p11 + p10) - (p11 + p01)
    hits = 0
    for s in range(n_sim):
        n = 300
        u = rng.random(n)
        ca = (u < p11 + p10).astype(int)
        cb = ((u < p11) | ((u >= p11 + p10) & (u < p11 + p10 + p01))).astype(int)
        y = rng.integers(0, 2, n)
        sy = {"A": np.where(ca == 1, y, 1 - y), "B": np.where(cb == 1, y, 1 - y)}
        d = compare(y, sy, metric="accuracy", rng=s, n_resamples=499).difference("A", "B")
        hits += d.confidence_interval.low <= true <= d.confidence_interval.high
    res = stats.binomtest(hits, n_sim, 0.95)
    assert res.pvalue > 0.001, hits / n_sim


# ----------------------------------------------------------------------------- results
def test_pair_difference_is_an_interval_result_with_pvalues():
    y, sy = _systems(n=300, accs=(0.85, 0.75, 0.8))
    res = compare(y, sy, metric="accuracy", rng=0, n_resamples=300, method="percentile")
    d = res.difference("A", "B")
    assert isinstance(d, IntervalResult) and isinstance(d, mlci.PairDifference)
    assert (d.a, d.b, d.metric, d.method, d.alternative) == (
        "A",
        "B",
        "accuracy",
        "percentile",
        "two-sided",
    )
    assert d.confidence_level == 0.95 and d.details["n_invalid"] == 0
    assert repr(d).startswith("PairDifference('A' - 'B', metric='accuracy', estimate=")
    assert "pvalue_adjusted=" in repr(d)
    plain = d.to_dict()
    assert plain["a"] == "A" and plain["confidence_interval"]["low"] == d.confidence_interval.low
    json.dumps(plain, allow_nan=False)  # strict JSON
    json.dumps(res.to_dict(), allow_nan=False)
    row = d.to_frame()
    assert len(row) == 1 and row.loc[0, "pvalue"] == d.pvalue
    frame = res.to_frame()
    assert list(frame.columns) == list(row.columns) and len(frame) == 3
    assert frame.loc[0, "estimate"] == d.estimate
    # the reversed pair: negated estimate and interval, same p-values
    r = res.difference("B", "A")
    assert (r.a, r.b, r.estimate, r.pvalue) == ("B", "A", -d.estimate, d.pvalue)
    assert r.confidence_interval == (-d.confidence_interval.high, -d.confidence_interval.low)
    one = compare(y, sy, metric="accuracy", rng=0, n_resamples=300, alternative="greater")
    assert one.difference("B", "A").alternative == "less"
    assert "greater" in repr(one) and one.to_dict()["alternative"] == "greater"


def test_system_interval_is_the_engines_bootstrap_ci_interval():
    # compare finishes each system with the engine's finish step: with conditions (the
    # replicates are condition draws, the same whatever the atoms) and BCa (the same
    # delete-one-condition jackknife), a system's interval is bootstrap_ci's exactly
    y, sy = _systems(n=300, accs=(0.8, 0.7), seed=12)
    spk = np.arange(300) % 30
    res = compare(y, sy, metric="accuracy", method="bca", conditions=spk, rng=4, n_resamples=400)
    ref = mlci.bootstrap_ci(
        y, sy["B"], metric="accuracy", method="bca", conditions=spk, rng=4, n_resamples=400
    )
    got = res.systems["B"]
    np.testing.assert_allclose(got.bootstrap_distribution, ref.bootstrap_distribution)
    assert got.confidence_interval == pytest.approx(ref.confidence_interval, abs=1e-12)
    assert got.details["acceleration"] == pytest.approx(ref.details["acceleration"])
    assert got.standard_error == pytest.approx(ref.standard_error)


def test_undefined_replicates_warned_with_the_systems_and_counted_per_pair():
    # roc_auc with 3 positives among 40: about (37/40)^40 = 4% of replicates have none
    rng = np.random.default_rng(2)
    y = np.zeros(40, dtype=int)
    y[[3, 17, 30]] = 1
    sy = {"A": y + rng.normal(0, 0.8, 40), "B": y + rng.normal(0, 1.2, 40)}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = compare(y, sy, metric="roc_auc", rng=1, n_resamples=500, method="percentile")
    msgs = [str(w.message) for w in caught if issubclass(w.category, InvalidReplicatesWarning)]
    # one warning for the systems undefined on the same replicates, naming them
    assert len(msgs) == 1 and msgs[0].endswith("Systems: 'A', 'B'.")
    n_bad = int(np.isnan(res.systems["A"].bootstrap_distribution).sum())
    assert n_bad > 5 and res.systems["A"].n_invalid == n_bad == res.n_invalid
    assert res.difference("A", "B").details["n_invalid"] == n_bad


def test_one_sided_difference_ends_at_the_range_of_the_difference():
    y, sy = _systems(n=300, accs=(0.85, 0.75))
    lo, hi = _difference_range("accuracy", y, sy["A"])
    g = compare(y, sy, metric="accuracy", rng=0, n_resamples=300, alternative="greater")
    d = g.difference("A", "B")
    assert d.confidence_interval.high == hi and d.confidence_interval.low > 0
    le = compare(y, sy, metric="accuracy", rng=0, n_resamples=300, alternative="less")
    assert le.difference("A", "B").confidence_interval.low == lo


def test_object_labels_with_nan_refused_or_dropped():
    # the issue: np.unique on object labels with a NaN gave duplicate classes and an
    # accuracy of 0.79 instead of 0.995; now an error naming y_true, or dropped on request
    y = np.array([0, 1] * 100, dtype=object)
    y[5] = np.nan
    pred = np.array([0, 1] * 100)
    other = np.where(np.arange(200) < 20, 1 - pred, pred)
    with pytest.raises(ValueError, match="`y_true` has 1 missing value"):
        compare(y, {"A": pred, "B": other}, metric="accuracy")
    res = compare(y, {"A": pred, "B": other}, metric="accuracy", dropna=True, n_resamples=200)
    keep = np.arange(200) != 5
    want = accuracy_score(y[keep].astype(int), other[keep])  # scikit-learn on the rest
    assert res.systems["B"].estimate == pytest.approx(want)
    assert res.details["n_dropped"] == 1 and res.n_samples == 199


def test_weighted_mean_takes_its_weights_as_y_true():
    # WER of two systems: per-utterance error rates weighted by word counts
    rng = np.random.default_rng(3)
    words = rng.integers(3, 30, 200)
    wa, wb = rng.beta(2, 8, 200), rng.beta(2, 7, 200)
    res = compare(words, {"A": wa, "B": wb}, metric="weighted_mean", rng=0, n_resamples=200)
    assert res.systems["A"].estimate == pytest.approx(np.average(wa, weights=words))
    assert res.higher_is_better is True  # say higher_is_better=False for an error rate


# ----------------------------------------------------------------------------- permutation
def _perm_data():
    # the data of the seed-stability check (same as the reference run before the move)
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.85, y, 1 - y)
    b = np.where(rng.random(n) < 0.78, y, 1 - y)
    sa = y + rng.normal(0, 1, n)
    sb = y + rng.normal(0, 1.2, n)
    cond = rng.integers(0, 25, n)
    return y, a, b, sa, sb, cond


def test_permutation_pvalues_of_a_seed_unchanged_by_the_engine():
    # p-values printed by mlci at commit ab31e65, before the swaps were drawn by Sampler
    # subclasses through run_replicates: same stream, same blocks, same numbers
    y, a, b, sa, sb, cond = _perm_data()
    kw = {"rng": 3, "n_resamples": 2000}
    assert permutation_test(y, a, b, metric="accuracy", **kw).pvalue == 0.31634182908545727
    assert (
        permutation_test(y, a, b, metric="accuracy", alternative="greater", **kw).pvalue
        == 0.14842578710644677
    )
    assert (
        permutation_test(y, a, b, metric="accuracy", conditions=cond, **kw).pvalue
        == 0.27786106946526734
    )
    kw = {"rng": 3, "n_resamples": 1000}
    assert permutation_test(y, sa, sb, metric="roc_auc", **kw).pvalue == 0.3356643356643357
    kw = {"rng": 3, "n_resamples": 300}
    assert permutation_test(y, a, b, metric=accuracy_score, **kw).pvalue == 0.36212624584717606
    assert (
        permutation_test(y, a, b, metric=accuracy_score, conditions=cond, **kw).pvalue
        == 0.26578073089701
    )


@pytest.mark.parametrize(
    "metric,use_scores,conditions,n_resamples",
    [
        ("accuracy", False, False, 1500),
        ("roc_auc", True, True, 700),
        (_accuracy, False, False, 150),
        (_accuracy, False, True, 150),
    ],
)
def test_permutation_same_result_for_any_batch_and_threads(
    metric, use_scores, conditions, n_resamples
):
    y, a, b, sa, sb, cond = _perm_data()
    pa, pb = (sa, sb) if use_scores else (a, b)
    kw = {"metric": metric, "rng": 5, "n_resamples": n_resamples}
    if conditions:
        kw["conditions"] = cond
    ref = permutation_test(y, pa, pb, **kw)
    for batch, n_jobs in [(1, 1), (7, 2), (100, None), (None, 3), (10_000, 2)]:
        with mlci.config_context(batch=batch, n_jobs=n_jobs):
            got = permutation_test(y, pa, pb, **kw)
        assert got.pvalue == ref.pvalue
        assert got.details["null_standard_deviation"] == ref.details["null_standard_deviation"]


def test_permutation_nested_conditions_swap_the_top_level():
    # Defect fixed: permutation_test refused nested conditions.  Swapping the top level of
    # [speaker, session] is swapping speakers; checked against exact enumeration of all
    # 2^8 speaker swaps (independent reference) and against conditions=speaker.
    rng = np.random.default_rng(9)
    n = 96
    spk = np.arange(n) % 8
    ses = (np.arange(n) // 8) % 3
    y = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.85, y, 1 - y)
    b = np.where(rng.random(n) < 0.7, y, 1 - y)
    d_obs = _accuracy(y, a) - _accuracy(y, b)
    null = []
    for mask in itertools.product([False, True], repeat=8):
        m = np.array(mask)[spk]
        null.append(_accuracy(y, np.where(m, b, a)) - _accuracy(y, np.where(m, a, b)))
    p_exact = np.mean(np.abs(null) >= abs(d_obs) - 1e-12)
    nested = permutation_test(
        y, a, b, metric="accuracy", conditions=[spk, ses], rng=2, n_resamples=20000
    )
    assert nested.pvalue == pytest.approx(p_exact, abs=0.01)
    assert nested.details["swap_unit"] == "condition" and nested.details["n_conditions"] == 8
    flat = permutation_test(y, a, b, metric="accuracy", conditions=spk, rng=2, n_resamples=20000)
    assert flat.pvalue == nested.pvalue
    fn = permutation_test(
        y, a, b, metric=accuracy_score, conditions=[spk, ses], rng=2, n_resamples=200
    )
    fn_flat = permutation_test(
        y, a, b, metric=accuracy_score, conditions=spk, rng=2, n_resamples=200
    )
    assert fn.pvalue == fn_flat.pvalue


def test_docs_compare_example_prints_what_the_page_shows(capsys):
    # docs/compare.md: its example runs and prints the output the page shows
    page = (pathlib.Path(__file__).parents[2] / "docs" / "compare.md").read_text("utf-8")
    code = page.split("## Example\n```python\n", 1)[1].split("```", 1)[0]
    shown = page.split("prints\n```text\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/compare.md", "exec"), {})
    assert capsys.readouterr().out == shown


def test_pair_warned_when_only_the_union_of_its_systems_undefined_replicates_is_many():
    # each system undefined on < 1 % of replicates (no warning), their difference on the
    # union of them (> 1 %): said once, for the pair
    y, sy = _systems(n=400)
    calls = {"n": 0}

    def flaky(t, p, sample_weight):
        calls["n"] += 1
        if calls["n"] % 120 == 0:
            raise ValueError("flaky")
        return float(np.average(t == p, weights=sample_weight))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = compare(y, sy, metric=flaky, rng=0, n_resamples=600, method="percentile")
    msgs = [str(w.message) for w in caught if issubclass(w.category, InvalidReplicatesWarning)]
    per_system = [r.n_invalid for r in res.systems.values()]
    assert max(per_system) <= 6 and res.difference("A", "B").details["n_invalid"] == 10
    assert len(msgs) == 1 and "undefined on 10 of 600" in msgs[0] and "Pair: A - B." in msgs[0]


def test_auto_difference_of_two_near_perfect_systems_is_bca() -> None:
    """Issue 20: a paired AUC difference where a system is near 1 gets BCa under auto.

    The design search's cell "paired roc_auc difference 0.004 near 1" (AUC 0.9997 vs
    0.9961, n = 220): the t interval of the difference covered 0.785-0.875, BCa
    0.91-0.95 (docs/validation.md, "Near the bounds").  The systems get what
    ``bootstrap_ci`` gives them (86 positives within 0.02 of 1: the analytic interval of
    engine/auc_analytic.py, not [0, 1]).
    """
    gen = np.random.default_rng(1)
    y = np.r_[np.zeros(134), np.ones(86)].astype(int)
    a = np.r_[gen.normal(0, 1, 134), gen.normal(4.5, 1, 86)]
    b = np.r_[gen.normal(0, 1, 134), gen.normal(3.3, 1, 86)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = mlci.compare(y, {"A": a, "B": b}, metric="roc_auc", rng=0)
        single = mlci.bootstrap_ci(y, a, metric="roc_auc", rng=0)
    assert res.difference("A", "B").method == "bca"
    assert "bca for the difference(s) of A - B" in res.details["method_reason"]
    assert res.systems["A"].method == single.method == "auc-score-floored"
    assert tuple(res.systems["A"].confidence_interval) == tuple(single.confidence_interval)
    assert res.systems["A"].confidence_interval[0] > 0.98
    # away from the edge the difference keeps the t interval
    c = np.r_[gen.normal(0, 1, 134), gen.normal(1.0, 1, 86)]
    d = np.r_[gen.normal(0, 1, 134), gen.normal(1.2, 1, 86)]
    far = mlci.compare(y, {"C": c, "D": d}, metric="roc_auc", rng=0)
    assert far.difference("C", "D").method == "t"


def test_auto_near_edge_difference_over_conditions_keeps_t() -> None:
    """Issue 20: the near-edge BCa switch is for independent samples only.

    Design #14 of the seed-3 design search (a roc_auc difference over 139 conditions,
    about 10 positives, 400 test sets): the t interval covered 0.935 (0.942 on the test
    sets the switch picked), BCa 0.852 (0.831), percentile 0.917 (docs/validation.md,
    section 5).  The same near-perfect pair as above, over 22 conditions, keeps t: A has
    8 mis-ordered pairs, not none, so the conditions' own rule for an AUC at the edge
    (comparison/paired_conditions.py; tests/comparison/test_paired_conditions.py) does
    not switch it either.
    """
    gen = np.random.default_rng(1)
    y = np.r_[np.zeros(134), np.ones(86)].astype(int)
    a = np.r_[gen.normal(0, 1, 134), gen.normal(4.5, 1, 86)]
    b = np.r_[gen.normal(0, 1, 134), gen.normal(3.3, 1, 86)]
    cond = np.arange(220) % 22
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        iid = mlci.compare(y, {"A": a, "B": b}, metric="roc_auc", rng=0)
        res = mlci.compare(y, {"A": a, "B": b}, metric="roc_auc", rng=0, conditions=cond)
    assert iid.difference("A", "B").method == "bca"  # the switch fires without conditions
    assert res.difference("A", "B").method == "t"
    assert "bca for the difference" not in res.details["method_reason"]
