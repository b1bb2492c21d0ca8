"""Coverage of mlci's LLM intervals on simulated benchmarks (the numbers in docs/llm.md).

    python scripts/llm_coverage.py --clusters 20 50 100 --experiments 1000 --json out.json
    python scripts/llm_coverage.py --scenarios mean --experiments 200 --resamples 400

Each experiment draws one benchmark from :func:`mlci.llm.simulation.simulate_benchmark`
(``--clusters`` clusters of 1 to 15 items, most small; per-item difficulty; three
correlated models; 3 answers per item, 5 for pass@k; 3 tasks for the macro average) and
checks whether the 95% intervals contain the true population values: every model's
clustered interval and every pair's paired clustered interval.  Scenarios
(:data:`mlci.llm.simulation.SCENARIOS`): ``mean`` (micro mean, repeats averaged),
``nested`` (repeats resampled as a nested level), ``macro`` (mean of three task means,
tasks as strata), ``pass@k`` (k = 2 of 5 answers).  Methods: ``cr1`` (t(G-1)), ``t``
(CR2, Kish df), ``auto`` (the default: studentized models, t differences; BCa for nested
repeats), ``bca`` (the engine's cluster bootstrap; ``--methods`` also takes
``studentized``, bootstrap-t for models and pairs, and ``percentile``).
Experiment ``i`` uses seed ``i``, so the table is reproducible.  The binomial interval
(Clopper-Pearson, 95%) of each coverage treats the experiments as the independent units
(the three models or pairs of one experiment are correlated); the Monte-Carlo standard
error is ``sqrt(c (1 - c) / experiments)``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

import numpy as np
from scipy import stats

from mlci.llm.simulation import coverage_experiment

DEFAULT_METHODS = {
    "mean": ("cr1", "t", "auto", "bca"),
    "macro": ("cr1", "t", "auto"),
    "pass@k": ("cr1", "t", "auto"),
    "nested": ("auto",),
}


def study(n_experiments: int, n_resamples: int, scenario: str = "mean", methods=None,
          **sim) -> dict:  # fmt: skip
    """``{(kind, method): array (n_experiments, n_intervals) of bool}``."""
    methods = DEFAULT_METHODS[scenario] if methods is None else methods
    acc: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. few-condition warnings: counted, not shown
        for seed in range(n_experiments):
            hits = coverage_experiment(
                seed, scenario=scenario, n_resamples=n_resamples, methods=methods, **sim
            )
            for key, hit in hits.items():
                acc.setdefault(key, []).append(hit)
    return {k: np.array(v) for k, v in acc.items()}


def summarize(res: dict) -> list[dict]:
    """One row per (kind, method): coverage, Monte-Carlo error, exact binomial interval."""
    rows = []
    for (kind, method), hits in res.items():
        n = hits.shape[0]
        k = hits.mean(axis=1).sum()  # per experiment: the share of its intervals that hold
        lo, hi = stats.binomtest(round(k), n).proportion_ci(method="exact")
        c = float(hits.mean())
        rows.append({"kind": kind, "method": method, "coverage": c,
                     "mc_se": float(np.sqrt(c * (1 - c) / n)), "low": float(lo),
                     "high": float(hi), "experiments": n})  # fmt: skip
    return rows


def table(res: dict) -> str:
    lines = ["| intervals | method | coverage | 95% binomial interval | experiments |",
             "|---|---|---:|---|---:|"]  # fmt: skip
    for r in summarize(res):
        what = "each model" if r["kind"] == "model" else "each pair (paired)"
        lines.append(f"| {what} | {r['method']} | {r['coverage']:.3f} | "
                     f"[{r['low']:.3f}, {r['high']:.3f}] | {r['experiments']} |")  # fmt: skip
    return "\n".join(lines)


def markdown(paths: list[str]) -> str:
    """One table from the ``--json`` files: coverage (Monte-Carlo standard error) per
    scenario, method and kind, one column per cluster count."""
    rows = [r for p in paths for r in json.load(open(p))]
    sizes = sorted({r["clusters"] for r in rows})
    keys = list(dict.fromkeys((r["scenario"], r["method"], r["kind"]) for r in rows))
    head = "| scenario | method | intervals | " + " | ".join(f"{g} clusters" for g in sizes)
    lines = [head + " |", "|---|---|---|" + "---:|" * len(sizes)]
    for sc, method, kind in keys:
        cells = []
        for g in sizes:
            hit = [r for r in rows if (r["scenario"], r["method"], r["kind"], r["clusters"])
                   == (sc, method, kind, g)]  # fmt: skip
            cells.append(f"{hit[0]['coverage']:.3f} ± {hit[0]['mc_se']:.3f}" if hit else "")
        what = "models" if kind == "model" else "pairs"
        lines.append(f"| {sc} | {method} | {what} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--clusters", type=int, nargs="+", default=[50],
                        help="clusters per benchmark (several: one study each)")  # fmt: skip
    parser.add_argument("--scenarios", nargs="+", default=list(DEFAULT_METHODS))
    parser.add_argument("--methods", nargs="+", default=None)
    parser.add_argument("--json", default=None, help="write the rows here")
    parser.add_argument("--markdown", nargs="+", default=None, metavar="JSON",
                        help="print one table from these --json files and stop")  # fmt: skip
    args = parser.parse_args(argv)
    if args.markdown:
        print(markdown(args.markdown))
        return
    out = []
    for G in args.clusters:
        for scenario in args.scenarios:
            t0 = time.perf_counter()
            res = study(args.experiments, args.resamples, scenario, args.methods,
                        n_clusters=G)  # fmt: skip
            secs = time.perf_counter() - t0
            load = os.getloadavg()[0]
            print(f"\n## {scenario}, {G} clusters ({args.experiments} experiments, "
                  f"B = {args.resamples}, {secs:.0f} s, load {load:.1f})")  # fmt: skip
            print(table(res), flush=True)
            for r in summarize(res):
                out.append({"scenario": scenario, "clusters": G, "resamples": args.resamples,
                            "seconds": round(secs, 1), **r})  # fmt: skip
            if args.json:
                with open(args.json, "w") as f:
                    json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
