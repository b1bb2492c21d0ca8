"""What is estimated from an evaluation log, and its interval: :func:`llm_ci`.

From the long table (:class:`~mlci.EvalLog`) to one value per (model, item), then a
weighted mean over items:

* ``estimand="mean"``: an item's value is the mean of its repeats' scores;
  ``estimand="pass@k"``: the unbiased estimator of Chen et al. (2021, eq. 1) from the
  item's ``n`` answers of which ``c`` are correct, ``1 - C(n-c, k) / C(n, k)``.
* ``aggregate="micro"``: every item weighs the same (the mean over all items);
  ``aggregate="macro"``: every task weighs the same (the mean of the task means).

How the interval accounts for the data's structure (Miller 2024, "Adding error bars to
evals", arXiv 2411.00640):

* **items** are the sampled units: the bootstrap resamples them (within tasks, which are
  fixed: tasks are strata), never the individual answers alone;
* **conditions** (``conditions=``: passages, subtasks, templates) are resampled whole: the
  items of one passage are correlated, and treating them as independent gives intervals
  that are too narrow;
* **repeats** are averaged within an item first (``repeats="average"``, the default: the
  item-level resampling already carries the repeats' noise), or resampled as a nested
  level within every drawn item (``repeats="nested"``, a two-stage bootstrap: it counts
  the within-item noise a second time and is conservative).

The default ``method="auto"``: for 0/1 answers whose mean is the score, the interval
:func:`mlci.bootstrap_ci` gives the mean of 0/1 values (Wilson, or the logit t over
items or conditions, Korn & Graubard's interval there within 0.1 of 0 or 1:
:mod:`mlci.llm.proportion`); otherwise the bootstrap-t over
clusters with the bias-reduced (CR2) standard error, and ``method="t"`` the CR2
standard error with a t interval on Kish's effective number of clusters
(:mod:`mlci.llm.linear`); the coverage study of docs/llm.md compares them with CR1 and
the cluster bootstrap.

``method="cr1"`` is the classical analytic alternative: the cluster-robust (CR1) standard error of
the weighted mean, ``V = G/(G-1) * sum_g (sum_{i in g} w_i e_i)^2 / (sum_i w_i)^2`` with
``e_i`` the item's deviation from the mean and ``G`` clusters (every item its own cluster
without ``conditions=``) -- the sandwich estimator of a weighted regression on a constant
that statsmodels computes with ``cov_type="cluster"`` -- and a ``t(G-1)`` interval
(Cameron & Miller 2015).  Miller (2024) recommends the same standard error (with a
normal quantile).

References
----------
- Miller, E. (2024). Adding error bars to evals: a statistical approach to language
  model evaluations. arXiv:2411.00640.
- Chen, M. et al. (2021). Evaluating large language models trained on code.
  arXiv:2107.03374 (the unbiased pass@k estimator, eq. 1 and its numpy form).
- Cameron, A. C. & Miller, D. L. (2015). A practitioner's guide to cluster-robust
  inference. *Journal of Human Resources* 50, 317-372.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from scipy.special import gammaln

from ..engine.auto import warn_outside_map
from ..engine.bootstrap import run_bootstrap
from ..engine.nested import plan_for_conditions
from ..feedback import reports_progress
from ..inputs import (
    DISTRIBUTION_METHODS,
    bootstrap_options,
    check_alternative,
    check_choice,
    check_confidence_level,
    check_positive_int,
    fast_unique,
    fill_doc,
    knobs_in_config,
    renamed_keyword,
)
from ..intervals.bootstrap import studentized_interval, t_interval
from ..intervals.formulas import wald_interval
from ..metrics import get_kernel
from ..results import ConfidenceInterval, IntervalResult, Result, format_value, json_safe, plain
from .linear import ClusterSums, cluster_sums, replicates
from .log import EvalLog, _item_codes
from .proportion import answer_design, proportion_models

__all__ = [
    "ESTIMANDS",
    "ItemTable",
    "LLMEstimates",
    "cr1_scores",
    "item_table",
    "llm_ci",
    "pass_at_k",
    "plain_fields",
    "summary",
]

ESTIMANDS = ("auto", "mean", "pass@k")
REPEATS = ("average", "nested")
AGGREGATES = ("micro", "macro")
ITEMS = ("error", "shared")


#: the methods computed from the per-cluster sums (:mod:`mlci.llm.linear`)
LINEAR_METHODS = ("auto", "t", "studentized")


def methods() -> tuple[str, ...]:
    """The interval methods of the LLM estimators: ``"auto"`` (the default), ``"t"`` (CR2),
    ``"studentized"``, ``"cr1"`` and the bootstrap's distribution methods."""
    return ("auto", "t", "studentized", "cr1", *DISTRIBUTION_METHODS)


