"""The calibration kernels' sparse construction (issue 25) against the dense one.

``_binned_kernel`` builds the atoms, keys and exact sums of the per-sample vectors
``(n, C * B * 3)`` (one-hot of the bin times (1, y, p), per column) from their three
non-zeros per sample; here they are compared bit for bit with ``AdditiveKernel`` on the
dense matrix (the construction before issue 25), and seeded intervals with the kernel
built from the dense matrix.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mlci
from mlci.metrics import calibration as cal
from mlci.metrics._base import AdditiveKernel, ExactSums


def _dense_phi(which: np.ndarray, p: np.ndarray, y: np.ndarray, n_bins: int) -> np.ndarray:
    """The dense per-sample vectors, as ``_binned_phi`` built them before issue 25."""
    n, c = p.shape
    phi = np.zeros((n, c, n_bins, 3))
    rows = np.arange(n)
    for j in range(c):
        phi[rows, j, which[:, j], 0] = 1.0
        phi[rows, j, which[:, j], 1] = y[:, j]
        phi[rows, j, which[:, j], 2] = p[:, j]
    return phi.reshape(n, -1)


def _data(seed: int, n: int, c: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    # ties: probabilities on a grid of 0.01 (many samples share an atom), 0 and 1 included
    p = np.round(rng.random((n, c)), 2)
    p[:3, 0] = [0.0, 1.0, 0.5]
    y = (rng.random((n, c)) < p**1.3).astype(float)
    return p, y


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("c", [1, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_atoms_keys_sums_match_dense(strategy: str, c: int, seed: int) -> None:
    n_bins = 7
    p, y = _data(seed, 600, c)
    which = cal._column_bins(p, n_bins, strategy)
    g = cal._ece(c, n_bins)
    kernel, total = cal._binned_kernel(AdditiveKernel, which, p, y, n_bins, g, "ece")
    phi = _dense_phi(which, p, y, n_bins)
    dense = AdditiveKernel(phi, g, (), "ece")
    assert np.array_equal(kernel.atoms, dense.atoms)
    assert np.array_equal(kernel.keys, dense.keys)
    assert np.array_equal(total, phi.sum(axis=0)[None, :])
    sparse_pieces = kernel._sums.pieces.toarray()
    assert np.array_equal(sparse_pieces, dense._sums.pieces)
    assert np.array_equal(kernel._sums.scale, dense._sums.scale)
    # integer replicate counts of the atoms, one at a time and in a chunk: the same bits
    rng = np.random.default_rng(seed + 10)
    w = rng.multinomial(len(p), np.bincount(dense.keys) / len(p), size=20).astype(float)
    assert np.array_equal(kernel._sums(w), dense._sums(w))
    assert np.array_equal(kernel._sums(w[3]), dense._sums(w[3]))
    assert np.array_equal(kernel.evaluate(w), dense.evaluate(w))
    # per condition (the one-atom-per-condition collapse) and side by side (joint systems)
    cond = rng.integers(0, 11, len(p))
    unit, unit_dense = kernel.by_unit(cond, 11), dense.by_unit(cond, 11)
    assert unit is not None and unit_dense is not None
    u = rng.multinomial(11, np.full(11, 1 / 11), size=15) * np.bincount(cond, minlength=11)
    assert np.array_equal(unit.evaluate(u), unit_dense.evaluate(u))
    rows = rng.integers(0, kernel.m, 50)
    both = ExactSums.side_by_side([(kernel._sums, rows), (dense._sums, rows)])
    ws = rng.integers(0, 5, (4, 50)).astype(float)
    out = both(ws)
    assert np.array_equal(out[:, : dense._sums.d], out[:, dense._sums.d :])
    assert np.array_equal(out[:, : dense._sums.d], dense._sums(ws @ np.eye(kernel.m)[rows]))


def _patch_dense(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the calibration kernels build from the dense matrix, as before issue 25."""

    def dense_kernel(cls, which, p, y, n_bins, g, name):  # type: ignore[no-untyped-def]
        phi = _dense_phi(which, p, y, n_bins)
        return cls(phi, g, (), name), phi.sum(axis=0)[None, :]

    monkeypatch.setattr(cal, "_binned_kernel", dense_kernel)


@pytest.mark.parametrize(
    ("metric", "kw"),
    [
        ("ece", {}),
        ("ece", {"metric_kwargs": {"strategy": "quantile", "n_bins": 10}}),
        ("mce", {}),
        ("ece_debiased", {}),
        ("brier_reliability", {}),
        ("brier_resolution", {"metric_kwargs": {"strategy": "quantile"}}),
        ("brier_uncertainty", {}),
    ],
)
@pytest.mark.parametrize("design", ["iid", "conditions", "weights"])
def test_seeded_intervals_unchanged(
    monkeypatch: pytest.MonkeyPatch, metric: str, kw: dict, design: str
) -> None:
    p, y = _data(3, 400, 1)
    rng = np.random.default_rng(4)
    extra: dict = {}
    if design == "conditions":
        extra["conditions"] = rng.integers(0, 30, len(p))
    elif design == "weights":
        extra["sample_weight"] = rng.integers(1, 4, len(p)).astype(float)

    now, before = _now_and_dense(
        monkeypatch, y, p, metric=metric, n_resamples=200, rng=7, **kw, **extra
    )
    assert now == before


