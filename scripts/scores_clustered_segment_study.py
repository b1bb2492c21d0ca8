"""The design effect along a segment of the ROC polyline in the score intervals over
conditions (issue 20; ``mlci.engine.scores_clustered``): the larger of the segment's ends'
design effects (as shipped) against the design effect interpolated along the segment.

:func:`~mlci.engine.scores_clustered.clustered_eer_interval` and
:func:`~mlci.engine.scores_clustered.clustered_rate_interval` test the points inside a
segment of the ROC polyline (between two thresholds) with each class's design effect the
larger of the segment's two ends'.  The alternative interpolates it linearly along the
segment, as the counts are: here by cutting every segment into ``K`` pieces whose ends
carry the interpolated counts and design effects (each piece then takes the larger of its
own ends'; as ``K`` grows this tends to the interpolated statistic from the conservative
side).  It is built as a :class:`~mlci.engine.scores_clustered.ClusteredCounts` of the
cut polyline, read by the same functions.

Designs: those of ``scripts/scores_clustered_eer_sweep.py`` (binormal scores over
conditions of log-normal sizes, a condition shift per class set for the ICC of the
errors at the population's rate; 1,000 trials, 100 targets), untied, or tied (every score
rounded to a grid of step ``h``: the population's ROC points are those of the cut points
halfway between grid values, the truth the crossing of the polyline through them, as
mlci's EER); 10-100 conditions, ICC of the errors 0-0.5, 1, 2, 5 expected errors (the
EER; ``auto`` takes the score interval below 5 errors of the estimate) and the FNR at FPR
0.05 with 1, 2, 5 expected misses (``designs``).  Coverage of the true value and median
width of both.

    PYTHONPATH=src nice -n 15 python scripts/scores_clustered_segment_study.py 200 \
        scripts/data/scores_clustered_segment_study.json
"""

from __future__ import annotations

import importlib.util
import json
import sys
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import norm

from mlci.engine.scores_clustered import (  # (the private ones: the same passes)
    ClusteredCounts,
    _outermost,
    _rate_deff_test,
    _t_cut,
    clustered_eer_interval,
    clustered_error_counts,
    clustered_rate_interval,
)
from mlci.engine.scores_rules import _polyline_steps

_spec = importlib.util.spec_from_file_location(
    "scores_clustered_eer_sweep", Path(__file__).with_name("scores_clustered_eer_sweep.py")
)
assert _spec is not None and _spec.loader is not None
sweep = importlib.util.module_from_spec(_spec)
sys.modules["scores_clustered_eer_sweep"] = sweep
_spec.loader.exec_module(sweep)

K = 16  # pieces per segment
STEP = 0.5  # the tied designs' grid


def interpolated(cc: ClusteredCounts, k: int = K) -> ClusteredCounts:
    """``cc`` with every segment of its polyline cut into ``k`` pieces, counts and design
    effects interpolated linearly at the cuts."""
    i0, i1 = _polyline_steps(cc.fn, cc.fp)
    lam = np.arange(1, k) / k
    parts = []
    for a in (cc.fn, cc.fp, cc.deff_fn, cc.deff_fp):
        inner = a[i0][:, None] + lam[None, :] * (a[i1] - a[i0])[:, None]
        parts.append(np.concatenate([a, inner.ravel()]))
    fn, fp, dfn, dfp = parts
    return ClusteredCounts(
        fn, fp, dfn, dfp, cc.n_pos, cc.n_neg, cc.df, cc.rank_deff_pos, cc.rank_deff_neg
    )


def rate_pass(cc: ClusteredCounts, inner: tuple[float, float]) -> tuple[float, float]:
    """``deff="rate"`` of :func:`clustered_eer_interval` from the interval ``inner`` of the
    threshold's design effect (here the interpolated one): the same outward search over
    the original thresholds."""
    accepts = _rate_deff_test(cc, _t_cut(0.95, "two-sided", cc.df))
    low, high = inner
    if low > 0.0:
        low = _outermost(accepts, low, 0.0)
    if high < 1.0:
        high = _outermost(accepts, high, 1.0)
    return low, high


