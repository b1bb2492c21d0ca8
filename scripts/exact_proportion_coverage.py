"""Exact coverage of the textbook intervals for a proportion of independent samples.

For ``k ~ Binomial(n, p)`` the coverage of any interval is a binomial sum
(:func:`mlci.simulate.exact_proportion_coverage`): no simulation error.  This script
computes it over the coverage map's range of iid proportions (n = 30 to 1000, p = 0.8 to
0.995, and by symmetry 0.005 to 0.2) for every non-randomised interval of
:func:`mlci.proportion_ci`, and reports per method the minimum, the mean and the spread
of the pointwise coverage, and of the *local average* coverage (the mean over
p +- 0.01, which smooths out the oscillation due to discreteness; Brown, Cai & DasGupta
2001, sec. 2.1), plus the exact values at the map's cells.  The numbers of
docs/validation.md, section 2 ("Proportions of independent samples: exact coverage").

Usage::

    python scripts/exact_proportion_coverage.py --json docs/data/exact_proportion_coverage.json
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from mlci import simulate

METHODS = (
    "wilson",
    "jeffreys",
    "mid_p",
    "agresti_coull",
    "likelihood_ratio",
    "clopper_pearson",
    "wilson_cc",
)
#: the map's iid proportion cells: (name, n, p, denominator share)
CELLS = (
    ("accuracy 0.8 n=30", 30, 0.8, None),
    ("accuracy 0.9 n=100", 100, 0.9, None),
    ("accuracy 0.97 n=300", 300, 0.97, None),
    ("accuracy 0.98 n=200", 200, 0.98, None),
    ("accuracy 0.99 n=1000", 1000, 0.99, None),
)
HALF_WIDTH = 0.01  # local average over p +- 0.01
STEP = 0.0005


def local_average(p: np.ndarray, cover: np.ndarray, half: float) -> np.ndarray:
    """Mean of ``cover`` over the grid points within ``half`` of each p (trapezoid-free:
    the grid is uniform)."""
    out = np.empty_like(cover)
    for i, pi in enumerate(p):
        sel = np.abs(p - pi) <= half + 1e-12
        out[i] = cover[sel].mean()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-step", type=int, default=10, help="grid of n: 30, 30+step, ... 1000")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    ns = sorted(set(range(30, 1001, args.n_step)) | {30, 100, 200, 300, 1000})
    # p in [0.79, 1.0): the local average at 0.8 needs 0.79; the summary is over [0.8, 0.995]
    p = np.round(np.arange(0.79, 0.9951 + 1e-9, STEP), 6)
    core = (p >= 0.8 - 1e-9) & (p <= 0.995 + 1e-9)
    summary, cells = {}, {}
    for method in METHODS:
        covs, locs = [], []
        for n in ns:
            c = simulate.exact_proportion_coverage(n, p, method=method)
            covs.append(c[core])
            locs.append(local_average(p, c, HALF_WIDTH)[core & (p <= 0.985 + 1e-9)])
        cov, loc = np.concatenate(covs), np.concatenate(locs)
        summary[method] = {
            "min": float(cov.min()),
            "mean": float(cov.mean()),
            "share_below_0.935": float(np.mean(cov < 0.935)),
            "share_above_0.965": float(np.mean(cov > 0.965)),
            "share_within_0.95+-0.015": float(np.mean(np.abs(cov - 0.95) <= 0.015)),
            "local_min": float(loc.min()),
            "local_max": float(loc.max()),
            "local_mean": float(loc.mean()),
        }
        for name, n, pt, share in CELLS:
            grid = np.round(np.arange(pt - HALF_WIDTH, pt + HALF_WIDTH + 1e-9, STEP), 6)
            grid = grid[grid < 1]
            c = simulate.exact_proportion_coverage(n, grid, method=method, denominator_share=share)
            at = float(simulate.exact_proportion_coverage(n, pt, method=method))
            cells.setdefault(name, {})[method] = {
                "exact": at,
                "local_average": float(c.mean()),
                "local_min": float(c.min()),
                "local_max": float(c.max()),
            }
        s = summary[method]
        print(
            f"{method:17s} min {s['min']:.4f} mean {s['mean']:.4f} "
            f"<0.935 {s['share_below_0.935']:.3f} >0.965 {s['share_above_0.965']:.3f} "
            f"in 0.95+-0.015 {s['share_within_0.95+-0.015']:.3f} | local "
            f"[{s['local_min']:.4f}, {s['local_max']:.4f}] mean {s['local_mean']:.4f}",
            flush=True,
        )
    print("\ncell: exact / local average [min, max] over p +- 0.01")
    for name, by in cells.items():
        print(
            f"{name:22s} "
            + "  ".join(
                f"{m} {v['exact']:.4f}/{v['local_average']:.4f} "
                f"[{v['local_min']:.3f}, {v['local_max']:.3f}]"
                for m, v in by.items()
            )
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {
                    "n_grid": ns,
                    "p_grid": [0.8, 0.995, STEP],
                    "local_half_width": HALF_WIDTH,
                    "summary": summary,
                    "cells": cells,
                },
                fh,
                indent=1,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
