"""What every ``mlci`` subcommand shares: reading columns, errors, output formats.

User errors (a missing column or value, a bad option, a metric undefined on the data)
are :class:`CLIError`: one line ``mlci: error: ...``, exit status 2.  The library's
messages name Python arguments (`` `y_true` ``, `` `confidence_level` ``); they are
rewritten with the command-line options through one table, :data:`OPTIONS`.

Missing values follow the library's one policy (:func:`mlci.inputs.gather`): a missing
cell (see :mod:`mlci.io`) in a column that is used is an error naming the file, the
column, its option and the lines, unless ``--dropna`` is given; then the rows with a
missing value in any used column are dropped together and their number is reported.

Every command builds an :class:`Output` (notes, tables, a JSON document) and
:func:`emit` prints it as ``--format table|csv|md|json``.
"""

from __future__ import annotations

import argparse
import csv
import difflib
import inspect
import io
import json
import math
import re
import secrets
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..data import example_path
from ..inputs import (
    INTERVAL_METHODS,
    ArgSpec,
    FrequencyWeights,
    check_label_pair,
    gather,
    missing_mask,
)
from ..io import read_table
from ..metrics import METRICS, close_metric_names
from ..metrics.classification import CONFUSION_METRICS

__all__ = [
    "OPTIONS",
    "CLIError",
    "OutTable",
    "Output",
    "add_input_arguments",
    "add_output_arguments",
    "cli_message",
    "comparison_tables",
    "emit",
    "grouping_codes",
    "json_safe",
    "load_input",
    "print_json",
    "read_columns",
]


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
    "sample_weight": "--weight",
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
    "margin": "--margin",
    "engine": "--engine",
}

#: how the input gate reads each per-sample column (see :class:`mlci.inputs.ArgSpec`)
_KINDS = {
    "y_true": "labels",
    "y_pred": "labels",
    "y_score": "scores",
    "values": "numbers",
    "weights": "numbers",
    "sample_weight": "numbers",
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

    def error(self, message: str) -> Any:
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


def grouping_codes(groups: Sequence[str | None], data: Sequence[str | None]) -> list[str]:
    """The columns of ``groups`` (conditions, strata) to read as integer codes: those that
    only group the rows, not a column that is also data (``data``; comma lists split).

    Codes group the rows exactly as the values do (:func:`mlci.io.read_table`'s
    ``codes=``), and a text column is never held as one string per row.

    Examples
    --------
    >>> grouping_codes(["speaker", None, "label"], ["label", "a,b"])
    ['speaker']
    """
    taken = {c for entry in data if entry for c in _split_list(entry)}
    return [c for c in groups if c and c not in taken]


def load_input(
    args: argparse.Namespace,
    columns: Sequence[str | None] | None = None,
    codes: Sequence[str | None] = (),
) -> tuple[Any, str]:
    """Read the table named by ``args.file`` (or the bundled example): (table, name).

    The table is a :class:`mlci.io.Table` (a dict of columns that knows each row's line).
    ``columns``: the only columns the command uses (None entries ignored); all if None.
    Comma-separated entries (``--pred a,b``) are split.  ``codes``: columns the command
    only groups by (conditions, strata), read as integer codes (``read_table(codes=)``).
    """
    used = None
    if columns is not None:
        used = {c for entry in columns if entry for c in _split_list(entry)}
    coded = [c for c in codes if c]
    if args.example and args.file:
        raise CLIError("give either FILE or --example, not both.")
    if args.example:
        path = example_path()
        return read_table(path, used, codes=coded), f"example ({path.name})"
    if not args.file:
        raise CLIError(
            "no input: give a predictions FILE (CSV/TSV, JSON Lines or Parquet), or --example."
        )
    if str(args.file) == "-":
        return read_table(_stdin_file(), used, codes=coded), "<stdin>"
    try:
        return read_table(args.file, used, codes=coded), str(args.file)
    except FileNotFoundError as exc:
        raise CLIError(str(exc)) from None
    except IsADirectoryError:  # pragma: no cover - read_table checks first
        raise CLIError(f"{args.file} is a directory; give a CSV or Parquet file.") from None


def _stdin_file() -> str:
    """Standard input (``FILE`` given as ``-``) copied to a temporary file, removed at
    exit; JSON Lines are recognised by a first character ``{``, Parquet by its magic
    bytes, anything else is read as delimited text."""
    import atexit
    import os
    import tempfile

    data = sys.stdin.buffer.read()
    if not data.strip():
        raise CLIError("FILE '-': standard input is empty; pipe a table into the command.")
    suffix = ".jsonl" if data.lstrip()[:1] == b"{" else ""
    fd, path = tempfile.mkstemp(prefix="mlci-stdin-", suffix=suffix)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)

    def remove() -> None:
        if os.path.exists(path):
            os.remove(path)

    atexit.register(remove)
    return path


