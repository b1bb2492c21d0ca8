"""``mlci metrics`` (the built-in metrics) and ``mlci example`` (the bundled example)."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from ..data import example_path
from ..io import read_table
from ..metrics import METRICS
from .common import OPTIONS, _print_rows, print_json

__all__ = ["EXAMPLE_COMMANDS", "add_example", "add_metrics"]


# -------------------------------------------------------------------- mlci metrics
def add_metrics(sub: Any) -> None:
    p = sub.add_parser(
        "metrics",
        help="list the built-in metrics",
        description="The built-in metrics, the columns each needs and its options.",
    )
    p.add_argument("--json", action="store_true", help="print JSON (same as --format json)")
    p.add_argument("--format", choices=("table", "json"), default="table", help="table or json")
    p.set_defaults(handler=run_metrics)


def run_metrics(args: argparse.Namespace) -> int:
    rows = []
    for name in sorted(METRICS):
        info = METRICS[name]
        if name in ("bleu", "chrf"):  # corpus MT metrics: from text files
            flags = "mlci mt"
        elif name == "wer":  # per-utterance (words, errors): the Python API
            flags = "(Python API)"
        else:
            # the agreement metrics' ratings matrix is read by `mlci agreement --raters`
            flags = " ".join(OPTIONS.get(i, "(mlci agreement) --raters") for i in info.inputs)
        rows.append((name, flags, ", ".join(info.options), info.description))
    if args.json or args.format == "json":
        keys = ("name", "columns", "options", "description")
        print_json([dict(zip(keys, r, strict=True)) for r in rows])
        return 0
    header = ("metric", "columns", "options", "description")
    _print_rows([header, *rows], left={0, 1, 2, 3})
    return 0


# -------------------------------------------------------------------- mlci example
def add_example(sub: Any) -> None:
    p = sub.add_parser(
        "example",
        help="describe the bundled example data and print commands to try",
        description="The bundled example: a simulated emotion-classification test set.",
    )
    p.add_argument("--path", action="store_true", help="print only the file's path")
    p.add_argument("--format", choices=("table", "json"), default="table", help="table or json")
    p.set_defaults(handler=run_example)


def run_example(args: argparse.Namespace) -> int:
    path = example_path()
    if args.path:
        print(path)
        return 0
    cols = read_table(path)
    n = cols.n_rows
    kinds = {"i": "int", "f": "float", "b": "bool"}
    if args.format == "json":
        print_json(
            {
                "path": str(path),
                "n_rows": int(n),
                "n_speakers": len(np.unique(cols["speaker"])),
                "n_sessions": len(np.unique(cols["session"])),
                "columns": [
                    {
                        "name": name,
                        "type": kinds.get(col.dtype.kind, "text"),
                        "first": col[:3].tolist(),
                    }
                    for name, col in cols.items()
                ],
                "commands": list(EXAMPLE_COMMANDS),
            }
        )
        return 0
    print(f"{path}")
    print(
        f"{n} utterances by {len(np.unique(cols['speaker']))} speakers "
        f"({len(np.unique(cols['session']))} sessions); columns:"
    )
    for name, col in cols.items():
        kind = kinds.get(col.dtype.kind, "text")
        first = ", ".join(str(v) for v in col[:3].tolist())
        print(f"  {name:<14} {kind:<6} {first}, ...")
    print("try:")
    for cmd in EXAMPLE_COMMANDS:
        print(f"  {cmd}")
    return 0


#: commands shown by ``mlci example`` (tested, so they keep working)
EXAMPLE_COMMANDS = (
    "mlci ci --example --metric accuracy,f1 --average macro --condition speaker --seed 0",
    "mlci ci --example --label is_angry --score score_angry --metric roc_auc,average_precision "
    "--condition speaker --seed 0",
    "mlci ci --example --weight num_words --value wer --metric weighted_mean,mean "
    "--condition speaker --seed 0",
    "mlci compare --example --systems pred,pred_baseline --metric accuracy --condition speaker "
    "--seed 0",
    "mlci compare --example --systems pred,pred_baseline --test mcnemar --label label",
    "mlci scores --example --label is_angry --score score_angry --p-target 0.01 --seed 0",
)
