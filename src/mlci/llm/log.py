"""The long table of a language-model evaluation: one row per (model, task, item, repeat).

Every reader (:func:`mlci.read_eval_logs`) and :func:`mlci.eval_log` (from arrays or a
DataFrame) produce an :class:`EvalLog`.  It is checked once, when it is built:

* every score is a finite number in ``[0, 1]`` (a correct/incorrect answer is 0 or 1, a
  graded or judge score a fraction);
* a (model, task, item, repeat) appears once: a duplicate is an error naming both rows
  (file and line), never silently averaged;
* an item belongs to one condition (passage, subtask, template) in every row.

Rows remember where they came from (``file:line`` for files, ``row i`` for arrays), so the
estimators below can name the row behind any later problem (e.g. an item that one model
lacks).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from ..feedback import warn
from ..inputs import ArgSpec, check_flag, fast_unique, gather, renamed_keyword
from ..results import Result, require_pandas

__all__ = ["EvalLog", "build_log", "eval_log"]

#: names a condition column may not take (they are the table's own columns)
RESERVED = ("model", "task", "item", "repeat", "score")


@dataclass(frozen=True, eq=False, repr=False)
class EvalLog(Result):
    """Per-sample scores of language models: the long table every LLM estimator reads.

    Build one with :func:`mlci.eval_log` (arrays or a DataFrame) or
    :func:`mlci.read_eval_logs` (lm-evaluation-harness, inspect-ai, long CSV/JSONL/Parquet).

    Attributes
    ----------
    model, task, item : ndarray, shape (n_rows,)
        Who answered, in which task, which question (strings from the readers; from
        :func:`mlci.eval_log`, labels of the type given: strings or integers).  An item
        is identified by ``(task, item)``: the same id in two tasks is two items.
    repeat : ndarray of int, shape (n_rows,)
        Which answer to the item (0 when each item was answered once; inspect-ai's
        ``epoch``; the sample index of a pass@k run).
    score : ndarray of float, shape (n_rows,)
        In ``[0, 1]``.
    conditions : dict of str -> ndarray of str
        Extra per-row columns that group items (``"passage"``, ``"subtask"``...): the
        conditions the estimators can resample whole (``conditions="passage"``).
    files : tuple of str
        The sources of the rows (``"<data>"`` for arrays).
    file_index, line : ndarray of int
        The source file and line (1-based; row number, 0-based, for arrays) of every row.
    metric : str or None
        The score's name (e.g. ``"acc"``), when read from logs.
    details : Mapping
        ``n_dropped``: rows dropped for a missing value (:func:`mlci.eval_log` with
        ``dropna=True``); from :func:`mlci.read_eval_logs`, ``sources`` (one dict per
        file: format, model, task, status, ``n_samples`` read of ``n_expected``, the
        epoch ``reducer``...) and, for a run read with ``partial=True``, ``partial``
        (model: ``"partial: k of N samples (file: status)"``).

    Examples
    --------
    >>> import mlci
    >>> log = mlci.eval_log(model=["A", "A", "B", "B"], item=[1, 2, 1, 2],
    ...                     score=[1, 0, 1, 1])
    >>> log
    EvalLog(2 models, 1 task, 2 items, 1 repeat per item, 4 rows)
    >>> log.to_frame()[["model", "item", "score"]]
      model  item  score
    0     A     1    1.0
    1     A     2    0.0
    2     B     1    1.0
    3     B     2    1.0
    """

    model: np.ndarray
    task: np.ndarray
    item: np.ndarray
    repeat: np.ndarray
    score: np.ndarray
    conditions: Mapping[str, np.ndarray] = field(default_factory=dict)
    files: tuple[str, ...] = ("<data>",)
    file_index: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int32))
    line: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    metric: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    @cached_property
    def model_codes(self) -> tuple[list[str], np.ndarray]:
        """The models in order of first appearance and every row's index among them."""
        return _first_seen_codes(self.model)

    @cached_property
    def task_codes(self) -> tuple[list[str], np.ndarray]:
        """The tasks in order of first appearance and every row's index among them."""
        return _first_seen_codes(self.task)

    @cached_property
    def item_codes(self) -> tuple[np.ndarray, int]:
        """Every row's item ``(task, item)`` as a code, and the number of items."""
        t = self.task_codes[1].astype(np.int64)
        i = _codes(self.item)[1].astype(np.int64)
        uniq, inv = fast_unique(t * (int(i.max(initial=0)) + 1) + i)
        return inv, len(uniq)

    @property
    def clusters(self) -> Mapping[str, np.ndarray]:
        """Deprecated spelling of :attr:`conditions`."""
        warn("`EvalLog.clusters` is deprecated; it is spelled `conditions` now "
             "(docs/glossary.md).", FutureWarning)  # fmt: skip
        return self.conditions

    @property
    def partial(self) -> dict[str, str]:
        """``{model: "partial: k of N samples (...)"}`` for the models whose runs were read
        with ``partial=True`` and did not finish (empty when every run is complete)."""
        have = set(self.models)
        return {m: t for m, t in (self.details.get("partial") or {}).items() if m in have}

    @property
    def n_rows(self) -> int:
        """Number of rows (scores)."""
        return int(self.score.size)

    @property
    def models(self) -> list[str]:
        """The models, in order of first appearance."""
        return self.model_codes[0]

    @property
    def tasks(self) -> list[str]:
        """The tasks, in order of first appearance."""
        return self.task_codes[0]

    def where(self, row: int) -> str:
        """Where a row came from: ``"file.jsonl:12"`` (or ``"row 12"`` for arrays).

        Parameters
        ----------
        row : int
            The row's index in the log (0-based, as in its arrays).

        Examples
        --------
        >>> import mlci
        >>> mlci.eval_log(model=["A", "B"], item=[1, 1], score=[1, 0]).where(1)
        'row 1'
        """
        f = self.files[int(self.file_index[row])]
        if f == "<data>":
            return f"row {int(self.line[row])}"
        return f"{f}:{int(self.line[row])}"

    def select(self, models: Sequence[str] | None = None, tasks: Sequence[str] | None = None):
        """The rows of some models and/or tasks (a new :class:`EvalLog`).

        Parameters
        ----------
        models : list of str, optional
            The models kept (default: all); each must be in the log.
        tasks : list of str, optional
            The tasks kept (default: all); each must be in the log.  With both, a row
            is kept when its model and its task are listed.

        Examples
        --------
        >>> import mlci
        >>> log = mlci.eval_log(model=["A", "B"], item=[1, 1], score=[1, 0])
        >>> log.select(models=["B"]).models
        ['B']
        """
        keep = np.ones(self.n_rows, dtype=bool)
        for name, wanted, col in (("models", models, self.model), ("tasks", tasks, self.task)):
            if wanted is None:
                continue
            if isinstance(wanted, str) or not isinstance(wanted, Sequence):
                raise TypeError(f"`{name}` must be a list of names; got {wanted!r}.")
            have = set(self.models if name == "models" else self.tasks)
            missing = [w for w in wanted if str(w) not in have]
            if missing:
                raise ValueError(
                    f"`{name}` names {missing}, which are not in the log (it has {sorted(have)})."
                )
            keep &= np.isin(col, np.asarray([str(w) for w in wanted]))
        return _subset(self, np.flatnonzero(keep))

    def __repr__(self) -> str:
        n_items = _n_items(self)
        reps = self._repeats_text()
        part = "".join(f", {m}: {t}" for m, t in self.partial.items())
        return (
            f"EvalLog({_plural(len(self.models), 'model')}, {_plural(len(self.tasks), 'task')}, "
            f"{_plural(n_items, 'item')}, {reps}, {_plural(self.n_rows, 'row')}{part})"
        )

    def _repeats_text(self) -> str:
        if self.n_rows == 0:
            return "0 repeats"
        cell = _cell_codes(self)
        counts = np.bincount(cell)
        counts = counts[counts > 0]
        lo, hi = int(counts.min()), int(counts.max())
        if lo == hi:
            return f"{lo} repeat{'s' if lo > 1 else ''} per item"
        return f"{lo}-{hi} repeats per item"

    def rows(self) -> list[dict[str, Any]]:
        """One dict per row of the long table: ``model``, ``task``, ``item``, ``repeat``,
        ``score``, the conditions and ``source`` (file and line)."""
        frame = self._columns()
        keys = list(frame)
        return [
            {k: (v.item() if hasattr(v, "item") else v) for k, v in zip(keys, vals, strict=True)}
            for vals in zip(*frame.values(), strict=True)
        ]

    def _columns(self) -> dict[str, np.ndarray]:
        cols: dict[str, np.ndarray] = {
            "model": self.model,
            "task": self.task,
            "item": self.item,
            "repeat": self.repeat,
            "score": self.score,
        }
        cols.update(self.conditions)
        cols["source"] = np.array([self.where(i) for i in range(self.n_rows)], dtype=object)
        return cols

    def to_frame(self) -> Any:
        """The long table (:meth:`rows`) as a pandas DataFrame."""
        return require_pandas().DataFrame(self._columns())

    def to_dict(self) -> dict[str, Any]:
        """The columns as lists (plus ``files`` and ``metric``)."""
        return {
            "model": self.model.tolist(),
            "task": self.task.tolist(),
            "item": self.item.tolist(),
            "repeat": self.repeat.tolist(),
            "score": self.score.tolist(),
            "conditions": {k: v.tolist() for k, v in self.conditions.items()},
            "files": list(self.files),
            "file_index": self.file_index.tolist(),
            "line": self.line.tolist(),
            "metric": self.metric,
            "details": dict(self.details),
        }

    def _repr_html_(self) -> str:
        head = _subset(self, np.arange(min(self.n_rows, 20)))
        more = "" if self.n_rows <= 20 else f" (first 20 of {self.n_rows} rows)"
        return f"<p>{html.escape(repr(self))}{more}</p>" + Result._repr_html_(head)


