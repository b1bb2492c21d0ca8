"""Coverage of the intervals of a paired difference (``mlci.compare``), issue 20.

The design search found that ``compare``'s default interval of a paired accuracy
difference (the ``t`` interval on the linearized CR2 standard error, a Wald interval)
under-covers where BCa holds (n = 943, gap 0.018: 0.916 vs 0.953; n = 20: 0.891 vs
0.949).  This study maps where, and what holds there.

**Designs** (random, numbered: design ``i`` of a seed is always the same): metric
accuracy, f1 or roc_auc; n 20-5,000 (log-uniform; roc_auc up to 2,000); the accuracy
(or AUC) of system A 0.6-0.995; a true gap ``A - B`` of 0-0.05; the correlation ``rho``
of the two systems' errors (0-1, half of the designs at 0.7-1, where the discordant
samples are few and lopsided); iid, or 5-200 conditions with an ICC of 0-0.5 and equal
or log-normal unequal sizes.

**Populations** (truth exact).  Decisions: A errs with probability ``e_A`` (Beta across
conditions with mean ``e_A`` and the ICC), B errs with probability ``q1`` where A errs
and ``q0`` where A is right, so that B's error rate is ``e_B = e_A + gap`` and the
correlation of the two error indicators is ``rho`` (capped where the gap forbids it:
``rho = 1`` means that B errs wherever A does).  Because B's error probability is linear
in A's, the population cells are those of the mean rates and the truth of accuracy and
f1 is exact (:func:`mlci.simulation.data.cell_metric`).  roc_auc: binormal scores,
A = e + u + d_A y, B = rho e + sqrt(1 - rho^2) e' + u + d_B y with a condition shift u
of variance ICC / (1 - ICC), truth ``Phi(d / sqrt(2 (1 + s_u^2)))``.

**Methods** (95%, B = 1000): ``t`` (auto before this study), ``auto``, BCa,
studentized, percentile and, for iid accuracy, Newcombe's and Tango's intervals from the
paired table (:func:`mlci.paired_proportion_diff_ci`).  Each test set also records its
discordant counts ``b`` (only A right) and ``c`` (only B right) and the linearized
skewness of the difference (``details["skewness"]``; :mod:`mlci.engine.skewness`).

Usage::

    nice python scripts/paired_diff_study.py                   # 24 designs x 100 test sets
    nice python scripts/paired_diff_study.py --quick           # 12 designs x 60
    nice python scripts/paired_diff_study.py --json out.json   # keep every test set
    nice python scripts/paired_diff_study.py --design 3 --reps 800
    nice python scripts/paired_diff_study.py --grid --reps 200  # n x discordant, accuracy
    nice python scripts/paired_diff_study.py --exact           # exact t and Tango, ~1 min
    nice python scripts/paired_diff_study.py --report a.json b.json  # tables of saved runs

The summary groups every test set by its effective number of discordant samples
``1 / skewness^2`` (or by ``b + c``) and prints each method's coverage in each group (a
grouping by a statistic of the test set, so it shows where each method misses, not a
design's coverage), then applies ``auto``'s rule to every saved test set, design by
design (:func:`rule_table`).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import time
import warnings
from typing import Any

import numpy as np
from scipy import stats
from scipy.special import ndtri

import mlci
from mlci.simulation.data import cell_metric

METRICS = ("accuracy", "f1", "roc_auc")
METHODS = ("t", "auto", "bca", "studentized", "percentile")
ANALYTIC = ("newcombe", "tango")


@dataclasses.dataclass(frozen=True)
class Design:
    index: int
    metric: str
    n: int
    level: float  # accuracy (or AUC) of system A
    gap: float  # A - B in the population
    rho: float  # correlation of the two systems' errors (noise, for roc_auc)
    prevalence: float
    n_conditions: int
    icc: float
    unequal: bool

    def label(self) -> str:
        cond = (
            "iid"
            if not self.n_conditions
            else f"C={self.n_conditions} icc={self.icc:.2f}{' uneq' if self.unequal else ''}"
        )
        return (
            f"#{self.index} {self.metric} n={self.n} lvl={self.level:.3f} gap={self.gap:.3f} "
            f"rho={self.rho:.2f} prev={self.prevalence:.2f} {cond}"
        )


def random_design(index: int, seed: int) -> Design:
    g = np.random.default_rng([seed, index, 31])
    metric = str(g.choice(METRICS, p=[0.5, 0.25, 0.25]))
    n = round(math.exp(g.uniform(math.log(20), math.log(5000 if metric != "roc_auc" else 2000))))
    level = 1 - math.exp(g.uniform(math.log(0.005), math.log(0.4)))
    gap = 0.0 if g.random() < 0.15 else float(g.uniform(0, 0.05))
    gap = min(gap, 0.5 * (1 - level) + 0.02)
    rho = float(g.uniform(0.7, 1.0)) if g.random() < 0.5 else float(g.uniform(0, 0.7))
    prevalence = float(g.uniform(0.2, 0.5))
    if g.random() < 0.4 and n >= 40:
        c = round(math.exp(g.uniform(math.log(5), math.log(min(200, n / 2)))))
        return Design(
            index, metric, n, level, gap, rho, prevalence, c, g.uniform(0, 0.5), g.random() < 0.5
        )
    return Design(index, metric, n, level, gap, rho, prevalence, 0, 0.0, False)


def grid_designs(metric: str = "accuracy") -> list[Design]:
    """A grid over ``n`` and the expected number of discordant samples ``D``, iid, system
    A at 0.9: *lopsided* (B errs wherever A does and on ``D`` more, gap ``D / n``) and
    *balanced* (gap 0, ``D / 2`` discordant samples each way)."""
    out = []
    e = 0.1
    for n in (20, 60, 200, 1000, 5000):
        for disc in (3, 6, 12, 25, 50, 100):
            if disc > 0.5 * n * e + (n * 0.05 if n >= 200 else 0):
                continue
            idx = 1000 + len(out)
            out.append(Design(idx, metric, n, 1 - e, disc / n, 1.0, 0.4, 0, 0.0, False))
            rho = (e - disc / (2 * n) - e * e) / (e * (1 - e))
            if rho >= 0:
                out.append(Design(idx + 500, metric, n, 1 - e, 0.0, rho, 0.4, 0, 0.0, False))
    return out


def joint_rates(e_a: float, gap: float, rho: float) -> tuple[float, float]:
    """(q1, q0): B's error probability where A errs / where A is right."""
    e_b = min(e_a + gap, 0.999)
    both = e_a * e_b + rho * math.sqrt(e_a * (1 - e_a) * e_b * (1 - e_b))
    both = min(max(both, max(0.0, e_a + e_b - 1)), min(e_a, e_b))
    return both / e_a, (e_b - both) / (1 - e_a)


