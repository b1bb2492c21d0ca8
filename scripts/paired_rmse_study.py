"""Paired RMSE differences at small n: the intervals measured (session 11, helper rmsepair).

The difference of two systems' RMSEs on the same test set, ``sqrt(MSE_a) - sqrt(MSE_b)``,
is a non-linear function of two means of squared errors, and its t interval on the
linearized (delta-method) standard error (``compare``'s ``method="auto"``) covered
0.89-0.91 with normal and Laplace errors at n = 50 (docs/validation.md, "Skewed and
symmetric heavy tails", paired table).  This script measures, per test set, ``compare``'s
``auto`` (called as a user would) and, from one set of bootstrap replicates drawn here
(B = 500), the intervals of the difference:

``t``            estimate +- t(n - 1) x the linearized SE (auto's interval for a difference)
``percentile``   the replicates' 2.5% and 97.5% points
``bca``          BCa, acceleration from the exact jackknife of the difference
``studentized``  bootstrap-t on the linearized SE of each replicate
``sym_t``        symmetric bootstrap-t (Hall 1988): estimate +- the 95% point of ``|t*|`` x SE
``jack_t``       estimate +- t(n - 1) x the jackknife SE (larger than the linearized one for a
                 non-linear statistic)
``mse_t``        the t interval of the MSE difference ``mean(e_a^2 - e_b^2)``, mapped back by
                 the estimate's identity ``d = D / (RMSE_a + RMSE_b)`` (the sum held fixed)
``mse_stud``     bootstrap-t of the MSE difference, mapped back the same way
``log_stud``     the bootstrap-t quantiles of the log ratio ``log(RMSE_a / RMSE_b)`` (a
                 variance-stabilised pivot, its own linearized SE) applied to d's SE

``--single`` measures a single system's RMSE (``bootstrap_ci``'s ``auto``: bootstrap-t on
the log scale) against its t, symmetric bootstrap-t on the log scale and BCa.

Errors are standardized (mean 0, variance 1; normal or Laplace, ``heavy_tail_study.sampler``);
system a's errors ``e_a = u``, system b's ``s (rho u + sqrt(1 - rho^2) v)`` with u, v
independent draws of the law: the correlation between the systems' errors is ``rho`` and the
population RMSEs 1 and ``s`` (``s = 1``: no difference; ``s = 0.8``: a difference of 0.2).
x ~ N(0, 1) is the target, the predictions ``x + e``.  Monte Carlo error of a coverage near
0.95 over 400 test sets: 0.011 (one standard error).

Laws: ``normal``, ``laplace``, ``t3``, ``t2.5``, ``lognormal1.27`` (the shape after the name).

Usage (as run, seed 111, ``nice -n 15``):

- ``--laws normal --out scripts/data/paired_rmse_normal.json`` (and ``laplace``): the sweep,
  400 test sets a cell (with main's code: "auto before");
- ``--auto-only --sizes 30,50 --rhos 0,0.9 --out scripts/data/paired_rmse_after.json``:
  ``compare``'s auto after the change on the same test sets;
- ``--auto-only --laws t3,t2.5,lognormal1.27 --sizes 50 --rhos 0 --reps 300 --out
  scripts/data/paired_rmse_heavy_before.json`` (``PYTHONPATH`` main's ``src``) and ``..._after``
  (this tree), and ``--sizes 182 ... --out scripts/data/paired_rmse_heavy_after_182.json``;
- ``--split --laws laplace,normal --sizes 30,50 --out
  scripts/data/paired_rmse_few_discordant.json``: the few-discordant rule's test sets;
- ``--single --sizes 30,50 --out scripts/data/paired_rmse_single.json``, ``--single --laws
  t3,t2.5 --sizes 50,159 --reps 200 --out scripts/data/paired_rmse_single_t.json``;
- ``--analytic --laws normal,laplace,t3,t2.5 --sizes 30,50,100,159,200 --reps 4000 --out
  scripts/data/paired_rmse_single_analytic.json``;
- ``--table``: the docs' table; ``--summary FILE`` prints a file's cells.
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
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heavy_tail_study import sampler

import mlci

SIZES = [20, 30, 50, 100, 200]
RHOS = [0.0, 0.5, 0.9]
SCALES = [1.0, 0.8]
B = 500
LEVEL = 0.95
METHODS = [
    "auto",
    "t",
    "percentile",
    "bca",
    "studentized",
    "sym_t",
    "jack_t",
    "mse_t",
    "mse_stud",
    "log_stud",
]


def law_sampler(law: str) -> Any:
    """``heavy_tail_study.sampler`` of a law named ``normal``, ``laplace``, ``t3``, ``t2.5``,
    ``lognormal1.27`` (the shape after the name)."""
    for name in ("lognormal", "t"):
        if law.startswith(name) and law != name and law[len(name) :][0].isdigit():
            return sampler(name, float(law[len(name) :]))
    return sampler(law, 0.0)


def cell_rng(seed: int, law: str, n: int, rho: float, scale: float) -> np.random.Generator:
    return np.random.default_rng([seed, n, len(law), round(10 * rho), round(10 * scale)])


def paired_errors(
    g: np.random.Generator, law: str, n: int, rho: float, scale: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(x, e_a, e_b)`` of one test set."""
    draw = law_sampler(law)
    x = g.standard_normal(n)
    u, v = draw(g, n), draw(g, n)
    return x, u, scale * (rho * u + math.sqrt(1.0 - rho * rho) * v)


