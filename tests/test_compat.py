"""mlci.compat against the seed toolkit it replaces (confidence_intervals 0.0.3, from PyPI).

The reference is the toolkit itself: same arrays, same indices, and -- with
``legacy_streams=True`` -- the same numbers to the last digit; the default (vectorised,
independent draws) matches it within Monte Carlo error.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import accuracy_score, roc_auc_score

import mlci
from mlci import compat
from mlci.compat import create_data, evaluate_with_conf_int, get_bootstrap_indices, get_conf_int
from mlci.metrics import get_kernel

ci_seed = pytest.importorskip("confidence_intervals")
seed_utils = pytest.importorskip("confidence_intervals.utils")

SLOW_SCALE = float(os.environ["MLCI_SLOW_SCALE"])


@pytest.fixture(scope="module")
def readme_data():
    return create_data(200, 200, 20)


def _seed_distribution(samples, labels, metric, conditions, b):
    bt = ci_seed.Bootstrap(b, metric)
    return bt.run(samples, labels, conditions)


def _ks_pvalue(a, b):
    return stats.ks_2samp(np.asarray(a), np.asarray(b)).pvalue


# ------------------------------------------------------------------------- create_data
@pytest.mark.parametrize(
    "args",
    [(200, 200, 20, 123456, 1.0), (50, 120, 7, 3, 0.5), (10, 5, 30, 0, 2.0), (1, 1, 1, 9, 1.0)],
)
def test_create_data_same_arrays_as_seed(args):
    ours = create_data(*args)
    theirs = seed_utils.create_data(*args)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype


def test_create_data_leaves_global_state_alone():
    np.random.seed(5)  # noqa: NPY002 (the legacy global state is what is tested)
    expected = np.random.random(3)  # noqa: NPY002 (the legacy global state is what is tested)
    np.random.seed(5)  # noqa: NPY002 (the legacy global state is what is tested)
    create_data(20, 20, 3)
    np.testing.assert_array_equal(np.random.random(3), expected)  # noqa: NPY002 (the legacy global state is what is tested)


# ---------------------------------------------------------------- get_bootstrap_indices
@pytest.mark.parametrize("rs", [0, 1, 17, 999])
def test_indices_equal_seed_int_state(readme_data, rs):
    _, _, conditions = readme_data
    np.testing.assert_array_equal(
        get_bootstrap_indices(400, conditions, random_state=rs),
        ci_seed.get_bootstrap_indices(400, conditions, random_state=rs),
    )
    np.testing.assert_array_equal(
        get_bootstrap_indices(400, random_state=rs),
        ci_seed.get_bootstrap_indices(400, random_state=rs),
    )


def test_indices_equal_seed_shared_state():
    cond = np.random.default_rng(0).integers(0, 9, 150)
    ours = get_bootstrap_indices(150, cond, random_state=np.random.RandomState(4))
    theirs = ci_seed.get_bootstrap_indices(150, cond, random_state=np.random.RandomState(4))
    np.testing.assert_array_equal(ours, theirs)
    np.random.seed(11)  # noqa: NPY002 (the legacy global state is what is tested)
    ours = get_bootstrap_indices(150, cond)
    np.random.seed(11)  # noqa: NPY002 (the legacy global state is what is tested)
    theirs = ci_seed.get_bootstrap_indices(150, cond)
    np.testing.assert_array_equal(ours, theirs)


def test_indices_structure_and_generator():
    cond = np.array(["a", "a", "b", "c", "c", "c"])  # string conditions work too
    idx = get_bootstrap_indices(6, cond, random_state=np.random.default_rng(2))
    assert idx.dtype.kind == "i" and idx.min() >= 0 and idx.max() < 6
    # every drawn condition contributes a multiple of its size
    sizes = {"a": 2, "b": 1, "c": 3}
    drawn = cond[idx]
    for c in set(drawn.tolist()):
        assert (drawn == c).sum() % sizes[c] == 0


def test_indices_bad_input():
    with pytest.raises(ValueError, match="`conditions` must have one entry per sample"):
        get_bootstrap_indices(5, [0, 1])
    with pytest.raises(TypeError, match="`random_state`"):
        get_bootstrap_indices(5, random_state="x")
    with pytest.raises(ValueError, match="`num_samples`"):
        get_bootstrap_indices(0)


# ------------------------------------------------------------------------ get_conf_int
def test_get_conf_int_equals_seed():
    v = np.random.default_rng(1).normal(size=999)
    for alpha in (5, 10, 1, 32.5):
        assert get_conf_int(v, alpha) == pytest.approx(ci_seed.get_conf_int(v, alpha), abs=0)


def test_get_conf_int_nan_and_errors():
    v = np.r_[np.linspace(0, 1, 99), np.nan, np.nan]
    with pytest.warns(mlci.InvalidReplicatesWarning, match="2 of 101"):
        low, high = get_conf_int(v, 50)
    assert (low, high) == pytest.approx((0.25, 0.75))
    with pytest.raises(ValueError, match="All 2 bootstrap values are NaN"):
        get_conf_int([np.nan, np.nan])
    for bad in (0, 100, -1, 0.0, "5", True):
        with pytest.raises(ValueError, match="`alpha` is the interval's level in percent"):
            get_conf_int([1.0, 2.0], bad)
    with pytest.raises(ValueError, match="at least one"):
        get_conf_int([])


# ------------------------------------------------------------- evaluate_with_conf_int
def test_readme_example(readme_data):
    decisions, labels, conditions = readme_data
    # README of confidence_intervals: (0.855, (0.7938131968651883, 0.9126023142471228))
    value, (low, high) = evaluate_with_conf_int(
        decisions, labels, accuracy_score, conditions, num_bootstraps=1000, alpha=5
    )
    assert value == 0.855
    assert low == pytest.approx(0.794, abs=0.015)
    assert high == pytest.approx(0.913, abs=0.015)


def test_legacy_streams_reproduce_seed_exactly(readme_data):
    decisions, labels, conditions = readme_data
    expected = ci_seed.evaluate_with_conf_int(
        decisions, accuracy_score, labels, conditions, num_bootstraps=200
    )
    for metric in (accuracy_score, "accuracy"):
        got = evaluate_with_conf_int(
            decisions, metric, labels, conditions, num_bootstraps=200, legacy_streams=True
        )
        assert got[0] == expected[0]
        assert tuple(got[1]) == pytest.approx(expected[1], rel=1e-12)
    # iid, and a metric on scores
    scores = decisions + np.random.default_rng(0).normal(0, 0.7, 400)
    expected = ci_seed.evaluate_with_conf_int(scores, roc_auc_score, labels, num_bootstraps=100)
    got = evaluate_with_conf_int(scores, "roc_auc", labels, num_bootstraps=100, legacy_streams=True)
    assert got[0] == pytest.approx(expected[0], rel=1e-12)
    assert tuple(got[1]) == pytest.approx(expected[1], rel=1e-12)


def test_legacy_streams_three_argument_metric():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 120)
    a = np.where(rng.random(120) < 0.8, y, 1 - y)
    b = np.where(rng.random(120) < 0.7, y, 1 - y)
    cond = rng.integers(0, 12, 120)

    def diff(labels, s1, s2):
        return np.mean(s1 == labels) - np.mean(s2 == labels)

    expected = ci_seed.evaluate_with_conf_int(a, diff, y, cond, num_bootstraps=100, samples2=b)
    got = evaluate_with_conf_int(a, diff, y, cond, 100, 5, b, legacy_streams=True)
    assert got[0] == expected[0]
    assert tuple(got[1]) == pytest.approx(expected[1], rel=1e-12)


def test_default_matches_seed_within_monte_carlo_error(readme_data):
    # Reference: the seed toolkit's own bootstrap values (B = 1000, its fixed seeds 0..999).
    decisions, labels, conditions = readme_data
    theirs = _seed_distribution(decisions, labels, accuracy_score, conditions, 500)
    kernel = get_kernel("accuracy", [labels, decisions], {})
    sampler = compat._TwoStageSampler(kernel.keys, kernel.m, conditions, 2000, 0)
    ours = kernel.evaluate(sampler.all_replicates())
    assert _ks_pvalue(ours, theirs) > 1e-3
    q = [2.5, 25, 50, 75, 97.5]
    np.testing.assert_allclose(np.percentile(ours, q), np.percentile(theirs, q), atol=0.015)
    assert np.std(ours) == pytest.approx(np.std(theirs), rel=0.12)


def test_default_iid_matches_seed():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 300)
    s = y + rng.normal(0, 1.2, 300)
    theirs = _seed_distribution(s, y, roc_auc_score, None, 300)
    value, (low, high) = evaluate_with_conf_int(s, "roc_auc", y, num_bootstraps=2000)
    assert value == pytest.approx(roc_auc_score(y, s), rel=1e-12)
    lo_s, hi_s = np.percentile(theirs, [2.5, 97.5])
    assert low == pytest.approx(lo_s, abs=0.02) and high == pytest.approx(hi_s, abs=0.02)


def _two_stage_reference(corr, conditions, b, rng):
    """The toolkit's scheme written plainly: a loop over replicates and drawn conditions."""
    uc = np.unique(conditions)
    out = np.empty(b)
    for r in range(b):
        drawn, counts = np.unique(rng.choice(uc, len(uc)), return_counts=True)
        w = np.zeros(len(corr))
        for c, k in zip(drawn, counts, strict=True):
            members = np.flatnonzero(conditions == c)
            np.add.at(w, rng.choice(members, len(members)), k)
        out[r] = np.sum(w * corr) / np.sum(w)
    return out


