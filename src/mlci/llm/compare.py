"""Comparing language models on the same items: :func:`llm_compare`.

Every pair of models is compared on the items both were scored on -- a *paired*
difference: the items' difficulty cancels, and the interval is much narrower than the
two models' intervals suggest (Miller 2024, sec. "paired differences").  By default
(``method="auto"``), of 0/1 answers, each difference has Tango's score interval (items
answered once) or the MOVER interval of the two models' intervals
(:mod:`mlci.llm.proportion`); otherwise, and with ``method="t"``, the t interval and test
on its CR2 standard error (:mod:`mlci.llm.linear`).  With the
bootstrap methods, the comparison is :func:`mlci.compare` on the item values (one
replicate draw of items, or clusters, serves every model); with ``method="cr1"``, each
difference's clustered standard error comes from the models' CR1 score sums (see
:mod:`mlci.llm.estimands`), with a t(G-1) test.  p-values are adjusted for the number of
pairs (:func:`mlci.adjust_pvalues`).

The leaderboard
---------------
Models are sorted by their estimate.  For each model, ``rank_low = 1 + (number of models
significantly better)`` and ``rank_high = M - (number significantly worse)``, with the
adjusted p-values: when the correction controls the family-wise error (``holm``,
``bonferroni``, ``maxt``...), every model's true rank lies in its interval with at least
the confidence level, simultaneously.  ``tier`` groups the models the data cannot
separate: walking down the sorted list, a model joins the current tier unless it is
significantly worse than the tier's first model, where a new tier starts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from ..classical.corrections import CORRECTION_METHODS, adjust_pvalues
from ..classical.pvalues import t_pvalues
from ..comparison.paired import compare
from ..comparison.paired_results import ComparisonResult, PairDifference
from ..engine.paired_rules import warn_paired
from ..feedback import reports_progress
from ..inputs import (
    DISTRIBUTION_METHODS,
    check_choice,
    fill_doc,
    knobs_in_config,
    renamed_keyword,
)
from ..inputs.resampling import Resampling
from ..intervals.bootstrap import studentized_interval, studentized_pvalue, t_interval
from ..intervals.formulas import wald_interval
from ..results import ConfidenceInterval, IntervalResult, Result, format_value
from .estimands import (
    LINEAR_METHODS,
    _interval_options,
    cr1_scores,
    estimand_name,
    item_table,
    linear_models,
    linear_sums,
    notes,
    plain_fields,
    resolve_llm_method,
    sample_design,
    summary,
)
from .linear import ClusterSums, cr2_gram, pair_replicates
from .log import EvalLog
from .proportion import (
    AnswerDesign,
    answer_design,
    mover_pairs,
    proportion_models,
    tango_pairs,
)

__all__ = ["LLMComparison", "LeaderboardEntry", "leaderboard", "llm_compare"]


@dataclass(frozen=True, kw_only=True, repr=False)
class LeaderboardEntry(Result):
    """A model's place on the leaderboard.

    Attributes
    ----------
    model : str
    estimate, low, high : float
        The model's score and interval.
    rank : int
        Position by estimate (1 = best).
    rank_low, rank_high : int
        The ranks the data allow (see :mod:`mlci.llm.compare`).
    tier : int
        Group of models the data cannot separate (1 = the top group).
    tied_with : tuple of str
        Models not significantly different from this one.

    Examples
    --------
    >>> LeaderboardEntry(model="A", estimate=0.8, low=0.75, high=0.85, rank=1, rank_low=1,
    ...                  rank_high=2, tier=1, tied_with=("B",))
    LeaderboardEntry(1: 'A' 0.8 [0.75, 0.85], ranks 1-2, tier 1)
    """

    model: str
    estimate: float
    low: float
    high: float
    rank: int
    rank_low: int
    rank_high: int
    tier: int
    tied_with: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (
            f"LeaderboardEntry({self.rank}: {self.model!r} {format_value(self.estimate)} "
            f"[{format_value(self.low)}, {format_value(self.high)}], ranks "
            f"{self.rank_low}-{self.rank_high}, tier {self.tier})"
        )

    def rows(self) -> list[dict[str, Any]]:
        """One row: the fields, ``tied_with`` joined by commas."""
        d = self.to_dict()
        d["tied_with"] = ", ".join(self.tied_with)
        return [d]


def leaderboard(
    models: Mapping[str, IntervalResult], differences: tuple[PairDifference, ...]
) -> tuple[LeaderboardEntry, ...]:
    """Rank intervals and tiers from the models' estimates and the adjusted pair tests
    (higher is better).

    Examples
    --------
    >>> import mlci
    >>> from mlci.data import llm_example_path
    >>> log = mlci.read_eval_logs(llm_example_path(), conditions=["group"])
    >>> res = mlci.llm_compare(log, conditions="group", method="cr1")
    >>> [(e.model, e.rank_low, e.rank_high, e.tier) for e in leaderboard(res.models,
    ...                                                                   res.differences)]
    [('model-a', 1, 2, 1), ('model-b', 1, 2, 1), ('model-c', 3, 3, 2)]
    """
    names = list(models)
    est = {m: float(r.estimate) for m, r in models.items()}
    better = {m: 0 for m in names}
    worse = {m: 0 for m in names}
    sig: set[tuple[str, str]] = set()  # (winner, loser)
    tied: dict[str, list[str]] = {m: [] for m in names}
    for d in differences:
        if not d.significant:
            tied[d.a].append(d.b)
            tied[d.b].append(d.a)
            continue
        win, lose = (d.a, d.b) if d.estimate > 0 else (d.b, d.a)
        sig.add((win, lose))
        better[lose] += 1
        worse[win] += 1
    order = sorted(names, key=lambda m: -est[m])
    tiers: dict[str, int] = {}
    leader, tier = None, 0
    for m in order:
        if leader is None or (leader, m) in sig:
            leader, tier = m, tier + 1
        tiers[m] = tier
    n = len(names)
    return tuple(
        LeaderboardEntry(
            model=m,
            estimate=est[m],
            low=float(models[m].confidence_interval.low),
            high=float(models[m].confidence_interval.high),
            rank=i + 1,
            rank_low=1 + better[m],
            rank_high=n - worse[m],
            tier=tiers[m],
            tied_with=tuple(tied[m]),
        )
        for i, m in enumerate(order)
    )


@dataclass(frozen=True, kw_only=True, repr=False)
class LLMComparison(Result):
    """Paired comparison of language models on shared items (:func:`mlci.llm_compare`).

    Attributes
    ----------
    estimand : str
    models : dict of str -> IntervalResult
        Each model's estimate and interval.
    differences : tuple of PairDifference
        Every pair ``a - b`` (``a`` before ``b`` in the log), or every model against
        ``reference``; unadjusted and adjusted p-values, simultaneous intervals.
    leaderboard : tuple of LeaderboardEntry
        Sorted by estimate, with rank intervals and tiers (all pairs only).
    method, correction, confidence_level, alternative, conditions, aggregate, repeats
        The options used.
    reference : str or None
    details : dict
        ``n_items``, ``n_tasks``, ``n_clusters``; with ``items="shared"``,
        ``items_missing`` (model: count) and ``n_items_dropped``; ``partial`` and
        ``estimand_note`` as in :class:`LLMEstimates`.

    Examples
    --------
    >>> import mlci
    >>> from mlci.data import llm_example_path
    >>> log = mlci.read_eval_logs(llm_example_path(), conditions=["group"])
    >>> res = mlci.llm_compare(log, conditions="group", method="cr1")
    >>> res  # doctest: +NORMALIZE_WHITESPACE
    LLMComparison(estimand='mean score', 3 models, 211 items in 38 clusters,
                  95% CI (cr1), correction='holm')
    >>> d = res.difference("model-a", "model-b")
    >>> round(d.estimate, 4), bool(d.significant)
    (0.0348, False)
    """

    estimand: str
    models: dict[str, IntervalResult]
    differences: tuple[PairDifference, ...]
    leaderboard: tuple[LeaderboardEntry, ...] | None
    method: str
    correction: str
    confidence_level: float
    alternative: str = "two-sided"
    reference: str | None = None
    conditions: str | None = None
    aggregate: str = "micro"
    repeats: str = "average"
    details: Mapping[str, Any] = field(default_factory=dict)

    #: the pair ``a - b`` (the reversed pair negated): as for mlci.compare's result
    difference = ComparisonResult.difference

    def __repr__(self) -> str:
        return f"LLMComparison({summary(self)}, correction={self.correction!r})"

    def __str__(self) -> str:
        lines = [repr(self)]
        dropped = self.details.get("n_items_dropped")
        if dropped:
            lines.append(
                f"  {dropped} item(s) not scored for every model were left out "
                f"(missing per model: {self.details.get('items_missing')})"
            )
        if self.leaderboard is not None:
            width = max(len(m) for m in self.models)
            lines.append("  leaderboard (rank interval, tier):")
            for e in self.leaderboard:
                lines.append(
                    f"  {e.rank:>3}. {e.model:<{width}}  {format_value(e.estimate)}  "
                    f"[{format_value(e.low)}, {format_value(e.high)}]  ranks "
                    f"{e.rank_low}-{e.rank_high}  tier {e.tier}"
                )
        lines.append("  differences:")
        for d in self.differences:
            lo, hi = d.confidence_interval
            star = " *" if d.significant else ""
            lines.append(
                f"  {d.a} - {d.b}: {format_value(d.estimate)}  [{format_value(lo)}, "
                f"{format_value(hi)}]  p={format_value(d.pvalue)}  "
                f"p_adj={format_value(d.pvalue_adjusted)}{star}"
            )
        lines.extend(notes(self))
        return "\n".join(lines)

    def rows(self, what: str = "differences") -> list[dict[str, Any]]:
        """The ``"differences"`` (one row per pair) or the ``"leaderboard"`` (one row per
        model).

        Parameters
        ----------
        what : {"differences", "leaderboard"}, default "differences"
            Which table: the pairwise differences, or the ranked models (only when the
            comparison is all pairs, not against a ``reference``).
        """
        check_choice("what", what, ("differences", "leaderboard"))
        partial = self.details.get("partial") or {}
        if what == "differences":
            out = [d.rows()[0] for d in self.differences]
            if partial:  # a pair with a partial run says so
                for r in out:
                    r["partial"] = "; ".join(f"{m}: {partial[m]}" for m in (r["a"], r["b"])
                                             if m in partial) or None  # fmt: skip
            return out
        if self.leaderboard is None:
            raise ValueError("No leaderboard: the comparison was against a `reference`.")
        out = [e.rows()[0] for e in self.leaderboard]
        if partial:
            for r in out:
                r["partial"] = partial.get(r["model"])
        return out

    def to_frame(self, what: str = "differences") -> Any:
        """A pandas DataFrame of :meth:`rows` (``"differences"`` or ``"leaderboard"``).

        Parameters
        ----------
        what : {"differences", "leaderboard"}, default "differences"
            As in :meth:`rows`.
        """
        from ..results import require_pandas

        return require_pandas().DataFrame(self.rows(what))

    def to_dict(self) -> dict[str, Any]:
        """All fields as plain values (intervals, differences and entries as their rows)."""
        return plain_fields(self)

    def _repr_html_(self) -> str:
        what = "leaderboard" if self.leaderboard is not None else "differences"
        return Result._repr_html_(_Table(self.rows(what), repr(self)))


@dataclass(frozen=True)
class _Table(Result):
    """Rows with a caption, for the HTML view."""

    table: list[dict[str, Any]]
    caption: str

    def rows(self) -> list[dict[str, Any]]:
        return self.table

    def __repr__(self) -> str:
        return self.caption


@knobs_in_config
@reports_progress
@fill_doc
def llm_compare(
    log: EvalLog,
    *,
    estimand: str = "auto",
    k: int = 1,
    conditions: str | None = None,
    repeats: str = "average",
    aggregate: str = "micro",
    items: str = "error",
    models: list[str] | None = None,
    reference: str | None = None,
    correction: str = "auto",
    method: str = "auto",
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    n_resamples: int = 1000,
    rng: Any = None,
    **deprecated: Any,
) -> LLMComparison:
    """Compare language models on the items they share: paired differences, adjusted
    p-values and a leaderboard with rank intervals.

    Parameters
    ----------
    log : EvalLog
    estimand, k, conditions, repeats, aggregate, items, models
        As in :func:`mlci.llm_ci`.  ``items="error"`` (default) refuses models scored on
        different items, naming one missing item and the file line of another model's
        score for it; ``items="shared"`` compares on the items every model has and
        reports the number left out (``details``).
    reference : str, optional
        Compare every model with this one only; by default every pair.
    correction : str, default "auto"
        p-value adjustment over the pairs: :func:`mlci.adjust_pvalues`'s names, or with a
        bootstrap distribution method ``"maxt"`` (single-step max-|t| of the joint
        bootstrap distribution, Westfall & Young 1993).  ``"auto"``: ``"maxt"`` for those,
        ``"holm"`` for ``"auto"``, ``"t"``, ``"studentized"`` and ``"cr1"``.  A bootstrap
        p-value is at least ``1/(B+1)``, so Holm over ``P`` pairs can reject nothing
        unless ``P/(B+1) < alpha`` (4,950 pairs need B > 99,000); max-t has no such floor,
        which is why it is the bootstrap's default.
    method : {"auto", "t", "studentized", "cr1", "bca", "percentile", "basic", "normal", "bc"}
        As in :func:`mlci.llm_ci`; for the differences, ``"auto"`` of 0/1 answers gives
        Tango's interval (items answered once) or the MOVER interval of the two models'
        intervals (:mod:`mlci.llm.proportion`), otherwise ``"auto"`` and ``"t"`` give the t
        interval and test on each pair's CR2 standard error (one Gram matrix of the
        models' cluster influences serves every pair), ``"studentized"`` the bootstrap-t
        of every pair, the distribution methods :func:`mlci.compare` on the item values.
    confidence_level, alternative, n_resamples, rng
        As in :func:`mlci.llm_ci`.

    Returns
    -------
    LLMComparison

    Examples
    --------
    >>> import mlci
    >>> from mlci.data import llm_example_path
    >>> log = mlci.read_eval_logs(llm_example_path(), conditions=["group"])
    >>> res = mlci.llm_compare(log, conditions="group", rng=0, n_resamples=500)
    >>> [(e.model, e.tier) for e in res.leaderboard]
    [('model-a', 1), ('model-b', 1), ('model-c', 2)]
    """
    conditions = renamed_keyword(deprecated, "cluster", "conditions", conditions, None)
    table = item_table(log, estimand=estimand, k=k, conditions=conditions, repeats=repeats,
                       aggregate=aggregate, items=items, models=models)  # fmt: skip
    method, opts = _interval_options(method, confidence_level, alternative, n_resamples, rng)
    names = table.models
    if len(names) < 2:
        raise ValueError(f"`log` holds {len(names)} model(s); a comparison needs at least two.")
    if reference is not None and reference not in names:
        raise ValueError(f"`reference`={reference!r} is not among the models {names}.")
    engine_method, reason = resolve_llm_method(method, repeats)
    joint = engine_method in DISTRIBUTION_METHODS  # the engine's joint bootstrap
    valid = (*CORRECTION_METHODS, "maxt") if joint else CORRECTION_METHODS
    check_choice("correction", correction, ("auto", *valid))
    if correction == "auto":
        correction = "maxt" if joint else "holm"
    name = estimand_name(table.estimand, table.k, log.metric)
    level, alt = opts["confidence_level"], opts["alternative"]
    details = dict(table.details)
    if reason is not None:
        details["method_reason"] = reason
    if method == "cr1":
        model_res, diffs = _cr1_compare(table, name, reference, correction, level, alt)
    elif engine_method in LINEAR_METHODS:
        answers = answer_design(log, table, models) if engine_method == "auto" else None
        cs = linear_sums(table, opts)
        details["df"] = cs.df
        details["effective_clusters"] = cs.effective_clusters
        if answers is not None:  # 0/1 answers: the engine's proportion rule
            model_res, details["method_reason"] = proportion_models(answers, table, name, opts)
        else:
            model_res = linear_models(cs, table, engine_method, name, opts)
        if answers is not None:
            diffs, why = _answer_differences(answers, table, model_res, name, reference,
                                             correction, level, alt)  # fmt: skip
            details["method_reason"] += "; differences: " + why
            if answers.unit is not None and table.cluster is not None:
                warning = warn_paired(cs.effective_clusters)
                if warning is not None:
                    details["warning"] = warning
        else:
            diffs, warning = _linear_differences(
                cs, table, engine_method, name, reference, correction, level, alt
            )
            if warning is not None:
                details["warning"] = warning
    else:
        design = sample_design(table, repeats)
        values = design["values"] or [log.score[r] for r in table.rows or []]
        bo = opts["bootstrap"]
        res = compare(
            design["weights"],
            dict(zip(names, values, strict=True)),
            metric="weighted_mean",
            conditions=design["conditions"],
            strata=design["strata"],
            resampling=Resampling(two_stage=design["two_stage"]),
            reference=reference,
            n_resamples=bo.n_resamples,
            confidence_level=level,
            method=engine_method,
            alternative=alt,
            correction=correction,
            rng=bo.seed,
            higher_is_better=True,
        )  # the engine knobs: the configuration's, as bo.engine's
        model_res = {m: dataclasses.replace(r, metric=name) for m, r in res.systems.items()}
        diffs = tuple(PairDifference(**{**_fields(d), "metric": name}) for d in res.differences)
    board = leaderboard(model_res, diffs) if reference is None else None
    return LLMComparison(
        estimand=name,
        models=model_res,
        differences=diffs,
        leaderboard=board,
        method=method,
        correction=correction,
        confidence_level=level,
        alternative=alt,
        reference=reference,
        conditions=conditions,
        aggregate=aggregate,
        repeats=repeats,
        details=_floor_note(details, engine_method, correction, len(diffs), opts),
    )


def _floor_note(details, method, correction, n_pairs, opts) -> dict[str, Any]:
    """``details`` plus a note when bootstrap p-values cannot survive the correction."""
    out = dict(details)
    if method not in ("cr1", "t", "auto") and correction not in ("maxt", "none"):
        floor = n_pairs / (opts["bootstrap"].n_resamples + 1)
        if floor >= 1 - opts["confidence_level"]:
            out["note"] = (
                f"{correction} over {n_pairs} pairs with bootstrap p-values (at least "
                f"1/(B+1)) cannot reject at this level: the smallest adjusted p-value is "
                f"about {min(floor, 1.0):.3g}. Use correction='maxt' or more resamples."
            )
    return out


def _fields(d: PairDifference) -> dict[str, Any]:
    return {f: getattr(d, f) for f in d.__dataclass_fields__}


def _cr1_compare(table, name, reference, correction, level, alt):
    """Models and pairs by CR1: every difference's variance from the Gram matrix of the
    models' cluster score sums, t(G-1) tests, adjusted p-values, Bonferroni simultaneous
    intervals."""
    names = table.models
    est, S, W, G = cr1_scores(table.values, table.weights, table.cluster)
    c = G / (G - 1) / W**2
    gram = S @ S.T
    var = np.diag(gram) * c
    se = np.sqrt(var)
    df = G - 1
    low, high = wald_interval(est, se, confidence_level=level, df=df, bounds=(0.0, 1.0))
    models = {
        m: IntervalResult(
            estimate=float(est[i]),
            confidence_interval=ConfidenceInterval(float(low[i]), float(high[i])),
            confidence_level=level,
            method="cr1",
            standard_error=float(se[i]),
            metric=name,
            details={"n_clusters": G, "df": df},
        )
        for i, m in enumerate(names)
    }
    if reference is None:
        pairs = list(combinations(range(len(names)), 2))
    else:
        r = names.index(reference)
        pairs = [(i, r) for i in range(len(names)) if i != r]
    ia = np.array([p[0] for p in pairs])
    ib = np.array([p[1] for p in pairs])
    d_hat = est[ia] - est[ib]
    d_var = c * (gram[ia, ia] + gram[ib, ib] - 2 * gram[ia, ib])
    d_se = np.sqrt(np.maximum(d_var, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(d_se > 0, d_hat / d_se, 0.0)
    p = np.where(d_se > 0, t_pvalues(t, df, alt), 1.0)
    p_adj = adjust_pvalues(p, correction=correction)
    lo, hi = wald_interval(d_hat, d_se, confidence_level=level, alternative=alt, df=df,
                           bounds=(-1.0, 1.0))  # fmt: skip
    sim_level = 1 - (1 - level) / len(pairs)
    slo, shi = wald_interval(d_hat, d_se, confidence_level=sim_level, alternative=alt, df=df,
                             bounds=(-1.0, 1.0))  # fmt: skip
    alpha = 1 - level
    diffs = tuple(
        PairDifference(
            a=names[i],
            b=names[j],
            estimate=float(d_hat[n]),
            confidence_interval=ConfidenceInterval(float(lo[n]), float(hi[n])),
            confidence_level=level,
            method="cr1",
            alternative=alt,
            standard_error=float(d_se[n]),
            metric=name,
            details={"t": float(t[n]), "df": df},
            pvalue=float(p[n]),
            pvalue_adjusted=float(p_adj[n]),
            simultaneous_interval=ConfidenceInterval(float(slo[n]), float(shi[n])),
            significant=bool(p_adj[n] < alpha),
        )
        for n, (i, j) in enumerate(pairs)
    )
    return models, diffs


def _pairs(names: list[str], reference: str | None) -> tuple[np.ndarray, np.ndarray]:
    if reference is None:
        pairs = list(combinations(range(len(names)), 2))
    else:
        r = names.index(reference)
        pairs = [(i, r) for i in range(len(names)) if i != r]
    return np.array([p[0] for p in pairs], dtype=np.intp), np.array(
        [p[1] for p in pairs], dtype=np.intp
    )


#: ``method_reason`` of the differences of 0/1 answers of independent items answered once
TANGO_PAIRS_REASON = (
    "tango (Tango's score interval of every pair's paired 2x2 table, Tango's score test at "
    "0 (McNemar's z) as p-value, as mlci.compare gives a difference of two proportions on "
    "the same independent samples)"
)
#: ... and over items answered several times or over conditions
MOVER_PAIRS_REASON = (
    "mover (Newcombe's square-and-add of the two models' intervals, with the correlation "
    "of their estimates from the CR2 covariance over {unit}: Zou & Donner 2008; its "
    "p-value the level at which it reaches 0). With both models near 1 (0.99 and 0.98, "
    "0.999 and 0.995) mlci.compare's t interval covered 0.115-0.965, below 0.935 in 15 of "
    "22 designs, this one 0.900-1.0, below in 1 (docs/validation.md, 'LLM evals near "
    "the bounds')"
)


def _answer_differences(
    answers: AnswerDesign, table, model_res, name, reference, correction, level, alt
) -> tuple[tuple[PairDifference, ...], str]:
    """Every pair of 0/1 answers: Tango's interval and score test for independent items
    answered once, the MOVER interval otherwise (:mod:`mlci.llm.proportion`); adjusted
    p-values; simultaneous intervals at the Bonferroni level; the CR2 standard error."""
    names = table.models
    ia, ib = _pairs(names, reference)
    est = answers.scores.mean(axis=1)
    sim_level = 1.0 - (1.0 - level) / ia.size
    if answers.unit is None:
        got = tango_pairs(answers, ia, ib, level, sim_level, alt)
        used, why = "tango", TANGO_PAIRS_REASON
    else:
        got = mover_pairs(answers, [model_res[m] for m in names], ia, ib, level, sim_level, alt)
        unit = "the conditions" if answers.unit_name == "conditions" else "the items"
        used, why = "mover", MOVER_PAIRS_REASON.format(unit=unit)
    p = np.array([g["pvalue"] for g in got])
    p_adj = adjust_pvalues(p, correction=correction)
    diffs = tuple(
        PairDifference(
            a=names[i],
            b=names[j],
            estimate=float(est[i] - est[j]),
            confidence_interval=got[n]["interval"],
            confidence_level=level,
            method=used,
            alternative=alt,
            standard_error=got[n]["standard_error"],
            metric=name,
            details=_pair_details(got[n]),
            pvalue=float(p[n]),
            pvalue_adjusted=float(p_adj[n]),
            simultaneous_interval=got[n]["simultaneous"],
            significant=bool(p_adj[n] < 1.0 - level),
        )
        for n, (i, j) in enumerate(zip(ia.tolist(), ib.tolist(), strict=True))
    )
    return diffs, why


def _pair_details(got: dict[str, Any]) -> dict[str, Any]:
    """A pair's paired table (Tango) or the correlation of the two estimates (MOVER)."""
    if "table" in got:
        return {"paired_table": got["table"].tolist()}
    return {"correlation": got["correlation"]}


