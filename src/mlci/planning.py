"""Planning a test set: sample sizes and power.

Each function returns a :class:`PlanResult` holding the number (``n_samples`` or
``power``) and, in plain words, the assumption it rests on (``assumptions``).

- :func:`sample_size_proportion`: test samples for an interval of a given width on an
  accuracy-like proportion (Wald or Wilson interval).
- :func:`sample_size_mcnemar` / :func:`power_mcnemar`: detecting a given difference in
  accuracy between two systems on the same test set (Connor 1987).
- :func:`sample_size_auc`: positives and negatives for a ROC AUC interval of a given
  width, or to show an AUC exceeds a reference value (Hanley & McNeil 1982, 1983;
  as in Obuchowski 1998).

References
----------
- Connor, R. J. (1987). Sample size for testing differences in proportions for the
  paired-sample design. *Biometrics* 43, 207–211.
- Hanley, J. A. & McNeil, B. J. (1982). The meaning and use of the area under a
  receiver operating characteristic (ROC) curve. *Radiology* 143, 29–36.
- Obuchowski, N. A. (1998). Sample size calculations in studies of test accuracy.
  *Statistical Methods in Medical Research* 7, 371–392.
- Newcombe, R. G. (1998a). Two-sided confidence intervals for the single proportion.
  *Statistics in Medicine* 17, 857–872.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from ._validation import check_choice, check_confidence_level
from .auc_analytic import hanley_mcneil_se
from .results import _plain

__all__ = [
    "PlanResult",
    "power_mcnemar",
    "sample_size_auc",
    "sample_size_mcnemar",
    "sample_size_proportion",
]


@dataclass(frozen=True, kw_only=True, repr=False)
class PlanResult:
    """A sample size or a power, with the assumptions behind it.

    Attributes
    ----------
    n_samples : int or None
        Number of test samples needed (for AUC: positives + negatives).
    power : float or None
        Probability of detecting the effect.
    method : str
        The formula used.
    assumptions : str
        What the number assumes, in words.
    details : Mapping
        Inputs and intermediate quantities (e.g. ``n_positive``, ``n_negative``).
    """

    n_samples: int | None = None
    power: float | None = None
    method: str
    assumptions: str
    details: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        parts = []
        if self.n_samples is not None:
            parts.append(f"n_samples={self.n_samples}")
        if self.power is not None:
            parts.append(f"power={self.power:.4g}")
        parts.append(f"method={self.method!r}")
        return f"PlanResult({', '.join(parts)})"

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain Python values."""
        return {f.name: _plain(getattr(self, f.name)) for f in dataclasses.fields(self)}


def _check_prob(name: str, x: Any, *, open_low: bool = True, open_high: bool = True) -> float:
    if isinstance(x, bool) or not isinstance(x, int | float | np.floating | np.integer):
        raise TypeError(f"`{name}` must be a number; got {x!r}.")
    v = float(x)
    lo_ok = v > 0 if open_low else v >= 0
    hi_ok = v < 1 if open_high else v <= 1
    if not (math.isfinite(v) and lo_ok and hi_ok):
        lo = "(0" if open_low else "[0"
        hi = "1)" if open_high else "1]"
        raise ValueError(f"`{name}` must lie in {lo}, {hi}; got {x!r}.")
    return v


def _check_power(power: Any) -> float:
    return _check_prob("power", power)


def _smallest_n(ok, start: int = 1, limit: int = 10**9) -> int:
    """Smallest integer n >= start with ok(n) True, for ok monotone in n."""
    if ok(start):
        return start
    hi = start * 2
    while not ok(hi):
        if hi > limit:
            raise ValueError("The requested precision needs more than 10⁹ samples.")
        hi *= 2
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


