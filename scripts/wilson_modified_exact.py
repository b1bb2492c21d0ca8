"""Exact coverage of Wilson's interval and its modification near the bounds (issue 20).

Coverage of an interval for a binomial proportion at ``p`` is the sum of the binomial
probabilities of the counts ``k`` whose interval holds ``p``: no simulation.  Compared:
Wilson (statsmodels ``proportion_confint(method="wilson")``), Brown, Cai & DasGupta's
(2001, sec. 4.1.1) modified Wilson (:func:`mlci.intervals.formulas.modified_wilson_edges`
on top of Wilson), Clopper-Pearson (``"beta"``) and Jeffreys, at 95%, over ``n`` from 20
to 5,000 and ``p`` on a grid near both bounds (``p = lambda / n`` and ``1 - lambda / n``,
``lambda`` in [0.005, 10]) and in the middle (``p`` in [0.01, 0.99]).

Run: ``nice python scripts/wilson_modified_exact.py`` (about a minute).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import binom
from statsmodels.stats.proportion import proportion_confint

from mlci.intervals.formulas import modified_wilson_edges

LEVEL = 0.95
NS = (20, 30, 50, 51, 75, 100, 150, 200, 300, 500, 1000, 2000, 5000)
METHODS = ("wilson", "wilson_modified", "clopper_pearson", "jeffreys")


def intervals(n: int, method: str) -> tuple[np.ndarray, np.ndarray]:
    k = np.arange(n + 1)
    if method == "clopper_pearson":
        return proportion_confint(k, n, alpha=1 - LEVEL, method="beta")
    if method == "jeffreys":
        return proportion_confint(k, n, alpha=1 - LEVEL, method="jeffreys")
    low, high = (np.asarray(b, dtype=float) for b in proportion_confint(k, n, 1 - LEVEL, "wilson"))
    if method == "wilson_modified":
        for i in range(n + 1):
            low[i], high[i], _ = modified_wilson_edges(
                low[i], high[i], i, n, confidence_level=LEVEL
            )
    return low, high


def p_grid(n: int) -> dict[str, np.ndarray]:
    lam = np.linspace(0.005, 10.0, 800)
    edge = np.concatenate([lam / n, 1 - lam / n])
    return {"edge": edge[(edge > 0) & (edge < 1)], "middle": np.linspace(0.01, 0.99, 393)}


def coverage(
    n: int, low: np.ndarray, high: np.ndarray, p: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    k = np.arange(n + 1)
    pmf = binom.pmf(k[:, None], n, p[None, :])  # (n+1, P)
    holds = (low[:, None] <= p[None, :]) & (p[None, :] <= high[:, None])
    return (pmf * holds).sum(axis=0), (pmf * (high - low)[:, None]).sum(axis=0)


def main() -> None:
    rows = []
    for region in ("edge", "middle"):
        for method in METHODS:
            covs, widths, worst = [], [], (2.0, 0, 0.0)
            for n in NS:
                low, high = intervals(n, method)
                p = p_grid(n)[region]
                cov, width = coverage(n, low, high, p)
                covs.append(cov)
                widths.append(width)
                i = int(np.argmin(cov))
                if cov[i] < worst[0]:
                    worst = (float(cov[i]), n, float(p[i]))
            c, w = np.concatenate(covs), np.concatenate(widths)
            rows.append(
                (
                    region,
                    method,
                    worst[0],
                    worst[1],
                    worst[2],
                    c.mean(),
                    np.mean(c < 0.935),
                    w.mean(),
                )
            )
    print(
        "| p region | method | min coverage (n, p) | mean coverage | share < 0.935 | mean width |"
    )
    print("|---|---|---|---|---|---|")
    for region, method, mn, n, p, mean, share, width in rows:
        print(
            f"| {region} | {method} | {mn:.4f} ({n}, {p:.5g}) | {mean:.4f} "
            f"| {share:.3f} | {width:.5f} |"
        )
    print()
    print(
        "| n | wilson min | wilson_modified min | clopper_pearson min | jeffreys min |  (edge grid)"
    )
    print("|---|---|---|---|---|")
    for n in NS:
        cells = []
        for method in METHODS:
            low, high = intervals(n, method)
            cov, _ = coverage(n, low, high, p_grid(n)["edge"])
            cells.append(f"{cov.min():.4f}")
        print(f"| {n} | " + " | ".join(cells) + " |")
    for n, p in ((100, 0.999), (100, 0.99)):
        cells = []
        for method in METHODS:
            low, high = intervals(n, method)
            cells.append(f"{method} {coverage(n, low, high, np.array([p]))[0][0]:.4f}")
        print(f"n={n}, p={p}: " + ", ".join(cells))


if __name__ == "__main__":
    main()
