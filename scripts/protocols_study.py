"""Coverage study of the cross-validation intervals of :func:`mlci.cross_val_ci`.

Data come from known distributions, so the truth is computable: a classifier's
accuracy on the distribution is ``E_x[p(x)]`` where it predicts 1 and ``E_x[1 - p(x)]``
where it predicts 0 (the known ``p(x) = P(Y=1 | x)``, averaged over a fixed fresh sample
of 20,000 ``x``); a regressor's MSE is ``sigma^2 + E_x[(f_hat(x) - f(x))^2]``; AUC on
20,000 fresh labelled points.  Each replication draws a data set of size ``n`` and runs
``cross_val_ci(method="nested")`` once; the other intervals come from the same fits
(``CVResult.interval``), so every method sees the same data:

* ``naive-1xK`` / ``corrected-1xK``: the first repetition only (one k-fold run);
* ``naive-RxK`` / ``corrected-RxK``: all ``R`` repetitions (repeated k-fold);
* ``nested``: Bates, Hastie & Tibshirani (2024) with ``R`` repetitions.

Targets: ``refit`` (the model refit on all ``n`` samples, fitted in each replication and
evaluated as above) and ``algorithm`` (the expected metric of the algorithm trained on
``n_train = n (K-1)/K`` samples: the mean, over the replications, of one model per
replication trained on an independent sample of that size).

Usage::

    python scripts/protocols_study.py run [--cells a,b] [--reps 200] [--n-jobs 2]
    python scripts/protocols_study.py run --cells a --first 200   # replications 200..
    python scripts/protocols_study.py table         # the markdown of docs/validation.md
    python scripts/protocols_study.py summary       # its table of recommended intervals
    python scripts/protocols_study.py json          # docs/data/protocols_study.json

Results go to ``/tmp/mlci_protocols_study/<cell>.jsonl`` (one line per replication;
``MLCI_STUDY_DIR`` sets the directory), so a run can be stopped and summarised at any
time.  A replication's result depends on its cell and index only, so a cell can be split
over processes (``--first``, each with its own ``MLCI_STUDY_DIR``) and the files
concatenated.  The nested cells also record ``nested_stats`` and ``nested_terms`` (the
per-fold terms of Bates et al.'s estimate), enough to recompute the interval under
another rule for its inflation.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import json
import os
import sys
import time
import warnings
import zlib
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

import mlci

OUT = Path(os.environ.get("MLCI_STUDY_DIR", "/tmp/mlci_protocols_study"))
N_FRESH = 20_000


# ----------------------------------------------------------------------------------------
# distributions with a known truth
# ----------------------------------------------------------------------------------------
def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


BETA = np.array([1.5, -1.0, 0.75, 0.5, 0.25, 0, 0, 0, 0, 0])
GROUP_SIZE = 5


def _logistic(rng, n):
    x = rng.normal(size=(n, 10))
    return x, None, _sigmoid(x @ BETA)


def _nonlinear(rng, n):
    x = rng.normal(size=(n, 5))
    return x, None, _sigmoid(2.0 * x[:, 0] * x[:, 1] + 1.5 * np.sin(2.0 * x[:, 2]) + x[:, 3])


def _grouped(rng, n):
    """Groups of 5 (patients): a shared shift of the features (sd 0.7) and a random
    intercept (sd 1) per group; P(Y=1 | x, group) is known per sample."""
    g = np.arange(n) // GROUP_SIZE
    n_groups = int(g[-1]) + 1
    x = rng.normal(size=(n, 10)) + 0.7 * rng.normal(size=(n_groups, 10))[g]
    b = rng.normal(size=n_groups)[g]
    return x, g, _sigmoid(x @ BETA + b)


def _linear(rng, n):
    x = rng.normal(size=(n, 10))
    return x, None, x[:, :5] @ np.array([1.0, 0.8, 0.6, 0.4, 0.2])


def friedman_mean(x):
    """Friedman #1's regression function of ``x`` in U(0,1)^10 (five features count)."""
    return (
        10 * np.sin(np.pi * x[:, 0] * x[:, 1])
        + 20 * (x[:, 2] - 0.5) ** 2
        + 10 * x[:, 3]
        + 5 * x[:, 4]
    )


def _friedman(rng, n):
    x = rng.random((n, 10))
    return x, None, friedman_mean(x)


DISTRIBUTIONS = {
    # name: (draw x, groups and P(Y=1|x) or f(x); noise sd for regression or None)
    "logistic": (_logistic, None),
    "nonlinear": (_nonlinear, None),
    "grouped": (_grouped, None),
    "linear": (_linear, 1.0),
    "friedman": (_friedman, 1.0),
}


