"""Invariants of every public interval driver near the bounds (issue 20, item 3).

tests/test_properties.py states the invariants on test sets away from the edge (6+ of each
class, accuracy 0.55-0.995).  ``method="auto"`` now switches to analytic intervals on
data-dependent rules near the edge (tests/_edge_designs.py lists them), and a rule that
switches by level or by data can break an invariant the old suite never visited.  Here
the same invariants run over near-bound data (0-5 errors per class, a class of 2-20,
near-perfect rankings, 2-8 conditions of unequal sizes) through every door:
``bootstrap_ci``, ``compare`` (a system and a pair), ``auc_ci``, ``eer_ci`` and
``Scores.bootstrap_ci``, ``operating_point_ci``, ``metric_by_group``, ``llm_ci`` and the
CLI's ``mlci ci --json``:

* bounds inside the metric's range, finite, width at most the range, the estimate inside;
* nesting: the 99% interval contains the 95% one, which contains the 90% one (same rng),
  also where ``auto`` picks other methods at other levels;
* one-sided intervals: the 95% ``greater`` lower bound lies inside the 95% two-sided
  interval, and equals the 90% two-sided lower bound when both use one method (``less``
  alike; compare's systems stay two-sided, as documented);
* row order, integer ``sample_weight`` = repeated rows, a strictly increasing transform of
  the scores (rank metrics), swapping the positive class;
* label truth: where ``auto`` names an analytic method, calling that method directly
  gives the same bounds (1e-12), and ``method_reason`` names it.

Examples are few and derandomized (``MLCI_EDGE_EXAMPLES`` multiplies them for a longer
local search).  An invariant that fails on main is a strict xfail naming the defect with
its minimal example.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

import mlci
from _edge_designs import (
    EER_TIE,
    EQUAL_CONDITIONS,
    GROUP_TIES,
    HULL_ONE_SIDED,
    TAILS_CONDITIONS,
    TAILS_IID,
    TAILS_RANKING,
    TIED_NEGATIVES,
    ZERO_SE,
    EdgeData,
    edge_designs,
    quiet,
)

SCALE = float(os.environ.get("MLCI_EDGE_EXAMPLES", "1"))


def examples(n: int) -> settings:
    return settings(
        max_examples=max(1, int(n * SCALE)),
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


B = 200
UNIT, SIGNED = (0.0, 1.0), (-1.0, 1.0)


# -------------------------------------------------------------------------- drivers
@dataclass(frozen=True)
class Driver:
    """A public door: ``run(data, **kw)`` -> a result with ``confidence_interval``,
    ``estimate``, ``method`` (and ``details``); ``range`` is the metric's range; ``scores``
    says it reads the scores (a rank metric)."""

    name: str
    run: Callable[..., Any]
    range: tuple[float, float]
    scores: bool = False
    weights: bool = False
    one_sided: bool = True
    #: whether the metric is defined on ``d`` (precision needs a predicted positive)
    valid: Callable[[EdgeData], bool] | None = None

    def __call__(self, d: EdgeData, **kw: Any) -> Any:
        return self.run(d, **kw)

    def defined(self, d: EdgeData) -> bool:
        return self.valid is None or self.valid(d)


def _predicts_positive(d: EdgeData) -> bool:
    return bool(np.any(d.pred == 1))


def _both_predicted(d: EdgeData) -> bool:
    """MCC is undefined (0/0) when every decision is the same."""
    return bool(np.any(d.pred == 1) and np.any(d.pred == 0))


def _boot(metric: str, x: str = "pred", **extra: Any) -> Callable[..., Any]:
    def run(d: EdgeData, **kw: Any) -> Any:
        return quiet(
            mlci.bootstrap_ci, d.y, getattr(d, x), metric=metric, conditions=d.conditions,
            n_resamples=B, rng=0, **extra, **kw,
        )  # fmt: skip

    return run


def _compare(metric: str, x: str = "pred", pair: bool = False) -> Callable[..., Any]:
    def run(d: EdgeData, **kw: Any) -> Any:
        res = quiet(
            mlci.compare, d.y, {"a": getattr(d, x), "b": getattr(d, x + "_b")}, metric=metric,
            conditions=d.conditions, n_resamples=B, rng=0, **kw,
        )  # fmt: skip
        return res.difference("a", "b") if pair else res.systems["a"]

    return run


def _auc_ci(d: EdgeData, **kw: Any) -> Any:
    return quiet(mlci.auc_ci, d.y, d.score, conditions=d.conditions, n_resamples=B, rng=0, **kw)


def _eer_ci(d: EdgeData, **kw: Any) -> Any:
    sc = mlci.Scores.from_labels(d.y, d.score)
    return quiet(mlci.eer_ci, sc, conditions=d.conditions, n_resamples=B, rng=0, **kw).eer


def _scores(metric: str, **extra: Any) -> Callable[..., Any]:
    def run(d: EdgeData, **kw: Any) -> Any:
        sc = mlci.Scores.from_labels(d.y, d.score)
        return quiet(
            sc.bootstrap_ci, metric, conditions=d.conditions, n_resamples=B, rng=0, **extra, **kw
        )

    return run


def _operating_point(d: EdgeData, **kw: Any) -> Any:
    sc = mlci.Scores.from_labels(d.y, d.score)
    res = quiet(
        mlci.operating_point_ci, sc, "fnr", at=0.1, conditions=d.conditions, n_resamples=B,
        rng=0, **kw,
    )  # fmt: skip
    return res[0]


def _by_group(metric: str, **extra: Any) -> Callable[..., Any]:
    """metric_by_group's overall row (every sample; two groups, each holding half of each
    class)."""

    def run(d: EdgeData, **kw: Any) -> Any:
        out = quiet(
            mlci.metric_by_group, d.y, d.score, groups=d.group, metric=metric,
            conditions=d.conditions, n_resamples=B, rng=0, **extra, **kw,
        )  # fmt: skip
        row = out.rows()[-1]
        assert row["group"] == "(overall)"
        return SimpleNamespace(
            confidence_interval=(row["low"], row["high"]), estimate=row["estimate"],
            method=out.method, details=out.details, confidence_level=out.confidence_level,
        )  # fmt: skip

    return run


def _llm(d: EdgeData, **kw: Any) -> Any:
    """llm_ci of model A's answers right (``pred == y``); conditions as passages."""
    n = len(d.y)
    item = np.arange(n)
    cond = {"passage": np.tile(d.conditions, 2)} if d.conditions is not None else None
    log = mlci.eval_log(
        model=["A"] * n + ["B"] * n, item=np.r_[item, item],
        score=np.r_[d.pred == d.y, d.pred_b == d.y].astype(float), conditions=cond,
    )  # fmt: skip
    res = quiet(
        mlci.llm_ci, log, conditions=None if cond is None else "passage", n_resamples=B, rng=0,
        **kw,
    )  # fmt: skip
    return res.models["A"]


