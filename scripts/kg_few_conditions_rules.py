"""Candidate warnings for proportions over few conditions, read off the test sets of
``scripts/kg_few_conditions_study.py`` (session 11, kgfew).

The study's generator is replayed (the same seeds: the same test sets, checked by the
estimate) to compute what a rule can read from a test set without resampling: the
skewness ``gamma`` of the linearized estimate over the conditions
(:func:`mlci.engine.skewness.linearized_shape`; ``1 / gamma^2`` is an effective number
of conditions carrying its variation), the number of conditions, the design effect, the
effective minority outcomes.  Each candidate rule is scored on the study's per-test-set
rows (``--npz``): the share of ``auto``'s misses it warns in the cells where ``auto`` is
short (below 0.935), and the share of test sets it warns in the cells where ``auto``
holds, with and without the warnings ``auto`` gives already.

Usage::

    python scripts/kg_few_conditions_rules.py --npz /tmp/kgfew0.npz /tmp/kgfew1.npz \
        --json scripts/data/kg_few_conditions_rules.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kg_few_conditions_study as study

from mlci.engine.linearize import Linearization
from mlci.engine.resampling import make_plan
from mlci.engine.skewness import linearized_shape
from mlci.metrics import get_kernel

SHORT = 0.935


def replay(index: int, reps: int, seed: int = 0) -> dict[str, list[float]]:
    """The statistics of the study's first ``reps`` test sets of cell ``index``."""
    icc, C, p, n, unequal = study.CELLS[index]
    g = np.random.default_rng([seed, 11, C, n, round(p * 1000), int(icc * 1000), unequal])
    out: dict[str, list[float]] = {}
    for _ in range(reps):
        y, a, cond, _right = study.draw(icc, C, p, n, unequal, g)
        for metric in study.METRICS:
            opts = {} if metric == "accuracy" else {"pos_label": 1}
            kernel = get_kernel(metric, (y, a), opts)
            lin = Linearization(kernel, make_plan(len(y), conditions=cond))
            gamma, _ = linearized_shape(lin)
            est = lin.estimate()
            counts = np.bincount(kernel.keys, minlength=kernel.m).astype(float)
            value = float(kernel.evaluate(counts[None])[0])
            out.setdefault(metric + ":gamma", []).append(float(gamma))
            out.setdefault(metric + ":estimate", []).append(value)
            out.setdefault(metric + ":design_effect", []).append(
                float(est.design_effect) if est.design_effect is not None else np.nan
            )
    return out


