"""The ROC AUC near 1 over conditions: ``auto`` (logit t for one AUC, t for a paired
difference) against BCa and the percentile interval on the same test sets, with what
the test set's misordered pairs look like (session 12, helper aucedge).

Two classes, each a grid around a design-search design (fields replaced):

* ``single``: one ROC AUC (seed-15 #21: n = 3148, half positives, 102 conditions, ICC
  0.22, 1 - AUC 1.2e-6): 1 - AUC 1e-6 to 1e-2 over 10-300 conditions at ICC 0.2, and ICC
  0 / 0.4 at 100 conditions;
* ``paired``: a paired ROC AUC difference (seed-16 #57: n = 1630, ~37 positives, 29
  unequal conditions, ICC 0.41, A's 1 - AUC 6.7e-5, B's 1.2e-3): A's 1 - AUC 1e-6 to
  1e-2, 10-300 conditions, ICC 0-0.2; and the paired designs that calibrated the rule
  over conditions (seed-5 #2, seed-4 #15, seed-3 #14, seed-14 #60).

Per test set (drawn as the search draws them, ``np.random.default_rng([draw_seed,
index, i])``, interval seed from the same generator): whether ``auto``, BCa and the
percentile interval cover, their widths, ``auto``'s method, and the features a rule may
read: each system's misordered (positive, negative) pairs (a tie counts half), its
misranked positives and negatives and the conditions that hold them.  ``summarize``
evaluates a rule offline: ``auto`` after = BCa where the rule holds and ``auto`` gave
the logit t / t interval, else ``auto`` before.

::

    PYTHONPATH=src nice -n 15 python scripts/auc_edge_study.py run --cls single \\
        --reps 200 -B 300 --json scripts/data/auc_edge_study_single.json
    PYTHONPATH=src nice -n 15 python scripts/auc_edge_study.py run --cls paired \\
        --reps 200 -B 300 --json scripts/data/auc_edge_study_paired.json
    python scripts/auc_edge_study.py summarize scripts/data/auc_edge_study_single.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search as ds
import numpy as np
from design_search_seed15 import mcnemar_p
from scipy import stats

#: (class, cell name, (seed, design index), field replacements), in the order run (the
#: machine was shared with a dozen studies: the cells a rule could switch come first)
CELLS: list[tuple[str, str, tuple[int, int], dict[str, Any]]] = []
for _err in (1e-6, 3e-6, 1e-5, 3e-5):
    for _c in (10, 30, 100, 300):
        CELLS.append(
            (
                "single",
                f"1-auc={_err:g} C={_c}",
                (15, 21),
                {"error": _err, "n_conditions": _c, "icc": 0.2},
            )
        )
for _icc in (0.0, 0.4):
    for _err in (1e-6, 1e-5):
        CELLS.append(
            (
                "single",
                f"1-auc={_err:g} C=100 icc={_icc:g}",
                (15, 21),
                {"error": _err, "n_conditions": 100, "icc": _icc},
            )
        )
CELLS += [
    # the rules' data conditions select 9% of this cell's test sets (--features-only)
    (
        "single",
        "1-auc=0.0001 C=30 icc=0.4",
        (15, 21),
        {"error": 1e-4, "n_conditions": 30, "icc": 0.4},
    ),
    ("paired", "1-auc=1e-5", (16, 57), {"error": 1e-5}),
    ("paired", "1-auc=3e-4", (16, 57), {"error": 3e-4}),
    ("paired", "s4#15", (4, 15), {}),
    ("paired", "C=100", (16, 57), {"n_conditions": 100}),
    ("paired", "icc=0", (16, 57), {"icc": 0.0}),
    ("paired", "s5#2", (5, 2), {}),
    ("paired", "s14#60", (14, 60), {}),
    ("paired", "C=10", (16, 57), {"n_conditions": 10}),
    ("paired", "1-auc=1e-3", (16, 57), {"error": 1e-3}),
    ("paired", "gap=2e-4", (16, 57), {"gap": 2e-4}),
    ("paired", "gap=5e-4", (16, 57), {"gap": 5e-4}),
    ("paired", "gap=2e-4 1-auc=1e-5", (16, 57), {"gap": 2e-4, "error": 1e-5}),
]
#: cells outside the switched range, whose test sets are only checked against the rules'
#: data conditions (``run --features-only``): where none is selected, ``auto`` is unchanged
#: without running an interval
FEATURE_CELLS: list[tuple[str, str, tuple[int, int], dict[str, Any]]] = (
    [
        (
            "single",
            f"1-auc={e:g} C={c} icc={icc:g}",
            (15, 21),
            {"error": e, "n_conditions": c, "icc": icc},
        )
        for e in (1e-4, 1e-3, 1e-2)
        for c in (30, 100, 300)
        for icc in (0.2, 0.4)
    ]
    + [("paired", f"1-auc={e:g}", (16, 57), {"error": e}) for e in (1e-3, 3e-3, 1e-2)]
    + [
        ("paired", name, sd, {})
        for name, sd in (("s5#2", (5, 2)), ("s14#60", (14, 60)), ("s3#14", (3, 14)))
    ]
)


def features_only(d: ds.Design, reps: int, draw_seed: int) -> dict[str, Any]:
    """How many of ``reps`` test sets the rules' data conditions select (whatever method
    ``auto`` would give before), with no interval run: where none, ``auto`` is unchanged."""
    pop = ds.Population(d)
    fired, pairs = 0, []
    for i in range(reps):
        fired += rule_fires(
            d, pop, draw_seed, {"i": i, "method": "t" if d.family == "paired" else "logit_t"}
        )
        g = np.random.default_rng([draw_seed, d.index, i])
        x = pop.draw(g)
        systems = [x["a"]] + ([x["b"]] if d.family == "paired" else [])
        pairs.append([misordered(x["y"], s, None)["pairs"] for s in systems])
    arr = np.array(pairs)
    return {
        "label": d.label(),
        "test_sets": reps,
        "selected": fired,
        "min_pairs": arr.min(axis=0).tolist(),
        "median_pairs": np.median(arr, axis=0).tolist(),
    }


def misordered(y: np.ndarray, s: np.ndarray, cond: np.ndarray | None) -> dict[str, float]:
    """Misordered (positive, negative) pairs of scores ``s`` (a tie counts half), the
    misranked positives / negatives (``mlci.engine.auc_misranked.misranked_counts``) and
    the conditions holding a misranked sample.

    Examples
    --------
    >>> misordered(np.array([0, 0, 1, 1]), np.array([0.1, 0.6, 0.5, 0.9]), None)["pairs"]
    1.0
    """
    pos, neg = s[y == 1], s[y == 0]
    n1, n0 = pos.size, neg.size
    r = stats.rankdata(np.concatenate([pos, neg]))
    u = r[:n1].sum() - n1 * (n1 + 1) / 2
    mis_pos = pos <= neg.max()
    mis_neg = neg >= pos.min()
    out = {
        "pairs": float(n1 * n0 - u),
        "mis_pos": int(mis_pos.sum()),
        "mis_neg": int(mis_neg.sum()),
    }
    if cond is not None:
        c_pos, c_neg = cond[y == 1], cond[y == 0]
        out["mis_conditions"] = int(
            np.unique(np.concatenate([c_pos[mis_pos], c_neg[mis_neg]])).size
        )
    return out


def run_cell(d: ds.Design, reps: int, B: int, draw_seed: int) -> dict[str, Any]:
    """Per test set: coverage and width of auto, BCa and percentile, and the features."""
    pop = ds.Population(d)
    rows = []
    for i in range(reps):
        g = np.random.default_rng([draw_seed, d.index, i])
        x = pop.draw(g)
        try:
            r = ds.intervals(d, x, seed=int(g.integers(2**31)), B=B)
        except ds.REFUSALS:
            continue
        cond = x["conditions"]
        row: dict[str, Any] = {"i": i, "method": r["auto_method"], "warned": r["warned"]}
        row["a"] = misordered(x["y"], x["a"], cond)
        if "b" in x and d.family == "paired":
            row["b"] = misordered(x["y"], x["b"], cond)
        for m in ("auto", "bca", "percentile"):
            if m in r:
                lo, hi = r[m]
                row[m] = bool(lo <= pop.truth <= hi)
                row[m + "_w"] = float(hi - lo)
        rows.append(row)
    return {"label": d.label(), "truth": pop.truth, "rows": rows}


#: fingerprint cases outside the changed class: (name, (seed, design), replacements, test sets)
FINGERPRINT: list[tuple[str, tuple[int, int], dict[str, Any], int]] = [
    ("iid auc 1-1e-5 n=3148", (15, 21), {"n_conditions": 0, "error": 1e-5}, 3),
    ("iid auc 0.999 n=400", (15, 21), {"n_conditions": 0, "n": 400, "error": 1e-3}, 3),
    ("auc 0.9 over 102 conditions", (15, 21), {"error": 0.1}, 3),
    ("auc 0.99 over 40 conditions", (15, 21), {"error": 0.01, "n_conditions": 40}, 3),
    ("auc 1-1e-4 over 100 conditions", (15, 21), {"error": 1e-4, "n_conditions": 100}, 3),
    (
        "auc 1-1e-3 over 10 conditions icc 0.4",
        (15, 21),
        {"error": 1e-3, "n_conditions": 10, "icc": 0.4},
        3,
    ),
    (
        "auc 1-1e-5 over 30 conditions, 40 positives",
        (15, 21),
        {"error": 1e-5, "n_conditions": 30, "prevalence": 0.0127},
        3,
    ),
    ("paired auc 0.9 over 139 conditions (s3#14)", (3, 14), {}, 3),
    ("paired auc 0.987 over 21 conditions (s4#15)", (4, 15), {}, 3),
    ("paired auc 0.99 over 29 conditions", (16, 57), {"error": 1e-2}, 3),
    ("paired auc iid (s16#57 without conditions)", (16, 57), {"n_conditions": 0}, 3),
]


def fingerprint(B: int = 200) -> dict[str, list[list[Any]]]:
    """``auto``'s (method, low, high) on a few test sets of each :data:`FINGERPRINT` case
    (draw seed 23), the results the change must leave alone."""
    out: dict[str, list[list[Any]]] = {}
    for name, (seed, index), repl, reps in FINGERPRINT:
        d = dataclasses.replace(ds.random_design(index, seed), **repl)
        pop = ds.Population(d)
        rows: list[list[Any]] = []
        for i in range(reps):
            g = np.random.default_rng([23, d.index, i])
            x = pop.draw(g)
            try:
                r = ds.intervals(d, x, seed=int(g.integers(2**31)), B=B)
            except ds.REFUSALS:
                continue
            rows.append([r["auto_method"], *r["auto"]])
        out[name] = rows
    return out


# ---------------------------------------------------------------- offline rule


def rule_fires(d: ds.Design, pop: Any, draw_seed: int, row: dict[str, Any]) -> bool:
    """Whether the implemented rule switches test set ``row["i"]`` (redrawn): for one AUC,
    :func:`mlci.engine.auc_misranked.misordered_few_conditions_bca` where ``auto`` gave
    the logit t or studentized interval; for a paired difference,
    :func:`mlci.engine.auc_misranked.few_misordered_pairs` where it gave t."""
    from types import SimpleNamespace

    from mlci.engine.auc_misranked import few_misordered_pairs, misordered_few_conditions_bca
    from mlci.engine.auto import MIN_CLASS_EDGE
    from mlci.metrics.ranking import RocAucKernel

    g = np.random.default_rng([draw_seed, d.index, row["i"]])
    x = pop.draw(g)
    if d.family != "paired":
        if row["method"] not in ("logit_t", "studentized"):
            return False
        plan = SimpleNamespace(unit_of_sample=x["conditions"])
        return (
            misordered_few_conditions_bca(RocAucKernel(x["y"], x["a"]), plan, MIN_CLASS_EDGE)
            is not None
        )
    if row["method"] != "t":
        return False
    ks = [RocAucKernel(x["y"], x["a"]), RocAucKernel(x["y"], x["b"])]
    n_cond = int(np.unique(x["conditions"]).size) if x["conditions"] is not None else None
    return bool(few_misordered_pairs(ks, np.array([0]), np.array([1]), n_cond)[0][0])


def summarize_cell(rows: list[dict[str, Any]], switch: Any) -> dict[str, Any]:
    """Coverage of auto before / after (``switch(row)``: BCa), BCa, percentile; the pairwise
    "only X covered" counts with McNemar's p; median widths; test sets switched."""
    rows = [r for r in rows if "bca" in r]
    k = max(len(rows), 1)
    after = [r["bca"] if switch(r) else r["auto"] for r in rows]
    after_w = [r["bca_w"] if switch(r) else r["auto_w"] for r in rows]
    out: dict[str, Any] = {
        "test_sets": len(rows),
        "switched": int(sum(bool(switch(r)) for r in rows)),
        "before": sum(r["auto"] for r in rows) / k,
        "after": sum(after) / k,
        "bca": sum(r["bca"] for r in rows) / k,
        "percentile": sum(r.get("percentile", False) for r in rows) / k,
        "methods": {m: sum(r["method"] == m for r in rows) for m in {r["method"] for r in rows}},
    }
    for name, cov in (("before", [r["auto"] for r in rows]), ("after", after)):
        for other in ("bca", "percentile"):
            a = sum(c and not r.get(other, False) for c, r in zip(cov, rows, strict=True))
            b = sum(r.get(other, False) and not c for c, r in zip(cov, rows, strict=True))
            out[f"{name}_vs_{other}"] = [a, b, mcnemar_p(a, b)]
    ab = sum(a and not r["auto"] for a, r in zip(after, rows, strict=True))
    ba = sum(r["auto"] and not a for a, r in zip(after, rows, strict=True))
    out["after_vs_before"] = [ab, ba, mcnemar_p(ab, ba)]
    for name, w in (
        ("before", [r["auto_w"] for r in rows]),
        ("after", after_w),
        ("bca", [r["bca_w"] for r in rows]),
        ("percentile", [r.get("percentile_w", np.nan) for r in rows]),
    ):
        out[f"width_{name}"] = float(np.nanmedian(w)) if rows else float("nan")
    feats = [r["a"]["pairs"] for r in rows]
    out["a_pairs_median"] = float(np.median(feats)) if feats else float("nan")
    return out