@dataclasses.dataclass(frozen=True)
class Sample:
    x: np.ndarray
    y: np.ndarray
    groups: np.ndarray | None
    truth: np.ndarray  # P(Y=1 | x, group) or f(x)


def draw(dist, rng, n):
    make, sigma = DISTRIBUTIONS[dist]
    x, g, t = make(rng, n)
    if sigma is None:
        y = (rng.random(n) < t).astype(int)
    else:
        y = t + sigma * rng.normal(size=n)
    return Sample(x, y, g, t)


# ----------------------------------------------------------------------------------------
# learners: numpy versions of scikit-learn's (the same fitted models, about ten times
# cheaper to fit on this shared machine; checked against scikit-learn in
# tests/protocols/test_protocol_coverage.py), and scikit-learn's random forest for OOB
# ----------------------------------------------------------------------------------------


class Logit(ClassifierMixin, BaseEstimator):
    """L2 logistic regression (sklearn's LogisticRegression(C=1) objective) by Newton."""

    def __init__(self, C=1.0):
        self.C = C

    def fit(self, X, y):
        X = np.asarray(X, float)
        self.classes_, yi = np.unique(y, return_inverse=True)
        Z = np.hstack([np.ones((len(X), 1)), X])
        w = np.zeros(Z.shape[1])
        pen = np.full(Z.shape[1], 1.0 / self.C)
        pen[0] = 0.0
        for _ in range(25):
            p = 1 / (1 + np.exp(-(Z @ w)))
            g = Z.T @ (p - yi) + pen * w
            H = (Z * (p * (1 - p))[:, None]).T @ Z + np.diag(pen) + 1e-10 * np.eye(len(w))
            step = np.linalg.solve(H, g)
            w -= step
            if np.max(np.abs(step)) < 1e-10:
                break
        self.w_ = w
        return self

    def decision_function(self, X):
        return self.w_[0] + np.asarray(X, float) @ self.w_[1:]

    def predict_proba(self, X):
        p = 1 / (1 + np.exp(-self.decision_function(X)))
        return np.column_stack([1 - p, p])

    def predict(self, X):
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


class RidgeLS(RegressorMixin, BaseEstimator):
    """sklearn's Ridge(alpha) with intercept, closed form."""

    def __init__(self, alpha=1.0):
        self.alpha = alpha

    def fit(self, X, y):
        X = np.asarray(X, float)
        y = np.asarray(y, float)
        mx, my = X.mean(0), y.mean()
        Xc = X - mx
        self.coef_ = np.linalg.solve(Xc.T @ Xc + self.alpha * np.eye(X.shape[1]), Xc.T @ (y - my))
        self.intercept_ = my - mx @ self.coef_
        return self

    def predict(self, X):
        return np.asarray(X, float) @ self.coef_ + self.intercept_


class KNN(BaseEstimator):
    """k nearest neighbours (Euclidean); classifier: majority vote, ties to the smaller
    label (as scikit-learn); regressor: mean."""

    def __init__(self, n_neighbors=10, regression=False):
        self.n_neighbors = n_neighbors
        self.regression = regression

    def fit(self, X, y):
        self.X_ = np.asarray(X, float)
        self.y_ = np.asarray(y)
        if not self.regression:
            self.classes_, self.yi_ = np.unique(y, return_inverse=True)
        return self

    def _nn(self, X):
        X = np.asarray(X, float)
        out = []
        for s in range(0, len(X), 2000):
            xb = X[s : s + 2000]
            d = (xb**2).sum(1)[:, None] - 2 * xb @ self.X_.T + (self.X_**2).sum(1)[None, :]
            out.append(np.argpartition(d, self.n_neighbors - 1, axis=1)[:, : self.n_neighbors])
        return np.vstack(out)

    def predict(self, X):
        nn = self._nn(X)
        if self.regression:
            return self.y_[nn].astype(float).mean(1)
        votes = self.yi_[nn].mean(1)  # binary: share of class 1
        return self.classes_[(votes > 0.5).astype(int)]


