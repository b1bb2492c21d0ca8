"""The DuckDB reduction (the embedded default): same seed, same interval as in memory.

Exact paths: decision metrics (a table of distinct rows) with every design, and additive
metrics summed per condition (equal up to the order of floating-point additions).  Under
``method="auto"`` the table resolves the method as :func:`mlci.bootstrap_ci` does (the
table's samples through the in-memory engine: the same method, reason and interval),
except for an additive metric of other values than 0/1 summed per condition (BCa, with
its reason; tests/backends/test_auto.py).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from backend_frames import make_frame

import mlci
from mlci.backends.sources import duckdb_connection, open_source

duckdb = pytest.importorskip(
    "duckdb", reason="duckdb is not installed (pip install 'mlci[duckdb]')"
)

DESIGNS = {
    "iid": {},
    "conditions": {"conditions": "speaker"},
    "strata": {"strata": "stratum"},
    "conditions-within-strata": {"conditions": "speaker", "strata": "stratum"},
}
FAST = {"n_resamples": 200, "rng": 3}


@pytest.fixture(scope="module")
def frame():
    return make_frame(40_000)


def in_memory(df, columns, metric, design, **kw):
    arrays = [df[c].to_numpy() for c in columns]
    extra = {role: df[col].to_numpy() for role, col in design.items()}
    return mlci.bootstrap_ci(*arrays, metric=metric, **extra, **FAST, **{"method": "auto", **kw})


@pytest.mark.parametrize("design", list(DESIGNS))
@pytest.mark.parametrize(
    ("metric", "options"),
    [("accuracy", {}), ("f1", {}), ("mcc", {}), ("balanced_accuracy", {}), ("recall", {})],
)
def test_decision_metrics_same_interval_as_in_memory(frame, design, metric, options):
    d = DESIGNS[design]
    table = mlci.reduce_table(frame, "label", "prediction", metric=metric, **d)
    assert table.kind == "rows" and table.n_samples == len(frame)
    res = table.bootstrap_ci(**FAST, **options)
    mem = in_memory(frame, ("label", "prediction"), metric, d, **options)
    assert res.scheme == mem.scheme == design
    assert res.estimate == mem.estimate
    assert res.confidence_interval == mem.confidence_interval  # bit for bit
    np.testing.assert_array_equal(res.bootstrap_distribution, mem.bootstrap_distribution)


@pytest.mark.parametrize("method", ["percentile", "basic", "normal", "bc"])
def test_every_interval_method_is_exact(frame, method):
    table = mlci.reduce_table(frame, "label", "prediction", metric="mcc", conditions="speaker")
    res = table.bootstrap_ci(method=method, **FAST)
    mem = in_memory(frame, ("label", "prediction"), "mcc", {"conditions": "speaker"}, method=method)
    assert res.confidence_interval == mem.confidence_interval


def test_poisson_weights_are_exact(frame):
    table = mlci.reduce_table(frame, "label", "prediction", metric="f1", conditions="speaker")
    res = table.bootstrap_ci(resampling=mlci.Resampling(weights="poisson"), **FAST)
    mem = in_memory(
        frame,
        ("label", "prediction"),
        "f1",
        {"conditions": "speaker"},
        resampling=mlci.Resampling(weights="poisson"),
    )
    assert res.scheme == "conditions+poisson"
    assert res.confidence_interval == mem.confidence_interval


def test_one_table_serves_every_confusion_metric(frame):
    table = mlci.reduce_table(
        frame, "label", "prediction", metric=["accuracy", "f1", "mcc"], conditions="speaker"
    )
    for metric in ("accuracy", "f1", "mcc", "precision"):
        res = table.bootstrap_ci(metric, **FAST)
        mem = in_memory(frame, ("label", "prediction"), metric, {"conditions": "speaker"})
        assert res.confidence_interval == mem.confidence_interval
    with pytest.raises(ValueError, match="`metric`"):
        table.bootstrap_ci(**FAST)  # several metrics: name one
    with pytest.raises(ValueError, match="`metric` 'roc_auc'"):
        table.bootstrap_ci("roc_auc", **FAST)


@pytest.mark.parametrize(
    ("metric", "columns"),
    [
        ("mean", ("loss",)),
        ("weighted_mean", ("weight", "loss")),
        ("mae", ("score", "loss")),
        ("mse", ("score", "loss")),
        ("rmse", ("score", "loss")),
    ],
)
@pytest.mark.parametrize("design", ["conditions", "conditions-within-strata"])
def test_additive_metrics_over_conditions(frame, metric, columns, design):
    d = DESIGNS[design]
    table = mlci.reduce_table(frame, *columns, metric=metric, **d)
    assert table.kind == "sums" and table.n_rows == len(frame.groupby(list(d.values())))
    res = table.bootstrap_ci(**FAST)
    # auto: BCa, the sums hold no sample's value for the linearization (its reason says so)
    assert res.method == "bca" and "per-condition sums" in res.details["method_reason"]
    mem = in_memory(frame, columns, metric, d, method="bca")
    # the same replicates, summed in another order: equal to rounding
    np.testing.assert_allclose(res.estimate, mem.estimate, rtol=1e-12)
    np.testing.assert_allclose(res.confidence_interval, mem.confidence_interval, rtol=1e-10)
    np.testing.assert_allclose(res.bootstrap_distribution, mem.bootstrap_distribution, rtol=1e-10)


@pytest.mark.parametrize(
    ("metric", "columns"), [("mean", ("label",)), ("weighted_mean", ("weight", "label"))]
)
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_mean_of_zero_one_values_over_conditions_is_a_proportion(
    frame, metric, columns, alternative
):
    # issue 20: the in-memory kernel of 0/1 values is a proportion in (0, 1); the sums
    # table counts the values other than 0 and 1 in the engine and says the same, so its
    # one-sided intervals end at 1 (or 0), as in memory, not at infinity
    d = DESIGNS["conditions"]
    table = mlci.reduce_table(frame, *columns, metric=metric, **d)
    assert table.kind == "sums" and not table.table["nonbinary"].any()
    res = table.bootstrap_ci(alternative=alternative, method="bca", **FAST)
    mem = in_memory(frame, columns, metric, d, alternative=alternative, method="bca")
    assert res.bounds == mem.bounds == (0.0, 1.0)
    np.testing.assert_allclose(res.confidence_interval, mem.confidence_interval, rtol=1e-10)
    # one value that is neither 0 nor 1: a mean, unbounded, in memory and in the engine
    other = frame.assign(label=frame["label"].astype(float))
    other.loc[7, "label"] = 0.5
    table = mlci.reduce_table(other, *columns, metric=metric, **d)
    assert table.table["nonbinary"].sum() == 1
    res = table.bootstrap_ci(alternative=alternative, method="bca", **FAST)
    mem = in_memory(other, columns, metric, d, alternative=alternative, method="bca")
    assert res.bounds == mem.bounds == (-np.inf, np.inf)
    np.testing.assert_allclose(res.confidence_interval, mem.confidence_interval, rtol=1e-10)
    # a missing value dropped is not counted (it is not among the values)
    other.loc[7, "label"] = np.nan
    table = mlci.reduce_table(other, *columns, metric=metric, dropna=True, **d)
    assert table.n_dropped == 1 and not table.table["nonbinary"].any()
    assert table.bootstrap_ci(**FAST).bounds == (0.0, 1.0)


def test_additive_metric_without_conditions_uses_distinct_values(frame):
    # iid: the distinct values are the atoms (exact), when there are few of them
    frame = frame.assign(correct=(frame["label"] == frame["prediction"]).astype(float))
    table = mlci.reduce_table(frame, "correct", metric="mean")
    assert table.kind == "rows" and table.n_rows == 2
    res = table.bootstrap_ci(**FAST)
    assert res.confidence_interval == in_memory(frame, ("correct",), "mean", {}).confidence_interval
    with pytest.raises(ValueError, match="max_rows"):
        mlci.reduce_table(frame, "score", metric="mean", max_rows=100)


@pytest.fixture(scope="module")
def parquet_dir(tmp_path_factory, frame):
    pytest.importorskip("pyarrow")
    d = tmp_path_factory.mktemp("parquet")
    for i in range(4):
        frame.iloc[i * 10_000 : (i + 1) * 10_000].to_parquet(d / f"part-{i}.parquet")
    return d


def test_parquet_glob_and_sql(frame, parquet_dir):
    design = {"conditions": "speaker", "strata": "stratum"}
    mem = in_memory(frame, ("label", "prediction"), "accuracy", design)
    res = mlci.reduce_ci(
        str(parquet_dir / "*.parquet"), "label", "prediction", metric="accuracy", **design, **FAST
    )
    assert res.confidence_interval == mem.confidence_interval
    assert res.details["engine"] == "duckdb" and "4 files" in res.details["source"]
    query = f"SELECT * FROM read_parquet('{parquet_dir}/*.parquet') WHERE stratum >= 0"
    res = mlci.reduce_ci(query, "label", "prediction", metric="accuracy", **design, **FAST)
    assert res.confidence_interval == mem.confidence_interval


def test_duckdb_relation(frame):
    con = duckdb.connect()
    con.register("preds", frame)
    rel = con.sql("SELECT * FROM preds")
    res = mlci.reduce_ci(rel, "label", "prediction", metric="mcc", conditions="speaker", **FAST)
    mem = in_memory(frame, ("label", "prediction"), "mcc", {"conditions": "speaker"})
    assert res.confidence_interval == mem.confidence_interval


def test_csv_with_missing_cells(tmp_path, frame):
    small = frame.iloc[:3000].copy()
    path = tmp_path / "preds.csv"
    text = small.to_csv(index=False).splitlines()
    # file lines 6 and 10 (data rows 4 and 8): a label spelled NA, an empty speaker
    cells = text[5].split(",")
    cells[0] = "NA"
    text[5] = ",".join(cells)
    cells = text[9].split(",")
    cells[3] = ""
    text[9] = ",".join(cells)
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(ValueError, match=r"`y_true`: column 'label' of .*preds.csv has 1 missing"):
        mlci.reduce_table(str(path), "label", "prediction", metric="accuracy")
    with pytest.raises(ValueError, match=r"`conditions`: column 'speaker'"):
        mlci.reduce_table(str(path), "label", "prediction", metric="accuracy", conditions="speaker")
    table = mlci.reduce_table(
        str(path), "label", "prediction", metric="accuracy", conditions="speaker", dropna=True
    )
    assert table.n_dropped == 2 and table.n_samples == 2998
    kept = small.drop(index=[4, 8])
    res = table.bootstrap_ci(**FAST)
    mem = in_memory(kept, ("label", "prediction"), "accuracy", {"conditions": "speaker"})
    assert res.confidence_interval == mem.confidence_interval
    assert res.details["n_dropped"] == 2


def test_memory_limit_and_spill_directory_are_set(tmp_path):
    con = duckdb_connection("300MB", tmp_path)
    limit = con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    temp = con.execute("SELECT current_setting('temp_directory')").fetchone()[0]
    assert limit.replace(" ", "") in ("300.0MB", "286.1MiB", "300MB")
    assert temp.startswith(str(tmp_path))
    # DuckDB's progress bar would print into the command's output
    assert con.execute("SELECT current_setting('enable_progress_bar')").fetchone()[0] is False
    with pytest.raises((ValueError, TypeError), match="`memory_limit`"):
        duckdb_connection("lots")


# ------------------------------------------------------------------------ bad input
def test_missing_column_names_file_and_column(parquet_dir):
    with pytest.raises(ValueError, match=r"`y_pred`: no column 'pred' in 4 files .*label"):
        mlci.reduce_table(str(parquet_dir / "*.parquet"), "label", "pred", metric="accuracy")


def test_type_the_engine_cannot_aggregate(tmp_path, frame):
    path = tmp_path / "text.parquet"
    frame.iloc[:100].assign(score=frame["score"].iloc[:100].astype(str)).to_parquet(path)
    with pytest.raises(TypeError, match=r"`y_score`: column 'score' of .*text.parquet has type"):
        mlci.reduce_table(str(path), "label", "score", metric="roc_auc")
    rel = duckdb.sql("SELECT [1, 2] AS label, 1 AS prediction")
    with pytest.raises(TypeError, match=r"`y_true`: column 'label' .* cannot be grouped"):
        mlci.reduce_table(rel, "label", "prediction", metric="accuracy")


def test_glob_matching_nothing(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"`source`: no file matches .*nothing-\*"):
        mlci.reduce_table(str(tmp_path / "nothing-*.parquet"), "a", "b", metric="accuracy")
    with pytest.raises(FileNotFoundError, match="no such file"):
        mlci.reduce_table(str(tmp_path / "gone.parquet"), "a", "b", metric="accuracy")
    with pytest.raises(IsADirectoryError, match="is a directory"):
        mlci.reduce_table(str(tmp_path), "a", "b", metric="accuracy")


def test_file_vanishing_mid_read_names_it(tmp_path, frame):
    pytest.importorskip("pyarrow")
    for i in range(3):
        frame.iloc[i * 1000 : (i + 1) * 1000].to_parquet(tmp_path / f"p{i}.parquet")
    src = open_source(str(tmp_path / "*.parquet"))  # files listed, not read yet
    os.remove(tmp_path / "p1.parquet")
    from mlci.backends.reduction import count_rows

    with pytest.raises(OSError, match=r"3 files .*p1\.parquet"):
        count_rows(src, {"y_true": "label", "y_pred": "prediction"}, max_rows=100)


def test_bad_options(frame):
    good = {"metric": "accuracy"}
    cases = [
        ({"engine": "nope"}, "`engine`"),
        ({"engine": "spark"}, "`engine='spark'`"),
        ({"score_bins": 1}, "`score_bins`"),
        ({"max_rows": 0}, "`max_rows`"),
        ({"dropna": "yes"}, "`dropna`"),
        ({"conditions": ["speaker", "stratum"]}, "`conditions`"),
        ({"strata": 3}, "`strata`"),
        ({"metric": ["accuracy", "roc_auc"]}, "`metric`"),
        ({"metric": 3}, "`metric`"),
    ]
    for bad, pattern in cases:
        with pytest.raises((ValueError, TypeError), match=pattern):
            mlci.reduce_table(frame, "label", "prediction", **{**good, **bad})
    with pytest.raises(ValueError, match="`columns`"):
        mlci.reduce_table(frame, "label", metric="accuracy")
    with pytest.raises(TypeError, match="`source`"):
        mlci.reduce_table(42, "label", "prediction", metric="accuracy")
    with pytest.raises(ValueError, match="`confidence_level`"):
        mlci.reduce_ci(frame, "label", "prediction", metric="accuracy", confidence_level=95)


def test_labels_that_are_not_decisions(frame):
    with pytest.raises(ValueError, match="`y_pred` holds non-integer numbers"):
        mlci.reduce_table(frame, "label", "score", metric="accuracy", max_rows=10**6).bootstrap_ci(
            **FAST
        )


def test_table_result_interface(frame):
    table = mlci.reduce_table(frame, "label", "prediction", metric="accuracy", conditions="speaker")
    assert repr(table).startswith("AtomTable(rows, accuracy; 40000 samples in ")
    d = table.to_dict()
    assert d["n_rows"] == table.n_rows and sum(d["table"]["count"]) == 40000
    assert isinstance(table.to_frame(), pd.DataFrame)
