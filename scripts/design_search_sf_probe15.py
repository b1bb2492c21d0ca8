"""The scores search's ``strata`` designs against both estimands (seed 15, session 11).

``design_search_scores.py``'s family ``strata`` calls :func:`mlci.auc_ci`,
:func:`mlci.eer_ci` or :func:`mlci.dcf_ci` with ``strata=`` 2-4 sites of fixed size, each
with its own prevalence, shift and separation, and judges the interval against the
population's pooled metric.  Seed 14 (#13, #37) showed that with ``strata=`` and the
default class stratification each site's class counts are fixed in every replicate: the
lead documented that interval as *conditional* on each stratum's class mix (docs/scores.md,
"With ``strata=`` of your own and ``stratify`` on ..."), and ``Resampling(stratify=False)``
for a design whose class mix is random.  This probe reads a design both ways on the same
test sets and replicates:

* ``population``: the search's truth (the sites' sizes fixed, their class counts random);
* ``conditional``: the metric of the mixture whose class weights are the test set's own
  counts per site (``mixture_truth`` with each site's positives and negatives as drawn):
  what the default interval claims;

and records for each test set the default call (``strata``), ``strata=`` with
``Resampling(stratify=False)`` (``strata_unstratified``), and no strata (``iid``), each
interval's coverage of both truths, its bootstrap standard error and its warnings::

    nice python scripts/design_search_sf_probe15.py --design 1 --design 9 --reps 100 \\
        --draw-seed 15 --json scripts/data/design_search_scores_seed15_strata.json

``--draw-seed 15`` draws the search's own test sets (``default_rng([15, index, i])``);
16 draws the confirmation's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import warnings
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import design_search_scores as dss

mlci = dss.mlci
#: (name, strata=sites?, resampling)
VARIANTS = (
    ("strata", True, None),
    ("strata_unstratified", True, "unstratified"),
    ("iid", False, None),
)


def conditional_truth(d: Any, pop: Any, x: dict[str, Any]) -> float:
    """The design's metric of the mixture weighted by the test set's class counts per site."""
    site, y = x["strata"], x["y"]
    pos = np.bincount(site[y == 1], minlength=d.groups).astype(float)
    neg = np.bincount(site[y == 0], minlength=d.groups).astype(float)
    return dss.mixture_truth(
        d.metric, pos / pos.sum(), neg / neg.sum(), pop.shift, pop.sep, d.param
    )


def _call(d: Any, sc: Any, strata: Any, B: int, rng: int, rs: Any) -> Any:
    kw = {"strata": strata, "n_resamples": B, "rng": rng, "resampling": rs}
    if d.metric == "min_dcf":
        return mlci.dcf_ci(sc, d.param, kind="min", **kw)
    if d.metric == "auc":
        return mlci.auc_ci(sc, **kw)
    return mlci.eer_ci(sc, **kw).eer


def one(d: Any, pop: Any, draw_seed: int, i: int, B: int) -> dict[str, Any]:
    g = np.random.default_rng([draw_seed, d.index, i])
    x = pop.draw(g)
    rng = int(g.integers(2**31))
    if not 0 < x["y"].sum() < len(x["y"]):
        return {"i": i, "failed": "a test set without one of the classes"}
    sc = mlci.Scores.from_labels(x["y"], x["s"])
    cond = conditional_truth(d, pop, x)
    out: dict[str, Any] = {"i": i, "positives": int(x["y"].sum()), "conditional": cond}
    for name, strata, how in VARIANTS:
        rs = mlci.Resampling(stratify=False) if how == "unstratified" else None
        with warnings.catch_warnings(record=True) as caught, mlci.config_context(n_jobs=1):
            warnings.simplefilter("always")
            r = _call(d, sc, x["strata"] if strata else None, B, rng, rs)
        lo, hi = map(float, r.confidence_interval)
        dist = np.asarray(r.bootstrap_distribution, dtype=float)
        out[name] = {
            "method": str(r.method),
            "low": lo,
            "high": hi,
            "estimate": float(r.estimate),
            "se": float(np.nanstd(dist, ddof=1)) if dist.size > 1 else math.nan,
            "covers_population": bool(lo <= pop.truth <= hi),
            "covers_conditional": bool(lo <= cond <= hi),
            "warned": sorted(
                {w.category.__name__ for w in caught if issubclass(w.category, mlci.MlciWarning)}
            ),
        }
    return out


def summarise(
    d: Any, pop: Any, rows: list[dict[str, Any]], B: int, draw_seed: int
) -> dict[str, Any]:
    s: dict[str, Any] = {
        "design": d.label(),
        "index": d.index,
        "truth": pop.truth,
        "site_n": pop.site_n.tolist(),
        "site_prev": pop.site_prev.tolist(),
        "conditional_sd": float(np.std([r["conditional"] for r in rows], ddof=1)),
        "estimate_sd": float(np.std([r["strata"]["estimate"] for r in rows], ddof=1)),
        "test_sets": len(rows),
        "B": B,
        "draw_seed": draw_seed,
    }
    for name, _, _ in VARIANTS:
        v = [r[name] for r in rows]
        s[name] = {
            "coverage_population": float(np.mean([c["covers_population"] for c in v])),
            "coverage_conditional": float(np.mean([c["covers_conditional"] for c in v])),
            "median_se": float(np.nanmedian([c["se"] for c in v])),
            "median_width": float(np.median([c["high"] - c["low"] for c in v])),
            "methods": sorted({c["method"] for c in v}),
            "warned": sum(bool(c["warned"]) for c in v),
            "warned_misses_population": sum(
                bool(c["warned"]) for c in v if not c["covers_population"]
            ),
        }
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=15, help="the search's seed (the designs)")
    ap.add_argument("--design", type=int, action="append", required=True)
    ap.add_argument("--draw-seed", type=int, default=15)
    ap.add_argument("--reps", type=int, default=100)
    ap.add_argument("-B", type=int, default=500)
    ap.add_argument("--max-seconds", type=float, default=math.inf, help="per design")
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    doc: dict[str, Any] = {"command": sys.argv, "designs": {}}
    if args.json and os.path.exists(args.json):
        with open(args.json) as fh:
            doc = json.load(fh)
    for index in args.design:
        d = dss.random_design(index, args.seed)
        if d.family != "strata":
            raise SystemExit(f"design {index} is {d.family}, not strata")
        pop = dss.Population(d)
        t0, rows, failed = time.time(), [], 0
        for i in range(args.reps):
            if time.time() - t0 > args.max_seconds:
                break
            r = one(d, pop, args.draw_seed, i, args.B)
            if "failed" in r:
                failed += 1
            else:
                rows.append(r)
        s = summarise(d, pop, rows, args.B, args.draw_seed)
        s["failed"] = failed
        print(json.dumps(s, indent=1), flush=True)
        doc["designs"][f"{index}@{args.draw_seed}"] = {"summary": s, "rows": rows}
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(doc, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