def learner(name):
    from sklearn.ensemble import (
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )

    return {
        "logreg": Logit(),
        "knn": KNN(n_neighbors=10),
        "ridge": RidgeLS(alpha=1.0),
        "knn-reg": KNN(n_neighbors=10, regression=True),
        "rf": RandomForestClassifier(n_estimators=50, min_samples_leaf=2, oob_score=True),
        "rf-reg": RandomForestRegressor(n_estimators=50, min_samples_leaf=2, oob_score=True),
        "rf200": RandomForestClassifier(n_estimators=200, min_samples_leaf=2, oob_score=True),
        "rf200-reg": RandomForestRegressor(n_estimators=200, min_samples_leaf=2, oob_score=True),
        # cross-validation cells: small forests and boosted trees (sklearn's own; one
        # core each, random_state seeded by cross_val_ci's rng and, for the truths, _fit)
        "rf-cv": RandomForestClassifier(n_estimators=30, min_samples_leaf=2, n_jobs=1),
        "rf-cv-reg": RandomForestRegressor(n_estimators=30, min_samples_leaf=2, n_jobs=1),
        "gb": GradientBoostingClassifier(n_estimators=50, max_depth=2),
        "gb-reg": GradientBoostingRegressor(n_estimators=50, max_depth=2),
    }[name]


@dataclasses.dataclass(frozen=True)
class Cell:
    name: str
    dist: str
    learner: str
    metric: str
    n: int
    k: int  # folds (0: not k-fold)
    r: int  # repetitions (nested/repeated CV, random splits) or bootstraps
    reps: int  # replications (data sets)
    nested: bool = True
    protocol: str = "cv"  # "cv", "loo", "holdout", "single", "oob", "632"
    data_seed: str = ""  # another cell's name: the same data sets and seeds as that cell


CELLS = [
    # headline cells first (more replications)
    Cell("logreg-acc-n100-k5", "logistic", "logreg", "accuracy", 100, 5, 20, 500),
    Cell("ridge-mse-n100-k10", "linear", "ridge", "mse", 100, 10, 10, 400),
    Cell("knn-acc-n100-k5", "nonlinear", "knn", "accuracy", 100, 5, 20, 300),
    Cell("ridge-mse-n100-k5", "linear", "ridge", "mse", 100, 5, 20, 300),
    Cell("grouped-logreg-acc-n200-k5", "grouped", "logreg", "accuracy", 200, 5, 10, 300),
    Cell("oob-rf-acc-n200", "nonlinear", "rf", "accuracy", 200, 0, 0, 400, False, "oob"),
    Cell("boot-logreg-acc-n100", "logistic", "logreg", "accuracy", 100, 0, 200, 300, False, "632"),
    Cell("boot-knn-acc-n100", "nonlinear", "knn", "accuracy", 100, 0, 200, 300, False, "632"),
    Cell("holdout-logreg-acc-n100", "logistic", "logreg", "accuracy", 100, 0, 10, 600, False,
         "holdout"),
    Cell("single-logreg-acc-n500", "logistic", "logreg", "accuracy", 500, 0, 1, 500, False,
         "single"),
    # leave-one-out; r: repetitions of the nested 5-fold runs of its default interval
    Cell("loo-logreg-acc-n100", "logistic", "logreg", "accuracy", 100, 0, 10, 600, False, "loo"),
    Cell("loo-ridge-mse-n100", "linear", "ridge", "mse", 100, 0, 10, 600, False, "loo"),
    Cell("loo-knn-acc-n100", "nonlinear", "knn", "accuracy", 100, 0, 10, 1500, False, "loo"),
    Cell("logreg-auc-n100-k5", "logistic", "logreg", "roc_auc", 100, 5, 10, 600, False),
    Cell("holdout-ridge-mse-n100", "linear", "ridge", "mse", 100, 0, 10, 600, False, "holdout"),
    Cell("holdout-ridge-mse-n100-R30", "linear", "ridge", "mse", 100, 0, 30, 600, False, "holdout",
         "holdout-ridge-mse-n100"),
    Cell("holdout-ridge-mse-n200", "linear", "ridge", "mse", 200, 0, 10, 600, False, "holdout"),
    Cell("holdout-ridge-mse-n400", "linear", "ridge", "mse", 400, 0, 10, 600, False, "holdout"),
    Cell("holdout-knnreg-mse-n200", "friedman", "knn-reg", "mse", 200, 0, 10, 400, False,
         "holdout"),
    Cell("knnreg-mse-n200-k5", "friedman", "knn-reg", "mse", 200, 5, 10, 400),
    Cell("logreg-acc-n500-k5", "logistic", "logreg", "accuracy", 500, 5, 10, 200),
    Cell("oob-rfreg-mse-n200", "friedman", "rf-reg", "mse", 200, 0, 0, 400, False, "oob"),
    Cell("logreg-acc-n50-k5", "logistic", "logreg", "accuracy", 50, 5, 20, 200),
    # the number of repetitions of nested CV: the cell above with R = 3 and R = 50
    Cell("ridge-mse-n100-k10-R3", "linear", "ridge", "mse", 100, 10, 3, 400,
         data_seed="ridge-mse-n100-k10"),
    Cell("ridge-mse-n100-k10-R50", "linear", "ridge", "mse", 100, 10, 50, 400,
         data_seed="ridge-mse-n100-k10"),
    # the bootstrap cells with B = 1000 bootstraps (the same data sets)
    Cell("boot-logreg-acc-n100-B1000", "logistic", "logreg", "accuracy", 100, 0, 1000, 400,
         False, "632", data_seed="boot-logreg-acc-n100"),
    Cell("boot-knn-acc-n100-B1000", "nonlinear", "knn", "accuracy", 100, 0, 1000, 400,
         False, "632", data_seed="boot-knn-acc-n100"),
    # oob_ci with a 200-tree forest (the data sets of the 50-tree cell)
    Cell("oob-rf200-acc-n200", "nonlinear", "rf200", "accuracy", 200, 0, 0, 400, False, "oob",
         data_seed="oob-rf-acc-n200"),
    Cell("oob-rf200reg-mse-n200", "friedman", "rf200-reg", "mse", 200, 0, 0, 400, False, "oob",
         data_seed="oob-rfreg-mse-n200"),
    # leave-one-out at larger n
    Cell("loo-ridge-mse-n300", "linear", "ridge", "mse", 300, 0, 10, 400, False, "loo"),
    Cell("loo-logreg-acc-n200", "logistic", "logreg", "accuracy", 200, 0, 10, 400, False, "loo"),
    Cell("loo-knn-acc-n200", "nonlinear", "knn", "accuracy", 200, 0, 10, 400, False, "loo"),
    # less stable learners (random forests, gradient boosting) and large n: nested CV
    # with R = 3 repetitions (R = 5 at n = 2000); the AUC cell with the corrected
    # interval (nested needs a per-sample loss)
    Cell("rf-acc-n200-k5", "nonlinear", "rf-cv", "accuracy", 200, 5, 3, 400),
    Cell("rfreg-mse-n200-k5", "friedman", "rf-cv-reg", "mse", 200, 5, 3, 200),
    Cell("gb-acc-n200-k5", "nonlinear", "gb", "accuracy", 200, 5, 3, 200),
    Cell("gbreg-mse-n200-k5", "friedman", "gb-reg", "mse", 200, 5, 3, 200),
    Cell("gb-auc-n200-k5", "nonlinear", "gb", "roc_auc", 200, 5, 10, 400, False),
    Cell("logreg-acc-n2000-k5", "logistic", "logreg", "accuracy", 2000, 5, 5, 400),
    Cell("logreg-acc-n2000-k10", "logistic", "logreg", "accuracy", 2000, 10, 5, 400),
    Cell("ridge-mse-n2000-k5", "linear", "ridge", "mse", 2000, 5, 5, 400),
    Cell("knn-acc-n1000-k5", "nonlinear", "knn", "accuracy", 1000, 5, 3, 200),
]  # fmt: skip


