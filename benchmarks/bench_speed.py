"""Issue 25: ratios measured in one run (the machine's speed cancels out).

* ``auc``: ``roc_auc`` with 5,000 conditions against the iid path (default method,
  ``"auto"``: studentized for both), at ``--rows`` samples, B = ``-B``; best of
  ``--repeat`` runs each, interleaved.  Target: ratio <= 1.2.
* ``calibration``: ``ece`` and ``brier_reliability`` (additive kernels) with 2,000
  conditions against the iid path, at ``--rows`` samples, B = ``-B``, method BCa; CPU time
  (the process's user + sys), best of ``--repeat``.  Over conditions the kernel draws one
  atom per condition (exact per-condition sums), so the ratio is below 1; before that
  change it was the per-sample cost (1e6 samples, B = 100: ECE 25.8 s, now 6.2 s).
* ``calibration_fit``: ``calibration_slope`` and ``calibration_intercept`` (a logistic fit
  per replicate) at ``--rows`` samples, iid and over 2,000 conditions, B = ``-B``, with the
  default method (``"auto"``) and with ``method="percentile"``; each call in a fresh
  process: CPU (user + sys) and peak RSS (``os.wait4``; the interpreter with numpy and
  mlci imported is about 100 MiB of it).
* ``parquet``: peak memory (each read in a fresh process; Arrow's buffers are invisible
  to tracemalloc, so its pool is read too) of reading a
  ``--rows``-row file with a speaker column (text, 2,000 values), a label and a score,
  from Parquet and from CSV, into mlci's arrays (:func:`mlci.io.read_table`).
  Peak = numpy's traced peak (tracemalloc) + Arrow's pool peak (``max_memory``), an
  upper bound of the reader's peak.  Target: Parquet peak <= CSV peak.
* ``aucmem``: ``mlci ci FILE --metric roc_auc --condition speaker -B`` on a ``--rows``-row
  Parquet file (5,000 speakers as text, a label, a score) written once under /tmp, in a
  fresh process: wall, CPU (user + sys, ``os.wait4``) and peak RSS (the child's VmHWM:
  ``ru_maxrss`` would also count the forked copy of this process before the exec).
  Target at 5e6 rows, B = 1000: peak < 1 GB.
* ``deferred``: intervals that read no replicate (``t``, ``logit_t``, ``wilson``) of
  accuracy, log loss and a mean, over 5,000 conditions (and iid up to 2e6 rows): the call
  (no replicate drawn) and the first read of ``standard_error`` (the draw the call used
  to make); scipy's t interval of a mean as the peer.
* ``codesmem``: ``mlci compare`` (accuracy of two systems), ``scores`` (one score column)
  and ``report`` (two systems' decisions) with ``--condition`` (5,000 text conditions) on
  the same ``--rows``-row data as CSV and Parquet (under /tmp, once), each in a fresh
  process: CPU and peak RSS (``--src DIR``: another checkout's ``src``, for the numbers
  before a change).
* ``unique_rows``: :func:`mlci.metrics._base.unique_rows` (the atoms of an additive
  kernel: a mean's ``(value, 1)`` rows, label and rounded probability, two continuous
  columns) at ``--rows`` samples against ``np.unique(a, axis=0, return_inverse=True)``
  (the same output, checked) and ``np.unique`` of one column (one sort, the floor), best
  of ``--repeat``; then a mean's t interval against scipy's.  Prints the ratios.
* ``filemem``: ``mlci ci`` with 5,000 text conditions (accuracy, then roc_auc) on the
  same ``--rows``-row data written as CSV and as Parquet (under /tmp, once), each in a
  fresh process: CPU and peak RSS, and Parquet's peak over CSV's.  Target: <= 1.

Usage::

    nice python benchmarks/bench_speed.py --part auc --rows 1e6 -B 100
    nice python benchmarks/bench_speed.py --part calibration --rows 1e6 -B 100
    nice python benchmarks/bench_speed.py --part calibration_fit --rows 1e6 -B 100
    nice python benchmarks/bench_speed.py --part parquet --rows 1e6
    nice python benchmarks/bench_speed.py --part aucmem --rows 5e6 -B 1000
    nice python benchmarks/bench_speed.py --part filemem --rows 5e6 -B 100
    nice python benchmarks/bench_speed.py --part deferred --rows 1e6 -B 1000
    nice python benchmarks/bench_speed.py --part codesmem --rows 5e6 -B 100 [--src DIR]
    nice python benchmarks/bench_speed.py --part unique_rows --rows 1e6 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import tracemalloc
import warnings
from typing import Any

import numpy as np


def bench_auc(n: int, b: int, repeat: int, n_conditions: int = 5000) -> None:
    import mlci

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + y
    c = rng.integers(0, n_conditions, n)
    with warnings.catch_warnings():  # a warm-up of 20 replicates: its warning is noise
        warnings.simplefilter("ignore")
        mlci.bootstrap_ci(y[:2000], s[:2000], metric="roc_auc", n_resamples=20, rng=1)
    best = {"iid": np.inf, "conditions": np.inf}
    for _ in range(repeat):
        for name, kw in (("iid", {}), ("conditions", {"conditions": c})):
            t0 = time.perf_counter()
            res = mlci.bootstrap_ci(y, s, metric="roc_auc", n_resamples=b, rng=1, **kw)
            best[name] = min(best[name], time.perf_counter() - t0)
    print(
        f"roc_auc n={n:.0e} B={b} ({res.method}): iid {best['iid']:.2f} s, "
        f"{n_conditions} conditions {best['conditions']:.2f} s, "
        f"ratio {best['conditions'] / best['iid']:.2f}"
    )


def bench_calibration(n: int, b: int, repeat: int, n_conditions: int = 2000) -> None:
    import mlci

    rng = np.random.default_rng(0)
    p = rng.random(n)
    y = (rng.random(n) < p**1.5).astype(int)
    c = rng.integers(0, n_conditions, n)
    for metric in ("ece", "brier_reliability"):
        best = {"iid": np.inf, "conditions": np.inf}
        for _ in range(repeat):
            for name, kw in (("iid", {}), ("conditions", {"conditions": c})):
                t0 = time.process_time()
                with warnings.catch_warnings():  # near-zero notes are not the point here
                    warnings.simplefilter("ignore")
                    mlci.bootstrap_ci(y, p, metric=metric, method="bca", n_resamples=b, rng=1, **kw)
                best[name] = min(best[name], time.process_time() - t0)
        print(
            f"{metric} n={n:.0e} B={b} (bca): iid {best['iid']:.2f} s CPU, "
            f"{n_conditions} conditions {best['conditions']:.2f} s CPU, "
            f"ratio {best['conditions'] / best['iid']:.2f}"
        )


def _fit_case(spec: str) -> None:
    """(child process) One recalibration call ``metric,rows,design,B,method``: print the
    method, the interval and the process's CPU time."""
    import mlci

    metric, rows, design, b, method = spec.split(",")
    n = int(float(rows))
    rng = np.random.default_rng(0)
    p = rng.beta(2, 2, n)
    y = (rng.random(n) < p**2).astype(int)
    kw = {"conditions": rng.integers(0, 2000, n)} if design == "conditions" else {}
    t0 = time.process_time()
    with warnings.catch_warnings():  # B = 100 is too few for an interval: the cost is the point
        warnings.simplefilter("ignore")
        res = mlci.bootstrap_ci(y, p, metric=metric, method=method, n_resamples=int(b), rng=1, **kw)
    low, high = res.confidence_interval
    print(f"{res.method} {low:.6f} {high:.6f} {time.process_time() - t0:.2f}")


