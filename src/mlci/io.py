"""Read a predictions table (CSV, TSV or Parquet) into named numpy columns.

The core depends on numpy and scipy only, so CSV is read with the standard library.

* **Missing cells.**  A cell whose text is one of :data:`mlci.inputs.TEXT_MISSING`
  (empty, ``NA``, ``N/A``, ``NaN``, ``null``, ``None``, ...; case-insensitive, blanks
  stripped) is *missing* in every column type, text columns included, so that the input
  gate (:func:`mlci.inputs.gather`, :func:`mlci.inputs.missing_mask`) sees it.  Parquet
  nulls are missing too.
* **Types.**  Columns whose present values all look like integers become ``int64``, like
  numbers ``float64``, ``true``/``false`` booleans; anything else stays text (``str``).
  A column *with* missing cells is a ``float64`` array with NaN when its values are
  non-integer numbers, and otherwise an object array holding ``None`` at the missing
  cells and ints, booleans or strings elsewhere (so that dropping the missing rows gives
  back the column's own type).
* **Decimal commas.**  In files separated by ``;`` or tabs, a column whose values are all
  numbers written with a decimal comma (``0,5``) is read as numbers.  A file separated by
  commas cannot hold them unquoted, and quoted ones stay text.
* **Where a row came from.**  :func:`read_table` returns a :class:`Table`, a dict of
  columns that also knows the file line of every row, so that errors can name it.

Encodings: UTF-8 (with or without a byte-order mark) and UTF-16 with a byte-order mark;
any other encoding is an error naming the file and the line, with the command that
re-encodes it.
"""

from __future__ import annotations

import csv
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .inputs import TEXT_MISSING, native_values

__all__ = ["Table", "convert_column", "read_table"]

_DECIMAL_COMMA = re.compile(r"[+-]?(?:\d+,\d*|,\d+|\d+)(?:[eE][+-]?\d+)?")


class Table(dict):  # type: ignore[type-arg]
    """Columns of a file, ``name -> ndarray`` in file order, and where each row came from.

    Parameters
    ----------
    columns : mapping of str -> ndarray
    path : path-like
        The file read.
    lines : ndarray of int, optional
        The file line on which each row starts (the header is line 1); None for files
        without lines (Parquet), whose rows are then counted from 1.

    Examples
    --------
    >>> t = Table({"y": np.array([0, 1, 1])}, "x.csv", lines=np.array([2, 3, 5]))
    >>> t.where([1, 2]), t.n_rows
    ('lines 3, 5', 3)
    """

    def __init__(
        self, columns: Mapping[str, np.ndarray], path: str | os.PathLike[str], lines: Any = None
    ) -> None:
        super().__init__(columns)
        self.path = Path(path)
        self.lines = None if lines is None else np.asarray(lines, dtype=np.int64)

    @property
    def n_rows(self) -> int:
        """Number of data rows."""
        return len(next(iter(self.values()))) if self else 0

    def line_of(self, row: int) -> int:
        """File line (or 1-based row number, for Parquet) of the 0-based data row ``row``."""
        return int(self.lines[row]) if self.lines is not None else int(row) + 1

    def where(self, rows: Sequence[int] | np.ndarray, limit: int = 5) -> str:
        """``"line 5"``, ``"lines 5, 9, ..."`` (or ``"row 3"`` for Parquet) of data rows."""
        rows = np.asarray(rows, dtype=np.int64).ravel()
        word = "line" if self.lines is not None else "row"
        shown = ", ".join(str(self.line_of(r)) for r in rows[:limit])
        more = ", ..." if rows.size > limit else ""
        return f"{word}{'s' if rows.size > 1 else ''} {shown}{more}"


def _is_missing(text: str) -> bool:
    return text.lower() in TEXT_MISSING


def _parse_all(texts: list[str], parse: Any) -> list[Any] | None:
    try:
        return [parse(t) for t in texts]
    except (ValueError, OverflowError):
        return None


