"""One mechanism for the analytic intervals ``method="auto"`` gives in place of a bootstrap
interval (issue 20 item 4): ``BootstrapResult.analytic`` (:class:`mlci.results.
AnalyticInterval`), set by :func:`mlci.results.attach_analytic`.

For every mechanism (the studentized interval's near-bound fallbacks ``korn_graubard``,
``logit_t``, ``t``; balanced accuracy's ``mover_wilson``; the EER's and an operating
point's score interval ``wilson``; the AUC's ``auc-score-floored``): the label is the
interval given (checked against the analytic function called directly, to 1e-12), the
result re-read at 90%, 99% and one-sided is that function at that level, and ``to_dict``
is strict JSON.  The rules' coverage is in docs/validation.md; the table of doors in
docs/guide.md, "Which interval, through which door".
"""

from __future__ import annotations

import json
import pickle
import warnings
from typing import Any

import numpy as np
import pytest
from scipy.special import ndtri

import mlci
from _helpers import class_errors as _ba_data
from mlci.engine.scores_rules import eer_score_interval, error_counts, rate_score_interval
from mlci.intervals.bootstrap import effective_binomial_interval, wilson_interval
from mlci.intervals.formulas import logit_t_interval, t_interval
from mlci.intervals.mover import mover_korn_graubard_interval, mover_wilson_interval
from mlci.results import AnalyticInterval, attach_analytic

sm_proportion = pytest.importorskip("statsmodels.stats.proportion")

#: the levels and alternatives every mechanism is re-read at
READS = [(0.90, "two-sided"), (0.99, "two-sided"), (0.95, "greater"), (0.95, "less")]


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn`` with mlci's warnings silenced (auto's near-bound rules warn by design;
    the warnings are tested where the rules are)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        return fn(*args, **kwargs)


