"""Cllr at 15-80 targets near AUC 1 (issue 20; session 12, cllrw12).

The seed-15 score search's #17 (``scripts/design_search_scores.py --seed 15 --design 17``:
the actual Cllr of 1,501 trials with about 32 targets, AUC 0.9998, LLRs scaled by 0.67)
covered 0.747 of 300 under ``auto`` (the bootstrap-t on the log scale), warned in 249 of
300 test sets but only 9 of its 20 misses in the search.  Session 11 (cllrwauc) showed the
misses of the 10 / 50 design are the test sets that look benign (no costly target drawn);
its rule warns a class of fewer than 20 trials outnumbered 3 times.  This sweep maps the
class over targets 15-80, non-targets 1-46 times as many, AUC 0.99-0.9998 and LLR scales
0.67 and 1, with ``scripts/cllr_sweep.py``'s population and its intervals from the same
replicates (``actual_intervals``: percentile, BCa, normal, the bootstrap-t on the identity
and log scales, mlci's own studentized reader without the floor (``auto_s9``) and with it
(``auto_s10``, auto now), and the others of session 10), and records per test set what a
warning rule can read: the effective trials and skewness (session 10's rule), and each
class's total cost in bits (``sum phi``: one trial judged at LLR 0 costs 1 bit).  The
warning rules of :data:`RULES` are read post hoc over the same test sets.

Run (session 12; each cell's draw depends on the cell only)::

    for k in 0 1; do nice -n 15 python scripts/cllr_few_targets.py --reps 300 -B 500 \
        --part $k/2 --json /tmp/c$k.json & done; wait
    python scripts/cllr_few_targets.py --json scripts/data/cllr_few_targets.json \
        --merge /tmp/c0.json /tmp/c1.json
    python scripts/cllr_few_targets.py --json scripts/data/cllr_few_targets.json --report
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cllr_sweep as cs
import design_search_scores as dss

TARGETS = (15, 32, 50, 80)
RATIOS = (1, 3, 10, 46)
AUCS = (0.99, 0.999, 0.9998)
SCALES = (0.67, 1.0)
METHODS = ("bca", "percentile", "boot_t", "boot_t_log", "auto_s9", "auto_s10", "t_shrunk")


def cells() -> list[tuple[int, int, float, float]]:
    return [(t, r, a, c) for t in TARGETS for r in RATIOS for a in AUCS for c in SCALES]


def _session10(d: dict[str, np.ndarray]) -> np.ndarray:
    """Session 10's rule: effective trials of a class below 3, or skewness above 0.35."""
    eff = np.minimum(d["neff_pos"], d["neff_neg"])
    return (eff < 3.0) | (np.nan_to_num(d["gamma"], nan=math.inf) > 0.35)


def _small(d: dict[str, np.ndarray], n: float, r: float) -> np.ndarray:
    """A class below ``n`` trials outnumbered ``r`` times or more."""
    small = np.minimum(d["n_pos"], d["n_neg"])
    return (small < n) & (np.maximum(d["n_pos"], d["n_neg"]) >= r * small)


def _cost(d: dict[str, np.ndarray], bits: float) -> np.ndarray:
    """A class whose trials cost fewer than ``bits`` in all."""
    return np.minimum(d["cost_pos"], d["cost_neg"]) < bits


#: post hoc warning rules: the code's (session 10's and 11's), and candidates added to it
RULES: dict[str, Any] = {
    "now (s10 + class < 20 at 3x)": lambda d: _session10(d) | _small(d, 20, 3),
    "now + class total cost < 1 bit": lambda d: _session10(d) | _small(d, 20, 3) | _cost(d, 1),
    "now + class total cost < 2 bits": lambda d: _session10(d) | _small(d, 20, 3) | _cost(d, 2),
    "now + class total cost < 3 bits": lambda d: _session10(d) | _small(d, 20, 3) | _cost(d, 3),
    "now + class total cost < 5 bits": lambda d: _session10(d) | _small(d, 20, 3) | _cost(d, 5),
    "now + class < 40 at 3x": lambda d: _session10(d) | _small(d, 40, 3),
    "now + class < 50 at 10x": lambda d: _session10(d) | _small(d, 50, 10),
}


