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

``--case ap-conditions``: average precision over whole conditions (issue 25's report:
``--n`` samples, default 10^6, over ``--conditions`` speakers, B = 1000, BCa), CPU and
wall seconds of

* mlci: ``bootstrap_ci(y, score, metric="average_precision", conditions=speaker)``, the
  conditions' draw counts read by the kernel (``AveragePrecisionKernel.by_unit``);
* mlci through the engine's ``(b, m)`` atom weights (``by_unit`` switched off; the same
  kernel arithmetic, so the same interval bit for bit);
* scikit-learn: a Python loop over replicates, each drawing the conditions with
  replacement and calling ``average_precision_score`` with the drawn counts as sample
  weights (percentile interval), timed on ``--peer-b`` replicates and scaled to B.
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


def sklearn_ap_conditions_ci(y, s, cond, n_cond, b, rng):
    """Percentile interval of average precision over whole conditions, replicate by
    replicate with scikit-learn (each sample weighted by its condition's draw count)."""
    from sklearn.metrics import average_precision_score

    out = np.empty(b)
    for i in range(b):
        drawn = np.bincount(rng.integers(0, n_cond, n_cond), minlength=n_cond)
        out[i] = average_precision_score(y, s, sample_weight=drawn[cond])
    return np.quantile(out, [0.025, 0.975])


def ap_conditions(n: int, n_cond: int, b: int, peer_b: int) -> None:
    """The ``--case ap-conditions`` benchmark (see the module's docstring)."""
    import warnings

    from mlci.metrics import AveragePrecisionKernel

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    cond = rng.integers(0, n_cond, n)
    shift = rng.normal(0, 0.5, n_cond)[cond]
    s = 1 / (1 + np.exp(-(y + shift + rng.normal(0, 1, n) - 0.5)))
    opts = {"metric": "average_precision", "conditions": cond, "n_resamples": b, "rng": 0}

    def timed(call):
        c, t = time.process_time(), time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = call()
        return out, time.process_time() - c, time.perf_counter() - t

    r, c_new, w_new = timed(lambda: mlci.bootstrap_ci(y, s, **opts))
    by_unit = AveragePrecisionKernel.by_unit
    AveragePrecisionKernel.by_unit = lambda self, unit, n_units: None  # type: ignore
    try:
        r0, c_old, w_old = timed(lambda: mlci.bootstrap_ci(y, s, **opts))
    finally:
        AveragePrecisionKernel.by_unit = by_unit  # type: ignore
    ci, c_sk, w_sk = timed(
        lambda: sklearn_ap_conditions_ci(y, s, cond, n_cond, peer_b, np.random.default_rng(1))
    )
    c_sk, w_sk = c_sk * b / peer_b, w_sk * b / peer_b
    low, high = r.confidence_interval
    print(f"average precision, n = {n:.0e}, {n_cond} conditions, B = {b} (CPU / wall s)")
    print(
        f"mlci, conditions' draw counts : {c_new:8.2f} / {w_new:7.2f}  {r.method} "
        f"AP {r.estimate:.6f} CI [{low:.6f}, {high:.6f}]"
    )
    same = tuple(r0.confidence_interval) == tuple(r.confidence_interval)
    print(
        f"mlci, engine atom weights    : {c_old:8.2f} / {w_old:7.2f}  same interval bit "
        f"for bit: {same}"
    )
    print(
        f"scikit-learn loop             : {c_sk:8.2f} / {w_sk:7.2f}  (scaled from "
        f"B={peer_b}) percentile CI [{ci[0]:.6f}, {ci[1]:.6f}]"
    )
    print(
        f"CPU ratio scikit-learn / mlci: {c_sk / c_new:6.1f}x   atom weights / draw counts: "
        f"{c_old / c_new:4.2f}x"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=None, help="default 1e5 (EER), 1e6 (AP)")
    ap.add_argument("--b", type=int, default=1000)
    ap.add_argument("--peer-b", type=int, default=None, help="default 100 (EER), 20 (AP)")
    ap.add_argument("--case", choices=["eer", "ap-conditions"], default="eer")
    ap.add_argument("--conditions", type=int, default=2000)
    args = ap.parse_args()
    if args.case == "ap-conditions":
        ap_conditions(args.n or 1_000_000, args.conditions, args.b, args.peer_b or 20)
        return
    args.n, args.peer_b = args.n or 100_000, args.peer_b or 100
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
