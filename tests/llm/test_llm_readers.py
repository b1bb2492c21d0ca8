"""Readers of evaluation logs: lm-evaluation-harness samples, inspect-ai logs, long tables.

The lm-eval files are written here in the layout and schema of lm-evaluation-harness 0.4.x
(``lm_eval/evaluator.py``: one JSON object per document and filter, ``samples_<task>_<date>
.jsonl`` in a directory named after the model, ``results_<date>.json`` beside it).  The
inspect-ai logs are produced offline by inspect-ai itself (its ``mockllm`` provider and an
in-memory dataset) when it is installed; a log it wrote is also committed
(``data/inspect_mockllm.json``: a JSON log of inspect-ai 0.3.285 with the bulky
per-sample fields -- events, messages, model output -- removed) so that the reader of
the documented format is tested without it.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mlci
from mlci.data import llm_example_path
from mlci.llm import readers

DATA = Path(__file__).parent / "data"
DATE = "2024-06-01T12-00-00.123456"


def lm_eval_record(doc_id: int, score: float, *, subject: str = "s0", metric: str = "acc",
                   flt: str = "none", with_list: bool = True) -> dict:  # fmt: skip
    rec = {
        "doc_id": doc_id,
        "doc": {"question": f"q{doc_id}", "subject": subject},
        "target": 0,
        "arguments": [[f"q{doc_id}", " A"], [f"q{doc_id}", " B"]],
        "resps": [[[-1.0, False]], [[-2.0, False]]],
        "filtered_resps": [[-1.0, False], [-2.0, False]],
        "filter": flt,
        "doc_hash": "h",
        "prompt_hash": "p",
        "target_hash": "t",
        metric: score,
    }
    if with_list:
        rec["metrics"] = [metric]
    return rec


def write_run(root: Path, model_dir: str, task: str, scores: list[float], *,
              model_name: str | None = None, **kw) -> Path:  # fmt: skip
    d = root / model_dir
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"samples_{task}_{DATE}.jsonl"
    subjects = kw.pop("subjects", None) or [f"s{i // 3}" for i in range(len(scores))]
    with open(path, "w") as fh:
        for i, s in enumerate(scores):
            fh.write(json.dumps(lm_eval_record(i, s, subject=subjects[i], **kw)) + "\n")
    if model_name is not None:
        (d / f"results_{DATE}.json").write_text(json.dumps({"model_name": model_name}))
    return path


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    write_run(tmp_path, "org__model-a", "arc_easy", [1, 0, 1, 1, 0, 1], model_name="org/model-a")
    write_run(tmp_path, "org__model-b", "arc_easy", [0, 0, 1, 1, 0, 0])
    write_run(tmp_path, "org__model-a", "mmlu_anatomy", [1, 1, 0], model_name="org/model-a")
    write_run(tmp_path, "org__model-b", "mmlu_anatomy", [1, 0, 0])
    return tmp_path


def test_lm_eval_directory(runs):
    log = mlci.read_eval_logs(runs, conditions=["doc.subject"])
    # the model from results_<date>.json (0.4.3+), else the directory name
    assert sorted(log.models) == ["org/model-a", "org__model-b"]
    assert sorted(log.tasks) == ["arc_easy", "mmlu_anatomy"]
    assert log.metric == "acc" and log.n_rows == 18
    frame = log.to_frame()
    a = frame[(frame.model == "org/model-a") & (frame.task == "arc_easy")]
    assert a.score.tolist() == [1, 0, 1, 1, 0, 1]
    assert a["doc.subject"].tolist() == ["s0", "s0", "s0", "s1", "s1", "s1"]
    assert a.source.iloc[0].endswith(f"samples_arc_easy_{DATE}.jsonl:1")


def test_lm_eval_old_schema_without_metrics_list(tmp_path):
    # 0.4.0/0.4.1 logs have no "metrics" list: the one numeric non-schema field is the metric
    write_run(tmp_path, "m", "hellaswag", [1, 0], metric="acc_norm", with_list=False)
    log = mlci.read_eval_logs(tmp_path)
    assert log.metric == "acc_norm" and log.score.tolist() == [1, 0]


def test_lm_eval_several_metrics_need_metric(tmp_path):
    path = write_run(tmp_path, "m", "t", [1, 0])
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    for rec in lines:
        rec["acc_norm"] = 0.0
        rec["metrics"] = ["acc", "acc_norm"]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    with pytest.raises(ValueError, match=r"2 metrics \['acc', 'acc_norm'\].*`metric=`"):
        mlci.read_eval_logs(path)
    assert mlci.read_eval_logs(path, metric="acc_norm").score.tolist() == [0, 0]


def test_lm_eval_filters(tmp_path):
    path = write_run(tmp_path, "m", "gsm8k", [1, 0], metric="exact_match", flt="strict-match")
    with open(path, "a") as fh:
        for i, s in enumerate([1, 1]):
            rec = lm_eval_record(i, s, metric="exact_match", flt="flexible-extract")
            fh.write(json.dumps(rec) + "\n")
    with pytest.raises(ValueError, match=r"2 filters.*`filter=`"):
        mlci.read_eval_logs(path)
    log = mlci.read_eval_logs(path, filter="flexible-extract")
    assert log.score.tolist() == [1, 1]
    with pytest.raises(ValueError, match="no sample has filter 'nope'"):
        mlci.read_eval_logs(path, filter="nope")


def test_truncated_line_names_file_and_line(runs):
    path = next(runs.glob("org__model-b/samples_arc_easy_*.jsonl"))
    text = path.read_text()
    path.write_text(text[:-25])  # the last line cut short, as by a killed run
    with pytest.raises(ValueError, match=rf"{path.name}:6: not a complete JSON object"):
        mlci.read_eval_logs(runs)


def test_missing_score_field_names_file_and_line(tmp_path):
    path = write_run(tmp_path, "m", "t", [1, 0, 1])
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    del lines[1]["acc"]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    with pytest.raises(ValueError, match=rf"{path.name}:2: no score field 'acc'"):
        mlci.read_eval_logs(path)


def test_score_not_a_number(tmp_path):
    path = write_run(tmp_path, "m", "t", [1, 0])
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    lines[0]["acc"] = ["ref", "pred"]  # a corpus metric's per-sample tuple
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    with pytest.raises(ValueError, match=rf"{path.name}:1: the score field 'acc'.*not a number"):
        mlci.read_eval_logs(path)


def test_duplicated_item_names_both_lines(tmp_path):
    path = write_run(tmp_path, "m", "t", [1, 0, 1])
    with open(path, "a") as fh:
        fh.write(json.dumps(lm_eval_record(1, 1.0)) + "\n")
    with pytest.raises(ValueError, match=rf"item '1', repeat 0 appears at .*{path.name}:2 "
                                         rf"and again at .*{path.name}:4"):  # fmt: skip
        mlci.read_eval_logs(path)


def test_same_file_twice_is_a_duplicate(runs):
    path = next(runs.glob("org__model-b/samples_arc_easy_*.jsonl"))
    with pytest.raises(ValueError, match="duplicated row"):
        mlci.read_eval_logs([path, path])


def test_models_on_different_items(runs):
    # model-b lost its last arc_easy document
    path = next(runs.glob("org__model-b/samples_arc_easy_*.jsonl"))
    path.write_text("".join(x + "\n" for x in path.read_text().splitlines()[:-1]))
    log = mlci.read_eval_logs(runs)
    a_path = next(runs.glob("org__model-a/samples_arc_easy_*.jsonl"))
    with pytest.raises(ValueError, match=rf"'org__model-b': 1.*item 'arc_easy/5'.*"
                                         rf"{a_path.name}:6.*items='shared'"):  # fmt: skip
        mlci.llm_compare(log, method="cr1")
    for fn in (mlci.llm_compare, mlci.llm_ci):  # the default method too: checked first
        with pytest.raises(ValueError, match=rf"item 'arc_easy/5'.*{a_path.name}:6"):
            fn(log)
    res = mlci.llm_compare(log, method="cr1", items="shared")
    assert res.details["n_items_dropped"] == 1
    assert res.details["items_missing"] == {"org__model-b": 1}
    assert res.details["n_items"] == 8
    assert "1 item(s) not scored for every model were left out" in str(res)


def test_cluster_field_missing_names_line(tmp_path):
    path = write_run(tmp_path, "m", "t", [1, 0])
    with pytest.raises(ValueError, match=rf"{path.name}:1: no field 'doc.passage'"):
        mlci.read_eval_logs(path, conditions=["doc.passage"])


# --------------------------------------------------------------------------- inspect-ai
def test_inspect_documented_format_without_inspect(monkeypatch):
    # the committed log (inspect-ai 0.3.285, mockllm, 6 samples x 2 epochs); answers are
    # i % 2, targets i % 3: samples q0 and q1 are right
    monkeypatch.setattr(readers, "_inspect_native", lambda path: None)
    log = mlci.read_eval_logs(DATA / "inspect_mockllm.json", conditions=["metadata.passage"])
    assert log.models == ["mockllm/model"] and log.tasks == ["toy"] and log.metric == "match"
    frame = log.to_frame().sort_values(["item", "repeat"])
    assert frame.repeat.tolist() == [0, 1] * 6
    assert frame.score.tolist() == [1.0] * 4 + [0.0] * 8
    assert frame["metadata.passage"].tolist()[::2] == ["p0", "p0", "p1", "p1", "p2", "p2"]


def _inspect_logs(tmp_path: Path, fmt: str) -> list[Path]:
    """Two mock models on an in-memory dataset, logged by inspect-ai itself (offline)."""
    pytest.importorskip("inspect_ai", reason="inspect-ai not installed (pip install inspect-ai)")
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    data = MemoryDataset(
        [
            Sample(input=f"q{i}", target=str(i % 3), id=f"q{i}", metadata={"passage": f"p{i // 3}"})
            for i in range(9)
        ]
    )

    def answerer(mod: int):
        def answer(messages, tools, tool_choice, config):
            q = int(messages[-1].text[1:])
            out = ModelOutput.from_content(model="mockllm", content=str(q % mod))
            # usage given: the mock provider then counts no tokens (no tokenizer download)
            out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            return out

        return answer

    task = Task(dataset=data, solver=generate(), scorer=match(), epochs=2, name="toy")
    paths = []
    for name, mod in (("a", 2), ("b", 3)):
        model = get_model(f"mockllm/{name}", custom_outputs=answerer(mod))
        with warnings.catch_warnings():  # inspect-ai's dependencies' deprecation notices
            warnings.simplefilter("ignore")
            (log,) = inspect_eval(task, model=model, log_dir=str(tmp_path / name),
                                  display="none", log_format=fmt)  # fmt: skip
        assert log.status == "success", log.error.message if log.error else log.status
        paths.append(Path(log.location))
    return paths


# inspect-ai's event loop may leave an unraisable warning behind at shutdown
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("fmt", ["eval", "json"])
def test_inspect_logs_from_inspect(tmp_path, fmt, monkeypatch):
    paths = _inspect_logs(tmp_path, fmt)
    log = mlci.read_eval_logs(paths, conditions=["metadata.passage"])
    assert log.models == ["mockllm/a", "mockllm/b"]
    frame = log.to_frame()
    b = frame[frame.model == "mockllm/b"]
    assert (b.score == 1.0).all()  # model b answers i % 3: always right
    a = frame[(frame.model == "mockllm/a") & (frame.repeat == 0)].sort_values("item")
    expected = [float(i % 2 == i % 3) for i in range(9)]
    assert a.score.tolist() == expected
    # the documented-format reader gives the same table as inspect-ai's own reader (an
    # .eval archive whose members inspect-ai compressed with zstd: a clear error instead)
    monkeypatch.setattr(readers, "_inspect_native", lambda path: None)
    try:
        again = mlci.read_eval_logs(paths, conditions=["metadata.passage"])
    except ValueError as exc:
        assert fmt == "eval" and "compressed with zstd" in str(exc)
        return
    keys = ["model", "item", "repeat"]

    def table(x):
        return x.to_frame().drop(columns="source").sort_values(keys).reset_index(drop=True)

    pd.testing.assert_frame_equal(table(log), table(again))
    res = mlci.llm_compare(log, conditions="metadata.passage", method="cr1")
    assert res.difference("mockllm/b", "mockllm/a").estimate == pytest.approx(1 - np.mean(expected))


def test_inspect_scores_and_errors(tmp_path, monkeypatch):
    # minimal logs in the documented format (inspect-ai's own reader wants every field)
    monkeypatch.setattr(readers, "_inspect_native", lambda path: None)
    spec = {"model": "m", "task": "t"}

    def write(samples):
        path = tmp_path / "log.json"
        log = {"version": 2, "status": "success", "eval": spec, "samples": samples}
        path.write_text(json.dumps(log))
        return path

    ok = [
        {"id": 1, "epoch": 1, "scores": {"judge": {"value": 0.25}}},
        {"id": 2, "epoch": 1, "scores": {"judge": {"value": "P"}}},
        {"id": 3, "epoch": 1, "scores": {"judge": {"value": True}}},
        {"id": 4, "epoch": 1, "scores": {"judge": {"value": "N"}}},
    ]
    assert mlci.read_eval_logs(write(ok)).score.tolist() == [0.25, 0.5, 1.0, 0.0]
    bad = [*ok[:1], {"id": 2, "epoch": 1, "scores": {}}]  # a sample that failed
    with pytest.raises(ValueError, match=r"log.json:sample 2 \(id 2, epoch 1\): no score"):
        mlci.read_eval_logs(write(bad))
    dicts = [{"id": 1, "epoch": 1, "scores": {"s": {"value": {"acc": 1, "f1": 0.5}}}}]
    with pytest.raises(ValueError, match=r"is a dict.*metric='s/<key>'"):
        mlci.read_eval_logs(write(dicts))
    assert mlci.read_eval_logs(write(dicts), metric="s/f1").score.tolist() == [0.5]
    two = [{"id": 1, "epoch": 1, "scores": {"x": {"value": 1}, "y": {"value": 0}}}]
    with pytest.raises(ValueError, match=r"2 scorers \['x', 'y'\]"):
        mlci.read_eval_logs(write(two))
    (tmp_path / "cut.json").write_text('{"eval": {"model": "m"}, "samples": [')
    with pytest.raises(ValueError, match=r"cut.json:1: not valid JSON"):
        mlci.read_eval_logs(tmp_path / "cut.json")


# --------------------------------------------------------------------------- long format
def _long_frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "model": ["A", "A", "B", "B"] * 2,
            "task": ["t"] * 8,
            "item": [1, 2, 1, 2] * 2,
            "repeat": [0] * 4 + [1] * 4,
            "score": [1, 0, 1, 1, 0, 0, 1, 0.5],
            "passage": ["p", "q", "p", "q"] * 2,
        }
    )


@pytest.mark.parametrize("suffix", ["csv", "jsonl", "parquet"])
def test_long_formats_round_trip(tmp_path, suffix):
    frame = _long_frame()
    path = tmp_path / f"scores.{suffix}"
    if suffix == "csv":
        frame.to_csv(path, index=False)
    elif suffix == "jsonl":
        frame.to_json(path, orient="records", lines=True)
    else:
        frame.to_parquet(path)
    log = mlci.read_eval_logs(path, conditions=["passage"])
    got = log.to_frame().drop(columns="source")
    want = frame.assign(item=frame.item.astype(str), score=frame.score.astype(float))
    pd.testing.assert_frame_equal(got, want, check_dtype=False)
    # from a DataFrame, item ids keep their type (ints here); the files give text ids
    same = mlci.eval_log(frame, task="task", repeat="repeat", conditions=["passage"])
    same_frame = same.to_frame().drop(columns="source")
    assert same_frame["item"].tolist() == frame["item"].tolist()
    pd.testing.assert_frame_equal(same_frame.assign(item=same_frame.item.astype(str)), got)


def test_long_csv_problems_name_the_line(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("model,item,score\nA,1,1\nA,2,NA\nB,1,0\n")
    with pytest.raises(ValueError, match=r"s.csv: column 'score' has 1 missing value.*line 3"):
        mlci.read_eval_logs(path)
    path.write_text("model,item,score\nA,1,1\nA,2,1.5\n")
    with pytest.raises(ValueError, match=r"in \[0, 1\].*s.csv:3: 1.5"):
        mlci.read_eval_logs(path)
    path.write_text("model,item,score\nA,1,1\nA,1,0\n")
    with pytest.raises(ValueError, match=r"s.csv:2 and again at .*s.csv:3.*number in `repeat`"):
        mlci.read_eval_logs(path)
    path.write_text("model,item,acc\nA,1,1\n")
    with pytest.raises(ValueError, match=r"no column 'score'"):
        mlci.read_eval_logs(path)
    assert mlci.read_eval_logs(path, metric="acc").score.tolist() == [1.0]


def test_item_in_two_clusters(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("model,item,score,passage\nA,1,1,p\nB,1,0,q\n")
    with pytest.raises(ValueError, match=r"Condition column 'passage': item '1'.*\['p', 'q'\]"):
        mlci.read_eval_logs(path, conditions=["passage"])


def test_read_eval_logs_bad_arguments(tmp_path):
    with pytest.raises(FileNotFoundError, match="`paths`: no such file"):
        mlci.read_eval_logs(tmp_path / "nope")
    with pytest.raises(ValueError, match="`paths`: no evaluation log in the directory"):
        mlci.read_eval_logs(tmp_path)
    (tmp_path / "x.txt").write_text("hello")
    with pytest.raises(ValueError, match="`paths`: cannot tell the format"):
        mlci.read_eval_logs(tmp_path / "x.txt")
    with pytest.raises(TypeError, match="`paths`"):
        mlci.read_eval_logs([])
    ex = llm_example_path()
    with pytest.raises(ValueError, match="`format`"):
        mlci.read_eval_logs(ex, format="nope")
    with pytest.raises(TypeError, match="`conditions`"):
        mlci.read_eval_logs(ex, conditions="group")
    with pytest.raises(ValueError, match="`conditions` may not be 'task'"):
        mlci.read_eval_logs(ex, conditions=["task"])
    for name in ("metric", "model", "filter"):
        with pytest.raises(TypeError, match=f"`{name}`"):
            mlci.read_eval_logs(ex, **{name: 3})


def test_files_with_different_metrics(tmp_path):
    write_run(tmp_path, "a", "t1", [1, 0], metric="acc")
    write_run(tmp_path, "a", "t2", [1, 0], metric="exact_match")
    with pytest.raises(ValueError, match="different metrics"):
        mlci.read_eval_logs(tmp_path)


def test_eval_log_from_arrays_and_bad_inputs():
    log = mlci.eval_log(model=["A", "A"], item=[1, 2], score=[True, False])
    assert log.score.tolist() == [1.0, 0.0] and log.where(1) == "row 1"
    with pytest.raises(ValueError, match=r"`score`.*missing value"):
        mlci.eval_log(model=["A", "A"], item=[1, 2], score=[1, None])
    res = mlci.eval_log(model=["A", "A", "A"], item=[1, 2, 3], score=[1, None, 0], dropna=True)
    assert res.n_rows == 2 and res.where(1) == "row 2"  # rows keep their input position
    with pytest.raises(ValueError, match="`item` has 1 samples but `model` has 2"):
        mlci.eval_log(model=["A", "A"], item=[1], score=[1, 0])
    with pytest.raises(TypeError, match="`score` must hold numbers"):
        mlci.eval_log(model=["A"], item=[1], score=["high"])
    with pytest.raises(TypeError, match="`repeat` must hold integers"):
        mlci.eval_log(model=["A"], item=[1], score=[1], repeat=["x"])
    with pytest.raises(ValueError, match="`conditions` may not be named 'model'"):
        mlci.eval_log(model=["A"], item=[1], score=[1], conditions={"model": ["x"]})
    with pytest.raises(TypeError, match="`conditions`"):
        mlci.eval_log(model=["A"], item=[1], score=[1], conditions="x")
    with pytest.raises(ValueError, match="`conditions` as a list"):
        mlci.eval_log(model=["A"], item=[1], score=[1], conditions=["x"])
    with pytest.raises(ValueError, match=r"`model`.*is not a column"):
        mlci.eval_log(pd.DataFrame({"item": [1], "score": [1]}))


def test_select():
    log = mlci.eval_log(model=["A", "B", "C"], item=[1, 1, 1], score=[1, 0, 1])
    assert log.select(models=["C", "A"]).models == ["A", "C"]
    with pytest.raises(ValueError, match=r"`models` names \['Z'\]"):
        log.select(models=["Z"])
    with pytest.raises(TypeError, match="`tasks`"):
        log.select(tasks="task")
