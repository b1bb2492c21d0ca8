"""Write mlci's bundled language-model example: three models on a small two-task benchmark.

    python scripts/make_llm_example.py              # writes src/mlci/data/llm_example.csv
    python scripts/make_llm_example.py --out x.csv --seed 7

The log is synthetic but shaped like a real benchmark run (the long format of
``mlci.read_eval_logs``, one row per answer): a reading task of 30 passages with 2 to 6
questions each (questions on one passage share its difficulty) and an arithmetic task of
8 templates with 6 to 14 questions each; every question answered 3 times (sampling at a
temperature) by three models.  A question's probability of being answered correctly is
``logistic(skill[model] - difficulty[question] - effect[passage or template])``, so the
models are correlated through the shared difficulties, and repeats differ only by the
sampling noise.  ``model-a`` and ``model-b`` are close (0.15 apart in logit), ``model-c``
clearly behind.  See docs/llm.md.

Only ``Generator.random``, ``Generator.integers`` and ``Generator.standard_normal`` are
used: their streams have been stable across numpy releases, so the file is reproducible.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np

DEFAULT_SEED = 20241123
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "src" / "mlci" / "data" / "llm_example.csv"
SKILL = {"model-a": 1.0, "model-b": 0.85, "model-c": 0.2}
REPEATS = 3


def make(seed: int = DEFAULT_SEED) -> list[dict[str, object]]:
    """The rows of the example log (model, task, item, repeat, score, group)."""
    rng = np.random.default_rng(seed)
    items: list[tuple[str, str, str, float]] = []  # task, item, group, difficulty
    for p in range(30):
        effect = 0.9 * rng.standard_normal()
        for q in range(int(rng.integers(2, 7))):
            items.append(("reading", f"r{p:02d}-{q}", f"passage-{p:02d}",
                          effect + 0.7 * rng.standard_normal()))  # fmt: skip
    for t in range(8):
        effect = 0.6 * rng.standard_normal() - 0.5
        for q in range(int(rng.integers(6, 15))):
            items.append(("arithmetic", f"a{t}-{q:02d}", f"template-{t}",
                          effect + 0.7 * rng.standard_normal()))  # fmt: skip
    rows: list[dict[str, object]] = []
    for model, skill in SKILL.items():
        for task, item, group, diff in items:
            p = 1.0 / (1.0 + np.exp(-(skill - diff)))
            for r in range(REPEATS):
                score = int(rng.random() < p)
                rows.append({"model": model, "task": task, "item": item, "repeat": r,
                             "score": score, "group": group})  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)
    rows = make(args.seed)
    with open(args.out, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {args.out}")


if __name__ == "__main__":
    main()
