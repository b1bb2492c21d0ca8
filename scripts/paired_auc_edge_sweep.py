"""Paired roc_auc differences with a system near AUC 1 and few positives (issue 20).

The design search keeps finding one class of design where ``compare``'s ``auto`` falls
short: a paired roc_auc difference of independent samples where system A ranks nearly
every positive above every negative with few positives (seed-6 #7, seed-8 #14, s8nb #14,
s8p #4; docs/validation.md, "Paired AUC differences near 1 (seed-8 #14, s8p #4)").
This sweep draws such differences from the design search's population (binormal scores,
B's noise correlated ``rho`` with A's) over the expected number of positives, A's AUC,
the gap to B and ``rho``, and on each test set records ``auto``'s interval (and the
method it chose), t, BCa and percentile (the same replicates, B = 1000), DeLong's
interval of the difference (:func:`mlci.delong_test`) and the MOVER candidate
(:mod:`mlci.comparison.paired_auc_edge`, with DeLong's correlation and with ``r = 0``),
plus each system's number of mis-ordered pairs.  ``report`` prints coverage and median
width per cell and scores candidate rules on the saved test sets.

    nice -n 19 python scripts/paired_auc_edge_sweep.py run --reps 200 --json out.json
    python scripts/paired_auc_edge_sweep.py report out.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import design_search as ds

import mlci
from mlci.classical.auc_score import auc_score_bounds
from mlci.comparison import paired_auc_edge as pae
from mlci.comparison.paired_auc_edge import (
    auc_pair_moments,
    mover_auc_difference,
)
from mlci.metrics.ranking import RocAucKernel

METHODS = ("auto", "t", "bca", "percentile", "delong", "mover", "mover_r0", "mover_nc")


def cells() -> dict[str, tuple[ds.Design, float]]:
    """The sweep's cells: ``{label: (design, rho)}``; n = 400 but for the search's own."""
    out: dict[str, tuple[ds.Design, float]] = {
        "s8 #14": (
            ds.Design(14, "paired", "roc_auc", 369, 0.027546, 0.0010554, 1, 0, 0, False, 0.140856),
            0.5,
        ),
        "s8nb #14": (
            ds.Design(14, "paired", "roc_auc", 369, 0.027546, 0.00040625, 1, 0, 0, False, 0.39014),
            0.5,
        ),
        "s8p #4": (
            ds.Design(4, "paired", "roc_auc", 132, 0.099177, 0.0054585, 1, 0, 0, False, 0.0020909),
            0.5,
        ),
    }
    out["CELLS 0.004 near 1"] = (ds.CELLS["paired roc_auc difference 0.004 near 1"], 0.5)
    k = 100
    grid = [
        (8, 0.99, (0.003,)),
        (10, 0.999, (0.1, 0.06, 0.03, 0.01, 0.003)),
        (25, 0.9995, (0.1, 0.03, 0.01, 0.002)),
        (50, 0.9995, (0.05, 0.003)),
        (10, 0.995, (0.03, 0.003)),
    ]
    for n_pos, auc, gaps in grid:
        for gap in gaps:
            k += 1
            d = ds.Design(k, "paired", "roc_auc", 400, n_pos / 400, 1 - auc, 1, 0, 0, False, gap)
            out[f"pos {n_pos} AUC {auc} gap {gap}"] = (d, 0.5)
    k += 1
    d = ds.Design(k, "paired", "roc_auc", 400, 10 / 400, 0.001, 1, 0, 0, False, 0.01)
    out["pos 10 AUC 0.999 gap 0.01 rho 0.9"] = (d, 0.9)
    return out


def draw(pop: ds.Population, rho: float, g: np.random.Generator) -> dict[str, Any]:
    """The search's paired roc_auc test set with B's noise correlated ``rho`` with A's."""
    d = pop.d
    y = (g.random(d.n) < d.prevalence).astype(np.int64)
    e = g.standard_normal(d.n)
    e2 = rho * e + math.sqrt(1 - rho**2) * g.standard_normal(d.n)
    return {"y": y, "a": e + pop.d_sep * y, "b": e2 + pop.d_sep_b * y, "conditions": None}


