"""Start-up time: what ``import mlci``, ``mlci ci`` and ``mlci mt compare`` import, and the
formulas that replaced scipy.stats (and scipy.special) on those paths.

``import mlci`` resolves its public names on first use (``mlci.__getattr__``) and the
command imports only the subcommand it runs; scipy.stats (about 0.5 s), pandas, pyarrow,
matplotlib and the out-of-core engines are imported by the functions that need them.
The normal quantile is Cephes' ``ndtri`` in Python: scipy.special.ndtri to the last bit.
Student's t tail and quantile (finite df up to 1e5) are mlci's own: within 1e-15 of
mpmath's 40-digit values (1e-14 above 3e4 df), and within 5e-13 of scipy.stats.t, the less
accurate of the two at large df (scipy.stats.t.sf(1.58, 2999) is 3e-13 off).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pytest
from scipy import special, stats

import mlci
from mlci.classical.pvalues import normal_pvalue, t_pvalue, t_pvalues
from mlci.intervals.bootstrap import t_interval
from mlci.intervals.formulas import normal_quantile, student_t_quantile, student_t_tail

SRC = Path(__file__).resolve().parents[1] / "src"

#: heavy modules that neither ``import mlci`` nor a plain ``mlci ci`` may import
HEAVY = (
    "scipy.stats",
    "scipy.optimize",
    "pandas",
    "polars",
    "duckdb",
    "narwhals",
    "dask",
    "pyspark",
    "matplotlib",
    "jinja2",
    "sklearn",
    "statsmodels",
)


def modules_after(code: str) -> set[str]:
    """The names in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True
    )
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def test_import_mlci_imports_nothing_heavy():
    loaded = modules_after("import mlci")
    assert not {*HEAVY, "pyarrow", "scipy"} & loaded


def test_mlci_ci_imports_only_what_it_needs(tmp_path):
    path = tmp_path / "preds.csv"
    path.write_text("label,pred\n" + "".join(f"{i % 3},{i % 2}\n" for i in range(60)))
    for method in ("auto", "bca", "wilson"):
        loaded = modules_after(
            "from mlci.cli import main; import contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main(['ci', {str(path)!r}, '--label', 'label', '--pred', 'pred',"
            f" '--metric', 'accuracy', '--method', {method!r}, '-B', '50', '--seed', '0']) == 0"
        )
        assert not set(HEAVY) & loaded, method
        assert "mlci.cli.ci" in loaded
        others = {"mlci.cli.compare", "mlci.cli.scores", "mlci.cli.report", "mlci.llm"}
        assert not others & loaded, method


@pytest.mark.parametrize("documents", [False, True])
def test_mlci_mt_compare_imports_no_scipy(tmp_path, documents):
    # `mlci mt compare` with its default (mlci's paired bootstrap: studentized systems, t
    # differences with their p-values) and `mlci mt ci`: scipy.special (0.18 s of CPU with
    # the array-API modules it loads) and scipy.sparse are a fifth of the command against
    # issue 24's 1.5x sacreBLEU target; the quantiles and t tails are intervals.formulas'
    from mlci.mt import synthetic_corpus

    # (tests/mt/test_mt_cli.py runs `compare` on 2,100 segments: above 2,000 joint atoms)
    c = synthetic_corpus(400, rng=0)
    files = {name: tmp_path / f"{name}.txt" for name in ("ref", "sys0", "sys1", "docs")}
    files["ref"].write_text("\n".join(c.references[0]) + "\n", encoding="utf-8")
    for name in ("sys0", "sys1"):
        files[name].write_text("\n".join(c.systems[name]) + "\n", encoding="utf-8")
    files["docs"].write_text("\n".join(f"d{d}" for d in c.documents) + "\n")
    docs = ["--documents", str(files["docs"])] if documents else []
    ref = ["-r", str(files["ref"])]
    for argv in (
        ["mt", "compare", *ref, "-i", str(files["sys0"]), str(files["sys1"]), *docs],
        ["mt", "ci", *ref, "-i", str(files["sys0"]), *docs],
    ):
        loaded = modules_after(
            "from mlci.cli import main; import contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main({[*argv, '-B', '200', '--seed', '0']!r}) == 0"
        )
        assert "mlci.engine.bootstrap" in loaded
        assert not {m for m in loaded if m == "scipy" or m.startswith("scipy.")}, argv


