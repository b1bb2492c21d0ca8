"""Per-sample arrays from any library, with one missing-value policy.

Every public function of mlci takes its per-sample data through :func:`gather` (or
:func:`column` for a single array).  It

* accepts numpy arrays, lists and tuples, and the arrays, Series and (for 2-d inputs)
  DataFrames of pandas, polars and pyarrow, plus a table (``data=``) with column names;
* finds missing values the way each library defines them (``None``, ``NaN``,
  ``pandas.NA``, ``NaT``, polars and Arrow nulls) and applies **one policy**: an error
  that names the argument, the number of missing values and the first rows, unless the
  caller asked ``dropna=True``, in which case the samples with a missing value in *any*
  argument are dropped together and their number is reported;
* turns object arrays into arrays of one native type (int, float, bool or str), and
  refuses arrays that mix strings and numbers.

No dataframe library is imported here: a column is read through the interface the three
libraries share (``obj[name]``, ``to_numpy()``, and ``isna()`` or ``is_null()`` for the
missing mask), so the core keeps depending on numpy and scipy only.  A dataframe-agnostic
layer (narwhals) would add a dependency for what three duck-typed calls already do; it is
worth its weight where queries must run *inside* an engine (lazy frames, out-of-core data),
not for reading eager columns.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np

from .encoding import encoded_take
from .validation import check_flag

__all__ = [
    "TEXT_MISSING",
    "ArgSpec",
    "Gathered",
    "column",
    "dictionary_codes",
    "gather",
    "gather_design",
    "is_nested",
    "missing_mask",
    "native_values",
    "rows_text",
]

#: cell texts read as missing in text tables (CSV/TSV), compared case-insensitively after
#: stripping blanks; arrays passed from Python keep such strings as ordinary values
TEXT_MISSING = frozenset({"", "na", "n/a", "nan", "null", "none", "nat", "<na>", "#n/a"})

_LIBRARIES = ("pandas", "polars", "pyarrow")


def _library(x: Any) -> str | None:
    mod = type(x).__module__.split(".", 1)[0]
    return mod if mod in _LIBRARIES else None


def _is_missing_scalar(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float | np.floating):
        return math.isnan(v)
    if isinstance(v, np.datetime64 | np.timedelta64):
        return bool(np.isnat(v))
    # pandas.NA, pandas.NaT, polars/pyarrow nulls surfacing as objects
    return type(v).__name__ in ("NAType", "NaTType", "NullScalar")


_missing_ufunc = np.frompyfunc(_is_missing_scalar, 1, 1)


#: types whose values are never missing (the common content of object arrays)
_NEVER_MISSING = frozenset({str, np.str_, int, bool, np.bool_, np.int64, np.int32})


def _object_missing(values: np.ndarray) -> np.ndarray:
    """Missing mask of an object array: by the set of types present (one C-level pass)
    when that settles it (strings, ints, with or without None), else value by value."""
    if values.size == 0:
        return np.zeros(values.shape, dtype=bool)
    types = set(map(type, values.ravel()))
    if types <= _NEVER_MISSING:
        return np.zeros(values.shape, dtype=bool)
    if types <= _NEVER_MISSING | {type(None)}:
        # numpy's stubs refuse None as an operand; elementwise ``is None`` on objects
        return np.equal(values, None)  # type: ignore[call-overload]
    return _missing_ufunc(values).astype(bool)


def missing_mask(values: np.ndarray) -> np.ndarray:
    """Boolean mask of the missing entries of a numpy array (any dtype).

    Floats: NaN.  Datetimes: NaT.  Objects: ``None``, float NaN, ``pandas.NA``/``NaT``.
    Integers, booleans and strings have no missing value.  For 2-d arrays, the mask of
    rows with any missing entry.

    Examples
    --------
    >>> missing_mask(np.array([1.0, np.nan])).tolist()
    [False, True]
    >>> missing_mask(np.array(["a", None, float("nan")], dtype=object)).tolist()
    [False, True, True]
    """
    kind = values.dtype.kind
    if kind in "fc":
        mask = np.isnan(values)
    elif kind in "mM":
        mask = np.isnat(values)
    elif kind == "O":
        mask = _object_missing(values)
    else:
        mask = np.zeros(values.shape, dtype=bool)
    if mask.ndim > 1:
        mask = mask.reshape(mask.shape[0], -1).any(axis=1)
    return mask


def _categories_taken(
    categories: np.ndarray, codes: np.ndarray, name: str
) -> tuple[np.ndarray, np.ndarray]:
    """Values and missing mask of categorical data: ``categories[codes]``, -1 = missing.

    The categories (few) are checked and converted once; the n rows are one ``take`` of
    integer codes, with no Python object per row.  A missing row gets the first category
    as a placeholder: the mask makes the gate refuse or drop it.
    """
    categories, codes = _used_only(np.asarray(categories), codes)
    categories = native_values(categories, name)
    mask = codes < 0
    if len(categories) == 0:  # every row missing
        values = np.empty(len(codes), dtype=object)
        values[:] = None
        return values, np.ones(len(codes), dtype=bool)
    if not mask.any() and categories.dtype != object:
        return encoded_take(categories, codes, every_category_used=True), mask
    return categories[np.where(mask, 0, codes)], mask


def _categorical(x: Any, lib: str, name: str) -> tuple[np.ndarray, np.ndarray] | None:
    """The fast path for categorical data (pandas Categorical, polars Categorical/Enum,
    pyarrow dictionary arrays): ``(values, mask)``, or None for other data."""
    if lib == "pandas":
        if getattr(x, "ndim", 1) != 1 or str(getattr(x, "dtype", "")) != "category":
            return None
        cat = getattr(x, "array", x)  # Series, CategoricalIndex -> Categorical
        categories = np.asarray(cat.categories.to_numpy(dtype=object))
        return _categories_taken(categories, np.asarray(cat.codes), name)
    if lib == "polars":
        if not hasattr(x, "is_null") or type(x.dtype).__name__ not in ("Categorical", "Enum"):
            return None
        # a category's physical id is its code; the distinct ids and their texts give
        # the mapping, whatever the categories' cache holds
        distinct = x.drop_nulls().unique()
        ids = np.asarray(distinct.to_physical().to_numpy(), dtype=np.int64)
        physical = x.to_physical()
        top = int(ids.max()) + 1 if ids.size else 1
        if top > 4 * len(x) + (1 << 20):
            return None
        lookup = np.full(top, -1, dtype=np.intp)
        lookup[ids] = np.arange(ids.size, dtype=np.intp)
        raw = np.asarray(physical.to_numpy(), dtype=float if physical.null_count else None)
        missing = np.isnan(raw) if physical.null_count else None
        codes = lookup[np.where(missing, 0, raw).astype(np.intp) if missing is not None else raw]
        if missing is not None:
            codes[missing] = -1
        texts = np.asarray(distinct.cast(str).to_numpy(), dtype=object)
        return _categories_taken(texts, codes, name)
    value_type = getattr(getattr(x, "type", None), "value_type", None)
    if value_type is None or not hasattr(x.type, "index_type"):  # not a dictionary array
        return None
    words, codes = dictionary_codes(x)
    mask = codes < 0
    null_words = [i for i, w in enumerate(words) if w is None]
    if null_words:  # a null among the dictionary's values: missing rows too
        mask |= np.isin(codes, null_words)
        words = ["" if w is None else w for w in words]
    categories = np.empty(len(words), dtype=object)
    categories[:] = words
    values, _ = _categories_taken(categories, np.where(mask, -1, codes), name)
    return values, mask


def _arrow_integers(arr: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """An integer pyarrow Array's values and validity (None: no null), read from its
    buffers (pyarrow's own ``to_numpy`` imports pandas: a second at start-up)."""
    dtype = np.dtype(str(arr.type))  # "int32", "uint8", ...
    validity, data = arr.buffers()[:2]
    n, offset = len(arr), arr.offset
    values = np.frombuffer(data, dtype=dtype, count=offset + n)[offset:]
    if not arr.null_count:
        return values, None
    bits = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")
    return values, bits[offset : offset + n].astype(bool)


def dictionary_codes(col: Any) -> tuple[list[Any], np.ndarray]:
    """The values and per-row codes of a pyarrow dictionary array (or chunked array).

    Chunks may hold different dictionaries (a CSV read in blocks): they are unified
    here, through the few dictionary values, never through the rows.

    Returns
    -------
    words : list
        The distinct dictionary values as Python objects (first-seen order).
    codes : ndarray of int32
        Each row's index into ``words``; -1 for a null row.  Only the words some row
        takes are kept.

    Examples
    --------
    >>> import pyarrow as pa
    >>> a = pa.chunked_array([pa.array(["b", "a", None]).dictionary_encode(),
    ...                       pa.array(["a", "c"]).dictionary_encode()])
    >>> words, codes = dictionary_codes(a)
    >>> words, codes.tolist()
    (['b', 'a', 'c'], [0, 1, -1, 1, 2])
    """
    chunks = col.chunks if hasattr(col, "chunks") else [col]
    vocabulary: dict[Any, int] = {}
    words: list[Any] = []
    codes = np.empty(sum(len(c) for c in chunks), dtype=np.int32)
    start = 0
    for chunk in chunks:
        local = chunk.dictionary.to_pylist()
        lookup = np.empty(len(local) + 1, dtype=np.int32)
        for i, w in enumerate(local):
            if w not in vocabulary:
                vocabulary[w] = len(words)
                words.append(w)
            lookup[i] = vocabulary[w]
        lookup[-1] = -1  # null rows: index -1 takes this last entry
        idx, valid = _arrow_integers(chunk.indices)
        if valid is not None:
            idx = np.where(valid, idx, -1)
        np.take(lookup, idx, out=codes[start : start + len(chunk)])
        start += len(chunk)
    return _used_only(words, codes)


def _used_only(categories: Any, codes: np.ndarray) -> tuple[Any, np.ndarray]:
    """Categories no row takes are dropped (they must not decide the type)."""
    # codes + 1: the missing rows (-1) in bin 0, without a filtered copy
    used = np.bincount(codes + 1, minlength=len(categories) + 1)[1:] > 0
    if used.all():
        return categories, codes
    new = np.where(used, np.cumsum(used) - 1, -1).astype(codes.dtype)
    new = np.append(new, -1)  # code -1 (missing) stays -1
    kept: Any = [c for c, u in zip(categories, used, strict=True) if u]
    if isinstance(categories, np.ndarray):
        kept = categories[used]
    return kept, new[codes]


def _from_library(x: Any, lib: str, name: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Values and missing mask of a pandas/polars/pyarrow object, through its own API."""
    fast = _categorical(x, lib, name)
    if fast is not None:
        return fast
    if lib == "pandas":
        mask = np.asarray(x.isna())
        if mask.ndim > 1:
            mask = np.asarray(mask.any(axis=1))
        dtypes = list(x.dtypes) if x.ndim == 2 else [x.dtype]
        native = all(isinstance(d, np.dtype) for d in dtypes)
        try:
            # extension types (nullable ints, strings) with missing values go through
            # objects, where the missing entries are visible
            values = x.to_numpy(dtype=object) if mask.any() and not native else x.to_numpy()
        except (TypeError, ValueError):  # pragma: no cover - exotic extension types
            values = np.asarray(x, dtype=object)
        if values.dtype == object and not mask.any():
            values = native_values(values, name)
        return np.asarray(values), mask
    if lib == "polars":
        if hasattr(x, "is_null"):  # Series
            mask = np.asarray(x.is_null().to_numpy(), dtype=bool)
        else:  # DataFrame: rows with a null anywhere
            mask = np.zeros(x.height, dtype=bool)
            for col in x.columns:
                mask |= np.asarray(x[col].is_null().to_numpy(), dtype=bool)
        return np.asarray(x.to_numpy()), mask
    # pyarrow Array / ChunkedArray (a Table is read column by column)
    if hasattr(x, "is_null"):
        mask = np.asarray(x.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        values = x.to_numpy(zero_copy_only=False)
        return np.asarray(values), mask
    if hasattr(x, "to_pandas"):  # a pyarrow Table: columns side by side
        cols = [_from_library(x.column(i), "pyarrow", name) for i in range(x.num_columns)]
        values = np.column_stack([c[0] for c in cols])
        mask = np.logical_or.reduce([c[1] for c in cols])
        return values, mask
    return np.asarray(x), np.zeros(len(x), dtype=bool)  # pragma: no cover


def _to_numpy(x: Any, name: str = "") -> tuple[np.ndarray, np.ndarray | None]:
    lib = _library(x)
    if lib is not None:
        values, mask = _from_library(x, lib, name)
        return values, mask | missing_mask(values) if values.dtype.kind in "fcOmM" else mask
    if isinstance(x, list | tuple):
        arr = np.asarray(x)
        if arr.dtype.kind in "US":
            # a list that numpy turned into strings may have held None or NaN: keep them
            arr = np.asarray(x, dtype=object)
        return arr, None
    return np.asarray(x), None


def native_values(values: np.ndarray, name: str) -> np.ndarray:
    """An object array (with no missing value) as an array of one native type.

    Booleans stay booleans, integers become int64, floats float64, strings str; a mix of
    booleans, integers and floats becomes numbers.  Strings mixed with numbers (``0`` and
    ``"yes"``) are refused: such labels compare as different classes and give wrong
    numbers silently.

    Examples
    --------
    >>> native_values(np.array([1, 0, 1], dtype=object), "y").dtype.kind
    'i'
    >>> native_values(np.array(["a", "b"], dtype=object), "y").tolist()
    ['a', 'b']
    """
    if values.dtype != object or values.size == 0:
        return values
    flat = values.ravel()
    # the kinds of the types present (a C-level pass over the rows, then a few types)
    kinds = {_kind_of_type(t) for t in set(map(type, flat))}
    if kinds <= {"b"}:
        return values.astype(bool)
    if kinds <= {"b", "i"}:
        try:
            return values.astype(np.int64)
        except OverflowError:
            return values.astype(float)
    if kinds <= {"b", "i", "f"}:
        return values.astype(float)
    if kinds <= {"s"}:
        return values.astype(str)
    if "s" in kinds and kinds & {"b", "i", "f"}:
        s = next(v for v in flat if _kind_of(v) == "s")
        num = next(v for v in flat if _kind_of(v) in "bif")
        raise TypeError(
            f"`{name}` mixes strings and numbers (e.g. {s!r} and {num!r}); every value must "
            "be of one type, e.g. all ints or all strings."
        )
    other = next(v for v in flat if _kind_of(v) == "o")
    raise TypeError(
        f"`{name}` holds values of type {type(other).__name__} (e.g. {other!r}); expected "
        "numbers, booleans or strings."
    )


def _kind_of_type(t: type) -> str:
    if issubclass(t, bool | np.bool_):
        return "b"
    if issubclass(t, Integral):
        return "i"
    if issubclass(t, Real):
        return "f"
    if issubclass(t, str | np.str_):
        return "s"
    return "o"


def _kind_of(v: Any) -> str:
    return _kind_of_type(type(v))


def rows_text(rows: np.ndarray, limit: int = 5) -> str:
    """``"row 3"`` or ``"rows 3, 7, 12, ..."`` (0-based positions)."""
    rows = np.asarray(rows).ravel()
    shown = ", ".join(str(int(r)) for r in rows[:limit])
    more = ", ..." if rows.size > limit else ""
    return f"row{'s' if rows.size > 1 else ''} {shown}{more}"


@dataclass(frozen=True)
class ArgSpec:
    """How :func:`gather` reads one argument.

    Attributes
    ----------
    kind : {"labels", "numbers", "scores", "groups", "any"}
        ``"labels"``: class labels of one type (ints, bools or strings).  ``"numbers"``:
        finite floats.  ``"scores"``: floats, where ``±inf`` is allowed (log-likelihood
        ratios).  ``"groups"``: condition or stratum labels of one type.  ``"any"``: kept
        as given (the data of a user's metric function), missing values still checked.
    ndim : tuple of int
        Allowed numbers of dimensions (``(1, 2)`` for class-probability matrices).
    required : bool
        Refuse None (``"`y_score` is required"``); by default None means "not given".
    """

    kind: str = "any"
    ndim: tuple[int, ...] = (1,)
    required: bool = False


@dataclass(frozen=True)
class Gathered:
    """Validated per-sample arrays (see :func:`gather`).

    Attributes
    ----------
    arrays : dict of str -> ndarray or None
        One entry per argument, in the order given; None where the argument was None.
    n_samples : int
        Samples left (after dropping missing values).
    n_dropped : int
        Samples dropped because of a missing value (only with ``dropna=True``).
    kept : ndarray of int or None
        Original positions of the samples kept, when some were dropped (or, with
        :func:`~mlci.inputs.weights.frequency_weights`, the row of every repeated sample).
    n_input : int or None
        Rows given (before dropping and repeating); None: ``n_samples + n_dropped``.
    """

    arrays: dict[str, Any]
    n_samples: int
    n_dropped: int = 0
    kept: np.ndarray | None = field(default=None, repr=False)
    n_input: int | None = None

    @property
    def n_given(self) -> int:
        """Number of rows given (before dropping missing values and repeating rows)."""
        return self.n_samples + self.n_dropped if self.n_input is None else self.n_input

    def __getitem__(self, name: str) -> Any:
        return self.arrays[name]


def _from_data(data: Any, name: str, value: Any) -> Any:
    """The column ``value`` of the table ``data`` when ``value`` is a column name."""
    if data is None or not isinstance(value, str):
        return value
    try:
        return data[value]
    except (KeyError, IndexError, ValueError, TypeError):
        cols = list(getattr(data, "columns", getattr(data, "column_names", [])))
        shown = ", ".join(repr(c) for c in cols[:12]) + (", ..." if len(cols) > 12 else "")
        raise ValueError(
            f"`{name}`={value!r} is not a column of `data` (columns: {shown})."
        ) from None
    except Exception as exc:  # polars raises its own ColumnNotFoundError
        if type(exc).__name__.endswith("NotFoundError"):
            raise ValueError(f"`{name}`={value!r} is not a column of `data`.") from None
        raise


def _check_shape(name: str, arr: np.ndarray, spec: ArgSpec) -> None:
    if arr.ndim == 0:
        raise ValueError(f"`{name}` must be an array with one entry per sample; got a scalar.")
    if arr.ndim not in spec.ndim:
        want = " or ".join(f"{d}-d" for d in spec.ndim)
        raise ValueError(f"`{name}` must be {want}; got an array of shape {arr.shape}.")


def _typed(name: str, arr: np.ndarray, spec: ArgSpec) -> np.ndarray:
    """The array converted to what ``spec.kind`` expects (missing values already removed)."""
    if spec.kind == "any":
        return arr
    arr = native_values(arr, name)
    kind = arr.dtype.kind
    if spec.kind in ("numbers", "scores"):
        if kind not in "biuf":
            raise TypeError(
                f"`{name}` must hold numbers; got values of type {arr.dtype} "
                f"(e.g. {arr.ravel()[0]!r})."
            )
        arr = arr.astype(float, copy=False)
        if spec.kind == "numbers" and not np.all(np.isfinite(arr)):
            bad = np.flatnonzero(~np.isfinite(arr.reshape(len(arr), -1)).all(axis=1))
            raise ValueError(
                f"`{name}` contains {bad.size} infinite value(s) ({rows_text(bad)}); "
                "every value must be finite."
            )
        return arr
    if kind not in "biufUS":
        raise TypeError(
            f"`{name}` must hold labels (ints, bools or strings); got values of type {arr.dtype}."
        )
    if kind == "f" and spec.kind == "labels" and not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` contains infinite values; labels must be finite.")
    return arr


def gather(
    specs: Mapping[str, ArgSpec],
    values: Mapping[str, Any],
    *,
    dropna: bool = False,
    data: Any = None,
    dropna_name: str | None = "dropna=True",
    allow_empty: bool = False,
) -> Gathered:
    """Validate aligned per-sample arguments together: the one input gate.

    Parameters
    ----------
    specs : mapping of str -> ArgSpec
        How each argument is read, by the name used in messages.
    values : mapping of str -> array-like or None
        The arguments (None: not given).  With ``data``, a string is a column name.
    dropna : bool, default False
        Drop the samples that have a missing value in any argument instead of refusing them.
    data : table, optional
        A pandas/polars DataFrame or a pyarrow Table holding the columns named in ``values``.
    dropna_name : str or None
        How the caller spells the option in the error message (``"--dropna"`` in the CLI);
        None for a caller without one (the message then only says to remove them).
    allow_empty : bool
        Accept zero samples (for a caller that checks that itself).

    Returns
    -------
    Gathered

    Examples
    --------
    >>> g = gather({"y_true": ArgSpec("labels"), "y_pred": ArgSpec("labels")},
    ...            {"y_true": [0, 1, None], "y_pred": [0, 1, 1]}, dropna=True)
    >>> g["y_true"].tolist(), g.n_dropped
    ([0, 1], 1)
    """
    check_flag("dropna", dropna)
    # frequency weights (mlci.frequency_weights): rows repeated once gathered
    freq = [k for k in specs if isinstance(values.get(k), FrequencyWeights)]
    if freq:
        values = {**values, **{k: values[k].values for k in freq}}
    arrays: dict[str, Any] = {}
    masks: dict[str, np.ndarray] = {}
    n: int | None = None
    first: str | None = None
    for name, spec in specs.items():
        value = _from_data(data, name, values.get(name))
        if value is None:
            if spec.required:
                raise ValueError(f"`{name}` is required; got None.")
            arrays[name] = None
            continue
        try:
            arr, mask = _to_numpy(value, name)
        except ValueError:  # numpy: "setting an array element with a sequence"
            if not isinstance(value, list | tuple):
                raise
            raise ValueError(
                f"`{name}` must be an array with one entry per sample; got a ragged sequence "
                "(entries of different lengths, e.g. an array next to None)."
            ) from None
        _check_shape(name, arr, spec)
        if n is None:
            n, first = len(arr), name
        elif len(arr) != n:
            raise ValueError(
                f"`{name}` has {len(arr)} samples but `{first}` has {n}; every per-sample "
                "argument must have one entry per sample."
            )
        mask = missing_mask(arr) if mask is None else mask | missing_mask(arr)
        arrays[name] = arr
        if mask.any():
            masks[name] = mask
    if n is None:
        raise ValueError("No per-sample data given.")
    if n == 0 and not allow_empty:
        raise ValueError(f"`{first}` is empty; at least one sample is needed.")
    kept = None
    n_dropped = 0
    if masks:
        if not dropna:
            name, mask = next(iter(masks.items()))
            rows = np.flatnonzero(mask)
            others = [k for k in masks if k != name]
            also = f" ({', '.join(f'`{k}`' for k in others)} too)" if others else ""
            where = (
                f" (column {values[name]!r} of `data`)"
                if data is not None and isinstance(values.get(name), str)
                else ""
            )
            fix = (
                f"Remove or impute them, or pass {dropna_name} to drop the samples with a "
                "missing value (the result then reports how many were dropped)."
                if dropna_name
                else "Remove or impute them."
            )
            raise ValueError(
                f"`{name}`{where} has {rows.size} missing value(s) (None, NaN, NA or null) "
                f"at {rows_text(rows)}{also}; every sample needs a value. {fix}"
            )
        any_missing = np.logical_or.reduce(list(masks.values()))
        kept = np.flatnonzero(~any_missing)
        n_dropped = int(any_missing.sum())
        if kept.size == 0:
            raise ValueError(
                f"Every sample has a missing value (in {', '.join(f'`{k}`' for k in masks)}); "
                "nothing is left after dropping them."
            )
        arrays = {k: (None if a is None else a[kept]) for k, a in arrays.items()}
        n = kept.size
    for name, spec in specs.items():
        if arrays[name] is not None:
            arrays[name] = _typed(name, arrays[name], spec)
    n_input = n + n_dropped
    for name in freq:
        arrays, kept, n = expand_frequencies(arrays, name, kept, n)
    return Gathered(
        arrays=arrays, n_samples=int(n), n_dropped=n_dropped, kept=kept, n_input=n_input
    )


def column(name: str, value: Any, kind: str = "any", ndim: Sequence[int] = (1,)) -> np.ndarray:
    """One validated array (no other argument to align with, missing values refused).

    Examples
    --------
    >>> column("y_score", [0.1, 0.9], "scores").dtype
    dtype('float64')
    """
    return gather({name: ArgSpec(kind, tuple(ndim), required=True)}, {name: value})[name]


def is_nested(conditions: Any, data: Any = None) -> bool:
    """True for nested conditions: a list or tuple of per-sample arrays, top level first
    (with ``data``, a list of column names).  A plain list of labels is one level.

    Examples
    --------
    >>> is_nested([[0, 0, 1], ["a", "b", "c"]]), is_nested([0, 0, 1])
    (True, False)
    """
    if not isinstance(conditions, list | tuple) or len(conditions) == 0:
        return False
    if data is not None and all(isinstance(c, str) for c in conditions):
        return True
    return all(np.ndim(level) == 1 for level in conditions)


def gather_design(
    specs: Mapping[str, ArgSpec],
    values: Mapping[str, Any],
    *,
    conditions: Any = None,
    strata: Any = None,
    dropna: bool = False,
    data: Any = None,
    dropna_name: str | None = "dropna=True",
) -> tuple[Gathered, Any, Any]:
    """:func:`gather` for per-sample data together with its resampling design.

    ``conditions`` (one level, or a list of levels top first) and ``strata`` are read as
    ``"groups"`` and take part in the missing-value policy with the data: a sample with
    no speaker is dropped (``dropna=True``) or refused like a sample with no label.

    Returns
    -------
    gathered : Gathered
        The data arrays (the design's entries are removed from ``gathered.arrays``).
    conditions : ndarray, list of ndarray, or None
    strata : ndarray or None

    Examples
    --------
    >>> g, cond, _ = gather_design({"values": ArgSpec("numbers")},
    ...                            {"values": [1.0, 2.0, None]},
    ...                            conditions=["a", "b", "b"], dropna=True)
    >>> g["values"].tolist(), cond.tolist(), g.n_dropped
    ([1.0, 2.0], ['a', 'b'], 1)
    """
    specs = dict(specs)
    values = dict(values)
    nested = is_nested(conditions, data)
    levels = list(conditions) if nested else None
    groups = ArgSpec("groups")
    if nested:
        for i, level in enumerate(levels or []):
            specs[f"conditions[{i}]"] = groups
            values[f"conditions[{i}]"] = level
    elif conditions is not None:
        specs["conditions"] = groups
        values["conditions"] = conditions
    if strata is not None:
        specs["strata"] = groups
        values["strata"] = strata
    g = gather(specs, values, dropna=dropna, data=data, dropna_name=dropna_name)
    arrays = dict(g.arrays)
    cond: Any = None
    if nested:
        cond = [arrays.pop(f"conditions[{i}]") for i in range(len(levels or []))]
    elif conditions is not None:
        cond = arrays.pop("conditions")
    strat = arrays.pop("strata") if strata is not None else None
    return Gathered(arrays, g.n_samples, g.n_dropped, g.kept, g.n_input), cond, strat


# ------------------------------------------------ frequency weights (mlci.frequency_weights)
@dataclass(frozen=True, repr=False)
class FrequencyWeights:
    """Per-row counts for ``sample_weight=`` (build one with :func:`frequency_weights`).

    Attributes
    ----------
    values : array-like or str
        The counts, or the name of a column of ``data=``.
    """

    values: Any

    def __repr__(self) -> str:
        if isinstance(self.values, str):
            return f"frequency_weights({self.values!r})"
        return f"frequency_weights(<{np.size(self.values)} counts>)"


def check_frequencies(values: np.ndarray, name: str = "sample_weight") -> np.ndarray:
    """Counts (intp) from validated finite floats: whole numbers >= 0, not all zero."""
    w = np.asarray(values, dtype=float)
    what = f"`{name}` (frequency weights: how many times each row occurred)"
    if w.ndim != 1:
        raise ValueError(f"{what} must be 1-d, one count per row; got shape {w.shape}.")
    if not np.isfinite(w).all():
        raise ValueError(f"{what} must be finite whole numbers; found NaN or infinity.")
    bad = np.flatnonzero((w < 0) | (w != np.round(w)))
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{what} must be whole numbers >= 0; row {i} holds {w[i]:.6g}. Survey or "
            "importance weights (any non-negative number, the row resampled as one unit) "
            "are passed as a plain `sample_weight=` array, without frequency_weights()."
        )
    if not (w > 0).any():
        raise ValueError(f"{what} are all zero: at least one row must occur.")
    return w.astype(np.intp)


def _check_expansion(arrays: dict[str, Any], name: str, total: int, n: int) -> None:
    """Refuse an expansion whose arrays would exceed the configured ``max_memory``.

    The repeated rows are real copies (``sum(w)`` samples of every column): counts in the
    millions per row would exhaust the machine without a word, so the gate says what it
    would take and how to go on instead.
    """
    from .config import get_config  # config imports validation only: no circle

    per_row = sum(
        np.asarray(a).dtype.itemsize * max(1, int(np.prod(np.shape(a)[1:])))
        for k, a in arrays.items()
        if a is not None and k != name and np.ndim(a) >= 1
    )
    need = (per_row + np.dtype(np.intp).itemsize) * total
    limit = int(get_config()["max_memory"])
    if need > limit:
        raise MemoryError(
            f"`{name}` as frequency weights repeats the {n} rows into {total} samples, about "
            f"{need / 2**20:.0f} MiB of copies, more than max_memory ({limit / 2**20:.0f} "
            "MiB). Raise it for this call with `with mlci.config_context(max_memory=...)`, "
            "or pass the counts as a plain `sample_weight=` array (each row resampled as "
            "one unit carrying its weight) if that is the design."
        )


def expand_frequencies(
    arrays: dict[str, Any], name: str, kept: np.ndarray | None, n: int
) -> tuple[dict[str, Any], np.ndarray | None, int]:
    """Every array with row ``i`` repeated ``arrays[name][i]`` times (``arrays[name]``
    itself becomes None); returns ``(arrays, kept, n)`` with ``kept`` the position of every
    new sample among the rows given (None when nothing was dropped or repeated)."""
    counts = check_frequencies(arrays[name], name)
    if kept is None and bool((counts == 1).all()):
        return {**arrays, name: None}, kept, n
    _check_expansion(arrays, name, int(counts.sum()), n)
    idx = np.repeat(np.arange(n), counts)
    out = {k: (None if a is None or k == name else a[idx]) for k, a in arrays.items()}
    rows = np.arange(n) if kept is None else kept
    return out, rows[idx], len(idx)