#: why ``method="auto"`` is what it is (``details["method_reason"]``)
AUTO_REASON = (
    "auto: each model by the bootstrap-t over clusters (studentized, logit scale, CR2 "
    "standard error of the estimate); differences by t with the CR2 standard error and "
    "Kish's effective clusters - strata degrees of freedom (the coverage study of "
    "docs/llm.md)"
)
AUTO_NESTED_REASON = (
    "auto: bca, as repeats='nested' is a two-stage bootstrap (no linearization over nested levels)"
)


def pass_at_k(n: Any, c: Any, k: int) -> np.ndarray:
    """The unbiased pass@k estimator of Chen et al. (2021): ``1 - C(n-c, k) / C(n, k)``.

    Parameters
    ----------
    n : array-like of int
        Answers sampled for each item (``n >= k``).
    c : array-like of int
        Correct answers among them.
    k : int

    Returns
    -------
    ndarray of float

    Examples
    --------
    >>> pass_at_k([10, 10, 5], [0, 3, 5], 2).round(6).tolist()
    [0.0, 0.533333, 1.0]
    """
    n = np.asarray(n, dtype=float)
    c = np.asarray(c, dtype=float)
    out = np.ones(np.broadcast(n, c).shape)
    ok = n - c >= k  # otherwise every k-subset holds a correct answer
    a = (n - c)[ok] if n.ndim else n - c
    nn = n[ok] if n.ndim else n
    # C(n-c, k) / C(n, k) through log-gamma (exact to ~1e-13 for n in the thousands)
    ratio = np.exp(gammaln(a + 1) - gammaln(a - k + 1) - gammaln(nn + 1) + gammaln(nn - k + 1))
    out[ok] = 1.0 - ratio
    return out


@dataclass(frozen=True)
class ItemTable:
    """One value per (model, item) and the items' design, ready for the estimators.

    Attributes
    ----------
    models : list of str
    values : ndarray, shape (n_models, n_items)
        The per-item value (mean score or pass@k).
    weights : ndarray, shape (n_items,)
        1 (micro) or 1 / items of the task (macro).
    task : ndarray of int, shape (n_items,)
    cluster : ndarray of int or None
        Cluster of every item (unique within its task), None without ``conditions=``.
    item_rows : ndarray of int, shape (n_models, n_items)
        A row of the log for every (model, item), for messages.
    labels : list of str
        ``"task/item"`` of every item.
    n_repeats : ndarray of int, shape (n_models, n_items)
    rows : list of ndarray or None
        With ``repeats="nested"``: for each model, its rows of the log ordered by item and
        repeat (the same layout for every model).
    details : dict
        ``n_items``, ``n_tasks``, ``n_clusters``, items dropped by ``items="shared"``.
    """

    models: list[str]
    values: np.ndarray
    weights: np.ndarray
    task: np.ndarray
    cluster: np.ndarray | None
    item_rows: np.ndarray
    labels: list[str]
    n_repeats: np.ndarray
    rows: list[np.ndarray] | None
    details: dict[str, Any]
    estimand: str = "mean"
    k: int = 1


def _check_log(log: Any) -> EvalLog:
    if not isinstance(log, EvalLog):
        raise TypeError(
            "`log` must be an EvalLog (from mlci.read_eval_logs or mlci.eval_log); got "
            f"{type(log).__name__}."
        )
    return log


def _reducer_estimand(reducer: str) -> tuple[str, int] | None:
    """The estimand of an inspect-ai epoch reducer that mlci computes: ``mean`` (the mean
    over epochs) and ``pass_at_<k>`` (the unbiased pass@k, inspect_ai.scorer's
    ``pass_at``); None for the others (median, mode, max, at_least_<k>, custom)."""
    if reducer == "mean":
        return "mean", 1
    m = re.fullmatch(r"pass_at_(\d+)", reducer)
    return ("pass@k", int(m.group(1))) if m else None


