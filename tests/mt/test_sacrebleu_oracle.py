"""BLEU and chrF from statistics against sacreBLEU itself (the oracle).

Every reference value comes from the installed sacreBLEU: ``corpus_bleu`` /
``corpus_chrf``, ``Metric._compute_score_from_stats`` on the same summed statistics, and
``sacrebleu.significance.PairedTest`` (what ``sacrebleu --paired-bs / --paired-ar`` run).
"""

from __future__ import annotations

import numpy as np
import pytest

sacrebleu = pytest.importorskip("sacrebleu")
from sacrebleu.significance import PairedTest  # noqa: E402

import mlci  # noqa: E402
from mlci.metrics.mt import bleu_from_stats, chrf_from_stats  # noqa: E402
from mlci.mt import (  # noqa: E402
    mt_ci,
    paired_test,
    segment_statistics,
    synthetic_corpus,
    system_statistics,
)
from mlci.mt.significance import resample_counts  # noqa: E402


@pytest.fixture(scope="module")
def corpus():
    return synthetic_corpus(240, qualities=(0.56, 0.55, 0.5), n_references=2, rng=3)


BLEU_OPTIONS = [
    {},
    {"smooth_method": "floor"},
    {"smooth_method": "add-k", "smooth_value": 2},
    {"smooth_method": "none"},
    {"effective_order": True},
    {"max_ngram_order": 6},
    {"lowercase": True, "tokenize": "char"},
]
CHRF_OPTIONS = [{}, {"word_order": 2}, {"beta": 1}, {"eps_smoothing": True}, {"whitespace": True}]


def _kernel_opts(metric, opts):
    keys = ("smooth_method", "smooth_value", "effective_order", "beta", "eps_smoothing")
    return {k: v for k, v in opts.items() if k in keys}


@pytest.mark.parametrize(
    "metric,opts",
    [("bleu", o) for o in BLEU_OPTIONS] + [("chrf", o) for o in CHRF_OPTIONS],
)
def test_corpus_score_equals_sacrebleu(corpus, metric, opts):
    hyp = corpus.systems["sys0"]
    cls = sacrebleu.BLEU if metric == "bleu" else sacrebleu.CHRF
    expected = cls(**opts).corpus_score(hyp, corpus.references).score  # sacreBLEU's own
    res = mt_ci(hyp, corpus.references, metric=metric, metric_kwargs=opts, n_resamples=50, rng=0)
    assert res.estimate == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "metric,opts",
    [("bleu", o) for o in BLEU_OPTIONS[:6]] + [("chrf", o) for o in CHRF_OPTIONS],
)
def test_small_resamples_equal_compute_score_from_stats(corpus, metric, opts):
    # tiny resamples hit the edge cases: zero matches, empty orders, short hypotheses
    hyp = corpus.systems["sys2"]
    ext = {k: v for k, v in opts.items() if metric == "chrf" or k not in _kernel_opts(metric, opts)}
    stats = segment_statistics(hyp, corpus.references, metric=metric, metric_kwargs=ext)
    m = (sacrebleu.BLEU if metric == "bleu" else sacrebleu.CHRF)(**opts)
    fn = bleu_from_stats if metric == "bleu" else chrf_from_stats
    rng = np.random.default_rng(0)
    for size in (1, 2, 3, 8, 240):
        sums = stats[rng.integers(0, len(hyp), (60, size))].sum(axis=1)
        mine = fn(sums, **_kernel_opts(metric, opts))
        ref = [m._compute_score_from_stats([int(x) for x in row]).score for row in sums]
        np.testing.assert_allclose(mine, ref, rtol=0, atol=1e-12)


def test_resample_counts_are_sacrebleus_indices():
    # the chunked draw is the same stream as sacreBLEU's one call
    n, b = 301, 37
    idx = np.random.default_rng(12345).choice(n, size=(b, n), replace=True)
    expected = np.array([np.bincount(r, minlength=n) for r in idx])
    for chunk in (1, 2, 5, 37):
        got = np.vstack(list(resample_counts(np.random.default_rng(12345), n, b, chunk)))
        if (chunk * n) % 2 == 0 or chunk == b:
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_paired_bootstrap_replicates_are_sacrebleus(corpus, metric):
    """Per-replicate corpus scores on sacreBLEU's own resample indices."""
    st = system_statistics(corpus.systems, corpus.references, metric=metric)
    res = paired_test(st, metric=metric, variant="paired-bs", n_resamples=500, rng=12345)
    idx = np.random.default_rng(12345).choice(240, size=(500, 240), replace=True)
    m = sacrebleu.BLEU() if metric == "bleu" else sacrebleu.CHRF()
    for s, name in enumerate(res.systems):
        stats = st[name].astype(np.int64)
        # sacreBLEU's score of the exact resampled sums: equal to 1e-12
        exact = [m._compute_score_from_stats([int(x) for x in stats[i].sum(0)]).score for i in idx]
        np.testing.assert_allclose(res.replicates[:, s], exact, rtol=0, atol=1e-12)
        # what sacreBLEU's bootstrap itself computes (float32 statistics, numpy >= 2:
        # float32 precisions): equal to its float32 rounding
        f32 = stats.astype("float32")
        theirs = [m._compute_score_from_stats(f32[i].sum(0)).score for i in idx]
        np.testing.assert_allclose(res.replicates[:, s], theirs, rtol=0, atol=1e-4)


