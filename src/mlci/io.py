"""Read a predictions table (CSV/TSV, also gzipped, Parquet or JSON Lines) into numpy columns.

* **Readers.**  With pyarrow installed (``pip install ".[files]"``), CSV/TSV (``.gz``
  too) and JSON Lines are read by pyarrow's multithreaded columnar readers, reading only
  the columns asked for (``columns=``) with their types inferred once; Parquet always
  needs pyarrow.  Without pyarrow, CSV/TSV and JSON Lines are read with the standard
  library (the core depends on numpy and scipy only), and only the columns asked for are
  converted.  Both readers give the same columns (same types, same missing cells) and the
  same errors; ``docs/cli.md`` has the measurements (``benchmarks/bench_files.py``).

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
* **Text columns are read-only.**  A text column without missing cells read by pyarrow
  is made from its few distinct values and their codes (no Python string per row); the
  input gate then encodes it without looking at the rows again
  (:func:`mlci.inputs.encoded_take`).  To change such a column, copy it first
  (``table["label"].copy()``).
* **Integer codes.**  Columns named in ``codes=`` (a command's conditions or strata,
  say) come as integer codes into their sorted distinct values, kept in
  :attr:`Table.categories`: a text column read as a dictionary (Parquet text, or CSV text
  read by pyarrow) goes from the file's dictionary codes to these codes without ever
  holding a string per row (5 million rows of 7-character labels: 10 MiB of codes
  instead of 134 MiB of text).  The codes group the rows exactly as the values do, in
  the values' sorted order.  A column with missing cells comes as usual (the input gate
  names them).
* **Where a row came from.**  :func:`read_table` returns a :class:`Table`, a dict of
  columns that also knows the file line of every row, so that errors can name it.

Encodings: UTF-8 (with or without a byte-order mark) and UTF-16 with a byte-order mark;
any other encoding is an error naming the file and the line, with the command that
re-encodes it.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .feedback import working
from .inputs import (
    TEXT_MISSING,
    dictionary_codes,
    encoded_take,
    fast_unique,
    missing_mask,
    native_values,
)

__all__ = ["Table", "convert_column", "read_table"]

#: file name endings read as JSON Lines (one JSON object per line)
JSONL_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")

_DECIMAL_COMMA = re.compile(r"[+-]?(?:\d+,\d*|,\d+|\d+)(?:[eE][+-]?\d+)?")


class Table(dict[str, Any]):
    """Columns of a file, ``name -> ndarray`` in file order, and where each row came from.

    Parameters
    ----------
    columns : mapping of str -> ndarray
    path : path-like
        The file read.
    lines : ndarray of int or callable, optional
        The file line on which each row starts (the header is line 1), or a function
        that finds them (called only when a message needs a line: the fast reader does
        not count lines); None for files without lines (Parquet), whose rows are then
        counted from 1.
    all_columns : sequence of str, optional
        Every column of the file (the table may hold only those asked for).
    categories : mapping of str -> ndarray, optional
        For the columns held as integer codes (``read_table(..., codes=)``): their sorted
        distinct values, so that ``categories[name][table[name]]`` is the column.

    Examples
    --------
    >>> t = Table({"y": np.array([0, 1, 1])}, "x.csv", lines=np.array([2, 3, 5]))
    >>> t.where([1, 2]), t.n_rows
    ('lines 3, 5', 3)
    """

    def __init__(
        self,
        columns: Mapping[str, np.ndarray],
        path: str | os.PathLike[str],
        lines: Any = None,
        all_columns: Sequence[str] | None = None,
        categories: Mapping[str, np.ndarray] | None = None,
    ) -> None:
        super().__init__(columns)
        self.path = Path(path)
        self._lines = lines if lines is None or callable(lines) else np.asarray(lines, np.int64)
        self.all_columns = list(columns) if all_columns is None else list(all_columns)
        self.categories: dict[str, np.ndarray] = dict(categories or {})

    @property
    def lines(self) -> np.ndarray | None:
        """The file line of every row (found on first use for the fast reader)."""
        if callable(self._lines):
            self._lines = np.asarray(self._lines(), dtype=np.int64)
        return self._lines

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


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(2) == b"\x1f\x8b"


def _open_binary(path: Path) -> Any:
    return gzip.open(path, "rb") if _is_gzip(path) else open(path, "rb")


def _bare_suffix(path: Path) -> str:
    """``.csv`` of ``x.csv`` and of ``x.csv.gz``."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return suffixes[-1] if suffixes else ""