@contextlib.contextmanager
def without_mover() -> Iterator[None]:
    """``compare``'s ``auto`` without the MOVER rule (the thresholds out of reach)."""
    saved = pae.EDGE_MOVER_MISORDERED
    pae.EDGE_MOVER_MISORDERED = -math.inf
    try:
        yield
    finally:
        pae.EDGE_MOVER_MISORDERED = saved


def one(x: dict[str, Any], seed: int, B: int) -> dict[str, Any] | None:
    y, a, b = x["y"], x["a"], x["b"]
    m = int(y.sum())
    if m < 2 or m > len(y) - 2:
        return None  # DeLong needs 2 of each class; compare refuses a single class
    common = {"metric": "roc_auc", "n_resamples": B, "rng": seed, "n_jobs": 1}
    out: dict[str, Any] = {"n_pos": m}
    # ``auto`` as it was before the MOVER rule (the rule switched off): the rule is
    # applied to the saved test sets by ``report`` (``new_auto``), so that one run scores
    # every candidate threshold
    with warnings.catch_warnings(record=True) as caught, without_mover():
        warnings.simplefilter("always")
        res = mlci.compare(y, {"a": a, "b": b}, **common)
    out["warned"] = any(issubclass(w.category, mlci.MlciWarning) for w in caught)
    dd = res.difference("a", "b")
    out["estimate"] = float(dd.estimate)
    out["auto_method"] = dd.method
    out["auto"] = list(map(float, dd.confidence_interval))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for meth in ("t", "bca"):
            r = mlci.compare(y, {"a": a, "b": b}, method=meth, **common)
            out[meth] = list(map(float, r.difference("a", "b").confidence_interval))
        diff = np.asarray(r.systems["a"].bootstrap_distribution) - np.asarray(
            r.systems["b"].bootstrap_distribution
        )
        diff = diff[~np.isnan(diff)]
        out["percentile"] = [float(np.quantile(diff, 0.025)), float(np.quantile(diff, 0.975))]
        out["delong"] = list(map(float, mlci.delong_test(y, a, b).confidence_interval))
    ka, kb = RocAucKernel(y, a), RocAucKernel(y, b)
    mom = auc_pair_moments(ka, kb)
    out["moments"] = mom
    out.update(movers(mom))
    n = len(y) - m
    out["mis"] = [min(u, 1 - u) * m * n for u in mom["auc"]]
    return out


def movers(mom: dict[str, Any]) -> dict[str, list[float]]:
    """The MOVER variants of one test set: per-system floored score intervals with
    DeLong's correlation (``mover``) and with ``r = 0``, and with Newcombe's variant."""
    return {
        "mover": list(mover_auc_difference(mom, 0.95)),
        "mover_r0": list(mover_auc_difference(mom, 0.95, correlation=0.0)),
        "mover_nc": list(mover_auc_difference(mom, 0.95, variant="newcombe")),
    }


def run(args: argparse.Namespace) -> None:
    doc: dict[str, Any] = {}
    if args.json and Path(args.json).exists():
        doc = json.loads(Path(args.json).read_text())
    todo = cells()
    if args.cells:
        todo = {k: v for k, v in todo.items() if any(s in k for s in args.cells.split(","))}
    for label, (d, rho) in todo.items():
        if label in doc:
            continue
        pop = ds.Population(d)
        truth = pop.truth
        g = np.random.default_rng([args.seed, d.index])
        t0 = time.process_time()
        rows = []
        for rep in range(args.reps):
            row = one(draw(pop, rho, g), seed=rep, B=args.B)
            if row is not None:
                rows.append(row)
        doc[label] = {"truth": truth, "rho": rho, "design": d.__dict__, "rows": rows}
        print(f"{label}: {len(rows)} test sets, {time.process_time() - t0:.0f} s", flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(doc))
    summary(doc)


def covers(iv: list[float], truth: float) -> bool:
    return iv[0] - 1e-12 <= truth <= iv[1] + 1e-12