def fresh(cell):
    """The fixed fresh sample of a cell (its distribution's own seed; new groups)."""
    rng = np.random.default_rng([99, zlib.crc32(cell.dist.encode())])
    return draw(cell.dist, rng, N_FRESH)


def true_metric(cell, model, f):
    """The metric of a fitted model on the distribution (the known P(Y=1|x) or f(x) on
    the fresh sample; AUC on its labels)."""
    sigma = DISTRIBUTIONS[cell.dist][1]
    if cell.metric == "accuracy":
        return float(np.mean(np.where(model.predict(f.x) == 1, f.truth, 1 - f.truth)))
    if cell.metric == "mse":
        return float(sigma**2 + np.mean((model.predict(f.x) - f.truth) ** 2))
    if cell.metric == "roc_auc":
        from sklearn.metrics import roc_auc_score

        return float(roc_auc_score(f.y, model.predict_proba(f.x)[:, 1]))
    raise ValueError(cell.metric)


def _fit(est, seed, s):
    from sklearn.base import clone

    m = clone(est)
    if "random_state" in m.get_params():
        m.set_params(random_state=seed)
    return m.fit(s.x, s.y)


def replication(cell, i, f):
    """One data set: the protocol's intervals and the truths (the refit model, and the
    algorithm at training sizes n_train, n and 0.632 n from independent samples)."""
    ss = np.random.SeedSequence([zlib.crc32((cell.data_seed or cell.name).encode()), i])
    data_ss, cv_ss, fit_ss, train_ss = ss.spawn(4)
    s = draw(cell.dist, np.random.default_rng(data_ss), cell.n)
    est = learner(cell.learner)
    t0 = time.perf_counter()
    out, n_train, refit_truth, n_fits = PROTOCOLS[cell.protocol](cell, s, est, cv_ss, f)
    seconds = time.perf_counter() - t0
    seeds = np.random.default_rng(fit_ss).integers(2**31 - 1, size=4)
    if refit_truth is None:
        refit_truth = true_metric(cell, _fit(est, int(seeds[0]), s), f)
    truths = {"refit": refit_truth}
    tr = np.random.default_rng(train_ss)
    for label, size in (
        ("n_train", round(n_train)),
        ("n", cell.n),
        ("n632", round(0.632 * cell.n)),
    ):
        other = draw(cell.dist, tr, size)
        truths[label] = true_metric(cell, _fit(est, int(seeds[1]), other), f)
    return {"i": i, "intervals": out, "truths": truths, "n_fits": n_fits, "seconds": seconds}


