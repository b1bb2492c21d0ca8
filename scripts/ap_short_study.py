"""Average precision at 0.8-0.9 with heavy-tailed and logistic scores (session 12, apshort).

Issue 20's last unwarned shortfalls of ``auto``'s average precision (AP) interval (the
logit jackknife, engine/ap_interval.py): t(3) scores at AP 0.8 (0.82 and 0.913 in session
11's ``scripts/ap_fix_study.py``) and logistic scores at AP 0.8-0.9 (0.92-0.947).  Each
test set (iid, prevalence 0.1, positives ``delta`` above the negatives with ``delta`` set
for the population AP of the score family; ``scripts/ap_interval_sweep.py``'s
:func:`population_ap`) is run through :func:`mlci.bootstrap_ci` (``method="auto"``,
B = 500) as a user would, and the same test set gets the candidate intervals:

* ``auto`` (its interval, method and whether mlci warned), ``bca`` re-read from the same
  replicates;
* ``lj``: the logit jackknife recomputed here (exact delete-one, :func:`jackknife_weighted`;
  equal to ``auto``'s where ``auto`` gives it), ``lj_t``: the same with Student's quantile
  on ``n_pos - 1`` degrees of freedom;
* ``boot_t``: a studentized bootstrap on the logit scale, each of B = 500 replicates (this
  script's own) studentized by its own exact delete-one jackknife standard error;
* ``union``: the hull of BCa and the logit jackknife (a hybrid rule's widest choice);
* ``boyd``: Boyd, Eng & Page (2013), ``expit(logit(AP) +- z / sqrt(n_pos AP (1 - AP)))``;

and the statistics a warning rule could read: the positives outranked by some negative,
the sample's ROC AUC, the excess kurtosis of each class's scores (not invariant under a
monotone transform of the scores: a diagnostic, see ``rules``).

Score families: ``normal``, ``logistic``, ``t3`` (t with 3 degrees of freedom) and
``beta`` (Beta(2, 2) shifted: bounded, light tails).

Usage (cells by index, comma separated, to split the run; the stored runs used main's
code at 3e9ea9c, before the near-top rule, so that ``warned`` records main's warnings and
``warnings`` adds the rule: ``PYTHONPATH=<checkout of 3e9ea9c>/src``)::

    PYTHONPATH=src nice -n 15 python scripts/ap_short_study.py run 300 \
        scripts/data/ap_short_study_a.json [cells]
    python scripts/ap_short_study.py tables 'scripts/data/ap_short_study_*.json'
    python scripts/ap_short_study.py rules 'scripts/data/ap_short_study_*.json'
    python scripts/ap_short_study.py warnings 'scripts/data/ap_short_study_*.json'
    PYTHONPATH=src python scripts/ap_short_study.py fingerprint \
        scripts/data/ap_short_fingerprint.json  # on main (3e9ea9c), before the rule

``rules``: ``auto``'s interval widened to hold Boyd's (:func:`floored`) and a raw-score
kurtosis warning (:func:`kurtosis_rule`); ``warnings``: main's warnings and with the
near-top rule (:func:`near_top_rule`).
"""

from __future__ import annotations

import glob
import json
import sys
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import expit, logit
from scipy.stats import beta, kurtosis, logistic, norm, t

import mlci
from mlci.engine.ap_misranked import misranked_positive_diagnostics
from mlci.metrics.ranking import AveragePrecisionKernel

Z = float(norm.ppf(0.975))
B = 500
PREVALENCE = 0.1
DISTS: dict[str, Any] = {
    "normal": norm,
    "logistic": logistic,
    "t3": t(3),
    "beta": beta(2, 2),
}


