"""The EER with few errors over conditions (issue 20, the score interval's open end):
coverage and median width of the bootstrap intervals, the iid score interval
(:func:`mlci.engine.scores_rules.eer_score_interval`), its version with the design effect
over conditions (:func:`mlci.engine.scores_clustered.clustered_eer_interval`) and ``auto``.

Binormal scores over conditions of unequal sizes (lognormal shares, sd 0.6, as
``scripts/scores_few_errors_sweep.py``): non-targets N(0, 1), targets N(mu, 1), each class
with a condition shift (goats and lambs) of variance ``rho`` out of 1, so the marginal EER
is ``Phi(-mu / 2)``.  ``rho`` is set so that the *errors* (the indicators of a miss, of a
false alarm, at the population EER threshold) have the intra-class correlation ``icc``
over conditions: ``(Phi2(a, a; rho) - e^2) / (e (1 - e))`` with ``a = Phi^-1(e)``.  The
EER is set so that the smaller class expects ``k`` errors.

Every test set is bootstrapped once over conditions (B = 1000, ``method="bca"``, the
other intervals from the same replicates) and ``auto`` run on its own.  The coverage of
"the score interval over conditions below ``T`` errors of the estimate, else percentile"
is read post hoc for ``T`` in ``CUTS``.

``nice python scripts/scores_clustered_eer_sweep.py --reps 150`` (about 5 minutes of CPU);
``--quick`` a reduced grid; ``--part op`` the FNR at FPR 0.05; ``--part trials``
``trial_bootstrap_ci``'s EER over speakers (``-B 300``); ``--diagnose`` the score
interval alone over 10-50 conditions, by the estimate's errors, and the warning's rate.
docs/validation.md, "EER and operating points with few errors over conditions".
"""

from __future__ import annotations

import argparse
import time
import warnings
import zlib
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtri
from scipy.stats import multivariate_normal

import mlci
from mlci.engine.scores_clustered import (
    CLUSTER_WARN_ICC,
    clustered_eer_interval,
    clustered_error_counts,
    clustered_rate_interval,
    score_icc,
)
from mlci.engine.scores_rules import eer_score_interval, rate_score_interval

BOOT = ("percentile", "bca")
CUTS = (1.0, 2.0, 3.0, 5.0)


def latent_rho(e: float, icc: float) -> float:
    """The latent correlation whose threshold indicators at rate ``e`` correlate ``icc``."""
    if icc <= 0:
        return 0.0
    a = float(ndtri(e))

    def f(r: float) -> float:
        p2 = multivariate_normal(mean=[0, 0], cov=[[1, r], [r, 1]]).cdf([a, a])
        return (p2 - e * e) / (e * (1 - e)) - icc

    return float(brentq(f, 1e-9, 0.99999, xtol=1e-6))


@dataclass(frozen=True)
class Design:
    n: int
    pos: float
    k: float
    n_cond: int
    icc: float
    part: str = "eer"
    at: float = 0.05

    @property
    def n_pos(self) -> int:
        return max(round(self.n * self.pos), 2)

    @property
    def value(self) -> float:
        if self.part == "eer":
            return self.k / min(self.n_pos, self.n - self.n_pos)
        return self.k / self.n_pos

    @property
    def rho(self) -> tuple[float, float]:
        """Latent ICC of the positives' and the negatives' scores."""
        if self.part == "eer":
            r = latent_rho(self.value, self.icc)
            return r, r
        return latent_rho(self.value, self.icc), latent_rho(self.at, self.icc)

    @property
    def mu(self) -> float:
        if self.part == "eer":
            return float(-2 * ndtri(self.value))
        return float(ndtri(1 - self.at) - ndtri(self.value))

    def label(self) -> str:
        what = f"EER {self.value:.3g}" if self.part == "eer" else f"FNR {self.value:.3g}"
        return (
            f"{what}, n={self.n}, {self.n_pos} targets, k={self.k:g}, "
            f"{self.n_cond} cond, error ICC {self.icc:g}"
        )


