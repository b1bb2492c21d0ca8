"""The heavy-tail rule over conditions: skewness read within conditions (session 12, heavyt12b).

The design search's seed 17 (fields #11: R^2 of log-normal errors, sigma 1.44, n = 152
over 12 conditions, ICC 0.09) found ``auto`` covering 0.743 of 300 test sets, warned in
219 but in only 21 of its 77 misses: the heavy-tail rule's octile skewness
(:func:`mlci.engine.heavy_tail.octile_skewness`) was read on the raw errors, where the
conditions' normal intercepts (sd 0.30) swamp the log-normal's narrow middle (octile
skewness 0.18 with them, 0.68 without).  Since heavyt12b the rule also reads the errors
centred on their conditions' medians (:func:`~mlci.engine.heavy_tail.within_condition_skewness`)
and warns on the larger.  This script measures, per design:

``--design`` (bootstrap): fields design 11 of seed 17 and neighbours, as the search draws
  them (``np.random.default_rng([draw_seed, index, i, 24])``, the interval's seed drawn
  next; ``auto`` with B = 500): coverage, the share warned before (the raw skewness) and
  after, and the share of misses warned before and after.
``--null`` (no bootstrap): the share of test sets the rule warns before and after over
  conditions for errors whose intervals hold or that the rule leaves quiet today (normal,
  Laplace, t with 5 df, log-normal sigma 0.5) at n = 30-2,000, 5-150 conditions of unequal
  sizes (each at least 2), ICC 0 and 0.3; the RMSE's rule and the MAE's.

Usage (as run, ``nice -n 15``): ``--design --reps 300 --out
scripts/data/heavy_tail_conditions_design.json``; ``--null --reps 500 --out
scripts/data/heavy_tail_conditions_null.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import design_search_fields as dsf

import mlci
from mlci.engine.heavy_tail import heavy_tail_diagnostics, heavy_tail_rule
from mlci.metrics import get_kernel

B = 500


def before_verdict(ht: dict[str, Any]) -> bool:
    """The rule's verdict on the raw errors' skewness alone (main before heavyt12b)."""
    power = 1 if ht["loss"] == "absolute error" else 2
    return heavy_tail_rule(
        ht["n"], ht["error_kurtosis"], power, ht["effective_n"], ht["octile_skewness"]
    )


def run_design(d: Any, reps: int, draw_seed: int) -> dict[str, Any]:
    pop = dsf.Population(d)
    covers, side_above, before, after = [], [], [], []
    for i in range(reps):
        g = np.random.default_rng([draw_seed, d.index, i, 24])
        x = pop.draw(g)
        seed = int(g.integers(2**31))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with mlci.config_context(n_jobs=1):
                r = dsf._run(d, x, "auto", {"n_resamples": B, "rng": seed}, 0.95)
        lo, hi = map(float, r.confidence_interval)
        truth = float(pop.truth)  # type: ignore[arg-type]
        covers.append(lo <= truth <= hi)
        side_above.append(lo > truth)
        after.append(any(issubclass(w.category, mlci.HeavyTailWarning) for w in caught))
        ht = r.details["diagnostics"]["heavy_tail"]
        before.append(before_verdict(ht))
    c, a, b = np.array(covers), np.array(after), np.array(before)
    miss = ~c
    return {
        "label": d.label(),
        "reps": reps,
        "draw_seed": draw_seed,
        "coverage": float(c.mean()),
        "misses": int(miss.sum()),
        "misses_above": int(np.sum(side_above)),
        "warned_before": float(b.mean()),
        "warned_after": float(a.mean()),
        "misses_warned_before": int(b[miss].sum()),
        "misses_warned_after": int(a[miss].sum()),
        "unwarned_after_cover": [int(c[~a].sum()), int((~a).sum())],
    }


def designs() -> list[tuple[str, Any]]:
    d = dsf.random_design(11, 17)
    assert d.metric == "r2" and d.n == 152 and d.p["conditions"] == 12
    out = [("s17f#11", d)]
    for name, change, n in (
        ("s17f#11 ICC 0.3", {"icc": 0.3}, None),
        ("s17f#11 40 conditions", {"conditions": 40}, None),
        ("s17f#11 rmse", {}, None),
        ("s17f#11 n=60", {}, 60),
        (
            "lognormal 1.0 rmse n=300 30 cond ICC 0.2",
            {"shape": 1.0, "conditions": 30, "icc": 0.2},
            300,
        ),
    ):
        dn = dataclasses.replace(d, p={**d.p, **change})
        if "rmse" in name:
            dn = dataclasses.replace(dn, metric="rmse")
        if n is not None:
            dn = dataclasses.replace(dn, n=n)
        out.append((name, dn))
    return out


def draw_errors(g: np.random.Generator, law: str, n: int, c: int, icc: float) -> tuple[Any, Any]:
    sampler = dsf._std_errors(*law_spec(law))[0]
    w = g.dirichlet(np.full(c, 2.0))  # unequal sizes, each at least 2
    sizes = 2 + np.floor(w * (n - 2 * c)).astype(int)
    sizes[: n - int(sizes.sum())] += 1
    units = np.repeat(np.arange(c), sizes)
    e = math.sqrt(1 - icc) * sampler(g, n) + math.sqrt(icc) * g.standard_normal(c)[units]
    return e, units


def law_spec(law: str) -> tuple[str, float]:
    return {
        "normal": ("normal", 0.0),
        "laplace": ("laplace", 0.0),
        "t5": ("t", 5.0),
        "lognormal0.5": ("lognormal", 0.5),
    }[law]


def null(reps: int, seed: int) -> list[dict[str, Any]]:
    cells = []
    for law in ("normal", "laplace", "t5", "lognormal0.5"):
        sizes = ((30, (5, 12)), (60, (12,)), (152, (12, 40)), (500, (40, 150)), (2000, (150,)))
        for n, conds in sizes:
            for c in conds:
                for icc in (0.0, 0.3):
                    g = np.random.default_rng([seed, n, c, int(icc * 10), len(law)])
                    cnt = {"rmse_before": 0, "rmse_after": 0, "mae_before": 0, "mae_after": 0}
                    for _ in range(reps):
                        e, units = draw_errors(g, law, n, c, icc)
                        y = g.standard_normal(n)
                        for metric in ("rmse", "mae"):
                            k = get_kernel(metric, (y + e, y), {})
                            ht = heavy_tail_diagnostics(k, None, units)["heavy_tail"]
                            cnt[f"{metric}_before"] += before_verdict(ht)
                            cnt[f"{metric}_after"] += bool(ht["warn"])
                    row = {"law": law, "n": n, "conditions": c, "icc": icc, "reps": reps}
                    row.update({k: v / reps for k, v in cnt.items()})
                    cells.append(row)
                    print(json.dumps(row), flush=True)
    return cells


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--design", action="store_true")
    ap.add_argument("--only", help="design names, comma-separated")
    ap.add_argument("--null", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    got: list[dict[str, Any]] = []
    if args.null:
        got = null(args.reps, args.seed)
    if args.design:
        for name, d in designs():
            if args.only and name not in args.only.split(","):
                continue
            row = {"name": name, **run_design(d, args.reps, args.seed)}
            got.append(row)
            print(json.dumps(row), flush=True)
            if args.out:
                Path(args.out).write_text(json.dumps({"cells": got}, indent=0) + "\n")
    if args.out:
        Path(args.out).write_text(json.dumps({"seed": args.seed, "cells": got}, indent=0) + "\n")


if __name__ == "__main__":
    main()
