"""``mlci compare``: systems scored on the same samples, pair by pair.

``--test bootstrap`` (default, :func:`mlci.compare`: every system on the same replicates,
intervals of every difference, adjusted p-values), ``permutation``
(:func:`mlci.permutation_test`), ``delong`` (:func:`mlci.delong_test`, paired AUCs) or
``mcnemar`` (:func:`mlci.mcnemar_test`, ``--variant`` mid-p/exact/asymptotic/corrected).
With more than two systems the p-values of the pairs are adjusted with ``--correction``
(:func:`mlci.adjust_pvalues`; the bootstrap also has ``maxt``).

The systems are columns of a wide table (``--systems a,b,c``) or the rows of a long table
(``--system-column system --sample-column id --output-column pred``: one row per system
and sample; rows of the same sample are paired, and every system must have every sample).
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
from typing import Any

import numpy as np

from ..classical.auc import delong_ci, delong_test
from ..classical.corrections import adjust_pvalues
from ..classical.proportions import paired_proportion_diff_ci, paired_table, proportion_ci
from ..classical.significance import MCNEMAR_VARIANTS, mcnemar_test
from ..comparison.equivalence import mcnemar_margin_test
from ..comparison.margins import hypotheses
from ..comparison.paired import compare
from ..comparison.permutation import permutation_test
from ..io import Table
from ..metrics import weight_argument
from ..results import ConfidenceInterval
from .common import (
    _KINDS,
    CLIError,
    Output,
    OutTable,
    _call_api,
    _check_labels,
    _dropped_note,
    _metric_info,
    _seed,
    _split_list,
    _with_dropped,
    add_frequency_weight,
    add_input_arguments,
    add_output_arguments,
    add_resampling_arguments,
    as_frequency_weights,
    catching,
    emit,
    frequency_weight_column,
    get_column,
    grouping_codes,
    load_input,
    parse_like,
    read_columns,
    relay_warnings,
    require_plotting,
    save_figure,
)
from .margins import margin_data, margin_footer, margin_table

__all__ = ["TESTS", "add_compare"]

#: ``--test``
TESTS = ("bootstrap", "permutation", "delong", "mcnemar")
#: the corrections of ``--correction`` (``maxt`` for the bootstrap only)
CORRECTIONS = ("holm", "bonferroni", "hochberg", "bh", "by", "maxt", "none")
#: the metric each analytic test is about
_TEST_METRIC = {"delong": "roc_auc", "mcnemar": "accuracy"}


def add_compare(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "compare",
        help="compare systems on the same test set (paired bootstrap, permutation, DeLong, "
        "McNemar; adjusted p-values)",
        description="Compare two or more systems scored on the same samples. One row per "
        "system, then one row per pair, with p-values adjusted for the number of pairs.",
        epilog="example: mlci compare preds.csv --label y --systems sys_a,sys_b,sys_c "
        "--metric accuracy --condition speaker --seed 0",
    )
    add_input_arguments(p)
    g = p.add_argument_group("columns")
    g.add_argument("--label", metavar="COL", required=False, help="true labels (y_true)")
    g.add_argument(
        "--systems",
        metavar="COL,COL[,...]",
        help="wide table: one column per system, its decisions (or its scores for score "
        "metrics and --test delong)",
    )
    g.add_argument(
        "--system-column",
        metavar="COL",
        help="long table: the column naming each row's system (with --sample-column and "
        "--output-column)",
    )
    g.add_argument(
        "--sample-column",
        metavar="COL",
        help="long table: the column identifying each row's sample (pairs the systems)",
    )
    g.add_argument(
        "--output-column",
        metavar="COL",
        help="long table: the column holding each system's decision or score",
    )
    g.add_argument("--condition", metavar="COL", help="condition of each sample (speaker...)")
    g.add_argument("--strata", metavar="COL", help="resample within each stratum")
    g.add_argument(
        "--weight",
        metavar="COL",
        help="per-sample weights of the metric (sample_weight), the same for every system; "
        "--test bootstrap, wide tables",
    )
    add_frequency_weight(g)
    m = p.add_argument_group("metric, interval and test")
    m.add_argument(
        "--test",
        default="bootstrap",
        choices=TESTS,
        help="bootstrap (default: intervals of the differences), permutation, delong "
        "(roc_auc of scores), mcnemar (accuracy of decisions)",
    )
    m.add_argument(
        "--variant",
        choices=MCNEMAR_VARIANTS,
        help="McNemar's test: mid-p (default), exact, asymptotic or corrected",
    )
    m.add_argument(
        "--metric",
        metavar="NAME",
        help="one built-in metric name (needed by bootstrap and permutation)",
    )
    m.add_argument("--reference", metavar="NAME", help="compare every system to this one only")
    m.add_argument(
        "--margin",
        type=float,
        metavar="DELTA",
        help="non-inferiority and equivalence (TOST) tests for this margin on the metric's "
        "scale (--test bootstrap or mcnemar; docs/decisions.md)",
    )
    m.add_argument(
        "--correction",
        default="holm",
        choices=CORRECTIONS,
        help="multiple-comparison adjustment of the p-values (default holm; maxt: bootstrap only)",
    )
    add_resampling_arguments(
        m, n_resamples=None, n_resamples_help="default 1000 (9999 for --test permutation)"
    )
    m.add_argument("--pos-label", metavar="X", help="positive class of binary metrics")
    m.add_argument("--average", choices=("binary", "macro", "micro", "weighted"))
    add_output_arguments(p, plot="the differences with their intervals and adjusted p-values")
    p.set_defaults(handler=run_compare)
    return p


def _long_to_wide(table: Any, args: argparse.Namespace, source: str) -> tuple[Table, list[str]]:
    """A long table (system, sample, output) as a wide one: one column per system."""
    given = {
        "--system-column": args.system_column,
        "--sample-column": args.sample_column,
        "--output-column": args.output_column,
    }
    absent = [k for k, v in given.items() if v is None]
    if absent:
        raise CLIError(
            f"a long table needs --system-column, --sample-column and --output-column; "
            f"missing: {', '.join(absent)}."
        )
    system = get_column(table, args.system_column, "--system-column")
    sample = get_column(table, args.sample_column, "--sample-column")
    get_column(table, args.output_column, "--output-column")
    sys_names = sorted({str(s) for s in system.tolist()})  # whatever the order of the rows
    samples = list(dict.fromkeys(sample.tolist()))
    try:  # samples in sorted order, so that the row order of the file does not matter
        samples.sort()
    except TypeError:  # mixed types: first appearance
        pass
    index = {s: i for i, s in enumerate(samples)}
    rows = np.array([index[s] for s in sample.tolist()])
    per_sys = {
        name: np.flatnonzero(np.array([str(s) for s in system.tolist()]) == name)
        for name in sys_names
    }
    wide: dict[str, np.ndarray] = {}
    for name, where in per_sys.items():
        seen = rows[where]
        if np.unique(seen).size != seen.size:
            first = np.flatnonzero(np.bincount(seen)[seen] > 1)[0]
            dup = where[seen == seen[first]]
            raise CLIError(
                f"{source}: --sample-column {args.sample_column!r}: system {name!r} has "
                f"sample {sample.tolist()[dup[0]]!r} more than once ({table.where(dup)})."
            )
        if seen.size != len(samples):
            missing = next(s for s in samples if index[s] not in set(seen.tolist()))
            raise CLIError(
                f"{source}: system {name!r} (--system-column {args.system_column!r}) has no row "
                f"for sample {missing!r}; every system needs every sample to be compared."
            )
    first = per_sys[sys_names[0]][np.argsort(rows[per_sys[sys_names[0]]])]
    for col in table:
        if col in (args.system_column, args.sample_column, args.output_column):
            continue
        wide[col] = table[col][first]
    for name, where in per_sys.items():
        wide[name] = table[args.output_column][where[np.argsort(rows[where])]]
    for col in (args.label, args.condition, args.strata):
        if col is None or col not in table:
            continue
        for name, where in per_sys.items():
            other = table[col][where[np.argsort(rows[where])]]
            if not np.array_equal(other.astype(str), wide[col].astype(str)):
                raise CLIError(
                    f"{source}: column {col!r} differs between the rows of one sample "
                    f"(system {name!r}); in a long table it must be the same for every system."
                )
    lines = None if table.lines is None else table.lines[first]
    return Table(wide, table.path, lines=lines), sys_names


def run_compare(args: argparse.Namespace) -> int:
    if args.example:
        args.label = args.label or "label"
    long = any(v is not None for v in (args.system_column, args.sample_column, args.output_column))
    used = (
        None
        if long
        else (
            args.label,
            args.systems,
            args.condition,
            args.strata,
            args.weight,
            args.frequency_weight,
        )
    )
    # conditions and strata only group the rows: integer codes (as `mlci ci`); a long
    # table's rows are regrouped by sample first, so its columns are read as they are
    groups = (
        []
        if long
        else grouping_codes(
            (args.condition, args.strata),
            (args.label, args.systems, args.weight, args.frequency_weight),
        )
    )
    table, source = load_input(args, used, codes=groups)
    if long and args.systems:
        raise CLIError("give --systems (a wide table) or --system-column (a long table), not both.")
    if long:
        table, names = _long_to_wide(table, args, source)
        option = "--system-column"
    else:
        if not args.systems:
            raise CLIError(
                "give the systems: --systems COL,COL (one column each) or --system-column, "
                "--sample-column and --output-column (a long table)."
            )
        names = _split_list(args.systems)
        option = "--systems"
    if len(names) < 2:
        raise CLIError(f"{option}: give at least two systems to compare.")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise CLIError(f"{option}: {', '.join(repr(n) for n in twice)} given more than once.")
    if args.reference is not None and args.reference not in names:
        raise CLIError(
            f"--reference {args.reference!r} is not among the systems ({', '.join(names)})."
        )
    if args.variant is not None and args.test != "mcnemar":
        raise CLIError(f"--variant is an option of --test mcnemar, not of --test {args.test}.")
    if args.margin is not None and args.test not in ("bootstrap", "mcnemar"):
        raise CLIError(f"--margin needs --test bootstrap or mcnemar, not --test {args.test}.")
    if args.correction == "maxt" and args.test != "bootstrap":
        raise CLIError(
            f"--correction maxt needs --test bootstrap; with --test {args.test} use holm, ..."
        )
    if args.test in _TEST_METRIC:
        if args.metric is not None and _metric_info(args.metric).name != _TEST_METRIC[args.test]:
            raise CLIError(
                f"--test {args.test} compares {_TEST_METRIC[args.test]}; --metric "
                f"{args.metric} needs --test bootstrap or permutation."
            )
        for opt, val in (("--condition", args.condition), ("--strata", args.strata)):
            if val is not None:
                raise CLIError(
                    f"--test {args.test} assumes independent samples and cannot use {opt}; "
                    "use --test bootstrap or permutation."
                )
        args.metric = _TEST_METRIC[args.test]
    if args.metric is None:
        raise CLIError(f"--test {args.test} needs --metric NAME (see `mlci metrics`).")
    info = _metric_info(args.metric)
    if args.test == "permutation" and args.strata is not None:
        raise CLIError("--strata is not used by --test permutation (it swaps within samples).")
    if len(info.inputs) == 2 and args.label is None:
        raise CLIError(f"metric {info.name!r} needs the true labels: --label COL.")
    if args.plot:
        require_plotting(args)
    wanted: dict[str, tuple[str, str, str]] = {}
    if len(info.inputs) == 2:
        wanted["y_true"] = ("--label", args.label, _KINDS[info.inputs[0]])
    keys = {name: f"system_{i}" for i, name in enumerate(names)}
    for name, key in keys.items():
        wanted[key] = (option if not long else "--output-column", name, _KINDS[info.inputs[-1]])
    for key, opt, col in (
        ("conditions", "--condition", args.condition),
        ("strata", "--strata", args.strata),
    ):
        if col is not None:
            wanted[key] = (opt, col, _KINDS[key])
    if args.weight is not None:
        if args.test != "bootstrap" or long:
            raise CLIError(
                "--weight needs --test bootstrap and a wide table (--systems): the other tests "
                "count unweighted samples, and a long table has no per-sample column."
            )
        if weight_argument(info.name) != "sample_weight":
            raise CLIError(f"--weight: {info.name} takes its weights as --label.")
        wanted["sample_weight"] = ("--weight", args.weight, "numbers")
    if args.frequency_weight is not None and (args.test != "bootstrap" or long):
        raise CLIError(
            "--frequency-weight needs --test bootstrap and a wide table (--systems): the other "
            "tests read unweighted rows, and a long table has no per-sample column."
        )
    frequency_weight_column(args, wanted, clash="sample_weight" in wanted)
    arrays, n_dropped, spelled = read_columns(table, source, wanted, dropna=args.dropna)
    as_frequency_weights(args, arrays)
    sys_opt = "--systems" if not long else "--output-column"
    spelled.update(y_pred=sys_opt, y_score=sys_opt, y_pred_a=sys_opt, y_pred_b=sys_opt)
    spelled.update(y_score_a=sys_opt, y_score_b=sys_opt)
    y_true = arrays.get("y_true")
    for key in keys.values():
        _check_labels(info, y_true, arrays[key], {**spelled, "y_pred": spelled[key]})
    systems = {name: arrays[key] for name, key in keys.items()}
    pos_label = parse_like(args.pos_label, y_true) if args.pos_label is not None else None
    seed = _seed(args)
    head = f"{source}: {len(next(iter(systems.values())))} samples{_dropped_note(args, n_dropped)}"
    if args.test == "bootstrap":
        out, res = _bootstrap(
            args, info, y_true, systems, arrays, spelled, seed, pos_label, head, n_dropped
        )
    else:
        out, res = _pairwise(
            args, info, y_true, systems, arrays, spelled, seed, pos_label, head, n_dropped
        )
    if args.plot:
        plotting = require_plotting(args)
        ax = plotting.plot_differences(res.rows_ if isinstance(res, _Pairwise) else res)
        save_figure(ax.figure, args.plot)
    return emit(out, args)


def _bootstrap(args, info, y_true, systems, arrays, spelled, seed, pos_label, head, n_dropped):
    with catching() as caught:
        res = _call_api(
            spelled,
            compare,
            y_true,
            systems,
            metric=info.name,
            conditions=arrays.get("conditions"),
            strata=arrays.get("strata"),
            reference=args.reference,
            n_resamples=1000 if args.n_resamples is None else args.n_resamples,
            confidence_level=args.confidence_level,
            method=args.method,
            alternative=args.alternative,
            correction=args.correction,
            rng=seed,
            pos_label=pos_label,
            average=args.average or "default",
            sample_weight=arrays.get("sample_weight"),
            margin=args.margin,
        )
    relay_warnings(caught, spelled, args)
    level = f"{res.confidence_level * 100:.10g}%"
    side = "" if args.alternative == "two-sided" else f" {args.alternative}"
    out = Output(
        [
            f"{head}; {info.name}; {level}{side} intervals from {res.n_resamples} paired "
            f"resamples ({res.scheme}); seed {seed}"
        ]
    )
    ranks = {r.system: r.rank for r in res.ranking} if res.ranking else {}
    # every row names its interval's method (a system's is bootstrap_ci's; under auto a
    # difference's may differ from its systems': t, tango, bca...)
    t = OutTable("systems", ["system", "estimate", "low", "high", "method", "rank"])
    for name, r in res.systems.items():
        low, high = r.confidence_interval
        t.rows.append([name, r.estimate, low, high, r.method, ranks.get(name)])
    d = OutTable(
        "differences",
        ["difference", "estimate", "low", "high", "method", "p", f"p ({res.correction})", ""],
    )
    for diff in res.differences:
        low, high = diff.confidence_interval
        d.rows.append(
            [
                f"{diff.a} - {diff.b}",
                diff.estimate,
                low,
                high,
                diff.method,
                _p(diff.pvalue),
                _p(diff.pvalue_adjusted),
                "*" if diff.significant else "",
            ]
        )
    out.tables += [t, d]
    out.footer.append(
        f"p-values: {res.pvalue_method}; * = significant at {1 - res.confidence_level:g}"
    )
    if args.margin is not None:
        tests = [diff.margin_test for diff in res.differences if diff.margin_test is not None]
        out.tables.append(margin_table(tests, res.confidence_level))
        out.footer.append(margin_footer(tests))
    data = _with_dropped(res.to_dict(), n_dropped)
    data.update(seed=seed, source=source_of(head), test="bootstrap")
    out.data = data
    return out, res


def source_of(head: str) -> str:
    return head.split(": ", 1)[0]


def _p(p: float) -> str:
    return f"{p:.4g}"


def _pairs(names: list[str], reference: str | None) -> list[tuple[str, str]]:
    if reference is not None:
        return [(reference, n) for n in names if n != reference]
    return list(itertools.combinations(names, 2))


class _Pairwise:
    """The pairwise tests' results, shaped for :func:`mlci.plotting.plot_differences`."""

    def __init__(self, rows: list[dict[str, Any]], confidence_level: float, correction: str):
        self.rows_ = rows
        self.confidence_level = confidence_level
        self.correction = correction


