"""A single system's RMSE with heavy-tailed errors: candidate intervals (session 12, heavyt12).

``bootstrap_ci(..., metric="rmse")``'s ``auto`` (the bootstrap-t on the log scale with the
linearized standard error) covered 0.91-0.92 with Laplace errors at n = 30-50, unwarned, and
0.69-0.86 with symmetric t errors of 2.5-3 degrees of freedom up to n = 200
(docs/validation.md, "Heavy-tailed regression errors (session 9)", "Skewed and symmetric heavy
tails (session 10, heavyt)", "Paired RMSE differences at small n (session 11, rmsepair)").
The paired RMSE difference was repaired by the symmetric bootstrap-t (Hall 1988); this script
asks whether it, or another interval, holds for a single system's RMSE.

Per test set it records ``auto`` as a user calls it (``mlci.bootstrap_ci``, B = 500, ``rng``
the test set's index) and, from one set of B = 999 replicates drawn here:

``stud_log``     equal-tailed bootstrap-t of log RMSE (auto's interval, this script's replicates)
``percentile``   the replicates' 2.5% and 97.5% points
``bca``          BCa (acceleration from the exact jackknife of the RMSE)
``sym_log``      symmetric bootstrap-t on the log scale: log r +- q95(|t*|) SE
``sym_raw``      symmetric bootstrap-t on the RMSE scale (the paired difference's interval)
``stud_mse``     equal-tailed bootstrap-t of the MSE on its own scale (lower bound clipped at
                 0), square-rooted
``rob_stud``     the log-scale bootstrap-t with a robust SE: the errors' kurtosis about zero
                 replaced by ``max(K, K_gn)``, ``K_gn`` the kurtosis of the generalized normal
                 law whose octile kurtosis (Moors 1988) matches the errors', for the estimate
                 and every replicate (a test set that lacks the large errors keeps the shape of
                 its middle 75%)
``rob_t``        log MSE +- t(n - 1) x that robust SE (no bootstrap)
``rob_scale``    ``stud_log``'s bootstrap-t quantiles (the replicates' own SE) times the
                 robust SE of the estimate (``--no-auto`` runs: ``auto`` is not called)

Errors are standardized (mean 0, variance 1; ``heavy_tail_study.sampler``), x ~ N(0, 1) the
target, the predictions x + e: the RMSE is 1.  Laws: ``normal``, ``laplace``, ``t5``, ``t3``,
``t2.5``, ``lognormal1`` (the shape after the name).  Monte Carlo standard error of a coverage
near 0.95 over 300 test sets: 0.013.

Usage (as run, seed 120, ``nice -n 15``): ``--out scripts/data/rmse_single_study.json``
(36 cells, 300 test sets each; with main's ``src``: auto before); ``--no-auto --laws
laplace,normal,t5 --sizes 30,50,20,100,200 --out scripts/data/rmse_single_robust.json``
(``rob_scale`` added); ``--auto-only --out scripts/data/rmse_single_after.json`` (this tree:
auto after, the robust SE); ``--analytic --laws normal,laplace,t5,t3 --reps 4000 --out
scripts/data/rmse_single_analytic.json``; ``--ratios --laws normal,laplace,t5
--reps 2000 --out scripts/data/rmse_single_ratios.json`` (the stretch's spread); ``--table``
prints the docs' table.
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
from scipy import special, stats

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heavy_tail_study import sampler

import mlci

LAWS = ["normal", "laplace", "t5", "t3", "t2.5", "lognormal1"]
SIZES = [20, 30, 50, 100, 200, 500]
B = 999
B_AUTO = 500
LEVEL = 0.95
METHODS = [
    "auto",
    "stud_log",
    "percentile",
    "bca",
    "sym_log",
    "sym_raw",
    "stud_mse",
    "rob_stud",
    "rob_t",
    "rob_scale",
]
DATA = Path(__file__).resolve().parent / "data" / "rmse_single_study.json"


def law_sampler(law: str) -> Any:
    for name in ("lognormal", "t"):
        if law.startswith(name) and law != name and law[len(name) :][0].isdigit():
            return sampler(name, float(law[len(name) :]))
    return sampler(law, 0.0)


# ------------------------------------------------------------------ the robust kurtosis
_BETA = np.exp(np.linspace(np.log(0.4), np.log(30.0), 400))


def _gn_moors(beta: np.ndarray) -> np.ndarray:
    q = [stats.gennorm.ppf(p, beta) for p in (5 / 8, 6 / 8, 7 / 8)]
    return 2 * (q[2] - q[0]) / (2 * q[1])  # symmetric: (E7 - E5 + E3 - E1) / (E6 - E2)


def _gn_kurtosis(beta: np.ndarray) -> np.ndarray:
    return np.exp(
        special.gammaln(5 / beta) + special.gammaln(1 / beta) - 2 * special.gammaln(3 / beta)
    )


_MOORS = _gn_moors(_BETA)  # decreasing in beta
_KURT = _gn_kurtosis(_BETA)


def moors(x: np.ndarray) -> np.ndarray:
    """Moors' octile kurtosis of each row of ``x``."""
    q = np.quantile(x, [1 / 8, 2 / 8, 3 / 8, 5 / 8, 6 / 8, 7 / 8], axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return ((q[5] - q[3]) + (q[2] - q[0])) / (q[4] - q[1])


def robust_kurtosis(e: np.ndarray) -> np.ndarray:
    """``max(K, K_about_zero(K_gn))`` per row of the signed errors ``e``: the moment
    kurtosis about zero, and that of the generalized normal law matching the errors' octile
    kurtosis, moved about zero with the sample mean and variance."""
    n = e.shape[-1]
    e2 = e * e
    k_hat = n * (e2 * e2).sum(-1) / e2.sum(-1) ** 2
    m = moors(e)
    k_gn = np.interp(-m, -_MOORS, _KURT)  # np.interp needs increasing x
    k_gn = np.minimum(k_gn, n)
    mu, s2 = e.mean(-1), e.var(-1)
    k0 = (k_gn * s2 * s2 + 6 * mu * mu * s2 + mu**4) / (s2 + mu * mu) ** 2
    return np.maximum(k_hat, np.where(np.isfinite(k0), k0, k_hat))


# ------------------------------------------------------------------ intervals
def own_intervals(e: np.ndarray, g: np.random.Generator) -> dict[str, tuple[float, float]]:
    n = len(e)
    e2 = e * e
    alpha = 1.0 - LEVEL
    cf = n / (n - 1)
    tq = float(stats.t.ppf(1 - alpha / 2, n - 1))

    def log_se(k: np.ndarray) -> np.ndarray:  # SE of log RMSE from the kurtosis about zero
        return np.sqrt(np.maximum(cf * (k - 1) / n, 0)) / 2

    mse = float(e2.mean())
    r = math.sqrt(mse)
    k_hat = n * float((e2 * e2).sum()) / float(e2.sum()) ** 2
    sl = float(log_se(np.array(k_hat)))
    idx = g.integers(0, n, (B, n))
    eb = e[idx]
    e2b = eb * eb
    mseb = e2b.mean(1)
    rb = np.sqrt(mseb)
    kb = n * (e2b * e2b).sum(1) / e2b.sum(1) ** 2
    slb = log_se(kb)
    out: dict[str, tuple[float, float]] = {}
    plo, phi = np.quantile(rb, [alpha / 2, 1 - alpha / 2])
    out["percentile"] = (float(plo), float(phi))
    z0 = stats.norm.ppf((np.sum(rb < r) + 0.5 * np.sum(rb == r)) / B)
    loo = np.sqrt((e2.sum() - e2) / (n - 1))
    dev = loo.mean() - loo
    acc = (dev**3).sum() / (6 * ((dev**2).sum()) ** 1.5)
    z = stats.norm.ppf([alpha / 2, 1 - alpha / 2])
    adj = stats.norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))
    blo, bhi = np.quantile(rb, adj)
    out["bca"] = (float(blo), float(bhi))
    with np.errstate(invalid="ignore", divide="ignore"):
        tl = (np.log(rb) - math.log(r)) / slb
    tl = tl[np.isfinite(tl)]
    lo, hi = np.quantile(tl, [alpha / 2, 1 - alpha / 2])
    out["stud_log"] = (r * math.exp(-hi * sl), r * math.exp(-lo * sl))
    qa = float(np.quantile(np.abs(tl), LEVEL))
    out["sym_log"] = (r * math.exp(-qa * sl), r * math.exp(qa * sl))
    se_r = r * sl  # delta method
    with np.errstate(invalid="ignore", divide="ignore"):
        tr = np.abs(rb - r) / (rb * slb)
    qr = float(np.quantile(tr[np.isfinite(tr)], LEVEL))
    out["sym_raw"] = (max(r - qr * se_r, 0.0), r + qr * se_r)
    se_m = 2 * mse * sl
    with np.errstate(invalid="ignore", divide="ignore"):
        tm = (mseb - mse) / (2 * mseb * slb)
    tm = tm[np.isfinite(tm)]
    lo, hi = np.quantile(tm, [alpha / 2, 1 - alpha / 2])
    out["stud_mse"] = (math.sqrt(max(mse - hi * se_m, 0.0)), math.sqrt(mse - lo * se_m))
    k_rob = float(robust_kurtosis(e[None, :])[0])
    sr = float(log_se(np.array(k_rob)))
    srb = log_se(robust_kurtosis(eb))
    with np.errstate(invalid="ignore", divide="ignore"):
        tb = (np.log(rb) - math.log(r)) / srb
    tb = tb[np.isfinite(tb)]
    lo, hi = np.quantile(tb, [alpha / 2, 1 - alpha / 2])
    out["rob_stud"] = (r * math.exp(-hi * sr), r * math.exp(-lo * sr))
    out["rob_t"] = (r * math.exp(-tq * sr), r * math.exp(tq * sr))
    lo, hi = np.quantile(tl, [alpha / 2, 1 - alpha / 2])  # stud_log's pivot, robust SE
    out["rob_scale"] = (r * math.exp(-hi * sr), r * math.exp(-lo * sr))
    out["_k"] = (k_hat, k_rob)
    return out


