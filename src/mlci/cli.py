"""The ``mlci`` command: bootstrap confidence intervals from a predictions file.

A thin shell over the Python API (no statistics here)::

    mlci ci preds.csv --label label --pred pred --condition speaker --metric accuracy,f1 \\
        --average macro --seed 0
    mlci ci --example --metric accuracy --condition speaker     # the bundled example data
    mlci metrics                                                # the built-in metrics
    mlci example                                                # where the example is, its columns

Adding a subcommand is one function ``_add_<name>(subparsers)`` that builds its parser
and sets ``handler=``; list it in :data:`COMMANDS`.  User errors (a missing column, a bad
option, a metric undefined on the data) print one line ``mlci: error: ...`` and exit
with status 2; set ``MLCI_DEBUG=1`` to see the traceback instead.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["COMMANDS", "CLIError", "build_parser", "main"]


class CLIError(ValueError):
    """A user error: reported as one line on stderr, exit status 2."""


# ------------------------------------------------------------------ shared helpers
def add_input_arguments(p: argparse.ArgumentParser) -> None:
    """``FILE`` or ``--example``: where the per-sample table comes from."""
    p.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="predictions table: CSV/TSV (one row per sample, a header line) or Parquet "
        "(needs pyarrow)",
    )
    p.add_argument(
        "--example",
        action="store_true",
        help="use the bundled example (an emotion-classification test set; see `mlci example`); "
        "--label and --pred then default to its 'label' and 'pred' columns",
    )


def load_input(args: argparse.Namespace) -> tuple[dict[str, np.ndarray], str]:
    """Read the table named by ``args.file`` (or the bundled example): (columns, name)."""
    from .data import example_path, read_table

    if args.example and args.file:
        raise CLIError("give either FILE or --example, not both.")
    if args.example:
        path = example_path()
        return read_table(path), f"example ({path.name})"
    if not args.file:
        raise CLIError("no input: give a predictions FILE (CSV or Parquet), or --example.")
    try:
        return read_table(args.file), str(args.file)
    except FileNotFoundError as exc:
        raise CLIError(str(exc)) from None


def get_column(cols: dict[str, np.ndarray], name: str, flag: str) -> np.ndarray:
    """The column ``name``; a missing one names the columns available, missing cells refused."""
    if name not in cols:
        import difflib

        close = difflib.get_close_matches(name, list(cols), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise CLIError(f"{flag} {name!r}: no such column.{hint} Columns: {', '.join(cols)}.")
    col = cols[name]
    missing = (
        np.isnan(col) if col.dtype.kind == "f" else (col == "") if col.dtype.kind == "U" else None
    )
    if missing is not None and missing.any():
        first = int(np.flatnonzero(missing)[0])
        raise CLIError(
            f"{flag} {name!r}: {int(missing.sum())} empty cell(s) (first on data row "
            f"{first + 1}); every sample needs a value."
        )
    return col


def parse_like(value: str | None, column: np.ndarray | None) -> Any:
    """A command-line value (e.g. ``--pos-label 1``) converted to the type of ``column``."""
    if value is None or column is None:
        return value
    kind = column.dtype.kind
    try:
        if kind in "iu":
            return int(value)
        if kind == "f":
            return float(value)
    except ValueError:
        raise CLIError(
            f"--pos-label {value!r}: the label column holds numbers; give one of its values."
        ) from None
    if kind == "b":
        if value.lower() not in ("true", "false"):
            raise CLIError(f"--pos-label {value!r}: the label column holds true/false values.")
        return value.lower() == "true"
    return value


def _split_list(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


# ------------------------------------------------------------------------- mlci ci
def _add_ci(sub: Any) -> None:
    from .engine.intervals import INTERVAL_METHODS

    p = sub.add_parser(
        "ci",
        help="bootstrap confidence intervals for one or more metrics",
        description="Bootstrap confidence intervals for metrics of a predictions table. "
        "One output row per metric.",
        epilog="example: mlci ci --example --label label --pred pred --condition speaker "
        "--metric accuracy,f1 --average macro --seed 0",
    )
    add_input_arguments(p)
    g = p.add_argument_group("columns")
    g.add_argument("--label", metavar="COL", help="true labels (y_true)")
    g.add_argument("--pred", metavar="COL", help="decisions (y_pred) for accuracy, f1, mcc, ...")
    g.add_argument(
        "--score", metavar="COL", help="scores (y_score) for roc_auc, average_precision, ..."
    )
    g.add_argument("--value", metavar="COL", help="per-sample values for mean, weighted_mean")
    g.add_argument("--weight", metavar="COL", help="per-sample weights for weighted_mean")
    g.add_argument(
        "--condition",
        metavar="COL",
        help="condition of each sample (speaker, session...): samples that share one are "
        "resampled together",
    )
    g.add_argument("--strata", metavar="COL", help="resample within each stratum, keeping its size")
    m = p.add_argument_group("metrics and interval")
    m.add_argument(
        "--metric",
        required=True,
        metavar="NAME[,NAME...]",
        help="built-in metric name(s), comma-separated (see `mlci metrics`)",
    )
    m.add_argument("--method", default="bca", choices=INTERVAL_METHODS, help="default: bca")
    m.add_argument(
        "-B",
        "--n-resamples",
        type=int,
        default=1000,
        metavar="N",
        help="bootstrap replicates (default 1000)",
    )
    m.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="random seed; without it one is drawn and printed, so a run can be repeated",
    )
    m.add_argument("--confidence-level", type=float, default=0.95, metavar="L", help="default 0.95")
    m.add_argument("--alternative", default="two-sided", choices=("two-sided", "less", "greater"))
    m.add_argument(
        "--two-stage",
        action="store_true",
        help="with --condition: also resample the samples inside every drawn condition",
    )
    m.add_argument("--pos-label", metavar="X", help="positive class of binary metrics")
    m.add_argument(
        "--average",
        choices=("binary", "macro", "micro", "weighted"),
        help="multiclass averaging of precision, recall, f1, ... (as scikit-learn)",
    )
    m.add_argument("--beta", type=float, metavar="B", help="beta of fbeta")
    m.add_argument(
        "--kappa-weights",
        choices=("linear", "quadratic"),
        help="disagreement weights of cohen_kappa (default: unweighted)",
    )
    o = p.add_argument_group("output")
    o.add_argument("--json", action="store_true", help="print a JSON list of results")
    o.add_argument("--digits", type=int, default=4, help="decimals in the table (default 4)")
    p.set_defaults(handler=_run_ci)


#: which command-line column feeds each input of a built-in metric
_INPUT_FLAGS = {
    "y_true": "label",
    "y_pred": "pred",
    "y_score": "score",
    "values": "value",
    "weights": "weight",
}


def _metric_data(
    info: Any, args: argparse.Namespace, cols: dict[str, np.ndarray]
) -> list[np.ndarray]:
    missing = [
        f"--{_INPUT_FLAGS[i]} COL" for i in info.inputs if getattr(args, _INPUT_FLAGS[i]) is None
    ]
    if missing:
        need = ", ".join(f"{i} (--{_INPUT_FLAGS[i]})" for i in info.inputs)
        raise CLIError(f"metric {info.name!r} needs {need}; missing: {', '.join(missing)}.")
    return [
        get_column(cols, getattr(args, _INPUT_FLAGS[i]), f"--{_INPUT_FLAGS[i]}")
        for i in info.inputs
    ]


def _run_ci(args: argparse.Namespace) -> int:
    from .engine.bootstrap import bootstrap_ci
    from .metrics import _resolve

    cols, source = load_input(args)
    if args.example:
        args.label = args.label or "label"
        args.pred = args.pred or "pred"
    names = _split_list(args.metric)
    if not names:
        raise CLIError("--metric: give at least one metric name (see `mlci metrics`).")
    infos = [_resolve(n) for n in names]
    conditions = get_column(cols, args.condition, "--condition") if args.condition else None
    strata = get_column(cols, args.strata, "--strata") if args.strata else None
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    results: list[tuple[str, dict[str, Any], Any]] = []
    for info in infos:
        data = _metric_data(info, args, cols)
        options: dict[str, Any] = {}
        if args.pos_label is not None and "pos_label" in info.options:
            label_col = cols.get(args.label) if args.label else None
            options["pos_label"] = parse_like(args.pos_label, label_col)
        if args.average is not None and "average" in info.options:
            options["average"] = args.average
        if args.beta is not None and "beta" in info.options:
            options["beta"] = args.beta
        if args.kappa_weights is not None and "weights" in info.options:
            options["weights"] = args.kappa_weights
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = _call_with_hints(
                bootstrap_ci,
                *data,
                metric=info.name,
                conditions=conditions,
                strata=strata,
                n_resamples=args.n_resamples,
                confidence_level=args.confidence_level,
                method=args.method,
                alternative=args.alternative,
                rng=seed,
                two_stage=args.two_stage,
                pos_label=options.get("pos_label"),
                average=options.get("average", "default"),
                metric_kwargs={k: options[k] for k in ("beta", "weights") if k in options},
            )
        seen = set()
        for w in caught:
            msg = _one_line(w.message)  # type: ignore[arg-type]
            if msg not in seen:
                seen.add(msg)
                print(f"mlci: warning: {info.name}: {msg}", file=sys.stderr)
        results.append((info.name, options, res))
    if args.json:
        out = []
        for name, options, res in results:
            d = res.to_dict()
            d["metric"] = name
            if options:
                d["options"] = options
            d["seed"] = seed
            d["source"] = source
            out.append(d)
        print(json.dumps(out, indent=2, default=_json_default))
        return 0
    _print_table(results, source, seed, args)
    return 0


def _call_with_hints(fn: Callable[..., Any], *a: Any, **kw: Any) -> Any:
    """Call the API; add the command-line spelling to errors that name its options."""
    try:
        return fn(*a, **kw)
    except ValueError as exc:
        msg = _one_line(exc)
        hints = [
            flag
            for key, flag in (
                ("average", "--average macro"),
                ("pos_label", "--pos-label X"),
                ("beta", "--beta B"),
            )
            if key in msg
            and kw.get(key) in (None, "default")
            and not kw.get("metric_kwargs", {}).get(key)
        ]
        if hints:
            msg += f" (on the command line: {' or '.join(hints)})"
        raise CLIError(msg) from None


def _json_default(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


def _fmt_num(x: Any, digits: int) -> str:
    arr = np.asarray(x, dtype=float)
    if arr.ndim:
        return "[" + ", ".join(_fmt_num(v, digits) for v in arr) + "]"
    v = float(arr)
    if np.isinf(v):
        return "-inf" if v < 0 else "inf"
    return f"{v:.{digits}f}"


def _print_table(
    results: list[tuple[str, dict[str, Any], Any]], source: str, seed: int, args: argparse.Namespace
) -> None:
    first = results[0][2]
    level = f"{first.confidence_level * 100:.10g}%"
    side = "" if args.alternative == "two-sided" else f" {args.alternative}"
    print(
        f"# {source}: {first.n_samples} samples; {level}{side} intervals from "
        f"{first.n_resamples} resamples ({first.scheme}); seed {seed}"
    )
    header = ["metric", "estimate", "low", "high", "method", "n", "conditions"]
    rows = []
    for name, options, res in results:
        parts = [
            f"{k}={v:g}" if k == "beta" else f"pos={v}" if k == "pos_label" else str(v)
            for k, v in options.items()
        ]
        label = f"{name} ({', '.join(parts)})" if parts else name
        low, high = res.confidence_interval
        rows.append(
            [
                label,
                _fmt_num(res.estimate, args.digits),
                _fmt_num(low, args.digits),
                _fmt_num(high, args.digits),
                res.method,
                str(res.n_samples),
                "-" if res.n_conditions is None else str(res.n_conditions),
            ]
        )
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    left = {0, 4}
    for r in [header, *rows]:
        cells = [
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        print("  ".join(cells).rstrip())
    invalid = [(n, r.n_invalid) for n, _, r in results if r.n_invalid]
    for name, k in invalid:
        print(f"# {name}: {k} replicate(s) undefined and left out")


# -------------------------------------------------------------------- mlci compare
def _add_compare(sub: Any) -> None:
    from .engine.intervals import INTERVAL_METHODS

    p = sub.add_parser(
        "compare",
        help="compare systems on the same test set (paired bootstrap, adjusted p-values)",
        description="Compare two or more systems scored on the same samples: every system is "
        "evaluated on the same bootstrap replicates, so each difference's interval reflects "
        "their correlation. One row per system, then one row per pair.",
        epilog="example: mlci compare preds.csv --label y --systems sys_a,sys_b,sys_c "
        "--metric accuracy --condition speaker --seed 0",
    )
    add_input_arguments(p)
    g = p.add_argument_group("columns")
    g.add_argument("--label", metavar="COL", required=False, help="true labels (y_true)")
    g.add_argument(
        "--systems",
        metavar="COL,COL[,...]",
        required=True,
        help="one column per system: its decisions, or its scores for score metrics",
    )
    g.add_argument("--condition", metavar="COL", help="condition of each sample (speaker...)")
    g.add_argument("--strata", metavar="COL", help="resample within each stratum")
    m = p.add_argument_group("metric, interval and test")
    m.add_argument("--metric", required=True, metavar="NAME", help="one built-in metric name")
    m.add_argument("--reference", metavar="COL", help="compare every system to this one only")
    m.add_argument(
        "--correction",
        default="holm",
        choices=("holm", "bonferroni", "hochberg", "bh", "by", "maxt", "none"),
        help="multiple-comparison adjustment of the p-values (default holm)",
    )
    m.add_argument("--method", default="bca", choices=INTERVAL_METHODS, help="default: bca")
    m.add_argument("-B", "--n-resamples", type=int, default=1000, metavar="N")
    m.add_argument("--seed", type=int, metavar="S", help="random seed (default: drawn, printed)")
    m.add_argument("--confidence-level", type=float, default=0.95, metavar="L")
    m.add_argument("--pos-label", metavar="X", help="positive class of binary metrics")
    m.add_argument("--average", choices=("binary", "macro", "micro", "weighted"))
    o = p.add_argument_group("output")
    o.add_argument("--json", action="store_true", help="print the result as JSON")
    o.add_argument("--digits", type=int, default=4, help="decimals in the table (default 4)")
    p.set_defaults(handler=_run_compare)


def _run_compare(args: argparse.Namespace) -> int:
    from .comparison.paired import compare
    from .metrics import _resolve

    cols, source = load_input(args)
    if args.example:
        args.label = args.label or "label"
    info = _resolve(args.metric)
    names = _split_list(args.systems)
    if len(names) < 2:
        raise CLIError("--systems: give at least two comma-separated columns to compare.")
    if args.reference is not None and args.reference not in names:
        raise CLIError(
            f"--reference {args.reference!r} is not among --systems ({', '.join(names)})."
        )
    if len(info.inputs) == 2 and args.label is None:
        raise CLIError(f"metric {info.name!r} needs the true labels: --label COL.")
    systems = {name: get_column(cols, name, "--systems") for name in names}
    y_true = get_column(cols, args.label, "--label") if len(info.inputs) == 2 else None
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    options: dict[str, Any] = {}
    if args.pos_label is not None:
        options["pos_label"] = parse_like(args.pos_label, y_true)
    if args.average is not None:
        options["average"] = args.average
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = _call_with_hints(
            compare,
            y_true,
            systems,
            metric=info.name,
            conditions=get_column(cols, args.condition, "--condition") if args.condition else None,
            strata=get_column(cols, args.strata, "--strata") if args.strata else None,
            reference=args.reference,
            n_resamples=args.n_resamples,
            confidence_level=args.confidence_level,
            method=args.method,
            correction=args.correction,
            rng=seed,
            pos_label=options.get("pos_label"),
            average=options.get("average", "default"),
        )
    for msg in dict.fromkeys(_one_line(w.message) for w in caught):  # type: ignore[arg-type]
        print(f"mlci: warning: {msg}", file=sys.stderr)
    if args.json:
        d = res.to_dict()
        d.update(seed=seed, source=source)
        print(json.dumps(d, indent=2, default=_json_default))
        return 0
    dg = args.digits
    level = f"{res.confidence_level * 100:.10g}%"
    print(
        f"# {source}: {res.n_samples} samples; {info.name}; {level} intervals from "
        f"{res.n_resamples} paired resamples ({res.scheme}); seed {seed}"
    )
    ranks = {r.system: r.rank for r in res.ranking} if res.ranking else {}
    rows = [["system", "estimate", "low", "high", "rank"]]
    for name, r in res.systems.items():
        low, high = r.confidence_interval
        rows.append(
            [
                name,
                _fmt_num(r.estimate, dg),
                _fmt_num(low, dg),
                _fmt_num(high, dg),
                str(ranks.get(name, "-")),
            ]
        )
    _print_rows(rows, left={0})
    print()
    rows = [["difference", "estimate", "low", "high", "p", f"p ({res.correction})", ""]]
    for d in res.differences:
        low, high = d.confidence_interval
        rows.append(
            [
                f"{d.a} - {d.b}",
                _fmt_num(d.estimate, dg),
                _fmt_num(low, dg),
                _fmt_num(high, dg),
                f"{d.pvalue:.4g}",
                f"{d.pvalue_adjusted:.4g}",
                "*" if d.significant else "",
            ]
        )
    _print_rows(rows, left={0, 6})
    print(f"# p-values: {res.pvalue_method}; * = significant at {1 - res.confidence_level:g}")
    return 0


def _print_rows(rows: Sequence[Sequence[str]], left: set[int]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        cells = [
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        print("  ".join(cells).rstrip())


# -------------------------------------------------------------------- mlci metrics
def _add_metrics(sub: Any) -> None:
    p = sub.add_parser(
        "metrics",
        help="list the built-in metrics",
        description="The built-in metrics, the columns each needs and its options.",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(handler=_run_metrics)


def _run_metrics(args: argparse.Namespace) -> int:
    from .metrics import METRICS

    rows = []
    for name in sorted(METRICS):
        info = METRICS[name]
        flags = " ".join(f"--{_INPUT_FLAGS[i]}" for i in info.inputs)
        rows.append((name, flags, ", ".join(info.options), info.description))
    if args.json:
        keys = ("name", "columns", "options", "description")
        print(json.dumps([dict(zip(keys, r, strict=True)) for r in rows], indent=2))
        return 0
    header = ("metric", "columns", "options", "description")
    _print_rows([header, *rows], left={0, 1, 2, 3})
    return 0


# -------------------------------------------------------------------- mlci example
def _add_example(sub: Any) -> None:
    p = sub.add_parser(
        "example",
        help="describe the bundled example data and print commands to try",
        description="The bundled example: a simulated emotion-classification test set.",
    )
    p.add_argument("--path", action="store_true", help="print only the file's path")
    p.set_defaults(handler=_run_example)


def _run_example(args: argparse.Namespace) -> int:
    from .data import example_path, read_table

    path = example_path()
    if args.path:
        print(path)
        return 0
    cols = read_table(path)
    n = len(next(iter(cols.values())))
    print(f"{path}")
    print(
        f"{n} utterances by {len(np.unique(cols['speaker']))} speakers "
        f"({len(np.unique(cols['session']))} sessions); columns:"
    )
    for name, col in cols.items():
        kind = {"i": "int", "f": "float", "b": "bool"}.get(col.dtype.kind, "text")
        first = ", ".join(str(v) for v in col[:3].tolist())
        print(f"  {name:<14} {kind:<6} {first}, ...")
    print("try:")
    for cmd in EXAMPLE_COMMANDS:
        print(f"  {cmd}")
    return 0


#: commands shown by ``mlci example`` (tested, so they keep working)
EXAMPLE_COMMANDS = (
    "mlci ci --example --metric accuracy,f1 --average macro --condition speaker --seed 0",
    "mlci ci --example --label is_angry --score score_angry --metric roc_auc,average_precision "
    "--condition speaker --seed 0",
    "mlci ci --example --weight num_words --value wer --metric weighted_mean,mean "
    "--condition speaker --seed 0",
    "mlci compare --example --systems pred,pred_baseline --metric accuracy --condition speaker "
    "--seed 0",
)


# ----------------------------------------------------------------------- the parser
#: one function per subcommand; each adds its parser and sets ``handler``
COMMANDS: list[Callable[[Any], None]] = [_add_ci, _add_compare, _add_metrics, _add_example]


def build_parser() -> argparse.ArgumentParser:
    """The ``mlci`` argument parser with every subcommand of :data:`COMMANDS`."""
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="mlci",
        description="Honest evaluation of ML systems: bootstrap confidence intervals "
        "for any metric.",
    )
    parser.add_argument("--version", action="version", version=f"mlci {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in COMMANDS:
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
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    if os.environ.get("MLCI_DEBUG"):
        return int(handler(args) or 0)
    try:
        return int(handler(args) or 0)
    except (ValueError, TypeError, OSError, ImportError) as exc:
        print(f"mlci: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mlci: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
