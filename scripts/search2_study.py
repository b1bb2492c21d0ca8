"""Variants of two seed-3 design-search designs (docs/validation.md, section 5).

``python scripts/search2_study.py paired 14 REPS [n=.. prevalence=.. n_conditions=.. icc=..]``
re-runs design #14 of seed 3 (a paired roc_auc difference over conditions) and its
variants, recording per test set whether ``auto`` used the near-edge BCa switch, and the
coverage of t, BCa and percentile on all test sets and on the switched ones.  The switch
is read off the code it runs: since the rule is for independent samples only, over
conditions nothing switches (the numbers in docs/validation.md are from before).

``python scripts/search2_study.py single 38 REPS [...]`` re-runs design #38 (balanced
accuracy over unequal conditions) or a variant (``metric=f1`` etc.) and reports the
coverage of each method, the smaller class's count and how often ``auto`` warned.
"""

from __future__ import annotations

import dataclasses
import sys
import warnings

import numpy as np

sys.path.insert(0, "scripts")
import design_search as ds

import mlci


def _variant(index: int, args: list[str]) -> ds.Design:
    d = ds.random_design(index, seed=3)
    kw = {}
    for a in args:
        k, v = a.split("=")
        cur = getattr(d, k)
        kw[k] = type(cur)(v) if not isinstance(cur, bool) else v == "1"
    return dataclasses.replace(d, **kw)


def paired(d: ds.Design, reps: int, B: int = 1000) -> None:
    pop = ds.Population(d)
    rows = []
    for i in range(reps):
        g = np.random.default_rng([3, d.index, i])
        x = pop.draw(g)
        seed = int(g.integers(2**31))
        common = {"n_resamples": B, "rng": seed, "n_jobs": 1, "conditions": x["conditions"]}
        out = {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for m in ("auto", "t", "bca", "percentile"):
                    r = mlci.compare(
                        x["y"], {"a": x["a"], "b": x["b"]}, metric=d.metric, method=m, **common
                    ).difference("a", "b")
                    out[m] = r.confidence_interval
                    if m == "auto":
                        out["switched"] = r.method == "bca"
        except (ValueError, ZeroDivisionError, FloatingPointError):
            continue
        rows.append(out)
    sw = np.array([r["switched"] for r in rows])
    print(
        d.label(), "truth", round(pop.truth, 5), "test sets", len(rows), "switched", int(sw.sum())
    )
    for m in ("auto", "t", "bca", "percentile"):
        cov = np.array([r[m][0] <= pop.truth <= r[m][1] for r in rows])
        wid = np.array([r[m][1] - r[m][0] for r in rows])
        sub = f" switched {cov[sw].mean():.3f}" if sw.any() else ""
        print(f"  {m:10s} cov {cov.mean():.3f} width {np.median(wid):.4f}{sub}")
    # candidate: percentile where the near-edge rule switches, t elsewhere
    for alt in ("t", "percentile"):
        cov = np.array(
            [
                (r[alt] if r["switched"] else r["t"])[0]
                <= pop.truth
                <= (r[alt] if r["switched"] else r["t"])[1]
                for r in rows
            ]
        )
        print(f"  rule: {alt} where switched, t elsewhere: cov {cov.mean():.3f}")


def single(d: ds.Design, reps: int, B: int = 1000) -> None:
    res = ds.run_design(d, reps, B=B, seed=3)
    pop = ds.Population(d)
    few = []
    for i in range(min(reps, 50)):
        x = pop.draw(np.random.default_rng([3, d.index, i]))
        y = np.asarray(x["y"])
        few.append(min(int(y.sum()), int((1 - y).sum())))
    print(
        res["label"],
        "truth",
        round(res["truth"], 4),
        "warned",
        res["warned"],
        "/",
        reps,
        "smaller class median",
        int(np.median(few)),
        "range",
        min(few),
        max(few),
    )
    for m, v in res["methods"].items():
        print(f"  {m:10s} cov {v['coverage']:.3f} width {v['median_width']:.4f}")


if __name__ == "__main__":
    kind, idx, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    d = _variant(idx, sys.argv[4:])
    (paired if kind == "paired" else single)(d, reps)
