"""Merge focused batches of a design search into its saved run (session 11).

A batch run beside the search with the same seed (``--design i ... --save-as seedS --json
batch.json``) draws the same designs and test sets as the search does in order; this
puts its results into the search's ``runs[key]``, replacing a design saved there before
(e.g. one re-run after a harness fix), and keeps the designs in index order::

    python scripts/design_search_sf_merge.py scripts/data/design_search_scores_seed14.json \\
        --key seed14 focus.json focus2.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import design_search as ds


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target")
    ap.add_argument("batches", nargs="+")
    ap.add_argument("--key", required=True)
    args = ap.parse_args(argv)
    doc = ds.load(args.target)
    runs = doc.setdefault("runs", {}).setdefault(args.key, [])
    merged = doc.setdefault("merged", [])
    for path in args.batches:
        with open(path) as fh:
            batch = json.load(fh)
        new = batch["runs"][args.key]
        idx = {r["design"]["index"] for r in new}
        runs[:] = [r for r in runs if r["design"]["index"] not in idx] + new
        merged.append({"designs": sorted(idx), "environment": batch.get("environment")})
        print(f"{path}: designs {sorted(idx)}")
    runs.sort(key=lambda r: r["design"]["index"])
    ds.save(args.target, doc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
