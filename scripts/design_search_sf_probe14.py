"""Seed-14 scores #13 (``eer_ci``, ``strata=`` 4 sites) and #37 (``auc_ci``), set by set.

The search's design #13 (``design_search_scores.py --seed 14``): the EER of 3,863 trials in
4 sites of fixed size, each with its own prevalence (0.019-0.072), shift and separation; the
pooled EER 0.113 with about 176 targets.  ``auto`` (percentile) covered 0.890 of 100 and
of 300 other test sets, never warned.  This probe draws the confirmation's test sets
(``np.random.default_rng([15, 13, i])``) and records for each: the estimate, ``auto``'s
interval with ``strata=`` (the search's call: by default the classes are resampled
separately within each site, so each site's class counts are fixed), without it (iid: the
classes fixed overall), and with ``strata=`` and ``Resampling(stratify=False)`` (the sites'
sizes fixed, their class counts free), the bootstrap standard error of each, and the
errors of each class at the EER.  Beside them, the estimate's
sampling standard deviation over ``--sd-sets`` test sets (no bootstrap) and a Monte Carlo
check of the truth on one test set 200 times the size::

    nice python scripts/design_search_sf_probe14.py --reps 300 -B 500 \\
        --json scripts/data/design_search_scores_seed14_probe13.json
    nice python scripts/design_search_sf_probe14.py --design 37 --reps 300 -B 500 \\
        --json scripts/data/design_search_scores_seed14_probe37.json

(#37: the AUC of 599 trials in 2 sites, about 35 targets; session 11.)
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
SEED = 14
INDEX = 13  # --design 37: auc_ci with strata= over 2 sites (s14sc #37)
#: (name, strata=sites?, resampling): the search's call (the classes fixed within each
#: site, the default), iid (the classes fixed overall), and the sites without the classes
VARIANTS = (
    ("strata", True, None),
    ("iid", False, None),
    ("strata_unstratified", True, mlci.Resampling(stratify=False)),
)


def errors_at_eer(y: np.ndarray, s: np.ndarray) -> tuple[int, int]:
    """(misses, false alarms) at the EER's threshold of the test set."""
    t = mlci.Scores.from_labels(y, s).eer().threshold
    return int(np.sum((y == 1) & (s < t))), int(np.sum((y == 0) & (s >= t)))


def _call(sc: Any, strata: Any, B: int, rng: int, rs: Any) -> Any:
    """The design's driver (``eer_ci`` for #13, ``auc_ci`` for #37)."""
    kw = {"strata": strata, "n_resamples": B, "rng": rng, "resampling": rs}
    return mlci.eer_ci(sc, **kw).eer if INDEX == 13 else mlci.auc_ci(sc, **kw)


def _estimate(sc: Any) -> float:
    return float(sc.eer().eer) if INDEX == 13 else float(sc.auc())


def one(pop: Any, i: int, B: int) -> dict[str, Any]:
    g = np.random.default_rng([SEED + 1, INDEX, i])
    x = pop.draw(g)
    rng = int(g.integers(2**31))
    sc = mlci.Scores.from_labels(x["y"], x["s"])
    out: dict[str, Any] = {"i": i, "positives": int(x["y"].sum())}
    if INDEX == 13:
        out["misses"], out["false_alarms"] = errors_at_eer(x["y"], x["s"])
    for name, strata, rs in VARIANTS:
        with warnings.catch_warnings(record=True) as caught, mlci.config_context(n_jobs=1):
            warnings.simplefilter("always")
            st = x["strata"] if strata else None
            r = _call(sc, st, B, rng, rs)
        lo, hi = map(float, r.confidence_interval)
        out[name] = {
            "method": str(r.method),
            "low": lo,
            "high": hi,
            "se": float(np.nanstd(np.asarray(r.bootstrap_distribution), ddof=1)),
            "covers": bool(lo <= pop.truth <= hi),
            "warned": sorted(
                {w.category.__name__ for w in caught if issubclass(w.category, mlci.MlciWarning)}
            ),
        }
    out["estimate"] = _estimate(sc)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("-B", type=int, default=500)
    ap.add_argument("--sd-sets", type=int, default=2000)
    ap.add_argument("--max-seconds", type=float, default=math.inf)
    ap.add_argument("--json")
    ap.add_argument("--design", type=int, choices=(13, 37), default=13)
    args = ap.parse_args(argv)
    global INDEX
    INDEX = args.design
    d = dss.random_design(INDEX, SEED)
    pop = dss.Population(d)
    t0 = time.time()
    est = []
    for i in range(args.sd_sets):
        x = pop.draw(np.random.default_rng([SEED + 2, INDEX, i]))
        est.append(_estimate(mlci.Scores.from_labels(x["y"], x["s"])))
    g = np.random.default_rng(99)
    site = np.repeat(np.arange(d.groups), pop.site_n * 200)
    y = (g.random(len(site)) < pop.site_prev[site]).astype(np.int64)
    z = g.standard_normal(len(site)) + pop.shift[site] + pop.sep[site] * y
    big = _estimate(mlci.Scores.from_labels(y, z))
    rows = []
    for i in range(args.reps):
        if time.time() - t0 > args.max_seconds:
            break
        rows.append(one(pop, i, args.B))
    summary: dict[str, Any] = {
        "design": d.label(),
        "truth": pop.truth,
        "monte_carlo_truth": {"value": big, "samples": len(y), "targets": int(y.sum())},
        "estimate_mean": float(np.mean(est)),
        "estimate_sd": float(np.std(est, ddof=1)),
        "sd_sets": args.sd_sets,
        "test_sets": len(rows),
        "B": args.B,
    }
    for name, _, _ in VARIANTS:
        cov = [r[name]["covers"] for r in rows]
        summary[name] = {
            "coverage": float(np.mean(cov)),
            "median_se": float(np.median([r[name]["se"] for r in rows])),
            "median_width": float(np.median([r[name]["high"] - r[name]["low"] for r in rows])),
            "methods": sorted({r[name]["method"] for r in rows}),
            "warned": sum(bool(r[name]["warned"]) for r in rows),
        }
    if INDEX == 13:
        summary["median_misses"] = float(np.median([r["misses"] for r in rows]))
        summary["median_false_alarms"] = float(np.median([r["false_alarms"] for r in rows]))
    print(json.dumps(summary, indent=1))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"summary": summary, "rows": rows}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
