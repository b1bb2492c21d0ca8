"""Start-up time: what ``import mlci`` and ``mlci ci`` import, and the scipy.special
formulas that replaced scipy.stats on those paths (the same numbers to the last bit).

``import mlci`` resolves its public names on first use (``mlci.__getattr__``) and the
command imports only the subcommand it runs; scipy.stats (about 0.5 s), pandas, pyarrow,
matplotlib and the out-of-core engines are imported by the functions that need them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import special, stats

import mlci
from mlci.classical.pvalues import normal_pvalue, t_pvalue, t_pvalues
from mlci.intervals.bootstrap import t_interval

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
DF = (1.0, 2.0, 3.5, 9.0, 29.0, 250.0, 1e6, np.inf)


def test_normal_quantile_is_scipy_stats():
    # proportions' z and the engine's intervals use special.ndtri for stats.norm.ppf
    np.testing.assert_array_equal(special.ndtri(P), stats.norm.ppf(P))
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
    np.testing.assert_array_equal(t_pvalues(Z, df, "two-sided"), 2 * stats.t.sf(np.abs(Z), df))
    np.testing.assert_array_equal(t_pvalues(Z, df, "greater"), stats.t.sf(Z, df))
    np.testing.assert_array_equal(t_pvalues(Z, df, "less"), stats.t.cdf(Z, df))
    assert t_pvalue(1.7, df, "greater") == stats.t.sf(1.7, df)


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
