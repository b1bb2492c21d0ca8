"""``score_analysis.metrics``: metrics of (stacks of) confusion-matrix arrays, on mlci."""

from __future__ import annotations

import numpy as np

from .cm import ConfusionMatrix


def _metric(name):
    def fn(matrix, *args, **kwargs):
        m = np.asarray(matrix)
        cm = ConfusionMatrix(matrix=m, binary=m.shape[-1] == 2)
        return getattr(cm, name)(*args, **kwargs)

    fn.__name__ = name
    return fn


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return _metric("for_" if name == "false_omission_rate" else name)
