"""Logs of runs that did not finish, of other data, cut short or reduced otherwise (issue 22).

Every log here was written by the tool itself, by the scripts beside the data:

* ``data/inspect/*.eval``: inspect-ai 0.3.285 (``scripts/make_inspect_logs.py``; mockllm,
  10 samples x 2 epochs, ``max_samples=1`` so that a run stops at a reproducible sample):
  ``complete_a``/``complete_b`` finished; ``killed`` was SIGKILLed after 12 samples (no
  header.json, status ``started``); ``error`` stopped on a solver's RuntimeError (status
  ``error``, its 13th sample failed without a score); ``cancelled`` got SIGINT (status
  ``cancelled``); ``otherdata`` is the task ``toy`` on the dataset ``toyset-v2`` with the
  same sample ids and other inputs from ``q1`` on; ``pass_at_2``/``custom_reducer`` ran 4
  epochs with ``Epochs(4, "pass_at_2")`` and a custom reducer ``best_of``.
  ``killed.json``/``cancelled.json`` are those logs converted to JSON (bulky fields removed).
* ``data/lm_eval/``: lm-evaluation-harness 0.4.13 (``scripts/make_lm_eval_logs.py``; its
  ``dummy`` model, a local 40-document multiple-choice task): ``dir_layout`` is
  ``--output_path DIR`` (``DIR/<model>/results_<date>.json`` + ``samples_toy_mc_<date>
  .jsonl``), ``json_layout`` is ``--output_path DIR/X.json`` (``DIR/X_<date>.json`` beside
  the samples), ``otherdata`` a run on another data file with the same ``doc_id``s (the
  questions differ from document 2 on, so their ``doc_hash`` does).  The results files
  hold ``n-samples: {"toy_mc": {"original": 40, "effective": 40}}``, ``model_name`` and
  the harness's own ``acc,none`` / ``acc_stderr,none``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mlci
from _helpers import run_cli
from mlci.llm import readers

DATA = Path(__file__).parent / "data"
INSPECT = DATA / "inspect"
LM_EVAL = DATA / "lm_eval"


#: the .eval archives are zstd-compressed: reading them needs inspect-ai (the `inspect` extra)
needs_inspect = pytest.mark.skipif(
    importlib.util.find_spec("inspect_ai") is None, reason="inspect-ai not installed"
)


def inspect_log(name: str):
    """inspect-ai's own reading of a log (the reference)."""
    log_mod = pytest.importorskip("inspect_ai.log")
    return log_mod.read_eval_log(str(INSPECT / name))


# --------------------------------------------------------------------------- run status
@pytest.mark.parametrize(
    ("name", "status", "held", "why"),
    [
        ("killed.eval", "started", "12 of 20 samples", "did not finish"),
        ("error.eval", "error", "13 of 20 samples", r"stopped on an error \(RuntimeError"),
        ("cancelled.eval", "cancelled", "13 of 20 samples", "was cancelled"),
    ],
)
def test_unfinished_inspect_run_is_refused(name, status, held, why):
    ref = inspect_log(name)
    assert ref.status == status  # what inspect-ai itself reads
    with pytest.raises(
        ValueError, match=rf"{name}: the log's status is '{status}': .*{why}.*holds {held} "
        r"\(10 x 2 epochs\).*`partial=True` \(--partial\)"
    ):  # fmt: skip
        mlci.read_eval_logs(INSPECT / name)


@needs_inspect
def test_error_run_counts_its_failed_sample():
    with pytest.raises(ValueError, match=r"13 of 20 samples .*, 1 of them failed.*'partial: 12 of"):
        mlci.read_eval_logs(INSPECT / "error.eval")
    log = mlci.read_eval_logs(INSPECT / "error.eval", partial=True)
    assert log.n_rows == 12  # the failed sample has no score: left out, and said so
    assert log.partial == {"mockllm/c": "partial: 12 of 20 samples (error.eval: status 'error')"}
    assert log.details["sources"][0]["n_failed"] == 1


