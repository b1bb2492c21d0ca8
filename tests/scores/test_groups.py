"""metric_by_group against per-group Scores, normalisation, bad input."""

import numpy as np
import pandas as pd
import pytest

from mlci import Resampling, Scores
from mlci.scores.groups import GroupResult
from mlci.scores.groups import metric_by_group as _metric_by_group


def metric_by_group(*args, **kwargs):
    """The result as a DataFrame (the checks below read it as a table)."""
    res = _metric_by_group(*args, **kwargs)
    assert isinstance(res, GroupResult)
    return res.to_frame()


def frame(n=800, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "g": rng.choice(["f", "m"], n),
            "a": rng.choice(["<30", ">30"], n),
            "y": rng.integers(0, 2, n),
        }
    )
    df["s"] = df.y + rng.normal(0, 1, n)
    return df


def test_estimates_match_scores_per_group():
    df = frame()
    out = metric_by_group(
        "y",
        "s",
        groups=["g", "a"],
        data=df,
        metric="fnr",
        threshold=[0.5, 0.2],
        rng=0,
        n_resamples=200,
    )
    for (g, a), sub in df.groupby(["g", "a"]):
        want = Scores.from_labels(sub.y, sub.s).fnr([0.5, 0.2])
        got = out[(out.g == g) & (out.a == a)].estimate.to_numpy()
        np.testing.assert_allclose(got, want)
    overall = out[out.g == "(overall)"].estimate.to_numpy()
    np.testing.assert_allclose(overall, Scores.from_labels(df.y, df.s).fnr([0.5, 0.2]))
    assert np.all(out.low <= out.estimate + 1e-12) and np.all(out.estimate <= out.high + 1e-12)


def test_normalisation():
    df = frame(seed=1)
    kw = dict(groups="g", data=df, threshold=0.4, rng=0, n_resamples=100)
    raw = metric_by_group("y", "s", metric="fpr", **kw)
    rel = metric_by_group("y", "s", metric="fpr", normalize="by_overall", **kw)
    best = metric_by_group("y", "s", metric="fpr", normalize="by_best", **kw)
    groups = raw[raw.g != "(overall)"].estimate.to_numpy()
    overall = raw[raw.g == "(overall)"].estimate.iloc[0]
    np.testing.assert_allclose(rel[rel.g != "(overall)"].estimate, groups / overall)
    np.testing.assert_allclose(best[best.g != "(overall)"].estimate, groups / groups.min())


def test_bad_input():
    df = frame()
    with pytest.raises(ValueError, match="`groups`='nope' is not a column of `data`"):
        metric_by_group("y", "s", groups="nope", data=df, threshold=0.5)
    with pytest.raises(ValueError, match="Unknown metric"):
        metric_by_group("y", "s", groups="g", data=df, threshold=0.5, metric="frp")


# --- threshold-free statistics per group (EER, AUC, thresholds at rates, operating points)
@pytest.mark.parametrize(
    "metric,kw",
    [
        ("eer", {}),
        ("eer_threshold", {}),
        ("auc", {}),
        ("threshold_at_fpr", {"rate": [0.1, 0.3]}),
        ("fnr_at_fpr", {"at": 0.1}),
    ],
)
def test_score_metrics_match_scores_per_group(metric, kw):
    # reference: mlci.Scores on each group's rows (itself checked against score-analysis
    # and scikit-learn in test_scores.py)
    df = frame(n=600, seed=2)
    out = metric_by_group("y", "s", groups=["g", "a"], data=df, metric=metric, rng=0,
                          n_resamples=100, **kw)  # fmt: skip

    def ref(sub):
        sc = Scores.from_labels(sub.y, sub.s)
        if metric == "eer":
            return sc.eer().eer
        if metric == "eer_threshold":
            return sc.eer().threshold
        if metric == "auc":
            return sc.auc()
        if metric == "threshold_at_fpr":
            return sc.threshold_at_fpr(kw["rate"])
        return sc.rate_at("fnr", at=kw["at"], x="fpr")

    for (g, a), sub in df.groupby(["g", "a"]):
        got = out[(out.g == g) & (out.a == a)].estimate.to_numpy()
        np.testing.assert_allclose(got, ref(sub))
    np.testing.assert_allclose(out[out.g == "(overall)"].estimate.to_numpy(), ref(df))
    assert np.all(out.low <= out.estimate + 1e-12) and np.all(out.estimate <= out.high + 1e-12)


