"""Average precision with few positives: coverage, width and far edge of candidate intervals.

Issue 20, item 3 (docs/validation.md, "Near the bounds"): on test sets drawn from the
design search's populations (scripts/design_search.py), the 95% intervals of ``auto``,
the studentized interval (with the engine's near-bound rule), the logit t interval, BCa,
percentile and basic; summaries over all test sets and those with fewer than 10 positives.

Usage::

    PYTHONPATH=src nice python scripts/ap_few_positives_study.py 200 400 cell
    PYTHONPATH=src nice python scripts/ap_few_positives_study.py 200 400 64,0.1,0.008

(test sets, replicates, and ``cell`` or ``n,prevalence,1-AUC``.)
"""

from __future__ import annotations

import importlib.util
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

import mlci

_spec = importlib.util.spec_from_file_location(
    "design_search", Path(__file__).with_name("design_search.py")
)
assert _spec is not None and _spec.loader is not None
ds = importlib.util.module_from_spec(_spec)
sys.modules["design_search"] = ds
_spec.loader.exec_module(ds)

METHODS = ("auto", "studentized", "logit_t", "bca", "percentile", "basic")


def design(which: str) -> Any:
    if which == "cell":
        return ds.CELLS["average_precision 0.97 n=64"]
    n, prev, err = (float(v) for v in which.split(","))
    return ds.Design(2000, "rank", "average_precision", int(n), prev, err, 1.0, 0, 0.0, False)


def one(y: np.ndarray, a: np.ndarray, seed: int, b: int) -> dict[str, Any]:
    kw = {"metric": "average_precision", "n_resamples": b, "rng": seed, "n_jobs": 1}
    out: dict[str, Any] = {"npos": int(y.sum())}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auto = mlci.bootstrap_ci(y, a, **kw)
    out["warned"] = any(issubclass(w.category, mlci.MlciWarning) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["auto"] = tuple(map(float, auto.confidence_interval))
        st = mlci.bootstrap_ci(y, a, method="studentized", **kw)
        out["studentized"] = tuple(map(float, st.confidence_interval))
        out["logit_t"] = tuple(map(float, st.interval(method="logit_t").confidence_interval))
        bca = mlci.bootstrap_ci(y, a, method="bca", **kw)
        for m in ("bca", "percentile", "basic"):
            out[m] = tuple(map(float, bca.interval(method=m).confidence_interval))
    return out


def summary(rows: list[dict[str, Any]], truth: float, label: str) -> None:
    pos = np.median([o["npos"] for o in rows]) if rows else 0
    warned = sum(o["warned"] for o in rows)
    print(f"-- {label}: {len(rows)} test sets, median positives {pos}, warned {warned}")
    for m in METHODS:
        iv = [o[m] for o in rows]
        if not iv:
            continue
        cov = np.mean([lo <= truth <= hi for lo, hi in iv])
        width = np.median([hi - lo for lo, hi in iv])
        far = np.mean([lo <= 1e-9 for lo, _ in iv])
        print(f"   {m:12s} coverage {cov:.3f}  median width {width:.3f}  far edge {far:.3f}")


def main() -> None:
    reps, b = int(sys.argv[1]), int(sys.argv[2])
    which = sys.argv[3] if len(sys.argv) > 3 else "cell"
    pop = ds.Population(design(which))
    g = np.random.default_rng(12345)
    rows, t0 = [], time.time()
    for r in range(reps):
        x = pop.draw(g)
        if 2 <= x["y"].sum() <= len(x["y"]) - 2:
            rows.append(one(x["y"], x["a"], r, b))
    print(f"design {which}: truth {pop.truth:.4f}, {len(rows)} test sets, {time.time() - t0:.0f} s")
    summary(rows, pop.truth, "all")
    summary([o for o in rows if o["npos"] < 10], pop.truth, "fewer than 10 positives")
    summary([o for o in rows if o["npos"] >= 10], pop.truth, "10 or more positives")


if __name__ == "__main__":
    main()
