"""The ``mlci mt`` subcommands: corpus BLEU/chrF intervals and system comparisons from text.

::

    mlci mt ci -r ref.txt -i hyp.txt --metric bleu,chrf --documents docids.txt --seed 0
    mlci mt compare -r ref.txt -i base.txt new.txt --test paired-bs -B 10000  # = sacrebleu
    mlci mt compare -r ref.txt -i a.txt b.txt c.txt --documents docids.txt     # mlci's bootstrap

Files are read as sacreBLEU reads them (one segment a line, UTF-8, ``.gz`` allowed,
trailing whitespace stripped); several ``-r`` files are several references.  A thin shell
over :mod:`mlci.mt`: no statistics here.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
from typing import TYPE_CHECKING, Any

import numpy as np

from ..classical.corrections import CORRECTION_METHODS
from ..cli.common import (
    CLIError,
    Output,
    OutTable,
    add_output_arguments,
    cli_message,
    comparison_tables,
    emit,
    output_format,
)
from ..data import mt_example_paths
from ..inputs import INTERVAL_METHODS
from ..mt.api import mt_compare
from ..mt.readers import read_segments, read_systems
from ..mt.stats import gc_paused

if TYPE_CHECKING:
    from ..mt.significance import MTPairedTest

__all__ = ["add_mt"]

#: Python argument -> option of ``mlci mt``
MT_OPTIONS = {
    "hypotheses": "--input",
    "systems": "--input",
    "references": "--refs",
    "conditions": "--documents",
    "metric": "--metric",
    "variant": "--test",
    "baseline": "--baseline",
    "n_resamples": "--n-resamples",
    "rng": "--seed",
    "method": "--method",
    "confidence_level": "--confidence-level",
    "correction": "--correction",
    "tokenize": "--tokenize",
    "lowercase": "--lowercase",
}


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("-r", "--refs", nargs="+", metavar="REF", help="reference files")
    p.add_argument("-i", "--input", nargs="+", metavar="HYP", help="system output files")
    p.add_argument(
        "--example",
        action="store_true",
        help="the bundled example (240 segments in 18 documents, 2 references, 2 systems)",
    )
    p.add_argument(
        "-m", "--metric", default="bleu", metavar="M[,M]", help="bleu, chrf or both (bleu,chrf)"
    )
    p.add_argument(
        "--documents",
        metavar="FILE",
        help="document id of every segment, one a line: documents are resampled whole",
    )
    p.add_argument("--tokenize", metavar="TOK", help="BLEU tokenizer (sacreBLEU's; default 13a)")
    p.add_argument("--lowercase", action="store_true", help="case-insensitive BLEU/chrF")
    p.add_argument("-B", "--n-resamples", type=int, metavar="N")
    p.add_argument("--seed", type=int, metavar="S")
    p.add_argument("--confidence-level", type=float, default=0.95, metavar="L")


def add_mt(sub: Any) -> None:
    """Add ``mlci mt`` (``ci`` and ``compare``) to the ``mlci`` parser."""
    p = sub.add_parser(
        "mt",
        help="machine translation: corpus BLEU/chrF intervals and paired tests from text files",
        description="Corpus BLEU and chrF (sacreBLEU's statistics) with intervals over "
        "segments or documents, and paired comparisons (mlci's bootstrap, or sacreBLEU's "
        "--paired-bs / --paired-ar with the same p-values).",
    )
    mt_sub = p.add_subparsers(dest="mt_command", metavar="SUBCOMMAND", required=True)
    c = mt_sub.add_parser("ci", help="every system's corpus score with an interval")
    _common(c)
    c.add_argument("--method", default="auto", choices=INTERVAL_METHODS)
    add_output_arguments(c)
    c.set_defaults(handler=_run, mt_run=_run_ci)
    k = mt_sub.add_parser("compare", help="paired comparison of systems")
    _common(k)
    k.add_argument(
        "--test",
        default="bootstrap",
        choices=("bootstrap", "paired-bs", "paired-ar"),
        help="bootstrap: mlci's paired bootstrap (intervals, adjusted p); paired-bs / "
        "paired-ar: sacreBLEU's tests (seed 12345 unless --seed, as sacreBLEU)",
    )
    k.add_argument("--baseline", metavar="HYP", help="compare every system to this file only")
    k.add_argument("--method", default="auto", choices=INTERVAL_METHODS)
    k.add_argument(
        "--correction",
        choices=CORRECTION_METHODS,
        help="p-value adjustment (default: holm; none for --test paired-bs/paired-ar, "
        "as sacreBLEU)",
    )
    add_output_arguments(k)
    k.set_defaults(handler=_run, mt_run=_run_compare)


def _blas_threads(args: argparse.Namespace) -> Any:
    """One BLAS thread for mlci's bootstrap (the engine's own threads run the replicates).

    Its matrix products are small (a few columns of statistics), and a multi-threaded
    BLAS's idle workers spin after every product made outside the engine's threads (the
    estimates, the data's standard errors): on 3,000 segments in 134 documents, 0.15 s
    of CPU of ``mlci mt compare --documents -B 10000`` (1.16 -> 1.01 s), for no gain in
    time.  sacreBLEU's tests (``--test``) run without the engine and keep BLAS as is.
    """
    from . import _BLAS_ONE_THREAD

    if getattr(args, "test", "bootstrap") != "bootstrap":
        return contextlib.nullcontext()
    from ..engine import replicate_loop

    if _BLAS_ONE_THREAD:
        # the process's BLAS started with one thread (mlci.cli sets OPENBLAS_NUM_THREADS=1
        # for `mlci mt` before numpy loads): neither this command nor the engine's
        # replicate loops need threadpoolctl's limit
        replicate_loop.BLAS_STARTED_SINGLE = True
        return contextlib.nullcontext()
    return replicate_loop.single_threaded_blas()


def _run(args: argparse.Namespace) -> int:
    try:
        # no garbage cycles are made here (text, statistics, arrays), while the collector's
        # passes over sacreBLEU's n-gram containers and the engine's imports cost 0.05-0.1 s
        with gc_paused(), _blas_threads(args):
            return int(args.mt_run(args) or 0)
    except CLIError:
        raise
    except (ValueError, TypeError, OSError) as exc:
        raise CLIError(cli_message(str(exc), MT_OPTIONS)) from exc


def _metrics(args: argparse.Namespace) -> list[str]:
    names = [m.strip().lower() for m in args.metric.split(",") if m.strip()]
    bad = [m for m in names if m not in ("bleu", "chrf")]
    if not names or bad:
        raise CLIError(f"--metric must be bleu, chrf or bleu,chrf; got {args.metric!r}.")
    return names


def _options(args: argparse.Namespace, metric: str) -> dict[str, Any]:
    opts: dict[str, Any] = {}
    if args.lowercase:
        opts["lowercase"] = True
    if args.tokenize is not None:
        if metric == "bleu":
            opts["tokenize"] = args.tokenize
    return opts


def _load(args: argparse.Namespace) -> tuple[dict[str, list[str]], list[list[str]], Any]:
    if args.example:
        if args.refs or args.input or args.documents:
            raise CLIError("--example replaces --refs, --input and --documents; drop them.")
        p = mt_example_paths()
        args.refs = [str(r) for r in p["refs"]]
        args.input = [str(s) for s in p["systems"].values()]
        args.documents = str(p["documents"])
    elif not args.refs or not args.input:
        raise CLIError(
            "give the reference files (--refs) and system outputs (--input), or --example."
        )
    systems = read_systems(args.input, name="systems")
    if args.example:  # short names for the bundled files
        systems = {os.path.splitext(os.path.basename(k))[0]: v for k, v in systems.items()}
    n = len(next(iter(systems.values())))
    refs = [read_segments(r, name="references") for r in args.refs]
    for path, r in zip(args.refs, refs, strict=True):
        if len(r) != n:
            raise CLIError(
                f"--refs {path}: {len(r)} lines, but the system outputs have {n}; every file "
                "must hold one segment a line, aligned."
            )
    docs = None
    if args.documents is not None:
        docs = np.array(read_segments(args.documents, name="conditions"))
        if len(docs) != n:
            raise CLIError(
                f"--documents {args.documents}: {len(docs)} lines, but the system outputs "
                f"have {n}; one document id per segment is expected."
            )
    return systems, refs, docs


def _seed(args: argparse.Namespace, default: int | None = None) -> int:
    if args.seed is not None:
        return args.seed
    return default if default is not None else secrets.randbelow(2**31)


def _run_ci(args: argparse.Namespace) -> int:
    from ..mt.api import mt_ci

    systems, refs, docs = _load(args)
    seed = _seed(args)
    n = args.n_resamples if args.n_resamples is not None else 1000
    table = OutTable(
        None, ["system", "metric", "estimate", "low", "high", "method", "segments", "documents"]
    )
    data = []
    json_out = output_format(args) == "json"
    for metric in _metrics(args):
        for name, hyps in systems.items():
            res = mt_ci(
                hyps,
                refs,
                metric=metric,
                conditions=docs,
                metric_kwargs=_options(args, metric),
                n_resamples=n,
                rng=seed,
                method=args.method,
                confidence_level=args.confidence_level,
            )
            low, high = res.confidence_interval
            table.rows.append(
                [name, metric, res.estimate, low, high, res.method, res.n_samples, res.n_conditions]
            )
            if json_out:  # (every replicate as a JSON list: only when printed)
                data.append({"system": name, **res.to_dict()})
    unit = "documents" if docs is not None else "segments"
    notes = [
        f"{len(refs)} reference(s), {len(next(iter(systems.values())))} segments; "
        f"{args.confidence_level:.0%} intervals from {n} resamples of {unit}; seed {seed}"
    ]
    return emit(Output(notes, [table], data=data), args)


def _run_compare(args: argparse.Namespace) -> int:
    systems, refs, docs = _load(args)
    metrics = _metrics(args)
    if args.baseline is not None and args.baseline not in systems:
        raise CLIError(f"--baseline {args.baseline!r} is not one of the --input files.")
    tables, data, notes = [], [], []
    json_out = output_format(args) == "json"
    for metric in metrics:
        opts = _options(args, metric)
        if args.test == "bootstrap":
            seed = _seed(args)
            n = args.n_resamples if args.n_resamples is not None else 1000
            res = mt_compare(
                systems,
                refs,
                metric=metric,
                variant="bootstrap",
                baseline=args.baseline,
                conditions=docs,
                metric_kwargs=opts,
                n_resamples=n,
                rng=seed,
                method=args.method,
                confidence_level=args.confidence_level,
                correction=args.correction or "holm",
            )
            t, d = comparison_tables(res, metric, "system")
            tables += [t, d]
            if json_out:
                data.append({"metric": metric, **res.to_dict()})
            notes.append(
                f"{metric}: mlci's paired bootstrap, {n} resamples of "
                f"{'documents' if docs is not None else 'segments'}; seed {seed}; "
                f"correction {args.correction or 'holm'}"
            )
        else:
            seed = _seed(args, 12345)
            res2: MTPairedTest = mt_compare(
                systems,
                refs,
                metric=metric,
                variant=args.test,
                baseline=args.baseline,
                conditions=docs,
                metric_kwargs=opts,
                n_resamples=args.n_resamples,
                rng=seed,
                correction=args.correction or "none",
            )
            cols = ["system", "score"]
            if res2.means is not None:
                cols += ["mean", "ci"]
            cols += ["pvalue", "pvalue_adj"]
            t = OutTable(metric, cols)
            for row in res2.rows():
                cells = [row["system"], row["score"]]
                if res2.means is not None:
                    cells += [row["mean"], row["ci"]]
                cells += [row["pvalue"], row["pvalue_adjusted"]]
                t.rows.append(cells)
            tables.append(t)
            if json_out:
                data.append(res2.to_dict())
            notes.append(
                f"{metric}: sacreBLEU's --{args.test} (baseline {res2.baseline}), "
                f"{res2.n_resamples} {'resamples' if args.test == 'paired-bs' else 'trials'} of "
                f"{'documents' if docs is not None else 'segments'}; seed {seed}; "
                f"correction {res2.correction}"
                + ("; ci: half-width of sacreBLEU's 95% interval" if res2.means is not None else "")
            )
    return emit(Output(notes, tables, data=data), args)