def run(
    targets: int, ratio: int, auc: float, c: float, reps: int, B: int, seed: int
) -> dict[str, Any]:
    e = cs.separation(auc)
    truth = dss.cllr_truth(e, c)
    g = np.random.default_rng([seed, targets, ratio, round(auc * 1e4), round(c * 100)])
    t0 = time.process_time()
    rows: dict[str, list[float]] = {}
    for _ in range(reps):
        zp, zn = cs.draw(g, e, targets, ratio * targets)
        a, b = cs.class_costs(cs.llr(zp, e, c), cs.llr(zn, e, c))
        est, ivs = cs.actual_intervals(a, b, g, B)
        rec = {"estimate": est, **cs.diagnostics(a, b), "n_pos": len(a), "n_neg": len(b),
               "cost_pos": float(a.sum()), "cost_neg": float(b.sum())}  # fmt: skip
        for m in METHODS:
            lo, hi = ivs[m]
            rec[f"{m}_cover"] = float(lo <= truth <= hi)
            rec[f"{m}_above"] = float(truth > hi)
            rec[f"{m}_width"] = float(hi - lo)
        for k, v in rec.items():
            rows.setdefault(k, []).append(v)
    d = {k: np.asarray(v, dtype=float) for k, v in rows.items()}
    miss = d["auto_s10_cover"] == 0
    out: dict[str, Any] = {
        "targets": targets, "nontargets": ratio * targets, "auc": auc, "c": c, "truth": truth,
        "reps": reps, "B": B, "seed": seed, "cpu_seconds": round(time.process_time() - t0, 1),
        "cost_small_median": float(np.median(np.minimum(d["cost_pos"], d["cost_neg"]))),
        "neff_median": float(np.median(np.minimum(d["neff_pos"], d["neff_neg"]))),
    }  # fmt: skip
    out["methods"] = {
        m: {
            "coverage": float(d[f"{m}_cover"].mean()),
            "truth_above": float(d[f"{m}_above"].mean()),
            "median_width": float(np.median(d[f"{m}_width"])),
        }
        for m in METHODS
    }
    out["rules"] = {
        name: {
            "warned": float(f(d).mean()),
            "warned_in_misses": float(f(d)[miss].mean()) if miss.any() else math.nan,
        }
        for name, f in RULES.items()
    }
    return out


def short(cov: float, n: int) -> bool:
    """Significantly below 0.935 (one-sided, 1.645 binomial standard errors)."""
    return cov < 0.935 - 1.645 * math.sqrt(0.95 * 0.05 / n)


#: the rule adopted (session 12): now + a class costing under 2 bits + a class below 40
#: trials outnumbered 10 times (the class counts are fixed per design: all or none)
ADOPTED = "adopted: now + cost < 2 bits + class < 40 at 10x"


def _adopt(c: dict[str, Any]) -> dict[str, float]:
    if min(c["targets"], c["nontargets"]) < 40 and c["nontargets"] >= 10 * c["targets"]:
        return {"warned": 1.0, "warned_in_misses": 1.0}
    return dict(c["rules"]["now + class total cost < 2 bits"])


