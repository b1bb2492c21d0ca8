"""The ``mlci`` command line: a thin shell over bootstrap_ci (same numbers, clear errors)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys

import numpy as np
import pytest

import mlci
import mlci.cli
from _helpers import example_compare
from _helpers import run_cli as run
from mlci.cli import COMMANDS, EXAMPLE_COMMANDS, build_parser, main
from mlci.data import load_example
from mlci.metrics import METRICS


def _assert_option_error(capsys, argv, message):
    """One line on stderr, exit code 2, holding ``message`` and no API parameter name."""
    code, out, err = run(capsys, argv)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert message in err
    assert not any(f"`{name}`" in err for name in mlci.cli.OPTIONS)


def _no_constant(token):
    raise AssertionError(f"non-standard JSON token {token}")


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
    assert f1[5:] == ["studentized", "1501", "40"]
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
    if argv[0] == "scores":
        assert [r[0] for r in _rows(out)[1]][:2] == ["auc", "eer"]
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
    r = json.loads(out, parse_constant=_no_constant)[0]
    assert r["scheme"] == "conditions-within-strata-two-stage"
    # issue 8: a one-sided interval of accuracy ends at 1, the metric's range edge (and
    # JSON never holds the non-standard token Infinity)
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
        (
            ["ci", "--example", "--metric", "acuracy"],
            "--metric 'acuracy': unknown metric. Did you mean 'accuracy'?",
        ),
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
        (["ci", "--example", "--metric", "accuracy", "-B", "0"], "--n-resamples must be"),
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
    assert code == 2 and f"{p}: column 'y' (--label) has 1 missing value" in err
    assert "on line 3" in err and "--dropna" in err
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
    assert list(sub.choices) == list(COMMANDS)  # one table of subcommands, in --help order
    assert {"ci", "compare", "scores", "datasets", "metrics", "example", "llm"} <= set(COMMANDS)


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
    ref = example_compare()
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


# ------------------------------------------------ input files: missing values (issue 8)
#: 7 labelled rows of issue 8's 8-row file; their AUC is 11/12 = 0.9167 (one discordant
#: pair, 0.4 < 0.5, among 3 x 4; scikit-learn's roc_auc_score agrees below)
AUC_ROWS = [("pos", 0.9), ("neg", 0.1), ("pos", 0.8), ("neg", 0.2), ("pos", 0.4), ("neg", 0.3)]
AUC_ROWS += [("neg", 0.5)]


def _auc_file(tmp_path, missing="NA"):
    # the 8th row has no label; read as a class of its own, "NA" gave an AUC of 0.800
    p = tmp_path / "auc.csv"
    rows = [*AUC_ROWS, (missing, 0.85)]
    p.write_text("y,s\n" + "".join(f"{a},{b}\n" for a, b in rows))
    return p


AUC_ARGV = ["--label", "y", "--score", "s", "--metric", "roc_auc", "--pos-label", "pos"]


@pytest.mark.parametrize("missing", ["NA", "NaN", "null", "", "N/A", " none "])
def test_missing_text_label_names_file_column_and_line(tmp_path, capsys, missing):
    p = _auc_file(tmp_path, missing)
    code, out, err = run(capsys, ["ci", str(p), *AUC_ARGV, "-B", "50", "--seed", "0"])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"mlci: error: {p}: column 'y' (--label) has 1 missing value" in err
    assert "on line 9" in err and "--dropna" in err  # the header is line 1


def test_dropna_gives_the_auc_of_the_complete_rows(tmp_path, capsys):
    from sklearn.metrics import roc_auc_score

    truth = roc_auc_score([y == "pos" for y, _ in AUC_ROWS], [s for _, s in AUC_ROWS])
    assert truth == pytest.approx(11 / 12)
    p = _auc_file(tmp_path)
    argv = ["ci", str(p), *AUC_ARGV, "-B", "50", "--seed", "0", "--dropna"]
    code, out, err = run(capsys, argv)
    assert code == 0, err
    assert "7 samples (1 row with a missing value dropped)" in out.splitlines()[0]
    row = _rows(out)[1][0]
    assert row[:2] == ["roc_auc", "(pos=pos)"] and float(row[2]) == pytest.approx(truth, abs=5e-5)
    code, out, _ = run(capsys, [*argv, "--json"])
    r = json.loads(out, parse_constant=_no_constant)[0]
    assert r["n_dropped"] == 1 and r["n_samples"] == 7
    assert r["estimate"] == pytest.approx(truth)


def _gappy_file(tmp_path):
    """100 rows, 0/1 labels; missing: a label (line 5), a decision (line 12), a speaker (22)."""
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 100)
    a = np.where(rng.random(100) < 0.8, y, 1 - y)
    b = np.where(rng.random(100) < 0.6, y, 1 - y)
    spk = rng.integers(0, 25, 100)
    cells = [[str(v) for v in row] for row in zip(y, a, b, [f"s{k}" for k in spk], strict=True)]
    cells[3][0], cells[10][1], cells[20][3] = "NA", "", "null"
    p = tmp_path / "gappy.csv"
    p.write_text("y,a,b,spk\n" + "".join(",".join(r) + "\n" for r in cells))
    keep = np.ones(100, bool)
    keep[[3, 10, 20]] = False
    return p, y[keep], a[keep], b[keep], np.array([f"s{k}" for k in spk])[keep]


def test_missing_values_in_several_columns(tmp_path, capsys):
    p, *_ = _gappy_file(tmp_path)
    argv = ["ci", str(p), "--label", "y", "--pred", "a", "--condition", "spk"]
    code, _, err = run(capsys, [*argv, "--metric", "accuracy"])
    assert code == 2 and err.count("\n") == 1
    assert "column 'y' (--label) has 1 missing value (empty, NA, NaN, null...) on line 5" in err
    assert "column 'a' (--pred)" in err and "column 'spk' (--condition)" in err


def test_dropna_drops_rows_jointly_and_keeps_int_labels(tmp_path, capsys):
    p, y, a, b, spk = _gappy_file(tmp_path)
    argv = ["ci", str(p), "--label", "y", "--pred", "a", "--condition", "spk", "--dropna"]
    # f1 without --pos-label: the labels are still the ints 0/1 after dropping the "NA" row
    code, out, err = run(capsys, [*argv, "--metric", "accuracy,f1", "-B", "100", "--seed", "2"])
    assert code == 0, err
    assert "97 samples (3 rows with a missing value dropped)" in out.splitlines()[0]
    # 44 positives filling 16.7 effective conditions of 25: warned (engine/auto.py)
    with pytest.warns(mlci.FewConditionsWarning, match="fill only 16.7 effective conditions"):
        ref = mlci.bootstrap_ci(y, a, metric="f1", conditions=spk, n_resamples=100, rng=2)
    f1 = _rows(out)[1][1]
    assert float(f1[1]) == pytest.approx(ref.estimate, abs=5e-5)
    assert float(f1[2]) == pytest.approx(ref.confidence_interval.low, abs=5e-5)
    # compare drops the same rows (a missing decision of one system drops the row for all)
    argv = ["compare", str(p), "--label", "y", "--systems", "a,b", "--condition", "spk"]
    code, out, err = run(capsys, [*argv, "--metric", "accuracy", "--dropna", "--json"])
    assert code == 0, err
    d = json.loads(out, parse_constant=_no_constant)
    assert d["n_dropped"] == 3
    assert d["systems"]["b"]["estimate"] == pytest.approx(np.mean(b == y))
    code, _, err = run(capsys, [*argv, "--metric", "accuracy"])
    assert code == 2 and "column 'y' (--label) has 1 missing value" in err


def test_parquet_nulls_are_missing_values(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    p = tmp_path / "n.parquet"
    y = [1, 0, None, 1, 0, 1, 0, 1]
    s = [0.9, 0.1, 0.5, 0.8, 0.3, None, 0.2, 0.7]
    pq.write_table(pa.table({"y": pa.array(y), "s": pa.array(s)}), p)
    argv = ["ci", str(p), "--label", "y", "--score", "s", "--metric", "roc_auc", "-B", "50"]
    code, _, err = run(capsys, argv)
    assert code == 2 and "column 'y' (--label) has 1 missing value" in err and "row 3" in err
    code, out, err = run(capsys, [*argv, "--dropna", "--json", "--seed", "0"])
    assert code == 0, err
    r = json.loads(out)[0]
    assert r["n_dropped"] == 2 and r["estimate"] == 1.0


# ------------------------------------------------------------------------ strict JSON
def test_json_is_strict_for_unbounded_one_sided_intervals(capsys):
    # the mean of per-sample values has no range: its one-sided interval is unbounded;
    # JSON says null, never the non-standard token Infinity
    argv = ["ci", "--example", "--value", "wer", "--metric", "mean", "-B", "50", "--seed", "0"]
    code, out, err = run(capsys, [*argv, "--alternative", "greater", "--json"])
    assert code == 0, err
    assert "Infinity" not in out and "NaN" not in out
    r = json.loads(out, parse_constant=_no_constant)[0]
    assert r["confidence_interval"]["high"] is None
    assert r["confidence_interval"]["low"] < r["estimate"]
    code, out, _ = run(capsys, [*argv, "--alternative", "greater"])
    assert out.splitlines()[2].split()[3] == "inf"  # the table says inf


def test_json_safe():
    from mlci.cli import json_safe

    got = json_safe({"a": [np.float32(np.nan), -np.inf, np.arange(2)], 1: (np.bool_(True),)})
    assert got == {"a": [None, None, [0, 1]], "1": [True]}
    json.dumps(got, allow_nan=False)


# ---------------------------------------------- errors name command-line options (issue 8)
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--confidence-level", "1.5"], "--confidence-level must be strictly between 0 and 1"),
        (["--confidence-level", "95"], "use 0.95 instead of 95"),
        (["--confidence-level", "0"], "--confidence-level must be"),
        (["--confidence-level", "nan"], "--confidence-level must be"),
        (["--confidence-level", "high"], "--confidence-level: invalid float value"),
        (["-B", "0"], "--n-resamples must be an integer >="),
        (["-B", "-5"], "--n-resamples must be an integer >="),
        (["-B", "x"], "--n-resamples: invalid int value: 'x'"),
        (["-B", "1e3"], "--n-resamples: invalid int value"),
        (["--seed", "-1"], "--seed must be a non-negative integer seed"),
        (["--seed", "x"], "--seed: invalid int value"),
        (["--seed", "1.5"], "--seed: invalid int value"),
        (["--method", "bcaa"], "--method: invalid choice"),
        (["--alternative", "one-sided"], "--alternative: invalid choice"),
        (["--average", "samples"], "--average: invalid choice"),
        (["--digits", "-1"], "--digits: must be between 0 and 15"),
        (["--digits", "x"], "--digits: invalid int value"),
        (["--two-stage"], "--two-stage needs --condition"),
    ],
)
def test_bad_option_values_name_the_option(capsys, extra, message):
    code, out, err = run(capsys, ["ci", "--example", "--metric", "accuracy", *extra])
    assert code == 2 and out == ""
    assert err.startswith("mlci: error: ") and err.count("\n") == 1
    assert message in err
    assert "0.015" not in err  # the old wrong hint for --confidence-level 1.5
    assert not any(f"`{name}`" in err for name in mlci.cli.OPTIONS)  # no Python argument


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--metric", "fbeta", "--beta", "-1"], "--beta: must be a positive number"),
        (["--metric", "fbeta", "--beta", "x"], "--beta: invalid number"),
        (["--metric", "cohen_kappa", "--kappa-weights", "cubic"], "--kappa-weights: invalid"),
        (
            [
                "--label",
                "is_angry",
                "--score",
                "score_angry",
                "--pos-label",
                "5",
                "--metric",
                "roc_auc",
            ],
            "--pos-label 5 is not among the values of --label 'is_angry'",
        ),
        (["--metric", "f1"], "'f1' with --average binary needs binary labels; --label 'label'"),
        (["--metric", "mean"], "needs values (--value)"),
        (["--metric", "roc_auc", "--label", "is_angry"], "missing: --score COL"),
    ],
)
def test_metric_option_errors_name_the_option(capsys, argv, message):
    _assert_option_error(capsys, ["ci", "--example", *argv], message)


def test_options_table_names_real_options():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    known = {s for p in sub.choices.values() for a in p._actions for s in a.option_strings}
    assert set(mlci.cli.OPTIONS.values()) <= known


def test_cli_message_rewrites_backticked_arguments():
    from mlci.cli import cli_message

    names = {"y_true": "--label 'y'", "y_pred": "--pred 'p'"}
    assert cli_message("`y_true` and `y_pred` share no value.", names) == (
        "--label 'y' and --pred 'p' share no value."
    )
    assert cli_message("use `strata=y_true` or more", names) == "use --strata 'y' or more"
    assert cli_message("`two_stage=True` needs `conditions`") == "--two-stage needs --condition"
    assert cli_message("`batch` and `foo(x)` stay") == "`batch` and `foo(x)` stay"
    # the library's "binarise, e.g. `y_true == 'angry'`" becomes advice about a file column
    got = cli_message("binarise the labels first, e.g. `y_true == 'angry'`.", names)
    assert got == (
        "binarise the labels first, e.g. a column that is 1 where 'y' == 'angry' and 0 "
        "elsewhere, as --label."
    )


@pytest.mark.parametrize(
    ("column_option", "metric"),
    [
        ("--label", "accuracy"),
        ("--pred", "accuracy"),
        ("--score", "roc_auc"),
        ("--value", "mean"),
        ("--weight", "weighted_mean"),
        ("--condition", "accuracy"),
        ("--strata", "accuracy"),
    ],
)
def test_unknown_column_for_every_column_option(capsys, column_option, metric):
    argv = ["ci", "--example", "--metric", metric, "--value", "wer", "--weight", "num_words"]
    argv += ["--score", "score_angry", "--label", "label", column_option, "nope"]
    code, _, err = run(capsys, argv)
    assert code == 2 and err.count("\n") == 1
    assert f"{column_option} 'nope': no such column" in err


def test_mixed_label_types_name_both_options(tmp_path, capsys):
    # 0/1 labels against "yes"/"no" decisions never compare equal: accuracy was 0.0 [0, 0]
    p = tmp_path / "mixed.csv"
    p.write_text("y,p,q\n0,no,0\n1,yes,1\n0,no,1\n1,no,1\n")
    code, out, err = run(capsys, ["ci", str(p), "--label", "y", "--pred", "p", "-B", "20"])
    assert code == 2  # argparse: --metric is required
    code, out, err = run(
        capsys, ["ci", str(p), "--label", "y", "--pred", "p", "--metric", "accuracy", "-B", "20"]
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "--label 'y' holds numbers" in err and "--pred 'p' holds strings" in err
    argv = ["compare", str(p), "--label", "y", "--systems", "q,p", "--metric", "accuracy"]
    code, _, err = run(capsys, argv)
    assert code == 2 and "--systems 'p' holds strings" in err and "--label 'y'" in err


# ------------------------------------------------------- encodings and file errors
def test_latin1_file_is_one_clear_line(tmp_path, capsys):
    p = tmp_path / "latin.csv"
    p.write_bytes("y,p\nangry,angry\ncolère,colère\n".encode("latin-1"))
    code, out, err = run(
        capsys, ["ci", str(p), "--label", "y", "--pred", "p", "--metric", "accuracy"]
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{p} is not UTF-8 text (byte 0xe8 on line 3" in err and "re-encode it as UTF-8" in err


def test_bom_is_handled(tmp_path, capsys):
    p = tmp_path / "bom.csv"
    p.write_bytes(b"\xef\xbb\xbfy,p\n0,0\n1,1\n1,0\n")
    argv = ["ci", str(p), "--label", "y", "--pred", "p", "--metric", "accuracy", "-B", "20"]
    code, out, err = run(capsys, [*argv, "--json", "--seed", "0"])
    assert code == 0, err
    assert json.loads(out)[0]["estimate"] == pytest.approx(2 / 3)


def test_ragged_row_names_file_and_line(tmp_path, capsys):
    p = tmp_path / "ragged.csv"
    p.write_text("y,p\n0,0\n1,1,1\n")
    code, _, err = run(capsys, ["ci", str(p), "--label", "y", "--pred", "p", "--metric", "mcc"])
    assert code == 2 and err.count("\n") == 1
    assert f"{p}, line 3: 3 fields but the header has 2" in err


def test_decimal_commas(tmp_path, capsys):
    # read as numbers in a ';'-separated file (as written by spreadsheets in many locales)
    y = [1, 0, 1, 0, 1, 0]
    s = [0.9, 0.25, 0.5, 0.75, 0.8, 0.1]
    eu = tmp_path / "eu.csv"
    eu.write_text(
        "y;s\n" + "".join(f"{a};{str(b).replace('.', ',')}\n" for a, b in zip(y, s, strict=True))
    )
    argv = ["--label", "y", "--score", "s", "--metric", "roc_auc", "-B", "20", "--seed", "0"]
    code, out, err = run(capsys, ["ci", str(eu), *argv, "--json"])
    assert code == 0, err
    from sklearn.metrics import roc_auc_score

    assert json.loads(out)[0]["estimate"] == pytest.approx(roc_auc_score(y, s))
    # in a comma-separated file a quoted "0,5" is text: an error naming file, column, line
    us = tmp_path / "us.csv"
    us.write_text(
        "y,s\n" + "".join(f'{a},"{str(b).replace(".", ",")}"\n' for a, b in zip(y, s, strict=True))
    )
    code, _, err = run(capsys, ["ci", str(us), *argv])
    assert code == 2 and err.count("\n") == 1
    assert f"{us}: column 's' (--score) must hold numbers, but line 2 holds '0,9'" in err
    assert "decimal comma" in err


def test_text_and_infinite_values_in_number_columns(tmp_path, capsys):
    p = tmp_path / "w.csv"
    p.write_text("n,wer\n3,0.1\n4,inf\n5,high\n")
    argv = ["ci", str(p), "--weight", "n", "--value", "wer", "--metric", "weighted_mean"]
    code, _, err = run(capsys, argv)
    assert code == 2 and "column 'wer' (--value) must hold numbers, but line 4 holds 'high'" in err
    p.write_text("n,wer\n3,0.1\n4,inf\n5,0.2\n")
    code, _, err = run(capsys, argv)
    assert code == 2 and "column 'wer' (--value) holds an infinite value on line 3" in err


def _write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize("command", ["ci", "compare"])
@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.csv", "No such file"),
        (lambda d: d, "is a directory"),
        (lambda d: _write(d / "empty.csv", ""), "is empty"),
        (lambda d: _write(d / "head.csv", "y,p,q\n"), "no rows"),
        (lambda d: _write(d / "x.csv", "y,p,q\n0,0,0\n0,,0\n"), "missing value"),
    ],
)
def test_file_errors_for_every_command(tmp_path, capsys, command, make, message):
    path = make(tmp_path)
    columns = ["--pred", "p"] if command == "ci" else ["--systems", "p,q"]
    code, out, err = run(
        capsys, [command, str(path), "--label", "y", *columns, "--metric", "accuracy"]
    )
    assert code == 2 and out == ""
    assert err.startswith("mlci: error: ") and err.count("\n") == 1
    assert message in err and str(path) in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--metric", "acuracy", "--systems", "pred,pred_baseline"], "--metric 'acuracy': unknown"),
        (["--metric", "accuracy", "--systems", "pred,nope"], "--systems 'nope': no such column"),
        (
            ["--metric", "accuracy", "--systems", "pred,pred_baseline", "--label", "nope"],
            "--label 'nope'",
        ),
        (
            ["--metric", "accuracy", "--systems", "pred,pred_baseline", "--condition", "spk"],
            "--condition 'spk': no such column. Did you mean 'speaker'?",
        ),
        (["--metric", "accuracy", "--systems", "pred,pred_baseline", "-B", "0"], "--n-resamples"),
        (
            ["--metric", "accuracy", "--systems", "pred,pred_baseline", "--confidence-level", "95"],
            "use 0.95 instead of 95",
        ),
        (["--metric", "accuracy", "--systems", "pred,pred_baseline", "--seed", "-1"], "--seed"),
        (
            ["--metric", "accuracy", "--systems", "pred,pred_baseline", "--correction", "x"],
            "--correction",
        ),
        (["--metric", "f1", "--systems", "pred,pred_baseline"], "--average macro"),
    ],
)
def test_compare_bad_options(capsys, argv, message):
    _assert_option_error(capsys, ["compare", "--example", *argv], message)


@pytest.mark.parametrize(
    "argv", [["metrics", "--bogus"], ["example", "--bogus"], ["bogus"], ["ci", "--example"]]
)
def test_argparse_errors_are_one_line(capsys, argv):
    code, out, err = run(capsys, argv)
    assert code == 2 and out == ""
    assert err.startswith("mlci: error: ") and err.count("\n") == 1


def test_broken_pipe_exits_quietly():
    # `mlci ci ... | head -1`: the reader closes the pipe before mlci writes
    proc = subprocess.Popen(
        [sys.executable, "-m", "mlci.cli", "ci", "--example", "--metric", "accuracy", "-B", "20"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait() == 141
    assert err == ""


def test_compare_errors_name_its_own_options(capsys):
    # before: "--label 'label'/--pred take 4 values": `mlci compare` has no --pred
    code, _, err = run(
        capsys, ["compare", "--example", "--systems", "pred,pred_baseline", "--metric", "f1"]
    )
    assert code == 2 and "--label 'label'/--systems take 4 values" in err
    assert "--pred" not in err


# ---------------------------------------------------------------------------------------
# the console examples of the docs run: they cannot drift from what the command prints
# ---------------------------------------------------------------------------------------
_ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def _console_examples():
    import re as _re

    cases = []
    for doc in [_ROOT / "README.md", *sorted((_ROOT / "docs").glob("*.md"))]:
        text = doc.read_text()
        for block in _re.findall(r"```console\n(.*?)```", text, flags=_re.S):
            command, expected = None, []
            for line in [*block.splitlines(), "$ "]:
                if line.startswith("$ "):
                    if command is not None and command.startswith("mlci "):
                        ident = f"{doc.name}: {command[:70]}"
                        cases.append(pytest.param(command, "\n".join(expected), id=ident))
                    command, expected = line[2:], []
                else:
                    expected.append(line)
    return cases


@pytest.mark.parametrize(("command", "expected"), _console_examples())
def test_cli_doc_examples_print_what_the_doc_shows(capsys, monkeypatch, command, expected):
    import doctest

    argv = shlex.split(command)
    assert argv[0] == "mlci"
    files = [a for a in argv[1:] if a.endswith((".csv", ".parquet", ".jsonl"))]
    if any(not (_ROOT / f).exists() for f in files):
        pytest.skip(f"the example's file {files} is the reader's own")
    monkeypatch.chdir(_ROOT)
    code, out, err = run(capsys, argv[1:])
    got = out + (err if code else "")
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    assert checker.check_output(expected + "\n", got, flags), (
        f"docs/cli.md shows:\n{expected}\n\n`{command}` prints:\n{got}"
    )


def test_ci_one_error_in_100_is_not_the_range(tmp_path, capsys):
    # issue 20: `mlci ci` on 100 samples with 1 error printed f1 0.9901 [0.0000, 0.9988],
    # mcc [-1.0000, 0.9972]; the default interval is now Clopper-Pearson on the effective
    # sample size there (Korn & Graubard; the logit t interval before), labelled
    # 'korn_graubard'
    # and the same as the library's default
    y = np.r_[np.ones(50, int), np.zeros(50, int)]
    p = y.copy()
    p[0] = 0
    path = tmp_path / "one_error.csv"
    path.write_text("label,pred\n" + "".join(f"{a},{b}\n" for a, b in zip(y, p, strict=True)))
    argv = ["ci", str(path), "--label", "label", "--pred", "pred", "--seed", "0", "--json"]
    code, out, _ = run(capsys, [*argv, "--metric", "f1,mcc,balanced_accuracy,cohen_kappa"])
    assert code == 0
    rows = {r["metric"]: r for r in json.loads(out)}
    for metric, r in rows.items():
        low = r["confidence_interval"]["low"]
        assert low > 0.8, (metric, low)  # was 0.0 (f1) and -1.0 (mcc)
        ref = mlci.bootstrap_ci(y, p, metric=metric, rng=0)
        assert low == pytest.approx(ref.confidence_interval.low, rel=1e-12)
        # balanced accuracy with 0-3 errors in a class: MOVER of the classes' modified
        # Wilson intervals (engine/class_edge.py), labelled with the interval it holds
        edge = "mover_wilson" if metric == "balanced_accuracy" else "korn_graubard"
        assert ref.details["edge_fallback_method"] == edge
        assert r["method"] == ref.method == edge