def _decimal_comma(text: str) -> float:
    if not _DECIMAL_COMMA.fullmatch(text):
        raise ValueError(text)
    return float(text.replace(",", "."))


def _number(text: str, parse: Any) -> Any:
    # Python's int()/float() accept "1_000": an ID such as "1_2" must not become 12
    if "_" in text:
        raise ValueError(text)
    return parse(text)


def convert_column(values: Sequence[str], *, decimal_comma: bool = False) -> np.ndarray:
    """Strings from a text table -> int, float, bool or str array (see the module doc).

    Parameters
    ----------
    values : sequence of str
        The cells of one column.
    decimal_comma : bool, default False
        Also read numbers written with a decimal comma (``"0,5"``), when every value is
        such a number or an integer.

    Returns
    -------
    ndarray
        ``int64``, ``float64`` (NaN where missing), ``bool`` or ``str`` without missing
        cells; with missing cells, ``float64`` with NaN for non-integer numbers, else an
        object array with ``None`` where a cell is missing.

    Examples
    --------
    >>> convert_column(["0", "1", "1"]).dtype.kind, convert_column(["0.5", ""]).tolist()
    ('i', [0.5, nan])
    >>> convert_column(["happy", "sad"]).tolist(), convert_column(["True", "false"]).tolist()
    (['happy', 'sad'], [True, False])
    >>> convert_column(["pos", "NA", "neg"]).tolist(), convert_column(["1", "null"]).tolist()
    (['pos', None, 'neg'], [1, None])
    >>> convert_column(["0,5", "1"], decimal_comma=True).tolist()
    [0.5, 1.0]
    """
    stripped = [v.strip() for v in values]
    missing = [_is_missing(v) for v in stripped]
    present = [v for v, m in zip(stripped, missing, strict=True) if not m]
    any_missing = len(present) < len(stripped)

    def build(parsed: list[Any], dtype: Any) -> np.ndarray:
        if not any_missing:
            return np.array(parsed, dtype=dtype)
        it = iter(parsed)
        if dtype is float:
            return np.array([np.nan if m else next(it) for m in missing], dtype=float)
        out = np.empty(len(stripped), dtype=object)
        out[:] = [None if m else next(it) for m in missing]
        return out

    if not present:
        return build([], object)
    if all(v.lower() in ("true", "false") for v in present):
        return build([v.lower() == "true" for v in present], bool)
    ints = _parse_all(present, lambda t: _number(t, int))
    if ints is not None and all(-(2**63) <= i < 2**63 for i in ints):
        return build(ints, np.int64)
    floats = _parse_all(present, lambda t: _number(t, float))
    if floats is None and decimal_comma:
        floats = _parse_all(present, _decimal_comma)
    if floats is not None:
        return build(floats, float)
    return build(present, str)


def _sniff_delimiter(path: Path, first_line: str) -> str:
    if path.suffix.lower() in (".tsv", ".tab"):
        return "\t"
    counts = {d: first_line.count(d) for d in (",", "\t", ";")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] > 0 else ","


def _encoding(path: Path) -> str:
    with open(path, "rb") as fh:
        head = fh.read(4)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"  # Excel's "Unicode text"; the BOM gives the byte order
    return "utf-8-sig"  # UTF-8, with or without a byte-order mark


def _not_utf8(path: Path, exc: UnicodeDecodeError) -> ValueError:
    raw = path.read_bytes()
    try:
        raw.decode("utf-8")
        start = exc.start
    except UnicodeDecodeError as full:
        start = full.start
    line = raw.count(b"\n", 0, start) + 1
    bad = raw[start : start + 1].hex()
    return ValueError(
        f"{path} is not UTF-8 text (byte 0x{bad} on line {line}; Latin-1 or Windows-1252, "
        f"perhaps): re-encode it as UTF-8, e.g. `iconv -f latin1 -t utf-8 {path.name} > "
        f"{path.stem}.utf8{path.suffix}`, or save it as 'CSV UTF-8'."
    )


