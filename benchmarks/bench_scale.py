"""Data larger than memory: time and peak memory of mlci's reductions, rows vs engine.

Three parts (``--part``):

* ``scaling``: accuracy with conditions (a speaker among ``n / 1000``) through every engine
  (in memory, DuckDB on Parquet files, polars LazyFrame, Dask LocalCluster, Spark local[2])
  at 10^5..10^7 rows; each case in a fresh process: wall time and peak RSS of the whole
  process (reduction and bootstrap; the engine's own threads included, Spark's JVM not).
* ``roc``: in-memory roc_auc with distinct scores against the sort-once numpy floor of
  ``bench_core.py`` (per replicate: one draw in sorted order, one bincount, one O(n)
  pass) at 10^5..10^7 rows, the ratio mlci / floor.
* ``big``: the issue's target: a 10^8-row Parquet data set (label, prediction, speaker
  among 10^5, score) written to ``--dir`` in chunks (never held in memory), then
  ``mlci ci 'DIR/*.parquet' --metric accuracy,f1,mcc --condition speaker`` through the CLI
  (wall time, peak RSS of the command), and roc_auc quantised (``reduce_ci``) on the same
  files with its error bound.

Results go to ``--json``; ``--plot`` draws ``docs/scale.png`` from that JSON.

Usage::

    pip install ".[duckdb,dask,spark]" matplotlib
    python benchmarks/bench_scale.py --part roc scaling --json /tmp/scale.json
    python benchmarks/bench_scale.py --part big --rows 100000000 --json /tmp/scale.json
    nice -n 10 python benchmarks/bench_scale.py --part big --rows 1e9 --reuse /work/data-1e9 \
        --no-roc --json benchmarks/results_scale.json    # 10^9 rows (16 GB written once)
    nice -n 10 python benchmarks/bench_scale.py --part engines --rows 1e8 --reuse /work/data-1e9 \
        --engines spark,dask -B 200 --json benchmarks/results_scale.json   # its first 10^8 rows
    python benchmarks/bench_scale.py --plot /tmp/scale.json --out docs/scale.png
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _common import machine_info

SCRIPT = os.path.abspath(__file__)
ENGINES = ("memory", "duckdb", "polars", "dask", "spark")


# ------------------------------------------------------------------------------ data
def write_parquet(
    path: str, n: int, n_speakers: int, chunk: int = 5_000_000, seed: int = 0
) -> None:
    """``n`` rows in files of ``chunk`` rows under ``path`` (one chunk in memory at a time).

    Chunk ``i`` draws from its own generator (``seed``, ``i``), so an interrupted write
    resumes where it stopped: a file is written under a temporary name and renamed when
    complete, and complete files are kept.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    os.makedirs(path, exist_ok=True)
    skill = np.random.default_rng(seed).normal(0.0, 0.7, n_speakers)
    for i, start in enumerate(range(0, n, chunk)):
        name = os.path.join(path, f"part-{i:05d}.parquet")
        if os.path.exists(name):
            continue
        rng = np.random.default_rng([seed, i])
        k = min(chunk, n - start)
        speaker = rng.integers(0, n_speakers, k, dtype=np.int32)
        label = rng.integers(0, 2, k, dtype=np.int8)
        score = label * 1.2 + skill[speaker] + rng.normal(0.0, 1.0, k)
        table = pa.table(
            {
                "label": label,
                "prediction": (score > 0.6).astype(np.int8),
                "speaker": speaker,
                "score": score,
            }
        )
        pq.write_table(table, name + ".tmp")
        os.replace(name + ".tmp", name)


def dataset(root: str, n: int, n_speakers: int) -> str:
    path = os.path.join(root, f"rows-{n}")
    if not os.path.exists(os.path.join(path, "_done")):
        write_parquet(path, n, n_speakers)
        open(os.path.join(path, "_done"), "w").close()
    return path


