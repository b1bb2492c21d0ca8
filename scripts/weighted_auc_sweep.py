"""Coverage of the weighted ROC AUC's ``auto`` interval near 1 (issue 20; session 11, cllrwauc).

``scripts/design_search_scores.py`` found ``auc_ci`` of weighted Scores short and mostly
unwarned in every search since seed 10 (s10sc #45, #66; s11sc #6; s12sc #24; s13sc #14,
#25): 1 - AUC of 1e-6 to 4e-5, BCa 0.17-0.61, all misses above the truth.  This sweep
draws that family's populations (design_search_scores.Population, family ``weighted``:
binormal scores, the easy negatives, below the negatives' median, kept with probability
q and weighted 1/q) over a grid of 1 - AUC from 1e-2 to 1e-5, iid and over conditions,
and records per cell ``auto``'s coverage (the mlci on ``PYTHONPATH``), whether it warned
(any MlciWarning), which method it chose, its misses above / below the truth, its median
width, and BCa's and the percentile interval's from the same replicates.

Each test set gets ``auto`` with the weighted-AUC rule off (``--rule off``: auto as before
it, BCa and its warnings) or on (``--rule on``: the code), BCa and the percentile interval
from the same replicates, and the rule's interval whether or not its gate holds, so that
the gates of :data:`GATES` are compared post hoc on the same test sets (:func:`gated`).
The session-11 runs (docs/validation.md, "The weighted AUC at 1 and Cllr at few targets
(session 11, cllrwauc)"), in parallel and joined::

    for C in "0 1 2 3 4 5" "10 11 12 13 14 15" "20 21 22 23 24 25" "30 31 32 33 34 35" \
             "40 41 42 43 44 45"; do
        nice -n 15 python scripts/weighted_auc_sweep.py --rule off --reps 300 \
            --away-reps 150 $(printf -- "--cell %s " $C) --json /tmp/off_${C%% *}.json &
    done; wait
    for C in 1 2 11 12 21 22 31 41 42; do
        nice -n 15 python scripts/weighted_auc_sweep.py --rule on --reps 300 --cell $C \
            --json /tmp/on_$C.json &
    done; wait
    python scripts/weighted_auc_sweep.py --json scripts/data/weighted_auc_sweep.json \
        --merge /tmp/off_*.json /tmp/on_*.json
    python scripts/weighted_auc_sweep.py --json scripts/data/weighted_auc_sweep.json --report

(The seed, 111, and each test set's draw depend on the cell only: any split of the cells
gives the same numbers.)
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
from scipy import stats
from scipy.special import ndtri

sys.path.insert(0, str(Path(__file__).resolve().parent))
import design_search_scores as dss

mlci = dss.mlci

#: (n, prevalence, q, conditions, icc, unequal): the iid and clustered layouts
LAYOUTS = (
    (500, 0.3, 0.2, 0, 0.0, False),
    (2000, 0.05, 0.4, 0, 0.0, False),
    (500, 0.35, 0.2, 60, 0.3, False),
    (2000, 0.2, 0.2, 400, 0.4, True),
    (1000, 0.1, 0.1, 40, 0.2, True),
)
#: 1 - AUC near the edge (AUC 0.99-0.99999) and away from it (the fingerprint)
ERRORS = (1e-2, 1e-3, 1e-4, 1e-5)
AWAY = (0.05, 0.02)


def cells() -> list[dict[str, Any]]:
    out = []
    for k, (n, prev, q, c, icc, uneq) in enumerate(LAYOUTS):
        for j, err in enumerate((*ERRORS, *AWAY)):
            out.append(
                {"id": 10 * k + j, "n": n, "prevalence": prev, "q": q, "conditions": c,
                 "icc": icc, "unequal": uneq, "error": err}
            )  # fmt: skip
    return out


def design(cell: dict[str, Any]) -> Any:
    return dss.Design(
        1000 + cell["id"], "weighted", "auc", cell["n"], cell["prevalence"], cell["error"],
        cell["conditions"], cell["icc"], cell["unequal"], 0.0, cell["q"],
    )  # fmt: skip


def _score_interval(sc: Any, cond: Any) -> tuple[float, float, float, float, float]:
    """(low, high, m', n', 1 - AUC) of mlci.engine.weighted_auc_edge's interval of this
    test set, computed whether or not its rule holds (m', n': the sizes the interval reads,
    after the design effect and Korn & Graubard's t over conditions)."""
    from mlci.engine import weighted_auc_edge as wae

    t = wae.weighted_auc_terms(sc._sign * sc._y_score, sc._is_pos, sc._w, cond)
    low, high = wae.weighted_auc_interval(t)
    k = 1.0
    if t.n_conditions is not None:
        z = float(ndtri(0.975))
        k = (float(stats.t.ppf(0.975, max(t.n_conditions - 1, 1))) / z) ** 2 * t.deff
    return low, high, t.m_eff / k, t.n_eff / k, 1.0 - t.auc


def run_cell(
    cell: dict[str, Any], reps: int, B: int, seed: int, rule: bool = False
) -> dict[str, Any]:
    """``reps`` test sets of a cell: ``auto`` with the weighted-AUC rule off (``rule``
    False: auto as before it, BCa and its warnings) or on, BCa and percentile from the
    same replicates, and the rule's interval of every test set (whether or not its gate
    holds), so that gates can be compared post hoc (:func:`gated`)."""
    from mlci.engine import weighted_auc_edge as wae

    d = design(cell)
    pop = dss.Population(d)
    truth = pop.truth
    rows: dict[str, list[Any]] = {k: [] for k in PER_TEST_SET}
    t0 = time.process_time()
    saved = wae.weighted_auc_rule
    if not rule:
        wae.weighted_auc_rule = lambda terms: False  # type: ignore[assignment]
    try:
        for i in range(reps):
            g = np.random.default_rng([seed, cell["id"], i])
            x = pop.draw(g)
            sc = mlci.Scores.from_labels(x["y"], x["s"], sample_weight=x["weight"])
            with warnings.catch_warnings(record=True) as caught, mlci.config_context(n_jobs=1):
                warnings.simplefilter("always")
                res = mlci.auc_ci(
                    sc, conditions=x["conditions"], n_resamples=B, rng=int(g.integers(2**31))
                )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                bca = res.interval(method="bca").confidence_interval
                pct = res.interval(method="percentile").confidence_interval
            lo, hi, m_eff, n_eff, gap = _score_interval(sc, x["conditions"])
            auto = res.confidence_interval
            rows["estimate"].append(float(res.estimate))
            rows["pairs"].append(gap * m_eff * n_eff)
            rows["warned"].append(any(issubclass(w.category, mlci.MlciWarning) for w in caught))
            rows["method"].append(res.method)
            for name, (a, b) in (("auto", auto), ("bca", bca), ("pct", pct), ("score", (lo, hi))):
                rows[f"{name}_cover"].append(bool(a <= truth <= b))
                rows[f"{name}_above"].append(bool(truth > b))
                rows[f"{name}_width"].append(float(b - a))
    finally:
        wae.weighted_auc_rule = saved
    return {**cell, "truth": truth, "reps": reps, "B": B, "seed": seed, "rule": rule,
            "cpu_seconds": round(time.process_time() - t0, 1), "test_sets": rows}  # fmt: skip


#: what :func:`run_cell` keeps of every test set
PER_TEST_SET = (
    "estimate", "pairs", "warned", "method",
    *(f"{m}_{k}" for m in ("auto", "bca", "pct", "score") for k in ("cover", "above", "width")),
)  # fmt: skip


def gated(cell: dict[str, Any], gate: Any) -> dict[str, float]:
    """Coverage, misses above, warned share (and in the misses) and median width of auto
    with the rule's interval where ``gate(estimate, pairs)`` holds (warned there), auto as
    recorded elsewhere (a cell run with the rule off: auto before it)."""
    ts = cell["test_sets"]
    fire = np.array([gate(e, p) for e, p in zip(ts["estimate"], ts["pairs"], strict=True)])
    pick = {
        k: np.where(fire, np.asarray(ts[f"score_{k}"]), np.asarray(ts[f"auto_{k}"]))
        for k in ("cover", "above", "width")
    }
    warned = fire | np.asarray(ts["warned"], dtype=bool)
    miss = ~pick["cover"].astype(bool)
    return {
        "coverage": float(np.mean(pick["cover"])),
        "truth_above": float(np.mean(pick["above"])),
        "warned": float(np.mean(warned)),
        "warned_in_misses": float(np.mean(warned[miss])) if miss.any() else math.nan,
        "fires": float(np.mean(fire)),
        "median_width": float(np.median(pick["width"])),
    }


#: the gates compared (estimate, effective mis-ordered pairs ``(1 - AUC) m' n'``)
GATES = {
    "none (before)": lambda e, p: False,
    "band 0.01": lambda e, p: min(e, 1 - e) <= 0.01,
    "band 0.001": lambda e, p: min(e, 1 - e) <= 0.001,
    "pairs < 5": lambda e, p: min(e, 1 - e) <= 0.01 and p < 5,
    "pairs < 10": lambda e, p: min(e, 1 - e) <= 0.01 and p < 10,
    "pairs < 20": lambda e, p: min(e, 1 - e) <= 0.01 and p < 20,
    # adopted (mlci.engine.weighted_auc_edge.weighted_auc_rule)
    "band 0.001 or pairs < 10": lambda e, p: (
        min(e, 1 - e) <= 0.001 or (min(e, 1 - e) <= 0.01 and p < 10)
    ),
}


def _label(c: dict[str, Any]) -> str:
    where = "iid" if not c["conditions"] else (
        f"C={c['conditions']} icc={c['icc']}{' unequal' if c['unequal'] else ''}")  # fmt: skip
    return f"n={c['n']} prev={c['prevalence']} q={c['q']} {where}"


def summarise(cell: dict[str, Any], keep: bool = False) -> dict[str, Any]:
    """The cell with every gate's summary (:data:`GATES`, :func:`gated`), BCa's and the
    percentile interval's; the per-test-set records only with ``keep``."""
    ts = cell["test_sets"]
    out = {k: v for k, v in cell.items() if k != "test_sets" or keep}
    out["estimate_at_1"] = float(np.mean(np.asarray(ts["estimate"]) >= 1 - 1e-12))
    out["pairs_median"] = float(np.median(ts["pairs"]))
    out["methods"] = {
        m: {"coverage": float(np.mean(ts[f"{m}_cover"])),
            "truth_above": float(np.mean(ts[f"{m}_above"])),
            "median_width": float(np.median(ts[f"{m}_width"]))}
        for m in ("auto", "bca", "pct", "score")
    }  # fmt: skip
    out["auto_methods"] = {m: ts["method"].count(m) for m in sorted(set(ts["method"]))}
    out["warned"] = float(np.mean(ts["warned"]))
    out["gates"] = {name: gated(cell, gate) for name, gate in GATES.items()}
    return out


ADOPTED = "band 0.001 or pairs < 10"


def adopted(cell: dict[str, Any], on: dict[str, Any] | None) -> dict[str, float] | None:
    """The adopted gate's summary of a cell: its own (runs after it was added), or read off
    the gates it combines where one decides every test set (band 0.001 firing in none:
    the pairs gate; in all: the band), or the cell's ``--rule on`` run (the code), else
    None."""
    gs = cell["gates"]
    if ADOPTED in gs:
        return gs[ADOPTED]
    if gs["band 0.001"]["fires"] == 0.0:
        return gs["pairs < 10"]
    if gs["band 0.001"]["fires"] == 1.0:
        return gs["band 0.001"]
    if on is not None:
        return {"coverage": on["methods"]["auto"]["coverage"], "warned": on["warned"],
                "fires": on["auto_methods"].get("auc-score-floored", 0) / on["reps"]}  # fmt: skip
    return None


def _short(cov: float, n: int) -> bool:
    """Below 0.935 by more than 1.645 binomial standard errors (one-sided 5%)."""
    return cov < 0.935 - 1.645 * math.sqrt(0.95 * 0.05 / n)


def report(doc: dict[str, Any]) -> str:
    runs = doc.get("runs", {})
    off = sorted(runs.get("rule_off", []), key=lambda c: c["id"])
    on = {c["id"]: c for c in runs.get("rule_on", [])}
    names = [g for g in GATES if g not in ("none (before)", ADOPTED)]

    def fmt(g: dict[str, float] | None) -> str:
        return "—" if g is None else f"{g['coverage']:.3f} ({g['warned']:.2f}; {g['fires']:.2f})"

    lines = [
        "| layout | 1 - AUC | est. at 1 | pairs (median) | BCa | before: auto (warned) | "
        + " | ".join(f"{g}: cov (warned; fires)" for g in names)
        + f" | **adopted ({ADOPTED})** | rule on (code): auto (warned) |",
        "|" + "---|" * (8 + len(names)),
    ]
    for c in off:
        gs = c["gates"]
        cells = " | ".join(fmt(gs.get(g)) for g in names)
        cells += f" | {fmt(adopted(c, on.get(c['id'])))}"
        r = on.get(c["id"])
        code = "—" if r is None else f"{r['methods']['auto']['coverage']:.3f} ({r['warned']:.2f})"
        b = gs["none (before)"]
        lines.append(
            f"| {_label(c)} | {c['error']:g} | {c['estimate_at_1']:.2f} | "
            f"{c['pairs_median']:.3g} | {c['methods']['bca']['coverage']:.3f} | "
            f"{b['coverage']:.3f} ({b['warned']:.2f}) | {cells} | {code} |"
        )
    lines.append("\n| gate | edge cells short (of them unwarned) | cells changed where BCa "
                 "held (mean coverage there, before / after) | away cells changed |")  # fmt: skip
    lines.append("|---|---|---|---|")
    for g in GATES:
        short = unwarned = changed = away = 0
        held: list[tuple[float, float]] = []
        unknown = 0
        for c in off:
            s_ = adopted(c, on.get(c["id"])) if g == ADOPTED else c["gates"].get(g)
            if s_ is None:
                unknown += 1
                continue
            n = c["reps"]
            if c["error"] in AWAY:
                away += s_["fires"] > 0
                continue
            if _short(s_["coverage"], n):
                short += 1
                unwarned += s_["warned"] < 0.5
            if s_["fires"] > 0 and not _short(c["methods"]["bca"]["coverage"], n):
                changed += 1
                held.append((c["gates"]["none (before)"]["coverage"], s_["coverage"]))
        h = np.asarray(held) if held else np.full((1, 2), math.nan)
        lines.append(f"| {g} | {short} ({unwarned}) | {changed} ({h[:, 0].mean():.3f} / "
                     f"{h[:, 1].mean():.3f}) | {away} |"
                     + (f" ({unknown} cells not determined)" if unknown else ""))  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", required=True)
    p.add_argument(
        "--rule",
        choices=("off", "on"),
        default="off",
        help="off: auto before the rule (gates compared post hoc); on: the code",
    )
    p.add_argument("--reps", type=int, default=300)
    p.add_argument("--away-reps", type=int, default=150, help="test sets of the AWAY cells")
    p.add_argument("-B", "--resamples", type=int, default=500)
    p.add_argument("--seed", type=int, default=111)
    p.add_argument("--cell", type=int, action="append", help="only these cell ids")
    p.add_argument("--keep-test-sets", action="store_true")
    p.add_argument("--report", action="store_true")
    p.add_argument("--merge", nargs="*", help="add the cells of these JSON files (parallel runs)")
    args = p.parse_args(argv)
    path = Path(args.json)
    doc = json.loads(path.read_text()) if path.exists() else {"runs": {}}
    for f in args.merge or ():
        part = json.loads(Path(f).read_text())
        for label, rows in part["runs"].items():
            have = doc["runs"].setdefault(label, [])
            ids = {c["id"] for c in rows}
            have[:] = sorted([c for c in have if c["id"] not in ids] + rows, key=lambda c: c["id"])
        doc.setdefault("merged", []).append({"file": Path(f).name, **part.get("environment", {})})
    if args.merge:
        path.write_text(json.dumps(doc, indent=1) + "\n")
    label = f"rule_{args.rule}"
    if not args.report and not args.merge:
        out = doc.setdefault("runs", {}).setdefault(label, [])
        for cell in cells():
            if args.cell and cell["id"] not in args.cell:
                continue
            reps = args.away_reps if cell["error"] in AWAY else args.reps
            raw = run_cell(cell, reps, args.resamples, args.seed, args.rule == "on")
            r = summarise(raw, args.keep_test_sets)
            out[:] = [c for c in out if c["id"] != cell["id"]] + [r]
            doc.setdefault("environment", {})[label] = {
                "script": "scripts/weighted_auc_sweep.py",
                "argv": sys.argv[1:] if argv is None else argv,
                "numpy": np.__version__,
            }
            path.write_text(json.dumps(doc, indent=1) + "\n")
            print(
                f"{label} #{cell['id']} {_label(cell)} 1-auc {cell['error']:g}: "
                + "; ".join(f"{g} {v['coverage']:.3f}/{v['warned']:.2f}"
                            for g, v in r["gates"].items())
                + f" [{r['cpu_seconds']} s]",
                file=sys.stderr,
                flush=True,
            )  # fmt: skip
    print(report(doc))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
