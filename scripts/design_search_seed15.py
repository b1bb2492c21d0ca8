"""The decision search's seed 15 (session 11): the bookkeeping of its run around the merge
of session 11's fixes.  Nothing here changes how ``design_search.py`` draws a design (seed
15 ran with seed 13's generator, so every seed 0-15 design is drawn as saved).

* ``rerun-merged``: re-run designs of a saved search on the current tree (after a merge of
  fixes) on the search's own test sets (draw seed = the search's seed, as the search drew
  them), replace them in the saved run, and keep the first run in ``--premerge`` (written
  once, never overwritten) -- as seed 13 did (``merged_reruns`` in the JSON).
* ``merge-confirmed``: copy the ``confirmed`` rows of a side file (confirmations run with
  ``design_search.py --designs 0 --confirm-design N --json SIDE`` while the search was
  still writing its own file) into the search's file, so ``design_search_flags.py FILE
  confirmed`` reads them.
* ``pairs``: ``auto`` against BCa and the percentile interval on the same test sets of one
  design (the search's draws ``np.random.default_rng([draw_seed, index, i])`` and interval
  seeds), test set by test set: where one covers and the other misses, with McNemar's
  exact p-value, and by the method ``auto`` chose.  Saved under ``pairs["s<seed>#<i>@<draw>"]``.

::

    python scripts/design_search_seed15.py rerun-merged scripts/data/design_search_seed15.json \\
        --seed 15 --design 4 --design 58 --tree "wt-search15d abc1234 (wt-int + fixes)" \\
        --premerge scripts/data/design_search_seed15_premerge.json
    python scripts/design_search_seed15.py merge-confirmed scripts/data/design_search_seed15.json \\
        scripts/data/design_search_seed15_confirm.json
    nice -n 15 python scripts/design_search_seed15.py pairs --seed 15 --design 55 \\
        --draw-seed 16 --reps 300 -B 500 --json scripts/data/design_search_seed15_pairs.json
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search as ds
import numpy as np
from design_search_table import load, save
from scipy import stats


def replace_rows(rows: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[int]:
    """Replace the rows of ``rows`` with the same design index by those of ``new`` (in
    place); the indices replaced.

    Examples
    --------
    >>> rows = [{"design": {"index": 0}, "v": 1}, {"design": {"index": 1}, "v": 2}]
    >>> replace_rows(rows, [{"design": {"index": 1}, "v": 9}])
    [1]
    >>> [r["v"] for r in rows]
    [1, 9]
    """
    by_index = {r["design"]["index"]: r for r in new}
    done = []
    for k, r in enumerate(rows):
        i = r["design"]["index"]
        if i in by_index:
            rows[k] = by_index[i]
            done.append(i)
    return done


def rerun_merged(
    path: str, seed: int, designs: list[int], tree: str, premerge: str, reps: int, B: int
) -> None:
    """Re-run ``designs`` of ``path``'s run ``seed<seed>`` on the search's own test sets."""
    if not os.path.exists(premerge):
        shutil.copyfile(path, premerge)
    doc = load(path)
    rows = doc["runs"][f"seed{seed}"]
    new = []
    for i in designs:
        d = ds.random_design(i, seed)
        r = ds.run_design(d, reps, B, seed)
        cov = r["methods"].get("auto", {}).get("coverage", float("nan"))
        print(f"{d.label()}: auto {cov:.3f} {'; '.join(r['verdict']['flags'])}", flush=True)
        new.append(r)
    done = replace_rows(rows, new)
    merged = doc.setdefault("merged_reruns", {"indices": [], "tree": tree, "rest": ""})
    merged["indices"] = sorted(set(merged["indices"]) | set(done))
    merged["tree"] = tree
    save(path, doc)


def merge_confirmed(path: str, side: str) -> None:
    """Copy ``side``'s confirmed rows into ``path`` (replacing rows of the same label)."""
    doc, extra = load(path), load(side)
    confirmed = doc.setdefault("confirmed", [])
    for r in extra.get("confirmed", []):
        confirmed[:] = [c for c in confirmed if c["label"] != r["label"]]
        confirmed.append(r)
    save(path, doc)