def _sniff_delimiter(path: Path, first_line: str) -> str:
    if _bare_suffix(path) in (".tsv", ".tab"):
        return "\t"
    counts = {d: first_line.count(d) for d in (",", "\t", ";")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] > 0 else ","


def _encoding(path: Path) -> str:
    with _open_binary(path) as fh:
        head = fh.read(4)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"  # Excel's "Unicode text"; the BOM gives the byte order
    return "utf-8-sig"  # UTF-8, with or without a byte-order mark


def _not_utf8(path: Path, exc: UnicodeDecodeError | None = None) -> ValueError:
    with _open_binary(path) as fh:
        raw = fh.read()
    try:
        raw.decode("utf-8")
        start = exc.start if exc is not None else 0
    except UnicodeDecodeError as full:
        start = full.start
    line = raw.count(b"\n", 0, start) + 1
    bad = raw[start : start + 1].hex()
    return ValueError(
        f"{path} is not UTF-8 text (byte 0x{bad} on line {line}; Latin-1 or Windows-1252, "
        f"perhaps): re-encode it as UTF-8, e.g. `iconv -f latin1 -t utf-8 {path.name} > "
        f"{path.stem}.utf8{path.suffix}`, or save it as 'CSV UTF-8'."
    )


def _header(path: Path) -> tuple[list[str], str, str]:
    """(column names, delimiter, encoding) from the first line of a text table."""
    encoding = _encoding(path)
    try:
        with _open_binary(path) as raw, io.TextIOWrapper(raw, encoding=encoding, newline="") as fh:
            first = fh.readline()
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, exc) from None
    if not first.strip():
        raise ValueError(f"{path} is empty: expected a header line and rows.")
    delimiter = _sniff_delimiter(path, first)
    header = [h.strip() for h in next(csv.reader([first], delimiter=delimiter))]
    dup = sorted({h for h in header if header.count(h) > 1})
    if dup:
        raise ValueError(f"{path}: duplicated column name(s) {', '.join(dup)}.")
    return header, delimiter, encoding


def _csv_rows(path: Path) -> Iterable[tuple[int, list[str]]]:
    """(line, fields) of every data row of a text table (blank lines skipped)."""
    _, delimiter, encoding = _header(path)
    try:
        with _open_binary(path) as raw, io.TextIOWrapper(raw, encoding=encoding, newline="") as fh:
            reader = csv.reader(fh, delimiter=delimiter)
            next(reader)
            start = reader.line_num + 1
            for row in reader:
                lineno, start = start, reader.line_num + 1
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
                yield lineno, row
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, exc) from None
    except csv.Error as exc:
        raise ValueError(f"{path}, line {reader.line_num}: {exc}.") from None


def _csv_lines(path: Path) -> np.ndarray:
    """The file line of every data row (for messages; the fast reader does not count)."""
    return np.array([line for line, _ in _csv_rows(path)], dtype=np.int64)


def _wanted(header: Sequence[str], columns: Collection[str] | None) -> list[str]:
    """The columns to read: those asked for that exist (a missing one is the caller's
    error to give, with the list of columns), in file order; all without ``columns``."""
    if columns is None:
        return list(header)
    asked = set(columns)
    return [h for h in header if h in asked]


def _read_csv(path: Path, columns: Collection[str] | None = None) -> Table:
    """The standard library's reader; converts only the columns asked for."""
    header, delimiter, _ = _header(path)
    keep = _wanted(header, columns)
    index = [header.index(h) for h in keep]
    cols: list[list[str]] = [[] for _ in keep]
    lines: list[int] = []
    for lineno, row in _csv_rows(path):
        if len(row) != len(header):
            raise _ragged(path, lineno, len(row), len(header), delimiter)
        for c, i in zip(cols, index, strict=True):
            c.append(row[i])
        lines.append(lineno)
    if not lines:
        raise ValueError(f"{path} has a header but no rows.")
    comma = delimiter != ","
    converted = {h: convert_column(c, decimal_comma=comma) for h, c in zip(keep, cols, strict=True)}
    return Table(converted, path, lines=lines, all_columns=header)


def _ragged(path: Path, lineno: int, got: int, want: int, delimiter: str) -> ValueError:
    return ValueError(
        f"{path}, line {lineno}: {got} fields but the header has {want} (separator "
        f"{delimiter!r}); every row needs one field per column (quote fields that contain "
        "the separator)."
    )


