"""Paired comparisons of language models (llm_compare) and the leaderboard.

References: each CR1 difference against statsmodels (OLS of the per-item difference on a
constant, ``cov_type="cluster"``, t test with G-1 degrees of freedom); the adjusted
p-values against mlci.adjust_pvalues (itself checked against statsmodels'
multipletests); the bootstrap comparison against mlci.compare called directly.
"""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

import mlci
from mlci.data import llm_example_path
from mlci.llm.compare import LeaderboardEntry, leaderboard


@pytest.fixture(scope="module")
def example():
    return mlci.read_eval_logs(llm_example_path(), conditions=["group"])


def _item_means(log):
    f = log.to_frame()
    g = f.groupby(["model", "task", "item"]).agg(score=("score", "mean"), group=("group", "first"))
    return g.reset_index()


def test_cr1_differences_match_statsmodels(example):
    res = mlci.llm_compare(example, conditions="group", method="cr1")
    items = _item_means(example)
    wide = items.pivot_table(index=["task", "item", "group"], columns="model", values="score")
    wide = wide.reset_index()
    groups = (wide.task + "/" + wide.group).astype("category").cat.codes.to_numpy()
    pvals = []
    for d in res.differences:
        y = (wide[d.a] - wide[d.b]).to_numpy()
        fit = sm.OLS(y, np.ones((len(y), 1))).fit(
            cov_type="cluster", cov_kwds={"groups": groups}, use_t=True
        )
        assert d.estimate == pytest.approx(fit.params[0], abs=1e-12)
        assert d.standard_error == pytest.approx(fit.bse[0], abs=1e-10)
        assert d.pvalue == pytest.approx(fit.pvalues[0], abs=1e-10)
        low, high = fit.conf_int(alpha=0.05)[0]
        assert d.confidence_interval.low == pytest.approx(low, abs=1e-10)
        assert d.confidence_interval.high == pytest.approx(high, abs=1e-10)
        pvals.append(fit.pvalues[0])
    adj = mlci.adjust_pvalues(pvals, correction="holm")
    assert [d.pvalue_adjusted for d in res.differences] == pytest.approx(adj.tolist(), abs=1e-12)


def test_bootstrap_comparison_is_mlci_compare(example):
    res = mlci.llm_compare(example, conditions="group", rng=2, n_resamples=400, correction="holm",
                           method="bca")  # fmt: skip
    items = _item_means(example)
    wide = items.pivot_table(index=["task", "item", "group"], columns="model", values="score")
    wide = wide.reset_index()
    cl = (wide.task + "/" + wide.group).to_numpy()
    ref = mlci.compare(np.ones(len(wide)), {m: wide[m].to_numpy() for m in example.models},
                       metric="weighted_mean", conditions=cl, strata=wide.task.to_numpy(),
                       rng=2, n_resamples=400, higher_is_better=True)  # fmt: skip
    for d, r in zip(res.differences, ref.differences, strict=True):
        assert (d.a, d.b) == (r.a, r.b)
        assert d.estimate == pytest.approx(r.estimate, abs=1e-14)
        assert d.confidence_interval.low == pytest.approx(r.confidence_interval.low, abs=1e-14)
        assert d.pvalue_adjusted == pytest.approx(r.pvalue_adjusted, abs=1e-14)
        assert d.metric == "mean score"


def test_pairing_narrows_the_difference(example):
    # the difference's interval is much narrower than the models' intervals suggest
    res = mlci.llm_compare(example, conditions="group", method="cr1")
    d = res.difference("model-a", "model-b")
    a, b = res.models["model-a"], res.models["model-b"]
    unpaired = np.hypot(a.standard_error, b.standard_error)
    assert d.standard_error < 0.75 * unpaired
    assert res.difference("model-b", "model-a").estimate == pytest.approx(-d.estimate)
    with pytest.raises(KeyError):
        res.difference("model-a", "zz")


