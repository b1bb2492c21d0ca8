"""One ROC AUC through its four doors (``bootstrap_ci`` with and without ``strata``,
``auc_ci``, ``Scores.bootstrap_ci``) and a binormal test set: shared by the tests of the
AUC's rules under ``auto`` (tests/engine/test_auc_near_edge.py, test_auc_analytic.py)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

import mlci
from mlci.exceptions import FewConditionsWarning

DOORS = ("bootstrap_ci", "strata", "auc_ci", "Scores.bootstrap_ci")


def auc_design(n_pos: int, shift: float, n_neg: int = 150, seed: int = 20261128):
    """``n_pos`` positives at N(shift, 1) and ``n_neg`` negatives at N(0, 1)."""
    g = np.random.default_rng(seed)
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    return y, np.r_[g.normal(shift, 1.0, n_pos), g.normal(0.0, 1.0, n_neg)]


def run_door(door: str, y: Any, score: Any, text: str, method: str = "auto", **kw: Any):
    """The result of ``door`` (B = 200, rng 0) and the texts of its warnings that contain
    ``text``, each checked to be a :class:`FewConditionsWarning`."""
    common = {"n_resamples": 200, "rng": 0, "method": method, **kw}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if door == "bootstrap_ci":
            res = mlci.bootstrap_ci(y, score, metric="roc_auc", **common)
        elif door == "strata":
            res = mlci.bootstrap_ci(y, score, metric="roc_auc", strata=y, **common)
        elif door == "auc_ci":
            res = mlci.auc_ci(y, score, **common)
        else:
            res = mlci.Scores.from_labels(y, score).bootstrap_ci("auc", **common)
    ours = [w for w in caught if text in str(w.message)]
    assert all(issubclass(w.category, FewConditionsWarning) for w in ours)
    return res, [str(w.message) for w in ours]
