"""Plotting shells run with the Agg backend."""

import warnings

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


# ---------------------------------------------------------------------------------------
# checked renders: every plot draws something (not a blank image) with the artists it
# promises; no pixel-exact comparison
# ---------------------------------------------------------------------------------------
import pytest  # noqa: E402

import mlci  # noqa: E402
from mlci import plotting  # noqa: E402


def _pixels(fig):
    fig.canvas.draw()
    img = np.asarray(fig.canvas.buffer_rgba())[..., :3].astype(int)
    plt.close(fig)
    return img


def _not_blank(fig, min_share=0.01):
    img = _pixels(fig)
    ink = (np.abs(img - 255).sum(axis=2) > 60).mean()  # share of non-white pixels
    assert ink > min_share, f"only {ink:.2%} of the image is drawn"
    return img


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 400)
    return y, y + rng.normal(0, 1.2, 400)


def test_forest_axis_from_the_data_and_labelled():
    res = {n: mlci.proportion_ci(k, 200, metric="accuracy") for n, k in [("a", 150), ("b", 170)]}
    fig, ax = plt.subplots()
    plotting.plot_forest(res, ax=ax)
    assert ax.get_xlim()[0] > 0.6 and ax.get_xlabel() == "accuracy (95% CI)"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    assert len(ax.containers) == 1  # one errorbar container with both rows
    _not_blank(fig)


def test_differences_zero_line_and_adjusted_p(scores):
    y, s = scores
    systems = {"x": (s > 0.5).astype(int), "z": (s > 0.2).astype(int), "w": (s > 1).astype(int)}
    res = mlci.compare(y, systems, metric="accuracy", n_resamples=100, rng=0)
    fig, ax = plt.subplots()
    plotting.plot_differences(res, ax=ax)
    assert any(np.allclose(line.get_xdata(), 0) for line in ax.lines)  # the zero line
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 3 and all("p adj." in t for t in labels)
    _not_blank(fig)
    fig, ax = plt.subplots()
    plotting.plot_comparison_matrix(res, ax=ax)
    assert len(ax.images) == 1 and sum("p=" in t.get_text() for t in ax.texts) == 6
    _not_blank(fig, 0.05)


def test_roc_det_bands_and_operating_point(scores):
    y, s = scores
    sc = mlci.Scores.from_labels(y, s)
    band = roc_band(sc, plotting.det_grid(40), n_resamples=100, rng=0)
    fig, ax = plt.subplots()
    plotting.plot_det(det_curve(sc), band, ax=ax)
    low, high = ax.get_ylim()
    # probit axes from the data, never stretched to the clipped infinite band ends
    assert -4 < low < high < 3 and ax.get_yticklabels()[0].get_text().endswith("%")
    assert len(ax.collections) == 1 and len(ax.lines) == 1
    fnr, _ = mlci.operating_point_ci(sc, "fnr", at=0.1, x="fpr", n_resamples=100, rng=0)
    plotting.plot_operating_point(0.1, fnr, ax=ax, probit=True)
    assert len(ax.containers) == 1
    _not_blank(fig)
    fig, ax = plt.subplots()
    plotting.plot_roc(roc_curve(sc), roc_band(sc, n_resamples=100, rng=0), ax=ax)
    with warnings.catch_warnings():  # the default grid keeps 10 of each class (session 10)
        warnings.simplefilter("error", mlci.NearBoundWarning)
        warnings.simplefilter("ignore", mlci.FewResamplesWarning)
        sim = roc_band(sc, n_resamples=100, rng=0, simultaneous=True)
    plotting.plot_band(sim, ax=ax)
    assert len(ax.collections) == 2  # pointwise and simultaneous bands
    _not_blank(fig)


def test_reliability_bootstrap_and_cd(scores):
    y, s = scores
    p = 1 / (1 + np.exp(-(s - 0.5) * 2))
    fig, ax = plt.subplots()
    plotting.plot_reliability(y, p, n_bins=8, ax=ax)
    assert len(ax.collections) == 1 and len(ax.lines) == 2  # band; diagonal and curve
    _not_blank(fig)
    res = mlci.bootstrap_ci(y, (s > 0.5).astype(int), metric="accuracy", n_resamples=200, rng=0)
    fig, ax = plt.subplots()
    plotting.plot_bootstrap_distribution(res, ax=ax)
    assert len(ax.patches) == 40 and len(ax.lines) == 3
    _not_blank(fig)
    cd = mlci.critical_difference(
        [[0.9, 0.8, 0.7], [0.85, 0.8, 0.75], [0.7, 0.72, 0.6], [0.9, 0.85, 0.8]],
        names=["A", "B", "C"],
    )
    fig, ax = plt.subplots(figsize=(6, 2))
    plotting.plot_critical_difference(cd, ax=ax)
    assert {"A", "B", "C"} <= {t.get_text() for t in ax.texts}
    assert any(t.get_text().startswith("CD = ") for t in ax.texts)
    _not_blank(fig, 0.005)


