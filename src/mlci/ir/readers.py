"""TREC run and qrels files, validated line by line.

* run: ``qid Q0 docid rank score tag``, six whitespace-separated fields a line (the
  format of ``trec_eval``'s results file); the score orders the documents of a query
  (``trec_eval`` ignores the rank column; it must still be an integer);
* qrels: ``qid iteration docid relevance``, four fields a line, the relevance an integer
  grade (0 or below: not relevant).

Every error names the file and the line.  ``.gz`` files are read transparently.  A
document listed twice for one query is an error (``trec_eval`` refuses it too).
"""

from __future__ import annotations

import gzip
import math
import os
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["check_qrels", "check_run", "read_qrels", "read_run"]

Run = dict[str, dict[str, float]]
Qrels = dict[str, dict[str, int]]


def _lines(path: Any, name: str) -> Iterator[tuple[int, list[str]]]:
    if not isinstance(path, str | os.PathLike):
        raise TypeError(f"`{name}` must be a path to a TREC file; got {type(path).__name__}.")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"`{name}`: no such file {path!r}.")
    opener: Any = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, mode="rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                fields = line.split()
                if fields:
                    yield lineno, fields
    except UnicodeDecodeError:
        raise ValueError(f"`{name}`: {path!r} is not UTF-8 text.") from None
    except (OSError, EOFError) as exc:
        raise ValueError(f"`{name}`: {path!r} cannot be read ({exc}).") from None


def read_run(path: Any, *, name: str = "path") -> Run:
    """A TREC run file as ``{qid: {docid: score}}``.

    Parameters
    ----------
    path : str or PathLike
        Lines ``qid Q0 docid rank score tag``.
    name : str
        How the argument is named in error messages.

    Examples
    --------
    >>> import tempfile, os
    >>> f = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> with open(f, "w") as fh:
    ...     _ = fh.write("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.0 bm25\\n")
    >>> read_run(f)
    {'q1': {'d1': 2.5, 'd2': 1.0}}
    """
    run: Run = {}
    where = os.fspath(path) if isinstance(path, str | os.PathLike) else path
    for lineno, f in _lines(path, name):
        at = f"`{name}` {where!r} line {lineno}"
        if len(f) != 6:
            raise ValueError(
                f"{at}: {len(f)} fields, expected 6 (qid Q0 docid rank score tag) of a TREC run."
            )
        qid, _, doc, rank, score, _ = f
        try:
            int(rank)
        except ValueError:
            raise ValueError(f"{at}: the rank {rank!r} (4th field) is not an integer.") from None
        try:
            s = float(score)
        except ValueError:
            raise ValueError(f"{at}: the score {score!r} (5th field) is not a number.") from None
        if not math.isfinite(s):
            raise ValueError(f"{at}: the score {score!r} (5th field) is not finite.")
        docs = run.setdefault(qid, {})
        if doc in docs:
            raise ValueError(f"{at}: document {doc!r} is listed twice for query {qid!r}.")
        docs[doc] = s
    if not run:
        raise ValueError(f"`{name}` {where!r} holds no run line.")
    return run


def read_qrels(path: Any, *, name: str = "path") -> Qrels:
    """A TREC qrels file as ``{qid: {docid: relevance}}``.

    Parameters
    ----------
    path : str or PathLike
        Lines ``qid iteration docid relevance`` (an integer grade).
    name : str
        How the argument is named in error messages.

    Examples
    --------
    >>> import tempfile, os
    >>> f = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> with open(f, "w") as fh:
    ...     _ = fh.write("q1 0 d1 2\\nq1 0 d3 0\\n")
    >>> read_qrels(f)
    {'q1': {'d1': 2, 'd3': 0}}
    """
    qrels: Qrels = {}
    where = os.fspath(path) if isinstance(path, str | os.PathLike) else path
    for lineno, f in _lines(path, name):
        at = f"`{name}` {where!r} line {lineno}"
        if len(f) != 4:
            raise ValueError(
                f"{at}: {len(f)} fields, expected 4 (qid iteration docid relevance) of TREC qrels."
            )
        qid, _, doc, rel = f
        try:
            r = int(rel)
        except ValueError:
            raise ValueError(
                f"{at}: the relevance {rel!r} (4th field) is not an integer grade."
            ) from None
        docs = qrels.setdefault(qid, {})
        if doc in docs:
            raise ValueError(f"{at}: document {doc!r} is judged twice for query {qid!r}.")
        docs[doc] = r
    if not qrels:
        raise ValueError(f"`{name}` {where!r} holds no qrels line.")
    return qrels


def check_run(run: Any, name: str = "run") -> Run:
    """A run given as a path (read with :func:`read_run`) or ``{qid: {docid: score}}``."""
    if isinstance(run, str | os.PathLike):
        return read_run(run, name=name)
    if not isinstance(run, Mapping) or not run:
        raise TypeError(
            f"`{name}` must be a TREC run file or a non-empty dict {{qid: {{docid: score}}}}."
        )
    out: Run = {}
    for q, docs in run.items():
        if not isinstance(docs, Mapping):
            raise TypeError(f"`{name}`[{q!r}] must be a dict {{docid: score}}.")
        row = {}
        for d, s in docs.items():
            try:
                v = float(s)
            except (TypeError, ValueError):
                raise TypeError(f"`{name}`[{q!r}][{d!r}] must be a number; got {s!r}.") from None
            if not math.isfinite(v):
                raise ValueError(f"`{name}`[{q!r}][{d!r}] must be finite; got {s!r}.")
            row[str(d)] = v
        out[str(q)] = row
    return out


def check_qrels(qrels: Any, name: str = "qrels") -> Qrels:
    """Qrels given as a path (read with :func:`read_qrels`) or ``{qid: {docid: grade}}``."""
    if isinstance(qrels, str | os.PathLike):
        return read_qrels(qrels, name=name)
    if not isinstance(qrels, Mapping) or not qrels:
        raise TypeError(
            f"`{name}` must be a TREC qrels file or a non-empty dict {{qid: {{docid: grade}}}}."
        )
    out: Qrels = {}
    for q, docs in qrels.items():
        if not isinstance(docs, Mapping):
            raise TypeError(f"`{name}`[{q!r}] must be a dict {{docid: relevance}}.")
        row = {}
        for d, r in docs.items():
            if isinstance(r, bool) or (
                not isinstance(r, int) and not (isinstance(r, float) and r.is_integer())
            ):
                raise TypeError(
                    f"`{name}`[{q!r}][{d!r}] must be an integer relevance grade; got {r!r}."
                )
            row[str(d)] = int(r)
        out[str(q)] = row
    return out
