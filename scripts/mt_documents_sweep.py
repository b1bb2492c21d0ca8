"""Coverage of corpus BLEU/chrF intervals over a number of documents (docs/validation.md,
"Corpus MT metrics and IR measures": the sweep over 10-200 documents).

The population of tests/test_coverage_mt_ir.py (``synthetic_corpus(8000, qualities=(0.56,
0.55), segments_per_document=10, rng=11)``); a test set is ``D`` documents drawn with
replacement; every interval method from the same replicates.

Usage::

    python scripts/mt_documents_sweep.py bleu 40 1000 40     # metric, documents, draws, seed
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np

import mlci
from mlci.metrics.mt import bleu_from_stats, chrf_from_stats
from mlci.mt import synthetic_corpus, system_statistics

METHODS = ("studentized", "t", "logit_t", "percentile", "normal")


def main(metric: str, n_docs: int, n_draws: int, seed: int, n_resamples: int = 500) -> None:
    c = synthetic_corpus(8000, qualities=(0.56, 0.55), segments_per_document=10, rng=11)
    stats = system_statistics(c.systems, c.references, metric=metric)["sys0"]
    docs = np.asarray(c.documents)
    score = bleu_from_stats if metric == "bleu" else chrf_from_stats
    truth = float(score(stats.sum(axis=0)[None, :])[0])
    members = [np.flatnonzero(docs == d) for d in np.unique(docs)]
    rng = np.random.default_rng(seed)
    hits = dict.fromkeys(METHODS, 0)
    width = dict.fromkeys(METHODS, 0.0)
    start = time.time()
    for e in range(n_draws):
        pick = rng.integers(0, len(members), n_docs)
        idx = np.concatenate([members[p] for p in pick])
        cond = np.repeat(np.arange(n_docs), [len(members[p]) for p in pick])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            # studentized holds the linearization every other method here reads
            res = mlci.bootstrap_ci(
                stats[idx],
                metric=metric,
                conditions=cond,
                n_resamples=n_resamples,
                rng=e,
                method="studentized",
            )
            for m in METHODS:
                low, high = (res if m == res.method else res.interval(method=m)).confidence_interval
                hits[m] += int(low <= truth <= high)
                width[m] += high - low
    cells = " ".join(f"{m} {hits[m] / n_draws:.3f} ({width[m] / n_draws:.2f})" for m in METHODS)
    print(f"{metric}, {n_docs} documents, {n_draws} draws: {cells}")
    print(f"({time.time() - start:.0f} s)")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
