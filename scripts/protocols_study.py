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
    python scripts/protocols_study.py table         # the markdown of docs/validation.md

Results go to ``/tmp/mlci_protocols_study/<cell>.jsonl`` (one line per replication), so a
run can be stopped and summarised at any time.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
import zlib
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

import mlci

OUT = Path(os.environ.get("MLCI_STUDY_DIR", "/tmp/mlci_protocols_study"))
N_FRESH = 20_000


# ----------------------------------------------------------------------------------------
# distributions with a known truth
# ----------------------------------------------------------------------------------------
def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def logistic_x(rng, n):
    return rng.normal(size=(n, 10))


def logistic_p(x):
    beta = np.array([1.5, -1.0, 0.75, 0.5, 0.25, 0, 0, 0, 0, 0])
    return _sigmoid(x @ beta)


def nonlinear_x(rng, n):
    return rng.normal(size=(n, 5))


def nonlinear_p(x):
    return _sigmoid(2.0 * x[:, 0] * x[:, 1] + 1.5 * np.sin(2.0 * x[:, 2]) + x[:, 3])


def linear_f(x):
    return x[:, :5] @ np.array([1.0, 0.8, 0.6, 0.4, 0.2])


def friedman_x(rng, n):
    return rng.random((n, 10))


def friedman_f(x):
    return (
        10 * np.sin(np.pi * x[:, 0] * x[:, 1])
        + 20 * (x[:, 2] - 0.5) ** 2
        + 10 * x[:, 3]
        + 5 * x[:, 4]
    )


DISTRIBUTIONS = {
    # name: (draw x, P(Y=1|x) or f(x), noise sd for regression or None)
    "logistic": (logistic_x, logistic_p, None),
    "nonlinear": (nonlinear_x, nonlinear_p, None),
    "linear": (logistic_x, linear_f, 1.0),
    "friedman": (friedman_x, friedman_f, 1.0),
}


def draw(dist, rng, n):
    xf, truth, sigma = DISTRIBUTIONS[dist]
    x = xf(rng, n)
    if sigma is None:
        y = (rng.random(n) < truth(x)).astype(int)
    else:
        y = truth(x) + sigma * rng.normal(size=n)
    return x, y


