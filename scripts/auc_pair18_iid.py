"""An out-of-sample check of the iid extension studied in ``auc_pair18_study.py``: variants
of seed-18 #24 (iid paired ROC AUC near 1) not used to choose it, draw seed 31, B = 300;
per test set where ``auto`` gave t, whether t / BCa covered and the features (session 12,
aucpair18)::

    python scripts/auc_pair18_iid.py CELL --reps 150 --json scripts/data/auc_pair18_iid_CELL.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import design_search as ds
from auc_edge_study import misordered

#: variants of seed-18 #24: name -> field replacements
VARIANTS: dict[str, dict[str, Any]] = {
    "err=3e-4": {"error": 3e-4},
    "n=1300": {"n": 1300},
    "prev=0.03": {"prevalence": 0.03},
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("cell", choices=sorted(VARIANTS))
    p.add_argument("--reps", type=int, default=150)
    p.add_argument("--json")
    a = p.parse_args(argv)
    d = dataclasses.replace(ds.random_design(24, 18), **VARIANTS[a.cell])
    pop = ds.Population(d)
    rows = []
    for i in range(a.reps):
        g = np.random.default_rng([31, d.index, i])
        x = pop.draw(g)
        try:
            r = ds.intervals(d, x, seed=int(g.integers(2**31)), B=300)
        except ds.REFUSALS:
            continue
        y = np.asarray(x["y"])
        row = {"i": i, "method": r["auto_method"], "auto": None, "bca": None}
        for m in ("auto", "bca"):
            if m in r:
                row[m] = bool(r[m][0] <= pop.truth <= r[m][1])
        pa = misordered(y, np.asarray(x["a"]), None)["pairs"]
        pb = misordered(y, np.asarray(x["b"]), None)["pairs"]
        row.update(
            n_pos=int(y.sum()),
            n_neg=int(y.size - y.sum()),
            n_cond=None,
            worse=max(pa, pb),
            better=min(pa, pb),
        )
        rows.append(row)
    out = {"label": d.label(), "truth": pop.truth, "rows": rows}
    print(d.label(), {m: sum(r["method"] == m for r in rows) for m in {r["method"] for r in rows}})
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(out, fh, indent=0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
