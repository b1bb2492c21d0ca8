"""Griffe extension for the API reference: fill the shared parameter entries.

mkdocstrings reads docstrings from the source, where a shared entry is still its
placeholder (``%(alternative_test)s``, see ``mlci.inputs.docstrings``); this fills them
with the same function the package uses at import time, so the reference and ``help()``
show the same text.  Listed under ``extensions`` in mkdocs.yml.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import griffe

_SOURCE = Path(__file__).resolve().parents[1] / "src" / "mlci" / "inputs" / "docstrings.py"
_spec = importlib.util.spec_from_file_location("_mlci_docstrings", _SOURCE)
assert _spec is not None and _spec.loader is not None
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)


class FillSharedEntries(griffe.Extension):
    """Replace ``%(name)s`` lines of every docstring by ``mlci.inputs.docstrings.ENTRIES``."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        doc = obj.docstring
        if doc is not None and "%(" in doc.value:
            doc.value = _module.fill_text(doc.value)
