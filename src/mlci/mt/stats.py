"""Per-segment sufficient statistics of BLEU and chrF, taken from sacreBLEU itself.

sacreBLEU's own paired tests resample the statistics that ``Metric._extract_corpus_statistics``
returns (one row per segment; BLEU: ``[hyp_len, ref_len, correct_1..4, total_1..4]``,
the reference length being the closest one when there are several references; chrF:
``[hyp, ref, match]`` per n-gram order, from the best reference of the segment).  They
are the only place mlci touches the text: tokenisation, lowercasing and the choice among
references are sacreBLEU's.  Requires ``pip install sacrebleu`` (the ``mt`` extra).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

__all__ = [
    "EXTRACTION_OPTIONS",
    "KERNEL_OPTIONS",
    "MT_METRICS",
    "gc_paused",
    "sacrebleu_metric",
    "segment_statistics",
    "split_options",
]

#: the corpus metrics mlci computes from sacreBLEU statistics
MT_METRICS = ("bleu", "chrf")
#: sacreBLEU options that change the statistics (given to the sacreBLEU metric)
EXTRACTION_OPTIONS = {
    "bleu": ("lowercase", "tokenize", "max_ngram_order", "force"),
    # beta and the smoothing choose the best of several references (by chrF)
    "chrf": ("char_order", "word_order", "lowercase", "whitespace", "beta", "eps_smoothing"),
}
#: sacreBLEU options that change only the score of summed statistics (given to the kernel)
KERNEL_OPTIONS = {
    "bleu": ("smooth_method", "smooth_value", "effective_order"),
    "chrf": ("beta", "eps_smoothing"),
}


def _metric_key(metric: Any) -> str:
    if not isinstance(metric, str):
        raise TypeError(f"`metric` must be one of {list(MT_METRICS)}; got {type(metric).__name__}.")
    key = metric.lower()
    if key not in MT_METRICS:
        raise ValueError(f"`metric` must be one of {list(MT_METRICS)}; got {metric!r}.")
    return key


def split_options(
    metric: str, options: Mapping[str, Any] | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """``(extraction options, kernel options)`` of a sacreBLEU metric's keyword options; an
    unknown option is an error listing the known ones.  chrF's ``beta`` and
    ``eps_smoothing`` are in both (they pick the best reference of a segment).

    Examples
    --------
    >>> split_options("bleu", {"lowercase": True, "smooth_method": "floor"})
    ({'lowercase': True}, {'smooth_method': 'floor'})
    """
    key = _metric_key(metric)
    if options is not None and not isinstance(options, Mapping):
        raise TypeError(f"`metric_kwargs` must be a dict of sacreBLEU options; got {options!r}.")
    opts = dict(options or {})
    known = tuple(dict.fromkeys(EXTRACTION_OPTIONS[key] + KERNEL_OPTIONS[key]))
    unknown = sorted(set(opts) - set(known))
    if unknown:
        raise ValueError(
            f"Option(s) {', '.join(f'`{u}`' for u in unknown)} do not apply to {key!r}; its "
            f"sacreBLEU options: {', '.join(known)}."
        )
    ext = {k: v for k, v in opts.items() if k in EXTRACTION_OPTIONS[key]}
    ker = {k: v for k, v in opts.items() if k in KERNEL_OPTIONS[key]}
    return ext, ker


def sacrebleu_metric(metric: str, references: Any = None, **options: Any) -> Any:
    """The sacreBLEU metric object (``sacrebleu.BLEU`` or ``sacrebleu.CHRF``) with
    ``options``, its reference cache built from ``references`` when given."""
    key = _metric_key(metric)
    try:
        import sacrebleu
    except ImportError:  # pragma: no cover - the `mt` extra
        raise ImportError(
            "The MT metrics take their statistics from sacreBLEU: pip install sacrebleu "
            "(or mlci's `mt` extra)."
        ) from None
    cls = sacrebleu.BLEU if key == "bleu" else sacrebleu.CHRF
    tok = options.get("tokenize")
    if tok is not None and tok not in sacrebleu.BLEU.TOKENIZERS:
        raise ValueError(
            f"`tokenize`={tok!r} is not a sacreBLEU tokenizer; one of "
            f"{', '.join(sorted(sacrebleu.BLEU.TOKENIZERS))}."
        )
    try:
        return cls(references=references, **options)
    except (AssertionError, KeyError, TypeError) as exc:
        raise ValueError(f"sacreBLEU refused the options of {key!r} {options}: {exc!r}.") from None


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused (restored on exit).

    sacreBLEU's extraction allocates a few million small containers (tokens, n-gram
    tuples and Counters), none in a reference cycle, and the collector's passes over them
    (triggered by the allocations, each generation-2 pass traversing every live object)
    took 15-25% of the extraction's CPU time: on 3,000 segments of about 22 words,
    0.20 -> 0.14 s for the references and 0.19 -> 0.17 s a system.  The extraction makes
    no garbage cycles, so pausing the collector changes nothing but the time.

    Examples
    --------
    >>> import gc
    >>> with gc_paused():
    ...     gc.isenabled()
    False
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _is_missing(x: Any) -> bool:
    """None, a float NaN, or pandas' ``NA`` (a missing value in a column of text)."""
    return x is None or (isinstance(x, float) and x != x) or type(x).__name__ == "NAType"


