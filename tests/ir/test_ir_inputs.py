"""Bad inputs of every public function of mlci.ir: errors name the argument (and the file
and line for TREC files)."""

from __future__ import annotations

import gzip

import pytest

pytest.importorskip("ir_measures")

from mlci.data import ir_example_paths
from mlci.ir import (
    ir_ci,
    ir_compare,
    measure_name,
    per_query,
    read_qrels,
    read_run,
)

P = ir_example_paths()
RUN = {"q1": {"a": 2.0, "b": 1.0}, "q2": {"c": 1.0, "d": 0.0}}
QRELS = {"q1": {"b": 1}, "q2": {"c": 2}}


def write(tmp_path, name, text):
    f = tmp_path / name
    f.write_text(text)
    return f


@pytest.mark.parametrize(
    "text,match",
    [
        ("q1 Q0 d1 1 2.5\n", r"line 1: 5 fields, expected 6"),
        ("q1 Q0 d1 1 2.5 t\nq1 Q0 d2 x 1.0 t\n", r"line 2: the rank 'x'"),
        ("q1 Q0 d1 1 high t\n", r"line 1: the score 'high'"),
        ("q1 Q0 d1 1 nan t\n", r"line 1: the score 'nan' .* not finite"),
        ("q1 Q0 d1 1 2 t\n\nq1 Q0 d1 2 1 t\n", r"line 3: document 'd1' is listed twice"),
        ("\n\n", r"holds no run line"),
    ],
)
def test_bad_run_files(tmp_path, text, match):
    f = write(tmp_path, "r.run", text)
    with pytest.raises(ValueError, match=match) as e:
        read_run(f)
    assert "`path`" in str(e.value) and "r.run" in str(e.value)


@pytest.mark.parametrize(
    "text,match",
    [
        ("q1 0 d1\n", r"line 1: 3 fields, expected 4"),
        ("q1 0 d1 1\nq1 0 d2 yes\n", r"line 2: the relevance 'yes'"),
        ("q1 0 d1 1\nq1 0 d1 0\n", r"line 2: document 'd1' is judged twice"),
        ("", r"holds no qrels line"),
    ],
)
def test_bad_qrels_files(tmp_path, text, match):
    f = write(tmp_path, "q.txt", text)
    with pytest.raises(ValueError, match=match) as e:
        read_qrels(f)
    assert "`path`" in str(e.value)


def test_readers_gzip_and_missing_file(tmp_path):
    f = tmp_path / "r.run.gz"
    with gzip.open(f, "wt") as fh:
        fh.write("q1 Q0 d1 1 2.5 t\n")
    assert read_run(f) == {"q1": {"d1": 2.5}}
    with pytest.raises(ValueError, match="`path`: no such file"):
        read_run(tmp_path / "nope.run")
    with pytest.raises(TypeError, match="`path` must be a path"):
        read_qrels(3)
    b = tmp_path / "bin.txt"
    b.write_bytes(b"\xff\xfe\x00q1 0 d1 1\n")
    with pytest.raises(ValueError, match="not UTF-8"):
        read_qrels(b)


@pytest.mark.parametrize(
    "measure,exc,match",
    [
        ("ndcg@x", ValueError, "`measure`='ndcg@x' is not a measure"),
        ("", TypeError, "`measure` must be a measure name"),
        (3, TypeError, "`measure` must be a measure name"),
        ("bogus@3", ValueError, "is not a measure ir_measures knows"),
    ],
)
def test_bad_measure(measure, exc, match):
    with pytest.raises(exc, match=match):
        measure_name(measure)


def test_per_query_bad_inputs():
    with pytest.raises(ValueError, match="`missing` must be one of"):
        per_query(RUN, QRELS, "map", missing="skip")
    with pytest.raises(ValueError, match="`measures` is empty"):
        per_query(RUN, QRELS, [])
    with pytest.raises(TypeError, match="`run` must be a TREC run file or a non-empty dict"):
        per_query({}, QRELS, "map")
    with pytest.raises(TypeError, match=r"`run`\['q1'\]\['a'\] must be a number"):
        per_query({"q1": {"a": "x"}}, QRELS, "map")
    with pytest.raises(ValueError, match=r"`run`\['q1'\]\['a'\] must be finite"):
        per_query({"q1": {"a": float("inf")}}, QRELS, "map")
    with pytest.raises(TypeError, match=r"`qrels`\['q1'\]\['b'\] must be an integer"):
        per_query(RUN, {"q1": {"b": 0.5}}, "map")
    with pytest.raises(TypeError, match=r"`qrels`\['q1'\] must be a dict"):
        per_query(RUN, {"q1": [1]}, "map")
    with pytest.raises(ValueError, match="judge no document relevant"):
        per_query(RUN, {"q1": {"b": 0}}, "map")
    with pytest.raises(ValueError, match="answers none of the judged queries"):
        per_query(RUN, {"q7": {"b": 1}}, "map", missing="drop")


def test_ir_ci_bad_inputs():
    with pytest.raises(ValueError, match="`confidence_level`"):
        ir_ci(RUN, QRELS, measure="map", confidence_level=2)
    with pytest.raises(TypeError, match="`measure`"):
        ir_ci(RUN, QRELS, measure=None)


def test_ir_compare_bad_inputs():
    runs = {"a": RUN, "b": {"q1": {"b": 2.0}, "q2": {"c": 1.0}}}
    with pytest.raises(ValueError, match="`variant` must be one of"):
        ir_compare(runs, QRELS, variant="wilcoxon")
    with pytest.raises(ValueError, match="`runs` must be a dict of at least two"):
        ir_compare({"a": RUN}, QRELS)
    with pytest.raises(ValueError, match="`reference`='c' is not among"):
        ir_compare(runs, QRELS, reference="c")
    with pytest.raises(ValueError, match="`correction` must be one of"):
        ir_compare(runs, QRELS, variant="t", correction="sidak")
    with pytest.raises(TypeError, match=r"`method`.* apply to variant='bootstrap' only"):
        ir_compare(runs, QRELS, variant="t", method="bca")
    with pytest.raises(ValueError, match="fewer than two evaluated queries"):
        ir_compare(
            {"a": {"q1": {"b": 1.0}}, "b": {"q1": {"b": 1.0}}},
            QRELS,
            missing="drop",
        )
    same = {"a": RUN, "b": RUN}
    with pytest.raises(ValueError, match="all equal: the t test is undefined"):
        ir_compare(same, QRELS, variant="t", measure="mrr")
    with pytest.raises(TypeError, match=r"`runs\['b'\]` must be a TREC run file"):
        ir_compare({"a": RUN, "b": 5}, QRELS)
