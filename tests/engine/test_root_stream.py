"""RootStreamSampler: the schemes that keep the streams they had before the block streams
(Scores.bootstrap_sample, GroupScores.bootstrap_sample, oob_ci's member bootstrap)."""

from __future__ import annotations

import numpy as np
import pytest

import mlci
from mlci.engine.bootstrap import run_replicates
from mlci.engine.sampler import RootStreamSampler
from mlci.protocols.oob import MemberSampler, oob_member_bootstrap


class _Uniform(RootStreamSampler):
    """Every replicate: ``m`` uniform numbers, all replicates one block."""

    def __init__(self, m: int, n_resamples: int, root: object) -> None:
        self.m, self.n_resamples, self.block_size, self.root = m, n_resamples, n_resamples, root

    def draw(self, rng, b, out=None):
        w = rng.random((b, self.m))
        if out is not None:
            out[...] = w
            return out
        return w


@pytest.mark.parametrize("root", [0, 7, np.random.SeedSequence(3)])
def test_replicates_are_the_seeds_own_stream_whatever_the_chunking(root):
    expected = np.random.default_rng(root).random((50, 4))
    for batch, n_jobs in ((None, 1), (3, 1), (7, 2)):
        got = run_replicates(
            lambda w: w, _Uniform(4, 50, root), (4,), bytes_per_row=32.0, batch=batch,
            n_jobs=n_jobs,
        )  # fmt: skip
        np.testing.assert_array_equal(got, expected)


def test_a_generator_is_continued_and_one_block_only():
    gen = np.random.default_rng(5)
    s = _Uniform(2, 3, gen)
    assert s.generator(s.stream, 0) is gen  # its draws continue the caller's generator
    with pytest.raises(IndexError, match="one block"):
        s.generator(s.stream, 1)


def test_member_bootstrap_is_the_multinomial_stream_of_its_seed():
    rng = np.random.default_rng(0)
    p, oob = rng.normal(size=(30, 12)), rng.random((30, 12)) < 0.4
    counts = np.random.default_rng(11).multinomial(30, np.full(30, 1 / 30), size=200)
    np.testing.assert_array_equal(MemberSampler(30, 200, 11).all_replicates(), counts)
    d = oob_member_bootstrap(p, oob, lambda mean: np.nanmean(mean, axis=1), rng=11)
    assert d.shape == (200,)


def test_scores_bootstrap_sample_is_the_seeds_own_stream():
    # numpy.random.default_rng(seed).choice over the samples, as before the engine's schemes
    y = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3])  # the samples in the order given
    b = mlci.Scores(pos=y[:4], neg=y[4:]).bootstrap_sample(rng=np.random.SeedSequence(4))
    idx = np.random.default_rng(np.random.SeedSequence(4)).choice(np.arange(7), 7)
    assert sorted(b.pos.tolist() + b.neg.tolist()) == sorted(y[idx].tolist())


def test_oob_ci_with_a_seed_sequence_is_the_same_twice():
    # the three child seeds are keyed, not spawned: the caller's SeedSequence is not advanced
    sklearn = pytest.importorskip("sklearn.ensemble")
    from sklearn.datasets import make_classification

    X, y = make_classification(120, random_state=0)
    rf = sklearn.RandomForestClassifier(n_estimators=15, oob_score=True, random_state=0)
    rf.fit(X, y)
    seed = np.random.SeedSequence(8)
    a = mlci.oob_ci(rf, X, y, rng=seed, n_resamples=100)
    b = mlci.oob_ci(rf, X, y, rng=seed, n_resamples=100)
    assert seed.n_children_spawned == 0
    assert (a.estimate, a.confidence_interval) == (b.estimate, b.confidence_interval)
