"""Extensions of the paired ROC AUC rule (``mlci.engine.auc_misranked.few_misordered_pairs``)
evaluated offline on saved per-test-set rows (session 12, aucpair18)::

    python scripts/auc_pair18_study.py --json scripts/data/auc_pair18_study.json

The rows (``auto``'s method, whether ``auto`` / BCa covered) come from
``design_search_seed18_pairs24.json`` / ``_pairs66.json`` (draw seed 19),
``design_search_seed16_pairs57.json`` (draw seed 17) and aucedge's
``auc_edge_study_paired.json`` / ``_paired_gap.json`` (draw seed 29); each test set is
redrawn (no interval is run) for its features: each system's misordered (positive,
negative) pairs, class sizes, conditions.  A candidate rule switches a test set where
``auto`` gave t to BCa; a switch gains where only BCa covered and loses where only t did.
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import os
import sys
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import design_search as ds
from auc_edge_study import CELLS, misordered

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def sources() -> list[tuple[str, ds.Design, int, list[dict[str, Any]]]]:
    """(name, design, draw seed, rows) of every saved paired ROC AUC study."""
    out = []
    for k in (24, 66):
        with open(os.path.join(DATA, f"design_search_seed18_pairs{k}.json")) as f:
            v = next(iter(json.load(f)["pairs"].values()))
        out.append((f"s18#{k}", ds.random_design(k, 18), 19, v["rows"]))
    with open(os.path.join(DATA, "design_search_seed16_pairs57.json")) as f:
        v = json.load(f)["pairs"]["s16#57@17"]
    out.append(("s16#57", ds.random_design(57, 16), 17, v["rows"]))
    spec = {f"{c}:{n}": (sd, rp) for c, n, sd, rp in CELLS}
    for name in ("auc_edge_study_paired.json", "auc_edge_study_paired_gap.json"):
        with open(os.path.join(DATA, name)) as f:
            doc = json.load(f)
        for key, cell in doc["cells"].items():
            (seed, index), repl = spec[key]
            d = dataclasses.replace(ds.random_design(index, seed), **repl)
            out.append((f"aucedge {key}", d, doc["draw_seed"], cell["rows"]))
    return out


def features(d: ds.Design, draw_seed: int, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows with ``auto``'s method t, each with its redrawn features."""
    pop = ds.Population(d)
    out = []
    for r in rows:
        if r.get("method") != "t" or "bca" not in r:
            continue
        x = pop.draw(np.random.default_rng([draw_seed, d.index, r["i"]]))
        y = np.asarray(x["y"])
        n_pos, n_neg = int(y.sum()), int(y.size - y.sum())
        cond = x.get("conditions")
        pa = misordered(y, np.asarray(x["a"]), None)["pairs"]
        pb = misordered(y, np.asarray(x["b"]), None)["pairs"]
        out.append(
            {
                "i": r["i"],
                "auto": bool(r["auto"]),
                "bca": bool(r["bca"]),
                "n_pos": n_pos,
                "n_neg": n_neg,
                "n_cond": None if cond is None else int(np.unique(cond).size),
                "worse": max(pa, pb),
                "better": min(pa, pb),
            }
        )
    return out


def make_rule(band: float, max_pairs: float, per_small: float | None, iid: bool) -> Any:
    """A candidate: both 1 - AUC < ``band``, the worse system's misordered pairs below
    ``max_pairs`` (and, if given, below ``per_small`` times the smaller class), over 12+
    conditions (or none, with ``iid``), 10+ samples in the smaller class."""

    def rule(f: dict[str, Any]) -> bool:
        if f["n_cond"] is None:
            if not iid:
                return False
        elif f["n_cond"] < 12:
            return False
        small = min(f["n_pos"], f["n_neg"])
        if small < 10 or f["worse"] >= band * f["n_pos"] * f["n_neg"]:
            return False
        if f["worse"] >= max_pairs:
            return False
        return per_small is None or f["worse"] < per_small * small

    return rule


