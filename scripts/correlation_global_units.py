"""Correlations from 20-40 systems or items: why the interval is short, and a remedy (session 11).

The global-level correlation resampling systems and items covered 0.91-0.94 from 20-40
systems or items, unwarned (docs/validation.md, "Seed 12's findings fixed").  This study
draws test sets from the design search's correlation populations
(``design_search_fields.Population``: 800 x 800 crossed systems, items, residuals) at 20, 30
and 40 of the resampled units and reads, on the same test sets and bootstrap replicates:

* ``before``: session 10's ``auto`` (BCa resampling both; the studentized interval at the
  global level resampling systems or items; BCa at the system and item levels);
* ``auto``: ``correlation_ci``'s default now (``jackknife_z`` where its rule applies);
* ``percentile`` and ``bca`` from the same replicates;
* ``expanded``: BCa's interval with its tail level moved so that its normal quantile
  is ``k * t_df(1 - alpha/2)`` (Hesterberg 2015's expanded percentile interval: the
  bootstrap's variance of a mean over ``n`` units is ``(n - 1)/n`` of the unbiased one and
  ``z`` stands in for ``t_{n-1}``), with ``n`` per resampled factor: the delete-one-system
  and delete-one-item jackknife variances ``V_f`` of the coefficient, ``k^2 = sum V_f /
  sum V_f (n_f - 1)/n_f`` and Satterthwaite's ``df = (sum V_f)^2 / sum V_f^2/(n_f - 1)``;
* ``jackknife_z``: Fisher's z of the estimate plus or minus ``t_df`` times the two-way
  (or one-way) jackknife standard error of z;
* ``jackknife_z_bc``: the same around Quenouille's bias-corrected z, ``z - sum_f (n_f - 1)
  (mean_u z_(-u) - z)`` (rows from session 11's later runs only).

It also records the estimator's bias (mean estimate minus truth over the test sets) next
to the mean half-width, the delete-one jackknife's share of each factor, and warnings::

    nice -n 15 python scripts/correlation_global_units.py --pop s12f1 --vary items \\
        --units 20 30 40 --reps 300 --json scripts/data/correlation_global_units.json

Test set ``i`` of a cell is drawn with ``np.random.default_rng([draw_seed, units, i])`` and
the interval's ``rng`` is ``i``; B = 500.  Monte Carlo error of a coverage near 0.95 over
300 test sets: 0.013 (one standard error).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time
import warnings

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search_fields as dsf

import mlci
from mlci.fields.correlation_jackknife import jackknife_z_applies
from mlci.metrics.correlation import GridCorrelationKernel

#: the populations: (seed, design index) of the design searches
POPS = {"s12f1": (12, 1), "s10f28": (10, 28), "s10f78": (10, 78)}
#: the fixed count of the other factor when one is varied
OTHER = {"systems": 50, "items": 36}


def jackknife_parts(x: np.ndarray, z: np.ndarray, level: str, coef: str, resample: str) -> dict:
    """Delete-one-system and delete-one-item jackknife variances of the coefficient and of
    its Fisher z (the factors resampled)."""
    k = GridCorrelationKernel(x, z, level, coef)
    ns, ni = x.shape
    rows = []
    if resample in ("systems", "both"):
        for s in range(ns):
            w = np.ones((ns, ni))
            w[s] = 0
            rows.append(w.ravel())
    if resample in ("items", "both"):
        for i in range(ni):
            w = np.ones((ns, ni))
            w[:, i] = 0
            rows.append(w.ravel())
    cells = np.array(rows)
    atoms = np.array([np.bincount(k.keys, weights=r, minlength=k.m) for r in cells])
    vals = k.evaluate(atoms)
    out = {}
    pos = 0
    for f, n in (("systems", ns), ("items", ni)):
        if resample not in (f, "both"):
            continue
        v = vals[pos : pos + n]
        pos += n
        zz = np.arctanh(np.clip(v, -0.999999, 0.999999))
        out[f] = {
            "n": n,
            "var": float((n - 1) / n * np.sum((v - v.mean()) ** 2)),
            "var_z": float((n - 1) / n * np.sum((zz - zz.mean()) ** 2)),
            "mean_z": float(zz.mean()),
        }
    return out


def expansion(parts: dict, key: str = "var") -> tuple[float, float]:
    """``k`` (the jackknife's variance over the bootstrap's expected share of it, square
    root) and Satterthwaite's degrees of freedom."""
    v = sum(p[key] for p in parts.values())
    vb = sum(p[key] * (p["n"] - 1) / p["n"] for p in parts.values())
    den = sum(p[key] ** 2 / (p["n"] - 1) for p in parts.values())
    k = math.sqrt(v / vb) if vb > 0 else 1.0
    df = v**2 / den if den > 0 else math.inf
    return k, df


