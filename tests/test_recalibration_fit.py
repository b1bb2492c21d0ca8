"""The calibration slope's and intercept's replicates: fast paths equal to the fit.

Every replicate's coefficient is a logistic fit on the replicate's weights.  The kernel
fits them by Newton's method from the data's fit (independent samples), or from the
conditions' Taylor moments of the score (whole conditions, mlci.metrics.recalibration).
Oracle: statsmodels' binomial GLM with ``freq_weights`` (``offset`` for the intercept),
fitted to 1e-14, and the step-halving Newton fit the kernel used before
(``_fit_safeguarded``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import sparse

import mlci
from mlci.metrics.calibration import recalibration_kernel
from mlci.metrics.recalibration import CERTIFIED, ORDER, SUP_NEXT, sigmoid_derivatives

#: small test sets of the intercept warn (few events): not the point of the fits' tests
pytestmark = pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")


def _data(n, seed=0, c=None):
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    y = (rng.random(n) < p**2).astype(int)
    unit = None if c is None else rng.integers(0, c, n)
    return y, p, unit, rng


def _glm(y, z, w, part):
    """statsmodels' fit of one replicate (weights w per sample)."""
    fam = sm.families.Binomial()
    if part == "slope":
        return sm.GLM(y, sm.add_constant(z), family=fam, freq_weights=w).fit(tol=1e-14).params[1]
    ones = np.ones((len(y), 1))
    return sm.GLM(y, ones, family=fam, offset=z, freq_weights=w).fit(tol=1e-14).params[0]


def _unit_table(k, unit, c):
    return sparse.csr_matrix((np.ones(len(unit)), (unit, k.keys)), shape=(c, k.m))


def _cells(k, unit):
    cells, count = np.unique(unit.astype(np.int64) * k.m + k.keys, return_counts=True)
    return cells // k.m, cells % k.m, count


@pytest.mark.parametrize("part", ["slope", "intercept"])
def test_replicates_match_statsmodels(part):
    y, p, _, rng = _data(400)
    k = recalibration_kernel(part, y, p)
    w = rng.multinomial(400, np.ones(k.m) / k.m, size=4).astype(float)
    values = k.evaluate(w)
    # the kernel's atoms are its distinct (y, p) pairs; statsmodels gets them with weights
    for row, v in zip(w, values, strict=True):
        assert v == pytest.approx(_glm(k.y, k.z, row, part), abs=1e-10)


@pytest.mark.parametrize("part", ["slope", "intercept"])
@pytest.mark.parametrize("n", [300, 20_000])
def test_newton_equals_the_safeguarded_fit(part, n):
    y, p, _, rng = _data(n, 1)
    k = recalibration_kernel(part, y, p)
    w = rng.multinomial(n, np.ones(k.m) / k.m, size=6).astype(float)
    beta, ok = k._fit_safeguarded(w)
    old = beta[:, 1] if part == "slope" else beta[:, 0]
    assert ok.all()
    np.testing.assert_allclose(k.evaluate(w), old, rtol=0, atol=1e-10)
    # the fused moments of the linearized interval: those of the (b, m) gradient
    values, s1, s2 = k.influence_moments(w)
    grad = k.gradient(w, values)
    np.testing.assert_allclose(values, old, rtol=0, atol=1e-10)
    np.testing.assert_allclose(s1, (w * grad).sum(axis=1), rtol=0, atol=1e-9)
    np.testing.assert_allclose(s2, (w * grad**2).sum(axis=1), rtol=1e-9)


def test_one_outcome_replicate_is_undefined():
    # a replicate of positives only has no finite fit: NaN (as the step-halving fit)
    y, p, _, _ = _data(200, 2)
    k = recalibration_kernel("slope", y, p)
    w = np.where(k.y == 1, 1.0, 0.0)[None, :]
    assert np.isnan(k.evaluate(w)).all()
    assert not k._fit_safeguarded(w)[1].any()


@pytest.mark.parametrize("part", ["slope", "intercept"])
@pytest.mark.parametrize(("n", "c"), [(300, 20), (60_000, 500)])
def test_whole_conditions_match_the_fit_on_samples(part, n, c):
    y, p, unit, rng = _data(n, 3, c)
    k = recalibration_kernel(part, y, p)
    u = rng.multinomial(c, np.ones(c) / c, size=8).astype(float)
    u[0] = 1.0  # the data itself
    w = np.asarray((_unit_table(k, unit, c).T @ u.T).T)
    beta, _ = k._fit_safeguarded(w)
    exact = beta[:, 1] if part == "slope" else beta[:, 0]
    uk = k.by_unit(unit, c)
    np.testing.assert_allclose(uk.evaluate(u * uk.n_per_unit), exact, rtol=0, atol=1e-10)
    values, inner = k.whole_units(*_cells(k, unit), c)(u)
    np.testing.assert_allclose(values, exact, rtol=0, atol=1e-10)
    grad = k.gradient(w, exact)
    reference = np.asarray(_unit_table(k, unit, c) @ grad.T).T
    np.testing.assert_allclose(inner, reference, rtol=0, atol=1e-9 * np.abs(reference).max())
    moments = uk._parts[0]
    _, ok, _ = moments.solve(moments.sums(u))
    if n > 1000:  # large conditions: every replicate from the moments (no refit)
        assert ok.all()
    else:  # small ones: some replicates are refitted on their samples
        assert not ok.all()


