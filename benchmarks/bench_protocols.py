"""Cost of mlci's evaluation protocols against the fits they need.

Run: ``python benchmarks/bench_protocols.py [--quick]``.  Figures are recorded in
docs/validation.md (section "Evaluation protocols").

The protocols' cost is the model fits; the claim is that mlci adds little on top of
them.  For each case the same fits are timed three ways, best of ``--repeat`` runs,
CPU time of this process (``time.process_time``, less sensitive than wall time to the
other jobs of a shared machine), one thread:

* ``mlci``: the mlci call (fits, predictions, scoring with mlci's kernels, interval);
* ``sklearn``: scikit-learn doing the same fits (``cross_validate`` with the same number
  of folds, or a plain loop of ``clone(est).fit(...).predict(...)`` over the same index
  sets for the nested and bootstrap protocols): the peer, and the floor;
* ``arithmetic``: mlci's interval arithmetic alone on the stored predictions (pooled
  kernel, fold scores, nested statistics, delta-method standard error).

Cases: 10x5-fold corrected CV, nested CV (R = 10, k = 5: 150 fits; the column "Bates
et al." gives the fits of the authors' R package ``nestedcv`` for the same R and k:
``R·(k(k−1)/2 + k)`` plus ``k·ceiling(R/5)`` for its bias correction), .632+ bootstrap
(B = 1000, the default), logistic regression and Gaussian naive Bayes, n = 200 and 2000.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold, cross_validate
from sklearn.naive_bayes import GaussianNB

import mlci
from mlci.engine.resampling import make_plan
from mlci.engine.sampler import Stream, block_generator, stream_seed
from mlci.inputs import check_rng_seed
from mlci.protocols._fitting import (
    metric_spec,
    pointwise_values,
    pooled_kernel,
    set_scores,
)
from mlci.protocols.bootstrap632 import oob_standard_error
from mlci.protocols.cv_statistics import nested_statistics
from mlci.protocols.splits import fold_ids, plan_fits

B632 = 1000  # bootstrap632_ci's default number of bootstraps


def bates_fits(reps, k):
    """Model fits of Bates et al.'s ``nestedcv`` (R) for ``reps`` repetitions of k folds."""
    return reps * (k * (k - 1) // 2 + k) + k * -(-reps // 5)


def best(fn, repeat):
    out = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        out.append(time.process_time() - t)
    return min(out)


def loop_fits(est, X, y, fits):
    preds = []
    for f in fits:
        preds.append(clone(est).fit(X[f.train], y[f.train]).predict(X[f.test]))
    return preds


def case_corrected(est, X, y, repeat):
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=10, random_state=0)
    t_sk = best(lambda: cross_validate(est, X, y, cv=cv, scoring="accuracy"), repeat)
    t_ml = best(lambda: mlci.cross_val_ci(est, X, y, n_repeats=10, rng=0), repeat)
    return t_ml, t_sk, None


def _nested_layout(y, reps=10, k=5):
    seed = check_rng_seed(0)
    plans = [
        fold_ids(block_generator(seed, Stream.CV_SPLITS, r), len(y), k, strata=y)
        for r in range(reps)
    ]
    return plans, plan_fits(plans, "stratified-kfold", k, [0] * reps, True)


def case_nested(est, X, y, repeat):
    plans, fits = _nested_layout(y)
    t_sk = best(lambda: loop_fits(est, X, y, fits), repeat)
    t_ml = best(lambda: mlci.cross_val_ci(est, X, y, method="nested", n_repeats=10, rng=0), repeat)
    preds = loop_fits(est, X, y, fits)
    spec = metric_spec("accuracy", None)

    def arithmetic():
        kernel = pooled_kernel(spec, np.concatenate([y[f.test] for f in fits]), preds)
        edges = np.concatenate([[0], np.cumsum([len(f.test) for f in fits])])
        set_scores(kernel, [(edges[i], edges[i + 1]) for i in range(50)])
        pw = pointwise_values(kernel)
        nested_statistics(plans, 5, fits, [pw[edges[i] : edges[i + 1]] for i in range(len(fits))])

    return t_ml, t_sk, best(arithmetic, repeat)


def case_632(est, X, y, repeat):
    n, b = len(y), B632
    counts = (
        make_plan(n, n_resamples=b, rng=stream_seed(check_rng_seed(0), Stream.TRAINING))
        .weights_for()
        .all_replicates()
        .astype(int)
    )
    idx = [np.repeat(np.arange(n), c) for c in counts]
    t_sk = best(lambda: [clone(est).fit(X[i], y[i]).predict(X) for i in idx], repeat)
    t_ml = best(lambda: mlci.bootstrap632_ci(est, X, y, n_bootstraps=b, rng=0), repeat)
    losses = np.array([clone(est).fit(X[i], y[i]).predict(X) != y for i in idx], float)
    return t_ml, t_sk, best(lambda: oob_standard_error(counts, losses), repeat)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 200 only, one run each")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    sizes = (200,) if a.quick else (200, 2000)
    repeat = 1 if a.quick else a.repeat
    print(
        "| protocol | learner | n | fits | Bates et al.'s fits | mlci CPU s "
        "| scikit-learn CPU s | ratio | interval arithmetic CPU s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for n in sizes:
        X, y = make_classification(n, n_features=10, random_state=0)
        for name, est in (("logistic", LogisticRegression()), ("naive Bayes", GaussianNB())):
            for proto, fn, fits, bates in (
                ("10x5-fold corrected", case_corrected, 50, ""),
                ("nested R=10, k=5", case_nested, 150, bates_fits(10, 5)),
                (f".632+ B={B632}", case_632, B632 + 1, ""),
            ):
                t_ml, t_sk, t_ar = fn(est, X, y, repeat)
                ar = "" if t_ar is None else f"{t_ar:.4f}"
                print(
                    f"| {proto} | {name} | {n} | {fits} | {bates} | {t_ml:.3f} | {t_sk:.3f} "
                    f"| {t_ml / t_sk:.2f} | {ar} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
