"""``mlci report`` end to end on a large Parquet file (issue 25's target).

Writes a Parquet file once under ``/tmp/mlci_bench_report/`` (``--rows`` samples, a
binary label, ``--systems`` score columns (probabilities, so the calibration section
runs too), a ``speaker`` column of ``--conditions`` text values), then times the whole
command in a fresh process::

    mlci report FILE --label label --score s1,...,s5 --condition speaker -o OUT --seed 0

(every section: metrics, all pairs, ROC and PR curves with bands, calibration).  The
child's wall time, CPU time (user + sys) and peak resident memory are read from
``os.wait4`` (``ru_maxrss``), so imports and reading are included.  The machine's load
(``os.getloadavg``) is printed with the numbers.  Target: < 20 s and < 2 GiB at
1e6 samples x 5 systems x 2,000 conditions.

Usage::

    nice python benchmarks/bench_report.py                 # 1e6 x 5 x 2000
    nice python benchmarks/bench_report.py --small         # 2e4 x 3 x 200, a smoke run
    nice python benchmarks/bench_report.py --profile prof.out   # also a cProfile
    nice python benchmarks/bench_report.py --sections -B 100    # CPU by section
    nice python benchmarks/bench_report.py --pieces -B 100      # one system's pieces

``--sections`` runs :func:`mlci.report.build_report` in this process instead (the file
read with pyarrow, the conditions as integer codes as the command reads them,
``--method``, default ``auto`` as the command's) and prints the CPU time (of the thread
that makes the call, ``RUSAGE_THREAD``: the report runs its calls on a few threads, each
call's engine on its own thread; with ``--jobs 1`` one after the other, the engine's
threads not counted) and wall time of every API call it makes (walls overlap), by
function and metric, largest first (the
plots, the curves' points, the sorting of the scores and the rest of ``build_report``
too), and the call after which the peak resident memory grew.  ``--pieces`` times one system's
pieces of the report (``--rows`` samples, ``--conditions`` conditions, synthetic, in this
process, CPU seconds): the average precision and the ROC AUC (``auto``), the ROC and PR
bands as two calls and from one set of replicates (where ``--src`` has it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
FOLDER = Path("/tmp/mlci_bench_report")


def make_file(path: Path, n: int, n_systems: int, n_conditions: int, seed: int = 0) -> None:
    """A binary task: each speaker shifts every system's score; systems differ in skill."""
    if path.exists():
        return
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(np.int8)
    spk = rng.integers(0, n_conditions, n)
    effect = rng.normal(0, 0.5, n_conditions)[spk]
    cols: dict[str, object] = {
        "label": y,
        "speaker": pa.array(np.char.add("spk", spk.astype(str))).dictionary_encode(),
    }
    for k in range(n_systems):
        z = (0.8 + 0.2 * k) * y + effect + rng.normal(0, 1, n)
        cols[f"s{k + 1}"] = 1.0 / (1.0 + np.exp(-(z - 0.5)))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part")
    pq.write_table(pa.table(cols), tmp)
    tmp.rename(path)


def run(
    path: Path,
    n_systems: int,
    out: Path,
    b: int,
    profile: str | None,
    src: Path = SRC,
    jobs: int | None = None,
) -> dict:
    """Run ``mlci report`` in a child process; wall, CPU and peak RSS from ``os.wait4``
    (``jobs``: mlci's ``n_jobs`` in the child, default all cores)."""
    scores = ",".join(f"s{k + 1}" for k in range(n_systems))
    argv = ["report", str(path), "--label", "label", "--score", scores]
    argv += ["--condition", "speaker", "-o", str(out), "--seed", "0", "-B", str(b)]
    code = "import sys; from mlci.cli import main; sys.exit(main(sys.argv[1:]))"
    if jobs is not None:
        code = f"import mlci; mlci.set_config(n_jobs={int(jobs)}); " + code
    cmd = [sys.executable, "-c", code, *argv]
    if profile:
        cmd = [sys.executable, "-m", "cProfile", "-o", profile, "-m", "mlci.cli", *argv]
    env = {**os.environ, "PYTHONPATH": str(src)}
    load = os.getloadavg()
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    err = proc.stderr.read() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"mlci report failed:\n{err}")
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),
        "load_before": [round(x, 2) for x in load],
        "load_after": [round(x, 2) for x in os.getloadavg()],
    }


