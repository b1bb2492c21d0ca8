"""Tests of mlci.methods: pooling training runs, comparing methods, the protocol driver."""

from __future__ import annotations

import os

import joblib
import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score

import mlci
from mlci.engine.resampling import make_plan
from mlci.engine.sampler import Stream, block_generator, stream_seed
from mlci.metrics import get_kernel
from mlci.protocols.learners import compare_methods, evaluate_method, pooled_ci

SCALE = float(os.environ["MLCI_SLOW_SCALE"])


def _runs(n=300, accs=(0.8, 0.82, 0.78, 0.85), seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, [np.where(rng.random(n) < a, y, 1 - y) for a in accs]


def test_pooled_ci_pools_the_runs_distributions():
    y, runs = _runs()
    res = pooled_ci(y, runs, metric="accuracy", n_resamples=300, rng=0)
    accs = [accuracy_score(y, r) for r in runs]
    assert res.estimate == pytest.approx(np.mean(accs))
    np.testing.assert_allclose(res.run_estimates, accs)
    assert res.between_run_sd == pytest.approx(np.std(accs, ddof=1))
    assert res.pooled_distribution.shape == (4 * 300,)
    lo, hi = np.percentile(res.pooled_distribution, [2.5, 97.5])  # numpy's linear rule
    assert res.confidence_interval.low == pytest.approx(lo)
    assert res.confidence_interval.high == pytest.approx(hi)
    # parts: the pooled variance is (about) between-run + test-set variance
    total = res.standard_error**2
    parts = res.test_set_sd**2 + np.var(accs)
    assert total == pytest.approx(parts, rel=0.15)
    assert "between_run_sd" in repr(res)
    assert len(res.runs_frame()) == 4 and len(res.to_frame()) == 1
    assert "pooled_distribution" not in res.to_dict()


def test_single_run_equals_percentile_bootstrap():
    y, runs = _runs()
    res = pooled_ci(y, runs[:1], metric="accuracy", n_resamples=400, rng=2)
    ref = mlci.compare(
        y,
        {"x": runs[0], "z": runs[1]},
        metric="accuracy",
        n_resamples=400,
        rng=2,
        method="percentile",
    )
    assert res.n_runs == 1
    assert res.between_run_sd == 0.0
    assert res.standard_error == pytest.approx(ref.systems["x"].standard_error, rel=0.1)


def test_compare_methods_matched_and_unmatched():
    y, a = _runs(accs=(0.92, 0.93, 0.92), seed=1)
    b = [np.where(np.random.default_rng(i).random(len(y)) < 0.75, y, 1 - y) for i in range(3)]
    un = compare_methods(y, a, b, metric="accuracy", n_resamples=300, rng=0)
    ma = compare_methods(y, a, b, metric="accuracy", matched=True, n_resamples=300, rng=0)
    mean_diff = np.mean([accuracy_score(y, r) for r in a]) - np.mean(
        [accuracy_score(y, r) for r in b]
    )
    assert un.estimate == pytest.approx(mean_diff)
    assert ma.estimate == pytest.approx(mean_diff)
    assert un.n_runs == 9 and ma.n_runs == 3
    assert un.pvalue < 0.01 and un.confidence_interval.low > 0
    same = compare_methods(y, a, a[::-1], metric="accuracy", n_resamples=300, rng=0)
    assert same.pvalue > 0.2


def test_evaluate_method_function_and_estimator_reproducible(capsys):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(260, 3))
    y = (x[:, 0] + rng.normal(0, 1, 260) > 0).astype(int)
    xtr, ytr, xte, yte = x[:200], y[:200], x[200:], y[200:]
    calls = []

    def tp(idx, seed):
        calls.append((len(idx), seed))
        m = LogisticRegression(C=0.1 + (seed % 7) / 10).fit(xtr[idx], ytr[idx])
        return m.predict(xte)

    # the two calls differ only in progress reporting and threads: same runs, same result
    same = {"n_train_resamples": 2, "seeds": [1, 2], "n_resamples": 100, "rng": 5}
    with mlci.config_context(progress=True):
        r1 = evaluate_method(tp, 200, yte, metric="accuracy", **same)
    assert len(calls) == 4 and all(c[0] == 200 for c in calls)
    assert r1.details["runs"] == [(0, 1), (0, 2), (1, 1), (1, 2)]
    # stderr is not a terminal here: no bar (tests/test_feedback.py draws it on one)
    assert capsys.readouterr().err == ""
    # parallel training (joblib; threads here, to keep the test fast: the result cannot
    # depend on the backend, as each run gets its indices and seed from the driver)
    with joblib.parallel_config(backend="threading"), mlci.config_context(n_jobs=2):
        r2 = evaluate_method(tp, 200, yte, metric="accuracy", **same)
    np.testing.assert_array_equal(r1.pooled_distribution, r2.pooled_distribution)
    r3 = evaluate_method(
        LogisticRegression(),
        200,
        yte,
        X_train=xtr,
        y_train=ytr,
        X_test=xte,
        metric="roc_auc",
        response="predict_proba",
        seeds=1,
        n_resamples=100,
        rng=1,
    )
    assert r3.n_runs == 1 and 0.5 < r3.estimate <= 1.0


