"""Seed-12 #55: would MOVER of the classes' Korn & Graubard intervals hold for balanced
accuracy with 1-4 of a class over conditions?

Since session 9 (seed-11 New 4) ``method="auto"`` gives balanced accuracy of independent
samples with 1-4 samples of a class MOVER of the classes' modified Wilson intervals; over
conditions it keeps the percentile interval (``engine/class_edge.few_class_mover`` returns
False with conditions), warned.  This study repeats a decision-search design's test sets
(``design_search.run_design``'s draws and interval seeds) and computes, on each, ``auto``
as it is and ``auto`` with ``few_class_mover`` true also over conditions (a patch of the
rule for the study only: the engine then gives MOVER of Korn & Graubard's intervals,
``mover_korn_graubard``, as it already does with 5 or more of each class and at most 3
errors in one), split by whether the test set has 1-4 samples of a class::

    nice -n 15 python scripts/design_search_seed12_mover.py --design 55 --draw-seed 12 \\
        --reps 100 --json scripts/data/design_search_seed12_mover.json
    nice -n 15 python scripts/design_search_seed12_mover.py --design 55 --draw-seed 13 \\
        --reps 300 --json scripts/data/design_search_seed12_mover.json

Saved under ``mover["s12#<i>@<draw seed>"]``: per group (``few``: 1-4 of a class,
``5+``) and interval (``auto``, ``patched``), the test sets, covered, median width and
the methods chosen.  ``--n``, ``--prevalence``, ``--icc``, ``--conditions``: a neighbour
of the design (those fields replaced; the key gets them appended).
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import os
import sys
import warnings
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search as ds

import mlci
import mlci.engine.auto as engine_auto
import mlci.engine.class_edge as class_edge

FEW = class_edge.FEW_CLASS


def few_class_mover_any(kernel: Any, plan: Any = None) -> bool:
    """``few_class_mover`` without its restriction to independent samples."""
    if getattr(kernel, "name", None) not in class_edge.CLASS_EDGE_METRICS:
        return False
    counts = class_edge.class_counts(kernel)
    return counts is not None and 0 < min(counts[1], counts[3]) < FEW


def run(index: int, seed: int, draw_seed: int, reps: int, B: int, **changes: Any) -> dict[str, Any]:
    """``changes``: fields of the design replaced (a neighbour of the design)."""
    d = dataclasses.replace(ds.random_design(index, seed), **changes)
    if d.metric != "balanced_accuracy" or d.family != "decision":
        raise SystemExit(f"{d.label()}: not balanced accuracy")
    pop = ds.Population(d)
    acc: dict[str, dict[str, Any]] = collections.defaultdict(
        lambda: {"n": 0, "covered": 0, "widths": [], "methods": collections.Counter()}
    )
    refused = 0
    orig = class_edge.few_class_mover
    for i in range(reps):
        g = np.random.default_rng([draw_seed, d.index, i])
        x = pop.draw(g)
        rng = int(g.integers(2**31))
        y, a = x["y"], x["a"]
        kw = {
            "metric": "balanced_accuracy",
            "conditions": x["conditions"],
            "n_resamples": B,
            "rng": rng,
            "n_jobs": 1,
        }
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r_auto = mlci.bootstrap_ci(y, a, **kw)
                setattr(class_edge, "few_class_mover", few_class_mover_any)  # noqa: B010
                setattr(engine_auto, "few_class_mover", few_class_mover_any)  # noqa: B010
                try:
                    r_patched = mlci.bootstrap_ci(y, a, **kw)
                finally:
                    setattr(class_edge, "few_class_mover", orig)  # noqa: B010
                    setattr(engine_auto, "few_class_mover", orig)  # noqa: B010
        except ds.REFUSALS:
            refused += 1
            continue
        group = "few" if 0 < min(int(y.sum()), int((1 - y).sum())) < FEW else "5+"
        for name, r in (("auto", r_auto), ("patched", r_patched)):
            lo, hi = map(float, r.confidence_interval)
            for key in (f"{group} {name}", f"all {name}"):
                o = acc[key]
                o["n"] += 1
                o["covered"] += bool(lo <= pop.truth <= hi)
                o["widths"].append(hi - lo)
                o["methods"][r.method] += 1
    out = {
        k: {
            "n": v["n"],
            "covered": v["covered"],
            "coverage": v["covered"] / v["n"],
            "median_width": float(np.median(v["widths"])),
            "methods": dict(v["methods"]),
        }
        for k, v in sorted(acc.items())
    }
    return {"label": d.label(), "truth": pop.truth, "reps": reps, "B": B, "refused": refused} | {
        "groups": out
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=12)
    p.add_argument("--design", type=int, required=True)
    p.add_argument("--draw-seed", type=int, required=True)
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("-B", "--resamples", type=int, default=500)
    p.add_argument("--json")
    p.add_argument("--n", type=int, help="neighbour: another number of samples")
    p.add_argument("--prevalence", type=float, help="neighbour: another prevalence")
    p.add_argument("--icc", type=float, help="neighbour: another ICC")
    p.add_argument("--conditions", type=int, help="neighbour: another number of conditions")
    args = p.parse_args(argv)
    changes = {
        k: v
        for k, v in (
            ("n", args.n),
            ("prevalence", args.prevalence),
            ("icc", args.icc),
            ("n_conditions", args.conditions),
        )
        if v is not None
    }
    res = run(args.design, args.seed, args.draw_seed, args.reps, args.resamples, **changes)
    res["changes"] = changes
    print(res["label"], f"truth {res['truth']:.6g}, refused {res['refused']}")
    for k, v in res["groups"].items():
        print(
            f"  {k}: {v['covered']}/{v['n']} = {v['coverage']:.3f}, "
            f"median width {v['median_width']:.4g}, {v['methods']}"
        )
    if args.json:
        doc = ds.load(args.json)
        tail = "".join(f" {k}={v}" for k, v in changes.items())
        doc.setdefault("mover", {})[f"s{args.seed}#{args.design}@{args.draw_seed}{tail}"] = res
        doc["environment"] = ds.environment("design_search_seed12_mover.py", argv)
        ds.save(args.json, doc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
