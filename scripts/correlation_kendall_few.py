"""Kendall's tau (and Spearman's rho) over few systems: which interval holds (session 12).

Session 11 (corrfix) gave ``correlation_ci`` a jackknife Fisher-z interval at the global
level from 20-59 systems; Kendall's tau resampling systems stayed short (0.927-0.933 of
300 test sets, unwarned; docs/validation.md, "Global-level correlations from 20–40 units").
This study draws test sets from the design search's correlation populations
(``design_search_fields.Population``: 800 x 800 crossed systems, items, residuals; seed-10
fields #28 "s10f28", Kendall at the global level, large system effects; #69 "s10f69",
Kendall at the system level, truth near 0.93) at 10-60 systems and reads on the same test
sets and bootstrap replicates (B = 500):

* ``auto``: ``correlation_ci``'s default (the branch it runs from);
* ``bca`` and ``percentile`` from one run's replicates;
* ``jk_z``: Fisher's z of the coefficient plus or minus ``t_df`` times the delete-one
  jackknife standard error of z (session 11's ``jackknife_z``: two-way over systems and
  items resampling both, Satterthwaite's df);
* ``jk_z_bc``: the same around Quenouille's bias-corrected z, ``z - sum_f (n_f - 1)
  (mean_u z_(-u) - z)``;
* ``jk_tau``: the coefficient itself plus or minus ``t_df`` times its jackknife standard
  error (clipped to [-1, 1]); ``jk_tau_bc`` around Quenouille's bias-corrected
  coefficient ``tau - sum_f (n_f - 1)(mean_u tau_(-u) - tau)``;
* ``jk_greiner``: the jackknife on ``atanh(sin(pi tau / 2))`` (Greiner's relation
  carries tau to the normal-theory Pearson r, then Fisher's z), back by
  ``2/pi asin(tanh(.))``;
* ``fhp`` (the system level resampling systems only, where the systems are the
  sample's pairs): ``atanh(tau) +- z_{0.975} sqrt(0.437 / (n - 4))`` (Fieller, Hartley &
  Pearson 1957).

The truth is the design search's: over every population system x these items resampling
systems, these systems x every population item resampling items, the whole population
resampling both.  Test set ``i`` of a cell: ``np.random.default_rng([draw_seed, systems,
i])``, the interval's ``rng`` is ``i``.  Monte Carlo error of a coverage near 0.95 over 400
test sets: 0.011 (one standard error)::

    nice -n 15 python scripts/correlation_kendall_few.py --pop s10f28 --level global \\
        --resample systems --systems 10 20 30 40 60 --reps 400 \\
        --json scripts/data/correlation_kendall_few.json
    python scripts/correlation_kendall_few.py --table scripts/data/correlation_kendall_few.json
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
from mlci.fields.correlation_jackknife import delete_one_values
from mlci.metrics.correlation import GridCorrelationKernel

#: the populations: (seed, design index) of the design searches
POPS = {"s10f28": (10, 28), "s10f69": (10, 69), "s10f78": (10, 78), "s12f1": (12, 1)}
NAMES = (
    "auto",
    "bca",
    "percentile",
    "jk_z",
    "jk_z_bc",
    "jk_tau",
    "jk_tau_bc",
    "jk_greiner",
    "fhp",
)
EPS = 1e-9


def _greiner(t: np.ndarray | float) -> np.ndarray:
    return np.arctanh(np.clip(np.sin(np.pi / 2 * np.asarray(t)), -1 + EPS, 1 - EPS))


def _greiner_inv(g: float) -> float:
    return float(2 / np.pi * np.arcsin(np.tanh(g)))


def jackknife_intervals(
    x: np.ndarray, z: np.ndarray, level: str, coef: str, resample: str, est: float
) -> dict[str, tuple[float, float]]:
    """The jackknife candidates' 95% intervals (module docstring)."""
    k = GridCorrelationKernel(x, z, level, coef)
    ns, ni = x.shape
    parts = []
    for f, n in (("systems", ns), ("items", ni)):
        if resample in (f, "both"):
            if level == "global" and coef == "kendall_tau":
                # scipy's tau-b of the cells left (the kernel's values, faster)
                ax = 0 if f == "systems" else 1
                v = np.array([stats.kendalltau(np.delete(x, u, ax).ravel(),
                                               np.delete(z, u, ax).ravel())[0]
                              for u in range(n)])  # fmt: skip
            else:
                v = delete_one_values(k, ns, ni, f)
            parts.append((n, v))
    out: dict[str, tuple[float, float]] = {}
    e = min(max(est, -1 + EPS), 1 - EPS)
    for name, fwd, inv in (
        ("jk_z", lambda t: np.arctanh(np.clip(t, -1 + EPS, 1 - EPS)), lambda g: math.tanh(g)),
        ("jk_tau", lambda t: np.asarray(t, dtype=float), lambda g: max(-1.0, min(1.0, g))),
        ("jk_greiner", _greiner, _greiner_inv),
    ):
        c = float(fwd(e))
        vs, means = [], []
        for n, v in parts:
            u = fwd(v)
            vs.append((n, float((n - 1) / n * np.sum((u - u.mean()) ** 2))))
            means.append((n, float(u.mean())))
        var = sum(p for _, p in vs)
        den = sum(p**2 / (n - 1) for n, p in vs)
        df = var**2 / den if den > 0 else math.inf
        h = float(stats.t.ppf(0.975, df)) * math.sqrt(var)
        out[name] = (inv(c - h), inv(c + h))
        if name != "jk_greiner":
            cb = c - sum((n - 1) * (m - c) for n, m in means)
            out[name + "_bc"] = (inv(cb - h), inv(cb + h))
    if level == "system" and resample == "systems" and coef == "kendall_tau" and ns > 4:
        h = 1.959964 * math.sqrt(0.437 / (ns - 4))
        ze = math.atanh(e)
        out["fhp"] = (math.tanh(ze - h), math.tanh(ze + h))
    return out


