"""correlation_ci at the global level over few items, resampling systems and items.

The design search's seed-12 fields #1 (Pearson over 36 systems x 3 items, a large item
effect): BCa covered 0.830 of 300 test sets, never warned; with 8-12 items 0.90, 20 items
0.92, 40 items 0.95 (scripts/correlation_items_sweep.py, scripts/data/
correlation_items_sweep.json; docs/correlations.md, "The global level over few items").
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci
from mlci.fields.correlations import MIN_ITEMS_GLOBAL


def _scores(n_systems: int, n_items: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    g = np.random.default_rng(seed)
    system = g.normal(size=(n_systems, 1))
    item = 1.2 * g.normal(size=(1, n_items))  # an item effect both scores share
    x = system + item + 0.5 * g.normal(size=(n_systems, n_items))
    z = 0.8 * system + item + 0.5 * g.normal(size=(n_systems, n_items))
    return x, z


def _few_conditions(level: str, resample: str, n_items: int) -> list[str]:
    x, z = _scores(36, n_items)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mlci.correlation_ci(x, z, correlation_level=level, resample=resample,
                            n_resamples=200, rng=0)  # fmt: skip
    return [str(w.message) for w in caught if issubclass(w.category, mlci.FewConditionsWarning)]


def test_threshold_is_the_engines_for_resampled_items():
    assert MIN_ITEMS_GLOBAL == 20


@pytest.mark.parametrize("n_items", [3, 8, 19])
def test_global_level_over_few_items_resampling_both_warns(n_items):
    texts = _few_conditions("global", "both", n_items)
    assert any(t.startswith(f"A global-level correlation over {n_items} items") for t in texts)


def test_global_level_over_twenty_items_is_quiet():
    assert not _few_conditions("global", "both", 20)


@pytest.mark.parametrize(("level", "resample"), [("item", "both"), ("global", "systems")])
def test_other_levels_and_schemes_keep_their_own_rules(level, resample):
    # the item level held over 3-20 items (0.96-0.975); resampling systems alone, the
    # items are fixed: this rule is about the crossed bootstrap's items
    assert not any("items, resampling" in t for t in _few_conditions(level, resample, 3))
