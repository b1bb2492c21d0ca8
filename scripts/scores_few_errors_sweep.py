"""The EER and the rates at a fixed rate with few errors (issue 20, the seed-6/7 search's
known gaps): coverage and median width of ``auto``, the bootstrap intervals and the
profile score intervals (:func:`mlci.engine.scores_rules.eer_score_interval`,
:func:`mlci.engine.scores_rules.rate_score_interval`).

Binormal scores (non-targets N(0, 1), targets N(mu, 1)), iid or over conditions of
unequal sizes with goat/lamb shifts of variance ``icc`` (as ``scripts/scores_auto_study.py``):

* ``eer``: ``mu = -2 Phi^-1(EER)`` with the EER set so that the smaller class expects
  ``k`` errors (``k = EER x min(n_pos, n_neg)``);
* ``op``: the FNR at FPR ``at`` (``operating_point_ci``), ``mu`` set so that the
  positives expect ``k`` misses at the population threshold.

Every test set is bootstrapped once (B = 1000, ``method="bca"``; every other bootstrap
interval read from the same replicates), ``auto`` run separately (its method and
whether it warned recorded), and the score interval computed from the error counts at
every threshold.  One markdown row per design: coverage / median width.

``python scripts/scores_few_errors_sweep.py --part eer --reps 200`` (about 4 minutes of
CPU), ``--part op``, ``--part cond`` (the designs over conditions); ``--quick`` for a
reduced grid.  docs/validation.md, "EER and operating points with few errors".
"""

from __future__ import annotations

import argparse
import time
import warnings
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtri

import mlci
from mlci.engine.scores_rules import eer_score_interval, rate_score_interval

BOOT = ("percentile", "basic", "normal", "bc", "bca")
#: thresholds of the EER rule (errors in the smaller class) read post hoc: score below
CUTS = (1.0, 1.5, 2.0, 3.0, 5.0)


@dataclass(frozen=True)
class Design:
    part: str  # eer or op
    n: int
    pos: float  # share of targets
    k: float  # expected errors in the smaller class (eer) or expected misses (op)
    at: float = 0.0  # the FPR of the operating point (op)
    n_cond: int = 0
    icc: float = 0.0

    @property
    def n_pos(self) -> int:
        return max(round(self.n * self.pos), 2)

    @property
    def value(self) -> float:
        """The population EER or FNR."""
        if self.part == "eer":
            return self.k / min(self.n_pos, self.n - self.n_pos)
        return self.k / self.n_pos

    @property
    def mu(self) -> float:
        if self.part == "eer":
            return float(-2 * ndtri(self.value))
        return float(ndtri(1 - self.at) - ndtri(self.value))

    def label(self) -> str:
        cond = "iid" if not self.n_cond else f"{self.n_cond} cond ICC {self.icc:g}"
        what = (
            f"EER {self.value:.3g}"
            if self.part == "eer"
            else (f"FNR {self.value:.3g} at FPR {self.at:g}")
        )
        return f"{what}, n={self.n}, {self.n_pos} targets, k={self.k:g}, {cond}"


def draw(d: Design, g: np.random.Generator) -> tuple[Any, Any, np.ndarray, np.ndarray]:
    n_pos = d.n_pos
    y = np.r_[np.ones(n_pos, bool), np.zeros(d.n - n_pos, bool)]
    s = g.standard_normal(d.n) * np.sqrt(1 - d.icc)
    cond = None
    if d.n_cond:
        share = g.lognormal(0, 0.6, d.n_cond)
        cond = g.choice(d.n_cond, d.n, p=share / share.sum()).astype(np.int64)
        u_pos = g.standard_normal(d.n_cond) * np.sqrt(d.icc)
        u_neg = g.standard_normal(d.n_cond) * np.sqrt(d.icc)
        s = s + np.where(y, u_pos[cond], u_neg[cond])
    s = s + d.mu * y
    return mlci.Scores.from_labels(y.astype(int), s), cond, s[y], s[~y]


