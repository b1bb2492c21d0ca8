"""The ROC AUC over conditions with few of a class: ``auto``'s coverage per test set, the
smaller class's Kish effective conditions and whether mlci warned (docs/validation.md,
"The AUC over conditions with few of a class").

``python scripts/clustered_auc_sweep.py REPS DOOR OUT.json`` with DOOR ``auc_ci`` or
``bootstrap_ci``: 60 designs (15-70 expected positives, 31 and 100 equal conditions, ICC
0-0.4, AUC 0.98 and 0.85), the search's binormal scores (``scripts/design_search.py``).
"""

from __future__ import annotations

import itertools
import json
import sys
import time
import warnings
from typing import Any

import numpy as np

sys.path.insert(0, "scripts")
import design_search as ds

import mlci
from mlci.engine.auc_class import class_effective_conditions


def kish(y: np.ndarray, cond: np.ndarray | None) -> float:
    """The smaller class's effective conditions (NaN without conditions)."""
    return float("nan") if cond is None else class_effective_conditions(y == 1, cond)


def run(d: ds.Design, reps: int, door: str, seed: int = 11, B: int = 1000) -> list[Any]:
    """Per test set: covered, Kish, smaller class, warned, method."""
    pop = ds.Population(d)
    rows = []
    for i in range(reps):
        g = np.random.default_rng([seed, d.index, i])
        x = pop.draw(g)
        y, a, cond = x["y"], x["a"], x["conditions"]
        common = {"n_resamples": B, "rng": int(g.integers(2**31)), "n_jobs": 1}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                if door == "auc_ci":
                    r = mlci.auc_ci(mlci.Scores.from_labels(y, a), conditions=cond, **common)
                else:
                    r = mlci.bootstrap_ci(y, a, metric="roc_auc", conditions=cond, **common)
            except ds.REFUSALS:
                continue
        lo, hi = map(float, r.confidence_interval)
        few = int(min(y.sum(), len(y) - y.sum()))
        warned = any(issubclass(w.category, mlci.MlciWarning) for w in caught)
        rows.append((bool(lo <= pop.truth <= hi), kish(y, cond), few, warned, r.method))
    return rows


def main(argv: list[str]) -> None:
    reps, door, out = int(argv[0]), argv[1], argv[2]
    res = []
    grid = itertools.product((15, 22, 30, 45, 70), (31, 100), (0.0, 0.2, 0.4), (0.02, 0.15))
    for idx, (npos, C, icc, err) in enumerate(grid, start=5000):
        n = int(npos / 0.0429) if C == 31 else max(int(npos / 0.0429), 2 * C)
        family, metric = ("scores", "auc") if door == "auc_ci" else ("rank", "roc_auc")
        d = ds.Design(idx, family, metric, n, npos / n, err, 1.0, C, icc, False)
        t0 = time.process_time()
        rows = run(d, reps, door)
        cov = np.mean([r[0] for r in rows])
        k = np.array([r[1] for r in rows])
        print(
            f"npos={npos} C={C} icc={icc} err={err} n={n}: auto {cov:.3f} "
            f"warned {np.mean([r[3] for r in rows]):.2f} kish med {np.median(k):.1f} "
            f"[{k.min():.1f},{k.max():.1f}] {time.process_time() - t0:.1f}s",
            flush=True,
        )
        res.append({"npos": npos, "C": C, "icc": icc, "err": err, "n": n, "rows": rows})
        with open(out, "w") as f:
            json.dump(res, f)


if __name__ == "__main__":
    main(sys.argv[1:])
