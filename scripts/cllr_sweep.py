"""Coverage of Cllr intervals over targets, AUC and calibration (issue 20; session 9).

``scripts/design_search_scores.py`` (seed 10) found :func:`mlci.cllr_ci` short and
unwarned: the actual Cllr of 17 targets of 39 (AUC 0.993, LLRs scaled by 0.71) covered
0.867-0.877 under BCa; the minimum Cllr of 4 expected targets of 121 (AUC 0.93)
0.277-0.333.  This sweep maps where each interval holds.

Population (exact truth, as design_search_scores): non-target scores N(0, 1), target
scores N(e, 1) with ``e = sqrt(2) Phi^-1(AUC)``; the calibrated natural-log LLR of a
score z is ``e z - e^2 / 2`` and the system's LLR is ``c`` times it (``c = 1``
calibrated, ``c = 0.5`` under-confident, ``c = 2`` over-confident).  The true actual Cllr
is design_search_scores.cllr_truth(e, c) (Gauss-Hermite), the true minimum Cllr that of
``c = 1`` (PAV's calibration is monotone, so the minimum Cllr does not depend on ``c``).
Class counts are fixed per test set (``targets`` and ``ratio * targets`` non-targets, ratio
1 or 5, at most 600 trials).

* ``kind="actual"``: Cllr is ``(mean_pos phi_pos + mean_neg phi_neg) / 2`` of per-trial
  costs; the replicates are drawn here in numpy (stratified by class, as
  :func:`mlci.cllr_ci` does by default), with every replicate's two class variances, so
  that percentile, BCa (jackknife over all trials, Efron & Tibshirani 1993, eq. 14.15),
  the normal interval and the bootstrap-t on the identity and log scales (Efron &
  Tibshirani 1993, ch. 12.5; Hall 1992, sec. 3.5) come from the same replicates.
  ``mlci_bca`` is mlci's own BCa on a tenth of the test sets (a check that the numpy BCa
  is mlci's).  Per test set it records the diagnostics a warning rule can read: the
  skewness of the estimate from the class-wise third moments,
  ``gamma = (m3_pos / n_pos^2 + m3_neg / n_neg^2) / 8 / se^3`` (for one mean
  ``G1 / sqrt(n)``: Cochran's rule ``n > 25 G1^2``, Cochran 1977, sec. 2.15, is
  ``gamma < 0.2``), and the effective number of trials carrying each class's cost,
  ``(sum c)^2 / sum c^2``.
* ``kind="min"``: :func:`mlci.cllr_ci` itself (BCa; percentile and basic read off its
  replicates) and the bootstrap estimate of the bias (mean replicate - estimate).

Usage::

    nice python scripts/cllr_sweep.py --json scripts/data/cllr_sweep.json --kind actual \\
        --reps 150 -B 500
    nice python scripts/cllr_sweep.py --json scripts/data/cllr_sweep.json --kind min \\
        --min-reps 60 --min-resamples 400
    python scripts/cllr_sweep.py --json scripts/data/cllr_sweep.json --report

Session 10 (helper cllr2; docs/validation.md, "Cllr's bootstrap-t with a floored standard
error (session 10, cllr2)"): the candidates of :data:`S10_METHODS` from the same replicates
(``--seed 20`` still reproduces session 9's methods), four runs in parallel joined::

    for T in "5 10" "20 50" 100 200; do nice python scripts/cllr_sweep.py --kind actual \
        --reps 300 -B 500 --seed 30 --targets $T --json /tmp/s10_${T// /_}.json & done; wait
    python scripts/cllr_sweep.py --json scripts/data/cllr_sweep_s10.json \
        --merge /tmp/s10_5_10.json /tmp/s10_20_50.json /tmp/s10_100.json /tmp/s10_200.json
    nice python scripts/cllr_sweep.py --json scripts/data/cllr_sweep_s10_b1000.json \
        --kind actual --reps 300 -B 1000 --seed 31 --targets 50 100 \
        --design 50,5,0.999,0.5 --design 50,5,0.99,1.0 --design 100,5,0.97,2.0 \
        --design 100,5,0.99,2.0 --design 50,5,0.97,2.0 --design 50,1,0.97,0.5
    python scripts/cllr_sweep.py --json scripts/data/cllr_sweep_s10.json --report \
        --pool scripts/data/cllr_sweep.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

sys.path.insert(0, str(Path(__file__).resolve().parent))
import design_search_scores as dss

mlci = dss.mlci
LN2 = math.log(2.0)
ALPHA = 0.05
TARGETS = (5, 10, 20, 50, 100, 200)
AUCS = (0.8, 0.9, 0.97, 0.99, 0.999)
SCALES = (1.0, 0.5, 2.0)
RATIOS = (1, 5)
MIN_TARGETS = (5, 10, 20, 50, 100, 300)
MAX_TRIALS = 600  # per test set (compute: about 15 minutes of one core in all)
ACTUAL_METHODS = ("percentile", "bca", "normal", "boot_t", "boot_t_log")
#: session 10 (helper cllr2): read from the same replicates, no random draw, so that the
#: session-9 methods reproduce: mlci's own studentized reader
#: (mlci.intervals.bootstrap.studentized_interval, its zero-SE and edge fallback too) with
#: every replicate's own standard error (``auto_s9``, auto as session 9 left it) and with
#: the floored one (``auto_s10``: ``se* >= C* |log C* - log C| / max_t``); the numpy
#: bootstrap-t on the log scale with t* clipped to +-max_t (``boot_t_log_clip``, no
#: fallback); the log-scale basic interval (``log_basic``: one standard error for every
#: replicate, the "pooled" bootstrap-t); the variance-stabilised bootstrap-t (``vst``:
#: Efron & Tibshirani 1993, sec. 12.6, ``log se*`` regressed on ``log C*`` over the
#: replicates, the power p clipped to [0, 1], the basic interval on ``C^(1-p)``); and the
#: bootstrap-t whose replicate variances are shrunk toward the test set's by one trial
#: (``t_shrunk``); and BCa's upper bound where the bootstrap-t's lower t* quantile is
#: beyond -max_t (``hybrid_bca``)
S10_METHODS = (
    "auto_s9",
    "auto_s10",
    "boot_t_log_clip",
    "log_basic",
    "vst",
    "t_shrunk",
    "hybrid_bca",
)
MAX_T = 6.0


def separation(auc: float) -> float:
    return float(math.sqrt(2) * ndtri(auc))


def draw(g: np.random.Generator, e: float, n_pos: int, n_neg: int) -> tuple[Any, Any]:
    return g.standard_normal(n_pos) + e, g.standard_normal(n_neg)


def llr(z: np.ndarray, e: float, c: float) -> np.ndarray:
    return c * (e * z - e * e / 2)


def class_costs(lp: np.ndarray, ln: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.logaddexp(0, -lp) / LN2, np.logaddexp(0, ln) / LN2


def diagnostics(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Skewness of the estimate (class-wise moments) and effective trials per class."""
    na, nb = len(a), len(b)
    var = 0.25 * (a.var(ddof=1) / na + b.var(ddof=1) / nb)
    m3 = (np.mean((a - a.mean()) ** 3) / na**2 + np.mean((b - b.mean()) ** 3) / nb**2) / 8
    va, vb = a.var(ddof=1) / na, b.var(ddof=1) / nb
    # session 11 (cllrwauc): Welch and Satterthwaite's degrees of freedom of the two-sample
    # standard error (no random draw: the seed-30 run reproduces)
    den = va * va / (na - 1) + vb * vb / (nb - 1)
    return {
        "gamma": float(m3 / var**1.5) if var > 0 else math.nan,
        "neff_pos": float(a.sum() ** 2 / (a * a).sum()),
        "neff_neg": float(b.sum() ** 2 / (b * b).sum()),
        "df": float((va + vb) ** 2 / den) if den > 0 else math.nan,
    }


