"""A finished evaluation report: one self-contained HTML page (or markdown + images).

:func:`build_report` runs the analyses of one or more systems scored on the same test
samples through the public API (no statistics here) and returns what the page shows;
:func:`render_html` and :func:`render_markdown` fill the Jinja2 templates of
``mlci/report/templates``.  The HTML page needs no network: figures are inline SVG, the
style sheet is inline.  ``mlci report`` (:mod:`mlci.cli.report`) is the command.

Sections: the data (samples, classes, conditions, rows dropped), each system's metrics
with intervals and a forest plot, pairwise differences with adjusted p-values, ROC
curves with bands, calibration, per-group metrics, the interval method of every number
(and the reason, when the method chose itself), and how to reproduce the page (command,
seed, versions, the input file's SHA-256).

Jinja2 and matplotlib are optional dependencies: ``pip install ".[report]"``.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import io
import platform
import re
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field, replace
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import numpy as np

from ..classical.auc import delong_ci, delong_test
from ..classical.corrections import adjust_pvalues
from ..comparison.paired import compare
from ..engine.bootstrap import auto_method, bootstrap_ci
from ..inputs.config import get_config
from ..results import attach_analytic
from ..scores.curves import pr_curve, roc_band, roc_curve
from ..scores.decisions import pr_band, roc_pr_bands
from ..scores.scores import Scores
from ._tasks import Tasks, report_workers

__all__ = ["Figure", "Section", "build_report", "file_sha256", "render_html", "render_markdown"]


@dataclass
class Figure:
    """One figure: its caption, the inline SVG text and the PNG bytes."""

    name: str
    caption: str
    svg: str
    png: bytes
    file: str | None = None


@dataclass
class Section:
    """One section of the report: paragraphs, tables (dicts) and figures."""

    id: str
    title: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[dict[str, Any]] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)


def _require() -> tuple[Any, Any, Any]:
    try:
        import jinja2
    except ImportError:
        raise ImportError(
            "The report needs Jinja2: pip install jinja2 (or pip install '.[report]' in "
            "mlci's repository)."
        ) from None
    try:
        import matplotlib
    except ImportError:
        raise ImportError(
            "The report's figures need matplotlib: pip install matplotlib (or pip install "
            "'.[report]' in mlci's repository)."
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .. import plotting

    return jinja2, plt, plotting


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file, for the reproducibility block.

    Examples
    --------
    >>> from mlci.data import example_path
    >>> len(file_sha256(example_path()))
    64
    """
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _figure(fig: Any, name: str, caption: str, plt: Any) -> Figure:
    svg = io.StringIO()
    fig.savefig(svg, format="svg", bbox_inches="tight")
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    text = svg.getvalue()
    return Figure(name, caption, text[text.index("<svg") :], png.getvalue())


def _num(x: Any, digits: int = 4) -> str:
    if x is None:
        return "-"
    v = float(x)
    if not np.isfinite(v):
        return "-" if np.isnan(v) else ("inf" if v > 0 else "-inf")
    return f"{v:.{digits}f}"


#: cells that are neither text nor a number: they do not decide a column's alignment
_BLANK = {"", "-", "undefined", "inf", "-inf"}


def _is_number(cell: Any) -> bool:
    if isinstance(cell, bool | np.bool_):
        return False
    if isinstance(cell, int | float | np.number):
        return True
    try:
        float(str(cell))
    except ValueError:
        return False
    return True


def _table(title: str | None, columns: list[str], rows: list[list[Any]], left: int = 1):
    """A table; text columns are left-aligned, numbers right-aligned (a column is text
    when one of its cells is neither a number nor a blank mark such as "-"; the first
    ``left`` columns, the rows' names, are always text)."""
    text = set(range(left))
    for j in range(len(columns)):
        cells = [r[j] for r in rows if j < len(r) and str(r[j]) not in _BLANK]
        if any(not _is_number(c) for c in cells):
            text.add(j)
    return {"title": title, "columns": columns, "rows": rows, "left": text}


