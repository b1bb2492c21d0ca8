"""Benchmark of ``mlci mt`` against the ``sacrebleu`` command on 3,000 segments.

Run: ``python benchmarks/bench_mt.py [--repeats 5] [--segments 3000] [--metric bleu]
[--json benchmarks/results_mt.json]``.  Figures are recorded in docs/mt.md and
benchmarks/results_mt.json.

The target (issue 24): on 3,000 segments ``sacrebleu --paired-bs --paired-bs-n 10000``
takes about 10 s and plain scoring about 0.84 s; mlci's whole command with 10,000
resamples should stay within 1.5x sacreBLEU's plain scoring of the same files (the
per-segment statistics are the cost; resampling them is a matrix product), and with
documents as conditions at the same cost.

The test set is synthetic and reproducible (:func:`mlci.mt.synthetic_corpus`, seed 0:
3,000 segments of about 22 words in ~130 documents, one reference, two systems with
BLEU about 31-32), written to ``/tmp/mlci_bench_mt_<n>/``.  Every command runs as its
own process (interpreter start, imports and file reading included), the cases in
round-robin so that a load burst on the shared machine hits all of them alike.  Per
case: the median and the minimum over ``--repeats`` rounds of the child's CPU time
(user + sys) and its median wall time; the ratio to the plain ``sacrebleu`` scoring of
the same systems is the median of the per-round ratios (each round's command against
the same round's plain scoring), for CPU and wall time.  On a shared machine the CPU
time is the steadier figure (the wall time counts the waits for a core).

Bytecode: numpy, scipy and sacreBLEU run from their installed, compiled ``.pyc`` files;
mlci from ``--src``, whose modules Python compiles at every start when it may not write
``__pycache__`` (``PYTHONDONTWRITEBYTECODE=1``, set on the machine of docs/mt.md's
figures: about 0.1 s of ~70 modules).  The benchmark therefore compiles ``--src`` first
(``compileall``, into its ``__pycache__``), as ``pip install`` does, so that both tools
start as installed; ``--no-compile`` times the tree as it is.

``--phases`` instead splits the CPU time of ``mlci mt compare -B N`` and ``mlci mt ci -B
N`` (and of the plain ``sacrebleu`` scoring of the same files) into its phases, each
command ``--repeats`` times in its own process: the imports by group (numpy, sacreBLEU,
scipy, mlci's modules: those the command loads, imported first in that order), reading
the files, sacreBLEU's statistics, the replicate loop (and its draws, timed on the
threads that make them), the rest of the driver, and what the interpreter's start and
exit take (the process's CPU time that no phase claims).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

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


def timed(cmd: list[str], cwd: Path, src: str) -> tuple[float, float]:
    env = {**os.environ, "PYTHONPATH": src, "SACREBLEU_SEED": "12345"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _median(xs: list[float]) -> float:
    ys = sorted(xs)
    k = len(ys) // 2
    return ys[k] if len(ys) % 2 else 0.5 * (ys[k - 1] + ys[k])


#: ``--phases``: run in the command's process, the phases timed with its own CPU clock
#: (``time.process_time``: every thread).  The modules the command loads are imported
#: first, by group (numpy, sacreBLEU, scipy, mlci's), then the command runs through
#: ``mlci.cli.main`` with its steps wrapped; what no step claims is "other".
_MLCI_PROBE = r"""
import gc, importlib, json, sys, threading, time
clock = time.process_time
phases = {}
def add(name, dt):
    phases[name] = phases.get(name, 0.0) + dt
argv, groups = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for label, names in groups:
    t = clock()
    for name in names:
        importlib.import_module(name)
    add(label, clock() - t)
import mlci.cli
import mlci.cli.mt as cli_mt
import mlci.mt.api as api
inner = []
def wrap(module, attr, label, nested=False):
    f = getattr(module, attr)
    def timed(*a, **k):
        t = clock()
        try:
            return f(*a, **k)
        finally:
            dt = clock() - t
            add(label, dt)
            if nested:
                inner.append(dt)
    setattr(module, attr, timed)
wrap(cli_mt, "read_systems", "read the files")
wrap(cli_mt, "read_segments", "read the files")
wrap(api, "system_statistics", "sacreBLEU's statistics (references once, every system)")
LOOP = "the replicate loop: draws, values, per-replicate standard errors"
DRIVER = "the driver but its loop (method choice, data's SE, intervals, p-values)"
for name, attr, label, nested in (
    ("mlci.comparison.paired", "compare", DRIVER, False),
    ("mlci.comparison.paired", "run_replicates", LOOP, True),
    ("mlci.comparison.common", "run_replicates", LOOP, True),
    ("mlci.engine.bootstrap", "bootstrap_ci", DRIVER, False),
    ("mlci.engine.bootstrap", "run_replicates", LOOP, True),
    ("mlci.mt.significance", "paired_test", "sacreBLEU's test (mlci.mt.paired_test)", False),
):
    if name in sys.modules:
        wrap(sys.modules[name], attr, label, nested)