def test_score_metric_kernel_on_replicate_counts():
    # every replicate: each group's EER and the overall EER (from the summed group atoms)
    # equal Scores on the replicated samples themselves (np.repeat by the counts)
    from mlci.scores.groups import _score_metric_by_group

    df = frame(n=300, seed=3)
    df["s"] = df.s.round(1)  # ties inside and across groups
    names, gidx = np.unique(df.g.to_numpy(), return_inverse=True)
    y = df.y.to_numpy().astype(np.intp)
    s = df.s.to_numpy()
    kernel, keys = _score_metric_by_group(s, y, gidx, names, "eer", {}, None, "pos", "pos")
    rng = np.random.default_rng(0)
    for _ in range(5):
        c = rng.integers(0, 3, len(s))
        c[np.flatnonzero(y == 1)[:2]] = 1  # keep both classes in every replicate
        c[np.flatnonzero(y == 0)[:2]] = 1
        for g in range(len(names)):
            c[np.flatnonzero((gidx == g) & (y == 1))[0]] = 1
            c[np.flatnonzero((gidx == g) & (y == 0))[0]] = 1
        w = np.bincount(keys, weights=c, minlength=kernel.m)[None, :]
        got = kernel.evaluate(w)[0]
        rep = np.repeat(np.arange(len(s)), c)
        for g in range(len(names)):
            r = rep[gidx[rep] == g]
            want = Scores(s[r][y[r] == 1], s[r][y[r] == 0]).eer().eer
            assert got[g] == pytest.approx(want)
        assert got[-1] == pytest.approx(Scores(s[rep][y[rep] == 1], s[rep][y[rep] == 0]).eer().eer)


def test_score_metric_normalised():
    df = frame(n=800, seed=4)
    kw = dict(groups="g", data=df, rng=0, n_resamples=100)
    raw = metric_by_group("y", "s", metric="auc", **kw)
    rel = metric_by_group("y", "s", metric="auc", normalize="by_overall", **kw)
    groups = raw[raw.g != "(overall)"].estimate.to_numpy()
    overall = raw[raw.g == "(overall)"].estimate.iloc[0]
    np.testing.assert_allclose(rel[rel.g != "(overall)"].estimate, groups / overall)
    with pytest.raises(ValueError, match="`normalize`='by_best'"):
        metric_by_group("y", "s", metric="eer_threshold", normalize="by_best", **kw)


def test_score_metric_bad_input():
    df = frame(n=200)
    kw = dict(groups="g", n_resamples=50)
    with pytest.raises(TypeError, match="does not take `threshold`"):
        metric_by_group("y", "s", data=df, metric="eer", threshold=0.5, **kw)
    with pytest.raises(TypeError, match="needs `rate=`"):
        metric_by_group("y", "s", data=df, metric="threshold_at_fpr", **kw)
    with pytest.raises(TypeError, match="needs `at=`"):
        metric_by_group("y", "s", data=df, metric="fnr_at_fpr", **kw)
    with pytest.raises(TypeError, match="pass `threshold=`"):
        metric_by_group("y", "s", data=df, metric="fnr", **kw)
    # every group without a class the EER needs: refused, each group and its class named
    # (one group without a class: NaN there, tests/scores/test_groups_missing_class.py)
    split = df.copy()
    split["y"] = (split.g == "m").astype(int)
    with pytest.raises(ValueError, match=r"undefined in every group: 'f' \(no positives\)"):
        metric_by_group("y", "s", data=split, metric="eer", **kw)