def bench_calibration_fit(n: int, b: int) -> None:
    import subprocess
    import sys

    for metric in ("calibration_slope", "calibration_intercept"):
        for design in ("iid", "conditions"):
            for method in ("auto", "percentile"):
                spec = f"{metric},{n},{design},{b},{method}"
                proc = subprocess.Popen(
                    [sys.executable, __file__, "--fit-case", spec], stdout=subprocess.PIPE
                )
                out = proc.stdout.read().decode().split() if proc.stdout else []
                _, _, use = os.wait4(proc.pid, 0)
                print(
                    f"{metric} n={n:.0e} {design:10s} B={b} {method:10s} -> {out[0]:12s} "
                    f"[{out[1]}, {out[2]}]  CPU {float(out[3]):7.2f} s (process "
                    f"{use.ru_utime + use.ru_stime:7.2f} s), peak RSS "
                    f"{use.ru_maxrss / 1024:5.0f} MiB",
                    flush=True,
                )


def _peak_read(path: str) -> None:
    """(child process) Read ``path``; print its peak memory."""
    import pyarrow as pa
    import pyarrow.parquet  # imports are not the reader's memory

    from mlci.io import read_table

    tracemalloc.start()
    t0 = time.perf_counter()
    cols = read_table(path, ["speaker", "label", "score"])
    dt = time.perf_counter() - t0
    traced = tracemalloc.get_traced_memory()[1]
    arrow = pa.default_memory_pool().max_memory() or 0
    print(f"{traced + arrow} {traced} {dt} {len(cols['score'])}")


