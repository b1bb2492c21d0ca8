"""``mlci ci``: confidence intervals for metrics of one or more columns of a predictions file.

One row per column x metric: ``--pred a,b --metric accuracy,f1`` gives four rows.  The
interval is a bootstrap (every method of :data:`mlci.inputs.INTERVAL_METHODS`, through
:func:`mlci.bootstrap_ci`) or, with ``--method wilson|clopper-pearson|...``, an analytic
interval of a proportion (:func:`mlci.proportion_ci`) or of the AUC (``delong``,
``hanley-mcneil``).  A metric undefined on the data marks its row (``undefined``, the
reason in a footnote and on stderr) and keeps the others; if every row is undefined the
command fails with the first reason.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

from ..backends.command import CLI_ENGINES, ci_engine
from ..backends.command import run_ci as run_ci_reduced
from ..classical.auc import delong_ci, hanley_mcneil_ci
from ..classical.proportions import PROPORTION_METHODS, proportion_ci
from ..data import example_path
from ..engine.bootstrap import bootstrap_ci
from ..inputs import INTERVAL_METHODS, Resampling, positive_label
from ..metrics import METRICS, weight_argument
from ..results import METHODS_WITHOUT_REPLICATES
from .common import (
    _KINDS,
    DEFAULT_METHOD,
    OPTIONS,
    CLIError,
    Output,
    OutTable,
    _call_api,
    _check_labels,
    _dest,
    _dropped_note,
    _metric_info,
    _positive_float,
    _seed,
    _split_list,
    _with_dropped,
    add_frequency_weight,
    add_input_arguments,
    add_output_arguments,
    add_resampling_arguments,
    as_frequency_weights,
    catching,
    cli_message,
    emit,
    frequency_weight_column,
    grouping_codes,
    load_input,
    output_format,
    parse_like,
    read_columns,
    relay_warnings,
    require_plotting,
    save_figure,
)

__all__ = ["ANALYTIC_METHODS", "METHODS", "add_ci"]

#: analytic intervals of a proportion: command-line name -> proportion_ci's method
# "wilson" is also an engine method (on the effective sample size with --condition): the
# engine's, which for independent samples is the analytic interval exactly
PROPORTION_CLI = {m.replace("_", "-"): m for m in PROPORTION_METHODS if m not in INTERVAL_METHODS}
#: analytic intervals of the AUC: command-line name -> function
AUC_CLI = {"delong": delong_ci, "hanley-mcneil": hanley_mcneil_ci}
#: every analytic interval of ``--method``
ANALYTIC_METHODS = (*PROPORTION_CLI, *AUC_CLI)
#: every ``--method`` (the bootstrap methods follow :data:`mlci.inputs.INTERVAL_METHODS`)
METHODS = (*INTERVAL_METHODS, *ANALYTIC_METHODS)

#: proportion metrics: name -> (numerator, denominator) counts (MetricInfo.proportion);
#: accuracy and error_rate take any labels (the booleans are "correct")
_RATES = {name: info.proportion for name, info in METRICS.items() if info.proportion}
#: the per-sample column option that each metric runs over (one row per column)
_OUTPUT_OF = {"y_pred": "--pred", "y_score": "--score", "values": "--value"}


def method_name(text: str) -> str:
    """``--method``: case and ``_``/``-`` of the analytic names do not matter."""
    t = text.strip().lower()
    return t.replace("_", "-") if t.replace("_", "-") in ANALYTIC_METHODS else t


def add_ci(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "ci",
        help="confidence intervals for one or more metrics of one or more columns",
        description="Confidence intervals for metrics of a predictions table: one output row "
        "per column x metric. Bootstrap intervals by default; analytic ones with --method "
        f"({', '.join(ANALYTIC_METHODS)}).",
        epilog="example: mlci ci --example --label label --pred pred,pred_baseline "
        "--condition speaker --metric accuracy,f1 --average macro --seed 0",
    )
    add_input_arguments(p)
    g = p.add_argument_group("columns")
    g.add_argument("--label", metavar="COL", help="true labels (y_true)")
    g.add_argument(
        "--pred",
        metavar="COL[,COL...]",
        help="decisions (y_pred) for accuracy, f1, mcc, ...; several columns give a row each",
    )
    g.add_argument(
        "--score",
        metavar="COL[,COL...]",
        help="scores (y_score) for roc_auc, average_precision, ...; a row per column",
    )
    g.add_argument(
        "--value",
        metavar="COL[,COL...]",
        help="per-sample values for mean, weighted_mean; a row per column",
    )
    g.add_argument(
        "--weight",
        metavar="COL",
        help="per-sample weights: the weights of weighted_mean, else every metric's "
        "sample_weight (scikit-learn's; bootstrap methods only)",
    )
    add_frequency_weight(g)
    g.add_argument(
        "--condition",
        metavar="COL",
        help="condition of each sample (speaker, session...): samples that share one are "
        "resampled together",
    )
    g.add_argument("--strata", metavar="COL", help="resample within each stratum, keeping its size")
    m = p.add_argument_group("metrics and interval")
    m.add_argument(
        "--metric",
        required=True,
        metavar="NAME[,NAME...]",
        help="built-in metric name(s), comma-separated (see `mlci metrics`)",
    )
    m.add_argument(
        "--method",
        default=DEFAULT_METHOD,
        type=method_name,
        choices=METHODS,
        help=f"bootstrap: {', '.join(INTERVAL_METHODS)} (default {DEFAULT_METHOD}); "
        f"analytic, without resampling: {', '.join(PROPORTION_CLI)} (accuracy, error_rate "
        "and binary rates), delong, hanley-mcneil (roc_auc)",
    )
    add_resampling_arguments(m, method=False)
    m.add_argument(
        "--two-stage",
        action="store_true",
        help="with --condition: also resample the samples inside every drawn condition",
    )
    m.add_argument("--pos-label", metavar="X", help="positive class of binary metrics")
    m.add_argument(
        "--average",
        choices=("binary", "macro", "micro", "weighted"),
        help="multiclass averaging of precision, recall, f1, ... (as scikit-learn)",
    )
    m.add_argument("--beta", type=_positive_float, metavar="B", help="beta of fbeta (> 0)")
    m.add_argument(
        "--kappa-weights",
        choices=("linear", "quadratic"),
        help="disagreement weights of cohen_kappa (default: unweighted)",
    )
    m.add_argument(
        "--engine",
        choices=CLI_ENGINES,
        help="read FILE into memory, or reduce it inside DuckDB (bounded memory; for files "
        "larger than memory). Default: duckdb for a glob ('preds/*.parquet') or a file "
        "over 256 MiB, memory otherwise",
    )
    m.add_argument(
        "--score-bins",
        type=_score_bins,
        metavar="K",
        help="--engine duckdb, roc_auc and average_precision: quantise the scores into at most "
        "K bins (default 16384; fewer with many conditions); the error bound is reported",
    )
    add_output_arguments(p, plot="a forest plot of the intervals")
    p.set_defaults(handler=run_ci)
    return p


def _score_bins(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 2; got {text!r}") from None
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be an integer >= 2; got {text!r}")
    return value


def _columns_of(info: Any, args: argparse.Namespace) -> list[str]:
    """The columns a metric runs over (one row each): its last input's option."""
    absent = [f"{OPTIONS[i]} COL" for i in info.inputs if getattr(args, _dest(OPTIONS[i])) is None]
    if absent:
        need = ", ".join(f"{i} ({OPTIONS[i]})" for i in info.inputs)
        raise CLIError(f"metric {info.name!r} needs {need}; missing: {', '.join(absent)}.")
    option = OPTIONS[info.inputs[-1]]
    cols = _split_list(getattr(args, _dest(option)))
    if not cols:
        raise CLIError(f"{option}: give at least one column name.")
    return cols