DRAWS = "  of which the draws (the engine's samplers; on their threads)"
lock = threading.Lock()
for cls in ("AtomSampler", "UnitDraws"):
    for name in ("mlci.engine.resampling", "mlci.engine.sampler"):
        owner = getattr(sys.modules.get(name), cls, None)
        if owner is not None and "draw_rows" in vars(owner):
            def drawn(*a, _f=owner.draw_rows, **k):
                t = time.thread_time()  # (this thread's CPU: draws run on several)
                try:
                    return _f(*a, **k)
                finally:
                    with lock:
                        add(DRAWS, time.thread_time() - t)
            owner.draw_rows = drawn
wrap(cli_mt, "emit", "print")
t = clock()
status = mlci.cli.main(argv)
command = clock() - t
gc.freeze()  # (as mlci.cli.main does when it ends the process)
if DRIVER in phases:
    phases[DRIVER] -= sum(inner)
phases["other (arguments, checks, imports inside the command)"] = command - sum(
    v for k, v in phases.items() if not k.startswith(("import", " "))
)
print(json.dumps(phases), file=sys.stderr)
"""
#: the plain ``sacrebleu`` scoring, timed alike
_SACREBLEU_PROBE = r"""
import json, sys, time
clock = time.process_time
phases = {}
t = clock()
import sacrebleu.sacrebleu as cli
from sacrebleu.metrics.base import Metric
phases["import sacrebleu"] = clock() - t
STATS = "sacreBLEU's statistics (references once, every system)"
def wrap(attr):
    f = getattr(Metric, attr)
    def timed(*a, **k):
        t = clock()
        try:
            return f(*a, **k)
        finally:
            phases[STATS] = phases.get(STATS, 0.0) + clock() - t
    setattr(Metric, attr, timed)
wrap("_cache_references")
wrap("_extract_corpus_statistics")
sys.argv = ["sacrebleu", *json.loads(sys.argv[1])]
t = clock()
try:
    cli.main()
except SystemExit:
    pass
