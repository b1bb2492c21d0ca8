"""``--frequency-weight COL`` (``mlci ci``, ``compare``, ``scores``): a count per row.

The reference is the file with every row repeated that many times (a row of count 0
left out): the command's output must be the same, up to the file name, as
``mlci.frequency_weights`` gives in Python (tests/test_properties.py checks the API
against repeated rows).  Bad counts are refused with the file, the column and the line.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import mlci
from test_cli import run  # same directory (rootdir import mode)

RNG = np.random.default_rng(11)
N = 80
Y = np.r_[np.ones(40, int), np.zeros(40, int)]
S = Y * 1.2 + RNG.normal(0, 1, N)
P = (S > 0.6).astype(int)
Q = (S + RNG.normal(0, 0.7, N) > 0.6).astype(int)
W = RNG.integers(0, 4, N)
W[:2] = 1  # both classes keep rows
SPK = RNG.integers(0, 12, N)


def _files(tmp_path):
    head = "y,s,p,q,w,spk\n"
    rows = [
        f"{a},{float(b)!r},{c},{d},{e},{f}\n"
        for a, b, c, d, e, f in zip(Y, S, P, Q, W, SPK, strict=True)
    ]
    counted = tmp_path / "counted.csv"
    counted.write_text(head + "".join(rows))
    repeated = tmp_path / "repeated.csv"
    repeated.write_text(head + "".join(r * int(w) for r, w in zip(rows, W, strict=True)))
    return counted, repeated


def _json(out):
    # everything but the file's name (``source``, per result in `mlci ci`'s list)
    d = json.loads(out)
    rows = d if isinstance(d, list) else [d]
    return [{k: v for k, v in r.items() if k != "source"} for r in rows]


@pytest.mark.parametrize(
    "argv",
    [
        ["ci", "--label", "y", "--pred", "p", "--metric", "accuracy,f1"],
        ["ci", "--label", "y", "--score", "s", "--metric", "roc_auc", "--condition", "spk"],
        ["compare", "--label", "y", "--systems", "p,q", "--metric", "accuracy"],
        ["scores", "--label", "y", "--score", "s"],
    ],
    ids=["ci", "ci-conditions", "compare", "scores"],
)
def test_frequency_weight_equals_the_repeated_rows_file(tmp_path, capsys, argv):
    counted, repeated = _files(tmp_path)
    opts = ["--seed", "3", "-B", "300", "--format", "json", "-q"]
    code, out, err = run(capsys, [argv[0], str(counted), *argv[1:], *opts,
                                  "--frequency-weight", "w"])  # fmt: skip
    assert code == 0, err
    code, ref, err = run(capsys, [argv[0], str(repeated), *argv[1:], *opts])
    assert code == 0, err
    assert _json(out) == _json(ref)


def test_frequency_weight_is_the_apis_frequency_weights(tmp_path, capsys):
    counted, _ = _files(tmp_path)
    argv = ["ci", str(counted), "--label", "y", "--pred", "p", "--metric", "f1", "--seed", "3"]
    code, out, _ = run(capsys, [*argv, "-B", "300", "--format", "json", "--frequency-weight", "w"])
    assert code == 0
    got = json.loads(out)[0]
    api = mlci.bootstrap_ci(Y, P, metric="f1", sample_weight=mlci.frequency_weights(W),
                            n_resamples=300, rng=3)  # fmt: skip
    assert got["confidence_interval"]["low"] == api.confidence_interval.low
    assert got["confidence_interval"]["high"] == api.confidence_interval.high
    # and a plain --weight (survey weights) is another interval
    code, out, _ = run(capsys, [*argv, "-B", "300", "--format", "json", "--weight", "w"])
    assert json.loads(out)[0]["confidence_interval"] != got["confidence_interval"]


@pytest.mark.parametrize(
    ("cell", "shown"),
    [("2.5", "2.5"), ("-1", "-1"), ("0.999", "0.999")],
)
@pytest.mark.parametrize("command", ["ci", "compare", "scores"])
def test_bad_counts_named_with_file_column_and_line(tmp_path, capsys, command, cell, shown):
    p = tmp_path / "bad.csv"
    p.write_text("y,p,q,n\n1,1,1,2\n0,0,1,1\n1,0,0," + cell + "\n0,0,0,3\n")
    cols = {
        "ci": ["--pred", "p", "--metric", "accuracy"],
        "compare": ["--systems", "p,q", "--metric", "accuracy"],
        "scores": ["--score", "q"],
    }[command]
    code, out, err = run(
        capsys, [command, str(p), "--label", "y", *cols, "--frequency-weight", "n", "-B", "50"]
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "bad.csv: column 'n' (--frequency-weight) must hold counts" in err
    assert f"line 4 holds {shown}" in err


def test_text_missing_and_zero_counts(tmp_path, capsys):
    p = tmp_path / "c.csv"
    base = ["ci", str(p), "--label", "y", "--pred", "p", "--metric", "accuracy", "-B", "50"]
    p.write_text("y,p,n\n1,1,2\n0,0,two\n")
    code, _, err = run(capsys, [*base, "--frequency-weight", "n"])
    assert code == 2 and "column 'n' (--frequency-weight) must hold numbers" in err
    assert "line 3 holds 'two'" in err
    p.write_text("y,p,n\n1,1,2\n0,0,\n1,0,1\n")
    code, _, err = run(capsys, [*base, "--frequency-weight", "n"])
    assert code == 2 and "column 'n' (--frequency-weight) has 1 missing value" in err
    code, out, err = run(capsys, [*base, "--frequency-weight", "n", "--dropna", "--seed", "1"])
    assert code == 0 and "3 samples (1 row with a missing value dropped" in out, (out, err)
    p.write_text("y,p,n\n1,1,0\n0,0,0\n")
    code, _, err = run(capsys, [*base, "--frequency-weight", "n"])
    assert code == 2 and "--frequency-weight 'n'" in err and "all zero" in err


def test_conflicts_refused(tmp_path, capsys):
    counted, _ = _files(tmp_path)
    base = ["ci", str(counted), "--label", "y", "--pred", "p", "--metric", "accuracy"]
    code, _, err = run(capsys, [*base, "--weight", "w", "--frequency-weight", "w"])
    assert code == 2 and "--weight" in err and "--frequency-weight" in err and "not both" in err
    code, _, err = run(capsys, [*base, "--method", "clopper-pearson", "--frequency-weight", "w"])
    assert code == 2 and "--frequency-weight with --method clopper-pearson" in err
    argv = ["compare", str(counted), "--label", "y", "--systems", "p,q", "--metric", "accuracy"]
    code, _, err = run(capsys, [*argv, "--test", "mcnemar", "--frequency-weight", "w"])
    assert code == 2 and "--frequency-weight needs --test bootstrap" in err
    argv = ["scores", str(counted), "--label", "y", "--score", "s"]
    code, _, err = run(capsys, [*argv, "--weight", "w", "--frequency-weight", "w"])
    assert code == 2 and "not both" in err
