"""Re-run designs of an earlier decision search on fresh test sets (a watch list).

Each design ``i`` of search seed ``s`` (``design_search.random_design(i, s)``) is run by
``design_search.run_design`` with another draw seed, and the exact binomial test of
``auto``'s coverage against 0.935 (below) and 0.965 (above) is added (key ``binomial``,
with the Clopper-Pearson 95% interval of the coverage), as the seed-11 watch list did::

    nice -n 15 python scripts/design_search_watch.py --search-seed 11 --design 58 \\
        --design 31 --design 23 --design 13 --draw-seed 13 --reps 300 -B 500 \\
        --json scripts/data/design_search_watch_seed12.json

The results are saved (and resumed) under ``watch`` with keys ``s<seed>#<index>``
(``--set field=value``: a neighbour of the design, its key with the changes appended).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Any

from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search as ds


def binomial(res: dict[str, Any]) -> dict[str, Any]:
    """Exact binomial tests of ``auto``'s coverage in one run_design result."""
    a = res["methods"]["auto"]
    k = round(a["coverage"] * a["n"])
    ci = stats.binomtest(k, a["n"]).proportion_ci(0.95, method="exact")
    return {
        "covered": k,
        "n": a["n"],
        "p_below_0.935": float(stats.binomtest(k, a["n"], 0.935, alternative="less").pvalue),
        "p_above_0.965": float(stats.binomtest(k, a["n"], 0.965, alternative="greater").pvalue),
        "ci95": [float(ci.low), float(ci.high)],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--search-seed", type=int, required=True)
    p.add_argument("--design", type=int, action="append", required=True)
    p.add_argument("--draw-seed", type=int, required=True)
    p.add_argument("--reps", type=int, default=300)
    p.add_argument("-B", "--resamples", type=int, default=500)
    p.add_argument("--json", required=True)
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="a neighbour of the design: this Design field replaced (int, float or name)",
    )
    args = p.parse_args(argv)
    changes: dict[str, Any] = {}
    for item in args.set:
        field, value = item.split("=", 1)
        try:
            changes[field] = int(value) if value.lstrip("-").isdigit() else float(value)
        except ValueError:  # a name (metric, family)
            changes[field] = value
    doc = ds.load(args.json)
    watch = doc.setdefault("watch", {})
    doc["environment"] = ds.environment("design_search_watch.py", argv)
    for i in args.design:
        d = dataclasses.replace(ds.random_design(i, args.search_seed), **changes)
        r = ds.run_design(d, args.reps, args.resamples, args.draw_seed)
        r["binomial"] = binomial(r)
        r["search_key"] = f"seed{args.search_seed}"
        tail = "".join(f" {k}={v}" for k, v in changes.items())
        r["changes"] = changes
        watch[f"s{args.search_seed}#{i}{tail}"] = r
        ds.save(args.json, doc)
        cov = {m: round(v["coverage"], 3) for m, v in r["methods"].items()}
        print(
            f"{r['label']}: {cov} warned {r['warned']}/{r['methods']['auto']['n']} "
            f"chosen {r['auto_methods']} p {r['binomial']['p_below_0.935']:.3g} "
            f"{'; '.join(r['verdict']['flags'])}",
            flush=True,
        )
    print(json.dumps({k: v["binomial"] for k, v in watch.items()}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
