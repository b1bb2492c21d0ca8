"""A paired F1 difference with few positives over conditions (the class of
``mlci.engine.edge_bca``): t, BCa, the percentile interval and ``auto`` on the same test
sets, cell by cell (session 12, helper edgef1).

Seed-17 decision #57 (113 samples, about 3 positives, 8 equal conditions, ICC 0.33) had
``auto`` (BCa through session 11's rule) at 0.814 of 291 against the percentile
interval's 0.883.  The grid: conditions 6-150, ICC 0-0.45, about 1.5-8 expected
positives, equal and unequal condition sizes, on seed-17 #57 (n = 113) and seed-15 #55
(n = 259, unequal) with fields replaced.  Test sets are drawn as the search draws them
(``np.random.default_rng([draw_seed, index, i])``); each row keeps every method's
interval, whether it covers, and the test set's features (positives, conditions, the
conditions that hold a positive), so a rule can be read off the rows.

The committed run (two processes by cell, merged and compacted by
``scripts/edge_f1_rules.py --write``; ``--tag after`` on the tree with the rule)::

    PYTHONPATH=src nice -n 15 python scripts/edge_f1_study.py --reps 250 -B 300 \\
        --only "s15#" --tag before --json /tmp/before_1.json
    PYTHONPATH=src nice -n 15 python scripts/edge_f1_study.py --reps 250 -B 300 \\
        --only "s17#" --tag before --json /tmp/before_2.json
    python scripts/edge_f1_rules.py /tmp/before_*.json /tmp/after_*.json \\
        --write scripts/data/edge_f1_study.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
import warnings
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search as ds
import numpy as np
from design_search_seed15 import mcnemar_p

import mlci

METHODS = ("auto", "t", "bca", "percentile")


def _cells() -> list[tuple[str, int, int, dict[str, Any]]]:
    """(cell name, design index, design seed, field replacements)."""
    out: list[tuple[str, int, int, dict[str, Any]]] = []
    for c in (6, 8, 12, 20, 30, 60):
        for icc in (0.0, 0.15, 0.33, 0.45):
            out.append((f"s17#57 C={c} icc={icc}", 57, 17, {"n_conditions": c, "icc": icc}))
    for pos in (1.5, 5.0, 8.0):
        for c in (8, 30):
            out.append(
                (
                    f"s17#57 pos~{pos} C={c} icc=0.33",
                    57,
                    17,
                    {"n_conditions": c, "icc": 0.33, "prevalence": pos / 113},
                )
            )
    for c in (8, 12, 30):
        out.append((f"s17#57 unequal C={c} icc=0.33", 57, 17, {"n_conditions": c, "unequal": True}))
    for c in (8, 12, 30, 69, 150):
        for icc in (0.19, 0.40):
            out.append((f"s15#55 C={c} icc={icc}", 55, 15, {"n_conditions": c, "icc": icc}))
    return out


CELLS = _cells()


def features(x: dict[str, Any]) -> dict[str, Any]:
    """The test set's observable features: positives (the smaller class), conditions,
    conditions that hold a sample of the smaller class, and the one-way ANOVA ICC of
    the paired difference of the systems' errors over the conditions."""
    y = np.asarray(x["y"])
    cond = np.asarray(x["conditions"])
    pos = int(y.sum())
    minority = 1 if pos <= len(y) - pos else 0
    _, inv = np.unique(cond, return_inverse=True)
    n_c = int(inv.max()) + 1
    held = len(np.unique(inv[y == minority]))
    e = (np.asarray(x["a"]) != y).astype(float) - (np.asarray(x["b"]) != y).astype(float)
    sizes = np.bincount(inv)
    means = np.bincount(inv, weights=e) / sizes
    n = len(e)
    msb = float(np.sum(sizes * (means - e.mean()) ** 2) / max(n_c - 1, 1))
    msw = float(np.sum((e - means[inv]) ** 2) / max(n - n_c, 1))
    n0 = (n - np.sum(sizes**2) / n) / max(n_c - 1, 1)
    icc = (msb - msw) / (msb + (n0 - 1) * msw) if msb + (n0 - 1) * msw > 0 else 0.0
    return {
        "positives": min(pos, len(y) - pos),
        "conditions": n_c,
        "held": held,
        "icc_hat": float(icc),
    }


