"""`mlci ir` end to end on the bundled example and on files with errors."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("ir_measures")

from _helpers import run_cli as _run
from mlci.data import ir_example_paths
from mlci.ir import ir_compare

P = ir_example_paths()


def test_compare_t_equals_api(capsys):
    runs = [str(v) for v in P["runs"].values()]
    code, out, err = _run(
        capsys, ["ir", "compare", *runs, "--qrels", str(P["qrels"]), "--test", "t", "--json"]
    )
    assert code == 0, err
    (res,) = json.loads(out)
    api = ir_compare(P["runs"], P["qrels"], variant="t")
    assert res["pvalues_adjusted"] == pytest.approx(api.pvalues_adjusted.tolist(), rel=1e-12)
    assert [tuple(p) for p in res["pairs"]] == list(api.pairs)


def test_ci_on_the_example(capsys):
    code, out, err = _run(
        capsys, ["ir", "ci", "--example", "--measure", "map,mrr", "-B", "200", "--seed", "0"]
    )
    assert code == 0, err
    assert "AP" in out and "RR" in out and "hybrid" in out


def test_file_errors_name_file_and_line(tmp_path, capsys):
    run = tmp_path / "bad.run"
    run.write_text("q1 Q0 d1 1 2.0 x\nq1 Q0 d2 2 oops x\n")
    code, out, err = _run(capsys, ["ir", "ci", str(run), "--qrels", str(P["qrels"])])
    assert code == 2 and out == ""
    assert f"RUNS '{run}' line 2: the score 'oops'" in err, err
    q = tmp_path / "q.txt"
    q.write_text("q1 0 d1\n")
    good = P["runs"]["bm25"]
    code, out, err = _run(capsys, ["ir", "ci", str(good), "--qrels", str(q)])
    assert code == 2 and f"--qrels '{q}' line 1: 3 fields, expected 4" in err, err
    code, out, err = _run(capsys, ["ir", "ci", str(good)])
    assert code == 2 and "--qrels FILE, or --example" in err
    code, out, err = _run(capsys, ["ir", "ci", str(good), str(good), "--qrels", str(q)])
    assert code == 2 and "two runs are named 'bm25'" in err