DECISION = ["accuracy", "error_rate", "f1", "balanced_accuracy", "recall", "specificity"]
BOOTSTRAP = [Driver(f"bootstrap_ci[{m}]", _boot(m), UNIT, weights=True) for m in DECISION] + [
    Driver(
        "bootstrap_ci[precision]",
        _boot("precision"),
        UNIT,
        weights=True,
        valid=_predicts_positive,
    ),
    Driver("bootstrap_ci[mcc]", _boot("mcc"), SIGNED, weights=True, valid=_both_predicted),
    Driver("bootstrap_ci[cohen_kappa]", _boot("cohen_kappa"), SIGNED, weights=True),
    Driver("bootstrap_ci[roc_auc]", _boot("roc_auc", "score"), UNIT, True, True),
    Driver(
        "bootstrap_ci[average_precision]", _boot("average_precision", "score"), UNIT, True, True
    ),
]
# compare's systems keep two-sided intervals whatever ``alternative`` (its documentation):
# only the pairs are one-sided
COMPARE = [
    Driver("compare[accuracy].a", _compare("accuracy"), UNIT, one_sided=False),
    Driver("compare[balanced_accuracy].a", _compare("balanced_accuracy"), UNIT, one_sided=False),
    Driver("compare[f1].a", _compare("f1"), UNIT, one_sided=False),
    Driver("compare[roc_auc].a", _compare("roc_auc", "score"), UNIT, True, one_sided=False),
    Driver("compare[accuracy].a-b", _compare("accuracy", pair=True), SIGNED),
    Driver("compare[balanced_accuracy].a-b", _compare("balanced_accuracy", pair=True), SIGNED),
    Driver("compare[f1].a-b", _compare("f1", pair=True), SIGNED),
    Driver("compare[roc_auc].a-b", _compare("roc_auc", "score", pair=True), SIGNED, True),
]
SCORES = [
    Driver("auc_ci", _auc_ci, UNIT, True),
    Driver("eer_ci", _eer_ci, UNIT, True),
    Driver("Scores.bootstrap_ci[eer]", _scores("eer"), UNIT, True),
    Driver("Scores.bootstrap_ci[auc]", _scores("auc"), UNIT, True),
    Driver("Scores.bootstrap_ci[fnr_at_fpr]", _scores("fnr_at_fpr", at=0.1), UNIT, True),
    Driver("operating_point_ci[fnr@fpr]", _operating_point, UNIT, True),
    Driver("metric_by_group[eer]", _by_group("eer"), UNIT, True, True),
    Driver("metric_by_group[fnr]", _by_group("fnr", threshold=1.0), UNIT, False, True),
    Driver("llm_ci", _llm, UNIT),
]
DRIVERS = BOOTSTRAP + COMPARE + SCORES
IDS = [d.name for d in DRIVERS]


#: (test, door) pairs that fail on main, with the defect: each property runs the minimal
#: examples of tests/_edge_designs.py first (``@example``), so these fail on every run,
#: whatever the derandomized search draws; the minimal examples are also the strict xfails
#: at the end of this file
NAN_LLM = (
    "llm_ci's korn_graubard over conditions with equal shares gives NaN bounds (see "
    "test_llm_ci_korn_graubard_on_equal_conditions_is_finite)"
)
KNOWN: dict[tuple[str, str], str] = {}


def doors(test: str, drivers: list[Driver]) -> list[Any]:
    """``drivers`` as parameters, those of :data:`KNOWN` for ``test`` as strict xfails."""
    return [
        pytest.param(
            d,
            id=d.name,
            marks=[pytest.mark.xfail(strict=True, reason=KNOWN[test, d.name])]
            if (test, d.name) in KNOWN
            else [],
        )
        for d in drivers
    ]


def bounds(res: Any) -> tuple[float, float]:
    lo, hi = res.confidence_interval
    return float(lo), float(hi)


# ------------------------------------------------------------------------ invariants
def check_range(driver: Driver, res: Any, d: EdgeData) -> None:
    """Bounds finite, inside the metric's range, no wider than it; the estimate inside."""
    lo, hi = bounds(res)
    rlo, rhi = driver.range
    why = (d.describe(), res.method, res.confidence_level, (lo, hi), float(res.estimate))
    assert math.isfinite(lo) and math.isfinite(hi), why
    assert rlo <= lo <= hi <= rhi, why
    assert hi - lo <= rhi - rlo, why
    assert lo - 1e-12 <= float(res.estimate) <= hi + 1e-12, why


