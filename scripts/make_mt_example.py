"""Make the bundled MT example (src/mlci/data/mt_example/): references, two systems, documents.

Synthetic, reproducible: ``mlci.mt.synthetic_corpus(240, qualities=(0.57, 0.55),
n_references=2, segments_per_document=12, rng=7)`` (Zipf pseudo-words, log-normal
lengths, document-level quality offsets; see :mod:`mlci.mt.synthetic`), one segment a
line as sacreBLEU reads it.  Run: ``python scripts/make_mt_example.py``.
"""

from __future__ import annotations

from pathlib import Path

from mlci.mt import synthetic_corpus

OUT = Path(__file__).resolve().parents[1] / "src" / "mlci" / "data" / "mt_example"


def main() -> None:
    c = synthetic_corpus(
        240, qualities=(0.57, 0.55), n_references=2, segments_per_document=12, rng=7
    )
    OUT.mkdir(parents=True, exist_ok=True)
    for i, ref in enumerate(c.references):
        (OUT / f"ref{i + 1}.txt").write_text("\n".join(ref) + "\n", encoding="utf-8")
    for hyp, out in (("sys0", "system_a.txt"), ("sys1", "system_b.txt")):
        (OUT / out).write_text("\n".join(c.systems[hyp]) + "\n", encoding="utf-8")
    (OUT / "docids.txt").write_text("\n".join(f"doc{d:02d}" for d in c.documents) + "\n")


if __name__ == "__main__":
    main()
