"""EER confidence interval at n = 10^5 scores, B = 1000 replicates: mlci vs peers.

* mlci: ``mlci.scores.verification.eer_ci`` (stratified, BCa with exact jackknife, lazy sampler)
  and the same through the engine's full weights (``algorithm="weights"``);
* score-analysis: ``Scores.bootstrap_ci("eer")`` (its defaults: single-pass Poisson
  sampling, BCa);
* scikit-learn: a Python loop over replicates, each resampling and calling ``roc_curve``
  and interpolating the EER (percentile interval).

Run: ``python benchmarks/bench_scores.py [--n 100000] [--b 1000] [--peer-b 100]``.
Peers are timed on ``--peer-b`` replicates and scaled linearly to B (they loop over
replicates, so their time is linear in B).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import mlci


def sklearn_eer_ci(y, s, b, rng):
    from sklearn.metrics import roc_curve

    pos, neg = s[y == 1], s[y == 0]
    out = np.empty(b)
    for i in range(b):
        p = pos[rng.integers(0, len(pos), len(pos))]
        q = neg[rng.integers(0, len(neg), len(neg))]
        yy = np.r_[np.ones(len(p)), np.zeros(len(q))]
        fpr, tpr, _ = roc_curve(yy, np.r_[p, q])
        fnr = 1 - tpr
        j = np.flatnonzero(fnr - fpr >= 0)[-1]
        d0, d1 = fnr[j] - fpr[j], fnr[j + 1] - fpr[j + 1]
        lam = d0 / (d0 - d1)
        out[i] = fpr[j] + lam * (fpr[j + 1] - fpr[j])
    return np.quantile(out, [0.025, 0.975])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--b", type=int, default=1000)
    ap.add_argument("--peer-b", type=int, default=100)
    args = ap.parse_args()
    import score_analysis as sa

    from mlci import Scores
    from mlci.scores.verification import eer_ci

    rng = np.random.default_rng(0)
    n = args.n
    y = (rng.random(n) < 0.5).astype(int)
    s = np.where(y == 1, rng.normal(2.0, 1.0, n), rng.normal(0.0, 1.0, n))
    sc = Scores.from_labels(y, s)

    t = time.perf_counter()
    r = eer_ci(sc, n_resamples=args.b, rng=1)
    t_mlci = time.perf_counter() - t
    print(
        f"mlci eer_ci (lazy, bca)          : {t_mlci:8.3f} s  EER {r.eer.estimate:.4f} "
        f"CI [{r.eer.confidence_interval.low:.4f}, {r.eer.confidence_interval.high:.4f}]"
    )

    t = time.perf_counter()
    r2 = eer_ci(
        sc,
        n_resamples=args.b,
        rng=1,
        resampling=mlci.Resampling(algorithm="weights"),
        method="percentile",
    )
    t_w = time.perf_counter() - t
    print(
        f"mlci eer_ci (engine weights, pct) : {t_w:8.3f} s  CI "
        f"[{r2.eer.confidence_interval.low:.4f}, {r2.eer.confidence_interval.high:.4f}]"
    )

    ref = sa.Scores(pos=s[y == 1], neg=s[y == 0])
    cfg = sa.BootstrapConfig(nb_samples=args.peer_b)
    t = time.perf_counter()
    ci = ref.bootstrap_ci(metric="eer", config=cfg)
    t_sa = (time.perf_counter() - t) * args.b / args.peer_b
    print(
        f"score-analysis bootstrap_ci('eer'): {t_sa:8.3f} s  (scaled from B={args.peer_b}) "
        f"EER CI [{ci[1, 0]:.4f}, {ci[1, 1]:.4f}]"
    )

    t = time.perf_counter()
    ci = sklearn_eer_ci(y, s, args.peer_b, np.random.default_rng(2))
    t_sk = (time.perf_counter() - t) * args.b / args.peer_b
    print(
        f"scikit-learn roc_curve loop       : {t_sk:8.3f} s  (scaled from B={args.peer_b}) "
        f"CI [{ci[0]:.4f}, {ci[1]:.4f}]"
    )
    print(
        f"speed-up vs score-analysis: {t_sa / t_mlci:6.1f}x   vs scikit-learn loop: "
        f"{t_sk / t_mlci:6.1f}x   (engine-weights path: {t_sa / t_w:.1f}x, {t_sk / t_w:.1f}x)"
    )


if __name__ == "__main__":
    main()
