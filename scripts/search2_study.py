"""Variants of two seed-3 design-search designs (docs/validation.md, section 5).

``python scripts/search2_study.py paired 14 REPS [n=.. prevalence=.. n_conditions=.. icc=..]``
re-runs design #14 of seed 3 (a paired roc_auc difference over conditions) and its
variants, recording per test set whether ``auto`` used the near-edge BCa switch, and the
coverage of t, BCa and percentile on all test sets and on the switched ones.  The switch
is read off the code it runs: since the rule is for independent samples only, over
conditions nothing switches (the numbers in docs/validation.md are from before).

``python scripts/search2_study.py sweep REPS [--json out.json] [--cells a,b,...]`` runs the
near-edge sweep (issue 20): paired differences of two strong systems on independent
samples (roc_auc from AUC 0.9 to 0.9999, and f1 / mcc / balanced_accuracy with 2-4
expected errors), 10-90 samples in the smaller class, n 100-2,000, ``REPS`` test sets per
cell, B = 1000, each test set's ``auto``, t, BCa and percentile intervals from the same
replicates (the same seed), and whether ``auto``'s near-edge switch fired.  The summary
gives each cell's coverage, and the switched test sets grouped by their smaller class.

``python scripts/search2_study.py sweep-report a.json b.json`` merges saved runs.

``python scripts/search2_study.py single 38 REPS [...]`` re-runs design #38 (balanced
accuracy over unequal conditions) or a variant (``metric=f1`` etc.) and reports the
coverage of each method, the smaller class's count and how often ``auto`` warned.

``python scripts/search2_study.py class-sweep FIRST LAST REPS PATH`` runs cells
FIRST..LAST-1 of the clustered-class sweep (96 fixed designs: 10-150 positives, 20-300
conditions, ICC 0-0.5, f1 0.6-0.9; F1, MCC, kappa and balanced accuracy on the same test
sets), appending JSON lines to PATH; ``class-sweep-report PATH`` scores the warning rule
of ``mlci.engine.auto.clustered_class_rule`` against them (docs/validation.md, section 5).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import sys
import time
import warnings
from typing import Any

import numpy as np
from scipy import stats

sys.path.insert(0, "scripts")
import design_search as ds

import mlci
from mlci.engine.auto import CLUSTERED_ICC_METRICS, class_error_icc, clustered_class_rule
from mlci.engine.linearize import Linearization, icc_anova
from mlci.engine.nested import plan_for_conditions
from mlci.engine.skewness import linearized_shape
from mlci.metrics import get_kernel


def _variant(index: int, args: list[str]) -> ds.Design:
    d = ds.random_design(index, seed=3)
    kw = {}
    for a in args:
        k, v = a.split("=")
        cur = getattr(d, k)
        kw[k] = type(cur)(v) if not isinstance(cur, bool) else v == "1"
    return dataclasses.replace(d, **kw)


def paired_rows(d: ds.Design, reps: int, B: int = 1000) -> tuple[ds.Population, list[dict]]:
    """Each test set's ``auto``, t, BCa and percentile intervals of the difference (the
    same seed: the same replicates), whether ``auto`` used the near-edge switch
    (``switched``) or the skewness rule (``skewed``), the smaller class and the
    difference's linearized skewness."""
    pop = ds.Population(d)
    rows = []
    for i in range(reps):
        g = np.random.default_rng([3, d.index, i])
        x = pop.draw(g)
        seed = int(g.integers(2**31))
        common = {"n_resamples": B, "rng": seed, "n_jobs": 1, "conditions": x["conditions"]}
        y = np.asarray(x["y"])
        out: dict = {"smaller": int(min(y.sum(), len(y) - y.sum()))}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for m in ("auto", "t", "bca", "percentile"):
                    res = mlci.compare(
                        x["y"], {"a": x["a"], "b": x["b"]}, metric=d.metric, method=m, **common
                    )
                    r = res.difference("a", "b")
                    out[m] = tuple(map(float, r.confidence_interval))
                    if m == "auto":
                        why = str(res.details.get("method_reason", ""))
                        out["switched"] = r.method == "bca" and "near the edge" in why
                        out["skewed"] = r.method == "bca" and "skewed" in why
                        out["skewness"] = float(r.details.get("skewness", np.nan))
                        out["estimates"] = [float(v.estimate) for v in res.systems.values()]
                        # each system's replicates at an end of the metric's range
                        out["edges"] = [
                            int(np.sum(np.isin(v.bootstrap_distribution, v.bounds)))
                            for v in res.systems.values()
                        ]
        except (ValueError, ZeroDivisionError, FloatingPointError):
            continue
        rows.append(out)
    return pop, rows


