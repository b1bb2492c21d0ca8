"""What ``mlci ci`` calls to read its input through DuckDB instead of into memory.

:func:`ci_engine` decides (``--engine``, or automatically: a glob, or a file larger than
:data:`LARGE_FILE`), and :func:`run_ci` reduces the file once per family of metrics (one
table serves accuracy, f1, mcc...) and bootstraps every metric from it.  The command
line itself (options, output) stays in :mod:`mlci.cli`.
"""

from __future__ import annotations

import glob
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .table import AtomTable, metric_family, reduce_table

__all__ = ["CLI_ENGINES", "LARGE_FILE", "ci_engine", "run_ci"]

#: values of ``mlci ci --engine``
CLI_ENGINES = ("memory", "duckdb")
#: files larger than this (bytes) are read through DuckDB when ``--engine`` is not given
LARGE_FILE = 256 * 2**20


def ci_engine(file: str | None, engine: str | None, example: bool = False) -> str:
    """``"memory"`` or ``"duckdb"``: ``engine`` if given; else DuckDB for a glob or a file
    larger than :data:`LARGE_FILE` (the bundled example and small files: memory).

    Examples
    --------
    >>> ci_engine("preds/*.parquet", None), ci_engine("small.csv", None)
    ('duckdb', 'memory')
    """
    if engine is not None:
        return engine
    if example or not file:
        return "memory"
    if glob.has_magic(file):
        return "duckdb"
    try:
        return "duckdb" if os.path.getsize(file) > LARGE_FILE else "memory"
    except OSError:
        return "memory"  # the in-memory reader names the missing file


def run_ci(
    file: str,
    metrics: Sequence[Any],
    columns: Callable[[Any], Mapping[str, tuple[str, str, str]]],
    options: Callable[[Any, AtomTable], dict[str, Any]],
    *,
    dropna: bool,
    two_stage: bool,
    bootstrap: Mapping[str, Any],
    score_bins: int | None = None,
) -> tuple[list[tuple[str, dict[str, Any], Any]], str, int, list[str]]:
    """Reduce ``file`` (a path or glob) in DuckDB and bootstrap every metric.

    Parameters
    ----------
    file : str
    metrics : sequence of MetricInfo
    columns : callable
        ``columns(info)`` -> role -> (option, column, kind), the design's roles included.
    options : callable
        ``options(info, table)`` -> the metric's options (``pos_label``...), read against
        the table's labels.
    dropna, two_stage : bool
    score_bins : int, optional
        Ranking metrics: at most this many score bins (default: :func:`reduce_table`'s).
    bootstrap : mapping
        ``n_resamples``, ``confidence_level``, ``method``, ``alternative``, ``rng``.

    Returns
    -------
    (results, source, n_dropped, warnings)
        ``results``: (metric, options, BootstrapResult) per metric; the warnings' texts.
    """
    if two_stage:
        raise ValueError(
            "--two-stage resamples the samples inside each condition, which needs every "
            "sample in memory: use --engine memory."
        )
    tables: dict[tuple[Any, ...], AtomTable] = {}
    results = []
    caught_all: list[str] = []
    source, n_dropped = Path(file).name, 0
    for info in metrics:
        cols = columns(info)
        inputs = [cols[i][1] for i in info.inputs]
        reduce_kw: dict[str, Any] = {k: cols[k][1] for k in ("conditions", "strata") if k in cols}
        family = metric_family(info.name)
        key = (family, "" if family == "confusion" else info.name, *inputs)
        if score_bins and family == "ranking":
            reduce_kw["score_bins"] = score_bins
        if key not in tables:
            shared = [m.name for m in metrics if metric_family(m.name) == "confusion"]
            tables[key] = reduce_table(
                file,
                *inputs,
                metric=shared if family == "confusion" else info.name,
                dropna=dropna,
                **reduce_kw,
            )
        table = tables[key]
        source, n_dropped = table.source, table.n_dropped
        opts = options(info, table)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = table.bootstrap_ci(
                info.name,
                pos_label=opts.get("pos_label"),
                average=opts.get("average", "default"),
                metric_kwargs={k: opts[k] for k in ("beta", "weights") if k in opts},
                **bootstrap,
            )
        caught_all += [str(w.message) for w in caught]
        results.append((info.name, opts, res))
    return results, source, n_dropped, caught_all
