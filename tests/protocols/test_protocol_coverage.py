"""Coverage of the cross-validation intervals on data with a known truth (the study of
docs/validation.md, "Evaluation protocols", reduced).

One headline cell of ``scripts/protocols_study.py``: ridge regression on a linear model
with Gaussian noise (the MSE of a fitted model is ``sigma^2 + E_x[(f_hat - f)^2]``,
averaged over 20,000 fresh ``x``), n = 100, 5-fold, R = 10 repetitions; every
replication runs ``cross_val_ci(method="nested")`` once and the other intervals come
from the same fits.  ``MLCI_SLOW_SCALE`` scales the replications (200 at 1.0, at least
40; CI's 0.1 gives 40).

Asserted, with exact binomial tests at level 0.001 (so that a correct method fails
once in a thousand runs at most): the nested interval (target: the model refit on all
data) and the corrected repeated-CV interval (target: the algorithm at n_train) do not
cover significantly less than 0.92; the naive interval over the 10x5 fold scores covers
significantly less than 0.85 (measured: 0.365 at 200 replications; nested 0.950,
corrected 0.915).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest
from scipy import stats

SCALE = float(os.environ["MLCI_SLOW_SCALE"])
REPS = max(40, round(200 * SCALE))
ALPHA = 1e-3

pytestmark = pytest.mark.slow


def _study():
    path = Path(__file__).resolve().parents[2] / "scripts" / "protocols_study.py"
    spec = importlib.util.spec_from_file_location("protocols_study", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def summary():
    study = _study()
    cell = study.Cell("ridge-mse-n100-k5", "linear", "ridge", "mse", 100, 5, 10, REPS)
    xf, yf = study.fresh(cell)
    recs = [study.replication(cell, i, xf, yf) for i in range(REPS)]
    return study.summarise_records(recs)


def _covered(summary, method, target):
    return round(summary["rows"][method][target]["coverage"] * summary["reps"])


RECOMMENDED = [("nested", "refit"), ("corrected-RxK", "algorithm")]


@pytest.mark.parametrize(("method", "target"), RECOMMENDED)
def test_recommended_intervals_cover_their_target(summary, method, target):
    k = _covered(summary, method, target)
    p = stats.binomtest(k, summary["reps"], 0.92, alternative="less").pvalue
    assert p > ALPHA, f"{method}: {k}/{summary['reps']} covered its target ({target})"


def test_naive_interval_under_covers(summary):
    k = _covered(summary, "naive-RxK", "algorithm")
    p = stats.binomtest(k, summary["reps"], 0.85, alternative="less").pvalue
    assert p < ALPHA, f"naive: {k}/{summary['reps']} covered (expected clearly below 0.85)"
    assert k < _covered(summary, "corrected-RxK", "algorithm")
