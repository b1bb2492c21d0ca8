"""Correlations for metric meta-evaluation against scipy.stats and published values
(docs/correlations.md)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

import mlci
from _helpers import central_difference
from mlci.metrics import get_kernel
from mlci.metrics.correlation import GridCorrelationKernel

SCIPY = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall_tau": stats.kendalltau}
pytestmark = pytest.mark.filterwarnings("ignore::mlci.exceptions.FewConditionsWarning")


def _pair(seed, n=60, ties=True):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = x + rng.normal(size=n)
    if ties:
        x, y = np.round(x, 1), np.round(y, 1)
    return x, y


@pytest.mark.parametrize("name", list(SCIPY))
@pytest.mark.parametrize("ties", [False, True])
def test_values_and_replicates_equal_scipy(name, ties):
    x, y = _pair(0, ties=ties)
    k = get_kernel(name, (y, x), {})
    rng = np.random.default_rng(1)
    reps = np.vstack([np.ones(len(x), int), rng.integers(0, 4, (5, len(x)))])
    w = np.stack([np.bincount(k.keys, weights=r, minlength=k.m) for r in reps])
    got = k.evaluate(w)
    for row, r in zip(got, reps, strict=True):
        idx = np.repeat(np.arange(len(x)), r)
        assert row == pytest.approx(SCIPY[name](y[idx], x[idx])[0], abs=1e-12)


@pytest.mark.parametrize("name", ["spearman", "kendall_tau"])
def test_rank_gradients_are_exact(name):
    x, y = _pair(2, n=30)
    k = get_kernel(name, (y, x), {})
    rng = np.random.default_rng(3)
    w = rng.integers(0, 3, (2, k.m)).astype(float)
    g = k.gradient(w, k.evaluate(w))
    ref = central_difference(k, w)
    np.testing.assert_allclose(g, ref, atol=1e-7)


def _deutsch(x, z, level, name, rows, cols):
    """Deutsch et al.'s (2021) correlation of the resampled matrices, with scipy
    (the definitions of nlpstats.correlations.correlate)."""
    xs, zs = x[rows][:, cols], z[rows][:, cols]
    f = SCIPY[name]
    if level == "system":
        return f(xs.mean(1), zs.mean(1))[0]
    if level == "global":
        return f(xs.ravel(), zs.ravel())[0]
    rs = [f(xs[:, j], zs[:, j])[0] for j in range(xs.shape[1])]
    rs = [r for r in rs if not np.isnan(r)]
    return np.mean(rs) if rs else np.nan


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
@pytest.mark.parametrize("level", ["system", "item", "global"])
@pytest.mark.parametrize("name", list(SCIPY))
def test_grid_replicates_equal_deutsch_resampling(level, name):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(7, 9))
    z = x + rng.normal(size=(7, 9))
    if level != "system":
        # ties among the cells (exact in any order of summation); the system level
        # compares means, whose ties depend on the order of summation: no ties there
        x, z = np.round(x, 1), np.round(z, 1)
    k = GridCorrelationKernel(x, z, level, name)
    for draw in range(6):
        rows = rng.integers(0, 7, 7) if draw % 3 != 1 else np.arange(7)
        cols = rng.integers(0, 9, 9) if draw % 3 != 2 else np.arange(9)
        cells = np.bincount(rows, minlength=7)[:, None] * np.bincount(cols, minlength=9)[None]
        w = np.bincount(k.keys, weights=cells.ravel(), minlength=k.m)[None, :]
        ref = _deutsch(x, z, level, name, rows, cols)
        got = k.evaluate(w)[0]
        assert got == pytest.approx(ref, abs=1e-12, nan_ok=True)


def test_correlation_ci_estimate_and_methods():
    rng = np.random.default_rng(5)
    quality = rng.normal(size=(25, 1)) + rng.normal(size=(25, 30))
    human = quality + rng.normal(size=(25, 30))
    metric = quality + rng.normal(size=(25, 30))
    methods = {}
    for level, resample in itertools.product(["system", "global"], ["systems", "items", "both"]):
        # the metric and humans share each cell's noise: over infinitely many items their
        # system means correlate 1, over 30 items about 0.98 (tau 0.85): the system level
        # resampling items or both may warn of the attenuation, nothing else warns
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", mlci.AttenuatedCorrelationWarning)
            res = mlci.correlation_ci(
                metric, human, correlation_level=level, resample=resample, n_resamples=100, rng=0
            )
        warned = any(w.category is mlci.AttenuatedCorrelationWarning for w in caught)
        assert warned == (level == "system" and resample != "systems"), (level, resample)
        assert res.estimate == pytest.approx(
            _deutsch(metric, human, level, "kendall_tau", np.arange(25), np.arange(30)),
            abs=1e-12,
        )
        methods[level, resample] = res.method
        assert res.details["resample"] == resample
    # 25 systems x 30 items: auto's jackknife Fisher-z interval at the global level over
    # 20-59 resampled systems, or 20-29 systems resampling both (session 11;
    # tests/fields/test_correlation_jackknife.py)
    assert methods["global", "items"] == "studentized"
    assert methods["global", "both"] == "jackknife_z"
    # Kendall's tau (the default) over 10-29 resampled systems: on tau's own scale
    # (session 12, kendall; docs/validation.md, "Kendall's tau over few systems")
    assert methods["global", "systems"] == "jackknife_tau"
    assert methods["system", "systems"] == "bca"


def test_few_systems_warn():
    rng = np.random.default_rng(6)
    x = rng.normal(size=(5, 20))
    with pytest.warns(mlci.FewConditionsWarning, match="5 systems"):
        mlci.correlation_ci(x, x + rng.normal(size=(5, 20)), n_resamples=50, rng=0)


def test_williams_matches_psych_r_test():
    # reference p-values of R's psych::r.test (Williams' test), as recorded in the
    # tests of Deutsch's nlpstats (tests/correlations/williams_test.py), on data from
    # numpy's legacy generator with seed 12; nlpstats and WMT pass |r| to r.test
    np.random.seed(12)  # noqa: NPY002 - the reference's own generator
    x, y, z = (np.random.random((9, 5)) for _ in range(3))  # noqa: NPY002

    def r(a, b):
        return abs(stats.pearsonr(a.ravel(), b.ravel())[0])

    res = mlci.williams_test(r(x, z), r(y, z), r(x, y), 45, alternative="greater")
    assert res.pvalue == pytest.approx(0.2716978, abs=5e-7)
    assert mlci.williams_test(r(x, z), r(y, z), r(x, y), 45).pvalue == pytest.approx(
        0.5433956, abs=5e-7
    )
    x, y, z = (np.random.random((9, 5)) for _ in range(3))  # noqa: NPY002

    def rs(a, b):
        return abs(stats.spearmanr(a.mean(1), b.mean(1))[0])

    res = mlci.williams_test(rs(y, z), rs(x, z), rs(x, y), 9, alternative="greater")
    assert res.pvalue == pytest.approx(0.4658712, abs=5e-7)
    assert mlci.williams_test(rs(y, z), rs(x, z), rs(x, y), 9).pvalue == pytest.approx(
        0.9317423, abs=5e-7
    )


def test_williams_formula_steiger_eq7():
    # Steiger (1980), eq. 7, written out independently of the implementation
    r12, r13, r23, n = 0.6, 0.4, 0.5, 50
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    den = 2 * (n - 1) / (n - 3) * det + ((r12 + r13) / 2) ** 2 * (1 - r23) ** 3
    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23) / den)
    res = mlci.williams_test(r12, r13, r23, n)
    assert res.statistic == pytest.approx(t, rel=1e-14)
    assert res.pvalue == pytest.approx(2 * stats.t.sf(t, n - 3), rel=1e-12)
    assert res.df == n - 3
    assert mlci.williams_test(r13, r12, r23, n, alternative="less").pvalue == pytest.approx(
        stats.t.sf(t, n - 3), rel=1e-12
    )


def test_compare_correlations_williams_uses_the_level():
    rng = np.random.default_rng(7)
    z = rng.normal(size=(12, 15))
    a, b = z + rng.normal(size=z.shape), z + 2 * rng.normal(size=z.shape)
    res = mlci.compare_correlations(
        a, b, z, coefficient="pearson", correlation_level="system", variant="williams"
    )

    def r(u, v):
        return stats.pearsonr(u.mean(1), v.mean(1))[0]

    ref = mlci.williams_test(r(a, z), r(b, z), r(a, b), 12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12)
    assert res.details["correlation_a"] == pytest.approx(r(a, z), abs=1e-12)


def test_permutation_pvalue_matches_exact_enumeration():
    # swapping whole systems: 2^6 equally likely patterns; the Monte Carlo p-value must
    # agree with the exact one within its binomial error
    rng = np.random.default_rng(8)
    z = rng.normal(size=(6, 5))
    a, b = z + rng.normal(size=z.shape), z + 1.5 * rng.normal(size=z.shape)
    res = mlci.compare_correlations(
        a,
        b,
        z,
        correlation_level="global",
        coefficient="pearson",
        resample="systems",
        n_resamples=4000,
        rng=1,
    )

    def std(m):
        return (m - m.mean()) / m.std()

    sa, sb, sz = std(a), std(b), std(z)

    def d(u, v):
        return stats.pearsonr(u.ravel(), sz.ravel())[0] - stats.pearsonr(v.ravel(), sz.ravel())[0]

    obs = d(sa, sb)
    null = []
    for pattern in itertools.product([False, True], repeat=6):
        swap = np.array(pattern)[:, None]
        null.append(d(np.where(swap, sb, sa), np.where(swap, sa, sb)))
    exact = np.mean(np.abs(null) >= abs(obs) - 1e-12)
    assert res.statistic == pytest.approx(obs, abs=1e-12)
    assert abs(res.pvalue - exact) < 4 * np.sqrt(exact * (1 - exact) / 4000) + 1 / 4000


def test_permutation_detects_a_better_metric():
    rng = np.random.default_rng(9)
    z = rng.normal(size=(10, 30))
    good, noisy = z + rng.normal(size=z.shape), z + 3 * rng.normal(size=z.shape)
    res = mlci.compare_correlations(
        good, noisy, z, correlation_level="global", n_resamples=199, rng=0
    )
    assert res.pvalue == pytest.approx(1 / 200)
    assert res.estimate > 0
    same = mlci.compare_correlations(
        good, good, z, correlation_level="global", n_resamples=99, rng=0
    )
    assert same.pvalue == 1.0


# -------------------------------------------------------------------------- bad input
GOOD = np.random.default_rng(10).normal(size=(6, 4))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"metric_scores": GOOD[0]}, r"`metric_scores` must be a 2-d matrix"),
        ({"human_scores": GOOD[:, :3]}, r"`human_scores` has shape \(6, 3\)"),
        ({"metric_scores": np.where(GOOD > 0.8, np.nan, GOOD)}, "`metric_scores` has .* missing"),
        ({"metric_scores": GOOD[:1], "human_scores": GOOD[:1]}, "at least 2 systems"),
        ({"correlation_level": "summary"}, "`correlation_level` must be one of"),
        ({"coefficient": "kendall"}, "`coefficient` must be one of"),
        ({"resample": "inputs"}, "`resample` must be one of"),
        (
            {"correlation_level": "item", "metric_scores": GOOD[:2], "human_scores": GOOD[:2]},
            "with 2 systems",
        ),
        (
            {"resample": "items", "metric_scores": GOOD[:, :1], "human_scores": GOOD[:, :1]},
            "2 items",
        ),
        ({"method": "studentized"}, "no linearization"),
        ({"metric_scores": np.ones((6, 4))}, "constant"),
    ],
)
def test_correlation_ci_bad_inputs(kwargs, match):
    args = {"metric_scores": GOOD, "human_scores": GOOD + 1, "n_resamples": 10, "rng": 0}
    with pytest.raises(ValueError, match=match):
        mlci.correlation_ci(**{**args, **kwargs})


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"variant": "williams"}, "coefficient='pearson'"),
        (
            {"variant": "williams", "coefficient": "pearson", "correlation_level": "item"},
            "item level",
        ),
        ({"variant": "t"}, "`variant` must be one of"),
        ({"metric_b": GOOD[:, :2]}, "`metric_b` has shape"),
        ({"human_scores": np.zeros((6, 4))}, "constant"),
        ({"n_resamples": 0}, "`n_resamples`"),
    ],
)
def test_compare_correlations_bad_inputs(kwargs, match):
    args = {"metric_a": GOOD, "metric_b": GOOD**2, "human_scores": GOOD + 1, "n_resamples": 9}
    with pytest.raises(ValueError, match=match):
        mlci.compare_correlations(**{**args, **kwargs})


@pytest.mark.parametrize(
    "args,kwargs,err,match",
    [
        ((1.5, 0.4, 0.5, 50), {}, ValueError, r"`r12` must be a correlation in \[-1, 1\]"),
        ((0.6, "0.4", 0.5, 50), {}, TypeError, "`r13` must be a correlation"),
        ((0.6, 0.4, 0.5, 3), {}, ValueError, "`n`"),
        ((0.9, -0.9, 0.9, 50), {}, ValueError, "not jointly possible"),
        ((0.6, 0.4, 0.5, 50), {"alternative": "both"}, ValueError, "`alternative`"),
    ],
)
def test_williams_bad_inputs(args, kwargs, err, match):
    with pytest.raises(err, match=match):
        mlci.williams_test(*args, **kwargs)


def test_registered_metrics_refuse_constant_input():
    with pytest.raises(ValueError, match="constant"):
        get_kernel("kendall_tau", (np.ones(5), np.arange(5.0)), {})
    with pytest.raises(ValueError, match="at least 2 samples"):
        get_kernel("pearson", ([1.0], [2.0]), {})
