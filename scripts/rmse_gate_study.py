"""The robust SE's gate for a single RMSE (session 12, heavyt12b): per test set, the plain
bootstrap-t and the octile kurtosis, so that gates on the stretch can be compared offline.

heavyt12's robust standard error (:mod:`mlci.engine.rmse_robust`) stretched every test set
whose octile kurtosis named heavier tails than its moment kurtosis; normal errors then
over-covered (0.970-0.977 at n = 20, 50, 100, 500) and small-n intervals widened 1.3-1.6x.
This script records, on ``scripts/rmse_single_study.py``'s test sets (same seeds, same
``rng``), what ``bootstrap_ci(..., metric="rmse")`` computes under ``auto``: the estimate,
the plain studentized interval (``result.interval(method="studentized")``, auto before),
the errors' kurtosis about zero ``K``, the robust ``K_rob`` and their octile kurtosis.  Any
gate or cap on the stretch ``sqrt((K_rob - 1) / (K - 1))`` is then a function of these
(``--evaluate``).  ``--null`` calibrates the gate: quantiles of the octile kurtosis of
normal samples at each n (no bootstrap).

Usage (as run, ``nice -n 15``): ``--out scripts/data/rmse_gate_cells.json`` (normal,
Laplace, t5, t3 at n = 20-500, 300 test sets a cell, seed 120); ``--seed 121 --out
scripts/data/rmse_gate_cells_121.json`` (300 other test sets a cell); ``--null --reps
40000 --out scripts/data/rmse_gate_null.json``; ``--evaluate
rmse_gate_cells.json,rmse_gate_cells_121.json --out scripts/data/rmse_gate_summary.json``
(before / heavyt12 / gated, the two seeds pooled).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from rmse_single_study import B_AUTO, law_sampler

import mlci
from mlci.engine.rmse_robust import octile_kurtosis, robust_error_kurtosis

DATA = Path(__file__).resolve().parent / "data"
LAWS = ["normal", "laplace", "t5", "t3"]
SIZES = [20, 30, 50, 100, 200, 500]
NULL_SIZES = [20, 25, 30, 40, 50, 70, 100, 150, 200, 300, 500]
NULL_PROBS = [0.5, 0.75, 0.8, 0.85, 0.9, 0.95, 0.975, 0.99]


def cell(law: str, n: int, reps: int, seed: int) -> dict[str, Any]:
    """``rmse_single_study.cell``'s test sets: per test set ``[estimate, stud_low,
    stud_high, K, K_rob, octile kurtosis, heavy-tail warned]`` (5 decimals)."""
    g = np.random.default_rng([seed, n, len(law), int(law[-1]) if law[-1].isdigit() else 0])
    draw = law_sampler(law)
    rows = []
    for i in range(reps):
        x = g.standard_normal(n)
        e = draw(g, n)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = mlci.bootstrap_ci(x, x + e, metric="rmse", n_resamples=B_AUTO, rng=i)
        warned = int(any(issubclass(w.category, mlci.HeavyTailWarning) for w in caught))
        ci = r.interval(method="studentized").confidence_interval
        k, k_rob = robust_error_kurtosis(e)
        vals = [float(r.estimate), float(ci.low), float(ci.high), k, k_rob, octile_kurtosis(e)]
        rows.append([round(v, 5) for v in vals] + [warned])
    return {"law": law, "n": n, "reps": reps, "rows": rows}


def null(reps: int, seed: int) -> dict[str, Any]:
    """Quantiles :data:`NULL_PROBS` of the octile kurtosis of ``reps`` normal samples at
    each n of :data:`NULL_SIZES`."""
    out = {}
    for n in NULL_SIZES:
        g = np.random.default_rng([seed, n, 8])
        x = g.standard_normal((reps, n))
        q = np.quantile(x, [1 / 8, 2 / 8, 3 / 8, 5 / 8, 6 / 8, 7 / 8], axis=-1)
        m = ((q[5] - q[3]) + (q[2] - q[0])) / (q[4] - q[1])
        out[str(n)] = np.quantile(m, NULL_PROBS).round(4).tolist()
        print(n, out[str(n)], flush=True)
    return {"seed": seed, "reps": reps, "probs": NULL_PROBS, "quantiles": out}


def stretch(est: float, lo: float, hi: float, ratio: float) -> tuple[float, float]:
    return est * (lo / est) ** ratio if lo > 0 else lo, est * (hi / est) ** ratio


def evaluate(cells: list[dict[str, Any]], gate: Any) -> list[dict[str, Any]]:
    """Coverage of the truth 1 and median width over before's, per cell, for before (the
    plain bootstrap-t), ``heavyt12`` (every stretch) and ``gate(n, K, K_rob, m)`` (the
    stretch it returns)."""
    out = []
    for c in cells:
        rows = np.array(c["rows"], dtype=float)
        est, lo, hi, k, k_rob, m = rows[:, :6].T
        res: dict[str, Any] = {"law": c["law"], "n": c["n"]}
        w0 = np.median(hi - lo)
        for name in ("before", "heavyt12", "gated"):
            cov, wid, stretched, ratios = [], [], 0, []
            for j in range(len(rows)):
                ratio = math.sqrt((k_rob[j] - 1) / (k[j] - 1)) if k[j] > 1 else 1.0
                if name == "before":
                    ratio = 1.0
                elif name == "gated":
                    ratio = gate(c["n"], k[j], k_rob[j], m[j])
                stretched += ratio > 1
                ratios.append(ratio)
                a, b = stretch(est[j], lo[j], hi[j], ratio) if ratio > 1 else (lo[j], hi[j])
                cov.append(a <= 1.0 <= b)
                wid.append(b - a)
            res[name] = [round(float(np.mean(cov)), 3), round(float(np.median(wid) / w0), 2)]
            res[name + "_stretched"] = stretched / len(rows)
            res[name + "_ratio_p90_p95"] = np.percentile(ratios, [90, 95]).round(2).tolist()
        res["warned"] = float(rows[:, 6].mean())
        out.append(res)
    return out


def null_gate(p: float) -> Any:
    """The gate at the normal law's ``p`` quantile (``rmse_gate_null.json``), cap-free."""
    null = json.loads((DATA / "rmse_gate_null.json").read_text())
    ns = np.log([int(k) for k in null["quantiles"]])
    q = np.array(list(null["quantiles"].values()))[:, null["probs"].index(p)]

    def gate(n: int, k: float, k_rob: float, m: float) -> float:
        cut = float(np.interp(math.log(n), ns, q))
        return math.sqrt((k_rob - 1) / (k - 1)) if k > 1 and m > cut else 1.0

    return gate


