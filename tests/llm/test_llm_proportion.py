"""The default interval of 0/1 answers (mlci.llm.proportion; issue 20, "LLM evals near the
bounds" in docs/validation.md).

References: Wilson's score interval from statsmodels ``proportion_confint(k, n,
method="wilson")`` and R's ``prop.test(k, n, correct = FALSE)$conf.int`` (R 4, printed
with ``options(digits = 15)``); Tango's interval and test from ``mlci.compare`` (the
engine's door, itself checked against Tango 1998 in tests/test_paired_proportions*.py)
and ``mlci.paired_proportion_diff_ci``; the MOVER interval against Newcombe's (1998)
method 8 (``method="newcombe_unadjusted"``), which it is for independent answers (the
CR2 correlation of two means of 0/1 answers is then the phi coefficient), and against
its definition (Zou & Donner 2008) over conditions.  Exact coverage by enumerating the
binomial outcomes.
"""

from __future__ import annotations

import json
import os
import warnings

import numpy as np
import pytest
from scipy import stats

import mlci
from _scripts import load_script
from mlci.llm.proportion import AnswerDesign, answer_design, mover_pairs


def _log(scores, *, repeats=1, conditions=None, models=("A",)):
    """A log of ``len(models)`` models: ``scores`` (M, n_items * repeats), item-major."""
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    M, N = scores.shape
    n = N // repeats
    item = np.repeat(np.arange(n), repeats)
    cond = None if conditions is None else {"g": np.tile(np.asarray(conditions)[item], M)}
    return mlci.eval_log(model=np.repeat(list(models), N), item=np.tile(item, M),
                         repeat=np.tile(np.tile(np.arange(repeats), n), M),
                         score=scores.ravel(), conditions=cond)  # fmt: skip


def _ones(k, n):
    return np.r_[np.ones(k), np.zeros(n - k)]


@pytest.mark.parametrize(
    ("k", "n", "ref"),
    [
        # R: prop.test(29, 30, correct = FALSE)$conf.int[1]; statsmodels agrees to 1e-15;
        # 1 failure of 30: the upper bound is Brown, Cai & DasGupta's (2001, sec. 4.1.1)
        # one-sided Poisson bound, R: 1 - qchisq(0.05, 2) / 60
        (29, 30, (0.833296090085908, 0.99829022352041497)),
        # R: prop.test(196, 200, correct = FALSE)$conf.int
        (196, 200, (0.949712913094173, 0.992195573583650)),
    ],
)
def test_independent_items_get_wilson(k, n, ref):
    from statsmodels.stats.proportion import proportion_confint

    res = mlci.llm_ci(_log(_ones(k, n)))
    r = res.models["A"]
    assert r.method == "wilson_modified"
    assert "proportion of answers" in res.details["method_reason"]
    assert tuple(r.confidence_interval) == pytest.approx(ref, abs=1e-12)
    # Wilson's own lower bound (and upper bound with more than 3 failures)
    wilson = proportion_confint(k, n, method="wilson")
    assert r.confidence_interval[0] == pytest.approx(wilson[0], abs=1e-12)
    if n - k > 3:
        assert r.confidence_interval[1] == pytest.approx(wilson[1], abs=1e-12)


def test_same_interval_as_bootstrap_ci():
    # every door: llm_ci of 0/1 answers == bootstrap_ci(answers, metric="mean",
    # conditions=unit) under auto, unit the condition, else the item with repeats
    rng = np.random.default_rng(0)
    n, K = 60, 3
    cond = np.repeat(np.arange(12), 5)
    x = (rng.random(n * K) < 0.85).astype(float)
    item = np.repeat(np.arange(n), K)
    cases = [
        (_log(x[:n]), x[:n], None, "wilson_modified"),
        (_log(x, repeats=K), x, item, "logit_t"),
        (_log(x, repeats=K, conditions=cond), x, cond[item], "logit_t"),
        (_log(x[:n], conditions=cond), x[:n], cond, "logit_t"),
    ]
    for log, values, unit, method in cases:
        got = mlci.llm_ci(log, conditions="g" if log.conditions else None, rng=5).models["A"]
        ref = mlci.bootstrap_ci(values, metric="mean", conditions=unit, rng=5)
        assert got.method == ref.method == method
        assert got.confidence_interval == ref.confidence_interval
        assert got.standard_error == ref.standard_error