def paired(d: ds.Design, reps: int, B: int = 1000) -> None:
    pop, rows = paired_rows(d, reps, B)
    sw = np.array([r["switched"] for r in rows])
    print(
        d.label(), "truth", round(pop.truth, 5), "test sets", len(rows), "switched", int(sw.sum())
    )
    for m in ("auto", "t", "bca", "percentile"):
        cov = np.array([r[m][0] <= pop.truth <= r[m][1] for r in rows])
        wid = np.array([r[m][1] - r[m][0] for r in rows])
        sub = f" switched {cov[sw].mean():.3f}" if sw.any() else ""
        print(f"  {m:10s} cov {cov.mean():.3f} width {np.median(wid):.4f}{sub}")
    # candidate: percentile where the near-edge rule switches, t elsewhere
    for alt in ("t", "percentile"):
        cov = np.array(
            [
                (r[alt] if r["switched"] else r["t"])[0]
                <= pop.truth
                <= (r[alt] if r["switched"] else r["t"])[1]
                for r in rows
            ]
        )
        print(f"  rule: {alt} where switched, t elsewhere: cov {cov.mean():.3f}")


#: the sweep's cells: (metric, n, expected smaller class, error of A, gap); for roc_auc
#: the error is 1 - AUC (AUC 0.9 as design #14 of seed 3, 0.99, 0.999 and 0.9999 near the
#: edge; #75 of seed 0 is the last), for the decision metrics the error rate of A
SWEEP = [
    *[("roc_auc", 330, m, 0.1, 0.002) for m in (10, 15, 20, 30)],
    *[("roc_auc", 300, m, 0.01, 0.004) for m in (10, 20, 45, 90)],
    *[("roc_auc", 300, m, 0.001, 0.004) for m in (10, 15, 20, 30, 45, 65, 90)],
    *[("roc_auc", 1000, m, 0.001, 0.004) for m in (10, 20, 45, 90)],
    *[("roc_auc", 2000, m, 0.0001, 0.002) for m in (20, 90)],
    *[("roc_auc", 100, m, 0.0001, 0.004) for m in (10, 20, 45)],
    *[("roc_auc", 220, m, 0.0003, 0.0038) for m in (20, 45, 86)],
    *[(k, 500, m, 0.006, 0.004) for k in ("f1", "mcc", "balanced_accuracy") for m in (10, 30, 90)],
]


def sweep_design(k: int, metric: str, n: int, m: int, error: float, gap: float) -> ds.Design:
    """A cell of :data:`SWEEP` as a design of ``design_search`` (independent samples)."""
    return ds.Design(2000 + k, "paired", metric, n, m / n, error, 1.0, 0, 0.0, False, gap=gap)


def covers(r: dict, m: str, truth: float) -> bool:
    return bool(r[m][0] <= truth <= r[m][1])


def sweep(reps: int, path: str | None, which: list[int] | None) -> None:
    doc = {} if path is None else _load(path)
    for k, cell in enumerate(SWEEP):
        if which is not None and k not in which:
            continue
        key = f"{k}"
        if key not in doc:
            d = sweep_design(k, *cell)
            pop, rows = paired_rows(d, reps)
            doc[key] = {"cell": list(cell), "truth": pop.truth, "rows": rows}
            if path is not None:
                with open(path, "w") as fh:
                    json.dump(doc, fh)
        _print_cell(doc[key])
    _print_groups(doc)


def _load(path: str) -> dict:
    try:
        with open(path) as fh:
            return json.load(fh)
    except FileNotFoundError:
        return {}


