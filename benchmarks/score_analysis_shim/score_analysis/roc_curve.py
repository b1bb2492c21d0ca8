"""``score_analysis.roc_curve`` on mlci.roc_curve / mlci.roc_band (renamed arguments only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import mlci

ROC_CI_EXTRA_POINTS = 10


@dataclass
class ROCCurve:
    fnr: np.ndarray
    fpr: np.ndarray
    thresholds: np.ndarray
    fnr_ci: Any = None
    fpr_ci: Any = None

    @property
    def tpr(self):
        return 1 - self.fnr

    @property
    def tnr(self):
        return 1 - self.fpr

    tpr_ci = property(lambda self: None if self.fnr_ci is None else 1 - self.fnr_ci[..., ::-1])
    tnr_ci = property(lambda self: None if self.fpr_ci is None else 1 - self.fpr_ci[..., ::-1])
    frr_ci = property(lambda self: self.fnr_ci)
    far_ci = property(lambda self: self.fpr_ci)
    frr = property(lambda self: self.fnr)
    far = property(lambda self: self.fpr)
    tar = tpr
    trr = tnr
    tar_ci = tpr_ci
    trr_ci = tnr_ci


def roc(scores, *, fnr=None, fpr=None, thresholds=None, nb_points=100, x_axis="fpr"):
    if fnr is not None or fpr is not None or x_axis != "fpr":
        raise NotImplementedError("mlci.roc_curve takes thresholds= or n_points= only")
    c = mlci.roc_curve(
        scores, thresholds=thresholds, n_points=None if thresholds is not None else nb_points
    )
    return ROCCurve(fnr=1 - c.y, fpr=c.x, thresholds=c.thresholds)


def roc_with_ci(scores, **kwargs):
    raise NotImplementedError("mlci.roc_band: a band on an FPR grid, not score-analysis's")
