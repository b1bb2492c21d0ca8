"""Simulated evaluation data with a known population value, and coverage studies.

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
>>> from mlci import simulate
>>> sim = simulate.binary_classification(500, accuracy=0.8, rng=0)
>>> sim.true_value, sim.y_true.shape
(0.8, (500,))
"""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, stats
from scipy.special import expit, ndtr, ndtri

from .classical.proportions import proportion_ci
from .engine.bootstrap import bootstrap_ci
from .exceptions import FewConditionsWarning, InvalidReplicatesWarning
from .inputs import INTERVAL_METHODS, check_confidence_level, check_positive_int
from .results import Result, format_value, json_safe

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

#: resampling schemes a coverage study can compare on clustered data
SCHEMES = ("iid", "conditions", "two-stage")


# --------------------------------------------------------------------------- data
@dataclass(frozen=True, kw_only=True, repr=False)
class Simulation:
    """One simulated test set and the population value of its metric.

    Attributes
    ----------
    metric : str
        The built-in metric whose population value is ``true_value``.
    y_true : ndarray of int, shape (n_samples,)
        Labels in {0, 1}.
    y_pred : ndarray of int, shape (n_samples,) or None
        Decisions (for decision metrics such as accuracy).
    y_score : ndarray of float, shape (n_samples,) or None
        Scores (for ranking metrics such as roc_auc).
    conditions : ndarray of int, shape (n_samples,) or None
        Condition of every sample, for clustered data.
    y_pred_b : ndarray, shape (n_samples,) or None
        A second system's decisions (or scores, for a ranking metric) on the same
        samples: the experiment is then a paired comparison, and ``true_value`` is the
        population difference ``metric(first system) - metric(second)``.
    true_value : float
        The metric's population value.
    details : Mapping
        The generator's parameters and derived quantities (e.g. the intra-condition
        correlation ``icc``).
    """

    metric: str
    y_true: np.ndarray
    y_pred: np.ndarray | None = None
    y_score: np.ndarray | None = None
    conditions: np.ndarray | None = None
    y_pred_b: np.ndarray | None = None
    true_value: float
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def data(self) -> tuple[np.ndarray, np.ndarray]:
        """The positional arrays for :func:`mlci.bootstrap_ci`: ``(y_true, y_pred or y_score)``."""
        second = self.y_pred if self.y_pred is not None else self.y_score
        assert second is not None
        return self.y_true, second

    @property
    def n_samples(self) -> int:
        return len(self.y_true)

    @property
    def n_conditions(self) -> int | None:
        return None if self.conditions is None else len(np.unique(self.conditions))

    def __repr__(self) -> str:
        parts = [
            f"metric={self.metric!r}",
            f"true_value={format_value(self.true_value, 6)}",
            f"n_samples={self.n_samples}",
        ]
        if self.conditions is not None:
            parts.append(f"n_conditions={self.n_conditions}")
        parts += [f"{k}={format_value(v, 6)}" for k, v in self.details.items()]
        return f"Simulation({', '.join(parts)})"

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain Python values (lists for arrays), ready for JSON."""
        return {f.name: json_safe(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _generator(rng: Any) -> np.random.Generator:
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if isinstance(rng, int | np.integer) and not isinstance(rng, bool) and rng >= 0:
        return np.random.default_rng(int(rng))
    raise TypeError(
        f"`rng` must be None, a non-negative int seed, a SeedSequence or a "
        f"numpy.random.Generator; got {rng!r}."
    )


def _check_open_unit(name: str, value: Any) -> float:
    v = float(value)
    if not 0.0 < v < 1.0:
        raise ValueError(f"`{name}` must be strictly between 0 and 1; got {value!r}.")
    return v


def binary_classification(
    n_samples: int,
    accuracy: float,
    *,
    prevalence: float = 0.5,
    rng: Any = None,
) -> Simulation:
    """Decisions of a classifier that is right with probability ``accuracy``, iid.

    Labels are Bernoulli(``prevalence``); each decision equals the label with
    probability ``accuracy`` (independently of the label), so the population accuracy
    is exactly ``accuracy``.

    Parameters
    ----------
    n_samples : int
    accuracy : float in (0, 1)
    prevalence : float in (0, 1), default 0.5
        Share of positive labels.
    rng : None, int, SeedSequence or numpy.random.Generator

    Returns
    -------
    Simulation
        ``metric="accuracy"``, ``y_true``, ``y_pred``, ``true_value=accuracy``.

    Examples
    --------
    >>> sim = binary_classification(1000, accuracy=0.9, rng=1)
    >>> sim.true_value, round(float(np.mean(sim.y_true == sim.y_pred)), 2)
    (0.9, 0.9)
    """
    n = check_positive_int("n_samples", n_samples)
    acc = _check_open_unit("accuracy", accuracy)
    prev = _check_open_unit("prevalence", prevalence)
    g = _generator(rng)
    y_true = (g.random(n) < prev).astype(np.int64)
    correct = g.random(n) < acc
    y_pred = np.where(correct, y_true, 1 - y_true)
    return Simulation(
        metric="accuracy",
        y_true=y_true,
        y_pred=y_pred,
        true_value=acc,
        details={"prevalence": prev},
    )


def _binormal_grid_auc(d: float, step: float) -> float:
    """Exact AUC (ties counted one half) of N(d, 1) vs N(0, 1) scores rounded to ``step``.

    A score s is reported as ``step * round(s / step)``, so the reported value k*step has
    probability ``Phi((k + 1/2) step - mu) - Phi((k - 1/2) step - mu)``;
    AUC = sum_k P(pos = k) * (P(neg < k) + P(neg = k) / 2).
    """
    k = np.arange(math.floor(-12.0 / step) - 1, math.ceil((d + 12.0) / step) + 2)
    edges = (np.append(k, k[-1] + 1) - 0.5) * step
    p_pos = np.diff(ndtr(edges - d))
    p_neg = np.diff(ndtr(edges))
    below = np.concatenate(([0.0], np.cumsum(p_neg)[:-1]))
    return float(np.sum(p_pos * (below + 0.5 * p_neg)))


def binormal_scores(
    n_samples: int,
    auc: float,
    *,
    prevalence: float = 0.5,
    step: float | None = None,
    rng: Any = None,
) -> Simulation:
    """Scores of a binormal classifier with a given population ROC AUC.

    Negatives score N(0, 1), positives N(d, 1) with ``d = sqrt(2) * Phi^-1(auc)``, so
    that AUC = P(pos > neg) = Phi(d / sqrt(2)) (the difference of the two scores is
    N(d, 2)).  The number of positives is fixed at ``round(prevalence * n_samples)``
    (at least one of each class), as in most ROC simulation studies.

    Parameters
    ----------
    n_samples : int
        At least 2.
    auc : float in (0, 1)
        The binormal AUC (before any rounding).
    prevalence : float in (0, 1), default 0.5
    step : float, optional
        Round the scores to multiples of ``step`` (at least 1e-3), which creates ties.
        The population AUC then changes (ties count one half); ``true_value`` is that
        AUC, computed exactly by summing over the grid, and ``details["auc_unrounded"]``
        keeps the binormal one.
    rng : None, int, SeedSequence or numpy.random.Generator

    Returns
    -------
    Simulation
        ``metric="roc_auc"``, ``y_true``, ``y_score``, ``true_value``, and ``details``
        with the separation ``d``.

    Examples
    --------
    >>> sim = binormal_scores(300, auc=0.8, rng=0)
    >>> sim.true_value, int(sim.y_true.sum())
    (0.8, 150)
    >>> round(binormal_scores(300, auc=0.8, step=0.5, rng=0).true_value, 4)  # ties lower it
    0.7952
    """
    n = check_positive_int("n_samples", n_samples, minimum=2)
    a = _check_open_unit("auc", auc)
    prev = _check_open_unit("prevalence", prevalence)
    if step is not None and not (math.isfinite(step) and step >= 1e-3):
        raise ValueError(f"`step` must be None or a number >= 0.001; got {step!r}.")
    g = _generator(rng)
    n_pos = int(np.clip(round(prev * n), 1, n - 1))
    d = math.sqrt(2.0) * float(ndtri(a))
    y_true = np.zeros(n, dtype=np.int64)
    y_true[g.permutation(n)[:n_pos]] = 1
    y_score = g.standard_normal(n) + d * y_true
    details: dict[str, Any] = {"d": d, "n_positive": n_pos}
    true_value = a
    if step is not None:
        y_score = step * np.round(y_score / step)
        true_value = _binormal_grid_auc(d, step)
        details.update(step=float(step), auc_unrounded=a)
    return Simulation(
        metric="roc_auc", y_true=y_true, y_score=y_score, true_value=true_value, details=details
    )


_GH_NODES, _GH_WEIGHTS = np.polynomial.hermite.hermgauss(120)


def _logit_normal_moments(mu: float, sigma: float) -> tuple[float, float]:
    """Mean and variance of expit(mu + sigma Z), Z ~ N(0, 1), by Gauss-Hermite quadrature."""
    p = expit(mu + sigma * math.sqrt(2.0) * _GH_NODES)
    w = _GH_WEIGHTS / math.sqrt(math.pi)
    mean = float(np.sum(w * p))
    return mean, float(np.sum(w * (p - mean) ** 2))


def logit_normal_parameters(accuracy: float, icc: float) -> tuple[float, float]:
    """``(mu, sigma)`` such that p = expit(mu + sigma Z) has mean ``accuracy`` and ICC ``icc``.

    For Bernoulli indicators with a condition-level probability p, the correlation of
    two samples of the same condition is ``icc = Var(p) / (E[p] (1 - E[p]))``.  Both
    moments are computed by 120-point Gauss-Hermite quadrature (error below 1e-12
    for the parameters used here) and matched by nested root finding.

    Examples
    --------
    >>> mu, sigma = logit_normal_parameters(0.8, 0.2)
    >>> round(mu, 4), round(sigma, 4)
    (1.8011, 1.2966)
    """
    acc = _check_open_unit("accuracy", accuracy)
    rho = _check_open_unit("icc", icc)

    def mu_for(sigma: float) -> float:
        return optimize.brentq(
            lambda mu: _logit_normal_moments(mu, sigma)[0] - acc, -60.0, 60.0, xtol=1e-14
        )

    def icc_gap(sigma: float) -> float:
        _, var = _logit_normal_moments(mu_for(sigma), sigma)
        return var / (acc * (1 - acc)) - rho

    sigma = optimize.brentq(icc_gap, 1e-6, 30.0, xtol=1e-13)
    return mu_for(sigma), sigma


def clustered_classification(
    n_conditions: int,
    samples_per_condition: int | Sequence[int] | np.ndarray,
    accuracy: float,
    icc: float,
    *,
    model: str = "beta",
    prevalence: float = 0.5,
    rng: Any = None,
) -> Simulation:
    """Decisions grouped in conditions whose random effects correlate the correctness.

    Condition ``c`` has its own probability ``p_c`` of a correct decision; its samples
    are correct independently with that probability.  Two samples of the same condition
    are then correlated: the intra-condition correlation (ICC) of the correctness
    indicator is ``Var(p_c) / (acc (1 - acc))`` and the variance of the pooled accuracy
    grows by the design effect ``1 + (m - 1) ICC`` for ``m`` samples per condition.

    * ``model="beta"`` (beta-binomial): ``p_c ~ Beta(a, b)`` with
      ``a = acc (1/icc - 1)``, ``b = (1 - acc)(1/icc - 1)``; then ``E[p_c] = acc`` and
      the ICC is ``1 / (a + b + 1) = icc``, both exactly.
    * ``model="logit-normal"``: ``logit(p_c) = mu + sigma Z`` with ``(mu, sigma)`` from
      :func:`logit_normal_parameters` (moments by quadrature, error < 1e-12).

    The population value is ``accuracy`` = E[p_c]: the expected share of correct
    decisions, which the pooled accuracy estimates whenever the condition sizes do not
    depend on the effects (as here).

    Parameters
    ----------
    n_conditions : int
        At least 2.
    samples_per_condition : int or sequence of int
        One size for every condition, or one per condition.
    accuracy : float in (0, 1)
    icc : float in (0, 1)
        Intra-condition correlation of the correctness indicator.
    model : {"beta", "logit-normal"}
    prevalence : float in (0, 1), default 0.5
        Share of positive labels (labels are iid, independent of the conditions).
    rng : None, int, SeedSequence or numpy.random.Generator

    Returns
    -------
    Simulation
        ``metric="accuracy"``, ``y_true``, ``y_pred``, ``conditions``,
        ``true_value=accuracy``, ``details`` with ``icc`` (the population ICC obtained),
        the model's parameters and ``design_effect`` (for the mean condition size).

    Examples
    --------
    >>> sim = clustered_classification(50, 20, accuracy=0.8, icc=0.2, rng=0)
    >>> sim.n_samples, sim.n_conditions, sim.true_value, round(sim.details["icc"], 6)
    (1000, 50, 0.8, 0.2)
    >>> round(sim.details["design_effect"], 2)
    4.8
    """
    c = check_positive_int("n_conditions", n_conditions, minimum=2)
    acc = _check_open_unit("accuracy", accuracy)
    rho = _check_open_unit("icc", icc)
    prev = _check_open_unit("prevalence", prevalence)
    sizes = np.asarray(samples_per_condition)
    if sizes.ndim == 0:
        sizes = np.full(c, int(check_positive_int("samples_per_condition", int(sizes))))
    elif sizes.shape != (c,) or not np.all(sizes >= 1) or not np.all(sizes == np.round(sizes)):
        raise ValueError(
            "`samples_per_condition` must be a positive int or one positive int per "
            f"condition ({c} values); got {samples_per_condition!r}."
        )
    sizes = sizes.astype(np.int64)
    g = _generator(rng)
    if model == "beta":
        scale = 1.0 / rho - 1.0
        a, b = acc * scale, (1.0 - acc) * scale
        p_c = g.beta(a, b, size=c)
        details: dict[str, Any] = {"model": model, "icc": 1.0 / (a + b + 1.0), "a": a, "b": b}
    elif model == "logit-normal":
        mu, sigma = logit_normal_parameters(acc, rho)
        mean, var = _logit_normal_moments(mu, sigma)
        p_c = expit(mu + sigma * g.standard_normal(c))
        details = {"model": model, "icc": var / (mean * (1 - mean)), "mu": mu, "sigma": sigma}
    else:
        raise ValueError(f"`model` must be 'beta' or 'logit-normal'; got {model!r}.")
    conditions = np.repeat(np.arange(c), sizes)
    n = len(conditions)
    y_true = (g.random(n) < prev).astype(np.int64)
    correct = g.random(n) < p_c[conditions]
    y_pred = np.where(correct, y_true, 1 - y_true)
    details["design_effect"] = 1.0 + (float(sizes.mean()) - 1.0) * details["icc"]
    return Simulation(
        metric="accuracy",
        y_true=y_true,
        y_pred=y_pred,
        conditions=conditions,
        true_value=acc,
        details=details,
    )


def _cell_metric(metric: str, tp: float, fp: float, fn: float, tn: float) -> float:
    """A decision metric from population cell probabilities (the ratio of expectations
    its estimator converges to)."""
    if metric == "accuracy":
        return tp + tn
    if metric == "precision":
        return tp / (tp + fp)
    if metric == "recall":
        return tp / (tp + fn)
    if metric == "specificity":
        return tn / (tn + fp)
    if metric == "f1":
        return 2 * tp / (2 * tp + fp + fn)
    if metric == "balanced_accuracy":
        return 0.5 * (tp / (tp + fn) + tn / (tn + fp))
    if metric == "mcc":
        return (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    raise ValueError(
        "`metric` must be one of 'accuracy', 'precision', 'recall', 'specificity', 'f1', "
        f"'balanced_accuracy', 'mcc'; got {metric!r}."
    )


def decision_classification(
    n_samples: int,
    *,
    metric: str,
    prevalence: float,
    tpr: float,
    fpr: float,
    rng: Any = None,
) -> Simulation:
    """iid decisions of a classifier with given true- and false-positive rates.

    Labels are Bernoulli(``prevalence``); a positive is predicted positive with
    probability ``tpr``, a negative with probability ``fpr``.  The population value of
    ``metric`` is computed from the cell probabilities (e.g. F1 = 2 TP / (2 TP + FP +
    FN) with TP = prevalence * tpr ...), the value its estimator converges to.

    Examples
    --------
    >>> sim = decision_classification(400, metric="f1", prevalence=0.05, tpr=0.8, fpr=0.02,
    ...                               rng=0)
    >>> round(sim.true_value, 4)
    0.7339
    """
    n = check_positive_int("n_samples", n_samples, minimum=2)
    prev = _check_open_unit("prevalence", prevalence)
    tpr_ = _check_open_unit("tpr", tpr)
    fpr_ = _check_open_unit("fpr", fpr)
    truth = _cell_metric(
        metric, prev * tpr_, (1 - prev) * fpr_, prev * (1 - tpr_), (1 - prev) * (1 - fpr_)
    )
    g = _generator(rng)
    y_true = (g.random(n) < prev).astype(np.int64)
    y_pred = (g.random(n) < np.where(y_true == 1, tpr_, fpr_)).astype(np.int64)
    return Simulation(
        metric=metric,
        y_true=y_true,
        y_pred=y_pred,
        true_value=truth,
        details={"prevalence": prev, "tpr": tpr_, "fpr": fpr_},
    )


def paired_clustered_classification(
    n_conditions: int,
    samples_per_condition: int | Sequence[int] | np.ndarray,
    accuracy_a: float,
    accuracy_b: float,
    icc: float,
    *,
    rng: Any = None,
) -> Simulation:
    """Two systems' decisions on the same clustered samples; the truth is their accuracy gap.

    Condition ``c`` has accuracy ``p_c ~ Beta`` (mean ``accuracy_a``, intra-condition
    correlation ``icc``, as :func:`clustered_classification`) for system A and
    ``p_c * accuracy_b / accuracy_a`` for system B; one uniform draw per sample decides
    both (B is right only where A is), so the systems' errors are strongly paired.  The
    population difference is exactly ``accuracy_a - accuracy_b``.

    Examples
    --------
    >>> sim = paired_clustered_classification(15, 20, 0.85, 0.8, 0.1, rng=0)
    >>> sim.metric, round(sim.true_value, 4), sim.n_conditions
    ('accuracy', 0.05, 15)
    """
    if not accuracy_b < accuracy_a:
        raise ValueError("`accuracy_b` must be below `accuracy_a`.")
    sim = clustered_classification(n_conditions, samples_per_condition, accuracy_a, icc, rng=rng)
    g = _generator(rng)
    conditions = sim.conditions
    assert conditions is not None
    c = int(conditions.max()) + 1
    a, b = sim.details["a"], sim.details["b"]
    p_c = g.beta(a, b, size=c)
    u = g.random(len(conditions))
    right_a = u < p_c[conditions]
    right_b = u < p_c[conditions] * (accuracy_b / accuracy_a)
    y_true = sim.y_true
    return Simulation(
        metric="accuracy",
        y_true=y_true,
        y_pred=np.where(right_a, y_true, 1 - y_true),
        y_pred_b=np.where(right_b, y_true, 1 - y_true),
        conditions=conditions,
        true_value=accuracy_a - accuracy_b,
        details={"icc": sim.details["icc"]},
    )


def paired_binormal_scores(
    n_samples: int,
    auc_a: float,
    auc_b: float,
    *,
    correlation: float = 0.5,
    prevalence: float = 0.5,
    rng: Any = None,
) -> Simulation:
    """Two correlated binormal systems on the same samples; the truth is their AUC gap.

    Each system's scores are N(0, 1) on negatives and N(d, 1) on positives (``d`` from its
    AUC, as :func:`binormal_scores`), the two systems' noises correlated by
    ``correlation``; the population difference is exactly ``auc_a - auc_b``.

    Examples
    --------
    >>> sim = paired_binormal_scores(200, 0.85, 0.8, rng=0)
    >>> sim.metric, round(sim.true_value, 4)
    ('roc_auc', 0.05)
    """
    n = check_positive_int("n_samples", n_samples, minimum=4)
    rho = float(correlation)
    g = _generator(rng)
    n_pos = int(np.clip(round(prevalence * n), 2, n - 2))
    y_true = np.zeros(n, dtype=np.int64)
    y_true[g.permutation(n)[:n_pos]] = 1
    z1, z2 = g.standard_normal(n), g.standard_normal(n)
    d_a = math.sqrt(2.0) * float(ndtri(auc_a))
    d_b = math.sqrt(2.0) * float(ndtri(auc_b))
    return Simulation(
        metric="roc_auc",
        y_true=y_true,
        y_score=z1 + d_a * y_true,
        y_pred_b=rho * z1 + math.sqrt(1 - rho * rho) * z2 + d_b * y_true,
        true_value=auc_a - auc_b,
        details={"correlation": rho, "n_positive": n_pos},
    )


# --------------------------------------------------------------------------- exact
def exact_proportion_coverage(
    n: int,
    p: Any,
    *,
    method: str = "wilson",
    confidence_level: float = 0.95,
    denominator_share: float | None = None,
) -> np.ndarray:
    """Exact coverage of an interval for a proportion of independent samples.

    With ``k ~ Binomial(n, p)`` the coverage of an interval ``[L(k), U(k)]`` is the
    binomial sum ``sum_k P(k) 1[L(k) <= p <= U(k)]`` (Brown, Cai & DasGupta 2001, sec.
    2): no simulation error.  With ``denominator_share=q`` the denominator is itself
    random, ``d ~ Binomial(n, q)`` (recall: the positives among ``n`` iid samples;
    precision: the predicted positives), and ``k | d ~ Binomial(d, p)``; the coverage
    is then the mixture over ``d >= 1`` (the metric is undefined at ``d = 0``).

    Parameters
    ----------
    n : int
        Samples (the denominator, or the samples the denominator is drawn from).
    p : float or array_like of float in (0, 1)
        The true proportion(s).
    method : str, default "wilson"
        Any method of :func:`mlci.proportion_ci`.
    confidence_level : float, default 0.95
    denominator_share : float in (0, 1), optional
        Probability that a sample counts in the denominator.

    Returns
    -------
    ndarray
        The coverage at every ``p`` (shape of ``p``).

    Examples
    --------
    >>> float(exact_proportion_coverage(100, 0.9).round(4))
    0.9364
    >>> float(exact_proportion_coverage(200, 0.9, denominator_share=0.3).round(4))
    0.9529
    """
    n = check_positive_int("n", n)
    cl = check_confidence_level(confidence_level)
    p_arr = np.asarray(p, dtype=float)
    if not np.all((p_arr > 0) & (p_arr < 1)):
        raise ValueError(f"`p` must be strictly between 0 and 1; got {p!r}.")
    flat = p_arr.reshape(-1)
    if denominator_share is None:
        dens, dens_w = np.array([n]), np.array([1.0])
    else:
        q = _check_open_unit("denominator_share", denominator_share)
        dens = np.arange(1, n + 1)
        dens_w = stats.binom.pmf(dens, n, q)
        keep = dens_w > 1e-15
        dens, dens_w = dens[keep], dens_w[keep] / dens_w[keep].sum()
    cover = np.zeros_like(flat)
    for d, wd in zip(dens, dens_w, strict=True):
        k = np.arange(d + 1)
        ci = proportion_ci(k, int(d), method=method, confidence_level=cl).confidence_interval
        inside = (ci.low[:, None] <= flat[None, :]) & (flat[None, :] <= ci.high[:, None])
        cover += wd * np.sum(stats.binom.pmf(k[:, None], d, flat[None, :]) * inside, axis=0)
    return cover.reshape(p_arr.shape)


# --------------------------------------------------------------------------- coverage
@dataclass(frozen=True)
class Scenario:
    """A simulation setting of a coverage study.

    Attributes
    ----------
    name : str
        Short label; it also seeds the scenario's experiments (so a scenario's results
        do not depend on which other scenarios run with it).
    generate : callable
        ``generate(rng: numpy.random.Generator) -> Simulation``: one test set.
    schemes : tuple of str
        Resampling schemes to compare: ``"iid"``, ``"conditions"`` (whole conditions)
        and ``"two-stage"`` (conditions, then samples inside each drawn condition).
    description : str
        One line for tables.
    exact : mapping, optional
        For a proportion of independent samples: the keyword arguments ``n``, ``p`` (and
        ``denominator_share``) of :func:`exact_proportion_coverage`, whose binomial sum
        gives the exact coverage of an analytic interval in this scenario.
    """

    name: str
    # called as generate(rng); `...` because mypy cannot infer lambdas that bind loop
    # variables as defaults (`lambda g, c=c: ...`) against a one-argument Callable
    generate: Callable[..., Simulation]
    schemes: tuple[str, ...] = ("iid",)
    description: str = ""
    exact: Mapping[str, Any] | None = None


def standard_scenarios() -> list[Scenario]:
    """The scenarios of issue 2's coverage study (``docs/validation.md``).

    accuracy 0.8 at n = 200 and n = 1000; binormal roc_auc 0.8 at n = 300 (150
    positives); clustered accuracy 0.8 with 50 conditions of 20 samples and an
    intra-condition correlation of 0.2 (beta-binomial), resampled iid, by condition
    and two-stage.

    Examples
    --------
    >>> [s.name for s in standard_scenarios()]
    ['accuracy n=200', 'accuracy n=1000', 'roc_auc n=300', 'clustered accuracy C=50']
    """
    return [
        Scenario(
            "accuracy n=200",
            lambda g: binary_classification(200, 0.8, rng=g),
            description="iid, accuracy 0.8",
        ),
        Scenario(
            "accuracy n=1000",
            lambda g: binary_classification(1000, 0.8, rng=g),
            description="iid, accuracy 0.8",
        ),
        Scenario(
            "roc_auc n=300",
            lambda g: binormal_scores(300, 0.8, rng=g),
            description="binormal, AUC 0.8, 150 positives",
        ),
        Scenario(
            "clustered accuracy C=50",
            lambda g: clustered_classification(50, 20, 0.8, 0.2, rng=g),
            schemes=SCHEMES,
            description="50 conditions x 20, accuracy 0.8, ICC 0.2 (beta)",
        ),
    ]


def stress_scenarios() -> list[Scenario]:
    """Harder settings, to show where the methods stop holding (not asserted in tests).

    Small n; accuracy near 1 (resamples without an error are common); roc_auc with
    heavy ties; roc_auc with few positives (resamples without a positive are undefined);
    few conditions; a weak intra-condition correlation (where two-stage resampling is
    most conservative); a logit-normal random effect.

    Examples
    --------
    >>> len(stress_scenarios())
    8
    """
    return [
        Scenario(
            "accuracy n=30",
            lambda g: binary_classification(30, 0.8, rng=g),
            description="small n",
        ),
        Scenario(
            "accuracy 0.98 n=200",
            lambda g: binary_classification(200, 0.98, rng=g),
            description="near 1: 4 errors expected",
        ),
        Scenario(
            "roc_auc ties n=300",
            lambda g: binormal_scores(300, 0.8, step=0.5, rng=g),
            description="scores rounded to 0.5 (heavy ties)",
        ),
        Scenario(
            "roc_auc 6 positives",
            lambda g: binormal_scores(60, 0.8, prevalence=0.1, rng=g),
            description="n=60, 6 positives",
        ),
        Scenario(
            "roc_auc 0.95 n=100",
            lambda g: binormal_scores(100, 0.95, rng=g),
            description="AUC near 1, 50 positives",
        ),
        Scenario(
            "clustered accuracy C=10",
            lambda g: clustered_classification(10, 20, 0.8, 0.2, rng=g),
            schemes=SCHEMES,
            description="few conditions: 10 x 20, ICC 0.2",
        ),
        Scenario(
            "clustered ICC=0.02 C=50",
            lambda g: clustered_classification(50, 20, 0.8, 0.02, rng=g),
            schemes=SCHEMES,
            description="50 x 20, weak correlation ICC 0.02 (beta)",
        ),
        Scenario(
            "clustered logit-normal C=50",
            lambda g: clustered_classification(50, 20, 0.8, 0.2, model="logit-normal", rng=g),
            schemes=SCHEMES,
            description="50 x 20, ICC 0.2 (logit-normal)",
        ),
    ]


def _unequal_sizes(n_conditions: int, mean: int) -> np.ndarray:
    """Condition sizes from 1/4 to 7/4 of ``mean``, evenly spread (a fixed design)."""
    return np.round(np.linspace(0.25, 1.75, n_conditions) * mean).astype(int)


def _exact_rate(metric: str, n: int, prev: float, tpr: float, fpr: float) -> dict[str, Any] | None:
    """:func:`exact_proportion_coverage`'s arguments for a rate of
    :func:`decision_classification` (its denominator is binomial), None for other metrics."""
    if metric == "recall":
        return {"n": n, "p": tpr, "denominator_share": prev}
    if metric == "precision":
        share = prev * tpr + (1 - prev) * fpr
        return {"n": n, "p": prev * tpr / share, "denominator_share": share}
    return None


def coverage_map_scenarios() -> list[Scenario]:
    """The grid of designs of mlci's coverage map (docs/validation.md, section 2).

    Clustered accuracy with 5 to 50 conditions (equal and unequal sizes, ICC 0.02 to
    0.5, near 1 with 8 to 20 conditions); proportions at n = 30 to 1000 and 0.8 to
    0.99; F1, precision and recall of a 5% class and MCC; ROC AUC with 5, 10 and 20
    positives, with ties and near 1; paired differences of accuracy over 8 to 30
    conditions and of the AUC.  Clustered
    scenarios are resampled by condition only (the scheme mlci recommends).

    Examples
    --------
    >>> names = [s.name for s in coverage_map_scenarios()]
    >>> len(names), names[0]
    (37, 'accuracy C=5 ICC=0.1')
    """
    cond = ("conditions",)
    out: list[Scenario] = []
    for c in (5, 8, 12, 20, 50):
        out.append(
            Scenario(
                f"accuracy C={c} ICC=0.1",
                lambda g, c=c: clustered_classification(c, 20, 0.8, 0.1, rng=g),
                schemes=cond,
                description=f"{c} conditions x 20, accuracy 0.8",
            )
        )
    for c, icc in ((12, 0.02), (12, 0.3), (12, 0.5), (8, 0.3), (20, 0.5)):
        out.append(
            Scenario(
                f"accuracy C={c} ICC={icc}",
                lambda g, c=c, icc=icc: clustered_classification(c, 20, 0.8, icc, rng=g),
                schemes=cond,
                description=f"{c} conditions x 20",
            )
        )
    for c, icc in ((12, 0.1), (20, 0.2)):
        out.append(
            Scenario(
                f"accuracy C={c} unequal ICC={icc}",
                lambda g, c=c, icc=icc: clustered_classification(
                    c, _unequal_sizes(c, 20), 0.8, icc, rng=g
                ),
                schemes=cond,
                description=f"{c} conditions of 5 to 35 samples",
            )
        )
    for c, acc, icc in (
        (20, 0.95, 0.1),
        (12, 0.95, 0.1),
        (12, 0.95, 0.3),
        (8, 0.95, 0.1),
        (20, 0.98, 0.1),
    ):
        out.append(
            Scenario(
                f"accuracy {acc} C={c} ICC={icc}",
                lambda g, c=c, acc=acc, icc=icc: clustered_classification(c, 20, acc, icc, rng=g),
                schemes=cond,
                description="near 1 and clustered",
            )
        )
    for n, acc in ((30, 0.8), (100, 0.9), (300, 0.97), (200, 0.98), (1000, 0.99)):
        out.append(
            Scenario(
                f"accuracy {acc} n={n}",
                lambda g, n=n, acc=acc: binary_classification(n, acc, rng=g),
                description="iid",
                exact={"n": n, "p": acc},
            )
        )
    for metric, n, prev, tpr, fpr in (
        ("precision", 500, 0.3, 0.9, 0.02),
        ("recall", 200, 0.3, 0.9, 0.05),
        ("f1", 400, 0.05, 0.8, 0.02),
        ("precision", 400, 0.05, 0.8, 0.02),
        ("recall", 400, 0.05, 0.8, 0.02),
        ("mcc", 400, 0.2, 0.8, 0.1),
    ):
        out.append(
            Scenario(
                f"{metric} prevalence={prev} n={n}",
                lambda g, n=n, m=metric, p=prev, t=tpr, f=fpr: decision_classification(
                    n, metric=m, prevalence=p, tpr=t, fpr=f, rng=g
                ),
                description="iid",
                exact=_exact_rate(metric, n, prev, tpr, fpr),
            )
        )
    for n_pos in (5, 10, 20):
        out.append(
            Scenario(
                f"roc_auc {n_pos} positives",
                lambda g, k=n_pos: binormal_scores(100, 0.8, prevalence=k / 100, rng=g),
                description="n = 100, AUC 0.8",
            )
        )
    out.append(
        Scenario(
            "roc_auc ties n=300",
            lambda g: binormal_scores(300, 0.8, step=0.5, rng=g),
            description="scores on a 0.5 grid",
        )
    )
    out.append(
        Scenario(
            "roc_auc 0.95 n=100",
            lambda g: binormal_scores(100, 0.95, rng=g),
            description="AUC near 1",
        )
    )
    for c in (8, 15, 30):
        out.append(
            Scenario(
                f"paired accuracy C={c}",
                lambda g, c=c: paired_clustered_classification(c, 20, 0.85, 0.8, 0.1, rng=g),
                schemes=cond,
                description="difference of two systems, ICC 0.1",
            )
        )
    out.append(
        Scenario(
            "paired roc_auc n=100",
            lambda g: paired_binormal_scores(100, 0.85, 0.8, rng=g),
            description="difference of two correlated systems",
        )
    )
    return out


@dataclass(frozen=True, repr=False)
class CoverageRow(Result):
    """Empirical coverage of one interval method under one scheme in one scenario.

    Attributes
    ----------
    scenario, metric, method, scheme : str
    n_samples : int
        Samples per experiment (of the first experiment, if sizes vary).
    n_conditions : int or None
        Conditions in the data (whatever the scheme), for clustered scenarios.
    true_value : float
        Population value of the metric (of the first experiment).
    n_experiments : int
        Experiments whose interval could be computed.
    n_covered : int
        Of those, how many intervals contained ``true_value``.
    coverage : float
        ``n_covered / n_experiments``.
    coverage_ci : tuple of float
        Exact (Clopper-Pearson) 95% interval of the coverage.
    pvalue : float
        Exact two-sided binomial test of ``coverage == confidence_level``.
    mean_width : float
        Mean interval width.
    n_failed : int
        Experiments where no interval could be computed (an error was raised).
    n_warned : int
        Experiments where mlci warned (degenerate distribution, invalid replicates).
    n_below, n_above : int
        Misses with the truth below the interval's low end / above its high end (the
        interval was too high / too low).

    Examples
    --------
    >>> sc = [Scenario("acc", lambda g: binary_classification(100, 0.7, rng=g))]
    >>> study = coverage_study(sc, n_experiments=10, n_resamples=100, methods=["percentile"])
    >>> study.row("acc", "percentile")  # doctest: +NORMALIZE_WHITESPACE
    CoverageRow('acc', method='percentile', scheme='iid', coverage=0.9 [0.555, 0.9975],
                n_experiments=10, mean_width=0.1622)
    """

    scenario: str
    metric: str
    method: str
    scheme: str
    n_samples: int
    n_conditions: int | None
    true_value: float
    n_experiments: int
    n_covered: int
    coverage: float
    coverage_ci: tuple[float, float]
    pvalue: float
    mean_width: float
    n_failed: int
    n_warned: int
    n_below: int
    n_above: int

    def __repr__(self) -> str:
        low, high = self.coverage_ci
        return (
            f"CoverageRow({self.scenario!r}, method={self.method!r}, scheme={self.scheme!r}, "
            f"coverage={format_value(self.coverage)} [{format_value(low)}, "
            f"{format_value(high)}], n_experiments={self.n_experiments}, "
            f"mean_width={format_value(self.mean_width)})"
        )

    def rows(self) -> list[dict[str, Any]]:
        """One row: the fields, ``coverage_ci`` as ``coverage_low`` and ``coverage_high``."""
        row: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "coverage_ci":
                row["coverage_low"], row["coverage_high"] = self.coverage_ci
            else:
                row[f.name] = getattr(self, f.name)
        return [row]


@dataclass(frozen=True, repr=False)
class CoverageStudy(Result):
    """The rows of a coverage study, with its settings.

    Attributes
    ----------
    entries : tuple of CoverageRow
        One per scenario, scheme and method (``rows()`` gives them as dicts,
        ``to_frame()`` as a table).
    confidence_level : float
    n_resamples : int
    seconds : float
        Wall time of the study.

    Examples
    --------
    >>> sc = [Scenario("acc", lambda g: binary_classification(100, 0.7, rng=g))]
    >>> study = coverage_study(sc, n_experiments=10, n_resamples=100, methods=["percentile"])
    >>> study  # doctest: +ELLIPSIS
    CoverageStudy(1 rows, confidence_level=0.95, n_resamples=100, seconds=...)
    >>> study.to_frame()[["scenario", "method", "coverage", "coverage_low"]].round(3)
      scenario      method  coverage  coverage_low
    0      acc  percentile       0.9         0.555
    """

    entries: tuple[CoverageRow, ...]
    confidence_level: float
    n_resamples: int
    seconds: float

    def row(self, scenario: str, method: str, scheme: str = "iid") -> CoverageRow:
        """The row of one scenario, method and scheme."""
        for r in self.entries:
            if (r.scenario, r.method, r.scheme) == (scenario, method, scheme):
                return r
        raise KeyError(f"no row for {(scenario, method, scheme)!r}")

    def __repr__(self) -> str:
        return (
            f"CoverageStudy({len(self.entries)} rows, confidence_level={self.confidence_level}, "
            f"n_resamples={self.n_resamples}, seconds={self.seconds:.1f})"
        )

    def rows(self) -> list[dict[str, Any]]:
        """One row per entry (:meth:`CoverageRow.rows`)."""
        return [row for r in self.entries for row in r.rows()]

    def to_markdown(self) -> str:
        """The rows as a markdown table."""
        head = (
            "| scenario | n | conditions | truth | method | scheme | experiments | coverage "
            "| 95% CI of coverage | binomial p | mean width | misses low / high "
            "| warned | failed |\n"
            "|---|---:|---:|---:|---|---|---:|---:|---|---:|---:|---:|---:|---:|"
        )
        lines = [head]
        for r in self.entries:
            lines.append(
                f"| {r.scenario} | {r.n_samples} | {r.n_conditions or ''} | "
                f"{r.true_value:.4f} | {r.method} | {r.scheme} | {r.n_experiments} | "
                f"{r.coverage:.3f} | [{r.coverage_ci[0]:.3f}, {r.coverage_ci[1]:.3f}] | "
                f"{r.pvalue:.2g} | {r.mean_width:.4f} | {r.n_below} / {r.n_above} | "
                f"{r.n_warned} | {r.n_failed} |"
            )
        return "\n".join(lines)


def _experiment_seed(seed: int, scenario: str, i: int) -> np.random.SeedSequence:
    # crc32 of the name: stable across runs and independent of the scenario list
    return np.random.SeedSequence(seed, spawn_key=(zlib.crc32(scenario.encode()), i))


#: the interval methods computed from the bootstrap distribution alone
_DIST = ("percentile", "basic", "normal", "bc", "bca")
#: warnings that a coverage study expects (it measures what few conditions do)
_EXPECTED = (FewConditionsWarning,)


def _call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, list[Any]]:
    """``fn(...)`` and the warnings it raised (except the expected ones); None on ValueError."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = fn(*args, **kwargs)
        except ValueError:
            return None, []
    return res, [c for c in caught if not issubclass(c.category, _EXPECTED)]


