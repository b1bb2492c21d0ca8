"""Benchmark of the language-model comparisons (mlci.llm_compare) against peers.

Run: ``python benchmarks/bench_llm.py [--quick]``.  Figures are recorded in docs/llm.md.

The target (issue 14): 100 models x 10,000 items x 5 repeats (5 million answers), items
in 500 clusters of unequal size, every pair of models compared (4,950 pairs) with
adjusted p-values, in under 30 s.  The data are generated once and kept in
``/tmp/mlci_bench_llm_<size>.npz`` (the machine is shared: nothing large stays in memory
between runs).

Timed, in one process, one call each:

1. ``mlci.eval_log`` on the 5M-row long table (the way in);
2. ``mlci.llm_compare()`` with the default ``method="auto"``: every model's bootstrap-t
   over clusters (B = 1000; one (B x clusters) count matrix serves all 100 models:
   ``U @ T``) and every pair's t interval on its CR2 standard error (one Gram matrix of
   the models' cluster influences serves all 4,950 pairs), Holm-adjusted;
3. ``mlci.llm_compare(method="cr1")`` -- analytic clustered standard errors, all pairs;
4. ``mlci.llm_compare(method="bca")`` -- the engine's joint paired cluster bootstrap
   (B = 1000), all pairs, max-t adjusted.

Peers, timed on a subset of pairs and extrapolated linearly to all 4,950 (the row says
so):

* statsmodels: ``OLS(d, 1).fit(cov_type="cluster")`` on each pair's per-item difference
  (the same CR1 numbers as mlci's ``method="cr1"``);
* a plain numpy paired cluster bootstrap per pair (B = 1000 draws of the clusters, the
  mean difference per draw, percentile interval): what an evaluation script does.

Wall times depend on the load of the machine (2 cores shared with other jobs when the
figures were taken): the CPU-time column is given too, and the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

import mlci

sys.path.insert(0, str(Path(__file__).parent))
from _common import measure_call


def make_data(n_models: int, n_items: int, repeats: int, n_clusters: int, seed: int = 0):
    path = Path(f"/tmp/mlci_bench_llm_{n_models}x{n_items}x{repeats}.npz")
    if path.exists():
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    rng = np.random.default_rng(seed)
    sizes = rng.multinomial(n_items - n_clusters, rng.dirichlet(np.ones(n_clusters))) + 1
    cl = np.repeat(np.arange(n_clusters), sizes)
    d = rng.normal(0, 0.8, n_clusters)[cl] + rng.normal(0, 0.8, n_items)
    skill = rng.normal(0.5, 0.5, n_models)
    p = 1 / (1 + np.exp(-(skill[:, None] - d[None, :] - rng.normal(0, 0.3, (n_models, n_items)))))
    score = (rng.random((n_models, n_items, repeats)) < p[:, :, None]).astype(np.float32)
    data = {
        "model": np.repeat(np.array([f"m{j:03d}" for j in range(n_models)]), n_items * repeats),
        "item": np.tile(np.repeat(np.arange(n_items), repeats), n_models),
        "repeat": np.tile(np.arange(repeats), n_models * n_items),
        "score": score.ravel(),
        "passage": np.tile(np.repeat(cl, repeats), n_models),
    }
    np.savez(path, **data)
    return data


def statsmodels_pairs(means: np.ndarray, cluster: np.ndarray, pairs: list[tuple[int, int]]):
    import statsmodels.api as sm

    X = np.ones((means.shape[1], 1))
    out = []
    for a, b in pairs:
        fit = sm.OLS(means[a] - means[b], X).fit(
            cov_type="cluster", cov_kwds={"groups": cluster}, use_t=True
        )
        out.append((fit.params[0], fit.bse[0], fit.pvalues[0]))
    return out


def numpy_bootstrap_pairs(means, cluster, pairs, n_resamples=1000, seed=0):
    rng = np.random.default_rng(seed)
    G = int(cluster.max()) + 1
    out = []
    for a, b in pairs:
        d = means[a] - means[b]
        sums = np.bincount(cluster, weights=d, minlength=G)
        counts = np.bincount(cluster, minlength=G)
        reps = np.empty(n_resamples)
        for r in range(n_resamples):
            draw = np.bincount(rng.integers(0, G, G), minlength=G)
            reps[r] = (draw @ sums) / (draw @ counts)
        out.append(np.percentile(reps, [2.5, 97.5]))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 models x 2,000 items")
    parser.add_argument("-B", "--n-resamples", type=int, default=1000)
    args = parser.parse_args(argv)
    M, n, K, G = (20, 2000, 5, 100) if args.quick else (100, 10_000, 5, 500)
    data = make_data(M, n, K, G)
    print(f"# {M} models x {n} items x {K} repeats = {M * n * K:,} answers, {G} clusters")
    print(f"# load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    rows = []

    res = measure_call(
        lambda: mlci.eval_log(
            model=data["model"],
            item=data["item"],
            repeat=data["repeat"],
            score=data["score"],
            clusters={"passage": data["passage"]},
        )
    )
    log = res.pop("value")
    rows.append(("mlci.eval_log (5M rows -> table)", res, ""))
    res = measure_call(
        lambda: mlci.llm_compare(log, conditions="passage", rng=0, n_resamples=args.n_resamples)
    )
    cmp_auto = res.pop("value")
    rows.append((f"mlci.llm_compare default (auto, B={args.n_resamples}), all pairs, Holm",
                 res, ""))  # fmt: skip
    res = measure_call(lambda: mlci.llm_compare(log, conditions="passage", method="cr1"))
    cmp_cr1 = res.pop("value")
    rows.append(("mlci.llm_compare cr1, all pairs, Holm", res, ""))
    res = measure_call(
        lambda: mlci.llm_compare(
            log, conditions="passage", rng=0, n_resamples=args.n_resamples, method="bca"
        )
    )
    cmp_boot = res.pop("value")
    rows.append((f"mlci.llm_compare bca B={args.n_resamples}, all pairs, max-t", res, ""))
    n_pairs = len(cmp_cr1.differences)

    # the peers work on the per-item means (computing them is not timed)
    means = data["score"].astype(float).reshape(M, n, K).mean(axis=2)
    cl = data["passage"].reshape(M, n, K)[0, :, 0]
    pairs = [(i, j) for i in range(M) for j in range(i + 1, M)]
    sub = pairs[: min(100, len(pairs))]
    res = measure_call(lambda: statsmodels_pairs(means, cl, sub))
    ref = res.pop("value")
    scale = n_pairs / len(sub)
    res = {k: v * scale if k in ("seconds", "cpu_seconds") else v for k, v in res.items()}
    rows.append(("statsmodels OLS cluster, per pair", res, f"{len(sub)} pairs, x{scale:.1f}"))
    # the same CR1 numbers (checked on the pairs timed)
    for (a, b), (est, se, p) in zip(sub, ref, strict=True):
        d = cmp_cr1.difference(f"m{a:03d}", f"m{b:03d}")
        assert abs(d.estimate - est) < 1e-10 and abs(d.standard_error - se) < 1e-10
        assert abs(d.pvalue - p) < 1e-10
    sub = pairs[: min(10, len(pairs))]
    res = measure_call(lambda: numpy_bootstrap_pairs(means, cl, sub, args.n_resamples))
    res.pop("value")
    scale = n_pairs / len(sub)
    res = {k: v * scale if k in ("seconds", "cpu_seconds") else v for k, v in res.items()}
    rows.append((f"numpy cluster bootstrap B={args.n_resamples}, per pair", res,
                 f"{len(sub)} pairs, x{scale:.0f}"))  # fmt: skip

    total = rows[0][1]["seconds"] + rows[1][1]["seconds"]
    total_cpu = rows[0][1]["cpu_seconds"] + rows[1][1]["cpu_seconds"]
    total_bca = rows[0][1]["seconds"] + rows[3][1]["seconds"]
    n_auto = sum(d.significant for d in cmp_auto.differences)
    n_boot = sum(d.significant for d in cmp_boot.differences)
    n_cr1 = sum(d.significant for d in cmp_cr1.differences)
    print(f"# pairs: {n_pairs}; significant: {n_auto} (auto: CR2 t, Holm), {n_boot} "
          f"(bootstrap, max-t), {n_cr1} (CR1, Holm)")  # fmt: skip
    print(f"# load average after: {os.getloadavg()[0]:.1f}")
    print()
    print("| call | wall | CPU | memory | note |")
    print("|---|---:|---:|---:|---|")
    for name, r, note in rows:
        print(f"| {name} | {r['seconds']:.2f} s | {r['cpu_seconds']:.2f} s | "
              f"{r['memory_bytes'] / 2**20:.0f} MiB | {note} |")  # fmt: skip
    print()
    print(f"eval_log + default comparison: {total:.1f} s wall, {total_cpu:.1f} s CPU "
          f"(target: under 30 s); eval_log + bca: {total_bca:.1f} s wall; ratios: "
          f"statsmodels/mlci cr1 {rows[4][1]['seconds'] / rows[2][1]['seconds']:.0f}x, numpy "
          f"bootstrap/mlci bca {rows[5][1]['seconds'] / rows[3][1]['seconds']:.1f}x")  # fmt: skip


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"# benchmark ran {time.perf_counter() - t0:.0f} s")