def _pyarrow() -> Any:
    """pyarrow, or None when it is not installed (the standard library reads then)."""
    try:
        import pyarrow
    except ImportError:
        return None
    return pyarrow


def _null_spellings() -> list[str]:
    """Every case variant pyarrow must treat as missing (it compares exactly)."""
    out = set()
    for t in TEXT_MISSING:
        out |= {t, t.upper(), t.title(), t.capitalize()}
    return sorted(out)


def _looks_numeric(text: str) -> bool:
    try:
        _number(text.replace(",", "."), float)
    except ValueError:
        return False
    return True


def _arrow_text_column(col: Any, pa: Any, pc: Any, decimal_comma: bool) -> np.ndarray:
    """A column pyarrow left as text, as the standard library's reader gives it.

    Text labels (the usual case) stay vectorised: missing spellings with blanks around
    them (`` NA ``) are found with pyarrow's compute functions.  A column whose first
    value looks like a number (blanks around numbers, decimal commas) goes through
    :func:`convert_column`, as in the standard library's reader.
    """
    trimmed = pc.utf8_trim_whitespace(col)
    missing = pc.or_kleene(
        pc.is_null(col), pc.is_in(pc.utf8_lower(trimmed), value_set=pa.array(sorted(TEXT_MISSING)))
    )
    missing = np.asarray(missing.to_numpy(zero_copy_only=False), dtype=bool)
    present = (
        pc.filter(trimmed, pc.invert(pa.chunked_array([missing]))) if missing.any() else trimmed
    )
    first = present[0].as_py() if len(present) else None
    if first is None or _looks_numeric(first) or first.lower() in ("true", "false"):
        values = col.to_pylist()
        return convert_column(["" if v is None else v for v in values], decimal_comma=decimal_comma)
    text = np.asarray(trimmed.to_numpy(zero_copy_only=False))
    if not missing.any():
        return text.astype(str)
    out = np.empty(len(text), dtype=object)
    out[:] = text
    out[missing] = None
    return out


