"""The EER with few errors over strongly clustered conditions (issue 20): ``auto`` with the
design effect at the tested rate (:func:`mlci.engine.scores_clustered.clustered_eer_deff`)
against ``auto`` before (the threshold's design effect), BCa and percentile.

The populations of ``scripts/scores_clustered_eer_sweep.py`` (binormal scores over
conditions of unequal sizes, the condition shift set so that the errors at the
population EER threshold have the ICC given, ``k`` expected errors in 100 targets of
1,000 trials).  Per test set: ``auto`` (``eer_ci``, B = 500), ``method="bca"`` and its
percentile interval from the same replicates, and ``auto`` before this rule: the score
interval with the threshold's design effect below 5 errors of the estimate, else the
percentile interval.  "gated": the share of test sets whose scores cluster strongly
(score ICC >= 0.75 over < 100 conditions), which get the design effect at the rate.

``nice python scripts/scores_clustered_rate_sweep.py --reps 150`` (about 15 minutes of
CPU).  docs/validation.md, "Few errors over conditions: the EER at a high ICC, and the
Brier score".
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
import zlib
from pathlib import Path
from typing import Any

import numpy as np

import mlci
from mlci.engine.scores_clustered import (
    MIN_EER_CLUSTER_ERRORS,
    clustered_eer_interval,
    clustered_error_counts,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import scores_clustered_eer_sweep as sw

METHODS = ("auto", "before", "bca", "percentile")


def designs() -> list[sw.Design]:
    out = [
        sw.Design(1000, 0.1, k, c, icc)
        for icc in (0.5, 0.25)
        for c in (10, 20, 50)
        for k in (0.5, 1, 2, 5, 8)
    ]
    out += [sw.Design(1000, 0.1, k, 200, 0.5) for k in (1, 5)]
    out += [sw.Design(1000, 0.1, k, 20, icc) for icc in (0.0, 0.1) for k in (1, 5)]
    return out


def one(d: sw.Design, rho: Any, r: int, B: int) -> dict[str, Any]:
    g = np.random.default_rng([0, zlib.crc32(d.label().encode()), r])
    y, s, cond = sw.draw(d, g, rho)
    while len(np.unique(cond[y])) < 2 or len(np.unique(cond[~y])) < 2:
        y, s, cond = sw.draw(d, g, rho)
    sc = mlci.Scores.from_labels(y.astype(int), s)
    kw = {"n_resamples": B, "rng": r, "conditions": cond}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auto = mlci.eer_ci(sc, **kw).eer
    out: dict[str, Any] = {
        "auto": tuple(map(float, auto.confidence_interval)),
        "warned": any(c.category is mlci.NearBoundWarning for c in caught),
        "gated": "deff='rate'" in str(auto.details.get("method_reason", "")),
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bca = mlci.eer_ci(sc, method="bca", **kw).eer
    out["bca"] = tuple(map(float, bca.confidence_interval))
    out["percentile"] = tuple(map(float, bca.interval(method="percentile").confidence_interval))
    errors = float(auto.estimate) * min(int(y.sum()), int((~y).sum()))
    if errors < MIN_EER_CLUSTER_ERRORS:
        out["before"] = clustered_eer_interval(
            clustered_error_counts(s[~y], cond[~y], s[y], cond[y])
        )
    else:
        out["before"] = out["percentile"]
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=150)
    p.add_argument("-B", "--resamples", type=int, default=500)
    p.add_argument("--design", type=int, action="append")
    a = p.parse_args()
    print(f"| # | design | gated | warned | {' | '.join(METHODS)} |")
    print("|---|---|---|---|" + "---|" * len(METHODS))
    t0 = time.process_time()
    for i, d in enumerate(designs()):
        if a.design and i not in a.design:
            continue
        rho = d.rho
        rows = [one(d, rho, r, a.resamples) for r in range(a.reps)]
        t = d.value
        cells = []
        for m in METHODS:
            cov = np.mean([x[m][0] <= t <= x[m][1] for x in rows])
            cells.append(f"{cov:.3f} / {np.median([x[m][1] - x[m][0] for x in rows]):.3g}")
        gated = np.mean([x["gated"] for x in rows])
        warned = np.mean([x["warned"] for x in rows])
        print(f"| {i} | {d.label()} | {gated:.2f} | {warned:.2f} | " + " | ".join(cells) + " |",
              flush=True)  # fmt: skip
    print(f"\n{a.reps} test sets per design, B = {a.resamples}; "
          f"{time.process_time() - t0:.0f} s CPU")  # fmt: skip


if __name__ == "__main__":
    main()
