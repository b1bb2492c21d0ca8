"""`mlci ci --engine duckdb`: the same table as in memory, from a glob of Parquet files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from backend_frames import make_frame

import mlci
import mlci.cli
from mlci.backends.command import LARGE_FILE, ci_engine

pytest.importorskip("duckdb", reason="duckdb is not installed (pip install 'mlci[duckdb]')")
pytest.importorskip("pyarrow", reason="writing Parquet needs pyarrow")


@pytest.fixture(scope="module")
def frame():
    return make_frame(40_000)


@pytest.fixture(scope="module")
def files(tmp_path_factory, frame):
    d = tmp_path_factory.mktemp("cli")
    for i in range(3):
        frame.iloc[i * 5000 : (i + 1) * 5000].to_parquet(d / f"part-{i}.parquet")
    frame.iloc[:15000].to_parquet(d / "all.parquet")
    return d


def run(capsys, argv):
    code = mlci.cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


ARGS = [
    "--label",
    "label",
    "--pred",
    "prediction",
    "--condition",
    "speaker",
    "--seed",
    "1",
    "--method",
    "bca",
]


def test_glob_goes_through_duckdb_with_the_in_memory_numbers(capsys, files):
    metrics = ["--metric", "accuracy,f1,mcc", "-B", "200", "--json"]
    code, out, err = run(capsys, ["ci", str(files / "part-*.parquet"), *ARGS, *metrics])
    assert code == 0, err
    reduced = json.loads(out)
    code, out, err = run(capsys, ["ci", str(files / "all.parquet"), *ARGS, *metrics])
    assert code == 0, err
    memory = json.loads(out)
    assert [r["metric"] for r in reduced] == ["accuracy", "f1", "mcc"]
    for a, b in zip(reduced, memory, strict=True):
        assert a["confidence_interval"] == b["confidence_interval"]
        assert a["details"]["engine"] == "duckdb" and "engine" not in b["details"]
    # the same file, forced through DuckDB: the same numbers again
    code, out, _ = run(
        capsys, ["ci", str(files / "all.parquet"), *ARGS, *metrics, "--engine", "duckdb"]
    )
    assert [r["confidence_interval"] for r in json.loads(out)] == [
        r["confidence_interval"] for r in memory
    ]


def test_glob_under_auto_gives_the_in_memory_methods(capsys, files):
    # issue 20, item 4: the default method through DuckDB is the in-memory one (a
    # proportion over conditions: logit t; f1 and mcc: studentized), same numbers
    args = [a for a in ARGS if a not in ("--method", "bca")]
    metrics = ["--metric", "accuracy,f1,mcc", "-B", "200", "--json"]
    code, out, err = run(capsys, ["ci", str(files / "part-*.parquet"), *args, *metrics])
    assert code == 0, err
    reduced = json.loads(out)
    code, out, err = run(capsys, ["ci", str(files / "all.parquet"), *args, *metrics])
    assert code == 0, err
    memory = json.loads(out)
    assert [r["method"] for r in reduced] == [r["method"] for r in memory]
    assert reduced[0]["method"] == "logit_t" and reduced[1]["method"] == "studentized"
    for a, b in zip(reduced, memory, strict=True):
        assert a["confidence_interval"] == b["confidence_interval"]
        assert a["details"]["method_reason"] == b["details"]["method_reason"]
        assert a["details"]["engine"] == "duckdb"


def test_table_output_and_pos_label(capsys, files):
    code, out, err = run(
        capsys,
        [
            "ci",
            str(files / "part-*.parquet"),
            *ARGS,
            "--metric",
            "f1",
            "--pos-label",
            "0",
            "-B",
            "50",
        ],
    )
    assert code == 0, err
    assert out.startswith("# 3 files") and "f1 (pos=0)" in out


def test_engine_choice(tmp_path):
    assert ci_engine("x/*.parquet", None) == "duckdb"
    assert ci_engine("x.parquet", "memory") == "memory"
    small = tmp_path / "small.csv"
    small.write_text("a\n1\n")
    assert ci_engine(str(small), None) == "memory"
    big = tmp_path / "big.csv"
    with open(big, "wb") as fh:  # a sparse file larger than the threshold
        fh.truncate(LARGE_FILE + 1)
    assert ci_engine(str(big), None) == "duckdb"
    assert ci_engine(None, None, example=True) == "memory"


def test_glob_matching_nothing_is_one_line(capsys, tmp_path):
    code, out, err = run(
        capsys, ["ci", str(tmp_path / "none-*.parquet"), *ARGS, "--metric", "accuracy"]
    )
    assert code == 2 and out == ""
    assert err.startswith("mlci: error: ") and "none-*.parquet" in err and err.count("\n") == 1


def test_missing_values_and_dropna(capsys, tmp_path):
    path = tmp_path / "na.csv"
    path.write_text("y,p,spk\n0,0,a\n1,1,b\nNA,1,c\n0,0,d\n1,0,e\n" + "0,0,f\n1,1,g\n" * 10)
    base = [
        "ci",
        str(path),
        "--engine",
        "duckdb",
        "--label",
        "y",
        "--pred",
        "p",
        "--metric",
        "accuracy",
        "-B",
        "50",
        "--seed",
        "0",
    ]
    code, out, err = run(capsys, base)
    assert code == 2 and "--label: column 'y'" in err and "1 missing" in err and "--dropna" in err
    code, out, err = run(capsys, [*base, "--dropna"])
    assert code == 0, err
    assert "(1 row with a missing value dropped)" in out


def test_ranking_with_conditions_and_score_bins(capsys, files):
    import mlci

    glob_ = str(files / "part-*.parquet")
    argv = ["ci", glob_, "--label", "label", "--score", "score", "--condition", "speaker"]
    argv += ["--metric", "roc_auc", "--seed", "1", "-B", "100", "--json", "--score-bins", "32"]
    code, out, err = run(capsys, argv)
    assert code == 0, err
    (got,) = json.loads(out)
    want = mlci.reduce_ci(
        glob_,
        "label",
        "score",
        metric="roc_auc",
        conditions="speaker",
        score_bins=32,
        n_resamples=100,
        rng=1,
    )
    ci = got["confidence_interval"]
    assert (ci["low"], ci["high"]) == tuple(want.confidence_interval)
    assert got["details"]["error_bound"] == want.details["error_bound"] > 0
    assert got["details"]["score_bins"] <= 32
    # in memory the scores are not quantised: the option is refused, not ignored
    code, out, err = run(capsys, [*argv[:-2], "--score-bins", "32", "--engine", "memory"])
    assert code == 2 and "--score-bins" in err and "--engine duckdb" in err
    with pytest.raises(SystemExit) as exit_:
        run(capsys, [*argv[:-2], "--score-bins", "1"])
    assert exit_.value.code == 2 and "--score-bins" in capsys.readouterr().err


def test_binned_bound_in_every_format(capsys, files):
    # issue 25: the certified bound of a binned AUC is shown in the table, CSV, Markdown
    # and JSON, and the interval printed is the binned one widened by it
    path = str(files / "all.parquet")
    argv = ["ci", path, "--label", "label", "--score", "score", "--metric", "roc_auc"]
    argv += ["--engine", "duckdb", "--seed", "1", "-B", "100", "--score-bins", "32"]
    want = mlci.reduce_ci(
        path, "label", "score", metric="roc_auc", score_bins=32, n_resamples=100, rng=1
    )
    bound = want.details["error_bound"]
    assert bound > 0
    code, out, err = run(capsys, [*argv, "--format", "table", "--digits", "6"])
    assert code == 0, err
    header, row = [ln for ln in out.splitlines() if not ln.startswith("#")][:2]
    assert header.split()[:5] == ["metric", "estimate", "low", "high", "bound"]
    assert row.split()[4] == f"{bound:.6f}"
    assert "widened" in out and "bound" in out
    code, out, err = run(capsys, [*argv, "--format", "csv"])
    head, line = out.splitlines()[:2]
    cells = dict(zip(head.split(","), line.split(","), strict=True))
    assert float(cells["bound"]) == bound
    assert float(cells["low"]) == want.confidence_interval.low
    code, out, err = run(capsys, [*argv, "--format", "md"])
    assert "| bound |" in out and "widened" in out
    code, out, err = run(capsys, [*argv, "--format", "json"])
    (got,) = json.loads(out)
    assert got["details"]["error_bound"] == bound
    inner = got["details"]["binned_interval"]
    assert got["confidence_interval"]["low"] == max(inner["low"] - bound, 0.0)
    assert got["confidence_interval"]["high"] == min(inner["high"] + bound, 1.0)
    assert "widened" in got["details"]["method_reason"]


def test_binned_bound_smaller_than_the_decimals_in_significant_digits(capsys, files):
    # issue 25: at 1e8 rows the bound (2.4e-05) printed with 4 decimals read "0.0000";
    # the table shows it in significant digits then, CSV keeps the number
    path = str(files / "all.parquet")
    argv = ["ci", path, "--label", "label", "--score", "score", "--metric", "roc_auc"]
    argv += ["--engine", "duckdb", "--seed", "1", "-B", "50", "--score-bins", "32"]
    bound = mlci.reduce_ci(
        path, "label", "score", metric="roc_auc", score_bins=32, n_resamples=50, rng=1
    ).details["error_bound"]
    few = int(np.floor(1 - np.log10(bound)))  # decimals that show under 2 digits of it
    code, out, err = run(capsys, [*argv, "--digits", str(few)])
    assert code == 0, err
    row = [ln for ln in out.splitlines() if not ln.startswith("#")][1]
    assert row.split()[4] == f"{bound:.2g}" and float(row.split()[4]) > 0
    code, out, err = run(capsys, [*argv, "--digits", str(few + 2)])
    row = [ln for ln in out.splitlines() if not ln.startswith("#")][1]
    assert row.split()[4] == f"{bound:.{few + 2}f}"
    code, out, err = run(capsys, [*argv, "--format", "csv", "--digits", str(few)])
    head, line = out.splitlines()[:2]
    assert float(dict(zip(head.split(","), line.split(","), strict=True))["bound"]) == bound
