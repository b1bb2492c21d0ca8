"""Candidate rules for ``auto``'s interval of a paired F1 difference with fewer than 5
of a class over conditions, read off the rows of ``scripts/edge_f1_study.py``
(session 12, helper edgef1).

On the test sets where ``auto`` took session 11's rule (its ``method_reason`` names the
smaller class), a candidate rule picks t, BCa or the percentile interval from the test
set's features (conditions, positives, conditions that hold a positive); elsewhere
``auto`` keeps its interval.  Per cell: each fixed method's coverage, ``auto`` before,
each rule's ``auto`` and its gap to the best method::

    python scripts/edge_f1_rules.py scripts/data/edge_f1_study.json --tag before
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

Rule = Callable[[dict[str, Any]], str]


def rule(t_below: int = 0, pct_below: int = 0, pct_class: int = -1, other: str = "bca") -> Rule:
    """t below ``t_below`` conditions, else the percentile interval below ``pct_below``
    conditions or with at most ``pct_class`` of the class, else ``other``."""

    def pick(r: dict[str, Any]) -> str:
        if r["conditions"] < t_below:
            return "t"
        if r["conditions"] < pct_below or r["positives"] <= pct_class:
            return "percentile"
        return other

    return pick


RULES: dict[str, Rule] = {
    "bca (s11)": rule(),
    "always t": rule(other="t"),
    "always percentile": rule(other="percentile"),
    **{f"t below {k}": rule(k) for k in (8, 10, 12, 16, 20, 30)},
    **{
        f"t below {k}, else pct below {m}": rule(k, m)
        for k in (10, 12, 16, 20)
        for m in (30, 40, 60)
    },
    **{
        f"t below {k}, else pct with {p} positive(s)": rule(k, 0, p)
        for k in (10, 12, 16, 20)
        for p in (1, 2)
    },
    **{
        f"t below {k}, else pct below {m} or with 1 positive": rule(k, m, 1)
        for k in (10, 12, 16, 20)
        for m in (30, 40)
    },
    **{f"pct below {m} or with 1 positive": rule(0, m, 1) for m in (10, 30, 40)},
}


#: the compact row of the committed JSON (``--write``): these fields, intervals as
#: [low, high] rounded to 6 decimals
FIELDS = ("i", "positives", "conditions", "held", "icc_hat", "auto_method", "warned")
INTERVALS = ("auto", "t", "bca", "percentile")


def compact(cells: dict[str, Any], only_auto: bool = False) -> dict[str, Any]:
    """Cells with their rows as lists (:data:`FIELDS`, then :data:`INTERVALS`); with
    ``only_auto`` (the after run: t, BCa and percentile are the before run's, same seeds)
    the other intervals are left out (None)."""
    out = {}
    keep = INTERVALS[:1] if only_auto else INTERVALS
    for name, c in cells.items():
        rows = [
            [round(r[f], 4) if f == "icc_hat" else r.get(f) for f in FIELDS]
            + [
                None if r.get(m) is None or m not in keep else [round(v, 6) for v in r[m]]
                for m in INTERVALS
            ]
            for r in c["rows"]
        ]
        out[name] = {**{k: v for k, v in c.items() if k != "rows"}, "rows": rows}
    return out


def expand(cells: dict[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`compact` (rows as dicts again)."""
    out = {}
    for name, c in cells.items():
        rows = [dict(zip(FIELDS + INTERVALS, r, strict=True)) for r in c["rows"]]
        out[name] = {**c, "rows": rows}
    return out


def in_class(r: dict[str, Any]) -> bool:
    """``auto`` took session 11's few-positive BCa on this test set."""
    # (the difference's own details carry no method_reason: read from the features)
    return r.get("auto_method") == "bca" and r["positives"] < 5


def covers(iv: list[float] | None, truth: float) -> bool:
    return iv is not None and iv[0] <= truth <= iv[1]


def evaluate(cells: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, c in cells.items():
        rows = [
            r
            for r in c["rows"]
            if all(r.get(m) is not None for m in ("auto", "t", "bca", "percentile"))
        ]
        truth, k = c["truth"], max(len(rows), 1)
        fixed = {m: sum(covers(r[m], truth) for r in rows) / k for m in ("t", "bca", "percentile")}
        best = max(fixed.values())
        res = {
            "n": len(rows),
            "class": sum(in_class(r) for r in rows),
            **fixed,
            "auto": sum(covers(r["auto"], truth) for r in rows) / k,
        }
        for rn, rule in RULES.items():
            cov = sum(covers(r[rule(r)] if in_class(r) else r["auto"], truth) for r in rows) / k
            res[f"rule:{rn}"] = cov
        res["best"] = best
        for m in ("t", "bca", "percentile"):  # median width on the class's test sets
            w = sorted(r[m][1] - r[m][0] for r in rows if in_class(r))
            res[f"{m}_width"] = w[len(w) // 2] if w else float("nan")
        out[name] = res
    return out


def check_after(files: list[str], name: str) -> int:
    """Per cell: ``auto`` after the change against ``name`` scored on the before run, and
    the test sets where ``auto``'s interval after is not the rule's pick of before's."""
    runs: dict[str, dict[str, Any]] = {"before": {}, "after": {}}
    for fn in files:
        with open(fn) as f:
            for tag, run in json.load(f)["runs"].items():
                if tag in runs:
                    cells = expand(run["cells"]) if run.get("compact") else run["cells"]
                    runs[tag].update(cells)
    pick = RULES[name]
    mismatched = 0
    for cell, after in runs["after"].items():
        before = {r["i"]: r for r in runs["before"][cell]["rows"]}
        truth = after["truth"]
        n = cov_before = cov_after = cov_rule = bad = 0
        for r in after["rows"]:
            b = before[r["i"]]
            if any(b.get(m) is None for m in INTERVALS) or r.get("auto") is None:
                continue
            want = b[pick(b)] if in_class(b) else b["auto"]
            n += 1
            cov_before += covers(b["auto"], truth)
            cov_after += covers(r["auto"], truth)
            cov_rule += covers(want, truth)
            bad += any(abs(x - y) > 2e-6 for x, y in zip(r["auto"], want, strict=True))  # rounded
        mismatched += bad
        print(
            f"{cell:32s} auto before {cov_before / n:.3f} after {cov_after / n:.3f} "
            f"rule {cov_rule / n:.3f} of {n}; intervals not the rule's: {bad}"
        )
    print(f"test sets whose interval is not the rule's: {mismatched}")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("json", nargs="+")
    p.add_argument("--tag", default="before")
    p.add_argument("--write", help="merge the inputs' runs into this compact JSON and stop")
    p.add_argument(
        "--check-after",
        metavar="RULE",
        help="compare the run tagged 'after' with RULE applied to the run tagged 'before'",
    )
    args = p.parse_args(argv)
    if args.write:
        doc: dict[str, Any] = {"runs": {}}
        for fn in args.json:
            with open(fn) as f:
                for tag, run in json.load(f)["runs"].items():
                    cells = expand(run["cells"]) if run.get("compact") else run["cells"]
                    merged = doc["runs"].setdefault(tag, {**run, "cells": {}, "compact": True})
                    merged["cells"].update(compact(cells, only_auto=tag == "after"))
        with open(args.write, "w") as f:
            json.dump(doc, f, separators=(",", ":"))
        return 0
    if args.check_after:
        return check_after(args.json, args.check_after)
    cells = {}
    for fn in args.json:
        with open(fn) as f:
            run = json.load(f)["runs"][args.tag]
        cells.update(expand(run["cells"]) if run.get("compact") else run["cells"])
    ev = evaluate(cells)
    print(
        f"{'cell':32s} {'n':>4s} {'cls':>4s} {'t':>6s} {'bca':>6s} {'pct':>6s} {'auto':>6s}"
        "  widths on the class: t bca pct"
    )
    for name, r in ev.items():
        print(
            f"{name:32s} {r['n']:4d} {r['class']:4d} {r['t']:.3f} {r['bca']:.3f} "
            f"{r['percentile']:.3f} {r['auto']:.3f}  "
            f"{r['t_width']:.3f} {r['bca_width']:.3f} {r['percentile_width']:.3f}"
        )
    print("\nrule: cells more than 0.01 below the best / worst gap / mean coverage")
    for rn in RULES:
        gaps = [ev[c]["best"] - ev[c]["rule:" + rn] for c in ev]
        bad = [c for c in ev if ev[c]["best"] - ev[c]["rule:" + rn] > 0.01]
        mean = sum(ev[c]["rule:" + rn] for c in ev) / len(ev)
        print(f"{rn:36s} {len(bad):3d} {max(gaps):.3f} {mean:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
