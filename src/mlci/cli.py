"""The ``mlci`` command: bootstrap confidence intervals from a predictions file.

A thin shell over the Python API (no statistics here)::

    mlci ci preds.csv --label label --pred pred --condition speaker --metric accuracy,f1 \\
        --average macro --seed 0
    mlci ci --example --metric accuracy --condition speaker     # the bundled example data
    mlci metrics                                                # the built-in metrics
    mlci example                                                # where the example is, its columns

Adding a subcommand is one function ``_add_<name>(subparsers)`` that builds its parser
and sets ``handler=``; list it in :data:`COMMANDS`.  User errors (a missing column or
value, a bad option, a metric undefined on the data) print one line ``mlci: error: ...``
and exit with status 2; set ``MLCI_DEBUG=1`` to see the traceback instead.  The library's
messages name Python arguments (`` `y_true` ``, `` `confidence_level` ``); they are
rewritten with the command-line options through one table, :data:`OPTIONS`.

Missing values follow the library's one policy (:func:`mlci.inputs.gather`): a missing
cell (see :mod:`mlci.io`) in a column that is used is an error naming the file, the
column, its option and the lines, unless ``--dropna`` is given; then the rows with a
missing value in any used column are dropped together and their number is reported.
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import re
import secrets
import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from . import __version__
from .comparison.paired import compare
from .data import example_path
from .engine.bootstrap import bootstrap_ci
from .inputs import INTERVAL_METHODS, ArgSpec, check_label_pair, gather, missing_mask
from .io import read_table
from .metrics import METRICS, close_metric_names
from .metrics.classification import CONFUSION_METRICS

__all__ = ["COMMANDS", "OPTIONS", "CLIError", "build_parser", "main"]


class CLIError(ValueError):
    """A user error: reported as one line on stderr, exit status 2."""


#: Python argument of the library -> its command-line option: the one table that turns
#: the library's messages (which name arguments in backticks) into command-line terms
OPTIONS: dict[str, str] = {
    "y_true": "--label",
    "y_pred": "--pred",
    "y_score": "--score",
    "values": "--value",
    "weights": "--weight",
    "conditions": "--condition",
    "strata": "--strata",
    "systems": "--systems",
    "reference": "--reference",
    "metric": "--metric",
    "n_resamples": "--n-resamples",
    "confidence_level": "--confidence-level",
    "method": "--method",
    "alternative": "--alternative",
    "rng": "--seed",
    "two_stage": "--two-stage",
    "pos_label": "--pos-label",
    "average": "--average",
    "beta": "--beta",
    "correction": "--correction",
    "dropna": "--dropna",
}

#: how the input gate reads each per-sample column (see :class:`mlci.inputs.ArgSpec`)
_KINDS = {
    "y_true": "labels",
    "y_pred": "labels",
    "y_score": "scores",
    "values": "numbers",
    "weights": "numbers",
    "conditions": "groups",
    "strata": "groups",
}

#: a name in backticks, optionally with a value (`average='macro'`) or followed by ``=``
_BACKTICKED = re.compile(r"`(\w+)(?:=([^`]*))?`(=)?")
#: a comparison in backticks, the library's way to say "binarise": `y_true == 'angry'`
_COMPARISON = re.compile(r"`(\w+) == ([^`]+)`")


def _dest(option: str) -> str:
    """The ``argparse`` attribute of an option: ``--pos-label`` -> ``pos_label``."""
    return option[2:].replace("-", "_")


def cli_message(message: str, names: Mapping[str, str] | None = None) -> str:
    """A library message on one line, with Python arguments spelled as command-line options.

    ``names`` adds to (or overrides) :data:`OPTIONS`, e.g. ``{"y_true": "--label 'y'"}``
    to name the column too.  Names without an option are left as they are.

    Examples
    --------
    >>> cli_message("`confidence_level` must be strictly between 0 and 1; got 1.5.")
    '--confidence-level must be strictly between 0 and 1; got 1.5.'
    >>> cli_message("`pos_label`='x' is not among the values of `y_true`: {0, 1}.",
    ...             {"y_true": "--label 'y'"})
    "--pos-label 'x' is not among the values of --label 'y': {0, 1}."
    >>> cli_message("Pass `average='macro'` (or 'micro').")
    "Pass --average macro (or 'micro')."
    >>> cli_message("binarise them, e.g. `y_true == 'b'`.", {"y_true": "--label 'y'"})
    "binarise them, e.g. a column that is 1 where 'y' == 'b' and 0 elsewhere, as --label."
    """
    table = {**OPTIONS, **(names or {})}

    def binarise(m: re.Match[str]) -> str:
        name, value = m.groups()
        option = table.get(name)
        if option is None:
            return m.group(0)
        flag, _, column = option.partition(" ")
        return f"a column that is 1 where {column or name} == {value} and 0 elsewhere, as {flag}"

    def spell(m: re.Match[str]) -> str:
        name, value, eq = m.groups()
        option = table.get(name)
        if option is None:
            return m.group(0)
        tail = " " if eq else ""
        if value is None:
            return option + tail
        value = value.strip()
        if value == "True":
            return option + tail
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            return f"{option} {value[1:-1]}{tail}"
        if re.fullmatch(r"[+-]?[\d.]+(e[+-]?\d+)?", value):
            return f"{option} {value}{tail}"
        if value in table:  # `strata=y_true` -> --strata 'y' (the column of --label)
            other = table[value]
            column = other.split(" ", 1)[1] if " " in other else f"COL (as {other})"
            return f"{option} {column}{tail}"
        return m.group(0)

    message = _COMPARISON.sub(binarise, message)
    return " ".join(_BACKTICKED.sub(spell, message).split())


# ------------------------------------------------------------------ shared helpers
class _Parser(argparse.ArgumentParser):
    """argparse, with its errors on one line like every other user error."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        self.exit(2, f"mlci: error: {message} (see `{self.prog} --help`)\n")


