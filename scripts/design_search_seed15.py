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

::

    python scripts/design_search_seed15.py rerun-merged scripts/data/design_search_seed15.json \\
        --seed 15 --design 4 --design 58 --tree "wt-search15d abc1234 (wt-int + fixes)" \\
        --premerge scripts/data/design_search_seed15_premerge.json
    python scripts/design_search_seed15.py merge-confirmed scripts/data/design_search_seed15.json \\
        scripts/data/design_search_seed15_confirm.json
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search as ds
from design_search_table import load, save


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
    args = p.parse_args(argv)
    if args.cmd == "rerun-merged":
        rerun_merged(
            args.json, args.seed, args.design, args.tree, args.premerge, args.reps, args.resamples
        )
    else:
        merge_confirmed(args.json, args.side)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
