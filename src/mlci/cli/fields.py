"""``mlci agreement`` and ``mlci correlate``: agreement between raters, and a metric's
correlation with human scores (docs/agreement.md, docs/correlations.md).

``mlci agreement FILE --raters A,B,C``: one row per item, one column per rater (an empty
cell is a missing rating); Krippendorff's alpha and/or Fleiss' kappa with intervals
(:func:`mlci.agreement_ci`).

``mlci correlate FILE --system S --item I --human H --metric-score M1,M2``: one row per
(system, item) output; every metric column's correlation with the human column at the
system, item or global level, resampling systems, items or both
(:func:`mlci.correlation_ci`); with two or more metric columns, the paired permutation
test of each against the first (:func:`mlci.compare_correlations`).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from ..fields.agreement import METRICS as AGREEMENT_METRICS
from ..fields.agreement import RESAMPLE as AGREEMENT_RESAMPLE
from ..fields.agreement import agreement_ci
from ..fields.correlations import RESAMPLE as CORRELATION_RESAMPLE
from ..fields.correlations import compare_correlations, correlation_ci
from ..inputs import missing_mask
from ..metrics.agreement import AGREEMENT_LEVELS
from ..metrics.correlation import COEFFICIENTS, LEVELS
from .common import (
    CLIError,
    Output,
    OutTable,
    _call_api,
    _seed,
    _split_list,
    add_output_arguments,
    add_resampling_arguments,
    catching,
    emit,
    get_column,
    load_input,
    read_columns,
    relay_warnings,
)

__all__ = ["add_agreement", "add_correlate"]


def _row(name: str, res: Any) -> list[Any]:
    low, high = res.confidence_interval
    return [name, res.estimate, low, high, res.method]


def add_agreement(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "agreement",
        help="inter-rater agreement: Krippendorff's alpha, Fleiss' kappa, with intervals",
        description="Agreement between raters (annotators, LLM judges) with bootstrap "
        "intervals. FILE has one row per item and one column per rater; an empty cell is a "
        "missing rating.",
        epilog="example: mlci agreement ratings.csv --raters A,B,C,D --level ordinal --seed 0",
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="items x raters table (CSV/TSV/Parquet)")
    g = p.add_argument_group("columns")
    g.add_argument(
        "--raters",
        metavar="COL,COL[,...]",
        help="the raters' columns (default: every column but --item-column)",
    )
    g.add_argument("--item-column", metavar="COL", help="a column naming the items (not a rater)")
    m = p.add_argument_group("agreement and interval")
    m.add_argument(
        "--metric",
        default="krippendorff_alpha",
        metavar="NAME[,NAME]",
        help=f"{' or '.join(AGREEMENT_METRICS)} (default krippendorff_alpha; comma-separated)",
    )
    m.add_argument(
        "--level",
        default="nominal",
        choices=AGREEMENT_LEVELS,
        help="Krippendorff's level of measurement (default nominal)",
    )
    m.add_argument(
        "--resample",
        default="items",
        choices=AGREEMENT_RESAMPLE,
        help="what is resampled: items (default), raters, or both",
    )
    add_resampling_arguments(m)
    add_output_arguments(p)
    p.set_defaults(handler=run_agreement, example=False, dropna=False)
    return p


def run_agreement(args: argparse.Namespace) -> int:
    if not args.file:
        raise CLIError("no input: give a FILE with one row per item and one column per rater.")
    table, source = load_input(args)
    metrics = _split_list(args.metric)
    bad = [m for m in metrics if m not in AGREEMENT_METRICS]
    if bad or not metrics:
        raise CLIError(
            f"--metric: {', '.join(map(repr, bad)) or 'none given'}; choose from "
            f"{', '.join(AGREEMENT_METRICS)}."
        )
    if args.item_column is not None:
        get_column(table, args.item_column, "--item-column")
    raters = (
        _split_list(args.raters)
        if args.raters is not None
        else [c for c in table if c != args.item_column]
    )
    if len(raters) < 2:
        raise CLIError("--raters: give at least two rater columns.")
    cols = [np.asarray(get_column(table, c, "--raters"), dtype=object) for c in raters]
    ratings = np.column_stack(cols)
    missing = missing_mask(ratings.reshape(-1)).reshape(ratings.shape) | (ratings == "")
    ratings = np.where(missing, np.nan, ratings)
    seed = _seed(args)
    out = Output(
        notes=[
            f"{source}: {ratings.shape[0]} items x {ratings.shape[1]} raters "
            f"({int(missing.sum())} missing ratings); {args.confidence_level:g} intervals "
            f"from {args.n_resamples} resamples ({args.resample}); seed {seed}"
        ]
    )
    t = OutTable(None, ["metric", "estimate", "low", "high", "method"])
    for metric in metrics:
        with catching() as caught:
            res = _call_api(
                {"ratings": "--raters", "n_resamples": "--n-resamples"},
                agreement_ci,
                ratings,
                metric=metric,
                level_of_measurement=args.level,
                resample=args.resample,
                n_resamples=args.n_resamples,
                confidence_level=args.confidence_level,
                method=args.method,
                alternative=args.alternative,
                rng=seed,
            )
        relay_warnings(caught, {}, args, prefix=f"{metric}: ")
        label = metric if metric == "fleiss_kappa" else f"{metric} ({args.level})"
        t.rows.append(_row(label, res))
    out.tables.append(t)
    out.data = {"rows": [dict(zip(t.columns, r, strict=True)) for r in t.rows], "seed": seed}
    return emit(out, args)


def add_correlate(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "correlate",
        help="metric meta-evaluation: correlation with human scores (systems x items)",
        description="Correlation of automatic metrics with human scores, with intervals "
        "resampling systems, items or both (Deutsch, Dror & Roth 2021). FILE has one row "
        "per (system, item) output, every system scored on every item.",
        epilog="example: mlci correlate scores.csv --system system --item doc --human "
        "human --metric-score bleu,chrf --level system --seed 0",
    )
    p.add_argument("file", nargs="?", metavar="FILE", help="one row per output (CSV/TSV/Parquet)")
    p.add_argument(
        "--dropna",
        action="store_true",
        help="leave out the rows with a missing value in a column used (every system must "
        "still be scored on every item)",
    )
    g = p.add_argument_group("columns")
    g.add_argument("--system", metavar="COL", help="the system of every output")
    g.add_argument("--item", metavar="COL", help="the item (document, segment) of every output")
    g.add_argument("--human", metavar="COL", help="the human score of every output")
    g.add_argument(
        "--metric-score",
        metavar="COL[,COL...]",
        help="the metrics' scores: a row each; with two or more, each is tested against the first",
    )
    m = p.add_argument_group("correlation and interval")
    m.add_argument(
        "--coefficient",
        default="kendall_tau",
        choices=COEFFICIENTS,
        help="default kendall_tau (scipy's tau-b)",
    )
    m.add_argument("--level", default="system", choices=LEVELS, help="default system")
    m.add_argument(
        "--resample",
        default="both",
        choices=CORRELATION_RESAMPLE,
        help="what the interval generalises over: systems, items or both (default)",
    )
    add_resampling_arguments(m)
    add_output_arguments(p)
    p.set_defaults(handler=run_correlate, example=False)
    return p


def _grid(
    systems: np.ndarray, items: np.ndarray, values: dict[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], int, int]:
    """Long columns -> (n_systems, n_items) matrices; every cell exactly once."""
    s_names, s_idx = np.unique(systems.astype(str), return_inverse=True)
    i_names, i_idx = np.unique(items.astype(str), return_inverse=True)
    counts = np.zeros((len(s_names), len(i_names)), dtype=int)
    np.add.at(counts, (s_idx, i_idx), 1)
    if (counts > 1).any():
        s, i = np.argwhere(counts > 1)[0]
        raise CLIError(
            f"--system/--item: system {str(s_names[s])!r} has {counts[s, i]} rows for item "
            f"{str(i_names[i])!r}; every (system, item) needs exactly one row."
        )
    if (counts == 0).any():
        s, i = np.argwhere(counts == 0)[0]
        raise CLIError(
            f"--system/--item: system {str(s_names[s])!r} has no row for item "
            f"{str(i_names[i])!r}; "
            f"every system must be scored on every item ({int((counts == 0).sum())} "
            "missing)."
        )
    out = {}
    for key, v in values.items():
        mat = np.empty(counts.shape)
        mat[s_idx, i_idx] = v
        out[key] = mat
    return out, len(s_names), len(i_names)


def run_correlate(args: argparse.Namespace) -> int:
    if not args.file:
        raise CLIError("no input: give a FILE with one row per (system, item) output.")
    for opt, val in (
        ("--system", args.system),
        ("--item", args.item),
        ("--human", args.human),
        ("--metric-score", args.metric_score),
    ):
        if val is None:
            raise CLIError(f"{opt} COL is required.")
    metric_cols = _split_list(args.metric_score)
    if not metric_cols:
        raise CLIError("--metric-score: give at least one column name.")
    table, source = load_input(args)
    wanted = {
        "system": ("--system", args.system, "groups"),
        "item": ("--item", args.item, "groups"),
        "human": ("--human", args.human, "numbers"),
        **{f"m:{c}": ("--metric-score", c, "numbers") for c in metric_cols},
    }
    arrays, _, _ = read_columns(table, source, wanted, dropna=args.dropna)
    values = {"human": arrays["human"], **{c: arrays[f"m:{c}"] for c in metric_cols}}
    mats, ns, ni = _grid(arrays["system"], arrays["item"], values)
    seed = _seed(args)
    out = Output(
        notes=[
            f"{source}: {ns} systems x {ni} items; {args.coefficient} at the {args.level} "
            f"level; {args.confidence_level:g} intervals from {args.n_resamples} resamples "
            f"({args.resample}); seed {seed}"
        ]
    )
    t = OutTable(None, ["metric", "estimate", "low", "high", "method"])
    names = {"metric_scores": "--metric-score", "human_scores": "--human"}
    for c in metric_cols:
        with catching() as caught:
            res = _call_api(
                names,
                correlation_ci,
                mats[c],
                mats["human"],
                coefficient=args.coefficient,
                correlation_level=args.level,
                resample=args.resample,
                n_resamples=args.n_resamples,
                confidence_level=args.confidence_level,
                method=args.method,
                alternative=args.alternative,
                rng=seed,
            )
        relay_warnings(caught, {}, args, prefix=f"{c}: ")
        t.rows.append(_row(c, res))
    out.tables.append(t)
    tests = []
    if len(metric_cols) > 1:
        tt = OutTable(
            f"paired permutation tests against {metric_cols[0]!r} ({args.resample})",
            ["metric", "difference", "p-value"],
        )
        for c in metric_cols[1:]:
            test = _call_api(
                {},
                compare_correlations,
                mats[c],
                mats[metric_cols[0]],
                mats["human"],
                coefficient=args.coefficient,
                correlation_level=args.level,
                resample=args.resample,
                n_resamples=max(args.n_resamples, 999),
                rng=seed,
            )
            tt.rows.append([f"{c} - {metric_cols[0]}", test.estimate, test.pvalue])
            tests.append({"metric": c, "difference": test.estimate, "pvalue": test.pvalue})
        out.tables.append(tt)
    out.data = {
        "rows": [dict(zip(t.columns, r, strict=True)) for r in t.rows],
        "tests": tests,
        "seed": seed,
    }
    return emit(out, args)