# ------------------------------------------------------------------------- children
def child(engine: str, path: str, metric: str, b: int) -> dict[str, Any]:
    """One case (in a fresh process): reduce (or load) and bootstrap; seconds."""
    import glob

    import mlci

    path, _, first = path.partition(":")  # "DIR:K": the first K files of DIR
    files = sorted(glob.glob(os.path.join(path, "*.parquet")))
    files = files[: int(first)] if first else files
    t0 = time.perf_counter()
    cols = ("label", "prediction") if metric != "roc_auc" else ("label", "score")
    design = {"conditions": "speaker"} if metric != "roc_auc" else {}
    kw = {"n_resamples": b, "rng": 0}
    out: dict[str, Any] = {}
    if engine == "memory":
        import pyarrow.parquet as pq

        t = pq.read_table(files, columns=[*cols, "speaker"])
        arrays = [t[c].to_numpy() for c in cols]
        extra = {k: t[v].to_numpy() for k, v in design.items()}
        res = mlci.bootstrap_ci(*arrays, metric=metric, **extra, **kw)
    elif engine == "duckdb":
        res = mlci.reduce_ci(files, *cols, metric=metric, **design, **kw)
    elif engine == "polars":
        import polars as pl

        res = mlci.reduce_ci(pl.scan_parquet(files), *cols, metric=metric, **design, **kw)
    elif engine == "dask":
        import warnings

        import dask.dataframe as dd
        from distributed import Client, LocalCluster

        warnings.simplefilter("ignore")
        with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as c:
            with Client(c):
                t0 = time.perf_counter()  # the cluster's start-up is not the reduction
                frame = dd.read_parquet(files)
                res = mlci.reduce_ci(frame, *cols, metric=metric, **design, **kw)
    elif engine == "spark":
        from pyspark.sql import SparkSession

        spark = (
            SparkSession.builder.master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.memory", "2g")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        t0 = time.perf_counter()  # the JVM's start-up is not the reduction
        res = mlci.reduce_ci(spark.read.parquet(*files), *cols, metric=metric, **design, **kw)
        spark.stop()
    else:
        raise ValueError(engine)
    out["seconds"] = time.perf_counter() - t0
    out["estimate"] = float(res.estimate)
    out["interval"] = [float(x) for x in res.confidence_interval]
    out["error_bound"] = res.details.get("error_bound")
    return out


def run_child(args: list[str], timeout: float = 3600) -> dict[str, Any]:
    """Run this script as ``--child ...`` under ``/usr/bin/time -v``: result and peak RSS."""
    cmd = [sys.executable, SCRIPT, "--child", *args]
    timer = ["/usr/bin/time", "-v"] if os.path.exists("/usr/bin/time") else []
    t0 = time.perf_counter()
    proc = subprocess.run([*timer, *cmd], capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-3:], "wall_process": wall}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    out = json.loads(lines[-1])
    out["wall_process"] = wall
    for ln in proc.stderr.splitlines():
        if "Maximum resident set size" in ln:
            out["peak_rss_bytes"] = int(ln.split(":")[1]) * 1024
    return out


def run_cli(argv: list[str]) -> dict[str, Any]:
    """``mlci`` itself, under ``/usr/bin/time -v``: wall seconds, CPU seconds (user + system,
    DuckDB's threads included), peak RSS, output, and the load average before and after."""
    cmd = [sys.executable, "-c", "import sys, mlci.cli; sys.exit(mlci.cli.main())", *argv]
    load = [os.getloadavg()]
    t0 = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
    out = {"seconds": time.perf_counter() - t0, "status": proc.returncode, "stdout": proc.stdout}
    load.append(os.getloadavg())
    out["load_average"] = load
    cpu = 0.0
    for ln in proc.stderr.splitlines():
        if "Maximum resident set size" in ln:
            out["peak_rss_bytes"] = int(ln.split(":")[1]) * 1024
        if "User time (seconds)" in ln or "System time (seconds)" in ln:
            cpu += float(ln.split(":")[1])
    out["cpu_seconds"] = cpu
    if proc.returncode:
        out["stderr"] = proc.stderr[-2000:]
    return out


def profile(path: str, b: int) -> dict[str, Any]:
    """Where the time of the decisions command goes (in a fresh process): DuckDB's
    reduction (wall and CPU seconds of the process: DuckDB's threads) vs mlci's bootstrap
    of the reduced table, one metric at a time."""
    import glob
    import resource

    import mlci
    from mlci.backends.sources import duckdb_connection

    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    con = duckdb_connection()
    settings = {
        k: con.execute(f"SELECT current_setting('{k}')").fetchall()[0][0]
        for k in ("threads", "memory_limit")
    }
    path, _, first = path.partition(":")  # "DIR:K": the first K files of DIR
    glob_ = os.path.join(path, "*.parquet")
    if first:
        glob_ = sorted(glob.glob(glob_))[: int(first)]
    out: dict[str, Any] = {"duckdb_settings": settings, "load_average": [os.getloadavg()]}
    c0, t0 = cpu(), time.perf_counter()
    table = mlci.reduce_table(
        glob_, "label", "prediction", metric=["accuracy", "f1", "mcc"], conditions="speaker"
    )
    out["reduce"] = {"seconds": time.perf_counter() - t0, "cpu_seconds": cpu() - c0}
    out["table_rows"] = table.n_rows
    for metric in ("accuracy", "f1", "mcc"):
        c0, t0 = cpu(), time.perf_counter()
        table.bootstrap_ci(metric, n_resamples=b, rng=0)
        out[metric] = {"seconds": time.perf_counter() - t0, "cpu_seconds": cpu() - c0}
    out["load_average"].append(os.getloadavg())
    return out


