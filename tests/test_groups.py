"""metric_by_group against per-group Scores, normalisation, bad input."""

import numpy as np
import pandas as pd
import pytest

from mlci import Scores
from mlci.groups import metric_by_group


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
        df,
        group_columns=["g", "a"],
        label_column="y",
        score_column="s",
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
    kw = dict(
        group_columns="g", label_column="y", score_column="s", threshold=0.4, rng=0, n_resamples=100
    )
    raw = metric_by_group(df, metric="fpr", **kw)
    rel = metric_by_group(df, metric="fpr", normalise="by_overall", **kw)
    best = metric_by_group(df, metric="fpr", normalise="by_best", **kw)
    groups = raw[raw.g != "(overall)"].estimate.to_numpy()
    overall = raw[raw.g == "(overall)"].estimate.iloc[0]
    np.testing.assert_allclose(rel[rel.g != "(overall)"].estimate, groups / overall)
    np.testing.assert_allclose(best[best.g != "(overall)"].estimate, groups / groups.min())


def test_bad_input():
    df = frame()
    with pytest.raises(ValueError, match="Column 'nope'"):
        metric_by_group(df, group_columns="nope", label_column="y", score_column="s", threshold=0.5)
    with pytest.raises(ValueError, match="Unknown metric"):
        metric_by_group(
            df, group_columns="g", label_column="y", score_column="s", threshold=0.5, metric="frp"
        )
    with pytest.raises(TypeError, match="DataFrame"):
        metric_by_group(
            {"g": [1]}, group_columns="g", label_column="y", score_column="s", threshold=0.5
        )
