"""The former name of :mod:`mlci.simulation` (simulated data and coverage studies), kept so
that ``from mlci import simulate`` and ``mlci.simulate.<name>`` work as before.

Examples
--------
>>> from mlci import simulate
>>> sim = simulate.binary_classification(500, accuracy=0.8, rng=0)
>>> sim.true_value, sim.y_true.shape
(0.8, (500,))
"""

from __future__ import annotations

from .simulation import (
    SCHEMES,
    CoverageRow,
    CoverageStudy,
    Scenario,
    Simulation,
    binary_classification,
    binormal_scores,
    clustered_classification,
    coverage_map_scenarios,
    coverage_study,
    decision_classification,
    exact_proportion_coverage,
    logit_normal_parameters,
    paired_binormal_scores,
    paired_clustered_classification,
    standard_scenarios,
    stress_scenarios,
)

__all__ = [
    "SCHEMES",
    "CoverageRow",
    "CoverageStudy",
    "Scenario",
    "Simulation",
    "binary_classification",
    "binormal_scores",
    "clustered_classification",
    "coverage_map_scenarios",
    "coverage_study",
    "decision_classification",
    "exact_proportion_coverage",
    "logit_normal_parameters",
    "paired_binormal_scores",
    "paired_clustered_classification",
    "standard_scenarios",
    "stress_scenarios",
]