def test_partial_run_is_said_in_every_output(capsys):
    path = INSPECT / "killed.eval"
    ref = inspect_log("killed.eval")
    log = mlci.read_eval_logs(path, partial=True)
    text = "partial: 12 of 20 samples (killed.eval: status 'started')"
    assert log.partial == {"mockllm/c": text}
    assert text in repr(log)
    src = log.details["sources"][0]
    assert (src["status"], src["n_samples"], src["n_expected"]) == ("started", 12, 20)
    # the scores are inspect's own: C = 1, I = 0
    want = np.array([1.0 if s.scores["match"].value == "C" else 0.0 for s in ref.samples])
    assert log.n_rows == len(ref.samples) == 12
    np.testing.assert_array_equal(np.sort(log.score), np.sort(want))
    res = mlci.llm_ci(log, method="cr1")
    assert res.details["partial"] == {"mockllm/c": text}
    assert res.rows()[0]["partial"] == text
    assert "partial: 1 model" in repr(res) and text in str(res)
    assert json.loads(res.to_json())["details"]["partial"] == {"mockllm/c": text}
    # the command line: the header, the table's column, the JSON
    code, out, err = run_cli(capsys, ["llm", "ci", str(path), "--method", "cr1"])
    assert code == 2 and "status is 'started'" in err
    assert "read what it holds with --partial: every result" in err
    code, out, _ = run_cli(capsys, ["llm", "ci", str(path), "--partial", "--method", "cr1"])
    assert code == 0
    assert f"# mockllm/c: {text}" in out
    head, row = out.splitlines()[-2:]
    assert head.split()[-1] == "partial" and row.endswith(text)
    code, out, _ = run_cli(capsys, ["llm", "ci", str(path), "--partial", "--json"])
    assert json.loads(out)["details"]["partial"] == {"mockllm/c": text}


@needs_inspect
def test_partial_run_in_a_comparison(capsys):
    paths = [INSPECT / "complete_a.eval", INSPECT / "killed.eval"]
    with pytest.raises(ValueError, match=r"killed.eval: the log's status is 'started'"):
        mlci.read_eval_logs(paths)
    log = mlci.read_eval_logs(paths, partial=True)
    assert list(log.partial) == ["mockllm/c"]  # the complete run is not partial
    # two epochs of some items are missing: every item has one at least, so the items
    # match; the item means average what there is
    res = mlci.llm_compare(log, method="cr1")
    part = {e["model"]: e["partial"] for e in res.rows("leaderboard")}
    assert part == {"mockllm/c": log.partial["mockllm/c"], "mockllm/a": None}
    assert res.rows()[0]["partial"] == "mockllm/c: " + log.partial["mockllm/c"]
    assert "partial: 1 model" in repr(res)
    argv = ["llm", "compare", *map(str, paths), "--partial", "--method", "cr1"]
    code, out, _ = run_cli(capsys, argv)
    assert code == 0 and "# mockllm/c: partial: 12 of 20 samples" in out
    heads = [line for line in out.splitlines() if line.startswith(("model ", "a "))]
    assert len(heads) == 2 and all(h.endswith("partial") for h in heads)
    plan = mlci.llm_sample_size(log, "mockllm/a", "mockllm/c", difference=0.2, repeats=1)
    assert plan.details["partial"] == {"mockllm/c": log.partial["mockllm/c"]}