def run_set(d: ds.Design, x: dict[str, Any], seed: int, B: int) -> dict[str, Any]:
    """Each method's interval of the difference a - b on one test set."""
    row: dict[str, Any] = {}
    for m in METHODS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                r = mlci.compare(
                    x["y"],
                    {"a": x["a"], "b": x["b"]},
                    metric=d.metric,
                    method=m,
                    conditions=x["conditions"],
                    n_resamples=B,
                    rng=seed,
                    n_jobs=1,
                ).difference("a", "b")
            except ds.REFUSALS as exc:
                row[m] = None
                row[f"{m}_refused"] = type(exc).__name__
                continue
        row[m] = [float(v) for v in r.confidence_interval]
        if m == "auto":
            row["auto_method"] = r.method
            row["warned"] = any(issubclass(w.category, mlci.MlciWarning) for w in caught)
            row["reason"] = str(r.details.get("method_reason", ""))[-160:]
    return row


def summarise(rows: list[dict[str, Any]], truth: float) -> dict[str, Any]:
    """Coverage, median width and pairwise only-X-covered counts over the rows where
    every method served."""
    ok = [r for r in rows if all(r.get(m) is not None for m in METHODS)]
    cov = {m: [r[m][0] <= truth <= r[m][1] for r in ok] for m in METHODS}
    out: dict[str, Any] = {"test_sets": len(ok)}
    k = max(len(ok), 1)
    for m in METHODS:
        out[m] = sum(cov[m]) / k
        out[f"{m}_width"] = float(np.median([r[m][1] - r[m][0] for r in ok])) if ok else None
    pairs = {}
    for i, a in enumerate(METHODS):
        for b in METHODS[i + 1 :]:
            oa = sum(x and not y for x, y in zip(cov[a], cov[b], strict=True))
            ob = sum(y and not x for x, y in zip(cov[a], cov[b], strict=True))
            pairs[f"{a}|{b}"] = [oa, ob, mcnemar_p(oa, ob)]
    out["only"] = pairs  # [only a covers, only b covers, McNemar p]
    out["warned"] = sum(bool(r.get("warned")) for r in ok)
    methods: dict[str, int] = {}
    for r in ok:
        methods[r["auto_method"]] = methods.get(r["auto_method"], 0) + 1
    out["auto_methods"] = methods
    few = [r for r in ok if r["positives"] < 5]
    out["few"] = len(few)
    for m in METHODS:
        out[f"few_{m}"] = sum(r[m][0] <= truth <= r[m][1] for r in few) / max(len(few), 1)
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=250)
    p.add_argument("-B", "--resamples", type=int, default=300)
    p.add_argument("--draw-seed", type=int, default=18)
    p.add_argument("--only", action="append", help="only cells whose name holds this")
    p.add_argument("--json")
    p.add_argument("--tag", default="run", help="key of this run in the JSON (before/after)")
    args = p.parse_args(argv)
    out: dict[str, Any] = {}
    for name, index, seed, repl in CELLS:
        if args.only and not any(o in name for o in args.only):
            continue
        d = dataclasses.replace(ds.random_design(index, seed), **repl)
        pop = ds.Population(d)
        t0 = time.time()
        rows = []
        for i in range(args.reps):
            g = np.random.default_rng([args.draw_seed, d.index, i])
            x = pop.draw(g)
            row = {"i": i, **features(x)}
            row.update(run_set(d, x, int(g.integers(2**31)), args.resamples))
            rows.append(row)
        s = summarise(rows, pop.truth)
        out[name] = {"label": d.label(), "truth": pop.truth, **s, "rows": rows}
        print(
            f"{name:32s} n={s['test_sets']:3d} few={s['few']:3d} "
            + " ".join(f"{m} {s[m]:.3f}" for m in METHODS)
            + f" | auto|pct {s['only']['auto|percentile'][:2]} bca|pct "
            f"{s['only']['bca|percentile'][:2]} warned {s['warned']} {s['auto_methods']} "
            f"({time.time() - t0:.0f}s)",
            flush=True,
        )
        if args.json:  # after every cell: a stopped run keeps what it measured
            doc: dict[str, Any] = {}
            if os.path.exists(args.json):
                with open(args.json) as f:
                    doc = json.load(f)
            run = doc.setdefault("runs", {}).setdefault(args.tag, {})
            run.update({"reps": args.reps, "B": args.resamples, "draw_seed": args.draw_seed})
            run.setdefault("cells", {})[name] = out[name]
            with open(args.json, "w") as f:
                json.dump(doc, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
