"""Coverage of mlci's LLM intervals on simulated benchmarks (the numbers in docs/llm.md).

    python scripts/llm_coverage.py --clusters 20 50 100 --experiments 1000 --json out.json
    python scripts/llm_coverage.py --scenarios mean --experiments 200 --resamples 400

Each experiment draws one benchmark from :func:`mlci.llm.simulation.simulate_benchmark`
(``--clusters`` clusters of 1 to 15 items, most small; per-item difficulty; three
correlated models; 3 answers per item, 5 for pass@k; 3 tasks for the macro average) and
checks whether the 95% intervals contain the true population values: every model's
clustered interval and every pair's paired clustered interval.  Scenarios
(:data:`mlci.llm.simulation.SCENARIOS`): ``mean`` (micro mean, repeats averaged),
``nested`` (repeats resampled as a nested level), ``macro`` (mean of three task means,
tasks as strata), ``pass@k`` (k = 2 of 5 answers).  Methods: ``cr1`` (t(G-1)), ``t``
(CR2, Kish df), ``auto`` (the default: studentized models, t differences; BCa for nested
repeats), ``bca`` (the engine's cluster bootstrap; ``--methods`` also takes
``studentized``, bootstrap-t for models and pairs, and ``percentile``).
Experiment ``i`` uses seed ``i``, so the table is reproducible.  The binomial interval
(Clopper-Pearson, 95%) of each coverage treats the experiments as the independent units
(the three models or pairs of one experiment are correlated); the Monte-Carlo standard
error is ``sqrt(c (1 - c) / experiments)``.

Near the bounds (``--bounds``, docs/validation.md, "LLM evals near the bounds"): 0/1
answers of one or two models, with a controlled population score ``p`` (and ``p2`` for
the second model of a pair): ``n`` questions, ``epochs`` answers per question (a
question effect of standard deviation 1 on the logit scale makes them correlated),
optionally in ``G`` clusters of unequal sizes (Dirichlet(2) shares) with intra-class
correlation ``icc`` on the latent (logit) scale, and a model-specific question effect
(standard deviation 0.5) so that two models' answers are paired but not identical.  For
models it records the default (``auto``), the former default (``studentized``, the
bootstrap-t), ``t`` (CR2), ``cr1`` and the engine's ``korn_graubard`` (Clopper-Pearson on
the effective sample size) of the same answers; for pairs the default and ``t`` (the
former default).  Test set ``r`` of a cell uses seed ``[7, n, G, icc, epochs, p, r]``.

    nice python scripts/llm_coverage.py --bounds models --experiments 400 --json m.json
    nice python scripts/llm_coverage.py --bounds pairs --experiments 300 --json p.json

``--bounds candidates`` (docs/validation.md, "LLM evals: the cells left short") compares
intervals of a proportion over conditions on the model cells over repeats or clusters,
the same test sets: :data:`CANDIDATES`.  The default there is now ``near``: Korn &
Graubard's interval within 0.1 of 0 or 1 (:mod:`mlci.engine.clustered_edge`).

    nice python scripts/llm_coverage.py --bounds candidates --experiments 400 --json c.json
    nice python scripts/llm_coverage.py --bounds models --methods auto --experiments 400

``--bounds tasks``: two tasks of different difficulty, the default against a version
stratified by task (:func:`tasks_cell`; not in mlci yet).  ``--bounds tango``: Tango's
exact coverage in pair cells of questions answered once (:func:`tango_exact_coverage`).
"""

from __future__ import annotations

import argparse
import json
import os
import time
import warnings

import numpy as np
from scipy import optimize, stats

import mlci
from mlci.llm.simulation import coverage_experiment, true_values

DEFAULT_METHODS = {
    "mean": ("cr1", "t", "auto", "bca"),
    "macro": ("cr1", "t", "auto"),
    "pass@k": ("cr1", "t", "auto"),
    "nested": ("auto",),
}


def study(n_experiments: int, n_resamples: int, scenario: str = "mean", methods=None,
          **sim) -> dict:  # fmt: skip
    """``{(kind, method): array (n_experiments, n_intervals) of bool}``."""
    methods = DEFAULT_METHODS[scenario] if methods is None else methods
    acc: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. few-condition warnings: counted, not shown
        for seed in range(n_experiments):
            hits = coverage_experiment(
                seed, scenario=scenario, n_resamples=n_resamples, methods=methods, **sim
            )
            for key, hit in hits.items():
                acc.setdefault(key, []).append(hit)
    return {k: np.array(v) for k, v in acc.items()}