def learner(name):
    from sklearn.ensemble import (
        GradientBoostingClassifier,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

    return {
        "logreg": LogisticRegression(),
        "knn": KNeighborsClassifier(n_neighbors=10),
        "rf": RandomForestClassifier(n_estimators=10, min_samples_leaf=2),
        "gb": GradientBoostingClassifier(n_estimators=20, max_depth=2),
        "ridge": Ridge(alpha=1.0),
        "knn-reg": KNeighborsRegressor(n_neighbors=10),
        "rf-reg": RandomForestRegressor(n_estimators=10, min_samples_leaf=2),
    }[name]


@dataclasses.dataclass(frozen=True)
class Cell:
    name: str
    dist: str
    learner: str
    metric: str
    n: int
    k: int
    r: int  # repetitions of the nested (or repeated) cross-validation
    reps: int  # replications (data sets)
    nested: bool = True
    protocol: str = "cv"  # "632": bootstrap632_ci with r bootstraps (target: algorithm at n)


CELLS = [
    Cell("logreg-acc-n100-k5", "logistic", "logreg", "accuracy", 100, 5, 10, 200),
    Cell("ridge-mse-n100-k5", "linear", "ridge", "mse", 100, 5, 10, 200),
    Cell("logreg-auc-n100-k5", "logistic", "logreg", "roc_auc", 100, 5, 10, 200, False),
    Cell("knn-acc-n100-k5", "nonlinear", "knn", "accuracy", 100, 5, 5, 200),
    Cell("ridge-mse-n100-k10", "linear", "ridge", "mse", 100, 10, 5, 200),
    Cell("rf-acc-n100-k5", "nonlinear", "rf", "accuracy", 100, 5, 3, 60),
    Cell("gb-acc-n100-k5", "nonlinear", "gb", "accuracy", 100, 5, 3, 60),
    Cell("logreg-acc-n100-k10", "logistic", "logreg", "accuracy", 100, 10, 3, 60),
    Cell("logreg-acc-n500-k5", "logistic", "logreg", "accuracy", 500, 5, 5, 60),
    Cell("logreg-acc-n50-k5", "logistic", "logreg", "accuracy", 50, 5, 5, 60),
    Cell("knnreg-mse-n200-k5", "friedman", "knn-reg", "mse", 200, 5, 5, 100),
    Cell("logreg-acc-n2000-k5", "logistic", "logreg", "accuracy", 2000, 5, 3, 40),
    Cell("knn-acc-n500-k5", "nonlinear", "knn", "accuracy", 500, 5, 5, 60),
    Cell("logreg-auc-n500-k10", "logistic", "logreg", "roc_auc", 500, 10, 5, 60, False),
    # bootstrap estimators: k unused, r = number of bootstraps
    Cell("boot-logreg-acc-n100", "logistic", "logreg", "accuracy", 100, 0, 100, 60, False, "632"),
    Cell("boot-knn-acc-n100", "nonlinear", "knn", "accuracy", 100, 0, 100, 60, False, "632"),
]


def fresh(cell):
    """The fixed fresh sample of a cell (its own seed): x, and the labels for AUC."""
    rng = np.random.default_rng([99, zlib.crc32(cell.dist.encode())])
    x, y = draw(cell.dist, rng, N_FRESH)
    return x, y


def true_metric(cell, model, xf, yf):
    _, truth, sigma = DISTRIBUTIONS[cell.dist]
    if cell.metric == "accuracy":
        p = truth(xf)
        return float(np.mean(np.where(model.predict(xf) == 1, p, 1 - p)))
    if cell.metric == "mse":
        return float(sigma**2 + np.mean((model.predict(xf) - truth(xf)) ** 2))
    if cell.metric == "roc_auc":
        from sklearn.metrics import roc_auc_score

        return float(roc_auc_score(yf, model.predict_proba(xf)[:, 1]))
    raise ValueError(cell.metric)


def replication(cell, i, xf, yf):
    from sklearn.base import clone

    ss = np.random.SeedSequence([zlib.crc32(cell.name.encode()), i])
    data_ss, cv_ss, fit_ss, train_ss = ss.spawn(4)
    x, y = draw(cell.dist, np.random.default_rng(data_ss), cell.n)
    est = learner(cell.learner)
    if cell.protocol == "632":
        return _bootstrap_replication(cell, i, x, y, est, ss, xf, yf)
    method = "nested" if cell.nested else "corrected"
    t0 = time.perf_counter()
    r = mlci.cross_val_ci(
        est, x, y, metric=cell.metric, cv=cell.k, n_repeats=cell.r, method=method, rng=cv_ss
    )
    seconds = time.perf_counter() - t0
    one = dataclasses.replace(r, fold_scores=r.fold_scores[:1], n_repeats=1)
    out = {}
    for label, res in (
        ("naive-1xK", one.interval("naive")),
        ("corrected-1xK", one.interval("corrected")),
        ("naive-RxK", r.interval("naive")),
        ("corrected-RxK", r.interval("corrected")),
        *((("nested", r),) if cell.nested else ()),
    ):
        out[label] = [res.estimate, *res.confidence_interval]
    if cell.nested:
        out["nested_stats"] = {k: float(v) for k, v in r.details["nested"].items() if k != "n_reps"}
    seed = int(np.random.default_rng(fit_ss).integers(2**31 - 1))
    refit = clone(est)
    if "random_state" in refit.get_params():
        refit.set_params(random_state=seed)
    refit.fit(x, y)
    n_train = round(r.n_train)
    xt, yt = draw(cell.dist, np.random.default_rng(train_ss), n_train)
    other = clone(refit).fit(xt, yt)
    return {
        "i": i,
        "intervals": out,
        "truth_refit": true_metric(cell, refit, xf, yf),
        "truth_train_draw": true_metric(cell, other, xf, yf),
        "n_fits": r.n_fits,
        "seconds": seconds,
    }


def _bootstrap_replication(cell, i, x, y, est, ss, xf, yf):
    """The three bootstrap estimators on one data set (the same bootstrap samples: the
    same rng); targets: the refit model and the algorithm at training size n."""
    from sklearn.base import clone

    _, boot_ss, fit_ss, train_ss = ss.spawn(4)
    t0 = time.perf_counter()
    out = {}
    for variant in ("oob", "632", "632+"):
        r = mlci.bootstrap632_ci(
            est, x, y, metric=cell.metric, variant=variant, n_bootstraps=cell.r, rng=boot_ss
        )
        out[f"boot-{variant}"] = [r.estimate, *r.confidence_interval]
    seconds = (time.perf_counter() - t0) / 3
    seed = int(np.random.default_rng(fit_ss).integers(2**31 - 1))
    refit = clone(est)
    if "random_state" in refit.get_params():
        refit.set_params(random_state=seed)
    refit.fit(x, y)
    xt, yt = draw(cell.dist, np.random.default_rng(train_ss), cell.n)
    other = clone(refit).fit(xt, yt)
    return {
        "i": i,
        "intervals": out,
        "truth_refit": true_metric(cell, refit, xf, yf),
        "truth_train_draw": true_metric(cell, other, xf, yf),
        "n_fits": cell.r + 1,
        "seconds": seconds,
    }


def run(cells, reps_override, n_jobs):
    from joblib import Parallel, delayed

    OUT.mkdir(parents=True, exist_ok=True)
    for cell in cells:
        reps = reps_override or cell.reps
        path = OUT / f"{cell.name}.jsonl"
        done = set()
        if path.exists():
            done = {json.loads(line)["i"] for line in path.read_text().splitlines() if line}
        todo = [i for i in range(reps) if i not in done]
        if not todo:
            continue
        xf, yf = fresh(cell)
        t0 = time.perf_counter()
        with path.open("a") as fh:
            for rec in Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(replication)(cell, i, xf, yf) for i in todo
            ):
                fh.write(json.dumps(rec) + "\n")
                fh.flush()
        print(
            f"{cell.name}: {len(todo)} replications in {time.perf_counter() - t0:.0f} s", flush=True
        )


