"""Seed-17 decision #57 (a paired F1 difference of about 3 positives over 8 conditions,
ICC 0.33): BCa against the percentile interval as the number of conditions and the ICC
change (docs/validation.md, "Design search, seed 17 (session 12)", New 2).

Runs ``design_search.run_design`` on the design with ``n_conditions`` and ``icc``
replaced (draw seed 18, B = 500) and prints each method's coverage and ``auto``'s
choices::

    python scripts/design_search_seed17_f1pair.py --reps 200 \\
        --json scripts/data/design_search_seed17_f1pair.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search as ds

#: (n_conditions, icc) of the cells besides the design's own (8, 0.33)
CELLS = ((0, 0.0), (8, 0.0), (30, 0.33))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    d = ds.random_design(57, 17)
    out: dict[str, Any] = {}
    for c, icc in CELLS:
        dn = dataclasses.replace(d, n_conditions=c, icc=icc)
        res = ds.run_design(dn, args.reps, B=500, seed=18)
        out[dn.label()] = {
            "reps": res["reps"],
            "failed": res["failed"],
            "coverage": {m: v["coverage"] for m, v in res["methods"].items()},
            "warned": res["warned"],
            "auto_methods": res["auto_methods"],
        }
        print(dn.label(), json.dumps(out[dn.label()]), flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