def run(pop_name: str, level: str, resample: str, systems: int, items: int, reps: int,
        draw_seed: int, n_resamples: int, coef: str | None,
        jackknife_only: bool = False) -> dict:  # fmt: skip
    seed, index = POPS[pop_name]
    d0 = dsf.random_design(index, seed)
    if coef:
        d0 = dataclasses.replace(d0, metric=coef)
    p = dict(d0.p)
    p["level"], p["resample"], p["items"] = level, resample, items
    pop = dsf.Population(dataclasses.replace(d0, p=p, n=systems))
    coef = d0.metric
    cov = dict.fromkeys(NAMES, 0)
    below = dict.fromkeys(NAMES, 0)
    width: dict[str, list[float]] = {m: [] for m in NAMES}
    est, truths = [], []
    warned = warned_miss = misses = 0
    methods: dict[str, int] = {}
    t0 = time.time()
    for i in range(reps):
        x = pop.draw(np.random.default_rng([draw_seed, systems, i]))
        truth = float(x.get("truth", pop.truth))
        if jackknife_only:
            k = GridCorrelationKernel(x["x"], x["z"], level, coef)
            e = float(k.evaluate(np.ones((1, k.m)))[0]) if k.m == x["x"].size else math.nan
            if not math.isfinite(e):
                c = np.bincount(k.keys, minlength=k.m).astype(float)
                e = float(k.evaluate(c[None, :])[0])
            ivs = jackknife_intervals(x["x"], x["z"], level, coef, resample, e)
            for m in NAMES:
                lo, hi = ivs.get(m, (math.nan, math.nan))
                cov[m] += lo <= truth <= hi
                below[m] += hi < truth
                width[m].append(hi - lo)
            est.append(e)
            truths.append(truth)
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = mlci.correlation_ci(x["x"], x["z"], coefficient=coef, correlation_level=level,
                                    resample=resample, n_resamples=n_resamples, rng=i)  # fmt: skip
        methods[r.method] = methods.get(r.method, 0) + 1
        w = any(issubclass(c.category, mlci.FewConditionsWarning) for c in caught)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rb = r if r.method == "bca" else mlci.correlation_ci(
                x["x"], x["z"], coefficient=coef, correlation_level=level,
                resample=resample, n_resamples=n_resamples, method="bca", rng=i)  # fmt: skip
        ivs = {
            "auto": tuple(r.confidence_interval),
            "bca": tuple(rb.confidence_interval),
            "percentile": tuple(rb.interval(method="percentile").confidence_interval),
        }
        ivs.update(jackknife_intervals(x["x"], x["z"], level, coef, resample, float(r.estimate)))
        lo, hi = ivs["auto"]
        miss = not lo <= truth <= hi
        warned += w
        misses += miss
        warned_miss += w and miss
        for m in NAMES:
            lo, hi = ivs.get(m, (math.nan, math.nan))
            cov[m] += lo <= truth <= hi
            below[m] += hi < truth
            width[m].append(hi - lo)
        est.append(float(r.estimate))
        truths.append(truth)
    row = {
        "pop": pop_name, "coefficient": coef, "level": level, "resample": resample,
        "systems": systems, "items": items, "n": reps, "draw_seed": draw_seed,
        "B": 0 if jackknife_only else n_resamples, "auto_methods": methods,
        "truth_mean": float(np.mean(truths)), "bias": float(np.mean(np.subtract(est, truths))),
        "warned": warned / reps, "auto_misses_warned": warned_miss / misses if misses else None,
        "seconds": round(time.time() - t0, 1),
    }  # fmt: skip
    for m in NAMES:
        ok = not all(math.isnan(v) for v in width[m])
        ok = ok and not (jackknife_only and m in ("auto", "bca", "percentile"))
        row[m] = cov[m] / reps if ok else None
        row[f"{m}_below"] = below[m] / reps if ok else None
        row[f"{m}_width"] = float(np.nanmedian(width[m])) if ok else None
    return row