def test_near_the_bound_over_conditions_korn_graubard(tmp_path, capsys):
    # within 0.1 of 1 (not on it) over items answered several times or over conditions,
    # every door gives Korn & Graubard's interval (mlci.engine.clustered_edge, the engine's
    # auto rule): llm_ci, bootstrap_ci of the mean of the 0/1 answers and of accuracy,
    # compare's system interval and the CLI agree to 1e-12, and equal the engine's
    # korn_graubard interval (checked against R's survey package in
    # tests/r/test_r_clustered_edge.py) of a CR2 standard error computed here by hand
    from mlci.cli import main
    from mlci.intervals.near_bound import korn_graubard_interval

    rng = np.random.default_rng(6)
    n, K = 60, 3
    cond = np.repeat(np.arange(12), 5)
    x = (rng.random(n * K) < 0.96).astype(float)
    item = np.repeat(np.arange(n), K)
    cases = [(_log(x, repeats=K), x, item), (_log(x, repeats=K, conditions=cond), x, cond[item])]
    for log, values, unit in cases:
        res = mlci.llm_ci(log, conditions="g" if log.conditions else None, rng=5)
        got = res.models["A"]
        assert 0.9 < got.estimate < 1
        assert got.method == "korn_graubard"
        assert got.details["method_reason"].startswith("korn_graubard: a proportion over")
        assert "korn_graubard" in res.details["method_reason"]
        ones = np.ones(len(values), dtype=int)
        with warnings.catch_warnings():  # the difference with a perfect system: its own
            warnings.simplefilter("ignore", mlci.FewConditionsWarning)
            cmp = mlci.compare(ones, {"A": values.astype(int), "B": ones}, metric="accuracy",
                               conditions=unit, rng=5)  # fmt: skip
        doors = {
            "mean": mlci.bootstrap_ci(values, metric="mean", conditions=unit, rng=5),
            "accuracy": mlci.bootstrap_ci(
                ones, values.astype(int), metric="accuracy", conditions=unit, rng=5
            ),
            "compare": cmp.systems["A"],
        }
        for door, ref in doors.items():
            assert ref.method == "korn_graubard", door
            assert tuple(ref.confidence_interval) == pytest.approx(
                tuple(got.confidence_interval), abs=1e-12
            ), door
        # the standard error: CR2 by hand (Bell & McCaffrey 2002), h_g = n_g / N
        N = len(values)
        z = np.bincount(unit, values - values.mean())
        h = np.bincount(unit) / N
        se = np.sqrt(np.sum(z**2 / (1 - h))) / N
        lin = doors["mean"].details["linearized"]
        assert lin["standard_error"] == pytest.approx(se, abs=1e-14)
        one = {"standard_error": se, "df": lin["df"], "effective_n": lin["effective_n"]}
        low, high, _ = korn_graubard_interval(got.estimate, one, confidence_level=0.95)
        assert (float(low), float(high)) == pytest.approx(tuple(got.confidence_interval), abs=1e-12)
    # the CLI: one row of the same numbers
    path = tmp_path / "answers.csv"
    path.write_text("y,a,g\n" + "".join(f"1,{int(v)},{u}\n" for v, u in zip(x, item, strict=True)))
    capsys.readouterr()
    assert main(["ci", str(path), "--label", "y", "--pred", "a", "--condition", "g",
                 "--metric", "accuracy", "--seed", "5", "--json"]) == 0  # fmt: skip
    row = json.loads(capsys.readouterr().out)[0]
    ref = mlci.bootstrap_ci(np.ones(len(x), int), x.astype(int), metric="accuracy",
                            conditions=item, rng=5)  # fmt: skip
    assert row["method"] == "korn_graubard"
    ci = row["confidence_interval"]
    assert (ci["low"], ci["high"]) == pytest.approx(tuple(ref.confidence_interval), abs=1e-12)
    # a proportion away from the bound keeps the logit t, one on it the logit t's Wilson
    import contextlib

    for q in (0.8, 1.0):
        y = (rng.random(n * K) < q).astype(float)
        near = pytest.warns(mlci.FewConditionsWarning) if q == 1 else contextlib.nullcontext()
        with near:  # no error at all: the engine's near-bound warning, through both doors
            got = mlci.llm_ci(_log(y, repeats=K), rng=5).models["A"]
        with near:
            ref = mlci.bootstrap_ci(y, metric="mean", conditions=item, rng=5)
        assert got.method == ref.method == "logit_t"
        assert got.confidence_interval == ref.confidence_interval


