"""Seed-18 decision #24 and #66 (paired ROC AUC near 1): the misordered pairs of each
system on the test sets of ``design_search_seed15.py pairs`` (draw seed 19), grouped by
which of ``auto`` and BCa covered (session 12, search18)::

    python scripts/design_search_seed18_aucpair.py
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import design_search as ds

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def misordered(y: np.ndarray, s: np.ndarray) -> float:
    """(positive, negative) pairs with the negative scored at or above (ties half)."""
    pos = np.sort(s[y == 1])
    neg = s[y == 0]
    lt = np.searchsorted(pos, neg, side="left")
    le = np.searchsorted(pos, neg, side="right")
    return float(lt.sum() + 0.5 * (le - lt).sum())


def main() -> None:
    for k in (24, 66):
        with open(os.path.join(DATA, f"design_search_seed18_pairs{k}.json")) as fh:
            v = next(iter(json.load(fh)["pairs"].values()))
        d = ds.random_design(k, 18)
        pop = ds.Population(d)
        groups: dict[str, list[tuple[str, int, float, float]]] = {}
        for r in v["rows"]:
            x = pop.draw(np.random.default_rng([19, k, r["i"]]))
            y = np.asarray(x["y"])
            key = (
                "bca_only"
                if r["bca"] and not r["auto"]
                else "auto_only"
                if r["auto"] and not r["bca"]
                else "both"
                if r["auto"]
                else "neither"
            )
            row = (r["method"], int(y.sum()), misordered(y, x["a"]), misordered(y, x["b"]))
            groups.setdefault(key, []).append(row)
        print(k, d.label())
        for key, rows in sorted(groups.items()):
            a = np.array([r[1:] for r in rows])
            meth = {m: sum(r[0] == m for r in rows) for m in sorted({r[0] for r in rows})}
            print(
                f"  {key:9s} {len(rows):3d} {meth} positives {np.median(a[:, 0]):.0f}"
                f" misordered A median {np.median(a[:, 1]):.1f} [{a[:, 1].min():.0f},"
                f" {a[:, 1].max():.0f}] B median {np.median(a[:, 2]):.1f}"
                f" [{a[:, 2].min():.0f}, {a[:, 2].max():.0f}]"
            )


if __name__ == "__main__":
    main()
