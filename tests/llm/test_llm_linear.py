"""The linearized LLM intervals: CR2 + t, the bootstrap-t over clusters, method="auto".

References: the CR2 standard error against a direct computation of Bell & McCaffrey's
(2002) estimator from the hat matrix of the weighted regression on the task indicators
(``(I - H_gg)^(-1/2)`` by an eigendecomposition of every cluster's block, as in
Pustejovsky & Tipton 2018, eq. 5); against the engine's linearized CR2 (``method="t"``)
and bootstrap-t (``method="studentized"``) of ``weighted_mean`` on one task.
"""

from __future__ import annotations

import io

import numpy as np
import pytest
from scipy import stats
from test_llm_estimands import _items, synthetic  # same directory (rootdir import mode)

import mlci
from mlci.feedback import progress_bar
from mlci.intervals.bootstrap import studentized_interval
from mlci.llm import linear
from mlci.llm.estimands import item_table
from mlci.llm.simulation import simulate_benchmark


@pytest.fixture(scope="module")
def log():
    return synthetic(rng_seed=1)


def bell_mccaffrey_se(y, w, task, cluster, c):
    """CR2 standard error of ``c' beta`` in the WLS of ``y`` on task indicators (weights
    ``w``), clusters ``cluster``: straight from the definition."""
    X = np.eye(int(task.max()) + 1)[task]
    sw = np.sqrt(w)
    Xt, yt = X * sw[:, None], y * sw
    M = np.linalg.inv(Xt.T @ Xt)
    beta = M @ Xt.T @ yt
    e = yt - Xt @ beta
    H = Xt @ M @ Xt.T
    meat = np.zeros((X.shape[1], X.shape[1]))
    for g in np.unique(cluster):
        idx = np.flatnonzero(cluster == g)
        vals, vecs = np.linalg.eigh(np.eye(idx.size) - H[np.ix_(idx, idx)])
        inv_sqrt = np.where(vals > 1e-12, 1.0 / np.sqrt(np.maximum(vals, 1e-300)), 0.0)
        A = (vecs * inv_sqrt) @ vecs.T
        u = Xt[idx].T @ A @ e[idx]
        meat += np.outer(u, u)
    V = M @ meat @ M
    return float(c @ beta), float(np.sqrt(c @ V @ c))


@pytest.mark.parametrize("aggregate", ["micro", "macro"])
@pytest.mark.parametrize("cluster", ["passage", None])
def test_cr2_matches_bell_mccaffrey(log, aggregate, cluster):
    res = mlci.llm_ci(log, conditions=cluster, aggregate=aggregate, method="t")
    f = log.to_frame()
    for m in log.models:
        g = _items(log, m)
        task = g.task.astype("category").cat.codes.to_numpy()
        n_t = np.bincount(task)
        w = np.ones(len(g)) if aggregate == "micro" else 1.0 / n_t[task]
        W_t = np.bincount(task, weights=w)
        cl = g.cluster.to_numpy() if cluster else np.arange(len(g))
        est, se = bell_mccaffrey_se(g.score.to_numpy(), w, task, cl, W_t / W_t.sum())
        r = res.models[m]
        assert r.estimate == pytest.approx(est, abs=1e-12)
        assert r.standard_error == pytest.approx(se, abs=1e-12)
        # df: Kish's effective clusters minus the tasks
        _, Wg = np.unique(cl, return_inverse=True)
        Wg = np.bincount(Wg, weights=w)
        df = Wg.sum() ** 2 / (Wg**2).sum() - len(n_t)
        assert r.details["df"] == pytest.approx(df, rel=1e-12)
        q = stats.t.ppf(0.975, df)
        assert r.confidence_interval.low == pytest.approx(max(est - q * se, 0), abs=1e-12)
        assert r.confidence_interval.high == pytest.approx(min(est + q * se, 1), abs=1e-12)
    assert len(f) == log.n_rows


