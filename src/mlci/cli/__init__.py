"""The ``mlci`` command: intervals, comparisons, score analyses and reports from a file.

A thin shell over the Python API (no statistics here)::

    mlci ci preds.csv --label label --pred pred --condition speaker --metric accuracy,f1 \\
        --average macro --seed 0
    mlci ci --example --metric accuracy --condition speaker     # the bundled example data
    mlci compare preds.csv --label y --systems a,b,c --metric accuracy --test bootstrap
    mlci scores preds.csv --label y --score s --p-target 0.01   # EER, DCF, Cllr, curves
    mlci datasets results.csv --dataset-column dataset          # Friedman, Nemenyi, CD
    mlci metrics                                                # the built-in metrics
    mlci example                                                # where the example is

**Adding a subcommand** is one module ``mlci/cli/<name>.py`` with a function
``add_<name>(subparsers)`` that builds its parser and sets ``handler=``, and one entry
in :data:`COMMANDS` below (``_adder(".name", "add_name")``: the module is imported only
when its parser is built, and ``mlci name ...`` builds only its own).  An option shared
by several subcommands (e.g. an engine choice) goes in :mod:`mlci.cli.common` next to
``add_output_arguments``.

User errors print one line ``mlci: error: ...`` and exit with status 2 (set
``MLCI_DEBUG=1`` to see the traceback instead); a closed pipe (``mlci ... | head``)
exits quietly.  Every command prints ``--format table|csv|md|json``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

#: the variables a multi-threaded BLAS reads when numpy loads it (OpenBLAS, OpenMP, MKL)
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _one_blas_thread_for_mt(argv: Sequence[str]) -> bool:
    """``mlci mt ...``: numpy's BLAS starts with one thread (``OPENBLAS_NUM_THREADS=1``).

    The MT commands' matrix products are a few columns of sentence statistics; a pool of
    BLAS threads costs CPU to start and spins after each product (``threadpoolctl``'s
    limit during the bootstrap comes after the pool exists).  Set before numpy is
    imported, only when the user set none of :data:`BLAS_THREAD_VARIABLES`.  Measured with
    ``benchmarks/bench_mt.py`` (3,000 segments, idle machine, CPU time over sacreBLEU's
    plain scoring, without -> with): ``mt ci`` 1.84x -> 1.37x, ``mt compare`` 1.63x ->
    1.30x, ``mt compare -B 10000`` 2.30x -> 2.00x, ``--documents`` 1.57-1.80x ->
    1.25-1.46x; docs/mt.md.
    """
    if list(argv[:1]) != ["mt"] or "numpy" in sys.modules:
        return False
    if any(v in os.environ for v in BLAS_THREAD_VARIABLES):
        return False
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    return True


def _gc_paused_for_mt(argv: Sequence[str]) -> bool:
    """``mlci mt ...`` runs with the cyclic garbage collector paused from its first import.

    The command pauses it while it runs (:func:`mlci.mt.stats.gc_paused`: sacreBLEU's
    n-gram containers, no cycles); before that, numpy's and mlci's imports trigger ~70
    collections that find nothing to free: 0.008-0.01 s of CPU (imports 0.135 -> 0.127 s
    at load 13), about 2% of issue 24's 1.5x budget.  The process ends when the command
    does (``main()`` then freezes the objects), so the collector is not turned back on.
    """
    if list(argv[:1]) != ["mt"] or not gc.isenabled():
        return False
    gc.disable()
    return True


#: True when this process's BLAS started with one thread (``mlci mt ...``, above): the
#: commands then need no thread limit of their own (``threadpoolctl``, ~3 ms a call)
_BLAS_ONE_THREAD = _one_blas_thread_for_mt(sys.argv[1:])
_gc_paused_for_mt(sys.argv[1:])

# numpy loads with these imports: after the BLAS setting above
from .. import __version__  # noqa: E402
from ..feedback import progress_bar  # noqa: E402
from .common import (  # noqa: E402
    OPTIONS,
    CLIError,
    _one_line,
    _Parser,
    cli_message,
    json_safe,
    print_json,
)
from .info import EXAMPLE_COMMANDS  # noqa: E402

__all__ = [
    "COMMANDS",
    "EXAMPLE_COMMANDS",
    "OPTIONS",
    "SUMMARIES",
    "CLIError",
    "build_parser",
    "cli_message",
    "json_safe",
    "main",
    "print_json",
]


def _adder(module: str, function: str) -> Callable[[Any], Any]:
    """The function ``module.function`` that adds a subcommand's parser, imported when
    called: ``mlci ci ...`` then imports only what ``ci`` needs (not matplotlib, jinja2,
    the LLM readers or the other subcommands' modules)."""

    def add(subparsers: Any) -> Any:
        return getattr(importlib.import_module(module, __name__), function)(subparsers)

    add.__name__ = add.__qualname__ = function
    return add


#: THE table of subcommands: name -> function adding its parser (in ``mlci --help`` order)
COMMANDS: dict[str, Callable[[Any], Any]] = {
    "ci": _adder(".ci", "add_ci"),
    "compare": _adder(".compare", "add_compare"),
    "scores": _adder(".scores", "add_scores"),
    "datasets": _adder(".datasets", "add_datasets"),
    "agreement": _adder(".fields", "add_agreement"),
    "correlate": _adder(".fields", "add_correlate"),
    "report": _adder(".report", "add_report"),
    "metrics": _adder(".info", "add_metrics"),
    "example": _adder(".info", "add_example"),
    "llm": _adder(".llm", "add_llm"),
    "mt": _adder(".mt", "add_mt"),
    "ir": _adder(".ir", "add_ir"),
}


#: every subcommand's one-line help, as its own parser gives it: ``mlci --help`` (and a
#: line that names no subcommand) lists these without importing the subcommands' modules
#: (about 1 s of scipy.stats, the engine... otherwise); a test checks they stay the same
SUMMARIES: dict[str, str] = {
    "ci": "confidence intervals for one or more metrics of one or more columns",
    "compare": "compare systems on the same test set (paired bootstrap, permutation, DeLong, "
    "McNemar; adjusted p-values)",
    "scores": "detection scores: AUC, EER, DCF, Cllr, rates at thresholds, per-group metrics",
    "datasets": "many methods over many data sets: Friedman, Nemenyi/Holm, CD diagram",
    "agreement": "inter-rater agreement: Krippendorff's alpha, Fleiss' kappa, with intervals",
    "correlate": "metric meta-evaluation: correlation with human scores (systems x items)",
    "report": "write a finished evaluation report (self-contained HTML, or markdown)",
    "metrics": "list the built-in metrics",
    "example": "describe the bundled example data and print commands to try",
    "llm": "language-model evaluations: intervals, comparisons, planning from eval logs",
    "mt": "machine translation: corpus BLEU/chrF intervals and paired tests from text files",
    "ir": "information retrieval: nDCG, MAP, MRR... with intervals over queries",
}


def __getattr__(name: str) -> Any:
    """The subcommand modules (``mlci.cli.ci``, ...) as attributes, imported on first use."""
    if name in {"ci", "compare", "scores", "datasets", "report", "info", "common"}:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_parser(command: str | None = None, *, summaries: bool = False) -> argparse.ArgumentParser:
    """The ``mlci`` argument parser with every subcommand of :data:`COMMANDS`, or with
    only ``command`` (what :func:`main` parses when it is named first on the line);
    ``summaries=True``: every subcommand as its one-line help only (:data:`SUMMARIES`,
    what ``mlci --help`` prints), no subcommand module imported."""
    parser = _Parser(
        prog="mlci",
        description="Honest evaluation of ML systems: confidence intervals and tests "
        "for any metric.",
    )
    parser.add_argument("--version", action="version", version=f"mlci {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, add in COMMANDS.items():
        if summaries:
            sub.add_parser(name, help=SUMMARIES[name])
        elif command is None or name == command:
            add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``mlci`` command; returns the exit status (0 ok, 2 user error).

    Examples
    --------
    >>> main(["ci", "--example", "--metric", "accuracy", "-B", "200", "--seed", "0",
    ...       "--method", "percentile"])  # doctest: +NORMALIZE_WHITESPACE
    # example (emotion_example.csv): 1501 samples; 95% intervals from 200 resamples (iid); seed 0
    metric    estimate     low    high  method         n  conditions
    accuracy    0.6669  0.6456  0.6922  percentile  1501           -
    0
    """
    if argv is None:  # the process's own command line: it ends when this returns
        try:
            return main(sys.argv[1:])
        finally:
            # the interpreter's final collections would walk every object of numpy,
            # scipy and the data (0.17 of 1.04 s CPU for `mlci mt ci` on 3,000 segments):
            # frozen, they are only freed (a cycle among them is left to the exit)
            gc.freeze()
    argv = list(argv)
    if argv and argv[0] in COMMANDS:
        parser = build_parser(argv[0])
    else:  # no subcommand named: help, --version, or an error that lists the subcommands
        parser = build_parser(summaries=True)
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return _run(handler, args)
    except BrokenPipeError:
        # the reader went away (`mlci ci ... | head -1`): stop quietly, as Unix tools do;
        # stdout goes to devnull so that the interpreter's final flush does not complain
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141  # 128 + SIGPIPE, the status of a Unix tool in that case


def _handle(handler: Callable[[argparse.Namespace], Any], args: argparse.Namespace) -> int:
    """Run the subcommand inside a progress bar (stderr, terminals only, after ~2 s;
    ``--quiet`` turns it off; ``MLCI_PROGRESS_DELAY`` sets the delay in seconds)."""
    with progress_bar(enabled=not getattr(args, "quiet", False)):
        status = int(handler(args) or 0)
    sys.stdout.flush()
    return status


def _run(handler: Callable[[argparse.Namespace], Any], args: argparse.Namespace) -> int:
    if os.environ.get("MLCI_DEBUG"):
        return _handle(handler, args)
    try:
        return _handle(handler, args)
    except BrokenPipeError:
        raise
    except CLIError as exc:
        print(f"mlci: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as exc:
        print(f"mlci: error: {cli_message(str(exc)) or type(exc).__name__}", file=sys.stderr)
        return 2
    except (OSError, ImportError) as exc:
        print(f"mlci: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mlci: interrupted", file=sys.stderr)
        return 130
