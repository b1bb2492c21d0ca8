"""Paired differences over conditions: which test sets need a bootstrap interval (issue 20).

Two designs of the seed-5 design search (docs/validation.md, "Paired differences over
conditions (seed-5 #14 and #2)") show ``compare``'s ``auto`` (the t interval on the CR2
standard error over conditions) short of BCa: #14, a paired f1 difference whose handful of
discordant samples all go one way, and #2, a paired roc_auc difference near 1.  Extending
the skewness rule of independent samples (BCa where ``1 / skewness^2 < 30``) to conditions
fixes #14 but lowers the coverage of ``scripts/paired_diff_study.py``'s clustered designs.
This script records, for every test set of a family of designs, the t, BCa, percentile and
studentized intervals of the difference (each from the same replicates: the same seed) and
statistics of the linearized difference that a rule could read:

* ``skew_c``, ``kurt_c``: skewness and excess kurtosis over the conditions' totals
  (what ``compare`` reports in ``details``), ``skew_i``, ``kurt_i`` over the samples as
  if independent;
* ``deff``: the design effect of the difference, its CR2 variance over the conditions
  divided by its variance over independent samples;
* ``units``: the number of conditions whose total of the centred influence is not 0
  (to 1e-9 of the largest), ``top``: the share of ``sum r_c^2`` in the largest;
* for roc_auc, each system's number of mis-ordered (positive, negative) pairs and the
  share of conditions where it ranks every positive above every negative.

Usage::

    nice python scripts/paired_conditions_study.py run FAMILY REPS OUT.jsonl [B [SEED]]
    nice python scripts/paired_conditions_study.py report OUT.jsonl [...]
    nice python scripts/paired_conditions_study.py switches FAMILY REPS [--run]

``FAMILY`` is one of :data:`FAMILIES` (``s5-14``: seed 5 #14 and its variants; ``study``:
the clustered accuracy and f1 designs of paired_diff_study.py, seed 0; ``holds``: the
s3/s4/s5 paired designs over conditions where t holds; ``auc``: s5 #2, s3 #14 and the
paired roc_auc designs over conditions).
"""

from __future__ import annotations

import dataclasses
import json
import math
import sys
import time
import warnings
from typing import Any

import numpy as np

sys.path.insert(0, "scripts")
import design_search as ds
import paired_diff_study as ps

import mlci
from mlci.comparison import paired_conditions as pc
from mlci.comparison.common import ContrastKernel, JointKernel, gather_paired, kernel_data
from mlci.engine.linearize import Linearization
from mlci.engine.nested import plan_for_conditions
from mlci.engine.skewness import linearized_shape
from mlci.metrics import get_kernel, metric_params

METHODS = ("t", "bca", "percentile", "studentized")


def pair_features(y: np.ndarray, a: np.ndarray, b: np.ndarray, metric: str, cond: Any) -> dict:
    """The linearized difference ``a - b``'s statistics over conditions and samples."""
    data = gather_paired(y, {"a": a, "b": b}, metric=metric, conditions=cond)
    params = metric_params(metric, None, "default", None)
    kernels = [
        get_kernel(metric, kernel_data(data.y_true, o), params) for o in data.outputs.values()
    ]
    jk = JointKernel(kernels, metric)
    contrast = ContrastKernel(jk, np.array([0]), np.array([1]))
    out: dict[str, float] = {}
    lins = {}
    for tag, c in (("c", data.conditions), ("i", None)):
        plan = plan_for_conditions(data.n_samples, conditions=c, n_resamples=10, rng=0)
        lin = Linearization(contrast, plan)
        g, k = linearized_shape(lin)
        out[f"skew_{tag}"], out[f"kurt_{tag}"] = float(g[2]), float(k[2])
        _, _, grad = lin.at_data()
        units = lin.units
        if tag == "c":
            gd = np.asarray(grad, dtype=float)[0][:, 2]
            yc = units.unit_sums(gd[None, :, None])[0][:, 0]
            size = units.unit_size
            r = yc - size * (yc.sum() / size.sum())
            r2 = r**2
            out["units"] = int(np.sum(np.abs(r) > 1e-9 * np.abs(r).max())) if r2.sum() else 0
            out["top"] = float(r2.max() / r2.sum()) if r2.sum() else math.nan
            out["n_units"] = int(units.n_units)
        lins[tag] = lin.estimate()
    se_c = float(lins["c"].standard_error[2])
    se_i = float(lins["i"].standard_error[2])
    out["se"], out["df"] = se_c, float(lins["c"].df)
    out["deff"] = se_c**2 / se_i**2 if se_i > 0 else math.nan
    return out