def _coded(values: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, categories)`` of a column given as distinct ``values`` (no missing one)
    and every row's index into them: the categories sorted (equal values merged), the
    codes of the smallest integer type that holds them."""
    categories, rank = np.unique(values, return_inverse=True)
    small = np.min_scalar_type(max(len(categories) - 1, 0))
    return rank.reshape(-1).astype(small)[codes], categories


def _arrow_dictionary_column(
    col: Any, decimal_comma: bool, as_codes: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """A dictionary-encoded text column: each distinct value converted once, then taken.

    The chunks' dictionaries are unified through their few values
    (:func:`mlci.inputs.dictionary_codes`); the distinct values go through
    :func:`convert_column` (missing spellings, numbers, decimal commas), so the column is
    what the standard library's reader gives, at the cost of the distinct values plus
    one take of integer codes (no Python object per row).  ``as_codes``: the rows' codes
    into the sorted distinct values instead (no text per row), when no cell is missing.
    Returns ``(column, categories)``, ``categories`` None unless the column is codes.
    """
    words, codes = dictionary_codes(col)
    texts = ["" if w is None else w for w in words]
    nulls = bool(codes.size) and codes.min() < 0
    if nulls:
        texts.append("")  # the null cells: code -1 takes this last entry
    values = convert_column(texts, decimal_comma=decimal_comma)
    if nulls or values.dtype == object:
        return values[codes], None
    if as_codes:
        return _coded(values, codes)
    # read-only; its encoding known to the gate (dictionary_codes keeps used words only)
    return encoded_take(values, codes, every_category_used=True), None


def _arrow_columns(
    table: Any, path: Path, decimal_comma: bool, codes: Collection[str] = ()
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The columns of a pyarrow table as numpy, and the categories of those in ``codes``
    that come as integer codes (dictionary-encoded, nothing missing)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.types as pa_types

    out = {}
    categories = {}
    for name in table.column_names:
        col = table.column(name)
        if pa_types.is_dictionary(col.type):  # text of few distinct values (labels...)
            out[name], cats = _arrow_dictionary_column(col, decimal_comma, name in codes)
            if cats is not None:
                categories[name] = cats
        elif pa_types.is_string(col.type) or pa_types.is_large_string(col.type):
            out[name] = _arrow_text_column(col, pa, pc, decimal_comma)
        elif pa_types.is_null(col.type):  # every cell missing
            arr = np.empty(len(col), dtype=object)
            arr[:] = None
            out[name] = arr
        elif pa_types.is_timestamp(col.type) or pa_types.is_date(col.type):
            out[name] = convert_column(
                ["" if v is None else str(v) for v in pc.cast(col, "string").to_pylist()]
            )
        else:
            out[name] = _parquet_column(name, col, pa_types)
    return out, categories


def _read_csv_arrow(
    path: Path, columns: Collection[str] | None, pa: Any, codes: Collection[str] = ()
) -> Table:
    """pyarrow's columnar CSV reader: only the columns asked for, types inferred once."""
    import pyarrow.csv as pacsv

    header, delimiter, encoding = _header(path)
    if encoding == "utf-16":  # rare (Excel's "Unicode text"): the standard library
        return _read_csv(path, columns)
    keep = _wanted(header, columns)
    if not keep:  # none of the columns asked for: the caller names them
        return Table({}, path, all_columns=header)
    read = pacsv.ReadOptions(column_names=header, skip_rows=1, use_threads=True)
    # a quoted field with a line break makes pyarrow fail (then the standard library reads
    # the file): allowing them would halve pyarrow's speed on every file
    parse = pacsv.ParseOptions(delimiter=delimiter, newlines_in_values=False)
    convert = pacsv.ConvertOptions(
        include_columns=keep,
        null_values=_null_spellings(),
        strings_can_be_null=True,
        true_values=["true", "True", "TRUE"],
        false_values=["false", "False", "FALSE"],
        timestamp_parsers=[],
        auto_dict_encode=True,  # labels, conditions: each distinct text converted once
        auto_dict_max_cardinality=10_000,
    )
    # a path lets pyarrow read in parallel (and decompress a .gz); a gzipped file with
    # another name goes through a Python file object
    gz_by_name = path.suffix.lower() == ".gz"
    source = str(path) if gz_by_name or not _is_gzip(path) else None
    try:
        with working("file"):  # one step on the progress bar: pyarrow reads it whole
            table = _arrow_read_csv(pacsv, source, path, read, parse, convert)
    except pa.ArrowInvalid as exc:
        text = str(exc)
        if "UTF8" in text or "utf8" in text.lower():
            raise _not_utf8(path) from None
        # a ragged row, a bad quote...: the standard library's reader names the line
        return _read_csv(path, columns)
    # the reader's buffers (about twice the file) stay with Arrow's allocator unless
    # handed back: a 5-million-row run would hold them to its end
    pa.default_memory_pool().release_unused()
    if table.num_rows == 0:
        raise ValueError(f"{path} has a header but no rows.")
    cols, categories = _arrow_columns(table, path, decimal_comma=delimiter != ",", codes=codes)
    del table
    pa.default_memory_pool().release_unused()
    return Table(
        cols, path, lines=lambda: _csv_lines(path), all_columns=header, categories=categories
    )


def _arrow_read_csv(
    pacsv: Any, source: str | None, path: Path, read: Any, parse: Any, convert: Any
) -> Any:
    """pyarrow's CSV reader on a path (parallel, .gz by name) or a Python file object."""
    if source is not None:
        return pacsv.read_csv(
            source, read_options=read, parse_options=parse, convert_options=convert
        )
    with _open_binary(path) as fh:
        return pacsv.read_csv(fh, read_options=read, parse_options=parse, convert_options=convert)