def _one_error(n: int = 100) -> tuple[np.ndarray, np.ndarray]:
    y = np.r_[np.ones(n // 2, int), np.zeros(n // 2, int)]
    p = y.copy()
    p[0] = 0
    return y, p


def _ranking_over_conditions() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    g = np.random.default_rng(1)
    y = (np.arange(400) % 2).astype(int)
    return y, g.normal(0, 1, 400) + 4.2 * y, np.arange(400) % 40


def _eer_scores() -> mlci.Scores:
    g = np.random.default_rng(5)  # 30 targets, 0.44 expected errors (test_few_errors.py)
    return mlci.Scores(g.normal(3.8, 1, 30), g.normal(0, 1, 270))


def _op_scores() -> mlci.Scores:
    g = np.random.default_rng(4)  # 12 targets, FNR 0.15 at FPR 0.033 of 591 non-targets
    mu = ndtri(1 - 0.033) - ndtri(0.15)
    return mlci.Scores(g.normal(mu, 1, 12), g.normal(0, 1, 591))


# ------------------------------------------------------------------ every mechanism
def _kg_iid() -> tuple[Any, Any]:
    res = _quiet(mlci.bootstrap_ci, *_one_error(), metric="f1", rng=0, n_resamples=400)
    lin = res.details["linearized"]

    def ref(level: float, alt: str) -> tuple[Any, Any]:
        return effective_binomial_interval(
            res.estimate, lin["standard_error"], None, confidence_level=level,
            alternative=alt, bounds=res.bounds,
        )[:2]  # fmt: skip

    return res, ref


def _kg_conditions() -> tuple[Any, Any]:
    y, p = _one_error(400)
    res = _quiet(mlci.bootstrap_ci, y, p, metric="f1", conditions=np.arange(400) % 40, rng=0,
                 n_resamples=400)  # fmt: skip
    lin = res.details["linearized"]

    def ref(level: float, alt: str) -> tuple[Any, Any]:
        return effective_binomial_interval(
            res.estimate, lin["standard_error"], lin["df"], confidence_level=level,
            alternative=alt, bounds=res.bounds,
        )[:2]  # fmt: skip

    return res, ref


def _logit_t() -> tuple[Any, Any]:
    y, s, cond = _ranking_over_conditions()
    res = _quiet(mlci.bootstrap_ci, y, s, metric="roc_auc", conditions=cond, rng=0,
                 n_resamples=400)  # fmt: skip
    lin = res.details["linearized"]

    def ref(level: float, alt: str) -> tuple[Any, Any]:
        return logit_t_interval(
            res.estimate, lin["standard_error"], lin["df"], confidence_level=level,
            alternative=alt, bounds=res.bounds,
        )[:2]  # fmt: skip

    return res, ref


def _t() -> tuple[Any, Any]:
    # a mean of 2 zeros and 28 twos (tests/engine/test_near_bound.py): resamples without
    # spread; an unbounded metric, so the t interval of the linearized standard error
    x = np.r_[np.zeros(2), np.full(28, 2.0)]
    res = _quiet(mlci.bootstrap_ci, x, metric="mean", rng=0, n_resamples=400)
    lin = res.details["linearized"]

    def ref(level: float, alt: str) -> tuple[Any, Any]:
        return t_interval(
            res.estimate, lin["standard_error"], lin["df"], confidence_level=level,
            alternative=alt,
        )[:2]  # fmt: skip

    return res, ref


def _log_t() -> tuple[Any, Any]:
    # squared errors of one sample in 100: most resamples have no spread (se 0); mse has
    # one bound (0), so the fallback is the t interval on the log scale, logit_t_interval
    # with bounds (0, inf) (it was labelled "t", whose method= gives another interval)
    truth, pred = np.zeros(100), np.zeros(100)
    pred[0] = 3.0
    res = _quiet(mlci.bootstrap_ci, truth, pred, metric="mse", rng=0, n_resamples=400)
    lin = res.details["linearized"]

    def ref(level: float, alt: str) -> tuple[Any, Any]:
        return logit_t_interval(
            res.estimate, lin["standard_error"], lin["df"], confidence_level=level,
            alternative=alt, bounds=(0.0, np.inf),
        )[:2]  # fmt: skip

    return res, ref


def _mover() -> tuple[Any, Any]:
    y, p = _ba_data(900, 10, 100, 2)
    res = _quiet(mlci.bootstrap_ci, y, p, metric="balanced_accuracy", rng=0, n_resamples=400)

    def ref(level: float, alt: str) -> tuple[Any, Any]:
        return mover_wilson_interval(
            (890, 900, 98, 100), wilson_interval, confidence_level=level, alternative=alt
        )[:2]

    return res, ref


def _mover_kg() -> tuple[Any, Any]:
    # balanced accuracy over 30 conditions, one false negative in 182 positives
    g = np.random.default_rng(1)
    cond = np.repeat(np.arange(30), 20)
    y = g.random(600) < 0.3
    p = y.copy()
    p[np.flatnonzero(y)[:1]] = False
    p[np.flatnonzero(~y)[:30]] = True
    res = _quiet(mlci.bootstrap_ci, y, p, metric="balanced_accuracy", conditions=cond, rng=0,
                 n_resamples=400)  # fmt: skip
    rates = res.details["linearized"]["class_rates"]

    def ref(level: float, alt: str) -> tuple[Any, Any]:
        return mover_korn_graubard_interval(
            rates, effective_binomial_interval, wilson_interval, confidence_level=level,
            alternative=alt,
        )[:2]  # fmt: skip

    return res, ref


def _eer() -> tuple[Any, Any]:
    s = _eer_scores()
    res = _quiet(mlci.eer_ci, s, rng=0, n_resamples=200).eer
    lay = s._lay
    fn, fp = error_counts(lay.u[0], lay.nobs[0], lay.u[1], lay.nobs[1])

    def ref(level: float, alt: str) -> tuple[Any, Any]:
        return eer_score_interval(fn, fp, 30, 270, level, alt)

    return res, ref


def _operating_point() -> tuple[Any, Any]:
    s = _op_scores()
    res = _quiet(mlci.operating_point_ci, s, "fnr", at=0.033, rng=0, n_resamples=200)[0]
    lay = s._lay
    fn, fp = error_counts(lay.u[0], lay.nobs[0], lay.u[1], lay.nobs[1])

    def ref(level: float, alt: str) -> tuple[Any, Any]:
        return rate_score_interval(fn, 12, fp, 591, 0.033, level, alt)

    return res, ref


def _auc_floored() -> tuple[Any, Any]:
    g = np.random.default_rng(0)
    y = np.r_[np.zeros(200, int), np.ones(8, int)]
    s = g.normal(size=208) + 1.5 * y
    res = _quiet(mlci.bootstrap_ci, y, s, metric="roc_auc", rng=0, n_resamples=200)

    def ref(level: float, alt: str) -> tuple[Any, Any]:
        r = mlci.auc_score_ci(y, s, variant="floored", confidence_level=level, alternative=alt)
        return tuple(r.confidence_interval)

    return res, ref


def _l2_near_zero() -> tuple[Any, Any]:
    from mlci.metrics.ece_l2 import l2_squared_interval

    g = np.random.default_rng(0)
    p = g.beta(2, 2, 1000)
    y = (g.random(1000) < p).astype(int)  # calibrated: the l2 ECE near 0
    res = _quiet(mlci.bootstrap_ci, y, p, metric="ece_debiased", rng=0, n_resamples=200)
    sq, se = res.details["squared"], res.details["squared_se"]

    def ref(level: float, alt: str) -> tuple[Any, Any]:
        return l2_squared_interval(sq, se, level, alt)

    return res, ref


#: case id -> (the label, what gives the result and the analytic function it must equal)
MECHANISMS = {
    "korn_graubard": ("korn_graubard", _kg_iid),
    "korn_graubard-conditions": ("korn_graubard", _kg_conditions),
    "logit_t": ("logit_t", _logit_t),
    "t": ("t", _t),
    "logit_t-log-scale": ("logit_t", _log_t),
    "mover_wilson": ("mover_wilson", _mover),
    "mover_korn_graubard": ("mover_korn_graubard", _mover_kg),
    "wilson-eer": ("wilson", _eer),
    "wilson-operating-point": ("wilson", _operating_point),
    "auc-score-floored": ("auc-score-floored", _auc_floored),
    "normal-squared": ("normal-squared", _l2_near_zero),
}


@pytest.fixture(scope="module", params=sorted(MECHANISMS))
def case(request: Any) -> tuple[str, Any, Any]:
    label, make = MECHANISMS[request.param]
    res, ref = make()
    return label, res, ref


def test_the_label_is_the_interval_given(case: tuple[str, Any, Any]) -> None:
    name, res, ref = case
    assert res.method == name
    assert isinstance(res.analytic, AnalyticInterval)
    assert res.analytic.method == name
    assert res.details["method_reason"] == res.analytic.reason
    assert name in res.details["method_reason"] or name == "wilson"
    got = tuple(res.confidence_interval)
    want = tuple(float(v) for v in ref(0.95, "two-sided"))
    assert got == pytest.approx(want, abs=1e-12)
    # the record on its own gives it too
    assert tuple(res.analytic(0.95)) == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize(("level", "alt"), READS)
def test_a_reread_gives_the_analytic_interval_again(
    case: tuple[str, Any, Any], level: float, alt: str
) -> None:
    name, res, ref = case
    for again in (
        res.interval(confidence_level=level, alternative=alt),
        res.interval(method=name, confidence_level=level, alternative=alt),
        pickle.loads(pickle.dumps(res)).interval(confidence_level=level, alternative=alt),
    ):
        assert again.method == name
        assert again.analytic is not None and again.analytic.method == name
        assert again.confidence_level == level and again.alternative == alt
        want = tuple(float(v) for v in ref(level, alt))
        assert tuple(again.confidence_interval) == pytest.approx(want, abs=1e-12)


def test_another_method_reads_the_replicates_and_drops_the_record(
    case: tuple[str, Any, Any],
) -> None:
    _, res, _ = case
    pct = _quiet(res.interval, method="percentile")
    assert pct.method == "percentile" and pct.analytic is None
    assert "analytic" in pct.to_dict() and pct.to_dict()["analytic"] is None


def test_to_dict_is_strict_json_and_names_the_interval(case: tuple[str, Any, Any]) -> None:
    name, res, _ = case
    d = res.to_dict()
    text = json.dumps(d, allow_nan=False)
    back = json.loads(text)
    assert back["method"] == name
    assert back["analytic"] == {"method": name, "reason": res.details["method_reason"]}
    assert json.loads(res.to_json())["analytic"]["method"] == name
    assert {r["method"] for r in res.rows()} == {name}
    assert set(res.to_frame()["method"]) == {name}


# ----------------------------------------------------------------- the other doors
def test_compare_labels_each_system_as_bootstrap_ci_does() -> None:
    # the analytic intervals read no replicate: the same as bootstrap_ci's, to 1e-12
    y, p = _ba_data(900, 10, 100, 2)
    q = y.copy()
    q[:20], q[900:905] = 1, 0
    y1, p1 = _one_error(200)
    q1 = y1.copy()
    q1[:12] = 0
    for metric, want in (("balanced_accuracy", "mover_wilson"), ("f1", "korn_graubard")):
        if metric == "f1":
            y, p, q = y1, p1, q1
        single = _quiet(mlci.bootstrap_ci, y, p, metric=metric, rng=0)
        rows = _quiet(mlci.compare, y, {"A": p, "B": q}, metric=metric, rng=0)
        sys_a = rows.systems["A"]
        assert sys_a.method == single.method
        assert sys_a.method == want and sys_a.analytic.method == want
        assert tuple(sys_a.confidence_interval) == pytest.approx(
            tuple(single.confidence_interval), abs=1e-12
        )
        again = sys_a.interval(confidence_level=0.9)
        assert tuple(again.confidence_interval) == pytest.approx(
            tuple(single.interval(confidence_level=0.9).confidence_interval), abs=1e-12
        )


def test_the_cli_prints_the_label(tmp_path: Any, capsys: Any) -> None:
    from mlci.cli import main

    y, p = _ba_data(90, 5, 10, 1)
    path = tmp_path / "ba.csv"
    path.write_text("label,pred\n" + "".join(f"{a},{b}\n" for a, b in zip(y, p, strict=True)))
    argv = ["ci", str(path), "--label", "label", "--pred", "pred", "--seed", "0"]
    ref = _quiet(mlci.bootstrap_ci, y, p, metric="balanced_accuracy", rng=0)
    assert ref.method == "mover_wilson"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        assert main([*argv, "--metric", "balanced_accuracy", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert main([*argv, "--metric", "balanced_accuracy"]) == 0
        table = capsys.readouterr().out
    assert out[0]["method"] == "mover_wilson"
    assert out[0]["confidence_interval"]["low"] == pytest.approx(
        ref.confidence_interval.low, abs=1e-12
    )
    assert "mover_wilson" in table


def test_korn_graubard_is_also_a_method_of_its_own() -> None:
    # a name auto's fallback shares with a method= gives the same interval
    y, p = _one_error()
    auto = _quiet(mlci.bootstrap_ci, y, p, metric="f1", rng=0, n_resamples=400)
    named = _quiet(mlci.bootstrap_ci, y, p, metric="f1", rng=0, n_resamples=400,
                   method="korn_graubard")  # fmt: skip
    assert auto.method == named.method == "korn_graubard"
    assert tuple(named.confidence_interval) == pytest.approx(
        tuple(auto.confidence_interval), abs=1e-12
    )
    assert named.analytic is None  # asked for by name: nothing replaced
    # mse's fallback (one bound): the log-scale t interval, which method="logit_t" gives
    res, _ = _log_t()
    truth, pred = np.zeros(100), np.zeros(100)
    pred[0] = 3.0
    named = _quiet(mlci.bootstrap_ci, truth, pred, metric="mse", rng=0, n_resamples=400,
                   method="logit_t")  # fmt: skip
    assert tuple(named.confidence_interval) == pytest.approx(
        tuple(res.confidence_interval), abs=1e-12
    )
    with pytest.warns(mlci.NearBoundWarning, match="no spread"):  # warned as before
        mlci.bootstrap_ci(truth, pred, metric="mse", rng=0, n_resamples=400)


def test_mover_against_statsmodels_wilson_at_other_levels() -> None:
    # no miss in 100 positives and 10 false alarms in 900: both classes get Wilson's
    # interval unmodified (Brown, Cai & DasGupta modify 1-3 failures only); MOVER
    # (Zou & Donner 2008, eq. 3) of statsmodels' Wilson bounds, at 90% and one-sided
    y, p = _ba_data(900, 10, 100, 0)
    res = _quiet(mlci.bootstrap_ci, y, p, metric="balanced_accuracy", rng=0, n_resamples=200)
    assert res.method == "mover_wilson"
    s, r = 890 / 900, 1.0
    est = (s + r) / 2
    for level, alt in ((0.90, "two-sided"), (0.95, "greater")):
        alpha = 1 - level if alt == "two-sided" else 2 * (1 - level)
        s_lo, s_hi = sm_proportion.proportion_confint(890, 900, alpha=alpha, method="wilson")
        r_lo, r_hi = sm_proportion.proportion_confint(100, 100, alpha=alpha, method="wilson")
        low = est - 0.5 * np.hypot(s - s_lo, r - r_lo)
        high = est + 0.5 * np.hypot(s_hi - s, r_hi - r) if alt == "two-sided" else 1.0
        got = res.interval(confidence_level=level, alternative=alt).confidence_interval
        assert tuple(got) == pytest.approx((low, high), abs=1e-10)


# ----------------------------------------------------------------------- bad input
def _read(level: float, alt: str) -> tuple[float, float]:
    return wilson_interval(0.9, 50, None, confidence_level=level, alternative=alt)[:2]


@pytest.mark.parametrize(
    ("args", "match"),
    [
        ((1, "r", _read), "`method` must be a non-empty str"),
        (("", "r", _read), "`method` must be a non-empty str"),
        (("wilson", None, _read), "`reason` must be a str"),
        (("wilson", "r", 0.5), "`read` must be callable"),
    ],
)
def test_analytic_interval_bad_input(args: tuple[Any, ...], match: str) -> None:
    with pytest.raises(TypeError, match=match):
        AnalyticInterval(*args)


def test_analytic_interval_bad_level_or_alternative() -> None:
    rec = AnalyticInterval("wilson", "r", _read)
    with pytest.raises(ValueError, match=r"`confidence_level`.*percentage"):
        rec(95)
    with pytest.raises(ValueError, match="`alternative`"):
        rec(0.95, "both")
    assert tuple(rec(0.95)) == pytest.approx(
        sm_proportion.proportion_confint(45, 50, alpha=0.05, method="wilson"), abs=1e-12
    )


def test_attach_analytic_bad_input() -> None:
    res = mlci.bootstrap_ci([1] * 45 + [0] * 5, [1] * 50, metric="accuracy", rng=0,
                            method="percentile", n_resamples=200)  # fmt: skip
    rec = AnalyticInterval("wilson", "Wilson's score interval", _read)
    with pytest.raises(TypeError, match="`result` must be a BootstrapResult"):
        attach_analytic(res.to_dict(), rec)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="`analytic` must be an AnalyticInterval"):
        attach_analytic(res, _read)  # type: ignore[arg-type]
    new = attach_analytic(res, rec)
    assert new.method == "wilson" and new.analytic is rec
    assert new.details["method_reason"] == "Wilson's score interval"
    assert tuple(new.interval(confidence_level=0.9).confidence_interval) == pytest.approx(
        sm_proportion.proportion_confint(45, 50, alpha=0.1, method="wilson"), abs=1e-12
    )
    # the replicates are kept: BCa and the percentile interval still read them
    assert tuple(new.interval(method="percentile").confidence_interval) == tuple(
        res.confidence_interval
    )


@pytest.mark.parametrize(
    ("call", "label", "named"),
    [
        (lambda m: mlci.bootstrap_ci([0, 1] * 20, [0, 1] * 20, metric="balanced_accuracy",
                                     method=m), "mover_wilson", "balanced_accuracy"),
        (lambda m: mlci.bootstrap_ci([0, 1] * 20, np.arange(40.0), metric="roc_auc", method=m),
         "auc-score-floored", "roc_auc"),
        (lambda m: mlci.eer_ci(_eer_scores(), method=m), "wilson", "EER"),
        (lambda m: mlci.operating_point_ci(_op_scores(), "fnr", at=0.033, method=m), "wilson",
         "a rate at a fixed rate"),
    ],
)  # fmt: skip
def test_a_label_only_name_is_refused_as_method(call: Any, label: str, named: str) -> None:
    with pytest.raises(ValueError, match=r"`method`") as err:
        call(label)
    text = str(err.value)
    assert named in text and "method='auto'" in text and "'bca'" in text


@pytest.mark.parametrize(
    ("label", "metric", "named", "reread"),
    [
        ("symmetric_studentized", "rmse", "rmse", "confidence_level=[...]"),
        ("mover", "roc_auc", "roc_auc", "confidence_level=[...]"),
        ("tango", "accuracy", "two proportions", "result.interval()"),
    ],
)
def test_a_difference_label_is_refused_by_name_in_compare(
    label: str, metric: str, named: str, reread: str
) -> None:
    # labels of compare's differences only: refused as method= with the error naming the
    # statistic (not the generic list alone), and saying how to get another level
    y = np.array([0, 1] * 20)
    systems = {"A": y.astype(float), "B": (1 - y).astype(float)}
    with pytest.raises(ValueError, match=rf"`method`='{label}' names the interval") as err:
        mlci.compare(y, systems, metric=metric, method=label)
    text = str(err.value)
    assert named in text and reread in text and "'bca'" in text


def test_a_label_reread_where_it_was_not_given_is_refused() -> None:
    res = mlci.bootstrap_ci([0, 1] * 50, [0, 1] * 40 + [1, 0] * 10, metric="f1", rng=0,
                            n_resamples=200)  # fmt: skip
    with pytest.raises(ValueError, match="balanced_accuracy"):
        res.interval(method="mover_wilson")


def test_metric_by_group_names_the_rows_given_the_score_interval() -> None:
    # group "a" has the EER of _eer_scores (0.44 expected errors): its row is the EER's
    # score interval, labelled so in the table; the others keep the bootstrap's
    g5 = np.random.default_rng(5)  # the scores of _eer_scores
    score = np.r_[g5.normal(3.8, 1, 30), g5.normal(0, 1, 270)]
    y = np.r_[np.ones(30, int), np.zeros(270, int)]
    g = np.random.default_rng(2)
    b_y = np.r_[np.ones(200, int), np.zeros(200, int)]
    b_s = np.r_[g.normal(2.5, 1, 200), g.normal(0, 1, 200)]
    yy, ss = np.r_[y, b_y], np.r_[score, b_s]
    grp = np.r_[np.full(300, "a"), np.full(400, "b")]
    res = _quiet(mlci.metric_by_group, yy, ss, groups=grp, metric="eer", rng=0, n_resamples=200)
    rows = res.rows()
    assert res.details["score_interval_rows"] == [0]
    assert rows[0]["method"] == "wilson" and rows[1]["method"] == res.method
    e = _quiet(mlci.eer_ci, mlci.Scores.from_labels(y, score), rng=0, n_resamples=200).eer
    assert e.method == "wilson"
    assert (rows[0]["low"], rows[0]["high"]) == pytest.approx(
        tuple(e.confidence_interval), abs=1e-12
    )
    assert list(res.to_frame()["method"]) == [r["method"] for r in rows]


def test_the_report_keeps_the_label_and_the_record_in_step() -> None:
    # the report reuses compare's systems and writes bootstrap_ci's method_reason into
    # them: the record's reason follows, the interval and label are bootstrap_ci's
    y, p = _ba_data(900, 10, 100, 2)
    q = y.copy()
    q[:20], q[900:905] = 1, 0
    single = _quiet(mlci.bootstrap_ci, y, p, metric="balanced_accuracy", rng=0)
    pairs = _quiet(mlci.compare, y, {"A": p, "B": q}, metric="balanced_accuracy", rng=0)
    boot = {"n_resamples": 1000, "rng": 0, "method": "auto", "conditions": None}
    shared = _quiet(
        mlci.report._shared_results, pairs, y, {"A": p, "B": q}, "balanced_accuracy", {}, boot
    )
    got = shared["A"]
    assert got.method == single.method == "mover_wilson"
    assert got.details["method_reason"] == single.details["method_reason"]
    assert got.analytic.reason == got.details["method_reason"]
    assert tuple(got.confidence_interval) == pytest.approx(
        tuple(single.confidence_interval), abs=1e-12
    )