def _text_column(
    value: Any, name: str, what: str = "a list of strings, one per segment"
) -> list[Any]:
    """A list from a list, tuple, numpy array or pandas/polars Series of texts."""
    if value is None or isinstance(value, str | bytes) or isinstance(value, Mapping):
        got = "None" if value is None else type(value).__name__
        raise TypeError(f"`{name}` must be {what}; got {got}.")
    if not isinstance(value, Sequence):  # numpy, pandas (tolist), polars (to_list)
        convert = getattr(value, "tolist", None) or getattr(value, "to_list", None)
        value = convert() if callable(convert) else value
    if not isinstance(value, Sequence):
        raise TypeError(f"`{name}` must be {what}; got {type(value).__name__}.")
    return list(value)


def _check_texts(values: list[Any], name: str) -> list[str]:
    """Every entry a string: a missing value (None, NaN, NA) or another type is refused."""
    for j, x in enumerate(values):
        if _is_missing(x):
            raise ValueError(
                f"`{name}` has a missing value at segment {j} ({x!r}); every segment needs its "
                "text (an empty output is the empty string '')."
            )
        if not isinstance(x, str):
            raise TypeError(f"`{name}` must hold strings; segment {j} is {type(x).__name__}.")
    return [str(x) for x in values]


def check_references(
    references: Any, n: int | None = None, name: str = "references", of: str = "the hypotheses"
) -> list[Any]:
    """References as sacreBLEU takes them: a list of reference streams, each one string per
    segment.  A single stream (a list of strings) is one reference."""
    refs = _text_column(
        references,
        name,
        "a list of reference streams (each a list of strings, one per segment), or one such list",
    )
    if not refs:
        raise ValueError(f"`{name}` are empty: no reference segment.")
    nested = [not isinstance(x, str) and not _is_missing(x) and hasattr(x, "__len__") for x in refs]
    if not any(nested):
        streams = [_check_texts(refs, name)]
    else:
        streams = []
        for i, s in enumerate(refs):
            if isinstance(s, str) or _is_missing(s):
                raise TypeError(
                    f"`{name}` must be one list of strings (one reference) or a list of such "
                    f"lists (reference streams); `{name}`[{i}] is {type(s).__name__}."
                )
            streams.append(_check_texts(_text_column(s, f"{name}[{i}]"), f"{name}[{i}]"))
    sizes = [len(s) for s in streams]
    if len(set(sizes)) > 1:
        raise ValueError(
            f"`{name}`: the reference streams have different numbers of segments ({sizes})."
        )
    if n is not None and sizes[0] != n:
        raise ValueError(
            f"`{name}` have {sizes[0]} segments but {of} {n}; they must be aligned "
            "(one line per segment in every file)."
        )
    if sizes[0] == 0:
        raise ValueError(f"`{name}` are empty.")
    return streams


