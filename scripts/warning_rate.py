"""How often ``method="auto"`` warns in the coverage map's clustered-proportion designs.

The warning for a proportion over conditions near 0 or 1 with few effective minority
outcomes (``mlci.engine.auto``) reads estimates, so it fires on part of a design's test
sets.  This script draws test sets from the map's generators
(:func:`mlci.simulate.coverage_map_scenarios`) and counts the ones on which the result
warns, and on which the count rule alone (without the bound condition) would.  The
numbers of docs/validation.md, section 2 ("Where no method holds").

Usage::

    python scripts/warning_rate.py -n 300
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

import mlci
from mlci import simulate
from mlci.engine import auto

DESIGNS = (
    "accuracy 0.95 C=12 ICC=0.3",
    "accuracy 0.95 C=8 ICC=0.1",
    "accuracy 0.98 C=20 ICC=0.1",
    "accuracy 0.95 C=12 ICC=0.1",
    "accuracy 0.95 C=20 ICC=0.1",
    "accuracy C=8 ICC=0.3",
    "accuracy C=12 ICC=0.5",
    "accuracy C=20 unequal ICC=0.2",
    "accuracy C=12 unequal ICC=0.1",
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--test-sets", type=int, default=300)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    by_name = {s.name: s for s in simulate.coverage_map_scenarios()}
    print("| design | warned | count rule alone |\n|---|---:|---:|")
    for name in DESIGNS:
        warned = count_only = 0
        for i in range(args.test_sets):
            sim = by_name[name].generate(np.random.default_rng([args.seed, i]))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = mlci.bootstrap_ci(
                    *sim.data,
                    metric=sim.metric,
                    conditions=sim.conditions,
                    method="auto",
                    n_resamples=20,
                    rng=0,
                )
            warned += any("minority" in str(w.message) for w in caught)
            d = res.diagnostics
            minority = min(d["estimate"], 1 - d["estimate"]) * d["effective_n"]
            count_only += minority < auto.MIN_EFFECTIVE_MINORITY
        n = args.test_sets
        print(f"| {name} | {warned / n:.2f} | {count_only / n:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
