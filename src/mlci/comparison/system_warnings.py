"""The design warnings of :func:`mlci.compare`'s systems, as :func:`mlci.bootstrap_ci`
gives them for the same data.

Each system's interval is the one :func:`mlci.bootstrap_ci` gives that system's metric
(docs/guide.md, "Which interval, through which door"), and so are its warnings: where the
design lies outside mlci's coverage map (:func:`mlci.engine.auto.warn_outside_map`: few
conditions, a proportion near its bound over conditions, few samples of a class, the
clustered-class and errors-in-few-conditions rules, the ROC AUC's and average precision's
rules), read off the system's own diagnostics
(:func:`mlci.engine.auto.design_diagnostics`) as :func:`mlci.engine.bootstrap.finish_bootstrap`
reads them for a single metric.  Each message is said once, naming the systems it
concerns.  Not here: the heavy-tail warning (``compare`` gives its own, for systems and
pairs: :func:`mlci.engine.heavy_tail.heavy_tail_systems`) and the systems whose ROC AUC
gets the score-type interval (its own warning: :func:`mlci.engine.auc_analytic.with_auc_score`,
which replaces the bootstrap's as in ``bootstrap_ci``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..engine.auto import design_diagnostics, map_without_linearization, warn_outside_map
from ..exceptions import HeavyTailWarning
from ..feedback import warn

__all__ = ["warn_systems_outside_map"]


def warn_systems_outside_map(
    kernels: Sequence[Any],
    plan: Any,
    names: Sequence[Any],
    metric: str,
    estimates: np.ndarray,
    dist: np.ndarray,
    systems: Sequence[dict[str, Any]],
    skip: Any = (),
) -> dict[str, str]:
    """Give each system's :func:`~mlci.engine.auto.warn_outside_map` warnings, said once
    per message naming its systems; returns ``{repr(name): message}`` of the systems
    warned (the message as :func:`mlci.bootstrap_ci` would give it).

    ``systems``: per system, the keyword arguments of its finish step (``method``,
    ``linear`` when linearized, ``details`` with its ``method_reason``); ``estimates`` and
    ``dist`` (replicates x systems) the systems' estimates and replicates; ``skip``: the
    ``repr`` of systems not warned here (an AUC with its score-type interval).

    Examples
    --------
    >>> import numpy as np, warnings
    >>> from mlci.engine.nested import plan_for_conditions
    >>> from mlci.metrics.ranking import AveragePrecisionKernel
    >>> y = np.r_[np.ones(30, int), np.zeros(170, int)]
    >>> k = AveragePrecisionKernel(y, 5.0 * y + np.linspace(0, 1, 200))  # every positive on top
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     out = warn_systems_outside_map([k], plan_for_conditions(200), ["A"],
    ...         "average_precision", np.array([1.0]), np.ones((10, 1)), [{"method": "bca"}])
    >>> str(w[0].message).split(" whose")[0], w[0].category.__name__
    ("System 'A': Average precision of 1", 'NearBoundWarning')
    """
    said: dict[tuple[type, str], list[str]] = {}
    for s, nm in enumerate(names):
        if repr(nm) in skip:
            continue
        linear = systems[s].get("linear")
        reason = (systems[s].get("details") or {}).get("method_reason")
        diag = design_diagnostics(kernels[s], plan, estimates[s], dist[:, s], linear)
        if linear is None:  # as finish_bootstrap: without the conditions' rules
            if not map_without_linearization(metric, reason):
                continue
            diag = {k: v for k, v in diag.items() if k != "n_conditions"}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warn_outside_map(diag, metric, systems[s]["method"])
        for w in caught:
            if not issubclass(w.category, HeavyTailWarning):
                said.setdefault((w.category, str(w.message)), []).append(repr(nm))
    out: dict[str, str] = {}
    for (category, text), labels in said.items():
        plural = "s" if len(labels) > 1 else ""
        warn(f"System{plural} {', '.join(labels)}: {text}", category)
        out.update(dict.fromkeys(labels, text))
    return out
