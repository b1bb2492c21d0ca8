"""The ROC AUC near its bound with 20-150 samples in the smaller class (issue 20).

The bootstrap doors (:func:`mlci.auc_ci`'s stratified BCa and ``bootstrap_ci``'s
unstratified studentized interval, B = 500) on binormal scores (the cells of
``auc_few_class_sweep.py``: ``eq``, equal spreads; ``sd2``, positives twice as spread),
20-150 positives, max(150, 2 x positives) negatives, AUC 0.85-0.99, 600 test sets a cell
(about 8 minutes of CPU).  docs/validation.md, "The AUC near its bound with 20-149 of a
class", and :func:`mlci.engine.auc_class.near_edge_auc_rule` rest on it.

    python scripts/auc_near_edge_sweep.py out.json [test sets]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from auc_few_class_sweep import cell, cell_seed

POSITIVES = (20, 30, 50, 70, 100, 150)
AUCS = (0.85, 0.9, 0.95, 0.98, 0.99)
SHAPES = ("eq", "sd2")


def main(out: str, reps: int = 600) -> None:
    rows = []
    for shape in SHAPES:
        for auc in AUCS:
            for p in POSITIVES:
                seed = cell_seed(p, 150, auc, shape) + 7
                r = cell(p, max(150, 2 * p), auc, shape, reps, seed, True)
                rows.append(r)
                print(
                    shape, auc, p, round(r["coverage_bca"], 3), round(r["coverage_studentized"], 3)
                )
    Path(out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:3]))
