"""Planning a test set: sample sizes and power.

Each function returns a :class:`PlanResult` holding the number (``n_samples`` or
``power``) and, in plain words, the assumption it rests on (``assumptions``).

- :func:`sample_size_proportion`: test samples for an interval of a given width on an
  accuracy-like proportion (Wald or Wilson interval).
- :func:`sample_size_mcnemar` / :func:`power_mcnemar`: detecting a given difference in
  accuracy between two systems on the same test set (Connor 1987).
- :func:`sample_size_auc` / :func:`power_auc`: positives and negatives for a ROC AUC
  interval of a given width, or to show an AUC exceeds a reference value (Hanley &
  McNeil 1982; the test as formulated by Obuchowski 1998).
- :func:`sample_size_auc_difference` / :func:`power_auc_difference`: detecting a
  difference between two AUCs, measured on the same samples (correlated AUCs; Hanley &
  McNeil 1983, Obuchowski & McClish 1997) or on independent test sets.

References
----------
- Connor, R. J. (1987). Sample size for testing differences in proportions for the
  paired-sample design. *Biometrics* 43, 207–211.
- Hanley, J. A. & McNeil, B. J. (1982). The meaning and use of the area under a
  receiver operating characteristic (ROC) curve. *Radiology* 143, 29–36.
- Hanley, J. A. & McNeil, B. J. (1983). A method of comparing the areas under receiver
  operating characteristic curves derived from the same cases. *Radiology* 148, 839–843.
- Obuchowski, N. A. & McClish, D. K. (1997). Sample size determination for diagnostic
  accuracy studies involving binormal ROC curve indices. *Statistics in Medicine* 16,
  1529–1542.
- Obuchowski, N. A. (1998). Sample size calculations in studies of test accuracy.
  *Statistical Methods in Medical Research* 7, 371–392.
- Newcombe, R. G. (1998a). Two-sided confidence intervals for the single proportion.
  *Statistics in Medicine* 17, 857–872.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from ..inputs import check_choice, check_confidence_level, check_flag, check_positive_int
from ..results import Result, plain
from .auc import hanley_mcneil_se
from .checks import check_sided

__all__ = [
    "PlanResult",
    "power_auc",
    "power_auc_difference",
    "power_mcnemar",
    "sample_size_auc",
    "sample_size_auc_difference",
    "sample_size_mcnemar",
    "sample_size_proportion",
]


@dataclass(frozen=True, kw_only=True, repr=False)
class PlanResult(Result):
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

    Examples
    --------
    >>> r = sample_size_mcnemar(0.05, discordance=0.15, power=0.8)
    >>> r
    PlanResult(n_samples=469, power=0.8004, method='mcnemar-connor')
    >>> r.to_frame()[["n_samples", "power", "difference", "discordance"]].round(4)
       n_samples   power  difference  discordance
    0        469  0.8004        0.05         0.15
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

    def rows(self) -> list[dict[str, Any]]:
        """One row: ``n_samples``, ``power``, ``method``, the ``details`` and the
        ``assumptions``."""
        row: dict[str, Any] = {"n_samples": self.n_samples, "power": self.power,
                               "method": self.method}  # fmt: skip
        row.update({k: plain(v) for k, v in self.details.items() if k not in row})
        row["assumptions"] = self.assumptions
        return [row]


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


def _effect(gap: float, alternative: str, h1: dict[str, str], observed: str) -> float:
    """The effect in the direction of H1: ``|gap|`` two-sided, ``±gap`` one-sided.

    ``gap`` is positive when the expected values favour ``"greater"``.  A one-sided H1
    that the expected effect contradicts is refused: its power would be below ``alpha``.
    """
    if alternative == "two-sided":
        return abs(gap)
    effect = gap if alternative == "greater" else -gap
    if effect <= 0:
        other = "less" if alternative == "greater" else "greater"
        raise ValueError(
            f"`alternative`={alternative!r} tests H1: {h1[alternative]}, but {observed}: such a "
            f"test has a power below `alpha` against it. Use `alternative`={other!r} (H1: "
            f"{h1[other]}) or 'two-sided'."
        )
    return effect


def _side_text(alternative: str, h1: dict[str, str]) -> str:
    if alternative == "two-sided":
        return "two-sided"
    return f"one-sided (H1: {h1[alternative]})"


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
_MCNEMAR_H1 = {
    "greater": "A more accurate than B",
    "less": "A less accurate than B",
}


def _mcnemar_inputs(difference, discordance, alpha, alternative):
    """Validated ``(signed difference, effect in the direction of H1, discordance, alpha,
    alternative)``."""
    if isinstance(difference, bool) or not isinstance(
        difference, int | float | np.integer | np.floating
    ):
        raise TypeError(f"`difference` must be a number; got {difference!r}.")
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
    alpha = _check_prob("alpha", alpha)
    alternative = check_sided(alternative, _MCNEMAR_H1["greater"])
    effect = _effect(d, alternative, _MCNEMAR_H1, f"`difference`={d:g} is negative"
                     if d < 0 else f"`difference`={d:g} is positive")  # fmt: skip
    return d, effect, psi, alpha, alternative


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


def _mcnemar_assumptions(d, psi, alpha, alternative):
    side = _side_text(alternative, _MCNEMAR_H1)
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
        Accuracy of A minus accuracy of B to detect, e.g. 0.02 (its sign matters only
        for a one-sided test).
    discordance : float in (0, 1]
        Expected share of discordant samples, at least ``|difference|``.
    power : float, default 0.8
    alpha : float, default 0.05
        Significance level of the test.
    alternative : {"two-sided", "less", "greater"}, default "two-sided"
        The alternative hypothesis of McNemar's test (as in :func:`mlci.mcnemar_test`):
        ``"greater"``: A is more accurate than B (``difference`` > 0); ``"less"``: A is
        less accurate (``difference`` < 0).  A one-sided hypothesis against the sign of
        ``difference`` is refused.

    Returns
    -------
    PlanResult

    Examples
    --------
    >>> sample_size_mcnemar(0.05, 0.15).n_samples
    469
    >>> sample_size_mcnemar(0.05, 0.15, alternative="greater").n_samples   # one-sided: H1 A > B
    369
    """
    d, effect, psi, alpha, alternative = _mcnemar_inputs(difference, discordance, alpha,
                                                         alternative)  # fmt: skip
    power = _check_power(power)
    two = alternative == "two-sided"
    z_a = stats.norm.ppf(1 - alpha / 2 if two else 1 - alpha)
    z_b = stats.norm.ppf(power)
    n = math.ceil((z_a * math.sqrt(psi) + z_b * math.sqrt(psi - effect**2)) ** 2 / effect**2 - 1e-9)
    return PlanResult(
        n_samples=int(n),
        power=_connor_power(n, effect, psi, alpha, two),
        method="mcnemar-connor",
        assumptions=_mcnemar_assumptions(d, psi, alpha, alternative),
        details={"difference": d, "discordance": psi, "alpha": alpha, "target_power": power,
                 "alternative": alternative, "expected_discordant_pairs": n * psi},
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
    n = check_positive_int("n_samples", n_samples)
    d, effect, psi, alpha, alternative = _mcnemar_inputs(difference, discordance, alpha,
                                                         alternative)  # fmt: skip
    return PlanResult(
        n_samples=n,
        power=_connor_power(n, effect, psi, alpha, alternative == "two-sided"),
        method="mcnemar-connor",
        assumptions=_mcnemar_assumptions(d, psi, alpha, alternative),
        details={"difference": d, "discordance": psi, "alpha": alpha,
                 "alternative": alternative},
    )  # fmt: skip


# ----------------------------------------------------------------------------------------
# ROC AUC (Hanley & McNeil)
# ----------------------------------------------------------------------------------------
_AUC_H1 = {"greater": "AUC > auc_null", "less": "AUC < auc_null"}
_DIFF_H1 = {"greater": "AUC of system 1 > AUC of system 2",
            "less": "AUC of system 1 < AUC of system 2"}  # fmt: skip


def _check_ratio(ratio: Any) -> float:
    if (
        isinstance(ratio, bool)
        or not isinstance(ratio, int | float | np.integer | np.floating)
        or not (math.isfinite(ratio) and ratio > 0)
    ):
        raise ValueError(f"`ratio` (negatives per positive) must be a positive number; "
                         f"got {ratio!r}.")  # fmt: skip
    return float(ratio)


def _check_auc(name: str, x: Any) -> float:
    """An AUC in [0.5, 1): below 0.5 the score ranks the wrong way round."""
    v = _check_prob(name, x)
    if v < 0.5:
        raise ValueError(
            f"`{name}` must lie in [0.5, 1); got {x!r}. An AUC below 0.5 means the score "
            f"ranks negatives above positives: negate the score and plan with 1 - AUC."
        )
    return v


def _sizes(m: int, ratio: float) -> tuple[int, int]:
    return m, max(1, math.ceil(ratio * m - 1e-9))


def _z_power(effect: float, se_null: float, se_alt: float, alpha: float, two_sided: bool) -> float:
    """Power of a z-test whose statistic has SE ``se_null`` under H0, when the estimate is
    N(effect, se_alt²) in the direction of H1 (Obuchowski 1998, eq. for n:
    z_α·SE₀ + z_β·SE₁ = effect); two-sided: ``effect`` = |gap| and both tails count."""
    z_a = float(stats.norm.ppf(1 - alpha / 2 if two_sided else 1 - alpha))
    power = stats.norm.cdf((effect - z_a * se_null) / se_alt)
    if two_sided:  # rejecting in the wrong direction also counts (negligible in practice)
        power += stats.norm.cdf((-effect - z_a * se_null) / se_alt)
    return float(power)


def _auc_ses(auc: float, auc_null: float, mp: int, mn: int) -> tuple[float, float]:
    """Hanley–McNeil SE of the AUC under H0 (AUC = auc_null) and under H1 (AUC = auc)."""
    return float(hanley_mcneil_se(auc_null, mp, mn)), float(hanley_mcneil_se(auc, mp, mn))


def _auc_effect(auc: float, auc_null: float, alternative: str) -> float:
    where = "below" if auc < auc_null else "above"
    return _effect(auc - auc_null, alternative, _AUC_H1,
                   f"the expected `auc`={auc:g} is {where} `auc_null`={auc_null:g}")  # fmt: skip


def sample_size_auc(
    auc: float,
    *,
    width: float | None = None,
    auc_null: float | None = None,
    ratio: float = 1.0,
    confidence_level: float = 0.95,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> PlanResult:
    """Positives and negatives needed for a ROC AUC study (Hanley–McNeil variance).

    Two questions, pick one:

    - ``width``: the two-sided interval ``AUC ± z·SE`` should be no wider than ``width``.
    - ``auc_null``: a test of ``AUC = auc_null`` against the expected ``auc`` should have
      the given ``power`` at level ``alpha``: ``z_α SE(auc_null) + z_β SE(auc) <=
      |auc - auc_null|`` one-sided, ``z_{α/2}`` two-sided (Obuchowski 1998, with the
      Hanley–McNeil variance under the null and under the alternative).  See
      :func:`power_auc` for the power at given sizes.

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
        For ``auc_null``: the power to reach and the significance level of the test.
    alternative : {"two-sided", "less", "greater"}, default "two-sided"
        For ``auc_null``: the alternative hypothesis of the test, ``"two-sided"`` for
        H1: AUC ≠ ``auc_null`` (the test mlci's AUC tests run by default, and pROC's
        ``power.roc.test`` default), ``"greater"`` for H1: AUC > ``auc_null`` (does the
        system beat the reference? a one-sided plan needs fewer samples, and is only
        right if the test run at the end is one-sided too), ``"less"`` for
        H1: AUC < ``auc_null``.  A one-sided hypothesis that the expected ``auc``
        contradicts is refused.

    Returns
    -------
    PlanResult
        ``n_samples`` (positives + negatives); ``details["n_positive"]`` and
        ``details["n_negative"]``.  For ``auc_null``, ``power`` is the power reached.

    Examples
    --------
    >>> r = sample_size_auc(0.85, width=0.1)
    >>> r.details["n_positive"], r.details["n_negative"]
    (117, 117)
    >>> sample_size_auc(0.7, auc_null=0.5).details["n_positive"]
    32
    >>> sample_size_auc(0.7, auc_null=0.5, alternative="greater").details["n_positive"]
    25
    """
    auc = _check_prob("auc", auc)
    if (width is None) == (auc_null is None):
        raise ValueError("Pass exactly one of `width` (interval planning) and `auc_null` "
                         "(test planning).")  # fmt: skip
    ratio = _check_ratio(ratio)
    confidence_level = check_confidence_level(confidence_level)
    power = _check_power(power)
    alpha = _check_prob("alpha", alpha)
    alternative = check_sided(alternative, _AUC_H1["greater"])

    def se(a: float, m: int) -> float:
        mp, mn = _sizes(m, ratio)
        return float(hanley_mcneil_se(a, mp, mn))

    reached = None
    if width is not None:
        width = _check_prob("width", width)
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
        effect = _auc_effect(auc, auc_null, alternative)
        two = alternative == "two-sided"

        def power_at(m: int) -> float:
            return _z_power(effect, se(auc_null, m), se(auc, m), alpha, two)

        m = _smallest_n(lambda m: power_at(m) >= power, start=2)
        reached = power_at(m)
        method = "auc-hanley-mcneil-test"
        what = (f"a {_side_text(alternative, _AUC_H1)} z-test of AUC = {auc_null:g} at level "
                f"{alpha:g} then has power {reached:.3g} >= {power:g}")  # fmt: skip
        extra = {"auc_null": auc_null, "alpha": alpha, "target_power": power,
                 "alternative": alternative}  # fmt: skip
    mp, mn = _sizes(m, ratio)
    assumptions = (
        f"Expected AUC {auc:g}; {mn} negatives for {mp} positives (ratio {ratio:g}); "
        f"independent samples; Hanley & McNeil's (1982) variance, exact for exponential "
        f"score distributions and close for binormal ones; {what}. Correlated samples "
        f"(several per patient/speaker) need more."
    )
    return PlanResult(
        n_samples=mp + mn,
        power=reached,
        method=method,
        assumptions=assumptions,
        details={"auc": auc, "n_positive": mp, "n_negative": mn, "ratio": ratio, **extra},
    )


def power_auc(
    auc: float,
    n_positive: int,
    n_negative: int,
    *,
    auc_null: float = 0.5,
    alpha: float = 0.05,
    alternative: str = "two-sided",
) -> PlanResult:
    """Power to show that an AUC exceeds (or differs from) a reference value.

    The one-sided test rejects ``AUC = auc_null`` when ``(Â - auc_null) / SE₀ > z_α``
    (the two-sided one when ``|Â - auc_null| / SE₀ > z_{α/2}``), with ``SE₀`` the
    Hanley–McNeil standard error at ``auc_null``; the estimate is taken as normal with
    mean ``auc`` and the Hanley–McNeil SE at ``auc`` (``SE₁``), so one-sided
    ``power = Φ((|auc - auc_null| - z_α SE₀) / SE₁)`` (Obuchowski 1998, the variance
    under the null and under the alternative).  With ``auc_null = 0.5``, ``SE₀² =
    (n₊ + n₋ + 1) / (12 n₊ n₋)`` is the exact null variance of the Mann–Whitney AUC, so
    the test is the (normal-approximation) Mann–Whitney test.

    Parameters
    ----------
    auc : float in [0.5, 1)
        The AUC you expect.
    n_positive, n_negative : int
        Positives and negatives in the test set.
    auc_null : float in [0.5, 1), default 0.5
        Reference AUC (0.5: the score carries no information).
    alpha : float, default 0.05
        Significance level of the test.
    alternative : {"two-sided", "less", "greater"}, default "two-sided"
        ``"two-sided"``: H1: AUC ≠ ``auc_null`` (as mlci's AUC tests by default and
        pROC's ``power.roc.test``); ``"greater"``: H1: AUC > ``auc_null``; ``"less"``:
        H1: AUC < ``auc_null``.  A one-sided hypothesis that the expected ``auc``
        contradicts is refused.

    Returns
    -------
    PlanResult
        ``power``; ``n_samples`` = positives + negatives; ``details`` hold both
        standard errors.

    Examples
    --------
    >>> round(power_auc(0.7, 25, 25).power, 3)
    0.697
    >>> round(power_auc(0.7, 25, 25, alternative="greater").power, 3)
    0.807
    >>> round(power_auc(0.85, 100, 300, auc_null=0.8, alternative="greater").power, 3)
    0.554
    """
    auc = _check_auc("auc", auc)
    auc_null = _check_auc("auc_null", auc_null)
    if auc == auc_null:
        raise ValueError("`auc_null` must differ from `auc`.")
    mp = check_positive_int("n_positive", n_positive)
    mn = check_positive_int("n_negative", n_negative)
    alpha = _check_prob("alpha", alpha)
    alternative = check_sided(alternative, _AUC_H1["greater"])
    effect = _auc_effect(auc, auc_null, alternative)
    se0, se1 = _auc_ses(auc, auc_null, mp, mn)
    pw = _z_power(effect, se0, se1, alpha, alternative == "two-sided")
    assumptions = (
        f"Expected AUC {auc:g} against the reference {auc_null:g}; {mp} positives and "
        f"{mn} negatives, independent samples; {_side_text(alternative, _AUC_H1)} z-test at "
        f"level {alpha:g} with the Hanley & McNeil (1982) standard error under the null "
        f"({se0:.4g}) and under the alternative ({se1:.4g}), exact for exponential score "
        f"distributions and close for binormal ones."
    )
    return PlanResult(
        n_samples=mp + mn,
        power=pw,
        method="auc-hanley-mcneil-test",
        assumptions=assumptions,
        details={"auc": auc, "auc_null": auc_null, "n_positive": mp, "n_negative": mn,
                 "alpha": alpha, "alternative": alternative, "se_null": se0,
                 "se_alternative": se1},
    )  # fmt: skip


# ----------------------------------------------------------------------------------------
# two AUCs (Hanley & McNeil 1983; Obuchowski & McClish 1997)
# ----------------------------------------------------------------------------------------
def _diff_inputs(auc1, auc2, correlation, paired, alpha, alternative):
    auc1 = _check_auc("auc1", auc1)
    auc2 = _check_auc("auc2", auc2)
    if auc1 == auc2:
        raise ValueError("`auc1` and `auc2` must differ (the difference to detect).")
    paired = check_flag("paired", paired)
    if paired:
        if correlation is None:
            raise ValueError(
                "`correlation` is required when `paired`=True: the correlation between the "
                "two AUC estimates on the same samples (typically 0.3–0.7; estimate it on a "
                "pilot set with `mlci.delong_test(...).details['correlation']`)."
            )
        if isinstance(correlation, bool) or not isinstance(
            correlation, int | float | np.integer | np.floating
        ):
            raise TypeError(f"`correlation` must be a number; got {correlation!r}.")
        r = float(correlation)
        if not (math.isfinite(r) and -1 < r < 1):
            raise ValueError(f"`correlation` must lie in (-1, 1); got {correlation!r}.")
    else:
        if correlation not in (None, 0):
            raise ValueError(
                "`correlation` must be None (or 0) when `paired`=False: AUCs measured on "
                "independent test sets are uncorrelated."
            )
        r = 0.0
    alpha = _check_prob("alpha", alpha)
    alternative = check_sided(alternative, _DIFF_H1["greater"])
    where = "below" if auc1 < auc2 else "above"
    effect = _effect(auc1 - auc2, alternative, _DIFF_H1,
                     f"the expected `auc1`={auc1:g} is {where} `auc2`={auc2:g}")  # fmt: skip
    return auc1, auc2, effect, r, paired, alpha, alternative


def _diff_ses(auc1: float, auc2: float, r: float, mp: int, mn: int) -> tuple[float, float]:
    """SE of AUC₁ - AUC₂ under H0 (both AUCs at their mean) and under H1.

    ``Var(Â₁ - Â₂) = V₁ + V₂ - 2 r √(V₁ V₂)`` with Hanley–McNeil variances ``Vᵢ`` and
    ``r`` the correlation of the two estimates (Hanley & McNeil 1983, eq. 2); under H0
    both AUCs equal their mean ``Ā``: ``2 V(Ā) (1 - r)`` (Obuchowski & McClish 1997).
    """
    v1 = float(hanley_mcneil_se(auc1, mp, mn)) ** 2
    v2 = float(hanley_mcneil_se(auc2, mp, mn)) ** 2
    v0 = float(hanley_mcneil_se((auc1 + auc2) / 2, mp, mn)) ** 2
    se_alt = math.sqrt(max(v1 + v2 - 2 * r * math.sqrt(v1 * v2), 0.0))
    se_null = math.sqrt(max(2 * v0 * (1 - r), 0.0))
    return se_null, se_alt


def _diff_assumptions(auc1, auc2, r, paired, mp, mn, alpha, alternative, what=""):
    design = (
        f"both systems scored on the same {mp} positives and {mn} negatives, the two AUC "
        f"estimates correlated with r = {r:g} (Hanley & McNeil 1983)"
        if paired
        else f"two independent test sets, each of {mp} positives and {mn} negatives"
    )
    return (
        f"Expected AUCs {auc1:g} and {auc2:g}; {design}; independent samples; "
        f"{_side_text(alternative, _DIFF_H1)} "
        f"z-test of equal AUCs at level {alpha:g} (as DeLong's test) with Hanley & McNeil's "
        f"(1982) variances, the null variance taken at the mean AUC (Obuchowski & McClish "
        f"1997){what}. The correlation is the key unknown for a paired design: a higher one "
        f"needs fewer samples; estimate it on a pilot set."
    )


def sample_size_auc_difference(
    auc1: float,
    auc2: float,
    *,
    correlation: float | None = None,
    ratio: float = 1.0,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    paired: bool = True,
) -> PlanResult:
    """Positives and negatives needed to detect a difference between two AUCs.

    Smallest number of positives ``n₊`` (with ``n₋ = ratio·n₊`` negatives) such that
    ``z_α SE₀ + z_β SE₁ <= |auc1 - auc2|`` (one-sided; two-sided: the exact power of the
    two-sided z-test reaches ``power``), where ``SE₁² = V₁ + V₂ - 2 r √(V₁V₂)`` with the
    Hanley–McNeil variances at ``auc1`` and ``auc2``, and ``SE₀² = 2 V(Ā)(1 - r)`` at the
    mean AUC (Hanley & McNeil 1983; Obuchowski & McClish 1997; Obuchowski 1998).  This is
    the test :func:`mlci.delong_test` (paired) or :func:`mlci.delong_test_independent`
    performs.

    Parameters
    ----------
    auc1, auc2 : float in [0.5, 1)
        The AUCs you expect for the two systems.
    correlation : float in (-1, 1), required if ``paired``
        Correlation between the two AUC *estimates* when both systems score the same
        samples.  It is somewhat below the correlation of the two systems' scores within
        each class (Hanley & McNeil 1983, Table 1); 0.3–0.7 is common.  A pilot set gives
        it: ``mlci.delong_test(y, a, b).details["correlation"]``.
    ratio : float, default 1.0
        Negatives per positive.
    power : float, default 0.8
    alpha : float, default 0.05
    alternative : {"two-sided", "less", "greater"}, default "two-sided"
        ``"greater"``: H1: ``auc1`` > ``auc2`` (as ``alternative="greater"`` of
        :func:`mlci.delong_test` with system 1 as A); ``"less"``: H1: ``auc1`` < ``auc2``.
        A one-sided hypothesis that the expected AUCs contradict is refused.
    paired : bool, default True
        ``False``: each system is evaluated on its own, independent test set of the
        returned size (correlation 0).

    Returns
    -------
    PlanResult
        ``n_samples``: all samples to collect (both test sets when not paired);
        ``details["n_positive"]``, ``details["n_negative"]`` per test set; ``power``
        reached.

    Examples
    --------
    >>> r = sample_size_auc_difference(0.75, 0.85, correlation=0.5)
    >>> r.details["n_positive"], r.n_samples
    (78, 156)
    >>> sample_size_auc_difference(0.75, 0.85, paired=False).details["n_positive"]
    154
    """
    auc1, auc2, effect, r, paired, alpha, alternative = _diff_inputs(
        auc1, auc2, correlation, paired, alpha, alternative
    )
    ratio = _check_ratio(ratio)
    power = _check_power(power)
    two = alternative == "two-sided"

    def power_at(m: int) -> float:
        mp, mn = _sizes(m, ratio)
        return _z_power(effect, *_diff_ses(auc1, auc2, r, mp, mn), alpha, two)

    m = _smallest_n(lambda m: power_at(m) >= power, start=2)
    mp, mn = _sizes(m, ratio)
    reached = power_at(m)
    se0, se1 = _diff_ses(auc1, auc2, r, mp, mn)
    n_sets = 1 if paired else 2
    what = f"; power {reached:.3g} >= {power:g}"
    return PlanResult(
        n_samples=n_sets * (mp + mn),
        power=reached,
        method="auc-difference-" + ("paired" if paired else "independent"),
        assumptions=_diff_assumptions(auc1, auc2, r, paired, mp, mn, alpha, alternative,
                                      what),
        details={"auc1": auc1, "auc2": auc2, "correlation": r, "paired": paired,
                 "n_positive": mp, "n_negative": mn, "n_test_sets": n_sets, "ratio": ratio,
                 "alpha": alpha, "alternative": alternative, "target_power": power,
                 "se_null": se0, "se_alternative": se1},
    )  # fmt: skip


def power_auc_difference(
    auc1: float,
    auc2: float,
    n_positive: int,
    n_negative: int,
    *,
    correlation: float | None = None,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    paired: bool = True,
) -> PlanResult:
    """Power to detect a difference between two AUCs (same samples or independent sets).

    ``power = Φ((|auc1 - auc2| - z_α SE₀) / SE₁)`` (plus the wrong-direction term when
    two-sided) with the standard errors of :func:`sample_size_auc_difference`.

    Parameters
    ----------
    auc1, auc2 : float in [0.5, 1)
        Expected AUCs.
    n_positive, n_negative : int
        Positives and negatives (per test set when ``paired=False``).
    correlation, alpha, alternative, paired
        As in :func:`sample_size_auc_difference`.

    Returns
    -------
    PlanResult
        ``power``; ``details`` hold the standard errors under the null and the
        alternative.

    Examples
    --------
    >>> round(power_auc_difference(0.75, 0.85, 78, 78, correlation=0.5).power, 3)
    0.802
    >>> round(power_auc_difference(0.75, 0.85, 78, 78, paired=False).power, 3)
    0.512
    """
    auc1, auc2, effect, r, paired, alpha, alternative = _diff_inputs(
        auc1, auc2, correlation, paired, alpha, alternative
    )
    mp = check_positive_int("n_positive", n_positive)
    mn = check_positive_int("n_negative", n_negative)
    se0, se1 = _diff_ses(auc1, auc2, r, mp, mn)
    pw = _z_power(effect, se0, se1, alpha, alternative == "two-sided")
    n_sets = 1 if paired else 2
    return PlanResult(
        n_samples=n_sets * (mp + mn),
        power=pw,
        method="auc-difference-" + ("paired" if paired else "independent"),
        assumptions=_diff_assumptions(auc1, auc2, r, paired, mp, mn, alpha, alternative),
        details={"auc1": auc1, "auc2": auc2, "correlation": r, "paired": paired,
                 "n_positive": mp, "n_negative": mn, "n_test_sets": n_sets, "alpha": alpha,
                 "alternative": alternative, "se_null": se0, "se_alternative": se1},
    )  # fmt: skip
