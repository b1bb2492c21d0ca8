"""Candidate intervals for repeated random splits (``cross_val_ci(cv="holdout")``),
measured on the data sets of the protocols study's holdout cells.

Why ``method="corrected-skew"`` became the recommended interval of random splits
(docs/protocols.md, docs/validation.md): every replication of a holdout cell of
``scripts/protocols_study.py`` (the same data sets, splits and truths: its
``replication``) is run once with ``cross_val_ci(..., method="corrected-skew")``, and
these intervals come from the same fits (``se``: Nadeau & Bengio's corrected standard
error; ``e_i``: sample ``i``'s mean held-out value, ``c_i`` how often it was held out,
``details["held_out"]``):

* ``corrected``: the plain corrected t interval (Student t, ``J - 1`` df);
* ``corrected-skew``: mlci's, Hall's transformation with the skewness of the estimate
  from the ``e_i`` (weights ``c_i``);
* ``hall-se-skew``: the same, but the skewness standardised by ``se`` instead of the
  per-sample standard deviation of the weighted mean;
* ``hall-normal``: ``corrected-skew`` with normal instead of t quantiles;
* ``log-t``: the corrected t interval on the log scale (delta method), back-transformed;
* ``boot-t`` / ``bca``: a bootstrap over the samples (the ``(e_i, c_i)`` pairs, 999
  resamples): the studentized (bootstrap-t) quantiles, or the BCa interval of
  ``mlci.bca_ci`` with its half-widths scaled by ``se`` over the bootstrap standard
  deviation; ``-tdf``: also times ``t_{J-1} / z`` (the df of the corrected interval);
* ``per-sample-var``: the variance ``s²/J + Σ w_i² (e_i - ē)²·m/(m-1)`` (the split term
  plus a data-set term from the per-sample means instead of ``(n_test/n_train)·s²``),
  Student t with ``J - 1`` df.

Usage::

    python scripts/holdout_variants_study.py [--reps 600] > docs/data/holdout_variants.json

The summary (coverage of the algorithm at ``n_train`` with its Monte-Carlo standard
error, misses low / high, mean width) goes to stdout as JSON.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
from scipy import stats

import mlci
from mlci.protocols.crossval import skew_corrected_interval

CELLS = (
    "holdout-logreg-acc-n100",
    "holdout-ridge-mse-n100",
    "holdout-ridge-mse-n100-R30",
    "holdout-ridge-mse-n200",
    "holdout-ridge-mse-n400",
)


def _study():
    path = Path(__file__).resolve().parent / "protocols_study.py"
    spec = importlib.util.spec_from_file_location("protocols_study", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


STUDY = _study()


def variants(r, n_boot=999, seed=0):
    """The candidate intervals (``[estimate, low, high, se]``) of one holdout result."""
    est, se = r.estimate, r.standard_error
    j = r.fold_scores.size
    held = r.details["held_out"]
    ok = held["count"] > 0
    e, c = held["mean"][ok], held["count"][ok].astype(float)
    m = e.size
    w = c / c.sum()
    mu = float(w @ e)
    d = e - mu
    m3 = np.sum(d**3) * m / ((m - 1) * (m - 2))
    se_ps = np.sqrt(np.sum(w**2 * d**2) * m / (m - 1))
    k_ps = r.details["skewness"]

    def hall(skew, df):
        return skew_corrected_interval(est, se, skew, df, 0.95, "two-sided")

    tq, zq = stats.t.ppf(0.975, j - 1), stats.norm.ppf(0.975)
    out = {
        "corrected": [est, *r.interval("corrected").confidence_interval, se],
        "corrected-skew": [est, *r.confidence_interval, se],
        "hall-se-skew": [est, *hall(m3 * np.sum(w**3) / se**3, j - 1), se],
        "hall-normal": [est, *hall(k_ps, 1e9), se],  # df 1e9: normal quantiles
    }
    if est > 0:
        h = tq * se / est
        out["log-t"] = [est, est * np.exp(-h), est * np.exp(h), se]
    g = np.random.default_rng(seed)
    idx = g.integers(0, m, size=(n_boot, m))
    cs, es = c[idx], e[idx]
    ws = cs / cs.sum(1, keepdims=True)
    mus = (ws * es).sum(1)
    ses = np.sqrt((ws**2 * (es - mus[:, None]) ** 2).sum(1) * m / (m - 1))
    qlo, qhi = np.quantile((mus - mu) / ses, [0.025, 0.975])
    jack = np.array([(np.sum(c * e) - c[i] * e[i]) / (c.sum() - c[i]) for i in range(m)])
    lo, hi = mlci.bca_ci(mus, mu, jackknife=jack).confidence_interval
    sb = mus.std(ddof=1)
    for tag, f in (("", 1.0), ("-tdf", tq / zq)):
        out["boot-t" + tag] = [est, est - qhi * se * f, est - qlo * se * f, se]
        out["bca" + tag] = [est, est - (mu - lo) * se / sb * f, est + (hi - mu) * se / sb * f, se]
    se_c = np.sqrt(r.fold_scores.var(ddof=1) / j + se_ps**2)
    out["per-sample-var"] = [est, est - tq * se_c, est + tq * se_c, se_c]
    return out


def _holdout(cell, s, est, rng, f):
    r = mlci.cross_val_ci(
        est, s.x, s.y, metric=cell.metric, cv="holdout", n_repeats=cell.r,
        method="corrected-skew", test_size=0.2, rng=rng,
    )  # fmt: skip
    return variants(r), r.n_train, None, r.n_fits


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=600)
    a = ap.parse_args(argv)
    STUDY.PROTOCOLS["holdout"] = _holdout
    out = []
    for cell in (c for c in STUDY.CELLS if c.name in CELLS):
        f = STUDY.fresh(cell)
        recs = [STUDY.replication(cell, i, f) for i in range(a.reps)]
        truth = float(np.mean([r["truths"]["n_train"] for r in recs]))
        rows = {}
        for name in recs[0]["intervals"]:
            iv = np.array([r["intervals"].get(name, [np.nan] * 4) for r in recs], dtype=float)
            lo, hi = iv[:, 1], iv[:, 2]
            cov = float(np.mean((lo <= truth) & (truth <= hi)))
            rows[name] = {
                "coverage": cov,
                "mc_se": float(np.sqrt(cov * (1 - cov) / a.reps)),
                "miss_low": float(np.mean(truth < lo)),
                "miss_high": float(np.mean(truth > hi)),
                "mean_width": float(np.nanmean(hi - lo)),
                "median_width": float(np.nanmedian(hi - lo)),
            }
        out.append({"cell": cell.name, "reps": a.reps, "truth_n_train": truth, "rows": rows})
        print(cell.name, file=sys.stderr, flush=True)
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
