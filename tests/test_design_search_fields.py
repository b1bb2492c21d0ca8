"""The design search over the fields' drivers (``scripts/design_search_fields.py``).

A reduced run for CI: the script's designs of every family run on small populations and
reproduce with a seed; its truths equal the drivers' estimates on the population (or on
200,000 samples, within Monte Carlo error); its shortcuts (per-segment statistics and
per-query values straight into :func:`mlci.bootstrap_ci`) give what :func:`mlci.mt_ci` and
:func:`mlci.ir_ci` give; and its verdict flags an interval computed at 90% and labelled
95% (issue 20, item 7), which a correctly labelled one on the same test sets passes.
The seed-10 search and its worst designs are in docs/validation.md ("The fields' drivers
searched").
"""

from __future__ import annotations

import dataclasses
import os
import warnings

import numpy as np
import pytest

from _scripts import load_script, warned

SCALE = float(os.environ["MLCI_SLOW_SCALE"])

pytestmark = [pytest.mark.slow, pytest.mark.search]

dsf = load_script("design_search_fields.py")


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch, tmp_path) -> object:
    """The script with small populations, cached under ``tmp_path``."""
    monkeypatch.setattr(dsf, "MT_SEGMENTS", 1500)
    monkeypatch.setattr(dsf, "IR_QUERIES", 200)
    monkeypatch.setattr(dsf, "CORR_POP", 120)
    monkeypatch.setattr(dsf, "CACHE", str(tmp_path))
    monkeypatch.setattr(dsf, "_MEMO", {})
    return dsf


def _one_per_family(seed: int = 10) -> list:
    out, seen = [], set()
    for i in range(200):
        d = dsf.random_design(i, seed)
        if d.family not in seen:
            seen.add(d.family)
            out.append(d)
    return out


def test_every_family_runs_and_reproduces(small) -> None:
    designs = _one_per_family()
    assert {d.family for d in designs} == {f[0] for f in dsf.FAMILIES}
    reps = max(2, round(10 * SCALE))
    for d in designs:
        d = dataclasses.replace(d, n=min(d.n, 60))
        a = small.run_design(d, reps, B=60, seed=3)
        b = small.run_design(d, reps, B=60, seed=3)
        assert a["failed"] == 0, (d.label(), a["errors"])
        assert set(a["methods"]) == {"auto", "bca", "percentile"}, d.label()
        for key in ("methods", "truth", "warned", "auto_methods", "verdict"):
            assert a[key] == b[key], (d.label(), key)
        assert np.isfinite(a["truth"])


def test_designs_are_fixed_by_seed_and_index() -> None:
    assert dsf.random_design(7, 10) == dsf.random_design(7, 10)
    assert dsf.random_design(7, 10) != dsf.random_design(7, 11)
    focused = {dsf.random_design(i, 10, "correlation").family for i in range(10)}
    assert focused == {"correlation"}


@pytest.mark.filterwarnings("ignore::mlci.AttenuatedCorrelationWarning")  # 9 x 14, shared q
@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")  # the global level, 9 systems
@pytest.mark.parametrize("level", ["system", "global", "item"])
@pytest.mark.parametrize("coefficient", ["pearson", "spearman", "kendall_tau"])
def test_correlation_truth_is_the_drivers_coefficient(level: str, coefficient: str) -> None:
    # the truth is the script's coefficient on the population matrix: on any matrix it
    # equals correlation_ci's estimate (scipy's definitions)
    g = np.random.default_rng(4)
    q = g.standard_normal((9, 1))
    x, z = q + g.standard_normal((9, 14)), q + g.standard_normal((9, 14))
    x[0, :3] = x[1, :3]  # ties
    res = dsf.mlci.correlation_ci(
        x, z, coefficient=coefficient, correlation_level=level, n_resamples=20, rng=0
    )
    assert dsf.corr_value(x, z, coefficient, level) == pytest.approx(res.estimate, abs=1e-12)


