"""compare's AUC contrast over whole conditions from the systems' unit pair matrices
(issue 25): the same replicates, bit for bit, and the standard errors of the (b, m, k)
gradient path to rounding."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import mlci
from mlci.comparison.common import ContrastKernel, JointKernel
from mlci.engine.bootstrap import run_replicates
from mlci.engine.linearize import Linearization
from mlci.engine.nested import plan_for_conditions
from mlci.metrics import get_kernel


def _run(batch=None):
    def run(evaluate, smp, shape, per_row):
        return run_replicates(evaluate, smp, shape, bytes_per_row=per_row, batch=batch, n_jobs=1)

    return run


@pytest.mark.parametrize("ties", [False, True])
def test_auc_contrast_whole_units_equal_the_gradient_path(ties):
    rng = np.random.default_rng(4)
    n, c = 3_000, 60
    y = rng.integers(0, 2, n)
    cond = rng.integers(0, c, n)
    effect = rng.normal(0, 0.5, c)[cond]
    scores = [y * (0.5 + 0.3 * k) + effect + rng.normal(size=n) for k in range(3)]
    if ties:
        scores = [np.round(s, 1) for s in scores]
    kernels = [get_kernel("roc_auc", [y, s], {}) for s in scores]
    contrast = ContrastKernel(
        JointKernel(kernels, "roc_auc"), np.array([0, 0, 1]), np.array([1, 2, 2])
    )
    assert callable(getattr(contrast, "whole_units", None))
    plan = plan_for_conditions(n, conditions=cond, n_resamples=150, rng=3)
    lin = Linearization(contrast, plan)
    v1, se1, _ = lin.run(_run(batch=7))
    v0, se0, _ = lin.run(_run(), fused=False)
    assert v1.shape == (150, 6)
    assert np.array_equal(v1, v0)  # the AUCs in integers: bit for bit
    np.testing.assert_allclose(se1, se0, rtol=1e-10, atol=1e-15)
    # the estimate's systems are scikit-learn's AUCs, the pairs their differences
    full = contrast.evaluate(np.bincount(contrast.keys, minlength=contrast.m)[None, :] * 1.0)[0]
    ref = [skm.roc_auc_score(y, s) for s in scores]
    np.testing.assert_allclose(full[:3], ref, rtol=1e-12)
    np.testing.assert_allclose(full[3:], [ref[0] - ref[1], ref[0] - ref[2], ref[1] - ref[2]])


def test_compare_auc_systems_equal_bootstrap_ci_over_conditions():
    # each system's result of compare is bootstrap_ci's on the same condition draws (the
    # report reuses them): the same interval, with the whole-units form on both sides
    rng = np.random.default_rng(8)
    n, c = 2_000, 40
    y = rng.integers(0, 2, n)
    cond = rng.integers(0, c, n)
    systems = {f"s{k}": y * (0.6 + 0.2 * k) + rng.normal(size=n) for k in range(2)}
    res = mlci.compare(y, systems, metric="roc_auc", conditions=cond, n_resamples=200, rng=0)
    for name, out in systems.items():
        one = mlci.bootstrap_ci(y, out, metric="roc_auc", conditions=cond, n_resamples=200, rng=0)
        assert res.systems[name].method == one.method == "studentized"
        np.testing.assert_allclose(
            res.systems[name].confidence_interval, one.confidence_interval, rtol=1e-12
        )