def _grouping_columns(args: argparse.Namespace) -> dict[str, tuple[str, str, str]]:
    return {
        key: (OPTIONS[key], getattr(args, _dest(OPTIONS[key])), _KINDS[key])
        for key in ("conditions", "strata")
        if getattr(args, _dest(OPTIONS[key])) is not None
    }


def _check_analytic(args: argparse.Namespace, infos: list[Any]) -> None:
    if args.method not in ANALYTIC_METHODS:
        return
    if args.condition or args.strata or args.two_stage:
        given = "--condition" if args.condition else "--strata" if args.strata else "--two-stage"
        raise CLIError(
            f"--method {args.method} assumes independent samples and cannot use {given}; "
            f"use a bootstrap method ({', '.join(INTERVAL_METHODS)}) with {given}."
        )
    for info in infos:
        if args.method in AUC_CLI and info.name != "roc_auc":
            raise CLIError(
                f"--method {args.method} is an interval for roc_auc only; --metric "
                f"{info.name} needs a bootstrap method ({', '.join(INTERVAL_METHODS)})."
            )
        if args.method in PROPORTION_CLI and info.name not in ("accuracy", "error_rate", *_RATES):
            raise CLIError(
                f"--method {args.method} is an interval for a proportion (accuracy, "
                f"error_rate, {', '.join(_RATES)}); --metric {info.name} needs a bootstrap "
                f"method ({', '.join(INTERVAL_METHODS)})."
            )
        if (
            args.method in PROPORTION_CLI
            and info.name in _RATES
            and args.average
            not in (
                None,
                "binary",
            )
        ):
            raise CLIError(
                f"--method {args.method} gives the interval of a binary rate; with "
                f"--average {args.average} use a bootstrap method."
            )