# ----------------------------------------------------------------------------------------
# summary
# ----------------------------------------------------------------------------------------
TARGET_OF = {
    "naive-1xK": "algorithm",
    "corrected-1xK": "algorithm",
    "naive-RxK": "algorithm",
    "corrected-RxK": "algorithm",
    "nested": "refit",
    "boot-oob": "algorithm",
    "boot-632": "algorithm",
    "boot-632+": "algorithm",
}


def summarise(cell):
    path = OUT / f"{cell.name}.jsonl"
    if not path.exists():
        return None
    recs = [json.loads(line) for line in path.read_text().splitlines() if line]
    if not recs:
        return None
    return {"cell": cell, **summarise_records(recs)}


def summarise_records(recs):
    """Coverage of both targets, misses low/high and mean width of every method."""
    refit = np.array([r["truth_refit"] for r in recs])
    algo = float(np.mean([r["truth_train_draw"] for r in recs]))
    rows = {}
    for m in TARGET_OF:
        if m not in recs[0]["intervals"]:
            continue
        a = np.array([r["intervals"][m] for r in recs])
        est, lo, hi = a[:, 0], a[:, 1], a[:, 2]
        row = {}
        for tname, t in (("algorithm", np.full(len(recs), algo)), ("refit", refit)):
            row[tname] = {
                "coverage": float(np.mean((lo <= t) & (t <= hi))),
                "miss_low": float(np.mean(t < lo)),  # truth below the interval
                "miss_high": float(np.mean(t > hi)),
            }
        row["width"] = float(np.mean(hi - lo))
        row["bias_vs_target"] = float(
            np.mean(est - (algo if TARGET_OF[m] == "algorithm" else refit))
        )
        rows[m] = row
    return {
        "reps": len(recs),
        "algo_truth": algo,
        "refit_mean": float(refit.mean()),
        "refit_sd": float(refit.std(ddof=1)),
        "fits": recs[0]["n_fits"],
        "seconds": float(np.mean([r["seconds"] for r in recs])),
        "rows": rows,
    }


def table(cells):
    lines = [
        "| cell | reps | method | target | coverage of its target | misses low / high "
        "| coverage of the other target | mean width |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for cell in cells:
        s = summarise(cell)
        if s is None:
            continue
        for m, row in s["rows"].items():
            t = TARGET_OF[m]
            o = "refit" if t == "algorithm" else "algorithm"
            lines.append(
                f"| {cell.name} (R={cell.r}) | {s['reps']} | {m} | {t} | "
                f"{row[t]['coverage']:.3f} | {row[t]['miss_low']:.3f} / {row[t]['miss_high']:.3f} "
                f"| {row[o]['coverage']:.3f} | {row['width']:.4f} |"
            )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["run", "table", "json"])
    ap.add_argument("--cells", default="")
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--n-jobs", type=int, default=2)
    a = ap.parse_args(argv)
    cells = [c for c in CELLS if not a.cells or c.name in a.cells.split(",")]
    if a.what == "run":
        run(cells, a.reps, a.n_jobs)
    elif a.what == "table":
        print(table(cells))
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
