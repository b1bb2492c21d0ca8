"""compare's systems get average precision's auto interval as bootstrap_ci does.

Session 10 (helper apclu): ``method="auto"`` gives a single average precision the logit
jackknife interval where its rule holds (engine/ap_interval.py); compare's per-system
intervals kept BCa, so the two doors differed (issue 20, item 4: one method resolution).
"""

from __future__ import annotations

import warnings

import numpy as np

import mlci


def _data(n: int = 600, seed: int = 1) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    g = np.random.default_rng(seed)
    y = (g.random(n) < 0.15).astype(int)
    return y, {"a": g.normal(size=n) + 2 * y, "b": g.normal(size=n) + 1.8 * y}


def test_compare_systems_match_bootstrap_ci_for_average_precision():
    y, systems = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        c = mlci.compare(y, systems, metric="average_precision", rng=0)
        for name, s in systems.items():
            solo = mlci.bootstrap_ci(y, s, metric="average_precision", rng=0)
            assert solo.method == "logit_jackknife"
            got = c.systems[name]
            assert got.method == solo.method
            assert tuple(got.confidence_interval) == tuple(solo.confidence_interval)
            assert got.details["method_reason"] == solo.details["method_reason"]


def test_compare_named_bca_keeps_bca_for_average_precision():
    y, systems = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mlci.MlciWarning)
        c = mlci.compare(y, systems, metric="average_precision", rng=0, method="bca")
    assert {r.method for r in c.systems.values()} == {"bca"}