def actual_intervals(
    a: np.ndarray, b: np.ndarray, g: np.random.Generator, B: int, max_t: float = MAX_T
) -> tuple[float, dict[str, tuple[float, float]]]:
    na, nb = len(a), len(b)
    ca = g.multinomial(na, np.full(na, 1 / na), size=B)
    cb = g.multinomial(nb, np.full(nb, 1 / nb), size=B)
    ma, mb = ca @ a / na, cb @ b / nb
    va = np.maximum(ca @ (a * a) / na - ma**2, 0) * na / (na - 1)
    vb = np.maximum(cb @ (b * b) / nb - mb**2, 0) * nb / (nb - 1)
    th = 0.5 * (ma + mb)
    se = 0.5 * np.sqrt(va / na + vb / nb)
    est = 0.5 * (a.mean() + b.mean())
    se0 = 0.5 * math.sqrt(a.var(ddof=1) / na + b.var(ddof=1) / nb)
    z = ndtri(np.array([ALPHA / 2, 1 - ALPHA / 2]))
    out: dict[str, tuple[float, float]] = {}
    out["percentile"] = tuple(np.quantile(th, [ALPHA / 2, 1 - ALPHA / 2]))
    z0 = ndtri(np.mean(th < est) + 0.5 * np.mean(th == est))
    jack = np.r_[
        0.5 * ((a.sum() - a) / (na - 1) + b.mean()), 0.5 * (a.mean() + (b.sum() - b) / (nb - 1))
    ]
    d = jack.mean() - jack
    ss = (d**2).sum()
    acc = (d**3).sum() / (6 * ss**1.5) if ss > 0 else 0.0
    out["bca"] = tuple(np.quantile(th, ndtr(z0 + (z0 + z) / (1 - acc * (z0 + z)))))
    out["normal"] = (est + z[0] * se0, est + z[1] * se0)
    ok = se > 0
    tq = np.quantile((th[ok] - est) / se[ok], [ALPHA / 2, 1 - ALPHA / 2])
    out["boot_t"] = (max(est - tq[1] * se0, 0.0), est - tq[0] * se0)
    tq = np.quantile(
        (np.log(th[ok]) - math.log(est)) / (se[ok] / th[ok]), [ALPHA / 2, 1 - ALPHA / 2]
    )
    out["boot_t_log"] = (est * math.exp(-tq[1] * se0 / est), est * math.exp(-tq[0] * se0 / est))
    out.update(session10_intervals(a, b, th, se, va, vb, est, se0, out, max_t))
    return float(est), out