def _details(n_dropped: int, sources: tuple[dict[str, Any], ...]) -> dict[str, Any]:
    """A log's details: the rows dropped, the runs read and the partial ones per model."""
    out: dict[str, Any] = {"n_dropped": int(n_dropped)}
    if not sources:
        return out
    out["sources"] = [dict(s) for s in sources]
    partial: dict[str, list[dict[str, Any]]] = {}
    for s in sources:
        if s.get("partial"):
            partial.setdefault(str(s["model"]), [])
    if partial:
        text = {}
        for m in partial:
            mine = [s for s in sources if s.get("model") == m]
            k = sum(int(s.get("n_samples") or 0) for s in mine)
            n = sum(int(s.get("n_expected") or s.get("n_samples") or 0) for s in mine)
            why = "; ".join(
                f"{Path(str(s['file'])).name}: "
                + (f"status {s['status']!r}" if s.get("status") not in (None, "success")
                   else f"{s['n_samples']} of {s['n_expected']}")
                for s in mine if s.get("partial")
            )  # fmt: skip
            text[m] = f"partial: {k} of {n} samples ({why})"
        out["partial"] = text
    return out


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _codes(col: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(col, return_inverse=True)``, fast for columns in long runs (a model's
    rows together): the distinct values of the runs' first rows, repeated."""
    n = col.size
    if n > 1000 and col.dtype.kind in "US":
        starts = np.concatenate(([0], np.flatnonzero(col[1:] != col[:-1]) + 1))
        if starts.size <= n // 4:
            uniq, inv = np.unique(col[starts], return_inverse=True)
            return uniq, np.repeat(inv.reshape(-1), np.diff(np.append(starts, n)))
    return fast_unique(col)


def _first_seen_codes(col: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Distinct values in order of first appearance, and every row's index among them."""
    if col.size == 0:
        return [], np.empty(0, dtype=np.intp)
    uniq, inv = _codes(col)
    first = np.empty(len(uniq), dtype=np.int64)
    rev = np.arange(col.size)[::-1]
    first[inv[rev]] = rev  # the last write, i.e. the first row, wins
    order = np.argsort(first)
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return [str(u) for u in uniq[order]], rank[inv]


def _item_codes(log: EvalLog) -> tuple[np.ndarray, int]:
    """Code of every row's item ``(task, item)`` and the number of items."""
    return log.item_codes


def _n_items(log: EvalLog) -> int:
    return _item_codes(log)[1] if log.n_rows else 0


def _cell_codes(log: EvalLog) -> np.ndarray:
    """Code of every row's (model, item)."""
    item, n_items = _item_codes(log)
    m = log.model_codes[1].astype(np.int64)
    return fast_unique(m * n_items + item)[1]


def _subset(log: EvalLog, rows: np.ndarray) -> EvalLog:
    return EvalLog(
        model=log.model[rows],
        task=log.task[rows],
        item=log.item[rows],
        repeat=log.repeat[rows],
        score=log.score[rows],
        conditions={k: v[rows] for k, v in log.conditions.items()},
        files=log.files,
        file_index=log.file_index[rows],
        line=log.line[rows],
        metric=log.metric,
        details=log.details,
    )


def _as_text(a: np.ndarray) -> np.ndarray:
    """Labels of one type: strings and integers as they are, whole floats as integers,
    anything else as strings."""
    if a.dtype.kind in "USiu":
        return a
    if a.dtype.kind == "f" and np.all(a == np.round(a)):
        return a.astype(np.int64)
    return a.astype(str)


def build_log(
    *,
    model: np.ndarray,
    task: np.ndarray,
    item: np.ndarray,
    repeat: np.ndarray,
    score: np.ndarray,
    conditions: Mapping[str, np.ndarray],
    files: tuple[str, ...],
    file_index: np.ndarray,
    line: np.ndarray,
    metric: str | None,
    score_name: str = "score",
    n_dropped: int = 0,
    sources: tuple[dict[str, Any], ...] = (),
) -> EvalLog:
    """An :class:`EvalLog` from validated columns, after the table's own checks (scores in
    [0, 1], no duplicate row, one condition per item); used by every reader."""
    log = EvalLog(
        model=_as_text(np.asarray(model)),
        task=_as_text(np.asarray(task)),
        item=_as_text(np.asarray(item)),
        repeat=np.asarray(repeat, dtype=np.int64),
        score=np.asarray(score, dtype=float),
        conditions={str(k): _as_text(np.asarray(v)) for k, v in conditions.items()},
        files=tuple(files),
        file_index=np.asarray(file_index, dtype=np.int32),
        line=np.asarray(line, dtype=np.int64),
        metric=metric,
        details=_details(n_dropped, sources),
    )
    if log.n_rows == 0:
        raise ValueError("The evaluation log has no rows (no scored sample was found).")
    s = log.score
    bad = np.flatnonzero(~np.isfinite(s) | (s < 0) | (s > 1))
    if bad.size:
        r = int(bad[0])
        raise ValueError(
            f"`{score_name}` must be a number in [0, 1] (1 = correct, or a graded/judge score "
            f"as a fraction); {bad.size} row(s) are not, first at {log.where(r)}: "
            f"{float(s[r])!r}. Rescale graded scores to [0, 1]."
        )
    cell = _cell_codes(log)
    code = cell.astype(np.int64) * (int(log.repeat.max()) - int(log.repeat.min()) + 1) + (
        log.repeat - log.repeat.min()
    )
    if int(code.max()) <= 4 * code.size:  # counts, in O(n): no sort for the common case
        clash = np.bincount(code) > 1
        dup = np.flatnonzero(clash[code])
        n_dup = int(dup.size - np.count_nonzero(clash))
    else:
        order = np.argsort(code, kind="stable")
        dup = order[np.flatnonzero(np.diff(code[order]) == 0)]
        n_dup = int(dup.size)
    if dup.size:
        same = np.flatnonzero(code == code[dup[0]])
        a, b = int(same[0]), int(same[1])
        raise ValueError(
            f"{n_dup} duplicated row(s): model {str(log.model[a])!r}, task "
            f"{str(log.task[a])!r}, item {str(log.item[a])!r}, repeat "
            f"{int(log.repeat[a])} appears at {log.where(a)} and again at {log.where(b)}. "
            "Each (model, task, item, repeat) must appear once: remove the duplicate "
            "(e.g. a log read twice), or, if the item was answered several times, give "
            "every answer its number in `repeat`."
        )
    if log.conditions:
        item, n_items = _item_codes(log)
        for name, col in log.conditions.items():
            c = _codes(col)[1]
            pair = fast_unique(item.astype(np.int64) * (int(c.max()) + 1) + c)[0]
            if pair.size != n_items:
                per_item = np.bincount(pair // (int(c.max()) + 1), minlength=n_items)
                it = int(np.flatnonzero(per_item > 1)[0])
                rows = np.flatnonzero(item == it)
                vals = list(dict.fromkeys(col[rows].tolist()))[:3]
                r0 = int(rows[0])
                raise ValueError(
                    f"Condition column {name!r}: item {str(log.item[r0])!r} of task "
                    f"{str(log.task[r0])!r} has several values {vals} (first at "
                    f"{log.where(r0)}); every item must belong to one condition."
                )
    return log


def eval_log(
    data: Any = None,
    *,
    model: Any = "model",
    item: Any = "item",
    score: Any = "score",
    task: Any = None,
    repeat: Any = None,
    conditions: Sequence[str] | Mapping[str, Any] | None = None,
    dropna: bool = False,
    **deprecated: Any,
) -> EvalLog:
    """The long table of an evaluation from arrays or a DataFrame's columns.

    Parameters
    ----------
    data : DataFrame (pandas, polars) or pyarrow Table, optional
        With ``data``, the other arguments are column names (the defaults ``"model"``,
        ``"item"``, ``"score"``); without it, arrays.
    model, item, score : array-like or str
        Who answered, which question, the score in ``[0, 1]``.
    task : array-like or str, optional
        The task (benchmark, subtask) of every row; one task when omitted.
    repeat : array-like or str, optional
        Which answer to the item when items were answered several times; 0 when omitted
        (then an item may appear once per model).
    conditions : list of str (column names of ``data``) or dict of name -> array, optional
        Columns that group items (passage, subtask, template): the conditions the
        estimators can resample whole.  (``conditions`` is a deprecated spelling.)
    dropna : bool, default False
        Drop the rows with a missing value instead of refusing them (their number is in
        ``details["n_dropped"]``).

    Returns
    -------
    EvalLog

    Examples
    --------
    >>> import mlci
    >>> log = mlci.eval_log(model=["A"] * 4, item=[1, 1, 2, 2], repeat=[0, 1, 0, 1],
    ...                     score=[1, 0, 1, 1], conditions={"passage": ["p", "p", "q", "q"]})
    >>> log
    EvalLog(1 model, 1 task, 2 items, 2 repeats per item, 4 rows)
    """
    conditions = renamed_keyword(deprecated, "clusters", "conditions", conditions, None)
    check_flag("dropna", dropna)
    cl_values: dict[str, Any] = {}
    if conditions is not None:
        if isinstance(conditions, Mapping):
            cl_values = {str(k): v for k, v in conditions.items()}
        elif isinstance(conditions, str) or not isinstance(conditions, Sequence):
            raise TypeError(
                f"`conditions` must be a list of column names or a dict of name -> array; got "
                f"{conditions!r}."
            )
        else:
            if data is None:
                raise ValueError(
                    "`conditions` as a list of names needs `data` (a DataFrame); pass a dict "
                    "of name -> array instead."
                )
            cl_values = {str(c): c for c in conditions}
    for name in cl_values:
        if name in RESERVED:
            raise ValueError(
                f"`conditions` may not be named {name!r} (a column of the table itself); rename it."
            )
    specs = {
        "model": ArgSpec("groups", required=True),
        "item": ArgSpec("groups", required=True),
        "score": ArgSpec("numbers", required=True),
        "task": ArgSpec("groups"),
        "repeat": ArgSpec("groups"),
    }
    values = {"model": model, "item": item, "score": score, "task": task, "repeat": repeat}
    for name, v in cl_values.items():
        specs[f"conditions[{name!r}]"] = ArgSpec("groups", required=True)
        values[f"conditions[{name!r}]"] = v
    if data is not None:
        # column names resolve through the gate; condition names are looked up as given
        values = {
            k: (v if not (k.startswith("conditions[") and isinstance(v, str)) else data[v])
            for k, v in values.items()
        }
    g = gather(specs, values, dropna=dropna, data=data)
    n = g.n_samples
    rep = g["repeat"]
    if rep is not None and rep.dtype.kind == "f" and np.all(rep == np.round(rep)):
        rep = rep.astype(np.int64)  # whole numbers in a float column (a NaN was dropped)
    if rep is not None and rep.dtype.kind not in "biu":
        raise TypeError(
            f"`repeat` must hold integers (0, 1, 2...); got values of type {rep.dtype}."
        )
    rows = np.arange(n) if g.kept is None else g.kept
    return build_log(
        model=g["model"],
        task=np.full(n, "task") if g["task"] is None else g["task"],
        item=g["item"],
        repeat=np.zeros(n, dtype=np.int64) if rep is None else rep,
        score=g["score"],
        conditions={k: g[f"conditions[{k!r}]"] for k in cl_values},
        files=("<data>",),
        file_index=np.zeros(n, dtype=np.int32),
        line=rows,
        metric=None,
        n_dropped=g.n_dropped,
    )