@pytest.mark.parametrize("command", ["compare", "ci"])
def test_mlci_mt_bca_imports_no_scipy_special(tmp_path, command):
    # `mlci mt compare/ci --method bca` (review of session 8): BCa's bias correction and
    # adjusted tail probabilities read intervals.formulas' normal quantile and distribution
    # function, not scipy.special (0.10-0.18 s of start-up; docs/performance.md).  The
    # jackknife behind BCa's acceleration still builds its removed counts with scipy.sparse
    from mlci.mt import synthetic_corpus

    c = synthetic_corpus(400, rng=0)
    files = {name: tmp_path / f"{name}.txt" for name in ("ref", "sys0", "sys1")}
    files["ref"].write_text("\n".join(c.references[0]) + "\n", encoding="utf-8")
    for name in ("sys0", "sys1"):
        files[name].write_text("\n".join(c.systems[name]) + "\n", encoding="utf-8")
    hyps = [str(files["sys0"]), str(files["sys1"])][: 2 if command == "compare" else 1]
    argv = ["mt", command, "-r", str(files["ref"]), "-i", *hyps, "--method", "bca"]
    loaded = modules_after(
        "from mlci.cli import main; import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({[*argv, '-B', '200', '--seed', '0']!r}) == 0"
    )
    assert "mlci.intervals.bootstrap" in loaded
    assert not {m for m in loaded if m.startswith("scipy.special")}, argv
    assert not {m for m in loaded if m.startswith("scipy.stats")}, argv


def test_normal_cdf_is_scipy_special():
    # the math module's erf/erfc in Cephes' ndtr against scipy.special.ndtr: 2.3e-16
    # absolute, 6e-14 relative above ndtr's subnormal range (x >= -37.5), where both are
    # that far from mpmath (the rounding of x / sqrt 2 amplified x^2 times)
    from mlci.intervals.formulas import _ndtr1, normal_cdf

    x = np.r_[np.linspace(-37.5, 40.0, 77501), -np.logspace(-300, 1, 301), 0.0, np.inf, -np.inf]
    mine = np.array([_ndtr1(v) for v in x.tolist()])
    ref = special.ndtr(x)
    np.testing.assert_allclose(mine, ref, rtol=6e-14, atol=0)
    assert np.max(np.abs(mine - ref)) <= 2.3e-16
    assert _ndtr1(1.959963984540054) == 0.975 and np.isnan(_ndtr1(float("nan")))
    # loaded (as here) or for large arrays, scipy.special's own
    np.testing.assert_array_equal(normal_cdf(x), ref)
    # BCa's tail probabilities at the level of a 95% interval: identical within 1e-12
    z = np.linspace(-6, 6, 1201)
    for za in (-1.959963984540054, 1.959963984540054):
        for a in (-0.1, 0.0, 0.05, 0.2):
            q = z + (z + za) / (1 - a * (z + za))
            np.testing.assert_allclose(
                [_ndtr1(v) for v in q.tolist()], special.ndtr(q), atol=1e-12, rtol=0
            )


def test_bca_interval_unchanged_without_scipy_special(tmp_path):
    # the same BCa interval with scipy.special loaded (its ndtr/ndtri) and without (the
    # math module's): within 1e-12, on a seeded MT corpus through the CLI's JSON
    from mlci.mt import synthetic_corpus

    c = synthetic_corpus(300, rng=1)
    files = {name: tmp_path / f"{name}.txt" for name in ("ref", "sys0")}
    files["ref"].write_text("\n".join(c.references[0]) + "\n", encoding="utf-8")
    files["sys0"].write_text("\n".join(c.systems["sys0"]) + "\n", encoding="utf-8")
    argv = ["mt", "ci", "-r", str(files["ref"]), "-i", str(files["sys0"]), "--method", "bca"]
    argv += ["-B", "300", "--seed", "2", "--json"]
    outs = []
    for pre in ("", "import scipy.special\n"):
        code = (
            f"{pre}from mlci.cli import main; import contextlib, io, sys\n"
            "buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf):\n"
            f"    assert main({argv!r}) == 0\n"
            "print(buf.getvalue(), file=sys.stderr)"
        )
        env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        proc = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outs.append(json.loads(proc.stderr[proc.stderr.index("[") :]))
    ours, theirs = (o[0] if isinstance(o, list) else o for o in outs)
    assert ours["method"] == theirs["method"] == "bca"
    lo, hi = ours["confidence_interval"]["low"], ours["confidence_interval"]["high"]
    assert lo == pytest.approx(theirs["confidence_interval"]["low"], abs=1e-12, rel=0)
    assert hi == pytest.approx(theirs["confidence_interval"]["high"], abs=1e-12, rel=0)


def test_lazy_names_behave_like_imports():
    # every public name resolves, to the object its module defines, and dir() lists it
    for name in mlci.__all__:
        obj = getattr(mlci, name)
        assert obj is not None
    assert set(mlci.__all__) <= set(dir(mlci))
    assert mlci.__all__ == sorted(mlci.__all__)
    from mlci import Scores, bootstrap_ci
    from mlci.engine.bootstrap import bootstrap_ci as defined
    from mlci.scores.scores import Scores as defined_class

    assert bootstrap_ci is defined and Scores is defined_class
    assert mlci.scores.__name__ == "mlci.scores"  # subpackages stay reachable as attributes
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        _ = mlci.not_a_name