def get_column(cols: Mapping[str, np.ndarray], name: str, flag: str) -> np.ndarray:
    """The column ``name``; a missing one names the columns available."""
    if name not in cols:
        every = list(getattr(cols, "all_columns", cols))
        close = difflib.get_close_matches(name, every, n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise CLIError(f"{flag} {name!r}: no such column.{hint} Columns: {', '.join(every)}.")
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
            n_rows = rows.size
            raise CLIError(
                f"{source}: column {col!r} ({option}) has {n_rows} missing "
                f"value{'s' * (n_rows > 1)} (empty, NA, NaN, null...) on {_where(table, rows)}"
                f"{also}. Every sample needs a value: fill {'them' if n_rows > 1 else 'it'} in, "
                "or pass --dropna to leave out the rows with a missing value in any column used "
                "(the output says how many)."
            )
    for k, c in cols.items():
        option, col, kind = wanted[k]
        if kind in ("numbers", "scores", "counts"):
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
        if kind in ("numbers", "counts") and c.dtype.kind == "f":
            inf = np.flatnonzero(np.isinf(c))
            if inf.size:
                raise CLIError(
                    f"{source}: column {col!r} ({option}) holds an infinite value on "
                    f"{_where(table, inf)}; every value must be finite."
                )
        if kind == "counts":
            _check_counts(table, source, option, col, c)
    specs = {
        k: ArgSpec("numbers" if kind == "counts" else kind) for k, (_, _, kind) in wanted.items()
    }
    try:
        got = gather(specs, cols, dropna=dropna, dropna_name="--dropna")
    except (ValueError, TypeError) as exc:
        raise CLIError(f"{source}: {cli_message(str(exc), names)}") from None
    return dict(got.arrays), got.n_dropped, names


def _check_counts(table: Any, source: str, option: str, col: str, c: np.ndarray) -> None:
    """A column of frequency weights (``--frequency-weight``): whole numbers >= 0, the
    first bad cell named by its line (missing cells are left to ``--dropna``)."""
    w = np.asarray(c, dtype=float)
    bad = np.flatnonzero(~np.isnan(w) & ((w < 0) | (w != np.round(w))))
    if bad.size:
        raise CLIError(
            f"{source}: column {col!r} ({option}) must hold counts (whole numbers >= 0: how "
            f"many times each row occurred), but {_where(table, bad[:1])} holds "
            f"{w[bad[0]]:.6g}. Survey or importance weights (any number >= 0) go to --weight."
        )


def add_frequency_weight(group: Any) -> None:
    """``--frequency-weight COL``: the count of every row (:func:`mlci.frequency_weights`)."""
    group.add_argument(
        "--frequency-weight",
        metavar="COL",
        help="how many times each row occurred (whole numbers >= 0): every row counts as that "
        "many samples, so the interval is that of the file with the rows repeated "
        "(mlci.frequency_weights; --weight is a survey/importance weight instead)",
    )


def frequency_weight_column(
    args: Any, wanted: dict[str, tuple[str, str, str]], clash: bool
) -> None:
    """Ask for the ``--frequency-weight`` column as ``sample_weight`` (``clash``: ``--weight``
    is the metric's ``sample_weight`` too, which the two cannot share)."""
    if args.frequency_weight is None:
        return
    if clash:
        raise CLIError(
            "give --weight (a survey/importance weight per row) or --frequency-weight (how "
            "many times each row occurred), not both: the metric takes one sample weight."
        )
    wanted["sample_weight"] = ("--frequency-weight", args.frequency_weight, "counts")


def as_frequency_weights(args: Any, arrays: dict[str, Any]) -> None:
    """Wrap the ``--frequency-weight`` column read by :func:`read_columns` as counts."""
    if args.frequency_weight is not None and "sample_weight" in arrays:
        arrays["sample_weight"] = FrequencyWeights(arrays["sample_weight"])


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
    if "ratings" in METRICS[key].inputs:
        raise CLIError(
            f"--metric {name!r} takes a matrix of ratings (items x raters): use `mlci "
            f"agreement FILE --raters COL,COL,... --metric {key}`."
        )
    if key in NO_COLUMNS:  # metrics over other inputs than columns (mlci.metrics.mt)
        raise CLIError(f"--metric {name!r}: {NO_COLUMNS[key]}.")
    return METRICS[key]


#: metrics that do not take a table's columns: where to compute them instead
NO_COLUMNS = {
    "bleu": "corpus BLEU is computed from text files with mlci mt ci / mlci mt compare",
    "chrf": "corpus chrF is computed from text files with mlci mt ci / mlci mt compare",
    "wer": "give per-utterance WER as --value and word counts as --weight with --metric "
    "weighted_mean (the same corpus WER)",
}


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


def _call_api(names: Mapping[str, str], fn: Callable[..., Any], /, *a: Any, **kw: Any) -> Any:
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
            if f"`{key}" in raw
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


def _print_rows(rows: Sequence[Sequence[str]], left: set[int]) -> None:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        cells = [
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        print("  ".join(cells).rstrip())


def default_method() -> str:
    """The interval method the library uses by default (the command line follows it),
    read from :func:`mlci.bootstrap_ci` when first asked: the engine (and scipy) is then
    imported only by the subcommands that resample through it, not by ``mlci mt``."""
    from ..engine.bootstrap import bootstrap_ci

    return str(inspect.signature(bootstrap_ci).parameters["method"].default)


def __getattr__(name: str) -> Any:
    """``DEFAULT_METHOD``: :func:`default_method`, computed on first use."""
    if name == "DEFAULT_METHOD":
        return default_method()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def add_resampling_arguments(
    group: Any,
    *,
    method: bool = True,
    alternative: bool = True,
    n_resamples: int | None = 1000,
    n_resamples_help: str = "bootstrap replicates (default 1000)",
) -> None:
    """The options every resampling command shares: ``--method`` (bootstrap methods),
    ``-B``, ``--seed``, ``--confidence-level`` and ``--alternative``."""
    if method:
        group.add_argument(
            "--method",
            default=default_method(),
            choices=INTERVAL_METHODS,
            help=f"bootstrap interval method (default {default_method()})",
        )
    group.add_argument(
        "-B", "--n-resamples", type=int, default=n_resamples, metavar="N", help=n_resamples_help
    )
    group.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="random seed; without it one is drawn and printed, so a run can be repeated",
    )
    group.add_argument(
        "--confidence-level", type=float, default=0.95, metavar="L", help="default 0.95"
    )
    if alternative:
        group.add_argument(
            "--alternative",
            default="two-sided",
            choices=("two-sided", "less", "greater"),
            help="two-sided (default); greater: a lower bound only; less: an upper bound only",
        )


# ------------------------------------------------------------------------- output
#: the output formats of every command (``--format``)
FORMATS = ("table", "csv", "md", "json")


def add_output_arguments(p: argparse.ArgumentParser, *, plot: str | None = None) -> None:
    """``--format``, ``--json``, ``--digits``, ``--quiet`` (and ``--plot`` if ``plot``).

    ``plot`` describes the picture, e.g. ``"a forest plot of the intervals"``.
    """
    o = p.add_argument_group("output")
    o.add_argument(
        "--format",
        default="table",
        choices=FORMATS,
        help="table (default), csv, md (markdown) or json (strict: no NaN/Infinity)",
    )
    o.add_argument("--json", action="store_true", help="same as --format json")
    o.add_argument(
        "--digits", type=_digits, default=4, help="decimals in the table (0 to 15; default 4)"
    )
    o.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print only the results: no comment lines, warnings or progress bar",
    )
    if plot:
        o.add_argument(
            "--plot",
            metavar="FILE",
            help=f"also draw {plot} into FILE (.png, .svg or .pdf; needs matplotlib)",
        )