def session10_intervals(
    a: np.ndarray,
    b: np.ndarray,
    th: np.ndarray,
    se: np.ndarray,
    va: np.ndarray,
    vb: np.ndarray,
    est: float,
    se0: float,
    old: dict[str, tuple[float, float]],
    max_t: float,
) -> dict[str, tuple[float, float]]:
    """The session-10 candidates (:data:`S10_METHODS`) from the same replicates."""
    from mlci.intervals.bootstrap import studentized_interval

    na, nb = len(a), len(b)
    out: dict[str, tuple[float, float]] = {}
    kw: dict[str, Any] = {"confidence_level": 1 - ALPHA, "bounds": (0.0, math.inf), "iid": True}
    lin = {"standard_error": se0, "iid": True}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(divide="ignore", invalid="ignore"):
            floor = th * np.abs(np.log(th) - math.log(est)) / max_t
        se_f = np.maximum(se, np.where(th > 0, floor, 0.0))
        for name, s_ in (("auto_s9", se), ("auto_s10", se_f)):
            low, high, _ = studentized_interval(est, se0, th, s_, linear=lin, **kw)
            out[name] = (float(low), float(high))
    ok = (se > 0) & (th > 0)
    t = (np.log(th[ok]) - math.log(est)) / (se[ok] / th[ok])
    tq = np.clip(np.quantile(t, [ALPHA / 2, 1 - ALPHA / 2]), -max_t, max_t)
    out["boot_t_log_clip"] = (
        est * math.exp(-tq[1] * se0 / est),
        est * math.exp(-tq[0] * se0 / est),
    )
    lq = np.quantile(np.log(th[th > 0]), [ALPHA / 2, 1 - ALPHA / 2])
    out["log_basic"] = (est * est / math.exp(lq[1]), est * est / math.exp(lq[0]))
    p = float(np.clip(np.polyfit(np.log(th[ok]), np.log(se[ok]), 1)[0], 0.0, 1.0))
    if p > 1 - 1e-9:
        gq = np.exp(2 * math.log(est) - lq[::-1])
        out["vst"] = (float(gq[0]), float(gq[1]))
    else:
        q = np.quantile(th ** (1 - p), [ALPHA / 2, 1 - ALPHA / 2])
        y = 2 * est ** (1 - p) - q[::-1]
        out["vst"] = tuple(float(max(v, 0.0) ** (1 / (1 - p))) for v in y)  # type: ignore[assignment]
    va0, vb0 = a.var(ddof=1), b.var(ddof=1)
    ses = 0.5 * np.sqrt(((na - 1) * va + va0) / na / na + ((nb - 1) * vb + vb0) / nb / nb)
    tq = np.quantile((np.log(th) - math.log(est)) / (ses / th), [ALPHA / 2, 1 - ALPHA / 2])
    out["t_shrunk"] = (est * math.exp(-tq[1] * se0 / est), est * math.exp(-tq[0] * se0 / est))
    t_lo = float(np.quantile(t, ALPHA / 2))
    upper = old["bca"][1] if t_lo < -max_t else old["boot_t_log"][1]
    out["hybrid_bca"] = (old["boot_t_log"][0], upper)
    return out


DIAG_METHODS = ("bca", "boot_t_log", "auto_s9", "auto_s10")


def summaries(hits: dict, above: dict, width: dict) -> dict:
    """Coverage, share missed with the truth above, and median width of every method."""
    return {
        m: {
            "n": len(h),
            "coverage": float(np.mean(h)),
            "truth_above": above[m] / len(h),
            "median_width": float(np.median(width[m])),
        }
        for m, h in hits.items()
    }


