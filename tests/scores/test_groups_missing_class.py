"""metric_by_group with a group that lacks a class (review of session 8, issue 20's
"no silent wrong number"): that group's undefined rows are NaN with a warning naming
the group, the class and what to do; the other groups and the overall value keep their
intervals; a metric undefined in every group is an error.

References: the per-group estimates are plain counts (numpy below); the intervals of the
defined rows are those the same replicates give without the group's undefined column:
for the Scores statistics, the rows of the call without the group's samples at all,
bit for bit (its atoms come last, so the other groups' draws are unchanged); for the
rates at a threshold, the bootstrap of the full kernel with the undefined column set to 0
(white box: the same draws, the same quantiles).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import mlci
from mlci import DegenerateIntervalWarning
from mlci.cli import main
from mlci.engine.bootstrap import run_bootstrap
from mlci.engine.nested import plan_for_conditions
from mlci.scores.groups import _GroupKernel, metric_by_group


def data(n=600, seed=0, lacking="positives"):
    """Groups f, m with both classes and x with only negatives (or only positives)."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["f", "m", "x"], n)
    y = rng.integers(0, 2, n)
    y[g == "x"] = 0 if lacking == "positives" else 1
    s = y + rng.normal(0, 1, n)
    return y, s, g


def by_group(res):
    out = {}
    for r in res.rows():
        out.setdefault(r["group"], []).append(r)
    return out