def _quantiles(x: np.ndarray, probs: tuple[float, float]) -> tuple[float, float]:
    lo, hi = np.quantile(x, probs)
    return float(lo), float(hi)


def own_intervals(ea: np.ndarray, eb: np.ndarray, g: np.random.Generator) -> dict[str, Any]:
    """Every non-``auto`` interval of ``RMSE_a - RMSE_b`` from B replicates drawn by ``g``."""
    n = len(ea)
    a2, b2 = ea * ea, eb * eb
    feats = np.column_stack([a2, b2, a2 * a2, b2 * b2, a2 * b2])
    alpha = 1.0 - LEVEL
    tq = stats.t.ppf(1 - alpha / 2, n - 1)
    cf = n / (n - 1)

    def pieces(s: np.ndarray, total: float) -> dict[str, np.ndarray]:
        """From the weighted sums (..., 5) of one or many replicates of total weight n."""
        ma, mb = s[..., 0] / total, s[..., 1] / total
        ra, rb = np.sqrt(ma), np.sqrt(mb)
        # linearized influence q_i = e_a^2 / (2 n R_a) - e_b^2 / (2 n R_b) (centred below)
        ca, cb = 1.0 / (2 * total * ra), 1.0 / (2 * total * rb)
        sq = ca**2 * s[..., 2] + cb**2 * s[..., 3] - 2 * ca * cb * s[..., 4]
        sm = ca * s[..., 0] - cb * s[..., 1]
        var_d = cf * (sq - sm**2 / total)
        # MSE difference D = mean(e_a^2 - e_b^2)
        dq = (s[..., 2] + s[..., 3] - 2 * s[..., 4]) / total**2
        dm = (s[..., 0] - s[..., 1]) / total
        var_mse = cf * (dq - dm**2 / total)
        # log scale: influence e_a^2 / (2 n M_a) - e_b^2 / (2 n M_b)
        la, lb = 1.0 / (2 * total * ma), 1.0 / (2 * total * mb)
        lq = la**2 * s[..., 2] + lb**2 * s[..., 3] - 2 * la * lb * s[..., 4]
        lm = la * s[..., 0] - lb * s[..., 1]
        var_log = cf * (lq - lm**2 / total)
        return {
            "d": ra - rb,
            "se": np.sqrt(np.maximum(var_d, 0)),
            "D": dm,
            "se_D": np.sqrt(np.maximum(var_mse, 0)),
            "L": 0.5 * (np.log(ma) - np.log(mb)),
            "se_L": np.sqrt(np.maximum(var_log, 0)),
            "ra": ra,
            "rb": rb,
        }

    est = pieces(feats.sum(axis=0), float(n))
    idx = g.integers(0, n, (B, n))
    rep = pieces(feats[idx].sum(axis=1), float(n))
    d, se = float(est["d"]), float(est["se"])
    out: dict[str, Any] = {}
    out["t"] = (d - tq * se, d + tq * se)
    out["percentile"] = _quantiles(rep["d"], (alpha / 2, 1 - alpha / 2))
    # BCa: bias from the share of replicates below the estimate, acceleration from the
    # exact jackknife of the difference
    z0 = stats.norm.ppf((np.sum(rep["d"] < d) + 0.5 * np.sum(rep["d"] == d)) / B)
    loo = pieces(feats.sum(axis=0)[None, :] - feats, float(n - 1))["d"]
    dev = loo.mean() - loo
    acc = (dev**3).sum() / (6 * ((dev**2).sum()) ** 1.5) if (dev**2).sum() > 0 else 0.0
    z = stats.norm.ppf([alpha / 2, 1 - alpha / 2])
    adj = stats.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))
    out["bca"] = _quantiles(rep["d"], (float(adj[0]), float(adj[1])))
    tstar = (rep["d"] - d) / rep["se"]
    t_lo, t_hi = _quantiles(tstar, (alpha / 2, 1 - alpha / 2))
    out["studentized"] = (d - t_hi * se, d - t_lo * se)
    ta = float(np.quantile(np.abs(tstar), LEVEL))
    out["sym_t"] = (d - ta * se, d + ta * se)
    se_jack = math.sqrt((n - 1) / n * (dev**2).sum())
    out["jack_t"] = (d - tq * se_jack, d + tq * se_jack)
    s_sum = float(est["ra"] + est["rb"])
    big_d, se_big = float(est["D"]), float(est["se_D"])
    out["mse_t"] = ((big_d - tq * se_big) / s_sum, (big_d + tq * se_big) / s_sum)
    td = (rep["D"] - big_d) / rep["se_D"]
    q_lo, q_hi = _quantiles(td, (alpha / 2, 1 - alpha / 2))
    out["mse_stud"] = ((big_d - q_hi * se_big) / s_sum, (big_d - q_lo * se_big) / s_sum)
    # the log ratio's bootstrap-t quantiles (a variance-stabilised pivot) on d's own SE
    tl = (rep["L"] - est["L"]) / rep["se_L"]
    l_lo, l_hi = _quantiles(tl, (alpha / 2, 1 - alpha / 2))
    out["log_stud"] = (d - l_hi * se, d - l_lo * se)
    return out


