"""Issue 25: the report's kernels do less work for the same numbers, bit for bit.

Every test runs the new path and the old one (kept here, or reached by switching the
shortcut off) on the same data, without conditions, with conditions and with
``sample_weight``, and compares the results exactly (``==`` on the floats).
"""

from __future__ import annotations

import numpy as np
import pytest

import mlci
import mlci.engine.bootstrap as engine_bootstrap


def _data(n: int = 600, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.clip(rng.beta(2, 2, n) * 0.6 + 0.3 * y, 1e-3, 1 - 1e-3)
    cond = rng.integers(0, 25, n)
    sw = rng.integers(1, 4, n).astype(float)
    return y, p, cond, sw


DESIGNS = [
    pytest.param({}, id="iid"),
    pytest.param({"conditions": "cond"}, id="conditions"),
    pytest.param({"sample_weight": "sw"}, id="sample_weight"),
]


def _options(design: dict, cond: np.ndarray, sw: np.ndarray) -> dict:
    return {k: {"cond": cond, "sw": sw}[v] for k, v in design.items()}


def _same(a: mlci.BootstrapResult, b: mlci.BootstrapResult) -> None:
    assert a.method == b.method
    assert a.details.get("method_reason") == b.details.get("method_reason")
    for field in ("estimate", "confidence_interval", "standard_error", "bootstrap_distribution"):
        x, z = np.asarray(getattr(a, field)), np.asarray(getattr(b, field))
        assert np.array_equal(x, z, equal_nan=True), field


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("metric", ["ece", "brier_reliability", "brier_resolution"])
def test_own_normal_rule_skips_the_gradient(
    metric: str, design: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """resolve_method: a metric whose own ``auto`` rule is not linearized (the debiased
    ECE and Brier terms: normal) gets it without the gradient at the data, and the same
    interval as through :func:`choose_method` with the linearization's support checked."""
    y, p, cond, sw = _data()
    opts = dict(metric=metric, n_resamples=200, rng=3, **_options(design, cond, sw))
    calls = []
    real = mlci.metrics.AdditiveKernel.gradient

    def spy(self, w, values):  # type: ignore[no-untyped-def]
        calls.append(self.name)
        return real(self, w, values)

    with monkeypatch.context() as m:
        m.setattr(mlci.metrics.AdditiveKernel, "gradient", spy)
        new = mlci.bootstrap_ci(y, p, **opts)
    # (with sample_weight the weighted kernel has no rule of its own: BCa, as before)
    assert new.method == ("bca" if "sample_weight" in design else "normal")
    assert (calls == []) == (new.method == "normal")
    # the old path: no shortcut, choose_method after the support check (which takes
    # the gradient at the data)
    with monkeypatch.context() as m:
        m.setattr(engine_bootstrap, "kernel_auto_method", lambda kernel, plan: None)
        m.setattr(mlci.metrics.AdditiveKernel, "gradient", spy)
        old = mlci.bootstrap_ci(y, p, **opts)
    assert calls  # the old path did take it
    _same(new, old)


@pytest.mark.parametrize("metric", ["ece", "brier_reliability", "brier_resolution"])
def test_gradient_by_blocks_of_atoms(metric: str) -> None:
    """AdditiveKernel.gradient from the binned kernels' sparse atoms by blocks (the
    first call: the gradient at the data) is the one einsum on the dense atoms (later
    calls: the replicates' chunks), bit for bit, at the data and on replicates."""
    from mlci.metrics import get_kernel

    y, p, _, _ = _data(n=5000)
    kernel = get_kernel(metric, [y, p], {})
    counts = np.bincount(kernel.keys, minlength=kernel.m).astype(float)
    w = np.vstack([counts, np.random.default_rng(2).multinomial(5000, counts / 5000, 3)])
    values = kernel.evaluate(w)
    step = max(1, (1 << 16) // kernel._sparse_atoms.shape[1])
    assert kernel.m > 2 * step  # several blocks
    old = np.einsum("md,bd...->bm...", kernel.atoms, kernel._sum_gradient(
        kernel._sums(w), np.abs(w).sum(axis=1, keepdims=True), values
    ))  # fmt: skip
    assert np.array_equal(kernel.gradient(w, values), old)  # (dense: the one einsum)
    for i in range(len(w)):  # by blocks: a fresh kernel's first call, on one row
        fresh = get_kernel(metric, [y, p], {})
        assert fresh._atoms is None and fresh._atom_blocks() is not None
        fresh._blocked = False
        new = fresh.gradient(w[i : i + 1], values[i : i + 1])
        assert fresh._atoms is None  # not built
        assert np.array_equal(new, old[i : i + 1])
        # the second call builds the dense atoms
        assert np.array_equal(fresh.gradient(w[i : i + 1], values[i : i + 1]), new)
        assert fresh._atoms is not None


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("metric", ["ece", "brier_reliability"])
def test_studentized_same_with_dense_atoms(
    metric: str, design: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The studentized interval (a gradient per replicate) is the same, bit for bit,
    from the blocks as from the dense atoms."""
    from mlci.metrics.binned import _BinnedKernel

    y, p, cond, sw = _data(n=3000)
    # (the plug-in estimators: the debiased ones are not functions of proportions)
    opts = dict(metric=metric, n_resamples=100, rng=1, method="studentized")
    opts["metric_kwargs"] = {"debias": False}
    opts.update(_options(design, cond, sw))
    if "sample_weight" in design:
        opts["method"] = "bca"  # (the weighted binned kernels have no gradient)
    new = mlci.bootstrap_ci(y, p, **opts)
    with monkeypatch.context() as m:
        m.setattr(_BinnedKernel, "_atom_blocks", lambda self: None)
        old = mlci.bootstrap_ci(y, p, **opts)
    _same(new, old)