@needs_inspect
def test_unfinished_run_documented_format(monkeypatch):
    # the same checks without inspect-ai's reader: the .eval archive (its journal: a killed
    # run writes no header.json) and the JSON conversions
    names = ("killed.eval", "cancelled.eval")
    native = {p: mlci.read_eval_logs(INSPECT / p, partial=True) for p in names}
    monkeypatch.setattr(readers, "_inspect_native", lambda path: None)
    for name, status in (("killed", "started"), ("cancelled", "cancelled")):
        for suffix in (".eval", ".json"):
            path = INSPECT / f"{name}{suffix}"
            with pytest.raises(ValueError, match=rf"status is '{status}'.*of 20 samples"):
                mlci.read_eval_logs(path)
            got = mlci.read_eval_logs(path, partial=True)
            want = native[f"{name}.eval"]
            assert sorted(zip(got.item, got.repeat, got.score, strict=True)) == sorted(
                zip(want.item, want.repeat, want.score, strict=True)
            )
            assert got.partial[got.models[0]].startswith(
                want.partial[want.models[0]].split(" (")[0]
            )


def test_finished_run_with_missing_samples(tmp_path, monkeypatch):
    # status 'success' but fewer samples than dataset x epochs (e.g. fail_on_error=0.5)
    monkeypatch.setattr(readers, "_inspect_native", lambda path: None)
    data = json.loads((INSPECT / "killed.json").read_text())
    data["status"] = "success"
    path = tmp_path / "short.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="'success': the run finished, but samples are missing"):
        mlci.read_eval_logs(path)
    assert "12 of 20" in mlci.read_eval_logs(path, partial=True).partial["mockllm/c"]
    data["samples"] = []  # a run logged with --no-log-samples
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"holds no samples \(was it run with --no-log-samples"):
        mlci.read_eval_logs(path)


# --------------------------------------------------------------------------- same data
def test_inspect_logs_of_other_data_are_not_paired():
    a, d = inspect_log("complete_a.eval"), inspect_log("otherdata.eval")
    assert a.eval.task == d.eval.task == "toy"
    assert a.eval.dataset.sample_ids == d.eval.dataset.sample_ids  # same ids...
    inputs = [{s.id: s.input for s in log.samples} for log in (a, d)]
    assert sum(inputs[0][i] != inputs[1][i] for i in inputs[0]) == 9  # ...other questions
    with pytest.raises(
        ValueError, match=r"complete_a.eval and .*otherdata.eval hold different data under "
        r"the same task 'toy' and item ids \(datasets 'toyset' and 'toyset-v2'\): 9 of 10 "
        r"shared items differ \(input and target; first: item 'q1'\)"
    ):  # fmt: skip
        mlci.read_eval_logs([INSPECT / "complete_a.eval", INSPECT / "otherdata.eval"])
    # runs of the same data pair as before
    log = mlci.read_eval_logs([INSPECT / "complete_a.eval", INSPECT / "complete_b.eval"])
    assert log.models == ["mockllm/a", "mockllm/b"]


def test_harness_runs_of_other_documents_are_not_paired(tmp_path):
    a = sorted((LM_EVAL / "dir_layout" / "org__model-a").glob("samples_*.jsonl"))[0]
    c = sorted((LM_EVAL / "otherdata" / "org__model-c").glob("samples_*.jsonl"))[0]
    ha = [json.loads(x)["doc_hash"] for x in a.read_text().splitlines()]
    hc = [json.loads(x)["doc_hash"] for x in c.read_text().splitlines()]
    assert sum(x != y for x, y in zip(ha, hc, strict=True)) == 38  # the data files differ
    with pytest.raises(
        ValueError, match=rf"{a.name} and .*{c.name} hold different data under the same task "
        r"'toy_mc' and item ids: 38 of 40 shared items differ \(doc_hash/target_hash; first: "
        r"item '2'\)"
    ):  # fmt: skip
        mlci.read_eval_logs([LM_EVAL / "dir_layout", LM_EVAL / "otherdata"])


# --------------------------------------------------------------------------- expected count
def cut_run(tmp_path: Path, keep: int) -> Path:
    """model-b's run with its samples file cut at a line end after ``keep`` documents."""
    src = LM_EVAL / "dir_layout" / "org__model-b"
    dst = tmp_path / "org__model-b"
    shutil.copytree(src, dst)
    path = sorted(dst.glob("samples_*.jsonl"))[0]
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:keep]))
    return path


