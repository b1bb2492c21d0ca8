"""Reading files: ``mlci ci`` on a large CSV against ``pandas.read_csv`` of the same file.

Writes a CSV with N rows (default 2 million: label, decision, score, speaker, an id and
a note column) to /tmp once, then runs every case in a fresh Python process and reports
its wall time and peak resident memory (``os.wait4``'s ``ru_maxrss`` of that process),
with the ratio to ``pandas.read_csv`` of the whole file::

    python benchmarks/bench_files.py                 # 2e6 rows
    python benchmarks/bench_files.py --rows 5e6      # the issue's memory target
    python benchmarks/bench_files.py --quick         # 2e5 rows, a smoke run

The cases: pandas.read_csv (all columns, and only the two used); mlci.io.read_table of
the two used columns with pyarrow and with the standard library; ``mlci ci`` end to end
(read, gate, 1000 bootstrap replicates of accuracy, print).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def make_file(path: Path, n: int, seed: int = 0) -> None:
    if path.exists():
        return
    rng = np.random.default_rng(seed)
    labels = np.array(["angry", "happy", "neutral", "sad"])
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
                f"u{i},{labels[a]},{labels[b]},{c},spk{d},free text {i % 97}\n"
                for i, a, b, c, d in zip(
                    range(s, e), y[s:e], pred[s:e], score[s:e], speaker[s:e], strict=True
                )
            ]
            fh.write("".join(lines))
    tmp.rename(path)


#: case -> (imports, the timed work); the child prints the work's wall time
CASES = {
    "pandas.read_csv (all 6 columns)": ("import pandas as pd", "pd.read_csv({f!r})"),
    "pandas.read_csv (2 used columns)": (
        "import pandas as pd",
        "pd.read_csv({f!r}, usecols=['label', 'pred'])",
    ),
    "mlci read_table, pyarrow (2 columns)": (
        "from mlci.io import read_table; import pyarrow.csv, pyarrow.compute",
        "read_table({f!r}, ['label', 'pred'], engine='pyarrow')",
    ),
    "mlci read_table, stdlib (2 columns)": (
        "from mlci.io import read_table",
        "read_table({f!r}, ['label', 'pred'], engine='python')",
    ),
    "mlci ci (read + accuracy, B=1000)": (
        "import sys; from mlci.cli import main; import pyarrow.csv, pyarrow.compute; "
        "sys.stdout = open('/dev/null', 'w')",
        "main(['ci', {f!r}, '--label', 'label', '--pred', 'pred', '--metric', 'accuracy', "
        "'--seed', '0', '--quiet'])",
    ),
}

CHILD = (
    "import time, sys; {imports}; t0 = time.perf_counter(); {work}; "
    "print(time.perf_counter() - t0, file=sys.stderr)"
)


def run(imports: str, work: str) -> tuple[float, float, float]:
    """(process wall s, work wall s, peak RSS MiB) of one case in a fresh process."""
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    code = CHILD.format(imports=imports, work=work)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stderr=subprocess.PIPE)
    err = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"case failed: {code}\n{err.decode()}")
    work_s = float(err.decode().strip().splitlines()[-1])
    return wall, work_s, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rows", type=float, default=2e6)
    p.add_argument("--quick", action="store_true", help="2e5 rows")
    p.add_argument("--repeat", type=int, default=1, help="runs per case (the fastest is kept)")
    args = p.parse_args()
    n = int(2e5 if args.quick else args.rows)
    path = Path(f"/tmp/mlci_bench_files_{n}.csv")
    make_file(path, n)
    size = path.stat().st_size / 2**20
    print(f"# {path}: {n:,} rows, {size:.0f} MiB")
    results = {}
    for name, (imports, work) in CASES.items():
        runs = [run(imports, work.format(f=str(path))) for _ in range(args.repeat)]
        results[name] = min(runs, key=lambda r: r[1])
    ref_p, ref_w, ref_m = results["pandas.read_csv (all 6 columns)"]
    print(
        f"{'case':<38} {'process s':>9} {'work s':>7} {'peak MiB':>9} "
        f"{'x work':>7} {'x process':>9} {'x memory':>9}"
    )
    for name, (p_s, w_s, m) in results.items():
        print(
            f"{name:<38} {p_s:9.2f} {w_s:7.2f} {m:9.0f} {w_s / ref_w:7.2f} "
            f"{p_s / ref_p:9.2f} {m / ref_m:9.2f}"
        )
    print("# process: the whole python process (imports included); work: the call alone;")
    print("# x: ratio to pandas.read_csv of the whole file (its work and its process)")


if __name__ == "__main__":
    main()
