"""A benchmark simulator and the coverage study of the LLM intervals (docs/llm.md).

The simulated benchmark mimics the structure of real ones:

* items come in clusters (passages, subtasks) of **varying size** (1 to ``max_size``
  items, most clusters small: sizes ``1 + Binomial(max_size - 1, p)`` with p drawn per
  cluster from Beta(1, 3));
* an item's difficulty is a cluster effect plus its own: ``d_i = u_g + e_i``
  (``u_g ~ N(0, sd_cluster)``, ``e_i ~ N(0, sd_item)``);
* models are **correlated** through the shared difficulty, with a model-specific item
  effect ``v_mi ~ N(0, sd_model)`` so that the pairing is imperfect: model ``m`` answers
  item ``i`` correctly with probability ``p_mi = logistic(skill_m - d_i - v_mi)``;
* every item is answered ``repeats`` times (independent Bernoulli draws: the
  per-item difficulty makes the repeats of an item correlated).

The estimand is the population mean score ``E[p_m]`` (and the difference of two
models' means), computed by Gauss-Hermite quadrature: ``d_i + v_mi`` is normal with
variance ``sd_cluster^2 + sd_item^2 + sd_model^2``, and cluster sizes are independent of
the effects, so the micro mean over items is consistent for it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..inputs import check_positive_int, check_rng_seed
from .compare import llm_compare
from .estimands import llm_ci
from .log import EvalLog, eval_log

__all__ = ["coverage_experiment", "simulate_benchmark", "true_means"]

DEFAULT_SKILLS = (1.0, 0.8, 0.3)


def true_means(skills=DEFAULT_SKILLS, sd_cluster=0.8, sd_item=0.8, sd_model=0.4) -> np.ndarray:
    """``E[logistic(skill - Z)]`` for ``Z ~ N(0, sd^2)`` (Gauss-Hermite, 200 nodes)."""
    x, w = np.polynomial.hermite_e.hermegauss(200)
    sd = np.sqrt(sd_cluster**2 + sd_item**2 + sd_model**2)
    s = np.asarray(skills, dtype=float)[:, None]
    return (w[None, :] / (1.0 + np.exp(-(s - sd * x[None, :])))).sum(axis=1) / w.sum()


def simulate_benchmark(
    rng: np.random.Generator,
    *,
    n_clusters: int = 50,
    max_size: int = 15,
    repeats: int = 3,
    skills=DEFAULT_SKILLS,
    sd_cluster: float = 0.8,
    sd_item: float = 0.8,
    sd_model: float = 0.4,
) -> EvalLog:
    """One simulated run of ``len(skills)`` models on a clustered benchmark (see module)."""
    p = rng.beta(1.0, 3.0, n_clusters)
    sizes = 1 + rng.binomial(max_size - 1, p)
    cluster = np.repeat(np.arange(n_clusters), sizes)
    n = cluster.size
    d = rng.normal(0, sd_cluster, n_clusters)[cluster] + rng.normal(0, sd_item, n)
    s = np.asarray(skills, dtype=float)
    M = s.size
    prob = 1.0 / (1.0 + np.exp(-(s[:, None] - d[None, :] - rng.normal(0, sd_model, (M, n)))))
    answers = (rng.random((M, n, repeats)) < prob[:, :, None]).astype(float)
    return eval_log(
        model=np.repeat([f"m{j}" for j in range(M)], n * repeats),
        item=np.tile(np.repeat(np.arange(n), repeats), M),
        repeat=np.tile(np.arange(repeats), M * n),
        score=answers.ravel(),
        clusters={"passage": np.tile(np.repeat(cluster, repeats), M)},
    )


def coverage_experiment(
    seed: Any, *, n_resamples: int = 1000, methods=("cr1", "percentile", "bca"), **sim: Any
) -> dict[str, Any]:
    """One experiment: whether each method's 95% intervals contain the truth.

    Returns ``{(kind, method): bool array}`` with kind ``"model"`` (each model's
    clustered interval) and ``"pair"`` (each pair's paired, clustered interval).
    """
    n_resamples = check_positive_int("n_resamples", n_resamples)
    rng = np.random.default_rng(check_rng_seed(seed))
    skills = sim.get("skills", DEFAULT_SKILLS)
    truth = true_means(
        skills,
        sim.get("sd_cluster", 0.8),
        sim.get("sd_item", 0.8),
        sim.get("sd_model", 0.4),
    )
    log = simulate_benchmark(rng, **sim)
    names = log.models
    out: dict[Any, Any] = {}
    for method in methods:
        opts = {"method": method, "cluster": "passage"}
        if method != "cr1":
            opts.update(rng=rng.integers(2**31), n_resamples=n_resamples)
        res = llm_compare(log, **opts)
        est = llm_ci(log, **opts) if method == "cr1" else None
        models = res.models if est is None else est.models
        out[("model", method)] = np.array(
            [
                models[m].confidence_interval.low <= truth[j] <= models[m].confidence_interval.high
                for j, m in enumerate(names)
            ]
        )
        out[("pair", method)] = np.array(
            [
                d.confidence_interval.low
                <= truth[names.index(d.a)] - truth[names.index(d.b)]
                <= d.confidence_interval.high
                for d in res.differences
            ]
        )
    return out
