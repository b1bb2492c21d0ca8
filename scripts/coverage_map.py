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

METHODS = "percentile,bca,studentized,t,wilson,auto"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-n", "--experiments", type=int, default=2000, help="experiments per design")
    p.add_argument("-B", "--resamples", type=int, default=1000, help="bootstrap replicates")
    p.add_argument("--methods", default=METHODS, help="comma-separated interval methods")
    p.add_argument("--seed", type=int, default=20261123, help="seed of the whole study")
    p.add_argument("--scenario", help="run only the designs whose name contains this text")
    p.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    args = p.parse_args(argv)
    scenarios = simulate.coverage_map_scenarios()
    if args.scenario:
        scenarios = [s for s in scenarios if args.scenario in s.name]
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
    print(study.to_markdown())
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": machine, **json.loads(study.to_json())}, fh, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
