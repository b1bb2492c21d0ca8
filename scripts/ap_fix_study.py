"""Average precision under ``auto``: heavy-tailed scores, few positives near 1 (session 11).

Issue 20's known shortfalls of ``auto``'s average precision interval (docs/validation.md,
"Average precision's interval under auto ..." and "Average precision near 1 with few
misranked positives"): logistic scores at AP 0.96 (the logit jackknife 0.873-0.925 in the
closed-form sweep), t(3) scores (0.80-0.91 at AP 0.8-0.9), AP 0.99 with 20 positives
(about 0.6).  Each test set (iid, positives ``delta`` above the negatives, ``delta`` set
for the population AP of the score family, ``scripts/ap_interval_sweep.py``'s
:func:`shift_for`) is run through :func:`mlci.bootstrap_ci` (``method="auto"``, B = 500)
as a user would, and the row keeps:

* ``auto`` (its interval and method), ``bca`` re-read from the same replicates;
* ``logit_boyd``: Boyd, Eng & Page (2013), ``expit(logit(AP) +- z / sqrt(n_pos AP (1 - AP)))``;
* whether mlci warned, and which rule (``misranked``: engine/ap_misranked.py; ``edge``:
  the near-bound rules; ``other``);
* the diagnostics a warning rule could read: the positives outranked by some negative
  (``misranked``) and the estimate.

Usage (``mode`` ``auto``; cells by index, comma separated, to split the run)::

    PYTHONPATH=src nice -n 15 python scripts/ap_fix_study.py auto 300 \
        scripts/data/ap_fix_study.json [cells]

``paired``: the paired AP difference of :func:`mlci.compare` (two systems whose scores
share the sample's latent score), BCa under ``auto``, and the normal interval of its
standard error, against the truth (the population APs' difference, by one Monte Carlo
draw of 2,000,000 samples)::

    PYTHONPATH=src nice -n 15 python scripts/ap_fix_study.py paired 200 \
        scripts/data/ap_fix_paired.json

``candidates``: closed-form intervals on the same test sets, no replicates (binormal,
logistic, t(3); 20-300 positives; AP 0.8-0.99; :func:`candidates`)::

    PYTHONPATH=src nice -n 15 python scripts/ap_fix_study.py candidates 300 \
        scripts/data/ap_fix_candidates.json

``conditions``: whether the misranked warning should hold over conditions (60
conditions, ICC 0.1, AP 0.97-0.999, B = 300)::

    PYTHONPATH=src nice -n 15 python scripts/ap_fix_study.py conditions 100 \
        scripts/data/ap_fix_conditions.json
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from scipy.special import expit, logit
from scipy.stats import logistic, norm, t

sys.path.insert(0, str(Path(__file__).parent))
from ap_interval_sweep import ap_weighted, shift_for

import mlci
from mlci.engine.ap_misranked import misranked_positive_diagnostics
from mlci.metrics.ranking import AveragePrecisionKernel

Z = float(norm.ppf(0.975))
B = 500
DISTS: dict[str, Any] = {"binormal": norm, "logistic": logistic, "t3": t(3)}


def compact(x: Any) -> Any:
    """``x`` with its floats to 6 significant digits (the JSON kept in scripts/data)."""
    if isinstance(x, float):
        return float(f"{x:.6g}")
    if isinstance(x, dict):
        return {k: compact(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [compact(v) for v in x]
    return x


def cells() -> list[dict[str, Any]]:
    """The failing cells of the brief and, at the same positives, where ``auto`` held."""
    out = []
    spec = [
        ("logistic", 50, 0.96),
        ("logistic", 100, 0.96),
        ("binormal", 50, 0.96),
        ("binormal", 100, 0.96),
        ("t3", 20, 0.8),
        ("t3", 50, 0.9),
        ("t3", 100, 0.96),
        ("binormal", 20, 0.8),
        ("binormal", 50, 0.9),
        ("binormal", 20, 0.99),
        ("logistic", 20, 0.96),
        ("t3", 100, 0.8),
    ]
    for shape, npos, ap in spec:
        prev = 0.1
        out.append(
            {"shape": shape, "positives": npos, "ap": ap, "prevalence": prev, "n": 10 * npos}
        )
    # the brief's prevalence (0.03, the closed-form sweep's): 20 positives at AP 0.99, and
    # logistic scores at AP 0.96 with 50 positives
    for shape, npos, ap in (("binormal", 20, 0.99), ("logistic", 50, 0.96)):
        prev = 0.03
        out.append(
            {
                "shape": shape,
                "positives": npos,
                "ap": ap,
                "prevalence": prev,
                "n": round(npos / prev),
            }
        )
    return out


def tag(caught: list[Any]) -> str:
    """Which of mlci's rules warned: misranked, edge (near-bound/few-class), other, ''."""
    tags = []
    for w in caught:
        if not issubclass(w.category, mlci.MlciWarning):
            continue
        text = str(w.message)
        if "outranked by some negative" in text:
            tags.append("misranked")
        elif issubclass(w.category, mlci.NearBoundWarning):
            tags.append("edge")
        else:
            tags.append("other")
    return ",".join(sorted(set(tags)))


