"""``method="auto"``'s rules for the paired differences of :func:`mlci.compare`, and their
warnings.

A paired difference gets the t interval on its linearized (CR2) standard error, but a
*skewed* difference of independent samples (few discordant samples, most of them one
way: :func:`skewed_pairs`), which gets :data:`SKEWED_PAIR_METHOD`; with a handful of
discordant samples no interval holds (:func:`few_discordant`, warned), nor over too few
conditions (:func:`warn_paired`), nor for a decision metric whose smaller class fills too
few conditions (:func:`warn_paired_classes`).  The numbers behind each rule are in
:mod:`mlci.engine.auto`'s docstring and docs/validation.md, section 5, "Paired
differences".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import DegenerateIntervalWarning, FewConditionsWarning
from ..feedback import warn
from .auto import RANKING_METRICS
from .clustered_class import (
    CLUSTERED_CLASS_METRICS,
    CLUSTERED_ICC_METRICS,
    class_error_icc,
    clustered_class_rule,
    clustered_class_text,
    smaller_class,
    smaller_class_conditions,
)

__all__ = [
    "MIN_DISCORDANT",
    "MIN_EFFECTIVE_DISCORDANT",
    "MIN_PAIRED_CONDITIONS",
    "SKEWED_PAIR_METHOD",
    "few_discordant",
    "skewed_pairs",
    "skewed_reason",
    "warn_few_discordant",
    "warn_no_spread_pairs",
    "warn_paired",
    "warn_paired_classes",
]

#: a paired difference over fewer effective conditions than this: the t interval covered
#: 0.924 with 8 conditions (0.950 with 15)
MIN_PAIRED_CONDITIONS = 12
#: a paired difference of independent samples whose effective number of discordant
#: samples, ``1 / skewness^2`` of the linearized difference (:mod:`mlci.engine.skewness`),
#: is below this gets BCa instead of the t interval (:func:`skewed_pairs`)
MIN_EFFECTIVE_DISCORDANT = 30.0
#: the interval of those differences
SKEWED_PAIR_METHOD = "bca"
#: a paired difference of independent samples with fewer effective discordant samples
#: than this (``1 / kurtosis`` of the linearized difference, about ``b + c`` for accuracy):
#: no bootstrap or t interval holds, and ``compare`` warns (:func:`warn_few_discordant`)
MIN_DISCORDANT = 5.0


def warn_paired_classes(kernels: Any, plan: Any, metric: str) -> str | None:
    """Warn (and return the message) for paired differences of a two-class decision metric
    over conditions whose smaller class fills too few effective conditions
    (:func:`clustered_class_rule`, the rule of a single system's interval, applied to each
    system's kernel with its errors' ICC).  Design s5 #11 of the design search (a paired f1
    difference over 55 conditions with about 24 positives, 300 test sets): t 0.610, BCa
    0.690, never warned before (docs/validation.md, "The search again, after Tango (seed
    4)").
    """
    unit = getattr(plan, "unit_of_sample", None)
    n_cond = getattr(plan, "n_conditions", None)
    if metric not in CLUSTERED_CLASS_METRICS or unit is None or n_cond is None:
        return None
    for kernel in kernels:
        few = smaller_class(kernel)
        if few is None:
            continue
        eff = smaller_class_conditions(kernel.keys, unit)
        icc = class_error_icc(kernel.keys, unit) if metric in CLUSTERED_ICC_METRICS else None
        if clustered_class_rule(int(n_cond), few, eff, icc):
            text = (
                clustered_class_text(few, eff, int(n_cond), icc)
                + f"; there no interval of {metric!r} held its level in mlci's sweep "
                "(docs/validation.md, section 5), and the paired differences of the design "
                "search's such design did not either (t 0.61, BCa 0.69). Treat the "
                "differences' intervals and p-values as optimistic, or collect more samples "
                "of the smaller class, spread over more conditions."
            )
            warn(text, FewConditionsWarning)
            return text
    return None


def warn_paired(effective_conditions: float | None) -> str | None:
    """Warn (and return the message) for a paired difference over too few conditions."""
    if effective_conditions is None or effective_conditions >= MIN_PAIRED_CONDITIONS:
        return None
    text = (
        f"Paired differences over {effective_conditions:.3g} effective conditions: below "
        f"{MIN_PAIRED_CONDITIONS}, mlci's coverage map (docs/validation.md, section 2) found "
        "the t interval of a paired accuracy difference covering 0.924 with 8 conditions "
        "(the studentized one 0.960 but up to 2.5 times wider). Treat the differences' "
        "intervals and p-values as optimistic, or collect more conditions."
    )
    warn(text, FewConditionsWarning)
    return text


def skewed_pairs(skewness: np.ndarray, iid: bool, metric: str = "") -> np.ndarray:
    """Which paired differences get BCa under ``"auto"``: independent samples, a metric
    other than a ranking one (for a small-sample AUC difference BCa covered less than t:
    0.86-0.93 against 0.93-0.95 at n = 51-129, docs/validation.md section 5), and fewer
    than :data:`MIN_EFFECTIVE_DISCORDANT` effective discordant samples (``1 / skewness^2``
    of the linearized difference; NaN, no spread, never)."""
    skew = np.asarray(skewness, dtype=float)
    if not iid or metric in RANKING_METRICS:
        return np.zeros(skew.shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.nan_to_num(skew**2, nan=0.0) * MIN_EFFECTIVE_DISCORDANT > 1.0


def skewed_reason(pairs: list[str], skewness: np.ndarray) -> str:
    """The ``method_reason`` clause of :func:`skewed_pairs`' BCa pairs."""
    eff = ", ".join(f"{1.0 / float(g) ** 2:.3g}" for g in skewness)
    return (
        f"; {SKEWED_PAIR_METHOD} for the difference(s) {', '.join(pairs)}: skewed, {eff} effective "
        f"discordant samples (1 / skewness^2 of the linearized difference) below "
        f"{MIN_EFFECTIVE_DISCORDANT:.3g}, where the t interval of a paired difference "
        "was too narrow (docs/validation.md, section 5, 'Paired differences')"
    )