def _experiment(
    sim: Simulation,
    methods: Sequence[str],
    kwargs: dict[str, Any],
    level: float,
    seed: np.random.SeedSequence,
) -> dict[str, tuple[float, float, bool]]:
    """``{method: (low, high, warned)}`` of one simulated test set (a method that raised
    a ValueError is missing).  Every method uses the same replicate seed."""
    out: dict[str, tuple[float, float, bool]] = {}
    if sim.y_pred_b is not None:  # a paired comparison: compare() per method
        from .comparison.paired import compare

        second = sim.y_pred if sim.y_pred is not None else sim.y_score
        for m in methods:
            res, caught = _call(
                compare,
                sim.y_true,
                {"A": second, "B": sim.y_pred_b},
                metric=sim.metric,
                method=m,
                confidence_level=level,
                rng=seed,
                **kwargs,
            )
            if res is not None:
                d = res.difference("A", "B")
                out[m] = (*d.confidence_interval, bool(caught))
        return out
    common = {"metric": sim.metric, "confidence_level": level, "rng": seed, **kwargs}
    results: dict[str, tuple[Any, list[Any]]] = {}
    if any(m in _DIST for m in methods):
        results["bca"] = _call(bootstrap_ci, *sim.data, method="bca", **common)
    if any(m not in _DIST for m in methods):
        results["studentized"] = _call(bootstrap_ci, *sim.data, method="studentized", **common)
    chosen = None
    if "auto" in methods:  # which method "auto" picks (the same replicates as the others)
        probe, _ = _call(bootstrap_ci, *sim.data, method="auto", **{**common, "n_resamples": 2})
        chosen = None if probe is None else probe.method
    for m in methods:
        target = chosen if m == "auto" else m
        if target is None:
            continue
        base, caught = results["bca" if target in _DIST else "studentized"]
        if base is None:
            continue
        if target in ("bca", "studentized"):
            out[m] = (*base.confidence_interval, bool(caught))
            continue
        res, more = _call(base.interval, method=target)
        if res is not None:
            invalid = any(issubclass(c.category, InvalidReplicatesWarning) for c in caught)
            out[m] = (*res.confidence_interval, bool(more) or invalid)
    return out


