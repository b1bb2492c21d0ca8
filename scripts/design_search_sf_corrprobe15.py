"""A fields correlation design of the seed-15 search, set by set, with corrfix's interval
beside ``auto``'s (session 11).

For a correlation design of ``design_search_fields.py`` (its population, truth and test
sets ``default_rng([draw_seed, index, i, 24])``: ``--draw-seed 15`` the search's own, 16 the
confirmation's), each test set's estimate and truth, and on the same replicates (one
``rng`` a test set, as the search): ``auto``, BCa, and the jackknife Fisher-z interval of
:mod:`mlci.fields.correlation_jackknife` (``jackknife_z``), computed outside the rows
where ``auto`` gives it by widening its design table for this process only (read, not
adopted: the library's table is untouched).  Prints and saves coverage, the misses on each
side, median widths, the mean estimate minus the truth and the estimate's SD::

    nice python scripts/design_search_sf_corrprobe15.py --design 34 --draw-seed 16 \\
        --reps 300 --json scripts/data/design_search_fields_seed15_corr34.json
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
import design_search_fields as dsf

import mlci
import mlci.fields.correlation_jackknife as cj

VARIANTS = ("auto", "bca", "jackknife_z")


def _interval(d: Any, x: dict[str, Any], method: str, rng: int, B: int) -> tuple[Any, list[str]]:
    p = d.p
    kw = {"n_resamples": B, "rng": rng, "method": "auto" if method == "jackknife_z" else method}
    saved = dict(cj.JACKKNIFE_Z_DESIGNS)
    if method == "jackknife_z":  # this process only: every number of units
        for key, (factors, _, _) in saved.items():
            cj.JACKKNIFE_Z_DESIGNS[key] = (factors, 3, 10**9)
    try:
        with warnings.catch_warnings(record=True) as caught, mlci.config_context(n_jobs=1):
            warnings.simplefilter("always")
            r = mlci.correlation_ci(
                x["x"],
                x["z"],
                coefficient=d.metric,
                correlation_level=p["level"],
                resample=p["resample"],
                **kw,
            )
    finally:
        cj.JACKKNIFE_Z_DESIGNS.clear()
        cj.JACKKNIFE_Z_DESIGNS.update(saved)
    names = sorted(
        {w.category.__name__ for w in caught if issubclass(w.category, mlci.MlciWarning)}
    )
    return r, names


def one(
    d: Any, pop: Any, draw_seed: int, i: int, B: int, variants: tuple[str, ...] = VARIANTS
) -> dict[str, Any]:
    g = np.random.default_rng([draw_seed, d.index, i, 24])
    x = pop.draw(g)
    truth = float(x.get("truth", pop.truth))
    rng = int(g.integers(2**31))
    out: dict[str, Any] = {"i": i, "truth": truth}
    for m in variants:
        r, names = _interval(d, x, m, rng, B)
        lo, hi = map(float, r.confidence_interval)
        out[m] = {"method": str(r.method), "low": lo, "high": hi, "warned": names}
        out["estimate"] = float(r.estimate)
    return out


def summarise(
    d: Any, rows: list[dict[str, Any]], draw_seed: int, B: int, variants: tuple[str, ...] = VARIANTS
) -> dict[str, Any]:
    est = np.array([r["estimate"] for r in rows])
    tr = np.array([r["truth"] for r in rows])
    s: dict[str, Any] = {
        "design": d.label(),
        "index": d.index,
        "draw_seed": draw_seed,
        "B": B,
        "test_sets": len(rows),
        "truth_mean": float(tr.mean()),
        "bias": float(np.mean(est - tr)),
        "estimate_sd": float(np.std(est, ddof=1)),
    }
    for m in variants:
        lo = np.array([r[m]["low"] for r in rows])
        hi = np.array([r[m]["high"] for r in rows])
        s[m] = {
            "coverage": float(np.mean((lo <= tr) & (tr <= hi))),
            "misses_low": int(np.sum(tr < lo)),  # the interval above the truth
            "misses_high": int(np.sum(tr > hi)),
            "median_width": float(np.median(hi - lo)),
            "methods": sorted({r[m]["method"] for r in rows}),
            "warned": sum(bool(r[m]["warned"]) for r in rows),
        }
    return s


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--design", type=int, action="append", required=True)
    ap.add_argument("--draw-seed", type=int, default=16)
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("-B", type=int, default=500)
    ap.add_argument("--max-seconds", type=float, default=math.inf, help="per design")
    ap.add_argument("--json")
    ap.add_argument(
        "--no-bca", action="store_true", help="skip BCa (where auto is BCa: the same interval)"
    )
    args = ap.parse_args(argv)
    variants = tuple(v for v in VARIANTS if not (args.no_bca and v == "bca"))
    doc: dict[str, Any] = {"designs": {}}
    if args.json and os.path.exists(args.json):
        with open(args.json) as fh:
            doc = json.load(fh)
    doc["command"] = sys.argv
    for index in args.design:
        d = dsf.random_design(index, args.seed)
        if d.family != "correlation":
            raise SystemExit(f"design {index} is {d.family}")
        pop = dsf.Population(d)
        t0, rows = time.time(), []
        for i in range(args.reps):
            if time.time() - t0 > args.max_seconds:
                break
            rows.append(one(d, pop, args.draw_seed, i, args.B, variants))
        s = summarise(d, rows, args.draw_seed, args.B, variants)
        print(json.dumps(s, indent=1), flush=True)
        doc["designs"][f"{index}@{args.draw_seed}"] = {"summary": s, "rows": rows}
        if args.json:
            with open(args.json, "w") as fh:
                json.dump(doc, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
