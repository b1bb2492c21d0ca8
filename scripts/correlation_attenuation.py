"""System-level correlations over few items: coverage and the attenuation warning's rule.

The design search over the fields (``scripts/design_search_fields.py``, seed 10) found
system-level correlations whose intervals, resampling items or both, miss the population
value: the systems' mean scores over few items carry the items' noise, which attenuates
the correlation (#69, #86, #72).  :func:`mlci.correlation_ci` estimates the attenuation
(:mod:`mlci.fields.attenuation`) and warns when it exceeds ``WARN_RATIO`` times the
distance from the estimate to the interval's end on the side of the correction.  This
script runs the design search's correlation populations (its ``Population``: crossed
system, item and residual effects; the truth over every population item, or every system
and item) for

* every system-level design resampling items or both among the search's correlation
  designs (seeds 10 and 12, ``focus="correlation"``) and the seed-10 designs named in
  docs/validation.md;
* the failing designs #69 and #86 with more items (25 to 400), where they should hold;

and records per test set the auto interval's hit or miss, whether the library warned,
and the ratio of the warning rule, so the threshold can be read off (columns ``warned
>c``: the share of test sets with the ratio above ``c``, whatever the number of
systems): the share of warned test sets on designs that hold, and the share of warned
misses on designs that do not.  The design search's truth is over the population's 800
items; the coverage of the value over infinitely many items (the population systems'
own effects, which the warning speaks of) is in parentheses.

Usage::

    nice python scripts/correlation_attenuation.py --reps 200 \\
        --json scripts/data/correlation_attenuation.json
    nice python scripts/correlation_attenuation.py --json ... --report
    nice python scripts/correlation_attenuation.py --global-sweep \\
        --json scripts/data/correlation_global_few_systems.json
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import time
import warnings
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import design_search_fields as dsf

import mlci

NAMED = (5, 10, 23, 32, 36, 56, 69, 72, 86, 89)
RATIOS = (0.25, 0.5, 0.75, 1.0, 1.5)


def designs(n_focus: int) -> list[dsf.Design]:
    """The system-level designs resampling items or both: named, focused, item sweeps."""
    out: dict[str, dsf.Design] = {}
    cands = [dsf.random_design(i, 10) for i in NAMED]
    for seed in (10, 12):
        cands += [dsf.random_design(i, seed, "correlation") for i in range(n_focus)]
    for d in cands:
        if d.p["level"] == "system" and d.p["resample"] in ("items", "both"):
            out.setdefault(d.label(), d)
    for idx in (69, 86):
        base = dsf.random_design(idx, 10)
        for k in (100, 400):
            d = dataclasses.replace(base, p={**base.p, "items": k})
            out.setdefault(d.label(), d)
    return list(out.values())


def true_means(d: dsf.Design) -> tuple[np.ndarray, np.ndarray]:
    """The population systems' mean scores over infinitely many items: ``sign (q + m)``
    and ``q`` (the item effects are common to all systems), the first draws of
    :class:`design_search_fields.Population`'s generator."""
    g = np.random.default_rng([d.index, 41])
    q = g.standard_normal(dsf.CORR_POP)
    m = math.sqrt(d.p["vm"]) * g.standard_normal(dsf.CORR_POP)
    return d.p["sign"] * (q + m), q


def run(d: dsf.Design, reps: int, B: int) -> dict[str, Any]:
    pop = dsf.Population(d)
    mx, mz = true_means(d)
    rows = []
    for i in range(reps):
        g = np.random.default_rng([10, d.index, i, 24])
        pick = np.random.default_rng([10, d.index, i, 24]).choice(dsf.CORR_POP, d.n, False)
        si = np.sort(pick)  # the systems Population.draw takes, from the same generator
        x = pop.draw(g)
        assert np.isin(x["x"][-1], pop.x[si[-1]]).all()  # the systems drawn
        truth = x.get("truth", pop.truth)
        keep = si if d.p["resample"] == "items" else slice(None)
        truth_inf = dsf.corr_value(mx[keep, None], mz[keep, None], d.metric, "system")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = mlci.correlation_ci(
                x["x"],
                x["z"],
                coefficient=d.metric,
                correlation_level="system",
                resample=d.p["resample"],
                n_resamples=B,
                rng=int(g.integers(2**31)),
            )
        lo, hi = map(float, res.confidence_interval)
        att = res.details["attenuation"]
        rows.append(
            {
                "hit": bool(lo <= truth <= hi),
                "truth": float(truth),
                "hit_inf": bool(lo <= truth_inf <= hi),
                "truth_inf": float(truth_inf),
                "estimate": float(res.estimate),
                "low": lo,
                "high": hi,
                "ratio": float(att["ratio"]),
                "corrected": float(att["corrected_estimate"]),
                "rel_x": float(att["reliability_metric"]),
                "rel_y": float(att["reliability_human"]),
                "warned": sorted({type(w.message).__name__ for w in caught}),
            }
        )
    return {"label": d.label(), "design": dataclasses.asdict(d), "rows": rows}


def pack(r: dict[str, Any]) -> dict[str, Any]:
    """A result with its rows as columns, floats to 5 decimals (the stored file)."""
    cols: dict[str, list[Any]] = {k: [] for k in r["rows"][0]}
    for row in r["rows"]:
        for k, v in row.items():
            if k == "warned":
                v = "AttenuatedCorrelationWarning" in v
            cols[k].append(round(v, 5) if isinstance(v, float) else v)
    return {**r, "rows": cols}