class Population:
    def __init__(self, d: Design):
        self.d = d
        if d.n_conditions:
            gg = np.random.default_rng([d.index, 7])
            share = gg.lognormal(0, 1, d.n_conditions) if d.unequal else np.ones(d.n_conditions)
            sizes = np.maximum(1, np.floor(share / share.sum() * (d.n - d.n_conditions)) + 1)
            sizes = sizes.astype(int)
            sizes[np.argmax(sizes)] += d.n - sizes.sum()
            self.cond = np.repeat(np.arange(d.n_conditions), sizes)
        else:
            self.cond = None
        self.su = math.sqrt(d.icc / (1 - d.icc)) if d.n_conditions and d.icc > 0 else 0.0
        if d.metric == "roc_auc":
            scale = math.sqrt(1 + self.su**2)
            auc_b = max(d.level - d.gap, 0.5)
            self.d_a = math.sqrt(2) * float(ndtri(d.level)) * scale
            self.d_b = math.sqrt(2) * float(ndtri(auc_b)) * scale
            self.truth = d.level - auc_b
        else:
            self.e = 1 - d.level
            self.q1, self.q0 = joint_rates(self.e, d.gap, d.rho)
            e_b = self.e * self.q1 + (1 - self.e) * self.q0
            pi = d.prevalence

            def value(err: float) -> float:
                return cell_metric(
                    d.metric, pi * (1 - err), (1 - pi) * err, pi * err, (1 - pi) * (1 - err)
                )

            self.truth = value(self.e) - value(e_b)

    def draw(self, g: np.random.Generator) -> dict[str, Any]:
        d, n = self.d, self.d.n
        y = (g.random(n) < d.prevalence).astype(np.int64)
        c = d.n_conditions or 1
        cond = np.zeros(n, dtype=np.int64) if self.cond is None else self.cond
        if d.metric == "roc_auc":
            u = self.su * g.standard_normal(c)[cond]
            e = g.standard_normal(n)
            a = e + u + self.d_a * y
            b = d.rho * e + math.sqrt(1 - d.rho**2) * g.standard_normal(n) + u + self.d_b * y
            return {"y": y, "a": a, "b": b}
        if d.n_conditions and d.icc > 0:
            s = 1 / d.icc - 1
            e_c = g.beta(self.e * s, (1 - self.e) * s, size=c)[cond]
        else:
            e_c = np.full(n, self.e)
        wa = g.random(n) < e_c
        wb = np.where(wa, g.random(n) < self.q1, g.random(n) < self.q0)
        return {"y": y, "a": np.where(wa, 1 - y, y), "b": np.where(wb, 1 - y, y)}


