"""The seed-15 score search's #17 (actual Cllr, about 32 targets of 1,501 trials, AUC
0.9998, LLRs x 0.67) test set by test set, as the search drew it (session 12, cllrw12).

``scripts/design_search_scores.py --seed 15 --design 17`` reported ``auto`` covering 0.800
of 100 test sets (0.747 of 300 other ones), warned in 82; this probe runs ``auto`` on the
same test sets (the search's draw ``default_rng([15, 17, i])`` and its bootstrap seed) and
records per test set whether it covered, warned, and which of cllr_ci's warnings fired
(``details["few_errors_warning"]``), with the class counts and costs, so that the misses
left unwarned can be named.  Run with main's sources and with this branch's::

    PYTHONPATH=src nice -n 15 python scripts/cllr_s15sc17.py --reps 100 \
        --json scripts/data/cllr_s15sc17.json --label branch
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import design_search_scores as dss

mlci = dss.mlci


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--json", required=True)
    p.add_argument("--label", required=True, help="the key of this run (e.g. main, branch)")
    p.add_argument("--reps", type=int, default=100)
    p.add_argument("--first", type=int, default=0, help="the first draw (the search's i)")
    p.add_argument("-B", "--resamples", type=int, default=500)
    a = p.parse_args(argv)
    d = dss.random_design(17, 15)
    pop = dss.Population(d)
    rows: list[dict[str, Any]] = []
    for i in range(a.first, a.first + a.reps):
        g = np.random.default_rng([15, d.index, i])
        x = pop.draw(g)
        seed = int(g.integers(2**31))
        with warnings.catch_warnings(record=True) as caught, mlci.config_context(n_jobs=1):
            warnings.simplefilter("always")
            res = dss.run_driver(d, pop, x, None, {"n_resamples": a.resamples, "rng": seed})
        lo, hi = map(float, res.confidence_interval)
        text = str(res.details.get("few_errors_warning") or "")
        y, s = np.asarray(x["y"]), np.asarray(x["s"])
        rows.append({
            "draw": i, "covered": bool(lo <= pop.truth <= hi), "truth_above": bool(pop.truth > hi),
            "warned": any(issubclass(w.category, mlci.MlciWarning) for w in caught),
            "trigger": text.split(";")[0][:60], "targets": int(y.sum()), "trials": len(y),
            "estimate": float(res.estimate), "low": lo, "high": hi,
        })  # fmt: skip
        del s
    path = Path(a.json)
    doc = json.loads(path.read_text()) if path.exists() else {}
    cov = np.mean([r["covered"] for r in rows])
    miss = [r for r in rows if not r["covered"]]
    doc[a.label] = {
        "truth": pop.truth, "reps": len(rows), "coverage": float(cov),
        "warned": sum(bool(r["warned"]) for r in rows), "misses": len(miss),
        "misses_warned": sum(bool(r["warned"]) for r in miss), "test_sets": rows,
    }  # fmt: skip
    path.write_text(json.dumps(doc, indent=0))
    print(a.label, f"coverage {cov:.3f}", f"warned {doc[a.label]['warned']}",
          f"misses {len(miss)}, warned {doc[a.label]['misses_warned']}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
