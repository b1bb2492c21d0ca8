"""Intervals and comparisons of corpus-level MT metrics from text (the usual drivers).

:func:`mt_ci` and :func:`mt_compare` take hypotheses and references as strings, extract
sacreBLEU's per-segment statistics once (:mod:`mlci.mt.stats`) and hand them to
:func:`mlci.bootstrap_ci` / :func:`mlci.compare` with ``metric="bleu"`` or ``"chrf"``:
the engine's weights, conditions (documents), interval methods and corrections apply
unchanged, and a replicate costs a matrix product over the statistics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .stats import (
    _metric_key,
    check_hypotheses,
    check_references,
    split_options,
    system_statistics,
)

__all__ = ["mt_ci", "mt_compare"]


def mt_ci(
    hypotheses: Sequence[str],
    references: Any,
    *,
    metric: str = "bleu",
    conditions: Any = None,
    metric_kwargs: Mapping[str, Any] | None = None,
    **options: Any,
) -> Any:
    """Confidence interval of a corpus BLEU or chrF, resampling segments or documents.

    Parameters
    ----------
    hypotheses : list of str
        The system's output, one string per segment.
    references : list of list of str, or list of str
        Reference streams, as sacreBLEU's ``refs`` (a single list is one reference).
    metric : {"bleu", "chrf"}
    conditions : array-like, shape (n_segments,), optional
        Document (or other unit) of every segment: whole documents are resampled.
    metric_kwargs : dict, optional
        sacreBLEU options (``tokenize``, ``lowercase``, ``smooth_method``, ...; chrF's
        ``char_order``, ``word_order``, ``beta``...).
    **options
        Further options of :func:`mlci.bootstrap_ci` (``n_resamples``,
        ``confidence_level``, ``method``, ``rng``, ...).

    Returns
    -------
    BootstrapResult
        Its estimate equals sacreBLEU's corpus score (``sacrebleu.corpus_bleu``).

    Examples
    --------
    >>> from mlci.mt import synthetic_corpus
    >>> c = synthetic_corpus(300, rng=0)
    >>> res = mt_ci(c.systems["sys0"], c.references, conditions=c.documents, rng=0)
    >>> res.metric, res.method, bool(res.confidence_interval.low < res.estimate)
    ('bleu', 'logit_t', True)
    """
    from ..engine.bootstrap import bootstrap_ci  # here: `mlci mt --test` runs without it

    key = _metric_key(metric)
    _, ker = split_options(key, metric_kwargs)
    # checked here, so that a message names `hypotheses` (not the systems' dict below)
    hyps = check_hypotheses(hypotheses)
    check_references(references, len(hyps), of="`hypotheses`")
    stats = system_statistics(
        {"hypotheses": hyps}, references, metric=key, metric_kwargs=metric_kwargs
    )
    return bootstrap_ci(
        stats["hypotheses"], metric=key, conditions=conditions, metric_kwargs=ker, **options
    )


def mt_compare(
    systems: Mapping[str, Sequence[str]],
    references: Any,
    *,
    metric: str = "bleu",
    variant: str = "bootstrap",
    baseline: str | None = None,
    conditions: Any = None,
    metric_kwargs: Mapping[str, Any] | None = None,
    **options: Any,
) -> Any:
    """Compare MT systems on the same test set: mlci's paired bootstrap, or sacreBLEU's tests.

    Parameters
    ----------
    systems : dict of str -> list of str
        Every system's output, one string per segment, aligned with the references.
    references : list of list of str, or list of str
    metric : {"bleu", "chrf"}
    variant : {"bootstrap", "paired-bs", "paired-ar"}
        ``"bootstrap"``: :func:`mlci.compare` (intervals for every system and every
        difference, adjusted p-values, ``method="auto"``); ``"paired-bs"`` /
        ``"paired-ar"``: sacreBLEU's tests, the same p-values as ``sacrebleu --paired-bs``
        / ``--paired-ar`` (:func:`mlci.mt.paired_test`).
    baseline : str, optional
        Compare every system with this one only (``reference=`` of :func:`mlci.compare`);
        sacreBLEU's tests: default the first system.
    conditions : array-like, shape (n_segments,), optional
        Document of every segment: documents are resampled (or swapped) whole.
    metric_kwargs : dict, optional
        sacreBLEU options of the metric.
    **options
        Options of :func:`mlci.compare` (``n_resamples``, ``rng``, ``correction``,
        ``method``...) or of :func:`mlci.mt.paired_test` (``n_resamples``, ``rng``,
        ``correction``).

    Returns
    -------
    ComparisonResult or MTPairedTest

    Examples
    --------
    >>> from mlci.mt import synthetic_corpus
    >>> c = synthetic_corpus(300, rng=0)
    >>> res = mt_compare(c.systems, c.references, conditions=c.documents, rng=0)
    >>> d = res.difference("sys0", "sys1")
    >>> bool(d.estimate > 0)
    True
    """
    key = _metric_key(metric)
    if variant != "bootstrap":  # sacreBLEU's tests (imported here: the bootstrap runs without)
        from .significance import TESTS, paired_test

        if variant not in TESTS:
            valid = ", ".join(repr(t) for t in ("bootstrap", *TESTS))
            raise ValueError(f"`variant` must be one of {valid}; got {variant!r}.")
    _, ker = split_options(key, metric_kwargs)
    stats = system_statistics(systems, references, metric=key, metric_kwargs=metric_kwargs)
    if baseline is not None and baseline not in stats:
        raise ValueError(
            f"`baseline`={baseline!r} is not among the systems {sorted(stats)}; pass one of "
            "their names, or None."
        )
    if variant == "bootstrap":
        from ..comparison.paired import compare  # here: `mlci mt --test` runs without it

        return compare(
            None,
            stats,
            metric=key,
            reference=baseline,
            conditions=conditions,
            metric_kwargs=ker,
            **options,
        )
    return paired_test(
        stats,
        metric=key,
        baseline=baseline,
        variant=variant,
        conditions=conditions,
        metric_kwargs=ker,
        **options,
    )