def bench_parquet(n: int) -> None:
    import subprocess
    import sys

    import pandas as pd

    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "speaker": np.char.add("spk", rng.integers(0, 2000, n).astype(str)),
            "label": rng.integers(0, 2, n),
            "score": rng.normal(size=n),
        }
    )
    with tempfile.TemporaryDirectory() as d:
        paths = {"csv": os.path.join(d, "x.csv"), "parquet": os.path.join(d, "x.parquet")}
        df.to_csv(paths["csv"], index=False)
        df.to_parquet(paths["parquet"])
        del df
        peaks = {}
        for kind, path in paths.items():
            out = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--peak-of", path],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            total, traced, dt = int(out[0]), int(out[1]), float(out[2])
            peaks[kind] = total
            print(
                f"{kind}: peak {total / 2**20:.0f} MiB (numpy {traced / 2**20:.0f} MiB, "
                f"Arrow {(total - traced) / 2**20:.0f} MiB), {dt:.2f} s"
            )
        print(f"parquet / csv peak: {peaks['parquet'] / peaks['csv']:.2f}")


#: the child's own peak RSS (VmHWM, reset by exec): os.wait4's ru_maxrss also counts the
#: forked copy of this process before the exec, which is large after writing the data
_CHILD = """import atexit, os, sys
def _hwm():
    with open("/proc/self/status") as fh:
        kib = next(int(x.split()[1]) for x in fh if x.startswith("VmHWM:"))
    with open(os.environ["MLCI_BENCH_HWM"], "w") as out:
        out.write(str(kib))
atexit.register(_hwm)
from mlci.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _cli_peak(argv: list[str], src: str | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of ``mlci ARGV`` in a fresh process, this checkout's
    ``src`` (or ``src``) first on the path; CPU from ``os.wait4``, the peak from the
    child's VmHWM."""
    import subprocess
    import sys

    if src is None:
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "src")
    with tempfile.NamedTemporaryFile("r", suffix=".hwm") as hwm:
        env = {**os.environ, "PYTHONPATH": os.path.abspath(src), "MLCI_BENCH_HWM": hwm.name}
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", _CHILD, *argv],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _, status, use = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"mlci {' '.join(argv)} failed")
        peak = int(hwm.read()) / 1024
    return wall, use.ru_utime + use.ru_stime, peak


def bench_auc_memory(n: int, b: int, n_conditions: int = 5000) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = f"/tmp/mlci_bench_speed/auc_{n}_{n_conditions}.parquet"
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        rng = np.random.default_rng(0)
        y = rng.integers(0, 2, n).astype(np.int8)
        spk = np.char.add("spk", rng.integers(0, n_conditions, n).astype(str))
        table = pa.table(
            {
                "speaker": pa.array(spk).dictionary_encode(),
                "label": y,
                "score": rng.normal(size=n) + y,
            }
        )
        pq.write_table(table, path + ".part")
        os.replace(path + ".part", path)
    argv = ["ci", path, "--label", "label", "--score", "score", "--metric", "roc_auc"]
    argv += ["--condition", "speaker", "-B", str(b), "--seed", "0"]
    load = os.getloadavg()
    wall, cpu, rss = _cli_peak(argv)
    print(
        f"roc_auc, {n:.0e}-row Parquet, {n_conditions} conditions, B={b}: wall {wall:.1f} s, "
        f"CPU {cpu:.1f} s, peak RSS {rss:.0f} MiB (load {load[0]:.1f})"
    )


