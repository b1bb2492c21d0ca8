"""Coverage of :func:`mlci.roc_band`'s simultaneous band on its default grid (issue 20).

Binormal scores (negatives N(0, 1), positives N(d, 1), ``d = sqrt(2) Phi^-1(AUC)``,
true curve ``TPR(f) = Phi(d + Phi^-1(f))``), iid.  A test set counts as covered when the
band holds the true TPR at every point of its grid.  ``old``: the grid before session 10
(101 FPRs over [0, 1]); ``new``: the default grid of
:func:`mlci.scores._band_rules.default_band_grid` (101 FPRs between the first and last
FPR with at least 10 samples of each class on either side of the threshold).  Also the
share of test sets with a warning (any ``NearBoundWarning``), and the exact (Clopper-
Pearson) 95% interval of the coverage.

Usage::

    python scripts/roc_band_default_grid.py CHUNK      # 'key', 'grid', 'grid2' (CHUNKS)
    python scripts/roc_band_default_grid.py --summary  # the table, from scripts/data
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats
from scipy.special import ndtr, ndtri

import mlci

B = 500
DATA_DIR = Path(__file__).parent / "data"
_GRID = [(n, n, a) for n in (20, 50, 100, 300, 500) for a in (0.7, 0.9, 0.99)]
_UNBAL = [(50, 500, 0.8), (90, 1332, 0.885), (300, 3000, 0.95)]
#: (n_pos, n_neg, AUC, test sets, grids); the key cells get 1000 test sets
CHUNKS = {
    "key": [
        (100, 100, 0.8, 1000, ("new", "old")),
        (300, 300, 0.76, 1000, ("new", "old")),
        (90, 1332, 0.885, 1000, ("new", "old")),
        (500, 500, 0.9, 1000, ("new",)),
        (20, 20, 0.8, 1000, ("new",)),
    ],
    "grid": [(p, q, a, 200, ("new",)) for p, q, a in _GRID + _UNBAL],
    # the same cells from the other end, run alongside (the machine was shared)
    "grid2": [(p, q, a, 200, ("new",)) for p, q, a in (_UNBAL + _GRID)[::-1]],
}


def run_cell(n_pos: int, n_neg: int, auc: float, sets: int, grid: str) -> dict:
    d = float(np.sqrt(2) * ndtri(auc))
    hits = warned = grid_warned = 0
    lo, hi, width = [], [], []
    for i in range(sets):
        g = np.random.default_rng([1010, n_pos, n_neg, round(auc * 1000), i])
        sc = mlci.Scores(g.normal(d, 1, n_pos), g.normal(0, 1, n_neg))
        x = np.linspace(0, 1, 101) if grid == "old" else None
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with mlci.config_context(n_jobs=1):
                b = mlci.roc_band(sc, x, simultaneous=True, rng=g, n_resamples=B)
        warned += any(issubclass(m.category, mlci.NearBoundWarning) for m in w)
        grid_warned += "grid_warning" in b.extra
        truth = ndtr(d + ndtri(b.x))
        hits += bool(np.all((b.low <= truth + 1e-12) & (truth <= b.high + 1e-12)))
        lo.append(float(b.x[0]))
        hi.append(float(b.x[-1]))
        width.append(float(np.mean(b.high - b.low)))
    ci = stats.binomtest(hits, sets).proportion_ci(0.95, method="exact")
    return {
        "n_pos": n_pos, "n_neg": n_neg, "auc": auc, "grid": grid, "sets": sets,
        "coverage": hits / sets, "coverage_95": [float(ci.low), float(ci.high)],
        "warned": warned / sets, "grid_warned": grid_warned / sets,
        "fpr_from": float(np.mean(lo)), "fpr_to": float(np.mean(hi)),
        "mean_width": float(np.mean(width)), "B": B,
    }  # fmt: skip


def summary() -> None:
    cells = [c for f in sorted(DATA_DIR.glob("roc_band_default_grid_*.json"))
             for c in json.loads(f.read_text())]  # fmt: skip
    print("| n_pos | n_neg | AUC | grid | test sets | coverage (exact 95%) | warned | FPRs |")
    print("|---:|---:|---:|---|---:|---|---:|---|")
    for c in sorted(cells, key=lambda c: (c["grid"], c["n_pos"], c["n_neg"], c["auc"])):
        lo, hi = c["coverage_95"]
        print(f"| {c['n_pos']} | {c['n_neg']} | {c['auc']} | {c['grid']} | {c['sets']} | "
              f"{c['coverage']:.3f} ({lo:.3f}-{hi:.3f}) | {c['warned']:.2f} | "
              f"{c['fpr_from']:.3f}-{c['fpr_to']:.3f} |")  # fmt: skip


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        summary()
        sys.exit()
    data = DATA_DIR / f"roc_band_default_grid_{sys.argv[1]}.json"
    for p, q, a, sets, grids in CHUNKS[sys.argv[1]]:
        for grid in grids:
            t0 = time.time()
            cell = run_cell(p, q, a, sets, grid)
            print(json.dumps(cell), f"{time.time() - t0:.0f} s", flush=True)
            out = json.loads(data.read_text()) if data.exists() else []
            out = [
                c for c in out if (c["n_pos"], c["n_neg"], c["auc"], c["grid"]) != (p, q, a, grid)
            ]
            data.write_text(json.dumps([*out, cell], indent=1))
