"""Whether ``auto`` should give the ROC AUC an analytic interval near its bound or with a small
class (issue 20; docs/validation.md, "The AUC near its bound or with a small class under
auto").

The test sets of ``auc_near_edge_sweep.py`` (the same seeds: binormal ``eq``/``sd2``,
20-150 positives, max(150, 2 x positives) negatives, AUC 0.85-0.99), and 200, 300 (AUC
0.98, 0.99) and 500 positives (AUC 0.99) above the near-bound rule; one row a test set:
the estimate, the class sizes, the score-type intervals of
:func:`mlci.classical.auc_score.auc_score_bounds` (``floored``, ``newcombe``) and the
logit-scale ``floored`` (:func:`logit_floored`); with ``--boot``, the two bootstrap
``auto`` doors too (``auc_ci``'s stratified BCa, ``bootstrap_ci``'s studentized, B = 500)
for the test sets the near-bound rule leaves to the bootstrap (``--boot all``: every
test set).  ``--summary`` prints, per cell, the coverage of the bootstrap alone and of
``auto`` with :func:`mlci.engine.auc_analytic.auc_score_rule` (the floored interval where
it holds), and the median width against BCa's.

    python scripts/auc_auto_analytic_sweep.py out.npz 600                 # analytic only
    python scripts/auc_auto_analytic_sweep.py boot.npz 200 --boot --cells 6,7,20
    python scripts/auc_auto_analytic_sweep.py --summary boot.npz
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.special import expit, logit
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from auc_few_class_sweep import cell_seed, delong_parts, draw, true_auc

import mlci
from mlci.classical.auc_score import auc_score_bounds

POSITIVES = (20, 30, 50, 70, 100, 150)
AUCS = (0.85, 0.9, 0.95, 0.98, 0.99)
SHAPES = ("eq", "sd2")
#: the cells beyond the near-bound sweep: 200 and 300 positives near the bound
EXTRA = [(p, a, s) for s in SHAPES for a in (0.98, 0.99) for p in (200, 300)]
EXTRA += [(500, 0.99, s) for s in SHAPES]
CANDIDATES = ("floored", "newcombe", "logit_floored")
BOOTSTRAP = ("bca", "studentized")
#: the columns of a test set's row
KEYS = (
    "cell",
    "shape",
    "auc",
    "truth",
    "rep",
    "estimate",
    "m",
    "n",
    *tuple(f"{c}_{e}" for c in CANDIDATES + BOOTSTRAP for e in ("lo", "hi")),
)


def cells() -> list[tuple[int, float, str]]:
    near = [(p, a, s) for s in SHAPES for a in AUCS for p in POSITIVES]
    return near + EXTRA


def logit_floored(a: float, v_pos: float, v_neg: float, m: int, n: int) -> tuple[float, float]:
    """DeLong's interval on the logit scale with the floored variance at the estimate
    (the estimate half a pair from the edge), a Wald-type candidate."""
    ac = min(max(a, 0.5 / (m * n)), 1 - 0.5 / (m * n))
    v = auc_score_bounds(ac, v_pos, v_neg, m, n, "floored")[2]
    se = np.sqrt(v) / (ac * (1 - ac))
    z = norm.ppf(0.975)
    return float(expit(logit(ac) - z * se)), float(expit(logit(ac) + z * se))


def test_set(y: np.ndarray, s: np.ndarray, boot_seed: int | None) -> dict[str, float]:
    a, v_pos, v_neg = delong_parts(y, s)
    m, n = int(y.sum()), int(len(y) - y.sum())
    row = {"estimate": a, "m": m, "n": n}
    for v in ("floored", "newcombe"):
        row[f"{v}_lo"], row[f"{v}_hi"] = auc_score_bounds(a, v_pos, v_neg, m, n, v)[:2]
    row["logit_floored_lo"], row["logit_floored_hi"] = logit_floored(a, v_pos, v_neg, m, n)
    if boot_seed is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bca = mlci.auc_ci(y, s, rng=boot_seed, n_resamples=500, method="bca")
            stud = mlci.bootstrap_ci(
                y, s, metric="roc_auc", rng=boot_seed, n_resamples=500, method="studentized"
            )
        row["bca_lo"], row["bca_hi"] = bca.confidence_interval
        row["studentized_lo"], row["studentized_hi"] = stud.confidence_interval
    return row


def run(reps: int, boot: str | None, which: list[int]) -> dict[str, np.ndarray]:
    from mlci.engine.auc_class import near_edge_auc_rule

    out: dict[str, list] = {}
    t0 = time.time()
    for k in which:
        p, auc, shape = cells()[k]
        n_neg = max(150, 2 * p)
        g = np.random.default_rng(cell_seed(p, 150, auc, shape) + 7)  # auc_near_edge_sweep's
        truth = true_auc(auc, shape)
        for r in range(reps):
            y, s = draw(g, p, n_neg, auc, shape)
            est = float(np.mean(s[y == 1][:, None] > s[y == 0][None, :]))  # no ties (normal)
            need = boot == "all" or (boot == "rule" and not near_edge_auc_rule(p, est))
            row = test_set(y, s, r if need else None)
            row.update(cell=k, shape=SHAPES.index(shape), auc=auc, truth=truth, rep=r)
            for key in KEYS:
                out.setdefault(key, []).append(row.get(key, np.nan))
        print(k, (p, auc, shape), round(time.time() - t0), flush=True)
    return {k: np.asarray(v, dtype=float) for k, v in out.items()}


def _covers(d: dict[str, np.ndarray], sel: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> float:
    t = d["truth"][sel]
    return float(np.mean((lo <= t) & (t <= hi)))


def summary(path: str) -> str:
    """Per cell: the bootstrap doors alone, ``auto`` with the analytic rule, the share of
    test sets it gives the floored interval, and auto's median width over BCa's."""
    from mlci.engine.auc_analytic import auc_score_rule

    d = dict(np.load(path))
    grid = json.loads(str(d["cells"]))
    rows = [
        "| shape | AUC | positives | BCa / stud. alone | auto (BCa / stud. door) | "
        "floored | rule fires | width auto / BCa |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for k in sorted(set(d["cell"].astype(int))):
        p, auc, shape = grid[k]
        sel = d["cell"] == k
        fire = np.array([auc_score_rule(p, e) for e in d["estimate"][sel]])
        fl = (d["floored_lo"][sel], d["floored_hi"][sel])
        alone, auto, width = [], [], []
        for door in BOOTSTRAP:
            blo, bhi = d[f"{door}_lo"][sel], d[f"{door}_hi"][sel]
            lo, hi = np.where(fire, fl[0], blo), np.where(fire, fl[1], bhi)
            known = ~np.isnan(lo)
            alone.append(_covers(d, sel, blo, bhi) if not np.isnan(blo).any() else np.nan)
            auto.append(_covers(d, sel & np.isin(np.arange(len(sel)), np.flatnonzero(sel)[known]),
                                lo[known], hi[known]))  # fmt: skip
            width.append(np.median(hi[known] - lo[known]))
        bca_w = np.nanmedian(d["bca_hi"][sel] - d["bca_lo"][sel])
        rows.append(
            f"| {shape} | {auc} | {p} | {alone[0]:.3f} / {alone[1]:.3f} | {auto[0]:.3f} / "
            f"{auto[1]:.3f} | {_covers(d, sel, *fl):.3f} | {fire.mean():.2f} | "
            f"{width[0] / bca_w:.2f} |"
        )
    return "\n".join(rows)


def main(argv: list[str]) -> None:
    if argv[0] == "--summary":
        print(summary(argv[1]))
        return
    out = argv[0]
    reps = int(argv[1]) if len(argv) > 1 and argv[1].isdigit() else 600
    boot = None
    if "--boot" in argv:
        nxt = argv[argv.index("--boot") + 1 :]
        boot = nxt[0] if nxt and nxt[0] in ("all", "rule") else "rule"
    which = list(range(len(cells())))
    if "--cells" in argv:
        which = [int(c) for c in argv[argv.index("--cells") + 1].split(",")]
    data = run(reps, boot, which)
    np.savez_compressed(out, **data, cells=json.dumps(cells()))


if __name__ == "__main__":
    main(sys.argv[1:])
