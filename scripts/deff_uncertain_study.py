"""Proportions over few conditions whose design effect is uncertain (session 12, deffrule).

Seed-16 decision #60 (accuracy of 2,984 samples over 14 equal conditions, ICC 0.27, error
rate 0.062) showed ``auto`` (Korn & Graubard's interval) short (0.880 of 300 test sets,
BCa 0.850, percentile 0.810) with 2 of its 36 misses warned: the test sets that drew few
errors (the heavy conditions absent) estimate a design effect near 6 against the true
~58 and the interval lies above the truth.  This script measures, over a grid of
proportions over conditions (the condition accuracies from a Beta with the given ICC,
``kg_few_conditions_study.draw``; equal or log-normal sizes) and on #60's own population
(its 300 confirmation test sets, ``np.random.default_rng([17, 60, i])``), per test set:
``auto`` (interval, method, warnings and their text), BCa and the percentile interval
(B = 500), and the engine's diagnostics (design effect, effective size, conditions
holding an error), so that candidate warning clauses can be scored on the same test sets
(:func:`score_rules`).

Usage::

    nice -n 15 python scripts/deff_uncertain_study.py --reps 150 --part 0/2 --out /tmp/d0.npz
    python scripts/deff_uncertain_study.py --summarise /tmp/d0.npz /tmp/d1.npz \
        --json scripts/data/deff_uncertain.json
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from kg_few_conditions_study import draw

import mlci
from mlci.exceptions import MlciWarning

LEVEL = 0.95
B = 500
#: the grid: conditions, ICC of the correctness, error rate, n, unequal sizes
GRID = list(
    itertools.product(
        (6, 8, 10, 14, 20, 30),
        (0.0, 0.05, 0.15, 0.3),
        (0.01, 0.05, 0.2),
        (500, 3000),
        (False, True),
    )
)
#: the warning clauses by their opening words
CLAUSES = {
    "few_conditions": "conditions are resampled: below",
    "kish": "effective conditions (Kish",
    "minority": "effective minority outcomes",
    "deff": "may be as large as",
}
KEYS = (
    "cell", "rep", "K", "truth", "est", "deff", "eff_n", "error_conditions",
    "auto_lo", "auto_hi", "auto_kg", "warned", "estimated_minority",
    "bca_lo", "bca_hi", "pct_lo", "pct_hi",
    *("w_" + k for k in CLAUSES),
)  # fmt: skip


def one(
    y: np.ndarray, a: np.ndarray, cond: np.ndarray, truth: float, auto_only: bool = False
) -> dict[str, Any]:
    """``auto``, BCa and percentile on one test set (accuracy over ``cond``); with
    ``auto_only`` BCa and the percentile interval are NaN (the after-pass)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = mlci.bootstrap_ci(y, a, metric="accuracy", conditions=cond, n_resamples=B, rng=0)
    text = " ".join(str(w.message) for w in caught if issubclass(w.category, MlciWarning))
    diag = r.details.get("diagnostics", {})
    bca, pct = (math.nan, math.nan), (math.nan, math.nan)
    if not auto_only:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rb = mlci.bootstrap_ci(
                y, a, metric="accuracy", conditions=cond, n_resamples=B, rng=0, method="bca"
            )
            bca = rb.confidence_interval
            pct = rb.interval(method="percentile").confidence_interval
    out = {
        "K": int(np.unique(cond).size),
        "truth": truth,
        "est": float(r.estimate),
        "deff": float(diag.get("design_effect", math.nan) or math.nan),
        "eff_n": float(diag.get("effective_n", math.nan) or math.nan),
        "error_conditions": float(diag.get("error_conditions", math.nan) or math.nan),
        "auto_lo": float(r.confidence_interval[0]),
        "auto_hi": float(r.confidence_interval[1]),
        "auto_kg": r.method == "korn_graubard",
        "estimated_minority": float(
            min(r.estimate, 1 - r.estimate) * (diag.get("effective_n") or math.nan)
        ),
        "warned": bool(text),
        "bca_lo": float(bca[0]),
        "bca_hi": float(bca[1]),
        "pct_lo": float(pct[0]),
        "pct_hi": float(pct[1]),
    }
    for k, s in CLAUSES.items():
        out["w_" + k] = s in text
    return out


def s16_60(reps: int, auto_only: bool = False) -> list[dict[str, Any]]:
    """Seed-16 decision #60's confirmation test sets (draw seed 17)."""
    from _scripts import load_script

    ds = load_script("design_search.py")
    pop = ds.Population(ds.random_design(60, 16))
    rows = []
    for i in range(reps):
        x = pop.draw(np.random.default_rng([17, 60, i]))
        y, a, cond = (np.asarray(x[k]) for k in ("y", "a", "conditions"))
        row = one(y, a, cond, pop.truth, auto_only)
        rows.append({"cell": -1, "rep": i, **row})
    return rows


def run(
    reps: int,
    part: tuple[int, int],
    seed: int,
    max_seconds: float,
    auto_only: bool = False,
    min_conditions: int = 0,
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    t0 = time.time()
    k, of = part
    if k == 0:
        rows += s16_60(300, auto_only)
    for ci, (C, icc, q, n, unequal) in enumerate(GRID):
        if ci % of != k or time.time() - t0 > max_seconds or C < min_conditions:
            continue
        g = np.random.default_rng([seed, 12, ci])
        for rep in range(reps):
            y, a, cond, _ = draw(icc, C, 1.0 - q, n, unequal, g)
            rows.append({"cell": ci, "rep": rep, **one(y, a, cond, 1.0 - q, auto_only)})
        print(f"cell {ci} {GRID[ci]} {time.time() - t0:.0f}s", flush=True)
    return rows


def load(*paths: Path) -> dict[str, np.ndarray]:
    parts = [dict(np.load(p)) for p in paths]
    return {k: np.concatenate([d[k] for d in parts]) for k in parts[0]}


def covers(d: dict[str, np.ndarray], m: str) -> np.ndarray:
    return (d[m + "_lo"] <= d["truth"]) & (d["truth"] <= d[m + "_hi"])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=150)
    ap.add_argument("--part", default="0/1")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-seconds", type=float, default=3000.0)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--auto-only", action="store_true", help="auto only (the after-pass)")
    ap.add_argument("--min-conditions", type=int, default=0, help="skip cells below")
    args = ap.parse_args(argv)
    k, of = map(int, args.part.split("/"))
    rows = run(args.reps, (k, of), args.seed, args.max_seconds, args.auto_only, args.min_conditions)
    arrays = {key: np.asarray([r[key] for r in rows]) for key in KEYS}
    np.savez_compressed(args.out, **arrays)


if __name__ == "__main__":
    main()
