"""Average precision with 5-9 positives: BCa against auto's near-edge logit t (session 11,
lead; the decision search's seed-14 #34: AP 0.19 from about 5 positives in 34 samples,
auto 0.846 of 298 test sets, BCa 0.950).

Binormal scores (negatives N(0, 1), positives N(mu, 1)), n samples at prevalence pi; the
truth is the average precision of 2,000,000 samples of the population.  Per cell,
``--reps`` test sets with 5-9 positives (others redrawn), ``auto`` (before: as on main)
and BCa, B = ``-B``.

    nice -n 15 python scripts/ap_few_positives_bca.py --reps 300 -B 500 \\
        --json scripts/data/ap_few_positives_bca.json
"""

from __future__ import annotations

import argparse
import json
import warnings

import numpy as np

import mlci

CELLS = [(34, 0.15, 0.0), (34, 0.15, 1.0), (64, 0.12, 2.0), (64, 0.12, 3.0), (64, 0.12, 4.5)]


def ap_truth(pi: float, mu: float) -> float:
    g = np.random.default_rng(12345)
    n = 2_000_000
    y = g.random(n) < pi
    s = g.normal(0, 1, n) + mu * y
    from sklearn.metrics import average_precision_score

    return float(average_precision_score(y, s))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("-B", "--resamples", type=int, default=500)
    ap.add_argument("--json")
    args = ap.parse_args()
    out = []
    for ci, (n, pi, mu) in enumerate(CELLS):
        truth = ap_truth(pi, mu)
        g = np.random.default_rng([7, ci])
        hits = {"auto": [], "bca": []}
        methods, warned = [], 0
        while len(hits["bca"]) < args.reps:
            y = (g.random(n) < pi).astype(int)
            if not 5 <= y.sum() <= 9:
                continue
            s = g.normal(0, 1, n) + mu * y
            seed = int(g.integers(2**31))
            for m in hits:
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    r = mlci.bootstrap_ci(
                        y, s, metric="average_precision", method=m,
                        n_resamples=args.resamples, rng=seed,
                    )  # fmt: skip
                lo, hi = (float(v) for v in r.confidence_interval)
                hits[m].append((lo <= truth <= hi, hi - lo))
                if m == "auto":
                    methods.append(r.method)
                    warned += any(issubclass(x.category, UserWarning) for x in w)
        row = {
            "n": n, "prevalence": pi, "mu": mu, "truth": truth,
            "auto": float(np.mean([h for h, _ in hits["auto"]])),
            "bca": float(np.mean([h for h, _ in hits["bca"]])),
            "auto_width": float(np.median([w for _, w in hits["auto"]])),
            "bca_width": float(np.median([w for _, w in hits["bca"]])),
            "auto_methods": {k: methods.count(k) for k in set(methods)},
            "auto_warned": warned,
        }  # fmt: skip
        out.append(row)
        print(row, flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"args": vars(args), "rows": out}, fh, indent=1)


if __name__ == "__main__":
    main()
