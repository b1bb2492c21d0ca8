"""One fields-search design test set by test set: which test sets ``auto`` misses, and
whether those warned (the fields' counterpart of ``scripts/design_search_dissect.py``).

Repeats ``design_search_fields.run_design``'s draws (``np.random.default_rng([draw_seed,
index, i, 24])`` and the interval seed drawn next) for ``auto`` only, and records per
test set the estimate, the interval, whether it covers (and on which side it misses), the
mlci warnings and the method chosen, and the heavy-tail diagnostics where ``auto`` reports
them (``details["diagnostics"]["heavy_tail"]``)::

    python scripts/design_search_fields_dissect.py --seed 17 --design 11 --draw-seed 18 \\
        --reps 300 -B 500 --json scripts/data/design_search_fields_seed17_dissect.json

With ``--json`` the records are saved under ``dissect["s<seed>f#<i>@<draw>"]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search_fields as dsf

import mlci


def dissect(d: Any, reps: int, B: int, draw_seed: int) -> tuple[float, list[dict[str, Any]]]:
    """The population truth and, per test set, auto's interval, cover, warnings, method."""
    pop = dsf.Population(d)
    rows: list[dict[str, Any]] = []
    for i in range(reps):
        g = np.random.default_rng([draw_seed, d.index, i, 24])
        x = pop.draw(g)
        truth = float(x.get("truth", pop.truth))  # type: ignore[arg-type]
        seed = int(g.integers(2**31))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with mlci.config_context(n_jobs=1):
                r = dsf._run(d, x, "auto", {"n_resamples": B, "rng": seed}, 0.95)
        names = sorted(
            {w.category.__name__ for w in caught if issubclass(w.category, mlci.MlciWarning)}
        )
        lo, hi = map(float, r.confidence_interval)
        row: dict[str, Any] = {
            "i": i,
            "truth": truth,
            "estimate": float(r.estimate),
            "interval": [lo, hi],
            "covers": bool(lo <= truth <= hi),
            "side": "above" if lo > truth else ("below" if hi < truth else ""),
            "method": str(r.method),
            "warnings": names,
        }
        diag = (getattr(r, "details", None) or {}).get("diagnostics", {}) or {}
        ht = diag.get("heavy_tail")
        if isinstance(ht, dict):
            row["heavy_tail"] = {
                k: (float(v) if isinstance(v, (int, float, np.floating)) else v)
                for k, v in ht.items()
            }
        rows.append(row)
    return float(np.mean([r["truth"] for r in rows])), rows


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Covers, warned, misses warned and the misses' sides."""
    misses = [r for r in rows if not r["covers"]]
    unwarned = [r for r in rows if not r["warnings"]]
    return {
        "test_sets": len(rows),
        "covers": sum(r["covers"] for r in rows),
        "warned": sum(bool(r["warnings"]) for r in rows),
        "misses": len(misses),
        "misses_warned": sum(bool(r["warnings"]) for r in misses),
        "misses_above": sum(r["side"] == "above" for r in misses),
        "unwarned": len(unwarned),
        "unwarned_covers": sum(r["covers"] for r in unwarned),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True, help="the search's seed")
    ap.add_argument("--design", type=int, required=True)
    ap.add_argument("--draw-seed", type=int, required=True)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("-B", "--resamples", type=int, default=500)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    d = dsf.random_design(args.design, args.seed)
    truth, rows = dissect(d, args.reps, args.resamples, args.draw_seed)
    s = summary(rows)
    print(d.label(), f"truth {truth:.4g}", s)
    if args.json:
        doc: dict[str, Any] = {}
        if os.path.exists(args.json):
            with open(args.json) as fh:
                doc = json.load(fh)
        key = f"s{args.seed}f#{args.design}@{args.draw_seed}"
        doc.setdefault("dissect", {})[key] = {
            "label": d.label(),
            "truth": truth,
            "B": args.resamples,
            "summary": s,
            "rows": rows,
        }
        with open(args.json, "w") as fh:
            json.dump(doc, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