def one(cell: dict[str, Any], g: np.random.Generator, seed: int) -> dict[str, Any]:
    n, prev, delta = cell["n"], cell["prevalence"], cell["delta"]
    dist = DISTS[cell["shape"]]
    y = g.random(n) < prev
    s = dist.rvs(size=n, random_state=g) + delta * y
    npos = int(y.sum())
    if npos < 2:
        return {}
    kw: dict[str, Any] = {"metric": "average_precision", "n_resamples": B, "rng": seed}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mlci.bootstrap_ci(y.astype(int), s, **kw)
    est = float(np.asarray(res.estimate))
    out: dict[str, Any] = {"npos": npos, "est": est, "method": res.method}
    out["warned"] = tag(caught)
    out["auto"] = [float(v) for v in res.confidence_interval]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out["bca"] = [float(v) for v in res.interval(method="bca").confidence_interval]
    k = AveragePrecisionKernel(y.astype(int), s)
    out.update(misranked_positive_diagnostics(k, np.bincount(k.keys, minlength=k.m)))
    c = min(max(est, 1e-9), 1 - 1e-9)
    tau = 1.0 / np.sqrt(npos * c * (1 - c))
    out["logit_boyd"] = [float(expit(logit(c) - Z * tau)), float(expit(logit(c) + Z * tau))]
    # the sample's ROC AUC (a binormal fit's AP from it: scripts' rule check)
    r = np.argsort(np.argsort(s)) + 1.0
    out["auc"] = float((r[y].sum() - npos * (npos + 1) / 2) / (npos * (n - npos)))
    se = res.details.get("jackknife_standard_error")
    out["se_jack"] = None if se is None else float(se)
    return out