def sections(
    path: Path, b: int, method: str, src: Path = SRC, jobs: int | None = None
) -> list[tuple[str, float, float]]:
    """CPU and wall seconds of every API call of build_report, by function (and metric)."""
    import resource
    import warnings
    from collections import defaultdict

    sys.path.insert(0, str(src))
    import pyarrow.parquet as pq

    import mlci.report as rep

    def cpu() -> float:  # this thread's (each report task runs in one thread)
        r = resource.getrusage(resource.RUSAGE_THREAD)
        return r.ru_utime + r.ru_stime

    def cpu_all() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    log: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    peak = [0.0]

    def wrap(name: str, module: object, group: str | None = None) -> None:
        real = getattr(module, name)

        def timed(*args: object, **kwargs: object) -> object:
            c0, t0 = cpu(), time.perf_counter()
            try:
                return real(*args, **kwargs)
            finally:
                key = group or name + (f":{kwargs['metric']}" if "metric" in kwargs else "")
                log[key][0] += cpu() - c0
                log[key][1] += time.perf_counter() - t0
                rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
                if rss > peak[0] + 50:
                    print(f"  peak RSS {rss:.0f} MiB after {key}", flush=True)
                    peak[0] = rss

        setattr(module, name, timed)

    for name in ("compare", "bootstrap_ci", "roc_band", "pr_band", "roc_pr_bands", "_figure"):
        if hasattr(rep, name):
            wrap(name, rep)
    # the plots (matplotlib's drawing; _figure is the SVG and PNG rendering) and the
    # curves' sorting and points
    from mlci import plotting

    for name in ("plot_forest", "plot_differences", "plot_roc", "plot_pr", "plot_reliability"):
        wrap(name, plotting, "plots")
    for name in ("roc_curve", "pr_curve"):
        if hasattr(rep, name):
            wrap(name, rep, "curves (points)")
    if hasattr(rep, "Scores"):
        real_from = rep.Scores.from_labels

        def from_labels(*args: object, **kwargs: object) -> object:
            c0, t0 = cpu(), time.perf_counter()
            try:
                return real_from(*args, **kwargs)
            finally:
                log["Scores.from_labels"][0] += cpu() - c0
                log["Scores.from_labels"][1] += time.perf_counter() - t0

        rep.Scores = type("Scores", (rep.Scores,), {"from_labels": staticmethod(from_labels)})
    table = pq.read_table(path)
    y = table.column("label").to_numpy()
    systems = {c: table.column(c).to_numpy() for c in table.column_names if c[:1] == "s"}
    systems.pop("speaker", None)
    # the conditions as integer codes, as the command reads them (cli/report.py)
    cond = table.column("speaker").combine_chunks().indices.to_numpy()
    c0, t0 = cpu_all(), time.perf_counter()
    import mlci

    with warnings.catch_warnings(), mlci.config_context(n_jobs=jobs):
        warnings.simplefilter("ignore")
        rep.build_report(
            y, systems, kind="score", source=path.name, conditions=cond, n_resamples=b,
            seed=0, method=method,
        )  # fmt: skip
    total = (cpu_all() - c0, time.perf_counter() - t0)
    rows = [(k, v[0], v[1]) for k, v in log.items()]
    rows.sort(key=lambda r: -r[1])
    rest = (total[0] - sum(r[1] for r in rows), float("nan"))
    rows.append(("(the rest of build_report: CPU only)", *rest))
    rows.append(("build_report (all)", *total))
    return rows


