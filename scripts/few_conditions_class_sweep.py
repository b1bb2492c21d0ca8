"""Few samples of a class over fewer than 20 conditions (issue 20; seed-6 #23, seed-3 #17).

The clustered-class warning (:func:`mlci.engine.auto.clustered_class_rule`) was swept over
20-300 conditions (``scripts/search2_study.py class-sweep``) and applies only there.  Seed-6
#23 of the design search (Cohen's kappa, n = 273, about 7 positives over 10 conditions at
ICC 0.40) lies below that range: every method covers 0.58-0.65 and ``auto`` warns in 43%
of the test sets only (by other rules).  This sweep runs the class sweep's cells
(F1, MCC, kappa and balanced accuracy on the same test sets, ``auto``, BCa and percentile
from one set of replicates) over 8-19 conditions, and scores candidate warning rules as
the class sweep does (a cell is warned when the rule fires in at least half its test sets,
failing when ``auto`` covers below 0.935).

Usage::

    nice python scripts/few_conditions_class_sweep.py run FIRST LAST REPS OUT.jsonl
    python scripts/few_conditions_class_sweep.py report OUT.jsonl [...]
"""

from __future__ import annotations

import itertools
import json
import math
import sys
import time
from typing import Any

import numpy as np

sys.path.insert(0, "scripts")
import design_search as ds
import search2_study as s2

from mlci.engine import auto, clustered_class

METRICS = s2.CLASS_SWEEP_METRICS


def cells() -> list[ds.Design]:
    """Seed-6 #23 and 47 cells: 3-60 expected positives (log-uniform), 8-19 conditions,
    n 150-2,000, ICC 0-0.5, equal or log-normal sizes, a false negative rate 0.05-0.3
    and 0.1-0.6 false positives per positive (a fixed random sample, the same on every
    run)."""
    g = np.random.default_rng(21)
    out = [ds.random_design(23, 6)]
    for k in range(47):
        positives = float(np.exp(g.uniform(np.log(3), np.log(60))))
        c = int(g.integers(8, 20))
        n = round(max(np.exp(g.uniform(np.log(150), np.log(2000))), 6 * c, 4 * positives))
        icc = float(g.choice([0.0, 0.1, 0.2, 0.35, 0.5]))
        unequal = bool(g.random() < 0.5)
        fnr = float(g.uniform(0.05, 0.3))
        fp = float(g.uniform(0.1, 0.6))
        out.append(s2.class_sweep_design(3900 + k, n, positives, c, icc, unequal, fnr, fp))
    return out


def run(first: int, last: int, reps: int, path: str) -> None:
    for d in cells()[first:last]:
        t0 = time.process_time()
        res = s2.class_sweep_cell(d, reps)
        res["cpu_seconds"] = round(time.process_time() - t0, 1)
        with open(path, "a") as fh:
            fh.write(json.dumps(res) + "\n")
        cov = {
            m: np.mean([r["auto"] for r in rows if r is not None])
            for m, rows in res["rows"].items()
        }
        print(d.label(), res["cpu_seconds"], {m: round(float(v), 3) for m, v in cov.items()})


#: candidate rules ``rule(features, n_conditions, metric)`` over 8-19 conditions: the
#: smaller class's Kish number of conditions, or its count
def _below(feature: str, limit: float) -> Any:
    """A rule that fires when the test set's ``feature`` is below ``limit``."""

    def rule(f: dict, c: int, m: str) -> bool:
        return bool(f[feature] < limit)

    return rule


RULES: dict[str, Any] = {
    **{f"Kish < {e}": _below("kish", e) for e in (3, 4, 5, 6, 8, 10)},
    **{f"few < {k}": _below("few", k) for k in (8, 10, 15, 20, 30)},
    "fewer than 8 per effective condition (the clustered-class rule from 8 conditions)": (
        lambda f, c, m: f["few"] < clustered_class.SWEEP_MAX_PER_CONDITION * f["kish"]
    ),
    "... and fewer than 20 of the class": lambda f, c, m: (
        f["few"] < clustered_class.SWEEP_MAX_PER_CONDITION * f["kish"] and f["few"] < 20
    ),
    "mlci now (clustered_class_rule)": lambda f, c, m: auto.clustered_class_rule(
        c, f["few"], f["kish"], f["class_error_icc"] if m in auto.CLUSTERED_ICC_METRICS else None
    ),
}


def load(paths: list[str]) -> list[dict]:
    out = []
    for p in paths:
        out += [json.loads(line) for line in open(p) if line.strip()]
    return out


def report(paths: list[str]) -> None:
    """Per cell: each metric's coverage (auto, BCa, percentile), the share warned now, the
    smaller class's median count and Kish number; then each rule scored per cell."""
    cs = load(paths)
    print(
        "| cell | conditions | ICC | positives (median) | Kish (median) | metric | auto | BCa "
        "| percentile | warned now |"
    )
    print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    for c in cs:
        d = c["design"]
        few = np.median([f["few"] for f in c["features"]])
        kish = np.median([f["kish"] for f in c["features"]])
        for m in METRICS:
            rows = [r for r in c["rows"][m] if r is not None]
            cov = {k: np.mean([r[k] for r in rows]) for k in ("auto", "bca", "percentile")}
            print(
                f"| {d['index']} | {d['n_conditions']}{' unequal' if d['unequal'] else ''} "
                f"| {d['icc']:.2f} | {few:.0f} | {kish:.1f} | {m} | {cov['auto']:.3f} "
                f"| {cov['bca']:.3f} | {cov['percentile']:.3f} "
                f"| {np.mean([r['warned'] for r in rows]):.2f} |"
            )
    print()
    print(
        "| rule (or warned now) | metrics | failing cells warned | missed (of them below 0.91) "
        "| false alarms | unwarned: coverage | warned: coverage |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    for (name, rule), (fam, metrics) in itertools.product(
        {**RULES, "any warning now": None}.items(),
        (("f1/mcc/kappa", METRICS[:3]), ("balanced accuracy", METRICS[3:])),
    ):
        fail = warned = missed = strong = missed_strong = fa = hold = 0
        cov: dict[bool, list] = {True: [], False: []}
        for c in cs:
            n_cond = c["design"]["n_conditions"]
            for m in metrics:
                ok = [i for i, r in enumerate(c["rows"][m]) if r is not None]
                hits = np.array([c["rows"][m][i]["auto"] for i in ok])
                if rule is None:
                    fired = np.array([c["rows"][m][i]["warned"] for i in ok])
                else:
                    fired = np.array(
                        [
                            bool(rule(c["features"][i], n_cond, m)) or c["rows"][m][i]["warned"]
                            for i in ok
                        ]
                    )
                w, failing = fired.mean() >= 0.5, hits.mean() < 0.935
                fail += failing
                warned += w and failing
                missed += (not w) and failing
                strong += hits.mean() < 0.91
                missed_strong += (not w) and hits.mean() < 0.91
                fa += w and not failing
                hold += not failing
                cov[True] += hits[fired].tolist()
                cov[False] += hits[~fired].tolist()
        u, v = cov[False], cov[True]
        print(
            f"| {name} | {fam} | {warned} of {fail} | {missed} ({missed_strong} of {strong}) "
            f"| {fa} of {hold} | {np.mean(u) if u else math.nan:.3f} ({len(u)}) "
            f"| {np.mean(v) if v else math.nan:.3f} ({len(v)}) |"
        )


if __name__ == "__main__":
    if sys.argv[1] == "run":
        run(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == "report":
        report(sys.argv[2:])
    else:
        raise SystemExit(__doc__)
