"""The ROC AUC with few samples in a class: coverage through every door (issue 20).

The seed-7 design search found the stratified AUC door (:func:`mlci.auc_ci`, and
``bootstrap_ci(..., strata=y_true)``) under-covering with 3-10 positives, unwarned.  This
sweep fixes 150 negatives and varies the positives (3-50) and the binormal AUC (0.8-0.99,
equal variances: ``AUC = Phi(d / sqrt 2)``), with the class counts fixed (the stratified
design's truth), and measures the coverage of ``auc_ci`` (BCa under ``auto``), of
``bootstrap_ci``'s unstratified ``auto`` (studentized), of DeLong's normal interval and of
the normal interval on the logit scale with DeLong's standard error, and how often each
bootstrap door warns.  docs/validation.md, "The AUC with few samples in a class", and
:data:`mlci.engine.auc_class.MIN_AUC_CLASS` rest on it.

    python scripts/auc_few_class_sweep.py 200 out.json     # test sets per cell, output
"""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np
from scipy.special import expit, logit
from scipy.stats import norm

import mlci

POSITIVES = (3, 5, 8, 10, 15, 20, 30, 50)
AUCS = (0.8, 0.9, 0.95, 0.99)
N_NEGATIVE = 150


def _bootstrap(y: np.ndarray, s: np.ndarray, door: str, seed: int, B: int) -> tuple:
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        if door == "auc_ci":
            r = mlci.auc_ci(y, s, rng=seed, n_resamples=B)
        else:
            r = mlci.bootstrap_ci(y, s, metric="roc_auc", rng=seed, n_resamples=B)
    warned = any(issubclass(x.category, UserWarning) for x in w)
    return tuple(r.confidence_interval), warned


def _delong(y: np.ndarray, s: np.ndarray, logit_scale: bool) -> tuple[float, float]:
    r = mlci.delong_ci(y, s)
    if not logit_scale:
        return tuple(r.confidence_interval)
    m = int(y.sum()) * int((1 - y).sum())
    a = min(max(r.estimate, 0.5 / m), 1 - 0.5 / m)  # half a pair from the edge
    se = max(r.standard_error, 1 / m) / (a * (1 - a))
    z = norm.ppf(0.975)
    return float(expit(logit(a) - z * se)), float(expit(logit(a) + z * se))


def cell(n_pos: int, auc: float, reps: int, seed: int, B: int = 500) -> dict:
    d = np.sqrt(2) * norm.ppf(auc)
    g = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos, int), np.zeros(N_NEGATIVE, int)]
    cov: dict[str, list] = {k: [] for k in ("auc_ci", "studentized", "delong", "logit_delong")}
    width: dict[str, list] = {k: [] for k in cov}
    warned: dict[str, int] = {"auc_ci": 0, "studentized": 0}
    for r in range(reps):
        s = np.r_[g.normal(d, 1, n_pos), g.normal(0, 1, N_NEGATIVE)]
        for k in cov:
            if k in warned:
                (lo, hi), w = _bootstrap(y, s, k, r, B)
                warned[k] += w
            else:
                lo, hi = _delong(y, s, k == "logit_delong")
            cov[k].append(lo <= auc <= hi)
            width[k].append(hi - lo)
    return {
        "n_positive": n_pos,
        "auc": auc,
        "test_sets": reps,
        **{f"coverage_{k}": float(np.mean(v)) for k, v in cov.items()},
        **{f"width_{k}": float(np.median(v)) for k, v in width.items()},
        **{f"warned_{k}": v / reps for k, v in warned.items()},
    }


def main(argv: list[str]) -> None:
    reps, out = int(argv[0]), argv[1]
    rows = []
    for k, (n_pos, auc) in enumerate((p, a) for p in POSITIVES for a in AUCS):
        rows.append(cell(n_pos, auc, reps, seed=1000 + k))
        print(rows[-1], flush=True)
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