def test_two_stage_sampler_both_paths_match_plain_loop():
    rng = np.random.default_rng(12)
    n = 300
    cond = rng.integers(0, 15, n)
    correct = (rng.random(n) < 0.6 + 0.03 * (cond % 5)).astype(float)
    b = 1500
    ref = _two_stage_reference(correct, cond, b, rng)
    # atom path: "mean" on 0/1 values has 2 atoms
    k_atoms = get_kernel("mean", [correct], {})
    s_atoms = compat._TwoStageSampler(k_atoms.keys, k_atoms.m, cond, b, 1)
    assert s_atoms.atom_path
    d_atoms = k_atoms.evaluate(s_atoms.all_replicates())
    # slot path: one atom per sample
    k_fn = compat.FunctionKernel(np.mean, [correct], {})
    s_slots = compat._TwoStageSampler(k_fn.keys, k_fn.m, cond, b, 2)
    assert not s_slots.atom_path
    d_slots = k_fn.evaluate(s_slots.all_replicates())
    for d in (d_atoms, d_slots):
        assert _ks_pvalue(d, ref) > 1e-3
        assert np.std(d) == pytest.approx(np.std(ref), rel=0.12)


def test_two_stage_weights_have_unit_mean():
    cond = np.repeat(np.arange(10), np.arange(1, 11))
    keys = np.arange(len(cond))
    s = compat._TwoStageSampler(keys, len(keys), cond, 256, 0)
    w = np.concatenate([s.block(j) for j in range(4)])
    assert w.shape == (256, len(cond))
    # E[u_c * v_ci] = 1; the number of samples varies from replicate to replicate
    assert w.mean() == pytest.approx(1.0, abs=0.06)
    assert np.ptp(w.sum(axis=1)) > 0
    # a drawn condition's weights are a multiple of its count: rows of singleton condition 0
    assert np.all(w[:, 0] == np.rint(w[:, 0]))


