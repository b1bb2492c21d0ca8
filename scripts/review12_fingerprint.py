"""Fingerprint of near-bound results and their warnings, for review12's refactorings.

One md5 per result (its repr and its warnings' classes and messages): ``bootstrap_ci`` and
``compare`` of the ranking metrics with few of a class (average precision with 2-30
positives, the ROC AUC with 3-30 of the smaller class; the rules that count a kernel's
classes: ``few_positive_ap``, ``edge_fallback_applies``, ``smaller_class``), two-class
decision metrics with 2-40 positives and 0-3 errors (iid, over conditions, strata), paired
RMSE differences, and the session-11 warnings (strata class mix, errors in few
conditions, AUC/AP misranked).  Complements ``scripts/refactor_fingerprint.py``.

    PYTHONPATH=<before>/src python scripts/review12_fingerprint.py > before.txt
    PYTHONPATH=src python scripts/review12_fingerprint.py | diff before.txt -

With ``--split`` each line has the result's md5 and its warnings' md5 apart.
"""

# ruff: noqa: B023
# (each lambda is called at once, inside rec, with the loop's values)
import hashlib
import sys

import numpy as np
from fingerprint_record import recorder

import mlci

out: dict = {}
rec = recorder(out)
R = 200


def five(tag, key, y, a, b, m, cond, strata):
    """bootstrap_ci of ``a`` (iid, over ``cond``, with ``strata``) and compare of a and b
    (iid, over ``cond``), under keys ``{tag}bci``, ``{tag}bcic``, ... + ``key``."""
    calls = {
        "bci": lambda: mlci.bootstrap_ci(y, a, metric=m, rng=0, n_resamples=R),
        "bcic": lambda: mlci.bootstrap_ci(y, a, metric=m, rng=0, n_resamples=R, conditions=cond),
        "bcis": lambda: mlci.bootstrap_ci(y, a, metric=m, rng=0, n_resamples=R, strata=strata),
        "cmp": lambda: mlci.compare(y, {"A": a, "B": b}, metric=m, rng=0, n_resamples=R),
        "cmpc": lambda: mlci.compare(
            y, {"A": a, "B": b}, metric=m, rng=0, n_resamples=R, conditions=cond
        ),
    }
    for name, call in calls.items():
        rec((tag + name, *key), call)


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
                five("", (seed, n, n_pos, shift, m), y, s1, s2, m, cond, strata)
        for errors in (0, 1, 3):
            p = y.copy()
            flip = g.choice(n, errors, replace=False)
            p[flip] = 1 - p[flip]
            q = np.where(g.random(n) < 0.9, y, 1 - y)
            for m in ("f1", "mcc", "balanced_accuracy", "cohen_kappa", "accuracy", "recall"):
                five("d", (seed, n, n_pos, errors, m), y, p, q, m, cond, strata)
    for n in (20, 50):
        t = g.normal(size=n)
        a, b = t + g.laplace(size=n), t + 1.3 * g.laplace(size=n)
        for m in ("rmse", "mae", "mse"):
            rec(
                ("reg", seed, n, m),
                lambda: mlci.compare(t, {"A": a, "B": b}, metric=m, rng=0, n_resamples=R),
            )
            rec(
                ("regb", seed, n, m),
                lambda: mlci.bootstrap_ci(t, a, metric=m, rng=0, n_resamples=R),
            )
# --split: the result's hash and its warnings' hash apart (a change of warnings only)
split = "--split" in sys.argv
for k, v in sorted(out.items(), key=repr):
    if split:
        parts = (v[0], repr(v[1]))
        print(k, *(hashlib.md5(x.encode()).hexdigest() for x in parts))
    else:
        print(k, hashlib.md5(repr(v).encode()).hexdigest())