def cell(law: str, n: int, reps: int, seed: int, call_auto: Any = True) -> dict[str, Any]:
    g = np.random.default_rng([seed, n, len(law), int(law[-1]) if law[-1].isdigit() else 0])
    draw = law_sampler(law)
    cover: dict[str, list[int]] = {m: [] for m in METHODS}
    low: dict[str, list[int]] = {m: [] for m in METHODS}
    width: dict[str, list[float]] = {m: [] for m in METHODS}
    warned = 0
    for i in range(reps):
        x = g.standard_normal(n)
        e = draw(g, n)
        if call_auto == "only":
            res: dict[str, Any] = {m: (math.nan, math.nan) for m in METHODS}
        else:
            res = own_intervals(e, np.random.default_rng([seed, i, n, 12]))
        if call_auto:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                r = mlci.bootstrap_ci(x, x + e, metric="rmse", n_resamples=B_AUTO, rng=i)
            warned += int(any(issubclass(w.category, mlci.HeavyTailWarning) for w in caught))
            res["auto"] = tuple(r.confidence_interval)
        else:
            res["auto"] = (math.nan, math.nan)
        for m in METHODS:
            lo, hi = res[m]
            cover[m].append(int(lo <= 1.0 <= hi))
            low[m].append(int(hi < 1.0))
            width[m].append(hi - lo)
    return {
        "law": law,
        "n": n,
        "reps": reps,
        "coverage": {m: float(np.mean(cover[m])) for m in METHODS},
        "miss_low": {m: float(np.mean(low[m])) for m in METHODS},
        "median_width": {m: float(np.median(width[m])) for m in METHODS},
        "warned": warned / reps,
    }


