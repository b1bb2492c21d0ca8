"""Coverage of the Brier decomposition's, the MCE's and paired ECE differences' intervals.

The numbers of docs/calibration.md ("Brier reliability and resolution", "MCE", "Paired ECE
differences") and docs/validation.md; ``tests/test_calibration_brier_coverage.py`` runs a
reduced version.

Populations (known, so every truth is computed by quadrature with the test set's own bins):
a true probability ``q`` and each system's forecast ``p``.

* single system (``single``): forecasts ``p ~ Beta(2, 2)``, ``P(y = 1 | p) = f(p)`` with
  ``f`` from :data:`SHAPES`;
* two systems on the same samples (``pair``): ``q ~ Beta(2, 2)``, ``y ~ Bernoulli(q)``,
  each system's forecast a function of ``q`` (:data:`SYSTEMS`: over- or under-confident,
  shifted, with noise of its own on the logit scale).

With ``conditions`` the samples come in conditions of 10 and a condition's outcomes share
a shift: ``P(y = 1) = q + delta_c q (1 - q)``, ``delta_c ~ Uniform(-1, 1)``, so the
population's calibration (averaged over conditions) is that of the iid design while the
outcomes of a condition are correlated (intra-condition correlation of y about 0.08 at
``q = 1/2``).

Usage::

    python scripts/calibration_brier_study.py single over-confident 500 10 uniform iid 300
    python scripts/calibration_brier_study.py pair over/over-mild 500 15 uniform iid 300
"""

from __future__ import annotations

import sys
import time
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats
from scipy.special import expit, logit

import mlci
from mlci.metrics.calibration import bin_edges

GRID_SIZE = 200_000
#: samples per condition
CONDITION_SIZE = 10
#: Gauss-Hermite nodes for a system's own logit noise
NOISE_NODES = 24

SHAPES = {
    "p2": lambda p: p**2,
    "over-confident": lambda p: expit(0.6 * logit(p)),
    "slightly-over": lambda p: expit(0.85 * logit(p)),
    "shifted": lambda p: np.clip(p - 0.05, 0.0, 1.0),
    "calibrated": lambda p: p,
}
#: a system: (forecast as a function of q, the sd of its own logit noise)
SYSTEMS: dict[str, tuple[Any, float]] = {
    "over": (lambda q: expit(logit(q) / 0.6), 0.0),
    "over-mild": (lambda q: expit(logit(q) / 0.8), 0.0),
    "under": (lambda q: expit(logit(q) / 1.5), 0.0),
    "up": (lambda q: np.clip(q + 0.05, 0.0, 1.0), 0.0),
    "down": (lambda q: np.clip(q - 0.05, 0.0, 1.0), 0.0),
    "noisy": (lambda q: q, 0.6),
    "sqrt": (np.sqrt, 0.0),
    "square": (np.square, 0.0),
    "calibrated": (lambda q: q, 0.0),
}