@pytest.mark.parametrize("driver", doors("levels", DRIVERS))
@examples(12)
@given(d=edge_designs(low_end=None))
@example(d=EER_TIE)
@example(d=TIED_NEGATIVES)
@example(d=ZERO_SE)
@example(d=EQUAL_CONDITIONS)
def test_levels_inside_range_and_nested(driver: Driver, d: EdgeData) -> None:
    # each level asked directly with the same rng: auto may choose another method at
    # another level (a rule on "half a tail's replicates" depends on alpha), and the
    # intervals must still nest: 90% inside 95% inside 99%
    assume(driver.defined(d))
    r90, r95, r99 = (driver(d, confidence_level=c) for c in (0.90, 0.95, 0.99))
    for r in (r90, r95, r99):
        check_range(driver, r, d)
    (lo90, hi90), (lo95, hi95), (lo99, hi99) = map(bounds, (r90, r95, r99))
    why = (d.describe(), [r.method for r in (r90, r95, r99)], (lo90, hi90), (lo95, hi95))
    assert lo95 <= lo90 + 1e-12 and hi90 <= hi95 + 1e-12, why
    why = (d.describe(), [r.method for r in (r90, r95, r99)], (lo95, hi95), (lo99, hi99))
    assert lo99 <= lo95 + 1e-12 and hi95 <= hi99 + 1e-12, why


ONE_SIDED = [d for d in DRIVERS if d.one_sided]


def _same_tail_symmetric(*results: Any) -> bool:
    """Whether a one-sided interval at level c is the two-sided one at 2c - 1 on its side.

    Not where Brown, Cai & DasGupta's modified Wilson interval replaced a bound (and the
    MOVER interval built from it): near the edge that bound is the one-sided Poisson bound
    at ``alpha = 1 - c`` for a two-sided interval as for a one-sided one (as in the paper
    and DescTools; :func:`mlci.intervals.formulas.modified_wilson_edges`), so the
    one-sided 95% bound equals the two-sided 95% one there, not the 90% one.
    """
    return not any(r.details.get("modified") or _given(r) == "mover_wilson" for r in results)


@pytest.mark.parametrize("driver", doors("one_sided", ONE_SIDED))
@examples(10)
@given(d=edge_designs(low_end=None))
@example(d=EER_TIE)
@example(d=TAILS_CONDITIONS)
@example(d=TAILS_IID)
@example(d=TAILS_RANKING)
@example(d=HULL_ONE_SIDED)
def test_one_sided_matches_two_sided(driver: Driver, d: EdgeData) -> None:
    assume(driver.defined(d))
    two95, two90 = driver(d), driver(d, confidence_level=0.90)
    est = float(two95.estimate)
    rlo, rhi = driver.range
    for alt in ("greater", "less"):
        one = driver(d, alternative=alt)
        lo, hi = bounds(one)
        why = (alt, d.describe(), one.method, two95.method, two90.method, (lo, hi),
               bounds(two95), bounds(two90))  # fmt: skip
        # one-sided: one end at the range's end, the other inside the 95% two-sided one
        # and on the estimate's side
        if alt == "greater":
            assert hi == rhi or math.isinf(hi), why
            assert bounds(two95)[0] - 1e-12 <= lo <= est + 1e-12, why
            if one.method == two90.method and _same_tail_symmetric(one, two90):
                assert lo == pytest.approx(bounds(two90)[0], abs=1e-9), why
        else:
            assert lo == rlo or math.isinf(lo), why
            assert est - 1e-12 <= hi <= bounds(two95)[1] + 1e-12, why
            if one.method == two90.method and _same_tail_symmetric(one, two90):
                assert hi == pytest.approx(bounds(two90)[1], abs=1e-9), why


# ----------------------------------------------------------------------- row order
# The documented scope (tests/test_properties.py): rank metrics draw in order of score at
# any n, with or without conditions; decision metrics draw counts per atom from n = 64
# (iid); near-bound rules read counts, so the analytic intervals follow.
RANK = [d for d in DRIVERS if d.scores]
RANK_IDS = [d.name for d in RANK]
DECISION_IID = [d for d in BOOTSTRAP if not d.scores]


def _same_result(r: Any, s: Any, why: Any) -> None:
    assert float(s.estimate) == pytest.approx(float(r.estimate), rel=1e-12, abs=1e-12), why
    assert s.method == r.method, why
    np.testing.assert_allclose(bounds(s), bounds(r), rtol=1e-9, atol=1e-12, err_msg=str(why))


@pytest.mark.parametrize("driver", doors("row_order", RANK))
@examples(6)
@given(d=edge_designs(), perm_seed=st.integers(0, 2**32 - 1))
@example(d=GROUP_TIES, perm_seed=0)
def test_row_order_rank_metrics(driver: Driver, d: EdgeData, perm_seed: int) -> None:
    o = np.random.default_rng(perm_seed).permutation(len(d.y))
    _same_result(driver(d), driver(d.take(o)), d.describe())


@pytest.mark.parametrize("driver", DECISION_IID, ids=[d.name for d in DECISION_IID])
@examples(6)
@given(d=edge_designs(min_n=64, clustered=False), perm_seed=st.integers(0, 2**32 - 1))
def test_row_order_decision_metrics(driver: Driver, d: EdgeData, perm_seed: int) -> None:
    assume(driver.defined(d))
    o = np.random.default_rng(perm_seed).permutation(len(d.y))
    _same_result(driver(d), driver(d.take(o)), d.describe())


# ------------------------------------------------------------------ integer weights
WEIGHTED = [d for d in DRIVERS if d.weights]


