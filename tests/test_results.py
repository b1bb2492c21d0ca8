"""Every result of mlci shares one interface (issue 8, section 5).

One instance of every result class (built by the public function that returns it) is
checked for: a one-line repr starting with the class name, ``to_dict()`` of plain
Python values, ``to_json()`` strict (no NaN/Infinity), ``to_frame()`` a non-empty
DataFrame, ``_repr_html_()`` a table, and immutability.  A result class that is public
(in ``mlci.__all__`` or a module's ``__all__``) but has no instance here fails the test.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import pkgutil
import warnings
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pandas as pd
import pytest

import mlci
from mlci import simulate
from mlci.data import llm_example_path
from mlci.results import Result

RNG = np.random.default_rng(0)
N = 200
Y = RNG.integers(0, 2, N)
PRED_A = np.where(RNG.random(N) < 0.85, Y, 1 - Y)
PRED_B = np.where(RNG.random(N) < 0.75, Y, 1 - Y)
PRED_C = np.where(RNG.random(N) < 0.8, Y, 1 - Y)
SCORES = mlci.Scores(RNG.normal(1.5, 1, 150), RNG.normal(0, 1, 150))
TABLE = RNG.random((12, 4))


def _compare() -> mlci.ComparisonResult:
    return mlci.compare(Y, {"A": PRED_A, "B": PRED_B, "C": PRED_C}, metric="accuracy",
                        rng=0, n_resamples=200)  # fmt: skip


@cache
def _llm_log() -> mlci.EvalLog:
    log = mlci.read_eval_logs(llm_example_path(), conditions=["group"])
    return log.select(tasks=["arithmetic"])


def _coverage() -> simulate.CoverageStudy:
    scenario = simulate.Scenario("acc", lambda g: simulate.binary_classification(60, 0.7, rng=g))
    return simulate.coverage_study([scenario], n_experiments=4, n_resamples=50,
                                   methods=["percentile"], rng=0)  # fmt: skip


#: name -> a call returning one result (several per class where they differ in shape)
def _cv() -> mlci.CVResult:
    from sklearn.naive_bayes import GaussianNB

    x = RNG.normal(size=(N, 2)) + Y[:, None]
    return mlci.cross_val_ci(GaussianNB(), x, Y, n_repeats=2, rng=0)


def _bootstrap632() -> mlci.BootstrapErrorResult:
    from sklearn.naive_bayes import GaussianNB

    x = RNG.normal(size=(N, 2)) + Y[:, None]
    return mlci.bootstrap632_ci(GaussianNB(), x, Y, variant="oob", n_bootstraps=20, rng=0)


def _oob() -> mlci.OOBResult:
    from sklearn.ensemble import RandomForestClassifier

    x = RNG.normal(size=(N, 2)) + Y[:, None]
    rf = RandomForestClassifier(40, oob_score=True, random_state=0).fit(x, Y)
    return mlci.oob_ci(rf, x, Y, n_resamples=50, rng=0)


FOLDS_A_ = [0.81, 0.83, 0.80, 0.85, 0.82, 0.84, 0.80, 0.83, 0.81, 0.82]
FOLDS_B_ = [0.80, 0.82, 0.81, 0.83, 0.80, 0.83, 0.80, 0.81, 0.82, 0.80]

BUILDERS: dict[str, Callable[[], Any]] = {
    "CVResult": _cv,
    "OOBResult": _oob,
    "BootstrapErrorResult": _bootstrap632,
    "BootstrapResult": lambda: mlci.bootstrap_ci(Y, PRED_A, metric="accuracy", rng=0,
                                                 n_resamples=200),
    "BootstrapResult per class": lambda: mlci.bootstrap_ci(
        Y, PRED_A, metric="recall", average=None, rng=0, n_resamples=200),
    # an unbounded metric, one-sided: the open bound is +inf (strict JSON: null)
    "BootstrapResult one-sided mean": lambda: mlci.bootstrap_ci(
        RNG.normal(size=50), metric="mean", alternative="greater", rng=0, n_resamples=200),
    "IntervalResult proportion_ci": lambda: mlci.proportion_ci(170, 200),
    "GroupResult": lambda: mlci.metric_by_group(
        Y, np.where(Y == 1, 1.0, 0.0) + RNG.normal(0, 1, N), groups=np.arange(N) % 3,
        threshold=[0.3, 0.6], normalize="by_overall", rng=0, n_resamples=100),
    "IntervalResult delong_ci": lambda: mlci.delong_ci(Y, PRED_A + RNG.random(N)),
    "TestResult mcnemar_test": lambda: mlci.mcnemar_test(y_true=Y, y_pred_a=PRED_A,
                                                       y_pred_b=PRED_B),
    "TestResult friedman_test": lambda: mlci.friedman_test(TABLE),
    "TestResult permutation_test": lambda: mlci.permutation_test(
        Y, PRED_A, PRED_B, metric="accuracy", rng=0, n_resamples=200),
    "ComparisonResult": _compare,
    "PairDifference": lambda: _compare().difference("A", "B"),
    "RankEntry": lambda: _compare().ranking[0],
    "MarginTest": lambda: mlci.paired_margin_test(FOLDS_A_, FOLDS_B_, margin=0.03),
    "MarginTest mcnemar": lambda: mlci.mcnemar_margin_test(
        y_true=Y, y_pred_a=PRED_A, y_pred_b=PRED_B, margin=0.1),
    "BayesianComparison correlated t": lambda: mlci.correlated_bayesian_ttest(
        FOLDS_A_, FOLDS_B_, rope=0.01),
    "BayesianComparison signed-rank": lambda: mlci.bayesian_signed_rank_test(
        FOLDS_A_, FOLDS_B_, rope=0.01, rng=0, n_samples=500),
    "OptimalThreshold": lambda: mlci.optimal_threshold_ci(
        mlci.Scores.from_labels(Y, PRED_A + RNG.random(N)), rng=0, n_resamples=100),
    "PooledResult": lambda: mlci.pooled_ci(Y, [PRED_A, PRED_B, PRED_C], metric="accuracy",
                                           rng=0, n_resamples=100),
    "PostHocResult nemenyi": lambda: mlci.nemenyi_test(TABLE),
    "PostHocResult holm": lambda: mlci.holm_test(TABLE, control=1),
    "CriticalDifference": lambda: mlci.critical_difference(TABLE),
    "PlanResult sample_size_proportion": lambda: mlci.sample_size_proportion(0.05),
    "PlanResult power_mcnemar": lambda: mlci.power_mcnemar(300, 0.05, discordance=0.15),
    "PlanResult llm_sample_size": lambda: mlci.llm_sample_size(
        _llm_log(), "model-a", "model-b", difference=0.05),
    "EvalLog": lambda: _llm_log(),
    "LLMEstimates": lambda: mlci.llm_ci(_llm_log(), conditions="group", rng=0, n_resamples=100),
    "LLMEstimates cr1": lambda: mlci.llm_ci(_llm_log(), conditions="group", method="cr1"),
    "LLMComparison": lambda: mlci.llm_compare(_llm_log(), conditions="group", method="cr1"),
    "LLMComparison reference": lambda: mlci.llm_compare(
        _llm_log(), reference="model-c", rng=0, n_resamples=100),
    "LeaderboardEntry": lambda: mlci.llm_compare(_llm_log(), method="cr1").leaderboard[0],
    "EERResult": lambda: mlci.eer_ci(SCORES, rng=0, n_resamples=200),
    "Curve roc": lambda: mlci.roc_curve(SCORES),
    "Curve det probit": lambda: mlci.det_curve(SCORES),  # ends at -inf/+inf
    "CurveBand vertical": lambda: mlci.roc_band(SCORES, rng=0, n_resamples=200),
    "CurveBand threshold simultaneous": lambda: mlci.roc_band(
        SCORES, [-1.0, 0.0, 1.0, 2.0], kind="threshold", simultaneous=True, rng=0,
        n_resamples=200),
    "CoverageStudy": _coverage,
    "CoverageRow": lambda: _coverage().entries[0],
    "AtomTable": lambda: mlci.reduce_table(
        pd.DataFrame({"y": Y, "p": PRED_A}), "y", "p", metric="accuracy"),
    "MTPairedTest": lambda: _mt_test("paired-bs"),
    "MTPairedTest paired-ar": lambda: _mt_test("paired-ar"),
    "IRComparison": lambda: _ir_compare(),
}  # fmt: skip


def _mt_test(variant: str) -> Any:
    from mlci.mt import paired_test, synthetic_corpus, system_statistics

    c = synthetic_corpus(40, rng=0)
    st = system_statistics(c.systems, c.references)
    return paired_test(st, variant=variant, n_resamples=100)


def _ir_compare() -> Any:
    from mlci.data import ir_example_paths
    from mlci.ir import ir_compare

    p = ir_example_paths()
    return ir_compare(p["runs"], p["qrels"], variant="t")


@cache
def build(name: str) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. few experiments, degenerate band ends
        return BUILDERS[name]()


def _public_result_classes() -> set[type]:
    """Result subclasses in ``mlci.__all__`` or the ``__all__`` of any mlci module."""
    names = [("mlci", mlci.__all__)]
    for info in pkgutil.walk_packages(mlci.__path__, "mlci."):
        try:
            mod = importlib.import_module(info.name)
        except ImportError:  # an optional dependency (e.g. matplotlib) is missing
            continue
        names.append((info.name, getattr(mod, "__all__", [])))
    found = set()
    for modname, public in names:
        mod = importlib.import_module(modname)
        for n in public:
            obj = getattr(mod, n, None)
            if isinstance(obj, type) and issubclass(obj, Result) and obj is not Result:
                found.add(obj)
    return found


def _is_plain(x: Any) -> bool:
    if x is None or isinstance(x, str | bool | int | float):
        return True
    if isinstance(x, list):
        return all(_is_plain(v) for v in x)
    if isinstance(x, dict):
        return all(isinstance(k, str | int) and _is_plain(v) for k, v in x.items())
    return False


def test_every_public_result_class_is_covered():
    covered = {type(build(name)) for name in BUILDERS}
    missing = {c.__name__ for c in _public_result_classes()} - {c.__name__ for c in covered}
    assert not missing, f"result classes without an instance in BUILDERS: {sorted(missing)}"
    # and the list of public result classes is not empty by accident
    assert {"BootstrapResult", "ComparisonResult", "CoverageStudy", "CurveBand"} <= {
        c.__name__ for c in _public_result_classes()
    }


@pytest.mark.parametrize("name", list(BUILDERS))
def test_result_interface(name):
    res = build(name)
    cls = type(res)
    assert isinstance(res, Result) and dataclasses.is_dataclass(res)
    assert name.split()[0] == cls.__name__
    # a readable one-line repr, starting with the class name
    text = repr(res)
    assert text.startswith(f"{cls.__name__}(") and text.endswith(")")
    assert "\n" not in text and len(text) < 400
    assert "array(" not in text and "np.float" not in text
    # plain Python values, and strict JSON (NaN and infinities as null)
    d = res.to_dict()
    assert isinstance(d, dict) and d and _is_plain(d)
    json.dumps(d)
    loaded = json.loads(res.to_json())
    json.dumps(loaded, allow_nan=False)
    assert set(loaded) == {str(k) for k in d}
    # a table: rows, a DataFrame and an HTML view
    rows = res.rows()
    assert isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows)
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) > 0
    page = res._repr_html_()
    assert "<table" in page and cls.__name__ in page
    # immutable
    first = dataclasses.fields(res)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(res, first, None)


@pytest.mark.parametrize("name", [n for n in BUILDERS if not n.startswith("PooledResult")])
def test_frame_is_the_rows(name):
    # to_frame() is the table of rows() (PooledResult's frame has one row per run)
    res = build(name)
    rows, frame = res.rows(), res.to_frame()
    assert len(frame) == len(rows)
    assert list(frame.columns) == list(rows[0])


def test_non_finite_values_become_null_in_json():
    curve = build("Curve det probit")
    assert not np.all(np.isfinite(curve.x))
    loaded = json.loads(curve.to_json())
    assert None in loaded["x"]
    one_sided = build("BootstrapResult one-sided mean")
    assert math.isinf(one_sided.confidence_interval.high)
    assert json.loads(one_sided.to_json())["confidence_interval"]["high"] is None


def test_large_arrays_left_out_of_to_dict():
    boot = build("BootstrapResult")
    assert "bootstrap_distribution" not in boot.to_dict()
    assert "bootstrap_distribution" in boot.to_dict(include_distribution=True)
    band = build("CurveBand threshold simultaneous")
    assert "result" not in band.to_dict() and "fpr_result" not in band.to_dict()["extra"]
    assert band.to_dict()["extra"]["fpr_low"] == band.extra["fpr_low"].tolist()
    assert band.to_dict(include_result=True)["result"]["metric"] == band.result.metric
    comparison = build("ComparisonResult")
    assert "bootstrap_distribution" not in comparison.to_dict()["systems"]["A"]


def test_comparison_views():
    res = build("ComparisonResult")
    assert list(res.to_frame()["a"]) == ["A", "A", "B"]
    systems = res.to_frame("systems")
    assert list(systems.index) == ["A", "B", "C"] and "rank" in systems
    assert res.rows("systems")[0]["system"] == "A"
    # print() shows the per-system and per-pair table
    text = str(res)
    assert text.splitlines()[0] == repr(res) and "A - B" in text and "ranking:" in text
    page = res._repr_html_()
    assert page.count("<table") == 2
    with pytest.raises(ValueError, match="what"):
        res.rows("pairs")


def test_posthoc_rows():
    nem = build("PostHocResult nemenyi")
    assert len(nem.rows()) == 6  # 4 methods: all pairs
    row = nem.rows()[0]
    assert (row["a"], row["b"]) == (nem.names[0], nem.names[1])
    assert row["pvalue"] == nem.pvalues[0, 1]
    holm = build("PostHocResult holm")
    assert [r["b"] for r in holm.rows()] == [holm.control] * 3
    assert all("pvalue_unadjusted" in r for r in holm.rows())


def test_equal_error_rate_is_a_named_tuple_with_a_readable_repr():
    e = SCORES.eer()
    eer, threshold = e
    assert repr(e) == f"EqualErrorRate(eer={eer!r}, threshold={threshold!r})"
    assert isinstance(eer, float) and isinstance(threshold, float)