def resolve_estimand(log: EvalLog, estimand: str, k: int) -> tuple[str, int, str | None]:
    """``(estimand, k, note)``: ``"auto"`` becomes the estimand of the logs' epoch reducer
    (inspect-ai records it) when mlci computes it, else the mean; an epoch reducer mlci
    does not compute is an error with ``"auto"`` and a note with an explicit estimand."""
    reducers: dict[str, list[dict[str, Any]]] = {}
    names = set(log.models)
    for src in log.details.get("sources") or []:
        if src.get("reducer") and src.get("model") in names:
            reducers.setdefault(str(src["reducer"]), []).append(src)

    def told(red: str) -> str:
        src = reducers[red][0]
        head = src.get("headline")
        more = f", {len(reducers[red]) - 1} more" if len(reducers[red]) > 1 else ""
        shown = f"; inspect's headline {head:.6g}" if head is not None else ""
        return f"{red!r} ({Path(src['file']).name}{more}{shown})"

    if estimand == "auto":
        if set(reducers) <= {"mean"}:
            return "mean", k, None
        if len(reducers) > 1:
            raise ValueError(
                "`estimand`='auto': the logs reduce the epochs differently ("
                f"{', '.join(told(r) for r in reducers)}); pass `estimand`='mean' or "
                "`estimand`='pass@k' with `k` to say which estimand to show for every model."
            )
        red = next(iter(reducers))
        got = _reducer_estimand(red)
        if got is None:
            raise ValueError(
                f"`estimand`='auto': the log reduces the epochs with {told(red)}, which mlci "
                "does not compute; pass `estimand`='mean' (the mean over epochs) or "
                "`estimand`='pass@k' with `k`, and the result says which estimand it shows."
            )
        if got[0] == "pass@k" and k not in (1, got[1]):
            raise ValueError(
                f"`k`={k} with estimand='auto': the log's epoch reducer is {told(red)}; "
                "pass estimand='pass@k' to compute another k."
            )
        return got[0], got[1], f"estimand from the logs' epoch reducer {told(red)}"
    other = [r for r in reducers if _reducer_estimand(r) != (estimand, k)]
    if not other:
        return estimand, k, None
    shown = estimand_name(estimand, k, log.metric)
    return (
        estimand,
        k,
        (
            f"shown: {shown}, as asked; the logs reduce the epochs "
            f"with {', '.join(told(r) for r in other)}, another estimand"
        ),
    )


