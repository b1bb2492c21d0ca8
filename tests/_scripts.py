"""The study scripts of ``scripts/`` as modules, for the tests that check the numbers the
docs report from them (their populations, truths and designs) instead of copying them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_script(filename: str, name: str | None = None) -> ModuleType:
    """``scripts/FILENAME`` executed as a fresh module ``name`` (default: the file's stem),
    registered in ``sys.modules`` (dataclasses look their module up there)."""
    path = SCRIPTS / filename
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
