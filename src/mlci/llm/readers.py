"""Readers of per-sample evaluation logs into one :class:`~mlci.llm.log.EvalLog`.

Formats
-------
``"lm-eval"``: lm-evaluation-harness ``--log_samples`` files
    ``<output_path>/<model>/samples_<task>_<date>.jsonl``, one JSON object per line and
    per (document, filter).  The schema followed is that of lm-evaluation-harness 0.4.x
    (``lm_eval/evaluator.py``: ``doc_id``, ``doc``, ``target``, ``arguments``, ``resps``,
    ``filtered_resps``, ``filter``, ``metrics`` -- the list of the metric names, from
    0.4.2 --, ``doc_hash``, ``prompt_hash``, ``target_hash``, then one field per metric,
    e.g. ``"acc": 1.0`` or ``"exact_match": 0.0``).  Files of 0.4.0/0.4.1 without the
    ``metrics`` list are read too (the metric is then any numeric field that is not one
    of the fields above).  The task is taken from the file name
    (``samples_<task>_<YYYY-MM-DDTHH-MM-SS.ffffff>.jsonl``), the model from ``model_name``
    in the ``results_<date>.json`` next to it (0.4.3+), else from the directory name
    (the harness writes ``EleutherAI__pythia-160m``).  A file with several filters
    (``strict-match`` and ``flexible-extract``) needs ``filter=``.
``"inspect"``: inspect-ai eval logs (``.eval`` or ``.json``)
    Read through ``inspect_ai.log.read_eval_log`` when inspect-ai is installed, otherwise
    from the documented format (a ``.json`` log, or the ``.eval`` zip archive's
    ``header.json``/``_journal/start.json`` and ``samples/*.json``; recent inspect-ai
    compresses those with zstd, which needs inspect-ai itself), as written by inspect-ai
    0.3 (tested with 0.3.285).  Item = the sample ``id``, repeat = its
    ``epoch``, task and model from the log's ``eval`` spec, the score from the sample's
    ``scores[<scorer>].value``: numbers and booleans as they are; inspect's letters
    ``"C"`` (correct) 1, ``"I"`` (incorrect) 0, ``"P"`` (partial) 0.5, ``"N"`` (no answer)
    0, as ``inspect_ai.scorer.value_to_float`` maps them; a dict value needs
    ``metric="<scorer>/<key>"``.
``"long"``: a generic long table (``.csv``/``.tsv``, ``.parquet``, ``.jsonl``)
    One row per answer with columns ``model``, ``item``, ``score`` (or the column named by
    ``metric=``), and optionally ``task``, ``repeat`` and cluster columns.

Every problem names the file and the line (or, for inspect logs, the sample): a truncated
or malformed line, a missing score field, a score that is not a number in [0, 1], a
duplicated row.  Nothing is dropped silently: rows of other filters are left out only when
``filter=`` asks for one.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..inputs import TEXT_MISSING, check_choice
from ..io import read_table
from .log import RESERVED, EvalLog, build_log

__all__ = ["FORMATS", "read_eval_logs"]

FORMATS = ("auto", "lm-eval", "inspect", "long")

#: fields of an lm-evaluation-harness sample record that are not metrics
LM_EVAL_FIELDS = frozenset(
    {
        "doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter",
        "metrics", "doc_hash", "prompt_hash", "target_hash",
    }
)  # fmt: skip
_SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+?)_(?P<date>\d{4}-\d{2}-\d{2}T[\d\-.:]+)\.jsonl$")
#: inspect-ai's letter grades (inspect_ai.scorer: CORRECT, INCORRECT, PARTIAL, NOANSWER)
INSPECT_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}


class _Rows:
    """Columns of the long table being read, and where each row came from."""

    def __init__(self, clusters: Sequence[str]) -> None:
        self.cols: dict[str, list[Any]] = {k: [] for k in ("model", "task", "item", "repeat",
                                                            "score", "file", "line")}  # fmt: skip
        self.clusters = {c: [] for c in clusters}  # type: dict[str, list[Any]]
        self.files: list[str] = []
        self.metrics: set[str] = set()

    def file(self, path: Path) -> int:
        self.files.append(str(path))
        return len(self.files) - 1

    def add(self, f: int, line: int, model: str, task: str, item: Any, repeat: int,
            score: float, clusters: dict[str, Any]) -> None:  # fmt: skip
        c = self.cols
        c["model"].append(model)
        c["task"].append(task)
        c["item"].append(str(item))
        c["repeat"].append(int(repeat))
        c["score"].append(score)
        c["file"].append(f)
        c["line"].append(line)
        for k, v in clusters.items():
            self.clusters[k].append(str(v))

    def log(self, metric: str | None) -> EvalLog:
        c = self.cols
        if not c["score"]:
            raise ValueError(
                f"No scored sample found in {', '.join(self.files) or 'the given paths'}."
            )
        return build_log(
            model=np.array(c["model"], dtype=str),
            task=np.array(c["task"], dtype=str),
            item=np.array(c["item"], dtype=str),
            repeat=np.array(c["repeat"], dtype=np.int64),
            score=np.array(c["score"], dtype=float),
            clusters={k: np.array(v, dtype=str) for k, v in self.clusters.items()},
            files=tuple(self.files),
            file_index=np.array(c["file"], dtype=np.int32),
            line=np.array(c["line"], dtype=np.int64),
            metric=metric,
        )


def _where(path: Path, line: int) -> str:
    return f"{path}:{line}"


def _number(value: Any, where: str, field: str) -> float:
    """A per-sample score as a float (bools as 0/1), or an error naming the field."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        v = float(value)
        if np.isfinite(v):
            return v
    if isinstance(value, str) and value in INSPECT_LETTERS:
        return INSPECT_LETTERS[value]
    raise ValueError(
        f"{where}: the score field {field!r} holds {value!r}, not a number (a per-sample "
        "score in [0, 1] is needed; corpus-level metrics such as bleu cannot be resampled "
        "per sample)."
    )


