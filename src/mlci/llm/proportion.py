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
  than 4 effective minority answers);
* a paired difference of two models on independent items answered once is **Tango's
  score interval** of their paired 2x2 table, with Tango's score test at 0 (McNemar's z)
  as its p-value, as :func:`mlci.compare` gives it; over items answered several times or
  over conditions it stays the t interval on its CR2 standard error (the engine's rule).

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
from ..results import IntervalResult
from .log import EvalLog, _item_codes

__all__ = ["PROPORTION_AUTO_REASON", "AnswerDesign", "answer_design", "proportion_models",
           "tango_pairs"]  # fmt: skip

#: the start of ``details["method_reason"]`` when the answers are 0/1
PROPORTION_AUTO_REASON = (
    "auto: every answer is scored 0 or 1, so a model's score is a proportion of answers; "
    "its interval is bootstrap_ci(answers, metric='mean', conditions=...)'s under auto "
    "(Wilson of items answered once, else the logit t over {unit}; docs/validation.md, "
    "'LLM evals near the bounds')"
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
    reason = ""
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
        reason = str(res.details.get("method_reason", res.method))
    unit = {"conditions": "the conditions", "items": "the items (their repeated answers)"}
    text = PROPORTION_AUTO_REASON.format(unit=unit.get(design.unit_name, "the conditions"))
    return out, f"{text}: {reason}"


def tango_pairs(
    design: AnswerDesign, ia: np.ndarray, ib: np.ndarray, level: float, sim_level: float,
    alternative: str,
) -> list[dict[str, Any]]:  # fmt: skip
    """Every pair's Tango interval (at ``level`` and at the simultaneous ``sim_level``),
    its p-value (Tango's score test at 0, McNemar's z) and its paired table, for
    independent items answered once."""
    out = []
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
        })  # fmt: skip
    return out
