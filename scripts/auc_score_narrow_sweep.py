"""Narrower score-type AUC intervals than ``auc-score-floored`` where ``auto`` gives it
(issue 20; docs/validation.md, "Narrower AUC score intervals and paired AUCs near the
edge").

The test sets of ``auc_few_class_sweep.py`` (its grid, its seeds) and of
``auc_auto_analytic_sweep.py`` (the near-bound cells, its seeds): for each, the estimate,
DeLong's two terms and the class sizes, and the bounds of candidate score-type intervals
``{θ : |Â - θ| <= z sqrt(V(θ))}`` (:func:`variances`), solved on a grid of θ for all
test sets of a cell at once (linear interpolation between 4,001 points: bounds within
1e-4, checked against :func:`mlci.classical.auc_score.auc_score_bounds` by ``--check``).
Coverage is counted over the test sets where :func:`mlci.engine.auc_analytic.auc_score_rule`
holds (where ``auto`` gives the analytic interval); widths are medians there.  The BCa
widths come from the stored bootstrap runs on the same test sets
(``scripts/data/auc_small_class_boot100.json``: the first 100 test sets of 24
few-class cells; ``scripts/data/auc_auto_analytic_boot*.npz``: per test set).

    nice python scripts/auc_score_narrow_sweep.py out.json 400          # the sweep (10 min)
    python scripts/auc_score_narrow_sweep.py --table out.json           # per-cell table
    python scripts/auc_score_narrow_sweep.py --check                    # grid vs brentq
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import norm
from scipy.stats import t as student

sys.path.insert(0, str(Path(__file__).resolve().parent))

from auc_auto_analytic_sweep import cells as edge_cells
from auc_few_class_sweep import cell_seed, delong_parts, draw, grid, true_auc

from mlci.engine.auc_analytic import auc_score_rule

GRID = np.linspace(0.0, 1.0, 4001)
Z = float(norm.ppf(0.975))
#: the candidates (:func:`variances`)
CANDIDATES = (
    "floored", "newcombe", "fl_c05", "fl_c07", "fl_c05_half", "pool2", "pool4", "pool8",
    "mx_pool2", "mx_pool4", "mx_pool8",
)  # fmt: skip


def nstar(t: np.ndarray, m: np.ndarray, n: np.ndarray) -> np.ndarray:
    star = (m + n) / 2 - 1
    return t * (1 - t) / (m * n) * (1 + star * ((1 - t) / (2 - t) + t / (1 + t)))


def variances(a, vp, vq, m, n):
    """Per candidate, ``V(θ)`` on :data:`GRID` for each test set (rows) and ``z`` (a
    column: Student's for the candidates that use it)."""
    a, vp, vq, m, n = (np.asarray(x, float)[:, None] for x in (a, vp, vq, m, n))
    t = GRID[None, :]
    v_star = nstar(t, m, n)
    v_hat = vp + vq
    inner = (a > 0) & (a < 1) & (v_hat > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(inner, v_hat / (a * (1 - a)), 0.0)
        df = np.where(inner, v_hat**2 / (vp**2 / (m - 1) + vq**2 / (n - 1)), np.inf)
        k = np.where(inner, (student.ppf(0.975, df) / Z) ** 2, 1.0)
    carried = ratio * t * (1 - t)  # DeLong's variance carried to θ
    out = {
        "floored": np.maximum(v_star, k * carried),
        "newcombe": v_star,
        "fl_c05": np.maximum(0.5 * v_star, k * carried),
        "fl_c07": np.maximum(0.7 * v_star, k * carried),
        "fl_c05_half": np.maximum(0.5 * v_star, np.sqrt(k) * carried),
    }
    for nu in (2, 4, 8):  # Newcombe's variance as a prior worth nu degrees of freedom
        dfc = np.where(inner, np.minimum(df, 1e6), 0.0)
        out[f"pool{nu}"] = (nu * v_star + dfc * k * carried) / (nu + dfc)
        out[f"mx_pool{nu}"] = np.maximum(v_star, out[f"pool{nu}"])  # never below Newcombe's
    return out


def bounds(a: np.ndarray, v: np.ndarray, z: float = Z) -> tuple[np.ndarray, np.ndarray]:
    """The score interval's ends for each row (grid + linear interpolation)."""
    a = np.asarray(a, float)[:, None]
    t = GRID[None, :]
    sd = z * np.sqrt(np.maximum(v, 0.0))
    g_lo = (a - t) - sd  # <= 0 inside, for t <= a
    g_hi = (t - a) - sd  # <= 0 inside, for t >= a
    lo, hi = np.zeros(len(a)), np.ones(len(a))
    for r in range(len(a)):
        ar = a[r, 0]
        if ar > 0:
            inside = np.flatnonzero((g_lo[r] <= 0) & (GRID <= ar))
            j = inside[0] if inside.size else 0
            if j > 0:
                g0, g1 = g_lo[r, j - 1], g_lo[r, j]
                lo[r] = GRID[j - 1] + (GRID[j] - GRID[j - 1]) * g0 / (g0 - g1)
        if ar < 1:
            inside = np.flatnonzero((g_hi[r] <= 0) & (GRID >= ar))
            j = inside[-1] if inside.size else len(GRID) - 1
            if j < len(GRID) - 1:
                g0, g1 = g_hi[r, j], g_hi[r, j + 1]
                hi[r] = GRID[j] + (GRID[j + 1] - GRID[j]) * g0 / (g0 - g1)
    return lo, hi


def all_cells() -> list[dict]:
    """The few-class grid (negatives 20-1,000) and the near-bound cells, each with its seed."""
    out = [
        {"kind": "few", "p": p, "n": n, "auc": a, "shape": s, "seed": cell_seed(p, n, a, s)}
        for p, n, a, s in grid(False)
    ]
    for p, a, s in edge_cells():
        out.append(
            {
                "kind": "edge", "p": p, "n": max(150, 2 * p), "auc": a, "shape": s,
                "seed": cell_seed(p, 150, a, s) + 7,
            }
        )  # fmt: skip
    return out


def run_cell(c: dict, reps: int) -> dict:
    g = np.random.default_rng(c["seed"])
    truth = true_auc(c["auc"], c["shape"])
    rows = []
    for _ in range(reps):
        y, s = draw(g, c["p"], c["n"], c["auc"], c["shape"])
        a, vp, vq = delong_parts(y, s)
        rows.append((a, vp, vq))
    a, vp, vq = (np.array(x) for x in zip(*rows, strict=True))
    few = min(c["p"], c["n"])
    fire = np.array([auc_score_rule(few, e) for e in a])
    m, n = np.full(reps, c["p"]), np.full(reps, c["n"])
    out = {**c, "truth": truth, "reps": reps, "fire": fire.tolist(), "estimate": a.tolist()}
    for name, v in variances(a, vp, vq, m, n).items():
        lo, hi = bounds(a, v)
        out[name] = [lo.tolist(), hi.tolist()]
    return out


def check() -> None:
    """The grid solver against auc_score_bounds (brentq) on the floored variant."""
    from mlci.classical.auc_score import auc_score_bounds

    g = np.random.default_rng(5)
    worst = 0.0
    for p, n, auc, shape in [(5, 150, 0.95, "sd2"), (12, 20, 0.99, "eq"), (100, 200, 0.99, "eq")]:
        for _ in range(20):
            y, s = draw(g, p, n, auc, shape)
            a, vp, vq = delong_parts(y, s)
            lo, hi = bounds(np.array([a]), variances([a], [vp], [vq], [p], [n])["floored"])
            ref = auc_score_bounds(a, vp, vq, p, n, "floored")[:2]
            worst = max(worst, abs(lo[0] - ref[0]), abs(hi[0] - ref[1]))
    print("largest difference from auc_score_bounds:", worst)


def table(path: str) -> str:
    """Per candidate over the cells where the rule holds on at least 90% of the test sets:
    cells by coverage band, the lowest, and the median width over ``floored``'s; then
    coverage by shape and class size (docs/validation.md's tables)."""
    res = [r for r in json.loads(Path(path).read_text()) if np.mean(r["fire"]) >= 0.9]
    stats: dict[str, list[tuple[float, float, tuple]]] = {}
    for r in res:
        f = np.array(r["fire"])
        w0 = np.median(np.diff(np.array(r["floored"]), axis=0)[0][f])
        key = (r["shape"], "2-19" if min(r["p"], r["n"]) < 20 else "20-500")
        for c in CANDIDATES:
            lo, hi = (np.array(x)[f] for x in r[c])
            cov = float(np.mean((lo <= r["truth"]) & (r["truth"] <= hi)))
            stats.setdefault(c, []).append((cov, float(np.median(hi - lo) / w0), key))
    out = [
        f"{len(res)} cells; | candidate | <0.925 | <0.935 | 0.935-0.965 | >0.965 | lowest | width |"
    ]
    for c, v in stats.items():
        cov, wid = np.array([x[0] for x in v]), np.array([x[1] for x in v])
        out.append(
            f"| {c} | {(cov < 0.925).sum()} | {(cov < 0.935).sum()} | "
            f"{((cov >= 0.935) & (cov <= 0.965)).sum()} | {(cov > 0.965).sum()} | "
            f"{cov.min():.3f} | {np.median(wid):.2f} |"
        )
    for key in sorted({x[2] for x in stats["floored"]}):
        row = []
        for c in CANDIDATES:
            sel = np.array([(x[0], x[1]) for x in stats[c] if x[2] == key])
            row.append(f"{c} {sel[:, 0].min():.3f}-{sel[:, 0].max():.3f} "
                       f"({np.median(sel[:, 0]):.3f}), {np.median(sel[:, 1]):.2f}")  # fmt: skip
        out.append(f"| {key[0]} | {key[1]} | {len(sel)} | " + " | ".join(row) + " |")
    return "\n".join(out)


def main(argv: list[str]) -> None:
    if argv[0] == "--check":
        check()
        return
    if argv[0] == "--table":
        print(table(argv[1]))
        return
    out, reps = argv[0], int(argv[1])
    res = []
    t0 = time.time()
    for k, c in enumerate(all_cells()):
        if c["kind"] == "few" and min(c["p"], c["n"]) >= 20 and c["auc"] < 0.9:
            continue  # the rule never holds there (AUC below 0.9 with 20 or more)
        if "--few" in argv and c["kind"] != "few":
            continue
        res.append(run_cell(c, reps))
        if k % 50 == 0:
            print(k, round(time.time() - t0), flush=True)
    Path(out).write_text(json.dumps(res))


if __name__ == "__main__":
    main(sys.argv[1:])