def counts(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Misses and false alarms at every threshold (decide target when score >= t)."""
    thr = np.r_[np.unique(np.r_[pos, neg]), np.inf]
    fn = np.searchsorted(np.sort(pos), thr, side="left")
    fp = len(neg) - np.searchsorted(np.sort(neg), thr, side="left")
    return fn.astype(float), fp.astype(float)


def one(d: Design, r: int, seed: int, B: int) -> dict[str, Any]:
    g = np.random.default_rng([seed, zlib.crc32(d.label().encode()), r])
    sc, cond, pos, neg = draw(d, g)
    kw = {"n_resamples": B, "rng": r, "conditions": cond}
    out: dict[str, Any] = {}
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        if d.part == "eer":
            auto = mlci.eer_ci(sc, **kw).eer
        else:
            auto = mlci.operating_point_ci(sc, "fnr", at=d.at, **kw)[0]
    out["warned"] = any("NearBound" in type(x.message).__name__ or "Few" in
                        type(x.message).__name__ for x in w)  # fmt: skip
    out["auto_method"] = auto.method
    out["auto"] = tuple(map(float, auto.confidence_interval))
    out["estimate"] = float(auto.estimate)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if d.part == "eer":
            res = mlci.eer_ci(sc, method="bca", **kw).eer
        else:
            res = mlci.operating_point_ci(sc, "fnr", at=d.at, method="bca", **kw)[0]
        for m in BOOT:
            out[m] = tuple(map(float, res.interval(method=m).confidence_interval))
    fn, fp = counts(pos, neg)
    if d.part == "eer":
        out["score"] = eer_score_interval(fn, fp, len(pos), len(neg), 0.95)
    else:
        out["score"] = rate_score_interval(fn, len(pos), fp, len(neg), d.at, 0.95)
    return out


def study(d: Design, reps: int, seed: int, B: int) -> dict[str, Any]:
    t = d.value
    rows = [one(d, r, seed, B) for r in range(reps)]
    methods = ("auto", *BOOT, "score")
    cov = {m: float(np.mean([x[m][0] <= t <= x[m][1] for x in rows])) for m in methods}
    wid = {m: float(np.median([x[m][1] - x[m][0] for x in rows])) for m in methods}
    if d.part == "eer" and not d.n_cond:  # the rule's threshold, read post hoc
        small = min(d.n_pos, d.n - d.n_pos)
        for cut in CUTS:
            pick = [x["score" if x["estimate"] * small < cut else "percentile"] for x in rows]
            cov[f"rule<{cut:g}"] = float(np.mean([lo <= t <= hi for lo, hi in pick]))
    chosen: dict[str, int] = {}
    for x in rows:
        chosen[x["auto_method"]] = chosen.get(x["auto_method"], 0) + 1
    return {
        "cov": cov,
        "width": wid,
        "warned": int(sum(x["warned"] for x in rows)),
        "chosen": chosen,
        "errors": float(np.median([x["estimate"] for x in rows])),
    }


def designs(part: str, quick: bool) -> list[Design]:
    out: list[Design] = []
    ks = (0.5, 1, 2, 5) if quick else (0.2, 0.5, 1, 2, 3.5, 6, 10)
    if part == "eer":
        for n in (30, 100, 300, 1000, 5000):
            for pos in (0.5, 0.1, 0.03):
                if round(n * pos) < 3 or (quick and n in (30, 5000)):
                    continue
                for k in ks:
                    d = Design("eer", n, pos, k)
                    if d.value <= 0.35:
                        out.append(d)
    elif part == "op":
        for n in (100, 300, 1000, 5000):
            for pos in (0.5, 0.1):
                for at in (0.01, 0.05, 0.2):
                    for k in ks:
                        d = Design("op", n, pos, k, at)
                        if d.value < 0.9 - at and not (quick and n == 5000):
                            out.append(d)
    elif part == "mid":  # the EER between 1 and 5 errors: score interval or percentile
        for n in (100, 300, 1000):
            for pos in (0.5, 0.1):
                for k in (1.5, 2, 3, 4):
                    out.append(Design("eer", n, pos, k))
    elif part == "search":  # the seed-7 search's designs (docs/validation.md, seed 6)
        out += [
            Design("eer", 98, 3 / 98, 0.18),  # s7 #14: 3 positives, AUC 0.986
            Design("eer", 35, 3 / 35, 0.36),  # s7 #11: 3 positives, AUC 0.952
            Design("eer", 112, 4.8 / 112, 0.5, n_cond=16, icc=0.22),  # s7 #13
            Design("op", 603, 12 / 603, 1.8, 0.033),  # s7 #6: FNR 0.15 at FPR 0.033
            Design("eer", 200, 0.5, 2),  # the EER study's #10: 2 errors per class
            Design("eer", 200, 0.1, 2),  # its #13
        ]
    else:
        for n, pos, c, icc in ((1000, 0.1, 20, 0.2), (2000, 0.5, 50, 0.3), (300, 0.1, 30, 0.1)):
            for k in (1, 3, 6):
                out.append(Design("eer", n, pos, k, n_cond=c, icc=icc))
                out.append(Design("op", n, pos, k, 0.05, n_cond=c, icc=icc))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", default="eer", choices=("eer", "op", "cond", "search", "mid"))
    p.add_argument("--quick", action="store_true")
    p.add_argument("--reps", type=int, default=200)
    p.add_argument("-B", "--resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--design", type=int, action="append")
    a = p.parse_args()
    ds = designs(a.part, a.quick)
    methods = ("auto", *BOOT, "score")
    print(f"| # | design | auto chose | warned | {' | '.join(methods)} |")
    print("|---|---|---|---|" + "---|" * len(methods))
    t0 = time.process_time()
    for i, d in enumerate(ds):
        if a.design and i not in a.design:
            continue
        r = study(d, a.reps, a.seed, a.resamples)
        cells = [f"{r['cov'][m]:.3f} / {r['width'][m]:.3g}" for m in methods]
        cells += [f"{c}: {v:.3f}" for c, v in r["cov"].items() if c.startswith("rule")]
        chose = ", ".join(f"{m} {c}" for m, c in sorted(r["chosen"].items()))
        print(f"| {i} | {d.label()} | {chose} | {r['warned']} | " + " | ".join(cells) + " |",
              flush=True)  # fmt: skip
    print(f"\n{a.reps} test sets per design, B = {a.resamples}; "
          f"{time.process_time() - t0:.0f} s CPU")  # fmt: skip


if __name__ == "__main__":
    main()
