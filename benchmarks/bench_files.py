"""Reading files: ``mlci ci`` on a large CSV against ``pandas.read_csv`` of the same file.

Writes two CSVs with N rows (default 2 million: id, label, pred, score, speaker and a note
column) to /tmp once: one with text labels (``happy``, ``sad``, ...) and one with integer
labels (0-3).  Every case runs in a fresh Python process; the table gives its wall time
(the call alone, and the whole process with its imports) and its peak resident memory
(``os.wait4``'s ``ru_maxrss``), with the ratios to ``pandas.read_csv`` of the whole file
with the same labels, measured in the same run (with ``--repeat``, the fastest of the
runs for each measure)::

    python benchmarks/bench_files.py                 # 2e6 rows
    python benchmarks/bench_files.py --rows 5e6      # the issue's memory target
    python benchmarks/bench_files.py --quick         # 2e5 rows, a smoke run
    python benchmarks/bench_files.py --json out.json # also save the numbers

The cases: pandas.read_csv (all columns, and only the two used); mlci.io.read_table of
the two used columns with pyarrow and with the standard library; ``mlci ci`` end to end
(read, input gate, interval, print) with the default method (``auto``: Wilson for
accuracy) and with a 1000-replicate BCa bootstrap, on text and on integer labels.
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


def make_file(path: Path, n: int, seed: int = 0, *, text: bool = True) -> None:
    if path.exists():
        return
    rng = np.random.default_rng(seed)
    names = np.array(["angry", "happy", "neutral", "sad"]) if text else np.arange(4)
    y = rng.integers(0, 4, n)
    pred = np.where(rng.random(n) < 0.7, y, rng.integers(0, 4, n))
    score = np.round(rng.random(n), 4)
    speaker = rng.integers(0, 500, n)
    tmp = path.with_suffix(".part")
    with open(tmp, "w") as fh:
        fh.write("id,label,pred,score,speaker,note\n")
        chunk = 500_000
        for s in range(0, n, chunk):
            e = min(n, s + chunk)
            lines = [
                f"u{i},{names[a]},{names[b]},{c},spk{d},free text {i % 97}\n"
                for i, a, b, c, d in zip(
                    range(s, e), y[s:e], pred[s:e], score[s:e], speaker[s:e], strict=True
                )
            ]
            fh.write("".join(lines))
    tmp.rename(path)


_CI = (
    "import sys; from mlci.cli import main; import pyarrow.csv, pyarrow.compute; "
    "sys.stdout = open('/dev/null', 'w')"
)
_CI_ARGS = (
    "'ci', {f!r}, '--label', 'label', '--pred', 'pred', '--metric', 'accuracy', '--seed', '0'"
)

#: case -> (file: "text" or "int", imports, the timed work); the child prints the work's
#: wall time.  The first case of each file is its baseline.
CASES = {
    "pandas.read_csv (all 6 columns)": ("text", "import pandas as pd", "pd.read_csv({f!r})"),
    "pandas.read_csv (2 used columns)": (
        "text",
        "import pandas as pd",
        "pd.read_csv({f!r}, usecols=['label', 'pred'])",
    ),
    "mlci read_table, pyarrow (2 columns)": (
        "text",
        "from mlci.io import read_table; import pyarrow.csv, pyarrow.compute",
        "read_table({f!r}, ['label', 'pred'], engine='pyarrow')",
    ),
    "mlci read_table, stdlib (2 columns)": (
        "text",
        "from mlci.io import read_table",
        "read_table({f!r}, ['label', 'pred'], engine='python')",
    ),
    "mlci ci, text labels (auto: wilson)": ("text", _CI, f"main([{_CI_ARGS}])"),
    "mlci ci, text labels (bca, B=1000)": (
        "text",
        _CI,
        f"main([{_CI_ARGS}, '--method', 'bca', '-B', '1000'])",
    ),
    "int: pandas.read_csv (all 6 columns)": ("int", "import pandas as pd", "pd.read_csv({f!r})"),
    "int: mlci ci (auto: wilson)": ("int", _CI, f"main([{_CI_ARGS}])"),
    "int: mlci ci (bca, B=1000)": (
        "int",
        _CI,
        f"main([{_CI_ARGS}, '--method', 'bca', '-B', '1000'])",
    ),
}

CHILD = (
    "import time, sys; {imports}; t0, c0 = time.perf_counter(), time.process_time(); "
    "{work}; print(time.perf_counter() - t0, time.process_time() - c0, file=sys.stderr)"
)


def run(imports: str, work: str) -> tuple[float, float, float, float]:
    """(process wall s, work wall s, peak RSS MiB, work CPU s) of one case in a fresh
    process (CPU: every thread's, so it can exceed the wall time)."""
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    code = CHILD.format(imports=imports, work=work)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE)
    err = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"case failed: {code}\n{err.decode()}")
    work_s, cpu_s = map(float, err.decode().strip().splitlines()[-1].split())
    return wall, work_s, usage.ru_maxrss / 1024, cpu_s  # ru_maxrss is in KiB on Linux


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=float, default=2e6)
    p.add_argument("--quick", action="store_true", help="2e5 rows")
    p.add_argument(
        "--repeat", type=int, default=1, help="runs per case (the fastest of each measure is kept)"
    )
    p.add_argument("--skip-stdlib", action="store_true", help="leave out the slow reader")
    p.add_argument("--json", metavar="FILE", help="also write the numbers to FILE")
    args = p.parse_args()
    n = int(2e5 if args.quick else args.rows)
    paths = {kind: Path(f"/tmp/mlci_bench_files_{kind}_{n}.csv") for kind in ("text", "int")}
    for kind, path in paths.items():
        make_file(path, n, text=kind == "text")
    size = paths["text"].stat().st_size / 2**20
    load_start = os.getloadavg()
    print(f"# {paths['text']}: {n:,} rows, {size:.0f} MiB; load average {load_start[0]:.2f}")
    results = {}
    for name, (kind, imports, work) in CASES.items():
        if args.skip_stdlib and "stdlib" in name:
            continue
        runs = [run(imports, work.format(f=str(paths[kind]))) for _ in range(args.repeat)]
        # each measure's fastest run on its own: a run slowed by the other jobs in one
        # measure (the imports, say) does not hide a fast reading of the other
        results[name] = (kind, *(min(r[i] for r in runs) for i in range(4)))
    load_end = os.getloadavg()
    base = {}
    for kind, *numbers in results.values():
        base.setdefault(kind, numbers)
    print(
        f"{'case':<38} {'process s':>9} {'work s':>7} {'CPU s':>6} {'peak MiB':>9} "
        f"{'x work':>7} {'x CPU':>6} {'x process':>9} {'x memory':>9}"
    )
    rows = []
    for name, (kind, p_s, w_s, m, c_s) in results.items():
        ref_p, ref_w, ref_m, ref_c = base[kind]
        row = {
            "case": name,
            "labels": kind,
            "process_s": p_s,
            "work_s": w_s,
            "work_cpu_s": c_s,
            "peak_mib": m,
            "x_work": w_s / ref_w,
            "x_cpu": c_s / ref_c,
            "x_process": p_s / ref_p,
            "x_memory": m / ref_m,
        }
        rows.append(row)
        print(
            f"{name:<38} {p_s:9.2f} {w_s:7.2f} {c_s:6.2f} {m:9.0f} {row['x_work']:7.2f} "
            f"{row['x_cpu']:6.2f} {row['x_process']:9.2f} {row['x_memory']:9.2f}"
        )
    print(
        "# process: the whole python process (imports included); work: the call alone "
        "(wall; CPU: every thread's);"
    )
    print("# x: ratio to pandas.read_csv of the whole file with the same labels (same run)")
    print(f"# load average {load_start[0]:.2f} at the start, {load_end[0]:.2f} at the end")
    if args.json:
        doc = {
            "rows": n,
            "file_mib": size,
            "load_average": {"start": load_start[0], "end": load_end[0]},
            "cases": rows,
        }
        Path(args.json).write_text(json.dumps(doc, indent=2) + "\n")


if __name__ == "__main__":
    main()
