"""issue 25: an interval that reads no replicate (t, logit_t, korn_graubard, Wilson) does
not draw them when the draw is costly; the result draws them when something reads them,
and every value then equals the same call with a method that reads them (same seed, same
replicates)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import mlci
import mlci.engine.bootstrap as engine
import mlci.engine.deferred as deferred
from mlci.engine.deferred import DeferredReplicates, finish_deferred, replicate_summary
from mlci.engine.plan import PlanSummary
from mlci.results import METHODS_WITHOUT_REPLICATES

RNG = np.random.default_rng(11)
N = 400
Y = RNG.integers(0, 2, N)
SCORE = np.clip(RNG.normal(0.35 + 0.3 * Y, 0.2), 0.01, 0.99)
PRED = (SCORE > 0.5).astype(int)
SPK = RNG.integers(0, 30, N)
VALUES = RNG.normal(size=N)

CASES = [
    ("accuracy", (Y, PRED), {"conditions": SPK}, "logit_t"),  # auto over conditions
    ("accuracy", (Y, PRED), {}, "wilson_modified"),  # auto, iid
    ("accuracy", (Y, PRED), {"conditions": SPK, "method": "korn_graubard"}, "korn_graubard"),
    ("log_loss", (Y, SCORE), {"method": "t"}, "t"),
    ("mean", (VALUES,), {"conditions": SPK, "method": "t"}, "t"),
    ("f1", (Y, PRED), {"method": "t"}, "t"),
]


@pytest.fixture
def always(monkeypatch):
    """Leave the replicates undrawn however cheap the draw (the rule: defer_draw)."""
    monkeypatch.setattr(deferred, "DEFER_MIN_WEIGHTS_PER_SAMPLE", 0)


@pytest.fixture
def draws(monkeypatch):
    """Count the engine's replicate loops."""
    calls = []
    real = engine.run_replicates

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "run_replicates", counted)
    return calls


def _ci(metric, arrays, kw, **extra):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mlci.bootstrap_ci(*arrays, metric=metric, n_resamples=300, rng=7, **{**kw, **extra})


@pytest.mark.parametrize(("metric", "arrays", "kw", "method"), CASES)
def test_no_draw_until_read_then_the_direct_values(always, draws, metric, arrays, kw, method):
    res = _ci(metric, arrays, kw)
    assert res.method == method and method in METHODS_WITHOUT_REPLICATES
    assert draws == []
    # another level of the same method: still nothing drawn, the direct call's interval
    lv = res.interval(confidence_level=0.9)
    assert draws == []
    direct_lv = _ci(metric, arrays, kw, confidence_level=0.9)
    assert lv.confidence_interval == direct_lv.confidence_interval
    # the direct call with a method that reads the replicates: the same replicates
    other = {k: v for k, v in kw.items() if k != "method"}
    perc = _ci(metric, arrays, other, method="percentile")
    n_direct = len(draws)
    np.testing.assert_array_equal(res.bootstrap_distribution, perc.bootstrap_distribution)
    assert len(draws) == n_direct + 1  # drawn once, on first read
    assert res.standard_error == perc.standard_error and res.bias == perc.bias
    assert res.n_invalid == perc.n_invalid
    for key in ("n_invalid_replicates", "replicates_equal_to_estimate", "skewness"):
        assert res.diagnostics[key] == perc.diagnostics[key]
    assert res.interval(method="percentile").confidence_interval == perc.confidence_interval
    assert len(draws) == n_direct + 1  # never drawn again
    # BCa: its jackknife on demand, as method="bca" runs it
    bca = _ci(metric, arrays, other, method="bca")
    again = res.interval(method="bca")
    assert again.confidence_interval == bca.confidence_interval
    assert again.details["acceleration"] == bca.details["acceleration"]
    assert again.details["jackknife_size"] == bca.details["jackknife_size"]