D = dsf.Design
LARGE = [
    D(0, "agreement", "fleiss_kappa", 0, False,
      {"resample": "items", "k": 3, "raters": 4, "error": 0.3, "rare": True, "spread": 0.1}),
    D(1, "agreement", "alpha_ordinal", 0, False,
      {"resample": "items", "k": 4, "raters": 3, "error": 0.4, "rare": False, "spread": 0.1}),
    D(2, "agreement", "alpha_interval", 0, False,
      {"resample": "items", "k": 5, "raters": 3, "error": 0.5, "rare": True, "spread": 0.05}),
    D(4, "regression", "mae", 0, False,
      {"dist": "lognormal", "shape": 1.2, "var_x": 1.0, "conditions": 0, "icc": 0.0}),
    D(5, "regression", "mae", 0, False,
      {"dist": "t", "shape": 3.0, "var_x": 1.0, "conditions": 0, "icc": 0.0}),
    D(7, "calibration", "ece_plugin", 0, False,
      {"a": 0.7, "b": 2.0, "shape": "temperature", "gamma": 0.6}),
    D(8, "calibration", "ece_quantile", 0, False,
      {"a": 0.7, "b": 2.0, "shape": "power", "gamma": 1.5}),
    D(10, "calibration", "ece_debiased", 0, False,
      {"a": 2.0, "b": 1.0, "shape": "power", "gamma": 1.5}),
    D(12, "calibration", "brier_resolution", 0, False,
      {"a": 2.0, "b": 1.0, "shape": "temperature", "gamma": 1.5}),
    D(13, "calibration", "calibration_slope", 0, False,
      {"a": 2.0, "b": 1.0, "shape": "temperature", "gamma": 1.5}),
    D(15, "weighted", "accuracy", 0, False, {"scheme": "pps", "tilt": 1.2, "error": 0.2}),
    D(17, "weighted", "mean", 0, False,
      {"scheme": "strata", "strata": 5, "seed": 3, "error": 0.2}),
    D(19, "mt", "wer", 0, False, {"unit": "utterances", "rate": 0.05, "icc": 0.3}),
]  # fmt: skip