def _now_and_dense(monkeypatch: pytest.MonkeyPatch, y: np.ndarray, p: np.ndarray, **kw) -> tuple:
    """The seeded interval and replicates of ``bootstrap_ci(y, p, **kw)`` now and with the
    kernel built from the dense matrix (as before issue 25)."""

    def run() -> tuple:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = mlci.bootstrap_ci(y[:, 0].astype(int), p[:, 0], **kw)
        return (r.estimate, tuple(r.confidence_interval), r.bootstrap_distribution.tobytes())

    now = run()
    with monkeypatch.context() as mp:
        _patch_dense(mp)
        before = run()
    return now, before


def test_strategy_unique_matches_dense(monkeypatch: pytest.MonkeyPatch) -> None:
    p, y = _data(5, 300, 1)
    kw = {
        "metric": "brier_reliability",
        "metric_kwargs": {"strategy": "unique"},
        "n_resamples": 100,
        "rng": 2,
    }
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        now = mlci.bootstrap_ci(y[:, 0].astype(int), p[:, 0], **kw)
        _patch_dense(monkeypatch)
        before = mlci.bootstrap_ci(y[:, 0].astype(int), p[:, 0], **kw)
    assert tuple(now.confidence_interval) == tuple(before.confidence_interval)
    assert np.array_equal(now.bootstrap_distribution, before.bootstrap_distribution)


def test_exact_sums_of_a_sparse_matrix_match_dense() -> None:
    from scipy import sparse

    rng = np.random.default_rng(8)
    # rows with 0 to 6 non-zeros, negative values, a zero column, an empty row
    dense = np.where(rng.random((40, 7)) < 0.4, rng.normal(size=(40, 7)) * 1e3, 0.0)
    dense[:, 4] = 0.0
    dense[5] = 0.0
    sums, ref = ExactSums(sparse.csr_matrix(dense)), ExactSums(dense)
    assert np.array_equal(sums.pieces.toarray(), ref.pieces)
    w = rng.integers(0, 9, (6, 40)).astype(float)
    assert np.array_equal(sums(w), ref(w))
    table = sparse.csr_matrix(rng.integers(0, 3, (5, 40)).astype(float))
    assert np.array_equal(sums.grouped(table).pieces, ref.grouped(table).pieces)


@pytest.mark.parametrize("c", [1, 3])
def test_steps_from_sparse_atoms_match_dense(c: int) -> None:
    # the forward differences' steps from the sparse atoms (issue 25: no (m, d) array of
    # |atoms| at every call) against AdditiveKernel's on the dense atoms, bit for bit;
    # continuous probabilities: about one atom per sample, sums in many orders
    rng = np.random.default_rng(21)
    p = rng.random((20_000, c))
    y = (rng.random((20_000, c)) < p).astype(float)
    n_bins = 15
    which = cal._column_bins(p, n_bins, "uniform")
    kernel, _ = cal._binned_kernel(
        cal._BinnedKernel, which, p, y, n_bins, cal._ece_normal_debiased(c, n_bins), "ece"
    )
    assert kernel.m > 19_000
    dense_mean = np.abs(kernel.atoms).mean(0)
    assert np.array_equal(kernel._mean_abs_atoms(), dense_mean)
    w = rng.multinomial(len(p), np.full(kernel.m, 1 / kernel.m), size=3).astype(float)
    w = np.vstack([np.bincount(kernel.keys, minlength=kernel.m)[None, :], w])
    s = kernel._sums(w)
    values = kernel.g(s)
    total = np.abs(w).sum(axis=1, keepdims=True)
    ours = kernel._sum_gradient(s, total, values)
    assert np.array_equal(ours, AdditiveKernel._sum_gradient(kernel, s, total, values))
    assert np.array_equal(kernel.gradient(w, values), AdditiveKernel.gradient(kernel, w, values))


@pytest.mark.parametrize("metric", ["ece", "brier_reliability"])
@pytest.mark.parametrize("design", ["iid", "conditions"])
def test_linearized_intervals_unchanged(
    monkeypatch: pytest.MonkeyPatch, metric: str, design: str
) -> None:
    # the studentized interval reads the gradient (its steps): the same bits as the
    # kernel built from the dense matrix (the plug-in terms: the debiased ones change
    # with the sample size and have no linearization)
    p, y = _data(6, 500, 1)
    extra: dict = {}
    if design == "conditions":
        extra["conditions"] = np.random.default_rng(2).integers(0, 40, len(p))

    now, before = _now_and_dense(
        monkeypatch, y, p, metric=metric, n_resamples=200, rng=3, method="studentized",
        metric_kwargs={"debias": False}, **extra,
    )  # fmt: skip
    assert now == before


@pytest.mark.parametrize("uniform", [True, False])
def test_sparse_pieces_are_the_dense_ones(uniform):
    # ExactSums of sparse atoms: rows of one length (the binned kernels: strided copies)
    # and of several lengths (scattered writes) give the dense path's pieces bit for bit
    from scipy import sparse

    rng = np.random.default_rng(3)
    m, d = 400, 12
    dense = np.zeros((m, d))
    for r in range(m):
        k = 3 if uniform else int(rng.integers(1, 6))
        cols = rng.choice(d, k, replace=False)
        dense[r, cols] = rng.normal(0, 10.0 ** rng.integers(-3, 4), k)
    a, b = ExactSums(sparse.csr_matrix(dense)), ExactSums(dense)
    assert np.array_equal(a.pieces.toarray(), b.pieces) and np.array_equal(a.scale, b.scale)
    w = rng.integers(0, 4, (5, m)).astype(float)
    assert np.array_equal(a(w), b(w))
