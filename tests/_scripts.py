"""The study scripts of ``scripts/`` as modules, for the tests that check the numbers the
docs report from them (their populations, truths and designs) instead of copying them;
and the design-search tests' shared preamble (:data:`SEARCH_KW`, :func:`search_set`,
:func:`warned`, :func:`saved_runs`, :func:`assert_drawn_as_saved`)."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
#: the searches' saved results (``scripts/data/design_search_*.json``)
DATA = SCRIPTS / "data"


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


# ------------------------------------------------- the design-search tests' shared preamble
#: the search tests' bootstrap: one interval each at B = 200, seed 0 (cheap at CI scale)
SEARCH_KW = {"n_resamples": 200, "rng": 0}


def search_set(
    script: ModuleType, seed: int, index: int, draw: int = 0, *tail: int
) -> tuple[Any, Any, Any]:
    """Design ``index`` of a search script's (``design_search*.py``) seed ``seed`` and its
    test set ``draw`` as the search drew it: ``(design, population, test set)``, the test
    set from ``np.random.default_rng([seed, index, draw, *tail])`` (``tail``: the fields
    search's ``24``)."""
    import numpy as np

    d = script.random_design(index, seed)
    pop = script.Population(d)
    return d, pop, pop.draw(np.random.default_rng([seed, index, draw, *tail]))


def warned(call: Callable[[], object]) -> list[str]:
    """The mlci warnings ``call()`` emits (names of their classes), on one engine thread
    (``mlci.config_context(n_jobs=1)``)."""
    import mlci

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with mlci.config_context(n_jobs=1):
            call()
    return [w.category.__name__ for w in caught if issubclass(w.category, mlci.MlciWarning)]


def saved_runs(script: str, seed: int) -> list[dict[str, Any]]:
    """A search's saved results of seed ``seed`` (``design_search_{script}_seed{seed}.json``,
    ``script`` "scores" or "fields"), then those of its first, pre-merge run and its
    confirmations (300 other test sets) where they were saved: every run's ``runs`` of
    the seed and ``confirmed``."""
    out: list[dict[str, Any]] = []
    for part in ("", "_premerge", "_confirm"):
        path = DATA / f"design_search_{script}_seed{seed}{part}.json"
        if part and not path.exists():
            continue
        with open(path) as fh:
            doc = json.load(fh)
        out += doc["runs"].get(f"seed{seed}", []) + doc.get("confirmed", [])
    return out


def assert_drawn_as_saved(script: ModuleType, saved: list[dict[str, Any]], seed: int) -> set[int]:
    """Assert that every saved result's design is the one ``script.random_design`` draws
    for its index at ``seed`` (fields and label); returns the indices seen."""
    for r in saved:
        d = script.random_design(r["design"]["index"], seed)
        assert dataclasses.asdict(d) == r["design"], r["label"]
        assert d.label() == r["label"]
    return {r["design"]["index"] for r in saved}


def seed_rows(stem: str, seed: int) -> list[dict[str, Any]]:
    """Every saved row of seed ``seed`` in a search's JSON files
    (``scripts/data/{stem}_seed{seed}*.json``: its runs and confirmations)."""
    out: list[dict[str, Any]] = []
    for path in sorted(DATA.glob(f"{stem}_seed{seed}*.json")):
        with open(path) as fh:
            doc = json.load(fh)
        out += doc.get("runs", {}).get(f"seed{seed}", []) + doc.get("confirmed", [])
    return out


def assert_seed_drawn_as_saved(stem: str, script: ModuleType, seed: int, least: int = 1) -> None:
    """Assert that seed ``seed``'s saved rows of search ``stem`` (:func:`seed_rows`) are
    what ``script`` draws now (:func:`assert_drawn_as_saved`), over a prefix of at least
    ``least`` designs (the search visits designs in order from 0; a run stopped by its
    time cap is a prefix)."""
    indices = sorted(assert_drawn_as_saved(script, seed_rows(stem, seed), seed))
    assert len(indices) >= least and indices == list(range(len(indices)))
