"""Regression metrics of heavy-tailed errors: coverage, remedies and a warning rule.

The seed-10 design search (``scripts/design_search_fields.py``, #12, #76, #87) found the
MSE, RMSE and MAE of skewed, heavy-tailed errors (standardized log-normal, sigma 1.1-1.5)
without an interval that holds.  This sweep measures, over a grid of error laws and
sample sizes, on the same test sets:

* the coverage of ``bootstrap_ci(..., method="auto")`` (the studentized interval on the
  log scale) for RMSE, MAE and R^2 (the MSE's log-scale studentized interval is the
  RMSE's squared, so its coverage is the same);
* the literature's remedies for the mean of a skewed variable (the MSE is the mean of the
  squared errors, the MAE of the absolute ones): Johnson's (1978) skewness-corrected t,
  Hall's (1992) cubic transformation of t (the form of Zhou & Dinh 2005, eq. 4), and the
  empirical-likelihood interval of the mean (Owen 1988; chi^2_1 calibration);
* per test set, diagnostics of the losses ``v`` (squared errors, absolute errors for the
  MAE): the sample skewness and kurtosis, the largest loss's share of the total and the
  kurtosis-effective number of samples ``(sum r^2)^2 / sum r^4`` (``r = v - mean v``),
  the rule's inputs (:mod:`mlci.engine.heavy_tail`).

Errors are standardized (mean 0, variance 1; the design search's laws plus uniform), so
the MSE and RMSE are 1; the MAE is ``E|e|`` (quadrature); R^2 is ``1 - 1 / (1 + 1)``
with ``var(x) = 1``.

Usage: ``nice python scripts/heavy_tail_study.py [--reps 300] [--out
scripts/data/heavy_tail_study.json]``; ``--rule`` prints, per cell of the saved sweep, how
often the warning rule fires and the coverage of the test sets it leaves unwarned;
``--compare 150`` checks :func:`mlci.compare`'s paired differences of such systems
(``scripts/data/heavy_tail_compare.json``).
"""

from __future__ import annotations

import argparse
import json
import math
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from scipy import integrate, optimize, stats

import mlci
from mlci.engine.heavy_tail import heavy_tail_rule, loss_tail_diagnostics, octile_skewness

DISTS = [
    ("uniform", 0.0),
    ("normal", 0.0),
    ("laplace", 0.0),
    ("t", 8.0),
    ("t", 5.0),
    ("t", 4.0),
    ("t", 3.0),
    ("lognormal", 0.5),
    ("lognormal", 0.75),
    ("lognormal", 1.0),
    ("lognormal", 1.25),
    ("lognormal", 1.5),
]
SIZES = [10, 20, 50, 200, 1000, 5000]
METRICS = ["rmse", "mae", "r2"]
B = 500
#: the empirical-likelihood interval (two nested root searches) is computed up to this n
EL_MAX_N = 50
LEVEL = 0.95


def sampler(dist: str, shape: float) -> Any:
    """The standardized error (mean 0, variance 1): as ``design_search_fields._std_errors``."""
    if dist == "uniform":
        return lambda g, k: math.sqrt(3.0) * g.uniform(-1.0, 1.0, k)
    if dist == "normal":
        return lambda g, k: g.standard_normal(k)
    if dist == "laplace":
        return lambda g, k: g.laplace(0.0, 1 / math.sqrt(2), k)
    if dist == "t":
        c = math.sqrt((shape - 2) / shape)
        return lambda g, k: c * g.standard_t(shape, k)
    m, sd = math.exp(shape**2 / 2), math.sqrt((math.exp(shape**2) - 1) * math.exp(shape**2))
    return lambda g, k: (np.exp(shape * g.standard_normal(k)) - m) / sd


def mae_truth(dist: str, shape: float) -> float:
    """``E|e|`` of the standardized error, by quadrature."""
    if dist == "uniform":
        return math.sqrt(3.0) / 2
    if dist == "normal":
        return math.sqrt(2 / math.pi)
    if dist == "laplace":
        return 1 / math.sqrt(2)
    if dist == "t":
        c = math.sqrt((shape - 2) / shape)
        pdf = stats.t(shape, scale=c).pdf
    else:
        m, sd = math.exp(shape**2 / 2), math.sqrt((math.exp(shape**2) - 1) * math.exp(shape**2))
        pdf = stats.lognorm(shape, loc=-m / sd, scale=1 / sd).pdf
    f = lambda x: abs(x) * pdf(x)  # noqa: E731
    return float(
        integrate.quad(f, -np.inf, 0, limit=200)[0] + integrate.quad(f, 0, np.inf, limit=200)[0]
    )


def shape_diagnostics(values: Any) -> dict[str, float]:
    """Shape of the per-sample losses: sample skewness and kurtosis, the largest loss's
    share, the kurtosis-effective number of samples and Hill's tail index (k = sqrt(n))."""
    v = np.asarray(values, dtype=float)
    n = v.size
    r = v - v.mean()
    m2, m3, m4 = np.mean(r**2), np.mean(r**3), np.mean(r**4)
    k = max(2, round(math.sqrt(n)))
    s = np.sort(v)[::-1]
    return {
        "skewness": float(m3 / m2**1.5),
        "kurtosis": float(m4 / m2**2),
        "top_share": float(v.max() / v.sum()),
        "effective_n": float(n * m2**2 / m4),
        "hill": float(1.0 / np.mean(np.log(s[:k] / s[k]))) if s[k] > 0 else math.nan,
    }


