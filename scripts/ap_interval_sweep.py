"""Average precision's intervals with 20-300 positives, iid and over conditions (issue 20).

Why ``auto`` (BCa) of average precision falls a little short with about 50 positives, and
whether another interval holds there: on binormal scores (positives ``delta`` above the
negatives, equal spreads, ``delta`` set for the population AP), iid or over conditions
that shift all their scores by a normal effect (ICC ``s^2 / (1 + s^2)`` of the latent
score; the marginal scores stay binormal with separation ``delta / sqrt(1 + s^2)``, whose
AP is the truth), each test set's 95% intervals:

* ``auto``: :func:`mlci.bootstrap_ci` (BCa), and ``percentile`` re-read from its replicates;
* ``logit_boyd``: Boyd, Eng & Page (2013), ``logit(AP) +- z / sqrt(n_pos AP (1 - AP))``;
* ``binomial_boyd``: ``AP +- z sqrt(AP (1 - AP) / n_pos)`` (their binomial interval);
* ``logit_jack``: ``logit(AP) +- q se_J / (AP (1 - AP))`` with the jackknife standard
  error ``se_J`` (delete-one sample iid, ``q`` normal; delete-one condition over
  conditions, ``q`` of t with C - 1 degrees of freedom);
* ``boot_t_logit``: a bootstrap-t on the logit scale, each replicate studentized by Boyd's
  standard error at its own AP and positive count (iid only; B = 500 of the script's own).

Also the spread of the estimates over test sets (``sd_true``) against the mean standard
errors (bootstrap, jackknife, Boyd's), and the estimates' mean bias.

Usage::

    PYTHONPATH=src nice -n 15 python scripts/ap_interval_sweep.py iid 200 \
        scripts/data/ap_interval_sweep_iid.json
    PYTHONPATH=src nice -n 15 python scripts/ap_interval_sweep.py clustered 200 \
        scripts/data/ap_interval_sweep_clustered.json
    PYTHONPATH=src nice -n 15 python scripts/ap_interval_sweep.py iid10 150 \
        scripts/data/ap_interval_sweep_iid10.json
    PYTHONPATH=src nice -n 15 python scripts/ap_interval_sweep.py t3 150 \
        scripts/data/ap_interval_sweep_t3.json
    PYTHONPATH=src nice -n 15 python scripts/ap_interval_sweep.py closed 1000 \
        scripts/data/ap_interval_sweep_closed.json

(``iid`` was stopped after its 20-positive cells on the shared machine; ``iid10`` holds 50
and 100 positives at prevalence 0.1.  ``closed``: the intervals without replicates alone
on 1,000 test sets a cell, normal, logistic and t(3) scores: :func:`closed_form`.)
"""

from __future__ import annotations

import json
import sys
import warnings
from typing import Any

import numpy as np
from scipy.integrate import quad
from scipy.optimize import brentq
from scipy.special import expit, logit
from scipy.stats import norm, t

import mlci

Z = float(norm.ppf(0.975))


def population_ap(shift: float, prevalence: float, dist: Any = norm) -> float:
    """The population AP of scores ``dist`` (negatives) and ``dist`` + ``shift``
    (positives): the expected precision at a positive's score."""

    def f(s: float) -> float:
        tp, fp = prevalence * dist.sf(s - shift), (1 - prevalence) * dist.sf(s)
        den = tp + fp
        return float(dist.pdf(s - shift) * tp / den) if den > 0 else 0.0  # (pdf 0 there)

    return float(quad(f, shift - 60, shift + 60, limit=400, points=[0.0, shift])[0])


def shift_for(ap: float, prevalence: float, dist: Any = norm) -> float:
    """The separation whose population AP is ``ap``."""
    return float(brentq(lambda d: population_ap(d, prevalence, dist) - ap, 0.0, 40.0))


