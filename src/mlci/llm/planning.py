"""How many questions (and answers per question) to detect a difference: :func:`llm_sample_size`.

From a pilot run of two models on the same items, following Miller (2024, sec. 5, "power
analysis"): write model ``m``'s score on item ``i`` as its conditional mean ``x_mi`` (the
probability of a correct answer) plus answer noise of variance ``sigma2_mi``.  With ``n``
items and ``K`` answers per item and model, the paired mean difference has variance

    Var(d) = (omega2 + (sigma2_a + sigma2_b) / K) / n,

where ``omega2 = Var(x_a - x_b)`` over items (small when the models are correlated: the
pairing) and ``sigma2_m`` is the mean within-item variance of model ``m``'s answers.  A
two-sided z-test at level ``alpha`` then has power ``1 - beta`` when

    n = (z_{1-alpha/2} + z_{1-beta})^2 * deff * (omega2 + (sigma2_a + sigma2_b) / K) / delta^2.

``deff`` is the design effect of the clusters (passages, templates), measured on the
pilot as the ratio of the clustered (CR1) to the unclustered variance of the mean
difference (1 without clusters); it assumes the full run has clusters of the pilot's
sizes.  From the pilot: ``sigma2_m`` is the mean over items of the repeats' sample
variance (ddof=1), and ``omega2`` the variance over items of the per-item mean difference
minus its answer-noise part ``mean(s2_a / K_a + s2_b / K_b)`` (floored at 0).  With one
answer per item in the pilot, ``omega2`` and ``sigma2`` cannot be told apart: the plan is
then for ``repeats=1`` only.

References
----------
Miller, E. (2024). Adding error bars to evals: a statistical approach to language model
evaluations. arXiv:2411.00640 (sec. 5).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
from scipy import stats

from ..classical.planning import PlanResult
from ..inputs import check_alternative, check_positive_int, renamed_keyword
from ..intervals.formulas import quantile
from .estimands import cr1_scores, item_table
from .log import EvalLog, _item_codes

__all__ = ["llm_sample_size"]


def _check_unit(name: str, value: Any, *, closed: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating):
        raise TypeError(f"`{name}` must be a number between 0 and 1; got {value!r}.")
    v = float(value)
    if not (0.0 < v < 1.0) and not (closed and v == 1.0):
        raise ValueError(f"`{name}` must be strictly between 0 and 1; got {v!r}.")
    return v


def llm_sample_size(
    log: EvalLog,
    a: str,
    b: str,
    *,
    difference: float,
    power: float = 0.8,
    alpha: float = 0.05,
    alternative: str = "two-sided",
    repeats: int | None = None,
    conditions: str | None = None,
    **deprecated: Any,
) -> PlanResult:
    """Items needed to detect a difference between two models, from a pilot run.

    Parameters
    ----------
    log : EvalLog
        The pilot: both models scored on the same items (``mean`` scores in [0, 1]).
    a, b : str
        The two models.
    difference : float
        The difference in mean score to detect (e.g. 0.02 for two points), in (0, 1).
    power : float, default 0.8
    alpha : float, default 0.05
        Significance level of the test.
    alternative : {"two-sided", "less", "greater"}
        ``"greater"``/``"less"``: a one-sided test (``z_{1-alpha}``).
    repeats : int, optional
        Answers per item and model in the planned run (default: the pilot's, the mean
        over items).
    conditions : str, optional
        A condition column of the log: the design effect of the conditions (as clusters)
        is measured on the pilot and applied.  (``cluster`` is a deprecated spelling.)

    Returns
    -------
    PlanResult
        ``n_samples`` the number of items; ``details`` holds ``repeats``, ``omega2``,
        ``sigma2_a``, ``sigma2_b``, ``correlation`` (of the models' per-item means),
        ``design_effect`` (the pilot's, ``design_effect_measured``, floored at 1),
        ``pilot_items``, ``pilot_difference``, ``achieved_power`` (at the returned ``n``)
        and ``items_by_repeats`` (the items needed with 1, 2, 4, 8, 16 answers per item:
        more answers reduce the answer noise, never ``omega2``).

    Examples
    --------
    >>> import mlci
    >>> from mlci.data import llm_example_path
    >>> log = mlci.read_eval_logs(llm_example_path(), conditions=["group"])
    >>> plan = mlci.llm_sample_size(log, "model-a", "model-b", difference=0.03,
    ...                             conditions="group")
    >>> plan.n_samples, plan.details["repeats"]
    (1048, 3)
    """
    if not isinstance(log, EvalLog):
        raise TypeError(f"`log` must be an EvalLog; got {type(log).__name__}.")
    conditions = renamed_keyword(deprecated, "cluster", "conditions", conditions, None)
    # the plan is for mean scores, whatever epoch reducer the pilot's logs record
    table = item_table(log, estimand="mean", conditions=conditions, models=_two(log, a, b))
    order = [table.models.index(a), table.models.index(b)]
    table = dataclasses.replace(
        table,
        models=[a, b],
        values=table.values[order],
        n_repeats=table.n_repeats[order],
        item_rows=table.item_rows[order],
    )
    delta = _check_unit("difference", difference)
    pw = _check_unit("power", power)
    al = _check_unit("alpha", alpha)
    alt = check_alternative(alternative)
    K_pilot = table.n_repeats  # (2, n)
    if repeats is None:
        K = max(1, round(float(K_pilot.mean())))
    else:
        K = check_positive_int("repeats", repeats)
    x = table.values  # per-item means (2, n)
    n_pilot = x.shape[1]
    if n_pilot < 3:
        raise ValueError(f"The pilot has {n_pilot} shared item(s); at least 3 are needed.")
    d_i = x[0] - x[1]
    # within-item variance of the answers (ddof=1), from the log's rows
    s2 = _within_variance(log, table, (a, b))
    multi = (K_pilot >= 2).all()
    if multi:
        sigma2 = s2.mean(axis=1)
        noise = (s2 / K_pilot).sum(axis=0).mean()
        omega2 = max(float(np.var(d_i, ddof=1) - noise), 0.0)
    else:
        if K != 1:
            raise ValueError(
                "`repeats`: the pilot has one answer per item, so the items' variance and "
                "the answers' noise cannot be separated; plan for repeats=1, or run a pilot "
                "with at least 2 answers per item."
            )
        sigma2 = np.zeros(2)
        omega2 = float(np.var(d_i, ddof=1))
    # design effect of the clusters on the pilot's mean difference
    deff = measured = 1.0
    if table.cluster is not None:
        _, S, W, G = cr1_scores(d_i[None, :], table.weights, table.cluster)
        v_cl = G / (G - 1) * float((S**2).sum()) / W**2
        v_iid = float(np.var(d_i, ddof=1)) / n_pilot
        measured = v_cl / v_iid if v_iid > 0 else 1.0
        deff = max(measured, 1.0)  # a pilot's deff below 1 is noise: never plan on it
    z_a = quantile(1 - al / 2 if alt == "two-sided" else 1 - al)  # the test's level al
    z_b = quantile(pw)

    def items(k: int) -> int:
        v = deff * (omega2 + (sigma2[0] + sigma2[1]) / k)
        return max(2, math.ceil((z_a + z_b) ** 2 * v / delta**2))

    per_item = deff * (omega2 + (sigma2[0] + sigma2[1]) / K)
    n = items(K)
    se = math.sqrt(per_item / n)
    achieved = float(stats.norm.sf(z_a - delta / se)) if se > 0 else 1.0
    with np.errstate(invalid="ignore"):
        corr = float(np.corrcoef(x[0], x[1])[0, 1]) if np.std(x[0]) * np.std(x[1]) > 0 else 0.0
    details = {
        "difference": delta,
        "alpha": al,
        "alternative": alt,
        "repeats": K,
        "omega2": omega2,
        "sigma2_a": float(sigma2[0]),
        "sigma2_b": float(sigma2[1]),
        "correlation": corr,
        "design_effect": deff,
        "design_effect_measured": measured,
        "pilot_items": n_pilot,
        "pilot_difference": float(d_i @ table.weights / table.weights.sum()),
        "achieved_power": achieved,
        # the trade-off: items needed with 1, 2, 4, 8 or 16 answers per item
        "items_by_repeats": {k: items(k) for k in (1, 2, 4, 8, 16)} if multi else {1: n},
    }
    if table.details.get("partial"):  # a pilot read with partial=True says so
        details["partial"] = table.details["partial"]
    assumptions = (
        f"paired z-test of the mean difference of {a!r} and {b!r} on the same items, "
        f"{K} answer(s) per item and model; item-level variance of the difference "
        f"(omega2) and answer noise measured on the pilot's {n_pilot} items "
        f"(Miller 2024, sec. 5)"
        + (f"; clusters' design effect {deff:.3g} from the pilot" if deff != 1.0 else "")
    )
    return PlanResult(
        n_samples=int(n),
        power=pw,
        method="llm-paired-miller2024",
        assumptions=assumptions,
        details=details,
    )


def _two(log: EvalLog, a: Any, b: Any) -> list[str]:
    for name, v in (("a", a), ("b", b)):
        if not isinstance(v, str):
            raise TypeError(f"`{name}` must be a model name (str); got {v!r}.")
        if v not in log.models:
            raise ValueError(f"`{name}`={v!r} is not a model of the log ({log.models}).")
    if a == b:
        raise ValueError(f"`a` and `b` must be two different models; got {a!r} twice.")
    return [a, b]


def _within_variance(log: EvalLog, table: Any, models: tuple[str, str]) -> np.ndarray:
    """Sample variance (ddof=1) of every item's answers, per model: (2, n_items); 0 where an
    item has one answer."""
    out = np.zeros_like(table.values)
    item, _ = _item_codes(log)
    # map the log's item codes to the table's columns through each model's first rows
    for m, name in enumerate(models):
        sel = log.model == name
        codes = item[sel]
        sc = log.score[sel]
        col_of = np.full(int(item.max()) + 1, -1, dtype=np.int64)
        col_of[item[table.item_rows[m]]] = np.arange(table.values.shape[1])
        col = col_of[codes]
        ok = col >= 0
        n = np.bincount(col[ok], minlength=out.shape[1]).astype(float)
        s1 = np.bincount(col[ok], weights=sc[ok], minlength=out.shape[1])
        s2 = np.bincount(col[ok], weights=sc[ok] ** 2, minlength=out.shape[1])
        with np.errstate(invalid="ignore", divide="ignore"):
            v = (s2 - s1**2 / n) / (n - 1)
        out[m] = np.where(n > 1, np.maximum(v, 0.0), 0.0)
    return out