def item_table(
    log: EvalLog,
    *,
    estimand: str = "auto",
    k: int = 1,
    conditions: str | None = None,
    repeats: str = "average",
    aggregate: str = "micro",
    items: str = "error",
    models: list[str] | None = None,
) -> ItemTable:
    """Validate the estimand's options on a log and reduce it to one value per item.

    Raises a ValueError naming the file and line when a model lacks items another model
    has (unless ``items="shared"``), when pass@k meets a non-binary score or an item with
    fewer than ``k`` answers, or when ``repeats="nested"`` meets models with different
    numbers of repeats of an item.
    """
    log = _check_log(log)
    check_choice("estimand", estimand, ESTIMANDS)
    check_choice("repeats", repeats, REPEATS)
    check_choice("aggregate", aggregate, AGGREGATES)
    check_choice("items", items, ITEMS)
    k = check_positive_int("k", k)
    if models is not None:
        log = log.select(models=models)
    estimand, k, note = resolve_estimand(log, estimand, k)
    cluster = conditions
    if cluster is not None and not isinstance(cluster, str):
        raise TypeError(
            f"`conditions` must be the name of a condition column of the log or 'task'; "
            f"got {cluster!r}."
        )
    if cluster is not None and cluster != "task" and cluster not in log.conditions:
        have = ["task", *log.conditions]
        raise ValueError(
            f"`conditions`={cluster!r} is not a column of the log (condition columns: "
            f"{have}); read it with `conditions=[...]` (--condition) or pass one of those."
        )
    if estimand == "pass@k" and repeats == "nested":
        raise ValueError(
            "`repeats`='nested' does not apply to pass@k, which is one value per item from "
            "its n answers; use repeats='average'."
        )
    if estimand == "mean" and k != 1:
        raise ValueError("`k` applies to estimand='pass@k' only; leave it at 1 for 'mean'.")
    names = log.models
    item, n_items = _item_codes(log)
    mod = log.model_codes[1]
    M = len(names)
    cell = mod.astype(np.int64) * n_items + item
    cnt = np.bincount(cell, minlength=M * n_items).reshape(M, n_items)
    tot = np.bincount(cell, weights=log.score, minlength=M * n_items).reshape(M, n_items)
    first: np.ndarray = np.full(M * n_items, -1, dtype=np.int64)
    rev = np.arange(log.n_rows)[::-1]
    first[cell[rev]] = rev  # the first row of every cell wins
    first = first.reshape(M, n_items)
    any_row = first.max(axis=0)
    labels_all = [f"{log.task[r]}/{log.item[r]}" for r in any_row]
    present = cnt > 0
    details: dict[str, Any] = {}
    keep: np.ndarray = np.ones(n_items, dtype=bool)
    if not present.all():
        lacking = {names[m]: int((~present[m]).sum()) for m in range(M) if not present[m].all()}
        if items == "error":
            m = next(i for i in range(M) if not present[i].all())
            it = int(np.flatnonzero(~present[m])[0])
            other = int(np.flatnonzero(present[:, it])[0])
            raise ValueError(
                f"The models were not scored on the same items: {lacking} item(s) missing "
                f"(model: count). E.g. model {names[m]!r} has no score for item "
                f"{labels_all[it]!r}, which model {names[other]!r} has at "
                f"{log.where(int(first[other, it]))}. A comparison needs the same items for "
                "every model: re-run the missing items, or pass items='shared' (--items "
                "shared) to keep only the items every model has (the number dropped is "
                "reported)."
            )
        keep = np.asarray(present.all(axis=0))
        if not keep.any():
            raise ValueError("`items`='shared': no item is scored for every model.")
        details["items_missing"] = lacking
        details["n_items_dropped"] = int((~keep).sum())
    cnt, tot, first = cnt[:, keep], tot[:, keep], first[:, keep]
    labels = [lab for lab, kp in zip(labels_all, keep, strict=True) if kp]
    rep_row = first[0]
    task = fast_unique(log.task[rep_row])[1]
    if estimand == "mean":
        values = tot / cnt
    else:
        binary = (log.score == 0) | (log.score == 1)
        if not binary.all():
            r = int(np.flatnonzero(~binary)[0])
            raise ValueError(
                f"pass@k needs correct/incorrect scores (0 or 1); {log.where(r)} has "
                f"{float(log.score[r])!r}."
            )
        short = cnt < k
        if short.any():
            m, it = (int(v[0]) for v in np.nonzero(short))
            raise ValueError(
                f"pass@{k} needs at least k={k} answers per item; model {names[m]!r} has "
                f"{int(cnt[m, it])} for item {labels[it]!r} ({log.where(int(first[m, it]))}). "
                "Lower `k` or sample more answers."
            )
        values = pass_at_k(cnt, np.round(tot), k)
    n_task = np.bincount(task)
    weights = np.ones(task.size) if aggregate == "micro" else 1.0 / n_task[task]
    cl = None
    if cluster == "task":
        cl = task.copy()
    elif cluster is not None:
        lab = fast_unique(log.conditions[cluster][rep_row])[1].astype(np.int64)
        cl = fast_unique(task.astype(np.int64) * (int(lab.max()) + 1) + lab)[1]
    rows = None
    if repeats == "nested":
        if not (cnt == cnt[0]).all():
            m, it = (int(v[0]) for v in np.nonzero(cnt != cnt[0]))
            raise ValueError(
                f"`repeats`='nested' pairs the models' answers to every item, so every model "
                f"needs the same number of repeats of an item: item {labels[it]!r} has "
                f"{int(cnt[m, it])} for model {names[m]!r} but {int(cnt[0, it])} for "
                f"{names[0]!r}. Use repeats='average'."
            )
        kept_code = np.full(n_items, -1, dtype=np.int64)
        kept_code[np.flatnonzero(keep)] = np.arange(int(keep.sum()))
        rows = []
        for m in range(M):
            sel = np.flatnonzero((mod == m) & (kept_code[item] >= 0))
            o = np.lexsort((log.repeat[sel], kept_code[item[sel]]))
            rows.append(sel[o])
    details.update(
        n_items=int(keep.sum()),
        n_tasks=int(n_task.size),
        n_clusters=None if cl is None else int(cl.max()) + 1,
    )
    if note:
        details["estimand_note"] = note
    partial = {m: t for m, t in log.partial.items() if m in names}
    if partial:
        details["partial"] = partial
    return ItemTable(
        models=names,
        values=values,
        weights=weights,
        task=task,
        cluster=cl,
        item_rows=first,
        labels=labels,
        n_repeats=cnt,
        rows=rows,
        details=details,
        estimand=estimand,
        k=k,
    )