def _proportion(info: Any, y_true: Any, y_pred: Any, pos_label: Any, args: Any) -> Any:
    """k of n for a proportion metric, then proportion_ci."""
    if info.name in ("accuracy", "error_rate"):
        correct = y_true == y_pred
        k = int(correct.sum()) if info.name == "accuracy" else int((~correct).sum())
        n = int(correct.size)
    else:
        pos = positive_label(np.concatenate([np.unique(y_true), np.unique(y_pred)]), pos_label)
        classes = set(np.unique(y_true).tolist()) | set(np.unique(y_pred).tolist())
        if len(classes) > 2:
            raise CLIError(
                f"{info.name} with --method {args.method} needs binary labels; got "
                f"{len(classes)} classes (binarise, or use a bootstrap method with --average)."
            )
        t, d = y_true == pos, y_pred == pos
        counts = {
            "tp": int((t & d).sum()),
            "fn": int((t & ~d).sum()),
            "tn": int((~t & ~d).sum()),
            "fp": int((~t & d).sum()),
            "p": int(t.sum()),
            "n": int((~t).sum()),
            "pp": int(d.sum()),
            "pn": int((~d).sum()),
        }
        num, den = _RATES[info.name]
        k, n = counts[num], counts[den]
        if n == 0:
            raise CLIError(
                f"{info.name} is undefined: no {'predicted ' if len(den) == 2 else ''}"
                f"{'positive' if den[-1] == 'p' else 'negative'} sample."
            )
    return proportion_ci(
        k,
        n,
        method=PROPORTION_CLI[args.method],
        confidence_level=args.confidence_level,
        alternative=args.alternative,
        metric=info.name,
    )


def _one(
    info: Any,
    data: list[Any],
    arrays: dict[str, Any],
    options: dict[str, Any],
    seed: int,
    args: Any,
) -> Any:
    """One metric on one column: the analytic interval or the bootstrap."""
    if args.method in PROPORTION_CLI:
        return _proportion(info, data[0], data[1], options.get("pos_label"), args)
    if args.method in AUC_CLI:
        return AUC_CLI[args.method](
            data[0],
            data[1],
            confidence_level=args.confidence_level,
            alternative=args.alternative,
            pos_label=options.get("pos_label"),
        )
    return bootstrap_ci(
        *data,
        metric=info.name,
        conditions=arrays.get("conditions"),
        strata=arrays.get("strata"),
        n_resamples=args.n_resamples,
        confidence_level=args.confidence_level,
        method=args.method,
        alternative=args.alternative,
        rng=seed,
        resampling=Resampling(two_stage=args.two_stage),
        pos_label=options.get("pos_label"),
        average=options.get("average", "default"),
        metric_kwargs={k: options[k] for k in ("beta", "weights") if k in options},
        sample_weight=arrays.get("sample_weight")
        if weight_argument(info.name) == "sample_weight" or args.frequency_weight is not None
        else None,
    )


