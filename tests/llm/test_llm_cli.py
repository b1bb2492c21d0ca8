"""The ``mlci llm`` subcommands (the option matrix is in tests/test_public_api_cli.py)."""

from __future__ import annotations

import json

import pytest

import mlci
import mlci.cli
from _helpers import run_cli as run
from mlci.cli.llm import option_message
from mlci.data import llm_example_path


def test_ci_table(capsys):
    code, out, err = run(capsys, ["llm", "ci", "--example", "--cluster", "group", "--method",
                                  "cr1"])  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("# 3 models, 211 items in 38 clusters, 2 task(s)")
    assert "CR1 standard errors" in lines[0]
    assert lines[2].split()[:2] == ["model-a", "0.7299"]


def test_compare_matches_the_api(capsys):
    argv = ["llm", "compare", "--example", "--cluster", "group", "--seed", "3", "-B", "300",
            "--json"]  # fmt: skip
    code, out, err = run(capsys, argv)
    assert code == 0, err
    got = json.loads(out)
    log = mlci.read_eval_logs(llm_example_path(), conditions=["group"])
    res = mlci.llm_compare(log, conditions="group", rng=3, n_resamples=300)
    assert got["seed"] == 3 and got["correction"] == "holm"
    assert [d["estimate"] for d in got["differences"]] == pytest.approx(
        [d.estimate for d in res.differences]
    )
    assert [d["low"] for d in got["differences"]] == pytest.approx(
        [d.confidence_interval.low for d in res.differences]
    )
    assert [e["tier"] for e in got["leaderboard"]] == [1, 1, 2]


def test_cluster_by_subtask_and_shared_items(capsys, tmp_path):
    path = tmp_path / "runs.csv"
    rows = ["model,task,item,score"]
    for m in ("a", "b"):
        for t in range(4):
            for i in range(6):
                if m == "b" and t == 0 and i == 0:
                    continue  # model b lacks one item
                rows.append(f"{m},sub{t},{i},{int((i + t + (m == 'a')) % 3 > 0)}")
    path.write_text("\n".join(rows) + "\n")
    code, out, err = run(capsys, ["llm", "compare", str(path), "--cluster", "subtask",
                                  "--method", "cr1"])  # fmt: skip
    assert code == 2 and "--items shared" in err and err.count("\n") == 1
    code, out, err = run(capsys, ["llm", "compare", str(path), "--cluster", "subtask",
                                  "--method", "cr1", "--items", "shared"])  # fmt: skip
    assert code == 0, err
    assert "23 items in 4 clusters" in out
    assert '1 item(s) not scored for every model left out (--items shared); missing per ' \
           'model: {"b": 1}' in out  # fmt: skip


def test_plan(capsys):
    code, out, err = run(capsys, ["llm", "plan", "--example", "--models", "model-a,model-b",
                                  "--difference", "0.03", "--plan-repeats", "10"])  # fmt: skip
    assert code == 0, err
    assert out.startswith("315 items, 10 answer(s) each, to detect a difference of 0.03")
    code, out, err = run(capsys, ["llm", "plan", "--example", "--models", "model-a,model-b",
                                  "--difference", "0.03", "--json"])  # fmt: skip
    assert json.loads(out)["n_samples"] == 1048


def test_option_message():
    assert option_message("`items`='x' and `n_resamples` and `rng`") == (
        "--items 'x' and --n-resamples and --seed"
    )
    assert option_message("`repeats` must be", {"repeats": "--plan-repeats"}) == (
        "--plan-repeats must be"
    )