@dataclass
class OutTable:
    """One table of a command's output: a title, column names and rows of cells."""

    title: str | None
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)


@dataclass
class Output:
    """What a command prints: ``notes`` (``# ...`` lines), tables, footer notes, JSON."""

    notes: list[str] = field(default_factory=list)
    tables: list[OutTable] = field(default_factory=list)
    footer: list[str] = field(default_factory=list)
    data: Any = None


def output_format(args: argparse.Namespace) -> str:
    return "json" if getattr(args, "json", False) else getattr(args, "format", "table")


def _cell(x: Any, digits: int, fmt: str) -> str:
    if x is None:
        return "" if fmt == "csv" else "-"
    if isinstance(x, bool | np.bool_):
        return str(bool(x)).lower()
    if isinstance(x, int | np.integer):
        return str(int(x))
    if isinstance(x, float | np.floating) or (isinstance(x, np.ndarray) and x.dtype.kind == "f"):
        arr = np.asarray(x, dtype=float)
        if fmt == "csv":
            if arr.ndim:
                return " ".join(_cell(float(v), digits, fmt) for v in arr)
            v = float(arr)
            return "" if math.isnan(v) else repr(v)
        if arr.ndim == 0 and math.isnan(float(arr)):
            return "-"
        return _fmt_num(arr, digits)
    return str(x)


