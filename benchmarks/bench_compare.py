"""Benchmarks of mlci.compare and the joint bootstrap for verification trials.

Run: ``python benchmarks/bench_compare.py [--quick]``.  Figures are recorded in
docs/compare.md.  ``--case auc-conditions`` runs only case 4 (figures in
docs/performance.md).

1. Joint bootstrap (mlci.scores.trials.trial_bootstrap_ci, EER, B = 1000, timed
   end to end including setup) against three per-replicate loops, each timed on a few
   replicates and extrapolated:

   * the research script: per replicate, draw the speakers, build a dictionary of
     multiplicities, give every trial its weight by dictionary look-ups, weighted EER
     from scikit-learn's ``roc_curve`` (the baseline of the issue);
   * the DCA-PLDA code's approach (counts by ``np.where`` over the drawn list per id);
   * a lean loop: integer speaker codes prepared once, per replicate a numpy draw and
     two gathers for the weights, then the same ``roc_curve`` EER (the tougher
     baseline: only the metric runs per replicate).
2. The full target: 10^6 trials, 1,000 speakers, B = 1000.
3. mlci.compare with 10 systems (accuracy, and roc_auc) on 10^4 / 10^5 samples.
4. ``--case auc-conditions``: ``mlci.compare`` of roc_auc over 5 systems and 2,000
   conditions (all 10 pairs, B = 1000, ``method`` auto: studentized systems, t
   differences), the report's comparison (issue 25), at ``--rows`` samples (default
   10^6) with scores rounded to ``--decimals`` (3; -1: not rounded), as
   benchmarks/bench_report.py makes them.  CPU seconds of the process (all threads,
   ``resource.getrusage``) and wall time, with the machine's load; ``--profile FILE``
   writes a cProfile of it (CPU time of the main thread: ``--n-jobs 1`` puts every
   replicate there).

The machine the figures in docs/compare.md come from has 2 cores shared with other
jobs; wall times vary by a factor of ~2 from run to run, so each vectorised figure is
the best of 3 runs and the loops are timed on the same machine at the same time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

import numpy as np
from sklearn.metrics import roc_curve

import mlci
from mlci.scores.trials import trial_bootstrap_ci


def make_trials(n_trials, n_spk, n_ids, seed=0):
    rng = np.random.default_rng(seed)
    spk_of = rng.integers(0, n_spk, n_ids)
    e = rng.integers(0, n_ids, n_trials)
    t = rng.integers(0, n_ids, n_trials)
    k = n_trials // 10  # a tenth of target trials
    order = np.argsort(spk_of)
    starts = np.searchsorted(spk_of[order], np.arange(n_spk))
    cnt = np.bincount(spk_of, minlength=n_spk)
    s_e = spk_of[e[:k]]
    t[:k] = order[starts[s_e] + (rng.random(k) * cnt[s_e]).astype(int)]
    lab = spk_of[e] == spk_of[t]
    sc = rng.normal(2.0 * lab, 1.0)
    ids = [f"id{i}" for i in range(n_ids)]
    speaker_of = {ids[i]: f"spk{spk_of[i]}" for i in range(n_ids)}
    enroll = np.array(ids, dtype=object)[e]
    test = np.array(ids, dtype=object)[t]
    return enroll, test, sc, lab, speaker_of


def eer_sklearn(lab, sc, w):
    """EER of one weighted replicate from scikit-learn's ROC curve (the usual script)."""
    fpr, tpr, _ = roc_curve(lab, sc, sample_weight=w, drop_intermediate=False)
    d = (1 - tpr) - fpr
    i = int(np.argmax(d <= 0))
    return fpr[i - 1] + d[i - 1] / (d[i - 1] - d[i]) * (fpr[i] - fpr[i - 1])