def test_harness_samples_file_cut_at_a_line_end(tmp_path, capsys):
    path = cut_run(tmp_path, 24)
    with pytest.raises(
        ValueError, match=rf"{path.name} holds 24 of the 40 documents of task 'toy_mc' \(the "
        r"run's results_.*\.json: n-samples 40\).*`partial=True` \(--partial\)"
    ):  # fmt: skip
        mlci.read_eval_logs(path)
    log = mlci.read_eval_logs(path, partial=True)
    assert log.partial == {"org/model-b": f"partial: 24 of 40 samples ({path.name}: 24 of 40)"}
    assert log.n_rows == 24
    code, out, _ = run_cli(capsys, ["llm", "ci", str(tmp_path), "--partial", "--method", "cr1"])
    assert code == 0 and "# org/model-b: partial: 24 of 40 samples" in out


def test_harness_results_count_more_than_read(tmp_path):
    path = cut_run(tmp_path, 40)
    res = next(path.parent.glob("results_*.json"))
    info = json.loads(res.read_text())
    info["n-samples"]["toy_mc"]["effective"] = 30  # as if run with --limit 30
    res.write_text(json.dumps(info))
    with pytest.raises(ValueError, match=r"holds 40 of the 30 documents.*more than the run"):
        mlci.read_eval_logs(path)


# --------------------------------------------------------------------------- layouts
def test_harness_output_path_json_layout():
    folder = LM_EVAL / "json_layout"
    log = mlci.read_eval_logs(folder)
    # the model from X_<date>.json of the same run, not the folder's name
    assert sorted(log.models) == ["org/model-a", "org/model-b"]
    same = mlci.read_eval_logs(LM_EVAL / "dir_layout")
    a, b = log.to_frame(), same.to_frame()
    for m in ("org/model-a", "org/model-b"):
        assert a[a.model == m].score.tolist() == b[b.model == m].score.tolist()
    results = sorted(folder.glob("model-a_*.json"))[0]
    with pytest.raises(ValueError, match=rf"{results.name} is the results file of an "
                                         "lm-evaluation-harness run"):  # fmt: skip
        mlci.read_eval_logs(results)


@pytest.mark.parametrize("layout", ["dir_layout", "json_layout"])
def test_harness_numbers_unchanged(layout):
    # mean and standard error = the harness's own acc,none and acc_stderr,none (the sample
    # standard deviation over sqrt(n), which CR1 with every document its own cluster is)
    log = mlci.read_eval_logs(LM_EVAL / layout)
    res = mlci.llm_ci(log, method="cr1")
    for path in (LM_EVAL / layout).rglob("*.json"):
        info = json.loads(path.read_text())
        r = res.models[info["model_name"]]
        assert r.estimate == pytest.approx(info["results"]["toy_mc"]["acc,none"], abs=1e-12)
        se = info["results"]["toy_mc"]["acc_stderr,none"]
        assert r.standard_error == pytest.approx(se, abs=1e-12)


def test_inspect_numbers_unchanged():
    # accuracy and stderr() of inspect's headline: the mean over epochs of every sample,
    # then the mean and the standard error over samples
    for name in ("complete_a.eval", "complete_b.eval"):
        ref = inspect_log(name)
        metrics = ref.results.scores[0].metrics
        r = mlci.llm_ci(mlci.read_eval_logs(INSPECT / name), method="cr1").models[ref.eval.model]
        assert r.estimate == pytest.approx(metrics["accuracy"].value, abs=1e-12)
        assert r.standard_error == pytest.approx(metrics["stderr"].value, abs=1e-12)


