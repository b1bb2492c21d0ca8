"""Draw the pictures of docs/plots.md into docs/images/ (PNG), from the bundled example.

    python scripts/make_plot_images.py            # all images
    python scripts/make_plot_images.py --out DIR  # elsewhere

Every figure is made by the code shown in docs/plots.md (the same calls, fixed seeds),
so the images show what the functions draw today; rerun after changing plotting.py.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import mlci
from mlci import plotting
from mlci.data import load_example
from mlci.scores.curves import det_curve, pr_curve, roc_band, roc_curve

OUT = Path(__file__).resolve().parents[1] / "docs" / "images"
B = 500  # replicates: enough for a picture


def figures() -> dict[str, plt.Figure]:
    d = load_example(as_frame=False)
    y, spk = d["label"], d["speaker"]
    out = {}

    # forest plot: two systems x two metrics
    fig, ax = plt.subplots(figsize=(6, 2.6))
    results = {
        f"{m} {sys_name}": mlci.bootstrap_ci(
            y,
            d[sys_name],
            metric=m,
            conditions=spk,
            n_resamples=B,
            rng=0,
            **({"average": "macro"} if m == "f1" else {}),
        )
        for m in ("accuracy", "f1")
        for sys_name in ("pred", "pred_baseline")
    }
    plotting.plot_forest(results, ax=ax, metric="accuracy / macro F1")
    out["forest"] = fig

    # paired differences and the comparison matrix of three systems
    rng = np.random.default_rng(0)
    third = np.where(rng.random(len(y)) < 0.55, y, d["pred_baseline"])
    systems = {"pred": d["pred"], "baseline": d["pred_baseline"], "mixed": third}
    res = mlci.compare(y, systems, metric="accuracy", conditions=spk, n_resamples=B, rng=0)
    fig, ax = plt.subplots(figsize=(6, 2.4))
    plotting.plot_differences(res, ax=ax)
    out["differences"] = fig
    fig, ax = plt.subplots(figsize=(5, 4))
    plotting.plot_comparison_matrix(res, ax=ax)
    out["comparison_matrix"] = fig

    # ROC, DET and PR of the angry-vs-rest scores, with bands
    s = mlci.Scores.from_labels(d["is_angry"], d["score_angry"])
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    pointwise = roc_band(s, n_resamples=B, rng=0, conditions=spk)
    simultaneous = roc_band(s, n_resamples=B, rng=0, conditions=spk, simultaneous=True)
    plotting.plot_roc(roc_curve(s), pointwise, ax=ax, label="angry vs rest")
    plotting.plot_band(simultaneous, ax=ax, alpha=0.12, color="C0")
    fnr, _ = mlci.operating_point_ci(s, "tpr", at=0.1, x="fpr", n_resamples=B, rng=0)
    plotting.plot_operating_point(0.1, fnr, ax=ax, color="C3", label="TPR at FPR 10%")
    ax.legend(loc="lower right")
    out["roc"] = fig

    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    grid = plotting.det_grid()
    band = roc_band(s, grid, n_resamples=B, rng=0, conditions=spk)
    plotting.plot_det(det_curve(s), band, ax=ax, label="angry vs rest")
    fnr, _ = mlci.operating_point_ci(s, "fnr", at=0.05, x="fpr", n_resamples=B, rng=0)
    plotting.plot_operating_point(0.05, fnr, ax=ax, probit=True, color="C3", label="FNR at FPR 5%")
    ax.legend(loc="upper right")
    out["det"] = fig

    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    plotting.plot_pr(pr_curve(s), ax=ax, label="angry vs rest")
    ax.legend(loc="lower left")
    out["pr"] = fig

    # reliability diagram of the angry probability
    fig, ax = plt.subplots(figsize=(4.5, 4.5))
    plotting.plot_reliability(d["is_angry"], d["score_angry"], ax=ax, label="score_angry")
    out["reliability"] = fig

    # bootstrap distribution with the interval
    fig, ax = plt.subplots(figsize=(5, 3))
    acc = mlci.bootstrap_ci(
        y, d["pred"], metric="accuracy", conditions=spk, n_resamples=2000, rng=0
    )
    plotting.plot_bootstrap_distribution(acc, ax=ax)
    out["bootstrap_distribution"] = fig

    # critical-difference diagram
    table = np.genfromtxt(
        Path(__file__).resolve().parents[1] / "docs" / "data" / "datasets_example.csv",
        delimiter=",",
        names=True,
        dtype=None,
        encoding="utf-8",
    )
    names = list(table.dtype.names[1:])
    scores = np.column_stack([table[n] for n in names])
    fig, ax = plt.subplots(figsize=(6, 2.4))
    plotting.plot_critical_difference(mlci.critical_difference(scores, names=names), ax=ax)
    out["critical_difference"] = fig
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=OUT)
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, fig in figures().items():
        path = args.out / f"{name}.png"
        fig.savefig(path, dpi=90, bbox_inches="tight")
        plt.close(fig)
        print(path)


if __name__ == "__main__":
    main()
