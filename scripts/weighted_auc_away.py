"""The weighted ROC AUC away from its bound with about 100 positives (issue 20; session 12).

Session 11's sweep (``scripts/weighted_auc_sweep.py``, cllrwauc's "Left") found BCa short
away from the edge: 2,000 weighted rows at 5% positives (about 100), easy negatives kept
with probability q = 0.4 and weighted 1/q, covered 0.900 at AUC 0.95 (unwarned) and 0.907
at 0.98 (150 test sets each), while the score-type interval at Kish's effective class sizes
(:mod:`mlci.engine.weighted_auc_edge`, computed whether or not its gate holds) covered
0.98.  This sweep maps that class: the search's ``weighted`` populations
(design_search_scores.Population) of 2,000 independent rows, AUC 0.85-0.99, 50-300
expected positives, and the keep rate q of the easy negatives (Kish's design effect of
the negatives' weights is ``(2 + q + 1/q) / 4``: 1.23 at q 0.4, 3.03 at q 0.1).

Per test set it records ``auto`` (the mlci on ``PYTHONPATH``; its coverage, whether it
warned, its method), BCa and the percentile interval from the same replicates, the score
interval at Kish's sizes, the estimate and the Kish sizes, so that gates compare post hoc
(:func:`gate_table`).  Run (session 12, cllrw12; the seed and each test set's draw depend
on the cell only, any split of the cells gives the same numbers)::

    nice -n 15 python scripts/weighted_auc_away.py --reps 300 --json /tmp/a.json --part 0/2 &
    nice -n 15 python scripts/weighted_auc_away.py --reps 300 --json /tmp/b.json --part 1/2 &
    wait
    python scripts/weighted_auc_away.py --json scripts/data/weighted_auc_away.json \
        --merge /tmp/a.json /tmp/b.json
    python scripts/weighted_auc_away.py --json scripts/data/weighted_auc_away.json --report
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from scipy.stats import t as stats_t

sys.path.insert(0, str(Path(__file__).resolve().parent))
import design_search_scores as dss
import weighted_auc_sweep as ws

mlci = dss.mlci

N_ROWS = 2000
AUCS = (0.85, 0.92, 0.95, 0.98, 0.99)
POSITIVES = (50, 100, 300)
KEEP = (0.4, 0.1)


def cells() -> list[dict[str, Any]]:
    out = []
    for i, auc in enumerate(AUCS):
        for j, pos in enumerate(POSITIVES):
            for k, q in enumerate(KEEP):
                out.append(
                    {"id": 100 * i + 10 * j + k, "n": N_ROWS, "prevalence": pos / N_ROWS,
                     "q": q, "conditions": 0, "icc": 0.0, "unequal": False,
                     "error": round(1 - auc, 6)}
                )  # fmt: skip
    return out


KEYS = (
    "estimate", "m_eff", "n_eff", "deff_neg", "warned", "method",
    *(f"{m}_{k}" for m in ("auto", "bca", "pct", "score") for k in ("cover", "above", "width")),
)  # fmt: skip


def run_cell(
    cell: dict[str, Any], reps: int, B: int, seed: int, offset: int = 2000
) -> dict[str, Any]:
    """``reps`` test sets of a cell with the code's ``auto`` (rule as it is); ``offset``
    1000: scripts/weighted_auc_sweep.py's independent cells (session 11, seed 111)."""
    d = dss.Design(
        offset + cell["id"], "weighted", "auc", cell["n"], cell["prevalence"], cell["error"],
        0, 0.0, False, 0.0, cell["q"],
    )  # fmt: skip
    pop = dss.Population(d)
    truth = pop.truth
    rows: dict[str, list[Any]] = {k: [] for k in KEYS}
    t0 = time.process_time()
    for i in range(reps):
        g = np.random.default_rng([seed, cell["id"], i])
        x = pop.draw(g)
        sc = mlci.Scores.from_labels(x["y"], x["s"], sample_weight=x["weight"])
        with warnings.catch_warnings(record=True) as caught, mlci.config_context(n_jobs=1):
            warnings.simplefilter("always")
            res = mlci.auc_ci(sc, n_resamples=B, rng=int(g.integers(2**31)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bca = res.interval(method="bca").confidence_interval
            pct = res.interval(method="percentile").confidence_interval
        lo, hi, m_eff, n_eff, _ = ws._score_interval(sc, None)
        wn = np.asarray(x["weight"], float)[np.asarray(x["y"]) == 0]
        rows["estimate"].append(float(res.estimate))
        rows["m_eff"].append(round(m_eff, 2))
        rows["n_eff"].append(round(n_eff, 2))
        rows["deff_neg"].append(round(len(wn) * float(wn @ wn) / float(wn.sum()) ** 2, 4))
        rows["warned"].append(any(issubclass(w.category, mlci.MlciWarning) for w in caught))
        rows["method"].append(res.method)
        for name, (a, b) in (
            ("auto", res.confidence_interval), ("bca", bca), ("pct", pct), ("score", (lo, hi))
        ):  # fmt: skip
            rows[f"{name}_cover"].append(bool(a <= truth <= b))
            rows[f"{name}_above"].append(bool(truth > b))
            rows[f"{name}_width"].append(round(float(b - a), 7))
    return {**cell, "truth": truth, "reps": reps, "B": B, "seed": seed,
            "cpu_seconds": round(time.process_time() - t0, 1), "test_sets": rows}  # fmt: skip


def _binomial_variance(theta: np.ndarray, r: float) -> np.ndarray:
    return np.asarray(r * theta * (1 - theta))


def analytic_cell(cell: dict[str, Any], reps: int, seed: int, offset: int = 2000) -> dict[str, Any]:
    """The analytic intervals of a cell's test sets (the same draws as :func:`run_cell`, no
    bootstrap): ``score`` (mlci.engine.weighted_auc_edge's floored score interval at Kish's
    sizes), ``wilson_delong`` (the score interval with the weighted DeLong variance alone,
    carried as ``V(theta) = V theta (1 - theta) / (A (1 - A))``, Student's t on Welch's
    degrees of freedom: the floor without Newcombe's variance) and ``logit_delong`` (the
    Wald interval on the logit scale, ``logit A +- t sqrt(V) / (A (1 - A))``).  Over
    conditions the variance is the conditions' (at least the rows') on C - 1 degrees of
    freedom.  ``offset``: the design index's (1000: scripts/weighted_auc_sweep.py's cells,
    with their seed 111)."""
    from scipy.special import expit, logit

    from mlci.engine import weighted_auc_edge as wae
    from mlci.intervals.auc_score import score_bounds

    d = dss.Design(
        offset + cell["id"], "weighted", "auc", cell["n"], cell["prevalence"], cell["error"],
        cell["conditions"], cell["icc"], cell["unequal"], 0.0, cell["q"],
    )  # fmt: skip
    pop = dss.Population(d)
    truth = pop.truth
    z = 1.959963984540054
    out: dict[str, list[float]] = {}
    for i in range(reps):
        g = np.random.default_rng([seed, cell["id"], i])
        x = pop.draw(g)
        t = wae.weighted_auc_terms(
            x["s"], np.asarray(x["y"]) == 1, x["weight"], x.get("conditions")
        )
        a, v = t.auc, t.v_pos + t.v_neg
        m, n = t.m_eff, t.n_eff
        if t.n_conditions is not None:
            v, df = max(float(t.v_cond or 0.0), v), float(max(t.n_conditions - 1, 1))
        elif v > 0:
            df = v**2 / (t.v_pos**2 / max(m - 1, 1e-9) + t.v_neg**2 / max(n - 1, 1e-9))
        tq = float(stats_t.ppf(0.975, df)) if v > 0 else z
        ivs = {"score": wae.weighted_auc_interval(t)}
        if 0 < a < 1 and v > 0:
            r = v * (tq / z) ** 2 / (a * (1 - a))
            ivs["wilson_delong"] = score_bounds(a, partial(_binomial_variance, r=r), z, z)
            h = tq * math.sqrt(v) / (a * (1 - a))
            ivs["logit_delong"] = (float(expit(logit(a) - h)), float(expit(logit(a) + h)))
        else:
            ivs["wilson_delong"] = ivs["logit_delong"] = (a, a)
        for k, (lo, hi) in ivs.items():
            out.setdefault(f"{k}_cover", []).append(float(lo <= truth <= hi))
            out.setdefault(f"{k}_width", []).append(float(hi - lo))
    return {
        k.rsplit("_", 1)[0]: {
            "coverage": float(np.mean(out[f"{k.rsplit('_', 1)[0]}_cover"])),
            "median_width": float(np.median(out[f"{k.rsplit('_', 1)[0]}_width"])),
        }
        for k in out
        if k.endswith("_cover")
    }


def short(cov: float, n: int) -> bool:
    """Significantly below 0.935 (one-sided, 1.645 binomial standard errors)."""
    return cov < 0.935 - 1.645 * math.sqrt(0.95 * 0.05 / n)


#: post hoc gates on (estimate, Kish's positives, negatives) of independent weighted rows
GATES: dict[str, Any] = {
    "none (auto now)": lambda a, m, n: np.zeros(len(a), bool),
    "always (weighted, independent rows)": lambda a, m, n: np.ones(len(a), bool),
    "smaller class < 150": lambda a, m, n: np.minimum(m, n) < 150,
    "smaller class < 400": lambda a, m, n: np.minimum(m, n) < 400,
    "AUC >= 0.9": lambda a, m, n: np.maximum(a, 1 - a) >= 0.9,
}


def gated(cell: dict[str, Any], gate: Any) -> dict[str, float]:
    t = {k: np.asarray(v) for k, v in cell["test_sets"].items()}
    fire = gate(t["estimate"], t["m_eff"], t["n_eff"])
    cov = np.where(fire, t["score_cover"], t["auto_cover"])
    width = np.where(fire, t["score_width"], t["auto_width"])
    return {"coverage": float(cov.mean()), "fires": float(fire.mean()),
            "median_width": float(np.median(width))}  # fmt: skip


def summarise(cell: dict[str, Any]) -> dict[str, Any]:
    t = {k: np.asarray(v) for k, v in cell["test_sets"].items()}
    out = {k: v for k, v in cell.items() if k != "test_sets"}
    out["positives_eff"] = float(np.median(t["m_eff"]))
    out["negatives_eff"] = float(np.median(t["n_eff"]))
    out["deff_neg"] = float(np.median(t["deff_neg"]))
    out["warned"] = float(t["warned"].mean())
    out["methods"] = {
        m: {
            "coverage": float(t[f"{m}_cover"].mean()),
            "truth_above": float(t[f"{m}_above"].mean()),
            "median_width": float(np.median(t[f"{m}_width"])),
        }
        for m in ("auto", "bca", "pct", "score")
    }
    out["auto_methods"] = {
        str(k): int(v) for k, v in zip(*np.unique(t["method"], return_counts=True), strict=True)
    }
    out["gates"] = {name: gated(cell, g) for name, g in GATES.items()}
    return out


def report(doc: dict[str, Any]) -> str:
    lines = [
        "| AUC | positives (eff.) | q | deff (negatives) | auto (warned) | BCa | percentile | "
        "score at Kish | width score / BCa |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    rows = sorted(doc["cells"], key=lambda c: (c["q"], c["prevalence"], c["error"]))
    for c in rows:
        m = c["methods"]
        ratio = m["score"]["median_width"] / m["bca"]["median_width"]
        flag = lambda v, n=c["reps"]: f"**{v:.3f}**" if short(v, n) else f"{v:.3f}"  # noqa: E731
        lines.append(
            f"| {1 - c['error']:.2f} | {c['positives_eff']:.0f} | {c['q']:g} | "
            f"{c['deff_neg']:.2f} | {flag(m['auto']['coverage'])} ({c['warned']:.2f}) | "
            f"{flag(m['bca']['coverage'])} | {flag(m['pct']['coverage'])} | "
            f"{flag(m['score']['coverage'])} | {ratio:.2f} |"
        )
    lines += [
        "",
        "| gate | cells short | fires (mean share) | mean coverage | cells changed where BCa "
        "held: width / BCa, median (max) |",
        "|---|---|---|---|---|",
    ]
    for name in GATES:
        n_short = sum(short(c["gates"][name]["coverage"], c["reps"]) for c in rows)
        fires = np.mean([c["gates"][name]["fires"] for c in rows])
        cov = np.mean([c["gates"][name]["coverage"] for c in rows])
        held = [
            c
            for c in rows
            if not short(c["methods"]["bca"]["coverage"], c["reps"])
            and c["gates"][name]["fires"] > 0
        ]
        ratios = [
            c["gates"][name]["median_width"] / c["methods"]["bca"]["median_width"] for c in held
        ]
        rr = f"{np.median(ratios):.2f} ({max(ratios):.2f}), {len(held)} cells" if ratios else "—"
        lines.append(f"| {name} | {n_short} | {fires:.2f} | {cov:.3f} | {rr} |")
    return "\n".join(lines)


#: wauc150: gates compared per test set over this sweep's cells and session 11's independent
#: ones (``--s11``): on the smaller class's effective (Kish) size, and on the smaller class's
#: rows (the positives here: they weigh 1, so their rows are ``m_eff``; the negatives hold
#: 200 rows or more in every cell)
THRESHOLDS: dict[str, Any] = {
    "Kish < 150": lambda t: np.minimum(t["m_eff"], t["n_eff"]) < 150,
    "Kish < 120": lambda t: np.minimum(t["m_eff"], t["n_eff"]) < 120,
    "rows < 100": lambda t: t["m_eff"] < 100,
    "rows < 120": lambda t: t["m_eff"] < 120,
    "rows < 150": lambda t: t["m_eff"] < 150,
}


def threshold_report(doc: dict[str, Any]) -> str:
    """Per cell (test sets kept, ``--keep-test-sets``): BCa (``bca``, auto without the gate,
    as no other rule fires there) and, per threshold of :data:`THRESHOLDS`, the coverage
    and median width over BCa's with the score interval where the smaller class's Kish size
    is below it; and the code's ``auto`` (the gate as built)."""
    head = " | ".join(f"{k}: cov (fires, width / BCa)" for k in THRESHOLDS)
    lines = [
        f"| cell | AUC | small class (Kish, median) | BCa | {head} | auto (code) |",
        "|---|---|---|---|" + "---|" * len(THRESHOLDS) + "---|",
    ]
    for c in doc["cells"]:
        t = {k: np.asarray(v) for k, v in c["test_sets"].items()}
        small = np.minimum(t["m_eff"], t["n_eff"])
        bca_w = float(np.median(t["bca_width"]))
        flag = lambda v, n=c["reps"]: f"**{v:.3f}**" if short(v, n) else f"{v:.3f}"  # noqa: E731
        cols = []
        for gate in THRESHOLDS.values():
            fire = gate(t)
            cov = float(np.where(fire, t["score_cover"], t["bca_cover"]).mean())
            w = float(np.median(np.where(fire, t["score_width"], t["bca_width"]))) / bca_w
            cols.append(f"{flag(cov)} ({fire.mean():.2f}, {w:.2f})")
        name = ("s11 " if c.get("sweep") else "") + str(c["id"])
        lines.append(
            f"| {name} | {1 - c['error']:.2f} | {np.median(small):.0f} | "
            f"{flag(float(t['bca_cover'].mean()))} | " + " | ".join(cols) + " | "
            f"{flag(float(t['auto_cover'].mean()))} "
            f"({float(np.median(t['auto_width'])) / bca_w:.2f}) |"
        )
    return "\n".join(lines)


def analytic_report(doc: dict[str, Any]) -> str:
    """The analytic intervals of every grid cell (:func:`analytic_cell`), with BCa's where
    the bootstrap ran, and of scripts/weighted_auc_sweep.py's cells (BCa from its JSON)."""
    boot = {str(c["id"]): c for c in doc["cells"]}
    lines = [
        "| AUC | positives | q | BCa (width) | score at Kish (width / BCa) | "
        "Wilson, DeLong variance | logit, DeLong variance |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in cells():
        a = doc.get("analytic", {}).get(str(c["id"]))
        if a is None:
            continue
        b = boot.get(str(c["id"]))
        bca = b["methods"]["bca"] if b else None
        ref = bca["median_width"] if bca else a["score"]["median_width"]
        cols = [
            f"{a[m]['coverage']:.3f} ({a[m]['median_width'] / ref:.2f})"
            for m in ("score", "wilson_delong", "logit_delong")
        ]
        bc = f"{bca['coverage']:.3f} ({bca['median_width']:.3f})" if bca else "—"
        lines.append(
            f"| {1 - c['error']:.2f} | {c['n'] * c['prevalence']:.0f} | {c['q']:g} | {bc} | "
            + " | ".join(cols)
            + " |"
        )
    s11 = Path(__file__).resolve().parent / "data" / "weighted_auc_sweep.json"
    if "analytic_s11" in doc and s11.exists():
        ref11 = {str(c["id"]): c for c in json.loads(s11.read_text())["runs"]["rule_off"]}
        lines += ["", "| session-11 cell | 1 - AUC | BCa | score (width / BCa) | "
                  "Wilson, DeLong | logit, DeLong |", "|---|---|---|---|---|---|"]  # fmt: skip
        for k, a in doc["analytic_s11"].items():
            c = ref11[k]
            bca = c["methods"]["bca"]
            cols = [
                f"{a[m]['coverage']:.3f} ({a[m]['median_width'] / bca['median_width']:.2f})"
                for m in ("score", "wilson_delong", "logit_delong")
            ]
            lines.append(
                f"| {ws._label(c)} | {c['error']:g} | {bca['coverage']:.3f} | "
                + " | ".join(cols)
                + " |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", required=True)
    p.add_argument("--reps", type=int, default=300)
    p.add_argument("-B", "--resamples", type=int, default=500)
    p.add_argument("--seed", type=int, default=112)
    p.add_argument("--cell", type=int, action="append", help="only these cell ids")
    p.add_argument("--part", help="k/K: every K-th cell from the k-th (parallel runs)")
    p.add_argument("--keep-test-sets", action="store_true", help="keep each test set's row")
    p.add_argument(
        "--s11",
        action="store_true",
        help="--cell ids are scripts/weighted_auc_sweep.py's independent cells (seed 111)",
    )
    p.add_argument("--report", action="store_true")
    p.add_argument(
        "--thresholds", action="store_true", help="the gate's thresholds per test set (wauc150)"
    )
    p.add_argument("--merge", nargs="*", help="join the cells of these JSON files")
    p.add_argument(
        "--analytic", action="store_true", help="add the analytic intervals to the JSON's cells"
    )
    a = p.parse_args(argv)
    path = Path(a.json)
    if a.merge:
        docs = [json.loads(Path(f).read_text()) for f in a.merge]
        cs = sorted((c for d in docs for c in d["cells"]), key=lambda c: c["id"])
        joined: dict[str, Any] = {"cells": cs}
        for d in docs:  # the analytic intervals (--analytic) of any input
            joined.update({k: v for k, v in d.items() if k.startswith("analytic")})
        path.write_text(json.dumps(joined, indent=0))
        return 0
    if a.thresholds:
        print(threshold_report(json.loads(path.read_text())))
        return 0
    if a.report:
        doc = json.loads(path.read_text())
        print(report(doc) + "\n\n" + analytic_report(doc))
        return 0
    if a.analytic:  # every cell of the grid, and scripts/weighted_auc_sweep.py's
        doc = json.loads(path.read_text())
        doc["analytic"] = {str(c["id"]): analytic_cell(c, a.reps, a.seed) for c in cells()}
        doc["analytic_s11"] = {
            str(c["id"]): analytic_cell(c, 300 if c["error"] < 0.02 else 150, 111, offset=1000)
            for c in ws.cells()
            if c["error"] >= 0.01
        }
        path.write_text(json.dumps(doc, indent=0))
        return 0
    if a.s11:  # session 11's independent cells (wauc150: the gate's cost at ~150 positives)
        s11 = {c["id"]: c for c in ws.cells() if not c["conditions"]}
        out_s11 = []
        for i in a.cell or []:
            run = run_cell(s11[i], a.reps, a.resamples, 111, offset=1000)
            keep = {"test_sets": run["test_sets"]} if a.keep_test_sets else {}
            out_s11.append({**summarise(run), "sweep": "weighted_auc_sweep", **keep})
            path.write_text(json.dumps({"cells": out_s11}, indent=0))
            print(i, out_s11[-1]["methods"]["auto"]["coverage"], flush=True)
        return 0
    by_id = {c["id"]: c for c in cells()}
    todo = [by_id[i] for i in a.cell] if a.cell else list(by_id.values())  # in that order
    if a.part:
        k, K = map(int, a.part.split("/"))
        todo = todo[k::K]
    out = []
    for c in todo:
        run = run_cell(c, a.reps, a.resamples, a.seed)
        out.append(
            {**summarise(run), **({"test_sets": run["test_sets"]} if a.keep_test_sets else {})}
        )
        path.write_text(json.dumps({"cells": out}, indent=0))
        print(
            out[-1]["id"],
            out[-1]["methods"]["bca"]["coverage"],
            out[-1]["methods"]["score"]["coverage"],
            out[-1]["cpu_seconds"],
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