def check_hypotheses(hypotheses: Any, name: str = "hypotheses") -> list[str]:
    """A list of hypothesis strings, one per segment (a list, array or Series of texts)."""
    hyps = _text_column(hypotheses, name)
    if not hyps:
        raise ValueError(f"`{name}` is empty: no segment.")
    return _check_texts(hyps, name)


def segment_statistics(
    hypotheses: Sequence[str],
    references: Any,
    *,
    metric: str = "bleu",
    metric_kwargs: Mapping[str, Any] | None = None,
) -> np.ndarray:
    """Per-segment sufficient statistics of ``metric``, from sacreBLEU.

    Parameters
    ----------
    hypotheses : list of str, length n
        One system's output, one string per segment.
    references : list of list of str, or list of str
        Reference streams (each one string per segment), as sacreBLEU's ``refs``; a
        single list of strings is one reference.
    metric : {"bleu", "chrf"}
    metric_kwargs : dict, optional
        sacreBLEU options of the metric (``tokenize``, ``lowercase``, ``max_ngram_order``,
        ``smooth_method``... for BLEU; ``char_order``, ``word_order``, ``beta``... for chrF).
        Options of the score only (smoothing, beta) do not change the statistics.

    Returns
    -------
    ndarray of float, shape (n, d)
        Integer counts: BLEU ``d = 2 + 2 * max_ngram_order``; chrF ``d = 3 * (char_order +
        word_order)``.

    Examples
    --------
    >>> s = segment_statistics(["the cat sat"], [["the cat sat"]])
    >>> s.astype(int).tolist()
    [[3, 3, 3, 2, 1, 0, 3, 2, 1, 0]]
    """
    key = _metric_key(metric)
    hyps = check_hypotheses(hypotheses)
    refs = check_references(references, len(hyps), of="`hypotheses`")
    ext, _ = split_options(key, metric_kwargs)
    m = sacrebleu_metric(key, **ext)
    with gc_paused():
        stats = m._extract_corpus_statistics(hyps, refs)
    return np.asarray(stats, dtype=float).reshape(len(hyps), -1)


def system_statistics(
    systems: Mapping[str, Sequence[str]],
    references: Any,
    *,
    metric: str = "bleu",
    metric_kwargs: Mapping[str, Any] | None = None,
) -> dict[str, np.ndarray]:
    """:func:`segment_statistics` of every system, the references processed once (sacreBLEU's
    reference cache)."""
    key = _metric_key(metric)
    if not isinstance(systems, Mapping) or len(systems) < 1:
        raise TypeError("`systems` must be a dict: system name -> list of hypothesis strings.")
    hyps = {str(k): check_hypotheses(v, f"systems[{k!r}]") for k, v in systems.items()}
    n = {len(v) for v in hyps.values()}
    if len(n) > 1:
        sizes = ", ".join(f"`systems[{k!r}]` {len(v)}" for k, v in hyps.items())
        raise ValueError(
            f"The systems have different numbers of segments ({sizes}); every system needs "
            "one output per segment of the references."
        )
    of = " and ".join(f"`systems[{k!r}]`" for k in hyps)
    refs = check_references(references, n.pop(), of=of)
    ext, _ = split_options(key, metric_kwargs)
    with gc_paused():  # the references' n-grams (sacreBLEU's cache), then every system's
        m = sacrebleu_metric(key, references=refs, **ext)
        stats = {k: m._extract_corpus_statistics(v, None) for k, v in hyps.items()}
    return {k: np.asarray(v, dtype=float).reshape(len(hyps[k]), -1) for k, v in stats.items()}