def sweep(paths: list[Path]) -> list[dict[str, Any]]:
    """Coverage and median width over before's, per law and n, of before, heavyt12 and the
    gates at the normal law's 75-95% points (uncapped), the module's gate (``gated``: the
    85% point, the stretch at most ``MAX_RATIO``) and that gate with other caps (inf: none),
    the cells of ``paths`` pooled (600 test sets a cell from two seeds)."""
    from mlci.engine.rmse_robust import GATE_PROBABILITY, MAX_RATIO, octile_kurtosis_gate

    def capped_gate(cap: float) -> Any:
        def gate(n: int, k: float, k_rob: float, m: float) -> float:
            ok = k > 1 and m > octile_kurtosis_gate(n)
            return min(math.sqrt((k_rob - 1) / (k - 1)), cap) if ok else 1.0

        return gate

    module_gate = capped_gate(MAX_RATIO)

    pooled: dict[tuple[str, int], dict[str, Any]] = {}
    for path in paths:
        for c in json.loads(path.read_text())["cells"]:
            key = (c["law"], c["n"])
            if key in pooled:
                pooled[key]["rows"] = pooled[key]["rows"] + c["rows"]
                pooled[key]["reps"] += c["reps"]
            else:
                pooled[key] = dict(c)
    cells = list(pooled.values())
    out = evaluate(cells, module_gate)
    for p in (0.75, 0.8, 0.9, 0.95):
        for row, other in zip(out, evaluate(cells, null_gate(p)), strict=True):
            row[f"gate_{p}"] = other["gated"]
    for cap in (math.inf, 3.0, 1.5):
        for row, other in zip(out, evaluate(cells, capped_gate(cap)), strict=True):
            row[f"gate_cap_{cap}"] = other["gated"]
    for row, c in zip(out, cells, strict=True):
        row["reps"] = c["reps"]
        row["max_ratio"] = MAX_RATIO
        row["gate_probability"] = GATE_PROBABILITY
        print(
            f"{row['law']:8s} {row['n']:4d} ({row['reps']}) before {row['before'][0]:.3f} "
            f"heavyt12 {row['heavyt12'][0]:.3f} ({row['heavyt12'][1]:.2f}) gated "
            f"{row['gated'][0]:.3f} ({row['gated'][1]:.2f}, {row['gated_stretched']:.2f}) "
            + " ".join(f"{p}: {row[f'gate_{p}'][0]:.3f}" for p in (0.75, 0.8, 0.9, 0.95))
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--laws", default=",".join(LAWS))
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--seed", type=int, default=120)
    ap.add_argument("--out")
    ap.add_argument("--null", action="store_true")
    ap.add_argument("--evaluate", help="cells files in scripts/data, comma-separated")
    args = ap.parse_args()
    if args.null:
        got = null(args.reps, args.seed)
        if args.out:
            Path(args.out).write_text(json.dumps(got, indent=0) + "\n")
        return
    if args.evaluate:
        rows = sweep([DATA / f for f in args.evaluate.split(",")])
        if args.out:
            Path(args.out).write_text(json.dumps({"cells": rows}, indent=0) + "\n")
        return
    cells = []
    for law in args.laws.split(","):
        for n in (int(s) for s in args.sizes.split(",")):
            cells.append(cell(law, n, args.reps, args.seed))
            print(law, n, flush=True)
            if args.out:
                body = {"seed": args.seed, "reps": args.reps, "cells": cells}
                Path(args.out).write_text(json.dumps(body, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