# ----------------------------------------------------------------------------- parts
def part_scaling(root: str, sizes: list[int], engines: list[str], b: int) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        path = dataset(root, n, max(n // 1000, 20))
        for engine in engines:
            r = run_child([engine, path, "accuracy", str(b)])
            r.update(engine=engine, rows=n, metric="accuracy", n_resamples=b)
            print(json.dumps(r), flush=True)
            rows.append(r)
    return rows


def roc_case(n: int, b: int) -> dict[str, Any]:
    import numpy as np
    from bench_core import roc_floor

    import mlci

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    s = y * 0.5 + rng.normal(size=n)
    t = time.perf_counter()
    roc_floor(y, s, b)
    floor = time.perf_counter() - t
    t = time.perf_counter()
    mlci.bootstrap_ci(y, s, metric="roc_auc", n_resamples=b, rng=0, method="percentile")
    mine = time.perf_counter() - t
    return {"rows": n, "n_resamples": b, "floor": floor, "mlci": mine, "ratio": mine / floor}


def part_roc(sizes: list[int], b: int) -> list[dict[str, Any]]:
    rows = []
    for n in sizes:
        r = run_child(["roc", str(n), str(b)])
        print(json.dumps(r), flush=True)
        rows.append(r)
    return rows


def part_big(
    root: str, n: int, b: int, reuse: str | None = None, roc: bool = True, prof: bool = True
) -> dict[str, Any]:
    """The issue's target: the CLI on ``n`` rows (``reuse``: the data set's own directory,
    written there first if incomplete; else ``root/rows-n``)."""
    t0 = time.perf_counter()
    if reuse:
        write_parquet(reuse, n, 100_000)  # keeps the complete files already there
        path = reuse
    else:
        path = dataset(root, n, 100_000)
    written = time.perf_counter() - t0
    glob_ = os.path.join(path, "*.parquet")
    common = ["--label", "label", "--seed", "0", "-B", str(b), "--json"]
    columns = ["--pred", "prediction", "--condition", "speaker"]
    out: dict[str, Any] = {"rows": n, "path": path, "write_seconds": written}
    out["decisions"] = run_cli(["ci", glob_, *columns, "--metric", "accuracy,f1,mcc", *common])
    _summary(f"{n:.0e} rows, accuracy/f1/mcc, 1e5 conditions", out["decisions"])
    if roc:
        out["roc_auc"] = run_cli(["ci", glob_, "--score", "score", "--metric", "roc_auc", *common])
        _summary(f"{n:.0e} rows, roc_auc quantised", out["roc_auc"])
    if prof:
        out["profile"] = run_child(["profile", path, str(b)], timeout=7200)
        p = out["profile"]
        if "reduce" in p:
            boot = sum(p[m]["seconds"] for m in ("accuracy", "f1", "mcc"))
            print(
                f"profile: DuckDB reduction {p['reduce']['seconds']:.1f} s wall, "
                f"{p['reduce']['cpu_seconds']:.1f} s CPU ({p['duckdb_settings']}); mlci "
                f"bootstrap of the {p['table_rows']}-row table, 3 metrics: {boot:.1f} s",
                flush=True,
            )
    return out


def _summary(what: str, r: dict[str, Any]) -> None:
    if r.get("status") != 0:
        print(f"{what}: FAILED\n{r.get('stderr', '')}", flush=True)
        return
    print(
        f"{what}: {r['seconds']:.1f} s wall, {r['cpu_seconds']:.1f} s CPU, peak RSS "
        f"{r.get('peak_rss_bytes', 0) / 2**30:.2f} GiB; load average "
        f"{r['load_average'][0][0]:.1f} before, {r['load_average'][1][0]:.1f} after",
        flush=True,
    )


def part_engines(reuse: str, n: int, engines: list[str], b: int) -> list[dict[str, Any]]:
    """Throughput of each engine on the first ``n`` rows of the data set in ``reuse`` (its
    first ``n / 5e6`` files): accuracy with 10^5 conditions, B resamples."""
    k = -(-n // 5_000_000)
    rows = []
    for engine in engines:
        r = run_child([engine, f"{reuse}:{k}", "accuracy", str(b)], timeout=7200)
        r.update(engine=engine, rows=n, metric="accuracy", n_resamples=b, load=os.getloadavg())
        if "seconds" in r:
            r["rows_per_second"] = n / r["seconds"]
            print(
                f"{engine}: {n:.0e} rows in {r['seconds']:.1f} s ({n / r['seconds'] / 1e6:.2f} "
                f"million rows/s), load average {r['load'][0]:.1f}",
                flush=True,
            )
        else:
            print(f"{engine}: FAILED {r.get('error')}", flush=True)
        rows.append(r)
    return rows


# ------------------------------------------------------------------------------ plot
def plot(results: dict[str, Any], out: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.4, 4.2))
    scaling = [r for r in results.get("scaling", []) if "seconds" in r]
    scaling += [r for r in results.get("engines", []) if "seconds" in r]  # 10^8 rows
    for engine in ENGINES:
        pts = sorted((r["rows"], r["seconds"]) for r in scaling if r["engine"] == engine)
        if pts:
            xs, ys = zip(*pts, strict=True)
            ax.plot(xs, ys, marker="o", label=engine)
    cli = [
        (b["rows"], b["decisions"]["seconds"])
        for key, b in results.items()
        if key.startswith("big") and b.get("decisions", {}).get("status") == 0
    ]
    if cli:
        xs, ys = zip(*sorted(cli), strict=True)
        ax.plot(
            xs,
            ys,
            marker="s",
            ls="--",
            color="black",
            label="mlci ci (DuckDB), 3 metrics, 1e5 conditions",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rows")
    ax.set_ylabel("seconds")
    ax.set_title("accuracy with n/1000 conditions (B = 200); CLI: B = 1000")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--part", nargs="+", choices=("scaling", "roc", "big", "engines"), default=[])
    p.add_argument("--dir", default="/tmp/mlci-scale", help="where the Parquet data go")
    p.add_argument("--sizes", default="100000,1000000,10000000")
    p.add_argument("--engines", default=",".join(ENGINES))
    p.add_argument(
        "--rows", type=lambda x: int(float(x)), default=100_000_000, help="rows of --part big"
    )
    p.add_argument(
        "--reuse",
        help="--part big: the data set's directory (e.g. /work/data-1e9); its missing files "
        "are written first, complete ones kept",
    )
    p.add_argument("--no-roc", action="store_true", help="--part big: decisions only")
    p.add_argument("--no-profile", action="store_true", help="--part big: no breakdown run")
    p.add_argument("-B", "--n-resamples", type=int, default=1000)
    p.add_argument("--roc-resamples", type=int, default=50)
    p.add_argument("--json", help="add the results to this JSON file")
    p.add_argument("--plot", help="draw the figure from this JSON file")
    p.add_argument("--out", default="docs/scale.png")
    p.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.child:
        if a.child[0] == "roc":
            print(json.dumps(roc_case(int(a.child[1]), int(a.child[2]))))
        elif a.child[0] == "profile":
            print(json.dumps(profile(a.child[1], int(a.child[2]))))
        else:
            engine, path, metric, b = a.child
            print(json.dumps(child(engine, path, metric, int(b))))
        return 0
    if a.plot:
        with open(a.plot) as fh:
            plot(json.load(fh), a.out)
        return 0
    results: dict[str, Any] = {}
    if a.json and os.path.exists(a.json):
        with open(a.json) as fh:
            results = json.load(fh)
    results["machine"] = machine_info()
    results.setdefault("load_average", []).append(os.getloadavg())
    sizes = [int(float(x)) for x in a.sizes.split(",")]
    if "roc" in a.part:
        results["roc"] = part_roc(sizes, a.roc_resamples)
    if "scaling" in a.part:
        engines = a.engines.split(",")
        new = part_scaling(a.dir, sizes, engines, a.n_resamples)
        done = {(r["engine"], r["rows"]) for r in new}
        old = [r for r in results.get("scaling", []) if (r["engine"], r["rows"]) not in done]
        results["scaling"] = old + new
    if "engines" in a.part:  # needs --reuse (the data set of --part big)
        new = part_engines(a.reuse, a.rows, a.engines.split(","), a.n_resamples)
        done = {(r["engine"], r["rows"]) for r in new}
        old = [r for r in results.get("engines", []) if (r["engine"], r["rows"]) not in done]
        results["engines"] = old + new
    if "big" in a.part:
        key = "big" if a.rows == 100_000_000 else f"big_{a.rows}"
        results[key] = part_big(
            a.dir, a.rows, a.n_resamples, a.reuse, not a.no_roc, not a.no_profile
        )
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