def compact(x: Any) -> Any:
    """``x`` with its floats to 5 significant digits."""
    if isinstance(x, float):
        return float(f"{x:.5g}")
    if isinstance(x, dict):
        return {k: compact(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [compact(v) for v in x]
    return x


def population_ap(shift: float, dist: Any) -> float:
    """The population AP of scores ``dist`` (negatives) and ``dist + shift`` (positives)
    at :data:`PREVALENCE`: the expected precision at a positive's score."""

    def f(s: float) -> float:
        tp, fp = PREVALENCE * dist.sf(s - shift), (1 - PREVALENCE) * dist.sf(s)
        den = tp + fp
        return float(dist.pdf(s - shift) * tp / den) if den > 0 else 0.0

    lo, hi = dist.support()
    if np.isfinite(lo):  # bounded (beta): the positives' support
        return float(quad(f, lo + shift, hi + shift, limit=400, points=[hi])[0])
    return float(quad(f, shift - 60, shift + 60, limit=400, points=[0.0, shift])[0])


@cache
def shift_for(ap: float, shape: str) -> float:
    """The separation whose population AP is ``ap``."""
    dist = DISTS[shape]
    return float(brentq(lambda d: population_ap(d, dist) - ap, 0.0, 40.0, xtol=1e-10))


def cells() -> list[dict[str, Any]]:
    """The brief's short cells first (t(3) and logistic at AP 0.8-0.9, 20-100 positives),
    then the held grid (AP 0.3-0.99, 50 positives, four score families)."""
    out = []
    for shape in ("t3", "logistic", "normal", "beta"):
        for ap in (0.8, 0.9):
            for npos in (20, 50, 100):
                out.append({"shape": shape, "ap": ap, "positives": npos})
    for shape in ("t3", "logistic", "normal", "beta"):
        for ap in (0.3, 0.5, 0.96, 0.99):
            out.append({"shape": shape, "ap": ap, "positives": 50})
    for c in out:
        c["prevalence"] = PREVALENCE
        c["n"] = round(c["positives"] / PREVALENCE)
    return out


def ap_weighted(pos: np.ndarray, w: np.ndarray) -> np.ndarray:
    """AP of samples sorted by decreasing score (distinct), each weighed by ``w`` (b, n)."""
    tp = np.cumsum(w * pos, axis=1)
    tot = np.cumsum(w, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.where(w > 0, tp / np.maximum(tot, 1e-300), 0.0)
        return (w * pos * prec).sum(axis=1) / tp[:, -1]


def jackknife_weighted(pos: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Exact delete-one AP values of each atom (one copy deleted), rows of weights ``w``
    (b, n) over samples sorted by decreasing score (distinct): O(n) a row.

    Deleting a copy of atom ``j`` lowers the cumulative weight ``W_i`` of every atom from
    ``j`` on by one, and their true positives ``TP_i`` by ``y_j``."""
    pos = pos.astype(float)
    tp = np.cumsum(w * pos, axis=1)
    tot = np.cumsum(w, axis=1)
    p = tp[:, -1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        term = np.where(w > 0, w * pos * tp / np.maximum(tot, 1e-300), 0.0)
        d = tot - 1.0
        t0 = np.where((w > 0) & (d > 0), w * pos * tp / np.where(d > 0, d, 1.0), 0.0)
        t1 = np.where((w > 0) & (d > 0), w * pos * (tp - 1.0) / np.where(d > 0, d, 1.0), 0.0)
    before = np.cumsum(term, axis=1) - term  # sum over i < j
    suf0 = np.cumsum(t0[:, ::-1], axis=1)[:, ::-1]  # sum over i >= j
    suf1 = np.cumsum(t1[:, ::-1], axis=1)[:, ::-1]
    after1 = suf1 - t1  # sum over i > j
    with np.errstate(invalid="ignore", divide="ignore"):
        own = np.where((w > 1) & (d > 0), (w - 1.0) * (tp - 1.0) / np.where(d > 0, d, 1.0), 0.0)
        v_neg = (before + suf0) / p
        v_pos = (before + own + after1) / (p - 1.0)
    return np.where(pos > 0, v_pos, v_neg)


def jack_se_rows(values: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The jackknife standard error of each row (multiplicities ``w``)."""
    n = w.sum(axis=1)
    mean = (w * values).sum(axis=1) / n
    return np.sqrt((n - 1) / n * (w * (values - mean[:, None]) ** 2).sum(axis=1))


def logit_iv(est: float, se_logit: float, q: float) -> list[float]:
    return [float(expit(logit(est) - q * se_logit)), float(expit(logit(est) + q * se_logit))]


def one(cell: dict[str, Any], g: np.random.Generator, seed: int) -> dict[str, Any]:
    n, dist = cell["n"], DISTS[cell["shape"]]
    y = g.random(n) < PREVALENCE
    s = dist.rvs(size=n, random_state=g) + shift_for(cell["ap"], cell["shape"]) * y
    npos = int(y.sum())
    if npos < 3:
        return {}
    kw: dict[str, Any] = {"metric": "average_precision", "n_resamples": B, "rng": seed}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mlci.bootstrap_ci(y.astype(int), s, **kw)
    est = float(np.asarray(res.estimate))
    warned = sorted(
        {type(w.message).__name__ for w in caught if issubclass(w.category, mlci.MlciWarning)}
    )
    out: dict[str, Any] = {"npos": npos, "est": est, "method": res.method}
    out["warned"] = ",".join(warned)
    out["auto"] = [float(v) for v in res.confidence_interval]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bca = [float(v) for v in res.interval(method="bca").confidence_interval]
    out["bca"] = bca
    k = AveragePrecisionKernel(y.astype(int), s)
    out.update(misranked_positive_diagnostics(k, np.bincount(k.keys, minlength=k.m)))
    r = np.argsort(np.argsort(s)) + 1.0
    out["auc"] = float((r[y].sum() - npos * (npos + 1) / 2) / (npos * (n - npos)))
    out["kurt_neg"] = float(kurtosis(s[~y]))
    out["kurt_pos"] = float(kurtosis(s[y]))
    if not 0.0 < est < 1.0:
        return out
    order = np.argsort(-s, kind="stable")
    pos = y[order]
    ones = np.ones((1, n))
    se = float(jack_se_rows(jackknife_weighted(pos, ones), ones)[0])
    se_l = se / (est * (1 - est))
    out["lj"] = logit_iv(est, se_l, Z)
    out["lj_t"] = logit_iv(est, se_l, float(t.isf(0.025, npos - 1)))
    tau = 1.0 / np.sqrt(npos * est * (1 - est))
    out["boyd"] = logit_iv(est, tau, Z)
    out["union"] = [min(bca[0], out["lj"][0]), max(bca[1], out["lj"][1])]
    # the studentized bootstrap on the logit scale (its own replicates)
    gb = np.random.default_rng([seed, 12])
    wts = gb.multinomial(n, np.full(n, 1.0 / n), size=B).astype(float)
    ap_b = ap_weighted(pos, wts)
    with np.errstate(invalid="ignore", divide="ignore"):
        se_b = jack_se_rows(jackknife_weighted(pos, wts), wts) / (ap_b * (1 - ap_b))
        tb = (logit(ap_b) - logit(est)) / se_b
    tb = tb[np.isfinite(tb)]
    if tb.size >= 100:
        hi_q, lo_q = np.quantile(tb, [0.975, 0.025])
        out["boot_t"] = [
            float(expit(logit(est) - hi_q * se_l)),
            float(expit(logit(est) - lo_q * se_l)),
        ]
    return out


METHODS = ("auto", "bca", "lj", "lj_t", "boot_t", "union", "boyd")


def summary(cell: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    rows = [r for r in rows if r]
    truth = cell["ap"]
    out: dict[str, Any] = dict(cell)
    out["truth_check"] = population_ap(shift_for(cell["ap"], cell["shape"]), DISTS[cell["shape"]])
    out["test_sets"] = len(rows)
    est = np.array([r["est"] for r in rows])
    out["bias"] = float(est.mean() - truth)
    out["sd"] = float(est.std(ddof=1))
    warned = np.array([bool(r["warned"]) for r in rows])
    out["warned"] = float(warned.mean())
    bca_w = float(np.median([r["bca"][1] - r["bca"][0] for r in rows]))
    for m in METHODS:
        # a test set without the interval (AP 0 or 1): a miss
        iv = np.array([r.get(m, [np.nan, np.nan]) for r in rows])
        cov = (iv[:, 0] <= truth) & (truth <= iv[:, 1])
        out[f"cov_{m}"] = float(cov.mean())
        out[f"above_{m}"] = float(np.mean(iv[:, 0] > truth))
        width = np.nanmedian(iv[:, 1] - iv[:, 0])
        out[f"width_{m}"] = float(width / bca_w) if bca_w > 0 else None
        if m == "auto":
            out["misses_warned"] = float(warned[~cov].mean()) if (~cov).any() else None
            out["cov_auto_unwarned"] = float(cov[~warned].mean()) if (~warned).any() else None
    out["methods"] = {m: sum(r["method"] == m for r in rows) for m in {r["method"] for r in rows}}
    out["rows"] = rows
    return compact(out)


def run(reps: int, path: str, only: str | None) -> None:
    todo = cells()
    idx = range(len(todo)) if only is None else [int(i) for i in only.split(",")]
    results = []
    for i in idx:
        cell = todo[i]
        rows = []
        for rep in range(reps):
            seed = 120_000 + 1_000 * i + rep
            rows.append(one(cell, np.random.default_rng(seed), seed))
        summ = summary(cell, rows)
        results.append(summ)
        print(
            {k: summ[k] for k in ("shape", "ap", "positives", "bias", "warned")},
            {m: (summ[f"cov_{m}"], summ[f"width_{m}"]) for m in METHODS},
            flush=True,
        )
        Path(path).write_text(json.dumps(results))


def load(paths: list[str]) -> list[dict[str, Any]]:
    """The stored cells, each once (a cell run by two processes has the same seeds), in
    :func:`cells`' order."""
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    for p in paths:
        for q in sorted(glob.glob(p)):
            for c in json.loads(Path(q).read_text()):
                found.setdefault((c["shape"], c["ap"], c["positives"]), c)
    order = [(c["shape"], c["ap"], c["positives"]) for c in cells()]
    return [found[k] for k in order if k in found]


def tables(paths: list[str]) -> None:
    """The coverage table of docs/validation.md (session 12, apshort)."""
    print(
        "| scores | AP | positives | auto | BCa | lj_t | boot_t | union | Boyd | warned "
        "| misses warned | bias / sd |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in load(paths):
        cols = [
            f"{c['cov_auto']:.3f}",
            f"{c['cov_bca']:.3f}",
            *(
                f"{c[f'cov_{m}']:.3f} ({c[f'width_{m}'] or float('nan'):.2f})"
                for m in ("lj_t", "boot_t", "union", "boyd")
            ),
            f"{c['warned']:.2f}",
            "-" if c["misses_warned"] is None else f"{c['misses_warned']:.2f}",
            f"{c['bias'] / c['sd']:+.2f}",
        ]
        print(f"| {c['shape']} | {c['ap']} | {c['positives']} | " + " | ".join(cols) + " |")


def floored(r: dict[str, Any], top: float = 0.9, low: float = 0.0) -> list[float]:
    """``auto``'s interval widened to hold Boyd, Eng & Page's logit interval (the hull of
    the two) where the estimate is within ``[low, top]``; else ``auto``'s.  Where ``auto``
    gave the logit jackknife, its standard error floored at Boyd's binomial one."""
    if not low <= r["est"] <= top or "boyd" not in r:
        return r["auto"]
    return [min(r["auto"][0], r["boyd"][0]), max(r["auto"][1], r["boyd"][1])]


def kurtosis_rule(r: dict[str, Any], limit: float) -> bool:
    """A candidate warning: the negatives' or the positives' excess kurtosis above ``limit``
    (reads the raw scores: not invariant under a monotone transform)."""
    return max(r["kurt_neg"], r["kurt_pos"]) > limit


TOPS = (0.9, 0.93, 0.95)


def near_top_rule(r: dict[str, Any], top: float = 0.9, fewer: int = 50) -> bool:
    """The near-top warning (adopted: ``mlci.engine.ap_misranked.few_positives_near_top_rule``,
    applied here to rows that main's code ran): 10 to ``fewer - 1`` positives and an
    estimate above ``top`` (where ``auto`` keeps BCa below the misranked rule's 0.96 and
    20 positives)."""
    return 10 <= r["npos"] < fewer and r["est"] > top


def warning_table(paths: list[str]) -> None:
    """mlci's warnings as they are, and with :func:`near_top_rule` added."""
    print(
        "| scores | AP | positives | auto | warned | misses warned | unwarned cov "
        "| + near top: warned | misses warned | unwarned cov |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in load(paths):
        rows = [r for r in c["rows"] if r]
        truth = c["ap"]
        cov = np.array([r["auto"][0] <= truth <= r["auto"][1] for r in rows])
        now = np.array([bool(r["warned"]) for r in rows])
        new = now | np.array([near_top_rule(r) for r in rows])
        cols = [f"{cov.mean():.3f}"]
        for w in (now, new):
            mw = f"{w[~cov].mean():.2f}" if (~cov).any() else "-"
            uc = f"{cov[~w].mean():.3f}" if (~w).any() else "-"
            cols += [f"{w.mean():.2f}", mw, uc]
        print(f"| {c['shape']} | {c['ap']} | {c['positives']} | " + " | ".join(cols) + " |")


def rules(paths: list[str]) -> None:
    """The floored interval and the kurtosis warning on the stored test sets."""
    print(
        "| scores | AP | positives | auto | "
        + " | ".join(f"floored to {top:g} (width / BCa)" for top in TOPS)
        + " | floor applied | "
        "kurt>3: warned, misses warned | kurt>6 |"
    )
    print("|---|---|---:|---:|" + "---:|" * len(TOPS) + "---:|---:|---:|")
    for c in load(paths):
        rows = [r for r in c["rows"] if r]
        truth = c["ap"]
        bca_w = np.median([r["bca"][1] - r["bca"][0] for r in rows])
        cov = np.array([r["auto"][0] <= truth <= r["auto"][1] for r in rows])
        fls = []
        for top in TOPS:
            fl = np.array([floored(r, top) for r in rows])
            cov_f = (fl[:, 0] <= truth) & (truth <= fl[:, 1])
            wid = np.median(fl[:, 1] - fl[:, 0]) / bca_w
            fls.append(f"{cov_f.mean():.3f} ({wid:.2f})")
        applied = np.mean([floored(r, TOPS[0]) != r["auto"] for r in rows])
        out = []
        for limit in (3.0, 6.0):
            w = np.array([kurtosis_rule(r, limit) for r in rows])
            mw = w[~cov].mean() if (~cov).any() else float("nan")
            out.append(f"{w.mean():.2f}, {mw:.2f}")
        print(
            f"| {c['shape']} | {c['ap']} | {c['positives']} | {cov.mean():.3f} | "
            + " | ".join(fls)
            + " | "
            f"{applied:.2f} | " + " | ".join(out) + " |"
        )


def fingerprint() -> dict[str, list[Any]]:
    """``auto``'s average precision on 36 small test sets (the four score families, AP
    0.5-0.99, 8-120 positives, iid, B = 200): method, interval and the warnings' classes
    and first words, to check that a change to the near-top rule moves nothing else."""
    out: dict[str, list[Any]] = {}
    for shape in DISTS:
        rows = []
        for i, (ap, npos) in enumerate(
            [
                (0.5, 30),
                (0.8, 8),
                (0.8, 15),
                (0.8, 30),
                (0.9, 25),
                (0.9, 60),
                (0.96, 40),
                (0.96, 120),
                (0.99, 25),
            ]
        ):
            g = np.random.default_rng([12, i, len(shape)])
            n = round(npos / PREVALENCE)
            y = (g.random(n) < PREVALENCE).astype(int)
            s = DISTS[shape].rvs(size=n, random_state=g) + shift_for(ap, shape) * y
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = mlci.bootstrap_ci(y, s, metric="average_precision", n_resamples=200, rng=i)
            texts = sorted(
                f"{type(w.message).__name__}: {str(w.message)[:40]}"
                for w in caught
                if issubclass(w.category, mlci.MlciWarning)
            )
            lo, hi = (float(v) for v in res.confidence_interval)
            rows.append([f"{ap}/{int(y.sum())}", res.method, texts, float(res.estimate), lo, hi])
        out[shape] = rows
    return out


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "run":
        run(int(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    elif mode == "tables":
        tables(sys.argv[2:])
    elif mode == "rules":
        rules(sys.argv[2:])
    elif mode == "fingerprint":
        Path(sys.argv[2]).write_text(json.dumps({"cases": fingerprint()}, indent=1))
    elif mode == "warnings":
        warning_table(sys.argv[2:])
    else:
        raise SystemExit(f"unknown mode {mode!r}: run, tables, rules")