# --------------------------------------------------------------------------- reducers
def test_pass_at_2_reducer_is_the_estimand(capsys):
    ref = inspect_log("pass_at_2.eval")
    assert ref.eval.config.epochs_reducer == ["pass_at_2"]
    headline = ref.results.scores[0].metrics["accuracy"].value
    log = mlci.read_eval_logs(INSPECT / "pass_at_2.eval")
    auto = mlci.llm_ci(log, method="cr1")
    r = auto.models["mockllm/a"]
    assert auto.estimand == "pass@2"
    assert r.estimate == pytest.approx(headline, abs=1e-12)  # inspect's headline (0.5)
    assert "epoch reducer 'pass_at_2'" in auto.details["estimand_note"]
    # the mean over epochs, asked for, is computed and says that it is not the headline
    mean = mlci.llm_ci(log, estimand="mean", method="cr1")
    scores = np.array([1.0 if s.scores["match"].value == "C" else 0.0 for s in ref.samples])
    assert mean.models["mockllm/a"].estimate == pytest.approx(scores.mean(), abs=1e-12)
    assert mean.models["mockllm/a"].estimate != pytest.approx(headline)
    note = mean.details["estimand_note"]
    assert "shown: mean match, as asked;" in note and "'pass_at_2'" in note
    assert "headline 0.5" in note and "note: shown: mean match" in str(mean)
    code, out, _ = run_cli(capsys, ["llm", "ci", str(INSPECT / "pass_at_2.eval"),
                                    "--estimand", "mean", "--method", "cr1"])  # fmt: skip
    assert code == 0 and "# note: shown: mean match, as asked" in out
    code, out, _ = run_cli(capsys, ["llm", "ci", str(INSPECT / "pass_at_2.eval"), "--method",
                                    "cr1"])  # fmt: skip
    assert code == 0 and "pass@2" in out.splitlines()[0]


def test_reducer_mlci_does_not_compute(capsys):
    ref = inspect_log("custom_reducer.eval")
    assert ref.eval.config.epochs_reducer == ["best_of"]
    log = mlci.read_eval_logs(INSPECT / "custom_reducer.eval")
    with pytest.raises(ValueError, match=r"reduces the epochs with 'best_of' \(custom_reducer"
                                         r".eval; inspect's headline 0.8\), which mlci does "
                                         "not compute; pass `estimand`='mean'"):  # fmt: skip
        mlci.llm_ci(log)
    mean = mlci.llm_ci(log, estimand="mean", method="cr1")
    assert "'best_of'" in mean.details["estimand_note"]
    code, _, err = run_cli(capsys, ["llm", "ci", str(INSPECT / "custom_reducer.eval")])
    assert code == 2 and "--estimand 'auto'" in err and "'best_of'" in err
    assert "pass --estimand 'mean' (the mean over epochs) or --estimand 'pass@k' with --k" in err


@needs_inspect
def test_logs_with_different_reducers():
    log = mlci.read_eval_logs([INSPECT / "complete_b.eval", INSPECT / "pass_at_2.eval"],
                              partial=False)  # fmt: skip
    with pytest.raises(ValueError, match="the logs reduce the epochs differently"):
        mlci.llm_compare(log, items="shared")


# --------------------------------------------------------------------------- no inspect-ai
BLOCK_INSPECT = """
import sys, importlib.abc

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "inspect_ai" or name.startswith("inspect_ai."):
            raise ImportError(f"No module named {name!r} (blocked by the test)")
        return None

sys.meta_path.insert(0, Block())
import zipfile, mlci
path = sys.argv[1]
try:
    z = zipfile.ZipFile(path)
    z.read(z.namelist()[0])
    native_zstd = True
except NotImplementedError:
    native_zstd = False
try:
    log = mlci.read_eval_logs(path)
    print("READ", native_zstd, log.n_rows)
except ValueError as exc:
    print("ERROR", native_zstd, exc)
"""


