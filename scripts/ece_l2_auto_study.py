"""Which interval of the debiased l2 calibration error (``ece_debiased``) holds, by the
estimate's distance to 0 (issue 20; design search seed 11, watch list #18).

Forecasts p ~ Beta(2, 2), outcomes y ~ Bernoulli(f(p)), 15 equal-width bins; the truth
is the population l2 calibration error with these bins, by quadrature
(``calibration_coverage_grid.truth``).  Every test set records ``auto``'s interval (since
session 10 the interval of the square near 0), the normal, BCa, percentile and basic
intervals (one set of B = 1000 replicates) and the kernel's
``details["signal_to_noise"]`` (:func:`mlci.metrics.calibration.l2_signal`: the debiased
squared error over its delta-method standard error), so that a rule "below k, method A;
else method B" is scored on the same test sets for every k.

Usage::

    python scripts/ece_l2_auto_study.py SETS [POPULATION ...]  # data/ece_l2_auto_<pops>.json
    python scripts/ece_l2_auto_study.py --summary scripts/data/ece_l2_auto_*.json
    python scripts/ece_l2_auto_study.py --table scripts/data/ece_l2_auto_*.json
"""

from __future__ import annotations

import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).parent))
import calibration_coverage_grid as grid

import mlci
from mlci.metrics.calibration import bin_edges
from mlci.metrics.ece_l2 import l2_near_zero_interval


def _over(s: float):
    return lambda p: 1 / (1 + np.exp(-s * np.log(p / (1 - p))))


def _shift(d: float):
    return lambda p: np.clip(p - d, 0, 1)


POPULATIONS = {
    "calibrated": lambda p: p,
    "over-0.95": _over(0.95),
    "over-0.9": _over(0.9),
    "over-0.75": _over(0.75),
    "shift-0.02": _shift(0.02),
    "shift-0.05": _shift(0.05),
    "p2": lambda p: p**2,
}
NS = (100, 300, 1000, 3290, 5000)
N_BINS = 15
METHODS = ("auto", "normal", "bca", "percentile", "basic")


def run_cell(population: str, n: int, n_sets: int) -> dict:
    f = POPULATIONS[population]
    rows = []
    for e in range(n_sets):
        rng = np.random.default_rng([2011, e, n, sorted(POPULATIONS).index(population)])
        p = rng.beta(2, 2, n)
        y = (rng.random(n) < f(p)).astype(float)
        _, t2 = grid.truth(f, bin_edges(p, N_BINS, "uniform"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = mlci.bootstrap_ci(
                y, p, metric="ece_debiased", metric_kwargs={"n_bins": N_BINS},
                method="bca", rng=e,
            )  # fmt: skip
        # auto's interval (tests/test_calibration_ece_l2.py checks auto gives it): the
        # interval of the square near 0, else the bootstrap's normal interval
        near = l2_near_zero_interval(res.details["squared"], res.details["squared_se"])
        row = {"truth": t2, "estimate": float(res.estimate),
               "auto_method": "normal" if near is None else near.method,
               "z": float(res.details["signal_to_noise"])}  # fmt: skip
        for m in METHODS:
            if m == "auto" and near is not None:
                ci = near(0.95)
            else:
                ci = res.interval(method="normal" if m == "auto" else m).confidence_interval
            row[m] = [float(ci[0]), float(ci[1])]
        rows.append(row)
    return {"population": population, "n": n, "n_bins": N_BINS, "sets": n_sets, "rows": rows}


def covers(row: dict, method: str) -> bool:
    lo, hi = row[method]
    return bool(lo - 1e-12 <= row["truth"] <= hi + 1e-12)


def rule_method(z: float, k: float, near: str, far: str = "normal") -> str:
    return near if z < k else far


def summary(cells: list[dict], ks=(-np.inf, 0.0, 1.0, 2.0, 3.0), near="bca"):
    print(f"near-0 method: {near}; columns: coverage of the rule 'z < k: {near}, else normal'")
    head = "population  n     truth    " + " ".join(f"{m[:6]:>7s}" for m in METHODS)
    print(head + "  " + " ".join(f"k={k:>4}" for k in ks))
    for c in cells:
        rows = c["rows"]
        cov = {m: np.mean([covers(r, m) for r in rows]) for m in METHODS}
        rule = [np.mean([covers(r, rule_method(r["z"], k, near)) for r in rows]) for k in ks]
        t = np.mean([r["truth"] for r in rows])
        print(f"{c['population']:11s} {c['n']:5d} {t:.4f}   "
              + " ".join(f"{cov[m]:7.3f}" for m in METHODS) + "  "
              + " ".join(f"{v:6.3f}" for v in rule))  # fmt: skip


def exact_ci(hits: int, n: int) -> tuple[float, float]:
    r = stats.binomtest(hits, n).proportion_ci(0.95, method="exact")
    return float(r.low), float(r.high)


def table(cells: list[dict]) -> None:
    """docs/validation.md's table: auto's coverage (its share of the interval of the square)
    next to the bootstrap's normal and BCa, per population and n."""
    print("| population (truth) | n | test sets | auto | of which normal-squared | normal | BCa |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for c in cells:
        rows = c["rows"]
        cov = {m: np.mean([covers(r, m) for r in rows]) for m in ("auto", "normal", "bca")}
        sq = np.mean([r["auto_method"] == "normal-squared" for r in rows])
        t = np.mean([r["truth"] for r in rows])
        print(f"| {c['population']} ({t:.4f}) | {c['n']} | {len(rows)} | {cov['auto']:.3f} | "
              f"{sq:.2f} | {cov['normal']:.3f} | {cov['bca']:.3f} |")  # fmt: skip


if __name__ == "__main__":
    if sys.argv[1] == "--table":
        table([c for f in sys.argv[2:] for c in json.loads(Path(f).read_text())])
        sys.exit()
    if sys.argv[1] == "--summary":
        cells = [c for f in sys.argv[2:] for c in json.loads(Path(f).read_text())]
        for near in ("bca", "basic"):
            summary(cells, near=near)
        sys.exit()
    n_sets, pops = int(sys.argv[1]), sys.argv[2:]
    ns = [int(v) for v in (os.environ.get("ECE_L2_NS") or "").split(",") if v] or NS
    out = []
    path = Path(__file__).parent / "data" / f"ece_l2_auto_{'_'.join(pops)}.json"
    for pop in pops:
        for n in ns:
            t0 = time.time()
            out.append(run_cell(pop, n, n_sets))
            summary([out[-1]])
            print(f"  ({time.time() - t0:.0f} s)", flush=True)
            path.write_text(json.dumps(out))
