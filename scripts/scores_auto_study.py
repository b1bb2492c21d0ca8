"""Which interval ``method="auto"`` should give the ``Scores`` statistics (issue 20, item 4).

The score drivers have no linearized standard error: ``auto`` chooses among the
intervals read off the bootstrap distribution.  This study measures, for every statistic
a ``Scores`` driver serves by default, the coverage and median width of each candidate
on simulated test sets with a known population value:

* ``eer`` (:func:`mlci.eer_ci`), ``min_dcf`` (:func:`mlci.dcf_ci`, ``p_target`` 0.01 and
  0.1), ``cllr`` (:func:`mlci.cllr_ci`, calibrated and over-confident LLRs) and
  ``fnr_at_fpr`` (:func:`mlci.operating_point_ci`, at FPR 0.01 and 0.1);
* binormal scores (negatives N(0, 1), positives N(mu, 1); ``mu = -2 Phi^-1(EER)``), n =
  50-20,000 trials, population EER 0.005-0.3, positives 50% or 10% of the trials;
* iid trials, or trials of 5-500 conditions (speakers) of unequal sizes, each with its
  own shift of the target and of the non-target scores (Doddington's goats and lambs),
  of variance ``icc`` out of a total of 1: the marginal scores are the same binormal, so
  the population values are the same.

Every test set is bootstrapped once (B = 1000, ``method="bca"``) and every other interval
read from the same replicates (``BootstrapResult.interval``): ``percentile``, ``basic``,
``normal``, ``bc``, ``bca``, plus two read here from the estimate and the bootstrap
standard error: ``logit_normal`` (the normal interval on the logit scale; the metrics in
[0, 1] only), and for the EER of iid trials ``bm_wilson``, the analytic interval of
Bengio & Mariethoz (2004) (the HTER's binomial variance, EER (1 - EER) / 4 (1/N+ + 1/N-))
as a Wilson interval on that effective number of trials.

``python scripts/scores_auto_study.py [--quick] [--reps N] [--part eer dcf cllr op]``
prints one markdown row per design (coverage / median width per method) and a summary
per metric: the share of designs each method holds 0.95 +- 0.015, its mean and its worst
coverage.  Default: the EER's 47 designs, 100 test sets each, about 5 minutes of CPU;
``--quick``: 80 test sets on 18 of them, under a minute; the minimum DCF, Cllr and the
FNR at a fixed FPR with ``--part`` (the minimum DCF of 20,000 trials is slow: every
replicate scans every threshold).  docs/validation.md, "The Scores statistics", gives the
runs behind its tables.
"""

from __future__ import annotations

import argparse
import time
import warnings
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import integrate, optimize
from scipy.special import ndtr, ndtri

import mlci

METHODS = ("percentile", "basic", "normal", "bc", "bca", "logit_normal", "bm_wilson")
Z = float(ndtri(0.975))


@dataclass(frozen=True)
class Design:
    metric: str  # eer, min_dcf, cllr, fnr_at_fpr
    n: int  # trials
    eer: float  # population EER (sets the separation mu)
    pos: float  # share of target trials
    n_cond: int = 0  # conditions (0: iid)
    icc: float = 0.0
    param: float = 0.0  # p_target (min_dcf), LLR scale (cllr), the FPR (fnr_at_fpr)

    @property
    def mu(self) -> float:
        return float(-2 * ndtri(self.eer))

    def label(self) -> str:
        cond = "iid" if not self.n_cond else f"{self.n_cond} cond ICC {self.icc:g}"
        extra = {"min_dcf": "p_target", "cllr": "LLR x", "fnr_at_fpr": "at"}.get(self.metric)
        p = f" {extra} {self.param:g}" if extra else ""
        return f"{self.metric}{p} n={self.n} EER={self.eer:g} pos={self.pos:g} {cond}"