def test_where_the_rule_does_not_apply_auto_stays_studentized():
    rng = np.random.default_rng(1)
    x = (rng.random(120) < 0.8).astype(float)
    half = x.copy()
    half[0] = 0.5  # a score between 0 and 1: not a proportion of answers
    assert mlci.llm_ci(_log(half), rng=0).models["A"].method == "studentized"
    # unequal repeats: the mean of the item means is not the mean of the answers
    log = mlci.eval_log(model=["A"] * 7, item=[0, 0, 1, 2, 2, 2, 3], repeat=[0, 1, 0, 0, 1, 2, 0],
                        score=[1, 0, 1, 1, 1, 0, 1])  # fmt: skip
    assert mlci.llm_ci(log, rng=0).models["A"].method == "studentized"
    # macro average of two tasks of unequal sizes: a weighted mean
    log = mlci.eval_log(model=["A"] * 120, item=np.arange(120), score=x,
                        task=np.where(np.arange(120) < 40, "t1", "t2"))  # fmt: skip
    assert mlci.llm_ci(log, aggregate="macro", rng=0).models["A"].method == "studentized"
    assert mlci.llm_ci(log, rng=0).models["A"].method == "wilson_modified"
    # the pinned methods are not touched: cr1 is the harness's standard error
    assert mlci.llm_ci(_log(x), method="cr1").models["A"].method == "cr1"
    assert answer_design(log, _table(log), None) is not None


def _table(log):
    from mlci.llm.estimands import item_table

    return item_table(log)


def test_exact_coverage_of_independent_items():
    # exact coverage of llm_ci's default over the binomial outcomes (no simulation error),
    # averaged over 40 values of p in [0.9, 0.995] (one p alone is a discrete step: at
    # n = 30, p = 0.95 the 90% and 95% Wilson intervals hold the same outcomes), and of the
    # same driver at 90%: the bounds reject a 90% interval labelled 95%
    ps = np.linspace(0.9, 0.995, 40)
    for n in (30, 200):
        k = np.arange(n + 1)
        pmf = stats.binom.pmf(k[None, :], n, ps[:, None])
        cover = {}
        for level in (0.95, 0.90):
            ci = [mlci.llm_ci(_log(_ones(j, n)), confidence_level=level, n_resamples=10,
                              rng=0).models["A"].confidence_interval for j in k]  # fmt: skip
            lo, hi = (np.array(x) for x in zip(*ci, strict=True))
            hit = (lo[None, :] <= ps[:, None]) & (ps[:, None] <= hi[None, :])
            cover[level] = (pmf * hit).sum(axis=1)
        # the modified Wilson interval's exact coverage (mlci.simulate's binomial sum) at
        # every p; its bounds are checked against the paper's formula in tests/test_levels.py
        wilson = [
            mlci.simulate.exact_proportion_coverage(n, p, method="wilson_modified") for p in ps
        ]
        assert cover[0.95] == pytest.approx(wilson, abs=1e-9)
        assert 0.94 <= cover[0.95].mean() <= 0.97
        # (the modified interval's 90%: 0.928 at n = 30, 0.907 at n = 200; its 95%: 0.963,
        # 0.953)
        assert cover[0.90].mean() < 0.935


