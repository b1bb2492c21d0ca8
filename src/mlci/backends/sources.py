"""Where the data lives: files, DuckDB relations and SQL, Spark, Dask and polars frames.

:func:`open_source` turns a source into a lazy frame of the dataframe-agnostic layer
`narwhals <https://narwhals-dev.github.io/narwhals/>`_, which writes the reductions of
:mod:`mlci.backends.reduction` once for every engine: DuckDB relations, PySpark and Dask
DataFrames and polars LazyFrames are all narwhals lazy frames, and a ``group_by(...).agg(...)``
on one of them runs *inside* that engine (SQL in DuckDB, Spark aggregations, Dask's
tree reduction, polars' streaming engine).  Only the reduced table comes back to Python.

Why narwhals rather than ibis: narwhals is a small pure-Python package with no
dependency, wraps the user's own objects (a ``pyspark.sql.DataFrame`` stays one, on the
user's session), and its lazy API covers what a reduction needs (``group_by``, ``len``,
``sum``, ``min``/``max``, ``when``, ``floor``, ``is_nan``); ibis would bring its own
expression compiler and connection objects.

Files (a path, a glob such as ``'preds/*.parquet'``, or a list of them) are read by
DuckDB, embedded, in a connection mlci opens with a memory limit and a spill directory
(:func:`duckdb_connection`): a reduction larger than memory spills to disk instead of
failing.  CSV cells spelled like a missing value (``NA``, ``null``, empty...: the input
gate's :data:`mlci.inputs.TEXT_MISSING`) are null, as in :mod:`mlci.io`.
"""

from __future__ import annotations

import glob
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..inputs import TEXT_MISSING, check_choice

__all__ = [
    "DEFAULT_MEMORY_LIMIT",
    "ENGINES",
    "Source",
    "duckdb_connection",
    "engine_error",
    "engine_message",
    "expand_paths",
    "open_source",
]

#: engines a reduction can run in (``engine=``)
ENGINES = ("duckdb", "spark", "dask", "polars")
#: DuckDB's memory limit in connections opened by mlci (it spills to disk beyond it)
DEFAULT_MEMORY_LIMIT = "1GB"

_PARQUET = (".parquet", ".pq")
_TEXT = (".csv", ".tsv", ".txt")


def require(module: str, extra: str) -> Any:
    """Import an optional engine, or an ImportError naming the extra that installs it."""
    try:
        return __import__(module)
    except ImportError:
        raise ImportError(
            f"This needs {module!r}, which is not installed: pip install 'mlci[{extra}]'."
        ) from None


@dataclass(frozen=True)
class Source:
    """A lazy frame in its engine, and how to name it in messages.

    Attributes
    ----------
    frame : narwhals.LazyFrame
    engine : str
        ``"duckdb"``, ``"spark"``, ``"dask"`` or ``"polars"``.
    name : str
        The files (or ``"a DuckDB relation"``...) for messages and results.
    paths : tuple of str
        The files read, when the source is files.
    """

    frame: Any
    engine: str
    name: str
    paths: tuple[str, ...] = ()


def expand_paths(source: str | os.PathLike[str] | Sequence[Any]) -> list[str]:
    """The files a path, glob or list of them names; an error naming what matched nothing."""
    items = [source] if isinstance(source, str | os.PathLike) else list(source)
    if not items:
        raise ValueError("`source` is an empty list of files.")
    files: list[str] = []
    for item in items:
        if not isinstance(item, str | os.PathLike):
            raise TypeError(
                f"`source` must be a path, a glob, a list of them or a data frame; got a list "
                f"holding {type(item).__name__}."
            )
        text = os.fspath(item)
        if glob.has_magic(text):
            found = sorted(glob.glob(text, recursive=True))
            found = [f for f in found if os.path.isfile(f)]
            if not found:
                raise FileNotFoundError(f"`source`: no file matches {text!r}.")
            files += found
        elif os.path.isdir(text):
            raise IsADirectoryError(
                f"`source`: {text!r} is a directory; give a file or a glob such as "
                f"'{os.path.join(text, '*.parquet')}'."
            )
        elif not os.path.exists(text):
            raise FileNotFoundError(f"`source`: no such file: {text!r}.")
        else:
            files.append(text)
    kinds = {_file_kind(f) for f in files}
    if len(kinds) > 1:
        raise ValueError(
            f"`source` mixes Parquet and text files ({', '.join(files[:4])}); read them "
            "separately or convert them to one format."
        )
    return files