def one_test_set(
    d: Design, pop: Population, x: dict[str, Any], seed: int, B: int
) -> dict[str, Any]:
    y, a, b = x["y"], x["a"], x["b"]
    out: dict[str, Any] = {}
    common = {"n_resamples": B, "rng": seed, "n_jobs": 1, "conditions": pop.cond}
    for m in METHODS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                r = mlci.compare(y, {"a": a, "b": b}, metric=d.metric, method=m, **common)
            except ValueError:
                return {}
        diff = r.difference("a", "b")
        out[m] = tuple(map(float, diff.confidence_interval))
        if m == "auto":
            out["auto_method"] = diff.method
            out["warned"] = any(issubclass(w.category, mlci.MlciWarning) for w in caught)
        if m == "t":
            out["estimate"] = float(diff.estimate)
            out["skewness"] = float(diff.details.get("skewness", math.nan))
    if d.metric != "roc_auc":
        ca, cb = a == y, b == y
        out["b"], out["c"] = int(np.sum(ca & ~cb)), int(np.sum(~ca & cb))
        if pop.cond is None and d.metric == "accuracy":
            table = mlci.paired_table(ca, cb)
            for m in ANALYTIC:
                ci = mlci.paired_proportion_diff_ci(table, method=m).confidence_interval
                out[m] = tuple(map(float, ci))
    return out


def run_design(d: Design, reps: int, B: int, seed: int = 0) -> dict[str, Any]:
    pop = Population(d)
    t0 = time.process_time()
    rows = []
    for i in range(reps):
        g = np.random.default_rng([seed, d.index, i, 5])
        r = one_test_set(d, pop, pop.draw(g), seed=i, B=B)
        if r:
            rows.append(r)
    summary: dict[str, Any] = {"design": dataclasses.asdict(d), "label": d.label()}
    summary["truth"] = pop.truth
    summary["reps"] = len(rows)
    for m in (*METHODS, *ANALYTIC):
        got = [r[m] for r in rows if m in r]
        if not got:
            continue
        lo, hi = np.array(got).T
        summary[m] = {
            "coverage": float(np.mean((lo <= pop.truth + 1e-12) & (pop.truth - 1e-12 <= hi))),
            "width": float(np.median(hi - lo)),
        }
    summary["auto_methods"] = sorted({r["auto_method"] for r in rows})
    summary["warned"] = int(sum(r["warned"] for r in rows))
    summary["rows"] = rows
    summary["seconds"] = time.process_time() - t0
    return summary


def effective_discordant(skew: float) -> float:
    return math.inf if not skew or math.isnan(skew) else 1.0 / skew**2