@dataclass
class System:
    """A forecast's population: sorted forecasts with cumulative weights of 1, q and p."""

    p: np.ndarray
    cw: np.ndarray
    cq: np.ndarray
    cp: np.ndarray

    @classmethod
    def build(cls, q: np.ndarray, p: np.ndarray, w: np.ndarray) -> System:
        order = np.argsort(p, kind="stable")
        z = np.zeros(1)
        return cls(
            p[order],
            np.concatenate([z, np.cumsum(w[order])]),
            np.concatenate([z, np.cumsum((w * q)[order])]),
            np.concatenate([z, np.cumsum((w * p)[order])]),
        )

    def bins(self, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Population mass, E[q; bin] and E[p; bin] of mlci's bins (lo, hi], the first
        also holding its lower edge."""
        idx = np.concatenate([[0], np.searchsorted(self.p, edges[1:-1], side="right")])
        idx = np.concatenate([idx, [len(self.p)]])
        return np.diff(self.cw[idx]), np.diff(self.cq[idx]), np.diff(self.cp[idx])

    def truth(self, edges: np.ndarray, occupied: np.ndarray | None = None) -> dict[str, float]:
        """Population ECE, REL, RES, UNC and MCE with these bins (MCE over ``occupied``)."""
        w, sq, sp = self.bins(edges)
        ok = w > 0
        ww = np.where(ok, w, 1.0)
        gap = np.where(ok, (sq - sp) / ww, 0.0)
        mq = self.cq[-1] / self.cw[-1]
        use = ok if occupied is None else ok & occupied
        return {
            "ece": float(np.abs(sq - sp).sum()),
            "brier_reliability": float(np.sum(np.where(ok, w * gap**2, 0.0))),
            "brier_resolution": float(np.sum(np.where(ok, w * (sq / ww - mq) ** 2, 0.0))),
            "brier_uncertainty": float(mq * (1 - mq)),
            "mce": float(np.abs(gap[use]).max()),
        }


def _grid() -> tuple[np.ndarray, np.ndarray]:
    x = (np.arange(GRID_SIZE) + 0.5) / GRID_SIZE
    w = stats.beta(2, 2).pdf(x) / GRID_SIZE
    return x, w / w.sum()


def single_population(shape: str) -> System:
    p, w = _grid()
    return System.build(SHAPES[shape](p), p, w)


def system_population(name: str) -> System:
    q, w = _grid()
    h, sd = SYSTEMS[name]
    if sd == 0:
        return System.build(q, h(q), w)
    # the system's own noise: p = expit(logit h(q) + sd * e), e ~ N(0, 1) by Gauss-Hermite
    # (a coarser q grid: the product is GRID_SIZE / 10 * NOISE_NODES points)
    q, w = q[::10], w[::10] / w[::10].sum()
    x, g = np.polynomial.hermite_e.hermegauss(NOISE_NODES)
    g = g / g.sum()
    qq = np.repeat(q, NOISE_NODES)
    pp = expit(logit(h(qq)) + sd * np.tile(x, len(q)))
    return System.build(qq, pp, np.repeat(w, NOISE_NODES) * np.tile(g, len(q)))


def draw_single(shape: str, n: int, conditions: bool, rng: np.random.Generator) -> Any:
    p = rng.beta(2, 2, n)
    return p, _outcomes(SHAPES[shape](p), conditions, rng)


def draw_pair(names: tuple[str, str], n: int, conditions: bool, rng: np.random.Generator):
    q = rng.beta(2, 2, n)
    preds = []
    for name in names:
        h, sd = SYSTEMS[name]
        z = logit(np.clip(h(q), 1e-12, 1 - 1e-12))
        preds.append(expit(z + sd * rng.standard_normal(n)) if sd > 0 else h(q))
    return q, preds, _outcomes(q, conditions, rng)


def _outcomes(q: np.ndarray, conditions: bool, rng: np.random.Generator):
    """Outcomes, and the condition of every sample (None for iid)."""
    n = len(q)
    if not conditions:
        return (rng.random(n) < q).astype(int), None
    cond = np.arange(n) // CONDITION_SIZE
    delta = rng.uniform(-1.0, 1.0, cond.max() + 1)[cond]
    return (rng.random(n) < q + delta * q * (1 - q)).astype(int), cond


def occupied_bins(p: np.ndarray, edges: np.ndarray) -> np.ndarray:
    which = np.searchsorted(edges[1:-1], p)
    return np.bincount(which, minlength=len(edges) - 1) > 0


class Tally:
    def __init__(self) -> None:
        self.hits: dict[str, list[float]] = {}

    def add(self, key: str, ci: Any, truth: float) -> None:
        lo, hi = float(ci[0]), float(ci[1])
        self.hits.setdefault(key, []).append(
            (lo <= truth <= hi, truth < lo, truth > hi, hi - lo)  # type: ignore[arg-type]
        )

    def rows(self) -> dict[str, dict[str, float]]:
        out = {}
        for key, v in self.hits.items():
            a = np.array(v, dtype=float)
            out[key] = {
                "coverage": a[:, 0].mean(),
                "below": a[:, 1].mean(),
                "above": a[:, 2].mean(),
                "width": float(np.median(a[:, 3])),
                "n": len(a),
            }
        return out


def _log_normal(res: Any, z: float) -> tuple[float, float]:
    """Normal interval on the log scale (delta method), when the estimate is positive."""
    t, se = res.estimate, np.nanstd(res.bootstrap_distribution, ddof=1)
    if t <= 0:
        return 0.0, t + z * se
    return t * np.exp(-z * se / t), t * np.exp(z * se / t)


def run_single(
    shape: str,
    n: int,
    n_bins: int,
    strategy: str,
    conditions: bool,
    n_sets: int,
    *,
    metrics: tuple[str, ...] = ("brier_reliability", "brier_resolution", "mce"),
    n_resamples: int = 1000,
    seed: int = 0,
) -> dict[str, dict[str, float]]:
    """Coverage of every candidate interval, ``{"metric, estimator, method": row}``."""
    pop = single_population(shape)
    tally = Tally()
    z = stats.norm.ppf(0.975)
    for e in range(n_sets):
        rng = np.random.default_rng([seed, e, n, n_bins, len(shape)])
        p, (y, cond) = draw_single(shape, n, conditions, rng)
        edges = bin_edges(p, n_bins, strategy)
        truth = pop.truth(edges, occupied_bins(p, edges))
        kw = {"n_bins": n_bins, "strategy": strategy}
        common = {"rng": e, "conditions": cond, "n_resamples": n_resamples}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for m in metrics:
                if m == "mce":
                    r = mlci.bootstrap_ci(y, p, metric=m, metric_kwargs=kw, method="bca", **common)
                    for meth in ("bca", "percentile", "normal"):
                        tally.add(f"mce, {meth}", r.interval(method=meth).confidence_interval,
                                  truth[m])  # fmt: skip
                    continue
                plug = mlci.bootstrap_ci(
                    y, p, metric=m, metric_kwargs={**kw, "debias": False}, **common
                )
                tally.add(f"{m}, plug-in, {plug.method}", plug.confidence_interval, truth[m])
                deb = mlci.bootstrap_ci(
                    y, p, metric=m, metric_kwargs={**kw, "debias": True}, method="bca", **common
                )
                for meth in ("normal", "bca", "percentile", "basic"):
                    ci = deb.interval(method=meth).confidence_interval
                    tally.add(f"{m}, debiased, {meth}", ci, truth[m])
                tally.add(f"{m}, debiased, log-normal", _log_normal(deb, z), truth[m])
                if m == "brier_reliability":
                    # the bootstrap variance less its excess 4 sum_b (ybar_b (1 - ybar_b))^2
                    # / n^2 (the replicates' gaps are the sample's, inflated by the noise)
                    which = np.searchsorted(edges[1:-1], p)
                    cnt = np.bincount(which, minlength=n_bins)
                    yb = np.bincount(which, weights=y, minlength=n_bins) / np.maximum(cnt, 1)
                    excess = 4 * np.sum((yb * (1 - yb)) ** 2) / n**2
                    var = np.var(deb.bootstrap_distribution, ddof=1) - excess
                    se = np.sqrt(max(var, 0.25 * np.var(deb.bootstrap_distribution, ddof=1)))
                    ci = (max(0.0, deb.estimate - z * se), deb.estimate + z * se)
                    tally.add(f"{m}, debiased, normal (var-corrected)", ci, truth[m])
    return tally.rows()


def run_pair(
    names: tuple[str, str],
    n: int,
    n_bins: int,
    strategy: str,
    conditions: bool,
    n_sets: int,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    methods: tuple[str, ...] = ("auto", "bca", "percentile", "plug-in"),
) -> tuple[dict[str, dict[str, float]], float]:
    """Coverage of ``mlci.compare(metric="ece")``'s interval of ``ECE_a - ECE_b`` by method,
    and the true difference with the bins of the first test set."""
    pops = [system_population(nm) for nm in names]
    tally = Tally()
    first = np.nan
    for e in range(n_sets):
        rng = np.random.default_rng([seed, e, n, n_bins, 7])
        _, preds, (y, cond) = draw_pair(names, n, conditions, rng)
        t = [
            pop.truth(bin_edges(p, n_bins, strategy))["ece"]
            for pop, p in zip(pops, preds, strict=True)
        ]
        diff = t[0] - t[1]
        if e == 0:
            first = diff
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for meth in methods:
                kw = {"n_bins": n_bins, "strategy": strategy}
                if meth == "plug-in":
                    kw["debias"] = False
                res = mlci.compare(
                    y,
                    {"a": preds[0], "b": preds[1]},
                    metric="ece",
                    metric_kwargs=kw,
                    conditions=cond,
                    method="auto" if meth == "plug-in" else meth,
                    n_resamples=n_resamples,
                    rng=e,
                )
                d = res.differences[0]
                label = f"{meth} ({d.method})" if meth in ("auto", "plug-in") else meth
                tally.add(f"difference, {label}", d.confidence_interval, diff)
                if meth == "auto":
                    for k, nm in enumerate(("a", "b")):
                        s = res.systems[nm]
                        tally.add(f"system {nm}, auto ({s.method})", s.confidence_interval, t[k])
    return tally.rows(), first


def _print(title: str, rows: dict[str, dict[str, float]], seconds: float) -> None:
    print(title)
    for key, r in rows.items():
        print(
            f"  {key:42s} coverage {r['coverage']:.3f} (below {r['below']:.3f}, above "
            f"{r['above']:.3f})  median width {r['width']:.4f}"
        )
    print(f"  ({seconds:.0f} s)", flush=True)


if __name__ == "__main__":
    kind, pop, n, bins, strategy, design, sets = sys.argv[1:8]
    start = time.time()
    cond = design == "conditions"
    if kind == "single":
        rows = run_single(pop, int(n), int(bins), strategy, cond, int(sets))
        _print(f"{pop}, n = {n}, {bins} {strategy} bins, {design}, {sets} test sets:", rows,
               time.time() - start)  # fmt: skip
    else:
        a, b = pop.split("/")
        rows, diff = run_pair((a, b), int(n), int(bins), strategy, cond, int(sets))
        _print(f"ECE({a}) - ECE({b}) = {diff:.4f}, n = {n}, {bins} {strategy} bins, {design}, "
               f"{sets} test sets:", rows, time.time() - start)  # fmt: skip
