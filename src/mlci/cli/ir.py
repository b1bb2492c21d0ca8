"""The ``mlci ir`` subcommands: IR measures with intervals over queries, run comparisons.

::

    mlci ir ci --qrels qrels.txt bm25.run dense.run --measure ndcg@10,map --seed 0
    mlci ir compare --qrels qrels.txt bm25.run dense.run hybrid.run --test t
    mlci ir compare --example --test permutation --reference bm25

Runs and qrels are TREC files (:mod:`mlci.ir.readers`); a run is named by its file name
without the extension.  A thin shell over :mod:`mlci.ir`: no statistics here.
"""

from __future__ import annotations

import argparse
import os
import secrets
from typing import Any

from ..classical.corrections import CORRECTION_METHODS
from ..cli.common import (
    CLIError,
    Output,
    OutTable,
    add_output_arguments,
    cli_message,
    comparison_tables,
    emit,
)
from ..data import ir_example_paths
from ..inputs import INTERVAL_METHODS
from ..ir.api import TESTS, ir_ci, ir_compare
from ..ir.measures import MISSING
from ..ir.readers import read_qrels, read_run

__all__ = ["add_ir"]

IR_OPTIONS = {
    "run": "RUNS",
    "runs": "RUNS",
    "qrels": "--qrels",
    "measure": "--measure",
    "measures": "--measure",
    "missing": "--missing",
    "variant": "--test",
    "reference": "--reference",
    "n_resamples": "--n-resamples",
    "rng": "--seed",
    "method": "--method",
    "confidence_level": "--confidence-level",
    "correction": "--correction",
}


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("runs", nargs="*", metavar="RUNS", help="TREC run files")
    p.add_argument("--qrels", metavar="FILE", help="TREC qrels file")
    p.add_argument("--example", action="store_true", help="the bundled example (3 runs)")
    p.add_argument(
        "--measure",
        default="ndcg@10",
        metavar="M[,M]",
        help="ndcg@10, map, mrr, p@10, recall@100...",
    )
    p.add_argument(
        "--missing",
        default="zero",
        choices=MISSING,
        help="judged queries a run does not answer: score 0 (default), drop, or error",
    )
    p.add_argument("-B", "--n-resamples", type=int, metavar="N")
    p.add_argument("--seed", type=int, metavar="S")


def add_ir(sub: Any) -> None:
    """Add ``mlci ir`` (``ci`` and ``compare``) to the ``mlci`` parser."""
    p = sub.add_parser(
        "ir",
        help="information retrieval: nDCG, MAP, MRR... with intervals over queries",
        description="IR measures from TREC runs and qrels (computed by ir_measures), "
        "intervals with queries as the unit, paired comparisons of runs.",
    )
    ir_sub = p.add_subparsers(dest="ir_command", metavar="SUBCOMMAND", required=True)
    c = ir_sub.add_parser("ci", help="every run's measure with an interval")
    _common(c)
    c.add_argument("--method", default="auto", choices=INTERVAL_METHODS)
    c.add_argument("--confidence-level", type=float, default=0.95, metavar="L")
    add_output_arguments(c)
    c.set_defaults(handler=_run, ir_run=_run_ci)
    k = ir_sub.add_parser("compare", help="paired comparison of runs")
    _common(k)
    k.add_argument("--test", default="bootstrap", choices=TESTS)
    k.add_argument("--reference", metavar="RUN", help="compare every run to this one only")
    k.add_argument("--correction", default="holm", choices=CORRECTION_METHODS)
    k.add_argument("--method", default="auto", choices=INTERVAL_METHODS)
    k.add_argument("--confidence-level", type=float, default=0.95, metavar="L")
    add_output_arguments(k)
    k.set_defaults(handler=_run, ir_run=_run_compare)


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.ir_run(args) or 0)
    except CLIError:
        raise
    except (ValueError, TypeError, OSError) as exc:
        raise CLIError(cli_message(str(exc), IR_OPTIONS)) from exc