def summary(cell: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    rows = [r for r in rows if r]
    truth = cell["ap"]
    out: dict[str, Any] = dict(cell)
    out["test_sets"] = len(rows)
    est = np.array([r["est"] for r in rows])
    out["bias"] = float(est.mean() - truth)
    out["sd"] = float(est.std(ddof=1))
    out["share_ap_one"] = float(np.mean(est >= 1.0))
    warned = np.array([bool(r["warned"]) for r in rows])
    out["warned"] = float(warned.mean())
    bca_w = float(np.median([r["bca"][1] - r["bca"][0] for r in rows]))
    for m in ("auto", "bca", "logit_boyd"):
        iv = np.array([r[m] for r in rows])
        cov = (iv[:, 0] <= truth) & (truth <= iv[:, 1])
        out[f"cov_{m}"] = float(cov.mean())
        out[f"above_{m}"] = float(np.mean(iv[:, 0] > truth))
        out[f"width_{m}"] = float(np.median(iv[:, 1] - iv[:, 0]) / bca_w) if bca_w > 0 else None
        if m == "auto":
            out["misses_warned"] = float(warned[~cov].mean()) if (~cov).any() else None
            out["cov_auto_unwarned"] = float(cov[~warned].mean()) if (~warned).any() else None
    out["methods"] = {m: sum(r["method"] == m for r in rows) for m in {r["method"] for r in rows}}
    out["rows"] = rows
    return out


def paired_cells() -> list[dict[str, Any]]:
    """Two systems on the same samples: each system's score ``rho`` latent + noise."""
    out = []
    for shape, npos, ap in (("binormal", 50, 0.8), ("binormal", 50, 0.96),
                            ("binormal", 100, 0.9), ("logistic", 50, 0.96)):  # fmt: skip
        out.append({"shape": shape, "positives": npos, "ap": ap, "prevalence": 0.1,
                    "n": 10 * npos, "rho": 0.8})  # fmt: skip
    return out


def paired_draw(cell: dict[str, Any], g: np.random.Generator, n: int) -> tuple[Any, ...]:
    """Labels and two systems' scores: each the shared latent score (weight ``rho``) plus
    its own noise, the positives shifted by ``delta`` and ``0.85 delta``."""
    dist = DISTS[cell["shape"]]
    y = g.random(n) < cell["prevalence"]
    rho = cell["rho"]
    shared = dist.rvs(size=n, random_state=g)
    a = rho * shared + np.sqrt(1 - rho**2) * dist.rvs(size=n, random_state=g)
    b = rho * shared + np.sqrt(1 - rho**2) * dist.rvs(size=n, random_state=g)
    return y, a + cell["delta"] * y, b + 0.85 * cell["delta"] * y


def ap_of(y: np.ndarray, s: np.ndarray) -> float:
    pos = y[np.argsort(-s, kind="stable")]
    return float(ap_weighted(pos, np.ones((1, len(pos))))[0])


def paired(reps: int, path: str, only: str | None = None) -> None:
    results = []
    for i, cell in enumerate(paired_cells()):
        if only is not None and str(i) not in only.split(","):
            continue
        cell["delta"] = shift_for(cell["ap"], cell["prevalence"], DISTS[cell["shape"]])
        # the truth: the difference of the population APs, by one large Monte Carlo draw
        gt = np.random.default_rng([11, 7, i])
        yb, ab, bb = paired_draw(cell, gt, 2_000_000)
        truth = ap_of(yb, ab) - ap_of(yb, bb)
        g = np.random.default_rng([11, 8, i])
        rows = []
        for r in range(reps):
            y, a, b = paired_draw(cell, g, cell["n"])
            if y.sum() < 2:
                continue
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = mlci.compare(
                    y.astype(int), {"a": a, "b": b}, metric="average_precision",
                    n_resamples=B, rng=r,
                )  # fmt: skip
            d = res.difference("a", "b")
            ci = [float(v) for v in d.confidence_interval]
            est, se = float(d.estimate), float(d.standard_error)
            normal = [est - Z * se, est + Z * se]
            rows.append({"est": est, "auto": ci, "method": d.method, "normal": normal,
                         "warned": tag(caught)})  # fmt: skip
        s: dict[str, Any] = dict(cell)
        s["truth"] = truth
        s["test_sets"] = len(rows)
        for m in ("auto", "normal"):
            iv = np.array([r[m] for r in rows])
            s[f"cov_{m}"] = float(np.mean((iv[:, 0] <= truth) & (truth <= iv[:, 1])))
            s[f"median_width_{m}"] = float(np.median(iv[:, 1] - iv[:, 0]))
        s["warned"] = float(np.mean([bool(r["warned"]) for r in rows]))
        iv = np.array([r["auto"] for r in rows])
        miss = ~((iv[:, 0] <= truth) & (truth <= iv[:, 1]))
        warned = np.array([bool(r["warned"]) for r in rows])
        s["misses_warned"] = float(warned[miss].mean()) if miss.any() else None
        s["cov_unwarned"] = float((~miss)[~warned].mean()) if (~warned).any() else None
        s["methods"] = sorted({r["method"] for r in rows})
        print(json.dumps({k: v for k, v in s.items() if k != "rows"}), flush=True)
        results.append(s)
        with open(path, "w") as f:
            json.dump(results, f, indent=1)


def conditions_cells() -> list[dict[str, Any]]:
    """Over 60 conditions (ICC 0.1 of the latent score), AP near 1: does the misranked
    rule (engine/ap_misranked.py, calibrated on independent samples) warn where BCa fails
    and stay quiet where it holds?"""
    return [
        {"ap": 0.995, "positives": 300, "prevalence": 0.3, "n": 1000, "icc": 0.1, "k": 60},
        {"ap": 0.999, "positives": 1000, "prevalence": 0.3, "n": 3333, "icc": 0.1, "k": 60},
        {"ap": 0.97, "positives": 1000, "prevalence": 0.3, "n": 3333, "icc": 0.1, "k": 60},
    ]


def conditions(reps: int, path: str) -> None:
    results = []
    for i, cell in enumerate(conditions_cells()):
        delta = shift_for(cell["ap"], cell["prevalence"], norm)
        sd = np.sqrt(cell["icc"] / (1 - cell["icc"]))
        g = np.random.default_rng([11, 60, i])
        rows = []
        for r in range(reps):
            n = cell["n"]
            cond = g.integers(0, cell["k"], n)
            y = g.random(n) < cell["prevalence"]
            # marginal separation ``delta`` (the truth's), the latent scaled as
            # scripts/ap_interval_sweep.py does
            s = g.standard_normal(n) + delta * np.sqrt(1 + sd**2) * y
            s = s + sd * g.standard_normal(cell["k"])[cond]
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = mlci.bootstrap_ci(
                    y.astype(int), s, metric="average_precision", conditions=cond,
                    n_resamples=300, rng=r,
                )  # fmt: skip
            ci = [float(v) for v in res.confidence_interval]
            rows.append({"est": float(res.estimate), "auto": ci, "method": res.method,
                         "warned": tag(caught),
                         "misranked": res.diagnostics.get("misranked_positives")})  # fmt: skip
        cov = np.array([r["auto"][0] <= cell["ap"] <= r["auto"][1] for r in rows])
        mis = np.array([("misranked" in r["warned"]) for r in rows])
        out = dict(cell, test_sets=len(rows), cov_auto=float(cov.mean()),
                   warned_misranked=float(mis.mean()),
                   warned_any=float(np.mean([bool(r["warned"]) for r in rows])),
                   misses_warned=float(mis[~cov].mean()) if (~cov).any() else None,
                   cov_unwarned=float(cov[~mis].mean()) if (~mis).any() else None,
                   median_misranked=float(np.median([r["misranked"] for r in rows])),
                   methods=sorted({r["method"] for r in rows}), rows=rows)  # fmt: skip
        print(json.dumps({k: v for k, v in out.items() if k != "rows"}), flush=True)
        results.append(out)
        with open(path, "w") as f:
            json.dump(compact(results), f, separators=(",", ":"))


def main(reps: int, path: str, only: str | None) -> None:
    results = []
    for i, cell in enumerate(cells()):
        if only is not None and str(i) not in only.split(","):
            continue
        cell["delta"] = shift_for(cell["ap"], cell["prevalence"], DISTS[cell["shape"]])
        g = np.random.default_rng([20, 11, i])
        rows = [one(cell, g, r) for r in range(reps)]
        s = summary(cell, rows)
        s["cell"] = i
        brief = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in s.items()}
        print(json.dumps({k: v for k, v in brief.items() if k != "rows"}), flush=True)
        results.append(s)
        with open(path, "w") as f:
            json.dump(compact(results), f, separators=(",", ":"))