@contextlib.contextmanager
def _quiet_naive():
    """Silence the naive interval's warning (the study measures that interval)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "method='naive' treats", UserWarning)
        yield


def _row(r):
    return [r.estimate, *r.confidence_interval, r.standard_error]


def nested_terms(plans, k, fits, values):
    """The terms of Bates et al.'s estimate that ``nested_statistics`` sums (recorded so
    that the interval can be recomputed under another rule for its inflation): per
    outer fold ``a`` (inner minus outer mean error) and ``b`` (the variance of the outer
    fold's mean), and the sd of the outer and of the nested per-sample values."""
    reps = len(plans)
    outer, pairs = values[: reps * k], values[reps * k :]
    a_terms, b_terms, ho = [], [], []
    p = 0
    for r, f in enumerate(plans):
        h = {}
        for a in range(k - 1):
            for b in range(a + 1, k):
                v, test = pairs[p], fits[reps * k + p].test
                p += 1
                h[(a, b)], h[(b, a)] = v[f[test] == a], v[f[test] == b]
        ho.extend(h.values())
        for a in range(k):
            e_in = np.concatenate([h[(b, a)] for b in range(k) if b != a])
            e_out = outer[r * k + a]
            a_terms.append(float(e_in.mean() - e_out.mean()))
            b_terms.append(float(e_out.var(ddof=1) / len(e_out)) if len(e_out) > 1 else 0.0)
    return {
        "a": a_terms,
        "b": b_terms,
        "sd_outer": float(np.concatenate(outer).std(ddof=1)),
        "sd_nested": float(np.concatenate(ho).std(ddof=1)),
    }


@contextlib.contextmanager
def _recording_nested(store):
    """Run cross_val_ci with its nested_statistics wrapped to store nested_terms."""
    from mlci.protocols import crossval

    original = crossval.nested_statistics

    def wrapped(plans, k, fits, values, groups=None):
        if groups is None:
            store.update(nested_terms(plans, k, fits, values))
        return original(plans, k, fits, values, groups)

    crossval.nested_statistics = wrapped
    try:
        yield
    finally:
        crossval.nested_statistics = original


def _cv(cell, s, est, rng, f):
    method = "nested" if cell.nested else "corrected"
    terms = {}
    with _recording_nested(terms):
        r = mlci.cross_val_ci(
            est, s.x, s.y, metric=cell.metric, cv=cell.k, n_repeats=cell.r, method=method,
            conditions=s.groups, rng=rng,
        )  # fmt: skip
    one = dataclasses.replace(r, fold_scores=r.fold_scores[:1], n_repeats=1)
    with _quiet_naive():
        out = {
            "naive-1xK": _row(one.interval("naive")),
            "corrected-1xK": _row(one.interval("corrected")),
            "naive-RxK": _row(r.interval("naive")),
            "corrected-RxK": _row(r.interval("corrected")),
        }
    if cell.nested:
        out["nested"] = _row(r)
        st = {k: float(v) for k, v in r.details["nested"].items()}
        # enough to recompute the interval under another rule for the inflation: the
        # pooled sd of the nested values, the size the inflation compares with, k and n
        n_sub = float(np.floor(cell.n * (cell.k - 1) / cell.k))
        st.setdefault("sd", st["standard_error"] * np.sqrt(cell.n) / st["inflation"])
        st.setdefault("n_sub", n_sub)
        st.update(k=float(cell.k), n=float(cell.n))
        out["nested_stats"] = st
        if terms:
            out["nested_terms"] = terms
    return out, r.n_train, None, r.n_fits


def _loo(cell, s, est, rng, f):
    """Leave-one-out with its default interval (method="nested": the naive standard
    error times the inflation measured by ``cell.r`` nested 5-fold runs); the naive and
    corrected intervals from the same fits."""
    r = mlci.cross_val_ci(est, s.x, s.y, metric=cell.metric, cv="loo", n_repeats=cell.r, rng=rng)
    with _quiet_naive():
        out = {
            "naive-loo": _row(r.interval("naive")),
            "corrected-loo": _row(r.interval("corrected")),
            "nested-loo": _row(r),
        }
    out["nested_stats"] = {k: float(v) for k, v in r.details["nested"].items()}
    return out, r.n_train, None, r.n_fits


def _holdout(cell, s, est, rng, f):
    r = mlci.cross_val_ci(
        est, s.x, s.y, metric=cell.metric, cv="holdout", n_repeats=cell.r, method="corrected",
        test_size=0.2, rng=rng,
    )  # fmt: skip
    with _quiet_naive():
        naive = r.interval("naive")
    return (
        {
            "corrected-skew-splits": _row(r.interval("corrected-skew")),
            "corrected-splits": _row(r),
            "naive-splits": _row(naive),
        },
        r.n_train,
        None,
        r.n_fits,
    )


def _single(cell, s, est, rng, f):
    """One random 80/20 split: the model trained on the 80 %, the test-set bootstrap
    on the 20 % (mlci.bootstrap_ci); its target is that trained model."""
    g = np.random.default_rng(rng)
    test = np.zeros(cell.n, dtype=bool)
    test[g.choice(cell.n, round(0.2 * cell.n), replace=False)] = True
    tr = Sample(s.x[~test], s.y[~test], None, s.truth[~test])
    model = _fit(est, int(g.integers(2**31 - 1)), tr)
    pred = model.predict(s.x[test])
    r = mlci.bootstrap_ci(s.y[test], pred, metric=cell.metric, rng=g.integers(2**31 - 1))
    return {"bootstrap-test": _row(r)}, float((~test).sum()), true_metric(cell, model, f), 1


def _oob(cell, s, est, rng, f):
    """A forest fitted on all data with oob_score=True; oob_ci on its OOB predictions.
    Its stated target: the algorithm at n (forests of this configuration trained on n
    samples); the fitted forest ("refit") is shown beside it."""
    g = np.random.default_rng(rng)
    model = _fit(est, int(g.integers(2**31 - 1)), s)
    seed = g.integers(2**31 - 1)
    with warnings.catch_warnings():  # the study measures what the warnings quote
        warnings.filterwarnings("ignore", "oob_ci's (corrected )?interval", UserWarning)
        r = mlci.oob_ci(model, s.x, s.y, metric=cell.metric, rng=seed, dropna=True)
        plain = mlci.oob_ci(model, None, s.y, metric=cell.metric, rng=seed, dropna=True)
    return {"oob-forest": _row(r), "oob-plain": _row(plain)}, cell.n, true_metric(cell, model, f), 1


def _bootstrap632(cell, s, est, rng, f):
    """.632+ with ``r`` bootstraps; .632 and OOB from the same fits (the estimates of
    the result, the standard error of Err1 scaled as in bootstrap632_ci)."""
    from scipy import stats

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"The \.632\+ interval", UserWarning)
        r = mlci.bootstrap632_ci(
            est, s.x, s.y, metric=cell.metric, variant="632+", n_bootstraps=cell.r, rng=rng
        )
    flip = cell.metric == "accuracy"
    loss = (lambda v: 1 - v) if flip else (lambda v: v)
    err1, app = loss(r.oob), loss(r.apparent)
    se1 = r.details["standard_error_oob"]
    z = stats.norm.ppf(0.975)
    out = {"boot-632+": _row(r)}
    for label, e in (("boot-632", 0.368 * app + 0.632 * err1), ("boot-oob", err1)):
        se = se1 * e / err1 if err1 > 0 else se1
        lo, hi = sorted((loss(e - z * se), loss(e + z * se)))
        out[label] = [loss(e), lo, hi, se]
    return out, cell.n, None, cell.r + 1