def new_auto(row: dict[str, Any], rule: tuple[float, float | str, str]) -> list[float]:
    """``auto`` under a candidate rule ``(near, other, fallback)``: MOVER where a system
    has fewer than ``near`` mis-ordered pairs and the other ``other`` or more (``"xK"``:
    ``K`` times as many, each count plus one); where a system has fewer than ``near``
    and the other does not pass, ``fallback`` (``"auto"``: ``auto``'s interval as it
    was, ``"t"``, ``"bca"``); else ``auto``.  Not with :data:`EDGE_MOVER_CLASS` or more
    samples in the smaller class (the code's limit)."""
    near, other, fallback = rule
    fewest, most = min(row["mis"]), max(row["mis"])
    mom = row["moments"]
    if min(mom["n_positive"], mom["n_negative"]) >= pae.EDGE_MOVER_CLASS:
        return row["auto"]
    if isinstance(other, str):
        far = (most + 1) / (fewest + 1) >= float(other[1:])
    else:
        far = most >= other
    if fewest < near and far:
        return row["mover"]
    if fewest < near:
        return row[fallback]
    return row["auto"]


def parse_rule(text: str) -> tuple[float, float | str, str]:
    near, other, fallback = text.split(",")
    return float(near), (other if other.startswith("x") else float(other)), fallback


def summary(doc: dict[str, Any], rules: tuple[tuple[float, float | str, str], ...] = ()) -> None:
    head = [
        "cell",
        "n",
        "pos",
        "mis A / B",
        *METHODS,
        *(f"new {r[0]:g}/{r[1]}/{r[2]}" for r in rules),
    ]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for label, c in doc.items():
        truth, rows = c["truth"], c["rows"]
        if not rows:
            continue
        cells_ = [label, str(len(rows)), f"{np.median([r['n_pos'] for r in rows]):.0f}"]
        mis_a = np.median([r["mis"][0] for r in rows])
        cells_.append(f"{mis_a:.1f} / {np.median([r['mis'][1] for r in rows]):.0f}")
        for m in METHODS:
            cov = np.mean([covers(r[m], truth) for r in rows])
            wid = np.median([r[m][1] - r[m][0] for r in rows])
            extra = ""
            if m == "auto":
                extra = (
                    f" ({np.mean([r['auto_method'] == 'bca' for r in rows]):.0%} bca, "
                    f"warned {np.mean([r['warned'] for r in rows]):.0%})"
                )
            cells_.append(f"{cov:.3f} / {wid:.3f}{extra}")
        for rule in rules:
            ivs = [new_auto(r, rule) for r in rows]
            cov = np.mean([covers(iv, truth) for iv in ivs])
            wid = np.median([iv[1] - iv[0] for iv in ivs])
            fired = np.mean([iv is r["mover"] for iv, r in zip(ivs, rows, strict=True)])
            cells_.append(f"{cov:.3f} / {wid:.3f} ({fired:.0%})")
        print("| " + " | ".join(cells_) + " |")


def widths(mom: dict[str, Any]) -> tuple[float, float]:
    """The near-edge system's and the other's 95% score interval widths
    (:func:`mlci.auc_score_ci`, floored), near-edge first."""
    w = []
    for s in (0, 1):
        lo, hi, _ = auc_score_bounds(
            mom["auc"][s], *mom["terms"][s], mom["n_positive"], mom["n_negative"]
        )
        w.append(hi - lo)
    mis = [min(a, 1 - a) for a in mom["auc"]]
    return (w[0], w[1]) if mis[0] <= mis[1] else (w[1], w[0])


