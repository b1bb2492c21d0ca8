"""A class's own few errors: coverage of every interval where one class has 0-3 misses.

The seed-9 design search's #80 (balanced accuracy, 3 expected misses in 98 positives of
2,222, 11 false alarms among the negatives) and its neighbour (2 misses in 100 positives
of 1,000): the overall error count is 12-14, so no resample is free of errors and the
near-bound rule (an infinite t*) never fires, but resamples without a miss in the rare
class have a standard error from the other class alone, and their t* is far out: the
studentized lower end falls far below BCa's.  This sweep draws such designs (the design
search's populations, :class:`design_search.Population`) for balanced accuracy, F1, MCC,
kappa and recall, iid and over 50 conditions (ICC 0.1), with 1-6 expected misses in 100
positives and about 10 false alarms in 900 negatives, and reports for ``auto``, BCa,
the percentile interval, Korn & Graubard's interval on the effective sample size
(``method="korn_graubard"``) and, for balanced accuracy of independent samples, MOVER
(Newcombe 1998, Zou & Donner 2008) of the two classes' modified Wilson intervals: the
coverage, the median width relative to BCa's, and the coverage by the rare class's own
miss count in the test set.

``--dominant`` runs the second study of that section: the seed-9 search's #149
(precision over 462 conditions, one of 329 samples) and variants, with the logit t
interval at Imbens & Kolesar's df (computed here from the test set, without the engine's
floor), at Kish's, and with the floor at 2, 3 and 4 (Kish's below it).

Usage::

    nice python scripts/class_edge_sweep.py --reps 120 --resamples 400
    nice python scripts/class_edge_sweep.py --only balanced_accuracy --reps 300
    nice python scripts/class_edge_sweep.py --dominant --reps 300
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

METHODS = ("auto", "bca", "percentile", "korn_graubard", "mover_wilson", "rule")
#: the rule tried: MOVER-Wilson where the rare class has at most this many misses and the
#: other class more (balanced accuracy of independent samples), else ``auto``
RULE_MISSES = 3


def mover_wilson(y: np.ndarray, a: np.ndarray) -> tuple[float, float] | None:
    """Balanced accuracy's MOVER interval (Zou & Donner 2008) of the two classes' modified
    Wilson intervals: ``(r + s) / 2`` with ``L = est - sqrt((r - l_r)^2 + (s - l_s)^2) / 2``
    and ``U`` likewise (independent classes, each a proportion of its own count)."""
    pos, neg = y == 1, y == 0
    if not pos.any() or not neg.any():
        return None
    k = np.array([np.sum(a[pos] == 1), np.sum(a[neg] == 0)])
    n = np.array([pos.sum(), neg.sum()])
    ci = mlci.proportion_ci(k, n, method="wilson_modified").confidence_interval
    r = k / n
    lo, hi = np.asarray(ci[0]), np.asarray(ci[1])
    est = r.mean()
    return (
        float(est - 0.5 * math.sqrt(np.sum((r - lo) ** 2))),
        float(est + 0.5 * math.sqrt(np.sum((hi - r) ** 2))),
    )


def one_test_set(d: ds.Design, x: dict[str, Any], seed: int, B: int) -> dict[str, Any]:
    y, a, cond = x["y"], x["a"], x["conditions"]
    common = {"n_resamples": B, "rng": seed, "conditions": cond}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auto = mlci.bootstrap_ci(y, a, metric=d.metric, **common)
    out: dict[str, Any] = {
        "warned": any(issubclass(w.category, mlci.MlciWarning) for w in caught),
        "auto_method": auto.method,
        "auto": tuple(map(float, auto.confidence_interval)),
    }
    small = 1 if y.mean() <= 0.5 else 0
    out["misses"] = int(np.sum((y == small) & (a != small)))
    out["other_errors"] = int(np.sum((y != small) & (a == small)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bca = mlci.bootstrap_ci(y, a, metric=d.metric, method="bca", **common)
        out["bca"] = tuple(map(float, bca.confidence_interval))
        out["percentile"] = tuple(map(float, bca.interval(method="percentile").confidence_interval))
        try:
            kg = mlci.bootstrap_ci(y, a, metric=d.metric, method="korn_graubard", **common)
            out["korn_graubard"] = tuple(map(float, kg.confidence_interval))
        except ValueError:
            pass
    if d.metric == "balanced_accuracy" and cond is None:
        mw = mover_wilson(y, a)
        if mw is not None:
            out["mover_wilson"] = mw
    own = min(out["misses"], out["other_errors"])
    fewer = out["misses"] if out["misses"] <= out["other_errors"] else out["other_errors"]
    use = "mover_wilson" in out and own <= RULE_MISSES < max(out["misses"], out["other_errors"])
    out["rule"] = out["mover_wilson"] if use else out["auto"]
    out["fewer_class_errors"] = fewer
    return out


def run_cell(d: ds.Design, reps: int, B: int) -> dict[str, Any]:
    pop = ds.Population(d)
    rows = []
    t0 = time.process_time()
    for i in range(reps):
        g = np.random.default_rng([0, d.index, i])
        x = pop.draw(g)
        try:
            rows.append(one_test_set(d, x, int(g.integers(2**31)), B))
        except ds.REFUSALS:
            continue
    res: dict[str, Any] = {"label": d.label(), "truth": pop.truth, "reps": len(rows)}
    bca_w = np.median([r["bca"][1] - r["bca"][0] for r in rows])
    for m in METHODS:
        have = [r for r in rows if m in r and all(np.isfinite(r[m]))]
        if not have:
            continue
        cov = np.array([r[m][0] <= pop.truth <= r[m][1] for r in have])
        width = np.median([r[m][1] - r[m][0] for r in have])
        by = {}
        for k in (0, 1, 2, 3, 4):  # 4: four or more
            sel = [c for c, r in zip(cov, have, strict=True) if min(r["misses"], 4) == k]
            if sel:
                by[k] = (round(float(np.mean(sel)), 3), len(sel))
        res[m] = {
            "coverage": round(float(cov.mean()), 3),
            "width_ratio": round(float(width / bca_w), 2) if bca_w > 0 else None,
            "by_misses": by,
        }
    res["warned"] = int(sum(r["warned"] for r in rows))
    res["auto_methods"] = {
        k: sum(r["auto_method"] == k for r in rows) for k in {r["auto_method"] for r in rows}
    }
    res["cpu_s"] = round(time.process_time() - t0, 1)
    return res


def designs(only: str | None) -> list[ds.Design]:
    out = []
    idx = 5000
    metrics = ("balanced_accuracy", "f1", "mcc", "recall")
    for metric in metrics:
        if only and metric != only:
            continue
        for n_cond, icc in ((0, 0.0), (50, 0.1)):
            for fnr in (0.01, 0.02, 0.03, 0.06):
                pi, fpr = 0.1, 0.011
                err = pi * fnr + (1 - pi) * fpr
                out.append(
                    ds.Design(idx, "decision", metric, 1000, pi, err, math.sqrt(fnr / fpr),
                              n_cond, icc, False, apportion=True)
                )  # fmt: skip
                idx += 1
    if not only or only == "balanced_accuracy":
        # (n, prevalence, fnr, fpr, conditions): fewer positives, more of them, the rare
        # class negative, a larger n, both classes with few errors; over 20-100 conditions
        for n, pi, fnr, fpr, n_cond in VARIANTS:
            err = pi * fnr + (1 - pi) * fpr
            out.append(
                ds.Design(idx, "decision", "balanced_accuracy", n, pi, err,
                          math.sqrt(fnr / fpr), n_cond, 0.1 if n_cond else 0.0, False,
                          apportion=True)
            )  # fmt: skip
            idx += 1
        out.append(ds.CELLS["balanced_accuracy 3 misses in 98 positives of 2222"])
        out.append(ds.CELLS["balanced_accuracy 2 misses in 100 positives"])
    return out


VARIANTS = (
    (400, 0.1, 0.02, 0.03, 0),
    (400, 0.1, 0.05, 0.03, 0),
    (300, 0.3, 0.01, 0.05, 0),
    (1000, 0.9, 0.011, 0.02, 0),
    (5000, 0.02, 0.02, 0.003, 0),
    (1000, 0.1, 0.02, 0.003, 0),
    (200, 0.25, 0.02, 0.1, 0),
    (2000, 0.1, 0.02, 0.011, 100),
    (1000, 0.1, 0.02, 0.011, 20),
    # a few errors in the whole test set (the near-bound designs): both classes few
    (100, 0.3, 0.01, 0.01, 0),
    (200, 0.5, 0.01, 0.01, 0),
    (300, 0.3, 0.01, 0.005, 0),
    (500, 0.2, 0.01, 0.004, 0),
    (1000, 0.1, 0.02, 0.003, 0),
)


def dominant_condition(reps: int, B: int) -> list[dict[str, Any]]:
    """Seed-9 #149 and variants: coverage and median width (times BCa's) of the logit t
    interval at each df rule, and of BCa and the percentile interval."""
    import dataclasses

    from scipy import stats
    from scipy.special import expit, logit

    from mlci.engine.linearize import icc_anova, random_effects_df

    d0 = ds.CELLS["precision over 462 conditions, one of 329"]
    cells = {
        "#149 (461 x 5 + 329)": d0,
        "#149 sizes apportioned": dataclasses.replace(d0, apportion=True),
        "#149 unequal sizes": dataclasses.replace(d0, unequal=True),
        "#149 at ICC 0.1": dataclasses.replace(d0, icc=0.1),
    }
    out = []
    for name, d in cells.items():
        pop = ds.Population(d)
        rows = []
        for i in range(reps):
            g = np.random.default_rng([0, d.index, i])
            x = pop.draw(g)
            y, a, cond = x["y"], x["a"], x["conditions"]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    r = mlci.bootstrap_ci(y, a, metric=d.metric, conditions=cond,
                                          n_resamples=B, rng=int(g.integers(2**31)))  # fmt: skip
                    b = mlci.bootstrap_ci(y, a, metric=d.metric, conditions=cond,
                                          n_resamples=B, rng=1, method="bca")  # fmt: skip
                except ds.REFUSALS:
                    continue
            est, se = float(r.estimate), r.details["linearized"]["standard_error"]
            k = np.bincount(cond, weights=(a == 1) & (y == 1))
            n = np.bincount(cond, weights=a == 1)
            ik = random_effects_df(n[n > 0], icc_anova(k[n > 0], n[n > 0]))
            sizes = np.bincount(cond).astype(float)
            kish = sizes.sum() ** 2 / np.sum(sizes**2) - 1
            row = {"ik": ik, "bca": b.confidence_interval,
                   "percentile": b.interval(method="percentile").confidence_interval}  # fmt: skip
            rules = {"ik": min(ik, kish), "kish": kish}
            rules |= {f"floor{f}": kish if ik < f else min(ik, kish) for f in (2, 3, 4)}
            for rule, df in rules.items():
                q, s_phi = stats.t.ppf(0.975, max(df, 1.0)), se / (est * (1 - est))
                row[f"logit_t {rule}"] = (expit(logit(est) - q * s_phi),
                                          expit(logit(est) + q * s_phi))  # fmt: skip
            rows.append(row)
        bw = np.median([r["bca"][1] - r["bca"][0] for r in rows])
        low = np.array([r["ik"] < 2 for r in rows])
        res: dict[str, Any] = {"cell": name, "reps": len(rows), "ik_below_2": int(low.sum())}
        for m in [k for k in rows[0] if k != "ik"]:
            cov = np.array([r[m][0] <= pop.truth <= r[m][1] for r in rows])
            res[m] = {
                "coverage": round(float(cov.mean()), 3),
                "coverage_ik_below_2": round(float(cov[low].mean()), 3) if low.any() else None,
                "width_ratio": round(float(np.median([r[m][1] - r[m][0] for r in rows]) / bw), 2),
            }
        print(json.dumps(res), flush=True)
        out.append(res)
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=120)
    p.add_argument("--resamples", type=int, default=400)
    p.add_argument("--only", default=None)
    p.add_argument("--iid-only", action="store_true")
    p.add_argument("--json", default=None)
    p.add_argument("--dominant", action="store_true", help="the seed-9 #149 df study")
    args = p.parse_args(argv)
    mlci.set_config(n_jobs=1)
    if args.dominant:
        dom = dominant_condition(args.reps, args.resamples)
        if args.json:
            Path(args.json).write_text(json.dumps(dom, indent=1))
        return
    results = []
    for d in designs(args.only):
        if args.iid_only and d.n_conditions:
            continue
        res = run_cell(d, args.reps, args.resamples)
        results.append(res)
        print(json.dumps(res), flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