def loop_baseline(enroll, test, sc, lab, speaker_of, n_rep, seed=0):
    """A straightforward research script: dictionaries, one replicate at a time."""
    rng = np.random.default_rng(seed)
    speakers = sorted(set(speaker_of.values()))
    out = []
    for _ in range(n_rep):
        drawn = Counter(rng.choice(len(speakers), size=len(speakers)).tolist())
        mult = {s: drawn.get(i, 0) for i, s in enumerate(speakers)}
        w = np.empty(len(sc))
        for i, (a, b) in enumerate(zip(enroll, test, strict=True)):
            sa, sb = speaker_of[a], speaker_of[b]
            w[i] = mult[sa] if sa == sb else mult[sa] * mult[sb]
        out.append(eer_sklearn(lab, sc, w))
    return np.array(out)


def dca_plda_style_baseline(enroll, test, sc, lab, speaker_of, n_rep, seed=0):
    """The approach of the DCA-PLDA code the seed README cites: per replicate, count every
    id's speaker multiplicity by scanning the drawn list (``len(np.where(sel == spk)[0])``)."""
    rng = np.random.default_rng(seed)
    speakers = np.array(sorted(set(speaker_of.values())))
    ids = sorted(set(enroll) | set(test))
    out = []
    for _ in range(n_rep):
        sel = rng.choice(speakers, size=len(speakers))
        rep = {i: len(np.where(sel == speaker_of[i])[0]) for i in ids}
        w = np.array(
            [
                rep[a] if speaker_of[a] == speaker_of[b] else rep[a] * rep[b]
                for a, b in zip(enroll, test, strict=True)
            ],
            dtype=float,
        )
        out.append(eer_sklearn(lab, sc, w))
    return np.array(out)


def lean_baseline(enroll, test, sc, lab, speaker_of, n_rep, seed=0):
    """The tougher baseline: integer codes once, numpy weights per replicate, sklearn EER."""
    rng = np.random.default_rng(seed)
    speakers = sorted(set(speaker_of.values()))
    code = {s: i for i, s in enumerate(speakers)}
    se = np.array([code[speaker_of[a]] for a in enroll])
    st = np.array([code[speaker_of[b]] for b in test])
    same = se == st
    out = []
    for _ in range(n_rep):
        k = np.bincount(rng.integers(0, len(speakers), len(speakers)), minlength=len(speakers))
        w = np.where(same, k[se], k[se] * k[st]).astype(float)
        out.append(eer_sklearn(lab, sc, w))
    return np.array(out)


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def best_of(fn, repeat=3):
    runs = [timed(fn) for _ in range(repeat)]
    return min(r[0] for r in runs), runs[0][1]