def _lookup(record: dict[str, Any], path: str, where: str, what: str) -> Any:
    """``record["doc"]["passage"]`` for the path ``"doc.passage"``; an error naming it."""
    cur: Any = record
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            keys = sorted(cur) if isinstance(cur, dict) else []
            raise ValueError(
                f"{where}: no field {path!r} for the {what} (fields at that level: "
                f"{', '.join(map(str, keys[:15]))}{', ...' if len(keys) > 15 else ''})."
            )
        cur = cur[part]
    if cur is None or (isinstance(cur, str) and cur.strip().lower() in TEXT_MISSING):
        raise ValueError(f"{where}: the {what} field {path!r} is missing ({cur!r}).")
    if isinstance(cur, dict | list):
        raise ValueError(f"{where}: the {what} field {path!r} is not a single value ({cur!r}).")
    return cur


def _jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, record) of a JSON-lines file; a malformed line is an error naming it."""
    with open(path, encoding="utf-8") as fh:
        for lineno, text in enumerate(fh, start=1):
            if not text.strip():
                continue
            try:
                rec = json.loads(text)
            except json.JSONDecodeError as exc:
                end = "" if text.endswith("\n") else " (the last line ends without a newline)"
                raise ValueError(
                    f"{_where(path, lineno)}: not a complete JSON object ({exc.msg}, column "
                    f"{exc.colno}){end}; the file looks truncated or corrupted. Re-run or "
                    "repair the log; no line is skipped silently."
                ) from None
            if not isinstance(rec, dict):
                raise ValueError(f"{_where(path, lineno)}: expected a JSON object per line.")
            yield lineno, rec


# --------------------------------------------------------------------------- lm-eval
def _lm_eval_model(path: Path, date: str | None) -> str:
    """``model_name`` of the results file of the same run, else the directory name."""
    candidates = sorted(path.parent.glob(f"results_{date}.json")) if date else []
    for res in candidates:
        try:
            with open(res, encoding="utf-8") as fh:
                info = json.load(fh)
        except (OSError, json.JSONDecodeError):
            continue
        name = info.get("model_name") if isinstance(info, dict) else None
        if isinstance(name, str) and name:
            return name
    return path.parent.name


def _lm_eval_metric(rec: dict[str, Any], where: str) -> str:
    names = rec.get("metrics")
    if not isinstance(names, list):
        names = [
            k for k, v in rec.items()
            if k not in LM_EVAL_FIELDS and isinstance(v, int | float | bool)
        ]  # fmt: skip
    if len(names) == 1:
        return str(names[0])
    raise ValueError(
        f"{where}: the samples hold {len(names)} metrics {names}; choose one with "
        "`metric=` (--metric)."
    )


def _read_lm_eval(path: Path, rows: _Rows, *, metric: str | None, model: str | None,
                  filter: str | None, clusters: Sequence[str]) -> str | None:  # fmt: skip
    m = _SAMPLES_NAME.match(path.name)
    task = m.group("task") if m else path.stem.removeprefix("samples_")
    date = m.group("date") if m else None
    who = model or _lm_eval_model(path, date)
    f = rows.file(path)
    filters: dict[str, int] = {}
    chosen = metric
    records = list(_jsonl(path))
    for lineno, rec in records:
        flt = rec.get("filter")
        if flt is not None:
            filters.setdefault(str(flt), lineno)
    if len(filters) > 1 and filter is None:
        raise ValueError(
            f"{path} holds the samples of {len(filters)} filters {sorted(filters)}; choose "
            "one with `filter=` (--filter): each document is scored once per filter."
        )
    if filter is not None and filter not in filters:
        raise ValueError(
            f"{path}: no sample has filter {filter!r} (filters in the file: "
            f"{sorted(filters) or 'none'})."
        )
    for lineno, rec in records:
        where = _where(path, lineno)
        if filter is not None and rec.get("filter") != filter:
            continue
        if "doc_id" not in rec:
            raise ValueError(f"{where}: no 'doc_id' field; is this an lm-eval samples file?")
        if chosen is None:
            chosen = _lm_eval_metric(rec, where)
        if chosen not in rec:
            have = [k for k in rec if k not in LM_EVAL_FIELDS]
            raise ValueError(
                f"{where}: no score field {chosen!r} (metric fields in this sample: {have})."
            )
        score = _number(rec[chosen], where, chosen)
        cl = {c: _lookup(rec, c, where, "cluster") for c in clusters}
        rows.add(f, lineno, who, task, rec["doc_id"], 0, score, cl)
    return chosen


# --------------------------------------------------------------------------- inspect-ai
def _inspect_native(path: Path) -> dict[str, Any] | None:
    """The log as plain dicts through inspect-ai's own reader (None if not installed)."""
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        return None
    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # inspect raises pydantic/its own errors on a broken log
        raise ValueError(f"{path}: inspect-ai could not read the log: {exc}") from None
    samples = []
    for s in log.samples or []:
        scores = {k: {"value": v.value} for k, v in (s.scores or {}).items()}
        samples.append(
            {"id": s.id, "epoch": s.epoch, "scores": scores, "metadata": s.metadata or {}}
        )
    return {"eval": {"model": log.eval.model, "task": log.eval.task}, "samples": samples}