def test_pair_se_is_the_se_of_the_item_differences(log):
    res = mlci.llm_compare(log, conditions="passage", method="t")
    table = item_table(log, conditions="passage")
    d = table.values[0] - table.values[2]
    one = linear.cluster_sums(d[None, :], table.weights, table.cluster, table.task)
    pair = res.difference("m0", "m2")
    assert pair.standard_error == pytest.approx(float(one.cr2_se()[0]), abs=1e-14)
    assert pair.estimate == pytest.approx(float(d.mean()), abs=1e-14)
    t = pair.estimate / pair.standard_error
    assert pair.pvalue == pytest.approx(2 * stats.t.sf(abs(t), one.df), rel=1e-12)
    assert res.method == "t" and pair.method == "t"


def test_one_task_matches_the_engine(log):
    # one task, equal weights: the engine's linearized CR2 (method="t") and its bootstrap-t
    # of weighted_mean with the clusters as conditions give the same numbers
    one = log.select(tasks=["t0"])
    g = _items(one, "m1")
    kw = {"conditions": g.cluster.to_numpy(), "rng": 5, "n_resamples": 300}
    args = (np.ones(len(g)), g.score.to_numpy())
    t_ref = mlci.bootstrap_ci(*args, metric="weighted_mean", method="t", **kw)
    t_llm = mlci.llm_ci(one, conditions="passage", method="t").models["m1"]
    # the engine differentiates a kernel of at most 64 atoms numerically: ~1e-7 agreement
    lin = t_ref.details["linearized"]
    assert t_llm.standard_error == pytest.approx(lin["standard_error"], rel=1e-6)
    assert t_llm.details["df"] == pytest.approx(lin["df"], rel=1e-12)
    assert t_llm.confidence_interval.low == pytest.approx(t_ref.confidence_interval.low, abs=1e-6)
    # the replicates are the engine's (same plan, streams and seed) ...
    bca = mlci.bootstrap_ci(*args, metric="weighted_mean", method="bca", **kw)
    table = item_table(one, conditions="passage")
    cs = linear.cluster_sums(table.values, table.weights, table.cluster, None,
                             n_resamples=300, rng=5)  # fmt: skip
    dist, se_dist = linear.replicates(cs)
    np.testing.assert_allclose(dist[:, 1], bca.bootstrap_distribution, rtol=0, atol=1e-14)
    # ... and so are their standard errors: the engine's bootstrap-t (identity scale)
    st_ref = mlci.bootstrap_ci(*args, metric="weighted_mean", method="studentized", **kw)
    low, high, _ = studentized_interval(cs.estimate[1], cs.cr2_se()[1], dist[:, 1],
                                        se_dist[:, 1], confidence_level=0.95)  # fmt: skip
    assert float(low) == pytest.approx(st_ref.confidence_interval.low, abs=1e-6)
    assert float(high) == pytest.approx(st_ref.confidence_interval.high, abs=1e-6)


@pytest.mark.parametrize("aggregate", ["micro", "macro"])
def test_auto_is_the_default(log, aggregate):
    # micro: the answers are 0/1, a proportion (mlci.llm.proportion): logit t over the
    # conditions; macro (tasks of unequal sizes): the bootstrap-t of a weighted mean
    res = mlci.llm_compare(log, conditions="passage", rng=0, n_resamples=300,
                           aggregate=aggregate)  # fmt: skip
    assert res.method == "auto" and res.correction == "holm"
    want = "logit_t" if aggregate == "micro" else "studentized"
    assert want in res.details["method_reason"]
    assert {r.method for r in res.models.values()} == {want}
    # micro: the MOVER of the models' intervals (test_llm_proportion.py); macro: those of t
    assert {d.method for d in res.differences} == {"mover" if aggregate == "micro" else "t"}
    t = mlci.llm_compare(log, conditions="passage", method="t", aggregate=aggregate)
    for a, b in zip(res.differences, t.differences, strict=True):
        same = a.confidence_interval == b.confidence_interval and a.pvalue == b.pvalue
        assert same == (aggregate == "macro")
    ci = mlci.llm_ci(log, conditions="passage", rng=0, n_resamples=300, aggregate=aggregate)
    for m in log.models:
        assert ci.models[m].confidence_interval == res.models[m].confidence_interval
    nested = mlci.llm_ci(log, conditions="passage", repeats="nested", rng=0, n_resamples=200)
    assert nested.method == "auto" and "bca" in nested.details["method_reason"]
    assert {r.method for r in nested.models.values()} == {"bca"}