def _left_aligned(table: OutTable) -> set[int]:
    """Columns of text (left-aligned); numbers are right-aligned."""
    left = set()
    for i in range(len(table.columns)):
        cells = [r[i] for r in table.rows]
        if any(isinstance(c, str) and c not in ("-", "") for c in cells) or not cells:
            left.add(i)
    return left


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def render(out: Output, fmt: str, digits: int = 4, *, quiet: bool = False) -> str:
    """The text of ``out`` in format ``fmt`` (one of :data:`FORMATS`).

    Examples
    --------
    >>> o = Output(["demo"], [OutTable(None, ["metric", "estimate"], [["auc", 0.91234]])])
    >>> print(render(o, "table", 2))
    # demo
    metric  estimate
    auc         0.91
    >>> print(render(o, "csv"))
    metric,estimate
    auc,0.91234
    >>> print(render(o, "md", 3))
    demo
    <BLANKLINE>
    | metric | estimate |
    | --- | --: |
    | auc | 0.912 |
    """
    if fmt == "json":
        data = out.data
        if data is None:
            data = {
                "notes": out.notes,
                "tables": [
                    {
                        "title": t.title,
                        "rows": [dict(zip(t.columns, r, strict=True)) for r in t.rows],
                    }
                    for t in out.tables
                ],
            }
        return json.dumps(json_safe(data), indent=2, allow_nan=False)
    lines: list[str] = []
    if fmt == "table":
        if not quiet:
            lines += [f"# {n}" for n in out.notes]
        for i, t in enumerate(out.tables):
            if i:
                lines.append("")
            if t.title and len(out.tables) > 1:
                lines.append(f"## {t.title}")
            rows = [t.columns, *[[_cell(c, digits, fmt) for c in r] for r in t.rows]]
            widths = [max(len(r[j]) for r in rows) for j in range(len(t.columns))]
            left = _left_aligned(t)
            for r in rows:
                cells = [
                    c.ljust(w) if j in left else c.rjust(w)
                    for j, (c, w) in enumerate(zip(r, widths, strict=True))
                ]
                lines.append("  ".join(cells).rstrip())
        if not quiet:
            lines += [f"# {n}" for n in out.footer]
    elif fmt == "csv":
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        for i, t in enumerate(out.tables):
            if len(out.tables) > 1:
                if i:
                    buf.write("\n")
                buf.write(f"# {t.title}\n")
            writer.writerow(t.columns)
            writer.writerows([[_cell(c, digits, fmt) for c in r] for r in t.rows])
        lines.append(buf.getvalue().rstrip("\n"))
    elif fmt == "md":
        if not quiet and out.notes:
            lines += ["  \n".join(out.notes), ""]
        for i, t in enumerate(out.tables):
            if i:
                lines.append("")
            if t.title and len(out.tables) > 1:
                lines += [f"### {t.title}", ""]
            left = _left_aligned(t)
            lines.append("| " + " | ".join(_md_escape(c) for c in t.columns) + " |")
            lines.append(
                "| "
                + " | ".join("---" if j in left else "--:" for j in range(len(t.columns)))
                + " |"
            )
            for r in t.rows:
                lines.append("| " + " | ".join(_md_escape(_cell(c, digits, fmt)) for c in r) + " |")
        if not quiet and out.footer:
            lines += ["", "  \n".join(out.footer)]
    else:  # pragma: no cover - argparse checks the choices
        raise CLIError(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}.")
    return "\n".join(lines)


