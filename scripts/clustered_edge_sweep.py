"""A proportion, and balanced accuracy's classes, over conditions near the bound.

Two sweeps over the design search's populations (:class:`design_search.Population`:
condition effects drawn per test set from a Beta with the design's ICC, condition sizes
equal or log-normal; ``scripts/design_search.py``):

``--part proportion``: accuracy over 5-500 conditions (ICC 0-0.5, equal or unequal
sizes), population accuracy 0.9-0.999, n 30-5,000 (at least 2 per condition); on every
test set the intervals of the same estimate and CR2 standard error: ``logit_t`` (the
engine's ``auto`` before this sweep), ``korn_graubard`` (Clopper-Pearson on the effective
sample size, Korn & Graubard 1998; R survey's ``svyciprop(method = "beta")`` with the
engine's df), ``survey_logit`` (R survey's ``svyciprop(method = "logit")``: the logit
interval with the CR1 standard error and conditions - 1 df, ``variant="survey"``), BCa,
and ``rule``: Korn & Graubard's where the estimate lies within 0.1 of 0 or 1 (not on it),
else the logit t (:func:`mlci.engine.clustered_edge.clustered_proportion_method`).

``--part balanced``: balanced accuracy over 10-200 conditions (ICC 0-0.5), prevalence
0.05-0.5, n 100-5,000, with 0.5-4 expected errors in the positive class and 3-15% in the
negative one; ``auto``, BCa, the percentile interval and MOVER (Zou & Donner 2008) of the
two classes' own clustered intervals: ``mover_kg`` (each rate's Korn & Graubard interval
over the conditions, the engine's ``method="korn_graubard"`` of recall and specificity,
the exact interval of the nominal size for a class without an error), ``mover_kg_r``
(the same with the CR2 correlation of the two rates) and ``mover_wilson`` (the iid rule:
modified Wilson of each class's counts, ignoring the conditions).

Coverage of the 95% intervals (the population value), median width over BCa's, the share
of test sets warned by ``auto``, and for ``balanced`` coverage by the rare class's error
count in the test set.

Usage::

    nice python scripts/clustered_edge_sweep.py --part proportion --reps 300 --json p.json
    nice python scripts/clustered_edge_sweep.py --part balanced --reps 300 --json b.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
import design_search as ds

import mlci
from mlci.engine.clustered_edge import clustered_proportion_method

PROPORTION_METHODS = ("auto", "logit_t", "korn_graubard", "survey_logit", "bca", "rule")
BALANCED_METHODS = ("auto", "bca", "percentile", "mover_kg", "mover_kg_r", "mover_wilson")


def proportion_designs(n_designs: int = 48, seed: int = 0) -> list[ds.Design]:
    """Accuracy over conditions near 1 (module doc); the same designs on every run."""
    g = np.random.default_rng([seed, 31])
    out = []
    for i in range(n_designs):
        C = int(g.choice([5, 8, 12, 20, 50, 150, 500]))
        n = round(math.exp(g.uniform(math.log(max(30, 2 * C)), math.log(5000))))
        p = float(g.choice([0.9, 0.95, 0.98, 0.99, 0.995, 0.999]))
        icc = float(g.choice([0.0, 0.1, 0.3, 0.5]))
        out.append(ds.Design(7000 + i, "decision", "accuracy", n, 0.3, 1 - p, 1.0, C, icc,
                             bool(g.random() < 0.5), apportion=True))  # fmt: skip
    return out


def balanced_designs(n_designs: int = 32, seed: int = 0) -> list[ds.Design]:
    """Balanced accuracy over conditions with few errors in the positive class."""
    g = np.random.default_rng([seed, 32])
    out = []
    for i in range(n_designs):
        C = int(g.choice([10, 20, 50, 100, 200]))
        n = round(math.exp(g.uniform(math.log(max(100, 3 * C)), math.log(5000))))
        pi = float(math.exp(g.uniform(math.log(0.05), math.log(0.5))))
        e_pos = float(g.choice([0.5, 1.0, 2.0, 3.0, 4.0]))
        fnr = min(e_pos / (n * pi), 0.5)
        fpr = float(g.uniform(0.03, 0.15))
        err = pi * fnr + (1 - pi) * fpr
        out.append(ds.Design(8000 + i, "decision", "balanced_accuracy", n, pi, err,
                             math.sqrt(fnr / fpr), C, float(g.choice([0.0, 0.1, 0.3, 0.5])),
                             bool(g.random() < 0.5), apportion=True))  # fmt: skip
    return out


def _ci(res: Any) -> tuple[float, float]:
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def proportion_test_set(x: dict[str, Any], seed: int, B: int) -> dict[str, Any]:
    y, a, cond = x["y"], x["a"], x["conditions"]
    common = {"n_resamples": B, "rng": seed, "conditions": cond, "metric": "accuracy"}
    out: dict[str, Any] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auto = mlci.bootstrap_ci(y, a, **common)
    out["warned"] = any(issubclass(w.category, mlci.MlciWarning) for w in caught)
    out["auto"], out["auto_method"] = _ci(auto), auto.method
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lt = mlci.bootstrap_ci(y, a, method="logit_t", **common)
        out["logit_t"] = _ci(lt)
        out["survey_logit"] = _ci(lt.interval(variant="survey"))
        out["korn_graubard"] = _ci(mlci.bootstrap_ci(y, a, method="korn_graubard", **common))
        out["bca"] = _ci(mlci.bootstrap_ci(y, a, method="bca", **common))
    est = float(np.mean(y == a))
    out["rule"] = out[clustered_proportion_method(est)]
    out["near"] = clustered_proportion_method(est) == "korn_graubard"
    return out


def _class_rates(y: np.ndarray, a: np.ndarray, cond: np.ndarray) -> float:
    """The CR2 correlation of the specificity and the recall over the conditions."""
    N = len(y)
    G = int(cond.max()) + 1
    h = np.bincount(cond, minlength=G) / N
    z = []
    for cls in (0, 1):
        m = y == cls
        r = np.mean(a[m] == cls)
        z.append(np.bincount(cond[m], (a[m] == cls) - r, minlength=G) / m.sum())
    w = 1.0 / np.where(h < 1, 1 - h, 1.0)
    v0, v1, c = np.sum(z[0] ** 2 * w), np.sum(z[1] ** 2 * w), np.sum(z[0] * z[1] * w)
    return float(c / math.sqrt(v0 * v1)) if v0 > 0 and v1 > 0 else 0.0


def _mover_sum(est: np.ndarray, lo: np.ndarray, hi: np.ndarray, r: float) -> tuple[float, float]:
    """MOVER of the mean of two rates (Zou & Donner 2008, eq. 3 with a sum)."""
    dl, du = est - lo, hi - est
    low = est.mean() - 0.5 * math.sqrt(max(dl @ dl + 2 * r * dl[0] * dl[1], 0.0))
    high = est.mean() + 0.5 * math.sqrt(max(du @ du + 2 * r * du[0] * du[1], 0.0))
    return max(low, 0.0), min(high, 1.0)


def balanced_test_set(x: dict[str, Any], seed: int, B: int) -> dict[str, Any]:
    y, a, cond = x["y"], x["a"], x["conditions"]
    common = {"n_resamples": B, "rng": seed, "conditions": cond}
    out: dict[str, Any] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auto = mlci.bootstrap_ci(y, a, metric="balanced_accuracy", **common)
    out["warned"] = any(issubclass(w.category, mlci.MlciWarning) for w in caught)
    out["auto"], out["auto_method"] = _ci(auto), auto.method
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bca = mlci.bootstrap_ci(y, a, metric="balanced_accuracy", method="bca", **common)
        out["bca"], out["percentile"] = _ci(bca), _ci(bca.interval(method="percentile"))
        est, lo, hi = np.empty(2), np.empty(2), np.empty(2)
        for i, metric in enumerate(("specificity", "recall")):
            r = mlci.bootstrap_ci(y, a, metric=metric, method="korn_graubard", **common)
            est[i], (lo[i], hi[i]) = r.estimate, _ci(r)
    out["mover_kg"] = _mover_sum(est, lo, hi, 0.0)
    out["mover_kg_r"] = _mover_sum(est, lo, hi, _class_rates(y, a, cond))
    k = np.array([np.sum((a == 0) & (y == 0)), np.sum((a == 1) & (y == 1))])
    m = np.array([np.sum(y == 0), np.sum(y == 1)])
    ci = mlci.proportion_ci(k, m, method="wilson_modified").confidence_interval
    out["mover_wilson"] = _mover_sum(k / m, np.asarray(ci[0]), np.asarray(ci[1]), 0.0)
    out["misses"] = int(np.sum((y == 1) & (a == 0)))
    out["other_errors"] = int(np.sum((y == 0) & (a == 1)))
    return out


def run_cell(d: ds.Design, reps: int, B: int, part: str) -> dict[str, Any]:
    pop = ds.Population(d)
    one = proportion_test_set if part == "proportion" else balanced_test_set
    methods = PROPORTION_METHODS if part == "proportion" else BALANCED_METHODS
    rows = []
    t0 = time.process_time()
    for i in range(reps):
        g = np.random.default_rng([1, d.index, i])
        x = pop.draw(g)
        if part == "balanced" and (x["y"].min() == x["y"].max()):
            continue  # one class only: balanced accuracy undefined
        try:
            rows.append(one(x, int(g.integers(2**31)), B))
        except ds.REFUSALS:
            continue
    res: dict[str, Any] = {"label": d.label(), "truth": pop.truth, "reps": len(rows)}
    bca_w = float(np.median([r["bca"][1] - r["bca"][0] for r in rows]))
    for m in methods:
        cov = np.array([r[m][0] <= pop.truth <= r[m][1] for r in rows])
        width = float(np.median([r[m][1] - r[m][0] for r in rows]))
        res[m] = {"coverage": round(float(cov.mean()), 4),
                  "width_ratio": round(width / bca_w, 3) if bca_w > 0 else None}  # fmt: skip
        if part == "balanced":
            by = {}
            for k in (0, 1, 2, 3, 4):  # 4: four or more
                sel = [c for c, r in zip(cov, rows, strict=True) if min(r["misses"], 4) == k]
                if sel:
                    by[k] = (round(float(np.mean(sel)), 3), len(sel))
            res[m]["by_misses"] = by
    res["warned"] = round(float(np.mean([r["warned"] for r in rows])), 3)
    res["auto_methods"] = {
        k: sum(r["auto_method"] == k for r in rows) for k in {r["auto_method"] for r in rows}
    }
    if part == "proportion":
        res["near"] = round(float(np.mean([r["near"] for r in rows])), 3)
    res["cpu_s"] = round(time.process_time() - t0, 1)
    return res


def auto_hits(d: ds.Design, reps: int, level: float = 0.95, B: int = 400) -> tuple[int, int]:
    """``(covered, test sets)`` of ``auto`` alone at ``level`` on ``reps`` test sets of
    ``d`` (the sweep's draws; tests/engine/test_class_edge_clustered.py)."""
    pop = ds.Population(d)
    metric = d.metric
    hits = n = 0
    for i in range(reps):
        g = np.random.default_rng([1, d.index, i])
        x = pop.draw(g)
        if metric == "balanced_accuracy" and x["y"].min() == x["y"].max():
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                r = mlci.bootstrap_ci(x["y"], x["a"], metric=metric, conditions=x["conditions"],
                                      n_resamples=B, rng=int(g.integers(2**31)),
                                      confidence_level=level)  # fmt: skip
            except ds.REFUSALS:
                continue
        hits += bool(r.confidence_interval.low <= pop.truth <= r.confidence_interval.high)
        n += 1
    return hits, n


def markdown(before: str, after: str | None = None) -> str:
    """The per-cell table of docs/validation.md from a run's JSON (``before``) and, if
    given, the run after the rule was wired (``after``: its ``auto`` column)."""
    rows = json.loads(Path(before).read_text())
    new = {r["label"]: r for r in json.loads(Path(after).read_text())} if after else {}
    balanced = "mover_kg" in rows[0]
    cols = ("auto", "bca", "mover_kg", "mover_wilson") if balanced else (
        "logit_t", "korn_graubard", "survey_logit", "bca")  # fmt: skip
    head = ["design", *cols, "auto after" if new else "rule", "width/BCa before, after",
            "warned before → after"]  # fmt: skip
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        a = new.get(r["label"], {}).get("auto") if new else r.get("rule", r["auto"])
        warned = f"{r['warned']:.2f}"
        if r["label"] in new:
            warned += f" → {new[r['label']]['warned']:.2f}"
        first = r["auto"] if balanced else r["logit_t"]
        cells = [f"{r[m]['coverage']:.3f}" for m in cols]
        after_cov = f"**{a['coverage']:.3f}**" if a else "·"
        w = f"{first['width_ratio']}, {a['width_ratio']}" if a else ""
        label = r["label"].split(" ", 1)[1].replace(" asym=1.00", "").replace(" prev=0.3", "")
        out.append(f"| {label} | " + " | ".join(cells) + f" | {after_cov} | {w} | "
                   f"{warned} |")  # fmt: skip
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", choices=("proportion", "balanced"), default="proportion")
    p.add_argument("--reps", type=int, default=300)
    p.add_argument("--resamples", type=int, default=500)
    p.add_argument("--designs", type=int, default=None, help="how many designs (default all)")
    p.add_argument("--json", default=None)
    p.add_argument("--markdown", nargs="+", metavar="JSON", help="print the table of runs")
    args = p.parse_args(argv)
    if args.markdown:
        print(markdown(*args.markdown))
        return
    mlci.set_config(n_jobs=1)
    designs = proportion_designs() if args.part == "proportion" else balanced_designs()
    results = []
    for d in designs[: args.designs]:
        res = run_cell(d, args.reps, args.resamples, args.part)
        results.append(res)
        print(json.dumps(res), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
