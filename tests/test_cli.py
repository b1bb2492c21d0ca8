"""The ``mlci`` command line: a thin shell over bootstrap_ci (same numbers, clear errors)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import numpy as np
import pytest

import mlci
from mlci.cli import COMMANDS, EXAMPLE_COMMANDS, build_parser, main
from mlci.data import load_example
from mlci.metrics import METRICS


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _rows(out):
    lines = [ln for ln in out.splitlines() if ln and not ln.startswith("#")]
    header = lines[0].split()
    return header, [ln.split() for ln in lines[1:]]


def test_example_table_matches_api(capsys):
    code, out, err = run(
        capsys,
        [
            "ci",
            "--example",
            "--metric",
            "accuracy,f1",
            "--average",
            "macro",
            "--condition",
            "speaker",
            "--seed",
            "3",
            "-B",
            "300",
        ],
    )
    assert code == 0 and err == ""
    header, rows = _rows(out)
    assert header == ["metric", "estimate", "low", "high", "method", "n", "conditions"]
    assert [r[0] for r in rows] == ["accuracy", "f1"]
    d = load_example(as_frame=False)
    ref = mlci.bootstrap_ci(
        d["label"],
        d["pred"],
        metric="f1",
        average="macro",
        conditions=d["speaker"],
        n_resamples=300,
        rng=3,
    )
    f1 = rows[1]
    assert f1[1] == "(macro)"
    assert float(f1[2]) == pytest.approx(ref.estimate, abs=5e-5)
    assert float(f1[3]) == pytest.approx(ref.confidence_interval.low, abs=5e-5)
    assert float(f1[4]) == pytest.approx(ref.confidence_interval.high, abs=5e-5)
    assert f1[5:] == ["bca", "1501", "40"]
    assert "seed 3" in out.splitlines()[0]


def test_json_output(capsys):
    code, out, _ = run(
        capsys,
        [
            "ci",
            "--example",
            "--label",
            "is_angry",
            "--score",
            "score_angry",
            "--metric",
            "roc_auc",
            "--seed",
            "1",
            "-B",
            "200",
            "--method",
            "percentile",
            "--json",
        ],
    )
    assert code == 0
    res = json.loads(out)
    assert isinstance(res, list) and len(res) == 1
    r = res[0]
    assert r["metric"] == "roc_auc" and r["method"] == "percentile" and r["seed"] == 1
    assert r["n_samples"] == 1501 and r["n_conditions"] is None
    d = load_example(as_frame=False)
    ref = mlci.bootstrap_ci(
        d["is_angry"],
        d["score_angry"],
        metric="roc_auc",
        rng=1,
        n_resamples=200,
        method="percentile",
    )
    assert r["estimate"] == pytest.approx(ref.estimate)
    assert r["confidence_interval"]["low"] == pytest.approx(ref.confidence_interval.low)
    assert "bootstrap_distribution" not in r


def test_seed_is_drawn_and_printed(capsys):
    _, out1, _ = run(capsys, ["ci", "--example", "--metric", "accuracy", "-B", "50"])
    seed = int(out1.splitlines()[0].rsplit("seed ", 1)[1])
    _, out2, _ = run(
        capsys, ["ci", "--example", "--metric", "accuracy", "-B", "50", "--seed", str(seed)]
    )
    assert out1 == out2


@pytest.mark.parametrize("cmd", EXAMPLE_COMMANDS)
def test_example_commands_run(capsys, cmd):
    argv = [*shlex.split(cmd)[1:], "-B", "100"]
    code, out, err = run(capsys, argv)
    assert code == 0, err
    if argv[0] == "compare":
        n_systems = len(argv[argv.index("--systems") + 1].split(","))
        assert sum(" - " in ln for ln in out.splitlines()) == n_systems * (n_systems - 1) // 2
        return
    assert len(_rows(out)[1]) == len(argv[argv.index("--metric") + 1].split(","))


def test_csv_numeric_labels_and_pos_label(tmp_path, capsys):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 200)
    pred = np.where(rng.random(200) < 0.8, y, 1 - y)
    words = np.where(y == 1, "yes", "no")
    pwords = np.where(pred == 1, "yes", "no")
    grp = rng.integers(0, 10, 200)
    p = tmp_path / "preds.csv"
    lines = ["y,pred,yw,pw,grp"] + [
        f"{a},{b},{c},{d},g{e}" for a, b, c, d, e in zip(y, pred, words, pwords, grp, strict=True)
    ]
    p.write_text("\n".join(lines) + "\n")
    # {0, 1} labels parsed as numbers: binary f1 needs no --pos-label
    code, out, err = run(
        capsys,
        [
            "ci",
            str(p),
            "--label",
            "y",
            "--pred",
            "pred",
            "--metric",
            "f1,precision",
            "--seed",
            "0",
            "-B",
            "100",
        ],
    )
    assert code == 0, err
    ref = mlci.bootstrap_ci(y, pred, metric="f1", rng=0, n_resamples=100)
    assert float(_rows(out)[1][0][1]) == pytest.approx(ref.estimate, abs=5e-5)
    # string labels need --pos-label, as in scikit-learn
    code, _, err = run(
        capsys, ["ci", str(p), "--label", "yw", "--pred", "pw", "--metric", "f1", "-B", "50"]
    )
    assert code == 2 and "--pos-label" in err
    code, out, err = run(
        capsys,
        [
            "ci",
            str(p),
            "--label",
            "yw",
            "--pred",
            "pw",
            "--metric",
            "f1,accuracy",
            "--pos-label",
            "yes",
            "--seed",
            "0",
            "-B",
            "100",
            "--condition",
            "grp",
        ],
    )
    assert code == 0, err
    rows = _rows(out)[1]
    assert rows[0][:2] == ["f1", "(pos=yes)"]
    assert float(rows[0][2]) == pytest.approx(ref.estimate, abs=5e-5)
    assert rows[1][0] == "accuracy" and rows[1][-1] == "10"


def test_parquet_input(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    d = load_example(as_frame=False)
    p = tmp_path / "x.parquet"
    pq.write_table(pa.table({k: d[k] for k in ("label", "pred", "speaker")}), p)
    code, out, err = run(
        capsys,
        [
            "ci",
            str(p),
            "--label",
            "label",
            "--pred",
            "pred",
            "--metric",
            "accuracy",
            "--seed",
            "0",
            "-B",
            "100",
            "--json",
        ],
    )
    assert code == 0, err
    assert json.loads(out)[0]["estimate"] == pytest.approx((d["label"] == d["pred"]).mean())


def test_options_strata_two_stage_one_sided(capsys):
    code, out, err = run(
        capsys,
        [
            "ci",
            "--example",
            "--metric",
            "accuracy",
            "--condition",
            "speaker",
            "--two-stage",
            "--strata",
            "label",
            "-B",
            "100",
            "--seed",
            "0",
            "--alternative",
            "greater",
            "--json",
        ],
    )
    assert code == 0, err
    r = json.loads(out)[0]
    assert r["scheme"] == "conditions-within-strata-two-stage"
    # issue 8: a one-sided interval of accuracy ends at 1, the metric's range edge
    assert r["confidence_interval"]["high"] == 1.0
    code, out, _ = run(
        capsys,
        [
            "ci",
            "--example",
            "--metric",
            "accuracy",
            "-B",
            "100",
            "--alternative",
            "less",
            "--seed",
            "0",
        ],
    )
    assert code == 0 and float(out.splitlines()[2].split()[2]) == 0.0


def test_warnings_go_to_stderr(tmp_path, capsys):
    p = tmp_path / "few.csv"
    y = [1, 1] + [0] * 28
    s = np.linspace(0, 1, 30)
    p.write_text("y,s\n" + "\n".join(f"{a},{b}" for a, b in zip(y, s, strict=True)) + "\n")
    code, out, err = run(
        capsys,
        [
            "ci",
            str(p),
            "--label",
            "y",
            "--score",
            "s",
            "--metric",
            "roc_auc",
            "-B",
            "200",
            "--seed",
            "0",
        ],
    )
    assert code == 0
    assert err.startswith("mlci: warning: roc_auc: ") and "undefined" in err
    assert "replicate(s) undefined and left out" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["ci", "--example", "--metric", "accuracy", "--condition", "spk"],
            "Did you mean 'speaker'? Columns: utterance, speaker, session",
        ),
        (["ci", "--example", "--metric", "acuracy"], "Unknown metric 'acuracy'"),
        (["ci", "--example", "--metric", "f1"], "--average macro"),
        (["ci", "--example", "--metric", "mean"], "needs values (--value)"),
        (["ci", "--metric", "accuracy"], "no input"),
        (
            ["ci", "missing.csv", "--metric", "accuracy", "--label", "a", "--pred", "b"],
            "No such file",
        ),
        (
            ["ci", "--example", "--metric", "accuracy", "--confidence-level", "95"],
            "use 0.95 instead of 95",
        ),
        (["ci", "--example", "--metric", "accuracy", "-B", "0"], "`n_resamples`"),
        (["ci", "--example", "--metric", ","], "at least one metric"),
        (
            [
                "ci",
                "--example",
                "--metric",
                "roc_auc",
                "--label",
                "is_angry",
                "--score",
                "score_angry",
                "--pos-label",
                "x",
            ],
            "holds numbers",
        ),
    ],
)
def test_user_errors_exit_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, argv)
    assert code == 2
    assert out == ""
    assert err.startswith("mlci: error: ") and err.count("\n") == 1
    assert message in err


def test_empty_cells_and_both_inputs(tmp_path, capsys):
    p = tmp_path / "gap.csv"
    p.write_text("y,p\n1,1\n,0\n0,0\n")
    code, _, err = run(
        capsys, ["ci", str(p), "--label", "y", "--pred", "p", "--metric", "accuracy"]
    )
    assert code == 2 and "--label 'y': 1 empty cell(s) (first on data row 2)" in err
    code, _, err = run(capsys, ["ci", str(p), "--example", "--metric", "accuracy"])
    assert code == 2 and "either FILE or --example" in err


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["ci", "--example"])  # --metric is required
    assert exc.value.code == 2
    assert main([]) == 2
    capsys.readouterr()


def test_metrics_command(capsys):
    code, out, _ = run(capsys, ["metrics"])
    assert code == 0
    names = [ln.split()[0] for ln in out.splitlines()[1:]]
    assert names == sorted(METRICS)
    assert "--label --score" in out
    code, out, _ = run(capsys, ["metrics", "--json"])
    listed = json.loads(out)
    assert {m["name"] for m in listed} == set(METRICS)


def test_example_command(capsys):
    code, out, _ = run(capsys, ["example"])
    assert code == 0 and "1501 utterances by 40 speakers" in out
    assert all(cmd in out for cmd in EXAMPLE_COMMANDS)
    code, out, _ = run(capsys, ["example", "--path"])
    assert out.strip().endswith("emotion_example.csv")


def test_parser_has_one_function_per_command():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(sub.choices) == {"ci", "compare", "metrics", "example"}
    assert len(COMMANDS) == len(sub.choices)


def test_module_entry_point_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "mlci.cli", "ci", "--example", "--metric", "nope"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("mlci: error:")
    proc = subprocess.run(
        [sys.executable, "-m", "mlci.cli", "--version"], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and proc.stdout.strip() == f"mlci {mlci.__version__}"


def test_metric_options_beta_and_kappa_weights(capsys):
    code, out, err = run(
        capsys,
        [
            "ci",
            "--example",
            "--metric",
            "fbeta,cohen_kappa",
            "--beta",
            "2",
            "--average",
            "macro",
            "--kappa-weights",
            "quadratic",
            "-B",
            "100",
            "--seed",
            "0",
            "--json",
        ],
    )
    assert code == 0, err
    fb, kappa = json.loads(out)
    assert fb["options"] == {"average": "macro", "beta": 2.0}
    assert kappa["options"] == {"weights": "quadratic"}
    from sklearn.metrics import cohen_kappa_score, fbeta_score

    d = load_example(as_frame=False)
    assert fb["estimate"] == pytest.approx(
        fbeta_score(d["label"], d["pred"], beta=2, average="macro")
    )
    assert kappa["estimate"] == pytest.approx(
        cohen_kappa_score(d["label"], d["pred"], weights="quadratic")
    )


# ------------------------------------------------------------------------ mlci compare
def test_compare_matches_api(capsys):
    code, out, err = run(
        capsys,
        [
            "compare",
            "--example",
            "--systems",
            "pred,pred_baseline",
            "--metric",
            "accuracy",
            "--condition",
            "speaker",
            "-B",
            "200",
            "--seed",
            "3",
        ],
    )
    assert code == 0, err
    d = load_example(as_frame=False)
    ref = mlci.compare(
        d["label"],
        {"pred": d["pred"], "pred_baseline": d["pred_baseline"]},
        metric="accuracy",
        conditions=d["speaker"],
        n_resamples=200,
        rng=3,
    )
    diff = ref.difference("pred", "pred_baseline")
    line = next(ln for ln in out.splitlines() if ln.startswith("pred - pred_baseline"))
    parts = line.split()
    assert float(parts[3]) == pytest.approx(diff.estimate, abs=1e-4)
    assert float(parts[4]) == pytest.approx(diff.confidence_interval.low, abs=1e-4)
    assert float(parts[5]) == pytest.approx(diff.confidence_interval.high, abs=1e-4)
    assert "# p-values:" in out


def test_compare_json(capsys):
    code, out, _ = run(
        capsys,
        [
            "compare",
            "--example",
            "--systems",
            "pred,pred_baseline",
            "--metric",
            "f1",
            "--average",
            "macro",
            "-B",
            "50",
            "--seed",
            "1",
            "--json",
        ],
    )
    d = json.loads(out)
    assert code == 0 and set(d["systems"]) == {"pred", "pred_baseline"}
    assert d["seed"] == 1 and len(d["differences"]) == 1


@pytest.mark.parametrize(
    "argv,pattern",
    [
        (["--systems", "pred"], r"at least two"),
        (["--systems", "pred,pred_baseline", "--reference", "other"], r"--reference 'other'"),
        (["--systems", "pred,nope"], r"nope"),
    ],
)
def test_compare_bad_input(capsys, argv, pattern):
    code, _, err = run(capsys, ["compare", "--example", "--metric", "accuracy", *argv])
    assert code == 2
    assert pytest.importorskip("re").search(pattern, err)


def test_readme_example_output_is_current(capsys):
    """The README shows what its first command prints; keep the two in step."""
    import pathlib
    import re

    readme = (pathlib.Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    command = re.search(r"^pip install \. && (mlci ci .*)$", readme, re.M).group(1)
    shown = re.search(r"```text\n(# example.*?)```", readme, re.S).group(1)
    code, out, _ = run(capsys, shlex.split(command)[1:])
    assert code == 0
    assert out.strip() == shown.strip()
