"""Coverage of mlci's LLM intervals on simulated benchmarks (the numbers in docs/llm.md).

    python scripts/llm_coverage.py                    # 2000 experiments, B = 1000
    python scripts/llm_coverage.py --experiments 200 --resamples 400

Each experiment draws one benchmark from :func:`mlci.llm.simulation.simulate_benchmark`
(50 clusters of 1 to 15 items, most small; per-item difficulty; three correlated models;
3 answers per item) and checks whether the 95% intervals contain the true population
values: every model's clustered interval and every pair's paired clustered interval,
for ``method="cr1"``, ``"percentile"`` and ``"bca"``.  Experiment ``i`` uses seed ``i``,
so the table is reproducible.  The binomial interval (Clopper-Pearson, 95%) of each
coverage treats the experiments as the independent units (the three models or pairs
of one experiment are correlated).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from scipy import stats

from mlci.llm.simulation import coverage_experiment


def study(n_experiments: int, n_resamples: int, **sim) -> dict:
    """``{(kind, method): array (n_experiments, n_intervals) of bool}``."""
    acc: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. few-condition warnings: counted, not shown
        for seed in range(n_experiments):
            for key, hit in coverage_experiment(seed, n_resamples=n_resamples, **sim).items():
                acc.setdefault(key, []).append(hit)
    return {k: np.array(v) for k, v in acc.items()}


def table(res: dict) -> str:
    lines = ["| intervals | method | coverage | 95% binomial interval | experiments |",
             "|---|---|---:|---|---:|"]  # fmt: skip
    for (kind, method), hits in res.items():
        n = hits.shape[0]
        k = hits.mean(axis=1).sum()  # per experiment: the share of its intervals that hold
        lo, hi = stats.binomtest(round(k), n).proportion_ci(method="exact")
        what = "each model (clustered)" if kind == "model" else "each pair (paired, clustered)"
        lines.append(f"| {what} | {method} | {hits.mean():.3f} | [{lo:.3f}, {hi:.3f}] | {n} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--clusters", type=int, default=50, help="clusters per benchmark")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    res = study(args.experiments, args.resamples, n_clusters=args.clusters)
    print(table(res))
    print(f"\n# {args.experiments} experiments, {args.clusters} clusters, B = {args.resamples}, "
          f"{time.perf_counter() - t0:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
