"""Coverage of ``bootstrap_ci(values, metric="mean")`` under ``method="auto"`` for 0/1 values.

The study behind docs/validation.md, "The mean of 0/1 values as a proportion" (issue 20).
Each cell draws ``--reps`` test sets of ``n`` 0/1 values with population mean ``p``:
independent samples, or over 20 conditions of equal size with condition means from a
beta distribution of mean ``p`` and intra-class correlation ``--icc`` (the truth is
``p``).  For each test set it records whether the ``auto`` interval of the mean holds
``p``, its width and its method.  Run it with the library before issue 20's change (the
studentized interval, the t interval near the bounds) and after (the proportion's
interval: Wilson of independent samples, logit t over conditions) by pointing
``PYTHONPATH`` at either source tree; ``--json`` keeps the table.

Usage::

    nice python scripts/mean01_coverage.py --reps 300 --json after.json
"""

from __future__ import annotations

import argparse
import json
import warnings
from collections import Counter

import numpy as np

import mlci
from mlci import simulate

PS = (0.5, 0.8, 0.9, 0.95, 0.97, 0.99, 0.995)
NS_IID = (20, 50, 100, 200, 1000)
NS_COND = (100, 200, 1000)
N_CONDITIONS = 20


def draw(rng: np.random.Generator, n: int, p: float, icc: float | None) -> tuple:
    """``n`` 0/1 values of mean ``p``: iid (``icc`` None), or over 20 equal conditions."""
    if icc is None:
        return (rng.random(n) < p).astype(float), None
    cond = np.repeat(np.arange(N_CONDITIONS), n // N_CONDITIONS)
    a, b = p * (1 - icc) / icc, (1 - p) * (1 - icc) / icc
    pc = rng.beta(a, b, N_CONDITIONS)[cond]
    return (rng.random(len(cond)) < pc).astype(float), cond


def cell(n: int, p: float, icc: float | None, reps: int, n_resamples: int) -> dict:
    hits, widths, methods, warned = 0, [], Counter(), 0
    for i in range(reps):
        rng = np.random.default_rng([20, n, round(p * 1000), 0 if icc is None else 1, i])
        x, cond = draw(rng, n, p, icc)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = mlci.bootstrap_ci(
                x, metric="mean", conditions=cond, n_resamples=n_resamples, rng=i
            )
        warned += any(issubclass(w.category, mlci.MlciWarning) for w in caught)
        lo, hi = res.confidence_interval
        hits += bool(lo <= p <= hi)
        widths.append(min(hi, 1.0) - max(lo, 0.0))
        methods[res.method] += 1
    out = {
        "n": n,
        "p": p,
        "design": "iid" if icc is None else f"{N_CONDITIONS} conditions, ICC {icc}",
        "coverage": hits / reps,
        "median_width": float(np.median(widths)),
        "warned": warned / reps,
        "methods": dict(methods),
    }
    if icc is None:  # Wilson's exact coverage (a binomial sum, no simulation error)
        out["wilson_exact"] = float(simulate.exact_proportion_coverage(n, p))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=300, help="test sets per cell")
    ap.add_argument("--n-resamples", type=int, default=1000)
    ap.add_argument("--icc", type=float, default=0.1)
    ap.add_argument("--json", help="write the cells to this file")
    args = ap.parse_args(argv)
    cells = [(n, p, None) for n in NS_IID for p in PS]
    cells += [(n, p, args.icc) for n in NS_COND for p in PS]
    out = []
    for n, p, icc in cells:
        r = cell(n, p, icc, args.reps, args.n_resamples)
        out.append(r)
        print(
            f"{r['design']:<26} n={n:<5} p={p:<6} coverage {r['coverage']:.3f} "
            f"width {r['median_width']:.4f} warned {r['warned']:.2f} "
            f"wilson exact {r.get('wilson_exact', float('nan')):.3f} {r['methods']}",
            flush=True,
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"reps": args.reps, "cells": out}, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