PROTOCOLS = {
    "cv": _cv,
    "loo": _loo,
    "holdout": _holdout,
    "single": _single,
    "oob": _oob,
    "632": _bootstrap632,
}


def append_replications(path, reps, replicate, n_jobs, label, first=0):
    """Run ``replicate(i)`` for the replications ``first <= i < reps`` not yet in the
    jsonl file ``path`` (one line each, appended as they finish, so a run can be stopped
    and resumed), in ``n_jobs`` worker processes."""
    from joblib import Parallel, delayed

    done = set()
    if path.exists():
        done = {json.loads(line)["i"] for line in path.read_text().splitlines() if line}
    todo = [i for i in range(first, reps) if i not in done]
    if not todo:
        return
    t0 = time.perf_counter()
    with path.open("a") as fh:
        for rec in Parallel(n_jobs=n_jobs, return_as="generator", batch_size=4)(
            delayed(replicate)(i) for i in todo
        ):
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
    print(f"{label}: {len(todo)} replications in {time.perf_counter() - t0:.0f} s", flush=True)


def run(cells, reps_override, n_jobs, first=0):
    OUT.mkdir(parents=True, exist_ok=True)
    for cell in cells:
        f = fresh(cell)
        append_replications(
            OUT / f"{cell.name}.jsonl",
            reps_override or cell.reps,
            functools.partial(replication, cell, f=f),
            n_jobs,
            cell.name,
            first,
        )