def test_leaderboard_tiers_and_rank_intervals():
    def model(est):
        return mlci.IntervalResult(estimate=est, confidence_interval=mlci.ConfidenceInterval(
            est - 0.01, est + 0.01), confidence_level=0.95, method="cr1")  # fmt: skip

    models = {"A": model(0.9), "B": model(0.89), "C": model(0.7), "D": model(0.69)}

    def diff(a, b, significant):
        est = models[a].estimate - models[b].estimate
        return mlci.PairDifference(
            a=a, b=b, estimate=est, confidence_interval=mlci.ConfidenceInterval(est, est),
            confidence_level=0.95, method="cr1", pvalue=0.01, pvalue_adjusted=0.01,
            simultaneous_interval=mlci.ConfidenceInterval(est, est), significant=significant,
        )  # fmt: skip

    diffs = (
        diff("A", "B", False),
        diff("A", "C", True),
        diff("A", "D", True),
        diff("B", "C", False),  # B and C not separated, but C is below A
        diff("B", "D", True),
        diff("C", "D", False),
    )
    board = leaderboard(models, diffs)
    got = [(e.model, e.rank, e.rank_low, e.rank_high, e.tier) for e in board]
    assert got == [
        ("A", 1, 1, 2, 1),
        ("B", 2, 1, 3, 1),
        ("C", 3, 2, 4, 2),
        ("D", 4, 3, 4, 2),
    ]
    assert board[1].tied_with == ("A", "C")
    assert isinstance(board[0], LeaderboardEntry)
    assert board[1].rows()[0]["tied_with"] == "A, C"


def test_reference_and_result_interface(example):
    res = mlci.llm_compare(example, method="cr1", reference="model-c")
    assert [(d.a, d.b) for d in res.differences] == [("model-a", "model-c"),
                                                      ("model-b", "model-c")]  # fmt: skip
    assert res.leaderboard is None
    with pytest.raises(ValueError, match="No leaderboard"):
        res.rows("leaderboard")
    full = mlci.llm_compare(example, conditions="group", method="cr1")
    assert list(full.to_frame("leaderboard").model) == ["model-a", "model-b", "model-c"]
    assert len(full.to_frame()) == 3
    assert "<table" in full._repr_html_()
    assert full.to_dict()["leaderboard"][0]["model"] == "model-a"
    with pytest.raises(ValueError, match="`what`"):
        full.rows("nope")


def test_many_models_holm_and_maxt(example):
    rng = np.random.default_rng(0)
    f = example.to_frame()
    extra = f[f.model == "model-c"].copy()
    extra["model"] = "model-d"
    extra["score"] = (rng.random(len(extra)) < 0.5).astype(float)
    frame = __import__("pandas").concat([f, extra])
    log = mlci.eval_log(frame, task="task", repeat="repeat", conditions=["group"])
    res = mlci.llm_compare(log, conditions="group", correction="maxt", rng=0, n_resamples=300,
                           method="bca")  # fmt: skip
    assert len(res.differences) == 6 and res.correction == "maxt"
    for method in ("cr1", "t", "auto", "studentized"):  # max-t needs the joint bootstrap
        with pytest.raises(ValueError, match="`correction`"):
            mlci.llm_compare(log, method=method, correction="maxt")
        assert mlci.llm_compare(log, method=method, n_resamples=50).correction == "holm"
    assert mlci.llm_compare(log, rng=0, n_resamples=50, method="bca").correction == "maxt"
    # Holm over 6 pairs with B = 50 bootstrap p-values: the floor is said
    holm = mlci.llm_compare(log, rng=0, n_resamples=50, correction="holm", method="bca")
    assert "cannot reject" in holm.details["note"]


@pytest.mark.parametrize(
    ("kw", "pattern"),
    [
        ({"reference": "zz"}, "`reference`='zz'"),
        ({"correction": "nope"}, "`correction`"),
        ({"models": ["model-a"]}, "at least two"),
        ({"method": "cr1", "repeats": "nested"}, "`repeats`='nested' is a bootstrap"),
        ({"method": "t", "repeats": "nested"}, "`repeats`='nested' is a bootstrap"),
        ({"method": "wilson"}, "`method`"),
        ({"items": "all"}, "`items`"),
        ({"confidence_level": 95}, "`confidence_level`"),
        ({"alternative": "one-sided"}, "`alternative`"),
    ],
)
def test_bad_options(example, kw, pattern):
    with pytest.raises((ValueError, TypeError), match=pattern):
        mlci.llm_compare(example, **kw)


def test_one_sided(example):
    res = mlci.llm_compare(example, method="cr1", alternative="greater")
    d = res.difference("model-a", "model-c")
    assert d.confidence_interval.high == 1.0 and d.confidence_interval.low > 0
    two = mlci.llm_compare(example, method="cr1")
    assert d.pvalue == pytest.approx(two.difference("model-a", "model-c").pvalue / 2)
