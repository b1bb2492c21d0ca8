"""Plotting shells run with the Agg backend."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

from mlci import Scores
from mlci.plotting import plot_det, plot_intervals, plot_pr, plot_roc
from mlci.scores.curves import det_curve, pr_curve, roc_band, roc_curve


def test_plots_draw():
    rng = np.random.default_rng(0)
    s = Scores(rng.normal(1, 1, 200), rng.normal(0, 1, 200))
    band = roc_band(s, np.linspace(0, 1, 11), rng=0, n_resamples=100)
    fig, axes = plt.subplots(1, 4)
    plot_roc(roc_curve(s), band, ax=axes[0])
    plot_det(det_curve(s), band, ax=axes[1])
    plot_pr(pr_curve(s), ax=axes[2])
    res = [s.bootstrap_ci("fnr", threshold=t, rng=0, n_resamples=100) for t in (0.0, 0.5)]
    plot_intervals(res, ["t=0", "t=0.5"], ax=axes[3], kind="point")
    assert len(axes[0].lines) == 1 and len(axes[0].collections) == 1
    plt.close(fig)