def run_actual(
    targets: int,
    ratio: int,
    auc: float,
    c: float,
    reps: int,
    B: int,
    seed: int = 20,
    max_t: float = MAX_T,
) -> dict:
    e = separation(auc)
    truth = dss.cllr_truth(e, c)
    g = np.random.default_rng([seed, targets, ratio, round(auc * 1e4), round(c * 100)])
    hits = {m: [] for m in (*ACTUAL_METHODS, *S10_METHODS, "mlci_bca", "mlci_auto")}
    width: dict[str, list[float]] = {m: [] for m in hits}
    above = {m: 0 for m in hits}
    diag: list[dict[str, float]] = []
    for r in range(reps):
        zp, zn = draw(g, e, targets, ratio * targets)
        a, b = class_costs(llr(zp, e, c), llr(zn, e, c))
        est, ivs = actual_intervals(a, b, g, B, max_t)
        if r % 10 == 0:
            sc = mlci.Scores(llr(zp, e, c), llr(zn, e, c))
            with warnings.catch_warnings(), mlci.config_context(n_jobs=1):
                warnings.simplefilter("ignore")
                res = mlci.cllr_ci(sc, n_resamples=B, rng=r, method="bca")
                auto = mlci.cllr_ci(sc, n_resamples=B, rng=r)
            ivs["mlci_bca"] = tuple(map(float, res.confidence_interval))
            ivs["mlci_auto"] = tuple(map(float, auto.confidence_interval))
        for m, (lo, hi) in ivs.items():
            hits[m].append(bool(lo <= truth <= hi))
            above[m] += bool(truth > hi)
            width[m].append(hi - lo)
        diag.append(
            {
                "estimate": est,
                **diagnostics(a, b),
                **{f"covered_{m}": float(hits[m][-1]) for m in DIAG_METHODS},
                **{f"width_{m}": width[m][-1] for m in DIAG_METHODS},
            }
        )
    return {
        "kind": "actual",
        "targets": targets,
        "nontargets": ratio * targets,
        "auc": auc,
        "c": c,
        "truth": truth,
        "reps": reps,
        "B": B,
        "methods": summaries(hits, above, width),
        "diagnostics": {k: [round(d[k], 4) for d in diag] for k in diag[0]},
    }


def run_min(targets: int, ratio: int, auc: float, reps: int, B: int) -> dict:
    e = separation(auc)
    truth = dss.cllr_truth(e, 1.0)
    g = np.random.default_rng([21, targets, ratio, round(auc * 1e4)])
    hits: dict[str, list[bool]] = {"bca": [], "percentile": [], "basic": []}
    width: dict[str, list[float]] = {m: [] for m in hits}
    above = {m: 0 for m in hits}
    est_, bias_, sd_ = [], [], []
    for r in range(reps):
        zp, zn = draw(g, e, targets, ratio * targets)
        sc = mlci.Scores(llr(zp, e, 1.0), llr(zn, e, 1.0))
        with warnings.catch_warnings(), mlci.config_context(n_jobs=1):
            warnings.simplefilter("ignore")
            res = mlci.cllr_ci(sc, kind="min", n_resamples=B, rng=r, method="bca")
        dist, est = res.bootstrap_distribution, res.estimate
        q = np.quantile(dist, [ALPHA / 2, 1 - ALPHA / 2])
        ivs = {
            "bca": tuple(map(float, res.confidence_interval)),
            "percentile": (q[0], q[1]),
            "basic": (max(2 * est - q[1], 0.0), 2 * est - q[0]),
        }
        for m, (lo, hi) in ivs.items():
            hits[m].append(bool(lo <= truth <= hi))
            above[m] += bool(truth > hi)
            width[m].append(hi - lo)
        est_.append(est)
        bias_.append(float(dist.mean() - est))
        sd_.append(float(dist.std()))
    return {
        "kind": "min",
        "targets": targets,
        "nontargets": ratio * targets,
        "auc": auc,
        "c": 1.0,
        "truth": truth,
        "reps": reps,
        "B": B,
        "mean_estimate": float(np.mean(est_)),
        "sd_estimate": float(np.std(est_)),
        "mean_bootstrap_bias": float(np.mean(bias_)),
        "mean_bootstrap_sd": float(np.mean(sd_)),
        "methods": summaries(hits, above, width),
    }


def _significantly_short(cov: float, n: int) -> bool:
    """Below 0.935 by more than 1.645 binomial standard errors (one-sided 5%)."""
    return cov < 0.935 - 1.645 * math.sqrt(0.95 * 0.05 / n)


