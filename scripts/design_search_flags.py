"""The seed-10/11 classification of a saved decision search: short, unwarned, width.

For every design of one run of ``scripts/design_search.py`` (or its
``confirmed`` re-runs):

* **short**: ``auto``'s coverage significantly below 0.935 (exact one-sided binomial
  test at 0.01);
* **unwarned**: short, and ``auto`` warned in fewer than half its test sets;
* **width**: ``auto``'s median width over BCa's above 1.5 where BCa holds (its coverage
  not significantly outside 0.935-0.965 by the same test).

Seed 11's counts ("Design search, seed 11") are over every design; issue 20's target is
for n >= 30, so the designs below 30 samples are marked ``n<30`` and counted apart.

::

    python scripts/design_search_flags.py scripts/data/design_search_seed12.json seed12
    python scripts/design_search_flags.py scripts/data/design_search_seed12.json confirmed
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from scipy import stats

LOW, HIGH, ALPHA, WIDTH = 0.935, 0.965, 0.01, 1.5


def p_below(cov: float, n: int, bound: float = LOW) -> float:
    """Exact one-sided binomial p-value that the coverage is below ``bound``."""
    return float(stats.binom.cdf(round(cov * n), n, bound))


def p_above(cov: float, n: int, bound: float = HIGH) -> float:
    """Exact one-sided binomial p-value that the coverage is above ``bound``."""
    return float(stats.binom.sf(round(cov * n) - 1, n, bound))


def holds(m: dict[str, Any]) -> bool:
    """The method's coverage is consistent with 0.935-0.965."""
    return not (
        (m["coverage"] < LOW and p_below(m["coverage"], m["n"]) < ALPHA)
        or (m["coverage"] > HIGH and p_above(m["coverage"], m["n"]) < ALPHA)
    )


def classify(r: dict[str, Any]) -> dict[str, Any]:
    """The flags of one design's result."""
    ms = r["methods"]
    a = ms.get("auto")
    out: dict[str, Any] = {"label": r["label"], "index": r["design"]["index"]}
    if a is None:
        out["skipped"] = True
        return out
    p = p_below(a["coverage"], a["n"])
    short = a["coverage"] < LOW and p < ALPHA
    warned = r["warned"] / max(a["n"], 1)
    bca = ms.get("bca")
    ratio = r.get("width_ratio")
    out.update(
        {
            "n": a["n"],
            "auto": a["coverage"],
            "p_below": p,
            "short": short,
            "warned": r["warned"],
            "warned_share": warned,
            "unwarned": short and warned < 0.5,
            "bca": bca["coverage"] if bca else None,
            "bca_holds": bool(bca and holds(bca)),
            "percentile": ms.get("percentile", {}).get("coverage"),
            "analytic": ms.get("analytic", {}).get("coverage"),
            "width_ratio": ratio,
            "width": bool(bca and holds(bca) and ratio is not None and ratio > WIDTH),
            "chosen": r["auto_methods"],
            "family": r["design"]["family"],
            "metric": r["design"]["metric"],
            "small": r["design"]["n"] < 30,
        }
    )
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("json")
    p.add_argument("key", help="a run's key (e.g. seed12), 'confirmed' or 'watch'")
    p.add_argument("--all", action="store_true", help="every design, not only the flagged")
    args = p.parse_args(argv)
    with open(args.json) as fh:
        doc = json.load(fh)
    if args.key in ("confirmed", "watch"):  # a search's re-runs, or design_search_watch.py's
        results = list(doc[args.key].values()) if args.key == "watch" else doc[args.key]
    else:
        results = doc["runs"][args.key]
    rows = [classify(r) for r in results]
    rows = [c for c in rows if not c.get("skipped")]
    for sub, name in ((rows, "all"), ([c for c in rows if not c["small"]], "n >= 30")):
        print(
            f"{name}: {len(sub)} designs, short {sum(c['short'] for c in sub)}, "
            f"unwarned {sum(c['unwarned'] for c in sub)}, width {sum(c['width'] for c in sub)}"
        )
    for c in sorted(rows, key=lambda c: c["p_below"]):
        if not (args.all or c["short"] or c["width"]):
            continue
        tags = [t for t in ("short", "unwarned", "width") if c[t]] + ["n<30"] * c["small"]
        fmt = lambda v: "—" if v is None else f"{v:.3f}"  # noqa: E731
        print(
            f"{c['label']}: auto {c['auto']:.3f} of {c['n']} (p {c['p_below']:.2g}) "
            f"bca {fmt(c['bca'])} pct {fmt(c['percentile'])} an {fmt(c['analytic'])} "
            f"ratio {fmt(c['width_ratio'])} warned {c['warned']} {c['chosen']} "
            f"[{' '.join(tags)}]"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
