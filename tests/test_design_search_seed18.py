"""The design searches' seed 18 (session 12): what they drew.

Seed 18 ran the three searches (``scripts/design_search.py``,
``scripts/design_search_scores.py``, ``scripts/design_search_fields.py``) on the
integration branch (wt-int 5ebb7d5, this session's fixes) with their generators
unchanged, so these tests pin that every saved seed-18 design (and confirmation) is what
the scripts draw now.  Numbers, designs and verdicts:
docs/validation.md, "Design search, seed 18 (session 12)"; results in
``scripts/data/design_search{,_scores,_fields}_seed18*.json``.
"""

from __future__ import annotations

import dataclasses
import json
from types import ModuleType
from typing import Any

import pytest

from _scripts import SCRIPTS, load_script

pytestmark = [pytest.mark.slow, pytest.mark.search]

ds = load_script("design_search.py")
dss = load_script("design_search_scores.py")
dsf = load_script("design_search_fields.py")
mlci = ds.mlci

SEED = 18


def _saved(stem: str) -> list[dict[str, Any]]:
    """The seed-18 rows of a search's JSON files (runs and confirmations)."""
    out: list[dict[str, Any]] = []
    for path in sorted((SCRIPTS / "data").glob(f"{stem}_seed{SEED}*.json")):
        with open(path) as fh:
            doc = json.load(fh)
        out += doc.get("runs", {}).get(f"seed{SEED}", []) + doc.get("confirmed", [])
    return out


@pytest.mark.parametrize(
    ("stem", "script", "least"),
    [
        ("design_search", ds, 1),
        ("design_search_scores", dss, 1),
        ("design_search_fields", dsf, 1),
    ],
)
def test_saved_seed18_designs_are_drawn_as_saved(stem: str, script: ModuleType, least: int) -> None:
    saved = _saved(stem)
    indices = sorted({r["design"]["index"] for r in saved})
    # the search visits designs in order from 0; a run stopped by its time cap is a prefix
    assert len(indices) >= least and indices == list(range(len(indices)))
    for r in saved:
        d = script.random_design(r["design"]["index"], SEED)
        assert dataclasses.asdict(d) == r["design"], r["label"]
        assert d.label() == r["label"]
