"""Ranking metrics: quantised reduction with a certified error bound, and the in-memory
roc_auc draws for many distinct scores (counted in atom order, cache-locally)."""

from __future__ import annotations

import numpy as np
import pytest
from backend_frames import binned_interval
from scipy import stats
from sklearn.metrics import average_precision_score, roc_auc_score

import mlci
from mlci.backends.quantise import ap_error_bound, auc_error_bound
from mlci.engine.resampling import local_uniform_counts, make_plan
from mlci.metrics import get_kernel

pytest.importorskip("duckdb", reason="duckdb not installed: pip install 'mlci[duckdb]'")

FAST = {"n_resamples": 200, "rng": 5}
REFERENCE = {"roc_auc": roc_auc_score, "average_precision": average_precision_score}


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(1)
    n = 60_000
    y = rng.integers(0, 2, n)
    s = y * 0.9 + rng.normal(size=n)
    s[:4] = np.inf  # infinite scores are ordered, not missing
    s[4:7] = -np.inf
    return y, s


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
@pytest.mark.parametrize("bins", [16, 256, 1024])
def test_quantised_error_within_the_bound(scores, metric, bins):
    import pandas as pd

    y, s = scores
    table = mlci.reduce_table(
        pd.DataFrame({"y": y, "s": s}), "y", "s", metric=metric, score_bins=bins
    )
    assert table.kind == "scores" and table.n_rows <= 2 * (bins + 2)
    res = table.bootstrap_ci(method="percentile", **FAST)
    exact = REFERENCE[metric](y, np.clip(s, -1e300, 1e300))  # scikit-learn on the raw scores
    bound = res.details["error_bound"]
    assert abs(res.estimate - exact) <= bound
    # the table is the in-memory bootstrap of the binned scores: same seed, same interval
    binned = table.score_bin(s).astype(float)
    mem = mlci.bootstrap_ci(y, binned, metric=metric, method="percentile", **FAST)
    assert binned_interval(res) == tuple(mem.confidence_interval)
    assert res.estimate == pytest.approx(REFERENCE[metric](y, binned), abs=1e-12)


def test_auc_bound_shrinks_with_bins_and_meets_1e4_by_default(scores):
    import pandas as pd

    y, s = scores
    df = pd.DataFrame({"y": y, "s": s})
    bounds = [
        mlci.reduce_ci(df, "y", "s", metric="roc_auc", score_bins=k, **FAST).details["error_bound"]
        for k in (64, 1024, 16384)
    ]
    assert bounds[0] > bounds[1] > bounds[2]
    assert bounds[2] < 1e-4
    assert bounds[1] <= 0.5 / 1024 * 1.5  # about 0.5 / bins for equal-frequency bins


def test_bounds_on_hand_made_tables():
    # two bins; bin 0 holds 2 positives and 3 negatives with distinct scores, bin 1 only
    # positives with one value (true ties: no error)
    coarse = np.array([0, 0, 1])
    pos = np.array([True, False, True])
    counts = np.array([2.0, 3.0, 5.0])
    lo, hi = np.array([0.1, 0.0, 0.9]), np.array([0.4, 0.5, 0.9])
    assert auc_error_bound(coarse, pos, counts, lo, hi) == pytest.approx(0.5 * 6 / (7 * 3))
    # AP: bin 1 (top) exact; bin 0: TP=5, S=5 above; hi = 7/7, lo = 6/9; weight 2/7
    assert ap_error_bound(coarse, pos, counts, lo, hi) == pytest.approx(2 / 7 * (1 - 6 / 9))


@pytest.mark.parametrize("seed", range(20))
def test_ap_bound_holds_on_random_tied_data(seed):
    # brute force: quantise random data many ways; the exact error never exceeds the bound
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 200))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.normal(size=n) + y, int(rng.integers(0, 3)))
    edges = np.sort(rng.choice(np.unique(s), size=min(5, len(np.unique(s))), replace=False))
    b = np.searchsorted(edges, s, side="right")
    for metric, bound_fn in (("roc_auc", auc_error_bound), ("average_precision", ap_error_bound)):
        exact, quant = REFERENCE[metric](y, s), REFERENCE[metric](y, b)
        lo = np.array([s[b == k].min() for k in b])
        hi = np.array([s[b == k].max() for k in b])
        bound = bound_fn(b, y == 1, np.ones(n), lo, hi)
        assert abs(exact - quant) <= bound + 1e-12


DESIGNS = [{"conditions": "c"}, {"strata": "st"}, {"conditions": "c", "strata": "st"}]