def test_tango_pairs_of_independent_items():
    rng = np.random.default_rng(2)
    a = (rng.random(150) < 0.97).astype(float)
    b = np.where(rng.random(150) < 0.04, 1 - a, a)
    c = (rng.random(150) < 0.9).astype(float)
    log = _log(np.stack([a, b, c]), models=("a", "b", "c"))
    res = mlci.llm_compare(log)
    ref = mlci.compare(None, {"a": a, "b": b, "c": c}, metric="mean", correction="holm")
    assert "tango" in res.details["method_reason"]
    for got, want in zip(res.differences, ref.differences, strict=True):
        assert got.method == want.method == "tango"
        assert tuple(got.confidence_interval) == pytest.approx(tuple(want.confidence_interval),
                                                               abs=1e-12)  # fmt: skip
        assert got.pvalue == pytest.approx(want.pvalue, abs=1e-12)
        assert got.pvalue_adjusted == pytest.approx(want.pvalue_adjusted, abs=1e-12)
    # simultaneous interval: Tango's at the Bonferroni level
    d = res.difference("a", "b")
    table = mlci.paired_table(a, b)
    sim = mlci.paired_proportion_diff_ci(table, method="tango", confidence_level=1 - 0.05 / 3)
    assert tuple(d.simultaneous_interval) == pytest.approx(tuple(sim.confidence_interval))


def test_mover_is_newcombe_for_independent_answers():
    # with every answer its own unit, the CR2 correlation is the phi coefficient and the
    # MOVER of two Wilson intervals is Newcombe's method 8
    rng = np.random.default_rng(3)
    a = (rng.random(80) < 0.95).astype(float)
    b = np.where(rng.random(80) < 0.1, 1 - a, a)
    models = [mlci.bootstrap_ci(v, metric="mean") for v in (a, b)]
    got = mover_pairs(AnswerDesign(np.stack([a, b]), None, "independent items"), models,
                      np.array([0]), np.array([1]), 0.95, 0.99, "two-sided")[0]  # fmt: skip
    ref = mlci.paired_proportion_diff_ci(mlci.paired_table(a, b), method="newcombe_unadjusted")
    assert tuple(got["interval"]) == pytest.approx(tuple(ref.confidence_interval), abs=1e-12)
    assert got["correlation"] == pytest.approx(np.corrcoef(a, b)[0, 1], abs=1e-12)


def test_mover_pairs_over_conditions():
    rng = np.random.default_rng(4)
    G, n = 25, 100
    cond = np.concatenate([np.arange(G), rng.integers(0, G, n - G)])
    u = rng.normal(0, 1, G)[cond]
    pa, pb = (1 / (1 + np.exp(-(s - u))) for s in (3.5, 3.0))
    a, b = ((rng.random(n) < q).astype(float) for q in (pa, pb))
    log = _log(np.stack([a, b]), conditions=cond, models=("a", "b"))
    res = mlci.llm_compare(log, conditions="g")
    d = res.differences[0]
    assert d.method == "mover" and "mover" in res.details["method_reason"]
    # the definition: the models' intervals (bootstrap_ci's over the conditions: Korn &
    # Graubard's within 0.1 of the bound, mlci.engine.clustered_edge) and the
    # correlation of the two means from their CR2 covariance
    from mlci.engine.clustered_edge import clustered_proportion_method

    ra, rb = (mlci.bootstrap_ci(v, metric="mean", conditions=cond,
                                method=clustered_proportion_method(v.mean()))
              for v in (a, b))  # fmt: skip
    assert ra.method == rb.method == "korn_graubard"  # both within 0.1 of 1
    (la, ua), (lb, ub) = ra.confidence_interval, rb.confidence_interval
    za, zb = (np.bincount(cond, v - v.mean()) for v in (a, b))
    h = np.bincount(cond) / n
    cov = np.sum(za * zb / (1 - h))
    r = cov / np.sqrt(np.sum(za**2 / (1 - h)) * np.sum(zb**2 / (1 - h)))
    ea, eb = a.mean(), b.mean()
    low = ea - eb - np.sqrt((ea - la) ** 2 + (ub - eb) ** 2 - 2 * r * (ea - la) * (ub - eb))
    high = ea - eb + np.sqrt((ua - ea) ** 2 + (eb - lb) ** 2 - 2 * r * (ua - ea) * (eb - lb))
    assert tuple(d.confidence_interval) == pytest.approx((low, high), abs=1e-12)
    assert d.standard_error == pytest.approx(np.sqrt(np.sum((za - zb) ** 2 / (1 - h))) / n)
    # the p-value inverts the interval: at level 1 - p a bound reaches 0
    at = mlci.llm_compare(log, conditions="g", confidence_level=1 - d.pvalue)
    assert min(abs(x) for x in at.differences[0].confidence_interval) < 1e-6
    assert d.significant == (not low <= 0 <= high)
    # one-sided: the two-sided bound at 2c - 1, half the p-value toward the estimate
    one = mlci.llm_compare(log, conditions="g", alternative="greater").differences[0]
    two90 = mlci.llm_compare(log, conditions="g", confidence_level=0.9).differences[0]
    assert one.confidence_interval.low == pytest.approx(two90.confidence_interval.low)
    assert one.pvalue == pytest.approx(d.pvalue / 2 if d.estimate > 0 else 1 - d.pvalue / 2)


