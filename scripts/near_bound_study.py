"""Coverage near the bounds: the default interval with a handful of errors (issue 20).

For strong systems (1-5 expected errors in 100-500 samples; ROC AUC 0.995-0.999), iid
and over 20-50 conditions, every simulated test set gets, from the *same* replicates:

* ``before``: the studentized (bootstrap-t, logit scale) interval as it was, whose
  t quantile is infinite once the replicates without an error fill a tail;
* ``logit_t``: the logit t interval of the same estimate and standard error (the
  near-bound fallback of the decision metrics until wt-auto2; the ranking metrics' now);
* ``auto``: ``bootstrap_ci``'s default now (where at least half of a tail's replicates
  have an infinite t*, Clopper-Pearson on the effective sample size for a decision
  metric, the logit t interval for a ranking one; else the studentized interval);
* ``bca`` and ``percentile``.

Coverage of the population value (from the cell probabilities; binormal AUC) and the
median width are reported over all test sets and over those with at least one error
(``≥1 err``): a test set without an error has a collapsed interval under every
bootstrap method.  ``python scripts/near_bound_study.py [n_experiments [name ...]]``
(default 400, every design; about 5 minutes on one core) prints the markdown table of
docs/validation.md.
"""

from __future__ import annotations

import sys
import time
import warnings
from unittest import mock

import numpy as np

import mlci
from mlci import simulate
from mlci.intervals import bootstrap as intervals
from mlci.simulation.data import cell_metric  # the metric from cell probabilities

METRICS = ("f1", "mcc", "balanced_accuracy", "cohen_kappa")


def _truth(metric: str, prev: float, err: float) -> float:
    tp, fn = prev * (1 - err), prev * err
    tn, fp = (1 - prev) * (1 - err), (1 - prev) * err
    return cell_metric(metric, tp, fp, fn, tn)


def iid(n: int, metric: str, prev: float, err: float):
    def gen(rng):
        y = (rng.random(n) < prev).astype(int)
        p = np.where(rng.random(n) < err, 1 - y, y)
        return (y, p), None, _truth(metric, prev, err)

    return gen


def clustered(c: int, m: int, metric: str, prev: float, err: float, icc: float):
    def gen(rng):
        pc = rng.beta((1 - err) * (1 / icc - 1), err * (1 / icc - 1), c)
        cond = np.repeat(np.arange(c), m)
        y = (rng.random(c * m) < prev).astype(int)
        p = np.where(rng.random(c * m) > pc[cond], 1 - y, y)
        return (y, p), cond, _truth(metric, prev, err)

    return gen


def auc(n: int, value: float):
    def gen(rng):
        s = simulate.binormal_scores(n, value, rng=rng)
        return (s.y_true, s.y_score), None, s.true_value

    return gen


def designs():
    out = []
    for metric in METRICS:
        for n, k in [(100, 1), (100, 3), (200, 2), (300, 3), (500, 3), (500, 5)]:
            out.append((f"{metric} n={n}, {k} err", metric, iid(n, metric, 0.5, k / n)))
        out.append((f"{metric} n=400 prev 0.1, 3 err", metric, iid(400, metric, 0.1, 3 / 400)))
        out.append(
            (f"{metric} C=20x10 ICC 0.1, 2 err", metric, clustered(20, 10, metric, 0.5, 0.01, 0.1))
        )
        out.append(
            (f"{metric} C=50x10 ICC 0.2, 4 err", metric, clustered(50, 10, metric, 0.5, 0.008, 0.2))
        )
    for n, a in [(100, 0.995), (300, 0.998), (500, 0.999)]:
        out.append((f"roc_auc n={n} AUC {a}", "roc_auc", auc(n, a)))
    return out


def _before(res):
    """The studentized interval of the same replicates without the near-bound rule."""
    with mock.patch.object(intervals, "EDGE_TAIL_SHARE", np.inf):
        low, high, _ = intervals.studentized_interval(
            res.estimate,
            res.details["linearized"]["standard_error"],
            res.bootstrap_distribution,
            res.replicate_standard_errors,
            confidence_level=0.95,
            bounds=res.bounds,
        )
    return float(low), float(high)


def run(name, metric, gen, n_exp, seed=20261127):
    keys = ("before", "logit_t", "auto", "bca", "percentile")
    rows = {k: [] for k in keys}
    any_err, fell_back = [], 0
    for i in range(n_exp):
        rng = np.random.default_rng([seed, i, sum(map(ord, name))])
        arrays, cond, truth = gen(rng)
        kw = {"metric": metric, "n_resamples": 1000, "rng": int(rng.integers(2**31))}
        if cond is not None:
            kw["conditions"] = cond
        st = mlci.bootstrap_ci(*arrays, method="studentized", **kw)
        auto = mlci.bootstrap_ci(*arrays, **kw)
        bca = mlci.bootstrap_ci(*arrays, method="bca", **kw)
        fell_back += "edge_fallback" in auto.details
        got = {
            "before": _before(st),
            # the near-bound fallback of the decision metrics before wt-auto2 (now
            # Clopper-Pearson on the effective sample size, in ``auto``)
            "logit_t": tuple(auto.interval(method="logit_t").confidence_interval),
            "auto": tuple(auto.confidence_interval),
            "bca": tuple(bca.confidence_interval),
            "percentile": tuple(bca.interval(method="percentile").confidence_interval),
        }
        for k in keys:
            rows[k].append((*got[k], truth))
        any_err.append(auto.estimate not in auto.bounds)
    ok = np.array(any_err)
    cells = [name, f"{np.mean(~ok):.2f}", f"{fell_back / n_exp:.2f}"]
    for k in keys:
        a = np.array(rows[k])
        hit = (a[:, 0] <= a[:, 2]) & (a[:, 2] <= a[:, 1])
        cells.append(f"{hit.mean():.3f} / {hit[ok].mean():.3f}")
        cells.append(f"{np.median(a[:, 1] - a[:, 0]):.4f}")
    return "| " + " | ".join(cells) + " |"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    n_exp = int(argv[0]) if argv else 400
    only = argv[1:]  # optional: substrings of the design names to run
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    print(
        "| design | no error | edge rule | before: cover all / ≥1 err | width "
        "| logit_t | width | auto | width | bca | width | percentile | width |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, metric, gen in designs():
        if not only or any(o in name for o in only):
            print(run(name, metric, gen, n_exp), flush=True)
    print(f"\n{n_exp} test sets per design, B = 1000, {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
