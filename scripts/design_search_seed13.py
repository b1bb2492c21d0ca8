"""The decision search's changes from seed 13 on (session 10): gated so seeds 0-12 reproduce.

Seed 12 (docs/validation.md, "Design search, seed 12: decision metrics (session 10)")
asked of the next run:

* **an analytic column over conditions for balanced accuracy**: MOVER of the classes'
  Korn & Graubard intervals over the conditions (:func:`mover_kg_over_conditions`, the
  interval ``method="auto"`` gives over conditions with few errors in a class, computed
  here on every test set with both classes), so that the search's verdict does not read
  "no method holds" where that interval holds (s12 #55: the search's analytic column was
  empty over conditions, while MOVER-KG covered 0.983);
* **operating points well below one expected event**: the FNR at a fixed FPR drawn more
  often, and then more often at 0.02-0.3 expected misses at the threshold
  (:func:`seed13_changes`), where Wilson's score interval dips (s12 #44: 0.897 of 600 at
  0.145 expected misses).

``design_search.random_design`` applies :func:`seed13_changes` for ``seed >= 13`` only,
and sets ``Design.analytic_clustered`` from seed 13 on (``_analytic`` reads it), so that
every design of seeds 0-12 and its analytic column are as before.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from mlci.engine.clustered_edge import clustered_class_rates
from mlci.engine.resampling import make_plan
from mlci.intervals.bootstrap import wilson_interval
from mlci.intervals.mover import mover_korn_graubard_interval
from mlci.intervals.near_bound import effective_binomial_interval

#: from this search seed on the changes apply
FIRST_SEED = 13
#: a "scores" design that drew the AUC or the EER becomes an operating point with this
#: probability (the FNR at an FPR then a third plus two thirds of it: 2/3 of the family)
TO_OPERATING_POINT = 1 / 2
#: an operating point is set to 0.02-0.3 expected misses at the threshold this often
LOW_EVENTS, LOW_EVENTS_RANGE = 2 / 3, (0.02, 0.3)


def expected_misses(n: int, prevalence: float, error: float, at: float) -> float:
    """Expected misses at the threshold of an operating-point design: the expected
    positives times the true FNR at FPR ``at`` (``Population``'s truth: binormal scores,
    AUC ``1 - error`` within and over the conditions)."""
    eff = math.sqrt(2.0) * float(ndtri(1.0 - error))
    return max(prevalence * n, 1.0) * float(ndtr(ndtri(1.0 - at) - eff))


def seed13_changes(d: Any, seed: int) -> dict[str, Any]:
    """The fields of design ``d`` (a ``design_search.Design``) that seed 13 on changes:
    ``{}``, or for a "scores" design a subset of ``metric``, ``at`` and ``error``.

    Drawn from a generator of their own (``[seed, d.index, 13]``), so the rest of a
    design is what the seed's main stream gives.  An AUC or EER design becomes an
    operating point with probability :data:`TO_OPERATING_POINT` (its FPR ``at``
    log-uniform on 0.01-0.2, as the main stream draws it); an operating point then gets,
    with probability :data:`LOW_EVENTS`, the error (1 - AUC) at which it expects ``lam``
    misses at the threshold, ``lam`` log-uniform on 0.02-0.3 (:func:`low_event_error`).
    """
    if seed < FIRST_SEED or d.family != "scores":
        return {}
    g = np.random.default_rng([seed, d.index, 13])
    to_op = g.random() < TO_OPERATING_POINT
    at = float(math.exp(g.uniform(math.log(0.01), math.log(0.2))))
    low = g.random() < LOW_EVENTS
    lo, hi = LOW_EVENTS_RANGE
    lam = float(math.exp(g.uniform(math.log(lo), math.log(hi))))
    out: dict[str, Any] = {}
    if d.metric != "fnr_at_fpr":
        if not to_op:
            return {}
        out.update(metric="fnr_at_fpr", at=at)
    if low:
        out["error"] = low_event_error(d.n, d.prevalence, out.get("at", d.at), lam)
    return out


def low_event_error(n: int, prevalence: float, at: float, lam: float) -> float:
    """1 - AUC at which an operating point at FPR ``at`` expects ``lam`` misses at the
    threshold (the inverse of :func:`expected_misses`)."""
    n_pos = max(prevalence * n, 1.0)
    eff = float(ndtri(1.0 - at) - ndtri(min(lam / n_pos, 0.5)))
    return float(np.clip(ndtr(-eff / math.sqrt(2.0)), 1e-9, 0.5))


def mover_kg_over_conditions(
    y: np.ndarray, a: np.ndarray, conditions: np.ndarray, confidence_level: float = 0.95
) -> tuple[float, float] | None:
    """Balanced accuracy's MOVER interval of the classes' Korn & Graubard intervals over
    ``conditions`` (as ``method="auto"`` computes it: the specificity's and the recall's
    CR2 standard errors, degrees of freedom and effective sizes,
    :func:`mlci.engine.clustered_edge.clustered_class_rates`); ``None`` without both
    classes."""
    y, a = np.asarray(y, dtype=np.int64), np.asarray(a, dtype=np.int64)
    if y.min() == y.max():
        return None
    kernel = _Keys(2 * y + a)
    plan = make_plan(len(y), conditions=np.asarray(conditions))
    rates = clustered_class_rates(kernel, plan)
    low, high, _ = mover_korn_graubard_interval(
        rates, effective_binomial_interval, wilson_interval, confidence_level=confidence_level
    )
    return float(low), float(high)


class _Keys:
    """The two-class confusion keys ``2 y + a`` as ``clustered_class_rates`` reads them."""

    def __init__(self, keys: np.ndarray):
        self.keys = keys
