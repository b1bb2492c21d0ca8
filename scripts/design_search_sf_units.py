"""The units a fields design resamples: what issue 20's n >= 30 gate counts (session 11).

``design_search_fields.py`` draws a design's ``n`` as its first unit: segments, documents,
utterances, speakers, queries, items, samples, and for a correlation the *systems*.  A
correlation resampling items (``resample="items"``) resamples its items, not its systems,
so its ``n`` is not the number of units the bootstrap sees (seed-13 fields #49: 4 systems
x 220 items, items resampled, read as "4 units: below issue 20's n >= 30").  This module
counts the units actually resampled:

* correlation: the systems (``resample="systems"``), the items (``"items"``), or the
  scarcer of the two (``"both"``: a crossed bootstrap over 36 systems x 3 items has 3 item
  clusters, seed-12 fields #1);
* agreement resampling items and raters (``"both"``): the scarcer of items and raters;
* every other design: its ``n``.

Used by ``design_search_fields.assess`` (the "below issue 20's n >= 30" flag names the
units) and ``design_search_sf_summary.py`` (the "n >= 30" counts) for every seed; the
results saved before session 11 keep the flags they were saved with.

    >>> units({"family": "correlation", "n": 4, "p": {"resample": "items", "items": 220}})
    (220, '220 items resampled (4 systems fixed)')
"""

from __future__ import annotations

from typing import Any


def units(design: dict[str, Any]) -> tuple[int, str]:
    """(the number of units the design resamples, a phrase naming them)."""
    n = int(design["n"])
    p = design.get("p") or {}
    family = design.get("family")
    if family == "correlation":
        items, how = int(p["items"]), p["resample"]
        if how == "items":
            return items, f"{items} items resampled ({n} systems fixed)"
        if how == "systems":
            return n, f"{n} systems resampled ({items} items fixed)"
        k = min(n, items)
        return k, f"{n} systems x {items} items resampled, the scarcer {k}"
    if family == "agreement" and p.get("resample") == "both":
        raters = int(p["raters"])
        k = min(n, raters)
        return k, f"{n} items x {raters} raters resampled, the scarcer {k}"
    return n, f"{n} units"
