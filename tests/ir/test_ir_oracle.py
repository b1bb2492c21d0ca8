"""Per-query IR measures and paired tests against ranx and ir_measures.

Reference values: ``ranx.evaluate(..., return_mean=False)`` (ranx's own implementations,
independent of trec_eval), ``ranx.compare`` p-values (``stat_test="student"``: scipy's
``ttest_rel``; ``"fisher"``: its randomization test), ``scipy.stats.ttest_rel``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

pytest.importorskip("ir_measures")

import mlci
from mlci.data import ir_example_paths
from mlci.ir import ir_ci, ir_compare, per_query

P = ir_example_paths()
MEASURES = [
    ("ndcg@10", "nDCG@10"),
    ("map", "AP"),
    ("mrr", "RR"),
    ("p@10", "P@10"),
    ("recall@20", "R@20"),
]
RANX = {
    "ndcg@10": "ndcg@10",
    "map": "map",
    "mrr": "mrr",
    "p@10": "precision@10",
    "recall@20": "recall@20",
}


@pytest.fixture(scope="module")
def ranx_data():
    ranx = pytest.importorskip("ranx")
    qrels = ranx.Qrels.from_file(str(P["qrels"]), kind="trec")
    runs = [ranx.Run.from_file(str(v), kind="trec", name=k) for k, v in P["runs"].items()]
    return ranx, qrels, runs


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("measure,name", MEASURES)
def test_per_query_equals_ranx(ranx_data, measure, name):
    ranx, qrels, runs = ranx_data
    for run in runs:
        expected = ranx.evaluate(qrels, run, RANX[measure], return_mean=False)
        got = per_query(P["runs"][run.name], P["qrels"], measure)
        assert list(got.values) == [name]
        np.testing.assert_allclose(got.values[name], expected, rtol=0, atol=1e-12)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_paired_t_equals_ranx_compare(ranx_data):
    ranx, qrels, runs = ranx_data
    report = ranx.compare(qrels, runs, metrics=["ndcg@10", "map"], stat_test="student")
    for measure in ("ndcg@10", "map"):
        res = ir_compare(P["runs"], P["qrels"], measure=measure, variant="t", correction="none")
        for (a, b), p in zip(res.pairs, res.pvalues, strict=True):
            expected = report.comparisons[(a, b)][measure]["p_value"]
            assert p == pytest.approx(expected, rel=1e-12)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_randomization_within_monte_carlo_error_of_ranx(ranx_data):
    ranx, qrels, runs = ranx_data
    # a pair with a p-value away from 0: bm25 vs dense on nDCG@10 (about 0.003)
    report = ranx.compare(
        qrels, runs[:2], metrics=["ndcg@10"], stat_test="fisher", n_permutations=20000
    )
    expected = report.comparisons[("bm25", "dense")]["ndcg@10"]["p_value"]
    res = ir_compare(
        {k: P["runs"][k] for k in ("bm25", "dense")},
        P["qrels"],
        measure="ndcg@10",
        variant="permutation",
        n_resamples=20000,
        rng=1,
        correction="none",
    )
    p = res.pvalues[0]
    # ranx counts #{|d*| >= |d|} / B; mlci (1 + #) / (1 + B): both within 4 MC sd
    sd = np.sqrt(expected * (1 - expected) * (1 / 20000 + 1 / 20000))
    assert abs(p - expected) < 4 * sd + 1 / 20000


def test_t_test_equals_scipy_and_holm():
    res = ir_compare(P["runs"], P["qrels"], measure="map", variant="t")
    vals = {k: per_query(v, P["qrels"], "map").values["AP"] for k, v in P["runs"].items()}
    raw = [stats.ttest_rel(vals[a], vals[b]).pvalue for a, b in res.pairs]
    np.testing.assert_allclose(res.pvalues, raw, rtol=1e-12)
    np.testing.assert_allclose(res.pvalues_adjusted, mlci.adjust_pvalues(raw, "holm"))
    assert res.differences[0] == pytest.approx(vals["bm25"].mean() - vals["dense"].mean())


def test_ci_is_the_mean_over_queries():
    res = ir_ci(P["runs"]["dense"], P["qrels"], measure="ndcg@10", rng=0, n_resamples=500)
    v = per_query(P["runs"]["dense"], P["qrels"], "ndcg@10").values["nDCG@10"]
    same = mlci.bootstrap_ci(v, metric="mean", rng=0, n_resamples=500)
    assert res.estimate == pytest.approx(v.mean(), abs=1e-15)
    assert res.confidence_interval == same.confidence_interval
    assert res.metric == "nDCG@10"
    assert res.details["queries"]["n_missing"] == 0


def test_bootstrap_compare_with_baseline():
    res = ir_compare(P["runs"], P["qrels"], measure="mrr", reference="bm25", rng=0, n_resamples=300)
    assert [(d.a, d.b) for d in res.differences] == [("dense", "bm25"), ("hybrid", "bm25")]
    assert res.metric == "RR"


def test_missing_queries_policies():
    run = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0}, "q9": {"z": 1.0}}
    qrels = {"q1": {"b": 1}, "q2": {"c": 2}, "q3": {"d": 1}, "q4": {"e": 0}}
    zero = per_query(run, qrels, "mrr")
    assert zero.query_ids.tolist() == ["q1", "q2", "q3"]
    assert zero.values["RR"].tolist() == [0.5, 1.0, 0.0]
    assert zero.details == {"missing": "zero", "n_missing": 1, "n_unjudged": 1, "n_no_relevant": 1}
    drop = per_query(run, qrels, "mrr", missing="drop")
    assert drop.query_ids.tolist() == ["q1", "q2"]
    with pytest.raises(ValueError, match="answers no document for 1 judged"):
        per_query(run, qrels, "mrr", missing="error")