def auc_edge(y: np.ndarray, s: np.ndarray, cond: np.ndarray) -> dict:
    """Per system: the share of conditions (with both classes) where the system's positives
    all score above its negatives, and its number of mis-ordered pairs."""
    out = {}
    ids = np.unique(cond)
    perfect = 0
    both = 0
    for c in ids:
        m = cond == c
        yp, yn = s[m & (y == 1)], s[m & (y == 0)]
        if len(yp) and len(yn):
            both += 1
            perfect += bool(yp.min() > yn.max())
    out["cond_perfect"] = perfect / max(both, 1)
    out["cond_both"] = both
    # mis-ordered pairs overall
    pos, neg = np.sort(s[y == 1]), np.sort(s[y == 0])
    out["misordered"] = float(np.sum(len(neg) - np.searchsorted(neg, pos, side="left")))
    return out


# --------------------------------------------------------------------------- families
def s5(i: int) -> ds.Design:
    return ds.random_design(i, 5, focus="paired")


def fam_s5_14() -> list[tuple[str, Any, Any]]:
    d = s5(14)
    return [
        ("s5#14", "ds", d),
        ("s5#14 icc0.45", "ds", dataclasses.replace(d, icc=0.45)),
        ("s5#14 C15", "ds", dataclasses.replace(d, n_conditions=15)),
        ("s5#14 gapx2", "ds", dataclasses.replace(d, gap=2 * d.gap)),
        ("s5#14 unequal", "ds", dataclasses.replace(d, unequal=True)),
        ("s5#14 acc", "ds", dataclasses.replace(d, metric="accuracy")),
    ]


def fam_study() -> list[tuple[str, Any, Any]]:
    out = []
    for i in (0, 16, 19, 21, 22, 28, 29, 34, 42, 45):
        d = ps.random_design(i, 0)
        out.append((f"study#{i}", "ps", d))
    return out


def fam_holds() -> list[tuple[str, Any, Any]]:
    out = [(f"s5#{i}", "ds", s5(i)) for i in (8, 10, 18, 22, 12, 23)]
    out += [(f"s4#{i}", "ds", ds.random_design(i, 4)) for i in (11,)]
    out += [(f"s3#{i}", "ds", ds.random_design(i, 3)) for i in (24, 39)]
    return out


def fam_auc() -> list[tuple[str, Any, Any]]:
    out = [("s5#2", "ds", s5(2)), ("s3#14", "ds", ds.random_design(14, 3))]
    out += [(f"s5#{i}", "ds", s5(i)) for i in (5, 9, 4)]
    out += [(f"s4#{i}", "ds", ds.random_design(i, 4)) for i in (15, 19)]
    out += [(f"s3#{i}", "ds", ds.random_design(i, 3)) for i in (20, 49)]
    return out


def fam_auc2() -> list[tuple[str, Any, Any]]:
    """The paired roc_auc designs over conditions of :func:`fam_auc` but s5 #2, s3 #14 and
    s5 #5 (n = 4,715 over 262 conditions: too slow for a shared machine)."""
    return [x for x in fam_auc() if x[0] not in ("s5#2", "s3#14", "s5#5")]


def fam_few() -> list[tuple[str, Any, Any]]:
    """Skewed differences over fewer than 20 effective conditions (study #45, t 0.920, BCa
    0.960), its variants, and the designs where BCa fell short with few conditions."""
    d45 = ps.random_design(45, 0)
    out = fam_study()
    out += [
        ("study#45 f1", "ps", dataclasses.replace(d45, metric="f1")),
        ("study#45 C12", "ps", dataclasses.replace(d45, n_conditions=12)),
        ("study#45 equal", "ps", dataclasses.replace(d45, unequal=False)),
        ("study#45 icc0.4", "ps", dataclasses.replace(d45, icc=0.4)),
    ]
    d14 = s5(14)
    out += [
        ("s5#14 C15", "ds", dataclasses.replace(d14, n_conditions=15)),
        ("s5#14 C10", "ds", dataclasses.replace(d14, n_conditions=10)),
        ("s5#14 C26 unequal", "ds", dataclasses.replace(d14, n_conditions=26, unequal=True)),
        ("s5#14 C15 icc0.45", "ds", dataclasses.replace(d14, n_conditions=15, icc=0.45)),
    ]
    return out