def _pairwise(args, info, y_true, systems, arrays, spelled, seed, pos_label, head, n_dropped):
    names = list(systems)
    pairs = _pairs(names, args.reference)
    results = []
    sys_rows = []
    margins: list[Any] = []
    with catching() as caught:
        for name in names:
            if args.test == "delong":
                r = _call_api(
                    {**spelled, "y_score": f"--systems {name!r}"},
                    delong_ci,
                    y_true,
                    systems[name],
                    confidence_level=args.confidence_level,
                    pos_label=pos_label,
                )
                sys_rows.append([name, r.estimate, *r.confidence_interval, "delong"])
            elif args.test == "mcnemar":
                k = int(np.sum(y_true == systems[name]))
                r = proportion_ci(
                    k, len(y_true), method="wilson", confidence_level=args.confidence_level
                )
                sys_rows.append([name, r.estimate, *r.confidence_interval, "wilson"])
        for a, b in pairs:
            if args.test == "delong":
                r = _call_api(
                    spelled,
                    delong_test,
                    y_true,
                    systems[a],
                    systems[b],
                    confidence_level=args.confidence_level,
                    alternative=args.alternative,
                    pos_label=pos_label,
                )
            elif args.test == "mcnemar":
                r = _call_api(
                    spelled,
                    mcnemar_test,
                    y_true=y_true,
                    y_pred_a=systems[a],
                    y_pred_b=systems[b],
                    variant=args.variant or "mid-p",
                    alternative=args.alternative,
                )
                table = paired_table(systems[a] == y_true, systems[b] == y_true)
                ci = paired_proportion_diff_ci(
                    table,
                    method="tango",
                    confidence_level=args.confidence_level,
                    alternative=args.alternative,
                ).confidence_interval
                r = dataclasses.replace(
                    r,
                    confidence_interval=ConfidenceInterval(*ci),
                    confidence_level=args.confidence_level,
                    details={**r.details, "interval": "Tango (1998) score interval"},
                )
                if args.margin is not None:
                    mt = _call_api(
                        spelled,
                        mcnemar_margin_test,
                        table,
                        margin=args.margin,
                        variant="exact" if args.variant == "exact" else "score",
                        confidence_level=args.confidence_level,
                    )
                    margins.append(
                        dataclasses.replace(
                            mt, a=a, b=b, hypotheses=hypotheses(a, b, mt.margin, True)
                        )
                    )
            else:
                r = _call_api(
                    spelled,
                    permutation_test,
                    y_true,
                    systems[a],
                    systems[b],
                    metric=info.name,
                    conditions=arrays.get("conditions"),
                    n_resamples=9999 if args.n_resamples is None else args.n_resamples,
                    alternative=args.alternative,
                    rng=seed,
                    pos_label=pos_label,
                    average=args.average or "default",
                )
            results.append((a, b, r))
    relay_warnings(caught, spelled, args)
    pvals = np.array([r.pvalue for _, _, r in results])
    adjusted = adjust_pvalues(pvals, correction=args.correction) if len(pvals) > 1 else pvals
    alpha = 1 - args.confidence_level
    method = results[0][2].method
    side = "" if args.alternative == "two-sided" else f", {args.alternative}"
    how = {
        "delong": f"DeLong's paired test{side}",
        "mcnemar": f"McNemar's test ({args.variant or 'mid-p'}{side})",
        "permutation": f"paired permutation test, {results[0][2].details.get('n_resamples')} "
        f"permutations{side}; seed {seed}",
    }[args.test]
    out = Output([f"{head}; {info.name}; {how}"])
    if sys_rows:
        out.tables.append(
            OutTable("systems", ["system", info.name, "low", "high", "method"], sys_rows)
        )
    d = OutTable(
        "differences",
        ["difference", "estimate", "low", "high", "statistic", "p", f"p ({args.correction})", ""],
    )
    data_pairs = []
    rows = []
    for (a, b, r), p_adj in zip(results, adjusted, strict=True):
        ci = r.confidence_interval
        low, high = (ci.low, ci.high) if ci is not None else (None, None)
        sig = bool(p_adj < alpha)
        d.rows.append(
            [
                f"{a} - {b}",
                r.estimate,
                low,
                high,
                r.statistic,
                _p(r.pvalue),
                _p(float(p_adj)),
                "*" if sig else "",
            ]
        )
        rows.append(
            {
                "a": a,
                "b": b,
                "estimate": r.estimate,
                "low": low,
                "high": high,
                "pvalue_adjusted": float(p_adj),
                "significant": sig,
            }
        )
        data_pairs.append(
            {"a": a, "b": b, **r.to_dict(), "pvalue_adjusted": float(p_adj), "significant": sig}
        )
    out.tables.append(d)
    out.footer.append(
        f"p-values: {method}, adjusted by {args.correction}; * = significant at {alpha:g}"
    )
    if args.test == "mcnemar":
        out.footer.append("intervals of the differences: Tango's (1998) score interval")
    if margins:
        margins = _adjusted(margins, args.correction)
        out.tables.append(margin_table(margins, args.confidence_level))
        out.footer.append(margin_footer(margins))
    out.data = {
        "test": args.test,
        "metric": info.name,
        "correction": args.correction,
        "alternative": args.alternative,
        "systems": [
            dict(zip(["system", "estimate", "low", "high", "method"], r, strict=True))
            for r in sys_rows
        ],
        "differences": data_pairs,
        "n_dropped": n_dropped,
        "source": source_of(head),
        **({"seed": seed} if args.test == "permutation" else {}),
        **({"margin_tests": margin_data(margins)} if margins else {}),
    }
    return out, _Pairwise(rows, args.confidence_level, args.correction)


def _adjusted(tests: list[Any], correction: str) -> list[Any]:
    """The pairs' margin tests with their p-values adjusted by ``correction``."""
    if len(tests) < 2:
        return tests
    p_ni = adjust_pvalues([t.pvalue_noninferiority for t in tests], correction=correction)
    p_eq = adjust_pvalues([t.pvalue_equivalence for t in tests], correction=correction)
    alpha = 1.0 - tests[0].confidence_level
    return [
        dataclasses.replace(
            t,
            pvalue_noninferiority_adjusted=float(a),
            pvalue_equivalence_adjusted=float(e),
            noninferior=bool(a < alpha),
            equivalent=bool(e < alpha),
        )
        for t, a, e in zip(tests, p_ni, p_eq, strict=True)
    ]
