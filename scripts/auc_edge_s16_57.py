"""Seed-16 #57 (a paired ROC AUC difference near 1 over 29 conditions) before and after
the session-12 rule (``mlci.engine.auc_misranked.few_misordered_pairs``), on the 300
test sets of ``scripts/data/design_search_seed16_pairs57.json`` (draw seed 17, B = 500,
run on the tree before the rule).

A switched test set's ``auto`` interval is BCa's with the same replicates (the same
seed), so ``auto`` after is BCa's coverage where the rule selects the test set (redrawn,
the rule applied to its kernels) and ``auto`` before elsewhere.  ``--verify N`` re-runs
``N`` switched and ``N // 2`` unswitched test sets on this tree and checks that: ``auto``
equal to BCa where switched, equal to the saved coverage and method elsewhere.

::

    PYTHONPATH=src nice -n 15 python scripts/auc_edge_s16_57.py --verify 8 \\
        --json scripts/data/auc_edge_s16_57.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search as ds
import numpy as np
from auc_edge_study import rule_fires
from design_search_seed15 import mcnemar_p

SAVED = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "data", "design_search_seed16_pairs57.json"
)


def confirm(verify: int = 0) -> dict[str, Any]:
    """Coverage before / after / BCa / percentile on the 300 saved test sets, the discordant
    counts, and the re-run checks."""
    with open(SAVED) as f:
        rows = json.load(f)["pairs"]["s16#57@17"]["rows"]
    d = ds.random_design(57, 16)
    pop = ds.Population(d)
    fired = {r["i"]: rule_fires(d, pop, 17, r) for r in rows}
    after = [r["bca"] if fired[r["i"]] else r["auto"] for r in rows]
    n = len(rows)
    out: dict[str, Any] = {
        "test_sets": n,
        "switched": sum(fired.values()),
        "before": sum(r["auto"] for r in rows) / n,
        "after": sum(after) / n,
        "bca": sum(r["bca"] for r in rows) / n,
        "percentile": sum(r["percentile"] for r in rows) / n,
    }
    for name, cov in (("before", [r["auto"] for r in rows]), ("after", after)):
        a = sum(c and not r["bca"] for c, r in zip(cov, rows, strict=True))
        b = sum(r["bca"] and not c for c, r in zip(cov, rows, strict=True))
        out[f"{name}_vs_bca"] = [a, b, mcnemar_p(a, b)]
    gained = sum(c and not r["auto"] for c, r in zip(after, rows, strict=True))
    lost = sum(r["auto"] and not c for c, r in zip(after, rows, strict=True))
    out["gained_lost"] = [gained, lost]
    checks = []
    sw = [r for r in rows if fired[r["i"]]][:verify]
    kept = [r for r in rows if not fired[r["i"]] and r["method"] == "t"][: verify // 2]
    for r in sw + kept:
        g = np.random.default_rng([17, d.index, r["i"]])
        x = pop.draw(g)
        res = ds.intervals(d, x, seed=int(g.integers(2**31)), B=500)
        covers = bool(res["auto"][0] <= pop.truth <= res["auto"][1])
        ok = (
            res["auto_method"] == "bca" and res["auto"] == res["bca"] and covers == r["bca"]
            if fired[r["i"]]
            else res["auto_method"] == r["method"] and covers == r["auto"]
        )
        checks.append(
            {
                "i": r["i"],
                "switched": fired[r["i"]],
                "method": res["auto_method"],
                "ok": bool(ok),
                "warned": res["warned"],
            }
        )
        print(checks[-1], flush=True)
    out["verified"] = checks
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--verify", type=int, default=0)
    p.add_argument("--json")
    args = p.parse_args(argv)
    out = confirm(args.verify)
    print(json.dumps({k: v for k, v in out.items() if k != "verified"}, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