def wilson(p: float, n_eff: float, z: float) -> tuple[float, float]:
    """Wilson's interval of ``p`` with ``n_eff`` effective trials."""
    den = 1 + z * z / n_eff
    c = (p + z * z / (2 * n_eff)) / den
    h = z * np.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff * n_eff)) / den
    return c - h, c + h


def candidates(reps: int, path: str) -> None:
    """Closed-form candidates on the same test sets (iid, prevalence 0.1; an AP of 1 has
    no closed-form interval and counts as a miss): the logit jackknife (``lj``), Wilson's
    interval with the jackknife's effective size ``AP (1 - AP) / se_J^2`` (``wj``; with
    Student's ``n_pos - 1`` quantile, ``wj_t``), the logit jackknife with the jackknife's
    bias correction on the logit scale (``lj_bc``) and Boyd's logit interval."""
    from ap_interval_sweep import jack_se, jackknife_iid

    results = []
    for shape in ("binormal", "logistic", "t3"):
        dist = DISTS[shape]
        for npos in (20, 50, 100, 300):
            for ap in (0.8, 0.9, 0.96, 0.99):
                prev = 0.1
                n = round(npos / prev)
                d = shift_for(ap, prev, dist)
                g = np.random.default_rng([2, npos, int(ap * 100), len(shape)])
                keys = ("lj", "lj_bc", "wj", "wj_t", "boyd")
                cov: dict[str, list[bool]] = {k: [] for k in keys}
                wid: dict[str, list[float]] = {k: [] for k in keys}
                est = []
                for _ in range(reps):
                    y = g.random(n) < prev
                    if y.sum() < 2:
                        continue
                    pos = y[np.argsort(-(dist.rvs(size=n, random_state=g) + d * y))]
                    a = float(ap_weighted(pos, np.ones((1, n)))[0])
                    est.append(a)
                    if a >= 1.0:
                        for k in keys:
                            cov[k].append(False)
                        continue
                    jv = jackknife_iid(pos)
                    se, lg, m = jack_se(jv), float(logit(a)), int(pos.sum())
                    h = Z * se / (a * (1 - a))
                    bias = (len(jv) - 1) * (np.mean(logit(np.clip(jv, 1e-12, 1 - 1e-12))) - lg)
                    tau = 1 / np.sqrt(m * a * (1 - a))
                    ivs = {
                        "lj": (expit(lg - h), expit(lg + h)),
                        "lj_bc": (expit(lg - bias - h), expit(lg - bias + h)),
                        "wj": wilson(a, a * (1 - a) / se**2, Z),
                        "wj_t": wilson(a, a * (1 - a) / se**2, float(t.ppf(0.975, m - 1))),
                        "boyd": (expit(lg - Z * tau), expit(lg + Z * tau)),
                    }
                    for k, (lo, hi) in ivs.items():
                        cov[k].append(bool(lo <= ap <= hi))
                        wid[k].append(float(hi - lo))
                one_share = float(np.mean(np.array(est) >= 1))
                row: dict[str, Any] = {"shape": shape, "positives": npos, "ap": ap,
                                       "prevalence": prev, "test_sets": len(est),
                                       "share_ap_one": one_share}  # fmt: skip
                lj_w = float(np.median(wid["lj"]))
                for k in keys:
                    row[f"cov_{k}"] = float(np.mean(cov[k]))
                    row[f"width_{k}"] = float(np.median(wid[k]) / lj_w)
                print(json.dumps(row), flush=True)
                results.append(row)
                with open(path, "w") as f:
                    json.dump(compact(results), f, separators=(",", ":"))