def joint_vs_loops(n_trials, n_spk, b_loop):
    data = make_trials(n_trials, n_spk, 5 * n_spk)
    per = {}
    for name, fn, reps in (
        ("research dict loop", loop_baseline, b_loop),
        ("DCA-PLDA-style loop", dca_plda_style_baseline, max(2, b_loop // 3)),
        ("lean numpy+sklearn loop", lean_baseline, b_loop),
    ):
        t, _ = timed(lambda fn=fn, reps=reps: fn(*data, n_rep=reps))
        per[name] = t / reps
    b_fast = 1000
    t_fast, res = best_of(
        lambda: trial_bootstrap_ci(
            data[3],
            data[2],
            enroll_ids=data[0],
            test_ids=data[1],
            speaker_of=data[4],
            n_resamples=b_fast,
            rng=0,
        )
    )
    per_fast = t_fast / b_fast
    print(
        f"[joint vs loops] {n_trials} trials, {n_spk} speakers: vectorised {t_fast:.2f} s for "
        f"B={b_fast} incl. setup = {per_fast * 1e3:.3f} ms/rep; EER {res.estimate:.4f} "
        f"{res.confidence_interval}"
    )
    for name, p in per.items():
        print(f"    {name}: {p * 1e3:.1f} ms/rep -> vectorised is {p / per_fast:.0f}x faster")


def auc_conditions(
    n: int,
    n_systems: int = 5,
    n_conditions: int = 2000,
    decimals: int = 3,
    b: int = 1000,
    profile: str | None = None,
    n_jobs: int | None = None,
) -> None:
    """Case 4: compare's roc_auc over conditions, all pairs (the report's comparison)."""
    import resource

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    cond = rng.integers(0, n_conditions, n)
    effect = rng.normal(0, 0.5, n_conditions)[cond]
    systems = {}
    for k in range(n_systems):
        z = (0.8 + 0.2 * k) * y + effect + rng.normal(0, 1, n)
        p = 1.0 / (1.0 + np.exp(-(z - 0.5)))
        systems[f"s{k + 1}"] = np.round(p, decimals) if decimals >= 0 else p
    mlci.compare(y[:200], {k: v[:200] for k, v in systems.items()}, metric="roc_auc", rng=0)

    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    load0 = os.getloadavg()[0]
    prof = None
    if profile:
        import cProfile

        prof = cProfile.Profile(timer=time.process_time)
        prof.enable()
    t0, c0 = time.perf_counter(), cpu()
    with mlci.config_context(n_jobs=n_jobs):
        res = mlci.compare(y, systems, metric="roc_auc", conditions=cond, n_resamples=b, rng=0)
    wall, used = time.perf_counter() - t0, cpu() - c0
    if prof is not None:
        prof.disable()
        prof.dump_stats(profile)
    d = res.differences[0]
    print(
        f"[auc-conditions] n={n}, {n_systems} systems, {n_conditions} conditions, "
        f"{len(res.differences)} pairs, decimals={decimals}, B={b}: CPU {used:.2f} s, "
        f"wall {wall:.2f} s (load {load0:.1f} -> {os.getloadavg()[0]:.1f}); "
        f"{d.a} - {d.b}: {d.estimate:.6f} [{d.confidence_interval.low:.6f}, "
        f"{d.confidence_interval.high:.6f}] ({d.method})"
    )


def main(quick: bool) -> None:
    print(f"numpy {np.__version__}, python {sys.version.split()[0]}, {os.cpu_count()} cores")
    # 1. joint bootstrap vs loops (the 10^4 trials, and 10^5)
    joint_vs_loops(10**4, 200, 10)
    if not quick:
        joint_vs_loops(10**5, 500, 10)
    # 2. the target
    if not quick:
        data = make_trials(10**6, 1000, 5000, seed=1)
        t_big, res = best_of(
            lambda: trial_bootstrap_ci(
                data[3],
                data[2],
                enroll_ids=data[0],
                test_ids=data[1],
                speaker_of=data[4],
                n_resamples=1000,
                rng=0,
            )
        )
        print(f"[target] 10^6 trials, 1000 speakers, B=1000, EER: {t_big:.1f} s  {res!r}")
    # 3. compare with 10 systems
    for n in (10**4,) if quick else (10**4, 10**5):
        rng = np.random.default_rng(0)
        y = rng.integers(0, 2, n)
        dec = {f"S{i}": np.where(rng.random(n) < 0.7 + 0.02 * i, y, 1 - y) for i in range(10)}
        t_acc, r = timed(lambda y=y, dec=dec: mlci.compare(y, dec, metric="accuracy", rng=0))
        sco = {f"S{i}": y + rng.normal(0, 1.0 + 0.05 * i, n) for i in range(10)}
        t_auc, _ = timed(
            lambda y=y, sco=sco: mlci.compare(y, sco, metric="roc_auc", rng=0, method="percentile")
        )
        print(
            f"[compare] 10 systems, n={n}, B=1000, 45 pairs: accuracy (bca) {t_acc:.2f} s "
            f"({r.details['joint_atoms']} joint atoms), roc_auc (percentile) {t_auc:.2f} s"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--case", choices=["all", "auc-conditions"], default="all")
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--decimals", type=int, default=3)
    parser.add_argument("-B", type=int, default=1000)
    parser.add_argument("--profile", default=None)
    parser.add_argument("--n-jobs", type=int, default=None)
    args = parser.parse_args()
    if args.case == "auc-conditions":
        auc_conditions(
            int(args.rows),
            decimals=args.decimals,
            b=args.B,
            profile=args.profile,
            n_jobs=args.n_jobs,
        )
    else:
        main(args.quick)