def report(doc: dict, min_effective: float = 4.0) -> str:
    """Per-cell table and summary: ``auto`` is the bootstrap-t on the log scale (the actual
    Cllr), warned where a class's cost rests on fewer than ``min_effective`` of Kish's
    effective trials; BCa for the minimum Cllr."""
    lines = []
    rows = [r for r in doc["cells"] if r["kind"] == "actual"]
    if rows:
        lines.append(f"\n## actual Cllr ({len(rows)} cells; auto = boot_t_log)\n")
        lines.append(
            "| targets | non-targets | AUC | c | truth | BCa | percentile | normal | "
            "bootstrap-t | bootstrap-t log | warned | width t-log / BCa |"
        )
        lines.append("|" + "---|" * 12)
        tally = {"cells": 0, "bca_short": 0, "auto_short": 0, "unwarned_short": 0,
                 "warned_holds": 0, "auto_ge_bca": 0}  # fmt: skip
        ratios_hold: list[float] = []
        for r in rows:
            m = r["methods"]
            warned = warned_share(r, min_effective, math.inf)
            ratio = m["boot_t_log"]["median_width"] / m["bca"]["median_width"]
            n = m["bca"]["n"]
            bca_short = _significantly_short(m["bca"]["coverage"], n)
            short = _significantly_short(m["boot_t_log"]["coverage"], n)
            tally["cells"] += 1
            tally["bca_short"] += bca_short
            tally["auto_short"] += short
            tally["unwarned_short"] += short and warned < 0.5
            tally["warned_holds"] += (not short) and warned > 0.5
            tally["auto_ge_bca"] += m["boot_t_log"]["coverage"] >= m["bca"]["coverage"]
            if not bca_short:
                ratios_hold.append(ratio)
            cov = " | ".join(
                f"{m[k]['coverage']:.3f}"
                for k in ("bca", "percentile", "normal", "boot_t", "boot_t_log")
            )
            lines.append(
                f"| {r['targets']} | {r['nontargets']} | {r['auc']} | {r['c']} | "
                f"{r['truth']:.4f} | {cov} | {warned:.2f} | {ratio:.3g} |"
            )
        rh = np.asarray(ratios_hold) if ratios_hold else np.full(1, math.nan)
        lines.append(
            f"\n{tally}; width ratio where BCa holds: median {np.median(rh):.2f}, "
            f"max {rh.max():.2f}, above 1.5 in {int(np.sum(rh > 1.5))} of {len(rh)}"
        )
    rows = [r for r in doc["cells"] if r["kind"] == "min"]
    if rows:
        lines.append(f"\n## minimum Cllr ({len(rows)} cells; auto = BCa)\n")
        lines.append(
            "| targets | non-targets | AUC | truth | mean estimate | BCa | percentile | basic | "
            "bias / SD (true) | bias / SD (bootstrap) |"
        )
        lines.append("|" + "---|" * 10)
        for r in rows:
            m = r["methods"]
            sd = r["sd_estimate"]
            true = (r["mean_estimate"] - r["truth"]) / sd if sd > 0 else math.nan
            boot = (
                r["mean_bootstrap_bias"] / r["mean_bootstrap_sd"]
                if r["mean_bootstrap_sd"] > 0
                else math.nan
            )
            cov = " | ".join(f"{m[k]['coverage']:.3f}" for k in ("bca", "percentile", "basic"))
            lines.append(
                f"| {r['targets']} | {r['nontargets']} | {r['auc']} | {r['truth']:.4f} | "
                f"{r['mean_estimate']:.4f} | {cov} | {true:.2f} | {boot:.2f} |"
            )
    return "\n".join(lines)


#: the warning rules compared by :func:`report_s10`: (Kish's effective trials below, or the
#: estimate's skewness above); (4, inf) is session 9's rule
WARN_RULES = ((4.0, math.inf), (3.0, math.inf), (5.0, math.inf), (4.0, 0.3), (4.0, 0.35),
              (4.0, 0.4), (3.0, 0.3), (3.0, 0.35), (0.0, 0.35))  # fmt: skip


#: session 11 (cllrwauc): mlci's rule now, (3, 0.35) and a class of fewer than 20 trials
#: outnumbered 3 times or more (``_cllr_rules.MIN_CLLR_CLASS_TRIALS`` and ``_RATIO``)
SMALL_CLASS, SMALL_RATIO = 20, 3.0


def small_class(cell: dict) -> bool:
    """The session-11 trigger: the design's smaller class below :data:`SMALL_CLASS` and the
    other at least :data:`SMALL_RATIO` times as large (the class counts are fixed)."""
    a, b = sorted((cell["targets"], cell["nontargets"]))
    return a < SMALL_CLASS and b >= SMALL_RATIO * a


def _rule_key(min_effective: float, max_skew: float) -> str:
    return f"{min_effective:g}/{max_skew:g}"


#: the rules the reports compare: :data:`WARN_RULES`, and session 11's (3, 0.35) with the
#: class-count trigger (:func:`small_class`)
RULES_S11 = (*((k, g, False) for k, g in WARN_RULES), (3.0, 0.35, True))
SMALL_LABEL = f" + a class < {SMALL_CLASS} outnumbered {SMALL_RATIO:g}x"