@pytest.mark.parametrize("driver", WEIGHTED, ids=[d.name for d in WEIGHTED])
@examples(6)
@given(d=edge_designs(max_n=150), wseed=st.integers(0, 2**32 - 1))
def test_integer_weights_equal_repeated_rows(driver: Driver, d: EdgeData, wseed: int) -> None:
    # frequency weights: the interval of the repeated rows, bit for bit; a plain
    # (survey) weight: the same estimate
    assume(driver.defined(d))
    w = np.random.default_rng(wseed).integers(1, 4, len(d.y))
    rep = d.take(np.repeat(np.arange(len(d.y)), w))
    r, s = driver(d, sample_weight=mlci.frequency_weights(w)), driver(rep)
    why = (d.describe(), w.tolist())
    assert float(r.estimate) == float(s.estimate), why
    assert r.method == s.method, why
    np.testing.assert_array_equal(bounds(r), bounds(s), err_msg=str(why))
    u = driver(d, sample_weight=w)
    assert float(u.estimate) == pytest.approx(float(s.estimate), rel=1e-10, abs=1e-12), why


# ------------------------------------------------------ increasing score transforms
def _cube(s: np.ndarray) -> np.ndarray:
    return (s - 1.0) ** 3


TRANSFORMS = {"exp": np.exp, "cube": _cube}
TRANSFORMED = [d for d in RANK if "fnr]" not in d.name]


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("driver", TRANSFORMED, ids=[d.name for d in TRANSFORMED])
@examples(5)
@given(d=edge_designs())
def test_rank_metrics_invariant_under_increasing_transform(
    driver: Driver, transform: str, d: EdgeData
) -> None:
    f = TRANSFORMS[transform]
    t = d.replace(score=f(d.score), score_b=f(d.score_b))
    _same_result(driver(d), driver(t), d.describe())


# ------------------------------------------------------------ swapping the classes
def _kw(d: EdgeData) -> dict[str, Any]:
    return {"conditions": d.conditions, "n_resamples": B, "rng": 0}


@pytest.mark.parametrize(
    "door",
    # auc_ci: fixed, the Scores bootstrap draws the class whose label sorts first first,
    # whichever is positive (scores/_data.py PositivesFirst); before, pos_label=0 drew
    # the other class first: AUC 0.0208 (n 220), [0.0071, 0.0593] against the mirrored
    # [0.0067, 0.0486]
    ["bootstrap_ci", "auc_ci"],
)
@examples(15)
@given(d=edge_designs())
def test_swapping_positive_class_mirrors_roc_auc(door: str, d: EdgeData) -> None:
    if door == "bootstrap_ci":
        r = quiet(mlci.bootstrap_ci, d.y, d.score, metric="roc_auc", **_kw(d))
        s = quiet(mlci.bootstrap_ci, d.y, d.score, metric="roc_auc", pos_label=0, **_kw(d))
    else:
        r = quiet(mlci.auc_ci, d.y, d.score, **_kw(d))
        s = quiet(mlci.auc_ci, d.y, d.score, pos_label=0, **_kw(d))
    why = (d.describe(), r.method, s.method, bounds(r), bounds(s))
    assert float(s.estimate) == pytest.approx(1 - float(r.estimate), rel=1e-12, abs=1e-12), why
    assert s.method == r.method, why
    lo, hi = bounds(r)
    np.testing.assert_allclose(
        bounds(s), (1 - hi, 1 - lo), rtol=1e-10, atol=1e-12, err_msg=str(why)
    )


@pytest.mark.parametrize(
    ("metric", "swapped"), [("recall", "specificity"), ("specificity", "recall")]
)
@examples(15)
@given(d=edge_designs(low_end=None))
def test_swapping_positive_class_maps_recall_and_specificity(
    metric: str, swapped: str, d: EdgeData
) -> None:
    r = quiet(mlci.bootstrap_ci, d.y, d.pred, metric=metric, **_kw(d))
    s = quiet(mlci.bootstrap_ci, d.y, d.pred, metric=swapped, pos_label=0, **_kw(d))
    _same_result(r, s, (d.describe(), bounds(r), bounds(s)))


@pytest.mark.parametrize("metric", ["accuracy", "balanced_accuracy"])
@examples(15)
@given(d=edge_designs(low_end=None, clustered=False))
def test_relabelling_both_classes_keeps_analytic_interval(metric: str, d: EdgeData) -> None:
    # 1 - y, 1 - pred: the same accuracy and balanced accuracy; where auto's interval
    # reads only the counts (Wilson, MOVER-Wilson: symmetric in the classes) it is the same
    r = quiet(mlci.bootstrap_ci, d.y, d.pred, metric=metric, **_kw(d))
    s = quiet(mlci.bootstrap_ci, 1 - d.y, 1 - d.pred, metric=metric, **_kw(d))
    why = (d.describe(), r.method, s.method, bounds(r), bounds(s))
    assert float(s.estimate) == pytest.approx(float(r.estimate), rel=1e-12, abs=1e-15), why
    if _given(r) in ("wilson", "wilson_modified", "mover_wilson"):
        assert _given(s) == _given(r), why
        np.testing.assert_allclose(bounds(s), bounds(r), rtol=1e-10, atol=1e-12, err_msg=str(why))


@examples(15)
@given(d=edge_designs(clustered=False))
def test_swapping_scored_class_keeps_eer(d: EdgeData) -> None:
    # Scores.swap(): the negatives become the scored class; the EER stays, and its score
    # interval (auto's, with few errors) reads the two error counts symmetrically
    sc = mlci.Scores.from_labels(d.y, d.score)
    r = quiet(mlci.eer_ci, sc, n_resamples=B, rng=0).eer
    s = quiet(mlci.eer_ci, sc.swap(), n_resamples=B, rng=0).eer
    why = (d.describe(), r.method, s.method, bounds(r), bounds(s))
    assert float(s.estimate) == pytest.approx(float(r.estimate), rel=1e-12, abs=1e-15), why
    if r.method == "wilson":
        assert s.method == "wilson", why
        np.testing.assert_allclose(bounds(s), bounds(r), rtol=1e-10, atol=1e-12, err_msg=str(why))