def johnson(v: np.ndarray, q: float) -> tuple[float, float]:
    """Johnson's (1978) t interval of the mean corrected for skewness."""
    n, mean, s = len(v), v.mean(), v.std(ddof=1)
    mu3 = np.mean((v - mean) ** 3) * n / (n - 1)
    centre = mean + mu3 / (6 * s**2 * n)
    return centre - q * s / math.sqrt(n), centre + q * s / math.sqrt(n)


def hall(v: np.ndarray, q: float) -> tuple[float, float]:
    """Hall's (1992) transformation ``T = sqrt(n) (W + a W^2 / 3 + a^2 W^3 / 27 + a / (6n))``,
    ``W = (mean - mu) / s``, ``a`` the sample skewness; monotone in ``W``, inverted."""
    n, mean, s = len(v), v.mean(), v.std(ddof=1)
    a = float(np.mean((v - mean) ** 3) / np.mean((v - mean) ** 2) ** 1.5)

    def w_of(t: float) -> float:
        return float(3 / a * (np.cbrt(1 + a * (t / math.sqrt(n) - a / (6 * n))) - 1))

    return mean - s * w_of(q), mean - s * w_of(-q)


def el_stat(v: np.ndarray, mu: float) -> float:
    """``-2 log R(mu)``, Owen's empirical likelihood ratio of the mean."""
    d = v - mu
    if d.max() <= 0 or d.min() >= 0:
        return math.inf
    lo, hi = -1 / d.max() + 1e-12, -1 / d.min() - 1e-12
    lam = optimize.brentq(lambda la: np.sum(d / (1 + la * d)), lo * (1 - 1e-9), hi * (1 - 1e-9))
    return float(2 * np.sum(np.log1p(lam * d)))


def empirical_likelihood(v: np.ndarray) -> tuple[float, float]:
    crit = stats.chi2.ppf(LEVEL, 1)
    mean = v.mean()
    f = lambda mu: el_stat(v, mu) - crit  # noqa: E731
    span = v.max() - v.min()
    lo_edge, hi_edge = v.min() + 1e-9 * span, v.max() - 1e-9 * span
    lo = optimize.brentq(f, lo_edge, mean) if f(lo_edge) > 0 else v.min()
    hi = optimize.brentq(f, mean, hi_edge) if f(hi_edge) > 0 else v.max()
    return lo, hi


def run_cell(dist: str, shape: float, n: int, metric: str, reps: int, seed: int) -> dict:
    draw = sampler(dist, shape)
    truth = {"rmse": 1.0, "r2": 0.5}.get(metric) or mae_truth(dist, shape)
    g = np.random.default_rng([seed, n, int(10 * shape), len(dist), METRICS.index(metric)])
    q = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1))
    cover: dict[str, list[bool]] = {"auto": [], "johnson": [], "hall": [], "el": []}
    low, high = 0, 0
    widths, diags, warned = [], [], 0
    for i in range(reps):
        x = g.standard_normal(n)
        e = draw(g, n)
        y = x + e
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = mlci.bootstrap_ci(y, x, metric=metric, n_resamples=B, rng=i)
        warned += any(issubclass(w.category, mlci.MlciWarning) for w in caught)
        lo, hi = r.confidence_interval
        cover["auto"].append(bool(lo <= truth <= hi))
        low += bool(hi < truth)
        high += bool(lo > truth)
        widths.append(hi - lo)
        v = np.abs(e) if metric == "mae" else e**2
        diags.append(shape_diagnostics(v))
        if metric != "r2":  # the remedies of a mean: the MSE's (RMSE = sqrt) and the MAE's
            target = truth if metric == "mae" else truth**2
            for name, fn in (("johnson", lambda v: johnson(v, q)), ("hall", lambda v: hall(v, q))):
                a, b = fn(v)
                cover[name].append(bool(a <= target <= b))
            if n <= EL_MAX_N:
                a, b = empirical_likelihood(v)
                cover["el"].append(bool(a <= target <= b))
    keys = diags[0].keys()
    return {
        "dist": dist,
        "shape": shape,
        "n": n,
        "metric": metric,
        "truth": truth,
        "reps": reps,
        "coverage": {k: float(np.mean(c)) for k, c in cover.items() if c},
        "auto_misses_low": low,
        "auto_misses_high": high,
        "auto_median_width": float(np.median(widths)),
        "warned_now": warned,
        "covered": [int(c) for c in cover["auto"]],
        # the shape diagnostics' 5%, 50% and 95% quantiles over the test sets
        "diagnostics": {
            k: [
                round(float(q), 4) for q in np.nanquantile([d[k] for d in diags], [0.05, 0.5, 0.95])
            ]
            for k in keys
        },
    }


