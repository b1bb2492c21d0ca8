"""correlation_ci's few-units warnings: one table (``FEW_UNITS``), every row tested.

Each row (level, resample, unit, threshold, message) warns ``FewConditionsWarning`` with
its message when the design has fewer than ``threshold`` of ``unit``, and that row is
silent at the threshold.  The thresholds' sources: docs/correlations.md ("Few items",
"Coverage") and docs/validation.md ("Correlations over few items (session 9)", "Seed 12's
findings fixed (session 10, lead)", "Design search, seed 13: score drivers and fields").
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci
from mlci.fields.correlations import (
    FEW_UNITS,
    MIN_ITEMS_GLOBAL,
    MIN_SYSTEMS,
    MIN_SYSTEMS_GLOBAL,
)

#: the count of the other factor: at or above every threshold, so only the row's own
#: unit can warn
OTHER = 30


def _scores(n_systems: int, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng([n_systems, n_items])
    system, item = g.normal(size=(n_systems, 1)), g.normal(size=(1, n_items))
    x = system + item + 0.5 * g.normal(size=(n_systems, n_items))
    z = 0.8 * system + item + 0.5 * g.normal(size=(n_systems, n_items))
    return x, z


def _few_units(level: str, resample: str, n_systems: int, n_items: int) -> list[str]:
    x, z = _scores(n_systems, n_items)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mlci.correlation_ci(x, z, coefficient="pearson", correlation_level=level,
                            resample=resample, n_resamples=200, rng=0)  # fmt: skip
    return [str(w.message) for w in caught if issubclass(w.category, mlci.FewConditionsWarning)]


def _shape(unit: str, count: int) -> tuple[int, int]:
    return (count, OTHER) if unit == "systems" else (OTHER, count)


def test_the_table_holds_the_four_rules():
    # (system level: systems or both resampled, and items resampled, below 8 systems;
    # global level resampling both below 20 systems, below 20 items)
    rows = {(lv, rs, unit, th) for lv, rs, unit, th, _ in FEW_UNITS}
    assert rows == {
        ("system", "systems", "systems", MIN_SYSTEMS),
        ("system", "both", "systems", MIN_SYSTEMS),
        ("system", "items", "systems", MIN_SYSTEMS),
        ("global", "both", "systems", MIN_SYSTEMS_GLOBAL),
        ("global", "both", "items", MIN_ITEMS_GLOBAL),
    }
    assert (MIN_SYSTEMS, MIN_SYSTEMS_GLOBAL, MIN_ITEMS_GLOBAL) == (8, 20, 20)


@pytest.mark.parametrize("row", FEW_UNITS, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}")
def test_row_warns_below_its_threshold(row):
    level, resample, unit, threshold, message = row
    texts = _few_units(level, resample, *_shape(unit, threshold - 1))
    assert message.format(n=threshold - 1, threshold=threshold) in texts


@pytest.mark.parametrize("row", FEW_UNITS, ids=lambda r: f"{r[0]}-{r[1]}-{r[2]}")
def test_row_is_silent_at_its_threshold(row):
    level, resample, unit, threshold, message = row
    texts = _few_units(level, resample, *_shape(unit, threshold))
    assert message.format(n=threshold, threshold=threshold) not in texts
    # and no other row speaks for this design (the engine's own few-conditions warning,
    # resampling systems alone, may)
    assert not any(t.startswith(("A system-level", "A global-level")) for t in texts)


def test_messages_as_before_the_table():
    # the texts session 10 wrote out one after another, unchanged
    texts = _few_units("global", "both", 19, 12)
    assert texts == [
        "A global-level correlation over 19 systems, resampling systems and items: below 20 "
        "systems the crossed bootstrap under-covers (mlci's design search: 9 systems, "
        "0.74-0.85 of 95% intervals; docs/correlations.md). Treat the interval as "
        "optimistic, or use more systems.",
        "A global-level correlation over 12 items, resampling systems and items: below 20 "
        "items the crossed bootstrap under-covers where the items' means carry much of the "
        "covariance (mlci's design search: 36 systems x 3 items, 0.83 of 95% intervals, 8-12 "
        "items 0.90; docs/correlations.md). Treat the interval as optimistic, or use more "
        "items.",
    ]
    assert _few_units("system", "items", 4, 30) == [
        "A system-level correlation over 4 systems, resampling items: below 8 systems the "
        "correlation of so few system means moves with every item's noise and mlci cannot "
        "tell its attenuation (the design search: 4 systems x 220 items, 0.87 of 95% "
        "intervals; docs/correlations.md). Treat the interval as optimistic, or use more "
        "systems."
    ]


@pytest.mark.parametrize(("level", "resample"), [("item", "both"), ("global", "systems"),
                                                 ("global", "items")])  # fmt: skip
def test_no_row_for_these_designs(level, resample):
    # the item level held over 3-20 items; one resampled factor at the global level is the
    # engine's (it warns below 20 resampled conditions itself, not through this table)
    assert not any(r[0] == level and r[1] == resample for r in FEW_UNITS)