def draw(d: Design, g: np.random.Generator, rho: tuple[float, float]) -> Any:
    n_pos = d.n_pos
    y = np.r_[np.ones(n_pos, bool), np.zeros(d.n - n_pos, bool)]
    share = g.lognormal(0, 0.6, d.n_cond)
    cond = g.choice(d.n_cond, d.n, p=share / share.sum()).astype(np.int64)
    r = np.where(y, rho[0], rho[1])
    u_pos, u_neg = g.standard_normal(d.n_cond), g.standard_normal(d.n_cond)
    shift = np.where(y, u_pos[cond], u_neg[cond])
    s = g.standard_normal(d.n) * np.sqrt(1 - r) + np.sqrt(r) * shift + d.mu * y
    return y, s, cond


def one(d: Design, rho: tuple[float, float], r: int, seed: int, B: int) -> dict[str, Any]:
    g = np.random.default_rng([seed, zlib.crc32(d.label().encode()), r])
    y, s, cond = draw(d, g, rho)
    while len(np.unique(cond[y])) < 2 or len(np.unique(cond[~y])) < 2:
        y, s, cond = draw(d, g, rho)
    sc = mlci.Scores.from_labels(y.astype(int), s)
    kw = {"n_resamples": B, "rng": r, "conditions": cond}
    out: dict[str, Any] = {}

    def run(**extra: Any) -> Any:
        if d.part == "eer":
            return mlci.eer_ci(sc, **kw, **extra).eer
        return mlci.operating_point_ci(sc, "fnr", at=d.at, **kw, **extra)[0]

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        auto = run()
    out["warned"] = any(type(x.message).__name__ == "NearBoundWarning" for x in w)
    out["auto_method"] = auto.method
    out["auto"] = tuple(map(float, auto.confidence_interval))
    out["estimate"] = float(auto.estimate)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = run(method="bca")
        for m in BOOT:
            out[m] = tuple(map(float, res.interval(method=m).confidence_interval))
    cc = clustered_error_counts(s[~y], cond[~y], s[y], cond[y])
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if d.part == "eer":
        out["iid score"] = eer_score_interval(cc.fn, cc.fp, n_pos, n_neg)
        out["cluster score"] = clustered_eer_interval(cc)
    else:
        out["iid score"] = rate_score_interval(cc.fn, n_pos, cc.fp, n_neg, d.at)
        out["cluster score"] = clustered_rate_interval(cc, "fnr", d.at)
    return out


def study(d: Design, reps: int, seed: int, B: int) -> dict[str, Any]:
    t = d.value
    rho = d.rho
    rows = [one(d, rho, r, seed, B) for r in range(reps)]
    methods = ("auto", *BOOT, "iid score", "cluster score")
    cov = {m: float(np.mean([x[m][0] <= t <= x[m][1] for x in rows])) for m in methods}
    wid = {m: float(np.median([x[m][1] - x[m][0] for x in rows])) for m in methods}
    small = min(d.n_pos, d.n - d.n_pos) if d.part == "eer" else d.n_pos
    for cut in CUTS:
        pick = [
            x["cluster score" if min(x["estimate"], 1 - x["estimate"]) * small < cut
              else ("percentile" if d.part == "eer" else "bca")]
            for x in rows
        ]  # fmt: skip
        cov[f"rule<{cut:g}"] = float(np.mean([lo <= t <= hi for lo, hi in pick]))
    chosen: dict[str, int] = {}
    for x in rows:
        chosen[x["auto_method"]] = chosen.get(x["auto_method"], 0) + 1
    return {"cov": cov, "width": wid, "warned": int(sum(x["warned"] for x in rows)),
            "chosen": chosen, "rho": rho}  # fmt: skip