def test_cli_parser_of_one_command_is_the_full_parsers():
    from mlci.cli import build_parser

    def sub(parser, name):
        action = next(a for a in parser._actions if a.dest == "command")
        return action.choices[name]

    full, only = build_parser(), build_parser("ci")
    assert sub(full, "ci").format_help() == sub(only, "ci").format_help()


P = np.concatenate([np.linspace(1e-9, 1 - 1e-9, 4001), [0.5, 0.9, 0.95, 0.975, 0.995]])
Z = np.linspace(-40.0, 40.0, 4001)
DF = (1.0, 2.0, 3.5, 9.0, 29.0, 250.0, 2999.0, 1e5, 1e6, np.inf)
#: a dense grid of probabilities with both tails, down to 1e-300 and up to 1 - 1e-16
P_TAILS = np.concatenate(
    [
        np.linspace(0.0, 1.0, 200_001),
        np.logspace(-300, -1, 20_000),
        1.0 - np.logspace(-16, -1, 5_000),
        np.random.default_rng(0).random(50_000),
    ]
)


def test_normal_quantile_is_scipy_stats():
    # proportions' z and the engine's intervals: Cephes' ndtri in Python, scipy's to the bit
    np.testing.assert_array_equal(special.ndtri(P), stats.norm.ppf(P))
    np.testing.assert_array_equal(normal_quantile(P_TAILS), special.ndtri(P_TAILS))
    assert normal_quantile(0.975) == special.ndtri(0.975)
    assert np.isnan(normal_quantile([-0.1, 1.5, np.nan])).all()
    for level in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999):
        z = stats.norm.ppf(1 - (1 - level) / 2)
        ci = mlci.proportion_ci(37, 50, method="wald", confidence_level=level)
        np.testing.assert_allclose(
            ci.confidence_interval, 0.74 + np.array([-z, z]) * np.sqrt(0.74 * 0.26 / 50), rtol=1e-12
        )


@pytest.mark.parametrize("df", DF)
def test_t_quantile_and_pvalues_are_scipy_stats(df):
    for level in (0.5, 0.9, 0.95, 0.99):
        q = stats.t.ppf(1 - (1 - level) / 2, df)
        low, high, _ = t_interval(0.3, 0.02, df, confidence_level=level)
        np.testing.assert_allclose([low, high], [0.3 - q * 0.02, 0.3 + q * 0.02], rtol=1e-12)
    np.testing.assert_array_equal(special.stdtrit(df, P), stats.t.ppf(P, df))
    pairs = [
        (t_pvalues(Z, df, "two-sided"), 2 * stats.t.sf(np.abs(Z), df)),
        (t_pvalues(Z, df, "greater"), stats.t.sf(Z, df)),
        (t_pvalues(Z, df, "less"), stats.t.cdf(Z, df)),
        (student_t_quantile(P, df), stats.t.ppf(P, df)),
    ]
    if df > 1e5:  # scipy.special's (imported then): the same numbers to the last bit
        for ours, scipy_stats in pairs:
            np.testing.assert_array_equal(ours, scipy_stats)
    else:  # mlci's (test_student_t_is_mpmath): within scipy's own error
        for ours, scipy_stats in pairs[:3]:
            np.testing.assert_allclose(ours, scipy_stats, rtol=5e-13, atol=1e-300)
        # the quantile near the median: t ~ (p - 1/2) / f(0), scipy's tail error magnified
        ours, scipy_stats = pairs[3]
        np.testing.assert_allclose(ours, scipy_stats, rtol=5e-13, atol=1e-15)
    assert t_pvalue(1.7, df, "greater") == pytest.approx(stats.t.sf(1.7, df), rel=5e-13)


def _mp_tail(t: float, df: float) -> mpmath.mpf:
    """P(T > t) with 40 digits: mpmath's regularized incomplete beta function."""
    nu, t = mpmath.mpf(df), mpmath.mpf(t)
    if t == 0:
        return mpmath.mpf(0.5)
    upper = mpmath.betainc(nu / 2, mpmath.mpf(0.5), 0, nu / (nu + t * t), regularized=True) / 2
    return upper if t > 0 else 1 - upper


def _mp_density(t: float, df: float) -> mpmath.mpf:
    nu, t = mpmath.mpf(df), mpmath.mpf(t)
    return mpmath.exp(
        mpmath.loggamma((nu + 1) / 2)
        - mpmath.loggamma(nu / 2)
        - mpmath.log(nu * mpmath.pi) / 2
        - (nu + 1) / 2 * mpmath.log1p(t * t / nu)
    )