def warned_share(cell: dict, min_effective: float, max_skew: float, small: bool = False) -> float:
    """Share of a design's test sets that warn under a rule (:data:`WARN_RULES`; ``small``:
    with the session-11 class-count trigger).  A compact cell (:func:`compact`) holds the
    shares of :data:`WARN_RULES` themselves."""
    if small and small_class(cell):
        return 1.0
    if "diagnostics" not in cell:
        return float(cell["warned"][_rule_key(min_effective, max_skew)])
    d = cell["diagnostics"]
    eff = np.minimum(np.asarray(d["neff_pos"]), np.asarray(d["neff_neg"]))
    gamma = np.nan_to_num(np.asarray(d["gamma"], dtype=float), nan=math.inf)
    return float(np.mean((eff < min_effective) | (gamma > max_skew)))


WIDTH_METHODS = ("boot_t_log", "auto_s9", "auto_s10")


def width_counts(cell: dict, m: str) -> list[float] | None:
    """(test sets, share wider than 10 bits, than 100 bits, widest) of ``m``'s intervals."""
    if "diagnostics" not in cell:
        return cell.get("widths", {}).get(m)
    if f"width_{m}" not in cell["diagnostics"]:
        return None
    w = np.asarray(cell["diagnostics"][f"width_{m}"], dtype=float)
    return [len(w), float(np.mean(w > 10)), float(np.mean(w > 100)), float(w.max())]


def compact(cell: dict) -> dict:
    """``cell`` with its per-test-set diagnostics replaced by what the reports read: the
    share of test sets each rule of :data:`WARN_RULES` warns, and :func:`width_counts`
    (session 11: scripts/data/cllr_sweep_s10.json from 3.9 MB to a few hundred kB)."""
    if cell["kind"] != "actual" or "diagnostics" not in cell:
        return cell
    out = {k: v for k, v in cell.items() if k != "diagnostics"}
    out["warned"] = {_rule_key(k, g): round(warned_share(cell, k, g), 6) for k, g in WARN_RULES}
    widths = {m: width_counts(cell, m) for m in WIDTH_METHODS}
    out["widths"] = {m: [round(x, 6) for x in w] for m, w in widths.items() if w is not None}
    return out


def report_s10(doc: dict, methods: tuple[str, ...] = ("boot_t_log", *S10_METHODS)) -> str:
    """Session 10: every candidate's coverage and width against BCa over the designs, over
    those where the session-9 bootstrap-t was wider than 10 times BCa ("wide"), and the
    warning rules (:data:`WARN_RULES`) against ``auto_s10``'s coverage."""
    rows = [r for r in doc["cells"] if r["kind"] == "actual"]
    wide = [r["methods"]["boot_t_log"]["median_width"] > 10 * r["methods"]["bca"]["median_width"]
            for r in rows]  # fmt: skip
    bca_holds = [not _significantly_short(r["methods"]["bca"]["coverage"], r["reps"]) for r in rows]
    lines = [f"\n## session 10: {len(rows)} designs, {sum(wide)} wide\n",
             "| method | mean coverage | short | width / BCa, median where BCa holds | max | "
             "designs > 10 | wide: mean coverage | wide: width / BCa, median | max |",
             "|" + "---|" * 9]  # fmt: skip
    for m in ("bca", *methods):
        cov = np.array([r["methods"][m]["coverage"] for r in rows])
        ratio = np.array(
            [r["methods"][m]["median_width"] / r["methods"]["bca"]["median_width"] for r in rows]
        )
        short = sum(_significantly_short(c, r["reps"]) for c, r in zip(cov, rows, strict=True))
        w, h = np.asarray(wide), np.asarray(bca_holds)
        lines.append(
            f"| {m} | {cov.mean():.3f} | {short} | {np.median(ratio[h]):.2f} | {ratio.max():.3g} | "
            f"{int(np.sum(ratio > 10))} | {cov[w].mean():.3f} | {np.median(ratio[w]):.3g} | "
            f"{ratio[w].max():.3g} |"
        )
    lines.append("\n| warn when effective trials < | or skewness > | short, unwarned | "
                 "of them 50-100 targets | holds, warned |")  # fmt: skip
    lines.append("|" + "---|" * 5)
    for k, g, small in RULES_S11:
        unwarned = holds_warned = mid = 0
        for r in rows:
            share = warned_share(r, k, g, small)
            short = _significantly_short(r["methods"]["auto_s10"]["coverage"], r["reps"])
            unwarned += short and share < 0.5
            mid += short and share < 0.5 and 50 <= r["targets"] <= 100
            holds_warned += (not short) and share > 0.5
        lines.append(f"| {k:g} | {g:g}{SMALL_LABEL if small else ''} | {unwarned} | {mid} | "
                     f"{holds_warned} |")  # fmt: skip
    lines.append("\nshort and unwarned under (4, 0.35): " + ", ".join(
        f"{r['targets']}/{r['nontargets']} AUC {r['auc']} c {r['c']} "
        f"({r['methods']['auto_s10']['coverage']:.3f})"
        for r in rows
        if _significantly_short(r["methods"]["auto_s10"]["coverage"], r["reps"])
        and warned_share(r, 4.0, 0.35) < 0.5
    ))  # fmt: skip
    return "\n".join(lines)


