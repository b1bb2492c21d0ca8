"""The default interval of a score that is a proportion of 0/1 answers (issue 20).

When every answer of a log is scored 0 or 1 (correct or not), the mean score is a
proportion of answers, and ``method="auto"`` gives it the interval the core engine gives
the mean of 0/1 values (docs/validation.md, "The mean of 0/1 values as a proportion"):
the same question gets the same interval through :func:`mlci.llm_ci` and
:func:`mlci.bootstrap_ci`:

* each model's score is ``bootstrap_ci(answers, metric="mean", conditions=unit)`` under
  ``"auto"``, with ``unit`` the condition of every answer (``conditions=``), else its item
  when the items were answered several times, else none: **Wilson's score interval** of
  independent items answered once, the **logit t** over items or conditions otherwise
  (CR2 standard error, Imbens & Kolesar's degrees of freedom; Wilson with design effect
  1 where the proportion is 0 or 1), with the engine's warnings
  (:class:`~mlci.FewConditionsWarning` below 8 conditions and near the bounds with fewer
  than 4 effective minority answers); over items or conditions a proportion within 0.1
  of 0 or 1 (not on it) gets ``"korn_graubard"``, Clopper-Pearson's interval on the
  effective sample size (:mod:`mlci.engine.clustered_edge`, the engine's rule, so both
  doors agree: the logit t covered 0.91-0.93 in cells there, docs/validation.md, "LLM
  evals: the cells left short");
* a paired difference of two models on independent items answered once is **Tango's
  score interval** of their paired 2x2 table, with Tango's score test at 0 (McNemar's z)
  as its p-value, as :func:`mlci.compare` gives it; over items answered several times or
  over conditions it is the MOVER interval of the two models' intervals
  (:func:`mover_pairs`).

The studentized interval these replace covered 0.62-0.77 at p = 0.95 with 20-30 items
and 0.77 at p = 0.99 with 200 (docs/validation.md, "LLM evals near the bounds").  It
applies when the log's structure makes the answers' mean the estimand: ``estimand``
mean, ``repeats="average"``, every item weighing the same (``aggregate="micro"``, or one
task), and every item answered the same number of times (then the mean of the item means
is the mean of the answers).  With several tasks the interval does not stratify by task
(the engine's proportion rule has no strata): conservative where the tasks differ in
difficulty.  Elsewhere (pass@k, a macro average of several tasks, unequal repeats,
scores between 0 and 1)
``"auto"`` keeps the bootstrap-t of :mod:`mlci.llm.linear`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..classical.proportions import paired_proportion_diff_ci, paired_table
from ..comparison.tango import tango_pvalue
from ..engine.bootstrap import bootstrap_ci
from ..engine.clustered_edge import KORN_GRAUBARD_REASON  # re-exported: the engine's
from ..results import ConfidenceInterval, IntervalResult
from .log import EvalLog, _item_codes

__all__ = ["KORN_GRAUBARD_REASON", "PROPORTION_AUTO_REASON", "AnswerDesign", "answer_design",
           "mover_pairs", "proportion_models", "tango_pairs"]  # fmt: skip

#: the start of ``details["method_reason"]`` when the answers are 0/1
PROPORTION_AUTO_REASON = (
    "auto: every answer is scored 0 or 1, so a model's score is a proportion of answers; "
    "its interval is bootstrap_ci(answers, metric='mean', conditions=...)'s under auto "
    "(Wilson of items answered once, else the logit t over {unit}, Korn & Graubard's "
    "within 0.1 of 0 or 1; docs/validation.md, 'LLM evals near the bounds')"
)


@dataclass(frozen=True)
class AnswerDesign:
    """Every model's 0/1 answers, aligned, and the unit they are resampled by.

    Attributes
    ----------
    scores : ndarray, shape (n_models, n_answers)
        The answers of every model in the same (item, repeat) order.
    unit : ndarray of int or None
        The condition (``conditions=``) or the item of every answer; None for
        independent items answered once.
    unit_name : str
        ``"conditions"``, ``"items"`` or ``"independent items"``.
    """

    scores: np.ndarray
    unit: np.ndarray | None
    unit_name: str


def answer_design(log: EvalLog, table: Any, models: list[str] | None) -> AnswerDesign | None:
    """The answers of ``table``'s models when their mean score is a proportion of 0/1
    answers that the engine's rule for the mean of 0/1 values covers (module doc), else
    None."""
    if table.estimand != "mean" or table.rows is not None:
        return None
    if not np.all(table.weights == table.weights[0]):  # a macro average of unequal tasks
        return None
    K = table.n_repeats
    if not (K == K[0, 0]).all():  # unequal repeats: the item means' mean is not the answers'
        return None
    if models is not None:
        log = log.select(models=models)
    item, n_items = _item_codes(log)
    mod = log.model_codes[1]
    present = np.zeros((len(table.models), n_items), dtype=bool)
    present[mod, item] = True
    keep = present.all(axis=0)
    kept = np.full(n_items, -1, dtype=np.int64)
    kept[np.flatnonzero(keep)] = np.arange(int(keep.sum()))
    sel = kept[item] >= 0
    score = log.score
    if not np.all((score[sel] == 0) | (score[sel] == 1)):
        return None
    rows = []
    for m in range(len(table.models)):
        r = np.flatnonzero((mod == m) & sel)
        rows.append(r[np.lexsort((log.repeat[r], kept[item[r]]))])
    scores = np.stack([score[r] for r in rows])
    answer_item = kept[item[rows[0]]]
    k = int(K[0, 0])
    if table.cluster is not None:
        return AnswerDesign(scores, table.cluster[answer_item], "conditions")
    if k > 1:
        return AnswerDesign(scores, answer_item, "items")
    return AnswerDesign(scores, None, "independent items")


def proportion_models(
    design: AnswerDesign, table: Any, name: str, opts: dict[str, Any]
) -> tuple[dict[str, IntervalResult], str]:
    """Every model's interval by :func:`mlci.bootstrap_ci` of its 0/1 answers under
    ``"auto"``, and the ``method_reason`` of the result (the engine's, after this
    module's)."""
    bo = opts["bootstrap"]
    out: dict[str, IntervalResult] = {}
    reasons: dict[str, str] = {}
    for model, x in zip(table.models, design.scores, strict=True):
        res = bootstrap_ci(
            x,
            metric="mean",
            conditions=design.unit,
            n_resamples=bo.n_resamples,
            confidence_level=opts["confidence_level"],
            alternative=opts["alternative"],
            method="auto",
            rng=bo.seed,
        )
        assert isinstance(res, IntervalResult)  # one confidence level
        details = {**res.details, "n_items": table.details["n_items"]}
        if table.cluster is not None:
            details["n_clusters"] = table.details["n_clusters"]
        out[model] = dataclasses.replace(res, metric=name, details=details)
        reasons.setdefault(res.method, str(details.get("method_reason", res.method)))
    unit = {"conditions": "the conditions", "items": "the items (their repeated answers)"}
    text = PROPORTION_AUTO_REASON.format(unit=unit.get(design.unit_name, "the conditions"))
    return out, f"{text}: " + "; ".join(reasons.values())


def tango_pairs(
    design: AnswerDesign, ia: np.ndarray, ib: np.ndarray, level: float, sim_level: float,
    alternative: str,
) -> list[dict[str, Any]]:  # fmt: skip
    """Every pair's Tango interval (at ``level`` and at the simultaneous ``sim_level``),
    its p-value (Tango's score test at 0, McNemar's z) and its paired table, for
    independent items answered once."""
    out = []
    se2 = answer_gram(design)
    for i, j in zip(ia.tolist(), ib.tolist(), strict=True):
        table = paired_table(design.scores[i], design.scores[j])
        ci = paired_proportion_diff_ci(table, method="tango", confidence_level=level,
                                       alternative=alternative)  # fmt: skip
        sim = paired_proportion_diff_ci(table, method="tango", confidence_level=sim_level,
                                        alternative=alternative)  # fmt: skip
        out.append({
            "interval": ci.confidence_interval,
            "simultaneous": sim.confidence_interval,
            "pvalue": tango_pvalue(table, alternative),
            "table": table,
            "standard_error": float(np.sqrt(max(se2[i, i] + se2[j, j] - 2 * se2[i, j], 0.0))),
        })  # fmt: skip
    return out


def answer_gram(design: AnswerDesign) -> np.ndarray:
    """The CR2 covariance matrix of the models' mean answers over ``design.unit``
    (``sum_g z_ag z_bg / (1 - h_g) / N^2``, ``z_mg`` model ``m``'s summed deviation in
    unit ``g``, ``h_g = n_g / N``): the engine's CR2 standard error of a mean over
    conditions on the diagonal (Bell & McCaffrey 2002)."""
    x = design.scores
    N = x.shape[1]
    unit = np.arange(N) if design.unit is None else design.unit
    G = int(unit.max()) + 1
    dev = x - x.mean(axis=1, keepdims=True)
    z = np.stack([np.bincount(unit, weights=d, minlength=G) for d in dev])
    h = np.bincount(unit, minlength=G) / N
    zs = z / np.sqrt(np.where(h < 1, 1.0 - h, 1.0))
    return np.asarray(zs @ zs.T / N**2)


def _mover(est, lim_a, lim_b, r):
    """Zou & Donner's (2008) MOVER bounds of ``a - b`` from the two estimates' limits."""
    (ea, eb), (la, ua), (lb, ub) = est, lim_a, lim_b
    d = ea - eb
    low = d - np.sqrt(max((ea - la) ** 2 + (ub - eb) ** 2 - 2 * r * (ea - la) * (ub - eb), 0.0))
    high = d + np.sqrt(max((ua - ea) ** 2 + (eb - lb) ** 2 - 2 * r * (ua - ea) * (eb - lb), 0.0))
    return max(low, -1.0), min(high, 1.0)


def mover_pairs(
    design: AnswerDesign,
    models: list[IntervalResult],
    ia: np.ndarray,
    ib: np.ndarray,
    level: float,
    sim_level: float,
    alternative: str,
) -> list[dict[str, Any]]:
    """Every pair's MOVER interval (Newcombe's square-and-add of the two models' own
    intervals, with the correlation of their estimates from the CR2 covariance over the
    resampled units: Zou & Donner 2008), at ``level`` and ``sim_level``; its p-value, the
    level at which the interval's bound reaches 0 (the interval's inversion); its CR2
    standard error.  A one-sided interval at level ``c`` takes the two-sided bound at
    ``2c - 1``."""
    gram = answer_gram(design)
    est = design.scores.mean(axis=1)

    def bounds(i: int, j: int, r: float, c: float) -> tuple[float, float]:
        two = c if alternative == "two-sided" else 2.0 * c - 1.0
        la, lb = (_limits(models[k], two) for k in (i, j))
        low, high = _mover((est[i], est[j]), la, lb, r)
        if alternative == "greater":
            return low, 1.0
        if alternative == "less":
            return -1.0, high
        return low, high

    out = []
    for i, j in zip(ia.tolist(), ib.tolist(), strict=True):
        vi, vj = gram[i, i], gram[j, j]
        r = float(gram[i, j] / np.sqrt(vi * vj)) if vi > 0 and vj > 0 else 0.0
        r = min(max(r, -1.0), 1.0)
        ci, sim = bounds(i, j, r, level), bounds(i, j, r, sim_level)
        d = est[i] - est[j]
        out.append({
            "interval": ConfidenceInterval(*ci),
            "simultaneous": ConfidenceInterval(*sim),
            "pvalue": _mover_pvalue(d, lambda c, i=i, j=j, r=r: _mover(
                (est[i], est[j]), _limits(models[i], c), _limits(models[j], c), r), alternative),
            "standard_error": float(np.sqrt(max(vi + vj - 2 * gram[i, j], 0.0))),
            "correlation": r,
        })  # fmt: skip
    return out


def _limits(res: Any, level: float) -> tuple[float, float]:
    """A model's two-sided interval at another level (from its result, no resampling)."""
    ci = res.interval(confidence_level=level, alternative="two-sided").confidence_interval
    return float(ci.low), float(ci.high)


def _mover_pvalue(d: float, two_sided: Any, alternative: str) -> float:
    """``1 - c`` for the two-sided level ``c`` at which the MOVER bound nearer 0 reaches it
    (bisection on the level); halved (or its complement) for a one-sided alternative."""
    if d == 0:
        p_two = 1.0
    else:
        side = 0 if d > 0 else 1  # the lower bound for a positive difference
        lo, hi = 1e-9, 1.0 - 1e-12
        if (two_sided(hi)[side] > 0) == (d > 0):  # excludes 0 even at the widest level
            p_two = 1.0 - hi
        else:
            for _ in range(50):
                mid = 0.5 * (lo + hi)
                if (two_sided(mid)[side] > 0) == (d > 0):
                    lo = mid
                else:
                    hi = mid
            p_two = 1.0 - 0.5 * (lo + hi)
    if alternative == "two-sided":
        return p_two
    toward = d > 0 if alternative == "greater" else d < 0
    return p_two / 2 if toward else 1.0 - p_two / 2
