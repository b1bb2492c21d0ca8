"""Summarise a seed's runs of ``design_search_scores.py`` and ``design_search_fields.py``.

For docs/validation.md's tables: per script the designs visited, test sets, families
drawn, the designs whose ``auto`` is short (exact one-sided binomial test at 0.01 against
0.935; "n >= 30" counts the units resampled, :mod:`design_search_sf_units`), of those the
unwarned ones (scores: ``auto`` warned in fewer than half its test
sets; fields: in fewer than half of its misses), the width flags (``auto``'s median width
above 1.5 times BCa's where BCa is not short), and one line per short or flagged design::

    python scripts/design_search_sf_summary.py --seed 12
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import design_search as ds
import design_search_sf_units as sf_units

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
LO = ds.TARGET - ds.TOLERANCE


def short(v: dict[str, Any]) -> bool:
    return ds._significantly(v["coverage"], v["n"], LO, "below")


def unwarned(r: dict[str, Any], script: str) -> bool:
    a = r["methods"]["auto"]
    if script == "fields":
        return bool(r.get("unwarned"))
    return short(a) and r["warned"] < 0.5 * a["n"]


def n_units(r: dict[str, Any], script: str) -> int:
    """The units the design resamples (fields: :func:`design_search_sf_units.units`, a
    correlation resampling items counts its items; session 11, every seed)."""
    return sf_units.units(r["design"])[0] if script == "fields" else r["design"]["n"]


def line(r: dict[str, Any], script: str) -> str:
    ms = r["methods"]
    cov = " ".join(f"{m} {v['coverage']:.3f}" for m, v in ms.items())
    a = ms["auto"]
    wm = (
        f" (misses {r['warned_misses']}/{a['misses_low'] + a['misses_high']})"
        if script == "fields"
        else ""
    )
    ratio = r.get("width_ratio")
    und = r.get("undefined")
    if und and und["n"]:
        wm = f" (of defined test sets; undefined {und['n']}, warned {und['warned']})"
    units = f" [{sf_units.units(r['design'])[1]}]" if script == "fields" else ""
    return (
        f"{r['label']}{units} | truth {r['truth']:.4g} | reps {r['reps']} | "
        f"chosen {r['auto_methods']} | "
        f"{cov} | width auto/BCa {ratio if ratio is None else round(ratio, 2)} | "
        f"warned {r['warned']}{wm} | kinds {r.get('warning_kinds', '')} | "
        f"{'; '.join(r['verdict']['flags'])}"
    )


def summary(seed: int) -> str:
    out = []
    for script in ("scores", "fields"):
        path = os.path.join(DATA, f"design_search_{script}_seed{seed}.json")
        if not os.path.exists(path):
            continue
        with open(path) as fh:
            doc = json.load(fh)
        rs = [r for r in doc["runs"].get(f"seed{seed}", []) if "auto" in r["methods"]]
        fams = collections.Counter(r["design"]["family"] for r in rs)
        sh = [r for r in rs if short(r["methods"]["auto"])]
        sh30 = [r for r in sh if n_units(r, script) >= 30]
        unw = [r for r in sh if unwarned(r, script)]
        unw30 = [r for r in unw if n_units(r, script) >= 30]
        wide = [
            r
            for r in rs
            if any(f.startswith("auto/BCa median width") for f in r["verdict"]["flags"])
        ]
        out.append(
            f"## {script}: {len(rs)} designs, {sum(r['reps'] for r in rs)} test sets; "
            f"families {dict(fams.most_common())}\n"
            f"short {len(sh)} (n >= 30: {len(sh30)}), unwarned {len(unw)} (n >= 30: {len(unw30)}), "
            f"width flags {len(wide)}\n"
        )
        out.append("### short")
        out += [line(r, script) for r in sorted(sh, key=lambda r: r["methods"]["auto"]["coverage"])]
        out.append("### other flags")
        out += [line(r, script) for r in rs if r not in sh and r["verdict"]["flags"]]
        out.append("### confirmed")
        out += [
            line(r, script)
            for r in doc.get("confirmed", [])
            if r.get("search_key") == f"seed{seed}"
        ]
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=12)
    args = ap.parse_args(argv)
    print(summary(args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
