"""Average precision whose error rests on few misranked positives (session 10, apnear).

Near AP = 1 with many positives, the estimate's error ``1 - AP`` comes from the few
positives that some negative outranks (scores at or below the highest negative's).  The
bootstrap's spread follows how many of them the test set happens to hold: a test set with
fewer gets a narrower interval, so the intervals fall short (design search seed 13, #20:
about 1,810 positives, 1 - AP = 8e-5, BCa covered 0.880 of 300 test sets), although no
replicate ranks every positive above every negative (the edge rule of ``engine/auto.py``
stays quiet).  :func:`misranked_positive_diagnostics` counts those positives from an
average-precision kernel's atoms; :func:`warn_few_misranked_ap` appends the warning's
message.  The threshold is calibrated in ``scripts/ap_misranked_study.py``
(``scripts/data/ap_misranked_study.json``; docs/validation.md, last section).

Session 12 (apshort) adds the near-top rule (:func:`few_positives_near_top_rule`): an
estimate above 0.9 from 10-49 positives, where ``auto`` keeps BCa and its coverage rests
on score tails the test set rarely shows (``scripts/ap_short_study.py``; docs/validation.md,
"Average precision at 0.8-0.9 with heavy-tailed scores (session 12, apshort)").
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..exceptions import NearBoundWarning
from ..feedback import warn
from .ap_interval import AP_LOGIT_NEAR, MIN_AP_LOGIT_POSITIVES_NEAR
from .auc_misranked import misranked_counts

#: fewer positives outranked by some negative than this (with AP above
#: ``MIN_ESTIMATE``): BCa covered 0.25-0.92 of such test sets in the study, and 0.94-0.97
#: (none warned) where more positives were misranked
MIN_MISRANKED_POSITIVES = 120
#: the rule's range: AP's logit jackknife rule (engine/ap_interval.py) covers up to 0.96
MIN_ESTIMATE = 0.96
#: and at least this many positives: with fewer, the few-class and edge rules of
#: ``engine/auto.py`` speak (the study drew 170-2,100 positives a test set)
MIN_POSITIVES = 20


#: the near-top rule (session 12, apshort): an estimate above ``AP_LOGIT_NEAR`` (0.9) from
#: fewer than ``MIN_AP_LOGIT_POSITIVES_NEAR`` (50) positives, where ``auto`` keeps BCa
#: (engine/ap_interval.py) and the interval rests on score tails the test set does not
#: show: t(3) scores at a population AP of 0.8 with 20 positives, ``auto`` covered 0.827,
#: its misses estimates of 0.93-1 (``scripts/ap_short_study.py``)
NEAR_TOP_ESTIMATE = AP_LOGIT_NEAR
#: ... and at least this many positives (below, ``engine/auto.py``'s few-positive rule)
MIN_NEAR_TOP_POSITIVES = 10


def misranked_positive_diagnostics(kernel: Any, counts: np.ndarray) -> dict[str, Any]:
    """The number of positives scored at or below the highest negative score.

    Parameters
    ----------
    kernel : object
        A ranking kernel with sorted unique scores ``u_neg`` and ``u_pos`` and ``m_neg``
        negative atoms first (``metrics.ranking``); other kernels give ``{}``.
    counts : numpy.ndarray
        The samples of each atom (``np.bincount`` of the kernel's keys).

    Returns
    -------
    dict
        ``{"misranked_positives": int}``, or ``{}`` when the kernel has no scores.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci.metrics.ranking import AveragePrecisionKernel
    >>> y, s = np.array([0, 0, 1, 1, 1]), np.array([0.1, 0.6, 0.5, 0.7, 0.9])
    >>> k = AveragePrecisionKernel(y, s)
    >>> misranked_positive_diagnostics(k, np.bincount(k.keys, minlength=k.m))
    {'misranked_positives': 1}
    """
    u_neg, u_pos, m_neg = (getattr(kernel, a, None) for a in ("u_neg", "u_pos", "m_neg"))
    if u_neg is None or u_pos is None or m_neg is None:
        return {}
    counts = np.asarray(counts)
    present = np.flatnonzero(counts[:m_neg] > 0)
    if present.size == 0:
        return {}
    # the ROC AUC's count of the same (engine/auc_misranked.py), its positives' half
    mis_pos, _ = misranked_counts(u_neg, counts[:m_neg], u_pos, counts[m_neg:])
    return {"misranked_positives": mis_pos}


def few_misranked_ap_rule(estimate: float | None, misranked: int | None) -> bool:
    """Whether average precision ``estimate`` rests on fewer than
    :data:`MIN_MISRANKED_POSITIVES` misranked positives (AP above :data:`MIN_ESTIMATE`).

    Examples
    --------
    >>> few_misranked_ap_rule(0.99992, 40), few_misranked_ap_rule(0.95, 3)
    (True, False)
    """
    return (
        estimate is not None
        and misranked is not None
        and estimate > MIN_ESTIMATE
        and misranked < MIN_MISRANKED_POSITIVES
    )


def few_positives_near_top_rule(estimate: float | None, n_pos: int | None) -> bool:
    """Whether an average precision ``estimate`` above :data:`NEAR_TOP_ESTIMATE` rests on
    :data:`MIN_NEAR_TOP_POSITIVES` to ``MIN_AP_LOGIT_POSITIVES_NEAR - 1`` positives (the
    near-top rule; session 12).

    Examples
    --------
    >>> few_positives_near_top_rule(0.93, 25), few_positives_near_top_rule(0.9, 25)
    (True, False)
    >>> few_positives_near_top_rule(0.93, 50), few_positives_near_top_rule(0.93, 9)
    (False, False)
    """
    return (
        estimate is not None
        and n_pos is not None
        and bool(np.isfinite(estimate))
        and estimate > NEAR_TOP_ESTIMATE
        and MIN_NEAR_TOP_POSITIVES <= n_pos < MIN_AP_LOGIT_POSITIVES_NEAR
    )


def _near_top_found(est: float, n_pos: int) -> str:
    return (
        f"Average precision of {est:.6g} from {n_pos} positives (fewer than "
        f"{MIN_AP_LOGIT_POSITIVES_NEAR}, above {NEAR_TOP_ESTIMATE:g}): the interval rests on "
        "the tails of the score distributions, which a test set this size rarely shows, "
        "and in mlci's study (docs/validation.md, 'Average precision at 0.8-0.9 with "
        "heavy-tailed scores') it fell short there: with t(3) scores at a population AP of "
        "0.8 and about 20 positives BCa covered 0.83, its misses estimates of 0.93-1"
    )


def warn_few_misranked_ap(
    diag: dict[str, Any], method: str | None = None, before: Any = (), system: Any = None
) -> str | None:
    """Warn (:class:`~mlci.exceptions.NearBoundWarning`) and return the message where
    :func:`few_misranked_ap_rule` holds for ``diag``'s ``estimate`` and
    ``misranked_positives``, with at least :data:`MIN_POSITIVES` positives, or else
    :func:`few_positives_near_top_rule` for its ``estimate`` and ``n_positive`` (the
    near-top rule, session 12); ``before``: earlier messages put first; ``system``: the
    name of :func:`mlci.compare`'s system.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     diag = {"estimate": 0.9999, "misranked_positives": 40, "n_positive": 900}
    ...     text = warn_few_misranked_ap(diag, "bca")
    >>> text.split(" whose")[0], w[0].category.__name__
    ('Average precision of 0.9999', 'NearBoundWarning')
    >>> warn_few_misranked_ap({**diag, "estimate": 0.95}) is None
    True
    """
    est, mis = diag.get("estimate"), diag.get("misranked_positives")
    n_pos = diag.get("n_positive", 0)
    if n_pos < MIN_POSITIVES or not few_misranked_ap_rule(est, mis):
        if est is None or np.ndim(est) != 0 or not few_positives_near_top_rule(est, n_pos):
            return None
        found = _near_top_found(float(est), int(n_pos))
        return _warn_ap(found, method, before, system)
    found = (
        f"Average precision of {est:.6g} whose error rests on {mis} positives outranked "
        f"by some negative (fewer than {MIN_MISRANKED_POSITIVES}, above AP {MIN_ESTIMATE:g}): "
        "the bootstrap's spread follows how many such positives the test set holds, and "
        "in mlci's search (docs/validation.md, 'Average precision near 1 with few "
        "misranked positives') no interval held its level there (BCa covered 0.25-0.92 "
        "of such test sets, 0.85 at 1 - AP = 8e-5 with 1,800 positives)"
    )
    return _warn_ap(found, method, before, system)


def _warn_ap(found: str, method: str | None, before: Any, system: Any) -> str:
    which = f"The {method} interval" if method else "The interval"
    if system is not None:
        found = f"System {system!r}: {found}"
    text = (
        "; ".join([*before, found])
        + f". {which} of average precision may not keep its confidence level: treat it as "
        "optimistic, or collect more data."
    )
    warn(text, NearBoundWarning)
    return text
