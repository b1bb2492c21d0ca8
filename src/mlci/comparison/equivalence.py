"""Non-inferiority and equivalence for the classical paired tests.

:func:`paired_margin_test`
    Paired t on per-unit scores (folds, data sets, chunks): the two one-sided tests of
    Schuirmann (1987) on the mean difference, equal to statsmodels' ``ttost_paired``.
:func:`mcnemar_margin_test`
    Accuracy of two classifiers on the same samples (a 2x2 paired table), the difference
    of paired proportions ``p_A - p_B = (b - c) / n`` against a margin: the score test of
    Nam (1997) and Tango (1998) (``variant="score"``, with the Tango score interval), or
    the exact conditional binomial test on the discordant pairs (``variant="exact"``).

References
----------
- Schuirmann, D. J. (1987). *J. Pharmacokinet. Biopharm.* 15, 657-680.
- Nam, J. (1997). Establishing equivalence of two treatments and sample size
  requirements in matched-pairs design. *Biometrics* 53, 1422-1430.
- Tango, T. (1998). Equivalence test and confidence interval for the difference in
  proportions for the paired-sample design. *Statistics in Medicine* 17, 891-908.
- Liu, J., Hsueh, H., Hsieh, E. & Chen, J. J. (2002). Tests for equivalence or
  non-inferiority for paired binary data. *Statistics in Medicine* 21, 231-245.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from ..classical.checks import number_array
from ..classical.proportions import paired_proportion_diff_ci
from ..classical.significance import mcnemar_test
from ..inputs import check_choice, check_confidence_level
from .margins import MarginTest, build, check_margin

__all__ = ["mcnemar_margin_test", "paired_margin_test", "tango_statistic"]


def _scores(name: str, x: Any) -> np.ndarray:
    return number_array(name, x, ndim=(1,), what="scores")


def _direction(higher_is_better: Any) -> bool:
    if not isinstance(higher_is_better, bool | np.bool_):
        raise TypeError(f"`higher_is_better` must be True or False; got {higher_is_better!r}.")
    return bool(higher_is_better)


def paired_margin_test(
    scores_a: Any,
    scores_b: Any,
    *,
    margin: float,
    confidence_level: float = 0.95,
    higher_is_better: bool = True,
) -> MarginTest:
    """Non-inferiority and equivalence (TOST) of paired scores with the paired t test.

    The differences ``d_i = a_i - b_i`` of ``n`` units (folds, data sets, chunks of a
    test set) are treated as independent: ``t = (mean(d) - theta0) / (sd(d) / sqrt(n))``
    with ``n - 1`` degrees of freedom, at ``theta0 = -margin`` (H1: ``d > -margin``) and
    ``theta0 = margin`` (H1: ``d < margin``).  For cross-validation folds, which are not
    independent, see :func:`mlci.correlated_bayesian_ttest` or
    :func:`mlci.corrected_resampled_ttest`.

    Parameters
    ----------
    scores_a, scores_b : array_like, shape (n,)
        The two systems' scores on the same units.
    margin : float
        ``delta > 0``, on the scores' scale.
    confidence_level : float, default 0.95
        ``1 - alpha``: the tests are at level ``alpha`` and the interval is the two-sided
        ``1 - 2 alpha`` interval.
    higher_is_better : bool, default True
        Non-inferiority of A is ``H0: d <= -margin`` when higher scores are better,
        ``H0: d >= margin`` otherwise.

    Returns
    -------
    MarginTest

    Examples
    --------
    >>> import mlci
    >>> a = [0.81, 0.79, 0.84, 0.80, 0.83, 0.82]
    >>> b = [0.80, 0.80, 0.82, 0.81, 0.82, 0.80]
    >>> r = mlci.paired_margin_test(a, b, margin=0.03)
    >>> r.noninferior, r.equivalent, round(r.pvalue_equivalence, 5)
    (True, True, 0.00431)
    """
    a = _scores("scores_a", scores_a)
    b = _scores("scores_b", scores_b)
    if a.shape != b.shape:
        raise ValueError(
            f"`scores_a` and `scores_b` must have the same length (paired); got {a.size} "
            f"and {b.size}."
        )
    if a.size < 2:
        raise ValueError(f"`scores_a` and `scores_b` need at least 2 pairs; got {a.size}.")
    delta = check_margin(margin)
    level = check_confidence_level(confidence_level)
    if level <= 0.5:
        raise ValueError(
            f"`confidence_level` must exceed 0.5 for a margin test (its interval has level "
            f"2 * confidence_level - 1); got {level}."
        )
    hib = _direction(higher_is_better)
    d = a - b
    n = d.size
    mean = float(d.mean())
    se = float(d.std(ddof=1) / np.sqrt(n))
    df = n - 1
    if se > 0:
        p_lo = float(stats.t.sf((mean + delta) / se, df))
        p_hi = float(stats.t.cdf((mean - delta) / se, df))
    else:  # every difference equal: decided by where the mean lies
        p_lo = float(mean <= -delta)
        p_hi = float(mean >= delta)
    q = float(stats.t.ppf(level, df))
    return build(
        a="a",
        b="b",
        estimate=mean,
        margin=delta,
        higher_is_better=hib,
        p_lower=p_lo,
        p_upper=p_hi,
        interval=(mean - q * se, mean + q * se),
        confidence_level=level,
        method=f"paired t ({df} df), two one-sided tests",
        details={"standard_error": se, "df": df, "n": n},
    )


# --------------------------------------------------------------------------- McNemar
def _table(table: Any, y_true: Any, y_pred_a: Any, y_pred_b: Any) -> np.ndarray:
    """``[[., b], [c, .]]`` with the total ``n``, validated by :func:`mlci.mcnemar_test`."""
    if table is None and y_true is None and y_pred_a is None and y_pred_b is None:
        raise ValueError("Pass `table`, or all of `y_true`, `y_pred_a` and `y_pred_b`.")
    d = mcnemar_test(table, y_true=y_true, y_pred_a=y_pred_a, y_pred_b=y_pred_b).details
    if d["n"] == 0:
        raise ValueError("`table` is empty (all counts are 0).")
    b, c = float(d["b"]), float(d["c"])
    return np.array([[d["n"] - b - c, b], [c, 0.0]])


def tango_statistic(b: float, c: float, n: float, delta0: float) -> float:
    """Score statistic of ``H0: p_A - p_B = delta0`` (Nam 1997; Tango 1998, eq. 3).

    ``Z = (b - c - n delta0) / sqrt(n (2 p21 + delta0 (1 - delta0)))`` with ``p21`` the
    maximum-likelihood estimate of ``P(only B right)`` under H0, the root of
    ``2n x^2 + (-b - c + (2n - b + c) delta0) x - c delta0 (1 - delta0) = 0``.
    """
    A = 2.0 * n
    B = -b - c + (2.0 * n - b + c) * delta0
    C = -c * delta0 * (1.0 - delta0)
    p21 = (-B + np.sqrt(max(B * B - 4.0 * A * C, 0.0))) / (2.0 * A)
    var = n * (2.0 * p21 + delta0 * (1.0 - delta0))
    num = b - c - n * delta0
    if var <= 0:
        return 0.0 if num == 0 else float(np.sign(num) * np.inf)
    return float(num / np.sqrt(var))


def _binom_upper(k: int, m: int, p0: float) -> float:
    """``P(X >= k)`` for ``X ~ Binomial(m, p0)``, ``p0`` clipped to [0, 1]."""
    return float(stats.binom.sf(k - 1, m, min(max(p0, 0.0), 1.0)))


def mcnemar_margin_test(
    table: Any = None,
    *,
    y_true: Any = None,
    y_pred_a: Any = None,
    y_pred_b: Any = None,
    margin: float,
    variant: str = "score",
    confidence_level: float = 0.95,
) -> MarginTest:
    """Non-inferiority and equivalence of two classifiers' accuracies on the same samples.

    With ``b`` = right by A only, ``c`` = right by B only, ``n`` samples, the difference
    is ``d = p_A - p_B``, estimated by ``(b - c) / n``.  Non-inferiority of A:
    ``H0: d <= -margin``; equivalence: ``H0: |d| >= margin`` (two one-sided tests).

    Parameters
    ----------
    table : array_like, shape (2, 2), optional
        ``[[both right, only A right], [only B right, both wrong]]``
        (:func:`mlci.paired_table`).
    y_true, y_pred_a, y_pred_b : array_like, optional
        Labels and the two systems' predictions, instead of ``table``.
    margin : float
        ``delta`` in (0, 1), on the accuracy scale (0.02 for two points).
    variant : {"score", "exact"}, default "score"
        ``"score"``: the asymptotic score test of Nam (1997) and Tango (1998) (the
        restricted maximum-likelihood variance under each null), with Tango's score
        interval (the test inverted) as the ``1 - 2 alpha`` interval; recommended by
        Tango (1998) and Liu et al. (2002) down to small samples.
        ``"exact"``: the exact conditional test: given the ``m = b + c`` discordant
        pairs, ``b ~ Binomial(m, pi)`` and ``d = (2 pi - 1) m / n`` with the discordance
        rate fixed at its estimate ``m / n``; ``H0: d <= -margin`` is
        ``pi <= (1 - margin n / m) / 2``.  Exact given the discordance, but it ignores
        that the discordance is estimated (Liu et al. 2002).  With no discordant pair
        its p-values are 1.  Its interval is Tango's.
    confidence_level : float, default 0.95
        ``1 - alpha``.

    Returns
    -------
    MarginTest
        ``details`` hold ``b``, ``c``, ``n`` and the statistics.

    Examples
    --------
    >>> import mlci
    >>> r = mlci.mcnemar_margin_test([[420, 18], [22, 40]], margin=0.05)
    >>> r.noninferior, r.equivalent, round(r.estimate, 3)
    (True, True, -0.008)
    """
    variant = check_choice("variant", variant, ("score", "exact"))
    delta = check_margin(margin, upper=1.0)
    level = check_confidence_level(confidence_level)
    if level <= 0.5:
        raise ValueError(f"`confidence_level` must exceed 0.5 for a margin test; got {level}.")
    t = _table(table, y_true, y_pred_a, y_pred_b)
    n = float(t.sum())
    b, c = float(t[0, 1]), float(t[1, 0])
    m = int(b + c)
    z_lo = tango_statistic(b, c, n, -delta)
    z_hi = tango_statistic(b, c, n, delta)
    details: dict[str, Any] = {"b": int(b), "c": int(c), "n": int(n), "variant": variant}
    if variant == "score":
        p_lo, p_hi = float(stats.norm.sf(z_lo)), float(stats.norm.cdf(z_hi))
        details.update(z_lower=z_lo, z_upper=z_hi)
        method = "Tango score test (Nam 1997; Tango 1998), two one-sided tests"
    else:
        if m == 0:
            p_lo = p_hi = 1.0
            pi_lo = pi_hi = float("nan")
        else:
            pi_lo = (1.0 - delta * n / m) / 2.0
            pi_hi = (1.0 + delta * n / m) / 2.0
            p_lo = _binom_upper(int(b), m, pi_lo)  # H1: pi > pi_lo
            p_hi = float(stats.binom.cdf(int(b), m, min(max(pi_hi, 0.0), 1.0)))
        details.update(pi_lower=pi_lo, pi_upper=pi_hi, n_discordant=m)
        method = "exact conditional binomial on the discordant pairs, two one-sided tests"
    # Tango's score interval at 1 - 2 alpha (mlci.paired_proportion_diff_ci)
    interval = paired_proportion_diff_ci(
        [[n - b - c, b], [c, 0.0]], method="tango", confidence_level=2.0 * level - 1.0
    ).confidence_interval
    return build(
        a="a",
        b="b",
        estimate=(b - c) / n,
        margin=delta,
        higher_is_better=True,
        p_lower=p_lo,
        p_upper=p_hi,
        interval=interval,
        confidence_level=level,
        method=method,
        details={**details, "interval_method": "Tango score interval"},
    )