def group_table(results: list[dict[str, Any]], by: str = "skewness") -> None:
    """Coverage of every method in bins of ``1 / skewness^2`` (or of the discordant count
    ``b + c``, ``by="discordant"``), all test sets pooled."""
    edges = [0, 5, 10, 20, 40, 80, math.inf]
    what = "1/skew^2" if by == "skewness" else "b + c"
    print(f"\ncoverage by {what} (test sets pooled):")
    head = f"{'bin':>10} {'N':>6} " + " ".join(f"{m:>11}" for m in (*METHODS, *ANALYTIC))
    for metric in (*METRICS, "all"):
        print(f"-- {metric}\n{head}")
        for lo_e, hi_e in itertools.pairwise(edges):
            cov: dict[str, list[bool]] = {m: [] for m in (*METHODS, *ANALYTIC)}
            for s in results:
                if metric != "all" and s["design"]["metric"] != metric:
                    continue
                truth = s["truth"]
                for r in s["rows"]:
                    if by == "skewness":
                        k = effective_discordant(r["skewness"])
                    elif "b" in r:
                        k = r["b"] + r["c"]
                    else:
                        continue
                    if not (lo_e <= k < hi_e):
                        continue
                    for m in cov:
                        if m in r:
                            cov[m].append(r[m][0] <= truth + 1e-12 and truth - 1e-12 <= r[m][1])
            n_rows = len(cov["t"])
            if not n_rows:
                continue
            cells = " ".join(f"{np.mean(v):>11.3f}" if v else f"{'-':>11}" for v in cov.values())
            print(f"{lo_e:>4}-{hi_e:<5} {n_rows:>6} {cells}")


