"""Seed-13 #20 (average precision near 1, 1,810 positives, iid) read as the ROC AUC of the same
scores: bootstrap_ci(metric="roc_auc") under auto on 100 test sets (draw seed 14, B = 200)::

    nice -n 15 python scripts/design_search_seed13_auc20.py \\
        > scripts/data/design_search_seed13_auc20.json
"""

import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import design_search as ds

import mlci

WHAT = "s13#20 as roc_auc (bootstrap_ci auto, B=200, draw seed 14, first 100)"
d = ds.random_design(20, 13)
pop = ds.Population(d)
auc_truth = 1 - d.error
cov = 0
warned = 0
n = 0
for i in range(100):
    x = pop.draw(np.random.default_rng([14, 20, i]))
    with warnings.catch_warnings(record=True) as c:
        warnings.simplefilter("always")
        r = mlci.bootstrap_ci(x["y"], x["a"], metric="roc_auc", n_resamples=200, rng=i)
    lo, hi = map(float, r.confidence_interval)
    n += 1
    cov += lo <= auc_truth <= hi
    warned += any(issubclass(z.category, mlci.MlciWarning) for z in c)
print(
    json.dumps(
        {
            "design": WHAT,
            "truth": auc_truth,
            "n": n,
            "covered": cov,
            "warned": warned,
        }
    )
)
