"""Coverage of the calibration slope's and intercept's intervals (docs/calibration.md).

Populations with a known logistic recalibration: forecasts p, outcomes
y ~ Bernoulli(f(p)); with conditions, every condition c shifts the outcome's log-odds by
u_c ~ N(0, 0.5^2) (y ~ Bernoulli(sigmoid(logit f(p) + u_c))), so the population's
calibration is that of the marginal E_u[sigmoid(logit f(p) + u)] (Gauss-Hermite, 40
nodes).  The true coefficients solve the population score equations
E[(f(p) - sigmoid(a + b logit p)) (1, logit p)] = 0 on a fine grid (Newton's method to
1e-14).  Every test set gets one studentized bootstrap (its replicates also give the
t interval on the linearized standard error, the percentile, basic and normal
intervals) and one BCa bootstrap; ``rng`` is the test set's index.

Usage (population, n, design, test sets, resamples[, metrics[, "nobca"]])::

    nice python scripts/recalibration_coverage.py p2 1000 iid 300 999
    nice python scripts/recalibration_coverage.py rare 5000 conditions 200 999
    nice python scripts/recalibration_coverage.py p2 200 iid 400 999 intercept nobca

Each cell prints one line per metric and method: coverage, the share of intervals
entirely below / above the truth, and the mean width.
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
from scipy import stats

import mlci


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _logit(p: np.ndarray) -> np.ndarray:
    return np.log(p) - np.log1p(-p)


_BETA = (np.arange(200_000) + 0.5) / 200_000
_NORM = np.linspace(-10, 10, 200_001)
#: name -> (draw p, grid of p, density weights on the grid, f)
POPULATIONS = {
    # Beta(2, 2) forecasts, outcomes with P(y = 1 | p) = p^2 (slope 1.27, intercept -1.05)
    "p2": (
        lambda rng, n: rng.beta(2, 2, n),
        _BETA,
        stats.beta(2, 2).pdf(_BETA) / len(_BETA),
        lambda p: p**2,
    ),
    # over-confident: P(y = 1 | p) = sigmoid(0.6 logit p) (slope 0.6, intercept 0)
    "over-confident": (
        lambda rng, n: rng.beta(2, 2, n),
        _BETA,
        stats.beta(2, 2).pdf(_BETA) / len(_BETA),
        lambda p: _sigmoid(0.6 * _logit(p)),
    ),
    "calibrated": (
        lambda rng, n: rng.beta(2, 2, n),
        _BETA,
        stats.beta(2, 2).pdf(_BETA) / len(_BETA),
        lambda p: p,
    ),
    # rare outcome: logit p ~ N(-2.5, 1), P(y = 1 | p) = sigmoid(0.5 + 1.2 logit p)
    # (prevalence about 0.12; under-confident, forecasts too low)
    "rare": (
        lambda rng, n: _sigmoid(rng.normal(-2.5, 1.0, n)),
        _sigmoid(_NORM - 2.5),
        stats.norm.pdf(_NORM) * (_NORM[1] - _NORM[0]),
        lambda p: _sigmoid(0.5 + 1.2 * _logit(p)),
    ),
}
#: standard deviation of a condition's shift of the outcome log-odds
SIGMA_U = 0.5
_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(40)
_GH_W = _GH_W / _GH_W.sum()


def marginal(f, conditions: bool):
    """P(y = 1 | p) in the population (averaged over the conditions' shifts)."""
    if not conditions:
        return f

    def fm(p: np.ndarray) -> np.ndarray:
        lo = _logit(np.clip(f(p), 1e-300, 1 - 1e-16))
        return (_sigmoid(lo[:, None] + SIGMA_U * _GH_X[None, :]) * _GH_W).sum(axis=1)

    return fm


def truth(grid: np.ndarray, dens: np.ndarray, fy: np.ndarray) -> dict[str, float]:
    """The population slope and intercept (score equations, Newton's method)."""
    z = _logit(grid)
    out = {}
    for part in ("slope", "intercept"):
        a, b = 0.0, 1.0
        for _ in range(60):
            mu = _sigmoid(a + b * z)
            r, v = dens * (fy - mu), dens * mu * (1 - mu)
            if part == "intercept":
                a += r.sum() / v.sum()
                continue
            h = np.array([[v.sum(), (v * z).sum()], [(v * z).sum(), (v * z * z).sum()]])
            da, db = np.linalg.solve(h, [r.sum(), (r * z).sum()])
            a, b = a + da, b + db
        out[f"calibration_{part}"] = b if part == "slope" else a
    return out


METHODS = ("studentized", "t", "percentile", "basic", "normal", "bca")


def main(
    population: str,
    n: int,
    design: str,
    n_sets: int,
    n_resamples: int,
    metrics: tuple[str, ...] = ("slope", "intercept"),
    bca: bool = True,
) -> None:
    draw, grid, dens, f = POPULATIONS[population]
    cond = design == "conditions"
    fm = marginal(f, cond)
    true = truth(grid, dens, fm(grid))
    n_cond = max(20, n // 50)
    stats_: dict[tuple[str, str], list[list[float]]] = {}
    start = time.time()
    for e in range(n_sets):
        rng = np.random.default_rng([24, e, n, len(population), int(cond)])
        p = draw(rng, n)
        kw = {}
        if cond:
            c = rng.integers(0, n_cond, n)
            u = rng.normal(0, SIGMA_U, n_cond)
            q = _sigmoid(_logit(np.clip(f(p), 1e-300, 1 - 1e-16)) + u[c])
            kw["conditions"] = c
        else:
            q = f(p)
        y = (rng.random(n) < q).astype(int)
        if y.min() == y.max():
            continue
        for metric, t in true.items():
            if metric.split("_")[1] not in metrics:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = mlci.bootstrap_ci(
                    y, p, metric=metric, method="studentized", rng=e,
                    n_resamples=n_resamples, **kw,
                )  # fmt: skip
                cis = {m: res.interval(method=m).confidence_interval for m in METHODS[:-1]}
                if bca:
                    cis["bca"] = mlci.bootstrap_ci(
                        y, p, metric=metric, method="bca", rng=e, n_resamples=n_resamples, **kw
                    ).confidence_interval
            for m, (lo, hi) in cis.items():
                stats_.setdefault((metric, m), []).append([lo <= t <= hi, hi < t, lo > t, hi - lo])
    print(
        f"{population}, n = {n}, {design}"
        + (f" ({n_cond} conditions, sigma_u {SIGMA_U})" if cond else "")
        + f", B = {n_resamples}, {time.time() - start:.0f} s"
    )
    for (metric, m), rows in stats_.items():
        a = np.array(rows, dtype=float)
        print(
            f"  {metric:22s} true {true[metric]:8.4f} {m:12s} coverage {a[:, 0].mean():.3f} "
            f"below {a[:, 1].mean():.3f} above {a[:, 2].mean():.3f} "
            f"width {a[:, 3].mean():.4f} ({len(a)})",
            flush=True,
        )


if __name__ == "__main__":
    pop, n, design, sets, b = sys.argv[1:6]
    which = tuple(sys.argv[6].split(",")) if len(sys.argv) > 6 else ("slope", "intercept")
    main(pop, int(n), design, int(sets), int(b), which, "nobca" not in sys.argv[7:])