def _read_csv(path: Path) -> Table:
    encoding = _encoding(path)
    try:
        with open(path, newline="", encoding=encoding) as fh:
            first = fh.readline()
            fh.seek(0)
            delimiter = _sniff_delimiter(path, first)
            reader = csv.reader(fh, delimiter=delimiter)
            try:
                header = next(reader)
            except StopIteration:
                raise ValueError(f"{path} is empty: expected a header line and rows.") from None
            header = [h.strip() for h in header]
            dup = sorted({h for h in header if header.count(h) > 1})
            if dup:
                raise ValueError(f"{path}: duplicated column name(s) {', '.join(dup)}.")
            cols: list[list[str]] = [[] for _ in header]
            lines: list[int] = []
            start = reader.line_num + 1
            for row in reader:
                lineno, start = start, reader.line_num + 1
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
                if len(row) != len(header):
                    raise ValueError(
                        f"{path}, line {lineno}: {len(row)} fields but the header has "
                        f"{len(header)} (separator {delimiter!r}); every row needs one field "
                        "per column (quote fields that contain the separator)."
                    )
                for c, v in zip(cols, row, strict=True):
                    c.append(v)
                lines.append(lineno)
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, exc) from None
    except csv.Error as exc:
        raise ValueError(f"{path}, line {reader.line_num}: {exc}.") from None
    if not cols or not cols[0]:
        raise ValueError(f"{path} has a header but no rows.")
    comma = delimiter != ","
    columns = {h: convert_column(c, decimal_comma=comma) for h, c in zip(header, cols, strict=True)}
    return Table(columns, path, lines=lines)


def _parquet_column(name: str, col: Any, pa_types: Any) -> np.ndarray:
    """One pyarrow column as numpy; nulls become NaN (floats) or None (object arrays)."""
    nulls = col.null_count > 0
    arr = np.asarray(col.to_numpy(zero_copy_only=False))
    if not nulls:
        return native_values(arr, name) if arr.dtype == object else arr
    if pa_types.is_floating(col.type):
        return arr  # nulls are NaN already
    out = np.empty(len(col), dtype=object)
    out[:] = col.to_pylist()
    return out


def _read_parquet(path: Path) -> Table:
    try:
        import pyarrow.parquet as pq
        import pyarrow.types as pa_types
    except ImportError:
        raise ValueError(
            f"Reading Parquet ({path.name}) needs pyarrow, which is not installed: "
            "pip install 'mlci[parquet]' (or convert the file to CSV)."
        ) from None
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow raises its own ArrowInvalid/ArrowException
        raise ValueError(f"{path} could not be read as Parquet: {exc}") from None
    if table.num_rows == 0:
        raise ValueError(f"{path} has no rows.")
    columns = {
        name: _parquet_column(name, table.column(name), pa_types) for name in table.column_names
    }
    return Table(columns, path)


def read_table(path: str | os.PathLike[str]) -> Table:
    """Columns of a CSV/TSV (stdlib reader) or Parquet (pyarrow) file, as numpy arrays.

    Parameters
    ----------
    path : str or path-like
        ``.parquet``/``.pq`` files (or any file that starts with Parquet's magic bytes)
        are read with pyarrow; anything else as delimited text (comma, tab or semicolon,
        from the header line).

    Returns
    -------
    Table
        A dict with one array per column, in file order (missing cells as NaN or None,
        see the module doc), that also knows each row's line in the file.

    Examples
    --------
    >>> from mlci.data import example_path
    >>> cols = read_table(example_path())
    >>> cols["label"][:2].tolist(), cols["is_angry"].dtype.kind
    (['happy', 'angry'], 'i')
    >>> cols.where([0])  # the first data row is the file's line 2
    'line 2'
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"No such file: {p}")
    if p.is_dir():
        raise ValueError(f"{p} is a directory; give a CSV or Parquet file.")
    with open(p, "rb") as fh:
        magic = fh.read(4)
    if p.suffix.lower() in (".parquet", ".pq") or magic == b"PAR1":
        return _read_parquet(p)
    return _read_csv(p)
