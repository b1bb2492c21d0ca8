"""Two near-bound classes where ``auto`` was below BCa in the seed-15 design search
(session 11, helper edgebca): ``auto`` against BCa (and the percentile interval) on the
same test sets, cell by cell.

* class ``auc1``: ROC AUC within ~1e-6 of 1 over ~100 conditions (seed 15 #21) and
  neighbours (conditions 40-150, ICC 0.05-0.4, 1 - AUC 1e-7 to 1e-5);
* class ``pairedf1``: a paired F1 difference with ~3 positives over 69 conditions (seed
  15 #55) and neighbours (conditions 30-150, ICC 0.05-0.4, 2-6 expected positives).

Designs are seed 15's (``design_search.random_design(i, 15)``) with fields replaced;
test sets are drawn as the search draws them (``np.random.default_rng([draw_seed,
index, i])``, interval seed from the same generator).  McNemar's exact p compares auto
and BCa test set by test set.

::

    PYTHONPATH=src nice -n 5 python scripts/edge_bca_study.py --reps 200 -B 300 \\
        --json scripts/data/edge_bca_study.json
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search as ds
import numpy as np
from design_search_seed15 import mcnemar_p

#: (class, cell name, seed-15 design index, field replacements)
CELLS: list[tuple[str, str, int, dict[str, Any]]] = [
    ("auc1", "s15#21", 21, {}),
    ("auc1", "C=40", 21, {"n_conditions": 40}),
    ("auc1", "C=150", 21, {"n_conditions": 150}),
    ("auc1", "icc=0.05", 21, {"icc": 0.05}),
    ("auc1", "icc=0.40", 21, {"icc": 0.40}),
    ("auc1", "1-auc=1e-5", 21, {"error": 1e-5}),
    ("auc1", "1-auc=1e-7", 21, {"error": 1e-7}),
    ("pairedf1", "s15#55", 55, {}),
    ("pairedf1", "C=30", 55, {"n_conditions": 30}),
    ("pairedf1", "C=150", 55, {"n_conditions": 150}),
    ("pairedf1", "icc=0.05", 55, {"icc": 0.05}),
    ("pairedf1", "icc=0.40", 55, {"icc": 0.40}),
    ("pairedf1", "pos~2", 55, {"prevalence": 2 / 259}),
    ("pairedf1", "pos~6", 55, {"prevalence": 6 / 259}),
]


def run_cell(d: ds.Design, reps: int, B: int, draw_seed: int) -> dict[str, Any]:
    """auto, BCa and percentile coverage of one design on ``reps`` test sets."""
    pop = ds.Population(d)
    rows = []
    for i in range(reps):
        g = np.random.default_rng([draw_seed, d.index, i])
        x = pop.draw(g)
        try:
            r = ds.intervals(d, x, seed=int(g.integers(2**31)), B=B)
        except ds.REFUSALS:
            continue
        row: dict[str, Any] = {
            "i": i,
            "method": r["auto_method"],
            "warned": r["warned"],
            "positives": int(np.sum(x["y"])),
        }
        for m in ("auto", "bca", "percentile"):
            if m in r:
                lo, hi = r[m]
                row[m] = bool(lo <= pop.truth <= hi)
        rows.append(row)
    both = [r for r in rows if "bca" in r]
    only_auto = sum(r["auto"] and not r["bca"] for r in both)
    only_bca = sum(r["bca"] and not r["auto"] for r in both)
    by: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    for r in both:
        by[r["method"]][0] += 1
        by[r["method"]][1] += r["auto"]
        by[r["method"]][2] += r["bca"]
    k = max(len(both), 1)
    pct = [r for r in rows if "percentile" in r]
    return {
        "label": d.label(),
        "truth": pop.truth,
        "served": len(rows),
        "test_sets": len(both),
        "auto": sum(r["auto"] for r in both) / k,
        "bca": sum(r["bca"] for r in both) / k,
        "percentile": sum(r["percentile"] for r in pct) / max(len(pct), 1),
        "warned": sum(r["warned"] for r in rows),
        "only_auto": only_auto,
        "only_bca": only_bca,
        "mcnemar_p": mcnemar_p(only_auto, only_bca),
        "by_auto_method": dict(by),  # method: [test sets, auto covers, BCa covers]
        "rows": rows,
    }


#: fingerprint cases outside the changed class: (name, seed-15 design, replacements, test sets)
FINGERPRINT: list[tuple[str, int, dict[str, Any], int]] = [
    ("iid auc 0.999 n=400", 21, {"n_conditions": 0, "n": 400, "error": 1e-3}, 4),
    ("iid auc 1-1e-6 n=3148", 21, {"n_conditions": 0}, 3),
    ("auc 0.9 over 102 conditions", 21, {"error": 0.1}, 3),
    ("auc 0.99 over 40 conditions", 21, {"error": 0.01, "n_conditions": 40}, 3),
    ("auc 1-1.2e-6 over 102 conditions", 21, {}, 3),
    ("paired f1 ~30 positives over 69 conditions", 55, {"prevalence": 0.12}, 4),
    ("paired f1 ~10 positives over 69 conditions", 55, {"prevalence": 0.04}, 3),
    ("paired f1 ~50 positives over 30 conditions", 55, {"prevalence": 0.2, "n_conditions": 30}, 4),
    ("paired f1 ~100 positives over 69 conditions", 55, {"prevalence": 0.4, "gap": 0.05}, 4),
    ("paired f1 ~3 positives iid", 55, {"n_conditions": 0}, 3),
    ("paired mcc ~3 positives over 69 conditions", 55, {"metric": "mcc"}, 3),
    ("paired accuracy ~3 positives over 69 conditions", 55, {"metric": "accuracy"}, 3),
]


def fingerprint(B: int = 200) -> dict[str, list[list[Any]]]:
    """``auto``'s (method, low, high) on a few test sets of each :data:`FINGERPRINT` case
    (draw seed 23): the results the change must leave alone."""
    out: dict[str, list[list[Any]]] = {}
    for name, index, repl, reps in FINGERPRINT:
        d = dataclasses.replace(ds.random_design(index, 15), **repl)
        pop = ds.Population(d)
        rows: list[list[Any]] = []
        for i in range(reps):
            g = np.random.default_rng([23, d.index, i])
            x = pop.draw(g)
            try:
                r = ds.intervals(d, x, seed=int(g.integers(2**31)), B=B)
            except ds.REFUSALS:
                continue
            rows.append([r["auto_method"], *r["auto"]])
        out[name] = rows
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=200)
    p.add_argument("-B", "--resamples", type=int, default=300)
    p.add_argument("--draw-seed", type=int, default=17)
    p.add_argument("--cls", action="append", help="only these classes")
    p.add_argument("--json")
    p.add_argument("--tag", default="run", help="key of this run in the JSON (before/after)")
    p.add_argument("--fingerprint", help="write fingerprint() to this JSON and stop")
    args = p.parse_args(argv)
    if args.fingerprint:
        with open(args.fingerprint, "w") as f:
            json.dump({"B": 200, "draw_seed": 23, "cases": fingerprint()}, f, indent=1)
        return 0
    out: dict[str, Any] = {}
    for cls, name, index, repl in CELLS:
        if args.cls and cls not in args.cls:
            continue
        d = dataclasses.replace(ds.random_design(index, 15), **repl)
        t0 = time.time()
        r = run_cell(d, args.reps, args.resamples, args.draw_seed)
        r["class"], r["cell"] = cls, name
        out[f"{cls}:{name}"] = r
        print(
            f"{cls:9s} {name:11s} n={r['test_sets']:3d} auto {r['auto']:.3f} bca {r['bca']:.3f} "
            f"pct {r['percentile']:.3f} warned {r['warned']} auto-only {r['only_auto']} "
            f"bca-only {r['only_bca']} p {r['mcnemar_p']:.3g} by {r['by_auto_method']} "
            f"({time.time() - t0:.0f}s)",
            flush=True,
        )
    if args.json:
        doc: dict[str, Any] = {}
        if os.path.exists(args.json):
            with open(args.json) as f:
                doc = json.load(f)
        doc.setdefault("runs", {})[args.tag] = {
            "reps": args.reps,
            "B": args.resamples,
            "draw_seed": args.draw_seed,
            "cells": out,
        }
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
