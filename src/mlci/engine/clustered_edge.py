"""A proportion over conditions near 0 or 1: ``method="auto"``'s Korn & Graubard rule.

One rule for every door: accuracy, error rate, recall, precision... and the mean of 0/1
values over conditions, through :func:`mlci.bootstrap_ci`, :func:`mlci.compare` (each
system), :func:`mlci.llm_ci` and the CLI, whose ``"auto"`` all resolve a proportion by
:func:`mlci.engine.auto.proportion_method`.  Within :data:`NEAR_BOUND` of 0 or 1 (not on
it) the logit t interval gives way to ``method="korn_graubard"``, Clopper-Pearson's
interval on the effective sample size ``p (1 - p) / se^2`` of the same CR2 standard
error, times ``(z / t_df)^2`` with Imbens & Kolesar's degrees of freedom (Korn & Graubard
1998; R survey's ``svyciprop(method = "beta")``): :func:`clustered_proportion_method`
decides, and :func:`mlci.intervals.near_bound.korn_graubard_interval` gives it, the one
function behind every ``"korn_graubard"`` interval.

Where the estimate rests on fewer than 4 effective minority outcomes the interval is
widened to hold the logit t interval too
(:func:`mlci.intervals.near_bound.widen_few_minority`): there the two miss on opposite
sides.

Before it, in LLM evals (``scripts/llm_coverage.py --bounds candidates``, 400 test sets
a cell), the logit t fell short within :data:`NEAR_BOUND` of the bound: 30 questions
answered 3 times at p = 0.999, 0.910; 100 clusters of 400 questions at p = 0.99, 0.925.
Of the candidates compared on the 85 designs over repeated answers or clusters (Wilson,
modified Wilson and Jeffreys on ``n*``; switches below a count of effective minority
outcomes; the logit t with the one-sided Poisson bound), Korn & Graubard's interval was
the only one that never fell below 0.935 (docs/validation.md, "LLM evals: the cells
left short").

The evidence for the engine rule (``scripts/clustered_edge_sweep.py --part proportion``,
docs/validation.md, "One door for a proportion over conditions near its bound"): accuracy
0.9-0.999 over 5-500 conditions (ICC 0-0.5, equal or unequal sizes, n 30-5,000), 48
designs of 400 test sets each: over 8 or more conditions the cells short of 0.935 went
from 8 to 5 (none newly short; the lowest 0.56 -> 0.57, a cell warned in every test
set), the median width 1.28 -> 1.32 times BCa's, the widest 4.55 -> 4.60; the coverage
map's clustered accuracy cells moved by -0.004 to +0.009.

A proportion whose conditions all have the same share of successes has a CR2 standard
error of 0: no effective size to read, and ``"auto"`` keeps the logit t's Wilson
fallback; a ``method="korn_graubard"`` asked for there takes the design effect as 1
(:func:`design_effect_one_options`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..intervals.near_bound import ZERO_SE
from ..metrics import get_kernel
from .linearize import Linearization

__all__ = [
    "FEW_CONDITIONS_REASON",
    "KORN_GRAUBARD_REASON",
    "MIN_CONDITIONS",
    "NEAR_BOUND",
    "clustered_class_rates",
    "clustered_proportion_method",
    "clustered_proportion_rule",
    "design_effect_one_options",
]

#: a proportion over conditions within this of 0 or 1 (not on it) gets Korn & Graubard's
#: interval; the engine's near-bound distance (``mlci.engine.auto.NEAR_BOUND``) too
NEAR_BOUND = 0.1

#: over fewer conditions than this (with a sample in the proportion's denominator) Korn &
#: Graubard's interval is widened to hold the logit t interval whatever the minority
#: outcomes (:data:`mlci.intervals.near_bound.UNION_BELOW_CONDITIONS`), under
#: :data:`FEW_CONDITIONS_REASON`: over 5 conditions Korn & Graubard's interval covered
#: 0.59-0.95 where the logit t covered 0.64-0.97 (the session-8 sweep's 4 designs), and at
#: ICC 0.05 (session 11, ``scripts/kg_few_conditions_study.py``) each missed where the
#: other covered (Korn & Graubard 0.69-1.00, the logit t 0.79-1.00, the union 0.80-1.00;
#: before session 11 auto gave the logit t alone); every such result is warned (below 8
#: conditions no method holds, ``mlci.engine.auto.MIN_CONDITIONS``)
MIN_CONDITIONS = 8
#: ``method_reason`` of a proportion over conditions near 0 or 1 under ``"auto"``
KORN_GRAUBARD_REASON = (
    f"korn_graubard: a proportion over conditions within {NEAR_BOUND:g} of 0 or 1 (not on "
    "it): Clopper-Pearson's interval on the effective sample size p(1 - p)/se^2 of the CR2 "
    "standard error, with Korn & Graubard's (1998) degrees-of-freedom adjustment, where "
    "the logit t covered 0.91-0.93 in cells near the bound (docs/validation.md, 'One door "
    "for a proportion over conditions near its bound')"
)

#: ``method_reason`` of a proportion over fewer than :data:`MIN_CONDITIONS` conditions
#: near 0 or 1 under ``"auto"`` (session 11)
FEW_CONDITIONS_REASON = (
    f"korn_graubard: a proportion over fewer than {MIN_CONDITIONS} conditions within "
    f"{NEAR_BOUND:g} of 0 or 1 (not on it): Korn & Graubard's interval widened to hold the "
    "logit t interval, where each of the two missed where the other covered "
    "(docs/validation.md, 'Proportions over few conditions at ICC 0.05 under auto'); no "
    "method holds its level there (a warning says so)"
)


def clustered_proportion_method(estimate: float) -> str:
    """The interval of a proportion over conditions: ``"korn_graubard"`` where the
    estimate lies within :data:`NEAR_BOUND` of 0 or 1 but not on it, else ``"logit_t"``
    (on the bound: the logit t's Wilson fallback; no effective size to read).

    Parameters
    ----------
    estimate : float
        The proportion, in [0, 1].

    Returns
    -------
    str
        ``"korn_graubard"`` or ``"logit_t"`` (:func:`mlci.bootstrap_ci`'s method names).

    Raises
    ------
    TypeError
        ``estimate`` not a number.
    ValueError
        ``estimate`` outside [0, 1] or NaN.

    Examples
    --------
    >>> clustered_proportion_method(0.97), clustered_proportion_method(0.85)
    ('korn_graubard', 'logit_t')
    >>> clustered_proportion_method(1.0)
    'logit_t'
    """
    if isinstance(estimate, bool) or not isinstance(estimate, (int, float, np.number)):
        raise TypeError(
            f"`estimate` must be a number (a proportion in [0, 1]); got {type(estimate).__name__}."
        )
    p = float(estimate)
    if not 0.0 <= p <= 1.0:  # NaN fails too
        raise ValueError(f"`estimate` must be a proportion in [0, 1]; got {estimate!r}.")
    return "korn_graubard" if 0.0 < min(p, 1.0 - p) < NEAR_BOUND else "logit_t"


def design_effect_one_options(kernel: Any, plan: Any, linear: dict[str, Any]) -> dict[str, Any]:
    """``{"standard_error_iid": ...}`` for a linearization over conditions whose standard
    error is 0 somewhere (the conditions do not vary) and that has no nominal size (not a
    proportion, whose ``effective_n`` is its size there): the standard error of the same
    samples as independent, from which ``method="korn_graubard"`` reads its effective
    sample size with the design effect taken as 1
    (:func:`mlci.intervals.near_bound.korn_graubard_interval`); else ``{}``.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from mlci.engine.resampling import make_plan
    >>> from mlci.metrics import get_kernel
    >>> y = np.array([1, 1, 1, 1, 1, 0, 0, 0, 0, 0]); a = np.r_[y[:5], 1, 0, 0, 0, 0]
    >>> k = get_kernel("balanced_accuracy", (y, a), {})
    >>> plan = make_plan(10, conditions=np.r_[0, 0, 0, 0, 1, 0, 0, 0, 0, 0])
    >>> lin = {"standard_error": 0.0, "effective_n": None}
    >>> round(design_effect_one_options(k, plan, lin)["standard_error_iid"], 4)
    0.0943
    """
    unit = getattr(plan, "unit_of_sample", None)
    if unit is None or linear.get("effective_n") is not None:
        return {}
    se = np.asarray(linear["standard_error"], dtype=float)
    bounds = getattr(kernel, "bounds", None)
    width = 1.0 if bounds is None else float(bounds[1]) - float(bounds[0])
    if not np.any(se <= ZERO_SE * width):
        return {}
    from .resampling import make_plan

    est = Linearization(kernel, make_plan(int(plan.n_samples))).estimate()
    se_iid = np.asarray(est.standard_error, dtype=float)
    return {"standard_error_iid": se_iid if se_iid.ndim else float(se_iid)}


def clustered_proportion_rule(kernel: Any, plan: Any) -> tuple[str, str] | None:
    """``("korn_graubard", reason)`` for a proportion kernel over conditions whose estimate
    lies within :data:`NEAR_BOUND` of 0 or 1 (not on it), over conditions that differ in
    their share of successes (a CR2 standard error above 0); else None (the logit t).
    Over fewer than :data:`MIN_CONDITIONS` conditions the reason is
    :data:`FEW_CONDITIONS_REASON` (the interval widened to hold the logit t's, by
    :func:`mlci.intervals.near_bound.widen_few_minority`; before session 11 the logit t).

    ``kernel.proportion`` holds the numerator and denominator masks over the atoms,
    ``plan.unit_of_sample`` the condition of every sample (None: independent samples).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> k = SimpleNamespace(keys=np.r_[np.zeros(48, int), 1, 1], m=2,
    ...                     proportion=(np.array([True, False]), np.array([True, True])))
    >>> plan = SimpleNamespace(unit_of_sample=np.repeat(np.arange(10), 5))
    >>> clustered_proportion_rule(k, plan)[0]  # 48 of 50, the errors in one condition
    'korn_graubard'
    >>> clustered_proportion_rule(k, SimpleNamespace(unit_of_sample=None)) is None
    True
    >>> five = SimpleNamespace(unit_of_sample=np.repeat(np.arange(5), 10))
    >>> clustered_proportion_rule(k, five)[1].startswith("korn_graubard: a proportion over fewer")
    True
    """
    unit = getattr(plan, "unit_of_sample", None)
    prop = getattr(kernel, "proportion", None)
    if unit is None or prop is None:
        return None
    keys = np.asarray(kernel.keys)
    unit = np.asarray(unit)
    if len(unit) != len(keys):
        return None
    num_mask, den_mask = (np.asarray(m, dtype=bool) for m in prop)
    G = int(unit.max()) + 1
    num = np.bincount(unit, weights=num_mask[keys].astype(float), minlength=G)
    den = np.bincount(unit, weights=den_mask[keys].astype(float), minlength=G)
    if den.sum() <= 0:
        return None
    few = np.count_nonzero(den) < MIN_CONDITIONS
    p = float(num.sum() / den.sum())
    if clustered_proportion_method(p) != "korn_graubard":
        return None
    # the CR2 standard error is 0 when every condition's deviation k_g - p n_g is 0
    if np.allclose(num, p * den, rtol=0.0, atol=1e-9):
        return None
    return "korn_graubard", FEW_CONDITIONS_REASON if few else KORN_GRAUBARD_REASON


def clustered_class_rates(kernel: Any, plan: Any) -> tuple[dict[str, float], ...]:
    """The two classes' own rates of a two-class confusion kernel over conditions, each
    as :func:`mlci.bootstrap_ci` of ``metric="specificity"`` and ``"recall"`` under the
    same plan reads it: ``{"estimate", "standard_error", "df", "effective_n",
    "nominal_n"}`` (CR2 standard error, Imbens & Kolesar's degrees of freedom, the
    effective sample size, the class's size),
    negatives first.  Balanced accuracy's clustered MOVER interval
    (:func:`mlci.intervals.mover.mover_korn_graubard_interval`) is built from them
    (:mod:`mlci.engine.class_edge`).

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> from mlci.engine.resampling import make_plan
    >>> y = np.repeat([0, 1], [60, 40]); a = y.copy(); a[:6] = 1; a[60] = 0
    >>> plan = make_plan(100, conditions=np.repeat(np.arange(10), 10))
    >>> k = SimpleNamespace(keys=2 * y + a)
    >>> neg, pos = clustered_class_rates(k, plan)
    >>> round(neg["estimate"], 3), round(pos["estimate"], 3)
    (0.9, 0.975)
    """
    keys = np.asarray(kernel.keys)
    out = []
    for metric in ("specificity", "recall"):
        rate = get_kernel(metric, (keys // 2, keys % 2), {"pos_label": 1})
        counts = np.bincount(rate.keys, minlength=rate.m).astype(float)
        est = Linearization(rate, plan).estimate()
        out.append({
            "estimate": float(rate.evaluate(counts[None])[0]),
            "standard_error": float(est.standard_error),
            "df": float(est.df),
            "effective_n": float(est.effective_n)
            if est.effective_n is not None
            else float(counts.sum()),
            # the class's size: Korn & Graubard's effective size is at most it
            "nominal_n": float(est.effective_n) * float(est.design_effect)
            if est.effective_n is not None and est.design_effect is not None
            else float(counts.sum()),
        })  # fmt: skip
    return tuple(out)
