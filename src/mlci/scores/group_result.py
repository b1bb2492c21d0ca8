"""The result of :func:`mlci.metric_by_group`: a metric per group with intervals.

:class:`GroupResult` holds the table (one row per group and x value, the overall rows
last), its DataFrame and its plot; :func:`group_result` builds it from the estimates and
bounds the bootstrap gave (:mod:`mlci.scores.groups`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..results import Result, require_pandas

__all__ = ["GroupResult", "group_result", "plot_group_result"]


def group_result(pd, first, cols, n_groups, col, xs, est, low, high, attrs):  # fmt: skip
    """The :class:`GroupResult` of a table of estimates and bounds, shape
    ``(n_groups + 1, len(xs))`` (the overall row last); ``first`` holds each group's
    variables (a DataFrame row per group), ``attrs`` the options and details."""
    rows = []
    for gi in range(n_groups + 1):
        for j, x in enumerate(xs):
            key = dict(first.iloc[gi]) if gi < n_groups else dict.fromkeys(cols, "(overall)")
            key = {k: v.item() if isinstance(v, np.generic) else v for k, v in key.items()}
            if col is not None:
                key[col] = float(x)
            rows.append({**key, "estimate": float(est[gi, j]), "low": float(low[gi, j]),
                         "high": float(high[gi, j])})  # fmt: skip
    return GroupResult(
        metric=attrs["metric"],
        groups=tuple(cols),
        x_name=col,
        table=tuple(rows),
        normalize=attrs["normalize"],
        confidence_level=attrs["confidence_level"],
        method=attrs["method"],
        alternative=attrs["alternative"],
        n_resamples=attrs["n_resamples"],
        details={
            k: attrs[k]
            for k in (
                "n_dropped",
                "method_reason",
                "few_errors_warning",
                "score_interval_rows",
                "score_interval_reason",
                "edge_interval_rows",
                "undefined_rows",
                "undefined_warning",
            )
            if attrs.get(k) is not None
        },
    )


@dataclass(frozen=True, kw_only=True, repr=False)
class GroupResult(Result):
    """A metric per group (and its value on all data), with intervals: the result of
    :func:`mlci.metric_by_group`.

    Attributes
    ----------
    metric : str
    groups : tuple of str
        The group variables (the columns naming each group in :meth:`rows`).
    x_name : str or None
        ``"threshold"``, ``"rate"`` or ``"at"`` when the metric is evaluated at several
        values of it, else None (EER, AUC).
    table : tuple of dict
        One row per (group, x value), the ``"(overall)"`` rows last: the group
        variables, ``x_name``, ``estimate``, ``low``, ``high``.
    normalize : {None, "by_overall", "by_best"}
        With a normalisation the group rows are ratios (to the overall value, or to the
        best group's, in every replicate) and the ``"(overall)"`` rows the metric itself.
    confidence_level, method, alternative, n_resamples
        As in every bootstrap result.
    details : dict
        ``n_dropped``: samples dropped for a missing value (``dropna=True``);
        ``method_reason``: why ``method="auto"`` chose ``method``;
        ``score_interval_rows``, ``score_interval_reason``: the rows (indices into
        :meth:`rows`) whose EER got a score interval instead, and why;
        ``edge_interval_rows``: the rows whose class rate at a threshold, without an
        error (or without a success), got the Wilson interval of the group's class size
        under ``auto`` instead of a bootstrap interval collapsed onto 0 or 1;
        ``undefined_rows``, ``undefined_warning``: the rows NaN because their group lacks
        the class the metric needs, and the warning said.

    Examples
    --------
    >>> import numpy as np
    >>> from mlci import metric_by_group
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> res = metric_by_group(y, y + rng.normal(0, 1, 400), groups=rng.choice(["f", "m"], 400),
    ...                       threshold=0.5, rng=0, n_resamples=200)
    >>> res
    GroupResult(metric='fnr', 2 groups, threshold x 1, 95% bca intervals)
    >>> [r["group"] for r in res.rows()]
    ['f', 'm', '(overall)']
    """

    metric: str
    groups: tuple[str, ...]
    x_name: str | None
    table: tuple[dict[str, Any], ...]
    normalize: str | None
    confidence_level: float
    method: str
    alternative: str
    n_resamples: int
    details: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        n_x = len({r.get(self.x_name) for r in self.table}) if self.x_name else 1
        n_groups = len(self.table) // max(n_x, 1) - 1
        at = f", {self.x_name} x {n_x}" if self.x_name else ""
        norm = f", normalize={self.normalize!r}" if self.normalize else ""
        return (
            f"GroupResult(metric={self.metric!r}, {n_groups} groups{at}{norm}, "
            f"{self.confidence_level:.0%} {self.method} intervals)"
        )

    def rows(self) -> list[dict[str, Any]]:
        """One row per (group, x value): group variables, x, estimate, low, high; and
        ``method`` per row where ``auto`` gave some rows the EER's score interval
        (``"wilson"``, ``details["score_interval_rows"]``), the others ``method``."""
        given = set(self.details.get("score_interval_rows", ()))
        if not given:
            return [dict(r) for r in self.table]
        return [
            {**r, "method": "wilson" if i in given else self.method}
            for i, r in enumerate(self.table)
        ]

    def to_frame(self) -> Any:
        """The table as a DataFrame; ``attrs`` hold the options and ``n_dropped``."""
        out = require_pandas().DataFrame(self.rows())
        out.attrs.update(
            metric=self.metric,
            normalize=self.normalize,
            confidence_level=self.confidence_level,
            method=self.method,
            alternative=self.alternative,
            n_resamples=self.n_resamples,
            n_dropped=self.details.get("n_dropped", 0),
        )
        return out

    def plot(self, ax: Any = None) -> Any:
        """Every group's estimate with its interval (one row per group, one marker per x
        value), the overall value as a vertical line (a ratio of 1 with ``normalize``).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (default: the current axes).

        Returns
        -------
        matplotlib Axes
        """
        return plot_group_result(self, ax=ax)


def plot_group_result(res: GroupResult, ax: Any = None) -> Any:
    """Horizontal interval plot of a :class:`GroupResult` (needs matplotlib)."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("Plotting needs matplotlib: `pip install mlci[plot]`.") from None
    ax = plt.gca() if ax is None else ax
    x_name = res.x_name
    xs: list[Any] = sorted({r[x_name] for r in res.table}) if x_name else [None]

    def label(r: dict[str, Any]) -> str:
        return " / ".join(str(r[g]) for g in res.groups)

    names = list(dict.fromkeys(label(r) for r in res.table if label(r) != _overall(res)))
    for j, x in enumerate(xs):
        sub = [r for r in res.table if x is None or r.get(x_name or "") == x]
        groups = [r for r in sub if label(r) != _overall(res)]
        pos = np.array([names.index(label(r)) for r in groups]) + 0.15 * (j - (len(xs) - 1) / 2)
        est = np.array([r["estimate"] for r in groups])
        err = np.array([[e - r["low"], r["high"] - e] for r, e in zip(groups, est, strict=True)])
        tag = res.metric if x is None else f"{res.metric} ({res.x_name} {x:g})"
        ax.errorbar(est, pos, xerr=np.abs(err.T), fmt="o", capsize=3, label=tag)
        if res.normalize is not None:
            ax.axvline(1.0, color="grey", lw=0.8)
        else:
            overall = next(r for r in sub if label(r) == _overall(res))["estimate"]
            ax.axvline(overall, color="grey", lw=0.8, ls="--")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel(res.metric if res.normalize is None else f"{res.metric} ({res.normalize})")
    if len(xs) > 1:
        ax.legend()
    return ax


def _overall(res: GroupResult) -> str:
    return " / ".join(["(overall)"] * len(res.groups))