#: engine words, and what a reader of the page calls them
_PLAIN_WORDS = (
    (re.compile(r"\bthe metric has \d+ atoms and\b"), "the metric has"),
    (re.compile(r"\bjoint atoms\b"), "distinct combinations of the systems' outcomes"),
    (re.compile(r"\b(\d+) atoms\b"), r"\1 distinct values"),
    (re.compile(r"\batoms\b"), "distinct values"),
    (re.compile(r"\bkernel\b"), "metric"),
)


def _plain(text: str) -> str:
    """``text`` with the engine's words replaced by the reader's (no "atoms")."""
    for pattern, words in _PLAIN_WORDS:
        text = pattern.sub(words, text)
    return text


#: the calibration metrics of the report's calibration section (docs/calibration.md)
CALIBRATION_METRICS = ("ece", "calibration_slope", "calibration_intercept", "brier_reliability")


def _calibration_task(
    positives: np.ndarray, out: np.ndarray, metric: str, boot: dict[str, Any]
) -> tuple[list[Any], bool]:
    """One row of the calibration table (ECE, recalibration slope or intercept, Brier
    reliability with its interval) and whether the metric was flagged near zero."""
    import warnings

    from ..exceptions import IrregularEstimandWarning

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", IrregularEstimandWarning)
            res = bootstrap_ci(positives, out, metric=metric, **boot)
    except ValueError as exc:  # e.g. probabilities of exactly 0 or 1 (logit)
        return [metric, "-", "-", "-", str(exc).split(";")[0][:80]], False
    low, high = res.confidence_interval
    flagged = any(issubclass(w.category, IrregularEstimandWarning) for w in caught)
    label = metric + (" *" if flagged else "")
    if "plug_in" in res.details and "bias" in res.details:  # the debiased ECE
        label += f" (plug-in {_num(res.details['plug_in'])})"
    return [label, _num(res.estimate), _num(low), _num(high), res.method], flagged


def _reliability_figure(
    positives: np.ndarray,
    probs: dict[str, np.ndarray],
    confidence_level: float,
    level: str,
    plt: Any,
    plotting: Any,
) -> Figure | None:
    """The reliability diagram of the systems whose scores are probabilities (from the
    data alone: drawn while the calibration metrics run)."""
    if not probs:
        return None
    fig, ax = plt.subplots(figsize=(5, 5))
    for name, out in probs.items():
        plotting.plot_reliability(
            positives.astype(int), out, ax=ax, label=name, confidence_level=confidence_level
        )
    ax.legend(loc="upper left")
    caption = f"Observed frequency per bin with {level} Wilson intervals."
    return _figure(fig, "calibration", caption, plt)


def _calibration_section(
    calib_f: dict[tuple[str, str], Future[Any]], figure: Figure | None
) -> Section:
    """The calibration table (:func:`_calibration_task`) and the reliability diagram."""
    calib = Section("calibration", "Calibration")
    if figure is None:
        calib.paragraphs.append(
            "No system's scores are probabilities (in [0, 1]): no reliability diagram."
        )
        return calib
    rows, notes = [], []
    for (name, _), fut in calib_f.items():
        row, flagged = fut.result()
        rows.append([name, *row])
        if flagged:
            notes.append(name)
    calib.tables.append(
        _table(None, ["system", "metric", "estimate", "low", "high", "method"], rows, 2)
    )
    if notes:
        calib.paragraphs.append(
            "* near zero (within twice what the bins' noise gives a calibrated model): no "
            "interval of a binned calibration error is known to hold there (the population "
            "value sits on the edge of its range); trust the slope and intercept "
            "(docs/calibration.md)."
        )
    calib.figures.append(figure)
    return calib


#: peak memory of the report's tasks, bytes per sample (tracemalloc at 10^6 samples,
#: 2,000 conditions, one system; the pairs: per system), for :class:`Tasks`'s budget
_TASK_BYTES = {
    "pairs": 160,
    "roc_auc": 115,
    "average_precision": 115,
    "curves": 290,
    "ece": 390,
    "brier_reliability": 390,
    "calibration_slope": 145,
    "calibration_intercept": 145,
}