def unpack(r: dict[str, Any]) -> dict[str, Any]:
    cols = r["rows"]
    if isinstance(cols, list):
        return r
    n = len(cols["hit"])
    rows = [{k: v[i] for k, v in cols.items()} for i in range(n)]
    for row in rows:
        row["warned"] = ["AttenuatedCorrelationWarning"] if row["warned"] else []
    return {**r, "rows": rows}


def summary(r: dict[str, Any]) -> dict[str, Any]:
    rows = r["rows"]
    hit = np.array([x["hit"] for x in rows])
    ratio = np.array([x["ratio"] for x in rows])
    ratio = np.where(np.isnan(ratio), -1.0, ratio)
    corr = np.array([x["corrected"] for x in rows])
    truth = np.array([x["truth"] for x in rows])
    out = {
        "label": r["label"],
        "reps": len(rows),
        "coverage": float(hit.mean()),
        "coverage_inf": float(np.mean([x["hit_inf"] for x in rows])),
        "mean_truth_inf": float(np.mean([x["truth_inf"] for x in rows])),
        "mean_estimate": float(np.mean([x["estimate"] for x in rows])),
        "mean_truth": float(truth.mean()),
        "mean_corrected": float(np.nanmean(corr)),
        "median_rel": [
            float(np.nanmedian([x["rel_x"] for x in rows])),
            float(np.nanmedian([x["rel_y"] for x in rows])),
        ],
        "nan_ratio": int(np.sum(ratio < 0)),
        "median_ratio": float(np.median(ratio)),
        "warned": {},
        "warned_misses": {},
    }
    lib = np.array(["AttenuatedCorrelationWarning" in x["warned"] for x in rows])
    out["library"] = float(lib.mean())
    out["library_misses"] = float(lib[~hit].mean()) if (~hit).any() else math.nan
    for c in RATIOS:
        w = ratio > c
        out["warned"][str(c)] = float(w.mean())
        out["warned_misses"][str(c)] = float(w[~hit].mean()) if (~hit).any() else math.nan
    return out


def report(results: list[dict[str, Any]]) -> str:
    lines = [
        "| design | reps | coverage (all items) | est / truth (all items) / corrected | "
        + "rel (metric, human) | "
        + "warned (of misses) | "
        + " | ".join(f"warned >{c} (of misses)" for c in RATIOS)
        + " |",
        "|---|---|---|---|---|---|" + "---|" * len(RATIOS),
    ]
    for r in sorted(results, key=lambda r: summary(r)["coverage"]):
        s = summary(r)
        cells = [f"{s['warned'][str(c)]:.2f} ({s['warned_misses'][str(c)]:.2f})" for c in RATIOS]
        lines.append(
            f"| {s['label']} | {s['reps']} | {s['coverage']:.3f} ({s['coverage_inf']:.3f}) | "
            f"{s['mean_estimate']:.3f} / {s['mean_truth']:.3f} ({s['mean_truth_inf']:.3f}) / "
            f"{s['mean_corrected']:.3f} | {s['median_rel'][0]:.3f}, "
            f"{s['median_rel'][1]:.3f} | {s['library']:.2f} ({s['library_misses']:.2f}) | "
            + " | ".join(cells)
            + " |"
        )
    return "\n".join(lines)


def global_sweep(reps: int = 100, B: int = 300) -> list[dict[str, Any]]:
    """The global level over few systems (seed-10 #28, #78 with 50 items), resampling both:
    coverage of the population value at 9, 20 and 40 systems."""
    out = []
    for idx in (28, 78):
        base = dsf.random_design(idx, 10)
        for ns in (9, 20, 40):
            d = dataclasses.replace(base, n=ns, p={**base.p, "items": 50})
            pop = dsf.Population(d)
            hits = []
            for i in range(reps):
                x = pop.draw(np.random.default_rng([77, idx, ns, i]))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = mlci.correlation_ci(
                        x["x"],
                        x["z"],
                        coefficient=d.metric,
                        correlation_level="global",
                        resample="both",
                        n_resamples=B,
                        rng=i,
                    )
                lo, hi = res.confidence_interval
                hits.append((lo <= pop.truth <= hi, pop.truth < lo, pop.truth > hi))
            h = np.array(hits)
            out.append(
                {
                    "design": idx,
                    "metric": d.metric,
                    "systems": ns,
                    "items": 50,
                    "coverage": float(h[:, 0].mean()),
                    "low": int(h[:, 1].sum()),
                    "high": int(h[:, 2].sum()),
                    "truth": float(pop.truth),  # type: ignore[arg-type]
                }
            )
            print(json.dumps(out[-1]), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--B", type=int, default=500)
    ap.add_argument("--focus", type=int, default=40, help="focused designs per seed")
    ap.add_argument("--json", required=True)
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--global-sweep", action="store_true", help="the global level instead")
    a = ap.parse_args()
    if a.global_sweep:
        with open(a.json, "w") as f:
            json.dump({"results": global_sweep()}, f, indent=1)
        return
    if a.report:
        with open(a.json) as f:
            print(report([unpack(r) for r in json.load(f)["results"]]))
        return
    results = []
    t0 = time.time()
    for d in designs(a.focus):
        results.append(run(d, a.reps, a.B))
        s = summary(results[-1])
        print(
            f"{s['label'][:90]}: {s['coverage']:.3f} warned {s['library']:.2f} "
            f"({time.time() - t0:.0f}s)",
            flush=True,
        )
    with open(a.json, "w") as f:
        json.dump({"reps": a.reps, "B": a.B, "results": [pack(r) for r in results]}, f)
    print(report(results))


if __name__ == "__main__":
    main()
