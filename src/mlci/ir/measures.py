"""Per-query IR measures computed by ir_measures (trec_eval's implementations).

mlci never re-implements a ranking measure: :func:`per_query` asks ``ir_measures``
(``pip install ir-measures``, the ``ir`` extra; its default provider is ``pytrec_eval``,
i.e. trec_eval's C code) for every query's value, and the engine then treats the
measure as what it is, a mean over queries.

Queries: the evaluated queries are those of the qrels with at least one relevant
document (a query without one has no recall, nDCG or AP; trec_eval skips it too).  A
query of the qrels that the run does not answer scores 0 (``missing="zero"``, trec_eval's
``-c``, ir_measures' and ranx's convention), or is left out (``"drop"``, trec_eval's
default), or is an error (``"error"``).  Queries of the run without qrels are ignored;
their number is reported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..inputs import check_choice
from .readers import check_qrels, check_run

__all__ = ["MISSING", "QueryValues", "measure_name", "per_query"]

MISSING = ("zero", "drop", "error")

#: mlci / ranx spellings -> ir_measures' measure names
_ALIASES = {
    "ndcg": "nDCG",
    "map": "AP",
    "ap": "AP",
    "mrr": "RR",
    "rr": "RR",
    "p": "P",
    "precision": "P",
    "r": "R",
    "recall": "R",
}
_NAME = re.compile(r"^([A-Za-z_]+)(@\d+)?$")


def measure_name(measure: Any) -> str:
    """ir_measures' name of a measure given as mlci/ranx spell it (``"ndcg@10"``,
    ``"map"``, ``"mrr@10"``, ``"p@5"``, ``"recall@100"``) or in ir_measures' syntax
    (``"nDCG@10"``, ``"AP(rel=2)"``), checked by ir_measures' parser.

    Examples
    --------
    >>> measure_name("ndcg@10"), measure_name("map"), measure_name("recall@100")
    ('nDCG@10', 'AP', 'R@100')
    """
    if not isinstance(measure, str) or not measure.strip():
        raise TypeError(
            f"`measure` must be a measure name such as 'ndcg@10', 'map', 'mrr', 'p@10', "
            f"'recall@100'; got {measure!r}."
        )
    text = measure.strip()
    m = _NAME.match(text)
    if m is not None:
        base = _ALIASES.get(m.group(1).lower(), m.group(1))
        text = base + (m.group(2) or "")
    ir_measures = _ir_measures()
    try:
        parsed = ir_measures.parse_measure(text)
    except (ValueError, NameError, SyntaxError, TypeError, KeyError) as exc:
        raise ValueError(
            f"`measure`={measure!r} is not a measure ir_measures knows ({exc}); e.g. "
            "'ndcg@10', 'map', 'mrr', 'p@10', 'recall@100'."
        ) from None
    return str(parsed)


def _ir_measures() -> Any:
    try:
        import ir_measures
    except ImportError:  # pragma: no cover - the `ir` extra
        raise ImportError(
            "The IR measures are computed by ir_measures: pip install ir-measures (or "
            "mlci's `ir` extra)."
        ) from None
    return ir_measures


@dataclass(frozen=True)
class QueryValues:
    """Per-query values of IR measures on one run.

    Attributes
    ----------
    query_ids : ndarray of str, shape (n_queries,)
        The evaluated queries, sorted.
    values : dict of str -> ndarray, shape (n_queries,)
        Every measure's value per query (ir_measures' name).
    details : dict
        ``n_missing`` (qrels queries the run does not answer), ``n_unjudged`` (run
        queries without qrels, ignored), ``n_no_relevant`` (qrels queries without a
        relevant document, skipped), ``missing`` (the policy).
    """

    query_ids: np.ndarray
    values: dict[str, np.ndarray]
    details: dict[str, Any] = field(default_factory=dict)


def per_query(
    run: Any,
    qrels: Any,
    measures: str | Sequence[str] = "ndcg@10",
    *,
    missing: str = "zero",
) -> QueryValues:
    """Every query's value of ``measures`` on ``run``, computed by ir_measures.

    Parameters
    ----------
    run : path or dict {qid: {docid: score}}
        A TREC run file (:func:`mlci.ir.read_run`) or its dict.
    qrels : path or dict {qid: {docid: relevance}}
    measures : str or list of str
        E.g. ``"ndcg@10"``, ``"map"``, ``"mrr"``, ``"p@10"``, ``"recall@100"`` (or
        ir_measures' own names).
    missing : {"zero", "drop", "error"}
        A judged query that the run does not answer: scores 0 (default), is left out, or
        is an error.

    Returns
    -------
    QueryValues

    Examples
    --------
    >>> run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0, "d4": 0.5}}
    >>> qrels = {"q1": {"d2": 1}, "q2": {"d3": 1}}
    >>> v = per_query(run, qrels, ["mrr", "p@1"])
    >>> v.query_ids.tolist(), v.values["RR"].tolist(), v.values["P@1"].tolist()
    (['q1', 'q2'], [0.5, 1.0], [0.0, 1.0])
    """
    check_choice("missing", missing, MISSING)
    if isinstance(measures, str):
        names = [measures]
    elif isinstance(measures, list | tuple):
        names = list(measures)
    else:
        raise TypeError(
            f"`measure` must be a measure name such as 'ndcg@10' (or a list of names); got "
            f"{measures!r}."
        )
    if not names:
        raise ValueError("`measures` is empty: name at least one measure, e.g. 'ndcg@10'.")
    mnames = [measure_name(m) for m in names]
    run = check_run(run)
    qrels = check_qrels(qrels)
    ir_measures = _ir_measures()
    judged = sorted(q for q, docs in qrels.items() if any(r > 0 for r in docs.values()))
    no_relevant = len(qrels) - len(judged)
    if not judged:
        raise ValueError("`qrels` judge no document relevant (grade > 0): nothing to evaluate.")
    answered = [q for q in judged if run.get(q)]
    absent = [q for q in judged if not run.get(q)]
    if absent and missing == "error":
        raise ValueError(
            f"`run` answers no document for {len(absent)} judged queries (e.g. {absent[:3]}); "
            "pass missing='zero' (they score 0) or missing='drop'."
        )
    qids = judged if missing == "zero" else answered
    if not qids:
        raise ValueError("`run` answers none of the judged queries of `qrels`.")
    pos = {q: i for i, q in enumerate(qids)}
    parsed = [ir_measures.parse_measure(m) for m in mnames]
    values = {m: np.zeros(len(qids)) for m in mnames}
    seen = {m: np.zeros(len(qids), dtype=bool) for m in mnames}
    sub_qrels = {q: qrels[q] for q in answered}
    sub_run = {q: run[q] for q in answered}
    if answered:
        for rec in ir_measures.iter_calc(parsed, sub_qrels, sub_run):
            i = pos.get(rec.query_id)
            if i is None:
                continue
            key = str(rec.measure)
            values[key][i] = rec.value
            seen[key][i] = True
    for m in mnames:
        ans = np.array([q in sub_run for q in qids])
        if not seen[m][ans].all():  # pragma: no cover - ir_measures reports every query
            raise RuntimeError(f"ir_measures returned no value of {m} for some queries.")
    details = {
        "missing": missing,
        "n_missing": len(absent),
        "n_unjudged": len(set(run) - set(qrels)),
        "n_no_relevant": no_relevant,
    }
    return QueryValues(query_ids=np.array(qids), values=values, details=details)
