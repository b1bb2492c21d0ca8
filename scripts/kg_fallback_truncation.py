"""Does truncating the design effect at 1 matter for F1, MCC and kappa's near-edge
Korn & Graubard fallback over conditions? (session 11, kgfew)

The studentized interval of a decision metric gives way to Korn & Graubard's interval
where its bootstrap-t bound is edge-dominated (a handful of errors:
:func:`mlci.intervals.bootstrap.edge_interval`).  A proportion's fallback is truncated at
design effect 1 since session 10 (its nominal size is known); F1, MCC and kappa have no
nominal size in the linearization, so theirs is not.  Their size as independent samples
can be read off the standard error of the same samples as independent (``se_iid``, as
:func:`mlci.engine.clustered_edge.design_effect_one_options` does where the standard
error is 0): ``n_iid = u (1 - u) / se_iid^2`` on the metric's range.

On each test set (``y_true`` Bernoulli(0.3); each sample right with its condition's
probability, the conditions' accuracies from a Beta with the cell's ICC around ``1 -
errors / n``) ``method="auto"`` is computed; on the test sets where it gave the
fallback (``result.method == "korn_graubard"``) the script records its interval
(checked equal to :func:`mlci.intervals.near_bound.korn_graubard_interval` from the
engine's linearization) and the truncated one (the same with ``standard_error_iid``).
Coverage of the population metric (the metric of the expected confusion counts).

Usage::

    nice -n 15 python scripts/kg_fallback_truncation.py --reps 200 \
        --json scripts/data/kg_fallback_truncation.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

import mlci
from mlci.engine.bootstrap import resolve_method
from mlci.engine.linearize import Linearization
from mlci.engine.resampling import make_plan
from mlci.intervals.near_bound import korn_graubard_interval
from mlci.metrics import get_kernel

LEVEL = 0.95
B = 500
PREVALENCE = 0.3
METRICS = ("f1", "mcc", "cohen_kappa")
BOUNDS = {"f1": (0.0, 1.0), "mcc": (-1.0, 1.0), "cohen_kappa": (-1.0, 1.0)}
#: ICC, conditions, n, expected errors (ICC 0: where the design effect is estimated below 1
#: most often)
CELLS = list(itertools.product((0.0,), (10, 30), (200, 500), (2, 4)))


def population(metric: str, p: float) -> float:
    """The metric of the expected confusion counts: prevalence 0.3, right with ``p``."""
    tp, fn = PREVALENCE * p, PREVALENCE * (1 - p)
    tn, fp = (1 - PREVALENCE) * p, (1 - PREVALENCE) * (1 - p)
    if metric == "f1":
        return 2 * tp / (2 * tp + fp + fn)
    po, pe = tp + tn, (tp + fp) * (tp + fn) + (tn + fn) * (tn + fp)
    if metric == "cohen_kappa":
        return (po - pe) / (1 - pe)
    return (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


def run_cell(icc: float, C: int, n: int, errors: int, reps: int, seed: int) -> dict[str, Any]:
    g = np.random.default_rng([seed, 113, C, n, errors, int(icc * 1000)])
    p = 1 - errors / n
    cond = np.repeat(np.arange(C), n // C)
    n = len(cond)
    out: dict[str, Any] = {"icc": icc, "conditions": C, "n": n, "errors": errors}
    for metric in METRICS:
        truth = population(metric, p)
        fb = hit_now = hit_tr = changed = 0
        ratios = []
        for r in range(reps):
            pc = g.beta(p * (1 / icc - 1), (1 - p) * (1 / icc - 1), C) if icc else np.full(C, p)
            y = (g.random(n) < PREVALENCE).astype(int)
            a = np.where(g.random(n) < pc[cond], y, 1 - y)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = mlci.bootstrap_ci(y, a, metric=metric, conditions=cond, n_resamples=B,
                                        rng=r)  # fmt: skip
            if res.method != "korn_graubard":
                continue
            fb += 1
            kernel = get_kernel(metric, (y, a), {})
            plan = make_plan(n, conditions=cond)
            _, lin, _ = resolve_method(kernel, plan, "studentized")
            assert lin is not None
            est = float(res.estimate)
            lo, hi, _ = korn_graubard_interval(est, lin, confidence_level=LEVEL,
                                               bounds=BOUNDS[metric])  # fmt: skip
            now = tuple(map(float, res.confidence_interval))
            assert np.allclose(now, (float(lo), float(hi)), atol=1e-9), (now, lo, hi)
            se_iid = float(Linearization(kernel, make_plan(n)).estimate().standard_error)
            tl, th, _ = korn_graubard_interval(
                est,
                {**lin, "standard_error_iid": se_iid},
                confidence_level=LEVEL,
                bounds=BOUNDS[metric],
            )
            tr = (float(tl), float(th))
            hit_now += now[0] <= truth <= now[1]
            hit_tr += tr[0] <= truth <= tr[1]
            if tr != now:
                changed += 1
                ratios.append((tr[1] - tr[0]) / (now[1] - now[0]))
        out[metric] = {
            "truth": float(truth), "reps": reps, "fallback": fb,
            "coverage_now": hit_now / fb if fb else None,
            "coverage_truncated": hit_tr / fb if fb else None,
            "changed": changed,
            "median_width_ratio_changed": float(np.median(ratios)) if ratios else None,
        }  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    cells = []
    t0 = time.time()
    for icc, C, n, e in CELLS:
        c = run_cell(icc, C, n, e, args.reps, args.seed)
        cells.append(c)
        print(f"[{time.time() - t0:.0f}s] icc={icc} C={C} n={n} e={e} "
              + " ".join(f"{m}: fb {c[m]['fallback']} now {c[m]['coverage_now']} "
                         f"trunc {c[m]['coverage_truncated']} changed {c[m]['changed']}"
                         for m in METRICS), file=sys.stderr, flush=True)  # fmt: skip
        if args.json:
            meta = {"reps": args.reps, "seed": args.seed, "level": LEVEL, "B": B}
            args.json.write_text(json.dumps({"meta": meta, "cells": cells}, indent=1) + "\n")


if __name__ == "__main__":
    main()
