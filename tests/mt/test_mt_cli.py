"""`mlci mt` end to end: the same p-values as the `sacrebleu` command on the same files,
and file errors naming the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("sacrebleu")

import mlci
import mlci.cli
from _helpers import run_cli as _run
from mlci.data import mt_example_paths

P = mt_example_paths()


# (sacrebleu --paired-bs -m chrf -f json fails on its own float32 replicate scores with
# numpy >= 2, "float32 is not JSON serializable"; that case is checked against
# sacrebleu.significance.PairedTest in test_sacrebleu_oracle.py)
@pytest.mark.parametrize(
    "test,metric", [("paired-bs", "bleu"), ("paired-ar", "bleu"), ("paired-ar", "chrf")]
)
def test_paired_tests_equal_the_sacrebleu_command(capsys, test, metric):
    refs = [str(r) for r in P["refs"]]
    a, b = (str(s) for s in P["systems"].values())
    n = "500"
    cmd = [
        sys.executable,
        "-m",
        "sacrebleu",
        *refs,
        "-i",
        a,
        b,
        f"--{test}",
        f"--{test}-n",
        n,
        "-m",
        metric,
        "-f",
        "json",
    ]
    out = subprocess.run(
        cmd, capture_output=True, text=True, check=True, env={"SACREBLEU_SEED": "12345", "PATH": ""}
    ).stdout
    theirs = json.loads(out)
    code, stdout, err = _run(
        capsys,
        ["mt", "compare", "-r", *refs, "-i", a, b, "--test", test, "-B", n, "-m", metric, "--json"],
    )
    assert code == 0, err
    mine = json.loads(stdout)
    key = {"bleu": "BLEU", "chrf": "chrF2"}[metric]
    for res in mine:
        assert res["systems"] == [a, b]
        assert res["scores"][0] == pytest.approx(theirs[0][key]["score"], abs=1e-12)
        assert res["scores"][1] == pytest.approx(theirs[1][key]["score"], abs=1e-12)
        assert res["pvalues"][1] == theirs[1][key]["p_value"]
        if test == "paired-bs":  # sacreBLEU's replicates carry float32 rounding
            assert res["means"][1] == pytest.approx(theirs[1][key]["mean"], abs=1e-4)
            assert res["ci"][1] == pytest.approx(theirs[1][key]["ci"], abs=1e-4)


def test_ci_and_compare_run_on_the_example(capsys):
    code, out, err = _run(capsys, ["mt", "ci", "--example", "-B", "200", "--seed", "1"])
    assert code == 0, err
    assert "system_a" in out and "documents" in out and "logit_t" in out
    code, out, err = _run(
        capsys, ["mt", "compare", "--example", "-B", "200", "--seed", "1", "--format", "csv"]
    )
    assert code == 0, err
    assert "system_a - system_b" in out


def test_file_errors_name_the_file(tmp_path, capsys):
    ref = tmp_path / "ref.txt"
    ref.write_text("a b c\nd e f\n")
    hyp = tmp_path / "hyp.txt"
    hyp.write_text("a b c\n")
    code, out, err = _run(capsys, ["mt", "ci", "-r", str(ref), "-i", str(hyp)])
    assert code == 2 and out == ""
    assert f"--refs {ref}: 2 lines, but the system outputs have 1" in err
    missing = tmp_path / "nope.txt"
    code, out, err = _run(capsys, ["mt", "ci", "-r", str(missing), "-i", str(hyp)])
    assert code == 2 and str(missing) in err and "--refs" in err
    code, out, err = _run(capsys, ["mt", "ci", "-r", str(ref), "-i", str(missing)])
    assert code == 2 and str(missing) in err and "--input" in err
    hyp.write_text("a b c\nd e\n")
    docs = tmp_path / "docs.txt"
    docs.write_text("d1\n")
    code, out, err = _run(
        capsys, ["mt", "ci", "-r", str(ref), "-i", str(hyp), "--documents", str(docs)]
    )
    assert code == 2 and f"--documents {docs}: 1 lines" in err
    code, out, err = _run(capsys, ["mt", "ci"])
    assert code == 2 and "give the reference files (--refs)" in err


def test_documents_file_resamples_documents(capsys, tmp_path):
    code, out, err = _run(
        capsys,
        [
            "mt",
            "ci",
            "-r",
            *map(str, P["refs"]),
            "-i",
            str(P["systems"]["system_a"]),
            "--documents",
            str(P["documents"]),
            "-B",
            "200",
            "--seed",
            "0",
            "--json",
        ],
    )
    assert code == 0, err
    (res,) = json.loads(out)
    docs = np.loadtxt(P["documents"], dtype=str)
    assert res["n_conditions"] == len(set(docs.tolist()))


def _modules_after(options: list[str]) -> set[str]:
    """``sys.modules`` after ``mlci mt compare|ci -r REFS -i A B *options`` in a fresh
    interpreter (``options[0]`` the subcommand)."""
    import os
    from pathlib import Path

    src = Path(mlci.cli.__file__).resolve().parents[2]
    refs = [str(r) for r in P["refs"]]
    a, b = (str(s) for s in P["systems"].values())
    command, rest = options[0], options[1:]
    probe = (
        "import contextlib, io, json, sys\nfrom mlci.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['mt', {command!r}, '-r', *{refs!r}, '-i', {a!r}, {b!r},"
        f" *{rest!r}]) == 0\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    )
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", probe],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(proc.stderr.strip().splitlines()[-1]))


def test_sacrebleu_tests_import_neither_scipy_nor_the_engine():
    # `mlci mt compare --test paired-bs|paired-ar` is the statistics (sacreBLEU) plus a
    # vectorised resampling: what it imports beyond numpy and sacreBLEU is start-up time,
    # the cost that issue 24's speed target (1.5x the plain `sacrebleu` scoring) counts
    loaded = _modules_after(["compare", "--test", "paired-bs", "-B", "50"])
    assert "mlci.mt.significance" in loaded
    heavy = {m for m in loaded if m == "scipy" or m.startswith(("scipy.", "pandas", "matplotlib"))}
    assert not heavy
    assert not {m for m in loaded if m.startswith(("mlci.engine", "mlci.comparison"))}


@pytest.mark.parametrize("command", ["ci", "compare"])
def test_bootstrap_commands_import_no_scipy_stats(command):
    # `mlci mt ci` / `mlci mt compare` (mlci's bootstrap): numpy, the engine (and for
    # compare scipy.special), but not scipy.stats (0.35 s of start-up; it was imported by
    # comparison.margins and comparison.tango at module level) nor sacreBLEU's tests
    loaded = _modules_after([command, "-B", "50", "--seed", "0"])
    assert "mlci.engine.bootstrap" in loaded
    heavy = {"scipy.stats", "scipy.optimize", "pandas", "pyarrow", "matplotlib"} & loaded
    assert not heavy
    assert not {"mlci.mt.significance", "mlci.mt.synthetic", "sacrebleu.significance"} & loaded


@pytest.mark.parametrize("documents", [False, True])
def test_mt_compare_imports_no_scipy(tmp_path, documents):
    # scipy.sparse costs ~0.1 s of CPU to import (scipy's array-API layer walks numpy's
    # whole namespace), a tenth of `mlci mt compare -B 10000` on 3,000 segments against
    # issue 24's 1.5x sacreBLEU target: the joint atoms' aggregation (more than 2,000 here:
    # it was a scipy.sparse product) is a bincount; scipy.special (0.18 s) neither: the t
    # quantile and p-values of the differences are mlci's (intervals.formulas)
    from mlci.mt import synthetic_corpus

    c = synthetic_corpus(2100, rng=0)
    ref, a, b, docs = (tmp_path / f for f in ("ref.txt", "a.txt", "b.txt", "docs.txt"))
    ref.write_text("\n".join(c.references[0]) + "\n", encoding="utf-8")
    for path, name in ((a, "sys0"), (b, "sys1")):
        path.write_text("\n".join(c.systems[name]) + "\n", encoding="utf-8")
    docs.write_text("\n".join(f"d{d}" for d in c.documents) + "\n")
    extra = f", '--documents', {str(docs)!r}" if documents else ""
    probe = (
        "import contextlib, io, json, sys\nfrom mlci.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['mt', 'compare', '-r', {str(ref)!r}, '-i', {str(a)!r}, {str(b)!r},"
        f" '-B', '50', '--seed', '0'{extra}]) == 0\n"
        "print(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    )
    src = os.path.dirname(os.path.dirname(os.path.dirname(mlci.__file__)))
    env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", probe], env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert not {m for m in loaded if m == "scipy" or m.startswith("scipy.")}


def test_mt_ci_over_segments_imports_no_scipy():
    # `mlci mt ci` over segments (the studentized interval on the logit scale): scipy.special
    # and scipy.sparse cost 0.13-0.18 s of CPU to import, ~20% of the command against issue
    # 24's 1.5x sacreBLEU target; the logit and its inverse are computed with the math
    # module (intervals.formulas.libm_logit, equal to scipy's).  (Over documents the logit
    # t interval needs scipy's t quantile.)
    loaded = _modules_after(["ci", "-B", "50", "--seed", "0"])
    assert "mlci.engine.bootstrap" in loaded
    assert not {m for m in loaded if m == "scipy" or m.startswith("scipy.")}


def test_bootstrap_commands_run_with_one_blas_thread(capsys, monkeypatch):
    # mlci's bootstrap runs its replicates on its own threads; a multi-threaded BLAS only
    # spins idle workers (0.15 s of CPU over documents): the command limits it to one,
    # and restores it after
    threadpoolctl = pytest.importorskip("threadpoolctl")
    import mlci.cli.mt as cli_mt

    def blas_threads():
        info = threadpoolctl.threadpool_info()
        return {i["filepath"]: i["num_threads"] for i in info if i["user_api"] == "blas"}

    seen = []
    run_ci = cli_mt._run_ci

    def spy(args):
        seen.append(blas_threads())
        return run_ci(args)

    monkeypatch.setattr(cli_mt, "_run_ci", spy)
    before = blas_threads()
    code, out, _ = _run(capsys, ["mt", "ci", "--example", "-B", "50", "--seed", "0"])
    assert code == 0 and "bleu" in out
    assert seen and set(seen[0].values()) == {1}
    after = blas_threads()  # (the command may load another BLAS, e.g. scipy's)
    assert {k: after[k] for k in before} == before


def test_the_collector_is_left_as_found(capsys):
    # `mlci mt` pauses the garbage collector while it runs (mlci.mt.stats.gc_paused) and
    # only the process's own command line (main() without argv) freezes its objects
    import gc

    frozen = gc.get_freeze_count()
    code, out, _ = _run(capsys, ["mt", "ci", "--example", "-B", "50", "--seed", "0"])
    assert code == 0 and "bleu" in out
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
    gc.disable()
    try:
        _run(capsys, ["mt", "ci", "--example", "-B", "50", "--seed", "0"])
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()


def test_the_command_line_freezes_at_exit():
    # `python -m mlci.cli` (main() without argv): the objects frozen before the exit
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import gc, sys, mlci.cli; sys.argv = ['mlci', '--version']\n"
            "try:\n    mlci.cli.main()\nexcept SystemExit:\n    pass\n"
            "print(gc.get_freeze_count() > 0)",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.split() == ["mlci", mlci.__version__, "True"]


def _blas_setting(argv: list[str], env: dict[str, str]) -> str:
    """OPENBLAS_NUM_THREADS and numpy's BLAS pool size after importing mlci.cli in a fresh
    interpreter started as ``mlci ARGV``."""
    code = (
        "import sys; sys.argv = ['mlci', *sys.argv[1:]]; import mlci.cli, os, numpy\n"
        "from threadpoolctl import threadpool_info\n"
        "n = [i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas']\n"
        "print(os.environ.get('OPENBLAS_NUM_THREADS'), n[:1])"
    )
    blas = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    clean = {k: v for k, v in os.environ.items() if k not in blas}
    out = subprocess.run(
        [sys.executable, "-c", code, *argv],
        env={**clean, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_mt_commands_start_numpy_with_one_blas_thread():
    # `mlci mt ...` sets OPENBLAS_NUM_THREADS=1 before numpy loads (a pool of BLAS threads
    # cost 0.2-0.3 s of CPU per command, benchmarks/bench_mt.py); a user's own setting and
    # the other commands are left alone
    pytest.importorskip("threadpoolctl")
    assert _blas_setting(["mt", "ci"], {}) == "1 [1]"
    assert _blas_setting(["mt", "ci"], {"OPENBLAS_NUM_THREADS": "2"}).startswith("2")
    assert _blas_setting(["mt", "ci"], {"OMP_NUM_THREADS": "2"}).startswith("None")
    assert _blas_setting(["ci"], {}).startswith("None")


@pytest.mark.parametrize("command", ["ci", "compare"])
def test_mt_bootstrap_commands_leave_threadpoolctl_alone(command):
    # numpy's BLAS started with one thread (above): the command and the engine's replicate
    # loops need no threadpoolctl limit (its import and calls: ~3 ms of CPU a command)
    refs = [str(r) for r in P["refs"]]
    systems = [str(s) for s in P["systems"].values()]
    code = (
        "import sys, io, contextlib; sys.argv = ['mlci', *sys.argv[1:]]\n"
        "from mlci.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(sys.argv[1:]) == 0\n"
        "import mlci.engine.replicate_loop as b\n"
        "print('threadpoolctl' in sys.modules, b.BLAS_STARTED_SINGLE)"
    )
    argv = ["mt", command, "-r", *refs, "-i", *systems, "-B", "200", "--seed", "0"]
    blas = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    clean = {k: v for k, v in os.environ.items() if k not in blas}
    src = os.path.dirname(os.path.dirname(os.path.dirname(mlci.__file__)))
    clean["PYTHONPATH"] = f"{src}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"
    out = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", code, *argv],
        env=clean,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["False", "True"]


@pytest.mark.parametrize(("argv", "enabled"), [(["mt", "ci"], False), (["ci"], True)])
def test_mt_command_processes_pause_the_collector_from_their_first_import(argv, enabled):
    # a process started as `mlci mt ...` pauses the garbage collector before numpy and
    # mlci load (their imports make no cycles; its passes cost ~0.01 s of CPU); the other
    # commands, and a program importing mlci.cli, keep it
    code = (
        "import sys; sys.argv = ['mlci', *sys.argv[1:]]; import gc, mlci.cli\nprint(gc.isenabled())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == [str(enabled)]
