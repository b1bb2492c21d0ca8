"""Intervals and paired comparisons of IR measures, with queries as the unit.

An IR measure (nDCG@k, MAP, MRR, P@k, recall@k) is a mean over queries, so its interval
is the engine's interval of a mean (``metric="mean"``: studentized bootstrap by
default) over the per-query values that ir_measures computes (:mod:`mlci.ir.measures`);
comparisons of runs are paired over the same queries:

* ``variant="bootstrap"``: :func:`mlci.compare` (every run's interval, every difference's
  interval and adjusted p-value);
* ``variant="t"``: the paired t test, ``scipy.stats.ttest_rel`` (ranx's
  ``stat_test="student"``: the same p-values);
* ``variant="permutation"``: the paired randomization test (the per-query values of the two
  runs swapped at random, :func:`mlci.permutation_test`; ranx's ``"fisher"``, whose
  p-value ``#{|d*| >= |d|} / B`` differs from mlci's ``(1 + #) / (1 + B)`` by at most
  ``1 / B`` beyond Monte Carlo error).

Several pairs: the p-values are adjusted with ``correction`` (Holm by default;
:func:`mlci.adjust_pvalues`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from ..classical.corrections import CORRECTION_METHODS, adjust_pvalues
from ..comparison.paired import compare
from ..comparison.permutation import permutation_test
from ..engine.bootstrap import bootstrap_ci
from ..inputs import check_choice
from ..results import Result, format_value, plain
from .measures import MISSING, per_query
from .readers import check_qrels, check_run

__all__ = ["IRComparison", "ir_ci", "ir_compare"]

TESTS = ("bootstrap", "t", "permutation")


def ir_ci(
    run: Any,
    qrels: Any,
    *,
    measure: str = "ndcg@10",
    missing: str = "zero",
    **options: Any,
) -> Any:
    """Confidence interval of an IR measure of one run, resampling queries.

    Parameters
    ----------
    run : path or dict {qid: {docid: score}}
        A TREC run (file or dict).
    qrels : path or dict {qid: {docid: relevance}}
    measure : str, default "ndcg@10"
        ``"ndcg@k"``, ``"map"``, ``"mrr"``, ``"p@k"``, ``"recall@k"`` or an ir_measures name.
    missing : {"zero", "drop", "error"}
        Judged queries the run does not answer (see :func:`mlci.ir.per_query`).
    **options
        Options of :func:`mlci.bootstrap_ci` (``n_resamples``, ``confidence_level``,
        ``method``, ``rng``, ``conditions`` (one per evaluated query, in the order of
        ``per_query(...).query_ids``)...).

    Returns
    -------
    BootstrapResult
        ``details["queries"]`` holds the query counts.

    Examples
    --------
    >>> from mlci.data import ir_example_paths
    >>> p = ir_example_paths()
    >>> res = ir_ci(p["runs"]["bm25"], p["qrels"], measure="ndcg@10", rng=0)
    >>> res.method, res.n_samples
    ('studentized', 50)
    """
    qv = per_query(run, qrels, measure, missing=missing)
    (values,) = qv.values.values()
    res = bootstrap_ci(values, metric="mean", **options)
    return _renamed(res, next(iter(qv.values)), qv.details)


def _renamed(res: Any, name: str, details: dict[str, Any]) -> Any:
    import dataclasses

    return dataclasses.replace(res, metric=name, details={**res.details, "queries": details})


@dataclass(frozen=True, kw_only=True, repr=False)
class IRComparison(Result):
    """Paired tests of runs on the same queries (``variant="t"`` or ``"permutation"``).

    Attributes
    ----------
    measure : str
    variant : str
    runs : dict of str -> float
        Every run's mean over the queries.
    pairs : tuple of (str, str)
        ``(a, b)``: the difference is ``a - b``.
    differences, statistics, pvalues, pvalues_adjusted : ndarray, one per pair
    correction : str
    n_queries : int
    details : dict
    """

    measure: str
    variant: str
    runs: dict[str, float]
    pairs: tuple[tuple[str, str], ...]
    differences: np.ndarray
    statistics: np.ndarray
    pvalues: np.ndarray
    pvalues_adjusted: np.ndarray
    correction: str
    n_queries: int
    details: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        pairs = "; ".join(
            f"{a} - {b}: {format_value(d)} (p={format_value(p)})"
            for (a, b), d, p in zip(
                self.pairs, self.differences, self.pvalues_adjusted, strict=True
            )
        )
        return f"IRComparison(measure={self.measure!r}, variant={self.variant!r}, {pairs})"

    def rows(self) -> list[dict[str, Any]]:
        """One row per pair: ``a``, ``b``, ``difference``, ``statistic``, ``pvalue``,
        ``pvalue_adjusted``, ``variant``, ``measure``."""
        return [
            plain(
                {
                    "a": a,
                    "b": b,
                    "measure": self.measure,
                    "mean_a": self.runs[a],
                    "mean_b": self.runs[b],
                    "difference": self.differences[k],
                    "statistic": self.statistics[k],
                    "pvalue": self.pvalues[k],
                    "pvalue_adjusted": self.pvalues_adjusted[k],
                    "variant": self.variant,
                }
            )
            for k, (a, b) in enumerate(self.pairs)
        ]


def ir_compare(
    runs: Mapping[str, Any],
    qrels: Any,
    *,
    measure: str = "ndcg@10",
    variant: str = "bootstrap",
    reference: str | None = None,
    correction: str = "holm",
    missing: str = "zero",
    n_resamples: int | None = None,
    rng: Any = None,
    **options: Any,
) -> Any:
    """Compare runs on the same queries: paired bootstrap, paired t or randomization test.

    Parameters
    ----------
    runs : dict of str -> path or dict {qid: {docid: score}}
        Two or more runs.
    qrels : path or dict {qid: {docid: relevance}}
    measure : str, default "ndcg@10"
    variant : {"bootstrap", "t", "permutation"}
        mlci's paired bootstrap (:func:`mlci.compare`, intervals included), the paired
        t test (``scipy.stats.ttest_rel``) or the paired randomization test.
    reference : str, optional
        Compare every run with this one only (``run - reference``); default: every pair.
    correction : str, default "holm"
        Adjustment of the p-values over the pairs (:func:`mlci.adjust_pvalues`).
    missing : {"zero", "drop", "error"}
        Judged queries a run does not answer; with ``"drop"`` only the queries every run
        answers are compared.
    n_resamples : int, optional
        Bootstrap replicates (default 1000) or random swaps (default 9999).
    rng : None, int, Generator or SeedSequence
    **options
        Further options of :func:`mlci.compare` (``method``, ``confidence_level``,
        ``conditions``...) for ``variant="bootstrap"``.

    Returns
    -------
    ComparisonResult (``variant="bootstrap"``) or IRComparison

    Examples
    --------
    >>> from mlci.data import ir_example_paths
    >>> p = ir_example_paths()
    >>> res = ir_compare(p["runs"], p["qrels"], measure="map", variant="t")
    >>> len(res.pairs)
    3
    """
    check_choice("variant", variant, TESTS)
    check_choice("missing", missing, MISSING)
    if not isinstance(runs, Mapping) or len(runs) < 2:
        raise ValueError("`runs` must be a dict of at least two runs (name -> run).")
    names = [str(k) for k in runs]
    if reference is not None and str(reference) not in names:
        raise ValueError(f"`reference`={reference!r} is not among the runs {names}.")
    qrels = check_qrels(qrels)
    vals = {}
    details = {}
    for nm, r in zip(names, runs.values(), strict=True):
        qv = per_query(check_run(r, f"runs[{nm!r}]"), qrels, measure, missing=missing)
        (key,) = qv.values
        vals[nm] = dict(zip(qv.query_ids.tolist(), next(iter(qv.values.values())), strict=True))
        details[nm] = qv.details
    common = sorted(set.intersection(*(set(v) for v in vals.values())))
    if len(common) < 2:
        raise ValueError("The runs share fewer than two evaluated queries: nothing to compare.")
    table = {nm: np.array([vals[nm][q] for q in common]) for nm in names}
    if variant == "bootstrap":
        res = compare(
            None,
            table,
            metric="mean",
            reference=reference,
            correction=correction,
            n_resamples=1000 if n_resamples is None else n_resamples,
            rng=rng,
            **options,
        )
        import dataclasses

        return dataclasses.replace(res, metric=key)
    if options:
        raise TypeError(
            f"Option(s) {', '.join(f'`{k}`' for k in sorted(options))} apply to "
            "variant='bootstrap' only."
        )
    check_choice("correction", correction, CORRECTION_METHODS)
    if reference is None:
        pairs = list(combinations(names, 2))
    else:
        pairs = [(nm, str(reference)) for nm in names if nm != str(reference)]
    diffs, stats, pvals = [], [], []
    if variant == "t":
        from scipy import stats as st

        for a, b in pairs:
            d = table[a] - table[b]
            if not np.any(d != d[0]):
                raise ValueError(
                    f"The per-query differences of {a!r} and {b!r} are all equal: the t test is "
                    "undefined; use variant='permutation' or 'bootstrap'."
                )
            r = st.ttest_rel(table[a], table[b])
            diffs.append(float(d.mean()))
            stats.append(float(r.statistic))
            pvals.append(float(r.pvalue))
    else:
        # the pairs share one seed sequence: independent swaps for every pair
        seeds = (
            np.random.SeedSequence(rng).spawn(len(pairs))
            if not isinstance(rng, np.random.Generator)
            else [rng] * len(pairs)
        )
        for (a, b), s in zip(pairs, seeds, strict=True):
            r = permutation_test(
                None,
                table[a],
                table[b],
                metric="mean",
                n_resamples=9999 if n_resamples is None else n_resamples,
                rng=s,
            )
            diffs.append(float(r.estimate))
            stats.append(float(r.statistic))
            pvals.append(float(r.pvalue))
    pv = np.array(pvals)
    return IRComparison(
        measure=key,
        variant=variant,
        runs={nm: float(table[nm].mean()) for nm in names},
        pairs=tuple(pairs),
        differences=np.array(diffs),
        statistics=np.array(stats),
        pvalues=pv,
        pvalues_adjusted=adjust_pvalues(pv, correction),
        correction=correction,
        n_queries=len(common),
        details={"queries": details},
    )
