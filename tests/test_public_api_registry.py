"""The public-API matrix (tests/_public_api.py): every public callable is in the registry
or exempt, its small valid call runs, and its results' ``to_dict()`` is strict JSON."""

from __future__ import annotations

import inspect
import json
from typing import Any

import pytest

import mlci
import mlci.cli
from _public_api import (
    DATA_METHODS,
    EXEMPT,
    PUBLIC_API_MARKS,
    REGISTRY,
)

pytestmark = PUBLIC_API_MARKS


def _base(name: str) -> str:
    return name.split("(")[0]


def test_registry_is_complete():
    public = {n for n in mlci.__all__ if callable(getattr(mlci, n))}
    covered = {_base(n) for n in REGISTRY}
    missing = sorted(public - covered - EXEMPT)
    assert not missing, f"public names neither in REGISTRY nor in EXEMPT: {missing}"
    stale = sorted((covered | EXEMPT) - public - DATA_METHODS)
    assert not stale, f"REGISTRY/EXEMPT names that are not public: {stale}"
    assert DATA_METHODS <= covered
    for cls in EXEMPT:
        obj = getattr(mlci, cls)
        assert inspect.isclass(obj), f"{cls} is exempt but is not a class"


@pytest.mark.parametrize("name", list(REGISTRY))
def test_good_call_runs(name):
    REGISTRY[name].run()


def _results_in(out: Any) -> list[Any]:
    """Every mlci result object in a driver's output (a result, a tuple or mapping of them)."""
    if isinstance(out, mlci.results.Result):
        return [out]
    if isinstance(out, tuple | list):
        return [r for x in out for r in _results_in(x)]
    if isinstance(out, dict):
        return [r for x in out.values() for r in _results_in(x)]
    return []


@pytest.mark.parametrize("name", list(REGISTRY))
def test_to_dict_is_strict_json(name):
    # issue 20: to_dict() kept inf (a one-sided interval's open end) and NaN, which
    # json.dumps writes as the non-standard tokens Infinity and NaN
    found = _results_in(REGISTRY[name].run())
    for res in found:
        json.dumps(res.to_dict(), allow_nan=False)
