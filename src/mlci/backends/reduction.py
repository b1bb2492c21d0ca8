"""Reductions computed inside the engine that holds the data: only small tables come back.

Three reductions, each one ``group_by(...).agg(...)`` on a narwhals lazy frame (see
:mod:`mlci.backends.sources`), so the same code runs in DuckDB, Spark, Dask and polars:

* :func:`count_rows`: the number of rows of every distinct combination of the design
  (stratum, condition) and the metric's inputs.  A confusion-matrix metric's kernel only
  depends on those counts, so the bootstrap from this table is *exactly* the in-memory
  one (same seed, same interval).  Also exact for any metric whose inputs take few
  distinct values (0/1 losses, rounded probabilities).
* :func:`unit_sums`: for additive metrics (``mean``, ``weighted_mean``, ``mae``, ``mse``,
  ``rmse``) with conditions, the per-condition sums of the metric's summands: a replicate
  is ``g(u @ S)`` for condition counts ``u``, the in-memory replicate up to the order of
  floating-point additions.
* :func:`score_histogram`: for ranking metrics, the counts of (label, score bin) on a
  fine grid, merged into quantile bins (:mod:`mlci.backends.quantise`); the error this
  makes is bounded from the table and reported.

Missing values follow mlci's one policy: a null (or NaN) in a used column is an error
naming the column and the source, unless ``dropna=True``; the rows dropped are counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..feedback import working
from .sources import Source, engine_error, engine_message

__all__ = [
    "Reduced",
    "check_columns",
    "count_rows",
    "score_histogram",
    "unit_sums",
]

#: reserved names of the aggregated columns
_N = "__mlci_n"
_MISSING = "__mlci_missing"
_NONFINITE = "__mlci_nonfinite"
_NUM = "__mlci_num"
_DEN = "__mlci_den"
_NEG = "__mlci_negative"
_NONBINARY = "__mlci_nonbinary"
_BIN = "__mlci_bin"
_LO = "__mlci_lo"
_HI = "__mlci_hi"

#: input roles read as numbers (must be a numeric column)
NUMERIC_ROLES = ("y_score", "values", "weights")


@dataclass(frozen=True)
class Reduced:
    """A reduced table: one row per group, with its number of samples.

    Attributes
    ----------
    columns : dict of str -> ndarray
        The group keys by role (``"y_true"``, ``"conditions"``...; ``"score_bin"`` for a
        histogram) and, for :func:`unit_sums`, the sums ``"num"`` and ``"den"`` (and for
        a metric of ``values``, ``"nonbinary"``: how many are neither 0 nor 1).
    counts : ndarray of float
        Samples in each group.
    n_dropped : int
        Rows left out for a missing value (``dropna=True``).
    extra : dict
        Reduction-specific facts (the score grid of a histogram).
    """

    columns: dict[str, np.ndarray]
    counts: np.ndarray
    n_dropped: int
    extra: dict[str, Any] = field(default_factory=dict)


def _nw() -> Any:
    import narwhals as nw

    return nw


def check_columns(source: Source, wanted: Mapping[str, str]) -> None:
    """Every wanted column exists, with a type the engine can aggregate (role -> column)."""
    nw = _nw()
    try:
        schema = dict(source.frame.collect_schema())
    except Exception as exc:
        if engine_error(exc):
            raise OSError(f"{source.name}: {engine_message(exc)}") from None
        raise
    for role, col in wanted.items():
        if not isinstance(col, str):
            raise TypeError(
                f"`{role}` must be a column name of `source`; got {type(col).__name__}."
            )
        if col not in schema:
            raise ValueError(
                f"`{role}`: no column {col!r} in {source.name}. Its columns: "
                f"{', '.join(list(schema)[:20])}{', ...' if len(schema) > 20 else ''}."
            )
        dtype = schema[col]
        if role in NUMERIC_ROLES and not dtype.is_numeric():
            raise TypeError(
                f"`{role}`: column {col!r} of {source.name} has type {dtype}, but {role} must "
                "be numbers; cast it (e.g. in SQL: CAST(col AS DOUBLE)) or pick another column."
            )
        nested = (nw.List, nw.Array, nw.Struct, nw.Object, nw.Unknown)
        if isinstance(dtype, nested) or dtype in nested:
            raise TypeError(
                f"`{role}`: column {col!r} of {source.name} has type {dtype}, which cannot be "
                "grouped; labels, decisions and conditions must be numbers, booleans or text."
            )


def _collect(source: Source, make: Any) -> Any:
    """Run a query in the engine; an engine's error (a file gone, a bad cast) names the
    source, and nothing partial is returned."""
    try:
        with working("pass"):  # one pass over the data: counted on the progress bar
            return make().collect()
    except Exception as exc:
        if engine_error(exc):
            raise OSError(f"{source.name}: {engine_message(exc)}") from None
        raise


def _numpy(df: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """A collected column as numpy, and its missing mask (null, or NaN in a float column)."""
    s = df[name]
    null = np.array(s.is_null().to_numpy(), dtype=bool)  # a copy: writable
    values = np.array(s.to_numpy())
    if values.dtype.kind == "f":
        null |= np.isnan(values)
    elif values.dtype.kind == "O":
        null |= np.array([isinstance(v, float) and v != v for v in values], dtype=bool)
    return values, null


def _missing_error(source: Source, role: str, col: str, count: int) -> ValueError:
    return ValueError(
        f"`{role}`: column {col!r} of {source.name} has {count} missing value"
        f"{'s' if count != 1 else ''} (null or NaN). Pass `dropna=True` (--dropna) to leave "
        "those rows out, or fill them."
    )


def _drop_missing(
    source: Source,
    wanted: Mapping[str, str],
    columns: dict[str, np.ndarray],
    nulls: dict[str, np.ndarray],
    counts: np.ndarray,
    dropna: bool,
) -> tuple[dict[str, np.ndarray], np.ndarray, int]:
    any_null = np.zeros(len(counts), dtype=bool)
    for role, null in nulls.items():
        if null.any() and not dropna:
            raise _missing_error(source, role, wanted[role], int(counts[null].sum()))
        any_null |= null
    n_dropped = int(counts[any_null].sum())
    if n_dropped or any_null.any():
        keep = ~any_null
        columns = {k: v[keep] for k, v in columns.items()}
        counts = counts[keep]
    return columns, counts, n_dropped


def count_rows(
    source: Source, wanted: Mapping[str, str], *, dropna: bool = False, max_rows: int
) -> Reduced:
    """Rows per distinct (design, inputs) combination: ``GROUP BY ... COUNT(*)``.

    ``wanted`` maps roles (``"strata"``, ``"conditions"``, ``"y_true"``...) to columns.
    More than ``max_rows`` groups is an error (the table would not be small).
    """
    nw = _nw()
    cols = list(dict.fromkeys(wanted.values()))
    df = _collect(
        source,
        lambda: source.frame.group_by(*cols, drop_null_keys=False).agg(nw.len().alias(_N)),
    )
    if len(df) > max_rows:
        raise ValueError(
            f"{source.name} has more than {max_rows} distinct combinations of "
            f"{', '.join(repr(c) for c in cols)}: too many for an exact reduction. Use "
            "`conditions=` (additive metrics are then summed per condition), quantised "
            "scores (ranking metrics), or raise `max_rows`."
        )
    counts = np.asarray(df[_N].to_numpy(), dtype=float)
    columns: dict[str, np.ndarray] = {}
    nulls: dict[str, np.ndarray] = {}
    for role, col in wanted.items():
        columns[role], nulls[role] = _numpy(df, col)
        if role == "y_score":  # infinite scores are ordered, only NaN/null is missing
            pass
    columns, counts, n_dropped = _drop_missing(source, wanted, columns, nulls, counts, dropna)
    return Reduced(columns, counts, n_dropped)


#: the summands of the additive metrics summed per condition: (numerator, denominator)
SUMMANDS = {
    "mean": lambda c: (c["values"], None),
    "weighted_mean": lambda c: (c["weights"] * c["values"], c["weights"]),
    "mae": lambda c: ((c["y_true"] - c["y_pred"]).abs(), None),
    "mse": lambda c: ((c["y_true"] - c["y_pred"]) * (c["y_true"] - c["y_pred"]), None),
    "rmse": lambda c: ((c["y_true"] - c["y_pred"]) * (c["y_true"] - c["y_pred"]), None),
}


def unit_sums(
    source: Source,
    metric: str,
    inputs: Mapping[str, str],
    design: Mapping[str, str],
    *,
    dropna: bool = False,
) -> Reduced:
    """Per design group (stratum, condition): sums of an additive metric's summands.

    One pass.  Rows with a missing input are counted (and left out of the sums); with
    ``dropna=False`` any such row is an error naming its column.  Infinite inputs are an
    error (the metric would be infinite).
    """
    nw = _nw()
    c = {role: nw.col(col) for role, col in inputs.items()}
    ok: Any = None  # a narwhals expression: rows with every input present
    for col in c.values():
        fine = ~(col.is_null() | col.is_nan()).fill_null(True)
        ok = fine if ok is None else ok & fine
    num, den = SUMMANDS[metric](c)
    # per-row helper columns first, then plain sums (every engine, Dask included, runs
    # elementary group-by aggregations only)
    helpers = [
        nw.when(ok).then(num).otherwise(0.0).cast(nw.Float64).alias(_NUM),
        (nw.when(ok).then(den).otherwise(0.0) if den is not None else ok)
        .cast(nw.Float64)
        .alias(_DEN),
        (~ok).cast(nw.Int64).alias(_MISSING),
    ]
    for role, col in c.items():
        helpers.append((col.abs() == float("inf")).cast(nw.Int64).alias(f"{_NONFINITE}{role}"))
    if "weights" in c:
        helpers.append((c["weights"] < 0).cast(nw.Int64).alias(_NEG))
    summed = [_NUM, _DEN, _MISSING]
    summed += [f"{_NONFINITE}{role}" for role in c] + ([_NEG] if "weights" in c else [])
    if "values" in c:
        # the kept values other than 0 and 1, counted exactly (a sum equal to the sum of
        # squares would not say it: 0.5 and 2 can balance): none, and the mean is a
        # proportion, as the in-memory kernel of the same values says
        v = c["values"]
        other = nw.when(ok).then((v != 0) & (v != 1)).otherwise(False)
        helpers.append(other.cast(nw.Int64).alias(_NONBINARY))
        summed.append(_NONBINARY)
    keys = list(dict.fromkeys(design.values()))
    df = _collect(
        source,
        lambda: (
            source.frame.with_columns(*helpers)
            .group_by(*keys, drop_null_keys=False)
            .agg(nw.len().alias(_N), *(nw.col(h).sum() for h in summed))
        ),
    )
    for role in c:
        bad = int(np.nansum(df[f"{_NONFINITE}{role}"].to_numpy()))
        if bad:
            raise ValueError(
                f"`{role}`: column {inputs[role]!r} of {source.name} holds {bad} infinite "
                "value(s); the metric needs finite numbers."
            )
    if "weights" in c and int(np.nansum(df[_NEG].to_numpy())):
        raise ValueError(
            f"`weights`: column {inputs['weights']!r} of {source.name} holds negative "
            "weights; weights must be non-negative."
        )
    total = np.asarray(df[_N].to_numpy(), dtype=float)
    missing = np.nan_to_num(np.asarray(df[_MISSING].to_numpy(), dtype=float))
    if missing.any() and not dropna:
        role = next(iter(c))
        raise ValueError(
            f"`{role}`: the inputs ({', '.join(repr(v) for v in inputs.values())}) of "
            f"{source.name} have {int(missing.sum())} row(s) with a missing value (null or "
            "NaN). Pass `dropna=True` (--dropna) to leave them out, or fill them."
        )
    columns = {"num": np.asarray(df[_NUM].to_numpy(), dtype=float)}
    columns["den"] = np.asarray(df[_DEN].to_numpy(), dtype=float)
    if "values" in c:
        columns["nonbinary"] = np.nan_to_num(np.asarray(df[_NONBINARY].to_numpy(), dtype=float))
    nulls: dict[str, np.ndarray] = {}
    for role, col in design.items():
        columns[role], nulls[role] = _numpy(df, col)
    kept = total - missing
    columns, kept, n_dropped = _drop_missing(source, design, columns, nulls, kept, dropna)
    n_dropped += int(missing.sum())
    empty = kept == 0  # groups whose every row was dropped
    if empty.any():
        columns = {k: v[~empty] for k, v in columns.items()}
        kept = kept[~empty]
    return Reduced(columns, kept, n_dropped)


def score_histogram(
    source: Source,
    inputs: Mapping[str, str],
    *,
    fine_bins: int,
    design: Mapping[str, str] | None = None,
    dropna: bool = False,
    max_rows: int | None = None,
) -> Reduced:
    """Counts of (design, label, score bin) on a uniform grid of ``fine_bins`` bins over the
    finite scores (two passes: the range, then the histogram), with each group's smallest
    and largest score.  Bin ``-1`` holds ``-inf``, bin ``fine_bins`` holds ``+inf``.

    ``design`` maps roles (``"strata"``, ``"conditions"``) to columns: the histogram is
    then counted per stratum and condition too.  More than ``max_rows`` groups is an error
    (the engine returns at most ``max_rows + 1`` rows, so memory stays bounded).
    """
    nw = _nw()
    design = dict(design or {})
    label, score = inputs["y_true"], inputs["y_score"]
    s = nw.col(score)
    rng = _collect(
        source,
        lambda: source.frame.filter(s.is_finite()).select(
            s.min().alias(_LO), s.max().alias(_HI), nw.len().alias(_N)
        ),
    )
    lo, hi = rng[_LO].to_numpy()[0], rng[_HI].to_numpy()[0]
    n_finite = int(rng[_N].to_numpy()[0])
    if n_finite == 0:
        lo = hi = 0.0
    lo, hi = float(lo), float(hi)
    scale = fine_bins / (hi - lo) if hi > lo else 0.0
    missing = (s.is_null() | s.is_nan()).fill_null(True)
    fine = (
        nw.when(missing)
        .then(None)
        .when(s == float("inf"))
        .then(fine_bins)
        .when(s == float("-inf"))
        .then(-1)
        .otherwise(((s - lo) * scale).floor().clip(0, fine_bins - 1))
        .cast(nw.Int64)
        .alias(_BIN)
    )
    keys = [*dict.fromkeys(design.values()), label, _BIN]

    def query() -> Any:
        q = (
            source.frame.with_columns(fine)
            .group_by(*keys, drop_null_keys=False)
            .agg(nw.len().alias(_N), s.min().alias(_LO), s.max().alias(_HI))
        )
        return q if max_rows is None else q.head(max_rows + 1)

    df = _collect(source, query)
    if max_rows is not None and len(df) > max_rows:
        raise ValueError(
            f"{source.name} has more than {max_rows} distinct combinations of "
            f"{', '.join(repr(c) for c in design.values())}, label and score bin: too many "
            "for a reduction. Use fewer `score_bins`, fewer conditions, or raise `max_rows`."
        )
    counts = np.asarray(df[_N].to_numpy(), dtype=float)
    columns: dict[str, np.ndarray] = {}
    nulls: dict[str, np.ndarray] = {}
    for role, col in design.items():
        columns[role], nulls[role] = _numpy(df, col)
    columns["y_true"], nulls["y_true"] = _numpy(df, label)
    columns["score_bin"], nulls["y_score"] = _numpy(df, _BIN)
    columns["min"] = np.asarray(df[_LO].to_numpy(), dtype=float)
    columns["max"] = np.asarray(df[_HI].to_numpy(), dtype=float)
    columns, counts, n_dropped = _drop_missing(
        source, {**design, "y_true": label, "y_score": score}, columns, nulls, counts, dropna
    )
    columns["score_bin"] = np.asarray(columns["score_bin"], dtype=np.int64)
    return Reduced(columns, counts, n_dropped, {"lo": lo, "hi": hi, "fine_bins": int(fine_bins)})