#: the fingerprint's shapes (systems, items): both sides of the rule's 10 and 30 systems
FINGERPRINT_SHAPES = ((9, 5), (10, 5), (19, 4), (20, 4), (29, 3), (30, 3), (59, 3), (60, 3))


def fingerprint() -> list[list]:
    """``correlation_ci``'s default result (method, interval, B = 100, rng 1) for every
    coefficient, level and resampling scheme at :data:`FINGERPRINT_SHAPES`, but for the
    rule's own class (Kendall's tau, global level, resampling 10-29 systems):
    ``scripts/data/correlation_kendall_fingerprint.json`` holds it from the tree before
    the rule (main 3e9ea9c), ``tests/fields/test_correlation_kendall.py`` checks it."""
    out = []
    for ns, ni in FINGERPRINT_SHAPES:
        g = np.random.default_rng([ns, ni, 12])
        q, d = g.normal(size=(ns, 1)), g.normal(size=(1, ni))
        x = q + d + 0.6 * g.normal(size=(ns, ni))
        z = 0.8 * q + d + 0.6 * g.normal(size=(ns, ni))
        for coef in ("kendall_tau", "pearson", "spearman"):
            for level in ("system", "item", "global"):
                for resample in ("systems", "items", "both"):
                    if (coef, level, resample) == ("kendall_tau", "global", "systems") and (
                        10 <= ns < 30
                    ):
                        continue
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        r = mlci.correlation_ci(
                            x, z, coefficient=coef, correlation_level=level,
                            resample=resample, n_resamples=100, rng=1,
                        )  # fmt: skip
                    names = sorted({c.category.__name__ for c in caught})
                    lo, hi = (float(v) for v in r.confidence_interval)
                    out.append([f"{ns}x{ni} {coef} {level} {resample}", r.method, names,
                                float(r.estimate), lo, hi])  # fmt: skip
    return out


