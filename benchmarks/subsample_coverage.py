"""Coverage of the rescaled m-out-of-n subsample interval (and the smoothed bootstrap) of
a TPR at a fixed threshold and of the EER, against the plain bootstrap.

Usage: ``nice -n 10 python benchmarks/subsample_coverage.py [reps]``; writes
benchmarks/results_subsample_coverage.json (docs/scores.md quotes it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from scipy import stats

from mlci import Scores

TRUE_TPR = 1 - stats.norm.cdf(0.5 - 1.0)  # N(1, 1) positives above 0.5
TRUE_EER = stats.norm.cdf(-0.5)  # N(1, 1) vs N(0, 1): EER at the midpoint 0.5


def main(reps: int = 300) -> dict:
    rng = np.random.default_rng(2026)
    setups = {
        "bootstrap (percentile)": {"method": "percentile"},
        "subsample 0.5 (basic, rescaled)": {"subsample": 0.5},
        "subsample 0.2 (basic, rescaled)": {"subsample": 0.2},
        "smoothed (percentile)": {"smoothing": True, "method": "percentile"},
    }
    out: dict = {"reps": reps, "n_per_class": 150, "n_resamples": 400, "level": 0.95}
    hits = {(k, m): 0 for k in setups for m in ("tpr", "eer")}
    for i in range(reps):
        s = Scores(pos=rng.normal(1, 1, 150), neg=rng.normal(0, 1, 150))
        for name, kw in setups.items():
            for metric, truth, extra in (
                ("tpr", TRUE_TPR, {"threshold": 0.5}),
                ("eer", TRUE_EER, {}),
            ):
                n_res = 400 if "smoothed" not in name else 200
                r = s.bootstrap_ci(metric, rng=i, n_resamples=n_res, **extra, **kw)
                lo, hi = r.confidence_interval
                hits[(name, metric)] += lo <= truth <= hi
    out["coverage"] = {f"{k} / {m}": v / reps for (k, m), v in hits.items()}
    return out


if __name__ == "__main__":
    res = main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
    path = Path(__file__).parent / "results_subsample_coverage.json"
    path.write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res, indent=1))
