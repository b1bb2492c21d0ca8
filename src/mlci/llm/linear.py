"""Linearized intervals of the LLM estimands: CR2 + t, and the bootstrap-t over clusters.

Every estimand of :mod:`mlci.llm.estimands` is a weighted mean of per-item values,
``theta_m = sum_i w_i y_mi / W``, so everything the interval needs comes from the
per-cluster sums ``T_mg = sum_{i in g} w_i y_mi`` and ``W_g = sum_{i in g} w_i`` (items
are their own clusters without ``conditions=``; clusters lie inside tasks, which are fixed
strata unless they are the clusters themselves):

* **standard error (CR2).**  The weighted mean is the regression of the item values on
  the task indicators (one constant with a single task), and its bias-reduced
  cluster-robust variance (Bell & McCaffrey 2002) has a closed form: the leverage block of
  cluster ``g`` in task ``t`` is ``1 w_g' / W_t``, of rank one with eigenvalue
  ``h_g = W_g / W_t``, so ``(I - H_gg)^(-1/2)`` multiplies the cluster's score by
  ``(1 - h_g)^(-1/2)`` and ``V = sum_g z_g^2 / (1 - h_g)`` with the influence
  ``z_g = (T_g - ybar_t W_g) / W``.  Equal to CR1 without the ``G/(G-1)`` factor when the
  clusters are of equal weight, larger for unequal ones (the engine's CR2,
  :mod:`mlci.engine.linearize`, is the unweighted single-stratum case).
* **degrees of freedom**: Kish's effective number of clusters minus the number of tasks,
  ``(sum_g W_g)^2 / sum_g W_g^2 - n_strata`` (``G - 1`` for equal clusters in one task;
  the engine's rule for paired differences, docs/validation.md section 2).
* **differences** are linear: the influence of ``a - b`` is ``z_a - z_b``, so the
  variance of every pair is ``Gram_aa + Gram_bb - 2 Gram_ab`` with
  ``Gram = Z diag(1/(1-h)) Z'`` -- one (M x G) @ (G x M) product for all pairs.
* **the bootstrap-t** (studentized) resamples clusters within tasks with the engine's
  sampler, streams and replicate loop (:func:`mlci.engine.nested.plan_for_conditions`,
  :func:`mlci.engine.bootstrap.run_replicates`): for a chunk of cluster counts ``U``
  (B x G) every model's replicate is ``U T' / U W`` and its CR1 standard error is a
  quadratic form in ``U`` -- three (B x G) @ (G x M) products per task for all models
  at once; the interval is :func:`mlci.intervals.bootstrap.studentized_interval` on the
  logit scale.

References: Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors
for linear regression with multi-stage samples. *Survey Methodology* 28, 169-181;
Imbens, G. W. & Kolesar, M. (2016). Robust standard errors in small samples: some
practical advice. *Review of Economics and Statistics* 98, 701-712; Efron & Tibshirani
(1993), ch. 12.5 (bootstrap-t).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.cr2 import cr2_factor, ratio_influence
from ..engine.nested import plan_for_conditions
from ..engine.replicate_loop import run_replicates
from ..engine.resampling import ResamplingPlan
from ..inputs import EngineOptions

__all__ = ["ClusterSums", "cluster_sums", "cr2_gram", "pair_replicates", "replicates"]


@dataclass(frozen=True)
class ClusterSums:
    """The per-cluster sums of an item table (see the module docstring).

    Attributes
    ----------
    T : ndarray, shape (n_models, G)
        ``sum_{i in g} w_i y_mi``.
    Wg : ndarray, shape (G,)
        ``sum_{i in g} w_i``.
    stratum : ndarray of int, shape (G,)
        Task of every cluster (all 0 when tasks are not strata).
    estimate : ndarray, shape (n_models,)
    z : ndarray, shape (n_models, G)
        Influence of every cluster (residuals from the task means).
    leverage : ndarray, shape (G,)
        ``W_g / W_t``.
    df : float
        Kish's effective number of clusters minus the number of strata (at least 1).
    effective_clusters : float
    plan : ResamplingPlan
        The engine's resampling plan over the clusters (for the bootstrap-t).
    counts : ndarray, shape (G,)
        Items per cluster (the sampler's atom counts).
    engine : EngineOptions
        How the engine runs the bootstrap-t (``batch``, ``n_jobs``, ``max_memory``).
    """

    T: np.ndarray
    Wg: np.ndarray
    stratum: np.ndarray
    estimate: np.ndarray
    z: np.ndarray
    leverage: np.ndarray
    df: float
    effective_clusters: float
    plan: ResamplingPlan
    counts: np.ndarray
    engine: EngineOptions

    @property
    def n_clusters(self) -> int:
        return int(self.Wg.size)

    def cr2_se(self) -> np.ndarray:
        """Every model's CR2 standard error."""
        return np.sqrt(np.maximum((self.z**2 * cr2_factor(self.leverage)).sum(axis=1), 0.0))


def cluster_sums(
    values: np.ndarray,
    weights: np.ndarray,
    cluster: np.ndarray | None,
    strata: np.ndarray | None,
    *,
    n_resamples: int = 1000,
    rng: Any = None,
    engine: EngineOptions | None = None,
) -> ClusterSums:
    """Reduce ``values`` (n_models, n_items) to the per-cluster sums of the estimators.

    ``cluster`` (per item, or None: every item its own cluster) and ``strata`` (per item,
    or None) define the resampling plan, made with the engine's
    :func:`~mlci.engine.nested.plan_for_conditions` (``n_resamples``, ``rng``); ``engine``
    runs its bootstrap-t (default: the configured knobs, :func:`mlci.get_config`).
    """
    values = np.atleast_2d(np.asarray(values, dtype=float))
    n = values.shape[1]
    plan = plan_for_conditions(
        n, conditions=cluster, strata=strata, n_resamples=n_resamples, rng=rng
    )
    unit = np.arange(n) if plan.unit_of_sample is None else np.asarray(plan.unit_of_sample)
    G = int(unit.max()) + 1
    st_item = np.zeros(n, dtype=np.int64) if strata is None else np.asarray(strata)
    stratum = np.zeros(G, dtype=np.int64)
    stratum[unit] = st_item
    T = np.zeros((values.shape[0], G))
    for m in range(values.shape[0]):  # bincount per model: O(M n), no (M, n) temporaries
        T[m] = np.bincount(unit, weights=weights * values[m], minlength=G)
    Wg = np.bincount(unit, weights=weights, minlength=G)
    W = float(Wg.sum())
    n_strata = int(stratum.max()) + 1
    # residuals from the task means over W, and leverages W_g / W_task (mlci.engine.cr2)
    z, lev = ratio_influence(T, Wg, stratum)
    eff = W**2 / float(np.sum(Wg**2))
    return ClusterSums(
        T=T,
        Wg=Wg,
        stratum=stratum,
        estimate=T.sum(axis=1) / W,
        z=z,
        leverage=lev,
        df=float(max(eff - n_strata, 1.0)),
        effective_clusters=float(eff),
        plan=plan,
        counts=np.bincount(unit, minlength=G).astype(float),
        engine=EngineOptions() if engine is None else engine,
    )


def cr2_gram(cs: ClusterSums) -> np.ndarray:
    """``Z diag(1/(1-h)) Z'`` (n_models, n_models): the CR2 covariance of the estimates."""
    return (cs.z * cr2_factor(cs.leverage)) @ cs.z.T


def _run(cs: ClusterSums, columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The replicates of ``U columns / U W`` and their CR1 standard errors, (B, K) each,
    through the engine's replicate loop (:func:`~mlci.engine.bootstrap.run_replicates`:
    chunks, threads, memory bound and progress bar of ``cs.engine``).

    The engine's sampler draws the items' counts over the clusters (atoms); ``U`` is
    their number of copies of every cluster (counts / items per cluster).
    """
    G = cs.n_clusters
    K = columns.shape[1]
    sampler = cs.plan.weights_for(
        np.arange(G) if cs.plan.unit_of_sample is None else np.asarray(cs.plan.unit_of_sample),
        G,
    )
    groups = _groups(cs)

    def evaluate(w: np.ndarray) -> np.ndarray:
        U = w / cs.counts
        den = U @ cs.Wg
        out = np.empty((len(U), 2, K))
        with np.errstate(invalid="ignore", divide="ignore"):
            out[:, 0] = (U @ columns) / den[:, None]
            var = _replicate_var(U, columns, cs.Wg, groups)
            out[:, 1] = np.sqrt(var) / den[:, None]
        return out

    engine = cs.engine
    values = run_replicates(
        evaluate,
        sampler,
        (2, K),
        # the counts, U and its per-task copies; the (b, K) products and temporaries
        bytes_per_row=8.0 * (3 * G + 12 * K),
        batch=engine.batch,
        n_jobs=engine.n_jobs,
        max_memory=engine.max_memory,
    )
    return values[:, 0], values[:, 1]


def _groups(cs: ClusterSums) -> list[np.ndarray]:
    n_strata = int(cs.stratum.max()) + 1
    return [np.flatnonzero(cs.stratum == s) for s in range(n_strata)]


def _replicate_var(U, T, Wg, groups, theta_all=None):
    """Per-stratum CR1 variance numerator of every column of ``T`` (G, K) in every replicate
    of ``U`` (b, G): ``sum_t C_t/(C_t-1) sum_{g in t} u_g (T_g - ybar*_t W_g)^2``."""
    b, K = U.shape[0], T.shape[1]
    out = np.zeros((b, K))
    for idx in groups:
        C = idx.size
        if C < 2:
            continue
        Ut = U[:, idx]
        Tt, Wt = T[idx], Wg[idx]
        den = Ut @ Wt  # (b,)
        num = Ut @ Tt  # (b, K)
        with np.errstate(invalid="ignore", divide="ignore"):
            ybar = num / den[:, None]
        ss = Ut @ (Tt**2) - 2.0 * ybar * (Ut @ (Tt * Wt[:, None])) + ybar**2 * (Ut @ Wt**2)[:, None]
        out += C / (C - 1) * np.maximum(ss, 0.0)
    return out


def replicates(cs: ClusterSums) -> tuple[np.ndarray, np.ndarray]:
    """Every model's bootstrap replicates and their CR1 standard errors, (B, n_models) each."""
    return _run(cs, cs.T.T)


def pair_replicates(
    cs: ClusterSums, ia: np.ndarray, ib: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every pair's (``a - b``) replicates and CR1 standard errors, (B, n_pairs) each.

    Costs ``B x G x n_pairs`` per task: meant for few pairs or few clusters.
    """
    return _run(cs, (cs.T[ia] - cs.T[ib]).T)
