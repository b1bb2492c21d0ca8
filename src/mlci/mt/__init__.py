"""Corpus-level machine-translation metrics: BLEU and chrF (from sacreBLEU's statistics), WER.

* :mod:`~mlci.mt.stats`: :func:`segment_statistics` / :func:`system_statistics`, the
  per-segment sufficient statistics from sacreBLEU itself;
* :mod:`~mlci.mt.api`: :func:`mt_ci` and :func:`mt_compare` (the engine's intervals and
  paired comparisons, resampling segments or documents);
* :mod:`~mlci.mt.significance`: :func:`paired_test`, sacreBLEU's ``--paired-bs`` and
  ``--paired-ar`` with its p-values, vectorised;
* :mod:`~mlci.mt.readers`: :func:`read_segments` (one segment a line, as sacreBLEU);
* :mod:`~mlci.mt.synthetic`: :func:`synthetic_corpus`, reproducible test text;
* the ``mlci mt ci`` and ``mlci mt compare`` subcommands are in :mod:`mlci.cli.mt`.

The kernels (``metric="bleu"``, ``"chrf"``, ``"wer"`` of :func:`mlci.bootstrap_ci`) are in
:mod:`mlci.metrics.mt`.  See docs/mt.md.
"""

from .api import mt_ci, mt_compare
from .readers import read_segments, read_systems
from .significance import MTPairedTest, paired_test
from .stats import segment_statistics, system_statistics
from .synthetic import SyntheticCorpus, synthetic_corpus

__all__ = [
    "MTPairedTest",
    "SyntheticCorpus",
    "mt_ci",
    "mt_compare",
    "paired_test",
    "read_segments",
    "read_systems",
    "segment_statistics",
    "synthetic_corpus",
    "system_statistics",
]