RULES: dict[str, Any] = {"current (50 pairs, conditions)": make_rule(0.002, 50, None, False)}
for _iid in (False, True):
    for _m in (100, 200, 400, 1000):
        RULES[f"{_m} pairs{' +iid' if _iid else ''}"] = make_rule(0.002, _m, None, _iid)
    for _c in (1.0, 2.0, 3.0, 4.0):
        RULES[f"{_c:g} per smaller-class sample{' +iid' if _iid else ''}"] = make_rule(
            0.002, np.inf, _c, _iid
        )
    for _c in (2.0, 3.0):
        RULES[f"{_c:g} per smaller-class sample or 50{' +iid' if _iid else ''}"] = (
            lambda f, c=_c, i=_iid: (
                make_rule(0.002, 50, None, i)(f) or make_rule(0.002, np.inf, c, i)(f)
            )
        )
_CURRENT = RULES["current (50 pairs, conditions)"]
for _c in (1.0, 2.0, 3.0, 4.0):
    RULES[f"current, or iid with {_c:g} per smaller-class sample"] = lambda f, c=_c: (
        _CURRENT(f) or (f["n_cond"] is None and make_rule(0.002, np.inf, c, True)(f))
    )
#: the implemented rule (mlci.engine.auc_misranked.few_misordered_pairs_iid): two perfect
#: rankings (no misordered pair) excluded
RULES["implemented: current, or iid with 0 < pairs < 2 per smaller-class sample"] = lambda f: (
    _CURRENT(f)
    or (f["n_cond"] is None and f["worse"] > 0 and make_rule(0.002, np.inf, 2.0, True)(f))
)
for _m in (200, 400):
    RULES[f"current, or iid with {_m} pairs"] = lambda f, m=_m: (
        _CURRENT(f) or (f["n_cond"] is None and make_rule(0.002, m, None, True)(f))
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--json")
    args = p.parse_args(argv)
    feats: dict[str, dict[str, Any]] = {}
    for name, d, seed, rows in sources():
        feats[name] = {"label": d.label(), "rows": features(d, seed, rows)}
        f = feats[name]["rows"]
        if f:
            ps = [r["worse"] / max(min(r["n_pos"], r["n_neg"]), 1) for r in f]
            print(
                f"{name:34s} t rows {len(f):3d} worse pairs [{min(r['worse'] for r in f):.0f},"
                f" {max(r['worse'] for r in f):.0f}] per small [{min(ps):.2f}, {max(ps):.2f}]"
                f" n_cond {f[0]['n_cond']}",
                flush=True,
            )
    for cell in sorted(glob.glob(os.path.join(DATA, "auc_pair18_iid_*.json"))):
        with open(cell) as fh:
            v = json.load(fh)  # scripts/auc_pair18_iid.py: features saved with the rows
        rows = [r for r in v["rows"] if r["method"] == "t" and r["bca"] is not None]
        feats["iid check " + os.path.basename(cell)[15:-5]] = {"label": v["label"], "rows": rows}
    table: dict[str, dict[str, list[int]]] = {}
    for rname, rule in RULES.items():
        table[rname] = {}
        for name, v in feats.items():
            sw = [r for r in v["rows"] if rule(r)]
            gained = sum(r["bca"] and not r["auto"] for r in sw)
            lost = sum(r["auto"] and not r["bca"] for r in sw)
            new = [r for r in sw if not _CURRENT(r)]
            ng = sum(r["bca"] and not r["auto"] for r in new)
            nl = sum(r["auto"] and not r["bca"] for r in new)
            table[rname][name] = [len(sw), gained, lost, len(new), ng, nl]
        tot = np.sum(list(table[rname].values()), axis=0)
        cells = " ".join(
            f"{k.split(' ')[-1]}:+{v[4]}/-{v[5]}" for k, v in table[rname].items() if v[3]
        )
        print(
            f"{rname:48s} switched {tot[0]:4d} gained {tot[1]:3d} lost {tot[2]:3d}; beyond the"
            f" current rule {tot[3]:3d} +{tot[4]} -{tot[5]} | {cells}"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"features": feats, "rules": table}, fh, indent=0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
