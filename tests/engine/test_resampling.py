"""Resampling plans: the law of the replicate counts under every scheme, reproducibility
across chunk sizes and threads, and the jackknife weights.

References for the moments checked here: the counts of n draws with replacement over
atoms holding c_1..c_m samples are Multinomial(n, c/n): mean c_k, variance
c_k (1 - c_k / n) (e.g. Efron & Tibshirani 1993, ch. 6); Poisson(1) per-sample weights
sum to Poisson(c_k) over an atom: mean and variance c_k.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

import mlci
from mlci.engine.bootstrap import kernel_jackknife, run_replicates
from mlci.engine.resampling import make_plan
from mlci.metrics import get_kernel


def all_counts(sampler):
    return np.concatenate([sampler.block(j) for j in range(sampler.n_blocks)], axis=0)


def zscore(mean, expected, var, b):
    """Largest |z| of a sample mean over b replicates (var per replicate)."""
    se = np.sqrt(np.maximum(var, 1e-12) / b)
    return float(np.max(np.abs(mean - expected) / se))


# ------------------------------------------------------------------------- iid
@pytest.mark.parametrize("m", [3, 40])  # few atoms: multinomial path; many: index path
def test_iid_counts_sum_to_n_and_have_multinomial_moments(m):
    n, b = 60, 4000
    rng = np.random.default_rng(0)
    keys = np.concatenate([np.arange(m), rng.integers(0, m, n - m)])
    plan = make_plan(n, n_resamples=b, rng=1)
    s = plan.weights_for(keys, m)
    assert s._use_multinomial == (16 * m <= n)
    w = all_counts(s)
    assert w.shape == (b, m)
    assert np.array_equal(w, np.round(w)) and (w >= 0).all()
    assert (w.sum(axis=1) == n).all()
    c = np.bincount(keys, minlength=m).astype(float)
    assert np.array_equal(s.counts, c)
    var = c * (1 - c / n)
    assert zscore(w.mean(axis=0), c, var, b) < 4.5
    # the variance too (relative error of a variance estimate ~ sqrt(2/b))
    np.testing.assert_allclose(w.var(axis=0), var, rtol=0.2)


def test_per_sample_weights_have_mean_one():
    n, b = 30, 3000
    w = all_counts(make_plan(n, n_resamples=b, rng=2).weights_for())
    assert w.shape == (b, n) and (w.sum(axis=1) == n).all()
    assert zscore(w.mean(axis=0), 1.0, 1 - 1 / n, b) < 4.5


# ------------------------------------------------------------------------- strata
@pytest.mark.parametrize("m", [4, 200])
def test_strata_keep_their_sizes(m):
    n = 200
    rng = np.random.default_rng(3)
    strata = rng.integers(0, 3, n)
    keys = np.arange(n) % m
    plan = make_plan(n, strata=strata, n_resamples=300, rng=4)
    assert plan.scheme == "strata"
    s = plan.weights_for(keys, m)
    w = all_counts(s)
    assert (w.sum(axis=1) == n).all()
    # per-sample view: the counts of each stratum's samples sum to its size
    ws = all_counts(plan.weights_for())
    for k in range(3):
        assert (ws[:, strata == k].sum(axis=1) == (strata == k).sum()).all()


def test_strata_by_class_keep_class_counts_for_atoms():
    # strata = y_true with confusion atoms: the row sums (true-class counts) never change
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 500)
    p = rng.integers(0, 2, 500)
    kernel = get_kernel("accuracy", (y, p), {})
    plan = make_plan(500, strata=y, n_resamples=200, rng=6)
    w = all_counts(plan.weights_for(kernel.keys, kernel.m)).reshape(-1, 2, 2)
    np.testing.assert_array_equal(w.sum(axis=2), np.tile(np.bincount(y), (200, 1)))


# ------------------------------------------------------------------------- conditions
def test_conditions_keep_whole_conditions():
    rng = np.random.default_rng(7)
    n, k, b = 120, 12, 2000
    cond = rng.integers(0, k, n)
    cond[:k] = np.arange(k)
    plan = make_plan(n, conditions=cond, n_resamples=b, rng=8)
    assert plan.scheme == "conditions" and plan.n_units == k
    w = all_counts(plan.weights_for())
    for c in range(k):
        members = w[:, cond == c]
        # every sample of a condition gets the condition's count
        assert (members == members[:, :1]).all()
    u = np.stack([w[:, np.flatnonzero(cond == c)[0]] for c in range(k)], axis=1)
    assert (u.sum(axis=1) == k).all()  # k conditions drawn with replacement
    assert zscore(u.mean(axis=0), 1.0, 1 - 1 / k, b) < 4.5


def test_conditions_atoms_equal_condition_table_product():
    # per-atom counts are U @ T whatever the table representation (dense / sparse / gather)
    rng = np.random.default_rng(9)
    for n, n_cond, m_mode in [(300, 20, "few"), (3000, 1500, "identity"), (3000, 1500, "ties")]:
        cond = rng.integers(0, n_cond, n)
        if m_mode == "few":
            keys, m = rng.integers(0, 4, n), 4
        elif m_mode == "identity":
            keys, m = rng.permutation(n), n
        else:
            keys, m = rng.integers(0, n - 100, n), n - 100  # atoms span conditions
        plan = make_plan(n, conditions=cond, n_resamples=20, rng=10)
        s = plan.weights_for(keys, m)
        table = np.zeros((plan.n_units, m))
        np.add.at(table, (plan.unit_of_sample, keys), 1.0)
        for j in range(s.n_blocks):
            w = s.block(j)
            u = s.unit_counts(plan.generator(0, j), w.shape[0])  # the block's condition draws
            np.testing.assert_array_equal(w, u @ table)
            assert (u.sum(axis=1) == plan.n_units).all()


def test_two_stage_resamples_inside_drawn_conditions():
    rng = np.random.default_rng(11)
    n, k, b = 200, 10, 500
    cond = np.repeat(np.arange(k), n // k)
    plan = make_plan(n, conditions=cond, two_stage=True, n_resamples=b, rng=12)
    assert plan.scheme == "conditions-two-stage"
    w = all_counts(plan.weights_for())
    size = n // k
    totals = np.stack([w[:, cond == c].sum(axis=1) for c in range(k)], axis=1)
    # a condition drawn u times contributes u * size samples...
    assert (totals % size == 0).all()
    assert (totals.sum(axis=1) == n).all()
    # ...but not necessarily each of its samples u times
    varies = [(w[:, cond == c] != w[:, cond == c][:, :1]).any() for c in range(k)]
    assert all(varies)
    # each sample: E[count] = 1
    assert zscore(w.mean(axis=0), 1.0, 2.0, b) < 4.5
    del rng


def test_conditions_within_strata_keep_stratum_unit_counts():
    rng = np.random.default_rng(13)
    n = 300
    cond = rng.integers(0, 30, n)
    strata = (cond % 3 == 0).astype(int)
    plan = make_plan(n, conditions=cond, strata=strata, n_resamples=200, rng=14)
    assert plan.scheme == "conditions-within-strata"
    s = plan.weights_for()
    u = s.unit_counts(plan.generator(0, 0), 50)
    for k in range(2):
        members = plan.stratum_of_unit == k
        assert (u[:, members].sum(axis=1) == members.sum()).all()


# ------------------------------------------------------------------------- poisson
@pytest.mark.parametrize("conditions", [False, True])
def test_poisson_weights_have_mean_and_variance_one(conditions):
    n, b = 40, 5000
    cond = np.arange(n) // 2 if conditions else None
    plan = make_plan(n, conditions=cond, weights="poisson", n_resamples=b, rng=15)
    assert plan.scheme.endswith("+poisson")
    w = all_counts(plan.weights_for())
    assert zscore(w.mean(axis=0), 1.0, 1.0, b) < 4.5
    np.testing.assert_allclose(w.var(axis=0), 1.0, rtol=0.2)
    # per atom: Poisson(c_k)
    keys = np.arange(n) % 3
    wa = all_counts(plan.weights_for(keys, 3))
    c = np.bincount(keys).astype(float)
    assert zscore(wa.mean(axis=0), c, c * (2.0 if conditions else 1.0), b) < 4.5


# ------------------------------------------------------------------------- paired draws
def test_samplers_with_different_keys_share_sample_draws():
    n = 50
    rng = np.random.default_rng(16)
    plan = make_plan(n, n_resamples=30, rng=17)
    keys = rng.integers(0, 40, n)  # 16 * 40 > 50: index path, like per-sample weights
    w_samples = all_counts(plan.weights_for())
    w_atoms = all_counts(plan.weights_for(keys, 40))
    expected = np.stack([np.bincount(keys, weights=r, minlength=40) for r in w_samples])
    np.testing.assert_array_equal(w_atoms, expected)


# ------------------------------------------------------------------------- invariance
SCHEMES = [
    {},
    {"strata": "y"},
    {"conditions": "c"},
    {"conditions": "c", "resampling": mlci.Resampling(two_stage=True)},
    {"conditions": "c", "strata": "y"},
    {"resampling": mlci.Resampling(weights="poisson")},
]


@pytest.mark.parametrize("opts", SCHEMES, ids=lambda o: "-".join(map(str, o.values())) or "iid")
@pytest.mark.parametrize("metric", ["accuracy", "roc_auc"])
def test_same_seed_same_result_for_any_batch_and_threads(opts, metric):
    rng = np.random.default_rng(18)
    n = 400
    y = rng.integers(0, 2, n)
    x = y + rng.normal(size=n) if metric == "roc_auc" else np.where(rng.random(n) < 0.8, y, 1 - y)
    c = rng.integers(0, 25, n)
    kw = {k: {"y": y, "c": c}.get(v, v) if isinstance(v, str) else v for k, v in opts.items()}
    with mlci.config_context(batch=1, n_jobs=1):
        ref = mlci.bootstrap_ci(y, x, metric=metric, n_resamples=300, rng=19, **kw)
    for batch, n_jobs in [(7, 2), (64, 1), (None, 2), (10_000, 3)]:
        with mlci.config_context(batch=batch, n_jobs=n_jobs):
            res = mlci.bootstrap_ci(y, x, metric=metric, n_resamples=300, rng=19, **kw)
        np.testing.assert_array_equal(res.bootstrap_distribution, ref.bootstrap_distribution)
        assert res.confidence_interval == ref.confidence_interval


def test_run_replicates_is_chunk_invariant_and_memory_bounded():
    n = 5000
    plan = make_plan(n, n_resamples=97, rng=20)
    s = plan.weights_for()
    seen = []

    def evaluate(w):
        seen.append(w.shape[0])
        return w[:, :3].sum(axis=1)

    ref = run_replicates(evaluate, s, (), bytes_per_row=8.0 * n, batch=1, n_jobs=1)
    for batch in (5, 33, 1000):
        seen.clear()
        out = run_replicates(evaluate, s, (), bytes_per_row=8.0 * n, batch=batch, n_jobs=2)
        np.testing.assert_array_equal(out, ref)
    # chunks sized from max_memory: never more rows than the bound allows (in whole blocks)
    seen.clear()
    run_replicates(evaluate, s, (), bytes_per_row=8.0 * n, max_memory=8 * n * 30, n_jobs=1)
    assert max(seen) <= max(30, s.block_size)


# ------------------------------------------------------------------------- jackknife
def test_delete_one_jackknife_weights():
    keys = np.array([0, 0, 1, 2, 2, 2])
    plan = make_plan(6, n_resamples=10, rng=0)
    w, mult = plan.weights_for(keys, 4).jackknife_weights(max_groups=100)
    # atom 3 is empty: no row; one row per present atom, standing for its samples
    np.testing.assert_array_equal(mult, [2, 1, 3])
    np.testing.assert_array_equal(w, [[1, 1, 3, 0], [2, 0, 3, 0], [2, 1, 2, 0]])


def test_delete_one_condition_jackknife_weights():
    cond = np.array([0, 0, 1, 1, 1, 2])
    keys = np.array([0, 1, 1, 1, 0, 1])
    plan = make_plan(6, conditions=cond, n_resamples=10, rng=0)
    w, mult = plan.weights_for(keys, 2).jackknife_weights(max_groups=100)
    np.testing.assert_array_equal(mult, [1, 1, 1])
    np.testing.assert_array_equal(w, [[1, 3], [1, 2], [2, 3]])


@pytest.mark.parametrize("conditions", [False, True])
def test_grouped_jackknife_removes_every_unit_once(conditions):
    rng = np.random.default_rng(21)
    n, g = 3000, 37
    cond = rng.integers(0, 400, n) if conditions else None
    keys = rng.integers(0, 900, n)
    plan = make_plan(n, conditions=cond, n_resamples=10, rng=22)
    s = plan.weights_for(keys, 900)
    n_rows, mult, rows = s.jackknife_rows(g)
    assert n_rows == g and (mult == 1).all()
    w = rows(0, g)
    removed = s.counts[None, :] - w
    assert (removed >= 0).all()
    np.testing.assert_array_equal(removed.sum(axis=0), s.counts)  # each sample once
    sizes = removed.sum(axis=1)
    if not conditions:
        assert sizes.max() - sizes.min() <= 1  # groups of (nearly) equal size
    # chunks agree with the whole, and with jackknife_weights
    np.testing.assert_array_equal(
        np.concatenate([rows(a, min(a + 5, g)) for a in range(0, g, 5)]), w
    )
    np.testing.assert_array_equal(s.jackknife_weights(g)[0], w)


def test_jackknife_is_chunked_and_thread_invariant():
    rng = np.random.default_rng(23)
    n = 2000
    y = rng.integers(0, 2, n)
    x = y + rng.normal(size=n)
    kernel = get_kernel("average_precision", (y, x), {})
    plan = make_plan(n, conditions=rng.integers(0, 300, n), n_resamples=10, rng=24)
    s = plan.weights_for(kernel.keys, kernel.m)
    ref, mult = kernel_jackknife(kernel, s, 100, n_jobs=1)
    small, mult2 = kernel_jackknife(kernel, s, 100, max_memory=8 * kernel.m * 40, n_jobs=2)
    np.testing.assert_array_equal(ref, small)
    np.testing.assert_array_equal(mult, mult2)


# ------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("seed", range(5))
def test_weighted_roc_auc_equals_repeated_samples_with_ties(seed):
    rng = np.random.default_rng(seed)
    n = 60
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    x = np.round(y + rng.normal(size=n), 0)  # heavy ties, across classes
    kernel = get_kernel("roc_auc", (y, x), {})
    plan = make_plan(n, n_resamples=20, rng=seed)
    w_samples = all_counts(plan.weights_for())
    w_atoms = all_counts(plan.weights_for(kernel.keys, kernel.m))
    vals = kernel.evaluate(w_atoms)
    for r in range(20):
        idx = np.repeat(np.arange(n), w_samples[r].astype(int))
        if len(np.unique(y[idx])) < 2:
            assert np.isnan(vals[r])
            continue
        # reference: scikit-learn's roc_auc_score on the explicitly repeated samples
        assert vals[r] == pytest.approx(roc_auc_score(y[idx], x[idx]), abs=1e-12)


@pytest.mark.parametrize("two_stage", [False, True])
def test_samplers_with_different_keys_share_condition_draws(two_stage):
    # paired comparisons with conditions: the block size depends on the plan only, so any
    # two kernels bound to one plan see the same condition draws
    rng = np.random.default_rng(25)
    n = 600
    cond = rng.integers(0, 40, n)
    plan = make_plan(n, conditions=cond, two_stage=two_stage, n_resamples=70, rng=26)
    w_samples = all_counts(plan.weights_for())
    for keys, m in [(rng.integers(0, 4, n), 4), (rng.permutation(n), n), (np.arange(n) % 7, 7)]:
        s = plan.weights_for(keys, m)
        expected = np.stack([np.bincount(keys, weights=r, minlength=m) for r in w_samples])
        np.testing.assert_array_equal(all_counts(s), expected)


@pytest.mark.parametrize("opts", [{}, {"conditions": True}, {"conditions": True, "two": True}])
def test_block_row_ranges_equal_slices_of_the_block(opts):
    rng = np.random.default_rng(27)
    n = 300
    cond = rng.integers(0, 50, n) if opts.get("conditions") else None
    plan = make_plan(n, conditions=cond, two_stage=bool(opts.get("two")), n_resamples=900, rng=28)
    s = plan.weights_for(rng.integers(0, 5, n), 5)
    full = s.block(1)
    b = full.shape[0]
    for r0, r1 in [(0, 1), (3, b), (b // 2, b // 2 + 2)]:
        np.testing.assert_array_equal(s.block(1, rows=(r0, r1)), full[r0:r1])
    # chunks smaller than a block give the same replicates
    ref = np.concatenate([mk() for _, mk in s.iter_chunks(10**6)])
    small = sorted(s.iter_chunks(3), key=lambda t: t[0])
    got = np.concatenate([mk() for _, mk in small])
    np.testing.assert_array_equal(got, ref)
    assert [st for st, _ in small] == sorted({st for st, _ in small})


@pytest.mark.parametrize("rows", [3, 64, 1100])  # row ranges, one block, several blocks
@pytest.mark.parametrize("opts", [{}, {"conditions": True}, {"strata": True}])
def test_reused_chunk_buffers_give_the_same_replicates(opts, rows):
    # iter_chunks(reuse=True) draws a thread's chunks into one buffer (no fresh memory,
    # whose page faults cost 0.05-0.09 s of `mlci mt compare -B 10000`): the same numbers
    # as fresh chunks, for the iid index draw, whole conditions (also cut into row
    # ranges) and strata; each chunk read before the next is drawn, as the engine does
    from mlci.engine.sampler import UnitDraws

    rng = np.random.default_rng(31)
    n = 400
    cond = rng.integers(0, 30, n) if opts.get("conditions") else None
    strata = rng.integers(0, 3, n) if opts.get("strata") else None
    plan = make_plan(n, conditions=cond, strata=strata, n_resamples=2500, rng=32)
    samplers = [plan.weights_for(rng.permutation(n), n), plan.weights_for(rng.integers(0, 9, n))]
    if cond is not None:
        samplers.append(UnitDraws(plan.weights_for(cond, 30), 30))
    for s in samplers:
        assert s.fills_out
        fresh = np.concatenate([mk() for _, mk in s.iter_chunks(rows)])
        reused, bases = [], []
        for _, mk in s.iter_chunks(rows, reuse=True):
            w = mk()
            bases.append(w.base)
            reused.append(w.copy())
        np.testing.assert_array_equal(np.concatenate(reused), fresh)
        assert len(bases) > 1
        # one buffer for every chunk of this (single) thread
        assert bases[0] is not None and all(b is bases[0] for b in bases)
        np.testing.assert_array_equal(fresh, s.all_replicates())


def test_run_replicates_with_reused_buffers_on_threads():
    # the engine's loop on several threads (each with its own buffer): the same values
    # as one thread, and as evaluating every replicate at once
    rng = np.random.default_rng(33)
    n = 300
    plan = make_plan(n, n_resamples=700, rng=34)
    s = plan.weights_for(rng.integers(0, 50, n), 50)
    weights = rng.normal(size=50)

    def evaluate(w):
        return w @ weights

    expected = s.all_replicates() @ weights
    for jobs in (1, 3):
        got = run_replicates(evaluate, s, (), bytes_per_row=8.0 * 50, batch=7, n_jobs=jobs)
        np.testing.assert_array_equal(got, expected)


def test_fast_unique_equals_numpy_unique():
    from mlci.engine.resampling import fast_unique

    rng = np.random.default_rng(29)
    cases = [
        rng.integers(0, 2, 1000),
        rng.integers(-5, 3, 500).astype(np.int8),
        rng.integers(0, 10**9, 100),  # wide range: the sort path
        np.array([True, False, True]),
        np.array([3.5, 1.0, 3.5]),
        np.array(["b", "a", "b"]),
        np.array([2**40, 2**40 + 3, 2**40]),
    ]
    for a in cases:
        u, inv = fast_unique(a)
        u_ref, inv_ref = np.unique(a, return_inverse=True)  # reference: numpy
        np.testing.assert_array_equal(u, u_ref)
        assert u.dtype == u_ref.dtype
        np.testing.assert_array_equal(inv, inv_ref.reshape(-1))


def test_roc_auc_kernel_fractional_weights_take_the_float_path():
    # reference: scikit-learn's roc_auc_score with sample_weight
    rng = np.random.default_rng(30)
    y = rng.integers(0, 2, 300)
    x = np.round(y + rng.normal(size=300), 1)
    kernel = get_kernel("roc_auc", (y, x), {})
    sw = rng.random(300)
    w = np.bincount(kernel.keys, weights=sw, minlength=kernel.m)[None, :]
    assert kernel.evaluate(w)[0] == pytest.approx(roc_auc_score(y, x, sample_weight=sw), rel=1e-12)