# ----------------------------------------------------------------------------------------
# one proportion
# ----------------------------------------------------------------------------------------
def sample_size_proportion(
    width: float,
    *,
    expected: float = 0.5,
    confidence_level: float = 0.95,
    method: str = "wilson",
) -> PlanResult:
    """Test samples needed for a confidence interval of a given total width.

    Parameters
    ----------
    width : float in (0, 1)
        Desired total width (high − low) of the two-sided interval, e.g. 0.04 for
        "accuracy ± 2 points".
    expected : float in [0, 1], default 0.5
        The proportion you expect (e.g. accuracy 0.9).  0.5 is the worst case.
    confidence_level : float, default 0.95
    method : {"wilson", "wald"}, default "wilson"
        ``"wald"``: ``n = z² p(1-p) / (width/2)²`` (the textbook formula; too small
        near 0 or 1).  ``"wilson"``: the smallest n for which the Wilson interval at
        ``k = expected·n`` is no wider than ``width``.

    Returns
    -------
    PlanResult
        ``n_samples``; the interval achieved is in ``details``.

    Examples
    --------
    >>> sample_size_proportion(0.1, expected=0.5, method="wald").n_samples
    385
    >>> sample_size_proportion(0.04, expected=0.9).n_samples
    868
    """
    width = _check_prob("width", width)
    expected = _check_prob("expected", expected, open_low=False, open_high=False)
    confidence_level = check_confidence_level(confidence_level)
    method = check_choice("method", method, ("wilson", "wald"))
    z = float(stats.norm.ppf(1 - (1 - confidence_level) / 2))
    p = expected
    if method == "wald":
        if p in (0.0, 1.0):
            raise ValueError(
                "`expected` of 0 or 1 gives a Wald interval of zero width for any n; use "
                "`method`='wilson'."
            )
        n = math.ceil(z * z * p * (1 - p) / (width / 2) ** 2 - 1e-9)
        achieved = 2 * z * math.sqrt(p * (1 - p) / n)
    else:

        def wilson_width(n: int) -> float:
            denom = 1 + z * z / n
            return 2 * z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))

        n = _smallest_n(lambda n: wilson_width(n) <= width)
        achieved = wilson_width(n)
    assumptions = (
        f"Samples are independent and each is a success with probability {p:g} (the "
        f"expected proportion); the {method} interval at {confidence_level:g} then has "
        f"width {achieved:.4g} <= {width:g}. If the true proportion is closer to 0.5 the "
        f"interval is wider; if test samples are clustered (same speaker, patient, ...) "
        f"more samples are needed (multiply by the design effect)."
    )
    return PlanResult(
        n_samples=int(n),
        method=f"proportion-{method}",
        assumptions=assumptions,
        details={"width": width, "achieved_width": achieved, "expected": p, "z": z,
                 "confidence_level": confidence_level},
    )  # fmt: skip


# ----------------------------------------------------------------------------------------
# McNemar (Connor 1987)
# ----------------------------------------------------------------------------------------
def _mcnemar_inputs(difference, discordance):
    d = float(difference)
    if not math.isfinite(d) or d == 0 or abs(d) >= 1:
        raise ValueError(
            f"`difference` (accuracy of A minus accuracy of B) must be non-zero and in "
            f"(-1, 1); got {difference!r}."
        )
    psi = _check_prob("discordance", discordance, open_high=False)
    if psi < abs(d):
        raise ValueError(
            f"`discordance` (share of samples on which exactly one system is right) must be "
            f"at least |`difference`| = {abs(d):g}; got {psi:g}."
        )
    return abs(d), psi


def _connor_power(n, d, psi, alpha, two_sided):
    z_a = stats.norm.ppf(1 - alpha / 2 if two_sided else 1 - alpha)
    var1 = psi - d * d
    if var1 <= 0:
        return 1.0
    sd1 = math.sqrt(var1)
    power = stats.norm.cdf((d * math.sqrt(n) - z_a * math.sqrt(psi)) / sd1)
    if two_sided:  # rejecting in the wrong direction also counts (negligible in practice)
        power += stats.norm.cdf((-d * math.sqrt(n) - z_a * math.sqrt(psi)) / sd1)
    return float(power)


