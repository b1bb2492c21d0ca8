"""The settings of coverage studies: :class:`Scenario` and the standard, stress and
coverage-map lists."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .data import (
    SCHEMES,
    Simulation,
    binary_classification,
    binormal_scores,
    clustered_classification,
    decision_classification,
    paired_binormal_scores,
    paired_clustered_classification,
)

__all__ = ["Scenario", "coverage_map_scenarios", "standard_scenarios", "stress_scenarios"]


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