def mcnemar_p(only_a: int, only_b: int) -> float:
    """McNemar's exact two-sided p-value: the discordant test sets as binomial(1/2).

    Examples
    --------
    >>> mcnemar_p(0, 0)
    1.0
    >>> round(mcnemar_p(1, 9), 4)  # 2 * P(X <= 1), X ~ binomial(10, 1/2)
    0.0215
    """
    k = only_a + only_b
    if k == 0:
        return 1.0
    return float(min(1.0, 2 * stats.binom.cdf(min(only_a, only_b), k, 0.5)))


def pairs(index: int, seed: int, draw_seed: int, reps: int, B: int) -> dict[str, Any]:
    """Per test set, whether ``auto``, BCa and the percentile interval cover (the search's
    draws); the discordant counts of ``auto`` against each, overall and by ``auto``'s
    method."""
    d = ds.random_design(index, seed)
    pop = ds.Population(d)
    rows = []
    for i in range(reps):
        g = np.random.default_rng([draw_seed, d.index, i])
        x = pop.draw(g)
        try:
            r = ds.intervals(d, x, seed=int(g.integers(2**31)), B=B)
        except ds.REFUSALS:
            continue
        row: dict[str, Any] = {"i": i, "method": r["auto_method"], "warned": r["warned"]}
        for m in ("auto", "bca", "percentile"):
            if m in r:
                lo, hi = r[m]
                row[m] = bool(lo <= pop.truth <= hi)
        rows.append(row)
    summary: dict[str, Any] = {"served": len(rows)}
    for m in ("bca", "percentile"):
        both = [r for r in rows if m in r]
        only_auto = sum(r["auto"] and not r[m] for r in both)
        only_m = sum(r[m] and not r["auto"] for r in both)
        by: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0, 0])
        for r in both:
            by[r["method"]][0] += 1
            by[r["method"]][1] += r["auto"]
            by[r["method"]][2] += r[m]
        summary[m] = {
            "test_sets": len(both),
            "auto_covers": sum(r["auto"] for r in both),
            "covers": sum(r[m] for r in both),
            "only_auto": only_auto,
            "only_" + m: only_m,
            "mcnemar_p": mcnemar_p(only_auto, only_m),
            "by_auto_method": dict(by),  # method: [test sets, auto covers, m covers]
        }
    return {"label": d.label(), "truth": pop.truth, "B": B, "summary": summary, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("rerun-merged", help="re-run designs on the merged tree")
    r.add_argument("json")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--design", type=int, action="append", required=True)
    r.add_argument("--tree", required=True, help="the tree the re-runs ran on")
    r.add_argument("--premerge", required=True, help="where the first run is kept")
    r.add_argument("--reps", type=int, default=100)
    r.add_argument("-B", "--resamples", type=int, default=500)
    m = sub.add_parser("merge-confirmed", help="copy a side file's confirmed rows")
    m.add_argument("json")
    m.add_argument("side")
    q = sub.add_parser("pairs", help="auto against BCa and percentile, test set by test set")
    q.add_argument("--seed", type=int, required=True)
    q.add_argument("--design", type=int, required=True)
    q.add_argument("--draw-seed", type=int, required=True)
    q.add_argument("--reps", type=int, default=300)
    q.add_argument("-B", "--resamples", type=int, default=500)
    q.add_argument("--json")
    args = p.parse_args(argv)
    if args.cmd == "pairs":
        out = pairs(args.design, args.seed, args.draw_seed, args.reps, args.resamples)
        print(out["label"], json.dumps(out["summary"], indent=1))
        if args.json:
            doc = load(args.json)
            doc.setdefault("pairs", {})[f"s{args.seed}#{args.design}@{args.draw_seed}"] = out
            save(args.json, doc)
    elif args.cmd == "rerun-merged":
        rerun_merged(
            args.json, args.seed, args.design, args.tree, args.premerge, args.reps, args.resamples
        )
    else:
        merge_confirmed(args.json, args.side)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