def test_studentized_pairs(log):
    res = mlci.llm_compare(log, conditions="passage", method="studentized", rng=1, n_resamples=400)
    for d in res.differences:
        lo, hi = d.confidence_interval
        assert lo < d.estimate < hi and d.method == "studentized"
        s_lo, s_hi = d.simultaneous_interval
        assert s_lo <= lo and hi <= s_hi
        assert 1 / 401 <= d.pvalue <= 1


def test_chunking_and_seed_reproducible(log):
    a = mlci.llm_compare(log, conditions="passage", method="studentized", rng=7, n_resamples=300)
    # the engine's replicate loop (its chunks, threads, memory bound): the same replicates;
    # chunks of a few rows sum BLAS's products in another order: equal to rounding
    with mlci.config_context(batch=5, n_jobs=2, max_memory=1 << 16):
        b = mlci.llm_compare(log, conditions="passage", method="studentized", rng=7,
                             n_resamples=300)  # fmt: skip
    with mlci.config_context(batch=1, n_jobs=1):
        c = mlci.llm_compare(log, conditions="passage", method="studentized", rng=7,
                             n_resamples=300)  # fmt: skip
    for x, *others in [
        *zip(a.models.values(), b.models.values(), c.models.values(), strict=True),
        *zip(a.differences, b.differences, c.differences, strict=True),
    ]:
        for y in others:
            assert x.confidence_interval.low == pytest.approx(y.confidence_interval.low, abs=1e-12)
            assert x.confidence_interval.high == pytest.approx(
                y.confidence_interval.high, abs=1e-12
            )


def test_bootstrap_t_advances_the_progress_bar(log):
    # the LLM default path runs in the engine's replicate loop (which counts replicates)
    with progress_bar(stream=io.StringIO(), delay=3600) as bar:
        mlci.llm_ci(log, conditions="passage", method="studentized", rng=7, n_resamples=300)
    assert bar.done == bar.total == 300


def test_single_cluster_task_has_no_influence():
    # a task made of one cluster: its leverage is 1, its influence 0 (not a division by 0)
    y = np.array([[1.0, 0.0, 1.0, 1.0, 0.0]])
    w = np.ones(5)
    cs = linear.cluster_sums(y, w, np.array([0, 0, 1, 2, 2]), np.array([0, 0, 1, 1, 1]))
    assert np.isfinite(cs.cr2_se()).all()
    assert cs.leverage[0] == 1.0 and cs.z[0, 0] == 0.0


def test_simulated_truth_inside_auto_interval_often():
    # a smoke check of the simulator and the default on one benchmark of 100 clusters
    log = simulate_benchmark(np.random.default_rng(3), n_clusters=100)
    res = mlci.llm_compare(log, conditions="passage", rng=0, n_resamples=300)
    assert res.details["n_clusters"] == 100 and res.details["effective_clusters"] < 100


def test_few_clusters_warn(log):
    with pytest.warns(mlci.FewConditionsWarning, match="Only 2 conditions"):
        mlci.llm_ci(log, conditions="task", method="t")
    with pytest.warns(mlci.FewConditionsWarning) as rec:
        res = mlci.llm_compare(log, conditions="task", method="t")
    said = " ".join(str(w.message) for w in rec)
    assert "Only 2 conditions" in said and "Paired differences over 2 effective" in said
    assert res.details["warning"].startswith("Paired differences over 2 effective")