def test_evaluate_method_same_seed_sequence_twice_and_numpy_counts():
    # Defect fixed: the driver called rng.spawn() on the caller's SeedSequence, which
    # advances its counter, so passing the same SeedSequence twice gave different runs.
    # Counts given as numpy integers were also refused.
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 120)

    def tp(idx, seed):
        r = np.random.default_rng(seed + int(idx.sum()))
        return np.where(r.random(120) < 0.8, y, 1 - y)

    kw = {"metric": "accuracy", "n_resamples": 60}
    ss = np.random.SeedSequence(7)
    a = evaluate_method(tp, 50, y, n_train_resamples=2, seeds=np.int64(2), rng=ss, **kw)
    b = evaluate_method(tp, 50, y, n_train_resamples=np.int64(2), seeds=2, rng=ss, **kw)
    np.testing.assert_array_equal(a.pooled_distribution, b.pooled_distribution)
    assert a.details["seeds"] == b.details["seeds"] and a.n_runs == 4
    # a Generator is consumed, but two generators from one seed give the same result
    g1 = evaluate_method(tp, 50, y, rng=np.random.default_rng(3), **kw)
    g2 = evaluate_method(tp, 50, y, rng=np.random.default_rng(3), **kw)
    np.testing.assert_array_equal(g1.pooled_distribution, g2.pooled_distribution)


def test_pooled_ci_one_sided_is_the_pooled_percentile_at_the_level():
    y, runs = _runs()
    g = pooled_ci(y, runs, metric="accuracy", n_resamples=300, rng=0, alternative="greater")
    assert g.alternative == "greater"
    assert g.confidence_interval.low == pytest.approx(np.quantile(g.pooled_distribution, 0.05))
    hi_edge = get_kernel("accuracy", (y, runs[0]), {}).bounds[1]
    assert g.confidence_interval.high == hi_edge
    le = pooled_ci(y, runs, metric="accuracy", n_resamples=300, rng=0, alternative="less")
    assert le.confidence_interval.high == pytest.approx(np.quantile(le.pooled_distribution, 0.95))
    np.testing.assert_array_equal(le.pooled_distribution, g.pooled_distribution)


def test_compare_methods_one_sided_pvalue_inverts_the_one_sided_interval():
    y, a = _runs(accs=(0.84, 0.85, 0.83), seed=1)
    b = [np.where(np.random.default_rng(i).random(len(y)) < 0.8, y, 1 - y) for i in range(3)]
    kw = {"metric": "accuracy", "n_resamples": 300, "rng": 0}
    two = compare_methods(y, a, b, **kw)
    d = two.pooled_distribution
    g = compare_methods(y, a, b, alternative="greater", **kw)
    le = compare_methods(y, a, b, alternative="less", **kw)
    assert g.pvalue == pytest.approx((1 + np.sum(d <= 0)) / (1 + d.size))
    assert le.pvalue == pytest.approx((1 + np.sum(d >= 0)) / (1 + d.size))
    assert two.pvalue == pytest.approx(min(1.0, 2 * min(g.pvalue, le.pvalue)))
    assert g.confidence_interval.low == pytest.approx(np.quantile(d, 0.05))


def test_engine_knobs_never_change_the_pooled_result():
    y, runs = _runs()
    ref = pooled_ci(y, runs, metric="accuracy", n_resamples=300, rng=4)
    for batch, n_jobs in [(1, 1), (7, 2), (None, 3)]:
        with mlci.config_context(batch=batch, n_jobs=n_jobs):
            got = pooled_ci(y, runs, metric="accuracy", n_resamples=300, rng=4)
        np.testing.assert_array_equal(got.pooled_distribution, ref.pooled_distribution)
    with mlci.config_context(max_memory=1 << 16):
        small = pooled_ci(y, runs, metric="accuracy", n_resamples=300, rng=4)
    np.testing.assert_array_equal(small.pooled_distribution, ref.pooled_distribution)


