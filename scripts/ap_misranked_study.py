"""Average precision near 1 with few misranked positives: coverage by their number.

Variants of design search seed 13 #20 (binormal scores, iid, prevalence 0.461): 1 - AUC
1e-5..1e-3 and 200-2,000 expected positives, plus AP about 0.95 with many positives (the
false-alarm check).  Per test set: the number of positives outranked by some negative
(``engine/ap_misranked.py``), ``bootstrap_ci(method="auto")``'s interval (B = 300) and
whether it covers the population AP, and whether mlci warned.  Output:
``scripts/data/ap_misranked_study.json``.  Run: ``nice -n 15 python scripts/ap_misranked_study.py``.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import warnings
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import itertools

import design_search as ds

import mlci
from mlci.engine.ap_misranked import few_misranked_ap_rule, misranked_positive_diagnostics
from mlci.metrics.ranking import AveragePrecisionKernel

B = 300
OUT = Path(__file__).parent / "data" / "ap_misranked_study.json"


def variants() -> list[tuple[str, ds.Design, int]]:
    base = ds.random_design(20, 13)
    out = [("s13#20", base, 100)]
    for err in (1e-5, 1e-4, 1e-3):
        for n_pos in (200, 2000):
            d = dataclasses.replace(base, error=err, n=round(n_pos / base.prevalence))
            out.append((f"1-auc={err:g} npos={n_pos}", d, 100))
    # AP about 0.95 (1 - AUC 0.05: AP 0.944) and 0.98 (0.02: 0.978) with 2,000 positives:
    # false alarms
    for err, lab in ((0.05, "ap~0.95"), (0.02, "ap~0.98")):
        d = dataclasses.replace(base, error=err, n=round(2000 / base.prevalence))
        out.append((f"{lab} npos=2000", d, 100))
    return out


def one(args: tuple[str, ds.Design, int]) -> dict[str, Any]:
    label, d, i = args
    pop = ds.Population(d)
    x = pop.draw(np.random.default_rng([13, 20, 1000 + i]))
    k = AveragePrecisionKernel(x["y"], x["a"])
    mis = misranked_positive_diagnostics(k, np.bincount(k.keys, minlength=k.m))
    # effective number of misranked positives: Kish's of their shares of 1 - AP
    order = np.argsort(-x["a"], kind="stable")
    ys = x["y"][order]
    pos_above, neg_above = np.cumsum(ys), np.cumsum(1 - ys)
    c = (neg_above / (pos_above + neg_above))[ys == 1]
    eff = float(c.sum() ** 2 / (c**2).sum()) if c.any() else 0.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = mlci.bootstrap_ci(x["y"], x["a"], metric="average_precision", n_resamples=B, rng=i)
    lo, hi = map(float, r.confidence_interval)
    return {
        "label": label,
        "truth": pop.truth,
        "i": i,
        "estimate": float(r.estimate),
        "method": r.method,
        "misranked": mis["misranked_positives"],
        "effective_misranked": eff,
        "n_pos": int(x["y"].sum()),
        "covered": bool(lo <= pop.truth <= hi),
        "warned": any(issubclass(w.category, mlci.MlciWarning) for w in caught),
    }


def main() -> None:
    jobs = [(lab, d, i) for lab, d, n_sets in variants() for i in range(n_sets)]
    with Pool(2) as pool:
        rows = pool.map(one, jobs, chunksize=5)
    OUT.write_text(json.dumps({"B": B, "rows": rows}, indent=0))
    summary(rows)
    thresholds(rows)


def summary(rows: list[dict[str, Any]]) -> None:
    for lab in dict.fromkeys(r["label"] for r in rows):
        rs = [r for r in rows if r["label"] == lab]
        mis = np.array([r["misranked"] for r in rs])
        cov = np.array([r["covered"] for r in rs])
        # warned: by mlci's other rules (as run) or by engine/ap_misranked.py's rule
        new = np.array([few_misranked_ap_rule(r["estimate"], r["misranked"]) for r in rs])
        warned = np.array([r["warned"] for r in rs]) | new
        print(
            f"{lab:26s} AP {rs[0]['truth']:.7f} cover {cov.mean():.3f} misranked median "
            f"{np.median(mis):.0f} [{mis.min()}, {mis.max()}]; warned {warned.mean():.2f} "
            f"(other rules {np.mean([r['warned'] for r in rs]):.2f}), cover warned "
            f"{cov[warned].mean() if warned.any() else np.nan:.3f}, unwarned "
            f"{cov[~warned].mean() if (~warned).any() else np.nan:.3f} ({(~warned).sum()})"
        )


def thresholds(rows: list[dict[str, Any]]) -> None:
    """Unwarned coverage by threshold, and coverage by bins of the count (AP > 0.96)."""
    mis = np.array([r["misranked"] for r in rows])
    est = np.array([r["estimate"] for r in rows])
    cov = np.array([r["covered"] for r in rows])
    old = np.array([r["warned"] for r in rows])
    holds = np.array(
        [
            r["label"] in ("1-auc=0.001 npos=2000", "ap~0.95 npos=2000", "ap~0.98 npos=2000")
            for r in rows
        ]
    )
    for t in (30, 80, 120, 200):
        new = (est > 0.96) & (mis < t)
        warned = old | new
        print(
            f"threshold {t}: unwarned cover {cov[~warned].mean():.3f} ({(~warned).sum()}), "
            f"warned where BCa holds {new[holds].mean():.3f}"
        )
    edges = [1, 5, 10, 20, 30, 50, 80, 120, 200, 400, 10**6]
    for a, b in itertools.pairwise(edges):
        sel = (est > 0.96) & (mis >= a) & (mis < b)
        if sel.any():
            print(f"misranked [{a}, {b}): {sel.sum()} test sets, cover {cov[sel].mean():.3f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "summary":
        summary(json.loads(OUT.read_text())["rows"])
        thresholds(json.loads(OUT.read_text())["rows"])
    else:
        main()