def bins(doc: dict[str, Any], near: float, feature: str, edges: list[float]) -> None:
    """The test sets with a system under ``near`` mis-ordered pairs, grouped by
    ``feature`` (``other``: the other system's mis-ordered pairs; ``misratio``: the
    other's over the near-edge system's, each plus one; ``ratio``: the other's
    score-interval width over the near-edge system's): coverage of each method and the
    median width of MOVER over BCa's."""
    groups: dict[int, list[tuple[dict[str, Any], float]]] = {}
    for c in doc.values():
        for r in c["rows"]:
            if min(r["mis"]) >= near:
                continue
            if feature == "other":
                v = max(r["mis"])
            elif feature == "misratio":
                v = (max(r["mis"]) + 1) / (min(r["mis"]) + 1)
            else:
                wa, wb = widths(r["moments"])
                v = wb / wa if wa > 0 else math.inf
            k = int(np.searchsorted(edges, v, side="right"))
            groups.setdefault(k, []).append((r, c["truth"]))
    print(f"| {feature} | test sets | " + " | ".join(METHODS) + " | MOVER / BCa width |")
    print("|" + "---|" * (len(METHODS) + 3))
    for k in sorted(groups):
        g = groups[k]
        lo = "-inf" if k == 0 else f"{edges[k - 1]:g}"
        hi = "inf" if k == len(edges) else f"{edges[k]:g}"
        covs = [f"{np.mean([covers(r[m], t) for r, t in g]):.3f}" for m in METHODS]
        ratio = np.median(
            [(r["mover"][1] - r["mover"][0]) / max(r["bca"][1] - r["bca"][0], 1e-12) for r, _ in g]
        )
        print(f"| {lo}-{hi} | {len(g)} | " + " | ".join(covs) + f" | {ratio:.2f} |")


def check(path: str, labels: list[str], count: int, rule: tuple[float, float | str, str]) -> None:
    """Re-draw the first ``count`` test sets of each cell and compare ``compare``'s
    ``auto`` (the rule on, as the code has it) with :func:`new_auto` on the saved runs."""
    doc = json.loads(Path(path).read_text())
    todo = cells()
    for label in labels:
        d, rho = todo[label]
        pop = ds.Population(d)
        g = np.random.default_rng([0, d.index])
        rows = iter(doc[label]["rows"])
        same = total = 0
        for rep in range(count):
            x = draw(pop, rho, g)
            m = int(x["y"].sum())
            if m < 2 or m > len(x["y"]) - 2:
                continue
            row = next(rows)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = mlci.compare(
                    x["y"], {"a": x["a"], "b": x["b"]}, metric="roc_auc", rng=rep, n_jobs=1
                )
            got = list(map(float, res.difference("a", "b").confidence_interval))
            same += bool(np.allclose(got, new_auto(row, rule), atol=1e-9))
            total += 1
        print(f"{label}: {same} of {total} test sets give the same interval")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--reps", type=int, default=200)
    r.add_argument("--B", type=int, default=1000)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--json", default=None)
    r.add_argument("--cells", default=None, help="comma-separated substrings of cell labels")
    k = sub.add_parser("check")
    k.add_argument("json")
    k.add_argument("--cells", required=True, help="comma-separated cell labels")
    k.add_argument("--count", type=int, default=30)
    k.add_argument("--rule", required=True, help="NEAR,OTHER,FALLBACK as the code has it")
    q = sub.add_parser("report")
    q.add_argument("json", nargs="+")
    q.add_argument("--bins", default=None, help="FEATURE:NEAR:e1,e2,... (other or ratio)")
    q.add_argument(
        "--rule", action="append", default=[], help="NEAR,OTHER,FALLBACK e.g. 20,100,auto"
    )
    args = p.parse_args(argv)
    if args.cmd == "run":
        run(args)
        return 0
    if args.cmd == "check":
        check(args.json, args.cells.split(","), args.count, parse_rule(args.rule))
        return 0
    doc: dict[str, Any] = {}
    for path in args.json:
        doc.update(json.loads(Path(path).read_text()))
    # the code's rule first ("auto now"), then any candidates
    now = (pae.EDGE_MOVER_MISORDERED, f"x{pae.EDGE_MOVER_RATIO:g}", "auto")
    rules = (now, *(parse_rule(r) for r in args.rule))
    summary(doc, rules)
    if args.bins:
        feature, near, edges = args.bins.split(":")
        bins(doc, float(near), feature, [float(e) for e in edges.split(",")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