# ----------------------------------------------------------------------------------------
# summary
# ----------------------------------------------------------------------------------------
#: method -> (its stated target, the other target shown); "refit": the model the
#: protocol ends with (refit on all n; for a single split the model trained on its
#: training part; for OOB the fitted forest); "n_train" / "n" / "n632": the expected metric of
#: the algorithm trained on that many samples
TARGET_OF = {
    "naive-1xK": ("n_train", "refit"),
    "corrected-1xK": ("n_train", "refit"),
    "naive-RxK": ("n_train", "refit"),
    "corrected-RxK": ("n_train", "refit"),
    "nested": ("refit", "n"),
    "naive-loo": ("n_train", "refit"),
    "corrected-loo": ("n_train", "refit"),
    "nested-loo": ("refit", "n_train"),
    "corrected-skew-splits": ("n_train", "refit"),
    "corrected-splits": ("n_train", "refit"),
    "naive-splits": ("n_train", "refit"),
    "bootstrap-test": ("refit", "n_train"),
    "oob-forest": ("n", "refit"),
    "oob-plain": ("n", "refit"),
    "boot-632+": ("n", "refit"),
    "boot-632": ("n", "refit"),
    "boot-oob": ("n632", "n"),
}
#: the interval each protocol recommends (the others are shown beside it)
RECOMMENDED = {
    "cv": "nested",
    "loo": "nested-loo",
    "holdout": "corrected-skew-splits",
    "single": "bootstrap-test",
    "oob": "oob-forest",
    "632": "boot-632+",
}
TARGET_NAMES = {
    "refit": "refit",
    "n_train": "algorithm at n_train",
    "n": "algorithm at n",
    "n632": "algorithm at 0.632n",
}


#: summaries read from a saved json (``--from-json``) instead of the jsonl replications
SAVED: dict | None = None


def summarise(cell):
    if SAVED is not None:
        entry = SAVED.get(cell.name)
        return None if entry is None else {**entry, "cell": cell}
    path = OUT / f"{cell.name}.jsonl"
    if not path.exists():
        return None
    recs = [json.loads(line) for line in path.read_text().splitlines() if line]
    if not recs:
        return None
    return {"cell": cell, **summarise_records(recs)}


def summarise_records(recs):
    """Per method: coverage of its stated target and of the other (with the binomial
    Monte-Carlo standard error), misses low/high, mean width, bias, and the ratio of
    the estimates' standard deviation over replications to their mean standard error."""
    m_reps = len(recs)
    refit = np.array([r["truths"]["refit"] for r in recs])
    algo = {k: float(np.mean([r["truths"][k] for r in recs])) for k in ("n_train", "n", "n632")}
    algo_mc = {
        k: float(np.std([r["truths"][k] for r in recs], ddof=1) / np.sqrt(m_reps)) for k in algo
    }
    rows = {}
    for m, (stated, other) in TARGET_OF.items():
        if m not in recs[0]["intervals"]:
            continue
        a = np.array([r["intervals"][m] for r in recs], dtype=float)
        est, lo, hi, se = a[:, 0], a[:, 1], a[:, 2], a[:, 3]
        row = {"stated": stated, "other": other}
        for tname in (stated, other):
            t = refit if tname == "refit" else np.full(m_reps, algo[tname])
            c = float(np.mean((lo <= t) & (t <= hi)))
            row[tname] = {
                "coverage": c,
                "mc_se": float(np.sqrt(max(c * (1 - c), 1e-12) / m_reps)),
                "miss_low": float(np.mean(t < lo)),  # truth below the interval
                "miss_high": float(np.mean(t > hi)),
            }
        t = refit if stated == "refit" else algo[stated]
        row["width"] = float(np.mean(hi - lo))
        row["bias"] = float(np.mean(est - t))
        row["sd_over_se"] = float(
            np.std(est - (refit if stated == "refit" else 0), ddof=1) / np.mean(se)
        )
        rows[m] = row
    return {
        "reps": m_reps,
        "algo_truth": algo,
        "algo_truth_mc_se": algo_mc,
        "refit_mean": float(refit.mean()),
        "refit_sd": float(refit.std(ddof=1)),
        "fits": recs[0]["n_fits"],
        "seconds": float(np.mean([r["seconds"] for r in recs])),
        "rows": rows,
    }