def truth(d: Any, tied: bool) -> float:
    """The population's EER (or FNR at the FPR ``d.at``) on the polyline of its ROC
    points: every threshold for untied scores, the grid's cut points for tied ones."""
    if not tied:
        return float(d.value)
    cuts = (np.arange(-40, 60) + 0.5) * STEP
    fnr, fpr = norm.cdf(cuts - d.mu), norm.sf(cuts)  # decreasing FPR, increasing FNR
    if d.part == "eer":
        diff = fnr - fpr
        j = int(np.flatnonzero(diff >= 0)[0])
        lam = -diff[j - 1] / (diff[j] - diff[j - 1])
        return float(fnr[j - 1] + lam * (fnr[j] - fnr[j - 1]))
    j = int(np.flatnonzero(fpr <= d.at)[0])
    lam = (fpr[j - 1] - d.at) / (fpr[j - 1] - fpr[j])
    return float(fnr[j - 1] + lam * (fnr[j] - fnr[j - 1]))


def one(d: Any, rho: Any, tied: bool, r: int) -> dict[str, Any]:
    g = np.random.default_rng([31, zlib.crc32(d.label().encode()), int(tied), r])
    y, s, cond = sweep.draw(d, g, rho)
    while len(np.unique(cond[y])) < 2 or len(np.unique(cond[~y])) < 2:
        y, s, cond = sweep.draw(d, g, rho)
    if tied:
        s = np.round(s / STEP) * STEP
    cc = clustered_error_counts(s[~y], cond[~y], s[y], cond[y])
    ci = interpolated(cc)
    out: dict[str, Any] = {}
    if d.part == "eer":
        out["larger"] = clustered_eer_interval(cc)
        out["interpolated"] = clustered_eer_interval(ci)
        if d.icc >= 0.5 and d.n_cond < 100:  # where auto reads deff="rate"
            out["larger_rate"] = clustered_eer_interval(cc, deff="rate")
            out["interpolated_rate"] = rate_pass(cc, out["interpolated"])
    else:
        out["larger"] = clustered_rate_interval(cc, "fnr", d.at)
        out["interpolated"] = clustered_rate_interval(ci, "fnr", d.at)
    return out


def designs() -> list[tuple[Any, bool]]:
    """Tied scores over 10-100 conditions at an ICC of the errors of 0, 0.25, 0.5; untied
    (where the two differ by little: each segment moves one count by one) over 10 and 50
    conditions at 0 and 0.5."""
    out = []
    for tied in (True, False):
        for c in (10, 20, 50, 100) if tied else (10, 50):
            for icc in (0.0, 0.25, 0.5) if tied else (0.0, 0.5):
                for k in (1.0, 2.0, 5.0) if tied else (1.0, 5.0):
                    out.append((sweep.Design(1000, 0.1, k, c, icc), tied))
                    out.append((sweep.Design(1000, 0.1, k, c, icc, "op", 0.05), tied))
    return out


def main(reps: int, path: str) -> None:
    results = []
    for d, tied in designs():
        t = truth(d, tied)
        rho = d.rho
        rows = [one(d, rho, tied, r) for r in range(reps)]
        row: dict[str, Any] = {"design": d.label(), "part": d.part, "tied": tied,
                               "conditions": d.n_cond, "icc": d.icc, "k": d.k, "truth": t,
                               "test_sets": reps}  # fmt: skip
        for m in rows[0]:
            iv = np.array([x[m] for x in rows])
            row[f"cov_{m}"] = float(np.mean((iv[:, 0] <= t) & (t <= iv[:, 1])))
            row[f"width_{m}"] = float(np.median(iv[:, 1] - iv[:, 0]))
            row[f"mean_width_{m}"] = float(np.mean(iv[:, 1] - iv[:, 0]))
        base = np.array([x["larger"] for x in rows])
        other = np.array([x["interpolated"] for x in rows])
        row["differ"] = float(np.mean(np.abs(base - other).max(axis=1) > 1e-12))
        print(
            json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}),
            flush=True,
        )
        results.append(row)
        with open(path, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
