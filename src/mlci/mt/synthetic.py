"""Reproducible synthetic parallel text for tests, benchmarks and coverage simulations.

No public parallel corpus ships inside a PyPI package mlci can depend on, so the MT tests
and the benchmark use text made here: references of Zipf-distributed pseudo-words with
log-normal lengths (about 22 words, as news test sets), grouped in documents, and
"translations" made by corrupting each reference word (kept, substituted, dropped, or
followed by an inserted word) with a quality that varies from document to document
(documents differ in difficulty, which is why they must be resampled whole).  BLEU of
such output lies in the 20-40 range of real systems, with segment-to-segment and
document-to-document spread of the same order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["SyntheticCorpus", "synthetic_corpus"]

_LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz"))


@dataclass(frozen=True)
class SyntheticCorpus:
    """A synthetic test set: references, systems' outputs and each segment's document."""

    references: list[list[str]]
    systems: dict[str, list[str]]
    documents: np.ndarray


def _vocabulary(rng: np.random.Generator, size: int) -> np.ndarray:
    lengths = rng.integers(2, 10, size)
    letters = _LETTERS[rng.integers(0, 26, int(lengths.sum()))]
    cuts = np.cumsum(lengths)[:-1]
    words = ["".join(w) for w in np.split(letters, cuts)]
    return np.array([f"{w}{i}" for i, w in enumerate(words)])  # distinct


def synthetic_corpus(
    n_segments: int = 3000,
    *,
    qualities: Any = (0.62, 0.60),
    n_references: int = 1,
    segments_per_document: int = 20,
    document_sd: float = 0.08,
    vocabulary: int = 8000,
    rng: Any = 0,
) -> SyntheticCorpus:
    """A reproducible synthetic MT test set.

    Parameters
    ----------
    n_segments : int
    qualities : sequence of float
        Per-word probability that a system keeps a reference word, one per system
        (named ``sys0``, ``sys1``...); the rest is split among substitutions, deletions
        and insertions.
    n_references : int
        Reference streams (further ones are paraphrases of the first).
    segments_per_document : int
        Average document size (documents of 5 to 2 x this many segments).
    document_sd : float
        Standard deviation of the documents' quality offsets.
    vocabulary : int
        Word types (Zipf distributed, exponent 1.1).
    rng : int or Generator

    Examples
    --------
    >>> c = synthetic_corpus(50, rng=0)
    >>> len(c.references[0]), sorted(c.systems), int(c.documents.max()) + 1 > 1
    (50, ['sys0', 'sys1'], True)
    """
    rng = np.random.default_rng(rng)
    vocab = _vocabulary(rng, vocabulary)
    zipf = 1.0 / np.arange(1, vocabulary + 1) ** 1.1
    zipf /= zipf.sum()
    sizes: list[int] = []
    while sum(sizes) < n_segments:
        sizes.append(int(rng.integers(5, 2 * segments_per_document + 1)))
    documents = np.repeat(np.arange(len(sizes)), sizes)[:n_segments]
    doc_offset = rng.normal(0.0, document_sd, len(sizes))
    lengths = np.clip(np.rint(rng.lognormal(np.log(20.0), 0.5, n_segments)), 1, 120).astype(int)
    ref_ids = [rng.choice(vocabulary, size=k, p=zipf) for k in lengths]

    def corrupt(ids: np.ndarray, q: float) -> list[str]:
        out: list[str] = []
        u = rng.random(len(ids))
        subs = rng.choice(vocabulary, size=len(ids), p=zipf)
        ins = rng.choice(vocabulary, size=len(ids), p=zipf)
        rest = (1.0 - q) / 3.0
        for j, w in enumerate(ids):
            if u[j] < q:
                out.append(vocab[w])
            elif u[j] < q + rest:
                out.append(vocab[subs[j]])
            elif u[j] < q + 2 * rest:
                continue
            else:
                out.extend((vocab[w], vocab[ins[j]]))
        if len(out) > 3 and rng.random() < 0.3:  # a local reordering
            j = int(rng.integers(0, len(out) - 1))
            out[j], out[j + 1] = out[j + 1], out[j]
        return out

    refs = [[" ".join(vocab[ids]) for ids in ref_ids]]
    for _ in range(1, n_references):
        refs.append([" ".join(corrupt(ids, 0.8)) for ids in ref_ids])
    systems = {}
    for s, q in enumerate(qualities):
        qs = np.clip(q + doc_offset[documents], 0.05, 0.99)
        systems[f"sys{s}"] = [" ".join(corrupt(ids, qs[i])) for i, ids in enumerate(ref_ids)]
    return SyntheticCorpus(references=refs, systems=systems, documents=documents)