# --- issue 8
@pytest.mark.filterwarnings(
    "ignore::mlci.FewResamplesWarning"
)  # few replicates: a fast check of equality, not of a level
def test_vocabulary_data_and_arrays_agree():
    df = frame(n=400, seed=5)
    a = metric_by_group("y", "s", groups=["g", "a"], data=df, threshold=0.4, rng=0, n_resamples=100)
    b = metric_by_group(
        df.y.to_numpy(), df.s.to_numpy(), groups=[df.g, df.a], threshold=0.4, rng=0, n_resamples=100
    )
    pd.testing.assert_frame_equal(a, b)
    c = metric_by_group(df.y, df.s, groups=df[["g", "a"]], threshold=0.4, rng=0, n_resamples=100)
    pd.testing.assert_frame_equal(a, c)
    assert a.attrs["n_dropped"] == 0 and a.attrs["alternative"] == "two-sided"
    d = metric_by_group(df.y, df.s, groups=df.g.to_numpy(), threshold=0.4, n_resamples=20, rng=0)
    assert d.columns[0] == "group"
    pl = pytest.importorskip("polars")
    e = metric_by_group("y", "s", groups=["g", "a"], data=pl.from_pandas(df), threshold=0.4,
                        rng=0, n_resamples=100)  # fmt: skip
    pd.testing.assert_frame_equal(a, e)


def test_confidence_level_and_alternative_checked():
    df = frame(n=200)
    kw = dict(groups="g", data=df, threshold=0.5, n_resamples=50, rng=0)
    # confidence_level=95 returned meaningless bounds
    with pytest.raises(ValueError, match="`confidence_level`"):
        metric_by_group("y", "s", confidence_level=95, **kw)
    with pytest.raises(ValueError, match="`alternative`"):
        metric_by_group("y", "s", alternative="one-sided", **kw)
    less = metric_by_group("y", "s", alternative="less", **kw)
    assert np.all(less.low == 0.0) and np.all(less.high <= 1.0)
    rel = metric_by_group("y", "s", alternative="greater", normalize="by_overall", **kw)
    assert np.all(rel.high == np.inf)


def test_labels_classes_and_missing_values():
    df = frame(n=300, seed=6)
    # more than two classes with pos_label was one-vs-rest, silently
    three = df.assign(y=np.arange(300) % 3)
    with pytest.raises(ValueError, match="needs binary labels, but `y_true` takes 3 values"):
        metric_by_group("y", "s", groups="g", data=three, threshold=0.5, pos_label=1)
    # string labels need pos_label (the one rule), instead of a default of 1
    words = df.assign(y=np.where(df.y == 1, "yes", "no"))
    with pytest.raises(ValueError, match="`pos_label` is not specified"):
        metric_by_group("y", "s", groups="g", data=words, threshold=0.5)
    ref = metric_by_group("y", "s", groups="g", data=df, threshold=0.5, rng=0, n_resamples=50)
    got = metric_by_group("y", "s", groups="g", data=words, threshold=0.5, pos_label="yes",
                          rng=0, n_resamples=50)  # fmt: skip
    pd.testing.assert_frame_equal(ref, got, check_like=True)
    # a None in a pandas object column (groups, labels, conditions): named, or dropped
    gaps = df.assign(g=df.g.astype(object), spk=np.arange(300) % 30)
    gaps.loc[[4, 9], "g"] = None
    with pytest.raises(ValueError, match=r"`groups`.* has 2 missing value.* rows 4, 9"):
        metric_by_group("y", "s", groups="g", data=gaps, threshold=0.5)
    out = metric_by_group("y", "s", groups="g", data=gaps, threshold=0.5, dropna=True,
                          rng=0, n_resamples=50)  # fmt: skip
    assert out.attrs["n_dropped"] == 2
    want = Scores.from_labels(df.y.drop([4, 9]), df.s.drop([4, 9])).fnr(0.5)
    assert out[out.g == "(overall)"].estimate.iloc[0] == pytest.approx(want)
    gaps.loc[7, "spk"] = np.nan
    with pytest.raises(ValueError, match=r"`conditions`.* has 1 missing value"):
        metric_by_group("y", "s", groups="a", data=gaps, conditions="spk", threshold=0.5)


