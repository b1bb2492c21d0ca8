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
    in the results file of the same run (0.4.3+; ``lm_eval/loggers/evaluation_tracker.py``
    writes ``results_<date>.json`` beside the samples with ``--output_path DIR``, and
    ``X_<date>.json`` with ``--output_path X.json``), else from the directory name (the
    harness writes ``EleutherAI__pythia-160m``).  The results file's
    ``n-samples[<task>]["effective"]`` is the number of documents the file must hold.  A
    file with several filters (``strict-match`` and ``flexible-extract``) needs
    ``filter=``.
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
    ``metric=``), and optionally ``task``, ``repeat`` and condition columns.

Every problem names the file and the line (or, for inspect logs, the sample): a truncated
or malformed line, a missing score field, a score that is not a number in [0, 1], a
duplicated row.  Nothing is dropped silently: rows of other filters are left out only when
``filter=`` asks for one.

What the frameworks record about a run is checked before its scores are used: inspect's
``status`` (``started``: killed or still running, ``error``, ``cancelled``) and its
dataset's ``sample_ids`` times ``config.epochs``; the harness's ``n-samples``; the
identity of every item's data (the harness's ``doc_hash``/``target_hash``, a hash of an
inspect sample's input and target) across the files of a task; inspect's epoch reducer
(``config.epochs_reducer``, used by ``estimand="auto"`` of the estimators).  An unfinished
run is read only with ``partial=True``, and then said to be partial in every result.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..inputs import TEXT_MISSING, check_choice, check_flag, renamed_keyword
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

    def __init__(self, conditions: Sequence[str]) -> None:
        self.cols: dict[str, list[Any]] = {k: [] for k in ("model", "task", "item", "repeat",
                                                            "score", "file", "line")}  # fmt: skip
        self.conditions = {c: [] for c in conditions}  # type: dict[str, list[Any]]
        self.files: list[str] = []
        self.metrics: set[str] = set()
        #: per file: what the framework recorded about the run (see ``Source``)
        self.sources: list[dict[str, Any]] = []
        #: per file: the identity of every item's data (doc_hash, input hash), if recorded
        self.keys: list[dict[str, str]] = []

    def file(self, path: Path) -> int:
        self.files.append(str(path))
        self.sources.append({"file": str(path)})
        self.keys.append({})
        return len(self.files) - 1

    def add(self, f: int, line: int, model: str, task: str, item: Any, repeat: int,
            score: float, conditions: dict[str, Any]) -> None:  # fmt: skip
        c = self.cols
        c["model"].append(model)
        c["task"].append(task)
        c["item"].append(str(item))
        c["repeat"].append(int(repeat))
        c["score"].append(score)
        c["file"].append(f)
        c["line"].append(line)
        for k, v in conditions.items():
            self.conditions[k].append(str(v))

    def log(self, metric: str | None) -> EvalLog:
        c = self.cols
        if not c["score"]:
            raise ValueError(
                f"No scored sample found in {', '.join(self.files) or 'the given paths'}."
            )
        _check_same_data(self)
        return build_log(
            model=np.array(c["model"], dtype=str),
            task=np.array(c["task"], dtype=str),
            item=np.array(c["item"], dtype=str),
            repeat=np.array(c["repeat"], dtype=np.int64),
            score=np.array(c["score"], dtype=float),
            conditions={k: np.array(v, dtype=str) for k, v in self.conditions.items()},
            files=tuple(self.files),
            file_index=np.array(c["file"], dtype=np.int32),
            line=np.array(c["line"], dtype=np.int64),
            metric=metric,
            sources=tuple(self.sources),
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
def _lm_eval_results(path: Path, date: str | None) -> tuple[Path | None, dict[str, Any]]:
    """The results file of the run that wrote a samples file, and its content.

    lm-evaluation-harness (``lm_eval/loggers/evaluation_tracker.py``) writes the results
    of a run beside its samples files with the same date id: ``results_<date>.json`` with
    ``--output_path DIR``, ``X_<date>.json`` with ``--output_path X.json``.
    """
    if not date:
        return None, {}
    for res in sorted(path.parent.glob(f"*_{date}.json")):
        try:
            with open(res, encoding="utf-8") as fh:
                info = json.load(fh)
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(info, dict) and ("results" in info or "model_name" in info):
            return res, info
    return None, {}


def _lm_eval_expected(info: dict[str, Any], task: str) -> int | None:
    """The documents of ``task`` the run evaluated: ``n-samples[task]["effective"]`` of the
    results file (lm-evaluation-harness 0.4.3+; ``original`` before ``--limit``)."""
    n = info.get("n-samples")
    entry = n.get(task) if isinstance(n, dict) else None
    if isinstance(entry, int) and not isinstance(entry, bool):
        return entry
    if isinstance(entry, dict):
        v = entry.get("effective", entry.get("original"))
        if isinstance(v, int) and not isinstance(v, bool):
            return v
    return None


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
                  filter: str | None, conditions: Sequence[str],
                  partial: bool) -> str | None:  # fmt: skip
    m = _SAMPLES_NAME.match(path.name)
    task = m.group("task") if m else path.stem.removeprefix("samples_")
    date = m.group("date") if m else None
    res_path, info = _lm_eval_results(path, date)
    name = info.get("model_name")
    who = model or (name if isinstance(name, str) and name else path.parent.name)
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
    keys = rows.keys[f]
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
        cl = {c: _lookup(rec, c, where, "condition") for c in conditions}
        rows.add(f, lineno, who, task, rec["doc_id"], 0, score, cl)
        if "doc_hash" in rec:  # the document and its target, as the harness hashed them
            keys[str(rec["doc_id"])] = f"{rec.get('doc_hash')}|{rec.get('target_hash')}"
    n_read = len({str(r.get("doc_id")) for _, r in records
                  if filter is None or r.get("filter") == filter})  # fmt: skip
    expected = _lm_eval_expected(info, task)
    src = rows.sources[f]
    src.update(format="lm-eval", model=who, task=task, n_samples=n_read,
               n_expected=expected, status=None,
               results=None if res_path is None else str(res_path))  # fmt: skip
    if expected is not None and n_read != expected:
        what = (
            f"{path} holds {n_read} of the {expected} documents of task {task!r} (the run's "
            f"{res_path.name if res_path else 'results file'}: n-samples {expected})"
        )
        if n_read > expected:
            raise ValueError(f"{what}: more than the run evaluated; is it two runs' samples?")
        if not partial:
            raise ValueError(
                f"{what}; the samples file is incomplete (cut short by a copy or a write "
                "that did not finish). Re-run the task, or read what it holds with "
                "`partial=True` (--partial): every result then says "
                f"'partial: {n_read} of {expected} samples'."
            )
        src["partial"] = True
    return chosen


