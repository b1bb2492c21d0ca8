"""Coverage of the calibration slope's and intercept's default interval (``method="auto"``:
the t interval on the linearized standard error; docs/calibration.md).

Populations with known coefficients (as ``scripts/recalibration_coverage.py``): forecasts
p ~ Beta(2, 2) with P(y = 1 | p) = p^2 (slope 1.27, intercept -1.05) or sigmoid(0.6 logit
p) (over-confident: slope 0.6, intercept 0); logit p ~ N(-2.5, 1) with P(y = 1 | p) =
sigmoid(0.5 + 1.2 logit p) (a rare outcome, prevalence 0.12); and p^2 over 30 conditions
that shift the outcome's log-odds by N(0, 0.5^2) (the truth: the marginal calibration,
Gauss-Hermite).  The true coefficients solve the population score equations on a fine grid.

The intervals of every cell and both coefficients are pooled: 1,600 intervals (at any
``MLCI_SLOW_SCALE``: a t interval needs no replicate, so each costs one fit).  Asserted:
the pooled coverage lies in [0.93, 0.98].  A 95% interval that covered 0.95 falls
outside with probability < 1e-3 (binomial, n = 1,600); one that covers 0.90 (a 90%
interval labelled 95%) lies below 0.93 but with probability < 1e-4, and one that covers
0.99 above 0.98 but with probability < 1e-3 (the test checks that the same test sets'
90% intervals fall below the band).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import mlci
from _scripts import load_script

pytestmark = pytest.mark.slow

N_SETS = 200
LOW, HIGH = 0.93, 0.98


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _logit(p):
    return np.log(p) - np.log1p(-p)


_BETA = (np.arange(100_000) + 0.5) / 100_000
_NORM = np.linspace(-10, 10, 100_001)
_GH_X, _GH_W = np.polynomial.hermite_e.hermegauss(40)
_GH_W = _GH_W / _GH_W.sum()
SIGMA_U = 0.5

# name -> (n, conditions, draw p, grid of p, density weights, P(y = 1 | p))
CELLS = {
    "p2": (
        500, 0, lambda r, n: r.beta(2, 2, n), _BETA,
        stats.beta(2, 2).pdf(_BETA) / len(_BETA), lambda p: p**2,
    ),
    "over-confident": (
        500, 0, lambda r, n: r.beta(2, 2, n), _BETA,
        stats.beta(2, 2).pdf(_BETA) / len(_BETA), lambda p: _sigmoid(0.6 * _logit(p)),
    ),
    "rare": (
        1000, 0, lambda r, n: _sigmoid(r.normal(-2.5, 1.0, n)), _sigmoid(_NORM - 2.5),
        stats.norm.pdf(_NORM) * (_NORM[1] - _NORM[0]), lambda p: _sigmoid(0.5 + 1.2 * _logit(p)),
    ),
    "p2, 30 conditions": (
        1000, 30, lambda r, n: r.beta(2, 2, n), _BETA,
        stats.beta(2, 2).pdf(_BETA) / len(_BETA), lambda p: p**2,
    ),
}  # fmt: skip


def _script_truth():
    """The population slope and intercept of scripts/recalibration_coverage.py (its
    ``truth``: the score equations on the grid, Newton's method), loaded from the script."""
    return load_script("recalibration_coverage.py").truth


_truth = _script_truth()


@pytest.fixture(scope="module")
def study():
    rows = []
    for k, (name, (n, n_cond, draw, grid, dens, f)) in enumerate(CELLS.items()):
        if n_cond:
            lo = _logit(np.clip(f(grid), 1e-300, 1 - 1e-16))
            fy = (_sigmoid(lo[:, None] + SIGMA_U * _GH_X[None, :]) * _GH_W).sum(axis=1)
        else:
            fy = f(grid)
        truth = _truth(grid, dens, fy)
        for e in range(N_SETS):
            rng = np.random.default_rng([2411, k, e])
            p = draw(rng, n)
            kw = {}
            q = f(p)
            if n_cond:
                c = rng.integers(0, n_cond, n)
                q = _sigmoid(
                    _logit(np.clip(q, 1e-300, 1 - 1e-16)) + rng.normal(0, SIGMA_U, n_cond)[c]
                )
                kw["conditions"] = c
            y = (rng.random(n) < q).astype(int)
            for metric, t in truth.items():
                with warnings.catch_warnings():  # the rare cell: a few test sets below 100
                    warnings.simplefilter("ignore", mlci.FewConditionsWarning)
                    res = mlci.bootstrap_ci(y, p, metric=metric, n_resamples=20, rng=e, **kw)
                lo95, hi95 = res.confidence_interval
                lo90, hi90 = res.interval(confidence_level=0.9).confidence_interval
                rows.append((name, metric, res.method, lo95 <= t <= hi95, lo90 <= t <= hi90))
    print(f"\nrecalibration coverage (auto), {N_SETS} test sets a cell")
    for name in CELLS:
        for metric in ("calibration_slope", "calibration_intercept"):
            hits = [r[3] for r in rows if r[0] == name and r[1] == metric]
            print(f"  {name:18s} {metric:22s} coverage {np.mean(hits):.3f}")
    return rows


def test_default_is_the_t_interval(study):
    assert {r[2] for r in study} == {"t"}


def test_pooled_coverage_is_95_percent(study):
    cover95 = np.mean([r[3] for r in study])
    cover90 = np.mean([r[4] for r in study])
    print(f"pooled over {len(study)}: 95% interval {cover95:.4f}, 90% interval {cover90:.4f}")
    assert LOW <= cover95 <= HIGH
    # the band rejects a 90% interval labelled 95%: here the same test sets' 90% intervals
    assert cover90 < LOW


def test_band_has_power():
    # the band's error rates at 1,600 intervals (exact binomial)
    n = len(CELLS) * 2 * N_SETS
    k_low, k_high = int(np.ceil(LOW * n)), int(np.floor(HIGH * n))
    inside = stats.binom(n, 0.95)
    assert inside.cdf(k_low - 1) + inside.sf(k_high) < 1e-3
    assert stats.binom(n, 0.90).sf(k_low - 1) < 1e-4
    assert stats.binom(n, 0.99).cdf(k_high) < 1e-3
