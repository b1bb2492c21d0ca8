"""Shared parameter documentation (mlci.inputs.docstrings, after scipy's doccer)."""

from __future__ import annotations

import inspect
import re

import pytest

import mlci
from mlci.inputs import ENTRIES, fill_doc, fill_text


def _public_docs() -> dict[str, str]:
    out = {}
    for name in mlci.__all__:
        obj = getattr(mlci, name)
        out[name] = obj.__doc__ or ""
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and callable(member) and member.__doc__:
                    out[f"{name}.{attr}"] = member.__doc__
    return out


def test_no_placeholder_is_left_in_a_public_docstring() -> None:
    left = [n for n, doc in _public_docs().items() if re.search(r"%\(\w+\)s", doc)]
    assert not left, f"unfilled %(name)s in {left}: decorate with @fill_doc"


def test_the_shared_entries_are_used() -> None:
    docs = _public_docs()
    for key, users in (
        ("alternative_test", ("permutation_test", "delong_test", "kfold_cv_ttest")),
        ("dropna", ("permutation_test",)),
    ):
        first = ENTRIES[key].splitlines()[1].strip()
        for name in users:
            assert first in docs[name], f"{name} does not use the shared `{key}` entry"


def test_fill_text_indents_and_refuses_unknown_names() -> None:
    doc = "Parameters\n    ----------\n    %(dropna)s\n    x : int\n"
    filled = fill_text(doc)
    assert "    dropna : bool, default False\n        Drop the samples" in filled
    assert filled.endswith("    x : int\n")
    with pytest.raises(KeyError, match="no shared docstring entry 'dropnaa'"):
        fill_text("    %(dropnaa)s\n")

    @fill_doc
    def f() -> None:
        """Parameters
        ----------
        %(rng)s
        """

    assert "%(" not in (f.__doc__ or "") and "same seed" in (f.__doc__ or "")


def test_the_api_reference_extension_fills_the_same_text() -> None:
    griffe = pytest.importorskip("griffe")
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "griffe_doccer.py"
    spec = importlib.util.spec_from_file_location("griffe_doccer", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    obj = griffe.Function("f", docstring=griffe.Docstring("Parameters\n----------\n%(dropna)s"))
    module.FillSharedEntries().on_instance(node=None, obj=obj, agent=None)
    assert obj.docstring is not None
    assert obj.docstring.value == "Parameters\n----------\n" + ENTRIES["dropna"]
