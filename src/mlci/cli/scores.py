"""``mlci scores``: what a detection or verification system's scores say, with intervals.

From a label column and one or more score columns, every quantity of the score API with
a bootstrap interval (same options as ``mlci ci``): the AUC (:func:`mlci.auc_ci`), the
EER and its threshold (:func:`mlci.eer_ci`), the minimum detection cost at
``--p-target`` (:func:`mlci.dcf_ci`), for log-likelihood-ratio scores (``--llr``) Cllr,
min Cllr and the actual DCF at the Bayes threshold (:func:`mlci.cllr_ci`), the error
rates at fixed thresholds (``--threshold``), the operating points and thresholds at fixed
rates (``--at-fpr``, ``--at-fnr``: :func:`mlci.operating_point_ci`) and, with
``--group``, a metric per group (:func:`mlci.metric_by_group`).  ``--plot FILE`` draws
the ``--curve`` (roc, det or pr) of every score column with its band.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any

from ..scores.curves import auc_ci, det_curve, operating_point_ci, pr_curve, roc_band, roc_curve
from ..scores.decisions import optimal_threshold_ci
from ..scores.groups import metric_by_group
from ..scores.scores import Scores
from ..scores.verification import cllr_ci, dcf_ci, eer_ci
from .common import (
    CLIError,
    Output,
    OutTable,
    _call_api,
    _dropped_note,
    _positive_float,
    _seed,
    _split_list,
    add_frequency_weight,
    add_input_arguments,
    add_output_arguments,
    add_resampling_arguments,
    as_frequency_weights,
    catching,
    emit,
    frequency_weight_column,
    grouping_codes,
    load_input,
    parse_like,
    read_columns,
    relay_warnings,
    require_plotting,
    save_figure,
)

__all__ = ["CURVES", "add_scores"]

#: ``--curve``
CURVES = ("roc", "det", "pr")


def _rates(option: str) -> Any:
    """A comma-separated list of rates in (0, 1) (``--at-fpr 0.01,0.05``)."""

    def parse(text: str) -> list[float]:
        out = []
        for t in _split_list(text):
            try:
                v = float(t)
            except ValueError:
                raise argparse.ArgumentTypeError(f"invalid number: {t!r}") from None
            if not 0 < v < 1:
                raise argparse.ArgumentTypeError(
                    f"a rate must be strictly between 0 and 1; got {t}"
                )
            out.append(v)
        if not out:
            raise argparse.ArgumentTypeError("give at least one rate")
        return out

    parse.__name__ = option
    return parse


def _numbers(text: str) -> list[float]:
    out = []
    for t in _split_list(text):
        try:
            v = float(t)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid number: {t!r}") from None
        if not math.isfinite(v):
            raise argparse.ArgumentTypeError(f"a threshold must be finite; got {t}")
        out.append(v)
    if not out:
        raise argparse.ArgumentTypeError("give at least one threshold")
    return out


def _probability(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {text!r}") from None
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1; got {text}")
    return v


def add_scores(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "scores",
        help="detection scores: AUC, EER, DCF, Cllr, rates at thresholds, per-group metrics",
        description="Bootstrap intervals for what a score column says about a binary "
        "detection task: AUC, EER and its threshold, min DCF (--p-target), Cllr (--llr), "
        "rates at thresholds and thresholds at rates, per-group metrics (--group).",
        epilog="example: mlci scores --example --label is_angry --score score_angry "
        "--p-target 0.01 --at-fpr 0.05 --condition speaker --seed 0",
    )
    add_input_arguments(p)
    g = p.add_argument_group("columns")
    g.add_argument("--label", metavar="COL", help="true labels (binary)")
    g.add_argument(
        "--score",
        metavar="COL[,COL...]",
        help="scores, higher = more positive; several columns give a block each",
    )
    g.add_argument("--condition", metavar="COL", help="condition of each sample (speaker...)")
    g.add_argument("--strata", metavar="COL", help="resample within each stratum")
    g.add_argument("--group", metavar="COL", help="also report --group-metric for every group")
    g.add_argument(
        "--weight", metavar="COL", help="per-sample weights (sample_weight; also of --group)"
    )
    add_frequency_weight(g)
    q = p.add_argument_group("what to report")
    q.add_argument(
        "--p-target",
        type=_probability,
        metavar="P",
        help="prior of a target: report the minimum detection cost (and the actual one with --llr)",
    )
    q.add_argument(
        "--c-miss",
        type=_positive_float,
        default=1.0,
        metavar="C",
        help="cost of a miss (default 1)",
    )
    q.add_argument(
        "--c-fa",
        type=_positive_float,
        default=1.0,
        metavar="C",
        help="cost of a false alarm (default 1)",
    )
    q.add_argument(
        "--llr",
        action="store_true",
        help="the scores are log-likelihood ratios: also report Cllr, min Cllr and the "
        "actual DCF at the Bayes threshold",
    )
    q.add_argument(
        "--threshold",
        type=_numbers,
        metavar="T[,T...]",
        help="report FPR and FNR at these thresholds",
    )
    q.add_argument(
        "--at-fpr",
        type=_rates("--at-fpr"),
        metavar="R[,R...]",
        help="report FNR and the threshold at these FPRs",
    )
    q.add_argument(
        "--at-fnr",
        type=_rates("--at-fnr"),
        metavar="R[,R...]",
        help="report FPR and the threshold at these FNRs",
    )
    q.add_argument(
        "--max-fpr",
        type=_rates("--max-fpr"),
        metavar="F[,F...]",
        help="report the partial AUC over FPR in [0, F] (pROC's partial.auc, uncorrected)",
    )
    q.add_argument(
        "--youden",
        action="store_true",
        help="report the Youden-optimal threshold and J with percentile intervals "
        "(independent samples)",
    )
    q.add_argument(
        "--group-metric",
        default="auc",
        metavar="NAME",
        help="metric of each --group: auc (default), eer, or a rate (fnr, fpr, ...) at "
        "the first --threshold",
    )
    q.add_argument(
        "--curve", choices=CURVES, default="roc", help="the curve drawn by --plot (default roc)"
    )
    m = p.add_argument_group("interval")
    m.add_argument("--pos-label", metavar="X", help="positive class (default 1 / True)")
    add_resampling_arguments(m)
    add_output_arguments(p, plot="the --curve of every score column with its band")
    p.set_defaults(handler=run_scores)
    return p


def run_scores(args: argparse.Namespace) -> int:
    if args.example:
        args.label = args.label or "is_angry"
        args.score = args.score or "score_angry"
    used = (
        args.label,
        args.score,
        args.condition,
        args.strata,
        args.group,
        args.weight,
        args.frequency_weight,
    )
    # conditions and strata only group the rows: integer codes (as `mlci ci`); the
    # groups (--group) are reported by name, so they are read as they are
    coded = grouping_codes(
        (args.condition, args.strata),
        (args.label, args.score, args.group, args.weight, args.frequency_weight),
    )
    table, source = load_input(args, used, codes=coded)
    if args.label is None or args.score is None:
        raise CLIError("mlci scores needs --label COL and --score COL.")
    cols = _split_list(args.score)
    if not cols:
        raise CLIError("--score: give at least one column name.")
    if args.plot:
        require_plotting(args)
    wanted: dict[str, tuple[str, str, str]] = {"y_true": ("--label", args.label, "labels")}
    for c in cols:
        wanted[f"score:{c}"] = ("--score", c, "scores")
    for key, opt, col in (
        ("conditions", "--condition", args.condition),
        ("strata", "--strata", args.strata),
        ("groups", "--group", args.group),
    ):
        if col is not None:
            wanted[key] = (opt, col, "groups")
    if args.weight is not None:
        wanted["sample_weight"] = ("--weight", args.weight, "numbers")
    frequency_weight_column(args, wanted, clash=args.weight is not None)
    arrays, n_dropped, spelled = read_columns(table, source, wanted, dropna=args.dropna)
    as_frequency_weights(args, arrays)
    y = arrays["y_true"]
    pos_label = parse_like(args.pos_label, y) if args.pos_label is not None else None
    seed = _seed(args)
    boot = dict(
        n_resamples=args.n_resamples,
        confidence_level=args.confidence_level,
        method=args.method,
        alternative=args.alternative,
        rng=seed,
        conditions=arrays.get("conditions"),
        strata=arrays.get("strata"),
    )
    several = len(cols) > 1
    head = [*(["score"] if several else []), "quantity", "at", "estimate", "low", "high", "method"]
    main = OutTable("scores", head)
    groups = OutTable(
        "groups", [*(["score"] if several else []), "group", args.group_metric, "low", "high"]
    )
    data: dict[str, Any] = {"source": source, "seed": seed, "n_dropped": n_dropped, "scores": {}}
    curves = []
    n_samples = len(y)
    for c in cols:
        names = {**spelled, "y_score": spelled[f"score:{c}"], "scores": spelled[f"score:{c}"]}
        s = _call_api(
            names,
            Scores.from_labels,
            y,
            arrays[f"score:{c}"],
            pos_label=pos_label,
            sample_weight=arrays.get("sample_weight"),
        )
        rows: list[list[Any]] = []
        found: list[dict[str, Any]] = []

        def add(
            quantity: str,
            at: str,
            res: Any,
            rows: list[list[Any]] = rows,
            found: list[dict[str, Any]] = found,
        ) -> None:
            low, high = res.confidence_interval
            rows.append([quantity, at, res.estimate, low, high, res.method])
            found.append({"quantity": quantity, "at": at, **res.to_dict()})

        with catching() as caught:
            add("auc", "", _call_api(names, auc_ci, s, **boot))
            eer = _call_api(names, eer_ci, s, **boot)
            add("eer", "", eer.eer)
            add("eer threshold", "", eer.threshold)
            if args.p_target is not None:
                cost = dict(c_miss=args.c_miss, c_fa=args.c_fa)
                at = f"p_target={args.p_target:g}"
                add(
                    "min dcf",
                    at,
                    _call_api(names, dcf_ci, s, args.p_target, kind="min", **cost, **boot),
                )
                if args.llr:
                    add(
                        "actual dcf",
                        at,
                        _call_api(names, dcf_ci, s, args.p_target, kind="actual", **cost, **boot),
                    )
            if args.llr:
                add("cllr", "", _call_api(names, cllr_ci, s, **boot))
                add("min cllr", "", _call_api(names, cllr_ci, s, kind="min", **boot))
            for t in args.threshold or []:
                for rate in ("fpr", "fnr"):
                    add(
                        rate,
                        f"threshold={t:g}",
                        _call_api(names, s.bootstrap_ci, rate, threshold=t, **boot),
                    )
            for f in args.max_fpr or []:
                add("partial auc", f"max_fpr={f:g}", _call_api(names, auc_ci, s, max_fpr=f, **boot))
            if args.youden:
                if args.condition is not None or args.strata is not None:
                    raise CLIError(
                        "--youden resamples the samples independently (positives and "
                        "negatives apart); it cannot use --condition or --strata."
                    )
                opt = _call_api(
                    names,
                    optimal_threshold_ci,
                    s,
                    n_resamples=args.n_resamples,
                    confidence_level=args.confidence_level,
                    rng=seed,
                )
                for q_name, est, ci in (
                    ("youden threshold", opt.threshold, opt.threshold_interval),
                    ("youden J", opt.value, opt.value_interval),
                ):
                    rows.append([q_name, "", est, ci.low, ci.high, opt.method])
                found.append({"quantity": "youden", **opt.to_dict()})
            for x, other in (("fpr", "fnr"), ("fnr", "fpr")):
                for r in getattr(args, f"at_{x}") or []:
                    value, thr = _call_api(names, operating_point_ci, s, other, at=r, x=x, **boot)
                    add(other, f"{x}={r:g}", value)
                    add("threshold", f"{x}={r:g}", thr)
            if args.group is not None:
                gm = args.group_metric
                extra: dict[str, Any] = {}
                if gm not in ("auc", "eer", "eer_threshold"):
                    if not args.threshold:
                        raise CLIError(
                            f"--group-metric {gm} is a rate at a threshold: give --threshold T."
                        )
                    extra["threshold"] = args.threshold[0]
                try:
                    g = _call_api(
                        {**names, "groups": spelled["groups"], "metric": "--group-metric"},
                        metric_by_group,
                        y,
                        arrays[f"score:{c}"],
                        groups=arrays["groups"],
                        metric=gm,
                        pos_label=pos_label,
                        sample_weight=arrays.get("sample_weight"),
                        **extra,
                        **boot,
                    )
                except CLIError as exc:
                    raise CLIError(f"--group-metric {gm}: {exc}") from None
                g = g.to_frame()  # a GroupResult: its table (pandas is required)
                for row in g.to_dict("records"):
                    groups.rows.append(
                        [
                            *([c] if several else []),
                            str(row[g.columns[0]]),
                            row["estimate"],
                            row["low"],
                            row["high"],
                        ]
                    )
                data.setdefault("groups", {})[c] = g.to_dict("records")
        relay_warnings(caught, names, args, prefix=f"{c}: " if several else "")
        main.rows += [[*([c] if several else []), *r] for r in rows]
        data["scores"][c] = found
        if args.plot:
            curves.append((c, s))
    level = f"{args.confidence_level * 100:.10g}%"
    out = Output(
        [
            f"{source}: {n_samples} samples{_dropped_note(args, n_dropped)}; {level} intervals "
            f"from {args.n_resamples} resamples ({args.method}); seed {seed}"
        ],
        [main, *([groups] if groups.rows else [])],
        data=data,
    )
    if args.plot:
        _plot(curves, args, seed)
    return emit(out, args)


def _plot(curves: list[tuple[str, Scores]], args: argparse.Namespace, seed: int) -> None:
    plotting = require_plotting(args)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 5))
    draw: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
        "roc": (roc_curve, plotting.plot_roc),
        "det": (det_curve, plotting.plot_det),
        "pr": (pr_curve, plotting.plot_pr),
    }
    curve_of, plot = draw[args.curve]
    for name, s in curves:
        band = None
        if args.curve in ("roc", "det"):
            band = roc_band(
                s,
                plotting.det_grid() if args.curve == "det" else None,
                n_resamples=min(args.n_resamples, 1000),
                confidence_level=args.confidence_level,
                rng=seed,
            )
        plot(curve_of(s), band, ax=ax, label=name)
    ax.legend(loc="best")
    save_figure(fig, args.plot)
