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

    PYTHONPATH=src nice -n 15 python scripts/ap_fix_study.py paired 300 \
        scripts/data/ap_fix_paired.json
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


def paired(reps: int, path: str) -> None:
    results = []
    for i, cell in enumerate(paired_cells()):
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
        s["methods"] = sorted({r["method"] for r in rows})
        print(json.dumps({k: v for k, v in s.items() if k != "rows"}), flush=True)
        results.append(s)
        with open(path, "w") as f:
            json.dump(results, f, indent=1)


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
            json.dump(results, f, indent=0)


if __name__ == "__main__":
    if sys.argv[1] == "paired":
        paired(int(sys.argv[2]), sys.argv[3])
        sys.exit()
    main(int(sys.argv[2]), sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