@pytest.mark.parametrize("test,n", [("paired-bs", 1000), ("paired-ar", 2000)])
@pytest.mark.parametrize("metric", ["bleu", "chrf"])
def test_paired_tests_equal_sacrebleu(corpus, monkeypatch, test, n, metric):
    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    names = ["sys0", "sys1", "sys2"]
    m = (
        sacrebleu.BLEU(references=corpus.references)
        if metric == "bleu"
        else sacrebleu.CHRF(references=corpus.references)
    )
    named = [(nm, corpus.systems[nm]) for nm in names]
    _, scores = PairedTest(named, {metric: m}, None, test_type=test[-2:], n_samples=n)()
    (key,) = [k for k in scores if k != "System"]
    theirs = scores[key]
    st = system_statistics(corpus.systems, corpus.references, metric=metric)
    res = paired_test(st, metric=metric, variant=test, n_resamples=n, rng=12345)
    assert res.systems == tuple(names)
    for i in range(3):
        assert res.scores[i] == pytest.approx(theirs[i].score, abs=1e-12)
        if i:
            assert res.pvalues[i] == theirs[i].p_value  # the same count of the same draws
        if test == "paired-bs":
            assert res.means[i] == pytest.approx(theirs[i].mean, abs=1e-4)  # float32 replicates
            assert res.ci[i] == pytest.approx(theirs[i].ci, abs=1e-4)


@pytest.mark.parametrize("test", ["paired-bs", "paired-ar"])
def test_chunked_draws_continue_sacrebleus_stream(corpus, monkeypatch, test):
    # Small chunks (3 rows of 240 segments would be 720 swap draws, not a whole number of
    # numpy's 32-bit words: the chunk rule rounds to 2 rows) still give sacreBLEU's
    # p-values, as one call does; before the rule, chunks of 2^22 draws (1,398 rows of 3,000
    # segments) broke --paired-ar's stream at every chunk boundary.
    import mlci.mt.significance as sig

    monkeypatch.setenv("SACREBLEU_SEED", "12345")
    monkeypatch.setattr(sig, "CHUNK_DRAWS", 800)
    assert sig._chunk_rows(240, 1000) == 2
    names = ["sys0", "sys1"]  # close systems: a p-value far from 1 / 1001
    m = sacrebleu.BLEU(references=corpus.references)
    named = [(nm, corpus.systems[nm]) for nm in names]
    _, scores = PairedTest(named, {"bleu": m}, None, test_type=test[-2:], n_samples=1000)()
    theirs = scores["BLEU"]
    st = system_statistics({k: corpus.systems[k] for k in names}, corpus.references)
    res = paired_test(st, variant=test, n_resamples=1000, rng=12345)
    assert res.pvalues[1] == theirs[1].p_value > 0.01
    monkeypatch.setattr(sig, "CHUNK_DRAWS", 1 << 20)
    whole = paired_test(st, variant=test, n_resamples=1000, rng=12345)
    assert whole.pvalues[1] == res.pvalues[1]
    if test == "paired-bs":
        np.testing.assert_array_equal(whole.replicates, res.replicates)


def test_float32_products_are_exact():
    # integer statistics whose every partial sum stays below 2^24 are summed in float32
    # (half the memory traffic), with the same sums as float64; larger ones in float64
    from mlci.mt.significance import _exact_dtype

    rng = np.random.default_rng(5)
    stats = rng.integers(0, 60, (3000, 20)).astype(float)
    assert _exact_dtype(stats, 3000) == np.float32
    counts = np.vstack([np.bincount(rng.integers(0, 3000, 3000), minlength=3000)] * 4)
    np.testing.assert_array_equal(
        (counts.astype(np.float32) @ stats.astype(np.float32)).astype(float), counts @ stats
    )
    assert _exact_dtype(stats, 2**19) == np.float64  # 59 * 2^19 > 2^24
    assert _exact_dtype(stats + 0.5, 3000) == np.float64  # not integers


def test_bleu_metric_through_drivers(corpus):
    st = system_statistics(corpus.systems, corpus.references)
    res = mlci.bootstrap_ci(st["sys0"], metric="bleu", rng=0, n_resamples=200)
    assert res.estimate == pytest.approx(
        sacrebleu.corpus_bleu(corpus.systems["sys0"], corpus.references).score, abs=1e-12
    )
    assert res.method == "studentized"
    assert res.bounds == (0.0, 100.0)
    cmp_ = mlci.compare(None, st, metric="bleu", rng=0, n_resamples=200)
    d = cmp_.difference("sys0", "sys2")
    assert d.estimate == pytest.approx(res.estimate - cmp_.systems["sys2"].estimate, abs=1e-12)


@pytest.mark.parametrize("conditions", [False, True])
def test_fused_standard_errors_equal_plain_gradient(corpus, conditions):
    # the kernel's fused forms give the same replicates and standard errors as the
    # engine's generic (b, m) gradient path
    from mlci.engine.linearize import Linearization
    from mlci.engine.nested import plan_for_conditions
    from mlci.metrics import get_kernel

    st = segment_statistics(corpus.systems["sys0"], corpus.references)
    kernel = get_kernel("bleu", (st,), {})
    plan = plan_for_conditions(
        len(st),
        conditions=corpus.documents if conditions else None,
        strata=None,
        two_stage=False,
        weights="multinomial",
        n_resamples=300,
        rng=np.random.SeedSequence(1),
    )
    lin = Linearization(kernel, plan)

    def run(evaluate, smp, shape, per_row):
        return mlci.engine.bootstrap.run_replicates(evaluate, smp, shape, bytes_per_row=per_row)

    v1, se1, _ = lin.run(run, fused=True)
    v2, se2, _ = lin.run(run, fused=False)
    np.testing.assert_array_equal(v1, v2)
    np.testing.assert_allclose(se1, se2, rtol=1e-5)