def _digits(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if not 0 <= value <= 15:
        raise argparse.ArgumentTypeError(f"must be between 0 and 15; got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number; got {text}")
    return value


def add_input_arguments(p: argparse.ArgumentParser) -> None:
    """``FILE`` or ``--example``, and ``--dropna``: where the per-sample table comes from."""
    p.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="predictions table: CSV/TSV (one row per sample, a header line; UTF-8) or "
        "Parquet (needs pyarrow)",
    )
    p.add_argument(
        "--example",
        action="store_true",
        help="use the bundled example (an emotion-classification test set; see `mlci example`); "
        "--label and --pred then default to its 'label' and 'pred' columns",
    )
    p.add_argument(
        "--dropna",
        action="store_true",
        help="leave out the rows with a missing value (empty, NA, NaN, null...) in any column "
        "used, and report how many; without it a missing value is an error",
    )


def load_input(args: argparse.Namespace) -> tuple[Any, str]:
    """Read the table named by ``args.file`` (or the bundled example): (table, name).

    The table is a :class:`mlci.io.Table` (a dict of columns that knows each row's line).
    """
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
    except IsADirectoryError:  # pragma: no cover - read_table checks first
        raise CLIError(f"{args.file} is a directory; give a CSV or Parquet file.") from None


def get_column(cols: Mapping[str, np.ndarray], name: str, flag: str) -> np.ndarray:
    """The column ``name``; a missing one names the columns available."""
    if name not in cols:
        close = difflib.get_close_matches(name, list(cols), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise CLIError(f"{flag} {name!r}: no such column.{hint} Columns: {', '.join(cols)}.")
    return cols[name]


def _where(table: Any, rows: np.ndarray) -> str:
    if hasattr(table, "where"):
        return str(table.where(rows))
    shown = ", ".join(str(int(r) + 1) for r in rows[:5])
    return f"row{'s' if rows.size > 1 else ''} {shown}{', ...' if rows.size > 5 else ''}"


def _not_number(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        float(value.replace("_", "x"))
    except ValueError:
        return True
    return False


def _text_cells(col: np.ndarray) -> np.ndarray:
    """Positions of the cells of a text column that are not numbers (all, if none is)."""
    if col.dtype.kind not in "USO":
        return np.zeros(0, dtype=np.int64)
    text = np.flatnonzero([isinstance(v, str) for v in col.tolist()])
    if text.size == 0:
        return text
    bad = np.array([i for i in text if _not_number(col[i])], dtype=np.int64)
    return bad if bad.size else text


def read_columns(
    table: Any,
    source: str,
    wanted: Mapping[str, tuple[str, str, str]],
    *,
    dropna: bool,
) -> tuple[dict[str, np.ndarray], int, dict[str, str]]:
    """The columns a command uses, through the input gate, with errors naming the file.

    Parameters
    ----------
    table : mlci.io.Table
    source : str
        How to name the file in messages.
    wanted : mapping of key -> (option, column name, kind)
        ``key`` is the library's argument (``"y_true"``) or any name without a space.
    dropna : bool
        ``--dropna``: drop the rows with a missing value in any wanted column.

    Returns
    -------
    arrays : dict of key -> ndarray
    n_dropped : int
    names : dict of key -> ``"--label 'y'"`` (how messages spell each key)
    """
    cols = {k: get_column(table, col, option) for k, (option, col, _) in wanted.items()}
    names = {k: f"{option} {col!r}" for k, (option, col, _) in wanted.items()}
    if not dropna:
        missing = {k: np.flatnonzero(missing_mask(c)) for k, c in cols.items()}
        missing = {k: rows for k, rows in missing.items() if rows.size}
        if missing:
            key, rows = next(iter(missing.items()))
            option, col, _ = wanted[key]
            others = {wanted[k][1]: wanted[k][0] for k in missing if wanted[k][1] != col}
            also = "".join(f"; column {c!r} ({o}) has some too" for c, o in others.items())
            k = rows.size
            raise CLIError(
                f"{source}: column {col!r} ({option}) has {k} missing value{'s' * (k > 1)} "
                f"(empty, NA, NaN, null...) on {_where(table, rows)}{also}. Every sample needs "
                f"a value: fill {'them' if k > 1 else 'it'} in, or pass --dropna to leave out "
                "the rows with a missing value in any column used (the output says how many)."
            )
    for k, c in cols.items():
        option, col, kind = wanted[k]
        if kind in ("numbers", "scores"):
            text = _text_cells(c)
            if text.size:
                first = str(c[text[0]])
                hint = ""
                if re.fullmatch(r"[+-]?\d*,\d+", first.strip()):
                    hint = (
                        " It looks like a decimal comma: they are read in files separated by "
                        "';' or tabs; in a comma-separated file write a decimal point (0.5)."
                    )
                raise CLIError(
                    f"{source}: column {col!r} ({option}) must hold numbers, but "
                    f"{_where(table, text[:1])} holds {first!r}.{hint}"
                )
        if kind == "numbers" and c.dtype.kind == "f":
            inf = np.flatnonzero(np.isinf(c))
            if inf.size:
                raise CLIError(
                    f"{source}: column {col!r} ({option}) holds an infinite value on "
                    f"{_where(table, inf)}; every value must be finite."
                )
    specs = {k: ArgSpec(kind) for k, (_, _, kind) in wanted.items()}
    try:
        got = gather(specs, cols, dropna=dropna, dropna_name="--dropna")
    except (ValueError, TypeError) as exc:
        raise CLIError(f"{source}: {cli_message(str(exc), names)}") from None
    return dict(got.arrays), got.n_dropped, names


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


def _metric_info(name: str) -> Any:
    """The built-in metric ``name``; an unknown one names the closest and lists them."""
    key = name.lower().replace("-", "_")
    if key not in METRICS:
        close = close_metric_names(key)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise CLIError(
            f"--metric {name!r}: unknown metric.{hint} Built-in metrics: "
            f"{', '.join(sorted(METRICS))} (see `mlci metrics`)."
        )
    return METRICS[key]


def _check_labels(info: Any, y_true: Any, y_pred: Any, names: Mapping[str, str]) -> None:
    """Decisions against labels: one type, a shared value (confusion metrics only)."""
    if info.name in CONFUSION_METRICS and y_true is not None and y_pred is not None:
        _call_api(names, check_label_pair, y_true, y_pred)


def _split_list(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _one_line(exc: BaseException | str) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _seed(args: argparse.Namespace) -> int:
    return args.seed if args.seed is not None else secrets.randbelow(2**31)


def _dropped_note(args: argparse.Namespace, n_dropped: int) -> str:
    if not args.dropna:
        return ""
    return f" ({n_dropped} row{'s' * (n_dropped != 1)} with a missing value dropped)"


# ------------------------------------------------------------------------- mlci ci
def _add_ci(sub: Any) -> None:
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
    m.add_argument("--beta", type=_positive_float, metavar="B", help="beta of fbeta (> 0)")
    m.add_argument(
        "--kappa-weights",
        choices=("linear", "quadratic"),
        help="disagreement weights of cohen_kappa (default: unweighted)",
    )
    o = p.add_argument_group("output")
    o.add_argument("--json", action="store_true", help="print a JSON list of results")
    o.add_argument(
        "--digits", type=_digits, default=4, help="decimals in the table (0 to 15; default 4)"
    )
    p.set_defaults(handler=_run_ci)


def _metric_columns(info: Any, args: argparse.Namespace) -> dict[str, tuple[str, str, str]]:
    """The columns a metric reads: input -> (option, column, kind)."""
    absent = [f"{OPTIONS[i]} COL" for i in info.inputs if getattr(args, _dest(OPTIONS[i])) is None]
    if absent:
        need = ", ".join(f"{i} ({OPTIONS[i]})" for i in info.inputs)
        raise CLIError(f"metric {info.name!r} needs {need}; missing: {', '.join(absent)}.")
    return {i: (OPTIONS[i], getattr(args, _dest(OPTIONS[i])), _KINDS[i]) for i in info.inputs}


def _grouping_columns(args: argparse.Namespace) -> dict[str, tuple[str, str, str]]:
    return {
        key: (OPTIONS[key], getattr(args, _dest(OPTIONS[key])), _KINDS[key])
        for key in ("conditions", "strata")
        if getattr(args, _dest(OPTIONS[key])) is not None
    }


def _run_ci(args: argparse.Namespace) -> int:
    table, source = load_input(args)
    if args.example:
        args.label = args.label or "label"
        args.pred = args.pred or "pred"
    names = _split_list(args.metric)
    if not names:
        raise CLIError("--metric: give at least one metric name (see `mlci metrics`).")
    infos = [_metric_info(n) for n in names]
    wanted: dict[str, tuple[str, str, str]] = {}
    for info in infos:
        wanted.update(_metric_columns(info, args))
    wanted.update(_grouping_columns(args))
    arrays, n_dropped, spelled = read_columns(table, source, wanted, dropna=args.dropna)
    seed = _seed(args)
    results: list[tuple[str, dict[str, Any], Any]] = []
    for info in infos:
        data = [arrays[i] for i in info.inputs]
        spelled_here = dict(spelled)
        if info.name == "cohen_kappa":
            spelled_here["weights"] = "--kappa-weights"
        _check_labels(info, arrays.get("y_true"), arrays.get("y_pred"), spelled_here)
        options: dict[str, Any] = {}
        if args.pos_label is not None and "pos_label" in info.options:
            options["pos_label"] = parse_like(args.pos_label, arrays.get("y_true"))
        if args.average is not None and "average" in info.options:
            options["average"] = args.average
        if args.beta is not None and "beta" in info.options:
            options["beta"] = args.beta
        if args.kappa_weights is not None and "weights" in info.options:
            options["weights"] = args.kappa_weights
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = _call_api(
                spelled_here,
                bootstrap_ci,
                *data,
                metric=info.name,
                conditions=arrays.get("conditions"),
                strata=arrays.get("strata"),
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
        for msg in dict.fromkeys(cli_message(str(w.message), spelled_here) for w in caught):
            print(f"mlci: warning: {info.name}: {msg}", file=sys.stderr)
        results.append((info.name, options, res))
    if args.json:
        out = []
        for name, options, res in results:
            d = _with_dropped(res.to_dict(), n_dropped)
            d["metric"] = name
            if options:
                d["options"] = options
            d["seed"] = seed
            d["source"] = source
            out.append(d)
        print_json(out)
        return 0
    _print_table(results, source, seed, args, n_dropped)
    return 0


def _call_api(names: Mapping[str, str], fn: Callable[..., Any], *a: Any, **kw: Any) -> Any:
    """Call the API; its errors become one line in command-line terms (see :data:`OPTIONS`).

    ``names`` spells the per-sample arguments with their columns (``--label 'y'``).  An
    error about an option the user did not give (``average``, ``pos_label``, ``beta``)
    gets the option's command-line spelling when the message does not name it already.
    """
    try:
        return fn(*a, **kw)
    except CLIError:
        raise
    except (ValueError, TypeError) as exc:
        raw = str(exc)
        msg = cli_message(raw, names)
        hints = [
            spelling
            for key, spelling in (
                ("average", "--average macro"),
                ("pos_label", "--pos-label X"),
                ("beta", "--beta B"),
            )
            if key in raw
            and OPTIONS[key] not in msg
            and kw.get(key) in (None, "default")
            and not (kw.get("metric_kwargs") or {}).get(key)
        ]
        if hints:
            msg += f" (on the command line: {' or '.join(hints)})"
        raise CLIError(msg) from None


def _with_dropped(d: dict[str, Any], n_dropped: int) -> dict[str, Any]:
    """A result's dict with the rows dropped for missing values (``--dropna``)."""
    d["n_dropped"] = n_dropped
    if isinstance(d.get("details"), dict) and "n_dropped" in d["details"]:
        d["details"]["n_dropped"] = n_dropped
    return d


def json_safe(x: Any) -> Any:
    """``x`` as plain JSON values: numpy to Python, non-finite floats to ``None`` (null).

    Strict JSON has no NaN or Infinity; an unbounded end of an interval is ``null``.

    Examples
    --------
    >>> json_safe({"low": np.float64(0.5), "high": float("inf"), "n": np.int64(3)})
    {'low': 0.5, 'high': None, 'n': 3}
    """
    if isinstance(x, Mapping):
        return {str(k): json_safe(v) for k, v in x.items()}
    if isinstance(x, np.ndarray):
        return json_safe(x.tolist())
    if isinstance(x, list | tuple | set | frozenset):
        return [json_safe(v) for v in x]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if x is None or isinstance(x, str | int | bool):
        return x
    return str(x)


def print_json(obj: Any) -> None:
    """Print ``obj`` as strict JSON (never ``NaN`` or ``Infinity``)."""
    print(json.dumps(json_safe(obj), indent=2, allow_nan=False))


def _fmt_num(x: Any, digits: int) -> str:
    arr = np.asarray(x, dtype=float)
    if arr.ndim:
        return "[" + ", ".join(_fmt_num(v, digits) for v in arr) + "]"
    v = float(arr)
    if np.isinf(v):
        return "-inf" if v < 0 else "inf"
    return f"{v:.{digits}f}"


def _print_table(
    results: list[tuple[str, dict[str, Any], Any]],
    source: str,
    seed: int,
    args: argparse.Namespace,
    n_dropped: int = 0,
) -> None:
    first = results[0][2]
    level = f"{first.confidence_level * 100:.10g}%"
    side = "" if args.alternative == "two-sided" else f" {args.alternative}"
    print(
        f"# {source}: {first.n_samples} samples{_dropped_note(args, n_dropped)}; "
        f"{level}{side} intervals from "
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
    o.add_argument(
        "--digits", type=_digits, default=4, help="decimals in the table (0 to 15; default 4)"
    )
    p.set_defaults(handler=_run_compare)


def _run_compare(args: argparse.Namespace) -> int:
    table, source = load_input(args)
    if args.example:
        args.label = args.label or "label"
    info = _metric_info(args.metric)
    names = _split_list(args.systems)
    if len(names) < 2:
        raise CLIError("--systems: give at least two comma-separated columns to compare.")
    if args.reference is not None and args.reference not in names:
        raise CLIError(
            f"--reference {args.reference!r} is not among --systems ({', '.join(names)})."
        )
    if len(info.inputs) == 2 and args.label is None:
        raise CLIError(f"metric {info.name!r} needs the true labels: --label COL.")
    wanted: dict[str, tuple[str, str, str]] = {}
    if len(info.inputs) == 2:
        wanted["y_true"] = ("--label", args.label, _KINDS[info.inputs[0]])
    keys = {name: f"system_{i}" for i, name in enumerate(names)}
    for name, key in keys.items():
        wanted[key] = ("--systems", name, _KINDS[info.inputs[-1]])
    wanted.update(_grouping_columns(args))
    arrays, n_dropped, spelled = read_columns(table, source, wanted, dropna=args.dropna)
    # the metric's messages name a system's outputs `y_pred` or `y_score`: --systems here
    spelled.update(y_pred="--systems", y_score="--systems")
    y_true = arrays.get("y_true")
    for key in keys.values():
        _check_labels(info, y_true, arrays[key], {**spelled, "y_pred": spelled[key]})
    systems = {name: arrays[key] for name, key in keys.items()}
    seed = _seed(args)
    options: dict[str, Any] = {}
    if args.pos_label is not None:
        options["pos_label"] = parse_like(args.pos_label, y_true)
    if args.average is not None:
        options["average"] = args.average
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = _call_api(
            spelled,
            compare,
            y_true,
            systems,
            metric=info.name,
            conditions=arrays.get("conditions"),
            strata=arrays.get("strata"),
            reference=args.reference,
            n_resamples=args.n_resamples,
            confidence_level=args.confidence_level,
            method=args.method,
            correction=args.correction,
            rng=seed,
            pos_label=options.get("pos_label"),
            average=options.get("average", "default"),
        )
    for msg in dict.fromkeys(cli_message(str(w.message), spelled) for w in caught):
        print(f"mlci: warning: {msg}", file=sys.stderr)
    if args.json:
        d = _with_dropped(res.to_dict(), n_dropped)
        d.update(seed=seed, source=source)
        print_json(d)
        return 0
    dg = args.digits
    level = f"{res.confidence_level * 100:.10g}%"
    print(
        f"# {source}: {res.n_samples} samples{_dropped_note(args, n_dropped)}; {info.name}; "
        f"{level} intervals from "
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
    rows = []
    for name in sorted(METRICS):
        info = METRICS[name]
        flags = " ".join(OPTIONS[i] for i in info.inputs)
        rows.append((name, flags, ", ".join(info.options), info.description))
    if args.json:
        keys = ("name", "columns", "options", "description")
        print_json([dict(zip(keys, r, strict=True)) for r in rows])
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
    path = example_path()
    if args.path:
        print(path)
        return 0
    cols = read_table(path)
    n = cols.n_rows
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
    parser = _Parser(
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


def _run(handler: Callable[[argparse.Namespace], Any], args: argparse.Namespace) -> int:
    if os.environ.get("MLCI_DEBUG"):
        status = int(handler(args) or 0)
        sys.stdout.flush()
        return status
    try:
        status = int(handler(args) or 0)
        sys.stdout.flush()
        return status
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