def report_pooled(docs: list[dict], method: str = "boot_t_log") -> str:
    """The warning rules (:data:`WARN_RULES`) against ``method``'s coverage pooled over
    several runs of the actual-Cllr sweep (independent seeds: session 9's 150 test sets and
    session 10's 300 a design), and how wide the session-9 and session-10 readings get."""
    pooled: dict[tuple, list[dict]] = {}
    for d in docs:
        for r in d["cells"]:
            if r["kind"] == "actual":
                pooled.setdefault((r["targets"], r["nontargets"], r["auc"], r["c"]), []).append(r)
    lines = [f"\n## pooled over {len(docs)} runs: {len(pooled)} designs, {method}\n",
             "| warn when effective trials < | or skewness > | short, unwarned | "
             "of them 50-100 targets | holds, warned |", "|" + "---|" * 5]  # fmt: skip
    short_list: list[str] = []
    left: dict[bool, list[str]] = {False: [], True: []}
    added: list[str] = []
    for k, g, small in RULES_S11:
        unwarned = holds_warned = mid = 0
        for key, cells in pooled.items():
            n = sum(c["reps"] for c in cells)
            cov = sum(c["methods"][method]["coverage"] * c["reps"] for c in cells) / n
            share = sum(warned_share(c, k, g, small) * c["reps"] for c in cells) / n
            short = _significantly_short(cov, n)
            unwarned += short and share < 0.5
            mid += short and share < 0.5 and 50 <= key[0] <= 100
            holds_warned += (not short) and share > 0.5
            if short and share < 0.5 and (k, g) == (4.0, math.inf):
                short_list.append(f"{key[0]}/{key[1]} AUC {key[2]} c {key[3]} ({cov:.3f}, n {n})")
            if short and share < 0.5 and (k, g) == (3.0, 0.35):
                left[small].append(f"{key[0]}/{key[1]} AUC {key[2]} c {key[3]} ({cov:.3f}, n {n})")
            if not short and share > 0.5 and small and small_class(cells[0]):
                added.append(f"{key[0]}/{key[1]} AUC {key[2]} c {key[3]} ({cov:.3f})")
        lines.append(f"| {k:g} | {g:g}{SMALL_LABEL if small else ''} | {unwarned} | {mid} | "
                     f"{holds_warned} |")  # fmt: skip
    lines.append("\nshort and unwarned under (4, inf): " + ", ".join(short_list))
    lines.append("short and unwarned under (3, 0.35): " + ", ".join(left[False]))
    lines.append(f"under (3, 0.35){SMALL_LABEL}: " + (", ".join(left[True]) or "none"))
    lines.append("holding designs the class-count trigger adds a warning to (its test sets may "
                 "warn by the other triggers too): " + ", ".join(added))  # fmt: skip
    widths = {}
    for m in WIDTH_METHODS:
        rows = [w for cs in pooled.values() for c in cs if (w := width_counts(c, m)) is not None]
        n = sum(r[0] for r in rows)
        widths[m] = (n, sum(r[0] * r[1] for r in rows) / n, sum(r[0] * r[2] for r in rows) / n,
                     max(r[3] for r in rows))  # fmt: skip
    lines.append("\n| method | test sets | width > 10 bits | > 100 bits | widest (bits) |")
    lines.append("|---|---|---|---|---|")
    for m, (n, a, b, mx) in widths.items():
        lines.append(f"| {m} | {n} | {a:.4f} | {b:.4f} | {mx:.3g} |")
    return "\n".join(lines)


