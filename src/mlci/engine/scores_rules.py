"""``method="auto"`` of the score drivers, and their few-errors warnings.

The score drivers (``Scores.bootstrap_ci``, ``auc_ci``, ``operating_point_ci``,
``eer_ci``, ``dcf_ci``, ``cllr_ci``), ``metric_by_group`` and ``trial_bootstrap_ci`` have
no linearized standard error: ``auto`` chooses among the intervals read off the
replicates, per statistic, through :func:`scores_auto_method` (the kernel drivers' rules
are in :mod:`mlci.engine.auto`):

* **the EER: percentile** (:data:`EER_REASON`).  ``scripts/scores_auto_study.py``, every
  method from the same replicates, 35 designs where some bootstrap interval covered more
  than 0.90 (n = 50-20,000 trials, population EER 0.005-0.3, 10% or 50% targets, iid or
  20-500 speakers of unequal sizes with ICC 0.1-0.5; 150-250 test sets each): percentile
  covered 0.953 on average (BCa 0.940, BC 0.942, normal 0.944, basic 0.910), below
  0.935 in 5 designs (BCa 11) and 0.916 at worst (BCa 0.840: the EER of 200 balanced
  trials with 2 errors per class, where percentile covered 0.948), at the same median
  width (1.00 x BCa's).  It is within 0.95 +- 0.015 in 21 designs (BCa 20, normal 23)
  and errs on the safe side (above 0.965 in 9 designs, below 0.935 in 5); with at least
  5 errors in the smaller class and iid trials it covered 0.936-0.980 (BCa 0.924-0.976).
  Below :data:`MIN_EER_ERRORS` errors in the smaller class no method held (2 errors in
  20-100 targets: 0.86-0.93 under every method) and the result warns
  (:func:`warn_few_eer_errors`); over 5 speakers, or 20 speakers at ICC 0.3, none held
  either (0.77-0.88).
* **every other statistic: BCa**, with :data:`mlci.inputs.AUTO_BCA_REASON` (the rule
  above for a design without a linearization).  The EER's threshold, the rates at a
  threshold and at a rate (docs/validation.md, section 5, "metric_by_group and
  trial_bootstrap_ci"), the minimum DCF and Cllr, where BCa was the best of the methods
  (minimum DCF at p_target 0.1 with 20-500 targets: BCa 0.87-0.96, percentile 0.77-0.89;
  at p_target 0.01 none held, BCa 0.60-0.89; Cllr over 19 designs: BCa the best or
  within 0.01 of it in each, mean 0.899 against percentile's 0.875, none holding with
  50-200 trials).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import NearBoundWarning
from ..feedback import warn
from ..inputs import AUTO_BCA_REASON

__all__ = [
    "EER_REASON",
    "MIN_EER_ERRORS",
    "SCORES_AUTO",
    "scores_auto_method",
    "warn_few_eer_errors",
]


#: the EER's rule: scripts/scores_auto_study.py (docs/validation.md, "The Scores
#: statistics"), 35 designs where a bootstrap interval can cover (n = 50-20,000 trials,
#: population EER 0.005-0.3, 10% or 50% targets, iid or 5-500 speakers of unequal sizes,
#: ICC 0.1-0.5), every method from the same replicates
EER_REASON = (
    "percentile: the EER's interval that held best in mlci's coverage study "
    "(scripts/scores_auto_study.py; docs/validation.md, 'The Scores statistics'): over 35 "
    "designs (50-20,000 trials, EER 0.005-0.3, 10-50% targets, iid or 20-500 speakers) it "
    "covered 0.953 on average, below 0.935 in 5 designs and 0.916 at worst, where BCa "
    "covered 0.940, below 0.935 in 11 and 0.840 at worst (the EER of 200 balanced trials "
    "with 2 errors per class: percentile 0.948, BCa 0.840), at the same width; the "
    "percentile bootstrap is also the field's usual EER interval (Bengio & Mariethoz "
    "2004; Ferrer & Riera's confidence_intervals)"
)
#: ``method="auto"`` of the statistics the score drivers serve (``eer_ci``,
#: ``Scores.bootstrap_ci``, ``metric_by_group``, ``trial_bootstrap_ci``, ``mlci scores``):
#: ``{statistic: (method, reason)}``, read off ``scripts/scores_auto_study.py``
#: (docs/validation.md, "The Scores statistics"); a statistic not listed gets BCa
#: (:data:`mlci.inputs.AUTO_BCA_REASON`)
SCORES_AUTO: dict[str, tuple[str, str]] = {"eer": ("percentile", EER_REASON)}
#: an EER with fewer errors than this in its smaller class (``EER x min(n_pos, n_neg)``,
#: the estimate's): no interval held there in the study (2 expected errors in 20-100
#: targets: percentile 0.864-0.924, BCa 0.900-0.928; below one error 0.17-0.78), except
#: with both classes small (2-2.5 errors in each of 25-500 per class: percentile
#: 0.948-0.972), which the warning also names; from 6 errors on percentile covered
#: 0.936-0.980
MIN_EER_ERRORS = 5.0


def scores_auto_method(statistic: str) -> tuple[str, str]:
    """``(method, reason)`` of ``method="auto"`` for a statistic of the score drivers.

    These drivers have no linearized standard error (a :class:`~mlci.Scores` object
    resamples within each class; the EER, DCF and Cllr have no closed-form derivative),
    so ``auto`` chooses among the intervals read off the replicates, per statistic, by
    the coverage study of ``scripts/scores_auto_study.py`` (:data:`SCORES_AUTO`): the
    EER gets the percentile interval (:data:`EER_REASON`); any other statistic BCa.

    Examples
    --------
    >>> scores_auto_method("eer")[0]
    'percentile'
    >>> scores_auto_method("auc")[0]
    'bca'
    """
    return SCORES_AUTO.get(statistic, ("bca", AUTO_BCA_REASON))


def warn_few_eer_errors(eer: Any, n_pos: Any, n_neg: Any, what: str = "") -> str | None:
    """Warn (and return the message) for an EER with fewer than :data:`MIN_EER_ERRORS`
    errors in its smaller class (the smallest over the elements of an array, e.g. the
    groups of :func:`mlci.metric_by_group`).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     text = warn_few_eer_errors(0.02, 100, 900)
    >>> text.split(":")[0]
    'An EER of 0.02 with 2 errors in its smaller class (100 trials)'
    >>> warn_few_eer_errors(0.1, 100, 900) is None
    True
    """
    eer, n_pos, n_neg = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (eer, n_pos, n_neg))
    smaller = np.minimum(n_pos, n_neg)
    errors = eer * smaller
    ok = np.isfinite(errors)
    if not ok.any() or errors[ok].min() >= MIN_EER_ERRORS:
        return None
    i = int(np.flatnonzero(ok)[np.argmin(errors[ok])])
    text = (
        f"An EER of {eer[i]:.3g}{what} with {errors[i]:.2g} errors in its smaller class "
        f"({smaller[i]:.0f} trials): below {MIN_EER_ERRORS:g}, no interval held its level in "
        "mlci's coverage study (docs/validation.md, 'The Scores statistics': 2 errors in "
        "20-100 targets, percentile 0.86-0.92, BCa 0.90-0.93; fewer than one, 0.17-0.78), "
        "unless both classes are that small (2 errors in each: percentile 0.95-0.97). Treat "
        "the interval as optimistic, or collect more trials of that class."
    )
    warn(text, NearBoundWarning)
    return text