def summarize(path: str) -> dict[str, Any]:
    """:func:`summarize_cell` of every cell of ``path`` with the implemented rule."""
    with open(path) as f:
        doc = json.load(f)
    spec = {f"{c}:{n}": (sd, rp) for c, n, sd, rp in CELLS}
    out = {}
    for key, cell in doc["cells"].items():
        (seed, index), repl = spec[key]
        d = dataclasses.replace(ds.random_design(index, seed), **repl)
        pop = ds.Population(d)
        fired = {r["i"]: rule_fires(d, pop, doc["draw_seed"], r) for r in cell["rows"]}
        s = summarize_cell(cell["rows"], lambda r, fired=fired: fired[r["i"]])
        s["label"] = cell["label"]
        out[key] = s
        print(
            f"{key:34s} n={s['test_sets']:3d} sw={s['switched']:3d} before {s['before']:.3f} "
            f"after {s['after']:.3f} bca {s['bca']:.3f} pct {s['percentile']:.3f} "
            f"b/bca {s['before_vs_bca'][:2]} a/bca {s['after_vs_bca'][:2]} "
            f"a/b {s['after_vs_before'][:2]} w b/a/bca {s['width_before']:.2g}/"
            f"{s['width_after']:.2g}/{s['width_bca']:.2g} {s['methods']}",
            flush=True,
        )
    return out