def analytic(laws: list[str], sizes: list[int], reps: int, seed: int) -> list[dict[str, Any]]:
    """The no-bootstrap log-scale intervals ``log MSE +- t(n - 1) x sqrt(n / (n - 1) (K - 1)
    / n)`` on ``reps`` test sets a cell, K the errors' kurtosis about zero (``log_t``), the
    robust ``max(K, K_gn)`` (``rob_t``) or ``K_gn`` alone (``gn_t``); coverage and median width
    over ``log_t``'s."""
    cells = []
    for law in laws:
        for n in sizes:
            g = np.random.default_rng([seed, n, len(law), 7])
            e = law_sampler(law)(g, (reps, n))
            e2 = e * e
            lm = np.log(e2.mean(1))
            k_hat = n * (e2 * e2).sum(1) / e2.sum(1) ** 2
            k_gn = np.minimum(np.interp(-moors(e), -_MOORS, _KURT), n)
            tq = float(stats.t.ppf(1 - (1 - LEVEL) / 2, n - 1))
            cov, wid = {}, {}
            for name, k in (("log_t", k_hat), ("rob_t", robust_kurtosis(e)), ("gn_t", k_gn)):
                h = tq * np.sqrt((k - 1) / (n - 1))
                cov[name] = float(np.mean(np.abs(lm) <= h))
                wid[name] = float(np.median(np.exp(lm / 2) * 2 * np.sinh(h / 2)))
            cells.append(
                {
                    "law": law,
                    "n": n,
                    "reps": reps,
                    "coverage": cov,
                    "width_over_log_t": {m: w / wid["log_t"] for m, w in wid.items()},
                }
            )
            print(law, n, cov, {m: round(w / wid["log_t"], 2) for m, w in wid.items()}, flush=True)
    return cells