@pytest.mark.slow
def test_default_matches_legacy_large_b(readme_data):
    decisions, labels, conditions = readme_data
    b = max(500, int(6000 * SLOW_SCALE))
    kernel = get_kernel("accuracy", [labels, decisions], {})
    draw = compat._legacy_counts(kernel.keys, kernel.m, conditions, b)
    legacy = np.array([kernel.evaluate(draw(i)[None, :])[0] for i in range(b)])
    ours = kernel.evaluate(
        compat._TwoStageSampler(kernel.keys, kernel.m, conditions, b, 5).all_replicates()
    )
    # the toolkit's shared RandomState(i) streams make its distribution differ slightly
    # (about 0.1 sd, see docs/compat.md); on top of that, each 2.5% quantile has a Monte
    # Carlo standard error of about 2.7 sd / sqrt(b), so the difference about 3.8 sd / sqrt(b)
    sd = np.std(legacy)
    q = np.percentile(legacy, [2.5, 50, 97.5]) - np.percentile(ours, [2.5, 50, 97.5])
    assert np.all(np.abs(q) < sd * (0.15 + 4 * 3.8 / np.sqrt(b)))


# ------------------------------------------------------------------ argument handling
def test_argument_orders(readme_data):
    d, y, c = readme_data
    ref = evaluate_with_conf_int(d, accuracy_score, y, c, num_bootstraps=50)
    variants = [
        evaluate_with_conf_int(d, y, accuracy_score, c, num_bootstraps=50),
        evaluate_with_conf_int(d, metric=accuracy_score, labels=y, conditions=c, num_bootstraps=50),
        evaluate_with_conf_int(
            samples=d, labels=y, metric=accuracy_score, conditions=c, num_bootstraps=50
        ),
    ]
    for v in variants:
        assert v == ref
    by_name = [
        evaluate_with_conf_int(d, "accuracy", y, c, num_bootstraps=50),
        evaluate_with_conf_int(d, y, "accuracy", c, num_bootstraps=50),
    ]
    assert by_name[0] == by_name[1]
    assert by_name[0][0] == ref[0]