# --------------------------------------------------------------------------- CR1
def cr1_scores(values: np.ndarray, weights: np.ndarray, cluster: np.ndarray | None):
    """Weighted means and their per-cluster score sums.

    Returns ``(estimate (M,), S (M, G), total weight, G)`` where ``S[m, g] = sum_{i in g}
    w_i (y_mi - estimate_m)``; the CR1 variance of model ``m`` is ``G/(G-1) * |S_m|^2 /
    W^2`` and that of a difference ``a - b`` is ``G/(G-1) * |S_a - S_b|^2 / W^2`` (the
    scores are linear in the values).
    """
    values = np.atleast_2d(values)
    G = values.shape[1] if cluster is None else int(cluster.max()) + 1
    if G < 2:
        what = "item" if cluster is None else "cluster"
        raise ValueError(
            f"method='cr1' needs at least 2 clusters (or items); the log has {G} {what}: "
            "no standard error can be estimated from one."
        )
    W = float(weights.sum())
    est = values @ weights / W
    resid = (values - est[:, None]) * weights[None, :]
    if cluster is None:
        return est, resid, W, G
    ind = sparse.csr_matrix(
        (np.ones(cluster.size), (np.arange(cluster.size), cluster)), shape=(cluster.size, G)
    )
    S = np.asarray((ind.T @ resid.T).T)
    return est, S, W, G


def estimand_name(estimand: str, k: int, metric: str | None) -> str:
    """``"mean acc"``, ``"pass@5"``..."""
    if estimand == "pass@k":
        return f"pass@{k}"
    return f"mean {metric}" if metric else "mean score"


def sample_design(table: ItemTable, repeats: str) -> dict[str, Any]:
    """The per-sample arrays of the bootstrap: ``values`` (one per model), ``weights``,
    ``conditions``, ``strata``, ``two_stage``."""
    n_tasks = int(table.task.max()) + 1
    # tasks are strata, unless they are the clusters themselves (cluster="task")
    by_task = table.cluster is not None and np.array_equal(table.cluster, table.task)
    if repeats == "average":
        return {
            "values": list(table.values),
            "weights": table.weights,
            "conditions": table.cluster,
            "strata": table.task if n_tasks > 1 and not by_task else None,
            "two_stage": False,
        }
    # nested: one sample per answer; levels [cluster,] item, answer; every level resampled
    K = table.n_repeats[0]
    item = np.repeat(np.arange(K.size), K)
    answer = np.concatenate([np.arange(k) for k in K])
    levels = [item, answer]
    if table.cluster is not None:
        levels.insert(0, table.cluster[item])
    return {
        "values": None,  # filled by the caller from the log's rows
        "weights": (table.weights / K)[item],
        "conditions": levels,
        "strata": None,
        "two_stage": True,
    }


