"""The headline cells of mlci's coverage map (docs/validation.md, section 2), asserted.

Where the test set is small or clustered, ``method="auto"`` must keep its level where
BCa does not: 8 and 12 conditions, 20 conditions of unequal sizes, accuracy 0.95 over 20
conditions, 5 positives for the AUC, a paired accuracy difference over 15 conditions,
accuracy 0.98 at n = 200.  The full map (2000 experiments per design,
``python scripts/coverage_map.py``) is in the docs; this test runs the headline designs
scaled by ``MLCI_SLOW_SCALE`` (1.0: 2000 experiments and B = 1000; CI's 0.1: 200 and
B = 400), every experiment with its own seed, so each scale is deterministic.

Tolerance: auto "holds" when its coverage is not significantly below 0.935 (exact
binomial test at level 0.001; with 200 experiments an observed 0.87 passes, with 2000
0.92), and not significantly above 0.985.  The docs report the coverage itself.
"""

from __future__ import annotations

import os

import pytest
from scipy import stats

from mlci import simulate

SCALE = float(os.environ["MLCI_SLOW_SCALE"])
N_EXPERIMENTS = max(200, round(2000 * SCALE))
N_RESAMPLES = max(400, round(1000 * SCALE))
HEADLINE = (
    "accuracy C=8 ICC=0.1",
    "accuracy C=12 ICC=0.3",
    "accuracy C=20 unequal ICC=0.2",
    "accuracy 0.95 C=20 ICC=0.1",
    "accuracy 0.98 n=200",
    "roc_auc 5 positives",
    "f1 prevalence=0.05 n=400",
    "paired accuracy C=15",
)
ALPHA = 1e-3

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def study() -> simulate.CoverageStudy:
    scenarios = [s for s in simulate.coverage_map_scenarios() if s.name in HEADLINE]
    assert len(scenarios) == len(HEADLINE)
    res = simulate.coverage_study(
        scenarios,
        n_experiments=N_EXPERIMENTS,
        n_resamples=N_RESAMPLES,
        methods=("bca", "auto"),
        rng=20261123,
        n_jobs=1,
    )
    print(f"\nCoverage map, headline cells: {N_EXPERIMENTS} experiments\n{res.to_markdown()}")
    return res


@pytest.mark.parametrize("scenario", HEADLINE)
def test_auto_holds_its_level(study, scenario):
    scheme = "conditions" if "C=" in scenario else "iid"
    r = study.row(scenario, "auto", scheme)
    assert r.n_failed == 0
    low = stats.binomtest(r.n_covered, r.n_experiments, 0.935, alternative="less")
    high = stats.binomtest(r.n_covered, r.n_experiments, 0.985, alternative="greater")
    assert low.pvalue > ALPHA, f"{scenario}: auto covers {r.coverage:.3f}"
    assert high.pvalue > ALPHA, f"{scenario}: auto covers {r.coverage:.3f}"


@pytest.mark.parametrize("scenario", ["accuracy C=8 ICC=0.1", "roc_auc 5 positives"])
def test_auto_beats_bca_where_bca_undercovers(study, scenario):
    scheme = "conditions" if "C=" in scenario else "iid"
    auto, bca = study.row(scenario, "auto", scheme), study.row(scenario, "bca", scheme)
    # paired on the same test sets: auto covers at least as many, and clearly more
    assert auto.n_covered - bca.n_covered >= 0.02 * auto.n_experiments
