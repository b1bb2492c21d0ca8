"""The public-API matrix (tests/_public_api.py): per-sample arguments (missing values in
every form, None, empty, one sample, mismatched lengths, wrong dtype, dropna, conditions at
the wrong level) and table arguments (NaN, None, ragged, empty), refused naming them."""

from __future__ import annotations

import inspect
import re
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

from _public_api import (
    MATRIX,
    NUMBERS,
    PUBLIC_API_MARKS,
    REGISTRY,
    Api,
    named,
    refused,
)
from mlci import ConfusionMatrix, Scores

pytestmark = PUBLIC_API_MARKS


# ----------------------------------------------------------------------------------------
# per-sample arguments
# ----------------------------------------------------------------------------------------
ROW = 3  # where a missing value is put


def _with_missing(value: Any, kind: str, form: str) -> Any:
    """``value`` with entry ``ROW`` missing, written the way ``form`` says."""
    arr = np.asarray(value)
    if kind == MATRIX:
        return _matrix_with_missing(arr, form)
    numeric = arr.dtype.kind in "biuf"
    if form == "nan":  # float NaN (an object array with NaN where the values are text)
        out = arr.astype(float) if numeric else arr.astype(object)
        out[ROW] = np.nan
        return out
    if form == "object-nan":
        out = arr.astype(object)
        out[ROW] = np.nan
        return out
    if form == "none-in-list":
        vals = arr.tolist()
        vals[ROW] = None
        return vals
    if form == "pandas-string-na":  # pandas' "string" dtype, as read_csv(dtype="string")
        s = pd.Series([str(v) for v in arr.tolist()], dtype="string")
        s[ROW] = pd.NA
        return s
    if form == "pandas-object-none":  # text read by pandas as objects, None where empty
        s = pd.Series([str(v) for v in arr.tolist()], dtype=object)
        s[ROW] = None
        return s
    if form == "pandas-nullable-na":  # Float64 / Int64 / boolean, the nullable number types
        dtype = {"f": "Float64", "b": "boolean"}.get(arr.dtype.kind, "Int64")
        s = pd.Series(arr.tolist(), dtype=dtype if numeric else "string")
        s[ROW] = pd.NA
        return s
    if form == "polars-null":
        vals = arr.tolist()
        vals[ROW] = None
        return pl.Series(vals)
    raise AssertionError(form)


def _matrix_with_missing(arr: np.ndarray, form: str) -> Any:
    if form == "nan":
        out = arr.astype(float)
        out[ROW, 0] = np.nan
        return out
    if form == "object-nan":
        out = arr.astype(object)
        out[ROW, 0] = np.nan
        return out
    if form == "none-in-list":
        rows = arr.tolist()
        rows[ROW][0] = None
        return rows
    if form.startswith("pandas"):
        df = pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])]).astype("Float64")
        df.iloc[ROW, 0] = pd.NA
        return df
    if form == "polars-null":
        cols = {f"x{j}": arr[:, j].tolist() for j in range(arr.shape[1])}
        cols["x0"][ROW] = None
        return pl.DataFrame(cols)
    raise AssertionError(form)


def _wrong_type(value: Any, kind: str) -> Any:
    """Values of the wrong type: strings where numbers are needed, a string among numeric
    labels (or a number among text ids)."""
    arr = np.asarray(value)
    if kind in (NUMBERS, MATRIX):
        return np.full(arr.shape, "high")
    out = arr.astype(object)
    out[ROW] = 7 if isinstance(out[0], str) else "yes"
    return out


MISSING_FORMS = (
    "nan",
    "object-nan",
    "none-in-list",
    "pandas-string-na",
    "pandas-object-none",
    "pandas-nullable-na",
    "polars-null",
)


def _per_sample_cases() -> list[Any]:
    cases = []
    for name, api in REGISTRY.items():
        for group in api.aligned:
            for arg, kind in group.items():
                # the features `X` go to the estimator as they are (a pipeline may impute
                # NaN or vectorise text): only their presence and length are checked
                forms = [] if kind == MATRIX else [*MISSING_FORMS, "dicts", "wrong-type"]
                if arg not in api.optional:
                    forms.append("none")
                if len(group) > 1 or arg in api.anchored:
                    forms.append("mismatched")
                if arg in api.anchored:
                    forms.append("empty")  # the empty group: see _group_cases
                for form in forms:
                    cases.append(pytest.param(name, arg, kind, form, id=f"{name}-{arg}-{form}"))
    return cases


def _bad_per_sample(api: Api, arg: str, kind: str, form: str) -> Any:
    value = api.good[arg]
    if form in MISSING_FORMS:
        return _with_missing(value, kind, form)
    if form == "dicts":
        return [{"a": 1}] * len(value)
    if form == "wrong-type":
        return _wrong_type(value, kind)
    if form == "none":
        return None
    if form == "mismatched":
        return np.asarray(value)[:-1]
    if form == "empty":
        return np.asarray(value)[:0]
    raise AssertionError(form)