def exact_coverage(
    n: int, p_b: float, p_c: float, method: str, confidence_level: float = 0.95
) -> float:
    """Exact coverage of ``c - b`` over ``n`` for a paired accuracy difference of
    independent samples, ``b`` (only A right) and ``c`` (only B right) trinomial with
    probabilities ``p_b``, ``p_c``: ``"t"`` (compare's t interval, the Wald interval with
    ``n / (n - 1)`` and the t(n - 1) quantile) or ``"tango"``
    (:func:`mlci.paired_proportion_diff_ci`).  Enumerates every (b, c) of non-negligible
    probability."""
    disc = n * (p_b + p_c)
    top = int(min(n, disc + 8 * math.sqrt(disc) + 12))
    b = np.arange(top + 1)[:, None]
    c = np.arange(top + 1)[None, :]
    pmf = stats.binom.pmf(b, n, p_b) * stats.binom.pmf(c, n - b, p_c / (1 - p_b))
    pmf = np.where(b + c <= n, pmf, 0.0)
    truth = p_c - p_b
    if method == "t":
        se = np.sqrt(np.maximum((b + c) - (b - c) ** 2 / n, 0) * n / (n - 1)) / n
        covered = (
            np.abs((c - b) / n - truth)
            <= stats.t.ppf(0.5 + confidence_level / 2, n - 1) * se + 1e-15
        )
    else:
        covered = np.zeros(pmf.shape, dtype=bool)
        for i, j in zip(*np.nonzero(pmf > 1e-10), strict=True):
            m = n - i - j
            table = [[m - m // 10, j], [i, m // 10]]  # the split of m does not matter
            ci = mlci.paired_proportion_diff_ci(
                table, method=method, confidence_level=confidence_level
            )
            lo, hi = ci.confidence_interval
            covered[i, j] = lo <= truth + 1e-12 and truth - 1e-12 <= hi
    return float(np.sum(pmf * covered) / np.sum(pmf))


def exact_table() -> None:
    """Exact coverage of the t and Tango intervals over n, the expected number of
    discordant samples D and the share of them that goes the other way."""
    print("exact coverage, paired accuracy difference of independent samples")
    print("(BCa: no exact coverage, it needs the bootstrap; see the simulated tables)")
    print(f"{'n':>6} {'D':>4} {'share':>6} {'1/skew^2':>9} {'t':>7} {'tango':>7}")
    for n in (60, 200, 1000, 5000):
        for disc in (2, 3, 4, 6, 8, 12, 16, 20, 30, 50):
            for share in (0.0, 0.25, 0.5):
                p_b, p_c = share * disc / n, (1 - share) * disc / n
                mu, var = p_c - p_b, p_b + p_c - (p_c - p_b) ** 2
                m3 = p_b * (-1 - mu) ** 3 + p_c * (1 - mu) ** 3 + (1 - p_b - p_c) * (-mu) ** 3
                skew = m3 / var**1.5 / math.sqrt(n)
                eff = 1 / skew**2 if abs(skew) > 1e-12 else math.inf
                tango = exact_coverage(n, p_b, p_c, "tango")
                print(
                    f"{n:>6} {disc:>4} {share:>6.2f} {eff:>9.1f} "
                    f"{exact_coverage(n, p_b, p_c, 't'):>7.3f} {tango:>7.3f}",
                    flush=True,
                )


def rule_table(results: list[dict[str, Any]], threshold: float = 30.0) -> None:
    """``auto``'s skewness rule applied to every saved test set (BCa where its own
    ``1 / skewness^2 < threshold``, else t), design by design: independent samples,
    accuracy and f1, n >= 30, a median of at least 2 discordant samples."""
    print(f"\nthe rule (BCa below 1/skew^2 = {threshold:g}) test set by test set:")
    rule, t_only = [], []
    for s in results:
        d = s["design"]
        if d["n_conditions"] or d["metric"] == "roc_auc" or d["n"] < 30:
            continue
        if np.median([r["b"] + r["c"] for r in s["rows"]]) < 2:
            continue
        truth = s["truth"]

        def covers(ci: list[float], truth: float = truth) -> bool:
            return ci[0] <= truth + 1e-12 and truth - 1e-12 <= ci[1]

        switched = [
            not math.isnan(r["skewness"]) and r["skewness"] ** 2 * threshold > 1 for r in s["rows"]
        ]
        got = [
            covers(r["bca"] if sw else r["t"]) for r, sw in zip(s["rows"], switched, strict=True)
        ]
        t_cov = float(np.mean([covers(r["t"]) for r in s["rows"]]))
        rule.append(float(np.mean(got)))
        t_only.append(t_cov)
        print(
            f"{s['label']:<72} switched {sum(switched):>4}/{len(got):<4} "
            f"t {t_cov:.3f} rule {rule[-1]:.3f}"
        )
    if rule:
        print(
            f"{len(rule)} designs: rule mean {np.mean(rule):.3f} lowest {min(rule):.3f}; "
            f"t mean {np.mean(t_only):.3f} lowest {min(t_only):.3f}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--designs", type=int, default=24)
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("-B", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--design", type=int, default=None, help="run only this design")
    p.add_argument("--quick", action="store_true", help="12 designs x 60 test sets, B = 500")
    p.add_argument("--json", default=None, help="write every test set here")
    p.add_argument("--exact", action="store_true", help="exact coverage of t and Tango")
    p.add_argument("--grid", action="store_true", help="the (n, discordant) grid of iid accuracy")
    p.add_argument("--report", nargs="+", default=None, help="only the tables of saved --json runs")
    args = p.parse_args()
    if args.exact:
        exact_table()
        return
    if args.report:
        saved: list[dict[str, Any]] = []
        for f in args.report:
            with open(f) as fh:
                saved += json.load(fh)
        group_table(saved)
        group_table(saved, by="discordant")
        rule_table(saved)
        return
    if args.quick:
        args.designs, args.reps, args.B = 12, 60, 500
    designs = (
        grid_designs()
        if args.grid
        else [
            random_design(i, args.seed)
            for i in ([args.design] if args.design is not None else range(args.designs))
        ]
    )
    results = []
    cols = (*METHODS, *ANALYTIC)
    print(f"{'design':<72} {'truth':>8} " + " ".join(f"{m:>11}" for m in cols))
    for d in designs:
        s = run_design(d, args.reps, args.B, args.seed)
        results.append(s)
        cells = " ".join(
            f"{s[m]['coverage']:.3f}/{s[m]['width']:.3f}"[:11].rjust(11) if m in s else " " * 11
            for m in cols
        )
        bc = [r["b"] + r["c"] for r in s["rows"] if "b" in r]
        disc = f" b+c~{np.median(bc):.0f}" if bc else ""
        print(f"{d.label():<72} {s['truth']:>8.4f} {cells}{disc} ({s['seconds']:.0f}s)", flush=True)
        if args.json:  # after every design, so that an interrupted run keeps what it did
            with open(args.json, "w") as f:
                json.dump(results, f)
    group_table(results)
    group_table(results, by="discordant")
    rule_table(results)


if __name__ == "__main__":
    main()