def run_quiet(*args, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = metric_by_group(*args, **kwargs)
    return res, [w for w in caught if issubclass(w.category, DegenerateIntervalWarning)]


@pytest.mark.parametrize("method", ["auto", "percentile", "bca"])
def test_rate_of_the_missing_class_is_nan_with_a_warning(method):
    y, s, g = data()
    res, warned = run_quiet(
        y, s, groups=g, metric="fnr", threshold=[0.3, 0.5], rng=0, n_resamples=300, method=method
    )
    rows = by_group(res)
    for r in rows["x"]:
        assert np.isnan(r["estimate"]) and np.isnan(r["low"]) and np.isnan(r["high"])
    for name in ("f", "m", "(overall)"):
        for r, t in zip(rows[name], (0.3, 0.5), strict=True):
            keep = np.ones_like(g, bool) if name == "(overall)" else g == name
            pos = keep & (y == 1)
            assert r["estimate"] == pytest.approx(np.mean(s[pos] < t), abs=1e-12)  # fnr
            assert 0.0 <= r["low"] <= r["estimate"] <= r["high"] <= 1.0
    assert res.details["undefined_rows"] == (4, 5)
    (w,) = [w for w in warned if "undefined in group" in str(w.message)]
    text = str(w.message)
    assert "'fnr'" in text and "'x' (no positives)" in text
    assert "merge it with another" in text and "fpr, tnr" in text
    assert res.details["undefined_warning"] == text
    # strict JSON: NaN is None
    d = json.loads(res.to_json())
    assert [r["estimate"] for r in d["table"] if r["group"] == "x"] == [None, None]


def test_rate_of_the_class_present_is_unaffected():
    # fpr in a group without positives is defined: no warning, its interval as before
    y, s, g = data()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = metric_by_group(y, s, groups=g, metric="fpr", threshold=0.5, rng=0, n_resamples=300)
    x = by_group(res)["x"][0]
    assert x["estimate"] == pytest.approx(np.mean(s[(g == "x")] >= 0.5), abs=1e-12)
    assert 0 < x["low"] < x["estimate"] < x["high"] < 1
    assert "undefined_rows" not in res.details


def test_group_without_negatives():
    y, s, g = data(lacking="negatives")
    res, warned = run_quiet(y, s, groups=g, metric="fpr", threshold=0.5, rng=1, n_resamples=300)
    assert np.isnan(by_group(res)["x"][0]["estimate"])
    assert any("'x' (no negatives)" in str(w.message) for w in warned)
    # and fnr is defined there
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok = metric_by_group(y, s, groups=g, metric="fnr", threshold=0.5, rng=1, n_resamples=300)
    x = by_group(ok)["x"][0]
    assert x["estimate"] == pytest.approx(np.mean(s[g == "x"] < 0.5), abs=1e-12)


@pytest.mark.parametrize(
    "metric,kw,x_defined",
    [
        ("eer", {}, False),
        ("eer_threshold", {}, False),
        ("auc", {}, False),
        ("fnr_at_fpr", {"at": 0.1}, False),
        ("threshold_at_fnr", {"rate": 0.2}, False),  # needs positives
        ("threshold_at_fpr", {"rate": [0.1, 0.2]}, True),  # needs negatives only
    ],
)
def test_score_statistics_rows_are_those_without_the_group(metric, kw, x_defined):
    y, s, g = data()
    res, warned = run_quiet(
        y, s, groups=g, metric=metric, rng=0, n_resamples=200, method="percentile", **kw
    )
    rows = by_group(res)
    assert all(np.isnan(r["estimate"]) != x_defined for r in rows["x"])
    assert any("'x' (no positives)" in str(w.message) for w in warned) != x_defined
    # the other groups: bit for bit the rows of the call without group x's samples
    keep = g != "x"
    alone = by_group(
        metric_by_group(
            y[keep], s[keep], groups=g[keep], metric=metric, rng=0, n_resamples=200,
            method="percentile", **kw,
        )
    )  # fmt: skip
    assert rows["f"] == alone["f"] and rows["m"] == alone["m"]
    if x_defined:  # the threshold at an FPR from the negatives alone: their quantile
        neg = np.sort(s[(g == "x") & (y == 0)])
        for r in rows["x"]:
            assert np.mean(neg >= r["estimate"]) == pytest.approx(r["rate"], abs=1.5 / len(neg))


def test_rates_at_a_threshold_use_the_full_kernels_draws():
    # white box: the reduced kernel's rows equal the full kernel's (its undefined column
    # set to 0 so that the replicates stay valid) on the same plan and seed
    y, s, g = data()
    res, _ = run_quiet(
        y, s, groups=g, metric="fnr", threshold=0.5, rng=3, n_resamples=300, method="percentile"
    )
    gidx = np.searchsorted(["f", "m", "x"], g)
    keys = (gidx * 2 + y) * 2 + (s >= 0.5)

    class Filled(_GroupKernel):
        def evaluate(self, w):
            return np.nan_to_num(super().evaluate(w), nan=0.0)

    kernel = Filled(keys.astype(np.intp), 3, 1, "fnr", None, 1.0)
    kernel.bounds = (0.0, 1.0)
    plan = plan_for_conditions(len(y), strata=gidx * 2 + y, n_resamples=300, rng=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateIntervalWarning)  # the 0 column
        full = run_bootstrap(kernel, plan, method="percentile", confidence_level=0.95)
    low, high = (np.asarray(b).ravel() for b in full.confidence_interval)
    got = res.rows()
    for i in (0, 1, 3):  # f, m, overall
        assert (got[i]["low"], got[i]["high"]) == (low[i], high[i])


def test_by_best_ignores_the_undefined_group():
    y, s, g = data()
    res, _ = run_quiet(
        y, s, groups=g, metric="fnr", threshold=0.5, normalize="by_best", rng=0, n_resamples=300
    )
    rows = by_group(res)
    est = [rows[k][0]["estimate"] for k in ("f", "m")]
    assert min(est) == 1.0 and np.isfinite(max(est))  # the best of f and m is 1
    assert np.isnan(rows["x"][0]["estimate"])
    assert np.isfinite([rows[k][0]["low"] for k in ("f", "m")]).all()


def test_metric_undefined_in_every_group_is_an_error():
    rng = np.random.default_rng(0)
    g = np.repeat(["a", "b"], 100)
    y = (g == "b").astype(int)  # a: only negatives, b: only positives
    s = y + rng.normal(0, 1, 200)
    for metric, kw in (("mcc", {"threshold": 0.5}), ("balanced_accuracy", {"threshold": 0.5})):
        with pytest.raises(ValueError, match=r"'a' \(no positives\); 'b' \(no negatives\)"):
            metric_by_group(y, s, groups=g, metric=metric, rng=0, n_resamples=50, **kw)
    with pytest.raises(ValueError, match="undefined in every group"):
        metric_by_group(y, s, groups=g, metric="auc", rng=0, n_resamples=50)


def test_undefined_for_another_reason_is_still_an_error():
    # ppv at a threshold above every score: no positive decision anywhere (not a
    # missing class): refused as before
    y, s, g = data()
    with pytest.raises(ValueError, match="undefined"):
        metric_by_group(y, s, groups=g, metric="ppv", threshold=99.0, rng=0, n_resamples=50)


def test_cli_scores_group_without_positives(tmp_path, capsys):
    y, s, g = data()
    path = tmp_path / "groups.csv"
    path.write_text(
        "label,score,grp\n"
        + "".join(f"{a},{float(b)!r},{c}\n" for a, b, c in zip(y, s, g, strict=True))
    )
    argv = ["scores", str(path), "--label", "label", "--score", "score", "--group", "grp"]
    argv += ["--group-metric", "fnr", "--threshold", "0.5", "--seed", "0", "-B", "200"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    row = next(ln.split() for ln in out.splitlines() if ln.split()[:1] == ["x"])
    assert row == ["x", "-", "-", "-"]
    assert "mlci: warning:" in err and "'x' (no positives)" in err
    assert main([*argv, "--json"]) == 0
    out, _ = capsys.readouterr()
    groups = json.loads(out)["groups"]["score"]  # strict JSON: no NaN token
    x = next(r for r in groups if r["group"] == "x")
    assert (x["estimate"], x["low"], x["high"]) == (None, None, None)
    f = next(r for r in groups if r["group"] == "f")
    assert f["low"] < f["estimate"] < f["high"]
    # every group undefined: an error naming the option
    path.write_text(
        "label,score,grp\n"
        + "".join(f"{int(c == 'b')},{i / 10},{c}\n" for i, c in enumerate("aaaabbbb"))
    )
    argv[-6:-4] = ["--group-metric", "eer"]
    code = main([a for a in argv if a not in ("--threshold", "0.5")])
    _, err = capsys.readouterr()
    assert code == 2 and "--group-metric eer" in err and "undefined in every group" in err


def test_public_name_reaches_it():
    y, s, g = data()
    res, _ = run_quiet(y, s, groups=g, metric="tpr", threshold=0.5, rng=0, n_resamples=100)
    assert res is not None and mlci.metric_by_group is not None
