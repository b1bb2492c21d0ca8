"""Korn & Graubard's interval with the design effect truncated at 1, or not.

Korn & Graubard's (1998) interval of a proportion over conditions is Clopper-Pearson on
the effective sample size ``n_KG = p (1 - p) / se^2`` times ``(z / t_df)^2``.  Where the
estimated design effect is below 1 (``n_KG > n``: the conditions vary less than
binomially, which happens on about half the test sets when they do not vary at all) the
interval is narrower than the exact interval of the ``n`` samples as independent.
Practice truncates: NCHS's data presentation standards for proportions (Parker et al.
2017) and CDC's R package surveytable (``svyciprop_adjusted``:
``n* = min(n, n_KG (t_{n-1} / t_df)^2)``), Stata's ``svypd`` with ``truncate``
(``n* = n`` where the design effect before the df factor is below 1).  R survey's
``svyciprop(method = "beta")`` does not.

On every test set of proportions over conditions (condition effects drawn from a Beta
with the design's ICC, sizes equal or log-normal) the same estimate, CR2 standard error
and degrees of freedom as the engine's (checked against
:func:`mlci.engine.bootstrap.resolve_method` on the first test sets of every cell) give:

* ``now``: :func:`mlci.intervals.near_bound.korn_graubard_interval` untruncated (mlci
  before session 10);
* ``trunc``: the same with ``truncate=True``, ``n* = min(n, n_KG (z / t_df)^2)`` (the
  NCHS / surveytable rule, with the normal quantile of mlci's factor), the minority
  outcomes of :func:`~mlci.intervals.near_bound.widen_few_minority` counted on
  ``min(n, n_KG)``;
* ``svypd``: ``n* = n`` without the df factor where ``n_KG > n`` (Stata's ``svypd,
  truncate``), else ``now``.

Coverage of the population accuracy by the 95% intervals, with the exact
(Clopper-Pearson) 95% interval of the coverage; coverage on the test sets where the
design effect was below 1; the share of test sets where truncation changed the interval;
the median width of ``trunc`` over ``now`` there; the coverage on the test sets
``method="auto"`` gives Korn & Graubard's interval (8 or more conditions, the estimate
within 0.1 of the bound, not on it, a standard error above 0).

Usage::

    nice -n 15 python scripts/kg_truncation_study.py --reps 500 --json grid.json
    nice -n 15 python scripts/kg_truncation_study.py --key --reps 4000 --json key.json
    python scripts/kg_truncation_study.py --summary grid.json key.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import binomtest

from mlci.engine.bootstrap import resolve_method
from mlci.engine.cr2 import cr2_variance
from mlci.engine.dominant_condition import bounded_df
from mlci.engine.linearize import icc_anova, random_effects_df
from mlci.engine.resampling import make_plan
from mlci.intervals.near_bound import effective_binomial_interval, korn_graubard_interval
from mlci.metrics import get_kernel

VARIANTS = ("now", "trunc", "svypd")
LEVEL = 0.95
#: the grid: ICC, conditions, population accuracy, n, unequal sizes
GRID = {
    "icc": (0.0, 0.01, 0.05),
    "conditions": (5, 10, 30, 100),
    "p": (0.9, 0.98, 0.995, 0.999),
    "n": (50, 200, 2000),
    "unequal": (False, True),
}
#: the key cells: where the design effect is below 1 on many test sets and truncation
#: changes the interval most often (the grid's run at 500 test sets)
KEY = [
    (icc, c, p, n, u)
    for icc in (0.0, 0.01)
    for c, n in ((10, 200), (30, 2000), (100, 2000), (30, 200))
    for p in (0.9, 0.98, 0.995)
    for u in (False, True)
]


def sizes_of(n: int, conditions: int, unequal: bool, g: np.random.Generator) -> np.ndarray:
    """Condition sizes summing to ``n``, each at least 1: equal, or log-normal (sd 1)."""
    if not unequal:
        base = np.full(conditions, n // conditions)
        base[: n - base.sum()] += 1
        return base
    w = np.exp(g.normal(0.0, 1.0, conditions))
    s = 1 + np.floor(w / w.sum() * (n - conditions)).astype(int)
    s[np.argsort(-w)[: n - s.sum()]] += 1
    return s


def linear_of(k: np.ndarray, m: np.ndarray) -> dict[str, Any]:
    """The engine's linearization of a proportion over conditions from the conditions'
    counts (:mod:`mlci.engine.linearize`: CR2 closed form, Imbens & Kolesar's df bounded
    by Kish's, the design effect and effective size)."""
    N = float(m.sum())
    p = float(k.sum()) / N
    se = math.sqrt(max(float(cr2_variance(k.astype(float), m.astype(float))), 0.0))
    kish = max(N**2 / float(np.sum(m.astype(float) ** 2)) - 1.0, 1.0)
    df = bounded_df(random_effects_df(m.astype(float), icc_anova(k, m)), kish)
    if 0 < p < 1 and se > 0:
        deff = se**2 / (p * (1 - p) / N)
        eff = N / deff
    else:
        deff, eff = 1.0, N
    return {"standard_error": se, "df": df, "iid": False, "design_effect": deff,
            "effective_n": eff}  # fmt: skip


def check_engine(k: np.ndarray, m: np.ndarray, lin: dict[str, Any]) -> None:
    """The engine's own linearization of the same test set agrees (1e-9)."""
    cond = np.repeat(np.arange(len(m)), m)
    a = np.concatenate([np.r_[np.ones(kk), np.zeros(mm - kk)] for kk, mm in zip(k, m, strict=True)])
    kernel = get_kernel("accuracy", (np.ones(len(a), int), a.astype(int)), {})
    _, eng, _ = resolve_method(kernel, make_plan(len(a), conditions=cond), "korn_graubard")
    assert eng is not None
    for key in ("standard_error", "df", "design_effect", "effective_n"):
        assert math.isclose(float(eng[key]), lin[key], rel_tol=1e-9, abs_tol=1e-12), key


def intervals(p: float, lin: dict[str, Any]) -> dict[str, tuple[float, float]]:
    out = {}
    for name, trunc in (("now", False), ("trunc", True)):
        lo, hi, _ = korn_graubard_interval(p, lin, confidence_level=LEVEL, truncate=trunc)
        out[name] = (float(lo), float(hi))
    n = lin["effective_n"] * lin["design_effect"]
    if lin["design_effect"] < 1:
        lo, hi, _ = effective_binomial_interval(p, math.sqrt(p * (1 - p) / n), None,
                                                confidence_level=LEVEL)  # fmt: skip
        out["svypd"] = (float(lo), float(hi))
    else:
        out["svypd"] = out["now"]
    return out


def cp(hits: int, total: int) -> list[float]:
    if total == 0:
        return [math.nan, math.nan]
    ci = binomtest(hits, total).proportion_ci(confidence_level=0.95, method="exact")
    return [round(float(ci.low), 4), round(float(ci.high), 4)]


def run_cell(icc: float, C: int, p: float, n: int, unequal: bool, reps: int, seed: int,
             checks: int = 2) -> dict[str, Any]:  # fmt: skip
    g = np.random.default_rng([seed, C, n, round(p * 1000), int(icc * 1000), unequal])
    hits = {v: 0 for v in VARIANTS}
    hits_low = {v: 0 for v in VARIANTS}  # on the test sets with a design effect below 1
    hits_auto = {v: 0 for v in VARIANTS}
    n_low = n_auto = n_changed = 0
    ratios = []
    for r in range(reps):
        m = sizes_of(n, C, unequal, g)
        if icc > 0:
            s = 1.0 / icc - 1.0
            pc = g.beta(p * s, (1 - p) * s, C)
        else:
            pc = np.full(C, p)
        k = g.binomial(m, pc)
        lin = linear_of(k, m)
        if r < checks:
            check_engine(k, m, lin)
        est = float(k.sum()) / n
        ci = intervals(est, lin)
        low_deff = lin["design_effect"] < 1
        auto = C >= 8 and 0 < min(est, 1 - est) < 0.1 and lin["standard_error"] > 0
        n_low += low_deff
        n_auto += auto
        for v in VARIANTS:
            hit = ci[v][0] <= p <= ci[v][1]
            hits[v] += hit
            hits_low[v] += hit and low_deff
            hits_auto[v] += hit and auto
        if ci["trunc"] != ci["now"]:
            n_changed += 1
            ratios.append((ci["trunc"][1] - ci["trunc"][0]) / (ci["now"][1] - ci["now"][0]))
    return {
        "icc": icc, "conditions": C, "p": p, "n": n, "unequal": unequal, "reps": reps,
        "coverage": {v: hits[v] / reps for v in VARIANTS},
        "coverage_ci": {v: cp(hits[v], reps) for v in VARIANTS},
        "share_deff_below_1": n_low / reps,
        "coverage_deff_below_1": {v: hits_low[v] / n_low if n_low else None for v in VARIANTS},
        "coverage_deff_below_1_ci": {v: cp(hits_low[v], n_low) for v in VARIANTS},
        "share_auto_kg": n_auto / reps,
        "coverage_auto_kg": {v: hits_auto[v] / n_auto if n_auto else None for v in VARIANTS},
        "share_changed": n_changed / reps,
        "median_width_ratio_changed": float(np.median(ratios)) if ratios else None,
    }  # fmt: skip


def summary(grid: dict[str, Any], key: dict[str, Any] | None = None) -> str:
    """Markdown tables of the runs' JSON (docs/validation.md)."""
    cells = grid["cells"]
    lines = ["| ICC | cells | deff < 1 | changed | now: min, median | trunc: min, median | "
             "now < 0.935 | trunc < 0.935 | on deff < 1: now, trunc | svypd below now |",
             "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for icc in GRID["icc"]:
        cs = [c for c in cells if c["icc"] == icc]
        now = np.array([c["coverage"]["now"] for c in cs])
        tr = np.array([c["coverage"]["trunc"] for c in cs])
        sv = np.array([c["coverage"]["svypd"] for c in cs])
        w = np.array([c["share_deff_below_1"] * c["reps"] for c in cs])
        low_now = sum(
            (c["coverage_deff_below_1"]["now"] or 0) * c["share_deff_below_1"] * c["reps"]
            for c in cs
        )
        low_tr = sum(
            (c["coverage_deff_below_1"]["trunc"] or 0) * c["share_deff_below_1"] * c["reps"]
            for c in cs
        )
        reps = sum(c["reps"] for c in cs)
        changed = sum(c["share_changed"] * c["reps"] for c in cs) / reps
        lines.append(
            f"| {icc:g} | {len(cs)} | {w.sum() / reps:.2f} | {changed:.2f} | "
            f"{now.min():.3f}, {np.median(now):.3f} | {tr.min():.3f}, {np.median(tr):.3f} | "
            f"{int(np.sum(now < 0.935))} | {int(np.sum(tr < 0.935))} | "
            f"{low_now / w.sum():.3f}, {low_tr / w.sum():.3f} | {int(np.sum(sv < now))} |"
        )
    for icc in GRID["icc"]:
        cs = [c for c in cells if c["icc"] == icc and c["share_auto_kg"] > 0]
        m = sum(c["share_auto_kg"] * c["reps"] for c in cs)
        pooled = {v: sum(c["coverage_auto_kg"][v] * c["share_auto_kg"] * c["reps"] for c in cs)
                  / m for v in ("now", "trunc")}  # fmt: skip
        lines.append(
            f"{'' if icc else chr(10)}ICC {icc:g}: the {int(m)} test sets where auto gives "
            f"Korn & Graubard's interval cover {pooled['now']:.3f} now, "
            f"{pooled['trunc']:.3f} truncated."
        )
    ratios = [c["median_width_ratio_changed"] for c in cells if c["median_width_ratio_changed"]]
    lines.append("")
    lines.append(
        f"Median width trunc/now on the changed test sets, over cells: median "
        f"{np.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}."
    )
    if key is not None:
        lines += ["", "| ICC | C | n | p | sizes | deff < 1 | now [95% CI] | trunc [95% CI] | "
                  "on deff < 1: now, trunc | width trunc/now |",
                  "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
        for c in key["cells"]:
            cov, ci, low = c["coverage"], c["coverage_ci"], c["coverage_deff_below_1"]
            lines.append(
                f"| {c['icc']:g} | {c['conditions']} | {c['n']} | {c['p']:g} | "
                f"{'unequal' if c['unequal'] else 'equal'} | {c['share_deff_below_1']:.2f} | "
                f"{cov['now']:.3f} [{ci['now'][0]:.3f}, {ci['now'][1]:.3f}] | "
                f"{cov['trunc']:.3f} [{ci['trunc'][0]:.3f}, {ci['trunc'][1]:.3f}] | "
                f"{low['now']:.3f}, {low['trunc']:.3f} | "
                f"{c['median_width_ratio_changed'] or 1:.3f} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--key", action="store_true", help="the key cells only (KEY)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--summary", nargs="+", type=Path, help="GRID_JSON [KEY_JSON]: tables")
    args = ap.parse_args(argv)
    if args.summary:
        runs = [json.loads(p.read_text()) for p in args.summary]
        print(summary(*runs))
        return
    cells = KEY if args.key else [
        c for c in itertools.product(*GRID.values()) if c[3] >= 2 * c[1]
    ]  # fmt: skip
    out = []
    t0 = time.time()
    for i, (icc, C, p, n, u) in enumerate(cells):
        res = run_cell(icc, C, p, n, u, args.reps, args.seed)
        out.append(res)
        cov = res["coverage"]
        print(f"[{i + 1}/{len(cells)} {time.time() - t0:.0f}s] icc={icc} C={C} p={p} n={n} "
              f"u={int(u)} deff<1 {res['share_deff_below_1']:.2f} changed "
              f"{res['share_changed']:.2f} now {cov['now']:.3f} trunc {cov['trunc']:.3f} "
              f"svypd {cov['svypd']:.3f}", file=sys.stderr, flush=True)  # fmt: skip
    if args.json:
        meta = {"reps": args.reps, "seed": args.seed, "level": LEVEL, "key": args.key}
        args.json.write_text(json.dumps({"meta": meta, "cells": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
