"""The Brier score over conditions (issue 20, the seed-9 search's watch list): coverage and
median width of the studentized interval (``auto`` before), the t and logit t intervals of
the CR2 standard error (Imbens & Kolesar's degrees of freedom), BCa and percentile.

The populations are the design search's (``scripts/design_search.py``, family
``logloss``): a forecast ``p = expit(a + slope z)``, ``z ~ N(0, 1)``, outcomes
``y ~ Bernoulli(expit(a + slope z + u_c))`` with a condition shift ``u_c`` of variance
``icc / (1 - icc)``; the truth by quadrature.  A large slope is a confident system: most
forecasts near 0 or 1, so the Brier score is carried by a few confident mistakes and the
per-condition sums are skewed.

Every test set is bootstrapped three times (``method="auto"``, ``"studentized"`` and
``"bca"``, B = 500, ``rng`` the test set's index); ``t`` and ``logit_t`` are read off the
studentized result, the percentile interval off BCa's.  The truth is integrated on a fine
grid (:func:`brier_truth`), not by the search's quadrature.

``nice python scripts/brier_conditions_study.py --reps 200`` (the grid, about 10 minutes
of CPU); ``--search`` the seed-9 search's Brier designs over 8-50 conditions (from
``scripts/data/design_search_seed9.json``).  docs/validation.md, "Few errors over
conditions: the EER at a high ICC, and the Brier score".
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import expit

import mlci

sys.path.insert(0, str(Path(__file__).resolve().parent))
import design_search as ds

METHODS = ("auto", "studentized", "t", "logit_t", "bca", "percentile")


def grid() -> list[ds.Design]:
    """n 150 or 1,000; prevalence 0.05 or 0.2; slope 0.2, 3, 10; 10-50 unequal conditions,
    ICC 0.1 or 0.3."""
    out = []
    for n in (150, 1000):
        for prev in (0.05, 0.2):
            for slope in (0.2, 3.0, 10.0):
                for c in (10, 16, 24, 50):
                    for icc in (0.1, 0.3):
                        out.append(
                            ds.Design(
                                1000 + len(out), "logloss", "brier", n, prev, slope, 1.0, c, icc,
                                True, apportion=True,
                            )
                        )  # fmt: skip
    return out


def search_designs() -> list[ds.Design]:
    """The seed-9 search's Brier designs over 8-50 conditions (metrics focus)."""
    path = Path(__file__).resolve().parent / "data" / "design_search_seed9.json"
    runs = json.loads(path.read_text())["runs"]["seed9-metrics"]
    return [
        ds.design_from_dict(r["design"])
        for r in runs
        if r["design"]["metric"] == "brier" and 8 <= r["design"]["n_conditions"] <= 50
    ]


def brier_truth(pop: Any) -> float:
    """``E[q (1 - p)^2 + (1 - q) p^2]`` of the population, integrated over ``z`` on a fine
    grid (``design_search.logloss_truth``'s 80 Gauss-Hermite nodes in ``z`` miss the
    steep logistic of a confident system: 7% too high at slope 10, prevalence 0.2, 14% at
    the search's s9m #90, slope 11.9) and over the condition shift by 60 Gauss-Hermite
    nodes."""
    z = np.linspace(-12.0, 12.0, 200_001)
    wz = np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi) * (z[1] - z[0])
    x, w = np.polynomial.hermite_e.hermegauss(60)
    w = w / w.sum()
    p = expit(pop.a + pop.slope * z)
    total = 0.0
    for xi, wi in zip(x, w, strict=True):
        q = expit(pop.a + pop.slope * z + pop.sigma_u * xi)
        total += wi * float(np.sum(wz * (q * (1.0 - p) ** 2 + (1.0 - q) * p**2)))
    return total


def one(d: ds.Design, pop: Any, r: int, B: int) -> dict[str, Any]:
    g = np.random.default_rng([10, d.index, r])
    x = pop.draw(g)
    y, a, cond = x["y"], x["a"], x["conditions"]
    kw = {"metric": "brier", "conditions": cond, "n_resamples": B, "rng": r, "n_jobs": 1}
    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auto = mlci.bootstrap_ci(y, a, **kw)
        stud = mlci.bootstrap_ci(y, a, method="studentized", **kw)
        bca = mlci.bootstrap_ci(y, a, method="bca", **kw)
        out["auto"] = auto.confidence_interval
        out["auto_method"] = auto.method
        for m in ("studentized", "t", "logit_t"):
            out[m] = stud.interval(method=m).confidence_interval
        out["bca"] = bca.confidence_interval
        out["percentile"] = bca.interval(method="percentile").confidence_interval
    loss = (y - a) ** 2
    sums = np.bincount(cond, weights=loss)
    out["skew"] = float(((sums - sums.mean()) ** 3).mean() / sums.std() ** 3)
    return out


def study(d: ds.Design, reps: int, B: int) -> dict[str, Any]:
    pop = ds.Population(d)
    rows = [one(d, pop, r, B) for r in range(reps)]
    t = brier_truth(pop)
    cov = {m: float(np.mean([x[m][0] <= t <= x[m][1] for x in rows])) for m in METHODS}
    wid = {m: float(np.median([x[m][1] - x[m][0] for x in rows])) for m in METHODS}
    chosen: dict[str, int] = {}
    for x in rows:
        chosen[x["auto_method"]] = chosen.get(x["auto_method"], 0) + 1
    return {"cov": cov, "width": wid, "skew": float(np.median([x["skew"] for x in rows])),
            "chosen": chosen, "truth": t}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=200)
    p.add_argument("-B", "--resamples", type=int, default=500)
    p.add_argument("--search", action="store_true", help="the seed-9 search's designs")
    p.add_argument("--design", type=int, action="append")
    a = p.parse_args()
    designs = search_designs() if a.search else grid()
    print(f"| # | design | truth | skew | auto chose | {' | '.join(METHODS)} |")
    print("|---|---|---|---|---|" + "---|" * len(METHODS))
    t0 = time.process_time()
    for i, d in enumerate(designs):
        if a.design and i not in a.design:
            continue
        r = study(d, a.reps, a.resamples)
        cells = [f"{r['cov'][m]:.3f} / {r['width'][m]:.3g}" for m in METHODS]
        chose = ", ".join(f"{m} {c}" for m, c in sorted(r["chosen"].items()))
        label = d.label().split(" ", 2)[2]
        print(f"| {i} | {label} | {r['truth']:.4f} | {r['skew']:.2f} | {chose} | "
              + " | ".join(cells) + " |", flush=True)  # fmt: skip
    print(f"\n{a.reps} test sets per design, B = {a.resamples}; "
          f"{time.process_time() - t0:.0f} s CPU")  # fmt: skip


if __name__ == "__main__":
    main()