def ratios(laws: list[str], sizes: list[int], reps: int, seed: int) -> list[dict[str, Any]]:
    """Per cell, the 50/75/90/95/99% points and the largest of the robust SE's stretch
    :func:`mlci.engine.rmse_robust.robust_se_ratio` over ``reps`` test sets (no bootstrap)."""
    from mlci.engine.rmse_robust import robust_se_ratio

    cells = []
    for law in laws:
        for n in sizes:
            g = np.random.default_rng([seed, n, len(law), 9])
            e = law_sampler(law)(g, (reps, n))
            r = np.array([robust_se_ratio(row) for row in e])
            pts = np.percentile(r, [50, 75, 90, 95, 99, 100])
            cells.append({"law": law, "n": n, "reps": reps, "ratio_points": pts.tolist()})
            print(law, n, np.round(pts, 2), flush=True)
    return cells


FINGERPRINT = Path(__file__).resolve().parent / "data" / "rmse_single_fingerprint.json"


def fingerprint() -> dict[str, list[list[Any]]]:
    """Results outside the robust SE's class, ``[[method, low, high], ...]`` per case: the
    RMSE at n = 19, 501 and 1,000, with ``sample_weight``, ``conditions`` or ``strata``,
    under ``method="studentized"`` and ``"bca"``; the MAE and R^2 (Laplace errors, seed
    5); ``compare``'s MAE systems.  Computed before the rule (``--fingerprint``, main's
    ``src``) and checked by the tests."""
    out: dict[str, list[list[Any]]] = {}

    def data(n: int, k: int = 0) -> tuple[np.ndarray, np.ndarray]:
        g = np.random.default_rng([5, n, k])
        x = g.standard_normal(n)
        return x, x + g.laplace(0.0, 1 / math.sqrt(2), n)

    def row(r: Any) -> list[Any]:
        return [r.method, float(r.confidence_interval[0]), float(r.confidence_interval[1])]

    kw: dict[str, Any] = {"n_resamples": 200, "rng": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in (19, 501, 1000):
            x, p = data(n)
            out[f"rmse_n{n}"] = [row(mlci.bootstrap_ci(x, p, metric="rmse", **kw))]
        rows = []
        for k in range(3):
            x, p = data(50, k)
            w = np.random.default_rng(k).uniform(0.5, 2.0, 50)
            rows.append(row(mlci.bootstrap_ci(x, p, metric="rmse", sample_weight=w, **kw)))
            cond = np.repeat(np.arange(10), 5)
            rows.append(row(mlci.bootstrap_ci(x, p, metric="rmse", conditions=cond, **kw)))
            rows.append(row(mlci.bootstrap_ci(x, p, metric="rmse", strata=x > 0, **kw)))
            for m in ("studentized", "bca", "percentile"):
                rows.append(row(mlci.bootstrap_ci(x, p, metric="rmse", method=m, **kw)))
            for metric in ("mae", "r2"):
                rows.append(row(mlci.bootstrap_ci(x, p, metric=metric, **kw)))
            c = mlci.compare(x, {"a": p, "b": 0.5 * (x + p)}, metric="mae", **kw)
            rows.extend(row(r) for r in c.systems.values())
        out["rmse_n50_outside"] = rows
    return out


def table(path: Path) -> str:
    """The docs' table: per cell the coverage of auto before (main's ``src``), BCa, the
    percentile and the candidates (their median width over BCa's in brackets), ``rob_scale``
    (``rmse_single_robust.json``) and auto after (``rmse_single_after*.json``), with its
    width over BCa's and the share of test sets the heavy-tail rule warned."""
    data = path.parent
    cells = json.loads(path.read_text())["cells"]
    robust = {
        (c["law"], c["n"]): c
        for p in sorted(data.glob("rmse_single_robust*.json"))
        for c in json.loads(p.read_text())["cells"]
    }
    after = {
        (c["law"], c["n"]): c
        for p in sorted(data.glob("rmse_single_after*.json"))
        for c in json.loads(p.read_text())["cells"]
    }
    cols = ["auto", "bca", "percentile", "sym_log", "sym_raw", "stud_mse", "rob_stud", "rob_t"]
    head = "| errors | n | auto before | " + " | ".join(cols[1:])
    head += " | rob_scale | auto after | warned |"
    lines = [head, "|" + "---|" * (len(cols) + 5)]
    for c in cells:
        wb = c["median_width"]["bca"]

        def cov(cc: dict[str, Any] | None, m: str, wb: float = wb, c: Any = c) -> str:
            if cc is None:
                return "-"
            w = "" if m in ("bca", "auto") and cc is c else f" ({cc['median_width'][m] / wb:.2f})"
            return f"{cc['coverage'][m]:.3f}{w}"

        row = " | ".join(cov(c, m) for m in cols)
        key = (c["law"], c["n"])
        lines.append(
            f"| {c['law']} | {c['n']} | {row} | {cov(robust.get(key), 'rob_scale')} "
            f"| {cov(after.get(key), 'auto')} | {c['warned']:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--laws", default=",".join(LAWS))
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=120)
    ap.add_argument("--out")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--analytic", action="store_true", help="no-bootstrap log-t intervals")
    ap.add_argument("--no-auto", action="store_true", help="this script's intervals only")
    ap.add_argument("--auto-only", action="store_true", help="bootstrap_ci's auto alone")
    ap.add_argument("--fingerprint", action="store_true", help="write the fingerprint")
    ap.add_argument("--ratios", action="store_true", help="the robust SE's stretch")
    args = ap.parse_args()
    if args.ratios:
        sizes = [int(s) for s in args.sizes.split(",")]
        got = ratios(args.laws.split(","), sizes, args.reps, args.seed)
        if args.out:
            Path(args.out).write_text(json.dumps({"seed": args.seed, "cells": got}) + "\n")
        return
    if args.fingerprint:
        FINGERPRINT.write_text(json.dumps({"cases": fingerprint()}, indent=0) + "\n")
        return
    if args.analytic:
        sizes = [int(s) for s in args.sizes.split(",")]
        found = analytic(args.laws.split(","), sizes, args.reps, args.seed)
        if args.out:
            head = {"seed": args.seed, "reps": args.reps}
            Path(args.out).write_text(json.dumps({**head, "cells": found}) + "\n")
        return
    if args.table:
        print(table(Path(args.out) if args.out else DATA))
        return
    cells: list[dict[str, Any]] = []
    t0 = time.process_time()
    meta = {"seed": args.seed, "reps": args.reps, "n_resamples": B, "auto_n_resamples": B_AUTO}
    for law in args.laws.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            call = "only" if args.auto_only else not args.no_auto
            c = cell(law, n, args.reps, args.seed, call_auto=call)
            cells.append(c)
            print(
                law,
                n,
                {m: round(v, 3) for m, v in c["coverage"].items()},
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