def test_metric_without_labels_and_weighted_mean():
    rng = np.random.default_rng(0)
    wer = rng.random(80) * 0.4
    words = rng.integers(3, 30, 80)
    spk = rng.integers(0, 8, 80)
    v, (lo, hi) = evaluate_with_conf_int(wer, np.mean, conditions=spk, num_bootstraps=300)
    assert v == np.mean(wer) and lo < v < hi
    v2, _ = evaluate_with_conf_int(wer, "mean", conditions=spk, num_bootstraps=300)
    assert v2 == pytest.approx(v)

    def wavg(n_words, w):
        return np.sum(n_words * w) / np.sum(n_words)

    a = evaluate_with_conf_int(wer, wavg, words, spk, legacy_streams=True, num_bootstraps=100)
    b = evaluate_with_conf_int(
        wer, "weighted_mean", words, spk, legacy_streams=True, num_bootstraps=100
    )
    assert a[0] == pytest.approx(b[0]) and tuple(a[1]) == pytest.approx(tuple(b[1]))
    expected = ci_seed.evaluate_with_conf_int(wer, wavg, words, spk, num_bootstraps=100)
    assert tuple(b[1]) == pytest.approx(expected[1])


def test_vector_valued_metric():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 200)
    p = np.where(rng.random(200) < 0.7, y, rng.integers(0, 3, 200))

    def per_class(labels, pred):
        return np.array([np.mean(pred[labels == k] == k) for k in range(3)])

    v, (lo, hi) = evaluate_with_conf_int(p, per_class, y, num_bootstraps=200)
    assert v.shape == lo.shape == hi.shape == (3,)
    assert np.all(lo <= v) and np.all(v <= hi)


def test_seed_reproducibility(readme_data):
    d, y, c = readme_data
    a = evaluate_with_conf_int(d, "accuracy", y, c, num_bootstraps=300, rng=4)
    b = evaluate_with_conf_int(d, "accuracy", y, c, num_bootstraps=300, rng=4)
    e = evaluate_with_conf_int(d, "accuracy", y, c, num_bootstraps=300, rng=5)
    assert a == b and a != e


def test_invalid_replicates_are_counted_not_fatal():
    # few positives: some resamples have a single class, where the toolkit's roc_auc crashes
    y = np.r_[np.zeros(30), np.ones(2)]
    s = np.random.default_rng(0).normal(size=32) + y
    with pytest.warns(mlci.InvalidReplicatesWarning, match="bootstrap values are NaN"):
        _, (lo, hi) = evaluate_with_conf_int(s, "roc_auc", y, num_bootstraps=200)
    assert 0 <= lo <= hi <= 1


def test_bad_input(readme_data):
    d, y, c = readme_data
    with pytest.raises(TypeError, match="`metric` must be a callable"):
        evaluate_with_conf_int(d, y, y)
    with pytest.raises(ValueError, match=r"Unknown metric 'acuracy'.*Did you mean 'accuracy'"):
        evaluate_with_conf_int(d, "acuracy", y)
    with pytest.raises(ValueError, match="`alpha` is the interval's level in percent"):
        evaluate_with_conf_int(d, "accuracy", y, alpha=0.95 * 100 + 5)
    with pytest.raises(ValueError, match="`num_bootstraps`"):
        evaluate_with_conf_int(d, "accuracy", y, num_bootstraps=0)
    with pytest.raises(ValueError, match="`conditions` has 10 samples but `labels` has 400"):
        evaluate_with_conf_int(d, "accuracy", y, c[:10])
    with pytest.raises(ValueError, match="single distinct value"):
        evaluate_with_conf_int(d, "accuracy", y, np.zeros(400))
    with pytest.raises(ValueError, match="`samples` is required"):
        evaluate_with_conf_int(None, "accuracy", y)


def test_bad_flags_labels_and_conditions(readme_data):
    # found by the public-API matrix (tests/test_public_api_*.py)
    d, y, c = readme_data
    # before: a truthy string switched the legacy streams on
    with pytest.raises(TypeError, match="`legacy_streams` must be True or False"):
        evaluate_with_conf_int(d, "accuracy", y, legacy_streams="yes")
    # before: "Metric 'accuracy' takes 2 per-sample array(s) (y_true, y_pred); got 1."
    with pytest.raises(ValueError, match="pass the first as `labels`; got `labels`=None"):
        evaluate_with_conf_int(d, "accuracy")
    # before: numpy's "'<' not supported between instances of 'str' and 'int'"
    mixed = c.astype(object)
    mixed[3] = "x"
    with pytest.raises(TypeError, match="`conditions` mixes strings and numbers"):
        evaluate_with_conf_int(d, "accuracy", y, mixed)
    with pytest.raises(ValueError, match="`conditions` must be 1-d"):
        evaluate_with_conf_int(d, "accuracy", y, np.column_stack([c, c]))
