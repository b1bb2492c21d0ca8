"""Helpers shared by test modules (imported as ``from _helpers import ...``, the rootdir
import mode that tests/_edge_designs.py and tests/_scripts.py use too).

Each was written out in two or more modules before (``duplicates`` listed them): the
command line run in-process, the test sets of balanced accuracy with a given number of
errors in each class, the test sets whose positives fill some conditions only, the
central-difference gradient of a kernel, the two-sided check that a coverage lies in its
band, and the classical tests' small inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

import mlci.cli

__all__ = [
    "CV5X2_A",
    "CV5X2_B",
    "DATASETS",
    "FOLDS_A",
    "FOLDS_B",
    "PVALUES",
    "TABLE",
    "assert_coverage_band",
    "central_difference",
    "class_errors",
    "example_compare",
    "filled_conditions",
    "run_cli",
]

#: two methods' scores on 6 folds, on 5 x 2 folds (Dietterich's 5x2cv), 8 datasets x 4
#: methods, a 2 x 2 table and four p-values: the classical tests' inputs
FOLDS_A = [0.81, 0.83, 0.80, 0.85, 0.82, 0.84]
FOLDS_B = [0.78, 0.80, 0.79, 0.81, 0.80, 0.79]
CV5X2_A = [[0.90, 0.88], [0.89, 0.91], [0.87, 0.90], [0.92, 0.88], [0.90, 0.89]]
CV5X2_B = [[0.86, 0.87], [0.88, 0.86], [0.86, 0.85], [0.88, 0.87], [0.85, 0.88]]
DATASETS = np.random.default_rng(0).random((8, 4)).round(3)
TABLE = [[5, 3], [2, 10]]
PVALUES = [0.01, 0.04, 0.03, 0.005]


def run_cli(capsys: Any, argv: list[str]) -> tuple[int, str, str]:
    """``mlci.cli.main(argv)`` in-process: its exit code (argparse's own errors raise
    SystemExit), standard output and standard error."""
    try:
        code = mlci.cli.main(argv)
    except SystemExit as exc:  # argparse's errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def example_compare(**kw: Any) -> Any:
    """``mlci.compare`` of the bundled example's two systems (``pred``,
    ``pred_baseline``) on accuracy over its speakers, 200 replicates, seed 3: what
    ``mlci compare --example --systems pred,pred_baseline --metric accuracy --condition
    speaker -B 200 --seed 3`` computes (``kw``: more options, e.g. ``margin``)."""
    from mlci.data import load_example

    d = load_example(as_frame=False)
    return mlci.compare(
        d["label"],
        {"pred": d["pred"], "pred_baseline": d["pred_baseline"]},
        metric="accuracy",
        conditions=d["speaker"],
        n_resamples=200,
        rng=3,
        **kw,
    )


def class_errors(n_neg: int, fp: int, n_pos: int, fn: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels and predictions: ``n_neg`` negatives (the first ``fp`` predicted positive),
    then ``n_pos`` positives (the first ``fn`` predicted negative)."""
    y = np.r_[np.zeros(n_neg, int), np.ones(n_pos, int)]
    p = y.copy()
    p[:fp] = 1
    p[n_neg : n_neg + fn] = 0
    return y, p


def filled_conditions(
    filled: int, per: int, n_conditions: int, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``filled`` of ``n_conditions`` conditions (``size`` samples each, spread over the
    range) with ``per`` positives each (Kish's effective conditions of the positives:
    exactly ``filled``), the other samples negative; a prediction with a quarter of the
    positives missed and as many false positives (F1 about 0.75, away from the bounds).
    Returns ``y, pred, conditions``."""
    n = n_conditions * size
    conditions = np.repeat(np.arange(n_conditions), size)
    y = np.zeros(n, dtype=int)
    for c in np.linspace(0, n_conditions - 1, filled).round().astype(int):
        y[c * size : c * size + per] = 1
    pred = y.copy()
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    k = max(len(pos) // 4, 1)
    pred[pos[::4][:k]] = 0
    pred[neg[:: len(neg) // k][:k]] = 1
    return y, pred, conditions


def central_difference(kernel: Any, w: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """The gradient of ``kernel.evaluate`` at the count rows ``w`` by central
    differences of step ``h`` in each atom: the reference for a kernel's own gradient."""
    ref = np.empty((w.shape[0], kernel.m))
    for j in range(kernel.m):
        up, down = w.copy(), w.copy()
        up[:, j] += h
        down[:, j] -= h
        ref[:, j] = (kernel.evaluate(up) - kernel.evaluate(down)) / (2 * h)
    return ref


def assert_coverage_band(k: int, N: int, level: float, disguised: float = 0.93) -> None:
    """``k`` of ``N`` test sets covered: at 95% neither below 0.93 nor above 0.975
    (one-sided binomial tests, p > 1e-3); at another level (90%) below ``disguised``
    (p < 1e-3), the intervals not at 95% in disguise."""
    low = stats.binomtest(k, N, 0.93, alternative="less").pvalue
    high = stats.binomtest(k, N, 0.975, alternative="greater").pvalue
    if level == 0.95:
        assert low > 1e-3, f"coverage {k / N:.3f} below 0.93 ({N} test sets)"
        assert high > 1e-3, f"coverage {k / N:.3f} above 0.975 ({N} test sets)"
    else:
        below = stats.binomtest(k, N, disguised, alternative="less").pvalue
        assert below < 1e-3, f"the 90% intervals cover {k / N:.3f}: as if at 95%"
