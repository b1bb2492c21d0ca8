"""``score_analysis.roc_curve`` on mlci.roc_curve / mlci.roc_band (renamed arguments only)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

import mlci

from .scores import _METHODS, DEFAULT_BOOTSTRAP_CONFIG

# mlci's band is evaluated at the points asked for only: no extra support points
ROC_CI_EXTRA_POINTS = 0


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


_POS_RATES = ("fnr", "frr", "tpr", "tar")


def roc(scores, *, fnr=None, fpr=None, thresholds=None, nb_points=100, x_axis="fpr"):
    given = {
        k: v
        for k, v in (("fnr", fnr), ("fpr", fpr), ("thresholds", thresholds))
        if v is not None and len(v) > 0
    }
    points = given if given else {"n_points": nb_points}
    # the other axis: FPR for a positive-class x-axis, FNR for a negative-class one
    y_axis = "fpr" if x_axis in _POS_RATES else "fnr"
    c = mlci.roc_curve(scores, x_axis=x_axis, y_axis=y_axis, **points)
    rates = {c.x_name: c.x, c.y_name: c.y}
    fnr_ = rates["fnr"] if "fnr" in rates else 1 - rates["tpr"]
    fpr_ = rates["fpr"] if "fpr" in rates else 1 - rates["tnr"]
    return ROCCurve(fnr=fnr_, fpr=fpr_, thresholds=c.thresholds)


def roc_with_ci(
    scores,
    *,
    fnr=None,
    fpr=None,
    thresholds=None,
    nb_points=None,
    x_axis="fpr",
    alpha=0.05,
    config=DEFAULT_BOOTSTRAP_CONFIG,
):
    if thresholds is not None or nb_points is not None or x_axis != "fpr":
        raise NotImplementedError("mlci.roc_with_ci: a band at fixed FPR or at fixed FNR values")
    b = mlci.roc_with_ci(
        scores,
        fpr=fpr,
        fnr=fnr,
        confidence_level=1 - alpha,
        n_resamples=config.nb_samples,
        method=_METHODS.get(config.bootstrap_method, config.bootstrap_method),
    )
    fixed = np.stack([b.x, b.x], axis=-1)
    if b.x_name == "fpr":  # TPR band at fixed FPR
        return ROCCurve(
            fnr=1 - b.y,
            fpr=b.x,
            thresholds=None,
            fnr_ci=np.stack([1 - b.high, 1 - b.low], axis=-1),
            fpr_ci=fixed,
        )
    return ROCCurve(
        fnr=b.x, fpr=b.y, thresholds=None, fnr_ci=fixed, fpr_ci=np.stack([b.low, b.high], axis=-1)
    )
