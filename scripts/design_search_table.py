"""The decision search's report table and its JSON file (``design_search.table``,
``load``, ``save``), moved out of ``design_search.py`` to keep it under 1000 lines
(session 10); unchanged."""

from __future__ import annotations

import json
import os
from typing import Any


def table(results: list[dict[str, Any]], top: int | None = None, flags: bool = True) -> str:
    """Markdown table of designs, worst first (``flags=False``: without the verdicts)."""
    rows = sorted(results, key=lambda r: -r["verdict"]["score"])
    if top is not None:
        rows = rows[:top]
    head = [
        "design",
        "truth",
        "reps",
        "auto (chosen)",
        "auto cov",
        "BCa cov",
        "pct cov",
        "analytic cov",
        "auto width",
        "BCa width",
        "auto/BCa",
        "far edge",
        "warned",
        "flags",
    ]
    if not flags:
        head = head[:-1]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        ms = r["methods"]

        def cov(m: str, ms: dict[str, Any] = ms) -> str:
            return f"{ms[m]['coverage']:.3f}" if m in ms else "—"

        def wid(m: str, ms: dict[str, Any] = ms) -> str:
            return f"{ms[m]['median_width']:.4g}" if m in ms else "—"

        chosen = ",".join(sorted(r["auto_methods"]))
        ratio = f"{r['width_ratio']:.2f}" if "width_ratio" in r else "—"
        edge = ms.get("auto", {}).get("far_edge", 0)
        out.append(
            f"| {r['label']} | {r['truth']:.4g} | {ms.get('auto', {}).get('n', 0)} | {chosen} | "
            f"{cov('auto')} | {cov('bca')} | {cov('percentile')} | {cov('analytic')} | "
            f"{wid('auto')} | {wid('bca')} | {ratio} | {edge} | {r['warned']} |"
            + (f" {'; '.join(r['verdict']['flags'])} |" if flags else "")
        )
    return "\n".join(out)


def load(path: str | None) -> dict[str, Any]:
    if path and os.path.exists(path):
        with open(path) as fh:
            return json.load(fh)
    return {}


def save(path: str, doc: dict[str, Any]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w") as fh:
        json.dump(doc, fh, separators=(",", ":"))
    os.replace(tmp, path)
