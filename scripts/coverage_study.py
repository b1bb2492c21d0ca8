"""Run mlci's coverage study and print a markdown table (the numbers of docs/validation.md).

The simulation loop is :func:`mlci.simulate.coverage_study`, the same one that
``tests/test_coverage.py`` runs; this script only chooses the scenarios and prints.

Usage::

    python scripts/coverage_study.py                      # standard scenarios, 10000 experiments
    python scripts/coverage_study.py --stress -n 2000     # also the hard settings
    python scripts/coverage_study.py --methods percentile,basic,normal,bc,bca --json out.json
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-n", "--experiments", type=int, default=10_000, help="experiments per scenario")
    p.add_argument("-B", "--resamples", type=int, default=1000, help="bootstrap replicates")
    p.add_argument("--methods", default="percentile,bca", help="comma-separated interval methods")
    p.add_argument("--seed", type=int, default=20240, help="seed of the whole study")
    p.add_argument("--stress", action="store_true", help="add the stress scenarios")
    p.add_argument("--only-stress", action="store_true", help="run the stress scenarios only")
    p.add_argument("--scenario", help="run only the scenarios whose name contains this text")
    p.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = p.parse_args(argv)

    scenarios = [] if args.only_stress else simulate.standard_scenarios()
    if args.stress or args.only_stress:
        scenarios += simulate.stress_scenarios()
    if args.scenario:
        scenarios = [s for s in scenarios if args.scenario in s.name]
        if not scenarios:
            p.error(f"no scenario name contains {args.scenario!r}")
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
        f"{platform.platform()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores; Python {platform.python_version()}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, mlci {mlci.__version__}"
    )
    print(f"Coverage of {study.confidence_level:.0%} intervals: {args.experiments} experiments per")
    print(f"scenario, B = {study.n_resamples}, seed {args.seed}; {study.seconds:.0f} s.")
    print(f"Machine: {machine}. Date: {datetime.date.today().isoformat()}.\n")
    print(study.to_markdown())
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine, **json.loads(study.to_json())}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