def run_ci(args: argparse.Namespace) -> int:
    if ci_engine(args.file, args.engine, args.example) != "memory":
        return _run_ci_reduced(args)
    if args.score_bins is not None:
        raise CLIError(
            "--score-bins quantises scores inside DuckDB: add --engine duckdb (in memory the "
            "scores are used as they are)."
        )
    if args.example:
        args.label = args.label or "label"
        args.pred = args.pred or "pred"
    data_cols = (args.label, args.pred, args.score, args.value, args.weight, args.frequency_weight)
    used = (*data_cols, args.condition, args.strata)
    # conditions and strata only group the rows: integer codes from the reader on (a text
    # column is never held as one string per row); not a column that is also data
    groups = grouping_codes((args.condition, args.strata), data_cols)
    table, source = load_input(args, used, codes=groups)
    names = _split_list(args.metric)
    if not names:
        raise CLIError("--metric: give at least one metric name (see `mlci metrics`).")
    infos = [_metric_info(n) for n in names]
    _check_analytic(args, infos)
    if args.plot:
        require_plotting(args)
    # (metric, column) pairs, and the file columns each needs
    jobs: list[tuple[Any, str]] = []
    wanted: dict[str, tuple[str, str, str]] = {}
    for info in infos:
        *fixed, output = info.inputs
        for i in fixed:
            wanted[i] = (OPTIONS[i], getattr(args, _dest(OPTIONS[i])), _KINDS[i])
        for col in _columns_of(info, args):
            wanted[f"{output}:{col}"] = (OPTIONS[output], col, _KINDS[output])
            jobs.append((info, col))
    if args.weight is not None and any(weight_argument(i.name) == "sample_weight" for i in infos):
        if args.method in ANALYTIC_METHODS:
            raise CLIError(
                f"--weight with --method {args.method}: the analytic intervals take unweighted "
                "counts; use a bootstrap method (bca, percentile, ...) for weighted samples."
            )
        wanted["sample_weight"] = ("--weight", args.weight, "numbers")
    if args.frequency_weight is not None and args.method in ANALYTIC_METHODS:
        raise CLIError(
            f"--frequency-weight with --method {args.method}: the analytic intervals read "
            "unweighted rows; use a bootstrap method (auto, bca, percentile, ...)."
        )
    frequency_weight_column(args, wanted, clash="sample_weight" in wanted)
    wanted.update(_grouping_columns(args))
    arrays, n_dropped, spelled = read_columns(table, source, wanted, dropna=args.dropna)
    as_frequency_weights(args, arrays)
    seed = _seed(args)
    several = len({col for _, col in jobs}) > 1
    done: list[tuple[Any, str, dict[str, Any], Any]] = []
    failed: list[tuple[Any, str, str]] = []
    for info, col in jobs:
        *fixed, output = info.inputs
        key = f"{output}:{col}"
        data = [arrays[i] for i in fixed] + [arrays[key]]
        spelled_here = {**spelled, output: spelled[key]}
        if info.name == "cohen_kappa":
            spelled_here["weights"] = "--kappa-weights"
        options: dict[str, Any] = {}
        if args.pos_label is not None and "pos_label" in info.options:
            options["pos_label"] = parse_like(args.pos_label, arrays.get("y_true"))
        if args.pos_label is not None and args.method in PROPORTION_CLI:
            options["pos_label"] = parse_like(args.pos_label, arrays.get("y_true"))
        if args.average is not None and "average" in info.options:
            options["average"] = args.average
        if args.beta is not None and "beta" in info.options:
            options["beta"] = args.beta
        if args.kappa_weights is not None and "weights" in info.options:
            options["weights"] = args.kappa_weights
        label = f"{info.name} ({col})" if several else info.name
        try:
            if args.method in PROPORTION_CLI:  # bootstrap_ci checks the pair itself
                _check_labels(info, arrays.get("y_true"), arrays.get(key), spelled_here)
            with catching() as caught:
                res = _call_api(spelled_here, _one, info, data, arrays, options, seed, args)
        except CLIError as exc:
            failed.append((info, col, str(exc)))
            continue
        relay_warnings(caught, spelled_here, args, prefix=f"{label}: ")
        done.append((info, col, options, res))
    if not done:
        raise CLIError(failed[0][2])
    for info, col, reason in failed:
        label = f"{info.name} ({col})" if several else info.name
        if not args.quiet:
            print(f"mlci: warning: {label}: undefined on these data: {reason}", file=sys.stderr)
    out = _output(done, failed, source, seed, args, n_dropped, several)
    if args.plot:
        _plot(done, args, several)
    return emit(out, args)


