"""The clustered-class warning's false alarms: can the spread of the errors over the
conditions silence some without leaving misses unwarned? (issue 20)

The clustered-class warning (:func:`mlci.engine.auto.clustered_class_rule`) fires in 21 of
36 holding F1 cells of the class sweep (``scripts/search2_study.py class-sweep``), mostly
at ICC 0-0.1.  Gates on the errors' estimated ICC silenced intervals covering 0.859-0.875
(docs/validation.md, "The clustered-class warning, with the data's ICC").  This script
reads other evidence off the same test sets (the sweep's draws, recomputed: no interval
is drawn again): per class and over both, the number of errors, the number of conditions
holding an error (``h``) and Kish's effective number of conditions of the errors (``k``,
``(sum e_c)^2 / sum e_c^2``), and scores rules that silence the warning where the errors
spread over many conditions (optionally adding one where they concentrate), per cell
and per interval, on all 96 cells and on the two halves of the cells (odd and even
index: the threshold read on one half, checked on the other).

Usage::

    nice python scripts/clustered_class_errors_study.py features SWEEP.jsonl OUT.jsonl
    python scripts/clustered_class_errors_study.py report SWEEP.jsonl FEATURES.jsonl ERRORS.jsonl

``SWEEP.jsonl`` and ``FEATURES.jsonl``: ``search2_study.py class-sweep`` and
``class-sweep-features``'s output (300 test sets per cell).
"""

from __future__ import annotations

import itertools
import json
import sys
from typing import Any

import numpy as np

sys.path.insert(0, "scripts")
import search2_study as s2

from mlci.engine.auto import CLUSTERED_ICC_METRICS, clustered_class_rule


def error_features(y: np.ndarray, pred: np.ndarray, cond: np.ndarray) -> dict[str, Any]:
    """Errors (``e``), conditions holding one (``h``) and Kish's number of the errors
    (``k``), of the smaller class (``_s``), the larger (``_l``) and both (``_all``)."""
    n_cond = int(cond.max()) + 1
    small = 1 if y.mean() <= 0.5 else 0
    out: dict[str, Any] = {}
    for tag, m in (("s", y == small), ("l", y != small), ("all", np.ones(len(y), bool))):
        e = np.bincount(cond[m & (pred != y)], minlength=n_cond).astype(float)
        total = e.sum()
        out[f"e_{tag}"] = int(total)
        out[f"h_{tag}"] = int((e > 0).sum())
        out[f"k_{tag}"] = float(total**2 / (e**2).sum()) if total else 0.0
    return out


def features(sweep: str, out: str) -> None:
    cells = {c["design"]["index"]: c for c in map(json.loads, open(sweep))}
    with open(out, "w") as fh:
        for d in s2.class_sweep_cells():
            if d.index not in cells:
                continue
            fs = [
                error_features(np.asarray(x["y"]), np.asarray(x["a"]), np.asarray(x["conditions"]))
                for x, _ in s2._class_test_sets(d, 300)
            ][: len(cells[d.index]["features"])]
            fh.write(json.dumps({"index": d.index, "f": fs}) + "\n")


def _records(sweep: str, feats: str, errs: str) -> list[dict]:
    cells = [json.loads(line) for line in open(sweep)]
    fx = {d["index"]: d["features"] for d in map(json.loads, open(feats))}
    ex = {d["index"]: d["f"] for d in map(json.loads, open(errs))}
    out = []
    for c in cells:
        i, n_cond = c["design"]["index"], c["design"]["n_conditions"]
        for m in s2.CLASS_SWEEP_METRICS:
            for r, f, e in zip(c["rows"][m], fx[i], ex[i], strict=True):
                if r is None:
                    continue
                icc = f["class_error_icc"] if m in CLUSTERED_ICC_METRICS else None
                fired = clustered_class_rule(n_cond, f["few"], f["kish"], icc)
                inr = n_cond >= 20 and f["few"] < 8 * f["kish"]
                out.append(
                    {"cell": i, "m": m, "hit": r["auto"], "fired": fired, "inr": inr}
                    | {"kish": f["kish"]}
                    | e
                )
    return out


def score(recs: list[dict], fired: np.ndarray, cells: set | None = None) -> str:
    """Per metric family: failing cells (auto < 0.935) warned in half their test sets or
    more, missed (and of them below 0.91), false alarms; the unwarned intervals'
    coverage and misses; the silenced intervals' coverage."""
    parts = []
    for fam, ms in (("f1/mcc/kappa", ("f1", "mcc", "cohen_kappa")), ("BA", ("balanced_accuracy",))):
        keep = [
            j for j, r in enumerate(recs) if r["m"] in ms and (cells is None or r["cell"] in cells)
        ]
        by: dict[tuple, list] = {}
        for j in keep:
            by.setdefault((recs[j]["cell"], recs[j]["m"]), []).append(j)
        fail = warned = missed = strong = fa = hold = 0
        for js in by.values():
            cov = np.mean([recs[j]["hit"] for j in js])
            w = np.mean(fired[js]) >= 0.5
            fail += cov < 0.935
            warned += w and cov < 0.935
            missed += (not w) and cov < 0.935
            strong += (not w) and cov < 0.91
            fa += w and cov >= 0.935
            hold += cov >= 0.935
        un = [recs[j]["hit"] for j in keep if not fired[j]]
        sil = [recs[j]["hit"] for j in keep if recs[j]["fired"] and not fired[j]]
        parts.append(
            f"{fam}: warned {warned}/{fail}, missed {missed} (<0.91: {strong}), false alarms "
            f"{fa}/{hold}; unwarned {np.mean(un):.3f} ({len(un) - int(np.sum(un))} misses); "
            f"silenced {len(sil)}: {np.mean(sil) if sil else float('nan'):.3f}"
        )
    return " | ".join(parts)


def report(sweep: str, feats: str, errs: str) -> None:
    recs = _records(sweep, feats, errs)
    now = np.array([r["fired"] for r in recs])
    col = {k: np.array([r[k] for r in recs]) for k in ("h_all", "k_all", "kish")}
    inr = np.array([r["inr"] for r in recs])
    halves = [{c for c in {r["cell"] for r in recs} if c % 2 == p} for p in (0, 1)]
    print("now:", score(recs, now))
    for h, k in itertools.product((8, 10, 12, 15, 20), (0, 5, 8, 10)):
        rule = now & ~((col["h_all"] >= h) & (col["k_all"] >= k))
        print(f"silence h >= {h}, k >= {k}:", score(recs, rule))
        for p, half in enumerate(halves):
            print(f"   half {p}: now", score(recs, now, half), "\n   rule", score(recs, rule, half))
    for h, k, k2, ki in itertools.product((10,), (8, 10), (3, 5, 8), (30, 40, 60)):
        rule = (now & ~((col["h_all"] >= h) & (col["k_all"] >= k))) | (
            inr & (col["kish"] < ki) & (col["k_all"] < k2)
        )
        print(f"silence h >= {h}, k >= {k}; add Kish < {ki} and k < {k2}:", score(recs, rule))


if __name__ == "__main__":
    if sys.argv[1] == "features":
        features(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "report":
        report(*sys.argv[2:5])
    else:
        raise SystemExit(__doc__)