def _given(res: Any) -> str:
    """The method whose interval ``res`` holds: a studentized result's near-bound
    fallback where it replaced every element."""
    fb = res.details.get("edge_fallback_method")
    return (
        str(fb)
        if res.method == "studentized" and fb and res.details.get("edge_fallback")
        else res.method
    )


# --------------------------------------------------------------------- label truth
NAMED = [d for d in BOOTSTRAP + SCORES if not d.name.startswith(("metric_by_group", "llm"))]


@pytest.mark.parametrize("driver", NAMED, ids=[d.name for d in NAMED])
@examples(10)
@given(d=edge_designs(low_end=None), level=st.sampled_from([0.90, 0.95, 0.99]))
def test_method_named_by_auto_gives_the_same_interval(
    driver: Driver, d: EdgeData, level: float
) -> None:
    # result.method under auto names what was given: asking for that method by name
    # (same rng) gives the same bounds, and method_reason begins with it or names it
    assume(driver.defined(d))
    r = driver(d, confidence_level=level)
    reason = str(r.details.get("method_reason", ""))
    why = (d.describe(), r.method, _given(r), bounds(r), reason[:200])
    assert _given(r) in reason, why
    if r.method in (
        "auc-score-floored",
        "mover_wilson",
        "mover_korn_graubard",
        "exact_no_error",
    ) or (driver.scores and r.method == "wilson"):
        # analytic intervals the door does not take by name (the Scores drivers' method
        # is a bootstrap method or auto): re-read from the result by name; the direct
        # analytic calls are checked below
        s = r.interval(confidence_level=level, method=r.method)
    else:
        s = driver(d, confidence_level=level, method=r.method)
    np.testing.assert_allclose(bounds(s), bounds(r), rtol=1e-12, atol=1e-12, err_msg=str(why))


PROPORTIONS = {  # metric -> (successes, trials) of its proportion
    "accuracy": lambda d: (np.sum(d.pred == d.y), len(d.y)),
    "error_rate": lambda d: (np.sum(d.pred != d.y), len(d.y)),
    "recall": lambda d: (np.sum((d.pred == 1) & (d.y == 1)), np.sum(d.y == 1)),
    "specificity": lambda d: (np.sum((d.pred == 0) & (d.y == 0)), np.sum(d.y == 0)),
}


@pytest.mark.parametrize("metric", sorted(PROPORTIONS))
@examples(15)
@given(
    d=edge_designs(low_end=None, clustered=False),
    level=st.sampled_from([0.90, 0.95, 0.99]),
    alternative=st.sampled_from(["two-sided", "greater", "less"]),
)
def test_wilson_label_is_proportion_ci(
    metric: str, d: EdgeData, level: float, alternative: str
) -> None:
    r = quiet(
        mlci.bootstrap_ci, d.y, d.pred, metric=metric, n_resamples=B, rng=0,
        confidence_level=level, alternative=alternative,
    )  # fmt: skip
    assume(r.method in ("wilson", "wilson_modified"))
    k, n = PROPORTIONS[metric](d)
    ref = mlci.proportion_ci(
        int(k), int(n), method=r.method, confidence_level=level, alternative=alternative
    )
    why = (d.describe(), r.method, bounds(r), bounds(ref))
    np.testing.assert_allclose(bounds(r), bounds(ref), rtol=1e-12, atol=1e-12, err_msg=str(why))


@examples(20)
@given(
    d=edge_designs(low_end=None, clustered=False),
    level=st.sampled_from([0.90, 0.95, 0.99]),
    alternative=st.sampled_from(["two-sided", "greater", "less"]),
)
def test_mover_wilson_label_is_mover_of_the_classes(
    d: EdgeData, level: float, alternative: str
) -> None:
    from mlci.intervals.bootstrap import wilson_interval
    from mlci.intervals.mover import mover_wilson_interval

    r = quiet(
        mlci.bootstrap_ci, d.y, d.pred, metric="balanced_accuracy", n_resamples=B, rng=0,
        confidence_level=level, alternative=alternative,
    )  # fmt: skip
    assume(_given(r) == "mover_wilson")
    neg, pos = d.y == 0, d.y == 1
    counts = (int(np.sum(neg & (d.pred == 0))), int(neg.sum()),
              int(np.sum(pos & (d.pred == 1))), int(pos.sum()))  # fmt: skip
    low, high, _ = mover_wilson_interval(
        counts, wilson_interval, confidence_level=level, alternative=alternative
    )
    why = (d.describe(), r.method, bounds(r), (float(low), float(high)))
    np.testing.assert_allclose(bounds(r), (low, high), rtol=1e-12, atol=1e-12, err_msg=str(why))
    assert "mover_wilson" in r.details["method_reason"], why


AUC_DOORS = {
    "bootstrap_ci": lambda d, **kw: quiet(
        mlci.bootstrap_ci, d.y, d.score, metric="roc_auc", n_resamples=B, rng=0, **kw
    ),
    "auc_ci": lambda d, **kw: quiet(mlci.auc_ci, d.y, d.score, n_resamples=B, rng=0, **kw),
    "Scores.bootstrap_ci": lambda d, **kw: quiet(
        mlci.Scores.from_labels(d.y, d.score).bootstrap_ci, "auc", n_resamples=B, rng=0, **kw
    ),
    "compare": lambda d, **kw: quiet(
        mlci.compare,
        d.y,
        {"a": d.score, "b": d.score_b},
        metric="roc_auc",
        n_resamples=B,
        rng=0,
        **kw,
    ).systems["a"],
}


@pytest.mark.parametrize("door", sorted(AUC_DOORS))
@examples(15)
@given(d=edge_designs(clustered=False), level=st.sampled_from([0.90, 0.95, 0.99]))
def test_auc_score_label_is_auc_score_ci(door: str, d: EdgeData, level: float) -> None:
    r = AUC_DOORS[door](d, confidence_level=level)
    assume(r.method == "auc-score-floored")
    ref = mlci.auc_score_ci(d.y, d.score, variant="floored", confidence_level=level)
    why = (d.describe(), bounds(r), bounds(ref))
    np.testing.assert_allclose(bounds(r), bounds(ref), rtol=1e-12, atol=1e-12, err_msg=str(why))


