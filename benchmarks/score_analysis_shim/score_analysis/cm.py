"""``score_analysis.cm.ConfusionMatrix`` on mlci.ConfusionMatrix (renamed arguments only)."""

from __future__ import annotations

import numpy as np

import mlci


class ConfusionMatrix(mlci.ConfusionMatrix):
    def __init__(
        self,
        labels=None,
        predictions=None,
        *,
        weights=None,
        matrix=None,
        classes=None,
        binary=False,
    ):
        super().__init__(
            labels,
            predictions,
            sample_weight=weights,
            matrix=matrix,
            classes=classes,
            binary=binary,
        )


def _no_rate_ci(self, *args, **kwargs):
    raise NotImplementedError(
        "mlci.ConfusionMatrix has no per-rate analytic interval methods: "
        "mlci.proportion_ci(k, n) (Wilson by default) or ConfusionMatrix.bootstrap_ci"
    )


for _name in ("tpr", "tnr", "fpr", "fnr", "tar", "frr", "trr", "far"):
    setattr(ConfusionMatrix, _name + "_ci", _no_rate_ci)


def _method(name):
    def method(self, *args, as_dict=False, **kwargs):
        value = getattr(mlci.ConfusionMatrix, name, None)
        value = (
            value(self, *args, **kwargs)
            if callable(value)
            else self.metric(name.rstrip("_"), *args, **kwargs)
        )
        if as_dict:
            return dict(zip(self.classes, np.asarray(value).tolist(), strict=True))
        return value

    return method


for _name in (
    "tp",
    "tn",
    "fp",
    "fn",
    "p",
    "n",
    "top",
    "ton",
    "pop",
    "accuracy",
    "error_rate",
    "tpr",
    "tnr",
    "fpr",
    "fnr",
    "tar",
    "frr",
    "trr",
    "far",
    "topr",
    "tonr",
    "acceptance_rate",
    "rejection_rate",
    "ppv",
    "npv",
    "fdr",
    "for_",
    "class_accuracy",
    "class_error_rate",
):
    setattr(ConfusionMatrix, _name, _method(_name))
ConfusionMatrix.nb_classes = property(lambda self: self.n_classes)