def _task_bytes(task: str) -> float:
    """Estimated peak bytes per sample of a task (:data:`_TASK_BYTES`; 150 if unknown)."""
    return float(_TASK_BYTES.get(task, 150))


def _why(res: Any) -> str:
    """Why an interval has its method: the result's own reason when it chose (``auto``)."""
    details = getattr(res, "details", {}) or {}
    for key in ("method_reason", "reason", "auto_reason"):
        if details.get(key):
            return _plain(str(details[key]))
    reason = getattr(getattr(res, "diagnostics", None), "reason", None)
    if reason:  # (a result's diagnostics dict is not a reason: never print it)
        return _plain(str(reason))
    return "as asked (--method)"


def build_report(
    y_true: np.ndarray,
    systems: dict[str, np.ndarray],
    *,
    kind: str,
    source: str,
    conditions: np.ndarray | None = None,
    groups: np.ndarray | None = None,
    pos_label: Any = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: str = "auto",
    seed: int = 0,
    n_dropped: int = 0,
    command: str = "",
    file_hash: str | None = None,
    names: dict[str, str] | None = None,
) -> dict[str, Any]:
    """What the report shows, computed through the public API.

    Parameters
    ----------
    y_true : ndarray
        Labels (already through the input gate).
    systems : dict of name -> ndarray
        Each system's scores (``kind="score"``: binary labels, ranking metrics) or
        decisions (``kind="pred"``).
    kind : {"score", "pred"}
    source : str
        How to name the input (file name).
    conditions, groups : ndarray, optional
        Resampling conditions (speaker...) and the groups of the per-group section.
    pos_label, n_resamples, confidence_level, method, seed
        As in :func:`mlci.bootstrap_ci` (``method`` default ``"auto"``, as the command's
        ``--method``); ``method="delong"`` (scores of a binary task,
        independent samples): the AUC's intervals and paired differences by DeLong's
        method (:func:`mlci.delong_ci`, :func:`mlci.delong_test`, the p-values adjusted
        by Holm), the other metrics by the automatic bootstrap method.
    n_dropped : int
        Rows dropped for missing values (reported in the data section).
    command, file_hash : str
        For the reproducibility section.
    names : dict, optional
        Column names of ``label``, ``condition``, ``group`` for the text.

    Returns
    -------
    dict
        The template context: ``title``, ``sections``, ``versions``, ``level``, ...

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0); y = rng.integers(0, 2, 200)
    >>> ctx = build_report(y, {"a": y + rng.normal(0, 1, 200)}, kind="score", source="x",
    ...                    n_resamples=100)
    >>> [s.id for s in ctx["sections"]]
    ['data', 'metrics', 'curves', 'calibration', 'methods', 'reproduce']
    """
    _, plt, plotting = _require()
    if kind not in ("score", "pred"):
        raise ValueError(f"`kind` must be 'score' or 'pred'; got {kind!r}.")
    names = names or {}
    level = f"{confidence_level * 100:.10g}%"
    delong = method == "delong"
    if delong and kind != "score":
        raise ValueError(
            "`method`='delong' is DeLong's interval of the ROC AUC: it needs scores "
            "(kind='score', --score), not decisions."
        )
    if delong and conditions is not None:
        raise ValueError(
            "`method`='delong' assumes independent samples and cannot use `conditions`; "
            "use a bootstrap method (the default) to resample the conditions."
        )
    boot = {
        "n_resamples": n_resamples,
        "confidence_level": confidence_level,
        "method": "auto" if delong else method,
        "rng": seed,
        "conditions": conditions,
    }
    sections: list[Section] = []
    classes, counts = np.unique(y_true, return_counts=True)
    binary = classes.size == 2
    if delong and not binary:
        raise ValueError(
            f"`method`='delong' needs two classes (a binary task); got {classes.size}."
        )
    data = Section("data", "Data")
    data.paragraphs.append(
        f"{source}: {len(y_true)} samples, {len(systems)} system(s) "
        f"({', '.join(systems)}), {classes.size} classes"
        + (
            f", {np.unique(conditions).size} conditions ({names.get('condition', '')})"
            if conditions is not None
            else ""
        )
        + (
            f"; {n_dropped} row(s) with a missing value dropped"
            if n_dropped
            else "; no missing value"
        )
        + "."
    )
    data.tables.append(
        _table(
            "classes",
            ["class", "samples", "share"],
            [
                [str(c), int(k), _num(k / len(y_true), 3)]
                for c, k in zip(classes, counts, strict=True)
            ],
        )
    )
    sections.append(data)

    # each system's metrics
    if kind == "score":
        metric_opts = [
            ("roc_auc", {"pos_label": pos_label}),
            ("average_precision", {"pos_label": pos_label}),
        ]
    else:
        avg = {} if binary else {"average": "macro"}
        metric_opts = [("accuracy", {}), ("f1", {**avg, "pos_label": pos_label} if binary else avg)]
    # the paired comparison: with conditions its per-system results are each system's
    # own bootstrap of the first metric (the same condition draws, the same interval,
    # bit for bit), so the metrics table takes them instead of computing every system's
    # replicates twice (issue 25).  Without conditions the joint atoms of the comparison
    # draw other replicates: the table keeps its own
    first_metric, first_opts = metric_opts[0]
    reuse = conditions is not None and len(systems) > 1 and not delong
    curves_too = kind == "score" and binary
    probs = {n: o for n, o in systems.items() if np.all((o >= 0) & (o <= 1))} if curves_too else {}
    group_values = [] if groups is None else list(np.unique(groups))
    n_tasks = (
        1
        + len(systems) * (len(metric_opts) + (1 if curves_too else 0) + len(group_values))
        + len(probs) * len(CALIBRATION_METRICS)
    )
    # every call on a few threads (issue 25), the longest first; the figures are drawn
    # here as their numbers come (_tasks.py: no number depends on the threads)
    workers, task_jobs = report_workers(n_tasks)
    n = len(y_true)
    budget = 2.0 * get_config()["max_memory"]  # the tasks' estimated peaks at once
    with Tasks(workers, task_jobs, budget=budget) as tasks:
        pairs_f: Future[Any] | None = None
        if len(systems) > 1:
            if delong:
                pairs_f = tasks.submit(_delong_task, y_true, systems, confidence_level, pos_label)
            else:
                pairs_f = tasks.submit(
                    _pairs_task, y_true, systems, first_metric, first_opts, boot, reuse,
                    memory=_task_bytes("pairs") * n * len(systems),
                )  # fmt: skip
        metric_f: dict[tuple[str, str], Future[Any]] = {}
        for name, out in systems.items():
            for metric, opts in metric_opts:
                if reuse and metric == first_metric:
                    continue  # from the comparison
                if delong and metric == "roc_auc":
                    metric_f[name, metric] = tasks.submit(
                        delong_ci,
                        y_true,
                        out,
                        confidence_level=confidence_level,
                        pos_label=pos_label,
                    )
                else:
                    metric_f[name, metric] = tasks.submit(
                        bootstrap_ci, y_true, out, metric=metric, **opts, **boot,
                        memory=_task_bytes(metric) * n,
                    )  # fmt: skip
        curve_f = {
            name: tasks.submit(
                _curve_task,
                y_true,
                out,
                conditions,
                pos_label,
                n_resamples,
                confidence_level,
                seed,
                memory=_task_bytes("curves") * n,
            )
            for name, out in (systems.items() if curves_too else ())
        }
        positives = y_true == (pos_label if pos_label is not None else classes[-1])
        calib_f = {
            (name, metric): tasks.submit(
                _calibration_task,
                positives.astype(int),
                out,
                metric,
                boot,
                memory=_task_bytes(metric) * n,
            )
            for name, out in probs.items()
            for metric in CALIBRATION_METRICS
        }
        group_f = {
            (g, name): tasks.submit(
                _group_task,
                y_true,
                out,
                groups == g,
                conditions,
                first_metric,
                first_opts,
                boot,
                names,
                memory=_task_bytes(first_metric) * n,
            )
            for g in group_values
            for name in systems
        }

        def metrics_section() -> Section:
            _, shared = pairs_f.result() if reuse and pairs_f is not None else (None, {})
            metrics = Section("metrics", "Each system's metrics")
            rows, forest = [], {}
            for name in systems:
                for metric, opts in metric_opts:
                    label = metric + (" (macro)" if opts.get("average") else "")
                    res = (
                        shared[name]
                        if (name, metric) not in metric_f
                        else metric_f[name, metric].result()
                    )
                    if delong and metric == "roc_auc":
                        about = [
                            "delong",
                            "independent samples",
                            "-",
                            "DeLong's interval (as asked)",
                        ]
                    else:
                        why = _why(res)
                        if delong:
                            why = (
                                f"DeLong applies to the AUC only; here the automatic method: {why}"
                            )
                        about = [res.method, res.scheme, str(res.n_resamples), why]
                    low, high = res.confidence_interval
                    rows.append(
                        [name, label, _num(res.estimate), _num(low), _num(high), res.method]
                    )
                    forest[f"{name}: {label}"] = res
                    method_rows.append([name, label, *about])
            metrics.tables.append(
                _table(None, ["system", "metric", "estimate", "low", "high", "method"], rows, 2)
            )
            fig, ax = plt.subplots(figsize=(6.5, 0.45 * len(forest) + 1.2))
            plotting.plot_forest(forest, ax=ax, metric="metric value")
            metrics.figures.append(
                _figure(fig, "forest", f"Estimates with {level} intervals.", plt)
            )
            return metrics

        method_rows: list[list[Any]] = []
        builders: list[tuple[str, list[Future[Any]], Callable[[], Section]]] = [
            (
                "metrics",
                [*metric_f.values(), *([pairs_f] if reuse and pairs_f else [])],
                metrics_section,
            )
        ]
        if pairs_f is not None:
            builders.append(
                ("differences", [pairs_f], lambda: _differences_section(
                    pairs_f, first_metric, delong, plt, plotting))
            )  # fmt: skip
        if curves_too:
            builders.append(
                ("curves", list(curve_f.values()), lambda: _curves_section(
                    curve_f, conditions, level, names, plt, plotting))
            )  # fmt: skip
            builders.append(
                ("calibration", list(calib_f.values()), lambda: _calibration_section(
                    calib_f, reliability))
            )  # fmt: skip
        if groups is not None:
            builders.append(
                ("groups", list(group_f.values()), lambda: _groups_section(
                    group_f, group_values, systems, first_metric, names))
            )  # fmt: skip
        # (the reliability diagram needs no task: drawn while they run)
        reliability = (
            _reliability_figure(positives, probs, confidence_level, level, plt, plotting)
            if curves_too
            else None
        )
        built = _as_ready(builders)
    sections.extend(built[key] for key, _, _ in builders)

    meth = Section("methods", "Interval methods")
    meth.paragraphs.append(
        (
            f"The AUC's intervals are DeLong's ({level}); every other interval is a "
            f"{level} bootstrap interval over {n_resamples} replicates"
            if delong
            else f"Every interval above is a {level} bootstrap interval over {n_resamples} "
            "replicates"
        )
        + (
            f", resampling {names.get('condition', 'conditions')} as units"
            if conditions is not None
            else ""
        )
        + "."
    )
    meth.tables.append(
        _table(None, ["system", "metric", "method", "scheme", "replicates", "why"], method_rows, 2)
    )
    sections.append(meth)

    versions = {"mlci": _version("mlci"), "python": platform.python_version()}
    for lib in ("numpy", "scipy", "matplotlib", "jinja2", "pyarrow"):
        versions[lib] = _version(lib)
    rep = Section("reproduce", "Reproduce")
    rep.paragraphs.append(f"Command: {command}" if command else "Made from Python.")
    rep.paragraphs.append(
        f"Seed: {seed}. Input: {source}" + (f", SHA-256 {file_hash}." if file_hash else ".")
    )
    rep.tables.append(
        _table("versions", ["package", "version"], [[k, v] for k, v in versions.items()])
    )
    sections.append(rep)
    return {
        "title": f"Evaluation report: {source}",
        "sections": sections,
        "versions": versions,
        "level": level,
        "created": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def _pairs_task(
    y_true: np.ndarray,
    systems: dict[str, np.ndarray],
    metric: str,
    opts: dict[str, Any],
    boot: dict[str, Any],
    reuse: bool,
) -> tuple[Any, dict[str, Any]]:
    """The paired comparison of ``metric`` and, with ``reuse``, each system's result of
    it (:func:`_shared_results`; a system whose method the comparison did not choose as
    :func:`mlci.bootstrap_ci` would is computed here apart)."""
    pairs = compare(y_true, systems, metric=metric, **dict(opts.items()), **boot)
    if not reuse:
        return pairs, {}
    shared = _shared_results(pairs, y_true, systems, metric, opts, boot)
    for name, out in systems.items():
        if name not in shared:
            shared[name] = bootstrap_ci(y_true, out, metric=metric, **opts, **boot)
    return pairs, shared


def _delong_task(
    y_true: np.ndarray, systems: dict[str, np.ndarray], confidence_level: float, pos_label: Any
) -> tuple[Any, dict[str, Any]]:
    return _delong_pairs(y_true, systems, confidence_level, pos_label), {}


def _differences_section(
    pairs_f: Future[Any], first_metric: str, delong: bool, plt: Any, plotting: Any
) -> Section:
    """The pairwise differences: table and figure."""
    res = pairs_f.result()[0]
    diff = Section("differences", f"Pairwise differences ({first_metric})")
    if delong:
        diff.paragraphs.append(
            "DeLong's paired test of every pair (the AUCs' covariance on the same "
            f"samples); p-values adjusted by {res.correction}."
        )
    else:
        diff.paragraphs.append(
            "Every system on the same bootstrap replicates (paired), so each "
            "difference's interval reflects their correlation; p-values adjusted by "
            f"{res.correction}."
        )
    drows = []
    for d in res.differences:
        low, high = d.confidence_interval
        drows.append(
            [
                f"{d.a} - {d.b}",
                _num(d.estimate),
                _num(low),
                _num(high),
                f"{d.pvalue:.4g}",
                f"{d.pvalue_adjusted:.4g}",
                "yes" if d.significant else "no",
            ]
        )
    columns = ["difference", "estimate", "low", "high", "p", f"p ({res.correction})"]
    diff.tables.append(_table(None, [*columns, "significant"], drows))
    fig, ax = plt.subplots(figsize=(6.5, 0.5 * len(res.differences) + 1.2))
    plotting.plot_differences(res, ax=ax)
    diff.figures.append(
        _figure(fig, "differences", "Differences with their intervals and adjusted p-values.", plt)
    )
    return diff


def _curve_task(
    y_true: np.ndarray,
    out: np.ndarray,
    conditions: np.ndarray | None,
    pos_label: Any,
    n_resamples: int,
    confidence_level: float,
    seed: int,
) -> tuple[Any, Any, tuple[Any, Any]]:
    """One system's ROC and precision-recall curves and their bands.

    The scores sorted once, for both curves; with conditions both bands come from one
    set of replicates (the conditions drawn whole, as for every other interval): each
    replicate's counts drawn and summed once (issue 25).  The sorted scores (88 MiB at
    10^6 samples) are freed when the task ends."""
    s = Scores.from_labels(y_true, out, pos_label=pos_label)
    if conditions is not None:
        bands = roc_pr_bands(
            s,
            conditions=conditions,
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            rng=seed,
        )
    else:
        opts: dict[str, Any] = {"n_resamples": n_resamples, "confidence_level": confidence_level}
        bands = (roc_band(s, rng=seed, **opts), pr_band(s, rng=seed, **opts))
    return roc_curve(s), pr_curve(s), bands


def _curves_section(
    curve_f: dict[str, Future[Any]],
    conditions: np.ndarray | None,
    level: str,
    names: dict[str, str],
    plt: Any,
    plotting: Any,
) -> Section:
    """ROC and precision-recall curves with bands (scores of a binary task)."""
    curves = Section("curves", "ROC and precision-recall curves")
    curves.paragraphs.append(
        f"Each curve with its pointwise {level} band (vertical, TPR at fixed FPR)."
    )
    done = {name: fut.result() for name, fut in curve_f.items()}
    fig, ax = plt.subplots(figsize=(5, 5))
    for name, (roc, _, bands) in done.items():
        plotting.plot_roc(roc, bands[0], ax=ax, label=name)
    ax.plot([0, 1], [0, 1], color="0.6", ls=":", lw=1)
    ax.legend(loc="lower right")
    curves.figures.append(_figure(fig, "roc", "ROC curves with pointwise bands.", plt))
    fig, ax = plt.subplots(figsize=(5, 5))
    for name, (_, pr, bands) in done.items():
        plotting.plot_pr(pr, bands[1], ax=ax, label=name)
    ax.legend(loc="lower left")
    curves.figures.append(
        _figure(
            fig,
            "pr",
            f"Precision-recall curves with pointwise {level} bands (precision at fixed "
            "recall, "
            + (
                f"{names.get('condition') or 'the conditions'} resampled as units)."
                if conditions is not None
                else "positives and negatives resampled apart)."
            ),
            plt,
        )
    )
    return curves


def _group_task(
    y_true: np.ndarray,
    out: np.ndarray,
    keep: np.ndarray,
    conditions: np.ndarray | None,
    metric: str,
    opts: dict[str, Any],
    boot: dict[str, Any],
    names: dict[str, str],
) -> list[Any]:
    """One row of the per-group table (without the group and system): n, the metric's
    estimate and interval, or why it is undefined."""
    n = int(keep.sum())
    if conditions is not None and np.unique(conditions[keep]).size < 2:
        reason = (
            "the group lies in one condition: there is nothing to resample "
            f"({names.get('group') or 'the group'} is nested in "
            f"{names.get('condition') or 'the conditions'})"
        )
        return [n, "undefined", "-", "-", reason]
    try:
        res = bootstrap_ci(
            y_true[keep],
            out[keep],
            metric=metric,
            **opts,
            **{**boot, "conditions": None if conditions is None else conditions[keep]},
        )
    except ValueError as exc:  # e.g. one class in a group: AUC undefined
        reason = _plain(str(exc).replace("`", "").split(";")[0][:100])
        return [n, "undefined", "-", "-", reason]
    low, high = res.confidence_interval
    return [n, _num(res.estimate), _num(low), _num(high), ""]


def _groups_section(
    group_f: dict[tuple[Any, str], Future[Any]],
    group_values: list[Any],
    systems: dict[str, np.ndarray],
    first_metric: str,
    names: dict[str, str],
) -> Section:
    """The first metric per group and system (:func:`_group_task`)."""
    per = Section("groups", f"Per group ({names.get('group', 'group')})")
    prows = [[str(g), name, *group_f[g, name].result()] for g in group_values for name in systems]
    per.tables.append(
        _table(None, ["group", "system", "n", first_metric, "low", "high", "note"], prows, 2)
    )
    return per


def _as_ready(
    builders: list[tuple[str, list[Future[Any]], Callable[[], Section]]],
) -> dict[str, Section]:
    """Build each section (in this thread: its figures) as soon as its tasks are done,
    the first ready in the list first; ``{id: section}``."""
    todo = list(builders)
    built: dict[str, Section] = {}
    while todo:
        ready = next((b for b in todo if all(f.done() for f in b[1])), None)
        if ready is None:
            waiting = [f for b in todo for f in b[1] if not f.done()]
            wait(waiting, return_when=FIRST_COMPLETED)
            continue
        todo.remove(ready)
        built[ready[0]] = ready[2]()
    return built


def _shared_results(
    pairs: Any,
    y_true: np.ndarray,
    systems: dict[str, np.ndarray],
    metric: str,
    opts: dict[str, Any],
    boot: dict[str, Any],
) -> dict[str, Any]:
    """Each system's result of ``metric`` from the paired comparison, as
    :func:`mlci.bootstrap_ci` gives it on the same condition draws (the same interval, bit
    for bit): with ``method="auto"`` its reason added as ``bootstrap_ci`` words it, and a
    system left out (computed apart) where the comparison chose another method."""
    out = dict(pairs.systems)
    if boot["method"] != "auto":
        return out
    for name, res in pairs.systems.items():
        chosen, reason = auto_method(
            y_true, systems[name], metric=metric, conditions=boot["conditions"], **opts
        )
        details = dict(res.details or {})
        if chosen != res.method and "edge_fallback" not in details:
            del out[name]
            continue
        edge = details.get("method_reason")
        if not (edge or "").startswith(reason):  # (compare words it as bootstrap_ci now)
            details["method_reason"] = reason + (f"; {edge}" if edge else "")
        if res.analytic is None:
            out[name] = replace(res, details=details)
        else:  # an analytic interval auto gave: its record says the same reason
            record = replace(res.analytic, reason=details["method_reason"])
            out[name] = attach_analytic(res, record, details)
    return out


@dataclass
class _Pairs:
    """DeLong's pairwise differences, shaped like a comparison for the table and plot."""

    differences: list[Any]
    correction: str = "holm"


def _delong_pairs(
    y_true: np.ndarray, systems: dict[str, np.ndarray], confidence_level: float, pos_label: Any
) -> _Pairs:
    from itertools import combinations

    from ..comparison.paired_results import PairDifference
    from ..results import ConfidenceInterval

    names = list(systems)
    tests = [
        (
            a,
            b,
            delong_test(
                y_true,
                systems[a],
                systems[b],
                confidence_level=confidence_level,
                pos_label=pos_label,
            ),
        )
        for a, b in combinations(names, 2)
    ]
    adjusted = adjust_pvalues([t.pvalue for _, _, t in tests], correction="holm")
    alpha = 1.0 - confidence_level
    out = []
    for (a, b, t), p_adj in zip(tests, adjusted, strict=True):
        ci = t.confidence_interval
        assert ci is not None  # delong_test gives the difference's interval
        out.append(
            PairDifference(
                a=a,
                b=b,
                estimate=float(t.estimate),
                confidence_interval=ci,
                confidence_level=confidence_level,
                method="delong",
                standard_error=float(t.details.get("standard_error", np.nan)),
                metric="roc_auc",
                pvalue=float(t.pvalue),
                pvalue_adjusted=float(p_adj),
                simultaneous_interval=ConfidenceInterval(np.nan, np.nan),
                significant=bool(p_adj < alpha),
            )
        )
    return _Pairs(out)


def _version(dist: str) -> str:
    if dist == "mlci":
        from .. import __version__

        return __version__
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def _env(autoescape: bool) -> Any:
    jinja2, _, _ = _require()
    text = resources.files(__name__).joinpath("templates")
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(text)),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def render_html(context: dict[str, Any]) -> str:
    """The self-contained HTML page (inline SVG figures, inline style, no scripts)."""
    return _env(True).get_template("report.html.j2").render(**context)


def render_markdown(context: dict[str, Any], image_dir: Path, link_prefix: str = "") -> str:
    """Markdown, with the figures written as PNG files into ``image_dir``."""
    image_dir.mkdir(parents=True, exist_ok=True)
    for section in context["sections"]:
        for fig in section.figures:
            path = image_dir / f"{fig.name}.png"
            path.write_bytes(fig.png)
            fig.file = f"{link_prefix}{path.name}"
    text = _env(False).get_template("report.md.j2").render(**context)
    lines = [ln.rstrip() for ln in text.splitlines()]
    out: list[str] = []
    for ln in lines:  # at most one blank line in a row
        if ln or (out and out[-1]):
            out.append(ln)
    return "\n".join(out).strip() + "\n"