@examples(20)
@given(d=edge_designs(clustered=False), level=st.sampled_from([0.90, 0.95, 0.99]))
def test_eer_wilson_label_is_eer_score_interval(d: EdgeData, level: float) -> None:
    from mlci.engine.scores_rules import eer_score_interval, error_counts

    r = quiet(mlci.eer_ci, mlci.Scores.from_labels(d.y, d.score), n_resamples=B, rng=0,
              confidence_level=level).eer  # fmt: skip
    assume(r.method == "wilson")
    u_neg, c_neg = np.unique(d.score[d.y == 0], return_counts=True)
    u_pos, c_pos = np.unique(d.score[d.y == 1], return_counts=True)
    fn, fp = error_counts(u_neg, c_neg.astype(float), u_pos, c_pos.astype(float))
    ref = eer_score_interval(fn, fp, float(c_pos.sum()), float(c_neg.sum()), confidence_level=level)
    why = (d.describe(), bounds(r), ref)
    np.testing.assert_allclose(bounds(r), ref, rtol=1e-12, atol=1e-12, err_msg=str(why))


def _placements(y: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """DeLong's placement values from the pairwise comparisons (ties one half)."""
    gt = (s[y == 1][:, None] > s[y == 0][None, :]) + 0.5 * (
        s[y == 1][:, None] == s[y == 0][None, :]
    )
    return gt.mean(axis=1), gt.mean(axis=0)


@examples(15)
@given(d=edge_designs(clustered=False), level=st.sampled_from([0.90, 0.95, 0.99]))
def test_paired_auc_mover_label_is_mover_of_the_systems(d: EdgeData, level: float) -> None:
    # compare's 'mover' pair of ROC AUCs: Zou & Donner's (2008) MOVER of the two systems'
    # auc_score_ci('floored') bounds with DeLong's correlation of the two AUCs
    res = quiet(mlci.compare, d.y, {"a": d.score, "b": d.score_b}, metric="roc_auc",
                n_resamples=B, rng=0, confidence_level=level)  # fmt: skip
    pair = res.difference("a", "b")
    assume(pair.method == "mover")
    (pa, qa), (pb, qb) = _placements(d.y, d.score), _placements(d.y, d.score_b)
    m, n = pa.size, qa.size
    va = np.var(pa, ddof=1) / m + np.var(qa, ddof=1) / n
    vb = np.var(pb, ddof=1) / m + np.var(qb, ddof=1) / n
    cov = np.cov(pa, pb, ddof=1)[0, 1] / m + np.cov(qa, qb, ddof=1)[0, 1] / n
    r = float(np.clip(cov / np.sqrt(va * vb), -1, 1)) if va > 0 and vb > 0 else 0.0
    a, b = (
        mlci.auc_score_ci(d.y, x, variant="floored", confidence_level=level)
        for x in (d.score, d.score_b)
    )
    (la, ua), (lb, ub) = bounds(a), bounds(b)
    la, ua, lb, ub = a.estimate - la, ua - a.estimate, b.estimate - lb, ub - b.estimate
    diff = a.estimate - b.estimate
    low = diff - np.sqrt(max(la**2 + ub**2 - 2 * r * la * ub, 0.0))
    high = diff + np.sqrt(max(ua**2 + lb**2 - 2 * r * ua * lb, 0.0))
    low, high = max(low, -1.0), min(high, 1.0)
    why = (d.describe(), bounds(pair), (low, high), r)
    assert float(pair.estimate) == pytest.approx(diff, abs=1e-12), why
    np.testing.assert_allclose(bounds(pair), (low, high), rtol=1e-10, atol=1e-12, err_msg=str(why))


@examples(20)
@given(d=edge_designs(clustered=False), level=st.sampled_from([0.90, 0.95, 0.99]))
def test_operating_point_wilson_label_is_rate_score_interval(d: EdgeData, level: float) -> None:
    from mlci.engine.scores_rules import error_counts, rate_score_interval

    sc = mlci.Scores.from_labels(d.y, d.score)
    r = quiet(mlci.operating_point_ci, sc, "fnr", at=0.1, n_resamples=B, rng=0,
              confidence_level=level)[0]  # fmt: skip
    assume(r.method == "wilson")
    u_neg, c_neg = np.unique(d.score[d.y == 0], return_counts=True)
    u_pos, c_pos = np.unique(d.score[d.y == 1], return_counts=True)
    fn, fp = error_counts(u_neg, c_neg.astype(float), u_pos, c_pos.astype(float))
    ref = rate_score_interval(
        fn, float(c_pos.sum()), fp, float(c_neg.sum()), 0.1, confidence_level=level
    )
    why = (d.describe(), bounds(r), ref)
    np.testing.assert_allclose(bounds(r), ref, rtol=1e-12, atol=1e-12, err_msg=str(why))


@examples(15)
@given(d=edge_designs(clustered=True, min_n=30), level=st.sampled_from([0.90, 0.95, 0.99]))
def test_llm_ci_interval_is_bootstrap_ci_of_the_answers(d: EdgeData, level: float) -> None:
    # llm_ci's proportion is bootstrap_ci(answers, metric="mean", conditions=...) with the
    # method it names (korn_graubard near 0/1, else auto's)
    r = _llm(d, confidence_level=level)
    x = (d.pred == d.y).astype(float)
    method = r.method if r.method == "korn_graubard" else "auto"
    s = quiet(mlci.bootstrap_ci, x, metric="mean", conditions=d.conditions, n_resamples=B,
              rng=0, confidence_level=level, method=method)  # fmt: skip
    why = (d.describe(), r.method, s.method, bounds(r), bounds(s))
    np.testing.assert_allclose(bounds(r), bounds(s), rtol=1e-12, atol=1e-12, err_msg=str(why))
    assert r.method == s.method, why


# ---------------------------------------------------------------------------- CLI
@pytest.mark.parametrize(
    ("metric", "column", "errors"),
    [("f1", "pred", (1, 0)), ("balanced_accuracy", "pred", (2, 0)), ("roc_auc", "score", (0, 0))],
)
def test_cli_ci_json_equals_bootstrap_ci(
    tmp_path: Any, metric: str, column: str, errors: Any
) -> None:
    # `mlci ci --json` on a CSV near the bound: the library's interval, its method
    g = np.random.default_rng(7)
    y = np.r_[np.ones(12, int), np.zeros(88, int)]
    pred = y.copy()
    pred[: errors[0]] = 0
    pred[12 : 12 + errors[1]] = 1
    score = np.where(y == 1, 1 + g.random(100), g.random(100))
    path = tmp_path / "edge.csv"
    path.write_text(
        "label,pred,score\n"
        + "".join(f"{a},{b},{float(c)!r}\n" for a, b, c in zip(y, pred, score, strict=True))
    )
    out = subprocess.run(
        [sys.executable, "-m", "mlci.cli", "ci", str(path), "--label", "label", f"--{column}",
         column, "--metric", metric, "-B", str(B), "--seed", "0", "--json", "-q"],
        capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )  # fmt: skip
    (row,) = json.loads(out.stdout)
    low, high = row["confidence_interval"]["low"], row["confidence_interval"]["high"]
    r = quiet(mlci.bootstrap_ci, y, pred if column == "pred" else score, metric=metric,
              n_resamples=B, rng=0)  # fmt: skip
    assert row["method"] == r.method
    np.testing.assert_allclose((low, high), bounds(r), rtol=1e-12)
    assert 0.0 <= low <= row["estimate"] <= high <= 1.0


# ------------------------------------------------------ defects found (minimal examples)
# Each is a strict xfail: it turns into an error (XPASS) when the defect is fixed, and the
# marker is then removed.  The property tests above found them; hypothesis and a greedy
# deletion of samples shrank them.
def test_operating_point_score_interval_with_tied_negatives_nests() -> None:
    # 97 negatives at 0 and 3 at 0.5 (FP counts 100, 3, 0 against n_neg * at = 10),
    # positives: 1 at 0.2, 9 at 1.0; FNR at FPR 0.1 is 0, auto's interval 'wilson'
    sc = mlci.Scores.from_labels(TIED_NEGATIVES.y, TIED_NEGATIVES.score)
    r95, r99 = (
        quiet(mlci.operating_point_ci, sc, "fnr", at=0.1, n_resamples=B, rng=0,
              confidence_level=c)[0]
        for c in (0.95, 0.99)
    )  # fmt: skip
    assert r95.method == r99.method == "wilson"
    (lo95, hi95), (lo99, hi99) = bounds(r95), bounds(r99)
    assert lo99 <= lo95 and hi95 <= hi99, ((lo95, hi95), (lo99, hi99))
    # fixed (engine/scores_rules.py: the profile runs over the ROC polyline, on which
    # the estimate is read): the tie's segment reaches 10 false alarms with no miss, so
    # the 95% interval is Wilson's of 0 in 10 (statsmodels proportion_confint(0, 10,
    # method="wilson") = (0, 0.27753279986288923)); before: [0, 1]
    assert (lo95, hi95) == pytest.approx((0.0, 0.27753279986288923), abs=1e-12)


def test_korn_graubard_on_zero_standard_error_is_finite() -> None:
    # 5 positives, 5 negatives, one false positive; the second condition holds one
    # (correct) positive: balanced accuracy's standard error over the conditions is 0
    # (1.9e-10 from the numerical gradient); the design effect is taken as 1
    # (mlci.intervals.near_bound.korn_graubard_interval; before: [0.9, nan] at 95%)
    d = ZERO_SE
    for level in (0.90, 0.95):
        r = quiet(mlci.bootstrap_ci, d.y, d.pred, metric="balanced_accuracy",
                  conditions=d.conditions, n_resamples=B, rng=0, method="korn_graubard",
                  confidence_level=level)  # fmt: skip
        assert np.all(np.isfinite(bounds(r))), (level, bounds(r))


def test_korn_graubard_on_zero_standard_error_takes_the_design_effect_as_one() -> None:
    # what it is there: Clopper-Pearson on the effective size of the samples' standard
    # error as independent (the same metric without conditions, method="t"), no df
    # factor; scipy.stats.beta as the reference, said in the result's details, and no
    # DegenerateIntervalWarning (the few conditions are warned about)
    from scipy.stats import beta

    d = ZERO_SE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.FewConditionsWarning)  # 2 conditions
        r = mlci.bootstrap_ci(d.y, d.pred, metric="balanced_accuracy",
                              conditions=d.conditions, n_resamples=B, rng=0,
                              method="korn_graubard")  # fmt: skip
    iid = quiet(mlci.bootstrap_ci, d.y, d.pred, metric="balanced_accuracy", n_resamples=B,
                rng=0, method="t")  # fmt: skip
    se = iid.details["linearized"]["standard_error"]
    u = float(r.estimate)
    n = u * (1 - u) / se**2
    ref = (beta.ppf(0.025, u * n, n - u * n + 1), beta.ppf(0.975, u * n + 1, n - u * n))
    assert r.details["linearized"]["standard_error"] < 1e-8
    assert r.details["linearized"]["standard_error_iid"] == pytest.approx(se, rel=1e-12)
    np.testing.assert_allclose(bounds(r), ref, rtol=1e-12)
    assert "design effect taken as 1" in r.details["fallback"]


