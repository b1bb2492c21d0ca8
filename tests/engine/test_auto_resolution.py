"""One resolution of ``method="auto"`` (issue 20, item 4): the same metric and design get
the same method through every door, and every default says why (``method_reason``).

References are mlci's own other doors on the same data (the point of the test) and, for
the proportions, ``mlci.proportion_ci(k, n, method="wilson")`` (Wilson 1927; checked
against statsmodels in tests/classical).
"""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import mlci
from mlci import Scores
from mlci.engine.scores_rules import EER_REASON
from mlci.scores.confusion import ConfusionMatrix
from mlci.scores.curves import auc_ci, operating_point_ci, roc_band
from mlci.scores.verification import cllr_ci, dcf_ci, eer_ci

RNG = np.random.default_rng(0)
Y = (RNG.random(300) < 0.4).astype(int)
SCORE = RNG.normal(1.2 * Y, 1)
PRED = (SCORE > 0.5).astype(int)


@pytest.mark.parametrize(
    ("cm_name", "name"),
    [("accuracy", "accuracy"), ("tpr", "recall"), ("ppv", "precision"), ("tnr", "specificity"),
     ("fnr", "fnr"), ("npv", "npv")],
)  # fmt: skip
def test_confusion_matrix_proportion_is_bootstrap_cis_wilson(cm_name, name):
    a = ConfusionMatrix(Y, PRED, binary=True).bootstrap_ci(cm_name, rng=0)
    b = mlci.bootstrap_ci(Y, PRED, metric=name, rng=0)
    assert a.method == b.method == "wilson_modified"  # auto: Wilson, modified near the bounds
    assert tuple(a.confidence_interval) == pytest.approx(tuple(b.confidence_interval), abs=1e-14)


def test_confusion_matrix_of_counts_is_wilson():
    cm = ConfusionMatrix(matrix=[[90, 10], [90, 810]], binary=True)
    res = cm.bootstrap_ci("tpr", rng=0)
    ref = mlci.proportion_ci(90, 100, method="wilson")  # 90 of 100: Wilson's own bounds
    assert res.method == "wilson_modified"
    assert tuple(res.confidence_interval) == pytest.approx(tuple(ref.confidence_interval))


def test_confusion_matrix_f1_is_studentized_like_bootstrap_ci():
    a = ConfusionMatrix(Y, PRED, binary=True).bootstrap_ci("f1", rng=0)
    assert a.method == mlci.bootstrap_ci(Y, PRED, metric="f1", rng=0).method == "studentized"


S = Scores.from_labels(Y, SCORE)
SCORE_DRIVERS = {
    "auc_ci": lambda **k: auc_ci(S, **k),
    "operating_point_ci": lambda **k: operating_point_ci(S, at=0.1, **k)[0],
    # p_target 0.5: at 0.1 the minimum sits at 0 false alarms, which warns
    # (mlci.engine.scores_rules.warn_few_dcf_events; tests/scores/test_few_errors.py)
    "dcf_ci": lambda **k: dcf_ci(S, p_target=0.5, **k),
    "Scores.bootstrap_ci": lambda **k: S.bootstrap_ci("auc", **k),
}


@pytest.mark.parametrize("name", list(SCORE_DRIVERS))
def test_score_drivers_auto_is_bca_with_a_reason(name):
    f = SCORE_DRIVERS[name]
    auto = f(rng=0, n_resamples=300)
    bca = f(rng=0, n_resamples=300, method="bca")
    assert auto.method == "bca"
    # the former default (method="bca"): the same numbers
    assert tuple(auto.confidence_interval) == tuple(bca.confidence_interval)
    assert "stratified design" in auto.details["method_reason"]