def _mcnemar_assumptions(d, psi, alpha, two_sided):
    side = "two-sided" if two_sided else "one-sided"
    return (
        f"Samples are independent; system A is right and B wrong on a share "
        f"{(psi + d) / 2:g} of them, B right and A wrong on {(psi - d) / 2:g} (discordance "
        f"{psi:g}, accuracy difference {d:g}); {side} asymptotic McNemar test at level "
        f"{alpha:g}; Connor's (1987) normal approximation. The discordance is the key "
        f"unknown: estimate it from a pilot run, since the n needed grows with it."
    )


def sample_size_mcnemar(
    difference: float,
    discordance: float,
    *,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> PlanResult:
    """Test samples needed to detect an accuracy difference with McNemar's test.

    Connor (1987): ``n = (z_α sqrt(ψ) + z_β sqrt(ψ - δ²))² / δ²`` with ``δ`` the
    difference in accuracy and ``ψ`` the discordance (share of samples where exactly
    one of the two systems is right).

    Parameters
    ----------
    difference : float
        Accuracy of A minus accuracy of B to detect (sign irrelevant), e.g. 0.02.
    discordance : float in (0, 1]
        Expected share of discordant samples, at least ``|difference|``.
    power : float, default 0.8
    alpha : float, default 0.05
    alternative : {"two-sided", "one-sided"}, default "two-sided"

    Returns
    -------
    PlanResult

    Examples
    --------
    >>> sample_size_mcnemar(0.05, 0.15).n_samples
    469
    """
    d, psi = _mcnemar_inputs(difference, discordance)
    power = _check_power(power)
    alpha = _check_prob("alpha", alpha)
    alternative = check_choice("alternative", alternative, ("two-sided", "one-sided"))
    two = alternative == "two-sided"
    z_a = stats.norm.ppf(1 - alpha / 2 if two else 1 - alpha)
    z_b = stats.norm.ppf(power)
    n = math.ceil((z_a * math.sqrt(psi) + z_b * math.sqrt(psi - d * d)) ** 2 / d**2 - 1e-9)
    return PlanResult(
        n_samples=int(n),
        power=_connor_power(n, d, psi, alpha, two),
        method="mcnemar-connor",
        assumptions=_mcnemar_assumptions(d, psi, alpha, two),
        details={"difference": d, "discordance": psi, "alpha": alpha, "target_power": power,
                 "expected_discordant_pairs": n * psi},
    )  # fmt: skip


def power_mcnemar(
    n_samples: int,
    difference: float,
    discordance: float,
    *,
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> PlanResult:
    """Power of McNemar's test to detect an accuracy difference (Connor 1987).

    Parameters
    ----------
    n_samples : int
        Size of the test set.
    difference, discordance, alpha, alternative
        As in :func:`sample_size_mcnemar`.

    Returns
    -------
    PlanResult
        ``power``.

    Examples
    --------
    >>> round(power_mcnemar(1000, 0.02, 0.1).power, 3)
    0.516
    """
    from ._validation import check_positive_int

    n = check_positive_int("n_samples", n_samples)
    d, psi = _mcnemar_inputs(difference, discordance)
    alpha = _check_prob("alpha", alpha)
    alternative = check_choice("alternative", alternative, ("two-sided", "one-sided"))
    two = alternative == "two-sided"
    return PlanResult(
        n_samples=n,
        power=_connor_power(n, d, psi, alpha, two),
        method="mcnemar-connor",
        assumptions=_mcnemar_assumptions(d, psi, alpha, two),
        details={"difference": d, "discordance": psi, "alpha": alpha},
    )


# ----------------------------------------------------------------------------------------
# ROC AUC (Hanley & McNeil)
# ----------------------------------------------------------------------------------------
def sample_size_auc(
    auc: float,
    *,
    width: float | None = None,
    auc_null: float | None = None,
    ratio: float = 1.0,
    confidence_level: float = 0.95,
    power: float = 0.8,
    alpha: float = 0.05,
) -> PlanResult:
    """Positives and negatives needed for a ROC AUC study (Hanley–McNeil variance).

    Two questions, pick one:

    - ``width``: the two-sided interval ``AUC ± z·SE`` should be no wider than ``width``.
    - ``auc_null``: a one-sided test of ``AUC = auc_null`` against the expected ``auc``
      should have the given ``power`` at level ``alpha``:
      ``z_α SE(auc_null) + z_β SE(auc) <= |auc - auc_null|`` (Obuchowski 1998, with the
      Hanley–McNeil variance).

    Parameters
    ----------
    auc : float in (0, 1)
        The AUC you expect.
    width : float, optional
        Desired total width of the interval.
    auc_null : float, optional
        Reference AUC to beat (e.g. 0.5, or the current system's AUC).
    ratio : float, default 1.0
        Negatives per positive in the test set.
    confidence_level : float, default 0.95
        For ``width``.
    power, alpha : float
        For ``auc_null``.

    Returns
    -------
    PlanResult
        ``n_samples`` (positives + negatives); ``details["n_positive"]`` and
        ``details["n_negative"]``.

    Examples
    --------
    >>> r = sample_size_auc(0.85, width=0.1)
    >>> r.details["n_positive"], r.details["n_negative"]
    (117, 117)
    """
    auc = _check_prob("auc", auc)
    if (width is None) == (auc_null is None):
        raise ValueError("Pass exactly one of `width` (interval planning) and `auc_null` "
                         "(test planning).")  # fmt: skip
    if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not ratio > 0:
        raise ValueError(f"`ratio` (negatives per positive) must be a positive number; "
                         f"got {ratio!r}.")  # fmt: skip
    ratio = float(ratio)

    def sizes(m: int) -> tuple[int, int]:
        return m, max(1, math.ceil(ratio * m - 1e-9))

    def se(a: float, m: int) -> float:
        mp, mn = sizes(m)
        return float(hanley_mcneil_se(a, mp, mn))

    if width is not None:
        width = _check_prob("width", width)
        confidence_level = check_confidence_level(confidence_level)
        z = float(stats.norm.ppf(1 - (1 - confidence_level) / 2))
        m = _smallest_n(lambda m: 2 * z * se(auc, m) <= width, start=2)
        method = "auc-hanley-mcneil-width"
        what = (f"the {confidence_level:g} interval AUC ± z·SE then has width "
                f"{2 * z * se(auc, m):.4g} <= {width:g}")  # fmt: skip
        extra: dict[str, Any] = {"width": width, "confidence_level": confidence_level}
    else:
        auc_null = _check_prob("auc_null", auc_null)
        if auc_null == auc:
            raise ValueError("`auc_null` must differ from `auc`.")
        power = _check_power(power)
        alpha = _check_prob("alpha", alpha)
        z_a = float(stats.norm.ppf(1 - alpha))
        z_b = float(stats.norm.ppf(power))
        gap = abs(auc - auc_null)
        m = _smallest_n(lambda m: z_a * se(auc_null, m) + z_b * se(auc, m) <= gap, start=2)
        method = "auc-hanley-mcneil-test"
        what = (f"a one-sided z-test of AUC = {auc_null:g} at level {alpha:g} then has power "
                f">= {power:g}")  # fmt: skip
        extra = {"auc_null": auc_null, "alpha": alpha, "target_power": power}
    mp, mn = sizes(m)
    assumptions = (
        f"Expected AUC {auc:g}; {mn} negatives for {mp} positives (ratio {ratio:g}); "
        f"independent samples; Hanley & McNeil's (1982) variance, exact for exponential "
        f"score distributions and close for binormal ones; {what}. Correlated samples "
        f"(several per patient/speaker) need more."
    )
    return PlanResult(
        n_samples=mp + mn,
        method=method,
        assumptions=assumptions,
        details={"auc": auc, "n_positive": mp, "n_negative": mn, "ratio": ratio, **extra},
    )
