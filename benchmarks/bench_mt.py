"""Benchmark of ``mlci mt`` against the ``sacrebleu`` command on 3,000 segments.

Run: ``python benchmarks/bench_mt.py [--repeats 3] [--segments 3000]``.  Figures are
recorded in docs/mt.md.

The target (issue 24): on 3,000 segments ``sacrebleu --paired-bs --paired-bs-n 10000``
takes about 10 s and plain scoring about 0.84 s; mlci's whole command with 10,000
resamples should stay within 1.5x sacreBLEU's plain scoring of the same files (the
per-segment statistics are the cost; resampling them is a matrix product), and with
documents as conditions at the same cost.

The test set is synthetic and reproducible (:func:`mlci.mt.synthetic_corpus`, seed 0:
3,000 segments of about 22 words in ~130 documents, one reference, two systems with
BLEU about 31-32), written to ``/tmp/mlci_bench_mt_<n>/``.  Every command runs as its
own process (interpreter start, imports and file reading included), the cases in
round-robin so that a load burst on the shared machine hits all of them alike; each
row gives the fastest of ``--repeats`` runs (wall and CPU time of the child), and the
ratio to the plain ``sacrebleu`` scoring of the same systems.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def make_data(n: int) -> Path:
    out = Path(f"/tmp/mlci_bench_mt_{n}")
    if (out / "docs.txt").exists():
        return out
    sys.path.insert(0, str(ROOT / "src"))
    from mlci.mt import synthetic_corpus

    c = synthetic_corpus(n, qualities=(0.56, 0.55), rng=0)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ref.txt").write_text("\n".join(c.references[0]) + "\n", encoding="utf-8")
    for k, v in c.systems.items():
        (out / f"{k}.txt").write_text("\n".join(v) + "\n", encoding="utf-8")
    (out / "docs.txt").write_text("\n".join(f"d{d}" for d in c.documents) + "\n")
    return out


def timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "SACREBLEU_SEED": "12345"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--segments", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("-B", type=int, default=10000)
    args = ap.parse_args()
    d = make_data(args.segments)
    py = sys.executable
    sb = [py, "-m", "sacrebleu", "ref.txt", "-i"]
    ml = [py, "-m", "mlci.cli", "mt"]
    b = str(args.B)
    two = ["sys0.txt", "sys1.txt"]
    docs = ["--documents", "docs.txt"]
    cases = {
        "sacrebleu plain, 2 systems": (sb + two, None),
        "sacrebleu plain, 1 system": ([*sb, "sys0.txt"], None),
        f"sacrebleu --paired-bs -n {b}": (
            [*sb, *two, "--paired-bs", "--paired-bs-n", b],
            "sacrebleu plain, 2 systems",
        ),
        f"mlci mt compare --test paired-bs -B {b}": (
            [*ml, "compare", "-r", "ref.txt", "-i", *two, "--test", "paired-bs", "-B", b],
            "sacrebleu plain, 2 systems",
        ),
        "  ... --documents": (
            [*ml, "compare", "-r", "ref.txt", "-i", *two, "--test", "paired-bs", "-B", b, *docs],
            "sacrebleu plain, 2 systems",
        ),
        f"mlci mt compare (bootstrap) -B {b}": (
            [*ml, "compare", "-r", "ref.txt", "-i", *two, "-B", b, "--seed", "0"],
            "sacrebleu plain, 2 systems",
        ),
        "  ... --documents ": (
            [*ml, "compare", "-r", "ref.txt", "-i", *two, "-B", b, "--seed", "0", *docs],
            "sacrebleu plain, 2 systems",
        ),
        f"mlci mt ci -B {b}": (
            [*ml, "ci", "-r", "ref.txt", "-i", "sys0.txt", "-B", b, "--seed", "0"],
            "sacrebleu plain, 1 system",
        ),
        "  ... --documents  ": (
            [*ml, "ci", "-r", "ref.txt", "-i", "sys0.txt", "-B", b, "--seed", "0", *docs],
            "sacrebleu plain, 1 system",
        ),
    }
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.repeats):
        for name, (cmd, _) in cases.items():
            w, c = timed(cmd, d)
            old = best.get(name, (float("inf"), float("inf")))
            best[name] = (min(old[0], w), min(old[1], c))
    load = os.getloadavg()
    print(
        f"# {args.segments} segments, B = {args.B}, best of {args.repeats} runs each "
        f"(round-robin); load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; "
        f"{os.cpu_count()} cores"
    )
    print(f"{'command':45s} {'wall s':>7s} {'cpu s':>7s} {'wall ratio':>10s} {'cpu ratio':>9s}")
    for name, (_, ref) in cases.items():
        w, c = best[name]
        if ref is None:
            rw = rc = ""
        else:
            rw = f"{w / best[ref][0]:.2f}x"
            rc = f"{c / best[ref][1]:.2f}x"
        print(f"{name:45s} {w:7.2f} {c:7.2f} {rw:>10s} {rc:>9s}")
    print("# ratios: to the plain `sacrebleu` scoring of the same system(s)")


if __name__ == "__main__":
    main()
