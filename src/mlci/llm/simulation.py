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

* with ``n_tasks > 1`` the clusters are dealt to tasks in turn, and task ``t`` shifts
  the difficulty by ``task_shift * (t - (n_tasks - 1) / 2)``.

The estimands (:func:`true_values`), computed by Gauss-Hermite quadrature (``d_i + v_mi``
is normal with variance ``sd_cluster^2 + sd_item^2 + sd_model^2``, and cluster sizes are
independent of the effects, so the item averages are consistent for them):

* ``"mean"`` (and ``"nested"``, the same estimand with repeats resampled as a nested
  level): the population mean score ``E[p_m]``;
* ``"macro"``: the mean over tasks of the task means ``E[p_m | task]``;
* ``"pass@k"``: ``E[1 - (1 - p_m)^k]``, the expectation of Chen et al.'s unbiased
  per-item estimator;

and the difference of two models' values for the pairs.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..inputs import check_choice, check_positive_int, check_rng_seed
from .compare import llm_compare
from .estimands import llm_ci
from .log import EvalLog, eval_log

__all__ = ["SCENARIOS", "coverage_experiment", "simulate_benchmark", "true_means", "true_values"]

DEFAULT_SKILLS = (1.0, 0.8, 0.3)

#: the scenarios of the coverage study: llm_ci/llm_compare options and simulation options
SCENARIOS: dict[str, dict[str, Any]] = {
    "mean": {"options": {}, "sim": {}},
    "nested": {"options": {"repeats": "nested"}, "sim": {}},
    "macro": {"options": {"aggregate": "macro"}, "sim": {"n_tasks": 3}},
    "pass@k": {"options": {"estimand": "pass@k", "k": 2}, "sim": {"repeats": 5}},
}


def true_values(
    skills=DEFAULT_SKILLS,
    sd_cluster: float = 0.8,
    sd_item: float = 0.8,
    sd_model: float = 0.4,
    *,
    n_tasks: int = 1,
    task_shift: float = 0.5,
    k: int | None = None,
) -> np.ndarray:
    """Every model's population value (see the module docstring): the mean score averaged
    over tasks, or with ``k`` the expected pass@k."""
    x, w = _nodes()
    sd = np.sqrt(sd_cluster**2 + sd_item**2 + sd_model**2)
    s = np.asarray(skills, dtype=float)[:, None]
    out = np.zeros(s.shape[0])
    for shift in _task_shifts(n_tasks, task_shift):
        p = 1.0 / (1.0 + np.exp(-(s - shift - sd * x[None, :])))
        if k is not None:
            p = 1.0 - (1.0 - p) ** k
        out += (w[None, :] * p).sum(axis=1) / w.sum()
    return out / n_tasks


def true_means(skills=DEFAULT_SKILLS, sd_cluster=0.8, sd_item=0.8, sd_model=0.4) -> np.ndarray:
    """``E[logistic(skill - Z)]`` for ``Z ~ N(0, sd^2)`` (Gauss-Hermite, 200 nodes)."""
    return true_values(skills, sd_cluster, sd_item, sd_model)


@functools.cache
def _nodes() -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Hermite (probabilists') nodes and weights, 200 of them (computed once)."""
    return np.polynomial.hermite_e.hermegauss(200)


def _task_shifts(n_tasks: int, task_shift: float) -> np.ndarray:
    return task_shift * (np.arange(n_tasks) - (n_tasks - 1) / 2)


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
    n_tasks: int = 1,
    task_shift: float = 0.5,
) -> EvalLog:
    """One simulated run of ``len(skills)`` models on a clustered benchmark (see module)."""
    p = rng.beta(1.0, 3.0, n_clusters)
    sizes = 1 + rng.binomial(max_size - 1, p)
    cluster = np.repeat(np.arange(n_clusters), sizes)
    n = cluster.size
    task = cluster % n_tasks
    d = (
        rng.normal(0, sd_cluster, n_clusters)[cluster]
        + rng.normal(0, sd_item, n)
        + _task_shifts(n_tasks, task_shift)[task]
    )
    s = np.asarray(skills, dtype=float)
    M = s.size
    prob = 1.0 / (1.0 + np.exp(-(s[:, None] - d[None, :] - rng.normal(0, sd_model, (M, n)))))
    answers = (rng.random((M, n, repeats)) < prob[:, :, None]).astype(float)
    return eval_log(
        model=np.repeat([f"m{j}" for j in range(M)], n * repeats),
        item=np.tile(np.repeat(np.arange(n), repeats), M),
        repeat=np.tile(np.arange(repeats), M * n),
        score=answers.ravel(),
        task=None if n_tasks == 1 else np.tile(np.repeat(task, repeats), M).astype(str),
        conditions={"passage": np.tile(np.repeat(cluster, repeats), M)},
    )


def coverage_experiment(
    seed: Any,
    *,
    scenario: str = "mean",
    n_resamples: int = 1000,
    methods=("cr1", "t", "auto", "bca"),
    **sim: Any,
) -> dict[Any, Any]:
    """One experiment: whether each method's 95% intervals contain the truth.

    ``scenario`` is a key of :data:`SCENARIOS`; ``sim`` overrides the simulation's options.
    Returns ``{(kind, method): bool array}`` with kind ``"model"`` (each model's
    clustered interval) and ``"pair"`` (each pair's paired, clustered interval).
    """
    n_resamples = check_positive_int("n_resamples", n_resamples)
    check_choice("scenario", scenario, tuple(SCENARIOS))
    spec = SCENARIOS[scenario]
    sim = {**spec["sim"], **sim}
    opts_common = {"conditions": "passage", **spec["options"]}
    rng = np.random.default_rng(check_rng_seed(seed))
    truth = true_values(
        sim.get("skills", DEFAULT_SKILLS),
        sim.get("sd_cluster", 0.8),
        sim.get("sd_item", 0.8),
        sim.get("sd_model", 0.4),
        n_tasks=sim.get("n_tasks", 1),
        task_shift=sim.get("task_shift", 0.5),
        k=opts_common.get("k") if opts_common.get("estimand") == "pass@k" else None,
    )
    log = simulate_benchmark(rng, **sim)
    names = log.models
    out: dict[Any, Any] = {}
    for method in methods:
        opts = {**opts_common, "method": method}
        if method != "cr1":
            opts.update(rng=int(rng.integers(2**31)), n_resamples=n_resamples)
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
