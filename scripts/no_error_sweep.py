"""Coverage of ``method="auto"`` for F1, MCC and Cohen's kappa with a handful of expected
errors, before and after the exact interval of a test set without an error
(``mlci.engine.no_error``; docs/validation.md, "A test set without an error (session 11,
lead)").

Independent samples of a two-class population (prevalence ``pi``, false-negative rate
``a``, false-positive rate ``b`` set so that ``E`` errors are expected in ``n`` samples,
a share ``fn_share`` of them false negatives).  The truth is the metric of the
population's expected confusion table.  Every test set's interval is ``auto``'s; the
test sets without an error are counted apart: before this change their interval was the
point ``[1, 1]`` (every bootstrap replicate perfect), which misses every truth below 1,
so "before" is the coverage with those test sets counted as misses.

    python scripts/no_error_sweep.py --reps 300 -B 500 --json scripts/data/no_error_sweep.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
import warnings

import numpy as np

import mlci

METRICS = ("f1", "mcc", "cohen_kappa")


def truth(metric: str, pi: float, a: float, b: float) -> float:
    tp, fn, fp, tn = pi * (1 - a), pi * a, (1 - pi) * b, (1 - pi) * (1 - b)
    if metric == "f1":
        return 2 * tp / (2 * tp + fp + fn)
    if metric == "mcc":
        return (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    po = tp + tn
    pe = (tp + fp) * (tp + fn) + (tn + fn) * (tn + fp)
    return (po - pe) / (1 - pe)


def cell(n: int, pi: float, errors: float, fn_share: float, reps: int, b_: int, seed: int):
    a = errors * fn_share / (n * pi)
    b = errors * (1 - fn_share) / (n * (1 - pi))
    rng = np.random.default_rng(seed)
    out = {m: {"cover": 0, "n": 0, "zero": 0, "zero_cover": 0, "widths": []} for m in METRICS}
    for r in range(reps):
        y = (rng.random(n) < pi).astype(int)
        if y.min() == y.max():
            continue
        flip = np.where(y == 1, rng.random(n) < a, rng.random(n) < b)
        p = np.where(flip, 1 - y, y)
        zero = not flip.any()
        for m in METRICS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    res = mlci.bootstrap_ci(y, p, metric=m, n_resamples=b_, rng=seed * 100_000 + r)
                except ValueError:  # undefined on this test set (MCC without a predicted class)
                    out[m]["undefined"] = out[m].get("undefined", 0) + 1
                    continue
            lo, hi = float(res.confidence_interval.low), float(res.confidence_interval.high)
            t = truth(m, pi, a, b)
            hit = lo <= t <= hi
            o = out[m]
            o["n"] += 1
            o["cover"] += hit
            o["zero"] += zero
            o["zero_cover"] += hit and zero
            o["widths"].append(hi - lo)
    rows = []
    for m, o in out.items():
        rows.append(
            {
                "metric": m,
                "n": n,
                "prevalence": pi,
                "expected_errors": errors,
                "fn_share": fn_share,
                "truth": truth(m, pi, a, b),
                "test_sets": o["n"],
                "undefined": o.get("undefined", 0),
                "no_error": o["zero"],
                "after": o["cover"] / o["n"],
                "before": (o["cover"] - o["zero_cover"]) / o["n"],
                "no_error_cover": o["zero_cover"] / max(o["zero"], 1),
                "median_width": float(np.median(o["widths"])),
            }
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("-B", "--resamples", type=int, default=500)
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = []
    t0 = time.time()
    grid = itertools.product((100, 500), (0.05, 0.3), (0.5, 1.0, 2.0, 3.0), (1.0, 0.5))
    for i, (n, pi, e, s) in enumerate(grid):
        for row in cell(n, pi, e, s, args.reps, args.resamples, 1000 + i):
            rows.append(row)
            print(
                f"{row['metric']:12s} n={n:4d} pi={pi:.2f} E={e:.1f} fn={s:.1f} "
                f"no_error={row['no_error']:3d} before={row['before']:.3f} "
                f"after={row['after']:.3f} (no-error sets {row['no_error_cover']:.3f})",
                flush=True,
            )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"args": vars(args), "seconds": time.time() - t0, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
