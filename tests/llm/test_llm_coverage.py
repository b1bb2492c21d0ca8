"""Coverage of the clustered and paired LLM intervals on simulated benchmarks (slow).

The simulation (mlci.llm.simulation) mimics benchmark structure: 50 clusters of 1 to 15
items (most small), per-item difficulty shared by three correlated models, 3 answers per
item.  Target: 0.95 +/- 0.02 for every model's clustered interval and every pair's paired
interval, for the default (``method="auto"``: bootstrap-t models, CR2 t differences), CR2
``t`` and CR1 (t(G-1)) on the clustered mean, and for the default on the macro task
average (three tasks as strata) and pass@2 (5 answers per item).

Scale: ``MLCI_SLOW_SCALE`` (0.1 in CI) multiplies the number of experiments (2000 at 1.0,
at least 150) and of replicates (1000 at 1.0, at least 300).  The full-size table is in
docs/llm.md (``python scripts/llm_coverage.py``).  A method passes when its coverage is
not significantly outside [0.93, 0.97]: two one-sided exact binomial tests at level
0.001, counting the experiments (not the correlated intervals within one) as the trials.
"""

from __future__ import annotations

import os

import pytest
from scipy import stats

from _scripts import load_script

SCALE = float(os.environ["MLCI_SLOW_SCALE"])
N_EXPERIMENTS = max(150, round(2000 * SCALE))
N_RESAMPLES = max(300, round(1000 * SCALE))

pytestmark = pytest.mark.slow


def _script():
    return load_script("llm_coverage.py")


CASES = {"mean": ("cr1", "t", "auto"), "macro": ("auto",), "pass@k": ("auto",)}


@pytest.fixture(scope="module")
def study():
    script = _script()
    out = {}
    for scenario, methods in CASES.items():
        res = script.study(N_EXPERIMENTS, N_RESAMPLES, scenario, methods)
        print(f"\n{scenario}\n" + script.table(res))
        out.update({(scenario, *k): v for k, v in res.items()})
    return out


@pytest.mark.parametrize("kind", ["model", "pair"])
@pytest.mark.parametrize(
    ("scenario", "method"), [(s, m) for s, methods in CASES.items() for m in methods]
)
def test_coverage_within_two_points(study, scenario, kind, method):
    hits = study[(scenario, kind, method)]
    n = hits.shape[0]
    k = round(float(hits.mean(axis=1).sum()))
    low = stats.binomtest(k, n, 0.93, alternative="less").pvalue
    high = stats.binomtest(k, n, 0.97, alternative="greater").pvalue
    assert low > 1e-3, f"coverage {k / n:.3f} below 0.93 ({n} experiments)"
    assert high > 1e-3, f"coverage {k / n:.3f} above 0.97 ({n} experiments)"
