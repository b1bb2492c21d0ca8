"""``method="auto"`` in :func:`mlci.compare`: each system's interval method, and the
differences that leave the t interval.

Under ``"auto"`` each system gets the method of a single metric (:func:`system_methods`:
Wilson or logit_t for a proportion, a kernel family's own rule, else studentized) and
each difference the t interval on its linearized (CR2) standard error; a kernel family
may carry its own paired rule (:func:`paired_auto_rule`).  Some differences then switch
(:func:`pair_switches`): Tango's score interval for two proportions
(:mod:`mlci.comparison.tango`), MOVER for an AUC near the edge with few of a class
(:mod:`mlci.comparison.paired_auc_edge`), BCa near the edge or where the difference is
skewed (:mod:`mlci.engine.paired_rules`), and the rules over conditions
(:mod:`mlci.comparison.paired_conditions`).  The rules' numbers are in
:mod:`mlci.engine.auto` and docs/validation.md.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engine.auc_misranked import (
    few_misordered_pairs,
    few_misordered_pairs_iid,
    few_misordered_pairs_iid_reason,
    few_misordered_pairs_reason,
)
from ..engine.auto import RANKING_METRICS, kernel_auto_method
from ..engine.edge_bca import (
    few_positive_methods,
    few_positive_reason,
    few_positive_t_reason,
)
from ..engine.paired_rules import SKEWED_PAIR_METHOD, skewed_pairs, skewed_reason
from ..intervals.bootstrap import LINEARIZED_METHODS, edge_dominated
from .paired_auc_edge import edge_mover
from .paired_conditions import (
    edge_auc_pairs,
    edge_auc_reason,
    sample_shape,
    skewed_condition_pairs,
    skewed_conditions_reason,
)
from .paired_regression import SYMMETRIC_T_REASON
from .system_method import system_auto_method
from .tango import TANGO_REASON, paired_tables

__all__ = [
    "EDGE_PAIR_MISORDERED",
    "pair_switches",
    "paired_auto_rule",
    "switches_near_edge",
    "system_methods",
]

#: ``"auto"``'s near-edge switch (BCa for the difference of a pair with an edge-dominated
#: system) for an AUC needs fewer mis-ordered (positive, negative) pairs than this,
#: ``(1 - AUC) n_pos n_neg``, in that system.  In the sweep (docs/validation.md, after
#: "(1) #14"; paired roc_auc differences of independent samples, AUC 0.9-0.9999, 10-86
#: positives, 200 test sets per cell) on the switched test sets with fewer than 10
#: mis-ordered pairs BCa covered 0.78-0.90 and t 0.59-0.82, with 10-20 both 0.88-0.92,
#: with 20 or more t 0.95-0.98 and BCa 0.88-0.93: an AUC of 0.99 or 0.9 edge-dominated
#: through a few positives (design #14 of seed 3 without conditions) is no longer switched.
EDGE_PAIR_MISORDERED = 20.0


def switches_near_edge(kernel: Any, estimate: float) -> bool:
    """Whether an edge-dominated system's pairs get BCa under ``"auto"``: always, but for
    an AUC with :data:`EDGE_PAIR_MISORDERED` mis-ordered pairs or more (``1 - AUC``, or
    ``AUC`` near 0, times the numbers of positive and negative samples)."""
    m_neg = getattr(kernel, "m_neg", None)
    if getattr(kernel, "name", None) != "roc_auc" or m_neg is None:
        return True
    counts = np.bincount(kernel.keys, minlength=kernel.m)
    pairs = float(counts[:m_neg].sum()) * float(counts[m_neg:].sum())
    return bool(min(estimate, 1.0 - estimate) * pairs < EDGE_PAIR_MISORDERED)


def system_methods(
    kernels: Sequence[Any],
    plan: Any,
    requested: str,
    method: str,
    linear: dict[str, Any] | None,
    auto_reason: str | None,
) -> tuple[list[str], list[dict[str, Any] | None], list[dict[str, Any] | None], str, str | None]:
    """Each system's method, linearization and ``method_reason`` (as :func:`mlci.bootstrap_ci`
    says it), the differences' method and the result's ``method_reason``.

    ``requested`` is the ``method`` asked for, ``method`` the one it resolved to on the
    differences' contrast (with its linearization ``linear`` and reason ``auto_reason``).
    """
    n_sys = len(kernels)
    # "auto": each system by the rule of a single metric (Wilson for a proportion), the
    # differences by the t interval on their linearized (CR2) standard error, which the
    # coverage map shows to hold for paired differences where the bootstrap-t is erratic
    sys_methods = [method] * n_sys
    sys_linear: list[dict[str, Any] | None] = [None] * n_sys
    sys_why: list[dict[str, Any] | None] = [None] * n_sys  # bootstrap_ci's method_reason
    diff_method = method
    if requested == "auto":
        own_reasons: list[str] = []  # the systems' own rules without a linearization
        for s_, k_ in enumerate(kernels):
            # bootstrap_ci's resolution for the system alone (comparison/system_method.py)
            solo = system_auto_method(k_, plan, linear)
            if solo is None:
                continue
            sys_methods[s_], sys_linear[s_] = solo[0], solo[1]
            if solo[2]:  # its reason, as bootstrap_ci says it
                sys_why[s_] = {"method_reason": solo[2]}
            own = kernel_auto_method(k_, plan)
            if linear is None and own is not None and own[0] == solo[0] not in LINEARIZED_METHODS:
                own_reasons.append(own[1])
        if linear is None and own_reasons and auto_reason is not None:
            auto_reason = f"systems: {own_reasons[0]}; differences: {auto_reason}"
    if requested == "auto" and linear is not None:
        diff_method = "t"
        auto_reason = (
            "systems: for a proportion wilson (independent samples) or logit_t (over conditions; "
            "korn_graubard near 0 or 1), a kernel family's own rule (as bootstrap_ci), otherwise "
            "studentized; differences: t on the linearized (CR2) standard error with the "
            "effective conditions - 1 degrees of freedom (the coverage map: the bootstrap-t of a "
            "paired difference is erratic with few conditions)"
        )
    return sys_methods, sys_linear, sys_why, diff_method, auto_reason


def paired_auto_rule(kernels: Sequence[Any], plan: Any) -> tuple[list[str], str, str] | None:
    """``(system methods, difference method, reason)`` of ``method="auto"`` when every
    system's kernel carries the same ``paired_auto_method`` (``(method, reason)`` for the
    differences), its systems then getting their own ``method="auto"``; else None."""
    rules: list[tuple[str, str]] = []
    systems: list[tuple[str, str]] = []
    for k in kernels:
        rule, own = getattr(k, "paired_auto_method", None), kernel_auto_method(k, plan)
        if rule is None or own is None:
            return None
        rules.append(rule)
        systems.append(own)
    if len({r[0] for r in rules}) != 1:
        return None
    reason = f"systems: {systems[0][1]}; differences: {rules[0][1]}"
    return [r[0] for r in systems], rules[0][0], reason


def pair_switches(
    *,
    requested: str,
    diff_method: str,
    linear: dict[str, Any] | None,
    data: Any,
    kernels: Sequence[Any],
    names: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    estimates: np.ndarray,
    contrast: Any,
    dist: np.ndarray,
    se_values: np.ndarray | None,
    sys_linear: Sequence[dict[str, Any] | None],
    d_skew: np.ndarray,
    bounds: tuple[float, float],
    confidence_level: float,
    metric: str,
    auto_reason: str | None,
    details: dict[str, Any],
    symmetric: np.ndarray | None = None,
) -> tuple[list[np.ndarray | None], Any, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The differences that leave the t interval under ``"auto"``, each rule's clause added
    to ``details["method_reason"]``.

    Returns Tango's paired tables (None for the pairs without), the
    MOVER pairs (:func:`mlci.comparison.paired_auc_edge.edge_mover`), the pairs with
    either of these own intervals, and the pairs that get a bootstrap interval: near the
    edge (BCa) and skewed (:data:`~mlci.engine.paired_rules.SKEWED_PAIR_METHOD`, or BCa
    over conditions), and among the latter those that get the percentile interval (an F1
    difference with few positives, :func:`mlci.engine.edge_bca.few_positive_method`).
    ``symmetric``: the RMSE pairs that get the symmetric bootstrap-t
    interval (:mod:`mlci.comparison.paired_regression`) unless near the edge, never the
    skewed pairs' BCa.
    """
    n_sys = len(names)
    ia = np.array([p[0] for p in pairs])
    ib = np.array([p[1] for p in pairs])
    # "auto" for two proportions on the same independent samples without weights
    # (accuracy, an error rate, a recall): Tango's score interval of their paired 2x2
    # table, which holds its level where t and BCa do not (comparison/tango.py)
    tables: list[np.ndarray | None] = [None] * len(pairs)
    if (
        requested == "auto"
        and diff_method == "t"
        and linear is not None
        and linear["iid"]
        and data.conditions is None
        and data.strata is None
        and data.sample_weight is None
    ):
        tables = paired_tables(kernels, pairs, estimates)
    tango_pairs = np.array([t is not None for t in tables], dtype=bool)
    if tango_pairs.any():
        details["method_reason"] = (
            f"{auto_reason}; {TANGO_REASON} for the difference(s) "
            + ", ".join(f"{names[ia[k]]} - {names[ib[k]]}" for k in np.flatnonzero(tango_pairs))
            + ": two proportions on the same independent samples"
        )
    # "auto" for a roc_auc pair of independent samples with a system near the edge and few
    # of a class: the MOVER interval (comparison/paired_auc_edge.py; seed-8 #14, s8p #4)
    mover, clause = edge_mover(
        kernels,
        pairs,
        [f"{names[i]} - {names[j]}" for i, j in pairs],
        requested == "auto" and diff_method == "t" and linear is not None and linear["iid"],
        data,
    )
    if mover:
        details["method_reason"] = str(details.get("method_reason", auto_reason)) + clause
    own_pairs = tango_pairs | np.isin(np.arange(len(pairs)), list(mover))
    # "auto" near the edge: a pair with a system whose replicates are edge-dominated
    # (AUC 0.9997: resamples without a mis-ordered pair) gets BCa for its difference.  The
    # t interval of such a difference is too narrow: an AUC difference of 0.004 between
    # two near-perfect systems (n = 220), t 0.785-0.875, BCa 0.91-0.95 (docs/validation.md,
    # "Near the bounds").  Independent samples only: over conditions the t interval held
    # where BCa fell short (design #14 of the seed-3 search, a roc_auc difference over 139
    # conditions with about 10 positives, 400 test sets: t 0.935, BCa 0.852, percentile
    # 0.917; on the 43% of test sets the rule switched, t 0.942 and BCa 0.831).  An AUC
    # switches only with fewer than EDGE_PAIR_MISORDERED mis-ordered pairs
    # (:func:`switches_near_edge`).  Over conditions, comparison/paired_conditions.py has its
    # own rules (below)
    edge_pairs = np.zeros(len(pairs), dtype=bool)
    if (
        requested == "auto"
        and diff_method == "t"
        and se_values is not None
        and linear is not None
        and bool(linear["iid"])
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            sys_edge = np.array(
                [
                    sys_linear[s_] is None
                    and switches_near_edge(kernels[s_], estimates[s_])
                    and bool(
                        edge_dominated(
                            estimates[s_],
                            linear["standard_error"][s_],
                            dist[:, s_],
                            se_values[:, s_],
                            confidence_level=confidence_level,
                            bounds=bounds,
                        )
                    )
                    for s_ in range(n_sys)
                ]
            )
        edge_pairs = (sys_edge[ia] | sys_edge[ib]) & ~own_pairs
        if edge_pairs.any():
            details["method_reason"] = (
                f"{details.get('method_reason', auto_reason)}; bca for the difference(s) of "
                + ", ".join(f"{names[ia[k]]} - {names[ib[k]]}" for k in np.flatnonzero(edge_pairs))
                + ": a system near the edge of the range (at least half of a tail's "
                "replicates have an infinite bootstrap-t statistic; for roc_auc, with fewer "
                f"than {EDGE_PAIR_MISORDERED:.0f} mis-ordered pairs), where the t interval of a "
                "paired difference was too narrow (docs/validation.md, 'Near the bounds')"
            )
    # "auto" for two ROC AUCs near 1 on independent samples whose worse system has few
    # misordered pairs per sample of the smaller class: BCa (engine/auc_misranked.py;
    # seed-18 #24, session 12, aucpair18)
    if (
        requested == "auto"
        and diff_method == "t"
        and linear is not None
        and bool(linear["iid"])
        and data.conditions is None
        and data.strata is None
        and data.sample_weight is None
    ):
        few_iid, worse_iid = few_misordered_pairs_iid(kernels, ia, ib)
        few_iid &= ~own_pairs & ~edge_pairs
        if few_iid.any():
            edge_pairs = edge_pairs | few_iid
            details["method_reason"] = str(
                details.get("method_reason", auto_reason)
            ) + few_misordered_pairs_iid_reason(
                [f"{names[ia[k]]} - {names[ib[k]]}" for k in np.flatnonzero(few_iid)],
                worse_iid[few_iid],
            )
    # "auto" for a skewed difference of independent samples (few discordant samples, most
    # of them one way): a bootstrap interval instead of the t (Wald) one (engine/auto.py)
    skew_pairs = np.zeros(len(pairs), dtype=bool)
    pct_pairs = np.zeros(len(pairs), dtype=bool)  # (the few-positive F1 rule below)
    if requested == "auto" and diff_method == "t" and linear is not None:
        skew_pairs = skewed_pairs(d_skew, bool(linear["iid"]), metric) & ~edge_pairs & ~own_pairs
        if symmetric is not None:
            # an RMSE difference: the symmetric bootstrap-t, not BCa (BCa covered 0.82-0.95
            # where the t interval's skewness switched it; comparison/paired_regression.py)
            skew_pairs &= ~symmetric
            sym = symmetric & ~edge_pairs & ~own_pairs
            if sym.any():
                details["method_reason"] = (
                    str(details.get("method_reason", auto_reason))
                    + "; "
                    + SYMMETRIC_T_REASON.format(
                        pairs=", ".join(
                            f"{names[ia[k]]} - {names[ib[k]]}" for k in np.flatnonzero(sym)
                        )
                    )
                )
        if skew_pairs.any():
            details["method_reason"] = str(details.get("method_reason", auto_reason)) + (
                skewed_reason(
                    [f"{names[ia[k]]} - {names[ib[k]]}" for k in np.flatnonzero(skew_pairs)],
                    d_skew[skew_pairs],
                )
            )
    # "auto" over conditions (comparison/paired_conditions.py): a difference skewed over
    # the conditions' totals and over the samples gets BCa (seed-5 #14), and so does a
    # roc_auc pair with a system near the edge (seed-5 #2)
    if requested == "auto" and diff_method == "t" and linear is not None and not linear["iid"]:
        labels = [f"{names[i]} - {names[j]}" for i, j in pairs]
        if metric in RANKING_METRICS:
            switched, fewest = edge_auc_pairs(kernels, estimates, ia, ib)
            edge_pairs = edge_pairs | switched
            clause = edge_auc_reason(
                [labels[k] for k in np.flatnonzero(switched)], fewest[switched]
            )
            # both AUCs near 1, few misordered pairs: BCa (engine/auc_misranked.py)
            cond = data.conditions
            n_cond = (
                np.unique(cond).size if isinstance(cond, np.ndarray) and cond.ndim == 1 else None
            )
            few, worse = few_misordered_pairs(kernels, ia, ib, n_cond)
            few &= ~switched & ~own_pairs & ~edge_pairs
            if few.any():
                edge_pairs = edge_pairs | few
                clause = (clause if switched.any() else "") + few_misordered_pairs_reason(
                    [labels[k] for k in np.flatnonzero(few)], worse[few]
                )
                switched = switched | few
        else:
            g_i, deff = sample_shape(
                contrast, data.n_samples, n_sys, linear["standard_error"][n_sys:]
            )
            # F1 with 1-4 positives (engine/edge_bca.py): t below 16 conditions, the
            # percentile interval below 30 or with 1 positive, else BCa; before the
            # skewness rule, which some of these pairs (one positive) also met
            n_cond = None if data.conditions is None else len(np.unique(data.conditions))
            few_m = few_positive_methods(kernels, ia, ib, metric, n_cond)
            few_m[own_pairs] = ""
            switched = skewed_condition_pairs(d_skew, g_i, deff, float(linear["df"]))
            switched = switched & (few_m == "")
            skew_pairs = skew_pairs | switched
            clause = (
                skewed_conditions_reason(
                    [labels[k] for k in np.flatnonzero(switched)],
                    d_skew[switched],
                    g_i[switched],
                    SKEWED_PAIR_METHOD,
                )
                if switched.any()
                else ""
            )
            kept = few_m == "t"
            if kept.any():
                details["method_reason"] = str(
                    details.get("method_reason", auto_reason)
                ) + few_positive_t_reason([labels[k] for k in np.flatnonzero(kept)], n_cond or 0)
            for m in ("bca", "percentile"):
                few = few_m == m
                if few.any():
                    skew_pairs = skew_pairs | few
                    clause += few_positive_reason([labels[k] for k in np.flatnonzero(few)], m)
            pct_pairs = few_m == "percentile"
            switched = switched | (few_m == "bca") | pct_pairs
        if switched.any():
            details["method_reason"] = str(details.get("method_reason", auto_reason)) + clause
    return tables, mover, own_pairs, edge_pairs, skew_pairs, pct_pairs
