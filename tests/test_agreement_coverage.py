"""Coverage of the default interval of agreement_ci, items resampled (docs/validation.md,
section "Agreement").

Population: every item has a true category c ~ (0.5, 0.3, 0.2) over 3 categories; each of
5 raters reports it with probability 0.6 and otherwise a uniformly random category.  With
infinitely many items both Fleiss' kappa and Krippendorff's (nominal) alpha equal
(A - P_e) / (1 - P_e), with A = E_c sum_k P(k | c)^2 the chance that two ratings of one item
agree and P_e = sum_k m_k^2 for the marginal rating distribution m.  Test sets of 50 and
200 items.

Scale: ``MLCI_SLOW_SCALE`` (0.1 in CI) times 300 experiments, at least 30.  Asserted:
coverage not significantly below 0.925 (one-sided exact binomial test at 0.001).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from scipy import stats

import mlci

SCALE = float(os.environ["MLCI_SLOW_SCALE"])
N_EXPERIMENTS = max(30, round(300 * SCALE))
PI = np.array([0.5, 0.3, 0.2])
THETA, N_RATERS = 0.6, 5
P_GIVEN = THETA * np.eye(3) + (1 - THETA) / 3  # P(rating k | true c), rows c
AGREE = float(PI @ (P_GIVEN**2).sum(axis=1))
P_E = float(((PI @ P_GIVEN) ** 2).sum())
TRUTH = (AGREE - P_E) / (1 - P_E)
CASES = [(m, n) for m in ("fleiss_kappa", "krippendorff_alpha") for n in (50, 200)]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def study():
    hits = dict.fromkeys(CASES, 0)
    methods = {}
    for e in range(N_EXPERIMENTS):
        rng = np.random.default_rng([20261127, 3, e])
        for metric, n in CASES:
            c = rng.choice(3, n, p=PI)
            ratings = np.array([rng.choice(3, N_RATERS, p=P_GIVEN[ci]) for ci in c])
            res = mlci.agreement_ci(ratings, metric=metric, rng=e)
            low, high = res.confidence_interval
            hits[metric, n] += low <= TRUTH <= high
            methods[metric, n] = res.method
    out = {key: hits[key] / N_EXPERIMENTS for key in CASES}
    print(f"\nagreement coverage: {N_EXPERIMENTS} experiments, true value {TRUTH:.4f}")
    for key, cov in out.items():
        print(f"{key[0]:20s} n = {key[1]:4d} {methods[key]:12s} {cov:.3f}")
    return out


@pytest.mark.parametrize("case", CASES)
def test_coverage_holds(study, case):
    k = round(study[case] * N_EXPERIMENTS)
    assert stats.binomtest(k, N_EXPERIMENTS, 0.925, alternative="less").pvalue > 1e-3
