"""Coverage study of :func:`mlci.cross_val_compare`: two learning algorithms on the same folds.

The stated target of the corrected and naive intervals is the difference between the
expected metrics of the two algorithms trained on ``n_train`` samples from the
distribution (the average over training sets of that size); that of the nested interval
is the difference between the two models refitted on the data set (Bates et al.'s
target, as for :func:`mlci.cross_val_ci`), scored on the distribution, with the
algorithms at ``n`` beside it.  Both are computable here because the data come from the
known distributions of ``scripts/protocols_study.py`` (its learners, data and truths are
reused): in every replication both algorithms are also trained on the same independent
sample of size ``m`` (``n_train`` and ``n``) and scored on the distribution (the truth
is the mean of that difference over the replications), and the two models refitted on
the replication's data set are scored the same way.

Each replication draws a data set of size ``n`` and runs ``cross_val_compare`` once with
``method="nested"`` (Bates et al.'s nested CV on the per-sample differences; target: the
refitted models' difference); Nadeau & Bengio's corrected resampled t over the R x k outer folds
(``method="corrected"``'s interval with the same rng), the naive interval (fold
differences as independent) and both over the first repetition only come from the same
fold scores (``details["scores_a"/"scores_b"]``), through the same public tests
(:func:`mlci.corrected_resampled_ttest`, :func:`mlci.kfold_cv_ttest`); their target is
the difference at ``n_train``.

Usage::

    python scripts/compare_study.py run [--cells a,b] [--reps N] [--n-jobs 1]
    python scripts/compare_study.py table     # the markdown of docs/validation.md
    python scripts/compare_study.py json      # docs/data/compare_study.json

Replications go to ``$MLCI_STUDY_DIR/compare-<cell>.jsonl`` (default
``/tmp/mlci_protocols_study``), one line each, so a run can be stopped and resumed.
"""

from __future__ import annotations

import argparse
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

import mlci

sys.path.insert(0, str(Path(__file__).resolve().parent))
import protocols_study as ps  # the study's data, learners and truths

OUT = Path(os.environ.get("MLCI_STUDY_DIR", "/tmp/mlci_protocols_study"))


@dataclasses.dataclass(frozen=True)
class Cell:
    name: str
    dist: str
    learner_a: str
    learner_b: str
    metric: str
    n: int
    k: int
    r: int  # repetitions of k-fold
    reps: int  # replications (data sets)


CELLS = [
    # logistic regression against k-NN where the logistic model is right: a clear difference
    Cell("logreg-vs-knn-acc-logistic-n100", "logistic", "logreg", "knn", "accuracy",
         100, 5, 10, 400),
    # the nonlinear distribution: k-NN is the better one
    Cell("logreg-vs-knn-acc-nonlinear-n200", "nonlinear", "logreg", "knn", "accuracy",
         200, 5, 10, 400),
    # two close algorithms (logistic regression with C = 1 and a stronger penalty):
    # a small true difference, where a test's calibration matters most
    Cell("logreg-vs-logregC0.05-acc-logistic-n100", "logistic", "logreg", "logreg-C0.05",
         "accuracy", 100, 5, 10, 400),
    # ten folds (the naive t has k - 1 = 9 df here)
    Cell("logreg-vs-knn-acc-logistic-n100-k10", "logistic", "logreg", "knn", "accuracy",
         100, 10, 3, 300),
    # two regressors: ridge against k-NN regression on linear data (MSE)
    Cell("ridge-vs-knnreg-mse-linear-n100", "linear", "ridge", "knn-reg", "mse",
         100, 5, 10, 300),
]  # fmt: skip


def _learner(name):
    if name == "logreg-C0.05":
        return ps.Logit(C=0.05)
    return ps.learner(name)


def replication(cell: Cell, i: int, fresh) -> dict:
    ss = np.random.SeedSequence([zlib.crc32(("compare-" + cell.name).encode()), i])
    data_ss, cv_ss, train_ss = ss.spawn(3)
    s = ps.draw(cell.dist, np.random.default_rng(data_ss), cell.n)
    a, b = _learner(cell.learner_a), _learner(cell.learner_b)
    t0 = time.perf_counter()
    # one nested run; its outer folds are the R x k folds of method="corrected" with
    # this rng (the same plans and fit seeds), so the other intervals come from them
    r = mlci.cross_val_compare(
        a, b, s.x, s.y, metric=cell.metric, cv=cell.k, n_repeats=cell.r, method="nested",
        rng=cv_ss,
    )  # fmt: skip
    seconds = time.perf_counter() - t0
    sa, sb = r.details["scores_a"], r.details["scores_b"]
    n_train, n_test = round(r.details["n_train"]), round(r.details["n_test"])
    rows = {"nested": [r.estimate, *r.confidence_interval]}
    stats = {k: float(v) for k, v in r.details["nested"].items()}
    for label, fa, fb in (("corrected-RxK", sa, sb), ("corrected-1xK", sa[0], sb[0])):
        t = mlci.corrected_resampled_ttest(fa, fb, n_train=n_train, n_test=n_test)
        rows[label] = [t.estimate, *t.confidence_interval]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for label, fa, fb in (("naive-1xK", sa[0], sb[0]), ("naive-RxK", sa.ravel(), sb.ravel())):
            t = mlci.kfold_cv_ttest(fa, fb)
            rows[label] = [t.estimate, *t.confidence_interval]
    # the truths: both algorithms trained on one independent sample of size n_train
    # (the target of corrected and naive) and of size n (nested)
    g = np.random.default_rng(train_ss)
    truth = {}
    for label, size in (("n_train", n_train), ("n", cell.n)):
        other = ps.draw(cell.dist, g, size)
        ma = _learner(cell.learner_a).fit(other.x, other.y)
        mb = _learner(cell.learner_b).fit(other.x, other.y)
        tc = cell_for_truth(cell)
        truth[label] = ps.true_metric(tc, ma, fresh) - ps.true_metric(tc, mb, fresh)
    # and the two models refitted on this data set (the target Bates et al. built the
    # nested interval for: the difference of the fitted models' errors)
    ma = _learner(cell.learner_a).fit(s.x, s.y)
    mb = _learner(cell.learner_b).fit(s.x, s.y)
    truth["refit"] = ps.true_metric(tc, ma, fresh) - ps.true_metric(tc, mb, fresh)
    return {
        "i": i, "intervals": rows, "nested_stats": stats, "truth": truth, "seconds": seconds,
    }  # fmt: skip