@pytest.mark.parametrize("design", LARGE, ids=lambda d: f"{d.family}:{d.metric}")
def test_truths_are_what_the_estimators_converge_to(design) -> None:
    # the estimate on 200,000 samples (items, forecasts, utterances) of the population is
    # within a few Monte Carlo standard errors of the truth (quadrature, exact formulas)
    d = dataclasses.replace(design, n=200_000)
    pop = dsf.Population(d)
    x = pop.draw(np.random.default_rng(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the l2 ECE warns at every call
        res = dsf._run(d, x, "percentile", {"n_resamples": 10, "rng": 0}, 0.95)
    tol = 0.01 if d.metric != "mae" else 0.005
    assert res.estimate == pytest.approx(pop.truth, abs=tol)


@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")
def test_shortcuts_are_the_drivers() -> None:
    # the script hands sacreBLEU's statistics and ir_measures' per-query values to
    # bootstrap_ci, as mt_ci and ir_ci do: the same interval on the same seed
    pytest.importorskip("sacrebleu")
    pytest.importorskip("ir_measures")
    from mlci.ir import per_query
    from mlci.mt import synthetic_corpus, system_statistics

    c = synthetic_corpus(60, rng=2)
    st = system_statistics(c.systems, c.references, metric="bleu")["sys0"]
    via = dsf.mlci.bootstrap_ci(st, metric="bleu", conditions=c.documents, n_resamples=200, rng=5)
    mt = dsf.mlci.mt_ci(
        c.systems["sys0"], c.references, conditions=c.documents, n_resamples=200, rng=5
    )
    assert tuple(via.confidence_interval) == pytest.approx(tuple(mt.confidence_interval))
    run = {f"q{i}": {f"d{j}": float(10 - j + (i % 3)) for j in range(8)} for i in range(25)}
    qrels = {f"q{i}": {f"d{(i * 7 + j) % 8}": 1 + j % 2 for j in range(3)} for i in range(25)}
    v = per_query(run, qrels, "ndcg@10").values["nDCG@10"]
    a = dsf.mlci.bootstrap_ci(v, metric="mean", n_resamples=200, rng=5)
    b = dsf.mlci.ir_ci(run, qrels, measure="ndcg@10", n_resamples=200, rng=5)
    assert tuple(a.confidence_interval) == pytest.approx(tuple(b.confidence_interval))


def test_verdict_flags_a_90_percent_interval_labelled_95() -> None:
    # auto's interval computed at 90% and judged as 95% on 1,500 test sets (a mean of 60
    # samples, studentized): under-covers where BCa and the percentile interval hold, and
    # the verdict says so; the 95% interval on the same test sets passes.  Power: the
    # exact binomial test at 0.01 rejects 0.935 from 1,380 hits down; a 90% interval
    # expects 1,350 (sd 11.6), so it is flagged with probability above 0.99
    d = D(0, "regression", "mae", 60, False,
          {"dist": "normal", "shape": 0.0, "var_x": 1.0, "conditions": 0, "icc": 0.0})  # fmt: skip
    wrong = dsf.run_design(d, 1500, B=200, seed=1, auto_level=0.90)
    right = dsf.run_design(d, 1500, B=200, seed=1)
    assert wrong["methods"]["bca"] == right["methods"]["bca"]
    assert any(f.startswith("auto under-covers") for f in wrong["verdict"]["flags"])
    assert wrong["unwarned"]
    assert right["verdict"]["flags"] == [] and not right["unwarned"]


def test_verdict_reads_the_width_only_where_bca_holds() -> None:
    base = {
        "design": {"n": 12},
        "label": "x",
        "reps": 400,
        "failed": 0,
        "refused": {},
        "errors": [],
        "warned": 0,
        "warned_misses": 0,
        "methods": {
            "auto": {"n": 400, "coverage": 0.95, "median_width": 2.0, "misses_low": 10,
                     "misses_high": 10, "far_edge": 0},
            "bca": {"n": 400, "coverage": 0.80, "median_width": 1.0, "misses_low": 40,
                    "misses_high": 40, "far_edge": 0},
        },
    }  # fmt: skip
    res = dsf.assess(base)
    assert res["verdict"]["flags"] == ["(12 units: below issue 20's n >= 30)"]
    base["methods"]["bca"].update(coverage=0.95)
    res = dsf.assess(base)
    assert "auto/BCa median width 2.00" in res["verdict"]["flags"]


def test_correlation_over_few_items_warns_of_attenuation() -> None:
    # seed-10 #69 (Kendall, 26 systems x 25 items, both: 0.228 of 400 test sets, every
    # miss below the truth): the interval misses the population value and
    # correlation_ci says so (scripts/correlation_attenuation.py: warned in 0.99 of 200)
    d = dsf.random_design(69, 10)
    pop = dsf.Population(dataclasses.replace(d))
    x = pop.draw(np.random.default_rng(0))
    call = lambda: dsf.mlci.correlation_ci(x["x"], x["z"], n_resamples=200, rng=0)  # noqa: E731
    with pytest.warns(dsf.mlci.AttenuatedCorrelationWarning):
        res = call()
    assert res.confidence_interval[1] < pop.truth
    assert warned(call) == ["AttenuatedCorrelationWarning"]


def test_heavy_tailed_regression_errors_warn() -> None:
    # seed-10 #12 (RMSE of log-normal errors, sigma 1.27, n = 182): no interval holds
    # (auto 0.798, BCa 0.682 of 600 test sets); HeavyTailWarning (engine/heavy_tail.py)
    d = dsf.random_design(12, 10)
    x = dsf.Population(d).draw(np.random.default_rng(0))
    assert warned(lambda: dsf.mlci.bootstrap_ci(x["y"], x["a"], metric="rmse", rng=0))