# --------------------------------------------------------------------------- inspect-ai
#: what an inspect-ai status other than "success" means
INSPECT_STATUS = {
    "started": "the run did not finish (killed, or still running)",
    "error": "the run stopped on an error",
    "cancelled": "the run was cancelled",
}


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
        inp = s.input if isinstance(s.input, str) else [m.model_dump() for m in s.input]
        samples.append(
            {"id": s.id, "epoch": s.epoch, "scores": scores, "metadata": s.metadata or {},
             "input": inp, "target": s.target, "error": None if s.error is None else
             {"message": s.error.message}}
        )  # fmt: skip
    out: dict[str, Any] = {
        "status": log.status,
        "eval": log.eval.model_dump(mode="json"),
        "samples": samples,
    }
    if log.results is not None:
        out["results"] = log.results.model_dump(mode="json")
    if log.error is not None:
        out["error"] = {"message": log.error.message}
    return out


def _zstd_error(path: Path) -> ValueError:
    return ValueError(
        f"{path}: the .eval archive is compressed with zstd (as inspect-ai 0.3.1xx and later "
        "write it), which Python's zipfile cannot read. Install inspect-ai to read it with "
        'its own reader (pip install "mlci[inspect]"), or convert the log to JSON where '
        f"inspect-ai is installed: inspect log convert --to json --output-dir DIR {path}"
    )


def _inspect_documented(path: Path) -> dict[str, Any]:
    """The log read from its documented format (a JSON file, or the .eval zip archive)."""
    if zipfile.is_zipfile(path):
        try:
            with zipfile.ZipFile(path) as z:
                names = z.namelist()
                # a run that did not finish has no header.json, only the journal's start
                head_name = "header.json" if "header.json" in names else "_journal/start.json"
                if head_name not in names:
                    raise ValueError(f"{path}: an .eval archive without header.json or a journal.")
                head = json.loads(z.read(head_name))
                sample_names = sorted(n for n in names if n.startswith("samples/"))
                samples = [json.loads(z.read(n)) for n in sample_names]
        except NotImplementedError:  # zstd members (inspect-ai >= 0.3.1xx)
            raise _zstd_error(path) from None
        out = {"eval": head.get("eval", {}), "samples": samples,
               "status": head.get("status", "started")}  # fmt: skip
        for key in ("results", "error"):
            if head.get(key) is not None:
                out[key] = head[key]
        return out
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


