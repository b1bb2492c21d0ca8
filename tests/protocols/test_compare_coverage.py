"""Coverage of :func:`mlci.cross_val_compare` on data with a known truth (the study of
docs/validation.md, "Comparing two learning algorithms", reduced).

Headline cell of ``scripts/compare_study.py``: logistic regression against 10-NN on the
logistic model, n = 100, 10 x 5 folds (measured at 400 replications: nested 0.978 of its
target, the refitted models' difference, and 0.988 of the algorithms at n; corrected
0.988, naive over the repeated folds 0.565, of the algorithms at n_train).
``MLCI_SLOW_SCALE`` scales the replications (400 at 1.0, at least 40).  Asserted with
exact binomial tests at level 0.001: the corrected and nested intervals do not cover
their target significantly less than 0.92 (they are conservative, see the docs: no upper
bound is asserted); the naive interval over repeated folds covers significantly less
than 0.85.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from scipy import stats

from _scripts import load_script

SCALE = float(os.environ["MLCI_SLOW_SCALE"])
ALPHA = 1e-3


def _study():
    scripts = Path(__file__).resolve().parents[2] / "scripts"
    sys.path.insert(0, str(scripts))  # compare_study imports protocols_study
    try:
        mod = load_script("compare_study.py")
    finally:
        sys.path.remove(str(scripts))
    return mod


@pytest.fixture(scope="module")
def cell(tmp_path_factory):
    study = _study()
    c = next(c for c in study.CELLS if c.name == "logreg-vs-knn-acc-logistic-n100")
    study.OUT = tmp_path_factory.mktemp("compare_study")
    study.run([c], max(40, round(400 * SCALE)), 1)
    return study.summarise(c)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["corrected-RxK", "nested"])
def test_corrected_and_nested_intervals_are_not_short(cell, method):
    m = cell["reps"]
    k = round(cell["rows"][method]["coverage"] * m)
    assert stats.binomtest(k, m, 0.92, alternative="less").pvalue > ALPHA, f"{k}/{m}"


@pytest.mark.slow
def test_naive_interval_over_repeated_folds_is_short(cell):
    m = cell["reps"]
    k = round(cell["rows"]["naive-RxK"]["coverage"] * m)
    assert stats.binomtest(k, m, 0.85, alternative="less").pvalue < ALPHA, f"{k}/{m}"
    assert cell["rows"]["nested"]["target"] == "refit"
    assert cell["rows"]["nested"]["other"] == "n"
    assert cell["rows"]["corrected-RxK"]["target"] == "n_train"