def attach(d: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The study's rows with ``gamma`` replayed (rows in the study's order per cell)."""
    gamma = np.full(len(d["metric"]), np.nan)
    cells = {tuple(c) for c in zip(*(d["cell_" + k] for k in study_keys()), strict=True)}
    for cell in cells:
        index = study.CELLS.index(tuple(x.item() for x in cell))
        sel = np.ones(len(gamma), bool)
        for k, v in zip(study_keys(), cell, strict=True):
            sel &= d["cell_" + k] == v
        reps = int(np.sum(sel & (d["metric"] == "accuracy")))
        rep = replay(index, reps)
        for metric in study.METRICS:
            rows = np.flatnonzero(sel & (d["metric"] == metric))
            est = np.asarray(rep[metric + ":estimate"])
            assert np.allclose(est, d["estimate"][rows], atol=1e-12), (cell, metric)
            gamma[rows] = rep[metric + ":gamma"]
    return d | {"gamma": gamma}


def study_keys() -> tuple[str, ...]:
    return ("icc", "conditions", "p", "n", "unequal")


def score(d: dict[str, np.ndarray], fires: np.ndarray) -> dict[str, Any]:
    """A rule's hit rate on auto's misses in the short cells and its alarm rate in the
    cells where auto holds (metric-cells: a cell and one of the three metrics)."""
    p = d["cell_p"]
    hit = (d["auto_lo"] <= p) & (p <= d["auto_hi"])
    groups: dict[tuple, np.ndarray] = {}
    for i, key in enumerate(zip(*(d["cell_" + k] for k in study_keys()), d["metric"], strict=True)):
        groups.setdefault(key, []).append(i)  # type: ignore[arg-type]
    short_miss = short_all = hold_all = 0
    short_miss_w = short_all_w = hold_w = 0
    for rows in groups.values():
        rows = np.asarray(rows)
        cov = hit[rows].mean()
        if cov < SHORT:
            miss = rows[~hit[rows]]
            short_miss += len(miss)
            short_miss_w += int(fires[miss].sum())
            short_all += len(rows)
            short_all_w += int(fires[rows].sum())
        else:
            hold_all += len(rows)
            hold_w += int(fires[rows].sum())
    return {
        "short_misses": short_miss,
        "warned_on_short_misses": short_miss_w / max(short_miss, 1),
        "warned_in_short_cells": short_all_w / max(short_all, 1),
        "holding_test_sets": hold_all,
        "warned_in_holding_cells": hold_w / max(hold_all, 1),
    }


def auto_after(d: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """``auto`` after session 11 on the study's test sets: over fewer than 8 conditions,
    within 0.1 of the bound (not on it) with a standard error above 0, the union of the
    named Korn & Graubard interval (already widened for few minority outcomes) and the
    logit t; elsewhere as before."""
    est = d["estimate"]
    edge = np.minimum(est, 1 - est)
    use = (d["n_conditions"] < 8) & (edge > 0) & (edge < 0.1) & (d["se"] > 0)
    lo = np.where(use, np.minimum(d["korn_graubard_lo"], d["logit_t_lo"]), d["auto_lo"])
    hi = np.where(use, np.maximum(d["korn_graubard_hi"], d["logit_t_hi"]), d["auto_hi"])
    return lo, hi


def cells_table(d: dict[str, np.ndarray], only: set[int] | None = None) -> str:
    """Markdown rows: per cell, each metric's auto before and after, BCa, percentile,
    the named KG, the logit t, and auto's warnings (share warned, on its misses)."""
    p = d["cell_p"]
    lo, hi = auto_after(d)
    cov = {m: (d[m + "_lo"] <= p) & (p <= d[m + "_hi"]) for m in study.METHODS}
    cov["after"] = (lo <= p) & (p <= hi)
    width = {"auto": d["auto_hi"] - d["auto_lo"], "after": hi - lo}
    lines = [
        "| C | n | p | sizes | metric | test sets | auto before | **auto now** | width now/before "
        "| BCa | pct | KG named | logit t | warned | warned on auto's misses |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    keys = sorted(set(zip(*(d["cell_" + k] for k in study_keys()), d["metric"], strict=True)))
    for key in keys:
        cell = tuple(x.item() for x in key[:5])
        if only is not None and study.CELLS.index(cell) not in only:
            continue
        sel = d["metric"] == key[5]
        for k, v in zip(study_keys(), key[:5], strict=True):
            sel &= d["cell_" + k] == v
        miss = sel & ~cov["after"]
        ratio = np.median(width["after"][sel]) / max(np.median(width["auto"][sel]), 1e-300)
        lines.append(
            f"| {cell[1]} | {cell[3]} | {cell[2]:g} | {'unequal' if cell[4] else 'equal'} | "
            f"{key[5]} | {int(sel.sum())} | {cov['auto'][sel].mean():.3f} | "
            f"**{cov['after'][sel].mean():.3f}** | {ratio:.2f} | {cov['bca'][sel].mean():.3f} | "
            f"{cov['percentile'][sel].mean():.3f} | {cov['korn_graubard'][sel].mean():.3f} | "
            f"{cov['logit_t'][sel].mean():.3f} | {d['warned'][sel].mean():.2f} | "
            + ("—" if not miss.any() else f"{d['warned'][miss].mean():.2f}")
            + " |"
        )
    return "\n".join(lines)


def warn_rates(d: dict[str, np.ndarray]) -> dict[str, Any]:
    """auto's (after) warnings: in the metric-cells where it is short (below 0.935), the
    share of its misses warned; in those where it holds, the share of test sets warned;
    over fewer than 8 conditions and over 8 or more."""
    lo, hi = auto_after(d)
    d2 = d | {"auto_lo": lo, "auto_hi": hi}
    out = {}
    for name, sel in (("below 8", d["n_conditions"] < 8), ("8 or more", d["n_conditions"] >= 8)):
        sub = {k: v[sel] for k, v in d2.items()}
        out[name] = score(sub, sub["warned"].astype(bool))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--npz", nargs="+", type=Path, required=True)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--save", type=Path, help="the rows with gamma, as .npz")
    ap.add_argument("--table", action="store_true", help="markdown: the cells, the warnings")
    args = ap.parse_args(argv)
    if args.table:
        d = study.load(*args.npz)
        print(cells_table(d, set(study.SHORT_CELLS)))
        print()
        print(cells_table(d, set(range(len(study.CELLS))) - set(study.SHORT_CELLS)))
        print()
        print(json.dumps(warn_rates(d), indent=1))
        if args.json:
            args.json.write_text(json.dumps({"warnings_after": warn_rates(d)}, indent=1) + "\n")
        return
    d = attach(study.load(*args.npz))
    if args.save:
        np.savez_compressed(args.save, **d)
    # over 8 or more conditions (below, every result warns already)
    d = {k: v[d["n_conditions"] >= 8] for k, v in d.items()}
    current = d["warned"].astype(bool)
    est, cond = d["estimate"], d["n_conditions"]
    near = (np.minimum(est, 1 - est) > 0) & (np.minimum(est, 1 - est) < 0.1)
    deff = np.nan_to_num(d["design_effect"], nan=1.0)
    g2 = np.where(np.isfinite(d["gamma"]), 1 / np.maximum(d["gamma"] ** 2, 1e-12), np.inf)
    rules: dict[str, np.ndarray] = {"auto's warnings now": current}
    for k in (4, 6, 8, 10, 15):
        rules[f"1/gamma^2 < {k} alone"] = g2 < k
        rules[f"now or (8-29 conditions, 1/gamma^2 < {k})"] = current | ((g2 < k) & (cond < 30))
    for k in (2, 3, 4, 5, 6):
        rules[f"now or (8-29 conditions, near the bound, design effect >= {k})"] = current | (
            (cond < 30) & near & (deff >= k)
        )
    out = {name: score(d, np.asarray(f, bool)) for name, f in rules.items()}
    for name, sc in out.items():
        print(f"{name:62s} " + " ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                                        for k, v in sc.items()))  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