def _print_cell(c: dict) -> None:
    rows, truth = c["rows"], c["truth"]
    sw = np.array([r["switched"] for r in rows])
    metric, n, m, err, gap = c["cell"]
    parts = [f"{metric} n={n} m={m} err={err} gap={gap} sets={len(rows)} switched={sw.sum()}"]
    for meth in ("auto", "t", "bca", "percentile"):
        cov = np.array([covers(r, meth, truth) for r in rows])
        sub = f" ({cov[sw].mean():.3f})" if sw.any() else ""
        parts.append(f"{meth} {cov.mean():.3f}{sub}")
    print(" | ".join(parts))


def switched_by(doc: dict, title: str, bins: list, key, metrics=None) -> None:
    """Print the switched test sets of every cell, grouped by ``key(row, cell)`` into
    ``bins`` (``[lo, hi)``), per metric: sets and each method's coverage."""
    print(f"switched test sets by {title}: sets, t, bca, percentile coverage")
    for metric in metrics or sorted({c["cell"][0] for c in doc.values()}):
        for lo, hi in bins:
            hits: dict[str, list[bool]] = {"t": [], "bca": [], "percentile": []}
            for c in doc.values():
                for r in c["rows"] if c["cell"][0] == metric else []:
                    if r["switched"] and lo <= key(r, c) < hi:
                        for meth in hits:
                            hits[meth].append(covers(r, meth, c["truth"]))
            if hits["t"]:
                print(
                    f"  {metric} {lo}-{hi}: {len(hits['t'])} "
                    + " ".join(f"{k} {np.mean(v):.3f}" for k, v in hits.items())
                )


def _print_groups(doc: dict) -> None:
    switched_by(doc, "smaller class", SMALLER_BINS, lambda r, c: r["smaller"])
    # the larger count of the two systems' replicates at the edge (of B = 1000)
    switched_by(doc, "edge replicates", EDGE_BINS, lambda r, c: max(r["edges"]))
    switched_by(
        doc,
        "mis-ordered pairs",
        MISORDERED_BINS,
        lambda r, c: misordered(r, c["cell"][1]),
        ["roc_auc"],
    )


SMALLER_BINS = [(0, 15), (15, 20), (20, 30), (30, 60), (60, 999)]
EDGE_BINS = [(0, 10), (10, 25), (25, 50), (50, 100), (100, 250), (250, 1000), (1000, 1001)]
MISORDERED_BINS = [(0, 2), (2, 5), (5, 10), (10, 15), (15, 20), (20, 30), (30, 50), (50, math.inf)]


def misordered(r: dict, n: int, B: int = 1000) -> float:
    """Mis-ordered pairs ``(1 - AUC) n_pos n_neg`` of the edge-dominated system: the one
    with spread (fewer than all replicates at the edge) with the larger AUC."""
    npos = r["smaller"]
    auc = [est for e, est in zip(r["edges"], r["estimates"], strict=True) if e < B]
    return (1.0 - max(auc)) * npos * (n - npos) if auc else 0.0


def with_rule(r: dict, metric: str, n: int, max_pairs: float) -> str:
    """The method ``auto`` gives a test set recorded with the switch as it was (for every
    edge-dominated system) when, for roc_auc, the switch also needs fewer than
    ``max_pairs`` mis-ordered pairs (:data:`mlci.comparison.paired_auto.EDGE_PAIR_MISORDERED`);
    a test set that loses the switch gets t (a ranking metric has no skewness rule)."""
    if not r["switched"]:
        return "auto"
    if metric != "roc_auc" or misordered(r, n) < max_pairs:
        return "bca"
    return "t"


#: the thresholds of :func:`with_rule` compared: the switch as it was, and 10, 15, 20
RULES = (math.inf, 10.0, 15.0, 20.0)