def rule_table(path: str) -> list[dict]:
    """Per cell of a finished sweep: coverage, and the share of its test sets (drawn again
    from the cell's seed) on which :func:`mlci.engine.heavy_tail.heavy_tail_rule` warns,
    with the coverage of the unwarned ones."""
    data = json.loads(Path(path).read_text())
    rows = []
    for c in data["cells"]:
        n, metric = c["n"], c["metric"]
        draw = sampler(c["dist"], c["shape"])
        g = np.random.default_rng(
            [data["seed"], n, int(10 * c["shape"]), len(c["dist"]), METRICS.index(metric)]
        )
        power = 1 if metric == "mae" else 2
        fired = []
        for _ in range(c["reps"]):
            g.standard_normal(n)  # x, as run_cell draws it
            e = draw(g, n)
            d = loss_tail_diagnostics(np.abs(e) if power == 1 else e**2, power)
            # the rule as mlci applies it (session 10: with the signed errors' skewness)
            skew = octile_skewness(e)
            fired.append(heavy_tail_rule(n, d["error_kurtosis"], power, d["effective_n"], skew))
        f, cov = np.array(fired), np.array(c["covered"], dtype=bool)
        rows.append(
            {
                "law": f"{c['dist']}{c['shape']:g}" if c["shape"] else c["dist"],
                "n": n,
                "metric": metric,
                "reps": c["reps"],
                "coverage": c["coverage"]["auto"],
                "warned": float(f.mean()),
                "coverage_unwarned": float(cov[~f].mean()) if (~f).any() else math.nan,
            }
        )
    return rows


def compare_check(reps: int, seed: int = 7) -> list[dict]:
    """Coverage of ``compare``'s paired difference of two systems with independent errors
    (the second's 0.8 times a draw of the same law), log-normal (sigma 1.27, the design
    search's #12) and normal, n = 182: RMSE difference 0.2, MAE difference 0.2 E|e|."""
    rows = []
    for law, shape in (("lognormal", 1.27), ("normal", 0.0)):
        draw = sampler(law, shape)
        for metric in ("rmse", "mae"):
            g = np.random.default_rng(seed)
            truth = 0.2 if metric == "rmse" else 0.2 * mae_truth(law, shape)
            covered, warned, low = 0, 0, 0
            for i in range(reps):
                x = g.standard_normal(182)
                a, b = x + draw(g, 182), x + 0.8 * draw(g, 182)
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    r = mlci.compare(x, {"a": a, "b": b}, metric=metric, n_resamples=400, rng=i)
                lo, hi = r.differences[0].confidence_interval
                covered += lo <= truth <= hi
                low += hi < truth
                warned += any(issubclass(w.category, mlci.HeavyTailWarning) for w in caught)
            rows.append(
                {
                    "law": law,
                    "metric": metric,
                    "reps": reps,
                    "coverage": covered / reps,
                    "misses_low": low,
                    "heavy_tail_warned": warned / reps,
                }
            )
            print(rows[-1], flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rule", action="store_true", help="the rule's table of a finished sweep")
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--out", default="scripts/data/heavy_tail_study.json")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--compare", type=int, default=0, help="the paired check, this many sets")
    ap.add_argument("--rule-out", default="", help="with --rule: save the table as JSON here")
    args = ap.parse_args()
    if args.compare:
        rows = compare_check(args.compare)
        Path("scripts/data/heavy_tail_compare.json").write_text(json.dumps(rows, indent=1) + "\n")
        return
    if args.rule:
        rows = rule_table(args.out)
        if args.rule_out:  # session 10: the rule's table saved (heavy_tail_study_rule.json)
            Path(args.rule_out).write_text(json.dumps(rows, indent=0) + "\n")
        for r in rows:
            print(
                f"{r['law']:<13} n={r['n']:<5} {r['metric']:<4} auto {r['coverage']:.3f} "
                f"warned {r['warned']:.2f} unwarned {r['coverage_unwarned']:.3f}"
            )
        return
    cells = []
    t0 = time.process_time()
    for n in map(int, args.sizes.split(",")):
        for dist, shape in DISTS:
            for metric in METRICS:
                # fewer test sets where a call costs most (n >= 1,000; R^2 the most)
                reps = (
                    args.reps
                    if n <= 200
                    else args.reps * 2 // 3
                    if n <= 1000
                    else args.reps // (5 if metric == "r2" else 3)
                )
                c = run_cell(dist, shape, n, metric, reps, args.seed)
                cells.append(c)
                cov = " ".join(f"{k} {v:.3f}" for k, v in c["coverage"].items())
                print(f"{dist}{shape:g} n={n} {metric}: {cov}", flush=True)
            write(args.out, args, cells, t0)  # after every error law: a partial run is kept


def write(path: str, args: Any, cells: list, t0: float) -> None:
    out = {
        "reps": args.reps,
        "seed": args.seed,
        "n_resamples": B,
        "cpu_seconds": round(time.process_time() - t0, 1),
        "mlci": mlci.__version__,
        "cells": cells,
    }
    Path(path).write_text(json.dumps(out, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
