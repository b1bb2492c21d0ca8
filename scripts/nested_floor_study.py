"""Why the nested cross-validation interval over-covers k-NN regression, and which
standard-error rules were tried (docs/validation.md, "Nested (Bates et al.)").

``rules``: recomputes, on the replications of ``scripts/protocols_study.py run`` (the
``nested_stats`` each replication records), the coverage of the algorithm at ``n`` by
the nested interval under other rules for its standard error, with the same estimate
and the same replications (no refitting):

* Bates et al.'s rule (mlci's): ``se = clip(√max(0, MSE-hat)·√(n_sub/n), sd/√n,
  √k·sd/√n)`` with ``sd`` the spread of the nested models' losses;
* the floor (and the cap) from the spread of the outer models' losses instead;
* no floor (the cap only);
* MSE-hat minus the squared mean of its ``a`` terms (``nested_gap``, the bias of the
  nested estimate that the bias correction removes), with Bates et al.'s floor;
* the floor lowered to the upper 95 % limit of that MSE-hat (its standard error over the
  repetitions) when that is below it;
* the floor at 0.8 times the naive standard error (an arbitrary constant, for scale).

``mechanism``: the variance, over data sets, of the mean of the per-sample losses of one
5-fold cross-validation of k-NN regression (K = 10) on Friedman #1 (n = 200), over the
mean of ``sd²/n`` (1 when the losses are independent), with the signal and the noise
of Friedman #1 together and separately.

Usage::

    MLCI_STUDY_DIR=/tmp/study python scripts/nested_floor_study.py rules \
        [--json docs/data/nested_floor_rules.json]
    python scripts/nested_floor_study.py mechanism [--reps 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
import protocols_study as ps  # the study's distributions

OUT = Path(os.environ.get("MLCI_STUDY_DIR", "/tmp/mlci_protocols_study"))
CELLS = {
    "logreg-acc-n100-k5": (100, 5),
    "ridge-mse-n100-k10": (100, 10),
    "knn-acc-n100-k5": (100, 5),
    "ridge-mse-n100-k5": (100, 5),
    "grouped-logreg-acc-n200-k5": (200, 5),
    "knnreg-mse-n200-k5": (200, 5),
    "logreg-acc-n500-k5": (500, 5),
    "ridge-mse-n100-k10-R3": (100, 10),
    "ridge-mse-n100-k10-R50": (100, 10),
}
RULES = [
    "Bates et al. (mlci)",
    "floor from outer losses",
    "no floor",
    "MSE-hat − gap²",
    "floor ≤ UCL of MSE-hat",
    "floor 0.8 × naive",
]


def _sqrt0(x):
    return np.sqrt(np.maximum(x, 0.0))


def rule_errors(stats_list, n, k):
    """The standard error of each rule, one array per rule (in the order of RULES)."""

    def g(key):
        return np.array([s[key] for s in stats_list])

    z = stats.norm.ppf(0.975)
    deff = np.sqrt(g("design_effect"))
    sd_n, sd_o = g("sd_nested") * deff, g("sd_outer") * deff
    mse, mse_se = g("mse_hat"), g("mse_hat_se")
    # "a_mean": the name of nested_gap in the first runs of this study
    gap = np.array([s["nested_gap"] if "nested_gap" in s else s["a_mean"] for s in stats_list])
    f, rn = np.sqrt(np.floor(n * (k - 1) / k) / n), np.sqrt(n)
    cap = np.sqrt(k) * sd_n / rn
    mse_v = mse - gap**2
    return [
        np.clip(_sqrt0(mse) * f, sd_n / rn, cap),
        np.clip(_sqrt0(mse) * f, sd_o / rn, np.sqrt(k) * sd_o / rn),
        np.minimum(_sqrt0(mse) * f, cap),
        np.clip(_sqrt0(mse_v) * f, sd_n / rn, cap),
        np.minimum(
            np.maximum(_sqrt0(mse_v) * f, np.minimum(sd_o / rn, _sqrt0(mse_v + z * mse_se) * f)),
            cap,
        ),
        np.clip(_sqrt0(mse) * f, 0.8 * sd_n / rn, cap),
    ]


def rules(json_path=None):
    z = stats.norm.ppf(0.975)
    summary = {}
    print(
        "| cell | reps | spread / naive se | floor binds | "
        + " | ".join(RULES)
        + " |\n|"
        + "---|" * (4 + len(RULES))
    )
    for name, (n, k) in CELLS.items():
        path = OUT / f"{name}.jsonl"
        if not path.exists():
            continue
        recs = [json.loads(line) for line in path.read_text().splitlines() if line]
        st = [r["intervals"]["nested_stats"] for r in recs]
        est = np.array([s["estimate"] for s in st])
        truth = np.mean([r["truths"]["n"] for r in recs])  # the algorithm at n
        ses = rule_errors(st, n, k)
        # the first rule is the one mlci computed in the run
        assert np.allclose(ses[0], [s["standard_error"] for s in st])
        naive = np.mean([s["sd_outer"] * np.sqrt(s["design_effect"]) for s in st]) / np.sqrt(n)
        f = np.sqrt(np.floor(n * (k - 1) / k) / n)
        binds = np.mean([_sqrt0(s["mse_hat"]) * f < s["standard_error"] - 1e-15 for s in st])
        cov = [float(np.mean(np.abs(est - truth) <= z * se)) for se in ses]
        summary[name] = {
            "reps": len(recs),
            "spread_over_naive_se": float(est.std(ddof=1) / naive),
            "floor_binds": float(binds),
            "coverage_of_algorithm_at_n": dict(zip(RULES, cov, strict=True)),
        }
        print(
            f"| {name} | {len(recs)} | {est.std(ddof=1) / naive:.2f} | {binds:.0%} | "
            + " | ".join(f"{c:.3f}" for c in cov)
            + " |"
        )
    if json_path:
        Path(json_path).write_text(json.dumps(summary, indent=1) + "\n")


def _friedman(rng, n, noise, signal):
    x = rng.random((n, 10))
    return x, signal * ps.friedman_mean(x) + noise * rng.normal(size=n)


def _cv_losses(rng, x, y, k=5, neighbours=10):
    n = len(y)
    fold = rng.permutation(np.arange(n) % k)
    e = np.empty(n)
    for a in range(k):
        tr, te = fold != a, fold == a
        d = ((x[te, None, :] - x[None, tr, :]) ** 2).sum(-1)
        nn = np.argpartition(d, neighbours - 1, axis=1)[:, :neighbours]
        e[te] = (y[te] - y[tr][nn].mean(1)) ** 2
    return e


def mechanism(reps):
    rng = np.random.default_rng(20261123)
    for label, noise, signal in (
        ("Friedman #1 (signal and noise)", 1.0, 1.0),
        ("noise only (f = 0)", 1.0, 0.0),
        ("signal only (no noise)", 0.0, 1.0),
    ):
        means, naive = [], []
        for _ in range(reps):
            x, y = _friedman(rng, 200, noise, signal)
            e = _cv_losses(rng, x, y)
            means.append(e.mean())
            naive.append(e.var(ddof=1) / len(e))
        ratio = np.var(means, ddof=1) / np.mean(naive)
        # its standard error, roughly: a sample variance's is σ²·√(2/(m−1))
        se = ratio * np.sqrt(2 / (reps - 1))
        print(f"{label}: Var(CV mean) / mean(sd²/n) = {ratio:.2f} (± {se:.2f})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["rules", "mechanism"])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--json", help="rules: also write the table as json to this path")
    a = ap.parse_args(argv)
    if a.what == "rules":
        rules(a.json)
    else:
        mechanism(a.reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