def markdown(summary: dict[str, Any]) -> str:
    """docs/validation.md's table rows of :func:`summarize`'s cells."""
    lines = []
    for key, c in summary.items():
        lines.append(
            f"| {key.split(':', 1)[1]} | {c['test_sets']} | {c['switched']} | {c['before']:.3f} | "
            f"**{c['after']:.3f}** | {c['bca']:.3f} | {c['percentile']:.3f} | "
            f"{c['before_vs_bca'][0]} / {c['before_vs_bca'][1]} | "
            f"{c['after_vs_bca'][0]} / {c['after_vs_bca'][1]} | "
            f"{c['after_vs_before'][0]} / {c['after_vs_before'][1]} | "
            f"{c['width_after'] / c['width_bca']:.2f} |"
            if c["width_bca"] > 0
            else f"| {key.split(':', 1)[1]} | {c['test_sets']} | {c['switched']} | "
            f"{c['before']:.3f} | **{c['after']:.3f}** | {c['bca']:.3f} | {c['percentile']:.3f} | "
            f"{c['before_vs_bca'][0]} / {c['before_vs_bca'][1]} | "
            f"{c['after_vs_bca'][0]} / {c['after_vs_bca'][1]} | "
            f"{c['after_vs_before'][0]} / {c['after_vs_before'][1]} | - |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--cls", action="append", help="only these classes")
    r.add_argument("--cell", action="append", help="only these cells")
    r.add_argument("--reps", type=int, default=200)
    r.add_argument("-B", "--resamples", type=int, default=300)
    r.add_argument("--draw-seed", type=int, default=29)
    r.add_argument("--json", required=True)
    r.add_argument("--features-only", action="store_true", help="FEATURE_CELLS, no interval")
    fp = sub.add_parser("fingerprint")
    fp.add_argument("json")
    s = sub.add_parser("summarize")
    s.add_argument("json", nargs="+")
    s.add_argument("--out", help="write the summaries here")
    args = p.parse_args(argv)
    if args.cmd == "fingerprint":
        with open(args.json, "w") as f:
            json.dump({"B": 200, "draw_seed": 23, "cases": fingerprint()}, f, indent=1)
        return 0
    if args.cmd == "summarize":
        out = {}
        for path in args.json:
            out.update(summarize(path))
        print(markdown(out))
        if args.out:
            with open(args.out, "w") as f:
                json.dump({"cells": out}, f, indent=1)
        return 0
    doc: dict[str, Any] = {"reps": args.reps, "B": args.resamples, "draw_seed": args.draw_seed}
    if os.path.exists(args.json):
        with open(args.json) as f:
            doc = json.load(f)
    if args.features_only:
        feats = doc.setdefault("features_only", {})
        for cls, name, (seed, index), repl in FEATURE_CELLS:
            if args.cls and cls not in args.cls:
                continue
            d = dataclasses.replace(ds.random_design(index, seed), **repl)
            feats[f"{cls}:{name}"] = f = features_only(d, args.reps, args.draw_seed)
            print(cls, name, f, flush=True)
        with open(args.json, "w") as fh:
            json.dump(doc, fh)
        return 0
    cells = doc.setdefault("cells", {})
    for cls, name, (seed, index), repl in CELLS:
        if (args.cls and cls not in args.cls) or (args.cell and name not in args.cell):
            continue
        if f"{cls}:{name}" in cells and not args.cell:  # done in an earlier run
            continue
        d = dataclasses.replace(ds.random_design(index, seed), **repl)
        t0 = time.time()
        res = run_cell(d, args.reps, args.resamples, args.draw_seed)
        cells[f"{cls}:{name}"] = res
        s = summarize_cell(res["rows"], lambda r: False)
        print(
            f"{cls} {name}: {res['label']} n={s['test_sets']} auto {s['before']:.3f} "
            f"bca {s['bca']:.3f} pct {s['percentile']:.3f} {s['methods']} "
            f"({time.time() - t0:.0f}s)",
            flush=True,
        )
        with open(args.json, "w") as f:
            json.dump(doc, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