def designs(part: str, quick: bool) -> list[Design]:
    out = []
    conds = (5, 20, 200) if quick else (5, 10, 20, 50, 200)
    iccs = (0.0, 0.25, 0.5) if quick else (0.0, 0.1, 0.25, 0.5)
    ks = (0.5, 1, 2, 5)
    for c in conds:
        for icc in iccs:
            for k in ks:
                if part == "eer":
                    out.append(Design(1000, 0.1, k, c, icc))
                else:
                    out.append(Design(1000, 0.1, k, c, icc, "op", 0.05))
    if part == "eer" and not quick:  # balanced classes, fewer trials
        for c in (10, 50):
            for icc in (0.1, 0.5):
                for k in (0.5, 2):
                    out.append(Design(300, 0.5, k, c, icc))
    return out


def diagnose(reps: int, seed: int) -> None:
    """The score interval over conditions alone (no bootstrap), 10-50 conditions: its
    coverage by the estimate's errors, and how often the warning's score ICC is reached."""
    by_icc: dict[float, list[bool]] = {}
    print("| design | coverage | by the estimate's errors: [0, 1), [1, 3), [3, 5), 5+ |")
    print("|---|---|---|")
    for c in (10, 20, 50):
        for icc in (0.1, 0.25, 0.5):
            for k in (1, 2, 3.5, 5):
                d = Design(1000, 0.1, k, c, icc)
                rho, rows = d.rho, []
                for r in range(reps):
                    g = np.random.default_rng([seed + 8, zlib.crc32(d.label().encode()), r])
                    y, s, cond = draw(d, g, rho)
                    if len(np.unique(cond[y])) < 2:
                        continue
                    cc = clustered_error_counts(s[~y], cond[~y], s[y], cond[y])
                    lo, hi = clustered_eer_interval(cc)
                    j = np.argmin(np.abs(cc.fn / cc.n_pos - cc.fp / cc.n_neg))
                    errors = 50.0 * (cc.fn[j] / cc.n_pos + cc.fp[j] / cc.n_neg)
                    ic = max(score_icc(s[y], cond[y]), score_icc(s[~y], cond[~y]))
                    rows.append((errors, lo <= d.value <= hi))
                    if errors < 5:
                        by_icc.setdefault(icc, []).append(ic >= CLUSTER_WARN_ICC)
                a = np.array(rows, dtype=float)
                cells = []
                for lo_e, hi_e in ((0, 1), (1, 3), (3, 5), (5, np.inf)):
                    m = (a[:, 0] >= lo_e) & (a[:, 0] < hi_e)
                    cells.append(f"{a[m, 1].mean():.2f} ({m.sum()})" if m.any() else "-")
                print(f"| {d.label()} | {a[:, 1].mean():.3f} | {', '.join(cells)} |")
    for icc, w in sorted(by_icc.items()):
        print(f"error ICC {icc:g}: score ICC >= {CLUSTER_WARN_ICC:g} in {np.mean(w):.2f} "
              f"of {len(w)} test sets given the interval")  # fmt: skip