@pytest.mark.skipif(
    np.finfo(np.longdouble).eps > 1e-18, reason="no extended long double: scipy's Student t"
)
@pytest.mark.parametrize("df", (0.3, 1.0, 2.0, 3.5, 9.0, 29.0, 129.0, 2999.0, 3e4, 1e5))
def test_student_t_is_mpmath(df):
    # the tail within 1e-15 of 40 digits (1e-14 above 3e4 df: the continued fraction in
    # long double loses about df ulps of it near t^2 = 3) from the far lower tail to the
    # far upper one (scipy.special.stdtr: up to 3e-13 off at 2,999 df; 3e-9 at df = 1,
    # t = 1e-8)
    tol = 1e-15 if df <= 3e4 else 1e-14
    with mpmath.workdps(40):
        top = 60.0 if df < 1e4 else 12.0  # (mpmath's own series stop converging beyond)
        ts = np.concatenate([np.linspace(-top, top, 81), np.logspace(-8, 3 if df < 1e4 else 1, 21)])
        ours = student_t_tail(ts, df)
        for t, v in zip(ts.tolist(), ours.tolist(), strict=True):
            exact = _mp_tail(t, df)
            if exact > 1e-300:
                assert abs(mpmath.mpf(v) - exact) <= tol * exact, (t, df)
        # the quantile: its tail is p within the same tolerance, plus what rounding the
        # quantile to a float moves the tail (half an ulp of it times the density)
        ps = np.concatenate([np.logspace(-250, -1, 26), [0.2, 0.4, 0.45, 0.499]])
        for p, q in zip(ps.tolist(), student_t_quantile(ps, df).tolist(), strict=True):
            if np.isfinite(q):
                rounding = float(np.spacing(abs(q))) * _mp_density(q, df)
                assert abs(_mp_tail(-q, df) - p) <= tol * p + rounding, (p, df)
            else:  # beyond the largest float: only with df < 1
                assert df < 1 and q == -np.inf
        dyadic = np.array([2.0**-30, 0.125, 0.25, 0.375])  # (1 - p exact)
        np.testing.assert_array_equal(
            student_t_quantile(1 - dyadic, df), -student_t_quantile(dyadic, df)
        )


def test_student_t_edges():
    # the edges, as scipy.special gives them
    assert student_t_quantile(0.5, 7) == 0.0 and student_t_tail(0.0, 7) == 0.5
    np.testing.assert_array_equal(student_t_quantile([0.0, 1.0], 4), [-np.inf, np.inf])
    np.testing.assert_array_equal(student_t_tail([-np.inf, np.inf], 4), [1.0, 0.0])
    assert np.isnan(student_t_quantile([-0.5, 1.5, np.nan], 4)).all()
    assert np.isnan(student_t_tail(np.nan, 4)) and np.isnan(student_t_tail(1.0, np.nan))
    assert np.isnan(student_t_tail(1.0, 0.0)) and np.isnan(student_t_quantile(0.3, -2.0))
    # broadcasting and shapes: scalars stay scalars, arrays keep their shape
    out = student_t_tail(np.array([[0.5], [1.5]]), np.array([3.0, 30.0, 3e5]))
    assert out.shape == (2, 3) and np.ndim(student_t_tail(1.0, 3)) == 0
    np.testing.assert_allclose(out, stats.t.sf([[0.5], [1.5]], [3.0, 30.0, 3e5]), rtol=1e-14)


def test_normal_pvalues_are_scipy_stats():
    for z in Z[::40]:
        assert normal_pvalue(z, "two-sided") == 2 * stats.norm.sf(abs(z))
        assert normal_pvalue(z, "greater") == stats.norm.sf(z)
        assert normal_pvalue(z, "less") == stats.norm.cdf(z)


def test_mlci_help_lists_the_subcommands_without_importing_them():
    # `mlci --help` prints every subcommand's one-line help from mlci.cli.SUMMARIES, the
    # same words as the subcommands' own parsers (checked here), without importing them
    # (1.06 s CPU before, with scipy.stats and the engine; issue 24's start-up times)
    import argparse

    from mlci.cli import COMMANDS, SUMMARIES, build_parser

    def helps(parser):
        (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return {a.dest: a.help for a in sub._choices_actions}

    assert list(SUMMARIES) == list(COMMANDS)
    assert helps(build_parser(summaries=True)) == helps(build_parser()) == SUMMARIES
    loaded = modules_after(
        "from mlci.cli import main; import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        main(['--help'])\n    except SystemExit:\n        pass"
    )
    assert not {*HEAVY, "scipy"} & loaded
    assert not {m for m in loaded if m.startswith(("mlci.cli.", "mlci.engine"))} - {
        "mlci.cli.common",
        "mlci.cli.info",
    }