def _csv_and_parquet(stem: str, n: int, n_conditions: int, columns: Any) -> dict[str, str]:
    """The same table as ``STEM.csv`` and ``STEM.parquet`` (written once): a text
    ``speaker`` column of ``n_conditions`` values, a binary ``label`` and
    ``columns(rng, label)``'s, all drawn from seed 0 in that order."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    paths = {"csv": stem + ".csv", "parquet": stem + ".parquet"}
    if not all(os.path.exists(p) for p in paths.values()):
        os.makedirs(os.path.dirname(stem), exist_ok=True)
        rng = np.random.default_rng(0)
        y = rng.integers(0, 2, n).astype(np.int8)
        extra = columns(rng, y)
        speaker = np.char.add("spk", rng.integers(0, n_conditions, n).astype(str))
        table = pa.table({"speaker": speaker, "label": y, **extra})
        pq.write_table(table, paths["parquet"] + ".part")
        pacsv.write_csv(table, paths["csv"] + ".part")
        for p in paths.values():
            os.replace(p + ".part", p)
    return paths


def bench_file_memory(n: int, b: int, n_conditions: int = 5000) -> None:
    """``mlci ci`` from CSV and from Parquet holding the same data (a user's files:
    the speaker column plain text in both), accuracy and roc_auc over conditions."""

    def columns(rng: np.random.Generator, y: np.ndarray) -> dict[str, np.ndarray]:
        score = rng.normal(size=n) + y
        return {"pred": (score > 0.5).astype(np.int8), "score": score}

    paths = _csv_and_parquet(
        f"/tmp/mlci_bench_speed/files_{n}_{n_conditions}", n, n_conditions, columns
    )
    cases = {
        "accuracy": ["--label", "label", "--pred", "pred", "--metric", "accuracy"],
        "roc_auc": ["--label", "label", "--score", "score", "--metric", "roc_auc"],
    }
    load = os.getloadavg()
    for metric, args in cases.items():
        rss = {}
        for kind, path in paths.items():
            argv = ["ci", path, *args, "--condition", "speaker", "-B", str(b), "--seed", "0"]
            _, cpu, rss[kind] = _cli_peak(argv)
            print(
                f"{metric}, {n:.0e} rows, {n_conditions} conditions, B={b}, {kind}: "
                f"CPU {cpu:.1f} s, peak RSS {rss[kind]:.0f} MiB"
            )
        print(f"{metric}: parquet / csv peak RSS {rss['parquet'] / rss['csv']:.2f}")
    print(f"(load {load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)")


def bench_codes_memory(n: int, b: int, src: str | None, n_conditions: int = 5000) -> None:
    """``mlci compare``, ``scores`` and ``report`` over 5,000 text conditions from CSV and
    Parquet (the same data), each in a fresh process: CPU and peak RSS.  ``src``: the
    ``src`` folder of another checkout to run instead (the numbers before a change)."""

    def columns(rng: np.random.Generator, y: np.ndarray) -> dict[str, np.ndarray]:
        a = rng.normal(size=n) + y
        b2 = rng.normal(size=n) + 0.9 * y
        return {
            "pred_a": (a > 0.5).astype(np.int8),
            "pred_b": (b2 > 0.5).astype(np.int8),
            "score_a": a,
        }

    paths = _csv_and_parquet(
        f"/tmp/mlci_bench_speed/codes_{n}_{n_conditions}", n, n_conditions, columns
    )
    common = ["--condition", "speaker", "-B", str(b), "--seed", "0"]
    with tempfile.TemporaryDirectory() as d:
        cases = {
            "compare": [
                *("compare", "--label", "label", "--systems", "pred_a,pred_b"),
                *("--metric", "accuracy"),
            ],
            "scores": ["scores", "--label", "label", "--score", "score_a"],
            "report": [
                *("report", "--label", "label", "--pred", "pred_a,pred_b"),
                *("-o", os.path.join(d, "r.html")),
            ],
        }
        load = os.getloadavg()
        for name, argv in cases.items():
            for kind, path in paths.items():
                _, cpu, rss = _cli_peak([argv[0], path, *argv[1:], *common], src)
                print(
                    f"mlci {name}, {n:.0e} rows, {n_conditions} text conditions, B={b}, "
                    f"{kind}: CPU {cpu:.1f} s, peak RSS {rss:.0f} MiB",
                    flush=True,
                )
    print(f"(load {load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)")


def bench_deferred(n: int, b: int, draw_iid: bool = True, n_conditions: int = 5000) -> None:
    """Intervals that read no replicate (t, logit_t, Wilson): the call, which draws none,
    and the first read of a replicate field (``standard_error``), which draws the B
    replicates the call used to draw (the call before = the two together).  Peer: scipy's
    one-sample t interval of a mean (``ttest_1samp(...).confidence_interval``)."""
    import scipy.stats

    import mlci

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    s = np.clip(rng.normal(0.3 + 0.4 * y, 0.2), 0.001, 0.999)
    p = (s > 0.5).astype(int)
    c = rng.integers(0, n_conditions, n)
    v = rng.normal(size=n)
    cases = [
        ("accuracy", (y, p), {"conditions": c}),  # auto: logit_t
        ("log_loss", (y, s), {"conditions": c, "method": "t"}),
        ("mean", (v,), {"conditions": c, "method": "t"}),
    ]
    if draw_iid:
        cases += [
            ("accuracy", (y, p), {}),  # auto: wilson
            ("log_loss", (y, s), {"method": "t"}),
            ("mean", (v,), {"method": "t"}),
        ]
    for metric, arrays, kw in cases:
        t0 = time.perf_counter()
        res = mlci.bootstrap_ci(*arrays, metric=metric, n_resamples=b, rng=1, **kw)
        call = time.perf_counter() - t0
        t0 = time.perf_counter()
        res.standard_error  # noqa: B018 - draws the replicates
        draw = time.perf_counter() - t0
        design = "5,000 conditions" if "conditions" in kw else "iid"
        print(
            f"{metric} {design} ({res.method}), n={n:.0e}, B={b}: call {call:.2f} s, "
            f"drawing the replicates {draw:.2f} s (before: {call + draw:.2f} s, "
            f"{(call + draw) / call:.1f}x)",
            flush=True,
        )
    t0 = time.perf_counter()
    scipy.stats.ttest_1samp(v, 0.0).confidence_interval(0.95)
    peer = time.perf_counter() - t0
    t0 = time.perf_counter()
    mlci.bootstrap_ci(v, metric="mean", method="t", n_resamples=b, rng=1)
    mine = time.perf_counter() - t0
    print(f"mean iid t interval: mlci {mine:.2f} s, scipy.stats.ttest_1samp {peer:.3f} s")


def bench_unique_rows(n: int, repeat: int) -> None:
    """``unique_rows`` (the atoms of an additive kernel) against numpy's
    ``np.unique(a, axis=0, return_inverse=True)`` (the same output) and ``np.unique`` of
    one column (the floor: one sort), best of ``repeat`` each; then a mean's t interval
    against scipy's (``ttest_1samp(...).confidence_interval``).  Prints the ratios."""
    import scipy.stats

    import mlci
    from mlci.metrics._base import unique_rows

    rng = np.random.default_rng(0)
    v = rng.normal(size=n)
    tables = {
        "a mean's rows (value, 1)": np.column_stack([v, np.ones(n)]),
        "(label, probability to 3 decimals)": np.column_stack(
            [rng.integers(0, 2, n), rng.random(n).round(3)]
        ),
        "two continuous columns": np.column_stack([v, rng.normal(size=n)]),
    }

    def best(fn: Any) -> float:
        out = np.inf
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            out = min(out, time.perf_counter() - t0)
        return out

    for name, a in tables.items():
        mine = best(lambda a=a: unique_rows(a))
        peer = best(lambda a=a: np.unique(a, axis=0, return_inverse=True))
        floor = best(lambda a=a: np.unique(a[:, 0], return_inverse=True))
        rows, inverse = unique_rows(a)
        ref_rows, ref_inverse = np.unique(a, axis=0, return_inverse=True)
        same = np.array_equal(rows, ref_rows) and np.array_equal(inverse, ref_inverse.ravel())
        print(
            f"unique_rows, {name}, n={n:.0e}: {mine:.3f} s; np.unique(axis=0) {peer:.3f} s "
            f"(ratio {mine / peer:.2f}, same output: {same}); np.unique of the first "
            f"column {floor:.3f} s (ratio {mine / floor:.2f})",
            flush=True,
        )
    mine = best(lambda: mlci.bootstrap_ci(v, metric="mean", method="t", n_resamples=1000, rng=1))
    peer = best(lambda: scipy.stats.ttest_1samp(v, 0.0).confidence_interval(0.95))
    print(
        f"mean t interval, n={n:.0e}: mlci {mine:.3f} s, scipy.stats.ttest_1samp "
        f"{peer:.4f} s (ratio {mine / peer:.0f})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", nargs="+", default=["auc", "parquet"])
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("-B", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--peak-of", help=argparse.SUPPRESS)
    ap.add_argument("--fit-case", help=argparse.SUPPRESS)
    ap.add_argument("--src", help="codesmem: run the src folder of another checkout")
    args = ap.parse_args()
    if args.fit_case:
        _fit_case(args.fit_case)
        return
    if args.peak_of:
        _peak_read(args.peak_of)
        return
    if "auc" in args.part:
        bench_auc(int(args.rows), args.B, args.repeat)
    if "calibration" in args.part:
        bench_calibration(int(args.rows), args.B, args.repeat)
    if "calibration_fit" in args.part:
        bench_calibration_fit(int(args.rows), args.B)
    if "parquet" in args.part:
        bench_parquet(int(args.rows))
    if "aucmem" in args.part:
        bench_auc_memory(int(args.rows), args.B)
    if "filemem" in args.part:
        bench_file_memory(int(args.rows), args.B)
    if "deferred" in args.part:
        bench_deferred(int(args.rows), args.B, draw_iid=args.rows <= 2e6)
    if "codesmem" in args.part:
        bench_codes_memory(int(args.rows), args.B, args.src)
    if "unique_rows" in args.part:
        bench_unique_rows(int(args.rows), args.repeat)


if __name__ == "__main__":
    main()