def test_conditions_flat_and_nested():
    df = frame(n=400, seed=7)
    df["spk"] = np.arange(400) % 40
    df["ses"] = (np.arange(400) // 40) % 2
    flat = metric_by_group("y", "s", groups="g", data=df, conditions="spk", metric="eer",
                           rng=0, n_resamples=100)  # fmt: skip
    nested = metric_by_group("y", "s", groups="g", data=df, conditions=["spk", "ses"],
                             threshold=0.5, rng=0, n_resamples=100)  # fmt: skip
    base = metric_by_group("y", "s", groups="g", data=df, metric="eer", rng=0, n_resamples=100)
    np.testing.assert_allclose(flat.estimate, base.estimate)
    assert len(nested) == 3
    with pytest.raises(ValueError, match="`stratify=True`"):
        metric_by_group("y", "s", groups="g", data=df, conditions=["spk", "ses"],
                        threshold=0.5, resampling=Resampling(stratify=True))  # fmt: skip


def test_distances_score_class_neg():
    # distances (low = positive) with score_class="neg" give the same per-group statistics
    # as the negated scores with score_class="pos" (reference: mlci.Scores per group)
    df = frame(n=400, seed=8)
    df["d"] = -df.s
    kw = dict(groups="g", data=df, rng=0, n_resamples=50)
    for metric, extra in (
        ("eer", {}),
        ("auc", {}),
        ("fnr_at_fpr", {"at": 0.2}),
        ("fnr", {"threshold": -0.5}),
    ):
        got = metric_by_group("y", "d", metric=metric, score_class="neg", **extra, **kw)
        want = metric_by_group(
            "y", "s", metric=metric, **({"threshold": 0.5} if metric == "fnr" else extra), **kw
        )
        np.testing.assert_allclose(got.estimate, want.estimate, err_msg=metric)
    thr = metric_by_group("y", "d", metric="eer_threshold", score_class="neg", **kw)
    for g, sub in df.groupby("g"):
        ref = Scores.from_labels(sub.y, sub.d, score_class="neg").eer().threshold
        assert thr[thr.g == g].estimate.iloc[0] == pytest.approx(ref)


def test_group_result_is_a_result_with_a_plot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    df = frame()
    res = _metric_by_group("y", "s", groups=["g", "a"], data=df, threshold=[0.3, 0.6],
                           normalize="by_best", rng=0, n_resamples=100)  # fmt: skip
    assert repr(res).startswith("GroupResult(metric='fnr', 4 groups, threshold x 2")
    table = res.to_frame()
    assert table.attrs["normalize"] == "by_best" and len(table) == 10
    assert res.to_dict()["table"][0]["estimate"] == table.estimate.iloc[0]
    fig, ax = plt.subplots()
    assert res.plot(ax=ax) is ax
    assert len(ax.get_yticks()) == 4  # one row per group
    plt.close(fig)


def test_default_method_is_auto_bca():
    # issue 20, item 4: one method resolution; "auto" is BCa for a driver without a
    # linearized standard error (percentile before wt-auto2; docs/validation.md, section 5)
    from mlci.inputs import AUTO_BCA_REASON

    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 300)
    s = y + rng.normal(0, 1, 300)
    g = rng.choice(["f", "m"], 300)
    kw = dict(groups=g, threshold=0.5, rng=0, n_resamples=200)
    auto = _metric_by_group(y, s, **kw)
    bca = _metric_by_group(y, s, method="bca", **kw)
    assert auto.method == "bca" and auto.details["method_reason"] == AUTO_BCA_REASON
    assert auto.rows() == bca.rows()
    assert _metric_by_group(y, s, method="percentile", **kw).details == {"n_dropped": 0}
