"""``method="wilson"`` over conditions with the design effect truncated at 1, or not
(session 11, kgfew).

``method="wilson"`` of a proportion over conditions is Wilson's interval on the effective
sample size ``n_eff = n / deff`` times ``(z / t_df)^2``.  Korn & Graubard's interval has
truncated the design effect at 1 since session 10 (``n* = min(n, n_KG (z / t_df)^2)``,
scripts/kg_truncation_study.py); Wilson did not.  This replays that study's grid (the
same test sets: its generator, sizes and seeds, at the count level; accuracy over 5-100
conditions, ICC 0, 0.01, 0.05, p 0.9-0.999, n 50-2,000) with the two Wilson variants:

* ``now``: :func:`mlci.intervals.bootstrap.wilson_interval` on ``n_eff`` with the df
  factor (mlci before session 11);
* ``trunc``: the same on :func:`mlci.intervals.near_bound.wilson_size`'s size (the
  samples' ``n`` without the df factor where ``n_eff (z / t_df)^2 > n``).

Coverage of the population accuracy by the 95% intervals, on all test sets and on
those with an estimated design effect below 1.

Usage::

    nice -n 15 python scripts/kg_wilson_truncation.py --reps 200 \
        --json scripts/data/kg_wilson_truncation.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kg_truncation_study import GRID, cp, linear_of, sizes_of

from mlci.intervals.bootstrap import wilson_interval
from mlci.intervals.near_bound import wilson_size

LEVEL = 0.95


def run_cell(icc: float, C: int, p: float, n: int, unequal: bool, reps: int, seed: int) -> dict:
    # the session-10 study's generator and seed: the same test sets
    g = np.random.default_rng([seed, C, n, round(p * 1000), int(icc * 1000), unequal])
    hits = {"now": 0, "trunc": 0}
    low = {"now": 0, "trunc": 0}
    n_low = changed = 0
    ratios = []
    for _ in range(reps):
        m = sizes_of(n, C, unequal, g)
        if icc > 0:
            s = 1.0 / icc - 1.0
            pc = g.beta(p * s, (1 - p) * s, C)
        else:
            pc = np.full(C, p)
        k = g.binomial(m, pc)
        lin = linear_of(k, m)
        est = float(k.sum()) / n
        lo0, hi0, _ = wilson_interval(est, lin["effective_n"], lin["df"], confidence_level=LEVEL)
        nw, dfw, _ = wilson_size(lin, confidence_level=LEVEL)
        lo1, hi1, _ = wilson_interval(est, nw, dfw, confidence_level=LEVEL)
        iv = {"now": (float(lo0), float(hi0)), "trunc": (float(lo1), float(hi1))}
        below = lin["design_effect"] < 1
        n_low += below
        for v, (a, b) in iv.items():
            hit = a <= p <= b
            hits[v] += hit
            low[v] += hit and below
        if iv["now"] != iv["trunc"]:
            changed += 1
            ratios.append((hi1 - lo1) / (hi0 - lo0))
    return {
        "icc": icc, "conditions": C, "p": p, "n": n, "unequal": unequal, "reps": reps,
        "coverage": {v: hits[v] / reps for v in hits},
        "coverage_ci": {v: cp(hits[v], reps) for v in hits},
        "share_deff_below_1": n_low / reps,
        "coverage_deff_below_1": {v: low[v] / n_low if n_low else None for v in low},
        "share_changed": changed / reps,
        "median_width_ratio_changed": float(np.median(ratios)) if ratios else None,
    }  # fmt: skip


def summary(data: dict[str, Any]) -> str:
    lines = [
        "| ICC | cells | test sets with deff < 1 | changed | now: min, median | trunc: min, "
        "median | cells < 0.935: now, trunc | on deff < 1: now, trunc |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for icc in GRID["icc"]:
        cs = [c for c in data["cells"] if c["icc"] == icc]
        if not cs:
            continue
        now = np.array([c["coverage"]["now"] for c in cs])
        tr = np.array([c["coverage"]["trunc"] for c in cs])
        reps = sum(c["reps"] for c in cs)
        w = sum(c["share_deff_below_1"] * c["reps"] for c in cs)
        ln = sum((c["coverage_deff_below_1"]["now"] or 0) * c["share_deff_below_1"] * c["reps"]
                 for c in cs)  # fmt: skip
        lt = sum((c["coverage_deff_below_1"]["trunc"] or 0) * c["share_deff_below_1"] * c["reps"]
                 for c in cs)  # fmt: skip
        ch = sum(c["share_changed"] * c["reps"] for c in cs) / reps
        lines.append(
            f"| {icc:g} | {len(cs)} | {w / reps:.2f} | {ch:.2f} | {now.min():.3f}, "
            f"{np.median(now):.3f} | {tr.min():.3f}, {np.median(tr):.3f} | "
            f"{int(np.sum(now < 0.935))}, {int(np.sum(tr < 0.935))} | {ln / w:.3f}, {lt / w:.3f} |"
        )
    ratios = [c["median_width_ratio_changed"] for c in data["cells"]
              if c["median_width_ratio_changed"]]  # fmt: skip
    lines.append("")
    lines.append(
        f"Median width trunc/now on the changed test sets, over cells: median "
        f"{np.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}."
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--summary", type=Path)
    ap.add_argument("--icc", type=float, nargs="+", help="only these ICCs of the grid")
    args = ap.parse_args(argv)
    if args.summary:
        print(summary(json.loads(args.summary.read_text())))
        return
    cells = [c for c in itertools.product(*GRID.values()) if c[3] >= 2 * c[1]]
    if args.icc is not None:
        cells = [c for c in cells if c[0] in args.icc]
    out = []
    t0 = time.time()
    for i, (icc, C, p, n, u) in enumerate(cells):
        res = run_cell(icc, C, p, n, u, args.reps, args.seed)
        out.append(res)
        if i % 20 == 0:
            print(f"[{i + 1}/{len(cells)} {time.time() - t0:.0f}s]", file=sys.stderr, flush=True)
        if args.json:  # after every cell: a partial run keeps what it measured
            meta = {"reps": args.reps, "seed": args.seed, "level": LEVEL,
                    "cells_done": len(out), "cells_planned": len(cells)}  # fmt: skip
            args.json.write_text(json.dumps({"meta": meta, "cells": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
