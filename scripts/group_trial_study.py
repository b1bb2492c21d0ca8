"""Coverage of ``metric_by_group`` and ``trial_bootstrap_ci``: percentile vs BCa (``auto``).

Issue 20, item 4: both drivers have no linearized standard error, so ``method="auto"``
resolves to BCa there (:data:`mlci.inputs.AUTO_BCA_REASON`), as for every other
Scores driver.  This study checks that BCa holds its level where percentile was the
default, with small groups and rates near 0 included.

* ``groups``: binormal scores (positives N(d, 1), negatives N(0, 1)), two groups of
  unequal size (``n_small`` and ``n_large`` samples per class), the FNR and FPR at
  fixed thresholds (population values from the normal CDF), and the per-group EER
  (``Phi(-d / 2)``).
* ``trials``: ``n_spk`` speakers with ``per`` recordings each, every pair of
  recordings a trial; a trial's score is ``mu * target + u_a + u_b + e`` with speaker
  effects ``u ~ N(0, s_u^2)`` and ``e ~ N(0, 1)``; the population EER is
  ``Phi(-mu / (s_0 + s_1))`` with ``s_1^2 = 1 + 4 s_u^2`` (targets: ``u_a = u_b``) and
  ``s_0^2 = 1 + 2 s_u^2``.

Every test set gets both methods from the same replicates (the same ``rng``).
``python scripts/group_trial_study.py [reps] [groups|trials]`` prints the tables
(default 200 test sets, B = 1000; about 3 minutes per part on one core).
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
from scipy.stats import norm

import mlci
from mlci.scores.trials import trial_bootstrap_ci

METHODS = ("percentile", "bca")


def _summary(hits: dict, widths: dict, label: str) -> None:
    for key in hits:
        cells = []
        for m in METHODS:
            h = np.array(hits[key][m], dtype=float)
            w = np.array(widths[key][m], dtype=float)
            cells.append(f"{np.nanmean(h):.3f} / {np.nanmedian(w):.4f}")
        print(f"| {label} | {key} | " + " | ".join(cells) + f" | {len(hits[key][METHODS[0]])} |")


def groups_study(reps: int, d: float = 2.0, n_small: int = 15, n_large: int = 150) -> None:
    thresholds = [0.5, 1.5]
    truth = {
        "fnr": [norm.cdf(t - d) for t in thresholds],
        "fpr": [1 - norm.cdf(t) for t in thresholds],
        "eer": [norm.cdf(-d / 2)],
    }
    hits: dict = {}
    widths: dict = {}
    for r in range(reps):
        rng = np.random.default_rng(1000 + r)
        sizes = {"small": n_small, "large": n_large}
        y, s, g = [], [], []
        for name, n in sizes.items():
            y += [1] * n + [0] * n
            s += list(rng.normal(d, 1, n)) + list(rng.normal(0, 1, n))
            g += [name] * (2 * n)
        for metric in ("fnr", "fpr", "eer"):
            kw = {} if metric == "eer" else {"threshold": thresholds}
            frames = {}
            for m in METHODS:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    frames[m] = mlci.metric_by_group(
                        np.array(y), np.array(s), groups=np.array(g), metric=metric,
                        method=m, rng=r, n_resamples=1000, n_jobs=1, **kw,
                    ).to_frame()  # fmt: skip
            for m, f in frames.items():
                for _i, row in f.reset_index(drop=True).iterrows():
                    grp = row.iloc[0]
                    j = 0 if metric == "eer" else thresholds.index(row["threshold"])
                    key = f"{metric} {grp}" + ("" if metric == "eer" else f" t={row['threshold']}")
                    key += f" (truth {truth[metric][j]:.3f})"
                    hits.setdefault(key, {k: [] for k in METHODS})
                    widths.setdefault(key, {k: [] for k in METHODS})
                    t = truth[metric][j]
                    hits[key][m].append(row["low"] <= t <= row["high"])
                    widths[key][m].append(row["high"] - row["low"])
    _summary(hits, widths, f"groups d={d} n={n_small}/{n_large} per class")


def trials_study(reps: int, n_spk: int, per: int, mu: float, s_u: float) -> None:
    s1, s0 = np.sqrt(1 + 4 * s_u**2), np.sqrt(1 + 2 * s_u**2)
    truth = float(norm.cdf(-mu / (s0 + s1)))
    spk = np.repeat(np.arange(n_spk), per)
    ids = np.array([f"r{i}" for i in range(n_spk * per)])
    e, t = np.triu_indices(n_spk * per, k=1)
    lab = spk[e] == spk[t]
    hits: dict = {"eer": {k: [] for k in METHODS}}
    widths: dict = {"eer": {k: [] for k in METHODS}}
    for r in range(reps):
        rng = np.random.default_rng(5000 + r)
        u = rng.normal(0, s_u, n_spk)
        sc = mu * lab + u[spk[e]] + u[spk[t]] + rng.normal(0, 1, len(e))
        for m in METHODS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = trial_bootstrap_ci(
                    lab, sc, enroll_ids=ids[e], test_ids=ids[t], metric="eer",
                    speaker_of=dict(zip(ids, spk, strict=True)), method=m, rng=r,
                    n_resamples=1000, n_jobs=1,
                )  # fmt: skip
            lo, hi = res.confidence_interval
            hits["eer"][m].append(lo <= truth <= hi)
            widths["eer"][m].append(hi - lo)
    label = f"trials {n_spk} speakers x {per}, mu={mu}, s_u={s_u} (truth {truth:.3f})"
    _summary(hits, widths, label)


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    parts = sys.argv[2:] or ["groups", "trials"]
    print("| driver / design | quantity | percentile cov / width | BCa cov / width | test sets |")
    print("|---|---|---|---|---|")
    if "groups" in parts:
        groups_study(reps, d=2.0, n_small=15, n_large=150)
        groups_study(reps, d=3.0, n_small=30, n_large=300)
    if "trials" in parts:
        trials_study(reps, n_spk=12, per=4, mu=2.0, s_u=0.5)
        trials_study(reps, n_spk=30, per=4, mu=4.0, s_u=0.5)


if __name__ == "__main__":
    main()