def trials_part(reps: int, seed: int, B: int) -> None:
    """``trial_bootstrap_ci``'s EER over speakers: every pair of recordings a trial (r = 3
    recordings a speaker), targets ``mu + a_s + e``, non-targets ``b_s + b_s' + e`` (``a``
    of variance ``rho``, ``b`` of ``rho / 2``, ``e`` of ``1 - rho``: both classes' scores
    of variance 1, EER ``Phi(-mu / 2)``), ``k`` expected errors among the targets."""
    from mlci.scores.trials import trial_bootstrap_ci

    methods = ("auto", "percentile", "basic", "iid score", "one-way score", "dyadic score")
    print(f"| design | auto chose | warned | {' | '.join(methods)} |")
    print("|---|---|---|" + "---|" * len(methods))
    t0 = time.process_time()
    for n_spk in (20, 40):
        for rho in (0.2, 0.6):
            for k in (0.5, 1.0, 2.0, 5.0):
                spk = np.repeat(np.arange(n_spk), 3)
                ids = np.array([f"r{i}" for i in range(len(spk))])
                e, t = np.triu_indices(len(spk), k=1)
                lab = spk[e] == spk[t]
                truth = k / lab.sum()
                mu = float(-2 * ndtri(truth))
                label = f"{n_spk} speakers, {lab.sum()} targets, rho {rho:g}, k={k:g}"
                rows, chosen, warned = [], {}, 0
                for r in range(reps):
                    g = np.random.default_rng([seed + 9, zlib.crc32(label.encode()), r])
                    a = g.normal(size=n_spk) * np.sqrt(rho)
                    b = g.normal(size=n_spk) * np.sqrt(rho / 2)
                    sc = np.where(lab, mu + a[spk[e]], b[spk[e]] + b[spk[t]])
                    sc = sc + g.normal(size=len(e)) * np.sqrt(1 - rho)
                    with warnings.catch_warnings(record=True) as w:
                        warnings.simplefilter("always")
                        res = trial_bootstrap_ci(lab, sc, enroll_ids=ids[e], test_ids=ids[t],
                                                 speaker_of=dict(zip(ids, spk, strict=True)),
                                                 n_resamples=B, rng=r)  # fmt: skip
                        out = {"auto": tuple(res.confidence_interval)}
                        for m in ("percentile", "basic"):
                            out[m] = tuple(res.interval(method=m).confidence_interval)
                    warned += any(type(x.message).__name__ == "NearBoundWarning" for x in w)
                    chosen[res.method] = chosen.get(res.method, 0) + 1
                    pos = lab
                    both = np.stack([spk[e], spk[t]], axis=1)
                    cc = clustered_error_counts(sc[~pos], both[~pos], sc[pos], both[pos])
                    one = clustered_error_counts(sc[~pos], spk[e][~pos], sc[pos], spk[e][pos])
                    out["iid score"] = eer_score_interval(cc.fn, cc.fp, cc.n_pos, cc.n_neg)
                    out["one-way score"] = clustered_eer_interval(one)
                    out["dyadic score"] = clustered_eer_interval(cc)
                    rows.append(out)
                cells = []
                for m in methods:
                    cov = np.mean([x[m][0] <= truth <= x[m][1] for x in rows])
                    wid = np.median([x[m][1] - x[m][0] for x in rows])
                    cells.append(f"{cov:.3f} / {wid:.3g}")
                ch = ", ".join(f"{m} {c}" for m, c in sorted(chosen.items()))
                print(f"| {label} | {ch} | {warned} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n{reps} test sets per design, B = {B}; {time.process_time() - t0:.0f} s CPU")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", default="eer", choices=("eer", "op", "trials"))
    p.add_argument("--quick", action="store_true")
    p.add_argument("--reps", type=int, default=150)
    p.add_argument("-B", "--resamples", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--design", type=int, action="append")
    p.add_argument("--diagnose", action="store_true", help="the interval alone, by errors")
    a = p.parse_args()
    if a.diagnose:
        diagnose(a.reps, a.seed)
        return
    if a.part == "trials":
        trials_part(a.reps, a.seed, a.resamples)
        return
    ds = designs(a.part, a.quick)
    methods = ("auto", *BOOT, "iid score", "cluster score")
    rules = [f"rule<{c:g}" for c in CUTS]
    print(f"| # | design | latent ICC | auto chose | warned | {' | '.join(methods)} | "
          f"{' | '.join(rules)} |")  # fmt: skip
    print("|---|---|---|---|---|" + "---|" * (len(methods) + len(rules)))
    t0 = time.process_time()
    for i, d in enumerate(ds):
        if a.design and i not in a.design:
            continue
        r = study(d, a.reps, a.seed, a.resamples)
        cells = [f"{r['cov'][m]:.3f} / {r['width'][m]:.3g}" for m in methods]
        cells += [f"{r['cov'][c]:.3f}" for c in rules]
        chose = ", ".join(f"{m} {c}" for m, c in sorted(r["chosen"].items()))
        print(f"| {i} | {d.label()} | {r['rho'][0]:.2f} | {chose} | {r['warned']} | "
              + " | ".join(cells) + " |", flush=True)  # fmt: skip
    print(f"\n{a.reps} test sets per design, B = {a.resamples}; "
          f"{time.process_time() - t0:.0f} s CPU")  # fmt: skip


if __name__ == "__main__":
    main()
