"""`mlci compare` names each row's interval (issue 20, item 4: a user can tell which
default holds where).

The text table of ``--test bootstrap`` has a ``method`` column for the systems and for
the differences, the same as ``--json``'s ``method`` fields (whose schema only gains
nothing here: the fields were there), and a system's method and ``method_reason`` are
``mlci ci``'s (``bootstrap_ci``'s) for that system alone.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from mlci.cli import main

BASE = ["compare", "--example", "--systems", "pred,pred_baseline", "--seed", "0", "-B", "300"]


def run(capsys, argv):
    code = main(argv)  # (no argparse error here: these calls are valid)
    return (code, *capsys.readouterr())


def _tables(text):
    """The CSV output's tables by title (``# systems`` ...)."""
    tables, title, lines = {}, None, []
    for line in [*text.splitlines(), ""]:
        if line.startswith("# ") and title is None and not lines:
            title = line[2:]
        elif line == "" or line.startswith("# "):
            if title is not None and lines:
                tables[title] = list(csv.DictReader(io.StringIO("\n".join(lines))))
            title, lines = None, []
            if line.startswith("# "):
                title = line[2:]
        else:
            lines.append(line)
    return tables


@pytest.mark.parametrize(
    "extra,sys_method,diff_method",
    [
        # a proportion of independent samples: Wilson's (modified); the difference Tango's
        (["--metric", "accuracy"], "wilson_modified", "tango"),
        # over conditions: logit t for each system, t for the difference
        (["--metric", "accuracy", "--condition", "speaker"], "logit_t", "t"),
        # an explicit method: every row says it
        (["--metric", "accuracy", "--condition", "speaker", "--method", "bca"], "bca", "bca"),
    ],
)
def test_text_table_has_each_rows_method(capsys, extra, sys_method, diff_method):
    code, out, err = run(capsys, [*BASE, *extra])
    assert code == 0, err
    lines = out.splitlines()
    head = lines[lines.index("## systems") + 1].split()
    assert head == ["system", "estimate", "low", "high", "method", "rank"]
    for name in ("pred", "pred_baseline"):
        row = next(ln.split() for ln in lines if ln.split()[:1] == [name])
        assert row[4] == sys_method, row
    head = lines[lines.index("## differences") + 1].split()
    assert head[:5] == ["difference", "estimate", "low", "high", "method"]
    row = next(ln.split() for ln in lines if ln.startswith("pred - pred_baseline"))
    assert row[6] == diff_method, row  # ("pred", "-", "pred_baseline": tokens 0-2)


def test_table_json_and_csv_name_the_same_methods(capsys):
    argv = [*BASE, "--metric", "f1", "--average", "macro", "--condition", "speaker"]
    code, out, err = run(capsys, [*argv, "--json"])
    assert code == 0, err
    data = json.loads(out)
    code, out, err = run(capsys, [*argv, "--format", "csv"])
    assert code == 0, err
    tables = _tables(out)
    for row in tables["systems"]:
        system = data["systems"][row["system"]]
        assert row["method"] == system["method"]
        # the JSON keeps its fields: estimate, confidence_interval, method, details...
        assert {"estimate", "confidence_interval", "method", "details"} <= set(system)
    for row, diff in zip(tables["differences"], data["differences"], strict=True):
        assert row["difference"] == f"{diff['a']} - {diff['b']}"
        assert row["method"] == diff["method"]


def test_json_system_reason_is_mlci_cis(capsys):
    """A system's method and reason in `compare --json` are those of `mlci ci --json` on
    the same column with the same seed (one method resolution)."""
    common = ["--example", "--metric", "f1", "--average", "macro", "--condition", "speaker"]
    common += ["--seed", "0"]
    code, out, err = run(capsys, ["compare", "--systems", "pred,pred_baseline", *common, "--json"])
    assert code == 0, err
    systems = json.loads(out)["systems"]
    for name in ("pred", "pred_baseline"):
        code, out, err = run(capsys, ["ci", "--pred", name, *common, "--json"])
        assert code == 0, err
        alone = json.loads(out)
        alone = alone[0]  # (one result per --pred column)
        assert systems[name]["method"] == alone["method"]
        reason = systems[name]["details"]["method_reason"]
        assert reason == alone["details"]["method_reason"]
        assert reason.startswith(f"{alone['method']}: ") or reason.startswith("studentized: ")