def test_runs_share_the_replicates_of_compare():
    # pooling draws through the same joint atoms and plan as compare(): with the same
    # seed the runs' bootstrap values are compare's systems' values (flat and nested)
    y, runs = _runs()
    spk = np.arange(len(y)) % 30
    ses = (np.arange(len(y)) // 30) % 2
    for conditions in (None, spk, [spk, ses]):
        kw = {"metric": "accuracy", "n_resamples": 200, "rng": 6, "conditions": conditions}
        res = pooled_ci(y, runs, **kw)
        ref = mlci.compare(y, dict(zip("abcd", runs, strict=True)), method="percentile", **kw)
        for i, k in enumerate("abcd"):
            np.testing.assert_array_equal(
                res.pooled_distribution[i * 200 : (i + 1) * 200],
                ref.systems[k].bootstrap_distribution,
            )
        assert res.details["scheme"] == ref.scheme


def test_nested_conditions_in_every_method_driver():
    # Defect fixed (issue 8): nested conditions, accepted by compare, now work in the
    # method drivers too; the top level (speakers) is resampled
    y, runs = _runs()
    spk = np.arange(len(y)) % 30
    ses = (np.arange(len(y)) // 30) % 2
    kw = {"metric": "accuracy", "n_resamples": 200, "rng": 0, "conditions": [spk, ses]}
    p = pooled_ci(y, runs, **kw)
    assert p.details["scheme"] == "nested(2 levels; resampled: 1)"
    assert p.details["n_conditions"] == 30
    m = compare_methods(y, runs[:2], runs[2:], **kw)
    assert m.details["scheme"] == "nested(2 levels; resampled: 1)"
    e = evaluate_method(lambda idx, seed: runs[seed], 10, y, seeds=[0, 1, 2, 3], **kw)
    np.testing.assert_array_equal(e.pooled_distribution, p.pooled_distribution)


def test_evaluate_method_one_rng_for_the_protocol():
    # one rng: the test-set bootstrap is pooled_ci's with that rng, the training
    # resamples come from the engine's iid sampler on Stream.TRAINING and the drawn seeds
    # from Stream.RUN_SEEDS
    y, _ = _runs(n=150)
    calls = []

    def tp(idx, seed):
        calls.append((idx.copy(), seed))
        r = np.random.default_rng(seed + 7 * int(idx[:5].sum()))
        return np.where(r.random(150) < 0.8, y, 1 - y)

    res = evaluate_method(tp, 40, y, metric="accuracy", n_train_resamples=3, seeds=2, rng=11)
    ss = np.random.SeedSequence(11)
    seeds = block_generator(ss, Stream.RUN_SEEDS, 0).integers(0, 2**31 - 1, 2).tolist()
    assert res.details["seeds"] == seeds
    plan = make_plan(40, n_resamples=3, rng=stream_seed(ss, Stream.TRAINING))
    counts = plan.weights_for().all_replicates()
    for k, (idx, seed) in enumerate(calls):
        assert len(idx) == 40 and np.all(np.diff(idx) >= 0)
        np.testing.assert_array_equal(np.bincount(idx, minlength=40), counts[k // 2])
        assert seed == seeds[k % 2]
    preds = [tp(idx, seed) for idx, seed in list(calls)]
    ref = pooled_ci(y, preds, metric="accuracy", rng=11)
    np.testing.assert_array_equal(res.pooled_distribution, ref.pooled_distribution)


@pytest.mark.slow
def test_coverage_of_pooled_seed_interval():
    # A method whose runs have true accuracy mu + N(0, tau^2) (seed variability); each
    # run is evaluated on the same test set of n samples.  Targets: the method's mean
    # accuracy mu, and the accuracy a new run measures on a new test set.
    n_sim = max(30, int(300 * SCALE))
    mu, tau, n, n_runs = 0.8, 0.02, 400, 8
    rng = np.random.default_rng(11)
    hit_mean = hit_new = 0
    for s in range(n_sim):
        y = rng.integers(0, 2, n)
        accs = np.clip(mu + tau * rng.normal(size=n_runs), 0, 1)
        runs = [np.where(rng.random(n) < a, y, 1 - y) for a in accs]
        res = pooled_ci(y, runs, metric="accuracy", n_resamples=300, rng=s)
        lo, hi = res.confidence_interval
        hit_mean += lo <= mu <= hi
        # a new run (new seed) measured on a new test set of the same size
        new = rng.binomial(n, np.clip(mu + tau * rng.normal(), 0, 1)) / n
        hit_new += lo <= new <= hi
    # both at least nominal; the pooled interval is conservative (each run's estimate
    # already carries test-set noise, which the bootstrap adds again): see docs/compare.md
    assert stats.binomtest(hit_mean, n_sim, 0.95, alternative="less").pvalue > 0.001
    assert stats.binomtest(hit_new, n_sim, 0.95, alternative="less").pvalue > 0.001