def misses_report(doc: dict, method: str = "auto_s10") -> str:
    """Session 11: per design with per-test-set diagnostics, the medians (10th-90th
    percentiles) of what a warning rule can read, in the test sets ``method`` missed
    against those it covered (scripts/data/cllr_sweep_s11_10_50.json: the 10 / 50 designs
    of the seed-30 run, with Welch and Satterthwaite's degrees of freedom)."""
    names = ("estimate", "gamma", "neff_pos", "df")
    lines = ["\n## misses against covers (median [10th, 90th percentile])\n",
             "| design | truth | coverage | truth above | "
             + " | ".join(f"{n}: missed / covered" for n in names) + " |",
             "|" + "---|" * (4 + len(names))]  # fmt: skip
    for r in doc["cells"]:
        d = r.get("diagnostics", {})
        if f"covered_{method}" not in d or "df" not in d:
            continue
        cov = np.asarray(d[f"covered_{method}"]) > 0.5

        def q(v: np.ndarray) -> str:
            a = np.nanpercentile(v, [50, 10, 90]) if len(v) else [math.nan] * 3
            return f"{a[0]:.3g} [{a[1]:.3g}, {a[2]:.3g}]"

        cols = " | ".join(
            f"{q(np.asarray(d[n], dtype=float)[~cov])} / {q(np.asarray(d[n], dtype=float)[cov])}"
            for n in names
        )
        m = r["methods"][method]
        lines.append(
            f"| {r['targets']}/{r['nontargets']} AUC {r['auc']} c {r['c']} | {r['truth']:.4f} | "
            f"{m['coverage']:.3f} | {m['truth_above']:.3f} | {cols} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", required=True)
    p.add_argument("--reps", type=int, default=200, help="test sets per actual-Cllr cell")
    p.add_argument("--min-reps", type=int, default=80, help="test sets per minimum-Cllr cell")
    p.add_argument("-B", "--resamples", type=int, default=1000)
    p.add_argument("--min-resamples", type=int, default=400)
    p.add_argument("--kind", choices=("actual", "min", "both"), default="both")
    p.add_argument("--report", action="store_true")
    p.add_argument("--seed", type=int, default=20, help="actual Cllr: 20 session 9, 30 session 10")
    p.add_argument("--max-t", type=float, default=MAX_T, help="auto_s10's bound on |t*|")
    p.add_argument("--targets", type=int, nargs="*", help="only these numbers of targets")
    p.add_argument("--design", action="append", help="only targets,ratio,auc,c (repeatable)")
    p.add_argument("--pool", nargs="*", help="--report: pool the warning rules with these runs")
    p.add_argument("--merge", nargs="*", help="add the cells of these JSON files (parallel runs)")
    p.add_argument("--misses", action="store_true", help="--report: misses against covers")
    p.add_argument(
        "--compact",
        action="store_true",
        help="write the cells without per-test-set diagnostics (what the reports read)",
    )
    args = p.parse_args(argv)
    path = Path(args.json)
    doc = json.loads(path.read_text()) if path.exists() else {"cells": []}

    def save(cells: list[dict], t0: float) -> None:
        doc.update(
            cells=cells,
            environment={
                "script": "scripts/cllr_sweep.py",
                "argv": sys.argv[1:] if argv is None else argv,
                "cpu_seconds": round(time.process_time() - t0, 1),
                "numpy": np.__version__,
            },
        )
        path.write_text(json.dumps(doc, separators=(",", ":")) + "\n")

    if args.compact and args.report:
        # rewrite the file compact (the reports print the same numbers from it)
        doc["cells"] = [compact(c) for c in doc["cells"]]
        doc["compacted"] = "per-test-set diagnostics dropped by --compact (session 11)"
        path.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    if args.merge:
        parts = [json.loads(Path(f).read_text()) for f in args.merge]
        doc["cells"] = [c for d in parts for c in d["cells"]]
        doc["environment"] = {"merged": args.merge, "runs": [d["environment"] for d in parts]}
        path.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    elif not args.report:
        t0 = time.process_time()
        redo = set(args.targets or TARGETS)
        cells: list[dict] = [
            c
            for c in doc["cells"]
            if args.kind not in ("both", c["kind"]) or c["targets"] not in redo
        ]
        if args.kind in ("actual", "both"):
            for t in args.targets or TARGETS:
                for ratio in RATIOS:
                    if t * (1 + ratio) > MAX_TRIALS:
                        continue
                    for auc in AUCS:
                        for c in SCALES:
                            if args.design and f"{t},{ratio},{auc},{c}" not in args.design:
                                continue
                            r = run_actual(
                                t, ratio, auc, c, args.reps, args.resamples, args.seed, args.max_t
                            )
                            r["seed"] = args.seed
                            cells.append(r)
                            save(cells, t0)
                            cov = {m: round(v["coverage"], 3) for m, v in r["methods"].items()}
                            print(
                                f"actual {t}/{ratio * t} auc {auc} c {c}: {cov}",
                                file=sys.stderr,
                                flush=True,
                            )
        if args.kind in ("min", "both"):
            for t in MIN_TARGETS:
                for ratio in RATIOS:
                    if t * (1 + ratio) > MAX_TRIALS:
                        continue
                    for auc in AUCS:
                        r = run_min(t, ratio, auc, args.min_reps, args.min_resamples)
                        cells.append(r)
                        save(cells, t0)
                        cov = {m: round(v["coverage"], 3) for m, v in r["methods"].items()}
                        print(f"min {t}/{ratio * t} auc {auc}: {cov}", file=sys.stderr, flush=True)
        save(cells, t0)
    print(report(doc))
    if any("auto_s10" in c.get("methods", {}) for c in doc["cells"]):
        print(report_s10(doc))
    if args.misses:
        print(misses_report(doc))
    if args.pool:
        print(report_pooled([doc, *(json.loads(Path(f).read_text()) for f in args.pool)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
