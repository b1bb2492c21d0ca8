"""Seed >= 15: more correlations at the global and item level over 20-60 systems (session 11).

Helper corrfix (docs/validation.md, "Global-level correlations from 20–40 units (session
11, corrfix)") gave :func:`mlci.correlation_ci`'s ``auto`` a jackknife Fisher-z interval
(``method="jackknife_z"``) at the global and item level over 20-59 systems, where the
bootstrap fell short.  The fields search drew few designs there (a correlation's level,
resampling and number of systems are drawn over wide ranges), so from seed 15 a share
:data:`SHARE` of the designs is one of these, drawn from its own stream (``[seed, index,
15, 24]``): the other designs of a seed-15 search draw exactly as they would without it,
and seeds 0-14 are untouched.

* level: global (0.6) or item (0.4);
* resample: both (0.5), systems (0.35), items (0.15);
* systems: log-uniform 20-60 (the corrfix rows count systems: 20 up to 30 or 60);
* items: log-uniform 20-300 resampling both or systems, 20-60 resampling items (then the
  items are the units); Kendall's cells capped at 900 (at least 15 items: its weighted
  cells cost about n^2 a replicate); Spearman and Kendall at the item level: 20-35
  systems, at most 600 cells (ranks within items cost ~8 s a test set at 1,000 cells);
* coefficients: Pearson, Spearman, Kendall tau-b alike; the variance components as the
  search's non-near correlations, a fifth of them near 1 (``vf`` 0.003-0.03, ``vm`` <= 0.01).

    >>> import numpy as np
    >>> corr15_params(np.random.default_rng(0))["p"]["level"] in ("global", "item")
    True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

#: share of a seed >= 15 fields search's designs drawn here
SHARE = 0.22
FIRST_SEED = 15


def _lu(g: np.random.Generator, lo: float, hi: float) -> float:
    return math.exp(g.uniform(math.log(lo), math.log(hi)))


def corr15_params(g: np.random.Generator) -> dict[str, Any]:
    """One design's metric, systems and parameters (keys as the search's correlations,
    plus ``metric`` and ``n``)."""
    metric = str(g.choice(["pearson", "spearman", "kendall_tau"]))
    p: dict[str, Any] = {}
    p["level"] = str(g.choice(["global", "item"], p=[0.6, 0.4]))
    p["resample"] = str(g.choice(["both", "systems", "items"], p=[0.5, 0.35, 0.15]))
    n = round(_lu(g, 20, 60))
    if p["resample"] == "items":
        items = round(_lu(g, 20, 60))
    else:
        items = round(_lu(g, 20, 300))
    # Kendall's weighted cells cost ~n^2 a replicate (15 s a call at 3,000 cells on the
    # shared machine): at most 900 cells, at least 15 items
    cap = 900 if metric == "kendall_tau" else 6000
    if p["level"] == "item" and metric != "pearson":
        # the rank coefficients within items cost ~8 s a test set at 1,000 cells resampling
        # both: 20-35 systems, at most 600 cells
        n = min(n, 20 + n % 16)
        cap = 600
    p["items"] = max(15, min(items, cap // n))
    near = bool(g.random() < 0.2)
    p["vm"] = _lu(g, 1e-4, 0.01) if near else _lu(g, 1e-3, 2.0)
    p["ve"] = _lu(g, 0.01, 4.0)
    p["vf"] = _lu(g, 0.003, 0.03) if near else _lu(g, 0.01, 4.0)
    p["vd"] = float(g.uniform(0.0, 2.0))
    p["sign"] = -1 if g.random() < 0.2 else 1
    p["s15"] = 1  # marks the design as drawn here
    return {"metric": metric, "n": int(n), "near": near, "p": p}


def maybe(index: int, seed: int) -> dict[str, Any] | None:
    """The seed >= 15 correlation design ``index`` takes, or None (then it draws as usual)."""
    if seed < FIRST_SEED:
        return None
    g = np.random.default_rng([seed, index, 15, 24])
    if g.random() >= SHARE:
        return None
    return corr15_params(g)
