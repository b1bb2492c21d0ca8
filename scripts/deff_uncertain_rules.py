"""Candidate clauses for proportions whose design effect is uncertain (session 12, deffrule).

Reads the per-test-set rows of ``scripts/deff_uncertain_study.py`` (``.npz``) and scores
candidate warning clauses on them: the share of ``auto``'s misses warned in the cells
where ``auto`` is short (below 0.935) and the share of test sets warned in the cells
where it holds, before (``auto``'s warnings as drawn) and with the clause added; and a
candidate *method* (Korn & Graubard's interval on a design effect from an upper
confidence bound of the between-condition variance) against BCa's median width.

The clause family: a proportion within 0.1 of its bound over at least 8 conditions warns
when its effective minority outcomes, ``min(p, 1 - p) n / deff_U``, fall below ``M``,
where ``deff_U = 1 + (deff - 1)_+ (K - 1) / chi2_{alpha, K - 1}`` reads the design
effect's between-condition part at its one-sided ``1 - alpha`` upper confidence bound
(``K`` conditions).  ``alpha = 1`` (factor 1) and ``M = 4`` is the clause ``auto`` has.

Usage::

    python scripts/deff_uncertain_rules.py /tmp/d0.npz /tmp/d1.npz \
        --after /tmp/a0.npz /tmp/a1.npz --json scripts/data/deff_uncertain_rules.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import beta, chi2
from scipy.stats import t as student_t

sys.path.insert(0, str(Path(__file__).resolve().parent))
from deff_uncertain_study import GRID, covers, load

HOLD = 0.935


def deff_upper(deff: np.ndarray, K: np.ndarray, alpha: float) -> np.ndarray:
    """The design effect with its between-condition part at its upper bound."""
    factor = (K - 1) / chi2.ppf(alpha, K - 1) if alpha < 1 else np.ones_like(deff)
    return 1.0 + np.maximum(np.nan_to_num(deff, nan=1.0) - 1.0, 0.0) * factor


def clause(d: dict[str, np.ndarray], alpha: float, M: float) -> np.ndarray:
    q = np.minimum(d["est"], 1 - d["est"])
    n = d["eff_n"] * d["deff"]
    minority = q * n / deff_upper(d["deff"], d["K"], alpha)
    return (d["K"] >= 8) & (q > 0) & (q < 0.1) & np.isfinite(d["deff"]) & (minority < M)


def engine_rule(d: dict[str, np.ndarray]) -> np.ndarray:
    """:func:`mlci.engine.deff_uncertain.uncertain_design_effect_rule` on every row (on
    ``auto``'s Korn & Graubard intervals, where the engine applies it)."""
    from mlci.engine.deff_uncertain import uncertain_design_effect_rule

    out = np.zeros(len(d["est"]), bool)
    for i in range(len(out)):
        diag = {"estimate": float(d["est"][i]), "design_effect": float(d["deff"][i]),
                "effective_n": float(d["eff_n"][i]), "n_conditions": int(d["K"][i])}  # fmt: skip
        out[i] = bool(d["auto_kg"][i]) and uncertain_design_effect_rule(diag)
    return out


def after_check(d: dict[str, np.ndarray], a: dict[str, np.ndarray]) -> dict[str, Any]:
    """The after-pass (``--auto-only`` on the same test sets with the clause in the
    engine) against the before rows: intervals identical, warnings = before or clause."""
    index = {(int(c), int(r)): i for i, (c, r) in enumerate(zip(d["cell"], d["rep"], strict=True))}
    take = np.array([index[(int(c), int(r))] for c, r in zip(a["cell"], a["rep"], strict=True)])
    d = {k: v[take] for k, v in d.items()}  # the before rows of the after-pass's test sets
    same = True
    rule = engine_rule(d)
    interval_same = (d["auto_lo"] == a["auto_lo"]) & (d["auto_hi"] == a["auto_hi"])
    return {
        "rows": len(rule),
        "same_test_sets": bool(same and np.array_equal(d["est"], a["est"])),
        "intervals_identical": int(interval_same.sum()),
        "warned_after_equals_before_or_clause": int(np.sum(a["warned"] == (d["warned"] | rule))),
        "clause_fires": int(rule.sum()),
        "clause_fires_unwarned_before": int((rule & ~d["warned"]).sum()),
        "w_deff_equals_clause": int(np.sum(a["w_deff"] == rule)),
        "s16_60_after": {
            "warned": float(a["warned"][a["cell"] == -1].mean()),
            "misses_warned": float(a["warned"][(a["cell"] == -1) & ~covers(a, "auto")].mean()),
        },
    }


def cells(d: dict[str, np.ndarray]) -> dict[int, dict[str, Any]]:
    out = {}
    cov = covers(d, "auto")
    for c in np.unique(d["cell"]):
        s = d["cell"] == c
        out[int(c)] = {
            "auto": float(cov[s].mean()),
            "bca": float(covers(d, "bca")[s].mean()),
            "pct": float(covers(d, "pct")[s].mean()),
            "reps": int(s.sum()),
            "warned": float(d["warned"][s].mean()),
            "width_auto_over_bca": float(
                np.median(d["auto_hi"][s] - d["auto_lo"][s])
                / max(float(np.median(d["bca_hi"][s] - d["bca_lo"][s])), 1e-300)
            ),
        }
    return out


def score(d: dict[str, np.ndarray], fires: np.ndarray) -> dict[str, Any]:
    cov = covers(d, "auto")
    per = cells(d)
    short = np.array([per[int(c)]["auto"] < HOLD for c in d["cell"]])
    big = d["K"] >= 8
    miss = short & ~cov & big
    hold = ~short & big
    before, after = d["warned"], d["warned"] | fires
    s60 = d["cell"] == -1
    return {
        "misses_in_short_cells": int(miss.sum()),
        "misses_warned_before": float(before[miss].mean()),
        "misses_warned_after": float(after[miss].mean()),
        "test_sets_where_auto_holds": int(hold.sum()),
        "warned_where_holds_before": float(before[hold].mean()),
        "warned_where_holds_after": float(after[hold].mean()),
        "s16_60_misses": int((s60 & ~cov).sum()),
        "s16_60_misses_warned_before": float(before[s60 & ~cov].mean()),
        "s16_60_misses_warned_after": float(after[s60 & ~cov].mean()),
        "s16_60_warned_after": float(after[s60].mean()),
        "s16_60_set30_fires": bool(fires[s60 & (d["rep"] == 30)].any()),
    }


def breakdown(d: dict[str, np.ndarray], fires: np.ndarray) -> dict[str, Any]:
    """By conditions and by ICC (grid cells over 8 or more conditions): misses warned in
    the short cells and test sets warned where ``auto`` holds, before and after; and on
    seed-16 #60 the coverage of the test sets left unwarned."""
    cov = covers(d, "auto")
    per = cells(d)
    short = np.array([per[int(c)]["auto"] < HOLD for c in d["cell"]])
    icc = np.array([GRID[c][1] if c >= 0 else math.nan for c in d["cell"]])
    after = d["warned"] | fires
    out: dict[str, Any] = {"by_conditions": {}, "by_icc": {}}
    grid = (d["cell"] >= 0) & (d["K"] >= 8)
    few = (d["K"] >= 8) & (d["K"] < 20)
    for key, sel in [("by_conditions", {**{k: d["K"] == k for k in (8, 10, 14, 20, 30)},
                                        "8-19": few, "8-30": d["K"] >= 8}),
                     ("by_icc", {i: icc == i for i in (0.0, 0.05, 0.15, 0.3)})]:  # fmt: skip
        for k, s in sel.items():
            m, h = grid & s & short & ~cov, grid & s & ~short
            out[key][str(k)] = {
                "short_cells": len({int(c) for c in d["cell"][grid & s & short]}),
                "cells": len({int(c) for c in d["cell"][grid & s]}),
                "misses": int(m.sum()),
                "misses_warned": [float(d["warned"][m].mean()), float(after[m].mean())],
                "held_test_sets": int(h.sum()),
                "held_warned": [float(d["warned"][h].mean()), float(after[h].mean())],
            }
    s60 = d["cell"] == -1
    q = np.minimum(d["est"], 1 - d["est"]) * d["eff_n"]
    u = s60 & ~cov & ~d["warned"] & d["auto_kg"].astype(bool)
    out["s16_60"] = {
        "auto": float(cov[s60].mean()),
        "bca": float(covers(d, "bca")[s60].mean()),
        "pct": float(covers(d, "pct")[s60].mean()),
        "warned": [float(d["warned"][s60].mean()), float(after[s60].mean())],
        "unwarned_cover": [
            [int(cov[s60 & ~d["warned"]].sum()), int((s60 & ~d["warned"]).sum())],
            [int(cov[s60 & ~after].sum()), int((s60 & ~after).sum())],
        ],
        "misses_above_truth": int((s60 & ~cov & (d["auto_lo"] > d["truth"])).sum()),
        # the near-bound clause's count on the unwarned misses of Korn & Graubard's
        "unwarned_kg_misses_minority_min_median_max": [
            float(f(q[u])) for f in (np.min, np.median, np.max)
        ],
        "median_deff": {
            "misses": float(np.median(d["deff"][s60 & ~cov])),
            "covers": float(np.median(d["deff"][s60 & cov])),
        },
    }
    return out


def kg_upper(d: dict[str, np.ndarray], alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Korn & Graubard's interval (Clopper-Pearson on n / deff_U, K - 1 df factor)."""
    p = d["est"]
    n = d["eff_n"] * d["deff"]
    n_star = n / np.maximum(deff_upper(d["deff"], d["K"], alpha), 1.0)
    z = 1.959963984540054
    n_star = n_star * (z / student_t.ppf(0.975, d["K"] - 1)) ** 2
    n_star = np.minimum(n_star, n)
    k = p * n_star
    with np.errstate(invalid="ignore"):
        lo = beta.ppf(0.025, k, n_star - k + 1)
        hi = beta.ppf(0.975, k + 1, n_star - k)
    return np.where(d["auto_kg"], lo, d["auto_lo"]), np.where(d["auto_kg"], hi, d["auto_hi"])


def method_table(d: dict[str, np.ndarray], alpha: float) -> dict[str, Any]:
    """The upper-bound Korn & Graubard interval in place of every ``auto`` Korn &
    Graubard interval over 8 or more conditions: per cell, and over those cells the short
    ones before and after and where BCa holds its width against BCa's."""
    d = {k: v[d["K"] >= 8] for k, v in d.items()}
    lo, hi = kg_upper(d, alpha)
    cov_new = (lo <= d["truth"]) & (d["truth"] <= hi)
    per = cells(d)
    rows = []
    for c, v in per.items():
        s = d["cell"] == c
        w_new = float(np.median(hi[s] - lo[s]))
        w_bca = float(np.median(d["bca_hi"][s] - d["bca_lo"][s]))
        rows.append({**v, "cell": c, "new": float(cov_new[s].mean()),
                     "width_new_over_bca": w_new / w_bca if w_bca > 0 else None})  # fmt: skip
    bca_holds = [r for r in rows if r["bca"] >= HOLD and r["width_new_over_bca"] is not None]
    summary = {
        "cells": len(rows),
        "short_before": sum(r["auto"] < HOLD for r in rows),
        "short_after": sum(r["new"] < HOLD for r in rows),
        "bca_holds_cells": len(bca_holds),
        "bca_holds_wider_than_1_5": sum(r["width_new_over_bca"] > 1.5 for r in bca_holds),
        "bca_holds_max_ratio": max(r["width_new_over_bca"] for r in bca_holds),
    }
    return {"alpha": alpha, "summary": summary, "cells": rows}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("npz", nargs="+", type=Path)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--after", nargs="*", type=Path, default=[])
    args = ap.parse_args(argv)
    d = load(*args.npz)
    res: dict[str, Any] = {"rules": []}
    for alpha in (1.0, 0.1, 0.05, 0.01):
        for M in (4, 5, 6, 8, 10):
            r = {"alpha": alpha, "M": M, **score(d, clause(d, alpha, M))}
            res["rules"].append(r)
            print(json.dumps(r))
    res["engine_rule"] = score(d, engine_rule(d))
    print("engine rule", json.dumps(res["engine_rule"]))
    res["breakdown"] = breakdown(d, engine_rule(d))
    print("breakdown", json.dumps(res["breakdown"], indent=1))
    if args.after:
        res["after"] = after_check(d, load(*args.after))
        print("after", json.dumps(res["after"]))
    res["methods"] = [method_table(d, a) for a in (0.05, 0.01)]
    for m in res["methods"]:
        print("method", m["alpha"], json.dumps(m["summary"]))
    res["grid"] = [list(g) for g in GRID]
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")


if __name__ == "__main__":
    main()
