"""The ROC AUC with few samples in a class: coverage through every door (issue 20).

The seed-7 design search found the stratified AUC door (:func:`mlci.auc_ci`, and
``bootstrap_ci(..., strata=y_true)``) under-covering with 3-10 positives, unwarned.  This
sweep varies the positives (3-50), the negatives (20-1,000) and the binormal AUC
(0.7-0.99: positives ``N(d, sd^2)``, negatives ``N(0, 1)``, ``AUC = Phi(d / sqrt(1 +
sd^2))``), with the class counts fixed (the stratified design's truth), and the shape of
the scores: ``eq`` (equal spreads), ``sd2`` (positives twice as spread), ``sd05`` (half as
spread), ``tie`` (``eq`` cut into 5 ordered categories: ties; the true AUC counts them one
half).  For each cell it measures the coverage and median width of:

- the analytic intervals: DeLong's, DeLong's on the logit scale, and the score-type
  intervals of :func:`mlci.auc_score_ci` (``floored``, ``newcombe``, ``modified-wald``);
- with ``--boot``, the bootstrap doors: :func:`mlci.auc_ci` (stratified BCa under
  ``auto``) and ``bootstrap_ci``'s unstratified ``auto`` (studentized), B = 500.

docs/validation.md, "The AUC with few samples in a class" and "The AUC with a small class:
an interval that holds", and :data:`mlci.engine.auc_class.MIN_AUC_CLASS` rest on it.

    python scripts/auc_few_class_sweep.py 200 out.json           # the analytic grid
    python scripts/auc_few_class_sweep.py 100 boot.json --boot   # bootstrap cells
    python scripts/auc_few_class_sweep.py --tables out.json boot.json  # the tables
"""

from __future__ import annotations

import json
import sys
import time
import warnings

import numpy as np
from scipy.special import expit, logit
from scipy.stats import norm, rankdata

import mlci
from mlci.classical.auc_score import AUC_SCORE_VARIANTS, auc_score_bounds

POSITIVES = (3, 5, 8, 12, 15, 20, 30, 50)
AUCS = (0.7, 0.8, 0.9, 0.95, 0.99)
NEGATIVES = (20, 150, 1000)
SHAPES = ("eq", "sd2", "sd05")
#: balanced small test sets (positives = negatives)
BALANCED = (10, 15, 20)
#: the positives' spread (negatives: 1) of each shape
SPREAD = {"eq": 1.0, "sd2": 2.0, "sd05": 0.5, "tie": 1.0}
#: the cut points of the ``tie`` shape (5 ordered categories)
CUTS = np.array([-0.5, 0.5, 1.5, 2.5])
#: the cells of the bootstrap doors (B = 500 each: about 60 ms a test set)
BOOT_CELLS = [
    (p, 150, a, s) for s in ("eq", "sd2") for p in (5, 8, 12, 15, 20, 30) for a in (0.8, 0.95)
]


def shift(auc: float, shape: str) -> float:
    """The positives' mean that gives ``auc`` before any cut."""
    sd = SPREAD[shape]
    return float(np.sqrt(1 + sd * sd) * norm.ppf(auc))


def true_auc(auc: float, shape: str) -> float:
    """The AUC of the population (ties one half for the ``tie`` shape)."""
    if shape != "tie":
        return auc
    edges = np.r_[-np.inf, CUTS, np.inf]
    pp = np.diff(norm.cdf(edges - shift(auc, shape)))
    pn = np.diff(norm.cdf(edges))
    below = np.r_[0.0, np.cumsum(pn)[:-1]]
    return float(np.sum(pp * below) + 0.5 * np.sum(pp * pn))


def draw(g: np.random.Generator, n_pos: int, n_neg: int, auc: float, shape: str) -> tuple:
    pos = g.normal(shift(auc, shape), SPREAD[shape], n_pos)
    neg = g.normal(0.0, 1.0, n_neg)
    if shape == "tie":
        pos, neg = np.searchsorted(CUTS, pos) * 1.0, np.searchsorted(CUTS, neg) * 1.0
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    return y, np.r_[pos, neg]


def delong_parts(y: np.ndarray, s: np.ndarray) -> tuple[float, float, float]:
    """The AUC and DeLong's two variance terms (placements by midranks, ties one half)."""
    pos, neg = s[y == 1], s[y == 0]
    m, n = pos.size, neg.size
    ranks = rankdata(np.r_[pos, neg])
    v10 = (ranks[:m] - rankdata(pos)) / n
    v01 = 1.0 - (ranks[m:] - rankdata(neg)) / m
    return float(v10.mean()), float(v10.var(ddof=1) / m), float(v01.var(ddof=1) / n)


def analytic(y: np.ndarray, s: np.ndarray) -> dict[str, tuple[float, float]]:
    r = mlci.delong_ci(y, s)
    m, n = r.details["n_positive"], r.details["n_negative"]
    a, se = r.estimate, r.standard_error
    out = {"delong": tuple(r.confidence_interval)}
    # the logit scale, half a pair from the edge (as the seed-6 sweep)
    mn = m * n
    ac = min(max(a, 0.5 / mn), 1 - 0.5 / mn)
    lse = max(se, 1 / mn) / (ac * (1 - ac))
    z = norm.ppf(0.975)
    out["logit_delong"] = (float(expit(logit(ac) - z * lse)), float(expit(logit(ac) + z * lse)))
    _, v_pos, v_neg = delong_parts(y, s)
    for v in AUC_SCORE_VARIANTS:
        out[v] = auc_score_bounds(a, v_pos, v_neg, m, n, v)[:2]
    return out