def truth(d: Design) -> float:
    """Population value of ``d.metric`` for binormal scores N(0, 1) vs N(mu, 1)."""
    mu = d.mu
    if d.metric == "eer":
        return d.eer
    if d.metric == "fnr_at_fpr":
        return float(ndtr(ndtri(1 - d.param) - mu))
    if d.metric == "min_dcf":
        p = d.param

        def cost(t: float) -> float:
            return (p * ndtr(t - mu) + (1 - p) * ndtr(-t)) / min(p, 1 - p)

        res = optimize.minimize_scalar(cost, bounds=(-10, mu + 10), method="bounded")
        return float(min(res.fun, 1.0))
    if d.metric == "cllr":
        a = d.param  # LLR = a * (mu s - mu^2 / 2); a = 1 calibrated

        def llr(s: float) -> float:
            return a * (mu * s - mu**2 / 2)

        def dens(s: float, m: float) -> float:
            return float(np.exp(-((s - m) ** 2) / 2) / np.sqrt(2 * np.pi))

        lo, hi = -12.0, mu + 12.0
        pos = integrate.quad(lambda s: np.logaddexp(0, -llr(s)) * dens(s, mu), lo, hi)[0]
        neg = integrate.quad(lambda s: np.logaddexp(0, llr(s)) * dens(s, 0.0), lo, hi)[0]
        return float((pos + neg) / 2 / np.log(2))
    raise ValueError(d.metric)


def draw(d: Design, g: np.random.Generator) -> tuple[Any, Any, int, int]:
    """One test set: (Scores, conditions or None, n_pos, n_neg)."""
    n_pos = max(round(d.n * d.pos), 3)
    n_neg = d.n - n_pos
    y = np.r_[np.ones(n_pos, bool), np.zeros(n_neg, bool)]
    cond = None
    s = g.standard_normal(d.n) * np.sqrt(1 - d.icc)
    if d.n_cond:
        # unequal sizes (lognormal shares), every trial assigned to a condition
        share = g.lognormal(0, 0.6, d.n_cond)
        cond = g.choice(d.n_cond, d.n, p=share / share.sum())
        u_pos = g.standard_normal(d.n_cond) * np.sqrt(d.icc)
        u_neg = g.standard_normal(d.n_cond) * np.sqrt(d.icc)
        s = s + np.where(y, u_pos[cond], u_neg[cond])
        cond = cond.astype(np.int64)
    s = s + d.mu * y
    if d.metric == "cllr":
        s = d.param * (d.mu * s - d.mu**2 / 2)
    return mlci.Scores.from_labels(y.astype(int), s), cond, n_pos, n_neg


def run(d: Design, sc: Any, cond: Any, seed: int, B: int) -> Any:
    kw = {"n_resamples": B, "rng": seed, "method": "bca", "conditions": cond}
    if d.metric == "eer":
        return mlci.eer_ci(sc, **kw).eer
    if d.metric == "min_dcf":
        return mlci.dcf_ci(sc, d.param, **kw)
    if d.metric == "cllr":
        return mlci.cllr_ci(sc, **kw)
    return mlci.operating_point_ci(sc, "fnr", at=d.param, x="fpr", **kw)[0]


def wilson(p: float, n: float) -> tuple[float, float]:
    den = 1 + Z**2 / n
    mid = (p + Z**2 / (2 * n)) / den
    half = Z * np.sqrt(p * (1 - p) / n + Z**2 / (4 * n**2)) / den
    return mid - half, mid + half


def intervals(d: Design, res: Any, n_pos: int, n_neg: int) -> dict[str, tuple[float, float]]:
    out = {}
    for m in METHODS[:5]:
        out[m] = tuple(map(float, res.interval(method=m).confidence_interval))
    est, se = float(res.estimate), float(res.standard_error)
    if d.metric != "cllr" and d.metric != "min_dcf" and 0 < est < 1 and se > 0:
        lg = np.log(est / (1 - est))
        h = Z * se / (est * (1 - est))
        out["logit_normal"] = (float(1 / (1 + np.exp(-lg + h))), float(1 / (1 + np.exp(-lg - h))))
    elif d.metric in ("eer", "fnr_at_fpr"):
        out["logit_normal"] = (est, est)
    if d.metric == "eer" and not d.n_cond:
        out["bm_wilson"] = wilson(est, 4 / (1 / n_pos + 1 / n_neg))
    return out


def study(d: Design, reps: int, B: int, seed: int) -> dict[str, Any]:
    t = truth(d)
    hits: dict[str, list[bool]] = {}
    widths: dict[str, list[float]] = {}
    for r in range(reps):
        g = np.random.default_rng([seed, zlib.crc32(d.label().encode()), r])
        sc, cond, n_pos, n_neg = draw(d, g)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = run(d, sc, cond, r, B)
            for m, (lo, hi) in intervals(d, res, n_pos, n_neg).items():
                hits.setdefault(m, []).append(lo <= t <= hi)
                widths.setdefault(m, []).append(hi - lo)
    return {
        "truth": t,
        "cov": {m: float(np.mean(h)) for m, h in hits.items()},
        "width": {m: float(np.median(widths[m])) for m in hits},
    }


