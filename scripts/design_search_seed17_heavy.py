"""Seed-17 fields #11 (R² of log-normal errors over 12 conditions): why the heavy-tail
rule's skewness clause is quiet in its misses (docs/validation.md, "Design search, seed
17 (session 12)", New 1).

Reads the per-test-set records of ``scripts/design_search_fields_dissect.py`` (draw seed
18), draws the same test sets again and, for the misses and the covering test sets,
counts the errors' octile skewness beyond the rule's threshold as the rule reads it, and
after centring the errors on their conditions' medians; the kurtosis above 14; and the
population's octile skewness with and without the conditions' intercepts (one large
draw, seed 0)::

    python scripts/design_search_seed17_heavy.py \\
        --json scripts/data/design_search_fields_seed17_heavy.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search_fields as dsf

from mlci.engine.heavy_tail import octile_skewness

DISSECT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "data", "design_search_fields_seed17_dissect.json"
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json")
    ap.add_argument(
        "--neighbours",
        type=int,
        default=0,
        help="also run the design iid and over 12 conditions at ICC 0 (N test sets each, "
        "draw seed 18, B = 500): coverage, warned, warned misses",
    )
    args = ap.parse_args(argv)
    with open(DISSECT) as fh:
        rec = json.load(fh)["dissect"]["s17f#11@18"]
    d = dsf.random_design(11, 17)
    pop = dsf.Population(d)
    icc = d.p["icc"]
    out: dict[str, Any] = {"label": d.label()}
    groups: dict[str, list[tuple[float, float, float, float]]] = {"misses": [], "covers": []}
    for r in rec["rows"]:
        x = pop.draw(np.random.default_rng([18, 11, r["i"], 24]))
        e = np.asarray(x["y"]) - np.asarray(x["a"])
        c = np.asarray(x["conditions"])
        med = np.array([np.median(e[c == k]) for k in range(int(c.max()) + 1)])
        ht = r["heavy_tail"]
        groups["covers" if r["covers"] else "misses"].append(
            (
                float(ht["octile_skewness"]),
                float(octile_skewness(e - med[c])),
                float(ht["error_kurtosis"]),
                float(ht["skewness_threshold"]),
            )
        )
    for name, rows in groups.items():
        a = np.array(rows)
        thr = a[:, 3]
        out[name] = {
            "test_sets": len(a),
            "warned": sum(
                bool(r["warnings"]) for r in rec["rows"] if r["covers"] == (name == "covers")
            ),
            "octile_skewness_median": float(np.median(a[:, 0])),
            "octile_skewness_beyond": int((np.abs(a[:, 0]) > thr).sum()),
            "centred_skewness_median": float(np.median(a[:, 1])),
            "centred_skewness_beyond": int((np.abs(a[:, 1]) > thr).sum()),
            "kurtosis_median": float(np.median(a[:, 2])),
            "kurtosis_above_14": int((a[:, 2] > 14).sum()),
            "threshold": float(thr[0]),
        }
    g = np.random.default_rng(0)
    k, size = 12_000, 13
    e = math.sqrt(1 - icc) * pop.sampler(g, k * size)
    out["population_octile_skewness"] = {
        "without_intercepts": float(octile_skewness(e)),
        "with_intercepts": float(
            octile_skewness(e + math.sqrt(icc) * np.repeat(g.standard_normal(k), size))
        ),
    }
    if args.neighbours:
        out["neighbours"] = {}
        for name, change in (
            ("iid", {"conditions": 0, "icc": 0.0}),
            ("12 conditions, ICC 0", {"icc": 0.0}),
        ):
            dn = dataclasses.replace(d, p={**d.p, **change})
            res = dsf.run_design(dn, args.neighbours, B=500, seed=18)
            out["neighbours"][name] = {
                "label": dn.label(),
                "reps": res["reps"],
                "coverage": {m: v["coverage"] for m, v in res["methods"].items()},
                "warned": res["warned"],
                "warned_misses": res["warned_misses"],
            }
    print(json.dumps(out, indent=1))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