def _jsonl_records(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    encoding = _encoding(path)
    try:
        with _open_binary(path) as raw, io.TextIOWrapper(raw, encoding=encoding) as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(f"{path}, line {lineno}: not JSON ({exc.msg}).") from None
                if not isinstance(record, dict):
                    raise ValueError(
                        f"{path}, line {lineno}: a JSON Lines table needs one object "
                        f'({{"column": value, ...}}) per line; got {type(record).__name__}.'
                    )
                yield lineno, record
    except UnicodeDecodeError as exc:
        raise _not_utf8(path, exc) from None


def _json_cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def _read_jsonl(path: Path, columns: Collection[str] | None = None) -> Table:
    """JSON Lines with the standard library: cells through the same conversion as CSV."""
    records = list(_jsonl_records(path))
    if not records:
        raise ValueError(f"{path} is empty: expected one JSON object per line.")
    header = list(dict.fromkeys(k for _, r in records for k in r))
    keep = _wanted(header, columns)
    cols = {h: convert_column([_json_cell(r.get(h)) for _, r in records]) for h in keep}
    return Table(cols, path, lines=[n for n, _ in records], all_columns=header)


def _read_jsonl_arrow(path: Path, columns: Collection[str] | None, pa: Any) -> Table:
    import pyarrow.json as pajson

    try:
        with _open_binary(path) as fh:
            table = pajson.read_json(fh)
    except pa.ArrowInvalid:  # the standard library's reader names the line
        return _read_jsonl(path, columns)
    header = table.column_names
    keep = _wanted(header, columns)
    cols, _ = _arrow_columns(table.select(keep), path, decimal_comma=False)
    lines: Callable[[], Any] = lambda: [n for n, _ in _jsonl_records(path)]  # noqa: E731
    return Table(cols, path, lines=lines, all_columns=header)


def _to_numpy(col: Any) -> np.ndarray:
    """A pyarrow (chunked) array as numpy.

    Integers and floats without nulls are read from their buffers: pyarrow's own
    ``to_numpy`` imports pandas when it is installed (a second or more at start-up).
    """
    import pyarrow.types as pa_types

    chunks = col.chunks if hasattr(col, "chunks") else [col]
    t = col.type
    if col.null_count == 0 and (pa_types.is_integer(t) or pa_types.is_floating(t)):
        dtype = np.dtype(t.to_pandas_dtype())
        parts = [
            np.frombuffer(
                c.buffers()[1], dtype=dtype, count=len(c), offset=c.offset * dtype.itemsize
            )
            for c in chunks
        ]
        return np.concatenate(parts) if len(parts) != 1 else parts[0].copy()
    return np.asarray(col.to_numpy(zero_copy_only=False))


def _parquet_column(name: str, col: Any, pa_types: Any) -> np.ndarray:
    """One pyarrow column as numpy; nulls become NaN (floats) or None (object arrays)."""
    nulls = col.null_count > 0
    arr = _to_numpy(col)
    if not nulls:
        return native_values(arr, name) if arr.dtype == object else arr
    if pa_types.is_floating(col.type):
        return arr  # nulls are NaN already
    out = np.empty(len(col), dtype=object)
    out[:] = col.to_pylist()
    return out


def _parquet_text(
    name: str, col: Any, as_codes: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """A Parquet text column read as a dictionary: the distinct values once, then one
    take of integer codes (no Python object per row), the array the CSV reader gives;
    with nulls an object array with None (Parquet's text is never re-parsed).
    ``as_codes``: the rows' codes into the sorted distinct values instead, when no cell
    is null.  Returns ``(column, categories)``, ``categories`` None unless codes."""
    words, codes = dictionary_codes(col)
    if codes.size and codes.min() < 0:
        values = np.empty(len(words) + 1, dtype=object)
        values[: len(words)] = words
        values[-1] = None
        return values[codes], None
    distinct = np.empty(len(words), dtype=object)
    distinct[:] = words
    distinct = native_values(distinct, name)
    if as_codes:
        return _coded(distinct, codes)
    return encoded_take(distinct, codes, every_category_used=True), None


def _read_parquet(
    path: Path, columns: Collection[str] | None = None, codes: Collection[str] = ()
) -> Table:
    """The columns asked for, read one at a time (text as dictionary codes), so that the
    peak is one column's Arrow buffers beside the arrays already converted; Arrow's pool
    is handed back after each (it would otherwise keep the largest column's buffers)."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
        import pyarrow.types as pa_types
    except ImportError:
        raise ValueError(
            f"Reading Parquet ({path.name}) needs pyarrow, which is not installed: "
            "pip install pyarrow (or pip install '.[files]' in mlci's repository; or "
            "convert the file to CSV)."
        ) from None
    try:
        schema = pq.read_schema(path)
        text = [
            f.name for f in schema if pa_types.is_string(f.type) or pa_types.is_large_string(f.type)
        ]
        pf = pq.ParquetFile(path, read_dictionary=text)
    except Exception as exc:  # pyarrow raises its own ArrowInvalid/ArrowException
        raise ValueError(f"{path} could not be read as Parquet: {exc}") from None
    if pf.metadata.num_rows == 0:
        raise ValueError(f"{path} has no rows.")
    names = list(schema.names)
    keep = names if columns is None else _wanted(names, columns)
    out = {}
    categories = {}
    for name in keep:
        try:
            with working("column"):  # counted on the progress bar (a long file's read)
                col = pf.read(columns=[name]).column(0)
        except Exception as exc:
            raise ValueError(f"{path} could not be read as Parquet: {exc}") from None
        if pa_types.is_dictionary(col.type):
            out[name], cats = _parquet_text(name, col, name in codes)
            if cats is not None:
                categories[name] = cats
        else:
            out[name] = _parquet_column(name, col, pa_types)
        del col
        pa.default_memory_pool().release_unused()
    return Table(out, path, all_columns=None if columns is None else names, categories=categories)


def _to_codes(table: Table, codes: Collection[str]) -> Table:
    """The columns named in ``codes`` that the reader gave as values (not dictionary
    text), without missing cells, replaced by their codes (:func:`mlci.inputs.fast_unique`:
    sorted distinct values, O(n) for labels)."""
    for name in codes:
        values = table.get(name)
        if values is None or name in table.categories or values.ndim != 1:
            continue
        if values.dtype == object or missing_mask(values).any():
            continue  # missing cells (or mixed types): the input gate names them
        categories, inverse = fast_unique(values)
        table[name] = inverse.astype(np.min_scalar_type(max(len(categories) - 1, 0)))
        table.categories[name] = categories
    return table


def read_table(
    path: str | os.PathLike[str],
    columns: Collection[str] | None = None,
    *,
    engine: str = "auto",
    codes: Collection[str] = (),
) -> Table:
    """Columns of a CSV/TSV (``.gz`` too), JSON Lines or Parquet file, as numpy arrays.

    Parameters
    ----------
    path : str or path-like
        ``.parquet``/``.pq`` files (or any file that starts with Parquet's magic bytes)
        are read with pyarrow; ``.jsonl``/``.ndjson`` (``.gz`` too) as JSON Lines;
        anything else as delimited text (comma, tab or semicolon, from the header line),
        gzipped or not.
    columns : collection of str, optional
        Read only these columns (names the file does not have are left out: the caller
        reports them with :attr:`Table.all_columns`).  Default: every column.
    engine : {"auto", "pyarrow", "python"}, default "auto"
        ``"auto"``: pyarrow's columnar readers when pyarrow is installed, else the
        standard library's.  Both give the same columns.
    codes : collection of str, default ()
        Columns to return as integer codes into their sorted distinct values, which
        :attr:`Table.categories` holds (``table.categories[name][table[name]]`` is the
        column): for grouping columns (conditions, strata), whose values only name the
        groups.  Text read as a dictionary (Parquet text; CSV text read by pyarrow) is
        never held as one string per row.  A column with missing cells comes as usual.
        Names that are not read are ignored.

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
    >>> list(read_table(example_path(), columns=["pred", "label"], engine="python"))
    ['label', 'pred']
    >>> t = read_table(example_path(), codes=["label"])
    >>> t["label"][:2].tolist(), t.categories["label"][t["label"][:2]].tolist()
    ([1, 0], ['happy', 'angry'])
    """
    if engine not in ("auto", "pyarrow", "python"):
        raise ValueError(f"`engine` must be 'auto', 'pyarrow' or 'python'; got {engine!r}.")
    if isinstance(codes, str) or not all(isinstance(c, str) for c in codes):
        raise TypeError(
            f"`codes` must be a collection of column names (e.g. ['speaker']); got {codes!r}."
        )
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"No such file: {p}")
    if p.is_dir():
        raise ValueError(f"{p} is a directory; give a CSV, JSON Lines or Parquet file.")
    with open(p, "rb") as fh:
        magic = fh.read(4)
    codes = set(codes)
    if p.suffix.lower() in (".parquet", ".pq") or magic == b"PAR1":
        return _to_codes(_read_parquet(p, columns, codes), codes)
    pa = None if engine == "python" else _pyarrow()
    if engine == "pyarrow" and pa is None:
        raise ValueError("`engine='pyarrow'` needs pyarrow: pip install pyarrow.")
    jsonl = "".join(s.lower() for s in p.suffixes[-2:]).endswith(JSONL_SUFFIXES)
    if jsonl:
        table = _read_jsonl(p, columns) if pa is None else _read_jsonl_arrow(p, columns, pa)
    else:
        table = _read_csv(p, columns) if pa is None else _read_csv_arrow(p, columns, pa, codes)
    return _to_codes(table, codes)
