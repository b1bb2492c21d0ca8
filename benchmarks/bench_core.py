"""Time mlci against its peers on accuracy, roc_auc and clustered accuracy, n = 10^3..10^6.

Peers: the seed toolkit ``confidence_intervals`` (``evaluate_with_conf_int``),
``scipy.stats.bootstrap`` and ``score_analysis`` (``Scores(...).bootstrap_ci``), plus a
plain-numpy *floor* for roc_auc: one argsort, then per replicate one multinomial draw
of the counts and one weighted O(n) pass (cumulative sum of the negatives' counts, dot
product with the positives'), on all cores.  Each case runs in a fresh process; the
table gives wall time, the ratio to mlci's default (``method="bca"``, jackknife
included) and the working memory of the call (peak RSS minus RSS before it).

Slow peers are timed on a reduced number of replicates B' (as many as fit in
``--budget`` seconds) and extrapolated linearly to B (``time x B / B'``); such rows are
marked ``B'=...``.  Run ``python benchmarks/bench_core.py --quick`` for a smoke run.

Usage::

    pip install ".[bench]"
    python benchmarks/bench_core.py            # full run, a few minutes on 2 cores
    python benchmarks/bench_core.py --quick    # seconds
    python benchmarks/bench_core.py --json results.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import mlci

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import (
    fmt_bytes,
    fmt_seconds,
    machine_info,
    markdown_table,
    measure_call,
    run_case,
)

SCRIPT = os.path.abspath(__file__)
N_CONDITIONS = 500
TASKS = ("accuracy", "roc_auc", "clustered_accuracy")
#: tools timed on every (task, n); the first is the reference of the ratios
TOOLS = (
    "mlci",
    "mlci-percentile",
    "mlci-two-stage",
    "seed",
    "scipy",
    "score-analysis",
    "floor",
    "floor-samples",
)
#: tools whose cost makes a reduced B necessary at large n
SLOW = {"seed", "scipy", "scipy-bca", "score-analysis", "floor", "floor-samples"}
LABEL = {
    "mlci": "mlci (bca, default)",
    "mlci-percentile": "mlci (percentile)",
    "mlci-two-stage": "mlci (bca, two-stage)",
    "seed": "confidence_intervals",
    "scipy": "scipy.stats.bootstrap (percentile)",
    "scipy-bca": "scipy.stats.bootstrap (BCa)",
    "score-analysis": "score-analysis (bca)",
    "floor": "floor: sort + B passes (draws in sorted order)",
    "floor-samples": "floor: sort + B passes (per-sample draws)",
}


# =========================================================================== data
def n_conditions(n: int) -> int:
    """500 conditions (the issue's case); fewer for tiny n so that each has >= 4 samples."""
    return min(N_CONDITIONS, n // 4)


def make_data(task: str, n: int, seed: int = 0) -> dict[str, Any]:
    """Synthetic evaluation data.

    accuracy / decision metrics: balanced binary labels, 85% correct decisions.
    roc_auc: binormal scores (positives shifted by 1 sd; AUC about 0.76).
    clustered_accuracy: per-condition accuracy varies (intra-condition correlation about
    0.05-0.1), conditions of random sizes.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    data: dict[str, Any] = {"y": y, "conditions": None}
    if task == "roc_auc":
        data["x"] = y + rng.normal(size=n)
        return data
    if task.startswith("clustered") or task.endswith("-conditions"):
        k = n_conditions(n)
        cond = rng.integers(0, k, n)
        p_cond = np.clip(0.85 + 0.08 * rng.normal(size=k), 0.4, 0.99)
        correct = rng.random(n) < p_cond[cond]
        data["conditions"] = cond
    else:
        correct = rng.random(n) < 0.85
    data["x"] = np.where(correct, y, 1 - y)
    return data


def _metric_name(task: str) -> str:
    if task == "roc_auc":
        return "roc_auc"
    return task.split("-")[0].replace("clustered_", "")


# =========================================================================== tools
def _call_mlci(data: dict[str, Any], metric: str, b: int, method: str, two_stage: bool) -> Any:

    res = mlci.bootstrap_ci(
        data["y"],
        data["x"],
        metric=metric,
        conditions=data["conditions"],
        n_resamples=b,
        method=method,
        resampling=mlci.Resampling(two_stage=two_stage),
        rng=0,
    )
    return tuple(res.confidence_interval)


def _call_seed(data: dict[str, Any], metric: str, b: int) -> Any:
    from confidence_intervals import evaluate_with_conf_int
    from sklearn.metrics import accuracy_score, roc_auc_score

    fn = roc_auc_score if metric == "roc_auc" else accuracy_score
    # the seed toolkit's own calling convention: samples, metric, labels, conditions
    _, ci = evaluate_with_conf_int(
        data["x"], fn, labels=data["y"], conditions=data["conditions"], num_bootstraps=b
    )
    return tuple(ci)


def _call_scipy(data: dict[str, Any], metric: str, b: int, method: str) -> Any:
    import numpy as np
    from scipy import stats
    from sklearn.metrics import roc_auc_score

    y, x = data["y"], data["x"]
    n = len(y)
    if metric == "roc_auc":
        # no vectorised AUC in scipy: one call of scikit-learn's per resample
        res = stats.bootstrap(
            (y, x),
            roc_auc_score,
            paired=True,
            vectorized=False,
            n_resamples=b,
            method=method,
            random_state=0,
        )
    else:

        def acc(a: Any, c: Any, axis: int = -1) -> Any:
            return np.mean(a == c, axis=axis)

        res = stats.bootstrap(
            (y, x),
            acc,
            paired=True,
            vectorized=True,
            n_resamples=b,
            method=method,
            batch=max(1, 2**22 // n),  # bound its memory (the default batch=None is B x n)
            random_state=0,
        )
    ci = res.confidence_interval
    return (float(ci.low), float(ci.high))


def _call_score_analysis(data: dict[str, Any], metric: str, b: int) -> Any:
    from score_analysis import Scores
    from score_analysis.scores import BootstrapConfig

    y, x = data["y"], data["x"]
    scores = Scores(pos=x[y == 1], neg=x[y == 0])
    config = BootstrapConfig(nb_samples=b, bootstrap_method="bca")
    if metric == "roc_auc":
        ci = scores.bootstrap_ci("auc", config=config)
    else:

        def accuracy(s: Any) -> float:
            return s.cm(0.5).accuracy()  # decisions 0/1, threshold 0.5

        ci = scores.bootstrap_ci(accuracy, config=config)
    return (float(ci[0]), float(ci[1]))


def roc_floor(y: Any, score: Any, b: int, n_jobs: int | None = None, seed: int = 0) -> Any:
    """The yardstick: argsort once, then per replicate one draw and one weighted O(n) pass.

    The samples are put in (class, score) order once: negatives by increasing score, then
    positives.  Per replicate: n positions drawn with replacement and counted
    (``bincount``; the positions are drawn directly in sorted order), a cumulative sum of
    the negatives' counts, a gather at each positive's rank among the negatives and a
    dot product with the positives' counts.  Replicates run on ``n_jobs`` threads.  Ties
    are not handled (continuous scores) and no interval method is applied, so this is
    the least work an exact AUC bootstrap can do, not a usable implementation.
    """
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    y = np.asarray(y)
    score = np.asarray(score)
    n = len(y)
    neg_sorted = np.sort(score[y == 0])
    pos_sorted = np.sort(score[y == 1])
    n_neg = len(neg_sorted)
    below = np.searchsorted(neg_sorted, pos_sorted)  # negatives below each positive
    jobs = n_jobs or os.cpu_count() or 1

    def one(r: int) -> float:
        rng = np.random.default_rng([seed, r])
        counts = np.bincount(rng.integers(0, n, size=n), minlength=n)
        cum = np.empty(n_neg + 1, dtype=np.int64)
        cum[0] = 0
        np.cumsum(counts[:n_neg], out=cum[1:])
        wp = counts[n_neg:]
        return float(wp @ cum[below]) / (float(cum[-1]) * float(wp.sum()))

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        vals = list(ex.map(one, range(b)))
    return (float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5)))


def roc_floor_samples(y: Any, score: Any, b: int, n_jobs: int | None = None, seed: int = 0) -> Any:
    """The yardstick with per-sample draws: as :func:`roc_floor`, but the n indices are
    drawn over the samples (in their given order) and the counts are then put in score
    order with one gather, as any bootstrap must that keeps track of which sample was
    drawn (paired comparisons, several metrics on the same replicates).
    """
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np

    y = np.asarray(y)
    score = np.asarray(score)
    n = len(y)
    neg_order = np.flatnonzero(y == 0)[np.argsort(score[y == 0], kind="stable")]
    pos_order = np.flatnonzero(y == 1)[np.argsort(score[y == 1], kind="stable")]
    order = np.concatenate([neg_order, pos_order])
    n_neg = len(neg_order)
    below = np.searchsorted(score[neg_order], score[pos_order])
    jobs = n_jobs or os.cpu_count() or 1

    def one(r: int) -> float:
        rng = np.random.default_rng([seed, r])
        counts = np.take(np.bincount(rng.integers(0, n, size=n), minlength=n), order)
        cum = np.empty(n_neg + 1, dtype=np.int64)
        cum[0] = 0
        np.cumsum(counts[:n_neg], out=cum[1:])
        wp = counts[n_neg:]
        return float(wp @ cum[below]) / (float(cum[-1]) * float(wp.sum()))

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        vals = list(ex.map(one, range(b)))
    return (float(np.percentile(vals, 2.5)), float(np.percentile(vals, 97.5)))


def call_tool(tool: str, task: str, data: dict[str, Any], b: int) -> Any:
    metric = _metric_name(task)
    if tool == "mlci":
        return _call_mlci(data, metric, b, "bca", False)
    if tool == "mlci-percentile":
        return _call_mlci(data, metric, b, "percentile", False)
    if tool == "mlci-two-stage":
        return _call_mlci(data, metric, b, "bca", True)
    if tool == "seed":
        return _call_seed(data, metric, b)
    if tool == "scipy":
        return _call_scipy(data, metric, b, "percentile")
    if tool == "scipy-bca":
        return _call_scipy(data, metric, b, "BCa")
    if tool == "score-analysis":
        return _call_score_analysis(data, metric, b)
    if tool == "floor":
        return roc_floor(data["y"], data["x"], b)
    if tool == "floor-samples":
        return roc_floor_samples(data["y"], data["x"], b)
    raise ValueError(f"unknown tool {tool!r}")


def applicable(tool: str, task: str) -> str | None:
    """None if the tool can do the task, else the reason it cannot."""
    clustered = task.startswith("clustered") or task.endswith("-conditions")
    if tool == "mlci-two-stage" and not clustered:
        return "only with conditions"
    if tool in ("scipy", "scipy-bca", "score-analysis") and clustered:
        return "no condition (cluster) resampling"
    if tool.startswith("floor") and task != "roc_auc":
        return "roc_auc only"
    return None


# =========================================================================== child
def child(case: dict[str, Any]) -> dict[str, Any]:
    """Measure one (tool, task, n, B) in this process; slow tools on a reduced B."""
    tool, task, n, b = case["tool"], case["task"], case["n"], case["B"]
    # warm-up on a small data set: imports and first-call costs are not timed
    call_tool(tool, task, make_data(task, 400, seed=1), 2)
    data = make_data(task, n)
    out: dict[str, Any] = {**case}
    b_run = b
    if tool in SLOW:
        # probe on 2 replicates, then as many as fit in the budget, extrapolated to B
        probe = measure_call(lambda: call_tool(tool, task, data, 2))
        per_rep = probe["seconds"] / 2
        b_run = int(min(b, max(2, case["budget"] / max(per_rep, 1e-9))))
        if tool.startswith("floor"):
            b_run = max(b_run, min(b, 100))  # the yardstick: always on >= 100 replicates
        if b_run < b and b_run <= 2:
            m = probe
        else:
            m = measure_call(lambda: call_tool(tool, task, data, b_run))
    else:
        m = measure_call(lambda: call_tool(tool, task, data, b))
    scale = b / b_run
    out.update(
        seconds=m["seconds"] * scale,
        cpu_seconds=m["cpu_seconds"] * scale,
        measured_seconds=m["seconds"],
        B_run=b_run,
        extrapolated=b_run < b,
        memory_bytes=m["memory_bytes"],
        exact_peak=m["exact_peak"],
        interval=list(m["value"]),
    )
    if tool == "seed" and b_run < b:
        # it keeps every replicate's index array (int64) before evaluating any
        out["memory_note"] = f"index lists at B={b}: {fmt_bytes(8.0 * n * b)}"
    return out


# =========================================================================== parent
def plan_cases(args: argparse.Namespace) -> list[dict[str, Any]]:
    cases = []
    for task in TASKS:
        for n in args.sizes:
            for tool in TOOLS:
                if tool not in args.tools:
                    continue
                reason = applicable(tool, task)
                if reason:
                    continue
                if tool == "mlci-two-stage" and n > args.two_stage_max_n:
                    continue
                cases.append({"tool": tool, "task": task, "n": n, "B": args.B})
            if "scipy" in args.tools and task == "accuracy" and n <= args.scipy_bca_max_n:
                cases.append({"tool": "scipy-bca", "task": task, "n": n, "B": args.B})
    # decision metrics at large B (mlci only: the target)
    for metric in ("accuracy", "f1", "mcc"):
        for suffix in ("", "-conditions"):
            cases.append(
                {"tool": "mlci", "task": metric + suffix, "n": args.big_n, "B": args.big_B}
            )
    for c in cases:
        c["budget"] = args.budget
    return cases


def scipy_bca_memory(n: int) -> float:
    """Bytes of the index matrix scipy's BCa jackknife builds at once (default batch=None).

    ``scipy.stats.bootstrap(..., paired=True, method="BCa")`` jackknifes the index array:
    an (n, n-1) int64 matrix (plus an n x n boolean mask), i.e. >= 8 n (n-1) bytes.
    """
    return 8.0 * n * (n - 1)


def report(results: list[dict[str, Any]], args: argparse.Namespace, info: dict[str, Any]) -> str:
    ref = {
        (r["task"], r["n"], r["B"]): r["seconds"]
        for r in results
        if r.get("tool") == "mlci" and "seconds" in r
    }
    rows = []
    for r in results:
        key = (r["task"], r["n"], r["B"])
        if "error" in r:
            rows.append(
                [
                    r["task"],
                    f"{r['n']:.0e}",
                    r["B"],
                    LABEL[r["tool"]],
                    "error",
                    "",
                    "",
                    "",
                    r["error"],
                ]
            )
            continue
        ratio = ""
        if r["tool"] != "mlci" and key in ref and ref[key] > 0:
            ratio = f"{r['seconds'] / ref[key]:.1f}x"
        note = []
        if r["extrapolated"]:
            note.append(f"extrapolated from B'={r['B_run']}")
        if r.get("memory_note"):
            note.append(r["memory_note"])
        task = r["task"]
        if task.startswith("clustered") or task.endswith("-conditions"):
            note.append(f"{n_conditions(r['n'])} conditions")
        rows.append(
            [
                task,
                f"{r['n']:.0e}",
                r["B"],
                LABEL[r["tool"]],
                fmt_seconds(r["seconds"]),
                fmt_seconds(r["cpu_seconds"]),
                ratio,
                fmt_bytes(r["memory_bytes"]),
                "; ".join(note),
            ]
        )
    lines = [
        "# mlci core benchmark",
        "",
        f"Machine: {info['cpu']}, {info['cores']} logical cores; Python {info['python']}, "
        f"numpy {info['numpy']}, scipy {info['scipy']}; load average at start "
        f"{', '.join(f'{x:.1f}' for x in info.get('load_average', ()))}.",
        "",
        "Time = wall-clock seconds of the call (data generation and imports excluded); "
        "cpu time = process CPU seconds (all threads; less sensitive to other load on the "
        "machine). Ratio = tool time / mlci (bca, default) time on the same case (higher = "
        "mlci faster). Memory = peak RSS during the call minus RSS before it (for "
        "extrapolated rows: at B').",
        "",
        markdown_table(
            ["case", "n", "B", "tool", "time", "cpu time", "ratio", "memory", "note"],
            rows,
        ),
        "",
        "scipy.stats.bootstrap with method='BCa' and the default batch=None builds the whole "
        "jackknife index matrix at once (computed, not run):",
        "",
        markdown_table(
            ["n", "jackknife index matrix (int64, n x (n-1))"],
            [[f"{n:.0e}", fmt_bytes(scipy_bca_memory(n))] for n in args.sizes],
        ),
        "",
        targets(results),
    ]
    return "\n".join(lines)


def targets(results: list[dict[str, Any]]) -> str:
    """Check the issue's targets against the measured rows (where they were run)."""
    by = {(r["tool"], r["task"], r["n"], r["B"]): r for r in results if "seconds" in r}
    out = ["## Targets (issue 2)", ""]

    def line(ok: bool | None, text: str) -> None:
        mark = "n/a" if ok is None else ("PASS" if ok else "MISS")
        out.append(f"- [{mark}] {text}")

    r = by.get(("mlci", "roc_auc", 10**6, 1000))
    if r:
        line(r["seconds"] < 20, f"roc_auc, n=1e6, B=1000 under 20 s: {fmt_seconds(r['seconds'])}")
        for tool in ("floor-samples", "floor"):
            f = by.get((tool, "roc_auc", 10**6, 1000))
            if f:
                ratio = r["seconds"] / f["seconds"]
                cpu = r["cpu_seconds"] / f["cpu_seconds"]
                line(
                    ratio <= 1.5,
                    f"... within 1.5x of the {LABEL[tool]} ({fmt_seconds(f['seconds'])}): "
                    f"{ratio:.2f}x (CPU time: {cpu:.2f}x)",
                )
    else:
        line(None, "roc_auc, n=1e6, B=1000: not run (use the full run)")
    for r in results:
        if r.get("tool") == "mlci" and r.get("B", 0) >= 10**4 and "seconds" in r:
            line(
                r["seconds"] < 0.5,
                f"{r['task']}, n={r['n']:.0e}, B={r['B']} under 0.5 s: {fmt_seconds(r['seconds'])}",
            )
    for task, n, goal in (("roc_auc", 10**5, 25), ("clustered_accuracy", 10**5, 100)):
        s, m = by.get(("seed", task, n, 1000)), by.get(("mlci", task, n, 1000))
        if s and m:
            ratio = s["seconds"] / m["seconds"]
            line(
                ratio >= goal,
                f"{task}, n=1e5: {ratio:.0f}x faster than confidence_intervals (target {goal}x)",
            )
        else:
            line(None, f"{task}, n=1e5 vs confidence_intervals: not run")
    mem = [
        r["memory_bytes"]
        for r in results
        if str(r.get("tool", "")).startswith("mlci") and "memory_bytes" in r
    ]
    if mem:
        line(max(mem) < 2**30, f"mlci working memory under 1 GiB: max {fmt_bytes(max(mem))}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="smoke run: small n and B, short budget")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON ('-': stdout)")
    p.add_argument("--sizes", help="comma-separated n (default 1e3,1e4,1e5,1e6)")
    p.add_argument("-B", type=int, default=None, help="replicates (default 1000)")
    p.add_argument(
        "--budget",
        type=float,
        default=None,
        help="seconds a slow peer may run per case before extrapolation (default 3)",
    )
    p.add_argument(
        "--tools", default=",".join(TOOLS), help="comma-separated subset of " + ", ".join(TOOLS)
    )
    p.add_argument("--case", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.case:
        print(json.dumps(child(json.loads(args.case))))
        return 0
    if args.quick:
        args.sizes = args.sizes or "1e3,1e4"
        args.B = args.B or 200
        args.budget = args.budget or 0.5
        args.big_n, args.big_B = 10**5, 10**3
    else:
        args.big_n, args.big_B = 10**6, 10**4
    args.sizes = [int(float(s)) for s in (args.sizes or "1e3,1e4,1e5,1e6").split(",")]
    args.B = args.B or 1000
    args.budget = args.budget or 3.0
    args.tools = [t.strip() for t in args.tools.split(",")]
    args.two_stage_max_n = 10**5
    args.scipy_bca_max_n = 10**3
    info = machine_info()
    cases = plan_cases(args)
    results = []
    t0 = time.perf_counter()
    for i, case in enumerate(cases, 1):
        print(
            f"[{i}/{len(cases)}] {case['tool']} {case['task']} n={case['n']:.0e} B={case['B']} ...",
            end=" ",
            file=sys.stderr,
            flush=True,
        )
        res = run_case(SCRIPT, case)
        res = {**case, **res}
        results.append(res)
        msg = (
            res["error"]
            if "error" in res
            else fmt_seconds(res["seconds"])
            + (f" (extrapolated from B'={res['B_run']})" if res["extrapolated"] else "")
        )
        print(msg, file=sys.stderr, flush=True)
    print(f"total {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    print(report(results, args, info))
    if args.json:
        payload = json.dumps({"machine": info, "results": results}, indent=1, default=str)
        if args.json == "-":
            print(payload)
        else:
            with open(args.json, "w") as fh:
                fh.write(payload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