@dataclass(frozen=True, kw_only=True, repr=False)
class LLMEstimates(Result):
    """Every model's estimate with its interval (:func:`mlci.llm_ci`).

    Attributes
    ----------
    estimand : str
        E.g. ``"mean acc"`` or ``"pass@5"``.
    models : dict of str -> IntervalResult
        Each model's estimate and interval (a :class:`~mlci.BootstrapResult` for the
        bootstrap methods).
    method : str
    confidence_level : float
    alternative : str
    conditions : str or None
    aggregate : str
        ``"micro"`` or ``"macro"``.
    repeats : str
        ``"average"`` or ``"nested"``.
    details : dict
        ``n_items``, ``n_tasks``, ``n_clusters``, and ``items_missing`` /
        ``n_items_dropped`` with ``items="shared"``; ``partial`` (model: ``"partial: k
        of N samples (...)"``) for runs read with ``partial=True``; ``estimand_note`` when
        the logs' epoch reducer chose the estimand or differs from it.

    Examples
    --------
    >>> import mlci
    >>> from mlci.data import llm_example_path
    >>> log = mlci.read_eval_logs(llm_example_path(), conditions=["group"])
    >>> res = mlci.llm_ci(log, conditions="group", method="cr1")
    >>> res  # doctest: +NORMALIZE_WHITESPACE
    LLMEstimates(estimand='mean score', 3 models, 211 items in 38 clusters,
                 95% CI (cr1), aggregate='micro', repeats='average')
    >>> res.to_frame()[["model", "estimate", "low", "high"]].round(3)
         model  estimate    low   high
    0  model-a     0.730  0.666  0.794
    1  model-b     0.695  0.635  0.755
    2  model-c     0.592  0.516  0.669
    """

    estimand: str
    models: dict[str, IntervalResult]
    method: str
    confidence_level: float
    alternative: str = "two-sided"
    conditions: str | None = None
    aggregate: str = "micro"
    repeats: str = "average"
    details: Mapping[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return (
            f"LLMEstimates({summary(self)}, aggregate={self.aggregate!r}, repeats={self.repeats!r})"
        )

    def __str__(self) -> str:
        lines = [repr(self)]
        width = max(len(m) for m in self.models)
        partial = self.details.get("partial") or {}
        for name, r in self.models.items():
            lo, hi = r.confidence_interval
            lines.append(
                f"  {name:<{width}}  {format_value(r.estimate)}  "
                f"[{format_value(lo)}, {format_value(hi)}]  se={format_value(r.standard_error)}"
                + (f"  {partial[name]}" if name in partial else "")
            )
        lines.extend(notes(self))
        return "\n".join(lines)

    def rows(self) -> list[dict[str, Any]]:
        """One row per model: ``model``, ``estimand``, ``estimate``, ``low``, ``high``,
        ``standard_error``, ``method``, ``confidence_level``, ``n_items``; and ``partial``
        (``"partial: k of N samples (...)"`` or None) when a run read was partial."""
        partial = self.details.get("partial") or {}
        return [
            plain(
                {
                    "model": name,
                    "estimand": self.estimand,
                    "estimate": r.estimate,
                    "low": r.confidence_interval.low,
                    "high": r.confidence_interval.high,
                    "standard_error": r.standard_error,
                    "method": self.method,
                    "confidence_level": self.confidence_level,
                    "n_items": self.details.get("n_items"),
                }
                | ({"partial": partial.get(name)} if partial else {})
            )
            for name, r in self.models.items()
        ]

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain values (each model's interval as its row)."""
        return plain_fields(self)


def summary(res: Any) -> str:
    """``estimand='...', 3 models, 211 items in 38 clusters, 95% CI (bca)`` of an LLM
    result (the head of its repr); ``partial: 1 model`` when a run read was partial."""
    d = res.details
    where = f"{d.get('n_items')} items"
    if d.get("n_clusters") is not None:
        where += f" in {d['n_clusters']} clusters"
    side = "" if res.alternative == "two-sided" else f", {res.alternative}"
    part = d.get("partial") or {}
    part_text = f", partial: {len(part)} model{'s' if len(part) > 1 else ''}" if part else ""
    return (
        f"estimand={res.estimand!r}, {len(res.models)} models, {where}, "
        f"{res.confidence_level * 100:.10g}% CI ({res.method}{side}){part_text}"
    )


def notes(res: Any) -> list[str]:
    """The lines an LLM result's text adds under its table: the partial runs and the
    estimand's note."""
    d = res.details
    out = [f"  {m}: {t}" for m, t in (d.get("partial") or {}).items()]
    if d.get("estimand_note"):
        out.append(f"  note: {d['estimand_note']}")
    return out


def plain_fields(res: Any) -> dict[str, Any]:
    """An LLM result's fields as plain values: each model's interval (and each difference,
    leaderboard entry) as its row."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(res):
        v = getattr(res, f.name)
        if f.name == "models":
            v = {name: r.rows()[0] for name, r in v.items()}
        elif isinstance(v, tuple) and v and isinstance(v[0], Result):
            v = [x.rows()[0] for x in v]
        out[f.name] = json_safe(dict(v) if isinstance(v, Mapping) else v)
    return out


@knobs_in_config
@reports_progress
@fill_doc
def llm_ci(
    log: EvalLog,
    *,
    estimand: str = "auto",
    k: int = 1,
    conditions: str | None = None,
    repeats: str = "average",
    aggregate: str = "micro",
    items: str = "error",
    models: list[str] | None = None,
    method: str = "auto",
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    n_resamples: int = 1000,
    rng: Any = None,
    **deprecated: Any,
) -> LLMEstimates:
    """Every model's score on a benchmark, with an interval that respects its structure.

    Parameters
    ----------
    log : EvalLog
        From :func:`mlci.read_eval_logs` or :func:`mlci.eval_log`.
    estimand : {"auto", "mean", "pass@k"}
        The mean score over items, or the unbiased pass@k (Chen et al. 2021) averaged over
        items (scores 0/1, at least ``k`` answers per item).  ``"auto"`` (default): the
        estimand of the epoch reducer the logs record (inspect-ai: ``mean``, or
        ``pass_at_<k>`` as pass@k, its headline number), else the mean; a reducer mlci
        does not compute (median, mode, max, custom) is an error naming it.  An explicit
        estimand that differs from the logs' reducer is computed and
        ``details["estimand_note"]`` says so.
    k : int, default 1
        For pass@k.
    conditions : str, optional
        A condition column of the log (``"passage"``, ``"template"``...) or ``"task"``:
        conditions are resampled whole (or are CR1's clusters).  (``cluster`` is a
        deprecated spelling.)
    repeats : {"average", "nested"}
        Average an item's repeated answers first (default), or resample them as a nested
        level within each drawn item (conservative, see the module doc).
    aggregate : {"micro", "macro"}
        Mean over items, or mean over tasks of the task means.
    items : {"error", "shared"}
        When models were scored on different items: an error naming a missing item
        (default), or keep the items every model has (counts in ``details``).
    models : list of str, optional
        Only these models.
    method : {"auto", "t", "studentized", "cr1", "bca", "percentile", "basic", "normal", "bc"}
        ``"auto"`` (default): for 0/1 answers whose mean is the score, the interval
        ``mlci.bootstrap_ci(answers, metric="mean", conditions=...)`` gives (Wilson's for
        items answered once, else the logit t over the items or conditions, and
        there within 0.1 of 0 or 1 Korn & Graubard's interval,
        :mod:`mlci.engine.clustered_edge`; :mod:`mlci.llm.proportion`); otherwise
        the bootstrap-t over clusters (studentized, logit scale, CR2 standard error;
        BCa with ``repeats="nested"``). ``"t"``: the CR2 standard error with a t
        interval on Kish's effective clusters minus tasks (:mod:`mlci.llm.linear`).
        ``"cr1"``: the analytic CR1 standard error with a t(G-1) interval (statsmodels'
        ``cov_type="cluster"``). Otherwise the engine's cluster bootstrap interval.
    confidence_level : float, default 0.95
    alternative : {"two-sided", "less", "greater"}
    n_resamples, rng
        Bootstrap options (ignored by ``method="cr1"`` and ``"t"``).

    Returns
    -------
    LLMEstimates

    Examples
    --------
    >>> import mlci
    >>> log = mlci.eval_log(model=["A"] * 8, item=[1, 1, 2, 2, 3, 3, 4, 4],
    ...                     repeat=[0, 1] * 4, score=[1, 1, 0, 1, 0, 0, 1, 0])
    >>> r = mlci.llm_ci(log, estimand="pass@k", k=2, method="cr1").models["A"]
    >>> r.estimate, r.details["n_clusters"]
    (0.75, 4)
    """
    conditions = renamed_keyword(deprecated, "cluster", "conditions", conditions, None)
    table = item_table(log, estimand=estimand, k=k, conditions=conditions, repeats=repeats,
                       aggregate=aggregate, items=items, models=models)  # fmt: skip
    method, opts = _interval_options(method, confidence_level, alternative, n_resamples, rng)
    engine_method, reason = resolve_llm_method(method, repeats)
    name = estimand_name(table.estimand, table.k, log.metric)
    out: dict[str, IntervalResult] = {}
    details = dict(table.details)
    if reason is not None:
        details["method_reason"] = reason
    if method == "cr1":
        est, S, W, G = cr1_scores(table.values, table.weights, table.cluster)
        se = np.sqrt(G / (G - 1) * (S**2).sum(axis=1)) / W
        level = opts["confidence_level"]
        low, high = wald_interval(est, se, confidence_level=level, df=G - 1,
                                  alternative=opts["alternative"], bounds=(0.0, 1.0))  # fmt: skip
        for m, model in enumerate(table.models):
            out[model] = IntervalResult(
                estimate=float(est[m]),
                confidence_interval=ConfidenceInterval(float(low[m]), float(high[m])),
                confidence_level=level,
                method="cr1",
                alternative=opts["alternative"],
                standard_error=float(se[m]),
                metric=name,
                details={"n_clusters": G, "df": G - 1, "n_items": table.details["n_items"]},
            )
    elif engine_method == "auto" and (answers := answer_design(log, table, models)) is not None:
        out, details["method_reason"] = proportion_models(answers, table, name, opts)
    elif engine_method in LINEAR_METHODS:
        cs = linear_sums(table, opts)
        details["df"] = cs.df
        details["effective_clusters"] = cs.effective_clusters
        out = linear_models(cs, table, engine_method, name, opts)
    else:
        design = sample_design(table, repeats)
        values = design["values"] or [log.score[r] for r in table.rows or []]
        bo = opts["bootstrap"]
        plan = plan_for_conditions(
            len(design["weights"]),
            conditions=design["conditions"],
            strata=design["strata"],
            two_stage=design["two_stage"],
            n_resamples=bo.n_resamples,
            rng=bo.seed,
        )
        for model, v in zip(table.models, values, strict=True):
            kernel = get_kernel("weighted_mean", (design["weights"], v), {})
            kernel.bounds = (0.0, 1.0)
            out[model] = run_bootstrap(
                kernel,
                plan,
                method=engine_method,
                confidence_level=bo.confidence_level,
                alternative=bo.alternative,
                batch=bo.engine.batch,
                n_jobs=bo.engine.n_jobs,
                max_memory=bo.engine.max_memory,
                metric_name=name,
            )
    return LLMEstimates(
        estimand=name,
        models=out,
        method=method,
        confidence_level=opts["confidence_level"],
        alternative=opts["alternative"],
        conditions=conditions,
        aggregate=aggregate,
        repeats=repeats,
        details=details,
    )


def resolve_llm_method(method: str, repeats: str) -> tuple[str, str | None]:
    """``(method actually used, reason)``: ``"auto"`` stays ``"auto"`` (models studentized,
    differences t) unless the repeats are nested, where it is BCa."""
    if repeats == "nested" and method in ("cr1", "t", "studentized"):
        raise ValueError(
            f"`repeats`='nested' is a bootstrap scheme; method={method!r} clusters the "
            "answers by item (repeats='average'). Pass repeats='average', or a bootstrap "
            "distribution method ('bca', 'percentile'...) or 'auto'."
        )
    if method == "auto":
        return ("bca", AUTO_NESTED_REASON) if repeats == "nested" else ("auto", AUTO_REASON)
    return method, None


def linear_sums(table: ItemTable, opts: dict[str, Any]) -> ClusterSums:
    """The per-cluster sums of an item table, with the resampling plan of its design."""
    design = sample_design(table, "average")
    bo = opts["bootstrap"]
    return cluster_sums(
        table.values,
        table.weights,
        design["conditions"],
        design["strata"],
        n_resamples=bo.n_resamples,
        rng=bo.seed,
        engine=bo.engine,
    )


def linear_models(
    cs: ClusterSums, table: ItemTable, method: str, name: str, opts: dict[str, Any]
) -> dict[str, IntervalResult]:
    """Every model's interval by ``"t"`` (CR2) or the bootstrap-t (``"studentized"``,
    ``"auto"``)."""
    level, alt = opts["confidence_level"], opts["alternative"]
    se = cs.cr2_se()
    if table.cluster is not None:  # the engine's warning below 8 clusters
        warn_outside_map({"n_conditions": cs.n_clusters}, name, method)
    if method == "t":
        low, high, _ = t_interval(
            cs.estimate, se, cs.df, confidence_level=level, alternative=alt, bounds=(0.0, 1.0)
        )
        used = "t"
    else:
        dist, se_dist = replicates(cs)
        low, high, _ = studentized_interval(
            cs.estimate, se, dist, se_dist, confidence_level=level, alternative=alt,
            bounds=(0.0, 1.0), df=cs.df,  # near 0 or 1: logit t (intervals.bootstrap)
        )  # fmt: skip
        used = "studentized"
    common = {
        "n_clusters": cs.n_clusters,
        "df": cs.df,
        "effective_clusters": cs.effective_clusters,
        "n_items": table.details["n_items"],
    }
    return {
        model: IntervalResult(
            estimate=float(cs.estimate[m]),
            confidence_interval=ConfidenceInterval(float(low[m]), float(high[m])),
            confidence_level=level,
            method=used,
            alternative=alt,
            standard_error=float(se[m]),
            metric=name,
            details=dict(common),
        )
        for m, model in enumerate(table.models)
    }


def _interval_options(
    method, confidence_level, alternative, n_resamples, rng
) -> tuple[str, dict[str, Any]]:
    """Validate the interval options shared by the LLM estimators (``cr1`` or a bootstrap)."""
    method = check_choice("method", method, methods())
    level = check_confidence_level(confidence_level)
    alt = check_alternative(alternative)
    bo = bootstrap_options(
        n_resamples=n_resamples,
        confidence_level=level,
        method=method if method in DISTRIBUTION_METHODS else "percentile",
        alternative=alt,
        rng=rng,
    )
    return method, {"confidence_level": level, "alternative": alt, "bootstrap": bo}