def test_bca_and_other_levels_before_any_read(draws):
    # (iid log loss: an atom per distinct score, the draw is deferred by the default rule)
    res = _ci("log_loss", (Y, SCORE), {"method": "t"})
    bca = res.interval(method="bca", confidence_level=[0.9, 0.99])
    direct = _ci("log_loss", (Y, SCORE), {"method": "bca"}, confidence_level=[0.9, 0.99])
    assert [r.confidence_interval for r in bca] == [r.confidence_interval for r in direct]
    # the t result re-read at a level after the draw keeps its own interval
    assert res.interval(confidence_level=0.9).confidence_interval == (
        _ci("log_loss", (Y, SCORE), {"method": "t"}, confidence_level=0.9).confidence_interval
    )


def test_repr_to_dict_and_pickle_show_the_drawn_values(always):
    res = _ci("accuracy", (Y, PRED), {"conditions": SPK})
    perc = _ci("accuracy", (Y, PRED), {"conditions": SPK}, method="percentile")
    d = res.to_dict(include_distribution=True)
    assert d["standard_error"] == perc.standard_error and d["n_invalid"] == 0
    assert "skewness" in d["details"]["diagnostics"]
    assert f"standard_error={mlci.results.format_value(perc.standard_error)}" in repr(res)
    fresh = _ci("accuracy", (Y, PRED), {"conditions": SPK})
    back = pickle.loads(pickle.dumps(fresh))
    np.testing.assert_array_equal(back.bootstrap_distribution, perc.bootstrap_distribution)
    assert back.confidence_interval == res.confidence_interval


def test_a_cheap_draw_is_made_at_once(draws):
    # accuracy's 4 atoms (iid or over conditions): B x 4 weights, less than 16 per sample;
    # a mean or log loss with an atom per distinct value: deferred
    for metric, arrays, kw, deferred_ in [
        ("accuracy", (Y, PRED), {"conditions": SPK}, False),
        ("accuracy", (Y, PRED), {}, False),
        ("log_loss", (Y, SCORE), {"method": "t"}, True),
        ("mean", (VALUES,), {"method": "t"}, True),
    ]:
        draws.clear()
        _ci(metric, arrays, kw)
        assert (draws == []) == deferred_, metric
    assert deferred.defer_draw(type("S", (), {"n_resamples": 10, "m": 17})(), 10)
    assert not deferred.defer_draw(type("S", (), {"n_resamples": 10, "m": 16})(), 10)


def test_methods_that_read_the_replicates_draw_at_once(always, draws):
    for method in ("percentile", "bca", "studentized", "normal"):
        draws.clear()
        _ci("log_loss", (Y, SCORE), {"method": method})
        assert draws, method


def test_replicate_summary_matches_numpy():
    dist = np.array([[0.1, 0.2], [0.3, np.nan], [0.5, 0.4], [0.2, 0.2]])
    est = np.array([0.25, 0.25])
    s = replicate_summary(est, dist)
    valid = dist[[0, 2, 3]]
    assert s["n_invalid"] == 1
    np.testing.assert_allclose(s["standard_error"], np.std(valid, axis=0, ddof=1))
    np.testing.assert_allclose(s["bias"], valid.mean(axis=0) - est)
    one = replicate_summary(np.float64(0.5), np.array([0.7]))
    assert one["standard_error"] == 0.0 and one["bias"] == pytest.approx(0.2)


def test_finish_deferred_refuses_a_method_that_reads_replicates():
    src = DeferredReplicates(lambda: np.zeros(3), np.float64(0.5), None, lambda: (None, None))
    plan = PlanSummary(n_resamples=3, scheme="iid", n_samples=10, n_conditions=None, n_strata=None)
    for method, linear in (("percentile", {"standard_error": 0.1, "df": 9}), ("t", None)):
        with pytest.raises(ValueError, match="cannot be drawn on demand"):
            finish_deferred(
                np.float64(0.5),
                src,
                plan=plan,
                name="mean",
                method=method,
                confidence_level=0.95,
                alternative="two-sided",
                details=None,
                scheme=None,
                bounds=None,
                elements=None,
                linear=linear,
            )
