"""Make the bundled IR example (src/mlci/data/ir_example/): TREC qrels and three runs.

Synthetic, reproducible (seed 0): 50 queries of a pool of 120 documents each; every
query has 4 to 20 judged-relevant documents with grades 1-3 (fewer high grades) and as
many judged non-relevant ones; three runs ("bm25", "dense", "hybrid") score every pooled
document as ``quality * grade + query difficulty + noise`` and list their top 50.  The
hybrid run averages the two others' scores, so it is correlated with both, as real
fusion runs are.  Run: ``python scripts/make_ir_example.py``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "src" / "mlci" / "data" / "ir_example"


def main() -> None:
    rng = np.random.default_rng(0)
    n_queries, pool, depth = 50, 120, 50
    OUT.mkdir(parents=True, exist_ok=True)
    qrels_lines = []
    scores = {"bm25": [], "dense": []}
    for q in range(n_queries):
        qid = f"q{q + 1:03d}"
        n_rel = int(rng.integers(4, 21))
        grades = np.zeros(pool, dtype=int)
        grades[:n_rel] = rng.choice([1, 2, 3], size=n_rel, p=[0.6, 0.3, 0.1])
        judged = np.arange(2 * n_rel)  # relevant ones and as many non-relevant
        for d in judged:
            qrels_lines.append(f"{qid} 0 D{q + 1:03d}-{d:03d} {grades[d]}")
        hard = rng.normal(0.0, 0.6)  # a query-level difficulty shared by the runs
        for run, quality in (("bm25", 0.9), ("dense", 1.1)):
            s = quality * grades + hard * grades + rng.normal(0.0, 1.0, pool)
            scores[run].append((qid, s))
    (OUT / "qrels.txt").write_text("\n".join(qrels_lines) + "\n")
    runs = {
        "bm25": scores["bm25"],
        "dense": scores["dense"],
        "hybrid": [
            (q, (a + b) / 2) for (q, a), (_, b) in zip(scores["bm25"], scores["dense"], strict=True)
        ],
    }
    for name, per_query in runs.items():
        lines = []
        for qid, s in per_query:
            order = np.argsort(-s, kind="stable")[:depth]
            for rank, d in enumerate(order, 1):
                lines.append(f"{qid} Q0 D{qid[1:]}-{d:03d} {rank} {s[d]:.6f} {name}")
        (OUT / f"{name}.run").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