@pytest.mark.parametrize(("name", "arg", "kind", "form"), _per_sample_cases())
def test_bad_per_sample_argument_refused(name, arg, kind, form):
    api = REGISTRY[name]
    bad = _bad_per_sample(api, arg, kind, form)
    shown = api.name_of(arg)
    pattern = named(shown)
    if form in MISSING_FORMS:
        pattern = rf"`{re.escape(shown)}`.*missing value"
    refused(lambda: api.run(**{arg: bad}), pattern)


def _group_cases() -> list[Any]:
    cases = []
    for name, api in REGISTRY.items():
        for i, group in enumerate(api.aligned):
            if set(group) <= api.anchored:
                continue  # aligned with a Scores object: tested argument by argument
            cases.append(pytest.param(name, i, "empty", id=f"{name}-group{i}-empty"))
            if api.one_is_too_few:
                cases.append(pytest.param(name, i, "one", id=f"{name}-group{i}-one"))
    return cases


@pytest.mark.parametrize(("name", "group", "form"), _group_cases())
def test_empty_or_single_sample_refused(name, group, form):
    api = REGISTRY[name]
    args = api.aligned[group]
    size = 0 if form == "empty" else 1
    bad = {a: np.asarray(api.good[a])[:size] for a in args if api.good.get(a) is not None}
    pattern = named(*(api.name_of(a) for a in args))
    if form == "one" and isinstance(api.one_is_too_few, str):
        pattern = api.one_is_too_few
    refused(lambda: api.run(**bad), pattern)


def _n_dropped(res: Any) -> int:
    """The documented count of dropped samples of any result."""
    if isinstance(res, pd.DataFrame):
        return res.attrs["n_dropped"]
    if isinstance(res, Scores | ConfusionMatrix):
        return res.n_dropped
    if isinstance(res, tuple):
        res = res[0]
    for attr in ("eer", "result"):  # EERResult, CurveBand
        res = getattr(res, attr, res)
    return res.details["n_dropped"]


def _dropna_cases() -> list[Any]:
    cases = []
    for name, api in REGISTRY.items():
        if "dropna" not in inspect.signature(api.fn).parameters:
            continue
        for arg, kind in api.per_sample.items():
            marks = ()
            if name == "paired_table":
                marks = pytest.mark.skip(reason="paired_table returns a bare 2x2 array")
            cases.append(pytest.param(name, arg, kind, id=f"{name}-{arg}", marks=marks))
    return cases


@pytest.mark.parametrize(("name", "arg", "kind"), _dropna_cases())
def test_dropna_drops_the_missing_sample(name, arg, kind):
    api = REGISTRY[name]
    res = api.run(**{arg: _with_missing(api.good[arg], kind, "nan")}, dropna=True)
    assert _n_dropped(res) == 1


def _level_cases() -> list[Any]:
    cases = []
    for name, api in REGISTRY.items():
        if api.conditions:
            for form in ("single", "2-d", "scalar", "nested-with-none"):
                cases.append(pytest.param(name, form, id=f"{name}-{form}"))
    return cases


@pytest.mark.parametrize(("name", "form"), _level_cases())
def test_conditions_at_the_wrong_level_refused(name, form):
    # a single condition (nothing to resample), a table, a scalar, a nested level missing
    api = REGISTRY[name]
    arg = api.conditions
    good = np.asarray(api.good[arg])
    bad = {
        "single": np.zeros_like(good),
        "2-d": np.column_stack([good, good]),
        "scalar": 3,
        "nested-with-none": [good, None],
    }[form]
    refused(lambda: api.run(**{arg: bad}), named(api.name_of(arg)))


# ----------------------------------------------------------------------------------------
# tables: fold scores, data-set scores, counts, p-values
# ----------------------------------------------------------------------------------------
def _table_cases() -> list[Any]:
    cases = []
    for name, api in REGISTRY.items():
        for arg in api.tables:
            forms = ["nan", "none-inside", "none", "empty", "strings"]
            if np.ndim(api.good[arg]):
                forms.append("ragged")
            for form in forms:
                cases.append(pytest.param(name, arg, form, id=f"{name}-{arg}-{form}"))
    return cases


def _bad_table(value: Any, form: str) -> Any:
    arr = np.asarray(value, dtype=float)
    if form == "none":
        return None
    if form == "empty":
        return []
    if form == "strings":
        return arr.astype(str) if arr.ndim else "8"
    if form == "ragged":
        return [[1, 2], [3]]
    if arr.ndim == 0:
        return np.nan if form == "nan" else [None]
    out = arr.astype(object)
    out.flat[1] = np.nan if form == "nan" else None
    return out if form == "nan" else out.tolist()


@pytest.mark.parametrize(("name", "arg", "form"), _table_cases())
def test_bad_table_refused(name, arg, form):
    api = REGISTRY[name]
    bad = _bad_table(api.good[arg], form)
    refused(lambda: api.run(**{arg: bad}), named(arg))