def designs(parts: list[str], quick: bool) -> list[Design]:
    out: list[Design] = []
    ns = (50, 200, 1000, 5000, 20000)
    levels = (0.005, 0.02, 0.1, 0.3)
    conds = (
        (2000, 0.1, 0.5, 20, 0.1),
        (2000, 0.1, 0.5, 20, 0.3),
        (5000, 0.05, 0.1, 50, 0.2),
        (1000, 0.1, 0.5, 5, 0.1),
        (10000, 0.02, 0.1, 200, 0.2),
        (20000, 0.01, 0.1, 500, 0.3),
        (1000, 0.2, 0.5, 50, 0.5),
    )
    if "eer" in parts:
        for n in ns:
            for e in levels:
                for pos in (0.5, 0.1):
                    if quick and (pos == 0.1 or e == 0.005):
                        continue
                    out.append(Design("eer", n, e, pos))
        for n, e, pos, c, icc in conds[: 3 if quick else None]:
            out.append(Design("eer", n, e, pos, c, icc))
    if "dcf" in parts:
        for n in (200, 1000, 5000, 20000):
            for e, p in ((0.1, 0.1), (0.02, 0.01), (0.05, 0.01)):
                out.append(Design("min_dcf", n, e, 0.1, param=p))
        for n, e, pos, c, icc in conds[:3]:
            out.append(Design("min_dcf", n, e, pos, c, icc, param=0.1))
    if "cllr" in parts:
        for n in (50, 200, 1000, 5000):
            for e, a in ((0.1, 1.0), (0.02, 1.0), (0.1, 2.0), (0.02, 2.0)):
                out.append(Design("cllr", n, e, 0.5, param=a))
        for n, e, pos, c, icc in conds[:3]:
            out.append(Design("cllr", n, e, pos, c, icc, param=1.0))
    if "op" in parts:
        for n in (200, 1000, 5000, 20000):
            for e, at in ((0.1, 0.1), (0.1, 0.01), (0.02, 0.01)):
                out.append(Design("fnr_at_fpr", n, e, 0.5, param=at))
        for n, e, pos, c, icc in conds[:3]:
            out.append(Design("fnr_at_fpr", n, e, pos, c, icc, param=0.1))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="80 test sets, the EER only")
    p.add_argument("--reps", type=int, default=None, help="test sets per design (100)")
    p.add_argument("-B", "--resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--part", nargs="+", default=None, choices=("eer", "dcf", "cllr", "op"))
    p.add_argument("--design", type=int, action="append", help="run only these design numbers")
    a = p.parse_args()
    parts = a.part or ["eer"]
    reps = a.reps or (80 if a.quick else 100)
    ds = designs(parts, a.quick)
    print(f"| # | design | truth | {' | '.join(METHODS)} |")
    print("|---|---|---|" + "---|" * len(METHODS))
    summary: dict[str, dict[str, list[float]]] = {}
    t0 = time.process_time()
    for i, d in enumerate(ds):
        if a.design and i not in a.design:
            continue
        r = study(d, reps, a.resamples, a.seed)
        cells = [
            f"{r['cov'][m]:.3f} / {r['width'][m]:.3g}" if m in r["cov"] else "—" for m in METHODS
        ]
        print(f"| {i} | {d.label()} | {r['truth']:.4g} | " + " | ".join(cells) + " |", flush=True)
        for m, c in r["cov"].items():
            summary.setdefault(d.metric, {}).setdefault(m, []).append(c)
    print(f"\n{reps} test sets per design, B = {a.resamples}; {time.process_time() - t0:.0f} s CPU")
    print("\n| metric | method | designs | within 0.95 +- 0.015 | mean | worst |")
    print("|---|---|---|---|---|---|")
    for metric, per in summary.items():
        for m, cs in per.items():
            c = np.array(cs)
            held = np.mean(np.abs(c - 0.95) <= 0.015)
            print(f"| {metric} | {m} | {len(c)} | {held:.2f} | {c.mean():.3f} | {c.min():.3f} |")


if __name__ == "__main__":
    main()