def _inspect_key(sample: dict[str, Any]) -> str:
    """The identity of a sample's data: a hash of its input and target (message texts and
    roles; inspect gives every message a fresh id, which is left out)."""

    def text(content: Any) -> str:
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            # a text part's text, an image's or a file's reference (not its other fields)
            part = ("text", "image", "audio", "video", "document", "file")
            return "\n".join(
                str(next((c[k] for k in part if c.get(k) is not None), c.get("type")))
                if isinstance(c, dict) else str(c)
                for c in content
            )  # fmt: skip
        return str(content)

    inp = sample.get("input")
    if isinstance(inp, list):
        inp = [[m.get("role"), text(m.get("content"))] if isinstance(m, dict) else str(m)
               for m in inp]  # fmt: skip
    blob = json.dumps([inp, sample.get("target")], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _inspect_headline(data: dict[str, Any]) -> tuple[str | None, float | None]:
    """The log's first score's reducer and headline value (``results.scores[0]``)."""
    scores = (data.get("results") or {}).get("scores") or []
    if not scores or not isinstance(scores[0], dict):
        return None, None
    metrics = scores[0].get("metrics") or {}
    m = metrics.get("accuracy") or metrics.get("mean") or next(iter(metrics.values()), None)
    value = m.get("value") if isinstance(m, dict) else None
    return scores[0].get("reducer"), (float(value) if isinstance(value, int | float) else None)


def _read_inspect(path: Path, rows: _Rows, *, metric: str | None, model: str | None,
                  conditions: Sequence[str], partial: bool,
                  native: bool = True) -> str | None:  # fmt: skip
    data = (_inspect_native(path) if native else None) or _inspect_documented(path)
    spec = data.get("eval", {})
    who = model or str(spec.get("model", path.stem))
    task = str(spec.get("task", path.stem))
    status = str(data.get("status") or "started")
    dataset = spec.get("dataset") or {}
    config = spec.get("config") or {}
    epochs = config.get("epochs") or 1
    ids = dataset.get("sample_ids")
    n_data = len(ids) if isinstance(ids, list) and ids else dataset.get("samples")
    limit = config.get("limit")
    if not (isinstance(ids, list) and ids) and isinstance(n_data, int) and limit is not None:
        # logs without sample_ids: the dataset's size before --limit N (or [start, end])
        if isinstance(limit, int):
            n_data = min(n_data, limit)
        elif isinstance(limit, list | tuple) and len(limit) == 2:
            n_data = min(n_data, int(limit[1])) - int(limit[0])
    expected = int(n_data) * int(epochs) if isinstance(n_data, int) else None
    samples = data.get("samples") or []
    if not samples and status == "success":
        raise ValueError(
            f"{path}: the log holds no samples (was it run with --no-log-samples?); mlci "
            "needs the per-sample scores."
        )
    failed = [s for s in samples if s.get("error") and not s.get("scores")]
    if partial:  # the samples that failed have no score: left out, and counted
        samples = [s for s in samples if not (s.get("error") and not s.get("scores"))]
    n_read = len(samples)
    incomplete = status != "success" or (expected is not None and n_read < expected)
    if incomplete and not partial:
        why = INSPECT_STATUS.get(status, f"status {status!r}")
        if status == "success":
            why = "the run finished, but samples are missing"
        err = (data.get("error") or {}).get("message")
        held = len(data.get("samples") or [])
        of = f"{expected} samples ({n_data} x {epochs} epochs)" if expected else "? samples"
        raise ValueError(
            f"{path}: the log's status is {status!r}: {why}"
            f"{f' ({err})' if err else ''}; it holds {held} of {of}"
            f"{f', {len(failed)} of them failed' if failed else ''}. Re-run it (inspect "
            "eval-retry), or read what it holds with `partial=True` (--partial): every result "
            f"then says 'partial: {held - len(failed)} of {expected or '?'} samples'."
        )
    if not samples:
        raise ValueError(f"{path}: the log holds no samples (was it run with samples logged?).")
    f = rows.file(path)
    reducer, headline = _inspect_headline(data)
    reducers = config.get("epochs_reducer")
    if isinstance(reducers, list) and reducers:
        reducer = str(reducers[0])
    rows.sources[f].update(
        format="inspect", model=who, task=task, status=status, n_samples=n_read,
        n_expected=expected, reducer=reducer or "mean", headline=headline,
        dataset=dataset.get("name"), n_failed=len(failed),
    )  # fmt: skip
    if incomplete:
        rows.sources[f]["partial"] = True
    keys = rows.keys[f]
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
        cl = {c: _lookup(rec, c, where, "condition") for c in conditions}
        rows.add(f, pos, who, task, s.get("id"), int(s.get("epoch") or 1) - 1, score, cl)
        if "input" in s:
            keys[str(s.get("id"))] = _inspect_key(s)
    return chosen


# --------------------------------------------------------------------------- long table
def _read_long(path: Path, rows: _Rows, *, metric: str | None, model: str | None,
               conditions: Sequence[str]) -> str | None:  # fmt: skip
    score_col = metric or "score"
    f = rows.file(path)
    rows.sources[f].update(format="long")
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
            cl = {c: _lookup(rec, c, where, "condition") for c in conditions}
            rows.add(f, lineno, model or str(got["model"]), str(task), got["item"], rep,
                     _number(got[score_col], where, score_col), cl)  # fmt: skip
        return metric
    table = read_table(path)
    need = ["item", score_col] + ([] if model else ["model"]) + list(conditions)
    missing = [c for c in need if c not in table]
    if missing:
        raise ValueError(
            f"{path}: no column {', '.join(map(repr, missing))} (columns: {list(table)}); "
            "the long format needs the columns model, item and score (or the one `metric` "
            "names) and those of `conditions`."
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
                 float(sc[r]), {c: table[c][r] for c in conditions})  # fmt: skip
    return metric


# --------------------------------------------------------------------------- same data
def _check_same_data(rows: _Rows) -> None:
    """Refuse files of one task whose items hold different data under the same ids.

    An item's identity is what the framework recorded of its data: lm-evaluation-harness's
    ``doc_hash`` and ``target_hash``, the hash of an inspect sample's input and target.
    Pairing two models' answers to different questions would be a silent wrong number.
    """
    first: dict[tuple[str, str], int] = {}  # (task, item) -> the first file holding it
    for f, keys in enumerate(rows.keys):
        task = rows.sources[f].get("task")
        clash: dict[int, int] = {}
        for item, key in keys.items():
            g = first.setdefault((str(task), item), f)
            if g != f and rows.keys[g][item] != key:
                clash.setdefault(g, 0)
        for g in clash:
            shared = sorted(set(keys) & set(rows.keys[g]), key=_natural)
            diff = [i for i in shared if keys[i] != rows.keys[g][i]]
            a, b = rows.sources[g], rows.sources[f]
            what = "doc_hash/target_hash" if b.get("format") == "lm-eval" else "input and target"
            names = ""
            if a.get("dataset") != b.get("dataset"):
                names = f" (datasets {a.get('dataset')!r} and {b.get('dataset')!r})"
            raise ValueError(
                f"{rows.files[g]} and {rows.files[f]} hold different data under the same "
                f"task {task!r} and item ids{names}: {len(diff)} of {len(shared)} shared items "
                f"differ ({what}; first: item {diff[0]!r}). Their scores cannot be paired: "
                "compare runs on the same data (or give the tasks different names)."
            )


def _natural(item: str) -> tuple[int, Any]:
    return (0, int(item)) if item.isdigit() else (1, item)


# --------------------------------------------------------------------------- entry point
_RESULTS_NAME = re.compile(r"^(?P<stem>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d\-.:]+)\.json$")


def _lm_eval_results_file(path: Path) -> bool:
    """Whether a ``.json`` file is the results file of an lm-evaluation-harness run:
    ``results_<date>.json``, or ``X_<date>.json`` (``--output_path X.json``) beside a
    ``samples_<task>_<date>.jsonl`` of the same run."""
    m = _RESULTS_NAME.match(path.name)
    if m is None:
        return False
    if m.group("stem") == "results":
        return True
    return any(path.parent.glob(f"samples_*_{m.group('date')}.jsonl"))


def _detect(path: Path) -> str | None:
    name = path.name.lower()
    if name.startswith("samples_") and name.endswith(".jsonl"):
        return "lm-eval"
    if name.endswith(".eval"):
        return "inspect"
    if name.endswith(".json"):
        return None if _lm_eval_results_file(path) else "inspect"
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
    conditions: Sequence[str] = (),
    partial: bool = False,
    **deprecated: Any,
) -> EvalLog:
    """Read per-sample evaluation logs into one long table (:class:`~mlci.EvalLog`).

    What the frameworks record about a run is checked before a score is read: a log of a
    run that did not finish (inspect-ai's status ``started``, ``error``, ``cancelled``) or
    that holds fewer samples than the run evaluated (inspect-ai's dataset size times its
    epochs; the ``n-samples`` of an lm-evaluation-harness results file) is refused,
    naming the file, the status and the count, unless ``partial=True``; two files of a
    task whose items hold different data under the same ids (lm-evaluation-harness's
    ``doc_hash``, an inspect sample's input) are refused, naming both files and the
    number of items that differ.  The runs read are in ``details["sources"]``.

    Parameters
    ----------
    paths : path or list of paths
        Files or directories (searched recursively for logs).
    format : {"auto", "lm-eval", "inspect", "long"}
        ``"auto"`` decides per file: ``samples_*.jsonl`` lm-evaluation-harness,
        ``*.eval``/``*.json`` inspect-ai, ``*.csv``/``*.parquet``/other ``*.jsonl`` the
        long format (see the module documentation for each schema).  lm-evaluation-harness
        results files (``results_<date>.json``, or ``X_<date>.json`` of ``--output_path
        X.json``) are read with their samples, never as logs.
    metric : str, optional
        The per-sample score to read (``"acc"``, ``"exact_match"``, an inspect scorer,
        the long format's score column).  Needed when a log holds several.
    model : str, optional
        The model's name for every file read (default: from the logs).
    filter : str, optional
        lm-evaluation-harness filter to keep (``"strict-match"``...), when a file has
        several.
    conditions : list of str
        Fields that group items (passages, subjects, templates), read into condition
        columns: a dotted path into an lm-eval sample (``"doc.subject"``) or an inspect
        sample (``"metadata.passage"``), or a column of the long format.  (``clusters``
        is a deprecated spelling.)
    partial : bool, default False
        Read the samples a run that did not finish holds (inspect-ai samples that failed
        are left out).  The log then says ``"partial: k of N samples"`` for that model
        (``details["partial"]``), and so does every result computed from it.

    Returns
    -------
    EvalLog

    Examples
    --------
    >>> import mlci
    >>> from mlci.data import llm_example_path
    >>> log = mlci.read_eval_logs(llm_example_path(), conditions=["group"])
    >>> log.models
    ['model-a', 'model-b', 'model-c']
    """
    conditions = renamed_keyword(deprecated, "clusters", "conditions", conditions, ())
    format = check_choice("format", format, FORMATS)
    check_flag("partial", partial)
    if isinstance(conditions, str) or not isinstance(conditions, Sequence):
        raise TypeError(f"`conditions` must be a list of field names; got {conditions!r}.")
    conditions = [str(c) for c in conditions]
    for c in conditions:
        if c in RESERVED:
            raise ValueError(
                f"`conditions` may not be {c!r} (a column of the table itself); to resample "
                "whole tasks, read no condition column and pass conditions='task' to the "
                "estimators."
            )
    for name, v in (("metric", metric), ("model", model), ("filter", filter)):
        if v is not None and (not isinstance(v, str) or not v):
            raise TypeError(f"`{name}` must be a non-empty string or None; got {v!r}.")
    files = _files(paths)
    rows = _Rows(conditions)
    chosen: dict[str, str | None] = {}
    for path in files:
        kind = format if format != "auto" else _detect(path)
        if kind is None and path.suffix.lower() == ".json" and _lm_eval_results_file(path):
            raise ValueError(
                f"`paths`: {path} is the results file of an lm-evaluation-harness run "
                "(aggregated scores); read the samples_<task>_<date>.jsonl files beside it "
                "(written with --log_samples), or their folder."
            )
        if kind is None:
            raise ValueError(
                f"`paths`: cannot tell the format of {path}; pass `format` (one of "
                f"{', '.join(FORMATS[1:])})."
            )
        if kind == "lm-eval":
            got = _read_lm_eval(path, rows, metric=metric, model=model, filter=filter,
                                conditions=conditions, partial=partial)  # fmt: skip
        elif kind == "inspect":
            got = _read_inspect(path, rows, metric=metric, model=model, conditions=conditions,
                                partial=partial)  # fmt: skip
        else:
            got = _read_long(path, rows, metric=metric, model=model, conditions=conditions)
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
        raise ValueError(f"The files hold different metrics ({detail}); choose one with `metric`.")
    return rows.log(next(iter(names)) if names else metric)
