"""Average precision with 3-8 positives under the intervals without a linearization (issue 20;
docs/validation.md, "The AUC near its bound or with a small class under auto", the last part).

``auto`` of ``average_precision`` is BCa when the metric has no closed-form derivative (more
atoms than the numerical linearization takes), so its result took the path of
:func:`mlci.engine.bootstrap.finish_bootstrap` that gave the coverage map's class-size
warning to the ROC AUC only.  Binormal scores (equal spreads, AUC 0.8 and 0.95), 3, 4, 5, 8
positives and 150 negatives, the class counts fixed; the truth is the population's AP at
that prevalence; BCa and percentile, B = 300.

    python scripts/ap_few_class_sweep.py 200 out.json
"""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np
from scipy.integrate import quad
from scipy.stats import norm

import mlci


def population_ap(shift: float, prevalence: float) -> float:
    """The expected precision at a positive's score, over the positives' scores."""

    def f(s: float) -> float:
        tp, fp = prevalence * norm.sf(s - shift), (1 - prevalence) * norm.sf(s)
        return float(norm.pdf(s - shift) * tp / (tp + fp))

    return float(quad(f, shift - 12, shift + 12, limit=200)[0])


def main(reps: int, out: str) -> None:
    rows = []
    for m in (3, 4, 5, 8):
        for auc in (0.8, 0.95):
            n, shift = 150, float(np.sqrt(2) * norm.ppf(auc))
            truth = population_ap(shift, m / (m + n))
            g = np.random.default_rng(1000 + 10 * m + int(100 * auc))  # (as run)
            cov: dict[str, list[bool]] = {"bca": [], "percentile": []}
            y = np.r_[np.ones(m, int), np.zeros(n, int)]
            for r in range(reps):
                s = np.r_[g.normal(shift, 1, m), g.normal(0, 1, n)]
                for k in cov:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        res = mlci.bootstrap_ci(
                            y, s, metric="average_precision", method=k, rng=r, n_resamples=300
                        )
                    lo, hi = res.confidence_interval
                    cov[k].append(bool(lo <= truth <= hi))
            row = {"positives": m, "auc": auc, "truth": truth, "test_sets": reps}
            row.update({f"coverage_{k}": float(np.mean(v)) for k, v in cov.items()})
            print(row, flush=True)
            rows.append(row)
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