def comparison_tables(
    res: Any, name: str, unit: str, title: str | None = None
) -> tuple[OutTable, OutTable]:
    """The two tables of a :class:`~mlci.ComparisonResult`: one row per
    system (``unit`` names them: ``"system"``, ``"run"``), headed ``title`` (default
    ``name``), and one per paired difference with its raw and adjusted p-values, headed
    ``"<name> differences"``.  ``mlci mt compare`` and ``mlci ir compare`` print these."""
    t = OutTable(name if title is None else title, [unit, "estimate", "low", "high", "method"])
    for nm, r in res.systems.items():
        t.rows.append([nm, r.estimate, *r.confidence_interval, r.method])
    d = OutTable(
        f"{name} differences",
        ["pair", "difference", "low", "high", "pvalue", "pvalue_adj"],
    )
    for row in res.rows("differences"):
        d.rows.append(
            [
                f"{row['a']} - {row['b']}",
                row["estimate"],
                row["low"],
                row["high"],
                row["pvalue"],
                row["pvalue_adjusted"],
            ]
        )
    return t, d


def emit(out: Output, args: argparse.Namespace) -> int:
    """Print ``out`` as the user asked (``--format``/``--json``, ``--digits``, ``--quiet``)."""
    fmt = output_format(args)
    quiet = getattr(args, "quiet", False)
    if fmt == "csv" and not quiet:  # keep the CSV on stdout clean; the notes go to stderr
        for n in [*out.notes, *out.footer]:
            print(f"# {n}", file=sys.stderr)
    print(render(out, fmt, getattr(args, "digits", 4), quiet=quiet))
    return 0


def relay_warnings(
    caught: Sequence[warnings.WarningMessage],
    names: Mapping[str, str],
    args: argparse.Namespace,
    prefix: str = "",
) -> list[str]:
    """Print the library's warnings in command-line terms (unless ``--quiet``); return them."""
    msgs = list(dict.fromkeys(cli_message(str(w.message), names) for w in caught))
    if not getattr(args, "quiet", False):
        for msg in msgs:
            print(f"mlci: warning: {prefix}{msg}", file=sys.stderr)
    return msgs


@contextmanager
def catching() -> Iterator[list[warnings.WarningMessage]]:
    """Record the library's warnings (to print them once, in command-line terms)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def save_figure(fig: Any, path: str) -> None:
    """Write a matplotlib figure; a bad path or format is an error naming --plot."""
    import matplotlib.pyplot as plt

    try:
        fig.savefig(path, bbox_inches="tight")
    except (OSError, ValueError) as exc:
        raise CLIError(f"--plot {path}: {_one_line(exc)}") from None
    finally:
        plt.close(fig)


def require_plotting(args: argparse.Namespace) -> Any:
    """mlci.plotting with the Agg backend, or an error naming --plot."""
    try:
        import matplotlib
    except ImportError:
        raise CLIError(
            f"--plot {args.plot}: drawing needs matplotlib: pip install matplotlib "
            "(or pip install '.[plot]' in mlci's repository)."
        ) from None
    matplotlib.use("Agg")
    from .. import plotting

    ext = args.plot.rsplit(".", 1)[-1].lower() if "." in args.plot else ""
    if ext not in ("png", "svg", "pdf"):
        raise CLIError(f"--plot {args.plot}: give a file name ending in .png, .svg or .pdf.")
    return plotting