def test_certified_rows_are_within_the_bound():
    y, p, unit, rng = _data(5000, 4, 40)
    k = recalibration_kernel("slope", y, p)
    uk = k.by_unit(unit, 40)
    u = rng.multinomial(40, np.ones(40) / 40, size=40).astype(float)
    moments = uk._parts[0]
    beta, ok, _ = moments.solve(moments.sums(u))
    w = np.asarray((_unit_table(k, unit, 40).T @ u.T).T)
    exact, _ = k._fit_safeguarded(w[ok])
    assert ok.sum() >= 10
    err = np.abs(beta[ok] - exact).max(axis=1)
    assert (err <= CERTIFIED * (1 + np.abs(exact).max(axis=1)) + 1e-15).all()


def test_sigmoid_derivatives():
    eta = np.linspace(-8, 8, 2001)
    mu = 1 / (1 + np.exp(-eta))
    d = sigmoid_derivatives(mu, 3)
    np.testing.assert_allclose(d[1], mu * (1 - mu), atol=1e-15)
    np.testing.assert_allclose(d[2], mu * (1 - mu) * (1 - 2 * mu), atol=1e-15)
    # central differences of the second derivative
    np.testing.assert_allclose(d[3][1:-1], np.gradient(d[2], eta)[1:-1], atol=1e-4)
    # sup |mu''| = 1 / (6 sqrt 3) (at mu = (3 -+ sqrt 3) / 6)
    fine = sigmoid_derivatives(np.linspace(0, 1, 200_001), 2)[2]
    assert np.abs(fine).max() == pytest.approx(1 / (6 * np.sqrt(3)), rel=1e-9)
    assert SUP_NEXT > np.abs(sigmoid_derivatives(np.linspace(0, 1, 1001), ORDER + 1)[-1]).max()
    with pytest.raises(ValueError, match="`order` must be at most"):
        sigmoid_derivatives(mu, ORDER + 2)


@pytest.mark.parametrize("method", ["studentized", "percentile", "bca"])
@pytest.mark.parametrize("conditions", [False, True])
def test_seed_reproduces_across_chunks(method, conditions):
    y, p, unit, _ = _data(3000, 5, 60)
    kw = {"conditions": unit} if conditions else {}
    runs = []
    for batch in (1, 7, None):
        with warnings.catch_warnings(), mlci.config_context(batch=batch):
            warnings.simplefilter("ignore", mlci.FewResamplesWarning)
            res = mlci.bootstrap_ci(
                y, p, metric="calibration_slope", method=method, n_resamples=60, rng=3, **kw
            )
        runs.append(res)
    for res in runs[1:]:
        np.testing.assert_array_equal(res.bootstrap_distribution, runs[0].bootstrap_distribution)
        assert res.confidence_interval == runs[0].confidence_interval


def test_intercept_with_few_events_warns():
    rng = np.random.default_rng(6)
    p = 1 / (1 + np.exp(-rng.normal(-2.5, 1.0, 400)))
    y = (rng.random(400) < p).astype(int)
    assert 0 < y.sum() < 100
    with pytest.warns(mlci.FewConditionsWarning, match="rarer outcome: below 100"):
        recalibration_kernel("intercept", y, p)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        recalibration_kernel("slope", y, p)  # the slope held with as few
        big = np.r_[y, np.ones(100, dtype=int)], np.r_[p, np.full(100, 0.5)]
        recalibration_kernel("intercept", *big)


def test_auto_is_t_where_the_linearization_applies():
    pd = pytest.importorskip("pandas")
    y, p, unit, _ = _data(2000, 7, 30)
    res = mlci.bootstrap_ci(y, p, metric="calibration_slope", n_resamples=50, rng=0)
    assert res.method == "t"
    assert res.details["method_reason"].startswith("t: the linearized standard error")
    # strata: the linearization does not model them, BCa
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.FewResamplesWarning)
        res = mlci.bootstrap_ci(
            y, p, metric="calibration_slope", n_resamples=50, rng=0, strata=unit % 2
        )
    assert res.method == "bca"
    # a reduced table: its counts laid out as samples again (issue 20, item 4), the t
    # interval on the right units, bootstrap_ci's on the same (rounded) data
    frame = pd.DataFrame({"y": y, "p": np.round(p, 2).clip(0.01, 0.99), "c": unit})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.FewResamplesWarning)
        table = mlci.reduce_table(frame, "y", "p", metric="calibration_slope", conditions="c")
        res = table.bootstrap_ci(n_resamples=50, rng=0)
        mem = mlci.bootstrap_ci(
            frame["y"], frame["p"], metric="calibration_slope", conditions=unit,
            n_resamples=50, rng=0,
        )  # fmt: skip
    assert res.method == mem.method == "t"
    assert res.confidence_interval == mem.confidence_interval
