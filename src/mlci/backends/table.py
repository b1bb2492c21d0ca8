"""The reduced table (:class:`AtomTable`) and the public entry points of the reduction.

``reduce_table`` runs one reduction inside the data's engine and returns an
:class:`AtomTable`: a few thousand rows whatever the number of samples.  Its
:meth:`AtomTable.bootstrap_ci` builds the metric's kernel and a sampler over the table
(:meth:`mlci.engine.resampling.ResamplingPlan.weights_for_table`) and runs the one
bootstrap engine (:func:`mlci.engine.bootstrap.run_bootstrap`) on it, locally.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..engine.bootstrap import run_bootstrap
from ..engine.nested import plan_for_conditions
from ..engine.resampling import table_plan
from ..feedback import reports_progress
from ..inputs import (
    ArgSpec,
    bootstrap_options,
    check_flag,
    check_positive_int,
    gather,
    knobs_in_config,
)
from ..inputs.encoding import fast_unique
from ..inputs.resampling import Resampling, check_resampling, resampling_keywords
from ..intervals.bootstrap import LINEARIZED_METHODS
from ..metrics import ExactSums, Kernel, get_kernel, metric_info, metric_params
from ..results import BootstrapResult, ConfidenceInterval, Result, plain, widen_by_bound
from .quantise import ap_error_bound, auc_error_bound, coarse_edges, coarse_index
from .reduction import SUMMANDS, Reduced, check_columns, count_rows, score_histogram, unit_sums
from .samples import table_samples, unavailable_reason
from .sources import open_source

__all__ = ["RANKING", "AtomTable", "reduce_ci", "reduce_table"]

#: ranking metrics: reduced by score quantisation (``score_bins``), with an error bound
RANKING = ("roc_auc", "average_precision")
#: additive metrics summed per condition when conditions are given
UNIT_SUMS = tuple(SUMMANDS)
#: fine grid counted in the engine before merging into ``score_bins`` quantile bins
FINE_BINS = 1 << 20
#: with conditions or strata: fine bins per score bin (the engine's table is smaller)
FINE_PER_BIN = 16
DEFAULT_SCORE_BINS = 1 << 14
DEFAULT_MAX_ROWS = 2_000_000


class UnitSumsKernel(Kernel):
    """An additive metric ``g(sum num, sum den)`` whose atoms are the units (conditions).

    A replicate's unit counts ``w`` give ``g(w @ num, w @ den)``: the in-memory kernel's
    value, summed in another order.
    """

    work_factor = 3.0

    def __init__(self, num: np.ndarray, den: np.ndarray, g: Any, name: str) -> None:
        self.sums = np.column_stack([num, den])
        self._sums = ExactSums(self.sums)
        self.keys = np.arange(len(num), dtype=np.intp)
        self.m = len(num)
        self.g = g
        self.name = name
        self.shape = ()

    def evaluate(self, w: np.ndarray) -> np.ndarray:
        return self.g(self._sums(w))


#: tiny valid inputs of each additive metric, to take its ``g`` from its own kernel
_DUMMY = {
    "mean": ([0.0, 1.0],),
    "weighted_mean": ([1.0, 1.0], [0.0, 1.0]),
    "mae": ([0.0, 1.0], [1.0, 0.0]),
    "mse": ([0.0, 1.0], [1.0, 0.0]),
    "rmse": ([0.0, 1.0], [1.0, 0.0]),
}


@dataclass(frozen=True, repr=False)
class AtomTable(Result):
    """Sufficient statistics of a data set for a family of metrics, reduced in its engine.

    Build one with :func:`reduce_table`; bootstrap it with :meth:`bootstrap_ci` (as often
    as needed: the data is not read again).

    Attributes
    ----------
    kind : {"rows", "sums", "scores"}
        ``"rows"``: counts of distinct (design, inputs) rows (exact); ``"sums"``: per
        condition sums of an additive metric (exact up to rounding); ``"scores"``: counts
        of (design, label, score bin) (quantised; the error bound is reported).
    metrics : tuple of str
        The metrics it was reduced for.
    inputs : tuple of str
        The source's columns, in the metrics' input order.
    conditions, strata : str or None
        The design's columns.
    source : str
        What was read (files, "DuckDB relation"...).
    engine : str
    n_samples : int
        Rows kept.
    n_dropped : int
        Rows left out for a missing value (``dropna=True``).
    table : dict of str -> ndarray
        The reduced rows: design and input values (or sums, or score bins) and ``"count"``.
    grid : dict
        The score grid of a ``"scores"`` table (``lo``, ``hi``, ``fine_bins``, ``edges``).
    """

    kind: str
    metrics: tuple[str, ...]
    inputs: tuple[str, ...]
    conditions: str | None
    strata: str | None
    source: str
    engine: str
    n_samples: int
    n_dropped: int
    table: dict[str, np.ndarray] = field(compare=False)
    grid: dict[str, Any] = field(default_factory=dict, compare=False)

    def __repr__(self) -> str:
        design = [f"conditions={self.conditions!r}"] if self.conditions else []
        design += [f"strata={self.strata!r}"] if self.strata else []
        return (
            f"AtomTable({self.kind}, {', '.join(self.metrics)}; {self.n_samples} samples in "
            f"{self.n_rows} rows from {self.source} ({self.engine})"
            f"{'; ' + ', '.join(design) if design else ''})"
        )

    @property
    def n_rows(self) -> int:
        """Rows of the reduced table."""
        return len(self.table["count"])

    def rows(self) -> list[dict[str, Any]]:
        cols = list(self.table)
        return [{c: plain(self.table[c][i]) for c in cols} for i in range(min(self.n_rows, 10_000))]

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["n_rows"] = self.n_rows
        return d

    def score_bin(self, y_score: Any) -> np.ndarray:
        """The bin of each score on this table's grid (``"scores"`` tables): running the
        in-memory bootstrap on these bins gives the same interval as the table.

        Parameters
        ----------
        y_score : array-like of float, shape (n_samples,)
            Scores of the column the table was reduced from.

        Returns
        -------
        ndarray of int, shape (n_samples,)

        Examples
        --------
        >>> import numpy as np, pandas as pd, mlci
        >>> df = pd.DataFrame({"y": [0, 1] * 50, "s": np.linspace(0, 1, 100)})
        >>> t = mlci.reduce_table(df, "y", "s", metric="roc_auc", score_bins=4)
        >>> np.bincount(t.score_bin(df["s"].to_numpy())).tolist()
        [25, 25, 25, 25]
        """
        if self.kind != "scores":
            raise ValueError(f"score_bin applies to a 'scores' table; this one is {self.kind!r}.")
        s = np.asarray(y_score, dtype=float)
        g = self.grid
        span = g["hi"] - g["lo"]
        scale = g["fine_bins"] / span if span > 0 else 0.0
        with np.errstate(invalid="ignore"):
            fine = np.clip(np.floor((s - g["lo"]) * scale), 0, g["fine_bins"] - 1)
        fine = np.where(s == np.inf, g["fine_bins"], np.where(s == -np.inf, -1, fine))
        return coarse_index(fine.astype(np.int64), np.asarray(g["edges"]))

    # ------------------------------------------------------------------ bootstrap
    @resampling_keywords
    @knobs_in_config
    @reports_progress
    def bootstrap_ci(
        self,
        metric: str | None = None,
        *,
        pos_label: Any = None,
        average: Any = "default",
        metric_kwargs: dict[str, Any] | None = None,
        n_resamples: int = 1000,
        confidence_level: float = 0.95,
        method: str = "auto",
        alternative: str = "two-sided",
        rng: Any = None,
        resampling: Resampling | None = None,
    ) -> BootstrapResult:
        """Bootstrap interval of a metric from the table (see :func:`mlci.bootstrap_ci`).

        ``metric`` defaults to the table's one metric; a ``"rows"`` table of decisions
        serves every confusion-matrix metric.  With conditions, and iid or strata when the
        table has at least 16 samples per atom, the replicates are those the in-memory
        :func:`mlci.bootstrap_ci` draws with the same seed.

        ``method="auto"`` resolves as :func:`mlci.bootstrap_ci` does (the same method,
        ``method_reason`` and interval for the same seed): the table's counts are laid out
        as samples again, in a canonical order, and run through the in-memory engine
        (:mod:`mlci.backends.samples`); so are the linearized methods (``"studentized"``,
        ``"t"``, ``"logit_t"``, ``"wilson"``...).  Two tables keep their own bootstrap,
        BCa under ``auto`` with its reason: an additive metric of other values than 0/1
        summed per condition (the table holds no sample's value), and a table of more
        than :data:`mlci.backends.samples.MAX_SAMPLES` samples.

        ``progress=True`` shows a progress bar on stderr while the replicates run (after
        about 2 seconds, on a terminal only, never in CI; see :mod:`mlci.feedback`).

        Parameters
        ----------
        metric : str, optional
            A metric the table serves (default: its one metric).
        pos_label, average, metric_kwargs, n_resamples, confidence_level, method
            As in :func:`mlci.bootstrap_ci`.
        alternative, rng
            As in :func:`mlci.bootstrap_ci`.
        resampling : mlci.Resampling, optional
            ``weights`` (``"multinomial"``, the default, or ``"poisson"``): the one field
            of :class:`mlci.Resampling` a reduced table offers.

        Returns
        -------
        BootstrapResult

        Examples
        --------
        >>> import numpy as np, pandas as pd, mlci
        >>> rng = np.random.default_rng(0)
        >>> df = pd.DataFrame({"y": rng.integers(0, 2, 2000), "spk": rng.integers(0, 40, 2000)})
        >>> df["p"] = np.where(rng.random(2000) < 0.8, df["y"], 1 - df["y"])
        >>> t = mlci.reduce_table(df, "y", "p", metric="accuracy", conditions="spk")
        >>> res = t.bootstrap_ci(n_resamples=200, rng=1)
        >>> mem = mlci.bootstrap_ci(df["y"], df["p"], metric="accuracy",
        ...                         conditions=df["spk"], n_resamples=200, rng=1)
        >>> res.method, res.confidence_interval == mem.confidence_interval
        ('logit_t', True)
        """
        opts = bootstrap_options(
            n_resamples=n_resamples,
            confidence_level=confidence_level,
            method=method,
            alternative=alternative,
            rng=rng,
        )
        weights = check_resampling(resampling, ("weights",), "AtomTable.bootstrap_ci").weights
        name = self._metric(metric)
        params = metric_params(name, pos_label, average, metric_kwargs)
        kernel, details = self._kernel(name, params)
        details.update(
            n_dropped=self.n_dropped, engine=self.engine, source=self.source, n_rows=self.n_rows
        )
        run: dict[str, Any] = {
            "method": opts.method,
            "confidence_level": opts.confidence_level,
            "alternative": opts.alternative,
            "batch": opts.engine.batch,
            "n_jobs": opts.engine.n_jobs,
            "max_memory": opts.engine.max_memory,
            "metric_name": name,
        }
        resolves = opts.method == "auto" or opts.method in LINEARIZED_METHODS
        binary = self.kind == "sums" and "nonbinary" in self.table
        binary = binary and not self.table["nonbinary"].any()
        why_not = unavailable_reason(self.kind, name, self.n_samples, binary)
        if resolves and why_not is None:
            # the rules of auto read every sample's atom and condition: the table's
            # samples again, through the in-memory engine (mlci.backends.samples)
            design = tuple(r for r in ("strata", "conditions") if getattr(self, r) is not None)
            samples = table_samples(self.kind, name, self.table, design)
            res = run_bootstrap(
                self._kernel_of(name, samples.arrays, params),
                plan_for_conditions(
                    self.n_samples,
                    conditions=samples.conditions,
                    strata=samples.strata,
                    weights=weights,
                    n_resamples=opts.n_resamples,
                    rng=opts.seed,
                ),
                details=details,
                **run,
            )
            return _widened(res) if "error_bound" in details else res
        group, n_units, stratum_of_unit, n_strata, n_conditions = self._design()
        plan = table_plan(
            self.n_samples,
            n_units=n_units,
            stratum_of_unit=stratum_of_unit,
            n_strata=n_strata,
            n_conditions=n_conditions,
            weights=weights,
            n_resamples=opts.n_resamples,
            rng=opts.seed,
        )
        if self.kind == "sums":
            keys, counts = np.arange(self.n_rows), np.ones(self.n_rows)
        else:
            keys, counts = kernel.keys, self.table["count"]
        sampler = plan.weights_for_table(group, keys, counts, kernel.m)
        if resolves and why_not is not None and opts.method != "auto":
            raise ValueError(
                f"method={opts.method!r} is unavailable here: {why_not}. Use "
                "method='bca' (or 'auto', which picks a method that applies)."
            )
        res = run_bootstrap(kernel, plan, sampler=sampler, details=details, **run)
        reason = str(res.details.get("method_reason", ""))
        if resolves and res.method == "bca" and "reduced table" in reason:
            # auto without the linearization (a metric's own rule that needs none, e.g.
            # the debiased ECE's normal interval, still applies): BCa, saying why here
            reason = f"bca: {why_not} (docs/scale.md)"
            res = dataclasses.replace(res, details={**res.details, "method_reason": reason})
        return _widened(res) if "error_bound" in details else res

    def _kernel_of(self, name: str, arrays: list[np.ndarray], params: dict[str, Any]) -> Kernel:
        """The metric's kernel of the table's samples (:func:`mlci.bootstrap_ci`'s)."""
        try:
            return get_kernel(name, arrays, params)
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{exc} (data: {self.source})") from None

    def _metric(self, metric: str | None) -> str:
        if metric is None:
            if len(self.metrics) > 1:
                raise ValueError(
                    f"`metric`: this table serves {', '.join(self.metrics)}; name one."
                )
            return self.metrics[0]
        if not isinstance(metric, str):
            raise TypeError(f"`metric` must be a metric name; got {type(metric).__name__}.")
        info = metric_info(metric)
        family = metric_family(info.name)
        ok = family == metric_family(self.metrics[0]) and (
            family == "confusion" or info.name in self.metrics
        )
        if not ok:
            raise ValueError(
                f"`metric` {info.name!r} needs another reduction than this table's "
                f"({', '.join(self.metrics)}); call reduce_table with metric={info.name!r}."
            )
        return info.name

    def _kernel(self, name: str, params: dict[str, Any]) -> tuple[Kernel, dict[str, Any]]:
        t = self.table
        info = metric_info(name)
        details: dict[str, Any] = {}
        try:
            if self.kind == "sums":
                g = get_kernel(name, _DUMMY[name], {}).g  # type: ignore[attr-defined]
                kernel: Kernel = UnitSumsKernel(t["num"], t["den"], g, name)
                kernel.bounds = info.bounds
                if "nonbinary" in t and not t["nonbinary"].any():
                    # a (weighted) mean of 0/1 values: a proportion, in (0, 1), as the
                    # in-memory kernel of the same values (mlci.metrics.mean_kernel)
                    kernel.bounds = (0.0, 1.0)
                return kernel, details
            if self.kind == "scores":
                kernel = get_kernel(name, [t["y_true"], t["score_bin"].astype(float)], params)
                pos = np.zeros(self.n_rows, dtype=bool)
                pos[kernel.keys >= kernel.m_neg] = True  # type: ignore[attr-defined]
                bound = auc_error_bound if name == "roc_auc" else ap_error_bound
                details["error_bound"] = bound(t["score_bin"], pos, t["count"], t["min"], t["max"])
                details["score_bins"] = int(t["score_bin"].max()) + 1
                return kernel, details
            arrays = [t[role] for role in info.inputs]
            return get_kernel(name, arrays, params), details
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"{exc} (data: {self.source})") from None

    def _design(self) -> tuple[Any, int | None, Any, int | None, int | None]:
        """Group of each row (unit, or stratum), and the design's sizes, in the sorted
        order :func:`mlci.engine.resampling.make_plan` gives the samples."""
        t = self.table
        stratum = n_strata = cond = n_cond = None
        if self.strata is not None:
            _, stratum = fast_unique(t["strata"])
            n_strata = int(stratum.max()) + 1 if len(stratum) else 0
        if self.conditions is not None:
            _, cond = fast_unique(t["conditions"])
            n_cond = int(cond.max()) + 1 if len(cond) else 0
        if cond is None:
            return stratum, None, None, n_strata, None
        assert n_cond is not None  # set with cond
        if stratum is not None:
            pair = stratum.astype(np.int64) * n_cond + cond
            uniq, unit = np.unique(pair, return_inverse=True)
            return unit.astype(np.intp), len(uniq), uniq // n_cond, n_strata, n_cond
        return cond, n_cond, None, None, n_cond


def _widened(res: BootstrapResult) -> BootstrapResult:
    """A binned ranking metric's interval widened by the certified bound on the binning
    error (the interval of the binned scores stays in ``details["binned_interval"]``)."""
    bound = res.details["error_bound"]
    low, high = res.confidence_interval
    details = dict(res.details)
    details["binned_interval"] = {"low": plain(low), "high": plain(high)}
    details["error_bound_use"] = (
        f"the interval of the binned scores widened by the certified binning error bound "
        f"{bound:.3g} on each side (|estimate - exact| <= bound)"
    )
    reason = details.get("method_reason")
    note = "interval widened by the score-binning error bound"
    details["method_reason"] = f"{reason}; {note}" if reason else note
    low, high = widen_by_bound(low, high, bound, res.bounds, res.alternative)
    return dataclasses.replace(
        res, confidence_interval=ConfidenceInterval(low, high), details=details
    )


def metric_family(name: str) -> str:
    if name in RANKING:
        return "ranking"
    info = metric_info(name)
    if info.inputs == ("y_true", "y_pred") and info.kinds and info.kinds[1].kind == "labels":
        return "confusion"
    return name


def _metric_names(metric: Any) -> tuple[str, ...]:
    names = [metric] if isinstance(metric, str) else metric
    if not isinstance(names, Sequence) or not names:
        raise TypeError(
            f"`metric` must be a metric name or a list of names; got {type(metric).__name__}."
        )
    out = []
    for nm in names:
        if not isinstance(nm, str):
            raise TypeError(f"`metric` must be metric names; got {type(nm).__name__}.")
        out.append(metric_info(nm).name)
    families = {metric_family(n) for n in out}
    if len(families) > 1 or (len(out) > 1 and families != {"confusion"}):
        raise ValueError(
            f"`metric`: {', '.join(out)} need different reductions; reduce them separately "
            "(several confusion-matrix metrics share one)."
        )
    return tuple(dict.fromkeys(out))


def reduce_table(
    source: Any,
    *columns: str,
    metric: str | Sequence[str],
    conditions: str | None = None,
    strata: str | None = None,
    dropna: bool = False,
    engine: str | None = None,
    score_bins: int = DEFAULT_SCORE_BINS,
    max_rows: int = DEFAULT_MAX_ROWS,
    memory_limit: str | None = None,
    temp_directory: str | os.PathLike[str] | None = None,
) -> AtomTable:
    """Reduce a data set to the sufficient statistics of a metric, inside its engine.

    Parameters
    ----------
    source : path, glob, list of paths, SQL query or frame
        Parquet/CSV files or a glob (``'preds/*.parquet'``), a SQL query, a DuckDB
        relation, a PySpark or Dask DataFrame, a polars LazyFrame/DataFrame, a pandas
        DataFrame or pyarrow Table (see :func:`mlci.backends.sources.open_source`).
    *columns : str
        The metric's input columns, in its order (``y_true, y_pred`` or ``y_true,
        y_score``; ``values``; ``weights, values``).
    metric : str or list of str
        One metric, or several confusion-matrix metrics (one table serves them all).
    conditions, strata : str, optional
        Columns of the design (one conditions column; nested conditions need the data in
        memory).
    dropna : bool, default False
        Rows with a missing value (null, NaN, or a CSV cell such as ``NA``) in a used column
        are an error naming it; True leaves them out and counts them (``n_dropped``).
    engine : {"duckdb", "spark", "dask", "polars"}, optional
        Default: the source's own (DuckDB for files, SQL, pandas and pyarrow).
    score_bins : int, default 16384
        Ranking metrics: the scores are merged into at most this many bins of about
        equal frequency; the bound on the error this makes is in the result's
        ``details["error_bound"]`` (about ``0.5 / score_bins`` for AUC at worst), and the
        interval is the binned scores' one widened by it on each side.  With
        conditions or strata the table holds (stratum, condition, label, bin) counts, at
        most ``2 * score_bins`` rows per stratum and condition: use fewer bins with many
        conditions.
    max_rows : int, default 2,000,000
        Largest table accepted: distinct (design, inputs) rows, or with a ranking metric
        and a design, the engine's (design, label, bin) rows on its grid of
        ``16 * score_bins`` uniform bins (merged into ``score_bins`` afterwards).
    memory_limit : str, optional
        DuckDB's memory limit in the connection mlci opens (default ``"1GB"``); DuckDB
        spills to ``temp_directory`` beyond it.
    temp_directory : path, optional
        Where DuckDB spills (default: the system's temporary directory).

    Returns
    -------
    AtomTable

    Examples
    --------
    >>> import duckdb, mlci
    >>> rel = duckdb.sql("SELECT i % 2 AS y, (i % 3 = 0)::INT AS p, i % 25 AS spk "
    ...                  "FROM range(10000) t(i)")
    >>> t = mlci.reduce_table(rel, "y", "p", metric=["accuracy", "mcc"], conditions="spk")
    >>> t.n_samples, t.n_rows
    (10000, 100)
    >>> round(t.bootstrap_ci("accuracy", n_resamples=200, rng=0).estimate, 4)
    0.5
    """
    names = _metric_names(metric)
    info = metric_info(names[0])
    dropna = check_flag("dropna", dropna)
    score_bins = check_positive_int("score_bins", score_bins, minimum=2)
    max_rows = check_positive_int("max_rows", max_rows)
    if len(columns) != len(info.inputs):
        raise ValueError(
            f"`columns`: metric {info.name!r} takes {len(info.inputs)} column(s) "
            f"({', '.join(info.inputs)}); got {len(columns)}."
        )
    for role, value in (("conditions", conditions), ("strata", strata)):
        if value is not None and not isinstance(value, str):
            raise TypeError(
                f"`{role}` must be one column name of `source`; got {type(value).__name__} "
                "(nested conditions need the data in memory: mlci.bootstrap_ci)."
            )
    src = open_source(
        source, engine=engine, memory_limit=memory_limit, temp_directory=temp_directory
    )
    inputs = dict(zip(info.inputs, columns, strict=True))
    design = {k: v for k, v in (("strata", strata), ("conditions", conditions)) if v is not None}
    check_columns(src, {**design, **inputs})
    grid: dict[str, Any] = {}
    if names[0] in RANKING:
        kind = "scores"
        # with a design, the engine counts (stratum, condition, label, bin) on a coarser
        # uniform grid: its table has at most (design groups) x 2 x fine rows
        fine_bins = FINE_BINS if not design else min(FINE_BINS, FINE_PER_BIN * score_bins)
        red = score_histogram(
            src,
            inputs,
            fine_bins=fine_bins,
            design=design,
            dropna=dropna,
            max_rows=max_rows if design else None,
        )
        edges = coarse_edges(red.columns["score_bin"], red.counts, score_bins, fine_bins)
        red = _merge_bins(red, edges, tuple(design))
        grid = {**red.extra, "edges": edges}
    elif conditions is not None and names[0] in UNIT_SUMS:
        kind = "sums"
        red = unit_sums(src, names[0], inputs, design, dropna=dropna)
    else:
        kind = "rows"
        red = count_rows(src, {**design, **inputs}, dropna=dropna, max_rows=max_rows)
    table = _gated(red, design)
    n = round(float(red.counts.sum()))
    if n == 0:
        raise ValueError(f"`source`: {src.name} holds no row (after dropping missing values).")
    return AtomTable(
        kind=kind,
        metrics=names,
        inputs=tuple(columns),
        conditions=conditions,
        strata=strata,
        source=src.name,
        engine=src.engine,
        n_samples=n,
        n_dropped=red.n_dropped,
        table=table,
        grid=grid,
    )


def _merge_bins(red: Reduced, edges: np.ndarray, design: tuple[str, ...] = ()) -> Reduced:
    """Rows (design, label, fine bin) merged into (design, label, coarse bin), with each
    row's score range."""
    c = red.columns
    coarse = coarse_index(c["score_bin"], edges)
    key = np.zeros(len(coarse), dtype=np.int64)
    for role in (*design, "y_true"):
        uniq_values, code = fast_unique(c[role])
        key = key * len(uniq_values) + code
    key = key * (len(edges) + 1) + coarse
    uniq, first, inv = np.unique(key, return_index=True, return_inverse=True)
    inv = inv.reshape(-1)
    k = len(uniq)
    counts = np.bincount(inv, weights=red.counts, minlength=k)
    lo = np.full(k, np.inf)
    hi = np.full(k, -np.inf)
    np.minimum.at(lo, inv, c["min"])
    np.maximum.at(hi, inv, c["max"])
    cols = {role: c[role][first] for role in (*design, "y_true")}
    cols.update(score_bin=uniq % (len(edges) + 1), min=lo, max=hi)
    return Reduced(cols, counts, red.n_dropped, red.extra)


def _gated(red: Reduced, design: dict[str, str]) -> dict[str, np.ndarray]:
    """The reduced columns with the design read by the input gate (one native type, as
    the in-memory design reads it), plus the counts.  The inputs are read by the metric's
    kernel (:func:`mlci.metrics.get_kernel`), through the gate too."""
    out = dict(red.columns)
    if design:
        g = gather(
            {role: ArgSpec("groups") for role in design},
            {role: red.columns[role] for role in design},
            allow_empty=True,
        )
        out.update(g.arrays)
    out["count"] = red.counts
    return out


@resampling_keywords
@knobs_in_config
@reports_progress
def reduce_ci(
    source: Any,
    *columns: str,
    metric: str,
    conditions: str | None = None,
    strata: str | None = None,
    dropna: bool = False,
    engine: str | None = None,
    score_bins: int = DEFAULT_SCORE_BINS,
    max_rows: int = DEFAULT_MAX_ROWS,
    memory_limit: str | None = None,
    temp_directory: str | os.PathLike[str] | None = None,
    pos_label: Any = None,
    average: Any = "default",
    metric_kwargs: dict[str, Any] | None = None,
    n_resamples: int = 1000,
    confidence_level: float = 0.95,
    method: str = "auto",
    alternative: str = "two-sided",
    rng: Any = None,
    resampling: Resampling | None = None,
) -> BootstrapResult:
    """Bootstrap interval of a metric on data reduced inside its engine, in one call.

    ``reduce_table(source, *columns, metric=..., ...).bootstrap_ci(...)``: every option is
    checked before the data is read.  See :func:`reduce_table` for the source and the
    reduction, :func:`mlci.bootstrap_ci` for the interval: ``method="auto"`` resolves as
    there, to the same method and interval for the same seed (exceptions in
    :meth:`AtomTable.bootstrap_ci`).

    ``progress=True`` shows a progress bar on stderr while the replicates run (after
    about 2 seconds, on a terminal only, never in CI; see :mod:`mlci.feedback`).

    Parameters
    ----------
    source, columns, metric, conditions, strata, dropna, engine, score_bins, max_rows
        As in :func:`reduce_table`.
    memory_limit, temp_directory
        As in :func:`reduce_table`.
    pos_label, average, metric_kwargs, n_resamples, confidence_level, method
        As in :meth:`AtomTable.bootstrap_ci` (and :func:`mlci.bootstrap_ci`).
    alternative, rng, resampling
        As in :meth:`AtomTable.bootstrap_ci` (and :func:`mlci.bootstrap_ci`).

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> import duckdb, mlci
    >>> rel = duckdb.sql("SELECT i % 2 AS y, (i % 3 = 0)::INT AS p FROM range(10000) t(i)")
    >>> res = mlci.reduce_ci(rel, "y", "p", metric="accuracy", n_resamples=200, rng=0)
    >>> res.details["engine"], res.n_samples
    ('duckdb', 10000)
    """
    bootstrap_options(
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
    )
    check_resampling(resampling, ("weights",), "mlci.reduce_ci")
    if not isinstance(metric, str):
        raise TypeError(f"`metric` must be one metric name; got {type(metric).__name__}.")
    metric_params(metric, pos_label, average, metric_kwargs)
    table = reduce_table(
        source,
        *columns,
        metric=metric,
        conditions=conditions,
        strata=strata,
        dropna=dropna,
        engine=engine,
        score_bins=score_bins,
        max_rows=max_rows,
        memory_limit=memory_limit,
        temp_directory=temp_directory,
    )
    return table.bootstrap_ci(
        pos_label=pos_label,
        average=average,
        metric_kwargs=metric_kwargs,
        n_resamples=n_resamples,
        confidence_level=confidence_level,
        method=method,
        alternative=alternative,
        rng=rng,
        resampling=resampling,
    )
