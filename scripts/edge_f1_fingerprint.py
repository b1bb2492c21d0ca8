"""Fingerprint of ``auto`` outside the session-12 change to the few-positive paired F1
rule (session 12, helper edgef1): ``auto``'s (method, low, high) of the difference on a
few test sets of each case, to compare before and after the change.

Outside the change: F1 differences with 5 or more positives over conditions, F1 with few
positives iid, MCC, accuracy and precision with few positives over conditions.  Inside
it: F1 over conditions with fewer than 5 of a class (t below 16 conditions, the
percentile interval below 30 or with one positive, BCa, session 11's, from 30 with 2-4).
Draw seed 23, B = 200::

    PYTHONPATH=src python scripts/edge_f1_fingerprint.py --json after.json
    python scripts/edge_f1_fingerprint.py --compare before.json after.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import warnings
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search as ds
import numpy as np

import mlci

#: (name, design index, design seed, field replacements, test sets, an F1 difference over
#: conditions: its test sets with fewer than 5 of a class are inside the change)
CASES: list[tuple[str, int, int, dict[str, Any], int, bool]] = [
    ("f1 ~30 pos over 69 cond", 55, 15, {"prevalence": 0.12}, 6, True),
    ("f1 ~10 pos over 69 cond", 55, 15, {"prevalence": 0.04}, 6, True),
    ("f1 ~10 pos over 8 cond", 57, 17, {"prevalence": 10 / 113}, 6, True),
    ("f1 ~20 pos over 12 cond", 57, 17, {"prevalence": 20 / 113, "n_conditions": 12}, 6, True),
    ("f1 ~50 pos over 30 cond", 55, 15, {"prevalence": 0.2, "n_conditions": 30}, 6, True),
    ("f1 ~100 pos over 69 cond", 55, 15, {"prevalence": 0.4, "gap": 0.05}, 6, True),
    ("f1 ~3 pos iid", 55, 15, {"n_conditions": 0}, 6, False),
    ("f1 ~3 pos iid n=113", 57, 17, {"n_conditions": 0}, 6, False),
    ("mcc ~3 pos over 8 cond", 57, 17, {"metric": "mcc"}, 6, False),
    ("accuracy ~3 pos over 8 cond", 57, 17, {"metric": "accuracy"}, 6, False),
    ("mcc ~3 pos over 69 cond", 55, 15, {"metric": "mcc"}, 6, False),
    (
        "precision ~3 pos over 12 cond",
        57,
        17,
        {"metric": "precision", "n_conditions": 12},
        6,
        False,
    ),
    ("f1 ~3 pos over 69 cond (s15 #55)", 55, 15, {}, 8, True),
    ("f1 ~3 pos over 150 cond", 55, 15, {"n_conditions": 150}, 6, True),
    ("f1 ~3 pos over 30 cond", 57, 17, {"n_conditions": 30}, 8, True),
    ("f1 ~3 pos over 8 cond (s17 #57)", 57, 17, {}, 8, True),
    ("f1 ~3 pos over 20 cond", 57, 17, {"n_conditions": 20}, 8, True),
]


def fingerprint(B: int = 200) -> dict[str, list[list[Any]]]:
    """``auto``'s [method, low, high, smaller class] on each case's test sets."""
    out: dict[str, list[list[Any]]] = {}
    for name, index, seed, repl, reps, _ in CASES:
        d = dataclasses.replace(ds.random_design(index, seed), **repl)
        pop = ds.Population(d)
        rows: list[list[Any]] = []
        for i in range(reps):
            g = np.random.default_rng([23, d.index, i])
            x = pop.draw(g)
            y = np.asarray(x["y"])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    r = mlci.compare(
                        y,
                        {"a": x["a"], "b": x["b"]},
                        metric=d.metric,
                        conditions=x["conditions"],
                        n_resamples=B,
                        rng=int(g.integers(2**31)),
                        n_jobs=1,
                    ).difference("a", "b")
                except ds.REFUSALS as exc:
                    rows.append([type(exc).__name__])
                    continue
            few = int(min(y.sum(), len(y) - y.sum()))
            rows.append([r.method, *map(float, r.confidence_interval), few])
        out[name] = rows
    return out


def inside(row: list[Any], f1_over_conditions: bool) -> bool:
    """Whether a fingerprint row is inside the change's class."""
    return f1_over_conditions and len(row) == 4 and row[3] < 5


def compare(before: str, after: str) -> int:
    """Print each case's unchanged rows, inside and outside the class; the number of
    changed rows outside."""
    with open(before) as f:
        b = json.load(f)
    with open(after) as f:
        a = json.load(f)
    bad = 0
    for name, *_, f1c in CASES:
        counts = {True: [0, 0], False: [0, 0]}  # inside: [same, rows]
        for x, y in zip(b[name], a[name], strict=True):
            c = counts[inside(x, f1c)]
            c[0] += x == y
            c[1] += 1
            bad += (not inside(x, f1c)) and x != y
        print(
            f"{name:34s} outside the class: same {counts[False][0]} of {counts[False][1]}; "
            f"inside: same {counts[True][0]} of {counts[True][1]}"
        )
    print(f"rows outside the class changed: {bad}")
    return bad


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json")
    p.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = p.parse_args(argv)
    if args.compare:
        return int(compare(*args.compare) > 0)
    fp = fingerprint()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(fp, f, indent=0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
