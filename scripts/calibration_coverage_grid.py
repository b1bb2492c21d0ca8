"""Coverage of ECE intervals on a grid of populations, test-set sizes and bins.

The numbers of docs/calibration.md, "Where the intervals hold, and where they do not".
Forecasts p ~ Beta(2, 2), outcomes y ~ Bernoulli(f(p)); the truth is the population ECE
(l1) and l2 calibration error with the test set's own bins, by quadrature on a fine grid
(equal-mass edges move with the data, so the truth is computed per test set).

Usage::

    python scripts/calibration_coverage_grid.py over-confident 500 15 uniform 300
    python scripts/calibration_coverage_grid.py calibrated 2000 10 quantile 100
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from scipy import stats

import mlci
from mlci.metrics.calibration import bin_edges

GRID = (np.arange(400_000) + 0.5) / 400_000
DENSITY = stats.beta(2, 2).pdf(GRID) / len(GRID)
POPULATIONS = {
    "p2": lambda p: p**2,
    "over-confident": lambda p: 1 / (1 + np.exp(-0.6 * np.log(p / (1 - p)))),
    "shifted": lambda p: np.clip(p - 0.05, 0, 1),
    "calibrated": lambda p: p,
}


def truth(f, edges: np.ndarray) -> tuple[float, float]:
    """Population (l1 ECE, l2 calibration error) with these bin edges."""
    gap = np.concatenate([[0], np.cumsum((f(GRID) - GRID) * DENSITY)])
    mass = np.concatenate([[0], np.cumsum(DENSITY)])
    idx = np.searchsorted(GRID, edges)
    seg, m = np.diff(gap[idx]), np.diff(mass[idx])
    l2 = np.sqrt(np.sum(np.where(m > 0, seg**2 / np.where(m > 0, m, 1), 0)))
    return float(np.abs(seg).sum()), float(l2)


def main(population: str, n: int, n_bins: int, strategy: str, n_sets: int) -> None:
    f = POPULATIONS[population]
    hits: dict[str, int] = {}
    width: dict[str, float] = {}

    def record(key: str, ci: tuple[float, float], t: float) -> None:
        hits[key] = hits.get(key, 0) + int(ci[0] <= t <= ci[1])
        width[key] = width.get(key, 0.0) + ci[1] - ci[0]

    start = time.time()
    for e in range(n_sets):
        rng = np.random.default_rng([13, e, n, n_bins])
        p = rng.beta(2, 2, n)
        y = (rng.random(n) < f(p)).astype(float)
        t1, t2 = truth(f, bin_edges(p, n_bins, strategy))
        kw = {"n_bins": n_bins, "strategy": strategy}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plug = mlci.bootstrap_ci(
                y, p, metric="ece", metric_kwargs={**kw, "debias": False}, rng=e
            )
            deb = mlci.bootstrap_ci(y, p, metric="ece", metric_kwargs=kw, rng=e, method="bca")
            l2 = mlci.bootstrap_ci(
                y, p, metric="ece_debiased", metric_kwargs=kw, rng=e, method="bca"
            )
        record("l1 plug-in, studentized", plug.confidence_interval, t1)
        record("l1 debiased, normal (auto)", deb.interval(method="normal").confidence_interval, t1)
        record("l1 debiased, bca", deb.confidence_interval, t1)
        record("l2 debiased, normal (auto)", l2.interval(method="normal").confidence_interval, t2)
        record("l2 debiased, bca", l2.confidence_interval, t2)
    print(f"{population}, n = {n}, {n_bins} {strategy} bins, {n_sets} test sets:")
    for key in hits:
        print(
            f"  {key:28s} coverage {hits[key] / n_sets:.3f}  mean width {width[key] / n_sets:.4f}"
        )
    print(f"  ({time.time() - start:.0f} s)")


if __name__ == "__main__":
    pop, n, bins, strategy, sets = sys.argv[1:6]
    main(pop, int(n), int(bins), strategy, int(sets))
