"""mlci report: a self-contained HTML page (or markdown + PNGs) whose numbers are the API's,
checked in a real headless browser when Debian's chromium is installed."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

import mlci
from mlci.cli import main
from mlci.data import load_example

pytest.importorskip("jinja2")
pytest.importorskip("matplotlib")

BASE = ["report", "--example", "--label", "is_angry", "--score", "score_angry,score_sad"]
OPTS = ["--condition", "speaker", "-B", "100", "--seed", "3", "--method", "percentile"]


@pytest.fixture(scope="module")
def html_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert main([*BASE, *OPTS, "--group", "session", "-o", str(out), "--quiet"]) == 0
    return out


def test_html_is_self_contained_with_every_section(html_report):
    text = html_report.read_text()
    for title in ("Data", "metrics", "Pairwise differences", "ROC curves", "Calibration",
                  "Per group (session)", "Interval methods", "Reproduce"):  # fmt: skip
        assert f"{title}</h2>" in text or title in text, title
    # no network: no scripts, style sheets, images or fonts from elsewhere
    assert "<script" not in text and "<link" not in text and "<img" not in text
    urls = set(re.findall(r"(?:src|href)=\"([^\"]+)\"", text))
    assert not [u for u in urls if not u.startswith("#")], urls
    assert text.count("<svg") == 5  # forest, differences, ROC, precision-recall, calibration
    assert "Precision-recall curves with pointwise" in text
    sha = mlci.report.file_sha256(mlci.data.example_path())
    assert sha in text and "Seed: 3" in text


def test_report_numbers_are_the_apis(html_report):
    d = load_example(as_frame=False)
    res = mlci.bootstrap_ci(
        d["is_angry"], d["score_angry"], metric="roc_auc", conditions=d["speaker"],
        n_resamples=100, rng=3, method="percentile",
    )  # fmt: skip
    low, high = res.confidence_interval
    row = f"<td>{res.estimate:.4f}</td><td>{low:.4f}</td><td>{high:.4f}</td>"
    assert row in re.sub(r"<td class=\"\">", "<td>", html_report.read_text())


def test_markdown_with_image_files(tmp_path, capsys):
    out = tmp_path / "r.md"
    argv = ["report", "--example", "--pred", "pred,pred_baseline", "-B", "50", "--seed", "0"]
    code = main([*argv, "--format", "md", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    text = out.read_text()
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert images and all((tmp_path / p).stat().st_size > 1000 for p in images)
    assert "| difference | estimate |" in text and "## Reproduce" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--score", "a", "--pred", "b"], "give the systems as --score"),
        (["-o", "/nonexistent/dir/r.html"], "--output /nonexistent/dir/r.html: folder"),
        (["--score", "nope"], "--score 'nope': no such column"),
        (["--score", ","], "--score: give at least one column"),
    ],
)
def test_report_bad_input(tmp_path, capsys, argv, message):
    code = main([*BASE[:4], "--score", "score_angry", "-o", str(tmp_path / "r.html"), *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err, err


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.skipif(
    _chromium() is None,
    reason="no headless browser: Debian's chromium is not installed "
    "(apt-get install chromium to run this test)",
)
def test_report_in_a_headless_browser(html_report, tmp_path):
    browser = _chromium()
    flags = [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--enable-logging=stderr",
        "--v=0",
        "--disable-dev-shm-usage",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    url = html_report.resolve().as_uri()
    dom = subprocess.run([browser, *flags, "--dump-dom", url], capture_output=True,
                         text=True, timeout=120, check=False)  # fmt: skip
    assert dom.returncode == 0, dom.stderr[-2000:]
    # the page loaded with no console error and every figure is in the rendered DOM
    console = [ln for ln in dom.stderr.splitlines() if "CONSOLE" in ln]
    assert not console, console
    assert dom.stdout.count("<svg") == 5 and "Reproduce" in dom.stdout
    shot = tmp_path / "page.png"
    run = subprocess.run(
        [browser, *flags, "--window-size=1200,3000", f"--screenshot={shot}", url],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0 and shot.exists(), run.stderr[-2000:]
    import matplotlib.image

    img = matplotlib.image.imread(shot)[..., :3]
    ink = (img.sum(axis=2) < 2.7).mean()  # share of pixels that are not white
    assert ink > 0.02, f"the screenshot is almost blank ({ink:.1%} drawn)"
    # the figures are drawn: some pixels are the curves' blue (C0 = #1f77b4)
    blue = (np.abs(img - np.array([0x1F, 0x77, 0xB4]) / 255).sum(axis=2) < 0.15).mean()
    assert blue > 0.0005, blue


# ---------------------------------------------------------------- issue 26: what users asked
def test_report_method_delong_is_the_apis(tmp_path, capsys):
    out = tmp_path / "r.md"
    argv = [*BASE, "--method", "delong", "-B", "50", "--seed", "1", "--format", "md"]
    assert main([*argv, "-o", str(out), "--quiet"]) == 0, capsys.readouterr().err
    text = out.read_text()
    d = load_example(as_frame=False)
    ref = mlci.delong_ci(d["is_angry"], d["score_angry"])
    low, high = ref.confidence_interval
    assert (
        f"| score_angry | roc_auc | {ref.estimate:.4f} | {low:.4f} | {high:.4f} | delong |" in text
    )
    t = mlci.delong_test(d["is_angry"], d["score_angry"], d["score_sad"])
    assert f"| score_angry - score_sad | {t.estimate:.4f} |" in text
    assert "DeLong's paired test" in text and "The AUC's intervals are DeLong's" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--method", "delong", "--condition", "speaker"], "independent samples"),
        (["--method", "delong", "--pred", "pred"], "needs scores"),
    ],
)
def test_report_delong_bad_input(tmp_path, capsys, argv, message):
    base = ["report", "--example", "--label", "is_angry", "-o", str(tmp_path / "r.html")]
    if "--pred" not in argv:
        base += ["--score", "score_angry"]
    code = main([*base, *argv])
    err = capsys.readouterr().err
    assert code == 2 and message in err, err


def test_report_group_nested_in_conditions_says_why_in_its_own_column(tmp_path, capsys):
    out = tmp_path / "r.md"
    argv = [*BASE[:4], "--score", "score_angry", "--condition", "speaker", "--group", "session"]
    argv += ["-B", "50", "--seed", "0", "--format", "md", "-o", str(out), "--quiet"]
    assert main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    text = out.read_text()
    header = "| group | system | n | roc_auc | low | high | note |"
    assert header in text
    rows = [ln for ln in text.splitlines() if "| undefined |" in ln]
    assert rows
    for ln in rows:
        cells = [c.strip() for c in ln.strip("|").split("|")]
        assert cells[3:6] == ["undefined", "-", "-"] and "nothing to resample" in cells[6]
    # text columns left-aligned, numbers right-aligned
    assert "| --- | --- | --: | --: | --: | --: | --- |" in text
    # engine words stay out of the report (the "Command:" line echoes sys.argv, which under
    # pytest names the test files, e.g. tests/test_calibration_atoms.py)
    body = "\n".join(ln for ln in text.splitlines() if not ln.startswith("Command:"))
    assert "atoms" not in body and "kernel" not in body


@pytest.mark.filterwarnings("ignore::mlci.IrregularEstimandWarning")  # a near-zero ECE
def test_calibration_table_shows_the_debiased_ece_and_its_plug_in(html_report):
    # the report's ECE is the API's (debiased by default), its plug-in value beside it
    d = load_example(as_frame=False)
    res = mlci.bootstrap_ci(
        d["is_angry"], d["score_angry"], metric="ece", conditions=d["speaker"],
        n_resamples=100, rng=3, method="percentile",
    )  # fmt: skip
    text = re.sub(r"<td class=\"\">", "<td>", html_report.read_text())
    # (a near-zero ECE is flagged "ece *")
    assert f"(plug-in {res.details['plug_in']:.4f})</td><td>{res.estimate:.4f}</td>" in text


@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")  # AP: scores shift
def test_report_reuses_the_comparisons_replicates_with_conditions(monkeypatch):
    # issue 25: with conditions, each system's first metric comes from the paired
    # comparison (the same condition draws): no second bootstrap of it, the same numbers
    d = load_example(as_frame=False)
    systems = {"a": d["score_angry"], "b": d["score_sad"]}
    calls = []
    real = mlci.report.bootstrap_ci

    def counting(*args, **kwargs):
        calls.append(kwargs.get("metric"))
        return real(*args, **kwargs)

    monkeypatch.setattr(mlci.report, "bootstrap_ci", counting)
    opts = dict(kind="score", source="x", conditions=d["speaker"], n_resamples=60, seed=4)
    ctx = mlci.report.build_report(d["is_angry"], systems, method="percentile", **opts)
    assert "roc_auc" not in calls and calls.count("average_precision") == 2
    metrics = next(s for s in ctx["sections"] if s.id == "metrics").tables[0]["rows"]
    for name, scores in systems.items():
        res = real(d["is_angry"], scores, metric="roc_auc", conditions=d["speaker"],
                   n_resamples=60, rng=4, method="percentile")  # fmt: skip
        low, high = res.confidence_interval
        row = [name, "roc_auc", f"{res.estimate:.4f}", f"{low:.4f}", f"{high:.4f}", "percentile"]
        assert row in metrics
    # an interval method as asked says so (not the result's diagnostics as a dict)
    methods = next(s for s in ctx["sections"] if s.id == "methods").tables[0]["rows"]
    assert {r[-1] for r in methods} == {"as asked (--method)"}
    # with method="auto" (the command's default) too: the reason each method was chosen
    # is the one bootstrap_ci gives (mlci.engine.bootstrap.auto_method), the interval the
    # standalone call's, bit for bit
    for method in ("auto", "bca"):
        calls.clear()
        ctx = mlci.report.build_report(d["is_angry"], systems, method=method, **opts)
        assert "roc_auc" not in calls
        tables = {s.id: s.tables[0]["rows"] for s in ctx["sections"] if s.tables}
        for name, scores in systems.items():
            res = real(d["is_angry"], scores, metric="roc_auc", conditions=d["speaker"],
                       n_resamples=60, rng=4, method=method)  # fmt: skip
            low, high = res.confidence_interval
            row = [name, "roc_auc", f"{res.estimate:.4f}", f"{low:.4f}", f"{high:.4f}", res.method]
            assert row in tables["metrics"]
            why = mlci.report._why(res) if method == "auto" else "as asked (--method)"
            assert [name, "roc_auc", res.method, res.scheme, "60", why] in tables["methods"]
        assert all(r[-1].startswith(r[2]) for r in tables["methods"]) or method != "auto"


@pytest.mark.parametrize("method", ["auto", "bca", "percentile"])
def test_reused_systems_equal_the_standalone_calls(method):
    # issue 25: the paired comparison's per-system results, reused by the report, are
    # bootstrap_ci's on the same seed and conditions bit for bit (replicates, interval,
    # method), for scores (roc_auc) and decisions (accuracy: logit_t under "auto")
    from dataclasses import replace

    from mlci.engine.bootstrap import auto_method

    rng = np.random.default_rng(7)
    n, k = 600, 30
    y = rng.integers(0, 2, n)
    spk = rng.integers(0, k, n)
    shift = rng.normal(0, 0.5, k)[spk]
    scores = {f"s{j}": (0.7 + 0.3 * j) * y + shift + rng.normal(0, 1, n) for j in range(3)}
    for metric, systems in (
        ("roc_auc", scores),
        ("accuracy", {nm: (v > 0.5).astype(int) for nm, v in scores.items()}),
    ):
        boot = dict(n_resamples=80, rng=5, method=method, conditions=spk)
        pairs = mlci.compare(y, systems, metric=metric, **boot)
        shared = mlci.report._shared_results(pairs, y, systems, metric, {}, boot)
        assert set(shared) == set(systems)
        for name, out in systems.items():
            alone = mlci.bootstrap_ci(y, out, metric=metric, **boot)
            got = shared[name]
            assert got.method == alone.method
            assert got.confidence_interval == alone.confidence_interval
            assert np.array_equal(got.bootstrap_distribution, alone.bootstrap_distribution)
            assert got.details.get("method_reason") == alone.details.get("method_reason")
            if method == "auto":
                assert auto_method(y, out, metric=metric, conditions=spk)[0] == alone.method
    # under "auto", a system whose method the comparison chose otherwise is left out
    # (computed apart); an asked method is the comparison's for every system
    res = next(iter(pairs.systems.values()))
    other = replace(pairs, systems={"s0": replace(res, method="bca")})
    kept = mlci.report._shared_results(other, y, systems, "accuracy", {}, boot)
    assert kept == ({} if method == "auto" else other.systems)


def test_auto_method_checks_its_metric():
    from mlci.engine.bootstrap import auto_method

    with pytest.raises(TypeError, match="`metric` must be a metric name"):
        auto_method([0, 1], [0, 1], metric=len)
    with pytest.raises(ValueError, match="takes 2 per-sample array"):
        auto_method([0, 1], metric="accuracy")


@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")  # AP: scores shift
def test_report_curves_over_conditions_from_one_set_of_replicates(monkeypatch):
    # issue 25: with conditions both bands of a system come from one set of replicates
    # (mlci.scores.decisions.roc_pr_bands, equal to roc_band and pr_band bit for bit:
    # tests/scores/test_decisions.py); without conditions the two calls as before
    d = load_example(as_frame=False)
    systems = {"a": d["score_angry"], "b": d["score_sad"]}
    calls = []
    for name in ("roc_pr_bands", "roc_band", "pr_band"):
        real = getattr(mlci.report, name)
        monkeypatch.setattr(
            mlci.report, name, lambda *a, _f=real, _n=name, **k: calls.append(_n) or _f(*a, **k)
        )
    opts = dict(kind="score", source="x", n_resamples=40, seed=4, method="percentile")
    mlci.report.build_report(d["is_angry"], systems, conditions=d["speaker"], **opts)
    assert calls == ["roc_pr_bands", "roc_pr_bands"]
    calls.clear()
    mlci.report.build_report(d["is_angry"], systems, **opts)
    assert sorted(calls) == ["pr_band", "pr_band", "roc_band", "roc_band"]


def test_build_report_defaults_to_the_commands_method():
    # one resolution (issue 20): build_report's default method is the command's (auto),
    # not BCa: the API call follows the path `mlci report` takes
    import inspect

    from mlci.cli.common import default_method

    default = inspect.signature(mlci.report.build_report).parameters["method"].default
    assert default == default_method() == "auto"
