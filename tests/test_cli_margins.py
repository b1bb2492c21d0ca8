"""`mlci compare --margin` and the interval of `--test mcnemar` (issue 26)."""

from __future__ import annotations

import numpy as np
import pytest

import mlci
from _helpers import example_compare
from mlci.cli import main
from mlci.data import load_example


def run_json(capsys, argv):
    code = main([*argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    import json

    return json.loads(out)


def test_compare_margin_bootstrap_matches_api(capsys):
    argv = ["compare", "--example", "--systems", "pred,pred_baseline", "--metric", "accuracy"]
    argv += ["--condition", "speaker", "-B", "200", "--seed", "3", "--margin", "0.05"]
    res = run_json(capsys, argv)
    ref = example_compare(margin=0.05)
    got = res["differences"][0]["margin_test"]
    want = ref.differences[0].margin_test
    assert got["pvalue_noninferiority"] == pytest.approx(want.pvalue_noninferiority)
    assert got["pvalue_equivalence"] == pytest.approx(want.pvalue_equivalence)
    assert got["interval"]["low"] == pytest.approx(want.interval.low)
    # the table: the decision in words
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "non-inferiority and equivalence (TOST)" in out and "non-inferior" in out
    assert "H0 of non-inferiority: A - B <= -0.05" in out


def test_compare_mcnemar_interval_and_margin(capsys):
    d = load_example(as_frame=False)
    argv = ["compare", "--example", "--systems", "pred,pred_baseline", "--test", "mcnemar"]
    res = run_json(capsys, [*argv, "--margin", "0.12"])
    table = mlci.paired_table(d["pred"] == d["label"], d["pred_baseline"] == d["label"])
    low, high = mlci.paired_proportion_diff_ci(table, method="tango").confidence_interval
    pair = res["differences"][0]
    assert pair["confidence_interval"]["low"] == pytest.approx(low, abs=1e-12)
    assert pair["confidence_interval"]["high"] == pytest.approx(high, abs=1e-12)
    ref = mlci.mcnemar_margin_test(table, margin=0.12)
    got = res["margin_tests"][0]
    assert got["pvalue_equivalence"] == pytest.approx(ref.pvalue_equivalence)
    assert got["a"] == "pred" and got["equivalent"] == ref.equivalent
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Tango" in out
    assert not any(line.split()[2:4] == ["-", "-"] for line in out.splitlines() if " - " in line)


def test_datasets_csv_and_quiet_keep_the_friedman_result(capsys):
    f = "docs/data/datasets_example.csv"
    import csv
    import io
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    table = np.genfromtxt(root / f, delimiter=",", names=True, dtype=None, encoding="utf-8")
    scores = np.column_stack([table[n] for n in table.dtype.names[1:]]).astype(float)
    fried = mlci.friedman_test(scores)
    cd = mlci.nemenyi_test(scores).critical_difference
    assert main(["datasets", str(root / f), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    first = out.split("\n\n")[0].splitlines()
    assert first[0] == "# Friedman test"
    row = next(csv.DictReader(io.StringIO("\n".join(first[1:]))))
    assert float(row["statistic"]) == pytest.approx(fried.statistic, rel=1e-12)
    assert float(row["p"]) == pytest.approx(fried.pvalue, rel=1e-3)
    assert float(row["critical difference"]) == pytest.approx(cd, rel=1e-12)
    assert main(["datasets", str(root / f), "--quiet"]) == 0
    quiet = capsys.readouterr().out
    assert "friedman-iman-davenport" in quiet and "1.4832" in quiet


def test_metrics_and_example_format_json(capsys):
    import json

    assert main(["metrics", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows} == set(mlci.list_metrics())
    assert main(["example", "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    d = load_example(as_frame=False)
    assert info["n_rows"] == len(d["label"]) and info["n_speakers"] == len(set(d["speaker"]))
    assert [c["name"] for c in info["columns"]] == list(d)
    assert info["commands"][0].startswith("mlci ci --example")
    for argv in (["metrics", "--format", "csv"], ["example", "--format", "xml"]):
        with pytest.raises(SystemExit):
            main(argv)
        assert "--format: invalid choice" in capsys.readouterr().err


def test_ci_reads_standard_input(capsys, monkeypatch):
    import io
    import json
    import pathlib

    from mlci.data import example_path

    argv = ["ci", "-", "--label", "label", "--pred", "pred", "--metric", "accuracy"]
    argv += ["--seed", "0", "-B", "100", "--format", "json"]
    data = pathlib.Path(example_path()).read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(argv) == 0
    from_stdin = json.loads(capsys.readouterr().out)
    assert main([*argv[:1], str(example_path()), *argv[2:]]) == 0
    from_file = json.loads(capsys.readouterr().out)
    strip = lambda d: json.dumps(d, sort_keys=True).replace(str(example_path()), "<stdin>")  # noqa: E731
    assert strip(from_stdin) == strip(from_file)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"  \n")))
    assert main(argv) == 2
    assert "standard input is empty" in capsys.readouterr().err


def test_scores_partial_auc_and_youden_match_the_api(capsys):
    import json

    d = load_example(as_frame=False)
    argv = ["scores", "--example", "--label", "is_angry", "--score", "score_angry"]
    argv += ["--max-fpr", "0.1", "--youden", "--seed", "0", "-B", "100", "--format", "json"]
    assert main(argv) == 0
    res = json.loads(capsys.readouterr().out)
    found = res["scores"]["score_angry"] if "scores" in res else res
    rows = {(r["quantity"], r.get("at", "")): r for r in found}
    s = mlci.Scores.from_labels(d["is_angry"], d["score_angry"])
    ref = mlci.auc_ci(s, max_fpr=0.1, n_resamples=100, rng=0)
    assert rows[("partial auc", "max_fpr=0.1")]["estimate"] == pytest.approx(ref.estimate)
    opt = mlci.optimal_threshold_ci(s, n_resamples=100, rng=0)
    assert rows[("youden", "")]["threshold"] == pytest.approx(opt.threshold)
    assert rows[("youden", "")]["threshold_interval"]["low"] == pytest.approx(
        opt.threshold_interval.low
    )
