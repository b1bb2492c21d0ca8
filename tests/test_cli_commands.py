"""The command line reaches everything: several columns, analytic intervals, every test of
``mlci compare``, ``mlci scores``, ``mlci datasets``, output formats and pictures.

Each command's numbers are checked against the Python call it stands for (same seed),
and the DeLong values against pROC's published ones on pROC's own data set.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest

import mlci
from _helpers import run_cli as run
from mlci.data import load_example

# pROC's aSAH data (GPL, so kept out of the wheel: tests/data/README.md)
ASAH = str(Path(__file__).parent / "data" / "aSAH.csv")


def _strict(token):
    raise AssertionError(f"non-standard JSON token {token}")


def run_json(capsys, argv):
    code, out, err = run(capsys, [*argv, "--format", "json"])
    assert code == 0, err
    return json.loads(out, parse_constant=_strict), err


# ---------------------------------------------------------------- pROC's DeLong values
def test_delong_interval_reproduces_proc(capsys):
    # pROC (X. Robin et al.), tests/testthat/test-ci.auc.R: ci.auc(roc(aSAH$outcome,
    # aSAH$ndka)) = 0.501244999271703, 0.611957994579946, 0.722670989888189 (DeLong)
    argv = ["ci", ASAH, "--label", "outcome", "--pos-label", "Poor", "--metric", "roc_auc"]
    (r,), _ = run_json(capsys, [*argv, "--score", "ndka", "--method", "delong"])
    assert r["estimate"] == pytest.approx(0.611957994579946, abs=1e-12)
    assert r["confidence_interval"]["low"] == pytest.approx(0.501244999271703, abs=1e-12)
    assert r["confidence_interval"]["high"] == pytest.approx(0.722670989888189, abs=1e-12)
    # pROC's documentation (roc / ci.auc on aSAH$s100b): AUC 0.7314, 95% CI 0.6301-0.8326
    # (DeLong); tests/testthat/print_output/r.s100b prints "Area under the curve: 0.7314"
    code, out, err = run(capsys, [*argv, "--score", "s100b", "--method", "delong"])
    assert code == 0, err
    assert "0.7314  0.6301  0.8326  delong" in out


def test_delong_paired_test_reproduces_proc(capsys):
    # pROC tests/testthat/test-roc.test.R: roc.test(r.wfns, r.s100b) (DeLong, paired):
    # Z = 2.20898359144091, p = 0.0271757822291882, 95% CI of the difference
    # 0.0104061769564846 .. 0.174214419249478
    argv = ["compare", ASAH, "--label", "outcome", "--pos-label", "Poor"]
    d, _ = run_json(capsys, [*argv, "--systems", "wfns,s100b", "--test", "delong"])
    (pair,) = d["differences"]
    assert (pair["a"], pair["b"]) == ("wfns", "s100b")
    assert pair["statistic"] == pytest.approx(2.20898359144091, abs=1e-12)
    assert pair["pvalue"] == pytest.approx(0.0271757822291882, abs=1e-12)
    assert pair["confidence_interval"]["low"] == pytest.approx(0.0104061769564846, abs=1e-12)
    assert pair["confidence_interval"]["high"] == pytest.approx(0.174214419249478, abs=1e-12)
    code, out, _ = run(capsys, [*argv, "--systems", "wfns,s100b", "--test", "delong"])
    assert code == 0
    assert "2.209" in out and "0.02718" in out


# ------------------------------------------------------------------------- mlci ci
def test_ci_rows_per_column_and_metric_match_the_api(capsys):
    argv = ["ci", "--example", "--pred", "pred,pred_baseline", "--metric", "accuracy,f1"]
    rows, _ = run_json(capsys, [*argv, "--average", "macro", "-B", "200", "--seed", "4"])
    d = load_example(as_frame=False)
    assert [(r["metric"], r["column"]) for r in rows] == [
        ("accuracy", "pred"),
        ("accuracy", "pred_baseline"),
        ("f1", "pred"),
        ("f1", "pred_baseline"),
    ]
    for r in rows:
        kw = {"average": "macro"} if r["metric"] == "f1" else {}
        ref = mlci.bootstrap_ci(
            d["label"], d[r["column"]], metric=r["metric"], n_resamples=200, rng=4, **kw
        )
        assert r["estimate"] == pytest.approx(ref.estimate)
        assert r["confidence_interval"]["low"] == pytest.approx(ref.confidence_interval.low)


@pytest.mark.parametrize("method", mlci.inputs.INTERVAL_METHODS)
def test_ci_every_bootstrap_method(capsys, method):
    argv = ["ci", "--example", "--metric", "accuracy", "-B", "200", "--seed", "1"]
    (r,), _ = run_json(capsys, [*argv, "--method", method])
    d = load_example(as_frame=False)
    ref = mlci.bootstrap_ci(
        d["label"], d["pred"], metric="accuracy", n_resamples=200, rng=1, method=method
    )
    assert r["confidence_interval"]["low"] == pytest.approx(ref.confidence_interval.low)
    assert r["method"] == ref.method


@pytest.mark.parametrize("method", mlci.cli.ci.PROPORTION_CLI)
def test_ci_analytic_proportions_match_proportion_ci(capsys, method):
    d = load_example(as_frame=False)
    k, n = int((d["label"] == d["pred"]).sum()), len(d["label"])
    (r,), _ = run_json(capsys, ["ci", "--example", "--metric", "accuracy", "--method", method])
    ref = mlci.proportion_ci(k, n, method=mlci.cli.ci.PROPORTION_CLI[method])
    assert r["estimate"] == pytest.approx(k / n)
    assert r["confidence_interval"]["low"] == pytest.approx(ref.confidence_interval.low)
    assert r["confidence_interval"]["high"] == pytest.approx(ref.confidence_interval.high)


def test_ci_analytic_binary_rate_counts(tmp_path, capsys):
    # recall = TP / P with TP and P counted by hand; clopper-pearson as scipy's binomtest
    from scipy.stats import binomtest

    f = tmp_path / "b.csv"
    y = [1, 1, 1, 1, 0, 0, 0, 1, 1, 0]
    p = [1, 0, 1, 1, 0, 1, 0, 1, 0, 0]
    f.write_text("y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(y, p, strict=True)))
    argv = ["ci", str(f), "--label", "y", "--pred", "p", "--method", "clopper-pearson"]
    rows, _ = run_json(capsys, [*argv, "--metric", "recall,specificity,precision,npv"])
    ref = binomtest(4, 6).proportion_ci(0.95, method="exact")
    assert rows[0]["estimate"] == pytest.approx(4 / 6)
    assert rows[0]["confidence_interval"]["low"] == pytest.approx(ref.low)
    assert [r["estimate"] for r in rows[1:]] == pytest.approx([3 / 4, 4 / 5, 3 / 5])


def test_ci_hanley_mcneil(capsys):
    argv = ["ci", ASAH, "--label", "outcome", "--pos-label", "Poor", "--score", "s100b"]
    (r,), _ = run_json(capsys, [*argv, "--metric", "roc_auc", "--method", "hanley_mcneil"])
    import pandas as pd

    t = pd.read_csv(ASAH)
    ref = mlci.hanley_mcneil_ci(t.outcome == "Poor", t.s100b)
    assert r["confidence_interval"]["low"] == pytest.approx(ref.confidence_interval.low)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--method", "clopper-pearson", "--metric", "f1"], "--metric f1 needs a bootstrap method"),
        (["--method", "delong", "--metric", "accuracy"], "interval for roc_auc only"),
        (["--method", "clopper-pearson", "--condition", "speaker"], "cannot use --condition"),
        (["--method", "jeffreys", "--metric", "recall", "--average", "macro"], "binary rate"),
        (["--method", "jeffreys", "--metric", "recall", "--pos-label", "sad"], "binary labels"),
        (["--pred", ","], "--pred: give at least one column"),
    ],
)
def test_ci_analytic_bad_input(capsys, extra, message):
    code, out, err = run(capsys, ["ci", "--example", "--metric", "accuracy", *extra])
    assert code == 2 and out == "" and message in err, err


def test_ci_undefined_metric_marks_its_row(tmp_path, capsys):
    f = tmp_path / "u.csv"
    f.write_text("y,a,b\n1,1,0\n0,0,0\n1,0,0\n0,1,0\n")
    argv = ["ci", str(f), "--label", "y", "--pred", "a,b", "--metric", "precision"]
    code, out, err = run(capsys, [*argv, "-B", "50", "--seed", "0", "--method", "percentile"])
    assert code == 0, err
    assert "undefined" in err and "precision (b)" in err
    lines = [ln.split() for ln in out.splitlines() if ln.startswith("precision")]
    assert lines[0][1] == "a" and lines[1][:3] == ["precision", "b", "-"]
    assert "undefined" in lines[1]
    rows, _ = run_json(capsys, [*argv, "-B", "50", "--seed", "0", "--quiet"])
    assert "error" in rows[1] and rows[0]["estimate"] == pytest.approx(0.5)
    # every row undefined: an error
    code, _, err = run(capsys, [*argv[:4], "--pred", "b", "--metric", "precision"])
    assert code == 2 and "undefined" in err


# -------------------------------------------------------------------------- formats
def test_formats_csv_md_json_agree(capsys):
    # 200 replicates: 5 per tail at 95%, the fewest without a FewResamplesWarning on stderr
    argv = ["ci", "--example", "--metric", "accuracy,mcc", "-B", "200", "--seed", "0"]
    rows, _ = run_json(capsys, argv)
    code, out, err = run(capsys, [*argv, "--format", "csv"])
    assert code == 0 and err.startswith("# example")  # the notes go to stderr
    got = list(csv.DictReader(io.StringIO(out)))
    assert [float(g["estimate"]) for g in got] == [r["estimate"] for r in rows]
    assert [float(g["low"]) for g in got] == [r["confidence_interval"]["low"] for r in rows]
    code, out, _ = run(capsys, [*argv, "--format", "md"])
    table = [ln for ln in out.splitlines() if ln.startswith("|")]
    assert table[0].startswith("| metric | estimate |") and len(table) == 4
    code, out, err = run(capsys, [*argv, "--quiet"])
    assert not out.startswith("#") and err == ""


def test_json_is_strict_everywhere(capsys):
    for argv in (
        ["scores", "--example", "-B", "50", "--seed", "0", "--alternative", "greater"],
        ["compare", "--example", "--systems", "pred,pred_baseline", "--test", "mcnemar"],
    ):
        run_json(capsys, argv)


# --------------------------------------------------------------------- mlci compare
def test_compare_mcnemar_variants_and_correction(capsys):
    d = load_example(as_frame=False)
    argv = ["compare", "--example", "--systems", "pred,pred_baseline,pred", "--test", "mcnemar"]
    code, _, err = run(capsys, argv)
    assert code == 2 and "--systems: 'pred' given more than once" in err
    names = "pred,pred_baseline"
    for variant in ("exact", "mid-p", "asymptotic", "corrected"):
        res, _ = run_json(
            capsys,
            ["compare", "--example", "--systems", names, "--test", "mcnemar", "--variant", variant],
        )
        ref = mlci.mcnemar_test(
            y_true=d["label"], y_pred_a=d["pred"], y_pred_b=d["pred_baseline"], variant=variant
        )
        assert res["differences"][0]["pvalue"] == pytest.approx(ref.pvalue)


def test_compare_permutation_matches_api_and_adjusts(tmp_path, capsys):
    d = load_example(as_frame=False)
    rng = np.random.default_rng(0)
    third = np.where(rng.random(len(d["label"])) < 0.6, d["label"], d["pred_baseline"])
    f = tmp_path / "three.csv"
    f.write_text(
        "label,a,b,c\n"
        + "".join(
            f"{y},{a},{b},{c}\n"
            for y, a, b, c in zip(d["label"], d["pred"], d["pred_baseline"], third, strict=True)
        )
    )
    argv = ["compare", str(f), "--label", "label", "--systems", "a,b,c", "--metric", "accuracy"]
    res, _ = run_json(capsys, [*argv, "--test", "permutation", "-B", "199", "--seed", "3"])
    ref = mlci.permutation_test(
        d["label"], d["pred"], third, metric="accuracy", n_resamples=199, rng=3
    )
    pair = next(p for p in res["differences"] if (p["a"], p["b"]) == ("a", "c"))
    assert pair["pvalue"] == pytest.approx(ref.pvalue)
    raw = [p["pvalue"] for p in res["differences"]]
    adj = mlci.adjust_pvalues(raw, correction="holm")
    assert [p["pvalue_adjusted"] for p in res["differences"]] == pytest.approx(list(adj))
    code, out, _ = run(capsys, [*argv, "--test", "permutation", "-B", "99", "--reference", "c"])
    assert code == 0 and "c - a" in out and "a - b" not in out


def test_compare_alternative_reaches_the_api(capsys):
    argv = ["compare", "--example", "--systems", "pred,pred_baseline", "--metric", "accuracy"]
    res, _ = run_json(capsys, [*argv, "-B", "200", "--seed", "0", "--alternative", "greater"])
    d = load_example(as_frame=False)
    ref = mlci.compare(
        d["label"],
        {"pred": d["pred"], "pred_baseline": d["pred_baseline"]},
        metric="accuracy",
        n_resamples=200,
        rng=0,
        alternative="greater",
    )
    assert res["differences"][0]["pvalue"] == pytest.approx(ref.differences[0].pvalue)


def _long_file(tmp_path):
    d = load_example(as_frame=False)
    f = tmp_path / "long.csv"
    lines = ["utt,system,label,speaker,out"]
    order = np.random.default_rng(1).permutation(2 * len(d["label"]))  # any row order
    rows = []
    for sys_name in ("pred", "pred_baseline"):
        for u, y, s, o in zip(d["utterance"], d["label"], d["speaker"], d[sys_name], strict=True):
            rows.append(f"{u},{sys_name},{y},{s},{o}")
    lines += [rows[i] for i in order]
    f.write_text("\n".join(lines) + "\n")
    return f


def test_compare_long_table_equals_wide(tmp_path, capsys):
    f = _long_file(tmp_path)
    common = ["--metric", "accuracy", "-B", "200", "--seed", "2", "--condition", "speaker"]
    long, _ = run_json(
        capsys,
        [
            "compare",
            str(f),
            "--label",
            "label",
            "--system-column",
            "system",
            "--sample-column",
            "utt",
            "--output-column",
            "out",
            *common,
        ],
    )
    wide, _ = run_json(capsys, ["compare", "--example", "--systems", "pred,pred_baseline", *common])
    # the example's utterance ids are sorted, as the long table's samples are: same numbers
    for key in ("estimate", "pvalue", "confidence_interval"):
        assert long["differences"][0][key] == wide["differences"][0][key]
    assert (
        long["systems"]["pred"]["confidence_interval"]
        == (wide["systems"]["pred"]["confidence_interval"])
    )


def test_compare_long_table_errors(tmp_path, capsys):
    f = tmp_path / "l.csv"
    f.write_text("id,sys,y,o\n1,a,0,0\n2,a,1,1\n1,b,0,1\n1,b,0,1\n")
    argv = ["compare", str(f), "--label", "y", "--metric", "accuracy"]
    long = ["--system-column", "sys", "--sample-column", "id", "--output-column", "o"]
    code, _, err = run(capsys, [*argv, *long])
    assert code == 2 and "system 'b' has sample 1 more than once (lines 4, 5)" in err
    f.write_text("id,sys,y,o\n1,a,0,0\n2,a,1,1\n1,b,0,1\n")
    code, _, err = run(capsys, [*argv, *long])
    assert code == 2 and "system 'b'" in err and "no row for sample 2" in err
    f.write_text("id,sys,y,o\n1,a,0,0\n2,a,1,1\n1,b,1,1\n2,b,1,0\n")
    code, _, err = run(capsys, [*argv, *long])
    assert code == 2 and "column 'y' differs between the rows of one sample" in err


# ---------------------------------------------------------------------- mlci scores
def test_scores_match_the_api(capsys):
    argv = ["scores", "--example", "--p-target", "0.05", "--threshold", "0.5"]
    argv += ["--at-fpr", "0.1", "-B", "200", "--seed", "5", "--method", "percentile"]
    res, _ = run_json(capsys, argv)
    d = load_example(as_frame=False)
    s = mlci.Scores.from_labels(d["is_angry"], d["score_angry"])
    kw = {"n_resamples": 200, "rng": 5, "method": "percentile"}
    got = {(q["quantity"], q["at"]): q for q in res["scores"]["score_angry"]}
    eer = mlci.eer_ci(s, **kw)
    assert got[("eer", "")]["confidence_interval"]["low"] == pytest.approx(
        eer.eer.confidence_interval.low
    )
    assert got[("eer threshold", "")]["estimate"] == pytest.approx(eer.threshold.estimate)
    dcf = mlci.dcf_ci(s, 0.05, **kw)
    assert got[("min dcf", "p_target=0.05")]["estimate"] == pytest.approx(dcf.estimate)
    assert got[("fpr", "threshold=0.5")]["estimate"] == pytest.approx(s.fpr(0.5))
    fnr, thr = mlci.operating_point_ci(s, "fnr", at=0.1, x="fpr", **kw)
    assert got[("fnr", "fpr=0.1")]["estimate"] == pytest.approx(fnr.estimate)
    assert got[("threshold", "fpr=0.1")]["confidence_interval"]["high"] == pytest.approx(
        thr.confidence_interval.high
    )


def test_scores_llr_and_groups(tmp_path, capsys):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    llr = np.where(y == 1, rng.normal(1, 1, 400), rng.normal(-1, 1, 400))
    g = np.where(rng.random(400) < 0.5, "f", "m")
    f = tmp_path / "llr.csv"
    f.write_text("y,llr,g\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(y, llr, g, strict=True)))
    argv = ["scores", str(f), "--label", "y", "--score", "llr", "--llr", "--p-target", "0.1"]
    res, _ = run_json(capsys, [*argv, "--group", "g", "-B", "100", "--seed", "0"])
    got = {q["quantity"]: q for q in res["scores"]["llr"]}
    s = mlci.Scores.from_labels(y, llr)
    assert got["cllr"]["estimate"] == pytest.approx(mlci.cllr(s))
    assert got["min cllr"]["estimate"] == pytest.approx(mlci.min_cllr(s))
    assert got["actual dcf"]["estimate"] == pytest.approx(mlci.detection_cost(s, 0.1))
    code, out, _ = run(capsys, [*argv, "--group", "g", "-B", "100", "--seed", "0"])
    assert code == 0
    assert "## groups" in out and "\nf " in out.replace("  ", " ")


# -------------------------------------------------------------------- mlci datasets
DEMSAR = (  # in the layout of Demšar (2006), Table 6 (values for the test only)
    "dataset,c4.5,c4.5+m,c4.5+cf,c4.5+m+cf\n"
    "adult,0.763,0.768,0.771,0.798\nbreast,0.599,0.591,0.590,0.569\n"
    "wisconsin,0.954,0.971,0.968,0.967\ncmc,0.628,0.661,0.654,0.657\n"
    "ionosphere,0.882,0.888,0.886,0.898\niris,0.936,0.931,0.916,0.931\n"
    "liver,0.661,0.668,0.609,0.685\nlung,0.583,0.583,0.563,0.625\n"
    "lymphography,0.775,0.838,0.866,0.875\nmushroom,1.000,1.000,1.000,1.000\n"
    "tumor,0.940,0.962,0.965,0.962\nrheum,0.619,0.666,0.614,0.669\n"
    "voting,0.972,0.981,0.975,0.975\nwine,0.957,0.978,0.946,0.970\n"
)


def test_datasets_friedman_and_posthoc(tmp_path, capsys):
    f = tmp_path / "demsar.csv"
    f.write_text(DEMSAR)
    res, _ = run_json(capsys, ["datasets", str(f)])
    import pandas as pd

    t = pd.read_csv(f).set_index("dataset")
    ref = mlci.friedman_test(t.to_numpy(), names=list(t.columns))
    assert res["friedman"]["pvalue"] == pytest.approx(ref.pvalue)
    # average ranks (1 = best, ties averaged) from scipy, independently
    from scipy.stats import rankdata

    ranks = rankdata(-t.to_numpy(), axis=1).mean(axis=0)
    assert list(res["average_ranks"].values()) == pytest.approx(list(ranks))
    assert list(res["average_ranks"]) == list(t.columns)
    holm, _ = run_json(capsys, ["datasets", str(f), "--posthoc", "holm", "--control", "c4.5"])
    assert holm["posthoc"]["control"] == "c4.5"
    png = tmp_path / "cd.png"
    code, _, err = run(capsys, ["datasets", str(f), "--plot", str(png)])
    assert code == 0, err
    assert png.stat().st_size > 5000


# ----------------------------------------------------------------------- --plot
@pytest.mark.parametrize(
    "argv",
    [
        ["ci", "--example", "--pred", "pred,pred_baseline", "--metric", "accuracy,f1"],
        ["compare", "--example", "--systems", "pred,pred_baseline", "--metric", "accuracy"],
        ["compare", "--example", "--systems", "pred,pred_baseline", "--test", "mcnemar"],
        ["scores", "--example", "--curve", "det"],
    ],
)
def test_plot_files_are_written(tmp_path, capsys, argv):
    pytest.importorskip("matplotlib")
    out_file = tmp_path / "fig.svg"
    extra = ["-B", "100", "--seed", "0", "--average", "macro"] if argv[0] == "ci" else []
    if argv[0] != "ci" and "mcnemar" not in argv:
        extra = ["-B", "100", "--seed", "0"]
    code, _, err = run(capsys, [*argv, *extra, "--plot", str(out_file)])
    assert code == 0, err
    assert out_file.read_text().lstrip().startswith("<?xml") and "<path" in out_file.read_text()