def run(pop_name: str, level: str, resample: str, vary: str, units: int, reps: int,
        draw_seed: int, n_resamples: int, coef: str | None = None,
        overrides: dict | None = None) -> dict:  # fmt: skip
    seed, index = POPS[pop_name]
    d0 = dsf.random_design(index, seed)
    if coef:
        d0 = dataclasses.replace(d0, metric=coef)
    p = dict(d0.p)
    p.update(overrides or {})
    p["level"], p["resample"] = level, resample
    if vary == "systems":
        p["items"] = OTHER["systems"]
        ns = units
    else:
        ns = OTHER["items"]
        p["items"] = units
    pop = dsf.Population(dataclasses.replace(d0, p=p, n=ns))
    coef = d0.metric
    names = ("before", "auto", "percentile", "bca", "expanded", "jackknife_z", "jackknife_z_bc")
    cov = dict.fromkeys(names, 0)
    below = dict.fromkeys(names, 0)
    width: dict[str, list[float]] = {m: [] for m in names}
    est, truths, ks, dfs = [], [], [], []
    warned = 0
    chosen = ""
    t0 = time.time()
    for i in range(reps):
        x = pop.draw(np.random.default_rng([draw_seed, units, i]))
        truth = float(x.get("truth", pop.truth))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = mlci.correlation_ci(x["x"], x["z"], coefficient=coef, correlation_level=level,
                                    resample=resample, n_resamples=n_resamples, rng=i)  # fmt: skip
            chosen = r.method
            # the studentized interval (the global level resampling systems or items)
            # draws no acceleration: BCa from a second run with the same replicates
            rb = r if r.method == "bca" else mlci.correlation_ci(
                x["x"], x["z"], coefficient=coef, correlation_level=level,
                resample=resample, n_resamples=n_resamples, method="bca", rng=i)  # fmt: skip
            # session 10's auto: the studentized interval at the global level resampling
            # systems or items, else BCa (before the jackknife Fisher-z rule)
            old = "studentized" if level == "global" and resample != "both" else "bca"
            rs = rb if old == "bca" else r if r.method == old else mlci.correlation_ci(
                x["x"], x["z"], coefficient=coef, correlation_level=level,
                resample=resample, n_resamples=n_resamples, method=old, rng=i)  # fmt: skip
            ivs = {
                "before": rs.confidence_interval,
                "auto": r.confidence_interval,
                "percentile": rb.interval(method="percentile").confidence_interval,
                "bca": rb.confidence_interval,
            }
            parts = jackknife_parts(x["x"], x["z"], level, coef, resample)
            k, df = expansion(parts)
            lev = 2 * stats.norm.cdf(k * stats.t.ppf(0.975, df)) - 1
            ivs["expanded"] = rb.interval(confidence_level=min(lev, 0.9999)).confidence_interval
            se_z = math.sqrt(sum(q["var_z"] for q in parts.values()))
            _, df_z = expansion(parts, "var_z")
            zc = math.atanh(max(-0.999999, min(0.999999, float(r.estimate))))
            h = stats.t.ppf(0.975, df_z) * se_z
            ivs["jackknife_z"] = (math.tanh(zc - h), math.tanh(zc + h))
            # Quenouille's bias correction of z, summed over the resampled factors
            zb = zc - sum((q["n"] - 1) * (q["mean_z"] - zc) for q in parts.values())
            ivs["jackknife_z_bc"] = (math.tanh(zb - h), math.tanh(zb + h))
        warned += any(issubclass(c.category, mlci.FewConditionsWarning) for c in caught)
        for m, (lo, hi) in ivs.items():
            cov[m] += lo <= truth <= hi
            below[m] += hi < truth
            width[m].append(hi - lo)
        est.append(float(r.estimate))
        truths.append(truth)
        ks.append(k)
        dfs.append(df)
    row = {
        "pop": pop_name, "overrides": overrides or {}, "coefficient": coef, "level": level,
        "resample": resample,
        "vary": vary, "units": units, "systems": ns, "items": p["items"], "n": reps,
        "draw_seed": draw_seed, "B": n_resamples, "auto_method": chosen,
        "truth_mean": float(np.mean(truths)), "bias": float(np.mean(np.subtract(est, truths))),
        "k_median": float(np.median(ks)), "df_median": float(np.median(dfs)),
        "warned": warned / reps, "seconds": round(time.time() - t0, 1),
    }  # fmt: skip
    for m in names:
        row[m] = cov[m] / reps
        row[f"{m}_below"] = below[m] / reps
        row[f"{m}_width"] = float(np.median(width[m]))
    return row


