"""compare's system rows against bootstrap_ci, and a fingerprint of compare's pairs
(session 12, comparesys; issue 20 item 4).

Over review12's grid (``scripts/review12_fingerprint.py``: average precision and the ROC
AUC with 2-30 positives and shifts 1-6, F1, MCC, balanced accuracy, kappa, accuracy and
recall with 2-30 positives and 0-3 errors, iid and over 12 conditions; RMSE, MAE and MSE
pairs at n = 20 and 50), one line per ``compare`` call: md5 of its differences (every
``PairDifference`` but the result-level text), the method of system A and of
``bootstrap_ci`` on A with the same rng and replicates, whether the two intervals are
equal to 1e-12, and whether A's replicates are bootstrap_ci's (equal columns).

    PYTHONPATH=<before>/src python scripts/comparesys_fingerprint.py > before.txt
    PYTHONPATH=src python scripts/comparesys_fingerprint.py > after.txt
"""

import hashlib
import warnings

import numpy as np

import mlci

R = 200


def line(key, y, a, b, m, **kw):
    """One compare call's fingerprint line (see the module's docstring)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = mlci.compare(y, {"A": a, "B": b}, metric=m, rng=0, n_resamples=R, **kw)
            one = mlci.bootstrap_ci(y, a, metric=m, rng=0, n_resamples=R, **kw)
        except Exception as e:  # (recorded)
            print(key, "ERR", type(e).__name__)
            return
    pairs = hashlib.md5(repr(res.differences).encode()).hexdigest()
    row = res.systems["A"]
    same_ci = bool(
        np.allclose(
            tuple(row.confidence_interval), tuple(one.confidence_interval), atol=1e-12, rtol=0
        )
    )
    d1, d2 = one.bootstrap_distribution, row.bootstrap_distribution
    same_rep = (
        d1 is not None
        and d2 is not None
        and np.array_equal(np.asarray(d1), np.asarray(d2), equal_nan=True)
    )
    print(key, pairs, row.method, one.method, int(same_ci), int(same_rep))


for seed in range(3):
    g = np.random.default_rng(100 + seed)
    for n, n_pos in ((60, 2), (80, 5), (120, 9), (120, 12), (200, 30)):
        y = np.r_[np.ones(n_pos, int), np.zeros(n - n_pos, int)]
        cond = g.integers(0, 12, n)
        strata = g.integers(0, 3, n)
        for shift in (1.0, 3.0, 6.0):
            s1 = y * shift + g.normal(size=n)
            s2 = y * shift * 0.7 + g.normal(size=n)
            for m in ("average_precision", "roc_auc"):
                line((seed, n, n_pos, shift, m), y, s1, s2, m)
                line((seed, n, n_pos, shift, m, "c"), y, s1, s2, m, conditions=cond)
        for errors in (0, 1, 3):
            p = y.copy()
            flip = g.choice(n, errors, replace=False)
            p[flip] = 1 - p[flip]
            q = np.where(g.random(n) < 0.9, y, 1 - y)
            for m in ("f1", "mcc", "balanced_accuracy", "cohen_kappa", "accuracy", "recall"):
                line((seed, n, n_pos, errors, m), y, p, q, m)
                line((seed, n, n_pos, errors, m, "c"), y, p, q, m, conditions=cond)
    for n in (20, 50):
        t = g.normal(size=n)
        a, b = t + g.laplace(size=n), t + 1.3 * g.laplace(size=n)
        for m in ("rmse", "mae", "mse"):
            line(("reg", seed, n, m), t, a, b, m)
