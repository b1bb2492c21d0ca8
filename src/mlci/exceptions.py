"""Warnings raised by mlci (errors are plain ``ValueError``/``TypeError`` with clear messages)."""

from __future__ import annotations

__all__ = [
    "AttenuatedCorrelationWarning",
    "DegenerateIntervalWarning",
    "FewConditionsWarning",
    "FewResamplesWarning",
    "HeavyTailWarning",
    "InvalidReplicatesWarning",
    "MlciWarning",
    "NearBoundWarning",
]


class MlciWarning(UserWarning):
    """Base class of every warning mlci emits."""


class InvalidReplicatesWarning(MlciWarning):
    """The metric was undefined on more than a threshold fraction of the bootstrap replicates.

    Such replicates (e.g. a resample with a single class for ``roc_auc``) are counted in
    ``n_invalid`` and excluded; excluding many of them biases the interval.
    """


class DegenerateIntervalWarning(MlciWarning):
    """The bootstrap distribution has (almost) no spread, so the interval collapses.

    This happens e.g. for an accuracy of exactly 1.0 (every resample has accuracy 1.0) or
    an AUC of 1.0: the test set holds no counter-example, so the bootstrap shows no
    uncertainty.  For a proportion such as accuracy, an exact binomial interval
    (``mlci.proportion_ci(..., method="clopper_pearson")``) is the right tool there.
    """


class FewConditionsWarning(MlciWarning):
    """Conditions are resampled, but there are too few of them for a reliable interval.

    A bootstrap over conditions (speakers, sessions, documents) estimates how the metric
    varies between conditions from the conditions at hand; with fewer than about 20 of
    them that estimate is itself noisy and intervals are too narrow: 95% intervals cover
    about 91% of the time with 10 to 12 conditions in mlci's coverage study
    (docs/validation.md).  Treat such an interval as optimistic, or collect more
    conditions.
    """


class IrregularEstimandWarning(MlciWarning):
    """The estimate sits where the metric is not smooth, so no bootstrap interval is known
    to keep its level.

    A calibration error (ECE, MCE, Brier reliability) is an absolute or squared gap per
    bin: near zero, i.e. for a (nearly) calibrated model, its plug-in estimate is biased
    upward by the bins' noise and intervals tend to exclude the true value (see
    docs/calibration.md and docs/validation.md).  Report ``ece_debiased`` there, or the
    calibration slope and intercept, whose intervals hold.  The minimum Cllr
    (:func:`mlci.cllr_ci` with ``kind="min"``) is biased the other way: PAV calibrates on the
    test set itself (docs/validation.md, "Cllr intervals (session 9)").
    """


class FewResamplesWarning(MlciWarning):
    """Too few bootstrap replicates for the interval's level and method.

    A percentile-type bound (percentile, basic, BC, BCa, studentized) is read from the
    replicates beyond it: ``n_resamples * alpha / 2`` of them for a two-sided interval.
    With fewer than 5 replicates expected beyond a bound (``n_resamples < 10 / alpha``:
    200 at 95%, 1,000 at 99%) the tail probability the bound stands for has a Monte Carlo
    error of more than 45% of itself (``-B 50`` at 95%: 1.25 replicates; a 99.99%
    interval from 1,000 replicates: 0.05), and the warning is given
    (:data:`mlci.intervals.bootstrap.MIN_TAIL_REPLICATES` says why 5).  BCa and the
    studentized interval need more for a stable bound: Davison & Hinkley (1997, sec.
    5.2.3) advise 999 at 95%, the default; Efron & Tibshirani (1993, sec. 19.3)
    1,000-2,000 for intervals.
    """


class NearBoundWarning(MlciWarning):
    """A ranking metric's studentized interval reaches the edge of its range.

    Near the edge (an AUC of 0.995, or a handful of positives) many replicates rank every
    positive above every negative; their bootstrap-t statistic is infinite and the bound
    is the range's edge.  For decision metrics mlci then uses the logit t interval; for
    the AUC and average precision no informative interval held its level in mlci's
    near-bound study (BCa and the logit t interval covered 0.77-0.88 on such test sets,
    docs/validation.md, "Near the bounds"), so the wide interval is kept, with this
    warning.
    """


class HeavyTailWarning(MlciWarning):
    """A regression metric's losses are so heavy-tailed that no interval is known to hold.

    The MSE, RMSE, MAE and R^2 are means (or functions of means) of per-sample losses.
    When a few samples carry most of the total (skewed, heavy-tailed errors such as
    log-normal ones), the test set rarely holds the rare large losses that set the
    population value, so every bootstrap and analytic interval is too short and misses
    low: in mlci's simulation 95% intervals of the RMSE of log-normal errors covered
    0.51-0.90 at n = 10-200 (docs/metrics.md, "Regression errors with heavy tails";
    docs/validation.md, "Heavy-tailed regression errors (session 9)").  Collect more
    data, or report a robust error (the median or a trimmed mean of the absolute errors),
    or the error on the log scale.
    """


class AttenuatedCorrelationWarning(MlciWarning):
    """A system-level correlation over few items is attenuated toward 0 by their noise.

    The systems' mean scores over the study's items carry the items' noise, which pulls
    their correlation toward 0 (Spearman 1904); resampling items (or systems and items)
    keeps the number of items, so the interval sits around the attenuated value and misses
    the correlation over the items' population.  :func:`mlci.correlation_ci` warns when the
    expected attenuation (a generalizability analysis of the two score matrices) is large
    next to the interval; read the interval as the correlation at this number of items, or
    use more items (docs/correlations.md, "Few items").
    """
