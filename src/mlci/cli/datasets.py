"""``mlci datasets``: several methods over several data sets (Demšar 2006).

The input is a table with one row per data set and one column per method holding its
score there (accuracy, AUC, ...).  The command runs Friedman's test
(:func:`mlci.friedman_test`, Iman-Davenport by default), a post-hoc test
(:func:`mlci.nemenyi_test` over all pairs, or :func:`mlci.holm_test` /
:func:`mlci.bonferroni_dunn_test` against ``--control``) and, with ``--plot FILE``,
draws the critical-difference diagram (:func:`mlci.critical_difference`).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from ..classical.multiple_datasets import (
    bonferroni_dunn_test,
    critical_difference,
    friedman_test,
    holm_test,
    nemenyi_test,
)
from .common import (
    CLIError,
    Output,
    OutTable,
    _call_api,
    _dropped_note,
    _split_list,
    add_output_arguments,
    emit,
    load_input,
    read_columns,
    require_plotting,
    save_figure,
)

__all__ = ["POSTHOC", "add_datasets"]

#: ``--posthoc``
POSTHOC = ("nemenyi", "holm", "bonferroni-dunn")


def _alpha(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if not 0 < v < 0.5:
        raise argparse.ArgumentTypeError(f"a significance level between 0 and 0.5; got {text}")
    return v


def add_datasets(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "datasets",
        help="many methods over many data sets: Friedman, Nemenyi/Holm, CD diagram",
        description="Rank methods over data sets (Demšar 2006): Friedman's test of equal "
        "average ranks, then post-hoc comparisons and a critical-difference diagram. "
        "FILE has one row per data set and one column per method.",
        epilog="example: mlci datasets results.csv --dataset-column dataset "
        "--posthoc holm --control mine --plot cd.png",
    )
    p.add_argument(
        "file", nargs="?", metavar="FILE", help="datasets x methods table (CSV/TSV/Parquet)"
    )
    p.add_argument(
        "--dropna",
        action="store_true",
        help="leave out the data sets (rows) with a missing score, and say how many",
    )
    g = p.add_argument_group("columns")
    g.add_argument("--dataset-column", metavar="COL", help="the column naming each data set")
    g.add_argument(
        "--methods",
        metavar="COL,COL[,...]",
        help="the methods' columns (default: every numeric column but --dataset-column)",
    )
    t = p.add_argument_group("tests")
    t.add_argument(
        "--variant",
        default="iman-davenport",
        choices=("iman-davenport", "chi2"),
        help="Friedman statistic (default iman-davenport, less conservative)",
    )
    t.add_argument(
        "--posthoc", default="nemenyi", choices=POSTHOC, help="default nemenyi (all pairs)"
    )
    t.add_argument("--control", metavar="NAME", help="control method of holm / bonferroni-dunn")
    t.add_argument(
        "--alpha", type=_alpha, default=0.05, metavar="A", help="significance level (default 0.05)"
    )
    t.add_argument(
        "--lower-is-better",
        action="store_true",
        help="the scores are errors or losses (rank 1 = lowest)",
    )
    add_output_arguments(p, plot="the critical-difference diagram")
    p.set_defaults(handler=run_datasets, example=False)
    return p


def run_datasets(args: argparse.Namespace) -> int:
    if not args.file:
        raise CLIError("no input: give a FILE with one row per data set and one column per method.")
    table, source = load_input(args)
    if args.plot:
        require_plotting(args)
    if args.dataset_column is not None and args.dataset_column not in table:
        read_columns(
            table, source, {"d": ("--dataset-column", args.dataset_column, "any")}, dropna=False
        )
    dataset_column = args.dataset_column
    first = next(iter(table))
    col = table[first]
    text = col.dtype.kind == "U" or any(isinstance(v, str) for v in col.tolist())
    if dataset_column is None and text:
        dataset_column = first  # a first column of text names the data sets
    if args.methods is not None:
        names = _split_list(args.methods)
    else:
        names = [c for c in table if c != dataset_column]
    if len(names) < 2:
        raise CLIError("--methods: give at least two method columns (numbers).")
    if args.posthoc != "nemenyi" and args.control is None:
        raise CLIError(
            f"--posthoc {args.posthoc} compares every method to one: give --control NAME."
        )
    if args.control is not None and args.control not in names:
        raise CLIError(f"--control {args.control!r} is not among the methods ({', '.join(names)}).")
    wanted = {f"m:{n}": ("--methods", n, "numbers") for n in names}
    arrays, n_dropped, _ = read_columns(table, source, wanted, dropna=args.dropna)
    scores = np.column_stack([arrays[f"m:{n}"] for n in names]).astype(float)
    if scores.shape[0] < 2:
        raise CLIError(
            f"{source}: {scores.shape[0]} data set(s); ranking methods needs at least two rows."
        )
    hib = not args.lower_is_better
    fried = _call_api(
        {}, friedman_test, scores, variant=args.variant, higher_is_better=hib, names=names
    )
    if args.posthoc == "nemenyi":
        post = _call_api(
            {}, nemenyi_test, scores, alpha=args.alpha, higher_is_better=hib, names=names
        )
    elif args.posthoc == "holm":
        post = _call_api(
            {},
            holm_test,
            scores,
            control=args.control,
            alpha=args.alpha,
            higher_is_better=hib,
            names=names,
        )
    else:
        post = _call_api(
            {},
            bonferroni_dunn_test,
            scores,
            control=args.control,
            alpha=args.alpha,
            higher_is_better=hib,
            names=names,
        )
    k, n = len(names), scores.shape[0]
    out = Output(
        [
            f"{source}: {n} data sets{_dropped_note(args, n_dropped)} x {k} methods; "
            f"rank 1 = {'lowest' if args.lower_is_better else 'highest'} score",
        ]
    )
    # the main result is a table (not a note), so --format csv and --quiet keep it
    main_result = OutTable("Friedman test", ["test", "statistic", "p", "critical difference"])
    main_result.rows.append(
        [fried.method, float(fried.statistic), f"{fried.pvalue:.4g}", post.critical_difference]
    )
    ranks = OutTable("average ranks", ["method", "average rank", "mean score"])
    order = np.argsort(post.average_ranks)
    for i in order:
        ranks.rows.append([names[i], float(post.average_ranks[i]), float(scores[:, i].mean())])
    pairs = OutTable(
        f"post-hoc ({post.method})", ["a", "b", "rank difference", "statistic", "p (adjusted)", ""]
    )
    for rec in post.rows():
        pairs.rows.append(
            [
                rec["a"],
                rec["b"],
                rec["rank_difference"],
                rec["statistic"],
                f"{rec['pvalue']:.4g}",
                "*" if rec["significant"] else "",
            ]
        )
    out.tables += [main_result, ranks, pairs]
    if post.critical_difference is not None:
        out.footer.append("critical difference: of the average ranks, at --alpha")
    out.footer.append(f"* = significant at {args.alpha:g} (family-wise)")
    out.data = {
        "source": source,
        "friedman": fried.to_dict(),
        "posthoc": post.to_dict(),
        "average_ranks": {names[i]: float(post.average_ranks[i]) for i in range(k)},
    }
    if args.plot:
        plotting = require_plotting(args)
        test = "nemenyi" if args.posthoc != "bonferroni-dunn" else "bonferroni-dunn"
        cd = _call_api(
            {},
            critical_difference,
            scores,
            alpha=args.alpha,
            variant=test,
            control=args.control if test != "nemenyi" else None,
            higher_is_better=hib,
            names=names,
        )
        ax = plotting.plot_critical_difference(cd)
        save_figure(ax.figure, args.plot)
    return emit(out, args)