def summarize(res: dict) -> list[dict]:
    """One row per (kind, method): coverage, Monte-Carlo error, exact binomial interval."""
    rows = []
    for (kind, method), hits in res.items():
        n = hits.shape[0]
        k = hits.mean(axis=1).sum()  # per experiment: the share of its intervals that hold
        lo, hi = stats.binomtest(round(k), n).proportion_ci(method="exact")
        c = float(hits.mean())
        rows.append({"kind": kind, "method": method, "coverage": c,
                     "mc_se": float(np.sqrt(c * (1 - c) / n)), "low": float(lo),
                     "high": float(hi), "experiments": n})  # fmt: skip
    return rows


def table(res: dict) -> str:
    lines = ["| intervals | method | coverage | 95% binomial interval | experiments |",
             "|---|---|---:|---|---:|"]  # fmt: skip
    for r in summarize(res):
        what = "each model" if r["kind"] == "model" else "each pair (paired)"
        lines.append(f"| {what} | {r['method']} | {r['coverage']:.3f} | "
                     f"[{r['low']:.3f}, {r['high']:.3f}] | {r['experiments']} |")  # fmt: skip
    return "\n".join(lines)


def markdown(paths: list[str]) -> str:
    """One table from the ``--json`` files: coverage (Monte-Carlo standard error) per
    scenario, method and kind, one column per cluster count."""
    rows = [r for p in paths for r in json.load(open(p))]
    sizes = sorted({r["clusters"] for r in rows})
    keys = list(dict.fromkeys((r["scenario"], r["method"], r["kind"]) for r in rows))
    head = "| scenario | method | intervals | " + " | ".join(f"{g} clusters" for g in sizes)
    lines = [head + " |", "|---|---|---|" + "---:|" * len(sizes)]
    for sc, method, kind in keys:
        cells = []
        for g in sizes:
            hit = [r for r in rows if (r["scenario"], r["method"], r["kind"], r["clusters"])
                   == (sc, method, kind, g)]  # fmt: skip
            cells.append(f"{hit[0]['coverage']:.3f} ± {hit[0]['mc_se']:.3f}" if hit else "")
        what = "models" if kind == "model" else "pairs"
        lines.append(f"| {sc} | {method} | {what} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --------------------------------------------------------------------------- near the bounds
SD_ITEM, SD_MODEL = 1.0, 0.5
BOUNDS_MODEL_METHODS = ("auto", "studentized", "t", "cr1", "korn_graubard")
BOUNDS_PAIR_METHODS = ("auto", "t")


def _skill(p: float, sd: float) -> float:
    """The skill whose population mean score is ``p`` (latent standard deviation ``sd``)."""
    return optimize.brentq(lambda s: true_values([s], sd, 0.0, 0.0)[0] - p, -30, 30)


def _bounds_skills(G: int | None, icc: float, p: float, p2: float | None):
    """``(sd_c, skills, truth)`` of a cell (module doc)."""
    rest = SD_ITEM**2 + SD_MODEL**2 + np.pi**2 / 3
    sd_c = 0.0 if G is None else float(np.sqrt(icc * rest / (1 - icc)))
    sd = float(np.sqrt(sd_c**2 + SD_ITEM**2 + SD_MODEL**2))
    skills = [_skill(p, sd)] + ([] if p2 is None else [_skill(p2, sd)])
    return sd_c, skills, true_values(skills, sd_c, SD_ITEM, SD_MODEL)


def _bounds_draw(n, G, epochs, p, icc, sd_c, skills, r):
    """Test set ``r`` of a cell: ``(cluster of every question or None, answers (M, n,
    epochs))``."""
    rng = np.random.default_rng([7, n, G or 0, round(icc * 100), epochs, round(p * 1000), r])
    if G is None:
        cl, u = None, np.zeros(n)
    else:
        share = rng.dirichlet(np.full(G, 2.0))
        cl = np.concatenate([np.arange(G), rng.choice(G, n - G, p=share)])
        u = rng.normal(0, sd_c, G)[cl]
    d = u + rng.normal(0, SD_ITEM, n)
    s = np.asarray(skills)[:, None]
    prob = 1 / (1 + np.exp(-(s - d[None] - rng.normal(0, SD_MODEL, (len(skills), n)))))
    return cl, (rng.random((len(skills), n, epochs)) < prob[..., None]).astype(float)


def bounds_cell(n: int, G: int | None, icc: float, epochs: int, p: float,
                p2: float | None = None, reps: int = 200, n_resamples: int = 400,
                methods=None, confidence_level: float = 0.95) -> dict:  # fmt: skip
    """Coverage, median width and share warned (by the default) of the methods in one
    cell near the bounds (module doc): one model (``p2`` None) or a pair."""
    sd_c, skills, truth = _bounds_skills(G, icc, p, p2)
    target = truth[0] if p2 is None else truth[0] - truth[1]
    if methods is None:
        methods = BOUNDS_MODEL_METHODS if p2 is None else BOUNDS_PAIR_METHODS
    hits: dict = {m: [] for m in methods}
    widths: dict = {m: [] for m in methods}
    warned = []
    for r in range(reps):
        cl, ans = _bounds_draw(n, G, epochs, p, icc, sd_c, skills, r)
        M = len(skills)
        item = np.repeat(np.arange(n), epochs)
        log = mlci.eval_log(
            model=np.repeat([f"m{j}" for j in range(M)], n * epochs), item=np.tile(item, M),
            repeat=np.tile(np.tile(np.arange(epochs), n), M), score=ans.ravel(),
            conditions=None if cl is None else {"g": np.tile(cl[item], M)},
        )  # fmt: skip
        opts = {"conditions": None if cl is None else "g", "n_resamples": n_resamples, "rng": r,
                "confidence_level": confidence_level}  # fmt: skip
        for m in methods:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                if m == "korn_graubard":
                    unit = (
                        None if cl is None and epochs == 1 else (item if cl is None else cl[item])
                    )
                    ci = mlci.bootstrap_ci(ans[0].ravel(), metric="mean", conditions=unit,
                                           method=m, confidence_level=confidence_level
                                           ).confidence_interval  # fmt: skip
                elif p2 is None:
                    ci = mlci.llm_ci(log, method=m, **opts).models["m0"].confidence_interval
                else:
                    ci = mlci.llm_compare(log, method=m, **opts).differences[0].confidence_interval
            if m == "auto":
                warned.append(any(issubclass(w.category, mlci.MlciWarning) for w in caught))
            hits[m].append(bool(ci.low <= target <= ci.high))
            widths[m].append(float(ci.high - ci.low))
    return {
        "n": n, "G": G, "icc": icc, "epochs": epochs, "p": p, "p2": p2, "reps": reps,
        "coverage": {m: float(np.mean(v)) for m, v in hits.items()},
        "median_width": {m: float(np.median(v)) for m, v in widths.items()},
        "warned": float(np.mean(warned)) if warned else None,
    }  # fmt: skip


def bounds_cells(kind: str) -> list[tuple]:
    """The cells of the study near the bounds: ``(n, G, icc, epochs, p, p2)``."""
    if kind == "models":
        iid = [(n, None, 0.0, ep, p, None) for n in (20, 30, 100, 200, 2000)
               for p in (0.5, 0.9, 0.95, 0.99, 0.999) for ep in (1, 3)]  # fmt: skip
        clus = [(max(4 * G, 60), G, icc, 3 if icc == 0.3 else 1, p, None)
                for G in (5, 10, 30, 100, 200) for icc in (0.1, 0.3, 0.5)
                for p in (0.5, 0.9, 0.95, 0.99)]  # fmt: skip
        return iid + clus
    return [(n, G, 0.2 if G else 0.0, ep, p, p2) for n in (30, 100, 200, 1000)
            for p, p2 in ((0.5, 0.45), (0.95, 0.93), (0.99, 0.98), (0.999, 0.995))
            for ep, G in ((1, None), (3, None), (1, 20), (5, 50))
            if G is None or G < n]  # fmt: skip


# ----------------------------------------------------- candidates for the cells left short
#: the candidate intervals of a proportion over conditions (docs/validation.md, "LLM
#: evals: the cells left short"): ``logit_t`` (the engine's rule), ``korn_graubard``
#: (Clopper-Pearson on n*), ``wilson``, ``wilson_modified`` and ``jeffreys`` on n*
#: (n* = p (1 - p) / se^2 times (z / t_df)^2: Korn & Graubard 1998), and switches from
#: the logit t to Korn & Graubard's: ``near`` within 0.1 of the bound (the default now),
#: ``minority<M`` where also the effective minority count ``min(p, 1 - p) n*`` is below M;
#: ``logit_t_modified``, the logit t with the one-sided Poisson bound on n* for 1-3
#: effective minority outcomes (the modification of ``wilson_modified``)
CANDIDATES = ("logit_t", "korn_graubard", "wilson", "wilson_modified", "jeffreys", "near",
              "minority<4", "minority<8", "minority<20", "logit_t_modified")  # fmt: skip


def candidate_intervals(x: np.ndarray, unit: np.ndarray, level: float = 0.95) -> dict:
    """``{candidate: (low, high)}`` of the 0/1 answers ``x`` over ``unit``; on the bound
    (or without spread) every candidate is the logit t's Wilson fallback."""
    from mlci.intervals.bootstrap import effective_binomial_interval, wilson_interval
    from mlci.intervals.formulas import modified_wilson_edges

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = mlci.bootstrap_ci(x, metric="mean", conditions=unit, method="logit_t",
                              n_resamples=10, confidence_level=level)  # fmt: skip
    lt = tuple(float(v) for v in r.confidence_interval)
    lin = r.details["linearized"]
    p, se, df = float(x.mean()), float(lin["standard_error"]), float(lin["df"])
    if not (0 < p < 1 and se > 0):
        return dict.fromkeys(CANDIDATES, lt)
    a = 1 - level
    n_star = p * (1 - p) / se**2 * (stats.norm.ppf(1 - a / 2) / stats.t.ppf(1 - a / 2, df)) ** 2
    kg = tuple(float(v) for v in effective_binomial_interval(p, se, df, confidence_level=level)[:2])
    w = wilson_interval(p, p * (1 - p) / se**2, df, confidence_level=level)
    wm = modified_wilson_edges(w[0], w[1], p * n_star, n_star, confidence_level=level)
    k = p * n_star
    jef = stats.beta.ppf([a / 2, 1 - a / 2], k + 0.5, n_star - k + 0.5)
    near = min(p, 1 - p) < 0.1
    minority = min(p, 1 - p) * p * (1 - p) / se**2
    out = {"logit_t": lt, "korn_graubard": kg, "wilson": (float(w[0]), float(w[1])),
           "wilson_modified": (float(wm[0]), float(wm[1])),
           "jeffreys": (float(jef[0]), float(jef[1])), "near": kg if near else lt}  # fmt: skip
    for m in (4, 8, 20):
        out[f"minority<{m}"] = kg if near and minority < m else lt
    # the logit t with Brown, Cai & DasGupta's one-sided Poisson bound on n* on the side
    # of the near bound where 1-3 effective minority outcomes (wilson_modified's rule)
    edge = modified_wilson_edges(lt[0], lt[1], k, n_star, confidence_level=level)
    out["logit_t_modified"] = (min(lt[0], float(edge[0])), max(lt[1], float(edge[1])))
    return out


def candidates_cell(n: int, G: int | None, icc: float, epochs: int, p: float,
                    reps: int = 400, confidence_level: float = 0.95) -> dict:  # fmt: skip
    """Coverage and median width of :data:`CANDIDATES` on one model cell's test sets
    (the same as :func:`bounds_cell`'s)."""
    sd_c, skills, truth = _bounds_skills(G, icc, p, None)
    hits: dict = {m: [] for m in CANDIDATES}
    widths: dict = {m: [] for m in CANDIDATES}
    for r in range(reps):
        cl, ans = _bounds_draw(n, G, epochs, p, icc, sd_c, skills, r)
        item = np.repeat(np.arange(n), epochs)
        unit = item if cl is None else cl[item]
        for m, (lo, hi) in candidate_intervals(ans[0].ravel(), unit, confidence_level).items():
            hits[m].append(lo <= truth[0] <= hi)
            widths[m].append(hi - lo)
    return {
        "n": n, "G": G, "icc": icc, "epochs": epochs, "p": p, "reps": reps,
        "coverage": {m: float(np.mean(v)) for m, v in hits.items()},
        "median_width": {m: float(np.median(v)) for m, v in widths.items()},
    }  # fmt: skip


def _cr2_variance(x: np.ndarray, unit: np.ndarray) -> float:
    """The CR2 variance of the mean of ``x`` over ``unit`` (codes 0..G-1)."""
    N = len(x)
    z = np.bincount(unit, x - x.mean())
    h = np.bincount(unit) / N
    return float(np.sum(z**2 / (1 - h))) / N**2


def tasks_cell(ps: tuple, n_items: int = 100, epochs: int = 3, reps: int = 400) -> dict:
    """Tasks of different difficulty (not wired into mlci: docs/validation.md, "LLM evals:
    the cells left short"): ``len(ps)`` tasks of ``n_items`` questions x ``epochs``
    answers, task ``t``'s population score ``ps[t]``; the target is their mean (fixed
    task sizes).  Coverage and median width of the default (one proportion over the
    items, the engine's rule of a proportion over conditions,
    :func:`mlci.engine.clustered_edge.clustered_proportion_method`, read by the engine's
    dispatcher from the CR2 standard error) and of its stratified version (the CR2 variance
    within each task, ``sum_t (N_t / N)^2 V_t``, and ``items - tasks`` degrees of
    freedom, the same rule).  Test set ``r``, task ``t``: :func:`_bounds_draw`'s
    seed ``r * 7 + t`` of the cell ``(n_items, None, 0, epochs, ps[t])``."""
    from mlci.engine.clustered_edge import clustered_proportion_method
    from mlci.intervals.bootstrap import interval_from_replicates

    sd = float(np.sqrt(SD_ITEM**2 + SD_MODEL**2))
    skills = [_skill(p, sd) for p in ps]
    truth = float(np.mean(ps))
    hits: dict = {"default": [], "stratified": []}
    widths: dict = {"default": [], "stratified": []}
    for r in range(reps):
        xs = [_bounds_draw(n_items, None, epochs, ps[t], 0.0, 0.0, [s], r * 7 + t)[1][0].ravel()
              for t, s in enumerate(skills)]  # fmt: skip
        item = np.repeat(np.arange(n_items), epochs)
        x = np.concatenate(xs)
        unit = np.concatenate([item + t * n_items for t in range(len(ps))])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = mlci.bootstrap_ci(x, metric="mean", conditions=unit, method="logit_t",
                                    n_resamples=10)  # fmt: skip
        lin = res.details["linearized"]
        p, n_eff = float(x.mean()), lin["effective_n"]
        se_strat = np.sqrt(sum((len(v) / len(x)) ** 2 * _cr2_variance(v, item) for v in xs))
        for name, se, df in (("default", lin["standard_error"], lin["df"]),
                             ("stratified", se_strat, n_items * len(ps) - len(ps))):  # fmt: skip
            one = {"standard_error": se, "df": df, "effective_n": n_eff, "iid": False}
            lo, hi, _ = interval_from_replicates(
                p, np.empty(0), method=clustered_proportion_method(p), confidence_level=0.95,
                alternative="two-sided", bounds=(0.0, 1.0), linear=one,
            )  # fmt: skip
            hits[name].append(lo <= truth <= hi)
            widths[name].append(hi - lo)
    return {
        "ps": list(ps), "n_items": n_items, "epochs": epochs, "reps": reps,
        "coverage": {k: float(np.mean(v)) for k, v in hits.items()},
        "median_width": {k: float(np.median(v)) for k, v in widths.items()},
    }  # fmt: skip


def tango_exact_coverage(n: int, p: float, p2: float, level: float = 0.95) -> dict:
    """The exact coverage of Tango's interval (``llm_compare``'s default for questions
    answered once) in the pair cell ``(n, None, 0, 1, p, p2)``: the discordant counts
    ``(n10, n01)`` are multinomial with the cell probabilities of the latent model
    (80-point Gauss-Hermite quadrature over the question and model effects), summed over
    every outcome up to the Poisson 1 - 1e-7 quantiles of each count."""
    sd = float(np.sqrt(SD_ITEM**2 + SD_MODEL**2))
    s1, s2 = _skill(p, sd), _skill(p2, sd)
    x, w = np.polynomial.hermite_e.hermegauss(80)
    w = w / w.sum()
    d, e1, e2 = x[:, None, None] * SD_ITEM, x[None, :, None] * SD_MODEL, x[None, None, :] * SD_MODEL
    weight = w[:, None, None] * w[None, :, None] * w[None, None, :]
    pa, pb = 1 / (1 + np.exp(-(s1 - d - e1))), 1 / (1 + np.exp(-(s2 - d - e2)))
    p10, p01 = float((weight * pa * (1 - pb)).sum()), float((weight * (1 - pa) * pb).sum())
    target = float((weight * pa).sum() - (weight * pb).sum())
    top = [int(stats.poisson.ppf(1 - 1e-7, n * q)) + 2 for q in (p10, p01)]
    cover = mass = 0.0
    for b in range(top[0]):
        for c in range(top[1]):
            pr = float(np.exp(stats.multinomial.logpmf([b, c, n - b - c], n,
                                                       [p10, p01, 1 - p10 - p01])))  # fmt: skip
            res = mlci.paired_proportion_diff_ci([[n - b - c, b], [c, 0]], method="tango",
                                                 confidence_level=level)  # fmt: skip
            ci = res.confidence_interval
            mass += pr
            cover += pr * (ci.low <= target <= ci.high)
    return {"n": n, "p": p, "p2": p2, "p10": p10, "p01": p01, "coverage": cover / mass,
            "mass": mass}  # fmt: skip


def bounds_main(kind: str, reps: int, n_resamples: int, path: str | None,
                methods=None) -> None:  # fmt: skip
    out = []
    if kind == "tango":  # exact, no test sets
        for n, p, p2 in ((1000, 0.99, 0.98), (200, 0.99, 0.98), (100, 0.99, 0.98),
                         (1000, 0.95, 0.93), (1000, 0.999, 0.995)):  # fmt: skip
            r = tango_exact_coverage(n, p, p2)
            print(f"Tango n={n} {p} vs {p2}: exact coverage {r['coverage']:.4f}", flush=True)
        return
    if kind == "tasks":  # two tasks of different difficulty, 100 questions x 3 answers each
        for ps in ((0.99, 0.8), (0.999, 0.9), (0.95, 0.6), (0.99, 0.97), (0.8, 0.5)):
            r = tasks_cell(ps, reps=reps)
            out.append(r)
            cov = " ".join(f"{k} {v:.3f}" for k, v in r["coverage"].items())
            wid = " ".join(f"{k} {v:.4f}" for k, v in r["median_width"].items())
            print(f"tasks {ps}: coverage {cov}; median width {wid}", flush=True)
        if path:
            with open(path, "w") as f:
                json.dump(out, f, indent=1)
        return
    if kind == "candidates":  # the model cells over repeats or clusters
        for c in bounds_cells("models"):
            if c[1] is None and c[3] == 1:
                continue
            r = candidates_cell(*c[:5], reps=reps)
            out.append(r)
            cov = " ".join(f"{k} {v:.3f}" for k, v in r["coverage"].items())
            print(f"n={c[0]} G={c[1]} icc={c[2]} epochs={c[3]} p={c[4]}: {cov}", flush=True)
            if path:
                with open(path, "w") as f:
                    json.dump(out, f, indent=1)
        return
    for c in bounds_cells(kind):
        r = bounds_cell(*c, reps=reps, n_resamples=n_resamples, methods=methods)
        out.append(r)
        cov = " ".join(f"{k} {v:.3f}" for k, v in r["coverage"].items())
        print(f"n={c[0]} G={c[1]} icc={c[2]} epochs={c[3]} p={c[4]} p2={c[5]}: {cov}; "
              f"auto warned {r['warned']:.2f}", flush=True)  # fmt: skip
        if path:
            with open(path, "w") as f:
                json.dump(out, f, indent=1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--experiments", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--clusters", type=int, nargs="+", default=[50],
                        help="clusters per benchmark (several: one study each)")  # fmt: skip
    parser.add_argument("--scenarios", nargs="+", default=list(DEFAULT_METHODS))
    parser.add_argument("--methods", nargs="+", default=None)
    parser.add_argument("--json", default=None, help="write the rows here")
    parser.add_argument("--markdown", nargs="+", default=None, metavar="JSON",
                        help="print one table from these --json files and stop")  # fmt: skip
    parser.add_argument("--bounds", choices=("models", "pairs", "candidates", "tasks", "tango"),
                        default=None,
                        help="the study near the bounds (module doc) instead")  # fmt: skip
    args = parser.parse_args(argv)
    if args.bounds:
        bounds_main(args.bounds, args.experiments, args.resamples, args.json, args.methods)
        return
    if args.markdown:
        print(markdown(args.markdown))
        return
    out = []
    for G in args.clusters:
        for scenario in args.scenarios:
            t0 = time.perf_counter()
            res = study(args.experiments, args.resamples, scenario, args.methods,
                        n_clusters=G)  # fmt: skip
            secs = time.perf_counter() - t0
            load = os.getloadavg()[0]
            print(f"\n## {scenario}, {G} clusters ({args.experiments} experiments, "
                  f"B = {args.resamples}, {secs:.0f} s, load {load:.1f})")  # fmt: skip
            print(table(res), flush=True)
            for r in summarize(res):
                out.append({"scenario": scenario, "clusters": G, "resamples": args.resamples,
                            "seconds": round(secs, 1), **r})  # fmt: skip
            if args.json:
                with open(args.json, "w") as f:
                    json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
