"""A reduced table's samples again, for ``method="auto"``: the one method resolution.

``method="auto"`` resolves by the rules of :mod:`mlci.engine.auto` (Wilson, logit t and
Korn & Graubard for a proportion, the class-edge and near-bound rules, the analytic AUC,
the studentized interval...).  They read every sample's atom and condition (the
linearization's (condition, atom) cells, the classes' counts per condition); a reduced
table holds the same numbers as counts.  :func:`table_samples` lays the counts out as
samples again, in a canonical order (by stratum, condition, then the inputs' values), so
that the table's ``auto`` runs the in-memory engine (:func:`mlci.engine.bootstrap.
run_bootstrap`) on the same kernel and plan that :func:`mlci.bootstrap_ci` builds from
the data: the same method, ``method_reason`` and interval for the same seed.

Exact for a table of distinct rows (decision metrics, few distinct values), for the
binned scores of a ranking metric (the in-memory bootstrap of the binned scores,
:meth:`mlci.backends.table.AtomTable.score_bin`), and for a mean of 0/1 values summed per
condition (each condition's count of ones and zeros).  Not possible for other additive
metrics summed per condition (the table holds each condition's sum, not its values), nor
above :data:`MAX_SAMPLES` samples (the per-sample arrays would not be small): those keep
the table's own bootstrap, BCa under ``auto`` (its ``method_reason`` says why).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..inputs.encoding import fast_unique
from ..metrics import metric_info

__all__ = ["MAX_SAMPLES", "TableSamples", "table_samples", "unavailable_reason"]

#: largest table laid out as samples for ``auto`` (about 50 bytes a sample while the
#: kernel, the plan and the linearization are built: 96 MiB more peak memory and 1 s for
#: accuracy over 2,000 conditions at 2 * 10^6 samples, so about 0.5 GB at this size, what
#: :func:`mlci.bootstrap_ci` needs for as many samples in memory)
MAX_SAMPLES = 10_000_000


@dataclass(frozen=True)
class TableSamples:
    """A reduced table's samples in canonical order.

    Attributes
    ----------
    arrays : list of ndarray
        The metric's inputs, one value per sample.
    conditions, strata : ndarray or None
        The design's values per sample (as the input gate read them).
    """

    arrays: list[np.ndarray]
    conditions: np.ndarray | None
    strata: np.ndarray | None


def unavailable_reason(kind: str, metric: str, n_samples: int, binary: bool) -> str | None:
    """Why a table cannot be laid out as samples (None: it can).

    ``kind`` is the table's (``"rows"``, ``"sums"``, ``"scores"``); ``binary``: a
    ``"sums"`` table of ``mean`` whose values are all 0 or 1.

    Examples
    --------
    >>> unavailable_reason("rows", "f1", 1000, False) is None
    True
    >>> unavailable_reason("sums", "mse", 1000, False)[:40]
    'a table of per-condition sums of mse hol'
    """
    if kind == "sums" and not (metric == "mean" and binary):
        return (
            f"a table of per-condition sums of {metric} holds no sample's value, which "
            "the linearization needs"
        )
    if n_samples > MAX_SAMPLES:
        return (
            f"a reduced table of {n_samples} samples, more than the {MAX_SAMPLES} whose "
            "atoms and conditions the rules of auto read in memory"
        )
    return None


def _codes(values: np.ndarray) -> np.ndarray:
    return fast_unique(np.asarray(values))[1]


def table_samples(
    kind: str, metric: str, table: dict[str, np.ndarray], design: tuple[str, ...]
) -> TableSamples:
    """Lay a reduced table out as samples: row ``r`` becomes ``count[r]`` samples.

    The rows are first sorted by the design's values (strata, then conditions) and the
    inputs' values, so the samples come in one order whatever order the engine returned
    the rows in (a seed then gives one interval through every engine and chunking).

    Parameters
    ----------
    kind : {"rows", "scores", "sums"}
        The table's kind (a ``"sums"`` table of ``mean`` over 0/1 values only).
    metric : str
        The metric the table serves (its inputs' roles, in order).
    table : dict of str -> ndarray
        :attr:`mlci.backends.table.AtomTable.table`.
    design : tuple of str
        The design's roles present (``"strata"``, ``"conditions"``).

    Returns
    -------
    TableSamples

    Examples
    --------
    >>> t = {"conditions": np.array(["b", "a"]), "y_true": np.array([1, 0]),
    ...      "y_pred": np.array([1, 1]), "count": np.array([2.0, 1.0])}
    >>> s = table_samples("rows", "accuracy", t, ("conditions",))
    >>> s.conditions.tolist(), s.arrays[0].tolist()
    (['a', 'b', 'b'], [0, 1, 1])
    """
    counts = np.rint(np.asarray(table["count"], dtype=float)).astype(np.intp)
    if kind == "sums":
        # a mean of 0/1 values: each condition's ones, then its zeros
        ones = np.rint(np.asarray(table["num"], dtype=float)).astype(np.intp)
        per_row = np.column_stack([ones, counts - ones]).ravel()
        value_of = np.tile(np.array([1.0, 0.0]), len(counts))
        cols = {role: np.repeat(table[role], 2) for role in design}
        cols["values"] = value_of
        counts = per_row
        roles: tuple[str, ...] = ("values",)
    else:
        roles = ("y_true", "score_bin") if kind == "scores" else metric_info(metric).inputs
        cols = {role: np.asarray(table[role]) for role in (*design, *roles)}
    # canonical order: strata, conditions, then the inputs (np.lexsort's last key first)
    keys = [_codes(cols[role]) for role in reversed(roles)]
    keys += [_codes(cols[role]) for role in reversed(design)]
    order = np.lexsort(keys) if keys else np.arange(len(counts))
    counts = counts[order]
    expanded = {role: np.repeat(col[order], counts) for role, col in cols.items()}
    arrays = [expanded[role] for role in roles]
    if kind == "scores":
        arrays[1] = arrays[1].astype(float)
    return TableSamples(arrays, expanded.get("conditions"), expanded.get("strata"))
