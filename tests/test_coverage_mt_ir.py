"""Coverage of the default intervals of corpus MT metrics and IR measures (issue 24).

Do the 95% intervals of ``method="auto"`` contain the population value 95% of the time?

* **MT** -- a synthetic population of 8,000 segments in about 760 documents
  (:func:`mlci.mt.synthetic_corpus`, two systems with population BLEU about 31 and 30),
  its sacreBLEU statistics computed once.  The truth is the population's corpus score
  (from the population's summed statistics).  A test set is ``D`` documents drawn at
  random (with replacement: every draw is a new document unit) or ``n`` segments drawn
  independently; the interval resamples documents (``conditions``) or segments.
  Designs: BLEU over 40 documents (about 420 segments), BLEU over 15 documents, chrF
  over 40 documents, BLEU over 400 independent segments, and the paired difference
  sys0 - sys1 over 40 documents (:func:`mlci.compare`, ``auto``: t on the CR2 standard
  error).
* **IR** -- a population of 4,000 synthetic queries (graded qrels, two runs correlated
  through a shared query difficulty, as ``scripts/make_ir_example.py``), every query's
  nDCG@10 and AP computed once by ir_measures.  The truth is the population mean.  A
  test collection is ``Q`` queries drawn at random; designs: nDCG@10 with 50 and 25
  queries, AP with 50, and the paired nDCG@10 difference with 50.
* **WER** -- corpus WER (errors / reference words) of a population of 2,000 speakers x 10
  utterances (:func:`_wer_design`); designs: 40 speakers (resampled whole) and 400
  independent utterances.

Scale: ``MLCI_SLOW_SCALE`` (0.1 in CI) multiplies the 2,000 experiments per design (at
least 200) and B = 1,000 replicates (at least 400).  The numbers in docs/validation.md
come from ``MLCI_SLOW_SCALE=1 python -m pytest tests/test_coverage_mt_ir.py -m slow -s``.
Assertion: coverage not significantly outside 0.95 +/- 0.015 (two one-sided exact
binomial tests at level 0.001), except the designs listed in ``KNOWN_LOW``, which the
docs describe and where mlci warns.
"""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from scipy import stats

import mlci

SCALE = float(os.environ["MLCI_SLOW_SCALE"])
N_EXPERIMENTS = max(200, round(2000 * SCALE))
N_RESAMPLES = max(400, round(1000 * SCALE))
LEVEL, TOL, ALPHA = 0.95, 0.015, 1e-3
#: designs whose coverage is known to fall short (documented; mlci warns for them): none
KNOWN_LOW: set[str] = set()

pytestmark = pytest.mark.slow


# --------------------------------------------------------------------------- populations
@pytest.fixture(scope="module")
def mt_population():
    pytest.importorskip("sacrebleu")
    from mlci.mt import synthetic_corpus, system_statistics

    c = synthetic_corpus(8000, qualities=(0.56, 0.55), segments_per_document=10, rng=11)
    out = {}
    for metric in ("bleu", "chrf"):
        out[metric] = system_statistics(c.systems, c.references, metric=metric)
    return out, c.documents


def _ir_population(n_queries: int = 4000, seed: int = 5):
    rng = np.random.default_rng(seed)
    pool, depth = 60, 50
    qrels, runs = {}, {"a": {}, "b": {}}
    for q in range(n_queries):
        qid = f"q{q}"
        n_rel = int(rng.integers(2, 16))
        grades = np.zeros(pool, dtype=int)
        grades[:n_rel] = rng.choice([1, 2, 3], size=n_rel, p=[0.6, 0.3, 0.1])
        qrels[qid] = {f"d{d}": int(grades[d]) for d in range(2 * n_rel)}
        hard = rng.normal(0.0, 0.6)
        for run, quality in (("a", 0.9), ("b", 1.0)):
            s = (quality + hard) * grades + rng.normal(0.0, 1.0, pool)
            top = np.argsort(-s)[:depth]
            runs[run][qid] = {f"d{d}": float(s[d]) for d in top}
    return qrels, runs


@pytest.fixture(scope="module")
def ir_population():
    pytest.importorskip("ir_measures")
    from mlci.ir import per_query

    qrels, runs = _ir_population()
    vals = {r: per_query(runs[r], qrels, ["ndcg@10", "map"]).values for r in runs}
    return vals


# --------------------------------------------------------------------------- experiments
def _covers(res, truth) -> bool:
    low, high = res.confidence_interval
    return bool(low <= truth <= high)


def _mt_design(pop, metric, n_docs=None, n_segments=None, paired=False):
    st, docs = pop[0][metric], pop[1]
    totals = {k: v.sum(axis=0) for k, v in st.items()}
    fn = mlci.metrics.mt.bleu_from_stats if metric == "bleu" else mlci.metrics.mt.chrf_from_stats
    truth = {k: float(fn(t[None, :])[0]) for k, t in totals.items()}
    uniq = np.unique(docs)
    members = [np.flatnonzero(docs == d) for d in uniq]
    rng = np.random.default_rng(2024)
    hits, widths, warned = 0, [], 0
    for e in range(N_EXPERIMENTS):
        if n_docs is not None:
            pick = rng.integers(0, len(uniq), n_docs)
            idx = np.concatenate([members[p] for p in pick])
            cond = np.repeat(np.arange(n_docs), [len(members[p]) for p in pick])
        else:
            idx = rng.integers(0, len(docs), n_segments)
            cond = None
        import warnings

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if paired:
                res = mlci.compare(
                    None,
                    {k: v[idx] for k, v in st.items()},
                    metric=metric,
                    conditions=cond,
                    n_resamples=N_RESAMPLES,
                    rng=e,
                ).difference("sys0", "sys1")
                t = truth["sys0"] - truth["sys1"]
            else:
                res = mlci.bootstrap_ci(
                    st["sys0"][idx], metric=metric, conditions=cond, n_resamples=N_RESAMPLES, rng=e
                )
                t = truth["sys0"]
        warned += bool(caught)
        hits += _covers(res, t)
        widths.append(np.diff(res.confidence_interval)[0])
    return hits, float(np.mean(widths)), warned, res.method