def few_discordant(kurtosis: np.ndarray) -> np.ndarray:
    """Which paired differences have fewer than :data:`MIN_DISCORDANT` effective
    discordant samples (``1 / kurtosis`` of the linearized difference; NaN: never)."""
    kurt = np.nan_to_num(np.asarray(kurtosis, dtype=float), nan=0.0)
    return kurt * MIN_DISCORDANT > 1.0


def warn_few_discordant(pairs: list[str], kurtosis: np.ndarray, metric: str) -> str:
    """Warn (and return the message) for paired differences with a handful of discordant
    samples, where no interval of ``compare`` holds its level."""
    eff = ", ".join(f"{1.0 / float(k):.2g}" for k in kurtosis)
    text = (
        f"The difference(s) {', '.join(pairs)} of {metric!r} rest on about {eff} "
        f"discordant samples (1 / kurtosis of the linearized difference; fewer than "
        f"{MIN_DISCORDANT:.3g}): with so few, neither the t interval nor a bootstrap "
        "interval holds its level (a paired accuracy difference with 2-4 discordant "
        "samples: t 0.77-0.99 exactly, docs/validation.md section 5, 'Paired "
        "differences'). For accuracy, Tango's score interval, mlci.paired_proportion_diff_"
        "ci(mlci.paired_table(...), method='tango'), holds there (0.93-0.99); otherwise "
        "collect more samples."
    )
    warn(text, DegenerateIntervalWarning)
    return text


def warn_no_spread_pairs(pairs: list[str], metric: str) -> str:
    """Warn (and return the message) for paired differences without bootstrap spread.

    Two systems that agree on every sample that matters (no discordant sample) give a
    difference of exactly 0 in every replicate: the interval is [0, 0], p = 1.  That says
    the test set holds no discordant sample, not that the difference is 0.  In the design
    search (docs/validation.md, section 5, design #51: an accuracy difference of 0.0037
    over 350 samples and 51 conditions, about 1.3 discordant samples expected) 21% of the
    test sets had none; their [0, 0] never covered, while every test set with at least one
    discordant sample covered (coverage 0.79 overall, 1.00 given a discordant sample).
    """
    text = (
        f"The difference(s) {', '.join(pairs)} of {metric!r} have no bootstrap spread: the "
        "systems agree on every sample (no discordant sample), so the interval is [0, 0] "
        "and p = 1. That shows no disagreement in this test set, not a difference of "
        "exactly 0 (in mlci's design search, docs/validation.md section 5, the [0, 0] "
        "interval of a true accuracy difference of 0.0037 over 350 samples never covered "
        "it). For accuracy, mlci.paired_proportion_diff_ci(mlci.paired_table(...)) gives "
        "an interval from the discordant counts; otherwise collect more samples."
    )
    warn(text, DegenerateIntervalWarning)
    return text