def coverage_study(
    scenarios: Iterable[Scenario],
    *,
    n_experiments: int,
    n_resamples: int = 1000,
    methods: Sequence[str] = ("percentile", "bca"),
    confidence_level: float = 0.95,
    rng: int = 0,
    n_jobs: int = 1,
    progress: Callable[[str], None] | None = None,
) -> CoverageStudy:
    """Empirical coverage of bootstrap intervals over repeated simulated experiments.

    For each scenario, ``n_experiments`` test sets are generated; on each, one
    bootstrap per scheme (:func:`mlci.bootstrap_ci` with ``method="bca"``) gives the
    BCa interval and the other distribution methods from the *same* replicates
    (exactly what ``bootstrap_ci`` with that method and seed returns); one with
    ``method="studentized"`` (the same replicates and their standard errors) gives the
    studentized, ``t`` and ``wilson`` intervals; ``"auto"`` is the interval of the method
    ``bootstrap_ci(method="auto")`` picks.  A paired scenario (``y_pred_b``) calls
    :func:`mlci.compare` once per method and takes the difference's interval.
    Experiment ``i`` of a scenario has its own seed derived from ``rng``, the scenario's
    name and ``i``: a smaller study is a prefix of a larger one, and every scheme sees the
    same test sets and replicate seeds.

    Parameters
    ----------
    scenarios : iterable of Scenario
    n_experiments : int
    n_resamples : int, default 1000
    methods : sequence of str
        Interval methods (:data:`mlci.inputs.INTERVAL_METHODS`).
    confidence_level : float, default 0.95
    rng : int, default 0
        Seed of the whole study.
    n_jobs : int, default 1
        Threads of each bootstrap.
    progress : callable, optional
        Called with a line of text after each scenario.

    Returns
    -------
    CoverageStudy

    Examples
    --------
    >>> sc = [Scenario("acc", lambda g: binary_classification(100, 0.7, rng=g))]
    >>> study = coverage_study(sc, n_experiments=20, n_resamples=200, rng=1)
    >>> r = study.row("acc", "bca")
    >>> r.n_experiments, 0.7 < r.coverage <= 1.0
    (20, True)
    """
    n_exp = check_positive_int("n_experiments", n_experiments)
    n_resamples = check_positive_int("n_resamples", n_resamples, minimum=2)
    level = check_confidence_level(confidence_level)
    methods = tuple(methods)
    for m in methods:
        if m not in INTERVAL_METHODS:
            raise ValueError(
                f"`methods` must contain only {', '.join(INTERVAL_METHODS)}; got {m!r}."
            )
    start = time.perf_counter()
    rows: list[CoverageRow] = []
    for sc in scenarios:
        for s in sc.schemes:
            if s not in SCHEMES:
                raise ValueError(f"scheme {s!r} of scenario {sc.name!r} is not one of {SCHEMES}.")
        keys = [(m, s) for s in sc.schemes for m in methods]
        lows = {k: np.full(n_exp, np.nan) for k in keys}
        highs = {k: np.full(n_exp, np.nan) for k in keys}
        warned = {k: 0 for k in keys}
        truths = np.empty(n_exp)
        first: Simulation | None = None
        for i in range(n_exp):
            data_ss, boot_ss = _experiment_seed(rng, sc.name, i).spawn(2)
            sim = sc.generate(np.random.default_rng(data_ss))
            first = first or sim
            truths[i] = sim.true_value
            for s in sc.schemes:
                kwargs: dict[str, Any] = {"n_resamples": n_resamples, "n_jobs": n_jobs}
                if s != "iid":
                    kwargs.update(conditions=sim.conditions, two_stage=s == "two-stage")
                got = _experiment(sim, methods, kwargs, level, boot_ss)
                for m in methods:
                    if m in got:
                        low, high, w = got[m]
                        lows[(m, s)][i], highs[(m, s)][i] = low, high
                        warned[(m, s)] += int(w)
        assert first is not None
        for m, s in keys:
            ok = ~np.isnan(lows[(m, s)])
            lo, hi, t = lows[(m, s)][ok], highs[(m, s)][ok], truths[ok]
            k, n_ok = int(np.sum((lo <= t) & (t <= hi))), int(ok.sum())
            if n_ok:
                bt = stats.binomtest(k, n_ok, level)
                ci = bt.proportion_ci(0.95, method="exact")
                ci_t, pval = (float(ci.low), float(ci.high)), float(bt.pvalue)
            else:
                ci_t, pval = (math.nan, math.nan), math.nan
            rows.append(
                CoverageRow(
                    scenario=sc.name,
                    metric=first.metric,
                    method=m,
                    scheme=s,
                    n_samples=first.n_samples,
                    n_conditions=first.n_conditions,
                    true_value=float(first.true_value),
                    n_experiments=n_ok,
                    n_covered=k,
                    coverage=k / n_ok if n_ok else math.nan,
                    coverage_ci=ci_t,
                    pvalue=pval,
                    mean_width=float(np.mean(hi - lo)) if n_ok else math.nan,
                    n_failed=n_exp - n_ok,
                    n_warned=warned[(m, s)],
                    n_below=int(np.sum(t < lo)),
                    n_above=int(np.sum(t > hi)),
                )
            )
        if progress is not None:
            progress(f"{sc.name}: done in {time.perf_counter() - start:.1f} s")
    return CoverageStudy(
        entries=tuple(rows),
        confidence_level=level,
        n_resamples=n_resamples,
        seconds=time.perf_counter() - start,
    )