def fam_auc3() -> list[tuple[str, Any, Any]]:
    """The paired roc_auc designs over conditions not yet re-run against the edge rule."""
    return [x for x in fam_auc() if x[0] in ("s4#19", "s3#20", "s3#49")]


def fam_auc_s5_5() -> list[tuple[str, Any, Any]]:
    """Seed-5 #5 (n = 4,715 over 262 conditions), alone: slow."""
    return [x for x in fam_auc() if x[0] == "s5#5"]


FAMILIES = {
    "few": fam_few,
    "auc3": fam_auc3,
    "auc-s5-5": fam_auc_s5_5,
    "s5-14": fam_s5_14,
    "study": fam_study,
    "holds": fam_holds,
    "auc": fam_auc,
    "auc2": fam_auc2,
}


def draw(kind: str, d: Any, pop: Any, i: int, seed: int) -> tuple[dict, int]:
    if kind == "ds":
        g = np.random.default_rng([seed, d.index, i])
        x = pop.draw(g)
        return x, int(g.integers(2**31))
    g = np.random.default_rng([seed, d.index, i, 5])
    x = pop.draw(g)
    x["conditions"] = pop.cond
    return x, i


def run_family(family: str, reps: int, path: str, B: int = 1000, seed: int = 11) -> None:
    for name, kind, d in FAMILIES[family]():
        pop = (ds.Population if kind == "ds" else ps.Population)(d)
        t0 = time.process_time()
        rows = []
        for i in range(reps):
            x, s = draw(kind, d, pop, i, seed)
            y, a, b, cond = x["y"], x["a"], x["b"], x["conditions"]
            row: dict[str, Any] = {}
            try:

                def diff(method: str, x: dict = x, s: int = s, d: Any = d) -> Any:
                    return mlci.compare(
                        x["y"],
                        {"a": x["a"], "b": x["b"]},
                        metric=d.metric,
                        conditions=x["conditions"],
                        method=method,
                        n_resamples=B,
                        rng=s,
                    ).difference("a", "b")

                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    auto = diff("auto")
                row["warned"] = any(issubclass(w.category, mlci.MlciWarning) for w in caught)
                row["auto"] = list(map(float, auto.confidence_interval))
                row["auto_method"] = auto.method
                row["est"] = float(auto.estimate)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    for m in METHODS:
                        r = diff(m)
                        row[m] = list(map(float, r.confidence_interval))
                        if m == "bca":
                            row["boot_se"] = float(r.standard_error)
                    row.update(pair_features(y, a, b, d.metric, cond))
                    if d.metric == "roc_auc" and cond is not None:
                        for tag, s_ in (("a", a), ("b", b)):
                            row.update({f"{k}_{tag}": v for k, v in auc_edge(y, s_, cond).items()})
                    else:
                        ca, cb = a == y, b == y
                        row["disc_b"], row["disc_c"] = int(np.sum(ca & ~cb)), int(np.sum(~ca & cb))
                        if cond is not None:
                            dc = np.bincount(cond, weights=(ca != cb).astype(float))
                            row["disc_units"] = int(np.sum(dc > 0))
            except ValueError as exc:
                row = {"error": str(exc)[:100]}
            rows.append(row)
        rec = {
            "name": name,
            "family": family,
            "label": d.label(),
            "truth": float(pop.truth),
            "reps": reps,
            "B": B,
            "seed": seed,
            "rows": rows,
            "seconds": round(time.process_time() - t0, 1),
        }
        with open(path, "a") as f:
            f.write(json.dumps(rec) + "\n")
        ok = [r for r in rows if "error" not in r]
        cov = {
            m: np.mean([r[m][0] <= pop.truth <= r[m][1] for r in ok]) for m in ("auto", *METHODS)
        }
        print(
            f"{name:<16} {d.label()[:70]:<70} "
            + " ".join(f"{m} {v:.3f}" for m, v in cov.items())
            + f" ({rec['seconds']}s)",
            flush=True,
        )


def load(paths: list[str]) -> list[dict]:
    out = []
    for p in paths:
        with open(p) as f:
            out += [json.loads(line) for line in f if line.strip()]
    return out


def covers(ci: list[float], truth: float) -> bool:
    return ci[0] <= truth + 1e-12 and truth - 1e-12 <= ci[1]