def cell_for_truth(cell: Cell):
    """A protocols_study cell with this cell's distribution and metric (for its truths)."""
    return ps.Cell(cell.name, cell.dist, cell.learner_a, cell.metric, cell.n, cell.k, cell.r, 1)


def run(cells, reps_override, n_jobs):
    OUT.mkdir(parents=True, exist_ok=True)
    for cell in cells:
        ps.append_replications(
            OUT / f"compare-{cell.name}.jsonl",
            reps_override or cell.reps,
            functools.partial(replication, cell, fresh=ps.fresh(cell_for_truth(cell))),
            n_jobs,
            cell.name,
        )


def summarise(cell: Cell):
    path = OUT / f"compare-{cell.name}.jsonl"
    if not path.exists():
        return None
    recs = [json.loads(line) for line in path.read_text().splitlines() if line]
    if not recs:
        return None
    m = len(recs)
    truth, truth_se = {}, {}
    for label in ("n_train", "n"):
        v = np.array([r["truth"][label] for r in recs])
        truth[label], truth_se[label] = float(v.mean()), float(v.std(ddof=1) / np.sqrt(m))
    out = {
        "cell": dataclasses.asdict(cell),
        "reps": m,
        "truth": truth,
        "truth_mc_se": truth_se,
        "seconds": float(np.mean([r["seconds"] for r in recs])),
        "rows": {},
    }
    refit = np.array([r["truth"]["refit"] for r in recs])
    truth["refit"], truth_se["refit"] = float(refit.mean()), float(refit.std(ddof=1) / np.sqrt(m))
    for method in METHODS:
        # nested: Bates et al.'s target, the two models refitted on the data set (one
        # truth per replication); the others: the algorithms at n_train
        target, other = TARGETS[method]
        a = np.array([r["intervals"][method] for r in recs], dtype=float)
        est, lo, hi = a[:, 0], a[:, 1], a[:, 2]
        t = refit if target == "refit" else truth[target]
        o = refit if other == "refit" else truth[other]
        c = float(np.mean((lo <= t) & (t <= hi)))
        out["rows"][method] = {
            "other": other,
            "other_coverage": float(np.mean((lo <= o) & (o <= hi))),
            "target": target,
            "coverage": c,
            "mc_se": float(np.sqrt(max(c * (1 - c), 1e-12) / m)),
            "miss_low": float(np.mean(t < lo)),
            "miss_high": float(np.mean(t > hi)),
            "width": float(np.mean(hi - lo)),
            "bias": float(np.mean(est - t)),
            # how often the interval excludes 0 (the test rejects "no difference")
            "excludes_zero": float(np.mean((lo > 0) | (hi < 0))),
        }
    return out


METHODS = ("nested", "corrected-RxK", "corrected-1xK", "naive-RxK", "naive-1xK")
#: method -> (its stated target, the other target shown)
TARGETS = {m: ("refit", "n") if m == "nested" else ("n_train", "refit") for m in METHODS}


_NAMES = {"refit": "refit models", "n": "algorithms at n", "n_train": "algorithms at n_train"}


def table(summaries) -> str:
    lines = [
        "| cell | reps | method | stated target: true difference (A − B) | coverage ± MC se "
        "| misses low / high | other target: coverage | mean width | excludes 0 |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in summaries:
        c = s["cell"]
        for method, row in s["rows"].items():
            name = f"**{method}**" if method == "nested" else method
            tg, ot = row["target"], row["other"]
            lines.append(
                f"| {c['name']} (k={c['k']}, R={c['r']}) | {s['reps']} | {name} | "
                f"{_NAMES[tg]}: {s['truth'][tg]:+.4f} ± {s['truth_mc_se'][tg]:.4f} | "
                f"{row['coverage']:.3f} ± {row['mc_se']:.3f} | "
                f"{row['miss_low']:.3f} / {row['miss_high']:.3f} | "
                f"{_NAMES[ot]}: {row['other_coverage']:.3f} | {row['width']:.4f} | "
                f"{row['excludes_zero']:.2f} |"
            )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["run", "table", "json"])
    ap.add_argument("--cells", default="")
    ap.add_argument("--reps", type=int, default=0)
    ap.add_argument("--n-jobs", type=int, default=1)
    a = ap.parse_args(argv)
    cells = [c for c in CELLS if not a.cells or c.name in a.cells.split(",")]
    if a.what == "run":
        run(cells, a.reps, a.n_jobs)
        return 0
    summaries = [s for s in (summarise(c) for c in cells) if s is not None]
    if a.what == "table":
        print(table(summaries))
    else:
        json.dump(summaries, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