def table(path: str) -> None:
    """The markdown table of docs/validation.md from the JSON.  ``auto before`` is the
    rows' ``auto`` where it was run on the tree before the jackknife_tau rule, else (and
    in the jackknife-only rows) session 11's ``jackknife_z``, which ``auto`` gave at 20-59
    systems; ``auto now`` is ``jk_tau`` where :func:`jackknife_tau_applies`, else before."""
    from mlci.fields.correlation_kendall import jackknife_tau_applies

    rows = json.load(open(path))["runs"]
    cols = ("bca", "percentile", "jk_z", "jk_z_bc", "jk_tau", "jk_tau_bc", "jk_greiner", "fhp")
    print("| population | coefficient | level | resample | systems x items | test sets | "
          "truth | bias | auto before | auto now | " + " | ".join(cols) +
          " | width jk_tau / BCa | auto before: truth above it | auto warned |")  # fmt: skip
    print("|---|---|---|---|---|---:|---:|---:|---:|---:|" + "---:|" * (len(cols) + 3))

    def f(v: float | None) -> str:
        return "" if v is None else f"{v:.3f}"

    for r in rows:
        before = r["auto"]
        jk_only = r["B"] == 0
        from_z = (jk_only and 20 <= r["systems"] < 60) or "jackknife_tau" in r["auto_methods"]
        if from_z:
            before = r["jk_z"]  # session 11's jackknife_z, auto's interval before the rule
        rule = jackknife_tau_applies(
            r["coefficient"], r["level"], r["resample"], r["systems"], r["items"]
        )
        now = r["jk_tau"] if rule else before
        ratio = r["jk_tau_width"] / r["bca_width"] if r["bca_width"] else None
        below = r["jk_z_below"] if from_z else r["auto_below"]
        warned = "" if jk_only else f"{r['warned']:.2f}"
        print(f"| {r['pop']} | {r['coefficient']} | {r['level']} | {r['resample']} | "
              f"{r['systems']} x {r['items']} | {r['n']}{' (jackknife only)' if jk_only else ''} | "
              f"{r['truth_mean']:.3f} | {r['bias']:+.4f} | {f(before)} | {f(now)} | "
              + " | ".join(f(r[c]) for c in cols)
              + f" | {f(ratio)} | {f(below)} | {warned} |")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pop", default="s10f28", choices=sorted(POPS))
    ap.add_argument("--level", default="global", choices=("system", "global", "item"))
    ap.add_argument("--resample", default="systems", choices=("systems", "items", "both"))
    ap.add_argument("--systems", type=int, nargs="+", default=[10, 20, 30, 40, 60])
    ap.add_argument("--items", type=int, default=50)
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("-B", type=int, default=500)
    ap.add_argument("--draw-seed", type=int, default=121)
    ap.add_argument("--coefficient", default=None, help="another coefficient than the design's")
    ap.add_argument(
        "--jackknife-only",
        action="store_true",
        help="the jackknife candidates only (no bootstrap: auto, BCa, percentile)",
    )
    ap.add_argument("--json", default=None)
    ap.add_argument("--table", default=None, metavar="JSON", help="print the docs' table")
    ap.add_argument("--fingerprint", default=None, metavar="JSON",
                    help="write the fingerprint outside the rule's class")  # fmt: skip
    a = ap.parse_args()
    if a.fingerprint:
        with open(a.fingerprint, "w") as f:
            json.dump({"cases": fingerprint()}, f, indent=0)
        return
    if a.table:
        table(a.table)
        return
    for s in a.systems:
        row = run(a.pop, a.level, a.resample, s, a.items, a.reps, a.draw_seed, a.B,
                  a.coefficient, a.jackknife_only)  # fmt: skip
        print(json.dumps(row), flush=True)
        if a.json:
            old = json.load(open(a.json)) if os.path.exists(a.json) else {"runs": []}
            old["runs"].append(row)
            with open(a.json, "w") as f:
                json.dump(old, f, indent=1)


if __name__ == "__main__":
    main()