phases["other (arguments, files, scores, print)"] = clock() - t - phases.get(STATS, 0.0)
print(json.dumps(phases), file=sys.stderr)
"""


def _child_cpu(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, proc.stderr


def phases(d: Path, args: argparse.Namespace, metrics: list[str]) -> None:
    """``--phases``: where the CPU time of the slowest commands goes (module docstring)."""
    py = sys.executable
    env = {**os.environ, "PYTHONPATH": args.src, "SACREBLEU_SEED": "12345"}
    b = str(args.B)
    mm = ["-m", ",".join(metrics)]
    two = ["sys0.txt", "sys1.txt"]
    seed = ["--seed", "0"]
    commands = {
        f"mlci mt compare -B {b}": (
            ["mt", "compare", "-r", "ref.txt", "-i", *two, *mm, "-B", b, *seed],
            ["ref.txt", "-m", *metrics, "-i", *two],
        ),
        f"mlci mt ci -B {b}": (
            ["mt", "ci", "-r", "ref.txt", "-i", "sys0.txt", *mm, "-B", b, *seed],
            ["ref.txt", "-m", *metrics, "-i", "sys0.txt"],
        ),
    }
    if args.phases_all:  # the same resamples over documents, and sacreBLEU's test
        docs = ["--documents", "docs.txt"]
        commands[f"mlci mt compare -B {b} --documents"] = (
            [*commands[f"mlci mt compare -B {b}"][0], *docs],
            commands[f"mlci mt compare -B {b}"][1],
        )
        commands[f"mlci mt compare --test paired-bs -B {b}"] = (
            ["mt", "compare", "-r", "ref.txt", "-i", *two, *mm, "--test", "paired-bs", "-B", b],
            commands[f"mlci mt compare -B {b}"][1],
        )
    listing = (
        "import contextlib, io, json, sys\nfrom mlci.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main(json.loads(sys.argv[1]))\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    )
    record: dict[str, Any] = {
        "what": "bench_mt.py --phases: CPU seconds of every phase, per round, each command in "
        "its own process (mlci: its own clocks; sacrebleu: the plain scoring of the same files)",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "segments": args.segments,
        "n_resamples": args.B,
        "load_average_before": list(os.getloadavg()),
        "commands": {},
    }
    for name, (argv, sb) in commands.items():
        _, err = _child_cpu([py, "-c", listing, json.dumps(argv)], d, env)
        loaded = json.loads(err.strip().splitlines()[-1])
        scipy = [m for m in ("scipy.special", "scipy.sparse", "scipy.stats") if m in loaded]
        groups = [
            ("import numpy", ["numpy"]),
            ("import sacrebleu", ["sacrebleu"]),
            (f"import {', '.join(scipy) or 'scipy (none)'}", scipy),
            (
                "import mlci (the modules the command loads)",
                [m for m in loaded if m.startswith("mlci")],
            ),
        ]
        runs: dict[str, list[dict[str, float]]] = {"mlci": [], "sacrebleu": []}
        for _ in range(args.repeats):
            for tool, cmd in (
                ("mlci", [py, "-c", _MLCI_PROBE, json.dumps(argv), json.dumps(groups)]),
                ("sacrebleu", [py, "-c", _SACREBLEU_PROBE, json.dumps(sb)]),
            ):
                total, err = _child_cpu(cmd, d, env)
                ph = json.loads(err.strip().splitlines()[-1])
                # (the indented phases are parts of the one above them)
                timed = sum(v for k, v in ph.items() if not k.startswith(" "))
                ph["interpreter start and exit (the rest)"] = total - timed
                ph["TOTAL"] = total
                runs[tool].append(ph)
        record["commands"][name] = {"argv": argv, "sacrebleu_argv": sb, **runs}
        print(f"# {name} ({args.repeats} rounds; CPU seconds, median [min])")
        for tool, rows in runs.items():
            print(f"  {tool}")
            parts = [k for k in rows[0] if k.startswith(" ")]
            for key in [k for k in rows[0] if not k.startswith(" ")]:
                for k in [key, *(parts if key.startswith("the replicate loop") else [])]:
                    xs = [r.get(k, 0.0) for r in rows]
                    print(f"    {k:72s} {_median(xs):6.3f} [{min(xs):.3f}]")
    record["load_average_after"] = list(os.getloadavg())
    if args.json:
        Path(args.json).write_text(json.dumps(record, indent=1) + "\n")
        print(f"# written to {args.json}")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--segments", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("-B", type=int, default=10000)
    ap.add_argument(
        "--metric", default="bleu", help="bleu, chrf or bleu,chrf (both tools score all)"
    )
    ap.add_argument("--skip-slow", action="store_true", help="leave out sacrebleu --paired-bs")
    ap.add_argument("--src", default=str(ROOT / "src"), help="the mlci source tree to time")
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON here")
    ap.add_argument(
        "--no-compile",
        action="store_true",
        help="do not compile --src's bytecode first (then every start compiles mlci when "
        "PYTHONDONTWRITEBYTECODE is set)",
    )
    ap.add_argument(
        "--phases",
        action="store_true",
        help="instead: where the CPU time of `mlci mt compare/ci -B N` and of the plain "
        "`sacrebleu` scoring goes, phase by phase (each timed in its own process)",
    )
    ap.add_argument(
        "--phases-all",
        action="store_true",
        help="with --phases: also `compare --documents` and `compare --test paired-bs`",
    )
    args = ap.parse_args()
    d = make_data(args.segments)
    if not args.no_compile:  # as installed: bytecode of every module (see the docstring)
        compileall.compile_dir(str(Path(args.src) / "mlci"), quiet=1)
    py = sys.executable
    metrics = [m.strip() for m in args.metric.split(",")]
    if args.phases:
        phases(d, args, metrics)
        return
    sb = [py, "-m", "sacrebleu", "ref.txt", "-m", *metrics, "-i"]
    ml = [py, "-m", "mlci.cli", "mt"]
    mm = ["-m", ",".join(metrics)]
    b = str(args.B)
    two = ["sys0.txt", "sys1.txt"]
    docs = ["--documents", "docs.txt"]
    plain2, plain1 = "sacrebleu plain, 2 systems", "sacrebleu plain, 1 system"
    cases: dict[str, tuple[list[str], str | None]] = {
        plain2: (sb + two, None),
        plain1: ([*sb, "sys0.txt"], None),
    }
    if not args.skip_slow:
        cases[f"sacrebleu --paired-bs -n {b}"] = (
            [*sb, *two, "--paired-bs", "--paired-bs-n", b],
            plain2,
        )
    bs = [*ml, "compare", "-r", "ref.txt", "-i", *two, *mm, "--test", "paired-bs", "-B", b]
    ci = [*ml, "ci", "-r", "ref.txt", "-i", "sys0.txt", *mm, "-B", b, "--seed", "0"]
    # the commands as a user types them: the default method and number of resamples
    ci_default = [*ml, "ci", "-r", "ref.txt", "-i", "sys0.txt", *mm, "--seed", "0"]
    cmp_default = [*ml, "compare", "-r", "ref.txt", "-i", *two, *mm, "--seed", "0"]
    cases.update(
        {
            f"mlci mt compare --test paired-bs -B {b}": (bs, plain2),
            "  ... --documents": ([*bs, *docs], plain2),
            "  ... --test paired-ar (10,000 trials)": (
                [*ml, "compare", "-r", "ref.txt", "-i", *two, *mm, "--test", "paired-ar"],
                plain2,
            ),
            f"mlci mt compare (bootstrap) -B {b}": (
                [*ml, "compare", "-r", "ref.txt", "-i", *two, *mm, "-B", b, "--seed", "0"],
                plain2,
            ),
            "  ... --documents ": (
                [*ml, "compare", "-r", "ref.txt", "-i", *two, *mm, "-B", b, "--seed", "0", *docs],
                plain2,
            ),
            f"mlci mt ci -B {b}": (ci, plain1),
            "  ... --documents  ": ([*ci, *docs], plain1),
            "mlci mt compare (bootstrap, default B)": (cmp_default, plain2),
            "  ... --documents   ": ([*cmp_default, *docs], plain2),
            "mlci mt ci (default B)": (ci_default, plain1),
            "  ... --documents    ": ([*ci_default, *docs], plain1),
            "mlci --help": ([py, "-m", "mlci.cli", "--help"], plain1),
            "python -c pass (interpreter start)": ([py, "-c", "pass"], plain1),
        }
    )
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    loads = [os.getloadavg()]
    for _ in range(args.repeats):
        for name, (cmd, _) in cases.items():
            runs[name].append(timed(cmd, d, args.src))
        loads.append(os.getloadavg())
    load = loads[-1]
    print(
        f"# {args.segments} segments, B = {args.B}, metric {','.join(metrics)}; "
        f"{args.repeats} rounds (round-robin), every command a fresh process; "
        f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; {os.cpu_count()} cores; "
        f"mlci bytecode {'as found' if args.no_compile else 'compiled first'}"
        f" (PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r})"
    )
    print(
        f"{'command':42s} {'cpu med':>7s} {'cpu min':>7s} {'wall med':>8s} "
        f"{'cpu ratio':>9s} {'wall ratio':>10s}"
    )
    rows = []
    for name, (cmd, ref) in cases.items():
        wall = [w for w, _ in runs[name]]
        cpu = [c for _, c in runs[name]]
        row: dict[str, Any] = {
            "command": name.strip(),
            "argv": cmd[1:],
            "cpu_s": cpu,
            "wall_s": wall,
            "cpu_median": _median(cpu),
            "cpu_min": min(cpu),
            "wall_median": _median(wall),
        }
        if ref is None:
            rc = rw = ""
        else:
            pairs = list(zip(runs[name], runs[ref], strict=True))
            row["relative_to"] = ref
            row["cpu_ratio"] = _median([c / rcpu for (_, c), (_, rcpu) in pairs])
            row["wall_ratio"] = _median([w / rwall for (w, _), (rwall, _) in pairs])
            rc, rw = f"{row['cpu_ratio']:.2f}x", f"{row['wall_ratio']:.2f}x"
        rows.append(row)
        print(
            f"{name:42s} {_median(cpu):7.2f} {min(cpu):7.2f} {_median(wall):8.2f} "
            f"{rc:>9s} {rw:>10s}"
        )
    print(
        "# cpu = user + sys of the child; ratios: median over the rounds of the command's "
        "time over the same round's plain `sacrebleu` scoring of the same system(s)"
    )
    if args.json:
        out = {
            "what": "bench_mt.py: mlci mt vs the sacrebleu command, CPU (user + sys) and wall "
            "seconds of every command as a fresh process; ratios: median over rounds of the "
            "same round's ratio to plain sacrebleu scoring",
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "segments": args.segments,
            "n_resamples": args.B,
            "metric": metrics,
            "rounds": args.repeats,
            "mlci_bytecode": "as found" if args.no_compile else "compiled first",
            "PYTHONDONTWRITEBYTECODE": os.environ.get("PYTHONDONTWRITEBYTECODE", ""),
            "machine": {
                "cores": os.cpu_count(),
                "python": platform.python_version(),
                "platform": platform.platform(),
            },
            "load_average_per_round": [list(x) for x in loads],
            "commands": rows,
        }
        Path(args.json).write_text(json.dumps(out, indent=1) + "\n")
        print(f"# written to {args.json}")


if __name__ == "__main__":
    main()
