"""A candidate interval of the debiased l2 calibration error near 0, not adopted (issue 20).

The normal interval of the debiased square (``details["squared"]``, with its delta-method
standard error ``details["squared_se"]``, :func:`mlci.metrics.calibration.l2_signal`),
truncated at 0 and square-rooted: ``[sqrt(max(sq - z se, 0)), sqrt(max(sq + z se, 0))]``.
No bootstrap: the populations of ``scripts/ece_l2_auto_study.py`` (p ~ Beta(2, 2), 15
equal-width bins, whose edges do not move, so the truth is computed once), 1000 test sets
a cell.  Writes ``scripts/data/ece_l2_squared_interval.json``.

Usage::

    python scripts/ece_l2_squared_interval.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from scipy.special import ndtri

sys.path.insert(0, str(Path(__file__).parent))
import calibration_coverage_grid as grid
import ece_l2_auto_study as study

from mlci.metrics.calibration import calibration_bins, l2_signal

SETS = 1000
EDGES = np.linspace(0, 1, study.N_BINS + 1)


def main() -> None:
    z = float(ndtri(0.975))
    out = []
    for pop, f in study.POPULATIONS.items():
        _, t2 = grid.truth(f, EDGES)
        for n in study.NS:
            hits, zs = 0, []
            for e in range(SETS):
                rng = np.random.default_rng([5, e, n])
                p = rng.beta(2, 2, n)
                y = (rng.random(n) < f(p)).astype(float)
                tot = np.zeros((study.N_BINS, 3))
                np.add.at(tot, calibration_bins(p, EDGES), np.c_[np.ones(n), y, p])
                sq, se = l2_signal(tot.reshape(1, -1), 1, study.N_BINS)
                lo, hi = np.sqrt(max(sq - z * se, 0.0)), np.sqrt(max(sq + z * se, 0.0))
                hits += bool(lo <= t2 <= hi)
                zs.append(sq / se)
            cell = {
                "population": pop, "n": n, "truth": t2, "sets": SETS,
                "coverage": hits / SETS, "median_signal_to_noise": float(np.median(zs)),
            }  # fmt: skip
            print(json.dumps(cell), flush=True)
            out.append(cell)
    (Path(__file__).parent / "data" / "ece_l2_squared_interval.json").write_text(
        json.dumps(out, indent=1)
    )


if __name__ == "__main__":
    main()