def report(doc: dict[str, Any]) -> str:
    cellz = doc["cells"]
    for c in cellz:
        c["rules"][ADOPTED] = _adopt(c)
    lines = [
        "| targets / non-targets | AUC | c | truth | small class's cost, bits (median) | BCa | "
        "auto (boot-t log, floor 6) | no floor | boot-t identity | warned now (misses) | "
        "warned, adopted (misses) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in cellz:
        m, r = c["methods"], c["rules"]
        f = lambda v, n=c["reps"]: f"**{v:.3f}**" if short(v, n) else f"{v:.3f}"  # noqa: E731
        a = r["now (s10 + class < 20 at 3x)"]
        b = r[ADOPTED]
        lines.append(
            f"| {c['targets']} / {c['nontargets']} | {c['auc']:g} | {c['c']:g} | "
            f"{c['truth']:.4f} | "
            f"{c['cost_small_median']:.2f} | {f(m['bca']['coverage'])} | "
            f"{f(m['auto_s10']['coverage'])} | {f(m['auto_s9']['coverage'])} | "
            f"{f(m['boot_t']['coverage'])} | {a['warned']:.2f} ({a['warned_in_misses']:.2f}) | "
            f"{b['warned']:.2f} ({b['warned_in_misses']:.2f}) |"
        )
    lines += [
        "",
        "| rule | short cells, most test sets unwarned | short cells: warned in misses, mean "
        "| holding cells, mostly warned | holding cells: warned share, mean |",
        "|---|---|---|---|---|",
    ]
    for name in (*RULES, ADOPTED):
        sh = [c for c in cellz if short(c["methods"]["auto_s10"]["coverage"], c["reps"])]
        ok = [c for c in cellz if not short(c["methods"]["auto_s10"]["coverage"], c["reps"])]
        un = sum(c["rules"][name]["warned"] < 0.5 for c in sh)
        wm = np.nanmean([c["rules"][name]["warned_in_misses"] for c in sh]) if sh else math.nan
        fw = sum(c["rules"][name]["warned"] >= 0.5 for c in ok)
        fs = np.mean([c["rules"][name]["warned"] for c in ok]) if ok else math.nan
        lines.append(f"| {name} | {un} of {len(sh)} | {wm:.2f} | {fw} of {len(ok)} | {fs:.2f} |")
    held = [c for c in cellz if not short(c["methods"]["bca"]["coverage"], c["reps"])]
    lines += ["", f"Cells where BCa holds: {len(held)}; median width / BCa's there:"]
    for m in METHODS:
        ws = [c["methods"][m]["median_width"] / c["methods"]["bca"]["median_width"] for c in held]
        nshort = sum(short(c["methods"][m]["coverage"], c["reps"]) for c in cellz)
        cov = np.mean([c["methods"][m]["coverage"] for c in cellz])
        lines.append(
            f"- {m}: mean coverage {cov:.3f}, short in {nshort} of {len(cellz)}; "
            f"width / BCa where BCa holds {np.median(ws) if ws else math.nan:.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", required=True)
    p.add_argument("--reps", type=int, default=300)
    p.add_argument("-B", "--resamples", type=int, default=500)
    p.add_argument("--seed", type=int, default=120)
    p.add_argument("--part", help="k/K: every K-th cell from the k-th (parallel runs)")
    p.add_argument("--design", action="append", help="only targets,ratio,auc,c (repeatable)")
    p.add_argument("--report", action="store_true")
    p.add_argument("--merge", nargs="*")
    a = p.parse_args(argv)
    path = Path(a.json)
    if a.merge:
        cz = [c for f in a.merge for c in json.loads(Path(f).read_text())["cells"]]
        cz.sort(key=lambda c: (c["targets"], c["nontargets"], c["auc"], c["c"]))
        path.write_text(json.dumps({"cells": cz}, indent=0))
        return 0
    if a.report:
        print(report(json.loads(path.read_text())))
        return 0
    todo = cells()
    if a.design:
        todo = [(int(t), int(r), float(u), float(c)) for t, r, u, c in
                (s.split(",") for s in a.design)]  # fmt: skip
    if a.part:
        k, K = map(int, a.part.split("/"))
        todo = todo[k::K]
    out = []
    for t, r, u, c in todo:
        out.append(run(t, r, u, c, a.reps, a.resamples, a.seed))
        path.write_text(json.dumps({"cells": out}, indent=0))
        print(
            t,
            r,
            u,
            c,
            out[-1]["methods"]["auto_s10"]["coverage"],
            out[-1]["cpu_seconds"],
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