def test_korn_graubard_without_any_standard_error_says_it_is_undefined() -> None:
    # no standard error over the conditions and none of the samples as independent
    # either: both bounds NaN, with a warning naming the cause and what to use instead
    from mlci.intervals.near_bound import korn_graubard_interval

    lin = {"standard_error": 0.0, "df": 1.0, "iid": False}
    with pytest.warns(mlci.DegenerateIntervalWarning, match="korn_graubard' is undefined"):
        low, high, _ = korn_graubard_interval(0.9, lin, confidence_level=0.95)
    assert np.isnan(low) and np.isnan(high)


def test_auto_on_zero_standard_error_is_finite() -> None:
    # the same data under auto: balanced accuracy's MOVER of the classes' intervals
    d = ZERO_SE
    for level in (0.90, 0.95):
        r = quiet(mlci.bootstrap_ci, d.y, d.pred, metric="balanced_accuracy",
                  conditions=d.conditions, n_resamples=B, rng=0,
                  confidence_level=level)  # fmt: skip
        assert r.method == "mover_korn_graubard"
        assert np.all(np.isfinite(bounds(r))), (level, bounds(r))


def test_llm_ci_korn_graubard_on_equal_conditions_is_finite() -> None:
    # 20 items in 2 passages (alternating), one wrong answer in each: 0.9
    n = 20
    score = np.ones(n)
    score[:2] = 0
    log = mlci.eval_log(model=["A"] * n, item=np.arange(n), score=score,
                        conditions={"passage": np.arange(n) % 2})  # fmt: skip
    r = quiet(mlci.llm_ci, log, conditions="passage", n_resamples=B, rng=0).models["A"]
    # fewer than 8 conditions: the logit t interval, as bootstrap_ci's auto (engine rule)
    assert r.method == "logit_t"
    assert np.all(np.isfinite(bounds(r))), bounds(r)


