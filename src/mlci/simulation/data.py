"""Simulated evaluation data with a known population value: iid, binormal, clustered,
decision-level and paired data (each a :class:`Simulation`)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize
from scipy.special import expit, ndtr, ndtri

from ..inputs import check_choice, check_positive_int
from ..results import format_value, json_safe

__all__ = [
    "DECISION_METRICS",
    "SCHEMES",
    "Simulation",
    "binary_classification",
    "binormal_scores",
    "cell_metric",
    "clustered_classification",
    "decision_classification",
    "logit_normal_parameters",
    "paired_binormal_scores",
    "paired_clustered_classification",
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


#: the decision metrics :func:`decision_classification` simulates
DECISION_METRICS = (
    "accuracy",
    "precision",
    "recall",
    "specificity",
    "f1",
    "balanced_accuracy",
    "mcc",
)


def cell_metric(metric: str, tp: float, fp: float, fn: float, tn: float) -> float:
    """A decision metric from population cell probabilities (the ratio of expectations
    its estimator converges to).

    Examples
    --------
    >>> round(cell_metric("f1", 0.04, 0.019, 0.01, 0.931), 4)
    0.7339
    >>> round(cell_metric("cohen_kappa", 0.4, 0.1, 0.1, 0.4), 4)
    0.6
    """
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
    if metric == "cohen_kappa":
        po, pe = tp + tn, (tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)
        return (po - pe) / (1 - pe)
    raise ValueError(
        "`metric` must be one of 'accuracy', 'precision', 'recall', 'specificity', 'f1', "
        f"'balanced_accuracy', 'mcc', 'cohen_kappa'; got {metric!r}."
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
    check_choice("metric", metric, DECISION_METRICS)
    truth = cell_metric(
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