def _load(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    if args.example:
        if args.runs or args.qrels:
            raise CLIError("--example replaces RUNS and --qrels; drop them.")
        p = ir_example_paths()
        paths = {k: str(v) for k, v in p["runs"].items()}
        qrels_path = str(p["qrels"])
    else:
        if not args.runs or args.qrels is None:
            raise CLIError("give TREC run files (RUNS) and --qrels FILE, or --example.")
        paths = {}
        for r in args.runs:
            name = os.path.basename(r)
            name = name[: -len(".gz")] if name.endswith(".gz") else name
            name = os.path.splitext(name)[0] or name
            if name in paths:
                raise CLIError(f"two runs are named {name!r} (file name without extension).")
            paths[name] = r
        qrels_path = args.qrels
    runs = {k: read_run(v, name="run") for k, v in paths.items()}
    return runs, read_qrels(qrels_path, name="qrels")


def _measures(args: argparse.Namespace) -> list[str]:
    names = [m.strip() for m in args.measure.split(",") if m.strip()]
    if not names:
        raise CLIError("--measure is empty; e.g. --measure ndcg@10,map.")
    return names


def _seed(args: argparse.Namespace) -> int:
    return args.seed if args.seed is not None else secrets.randbelow(2**31)


def _run_ci(args: argparse.Namespace) -> int:
    runs, qrels = _load(args)
    seed = _seed(args)
    n = args.n_resamples if args.n_resamples is not None else 1000
    table = OutTable(None, ["run", "measure", "estimate", "low", "high", "method", "queries"])
    data = []
    for m in _measures(args):
        for name, run in runs.items():
            res = ir_ci(
                run,
                qrels,
                measure=m,
                missing=args.missing,
                n_resamples=n,
                rng=seed,
                method=args.method,
                confidence_level=args.confidence_level,
            )
            low, high = res.confidence_interval
            table.rows.append(
                [name, res.metric, res.estimate, low, high, res.method, res.n_samples]
            )
            data.append({"run": name, **res.to_dict()})
    notes = [
        f"{args.confidence_level:.0%} intervals over queries from {n} resamples; seed {seed}; "
        f"unanswered judged queries: {args.missing}"
    ]
    return emit(Output(notes, [table], data=data), args)


def _run_compare(args: argparse.Namespace) -> int:
    runs, qrels = _load(args)
    if args.reference is not None and args.reference not in runs:
        raise CLIError(f"--reference {args.reference!r} is not one of the runs {sorted(runs)}.")
    seed = _seed(args)
    tables, data, notes = [], [], []
    for m in _measures(args):
        kw: dict[str, Any] = {}
        if args.test == "bootstrap":
            kw = {"method": args.method, "confidence_level": args.confidence_level}
        res = ir_compare(
            runs,
            qrels,
            measure=m,
            variant=args.test,
            reference=args.reference,
            correction=args.correction,
            missing=args.missing,
            n_resamples=args.n_resamples,
            rng=seed,
            **kw,
        )
        if args.test == "bootstrap":
            t, d = comparison_tables(res, res.metric, "run", title=f"{res.metric} runs")
            tables += [t, d]
            data.append(res.to_dict())
        else:
            t = OutTable(
                res.measure,
                ["pair", "mean_a", "mean_b", "difference", "statistic", "pvalue", "pvalue_adj"],
            )
            for row in res.rows():
                t.rows.append(
                    [
                        f"{row['a']} - {row['b']}",
                        row["mean_a"],
                        row["mean_b"],
                        row["difference"],
                        row["statistic"],
                        row["pvalue"],
                        row["pvalue_adjusted"],
                    ]
                )
            tables.append(t)
            data.append(res.to_dict())
    test = {
        "bootstrap": "paired bootstrap",
        "t": "paired t test",
        "permutation": "randomization test",
    }
    notes.append(
        f"{test[args.test]} over queries; correction {args.correction}"
        + (f"; seed {seed}" if args.test != "t" else "")
    )
    return emit(Output(notes, tables, data=data), args)