def _ir_design(pop, measure, n_queries, paired=False):
    va, vb = pop["a"][measure], pop["b"][measure]
    rng = np.random.default_rng(77)
    hits, widths, warned = 0, [], 0
    for e in range(N_EXPERIMENTS):
        idx = rng.integers(0, len(va), n_queries)
        if paired:
            res = mlci.compare(
                None, {"a": va[idx], "b": vb[idx]}, metric="mean", n_resamples=N_RESAMPLES, rng=e
            ).difference("a", "b")
            t = va.mean() - vb.mean()
        else:
            res = mlci.bootstrap_ci(va[idx], metric="mean", n_resamples=N_RESAMPLES, rng=e)
            t = va.mean()
        hits += _covers(res, t)
        widths.append(np.diff(res.confidence_interval)[0])
    return hits, float(np.mean(widths)), warned, res.method


def _wer_design(n_speakers=None, n_utterances=None):
    """Corpus WER (errors / reference words): a population of 2,000 speakers with 10
    utterances each, a speaker's error rate ~ Beta(2, 18) (mean 0.1), 3-29 words an
    utterance, errors ~ Binomial(words, rate); the truth is the population's WER."""
    pop = np.random.default_rng(99)
    rate = pop.beta(2, 18, 2000)
    words = pop.integers(3, 30, (2000, 10))
    errors = pop.binomial(words, rate[:, None])
    truth = errors.sum() / words.sum()
    rng = np.random.default_rng(2025)
    hits, widths = 0, []
    for e in range(N_EXPERIMENTS):
        if n_speakers is not None:
            pick = rng.integers(0, 2000, n_speakers)
            w, err = words[pick].ravel(), errors[pick].ravel()
            cond = np.repeat(np.arange(n_speakers), 10)
        else:
            k = rng.integers(0, words.size, n_utterances)
            w, err, cond = words.ravel()[k], errors.ravel()[k], None
        res = mlci.bootstrap_ci(
            w, err, metric="wer", conditions=cond, n_resamples=N_RESAMPLES, rng=e
        )
        hits += _covers(res, truth)
        widths.append(np.diff(res.confidence_interval)[0])
    return hits, float(np.mean(widths)), 0, res.method


MT_DESIGNS = {
    "bleu, 40 documents": {"metric": "bleu", "n_docs": 40},
    "bleu, 15 documents": {"metric": "bleu", "n_docs": 15},
    "chrf, 40 documents": {"metric": "chrf", "n_docs": 40},
    "bleu, 400 segments iid": {"metric": "bleu", "n_segments": 400},
    "bleu difference, 40 documents": {"metric": "bleu", "n_docs": 40, "paired": True},
}
IR_DESIGNS = {
    "nDCG@10, 50 queries": {"measure": "nDCG@10", "n_queries": 50},
    "nDCG@10, 25 queries": {"measure": "nDCG@10", "n_queries": 25},
    "AP, 50 queries": {"measure": "AP", "n_queries": 50},
    "nDCG@10 difference, 50 queries": {"measure": "nDCG@10", "n_queries": 50, "paired": True},
}


def _check(name, hits, width, warned, method):
    cov = hits / N_EXPERIMENTS
    print(
        f"\n| {name} | {method} | {cov:.3f} | {width:.4g} | {warned} | "
        f"{N_EXPERIMENTS} x B={N_RESAMPLES} |"
    )
    low = stats.binomtest(hits, N_EXPERIMENTS, LEVEL - TOL, alternative="less").pvalue
    high = stats.binomtest(hits, N_EXPERIMENTS, LEVEL + TOL, alternative="greater").pvalue
    if name in KNOWN_LOW:
        assert warned == N_EXPERIMENTS, f"{name}: mlci must warn ({warned} warnings)"
        return
    assert low > ALPHA and high > ALPHA, f"{name}: coverage {cov:.3f}"


@pytest.mark.filterwarnings("ignore::mlci.FewConditionsWarning")
@pytest.mark.parametrize("name", list(MT_DESIGNS))
def test_mt_coverage(mt_population, name):
    t0 = time.time()
    hits, width, warned, method = _mt_design(mt_population, **MT_DESIGNS[name])
    _check(name, hits, width, warned, method)
    print(f"({time.time() - t0:.0f} s)")


WER_DESIGNS = {
    "wer, 40 speakers": {"n_speakers": 40},
    "wer, 400 utterances iid": {"n_utterances": 400},
}


@pytest.mark.parametrize("name", list(WER_DESIGNS))
def test_wer_coverage(name):
    hits, width, warned, method = _wer_design(**WER_DESIGNS[name])
    _check(name, hits, width, warned, method)


@pytest.mark.parametrize("name", list(IR_DESIGNS))
def test_ir_coverage(ir_population, name):
    hits, width, warned, method = _ir_design(ir_population, **IR_DESIGNS[name])
    _check(name, hits, width, warned, method)
