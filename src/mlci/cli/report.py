"""``mlci report``: one command, a finished report (self-contained HTML, or markdown).

    mlci report preds.csv --label y --score a,b,c [--condition speaker] -o report.html
    mlci report preds.csv --label y --pred a,b --format md -o report.md   # + report_files/

The analyses are those of :func:`mlci.report.build_report`; this module reads the
columns (through the same gate and messages as the other commands) and writes the file.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from ..report import build_report, file_sha256, render_html, render_markdown
from .common import (
    CLIError,
    _call_api,
    _seed,
    _split_list,
    add_input_arguments,
    add_resampling_arguments,
    catching,
    grouping_codes,
    load_input,
    parse_like,
    read_columns,
    relay_warnings,
)

__all__ = ["add_report"]


def add_report(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "report",
        help="write a finished evaluation report (self-contained HTML, or markdown)",
        description="One command, a report to hand over: the data, each system's metrics "
        "with intervals and a forest plot, pairwise differences with adjusted p-values, "
        "ROC curves with bands, calibration, per-group metrics, the method of every "
        "interval and how to reproduce the page. Needs Jinja2 and matplotlib "
        "(pip install '.[report]').",
        epilog="example: mlci report --example --label is_angry "
        "--score score_angry,score_happy --condition speaker -o report.html --seed 0",
    )
    add_input_arguments(p)
    g = p.add_argument_group("columns")
    g.add_argument("--label", metavar="COL", help="true labels")
    g.add_argument("--score", metavar="COL[,COL...]", help="each system's scores (binary labels)")
    g.add_argument("--pred", metavar="COL[,COL...]", help="each system's decisions")
    g.add_argument("--condition", metavar="COL", help="condition of each sample (speaker...)")
    g.add_argument("--group", metavar="COL", help="also report the metric per group")
    m = p.add_argument_group("intervals")
    m.add_argument("--pos-label", metavar="X", help="positive class (binary labels)")
    add_resampling_arguments(m, alternative=False)
    for action in m._group_actions:  # the report also takes DeLong's interval of the AUC
        if action.dest == "method" and action.choices is not None:
            action.choices = (*action.choices, "delong")
            action.help = f"{action.help}; delong: DeLong's AUC intervals and tests (--score)"
    o = p.add_argument_group("output")
    o.add_argument("-o", "--output", metavar="FILE", required=True, help="the report file")
    o.add_argument(
        "--format",
        default="html",
        choices=("html", "md"),
        help="html (default: one self-contained page) or md (markdown; its PNG figures go "
        "into FILE's folder, in <name>_files/)",
    )
    o.add_argument("-q", "--quiet", action="store_true", help="do not print where it was written")
    p.set_defaults(handler=run_report)
    return p


def run_report(args: argparse.Namespace) -> int:
    if args.example:
        args.label = args.label or "label"
        if args.score is None and args.pred is None:
            args.pred = "pred,pred_baseline"
    if args.label is None:
        raise CLIError("mlci report needs --label COL.")
    if (args.score is None) == (args.pred is None):
        raise CLIError(
            "give the systems as --score COL,... (scores) or --pred COL,... (decisions)."
        )
    option = "--score" if args.score is not None else "--pred"
    cols = _split_list(args.score if args.score is not None else args.pred)
    if not cols:
        raise CLIError(f"{option}: give at least one column name.")
    out = Path(args.output)
    if out.exists() and out.is_dir():
        raise CLIError(f"--output {args.output}: is a directory; give a file name.")
    if not out.parent.exists():
        raise CLIError(f"--output {args.output}: folder {out.parent} does not exist.")
    try:
        import jinja2  # noqa: F401
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise CLIError(
            f"mlci report needs Jinja2 and matplotlib ({exc.name} is missing): "
            "pip install jinja2 matplotlib (or pip install '.[report]' in mlci's repository)."
        ) from None
    # the conditions only group the rows: integer codes (as `mlci ci`); the groups
    # (--group) are reported by name, so they are read as they are
    groups = grouping_codes((args.condition,), (args.label, *cols, args.group))
    table, source = load_input(args, (args.label, *cols, args.condition, args.group), codes=groups)
    kind = "scores" if option == "--score" else "labels"
    wanted = {"y_true": ("--label", args.label, "labels")}
    for c in cols:
        wanted[f"system:{c}"] = (option, c, kind)
    for key, opt, col in (
        ("conditions", "--condition", args.condition),
        ("groups", "--group", args.group),
    ):
        if col is not None:
            wanted[key] = (opt, col, "groups")
    arrays, n_dropped, spelled = read_columns(table, source, wanted, dropna=args.dropna)
    y = arrays["y_true"]
    seed = _seed(args)
    pos_label = parse_like(args.pos_label, y) if args.pos_label is not None else None
    systems = {c: arrays[f"system:{c}"] for c in cols}
    names = {"condition": args.condition or "", "group": args.group or ""}
    command = "mlci " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:] else ""
    spelled = {**spelled, "y_score": option, "y_pred": option}
    with catching() as caught:
        context = _call_api(
            spelled,
            build_report,
            y,
            systems,
            kind="score" if option == "--score" else "pred",
            source=source,
            conditions=arrays.get("conditions"),
            groups=arrays.get("groups"),
            pos_label=pos_label,
            n_resamples=args.n_resamples,
            confidence_level=args.confidence_level,
            method=args.method,
            seed=seed,
            n_dropped=n_dropped,
            command=command or f"mlci report ... --seed {seed}",
            file_hash=file_sha256(table.path),
            names=names,
        )
    relay_warnings(caught, spelled, args)
    if args.format == "html":
        out.write_text(render_html(context), encoding="utf-8")
    else:
        folder = out.parent / f"{out.stem}_files"
        out.write_text(render_markdown(context, folder, f"{folder.name}/"), encoding="utf-8")
    if not args.quiet:
        print(f"mlci: wrote {out} (seed {seed})", file=sys.stderr)
    return 0