def test_zstd_eval_without_inspect_ai_is_a_clear_error():
    # a fresh interpreter where `import inspect_ai` fails: zipfile then never learns zstd
    # (importing inspect_ai registers it), as on a machine without inspect-ai
    src = str(Path(mlci.__file__).parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    for name in ("complete_a.eval", "killed.eval"):
        path = INSPECT / name
        out = subprocess.run([sys.executable, "-c", textwrap.dedent(BLOCK_INSPECT), str(path)],
                             capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
        assert out.returncode == 0, out.stderr
        kind, native, *rest = out.stdout.split(" ", 2)
        if native == "True":  # Python 3.14+ zipfile reads zstd itself
            assert kind == "READ" or "status is" in rest[0]
            continue
        assert kind == "ERROR", out.stdout
        msg = rest[0]
        assert f"{path}: the .eval archive is compressed with zstd" in msg
        assert 'pip install "mlci[inspect]"' in msg
        assert "inspect log convert --to json" in msg
        assert "Traceback" not in out.stderr


# --------------------------------------------------------------------------- vocabulary
def test_deprecated_clusters_keyword():
    ex = mlci.data.llm_example_path()
    want = mlci.read_eval_logs(ex, conditions=["group"])
    with pytest.warns(FutureWarning, match="`clusters` is deprecated.*`conditions`") as w:
        got = mlci.read_eval_logs(ex, clusters=["group"])
    assert w[0].filename == __file__
    assert got.conditions["group"].tolist() == want.conditions["group"].tolist()
    with pytest.warns(FutureWarning, match="`EvalLog.clusters` is deprecated"):
        assert got.clusters is got.conditions
    with pytest.warns(FutureWarning, match="`clusters` is deprecated"):
        log = mlci.eval_log(model=["A", "A"], item=[1, 2], score=[1, 0],
                            clusters={"p": ["x", "y"]})  # fmt: skip
    assert list(log.conditions) == ["p"]
    with pytest.raises(TypeError, match="Give `conditions` only"):
        mlci.read_eval_logs(ex, clusters=["group"], conditions=["group"])
    with pytest.warns(FutureWarning, match="`cluster` is deprecated"):
        mlci.llm_sample_size(want, "model-a", "model-b", difference=0.03, cluster="group")


def test_cli_spells_options(capsys, tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("model,item,score\nA,1,1\nA,1,0\n")
    code, _, err = run_cli(capsys, ["llm", "ci", str(path)])
    assert code == 2 and "give every answer its number in the repeat column" in err
    assert "a the repeat column column" not in err
    (tmp_path / "x.txt").write_text("hello")
    code, _, err = run_cli(capsys, ["llm", "ci", str(tmp_path / "x.txt")])
    assert code == 2 and "pass --format (one of" in err and "format=" not in err
    # the former --cluster still works (hidden), as --condition
    ex = ["llm", "ci", "--example", "--method", "cr1"]
    assert (
        run_cli(capsys, [*ex, "--cluster", "group"])[1]
        == run_cli(capsys, [*ex, "--condition", "group"])[1]
    )


def test_inspect_item_identity_of_message_inputs():
    # an input given as chat messages: the roles and texts (inspect gives every message a
    # fresh id, which must not make the same question look different), images by reference
    model = pytest.importorskip("inspect_ai.model")
    user = model.ChatMessageUser(content=[model.ContentText(text="What is 2+2?")])
    again = model.ChatMessageUser(content=[model.ContentText(text="What is 2+2?")])
    assert user.id != again.id
    native = {"input": [user.model_dump()], "target": "4"}
    documented = {"input": [{"role": "user", "content": [{"type": "text", "text": "What is 2+2?"}],
                             "id": "x"}], "target": "4"}  # fmt: skip
    key = readers._inspect_key
    assert key(native) == key({"input": [again.model_dump()], "target": "4"}) == key(documented)
    assert key(native) != key({**native, "target": "5"})
    img = [{"role": "user", "content": [{"type": "image", "image": "a.png"}]}]
    other = [{"role": "user", "content": [{"type": "image", "image": "b.png"}]}]
    assert key({"input": img}) != key({"input": other})