def test_pr_with_a_band_and_interval_bars(scores):
    # the two plots test_plots_draw only calls: checked renders too
    from types import SimpleNamespace

    y, s = scores
    sc = Scores.from_labels(y, s)
    curve = pr_curve(sc)
    recall = np.linspace(0.05, 0.95, 10)
    band = SimpleNamespace(x=recall, low=np.full(10, 0.5), high=np.full(10, 0.8))  # a band
    fig, ax = plt.subplots()
    plotting.plot_pr(curve, band, ax=ax)
    assert len(ax.lines) >= 1 and len(ax.collections) == 1  # the curve and its band
    _not_blank(fig)
    res = [mlci.proportion_ci(k, 50) for k in (30, 40)]
    for kind in ("bar", "point"):
        fig, ax = plt.subplots()
        plotting.plot_intervals(res, ["a", "b"], ax=ax, kind=kind)
        assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b"]
        _not_blank(fig, 0.005)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: plotting.plot_forest({}), "`results` is empty"),
        (lambda: plotting.plot_forest([mlci.proportion_ci(1, 2)], ["a", "b"]), "`labels`"),
        (lambda: plotting.plot_differences([]), "`result`"),
        (lambda: plotting.plot_reliability([0, 1], [0.5, 1.5]), "`y_prob`"),
        (lambda: plotting.plot_reliability([0, np.nan], [0.5, 0.5]), "`y_true`"),
        (lambda: plotting.plot_reliability([0, 2], [0.5, 0.5]), "`y_true`"),
        (lambda: plotting.plot_reliability([0, 1], [0.5, 0.5], n_bins=0), "`n_bins`"),
        (lambda: plotting.plot_reliability([0, 1], [0.5], n_bins=3), "y_"),
        (
            lambda: plotting.plot_reliability([0, 1], [0.5, 0.5], confidence_level=95),
            "`confidence_level`",
        ),
        (lambda: plotting.plot_bootstrap_distribution(mlci.proportion_ci(1, 2)), "`result`"),
    ],
)
def test_plot_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
    plt.close("all")


def test_long_curves_are_drawn_through_the_points_a_figure_shows():
    # issue 25: a ROC curve of 10^6 samples has 10^6 points; the plot keeps, of every run
    # of points in one cell of a 10,000 x 10,000 grid, the first and last: the line
    # moves by less than a cell's diagonal
    from mlci.plotting import _DISPLAY_CELLS, _display_points
    from mlci.scores.curves import pr_curve, roc_curve

    rng = np.random.default_rng(0)
    s = mlci.Scores(rng.normal(1, 1, 60_000), rng.normal(0, 1, 60_000))
    for curve in (roc_curve(s), pr_curve(s)):
        x, y = np.asarray(curve.x, float), np.asarray(curve.y, float)
        tx, ty = _display_points(x, y)
        assert len(tx) < len(x) / 2
        assert (tx[0], ty[0], tx[-1], ty[-1]) == (x[0], y[0], x[-1], y[-1])
        # every point's distance to the segment between the kept points around it
        kept = _kept_indices(x, y, tx, ty)
        hi = np.searchsorted(kept, np.arange(len(x)), side="left").clip(1, len(kept) - 1)
        a, b = kept[hi - 1], kept[hi]
        sx, sy = (x.max() - x.min()) / _DISPLAY_CELLS, (y.max() - y.min()) / _DISPLAY_CELLS
        px, py = (x - x[a]) / sx, (y - y[a]) / sy
        dx, dy = (x[b] - x[a]) / sx, (y[b] - y[a]) / sy
        t = np.clip((px * dx + py * dy) / np.maximum(dx * dx + dy * dy, 1e-300), 0, 1)
        dist = np.hypot(px - t * dx, py - t * dy)
        assert dist.max() <= np.sqrt(2) + 1e-9
    # short lines, and lines with a non-finite value, as they are
    x = np.linspace(0, 1, 100)
    assert len(_display_points(x, x)[0]) == 100
    long = np.linspace(0, 1, 50_000)
    bad = long.copy()
    bad[3] = np.nan
    assert len(_display_points(long, bad)[0]) == 50_000


def _kept_indices(x, y, tx, ty):
    """Indices of the kept points in the original line (in order, first match)."""
    out, j = [], 0
    for i in range(len(x)):
        if j < len(tx) and x[i] == tx[j] and y[i] == ty[j]:
            out.append(i)
            j += 1
    assert j == len(tx)
    return np.array(out)
