"""issue 25: `mlci compare`, `scores` and `report` read --condition (and --strata) as
integer codes, as `mlci ci` does: the same numbers, to the last digit, as reading the
text of every row, from CSV and from Parquet."""

from __future__ import annotations

import importlib
import json
import re

import numpy as np
import pytest

import mlci.cli.common as common
from mlci.cli import main
from mlci.cli.common import grouping_codes

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("codes")
    rng = np.random.default_rng(5)
    n = 1500
    y = rng.integers(0, 2, n)
    a = np.round(rng.normal(size=n) + y, 3)
    b = np.round(rng.normal(size=n) + 0.7 * y, 3)
    df = pd.DataFrame(
        {
            # text conditions whose sorted order differs from their order of appearance
            "speaker": np.char.add("spk", rng.integers(0, 45, n).astype(str)),
            "site": np.where(rng.random(n) < 0.5, "north", "south"),
            "group": np.where(rng.random(n) < 0.3, "young", "old"),
            "label": y,
            "pred_a": (a > 0.5).astype(int),
            "pred_b": (b > 0.5).astype(int),
            "score_a": a,
        }
    )
    df.to_csv(d / "d.csv", index=False)
    df.to_parquet(d / "d.parquet", index=False)
    return d


CASES = {
    "compare": [
        *("compare", "--label", "label", "--systems", "pred_a,pred_b", "--metric", "accuracy"),
        *("--condition", "speaker", "--strata", "site", "--format", "json"),
    ],
    "scores": [
        *("scores", "--label", "label", "--score", "score_a", "--group", "group"),
        *("--condition", "speaker", "--strata", "site", "--format", "json"),
    ],
}


def _spy(monkeypatch):
    """Record the codes= every read_table of the command line is given."""
    seen = []
    real = common.read_table

    def read_table(*args, **kwargs):
        seen.append(list(kwargs.get("codes", ())))
        return real(*args, **kwargs)

    monkeypatch.setattr(common, "read_table", read_table)
    return seen


@pytest.mark.parametrize("command", list(CASES))
@pytest.mark.parametrize("name", ["d.csv", "d.parquet"])
def test_codes_and_text_give_the_same_numbers(files, capsys, monkeypatch, command, name):
    argv = [CASES[command][0], str(files / name), *CASES[command][1:]]
    argv += ["-B", "200", "--seed", "3"]
    seen = _spy(monkeypatch)
    assert main(argv) == 0
    coded = json.loads(capsys.readouterr().out)
    assert seen == [["speaker", "site"]]  # the groups (--group) are read as they are
    # the text of every row instead (what the commands read before)
    module = importlib.import_module(f"mlci.cli.{command}")
    monkeypatch.setattr(module, "grouping_codes", lambda groups, data: [])
    assert main(argv) == 0
    text = json.loads(capsys.readouterr().out)
    assert seen[-1] == []
    assert coded == text


@pytest.mark.parametrize("name", ["d.csv", "d.parquet"])
def test_report_codes_and_text_give_the_same_report(files, tmp_path, monkeypatch, name):
    pytest.importorskip("jinja2")
    pytest.importorskip("matplotlib")
    argv = [*("report", str(files / name), "--label", "label", "--pred", "pred_a,pred_b")]
    argv += [*("--condition", "speaker", "--group", "group", "-B", "200", "--seed", "3")]
    argv += ["--format", "md", "-q"]
    seen = _spy(monkeypatch)
    assert main([*argv, "-o", str(tmp_path / "coded.md")]) == 0
    assert seen == [["speaker"]]
    module = importlib.import_module("mlci.cli.report")
    monkeypatch.setattr(module, "grouping_codes", lambda groups, data: [])
    assert main([*argv, "-o", str(tmp_path / "text.md")]) == 0
    assert seen[-1] == []
    # the two runs may straddle a minute: the report's "created" stamp is not compared
    stamp = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC")
    coded = stamp.sub("T", (tmp_path / "coded.md").read_text().replace("coded_files", "X"))
    text = stamp.sub("T", (tmp_path / "text.md").read_text().replace("text_files", "X"))
    assert coded == text


def test_a_grouping_column_that_is_also_data_is_read_as_it_is(files, capsys, monkeypatch):
    # --condition label: the labels are data (their values matter), never codes
    seen = _spy(monkeypatch)
    argv = [*("compare", str(files / "d.csv"), "--label", "label", "--systems", "pred_a,pred_b")]
    argv += [*("--metric", "accuracy", "--condition", "label", "-B", "50", "--seed", "1")]
    main(argv)
    capsys.readouterr()
    assert seen == [[]]
    assert grouping_codes(["speaker", None, "label"], ["label", "a,b"]) == ["speaker"]
    assert grouping_codes(["a"], ["x,a"]) == []