def test_pairs_at_the_bound():
    # both models right on every item of 30 clusters: no difference, a finite interval
    log = _log(np.ones((2, 90)), repeats=3, models=("a", "b"))
    with pytest.warns(mlci.FewConditionsWarning):
        res = mlci.llm_compare(log)
    d = res.differences[0]
    assert d.estimate == 0 and d.pvalue == 1.0 and not d.significant
    lo, hi = d.confidence_interval
    assert -0.2 < lo < 0 < hi < 0.2


# ----------------------------------------------------------------- coverage (reduced, slow)
SCALE = float(os.environ.get("MLCI_SLOW_SCALE", "1"))
N_REPS = max(1200, round(4000 * SCALE))

#: cells of scripts/llm_coverage.py --bounds near the bounds (repeats, clusters; pairs of
#: models near 1) where the default is near its level, pooled for the test.  300 test sets
#: per cell (the CI scale): pooled coverage 0.948 (models) and 0.953 (pairs) at 95%, and
#: 0.893 and 0.899 for the same intervals at 90% (bounds_cell(..., confidence_level=0.9)),
#: which the lower test rejects (p < 1e-6)
MODEL_CELLS = [(120, 30, 0.3, 3, 0.9, None), (120, 30, 0.3, 3, 0.95, None),
               (200, None, 0.0, 3, 0.9, None), (100, None, 0.0, 3, 0.9, None)]  # fmt: skip
PAIR_CELLS = [(100, None, 0.0, 3, 0.95, 0.93), (200, 50, 0.2, 1, 0.95, 0.93),
              (200, None, 0.0, 3, 0.99, 0.98), (200, 50, 0.2, 5, 0.95, 0.93)]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["models", "pairs"])
def test_coverage_near_the_bounds(kind):
    # pooled over the cells: k hits in N test sets; two one-sided exact binomial tests at
    # 0.001 against [0.93, 0.975]
    script = load_script("llm_coverage.py")
    cells = MODEL_CELLS if kind == "models" else PAIR_CELLS
    per = N_REPS // len(cells)
    k = N = 0
    for c in cells:
        r = script.bounds_cell(*c, reps=per, n_resamples=50, methods=("auto",))
        k += round(r["coverage"]["auto"] * per)
        N += per
    low = stats.binomtest(k, N, 0.93, alternative="less").pvalue
    high = stats.binomtest(k, N, 0.975, alternative="greater").pvalue
    assert low > 1e-3, f"coverage {k / N:.3f} below 0.93 ({N} test sets)"
    assert high > 1e-3, f"coverage {k / N:.3f} above 0.975 ({N} test sets)"