@pytest.mark.parametrize("metric", ["roc_auc", "average_precision"])
@pytest.mark.parametrize("design", DESIGNS, ids=lambda d: "+".join(d))
def test_ranking_with_conditions_and_strata(scores, metric, design):
    # the table is (design x label x score bin): its bootstrap is the in-memory bootstrap of
    # the binned scores with the same design (same seed, same interval), and the bound on
    # the estimate's error (from the pooled bins, resampling plays no part) still holds
    import pandas as pd

    y, s = scores
    rng = np.random.default_rng(7)
    df = pd.DataFrame(
        {"y": y, "s": s, "c": rng.integers(0, 40, len(y)), "st": rng.integers(0, 3, len(y))}
    )
    table = mlci.reduce_table(df, "y", "s", metric=metric, score_bins=64, **design)
    assert table.kind == "scores" and table.n_samples == len(y)
    assert table.n_rows <= 2 * 40 * 3 * 66
    res = table.bootstrap_ci(method="percentile", **FAST)
    binned = table.score_bin(s).astype(float)
    arrays = {k: df[v].to_numpy() for k, v in design.items()}
    mem = mlci.bootstrap_ci(y, binned, metric=metric, method="percentile", **arrays, **FAST)
    assert binned_interval(res) == tuple(mem.confidence_interval)
    assert res.estimate == pytest.approx(mem.estimate, abs=1e-12)
    exact = REFERENCE[metric](y, np.clip(s, -1e300, 1e300))
    assert abs(res.estimate - exact) <= res.details["error_bound"]
    assert res.estimate == pytest.approx(REFERENCE[metric](y, binned), abs=1e-12)


def test_ranking_with_conditions_too_many_groups(scores):
    import pandas as pd

    y, s = scores
    df = pd.DataFrame({"y": y, "s": s, "c": np.arange(len(y)) % 3000})
    with pytest.raises(ValueError, match=r"more than 1000 distinct combinations.*score_bins"):
        mlci.reduce_table(df, "y", "s", metric="roc_auc", conditions="c", max_rows=1000)


# ----------------------------------------------------- in-memory: many distinct scores
def test_local_counts_have_the_multinomial_law():
    # counts of n draws among n cells: each cell Binomial(n, 1/n), the total exactly n
    n, b = 100_000, 40
    c = local_uniform_counts(np.random.default_rng(0), b, n)
    assert (c.sum(axis=1) == n).all()
    # the distribution of one cell's count over cells and replicates: Poisson(1) in the limit
    values, freq = np.unique(c, return_counts=True)
    expected = stats.binom.pmf(values, n, 1 / n) * c.size
    keep = expected > 20
    chi2 = ((freq[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3
    # blocks are not independent of each other in a way that shows: block totals vary
    blocks = c[:, : 1 << 15].sum(axis=1)
    assert blocks.std() > 0


@pytest.mark.filterwarnings(
    "ignore::mlci.FewResamplesWarning"
)  # few replicates: a fast check of equality, not of a level
def test_many_distinct_scores_sorted_input_equals_user_function():
    # with the samples in (class, score) order every atom is its sample: the built-in kernel
    # and a user function with sample_weight see the same (atom-order) replicates
    rng = np.random.default_rng(3)
    n = 40_000  # above the block size: the atom-order draw
    y = np.sort(rng.integers(0, 2, n))
    s = np.concatenate(
        [np.sort(rng.normal(size=(y == 0).sum())), np.sort(rng.normal(0.8, 1, (y == 1).sum()))]
    )
    kernel = get_kernel("roc_auc", [y, s], {})
    assert (kernel.keys == np.arange(n)).all()
    res_fn = mlci.bootstrap_ci(
        y, s, metric=roc_auc_score, n_resamples=20, rng=3, method="percentile"
    )
    res_bi = mlci.bootstrap_ci(y, s, metric="roc_auc", n_resamples=20, rng=3, method="percentile")
    np.testing.assert_allclose(res_fn.bootstrap_distribution, res_bi.bootstrap_distribution)


def test_atom_order_draw_is_used_only_for_one_sample_per_atom():
    n = 40_000
    plan = make_plan(n, n_resamples=4, rng=0)
    distinct = plan.weights_for(np.random.default_rng(0).permutation(n), n)
    assert distinct._atom_order
    tied = plan.weights_for(np.arange(n) // 2, n // 2)
    assert not tied._atom_order
    assert (distinct.all_replicates().sum(axis=1) == n).all()


def test_interval_widened_by_the_bound_and_diagnostics_count_samples(scores):
    # issue 25: the binned interval is widened by the certified bound (also when read
    # again with another method), and diagnostics count samples, the bins as atoms
    import pandas as pd

    y, s = scores
    table = mlci.reduce_table(
        pd.DataFrame({"y": y, "s": s}), "y", "s", metric="roc_auc", score_bins=16
    )
    res = table.bootstrap_ci(method="percentile", **FAST)
    bound = res.details["error_bound"]
    assert bound > 1e-3  # 16 bins: a visible bound
    binned_interval(res)
    assert "widened" in res.details["method_reason"]
    assert f"error_bound={bound:.4g}"[:14] in repr(res)
    assert res.rows()[0]["error_bound"] == bound
    other = res.interval(method="basic")
    inner = binned_interval(other)
    assert inner != tuple(res.details["binned_interval"].values())
    # the exact AUC of the raw scores lies in the widened interval of an exact estimate
    exact = roc_auc_score(y, np.clip(s, -1e300, 1e300))
    assert res.confidence_interval.low < exact < res.confidence_interval.high
    diag = res.diagnostics
    assert diag["n_positive"] == int(np.sum(y == 1)) and diag["n_negative"] == int(np.sum(y == 0))
    assert 0 < diag["positive_atoms"] <= 18 and 0 < diag["negative_atoms"] <= 18
    # one-sided: only the closed end moves
    low = table.bootstrap_ci(method="percentile", alternative="greater", **FAST)
    assert low.confidence_interval.high == 1.0
    assert low.confidence_interval.low == max(low.details["binned_interval"]["low"] - bound, 0)
