"""One design of the score drivers' or the fields' search, test set by test set.

For classifying a short design (session 11): each test set's ``auto`` method, interval,
estimate, the truth, whether it covers, and the mlci warnings ``auto`` emitted (classes
and the first words of each message), drawn exactly as the search drew them (scores:
``np.random.default_rng([seed, index, i])``; fields: ``[seed, index, i, 24]``)::

    python scripts/design_search_sf_inspect.py scores --seed 14 --design 2 --reps 20
    python scripts/design_search_sf_inspect.py fields --seed 14 --design 4 --misses
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
import design_search_fields as dsf
import design_search_scores as dss

mlci = dss.mlci


def _caught(call: Any) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with mlci.config_context(n_jobs=1):
            res = call()
    msgs = [
        f"{w.category.__name__}: {str(w.message)[:110]}"
        for w in caught
        if issubclass(w.category, mlci.MlciWarning)
    ]
    return res, msgs


def scores_rows(seed: int, index: int, reps: int, B: int, start: int = 0) -> list[dict[str, Any]]:
    d = dss.random_design(index, seed)
    pop = dss.Population(d)
    out = []
    for i in range(start, start + reps):
        g = np.random.default_rng([seed, index, i])
        x = pop.draw(g)
        rng = int(g.integers(2**31))
        res, msgs = _caught(
            lambda x=x, rng=rng: dss.run_driver(d, pop, x, None, {"n_resamples": B, "rng": rng})
        )
        lo, hi, est = dss._interval(d, pop, res)
        method = str(res.result.method if d.family == "band" else res.method)
        cov = dss._covers(d, pop, lo, hi) if d.family != "band" else None
        y = x.get("y")
        extra = {"positives": int(np.sum(y)) if y is not None else None}
        if d.family == "group":
            extra["judged_pos"] = int(np.sum((x["groups"] == pop.judged) & (y == 1)))
        row = {"i": i, "method": method, "low": lo, "high": hi, "estimate": est}
        row.update(truth=pop.truth, covers=cov, warnings=msgs, **extra)
        out.append(row)
    return out


def fields_rows(seed: int, index: int, reps: int, B: int, start: int = 0) -> list[dict[str, Any]]:
    d = dsf.random_design(index, seed)
    pop = dsf.Population(d)
    out = []
    for i in range(start, start + reps):
        g = np.random.default_rng([seed, index, i, 24])
        x = pop.draw(g)
        truth: float = x["truth"] if "truth" in x else float(pop.truth or 0.0)
        rng = int(g.integers(2**31))
        res, msgs = _caught(
            lambda x=x, rng=rng: dsf._run(d, x, "auto", {"n_resamples": B, "rng": rng}, 0.95)
        )
        lo, hi = map(float, res.confidence_interval)
        row = {"i": i, "method": str(res.method), "low": lo, "high": hi}
        row.update(estimate=float(res.estimate), truth=truth, covers=bool(lo <= truth <= hi))
        row.update(warnings=msgs)
        out.append(row)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("script", choices=("scores", "fields"))
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--design", type=int, required=True)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("-B", type=int, default=500)
    ap.add_argument("--misses", action="store_true", help="print only the misses")
    args = ap.parse_args(argv)
    rows = (scores_rows if args.script == "scores" else fields_rows)(
        args.seed, args.design, args.reps, args.B, args.start
    )
    kinds: collections.Counter[str] = collections.Counter()
    for r in rows:
        miss = r["covers"] is False
        kinds[(r["method"], bool(r["warnings"]), r["covers"])] += 1  # type: ignore[index]
        if args.misses and not miss:
            continue
        ws = " | ".join(r["warnings"]) or "-"
        ex = {k: v for k, v in r.items() if k in ("positives", "judged_pos")}
        print(
            f"{r['i']:3d} {r['method']:<22} [{r['low']:.6g}, {r['high']:.6g}] "
            f"est {r['estimate']:.6g} truth {r['truth']:.6g} "
            f"{'covers' if r['covers'] else 'MISS'} {ex} {ws}"
        )
    print("(method, warned, covers): count")
    for k, v in sorted(kinds.items(), key=str):
        print(f"  {k}: {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
