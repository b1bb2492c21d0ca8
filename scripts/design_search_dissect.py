"""One decision-search design test set by test set: which test sets ``auto`` misses, and
whether those warned.

Repeats ``design_search.run_design``'s loop (the same draws: ``np.random.default_rng(
[draw_seed, index, i])``, the same interval seeds) for ``auto`` only, and records for each
test set the interval, whether it covers, the mlci warnings raised, the method chosen, and
the test set's positives and errors (decision designs: misses and false alarms of
system ``a``)::

    python scripts/design_search_dissect.py --seed 12 --design 25 --draw-seed 12 --reps 100

With ``--json`` the per-test-set records are saved under ``dissect["s<seed>#<i>@<draw>"]``.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import warnings
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search as ds

import mlci


def dissect(d: ds.Design, reps: int, B: int, draw_seed: int) -> list[dict[str, Any]]:
    """Per test set: auto's interval, cover, warnings, method, positives and errors."""
    pop = ds.Population(d)
    rows: list[dict[str, Any]] = []
    for i in range(reps):
        g = np.random.default_rng([draw_seed, d.index, i])
        x = pop.draw(g)
        seed = int(g.integers(2**31))
        y, a = np.asarray(x["y"]), np.asarray(x["a"])
        row: dict[str, Any] = {"i": i, "positives": int(y.sum()), "n": len(y)}
        if d.family in ("decision", "paired") and d.metric != "roc_auc":
            row["misses"] = int(((y == 1) & (a == 0)).sum())
            row["false_alarms"] = int(((y == 0) & (a == 1)).sum())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                common = {"n_resamples": B, "rng": seed, "n_jobs": 1}
                if d.family in ("decision", "rank", "logloss"):
                    r = mlci.bootstrap_ci(
                        y, a, metric=d.metric, method="auto", conditions=x["conditions"], **common
                    )
                elif d.family == "paired":
                    r = mlci.compare(
                        y,
                        {"a": a, "b": x["b"]},
                        metric=d.metric,
                        method="auto",
                        conditions=x["conditions"],
                        **common,
                    ).difference("a", "b")
                elif d.family == "scores":
                    sc = mlci.Scores.from_labels(y, a)
                    cond = x["conditions"]
                    if d.metric == "auc":
                        r = mlci.auc_ci(sc, method="auto", conditions=cond, **common)
                    elif d.metric == "eer":
                        r = mlci.eer_ci(sc, method="auto", conditions=cond, **common).eer
                    else:
                        r = mlci.operating_point_ci(
                            sc, "fnr", at=d.at, x="fpr", method="auto", conditions=cond, **common
                        )[0]
                else:
                    raise SystemExit(f"family {d.family} not dissected here")
            except ds.REFUSALS as exc:
                row["refused"] = f"{type(exc).__name__}: {str(exc)[:120]}"
                rows.append(row)
                continue
        lo, hi = map(float, r.confidence_interval)
        row.update(
            {
                "estimate": float(r.estimate),
                "low": lo,
                "high": hi,
                "covers": bool(lo <= pop.truth <= hi),
                "side": "ok" if lo <= pop.truth <= hi else ("high" if pop.truth < lo else "low"),
                "method": r.method,
                "warnings": sorted(
                    {
                        w.category.__name__
                        for w in caught
                        if issubclass(w.category, mlci.MlciWarning)
                    }
                ),
                "messages": sorted(
                    {
                        str(w.message)[:160]
                        for w in caught
                        if issubclass(w.category, mlci.MlciWarning)
                    }
                ),
            }
        )
        rows.append(row)
    return rows


def summary_counts(rows: list[dict[str, Any]], truth: float) -> dict[str, Any]:
    """Covered, warned, misses warned and misses above the truth, by the method chosen."""
    served = [r for r in rows if "covers" in r]
    out: dict[str, Any] = {
        "served": len(served),
        "refused": len(rows) - len(served),
        "covered": sum(r["covers"] for r in served),
        "warned": sum(bool(r["warnings"]) for r in served),
        "misses": sum(not r["covers"] for r in served),
        "misses_warned": sum(bool(r["warnings"]) for r in served if not r["covers"]),
        "misses_above": sum(r["side"] == "high" for r in served),
        "by_method": {},
    }
    for r in served:
        m = out["by_method"].setdefault(r["method"], [0, 0])
        m[0] += 1
        m[1] += r["covers"]
    return out


def summary(rows: list[dict[str, Any]], truth: float) -> str:
    served = [r for r in rows if "covers" in r]
    miss = [r for r in served if not r["covers"]]
    out = [
        f"truth {truth:.6g}: covered {sum(r['covers'] for r in served)}/{len(served)}, "
        f"refused {len(rows) - len(served)}, warned {sum(bool(r['warnings']) for r in served)}, "
        f"misses warned {sum(bool(r['warnings']) for r in miss)}/{len(miss)}, "
        f"misses above the truth {sum(r['side'] == 'high' for r in miss)}"
    ]
    if served and "misses" in served[0]:
        by: dict[tuple[int, int], list[int]] = collections.defaultdict(lambda: [0, 0, 0])
        for r in served:
            k = (r["misses"], r["false_alarms"])
            by[k][0] += 1
            by[k][1] += r["covers"]
            by[k][2] += bool(r["warnings"])
        out.append("(misses, false alarms): test sets, covered, warned")
        out += [f"  {k}: {v}" for k, v in sorted(by.items())]
    meth = collections.Counter(r["method"] for r in served)
    out.append(f"methods {dict(meth)}")
    msgs = collections.Counter(m[:90] for r in served for m in r["messages"])
    out += [f"  {c}x {m}" for m, c in msgs.most_common(6)]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, required=True, help="the search's seed")
    p.add_argument("--design", type=int, required=True)
    p.add_argument("--draw-seed", type=int, required=True)
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("-B", "--resamples", type=int, default=500)
    p.add_argument("--json")
    args = p.parse_args(argv)
    d = ds.random_design(args.design, args.seed)
    pop = ds.Population(d)
    rows = dissect(d, args.reps, args.resamples, args.draw_seed)
    print(d.label())
    print(summary(rows, pop.truth))
    if args.json:
        doc = ds.load(args.json)
        msgs = collections.Counter(m[:120] for r in rows for m in r.pop("messages", []))
        doc.setdefault("dissect", {})[f"s{args.seed}#{args.design}@{args.draw_seed}"] = {
            "label": d.label(),
            "truth": pop.truth,
            "B": args.resamples,
            "summary": summary_counts(rows, pop.truth),
            "messages": dict(msgs.most_common(8)),
            "rows": rows,
        }
        ds.save(args.json, doc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