def _file_kind(path: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in _PARQUET:
        return "parquet"
    if suffix in _TEXT:
        return "csv"
    raise ValueError(
        f"`source`: {path!r} is neither Parquet (.parquet) nor CSV/TSV (.csv, .tsv, .txt)."
    )


def duckdb_connection(
    memory_limit: str | None = None, temp_directory: str | os.PathLike[str] | None = None
) -> Any:
    """A DuckDB connection with a memory limit, spilling to ``temp_directory`` beyond it."""
    duckdb = require("duckdb", "duckdb")
    limit = DEFAULT_MEMORY_LIMIT if memory_limit is None else memory_limit
    if not isinstance(limit, str) or not limit.strip():
        raise TypeError(f"`memory_limit` must be a size such as '1GB'; got {limit!r}.")
    if temp_directory is not None and not isinstance(temp_directory, str | os.PathLike):
        raise TypeError(
            f"`temp_directory` must be a directory path; got {type(temp_directory).__name__}."
        )
    temp = temp_directory if temp_directory is not None else tempfile.gettempdir()
    temp = os.path.join(os.fspath(temp), f"mlci-duckdb-{os.getpid()}")
    try:
        con = duckdb.connect(
            config={
                "memory_limit": limit,
                "temp_directory": temp,
                "preserve_insertion_order": False,
            }
        )
    except duckdb.Error as exc:
        raise ValueError(
            f"`memory_limit` {limit!r} or `temp_directory` {temp!r} refused by DuckDB: {exc}"
        ) from None
    # no progress bar: it would print into mlci's output (and its --json) on long reads
    con.execute("SET enable_progress_bar = false")
    return con


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _read_files(con: Any, files: list[str]) -> Any:
    listed = "[" + ", ".join(_sql_string(f) for f in files) + "]"
    if _file_kind(files[0]) == "parquet":
        return con.sql(f"SELECT * FROM read_parquet({listed}, union_by_name = true)")
    spellings = sorted({v for t in TEXT_MISSING for v in (t, t.upper(), t.title())})
    nulls = "[" + ", ".join(_sql_string(v) for v in spellings) + "]"
    return con.sql(
        f"SELECT * FROM read_csv({listed}, header = true, union_by_name = true, nullstr = {nulls})"
    )


def _describe(files: list[str]) -> str:
    if len(files) == 1:
        return files[0]
    return f"{len(files)} files ({files[0]}, ...)"


def _is_sql(text: str) -> bool:
    head = text.lstrip().split(None, 1)
    return len(head) == 2 and head[0].lower() in ("select", "with", "from")


def open_source(
    source: Any,
    *,
    engine: str | None = None,
    memory_limit: str | None = None,
    temp_directory: str | os.PathLike[str] | None = None,
) -> Source:
    """The lazy frame of a source, in the engine that will reduce it.

    Parameters
    ----------
    source : path, glob, list of paths, SQL query, or a frame
        Parquet or CSV/TSV files (read by DuckDB), a SQL query (``"SELECT ..."``, run by
        DuckDB in mlci's connection), a DuckDB relation, a PySpark DataFrame, a Dask
        DataFrame, a polars LazyFrame or DataFrame, a pandas DataFrame or a pyarrow Table
        (the last two scanned in place by DuckDB).
    engine : {"duckdb", "spark", "dask", "polars"}, optional
        Default: the source's own engine (DuckDB for files, SQL, pandas and pyarrow).
    memory_limit, temp_directory
        For the DuckDB connection mlci opens (files, SQL, pandas, pyarrow): DuckDB's
        ``memory_limit`` (default :data:`DEFAULT_MEMORY_LIMIT`) and where it spills.  A
        relation you pass runs in your connection, with its own settings.

    Returns
    -------
    Source
    """
    if engine is not None:
        check_choice("engine", engine, ENGINES)
    nw = require("narwhals", "duckdb")
    module = type(source).__module__.split(".", 1)[0]
    if isinstance(source, str) and _is_sql(source):
        _expect(engine, "duckdb", "a SQL query")
        con = duckdb_connection(memory_limit, temp_directory)
        rel = _guard(lambda: con.sql(source), "the SQL query `source`")
        return Source(nw.from_native(rel), "duckdb", "SQL query")
    if isinstance(source, str | os.PathLike) or (
        isinstance(source, list | tuple) and source and isinstance(source[0], str | os.PathLike)
    ):
        _expect(engine, "duckdb", "files")
        files = expand_paths(source)
        con = duckdb_connection(memory_limit, temp_directory)
        name = _describe(files)
        rel = _guard(lambda: _read_files(con, files), name)
        return Source(nw.from_native(rel), "duckdb", name, tuple(files))
    if module == "duckdb":
        _expect(engine, "duckdb", "a DuckDB relation")
        return Source(nw.from_native(source), "duckdb", "DuckDB relation")
    if module == "pyspark":
        _expect(engine, "spark", "a Spark DataFrame")
        return Source(nw.from_native(source), "spark", "Spark DataFrame")
    if module in ("dask", "dask_expr"):
        _expect(engine, "dask", "a Dask DataFrame")
        return Source(nw.from_native(source), "dask", "Dask DataFrame")
    if module == "polars" and engine in (None, "polars"):
        frame = source.lazy() if hasattr(source, "lazy") else source
        return Source(nw.from_native(frame), "polars", "polars frame")
    if module in ("pandas", "pyarrow", "polars"):
        _expect(engine, "duckdb", f"a {module} table")
        con = duckdb_connection(memory_limit, temp_directory)
        rel = con.from_arrow(source) if module in ("pyarrow", "polars") else con.from_df(source)
        return Source(nw.from_native(rel), "duckdb", f"{module} table")
    raise TypeError(
        "`source` must be a path or glob of Parquet/CSV files, a SQL query, or a DuckDB "
        "relation, Spark, Dask, polars or pandas frame; got "
        f"{type(source).__name__}."
    )


def _expect(engine: str | None, native: str, what: str) -> None:
    if engine is not None and engine != native:
        raise ValueError(
            f"`engine={engine!r}` cannot read {what}; it is read by {native!r} "
            f"(leave `engine` unset, or pass the data as a frame of that engine)."
        )


def engine_error(exc: BaseException) -> bool:
    """True for the errors an engine raises about the data (not mlci's own), and for an
    operating system's error met while reading (a file gone: Dask and polars raise
    Python's ``FileNotFoundError``)."""
    mod = type(exc).__module__.split(".", 1)[0]
    engines = ("duckdb", "_duckdb", "pyspark", "py4j", "dask", "distributed", "polars")
    return mod in engines or isinstance(exc, OSError)


#: words of the line that says what went wrong in an engine's (multi-line) message
_TELLING = ("no such file", "does not exist", "not exist", "filenotfound", "not found")


def engine_message(exc: BaseException) -> str:
    """The line of an engine's error that says what is wrong: the one naming a missing
    file if there is one (Spark's first line names only the Java call that failed), else
    the first line."""
    text = str(exc).strip()
    if not text:
        return type(exc).__name__
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if any(w in ln.lower() for w in _TELLING):
            return ln[:500]
    return lines[0][:500]


def _guard(make: Any, name: str) -> Any:
    try:
        return make()
    except Exception as exc:
        if engine_error(exc):
            raise OSError(f"{name}: {engine_message(exc)}") from None
        raise