def _inspect_documented(path: Path) -> dict[str, Any]:
    """The log read from its documented format (a JSON file, or the .eval zip archive)."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            head_name = "header.json" if "header.json" in names else "_journal/start.json"
            if head_name not in names:
                raise ValueError(f"{path}: an .eval archive without header.json or a journal.")
            head = json.loads(z.read(head_name))
            spec = head.get("eval", {})
            sample_names = sorted(n for n in names if n.startswith("samples/"))
            try:
                samples = [json.loads(z.read(n)) for n in sample_names]
            except NotImplementedError:  # zstd members (inspect-ai >= 0.3.1xx)
                raise ValueError(
                    f"{path}: the .eval archive is compressed with zstd, which Python's "
                    "zipfile cannot read; install inspect-ai (pip install 'mlci[inspect]') "
                    "to read it with inspect's own reader, or convert it: inspect log "
                    "convert --to json."
                ) from None
        return {"eval": spec, "samples": samples}
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{path}:{exc.lineno}: not valid JSON ({exc.msg}); the log looks truncated."
        ) from None
    if not isinstance(data, dict) or "eval" not in data:
        raise ValueError(f"{path}: not an inspect-ai log (no 'eval' section).")
    return data


def _read_inspect(path: Path, rows: _Rows, *, metric: str | None, model: str | None,
                  clusters: Sequence[str], native: bool = True) -> str | None:  # fmt: skip
    data = (_inspect_native(path) if native else None) or _inspect_documented(path)
    spec = data.get("eval", {})
    who = model or str(spec.get("model", path.stem))
    task = str(spec.get("task", path.stem))
    samples = data.get("samples") or []
    if not samples:
        raise ValueError(f"{path}: the log holds no samples (was it run with samples logged?).")
    f = rows.file(path)
    chosen = metric
    for pos, s in enumerate(samples, start=1):
        where = f"{path}:sample {pos} (id {s.get('id')!r}, epoch {s.get('epoch')})"
        scores = s.get("scores") or {}
        if chosen is None:
            if len(scores) != 1:
                raise ValueError(
                    f"{where}: {len(scores)} scorers {sorted(scores)}; choose one with "
                    "`metric=` (--metric), e.g. 'match' or 'scorer/key' for a dict score."
                )
            chosen = next(iter(scores))
        scorer, _, key = chosen.partition("/")
        if scorer not in scores:
            raise ValueError(
                f"{where}: no score {scorer!r} (scores of this sample: {sorted(scores)}; a "
                "sample that failed has none)."
            )
        value = scores[scorer].get("value") if isinstance(scores[scorer], dict) else None
        if key:
            if not isinstance(value, dict) or key not in value:
                raise ValueError(f"{where}: the score {scorer!r} has no key {key!r}.")
            value = value[key]
        elif isinstance(value, dict):
            raise ValueError(
                f"{where}: the score {scorer!r} is a dict {sorted(value)}; choose one key "
                f"with `metric='{scorer}/<key>'`."
            )
        score = _number(value, where, chosen)
        rec = {"metadata": s.get("metadata") or {}, "id": s.get("id")}
        cl = {c: _lookup(rec, c, where, "cluster") for c in clusters}
        rows.add(f, pos, who, task, s.get("id"), int(s.get("epoch") or 1) - 1, score, cl)
    return chosen


# --------------------------------------------------------------------------- long table
def _read_long(path: Path, rows: _Rows, *, metric: str | None, model: str | None,
               clusters: Sequence[str]) -> str | None:  # fmt: skip
    score_col = metric or "score"
    f = rows.file(path)
    if path.suffix.lower() == ".jsonl":
        for lineno, rec in _jsonl(path):
            where = _where(path, lineno)
            got = {}
            for col in ("item", score_col) + (() if model else ("model",)):
                got[col] = _lookup(rec, col, where, "long-format")
            task = rec.get("task", "task")
            rep = rec.get("repeat", 0)
            if not isinstance(rep, int) or isinstance(rep, bool):
                raise ValueError(f"{where}: 'repeat' must be an integer; got {rep!r}.")
            cl = {c: _lookup(rec, c, where, "cluster") for c in clusters}
            rows.add(f, lineno, model or str(got["model"]), str(task), got["item"], rep,
                     _number(got[score_col], where, score_col), cl)  # fmt: skip
        return metric
    table = read_table(path)
    need = ["item", score_col] + ([] if model else ["model"]) + list(clusters)
    missing = [c for c in need if c not in table]
    if missing:
        raise ValueError(
            f"{path}: no column {', '.join(map(repr, missing))} (columns: {list(table)}); "
            "the long format needs the columns model, item and score (or the one `metric` "
            "names) and those of `clusters`."
        )
    for name in need + [c for c in ("task", "repeat") if c in table]:
        col = table[name]
        bad = np.flatnonzero([v is None or (isinstance(v, float) and np.isnan(v)) for v in col])
        if bad.size:
            raise ValueError(
                f"{path}: column {name!r} has {bad.size} missing value(s) at "
                f"{table.where(bad)}; every row needs a value."
            )
    sc = table[score_col]
    if sc.dtype.kind not in "biuf":
        row = next(i for i, v in enumerate(sc) if not isinstance(v, int | float))
        raise ValueError(
            f"{path}, {table.where([row])}: column {score_col!r} holds {sc[row]!r}, not a number."
        )
    rep = table["repeat"] if "repeat" in table else np.zeros(table.n_rows, dtype=np.int64)
    if rep.dtype.kind not in "biu":
        raise ValueError(f"{path}: column 'repeat' must hold integers (0, 1, 2...).")
    task = table["task"] if "task" in table else np.full(table.n_rows, "task")
    who = table["model"] if not model else np.full(table.n_rows, model)
    for r in range(table.n_rows):
        rows.add(f, table.line_of(r), str(who[r]), str(task[r]), table["item"][r], int(rep[r]),
                 float(sc[r]), {c: table[c][r] for c in clusters})  # fmt: skip
    return metric


# --------------------------------------------------------------------------- entry point
def _detect(path: Path) -> str | None:
    name = path.name.lower()
    if name.startswith("samples_") and name.endswith(".jsonl"):
        return "lm-eval"
    if name.endswith(".eval"):
        return "inspect"
    if name.endswith(".json"):
        return None if name.startswith("results_") else "inspect"
    if name.endswith((".csv", ".tsv", ".parquet", ".pq", ".jsonl")):
        return "long"
    return None


def _files(paths: Any) -> list[Path]:
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    if not isinstance(paths, Sequence) or not paths:
        raise TypeError(f"`paths` must be a path or a list of paths; got {paths!r}.")
    out: list[Path] = []
    for p in map(Path, paths):
        if not p.exists():
            raise FileNotFoundError(f"`paths`: no such file or directory: {p}")
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.is_file() and _detect(q) is not None)
            if not found:
                raise ValueError(
                    f"`paths`: no evaluation log in the directory {p} (looked for "
                    "samples_*.jsonl, *.eval, *.json, *.csv, *.parquet, *.jsonl)."
                )
            out.extend(found)
        else:
            out.append(p)
    return out


def read_eval_logs(
    paths: Any,
    *,
    format: str = "auto",
    metric: str | None = None,
    model: str | None = None,
    filter: str | None = None,
    clusters: Sequence[str] = (),
) -> EvalLog:
    """Read per-sample evaluation logs into one long table (:class:`~mlci.EvalLog`).

    Parameters
    ----------
    paths : path or list of paths
        Files or directories (searched recursively for logs).
    format : {"auto", "lm-eval", "inspect", "long"}
        ``"auto"`` decides per file: ``samples_*.jsonl`` lm-evaluation-harness,
        ``*.eval``/``*.json`` inspect-ai, ``*.csv``/``*.parquet``/other ``*.jsonl`` the
        long format (see the module documentation for each schema).
    metric : str, optional
        The per-sample score to read (``"acc"``, ``"exact_match"``, an inspect scorer,
        the long format's score column).  Needed when a log holds several.
    model : str, optional
        The model's name for every file read (default: from the logs).
    filter : str, optional
        lm-evaluation-harness filter to keep (``"strict-match"``...), when a file has
        several.
    clusters : list of str
        Fields that group items, read into cluster columns: a dotted path into an
        lm-eval sample (``"doc.subject"``) or an inspect sample
        (``"metadata.passage"``), or a column of the long format.

    Returns
    -------
    EvalLog

    Examples
    --------
    >>> import mlci
    >>> from mlci.data import llm_example_path
    >>> log = mlci.read_eval_logs(llm_example_path(), clusters=["group"])
    >>> log.models
    ['model-a', 'model-b', 'model-c']
    """
    format = check_choice("format", format, FORMATS)
    if isinstance(clusters, str) or not isinstance(clusters, Sequence):
        raise TypeError(f"`clusters` must be a list of field names; got {clusters!r}.")
    clusters = [str(c) for c in clusters]
    for c in clusters:
        if c in RESERVED:
            raise ValueError(
                f"`clusters` may not be {c!r} (a column of the table itself); to cluster by "
                "task, read no cluster column and pass cluster='task' to the estimators."
            )
    for name, v in (("metric", metric), ("model", model), ("filter", filter)):
        if v is not None and (not isinstance(v, str) or not v):
            raise TypeError(f"`{name}` must be a non-empty string or None; got {v!r}.")
    files = _files(paths)
    rows = _Rows(clusters)
    chosen: dict[str, str | None] = {}
    for path in files:
        kind = format if format != "auto" else _detect(path)
        if kind is None:
            raise ValueError(
                f"`paths`: cannot tell the format of {path}; pass `format=` (one of "
                f"{', '.join(FORMATS[1:])})."
            )
        if kind == "lm-eval":
            got = _read_lm_eval(path, rows, metric=metric, model=model, filter=filter,
                                clusters=clusters)  # fmt: skip
        elif kind == "inspect":
            got = _read_inspect(path, rows, metric=metric, model=model, clusters=clusters)
        else:
            got = _read_long(path, rows, metric=metric, model=model, clusters=clusters)
        chosen[str(path)] = got
    if filter is not None and not any(
        (format if format != "auto" else _detect(f)) == "lm-eval" for f in files
    ):
        raise ValueError(
            "`filter` selects an lm-evaluation-harness filter; none of the files read is an "
            "lm-eval samples file."
        )
    names = {v for v in chosen.values() if v is not None}
    if len(names) > 1:
        detail = ", ".join(f"{Path(k).name}: {v}" for k, v in chosen.items())
        raise ValueError(f"The files hold different metrics ({detail}); choose one with `metric=`.")
    return rows.log(next(iter(names)) if names else metric)