def test_cllr_auto_is_studentized_with_a_reason():
    # the actual Cllr of iid trials: the bootstrap-t on the log scale, from the same
    # replicates as BCa (scores/_cllr_rules.py; docs/validation.md, "Cllr intervals
    # (session 9)"); over conditions, and for the minimum Cllr, BCa as before
    auto = cllr_ci(S, rng=0, n_resamples=300)
    t = cllr_ci(S, rng=0, n_resamples=300, method="studentized")
    bca = cllr_ci(S, rng=0, n_resamples=300, method="bca")
    assert auto.method == t.method == "studentized"
    assert tuple(auto.confidence_interval) == tuple(t.confidence_interval)
    assert auto.details["method_reason"].startswith("studentized: ")
    np.testing.assert_array_equal(auto.bootstrap_distribution, bca.bootstrap_distribution)
    assert tuple(auto.interval(method="bca").confidence_interval) == tuple(bca.confidence_interval)
    for kw in ({"kind": "min"}, {"conditions": Y_SPK}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", mlci.MlciWarning)  # the min Cllr's optimism
            auto = cllr_ci(S, rng=0, n_resamples=300, **kw)
            bca = cllr_ci(S, rng=0, n_resamples=300, method="bca", **kw)
        assert auto.method == "bca"
        assert tuple(auto.confidence_interval) == tuple(bca.confidence_interval)
        assert "stratified design" in auto.details["method_reason"]


def test_eer_threshold_auto_is_bca():
    res = eer_ci(S, rng=0, n_resamples=300)
    assert res.threshold.method == "bca"
    bca = eer_ci(S, rng=0, n_resamples=300, method="bca").threshold
    assert tuple(res.threshold.confidence_interval) == tuple(bca.confidence_interval)


# the EER through every door: the percentile interval of the same replicates, with the
# same reason (scripts/scores_auto_study.py; docs/validation.md, "The Scores statistics")
Y_SPK = RNG.integers(0, 30, 300)
EER_DOORS = {
    "eer_ci": lambda **k: eer_ci(S, **k).eer,
    "Scores.bootstrap_ci": lambda **k: S.bootstrap_ci("eer", **k),
}


@pytest.mark.parametrize("name", list(EER_DOORS))
@pytest.mark.parametrize("conditions", [None, Y_SPK])
def test_eer_auto_is_percentile_through_every_door(name, conditions):
    f = EER_DOORS[name]
    auto = f(rng=0, n_resamples=300, conditions=conditions)
    pct = f(rng=0, n_resamples=300, conditions=conditions, method="percentile")
    assert auto.method == "percentile"
    assert auto.details["method_reason"] == EER_REASON
    assert tuple(auto.confidence_interval) == tuple(pct.confidence_interval)
    # what the default was: BCa of the same replicates, a different interval
    bca = f(rng=0, n_resamples=300, conditions=conditions, method="bca")
    assert tuple(bca.confidence_interval) != tuple(auto.confidence_interval)


def test_eer_auto_is_percentile_in_metric_by_group():
    pytest.importorskip("pandas")
    g = np.where(RNG.random(300) < 0.5, "f", "m")
    kw = dict(groups=g, metric="eer", rng=0, n_resamples=300)
    auto = mlci.metric_by_group(Y, SCORE, **kw)
    pct = mlci.metric_by_group(Y, SCORE, method="percentile", **kw)
    assert auto.method == "percentile" and auto.details["method_reason"] == EER_REASON
    assert auto.rows() == pct.rows()
    # rates at a threshold keep BCa (docs/validation.md, section 5)
    fnr = mlci.metric_by_group(Y, SCORE, groups=g, threshold=0.5, rng=0, n_resamples=300)
    assert fnr.method == "bca"


def test_eer_auto_is_percentile_in_the_cli(tmp_path, capsys):
    import json

    from mlci.cli import main

    path = tmp_path / "s.csv"
    path.write_text("y,s\n" + "".join(f"{a},{float(b)!r}\n" for a, b in zip(Y, SCORE, strict=True)))
    code = main(["scores", str(path), "--label", "y", "--score", "s", "--seed", "0",
                 "--format", "json", "-q"])  # fmt: skip
    assert code == 0
    rows = {r["quantity"]: r for r in json.loads(capsys.readouterr().out)["scores"]["s"]}
    assert rows["eer"]["method"] == "percentile"
    assert rows["eer"]["details"]["method_reason"] == EER_REASON
    assert rows["eer threshold"]["method"] == rows["auc"]["method"] == "bca"
    # the API's interval for the same seed
    api = eer_ci(S, rng=0).eer
    assert rows["eer"]["confidence_interval"]["low"] == pytest.approx(
        api.confidence_interval.low, abs=1e-12
    )


def test_eer_auto_warns_with_few_errors_in_a_class():
    # 20 targets at an EER of about 0.05: about one error in the smaller class.  Of
    # independent trials auto gives the EER's score interval (mlci.engine.scores_rules,
    # tests/scores/test_few_errors.py), over conditions its version with the design
    # effect (mlci.engine.scores_clustered); with strata too it keeps percentile and warns
    rng = np.random.default_rng(3)
    s = Scores(rng.normal(3.3, 1, 20), rng.normal(0, 1, 400))
    cond = np.arange(420) % 40
    assert eer_ci(s, rng=0, n_resamples=300, conditions=cond).eer.method == "wilson"
    with pytest.warns(mlci.NearBoundWarning, match="errors in its smaller class"):
        res = eer_ci(s, rng=0, n_resamples=300, conditions=cond, strata=cond % 2)
    assert res.eer.method == "percentile"
    assert "smaller class" in res.eer.details["few_errors_warning"]
    # an explicit method is the user's choice: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        eer_ci(s, rng=0, n_resamples=300, method="percentile")


def test_stratified_bootstrap_ci_gets_the_same_method_as_scores():
    # a Scores object resamples within each class: bootstrap_ci with strata=y_true is
    # the same design and gets the same method
    res = mlci.bootstrap_ci(Y, SCORE, metric="roc_auc", strata=Y, rng=0)
    assert res.method == auc_ci(S, rng=0).method == "bca"


def test_reduced_table_auto_is_bootstrap_cis_auto():
    # issue 20, item 4: a reduced table resolves auto as bootstrap_ci does (its samples
    # through the same engine): Wilson here, the same reason and interval; an additive
    # metric summed per condition keeps BCa, with a reason (tests/backends/test_auto.py)
    pd = pytest.importorskip("pandas")
    t = mlci.reduce_table(pd.DataFrame({"y": Y, "p": PRED}), "y", "p", metric="accuracy")
    auto = t.bootstrap_ci(rng=0, n_resamples=300)
    mem = mlci.bootstrap_ci(Y, PRED, metric="accuracy", rng=0, n_resamples=300)
    assert auto.method == mem.method == "wilson_modified"
    assert auto.details["method_reason"] == mem.details["method_reason"]
    assert auto.confidence_interval == mem.confidence_interval


@pytest.mark.parametrize(
    "fn", [auc_ci, operating_point_ci, eer_ci, dcf_ci, cllr_ci, ConfusionMatrix.bootstrap_ci]
)
def test_defaults_are_auto(fn):
    assert inspect.signature(fn).parameters["method"].default == "auto"


def test_bands_keep_percentile():
    # documented exception (docs/guide.md, section 2): a band's pointwise part is the
    # percentile interval, inside its simultaneous sup-t band
    assert inspect.signature(roc_band).parameters["method"].default == "percentile"