def auto_interval(x: np.ndarray, ea: np.ndarray, eb: np.ndarray, seed: int) -> dict[str, Any]:
    """``compare``'s ``method="auto"`` as a user calls it: interval, method, warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = mlci.compare(x, {"a": x + ea, "b": x + eb}, metric="rmse", n_resamples=B, rng=seed)
    d = r.differences[0]
    lo, hi = d.confidence_interval
    return {
        "interval": (float(lo), float(hi)),
        "method": d.method,
        "warned": sorted({w.category.__name__ for w in caught}),
    }


def paired_cell(
    law: str, n: int, rho: float, scale: float, reps: int, seed: int, auto_only: bool = False
) -> dict[str, Any]:
    """One cell's coverage; ``auto_only``: ``compare``'s ``auto`` alone (the same test sets)."""
    truth = 1.0 - scale
    methods = ["auto"] if auto_only else METHODS
    g = cell_rng(seed, law, n, rho, scale)
    cover: dict[str, list[int]] = {m: [] for m in methods}
    low = {m: 0 for m in methods}
    width: dict[str, list[float]] = {m: [] for m in methods}
    methods_used: dict[str, int] = {}
    warned = 0
    classes: dict[str, int] = {}
    for i in range(reps):
        x, ea, eb = paired_errors(g, law, n, rho, scale)
        res = {} if auto_only else own_intervals(ea, eb, np.random.default_rng([seed, i, n, 7]))
        a = auto_interval(x, ea, eb, i)
        res["auto"] = a["interval"]
        methods_used[a["method"]] = methods_used.get(a["method"], 0) + 1
        warned += int(any(w != "RuntimeWarning" for w in a["warned"]))
        for w in a["warned"]:
            classes[w] = classes.get(w, 0) + 1
        for m in methods:
            lo, hi = res[m]
            cover[m].append(int(lo <= truth <= hi))
            low[m] += int(hi < truth)
            width[m].append(hi - lo)
    return {
        "law": law,
        "n": n,
        "rho": rho,
        "scale": scale,
        "truth": truth,
        "reps": reps,
        "coverage": {m: float(np.mean(cover[m])) for m in methods},
        "misses_low": low,
        "median_width": {m: float(np.median(width[m])) for m in methods},
        "auto_methods": methods_used,
        "warned": warned / reps,
        "warnings": classes,
        "auto_covered": cover["auto"],
    }


def few_discordant_split(
    law: str, n: int, rho: float, scale: float, reps: int, seed: int
) -> dict[str, Any]:
    """The cell's test sets drawn again: coverage of the t and symmetric bootstrap-t
    intervals (this script's replicates) on those ``compare``'s few-discordant rule flags
    (``1 / kurtosis`` of the linearized difference below 5,
    :func:`mlci.engine.paired_rules.few_discordant`) and on the others."""
    from mlci.engine.paired_rules import few_discordant

    truth = 1.0 - scale
    g = cell_rng(seed, law, n, rho, scale)
    hits: dict[str, list[int]] = {"t_flagged": [], "sym_flagged": [], "t_rest": [], "sym_rest": []}
    for i in range(reps):
        _, ea, eb = paired_errors(g, law, n, rho, scale)
        ra, rb = math.sqrt(np.mean(ea**2)), math.sqrt(np.mean(eb**2))
        r = ea**2 / (2 * n * ra) - eb**2 / (2 * n * rb)
        r = r - r.mean()
        kurt = float((r**4).sum() / (r**2).sum() ** 2 - 3.0 / n)
        res = own_intervals(ea, eb, np.random.default_rng([seed, i, n, 7]))
        tag = "flagged" if bool(few_discordant(np.array([kurt]))[0]) else "rest"
        for m, key in (("t", "t"), ("sym_t", "sym")):
            lo, hi = res[m]
            hits[f"{key}_{tag}"].append(int(lo <= truth <= hi))
    out: dict[str, Any] = {"law": law, "n": n, "rho": rho, "scale": scale, "reps": reps}
    out["flagged"] = len(hits["t_flagged"]) / reps
    for k, v in hits.items():
        out[k] = float(np.mean(v)) if v else None
    return out


# ------------------------------------------------------------------ single systems
SINGLE_METHODS = ["auto", "t", "bca", "studentized_log", "sym_t_log"]


def single_intervals(e: np.ndarray, g: np.random.Generator) -> dict[str, tuple[float, float]]:
    n = len(e)
    e2 = e * e
    alpha = 1.0 - LEVEL
    tq = stats.t.ppf(1 - alpha / 2, n - 1)
    cf = n / (n - 1)

    def pieces(s1: np.ndarray, s2: np.ndarray, total: float) -> tuple[np.ndarray, np.ndarray]:
        m = s1 / total
        var_m = cf * (s2 - s1 * s1 / total) / total**2  # of the MSE
        return np.sqrt(m), np.sqrt(np.maximum(var_m, 0)) / (2 * m)  # RMSE, SE of log RMSE

    r, sl = pieces(e2.sum(), (e2 * e2).sum(), float(n))
    idx = g.integers(0, n, (B, n))
    rr, sr = pieces(e2[idx].sum(1), (e2[idx] ** 2).sum(1), float(n))
    out: dict[str, tuple[float, float]] = {}
    se = float(r * sl)
    out["t"] = (float(r) - tq * se, float(r) + tq * se)
    z0 = stats.norm.ppf((np.sum(rr < r) + 0.5 * np.sum(rr == r)) / B)
    s1 = e2.sum() - e2
    loo = np.sqrt(s1 / (n - 1))
    dev = loo.mean() - loo
    acc = (dev**3).sum() / (6 * ((dev**2).sum()) ** 1.5)
    z = stats.norm.ppf([alpha / 2, 1 - alpha / 2])
    adj = stats.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))
    out["bca"] = _quantiles(rr, (float(adj[0]), float(adj[1])))
    tl = (np.log(rr) - np.log(r)) / sr
    lo, hi = _quantiles(tl, (alpha / 2, 1 - alpha / 2))
    out["studentized_log"] = (float(r * np.exp(-hi * sl)), float(r * np.exp(-lo * sl)))
    ta = float(np.quantile(np.abs(tl), LEVEL))
    out["sym_t_log"] = (float(r * np.exp(-ta * sl)), float(r * np.exp(ta * sl)))
    return out


def single_cell(law: str, n: int, reps: int, seed: int) -> dict[str, Any]:
    g = cell_rng(seed, law, n, 0.0, 0.0)
    cover = {m: [] for m in SINGLE_METHODS}
    width = {m: [] for m in SINGLE_METHODS}
    warned = 0
    for i in range(reps):
        x = g.standard_normal(n)
        e = law_sampler(law)(g, n)
        res: dict[str, Any] = single_intervals(e, np.random.default_rng([seed, i, n, 8]))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = mlci.bootstrap_ci(x, x + e, metric="rmse", n_resamples=B, rng=i)
        warned += int(any(w.category is not RuntimeWarning for w in caught))
        res["auto"] = tuple(r.confidence_interval)
        for m in SINGLE_METHODS:
            lo, hi = res[m]
            cover[m].append(int(lo <= 1.0 <= hi))
            width[m].append(hi - lo)
    return {
        "law": law,
        "n": n,
        "reps": reps,
        "coverage": {m: float(np.mean(cover[m])) for m in SINGLE_METHODS},
        "median_width": {m: float(np.median(width[m])) for m in SINGLE_METHODS},
        "warned": warned / reps,
    }


def analytic_single(
    laws: list[str], sizes: list[int], reps: int, seed: int
) -> list[dict[str, Any]]:
    """A single RMSE's analytic intervals on ``reps`` test sets a cell (no bootstrap):
    ``log_t``, ``log MSE +- t(n - 1) SE`` with the linearized SE ``sqrt((K - 1) / (n - 1))``
    (K, the errors' kurtosis about zero), and ``bonett``, Bonett's (2006) interval for a
    variance adapted to the second moment about zero: ``log(c MSE) +- z c sqrt((K - 1) /
    (n - 1))`` with ``c = n / (n - z)``."""
    z = float(stats.norm.ppf(1 - (1 - LEVEL) / 2))
    cells = []
    for law in laws:
        for n in sizes:
            g = np.random.default_rng([seed, n, len(law)])
            e2 = law_sampler(law)(g, (reps, n)) ** 2
            m = e2.mean(axis=1)
            kurt = n * (e2**2).sum(axis=1) / e2.sum(axis=1) ** 2
            se = np.sqrt((kurt - 1) / (n - 1))
            tq = float(stats.t.ppf(1 - (1 - LEVEL) / 2, n - 1))
            c = n / (n - z)
            cells.append(
                {
                    "law": law,
                    "n": n,
                    "reps": reps,
                    "coverage": {
                        "log_t": float(np.mean(np.abs(np.log(m)) <= tq * se)),
                        "bonett": float(np.mean(np.abs(np.log(c * m)) <= z * c * se)),
                    },
                }
            )
            print(cells[-1], flush=True)
    return cells


# ------------------------------------------------------------------ driver
def summary(path: str) -> None:
    data = json.loads(Path(path).read_text())
    for c in data["cells"]:
        head = f"{c['law']:<8} n={c['n']:<4}"
        if "rho" in c:
            head += f" rho={c['rho']:<3} s={c['scale']:<3}"
        cov = " ".join(f"{m}={v:.3f}" for m, v in c["coverage"].items())
        print(head, cov, f"warned={c['warned']:.2f}", c.get("auto_methods", ""))


def markdown(before: list[str], after: list[str]) -> str:
    """The docs' table: per cell the coverage of auto before the change, of the t, BCa,
    percentile, studentized and symmetric bootstrap-t intervals (this script's replicates),
    of auto after (``compare`` itself, ``--auto-only``), and the symmetric interval's median
    width over BCa's and over auto's before."""
    cells = [c for p in before for c in json.loads(Path(p).read_text())["cells"]]
    done = {
        (c["law"], c["n"], c["rho"], c["scale"]): c
        for p in after
        if Path(p).exists()
        for c in json.loads(Path(p).read_text())["cells"]
    }
    cols = ["auto", "t", "bca", "percentile", "studentized", "sym_t"]
    lines = [
        "| errors | n | rho | RMSEs | auto before | t | BCa | percentile | studentized "
        "| symmetric t | auto after | width / BCa | width / auto before |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in cells:
        key = (c["law"], c["n"], c["rho"], c["scale"])
        cov = " | ".join(f"{c['coverage'][m]:.3f}" for m in cols)
        aft = done.get(key)
        after_cov = f"{aft['coverage']['auto']:.3f}" if aft else "-"
        w = c["median_width"]
        pair = "1, 1" if c["scale"] == 1.0 else f"1, {c['scale']:g}"
        lines.append(
            f"| {c['law']} | {c['n']} | {c['rho']:g} | {pair} | {cov} | {after_cov} "
            f"| {w['sym_t'] / w['bca']:.2f} | {w['sym_t'] / w['auto']:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--laws", default="normal,laplace")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--rhos", default=",".join(map(str, RHOS)))
    ap.add_argument("--reps", type=int, default=400)
    ap.add_argument("--seed", type=int, default=111)
    ap.add_argument("--single", action="store_true")
    ap.add_argument("--auto-only", action="store_true", help="compare's auto alone")
    ap.add_argument("--split", action="store_true", help="few-discordant rule's split")
    ap.add_argument("--analytic", action="store_true", help="single RMSE, analytic intervals")
    ap.add_argument("--out")
    ap.add_argument("--summary")
    ap.add_argument("--table", action="store_true", help="the docs' markdown table")
    args = ap.parse_args()
    if args.summary:
        summary(args.summary)
        return
    if args.table:
        data = Path(__file__).resolve().parent / "data"
        print(
            markdown(
                [str(data / f"paired_rmse_{law}.json") for law in ("normal", "laplace")],
                sorted(str(p) for p in data.glob("paired_rmse_after*.json")),
            )
        )
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.analytic:
        cells = analytic_single(args.laws.split(","), sizes, args.reps, args.seed)
        if args.out:
            meta = {"seed": args.seed, "reps": args.reps}
            Path(args.out).write_text(json.dumps({**meta, "cells": cells}, indent=0) + "\n")
        return
    cells: list[dict[str, Any]] = []
    t0 = time.process_time()
    meta = {"seed": args.seed, "reps": args.reps, "n_resamples": B}
    for law in args.laws.split(","):
        for n in sizes:
            if args.split:
                for rho in (float(r) for r in args.rhos.split(",")):
                    for scale in SCALES:
                        c = few_discordant_split(law, n, rho, scale, args.reps, args.seed)
                        cells.append(c)
                        print(c, flush=True)
            elif args.single:
                c = single_cell(law, n, args.reps, args.seed)
                cells.append(c)
                print(law, n, {m: round(v, 3) for m, v in c["coverage"].items()}, flush=True)
            else:
                for rho in (float(r) for r in args.rhos.split(",")):
                    for scale in SCALES:
                        c = paired_cell(law, n, rho, scale, args.reps, args.seed, args.auto_only)
                        cells.append(c)
                        print(
                            f"{law} n={n} rho={rho} s={scale}",
                            {m: round(v, 3) for m, v in c["coverage"].items()},
                            c["auto_methods"],
                            f"warned {c['warned']:.2f}",
                            flush=True,
                        )
            if args.out:
                meta["cpu_seconds"] = round(time.process_time() - t0, 1)
                Path(args.out).write_text(
                    json.dumps({**meta, "cells": cells}, separators=(",", ":")) + "\n"
                )


if __name__ == "__main__":
    main()
