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

from __future__ import annotations

import importlib
from typing import Any

#: submodule -> the names it defines, imported on first use (PEP 562), so that the
#: ``mlci mt`` commands load only what they run (``--test paired-bs`` no engine, the
#: bootstrap no sacreBLEU tests, neither the synthetic corpus)
_EXPORTS: dict[str, tuple[str, ...]] = {
    "api": ("mt_ci", "mt_compare"),
    "readers": ("read_segments", "read_systems"),
    "significance": ("MTPairedTest", "paired_test"),
    "stats": ("segment_statistics", "system_statistics"),
    "synthetic": ("SyntheticCorpus", "synthetic_corpus"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

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


def __getattr__(name: str) -> Any:
    """The public names (and the submodules), imported on first use."""
    module = _WHERE.get(name)
    if module is None:
        if name in _EXPORTS:
            return importlib.import_module(f".{name}", __name__)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