def bootstrap(y: np.ndarray, s: np.ndarray, seed: int, B: int = 500) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bca = mlci.auc_ci(y, s, rng=seed, n_resamples=B)
        stud = mlci.bootstrap_ci(y, s, metric="roc_auc", rng=seed, n_resamples=B)
    return {"bca": tuple(bca.confidence_interval), "studentized": tuple(stud.confidence_interval)}


def cell(n_pos: int, n_neg: int, auc: float, shape: str, reps: int, seed: int, boot: bool) -> dict:
    g = np.random.default_rng(seed)
    truth = true_auc(auc, shape)
    cov: dict[str, list] = {}
    width: dict[str, list] = {}
    for r in range(reps):
        y, s = draw(g, n_pos, n_neg, auc, shape)
        res = bootstrap(y, s, r) if boot else analytic(y, s)
        for k, (lo, hi) in res.items():
            cov.setdefault(k, []).append(lo <= truth <= hi)
            width.setdefault(k, []).append(hi - lo)
    return {
        "n_positive": n_pos,
        "n_negative": n_neg,
        "auc": auc,
        "shape": shape,
        "true_auc": truth,
        "test_sets": reps,
        **{f"coverage_{k}": float(np.mean(v)) for k, v in cov.items()},
        **{f"width_{k}": float(np.median(v)) for k, v in width.items()},
    }


def grid(boot: bool) -> list[tuple[int, int, float, str]]:
    if boot:
        return BOOT_CELLS
    cells = [(p, n, a, s) for s in SHAPES for n in NEGATIVES for p in POSITIVES for a in AUCS]
    cells += [(p, 150, a, "tie") for p in POSITIVES for a in AUCS]
    cells += [(k, k, a, s) for s in SHAPES for k in BALANCED for a in AUCS]
    return cells


def cell_seed(n_pos: int, n_neg: int, auc: float, shape: str) -> int:
    """The seed of a cell (distinct over the grid)."""
    kind = (*SHAPES, "tie").index(shape)
    return 1000 + 7 * n_pos + 13 * n_neg + round(100 * auc) + 100_000 * kind


ANALYTIC = ("floored", "newcombe", "modified-wald", "logit_delong", "delong")


def _span(values: list[float]) -> str:
    return f"{min(values):.3f}-{max(values):.3f}" if values else "-"


def tables(grid_json: str, boot_json: str) -> str:
    """The markdown tables of docs/validation.md from the two runs' outputs."""
    rows = json.load(open(grid_json))
    boot = {
        (r["n_positive"], r["n_negative"], r["auc"], r["shape"]): r
        for r in json.load(open(boot_json))
    }
    out = [
        "Coverage (min-max over the cells) by shape and positives; 20, 150 and 1,000 "
        "negatives, AUC 0.7-0.99:",
        "",
        "| shape | positives | " + " | ".join(ANALYTIC) + " |",
        "|---|---|" + "---|" * len(ANALYTIC),
    ]
    for shape in (*SHAPES, "tie"):
        for p in POSITIVES:
            sel = [
                r
                for r in rows
                if r["shape"] == shape
                and r["n_positive"] == p
                and r["n_positive"] != r["n_negative"]
            ]
            if sel:
                out.append(
                    f"| {shape} | {p} | "
                    + " | ".join(_span([r[f"coverage_{k}"] for r in sel]) for k in ANALYTIC)
                    + " |"
                )
    out += [
        "",
        "Balanced small test sets (positives = negatives), AUC 0.7-0.99:",
        "",
        "| shape | per class | " + " | ".join(ANALYTIC) + " |",
        "|---|---|" + "---|" * len(ANALYTIC),
    ]
    for shape in SHAPES:
        for k in BALANCED:
            sel = [
                r for r in rows if r["shape"] == shape and r["n_positive"] == r["n_negative"] == k
            ]
            out.append(
                f"| {shape} | {k} | "
                + " | ".join(_span([r[f"coverage_{m}"] for r in sel]) for m in ANALYTIC)
                + " |"
            )
    out += [
        "",
        "The bootstrap doors on the same test sets (150 negatives; coverage, median width):",
        "",
        "| shape | positives | AUC | BCa (auc_ci) | studentized | floored | newcombe "
        "| floored / BCa width |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, b in boot.items():
        g = next(r for r in rows if (r["n_positive"], r["n_negative"], r["auc"], r["shape"]) == key)
        out.append(
            f"| {key[3]} | {key[0]} | {key[2]} | {b['coverage_bca']:.3f}, {b['width_bca']:.3f} "
            f"| {b['coverage_studentized']:.3f}, {b['width_studentized']:.3f} "
            f"| {g['coverage_floored']:.3f}, {g['width_floored']:.3f} "
            f"| {g['coverage_newcombe']:.3f}, {g['width_newcombe']:.3f} "
            f"| {g['width_floored'] / b['width_bca']:.2f} |"
        )
    return "\n".join(out)


def main(argv: list[str]) -> None:
    if argv[0] == "--tables":
        print(tables(argv[1], argv[2]))
        return
    reps, out, boot = int(argv[0]), argv[1], "--boot" in argv
    rows = []
    t0 = time.time()
    for k, (p, n, a, s) in enumerate(grid(boot)):
        seed = cell_seed(p, n, a, s)
        rows.append(cell(p, n, a, s, reps, seed, boot))
        print(k, round(time.time() - t0), rows[-1], flush=True)
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