def test_one_sided_bound_inside_two_sided_conditions() -> None:
    # balanced accuracy 0.05 over 5 conditions, 25 samples (greedy-shrunk from hypothesis)
    y, pred = TAILS_CONDITIONS.y, TAILS_CONDITIONS.pred
    kw = {"metric": "balanced_accuracy", "conditions": TAILS_CONDITIONS.conditions,
          "n_resamples": B, "rng": 0}  # fmt: skip
    two = quiet(mlci.bootstrap_ci, y, pred, **kw)
    greater = quiet(mlci.bootstrap_ci, y, pred, alternative="greater", **kw)
    assert two.method == "korn_graubard"
    assert bounds(two)[0] <= bounds(greater)[0] <= float(two.estimate)


def test_eer_score_interval_contains_estimate_through_a_tie() -> None:
    # 10 negatives (one at 1.0), 110 positives (11 at 1.0): FN/FP (0, 1) or (11, 0) at
    # the thresholds, EER 0.05 halfway along the tie's segment
    sc = mlci.Scores.from_labels(EER_TIE.y, EER_TIE.score)
    r = quiet(mlci.eer_ci, sc, n_resamples=B, rng=0).eer
    assert r.method == "wilson"
    assert r.estimate == pytest.approx(0.05)
    lo, hi = bounds(r)
    assert lo <= r.estimate <= hi, (lo, hi)
    # fixed (the profile follows the tie's segment): [0.0131, 0.2775]; before [0.0596, 0.277]
    assert (lo, hi) == pytest.approx((0.013140623, 0.277532800), abs=1e-8)


def test_mover_wilson_interval_is_labelled_as_such() -> None:
    # 20 positives with 1 miss, 80 negatives with 10 false alarms
    y = np.r_[np.ones(20, int), np.zeros(80, int)]
    pred = y.copy()
    pred[0], pred[20:30] = 0, 1
    r = quiet(mlci.bootstrap_ci, y, pred, metric="balanced_accuracy", n_resamples=B, rng=0)
    assert r.details["edge_fallback_method"] == "mover_wilson"
    assert r.method == "mover_wilson"


def test_one_sided_bound_inside_two_sided_iid() -> None:
    # average precision, 2 positives among 20 (ranks 9 and 19 of 0-19): before session 11
    # two-sided 95% logit_t [0.0951, 0.9521] (both tails decide), 'less' studentized
    # [0, 0.9738]; with fewer than 10 positives both are BCa now (seed-14 #34)
    y, s = TAILS_IID.y, TAILS_IID.score
    kw = {"metric": "average_precision", "n_resamples": B, "rng": 0}
    two = quiet(mlci.bootstrap_ci, y, s, **kw)
    less = quiet(mlci.bootstrap_ci, y, s, alternative="less", **kw)
    assert two.method == less.method == "bca"
    assert float(two.estimate) <= bounds(less)[1] <= bounds(two)[1]


def test_metric_by_group_row_order_with_ties() -> None:
    # found by test_row_order_rank_metrics (fixed here, scores/groups.py): the per-sample
    # draws went through the rows in their order, so with tied scores the overall EER's
    # percentile bound moved with it (0.28607 against 0.28571 reversed); the group
    # kernel's atoms now have a canonical order (Kernel.atom_rank), as bootstrap_ci's
    # ranking kernels
    y, s, g = GROUP_TIES.y, GROUP_TIES.score, GROUP_TIES.group
    kw = {"metric": "eer", "n_resamples": B, "rng": 0}
    a = quiet(mlci.metric_by_group, y, s, groups=g, **kw).rows()[-1]
    b = quiet(mlci.metric_by_group, y[::-1], s[::-1], groups=g[::-1], **kw).rows()[-1]
    assert a["group"] == b["group"] == "(overall)"
    np.testing.assert_allclose((b["low"], b["high"]), (a["low"], a["high"]), rtol=1e-12)