def rule_switches(row: dict[str, Any]) -> bool:
    """Whether ``auto``'s rules over conditions give this test set BCa (read off the
    package's own functions, so that the table follows the code)."""
    if "misordered_a" in row:
        pair = sorted((row["misordered_a"], row["misordered_b"]))
        return bool(pair[0] < pc.EDGE_AUC_MISORDERED and pair[1] >= pc.EDGE_AUC_OTHER)
    return bool(
        pc.skewed_condition_pairs(
            np.array([row["skew_c"]]),
            np.array([row["skew_i"]]),
            np.array([row["deff"]]),
            row["df"],
        )[0]
    )


def report(paths: list[str]) -> None:
    """Coverage and median width of t, BCa, percentile, studentized and the rule (BCa on
    the test sets it switches, t on the others), the share switched and warned."""
    print(
        f"{'design':<16} {'N':>4} {'t':>6} {'bca':>6} {'pct':>6} {'stud':>6} {'rule':>6} "
        f"{'switched':>8} {'w rule/t':>8} {'w rule/bca':>10} {'warned':>6}"
    )
    for rec in load(paths):
        ok = [r for r in rec["rows"] if "error" not in r]
        truth = rec["truth"]
        cov = {m: np.mean([covers(r[m], truth) for r in ok]) for m in METHODS}
        sw = [rule_switches(r) for r in ok]
        rule = [r["bca"] if s else r["t"] for r, s in zip(ok, sw, strict=True)]
        w = {m: np.median([r[m][1] - r[m][0] for r in ok]) for m in ("t", "bca")}
        w_rule = np.median([hi - lo for lo, hi in rule])
        print(
            f"{rec['name']:<16} {len(ok):>4} "
            + " ".join(f"{cov[m]:6.3f}" for m in METHODS)
            + f" {np.mean([covers(r, truth) for r in rule]):6.3f} {np.mean(sw):8.2f}"
            + f" {w_rule / w['t']:8.2f} {w_rule / w['bca']:10.2f}"
            + f" {sum(r['warned'] for r in ok):>6}"
        )


def switches(family: str, reps: int, seed: int = 11, run: bool = False) -> None:
    """For each roc_auc design of ``family``: how many of ``reps`` test sets (the draw of
    :func:`run_family`) the edge rule switches (one system without a mis-ordered pair,
    the other with :data:`pc.EDGE_AUC_OTHER` or more; the pooled AUC, ties half), the
    fewest mis-ordered pairs (median, min), and with ``run`` the coverage of auto, t and
    BCa on the switched test sets only (the rule changes no other interval)."""
    from sklearn.metrics import roc_auc_score

    for name, kind, d in FAMILIES[family]():
        pop = (ds.Population if kind == "ds" else ps.Population)(d)
        fewest, hits, n_sw = [], {"auto": 0, "t": 0, "bca": 0}, 0
        for i in range(reps):
            x, s = draw(kind, d, pop, i, seed)
            y = x["y"]
            if y.min() == y.max():
                continue
            pairs = float(y.sum() * (len(y) - y.sum()))
            mis = sorted(
                min(u, 1 - u) * pairs for u in (roc_auc_score(y, x["a"]), roc_auc_score(y, x["b"]))
            )
            fewest.append(mis[0])
            if not (mis[0] < pc.EDGE_AUC_MISORDERED and mis[1] >= pc.EDGE_AUC_OTHER):
                continue
            n_sw += 1
            for m in hits if run else ():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = mlci.compare(
                        y,
                        {"a": x["a"], "b": x["b"]},
                        metric="roc_auc",
                        conditions=x["conditions"],
                        method=m,
                        n_resamples=1000,
                        rng=s,
                    ).difference("a", "b")
                hits[m] += covers(list(res.confidence_interval), pop.truth)
        print(
            f"{name:<10} switched {n_sw} of {len(fewest)}; fewest mis-ordered pairs: median "
            f"{np.median(fewest):.0f}, min {np.min(fewest):.0f}"
            + (f"; on the switched: {hits}" if run and n_sw else "")
        )


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "run":
        run_family(sys.argv[2], int(sys.argv[3]), sys.argv[4], *(int(v) for v in sys.argv[5:7]))
    elif cmd == "report":
        report(sys.argv[2:])
    elif cmd == "switches":
        switches(sys.argv[2], int(sys.argv[3]), run="--run" in sys.argv)
