"""Coverage study: do mlci's 95% bootstrap intervals contain the true value 95% of the time?

Scenarios (``mlci.simulate.standard_scenarios``): accuracy 0.8 at n = 200 and 1000,
binormal roc_auc 0.8 at n = 300, and clustered accuracy 0.8 with 50 conditions of 20
samples and an intra-condition correlation of 0.2, resampled iid, by condition and
two-stage.  Methods: percentile and BCa.

Scale: ``MLCI_SLOW_SCALE`` (0.1 unless set, see conftest.py) multiplies the number of
experiments (``N_FULL`` = 10000 at 1.0, at least 200) and of replicates (1000 at 1.0, at
least 400).
CI runs 0.1 (1000 experiments, B = 400).  Every experiment has its own seed, so the
test is deterministic at each scale.  Run with ``-s`` to print the table; the numbers
in ``docs/validation.md`` come from ``MLCI_SLOW_SCALE=1 pytest tests/test_coverage.py
-m slow -s``.

Tolerance.  A method "holds" when its coverage is not significantly outside
0.95 +/- 0.015 (issue 20's band): two one-sided exact binomial tests, of coverage >= 0.935
and of coverage <= 0.965, each at level 0.001: with 10000 experiments the test passes for
an observed coverage in [0.928, 0.971], with CI's 1000 in [0.912, 0.978].  (Until 27
November 2026 the band was 0.95 +/- 0.025, which at 1000 experiments accepted [0.898,
0.989]: a 90% interval labelled 95% could pass.  The ten asserted arms covered
0.933-0.956 at CI's scale, and 0.938-0.960 at full scale.)  The strict
two-sided test of coverage == 0.95 is printed in the table (column "binomial p") but
not asserted: the bootstrap's small-sample error is real and documented, not a bug.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from scipy import stats

from mlci import simulate

SCALE = float(os.environ["MLCI_SLOW_SCALE"])
N_FULL = 10_000
N_EXPERIMENTS = max(200, round(N_FULL * SCALE))
N_RESAMPLES = max(400, round(1000 * SCALE))
LEVEL = 0.95
TOL = 0.015
ALPHA = 1e-3

CLUSTERED = "clustered accuracy C=50"
VALID = [
    (sc.name, method, scheme)
    for sc in simulate.standard_scenarios()
    for scheme in sc.schemes
    if scheme != "iid" or sc.name != CLUSTERED
    for method in ("percentile", "bca")
]

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def study() -> simulate.CoverageStudy:
    res = simulate.coverage_study(
        simulate.standard_scenarios(),
        n_experiments=N_EXPERIMENTS,
        n_resamples=N_RESAMPLES,
        methods=("percentile", "bca"),
        confidence_level=LEVEL,
        rng=20240,
        n_jobs=1,
    )
    print(
        f"\nCoverage study: scale {SCALE}, {N_EXPERIMENTS} experiments, "
        f"B = {N_RESAMPLES}, {res.seconds:.0f} s\n{res.to_markdown()}"
    )
    return res


@pytest.mark.parametrize(("scenario", "method", "scheme"), VALID)
def test_coverage_holds(study, scenario, method, scheme):
    r = study.row(scenario, method, scheme)
    assert r.n_failed == 0
    too_low = stats.binomtest(r.n_covered, r.n_experiments, LEVEL - TOL, alternative="less")
    too_high = stats.binomtest(r.n_covered, r.n_experiments, LEVEL + TOL, alternative="greater")
    assert too_low.pvalue > ALPHA, f"{scenario} {method} {scheme}: coverage {r.coverage:.3f}"
    assert too_high.pvalue > ALPHA, f"{scenario} {method} {scheme}: coverage {r.coverage:.3f}"


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_iid_bootstrap_undercovers_clustered_data(study, method):
    # the design effect 1 + 19 * 0.2 = 4.8 shrinks the iid interval to about
    # 1/sqrt(4.8) of the right width: expected coverage ~ 2 Phi(1.96 / 2.19) - 1 ~ 0.63
    iid = study.row(CLUSTERED, method, "iid")
    cond = study.row(CLUSTERED, method, "conditions")
    assert iid.coverage < 0.90
    assert stats.binomtest(iid.n_covered, iid.n_experiments, LEVEL).pvalue < 1e-6
    assert cond.coverage - iid.coverage > 0.2
    assert cond.mean_width > 1.8 * iid.mean_width


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_two_stage_is_wider_than_condition_resampling(study, method):
    # two-stage adds the within-condition variance a second time (the drawn conditions'
    # means already carry it): wider intervals, conservative coverage
    cond = study.row(CLUSTERED, method, "conditions")
    two = study.row(CLUSTERED, method, "two-stage")
    assert two.mean_width > 1.03 * cond.mean_width
    assert two.coverage >= cond.coverage - 3 * np.sqrt(0.05 * 0.95 / two.n_experiments)
