"""Estimands of an evaluation log and their intervals (llm_ci).

References: the CR1 standard error against statsmodels (OLS/WLS on a constant with
``cov_type="cluster"``, which applies the CR1 factor G/(G-1)*(N-1)/(N-K)); pass@k against
the numpy estimator printed in Chen et al. (2021), Fig. 3.
"""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

import mlci
from mlci.data import llm_example_path
from mlci.llm.estimands import pass_at_k


def chen_pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al. (2021), Fig. 3: the numerically stable unbiased estimator."""
    if n - c < k:
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def synthetic(rng_seed=0, n_models=3, n_clusters=40, repeats=3, n_tasks=2):
    """Items in clusters of varying size, per-item difficulty, correlated models."""
    rng = np.random.default_rng(rng_seed)
    rows = {"model": [], "task": [], "item": [], "repeat": [], "score": [], "passage": []}
    skill = np.linspace(0.6, 0.0, n_models)
    for t in range(n_tasks):
        for c in range(n_clusters):
            ce = rng.normal(0, 0.8)
            for i in range(int(rng.integers(1, 9))):
                diff = ce + rng.normal(0, 0.7)
                for m in range(n_models):
                    p = 1 / (1 + np.exp(-(skill[m] - diff)))
                    for r in range(repeats):
                        rows["model"].append(f"m{m}")
                        rows["task"].append(f"t{t}")
                        rows["item"].append(f"c{c}-i{i}")
                        rows["repeat"].append(r)
                        rows["score"].append(float(rng.random() < p))
                        rows["passage"].append(f"c{c}")
    cl = {"passage": rows.pop("passage")}
    return mlci.eval_log(**rows, conditions=cl)


@pytest.fixture(scope="module")
def log():
    return synthetic()


@pytest.fixture(scope="module")
def example():
    return mlci.read_eval_logs(llm_example_path(), conditions=["group"])


def _items(log, model):
    """Per-item mean scores of one model, its task and cluster labels (pandas)."""
    f = log.to_frame()
    f = f[f.model == model]
    g = f.groupby(["task", "item"], sort=True).agg(
        score=("score", "mean"), passage=("passage", "first")
    )
    g = g.reset_index()
    g["cluster"] = g.task + "/" + g.passage
    return g


def test_pass_at_k_matches_chen():
    for n in (1, 2, 5, 10, 37, 200):
        for c in range(0, n + 1, max(1, n // 7)):
            for k in (1, 2, 5, 10):
                if k > n:
                    continue
                assert pass_at_k(n, c, k) == pytest.approx(chen_pass_at_k(n, c, k), abs=1e-12)
    # vectorised, and pass@1 is the mean
    n = np.array([10, 10, 4])
    c = np.array([3, 0, 4])
    assert pass_at_k(n, c, 1).tolist() == pytest.approx((c / n).tolist(), abs=1e-14)


@pytest.mark.parametrize("cluster", [None, "passage", "task"])
def test_cr1_matches_statsmodels_micro(log, cluster):
    res = mlci.llm_ci(log, conditions=cluster, method="cr1")
    for m in log.models:
        g = _items(log, m)
        X = np.ones((len(g), 1))
        kw = {}
        if cluster is None:
            fit = sm.OLS(g.score.to_numpy(), X).fit(cov_type="cluster",
                                                     cov_kwds={"groups": np.arange(len(g))},
                                                     use_t=True)  # fmt: skip
        else:
            groups = (g.cluster if cluster == "passage" else g.task).astype("category").cat.codes
            fit = sm.OLS(g.score.to_numpy(), X).fit(
                cov_type="cluster", cov_kwds={"groups": groups.to_numpy()}, use_t=True, **kw
            )
        r = res.models[m]
        assert r.estimate == pytest.approx(fit.params[0], abs=1e-12)
        assert r.standard_error == pytest.approx(fit.bse[0], abs=1e-10)
        low, high = np.clip(fit.conf_int(alpha=0.05)[0], 0, 1)  # t(G-1), within [0, 1]
        assert r.confidence_interval.low == pytest.approx(low, abs=1e-10)
        assert r.confidence_interval.high == pytest.approx(high, abs=1e-10)


def test_cr1_macro_matches_statsmodels_wls(log):
    res = mlci.llm_ci(log, conditions="passage", method="cr1", aggregate="macro")
    for m in log.models:
        g = _items(log, m)
        w = 1.0 / g.groupby("task").score.transform("size").to_numpy()
        groups = g.cluster.astype("category").cat.codes.to_numpy()
        fit = sm.WLS(g.score.to_numpy(), np.ones((len(g), 1)), weights=w).fit(
            cov_type="cluster", cov_kwds={"groups": groups}, use_t=True
        )
        r = res.models[m]
        assert r.estimate == pytest.approx(g.groupby("task").score.mean().mean(), abs=1e-12)
        assert r.estimate == pytest.approx(fit.params[0], abs=1e-12)
        assert r.standard_error == pytest.approx(fit.bse[0], abs=1e-10)


def test_bootstrap_is_the_engine_on_item_means(log):
    # one task: llm_ci's bootstrap is bootstrap_ci of the weighted mean of item means with
    # the clusters as conditions (same plan, same seed, same numbers)
    one = log.select(tasks=["t0"])
    res = mlci.llm_ci(one, conditions="passage", rng=3, n_resamples=400, method="bca")
    g = _items(one, "m1")
    r = res.models["m1"]
    ref = mlci.bootstrap_ci(np.ones(len(g)), g.score.to_numpy(), metric="weighted_mean",
                            conditions=g.cluster.to_numpy(), rng=3, n_resamples=400,
                            method=r.method)  # fmt: skip
    assert r.estimate == pytest.approx(ref.estimate, abs=1e-14)
    assert r.confidence_interval.low == pytest.approx(ref.confidence_interval.low, abs=1e-14)
    assert r.confidence_interval.high == pytest.approx(ref.confidence_interval.high, abs=1e-14)
    assert r.n_conditions == g.cluster.nunique()


def test_bootstrap_se_close_to_cr1(log):
    boot = mlci.llm_ci(log, conditions="passage", rng=0, n_resamples=2000, method="percentile")
    cr1 = mlci.llm_ci(log, conditions="passage", method="cr1")
    # stratified by task the bootstrap removes the between-task part: close, not equal
    for m in log.models:
        ratio = boot.models[m].standard_error / cr1.models[m].standard_error
        assert 0.8 < ratio < 1.1


def test_clusters_widen_and_nested_repeats_are_conservative(example):
    flat = mlci.llm_ci(example, method="percentile", rng=0, n_resamples=1000)
    clus = mlci.llm_ci(example, conditions="group", method="percentile", rng=0, n_resamples=1000)
    nest = mlci.llm_ci(example, conditions="group", repeats="nested", method="percentile", rng=0,
                       n_resamples=1000)  # fmt: skip
    for m in example.models:
        assert clus.models[m].standard_error > flat.models[m].standard_error
        assert nest.models[m].standard_error > clus.models[m].standard_error
        assert nest.models[m].estimate == pytest.approx(clus.models[m].estimate, abs=1e-12)


def test_micro_and_macro_estimates(example):
    f = example.to_frame()
    items = f.groupby(["model", "task", "item"]).score.mean().reset_index()
    micro = mlci.llm_ci(example, method="cr1")
    macro = mlci.llm_ci(example, method="cr1", aggregate="macro")
    for m in example.models:
        it = items[items.model == m]
        assert micro.models[m].estimate == pytest.approx(it.score.mean(), abs=1e-12)
        assert macro.models[m].estimate == pytest.approx(
            it.groupby("task").score.mean().mean(), abs=1e-12
        )


def test_pass_at_k_estimate(example):
    res = mlci.llm_ci(example, estimand="pass@k", k=2, method="cr1")
    f = example.to_frame()
    for m in example.models:
        g = f[f.model == m].groupby(["task", "item"]).score.agg(["size", "sum"])
        want = np.mean([chen_pass_at_k(int(n), int(c), 2) for n, c in g.to_numpy()])
        assert res.models[m].estimate == pytest.approx(want, abs=1e-12)
    assert res.estimand == "pass@2"
    boot = mlci.llm_ci(example, estimand="pass@k", k=2, conditions="group", rng=0,
                       n_resamples=300)  # fmt: skip
    assert 0 <= boot.models["model-a"].confidence_interval.low < res.models["model-a"].estimate


def test_pass_at_k_needs_binary_scores_and_k_answers():
    log = mlci.eval_log(model=["A"] * 4, item=[1, 1, 2, 2], repeat=[0, 1] * 2,
                        score=[1, 0.5, 0, 1])  # fmt: skip
    with pytest.raises(ValueError, match=r"pass@k needs correct/incorrect scores.*row 1"):
        mlci.llm_ci(log, estimand="pass@k", k=1, method="cr1")
    log = mlci.eval_log(model=["A"] * 3, item=[1, 1, 2], repeat=[0, 1, 0], score=[1, 0, 1])
    with pytest.raises(ValueError, match=r"pass@2 needs at least k=2 answers.*'task/2'.*row 2"):
        mlci.llm_ci(log, estimand="pass@k", k=2, method="cr1")
    with pytest.raises(ValueError, match="`repeats`='nested' does not apply to pass@k"):
        mlci.llm_ci(log, estimand="pass@k", repeats="nested")
    with pytest.raises(ValueError, match="`k` applies to estimand='pass@k' only"):
        mlci.llm_ci(log, k=2)


def test_nested_needs_equal_repeats():
    log = mlci.eval_log(model=["A", "A", "B"], item=[1, 1, 1], repeat=[0, 1, 0],
                        score=[1, 0, 1])  # fmt: skip
    with pytest.raises(ValueError, match=r"`repeats`='nested' pairs.*item 'task/1' has 1"):
        mlci.llm_ci(log, repeats="nested")
    with pytest.raises(ValueError, match="`repeats`='nested' is a bootstrap scheme"):
        mlci.llm_ci(log.select(models=["A"]), repeats="nested", method="cr1")
    with pytest.raises(ValueError, match="method='cr1' needs at least 2 clusters"):
        mlci.llm_ci(log, method="cr1")


def test_reproducible(example):
    a = mlci.llm_ci(example, conditions="group", rng=5, n_resamples=300)
    with mlci.config_context(batch=7):
        b = mlci.llm_ci(example, conditions="group", rng=5, n_resamples=300)
    for m in example.models:
        assert a.models[m].confidence_interval == b.models[m].confidence_interval


def test_result_interface(example):
    res = mlci.llm_ci(example, conditions="group", method="cr1")
    assert repr(res).startswith("LLMEstimates(estimand='mean score', 3 models, 211 items")
    text = str(res)
    assert "model-a" in text and "se=" in text
    frame = res.to_frame()
    assert list(frame.model) == example.models
    assert res.to_dict()["models"]["model-a"]["method"] == "cr1"


@pytest.mark.parametrize(
    ("option", "value", "pattern"),
    [
        ("estimand", "accuracy", "`estimand`"),
        ("repeats", "sum", "`repeats`"),
        ("aggregate", "median", "`aggregate`"),
        ("items", "drop", "`items`"),
        ("k", 0, "`k`"),
        ("k", 1.5, "`k`"),
        ("conditions", "zz", r"`conditions`='zz' is not a column"),
        ("models", ["zz"], "`models`"),
        ("method", "wald", "`method`"),
        ("confidence_level", 95, "`confidence_level`"),
        ("confidence_level", 1.5, "`confidence_level`"),
        ("alternative", "one-sided", "`alternative`"),
        ("n_resamples", 0, "`n_resamples`"),
        ("rng", -1, "`rng`"),
    ],
)
def test_bad_options(example, option, value, pattern):
    with pytest.raises((ValueError, TypeError), match=pattern):
        mlci.llm_ci(example, **{option: value})


def test_deprecated_cluster_keyword(example):
    # `cluster` was the spelling before the glossary's `conditions` (issue 23): it still
    # works, with a FutureWarning at the caller's line
    want = mlci.llm_ci(example, conditions="group", method="cr1")
    with pytest.warns(FutureWarning, match="`cluster` is deprecated.*`conditions`") as w:
        got = mlci.llm_ci(example, cluster="group", method="cr1")
    assert w[0].filename == __file__
    assert got.models["model-a"].estimate == want.models["model-a"].estimate
    assert got.models["model-a"].confidence_interval == want.models["model-a"].confidence_interval
    with pytest.warns(FutureWarning):
        cmp = mlci.llm_compare(example, cluster="group", method="cr1")
    assert cmp.conditions == "group"
    with pytest.raises(TypeError, match="Give `conditions` only"):
        mlci.llm_ci(example, cluster="group", conditions="group")
    with pytest.raises(TypeError, match="unexpected keyword argument 'clusterz'"):
        mlci.llm_ci(example, clusterz="group")


def test_not_a_log():
    with pytest.raises(TypeError, match="`log` must be an EvalLog"):
        mlci.llm_ci({"model": ["A"]})