def markdown(doc: dict) -> str:
    """docs/validation.md's table: per cell, the switched test sets (before / with the
    rule), each method's coverage (on the switched test sets before, in brackets) and
    ``auto`` before and with the rule (fewer than 20 mis-ordered pairs)."""
    lines = [
        "| cell | switched before / now | t | BCa | percentile | auto before | auto now |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for key in sorted(doc, key=int):
        c = doc[key]
        metric, n, m, err, _gap = c["cell"]
        rows, truth = c["rows"], c["truth"]
        sw = np.array([r["switched"] for r in rows])
        now = sum(with_rule(r, metric, n, 20.0) == "bca" for r in rows)
        perf = f"AUC {1 - err:.4g}" if metric == "roc_auc" else f"error {err:.3g}"
        cells = [f"{metric} n={n}, {m} in the smaller class, {perf}", f"{sw.sum()} / {now}"]
        for meth in ("t", "bca", "percentile"):
            cov = np.array([covers(r, meth, truth) for r in rows])
            cells.append(f"{cov.mean():.3f}" + (f" ({cov[sw].mean():.3f})" if sw.any() else ""))
        for rule in (math.inf, 20.0):
            cells.append(
                f"{np.mean([covers(r, with_rule(r, metric, n, rule), truth) for r in rows]):.3f}"
            )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(paths: list[str]) -> None:
    """The summaries of saved sweep runs, merged, and ``auto`` under :data:`RULES`."""
    doc: dict = {}
    for p in paths:
        doc.update(_load(p))
    for key in sorted(doc, key=int):
        _print_cell(doc[key])
    print(markdown(doc))
    print("auto's coverage with the switch below these mis-ordered pairs:", RULES)
    for key in sorted(doc, key=int):
        c = doc[key]
        m, n = c["cell"][0], c["cell"][1]
        covs = [
            np.mean([covers(r, with_rule(r, m, n, rule), c["truth"]) for r in c["rows"]])
            for rule in RULES
        ]
        print(f"  {key:>2} {c['cell']}: " + " ".join(f"{v:.3f}" for v in covs))
    _print_groups(doc)


def single(d: ds.Design, reps: int, B: int = 1000) -> None:
    res = ds.run_design(d, reps, B=B, seed=3)
    pop = ds.Population(d)
    few = []
    for i in range(min(reps, 50)):
        x = pop.draw(np.random.default_rng([3, d.index, i]))
        y = np.asarray(x["y"])
        few.append(min(int(y.sum()), int((1 - y).sum())))
    print(
        res["label"],
        "truth",
        round(res["truth"], 4),
        "warned",
        res["warned"],
        "/",
        reps,
        "smaller class median",
        int(np.median(few)),
        "range",
        min(few),
        max(few),
    )
    for m, v in res["methods"].items():
        print(f"  {m:10s} cov {v['coverage']:.3f} width {v['median_width']:.4f}")


# ------------------------------------------------- sweep: the clustered-class warning
#: the four two-class decision metrics of the clustered-class warning
CLASS_SWEEP_METRICS = ("f1", "mcc", "cohen_kappa", "balanced_accuracy")


def class_sweep_design(
    index: int,
    n: int,
    positives: float,
    n_conditions: int,
    icc: float,
    unequal: bool,
    fnr: float,
    fp_per_positive: float,
) -> ds.Design:
    """A decision design with ``positives`` expected positives in ``n`` samples over
    ``n_conditions`` conditions, a false negative rate ``fnr`` and ``fp_per_positive``
    expected false positives per positive (f1 = 2(1 - fnr) / (2(1 - fnr) + fnr + fp))."""
    pi = positives / n
    fpr = fp_per_positive * pi / (1 - pi)
    error = pi * fnr + (1 - pi) * fpr
    return ds.Design(
        index, "decision", "f1", n, pi, error, math.sqrt(fnr / fpr), n_conditions, icc, unequal
    )


def icc_upper_limit(s1: np.ndarray, s2: np.ndarray, n: np.ndarray, level: float = 0.95) -> float:
    """One-sided upper confidence limit of the ICC of an outcome over conditions, from its
    per-condition sums ``s1``, sums of squares ``s2`` and sizes ``n`` (the empty
    conditions dropped): the one-way ANOVA's ``F = MSB / MSW`` (Fleiss 1981) and Searle's
    (1971) variance-ratio limit ``(F / F_lo - 1) / (F / F_lo + n0 - 1)``, ``F_lo`` the
    ``1 - level`` quantile of F(C - 1, N - C) (the variance-ratio limits held best in
    Ukoumunne's 2002 comparison); 1 where it cannot be told."""
    keep = n > 0
    s1, s2, n = s1[keep], s2[keep], n[keep].astype(float)
    c, total = len(n), float(n.sum())
    if c < 2 or total <= c:
        return 1.0
    msb = float(np.sum(s1**2 / n) - s1.sum() ** 2 / total) / (c - 1)
    msw = float(np.sum(s2 - s1**2 / n)) / (total - c)
    if msw <= 0:
        return 1.0 if msb > 0 else 0.0
    n0 = (total - float(np.sum(n**2)) / total) / (c - 1)
    r = msb / msw / float(stats.f.ppf(1.0 - level, c - 1, total - c))
    return float(min(max((r - 1.0) / (r + n0 - 1.0), 0.0), 1.0))


def class_features(y: np.ndarray, pred: np.ndarray, conditions: np.ndarray) -> dict[str, Any]:
    """The candidate criteria of one test set.

    Design (the classes over the conditions): the smaller class's count ``few``, its count
    per condition, the conditions that contain it, its Kish effective number of conditions
    ``kish`` (``(sum m_c)^2 / sum m_c^2``, ``m_c`` its count in condition ``c``).  The
    data's between-condition variation of the errors: ``icc_small`` and ``icc_large``,
    the ANOVA ICC (:func:`mlci.engine.linearize.icc_anova`) of the errors of each class
    over the conditions that contain it (``errors_small``, ``errors_large`` their
    errors), ``class_error_icc`` the rule's (:func:`mlci.engine.auto.class_error_icc`:
    the larger of the two, of a class with 5 errors or more); ``icc_upper``, the 95% upper limit
    (:func:`icc_upper_limit`) of the ICC of the errors centred by class (the smaller
    class's rate and the larger's), pooled over both classes; ``kurtosis``, per metric,
    the excess kurtosis of the linearized estimate's condition totals
    (:func:`mlci.engine.skewness.linearized_shape`; NaN without spread).
    """
    y, pred = np.asarray(y), np.asarray(pred)
    conditions = np.asarray(conditions)
    n_cond = int(conditions.max()) + 1
    small = int(y.mean() > 0.5) ^ 1 if y.mean() != 0.5 else 1
    per = np.bincount(conditions[y == small], minlength=n_cond)
    few = int(per.sum())
    out: dict[str, Any] = {
        "few": few,
        "per_condition": few / len(np.unique(conditions)),
        "conditions_with": int(np.sum(per > 0)),
        "kish": float(few**2 / np.sum(per.astype(float) ** 2)) if few else 0.0,
        "errors": int(np.sum(pred != y)),
    }
    wrong = (pred != y).astype(float)
    centred = wrong.copy()
    for tag, cls in (("small", small), ("large", 1 - small)):
        m = y == cls
        n_c = np.bincount(conditions[m], minlength=n_cond)
        e_c = np.bincount(conditions[m & (pred != y)], minlength=n_cond)
        keep = n_c > 0
        out[f"icc_{tag}"] = icc_anova(e_c[keep], n_c[keep]) if keep.sum() > 1 else 0.0
        out[f"errors_{tag}"] = int(e_c.sum())
        centred[m] -= wrong[m].mean() if m.any() else 0.0
    out["class_error_icc"] = class_error_icc(2 * y + pred, conditions)
    out["icc_upper"] = icc_upper_limit(
        np.bincount(conditions, weights=centred, minlength=n_cond),
        np.bincount(conditions, weights=centred**2, minlength=n_cond),
        np.bincount(conditions, minlength=n_cond),
    )
    plan = plan_for_conditions(len(y), conditions=conditions)
    out["kurtosis"] = {}
    for m in CLASS_SWEEP_METRICS:
        _, kurt = linearized_shape(Linearization(get_kernel(m, (y, pred), {}), plan))
        out["kurtosis"][m] = float(kurt)
    return out


def class_sweep_cell(d: ds.Design, reps: int, B: int = 1000) -> dict[str, Any]:
    """Every metric of :data:`CLASS_SWEEP_METRICS` on the same ``reps`` test sets of ``d``:
    per test set, whether auto/BCa/percentile (one set of replicates) covered, whether
    ``auto`` warned, and :func:`class_features`."""
    rows: dict[str, list] = {m: [] for m in CLASS_SWEEP_METRICS}
    feats = []
    truths = {m: ds.Population(dataclasses.replace(d, metric=m)).truth for m in CLASS_SWEEP_METRICS}
    for x, seed in _class_test_sets(d, reps):
        feats.append(class_features(x["y"], x["a"], x["conditions"]))
        for m in CLASS_SWEEP_METRICS:
            try:
                r = ds.intervals(dataclasses.replace(d, metric=m), x, seed=seed, B=B)
            except (ValueError, ZeroDivisionError, FloatingPointError):
                rows[m].append(None)
                continue
            rows[m].append(
                {k: bool(r[k][0] <= truths[m] <= r[k][1]) for k in ("auto", "bca", "percentile")}
                | {"warned": bool(r["warned"]), "width": r["auto"][1] - r["auto"][0]}
            )
    return {"design": dataclasses.asdict(d), "truths": truths, "features": feats, "rows": rows}


def _class_test_sets(d: ds.Design, reps: int) -> Any:
    """The test sets of a cell (draw seed 5) and each one's bootstrap seed; those with
    fewer than 2 samples of a class are skipped."""
    pop = ds.Population(d)
    for i in range(reps):
        g = np.random.default_rng([5, d.index, i])
        x = pop.draw(g)
        seed = int(g.integers(2**31))
        y = np.asarray(x["y"])
        if min(int(y.sum()), len(y) - int(y.sum())) >= 2:
            yield x, seed


def class_sweep_cells() -> list[ds.Design]:
    """The sweep's cells: positives 10-150, 20-300 conditions (equal and log-normal
    sizes), ICC 0-0.5, f1 0.6-0.9 (fnr 0.1-0.3, 0.1-0.6 false positives per positive).
    A fixed random sample of the grid (the same on every run)."""
    g = np.random.default_rng(20)
    out = []
    for k in range(96):
        positives = float(np.exp(g.uniform(np.log(10), np.log(150))))
        c = round(np.exp(g.uniform(np.log(20), np.log(300))))
        n = round(max(np.exp(g.uniform(np.log(500), np.log(3000))), 3 * c, 4 * positives))
        icc = float(g.choice([0.0, 0.1, 0.2, 0.35, 0.5]))
        unequal = bool(g.random() < 0.5)
        fnr = float(g.uniform(0.1, 0.3))
        fp = float(g.uniform(0.1, 0.6))
        out.append(class_sweep_design(3800 + k, n, positives, c, icc, unequal, fnr, fp))
    return out


def class_sweep(first: int, last: int, reps: int, path: str) -> None:
    """Run cells ``first``..``last - 1`` of :func:`class_sweep_cells`, appending to ``path``
    (JSON lines)."""
    for d in class_sweep_cells()[first:last]:
        t0 = time.process_time()
        res = class_sweep_cell(d, reps)
        res["cpu_seconds"] = round(time.process_time() - t0, 1)
        with open(path, "a") as fh:
            fh.write(json.dumps(res) + "\n")
        cov = {
            m: np.mean([r["auto"] for r in rows if r is not None])
            for m, rows in res["rows"].items()
        }
        print(d.label(), res["cpu_seconds"], {m: round(float(v), 3) for m, v in cov.items()})


def class_sweep_features(path: str, out: str) -> None:
    """Recompute :func:`class_features` of the saved cells of ``path`` (the same draws,
    no interval) and append them to ``out`` (JSON lines: ``index``, ``features``): a run
    saved before a feature was added is scored without drawing its replicates again."""
    cells = {c["design"]["index"]: c for c in map(json.loads, open(path))}
    for d in class_sweep_cells():
        if d.index not in cells:
            continue
        feats = [
            class_features(x["y"], x["a"], x["conditions"]) for x, _ in _class_test_sets(d, 300)
        ]
        feats = feats[: len(cells[d.index]["features"])]
        with open(out, "a") as fh:
            fh.write(json.dumps({"index": d.index, "features": feats}) + "\n")


def _inv(k: float) -> float:
    """``1 / kurtosis`` (an effective number of conditions); inf without excess."""
    return 1.0 / k if k > 0 else math.inf


def _icc(f: dict) -> float:
    """:func:`mlci.engine.auto.class_error_icc` from the features: the larger class ICC."""
    return max(f["icc_small"], f["icc_large"])


#: the rules ``class-sweep-report`` scores: ``rule(features, n_conditions, metric)``; the
#: gates warn only where the data show between-condition variation of the errors
CLASS_RULES: dict[str, Any] = {
    "before: Kish < 20": lambda f, c, m: c >= 20 and f["kish"] < 20 and f["few"] < 8 * f["kish"],
    "Kish < 25": lambda f, c, m: c >= 20 and f["kish"] < 25 and f["few"] < 8 * f["kish"],
    "Kish < 30": lambda f, c, m: c >= 20 and f["kish"] < 30 and f["few"] < 8 * f["kish"],
    "gate: Kish < 30, ICC > 0.1": lambda f, c, m: c >= 20 and f["kish"] < 30 and _icc(f) > 0.1,
    "gate: Kish < 30, ICC upper limit > 0.05": lambda f, c, m: (
        c >= 20 and f["kish"] < 30 and f["icc_upper"] > 0.05
    ),
    "gate: Kish < 30, 1 / kurtosis < 15": lambda f, c, m: (
        c >= 20 and f["kish"] < 30 and _inv(f["kurtosis"][m]) < 15
    ),
    "Kish < 20, or < 30 with ICC >= 0.1": lambda f, c, m: clustered_class_rule(
        c, f["few"], f["kish"], f["class_error_icc"]
    ),
    "mlci (clustered_class_rule, the ICC for f1, mcc, kappa)": lambda f, c, m: clustered_class_rule(
        c, f["few"], f["kish"], f["class_error_icc"] if m in CLUSTERED_ICC_METRICS else None
    ),
}


def _class_cells(path: str, features: str | None) -> list[dict]:
    cells = [json.loads(line) for line in open(path)]
    if features is not None:
        extra = {f["index"]: f["features"] for f in map(json.loads, open(features))}
        for c in cells:
            new = extra[c["design"]["index"]]
            assert [f["kish"] for f in new] == [f["kish"] for f in c["features"]]
            c["features"] = new
    return cells


def class_sweep_report(path: str, features: str | None = None) -> None:
    """Each rule of :data:`CLASS_RULES` against the cells of ``path`` (features from
    ``features`` when given, :func:`class_sweep_features`), two ways.  Per cell: warned
    when the rule fires in at least half its test sets, failing when auto covers < 0.935
    (and < 0.91: strongly).  Per interval: the coverage of the intervals it leaves
    unwarned and of those it warns (over the cells with 20 conditions or more)."""
    cells = _class_cells(path, features)
    fams = {
        **{m: (m,) for m in CLASS_SWEEP_METRICS},
        "f1, mcc": ("f1", "mcc"),
        "kappa, balanced accuracy": ("cohen_kappa", "balanced_accuracy"),
    }
    print(f"{len(cells)} cells")
    print(
        "| rule | metrics | failing cells warned | missed (of them below 0.91) | false alarms "
        "| unwarned intervals: coverage | warned: coverage |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, rule in CLASS_RULES.items():
        for fam, metrics in fams.items():
            fail = warned = missed = strong = missed_strong = fa = hold = 0
            cov: dict[bool, list] = {True: [], False: []}
            for c in cells:
                n_cond = c["design"]["n_conditions"]
                for m in metrics:
                    ok = [i for i, r in enumerate(c["rows"][m]) if r is not None]
                    hits = np.array([c["rows"][m][i]["auto"] for i in ok])
                    fired = np.array([bool(rule(c["features"][i], n_cond, m)) for i in ok])
                    w, failing = fired.mean() >= 0.5, hits.mean() < 0.935
                    fail += failing
                    warned += w and failing
                    missed += (not w) and failing
                    strong += hits.mean() < 0.91
                    missed_strong += (not w) and hits.mean() < 0.91
                    fa += w and not failing
                    hold += not failing
                    if n_cond >= 20:
                        cov[True] += hits[fired].tolist()
                        cov[False] += hits[~fired].tolist()
            u, v = cov[False], cov[True]
            print(
                f"| {name} | {fam} | {warned} of {fail} | {missed} ({missed_strong} of {strong}) "
                f"| {fa} of {hold} | {np.mean(u) if u else math.nan:.3f} ({len(u)}) "
                f"| {np.mean(v) if v else math.nan:.3f} ({len(v)}) |"
            )
    for name, rule in CLASS_RULES.items():
        if name.startswith("gate"):  # what the gate leaves unwarned of Kish < 30
            hits = [
                r["auto"]
                for c, m, r, f in _in_range(cells, CLASS_SWEEP_METRICS)
                if f["kish"] < 30 and not rule(f, c["design"]["n_conditions"], m)
            ]
            print(f"{name}: the test sets of Kish < 30 it silences cover {np.mean(hits):.3f}")
    _class_conditional(cells)


def _in_range(cells: list[dict], metrics: tuple[str, ...]) -> Any:
    """``(cell, metric, row, features)`` of every test set inside the rule's range (20
    conditions or more, fewer than 8 of the smaller class per effective condition)."""
    for c in cells:
        if c["design"]["n_conditions"] < 20:
            continue
        for m in metrics:
            for r, f in zip(c["rows"][m], c["features"], strict=True):
                if r is not None and f["few"] < 8 * f["kish"]:
                    yield c, m, r, f


def _class_conditional(cells: list[dict]) -> None:
    """Auto's coverage per test set (20 conditions or more, fewer than 8 of the smaller
    class per effective condition) by Kish's number of the smaller class and by the
    estimated ICC of the errors (:func:`_icc`), then by the design's ICC."""
    kish_bins = [0, 10, 20, 30, 40, math.inf]
    by: dict[str, tuple[list, Any]] = {
        "estimated ICC": ([0.0, 1e-9, 0.05, 0.1, 0.2, 1.0], lambda c, f: _icc(f)),
        "design ICC": ([0.0, 0.05, 0.15, 0.3, 0.45, 1.0], lambda c, f: c["design"]["icc"]),
    }
    for fam, metrics in (("f1, mcc", ("f1", "mcc")), ("kappa, BA", CLASS_SWEEP_METRICS[2:])):
        for title, (bins, key) in by.items():
            print(f"\n{fam}: coverage (test sets) by Kish (rows) and {title} (columns {bins})")
            for lo, hi in itertools.pairwise(kish_bins):
                line = f"  Kish {lo}-{hi}:"
                for a, b in itertools.pairwise(bins):
                    hits = [
                        r["auto"]
                        for c, _, r, f in _in_range(cells, metrics)
                        if lo <= f["kish"] < hi
                        and (a <= key(c, f) < b or (b == 1.0 and key(c, f) == 1.0))
                    ]
                    line += f" | {np.mean(hits) if hits else math.nan:.3f} ({len(hits)})"
                print(line)


if __name__ == "__main__":
    kind = sys.argv[1]
    if kind == "class-sweep":
        class_sweep(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif kind == "class-sweep-report":
        class_sweep_report(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    elif kind == "class-sweep-features":
        class_sweep_features(sys.argv[2], sys.argv[3])
    elif kind == "sweep-report":
        report(sys.argv[2:])
    elif kind == "sweep":
        rest = sys.argv[3:]
        out = rest[rest.index("--json") + 1] if "--json" in rest else None
        cells = (
            [int(v) for v in rest[rest.index("--cells") + 1].split(",")]
            if "--cells" in rest
            else None
        )
        sweep(int(sys.argv[2]), out, cells)
    else:
        idx, reps = int(sys.argv[2]), int(sys.argv[3])
        d = _variant(idx, sys.argv[4:])
        (paired if kind == "paired" else single)(d, reps)
