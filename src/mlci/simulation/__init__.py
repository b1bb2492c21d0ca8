"""Simulated evaluation data with a known population value, and coverage studies.

Modules: :mod:`.data` (the simulated data), :mod:`.scenarios` (the settings of a study),
:mod:`.coverage` (the study loop and its results), :mod:`.exact` (exact coverage of a
proportion interval).  ``mlci.simulate`` is the same API under its former name.

A confidence interval method is only as good as its *coverage*: over many repeated
experiments, a 95% interval should contain the true value of the metric 95% of the
time.  Checking that needs data whose population value is known exactly:

* :func:`binary_classification`: iid decisions of a classifier with a given accuracy;
* :func:`binormal_scores`: scores of a binormal classifier with a given ROC AUC
  (optionally rounded to a grid, which creates ties);
* :func:`clustered_classification`: decisions grouped in conditions (speakers,
  sessions...) whose random effects make the correctness of samples of the same
  condition correlated, with a known intra-condition correlation.

:func:`coverage_study` runs the repeated experiments for a list of :class:`Scenario`
objects (:func:`standard_scenarios` holds the ones of ``docs/validation.md``) and
returns a :class:`CoverageStudy` whose rows give each method's empirical coverage with
an exact binomial interval.  The test-suite (``tests/test_coverage.py``) and the script
``scripts/coverage_study.py`` both run this one loop.

Examples
--------
>>> from mlci import simulation
>>> sim = simulation.binary_classification(500, accuracy=0.8, rng=0)
>>> sim.true_value, sim.y_true.shape
(0.8, (500,))
"""

from .coverage import CoverageRow, CoverageStudy, coverage_study
from .data import (
    SCHEMES,
    Simulation,
    binary_classification,
    binormal_scores,
    clustered_classification,
    decision_classification,
    logit_normal_parameters,
    paired_binormal_scores,
    paired_clustered_classification,
)
from .exact import exact_proportion_coverage
from .scenarios import Scenario, coverage_map_scenarios, standard_scenarios, stress_scenarios

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
