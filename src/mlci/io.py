"""Read a predictions table (CSV, TSV or Parquet) into named numpy columns.

The core depends on numpy and scipy only, so CSV is read with the standard library.
Columns whose values all look like numbers become numeric arrays (int when every value
is an integer, else float, with empty cells as NaN); ``true``/``false`` columns become
booleans; anything else stays a string array.  Parquet needs the optional ``pyarrow``.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["convert_column", "read_table"]

_MISSING = {"", "na", "nan", "null", "none"}


def convert_column(values: list[str]) -> np.ndarray:
    """Strings from a text table -> int, float, bool or str array (see the module doc).

    Examples
    --------
    >>> convert_column(["0", "1", "1"]).dtype.kind, convert_column(["0.5", ""]).tolist()
    ('i', [0.5, nan])
    >>> convert_column(["happy", "sad"]).tolist(), convert_column(["True", "false"]).tolist()
    (['happy', 'sad'], [True, False])
    """
    stripped = [v.strip() for v in values]
    present = [v for v in stripped if v.lower() not in _MISSING]
    if present and all(v.lower() in ("true", "false") for v in present):
        if len(present) == len(stripped):
            return np.array([v.lower() == "true" for v in stripped], dtype=bool)
    if present:
        if len(present) == len(stripped):
            try:
                return np.array([int(v) for v in stripped], dtype=np.int64)
            except ValueError:
                pass
        try:
            return np.array(
                [float(v) if v.lower() not in _MISSING else np.nan for v in stripped],
                dtype=float,
            )
        except ValueError:
            pass
    return np.array(stripped, dtype=str)


def _sniff_delimiter(path: Path, first_line: str) -> str:
    if path.suffix.lower() in (".tsv", ".tab"):
        return "\t"
    counts = {d: first_line.count(d) for d in (",", "\t", ";")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] > 0 else ","


def _read_csv(path: Path) -> dict[str, np.ndarray]:
    with open(path, newline="", encoding="utf-8-sig") as fh:
        first = fh.readline()
        fh.seek(0)
        reader = csv.reader(fh, delimiter=_sniff_delimiter(path, first))
        try:
            header = next(reader)
        except StopIteration:
            raise ValueError(f"{path} is empty: expected a header line and rows.") from None
        header = [h.strip() for h in header]
        dup = sorted({h for h in header if header.count(h) > 1})
        if dup:
            raise ValueError(f"{path}: duplicated column name(s) {', '.join(dup)}.")
        cols: list[list[str]] = [[] for _ in header]
        for lineno, row in enumerate(reader, start=2):
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) != len(header):
                raise ValueError(
                    f"{path}, line {lineno}: {len(row)} fields but the header has {len(header)}."
                )
            for c, v in zip(cols, row, strict=True):
                c.append(v)
    if not cols or not cols[0]:
        raise ValueError(f"{path} has a header but no rows.")
    return {h: convert_column(c) for h, c in zip(header, cols, strict=True)}


def _read_parquet(path: Path) -> dict[str, np.ndarray]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ValueError(
            f"Reading Parquet ({path.name}) needs pyarrow, which is not installed: "
            "pip install 'mlci[parquet]' (or convert the file to CSV)."
        ) from None
    table = pq.read_table(path)
    out: dict[str, np.ndarray] = {}
    for name in table.column_names:
        arr = np.asarray(table.column(name).to_numpy(zero_copy_only=False))
        if arr.dtype == object:
            arr = np.array(["" if v is None else str(v) for v in arr], dtype=str)
        out[name] = arr
    return out


def read_table(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Columns of a CSV/TSV (stdlib reader) or Parquet (pyarrow) file, as numpy arrays.

    Parameters
    ----------
    path : str or path-like
        ``.parquet``/``.pq`` files are read with pyarrow; anything else as delimited text
        (comma, tab or semicolon, from the header line).

    Returns
    -------
    dict of str -> ndarray
        One array per column, in file order.

    Examples
    --------
    >>> from mlci.data import example_path
    >>> cols = read_table(example_path())
    >>> cols["label"][:2].tolist(), cols["is_angry"].dtype.kind
    (['happy', 'angry'], 'i')
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"No such file: {p}")
    if p.is_dir():
        raise ValueError(f"{p} is a directory; give a CSV or Parquet file.")
    if p.suffix.lower() in (".parquet", ".pq"):
        return _read_parquet(p)
    return _read_csv(p)
