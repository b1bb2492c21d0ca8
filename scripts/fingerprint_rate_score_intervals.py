"""Fingerprint of the score intervals of a rate at a fixed rate (session 11, review11):
1,304 calls through rate_score_interval and clustered_rate_interval (poisson_edge on and
off), ScoreInterval / ClusteredScoreInterval (flipped, one- and two-sided, their
details["modified"]), operating_point_ci and Scores.bootstrap_ci("fnr_at_fpr") iid and
over conditions, and their re-reads at other levels.  Prints the count and a sha256 and
writes every line to the file named; run before and after a change, compare.

    PYTHONPATH=src python scripts/fingerprint_rate_score_intervals.py /tmp/before.txt
"""

import hashlib
import sys
import warnings

import numpy as np
from scipy.special import ndtri

import mlci
from mlci.engine.scores_clustered import (
    ClusteredScoreInterval,
    clustered_error_counts,
    clustered_rate_interval,
)
from mlci.engine.scores_rules import (
    ScoreInterval,
    error_counts,
    op_score_interval,
    rate_score_interval,
)

warnings.simplefilter("ignore")
out = []


def p(*a):
    out.append(repr(a))


g = np.random.default_rng(7)
alts = ["two-sided", "less", "greater"]
# rate_score_interval, polylines with few events
for case in range(14):
    k = int(g.integers(0, 5))
    n = int(g.choice([12, 40, 128, 300]))
    steps = int(g.integers(1, 6))
    y = np.sort(np.r_[k, k + g.integers(0, 3, steps)]).astype(float)
    y = np.minimum(y, n)
    if case % 5 == 4:
        y = n - y
    x = np.sort(g.integers(80, 120, steps + 1))[::-1].astype(float)
    at = float(g.choice([0.1, 0.09, 0.1005]))
    for lv in (0.8, 0.95, 0.99):
        for alt in alts:
            for edge in (True, False):
                p(
                    "rsi",
                    case,
                    lv,
                    alt,
                    edge,
                    rate_score_interval(y, n, x, 1000, at, lv, alt, poisson_edge=edge),
                )
            for flip in (False, True):
                p(
                    "SI",
                    case,
                    lv,
                    alt,
                    flip,
                    ScoreInterval("rate", y, n, x, 1000, at, flip)(lv, alt),
                )
    p("SIeer", case, ScoreInterval("eer", y, n, x, 1000)(0.95, "two-sided"))
# ties / at 0 / 1
for at in (0.0, 1.0):
    p("rsi01", at, rate_score_interval([0, 1, 2], 20, [10, 0, 0], 10, at))
# real scores, public doors
for seed in range(6):
    gg = np.random.default_rng(seed)
    n_pos = [12, 30, 130, 20, 50, 200][seed]
    mu = ndtri(1 - 0.033) - ndtri([0.15, 0.05, 0.005, 0.1, 0.03, 0.01][seed])
    s = mlci.Scores(gg.normal(mu, 1, n_pos), gg.normal(0, 1, 600))
    for rate, at in (("fnr", 0.033), ("tpr", 0.033), ("fpr", 0.1)):
        kw = dict(x="fnr") if rate == "fpr" else {}
        r = mlci.operating_point_ci(s, rate, at=at, rng=0, n_resamples=200, **kw)[0]
        p(
            "op",
            seed,
            rate,
            r.method,
            tuple(r.confidence_interval),
            sorted((k, str(v)) for k, v in r.details.items() if k in ("modified", "method_reason")),
        )
        for lv, alt in ((0.9, "two-sided"), (0.99, "less"), (0.95, "greater")):
            rr = r.interval(confidence_level=lv, alternative=alt) if r.method == "wilson" else r
            p(
                "op-re",
                seed,
                rate,
                lv,
                alt,
                tuple(rr.confidence_interval),
                rr.details.get("modified"),
            )
    d = s.bootstrap_ci("fnr_at_fpr", at=0.033, rng=0, n_resamples=200)
    p("door", seed, d.method, tuple(d.confidence_interval), d.details.get("modified"))
    lay = s._lay
    fn, fp = error_counts(lay.u[0], lay.nobs[0], lay.u[1], lay.nobs[1])
    for rate, x in (("fnr", "fpr"), ("tpr", "fpr"), ("fpr", "fnr"), ("tnr", "tpr")):
        si = op_score_interval(rate, x, 0.05, fn, fp, n_pos, 600)
        for lv, alt in ((0.95, "two-sided"), (0.9, "less"), (0.9, "greater")):
            p("opsi", seed, rate, x, lv, alt, si(lv, alt))
# clustered
for seed in range(6):
    gg = np.random.default_rng(seed)
    n, n_pos, n_cond, icc = (
        1000,
        [100, 60, 150, 40, 100, 80][seed],
        [20, 30, 12, 25, 40, 20][seed],
        0.3,
    )
    yy = np.r_[np.ones(n_pos, int), np.zeros(n - n_pos, int)]
    cond = gg.integers(0, n_cond, n)
    u = gg.normal(size=(2, n_cond))
    shift = np.where(yy == 1, u[0][cond], u[1][cond])
    sc = (
        gg.normal(size=n) * np.sqrt(1 - icc)
        + np.sqrt(icc) * shift
        + [3.8, 4.6, 4.2, 3.5, 5.0, 4.0][seed] * yy
    )
    cc = clustered_error_counts(sc[yy == 0], cond[yy == 0], sc[yy == 1], cond[yy == 1])
    for rate, at in (("fnr", 0.05), ("fnr", 0.02), ("fpr", 0.5), ("fpr", 0.3)):
        for lv in (0.9, 0.95):
            for alt in alts:
                for edge in (True, False):
                    p(
                        "cri",
                        seed,
                        rate,
                        at,
                        lv,
                        alt,
                        edge,
                        clustered_rate_interval(cc, rate, at, lv, alt, poisson_edge=edge),
                    )
                for flip in (False, True):
                    p(
                        "CSI",
                        seed,
                        rate,
                        at,
                        lv,
                        alt,
                        flip,
                        ClusteredScoreInterval("rate", cc, rate, at, flip)(lv, alt),
                    )
    p("CSIeer", seed, ClusteredScoreInterval("eer", cc)(0.95, "two-sided"))
    S = mlci.Scores.from_labels(yy, sc)
    for rate, at in (("fnr", 0.05), ("tpr", 0.05), ("fnr", 0.02)):
        r = mlci.operating_point_ci(S, rate, at=at, conditions=cond, rng=0, n_resamples=200)[0]
        p("cop", seed, rate, at, r.method, tuple(r.confidence_interval), r.details.get("modified"))
        if r.method == "wilson":
            for lv, alt in ((0.9, "two-sided"), (0.99, "less")):
                rr = r.interval(confidence_level=lv, alternative=alt)
                p(
                    "cop-re",
                    seed,
                    rate,
                    lv,
                    alt,
                    tuple(rr.confidence_interval),
                    rr.details.get("modified"),
                )
txt = "\n".join(out)
print(
    len(out),
    "calls;",
    sum("'modified'" in l or "True)" in l for l in out),
    "lines mention modified/True",
)
print("sha256", hashlib.sha256(txt.encode()).hexdigest())
open(sys.argv[1], "w").write(txt + "\n")
