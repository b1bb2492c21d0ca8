"""Additive kernels on one atom per condition (issue 25): the same replicates, bit for bit.

Under a one-stage condition bootstrap every sample of a condition gets its condition's
count, so an additive metric needs only the conditions' sums of its per-sample vectors.
The engine then draws ``n_conditions`` atoms per replicate instead of one per distinct
score; the values must be those of the atoms exactly (the sums are exact integers of
fixed-point pieces), and the jackknife and linearized paths unchanged.
"""

from __future__ import annotations

import numpy as np
import pytest

from mlci.engine.bootstrap import kernel_jackknife, run_replicates, unit_kernel
from mlci.engine.linearize import Linearization
from mlci.engine.resampling import make_plan
from mlci.metrics import get_kernel, metric_params


def _data(n: int = 3000, n_cond: int = 60, seed: int = 0):
    rng = np.random.default_rng(seed)
    cond = rng.integers(0, n_cond, n)
    p = rng.random(n)
    y = (rng.random(n) < p**1.5).astype(int)
    return y, p, cond


def _kernel(metric: str, y: np.ndarray, p: np.ndarray):
    arrays = [p] if metric == "mean" else [y, p]
    names = ["values"] if metric == "mean" else ["y_true", "y_score"]
    return get_kernel(metric, arrays, metric_params(metric, None, "default", None), names=names)


# mce warns at every call that no interval held its level (docs/calibration.md)
@pytest.mark.filterwarnings("ignore:No interval of 'mce':mlci.exceptions.IrregularEstimandWarning")
@pytest.mark.parametrize("metric", ["ece", "brier_reliability", "mce", "mean"])
@pytest.mark.parametrize("weights", ["multinomial", "poisson"])
def test_unit_kernel_replicates_and_jackknife_are_bit_identical(metric, weights):
    y, p, cond = _data()
    kernel = _kernel(metric, y, p)
    plan = make_plan(len(y), conditions=cond, weights=weights, n_resamples=64, rng=5)
    rk = unit_kernel(kernel, plan)
    assert rk is not kernel and rk.m == 60 < kernel.m
    atoms = plan.weights_for(kernel.keys, kernel.m)
    units = plan.weights_for(rk.keys, rk.m)
    a = run_replicates(kernel.evaluate, atoms, kernel.shape, bytes_per_row=8.0, batch=16)
    b = run_replicates(rk.evaluate, units, rk.shape, bytes_per_row=8.0, batch=16)
    assert np.array_equal(a, b, equal_nan=True)
    assert np.array_equal(
        kernel.evaluate(atoms.counts[None, :]), rk.evaluate(units.counts[None, :])
    )
    for groups in (20, 1000):  # grouped and delete-one-condition jackknife
        ja, ma = kernel_jackknife(kernel, atoms, groups)
        jb, mb = kernel_jackknife(rk, units, groups)
        assert np.array_equal(ja, jb, equal_nan=True) and np.array_equal(ma, mb)


def test_unit_kernel_only_for_one_stage_conditions():
    y, p, cond = _data()
    kernel = _kernel("ece", y, p)
    for plan in (
        make_plan(len(y), n_resamples=10, rng=0),
        make_plan(len(y), conditions=cond, two_stage=True, n_resamples=10, rng=0),
    ):
        assert unit_kernel(kernel, plan) is kernel
    # fewer atoms than conditions: kept as it is
    few = get_kernel(
        "accuracy", [y, (p > 0.5).astype(int)], metric_params("accuracy", None, "default", None)
    )
    plan = make_plan(len(y), conditions=cond, n_resamples=10, rng=0)
    assert unit_kernel(few, plan) is few


@pytest.mark.parametrize("metric", ["brier_reliability", "ece", "mean"])
def test_whole_units_linearization_matches_the_atoms_path(metric):
    y, p, cond = _data(seed=2)
    kernel = _kernel(metric, y, p)
    plan = make_plan(len(y), conditions=cond, n_resamples=48, rng=9)
    lin = Linearization(kernel, plan)

    def run(evaluate, smp, shape, per_row):
        return run_replicates(evaluate, smp, shape, bytes_per_row=per_row, batch=16)

    v_fused, se_fused, _ = lin.run(run, fused=True)
    v_atoms, se_atoms, _ = lin.run(run, fused=False)
    assert np.array_equal(v_fused, v_atoms, equal_nan=True)  # the values: bit for bit
    np.testing.assert_allclose(se_fused, se_atoms, rtol=1e-12)  # the SE: to rounding