def _run_ci_reduced(args: argparse.Namespace) -> int:
    """``mlci ci`` through DuckDB (:func:`mlci.backends.command.run_ci`): the file is
    reduced to atom tables inside DuckDB and resampled here, in bounded memory."""
    if args.example and args.file:
        raise CLIError("give either FILE or --example, not both.")
    if args.example:
        args.file = str(example_path())
        args.label = args.label or "label"
        args.pred = args.pred or "pred"
    if not args.file:
        raise CLIError("no input: give a predictions FILE (CSV or Parquet), or --example.")
    if args.method in ANALYTIC_METHODS:
        raise CLIError(f"--method {args.method}: --engine duckdb computes bootstrap intervals.")
    names = _split_list(args.metric)
    if not names:
        raise CLIError("--metric: give at least one metric name (see `mlci metrics`).")
    infos = [_metric_info(n) for n in names]
    if args.frequency_weight is not None:
        raise CLIError(
            "--frequency-weight with --engine duckdb: the reduced tables count rows; use "
            "--engine memory for frequency weights."
        )
    if args.weight is not None and any(weight_argument(i.name) == "sample_weight" for i in infos):
        raise CLIError(
            "--weight (sample weights) with --engine duckdb: the reduced tables hold counts; "
            "use --engine memory for weighted samples."
        )
    column = {}
    for info in infos:
        cols = _columns_of(info, args)
        if len(cols) > 1:
            raise CLIError(
                f"{OPTIONS[info.inputs[-1]]}: --engine duckdb takes one column per run; "
                f"got {', '.join(cols)}."
            )
        column[info.name] = cols[0]
    seed = _seed(args)

    def columns(info: Any) -> dict[str, tuple[str, str, str]]:
        *fixed, output = info.inputs
        out = {i: (OPTIONS[i], getattr(args, _dest(OPTIONS[i])), _KINDS[i]) for i in fixed}
        out[output] = (OPTIONS[output], column[info.name], _KINDS[output])
        return {**out, **_grouping_columns(args)}

    def options(info: Any, table: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if args.pos_label is not None and "pos_label" in info.options:
            out["pos_label"] = parse_like(args.pos_label, table.table.get("y_true"))
        for key, value in (
            ("average", args.average),
            ("beta", args.beta),
            ("weights", args.kappa_weights),
        ):
            if value is not None and key in info.options:
                out[key] = value
        return out

    results, source, n_dropped, caught = _call_api(
        {},
        run_ci_reduced,
        args.file,
        infos,
        columns,
        options,
        dropna=args.dropna,
        two_stage=args.two_stage,
        score_bins=args.score_bins,
        bootstrap={
            "n_resamples": args.n_resamples,
            "confidence_level": args.confidence_level,
            "method": args.method,
            "alternative": args.alternative,
            "rng": seed,
        },
    )
    if not args.quiet:
        for msg in dict.fromkeys(cli_message(m) for m in caught):
            print(f"mlci: warning: {msg}", file=sys.stderr)
    by_name = {info.name: info for info in infos}
    done = [(by_name[name], column[name], opts, res) for name, opts, res in results]
    out = _output(done, [], source, seed, args, n_dropped, False)
    return emit(out, args)


def _label(name: str, options: dict[str, Any]) -> str:
    parts = [
        f"{k}={v:g}" if k == "beta" else f"pos={v}" if k == "pos_label" else str(v)
        for k, v in options.items()
    ]
    return f"{name} ({', '.join(parts)})" if parts else name


def _bound_cell(bound: float | None, args: argparse.Namespace) -> Any:
    """The binned AUC's bound as the table shows it: in significant digits where the
    table's fixed decimals would print it as 0 (2.4e-05 at 1e8 rows, not 0.0000);
    CSV and JSON keep the number."""
    digits = getattr(args, "digits", 4)
    if bound is None or output_format(args) in ("csv", "json") or bound >= 10.0 ** (1 - digits):
        return bound
    return f"{bound:.2g}"


def _output(
    done: list[Any],
    failed: list[Any],
    source: str,
    seed: int,
    args: argparse.Namespace,
    n_dropped: int,
    several: bool,
) -> Output:
    first = done[0][3]
    level = f"{first.confidence_level * 100:.10g}%"
    side = "" if args.alternative == "two-sided" else f" {args.alternative}"
    n = getattr(first, "n_samples", None)
    if n is None:
        n = first.details.get("n") or (
            first.details.get("n_positive", 0) + first.details.get("n_negative", 0)
        )
    if args.method in ANALYTIC_METHODS:
        how = f"{level}{side} intervals ({args.method}, analytic: no resampling)"
    else:
        how = (
            f"{level}{side} intervals from {first.n_resamples} resamples ({first.scheme}); "
            f"seed {seed}"
        )
    out = Output([f"{source}: {int(n)} samples{_dropped_note(args, n_dropped)}; {how}"])
    columns = [
        "metric",
        *(["column"] if several else []),
        "estimate",
        "low",
        "high",
        "method",
        "n",
        "conditions",
    ]
    binned = any("error_bound" in res.details for *_, res in done)
    if binned:  # binned ranking metrics (--engine duckdb): the certified bound, in view
        columns.insert(columns.index("method"), "bound")
    t = OutTable(None, columns)
    order = {
        (i.name, c): k
        for k, (i, c) in enumerate([(i, c) for i, c, *_ in done] + [(i, c) for i, c, _ in failed])
    }
    rows: list[tuple[int, list[Any]]] = []
    data = []
    json_out = output_format(args) == "json"
    for info, col, options, res in done:
        low, high = res.confidence_interval
        n_rows = getattr(res, "n_samples", None) or n
        n_cond = getattr(res, "n_conditions", None)
        rows.append(
            (
                order[(info.name, col)],
                [
                    _label(info.name, options)
                    + (" (debiased)" if res.details.get("estimator") == "debiased" else ""),
                    *([col] if several else []),
                    res.estimate,
                    low,
                    high,
                    *([_bound_cell(res.details.get("error_bound"), args)] if binned else []),
                    res.method,
                    int(n_rows),
                    n_cond,
                ],
            )
        )
        if "error_bound" in res.details:
            out.footer.append(
                f"{info.name}: scores binned into {res.details['score_bins']} bins; "
                f"|estimate - exact| <= {res.details['error_bound']:.2g} (bound), and the "
                "interval is widened by it on each side"
            )
        if json_out:  # (to_dict draws the replicates a t or Wilson interval did not read)
            d = _with_dropped(res.to_dict(), n_dropped)
            d["metric"] = info.name
            d["column"] = col
            if options:
                d["options"] = options
            if args.method not in ANALYTIC_METHODS:
                d["seed"] = seed
            d["source"] = source
            data.append(d)
        # (an interval that reads no replicate is not affected by undefined ones)
        n_bad: int = 0
        if res.method not in METHODS_WITHOUT_REPLICATES:
            n_bad = getattr(res, "n_invalid", 0)
        if n_bad:
            out.footer.append(f"{info.name}: {res.n_invalid} replicate(s) undefined and left out")
    for info, col, reason in failed:
        rows.append(
            (
                order[(info.name, col)],
                [
                    info.name,
                    *([col] if several else []),
                    None,
                    None,
                    None,
                    *([None] if binned else []),
                    "undefined",
                    None,
                    None,
                ],
            )
        )
        out.footer.append(f"{info.name}{f' ({col})' if several else ''}: undefined: {reason}")
        data.append({"metric": info.name, "column": col, "error": reason, "source": source})
    t.rows = [r for _, r in sorted(rows, key=lambda x: x[0])]
    out.tables.append(t)
    out.data = data
    return out


def _plot(done: list[Any], args: argparse.Namespace, several: bool) -> None:
    plotting = require_plotting(args)
    results = {
        (f"{info.name} ({col})" if several else info.name): res
        for info, col, _, res in done
        if np.ndim(res.estimate) == 0
    }
    if not results:
        raise CLIError("--plot: no scalar interval to draw (per-class results are not drawn).")
    ax = plotting.plot_forest(results)
    save_figure(ax.figure, args.plot)
