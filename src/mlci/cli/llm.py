"""The ``mlci llm`` subcommands: intervals and comparisons from evaluation logs.

::

    mlci llm ci runs/ --metric acc --condition subtask        # every model's score
    mlci llm compare runs/ --metric acc --condition subtask   # pairs, adjusted p, leaderboard
    mlci llm plan runs/ --models a,b --difference 0.02        # items needed for a power
    mlci llm compare --example --condition group --seed 0     # the bundled example log
    mlci llm ci killed.eval --partial                         # a run that did not finish

``add_llm(subparsers)`` adds the ``llm`` command to the ``mlci`` parser (mlci.cli lists it
in its ``COMMANDS``); each subcommand's handler raises :class:`LLMCLIError` (a
ValueError) with one line naming command-line options, never Python arguments.
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import sys
from typing import Any

from ..classical.corrections import CORRECTION_METHODS
from ..data import llm_example_path
from ..llm.compare import llm_compare
from ..llm.estimands import AGGREGATES, ESTIMANDS, ITEMS, REPEATS, llm_ci, methods
from ..llm.planning import llm_sample_size
from ..llm.readers import FORMATS, read_eval_logs
from ..results import strict_json

__all__ = ["LLMCLIError", "add_llm", "run_llm"]


class LLMCLIError(ValueError):
    """A user error of ``mlci llm``: its message names options (one line, exit status 2)."""


#: Python argument -> option of ``mlci llm``: the library's messages are spelled with these
LLM_OPTIONS = {
    "paths": "PATHS",
    "format": "--format",
    "metric": "--metric",
    "model": "--model",
    "filter": "--filter",
    "conditions": "--condition",
    "clusters": "--condition",
    "cluster": "--condition",
    "partial": "--partial",
    "estimand": "--estimand",
    "k": "--k",
    "repeats": "--repeats",
    "aggregate": "--aggregate",
    "items": "--items",
    "models": "--models",
    "method": "--method",
    "confidence_level": "--confidence-level",
    "alternative": "--alternative",
    "n_resamples": "--n-resamples",
    "rng": "--seed",
    "reference": "--reference",
    "correction": "--correction",
    "a": "--models",
    "b": "--models",
    "difference": "--difference",
    "power": "--power",
    "alpha": "--alpha",
    "log": "PATHS",
    "model_score": "--metric",
    "score": "the score column",
    "item": "the item column",
    "repeat": "the repeat column",
}
_NAMED = re.compile(r"`(\w+)=?`(?:=('[^']*'|\S+?))?(?=[\s,.;:)]|$)")


def option_message(message: str, names: dict[str, str] | None = None) -> str:
    """A library message on one line with its Python arguments spelled as options.

    Examples
    --------
    >>> option_message("`conditions`='zz' is not a column of the log.")
    "--condition 'zz' is not a column of the log."
    >>> option_message("choose one with `metric=` (--metric).")
    'choose one with --metric.'
    >>> option_message("read it with `partial=True` (--partial).")
    'read it with --partial.'
    """

    table = {**LLM_OPTIONS, **(names or {})}

    def spell(m: re.Match[str]) -> str:
        name, value = m.groups()
        opt = table.get(name, name)
        return opt if value is None else f"{opt} {value}"

    # `partial=True`: a flag, spelled as its option
    message = re.sub(r"`(\w+)=True`", lambda m: table.get(m.group(1), m.group(0)), message)
    text = " ".join(_NAMED.sub(spell, message).split())
    # "--metric (--metric)": a library message that already named the option
    return re.sub(r"(--[\w-]+) \(\1\)", r"\1", text)


def _reading(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="*", metavar="PATHS", help="log files or directories")
    p.add_argument("--example", action="store_true", help="the bundled example log")
    r = p.add_argument_group("reading the logs")
    r.add_argument("--format", default="auto", choices=FORMATS, help="default: auto")
    r.add_argument("--metric", metavar="NAME", help="per-sample score: acc, exact_match...")
    r.add_argument("--model", metavar="NAME", help="model name for every file read")
    r.add_argument("--filter", metavar="NAME", help="lm-eval filter (strict-match...)")
    r.add_argument(
        "--condition",
        metavar="FIELD",
        help="conditions resampled whole: 'task' (or 'subtask'), a long-format column, "
        "doc.<field> (lm-eval) or metadata.<field> (inspect)",
    )
    # the former spelling, kept working (hidden)
    r.add_argument("--cluster", dest="condition", help=argparse.SUPPRESS)
    r.add_argument(
        "--partial",
        action="store_true",
        help="read runs that did not finish (every output then says 'partial: k of N')",
    )
    r.add_argument("--models", metavar="A,B,...", help="only these models")


def _common(p: argparse.ArgumentParser) -> None:
    _reading(p)
    e = p.add_argument_group("estimand")
    e.add_argument(
        "--estimand",
        default="auto",
        choices=ESTIMANDS,
        help="default auto: the logs' epoch reducer (inspect pass_at_k: pass@k), else mean",
    )
    e.add_argument("--k", type=int, default=1, metavar="K", help="k of pass@k")
    e.add_argument("--repeats", default="average", choices=REPEATS)
    e.add_argument("--aggregate", default="micro", choices=AGGREGATES)
    e.add_argument("--items", default="error", choices=ITEMS, help="models on different items")


def _interval(p: argparse.ArgumentParser) -> None:
    m = p.add_argument_group("interval")
    m.add_argument("--method", default="auto", choices=methods())
    m.add_argument("-B", "--n-resamples", type=int, default=2000, metavar="N")
    m.add_argument("--seed", type=int, metavar="S", help="random seed (default: drawn, printed)")
    m.add_argument("--confidence-level", type=float, default=0.95, metavar="L")
    m.add_argument("--alternative", default="two-sided", choices=("two-sided", "less", "greater"))
    o = p.add_argument_group("output")
    o.add_argument("--json", action="store_true", help="print the result as JSON")


def add_llm(sub: Any) -> None:
    """Add ``mlci llm`` (with ``ci``, ``compare`` and ``plan``) to the ``mlci`` parser."""
    p = sub.add_parser(
        "llm",
        help="language-model evaluations: intervals, comparisons, planning from eval logs",
        description="Intervals and comparisons of language models from per-sample logs "
        "(lm-evaluation-harness --log_samples, inspect-ai, long CSV/JSONL/Parquet).",
    )
    llm_sub = p.add_subparsers(dest="llm_command", metavar="SUBCOMMAND", required=True)
    c = llm_sub.add_parser("ci", help="every model's score with an interval")
    _common(c)
    _interval(c)
    c.set_defaults(handler=run_llm, llm_run=_run_ci)
    k = llm_sub.add_parser("compare", help="paired differences, adjusted p-values, leaderboard")
    _common(k)
    _interval(k)
    k.add_argument("--reference", metavar="MODEL", help="compare every model to this one only")
    k.add_argument(
        "--correction",
        default="auto",
        choices=("auto", *CORRECTION_METHODS, "maxt"),
        help="default auto: maxt for the bootstrap, holm for cr1",
    )
    k.set_defaults(handler=run_llm, llm_run=_run_compare)
    q = llm_sub.add_parser("plan", help="items (and repeats) to detect a difference")
    _reading(q)
    q.add_argument("--difference", type=float, required=True, metavar="D")
    q.add_argument("--power", type=float, default=0.8, metavar="P")
    q.add_argument("--alpha", type=float, default=0.05, metavar="A")
    q.add_argument("--plan-repeats", type=int, metavar="K", help="answers per item planned")
    q.add_argument("--json", action="store_true", help="print the result as JSON")
    q.set_defaults(handler=run_llm, llm_run=_run_plan, llm_names={"repeats": "--plan-repeats"})


def run_llm(args: argparse.Namespace) -> int:
    """Run an ``mlci llm`` subcommand; library errors become :class:`LLMCLIError`."""
    try:
        return int(args.llm_run(args) or 0)
    except LLMCLIError:
        raise
    except (ValueError, TypeError, OSError) as exc:
        names = getattr(args, "llm_names", None)
        raise LLMCLIError(option_message(str(exc), names)) from exc


def _load(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    if args.example and args.paths:
        raise LLMCLIError("give either PATHS (log files or directories) or --example, not both.")
    if not args.example and not args.paths:
        raise LLMCLIError("give either PATHS (log files or directories) or --example.")
    paths = [llm_example_path()] if args.example else args.paths
    condition = args.condition
    by_task = condition in ("task", "subtask")
    log = read_eval_logs(
        paths,
        format=args.format,
        metric=args.metric,
        model=args.model,
        filter=args.filter,
        conditions=[condition] if condition and not by_task else [],
        partial=args.partial,
    )
    models = [m.strip() for m in args.models.split(",")] if args.models else None
    opts = {"conditions": "task" if by_task else condition, "models": models}
    if hasattr(args, "estimand"):
        opts.update(
            estimand=args.estimand,
            k=args.k,
            repeats=args.repeats,
            aggregate=args.aggregate,
            items=args.items,
        )
    return log, opts


def _seed(args: argparse.Namespace) -> int:
    return args.seed if args.seed is not None else secrets.randbelow(2**31)


def _header(log: Any, res: Any, args: argparse.Namespace, seed: int) -> str:
    if res.method == "cr1":
        how = "CR1 standard errors, t(G-1)"
    elif res.method == "t":
        how = f"CR2 standard errors, t({res.details['df']:.3g})"
    else:
        how = f"{args.n_resamples} resamples ({res.method}), seed {seed}"
    d = res.details
    clusters = f" in {d['n_clusters']} clusters" if d.get("n_clusters") else ""
    lines = [
        f"# {len(log.models)} models, {d['n_items']} items{clusters}, {d['n_tasks']} task(s); "
        f"{res.estimand}, {res.aggregate}, repeats {res.repeats}; "
        f"{res.confidence_level * 100:.10g}% intervals from {how}"
    ]
    lines += [f"# {m}: {t}" for m, t in (d.get("partial") or {}).items()]
    if d.get("estimand_note"):
        lines.append(f"# note: {d['estimand_note']}")
    return "\n".join(lines)


def _estimate(args: argparse.Namespace, fn: Any, **extra: Any) -> tuple[Any, Any, int, bool]:
    """Read the logs and run ``fn`` (llm_ci or llm_compare) with the interval options;
    prints the JSON (and returns True) when --json was asked for, else the header."""
    log, opts = _load(args)
    seed = _seed(args)
    res = fn(
        log,
        **opts,
        **extra,
        method=args.method,
        confidence_level=args.confidence_level,
        alternative=args.alternative,
        n_resamples=args.n_resamples,
        rng=seed,
    )
    if args.json:
        print(strict_json({**res.to_dict(), "seed": seed}))
    else:
        print(_header(log, res, args, seed))
    return log, res, seed, args.json


def _run_ci(args: argparse.Namespace) -> int:
    _, res, _, done = _estimate(args, llm_ci)
    if done:
        return 0
    _table(res.rows(), ["model", "estimate", "low", "high", "standard_error", *_partial(res)])
    return 0


def _run_compare(args: argparse.Namespace) -> int:
    extra = {"reference": args.reference, "correction": args.correction}
    _, res, _, done = _estimate(args, llm_compare, **extra)
    if done:
        return 0
    dropped = res.details.get("n_items_dropped")
    if dropped:
        print(
            f"# {dropped} item(s) not scored for every model left out (--items shared); "
            f"missing per model: {json.dumps(res.details['items_missing'])}"
        )
    if res.leaderboard is not None:
        _table(res.rows("leaderboard"), ["model", "estimate", "low", "high", "rank_low",
                                          "rank_high", "tier", *_partial(res)])  # fmt: skip
        print()
    cols = ["a", "b", "estimate", "low", "high", "pvalue", "pvalue_adjusted", "significant"]
    _table(res.rows("differences"), cols + _partial(res))
    return 0


def _partial(res: Any) -> list[str]:
    """The ``partial`` column, when a run read was partial."""
    return ["partial"] if res.details.get("partial") else []


def _run_plan(args: argparse.Namespace) -> int:
    log, opts = _load(args)
    models = opts["models"] or log.models
    if len(models) != 2:
        raise LLMCLIError(
            f"--models: give the two models to compare (A,B); the log has {log.models}."
        )
    plan = llm_sample_size(
        log,
        models[0],
        models[1],
        difference=args.difference,
        power=args.power,
        alpha=args.alpha,
        repeats=args.plan_repeats,
        conditions=opts["conditions"],
    )
    if args.json:
        print(plan.to_json())
        return 0
    d = plan.details
    print(
        f"{plan.n_samples} items, {d['repeats']} answer(s) each, to detect a difference of "
        f"{d['difference']:g} with power {plan.power:g} (alpha {d['alpha']:g})"
    )
    print(f"# {plan.assumptions}")
    print(
        f"# pilot: {d['pilot_items']} items, difference {d['pilot_difference']:.4g}, "
        f"correlation {d['correlation']:.3g}, design effect {d['design_effect']:.3g}"
    )
    trade = ", ".join(f"{k}: {v}" for k, v in d["items_by_repeats"].items())
    print(f"# items needed by answers per item -- {trade}")
    for m, t in (d.get("partial") or {}).items():
        print(f"# pilot {m}: {t}")
    return 0


def _fmt(v: Any) -> str:
    if isinstance(v, bool) or v is None:
        return "-" if v is None else ("*" if v else "")
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _table(rows: list[dict[str, Any]], cols: list[str]) -> None:
    cells = [cols] + [[_fmt(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(row[j]) for row in cells) for j in range(len(cols))]
    for row in cells:
        line = "  ".join(
            v.ljust(w) if j == 0 or not _numeric(v) else v.rjust(w)
            for j, (v, w) in enumerate(zip(row, widths, strict=True))
        )
        print(line.rstrip(), file=sys.stdout)


def _numeric(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True
