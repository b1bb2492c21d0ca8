"""Proportions over few conditions at ICC 0.05 under ``method="auto"`` (session 11).

The session-10 study of Korn & Graubard's truncated interval
(``scripts/kg_truncation_study.py``, ``scripts/data/kg_truncation_grid.json``) found 13
cells at ICC 0.05 (5-30 conditions, population accuracy 0.9-0.995) where the *named*
Korn & Graubard interval covered 0.71-0.93: the conditions' accuracies are drawn from a
Beta with that ICC (at p = 0.995, Beta(18.9, 0.095)), so the errors fall in a few
conditions.  It did not measure ``auto``, which over fewer than 8 conditions gives the
logit t instead, nor the warnings.

Here every test set is drawn at the sample level (the same condition model and sizes as
that study: :func:`kg_truncation_study.sizes_of`; ``y_true`` Bernoulli(0.3) independent
of the condition, each sample right with its condition's probability, so accuracy,
recall and specificity all have population value ``p``), and for accuracy, recall and
specificity through :func:`mlci.bootstrap_ci` with ``conditions=``:

* ``auto`` (its method, its warning and the warning's clauses),
* ``bca`` and ``percentile`` (B = 500), ``korn_graubard`` (named), ``logit_t``,
* ``wilson`` (Wilson on the effective sample size with the df factor, not truncated at
  design effect 1) and ``wilson_trunc`` (the same on ``min(n, n_KG (z/t_df)^2)``, the
  truncation Korn & Graubard's interval has had since session 10),

and the proportion door (``metric="mean"`` of the 0/1 correctness) is checked equal to
accuracy's ``auto`` on the first test sets of every cell.  Cells: the study's 48 at ICC
0.05 over 5-30 conditions and p 0.9-0.995 (the 13 short ones among them), and 12 at ICC
0 and 0.01 (5-30 conditions, n 2,000, p 0.98 and 0.995) for the warnings' false alarms
and the Wilson truncation.

Per test set the arrays go to an ``.npz`` (``--npz``) so that candidate rules can be
read off the same test sets (:func:`load`); the JSON holds the per-cell summary.

Usage::

    nice -n 15 python scripts/kg_few_conditions_study.py --reps 300 --part 0/2 \
        --json /tmp/kgfew0.json --npz /tmp/kgfew0.npz
    python scripts/kg_few_conditions_study.py --merge /tmp/kgfew0.json /tmp/kgfew1.json \
        --json scripts/data/kg_few_conditions.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kg_truncation_study import sizes_of

import mlci
from mlci.engine.bootstrap import resolve_method
from mlci.engine.resampling import make_plan
from mlci.exceptions import MlciWarning
from mlci.intervals.bootstrap import wilson_interval
from mlci.intervals.formulas import quantile as t_quantile
from mlci.metrics import get_kernel

LEVEL = 0.95
B = 500
PREVALENCE = 0.3
METRICS = ("accuracy", "recall", "specificity")
METHODS = ("auto", "bca", "percentile", "korn_graubard", "logit_t", "wilson", "wilson_trunc")
#: the session-10 grid at ICC 0.05 over 5-30 conditions, p 0.9-0.995 (n >= 2 C)
SHORT_GRID = [
    (0.05, c, p, n, u)
    for c, p, n, u in itertools.product(
        (5, 10, 30), (0.9, 0.98, 0.995), (50, 200, 2000), (False, True)
    )
    if n >= 2 * c
]
#: controls: no or a small condition effect
CONTROLS = [
    (icc, c, p, 2000, False) for icc in (0.0, 0.01) for c in (5, 10, 30) for p in (0.98, 0.995)
]
CELLS = SHORT_GRID + CONTROLS
#: the 13 cells of the session-10 grid where the named Korn & Graubard interval covered
#: below 0.935 (scripts/data/kg_truncation_grid.json), as indices of CELLS
SHORT_CELLS = (8, 9, 10, 16, 17, 27, 28, 34, 35, 38, 42, 46, 47)
#: the warning's clauses (mlci.engine.auto.warn_outside_map), by their opening words
CLAUSES = {
    "few_conditions": "conditions are resampled: below",
    "kish": "effective conditions (Kish",
    "minority": "effective minority outcomes",
}


def draw(icc: float, C: int, p: float, n: int, unequal: bool, g: np.random.Generator) -> tuple:
    m = sizes_of(n, C, unequal, g)
    if icc > 0:
        s = 1.0 / icc - 1.0
        pc = g.beta(p * s, (1 - p) * s, C)
    else:
        pc = np.full(C, p)
    cond = np.repeat(np.arange(C), m)
    y = (g.random(n) < PREVALENCE).astype(int)
    right = g.random(n) < pc[cond]
    return y, np.where(right, y, 1 - y), cond, right


def linear_of(metric: str, y: np.ndarray, a: np.ndarray, cond: np.ndarray) -> dict[str, Any]:
    kernel = get_kernel(metric, (y, a), {} if metric == "accuracy" else {"pos_label": 1})
    _, lin, _ = resolve_method(kernel, make_plan(len(y), conditions=cond), "korn_graubard")
    assert lin is not None
    return lin


def wilson_truncated(est: float, lin: dict[str, Any]) -> tuple[float, float]:
    """Wilson on ``min(n, n_KG (z / t_df)^2)`` (the design effect truncated at 1 after the
    df factor, as Korn & Graubard's since session 10)."""
    eff, deff = lin["effective_n"], lin["design_effect"]
    z = float(t_quantile(1 - (1 - LEVEL) / 2))
    t = float(t_quantile(1 - (1 - LEVEL) / 2, float(lin["df"])))
    n_star = float(eff) * (z / t) ** 2
    if deff is not None:
        n_star = min(n_star, float(eff) * float(deff))
    lo, hi, _ = wilson_interval(est, n_star, None, confidence_level=LEVEL)
    return float(lo), float(hi)


def one(metric: str, y, a, cond, rng: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    opts = {} if metric == "accuracy" else {"pos_label": 1}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = mlci.bootstrap_ci(y, a, metric=metric, conditions=cond, method="auto",
                              n_resamples=B, rng=rng, **opts)  # fmt: skip
    text = " ".join(str(w.message) for w in caught if issubclass(w.category, MlciWarning))
    out["auto"] = tuple(map(float, r.confidence_interval))
    out["auto_method"] = r.method
    out["warned"] = bool(text)
    for k, s in CLAUSES.items():
        out["w_" + k] = s in text
    out["estimate"] = float(r.estimate)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rb = mlci.bootstrap_ci(y, a, metric=metric, conditions=cond, method="bca",
                               n_resamples=B, rng=rng, **opts)  # fmt: skip
        out["bca"] = tuple(map(float, rb.confidence_interval))
        out["percentile"] = tuple(map(float, rb.interval(method="percentile").confidence_interval))
        for meth in ("korn_graubard", "logit_t", "wilson"):
            rr = mlci.bootstrap_ci(y, a, metric=metric, conditions=cond, method=meth,
                                   n_resamples=B, rng=rng, **opts)  # fmt: skip
            out[meth] = tuple(map(float, rr.confidence_interval))
        lin = linear_of(metric, y, a, cond)
    est = out["estimate"]
    if 0 < est < 1 and lin["effective_n"] is not None and float(lin["standard_error"]) > 0:
        out["wilson_trunc"] = wilson_truncated(est, lin)
    else:
        out["wilson_trunc"] = out["wilson"]
    out["se"] = float(lin["standard_error"])
    out["df"] = float(lin["df"])
    out["effective_n"] = math.nan if lin["effective_n"] is None else float(lin["effective_n"])
    out["design_effect"] = math.nan if lin["design_effect"] is None else float(lin["design_effect"])
    # the conditions holding the minority outcomes (errors near 1)
    den = {"accuracy": np.ones(len(y), bool), "recall": y == 1, "specificity": y == 0}[metric]
    wrong = (a != y) & den
    minority = wrong if est >= 0.5 else (~wrong & den)
    per = np.bincount(cond[minority], minlength=int(cond.max()) + 1)
    out["minority"] = int(minority.sum())
    out["minority_conditions"] = int(np.count_nonzero(per))
    out["minority_top_share"] = float(per.max() / per.sum()) if per.sum() else math.nan
    out["n_conditions"] = int(np.count_nonzero(np.bincount(cond[den])))
    return out


def run_cell(cell: tuple, reps: int, seed: int, checks: int = 2) -> dict[str, Any]:
    icc, C, p, n, unequal = cell
    g = np.random.default_rng([seed, 11, C, n, round(p * 1000), int(icc * 1000), unequal])
    rows: dict[str, list[dict[str, Any]]] = {m: [] for m in METRICS}
    for r in range(reps):
        y, a, cond, right = draw(icc, C, p, n, unequal, g)
        for metric in METRICS:
            rows[metric].append(one(metric, y, a, cond, rng=r))
        if r < checks:  # the proportion door: the mean of the 0/1 correctness
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rm = mlci.bootstrap_ci(right.astype(float), metric="mean", conditions=cond,
                                       n_resamples=B, rng=r)  # fmt: skip
            ci = tuple(map(float, rm.confidence_interval))
            acc = rows["accuracy"][-1]["auto"]
            assert np.allclose(ci, acc, rtol=0, atol=1e-12), (ci, acc)
            assert rm.method == rows["accuracy"][-1]["auto_method"]
    return {"cell": {"icc": icc, "conditions": C, "p": p, "n": n, "unequal": unequal},
            "rows": rows}  # fmt: skip


def covers(iv: tuple[float, float], p: float) -> bool:
    return bool(iv[0] <= p <= iv[1])


def summarise(res: dict[str, Any]) -> dict[str, Any]:
    cell, p = res["cell"], res["cell"]["p"]
    out: dict[str, Any] = {**cell, "metrics": {}}
    for metric, rows in res["rows"].items():
        s: dict[str, Any] = {"reps": len(rows)}
        for meth in METHODS:
            hits = [covers(r[meth], p) for r in rows]
            widths = [r[meth][1] - r[meth][0] for r in rows]
            s[meth] = {"coverage": float(np.mean(hits)), "median_width": float(np.median(widths))}
        hit = np.array([covers(r["auto"], p) for r in rows])
        warned = np.array([r["warned"] for r in rows])
        s["warned"] = float(warned.mean())
        s["warned_on_miss"] = float(warned[~hit].mean()) if (~hit).any() else None
        s["warned_on_cover"] = float(warned[hit].mean()) if hit.any() else None
        s["misses"] = int((~hit).sum())
        for k in CLAUSES:
            s["w_" + k] = float(np.mean([r["w_" + k] for r in rows]))
        methods: dict[str, int] = {}
        for r in rows:
            methods[r["auto_method"]] = methods.get(r["auto_method"], 0) + 1
        s["auto_methods"] = methods
        out["metrics"][metric] = s
    return out


def to_arrays(results: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Every test set as a row: the cell, the metric, each method's bounds, the flags."""
    cols: dict[str, list[Any]] = {}
    for res in results:
        for metric, rows in res["rows"].items():
            for r in rows:
                rec = {**{f"cell_{k}": v for k, v in res["cell"].items()}, "metric": metric}
                for k, v in r.items():
                    if isinstance(v, tuple):
                        rec[k + "_lo"], rec[k + "_hi"] = v
                    else:
                        rec[k] = v
                for k, v in rec.items():
                    cols.setdefault(k, []).append(v)
    return {k: np.asarray(v) for k, v in cols.items()}


def load(*paths: Path) -> dict[str, np.ndarray]:
    """The per-test-set arrays of one or more ``--npz`` runs, concatenated."""
    parts = [dict(np.load(p)) for p in paths]
    return {k: np.concatenate([q[k] for q in parts]) for k in parts[0]}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--part", default="0/1", help="I/K: every K-th cell from the I-th")
    ap.add_argument("--cells", default=None, help="comma-separated cell indices")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--npz", type=Path)
    ap.add_argument("--merge", nargs="+", type=Path, help="JSON parts to merge into --json")
    ap.add_argument("--table", type=Path, help="a merged JSON: markdown rows")
    ap.add_argument("--short", action="store_true", help="--table: the 13 short cells only")
    args = ap.parse_args(argv)
    if args.table:
        print(table(args.table, args.short))
        return
    if args.merge:
        parts = [json.loads(p.read_text()) for p in args.merge]
        cells = sorted((c for q in parts for c in q["cells"]), key=lambda c: c["index"])
        meta = parts[0]["meta"] | {"part": "merged"}
        assert args.json is not None
        args.json.write_text(json.dumps({"meta": meta, "cells": cells}, indent=1) + "\n")
        return
    i, k = (int(x) for x in args.part.split("/"))
    idx = list(range(len(CELLS)))[i::k]
    if args.cells:
        idx = [int(x) for x in args.cells.split(",")]
    results, summaries = [], []
    t0 = time.time()
    for j in idx:
        res = run_cell(CELLS[j], args.reps, args.seed)
        results.append(res)
        s = summarise(res) | {"index": j}
        summaries.append(s)
        acc = s["metrics"]["accuracy"]
        print(f"[{j} {time.time() - t0:.0f}s] {CELLS[j]} acc auto {acc['auto']['coverage']:.3f}"
              f" kg {acc['korn_graubard']['coverage']:.3f} bca {acc['bca']['coverage']:.3f}"
              f" warned {acc['warned']:.2f} miss-warned {acc['warned_on_miss']}",
              file=sys.stderr, flush=True)  # fmt: skip
        if args.json:
            meta = {"reps": args.reps, "seed": args.seed, "level": LEVEL, "B": B,
                    "prevalence": PREVALENCE, "part": args.part}  # fmt: skip
            args.json.write_text(json.dumps({"meta": meta, "cells": summaries}, indent=1) + "\n")
        if args.npz:
            np.savez_compressed(args.npz, **to_arrays(results))


def table(path: Path, short_only: bool = False) -> str:
    """Markdown rows of a merged JSON: per cell and metric, each method's coverage and
    auto's warnings (share warned, on its misses, on its covers)."""
    data = json.loads(path.read_text())
    lines = [
        "| ICC | C | n | p | sizes | metric | auto | BCa | pct | KG | logit t | Wilson | "
        "Wilson trunc | warned | on misses | on covers |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in data["cells"]:
        if short_only and c["index"] not in SHORT_CELLS:
            continue
        for metric, s in c["metrics"].items():
            cov = [f"{s[m]['coverage']:.3f}" for m in METHODS]
            miss = "—" if s["warned_on_miss"] is None else f"{s['warned_on_miss']:.2f}"
            hit = "—" if s["warned_on_cover"] is None else f"{s['warned_on_cover']:.2f}"
            lines.append(
                f"| {c['icc']:g} | {c['conditions']} | {c['n']} | {c['p']:g} | "
                f"{'unequal' if c['unequal'] else 'equal'} | {metric} | "
                + " | ".join(cov)
                + f" | {s['warned']:.2f} | {miss} | {hit} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
