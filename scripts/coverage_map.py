"""mlci's coverage map: every interval method on a grid of small and hard designs.

The numbers of docs/validation.md, section 2 (and the rules of ``method="auto"`` in
``mlci.engine.auto``).  The loop is :func:`mlci.simulate.coverage_study`, the scenarios
:func:`mlci.simulate.coverage_map_scenarios`.

Usage::

    python scripts/coverage_map.py -n 2000 --json map.json     # the full map
    python scripts/coverage_map.py -n 200 --scenario paired    # a quick look at some cells
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import sys

import numpy as np
import scipy

import mlci
from mlci import simulate

METHODS = "percentile,bca,studentized,t,logit_t,wilson,auto"


def exact_coverage(rows: list[dict]) -> dict[str, float]:
    """Wilson's exact coverage (a binomial sum, no simulation error) in the designs of
    independent samples whose metric is a proportion."""
    names = {r["scenario"] for r in rows}
    return {
        s.name: float(simulate.exact_proportion_coverage(**s.exact, method="wilson"))
        for s in simulate.coverage_map_scenarios()
        if s.exact is not None and s.name in names
    }


def pivot(study: simulate.CoverageStudy) -> str:
    """One line per design: each method's coverage (misses low/high for auto), the
    method auto picked, and auto's mean width relative to BCa's."""
    rows = study.rows()
    designs = list(dict.fromkeys((r["scenario"], r["scheme"]) for r in rows))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    exact = exact_coverage(rows)
    head = ["design", "n", "C", "truth", *methods, "auto misses low/high", "auto width / BCa"]
    head.append("Wilson exact")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, scheme in designs:
        cell = {r["method"]: r for r in rows if (r["scenario"], r["scheme"]) == (name, scheme)}
        first = next(iter(cell.values()))
        vals = []
        for m in methods:
            r = cell.get(m)
            ok = r is not None and r["n_experiments"] > 0
            vals.append(f"{r['coverage']:.3f}" if ok else "—")
        auto, bca = cell.get("auto"), cell.get("bca")
        misses = f"{auto['n_below']} / {auto['n_above']}" if auto else ""
        ratio = (
            f"{auto['mean_width'] / bca['mean_width']:.2f}"
            if auto and bca and bca["mean_width"] > 0
            else ""
        )
        out.append(
            f"| {name} | {first['n_samples']} | {first['n_conditions'] or ''} | "
            f"{first['true_value']:.4g} | "
            + " | ".join(vals)
            + f" | {misses} | {ratio} | "
            + (f"{exact[name]:.4f} |" if name in exact else " |")
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-n", "--experiments", type=int, default=2000, help="experiments per design")
    p.add_argument("-B", "--resamples", type=int, default=1000, help="bootstrap replicates")
    p.add_argument("--methods", default=METHODS, help="comma-separated interval methods")
    p.add_argument("--seed", type=int, default=20261123, help="seed of the whole study")
    p.add_argument(
        "--scenario",
        help="run only the designs whose name contains this text (several: separated by |)",
    )
    p.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = p.parse_args(argv)
    scenarios = simulate.coverage_map_scenarios()
    if args.scenario:
        wanted = args.scenario.split("|")
        scenarios = [s for s in scenarios if any(w in s.name for w in wanted)]
        if not scenarios:
            p.error(f"no design name contains {args.scenario!r}")
    study = simulate.coverage_study(
        scenarios,
        n_experiments=args.experiments,
        n_resamples=args.resamples,
        methods=[m.strip() for m in args.methods.split(",")],
        rng=args.seed,
        n_jobs=1,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    machine = (
        f"{platform.platform()}, {os.cpu_count()} cores; Python {platform.python_version()}, "
        f"numpy {np.__version__}, scipy {scipy.__version__}, mlci {mlci.__version__}"
    )
    print(f"Coverage of {study.confidence_level:.0%} intervals: {args.experiments} experiments per")
    print(f"design, B = {study.n_resamples}, seed {args.seed}; {study.seconds:.0f} s.")
    print(f"Machine: {machine}. Date: {datetime.date.today().isoformat()}.\n")
    print(pivot(study))
    print("\n<details><summary>Every row: coverage interval, misses, width</summary>\n")
    print(study.to_markdown())
    print("\n</details>")
    if args.json:
        with open(args.json, "w") as fh:
            out = {"machine": machine, "wilson_exact": exact_coverage(study.rows())}
            json.dump({**out, **json.loads(study.to_json())}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