def table(path: str) -> None:
    """The markdown table of docs/validation.md from the JSON: every cell's coverage
    before (session 10's auto) and now, BCa, the jackknife Fisher-z interval, its median
    width over BCa's, and the misses below the truth."""
    rows = json.load(open(path))["runs"]
    print("| population | coefficient | level | resample | systems x items | "
          "test sets (draw seed) | auto before | auto now | BCa | jackknife z | "
          "width z / BCa | before: misses below truth | bias |")  # fmt: skip
    print("|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        over = ", ".join(f"{k} {v:g}" for k, v in r.get("overrides", {}).items())
        pop = r["pop"] + (f" ({over})" if over else "")
        ratio = r["jackknife_z_width"] / r["bca_width"] if r["bca_width"] > 0 else math.nan
        rule = jackknife_z_applies(r["level"], r["resample"], r["systems"], r["items"])
        now = r["jackknife_z"] if rule else r["before"]
        print(f"| {pop} | {r['coefficient']} | {r['level']} | {r['resample']} | "
              f"{r['systems']} x {r['items']} | {r['n']} ({r['draw_seed']}) | {r['before']:.3f} | "
              f"{now:.3f} | "
              f"{r['bca']:.3f} | {r['jackknife_z']:.3f} | {ratio:.2f} | "
              f"{r['before_below']:.3f} | {r['bias']:+.4f} |")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pop", default="s12f1", choices=sorted(POPS))
    ap.add_argument("--level", default="global", choices=("system", "global", "item"))
    ap.add_argument("--resample", default="both", choices=("systems", "items", "both"))
    ap.add_argument("--vary", default="items", choices=("systems", "items"))
    ap.add_argument("--units", type=int, nargs="+", default=[20, 30, 40])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("-B", type=int, default=500)
    ap.add_argument("--draw-seed", type=int, default=111)
    ap.add_argument("--coefficient", default=None, help="another coefficient than the design's")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a variance of the population (vm, ve, vf, vd)")  # fmt: skip
    ap.add_argument("--json", default=None)
    ap.add_argument("--table", default=None, metavar="JSON", help="print the docs' table")
    a = ap.parse_args()
    if a.table:
        table(a.table)
        return
    over = {k: float(v) for k, v in (kv.split("=") for kv in a.set)}
    for u in a.units:
        row = run(a.pop, a.level, a.resample, a.vary, u, a.reps, a.draw_seed, a.B,
                  a.coefficient, over)  # fmt: skip
        print(json.dumps(row), flush=True)
        if a.json:
            old = json.load(open(a.json)) if os.path.exists(a.json) else {"runs": []}
            old["runs"].append(row)
            with open(a.json, "w") as f:
                json.dump(old, f, indent=1)


if __name__ == "__main__":
    main()