def _linear_differences(
    cs: ClusterSums, table, method, name, reference, correction, level, alt
) -> tuple[tuple[PairDifference, ...], str | None]:
    """Every pair by t on its CR2 standard error (``"t"``, ``"auto"``) or by the bootstrap-t
    over clusters (``"studentized"``); adjusted p-values; simultaneous intervals at the
    Bonferroni level."""
    names = table.models
    ia, ib = _pairs(names, reference)
    P = ia.size
    d_hat = cs.estimate[ia] - cs.estimate[ib]
    gram = cr2_gram(cs)
    d_se = np.sqrt(np.maximum(gram[ia, ia] + gram[ib, ib] - 2.0 * gram[ia, ib], 0.0))
    bounds = (-1.0, 1.0)
    sim_level = 1.0 - (1.0 - level) / P
    warning = None
    if method == "studentized":
        dist, se_dist = pair_replicates(cs, ia, ib)
        lo, hi, _ = studentized_interval(
            d_hat, d_se, dist, se_dist, confidence_level=level, alternative=alt, bounds=bounds,
            df=cs.df,
        )  # fmt: skip
        slo, shi, _ = studentized_interval(
            d_hat, d_se, dist, se_dist, confidence_level=sim_level, alternative=alt,
            bounds=bounds, df=cs.df,
        )  # fmt: skip
        p = studentized_pvalue(d_hat, d_se, dist, se_dist, alternative=alt, bounds=bounds)
        used = "studentized"
        extra: dict[str, Any] = {}
    else:
        lo, hi, _ = t_interval(d_hat, d_se, cs.df, confidence_level=level, alternative=alt,
                               bounds=bounds)  # fmt: skip
        slo, shi, _ = t_interval(d_hat, d_se, cs.df, confidence_level=sim_level,
                                 alternative=alt, bounds=bounds)  # fmt: skip
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.where(d_se > 0, d_hat / np.where(d_se > 0, d_se, 1.0), 0.0)
        p = t_pvalues(t, cs.df, alt)
        used = "t"
        extra = {"df": cs.df}
        warning = warn_paired(cs.effective_clusters)
    # a pair that agrees on every item: no evidence of a difference
    p = np.where((d_se > 0) & ~np.isnan(p), p, 1.0)
    p_adj = adjust_pvalues(p, correction=correction)
    alpha = 1.0 - level
    diffs = tuple(
        PairDifference(
            a=names[i],
            b=names[j],
            estimate=float(d_hat[n]),
            confidence_interval=ConfidenceInterval(float(lo[n]), float(hi[n])),
            confidence_level=level,
            method=used,
            alternative=alt,
            standard_error=float(d_se[n]),
            metric=name,
            details={**extra, "n_clusters": cs.n_clusters},
            pvalue=float(p[n]),
            pvalue_adjusted=float(p_adj[n]),
            simultaneous_interval=ConfidenceInterval(float(slo[n]), float(shi[n])),
            significant=bool(p_adj[n] < alpha),
        )
        for n, (i, j) in enumerate(zip(ia.tolist(), ib.tolist(), strict=True))
    )
    return diffs, warning