def table(cells):
    lines = [
        "| cell | reps | method | stated target | coverage ± MC se | misses low / high "
        "| other target: coverage | mean width | sd(est − target) / mean se |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for cell in cells:
        s = summarise(cell)
        if s is None:
            continue
        rec = recommended_of(cell)
        for m, row in s["rows"].items():
            st, ot = row["stated"], row["other"]
            name = f"**{m}**" if m == rec else m
            lines.append(
                f"| {cell.name} ({cell.protocol}, r={cell.r}) | {s['reps']} | {name} | "
                f"{TARGET_NAMES[st]} | {row[st]['coverage']:.3f} ± {row[st]['mc_se']:.3f} | "
                f"{row[st]['miss_low']:.3f} / {row[st]['miss_high']:.3f} | "
                f"{TARGET_NAMES[ot]}: {row[ot]['coverage']:.3f} | {row['width']:.4f} | "
                f"{row['sd_over_se']:.2f} |"
            )
    return "\n".join(lines)


#: the naive interval shown beside each protocol's recommended one
NAIVE_OF = {
    "cv": "naive-RxK",
    "loo": "naive-loo",
    "holdout": "naive-splits",
    "oob": "oob-plain",
}


def recommended_of(cell):
    return RECOMMENDED[cell.protocol] if cell.nested or cell.protocol != "cv" else "corrected-RxK"


def summary_table(cells):
    """One row per cell at n >= 100: the recommended interval's coverage of its stated
    target (± Monte-Carlo standard error) and of the other target, and the naive
    interval's coverage of its own stated target beside it."""
    lines = [
        "| cell | reps | recommended | stated target | coverage ± MC se | other target: coverage "
        "| naive (its stated target) |",
        "|---|---|---|---|---|---|---|",
    ]
    for cell in cells:
        s = summarise(cell)
        if s is None or cell.n < 100:
            continue
        m = recommended_of(cell)
        row = s["rows"][m]
        st = row["stated"]
        naive = NAIVE_OF.get(cell.protocol)
        nv = "—"
        if naive in s["rows"]:
            nr = s["rows"][naive]
            nv = f"{naive}: {nr[nr['stated']]['coverage']:.3f} ± {nr[nr['stated']]['mc_se']:.3f}"
            if cell.protocol == "cv":
                one = s["rows"]["naive-1xK"]
                nv += f"; naive-1xK: {one[one['stated']]['coverage']:.3f}"
        lines.append(
            f"| {cell.name} (r={cell.r}) | {s['reps']} | {m} | {TARGET_NAMES[st]} | "
            f"{row[st]['coverage']:.3f} ± {row[st]['mc_se']:.3f} | "
            f"{TARGET_NAMES[row['other']]}: {row[row['other']]['coverage']:.3f} | {nv} |"
        )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["run", "table", "summary", "json"])
    ap.add_argument("--cells", default="")
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument(
        "--from-json",
        default="",
        help="table/summary from a saved json (docs/data/protocols_study.json) "
        "instead of the jsonl replications",
    )
    ap.add_argument(
        "--first", type=int, default=0,
        help="first replication to run (split a cell over processes with their own "
        "MLCI_STUDY_DIR, then concatenate the jsonl files)",
    )  # fmt: skip
    a = ap.parse_args(argv)
    if a.from_json:
        global SAVED
        SAVED = {e["cell"]["name"]: e for e in json.loads(Path(a.from_json).read_text())}
    cells = [c for c in CELLS if not a.cells or c.name in a.cells.split(",")]
    if a.what == "run":
        run(cells, a.reps, a.n_jobs, a.first)
    elif a.what == "table":
        print(table(cells))
    elif a.what == "summary":
        print(summary_table(cells))
    else:
        out = []
        for c in cells:
            s = summarise(c)
            if s is not None:
                s["cell"] = dataclasses.asdict(c)
                out.append(s)
        json.dump(out, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