def pieces(n: int, n_conditions: int, b: int, src: Path = SRC) -> dict[str, float]:
    """CPU seconds of one system's report pieces over conditions."""
    import resource
    import warnings

    sys.path.insert(0, str(src))
    import mlci

    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    spk = rng.integers(0, n_conditions, n)
    p = 1 / (1 + np.exp(-(y + rng.normal(0, 0.5, n_conditions)[spk] + rng.normal(0, 1, n) - 0.5)))
    sc = mlci.Scores.from_labels(y, p)
    boot = {"conditions": spk, "n_resamples": b, "rng": 0}
    calls = {
        "average_precision_auto": lambda: mlci.bootstrap_ci(
            y, p, metric="average_precision", **boot
        ),
        "roc_auc_auto": lambda: mlci.bootstrap_ci(y, p, metric="roc_auc", **boot),
        "roc_band_plus_pr_band": lambda: (mlci.roc_band(sc, **boot), mlci.pr_band(sc, **boot)),
    }
    try:
        from mlci.scores.decisions import roc_pr_bands

        calls["roc_pr_bands"] = lambda: roc_pr_bands(sc, **boot)
    except ImportError:  # an older checkout
        pass
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, call in calls.items():
            c0 = cpu()
            call()
            out[name] = round(cpu() - c0, 2)
            print(f"{name:28s} CPU {out[name]:7.2f} s", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--systems", type=int, default=5)
    ap.add_argument("--conditions", type=int, default=2000)
    ap.add_argument("-B", type=int, default=1000)
    ap.add_argument("--small", action="store_true", help="2e4 rows x 3 systems x 200 speakers")
    ap.add_argument("--profile", metavar="FILE", help="run under cProfile, stats to FILE")
    ap.add_argument("--json", metavar="FILE", help="also write the numbers as JSON")
    ap.add_argument("--src", default=str(SRC), help="the mlci source to run (another checkout)")
    ap.add_argument("--sections", action="store_true", help="CPU by section, in this process")
    ap.add_argument("--method", default="auto", help="interval method of --sections")
    ap.add_argument("--pieces", action="store_true", help="one system's pieces, CPU s")
    ap.add_argument(
        "--jobs", type=int, default=None, help="mlci's n_jobs (default: the cores, up to 8)"
    )
    args = ap.parse_args()
    if args.small:
        args.rows, args.systems, args.conditions = 2e4, 3, 200
    n = int(args.rows)
    if args.pieces:
        load = os.getloadavg()
        res = pieces(n, args.conditions, args.B, Path(args.src))
        res["load"] = [round(x, 2) for x in (*load, *os.getloadavg())]
        print(json.dumps(res))
        return
    path = FOLDER / f"report_{n}_{args.systems}_{args.conditions}.parquet"
    t0 = time.perf_counter()
    make_file(path, n, args.systems, args.conditions)
    made = time.perf_counter() - t0
    if args.sections:
        load = os.getloadavg()
        for name, c, w in sections(path, args.B, args.method, Path(args.src), args.jobs):
            print(f"{name:40s} CPU {c:8.2f} s   wall {w:8.2f} s")
        print(f"(load {[round(x, 2) for x in load]} -> {[round(x, 2) for x in os.getloadavg()]})")
        return
    out = FOLDER / "report.html"
    res = run(path, args.systems, out, args.B, args.profile, Path(args.src), args.jobs)
    res.update(rows=n, systems=args.systems, conditions=args.conditions, B=args.B)
    if args.jobs is not None:
        res["n_jobs"] = args.jobs
    print(
        f"mlci report: {n:.0e} samples x {args.systems} systems x {args.conditions} "
        f"conditions, B={args.B} (data written in {made:.1f} s): wall {res['wall_s']} s, "
        f"CPU {res['cpu_s']} s, peak RSS {res['peak_rss_mib']:.0f} MiB "
        f"(load {res['load_before']} -> {res['load_after']})"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