def load(pattern: str) -> dict[int, dict[str, Any]]:
    from glob import glob

    out: dict[int, dict[str, Any]] = {}
    for f in sorted(glob(str(Path(__file__).parent / "data" / pattern))):
        for c in json.load(open(f)):
            out[c["cell"]] = c
    return out


def gap() -> None:
    """Whether a test set shows heavy tails: its AP minus the binormal AP its ROC AUC
    implies (separation ``sqrt(2) ndtri(AUC)``, prevalence 0.1), in the misses and in the
    covering test sets of each cell (``ap_fix_study_[ab].json``)."""
    from ap_interval_sweep import population_ap
    from scipy.interpolate import interp1d

    grid = np.linspace(0, 8, 161)
    binormal_ap = interp1d(grid, [population_ap(d, 0.1) for d in grid])
    for c in load("ap_fix_study_[ab].json").values():
        rows = c["rows"]
        cov = np.array([r["auto"][0] <= c["ap"] <= r["auto"][1] for r in rows])
        sep = [min(np.sqrt(2) * norm.ppf(min(r["auc"], 1 - 1e-12)), 8.0) for r in rows]
        g = np.array([r["est"] - float(binormal_ap(d)) for r, d in zip(rows, sep, strict=True)])
        miss = f"{np.median(g[~cov]):.4f}" if (~cov).any() else "-"
        print(f"| {c['shape']} | {c['ap']:g} | {c['positives']} | {cov.mean():.3f} | "
              f"{miss} | {np.median(g[cov]):.4f} |")  # fmt: skip


def tables() -> None:
    """The docs' tables (docs/validation.md, session 11, apfix) from the JSON."""
    before, after = load("ap_fix_study_[abc].json"), load("ap_fix_study_after_*.json")
    print(
        "| cell | AP | positives | prevalence | auto before | after | BCa | Boyd logit "
        "(width / BCa) | warned | misses warned before / after | unwarned coverage |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for i in sorted(before):
        b, a = before[i], after.get(i)
        mw = f"{b['misses_warned']:.2f}" if b["misses_warned"] is not None else "-"
        if a is not None and a["misses_warned"] is not None:
            mw += f" / {a['misses_warned']:.2f}"
        uw = b["cov_auto_unwarned"] if a is None else a["cov_auto_unwarned"]
        uws = "-" if uw is None else format(uw, ".3f")
        print(f"| {b['shape']} | {b['ap']:g} | {b['positives']} | {b['prevalence']:g} | "
              f"{b['cov_auto']:.3f} | {'-' if a is None else format(a['cov_auto'], '.3f')} | "
              f"{b['cov_bca']:.3f} | {b['cov_logit_boyd']:.3f} ({b['width_logit_boyd']:.2f}) | "
              f"{b['warned']:.2f} | {mw} | {uws} |")  # fmt: skip


if __name__ == "__main__":
    if sys.argv[1] == "tables":
        tables()
        sys.exit()
    if sys.argv[1] == "gap":
        gap()
        sys.exit()
    if sys.argv[1] == "candidates":
        candidates(int(sys.argv[2]), sys.argv[3])
        sys.exit()
    if sys.argv[1] == "conditions":
        conditions(int(sys.argv[2]), sys.argv[3])
        sys.exit()
    if sys.argv[1] == "paired":
        paired(int(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
        sys.exit()
    main(int(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