def ap_weighted(pos: np.ndarray, w: np.ndarray) -> np.ndarray:
    """AP of samples sorted by decreasing score (distinct), each weighed by ``w`` (b, n)."""
    tp = np.cumsum(w * pos, axis=1)
    tot = np.cumsum(w, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        prec = np.where(w > 0, tp / np.maximum(tot, 1e-300), 0.0)
        return (w * pos * prec).sum(axis=1) / tp[:, -1]


def jackknife_iid(pos: np.ndarray) -> np.ndarray:
    """Delete-one AP values (samples sorted by decreasing score, no ties), in O(n)."""
    r = np.flatnonzero(pos) + 1.0  # ranks of the positives
    p = len(r)
    k = np.arange(1, p + 1, dtype=float)
    a = k / r
    b = np.where(r > 1, (k - 1) / np.maximum(r - 1, 1), 0.0)
    c = k / np.maximum(r - 1, 1)
    ca, cb, cc = (np.concatenate(([0.0], np.cumsum(v))) for v in (a, b, c))
    # delete the j-th positive: those above unchanged, those below (k-1)/(r-1)
    del_pos = (ca[:-1] + (cb[-1] - cb[1:])) / (p - 1)
    # delete a negative with m positives above it: those below it k/(r-1)
    neg = np.flatnonzero(~pos)
    m = np.searchsorted(r, neg + 1.0)
    del_neg = (ca[m] + (cc[-1] - cc[m])) / p
    return np.concatenate([del_pos, del_neg])


def jack_se(values: np.ndarray) -> float:
    n = len(values)
    return float(np.sqrt((n - 1) / n * np.sum((values - values.mean()) ** 2)))


def draw(cell: dict[str, Any], g: np.random.Generator) -> tuple[Any, ...]:
    n, prev, delta = cell["n"], cell["prevalence"], cell["delta"]
    sizes = cell.get("sizes")
    if sizes is None:
        y = g.random(n) < prev
        if cell.get("shape") == "t3":  # heavy tails (t with 3 degrees of freedom)
            return y, t(3).rvs(size=n, random_state=g) + delta * y, None
        s = g.standard_normal(n) + delta * y
        return y, s, None
    cond = np.repeat(np.arange(len(sizes)), sizes)
    y = g.random(len(cond)) < prev
    sd = np.sqrt(cell["icc"] / (1 - cell["icc"]))
    # the latent separation scaled so that the marginal scores' separation is ``delta``
    s = g.standard_normal(len(cond)) + delta * np.sqrt(1 + sd**2) * y
    s = s + sd * g.standard_normal(len(sizes))[cond]
    return y, s, cond


def one(cell: dict[str, Any], g: np.random.Generator, seed: int, b: int) -> dict[str, Any]:
    y, s, cond = draw(cell, g)
    order = np.argsort(-s, kind="stable")
    pos = y[order]
    npos = int(pos.sum())
    if npos < 2:
        return {}
    ap = float(ap_weighted(pos, np.ones((1, len(pos))))[0])
    kw: dict[str, Any] = {"metric": "average_precision", "n_resamples": b, "rng": seed}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mlci.bootstrap_ci(y.astype(int), s, conditions=cond, **kw)
    out: dict[str, Any] = {"npos": npos, "est": ap, "method": res.method}
    out["warned"] = any(issubclass(w.category, mlci.MlciWarning) for w in caught)
    out["icc_hat"] = res.diagnostics.get("negative_score_icc")
    out["auto"] = tuple(map(float, res.confidence_interval))
    out["percentile"] = tuple(map(float, res.interval(method="percentile").confidence_interval))
    out["se_boot"] = float(np.nanstd(np.asarray(res.bootstrap_distribution)))
    lo = np.clip(ap, 1e-9, 1 - 1e-9)
    lg = float(logit(lo))
    tau = 1.0 / np.sqrt(npos * lo * (1 - lo))
    out["logit_boyd"] = (float(expit(lg - Z * tau)), float(expit(lg + Z * tau)))
    half = Z * np.sqrt(lo * (1 - lo) / npos)
    out["binomial_boyd"] = (max(ap - half, 0.0), min(ap + half, 1.0))
    out["se_boyd"] = float(np.sqrt(lo * (1 - lo) / npos))
    if cond is None:
        se_j, q = jack_se(jackknife_iid(pos)), Z
        # bootstrap-t on the logit scale, Boyd's standard error per replicate
        w = g.multinomial(len(pos), np.full(len(pos), 1.0 / len(pos)), size=500).astype(float)
        rep = ap_weighted(pos, w)
        npos_r = (w * pos).sum(axis=1)
        rep = np.clip(rep, 1e-9, 1 - 1e-9)
        tstat = (logit(rep) - lg) * np.sqrt(npos_r * rep * (1 - rep))
        tstat = tstat[np.isfinite(tstat)]
        q_lo, q_hi = np.quantile(tstat, [0.975, 0.025])
        out["boot_t_logit"] = (float(expit(lg - q_lo * tau)), float(expit(lg - q_hi * tau)))
    else:
        cond_o = cond[order]
        vals = []
        for c in np.unique(cond_o):
            keep = cond_o != c
            if pos[keep].sum() == 0:
                continue
            vals.append(ap_weighted(pos[keep], np.ones((1, int(keep.sum()))))[0])
        se_j, q = jack_se(np.asarray(vals)), float(t.ppf(0.975, len(vals) - 1))
    out["se_jack"] = se_j
    d = q * se_j / (lo * (1 - lo))
    out["logit_jack"] = (float(expit(lg - d)), float(expit(lg + d)))
    return out


METHODS = ("auto", "percentile", "logit_boyd", "binomial_boyd", "logit_jack", "boot_t_logit")


def summary(cell: dict[str, Any], rows: list[dict[str, Any]], truth: float) -> dict[str, Any]:
    rows = [r for r in rows if r]
    est = np.array([r["est"] for r in rows])
    bca_w = np.median([r["auto"][1] - r["auto"][0] for r in rows])
    out: dict[str, Any] = {k: v for k, v in cell.items() if k != "sizes"}
    out.update(
        truth=truth, test_sets=len(rows), mean_positives=float(np.mean([r["npos"] for r in rows]))
    )
    out["bias"] = float(est.mean() - truth)
    out["sd_true"] = float(est.std(ddof=1))
    for k in ("se_boot", "se_jack", "se_boyd"):
        out[f"mean_{k}"] = float(np.mean([r[k] for r in rows]))
    out["warned"] = float(np.mean([r["warned"] for r in rows]))
    if rows[0]["icc_hat"] is not None:
        out["median_icc_hat"] = float(np.median([r["icc_hat"] for r in rows]))
    for m in METHODS:
        if m not in rows[0]:
            continue
        iv = np.array([r[m] for r in rows])
        out[f"cov_{m}"] = float(np.mean((iv[:, 0] <= truth) & (truth <= iv[:, 1])))
        out[f"above_{m}"] = float(np.mean(iv[:, 0] > truth))  # misses with the interval above
        out[f"width_{m}"] = float(np.median(iv[:, 1] - iv[:, 0]) / bca_w)
    return out


def cells(which: str) -> list[dict[str, Any]]:
    out = []
    if which == "t3":  # the closed-form cells where the logit jackknife fell short, with BCa
        for npos, ap in ((20, 0.7), (20, 0.8), (50, 0.8), (50, 0.9), (100, 0.9)):
            out.append({"design": "iid", "shape": "t3", "n": 10 * npos, "prevalence": 0.1,
                        "ap": ap, "positives": npos})  # fmt: skip
        return out
    if which == "iid10":  # prevalence 0.1 (fewer negatives: quicker), 50 and 100 positives
        for npos in (50, 100):
            for ap in (0.7, 0.8, 0.9, 0.96):
                out.append({"design": "iid", "n": 10 * npos, "prevalence": 0.1, "ap": ap,
                            "positives": npos})  # fmt: skip
        return out
    if which == "iid":
        for npos in (20, 50, 100, 300):
            for ap in (0.6, 0.8, 0.9, 0.96, 0.99):
                prev = 0.03
                out.append({"design": "iid", "n": round(npos / prev), "prevalence": prev,
                            "ap": ap, "positives": npos})  # fmt: skip
        return out
    g = np.random.default_rng(42)
    share = g.lognormal(0, 0.75, 42) / np.exp(0.75**2 / 2)
    unequal = np.maximum(1, np.round(share * 41.6)).astype(int)
    designs = [("42 unequal", unequal), ("100 equal", np.full(100, 17))]
    for name, sizes in designs:
        for icc in (0.0, 0.05, 0.1, 0.15, 0.3):
            for prev in (0.03, 0.118):
                for ap in (0.96, 0.8):
                    if name == "100 equal" and ap == 0.8:
                        continue
                    out.append({"design": name, "sizes": sizes, "n": int(sizes.sum()), "icc": icc,
                                "kish": float(sizes.sum() ** 2 / np.sum(sizes**2)),
                                "prevalence": prev, "ap": ap})  # fmt: skip
    return out


def closed_form(reps: int, path: str) -> None:
    """The intervals without replicates (Boyd's two, the logit jackknife) on many test
    sets: iid, 20-300 positives, AP 0.6-0.9, prevalence 0.03, scores normal or t with 3
    degrees of freedom (heavy tails, the positives shifted)."""
    from scipy.stats import logistic

    results = []
    for shape, dist in (("binormal", norm), ("t3", t(3)), ("logistic", logistic)):
        for npos in (20, 50, 100, 300):
            for ap in (0.6, 0.7, 0.8, 0.9, 0.96):
                prev = 0.03
                n = round(npos / prev)
                delta = shift_for(ap, prev, dist)
                g = np.random.default_rng(
                    [20, 11, npos, int(100 * ap), ("binormal", "t3", "logistic").index(shape)]
                )
                cov: dict[str, list[bool]] = {
                    k: [] for k in ("logit_boyd", "binomial_boyd", "logit_jack")
                }
                wid: dict[str, list[float]] = {k: [] for k in cov}
                est, sej = [], []
                for _ in range(reps):
                    y = g.random(n) < prev
                    if y.sum() < 2:
                        continue
                    sc = dist.rvs(size=n, random_state=g) + delta * y
                    pos = y[np.argsort(-sc, kind="stable")]
                    a = float(ap_weighted(pos, np.ones((1, n)))[0])
                    npos_i = int(pos.sum())
                    c = min(max(a, 1e-9), 1 - 1e-9)
                    lg = float(logit(c))
                    tau = 1.0 / np.sqrt(npos_i * c * (1 - c))
                    se = jack_se(jackknife_iid(pos))
                    half = Z * np.sqrt(c * (1 - c) / npos_i)
                    ivs = {
                        "logit_boyd": (expit(lg - Z * tau), expit(lg + Z * tau)),
                        "binomial_boyd": (a - half, a + half),
                        "logit_jack": (
                            expit(lg - Z * se / (c * (1 - c))),
                            expit(lg + Z * se / (c * (1 - c))),
                        ),
                    }
                    for k, (lo, hi) in ivs.items():
                        cov[k].append(lo <= ap <= hi)
                        wid[k].append(min(hi, 1.0) - max(lo, 0.0))
                    est.append(a)
                    sej.append(se)
                row = {"shape": shape, "positives": npos, "ap": ap, "delta": delta,
                       "test_sets": len(est), "sd_true": float(np.std(est, ddof=1)),
                       "mean_se_jack": float(np.mean(sej)),
                       "rms_se_jack": float(np.sqrt(np.mean(np.square(sej)))),
                       "se_boyd_at_truth": float(np.sqrt(ap * (1 - ap) / npos))}  # fmt: skip
                row.update({f"cov_{k}": float(np.mean(v)) for k, v in cov.items()})
                row.update({f"width_{k}": float(np.median(v)) for k, v in wid.items()})
                print(
                    json.dumps(
                        {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}
                    ),
                    flush=True,
                )
                results.append(row)
                with open(path, "w") as f:
                    json.dump(results, f, indent=1)


def main(which: str, reps: int, path: str, only: str | None = None) -> None:
    results = []
    for i, cell in enumerate(cells(which)):
        if only is not None and str(i) not in only.split(","):
            continue
        cell["delta"] = shift_for(cell["ap"], cell["prevalence"], t(3) if "shape" in cell else norm)
        g = np.random.default_rng([20, 10, i])
        rows = [one(cell, g, r, 500) for r in range(reps)]
        s = summary(cell, rows, cell["ap"])
        s["cell"] = i
        print(
            json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in s.items()}),
            flush=True,
        )
        results.append(s)
        with open(path, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    if sys.argv[1] == "closed":
        closed_form(int(sys.argv[2]), sys.argv[3])
        sys.exit()
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
